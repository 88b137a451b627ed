"""Round 11, part j: the NumPy and standard-library calls a scientist reaches for in
passing -- polyval, interp, trapezoid, gradient, convolve, eigh/svd values, matrix_power,
kron, tensordot, sorting and top-k, masks, pad/tile/repeat, math.hypot of three, math.dist,
itertools, functools.cache, small vector classes with operator overloading."""
import functools
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, agify, ag, fd_checked  # noqa: F401

CASES = []
add = CASES.append

A2 = np.array([[2.0, 0.5], [0.3, 1.0]])
S2 = np.array([[2.0, 0.5], [0.5, 1.0]])
V3 = np.array([1.0, 5.0, 3.0])
V4 = np.array([1.0, 2.0, 4.0, 3.0])


def calib_poly(c, x=1.5):
    return np.polyval(c, x) ** 2


add(G("r11_polyval_coefficients", calib_poly, (np.array([1.0, 2.0, 3.0]),), ref="jax"))


def lookup_table(y, xq=np.array([0.35, 0.8])):
    return np.sum(np.interp(xq, np.array([0.0, 0.5, 1.0]), y) ** 2)


add(G("r11_interp_table_values", lookup_table, (np.array([1.0, 2.0, 3.0]),), ref="jax"))


def lookup_query(x):
    return np.interp(x, np.array([0.0, 0.5, 1.0]), np.array([1.0, 2.0, 4.0])) ** 2


add(G("r11_interp_query_point", lookup_query, (0.7,), ref="jax"))


def work_integral(force, dx=0.1):
    return np.trapezoid(force ** 2, dx=dx)


add(G("r11_trapezoid_dx", work_integral, (V4,), ref=lambda: 0.1 * np.array([1.0, 4.0, 8.0, 3.0])))


def smoothness(y):
    return np.sum(np.gradient(y) ** 2)


add(G("r11_np_gradient_central", smoothness, (V4,), ref="jax"))


def smooth_conv(y):
    return np.sum(np.convolve(y, np.array([0.25, 0.5, 0.25]), mode="same") ** 2)


add(G("r11_convolve_same", smooth_conv, (V4,), ref="jax"))


def weighted_eigs(A):
    return np.sum(np.linalg.eigh(A)[0] * np.array([1.0, 2.0]))


# numpy's eigh reads the lower triangle only: central differences on every entry
add(G("r11_eigh_values_lower_triangle", weighted_eigs, (S2,), ref="fd"))
add(G("r11_eigvalsh_sum_of_squares", lambda A: np.sum(np.linalg.eigh(A)[0] ** 2), (S2,), ref="fd"))


def nuclear_norm(A):
    return np.sum(np.linalg.svd(A, compute_uv=False))


add(G("r11_svd_nuclear_norm", nuclear_norm, (A2,), ref="jax"))


def markov_3steps(P):
    return np.sum(np.linalg.matrix_power(P, 3) @ np.array([1.0, 0.0]))


add(G("r11_matrix_power", markov_3steps, (A2,), ref="jax"))


def kron_energy(A):
    return np.sum(np.kron(A, A) ** 2)


add(G("r11_kron", kron_energy, (A2,), ref="jax"))


def double_contraction(A):
    return np.tensordot(A, A, axes=([0, 1], [1, 0]))


add(G("r11_tensordot_axes_lists", double_contraction, (A2,), ref="jax"))


def growth_chain(r):
    return np.sum(np.cumprod(1.0 + r))


add(G("r11_cumprod_growth", growth_chain, (np.array([0.1, -0.05, 0.2]),), ref="jax"))


def mixed_norms(x):
    return np.linalg.norm(x, ord=1) + np.linalg.norm(x, np.inf)


add(G("r11_norm_ord1_and_inf", mixed_norms, (np.array([1.0, -2.0, 3.0]),), ref="jax"))


def spectral_plus_fro(A):
    return np.linalg.norm(A, "fro") + np.linalg.norm(A, 2)


add(G("r11_norm_fro_and_spectral", spectral_plus_fro, (A2,), ref="jax"))


def top2(x):
    return np.sum(np.sort(x)[::-1][:2])


add(G("r11_sort_descending_top2", top2, (V3,), ref="jax"))


def rank_weighted(x):
    idx = np.argsort(x)
    return np.sum(x[idx] * np.arange(x.size))


add(G("r11_argsort_gather", rank_weighted, (V3,), ref="jax"))


def masked_sq(x):
    return np.sum(x[x > 2.0] ** 2)


add(G("r11_boolean_mask_select", masked_sq, (V3,), ref=lambda: np.array([0.0, 10.0, 6.0])))


def padded(x):
    return np.sum(np.pad(x, 1, mode="edge") ** 2)


add(G("r11_pad_edge", padded, (V3,), ref="jax"))


def tiled(x):
    return np.sum(np.tile(x, 2) * np.repeat(x, 2))


add(G("r11_tile_times_repeat", tiled, (V3,), ref="jax"))


