"""backend="jax": the IR printed as jax.numpy, loops as lax loops, jnp twins of the
run-time helpers."""
