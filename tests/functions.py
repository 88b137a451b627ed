"""A corpus of small programs written as a user would write them.

Each function is plain module-level Python. `CASES` lists (function, arguments,
argnums, tags, kwargs, tolerance) for the corpus tests; `AUX_CASES` lists functions
returning ``(loss, aux)`` for ``has_aux=True``.

Inputs are chosen away from kinks and branch thresholds: at every iteration the value
a branch tests stays well beyond the finite-difference step (1e-4 relative) from its
threshold, so central differences are stable.
"""

import math
from dataclasses import dataclass, field
from math import sin, exp as e

import numpy as np

SCALE = 1.75
OFFSET = -0.25
COEFFS = (0.5, -1.25, 2.0)


# ----- straight-line code and assignments -----

def add_mul(x, y):
    return x * y + x


def poly(x):
    a = x * x
    b = 3.0 * a + 2.0 * x + 1.0
    return b


def rational(x):
    return (x * x + 1.0) / (x - 3.0)


def reuse_name(x):
    y = x
    y = y * x
    y = y + x
    y = y * y
    return y


def fanout(x):
    a = x * 2.0
    b = a * a
    c = a + b
    return c * a


def unary_ops(x):
    return -x * (-x + 1.0) + (+x)


def constant_intermediate(x):
    y = 2.0
    z = y * x
    w = y * y
    return z + w


def kinetic_energy(velocity, mass):
    energy = 0.5 * mass * velocity * velocity
    return energy


def long_expression(x, y):
    return ((x + y) * (x - y) / (1.0 + x * x)) - 3.0 * y * (x - 0.5) ** 2


# ----- augmented assignment -----

def aug_add(x):
    y = 1.0
    y += x
    y += x * x
    return y


def aug_sub(x):
    y = x
    y -= 0.5 * x * x
    y -= 1.0
    return y


def aug_mul(x):
    y = 1.0
    y *= x
    y *= x
    y *= x + 1.0
    return y


def aug_div(x):
    y = 3.0
    y /= x
    y /= x + 2.0
    return y


def aug_pow(x):
    y = x
    y **= 3
    y **= 0.5
    return y


def aug_all(x, y):
    z = x
    z += y
    z -= 0.3 * x
    z *= y
    z /= x
    z **= 2
    return z


def aug_self(x):
    y = x
    y *= y
    y += y
    return y


# ----- tuples: packing, unpacking, swaps -----

def tuple_pack_unpack(x, y):
    t = (x, y * 2.0)
    a, b = t
    return a * b


def swap(x, y):
    a, b = x, y
    a, b = b, a
    return a * a + 3.0 * b


def swap_in_loop(x, y):
    a, b = x, y
    for i in range(4):
        a, b = b, a + 0.5 * b
    return a * b


def _sincos(x):
    return sin(x), math.cos(x)


def tuple_from_helper(x):
    s, c = _sincos(x)
    return s * c + s


def nested_unpack(x):
    (a, b), c = (x, 2.0 * x), x * x
    return a * b * c


def tuple_index(x):
    t = (x, x * x, 3.0)
    return t[0] * t[1] + t[2]


# ----- conditional expressions, chained comparisons, and/or/not -----

def ifexp(x):
    y = x * x if x > 0.0 else -x
    return y


def ifexp_nested(x):
    return x * 2.0 if x < 0.0 else (x ** 3 if x < 1.0 else math.sqrt(x))


def chained_compare(x):
    if 0.0 < x < 1.0:
        return x * x
    return x


def chained_compare3(x, y):
    if -1.0 < x < y < 5.0:
        return x * y
    return x - y


def bool_and(x, y):
    if x > 0.0 and y > 0.0:
        return x * y
    return x + y


def bool_or(x):
    if x < -1.0 or x > 1.0:
        return x ** 2
    return sin(x)


def bool_not(x, flag):
    if not flag:
        return x * x
    return x


def ifexp_bool_ops(x, y):
    z = x if (x > y and not y < 0.0) else y
    return z * z


def bool_flag_in_ifexp(x, negate):
    s = -1.0 if negate else 1.0
    return s * x * x * x


# ----- if / elif / else -----

def if_else(x):
    if x > 1.0:
        y = x * x
    else:
        y = 2.0 * x - 1.0
    return y * x


