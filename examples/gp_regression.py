"""Gaussian-process regression: fit the kernel's hyperparameters by maximising the
marginal likelihood.

The negative log marginal likelihood of a squared-exponential GP is written as in a
textbook (Rasmussen & Williams, algorithm 2.1): a Cholesky factor, two solves and
the log of its diagonal. revsrc.value_and_grad gives its value and gradient in the
three log-hyperparameters in one call, which is what scipy.optimize.minimize wants
with jac=True. Without SciPy the same function is minimised by plain gradient
descent with a backtracking step.

    python examples/gp_regression.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


def kernel(xa, xb, ell, sf):
    d = xa[:, None] - xb[None, :]
    return sf * sf * np.exp(-0.5 * d * d / (ell * ell))


def neg_log_marginal(theta, x, y):
    ell, sf, sn = np.exp(theta[0]), np.exp(theta[1]), np.exp(theta[2])
    K = kernel(x, x, ell, sf) + (sn * sn + 1e-8) * np.eye(len(x))
    L = np.linalg.cholesky(K)
    z = np.linalg.solve(L, y)            # L z = y, so y^T K^-1 y = z^T z
    return 0.5 * np.dot(z, z) + np.sum(np.log(np.diag(L))) + 0.5 * len(x) * np.log(2 * np.pi)


def predict(theta, x, y, xs):
    ell, sf, sn = np.exp(theta)
    K = kernel(x, x, ell, sf) + sn * sn * np.eye(len(x))
    Ks = kernel(xs, x, ell, sf)
    mean = Ks @ np.linalg.solve(K, y)
    var = sf * sf - np.sum(Ks * np.linalg.solve(K, Ks.T).T, axis=1)
    return mean, np.sqrt(np.maximum(var, 0.0))


def make_data(n=40, ell=0.7, sf=1.3, sn=0.1, seed=0):
    """Draw from the GP itself, so the hyperparameters have true values."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.uniform(-4.0, 4.0, n))
    K = kernel(x, x, ell, sf) + 1e-10 * np.eye(n)
    f = np.linalg.cholesky(K) @ rng.normal(size=n)
    return x, f + sn * rng.normal(size=n), (ell, sf, sn)


def gradient_descent(fun, theta, steps=300):
    """Descent with a step halved until the value falls (what runs without SciPy)."""
    value, g = fun(theta)
    lr = 0.1
    for _ in range(steps):
        while True:
            trial = theta - lr * g
            trial_value, trial_g = fun(trial)
            if trial_value < value or lr < 1e-12:
                break
            lr *= 0.5
        theta, value, g = trial, trial_value, trial_g
        lr *= 1.5
    return theta


def main():
    x, y, truth = make_data()
    theta0 = np.log(np.array([2.0, 0.5, 0.5]))
    check_gradient(neg_log_marginal, (theta0, x, y), "gradient against central differences")

    fun = revsrc.value_and_grad(neg_log_marginal)
    try:
        from scipy.optimize import minimize
    except ImportError:
        print("SciPy is not installed: plain gradient descent instead of L-BFGS")
        theta = gradient_descent(lambda t: fun(t, x, y), theta0)
    else:
        result = minimize(fun, theta0, args=(x, y), jac=True, method="L-BFGS-B")
        print(f"L-BFGS-B: {result.nit} iterations, {result.message}")
        theta = result.x

    value0 = fun(theta0, x, y)[0]
    value, g = fun(theta, x, y)
    ell, sf, sn = np.exp(theta)
    print(f"-log p(y): {value0:.3f} at the start, {value:.3f} at the optimum")
    print(f"length scale {ell:.3f} (true {truth[0]}), signal {sf:.3f} (true {truth[1]}), "
          f"noise {sn:.3f} (true {truth[2]})")
    check(value < value0 - 1.0, "the marginal likelihood rose")
    check(np.max(np.abs(g)) < 1e-3, "the gradient vanishes at the optimum")
    check(abs(np.log(ell / truth[0])) < 0.5 and abs(np.log(sn / truth[2])) < 0.7,
          "length scale and noise near the truth")

    with figure("gp_regression") as (fig, ax):
        if fig is not None:
            xs = np.linspace(-4.5, 4.5, 200)
            mean, sd = predict(theta, x, y, xs)
            ax.fill_between(xs, mean - 2 * sd, mean + 2 * sd, alpha=0.3, label="±2 sd")
            ax.plot(xs, mean, label="posterior mean")
            ax.plot(x, y, "k.", label="data")
            ax.set_title(f"GP fit: ℓ = {ell:.2f}, σf = {sf:.2f}, σn = {sn:.2f}")
            ax.legend(loc="lower left", fontsize=8)
    done()


if __name__ == "__main__":
    main()
