"""A Laplace approximation to the posterior of a Bayesian logistic regression.

The negative log posterior is the logistic loss plus a Gaussian prior on the weights.
Newton's method finds its mode with revsrc.grad and revsrc.hessian; the Hessian at the
mode is the precision of the Gaussian that approximates the posterior. The
predictive probability then averages the sigmoid over that Gaussian (by the probit
approximation), so it is less confident far from the data than the MAP fit.

    python examples/laplace_approximation.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


def neg_log_posterior(w, X, y, prior_var=4.0):
    z = X @ w
    return np.sum(np.logaddexp(0.0, z) - y * z) + 0.5 * np.dot(w, w) / prior_var


def features(points):
    return np.column_stack([np.ones(len(points)), points])


def make_data(n=40, seed=0):
    rng = np.random.default_rng(seed)
    y = (rng.uniform(size=n) < 0.5).astype(float)
    centres = np.where(y[:, None] > 0.5, [1.0, 0.8], [-1.0, -0.6])
    return centres + 0.9 * rng.normal(size=(n, 2)), y


def main():
    points, y = make_data()
    X = features(points)
    grad = revsrc.grad(neg_log_posterior)
    hess = revsrc.hessian(neg_log_posterior)
    w = np.zeros(3)
    check_gradient(neg_log_posterior, (w + 0.3, X, y), "gradient against central differences")
    for step in range(20):
        g = grad(w, X, y)
        w = w - np.linalg.solve(hess(w, X, y), g)
        if np.max(np.abs(g)) < 1e-10:
            break
    H = hess(w, X, y)
    cov = np.linalg.inv(H)
    print(f"mode after {step} Newton steps: w = {np.round(w, 3)}")
    print("posterior standard deviations:", np.round(np.sqrt(np.diag(cov)), 3))

    p = 1.0 / (1.0 + np.exp(-X @ w))
    by_hand = X.T @ (X * (p * (1 - p))[:, None]) + np.eye(3) / 4.0
    check(np.max(np.abs(grad(w, X, y))) < 1e-9, "the gradient vanishes at the mode")
    check(np.allclose(H, by_hand, rtol=1e-10, atol=1e-12), "Hessian equals X^T diag(p(1-p)) X + I/4")
    check(np.all(np.linalg.eigvalsh(H) > 0), "the Hessian is positive definite")

    with figure("laplace_approximation", ncols=2, width=4.0) as (fig, axes):
        if fig is not None:
            gx, gy = np.meshgrid(np.linspace(-4, 4, 100), np.linspace(-4, 4, 100))
            F = features(np.column_stack([gx.ravel(), gy.ravel()]))
            mean = F @ w
            var = np.sum(F @ cov * F, axis=1)
            for ax, z, title in ((axes[0], mean, "MAP"),
                                 (axes[1], mean / np.sqrt(1 + np.pi * var / 8), "Laplace predictive")):
                prob = (1 / (1 + np.exp(-z))).reshape(gx.shape)
                cs = ax.contourf(gx, gy, prob, levels=np.linspace(0, 1, 11), cmap="RdBu_r")
                for label, marker in ((0.0, "o"), (1.0, "^")):
                    mine = points[y == label]
                    ax.scatter(mine[:, 0], mine[:, 1], marker=marker, c="w", edgecolors="k", s=25)
                ax.set_title(f"p(y = 1): {title}")
            fig.colorbar(cs, ax=axes[1])
    done()


if __name__ == "__main__":
    main()
