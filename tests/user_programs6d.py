"""User programs, corpus 6d: small-array loops (2 to 8 floats of state): ODE
integrators, Kalman filters, RNN / GRU / LSTM cells, particle systems.  The shapes of
the compiled small-array loops (README: a top-level for over range whose body is
straight-line arithmetic on float64 arrays).  References: JAX x64 on the same program."""
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, fd_hess, jax, jaxify, pair

CASES = []
RNG = np.random.default_rng(63)


J = jax


add = adder(CASES)


def gj(name, f, args, argnums=0, tol=1e-9, tr="grad", jit=True):
    """Central differences (grad, hessian) of the NumPy program: JAX eager is too slow
    on these loops for a shared 2-core machine."""
    def ref():
        if tr == "grad":
            return fd_grad(f, args, {}, argnums)
        if tr == "hessian":
            return fd_hess(f, args, {}, argnums, 1e-4)
        raise ValueError(tr)
    add(name, lambda: getattr(revsrc, tr)(f, argnums=argnums)(*args), ref,
        max(tol, 1e-6 if tr == "grad" else 1e-5))


# -- ODE integrators ---------------------------------------------------------------------

def lotka_volterra_rk4(theta, y0, n=60, dt=0.05):
    a, b, c, d = theta[0], theta[1], theta[2], theta[3]
    y = y0
    for _ in range(n):
        k1 = np.array([a * y[0] - b * y[0] * y[1], c * y[0] * y[1] - d * y[1]])
        z = y + 0.5 * dt * k1
        k2 = np.array([a * z[0] - b * z[0] * z[1], c * z[0] * z[1] - d * z[1]])
        z = y + 0.5 * dt * k2
        k3 = np.array([a * z[0] - b * z[0] * z[1], c * z[0] * z[1] - d * z[1]])
        z = y + dt * k3
        k4 = np.array([a * z[0] - b * z[0] * z[1], c * z[0] * z[1] - d * z[1]])
        y = y + dt / 6.0 * (k1 + 2.0 * k2 + 2.0 * k3 + k4)
    return np.sum(y * y)


TH = np.array([1.1, 0.4, 0.1, 0.4])
Y0 = np.array([10.0, 5.0])
gj("rk4_lotka_volterra_theta", lotka_volterra_rk4, (TH, Y0))
gj("rk4_lotka_volterra_y0", lotka_volterra_rk4, (TH, Y0), argnums=1)
gj("hessian_rk4_lotka_volterra", lotka_volterra_rk4, (TH, Y0), tr="hessian", tol=1e-8)


def linear_ode_matrix_euler(A, x0, n=200, dt=0.01):
    x = x0
    for _ in range(n):
        x = x + dt * (A @ x)
    return np.dot(x, x)


A3 = np.array([[-0.5, 1.0, 0.0], [-1.0, -0.5, 0.2], [0.0, 0.3, -0.1]])
X3 = np.array([1.0, 0.0, 0.5])
gj("euler_linear_ode_matrix_grad", linear_ode_matrix_euler, (A3, X3))
gj("euler_linear_ode_x0_grad", linear_ode_matrix_euler, (A3, X3), argnums=1)


def pendulum_leapfrog(state, g=9.81, L=1.0, n=300, dt=0.01):
    q, p = state[0], state[1]
    for _ in range(n):
        p = p - 0.5 * dt * g / L * math.sin(q)
        q = q + dt * p
        p = p - 0.5 * dt * g / L * math.sin(q)
    return q * q + 0.1 * p * p


gj("leapfrog_pendulum_scalars_from_array", pendulum_leapfrog, (np.array([0.4, 0.0]),))


def nbody_2d(pos, vel, n=80, dt=0.01):
    # two particles in 2-D, pos and vel are 4 floats each
    for _ in range(n):
        d = pos[0:2] - pos[2:4]
        r3 = np.sqrt(np.sum(d * d)) ** 3
        acc = np.concatenate([-d / r3, d / r3])
        vel = vel + dt * acc
        pos = pos + dt * vel
    return np.sum(pos[0:2] ** 2)


