"""The IR traversal (revsrc/core/ir.py) and the passes built on it, on small programs.

Which fields of a statement hold statement lists is written down once, in
`ir.children`; a pass that rebuilds statements goes through `ir.map_children`, so a
while loop's test body (the statements computing its condition) is visited like any
other body. The property test at the end puts the same statement in a For body and
in a While's test body and checks that each pass treats the two alike.
"""
import math
import operator

import numpy as np
import pytest

import revsrc
from revsrc import jitted, primitives, runtime
from revsrc.backends.jax import compiled as jax_compiled
from revsrc.core import ir, kinds
from revsrc.core.ir import (Block, Break, Comment, Const, For, If, Leave, Loc, Op, Pop, Push,
                            SetItem, While)
from revsrc.core.names import Names
from revsrc.passes import containers, cse, inline, optimize, prune, views
from revsrc.passes.reverse import forward, stacks

LOC = Loc("f.py", 3, 4, "while x < 1.0:")


def _cmp():
    return Op("c", operator.lt, ("a", Const(1.0)))


def _loop(test_body, body=(), label="L"):
    return While(list(test_body) + [_cmp()], "c", list(body), loc=LOC, label=label)


def _compound():
    """One of each statement holding statement lists, each holding an Op."""
    return [If("c", [Op("x", operator.neg, ("a",))], [Op("y", operator.neg, ("b",))], loc=LOC),
            For("i", Const(0), "n", Const(1), [Op("x", operator.add, ("x", "i"))], loc=LOC,
                label="F"),
            _loop([Op("t", operator.neg, ("a",))], [Op("a", operator.add, ("a", "t"))]),
            Block("B", [Leave("B")], loc=LOC)]


# ----- children, map_children, walk -----

def test_children_names_each_statement_list_in_program_order():
    i, f, w, b = _compound()
    assert ir.children(i) == (i.body, i.orelse)
    assert ir.children(f) == (f.body,)
    assert ir.children(w) == (w.test_body, w.body)
    assert ir.children(b) == (b.body,)
    for s in (Op("x", operator.neg, ("a",)), SetItem("x", Const(0), "v"), Push("a", "f"),
              Pop("a", "f"), Comment("c"), Break(), Leave("B")):
        assert ir.children(s) == ()


@pytest.mark.parametrize("s", _compound(), ids=lambda s: type(s).__name__)
def test_map_children_maps_every_list_and_keeps_loc_and_label(s):
    seen = []

    def fn(b):
        seen.append(b)
        return b + [Comment("added")]
    new = ir.map_children(s, fn)
    assert new is not s and type(new) is type(s)
    assert seen == list(ir.children(s))
    assert all(c[-1].text == "added" for c in ir.children(new))
    assert new.loc is s.loc and getattr(new, "label", None) == getattr(s, "label", None)
    assert all(not c or not isinstance(c[-1], Comment) for c in ir.children(s))  # s kept


def test_map_children_keeps_a_test_body_when_told():
    w = _loop([Op("t", operator.neg, ("a",))], [Op("a", operator.add, ("a", "t"))])
    new = ir.map_children(w, lambda b: [], test_body=False)
    assert new.test_body is w.test_body and new.body == [] and new.label == "L"


def test_map_children_of_a_simple_statement_is_itself():
    s = Op("x", operator.neg, ("a",))
    assert ir.map_children(s, lambda b: []) is s


def test_walk_visits_a_while_test_body_before_its_body():
    stmts = _compound()
    found = [s.target for s in ir.walk(stmts) if isinstance(s, Op)]
    assert found == ["x", "y", "x", "t", "c", "a"]


# ----- operands, reads and writes -----

def test_map_operands_maps_reads_and_with_targets_writes():
    op = Op("x", np.add, ("a", Const(2.0)), (("out", "b"),), LOC)
    up = ir.map_operands(op, str.upper)
    assert (up.target, up.args, up.kwargs, up.loc) == ("x", ("A", Const(2.0)), (("out", "B"),),
                                                       LOC)
    assert ir.map_operands(op, str.upper, targets=True).target == "X"
    assert ir.map_operands(Op(None, print, ("a",)), str.upper, targets=True).target is None
    f = For("i", "a", "b", Const(1), [Op("x", operator.neg, ("a",))], loc=LOC, label="F")
    new = ir.map_operands(f, str.upper)
    assert (new.var, new.start, new.stop, new.label) == ("i", "A", "B", "F")
    assert new.body is f.body                      # children: map_children's business
    assert ir.map_operands(f, str.upper, targets=True).var == "I"
    # a SetItem's target is read (the object written into) and mapped once
    si = ir.map_operands(SetItem("m", "k", "v", LOC), lambda n: n + "_", targets=True)
    assert (si.target, si.index, si.value) == ("m_", "k_", "v_")
    assert ir.map_operands(Pop("p", "f"), str.upper, targets=True).target == "P"
    assert ir.map_operands(Push("p", "f"), str.upper).value == "P"
    w = ir.map_operands(_loop([]), str.upper)
    assert w.test == "C" and w.label == "L"


