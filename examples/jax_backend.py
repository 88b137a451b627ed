"""The same derivative on XLA: backend="jax", and a revsrc gradient inside jax.vmap.

revsrc writes the derivative of a NumPy loss against jax.numpy and compiles it with
jax.jit when asked for backend="jax". The gradient is the one the default NumPy path
computes (checked here to 1e-12). Because it is a JAX function, jax.vmap maps it: here
it gives per-example gradients of a small regression network, whose mean is the
batch gradient (with JAX's 64-bit mode on, as float64 work needs). Without JAX installed the example says so and exits 0.

    python examples/jax_backend.py
"""
import sys
import time

import numpy as np

import revsrc
from _gallery import check, done, figure

try:
    import jax
except ImportError:
    print("JAX is not installed (pip install \"revsrc[jax]\"): skipping this example")
    sys.exit(0)

# revsrc turns 64-bit mode on while its own derivative runs; under the user's jax.vmap
# or jax.jit the arguments are converted by JAX first, so ask for float64 here too.
jax.config.update("jax_enable_x64", True)


def loss(W1, W2, x, y):
    h = np.tanh(x @ W1)
    err = h @ W2 - y
    return np.mean(err * err)


def main():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(256, 8))
    y = np.sin(x[:, :1]) + 0.1 * rng.normal(size=(256, 1))
    W1 = rng.normal(size=(8, 32)) / np.sqrt(8)
    W2 = rng.normal(size=(32, 1)) / np.sqrt(32)

    g_numpy = revsrc.grad(loss, argnums=(0, 1))(W1, W2, x, y)
    g_jax_fn = revsrc.grad(loss, argnums=(0, 1), backend="jax")
    t0 = time.perf_counter()
    g_jax = g_jax_fn(W1, W2, x, y)
    t1 = time.perf_counter()
    g_jax_fn(W1, W2, x, y)[0].block_until_ready()
    t2 = time.perf_counter()
    print(f"backend='jax': first call (trace and compile) {t1 - t0:.2f} s, next call {(t2 - t1) * 1e3:.2f} ms")
    print(type(g_jax[0]).__name__, g_jax[0].dtype, g_jax[0].shape)
    check(all(np.allclose(np.asarray(a), b, rtol=1e-12, atol=1e-15) for a, b in zip(g_jax, g_numpy)),
          "the jax gradient equals the NumPy path's to 1e-12")

    # one gradient per example: map over the rows of x and y, not over the weights
    per_example = jax.vmap(g_jax_fn, in_axes=(None, None, 0, 0))(W1, W2, x[:, None, :], y[:, None, :])
    norms = np.sqrt(np.sum(np.asarray(per_example[0]) ** 2, axis=(1, 2)))
    print(f"per-example gradients: {per_example[0].shape}, norms from {norms.min():.3f} to {norms.max():.3f}")
    check(np.allclose(np.mean(np.asarray(per_example[0]), axis=0), g_numpy[0], rtol=1e-10, atol=1e-14),
          "the mean of the per-example gradients is the batch gradient")

    print(revsrc.source(g_jax_fn, W1, W2, x, y))

    with figure("jax_backend") as (fig, ax):
        if fig is not None:
            ax.hist(norms, bins=30)
            ax.set_xlabel("|d loss_i / d W1|")
            ax.set_ylabel("examples")
            ax.set_title("per-example gradient norms (jax.vmap of a revsrc gradient)", fontsize=9)
    done()


if __name__ == "__main__":
    main()
