"""An MLP classifier on two interleaved half-moons, trained with Adam written by hand.

The parameters are a list of (W, b) pairs; revsrc.grad returns the gradient as a list
of pairs of the same shapes, and revsrc.tree_map applies the Adam update leaf by leaf.
The loss is softmax cross-entropy, with the log-sum-exp shifted by its maximum.

    python examples/mlp_classifier.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


def forward(params, x):
    h = x
    for W, b in params[:-1]:
        h = np.tanh(h @ W + b)
    W, b = params[-1]
    return h @ W + b


def loss(params, x, labels):
    logits = forward(params, x)
    top = np.max(logits, axis=1, keepdims=True)
    log_z = top[:, 0] + np.log(np.sum(np.exp(logits - top), axis=1))
    picked = logits[np.arange(len(labels)), labels]
    return np.mean(log_z - picked)


def two_moons(n=300, noise=0.12, seed=0):
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.0, np.pi, n)
    labels = rng.integers(0, 2, n)
    x = np.where(labels[:, None] == 0,
                 np.stack([np.cos(t), np.sin(t)], axis=1),
                 np.stack([1.0 - np.cos(t), 0.5 - np.sin(t)], axis=1))
    return x + noise * rng.normal(size=x.shape), labels


def init(sizes, seed=1):
    rng = np.random.default_rng(seed)
    return [(rng.normal(size=(m, n)) / np.sqrt(m), np.zeros(n)) for m, n in zip(sizes[:-1], sizes[1:])]


def adam(params, x, labels, steps=300, lr=0.03, b1=0.9, b2=0.999, eps=1e-8):
    step = revsrc.value_and_grad(loss)
    m = revsrc.tree_map(np.zeros_like, params)
    v = revsrc.tree_map(np.zeros_like, params)
    history = []
    for t in range(1, steps + 1):
        value, g = step(params, x, labels)
        history.append(value)
        m = revsrc.tree_map(lambda m, g: b1 * m + (1 - b1) * g, m, g)
        v = revsrc.tree_map(lambda v, g: b2 * v + (1 - b2) * g * g, v, g)
        params = revsrc.tree_map(
            lambda p, m, v: p - lr * (m / (1 - b1 ** t)) / (np.sqrt(v / (1 - b2 ** t)) + eps),
            params, m, v)
    return params, history


def main():
    x, labels = two_moons()
    params = init([2, 24, 24, 2])
    check_gradient(loss, (params, x, labels), "gradient against central differences")
    params, history = adam(params, x, labels)
    accuracy = np.mean(np.argmax(forward(params, x), axis=1) == labels)
    x_test, labels_test = two_moons(seed=5)
    test_accuracy = np.mean(np.argmax(forward(params, x_test), axis=1) == labels_test)
    print(f"loss {history[0]:.4f} -> {history[-1]:.4f} in {len(history)} Adam steps")
    print(f"accuracy: training {accuracy:.3f}, held out {test_accuracy:.3f}")
    check(history[-1] < 0.1 * history[0], "the loss fell tenfold")
    check(test_accuracy > 0.95, "held-out accuracy above 95%")

    with figure("mlp_classifier", ncols=2, width=4.0) as (fig, axes):
        if fig is not None:
            axes[0].semilogy(history)
            axes[0].set_xlabel("Adam step")
            axes[0].set_ylabel("cross-entropy")
            gx, gy = np.meshgrid(np.linspace(-1.5, 2.5, 120), np.linspace(-1.0, 1.5, 100))
            logits = forward(params, np.stack([gx.ravel(), gy.ravel()], axis=1))
            margin = (logits[:, 1] - logits[:, 0]).reshape(gx.shape)
            axes[1].contourf(gx, gy, margin, levels=[-1e9, 0.0, 1e9], colors=["#cde", "#fdc"])
            axes[1].contour(gx, gy, margin, levels=[0.0], colors="k", linewidths=1)
            axes[1].scatter(x[:, 0], x[:, 1], c=labels, s=6, cmap="coolwarm")
            axes[1].set_title("decision boundary")
    done()


if __name__ == "__main__":
    main()
