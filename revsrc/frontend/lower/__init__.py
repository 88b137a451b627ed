"""The lowering of a function's ``ast`` to the IR (lowerer.py says how it is put
together): `Lowerer` is its one entry."""
from .lowerer import Lowerer

__all__ = ["Lowerer"]
