"""Round 12, part v: ndarray methods and conversions as users chain them -- .sum/.mean/
.max/.dot/.clip/.cumsum/.prod/.std/.var/.round/.conj/.astype, .tolist() and .item()
into Python loops, float() of elements, np.array of scalars, list(x)."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked, ag, agify  # noqa: F401

CASES = []
add = CASES.append
X = np.array([0.4, -1.3, 2.2, 0.9])


def C(name, f, x=X, tol=1e-7):
    add(pair(name, lambda: revsrc.grad(f)(x), lambda: fd_checked(f, (x,))[0], tol=tol))


def methods_chain(x):
    return x.sum() * x.mean() + x.max() - x.min() + x.dot(x) + x.clip(-1.0, 1.0).sum()


C("r12_method_chain_reductions", methods_chain)


def cumsum_prod_methods(x):
    return x.cumsum().prod() + x.std() * x.var(ddof=1)


C("r12_cumsum_prod_std_var_methods", cumsum_prod_methods)


def round_conj_astype(x):
    return np.sum(x.round(1) * x) + np.sum(x.conj() ** 2) + np.sum(x.astype(float) ** 3)


C("r12_round_conj_astype_methods", round_conj_astype)


def astype_float32_roundtrip(x):
    y = x.astype(np.float32).astype(np.float64)
    return np.sum(y * y)


add(pair("r12_astype_float32_roundtrip", lambda: revsrc.grad(astype_float32_roundtrip)(X),
         lambda: 2 * X.astype(np.float32).astype(np.float64), tol=0.0))
add(pair("r12_astype_float32_roundtrip_dtype", lambda: str(revsrc.grad(astype_float32_roundtrip)(X).dtype), lambda: "float64", tol=0.0))


def tolist_loop(x):
    s = 0.0
    for v in x.tolist():
        s += v * v if v > 0 else -v
    return s


add(pair("r12_tolist_python_loop", lambda: revsrc.grad(tolist_loop)(X), lambda: np.where(X > 0, 2 * X, -1.0), tol=0.0))


def item_and_float(x):
    return x[0].item() * float(x[1]) + math.exp(float(x[2])) + x.max().item()


C("r12_item_and_float_of_elements", item_and_float)


def array_of_scalars(a, b):
    v = np.array([a * b, a + b, math.sin(a)])
    return v @ v


add(pair("r12_np_array_of_scalars", lambda: revsrc.grad(array_of_scalars, argnums=(0, 1))(0.7, -0.3),
         lambda: tuple(fd_checked(array_of_scalars, (0.7, -0.3), argnums=i)[0] for i in (0, 1)), tol=1e-7))


def list_of_array(x):
    parts = list(x)
    return sum(p * p for p in parts[1:]) + parts[0]


add(pair("r12_list_of_array_items", lambda: revsrc.grad(list_of_array)(X), lambda: np.concatenate([[1.0], 2 * X[1:]]), tol=0.0))


def enumerate_array_rows(A):
    total = 0.0
    for i, row in enumerate(A):
        total += (i + 1) * row @ row
    return total


AM = X.reshape(2, 2)
add(pair("r12_enumerate_rows_of_matrix", lambda: revsrc.grad(enumerate_array_rows)(AM),
         lambda: 2 * AM * np.array([[1.0], [2.0]]), tol=1e-15))


def zip_rows_cols(A):
    return sum(r @ c for r, c in zip(A, A.T))


add(pair("r12_zip_rows_and_columns", lambda: revsrc.grad(zip_rows_cols)(AM), lambda: 2 * AM.T, tol=1e-15))


def argmax_select(x):
    i = int(np.argmax(x))
    return x[i] ** 2 + x[(i + 1) % len(x)]


add(pair("r12_argmax_int_index", lambda: revsrc.grad(argmax_select)(X), lambda: np.array([0.0, 0.0, 4.4, 1.0]), tol=1e-15))


def sorted_python_floats(x):
    vals = sorted(x.tolist())
    return vals[-1] - vals[0] + vals[1] * vals[2]


add(pair("r12_sorted_tolist", lambda: revsrc.grad(sorted_python_floats)(X),
         lambda: np.array([0.9, -1.0, 1.0, 0.4]), tol=1e-15))


def fill_then_reduce(x):
    out = np.empty(3)
    out.fill(0.5)
    out[1] = x @ x
    return out.prod()


add(pair("r12_fill_method_then_write", lambda: revsrc.grad(fill_then_reduce)(X), lambda: 0.25 * 2 * X, tol=1e-15))


def repeat_tile(x):
    return np.sum(np.repeat(x, 2) * np.tile(x, 2))


C("r12_repeat_tile", repeat_tile)


def where_one_arg(x):
    idx = np.where(x > 0)[0]
    return np.sum(x[idx] ** 2)


add(pair("r12_where_one_argument_indices", lambda: revsrc.grad(where_one_arg)(X), lambda: np.where(X > 0, 2 * X, 0.0), tol=0.0))


def nonzero_and_take(x):
    idx = np.nonzero(x > 0.5)[0]
    return np.sum(np.take(x, idx) ** 3)


add(pair("r12_nonzero_take", lambda: revsrc.grad(nonzero_and_take)(X), lambda: np.where(X > 0.5, 3 * X ** 2, 0.0), tol=1e-15))


def searchsorted_interp(x):
    knots = np.array([-2.0, 0.0, 1.0, 3.0])
    i = np.searchsorted(knots, x) - 1
    t = (x - knots[i]) / (knots[i + 1] - knots[i])
    return np.sum(t ** 2)


C("r12_searchsorted_piecewise", searchsorted_interp)


def matrix_methods(A):
    return A.trace() + A.T.dot(A).sum() + A.diagonal().prod() + np.linalg.matrix_power(A, 3).sum()


C("r12_matrix_methods_trace_diag_matpow", matrix_methods, AM)


def flat_iteration(A):
    s = 0.0
    for v in A.flat:
        s = s * 0.5 + v
    return s


C("r12_flat_iterator_loop", flat_iteration, AM)


def ndenumerate_loop(A):
    s = 0.0
    for (i, j), v in np.ndenumerate(A):
        s += (i + 2 * j + 1) * v * v
    return s


add(pair("r12_ndenumerate_loop", lambda: revsrc.grad(ndenumerate_loop)(AM),
         lambda: 2 * AM * np.array([[1.0, 3.0], [2.0, 4.0]]), tol=1e-15))