gj("nbody_two_particles", nbody_2d, (np.array([1.0, 0.0, -1.0, 0.0]), np.array([0.0, 0.4, 0.0, -0.4])),
   argnums=(0, 1))


def van_der_pol_rk2(mu, x0, n=150, dt=0.02):
    x = x0
    for _ in range(n):
        f1 = np.array([x[1], mu * (1.0 - x[0] ** 2) * x[1] - x[0]])
        xm = x + dt * f1
        f2 = np.array([xm[1], mu * (1.0 - xm[0] ** 2) * xm[1] - xm[0]])
        x = x + 0.5 * dt * (f1 + f2)
    return x[0]


gj("heun_van_der_pol_mu", van_der_pol_rk2, (1.3, np.array([0.5, 0.0])))
gj("heun_van_der_pol_hessian_x0", van_der_pol_rk2, (1.3, np.array([0.5, 0.0])), argnums=1, tr="hessian")


def sir_model(beta, gamma, n=120, dt=0.1):
    s = np.array([0.99, 0.01, 0.0])
    for _ in range(n):
        inf = beta * s[0] * s[1]
        rec = gamma * s[1]
        s = s + dt * np.array([-inf, inf - rec, rec])
    return s[2]


gj("sir_epidemic_two_params", sir_model, (0.5, 0.1), argnums=(0, 1))


def heat_rod_implicit(kappa, n=30):
    u = np.array([0.0, 1.0, 2.0, 1.0, 0.0])
    L = np.array([[-2.0, 1.0, 0.0, 0.0, 0.0], [1.0, -2.0, 1.0, 0.0, 0.0], [0.0, 1.0, -2.0, 1.0, 0.0],
                  [0.0, 0.0, 1.0, -2.0, 1.0], [0.0, 0.0, 0.0, 1.0, -2.0]])
    M = np.eye(5) - 0.1 * kappa * L
    for _ in range(n):
        u = np.linalg.solve(M, u)
    return np.sum(u)


gj("implicit_euler_solve_in_loop", heat_rod_implicit, (0.7,))

# -- Kalman filters -------------------------------------------------------------------------

F2 = np.array([[1.0, 0.1], [0.0, 1.0]])
H2 = np.array([[1.0, 0.0]])
YS = np.cumsum(np.cumsum(RNG.normal(size=40) * 0.05)) + RNG.normal(size=40) * 0.1


def kalman_nll(log_q, log_r, ys):
    q, r = np.exp(log_q), np.exp(log_r)
    Q = q * np.array([[0.1 ** 3 / 3, 0.1 ** 2 / 2], [0.1 ** 2 / 2, 0.1]])
    m = np.zeros(2)
    P = np.eye(2)
    nll = 0.0
    for t in range(ys.shape[0]):
        m = F2 @ m
        P = F2 @ P @ F2.T + Q
        S = P[0, 0] + r
        v = ys[t] - m[0]
        K = P[:, 0] / S
        m = m + K * v
        P = P - np.outer(K, P[0, :])
        nll = nll + 0.5 * (np.log(2 * np.pi * S) + v * v / S)
    return nll


gj("kalman_2state_nll", kalman_nll, (-2.0, -3.0, YS), argnums=(0, 1))
gj("kalman_2state_nll_hessian_q", kalman_nll, (-2.0, -3.0, YS), tr="hessian", tol=1e-7)
gj("kalman_2state_grad_wrt_data", kalman_nll, (-2.0, -3.0, YS), argnums=2)


