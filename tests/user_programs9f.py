"""Round 9, Python style variety (1): generators and generator expressions, itertools
(accumulate, product, pairwise, islice), enumerate/zip/reversed, recursion on ints,
while/else and for/else, try/except around math domain errors, sorted/min with keys,
conditional expressions, chained comparisons, star-unpacking."""
import functools
import itertools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def gen_terms(x, n):
    for k in range(n):
        yield x ** k / math.factorial(k)


def exp_by_generator_fn(x):
    return sum(gen_terms(x, 15))


CASES.append(G("r9_user_generator_function_sum", exp_by_generator_fn, (0.8,), ref=lambda: math.exp(0.8), tol=1e-9))


def genexpr_sum(x):
    return sum(math.sin(k * x) / k for k in range(1, 20))


CASES.append(G("r9_generator_expression_fourier", genexpr_sum, (0.7,), ref="jax"))


def accumulate_max(x):
    vals = [math.sin(x * k) for k in range(1, 8)]
    runs = list(itertools.accumulate(vals))
    return runs[-1] + runs[3]


CASES.append(G("r9_itertools_accumulate_sum", accumulate_max, (0.4,), ref="ag"))


def accumulate_product_mul(x):
    facs = [1.0 + x / k for k in range(1, 6)]
    return list(itertools.accumulate(facs, lambda a, b: a * b))[-1]


CASES.append(G("r9_itertools_accumulate_lambda_product", accumulate_product_mul, (0.3,), ref="ag"))


def grid_energy(w):
    e = 0.0
    for i, j in itertools.product(range(3), range(3)):
        e += w[i] * w[j] * math.exp(-abs(i - j))
    return e


CASES.append(G("r9_itertools_product_double_loop", grid_energy, (np.array([0.3, -0.5, 1.1]),), ref="jax"))


def islice_series(x):
    terms = (x ** k / (k + 1) for k in itertools.count())
    return sum(itertools.islice(terms, 12))


CASES.append(G("r9_itertools_count_islice", islice_series, (0.5,), ref="ag"))


def reversed_recurrence(x):
    coeffs = [1.0, 2.0, -1.0, 0.5]
    y = 0.0
    for i, c in reversed(list(enumerate(coeffs))):
        y = y * x + c * (i + 1)
    return y


CASES.append(G("r9_reversed_enumerate_list", reversed_recurrence, (1.3,), ref="jax"))


def zip_three(a, b):
    ws = [0.5, 1.5, 2.5]
    return sum(w * u * v for w, u, v in zip(ws, a, b))


CASES.append(G("r9_zip_three_iterables", zip_three, (np.array([1.0, 2.0, 3.0]), np.array([0.1, 0.2, 0.3])),
               argnums=(0, 1), ref="jax"))


