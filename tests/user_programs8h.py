"""Round 8 user programs, batch h: transformations of programs with in-place writes,
breaks and containers (hessian and jacfwd of item-writing code, vjp of dict outputs,
vmap with in_axes/out_axes, backend="jax" on dict parameters and branches, memory=
on loops with break), checked against JAX x64 or self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, fd_jac, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(87)
XV = rng.normal(size=5)


def tridiag_energy(x):
    y = np.zeros_like(x)
    y[0] = 2 * x[0] - x[1]
    y[1:-1] = 2 * x[1:-1] - x[:-2] - x[2:]
    y[-1] = 2 * x[-1] - x[-2]
    return 0.5 * x @ y + np.sum(x ** 4) / 4


def _tri_h():
    n = 5
    T = 2 * np.eye(n) - np.eye(n, k=1) - np.eye(n, k=-1)
    return T + np.diag(3 * XV ** 2)


add(pair("r8_hessian_of_item_and_slice_writes", lambda: revsrc.hessian(tridiag_energy)(XV), _tri_h, tol=1e-10))


def cumulative_writes(x):
    out = np.empty_like(x)
    acc = 0.0
    for i in range(len(x)):
        acc = acc * 0.5 + x[i] ** 2
        out[i] = acc
    return out


def _cum_jac():
    J = np.zeros((5, 5))
    for i in range(5):
        for j in range(i + 1):
            J[i, j] = 0.5 ** (i - j) * 2 * XV[j]
    return J


add(pair("r8_jacfwd_of_running_item_writes", lambda: revsrc.jacfwd(cumulative_writes)(XV), _cum_jac, tol=1e-12))
add(pair("r8_jacrev_of_running_item_writes", lambda: revsrc.jacrev(cumulative_writes)(XV), _cum_jac, tol=1e-12))


def dict_out(x):
    return {"mean": np.mean(x), "sq": x ** 2, "pair": (x[0] * x[1], np.sum(np.sin(x)))}


def _vjp_dict():
    ct = {"mean": 2.0, "sq": np.arange(5.0), "pair": (1.0, -1.0)}
    g = 2.0 / 5 + 2 * XV * np.arange(5.0) - np.cos(XV)
    g[0] += XV[1]
    g[1] += XV[0]
    return ct, g


add(pair("r8_vjp_dict_and_tuple_output",
         lambda: revsrc.vjp(dict_out, XV)[1](_vjp_dict()[0]),
         lambda: (_vjp_dict()[1],), tol=1e-12))


def break_loop_array(x, thr):
    s = np.zeros_like(x)
    for k in range(200):
        s = s + 0.05 * np.tanh(x + s)
        if np.max(s) > thr:
            break
    return np.sum(s ** 2)


add(G("r8_memory_for_break_array", break_loop_array, (XV, 2.0), argnums=0, memory="1KB"))
add(pair("r8_memory_for_break_array_same_bits",
         lambda: revsrc.grad(break_loop_array, memory="1KB")(XV, 2.0),
         lambda: revsrc.grad(break_loop_array)(XV, 2.0), tol=0.0))


def stepped_range(x):
    acc = 0.0
    for i in range(0, 60, 3):
        acc = math.sin(acc + x * i * 0.01)
    return acc


add(pair("r8_memory_range_step_scalar", lambda: revsrc.grad(stepped_range, memory=200)(0.7),
         lambda: fd_checked(stepped_range, (0.7,)), tol=1e-8))


def dict_params_jax(p, X, y):
    h = np.tanh(X @ p["W"] + p["b"])
    if p["scale"] > 0:
        h = h * p["scale"]
    return np.mean((h.sum(1) - y) ** 2)


PJ = {"W": rng.normal(size=(3, 2)), "b": np.zeros(2), "scale": 1.5}
XJ = rng.normal(size=(7, 3))
YJ = rng.normal(size=7)


def _pj_ref():
    return jax().grad(jaxify(dict_params_jax))(PJ, XJ, YJ)


add(pair("r8_backend_jax_dict_params_scalar_branch", lambda: revsrc.grad(dict_params_jax, backend="jax")(PJ, XJ, YJ), _pj_ref, tol=1e-10))
add(pair("r8_default_backend_dict_params_scalar_branch", lambda: revsrc.grad(dict_params_jax)(PJ, XJ, YJ), _pj_ref, tol=1e-10))


def jax_backend_where_loop(x):
    y = x
    for _ in range(40):
        y = np.where(y > 0, y - 0.1 * y ** 2, y + 0.05)
    return np.sum(y)


add(pair("r8_backend_jax_where_scan", lambda: revsrc.grad(jax_backend_where_loop, backend="jax")(XV),
         lambda: revsrc.grad(jax_backend_where_loop)(XV), tol=1e-12))
add(G("r8_where_scan_default_vs_fd", jax_backend_where_loop, (XV,)))


def vmap_out_axes(x, w):
    return np.sin(x * w) + w


add(pair("r8_vmap_jacobian_scalar_in_axes_none",
         lambda: revsrc.vmap(revsrc.grad(vmap_out_axes, argnums=1), in_axes=(0, None))(XV, 0.7),
         lambda: XV * np.cos(XV * 0.7) + 1, tol=1e-12))


def scalar_two_outputs(a, b):
    return a * b, math.exp(a) - b


add(pair("r8_vmap_tuple_output", lambda: revsrc.vmap(scalar_two_outputs)(XV, XV + 1),
         lambda: (XV * (XV + 1), np.exp(XV) - (XV + 1)), tol=1e-12))
add(pair("r8_jacfwd_tuple_output_scalars", lambda: revsrc.jacfwd(scalar_two_outputs, argnums=(0, 1))(0.5, 2.0),
         lambda: ((2.0, 0.5), (math.exp(0.5), -1.0)), tol=1e-12))


def int_branch_scalar(x, n):
    if n % 2 == 0:
        return x ** n
    return -x ** n


add(pair("r8_vmap_int_array_arg", lambda: revsrc.vmap(revsrc.grad(int_branch_scalar))(np.array([1.5, 2.0, 0.5]), np.array([2, 3, 4])),
         lambda: np.array([2 * 1.5, -3 * 4.0, 4 * 0.125]), tol=1e-12))
add(pair("r8_jit_int_branch_scalar", lambda: (revsrc.jit(int_branch_scalar)(1.5, 3), revsrc.jit(int_branch_scalar)(1.5, 2)),
         lambda: (-1.5 ** 3, 1.5 ** 2), tol=0.0))


def jit_int_result(n):
    s = 0
    for i in range(n):
        s += i * i
    return s


add(pair("r8_jit_pure_int_function", lambda: revsrc.jit(jit_int_result)(10), lambda: 285, tol=0.0))


def jit_early_return(x):
    for i in range(100):
        x = x * 0.9 + 0.01
        if x < 0.2:
            return float(i)
    return x


add(pair("r8_jit_return_from_loop_two_types", lambda: (revsrc.jit(jit_early_return)(1.0), revsrc.jit(jit_early_return)(50.0)),
         lambda: (jit_early_return(1.0), jit_early_return(50.0)), tol=0.0))


def linearize_loop(x):
    y = x.copy()
    for i in range(1, len(y)):
        y[i] = y[i] + np.sin(y[i - 1])
    return y


add(pair("r8_linearize_item_recurrence",
         lambda: revsrc.linearize(linearize_loop, XV)[1](np.ones(5)),
         lambda: _lin_ref(), tol=1e-7))


def _lin_ref():
    h = 1e-6
    return (linearize_loop(XV + h) - linearize_loop(XV - h)) / (2 * h)


def hessian_dict_arg(p):
    return np.sum(p["a"] ** 2 * p["b"]) + p["c"] ** 3


PH = {"a": np.array([1.0, 2.0]), "b": np.array([0.5, -1.0]), "c": 1.5}
add(pair("r8_hessian_dict_argument_block",
         lambda: revsrc.hessian(hessian_dict_arg)(PH)["a"]["b"],
         lambda: np.diag(2 * PH["a"]), tol=1e-12))
add(pair("r8_hessian_dict_argument_scalar_leaf",
         lambda: revsrc.hessian(hessian_dict_arg)(PH)["c"]["c"],
         lambda: 6 * 1.5, tol=1e-12))


def list_params(ws, x):
    for w in ws:
        x = np.tanh(w * x)
    return np.sum(x)


add(pair("r8_list_params_grad_structure", lambda: revsrc.grad(list_params)([0.5, np.array([1.0, -1.0, 2.0, 0.1, 0.3]), 1.2], XV),
         lambda: list(jax().grad(jaxify(list_params))([0.5, np.array([1.0, -1.0, 2.0, 0.1, 0.3]), 1.2], XV)), tol=1e-12))


def tuple_in_tuple_out(params):
    (a, b), c = params
    return a * b + np.sum(c) * a


add(pair("r8_nested_tuple_params", lambda: revsrc.grad(tuple_in_tuple_out)(((2.0, 3.0), np.array([1.0, 2.0]))),
         lambda: ((6.0, 2.0), np.array([2.0, 2.0])), tol=1e-12))


def value_and_grad_argnums_aux(x, y, z):
    v = x * y + np.sum(z ** 2)
    return v, v * 2


add(pair("r8_value_and_grad_argnums_tuple_aux",
         lambda: revsrc.value_and_grad(value_and_grad_argnums_aux, argnums=(0, 2), has_aux=True)(2.0, 3.0, np.array([1.0, -1.0])),
         lambda: ((8.0, 16.0), (3.0, np.array([2.0, -2.0]))), tol=1e-12))


def while_array_state(x):
    n = 0
    while np.linalg.norm(x) > 0.1:
        x = 0.8 * x + 0.01 * np.sin(x)
        n += 1
    return np.sum(x) * n


add(G("r8_while_norm_condition_array", while_array_state, (XV,)))
add(pair("r8_while_norm_condition_memory_bits", lambda: revsrc.grad(while_array_state, memory="256B")(XV),
         lambda: revsrc.grad(while_array_state)(XV), tol=0.0))


def continue_in_loop(x):
    tot = 0.0
    for i, v in enumerate(x):
        if v < 0:
            continue
        if i > 3:
            break
        tot += v ** 3
    return tot


add(pair("r8_continue_break_enumerate", lambda: revsrc.grad(continue_in_loop)(XV),
         lambda: np.array([3 * v * v if (v >= 0 and i <= 3) else 0.0 for i, v in enumerate(XV)]), tol=1e-12))


def try_except_path(x):
    try:
        y = math.log(x)
    except ValueError:
        y = -x
    return y * x


add(pair("r8_try_except_math_domain", lambda: (revsrc.grad(try_except_path)(2.0), revsrc.grad(try_except_path)(-2.0)),
         lambda: (math.log(2.0) + 1, 4.0), tol=1e-12))
