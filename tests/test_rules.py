"""The rule table, checked row by row against central differences.

Each row is a module-level function calling one primitive (revsrc transforms source,
so rows are named defs, not lambdas), reduced to a scalar with a fixed random weight
(`_wsum`) so every element's gradient matters; the input domain it needs (positive
for log, |x| < 1 for arcsin, SPD for cholesky...); the shapes it runs at (broadcasting
pairs for binary functions); the dtypes; and a tolerance. float64 is checked with
`check_grads`; float32 must give a float32 gradient close to the float64 one.

`test_every_rule_has_a_row` fails when a registered rule has no row calling it.
"""
import builtins
import inspect
import math
import operator
from dataclasses import dataclass

import numpy as np
import pytest

import revsrc
from revsrc import _kernels, errors, primitives, rules
from revsrc.core import ir

try:  # SciPy is optional: its rules and rows exist only with it
    import scipy.special as sc
    import scipy.stats as st
    import scipy.linalg as sl
except ImportError:  # pragma: no cover
    sc = st = sl = None
from revsrc.frontend.lower.lowerer import Lowerer
from revsrc.testing import check_grads, check_jvp

_rng = np.random.default_rng(1234)
W = _rng.standard_normal(4096)
IDX = np.array([0, 2, 0, 1])      # repeated: the adjoint must accumulate
MASK = np.array([True, False, True, True])
SORTED_IDX = np.array([[1, 0, 2, 2], [0, 0, 1, 2], [2, 1, 0, 0]])
FWEIGHTS = np.array([1, 3, 2, 1, 2])
KNOTS = np.array([-1.0, -0.3, 0.2, 0.9, 1.7, 2.6])   # np.interp's knots, np.gradient's coordinates
VALUES = np.array([0.5, -1.0, 2.0, 0.3, 1.1, -0.4])


def _wsum(y):
    """sum(y * w) for a fixed random w of y's shape and dtype: a scalar whose gradient
    is w, so every element of y is seen."""
    w = np.reshape(W[:np.size(y)], np.shape(y))
    return np.sum(y * np.asarray(w, dtype=np.result_type(y)))


# ----- Rows: trigonometric and hyperbolic -----

def f_sin(x):
    return _wsum(np.sin(x))


def f_cos(x):
    return _wsum(np.cos(x))


def f_tan(x):
    return _wsum(np.tan(x))


def f_arcsin(x):
    return _wsum(np.arcsin(x))


def f_arccos(x):
    return _wsum(np.arccos(x))


def f_arctan(x):
    return _wsum(np.arctan(x))


def f_deg2rad(x):
    return _wsum(np.deg2rad(x))


def f_radians(x):
    return _wsum(np.radians(x))


def f_rad2deg(x):
    return _wsum(np.rad2deg(x))


def f_degrees(x):
    return _wsum(np.degrees(x))


def f_sinh(x):
    return _wsum(np.sinh(x))


def f_cosh(x):
    return _wsum(np.cosh(x))


def f_tanh(x):
    return _wsum(np.tanh(x))


def f_arcsinh(x):
    return _wsum(np.arcsinh(x))


def f_arccosh(x):
    return _wsum(np.arccosh(x))


def f_arctanh(x):
    return _wsum(np.arctanh(x))


# ----- Rows: exponential, logarithmic, powers -----

def f_exp(x):
    return _wsum(np.exp(x))


def f_exp2(x):
    return _wsum(np.exp2(x))


def f_expm1(x):
    return _wsum(np.expm1(x))


def f_ldexp(x):
    return _wsum(np.ldexp(x, 3))


def f_log(x):
    return _wsum(np.log(x))


def f_log1p(x):
    return _wsum(np.log1p(x))


def f_log2(x):
    return _wsum(np.log2(x))


def f_log10(x):
    return _wsum(np.log10(x))


def f_sqrt(x):
    return _wsum(np.sqrt(x))


def f_cbrt(x):
    return _wsum(np.cbrt(x))


def f_square(x):
    return _wsum(np.square(x))


def f_reciprocal(x):
    return _wsum(np.reciprocal(x))


def f_sinc(x):
    return _wsum(np.sinc(x))


def f_sinc_at_zero(x):
    return _wsum(np.sinc(x * 0.0) + np.sinc(x))


def f_logaddexp(x, y):
    return _wsum(np.logaddexp(x, y))


def f_logaddexp2(x, y):
    return _wsum(np.logaddexp2(x, y))


def f_power(x, y):
    return _wsum(np.power(x, y))


def f_power_int(x):
    return _wsum(np.power(x, 3))


def f_float_power(x, y):
    return _wsum(np.float_power(x, y))


def f_hypot(x, y):
    return _wsum(np.hypot(x, y))


def f_arctan2(y, x):
    return _wsum(np.arctan2(y, x))


# ----- Rows: sign, magnitude, selection -----

def f_negative(x):
    return _wsum(np.negative(x))


def f_positive(x):
    return _wsum(np.positive(x))


def f_abs(x):
    return _wsum(np.abs(x))


def f_fabs(x):
    return _wsum(np.fabs(x))


def f_sign_is_flat(x):
    return _wsum(np.sign(x) * x)


def f_rounding_is_flat(x):
    return _wsum(x * (np.floor(x) + np.ceil(x) + np.trunc(x) + np.rint(x) + np.round(x)))


def f_maximum(x, y):
    return _wsum(np.maximum(x, y))


def f_minimum(x, y):
    return _wsum(np.minimum(x, y))


def f_fmax(x, y):
    return _wsum(np.fmax(x, y))


def f_fmin(x, y):
    return _wsum(np.fmin(x, y))


def f_relu(x):
    return _wsum(np.maximum(x, 0.0))


def f_copysign(x, y):
    return _wsum(np.copysign(x, y))


def f_clip(x):
    return _wsum(np.clip(x, -0.5, 0.5))


def f_clip_method(x):
    return _wsum(x.clip(-0.5, 0.5))


def f_clip_bounds(x, lo, hi):
    return _wsum(np.clip(x, lo, hi))


def f_clip_upper_only(x):
    return _wsum(np.clip(x, None, 0.5))


def f_where(x, y):
    return _wsum(np.where(x > 0.0, x, y))


# ----- Rows: binary arithmetic (np.* versions of the operators) -----

def f_add(x, y):
    return _wsum(np.add(x, y))


def f_subtract(x, y):
    return _wsum(np.subtract(x, y))


def f_multiply(x, y):
    return _wsum(np.multiply(x, y))


def f_divide(x, y):
    return _wsum(np.divide(x, y))


def f_true_divide(x, y):
    return _wsum(np.true_divide(x, y))


def f_remainder(x, y):
    return _wsum(np.remainder(x, y))


def f_mod(x, y):
    return _wsum(np.mod(x, y))


def f_fmod(x, y):
    return _wsum(np.fmod(x, y))


# ----- Rows: complex parts of real values -----

def f_real(x):
    return _wsum(np.real(x) * x)


def f_imag(x):
    return _wsum(np.imag(x) + x)


def f_conj(x):
    return _wsum(np.conj(x) * x)


def f_real_attr(x):
    return _wsum(x.real + x.imag)


# ----- Rows: reductions -----

def f_sum(x):
    return np.sum(x) * 1.5


def f_sum_axis0(x):
    return _wsum(np.sum(x, axis=0))


def f_sum_axis_neg(x):
    return _wsum(np.sum(x, axis=-1))


def f_sum_axes(x):
    return _wsum(np.sum(x, axis=(0, 2)))


def f_sum_keepdims(x):
    return _wsum(np.sum(x, axis=1, keepdims=True))


def f_sum_method(x):
    return _wsum(x.sum(axis=0))


def f_builtin_sum(x, y):
    return _wsum(sum([x, y, x]))


def f_builtin_sum_rows(x):
    return _wsum(sum(x))


def f_mean(x):
    return np.mean(x) * 2.0


def f_mean_axis(x):
    return _wsum(np.mean(x, axis=1))


def f_mean_keepdims(x):
    return _wsum(np.mean(x, axis=(0, 1), keepdims=True))


def f_prod(x):
    return np.prod(x)


def f_prod_axis(x):
    return _wsum(np.prod(x, axis=1))


def f_prod_zero(x):
    return _wsum(np.prod(x * MASK, axis=1))


def f_max(x):
    return np.max(x)


def f_max_axis(x):
    return _wsum(np.max(x, axis=1))


def f_amax_keepdims(x):
    return _wsum(np.amax(x, axis=0, keepdims=True))


def f_min(x):
    return np.min(x) * 2.0


def f_amin_axis(x):
    return _wsum(np.amin(x, axis=(0, 1)))


def f_nanmax_axis(x):
    # a NaN placed by the program: the extremum skips it, its slot gets no share
    y = np.where(_NAN_AT[:np.size(x)].reshape(np.shape(x)), np.nan, x)
    return _wsum(np.nanmax(y, axis=-1)) + np.nanmin(y * y)


_NAN_AT = np.arange(64) % 5 == 1


def f_max_tie(x):
    return np.max(np.concatenate([x, x]))


def f_var(x):
    return np.var(x)


def f_var_axis_ddof(x):
    return _wsum(np.var(x, axis=0, ddof=1))


def f_std(x):
    return np.std(x)


def f_std_axis(x):
    return _wsum(np.std(x, axis=1, ddof=1, keepdims=True))


def f_cumsum(x):
    return _wsum(np.cumsum(x))


def f_cumsum_axis(x):
    return _wsum(np.cumsum(x, axis=1))


def f_cumprod(x):
    return _wsum(np.cumprod(x, axis=-1))


def f_cumprod_zero(x):
    return _wsum(np.cumprod(x * MASK, axis=1))


def f_cumprod_flat(x):
    return _wsum(np.cumprod(x))


def f_norm(x):
    return np.linalg.norm(x)


def f_norm_axis(x):
    return _wsum(np.linalg.norm(x, axis=1))


def f_norm_keepdims(x):
    return _wsum(np.linalg.norm(x, axis=0, keepdims=True))


def f_norm_fro(x):
    return np.linalg.norm(x, "fro")


def f_logsumexp(x):
    m = np.max(x, axis=1, keepdims=True)
    return _wsum(np.log(np.sum(np.exp(x - m), axis=1)) + m[:, 0])


# ----- Rows: products and contractions -----

def f_dot(a, b):
    return _wsum(np.dot(a, b))


def f_dot_method(a, b):
    return _wsum(a.dot(b))


def f_matmul(a, b):
    return _wsum(np.matmul(a, b))


