"""Round 10, one derivative object called again with different kinds of arguments, as
a parameter sweep does: arrays of other lengths, float32 after float64, an int loop
count that changes, lists and dicts of other sizes and keys, None then a value for an
optional argument, a flag True then False, a scalar then a 0-d array, a string mode
switch; every call must be the derivative of that call's program."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, fd_checked, pair  # noqa: F401

CASES = []


def energy(x):
    return np.sum(x ** 3) + x[0] * x[-1]


def shapes_sweep():
    g = revsrc.grad(energy)
    return [g(np.arange(1.0, n + 1)) for n in (3, 5, 2, 5)]


def shapes_ref():
    out = []
    for n in (3, 5, 2, 5):
        x = np.arange(1.0, n + 1)
        d = 3 * x ** 2
        d[0] += x[-1]
        d[-1] += x[0]
        out.append(d)
    return out


CASES.append(pair("r10_same_grad_other_lengths", shapes_sweep, shapes_ref, tol=1e-12))


def dtypes_sweep():
    g = revsrc.grad(energy)
    a = g(np.array([1.0, 2.0]))
    b = g(np.array([1.0, 2.0], dtype=np.float32))
    c = g(np.array([1.0, 2.0]))
    return a, b, c, b.dtype.itemsize, c.dtype.itemsize


CASES.append(pair("r10_same_grad_float32_then_float64", dtypes_sweep,
                  lambda: (np.array([5.0, 13.0]), np.array([5.0, 13.0]), np.array([5.0, 13.0]), 4, 8),
                  tol=0.0))


def decay_chain(k, n):
    a = 1.0
    for _ in range(n):
        a = a * math.exp(-k)
    return a


def loop_counts():
    g = revsrc.grad(decay_chain)
    return [g(0.3, n) for n in (1, 4, 0, 7, 4)]


CASES.append(pair("r10_same_grad_loop_count_changes", loop_counts,
                  lambda: [-n * math.exp(-0.3 * n) for n in (1, 4, 0, 7, 4)], tol=1e-12))


def list_sizes():
    g = revsrc.grad(lambda xs: sum(v * v * (i + 1) for i, v in enumerate(xs)))
    return [g([1.0] * n) for n in (2, 4, 1)]


CASES.append(pair("r10_same_grad_list_lengths", list_sizes,
                  lambda: [[2.0 * (i + 1) for i in range(n)] for n in (2, 4, 1)], tol=1e-12))


def weighted_dict(p):
    return sum(v ** 2 * len(k) for k, v in p.items())


def dict_keys():
    g = revsrc.grad(weighted_dict)
    return [g({"a": 1.0, "bb": 2.0}), g({"ccc": 1.0}), g({"a": 1.0, "bb": 2.0, "dddd": 0.5})]


CASES.append(pair("r10_same_grad_dict_keys_change", dict_keys,
                  lambda: [{"a": 2.0, "bb": 8.0}, {"ccc": 6.0}, {"a": 2.0, "bb": 8.0, "dddd": 4.0}], tol=1e-12))


def optional_arg(x, shift=None):
    if shift is None:
        return x ** 2
    return (x - shift) ** 3


def none_then_value():
    g = revsrc.grad(optional_arg)
    return g(2.0), g(2.0, 0.5), g(2.0), g(2.0, shift=1.0)


CASES.append(pair("r10_same_grad_none_then_value", none_then_value,
                  lambda: (4.0, 3 * 1.5 ** 2, 4.0, 3.0), tol=1e-12))


def flagged(x, use_log):
    return math.log(x) if use_log else x ** 2


def flag_flip():
    g = revsrc.grad(flagged)
    return g(2.0, True), g(2.0, False), g(2.0, True), g(2.0, 0), g(2.0, 1)


CASES.append(pair("r10_same_grad_flag_flips", flag_flip, lambda: (0.5, 4.0, 0.5, 4.0, 0.5), tol=1e-12))


def scalar_or_0d():
    g = revsrc.grad(lambda x: x ** 3)
    a = g(2.0)
    b = g(np.array(2.0))
    c = g(np.float64(2.0))
    return a, b, c, np.ndim(b)


CASES.append(pair("r10_same_grad_scalar_0d_array", scalar_or_0d, lambda: (12.0, 12.0, 12.0, 0), tol=1e-12))


def mode_switch(x, mode):
    if mode == "linear":
        return 3.0 * x
    elif mode == "quad":
        return x * x
    return math.sin(x)


def modes():
    g = revsrc.grad(mode_switch)
    return [g(1.2, m) for m in ("quad", "linear", "other", "quad")]


CASES.append(pair("r10_same_grad_string_mode", modes, lambda: [2.4, 3.0, math.cos(1.2), 2.4], tol=1e-12))


def jit_int_then_float():
    f = revsrc.jit(lambda a, b: a / b + a // b)
    return f(7, 2), f(7.0, 2.0), f(7, 2), f(-7, 2)


CASES.append(pair("r10_same_jit_int_then_float", jit_int_then_float,
                  lambda: (3.5 + 3, 3.5 + 3.0, 3.5 + 3, -3.5 - 4), tol=0.0))


def jit_int_types_kept():
    f = revsrc.jit(lambda a, b: a // b)
    return float(type(f(7, 2)) is int), float(type(f(7.0, 2)) is float)


CASES.append(pair("r10_jit_keeps_int_result_type", jit_int_types_kept, lambda: (1.0, 1.0), tol=0.0))


def matrix_shapes():
    g = revsrc.grad(lambda A: np.sum(np.linalg.inv(A)))
    A2 = np.array([[2.0, 0.5], [0.3, 1.0]])
    A3 = np.eye(3) * 2.0 + 0.1
    return g(A2), g(A3), g(A2)


def matrix_ref():
    def r(A):
        Ai = np.linalg.inv(A)
        one = np.ones(len(A))
        return -np.outer(Ai.T @ one, Ai @ one)
    A2 = np.array([[2.0, 0.5], [0.3, 1.0]])
    A3 = np.eye(3) * 2.0 + 0.1
    return r(A2), r(A3), r(A2)


CASES.append(pair("r10_same_grad_matrix_sizes", matrix_shapes, matrix_ref, tol=1e-12))


def hess_lengths():
    h = revsrc.hessian(lambda x: np.sum(x ** 4))
    return h(np.array([1.0, 2.0])), h(np.array([1.0, 2.0, 3.0]))


CASES.append(pair("r10_same_hessian_other_lengths", hess_lengths,
                  lambda: (np.diag([12.0, 48.0]), np.diag([12.0, 48.0, 108.0])), tol=1e-12))


def vmap_lengths():
    f = revsrc.vmap(lambda x: x * x + 1.0)
    return f(np.array([1.0, 2.0])), f(np.array([3.0])), f(np.zeros(0))


CASES.append(pair("r10_same_vmap_lengths_and_empty", vmap_lengths,
                  lambda: (np.array([2.0, 5.0]), np.array([10.0]), np.zeros(0)), tol=0.0))


def argnums_positions():
    g = revsrc.grad(lambda a, b, c: a * b * b * c * c * c, argnums=(2, 0))
    return g(1.0, 2.0, 3.0)


CASES.append(pair("r10_argnums_tuple_out_of_order", argnums_positions,
                  lambda: (1.0 * 4.0 * 27.0, 4.0 * 27.0), tol=1e-12))


def kwarg_call():
    g = revsrc.grad(lambda x, scale=1.0: scale * x ** 2)
    return g(3.0), g(3.0, scale=2.0), g(3.0, 5.0)


CASES.append(pair("r10_grad_keyword_nondiff_arg", kwarg_call, lambda: (6.0, 12.0, 30.0), tol=1e-12))


def tuple_vs_list():
    g = revsrc.grad(lambda p: p[0] * p[1] ** 2)
    a = g((1.0, 2.0))
    b = g([1.0, 2.0])
    return float(isinstance(a, tuple)), float(isinstance(b, list)), a, b


CASES.append(pair("r10_grad_tuple_vs_list_container", tuple_vs_list,
                  lambda: (1.0, 1.0, (4.0, 4.0), [4.0, 4.0]), tol=1e-12))


# -- results the caller changes in place must not be buffers a later call reuses --

def _loss(w):
    return np.sum(np.sin(w) * w)


W5 = np.linspace(-1.0, 1.0, 5)


def mutate_grad_result():
    g = revsrc.grad(_loss)
    a = g(W5)
    a[:] = 999.0
    b = g(W5)
    return b


CASES.append(pair("r10_grad_result_mutated_then_called_again", mutate_grad_result,
                  lambda: np.sin(W5) + W5 * np.cos(W5), tol=1e-14))


def mutate_vmap_result():
    f = revsrc.vmap(lambda x: x * x + 1.0)
    xs = np.array([1.0, 2.0, 3.0])
    a = f(xs)
    a *= 0.0
    return f(xs)


CASES.append(pair("r10_vmap_result_mutated_then_called_again", mutate_vmap_result, lambda: np.array([2.0, 5.0, 10.0]), tol=0.0))


def mutate_pullback_result():
    out, fn = revsrc.vjp(lambda w: np.sin(w) * w, W5)
    a = fn(np.ones(5))[0]
    a[:] = -1.0
    return fn(np.ones(5))[0]


CASES.append(pair("r10_pullback_result_mutated_then_called_again", mutate_pullback_result,
                  lambda: np.sin(W5) + W5 * np.cos(W5), tol=1e-14))


def _loss_aux(w):
    z = np.tanh(w)
    return np.sum(z * z), z


def mutate_aux():
    vg = revsrc.value_and_grad(_loss_aux, has_aux=True)
    (v, z), g = vg(W5)
    z[:] = 0.0
    g[:] = 0.0
    (v2, z2), g2 = vg(W5)
    return v2, z2, g2


CASES.append(pair("r10_aux_and_grad_mutated_then_called_again", mutate_aux,
                  lambda: (np.sum(np.tanh(W5) ** 2), np.tanh(W5), 2 * np.tanh(W5) * (1 - np.tanh(W5) ** 2)), tol=1e-14))


def input_mutated_after_grad():
    g = revsrc.grad(_loss)
    x = W5.copy()
    a = g(x)
    x[:] = 0.0
    return a


CASES.append(pair("r10_grad_result_independent_of_input_buffer", input_mutated_after_grad,
                  lambda: np.sin(W5) + W5 * np.cos(W5), tol=1e-14))


def hessian_result_mutated():
    h = revsrc.hessian(_loss)
    a = h(W5)
    a[:] = 7.0
    return h(W5)


CASES.append(pair("r10_hessian_result_mutated_then_called_again", hessian_result_mutated,
                  lambda: np.diag(2 * np.cos(W5) - W5 * np.sin(W5)), tol=1e-14))


def jit_scalar_list_result():
    f = revsrc.jit(lambda x: x * 2.0)
    return [f(v) for v in (1.0, 2.0, 3.0)]


CASES.append(pair("r10_jit_repeated_calls_fresh", jit_scalar_list_result, lambda: [2.0, 4.0, 6.0], tol=0.0))
