"""Round 10, smooth functions assembled from non-smooth pieces, evaluated exactly at
the pieces' kinks, as piecewise models in engineering and ML are: clip-sum identities,
np.max/np.min of [x, 0] pairs, np.fmax/np.fmin, a Huber loss written with np.minimum, a
smooth-step made of clipped pieces, a piecewise-linear tax that is continuous with equal
slopes at a bracket, ReLU networks at an exact zero pre-activation; each against the
function's true derivative (it exists at these points), checked by central differences
and autograd."""
import numpy as np

from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def clip_chain(x):
    # clip(x, 0, 1) + clip(x, 1, 2) == clip(x, 0, 2): slope 1 at x = 1
    return np.sum(np.clip(x, 0.0, 1.0) + np.clip(x, 1.0, 2.0))


CASES.append(G("r10_clip_chain_at_shared_bound", clip_chain, (np.array([1.0, 0.5, 1.5]),), ref=lambda: np.ones(3)))


def max_min_of_pairs(x):
    return np.max(np.array([x, 0.0])) + np.min(np.array([x, 0.0]))


CASES.append(G("r10_np_max_min_of_pair_at_tie", max_min_of_pairs, (0.0,), ref=lambda: 1.0))


def fmax_fmin(x):
    return np.sum(np.fmax(x, 0.0) + np.fmin(x, 0.0))


CASES.append(G("r10_fmax_fmin_identity_at_zero", fmax_fmin, (np.array([0.0, -1.0, 2.0]),), ref=lambda: np.ones(3)))


def huber_min(r, d=1.0):
    a = np.abs(r)
    m = np.minimum(a, d)
    return np.sum(0.5 * m * m + d * (a - m))


CASES.append(G("r10_huber_by_minimum_at_threshold", huber_min, (np.array([1.0, -1.0, 0.3, 2.0]),),
               ref=lambda: np.array([1.0, -1.0, 0.3, 1.0])))


def smoothstep_pieces(x):
    # 3t^2 - 2t^3 on [0, 1] via clip: C1 everywhere, slope 0 at both ends
    t = np.clip(x, 0.0, 1.0)
    return np.sum(3 * t * t - 2 * t ** 3)


CASES.append(G("r10_smoothstep_clip_at_ends", smoothstep_pieces, (np.array([0.0, 1.0, 0.5]),),
               ref=lambda: np.array([0.0, 0.0, 1.5])))


def continuous_tax(income):
    # equal marginal rates on both sides of 40 (0.3): the bracket is only a bookkeeping split
    lo = np.minimum(income, 40.0)
    hi = np.maximum(income - 40.0, 0.0)
    return np.sum(0.3 * lo + 0.3 * hi)


CASES.append(G("r10_tax_bracket_equal_rates_at_edge", continuous_tax, (np.array([40.0, 10.0, 70.0]),),
               ref=lambda: np.full(3, 0.3)))


def relu_net_exact_zero(W1, x):
    h = np.maximum(W1 @ x, 0.0)
    # the second layer reads h and -h: relu(z) - relu(-z) = z, so the net is linear
    h2 = h - np.maximum(-(W1 @ x), 0.0)
    return np.sum(h2)


W1 = np.array([[1.0, -1.0], [0.5, 0.5]])
XX = np.array([1.0, 1.0])
CASES.append(G("r10_relu_pair_exact_zero_preactivation", relu_net_exact_zero, (W1, XX), ref=lambda: np.ones((2, 2))))


def abs_via_sqrt_eps(x):
    return np.sum(np.sqrt(x * x + 1e-12))


CASES.append(G("r10_smooth_abs_at_zero", abs_via_sqrt_eps, (np.array([0.0, 1.0]),), ref=lambda: np.array([0.0, 1.0 / np.sqrt(1 + 1e-12)])))


def python_max_identity(x):
    # Python's max/min return one of their arguments; the sum is x + 0 either way
    return max(x, 0.0) + min(x, 0.0)