def f_matmul_op(a, b):
    return _wsum(a @ b)


def f_inner(a, b):
    return _wsum(np.inner(a, b))


def f_vdot(a, b):
    return np.vdot(a * a, b) + np.vdot(b, np.sin(a))


def f_outer(a, b):
    return _wsum(np.outer(a, b))


def f_add_outer(a, b):
    return _wsum(np.add.outer(a, b))


def f_subtract_outer(a, b):
    return _wsum(np.subtract.outer(a, b))


def f_multiply_outer(a, b):
    return _wsum(np.multiply.outer(a, b))


def f_tensordot(a, b):
    return _wsum(np.tensordot(a, b))


def f_tensordot_1(a, b):
    return _wsum(np.tensordot(a, b, axes=1))


def f_tensordot_pair(a, b):
    return _wsum(np.tensordot(a, b, axes=([0, 2], [1, 0])))


def f_einsum_mm(a, b):
    return _wsum(np.einsum("ij,jk->ik", a, b))


def f_einsum_batch(a, b):
    return _wsum(np.einsum("bij,bjk->bki", a, b))


def f_einsum_implicit(a, b):
    return _wsum(np.einsum("ij,jk", a, b))


def f_einsum_diag(a):
    return _wsum(np.einsum("ii->i", a))


def f_einsum_trace(a):
    return np.einsum("ii", a)


def f_einsum_sumout(a, b):
    return _wsum(np.einsum("ij,k->k", a, b))


def f_einsum_three(a, b, c):
    return np.einsum("i,ij,j->", a, b, c)


def f_trace(a):
    return np.trace(a) * 1.5


def f_trace_offset(a):
    return np.trace(a, offset=1)


def f_trace_axes(a):
    return _wsum(np.trace(a, axis1=1, axis2=2))


def f_trace_method(a):
    return a.trace()


# ----- Rows: matrix functions -----

def f_inv(a):
    return _wsum(np.linalg.inv(a))


def f_solve(a, b):
    return _wsum(np.linalg.solve(a, b))


def f_det(a):
    return _wsum(np.linalg.det(a))


def f_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return _wsum(logdet * sign)


def f_slogdet_item(a):
    return _wsum(np.linalg.slogdet(a)[1])


def f_quantile(x):
    return np.quantile(x, 0.3) + _wsum(np.quantile(x, [0.1, 0.8], axis=-1))


def f_percentile(x):
    return _wsum(np.percentile(x, 65.0, axis=0, keepdims=True))


def f_nanquantile(x):
    return _wsum(np.nanquantile(x, 0.45, axis=-1))


def f_nanpercentile(x):
    return np.nanpercentile(x, 12.5)


def f_cholesky(a):
    return _wsum(np.linalg.cholesky(a))


def f_cholesky_sym(a):
    return _wsum(np.linalg.cholesky(0.5 * (a + np.swapaxes(a, -1, -2))))


def f_cholesky_upper(a):
    return _wsum(np.linalg.cholesky(a, upper=True))


# ----- Rows: shape -----

def f_reshape(x):
    return _wsum(np.sin(np.reshape(x, (4, 3))))


def f_reshape_method(x):
    return _wsum(np.sin(x.reshape(2, 6)))


def f_reshape_f(x):
    return _wsum(np.sin(np.reshape(x, (2, 6), order="F")))


def f_ravel(x):
    return _wsum(np.sin(np.ravel(x)))


def f_flatten(x):
    return _wsum(np.sin(x.flatten()))


def f_transpose(x):
    return _wsum(np.sin(np.transpose(x)))


def f_transpose_axes(x):
    return _wsum(np.sin(np.transpose(x, (1, 2, 0))))


def f_dot_T(x):
    return _wsum(np.sin(x.T))


def f_swapaxes(x):
    return _wsum(np.sin(np.swapaxes(x, 0, 2)))


def f_moveaxis(x):
    return _wsum(np.sin(np.moveaxis(x, 0, -1)))


def f_expand_dims(x):
    return _wsum(np.sin(np.expand_dims(x, 1)))


def f_squeeze(x):
    return _wsum(np.sin(np.squeeze(x)))


def f_atleast(x):
    return _wsum(np.atleast_1d(x) + np.atleast_2d(x) + np.atleast_3d(x))


def f_broadcast_to(x):
    return _wsum(np.sin(np.broadcast_to(x, (2, 3, 4))))


def f_concatenate(a, b):
    return _wsum(np.sin(np.concatenate([a, b, a])))


def f_concatenate_axis(a, b):
    return _wsum(np.sin(np.concatenate([a, b], axis=1)))


def f_concatenate_flat(a, b):
    return _wsum(np.sin(np.concatenate((a, b), axis=None)))


def f_r_(a, b):
    # np.r_ and np.c_ index expressions, with a slice and a number among the items
    return _wsum(np.sin(np.r_[a, b, 0:2, 1.5]))


def f_r_2d(a, b):
    return _wsum(np.sin(np.r_[a, b]))


def f_c_(a, b):
    return _wsum(np.sin(np.c_[a, b, a * b]))


def f_stack(a, b):
    return _wsum(np.sin(np.stack([a, b])))


def f_stack_last(a, b):
    return _wsum(np.sin(np.stack([a, b, a], axis=-1)))


def f_hstack(a, b):
    return _wsum(np.sin(np.hstack([a, b])))


def f_vstack(a, b):
    return _wsum(np.sin(np.vstack([a, b])))


def f_split(x):
    p, q, r = np.split(x, 3)
    return _wsum(np.sin(p) * q + r)


def f_split_unused(x):
    parts = np.split(x, [1, 3], axis=1)
    return _wsum(np.sin(parts[2]))


def f_array_split(x):
    p, q = np.array_split(x, 2)
    return _wsum(p) + np.sum(q * q)


def f_tile(x):
    return _wsum(np.sin(np.tile(x, (2, 1, 3))))


def f_repeat(x):
    return _wsum(np.sin(np.repeat(x, 2, axis=1)))


def f_repeat_flat(x):
    return _wsum(np.sin(np.repeat(x, 3)))


def f_repeat_counts(x):
    return _wsum(np.sin(np.repeat(x, [1, 0, 3], axis=0)))


def f_flip(x):
    return _wsum(np.sin(np.flip(x)))


def f_flip_axis(x):
    return _wsum(np.sin(np.flip(x, axis=1) + np.fliplr(x) + np.flipud(x)))


def f_pad(x):
    return _wsum(np.sin(np.pad(x, ((1, 2), (0, 1)))))


def f_pad_int(x):
    return _wsum(np.sin(np.pad(x, 2, mode="constant")))


def f_diag(x):
    return _wsum(np.sin(np.diag(x)))


def f_diag_k(x):
    return _wsum(np.sin(np.diag(x, 1)))


def f_diagonal(x):
    return _wsum(np.sin(np.diagonal(x, 1, 0, 2)))


def f_tril_triu(x):
    return _wsum(np.sin(np.tril(x) + np.triu(x, 1) * 2.0))


def f_array_of_values(x, y):
    return _wsum(np.sin(np.array([x, y, x * y])))


def f_array_nested(x, y):
    return _wsum(np.array([[x, y], [y * y, x]]))


def f_asarray(x):
    return _wsum(np.sin(np.asarray(x)))


def f_copy(x):
    return _wsum(np.sin(np.copy(x)) + np.ascontiguousarray(x) + x.copy())


def f_astype(x):
    return _wsum(np.sin(x.astype(np.float64)))


def f_list(x):
    return _wsum(np.array(list(x)))


def f_tuple(x):
    return _wsum(np.stack(tuple(x)))


def f_sorted(x):
    return _wsum(np.array(sorted(x, reverse=True)))


def f_dict(x):
    d = dict([("a", x), ("b", 2.0 * x)])
    e = dict(d)
    return _wsum(e["a"] * d["b"] + e.get("b", 0.0))


def f_float64(x):
    return _wsum(np.sin(np.float64(x)))


def f_full(x):
    return _wsum(np.full((2, 3), x) * np.full_like(W[:6].reshape(2, 3), x))


def f_linspace(a, b):
    return _wsum(np.sin(np.linspace(a, b, 7)))


def f_constructors(x):
    return _wsum(x * (np.zeros_like(x) + np.ones_like(x)) + np.sum(np.ones(3)))


# ----- Rows: indexing and sorting -----

def f_index_int(x):
    return np.sin(x[1, 2]) + x[0, 0] * x[-1, -1]


def f_index_row(x):
    return _wsum(np.sin(x[1]))


def f_index_slice(x):
    return _wsum(np.sin(x[1:, ::2]))


def f_index_neg_step(x):
    return _wsum(np.sin(x[::-1, 1:3]))


def f_index_newaxis(x):
    return _wsum(np.sin(x[:, None, 1]))


def f_index_ellipsis(x):
    return _wsum(np.sin(x[..., 1]))


def f_index_fancy(x):
    return _wsum(np.sin(x[IDX]))


def f_index_fancy_col(x):
    return _wsum(np.sin(x[:, IDX]))


def f_index_fancy_pair(x):
    return _wsum(np.sin(x[IDX[:3], IDX[1:]]))


def f_index_mask(x):
    return _wsum(np.sin(x[:, MASK]))


def f_index_mask_full(x):
    return _wsum(np.sin(x[x > 0.0]))


def f_index_mixed(x):
    return _wsum(np.sin(x[1:, IDX, None]))


def f_index_list(x, y):
    v = [x, y, x * y]
    return _wsum(v[2] + v[0])


def f_index_tuple_unpack(x, y):
    t = (x, np.sin(y))
    a, b = t
    return _wsum(a * b)


def f_index_in_loop(x):
    s = 0.0
    for row in x:
        s = s + _wsum(np.sin(row))
    return s


def f_list_shared(x, y):
    v = [x, y]
    return _wsum(np.array(v) ** 2) + _wsum(v[0] * 3.0) + _wsum(np.sum(v, axis=0))


def f_list_twice(a, b):
    v = [a, b]
    return _wsum(np.concatenate(v)) + _wsum(np.stack(v) ** 2) + _wsum(np.mean(v))


def f_take(x):
    return _wsum(np.sin(np.take(x, IDX)))


def f_take_axis(x):
    return _wsum(np.sin(np.take(x, IDX, axis=1)))


def f_take_along_axis(x):
    return _wsum(np.sin(np.take_along_axis(x, SORTED_IDX, axis=1)))


def f_sort(x):
    return _wsum(np.sort(x))


def f_sort_axis(x):
    return _wsum(np.sort(x, axis=0))