def kalman_matrix_form(q, r, ys):
    m = np.zeros(2)
    P = np.eye(2)
    total = 0.0
    for t in range(ys.shape[0]):
        m = F2 @ m
        P = F2 @ P @ F2.T + q * np.eye(2)
        S = H2 @ P @ H2.T + r
        K = P @ H2.T @ np.linalg.inv(S)
        resid = ys[t] - (H2 @ m)[0]
        m = m + K[:, 0] * resid
        P = (np.eye(2) - K @ H2) @ P
        total = total + resid * resid / S[0, 0] + np.log(S[0, 0])
    return total


gj("kalman_matrix_inv_form", kalman_matrix_form, (0.01, 0.05, YS[:25]), argnums=(0, 1))


def rts_smoother_mean(q, ys):
    n = ys.shape[0]
    ms, Ps, mps, Pps = [], [], [], []
    m, P = 0.0, 1.0
    for t in range(n):
        mp, Pp = m, P + q
        K = Pp / (Pp + 0.1)
        m = mp + K * (ys[t] - mp)
        P = (1.0 - K) * Pp
        ms.append(m)
        Ps.append(P)
        mps.append(mp)
        Pps.append(Pp)
    sm = ms[-1]
    out = sm * sm
    for t in range(n - 2, -1, -1):
        G = Ps[t] / Pps[t + 1]
        sm = ms[t] + G * (sm - mps[t + 1])
        out = out + sm * sm
    return out


gj("rts_smoother_scalar_lists", rts_smoother_mean, (0.05, YS[:20]))

# -- recurrent cells --------------------------------------------------------------------------


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def gru_loss(Wz, Wr, Wh, xs):
    h = np.zeros(3)
    for t in range(xs.shape[0]):
        hx = np.concatenate([h, xs[t]])
        z = sigmoid(Wz @ hx)
        r = sigmoid(Wr @ hx)
        hh = np.tanh(Wh @ np.concatenate([r * h, xs[t]]))
        h = (1.0 - z) * h + z * hh
    return np.sum(h ** 2)


WZ, WR, WH = (RNG.normal(size=(3, 5)) * 0.5 for _ in range(3))
XSEQ = RNG.normal(size=(12, 2))
gj("gru_cell_three_matrices", gru_loss, (WZ, WR, WH, XSEQ), argnums=(0, 1, 2))


def lstm_loss(W, b, xs):
    h = np.zeros(2)
    c = np.zeros(2)
    for t in range(xs.shape[0]):
        g = W @ np.concatenate([h, xs[t]]) + b
        i, f, o, u = sigmoid(g[0:2]), sigmoid(g[2:4]), sigmoid(g[4:6]), np.tanh(g[6:8])
        c = f * c + i * u
        h = o * np.tanh(c)
    return np.sum(h) + 0.5 * np.sum(c ** 2)


WL = RNG.normal(size=(8, 4)) * 0.5
BL = np.zeros(8)
gj("lstm_cell_8_gates", lstm_loss, (WL, BL, XSEQ), argnums=(0, 1))


def elman_hessian_small(w, xs):
    h = np.zeros(2)
    W = w.reshape(2, 2)
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h * h)


gj("elman_hessian_flat_weights", elman_hessian_small, (np.array([0.3, -0.2, 0.5, 0.1]), XSEQ[:6]),
   tr="hessian")


def rnn_dot_rows(w, xs):
    h = np.zeros(4)
    M = np.diag(w)
    for t in range(xs.shape[0]):
        h = np.tanh(np.dot(M, h) + xs[t] * w)
    return np.sum(np.abs(h)) + np.sqrt(np.sum(h * h) + 1.0)


gj("rnn_np_dot_abs_sqrt", rnn_dot_rows, (np.array([0.5, -0.3, 0.8, 0.1]), RNG.normal(size=(10, 4))))


def rnn_python_float_state(w, xs):
    h = np.zeros(2)
    energy = 0.0
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
        energy = energy + 0.5 * float(np.sum(h * h))
    return energy


