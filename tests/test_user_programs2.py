"""Adversarial user programs, round 2 (see user_programs2.py).

Each case is run and classified as correct, WRONG (a number beyond tolerance), CRASH
(an exception that is not a RevsrcError), refused with a code the README documents for
that program, or refused otherwise. Known WRONG / CRASH / undocumented refusals are
skipped by the case test and tracked by test_the_known_failures_are_still_open,
which fails once one of them passes, so the list can only shrink.
"""
import os
import sys
import warnings

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import user_programs2 as up  # noqa: E402

KNOWN = {
    'lam_dict_comp': "refused-undoc: [E101] a lambda's default value c is not known when transforming (a lambda's defaults can be constants, functions, and the variable of a comprehension over a ra",
    'co_jacfwd_jacrev_tuple_vs_jax': 'refused-undoc: [E104] jacrev_f is a derivative made by revsrc; of its Jacobians, only the Jacobian in one argument of a Jacobian in one argument (without has_aux) of a functio',
    'view_reshape_iadd_jax': "refused-undoc: [E603] backend='jax': whether NumPy makes this value a view of the array it was made from (so that a write into it reaches that array) or a copy depends on the array's memory layout",
}


def _params():
    return [pytest.param(c, id=f"{c.family}-{c.name}") for c in up.CASES]


def test_case_names_unique():
    names = [c.name for c in up.CASES]
    assert len(names) == len(set(names))
    assert len(names) >= 150
    assert set(KNOWN) <= set(names)


@pytest.mark.parametrize("case", _params())
def test_user_program(case):
    if case.name in KNOWN:
        pytest.skip(f"known, open (issue 22): {KNOWN[case.name]}")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, detail = up.classify(case)
    if status == "skip":
        pytest.skip("JAX is not importable")
    assert status in ("correct", "refused-doc"), f"{status}: {detail}"


def test_the_known_failures_are_still_open():
    """Each case in KNOWN still fails: one that passes now must leave the list (and be
    checked by test_user_program again)."""
    fixed = []
    for case in up.CASES:
        if case.name not in KNOWN:
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            status, _ = up.classify(case)
        if status in ("correct", "refused-doc"):
            fixed.append(case.name)
    assert not fixed, f"fixed: remove from KNOWN in tests/test_user_programs2.py: {fixed}"
