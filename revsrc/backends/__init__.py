"""Program to something that runs: Python/NumPy source (python, on the printer base in
printing), the scalar engine and its native tier (engine/), and jax.numpy under
jax.jit (jax/)."""