XS15 = RNG.normal(size=(15, 2))
CASES.append(pair("rnn_python_float_accumulator",
                  lambda: revsrc.grad(rnn_python_float_state)(np.array([0.7, -0.4]), XS15),
                  lambda: fd_grad(rnn_python_float_state, (np.array([0.7, -0.4]), XS15), {}, 0), tol=1e-6))


def rnn_float32(w, xs):
    h = np.zeros(2, dtype=np.float32)
    for t in range(xs.shape[0]):
        h = np.tanh(w * h + xs[t])
    return np.sum(h)


W32 = np.array([0.7, -0.4], dtype=np.float32)
XS32 = RNG.normal(size=(15, 2)).astype(np.float32)
add("rnn_float32_state", lambda: revsrc.grad(rnn_float32)(W32, XS32),
    lambda: J().grad(jaxify(rnn_float32))(W32.astype(float), XS32.astype(float)), tol=1e-5)
add("rnn_float32_grad_dtype", lambda: [revsrc.grad(rnn_float32)(W32, XS32).dtype == np.float32],
    lambda: [True], tol=0.0)


def growing_state(x):
    h = x[:1]
    for i in range(4):
        h = np.concatenate([h, np.sin(h[-1:]) * x[1]])
    return np.sum(h ** 2)


gj("state_grows_each_step", growing_state, (np.array([0.4, 1.3]),))


def loop_with_int_and_bool(x, flags):
    y = x
    for i in range(flags.shape[0]):
        if flags[i]:
            y = y * 1.1 + np.sin(y)
        else:
            y = y - 0.1 * y ** 2
    return np.sum(y)


gj("loop_bool_flags_array", loop_with_int_and_bool, (np.array([0.3, 0.6]), np.array([True, False, True, True])),
   jit=False)


def particle_filter_like(theta, ys):
    # deterministic "particles": 5 fixed offsets
    parts = np.array([-1.0, -0.5, 0.0, 0.5, 1.0])
    ll = 0.0
    for t in range(ys.shape[0]):
        parts = theta * parts + 0.1
        w = np.exp(-0.5 * (ys[t] - parts) ** 2)
        ll = ll + np.log(np.mean(w))
        parts = parts * 0.9 + 0.1 * np.sum(w * parts) / np.sum(w)
    return ll


gj("particle_weights_deterministic", particle_filter_like, (0.8, YS[:15]))


def damped_spring_jacobian(k):
    x = np.array([1.0, 0.0])
    out = []
    for _ in range(20):
        x = x + 0.05 * np.array([x[1], -k * x[0] - 0.2 * x[1]])
        out.append(x[0])
    return np.array(out)


add("jacrev_trajectory_list_out", lambda: revsrc.jacrev(damped_spring_jacobian)(2.0),
    lambda: J().jacrev(jaxify(damped_spring_jacobian))(2.0))
add("jacfwd_trajectory_list_out", lambda: revsrc.jacfwd(damped_spring_jacobian)(2.0),
    lambda: J().jacfwd(jaxify(damped_spring_jacobian))(2.0))


def adam_unrolled(lr, x0, steps=40):
    x = x0
    m = np.zeros(2)
    v = np.zeros(2)
    for t in range(1, steps + 1):
        g = np.array([2.0 * x[0] + x[1], x[0] + 4.0 * x[1]])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        mh = m / (1.0 - 0.9 ** t)
        vh = v / (1.0 - 0.999 ** t)
        x = x - lr * mh / (np.sqrt(vh) + 1e-8)
    return x[0] ** 2 + x[0] * x[1] + 2.0 * x[1] ** 2


gj("adam_unrolled_meta_lr", adam_unrolled, (0.05, np.array([1.0, -1.5])), tol=1e-8)
CASES.append(pair("adam_unrolled_fd", lambda: revsrc.grad(adam_unrolled)(0.05, np.array([1.0, -1.5])),
                  lambda: fd_grad(adam_unrolled, (0.05, np.array([1.0, -1.5])), {}, 0), tol=1e-6))
