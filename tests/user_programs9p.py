"""Round 9, compositions (3) over control flow and containers: hessians and jvps of
loops with branches, linearize of a loop, vjp and jacrev with dict outputs, grads with
respect to lists and nested tuples, has_aux with a loop, stop_gradient in a fixed
point, a rule of one's own, a global table rebound between calls, in-place updates on
arguments (refused on purpose)."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(8)


def branchy_loop(x):
    y = x
    for k in range(6):
        if y > 1.0:
            y = math.sqrt(y) + 0.1 * k
        else:
            y = y * y + 0.5
    return y


CASES.append(H("r9_hessian_loop_with_branches", branchy_loop, (0.9,), ref="ag"))
CASES.append(JV("r9_jvp_loop_with_branches", branchy_loop, (0.9,), (1.0,)))


def while_hess(a):
    x = 1.0
    n = 0
    while n < 8:
        x = x - (x * x * x - a) / (3 * x * x)
        n += 1
    return x * x


CASES.append(H("r9_hessian_while_newton_cuberoot", while_hess, (2.0,), ref=lambda: (2 / 3) * (-1 / 3) * 2.0 ** (2 / 3 - 2), tol=1e-7))


def linearize_loop():
    def f(v):
        for _ in range(5):
            v = np.sin(v) + 0.1 * v[::-1]
        return v
    y, fj = revsrc.linearize(f, np.array([0.3, -0.2, 0.5]))
    return fj(np.array([1.0, 0.0, 0.0])), fj(np.array([0.0, 0.0, 1.0]))


def _linearize_loop_ref():
    def f(v):
        for _ in range(5):
            v = np.sin(v) + 0.1 * v[::-1]
        return v
    J = np.asarray(jax().jacfwd(jaxify(f))(np.array([0.3, -0.2, 0.5])))
    return J[:, 0], J[:, 2]


def _jaxify_local(f):
    return jaxify(f)


CASES.append(pair("r9_linearize_nested_def_loop", linearize_loop, lambda: _lin_ref_direct()))


def lin_f(v):
    for _ in range(5):
        v = np.sin(v) + 0.1 * v[::-1]
    return v


def _lin_ref_direct():
    J = np.asarray(jax().jacfwd(jaxify(lin_f))(np.array([0.3, -0.2, 0.5])))
    return J[:, 0], J[:, 2]


def dict_out(x):
    return {"energy": np.sum(x ** 2), "moment": x * np.arange(1.0, 4.0)}


_x3 = np.array([0.4, -0.1, 0.7])


def _vjp_dict():
    out, back = revsrc.vjp(dict_out, _x3)
    return back({"energy": 2.0, "moment": np.array([1.0, 0.0, -1.0])})


CASES.append(pair("r9_vjp_dict_output_cotangent", _vjp_dict,
                  lambda: (4 * _x3 + np.array([1.0, 0.0, -3.0]),)))
CASES.append(pair("r9_jacrev_dict_output", lambda: revsrc.jacrev(dict_out)(_x3),
                  lambda: {"energy": 2 * _x3, "moment": np.diag(np.arange(1.0, 4.0))}))


def list_arg(ws):
    total = 0.0
    for i, w in enumerate(ws):
        total += (i + 1) * np.sum(w ** 2)
    return total


_ws = [np.array([1.0, 2.0]), np.array([0.5]), np.array([[1.0, -1.0], [0.0, 2.0]])]
CASES.append(pair("r9_grad_wrt_list_of_arrays", lambda: revsrc.grad(list_arg)(_ws),
                  lambda: [2 * _ws[0], 4 * _ws[1], 6 * _ws[2]]))


def nested_tuple(p):
    (a, b), (c, (d,)) = p
    return a * b + c ** 2 * d


CASES.append(pair("r9_grad_wrt_nested_tuple", lambda: revsrc.grad(nested_tuple)(((1.0, 2.0), (3.0, (0.5,)))),
                  lambda: ((2.0, 1.0), (3.0, (9.0,)))))


def aux_loop(x):
    traj = []
    y = x
    for _ in range(4):
        y = y * 0.9 + math.sin(y)
        traj.append(y)
    return y, traj


def _aux_loop_got():
    g, traj = revsrc.grad(aux_loop, has_aux=True)(0.5)
    return (g, traj)


def _aux_loop_ref():
    import autograd
    from user_programs7_harness import agify
    g = autograd.grad(lambda x: agify(aux_loop)(x)[0])(0.5)
    return (g, aux_loop(0.5)[1])


CASES.append(pair("r9_has_aux_list_trajectory", _aux_loop_got, _aux_loop_ref))


def implicit_fixed_point(a):
    # z = tanh(a z + 1): iterate without tracking, then one tracked step (a common trick)
    z = 0.5
    for _ in range(100):
        z = revsrc.stop_gradient(math.tanh(a * z + 1.0))
    return math.tanh(a * z + 1.0)


def _ifp_ref():
    z = implicit_fixed_point(0.5)
    return (1 - z * z) * z


CASES.append(G("r9_stop_gradient_fixed_point_one_step", implicit_fixed_point, (0.5,), ref=_ifp_ref, tol=1e-10))


def clipped_relu6(x):
    return np.minimum(np.maximum(x, 0.0), 6.0)


@revsrc.defvjp(clipped_relu6, broadcast=True)
def _relu6_rule(g, ans, x):
    return g * ((x > 0) & (x < 6))


def custom_rule_user(x):
    return np.sum(clipped_relu6(3 * x) ** 2)


CASES.append(G("r9_custom_rule_defvjp_used_inside", custom_rule_user, (np.array([-1.0, 0.5, 1.0, 2.5]),), ref="jax"))

TABLE = np.array([1.0, 2.0, 3.0])


def table_dot(x):
    return np.sum(TABLE * np.sin(x))


_table_g = revsrc.grad(table_dot)


def _table_rebind():
    global TABLE
    a = _table_g(np.zeros(3))
    TABLE = np.array([-1.0, 0.0, 5.0])
    try:
        b = _table_g(np.zeros(3))
    finally:
        TABLE = np.array([1.0, 2.0, 3.0])
    return (a, b)


CASES.append(pair("r9_global_array_rebound_between_calls", _table_rebind,
                  lambda: (np.array([1.0, 2.0, 3.0]), np.array([-1.0, 0.0, 5.0]))))

SCALE = 2.0


def scaled(x):
    return SCALE * x ** 2


_scaled_h = revsrc.hessian(scaled)


def _hess_rebind():
    global SCALE
    a = _scaled_h(1.0)
    SCALE = 5.0
    try:
        b = _scaled_h(1.0)
    finally:
        SCALE = 2.0
    return (a, b)


CASES.append(pair("r9_global_rebound_seen_by_hessian", _hess_rebind, lambda: (4.0, 10.0)))


def inplace_arg(x):
    x += 1.0
    return np.sum(x ** 2)


CASES.append(G("r9_inplace_on_argument_refused", inplace_arg, (np.array([0.5, 1.0]),), ref="fd"))


def list_arg_append(xs):
    xs.append(1.0)
    return sum(v * v for v in xs)


CASES.append(G("r9_append_to_argument_list_refused", list_arg_append, ([0.5, 2.0],), ref=lambda: [1.0, 4.0]))


def hvp_two_arg(w, b):
    return np.sum(np.tanh(w * b) ** 2)


CASES.append(pair("r9_hvp_argnums_1",
                  lambda: revsrc.hvp(hvp_two_arg, (np.array([0.3, 0.6]), np.array([1.0, -0.5])), (None, np.array([1.0, 2.0])), argnums=1),
                  lambda: jax().jvp(jax().grad(jaxify(hvp_two_arg), argnums=1), (np.array([0.3, 0.6]), np.array([1.0, -0.5])),
                                    (np.zeros(2), np.array([1.0, 2.0])))[1]))


def float32_out(x):
    return np.float32(np.sum(x ** 2))


CASES.append(G("r9_grad_of_float32_scalar_output", float32_out, (np.array([1.0, 2.0]),), ref=lambda: np.array([2.0, 4.0]), tol=1e-6))


def tuple_return_first(x):
    return (np.sum(x ** 3), x)


CASES.append(pair("r9_jacfwd_tuple_output",
                  lambda: revsrc.jacfwd(tuple_return_first)(_x3),
                  lambda: (3 * _x3 ** 2, np.eye(3))))


def early_return_vmap(x):
    if x < 0.5:
        return x * x
    for k in range(5):
        if x > 3.0:
            return x - k
        x = x * 1.5
    return x


_xv = np.array([0.2, 0.7, 1.0, 2.5, 4.0])
CASES.append(pair("r9_vmap_early_returns", lambda: revsrc.vmap(early_return_vmap)(_xv),
                  lambda: np.array([early_return_vmap(v) for v in _xv]), tol=0.0))
CASES.append(pair("r9_vmap_grad_early_returns", lambda: revsrc.vmap(revsrc.grad(early_return_vmap))(_xv),
                  lambda: np.array([0.4, 1.5 ** 4, 1.5 ** 3, 1.5, 1.0])))


def jit_tuple(x, y):
    s, p = 0.0, 1.0
    for k in range(1, 6):
        s += math.sin(k * x) * y
        p *= 1 + x / k
    return s, p


CASES.append(pair("r9_jit_tuple_result", lambda: revsrc.jit(jit_tuple)(0.3, 2.0), lambda: jit_tuple(0.3, 2.0), tol=0.0))
