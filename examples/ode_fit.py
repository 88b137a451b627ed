"""Fit the four rates of the Lotka-Volterra predator-prey equations to noisy counts.

The misfit integrates the ODE with the classical Runge-Kutta scheme, written out
in scalars as in a textbook, and sums the squared errors at the observation times.
revsrc differentiates through every RK4 step: revsrc.value_and_grad gives the
misfit and its gradient in the four rates, and BFGS, written out below, fits them.

    python examples/ode_fit.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure

DT, EVERY = 0.05, 10          # RK4 step, and steps between two observations


def rates(x, y, alpha, beta, gamma, delta):
    return alpha * x - beta * x * y, delta * x * y - gamma * y


def rk4_step(x, y, alpha, beta, gamma, delta, dt):
    k1x, k1y = rates(x, y, alpha, beta, gamma, delta)
    k2x, k2y = rates(x + 0.5 * dt * k1x, y + 0.5 * dt * k1y, alpha, beta, gamma, delta)
    k3x, k3y = rates(x + 0.5 * dt * k2x, y + 0.5 * dt * k2y, alpha, beta, gamma, delta)
    k4x, k4y = rates(x + dt * k3x, y + dt * k3y, alpha, beta, gamma, delta)
    return (x + dt / 6.0 * (k1x + 2.0 * k2x + 2.0 * k3x + k4x),
            y + dt / 6.0 * (k1y + 2.0 * k2y + 2.0 * k3y + k4y))


def misfit(alpha, beta, gamma, delta, prey, predators, x0=1.0, y0=0.5):
    x, y = x0, y0
    total = 0.0
    for i in range(len(prey)):
        for _ in range(EVERY):
            x, y = rk4_step(x, y, alpha, beta, gamma, delta, DT)
        total += (x - prey[i]) ** 2 + (y - predators[i]) ** 2
    return total


def trajectory(theta, n, x0=1.0, y0=0.5):
    xs, ys = [x0], [y0]
    x, y = x0, y0
    for _ in range(n * EVERY):
        x, y = rk4_step(x, y, *theta, DT)
        xs.append(x)
        ys.append(y)
    return np.array(xs), np.array(ys)


def bfgs(fun, theta, steps=100, tol=1e-6):
    """Minimise fun (returning value and gradient) by BFGS with a backtracking line search."""
    value, g = fun(theta)
    inverse_hessian = np.eye(len(theta)) * 0.01 / np.max(np.abs(g))   # a first step of 0.01
    history = [value]
    for _ in range(steps):
        direction = -inverse_hessian @ g
        t = 1.0
        while True:
            trial = theta + t * direction
            trial_value, trial_g = fun(trial)
            if trial_value <= value + 1e-4 * t * (g @ direction) or t < 1e-12:
                break
            t *= 0.5
        s, y = trial - theta, trial_g - g
        if s @ y > 1e-14:
            if len(history) == 1:                       # after the first step: a better scale
                inverse_hessian = np.eye(len(theta)) * (s @ y) / (y @ y)
            rho = 1.0 / (s @ y)
            left = np.eye(len(theta)) - rho * np.outer(s, y)
            inverse_hessian = left @ inverse_hessian @ left.T + rho * np.outer(s, s)
        theta, value, g = trial, trial_value, trial_g
        history.append(value)
        if np.max(np.abs(g)) < tol:
            break
    return theta, history


def fit(theta, prey, predators):
    value_grad = revsrc.value_and_grad(misfit, argnums=(0, 1, 2, 3))

    def fun(theta):
        value, g = value_grad(*theta, prey, predators)
        return value, np.array(g)

    return bfgs(fun, theta)


def main():
    truth = np.array([1.1, 0.6, 0.9, 0.5])
    n_obs = 24
    xs, ys = trajectory(truth, n_obs)
    rng = np.random.default_rng(0)
    prey = tuple(xs[EVERY::EVERY] + 0.05 * rng.normal(size=n_obs))
    predators = tuple(ys[EVERY::EVERY] + 0.05 * rng.normal(size=n_obs))

    start = np.array([0.8, 0.4, 1.2, 0.6])
    check_gradient(misfit, (*start, prey, predators), "gradient against central differences",
                   argnums=(0, 1, 2, 3))
    theta, history = fit(start, prey, predators)
    print(f"misfit {history[0]:.3f} -> {history[-1]:.4f} in {len(history) - 1} BFGS steps")
    for name, t, f in zip(("alpha", "beta", "gamma", "delta"), truth, theta):
        print(f"  {name:5s} true {t:.3f}  fitted {f:.3f}")
    check(history[-1] < 0.01 * history[0], "the misfit fell a hundredfold")
    check(np.max(np.abs(theta - truth)) < 0.05, "every rate within 0.05 of the truth")

    with figure("ode_fit") as (fig, ax):
        if fig is not None:
            t_fine = DT * np.arange(n_obs * EVERY + 1)
            t_obs = t_fine[EVERY::EVERY]
            fx, fy = trajectory(theta, n_obs)
            sx, sy = trajectory(start, n_obs)
            ax.plot(t_fine, sx, "C0:", t_fine, sy, "C1:", lw=1)
            ax.plot(t_fine, fx, "C0", label="prey (fit)")
            ax.plot(t_fine, fy, "C1", label="predators (fit)")
            ax.plot(t_obs, prey, "C0o", t_obs, predators, "C1s", ms=3)
            ax.set_xlabel("time")
            ax.set_title("Lotka-Volterra: start (dotted) and fit")
            ax.legend(fontsize=8)
    done()


if __name__ == "__main__":
    main()