def f_sort_flat(x):
    return _wsum(np.sort(x, axis=None))


def f_argsort_is_flat(x):
    return _wsum(x[np.argsort(x)] * np.argmax(x))


# ----- Rows: moving and joining elements -----

def f_roll(x):
    return _wsum(np.sin(np.roll(x, 2)))


def f_roll_axes(x):
    return _wsum(np.sin(np.roll(x, (1, -2), axis=(0, 1))))


def f_rot90(x):
    return _wsum(np.sin(np.rot90(x)))


def f_rot90_axes(x):
    return _wsum(np.sin(np.rot90(x, -3, axes=(2, 1))))


def f_rollaxis(x):
    return _wsum(np.sin(np.rollaxis(x, 2)) + np.rollaxis(x, 0, 3).sum())


def f_append(a, b):
    return _wsum(np.sin(np.append(a, b)))


def f_append_axis(a, b):
    return _wsum(np.sin(np.append(a, b, axis=1)))


def f_column_stack(a, b):
    return _wsum(np.sin(np.column_stack([a, b, a])))


def f_row_stack(a, b):
    return _wsum(np.sin(np.row_stack([a, b])))


def f_dstack(a, b):
    return _wsum(np.sin(np.dstack([a, b])))


def f_vstack_array(x):
    return _wsum(np.sin(np.vstack(x)))


def f_hstack_array(x):
    return _wsum(np.sin(np.hstack(x)))


def f_stack_array(x):
    return _wsum(np.sin(np.stack(x, axis=-1))) + _wsum(np.concatenate(x) ** 2)


def f_vsplit(x):
    p, q = np.vsplit(x, 2)
    return _wsum(np.sin(p) * q)


def f_hsplit(x):
    p, q, r = np.hsplit(x, [1, 3])
    return _wsum(np.sin(p)) + _wsum(q * q) + _wsum(r)


def f_dsplit(x):
    p, q = np.dsplit(x, 2)
    return _wsum(np.sin(p) * q)


def f_pad_edge(x):
    return _wsum(np.sin(np.pad(x, ((2, 1), (3, 4)), mode="edge")))


def f_pad_reflect(x):
    return _wsum(np.sin(np.pad(x, ((5, 1), (3, 7)), mode="reflect")))


def f_pad_reflect_odd(x):
    return _wsum(np.sin(np.pad(x, ((5, 1), (3, 7)), mode="reflect", reflect_type="odd")))


def f_pad_symmetric(x):
    return _wsum(np.sin(np.pad(x, 4, mode="symmetric")))


def f_pad_symmetric_odd(x):
    return _wsum(np.sin(np.pad(x, ((1, 3), (4, 2)), "symmetric", reflect_type="odd")))


def f_pad_wrap(x):
    return _wsum(np.sin(np.pad(x, ((5, 1), (3, 7)), mode="wrap")))


def f_pad_linear_ramp(x, e):
    return _wsum(np.sin(np.pad(x, ((2, 1), (3, 2)), mode="linear_ramp", end_values=e)))


def f_pad_maximum(x):
    return _wsum(np.sin(np.pad(x, ((2, 1), (3, 2)), mode="maximum", stat_length=2)))


def f_pad_minimum(x):
    return _wsum(np.sin(np.pad(x, 2, mode="minimum")))


def f_pad_mean(x):
    return _wsum(np.sin(np.pad(x, ((2, 1), (3, 2)), "mean", stat_length=((1, 2), (3, 2)))))


def f_pad_median(x):
    return _wsum(np.sin(np.pad(x, ((2, 1), (3, 2)), mode="median")))


def f_pad_values(x, c):
    return _wsum(np.sin(np.pad(x, ((2, 1), (3, 2)), constant_values=c)))


def f_pad_empty(x):
    return _wsum(np.sin(np.pad(x, 2, mode="empty")[2:-2, 2:-2]))


# ----- Rows: statistics -----

def f_median(x):
    return np.median(x) * 1.5


def f_median_axis(x):
    return _wsum(np.median(x, axis=1))


def f_median_keepdims(x):
    return _wsum(np.median(x, axis=(0, 2), keepdims=True))


def f_average(x):
    return np.average(x) * 1.5


def f_average_weights(x, w):
    return np.average(x, weights=w) * 1.5


def f_average_axis(x, w):
    return _wsum(np.average(x, axis=1, weights=w))


def f_average_returned(x, w):
    avg, total = np.average(x, axis=0, weights=w, returned=True)
    return _wsum(avg) + _wsum(total * total)


def f_cov(x):
    return _wsum(np.cov(x))


def f_cov_y(x, y):
    return _wsum(np.cov(x, y, rowvar=False, bias=True))


def f_cov_aweights(x, w):
    return _wsum(np.cov(x, aweights=w, fweights=FWEIGHTS))


def f_cov_ddof(x, w):
    return _wsum(np.cov(x, ddof=0, aweights=w))


def f_nansum(x):
    return _wsum(np.nansum(np.where(MASK, x, np.nan), axis=-1))


def f_nanmean(x):
    return _wsum(np.nanmean(np.where(MASK, x, np.nan), axis=-1, keepdims=True))


def f_nanmean_full(x):
    return np.nanmean(np.where(MASK, x, np.nan)) + np.nansum(x)


def f_std_no_spread(x):
    return _wsum(np.std(x, axis=1) + np.std(x[:1]) + np.var(x, axis=1))


def f_maximum_accumulate(x):
    return _wsum(np.maximum.accumulate(x))


def f_maximum_accumulate_axis(x):
    return _wsum(np.maximum.accumulate(x, axis=1))


def f_minimum_accumulate(x):
    return _wsum(np.minimum.accumulate(x, 1))


def f_norm_vector_ords(x):
    return (np.linalg.norm(x, 1) + 2.0 * np.linalg.norm(x, np.inf) + np.linalg.norm(x, -np.inf)
            + np.linalg.norm(x, 3) + np.linalg.norm(x, 4) + np.linalg.norm(x, 0.5)
            + np.linalg.norm(x, -1.5) + np.linalg.norm(x, 0) * x[0])


def f_norm_matrix_ords(x):
    return (np.linalg.norm(x, 1) + 2.0 * np.linalg.norm(x, -1) + np.linalg.norm(x, np.inf)
            + np.linalg.norm(x, -np.inf) + 3.0 * np.linalg.norm(x, 2)
            + np.linalg.norm(x, -2) + np.linalg.norm(x, "nuc"))


def f_norm_axis_ords(x):
    return (_wsum(np.linalg.norm(x, 3, axis=1)) + _wsum(np.linalg.norm(x, np.inf, axis=(0, 2)))
            + _wsum(np.linalg.norm(x, "nuc", axis=(2, 0), keepdims=True)))


# ----- Rows: differences, integrals, interpolation, polynomials, convolution -----

def f_unwrap(x):
    # phases 3x apart jump by more than half a period: the unwrapped ones add multiples
    return _wsum(np.unwrap(3.0 * x, period=2.0)) + _wsum(np.unwrap(x * x, axis=0) ** 2)


def f_diff(x):
    return _wsum(np.sin(np.diff(x)))


def f_diff_n_axis(x):
    return _wsum(np.sin(np.diff(x, n=2, axis=0)))


def f_diff_ends(x, p):
    return _wsum(np.sin(np.diff(x, prepend=p, append=1.5)))


def f_gradient(x):
    return _wsum(np.gradient(x))


def f_gradient_axes(x, h):
    gx, gy = np.gradient(x, h, edge_order=2)
    return _wsum(gx) + _wsum(gy * gy)


def f_gradient_coords(x):
    return _wsum(np.gradient(x, KNOTS[:np.shape(x)[-1]] * 2.0, axis=-1, edge_order=2))


def f_trapezoid(y):
    return _wsum(np.trapezoid(y))


def f_trapezoid_x(y, x):
    return _wsum(np.trapezoid(y, x))


def f_trapezoid_dx(y, dx):
    return _wsum(np.trapezoid(y, dx=dx, axis=0))


def f_interp(x):
    return _wsum(np.interp(x, KNOTS, VALUES))


def f_interp_knots(x, xp, fp):
    return _wsum(np.interp(x, xp, fp))


def f_interp_ends(x, left, right):
    return _wsum(np.interp(x, KNOTS, VALUES, left=left, right=right))


def f_interp_period(x, fp):
    return _wsum(np.interp(x, KNOTS, fp, period=2.5))


def f_polyval(p, x):
    return _wsum(np.polyval(p, x))


def f_convolve(a, v):
    return _wsum(np.convolve(a, v))


def f_convolve_same(a, v):
    return _wsum(np.convolve(a, v, "same"))


def f_convolve_valid(a, v):
    return _wsum(np.convolve(a, v, mode="valid"))


# ----- Rows: Fourier transforms -----

def f_fft(x):
    y = np.fft.fft(x)
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_fft_n(x):
    y = np.fft.fft(x, 7, axis=0, norm="ortho")
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_ifft(x):
    y = np.fft.ifft(x, n=3, norm="forward")
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_rfft(x):
    y = np.fft.rfft(x)
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_rfft_n(x):
    y = np.fft.rfft(x, n=6, axis=0)
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_irfft(x):
    return _wsum(np.fft.irfft(x))


def f_irfft_n(x):
    return _wsum(np.fft.irfft(x, n=7, norm="ortho"))


def f_fft2(x):
    y = np.fft.fft2(x)
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_ifft2_s(x):
    y = np.fft.ifft2(x, s=(3, 5), norm="ortho")
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_fftn(x):
    y = np.fft.fftn(x, axes=(0,), norm="forward")
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_ifftn(x):
    y = np.fft.ifftn(x * x)
    return _wsum(np.real(y)) + _wsum(np.imag(y) ** 2)


def f_fft_shift(x):
    return _wsum(np.fft.fftshift(x)) + _wsum(np.fft.ifftshift(x * x, axes=0))


# ----- Rows: products and decompositions -----

def f_kron(a, b):
    return _wsum(np.kron(a, b))


def _cross_takes_2d():
    try:
        np.cross(np.ones(2), np.ones(3))
    except ValueError:
        return False      # NumPy 2.5 and later: 3-component vectors only
    return True


CROSS_2D = _cross_takes_2d()


def f_cross(a, b):
    return _wsum(np.cross(a, b))


def f_cross_axes(a, b):
    return _wsum(np.cross(a, b, axisa=0, axisb=1, axisc=0))


def f_cross_axis(a, b):
    return _wsum(np.cross(a, b, axis=0))


def f_einsum_ellipsis(a, b):
    return _wsum(np.einsum("...ij,...jk->...ik", a, b))


