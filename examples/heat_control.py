"""Heat control: choose where to heat a plate so that it reaches a target pattern.

A square plate, held at zero on its edges, is heated for 60 explicit time steps of the
2-D heat equation by a heater field s (one power per cell, at every step). The loss
is the mismatch between the final temperature and a target ring, plus a small
penalty on the power used. revsrc.grad differentiates through all the time steps
(the five-point Laplacian written with slices), and plain gradient descent with
momentum finds the heater field.

    python examples/heat_control.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure

N, STEPS, DT, KAPPA = 24, 60, 0.2, 1.0       # DT * KAPPA <= 1/4: the explicit scheme is stable


def laplacian(u):
    lap = np.zeros_like(u)
    lap[1:-1, 1:-1] = (u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]
                       - 4.0 * u[1:-1, 1:-1])
    return lap


def final_temperature(s):
    u = np.zeros((N, N))
    for _ in range(STEPS):
        u = u + DT * (KAPPA * laplacian(u) + s)
        u[0, :] = 0.0
        u[-1, :] = 0.0
        u[:, 0] = 0.0
        u[:, -1] = 0.0
    return u


def loss(s, target, penalty=1e-4):
    err = final_temperature(s) - target
    return np.mean(err * err) + penalty * np.mean(s * s)


def ring_target():
    y, x = np.mgrid[0:N, 0:N] / (N - 1) - 0.5
    rad = np.sqrt(x * x + y * y)
    return np.exp(-((rad - 0.25) / 0.07) ** 2)


def main():
    target = ring_target()
    rng = np.random.default_rng(0)
    check_gradient(loss, (rng.uniform(0.0, 0.1, (N, N)), target),
                   "gradient against central differences")
    dloss = revsrc.value_and_grad(loss)
    s = np.zeros((N, N))
    velocity = np.zeros_like(s)
    history = []
    for _ in range(150):
        value, g = dloss(s, target)
        history.append(value)
        velocity = 0.9 * velocity - 3.0 * g
        s = s + velocity
    u = final_temperature(s)
    print(f"loss {history[0]:.5f} -> {history[-1]:.6f} in {len(history)} steps")
    print(f"largest error in the final temperature {np.max(np.abs(u - target)):.3f}")
    check(history[-1] < 0.02 * history[0], "the loss fell fiftyfold")

    with figure("heat_control", ncols=3, width=3.0, height=3.0) as (fig, axes):
        if fig is not None:
            for ax, image, title in zip(axes, (target, s, u), ("target", "heater field", "reached")):
                ax.imshow(image, cmap="inferno")
                ax.set_title(title)
                ax.set_axis_off()
    done()


if __name__ == "__main__":
    main()
