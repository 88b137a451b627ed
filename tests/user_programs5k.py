"""User programs, corpus 5k: backend="jax" on everyday programs."""
import math

import numpy as np

from user_programs5_harness import case
from user_programs5e import sinkhorn, kalman_1d, rnn_loss, leapfrog

try:
    import scipy.linalg
except ImportError:  # pragma: no cover
    scipy = None

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


J = ("jax",)


def first_bound_in_loop(x, n=3):
    u = x
    for _ in range(n):
        v = u * 2.0           # v exists only from the loop on
        u = np.sin(v)
    return np.sum(u * v)


add("jax_var_first_bound_in_short_loop", first_bound_in_loop, (np.array([0.3, 0.5]),), t="grad_jax", needs=J)
add("jax_sinkhorn", sinkhorn, (np.array([[0.0, 1.0, 2.0], [1.0, 0.2, 0.5]]),), t="grad_jax", needs=J)
add("jax_kalman_1d", kalman_1d, (0.1, 0.5, np.array([0.3, 0.1, 0.7, 0.4, 0.9])), argnums=(0, 1), t="grad_jax",
    needs=J)
add("jax_rnn", rnn_loss, (np.array([[0.5, -0.2], [0.3, 0.1]]), np.array([[1.0], [0.5]]),
                          np.array([[1.0], [0.2], [-0.5]])), argnums=(0, 1), t="grad_jax", needs=J)
add("jax_leapfrog", leapfrog, (np.array([0.5, 1.0]), np.array([0.0, 0.1])), argnums=(0, 1), t="grad_jax", needs=J)


def taylor_exp(x):
    s = 0.0
    for k in range(8):
        s = s + x ** k / math.factorial(k)
    return s


add("jax_math_factorial_of_static_int", taylor_exp, (0.7,), t="grad_jax", needs=J)


def lgamma_nll(a):
    return math.lgamma(a) - (a - 1.0) * math.log(2.0)


add("jax_math_lgamma", lgamma_nll, (2.5,), t="grad_jax", needs=J)


def tri_solve(A, b):
    L = np.tril(A) + 3.0 * np.eye(3)
    return np.sum(scipy.linalg.solve_triangular(L, b, lower=True) ** 2)


A3 = np.array([[2.0, 0.3, 0.1], [0.4, 1.0, -0.2], [0.0, 0.5, 3.0]])
add("jax_scipy_solve_triangular", tri_solve, (A3, np.array([1.0, -1.0, 0.5])), argnums=(0, 1), t="grad_jax",
    needs=("jax", "scipy"))


def fancy_repeat_augassign(x):
    y = np.zeros(3)
    y[np.array([0, 0, 2])] += x      # buffered: the last of the repeated places wins
    return np.sum(y ** 2 * np.array([1.0, 2.0, 3.0]))


add("jax_fancy_augassign_repeated", fancy_repeat_augassign, (np.array([1.0, 2.0, 3.0]),), t="grad_jax", needs=J)
add("numpy_fancy_augassign_repeated", fancy_repeat_augassign, (np.array([1.0, 2.0, 3.0]),))


def add_at_repeat(x):
    y = np.zeros(3)
    np.add.at(y, np.array([0, 0, 2]), x)
    return np.sum(y ** 2 * np.array([1.0, 2.0, 3.0]))


add("jax_add_at_repeated", add_at_repeat, (np.array([1.0, 2.0, 3.0]),), t="grad_jax", needs=J)


def setitem_repeat(x):
    y = np.zeros(3)
    y[np.array([1, 1])] = x[:2] * 3.0     # the last write wins
    return np.sum(y ** 2) + x[2]


add("jax_setitem_repeated_index", setitem_repeat, (np.array([1.0, 2.0, 3.0]),), t="grad_jax", needs=J)


def where_tie_clip(x):
    return np.sum(np.clip(x, -1.0, 1.0) * np.maximum(x, 0.0))


def _jax_vs_numpy_ties():
    import revsrc
    x = np.array([1.0, 0.0, -1.0, 0.5])
    return np.asarray(revsrc.grad(where_tie_clip, backend="jax")(x)), revsrc.grad(where_tie_clip)(x)


add("jax_and_numpy_agree_at_ties", _jax_vs_numpy_ties, t="custom", needs=J)


def _jax_jvp_hvp():
    import revsrc

    def f(x):
        return np.sum(np.tanh(x) ** 3)
    x = np.array([0.3, -0.5])
    v = np.array([1.0, 2.0])
    hv_j = np.asarray(revsrc.hvp(f, (x,), (v,), backend="jax"))
    hv_n = revsrc.hvp(f, (x,), (v,))
    t_j = revsrc.jvp(f, (x,), (v,), backend="jax")[1]
    t_n = revsrc.jvp(f, (x,), (v,))[1]
    return (hv_j, float(t_j)), (hv_n, t_n)


add("jax_hvp_jvp_match_numpy", _jax_jvp_hvp, t="custom", needs=J)


def _jax_max_steps():
    import revsrc

    def f(a):
        x = a
        while x > 1e-3:
            x = x * 0.9 - 0.01 * np.sin(x) ** 2   # saves x: needs max_steps rows
        return x * a
    try:
        revsrc.grad(f, backend="jax", max_steps=5)(1.0)
    except revsrc.RevsrcError as e:
        return float(e.code == "E604"), 1.0
    return 0.0, 1.0


add("jax_while_exceeds_max_steps_E604", _jax_max_steps, t="custom", needs=J)


def dataclass_like_tuple(p, x):
    w, b = p
    return np.sum(np.tanh(w * x + b) ** 2)


add("jax_tuple_params", dataclass_like_tuple, ((np.array([0.5, -1.0]), 0.3), np.array([1.0, 2.0])), t="grad_jax",
    needs=J)


def jax_f32_mixed(x):
    return np.sum(x * np.float64(0.1) + x ** 2)


def _jax_f32_dtype_mixed():
    import revsrc
    g = revsrc.grad(jax_f32_mixed, backend="jax")(np.array([1.0, 2.0], dtype=np.float32))
    g0 = revsrc.grad(jax_f32_mixed)(np.array([1.0, 2.0], dtype=np.float32))
    return (np.asarray(g), float(g.dtype == g0.dtype)), (g0, 1.0)


add("jax_float32_with_f64_constant", _jax_f32_dtype_mixed, t="custom", needs=J)