def test_map_operands_always_makes_a_new_statement():
    for s in (Comment("c", LOC), Break(LOC), Leave("B"), Op("x", operator.neg, ("a",))):
        new = ir.map_operands(s, str.upper)
        assert new is not s and new == ir.map_operands(s, str.upper)


def test_reads_and_writes_agree_with_operands():
    assert ir.reads(Op("x", np.add, ("a", Const(1.0)), (("out", "b"),))) == ["a", "b"]
    assert ir.reads(SetItem("m", Const(0), "v")) == ["m", "v"]
    assert ir.writes(SetItem("m", Const(0), "v")) == ["m"]
    assert ir.reads(_loop([])) == ["c"] and ir.writes(_loop([])) == []
    assert ir.writes(For("i", Const(0), "n", Const(1), [])) == ["i"]
    assert ir.reads(For("i", Const(0), "n", Const(1), [])) == ["n"]


def test_map_operands_with_targets_maps_what_reads_and_writes_name():
    stmts = [Op("x", np.add, ("a", Const(2.0)), (("out", "b"),)), Op(None, print, ("a",)),
             SetItem("m", "k", "v"), Push("p", "f"), Pop("q", "f"), Comment("c"), Break(),
             Leave("B")] + [ir.map_children(s, lambda b: []) for s in _compound()]
    for s in stmts:
        new = ir.map_operands(s, lambda n: n + "'", targets=True)
        assert set(ir.reads(new)) | set(ir.writes(new)) == \
            {n + "'" for n in set(ir.reads(s)) | set(ir.writes(s))}, s


# ----- rename, names_in, substitute, dominates -----

def test_rename_reaches_a_while_test_and_shares_no_statement():
    stmts = _compound()
    out = ir.rename(stmts, lambda n: "p_" + n)
    assert ir.names_in(out) == {"p_" + n for n in ir.names_in(stmts)}
    assert "p_t" in ir.names_in(out[2].test_body) and out[2].test == "p_c"
    assert out[2].label == "L" and out[1].label == "F" and out[2].loc is LOC
    before = {id(s) for s in ir.walk(stmts)} | {id(b) for s in ir.walk(stmts)
                                                 for b in ir.children(s)}
    after = {id(s) for s in ir.walk(out)} | {id(b) for s in ir.walk(out)
                                              for b in ir.children(s)}
    assert not before & after


def test_names_in_counts_a_while_test_body():
    assert ir.names_in([_loop([Op("t", operator.neg, ("z",))])]) == {"t", "z", "c", "a"}


def test_substitute_reaches_a_while_test_and_keeps_labels():
    w = _loop([Op("t", operator.neg, ("a",))], [Op("u", operator.neg, ("a",))])
    new = optimize.substitute(w, "a", "b")
    assert [s.args[0] for s in ir.walk([new]) if isinstance(s, Op)] == ["b", "b", "b"]
    new = optimize.substitute(_loop([]), "c", "d")
    assert new.test == "d" and new.label == "L"
    f = For("i", "a", Const(3), Const(1), [Op("x", operator.neg, ("a",))], label="F")
    new = optimize.substitute(f, "a", "b")
    assert new.start == "b" and new.body[0].args == ("b",) and new.label == "F"


def test_dominates():
    a, b = 10, 20                       # ids of two statement lists
    assert ir.dominates(((a, 0),), ((a, 1),))
    assert ir.dominates(((a, 0),), ((a, 2), (b, 0)))     # before the statement holding w
    assert not ir.dominates(((a, 1),), ((a, 1),))
    assert not ir.dominates(((a, 2), (b, 0)), ((a, 3),))  # inside a branch or loop
    assert not ir.dominates(((a, 0), (b, 0)), ((a, 0), (b + 1, 1)))


# ----- Every pass that rewrites statement lists visits a While's test body -----

def h(x):
    return math.sin(x) * x


def softplus(x):
    return math.log1p(math.exp(x))


def softplus_rule(g, ans, x):
    return g / (1.0 + math.exp(-x))


jh = revsrc.jit(h)
G_LIMIT = 2.0


