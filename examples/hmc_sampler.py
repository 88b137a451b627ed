"""Hamiltonian Monte Carlo on a banana-shaped distribution, its leapfrog compiled.

HMC moves a particle through the log density's landscape using its gradient. The
target here is x ~ N(0, 2^2), y | x ~ N(x^2 / 2 - 1, 1): curved, so random-walk
Metropolis struggles, and its moments are known (E y = 1, var x = 4). The gradient of
the log density is revsrc.grad; the leapfrog integrator that calls it at each of its
20 steps per proposal is plain Python, and revsrc.jit compiles it, derivative calls included,
onto the scalar engine.

    python examples/hmc_sampler.py
"""
import math

import numpy as np

import revsrc
from _gallery import check, done, figure


def log_density(x, y):
    r = y - 0.5 * x * x + 1.0
    return -0.125 * x * x - 0.5 * r * r


# One derivative per coordinate: inside revsrc.jit, the parts of a tuple-valued
# gradient (argnums=(0, 1)) cannot yet be passed on to another derivative call.
dlogp_dx = revsrc.grad(log_density, argnums=0)
dlogp_dy = revsrc.grad(log_density, argnums=1)


def leapfrog(x, y, px, py, step, n_steps):
    gx, gy = dlogp_dx(x, y), dlogp_dy(x, y)
    for _ in range(n_steps):
        px += 0.5 * step * gx
        py += 0.5 * step * gy
        x += step * px
        y += step * py
        gx, gy = dlogp_dx(x, y), dlogp_dy(x, y)
        px += 0.5 * step * gx
        py += 0.5 * step * gy
    return x, y, px, py


def hmc(n_samples, step=0.15, n_steps=20, seed=0):
    rng = np.random.default_rng(seed)
    move = revsrc.jit(leapfrog)
    x, y = 0.0, 0.0
    samples = np.empty((n_samples, 2))
    accepted = 0
    for i in range(n_samples):
        px, py = rng.normal(size=2)
        x1, y1, px1, py1 = move(x, y, px, py, step, n_steps)
        h0 = -log_density(x, y) + 0.5 * (px * px + py * py)
        h1 = -log_density(x1, y1) + 0.5 * (px1 * px1 + py1 * py1)
        if math.log(rng.uniform()) < h0 - h1:
            x, y = x1, y1
            accepted += 1
        samples[i] = x, y
    return samples, accepted / n_samples


def main():
    args = (0.7, -0.2, 0.3, 0.1, 0.15, 20)
    check(revsrc.jit(leapfrog)(*args) == leapfrog(*args), "jit gives the digits of plain Python")

    samples, rate = hmc(4000)
    kept = samples[500:]
    print(f"acceptance rate {rate:.2f}")
    print(f"E x = {kept[:, 0].mean():+.3f} (0), var x = {kept[:, 0].var():.3f} (4), "
          f"E y = {kept[:, 1].mean():.3f} (1)")
    check(rate > 0.6, "acceptance rate above 60%")
    check(abs(kept[:, 0].mean()) < 0.3 and abs(kept[:, 0].var() - 4.0) < 1.0
          and abs(kept[:, 1].mean() - 1.0) < 0.4, "moments near the exact ones")

    with figure("hmc_sampler", width=4.5, height=4.0) as (fig, ax):
        if fig is not None:
            gx, gy = np.meshgrid(np.linspace(-6, 6, 200), np.linspace(-3, 12, 200))
            ax.contour(gx, gy, np.exp(log_density(gx, gy)), levels=6, colors="0.5", linewidths=0.8)
            ax.plot(kept[:, 0], kept[:, 1], ".", ms=1.5, alpha=0.5)
            ax.set_title(f"HMC, {len(kept)} samples")
    done()


if __name__ == "__main__":
    main()
