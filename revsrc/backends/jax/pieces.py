"""The jax.numpy twin of a list's cotangent (``backend="jax"``): NumPy's runtime keeps
the adjoint of a list as a 1-D object array, one item per slot; under JAX an object array
cannot hold traced values, so this small class stands in for it. Imported by
revsrc/backends/jax/twins.py."""
import jax
import numpy as np


class Pieces:
    """The adjoint of a list of values, one item each (NumPy's twin is a 1-D object
    array): indexable like the list, and ``+`` adds item by item."""
    __slots__ = ("items",)
    dtype = np.dtype(object)
    ndim = 1

    def __init__(self, items):
        self.items = list(items)

    def __setitem__(self, i, value):
        self.items[i] = value

    @property
    def shape(self):
        return (len(self.items),)

    def __len__(self):
        return len(self.items)

    def __iter__(self):
        return iter(self.items)

    def __getitem__(self, i):
        if isinstance(i, slice):
            return Pieces(self.items[i])
        return self.items[i]

    def __add__(self, other):
        if isinstance(other, Pieces):
            return Pieces(a + b for a, b in zip(self.items, other.items))
        if isinstance(other, (list, tuple)):
            return Pieces(a + b for a, b in zip(self.items, other))
        return Pieces(a + other for a in self.items)

    __radd__ = __add__

    def __mul__(self, other):
        return Pieces(a * other for a in self.items)

    __rmul__ = __mul__

    def __neg__(self):
        return Pieces(-a for a in self.items)


# a pytree whose leaves are its items: a loop JAX compiles carries every variable its
# body assigns, and an adjoint's loop assigns a list's cotangent on every turn
jax.tree_util.register_pytree_node(Pieces, lambda p: (p.items, None),
                                   lambda aux, items: Pieces(items))


def pieces(items):
    return Pieces(items)
