"""Round 14, part o: more idioms -- overlapping in-place slices, diag_indices and
fill_diagonal, maximum.accumulate, interp, trapezoid, searchsorted, sorted/max with key,
zip(*rows), math.fsum/prod/dist, divmod and % on floats, round, isinstance, chained
comparisons, in-place sort of a copy."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

X6 = np.array([0.5, -1.2, 2.0, 0.3, -0.7, 1.4])
M3 = np.array([[2.0, 0.3, -0.1], [0.3, 1.5, 0.2], [-0.1, 0.2, 1.8]])


def overlap_shift_add(x):
    y = x.copy()
    y[1:] += y[:-1]          # NumPy reads the old y[:-1] (it copies overlapping operands)
    return y @ np.arange(1.0, 7.0)


add(G("r14_o_overlapping_inplace_add", overlap_shift_add, (X6,), ref=lambda: np.arange(1.0, 7.0) + np.append(np.arange(2.0, 7.0), 0.0), tol=0.0))


def overlap_reverse(x):
    y = x.copy()
    y[::-1] *= y
    return np.sum(y * np.arange(6.0))


add(G("r14_o_reverse_view_times_self", overlap_reverse, (X6,), ref="fd", tol=1e-8))


def diag_indices_add(A, d):
    B = A.copy()
    B[np.diag_indices(3)] += d ** 2
    np.fill_diagonal(B, np.diag(B) * 2.0)
    return np.sum(np.linalg.inv(B))


add(G("r14_o_diag_indices_fill_diagonal", diag_indices_add, (M3, np.array([0.5, 1.0, -0.3])), argnums=1, ref="fd", tol=1e-7))


def running_max_drawdown(p):
    peak = np.maximum.accumulate(p)
    return np.max((peak - p) / peak)


PR = np.array([1.0, 1.2, 1.1, 1.5, 1.3, 1.05, 1.4])
add(G("r14_o_maximum_accumulate_drawdown", running_max_drawdown, (PR,), ref="fd", tol=1e-8))


def interp_loss(y, xq=np.array([0.3, 1.7, 2.2])):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    return np.sum(np.interp(xq, xp, y) ** 2)


add(G("r14_o_interp_wrt_fp", interp_loss, (np.array([1.0, 2.0, 0.5, -1.0]),), ref="fd", tol=1e-8))
add(G("r14_o_interp_wrt_xq", interp_loss, (np.array([1.0, 2.0, 0.5, -1.0]), np.array([0.3, 1.7, 2.2])), argnums=1, ref="fd", tol=1e-8))


def trap(y, dx):
    trapz = getattr(np, "trapezoid", None) or np.trapz
    return trapz(y ** 2, dx=dx)


add(G("r14_o_trapezoid_dx", trap, (X6, 0.1), ref="fd", tol=1e-8))


def trap_direct(y, dx):
    return np.trapezoid(y ** 2, dx=dx)


add(G("r14_o_trapezoid_direct", trap_direct, (X6, 0.1), ref="fd", tol=1e-8))


def trap_ifexp(y, dx):
    t = np.trapezoid if hasattr(np, "trapezoid") else np.trapz
    return t(y ** 2, dx=dx)


add(G("r14_o_trapezoid_ifexp_callee", trap_ifexp, (X6, 0.1), ref="fd", tol=1e-8))


def bucket_cost(x, edges=np.array([0.0, 1.0, 2.0])):
    k = np.searchsorted(edges, x)
    return np.sum(x * k.astype(float) ** 2)


add(G("r14_o_searchsorted_weights", bucket_cost, (X6,), ref=lambda: np.searchsorted(np.array([0.0, 1.0, 2.0]), X6).astype(float) ** 2, tol=0.0))


def sorted_key(xs):
    pairs = [(xs[i], xs[i + 1]) for i in range(0, len(xs), 2)]
    best = max(pairs, key=lambda p: p[0] * p[1])
    s = sorted(xs, key=abs)
    return best[0] - best[1] + s[0] * 3.0 + s[-1]


add(G("r14_o_max_sorted_with_key", sorted_key, ([0.5, -1.2, 2.0, 0.3, -0.7, 1.4],),
      ref=lambda: [0.0, 0.0, 1.0 + 1.0, -1.0 + 3.0, 0.0, 0.0], tol=0.0))


def zip_star(rows):
    cols = list(zip(*rows))
    return sum(c[0] * c[1] * c[2] for c in cols)


add(G("r14_o_zip_star_transpose", zip_star, ([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]],),
      ref=lambda: [[15.0, 24.0], [5.0, 12.0], [3.0, 8.0]], tol=0.0))


def math_fsum_prod_dist(x):
    return math.fsum([x[0], x[1] ** 2, x[2]]) + math.prod([x[0], x[1], 2.0]) + math.dist(x[:2], x[2:4])


add(G("r14_o_math_fsum_prod_dist", math_fsum_prod_dist, (X6,), ref="fd", tol=1e-8))


def divmod_phase(t, period=0.7):
    q, r = divmod(t, period)
    w = t % period - r
    return r * r + q + w + round(t, 1) + (t // period) * t


add(pair("r14_o_divmod_mod_round_floordiv", lambda: revsrc.grad(divmod_phase)(2.3),
         lambda: 2 * (2.3 % 0.7) + (2.3 // 0.7), tol=1e-12))
add(pair("r14_o_divmod_negative", lambda: revsrc.grad(divmod_phase)(-2.3),
         lambda: 2 * (-2.3 % 0.7) + (-2.3 // 0.7), tol=1e-12))
add(pair("r14_o_divmod_wrt_period", lambda: revsrc.grad(divmod_phase, argnums=1)(2.3, 0.7),
         lambda: fd_checked(divmod_phase, (2.3, 0.7), argnums=1, h=1e-7)[0], tol=1e-6))


def isinstance_dispatch(x, c):
    if isinstance(c, (list, tuple)):
        c = np.array(c)
    if isinstance(x, float):
        return x * np.sum(c)
    return np.sum(x * c)


add(pair("r14_o_isinstance_float_vs_array", lambda: (revsrc.grad(isinstance_dispatch)(2.0, [1.0, 2.0]), revsrc.grad(isinstance_dispatch)(np.array([2.0, 3.0]), (1.0, 2.0))),
         lambda: (3.0, np.array([1.0, 2.0])), tol=0.0))


def chained(x):
    s = 0.0
    for v in x:
        if -1.0 < v <= 0.5:
            s += v ** 3
        elif 0.5 < v < 1.5 or v < -1.0:
            s += 2 * v
        else:
            s += math.exp(v) if v > 0 else -v
    return s


add(G("r14_o_chained_comparisons_or", chained, (X6,), ref=lambda: np.array([0.75, 2.0, math.exp(2.0), 0.27, 1.47, 2.0]), tol=1e-12))


def sort_inplace_copy(x):
    y = x.copy()
    y.sort()
    return np.sum(y * np.arange(1.0, 7.0)) + y[0] * y[-1]


add(G("r14_o_method_sort_inplace", sort_inplace_copy, (X6,), ref="fd", tol=1e-8))


def method_chain(x):
    return x.reshape(2, 3).T.clip(min=-0.5).sum(axis=1).prod() + x.max() - x.mean() + x.std()


add(G("r14_o_method_chain_clip_prod_std", method_chain, (X6,), ref="fd", tol=1e-8))


def dict_comprehension(x):
    d = {f"k{i}": v * (i + 1) for i, v in enumerate(x)}
    keys = sorted(d, key=lambda k: d[k])
    return d[keys[0]] * 2.0 + d[keys[-1]] + sum(d.values())


add(G("r14_o_dict_comprehension_sorted_by_value", dict_comprehension, (X6,), ref="fd", tol=1e-8))


def tuple_of_funcs(x):
    out = 0.0
    for f, w in ((math.sin, 1.0), (math.cos, 2.0), (math.tanh, -1.0)):
        out += w * f(x)
    return out


add(pair("r14_o_tuple_of_functions_loop", lambda: revsrc.grad(tuple_of_funcs)(0.4),
         lambda: math.cos(0.4) - 2 * math.sin(0.4) - (1 - math.tanh(0.4) ** 2), tol=1e-14))


def nuc_norm(A):
    return np.linalg.norm(A, ord="nuc") + np.linalg.norm(A, ord=-np.inf) + np.linalg.norm(A[0], ord=-np.inf)


add(G("r14_o_norm_nuc_neg_inf", nuc_norm, (np.array([[2.0, 0.3, -0.1], [0.4, -1.5, 0.2], [-0.1, 0.25, 1.8]]),), ref="fd", tol=1e-7))


def tril_pack(v):
    L = np.zeros((3, 3))
    L[np.tril_indices(3)] = v
    S = L @ L.T
    return np.linalg.slogdet(S)[1] + np.trace(S)


add(G("r14_o_tril_indices_cholesky_param", tril_pack, (np.array([1.0, 0.2, 1.5, -0.3, 0.1, 0.8]),), ref="fd", tol=1e-7))


def negative_indices_add_at(x):
    h = np.zeros(4)
    np.add.at(h, np.array([-1, 0, -1, 2]), x[:4])
    return h @ np.array([1.0, 2.0, 3.0, 4.0])


add(G("r14_o_add_at_negative_indices", negative_indices_add_at, (X6,), ref=lambda: np.array([4.0, 1.0, 4.0, 3.0, 0.0, 0.0]), tol=0.0))


def diff_n2_cumsum_axis(X):
    return np.sum(np.diff(X, n=2, axis=1) ** 2) + np.sum(np.cumsum(X, axis=0)[-1] ** 2)


add(G("r14_o_diff_n2_cumsum_axis0", diff_n2_cumsum_axis, (np.array([[0.1, 0.5, -0.2, 0.9], [1.0, -1.0, 0.3, 0.2]]),), ref="fd", tol=1e-8))


def mod_floordiv_round(t, period=0.7):
    r = t % period
    q = t // period
    return r * r + q + round(t, 1) + q * t


add(pair("r14_o_mod_floordiv_round_no_divmod", lambda: revsrc.grad(mod_floordiv_round)(2.3),
         lambda: 2 * (2.3 % 0.7) + (2.3 // 0.7), tol=1e-12))
add(pair("r14_o_mod_floordiv_negative", lambda: revsrc.grad(mod_floordiv_round)(-2.3),
         lambda: 2 * (-2.3 % 0.7) + (-2.3 // 0.7), tol=1e-12))
add(pair("r14_o_mod_wrt_period", lambda: revsrc.grad(mod_floordiv_round, argnums=1)(2.3, 0.7),
         lambda: fd_checked(mod_floordiv_round, (2.3, 0.7), argnums=1, h=1e-7)[0], tol=1e-6))


def fsum_prod(x):
    return math.fsum([x[0], x[1] ** 2, x[2]]) + math.prod([x[0], x[1], 2.0]) + math.hypot(x[2] - x[0], x[3] - x[1])


add(G("r14_o_math_fsum_prod_hypot", fsum_prod, (X6,), ref="fd", tol=1e-8))