CASES.append(G("r10_builtin_max_min_identity_near_zero", python_max_identity, (1e-3,), ref=lambda: 1.0))


def where_tie(x):
    return np.sum(np.where(x >= 0, x, 0.0) + np.where(x < 0, x, 0.0))


CASES.append(G("r10_where_split_identity_at_zero", where_tie, (np.array([0.0, -1.0]),), ref=lambda: np.ones(2)))


def range_plus_floor(v):
    # max + min of two entries is their sum, ties or not
    return np.max(v[:2]) + np.min(v[:2]) + v[2]


CASES.append(G("r10_max_plus_min_of_tied_pair", range_plus_floor, (np.array([1.0, 1.0, 0.5]),),
               ref=lambda: np.ones(3)))


def builtin_max_min_list(a, b):
    return max([a, b]) + min([a, b])


CASES.append(G("r10_builtin_max_plus_min_tied", builtin_max_min_list, (0.7, 0.7), argnums=(0, 1), ref=lambda: (1.0, 1.0)))


def amax_axis_ties(M):
    return np.sum(np.max(M, axis=1) + np.min(M, axis=1))


MT = np.array([[2.0, 2.0], [1.0, 3.0]])
CASES.append(G("r10_max_min_axis_row_tie", amax_axis_ties, (MT,), ref=lambda: np.ones((2, 2))))


def relu_identity_jax_backend():
    import revsrc
    f = lambda x: np.sum(np.maximum(x, 0.0) - np.maximum(-x, 0.0))  # noqa: E731
    return revsrc.grad(f, backend="jax")(np.array([0.0, 1.5, -2.0]))


CASES.append(pair("r10_relu_identity_at_zero_jax_backend", relu_identity_jax_backend, lambda: np.ones(3), tol=1e-12))


def clip_chain_jax_backend():
    import revsrc
    return revsrc.grad(clip_chain, backend="jax")(np.array([1.0, 0.5, 1.5]))


CASES.append(pair("r10_clip_chain_at_shared_bound_jax_backend", clip_chain_jax_backend, lambda: np.ones(3), tol=1e-12))


def scalar_relu_pair(x):
    return float(np.maximum(x, 0.0) - np.maximum(-x, 0.0))


def scalar_relu_engine():
    import revsrc
    return revsrc.grad(scalar_relu_pair, backend="engine")(0.0)


CASES.append(pair("r10_scalar_np_maximum_identity_engine", scalar_relu_engine, lambda: 1.0, tol=1e-12))


def relu_pair_scalar(x):
    return np.maximum(x, 0.0) - np.maximum(-x, 0.0)


# forward mode at the tie: the tangent of x (an identity) is 1
CASES.append(JV("r10_jvp_relu_identity_at_zero", relu_pair_scalar, (0.0,), (1.0,), ref=lambda: (0.0, 1.0)))


def clip_chain_scalar(x):
    return np.clip(x, 0.0, 1.0) + np.clip(x, 1.0, 2.0)


CASES.append(JV("r10_jvp_clip_chain_at_bound", clip_chain_scalar, (1.0,), (1.0,), ref=lambda: (2.0, 1.0)))


def smooth_through_relu_sq(x):
    # relu(x)^2 - relu(-x)^2 == x |x|: derivative 2|x| = 0 at 0, second derivative undefined
    return np.maximum(x, 0.0) ** 2 + np.maximum(-x, 0.0) ** 2


CASES.append(G("r10_relu_squares_sum_at_zero", smooth_through_relu_sq, (0.0,), ref=lambda: 0.0))


def max_plus_min_two_args(x, y):
    # np.maximum(x, y) + np.minimum(x, y) == x + y, ties included
    return np.sum(np.maximum(x, y) + np.minimum(x, y))


CASES.append(G("r10_maximum_plus_minimum_both_args_tied", max_plus_min_two_args,
               (np.array([0.5, 1.0]), np.array([0.5, -1.0])), argnums=(0, 1), ref=lambda: (np.ones(2), np.ones(2))))
