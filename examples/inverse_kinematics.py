"""Inverse kinematics of a planar robot arm with revsrc.jacobian.

A three-link arm's hand position is a sum of cosines and sines of its cumulative joint
angles. To move the hand along a path, each target is reached by damped least squares
(Levenberg-Marquardt): dq = J^T (J J^T + lambda^2 I)^-1 (target - hand), where J, the
2 x 3 Jacobian of the hand position, comes from revsrc.jacobian (reverse mode, one
row per output).

    python examples/inverse_kinematics.py
"""
import numpy as np

import revsrc
from _gallery import check, done, figure

LINKS = np.array([1.0, 0.8, 0.5])


def joints(q):
    """Positions of the shoulder, the elbows and the hand."""
    angles = np.cumsum(q)
    steps = np.stack([LINKS * np.cos(angles), LINKS * np.sin(angles)], axis=1)
    return np.concatenate([np.zeros((1, 2)), np.cumsum(steps, axis=0)])


def hand(q):
    angles = np.cumsum(q)
    return np.array([np.sum(LINKS * np.cos(angles)), np.sum(LINKS * np.sin(angles))])


def reach(q, target, jac, damping=0.05, iterations=50):
    for _ in range(iterations):
        err = target - hand(q)
        if np.linalg.norm(err) < 1e-12:
            break
        J = jac(q)
        q = q + J.T @ np.linalg.solve(J @ J.T + damping ** 2 * np.eye(2), err)
    return q


def main():
    jac = revsrc.jacobian(hand)
    q = np.array([0.3, 0.6, 0.9])

    # the Jacobian against central differences, column by column
    eps = 1e-6
    numeric = np.stack([(hand(q + eps * e) - hand(q - eps * e)) / (2 * eps) for e in np.eye(3)], axis=1)
    check(np.allclose(jac(q), numeric, rtol=1e-8, atol=1e-9), "Jacobian against central differences")

    t = np.linspace(0.0, 2 * np.pi, 40)
    path = np.stack([1.2 + 0.5 * np.cos(t), 0.8 + 0.3 * np.sin(2 * t)], axis=1)
    poses, errors = [], []
    for target in path:
        q = reach(q, target, jac)
        poses.append(joints(q))
        errors.append(np.linalg.norm(hand(q) - target))
    print(f"{len(path)} targets reached; largest miss {max(errors):.1e}")
    check(max(errors) < 1e-9, "every target reached to 1e-9")

    with figure("inverse_kinematics", width=4.5, height=4.0) as (fig, ax):
        if fig is not None:
            ax.plot(path[:, 0], path[:, 1], "k:", lw=1, label="hand path")
            for pose in poses[::4]:
                ax.plot(pose[:, 0], pose[:, 1], "o-", color="C0", alpha=0.5, ms=3)
            ax.plot([0], [0], "ks", ms=8)
            ax.set_aspect("equal")
            ax.legend(fontsize=8)
            ax.set_title("three-link arm following a path")
    done()


if __name__ == "__main__":
    main()
