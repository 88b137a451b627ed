"""Program to something that runs: Python/NumPy source, the scalar engine and its
native tier, and jax.numpy under jax.jit."""
