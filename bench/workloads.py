"""The benchmark workloads, written the way a revsrc user writes them.

Each workload is a module-level plain Python/NumPy function (what `revsrc.grad`
reads) plus a seeded data builder. The framework-specific translations live in
`bench/frameworks.py`; this module imports nothing but NumPy and `math`, so it is
also what the central-difference baseline and the gradient checks run on.
"""

import math

import numpy as np

SEED = 20240601

# ----- 1. MLP loss, d/dW1 -----


def mlp_loss(W1, x, b1, W2, y):
    h = np.tanh(np.dot(x, W1) + b1)
    d = np.dot(h, W2) - y
    return np.sum(d * d) / 64.0


def mlp_data():
    """(W1, x, b1, W2, y) with the shapes of the MLP workload."""
    rng = np.random.default_rng(SEED)
    W1 = rng.standard_normal((128, 128)) / math.sqrt(128.0)
    x = rng.standard_normal((64, 128))
    b1 = 0.1 * rng.standard_normal(128)
    W2 = rng.standard_normal((128, 10)) / math.sqrt(128.0)
    y = rng.standard_normal((64, 10))
    return W1, x, b1, W2, y


# ----- 2. im2col convolution, d/dK -----


def conv_loss(K, x, ii, jj):
    cols = np.reshape(x[:, :, ii, jj], (16, 27, 900))
    out = np.matmul(np.reshape(K, (8, 27)), cols)
    r = np.maximum(out, 0.0)
    return np.sum(r * r)


def im2col_indices(size=32, k=3):
    """Row and column index arrays (k*k, out*out) for a k x k kernel, stride 1, no padding.

    Row `ki*k + kj` holds the image coordinates seen by kernel offset (ki, kj); the
    column is the output position `oi*out + oj`.
    """
    out = size - k + 1
    oi, oj = np.divmod(np.arange(out * out), out)
    ki, kj = np.divmod(np.arange(k * k), k)
    ii = ki[:, None] + oi[None, :]
    jj = kj[:, None] + oj[None, :]
    return ii.astype(np.intp), jj.astype(np.intp)


def conv_data():
    """(K, x, ii, jj): 8 filters 3x3x3 over a batch of 16 RGB 32x32 images."""
    rng = np.random.default_rng(SEED + 1)
    K = rng.standard_normal((8, 3, 3, 3)) / math.sqrt(27.0)
    x = rng.standard_normal((16, 3, 32, 32))
    ii, jj = im2col_indices()
    return K, x, ii, jj


# ----- 3. data-dependent scalar recurrence, d/dx -----


def recurrence(x):
    for i in range(1000):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def recurrence_n(x, n):
    for i in range(n):
        if x > 1.0:
            x = x - 0.002 * math.sin(x) * x
        else:
            x = x + 0.003 * math.cos(x) + 0.001 * x * x
    return x


def recurrence_data():
    return (0.3,)


# ----- 4. Newton's method from many starts -----


def g(x):
    return math.exp(-x * x) * math.cos(3.0 * x)


NEWTON_STARTS = 100_000
NEWTON_STEPS = 6


def newton_starts(n=NEWTON_STARTS):
    return np.linspace(0.1, 0.5, n)


def newton_data(n=NEWTON_STARTS):
    return (newton_starts(n),)


def dg_by_hand(x):
    """g'(x), written out: the floor for a derivative called from Python."""
    e = math.exp(-x * x)
    return e * (-2.0 * x * math.cos(3.0 * x) - 3.0 * math.sin(3.0 * x))


def newton(starts, dg):
    """Six Newton steps on g from every start, with the derivative `dg` given as a function."""
    roots = np.empty(len(starts))
    for k in range(len(starts)):
        x = float(starts[k])
        for _ in range(NEWTON_STEPS):
            d = dg(x)
            if d == 0.0:  # far out in the tail exp(-x*x) underflows: stop there
                break
            x = x - g(x) / d
        roots[k] = x
    return roots


