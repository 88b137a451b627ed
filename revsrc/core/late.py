"""A stand-in for a module that is imported when an attribute of it is first read.

A module that only some programs need (the forward-mode pass, the JAX back end's
printer, the small-array tier's register layout) costs every ``import revsrc`` its
loading time. Its importer names it through a `LateModule` instead, and reads it as it
would the module (``jvp.transform(...)``): the first read imports it. The stand-in
names the module by its dotted name, so the layers test (tests/test_layers.py) does
not see the import; a module named here must still sit at or below its importer's
layer.
"""
import importlib

__all__ = ["LateModule"]


class LateModule:
    """A module (revsrc's, or the standard library's), imported when an attribute of it
    is first read."""
    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):    # (every attribute: the stand-in has none of its own)
        return getattr(self._loaded(), attr)

    def __setattr__(self, attr, value):   # (a test patching the module through it)
        if attr in LateModule.__slots__:
            object.__setattr__(self, attr, value)
        else:
            setattr(self._loaded(), attr, value)

    def __delattr__(self, attr):
        delattr(self._loaded(), attr)

    def _loaded(self):
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return module

    def __repr__(self):
        return f"<late module {self._name}>"
