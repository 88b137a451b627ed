"""Gradients of the array workloads written out by hand in NumPy: the limit of a NumPy
back end (issue 24), what a careful person writes without any AD tool.

Each function takes the workload's arguments (bench/workloads.py) and returns the
gradient with respect to the argument the workload differentiates. They run the
forward pass, keep what the backward pass needs, and write each adjoint as the fewest
NumPy calls: one GEMM for a weight gradient, the derivative of tanh from the saved
output, the sigmoid without the loss's own value. bench/frameworks.py registers them as the
"numpy_by_hand" rows, each checked against revsrc's gradient to 1e-10 before it is timed.
This module imports nothing but NumPy.
"""

import numpy as np


def mlp_by_hand(W1, x, b1, W2, y):
    """d/dW1 of workloads.mlp_loss: sum((tanh(x W1 + b1) W2 - y)^2) / 64."""
    h = np.tanh(np.dot(x, W1) + b1)
    d = np.dot(h, W2) - y
    gh = np.dot(d, W2.T) * (2.0 / 64.0)
    return np.dot(x.T, gh * (1.0 - h * h))


def rnn_by_hand(W, U, b, xs, target):
    """d/dW of workloads.rnn_loss written out: the states kept, the adjoint run back, and
    the weight gradient as one GEMM over all steps."""
    hs = np.empty((41, 16, 32))
    hs[0] = 0.0
    for t in range(40):
        hs[t + 1] = np.tanh(hs[t] @ W + xs[t] @ U + b)
    g = 2.0 * (hs[40] - target) / 16.0
    gs = np.empty((40, 16, 32))
    for t in range(39, -1, -1):
        gz = g * (1.0 - hs[t + 1] * hs[t + 1])
        gs[t] = gz
        g = gz @ W.T
    return hs[:40].reshape(-1, 32).T @ gs.reshape(-1, 32)


def logreg_by_hand(w, X, y):
    """d/dw of workloads.logreg_loss: mean(logaddexp(0, -y X w)). The derivative of
    logaddexp(0, a) is the sigmoid of a; the loss's own value is not needed."""
    a = -y * np.dot(X, w)
    with np.errstate(over="ignore"):   # exp(-a) = inf where a << 0: the sigmoid is 0 there
        s = 1.0 / (1.0 + np.exp(-a))
    return np.dot(X.T, s * -y) / len(y)


def conv_by_hand(K, x, ii, jj):
    """d/dK of workloads.conv_loss: the im2col columns kept, and the kernel gradient as
    one batched product with the columns, summed over the batch."""
    cols = np.reshape(x[:, :, ii, jj], (16, 27, 900))
    out = np.matmul(np.reshape(K, (8, 27)), cols)
    r = np.maximum(out, 0.0)
    g = np.matmul(2.0 * r, np.transpose(cols, (0, 2, 1)))
    return np.reshape(np.sum(g, axis=0), K.shape)


# workload -> its gradient by hand
GRADIENTS = {"mlp": mlp_by_hand, "rnn": rnn_by_hand, "logreg": logreg_by_hand,
             "conv": conv_by_hand}