def power_rec(x, n):
    if n == 0:
        return 1.0
    if n % 2 == 0:
        h = power_rec(x, n // 2)
        return h * h
    return x * power_rec(x, n - 1)


CASES.append(G("r9_recursion_fast_power_int", power_rec, (1.1, 13), ref=lambda: 13 * 1.1 ** 12, tol=1e-10))


def fib_poly(x, n=8):
    if n <= 1:
        return x if n == 1 else 1.0
    return fib_poly(x, n - 1) + x * fib_poly(x, n - 2)


CASES.append(G("r9_recursion_default_int_tree", fib_poly, (0.6,), ref="jax"))


def newton_while_else(a):
    x = 1.0
    it = 0
    while it < 60:
        nx = x - (x ** 3 - a) / (3 * x * x)
        if abs(nx - x) < 1e-15:
            x = nx
            break
        x = nx
        it += 1
    else:
        x = float("nan")
    return x


CASES.append(G("r9_while_else_convergence_flag", newton_while_else, (2.0,),
               ref=lambda: (1 / 3) * 2.0 ** (-2 / 3), tol=1e-8))


def first_positive_for_else(x):
    for k in range(1, 10):
        if math.sin(k * x) < 0:
            val = k * x
            break
    else:
        val = 0.0
    return val * val


CASES.append(G("r9_for_else_search", first_positive_for_else, (1.0,), ref="ag"))


def safe_log_try(x):
    total = 0.0
    for v in [x, x - 2.0, 2 * x]:
        try:
            total += math.log(v)
        except ValueError:
            total += 0.0
    return total


CASES.append(G("r9_try_except_math_domain", safe_log_try, (1.5,), ref=lambda: 1 / 1.5 + 1 / 1.5, tol=1e-12))


def safe_sqrt_try(x):
    try:
        return math.sqrt(x - 1.0)
    except ValueError:
        return -math.sqrt(1.0 - x)


CASES.append(G("r9_try_except_branch_taken", safe_sqrt_try, (0.5,), ref=lambda: 0.5 / math.sqrt(0.5), tol=1e-12))


def zero_div_guard(x):
    try:
        r = 1.0 / (x - x)
    except ZeroDivisionError:
        r = x * 3.0
    return r


CASES.append(G("r9_try_except_zero_division", zero_div_guard, (2.0,), ref=lambda: 3.0, tol=1e-12))


def sort_by_key(x):
    pts = [(math.cos(x * k), k) for k in range(5)]
    pts = sorted(pts, key=lambda p: p[0])
    return pts[0][0] * 2 + pts[-1][0]


CASES.append(G("r9_sorted_with_key_lambda", sort_by_key, (0.9,), ref="ag"))


def min_key(x):
    cands = [x * x - 1.0, math.sin(x), 0.3 * x]
    return min(cands, key=abs)


CASES.append(G("r9_min_with_key_abs", min_key, (0.8,), ref="ag"))


def chained_compare(x):
    if 0.0 < x < 1.0:
        return x ** 3
    elif 1.0 <= x <= 2.0:
        return 2 * x - 1
    return 3.0


CASES.append(G("r9_chained_comparison_piecewise", chained_compare, (0.5,), ref=lambda: 0.75, tol=1e-12))
CASES.append(G("r9_chained_comparison_piecewise_mid", chained_compare, (1.5,), ref=lambda: 2.0, tol=1e-12))


def star_unpack(v):
    first, *middle, last = [v[0] * 2, v[1], v[2] * v[1], v[3]]
    return first * last + sum(middle)


CASES.append(G("r9_star_unpacking_middle", star_unpack, (np.array([1.0, 2.0, 3.0, 4.0]),), ref="jax"))


def reduce_mul(x):
    return functools.reduce(lambda a, b: a * b, [x, x + 1, x + 2], 1.0)


CASES.append(G("r9_functools_reduce_lambda", reduce_mul, (0.5,), ref="ag"))


def cond_expr(x):
    return sum((t if t > 0 else -0.5 * t) for t in (x - 1, x, 2 - x))


CASES.append(G("r9_conditional_expression_in_genexpr", cond_expr, (0.4,), ref=lambda: -0.5 + 1 - 1, tol=1e-12))


def enumerate_start(xs):
    return sum(k * x ** k for k, x in enumerate(xs, start=1))


CASES.append(G("r9_enumerate_start_one", enumerate_start, (np.array([0.5, 0.6, 0.7]),), ref="jax"))


def dict_comp(x):
    d = {k: x ** k for k in range(4)}
    return sum(d.values()) + d[2]


CASES.append(G("r9_dict_comprehension_values", dict_comp, (1.2,), ref="ag"))


def any_all(x):
    vals = [x, 2 * x, x * x]
    if all(v > 0 for v in vals) and not any(v > 10 for v in vals):
        return sum(vals)
    return 0.0


CASES.append(G("r9_any_all_guards", any_all, (1.5,), ref=lambda: 1 + 2 + 3.0, tol=1e-12))


def nested_list_comp(x):
    M = [[math.exp(-(i - j) ** 2 * x) for j in range(3)] for i in range(3)]
    return sum(M[i][i] * 0.5 + M[i][(i + 1) % 3] for i in range(3))


CASES.append(G("r9_nested_list_comprehension_matrix", nested_list_comp, (0.7,), ref="ag"))


def map_filter(x):
    vals = list(map(lambda k: math.cos(k * x), range(6)))
    pos = list(filter(lambda v: v > 0, vals))
    return sum(pos)


CASES.append(G("r9_map_filter_lambdas", map_filter, (0.5,), ref="ag"))
