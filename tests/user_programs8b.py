"""Round 8 user programs, batch b: simulations (springs, n-body, heat equation with
slice updates, adaptive Runge-Kutta, projectile with early termination), checked
against self-checked central differences, autograd or JAX x64."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(81)


def spring_mass(k, x0, v0, dt, tmax):
    x, v, t = x0, v0, 0.0
    energy = 0.0
    while t < tmax:
        a = -k * x - 0.1 * v
        v = v + dt * a
        x = x + dt * v
        t += dt
        energy += 0.5 * v * v * dt
        if abs(x) < 1e-4 and abs(v) < 1e-4:
            break
    return x + energy


add(G("r8_spring_while_time_early_break", spring_mass, (2.0, 1.0, 0.0, 0.01, 3.0), argnums=(0, 1, 2)))


def nbody_step(pos, vel, masses, dt, nsteps):
    pos = pos.copy()
    vel = vel.copy()
    n = pos.shape[0]
    for _ in range(nsteps):
        acc = np.zeros_like(pos)
        for i in range(n):
            for j in range(n):
                if i != j:
                    d = pos[j] - pos[i]
                    r = np.sqrt(np.sum(d ** 2) + 0.01)
                    acc[i] += masses[j] * d / r ** 3
        vel += dt * acc
        pos += dt * vel
    return np.sum(pos[0] ** 2) + np.sum(vel ** 2)


P0 = rng.normal(size=(3, 2))
V0 = rng.normal(size=(3, 2)) * 0.1
M0 = np.array([1.0, 0.5, 0.8])
add(G("r8_nbody_pairwise_acc_row_iadd", nbody_step, (P0, V0, M0, 0.05, 5), argnums=(0, 2)))


def nbody_vectorised(pos, masses, dt, nsteps):
    vel = np.zeros_like(pos)
    for _ in range(nsteps):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = np.sum(d ** 2, axis=-1) + 0.05
        inv = r2 ** -1.5
        np.fill_diagonal(inv, 0.0)
        acc = np.sum(masses[None, :, None] * d * inv[:, :, None], axis=1)
        vel = vel + dt * acc
        pos = pos + dt * vel
    return np.sum(pos[:, 0])


add(G("r8_nbody_fill_diagonal_on_local", nbody_vectorised, (P0, M0, 0.05, 6), argnums=(0, 1)))


def heat_explicit(u0, alpha, nsteps):
    u = u0.copy()
    for _ in range(nsteps):
        u[1:-1] = u[1:-1] + alpha * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2)


U0 = np.sin(np.linspace(0, np.pi, 12)) + 0.1 * rng.normal(size=12)
add(G("r8_heat_slice_update_u0", heat_explicit, (U0, 0.3, 20)))
add(G("r8_heat_slice_update_alpha", heat_explicit, (U0, 0.3, 20), argnums=1))
add(G("r8_heat_memory_bound", heat_explicit, (U0, 0.3, 200), argnums=1, memory="2KB"))


def heat_neumann(u0, kappa, n):
    u = u0.copy()
    for _ in range(n):
        lap = np.empty_like(u)
        lap[1:-1] = u[2:] - 2 * u[1:-1] + u[:-2]
        lap[0] = 2 * (u[1] - u[0])
        lap[-1] = 2 * (u[-2] - u[-1])
        u += kappa * lap
    return u[3] + u.max()


add(G("r8_heat_neumann_empty_like_fill", heat_neumann, (U0, 0.2, 10), argnums=(0, 1)))


def rk45_adaptive(y0, k, tol):
    def f(t, y):
        return -k * y + math.sin(t)
    t, y, h = 0.0, y0, 0.1
    while t < 2.0:
        h = min(h, 2.0 - t)
        k1 = f(t, y)
        k2 = f(t + h / 2, y + h / 2 * k1)
        k3 = f(t + h / 2, y + h / 2 * k2)
        k4 = f(t + h, y + h * k3)
        y4 = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
        y2 = y + h * f(t + h / 2, y + h / 2 * k1)
        err = abs(y4 - y2)
        if err < tol:
            t += h
            y = y4
            h *= 1.5
        else:
            h *= 0.5
    return y


add(G("r8_rk4_adaptive_step_nested_def", rk45_adaptive, (1.0, 0.7, 1e-3), argnums=(0, 1)))


def projectile_range(v0, angle, drag):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    dt = 0.01
    while True:
        sp = math.hypot(vx, vy)
        vx -= drag * sp * vx * dt
        vy -= (9.81 + drag * sp * vy) * dt
        xn, yn = x + vx * dt, y + vy * dt
        if yn < 0:
            frac = y / (y - yn)
            return x + frac * (xn - x)
        x, y = xn, yn


add(G("r8_projectile_while_true_return_interp", projectile_range, (20.0, 0.7, 0.01), argnums=(0, 1, 2), h=1e-6))


def pendulum_energy(theta0, L, n):
    th, om = theta0, 0.0
    dt = 0.02
    traj = []
    for _ in range(n):
        om -= 9.81 / L * np.sin(th) * dt
        th += om * dt
        traj.append(th)
    traj = np.array(traj)
    return np.mean(traj ** 2) + np.max(traj)


add(G("r8_pendulum_list_append_np_array", pendulum_energy, (0.5, 1.3, 50), argnums=(0, 1)))


def wave_leapfrog(c, u0, n):
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(n):
        u_next = np.zeros_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + c ** 2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_prev, u = u, u_next
    return np.sum(u * u0)


add(G("r8_wave_leapfrog_swap_names", wave_leapfrog, (0.5, U0, 15), argnums=(0, 1)))


def spring_chain_energy(x, k):
    e = 0.0
    for i in range(len(x) - 1):
        d = x[i + 1] - x[i] - 1.0
        e += 0.5 * k[i] * d * d
    return e


XC = np.cumsum(np.ones(6) + 0.1 * rng.normal(size=6))
KC = np.abs(rng.normal(size=5)) + 0.5
add(H("r8_spring_chain_hessian_loop", spring_chain_energy, (XC, KC), ref="jax"))
add(pair("r8_spring_chain_jacfwd_of_grad",
         lambda: revsrc.jacfwd(revsrc.grad(spring_chain_energy), argnums=1)(XC, KC),
         lambda: jax().jacfwd(jax().grad(jaxify(spring_chain_energy)), argnums=1)(XC, KC), tol=1e-9))


def lotka_volterra(params, x0, steps):
    a, b, c, d = params
    x, y = x0
    out = 0.0
    for _ in range(steps):
        dx = a * x - b * x * y
        dy = d * x * y - c * y
        x, y = x + 0.01 * dx, y + 0.01 * dy
        out += (x - 1.0) ** 2
    return out


add(G("r8_lotka_volterra_tuple_unpack_params", lotka_volterra, ((1.1, 0.4, 0.4, 0.1), (10.0, 5.0), 100)))


def verlet(q0, p0, omega, n, dt):
    q, p = q0, p0
    for _ in range(n):
        p = p - 0.5 * dt * omega ** 2 * q
        q = q + dt * p
        p = p - 0.5 * dt * omega ** 2 * q
    return q


verlet30 = functools.partial(verlet, n=30, dt=0.05)


def verlet30_fn(q0, p0, omega):
    return verlet30(q0, p0, omega)


add(JV("r8_verlet_jvp_partial_kwargs", verlet30_fn, (1.0, 0.0, 2.0), (1.0, 0.5, 0.1)))


def diffusion_2d(D, u0, n):
    u = u0.copy()
    for _ in range(n):
        lap = (np.roll(u, 1, 0) + np.roll(u, -1, 0) + np.roll(u, 1, 1) + np.roll(u, -1, 1) - 4 * u)
        u = u + D * lap
    return np.sum(u[2:4, 2:4])


U2 = rng.random(size=(6, 6))
add(G("r8_diffusion_2d_roll_periodic", diffusion_2d, (0.1, U2, 10), argnums=(0, 1), ref="jax"))


def heat_implicit(u0, r, n):
    m = len(u0)
    A = np.eye(m) * (1 + 2 * r) - r * np.eye(m, k=1) - r * np.eye(m, k=-1)
    u = u0
    for _ in range(n):
        u = np.linalg.solve(A, u)
    return np.sum(u ** 3)


add(G("r8_heat_implicit_solve_loop", heat_implicit, (U0, 0.4, 5), argnums=(0, 1), ref="jax"))


def bouncing_ball(h0, e, tmax):
    y, v, t = h0, 0.0, 0.0
    dt = 0.001
    bounces = 0
    while t < tmax and bounces < 3:
        v -= 9.81 * dt
        y += v * dt
        if y < 0:
            y = -y
            v = -e * v
            bounces += 1
        t += dt
    return y + v


add(G("r8_bouncing_ball_compound_while", bouncing_ball, (1.0, 0.8, 1.5), argnums=(0, 1), h=1e-7, tol=1e-5))


def euler_damped_vec(x0, c, n):
    x = np.array(x0, dtype=float)
    v = np.zeros_like(x)
    for _ in range(n):
        v *= (1 - c)
        v -= 0.1 * x
        x += 0.1 * v
    return np.dot(x, x)


add(G("r8_damped_imul_isub_iadd_array", euler_damped_vec, (np.array([1.0, -0.5, 0.3]), 0.05, 25), argnums=(0, 1)))
add(G("r8_damped_memory_small", euler_damped_vec, (np.array([1.0, -0.5, 0.3]), 0.05, 400), argnums=(0, 1), memory="4KB"))
