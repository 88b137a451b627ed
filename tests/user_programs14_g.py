"""Round 14, part g: physics -- leapfrog orbits on small arrays, pendulum chains, the wave
equation with np.roll, particle systems with pairwise distances and np.triu_indices."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def leapfrog_orbit(state0, gm=1.0, dt=0.05, n=40):
    r = state0[:2].copy()
    v = state0[2:].copy()
    a = -gm * r / np.linalg.norm(r) ** 3
    for _ in range(n):
        v += 0.5 * dt * a
        r += dt * v
        a = -gm * r / np.linalg.norm(r) ** 3
        v += 0.5 * dt * a
    return np.concatenate([r, v])


S0 = np.array([1.0, 0.0, 0.0, 1.1])


def energy(s, gm=1.0):
    return 0.5 * (s[2] ** 2 + s[3] ** 2) - gm / math.hypot(s[0], s[1])


add(pair("r14_leapfrog_orbit_jacrev", lambda: revsrc.jacrev(leapfrog_orbit)(S0), lambda: fdj(leapfrog_orbit, S0), tol=1e-6))
add(pair("r14_leapfrog_orbit_jacfwd", lambda: revsrc.jacfwd(leapfrog_orbit)(S0), lambda: fdj(leapfrog_orbit, S0), tol=1e-6))
# leapfrog is symplectic: det of the flow's Jacobian is 1
add(pair("r14_leapfrog_symplectic_det", lambda: np.linalg.det(revsrc.jacfwd(leapfrog_orbit)(S0)), lambda: 1.0, tol=1e-10))
add(G("r14_leapfrog_final_energy_wrt_gm", lambda gm: energy(leapfrog_orbit(S0, gm), gm), (1.0,), ref="fd", tol=1e-6))


def pendulum_chain(theta0, n_links=3, dt=0.01, steps=30):
    # a chain of weakly coupled pendulums, symplectic Euler, coupling through neighbours
    th = theta0.copy()
    om = np.zeros(n_links)
    for _ in range(steps):
        acc = -9.81 * np.sin(th)
        acc[1:] += 2.0 * (th[:-1] - th[1:])
        acc[:-1] += 2.0 * (th[1:] - th[:-1])
        om = om + dt * acc
        th = th + dt * om
    return th


TH0 = np.array([0.3, -0.1, 0.2])
add(pair("r14_pendulum_chain_inplace_slices_jacrev", lambda: revsrc.jacrev(pendulum_chain)(TH0), lambda: fdj(pendulum_chain, TH0), tol=1e-7))
add(JV("r14_pendulum_chain_jvp", pendulum_chain, (TH0,), (np.array([1.0, 0.0, -1.0]),)))


def wave(u0, c=1.0, dx=0.1, dt=0.05, steps=20):
    u_prev = u0.copy()
    u = u0.copy()
    r2 = (c * dt / dx) ** 2
    for _ in range(steps):
        lap = np.roll(u, 1) + np.roll(u, -1) - 2 * u
        u_next = 2 * u - u_prev + r2 * lap
        u_prev, u = u, u_next
    return np.sum(u ** 2) * dx


U0 = np.exp(-((np.arange(12) - 5.5) / 2.0) ** 2)
add(VG("r14_wave_roll_periodic", wave, (U0,), ref="fd", tol=1e-7))
add(G("r14_wave_grad_wrt_c", wave, (U0, 1.0), argnums=1, ref="ag", tol=1e-9))
add(pair("r14_wave_vjp", lambda: revsrc.vjp(lambda u: wave(u), U0)[1](1.0), lambda: (fd_checked(wave, (U0,))[0],), tol=1e-7))


def lj_energy(x, eps=1.0, sig=1.0):
    n = x.shape[0]
    iu, ju = np.triu_indices(n, k=1)
    d = x[:, None, :] - x[None, :, :]
    r2 = np.sum(d ** 2, axis=-1)[iu, ju]
    s6 = (sig * sig / r2) ** 3
    return np.sum(4 * eps * (s6 * s6 - s6))


XP = np.array([[0.0, 0.0], [1.1, 0.1], [0.5, 1.0], [1.6, 1.1]])
add(VG("r14_lj_triu_indices_broadcast", lj_energy, (XP,), ref="ag", tol=1e-9))
add(H("r14_lj_hessian", lj_energy, (XP,), ref="ag", tol=1e-8))
# translation invariance: forces sum to zero
add(pair("r14_lj_forces_sum_zero", lambda: np.sum(revsrc.grad(lj_energy)(XP), axis=0), lambda: np.zeros(2), tol=1e-12))


def lj_loop(x, eps=1.0):
    e = 0.0
    n = len(x)
    for i in range(n):
        for j in range(i + 1, n):
            r = np.linalg.norm(x[i] - x[j])
            if r > 2.5:
                continue
            e += 4 * eps * (r ** -12 - r ** -6)
    return e


add(G("r14_lj_loop_cutoff_continue", lj_loop, (np.vstack([XP, [[5.0, 5.0]]]),), ref="ag", tol=1e-9))


def md_run(x0, steps=10, dt=0.002):
    x = x0
    v = np.zeros_like(x0)
    f = -revsrc.grad(lj_energy)(x)
    for _ in range(steps):
        v = v + 0.5 * dt * f
        x = x + dt * v
        f = -revsrc.grad(lj_energy)(x)
        v = v + 0.5 * dt * f
    return lj_energy(x) + 0.5 * np.sum(v * v)


def md_run_ag(x0, steps=10, dt=0.002):
    autograd, _ = ag()
    e = agify(lj_energy)
    x = x0
    v = 0.0 * x0
    f = -autograd.grad(e)(x)
    for _ in range(steps):
        v = v + 0.5 * dt * f
        x = x + dt * v
        f = -autograd.grad(e)(x)
        v = v + 0.5 * dt * f
    return e(x) + 0.5 * np.sum(v * v) if not hasattr(x, "_value") else e(x) + 0.5 * ag()[1].sum(v * v)


add(pair("r14_md_forces_by_grad_inside_grad", lambda: revsrc.grad(md_run)(XP), lambda: ag()[0].grad(md_run_ag)(XP), tol=1e-8))


def bounce(h0, v0=0.0, g=9.81, e=0.8, dt=0.01, n=120):
    h, v = h0, v0
    bounces = 0
    t = 0
    while t < n:
        v -= g * dt
        h += v * dt
        if h < 0.0:
            h = -h
            v = -e * v
            bounces += 1
        t += 1
    return h


add(G("r14_bouncing_ball_while_branch", bounce, (1.0,), ref="fd", tol=1e-6, h=1e-7))
add(G("r14_bouncing_ball_wrt_restitution", bounce, (1.0, 0.0, 9.81, 0.8), argnums=3, ref="fd", tol=1e-6, h=1e-7))
