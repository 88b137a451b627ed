"""The compiled scalar engine: lowering, every operation bit for bit against Python,
errors, control flow, stacks, and the Derivative fast path.

The oracle is ``interpret`` below: a plain-Python evaluation of the same IR, which
calls the very functions the ops name. Floats are compared with ``==`` (and NaN with
NaN), plus the sign of zeros: the engine must reproduce Python to the last bit.
"""
import math
import operator as o
import re
import sys
import threading
import time
import warnings

import numpy as np
import pytest

from revsrc.core import ir
from revsrc.backends.engine.lower import EngineFallback, NotLowerable, lower
from revsrc.core.ir import Break, Const, For, If, Op, Pop, Program, Push, SetItem, While
from revsrc._kernels import Derivative

C = Const


# ----- The oracle -----

class _Break(Exception):
    pass


def interpret(program, args):
    """Run ``program`` in plain Python: each Op calls its function on Python values."""
    env = dict(zip(program.params, args))
    stacks = {"f": [], "i": [], "o": []}

    def val(a):
        return a.value if isinstance(a, Const) else env[a]

    def block(stmts):
        for s in stmts:
            if isinstance(s, Op):
                r = s.fn(*[val(a) for a in s.args], **{k: val(v) for k, v in s.kwargs})
                if s.target is not None:
                    env[s.target] = r
            elif isinstance(s, If):
                block(s.body if val(s.test) else s.orelse)
            elif isinstance(s, For):
                for i in range(val(s.start), val(s.stop), val(s.step)):
                    env[s.var] = i
                    try:
                        block(s.body)
                    except _Break:
                        break
            elif isinstance(s, While):
                while True:
                    block(s.test_body)
                    if not val(s.test):
                        break
                    try:
                        block(s.body)
                    except _Break:
                        break
            elif isinstance(s, Break):
                raise _Break()
            elif isinstance(s, Push):
                stacks[s.stack].append(val(s.value))
            elif isinstance(s, Pop):
                env[s.target] = stacks[s.stack].pop()

    block(program.body)
    return tuple(val(x) for x in program.outputs)


def same(a, b):
    """Bit-for-bit equality of Python scalars (NaN equals NaN; -0.0 differs from 0.0)."""
    if isinstance(a, float) or isinstance(b, float):
        a, b = float(a), float(b)
        if a != a or b != b:
            return a != a and b != b
        return a == b and math.copysign(1.0, a) == math.copysign(1.0, b)
    return a == b


