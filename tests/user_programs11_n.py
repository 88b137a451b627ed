"""Round 11, part n: long simulation loops under a memory bound (checkpointed gradients must
equal the stored ones bit for bit and central differences), and small-array loop bodies
(transposed products, solves, determinants, softmax, clipping, item writes) against central
differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked  # noqa: F401

CASES = []
add = CASES.append


def car_following(v0, steps=20000, dt=0.001):
    x, v = 0.0, v0
    acc = 0.0
    for k in range(steps):
        a = 1.2 * (30.0 - v) / 30.0 - 0.5 * max(0.0, v - 25.0)
        v = v + dt * a
        x = x + dt * v
        if k % 1000 == 0:
            acc += math.sin(x) * 0.01
    return x + acc


def settle(v0, tol=1e-9):
    v = v0
    n = 0
    while abs(v - 20.0) > tol and n < 30000:
        v = v + 0.001 * (20.0 - v) + 1e-4 * math.sin(v)
        n += 1
    return v * v + 0.001 * v0 ** 2


def spin(w, steps=3000):
    z = np.array([1.0, 0.0, 0.5])
    for _ in range(steps):
        z = z + 0.001 * np.tanh(w * z[::-1])
    return np.sum(z ** 2)


W3 = np.array([0.3, -0.2, 0.5])


def same_bits(f, a):
    g0 = revsrc.grad(f)(a)
    g1 = revsrc.grad(f, memory="64KB")(a)
    g2 = revsrc.grad(f, memory=1000)(a)
    return float(np.array_equal(g0, g1) and np.array_equal(g0, g2))


add(pair("r11_memory_bound_for_loop_same_bits", lambda: same_bits(car_following, 28.0), lambda: 1.0, tol=0.0))
add(pair("r11_memory_bound_while_loop_same_bits", lambda: same_bits(settle, 10.0), lambda: 1.0, tol=0.0))
add(pair("r11_memory_bound_array_loop_same_bits", lambda: same_bits(spin, W3), lambda: 1.0, tol=0.0))
add(G("r11_memory_bound_for_loop_fd", car_following, (28.0,), ref="fd", memory="64KB"))
add(G("r11_memory_bound_array_loop_fd", spin, (W3,), ref="fd", memory="64KB"))
add(G("r11_memory_bound_array_loop_backend_jax", spin, (W3,), ref=lambda: revsrc.grad(spin)(W3), backend="jax",
      memory="64KB", tol=1e-10))

rng = np.random.default_rng(0)
A = 0.3 * rng.normal(size=(3, 3))
U = rng.normal(size=(6, 3))
X0 = rng.normal(size=3)


def rnn_transposed(x, A):
    for t in range(6):
        x = np.tanh(x @ A.T + U[t])
    return np.sum(x ** 2)


add(G("r11_loop_x_at_A_T_rows", rnn_transposed, (X0, A), ref="fd"))
add(G("r11_loop_x_at_A_T_rows_dA", rnn_transposed, (X0, A), argnums=1, ref="fd"))


def reversed_rows(x, A):
    for t in range(6):
        x = A.T @ x + 0.1 * U[-t - 1]
    return np.sum(np.sin(x))


add(G("r11_loop_negative_row_index", reversed_rows, (X0, A), argnums=1, ref="fd"))


def shifted_solves(b, A):
    eye = np.eye(3)
    s = 0.0
    for t in range(4):
        z = np.linalg.solve(A + (t + 2.0) * eye, b)
        s = s + np.linalg.det(A * (1 + 0.1 * t)) + z @ z
    return s


add(G("r11_loop_solve_det_b", shifted_solves, (X0, A), ref="fd"))
add(G("r11_loop_solve_det_A", shifted_solves, (X0, A), argnums=1, ref="fd"))


def pair_swap(x, A):
    a, b = x, x * 0.5
    for _ in range(6):
        a, b = b, np.tanh(a + A @ b)
    return np.sum(a * b)


add(G("r11_loop_array_tuple_swap", pair_swap, (X0, A), argnums=1, ref="fd"))


def gram_loop(x, A):
    M = A.copy()
    for t in range(4):
        M = M @ M.T * 0.5 + np.eye(3) * x[t % 3]
    return np.sum(M)


add(G("r11_loop_gram_matrix", gram_loop, (X0, A), ref="fd"))
add(G("r11_loop_gram_matrix_dA", gram_loop, (X0, A), argnums=1, ref="fd"))


def softmax_walk(x, A):
    out = 0.0
    for t in range(6):
        e = np.exp(A @ x - np.max(A @ x))
        p = e / np.sum(e)
        out = out + np.log(p[t % 3])
        x = x + 0.1 * p
    return out


add(G("r11_loop_softmax_walk", softmax_walk, (X0, A), argnums=1, ref="fd"))


def clipped_map(x, A):
    for _ in range(6):
        x = np.clip(A @ x + 0.5, -1.0, 1.0)
    return np.sum(x)


add(G("r11_loop_clip_map", clipped_map, (X0, A), argnums=1, ref="fd"))


def outer_accumulate(x, A):
    acc = np.zeros((3, 3))
    for t in range(4):
        acc += np.outer(x, x) * t
        x = A @ x
    return np.sum(acc * acc)


add(G("r11_loop_outer_accumulate", outer_accumulate, (X0, A), argnums=1, ref="fd"))


def rotating_writes(x, A):
    h = x.copy()
    for t in range(5):
        h[t % 3] = h[(t + 1) % 3] * A[0, 0] + h[t % 3]
    return np.sum(h ** 2)


add(G("r11_loop_item_writes_mod_index", rotating_writes, (X0, A), ref="fd"))


def alias_decay(x, A):
    y = x
    for _ in range(6):
        y = y * 0.9
        y += A @ y * 0.1
    return np.sum(y) + np.sum(x)


add(G("r11_loop_augassign_after_rebind", alias_decay, (X0, A), ref="fd"))
