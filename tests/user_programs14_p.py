"""Round 14, part p: one derivative called many ways -- new shapes, dtypes, int values,
keyword arguments, the same array passed twice, ints then floats to jit, vmap with
negative axes and axis_size; results must follow each call, never an earlier one's."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def energy(x, k=1.0):
    e = 0.0
    for i in range(len(x) - 1):
        e += k * (x[i + 1] - x[i]) ** 2
    return e + x[0] ** 2


def _energy_grad(x, k=1.0):
    g = np.zeros_like(x)
    d = np.diff(x)
    g[1:] += 2 * k * d
    g[:-1] -= 2 * k * d
    g[0] += 2 * x[0]
    return g


def _shapes():
    g = revsrc.grad(energy)
    return [g(np.arange(n, dtype=float) ** 1.5) for n in (3, 5, 2, 3)]


add(pair("r14_p_same_grad_new_shapes", _shapes, lambda: [_energy_grad(np.arange(n, dtype=float) ** 1.5) for n in (3, 5, 2, 3)], tol=1e-13))


def _dtypes():
    g = revsrc.grad(energy)
    a = g(np.array([1.0, 2.0, 4.0]))
    b = g(np.array([1.0, 2.0, 4.0], dtype=np.float32))
    c = g(np.array([1.0, 2.0, 4.5]))
    return a, b, c, str(b.dtype)


add(pair("r14_p_float64_float32_float64", _dtypes, lambda: (_energy_grad(np.array([1.0, 2.0, 4.0])), _energy_grad(np.array([1.0, 2.0, 4.0])),
                                                          _energy_grad(np.array([1.0, 2.0, 4.5])), "float32"), tol=1e-6))


def _kwargs_changed():
    g = revsrc.grad(energy)
    x = np.array([0.5, 1.0, 0.2])
    return g(x, k=2.0), g(x), g(x, 3.0)


add(pair("r14_p_keyword_values_change", _kwargs_changed, lambda: tuple(_energy_grad(np.array([0.5, 1.0, 0.2]), k) for k in (2.0, 1.0, 3.0)), tol=1e-13))


def two_args(a, b):
    return np.sum(a * b) + np.sum(a ** 2) * 0.5 + np.sum(b ** 3)


X3 = np.array([0.5, -1.0, 2.0])
add(pair("r14_p_same_array_twice_argnums", lambda: revsrc.grad(two_args, argnums=(0, 1))(X3, X3),
         lambda: (X3 + X3, X3 + 3 * X3 ** 2), tol=1e-14))


def int_power_loop(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x + 1.0
    return y


def _int_changes():
    g = revsrc.grad(int_power_loop)
    return [g(1.5, n) for n in (3, 0, 5, 3)]


add(pair("r14_p_int_argument_loop_count_changes", _int_changes,
         lambda: [sum(k * 1.5 ** (k - 1) for k in range(1, n + 1)) for n in (3, 0, 5, 3)], tol=1e-13))


def halves(a, b):
    return a / 2 + a // 2 + b * (a % 3)


def _jit_int_then_float():
    j = revsrc.jit(halves)
    return [j(7, 1.0), j(7.0, 1.0), j(7, 2), j(-7, 1.0), j(7.5, 1.0)]


add(pair("r14_p_jit_int_then_float", _jit_int_then_float, lambda: [halves(7, 1.0), halves(7.0, 1.0), halves(7, 2), halves(-7, 1.0), halves(7.5, 1.0)], tol=0.0))
add(pair("r14_p_jit_int_types", lambda: [type(revsrc.jit(halves)(7, 2)).__name__, type(revsrc.jit(halves)(7, 2.0)).__name__],
         lambda: [type(halves(7, 2)).__name__, type(halves(7, 2.0)).__name__], tol=0.0))
add(pair("r14_p_vmap_int_array_true_div", lambda: revsrc.vmap(halves)(np.array([7, -7, 4]), np.array([1, 2, 3])),
         lambda: np.array([halves(7, 1), halves(-7, 2), halves(4, 3)]), tol=0.0))


def scal3(a, b, c):
    return a * math.sin(b) + c ** 2


M23 = np.array([[0.1, 0.2, 0.3], [1.0, 2.0, 3.0]])
add(pair("r14_p_vmap_negative_in_axes", lambda: revsrc.vmap(scal3, in_axes=(-1, None, 0))(M23[0], 0.5, np.array([1.0, 2.0, 3.0])),
         lambda: np.array([scal3(a, 0.5, c) for a, c in zip(M23[0], (1.0, 2.0, 3.0))]), tol=0.0))
add(pair("r14_p_vmap_axis_size_all_none", lambda: revsrc.vmap(scal3, in_axes=(None, None, None), axis_size=3)(1.0, 0.5, 2.0),
         lambda: np.full(3, scal3(1.0, 0.5, 2.0)), tol=0.0))


def rows_fn(r):
    return np.sum(r ** 2) * r[0]


add(pair("r14_p_vmap_rows_in_axes_1_of_2d", lambda: revsrc.vmap(rows_fn, in_axes=1)(M23),
         lambda: np.array([rows_fn(M23[:, j]) for j in range(3)]), tol=1e-15))
add(pair("r14_p_vmap_grad_rows_in_axes_1", lambda: revsrc.vmap(revsrc.grad(rows_fn), in_axes=1)(M23),
         lambda: np.stack([np.array([np.sum(M23[:, j] ** 2) + 2 * M23[0, j] ** 2, 2 * M23[1, j] * M23[0, j]]) for j in range(3)]), tol=1e-14))
add(pair("r14_p_vmap_grad_rows_out_axes_1", lambda: revsrc.vmap(revsrc.grad(rows_fn), in_axes=1, out_axes=1)(M23),
         lambda: np.stack([np.array([np.sum(M23[:, j] ** 2) + 2 * M23[0, j] ** 2, 2 * M23[1, j] * M23[0, j]]) for j in range(3)], axis=1), tol=1e-14))


def aux_returns_input(x):
    y = x * 2.0
    return np.sum(y ** 2), (x, y)


def _aux_identity():
    x = np.array([1.0, 2.0])
    (v, (xa, ya)), g = revsrc.value_and_grad(aux_returns_input, has_aux=True)(x)
    return v, xa, ya, g, x


add(pair("r14_p_has_aux_returns_input_array", _aux_identity,
         lambda: (20.0, np.array([1.0, 2.0]), np.array([2.0, 4.0]), np.array([8.0, 16.0]), np.array([1.0, 2.0])), tol=0.0))


def caller_array_untouched(x):
    y = x
    y = y * 3.0
    return np.sum(y)


def _caller_untouched():
    x = np.array([1.0, 2.0])
    g = revsrc.grad(caller_array_untouched)(x)
    return g, x


add(pair("r14_p_caller_array_untouched", _caller_untouched, lambda: (np.array([3.0, 3.0]), np.array([1.0, 2.0])), tol=0.0))


def hess_then_grad():
    f = lambda x: np.sum(np.sin(x) * x)  # noqa: E731
    x = np.array([0.3, 0.7])
    h = revsrc.hessian(f)(x)
    g = revsrc.grad(f)(x)
    h2 = revsrc.hessian(f)(np.array([0.3, 0.7, 1.1]))
    return h, g, h2


add(pair("r14_p_hessian_grad_hessian_new_size", hess_then_grad,
         lambda: (np.diag(2 * np.cos([0.3, 0.7]) - np.array([0.3, 0.7]) * np.sin([0.3, 0.7])), np.sin([0.3, 0.7]) + np.array([0.3, 0.7]) * np.cos([0.3, 0.7]),
                  np.diag(2 * np.cos([0.3, 0.7, 1.1]) - np.array([0.3, 0.7, 1.1]) * np.sin([0.3, 0.7, 1.1]))), tol=1e-14))


def list_len_changes(xs):
    return sum(v * v * (i + 1) for i, v in enumerate(xs))


add(pair("r14_p_list_lengths_change", lambda: [revsrc.grad(list_len_changes)(xs) for xs in ([1.0, 2.0], [1.0, 2.0, 3.0], [0.5])],
         lambda: [[2.0, 8.0], [2.0, 8.0, 18.0], [1.0]], tol=0.0))


def dict_keys_change(p):
    return sum(v ** 2 for v in p.values())


add(pair("r14_p_dict_keys_change", lambda: [revsrc.grad(dict_keys_change)(d) for d in ({"a": 1.0}, {"a": 1.0, "b": 2.0}, {"b": 3.0})],
         lambda: [{"a": 2.0}, {"a": 2.0, "b": 4.0}, {"b": 6.0}], tol=0.0))


def bool_flag(x, flag):
    return x ** 2 if flag else x ** 3


add(pair("r14_p_bool_flag_changes", lambda: [revsrc.grad(bool_flag)(2.0, f) for f in (True, False, True, 0, 1)],
         lambda: [4.0, 12.0, 4.0, 12.0, 4.0], tol=0.0))
add(pair("r14_p_jit_bool_flag_changes", lambda: [revsrc.jit(revsrc.grad(bool_flag))(2.0, f) for f in (True, False, True)],
         lambda: [4.0, 12.0, 4.0], tol=0.0))
add(pair("r14_p_vmap_bool_array", lambda: revsrc.vmap(revsrc.grad(bool_flag))(np.array([2.0, 2.0, 3.0]), np.array([True, False, False])),
         lambda: np.array([4.0, 12.0, 27.0]), tol=0.0))
