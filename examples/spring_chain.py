"""A hanging chain of masses and springs: fit the springs' rest lengths to where the
masses came to rest.

Eight masses hang between two fixed anchors, joined by nine springs. A damped
simulation (semi-implicit Euler, 200 steps) lets the chain settle under gravity.
Given where each mass was observed at rest, the springs' rest lengths are unknown:
revsrc.grad differentiates the final positions' mismatch through all 200 time steps
with respect to the nine rest lengths, and gradient descent recovers them.

    python examples/spring_chain.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure

N_MASSES, STEPS, DT = 8, 200, 0.04
STIFFNESS, DAMPING, GRAVITY = 60.0, 2.0, 9.81
LEFT, RIGHT = np.array([0.0, 0.0]), np.array([4.0, 0.0])


def settle(rest):
    """Positions of the masses after STEPS damped time steps from a straight line."""
    x = np.linspace(LEFT, RIGHT, N_MASSES + 2)[1:-1]
    v = np.zeros_like(x)
    gravity = np.array([0.0, -GRAVITY])
    for _ in range(STEPS):
        nodes = np.concatenate([LEFT[None, :], x, RIGHT[None, :]])
        d = nodes[1:] - nodes[:-1]                      # one row per spring
        length = np.sqrt(np.sum(d * d, axis=1))
        tension = STIFFNESS * (length - rest) / length
        pull = tension[:, None] * d     # spring i pulls its left node by +pull[i], its right by -pull[i]
        force = pull[1:] - pull[:-1] + gravity - DAMPING * v
        v = v + DT * force
        x = x + DT * v
    return x


def mismatch(rest, observed):
    err = settle(rest) - observed
    return np.sum(err * err)


def main():
    true_rest = np.array([0.30, 0.35, 0.40, 0.45, 0.50, 0.45, 0.40, 0.35, 0.30])
    rng = np.random.default_rng(0)
    observed = settle(true_rest) + 0.002 * rng.normal(size=(N_MASSES, 2))

    rest = np.full(9, 0.4)
    check_gradient(mismatch, (rest, observed), "gradient against central differences")
    dmismatch = revsrc.value_and_grad(mismatch)
    value, g = dmismatch(rest, observed)
    history = [value]
    lr = 0.05
    for _ in range(80):
        trial = rest - lr * g
        trial_value, trial_g = dmismatch(trial, observed)
        if trial_value < value:
            rest, value, g = trial, trial_value, trial_g
            lr *= 1.3
        else:
            lr *= 0.3
        history.append(value)
    print(f"mismatch {history[0]:.4f} -> {history[-1]:.2e}")
    print("fitted rest lengths", np.round(rest, 3))
    print("true rest lengths  ", true_rest)
    check(history[-1] < 1e-3 * history[0], "the mismatch fell a thousandfold")
    check(np.max(np.abs(rest - true_rest)) < 0.02, "rest lengths within 0.02 of the truth")

    with figure("spring_chain", ncols=2, width=4.0) as (fig, axes):
        if fig is not None:
            for positions, style, label in ((settle(np.full(9, 0.4)), "C0o--", "start"),
                                            (settle(rest), "C3o-", "fitted")):
                chain = np.concatenate([LEFT[None, :], positions, RIGHT[None, :]])
                axes[0].plot(chain[:, 0], chain[:, 1], style, ms=4, label=label)
            axes[0].plot(observed[:, 0], observed[:, 1], "kx", label="observed")
            axes[0].set_aspect("equal")
            axes[0].legend(fontsize=8)
            axes[1].semilogy(history)
            axes[1].set_xlabel("iteration")
            axes[1].set_ylabel("mismatch")
    done()


if __name__ == "__main__":
    main()
