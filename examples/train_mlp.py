"""Train a two-layer MLP whose parameters live in a dict, by plain gradient descent.

The data are synthetic (a noisy smooth function of two inputs), made here from a fixed
seed. revsrc.value_and_grad takes the dict apart into its arrays, differentiates the
loss with respect to each, and returns the gradient as a dict with the same keys.

    python examples/train_mlp.py
"""
import numpy as np

import revsrc
from _gallery import check, done, figure


def make_data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.uniform(-2.0, 2.0, size=(n, 2))
    y = np.sin(x[:, :1]) * np.cos(x[:, 1:]) + 0.05 * rng.normal(size=(n, 1))
    return x, y


def init_params(hidden=16, seed=1):
    rng = np.random.default_rng(seed)
    return {
        "W1": rng.normal(size=(2, hidden)) / np.sqrt(2.0),
        "b1": np.zeros(hidden),
        "W2": rng.normal(size=(hidden, 1)) / np.sqrt(hidden),
        "b2": np.zeros(1),
    }


def predict(params, x):
    h = np.tanh(x @ params["W1"] + params["b1"])
    return h @ params["W2"] + params["b2"]


def loss(params, x, y):
    err = predict(params, x) - y
    return np.mean(err * err)


def train(steps=500, lr=0.1, every=100):
    x, y = make_data()
    params = init_params()
    step = revsrc.value_and_grad(loss)
    history = []
    for i in range(steps + 1):
        value, grads = step(params, x, y)
        history.append(value)
        if i % every == 0:
            print(f"step {i:4d}  loss {value:.5f}")
        params = {k: params[k] - lr * grads[k] for k in params}
    return params, history


def main():
    params, history = train()
    check(history[-1] < 0.05 * history[0], "the loss fell twentyfold")
    with figure("train_mlp", ncols=2, width=4.0) as (fig, axes):
        if fig is not None:
            axes[0].semilogy(history)
            axes[0].set_xlabel("step")
            axes[0].set_ylabel("mean squared error")
            grid = np.linspace(-2.0, 2.0, 60)
            gx, gy = np.meshgrid(grid, grid)
            pred = predict(params, np.stack([gx.ravel(), gy.ravel()], axis=1)).reshape(gx.shape)
            axes[1].contourf(gx, gy, pred, levels=15, cmap="viridis")
            axes[1].set_title("the fitted sin(x1) cos(x2)")
    done()


if __name__ == "__main__":
    main()
