"""User programs, corpus 5i: values of the wrong-binding programs, and/or values, strings,
memory= with random draws, exceptions."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case
from user_programs5h import default_binds_early, lambda_default_binds_early, lazy_genexpr

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- the values (not only the gradients) of programs whose defaults bind early -----------

add("default_binds_early_jit_value", default_binds_early, (1.5,), t="jit")
add("lambda_default_binds_early_vmap_value", lambda_default_binds_early, (np.array([1.5, 2.0]),), t="vmap")
add("default_binds_early_vag_value", default_binds_early, (1.5,), t="vag")
add("genexpr_lazy_vag_value", lazy_genexpr, (1.5,), t="vag")
add("default_binds_early_jvp", default_binds_early, (1.5,), t="jvp", tangents=1.0)
add("default_binds_early_jax", default_binds_early, (1.5,), t="grad_jax", needs=("jax",))


# ---- and/or return operands -------------------------------------------------------------

def or_value(x):
    return (x * 0.0 or x * x) * 2.0


add("or_returns_second_operand", or_value, (1.5,))


def and_value(x):
    return (x and x * 3.0) + 1.0


add("and_returns_second_operand", and_value, (1.5,))


def not_float(x):
    return x * (not (x - x))


add("not_of_float", not_float, (1.5,))


# ---- strings ----------------------------------------------------------------------------

def fstring_round(x):
    return float(f"{x:.3f}") * 2.0 + x


add("float_of_fstring_rounding", fstring_round, (1.2345678,))


def str_roundtrip(x):
    return float(str(x)) * x          # str(x) keeps every digit: this is x * x


add("float_of_str_roundtrip", str_roundtrip, (1.5,))


def int_scaled(x):
    return int(x * 1000) / 1000 * x


add("int_truncation_scaled", int_scaled, (1.2345678,))


def complex_ctor(x):
    return abs(complex(x, 2.0))


add("complex_constructor", complex_ctor, (1.5,))


def dunder_call(x):
    return x.__mul__(x) + (2.0).__rmul__(x)


add("dunder_method_calls", dunder_call, (1.5,))


# ---- lists -------------------------------------------------------------------------------

def sum_start(x):
    return sum([x, x * x], 10.0 * x)


add("sum_with_start", sum_start, (1.5,))


def fsum_gen(x):
    return math.fsum(v * v for v in (x, 2 * x))


add("fsum_of_genexpr", fsum_gen, (1.5,))


def list_alias(x):
    a = b = []
    a.append(x)
    b.append(2 * x)
    return sum(a) * len(b)


add("list_chained_assignment_alias", list_alias, (1.5,))


def list_rep_assign(x):
    xs = [x] * 3
    xs[1] = xs[1] * 2
    return xs[0] + xs[1] * xs[2]


add("list_repetition_item_assign", list_rep_assign, (1.5,))


def pair_iadd(x):
    pair = [x, 1.0]
    pair[0] *= 2.0
    pair[1] += pair[0]
    return pair[0] * pair[1]


add("list_item_augassign", pair_iadd, (1.5,))


def nested_modify_list(x):
    buf = [x]

    def push(v):
        buf.append(v)
    push(x * 2)
    push(x * 3)
    return sum(buf)


add("nested_def_appends_to_local_list", nested_modify_list, (1.5,))


# ---- scopes and exceptions -----------------------------------------------------------------

def def_in_loop_called_after(x):
    for k in range(3):
        def g(t):
            return t * k
    return g(x) * x


add("def_in_loop_called_after_loop", def_in_loop_called_after, (1.5,))


def nested_called_twice(x):
    k = 1.0

    def g(t):
        return t * k
    a = g(x)
    k = 3.0
    b = g(x)
    return a * b


add("nested_def_called_before_and_after_rebind", nested_called_twice, (1.5,))


def comp_shadow(x):
    ys = [x * 2 for x in (1.0, 2.0)]
    return sum(ys) * x + x


add("comprehension_variable_shadows_param", comp_shadow, (1.5,))


def helper_raises(t):
    if t < 0:
        raise ValueError("neg")
    return math.sqrt(t)


def try_helper(x):
    try:
        y = helper_raises(x)
    except ValueError:
        y = -x
    return y * x


add("try_helper_raises", try_helper, (-1.5,))
add("try_helper_returns", try_helper, (2.0,))


def try_finally(x):
    try:
        y = x * 2
    finally:
        y = y + x
    return y * y


add("try_finally_rebinds", try_finally, (1.5,))


def except_as(x):
    try:
        y = math.log(x)
    except ValueError as e:
        y = len(str(e)) * x
    return y


add("except_as_uses_exception", except_as, (-1.5,))


def loop_aug_closure(x):
    k = 0.0

    def g(t):
        return t * k
    acc = 0.0
    for i in range(3):
        k = k + 1.0
        acc = acc + g(x)
    return acc


add("closure_reads_loop_updated_var", loop_aug_closure, (1.5,))


# ---- memory= with random draws, nested loops, zero trips -------------------------------------

def rand_loop(a):
    np.random.seed(0)
    x = 0.5
    for i in range(400):
        x = 0.99 * x + 0.01 * a * np.random.randn()
    return x * x


add("memory_loop_np_random_draws", rand_loop, (0.7,), t="memory")


def _memory_rng_loop():
    def f(a, rng):
        x = 0.5
        for i in range(400):
            x = 0.99 * x + 0.01 * a * rng.normal()
        return x * x
    g1 = revsrc.grad(f, memory=256)(0.7, np.random.default_rng(0))
    g0 = revsrc.grad(f)(0.7, np.random.default_rng(0))
    h = 1e-6
    e = (f(0.7 + h, np.random.default_rng(0)) - f(0.7 - h, np.random.default_rng(0))) / (2 * h)
    return (g1, g1), (g0, e)


add("memory_loop_generator_draws", _memory_rng_loop, t="custom", tol=1e-6)


def nested_loops(a):
    x = a
    for i in range(50):
        for j in range(10):
            x = x * 0.999 + 0.001 * math.cos(x + j)
    return x


add("memory_nested_loops", nested_loops, (0.7,), t="memory")


def zero_trip(a, n):
    x = a
    for i in range(n):
        x = x * 2.0
    return x * x


add("memory_zero_trip_loop", zero_trip, (0.7, 0), t="memory")

COEF = [0.99, 1.0, 1.005]


def glob_loop(a):
    x = a
    for i in range(300):
        x = x * COEF[i % 3] + 0.01
    return x


add("memory_loop_reads_global_list", glob_loop, (0.7,), t="memory")
