"""Reverse mode by source transformation (see `adjoint` for how it works).

The pipeline asks this package for `transform` and for `STACK_KIND` (the kind of a
value on each stack); the pieces of the pass live in its modules.
"""
from .adjoint import STACK_KIND, transform

__all__ = ["STACK_KIND", "transform"]