def f_einsum_ellipsis_implicit(a, b):
    return _wsum(np.einsum("...i,...i", a, b))


def f_einsum_sublist(x):
    return _wsum(np.einsum(x, (0, 1), (1, 0)))


def f_einsum_sublists(a, b):
    return _wsum(np.einsum(a, [0, 1], b, [1, Ellipsis], [Ellipsis, 0]))


def f_einsum_seven(a, b):
    return np.einsum("i,ij,j,i,ij,j,i->", a, b, b[0], a, b, b[1] * 2.0, a)


def f_matrix_power(a):
    return _wsum(np.linalg.matrix_power(a, 3))


def f_matrix_power_neg(a):
    return _wsum(np.linalg.matrix_power(a, -2) + np.linalg.matrix_power(a, 0))


def f_pinv(a):
    return _wsum(np.linalg.pinv(a))


def f_lstsq(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b)
    return _wsum(x) + _wsum(res) + _wsum(s)


def f_eigh(a):
    w, v = np.linalg.eigh(a)
    return _wsum(w) + _wsum(v * v)


def f_eigh_upper(a):
    w, v = np.linalg.eigh(a, UPLO="U")
    return _wsum(w * w) + _wsum(np.abs(v))


def f_eigvalsh(a):
    return _wsum(np.linalg.eigvalsh(a) ** 2) + _wsum(np.linalg.eigvalsh(a, UPLO="U"))


def f_eig(a):
    w, v = np.linalg.eig(a)
    return _wsum(np.real(w)) + _wsum(np.imag(w)) + _wsum(np.abs(v))


def f_eig_vectors(a):
    w, v = np.linalg.eig(a)
    return _wsum(np.real(v)) + _wsum(np.imag(v))


def f_svd(a):
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return _wsum(s) + _wsum(u * u) + _wsum(vh * vh)


def f_svd_full(a):
    u, s, vh = np.linalg.svd(a)
    return _wsum(s) + _wsum(u[..., :, :3] ** 2) + _wsum(vh[..., :3, :] ** 2)


def f_svd_values(a):
    return _wsum(np.linalg.svd(a, compute_uv=False))


# ----- Rows: selections and repairs -----

def f_partition(x):
    return _wsum(np.partition(x, 2))


def f_partition_axis(x):
    return _wsum(np.partition(x, [0, 2], axis=0))


def f_select(x, y):
    return _wsum(np.select([x > 0.0, y > 0.5], [x, y * 2.0], default=y))


def f_nan_to_num(x, v):
    return _wsum(np.nan_to_num(np.where(x > 0.5, np.inf, np.where(x < -0.5, np.nan, x)),
                               nan=v, posinf=v * 3.0))


def f_angle(x):
    return _wsum(np.angle(x) + x)


def f_real_if_close(x):
    return _wsum(np.real_if_close(x))


# ----- Rows: SciPy (only when it is installed) -----

def c_expit(x):
    return _wsum(sc.expit(x))


def c_logit(x):
    return _wsum(sc.logit(x))


def c_gammaln(x):
    return _wsum(sc.gammaln(x))


def c_digamma(x):
    return _wsum(sc.digamma(x) + sc.psi(x))


def c_erf(x):
    return _wsum(sc.erf(x) + sc.erfc(x) * 2.0)


def c_xlogy(x, y):
    return _wsum(sc.xlogy(x, y))


def c_xlogy_zero(y):
    return _wsum(sc.xlogy(y * 0.0, y) + sc.xlogy(y, y))


def c_logsumexp(x):
    return sc.logsumexp(x) * 1.5


def c_logsumexp_axis(x, b):
    return _wsum(sc.logsumexp(x, axis=1, b=b))


def c_logsumexp_sign(x, b):
    value, sign = sc.logsumexp(x, axis=0, b=b, keepdims=True, return_sign=True)
    return _wsum(value * sign)


def c_softmax(x):
    return _wsum(sc.softmax(x, axis=-1)) + _wsum(sc.softmax(x))


def c_log_softmax(x):
    return _wsum(sc.log_softmax(x, axis=0)) + _wsum(sc.log_softmax(x))


def c_norm_logpdf(x, loc, scale):
    return _wsum(st.norm.logpdf(x, loc, scale) + st.norm.logpdf(x))


def c_norm_pdf(x, loc, scale):
    return _wsum(st.norm.pdf(x, loc=loc, scale=scale))


def c_norm_cdf(x, loc, scale):
    return _wsum(st.norm.cdf(x, loc, scale=scale))


def c_ndtr(x):
    return _wsum(sc.ndtr(x))


def c_log_ndtr(x):
    return _wsum(sc.log_ndtr(x) + sc.log_ndtr(x - 6.0))


def c_ndtri(p):
    return _wsum(sc.ndtri(p))


def c_cho_solve(a, b):
    c = sl.cho_factor(a)
    return _wsum(sl.cho_solve(c, b))


def c_cho_factor_lower(a, b):
    c, low = sl.cho_factor(a, lower=True)
    return _wsum(sl.cho_solve((c, low), b)) + _wsum(c)


def c_solve_triangular(a, b):
    return (_wsum(sl.solve_triangular(a, b, lower=True))
            + _wsum(sl.solve_triangular(a, b, trans=1) * 1.5)
            + _wsum(sl.solve_triangular(a, b, trans="T", lower=True, unit_diagonal=True)))


def c_lu_solve(a, b):
    lu = sl.lu_factor(a)
    return _wsum(sl.lu_solve(lu, b)) + _wsum(sl.lu_solve(lu, b, trans=1) * 1.3) \
        + _wsum(lu[0])


def c_expm(a):
    return _wsum(sl.expm(a))


# ----- Rows: Python operators, builtins and the math module (floats) -----

def s_operators(x, y):
    return (x + y) * (x - y) / (y * y + 1.0) + (-x) + (+y)


def s_pow(x, y):
    return x ** y + pow(x, y)


def s_mod(x, y):
    return x % y


def s_copy_float(x, y):
    z = x
    z = z * y
    return float(z) + abs(x) + max(x, y) + min(x, y)


def s_math_trig(x):
    return math.sin(x) + math.cos(x) + math.tan(x) + math.asin(x) + math.acos(x) + \
        math.atan(x) + math.atan2(x, 0.7)


def s_math_hyp(x):
    return math.sinh(x) + math.cosh(x) + math.tanh(x) + math.asinh(x) + \
        math.acosh(x + 2.0) + math.atanh(x)


def s_math_exp(x):
    return math.exp(x) + math.expm1(x) + math.log(x + 2.0) + math.log(x + 2.0, 3.0) + \
        math.log1p(x + 1.0) + math.log2(x + 2.0) + math.log10(x + 2.0) + math.sqrt(x + 2.0) + \
        math.cbrt(x + 2.0)


def s_math_misc(x, y):
    return math.pow(x + 2.0, y) + math.hypot(x, y) + math.erf(x) + math.erfc(y) + \
        math.fabs(x) + math.copysign(x, y) + math.fmod(3.0 * x, y) + math.fmod(-x, 0.3)


def s_math_twins(x, y):
    return math.radians(x) + math.degrees(y)


def s_inplace(x, y):
    z = x * 1.0
    z += y
    z -= 0.5 * x
    z *= y
    z /= y + 3.0
    z %= 5.0
    z **= 2.0
    return z


def f_inplace_matmul(a, b):
    c = a * 1.0
    c @= b
    c += a
    return _wsum(c)


def s_gamma(x):
    return math.lgamma(x) * 1.5 + math.gamma(x) + math.lgamma(-x - 0.5)


def s_fsum_prod(x, y):
    return math.fsum([x, y * y, 3.0 * x]) + math.prod([x, y, x + y], start=y) \
        + math.prod((x, 0.0, y))


def f_fsum_prod_array(x):
    return math.fsum(x * x) + math.prod(x)


def s_log_base(x, b):
    return math.log(x, b)


# ----- The table -----

@dataclass
class Row:
    fn: object
    domains: tuple          # one domain name per argument
    shapes: list            # cases: one shape per argument (None: a Python float)
    dtypes: tuple = ("float64", "float32")
    rtol: float = 1e-6
    atol: float = 1e-8
    tol32: float = 2e-3     # float32: max error relative to 1 + max |grad64|
    scalar: bool = False    # also check with Python floats (None shapes)
    jvp_refuses: object = None  # the error forward mode refuses this with, if it does

    @property
    def arity(self):
        return len(inspect.signature(self.fn).parameters)


UNARY = [(3, 4), (5,), ()]
BINARY = [((3, 4), (3, 4)), ((3, 1), (1, 4)), ((4,), (3, 4)), (None, (3, 4)),
          ((2, 3), None)]
MAT = [(3, 4)]
SQ = [(4, 4), (2, 3, 3)]


def R(fn, domains="real", shapes=None, **kw):
    arity = len(inspect.signature(fn).parameters)
    if isinstance(domains, str):
        domains = (domains,) * arity
    if shapes is None:
        shapes = UNARY if arity == 1 else BINARY
    shapes = [s if arity > 1 else (s,) for s in shapes]
    return Row(fn, domains, shapes, **kw)


