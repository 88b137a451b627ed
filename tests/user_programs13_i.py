"""Round 13, part i: NumPy idioms and views -- tril/triu, outer/kron, stack/concatenate/split,
boolean masks, np.where with several branches, .flat, np.add.at, cumprod, reshape/ravel/
squeeze views written to, `x[...] =`, augmented assignment through slices and views."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
rng = np.random.default_rng(9)
M4 = rng.normal(size=(4, 4))
V4 = rng.normal(size=4)


def tril_triu(A):
    return np.sum(np.tril(A) ** 2) - 2 * np.sum(np.triu(A, 1) * np.tril(A, -1).T)


add(G("r13_tril_triu", tril_triu, (M4,), ref="ag", tol=1e-12))
add(G("r13_outer_kron", lambda v: np.sum(np.kron(np.outer(v, v[:2]), np.eye(2)) ** 2), (V4,), ref="ag", tol=1e-10))


def stack_split(v):
    a, b = np.split(v, 2)
    S = np.stack([a, b, a * b])
    C = np.concatenate([S[0], S[2] ** 2, [np.sum(b)]])
    return np.sum(C * np.arange(1, C.size + 1))


add(G("r13_stack_split_concat", stack_split, (V4,), ref="fd"))


def masked_update(x):
    y = x.copy()
    m = y > 0
    y[m] = y[m] ** 2
    y[~m] *= -3.0
    return np.sum(y)


add(G("r13_bool_mask_write", masked_update, (V4,), ref=lambda: np.where(V4 > 0, 2 * V4, -3.0), tol=1e-12))


def where3(x):
    return np.sum(np.where(x < -0.5, -x, np.where(x < 0.5, x ** 2, np.sqrt(x))))


add(G("r13_where_nested_three", where3, (np.array([-1.0, -0.2, 0.3, 0.9, 2.0]),),
      ref=lambda: np.array([-1.0, -0.4, 0.6, 0.5 / math.sqrt(0.9), 0.5 / math.sqrt(2.0)]), tol=1e-12))
add(G("r13_select_piecewise", lambda x: np.sum(np.select([x < 0, x < 1], [x ** 3, 2 * x], default=x ** 2)),
      (np.array([-1.0, 0.3, 1.5]),), ref=lambda: np.array([3.0, 2.0, 3.0]), tol=1e-12))


def flat_write(A):
    B = A.copy()
    B.flat[::5] = 0.0
    return np.sum(B ** 2)


add(G("r13_flat_strided_write", flat_write, (M4,), ref=lambda: np.where(np.eye(4, dtype=bool), 0.0, 2 * M4), tol=1e-12))


def add_at_hist(w, idx=np.array([0, 2, 2, 1, 0, 2])):
    h = np.zeros(3)
    np.add.at(h, idx, w)
    return np.sum(h ** 2)


W6 = np.array([0.5, 1.0, -0.3, 2.0, 0.7, 0.1])
add(G("r13_add_at_repeated_idx", add_at_hist, (W6,), ref="fd"))


def add_at_hist_explicit(w):
    return add_at_hist(w, np.array([0, 2, 2, 1, 0, 2]))


add(G("r13_add_at_helper_idx_passed", add_at_hist_explicit, (W6,), ref="fd"))
add(G("r13_cumprod_survival", lambda p: np.sum(np.cumprod(1 - p)), (np.array([0.1, 0.3, 0.2, 0.05]),), ref="fd"))


def ravel_view_write(x):
    A = np.zeros((2, 3))
    r = A.ravel()
    r[:] = x * 2.0
    A[1] += A[0]
    return np.sum(A ** 2)


X6 = np.array([0.5, 1.0, -0.3, 2.0, 0.7, 0.1])
add(G("r13_ravel_view_write", ravel_view_write, (X6,), ref="fd"))


def reshape_minus1_write(x):
    A = np.empty((3, 2))
    A.reshape(-1)[...] = x
    A[:, 1] *= A[:, 0]
    return np.sum(A)


add(G("r13_reshape_minus1_ellipsis_write", reshape_minus1_write, (X6,), ref="fd"))


def squeeze_view(x):
    A = x.reshape(1, 6).copy()
    s = A.squeeze()
    s[2:4] += 10.0 * s[:2]
    return np.sum(A ** 2)


add(G("r13_squeeze_view_iadd", squeeze_view, (X6,), ref="fd"))


def ellipsis_assign(x):
    y = np.zeros_like(x)
    y[...] = np.sin(x)
    y[..., 0] = 0.0
    return np.sum(y)


add(G("r13_ellipsis_assign", ellipsis_assign, (M4,), ref=lambda: np.where(np.arange(4) == 0, 0.0, np.cos(M4)), tol=1e-12))


def transpose_view_write(x):
    A = np.zeros((3, 3))
    A.T[0] = x
    A[0, :] -= A[:, 0]
    return np.sum(A * np.arange(9).reshape(3, 3))


add(G("r13_transpose_view_write", transpose_view_write, (np.array([1.0, 2.0, 3.0]),), ref="fd"))


def out_kwarg(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    return np.sum(y)


add(G("r13_ufunc_out_discarded", out_kwarg, (V4,), ref=lambda: 2 * V4, tol=1e-12))


def diag_fill(x):
    A = np.outer(x, x)
    A[np.diag_indices(4)] = 1.0
    return np.sum(A)


add(G("r13_diag_indices_write", diag_fill, (V4,), ref="fd"))


def triu_indices_vec(A):
    iu = np.triu_indices(4, k=1)
    return np.sum(A[iu] ** 2 * np.arange(1, 7))


add(G("r13_triu_indices_gather", triu_indices_vec, (M4,), ref="ag", tol=1e-12))


def fancy_iadd_dupe(x):
    y = np.zeros(3)
    y[[0, 0, 2]] += x[:3]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


# NumPy's buffered fancy +=: a repeated index is added once (the last value); y[0] = x[1]
add(pair("r13_fancy_iadd_duplicate_index", lambda: revsrc.grad(fancy_iadd_dupe)(X6),
         lambda: fd_checked(fancy_iadd_dupe, (X6,))[0], tol=1e-7))
add(pair("r13_fancy_iadd_duplicate_value", lambda: revsrc.value_and_grad(fancy_iadd_dupe)(X6)[0],
         lambda: fancy_iadd_dupe(X6), tol=0.0))
