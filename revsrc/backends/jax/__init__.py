"""backend="jax": the IR printed as jax.numpy (printer, loops_print), compiled with
jax.jit (compiled), loops run as lax loops (loops), jnp twins of the run-time helpers
(twins); JAX itself is imported by load.require, only when a backend="jax" call asks.

The layers above reach `compiled` through ``jaxgen``, a stand-in that imports it at
its first attribute access: every use is behind a ``backend="jax"`` test, so a process
that never asks for JAX does not pay for importing the printer and its helpers (they
were a twentieth of ``import revsrc``)."""
from ...core.late import LateModule

jaxgen = LateModule(__name__ + ".compiled")