ROWS = [
    # trigonometric and hyperbolic
    R(f_sin, scalar=True), R(f_cos, scalar=True), R(f_tan, "unit", scalar=True),
    R(f_arcsin, "unit", scalar=True), R(f_arccos, "unit", scalar=True),
    R(f_arctan, scalar=True), R(f_deg2rad), R(f_radians), R(f_rad2deg), R(f_degrees),
    R(f_sinh, scalar=True), R(f_cosh, scalar=True), R(f_tanh, scalar=True),
    R(f_arcsinh, scalar=True), R(f_arccosh, "gt1", scalar=True),
    R(f_arctanh, "unit", scalar=True),
    # exponential, logarithmic, powers
    R(f_exp, scalar=True), R(f_exp2, scalar=True), R(f_expm1, scalar=True),
    R(f_ldexp, scalar=True),
    R(f_log, "pos", scalar=True), R(f_log1p, "pos", scalar=True),
    R(f_log2, "pos", scalar=True), R(f_log10, "pos", scalar=True),
    R(f_sqrt, "pos", scalar=True), R(f_cbrt, "nonzero", scalar=True),
    R(f_square, scalar=True), R(f_reciprocal, "nonzero", scalar=True),
    R(f_sinc, "nonzero", scalar=True), R(f_sinc_at_zero, "nonzero"),
    R(f_logaddexp, scalar=True), R(f_logaddexp2, scalar=True),
    R(f_power, ("pos", "real"), scalar=True), R(f_power_int, scalar=True),
    R(f_float_power, ("pos", "real")), R(f_hypot, "nonzero", scalar=True),
    R(f_arctan2, "nonzero", scalar=True),
    # sign, magnitude, selection
    R(f_negative, scalar=True), R(f_positive), R(f_abs, "nonzero", scalar=True),
    R(f_fabs, "nonzero", scalar=True), R(f_sign_is_flat, "nonzero"),
    R(f_rounding_is_flat, "offgrid"),
    R(f_maximum, "distinct", scalar=True), R(f_minimum, "distinct", scalar=True),
    R(f_fmax, "distinct"), R(f_fmin, "distinct"), R(f_relu, "nonzero"),
    R(f_copysign, "nonzero"), R(f_clip, "offclip"), R(f_clip_method, "offclip"),
    R(f_clip_upper_only, "offclip"),
    R(f_clip_bounds, ("offclip", "low", "high"),
      [((3, 4), (3, 4), (4,)), ((3, 4), None, (3, 1)), ((4,), (3, 4), None)]),
    R(f_where, "nonzero"),
    # binary arithmetic
    R(f_add, scalar=True), R(f_subtract, scalar=True), R(f_multiply, scalar=True),
    R(f_divide, ("real", "nonzero"), scalar=True), R(f_true_divide, ("real", "nonzero")),
    R(f_remainder, ("modx", "mody"), scalar=True), R(f_mod, ("modx", "mody")),
    R(f_fmod, ("modx", "mody")),
    # complex parts of real values
    R(f_real), R(f_imag), R(f_conj), R(f_real_attr, shapes=MAT),
    # reductions
    R(f_sum, shapes=UNARY + [(2, 3, 4)]), R(f_sum_axis0, shapes=[(3, 4), (2, 3, 4)]),
    R(f_sum_axis_neg, shapes=MAT), R(f_sum_axes, shapes=[(2, 3, 4)]),
    R(f_sum_keepdims, shapes=MAT), R(f_sum_method, shapes=MAT),
    R(f_builtin_sum, shapes=[((3,), (3,)), ((2, 3), (3,))]),
    R(f_builtin_sum_rows, shapes=[(3, 4), (5,)]), R(f_mean, shapes=UNARY),
    R(f_mean_axis, shapes=MAT),
    R(f_mean_keepdims, shapes=[(2, 3, 4)]),
    R(f_prod, "pos", shapes=[(3, 4), (5,)]), R(f_prod_axis, shapes=MAT),
    R(f_prod_zero, shapes=MAT),
    R(f_max, "distinct", shapes=[(3, 4), (5,)]), R(f_max_axis, "distinct", shapes=MAT),
    R(f_amax_keepdims, "distinct", shapes=MAT), R(f_min, "distinct", shapes=MAT),
    R(f_nanmax_axis, "distinct", shapes=[(3, 4), (6,)]),
    R(f_amin_axis, "distinct", shapes=[(2, 3, 4)]), R(f_max_tie, "distinct", shapes=[(6,)]),
    R(f_var, shapes=MAT), R(f_var_axis_ddof, shapes=MAT), R(f_std, shapes=MAT),
    R(f_std_axis, shapes=MAT),
    R(f_cumsum, shapes=[(3, 4), (5,)]), R(f_cumsum_axis, shapes=MAT),
    R(f_cumprod, "nonzero", shapes=MAT), R(f_cumprod_zero, shapes=MAT),
    R(f_cumprod_flat, "nonzero", shapes=MAT),
    R(f_norm, shapes=[(5,), (3, 4)]), R(f_norm_axis, shapes=MAT),
    R(f_norm_keepdims, shapes=MAT), R(f_norm_fro, shapes=MAT),
    R(f_logsumexp, shapes=MAT),
    # products and contractions
    R(f_dot, shapes=[((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)),
                     ((2, 3, 4), (5, 4, 2)), (None, (3, 4)), ((3, 4), None)]),
    R(f_dot_method, shapes=[((3, 4), (4, 2))]),
    R(f_matmul, shapes=[((4,), (4,)), ((3, 4), (4,)), ((4,), (4, 2)), ((3, 4), (4, 2)),
                        ((2, 1, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,)), ((4,), (2, 4, 3)),
                        ((3, 4), (2, 4, 2))]),
    R(f_matmul_op, shapes=[((3, 4), (4, 2)), ((2, 3, 4), (2, 4, 2)), ((4,), (4, 3))]),
    R(f_inner, shapes=[((4,), (4,)), ((3, 4), (4,)), ((3, 4), (2, 4)),
                       ((2, 3, 4), (5, 4)), (None, (3, 4))]),
    R(f_vdot, shapes=[((4,), (4,)), ((2, 3), (3, 2)), ((6,), (2, 3))]),
    R(f_outer, shapes=[((3,), (4,)), ((2, 2), (3,))]),
    R(f_add_outer, shapes=[((3,), (4,)), ((2, 2), (3,)), (None, (3, 2)), ((3,), None)]),
    R(f_subtract_outer, shapes=[((3,), (4,)), ((2, 2), (3,)), (None, (3, 2)), ((3,), None)]),
    R(f_multiply_outer, shapes=[((3,), (4,)), ((2, 2), (3,)), (None, (3, 2)), ((3,), None)]),
    R(f_tensordot, shapes=[((2, 3, 4), (3, 4, 5))]),
    R(f_tensordot_1, shapes=[((2, 3), (3, 4))]),
    R(f_tensordot_pair, shapes=[((3, 4, 5), (5, 3, 2))]),
    R(f_einsum_mm, shapes=[((3, 4), (4, 2))]), R(f_einsum_batch, shapes=[((2, 3, 4), (2, 4, 5))]),
    R(f_einsum_implicit, shapes=[((3, 4), (4, 2))]), R(f_einsum_diag, shapes=[(4, 4)]),
    R(f_einsum_trace, shapes=[(4, 4)]), R(f_einsum_sumout, shapes=[((2, 3), (4,))]),
    R(f_einsum_three, shapes=[((3,), (3, 4), (4,))]),
    R(f_trace, shapes=[(4, 4), (3, 5)]), R(f_trace_offset, shapes=[(4, 4)]),
    R(f_trace_axes, shapes=[(2, 3, 3)]), R(f_trace_method, shapes=[(3, 3)]),
    # matrix functions
    R(f_inv, "wellcond", SQ, tol32=2e-2), R(f_det, "wellcond", SQ, tol32=2e-2),
    R(f_solve, ("wellcond", "real"), [((4, 4), (4,)), ((4, 4), (4, 2)),
                                      ((2, 3, 3), (2, 3, 2)), ((2, 3, 3), (3, 1))],
      tol32=2e-2),
    R(f_slogdet, "wellcond", SQ, tol32=2e-2), R(f_slogdet_item, "wellcond", SQ, tol32=2e-2),
    R(f_quantile, "distinct", [(7,), (3, 5)]), R(f_percentile, "distinct", [(3, 5)]),
    R(f_nanquantile, "distinct", [(6,), (2, 5)]), R(f_nanpercentile, "distinct", [(3, 4)]),
    R(f_cholesky, "spd", SQ, tol32=2e-2), R(f_cholesky_sym, "spd", SQ, tol32=2e-2),
    R(f_cholesky_upper, "spd", SQ, tol32=2e-2),
    # shape
    R(f_reshape, shapes=MAT), R(f_reshape_method, shapes=MAT), R(f_reshape_f, shapes=MAT),
    R(f_ravel, shapes=[(3, 4), (2, 3, 2)]), R(f_flatten, shapes=MAT),
    R(f_transpose, shapes=[(3, 4), (2, 3, 4)]), R(f_transpose_axes, shapes=[(2, 3, 4)]),
    R(f_dot_T, shapes=MAT), R(f_swapaxes, shapes=[(2, 3, 4)]),
    R(f_moveaxis, shapes=[(2, 3, 4)]), R(f_expand_dims, shapes=MAT),
    R(f_squeeze, shapes=[(3, 1, 4)]), R(f_atleast, shapes=[(), (3,)]),
    R(f_broadcast_to, shapes=[(3, 4), (3, 1), (4,)]),
    R(f_concatenate, shapes=[((3,), (2,)), ((2, 3), (1, 3))]),
    R(f_concatenate_axis, shapes=[((3, 4), (3, 2))]),
    R(f_concatenate_flat, shapes=[((3, 4), (2,))]),
    R(f_r_, shapes=[((3,), (2,)), ((3,), None)]), R(f_r_2d, shapes=[((2, 3), (1, 3))]),
    R(f_c_, shapes=[((3,), (3,)), ((3, 2), (3, 1))]),
    R(f_stack, shapes=[((3,), (3,)), ((2, 3), (2, 3))]),
    R(f_stack_last, shapes=[((2, 3), (2, 3))]),
    R(f_hstack, shapes=[((3,), (2,)), ((2, 3), (2, 1))]),
    R(f_vstack, shapes=[((3,), (3,)), ((2, 3), (1, 3))]),
    R(f_split, shapes=[(6,), (3, 4)]), R(f_split_unused, shapes=[(2, 5)]),
    R(f_array_split, shapes=[(5,)]),
    R(f_tile, shapes=[(3,), (2, 3)]), R(f_repeat, shapes=MAT),
    R(f_repeat_flat, shapes=[(2, 3)]), R(f_repeat_counts, shapes=[(3, 2)]),
    R(f_flip, shapes=MAT), R(f_flip_axis, shapes=[(3, 3)]),
    R(f_pad, shapes=MAT), R(f_pad_int, shapes=[(3,), (2, 3)]),
    R(f_diag, shapes=[(3,), (3, 3), (3, 4)]), R(f_diag_k, shapes=[(3,), (3, 4)]),
    R(f_diagonal, shapes=[(3, 2, 4)]), R(f_tril_triu, shapes=[(4, 4), (3, 5)]),
    R(f_array_of_values, shapes=[(None, None), ((3,), (3,))], scalar=True),
    R(f_array_nested, shapes=[(None, None), ((2,), (2,))]),
    R(f_asarray, shapes=MAT), R(f_copy, shapes=MAT), R(f_astype, shapes=MAT),
    R(f_float64, scalar=True),
    R(f_list, shapes=[(5,), (3, 4)]), R(f_tuple, shapes=[(5,), (3, 4)]),
    R(f_sorted, shapes=[(5,)]), R(f_dict, scalar=True),
    R(f_full, shapes=[None, (3,)]), R(f_linspace, shapes=[(None, None), ((2,), (2,))]),
    R(f_constructors, shapes=MAT),
    # indexing and sorting
    R(f_index_int, shapes=MAT), R(f_index_row, shapes=MAT), R(f_index_slice, shapes=MAT),
    R(f_index_neg_step, shapes=MAT), R(f_index_newaxis, shapes=MAT),
    R(f_index_ellipsis, shapes=[(3, 4), (2, 3, 4)]),
    R(f_index_fancy, shapes=[(3, 4), (5,)]), R(f_index_fancy_col, shapes=[(2, 4), (2, 3, 4)]),
    R(f_index_fancy_pair, shapes=MAT), R(f_index_mask, shapes=[(3, 4)]),
    R(f_index_mask_full, "nonzero", shapes=MAT), R(f_index_mixed, shapes=[(3, 4, 2)]),
    R(f_index_list, shapes=[(None, None), ((3,), (3,))]),
    R(f_index_tuple_unpack, shapes=[(None, None), ((3,), (2, 3))]),
    R(f_index_in_loop, shapes=[(3, 4)]),
    R(f_list_shared, shapes=[(None, None), ((3,), (3,))]),
    R(f_list_twice, shapes=[((3,), (3,)), ((2, 2), (2, 2))]),
    R(f_take, shapes=[(5,), (2, 3)]), R(f_take_axis, shapes=[(2, 3)]),
    R(f_take_along_axis, shapes=[(3, 4)]),
    R(f_sort, "distinct", shapes=[(5,), (3, 4)]), R(f_sort_axis, "distinct", shapes=MAT),
    R(f_sort_flat, "distinct", shapes=MAT), R(f_argsort_is_flat, "distinct", shapes=[(5,)]),
    # moving and joining elements
    R(f_roll, shapes=[(5,), (3, 4)]), R(f_roll_axes, shapes=MAT),
    R(f_rot90, shapes=[(3, 4), (2, 3, 4)]),
    R(f_rot90_axes, shapes=[(2, 3, 4)]), R(f_rollaxis, shapes=[(2, 3, 4)]),
    R(f_append, shapes=[((2, 3), (4,)), ((3,), None)]),
    R(f_append_axis, shapes=[((2, 3), (2, 2))]),
    R(f_column_stack, shapes=[((3,), (3, 2))]),
    *([R(f_row_stack, shapes=[((3,), (2, 3))])] if hasattr(np, "row_stack") else []),
    R(f_dstack, shapes=[((2, 3), (2, 3, 2))]),
    R(f_vstack_array, shapes=[(3, 4), (2, 3, 4)]), R(f_hstack_array, shapes=[(3, 4), (2, 3, 4)]),
    R(f_stack_array, shapes=[(3, 4)]),
    R(f_vsplit, shapes=[(4, 3)]), R(f_hsplit, shapes=[(3, 4), (2, 4, 2)]),
    R(f_dsplit, shapes=[(2, 3, 4)]),
    R(f_pad_edge, shapes=MAT), R(f_pad_reflect, shapes=MAT), R(f_pad_reflect_odd, shapes=MAT),
    R(f_pad_symmetric, shapes=[(3,), (2, 3)]), R(f_pad_symmetric_odd, shapes=MAT),
    R(f_pad_wrap, shapes=MAT),
    R(f_pad_linear_ramp, shapes=[((3, 4), None), ((3, 4), (2, 2)), ((3, 4), (2,))]),
    R(f_pad_maximum, "distinct", shapes=MAT), R(f_pad_minimum, "distinct", shapes=[(5,), (3, 4)]),
    R(f_pad_mean, shapes=MAT), R(f_pad_median, "distinct", shapes=[(3, 4), (4, 5)]),
    R(f_pad_values, shapes=[((3, 4), None), ((3, 4), (2,)), ((3, 4), (2, 2))]),
    R(f_pad_empty, shapes=MAT),
    # statistics
    R(f_median, "distinct", shapes=[(5,), (4,), (3, 4)]),
    R(f_median_axis, "distinct", shapes=[(3, 4), (3, 5)]),
    R(f_median_keepdims, "distinct", shapes=[(2, 3, 4)]),
    R(f_average, shapes=[(5,), (3, 4)]), R(f_average_weights, ("real", "pos"), [((5,), (5,))]),
    R(f_average_axis, ("real", "pos"), [((3, 4), (4,)), ((3, 4), (3, 4))]),
    R(f_average_returned, ("real", "pos"), [((3, 4), (3,)), ((3, 4), (3, 4))]),
    R(f_cov, shapes=[(3, 5), (6,)]), R(f_cov_y, shapes=[((5, 3), (5, 2)), ((5,), (5,))]),
    R(f_cov_aweights, ("real", "pos"), [((3, 5), (5,))]),
    R(f_cov_ddof, ("real", "pos"), [((3, 5), (5,))]),
    R(f_nansum, shapes=[(4,), (3, 4)]), R(f_nanmean, shapes=[(4,), (3, 4)]),
    R(f_nanmean_full, shapes=[(3, 4)]),
    R(f_std_no_spread, shapes=[(3, 1)]),
    R(f_maximum_accumulate, "distinct", shapes=[(6,), (3, 4)]),
    R(f_maximum_accumulate_axis, "distinct", shapes=[(3, 5)]),
    R(f_minimum_accumulate, "distinct", shapes=[(3, 5)]),
    R(f_norm_vector_ords, "distinct", shapes=[(5,)]),
    R(f_norm_matrix_ords, shapes=[(4, 3), (3, 3)], tol32=5e-3),
    R(f_norm_axis_ords, shapes=[(3, 4, 5)], tol32=5e-3),
    # differences, integrals, interpolation, polynomials, convolution
    R(f_diff, shapes=[(5,), (3, 4)]), R(f_diff_n_axis, shapes=[(4, 3)]),
    R(f_unwrap, shapes=[(5,), (3, 4)]),
    R(f_diff_ends, shapes=[((5,), None), ((3, 4), (3, 1)), ((3, 4), (3, 2))]),
    R(f_gradient, shapes=[(5,), (2,)]),
    R(f_gradient_axes, shapes=[((4, 5), None), ((3, 3), None)]),
    R(f_gradient_coords, shapes=[(5,), (3, 6)]),
    R(f_trapezoid, shapes=[(5,), (3, 4)]),
    R(f_trapezoid_x, ("real", "increasing"), [((5,), (5,)), ((3, 4), (4,)), ((3, 4), (3, 4))]),
    R(f_trapezoid_dx, ("real", "pos"), [((4, 3), None)]),
    R(f_interp, "between", [None, (7,), (2, 3)]),
    R(f_interp_knots, ("between", "increasing", "real"), [((7,), (6,), (6,)), (None, (6,), (6,))]),
    R(f_interp_ends, ("between", "real", "real"), [((9,), None, None)]),
    R(f_interp_period, ("between", "real"), [((7,), (6,))]),
    R(f_polyval, shapes=[((4,), (3,)), ((4,), None), ((3,), (2, 3)), ((1,), (2,))]),
    R(f_convolve, shapes=[((5,), (3,)), ((3,), (5,))]),
    R(f_convolve_same, shapes=[((5,), (3,)), ((3,), (5,)), ((4,), (4,))]),
    R(f_convolve_valid, shapes=[((5,), (3,)), ((3,), (6,))]),
    # Fourier transforms
    R(f_fft, shapes=[(5,), (3, 4)]), R(f_fft_n, shapes=[(5, 2), (9, 2)]),
    R(f_ifft, shapes=[(5,), (2,)]), R(f_rfft, shapes=[(6,), (7,), (2, 5)]),
    R(f_rfft_n, shapes=[(5, 2), (8, 3)]), R(f_irfft, shapes=[(5,), (2, 4)]),
    R(f_irfft_n, shapes=[(4,), (6,)]),
    R(f_fft2, shapes=[(3, 4), (2, 2, 3)]), R(f_ifft2_s, shapes=[(2, 4), (4, 6)]),
    R(f_fftn, shapes=[(3, 4), (5,)]), R(f_ifftn, shapes=[(3, 4), (2, 3, 2)]),
    R(f_fft_shift, shapes=[(5,), (3, 4)]),
    # products and decompositions
    R(f_kron, shapes=[((2, 3), (3, 2)), ((3,), (2,)), ((2,), (2, 3)), ((2, 1, 2), (3, 2))]),
    R(f_cross, shapes=[((3,), (3,)), ((4, 3), (3,))] + ([((2,), (3,)), ((5, 2), (5, 2)),
                       ((3,), (2, 1, 2))] if CROSS_2D else [])),
    R(f_cross_axes, shapes=[((3, 4), (4, 3))] + ([((2, 4), (4, 3)), ((3, 4), (4, 2))]
                                                if CROSS_2D else [])),
    R(f_cross_axis, shapes=[((3, 4), (3, 4))]),
    R(f_einsum_ellipsis, shapes=[((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)),
                                 ((1, 3, 4), (2, 4, 2))]),
    R(f_einsum_ellipsis_implicit, shapes=[((3, 4), (4,)), ((2, 3), (2, 3))]),
    R(f_einsum_sublist, shapes=[(3, 4)]), R(f_einsum_sublists, shapes=[((3, 4), (4, 2))]),
    R(f_einsum_seven, shapes=[((3,), (3, 4))]),
    R(f_matrix_power, "wellcond", SQ, tol32=2e-2),
    R(f_matrix_power_neg, "wellcond", SQ, tol32=2e-2),
    R(f_pinv, "wellcond", [(4, 3), (3, 4), (3, 3), (2, 3, 2)], tol32=2e-2),
    R(f_lstsq, ("wellcond", "real"), [((5, 3), (5,)), ((5, 3), (5, 2)), ((3, 5), (3,))],
      tol32=2e-2),
    R(f_eigh, "spd", SQ, tol32=2e-2), R(f_eigh_upper, "spd", [(4, 4)], tol32=2e-2),
    R(f_eigvalsh, "spd", SQ, tol32=2e-2),
    R(f_eig, "wellcond", SQ, tol32=2e-2), R(f_eig_vectors, "wellcond", SQ, tol32=2e-2),
    R(f_svd, "wellcond", [(4, 3), (3, 5), (3, 3), (2, 4, 3)], tol32=2e-2),
    # forward mode would need the tangent of every extra singular vector, which have
    # none (JAX refuses this too)
    R(f_svd_full, "wellcond", [(5, 3), (3, 4)], tol32=2e-2,
      jvp_refuses=revsrc.errors.NotDifferentiableHere),
    R(f_svd_values, "wellcond", [(4, 3), (2, 3, 5)], tol32=2e-2),
    # selections and repairs
    R(f_partition, "distinct", [(6,), (3, 5)]), R(f_partition_axis, "distinct", [(4, 3)]),
    R(f_select, shapes=[((3, 4), (4,)), ((3, 4), None)]),
    R(f_nan_to_num, shapes=[((3, 4), None)]),
    R(f_angle, "nonzero", shapes=UNARY), R(f_real_if_close, shapes=MAT),
    # Python operators, builtins and math (floats only)
    R(s_operators, "nonzero", [(None, None)], dtypes=("float64",)),
    R(s_pow, ("pos", "real"), [(None, None)], dtypes=("float64",)),
    R(s_mod, ("modx", "mody"), [(None, None)], dtypes=("float64",)),
    R(s_copy_float, "distinct", [(None, None)], dtypes=("float64",)),
    R(s_math_trig, "unit", [None], dtypes=("float64",)),
    R(s_gamma, "pos", [None], dtypes=("float64",)),
    R(s_fsum_prod, "nonzero", [(None, None)], dtypes=("float64",)),
    R(f_fsum_prod_array, "nonzero", [(4,)], dtypes=("float64",)),
    R(s_math_hyp, "unit", [None], dtypes=("float64",)),
    R(s_math_exp, "unit", [None], dtypes=("float64",)),
    R(s_math_misc, "nonzero", [(None, None)], dtypes=("float64",)),
    R(s_math_twins, ("pos", "pos"), [(None, None)], dtypes=("float64",)),
    R(s_inplace, ("pos", "pos"), [(None, None)], dtypes=("float64",)),
    R(f_inplace_matmul, shapes=[((3, 3), (3, 3))]),
    R(s_log_base, ("pos", "gt1"), [(None, None)], dtypes=("float64",)),
]

