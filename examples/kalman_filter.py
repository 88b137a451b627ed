"""Estimate the noise levels of a Kalman filter by maximum likelihood.

A target moves with nearly constant velocity; we see its position with noise. The
filter's log-likelihood (the prediction-error decomposition) depends on the process
noise q and the measurement noise r. It is written as the usual predict / update
loop over 2 x 2 matrices, and revsrc differentiates through all of it: value_and_grad
gives the gradient in (log q, log r), hessian its 2 x 2 Hessian, and Newton's method
finds the maximum.

    python examples/kalman_filter.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure

DT = 1.0
F = np.array([[1.0, DT], [0.0, 1.0]])                       # constant velocity
G = np.array([[DT ** 3 / 3, DT ** 2 / 2], [DT ** 2 / 2, DT]])   # white-noise acceleration
H = np.array([[1.0, 0.0]])                                  # we see the position


def neg_log_likelihood(log_q, log_r, zs):
    q, r = np.exp(log_q), np.exp(log_r)
    x = np.array([zs[0], 0.0])
    P = np.diag([r, 10.0])
    total = 0.0
    for z in zs[1:]:
        x = F @ x                                           # predict
        P = F @ P @ F.T + q * G
        S = P[0, 0] + r                                     # innovation variance
        v = z - x[0]                                        # innovation
        total += 0.5 * (np.log(2 * np.pi * S) + v * v / S)
        K = P[:, 0] / S                                     # update
        x = x + K * v
        P = P - np.outer(K, P[0, :])
    return total


def filtered(log_q, log_r, zs):
    q, r = np.exp(log_q), np.exp(log_r)
    x, P = np.array([zs[0], 0.0]), np.diag([r, 10.0])
    out = [x[0]]
    for z in zs[1:]:
        x, P = F @ x, F @ P @ F.T + q * G
        K = P @ H.T / (P[0, 0] + r)
        x = x + (K * (z - x[0]))[:, 0]
        P = P - K @ H @ P
        out.append(x[0])
    return np.array(out)


def simulate(n=120, q=0.05, r=4.0, seed=0):
    rng = np.random.default_rng(seed)
    x = np.zeros(2)
    truth, zs = [], []
    chol = np.linalg.cholesky(q * G)
    for _ in range(n):
        x = F @ x + chol @ rng.normal(size=2)
        truth.append(x[0])
        zs.append(x[0] + np.sqrt(r) * rng.normal())
    return np.array(truth), np.array(zs)


def main():
    q_true, r_true = 0.05, 4.0
    truth, zs = simulate(q=q_true, r=r_true)
    start = (np.log(1.0), np.log(1.0))
    check_gradient(neg_log_likelihood, (*start, zs), "gradient against central differences",
                   argnums=(0, 1))

    value_grad = revsrc.value_and_grad(neg_log_likelihood, argnums=(0, 1))
    hess = revsrc.hessian(neg_log_likelihood, argnums=(0, 1))
    theta = np.array(start)
    value, g = value_grad(*theta, zs)
    first = value
    for step in range(20):
        Hm = np.array(hess(*theta, zs))
        newton = np.linalg.solve(Hm, np.array(g))
        if np.any(np.linalg.eigvalsh(Hm) <= 0):          # not convex here: go downhill
            newton = np.array(g)
        t = 1.0
        while value_grad(*(theta - t * newton), zs)[0] > value and t > 1e-6:
            t *= 0.5
        theta = theta - t * newton
        value, g = value_grad(*theta, zs)
        if np.max(np.abs(g)) < 1e-9:
            break
    q, r = np.exp(theta)
    print(f"-log likelihood {first:.3f} -> {value:.3f} in {step + 1} Newton steps")
    print(f"process noise q = {q:.4f} (true {q_true}), measurement noise r = {r:.3f} (true {r_true})")
    check(value < first and np.max(np.abs(g)) < 1e-6, "converged to a stationary point")
    check(np.all(np.linalg.eigvalsh(np.array(hess(*theta, zs))) > 0), "it is a minimum")
    check(abs(np.log(q / q_true)) < 1.0 and abs(np.log(r / r_true)) < 0.4,
          "q and r near the truth")

    with figure("kalman_filter") as (fig, ax):
        if fig is not None:
            t = np.arange(len(zs))
            ax.plot(t, zs, ".", color="0.6", ms=4, label="measurements")
            ax.plot(t, truth, "k", lw=1, label="true position")
            ax.plot(t, filtered(*theta, zs), "C3", label="filter, fitted q and r")
            ax.set_xlabel("time step")
            ax.legend(fontsize=8)
    done()


if __name__ == "__main__":
    main()