def outcome(thunk):
    """(value, None) or (None, (exception type, args)) of calling ``thunk``."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return thunk(), None
        except (ArithmeticError, ValueError, TypeError, EngineFallback) as exc:
            return None, (type(exc), exc.args)


def assert_same_run(program, args):
    """The engine and the oracle agree on ``args``: the same values (and types), or
    the same exception with the same message."""
    engine = lower(program)
    want, want_err = outcome(lambda: interpret(program, args))
    got, got_err = outcome(lambda: engine.run(args))
    if want_err is None and any(isinstance(w, complex) for w in want):
        assert got_err[0] is EngineFallback     # Python went complex: the engine defers
        return
    if got_err and got_err[0] is EngineFallback:
        # only where an int result may not fit in a double, or where max/min may select
        # an operand of another kind than its result's (Python returns it as it is)
        assert any(type(w) is int and abs(w) >= 2 ** 53 for w in want) or any(
            isinstance(st, Op) and st.fn in (max, min) for st in program.body), (args, want)
        return
    assert got_err == want_err, (args, got_err, want_err)
    if want_err is None:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            assert same(g, w), (args, got, want)
            assert type(g) is type(w) or isinstance(w, np.floating), (args, got, want)


# ----- Programs -----

def recurrence_grad_program(n=1000):
    """d/dx of bench/workloads.py:recurrence as the reverse stage writes it: the
    forward loop saves the branch flag and x; the reverse loop pops them."""
    fwd = [
        For("i", C(0), C(n), C(1), [
            Op("c", o.gt, ("x", C(1.0))),
            Push("c", "i"),
            Push("x", "f"),
            If("c", [
                Op("t1", math.sin, ("x",)),
                Op("t2", o.mul, (C(0.002), "t1")),
                Op("t3", o.mul, ("t2", "x")),
                Op("x", o.sub, ("x", "t3")),
            ], [
                Op("t4", math.cos, ("x",)),
                Op("t5", o.mul, (C(0.003), "t4")),
                Op("t6", o.add, ("x", "t5")),
                Op("t7", o.mul, (C(0.001), "x")),
                Op("t8", o.mul, ("t7", "x")),
                Op("x", o.add, ("t6", "t8")),
            ]),
        ]),
        Op("y", ir.copy, ("x",)),
    ]
    rev = [
        Op("bx", ir.copy, (C(1.0),)),
        For("j", C(0), C(n), C(1), [
            Pop("x", "f"),
            Pop("c", "i"),
            If("c", [
                Op("t1", math.sin, ("x",)),
                Op("t2", o.mul, (C(0.002), "t1")),
                Op("bt3", o.neg, ("bx",)),
                Op("bt2", o.mul, ("bt3", "x")),
                Op("u1", o.mul, ("bt3", "t2")),
                Op("bx", o.add, ("bx", "u1")),
                Op("bt1", o.mul, (C(0.002), "bt2")),
                Op("cx", math.cos, ("x",)),
                Op("u2", o.mul, ("bt1", "cx")),
                Op("bx", o.add, ("bx", "u2")),
            ], [
                Op("t7", o.mul, (C(0.001), "x")),
                Op("u3", o.mul, ("bx", "t7")),
                Op("bt7", o.mul, ("bx", "x")),
                Op("bx", o.add, ("bx", "u3")),
                Op("u4", o.mul, (C(0.001), "bt7")),
                Op("bx", o.add, ("bx", "u4")),
                Op("bt4", o.mul, (C(0.003), "bx")),
                Op("sx", math.sin, ("x",)),
                Op("u5", o.mul, ("bt4", "sx")),
                Op("bx", o.sub, ("bx", "u5")),
            ]),
        ]),
    ]
    kinds = {v: "float" for v in ("x", "y", "t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8",
                                  "bx", "bt1", "bt2", "bt3", "bt4", "bt7", "cx", "sx",
                                  "u1", "u2", "u3", "u4", "u5")}
    kinds.update(i="int", j="int", c="bool")
    return Program("recurrence_grad", ["x"], fwd + rev, ["y", "bx"], kinds,
                   forward_len=len(fwd))


def g_grad_program():
    """value and d/dx of g(x) = exp(-x*x) * cos(3.0*x)."""
    body = [
        Op("a", o.mul, ("x", "x")),
        Op("b", o.neg, ("a",)),
        Op("e", math.exp, ("b",)),
        Op("t", o.mul, (C(3.0), "x")),
        Op("c", math.cos, ("t",)),
        Op("y", o.mul, ("e", "c")),
        # reverse
        Op("be", o.mul, (C(1.0), "c")),
        Op("bc", o.mul, (C(1.0), "e")),
        Op("s", math.sin, ("t",)),
        Op("ns", o.neg, ("s",)),
        Op("bt", o.mul, ("bc", "ns")),
        Op("bx1", o.mul, (C(3.0), "bt")),
        Op("bb", o.mul, ("be", "e")),
        Op("ba", o.neg, ("bb",)),
        Op("bxa", o.mul, ("ba", "x")),
        Op("bx2", o.add, ("bxa", "bxa")),
        Op("bx", o.add, ("bx1", "bx2")),
    ]
    names = {s.target for s in body} | {"x"}
    return Program("g_grad", ["x"], body, ["y", "bx"], {n: "float" for n in names})


def g(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


def one_op(fn, kinds, out_kind="float", nargs=None):
    """y = fn(a0, a1, ...) with parameters of the given kinds."""
    params = [f"a{i}" for i in range(len(kinds))]
    k = dict(zip(params, kinds))
    k["y"] = out_kind
    return Program(f"one_{getattr(fn, '__name__', 'fn')}", params,
                   [Op("y", fn, tuple(params))], ["y"], k)


KIND_OF = {float: "float", int: "int", bool: "bool"}


def run_one(fn, *args, out_kind=None):
    """Lower y = fn(*args) (kinds from the arguments' types, output kind from Python's
    result) and compare it with calling fn directly."""
    if out_kind is None:
        want, err = outcome(lambda: fn(*args))
        out_kind = "float" if err else KIND_OF.get(type(want), "float")
    program = one_op(fn, [KIND_OF[type(a)] for a in args], out_kind)
    assert_same_run(program, args)


# ----- Value sweeps -----

FLOATS = [0.0, -0.0, 0.3, -0.3, 0.5, -0.5, 1.0, -1.0, 1.5, -2.5, 2.0, 3.0, 7.25, -7.25,
          0.999999, 1e-300, -1e-300, 5e-324, 1e-8, 1e8, 1e300, -1e300, 709.0, 710.0, -745.5,
          math.pi, -math.e, 1e16, 2.0 ** 53, float("inf"), float("-inf"), float("nan")]
FLOATS += [x / 7.0 for x in range(-40, 41, 3)]
SMALL_FLOATS = [0.0, -0.0, 0.5, -0.5, 1.0, -1.0, 2.0, -2.0, 0.3, 3.0, -7.25, 1e300,
                float("inf"), float("-inf"), float("nan"), 1e-310]
INTS = [0, 1, -1, 2, -2, 3, 7, -7, 10, -13, 2 ** 30, -(2 ** 31), 2 ** 52, 2 ** 53 - 1]
SMALL_INTS = [0, 1, -1, 2, -3, 7, -8, 100]


MATH1 = [math.sin, math.cos, math.tan, math.asin, math.acos, math.atan, math.sinh,
         math.cosh, math.tanh, math.asinh, math.acosh, math.atanh, math.exp, math.expm1,
         math.log, math.log1p, math.log2, math.log10, math.sqrt, math.erf, math.erfc,
         math.fabs]
TO_INT = [int, round, math.floor, math.ceil, math.trunc]


def _table_ufuncs(nin):
    """Every NumPy ufunc in the rule table (with or without a derivative) that maps
    ``nin`` float64 values to one float64."""
    from revsrc import rules
    found = {}
    for fn in rules.registered() + rules.registered_nondiff():
        if isinstance(fn, np.ufunc) and fn.nin == nin and fn.nout == 1 \
                and fn.signature is None and "d" * nin + "->d" in fn.types:
            found[fn.__name__] = fn
    return [found[k] for k in sorted(found)]


NP1 = _table_ufuncs(1)
BINARY = [o.add, o.sub, o.mul, o.truediv, o.floordiv, o.mod, o.pow, o.lt, o.le, o.gt,
          o.ge, o.eq, o.ne, min, max, math.pow, math.atan2, math.hypot, math.copysign,
          math.log]
NP2 = _table_ufuncs(2)


@pytest.mark.parametrize("fn", MATH1 + TO_INT + [o.neg, o.pos, o.not_, abs, float, bool,
                                                  ir.truth], ids=lambda f: f.__name__)
def test_unary_float(fn):
    for x in FLOATS:
        run_one(fn, x)


@pytest.mark.parametrize("fn", MATH1 + TO_INT + [o.neg, o.pos, o.not_, abs, float, bool,
                                                  ir.truth], ids=lambda f: f.__name__)
def test_unary_int_and_bool(fn):
    for x in INTS + [True, False]:
        run_one(fn, x)


@pytest.mark.parametrize("fn", NP1, ids=lambda f: f.__name__)
def test_numpy_unary(fn):
    for x in FLOATS:
        run_one(fn, x, out_kind="float")


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_binary_floats(fn):
    for x in SMALL_FLOATS:
        for y in SMALL_FLOATS:
            run_one(fn, x, y)


@pytest.mark.parametrize("fn", BINARY, ids=lambda f: f.__name__)
def test_binary_ints_and_mixed(fn):
    for x in SMALL_INTS + [True]:
        for y in SMALL_INTS + [False, 0.5, -2.0, float("nan")]:
            run_one(fn, x, y)
            run_one(fn, y, x)


@pytest.mark.parametrize("fn", NP2, ids=lambda f: f.__name__)
def test_numpy_binary(fn):
    for x in SMALL_FLOATS:
        for y in SMALL_FLOATS + [2, -3]:
            run_one(fn, x, y, out_kind="float")


def test_random_sweep_bit_exact():
    rng = np.random.default_rng(7)
    xs = np.concatenate([rng.uniform(-4, 4, 300), rng.standard_normal(100) * 1e3,
                         10.0 ** rng.uniform(-20, 20, 100)]).tolist()
    for fn in (math.sin, math.cos, math.exp, math.log, math.sqrt, math.atan, math.tanh,
               math.expm1, math.log1p, math.erf):
        program = lower(one_op(fn, ["float"]))
        for x in xs:
            want, err = outcome(lambda: fn(x))
            got, got_err = outcome(lambda: program.run((x,)))
            assert got_err == err and (err or same(got[0], want)), (fn, x)
    for fn in (o.floordiv, o.mod, o.pow, math.pow, math.hypot, math.atan2):
        program = lower(one_op(fn, ["float", "float"]))
        for x, y in zip(xs, xs[::-1]):
            want, err = outcome(lambda: fn(x, y))
            got, got_err = outcome(lambda: program.run((x, y)))
            if isinstance(want, complex) or (err and "complex" in str(err[1])):
                assert got_err[0] is EngineFallback     # Python went complex: defer
                continue
            assert got_err == err and (err or same(got[0], want)), (fn, x, y)


def test_hypot_matches_cpython_algorithm():
    rng = np.random.default_rng(3)
    program = lower(one_op(math.hypot, ["float", "float"]))
    for x, y in rng.standard_normal((5000, 2)).tolist() + [(3.0, 4.0), (1e-320, 2e-320),
                                                           (1e308, 1e308), (0.0, -0.0)]:
        assert same(program.run((x, y))[0], math.hypot(x, y)), (x, y)


def test_min_max_several_arguments():
    for fn in (min, max):
        p = Program("m", ["a", "b", "c"], [Op("y", fn, ("a", "b", "c", C(0.5)))], ["y"],
                    {"a": "float", "b": "float", "c": "float", "y": "float"})
        for args in [(1.0, 2.0, 3.0), (3.0, -1.0, 0.0), (float("nan"), 1.0, 2.0),
                     (1.0, float("nan"), -5.0), (0.0, -0.0, 0.5), (-0.0, 0.0, 0.5)]:
            assert_same_run(p, args)


def test_int_results_keep_python_types():
    p = Program("ints", ["a", "b"], [
        Op("q", o.floordiv, ("a", "b")), Op("m", o.mod, ("a", "b")),
        Op("d", o.truediv, ("a", "b")), Op("n", o.neg, ("q",)), Op("z", o.mul, ("n", C(0))),
        Op("f", o.mul, ("z", C(1.0))), Op("lt", o.lt, ("a", "b"))],
        ["q", "m", "d", "n", "z", "f", "lt"],
        {"a": "int", "b": "int", "q": "int", "m": "int", "d": "float", "n": "int",
         "z": "int", "f": "float", "lt": "bool"})
    for a in (-7, 7, 0, 3):
        for b in (2, -2, 3, -3, 0):
            assert_same_run(p, (a, b))
    out = lower(p).run((0, 2))
    assert same(out[5], 0.0)        # an int 0 is never -0 (0 * -1 then * 1.0)


def test_int_beyond_2_53_defers_to_python():
    p = one_op(o.mul, ["int", "int"], "int")
    engine = lower(p)
    assert engine.run((2 ** 26, 2 ** 26)) == (2 ** 52,)
    with pytest.raises(EngineFallback):
        engine.run((2 ** 27, 2 ** 27))
    with pytest.raises(EngineFallback):
        engine.run((2 ** 60, 1))        # does not fit a double: Python runs it
    with pytest.raises(TypeError):
        engine.run((2.0, 1))            # not an int at all: refused at the door
    with pytest.raises(EngineFallback):
        lower(one_op(o.pow, ["float", "float"])).run((-8.0, 1.0 / 3.0))   # complex


# ----- Errors -----

@pytest.mark.parametrize("fn,args", [
    (o.truediv, (1.0, 0.0)), (o.truediv, (1, 0)), (o.truediv, (1.0, 0)),
    (o.floordiv, (1.0, 0.0)), (o.floordiv, (1, 0)), (o.mod, (1.0, -0.0)), (o.mod, (1, 0)),
    (o.pow, (0.0, -1.0)), (o.pow, (0, -1)), (o.pow, (10.0, 400.0)),
    (math.log, (0.0,)), (math.log, (-1.0,)), (math.sqrt, (-1.0,)), (math.asin, (2.0,)),
    (math.acosh, (0.5,)), (math.atanh, (1.0,)), (math.exp, (1000.0,)), (math.sin, (math.inf,)),
    (math.cosh, (1000.0,)), (math.pow, (0.0, -1.0)), (math.pow, (10.0, 400.0)),
    (math.pow, (-8.0, 0.5)), (math.log, (2.0, 1.0)), (math.log, (2.0, 0.0)),
    (int, (math.nan,)), (int, (math.inf,)), (round, (math.nan,)), (math.floor, (-math.inf,)),
])
def test_errors_match_python(fn, args):
    want, err = outcome(lambda: fn(*args))
    assert err is not None
    run_one(fn, *args)


def test_range_errors():
    p = Program("r", ["n", "s"], [Op("y", ir.copy, (C(0.0),)),
                                  For("i", C(0), "n", "s", [Op("y", o.add, ("y", C(1.0)))])],
                ["y"], {"n": "int", "s": "int", "y": "float", "i": "int"})
    assert_same_run(p, (5, 0))
    with pytest.raises(ValueError, match="must not be zero"):
        lower(p).run((5, 0))
    p2 = Program("r", ["n"], [Op("y", ir.copy, (C(0.0),)),
                              For("i", C(0), "n", C(1), [Op("y", o.add, ("y", C(1.0)))])],
                 ["y"], {"n": "float", "y": "float", "i": "int"})
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        lower(p2).run((5.0,))


def test_pop_from_empty_stack_raises():
    p = Program("p", ["x"], [Pop("y", "f")], ["y"], {"x": "float", "y": "float"})
    with pytest.raises(IndexError):
        lower(p).run((1.0,))


# ----- Control flow -----

def loop_program(start, stop, step, body=None, after=()):
    body = body if body is not None else [Op("s", o.add, ("s", "i"))]
    return Program("loop", ["x"], [Op("s", ir.copy, (C(0),)), Op("i", ir.copy, (C(-99),)),
                                   For("i", start, stop, step, body), *after],
                   ["s", "i"], {"x": "float", "s": "int", "i": "int", "n": "int",
                                "k": "int", "c": "bool"})


@pytest.mark.parametrize("bounds", [(0, 10, 1), (10, 0, -1), (10, 0, -3), (0, 0, 1),
                                    (5, 0, 1), (0, 5, -1), (-3, 7, 4), (7, -3, -4), (0, 1, 1)])
def test_for_range_semantics(bounds):
    assert_same_run(loop_program(*[C(b) for b in bounds]), (0.0,))


def test_for_with_variable_bounds_and_runtime_step():
    p = Program("loop", ["a", "b", "c"], [
        Op("s", ir.copy, (C(0),)), Op("i", ir.copy, (C(-99),)),
        For("i", "a", "b", "c", [Op("s", o.add, ("s", "i")),
                                 Op("b", o.add, ("b", C(1))),      # range() saw b already
                                 Op("i", o.mul, ("i", C(100)))])],  # does not steer the loop
        ["s", "i", "b"], {"a": "int", "b": "int", "c": "int", "s": "int", "i": "int"})
    for args in [(0, 10, 1), (10, 0, -1), (0, 10, 3), (3, 3, 1), (10, 0, 2), (-5, 5, 2)]:
        assert_same_run(p, args)


def test_break_in_for_and_while():
    p = loop_program(C(0), C(100), C(1), body=[
        Op("s", o.add, ("s", "i")), Op("c", o.gt, ("s", C(20))), If("c", [Break()], [])])
    assert_same_run(p, (0.0,))
    w = Program("w", ["x"], [
        Op("n", ir.copy, (C(0),)),
        While([Op("c", o.lt, ("x", C(1000.0)))], "c", [
            Op("x", o.mul, ("x", C(1.5))), Op("n", o.add, ("n", C(1))),
            Op("d", o.ge, ("n", C(12))), If("d", [Break()], [])])],
        ["x", "n"], {"x": "float", "n": "int", "c": "bool", "d": "bool"})
    for x in (0.5, 3.0, 999.0, 2000.0, 1e-6):
        assert_same_run(w, (x,))


def test_nested_loops_with_pushes():
    body = [
        For("i", C(0), "n", C(1), [
            For("k", "i", C(-1), C(-1), [
                Op("c", o.lt, ("k", C(3))),
                If("c", [Push("x", "f"), Op("x", o.mul, ("x", C(1.01)))],
                     [Op("x", o.add, ("x", "k"))]),
                Push("c", "i")]),
        ]),
        Op("y", ir.copy, ("x",)),
        Op("s", ir.copy, (C(0.0),)),
        While([Op("c", o.gt, ("n", C(0)))], "c", [
            Op("n", o.sub, ("n", C(1))),
            For("k", C(0), "n", C(1), [Pop("c", "i"), If("c", [Pop("t", "f"),
                                                               Op("s", o.add, ("s", "t"))],
                                                         [])])]),
    ]
    p = Program("nest", ["x", "n"], body, ["y", "s", "n"],
                {"x": "float", "n": "int", "i": "int", "k": "int", "c": "bool", "y": "float",
                 "s": "float", "t": "float"})
    for n in (0, 1, 5, 12):
        assert_same_run(p, (0.7, n))


def test_if_on_float_truthiness_and_constant_tests():
    p = Program("t", ["x"], [
        If("x", [Op("y", ir.copy, (C(1.0),))], [Op("y", ir.copy, (C(2.0),))]),
        If(C(0), [Op("y", o.add, ("y", C(10.0)))], []),
        If(C(1), [Op("y", o.add, ("y", C(100.0)))], [])],
        ["y"], {"x": "float", "y": "float"})
    for x in (0.0, -0.0, 1.0, float("nan"), -3.0):
        assert_same_run(p, (x,))


def test_recurrence_gradient_matches_python_bit_for_bit():
    p = recurrence_grad_program()
    engine = lower(p)
    for x in (0.3, 1.2, 0.99, -2.0, 5.0, 0.0):
        assert engine.run((x,)) == interpret(p, (x,))


def test_million_iterations_memory_bounded_by_saved_values():
    n = 1_000_000
    p = recurrence_grad_program(n)
    engine = lower(p)
    out = engine.run((0.3,))
    assert out == interpret(recurrence_grad_program(50), (0.3,)) or math.isfinite(out[1])
    stats = engine.stats()
    assert stats["loop_iterations"] == 2 * n
    # one double and one int64 saved per forward step; capacity at most doubles past them
    assert stats["float_stack_capacity"] <= 2 * n and stats["int_stack_capacity"] <= 2 * n
    engine.run((0.3,))
    assert engine.stats()["runs"] == 2


# ----- What does not lower -----

@pytest.mark.parametrize("program,reason", [
    (Program("a", ["x"], [Op("y", o.mul, ("x", "x"))], ["y"], {"x": "array", "y": "array"}),
     "array"),
    (Program("d", ["x"], [Op("y", np.dot, ("x", "x"))], ["y"], {"x": "float", "y": "float"}),
     "dot"),
    (Program("s", ["x"], [SetItem("x", C(0), C(1.0))], ["x"], {"x": "float"}), "item"),
    (Program("p", ["x"], [Push("x", "o")], ["x"], {"x": "float"}), "object"),
    (Program("k", ["x"], [Op("y", max, ("x", "x"), (("key", C(abs)),))], ["y"],
             {"x": "float", "y": "float"}), "keyword"),
    (Program("c", ["x"], [Op("y", o.add, ("x", C("s")))], ["y"], {"x": "float", "y": "float"}),
     "constant"),
    (Program("n", ["x"], [Op("y", np.square, ("x",))], ["y"], {"x": "int", "y": "int"}),
     "int64"),
    (Program("n", ["x"], [Op("y", np.sqrt, ("x",))], ["y"], {"x": "bool", "y": "float"}),
     "bool"),
    (Program("n", ["x"], [Op("y", np.isnan, ("x",))], ["y"], {"x": "float", "y": "bool"}),
     "no engine instruction"),
])
def test_not_lowerable(program, reason):
    with pytest.raises(NotLowerable, match=reason):
        lower(program)


def test_numpy_functions_run_numpys_own_loop():
    """np.tanh on the engine is NumPy's float64 loop, whatever SIMD code NumPy chose
    on this CPU (AVX2 and AVX-512 loops differ from libm's tanh by an ulp)."""
    p = one_op(np.tanh, ["float"])
    assert "NPU1" in lower(p).disassemble()
    for x in np.linspace(-3.0, 3.0, 601).tolist():
        assert_same_run(p, (x,))


# ----- Globals -----

def test_load_global_reads_current_value_each_run():
    ns = {"K": 2.0}
    p = Program("gl", ["x"], [Op("k", ir.load_global, (C(ns), C("K"))),
                              Op("y", o.mul, ("x", "k"))], ["y"],
                {"x": "float", "k": "float", "y": "float"})
    engine = lower(p)
    assert engine.run((3.0,)) == (6.0,)
    ns["K"] = 5.0
    assert engine.run((3.0,)) == (15.0,)
    ns["K"] = 5          # the program was lowered for a float K
    with pytest.raises(EngineFallback):
        engine.run((3.0,))
    d = Derivative(lambda x: "slow")
    d.install(("f",), engine, 0)
    assert d(3.0) == "slow"
    ns["K"] = 0.5
    assert d(3.0) == 1.5


# ----- Listing, timing -----

def test_disassemble_names_variables_and_fuses():
    text = lower(recurrence_grad_program()).disassemble()
    assert "x = SUBMUL x, t2, x" in text
    assert "FORUP i, 1000, 1" in text and "PUSHI c" in text and "bx = POPF" not in text
    assert "MULADD" in text


# ----- Derivative -----

class Slow:
    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return ("slow", args, kwargs)


def test_derivative_fast_path_and_fallbacks():
    slow = Slow(None)
    d = Derivative(slow)
    d.__name__ = "dg"
    d.__wrapped__ = g
    assert d.slow is slow and d.__name__ == "dg"
    engine = lower(g_grad_program())
    d.install(("f",), engine, (0, 1))
    want = interpret(g_grad_program(), (0.3,))
    assert d(0.3) == want and slow.calls == 0
    assert engine.stats()["runs"] == 1
    assert d(0.3, flag=1) == ("slow", (0.3,), {"flag": 1})
    assert d(1) == ("slow", (1,), {})                # int is not float
    assert d(np.float64(0.3))[0] == "slow"           # exact types only
    assert d(0.3, 0.4)[0] == "slow"
    assert d()[0] == "slow"
    assert slow.calls == 5 and engine.stats()["runs"] == 1
    d.install(("f",), engine, 1)
    assert d(0.3) == want[1]
    d.install(("f",), engine, ((1,), 0, (1, (0,))))
    assert d(0.3) == ((want[1],), want[0], (want[1], (want[0],)))
    with pytest.raises(ValueError):
        d.install(("f",), engine, 2)


def test_derivative_several_signatures_and_int_limits():
    p = Program("s", ["a"], [Op("y", o.mul, ("a", C(2)))], ["y"], {"a": "int", "y": "int"})
    pb = Program("s", ["a"], [Op("y", o.mul, ("a", C(2)))], ["y"], {"a": "bool", "y": "int"})
    pf = Program("s", ["a"], [Op("y", o.mul, ("a", C(2)))], ["y"], {"a": "float", "y": "float"})
    d = Derivative(Slow(None))
    d.install(("i",), lower(p), 0)
    d.install(("b",), lower(pb), 0)
    d.install(("f",), lower(pf), 0)
    assert d(3) == 6 and type(d(3)) is int
    assert d(True) == 2 and d(1.5) == 3.0
    assert d(2 ** 51) == 2 ** 52
    assert d(2 ** 52)[0] == "slow"                   # a product reaching 2**53 defers
    assert d(2 ** 60)[0] == "slow"                   # beyond 2**53: Python ints
    assert d(2 ** 52 + 1)[0] == "slow"               # the engine's product would round


def test_derivative_errors_propagate():
    d = Derivative(Slow(None))
    d.install(("f",), lower(one_op(math.log, ["float"])), 0)
    with pytest.raises(ValueError, match="math domain error"):
        d(-1.0)
    assert d.slow.calls == 0


def test_ten_thousand_steps_run_inside_the_engine():
    p = recurrence_grad_program(10_000)
    engine = lower(p)
    d = Derivative(Slow(None))
    d.install(("f",), engine, 1)
    calls = []

    def profiler(frame, event, arg):
        if event in ("call", "c_call"):
            calls.append((event, arg if event == "c_call" else frame.f_code.co_name))

    d(0.3)      # warm
    sys.setprofile(profiler)
    try:
        result = d(0.3)
    finally:
        sys.setprofile(None)
    assert isinstance(result, float)
    assert [c for c in calls if c[0] == "call"] == []    # no Python frame ever started
    assert len(calls) <= 2
    stats = engine.stats()
    assert stats["runs"] == 2 and stats["loop_iterations"] == 4 * 10_000
    assert d.slow.calls == 0


# ----- Through revsrc.grad: the engine and the Python backend agree bit for bit -----

def _branchy(x, y):
    s = 0.0
    k = 0
    while x < 50.0:
        x = x * 1.7 + math.sin(y)
        k = k + 1
        if k > 20:
            break
    for i in range(7, 0, -2):
        if x > y:
            s = s + x / i
        else:
            s = s - y * i
    return s + max(x, y) * math.exp(-abs(y)) + math.sqrt(x * x + 1.0)


def _rec(x):
    for i in range(1000):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def _core_or_skip():
    revsrc = pytest.importorskip("revsrc")
    if not hasattr(revsrc, "grad"):
        pytest.skip("revsrc.grad is not available yet")
    return revsrc


@pytest.mark.parametrize("fn,argsets", [
    (_rec, [(0.3,), (1.5,), (-0.7,)]),
    (g, [(0.3,), (-1.2,), (0.0,)]),
    (_branchy, [(0.3, 0.2), (2.0, -1.0), (60.0, 100.0), (-3.0, 0.5)]),
])
def test_grad_engine_matches_python_backend(fn, argsets):
    revsrc = _core_or_skip()
    nargs = len(argsets[0])
    argnums = 0 if nargs == 1 else tuple(range(nargs))
    de = revsrc.value_and_grad(fn, argnums=argnums, backend="engine")
    dp = revsrc.value_and_grad(fn, argnums=argnums, backend="python")
    for args in argsets:
        got, want = de(*args), dp(*args)
        assert repr(got) == repr(want), (args, got, want)
    assert isinstance(de, Derivative)
    (kinds, program, _), = de.programs
    assert program.stats()["runs"] == len(argsets)


# ----- One source for the engine's tables -----

def test_engine_tables_have_one_source():
    """Opcodes, formats, the libm table and the error codes come from
    revsrc/_engine_ops.py: the compiled VM was built from the same table, and the
    lowering reads formats from it."""
    import pathlib
    from revsrc import _engine_c, _engine_ops
    from revsrc.backends.engine import lower as engine
    from revsrc._kernels import ENGINE_BUILT_TABLES
    assert ENGINE_BUILT_TABLES == {"instructions": len(_engine_ops.INSTRUCTIONS),
                                   "errors": len(_engine_ops.ERRORS)}
    header = pathlib.Path(_engine_c.__file__).with_name("_engine_vm.h")
    if header.exists():     # an in-place build: the header is the one the build wrote
        assert header.read_text() == _engine_c.vm_header()
    assert engine.FORMAT is _engine_ops.FORMAT
    for name, fmt, semantics, flags in _engine_ops.INSTRUCTIONS:
        assert set(fmt) <= set("wrxjkmu"), name
        used = {int(n) for n in re.findall(r"\$(\d)", semantics)}
        assert used <= set(range(1, len(fmt) + 1)), name    # no operand it does not have
        assert "j" not in fmt or "GOTO" in semantics or "BACK" in semantics, name
    # the stacks grow in one place (rv_grow, through FRESERVE / IRESERVE)
    rt = header.with_name("_engine_rt.h").read_text()
    assert rt.count("realloc(") == 1
    assert "realloc" not in _engine_c.vm_header()


# ----- Long runs: Ctrl-C, the GIL, threads -----

def spin_program(limit=None):
    """while x > -1.0: x = x + 1.0 (endless: x stops growing at 2**53), or, with a
    limit, while x < limit."""
    test = Op("c", o.gt, ("x", C(-1.0))) if limit is None else Op("c", o.lt, ("x", C(limit)))
    return Program("spin", ["x"], [While([test], "c", [Op("x", o.add, ("x", C(1.0)))])],
                   ["x"], {"x": "float", "c": "bool"})


def test_ctrl_c_stops_an_endless_engine_loop():
    import signal
    import subprocess
    import revsrc
    # the revsrc this test imported: an installed copy in CI, the checkout here
    root = __import__("pathlib").Path(revsrc.__file__).resolve().parent
    # A child started from a background job inherits SIGINT ignored, and Python
    # then installs no KeyboardInterrupt handler: give it the one a terminal gives.
    code = ("import signal; signal.signal(signal.SIGINT, signal.default_int_handler)\n"
            "import sys, time; sys.path[:0] = [%r]\n"
            "import operator as o\n"
            "from revsrc.backends.engine.lower import lower\n"
            "from revsrc.core.ir import Const as C, Op, Program, While\n"
            "p = lower(Program('spin', ['x'], [While([Op('c', o.gt, ('x', C(-1.0)))], 'c',\n"
            "          [Op('x', o.add, ('x', C(1.0)))])], ['x'], {'x': 'float', 'c': 'bool'}))\n"
            "print('ready', flush=True)\n"
            "try:\n"
            "    p.run((0.0,))\n"
            "except KeyboardInterrupt:\n"
            "    print(time.time(), flush=True)\n"
            "    raise\n" % (str(root.parent),))
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    watchdog = threading.Timer(60, proc.kill)   # a stuck child fails, never hangs
    watchdog.start()
    try:
        assert proc.stdout.readline().strip() == "ready"
        time.sleep(0.3)                     # well inside the endless run
        assert proc.poll() is None
        sent = time.time()
        proc.send_signal(signal.SIGINT)
        stopped = float(proc.stdout.readline())
        proc.wait(timeout=10)
    finally:
        watchdog.cancel()
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode != 0
    assert "KeyboardInterrupt" in proc.stderr.read()
    # typically under a millisecond; the bound leaves room for a loaded machine
    assert stopped - sent < 0.5, stopped - sent


def test_a_long_run_releases_the_gil():
    import threading
    p = lower(spin_program(limit=1e8))      # 0.3 s or more in the engine
    ticks = 0
    t = threading.Thread(target=p.run, args=((0.0,),))
    t.start()
    while t.is_alive():
        ticks += 1                          # Python work in this thread meanwhile
        time.sleep(0.001)
    t.join()
    assert ticks >= 10                      # with the GIL held throughout: 0 or 1


def test_threads_calling_a_busy_program_use_copies():
    import threading
    n = 20_000_000
    p = lower(spin_program(limit=float(n)))
    d = Derivative(Slow(None))
    d.install(("f",), p, 0)
    results = {}

    def call(k, x):
        results[k] = d(x)

    threads = [threading.Thread(target=call, args=(k, float(k))) for k in range(3)]
    for t in threads:
        t.start()
    short = [d(float(n) - 3.5) for _ in range(3)]   # while the others run
    for t in threads:
        t.join()
    assert results == {k: float(n) for k in range(3)}
    assert short == [float(n) + 0.5] * 3
    assert d.slow.calls == 0


def test_sin_and_cos_of_one_register_pair_through_straight_code():
    kinds = {v: "float" for v in ("x", "c", "t", "s", "y")}
    paired = Program("sc", ["x"], [
        Op("c", math.cos, ("x",)), Op("t", o.mul, ("c", C(2.0))),
        Op("s", math.sin, ("x",)), Op("y", o.add, ("t", "s"))], ["y"], kinds)
    assert "s, c = SINCOS x" in lower(paired).disassemble()
    # not when the later target's old value is read in between, nor when x changes
    read = Program("sc", ["x"], [
        Op("s", ir.copy, (C(1.0),)), Op("c", math.cos, ("x",)), Op("t", o.mul, ("s", "c")),
        Op("s", math.sin, ("x",)), Op("y", o.add, ("t", "s"))], ["y"], kinds)
    moved = Program("sc", ["x"], [
        Op("c", math.cos, ("x",)), Op("x", o.add, ("x", C(1.0))),
        Op("s", math.sin, ("x",)), Op("y", o.add, ("c", "s"))], ["y"], kinds)
    for p in (read, moved):
        assert "SINCOS" not in lower(p).disassemble()
    for p in (paired, read, moved):
        for x in FLOATS:
            assert_same_run(p, (x,))
