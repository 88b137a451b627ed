"""A gallery of refusals: what revsrc will not differentiate, what it says, and the
rewrite that works.

revsrc never returns a gradient it cannot vouch for. A program it cannot follow
exactly is refused with a revsrc.RevsrcError that carries a stable code (E101...),
names your file, line and column, and says what to do instead. Each case below is
a small function as someone might write it, the error revsrc raises for it, and the
rewrite, whose gradient is then checked against central differences.

    python examples/refusals.py
"""
import math

import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


# E101: a try whose body holds a loop (the derivative would have to follow however
# much of the loop ran before the raise; a try around straight-line code is followed)
def safe_log_try(x):
    try:
        total = 0.0
        for k in range(3):
            total += math.log(x - k)
        return total
    except ValueError:
        return -1e3


def safe_log_test(x):
    if x > 2.0:
        total = 0.0
        for k in range(3):
            total += math.log(x - k)
        return total
    return -1e3


# E103: recursion whose depth a differentiated value decides (recursion on an int
# argument, such as a degree, is unrolled for the int given)
def shrink_recursive(x):
    if x < 1.0:
        return x
    return shrink_recursive(x / 2.0) * 1.5


def shrink_loop(x):
    scale = 1.0
    while x >= 1.0:
        x = x / 2.0
        scale = scale * 1.5
    return x * scale


# E403: writing into an array the caller passed
def clip_in_place(x):
    x[x > 1.0] = 1.0
    return np.sum(x * x)


def clip_copy(x):
    y = x.copy()
    y[x > 1.0] = 1.0
    return np.sum(y * y)


# E401: out= (a write revsrc does not follow)
def scale_out(x):
    y = np.empty_like(x)
    np.multiply(x, 3.0, out=y)
    return np.sum(y * y)


def scale_expr(x):
    y = np.multiply(x, 3.0)
    return np.sum(y * y)


# E302: grad of a function that returns an array (use jacobian, or reduce)
def softmax(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


def softmax_first(z):
    return softmax(z)[0]


# E301: differentiating with respect to an int
def scaled_power(x, n):
    return x ** n


# E102: while ... else
def first_crossing(x):
    t = 0.0
    while t < 10.0:
        if x * t > 1.0:
            break
        t = t + 0.5
    else:
        return 0.0
    return x * t


def first_crossing_flag(x):
    t = 0.0
    found = False
    while t < 10.0:
        if x * t > 1.0:
            found = True
            break
        t = t + 0.5
    if not found:
        return 0.0
    return x * t


# E202: a C function with no derivative rule; give it one
def sawtooth_wave(x):
    return math.remainder(x, 1.0) * math.sin(x)


def register_remainder_rule():
    # remainder(x, y) = x - n * y, n the integer nearest x / y: slope 1 in x, -n in y
    @revsrc.defvjp(math.remainder)
    def remainder_vjp(g, ans, x, y):
        return g, -g * round(x / y)


CASES = [
    # (what, the call refused, its code, the rewrite: (function, args, argnums), in words)
    ("try/except", lambda: revsrc.grad(safe_log_try)(3.5), "E101", (safe_log_test, (3.5,), 0),
     "test the condition with if"),
    ("recursion on a float", lambda: revsrc.grad(shrink_recursive)(5.0), "E103",
     (shrink_loop, (5.0,), 0), "a while loop"),
    ("write into an argument", lambda: revsrc.grad(clip_in_place)(np.array([0.5, 2.0])), "E403",
     (clip_copy, (np.array([0.5, 2.0]),), 0), "write into a copy"),
    ("out=", lambda: revsrc.grad(scale_out)(np.array([0.5, 2.0])), "E401",
     (scale_expr, (np.array([0.5, 2.0]),), 0), "use the returned value"),
    ("array output", lambda: revsrc.grad(softmax)(np.array([0.5, 2.0])), "E302",
     (softmax_first, (np.array([0.5, 2.0]),), 0), "one element, or revsrc.jacobian"),
    ("differentiating by an int", lambda: revsrc.grad(scaled_power, argnums=1)(1.5, 3), "E301",
     (scaled_power, (1.5, 3.0), 1), "pass a float"),
    ("while ... else", lambda: revsrc.grad(first_crossing)(0.3), "E102",
     (first_crossing_flag, (0.3,), 0), "a flag set before break"),
    ("C function, no rule", lambda: revsrc.grad(sawtooth_wave)(2.3), "E202",
     (sawtooth_wave, (2.3,), 0), "a rule: revsrc.defvjp(math.remainder)"),
]


def main():
    rows = []
    for what, refused, code, (fixed, args, argnums), how in CASES:
        print(f"=== {what}")
        try:
            refused()
        except revsrc.RevsrcError as err:
            print(err)
            got = err.code
        else:
            got = "no error"
        check(got == code, f"{what}: refused with {code}")
        if code == "E202":
            register_remainder_rule()
        check_gradient(fixed, args, f"{what}: the rewrite {fixed.__name__} differentiates",
                       argnums=argnums)
        rows.append((code, what, how))
    print("the Jacobian instead of the gradient of the array-valued softmax:")
    print(revsrc.jacobian(softmax)(np.array([0.5, 2.0])))

    with figure("refusals", width=6.0, height=3.0) as (fig, ax):
        if fig is not None:
            ax.set_axis_off()
            table = ax.table(cellText=rows, colLabels=["code", "refused", "rewrite that works"],
                             loc="center", cellLoc="left", colWidths=[0.12, 0.4, 0.48])
            table.set_fontsize(9)
            table.scale(1.0, 1.3)
    done()


if __name__ == "__main__":
    main()
