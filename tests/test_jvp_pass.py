"""The forward-mode pass on statement lists: it rebuilds control statements through
`ir.map_children`, so a loop keeps its label and a while loop's test gets tangents
like its body."""
import operator

from revsrc.core import kinds
from revsrc.core.ir import Const, For, If, Op, While
from revsrc.core.names import Names
from revsrc.passes import jvp


def _forward():
    names = Names()
    fw = jvp._Forward(names, {"a": kinds.FLOAT, "t": kinds.FLOAT, "c": kinds.BOOL}, {},
                      {"a", "t"}, compile_python=None)
    return fw, names.dot("t")


def _tangent_of_t(body, t_dot):
    return any(isinstance(s, Op) and s.target == t_dot for s in body)


def test_control_statements_keep_their_labels_and_get_tangents_inside():
    fw, t_dot = _forward()
    neg = lambda: Op("t", operator.neg, ("a",))   # noqa: E731
    loop = For("i", Const(0), Const(3), Const(1), [neg()], label="F")
    test = While([neg()], "c", [neg()], label="L")
    branch = If("c", [neg()], [neg()])
    out = fw.block([loop, test, branch])
    assert [type(s) for s in out] == [For, While, If]
    assert out[0].label == "F" and out[1].label == "L"
    for body in (out[0].body, out[1].test_body, out[1].body, out[2].body, out[2].orelse):
        assert _tangent_of_t(body, t_dot)