def if_elif_else(x):
    if x < -1.0:
        y = -x
    elif x < 1.0:
        y = x * x
    else:
        y = math.exp(x - 1.0)
    return y + 0.1 * x


def if_no_else(x):
    y = x
    if x < 2.0:
        y = y * y
    return y + x


def nested_if(x, y):
    if x > 0.0:
        if y > x:
            z = x * y
        else:
            z = x + y
    else:
        z = x * x
    return z


def branch_on_intermediate(x):
    t = sin(x)
    if t > 0.5:
        u = t * t
    else:
        u = 1.0 - t
    return u * x


def branch_assigns_different_names(x):
    if x > 0.0:
        a = x
        b = 1.0
    else:
        a = 1.0
        b = x
    return a * b + a


# ----- for over range(...) -----

def for_const(x):
    y = 0.0
    for i in range(5):
        y = y + x * i
    return y


def for_range_n(x, n):
    y = 1.0
    for _ in range(int(n)):
        y = y * x
    return y


def for_range_start_stop_step(x):
    s = 0.0
    for i in range(1, 10, 3):
        s += sin(i * x)
    return s


def for_range_negative_step(x):
    s = 1.0
    for i in range(6, 0, -2):
        s = s * x + i
    return s


def for_range_n_step(x, n):
    s = 0.0
    for i in range(2, n, 2):
        s = s + x ** i / i
    return s


def for_index_as_float(x):
    y = 0.0
    for i in range(4):
        y = y + x / (i + 1.0)
    return y


def horner(x):
    y = 0.0
    for c in [1.0, 2.0, 0.5, -3.0]:
        y = y * x + c
    return y


def for_tuple_literal(x):
    y = 0.0
    for c in (0.3, -1.2, 2.0):
        y += c * sin(x * c)
    return y


def for_over_active_list(x, y):
    s = 0.0
    for v in [x, y, x * y]:
        s += v * v
    return s


def for_over_global_tuple(x):
    s = 0.0
    for c in COEFFS:
        s = s * x + c
    return s


def overwrite_200(x):
    y = 0.0
    for i in range(200):
        y = 0.99 * y + 0.01 * sin(x)
    return y


def logistic_map(r):
    x = 0.3
    for i in range(30):
        x = r * x * (1.0 - x)
    return x


def newton_sqrt(a):
    x = a
    for i in range(20):
        x = 0.5 * (x + a / x)
    return x


def rising_product(x):
    p = 1.0
    for i in range(1, 6):
        p *= x + i
    return p


def accumulate_two(x):
    s = 0.0
    q = 1.0
    for i in range(6):
        s = s + q
        q = q * x
    return s


# ----- while -----

def while_halving(x):
    while x > 0.1:
        x = x * 0.5
    return x


def while_counter(x):
    y = 1.0
    i = 0
    while i < 5:
        y = y * x
        i += 1
    return y


def while_data_trip(x):
    y = x
    count = 0
    while y < 100.0:
        y = y * y + 1.0
        count += 1
    return y + count


def while_newton(a):
    x = a
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x


def while_true_break(x):
    i = 0
    y = x
    while True:
        y = y * 1.5
        i += 1
        if y > 10.0:
            break
    return y + i


def while_continue(x):
    i = 0
    s = 0.0
    while i < 6:
        i += 1
        if i % 2 == 0:
            continue
        s += x ** i
    return s


def while_two_conditions(x, y):
    while x < 5.0 and y > 0.5:
        x = x * 1.4
        y = y * 0.8
    return x * y


# ----- break and continue in for loops -----

def for_break(x):
    y = 1.0
    for i in range(10):
        y = y * x
        if y > 5.0:
            break
    return y


def for_continue(x):
    y = 0.0
    for i in range(6):
        if i == 2:
            continue
        y += x * i
    return y


def for_break_nested_if(x):
    y = x
    for i in range(8):
        if i > 1:
            if y > 3.0:
                break
        y = y * x + 1.0
    return y


def for_continue_on_value(x):
    s = 0.0
    for c in [0.5, -1.0, 2.0, -0.3]:
        if c * x < 0.0:
            continue
        s += c * x * x
    return s


def for_break_else_value(x):
    y = x
    found = 0.0
    for i in range(12):
        y = math.cos(y)
        if abs(y - 0.739) < 0.05:
            found = y * 2.0
            break
    return found + y