def grid_energy(x):
    X, Y = np.meshgrid(x, x)
    return np.sum(X * Y ** 2)


add(G("r11_meshgrid", grid_energy, (np.array([1.0, 2.0]),), ref="jax"))


def distinct_sum(x):
    return np.sum(np.unique(x) ** 2)


add(G("r11_unique_values", distinct_sum, (V3,), ref=lambda: 2 * V3))


def qr_logdet(A):
    Q, R = np.linalg.qr(A)
    return np.sum(np.log(np.abs(np.diag(R))))


add(G("r11_qr_log_abs_det", qr_logdet, (A2,), ref=lambda: np.linalg.inv(A2).T))


# -- math / builtins ------------------------------------------------------------------------

def speed3(vx, vy, vz):
    return math.hypot(vx, vy, vz)


add(G("r11_math_hypot_three_args", speed3, (1.0, 2.0, 2.0), argnums=(0, 1, 2), ref=lambda: (1 / 3, 2 / 3, 2 / 3)))


def station_distance(p, q):
    return math.dist(p, q)


add(G("r11_math_dist", station_distance, ((1.0, 2.0), (4.0, 6.0)), ref=lambda: (-0.6, -0.8)))


def angle_deg(x):
    return math.degrees(math.atan(x)) + math.radians(x)


add(G("r11_degrees_radians", angle_deg, (1.0,), ref=lambda: 180 / math.pi / 2 + math.pi / 180))


def complex_mag(x):
    return abs(complex(x, 2.0))


add(G("r11_abs_of_complex_builtin", complex_mag, (1.5,), ref=lambda: 1.5 / 2.5))


def min_default(xs):
    return min(xs, default=0.0) * 2.0


add(G("r11_min_with_default", min_default, ([1.0, 0.5],), ref=lambda: [0.0, 2.0]))


def zip_strict(xs, ys):
    return sum(a * b for a, b in zip(xs, ys, strict=True))


add(G("r11_zip_strict", zip_strict, ([1.0, 2.0], [3.0, 4.0]), ref=lambda: [3.0, 4.0]))


def path_length(xs):
    return sum((b - a) ** 2 for a, b in itertools.pairwise(xs))


add(G("r11_itertools_pairwise", path_length, ([1.0, 2.0, 4.0],), ref=lambda: [-2.0, -2.0, 4.0]))


def path_length_zip(xs):
    return sum((b - a) ** 2 for a, b in zip(xs, xs[1:]))


add(G("r11_zip_with_tail_slice", path_length_zip, ([1.0, 2.0, 4.0],), ref=lambda: [-2.0, -2.0, 4.0]))


def running_total(xs):
    return list(itertools.accumulate(xs))[-1] ** 2


add(G("r11_itertools_accumulate", running_total, ([1.0, 2.0],), ref=lambda: [6.0, 6.0]))


@functools.lru_cache(maxsize=None)
def taylor_coef(k):
    return 1.0 / math.factorial(k)


def cached_series(x):
    return sum(taylor_coef(k) * x ** k for k in range(6))


add(G("r11_lru_cache_int_helper", cached_series, (1.0,), ref=lambda: sum(1 / math.factorial(k) for k in range(5))))


@functools.cache
def cached_square(x):
    return x * x


def uses_cached_square(x):
    return cached_square(x) + x


add(G("r11_functools_cache_on_differentiated", uses_cached_square, (1.5,), ref=lambda: 4.0))


class Vec2:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return Vec2(self.x * s, self.y * s)

    def dot(self, o):
        return self.x * o.x + self.y * o.y


def vec_ops(a):
    v = Vec2(a, 2.0)
    w = v + Vec2(1.0, a) * 3.0
    return w.dot(w)


add(G("r11_vec2_operator_overloading", vec_ops, (0.5,), ref=lambda: 2 * (0.5 + 1.0 * 3.0) + 2 * (2.0 + 3 * 0.5) * 3.0))


def isinstance_normalise(x):
    if isinstance(x, (list, tuple)):
        x = np.array(x)
    return np.sum(x ** 2)


add(G("r11_isinstance_normalise_list", isinstance_normalise, ([1.0, 2.0],), ref=lambda: [2.0, 4.0]))
add(G("r11_isinstance_normalise_array", isinstance_normalise, (np.array([1.0, 2.0]),), ref=lambda: np.array([2.0, 4.0])))


def star_args(*xs):
    return sum(x * x * k for k, x in enumerate(xs, 1))


add(G("r11_star_args_argnums", star_args, (1.0, 2.0, 3.0), argnums=(0, 2), ref=lambda: (2.0, 18.0)))


def kw_only(x, *, k=2.0):
    return x ** k


add(G("r11_keyword_only_argument", kw_only, (1.5,), kw={"k": 3.0}, ref=lambda: 3 * 1.5 ** 2))


def sum_start(xs):
    return sum(xs, 0.5) * sum((x * x for x in xs), start=1.0)


add(G("r11_sum_with_start", sum_start, ([1.0, 2.0],), ref="fd"))
