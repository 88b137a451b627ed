"""Records of the adjoints of lists, tuples and dicts that generated adjoints call
(revsrc/runtime/containers.py, and builtins sum's), with their transposes: a derivative
of a function that builds a list, sums it or picks an item of it can be differentiated
again in reverse mode (grad(grad(f)), jacrev(grad(f)))."""
from ..runtime import containers, transpose_grads as _transpose
from ..runtime.grads import reductions as _reductions
from ..primitives import declare, define, special
from . import kind_rules as KR
from .register import primitive

_like = KR.like_argument


# the pieces of the adjoints of lists and dicts, and list(x)'s (x's layout): linear in g
for _fn in (containers.value_grad, containers.set_item_grad, containers.sequence_grad):
    define(_fn.__name__, _fn, linear=(0,))


# ... the first three with their transposes (grad(grad(f)) of a function that builds
# a list: [x[i] * x[i + 1] for i in range(n)])
@primitive("item_grad", containers.item_grad, linear=(0,))
def item_grad_vjp(g, ans, grad, index):
    return containers.item_back(g, grad, index), None


@primitive("head_grad", containers.head_grad, linear=(0,))
def head_grad_vjp(g, ans, grad, n_tail):
    return containers.head_back(g, grad, n_tail), None


# max(xs)'s and min(xs)'s adjoint: linear in g, its selection constant where the
# items do not tie (as np.max's): no derivative in the items
@primitive("picked_grad", containers.picked_grad, linear=(0,))
def picked_grad_vjp(g, ans, grad, seq, picked):
    return containers.picked_back(g, seq, picked), None, None


@primitive("tail_grad", containers.tail_grad, linear=(0,))
def tail_grad_vjp(g, ans, grad, n_tail):
    return containers.tail_back(g, grad, n_tail), None


# builtins sum's adjoint, g for every item: its transpose sums the items' adjoints
# (grad of grad through sum(xs), sum(v * v for v in xs))
@primitive("sum_list_grad", _reductions.sum_list_grad, kind=_like(1), linear=(0,))
def sum_list_grad_vjp(g, ans, grad, iterable):
    return _transpose.sum_list_back(g, grad, iterable), None


# what a loop over a value of a kind unknown when transforming walks (a dict: its keys):
# the value itself for a sequence, so its adjoint passes through; on numbers, a copy
@primitive("iterable_items", containers.iterable_items, kind=_like(0), linear=(0,),
           engine=special("first"))
def iterable_items_vjp(g, ans, xs):
    return g


declare(containers.iterable_items, view="always")   # a sequence itself (a dict: its keys)