def while_break_continue(x):
    y = x
    i = 0
    while i < 20:
        i += 1
        if i < 3:
            continue
        y = y * 0.8 + 0.05 * sin(y)
        if y < 0.5:
            break
    return y


# ----- nested loops -----

def nested_loops(x):
    s = 0.0
    for i in range(3):
        for j in range(4):
            s = s * 0.5 + x * (i + j)
    return s


def nested_loops_inner_break(x):
    s = 0.0
    for i in range(4):
        y = x
        for j in range(10):
            y = y * 1.3
            if y > 2.0 + i:
                break
        s += y
    return s


def triangular_loops(x, n):
    s = 0.0
    for i in range(n):
        for j in range(i):
            s += sin(x * j) / (i + 1)
    return s


def while_in_for(x):
    s = 0.0
    for k in range(3):
        y = x + k
        while y > 1.0:
            y = y * 0.7
        s = s + y * y
    return s


# ----- early and multiple returns -----

def early_return(x):
    if x > 2.0:
        return x * x
    y = x + 1.0
    return y * y * y


def return_in_loop(x):
    for i in range(10):
        x = x * 1.3
        if x > 4.0:
            return x - i
    return x


def multiple_returns(x):
    if x < 0.0:
        return -x * 3.0
    if x < 1.0:
        return math.sqrt(x + 1.0)
    return math.log(x + 1.0)


def return_in_while(x):
    y = x
    while y < 50.0:
        y = y * y + 0.5
        if y > 20.0 and y < 30.0:
            return y * 0.5
    return y


# ----- calls to user functions -----

def _level3(x):
    return sin(x) * x


def _level2(x):
    return _level3(x) + x * x


def _level1(x):
    return _level2(x) * 2.0 + _level3(x)


def call_depth3(x):
    return _level1(x) + 1.0


def _square(x):
    return x * x


def helper_twice(x):
    return _square(x) + _square(sin(x))


def _scale_shift(x, scale=1.5, shift=-1.0):
    return scale * x * x + shift


def helper_defaults_and_kwargs(x):
    return _scale_shift(x) + _scale_shift(x, 2.0) + _scale_shift(x, shift=0.5, scale=3.0)


def _hypot(x, y):
    return math.sqrt(x * x + y * y)


def helper_two_args(x, y):
    return _hypot(x, y) * x


def helper_in_loop(x):
    y = 0.5
    for i in range(5):
        y = _square(y) * 0.5 + x
    return y


def _soft_relu(x):
    if x > 0.0:
        return x + math.log(1.0 + math.exp(-x))
    return math.log(1.0 + math.exp(x))


def helper_with_branch(x):
    return _soft_relu(x) * _soft_relu(-2.0 * x)


def _power_loop(x, n):
    y = 1.0
    for _ in range(n):
        y = y * x
    return y


def helper_with_loop(x):
    return _power_loop(x, 3) + _power_loop(x + 1.0, 2)


def helper_active_and_const_args(x):
    return _hypot(x, 2.0) + _hypot(1.5, x)


# ----- nested defs and closures -----

def nested_def(x):
    def inner(t):
        return t * t + 1.0

    return inner(x) * inner(2.0 * x)


def closure_reads_active(x):
    a = 3.0 * x

    def inner(t):
        return a * t

    return inner(x)


def closure_reads_const(x):
    k = 2.5

    def g(t):
        return k * sin(t)

    return g(x) + g(x * x)


# ----- module globals and import aliases -----

def global_const(x):
    return SCALE * x * x + OFFSET


def alias_imports(x):
    return sin(x) * e(x)


def np_on_scalars(x):
    return np.sin(x) + np.exp(0.5 * x) * np.tanh(x)


def math_module(x):
    return math.log(x) + math.sqrt(x) + math.tanh(x) + math.cos(x)


# ----- math functions -----

def math_compose(x):
    return math.log(1.0 + e(sin(x)))


def sqrt_tanh(x):
    return math.sqrt(1.0 + math.tanh(x) ** 2)


def exp_log_chain(x):
    return math.exp(-x * x) * math.log(2.0 + math.cos(x))


# ----- non-differentiated arguments, flags, keywords -----

def int_exponent_arg(x, k):
    return x ** k + k * x


def bool_flag_kwarg(x, squared=True):
    if squared:
        return x * x
    return x * 3.0


def kwarg_defaults(x, a=2.0, b=0.5):
    return a * sin(x) + b * x * x


