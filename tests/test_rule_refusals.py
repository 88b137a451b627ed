"""Variants of a primitive that have no derivative are refused with a code, never given
a wrong number: by the adjoint at run time, where the refusal depends on the values
(a rank-deficient matrix, a repeated eigenvalue) or on an argument's type."""
import numpy as np
import pytest

import revsrc
from revsrc import errors


def r_pad_callable(x):
    return np.sum(np.pad(x, 1, mode=_pad_with_ones))


def _pad_with_ones(vector, width, axis, kwargs):
    vector[:width[0]] = 1.0
    vector[vector.size - width[1]:] = 1.0


def r_pinv(a):
    return np.sum(np.linalg.pinv(a) ** 2)


def r_lstsq(a, b):
    return np.sum(np.linalg.lstsq(a, b)[0])


def r_eigh_vectors(a):
    w, v = np.linalg.eigh(a)
    return np.sum(v[:, 1] * np.arange(1.0, 4.0))  # one vector of the repeated pair


def r_eigh_projector(a):
    w, v = np.linalg.eigh(a)
    p = v[:, 1:] @ v[:, 1:].T      # the eigenspace of the repeated eigenvalue
    return np.sum(p * np.arange(9.0).reshape(3, 3)) + np.sum(w * w)


def r_eig(a):
    w, v = np.linalg.eig(a)
    return np.sum(np.real(w) * np.arange(3.0))


def r_svd_full(a):
    u, s, vh = np.linalg.svd(a)
    return np.sum(u[:, -1] ** 2 * np.arange(4.0))


def r_gradient_coords(f, x):
    return np.sum(np.gradient(f, x) ** 2)


def r_interp_period(x, period):
    return np.sum(np.interp(x, np.array([0.0, 1.0, 2.0]), np.array([1.0, 3.0, 2.0]),
                            period=period))


def r_einsum_many(a):
    return np.einsum("i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i,i->",
                     a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a,
                     a, a)


CASES = [
    (r_pad_callable, (np.ones(3),), 0, errors.NoRule, "E202", "function as its mode"),
    (r_pinv, (np.array([[1.0, 2.0], [2.0, 4.0], [0.0, 0.0]]),), 0,
     errors.NotDifferentiableHere, "E304", "rank-deficient"),
    (r_lstsq, (np.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]]), np.ones(3)), 0,
     errors.NotDifferentiableHere, "E304", "rank-deficient"),
    (r_eigh_vectors, (np.diag([1.0, 2.0, 2.0]),), 0, errors.NotDifferentiableHere, "E304",
     "repeated eigenvalue"),
    (r_eig, (np.eye(3),), 0, errors.NotDifferentiableHere, "E304", "repeated eigenvalue"),
    (r_svd_full, (np.arange(12.0).reshape(4, 3) + np.eye(4, 3),), 0,
     errors.NotDifferentiableHere, "E304", "full_matrices"),
    (r_gradient_coords, (np.arange(4.0) ** 2, np.array([0.0, 1.0, 1.5, 3.0])), 1,
     errors.NoRule, "E202", "coordinate arrays"),
    (r_interp_period, (np.array([0.3, 1.7]), 2.5), 1, errors.NoRule, "E202", "period"),
    (r_einsum_many, (np.ones(2),), 0, errors.NoRule, "E202", "more than"),
]


@pytest.mark.parametrize("fn,args,argnum,cls,code,words", CASES,
                         ids=[c[0].__name__ for c in CASES])
def test_refused_with_a_code(fn, args, argnum, cls, code, words):
    with pytest.raises(cls, match=words) as info:
        revsrc.grad(fn, argnum)(*args)
    assert info.value.code == code
    assert info.value.hint


def test_basis_independent_use_of_a_repeated_eigenvalue_is_differentiable():
    """A projector onto the eigenspace of a repeated eigenvalue does not depend on the
    basis chosen in it: its derivative exists, and is given."""
    a = np.diag([1.0, 2.0, 2.0])
    g = revsrc.grad(r_eigh_projector)(a)
    assert np.all(np.isfinite(g))
    # the same function of a matrix whose eigenvalues are apart, near it
    from revsrc.testing import check_grads
    check_grads(r_eigh_projector, (np.diag([1.0, 2.0, 2.5]),), rtol=1e-5)


def r_nan_to_num_in_place(x):
    return np.sum(np.nan_to_num(x, copy=False))


def test_repair_in_place_is_refused():
    with pytest.raises(errors.NoRule, match="copy=False") as info:
        revsrc.grad(r_nan_to_num_in_place)(np.array([1.0, np.inf, 2.0]))
    assert info.value.code == "E202"


def r_complex_max(z):
    return np.sum(np.abs(np.max(z) * z))


def r_complex_sort(z):
    return np.sum(np.real(np.sort(z)) * np.arange(3.0))


def r_complex_eigh(a):
    return np.sum(np.linalg.eigh(a)[0] ** 2)


def r_complex_svd_vectors(a):
    return np.sum(np.abs(np.linalg.svd(a)[0]) * np.arange(4.0).reshape(2, 2))


@pytest.mark.parametrize("fn,arg", [
    (r_complex_max, np.array([1.0 + 1.0j, 2.0 - 1.0j, 0.5j])),
    (r_complex_sort, np.array([1.0 + 1.0j, 2.0 - 1.0j, 0.5j])),
    (r_complex_eigh, np.array([[2.0, 1.0j], [-1.0j, 3.0]])),
    (r_complex_svd_vectors, np.array([[2.0, 1.0j], [0.5, 3.0]])),
], ids=["max", "sort", "eigh", "svd"])
def test_rules_without_the_complex_convention_refuse_complex_values(fn, arg):
    with pytest.raises(errors.NoRule, match="complex values") as info:
        revsrc.grad(fn)(arg)
    assert info.value.code == "E202"
