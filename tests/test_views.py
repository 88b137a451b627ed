"""Writes through views revsrc knows only when the program runs (issue 22): the
result of a function not known to copy (np.einsum, np.array(copy=False), z.real, a
piece of np.array_split...) may share memory with its operand. revsrc asks NumPy when
the write runs, and follows it (the value and the gradient are the plain call's) or
refuses it with a coded error at the user's line, whose message says what was checked.
Never a write taken for a write into a copy."""
import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads

RNG = np.random.default_rng(20261201)


# ----- followed: the value is NumPy's, the gradient agrees with central differences -----

def einsum_diagonal(A, s):
    M = A @ A.T
    d = np.einsum("ii->i", M)          # a view of M's diagonal
    d += s
    return np.sum(M * M)


def array_copy_false(x):
    a = x * 1.0
    b = np.array(a, copy=False)        # a itself (NumPy 2: no copy when none is needed)
    b[0] = 3.0
    return np.sum(a * x)


def asarray_written(x):
    a = x * 1.0
    b = np.asarray(a)
    b[1:] *= x[:2]
    return np.sum(a * a)


def real_part_written(x):
    z = x * (1 + 2j)
    r = z.real
    r[0] = 7.0
    return np.sum(np.abs(z) ** 2)


def imag_part_written(x):
    z = x * (1 + 2j)
    m = z.imag
    m[1:] = x[:2] * 3.0
    return np.sum(np.abs(z * (0.5 - 1j)) ** 2)


def array_split_piece(x):
    a = x * 1.0
    parts = np.array_split(a, 2)       # views of a
    p = parts[0]
    p[0] = 3.0 * x[1]
    return np.sum(a * x)


def transpose_written(A):
    B = A * 1.0
    t = B.T
    t[0] = A[1] * 2.0
    return np.sum(B * A)


def reshape_written(A):
    B = A * 1.0
    t = B.reshape(-1)                  # a view: B is contiguous
    t[0] = 5.0 * A[1, 1]
    return np.sum(B * A)


def rollaxis_written(A):
    B = A * 1.0
    t = np.rollaxis(B, 1)
    t[0] += A[0]
    return np.sum(B * B)


def einsum_result_written(A, v):
    y = np.einsum("ij,j->i", A, v)     # a new array: written as it is
    y[0] = 0.0
    return np.sum(y * v)


def operand_written_after_einsum(A, v):
    M = A * 1.0
    d = np.einsum("ij,j->i", M, v)     # a new array: the write into M does not reach it
    M[0] = 2.0
    return np.sum(d * d) + np.sum(M * A)


def reshape_copy_written(A):
    B = A * 1.0
    t = B.T.reshape(-1)                # a copy: written as it is, B does not change
    t[0] = 5.0 * A[0, 1]
    return np.sum(B * A) + np.sum(t * t)


def reshape_copy_then_base_written(A):
    M = A * 1.0
    t = M.T.reshape(-1)                # a copy (M.T is not contiguous)
    M[0, 0] = 5.0
    return np.sum(t * t) + np.sum(M * A)


def einsum_in_both_branches(A, v, s):
    y = np.einsum("ij,j->i", A, v)
    if s > 1.0:
        y = np.einsum("ij,j->i", A, v * s)
    y[0] = 0.0                         # y is new either way (asked when it runs)
    return np.sum(y * y)


def einsum_in_a_loop(A, v, s):
    y = np.dot(A, v)
    for i in range(3):
        y = np.einsum("ij,j->i", A, y[:2] * s)
        y[0] = s
    return np.sum(y * y)


FOLLOWED = [
    (einsum_diagonal, (RNG.normal(size=(3, 3)), 1.5), (0, 1)),
    (array_copy_false, (RNG.normal(size=3),), 0),
    (asarray_written, (RNG.normal(size=3),), 0),
    (real_part_written, (RNG.normal(size=3),), 0),
    (imag_part_written, (RNG.normal(size=3),), 0),
    (array_split_piece, (RNG.normal(size=5),), 0),
    (transpose_written, (RNG.normal(size=(2, 2)),), 0),
    (reshape_written, (RNG.normal(size=(2, 3)),), 0),
    (rollaxis_written, (RNG.normal(size=(2, 2)),), 0),
    (einsum_result_written, (RNG.normal(size=(3, 3)), RNG.normal(size=3)), (0, 1)),
    (operand_written_after_einsum, (RNG.normal(size=(2, 2)), RNG.normal(size=2)), (0, 1)),
    (reshape_copy_then_base_written, (RNG.normal(size=(2, 3)),), 0),
    (reshape_copy_written, (RNG.normal(size=(2, 3)),), 0),
    (einsum_in_both_branches, (RNG.normal(size=(2, 2)), RNG.normal(size=2), 0.7), (0, 1, 2)),
    (einsum_in_both_branches, (RNG.normal(size=(2, 2)), RNG.normal(size=2), 1.3), (0, 1, 2)),
    (einsum_in_a_loop, (RNG.normal(size=(2, 2)), RNG.normal(size=2), 0.8), (0, 1, 2)),
]


