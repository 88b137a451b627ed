"""Round 8 user programs, batch n: Python's own conversions and builtins on values that
are differentiated (float() of a 0-d array, .item(), round/int in index computations,
len/np.shape, divmod, pow with three types), preallocated history arrays under
memory=, np.copyto into a local, and programs mixing several of round 8's features,
checked against closed forms, JAX x64 or self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(93)
XQ = rng.normal(size=5)


def float_of_sum(x):
    s = float(np.sum(x ** 2))
    m = np.max(x).item()
    return s * m


add(G("r8_float_of_0d_and_item", float_of_sum, (XQ,)))


def round_index(x, t):
    i = int(round(t * (len(x) - 1)))
    return x[i] * t + x[min(i + 1, len(x) - 1)]


add(G("r8_round_int_index_from_value", round_index, (XQ, 0.37), argnums=(0, 1)))


def divmod_time(t):
    q, r = divmod(t, 1.0)
    return r ** 2 + q * t


add(G("r8_divmod_float", divmod_time, (2.3,)))


def pow_builtin(x, y):
    return pow(x, y) + pow(abs(x), 0.5) + x ** -2


add(G("r8_builtin_pow_and_negative_power", pow_builtin, (1.7, 2.3), argnums=(0, 1)))


def history_array(x0, a, n):
    hist = np.zeros(n)
    x = x0
    for i in range(n):
        x = a * x + math.sin(x)
        hist[i] = x
    return np.sum(hist ** 2) / n


add(G("r8_history_prealloc_item_write_memory", history_array, (0.3, 0.6, 300), argnums=(0, 1), memory=512))
add(pair("r8_history_prealloc_same_with_and_without_memory",
         lambda: revsrc.grad(history_array, argnums=(0, 1), memory=512)(0.3, 0.6, 300),
         lambda: revsrc.grad(history_array, argnums=(0, 1))(0.3, 0.6, 300), tol=0.0))


def copyto_local(x):
    buf = np.empty(5)
    np.copyto(buf, x * 2)
    buf[2] = 0.0
    return np.sum(buf * x)


add(G("r8_copyto_into_local_then_item", copyto_local, (XQ,)))


def shapes_and_len(X):
    n, d = np.shape(X)
    return np.sum(X) / (n * d) + len(X) * X[0, 0] + X.size * X[-1, -1]


add(G("r8_np_shape_len_size", shapes_and_len, (rng.normal(size=(3, 4)),)))


class Normalizer:
    def __init__(self, X):
        self.mu = X.mean(0)
        self.sd = X.std(0) + 1e-8

    def __call__(self, X):
        return (X - self.mu) / self.sd


XT = rng.normal(size=(10, 3)) * np.array([1.0, 5.0, 0.1]) + 2
NORM = Normalizer(XT)


def normalized_ridge(w, X, y, lam):
    Z = NORM(X)
    r = Z @ w - y
    return r @ r / len(y) + lam * w @ w


add(G("r8_callable_object_normalizer_then_ridge", normalized_ridge, (np.array([0.1, 0.2, 0.3]), XT, rng.normal(size=10), 0.1), argnums=(0, 3)))


def piecewise_linear_activation(x, knots, slopes):
    y = np.zeros_like(x)
    for k, s in zip(knots, slopes):
        y = y + s * np.maximum(x - k, 0.0)
    return np.sum(y ** 2)


add(G("r8_zip_knots_slopes_relu_sum", piecewise_linear_activation, (XQ, np.array([-1.0, 0.0, 1.0]), np.array([0.5, -1.0, 2.0])), argnums=(0, 2)))


def gd_with_line_search(x0, A, b):
    x = x0.copy()
    f = lambda v: 0.5 * v @ A @ v - b @ v  # noqa: E731
    for _ in range(5):
        g = A @ x - b
        t = 1.0
        while f(x - t * g) > f(x) - 0.5 * t * (g @ g):
            t *= 0.5
        x = x - t * g
    return f(x)


AL = np.array([[3.0, 0.5], [0.5, 1.0]])
add(G("r8_gd_armijo_backtracking_lambda", gd_with_line_search, (np.array([2.0, -1.0]), AL, np.array([1.0, 0.5])), argnums=(0, 2)))


def bilinear_image_warp(img, shift):
    H, W = img.shape
    out = 0.0
    for i in range(H - 1):
        for j in range(W - 1):
            y, x = i + shift[0], j + shift[1]
            i0, j0 = int(math.floor(y)), int(math.floor(x))
            if 0 <= i0 < H - 1 and 0 <= j0 < W - 1:
                dy, dx = y - i0, x - j0
                v = (img[i0, j0] * (1 - dy) * (1 - dx) + img[i0 + 1, j0] * dy * (1 - dx)
                     + img[i0, j0 + 1] * (1 - dy) * dx + img[i0 + 1, j0 + 1] * dy * dx)
                out += (v - img[i, j]) ** 2
    return out


IM = rng.random(size=(5, 5))
add(G("r8_bilinear_warp_floor_int_indices", bilinear_image_warp, (IM, np.array([0.3, 0.6])), argnums=(0, 1)))


def dict_of_lists_state(x):
    state = {"pos": [0.0, 0.0], "vel": [x, 1.0]}
    for _ in range(10):
        p = [state["pos"][k] + 0.1 * state["vel"][k] for k in range(2)]
        v = [state["vel"][0] * 0.99, state["vel"][1] - 0.098]
        state = {"pos": p, "vel": v}
    return state["pos"][0] * state["pos"][1]


add(G("r8_dict_of_lists_state_rebuilt", dict_of_lists_state, (1.3,)))


def tuple_return_unpack_helper(x):
    def stats(v):
        return np.mean(v), np.var(v), v.max()
    m, v, mx = stats(x)
    _, v2, _ = stats(x ** 2)
    return m * v + mx - v2


add(G("r8_helper_returns_tuple_discarded_parts", tuple_return_unpack_helper, (XQ,), ref="jax"))


def dict_rebuilt_with_comprehension_list(x):
    s = {"pos": [0.0]}
    for _ in range(3):
        p = [s["pos"][k] + x for k in range(1)]
        s = {"pos": p}
    return s["pos"][0]


add(pair("r8_dict_rebuilt_from_comprehension_list_in_loop", lambda: revsrc.grad(dict_rebuilt_with_comprehension_list)(1.3),
         lambda: 3.0, tol=1e-12))


def list_of_lists_rebuilt(x):
    s = [[0.0, 1.0]]
    for _ in range(3):
        row = [s[0][k] * x + 1.0 for k in range(2)]
        s = [row]
    return s[0][0] + s[0][1]


add(G("r8_list_of_comprehension_rows_rebuilt", list_of_lists_rebuilt, (0.7,)))


def tuple_state_comprehension(x):
    s = ([0.0, 0.0], 1.0)
    for _ in range(4):
        nxt = [v + x * s[1] for v in s[0]]
        s = (nxt, s[1] * 0.5)
    return sum(s[0])


add(G("r8_tuple_state_with_comprehension_list", tuple_state_comprehension, (0.7,)))


def dict_state_np_arrays(x):
    s = {"a": np.zeros(2), "b": x}
    for _ in range(4):
        a = s["a"] + s["b"]
        s = {"a": a, "b": s["b"] * 0.5}
    return np.sum(s["a"])


add(G("r8_dict_state_arrays_rebuilt", dict_state_np_arrays, (0.7,)))