def argnum_second(n, x):
    return x ** n + float(n) * x


def argnums_first_third(x, k, y):
    return x * y ** k + math.sin(x * y)


def int_arithmetic(x, n):
    m = n // 2
    r = n % 3
    return x ** m + r * x + float(n) / 4.0 * x


# ----- powers -----

def pow_int(x):
    return x ** 3 + x ** 2 - x ** -2


def pow_float(x):
    return x ** 2.5 + x ** 0.5 - x ** -1.5


def pow_variable_exponent(x, y):
    return x ** y


def pow_constant_base(x):
    return 2.0 ** x + 1.5 ** (x * x)


# ----- abs, min, max -----

def abs_builtin(x):
    return abs(x) * x + abs(x - 3.0)


def min_max(x, y):
    return min(x, y) * 2.0 + max(x, y * y)


def clip_min_max(x):
    return min(max(x, 0.0), 1.0) + x * x


def min_three(x):
    return min(x, 2.0, x * x)


# ----- recurrences with data-dependent branches -----

def bounded_recurrence(x):
    y = x
    for i in range(20):
        if y > 1.0:
            y = y * 0.6
        else:
            y = y * 1.7 + 0.1
    return y


def bouncing_ball(v0):
    pos = 0.0
    vel = v0
    for i in range(25):
        pos = pos + 0.1 * vel
        if pos > 1.0:
            pos = 2.0 - pos
            vel = -vel
        elif pos < 0.0:
            pos = -pos
            vel = -vel
    return pos


def piecewise_while(x):
    y = x
    steps = 0
    while steps < 15:
        if y > 2.0:
            y = y / 2.0 + 0.3
        elif y > 1.0:
            y = y * y
        else:
            y = y + 0.9
        steps += 1
    return y


# ----- arrays -----

def arr_sum(x):
    return np.sum(x * x)


def arr_dot_vv(x, y):
    return np.dot(x, y)


def arr_dot_mv(W, x):
    return np.sum(np.dot(W, x) ** 2)


def arr_dot_mm(A, B):
    return np.sum(np.sin(np.dot(A, B)))


def arr_sin_scalar(x, s):
    return np.sum(np.sin(x * s))


def arr_exp_rowvec(X, r):
    return np.sum(np.exp(X + r))


def arr_tanh(x):
    return np.sum(np.tanh(x) * x)


def arr_log(x):
    return np.sum(np.log(x * x + 1.0))


def arr_matmul(x, W):
    return np.sum((x @ W) ** 2)


def arr_mean(x):
    return np.mean(x ** 2)


def arr_method_sum(x):
    y = x * x
    return y.sum()


def arr_transpose(A, B):
    return np.sum(np.dot(A.T, B) ** 2)


def arr_index(x):
    return x[0] * x[1] + np.sum(x)


def arr_slice(x):
    return np.sum(x[1:3] ** 2) + x[-1]


def arr_column(X):
    return np.sum(np.sin(X[:, 0])) + X[1, 2] * X[0, 1]


def arr_loop_rows(X):
    s = 0.0
    for row in X:
        s = s + np.sum(row * row) * 0.5
    return s


def arr_loop_rows_nonlinear(X, w):
    s = 0.0
    for row in X:
        s += np.tanh(np.dot(row, w))
    return s


def arr_layer(x, W, b):
    return np.sum(np.tanh(np.dot(x, W) + b))


def mlp_loss(W1, b1, W2, b2, X, y):
    h = np.tanh(X @ W1 + b1)
    out = h @ W2 + b2
    return np.mean((out - y) ** 2)


def logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


def softmax_xent(x, k):
    m = np.max(x)
    ex = np.exp(x - m)
    p = ex / np.sum(ex)
    return -np.log(p[k])


def arr_scalar_mix(x, s):
    return s * np.sum(x) + s * s


def arr_overwrite_loop(x):
    for i in range(50):
        x = x + 0.05 * np.sin(x)
    return np.sum(x)


def arr_elementwise_product(x, y):
    return np.sum(x * y * x)


def arr_broadcast_ops(X, r):
    Y = X * r - r / 2.0
    return np.sum(Y * Y) / X.shape[0]


def arr_helper(x):
    return _square(np.sum(np.sin(x)))


# ----- has_aux -----

def with_aux(x):
    y = x * x
    return sin(y), y