@pytest.mark.parametrize("f,args,argnums", FOLLOWED, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(FOLLOWED)])
def test_the_value_is_the_plain_call(f, args, argnums):
    value, _ = revsrc.value_and_grad(f, argnums=argnums)(*[np.copy(a) for a in args])
    assert value == pytest.approx(f(*[np.copy(a) for a in args]), rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("f,args,argnums", FOLLOWED, ids=[f"{c[0].__name__}-{i}" for i, c in enumerate(FOLLOWED)])
def test_the_gradient_matches_central_differences(f, args, argnums):
    check_grads(f, args, argnums=argnums)


def test_the_issue_numbers():
    A = np.array([[1.0, 2.0], [0.5, -1.0]])
    value, g = revsrc.value_and_grad(einsum_diagonal, argnums=1)(A, 1.5)
    assert value == einsum_diagonal(A, 1.5)
    assert g == pytest.approx(18.5)
    x = np.array([1.0, -1.0, 4.0])
    assert revsrc.grad(array_copy_false)(x) == pytest.approx([3.0, -2.0, 8.0])
    assert revsrc.grad(real_part_written)(x) == pytest.approx([8.0, -10.0, 40.0])
    assert revsrc.grad(array_split_piece)(x) == pytest.approx([-3.0, 1.0, 8.0])


# ----- refused: a coded error at the user's line, saying what was checked -----

def diagonal_written(A):
    B = A * 1.0
    d = np.diagonal(B)                 # read-only: NumPy raises ValueError
    d[0] = 1.0
    return np.sum(B * A)


def broadcast_written(x):
    a = x * 1.0
    b = np.broadcast_to(a, (2, 3))     # read-only: NumPy raises ValueError
    b[0, 0] = 1.0
    return np.sum(a * x)


def einsum_view_of_argument(A):
    y = np.einsum("ii->i", A)          # a view of the caller's A
    y[0] = 0.0
    return np.sum(y)


def view_in_one_branch(A, s):
    M = A * 1.0
    y = np.einsum("ij,j->i", M, M[0])
    if s > 1.0:
        y = np.einsum("ii->i", M)       # a view of M on this path only
    y[0] = 0.0
    return np.sum(M * M) + np.sum(y)


def _refusal(f, args, line):
    """The coded error revsrc raises on ``f``, at the user's ``line``."""
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(f)(*args)
    err = info.value
    assert err.filename == __file__ and err.line.strip() == line, err
    assert "copied here" not in str(err)
    return err


@pytest.mark.parametrize("f,args,line", [(diagonal_written, (np.ones((2, 2)),), "d[0] = 1.0"),
                                         (broadcast_written, (np.ones(3),), "b[0, 0] = 1.0")])
def test_a_read_only_view_is_refused_as_numpy_refuses_it(f, args, line):
    with pytest.raises(ValueError):
        f(*args)
    err = _refusal(f, args, line)
    assert err.code == "E404" and "read-only" in str(err)


def test_a_view_of_an_argument_found_when_it_runs_is_refused():
    A = RNG.normal(size=(2, 2))
    err = _refusal(einsum_view_of_argument, (A,), "y[0] = 0.0")
    assert err.code == "E403"
    y = np.einsum("ij,j->i", A, np.ones(2))
    assert not np.shares_memory(y, A)   # (and a new array is written as it is)


def test_view_method_is_refused_or_followed_never_wrong():
    def view_written(x):
        a = x * 1.0
        b = a.view()
        b[0] = 0.5
        return np.sum(a * x)

    x = np.array([1.0, -1.0, 4.0])
    try:
        g = revsrc.grad(view_written)(x)
    except errors.RevsrcError as err:
        assert err.code.startswith("E") and "copied here" not in str(err)
        return
    assert g == pytest.approx([0.5, -2.0, 8.0])


# ----- the run-time check -----

def test_view_positions_finds_each_element_once():
    from revsrc.runtime import inplace
    M = np.arange(9.0).reshape(3, 3)
    part, index = inplace.view_positions(np.einsum("ii->i", M), M)
    assert part == "whole" and index.tolist() == [0, 4, 8]
    z = np.arange(4.0) * (1 + 1j)
    assert inplace.view_positions(z.imag[::2], z)[0] == "imag"
    with pytest.raises(errors.UnfollowableWrite, match="shares_memory"):
        inplace.view_positions(M.T.reshape(-1), M)
    pieces = np.array_split(np.arange(5.0), 2)
    assert inplace.shares(pieces, np.arange(5.0)) is False
    base = np.arange(5.0)
    assert inplace.shares(np.array_split(base, 2), base) is True


def test_a_value_assigned_in_two_places_is_followed_where_it_is_new():
    A = RNG.normal(size=(2, 2))
    check_grads(view_in_one_branch, (A, 0.5))
    err = _refusal(view_in_one_branch, (A, 1.5), "y[0] = 0.0")
    assert err.code == "E404" and "more than one place" in str(err)
