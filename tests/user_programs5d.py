"""User programs, corpus 5d: control flow, generators, comprehensions, itertools."""
import itertools
import math

import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- views (continued)

def iadd_broadcast_view(x):
    y = np.ones((3, 2))
    y[:, 1] += x
    row = y[1]
    row *= x[0]
    return np.sum(y ** 2)


add("iadd_column_then_row_view", iadd_broadcast_view, (np.array([0.5, 1.0, 1.5]),))


def sorted_write(x):
    y = np.sort(x)
    y[0] = y[-1] * 2
    return np.sum(y * np.arange(1.0, 4.0))


add("sort_then_write", sorted_write, (np.array([3.0, 1.0, 2.0]),))


# ---- control flow ---------------------------------------------------------------------

def bisection(a):
    lo, hi = 0.0, max(a, 1.0)
    while hi - lo > 1e-13:
        mid = 0.5 * (lo + hi)
        if mid * mid > a:
            hi = mid
        else:
            lo = mid
    return lo * a


# AD differentiates the program: lo is a constant multiple of a, so d(lo * a)/da = 2 lo
# (JAX gives the same); central differences would see the square root's 1.5 sqrt(a).
add("bisection_while", bisection, (2.0,), ref=lambda: [2.0 * bisection(2.0) / 2.0])


def newton_break(a):
    x = a
    for i in range(100):
        dx = (x * x * x - a) / (3 * x * x)
        x = x - dx
        if abs(dx) < 1e-14:
            break
    return x


add("newton_cuberoot_break", newton_break, (5.0,))


def early_return_loop(x):
    s = 0.0
    for k in range(10):
        s = s + x ** k / math.factorial(k)
        if s > 3.0:
            return s * 2.0
    return s


add("early_return_inside_loop", early_return_loop, (1.1,))


def nested_break_continue(x):
    acc = 0.0
    for i in range(4):
        if i == 1:
            continue
        for j in range(4):
            if j > i:
                break
            acc = acc + x ** (i + j) * (1 if (i + j) % 2 else -1)
    return acc


add("nested_break_continue", nested_break_continue, (1.3,))


def while_true_break(x):
    n = 0
    y = x
    while True:
        y = math.sin(y) + 0.5 * x
        n += 1
        if n >= 7:
            break
    return y


add("while_true_break", while_true_break, (0.4,))


def legendre(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


add("recursion_int_constant", lambda x: legendre(5, x), (0.3,))


def fact_rec(x, n):
    if n <= 0:
        return 1.0
    return x * fact_rec(x, n - 1)


add("recursion_runtime_int", fact_rec, (1.1, 4))


def ternary_chain(x):
    return x * x if x > 1 else (math.exp(x) if x > 0 else -x)


add("conditional_expression_chain", ternary_chain, (0.5,))


def chained_compare(x):
    return x * 3.0 if 0.0 < x < 1.0 <= 1.0 else x


add("chained_comparison", chained_compare, (0.5,))


def try_except_path(x):
    try:
        v = math.log(x)
    except ValueError:
        v = -x * x
    return v * 2.0


add("try_except_taken_path", try_except_path, (-0.5,))
add("try_except_not_taken", try_except_path, (0.5,))


def try_zero_div(x, d):
    try:
        r = x / d
    except ZeroDivisionError:
        r = x * 1e3
    return r * x


add("try_zerodivision", try_zero_div, (0.7, 0.0))


def assert_guard(x):
    assert x > 0, f"bad {x}"
    return math.sqrt(x)


add("assert_fstring", assert_guard, (2.0,))


def walrus(x):
    if (y := x * x) > 1.0:
        return y
    return x


add("walrus", walrus, (2.0,))


def for_else(x):
    for i in range(3):
        if x > 10:
            break
    else:
        x = x * 2.0
    return x * x


add("for_else", for_else, (1.5,))


def match_stmt(x, mode):
    match mode:
        case "sq":
            return x * x
        case _:
            return x


add("match_statement", match_stmt, (1.5, "sq"))


def gen_helper(x, n):
    for k in range(n):
        yield x ** k


def uses_generator_fn(x):
    return sum(gen_helper(x, 4))


add("generator_function_called", uses_generator_fn, (1.5,))


def genexpr_zip(ws, xs):
    return sum(w * x for w, x in zip(ws, xs) if x > 0)


add("genexpr_zip_filter", genexpr_zip, (np.array([1.0, 2.0, 3.0]), np.array([1.0, -2.0, 3.0])))


def itertools_product(x):
    s = 0.0
    for i, j in itertools.product(range(2), range(3)):
        s = s + x[i] * x[j] * (i + 1)
    return s


add("itertools_product", itertools_product, (np.array([0.5, -1.0, 2.0]),))


def itertools_accumulate(x):
    return sum(itertools.accumulate([x, x * x, 2.0 * x]))


add("itertools_accumulate", itertools_accumulate, (0.9,))


def itertools_pairwise(xs):
    return sum((b - a) ** 2 for a, b in itertools.pairwise(xs))


add("itertools_pairwise_array", itertools_pairwise, (np.array([0.1, 0.5, 0.3, 1.2]),))


def itertools_chain(x):
    return sum(v * v for v in itertools.chain([x, 2 * x], (3 * x,)))


add("itertools_chain", itertools_chain, (0.4,))


def dict_comprehension(x):
    d = {f"k{i}": x * i for i in range(4)}
    return sum(v ** 2 for k, v in d.items() if k != "k2")


add("dict_comprehension_fstring_keys", dict_comprehension, (1.1,))


def nested_listcomp(A):
    rows = [[A[i, j] * (i - j) for j in range(A.shape[1])] for i in range(A.shape[0])]
    return sum(sum(r) for r in rows) + max(max(r) for r in rows)


add("nested_listcomp_max", nested_listcomp, (np.array([[1.0, 2.0, 0.5], [3.0, -1.0, 4.0]]),))


def enumerate_reversed(xs):
    acc = 0.0
    for i, v in enumerate(reversed(xs)):
        acc = acc * 0.5 + v * (i + 1)
    return acc


add("enumerate_reversed", enumerate_reversed, (np.array([1.0, 2.0, 3.0]),))


def star_unpack(x):
    first, *mid, last = [x, x * 2, x * 3, x * 4]
    return first * last + sum(mid)


add("star_unpacking", star_unpack, (0.6,))


def list_sort_key(x):
    vals = [x * x, -x, x + 1.0]
    vals.sort()
    return vals[0] * 3.0 + vals[-1]


add("list_sort_inplace", list_sort_key, (0.5,))


def sorted_key_lambda(xs):
    pairs = [(abs(v), v) for v in xs]
    best = sorted(pairs, key=lambda p: p[0])
    return best[0][1] * best[-1][1]


add("sorted_key_lambda", sorted_key_lambda, (np.array([0.5, -2.0, 1.0]),))


def min_max_key(xs):
    return max(xs, key=abs) * min(xs)


add("max_key_abs", min_max_key, (np.array([0.5, -2.0, 1.0]),))