def with_aux_tuple(x, y):
    z = x * y
    return z * z, (z, "product")


def arr_with_aux(x):
    y = np.tanh(x)
    return np.sum(y * y), y


# ----- the registry -----

@dataclass(frozen=True)
class Case:
    fn: object
    args: tuple
    argnums: object = 0
    tags: tuple = ()
    kwargs: dict = field(default_factory=dict)
    rtol: float = 1e-6
    name: str = ""

    @property
    def id(self):
        return self.name or self.fn.__name__


def _c(fn, *args, argnums=0, tags=("scalar",), kwargs=None, rtol=1e-6, name=""):
    return Case(fn, tuple(args), argnums, tuple(tags), dict(kwargs or {}), rtol, name)


def _a(fn, *args, **kw):
    kw.setdefault("tags", ("array",))
    return _c(fn, *args, **kw)


_rng = np.random.default_rng(20240601)


def _arr(*shape, low=-1.0, high=1.0):
    return _rng.uniform(low, high, size=shape)


V3 = _arr(3)
V4 = _arr(4)
V4B = _arr(4)
V5 = _arr(5)
M23 = _arr(2, 3)
M34 = _arr(3, 4)
M43 = _arr(4, 3)
M35 = _arr(3, 5)
M45 = _arr(4, 5)
W1 = _arr(3, 4)
B1 = _arr(4)
W2 = _arr(4, 2)
B2 = _arr(2)
XB = _arr(5, 3)
YB = _arr(5, 2)

