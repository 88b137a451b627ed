"""Round 11, part h: arguments as users pass them and edge values -- a list or tuple argument
normalised with np.asarray or rebuilt by a comprehension, dict arguments rebuilt, -0.0, inf,
nan, ties, empty arrays, float32, ints."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, agify, ag, fd_checked  # noqa: F401

CASES = []
add = CASES.append


# -- list / tuple / dict arguments rebound in the function ---------------------------------

def ridge_asarray(w, X=np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.3]]), y=np.array([1.0, 0.0, 2.0])):
    w = np.asarray(w, dtype=float)        # "accept lists too"
    r = X @ w - y
    return r @ r + 0.1 * w @ w


def ridge_ref(w):
    X = np.array([[1.0, 2.0], [0.5, -1.0], [2.0, 0.3]])
    y = np.array([1.0, 0.0, 2.0])
    w = np.asarray(w, dtype=float)
    return 2 * X.T @ (X @ w - y) + 0.2 * w


add(G("r11_asarray_list_argument", ridge_asarray, ([0.3, -0.2],), ref=lambda: list(ridge_ref([0.3, -0.2]))))
add(G("r11_asarray_tuple_argument", ridge_asarray, ((0.3, -0.2),), ref=lambda: tuple(ridge_ref([0.3, -0.2]))))
add(G("r11_asarray_array_argument", ridge_asarray, (np.array([0.3, -0.2]),), ref=lambda: ridge_ref([0.3, -0.2])))


def scale_weights(ws):
    ws = [w / sum(ws) for w in ws]          # normalise the mixture weights
    return -sum(w * math.log(w) for w in ws)


WS = [0.2, 0.5, 0.3]


def entropy_ref():
    return list(np.asarray(ag()[0].grad(lambda v: -ag()[1].sum((v / ag()[1].sum(v)) * ag()[1].log(v / ag()[1].sum(v))))(np.array(WS))))


add(G("r11_list_comprehension_rebinds_arg", scale_weights, (WS,), ref=entropy_ref))
add(JV("r11_list_comprehension_rebinds_arg_jvp", lambda a, b, c: scale_weights([a, b, c]), (0.2, 0.5, 0.3),
       (1.0, 0.0, 0.0), ref="fd"))


def jvp_list_arg():
    return revsrc.jvp(scale_weights, (WS,), ([1.0, 0.0, 0.0],))


def jvp_list_arg_ref():
    g = entropy_ref()
    return scale_weights(WS), g[0]


add(pair("r11_jvp_list_argument_rebound", jvp_list_arg, jvp_list_arg_ref))


def poly_features(coeffs, x=0.7):
    coeffs = list(coeffs) + [0.0]           # pad with a zero coefficient
    return sum(c * x ** k for k, c in enumerate(coeffs))


add(G("r11_list_concat_rebinds_tuple_arg", poly_features, ((1.0, -0.5, 2.0),), ref=lambda: (1.0, 0.7, 0.49)))


def poly_features_list(coeffs, x=0.7):
    coeffs = coeffs + [0.0]
    return sum(c * x ** k for k, c in enumerate(coeffs))


add(G("r11_list_plus_rebinds_list_arg", poly_features_list, ([1.0, -0.5, 2.0],), ref=lambda: [1.0, 0.7, 0.49]))


def reorder(pt):
    pt = (pt[1], pt[0])                      # same length, literal: works
    return pt[0] ** 2 * pt[1]


add(G("r11_tuple_literal_rebinds_arg", reorder, ((0.9, 0.1),), ref=lambda: (0.01, 0.18)))


def to_unit(v):
    n = math.sqrt(sum(c * c for c in v))
    return tuple(c / n for c in v)


def cosine_sim(a, b):
    a = to_unit(a)
    b = to_unit(b)
    return sum(x * y for x, y in zip(a, b))


def cosine_ref(a, b):
    a, b = np.array(a), np.array(b)
    na, nb = np.linalg.norm(a), np.linalg.norm(b)
    return tuple(b / (na * nb) - (a @ b) * a / (na ** 3 * nb))


add(G("r11_helper_tuple_rebinds_tuple_args", cosine_sim, ((1.0, 2.0, 0.5), (0.3, -0.1, 2.0)),
      ref=lambda: cosine_ref((1.0, 2.0, 0.5), (0.3, -0.1, 2.0))))


def params_scaled(p):
    p = {k: 2.0 * v for k, v in p.items()}
    return p["a"] * math.exp(p["b"])


add(G("r11_dict_comprehension_rebinds_arg", params_scaled, ({"a": 0.5, "b": 0.1},),
      ref=lambda: {"a": 2.0 * math.exp(0.2), "b": 2.0 * 1.0 * math.exp(0.2)}))


def params_defaults(p):
    q = {"a": 1.0, "b": 0.0}
    q.update(p)
    return q["a"] * math.exp(q["b"])


add(G("r11_dict_update_from_arg", params_defaults, ({"b": 0.1},), ref=lambda: {"b": math.exp(0.1)}))


def params_merge(p):
    p = {**{"a": 1.0}, **p}
    return p["a"] * math.exp(p["b"])


add(G("r11_dict_merge_double_star", params_merge, ({"b": 0.1},), ref=lambda: {"b": math.exp(0.1)}))


def params_merge_or(p):
    p = {"a": 1.0} | p
    return p["a"] * math.exp(p["b"])


add(G("r11_dict_merge_or_operator", params_merge_or, ({"b": 0.1},), ref=lambda: {"b": math.exp(0.1)}))


def layers_rebuilt(layers, x):
    layers = [(W * 1.0, b) for W, b in layers]
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x)


LAY = [(np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([0.0, 0.1])), (np.array([[1.0, 0.4], [-0.3, 0.2]]), np.array([0.2, -0.1]))]


def layers_plain(layers, x):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x)


add(pair("r11_list_of_tuples_arg_rebuilt", lambda: revsrc.grad(layers_rebuilt)(LAY, np.array([1.0, -1.0])),
         lambda: jax().grad(jaxify(layers_plain))(LAY, np.array([1.0, -1.0]))))
add(pair("r11_list_of_tuples_arg_plain", lambda: revsrc.grad(layers_plain)(LAY, np.array([1.0, -1.0])),
         lambda: jax().grad(jaxify(layers_plain))(LAY, np.array([1.0, -1.0]))))


def sorted_arg(xs):
    xs = sorted(xs)
    return xs[-1] - xs[0] + 0.1 * xs[1]


add(G("r11_sorted_rebinds_list_arg", sorted_arg, ([0.5, 0.2, 0.9],), ref=lambda: [0.1, -1.0, 1.0]))


# -- edge values ----------------------------------------------------------------------------

def softplus_stable(x):
    return max(x, 0.0) + math.log1p(math.exp(-abs(x)))


add(G("r11_softplus_stable_large", softplus_stable, (800.0,), ref=lambda: 1.0))
add(G("r11_softplus_stable_neg_large", softplus_stable, (-800.0,), ref=lambda: 0.0))
add(G("r11_softplus_stable_zero", softplus_stable, (0.0,), ref=lambda: 0.5))


def logaddexp_np(x):
    return np.sum(np.logaddexp(x, 0.0))


add(G("r11_logaddexp_extremes", logaddexp_np, (np.array([-1000.0, 0.0, 1000.0]),), ref=lambda: np.array([0.0, 0.5, 1.0])))


def atan2_neg_zero(y, x=-2.0):
    return math.atan2(y, x)


add(G("r11_atan2_negative_zero", atan2_neg_zero, (-0.0,), ref=lambda: -0.5))


def tail_prob(x):
    return 0.5 * math.erfc(x / math.sqrt(2.0))


add(G("r11_erfc_at_inf", tail_prob, (math.inf,), ref=lambda: -0.0))
add(G("r11_erfc_large", tail_prob, (30.0,), ref=lambda: -math.exp(-450.0) / math.sqrt(2 * math.pi)))


def sigmoid_inf(x):
    return 1.0 / (1.0 + math.exp(-x))


add(G("r11_sigmoid_at_inf", sigmoid_inf, (math.inf,), ref=lambda: 0.0))


def nan_unused(x, y):
    return x * 2.0 if y == y else x * 3.0


add(G("r11_nan_in_nondiff_arg_branch", nan_unused, (1.0, math.nan), ref=lambda: 3.0))


def max_ties(x):
    return np.max(x) + np.min(x)


add(G("r11_max_min_ties_split", max_ties, (np.array([2.0, 1.0, 2.0, 1.0]),), ref=lambda: np.array([0.5, 0.5, 0.5, 0.5])))


def builtin_max_ties(a, b, c):
    return max(a, b, c)


add(pair("r11_builtin_max_three_ties", lambda: revsrc.grad(builtin_max_ties, argnums=(0, 1, 2))(1.0, 1.0, 1.0),
         lambda: jax().grad(lambda a, b, c: jax().numpy.max(jax().numpy.stack([a, b, c])), argnums=(0, 1, 2))(1.0, 1.0, 1.0)))


add(G("r11_empty_array_argument", lambda x: np.sum(x ** 3) + 1.0, (np.zeros(0),), ref=lambda: np.zeros(0)))
add(G("r11_empty_rows_matrix", lambda W: np.sum(np.tanh(W @ np.ones(3))), (np.zeros((0, 3)),), ref=lambda: np.zeros((0, 3))))


def f32_loss(w, x):
    return np.sum((x @ w) ** 2)


W32 = np.array([0.5, -0.25], dtype=np.float32)
X32 = np.array([[1.0, 2.0], [3.0, 4.0]], dtype=np.float32)


def f32_check():
    g = revsrc.grad(f32_loss)(W32, X32)
    return [g, np.array(g.dtype == np.float32)]


def f32_ref():
    w, x = W32.astype(float), X32.astype(float)
    return [2 * x.T @ (x @ w), np.array(True)]


add(pair("r11_float32_gradient_dtype", f32_check, f32_ref, tol=1e-6))


def int_array_nondiff(w, idx):
    return np.sum(w[idx] ** 2) * idx.size


add(G("r11_int_index_argument", int_array_nondiff, (np.array([0.5, 1.5, -1.0]), np.array([2, 0, 2])),
      ref=lambda: np.array([2 * 0.5 * 3, 0.0, 2 * 2 * -1.0 * 3])))


def int_power(x, n):
    return x ** n + n * x


add(G("r11_int_exponent_argument", int_power, (1.5, 3), ref=lambda: 3 * 1.5 ** 2 + 3))
add(G("r11_negative_int_exponent", int_power, (1.5, -2), ref=lambda: -2 * 1.5 ** -3 - 2))


def bool_flag(x, use_log=True):
    return math.log(x) if use_log else x


add(G("r11_bool_flag_argument", bool_flag, (2.0, False), ref=lambda: 1.0))


def zero_weight(w, x):
    return np.sum(np.sqrt(w ** 2 + 1e-12) * x)


add(G("r11_sqrt_eps_at_zero", zero_weight, (np.array([0.0, -0.0, 1.0]), np.array([1.0, 2.0, 3.0])),
      ref=lambda: np.array([0.0, 0.0, 3.0])))


def huber_at_kink(r, d=1.0):
    a = abs(r)
    return 0.5 * r * r if a <= d else d * (a - 0.5 * d)


add(G("r11_huber_at_kink", huber_at_kink, (1.0,), ref=lambda: 1.0))
add(G("r11_huber_negative_kink", huber_at_kink, (-1.0,), ref=lambda: -1.0))


def clip_grad_norm(g, max_norm=1.0):
    n = np.linalg.norm(g)
    if n > max_norm:
        g = g * (max_norm / n)
    return np.sum(g * np.array([1.0, 2.0, 3.0]))


add(G("r11_clip_norm_at_zero", clip_grad_norm, (np.zeros(3),), ref=lambda: np.array([1.0, 2.0, 3.0])))
add(G("r11_clip_norm_active", clip_grad_norm, (np.array([3.0, 0.0, 4.0]),), ref="fd"))


def cumulative_logsumexp(x):
    out = np.logaddexp.accumulate(x)
    return out[-1] + 0.5 * out[1]


add(G("r11_logaddexp_accumulate", cumulative_logsumexp, (np.array([0.1, -0.5, 2.0]),), ref="fd"))


def int_loop_bound(x, n):
    s = 0.0
    for k in range(n):
        s += x ** k / math.factorial(k)
    return s


add(G("r11_zero_trip_loop", int_loop_bound, (1.5, 0), ref=lambda: 0.0))
add(G("r11_one_trip_loop", int_loop_bound, (1.5, 1), ref=lambda: 0.0))