def newton_reference(starts):
    """The same Newton iteration, vectorized, with g' written out by hand: the oracle."""
    x = np.array(starts, dtype=float)
    for _ in range(NEWTON_STEPS):
        e = np.exp(-x * x)
        gx = e * np.cos(3.0 * x)
        dgx = e * (-2.0 * x * np.cos(3.0 * x) - 3.0 * np.sin(3.0 * x))
        x = np.where(dgx == 0.0, x, x - gx / np.where(dgx == 0.0, 1.0, dgx))
    return x


# ----- 5a. RNN over 40 time steps, d/dW -----

RNN_STEPS = 40
RNN_BATCH = 16
RNN_HIDDEN = 32
RNN_INPUT = 16


def rnn_loss(W, U, b, xs, target):
    h = np.zeros((16, 32))
    for t in range(40):
        h = np.tanh(np.dot(h, W) + np.dot(xs[t], U) + b)
    d = h - target
    return np.sum(d * d) / 16.0


def rnn_data():
    """(W, U, b, xs, target): hidden 32, input 16, batch 16, 40 steps."""
    rng = np.random.default_rng(SEED + 2)
    W = 0.9 * rng.standard_normal((32, 32)) / math.sqrt(32.0)
    U = rng.standard_normal((16, 32)) / math.sqrt(16.0)
    b = 0.1 * rng.standard_normal(32)
    xs = rng.standard_normal((40, 16, 16))
    target = 0.5 * rng.standard_normal((16, 32))
    return W, U, b, xs, target


# ----- 5b. logistic regression, d/dw -----


def logreg_loss(w, X, y):
    z = np.dot(X, w)
    return np.mean(np.logaddexp(0.0, -y * z))


def logreg_data():
    """(w, X, y): 20,000 samples x 16 features, labels in {-1, +1}."""
    rng = np.random.default_rng(SEED + 3)
    X = rng.standard_normal((20_000, 16))
    w_true = rng.standard_normal(16)
    y = np.where(X @ w_true + 0.5 * rng.standard_normal(20_000) > 0.0, 1.0, -1.0)
    w = 0.1 * rng.standard_normal(16)
    return w, X, y


# ----- 5c. RK4 integration of a damped oscillator, d/dk -----


def oscillator(k):
    x = 1.0
    v = 0.0
    dt = 0.05
    c = 0.3
    for i in range(200):
        a1 = -k * x - c * v
        x2 = x + 0.5 * dt * v
        v2 = v + 0.5 * dt * a1
        a2 = -k * x2 - c * v2
        x3 = x + 0.5 * dt * v2
        v3 = v + 0.5 * dt * a2
        a3 = -k * x3 - c * v3
        x4 = x + dt * v3
        v4 = v + dt * a3
        a4 = -k * x4 - c * v4
        x = x + dt / 6.0 * (v + 2.0 * v2 + 2.0 * v3 + v4)
        v = v + dt / 6.0 * (a1 + 2.0 * a2 + 2.0 * a3 + a4)
    return x


def oscillator_data():
    return (2.0,)


# ----- a single call of g and of its derivative -----


def call_data():
    return (0.3,)


# ----- 6. Newton compiled whole: revsrc.jit and revsrc.vmap -----
# The program of the README: Newton from 100,000 starts 0.4 + i * 1e-6, six steps each,
# with dg the revsrc derivative of g (math.*), or of g_np (the same g spelled in NumPy).

JIT_STARTS = 100_000


def g_np(x):
    return np.exp(-x * x) * np.cos(3.0 * x)


def newton_program(g, dg):
    """(newton, newton_all) over a function g and its derivative dg, as a user writes
    them (revsrc.jit and revsrc.vmap read their source; dg is a revsrc derivative)."""
    def newton(x):
        for _ in range(6):
            x = x - g(x) / dg(x)
        return x

    def newton_all(count):
        total = 0.0
        for i in range(count):
            total += newton(0.4 + i * 1e-6)
        return total / count

    return newton, newton_all


def jit_starts(n=JIT_STARTS):
    return 0.4 + np.arange(n) * 1e-6


def jit_data():
    return (JIT_STARTS,)


def map_data():
    return (jit_starts(),)


