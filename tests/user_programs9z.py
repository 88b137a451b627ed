"""Round 9, conversions between arrays and Python values inside a differentiated
function: .item(), .tolist(), float() of a 0-d array, np.asarray of a list of floats,
np.array of a generator's list, iterating over a 2-D array's rows, dict.items() over
differentiated values, len() and range(len()), np.ndindex loops."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_v = np.array([0.3, -0.6, 1.2])


def item_user(x):
    a = x[0].item() if hasattr(x[0], "item") else x[0]
    return a * a + x[1]


CASES.append(G("r9_item_of_array_element", item_user, (_v,), ref=lambda: np.array([0.6, 1.0, 0.0])))


def tolist_user(x):
    vals = x.tolist()
    return sum(v * v for v in vals)


CASES.append(G("r9_tolist_then_python_sum", tolist_user, (_v,), ref=lambda: 2 * _v))


def float_of_0d(x):
    s = np.sum(x ** 2)
    return float(s) * 2 + math.sqrt(float(s))


CASES.append(G("r9_float_of_0d_array", float_of_0d, (_v,), ref=lambda: 4 * _v + _v / math.sqrt(np.sum(_v ** 2))))


def asarray_list(x):
    vals = [x * k for k in range(1, 4)]
    a = np.asarray(vals)
    return np.sum(a ** 2)


CASES.append(G("r9_asarray_of_list_of_floats", asarray_list, (0.7,), ref=lambda: 2 * 0.7 * (1 + 4 + 9), tol=1e-12))


def array_from_genexpr_list(x):
    a = np.array(list(math.sin(x * k) for k in range(3)))
    return a @ np.array([1.0, 2.0, 3.0])


CASES.append(G("r9_np_array_of_list_of_genexpr", array_from_genexpr_list, (0.4,), ref=lambda: 2 * math.cos(0.4) + 6 * math.cos(0.8), tol=1e-12))


def rows_loop(M):
    total = 0.0
    for row in M:
        total += np.prod(row)
    return total


CASES.append(G("r9_iterate_rows_prod", rows_loop, (_v.reshape(1, 3) + np.zeros((2, 1)),), ref="jax"))


def items_loop(params):
    total = 0.0
    for name, val in params.items():
        w = 2.0 if name.startswith("b") else 1.0
        total += w * np.sum(val ** 2)
    return total


CASES.append(pair("r9_dict_items_string_method_weights",
                  lambda: revsrc.grad(items_loop)({"a": _v, "bias": np.array([0.5])}),
                  lambda: {"a": 2 * _v, "bias": np.array([2.0])}))


def len_range(x):
    s = 0.0
    for i in range(len(x)):
        s += x[i] * x[len(x) - 1 - i]
    return s


CASES.append(G("r9_len_range_mirror_index", len_range, (_v,), ref=lambda: 2 * _v[::-1]))


def ndindex_loop(M):
    s = 0.0
    for i, j in np.ndindex(*M.shape):
        s += M[i, j] * (i + 1) * (j + 2)
    return s


CASES.append(G("r9_np_ndindex_loop", ndindex_loop, (np.ones((2, 2)),), ref=lambda: np.array([[2.0, 3.0], [4.0, 6.0]])))


def shape_unpack(M):
    n, m = M.shape
    return np.sum(M) / (n * m) + M[n - 1, m - 1]


CASES.append(G("r9_shape_unpack_arithmetic", shape_unpack, (np.ones((2, 3)),), ref=lambda: np.full((2, 3), 1 / 6) + np.array([[0, 0, 0], [0, 0, 1.0]])))


def astype_roundtrip(x):
    y = x.astype(np.float64) * 2
    return np.sum(y ** 2)


CASES.append(G("r9_astype_float64", astype_roundtrip, (_v,), ref=lambda: 8 * _v))
