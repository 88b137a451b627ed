"""backend="jax": the IR printed as jax.numpy (printer, loops_print), compiled with
jax.jit (compiled), loops run as lax loops (loops), jnp twins of the run-time helpers
(twins); JAX itself is imported by load.require, only when a backend="jax" call asks."""