if sc is not None:
    NORM = [((3, 4), (4,), (3, 1)), ((5,), None, None), (None, (3,), (3,))]
    ROWS += [
        R(c_expit, scalar=True), R(c_logit, "unit01", scalar=True),
        R(c_gammaln, "pos", scalar=True), R(c_digamma, "pos", scalar=True),
        R(c_erf, scalar=True), R(c_xlogy, ("real", "pos"), scalar=True),
        R(c_xlogy_zero, "pos", shapes=[(4,)]),
        R(c_logsumexp, shapes=[(5,), (3, 4)]),
        R(c_logsumexp_axis, ("real", "pos"), [((3, 4), (3, 4)), ((3, 4), (4,))]),
        R(c_logsumexp_sign, ("real", "real"), [((3, 4), (3, 4))]),
        R(c_softmax, shapes=[(5,), (3, 4)]), R(c_log_softmax, shapes=[(5,), (3, 4)]),
        R(c_norm_logpdf, ("real", "real", "pos"), NORM, scalar=True),
        R(c_norm_pdf, ("real", "real", "pos"), NORM, scalar=True),
        R(c_norm_cdf, ("real", "real", "pos"), NORM, scalar=True),
        R(c_ndtr, scalar=True), R(c_log_ndtr, scalar=True),
        R(c_ndtri, "unit01", scalar=True),
        R(c_cho_solve, ("spd", "real"), [((4, 4), (4,)), ((4, 4), (4, 2))], tol32=2e-2),
        R(c_cho_factor_lower, ("spd", "real"), [((4, 4), (4,))], tol32=2e-2),
        R(c_solve_triangular, ("wellcond", "real"), [((4, 4), (4,)), ((4, 4), (4, 2))],
          tol32=2e-2),
        R(c_lu_solve, ("wellcond", "real"), [((4, 4), (4,)), ((4, 4), (4, 3))], tol32=2e-2),
        R(c_expm, "real", [(3, 3)], tol32=2e-2, rtol=1e-5),
    ]


