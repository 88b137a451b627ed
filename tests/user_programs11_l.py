"""Round 11, part l: closures, partials and containers built in loops (late binding, default
capture, partials of nested functions, dicts with computed keys, list methods), and
integer-heavy scalar programs under revsrc.jit (the digits and types of plain Python)."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked  # noqa: F401

CASES = []
add = CASES.append


# -- closures and partials -------------------------------------------------------------------

def late_binding(x):
    fs = [lambda v: v * k for k in range(3)]      # every lambda sees k == 2
    return sum(f(x) for f in fs)


add(G("r11_lambdas_late_binding", late_binding, (1.5,), ref=lambda: 6.0))


def default_capture(x):
    fs = [lambda v, k=k: v * k for k in range(3)]
    return sum(f(x) for f in fs)


add(G("r11_lambdas_default_capture", default_capture, (1.5,), ref=lambda: 3.0))


def power(v, k):
    return v ** k


def partial_module_fn(x):
    fs = [functools.partial(power, k=k) for k in range(1, 4)]
    return sum(f(x) for f in fs)


add(G("r11_partials_of_module_function", partial_module_fn, (1.5,), ref=lambda: 1 + 2 * 1.5 + 3 * 1.5 ** 2))


def partial_nested_fn(x):
    def h(v, k):
        return v ** k
    fs = [functools.partial(h, k=k) for k in range(1, 4)]
    return sum(f(x) for f in fs)


add(G("r11_partials_of_nested_function", partial_nested_fn, (1.5,), ref=lambda: 1 + 2 * 1.5 + 3 * 1.5 ** 2))


def one_partial_nested(x, scale=3.0):
    def h(v, k):
        return scale * v ** k
    sq = functools.partial(h, k=2)
    return sq(x) + sq(2 * x)


add(G("r11_single_partial_of_nested_function", one_partial_nested, (1.5,), ref=lambda: 3.0 * (2 * 1.5 + 8 * 1.5)))


def closure_push(x):
    acc = []

    def push(v):
        acc.append(v * v)

    for k in range(3):
        push(x + k)
    return sum(acc)


add(G("r11_closure_appends_to_list", closure_push, (1.5,), ref=lambda: 2 * (1.5 + 2.5 + 3.5)))


def closure_dict_state(x):
    state = {"acc": 0.0}

    def add_(v):
        state["acc"] = state["acc"] + v

    add_(x)
    add_(x * x)
    return state["acc"]


add(G("r11_closure_writes_enclosing_dict", closure_dict_state, (1.5,), ref=lambda: 4.0))


def generator_twice(x):
    g = (x * k for k in range(3))
    return sum(g) + sum(g)


add(G("r11_generator_read_twice", generator_twice, (1.5,), ref=lambda: 3.0))


# -- dicts and lists built in loops ----------------------------------------------------------

def layer_registry(x):
    d = {}
    for name in ("enc", "dec"):
        d[name + "_w"] = x * len(name) + 1.0
        d[name + "_b"] = x * x
    return d["enc_w"] * d["dec_b"] + d["dec_w"]


add(G("r11_dict_computed_string_keys_loop", layer_registry, (1.5,), ref=lambda: 3.0 * 1.5 ** 2 + (3 * 1.5 + 1) * 3.0 + 3.0))


def fstring_keys(x):
    d = {}
    for i in range(3):
        d[f"h{i}"] = x ** (i + 1)
    return d["h0"] + d["h2"]


add(G("r11_dict_fstring_keys_loop", fstring_keys, (1.5,), ref=lambda: 1 + 3 * 1.5 ** 2))


def int_keys(x):
    d = {}
    for k in range(3):
        d[k] = x * k
    return d[2] * d[1]


add(G("r11_dict_int_keys_loop", int_keys, (1.5,), ref=lambda: 4 * 1.5))


def list_methods(x):
    xs = [3.0 * x, 1.0, 2.0 * x]
    xs.sort()
    return xs[0] + 10 * xs[2]


add(G("r11_list_sort_method", list_methods, (1.0,), ref=lambda: 30.0))


def list_slice_set(x):
    xs = [0.0] * 4
    xs[1:3] = [x, x * x]
    xs[-1] = xs[-2] * xs[-3]
    return sum(xs)


add(G("r11_list_slice_and_negative_index_set", list_slice_set, (1.5,), ref=lambda: 1 + 2 * 1.5 + 3 * 1.5 ** 2))


def tuple_key_comp(x):
    d = {(i, j): x * (i + 1) * (j + 2) for i in range(2) for j in range(2)}
    return sum(v for (i, j), v in d.items() if i != j)


add(G("r11_dict_tuple_keys_comprehension", tuple_key_comp, (1.5,), ref=lambda: 3.0 + 4.0))


# -- integer-heavy scalar programs under jit --------------------------------------------------

def collatz_len(n):
    s = 0
    while n != 1:
        n = n // 2 if n % 2 == 0 else 3 * n + 1
        s += 1
    return s


add(pair("r11_jit_collatz", lambda: [revsrc.jit(collatz_len)(n) for n in (27, 97, 871)],
         lambda: [collatz_len(n) for n in (27, 97, 871)], tol=0.0))


def factorial_big(n):
    r = 1
    for k in range(2, n + 1):
        r *= k
    return r


add(pair("r11_jit_factorial_past_int64",
         lambda: float(all(repr(revsrc.jit(factorial_big)(n)) == repr(factorial_big(n)) for n in (20, 21, 25))),
         lambda: 1.0, tol=0.0))


def euclid(a, b):
    while b:
        a, b = b, a % b
    return a


add(pair("r11_jit_gcd_negative", lambda: [revsrc.jit(euclid)(a, b) for a, b in ((1071, 462), (-1071, 462), (17, -5))],
         lambda: [euclid(a, b) for a, b in ((1071, 462), (-1071, 462), (17, -5))], tol=0.0))


def rounding_zoo(x):
    return int(x), round(x), round(x, 1), math.floor(x), math.ceil(x), x // 1.0, x % 1.0


def jit_rounding():
    return [revsrc.jit(rounding_zoo)(v) for v in (-2.7, 2.5, -0.5, 0.25, 2.675, -0.0)]


def jit_rounding_ref():
    return [rounding_zoo(v) for v in (-2.7, 2.5, -0.5, 0.25, 2.675, -0.0)]


add(pair("r11_jit_rounding_semantics", jit_rounding, jit_rounding_ref, tol=0.0))


def types_of(v):
    return [type(t).__name__ for t in v]


add(pair("r11_jit_result_types_match", lambda: float(all(types_of(a) == types_of(b) for a, b in zip(jit_rounding(), jit_rounding_ref()))),
         lambda: 1.0, tol=0.0))


def mixed_minmax(a, b):
    return max(a, b), min(a, b), abs(a - b)


add(pair("r11_jit_max_int_float", lambda: [repr(revsrc.jit(mixed_minmax)(a, b)) == repr(mixed_minmax(a, b))
                                           for a, b in ((7, 2.5), (2.0, 2), (2, 2.0), (-0.0, 0.0))],
         lambda: [True] * 4, tol=0.0))


def digits_sum(n):
    s = 0
    while n > 0:
        s += n % 10
        n //= 10
    return s


add(pair("r11_vmap_int_digit_sums", lambda: revsrc.vmap(digits_sum)(np.array([0, 9, 1234, 99999, 10 ** 12])),
         lambda: np.array([digits_sum(int(n)) for n in (0, 9, 1234, 99999, 10 ** 12)]), tol=0.0))


def binomial_prob(p, n=12, k=5):
    return math.comb(n, k) * p ** k * (1 - p) ** (n - k)


add(G("r11_math_comb_constant", binomial_prob, (0.3,),
      ref=lambda: math.comb(12, 5) * (5 * 0.3 ** 4 * 0.7 ** 7 - 7 * 0.3 ** 5 * 0.7 ** 6)))
add(pair("r11_jit_grad_binomial", lambda: revsrc.jit(revsrc.grad(binomial_prob))(0.3),
         lambda: math.comb(12, 5) * (5 * 0.3 ** 4 * 0.7 ** 7 - 7 * 0.3 ** 5 * 0.7 ** 6), tol=1e-12))
