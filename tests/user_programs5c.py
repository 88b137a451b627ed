"""User programs, corpus 5c: compositions, jit/vmap, backend="jax", memory=, higher order."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case, fd_grad

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def g_scalar(x):
    return math.exp(-x * x) * math.cos(3.0 * x) + x ** 3


def d_g(x):
    return math.exp(-x * x) * (-2 * x * math.cos(3 * x) - 3 * math.sin(3 * x)) + 3 * x * x


def dd_g(x):
    h = 1e-5
    return (d_g(x + h) - d_g(x - h)) / (2 * h)


# ---- compositions ----------------------------------------------------------------------

add("jit_of_grad", lambda: (revsrc.jit(revsrc.grad(g_scalar))(0.3), d_g(0.3)), t="custom")
add("vmap_of_grad", g_scalar, (np.array([0.1, 0.5, -1.0]),), t="vmap_grad")
add("grad_of_grad", lambda: (revsrc.grad(revsrc.grad(g_scalar))(0.3), dd_g(0.3)), t="custom", tol=1e-6)
add("hessian_scalar_loop", g_scalar, (0.3,), t="hessian", tol=1e-5)
add("jvp_of_grad", lambda: (revsrc.jvp(revsrc.grad(g_scalar), (0.3,), (2.0,))[1], 2.0 * dd_g(0.3)), t="custom")


def _jvp_grad_arrays():
    def f(x):
        return np.sum(np.sin(x) * x[0])
    x = np.array([0.3, -0.7])
    v = np.array([1.0, 2.0])
    got = revsrc.jvp(revsrc.grad(f), (x,), (v,))[1]
    H = np.array([[-np.sin(x[0]) * x[0] + 2 * np.cos(x[0]), np.cos(x[1])], [np.cos(x[1]), -np.sin(x[1]) * x[0]]])
    return got, H @ v


add("jvp_of_grad_array", _jvp_grad_arrays, t="custom")


def _hessian_of_jit():
    fast = revsrc.jit(g_scalar)
    return revsrc.hessian(fast)(0.3), dd_g(0.3)


add("hessian_of_jit", _hessian_of_jit, t="custom", tol=1e-6)


def _grad_of_jit():
    return revsrc.grad(revsrc.jit(g_scalar))(0.4), d_g(0.4)


add("grad_of_jit", _grad_of_jit, t="custom")


def _grad_of_vmap():
    vg = revsrc.vmap(g_scalar)

    def total(xs):
        return np.sum(vg(xs))
    xs = np.array([0.1, 0.2])
    return revsrc.grad(total)(xs), np.array([d_g(0.1), d_g(0.2)])


add("grad_of_vmap", _grad_of_vmap, t="custom")


def _vmap_of_hessian():
    xs = np.array([0.1, 0.7])
    return revsrc.vmap(revsrc.hessian(g_scalar))(xs), np.array([dd_g(0.1), dd_g(0.7)])


add("vmap_of_hessian", _vmap_of_hessian, t="custom", tol=1e-6)


def _vmap_value_and_grad_int():
    def f(x, n):
        acc = 0.0
        for k in range(n):
            acc += x ** k
        return acc
    v, g = revsrc.vmap(revsrc.value_and_grad(f), in_axes=(0, None))(np.array([0.5, 2.0]), 3)
    return (v, g), (np.array([1.75, 7.0]), np.array([2.0, 5.0]))


add("vmap_vag_in_axes_none", _vmap_value_and_grad_int, t="custom")


def _jacfwd_of_grad():
    def f(x):
        return np.sum(x ** 3) * x[0]
    x = np.array([1.0, 2.0])
    H = revsrc.jacfwd(revsrc.grad(f))(x)
    exp = np.array([[12 * x[0] ** 2 + 0 + 6 * x[0] * 0 + 6 * x[0], 3 * x[1] ** 2], [3 * x[1] ** 2, 6 * x[1] * x[0]]])
    exp[0, 0] = 12.0 * x[0] ** 2  # d/dx0 (3 x0^2 * x0 + sum x^3) = 9x0^2 + 3x0^2
    return H, exp


add("jacfwd_of_grad", _jacfwd_of_grad, t="custom")


def _jacrev_of_jacfwd():
    def f(x):
        return np.array([x[0] * x[1], np.sin(x[0])])
    x = np.array([0.5, 2.0])
    T = revsrc.jacrev(revsrc.jacfwd(f))(x)
    exp = np.zeros((2, 2, 2))
    exp[0, 0, 1] = exp[0, 1, 0] = 1.0
    exp[1, 0, 0] = -np.sin(0.5)
    return T, exp


add("jacrev_of_jacfwd", _jacrev_of_jacfwd, t="custom")


def _grad_penalty():
    def loss(w, x):
        return np.sum(np.tanh(x @ w) ** 2)
    dloss = revsrc.grad(loss)

    def pen(w, x):
        g = dloss(w, x)
        return np.sum(g * g)
    w = np.array([0.3, -0.2])
    x = np.array([[1.0, 2.0], [0.5, -1.0]])
    return revsrc.grad(pen)(w, x), fd_grad(pen, (w, x), {}, 0)[0]


add("gradient_penalty_fd", _grad_penalty, t="custom", tol=1e-6)


def _hvp_dict():
    def f(x, y):
        return np.sum(x ** 2 * y) + np.sum(np.exp(x))
    x = np.array([0.1, 0.2])
    y = np.array([1.0, 3.0])
    v = np.array([1.0, -1.0])
    got = revsrc.hvp(f, (x, y), (v, None))
    return got, (2 * y + np.exp(x)) * v


add("hvp_with_none_tangent", _hvp_dict, t="custom")


def _hessian_two_args():
    def f(x, y):
        return x * x * y + math.sin(y) * x
    H = revsrc.hessian(f, argnums=(0, 1))(0.5, 1.5)
    got = np.array([[H[0][0], H[0][1]], [H[1][0], H[1][1]]], dtype=float)
    exp = np.array([[2 * 1.5, 2 * 0.5 + math.cos(1.5)], [2 * 0.5 + math.cos(1.5), -math.sin(1.5) * 0.5]])
    return got, exp


add("hessian_argnums_tuple", _hessian_two_args, t="custom")


def _linearize_twice():
    def f(x):
        return np.sin(x) * x
    x = np.array([0.3, 1.0])
    y, lin = revsrc.linearize(f, x)
    a = lin(np.array([1.0, 0.0]))
    b = lin(np.array([0.0, 2.0]))
    d = np.cos(x) * x + np.sin(x)
    return (y, a, b), (np.sin(x) * x, np.array([d[0], 0.0]), np.array([0.0, 2 * d[1]]))


add("linearize_called_twice", _linearize_twice, t="custom")


def _vjp_twice():
    def f(x):
        return np.cumsum(x ** 2)
    x = np.array([1.0, 2.0, 3.0])
    y, back = revsrc.vjp(f, x)
    a = back(np.array([1.0, 0.0, 0.0]))
    b = back(np.array([0.0, 0.0, 1.0]))
    return (a, b), (np.array([2.0, 0.0, 0.0]), 2 * x)


add("vjp_pullback_reused", _vjp_twice, t="custom")


def _vag_has_aux():
    def f(x):
        y = np.sum(x ** 2)
        return y, {"norm": np.sqrt(y), "x": x}
    (v, aux), g = revsrc.value_and_grad(f, has_aux=True)(np.array([3.0, 4.0]))
    return (v, aux["norm"], g), (25.0, 5.0, np.array([6.0, 8.0]))


add("value_and_grad_has_aux_dict", _vag_has_aux, t="custom")


# ---- jit / vmap of scalar programs ----------------------------------------------------

def collatz_len(n):
    steps = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        steps += 1
    return steps


add("jit_collatz_int", collatz_len, (27,), t="jit")


def jit_mixed(x, n, flag):
    acc = 0.0
    for i in range(n):
        if flag and i % 2:
            continue
        acc += math.sin(x * i) / (i + 1)
    return acc, n * 2


add("jit_tuple_return_bool", jit_mixed, (0.3, 7, True), t="jit")


def jit_big_int(n):
    return (n * n) % 1000003 + 0.5


add("jit_int_overflow_64bit", jit_big_int, (2 ** 40 + 7,), t="jit")


def jit_inf_nan(x):
    y = x / 0.0 if x != 0 else 0.0
    return y - y


def _jit_zerodiv():
    f = revsrc.jit(jit_inf_nan)
    try:
        got = f(1.0)
    except ZeroDivisionError:
        got = "ZeroDivisionError"
    return (got == "ZeroDivisionError") * 1.0, 1.0


add("jit_zero_division_raises", _jit_zerodiv, t="custom")


def vm_piecewise(x):
    if x < 0.0:
        return -x
    k = 0
    while x > 1.0:
        x = x / 2.0
        k += 1
    return x + k


add("vmap_while_piecewise", vm_piecewise, (np.array([-1.0, 0.5, 5.0, 1e300, np.inf * 0 + 3.0]),), t="vmap")


def vm_math(x):
    return math.fsum([x, 1e16, -1e16]) + math.copysign(1.0, x) * math.floor(x)


add("vmap_fsum_copysign_floor", vm_math, (np.array([-0.0, 0.5, -2.5]),), t="vmap")


def vm_int_in(k):
    return math.sqrt(k) * (k % 3)


add("vmap_int_array", vm_int_in, (np.array([0, 1, 5, 2 ** 54 + 1]),), t="vmap")


def vm_nan(x):
    return x if x == x else -1.0


add("vmap_nan_test", vm_nan, (np.array([np.nan, 1.0]),), t="vmap")


def _vmap_float32_refused():
    # Written when vmap refused float32 (E502). Either is right: that refusal, or the
    # values and dtype of f called on each float32 element (as JAX's vmap and a loop
    # give them); vmap mapping the float64 each element widens to is not.
    xs = np.array([1.0, np.nan, 0.1], dtype=np.float32)
    try:
        got = revsrc.vmap(vm_nan)(xs)
    except revsrc.RevsrcError as e:
        return float(e.code == "E502"), 1.0
    want = np.array([vm_nan(x) for x in xs])
    return float(got.dtype == want.dtype and np.array_equal(got, want, equal_nan=True)), 1.0


add("vmap_float32_refused_E502", _vmap_float32_refused, t="custom")


# ---- memory= checkpointing ---------------------------------------------------------------

def long_recurrence(a, n=3000):
    x = 0.5
    for i in range(n):
        x = a * x * (1.0 - x) + 1e-4 * math.sin(i * 0.01)
    return x


add("memory_logistic_map", long_recurrence, (2.5,), t="memory", h=1e-7, tol=1e-5)


def long_while(a):
    x, t = 1.0, 0.0
    while t < 5.0:
        x = x + 0.01 * (-a * x + math.cos(t))
        t = t + 0.01
    return x


add("memory_while_time_loop", long_while, (0.8,), t="memory")


def long_loop_with_branch(a):
    s = 0.0
    x = a
    for i in range(2000):
        if i % 3 == 0:
            x = math.sin(x) + 0.3
        elif x > 100.0:
            x = x - 100.0
        else:
            x = 0.999 * x + 0.001 * math.cos(s)
        s = s + x * 1e-3
    return s


add("memory_loop_with_branches", long_loop_with_branch, (0.37,), t="memory", h=1e-8, tol=1e-5)


def long_list_loop(a):
    xs = [a]
    for i in range(500):
        xs.append(0.99 * xs[-1] + 0.001 * i * a)
    return sum(xs) / len(xs)


add("memory_list_append_loop", long_list_loop, (0.4,), t="memory")


def long_array_loop(w):
    h = np.zeros(3)
    for i in range(300):
        h = np.tanh(w * h + 0.1)
    return np.sum(h)


add("memory_array_loop", long_array_loop, (np.array([0.5, -0.3, 1.2]),), t="memory")


def _memory_hessian():
    H = revsrc.hessian(long_while, memory=256)(0.8)
    H0 = revsrc.hessian(long_while)(0.8)
    return H, H0


add("memory_hessian_equals_stored", _memory_hessian, t="custom", tol=0.0)


def _memory_vjp():
    def f(a):
        x = a
        for i in range(1000):
            x = x * 0.999 + 0.001 * math.sin(x)
        return x
    y, back = revsrc.vjp(f, 0.3, memory=256)
    y0, back0 = revsrc.vjp(f, 0.3)
    return back(1.0), back0(1.0)


add("memory_vjp_equals_stored", _memory_vjp, t="custom", tol=0.0)


# ---- backend="jax" -------------------------------------------------------------------

def jx_loss(W, x, y):
    err = np.tanh(x @ W) - y
    return np.mean(err * err) + 0.01 * np.sum(W ** 2)


add("jax_mlp_loss", jx_loss, (np.full((3, 2), 0.1), np.arange(12.0).reshape(4, 3) / 10, np.zeros((4, 2))),
    t="grad_jax", needs=("jax",))


def jx_branch(x):
    if np.sum(x) > 0:
        y = np.sqrt(x)
    else:
        y = x * x
    return np.sum(y)


add("jax_branch_on_traced", jx_branch, (np.array([1.0, 4.0]),), t="grad_jax", needs=("jax",))
add("jax_branch_on_traced_other_arm", jx_branch, (np.array([-1.0, -4.0]),), t="grad_jax", needs=("jax",))


def jx_while(a):
    x = 1.0
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


add("jax_while_newton_sqrt", jx_while, (2.0,), t="grad_jax", needs=("jax",))


def jx_inplace(x):
    y = np.zeros(4)
    y[1:3] = x * 2.0
    y[0] += x[0]
    return np.sum(y ** 2)


add("jax_item_assignment", jx_inplace, (np.array([0.5, 1.5]),), t="grad_jax", needs=("jax",))


def jx_dict(params, x):
    return np.sum((params["a"] * x + params["b"]) ** 2)


add("jax_dict_params", jx_dict, ({"a": np.array([1.0, 2.0]), "b": 0.5}, np.array([0.3, 0.1])), t="grad_jax",
    needs=("jax",))


def jx_break(x):
    acc = x
    for i in range(10):
        acc = acc * 0.9 + 0.1
        if acc < 0.5:
            break
    return acc * x


add("jax_for_traced_break", jx_break, (0.3,), t="grad_jax", needs=("jax",))


def jx_int_static(x, n):
    return np.sum(x[:n] ** 2)


add("jax_int_static_slice", jx_int_static, (np.array([1.0, 2.0, 3.0]), 2), t="grad_jax", needs=("jax",))


def _jax_in_jax_jit():
    import jax
    import jax.numpy as jnp

    def f(x):
        return np.sum(np.sin(x) * x)
    df = revsrc.grad(f, backend="jax")
    out = jax.jit(lambda v: df(v) * 2.0)(jnp.array([0.3, 1.0]))
    x = np.array([0.3, 1.0])
    return np.asarray(out), 2 * (np.cos(x) * x + np.sin(x))


add("jax_backend_inside_jax_jit", _jax_in_jax_jit, t="custom", needs=("jax",))


def _jax_hessian():
    def f(x):
        return np.sum(np.exp(x) * x[0])
    x = np.array([0.2, 0.5])
    H = revsrc.hessian(f, backend="jax")(x)
    e = np.exp(x)
    exp = np.array([[e[0] * x[0] + 2 * e[0], e[1]], [e[1], e[1] * x[0]]])
    return np.asarray(H), exp


add("jax_hessian", _jax_hessian, t="custom", needs=("jax",))


def _jax_f32():
    def f(x):
        return np.sum(x * x)
    g = revsrc.grad(f, backend="jax")(np.array([1.0, 2.0], dtype=np.float32))
    return (np.asarray(g), float(g.dtype == np.float32)), (np.array([2.0, 4.0]), 1.0)


add("jax_float32_dtype", _jax_f32, t="custom", needs=("jax",))


def jx_where_nan(x):
    return np.sum(np.where(x > 0, np.log(np.abs(x) + (x <= 0)), x))


add("jax_where_log", jx_where_nan, (np.array([1.0, -2.0, 3.0]),), t="grad_jax", needs=("jax",))


def jx_scan_loop(a):
    x = 0.1
    for i in range(40):
        x = a * x * (1 - x)
    return x


add("jax_long_for_scan", jx_scan_loop, (2.7,), t="grad_jax", needs=("jax",), h=1e-8, tol=1e-5)


def jx_global_rebind():
    global JX_K
    def_f = revsrc.grad(jx_uses_global, backend="jax")
    JX_K = 2.0
    a = float(def_f(3.0))
    JX_K = 5.0
    b = float(def_f(3.0))
    JX_K = 2.0
    return (a, b), (12.0, 30.0)


JX_K = 2.0


def jx_uses_global(x):
    return JX_K * x * x


add("jax_global_rebinding", jx_global_rebind, t="custom", needs=("jax",))


def jx_cumsum_diff(x):
    c = np.cumsum(x)
    return np.sum(np.diff(c) ** 2) + np.sum(np.sort(x) * np.arange(3.0))


add("jax_cumsum_diff_sort", jx_cumsum_diff, (np.array([0.3, -1.0, 2.0]),), t="grad_jax", needs=("jax",))
