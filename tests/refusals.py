"""Programs revsrc must refuse. Each offending line carries a marker comment
``# refuse: CODE`` that the tests use to find the line number they expect."""
import math

import numpy as np

COUNTER = 0.0


class Box:
    value = 1.0


def uses_try(x):
    try:
        y = x * 2.0
    except ValueError as e:  # refuse: E101
        y = float(len(str(e)))
    return y


def uses_with(x):
    with open("/dev/null") as fh:  # refuse: E101
        fh.read()
    return x


def uses_yield(x):
    yield x * 2.0  # refuse: E101


async def uses_async(x):
    return x


def uses_await_inside(x):
    async def inner():  # refuse: E101
        return x
    return x


def writes_global(x):
    global COUNTER  # refuse: E402
    COUNTER = x
    return x


def writes_nonlocal(x):
    total = 0.0

    def add(v):
        nonlocal total  # refuse: E402
        total = total + v
    add(x)
    return total


def uses_del(x):
    y = x * 2.0
    del y  # refuse: E101
    return x


def defines_class(x):
    class Local:  # refuse: E101
        pass
    return x


def lambda_as_value(x):
    scale = 2.0 * x
    m = map(lambda v: v * scale, [x, x])  # refuse: E101
    return sum(m)


def _takes_two(a, b):
    return a * b


def star_args(x, pair):
    return _takes_two(*pair)  # refuse: E101


def star_args_of_an_array(x):
    args = np.array([x, x])  # its length is only known when the function runs
    return _takes_two(*args)  # refuse: E101


def star_args_of_a_tuple(x):
    args = (x, 2.0 * x)
    return _takes_two(*args)


def calls_no_rule(x):
    return math.remainder(x, 1.0)  # refuse: E202


def prints(x):
    shown = print(x)  # refuse: E401
    return x


def opens_file(x):
    fh = open("/dev/null")  # refuse: E401
    return x


def writes_attribute(x, box):
    box.value = x  # refuse: E401
    return x


def writes_argument(x):
    x[0] = 1.0  # refuse: E403
    return np.sum(x)


def returns_vector(x):
    return x * np.ones(3)  # refuse: E302


def recursive(x, n):
    if x < 1.0:
        return x * n
    return recursive(x * 0.5, n)  # refuse: E103


def loop_else(x):
    for i in range(3):  # refuse: E102
        x = x * 2.0
    else:
        x = x + 1.0
    return x


def simple(x, n, flag, name, obj):
    return x * x


def list_append(x, ys):
    ys.append(x)  # refuse: E403
    return ys[0]


def dict_of_active(x):
    key = "a" if x > 0.0 else "b"   # a key known only when the function runs
    d = {key: x}   # (a dict of intermediates: an adjoint per key)
    return d[key] * 2.0


def list_changed_after_stored(x):
    row = [x]
    rows = [row]
    row.append(x)  # refuse: E404
    return rows[0][0]


def set_comprehension(x):
    s = {x * k for k in range(3)}  # refuse: E101
    return len(s) * x


def reads_an_undefined_name(x):
    return x * not_defined_anywhere  # refuse: E106  # noqa: F821


def unpacks_three_from_two(x):
    a, b, c = (x, 2.0 * x)  # refuse: E105
    return a * b


def _scaled(v, factor):
    return v * factor


def calls_a_helper_without_an_argument(x):
    return _scaled(x)  # refuse: E105


def pops_a_list_held_twice(x):
    xs = [x, 2.0 * x]
    ys = xs
    v = xs.pop()  # refuse: E401
    return v + len(ys)
