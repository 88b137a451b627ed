"""backend="jax": the IR printed as jax.numpy (printer, loops_print), compiled with
jax.jit (compiled), loops run as lax loops (loops), jnp twins of the run-time helpers
(twins); JAX itself is imported by load.require, only when a backend="jax" call asks.

The layers above reach `compiled` through ``jaxgen``, a stand-in that imports it at
its first attribute access: every use is behind a ``backend="jax"`` test, so a process
that never asks for JAX does not pay for importing the printer and its helpers (they
were a twentieth of ``import revsrc``)."""
import importlib


class LateModule:
    """A module of this package, imported when an attribute of it is first read."""
    __slots__ = ("_name", "_module")

    def __init__(self, name):
        self._name = name
        self._module = None

    def __getattr__(self, attr):    # (every attribute: the stand-in has none of its own)
        module = self._module
        if module is None:
            module = self._module = importlib.import_module(self._name)
        return getattr(module, attr)

    def __repr__(self):
        return f"<late module {self._name}>"


jaxgen = LateModule(__name__ + ".compiled")