# ----- Inputs -----

def _draw(domain, shape, rng):
    """A float64 value of ``shape`` (None: a Python float) from ``domain``."""
    size = () if shape is None else shape
    n = int(np.prod(size, dtype=int))
    if domain == "real":
        v = rng.standard_normal(size)
    elif domain == "pos":
        v = rng.uniform(0.5, 2.0, size)
    elif domain == "unit":
        v = rng.uniform(-0.8, 0.8, size)
    elif domain == "gt1":
        v = rng.uniform(1.3, 3.0, size)
    elif domain == "nonzero":
        v = rng.choice([-1.0, 1.0], size) * rng.uniform(0.4, 2.0, size)
    elif domain == "distinct":
        # distinct values at least 0.1 apart: no ties within a finite-difference step
        v = np.reshape(rng.permutation(np.arange(n)) * 0.1 - 0.05 * n + 0.013
                       + rng.uniform(0.0, 0.05, n), size)
    elif domain == "offgrid":
        v = rng.integers(-3, 3, size) + rng.uniform(0.1, 0.4, size)
    elif domain == "offclip":
        v = rng.choice([-1.0, 1.0], size) * rng.choice([0.1, 0.3, 0.8, 1.2], size) \
            + rng.uniform(-0.05, 0.05, size)
    elif domain == "low":
        v = rng.uniform(-0.45, -0.35, size)
    elif domain == "high":
        v = rng.uniform(0.35, 0.45, size)
    elif domain == "modx":
        v = rng.uniform(5.2, 5.8, size)
    elif domain == "mody":
        v = rng.uniform(2.1, 2.4, size)
    elif domain == "wellcond":
        nn = size[-1]
        v = 2.0 * np.eye(size[-2], nn) + 0.3 * rng.standard_normal(size)
    elif domain == "unit01":
        v = rng.uniform(0.1, 0.9, size)
    elif domain == "increasing":
        # sorted, at least 0.2 apart (coordinates, knots)
        v = np.cumsum(rng.uniform(0.2, 0.8, size), axis=-1) - 1.2
    elif domain == "between":
        # inside and outside KNOTS, never within 0.02 of a knot
        v = rng.uniform(-1.4, 3.0, size)
        near = np.min(np.abs(np.subtract.outer(v, KNOTS)), axis=-1) < 0.02
        v = np.where(near, v + 0.05, v)
    elif domain == "spd":
        nn = size[-1]
        m = rng.standard_normal(size)
        v = np.matmul(m, np.swapaxes(m, -1, -2)) + nn * np.eye(nn)
    else:
        raise ValueError(domain)
    if shape is None:
        return float(v)
    return np.asarray(v, dtype=np.float64)


def _args(row, shapes, seed):
    rng = np.random.default_rng(seed)
    return tuple(_draw(d, s, rng) for d, s in zip(row.domains, shapes))


def _cases():
    for row in ROWS:
        for k, shapes in enumerate(row.shapes):
            sid = "x".join("f" if s is None else str(s).replace(" ", "") for s in shapes)
            yield pytest.param(row, shapes, k, id=f"{row.fn.__name__}-{sid}")


CASES = list(_cases())


def _float_args(args):
    return tuple(i for i, a in enumerate(args) if isinstance(a, (float, np.ndarray)))


# ----- The checks -----

@pytest.mark.parametrize("row,shapes,k", CASES)
def test_float64_matches_finite_differences(row, shapes, k):
    args = _args(row, shapes, 100 + k)
    check_grads(row.fn, args, argnums=_float_args(args), rtol=row.rtol, atol=row.atol)


@pytest.mark.parametrize("row,shapes,k", CASES)
def test_jvp_float64_matches_finite_differences(row, shapes, k):
    """The forward rule of every primitive: tangents along random directions."""
    args = _args(row, shapes, 100 + k)
    if row.jvp_refuses is not None:
        with pytest.raises(row.jvp_refuses):
            check_jvp(row.fn, args, argnums=_float_args(args), rtol=row.rtol, atol=row.atol)
        return
    check_jvp(row.fn, args, argnums=_float_args(args), rtol=row.rtol, atol=row.atol)


F32_CASES = [c for c in CASES if "float32" in c.values[0].dtypes
             and any(s is not None for s in c.values[1])]


@pytest.mark.parametrize("row,shapes,k", F32_CASES)
def test_float32_gives_float32(row, shapes, k):
    args = _args(row, shapes, 100 + k)
    args32 = tuple(np.asarray(a, np.float32) if isinstance(a, np.ndarray) else a for a in args)
    nums = _float_args(args)
    g32 = revsrc.grad(row.fn, nums)(*args32)
    at = tuple(np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a for a in args32)
    g64 = revsrc.grad(row.fn, nums)(*at)
    for i, a, u, v in zip(nums, args32, g32, g64):
        if isinstance(a, np.ndarray):
            assert isinstance(u, np.ndarray) and u.dtype == np.float32 and u.shape == a.shape, \
                (i, type(u), getattr(u, "dtype", None))
        scale = 1.0 + float(np.max(np.abs(v)))
        err = float(np.max(np.abs(np.asarray(u, np.float64) - v)))
        assert err <= row.tol32 * scale, (i, err, scale)


@pytest.mark.parametrize("row,shapes,k", F32_CASES)
def test_jvp_float32_gives_float32(row, shapes, k):
    """Tangents of float32 inputs are computed in float32, close to float64's."""
    if row.jvp_refuses is not None:
        pytest.skip("forward mode refuses this row (checked in float64)")
    args = _args(row, shapes, 100 + k)
    nums = _float_args(args)
    args32 = tuple(np.asarray(a, np.float32) if isinstance(a, np.ndarray) else a for a in args)
    rng = np.random.default_rng(k)
    dirs = [rng.standard_normal(np.shape(a)) if i in nums else None for i, a in enumerate(args)]
    t32 = [np.asarray(d, np.float32) if isinstance(a, np.ndarray) else d
           for a, d in zip(args32, dirs)]
    value32, out32 = revsrc.jvp(row.fn, args32, t32)
    at = tuple(np.asarray(a, np.float64) if isinstance(a, np.ndarray) else a for a in args32)
    _, out64 = revsrc.jvp(row.fn, at, [np.asarray(d, np.float64) if d is not None and
                                       isinstance(a, np.ndarray) else d
                                       for a, d in zip(at, t32)])
    # the tangent has its value's dtype (float32 unless the program promotes it)
    assert np.asarray(out32).dtype == np.asarray(value32).dtype
    scale = 1.0 + abs(float(out64))
    assert abs(float(out32) - float(out64)) <= 20 * row.tol32 * scale