def numpy_newton(x):
    """NumPy's own vectorised Newton over the whole array, g' written out by hand."""
    for _ in range(6):
        e = np.exp(-x * x)
        c = np.cos(3.0 * x)
        s = np.sin(3.0 * x)
        x = x - (e * c) / (e * (-2.0 * x * c - 3.0 * s))
    return x


# ----- registry -----

# name -> (function, data builder, argnum, kind). "scalar" workloads take and return
# Python floats; "array" workloads differentiate with respect to one ndarray. "call"
# comes before "newton" (both differentiate g) so its compile+first is revsrc's first.
WORKLOADS = {
    "mlp": (mlp_loss, mlp_data, 0, "array"),
    "conv": (conv_loss, conv_data, 0, "array"),
    "recurrence": (recurrence, recurrence_data, 0, "scalar"),
    "call": (g, call_data, 0, "scalar"),
    "newton": (g, newton_data, 0, "newton"),
    "rnn": (rnn_loss, rnn_data, 0, "array"),
    "logreg": (logreg_loss, logreg_data, 0, "array"),
    "ode": (oscillator, oscillator_data, 0, "scalar"),
    # second derivatives ("second"): checked against central differences of the gradient
    "hessian_recurrence": (recurrence, recurrence_data, 0, "second"),
    "hessian_mlp": (mlp_loss, mlp_data, 2, "second"),
    "hvp_mlp": (mlp_loss, mlp_data, 0, "second"),
    # not gradients: programs compiled whole ("value": one number, "map": an array)
    "jit": (None, jit_data, None, "value"),
    "vmap": (None, map_data, None, "map"),
    "vmap_np": (None, map_data, None, "map"),
}

WORKLOAD_TITLES = {
    "mlp": "MLP loss, d/dW1 (x 64x128, W1 128x128, W2 128x10)",
    "conv": "im2col convolution, d/dK (K 8x3x3x3, x 16x3x32x32)",
    "recurrence": "1,000-step data-dependent scalar recurrence, d/dx at x=0.3",
    "newton": "Newton's method, 100,000 starts x 6 steps on g(x) = exp(-x^2) cos(3x)",
    "rnn": "tanh RNN, 40 steps, batch 16, hidden 32, input 16, d/dW",
    "logreg": "logistic regression with np.logaddexp, 20,000 samples x 16 features, d/dw",
    "ode": "RK4, damped oscillator, 200 steps, d x(T) / d k",
    "call": "one call: g(0.3) and its derivative dg(0.3)",
    "hessian_recurrence": "second derivative of the 1,000-step recurrence, d^2/dx^2 at x=0.3 "
                          "(revsrc: forward over reverse, on the engine)",
    "hessian_mlp": "Hessian of the MLP loss with respect to b1 (128 x 128)",
    "hvp_mlp": "Hessian-vector product of the MLP loss with respect to W1 (128 x 128), "
               "without forming the Hessian",
    "jit": "revsrc.jit: Newton from 100,000 starts x 6 steps, g and dg = revsrc.grad(g) with "
           "math.*, the whole program compiled (newton_all(100_000))",
    "vmap": "revsrc.vmap: the same Newton mapped over the 100,000 starts (math.*)",
    "vmap_np": "revsrc.vmap: the same Newton with g spelled in NumPy (np.exp, np.cos), "
               "mapped over the 100,000 starts",
}


def central_difference(f, args, argnum=0, h=1e-6):
    """d f / d args[argnum] for a scalar float argument, by central differences."""
    lo = list(args)
    hi = list(args)
    lo[argnum] = args[argnum] - h
    hi[argnum] = args[argnum] + h
    return (f(*hi) - f(*lo)) / (2.0 * h)


def central_difference_coords(f, args, argnum, coords, h=1e-6):
    """Central differences of f with respect to selected flat coordinates of an array argument."""
    base = np.array(args[argnum], dtype=float)
    out = np.empty(len(coords))
    for n, c in enumerate(coords):
        lo = base.copy()
        hi = base.copy()
        lo.flat[c] -= h
        hi.flat[c] += h
        a_lo = list(args)
        a_hi = list(args)
        a_lo[argnum] = lo
        a_hi[argnum] = hi
        out[n] = (f(*a_hi) - f(*a_lo)) / (2.0 * h)
    return out