CASES = [
    # straight-line
    _c(add_mul, 1.3, -0.7, argnums=(0, 1)),
    _c(poly, 0.8),
    _c(rational, 1.3),
    _c(reuse_name, 0.9),
    _c(fanout, -0.6),
    _c(unary_ops, 0.45),
    _c(constant_intermediate, 2.2),
    _c(long_expression, 0.7, -1.1, argnums=(0, 1)),
    _c(kinetic_energy, 2.5, 1.2, argnums=(0, 1)),
    # augmented assignment
    _c(aug_add, 1.1),
    _c(aug_sub, -0.4),
    _c(aug_mul, 0.75),
    _c(aug_div, 1.6),
    _c(aug_pow, 1.4),
    _c(aug_all, 1.2, 0.8, argnums=(0, 1)),
    _c(aug_self, 0.7),
    # tuples
    _c(tuple_pack_unpack, 0.6, 1.4, argnums=(0, 1)),
    _c(swap, 0.6, 1.4, argnums=(0, 1)),
    _c(swap_in_loop, 0.6, 1.4, argnums=(0, 1)),
    _c(tuple_from_helper, 0.9),
    _c(nested_unpack, 1.1),
    _c(tuple_index, 0.8),
    # conditional expressions, chained comparisons, boolean operators
    _c(ifexp, 1.5, name="ifexp_true"),
    _c(ifexp, -0.7, name="ifexp_false"),
    _c(ifexp_nested, -0.5, name="ifexp_nested_neg"),
    _c(ifexp_nested, 0.5, name="ifexp_nested_mid"),
    _c(ifexp_nested, 2.0, name="ifexp_nested_big"),
    _c(chained_compare, 0.4, name="chained_compare_in"),
    _c(chained_compare, 1.7, name="chained_compare_out"),
    _c(chained_compare3, 0.5, 2.0, argnums=(0, 1), name="chained_compare3_in"),
    _c(chained_compare3, 0.5, 6.0, argnums=(0, 1), name="chained_compare3_out"),
    _c(bool_and, 0.8, 1.2, argnums=(0, 1), name="bool_and_true"),
    _c(bool_and, 0.8, -1.2, argnums=(0, 1), name="bool_and_false"),
    _c(bool_or, 0.3, name="bool_or_false"),
    _c(bool_or, 2.5, name="bool_or_true"),
    _c(bool_not, 1.3, False, name="bool_not_false"),
    _c(bool_not, 1.3, True, name="bool_not_true"),
    _c(ifexp_bool_ops, 1.5, 0.5, argnums=(0, 1), name="ifexp_bool_ops_x"),
    _c(ifexp_bool_ops, 0.2, 0.9, argnums=(0, 1), name="ifexp_bool_ops_y"),
    _c(bool_flag_in_ifexp, 0.9, True),
    # if / elif / else
    _c(if_else, 2.0, name="if_else_then"),
    _c(if_else, 0.3, name="if_else_else"),
    _c(if_elif_else, -1.5, name="if_elif_else_if"),
    _c(if_elif_else, 0.4, name="if_elif_else_elif"),
    _c(if_elif_else, 1.8, name="if_elif_else_else"),
    _c(if_no_else, 1.2, name="if_no_else_taken"),
    _c(if_no_else, 2.7, name="if_no_else_skipped"),
    _c(nested_if, 0.7, 1.5, argnums=(0, 1)),
    _c(nested_if, 0.7, 0.2, argnums=(0, 1), name="nested_if_inner_else"),
    _c(branch_on_intermediate, 1.2, name="branch_on_intermediate_then"),
    _c(branch_on_intermediate, 0.2, name="branch_on_intermediate_else"),
    _c(branch_assigns_different_names, 0.8, name="branch_assigns_pos"),
    _c(branch_assigns_different_names, -0.8, name="branch_assigns_neg"),
    # for over range / sequences
    _c(for_const, 0.7),
    _c(for_range_n, 1.1, 4),
    _c(for_range_n, 1.1, 0, name="for_range_n_zero_trips"),
    _c(for_range_start_stop_step, 0.37),
    _c(for_range_negative_step, 0.8),
    _c(for_range_n_step, 0.9, 9),
    _c(for_index_as_float, 1.7),
    _c(horner, 0.6),
    _c(for_tuple_literal, 0.9),
    _c(for_over_active_list, 0.6, -1.3, argnums=(0, 1)),
    _c(for_over_global_tuple, 1.3),
    _c(overwrite_200, 0.8),
    _c(logistic_map, 2.5),
    _c(newton_sqrt, 2.0),
    _c(rising_product, 0.3),
    _c(accumulate_two, 0.7),
    # while
    _c(while_halving, 3.0),
    _c(while_counter, 1.2),
    _c(while_data_trip, 1.3),
    _c(while_newton, 2.0),
    _c(while_true_break, 1.0),
    _c(while_continue, 0.8),
    _c(while_two_conditions, 1.1, 2.0, argnums=(0, 1)),
    # break / continue
    _c(for_break, 1.6),
    _c(for_continue, 1.4),
    _c(for_break_nested_if, 1.2),
    _c(for_continue_on_value, 1.1, name="for_continue_on_value_pos"),
    _c(for_continue_on_value, -0.9, name="for_continue_on_value_neg"),
    _c(for_break_else_value, 0.3),
    _c(while_break_continue, 2.0),
    # nested loops
    _c(nested_loops, 0.6),
    _c(nested_loops_inner_break, 0.9),
    _c(triangular_loops, 0.7, 5),
    _c(while_in_for, 2.3),
    # returns
    _c(early_return, 3.0, name="early_return_early"),
    _c(early_return, 1.0, name="early_return_late"),
    _c(return_in_loop, 1.1, name="return_in_loop_returns"),
    _c(return_in_loop, 0.01, name="return_in_loop_falls_through"),
    _c(multiple_returns, -0.5, name="multiple_returns_1"),
    _c(multiple_returns, 0.5, name="multiple_returns_2"),
    _c(multiple_returns, 1.5, name="multiple_returns_3"),
    _c(return_in_while, 1.9, name="return_in_while_after"),
    _c(return_in_while, 2.2, name="return_in_while_inside"),
    # user functions
    _c(call_depth3, 0.7),
    _c(helper_twice, 1.3),
    _c(helper_defaults_and_kwargs, 0.9),
    _c(helper_two_args, 1.2, -0.8, argnums=(0, 1)),
    _c(helper_in_loop, 0.3),
    _c(helper_with_branch, 0.6),
    _c(helper_with_loop, 0.8),
    _c(helper_active_and_const_args, 0.8),
    # nested defs, closures
    _c(nested_def, 0.7),
    _c(closure_reads_active, 1.3),
    _c(closure_reads_const, 0.6),
    # globals, import aliases, math
    _c(global_const, 1.1),
    _c(alias_imports, 0.6),
    _c(np_on_scalars, 0.6),
    _c(math_module, 1.7),
    _c(math_compose, 0.8),
    _c(sqrt_tanh, 0.5),
    _c(exp_log_chain, 0.9),
    # non-differentiated arguments, flags, keywords, argnums
    _c(int_exponent_arg, 1.3, 3),
    _c(bool_flag_kwarg, 1.3, name="bool_flag_kwarg_default"),
    _c(bool_flag_kwarg, 1.3, kwargs={"squared": False}, name="bool_flag_kwarg_false"),
    _c(kwarg_defaults, 0.7),
    _c(kwarg_defaults, 0.7, kwargs={"b": 1.5}, name="kwarg_defaults_b"),
    _c(kwarg_defaults, 0.7, 1.0, kwargs={"b": -2.0}, name="kwarg_defaults_pos_and_kw"),
    _c(argnum_second, 3, 1.4, argnums=1),
    _c(argnums_first_third, 0.9, 2, 1.3, argnums=(0, 2)),
    _c(int_arithmetic, 1.2, 7),
    # powers
    _c(pow_int, 1.3),
    _c(pow_float, 1.7),
    _c(pow_variable_exponent, 1.6, 2.3, argnums=(0, 1)),
    _c(pow_constant_base, 0.8),
    # abs / min / max
    _c(abs_builtin, 1.2, name="abs_builtin_pos"),
    _c(abs_builtin, -0.7, name="abs_builtin_neg"),
    _c(min_max, 0.5, 1.3, argnums=(0, 1), name="min_max_a"),
    _c(min_max, 1.5, 0.8, argnums=(0, 1), name="min_max_b"),
    _c(clip_min_max, 0.4, name="clip_min_max_inside"),
    _c(clip_min_max, 1.8, name="clip_min_max_clipped"),
    _c(min_three, 0.5, name="min_three_square"),
    _c(min_three, 1.2, name="min_three_x"),
    _c(min_three, 2.5, name="min_three_const"),
    # data-dependent recurrences
    _c(bounded_recurrence, 2.99),
    _c(bouncing_ball, 0.83),
    _c(piecewise_while, 2.67),
    # arrays
    _a(arr_sum, V4),
    _a(arr_dot_vv, V4, V4B, argnums=(0, 1)),
    _a(arr_dot_mv, M34, V4, argnums=(0, 1)),
    _a(arr_dot_mm, M34, M45, argnums=(0, 1)),
    _a(arr_sin_scalar, V5, 1.3, argnums=(0, 1)),
    _a(arr_exp_rowvec, M43, V3, argnums=(0, 1)),
    _a(arr_tanh, V5),
    _a(arr_log, V4),
    _a(arr_matmul, V3, M34, argnums=(0, 1)),
    _a(arr_mean, M23),
    _a(arr_method_sum, M34),
    _a(arr_transpose, M34, M35, argnums=(0, 1)),
    _a(arr_index, V4),
    _a(arr_slice, V5),
    _a(arr_column, M34),
    _a(arr_loop_rows, M43),
    _a(arr_loop_rows_nonlinear, M43, V3, argnums=(0, 1)),
    _a(arr_layer, V3, W1, B1, argnums=(0, 1, 2)),
    _a(arr_layer, M23, W1, B1, argnums=(1, 2), name="arr_layer_batch"),
    _a(mlp_loss, W1, B1, W2, B2, XB, YB, argnums=(0, 1, 2, 3)),
    _a(logsumexp, V5),
    _a(softmax_xent, V5, 2),
    _a(arr_scalar_mix, V4, 0.7, argnums=(0, 1)),
    _a(arr_overwrite_loop, V4),
    _a(arr_elementwise_product, V4, V4B, argnums=(0, 1)),
    _a(arr_broadcast_ops, M43, V3, argnums=(0, 1)),
    _a(arr_helper, V3),
]

AUX_CASES = [
    _c(with_aux, 0.7),
    _c(with_aux_tuple, 0.7, 1.2, argnums=(0, 1)),
    _a(arr_with_aux, V4),
]

FLOAT32_CASES = [
    _a(arr_sum, V4.astype(np.float32), rtol=1e-3, name="arr_sum_f32"),
    _a(arr_tanh, V5.astype(np.float32), rtol=1e-3, name="arr_tanh_f32"),
    _a(arr_matmul, V3.astype(np.float32), M34.astype(np.float32), argnums=(0, 1),
       rtol=1e-3, name="arr_matmul_f32"),
    _a(logsumexp, V5.astype(np.float32), rtol=1e-3, name="logsumexp_f32"),
]