# Cases whose float64 adjoint is NumPy's or the program's own doing, not a rule's:
# np.dot/np.inner of a Python float and a float32 array compute in float64, astype
# and the float64 constants of the program promote, float_power is float64 by
# definition, np.log of a Python float base is a float64 scalar, and np.append
# makes a Python float a float64 array; SciPy's xlogy of a Python float and its
# distributions compute in float64.
PROMOTED = {"f_dot-fx(3,4)", "f_dot-(3,4)xf", "f_inner-fx(3,4)", "f_astype-(3,4)",
            "f_full-(3,)", "f_constructors-(3,4)", "f_power-fx(3,4)", "f_append-(3,)xf",
            "c_xlogy-fx(3,4)", "c_xlogy-(2,3)xf",
            # ufunc.outer makes a Python float a float64 array (np.add.outer(x32, 2.0)
            # is float64)
            "f_add_outer-fx(3,2)", "f_add_outer-(3,)xf", "f_subtract_outer-fx(3,2)",
            "f_subtract_outer-(3,)xf", "f_multiply_outer-fx(3,2)", "f_multiply_outer-(3,)xf"}
PROMOTED_ROWS = {"c_norm_logpdf", "c_norm_pdf", "c_norm_cdf", "f_float64"}


@pytest.mark.parametrize("row,shapes,k", F32_CASES)
def test_float32_adjoint_is_not_upcast(row, shapes, k, request, monkeypatch):
    """The raw gradient of a float32 array, before the API casts it, is float32."""
    case_id = request.node.callspec.id
    if case_id in PROMOTED or row.fn is f_float_power or row.fn.__name__ in PROMOTED_ROWS:
        pytest.skip("promoted to float64 by NumPy or by the program itself")
    from revsrc import api
    raw = []
    finalize = api._finalize
    monkeypatch.setattr(api, "_finalize", lambda g, x: (raw.append((g, x)), finalize(g, x))[1])
    args = _args(row, shapes, 100 + k)
    args32 = tuple(np.asarray(a, np.float32) if isinstance(a, np.ndarray) else a for a in args)
    revsrc.grad(row.fn, _float_args(args), backend="python")(*args32)
    for g, x in raw:
        if isinstance(x, np.ndarray) and isinstance(g, np.ndarray):
            assert g.dtype == np.float32, g.dtype


SCALAR_ROWS = [row for row in ROWS if row.scalar]


@pytest.mark.parametrize("backend", [None, "python"], ids=["auto", "python"])
@pytest.mark.parametrize("row", SCALAR_ROWS, ids=[r.fn.__name__ for r in SCALAR_ROWS])
def test_python_floats(row, backend):
    """Elementwise rules on Python floats, through the engine where it applies."""
    args = _args(row, (None,) * row.arity, 7)
    grads = revsrc.grad(row.fn, tuple(range(row.arity)), backend=backend)(*args)
    assert all(type(g) is float for g in grads), grads
    check_grads(row.fn, args, argnums=tuple(range(row.arity)), rtol=row.rtol,
                atol=row.atol, backend=backend)


# ----- Elementwise functions the scalar engine runs -----

def e_unary(x):
    return np.sin(x) * np.exp(x) + np.log(x) * np.sqrt(x) - np.arctan(x) + np.square(x) \
        + np.reciprocal(x) + np.abs(x) + np.cosh(x) + np.log1p(x) + np.expm1(x)


def e_binary(x, y):
    return np.arctan2(x, y) + np.hypot(x, y) + np.maximum(x, y) * \
        np.minimum(x, y) + np.fmax(x, 1.0) - np.fmin(y, 1.0) + np.negative(x)


@pytest.mark.parametrize("fn,args", [(e_unary, (0.7,)), (e_binary, (0.7, 1.3)),
                                     (e_binary, (1.3, 0.7))], ids=["unary", "binary", "swap"])
def test_engine_runs_elementwise_rules(fn, args):
    nums = tuple(range(len(args)))
    check_grads(fn, args, argnums=nums, backend="engine")
    want = revsrc.value_and_grad(fn, nums, backend="python")(*args)
    got = revsrc.value_and_grad(fn, nums, backend="engine")(*args)
    assert got == want   # NumPy's own loops on both paths: the same bits


# ----- The fused kernels -----

def k_tanh(x):
    return np.sum(np.tanh(x) * x)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "0-d", "float"])
def test_tanh_rule_fused_kernel(dtype, layout):
    rng = np.random.default_rng(3)
    x = rng.standard_normal((64, 33)).astype(dtype)
    if layout == "transposed":
        x = x.T
    elif layout == "0-d":
        x = np.asarray(0.3, dtype)
    elif layout == "float":
        x = 0.3
    g = revsrc.grad(k_tanh)(x)
    t = np.tanh(np.asarray(x, np.float64))
    want = t + (1.0 - t * t) * np.asarray(x, np.float64)
    if isinstance(x, np.ndarray):
        assert g.dtype == dtype and g.shape == x.shape
    np.testing.assert_allclose(g, want, rtol=1e-12 if dtype == np.float64 else 1e-5)
    if layout == "contiguous":
        assert "tanh_vjp" in revsrc.source(revsrc.grad(k_tanh), x)


def test_tanh_fusion_fact_names_the_kernel_and_matches_the_rule():
    from revsrc import primitives
    from revsrc.runtime import tensor
    fused = primitives.lookup(np.tanh).fused
    assert fused.kernel is tensor.tanh_vjp and fused.names == ("g", "ans")
    g = np.linspace(-1.0, 1.0, 10)
    ans = np.tanh(np.linspace(-2.0, 2.0, 10))
    rule = primitives.lookup(np.tanh).vjp.fn
    np.testing.assert_array_equal(tensor.tanh_vjp(g, ans), rule(g, ans, None))


# ----- Ties, zeros, refusals -----

def t_max(x):
    return np.max(x)


def test_max_splits_ties_equally():
    g = revsrc.grad(t_max)(np.array([1.0, 3.0, 3.0, 2.0]))
    np.testing.assert_array_equal(g, [0.0, 0.5, 0.5, 0.0])


def t_prod(x):
    return np.prod(x)


def test_prod_with_a_zero_is_exact():
    g = revsrc.grad(t_prod)(np.array([2.0, 0.0, 3.0]))
    np.testing.assert_array_equal(g, [0.0, 6.0, 0.0])


def t_qr(a):
    q, r = np.linalg.qr(a)
    return np.sum(r)


def t_std_mean(x):
    return np.std(x, mean=np.mean(x))


@pytest.mark.parametrize("fn,name", [(t_qr, "qr")])
def test_unregistered_numpy_function_is_refused(fn, name):
    with pytest.raises(errors.NoRule, match=name) as info:
        revsrc.grad(fn)(np.eye(3) + 0.1)
    assert info.value.code == "E202"


def test_unsupported_keyword_is_refused():
    # (np.sum(where=) has a rule now: tests/test_rules22.py)
    with pytest.raises(errors.NoRule, match="mean") as info:
        revsrc.grad(t_std_mean)(np.arange(3.0))
    assert info.value.code == "E202"


# ----- Coverage: every rule has a row that calls it -----

def _called(fn):
    """The primitives ``fn``'s own lines call (not those of functions it inlines)."""
    lines, first = inspect.getsourcelines(fn)
    span = range(first, first + len(lines))
    filename = inspect.getsourcefile(fn)
    _, body, _, _ = Lowerer().lower_function(fn)
    found = set()
    for s in ir.walk(body):
        if isinstance(s, ir.Op) and s.loc is not None and s.loc.lineno in span \
                and s.loc.filename == filename:
            found.add(primitives._key(s.fn))
    return found


def test_every_rule_has_a_row():
    rules.load_optional()   # SciPy's rules, when it is installed
    called = set()
    for row in ROWS:
        called |= _called(row.fn)
    # runtime helpers (what generated code calls) are checked by differentiating
    # derivatives again, in tests/test_higher_order.py
    # (the user-program corpora and some test modules register rules of their own)
    # (and so is a record revsrc declares a run-time operation: revsrc.vmap's call inside
    # a differentiated function, checked by tests/test_vmap_inside.py)
    missing = [f for f in rules.registered() if primitives._key(f) not in called
               and primitives.family_of(f) != primitives.RUNTIME
               and primitives.lookup(f).alias(f).family != primitives.RUNTIME
               and not (getattr(f, "__module__", None) or "").startswith(("user_programs", "test_"))]
    names = sorted(f"{getattr(f, '__module__', '') or ''}.{getattr(f, '__name__', f)}"
                   for f in missing)
    assert not names, f"rules without a test row: {names}"


def test_every_fact_a_pass_needs_is_declared():
    """The passes read facts from the records (primitives.FACTS), keeping no tables of
    their own: an operator, builtin or math function the scalar engine runs says
    whether cse may share and drop it; a math function whose NumPy twin is spelled
    otherwise says its NumPy name (xp_math, the JAX back end); an operator's ufunc is
    one of its record's own aliases."""
    rules.load_optional()
    missing = []
    for prim in primitives.records():
        others = [a.fn for a in prim.aliases]
        for a in prim.aliases:
            name = f"{getattr(a.fn, '__module__', '')}.{getattr(a.fn, '__name__', a.fn)}"
            if a.family in (primitives.PYTHON, primitives.MATH) and \
                    (a.engine is not None or a.infix is not None):
                missing += [f"{name}: {f}" for f in ("pure", "raises_on_scalars")
                            if getattr(a, f) is None]
            twins = [b for b in others if getattr(np, getattr(b, "__name__", ""), None) is b]
            if a.family == primitives.MATH and twins and a.numpy_name is None and \
                    not hasattr(np, a.fn.__name__):
                missing.append(f"{name}: numpy_name")
            if a.array_ufunc is not None:
                assert a.array_ufunc in others, name
            if a.loop_kernel is not None:
                kernel, count = a.loop_kernel
                assert getattr(_kernels, kernel.__name__) is kernel and count >= 1, name
    assert not missing, f"facts not declared: {missing}"


def test_rows_are_unique_functions():
    fns = [row.fn for row in ROWS]
    assert len(fns) == len(set(fns))
    assert all(not f.__name__.startswith("<") for f in fns)


def test_nondiff_outputs_carry_no_gradient():
    for fn in (np.argmax, np.floor, np.greater, np.zeros_like, np.shape):
        assert rules.lookup(fn).nondiff and rules.lookup(fn).vjp is None
    # (np.sign is flat on real numbers only: of a complex z it is z / |z|)
    for fn in (np.sort, np.remainder, np.where, builtins.sum, operator.getitem, np.sign):
        assert isinstance(rules.lookup(fn).vjp, rules.Rule)
    assert primitives.fact(np.sign, "flat_on_reals")
