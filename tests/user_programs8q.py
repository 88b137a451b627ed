"""Round 8 user programs, batch q: one derivative called the way a notebook calls it
(on arrays of different shapes and dtypes in turn, on a Python float, a NumPy scalar
and a 0-d array, on the same array given twice or a view of another argument),
Jacobians of while loops, vmap with dict in_axes, nested loops with item writes
under memory=, checked against closed forms."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair  # noqa: F401

CASES = []
add = CASES.append


def last_into_first(x):
    y = x.copy()
    y[0] = y[-1] * 2
    return np.sum(y ** 2)


D_LAST = revsrc.grad(last_into_first)


def _shapes_in_turn():
    return (D_LAST(np.array([1.0, 2.0, 3.0])), D_LAST(np.array([1.0, 2.0, 3.0, 4.0])),
            D_LAST(np.array([[1.0, 2.0], [3.0, 4.0]])), D_LAST(np.array([1.0, 2.0, 3.0], dtype=np.float32)))


add(pair("r8_one_derivative_many_shapes_and_dtypes", _shapes_in_turn,
         lambda: (np.array([0.0, 4.0, 30.0]), np.array([0.0, 4.0, 6.0, 40.0]), np.array([[0.0, 0.0], [30.0, 40.0]]),
                  np.array([0.0, 4.0, 30.0])), tol=1e-6))


def piece(x):
    return x * x if x > 0 else -x


D_PIECE = revsrc.grad(piece)
add(pair("r8_float_npfloat_0d_in_turn", lambda: (D_PIECE(1.5), D_PIECE(np.float64(1.5)), D_PIECE(np.array(1.5)), D_PIECE(np.array(-1.5)), D_PIECE(-2.0)),
         lambda: (3.0, 3.0, 3.0, -1.0, -1.0), tol=0.0))


def two_args(a, b):
    return np.sum(a * b) + np.sum(a ** 2)


XX = np.array([1.0, 2.0])
add(pair("r8_same_array_passed_twice", lambda: revsrc.grad(two_args, argnums=(0, 1))(XX, XX), lambda: (3 * XX, XX), tol=0.0))


def copy_write_times(a, b):
    c = a.copy()
    c[0] = 5.0
    return np.sum(c * b)


AV = np.array([1.0, 2.0, 3.0])
add(pair("r8_second_argument_reversed_view_of_first", lambda: revsrc.grad(copy_write_times, argnums=(0, 1))(AV, AV[::-1]),
         lambda: (np.array([0.0, 2.0, 1.0]), np.array([5.0, 2.0, 3.0])), tol=0.0))


def grow_until(x):
    while x[0] < 10:
        x = x * 1.5 + 0.1
    return x


add(pair("r8_jacrev_while_array", lambda: revsrc.jacrev(grow_until)(np.array([1.0, 2.0])), lambda: np.eye(2) * 1.5 ** 6, tol=1e-12))
add(pair("r8_jacfwd_while_array", lambda: revsrc.jacfwd(grow_until)(np.array([1.0, 2.0])), lambda: np.eye(2) * 1.5 ** 6, tol=1e-12))


def dict_model(p, x):
    return p["a"] * x + p["b"]


add(pair("r8_vmap_dict_in_axes", lambda: revsrc.vmap(dict_model, in_axes=({"a": 0, "b": None}, 0))({"a": np.array([1.0, 2.0]), "b": 0.5}, np.array([3.0, 4.0])),
         lambda: np.array([3.5, 8.5]), tol=0.0))
add(pair("r8_vmap_grad_dict_in_axes", lambda: revsrc.vmap(revsrc.grad(dict_model), in_axes=({"a": 0, "b": None}, 0))({"a": np.array([1.0, 2.0]), "b": 0.5}, np.array([3.0, 4.0])),
         lambda: {"a": np.array([3.0, 4.0]), "b": np.array([1.0, 1.0])}, tol=0.0))


def nested_item_writes(x, n):
    y = np.zeros(3)
    for i in range(n):
        for j in range(3):
            y[j] = y[j] * 0.9 + x[j] * math.sin(i + j)
    return np.sum(y ** 2)


def _nested_ref():
    x = np.array([0.3, -0.2, 0.5])
    g = np.zeros(3)
    for j in range(3):
        c = sum(0.9 ** (149 - i) * math.sin(i + j) for i in range(150))
        g[j] = 2 * c * c * x[j]
    return g


add(pair("r8_nested_loops_item_writes_memory", lambda: revsrc.grad(nested_item_writes, memory=256)(np.array([0.3, -0.2, 0.5]), 150), _nested_ref, tol=1e-10))


def accumulate_small(x):
    t = 0.0
    for _ in range(1000):
        t += x * 1e-3
    return t


add(pair("r8_memory_64_bytes_scalar_accumulate", lambda: revsrc.grad(accumulate_small, memory=64)(2.0), lambda: 1.0, tol=1e-12))
