"""Logistic regression trained by minibatch stochastic gradient descent.

The loss is the mean binary cross-entropy plus an L2 penalty, written with
np.logaddexp so that it stays finite for large margins. revsrc.value_and_grad
differentiates it with respect to the weights and the bias (argnums=(0, 1)); the SGD
loop around it is ordinary Python.

    python examples/logistic_regression.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


def loss(w, b, X, y, l2=1e-3):
    z = X @ w + b
    # -log sigmoid(z) for y = 1 and -log(1 - sigmoid(z)) for y = 0, both stable
    nll = np.logaddexp(0.0, z) - y * z
    return np.mean(nll) + l2 * np.dot(w, w)


def make_data(n=2000, d=5, seed=0):
    rng = np.random.default_rng(seed)
    w_true = 2.0 * rng.normal(size=d)
    b_true = -0.5
    X = rng.normal(size=(n, d))
    p = 1.0 / (1.0 + np.exp(-(X @ w_true + b_true)))
    y = (rng.uniform(size=n) < p).astype(float)
    return X, y, w_true, b_true


def sgd(X, y, epochs=20, batch=50, lr0=1.0, seed=1):
    rng = np.random.default_rng(seed)
    w, b = np.zeros(X.shape[1]), 0.0
    step = revsrc.value_and_grad(loss, argnums=(0, 1))
    history = [loss(w, b, X, y)]
    for epoch in range(epochs):
        lr = lr0 / (1.0 + epoch)
        order = rng.permutation(len(y))
        for start in range(0, len(y), batch):
            idx = order[start:start + batch]
            _, (gw, gb) = step(w, b, X[idx], y[idx])
            w, b = w - lr * gw, b - lr * gb
        history.append(loss(w, b, X, y))
    return w, b, history


def main():
    X, y, w_true, b_true = make_data()
    rng = np.random.default_rng(2)
    check_gradient(loss, (rng.normal(size=X.shape[1]), 0.3, X, y), "gradient against central differences",
                   argnums=(0, 1))
    w, b, history = sgd(X, y)
    accuracy = np.mean(((X @ w + b) > 0) == (y > 0.5))
    print(f"loss {history[0]:.4f} at the start, {history[-1]:.4f} after {len(history) - 1} epochs")
    print(f"training accuracy {accuracy:.3f}")
    print("fitted w", np.round(w, 2), "b", round(b, 2))
    print("true   w", np.round(w_true, 2), "b", b_true)
    check(history[-1] < history[0], "the loss fell")
    check(np.linalg.norm(w - w_true) < 0.2 * np.linalg.norm(w_true), "weights near the truth")

    with figure("logistic_regression", ncols=2, width=4.0) as (fig, axes):
        if fig is not None:
            axes[0].plot(history)
            axes[0].set_xlabel("epoch")
            axes[0].set_ylabel("training loss")
            axes[1].scatter(w_true, w)
            lim = [min(w_true.min(), w.min()) - 0.2, max(w_true.max(), w.max()) + 0.2]
            axes[1].plot(lim, lim, "k:")
            axes[1].set_xlabel("true weight")
            axes[1].set_ylabel("fitted weight")
    done()


if __name__ == "__main__":
    main()
