"""Round 18, part i: simulations -- damped springs and spring networks, n-body gravity
with softening, elastic collisions with walls (branches), velocity Verlet, particles
clipped every step, a bouncing ball with an event time found by a while loop, and
sensitivities of the final state to initial conditions and parameters."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

DT = 0.01
GRAV = 9.81


# -- damped harmonic oscillator by velocity Verlet vs closed form -----------------------

def verlet_oscillator(k, c=0.3, x0=1.0, v0=0.0, n=400, dt=DT):
    x, v = x0, v0
    a = -k * x - c * v
    for _ in range(n):
        x = x + v * dt + 0.5 * a * dt * dt
        v_half = v + 0.5 * a * dt
        a = -k * x - c * v_half
        v = v_half + 0.5 * a * dt
    return x


add(G("r18i_verlet_damped_oscillator_wrt_k", verlet_oscillator, (4.0,), ref="ag", tol=1e-9))
add(G("r18i_verlet_damped_oscillator_wrt_all", verlet_oscillator, (4.0, 0.3, 1.0, 0.5),
      argnums=(0, 1, 2, 3), ref="ag", tol=1e-9))
add(pair("r18i_jit_verlet_oscillator_value", lambda: revsrc.jit(verlet_oscillator)(4.0),
         lambda: verlet_oscillator(4.0), tol=1e-13))
add(pair("r18i_jit_grad_verlet_oscillator", lambda: revsrc.jit(revsrc.grad(verlet_oscillator))(4.0),
         lambda: ag()[0].grad(verlet_oscillator)(4.0), tol=1e-9))


# -- spring network: energy by edge list, relaxation by gradient flow ------------------

EDGES = [(0, 1), (1, 2), (2, 3), (3, 0), (0, 2)]
REST = np.array([1.0, 1.0, 1.0, 1.0, math.sqrt(2.0)])


def spring_energy(X, ks):
    E = 0.0
    for (i, j), L0, k in zip(EDGES, REST, ks):
        d = X[i] - X[j]
        r = np.sqrt(d @ d)
        E += 0.5 * k * (r - L0) ** 2
    return E


X4 = np.array([[0.0, 0.0], [1.1, 0.1], [1.0, 0.9], [-0.1, 1.05]])
KS = np.array([1.0, 2.0, 1.5, 1.0, 0.5])
add(G("r18i_spring_network_zip_edges", spring_energy, (X4, KS), ref="jax", tol=1e-10))
add(H("r18i_spring_network_hessian", spring_energy, (X4, KS), ref="jax", tol=1e-9))


def relax_springs(ks, X0=X4, steps=30, lr=0.1):
    X = X0.copy()
    for _ in range(steps):
        F = np.zeros_like(X)
        for (i, j), L0, k in zip(EDGES, REST, ks):
            d = X[i] - X[j]
            r = np.sqrt(d @ d)
            f = k * (r - L0) * d / r
            F[i] -= f
            F[j] += f
        X = X + lr * F
    return X[2, 0] + X[3, 1]


add(G("r18i_relax_springs_force_accumulate", relax_springs, (KS,), ref="fd", tol=1e-7))


def relax_springs_addat(ks, X0=X4, steps=30, lr=0.1):
    I = np.array([e[0] for e in EDGES])
    J = np.array([e[1] for e in EDGES])
    X = X0.copy()
    for _ in range(steps):
        d = X[I] - X[J]
        r = np.sqrt(np.sum(d * d, axis=1))
        f = (ks * (r - REST) / r)[:, None] * d
        F = np.zeros_like(X)
        np.add.at(F, I, -f)
        np.add.at(F, J, f)
        X = X + lr * F
    return X[2, 0] + X[3, 1]


add(G("r18i_relax_springs_np_add_at", relax_springs_addat, (KS,), ref="fd", tol=1e-7))
add(pair("r18i_relax_two_forms_agree_value", lambda: relax_springs_addat(KS), lambda: relax_springs(KS), tol=1e-12))


# -- n-body gravity with softening, leapfrog, energy drift -----------------------------

def nbody_accel(pos, m, soft=0.05):
    d = pos[None, :, :] - pos[:, None, :]
    r2 = np.sum(d * d, axis=-1) + soft ** 2
    inv = r2 ** -1.5
    inv = inv * (1.0 - np.eye(len(m)))
    return np.einsum("ij,ijk,j->ik", inv, d, m)


def nbody_energy(pos, vel, m, soft=0.05):
    d = pos[None, :, :] - pos[:, None, :]
    r = np.sqrt(np.sum(d * d, axis=-1) + soft ** 2)
    iu = np.triu_indices(len(m), 1)
    pot = -np.sum((m[:, None] * m[None, :] / r)[iu])
    kin = 0.5 * np.sum(m[:, None] * vel ** 2)
    return pot + kin


def nbody_drift(pos0, vel0, m, steps=25, dt=0.01):
    pos, vel = pos0, vel0
    E0 = nbody_energy(pos, vel, m)
    for _ in range(steps):
        vel = vel + 0.5 * dt * nbody_accel(pos, m)
        pos = pos + dt * vel
        vel = vel + 0.5 * dt * nbody_accel(pos, m)
    return nbody_energy(pos, vel, m) - E0


_rn = np.random.default_rng(1803)
PN = _rn.normal(size=(4, 2))
VN = 0.3 * _rn.normal(size=(4, 2))
MN = np.array([1.0, 0.5, 0.8, 1.2])
add(G("r18i_nbody_energy_drift_wrt_pos", nbody_drift, (PN, VN, MN), ref="jax", tol=1e-8))
add(G("r18i_nbody_energy_drift_wrt_masses", nbody_drift, (PN, VN, MN), argnums=2, ref="jax", tol=1e-8))
add(G("r18i_nbody_energy_force_consistency", nbody_energy, (PN, VN, MN),
      ref=lambda: -MN[:, None] * nbody_accel(PN, MN), tol=1e-10))


# -- particles in a box: elastic wall collisions by branches -----------------------------

def box_particles(v0, x0=np.array([0.2, 0.5, 0.8]), L=1.0, dt=0.02, steps=60):
    x = x0.copy()
    v = v0.copy()
    for _ in range(steps):
        x = x + v * dt
        for i in range(len(x)):
            if x[i] > L:
                x[i] = 2 * L - x[i]
                v[i] = -v[i]
            elif x[i] < 0.0:
                x[i] = -x[i]
                v[i] = -v[i]
    return np.sum(x ** 2)


V0B = np.array([1.3, -0.7, 2.1])
add(G("r18i_box_wall_reflections_branches", box_particles, (V0B,), ref="fd", tol=1e-7))


def box_particles_where(v0, x0=np.array([0.2, 0.5, 0.8]), L=1.0, dt=0.02, steps=60):
    x, v = x0, v0
    for _ in range(steps):
        x = x + v * dt
        hi = x > L
        lo = x < 0.0
        x = np.where(hi, 2 * L - x, np.where(lo, -x, x))
        v = np.where(hi | lo, -v, v)
    return np.sum(x ** 2)


add(G("r18i_box_wall_reflections_where", box_particles_where, (V0B,), ref="jax", tol=1e-10))


# -- bouncing ball: time of first impact found by a while loop then bisection ------------

def first_impact(h0, v0=0.0, g=GRAV):
    t, dt = 0.0, 0.05
    def y(t):
        return h0 + v0 * t - 0.5 * g * t * t
    while y(t + dt) > 0.0:
        t += dt
    t = t + dt
    for _ in range(8):
        t = t - y(t) / (v0 - g * t)
    return t


add(G("r18i_bracket_newton_impact_time_wrt_height", first_impact, (2.0,), ref=lambda: 1.0 / math.sqrt(2 * GRAV * 2.0),
      tol=1e-6))


# per-step velocity clipping (speed limit) with np.clip and a norm clip
def clipped_particles(F, steps=40, dt=0.05, vmax=0.8):
    x = np.zeros_like(F)
    v = np.zeros_like(F)
    for _ in range(steps):
        v = v + dt * (F - 0.1 * v)
        speed = np.linalg.norm(v, axis=1, keepdims=True)
        v = v * np.minimum(1.0, vmax / np.maximum(speed, 1e-12))
        x = x + dt * np.clip(v, -0.7, 0.7)
    return np.sum(x[:, 0] - 0.5 * x[:, 1] ** 2)


FP = np.array([[0.5, 0.2], [2.0, -1.0], [0.1, 0.05]])
add(G("r18i_particles_norm_and_clip_per_step", clipped_particles, (FP,), ref="jax", tol=1e-10))


# -- pendulum with RK4 written as a helper, state as a tuple ------------------------------

def pend_rhs(state, L, g=GRAV):
    th, om = state
    return (om, -g / L * math.sin(th))


def rk4_step(f, s, dt, *args):
    k1 = f(s, *args)
    k2 = f(tuple(a + 0.5 * dt * b for a, b in zip(s, k1)), *args)
    k3 = f(tuple(a + 0.5 * dt * b for a, b in zip(s, k2)), *args)
    k4 = f(tuple(a + dt * b for a, b in zip(s, k3)), *args)
    return tuple(a + dt / 6.0 * (b1 + 2 * b2 + 2 * b3 + b4) for a, b1, b2, b3, b4 in zip(s, k1, k2, k3, k4))


def pendulum_final(L, th0=0.8, steps=100, dt=0.02):
    s = (th0, 0.0)
    for _ in range(steps):
        s = rk4_step(pend_rhs, s, dt, L)
    return s[0]


add(G("r18i_pendulum_rk4_star_args_tuple_state", pendulum_final, (1.3,), ref="fd", tol=1e-7))
add(G("r18i_pendulum_rk4_wrt_th0", pendulum_final, (1.3, 0.8), argnums=1, ref="fd", tol=1e-7))


# -- collision of two discs: impulse applied when they overlap -------------------------

def two_discs(v1x, r=0.1, dt=0.01, steps=80):
    p = np.array([[0.0, 0.0], [0.5, 0.03]])
    v = np.array([[v1x, 0.0], [-0.2, 0.0]])
    m = np.array([1.0, 2.0])
    for _ in range(steps):
        p = p + dt * v
        d = p[1] - p[0]
        dist = np.sqrt(d @ d)
        if dist < 2 * r:
            n = d / dist
            rel = (v[0] - v[1]) @ n
            if rel > 0:
                J = 2 * rel / (1 / m[0] + 1 / m[1])
                v = v.copy()
                v[0] -= J / m[0] * n
                v[1] += J / m[1] * n
    return p[1, 0] + p[1, 1]


add(G("r18i_two_disc_collision_impulse", two_discs, (1.5,), ref="fd", tol=1e-7))


# -- heat equation, explicit scheme, writes into interior slices -------------------------

def heat_rod(kappa, u0, steps=50, dx=0.1, dt=0.002):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / dx ** 2
        u[1:-1] += dt * kappa * lap[1:-1]
    return np.sum(u * np.linspace(0, 1, len(u)))


U0H = np.sin(np.linspace(0, math.pi, 11)) + 0.1
add(G("r18i_heat_rod_slice_writes_kappa", heat_rod, (0.7, U0H), ref="fd", tol=1e-7))
add(G("r18i_heat_rod_wrt_initial", heat_rod, (0.7, U0H), argnums=1, ref="fd", tol=1e-7))


# -- lattice gas / Ising energy by np.roll (a simulation observable) -------------------

def ising_mean_field(h, J=0.4, iters=40):
    m = np.full(8, 0.1)
    for _ in range(iters):
        m = np.tanh(J * (np.roll(m, 1) + np.roll(m, -1)) + h)
    return np.mean(m)


add(G("r18i_mean_field_ising_roll_wrt_field", ising_mean_field, (np.linspace(-0.2, 0.3, 8),), ref="jax", tol=1e-10))


# -- projectile with quadratic drag: range found by linear interpolation at crossing ------

def projectile_range(angle, v0=20.0, c=0.02, dt=0.01):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    while True:
        sp = math.hypot(vx, vy)
        xn = x + dt * vx
        yn = y + dt * vy
        vx = vx - dt * c * sp * vx
        vy = vy - dt * (GRAV + c * sp * vy)
        if yn < 0.0:
            return x + (xn - x) * y / (y - yn)
        x, y = xn, yn


add(G("r18i_projectile_range_return_in_while_true", projectile_range, (0.6,), ref="fd", tol=1e-6))
add(G("r18i_projectile_range_wrt_drag", projectile_range, (0.6, 20.0, 0.02), argnums=(1, 2), ref="fd", tol=1e-6))


# -- the same simulations under backend="jax" and at second order -----------------------

add(G("r18i_box_wall_reflections_branches_backend_jax", box_particles, (V0B,), ref="fd", tol=1e-7, backend="jax"))
add(H("r18i_box_wall_reflections_branches_hessian", box_particles, (V0B,), ref="fd", tol=1e-5))
add(G("r18i_two_disc_collision_backend_jax", two_discs, (1.5,), ref="fd", tol=1e-7, backend="jax"))
add(H("r18i_two_disc_collision_hessian", two_discs, (1.5,), ref="fd", tol=1e-5))
add(G("r18i_projectile_range_backend_jax", projectile_range, (0.6,), ref="fd", tol=1e-6, backend="jax"))
add(G("r18i_particles_clip_backend_jax", clipped_particles, (FP,), ref="jax", tol=1e-10, backend="jax"))
add(G("r18i_nbody_energy_drift_backend_jax", nbody_drift, (PN, VN, MN), ref="jax", tol=1e-8, backend="jax"))
add(G("r18i_impact_time_backend_jax", first_impact, (2.0,), ref=lambda: 1.0 / math.sqrt(2 * GRAV * 2.0), tol=1e-6,
      backend="jax"))
add(H("r18i_pendulum_rk4_hessian", pendulum_final, (1.3,), ref="fd", tol=1e-5))
# backend="jax": RK4 with tuple state built by comprehensions over zip, f(s, *args): E602
# "a branch on a value computed from the differentiated arguments", pointing at the call
# line s = rk4_step(...) (no branch there)
add(G("r18i_pendulum_rk4_backend_jax", pendulum_final, (1.3,), ref="fd", tol=1e-7, backend="jax"))
# backend="jax": 30 steps x 5 edges unrolled: E605 (trace too large), documented
add(G("r18i_relax_springs_backend_jax", relax_springs, (KS,), ref="fd", tol=1e-7, backend="jax"))
