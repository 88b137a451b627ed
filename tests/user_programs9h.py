"""Round 9, NumPy idioms (1): np.add.at scatter, out= arguments, cumsum/cumprod/diff,
clip, np.where with masks, boolean and integer indexing, fancy assignment into a fresh
array, broadcasting tricks, reshape/transpose views, sorting and searchsorted."""
import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(99)
IDX = np.array([0, 2, 2, 1, 0, 3, 2])
_v7 = _rng.normal(size=7)
_v4 = _rng.normal(size=4)


def scatter_add(vals):
    acc = np.zeros(4)
    np.add.at(acc, IDX, vals)
    return np.sum(acc ** 2)


CASES.append(G("r9_np_add_at_histogram_like", scatter_add, (_v7,), ref="fd"))


def _scatter_ref():
    acc = np.zeros(4)
    np.add.at(acc, IDX, _v7)
    return 2 * acc[IDX]


CASES.append(pair("r9_np_add_at_closed_form", lambda: revsrc.grad(scatter_add)(_v7), _scatter_ref))


def gather_bincount(w):
    counts = np.bincount(IDX, weights=w, minlength=4)
    return np.sum(np.sin(counts))


CASES.append(G("r9_bincount_weights", gather_bincount, (_v7,), ref="fd"))


def out_kwarg(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    return np.sum(y)


CASES.append(G("r9_ufunc_out_fresh_array", out_kwarg, (_v4,), ref=lambda: 2 * _v4))


def out_exp(x):
    buf = np.zeros(4)
    np.exp(x, out=buf)
    return buf @ np.arange(4.0)


CASES.append(G("r9_np_exp_out_buffer", out_exp, (_v4,), ref=lambda: np.exp(_v4) * np.arange(4.0)))


def cumsum_cumprod(x):
    return np.sum(np.cumsum(x) * np.cumprod(1 + 0.1 * x))


CASES.append(G("r9_cumsum_times_cumprod", cumsum_cumprod, (_v4,), ref="jax"))


def diff_second(x):
    d2 = np.diff(x, n=2)
    return np.sum(d2 ** 2) + np.sum(np.diff(x) ** 2)


CASES.append(G("r9_diff_n2_smoothness", diff_second, (_v7,), ref="jax"))


def clip_loss(x):
    return np.sum(np.clip(x, -0.5, 0.5) ** 2 * np.arange(1.0, 8.0))


CASES.append(G("r9_clip_both_sides", clip_loss, (_v7,), ref="jax"))


def where_mask(x):
    mask = x > 0
    y = np.where(mask, np.sqrt(np.where(mask, x, 1.0)), -x ** 2)
    return np.sum(y)


CASES.append(G("r9_where_double_where_sqrt", where_mask, (_v7,), ref="jax"))


def bool_index(x):
    pos = x[x > 0]
    neg = x[x <= 0]
    return np.sum(pos ** 3) - np.sum(np.exp(neg)) + pos.size


CASES.append(G("r9_boolean_index_two_parts", bool_index, (_v7,), ref="ag"))


def bool_index_empty(x):
    big = x[x > 100.0]
    return np.sum(big ** 2) + np.sum(x)


CASES.append(G("r9_boolean_index_empty_selection", bool_index_empty, (_v7,), ref=lambda: np.ones(7)))


def int_index_repeat(x):
    y = x[IDX]
    return np.sum(y * np.arange(7.0))


CASES.append(G("r9_integer_index_repeated_gather", int_index_repeat, (_v4,), ref="jax"))


def fancy_assign(x):
    y = np.zeros(6)
    y[[1, 3, 5]] = x[:3] * 2
    y[np.array([0, 2])] = np.exp(x[3])
    return np.sum(y * np.arange(1.0, 7.0))


CASES.append(G("r9_fancy_assignment_fresh_array", fancy_assign, (_v4,), ref=lambda: np.array(
    [4.0, 8.0, 12.0, (1.0 + 3.0) * np.exp(_v4[3])])))


def mask_assign(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 1.0] *= 0.5
    return np.sum(y ** 2)


CASES.append(G("r9_masked_assign_copy", mask_assign, (_v7 * 1.5,), ref="fd"))


def broadcasting_outer(a, b):
    D = (a[:, None] - b[None, :]) ** 2
    return np.sum(np.exp(-D))


CASES.append(G("r9_broadcast_pairwise_kernel", broadcasting_outer, (_v4, _v7), argnums=(0, 1), ref="jax"))


def newaxis_ellipsis(x):
    M = x.reshape(2, 2)
    T = M[..., np.newaxis] * M[np.newaxis, ...]
    return np.sum(T ** 2)


CASES.append(G("r9_ellipsis_newaxis", newaxis_ellipsis, (_v4,), ref="jax"))


def reshape_transpose(x):
    M = x.reshape(3, 4).T
    v = M.ravel()
    return np.sum(v * np.arange(12.0)) + np.sum(M[1:3, ::2] ** 2)


_v12 = _rng.normal(size=12)
CASES.append(G("r9_reshape_transpose_ravel_strides", reshape_transpose, (_v12,), ref="jax"))


def view_write(x):
    y = np.zeros(12)
    M = y.reshape(3, 4)
    M[:, 1] = x[:3]
    M[2] = M[2] + x[3]
    return np.sum(y * np.arange(12.0))


CASES.append(G("r9_write_through_reshape_view", view_write, (_v4,), ref=lambda: np.array(
    [1.0, 5.0, 9.0, 8 + 9 + 10 + 11.0])))


def sort_top(x):
    s = np.sort(x)
    return np.sum(s[-3:] * np.array([1.0, 2.0, 3.0]))


CASES.append(G("r9_sort_top_k", sort_top, (_v7,), ref="jax"))


def argsort_gather(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.linspace(0, 1, 7))


CASES.append(G("r9_argsort_gather", argsort_gather, (_v7,), ref="jax"))


def interp_piecewise(y):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    return np.sum(np.interp(np.array([0.5, 1.7, 2.9]), xp, y))


CASES.append(G("r9_np_interp_wrt_fp", interp_piecewise, (_v4,), ref="jax"))


def interp_wrt_x(x):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    fp = np.array([0.0, 2.0, 1.0, 5.0])
    return np.sum(np.interp(x, xp, fp) ** 2)


CASES.append(G("r9_np_interp_wrt_x", interp_wrt_x, (np.array([0.5, 1.7, 2.9]),), ref="jax"))


def searchsorted_bins(x):
    edges = np.array([-1.0, 0.0, 1.0])
    k = np.searchsorted(edges, x)
    w = np.array([0.5, 1.0, 2.0, 3.0])[k]
    return np.sum(w * x ** 2)


CASES.append(G("r9_searchsorted_bin_weights", searchsorted_bins, (_v7,), ref="jax"))


def stack_split(x):
    a, b = np.split(x, 2)
    S = np.stack([a, b, a * b])
    return np.sum(np.concatenate([S[0], S[2] ** 2]))


CASES.append(G("r9_split_stack_concatenate", stack_split, (_v4,), ref="jax"))


def tile_repeat(x):
    return np.sum(np.tile(x, 3) * np.arange(12.0)) + np.sum(np.repeat(x, 2) ** 2)


CASES.append(G("r9_tile_repeat", tile_repeat, (_v4,), ref="jax"))


def triu_tril(x):
    M = np.outer(x, x) + np.eye(4)
    return np.sum(np.triu(M, 1) ** 2) - np.trace(np.tril(M))


CASES.append(G("r9_triu_tril_trace_outer", triu_tril, (_v4,), ref="jax"))


def maximum_accumulate(x):
    return np.sum(np.maximum.accumulate(x))


CASES.append(G("r9_maximum_accumulate_running_max", maximum_accumulate, (_v7,), ref="fd"))