def _program(body, kinds_):
    names = Names()
    names.bar("b")          # b_bar is an adjoint: prune asks the namer, not the spelling
    return ir.Program("p", ["a", "b"], body, ["a"], dict(kinds_), forward_len=len(body),
                      names=names)


def _user_expand(body):
    saved = primitives.snapshot()
    try:
        revsrc.defvjp(softplus, softplus_rule)
        return inline.expand(body, {"a", "b", "c", "t", "i"})
    finally:
        primitives.restore(saved)


def _fresh():
    names = Names()
    return lambda base: names.fresh(base)


# (name, the statement put in a body, the pass on a statement list, whether the
# statements the pass left where that one was show it applied)
PASSES = [
    ("optimize.substitute", lambda: Op("t", operator.neg, ("a",)),
     lambda body: [optimize.substitute(s, "a", "b") for s in body],
     lambda out: out[0].args == ("b",)),
    ("optimize.drop_empty_comments", lambda: Comment("adjoint of line 1"),
     optimize.drop_empty_comments,
     lambda out: not any(isinstance(s, Comment) for s in out)),
    ("reverse.shift_stacks", lambda: Push("a", "f"), stacks.shift_stacks,
     lambda out: out[0].stack == "f1"),
    ("reverse.forward.fast_gathers", lambda: Op("t", operator.getitem, ("a", "b")),
     lambda body: forward.fast_gathers(body, {"a": "array", "b": "tuple"}),
     lambda out: out[0].fn is runtime.take),
    ("inline.expand", lambda: Op("t", softplus, ("a",)), _user_expand,
     lambda out: not any(isinstance(s, Op) and s.fn is softplus for s in out)),
    ("cse.scalarize_tuples", lambda: Op("t", ir.make_tuple, ("a", "b")),
     lambda body: cse.scalarize_tuples(body, _fresh())[0],
     lambda out: out[0].fn is ir.copy),
    ("cse.optimize", lambda: Op("t", operator.neg, ("a",)),
     lambda body: cse.optimize(body, ["a"]),
     lambda out: not any(isinstance(s, Op) and s.target == "t" for s in out)),
    ("prune.loop_kernels", lambda: Op("t", np.tanh, ("a",)),
     lambda body: prune.loop_kernels(_program(body, {"a": kinds.ARRAY})).body,
     lambda out: out[0].fn is not np.tanh),
    ("prune.accumulate_in_place", lambda: Op("b_bar", operator.add, ("b_bar", "a")),
     lambda body: prune.accumulate_in_place(_program(body, {})).body,
     lambda out: out[0].fn is runtime.accumulate),
    ("views.resolve", lambda: Op("b", operator.iadd, ("b", "a")),
     lambda body: views.resolve(["a", "b"], body, {"a": kinds.FLOAT, "b": kinds.FLOAT,
                                                   "c": kinds.BOOL}, Names()),
     lambda out: out[0].fn is operator.add),
    ("containers.specialize", lambda: Op("t", operator.add, ("a", "b")),
     lambda body: containers.specialize(["a", "b"], [kinds.LIST, kinds.LIST], body),
     lambda out: out[0].fn is containers.concat),
    ("jitted._guessed", lambda: Op("t", jh, ("a",)), jitted._guessed,
     lambda out: out[0].fn is ir.copy),
    ("jax compiled._with_externals",
     lambda: Op("t", ir.load_global, (Const(globals()), Const("G_LIMIT"))),
     lambda body: jax_compiled._with_externals(_program(body, {}))[0].body,
     lambda out: out[0].fn is ir.copy),
]


@pytest.mark.parametrize("name, make, run, applied", PASSES, ids=[p[0] for p in PASSES])
def test_every_pass_visits_a_while_test_body(name, make, run, applied):
    in_for = run([For("i", Const(0), Const(3), Const(1), [make()])])
    assert applied(in_for[0].body), f"{name} does not apply to this statement"
    in_test = run([While([make()], "c", [Op("b", operator.add, ("b", "a"))], label="L")])
    assert applied(in_test[0].test_body), f"{name} skips a while loop's test body"
    assert in_test[0].label == "L"


def test_companions_are_not_computed_in_a_while_test():
    # a test's operations get no adjoint, so their companion (cos beside sin) would
    # be computed for nothing
    def body():
        return [Op("s", math.sin, ("a",))]
    loop = [_loop(body(), body())]
    found = {}
    out = stacks.add_companions(loop, Names(), {"a": "float", "s": "float"}, {"s"}, 0,
                                found)
    assert [s.fn for s in out[0].test_body] == [math.sin, operator.lt]
    assert [s.fn for s in out[0].body] == [math.cos, math.sin]
