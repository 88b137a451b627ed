"""Derivatives taken with respect to containers, transformed again.

A derivative in a tuple, list or dict argument returns its gradient in that container:
when such a derivative is differentiated again (``hessian`` of a function of a dict,
``jacfwd`` of its gradient) its IR builds that container of the leaves' gradients
(`gradient`). When it is called inside a function revsrc differentiates, with a
container that function builds (a dict parameter, a tuple written at the call), its
program is given the container's leaves (`container_argument`).
"""
from __future__ import annotations

from .. import errors
from ..core import ir, pytree
from ..core.ir import Const, Op


_GRADIENT_TREES = {"tuple": ir.make_tuple, "list": ir.make_list}


def check_gradient(td, tr):
    """Refuse a derivative whose gradient is a container the program cannot build
    (a namedtuple, a dataclass, a registered class): tuples, lists, dicts and None."""
    if td.kind in ("leaf", "none", "dict") or td.kind in _GRADIENT_TREES:
        for c in td.children:
            check_gradient(c, tr)
        return
    raise errors.HigherOrderNotSupported(
        f"differentiating again a derivative of {tr.callee.name} taken with respect to "
        f"a {td.kind} is not supported yet", loc=tr.parsed.loc(tr.parsed.node),
        hint="pass its leaves in a tuple, a list or a dict, or as separate arguments")


def gradient(td, leaves, body, names):
    """The operand holding the gradient of shape ``td`` made of the next of
    ``leaves``, its building operations appended to ``body``."""
    if td.kind == "leaf":
        return next(leaves)
    if td.kind == "none":
        return Const(None)
    items = [gradient(c, leaves, body, names) for c in td.children]
    out = names.temp()
    if td.kind == "dict":
        args = tuple(x for k, v in zip(td.aux, items) for x in (Const(k), v))
        body.append(Op(out, ir.make_dict, args))
    else:
        body.append(Op(out, _GRADIENT_TREES[td.kind], tuple(items)))
    return out


class _Operand:
    """An operand standing as a leaf of a container `container_argument` reads."""

    def __init__(self, operand):
        self.operand = operand


_BUILT = {ir.make_tuple: tuple, ir.make_list: list}


def container_argument(site, a):
    """(TreeDef, leaf operands) of ``a`` where the function builds it of operands it
    knows (``p`` for a dict parameter, ``(w, b)``, ``{"W": W}``), else None."""
    def read(x, depth=0):
        made = site.defs.get(x) if isinstance(x, str) else None
        if made is None or made.kwargs or depth > 20:
            return _Operand(x)
        if made.fn in _BUILT:
            return _BUILT[made.fn](read(y, depth + 1) for y in made.args)
        if made.fn is ir.make_dict and all(isinstance(k, Const) for k in made.args[::2]):
            return {k.value: read(v, depth + 1) for k, v in zip(made.args[::2], made.args[1::2])}
        return _Operand(x)
    tree = read(a)
    if isinstance(tree, _Operand):
        return None
    leaves, td = pytree.tree_flatten(tree)
    return td, [x.operand for x in leaves]
