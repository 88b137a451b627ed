"""The held-out-style programs of tests/user_programs_issue23.py: each correct or
refused with the code its case documents (0 wrong, 0 crashed)."""
import importlib.util
import os
import sys
import warnings

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import user_programs4 as up4  # noqa: E402
import user_programs_issue23 as up  # noqa: E402


@pytest.mark.parametrize("case", [pytest.param(c, id=c.name) for c in up.CASES])
def test_user_program(case):
    if "scipy" in case.name and importlib.util.find_spec("scipy") is None:
        pytest.skip("needs SciPy (its rules are registered only where it is installed)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        status, detail = up4.classify(case)
    if status == "skip":
        pytest.skip("JAX is not importable")
    assert status in ("correct", "refused-doc"), f"{status}: {detail}"


def test_case_names_unique_and_apart_from_round_4():
    names = [c.name for c in up.CASES]
    assert len(names) == len(set(names)) >= 12
    assert not set(names) & {c.name for c in up4.CASES}
