"""Round 13, part f: PDEs and physics -- heat and advection by finite differences (np.roll,
slicing, in-place updates), pendulums, spring networks, Verlet on small arrays."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append

U0 = np.exp(-((np.linspace(0, 1, 12) - 0.4) ** 2) / 0.02)


def heat_roll(kappa, u, steps=20, dx=1 / 12):
    dt = 0.2 * dx * dx
    for _ in range(steps):
        u = u + kappa * dt / dx ** 2 * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
    return np.sum(u ** 2)


add(VG("r13_heat_roll_kappa", heat_roll, (1.0, U0), ref="ag", tol=1e-9))
add(G("r13_heat_roll_initial", heat_roll, (1.0, U0), argnums=1, ref="ag", tol=1e-9))


def heat_inplace_dirichlet(kappa, u0, steps=15):
    u = u0.copy()
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        u[1:-1] += 0.2 * kappa * lap
        u[0] = 0.0
        u[-1] = 0.0
    return u @ u


add(G("r13_heat_inplace_slices", heat_inplace_dirichlet, (1.0, U0), argnums=(0, 1), ref="fd"))


def heat_view_write(kappa, u0, steps=15):
    u = u0.copy()
    inner = u[1:-1]
    for _ in range(steps):
        lap = u[:-2] - 2 * u[1:-1] + u[2:]
        inner += 0.2 * kappa * lap
    return u @ u


add(pair("r13_heat_write_through_view", lambda: revsrc.grad(heat_view_write, argnums=(0, 1))(1.0, U0),
         lambda: fd_checked(heat_view_write, (1.0, U0), argnums=(0, 1)), tol=1e-6))
add(pair("r13_heat_view_value", lambda: revsrc.value_and_grad(heat_view_write)(0.7, U0)[0],
         lambda: heat_view_write(0.7, U0), tol=1e-13))


def upwind(c, u, steps=10):
    for _ in range(steps):
        if c > 0:
            u = u - c * (u - np.roll(u, 1))
        else:
            u = u - c * (np.roll(u, -1) - u)
    return np.sum(u * np.arange(len(u)))


add(G("r13_upwind_pos", upwind, (0.3, U0), ref="ag", tol=1e-9))
add(G("r13_upwind_neg", upwind, (-0.3, U0), ref="ag", tol=1e-9))


def pendulum(theta0, L=1.0, g=9.81, dt=0.01, n=100):
    th, om = theta0, 0.0
    for _ in range(n):
        om -= g / L * math.sin(th) * dt
        th += om * dt
    return th


add(VG("r13_pendulum_semi_implicit", pendulum, (0.5,), ref="ag", tol=1e-9))
add(G("r13_pendulum_length", pendulum, (0.5, 1.2), argnums=1, ref="ag", tol=1e-9))
add(H("r13_pendulum_hessian", pendulum, (0.5,), ref="ag", tol=1e-8))
add(pair("r13_pendulum_jit_grad", lambda: revsrc.jit(revsrc.grad(pendulum))(0.5),
         lambda: ag()[0].grad(agify(pendulum))(0.5), tol=1e-9))
add(pair("r13_pendulum_grad_grad", lambda: revsrc.grad(revsrc.grad(pendulum))(0.5),
         lambda: ag()[0].grad(ag()[0].grad(agify(pendulum)))(0.5), tol=1e-8))


def spring_energy(x, edges, rest, k=10.0):
    E = 0.0
    for (i, j), r in zip(edges, rest):
        d = x[i] - x[j]
        E += 0.5 * k * (math.sqrt(d @ d) - r) ** 2
    return E


XS = np.array([[0.0, 0.0], [1.1, 0.0], [0.5, 0.9], [1.6, 1.0]])
EDGES = [(0, 1), (1, 2), (0, 2), (1, 3), (2, 3)]
REST = [1.0, 1.0, 1.0, 1.0, 1.2]
add(G("r13_spring_network", spring_energy, (XS, EDGES, REST), ref="ag", tol=1e-9))
add(H("r13_spring_network_hessian", lambda x: spring_energy(x.reshape(4, 2), EDGES, REST), (XS.ravel(),), ref="ag", tol=1e-8))


def verlet_springs(x0, steps=30, dt=0.02):
    x = x0.copy()
    v = np.zeros_like(x)
    f = -revsrc.grad(spring_energy)(x, EDGES, REST)
    for _ in range(steps):
        x = x + dt * v + 0.5 * dt * dt * f
        f_new = -revsrc.grad(spring_energy)(x, EDGES, REST)
        v = v + 0.5 * dt * (f + f_new)
        f = f_new
    return np.sum(x[:, 1])


def spring_force(x, k=10.0):
    f = np.zeros_like(x)
    for (i, j), r in zip(EDGES, REST):
        d = x[i] - x[j]
        L = math.sqrt(d @ d)
        g = k * (L - r) * d / L
        f[i] -= g
        f[j] += g
    return f


def verlet_springs_ref(x0, steps=30, dt=0.02):
    x = x0.copy()
    v = np.zeros_like(x)
    f = spring_force(x)
    for _ in range(steps):
        x = x + dt * v + 0.5 * dt * dt * f
        f_new = spring_force(x)
        v = v + 0.5 * dt * (f + f_new)
        f = f_new
    return np.sum(x[:, 1])


# revsrc.grad(spring_energy)(x, EDGES, REST) called inside: E104 (a derivative called with a
# list argument, documented kind); the same with the lists as globals works
add(G("r13_verlet_grad_inside", verlet_springs, (XS,), ref=lambda: fd_checked(verlet_springs_ref, (XS,))[0], tol=1e-6))


def spring_energy_g(x, k=10.0):
    E = 0.0
    for (i, j), r in zip(EDGES, REST):
        d = x[i] - x[j]
        E += 0.5 * k * (math.sqrt(d @ d) - r) ** 2
    return E


def verlet_springs_g(x0, steps=30, dt=0.02):
    x = x0.copy()
    v = np.zeros_like(x)
    f = -revsrc.grad(spring_energy_g)(x)
    for _ in range(steps):
        x = x + dt * v + 0.5 * dt * dt * f
        f_new = -revsrc.grad(spring_energy_g)(x)
        v = v + 0.5 * dt * (f + f_new)
        f = f_new
    return np.sum(x[:, 1])


add(G("r13_verlet_grad_inside_globals", verlet_springs_g, (XS,), ref=lambda: fd_checked(verlet_springs_ref, (XS,))[0], tol=1e-6))


def wave_leapfrog(c, u0, steps=12):
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        u_next = 2 * u - u_prev + (c * 0.5) ** 2 * (np.roll(u, 1) - 2 * u + np.roll(u, -1))
        u_prev, u = u, u_next
    return np.max(u)


add(G("r13_wave_max", wave_leapfrog, (0.9, U0), argnums=(0, 1), ref="fd"))


def burgers_clip(nu, u0, steps=10):
    u = u0.copy()
    for _ in range(steps):
        ux = (np.roll(u, -1) - np.roll(u, 1)) / 2
        uxx = np.roll(u, -1) - 2 * u + np.roll(u, 1)
        u = np.clip(u - 0.1 * u * ux + nu * uxx, -1.0, 0.95)
    return np.sum(u ** 2)


add(G("r13_burgers_clip", burgers_clip, (0.2, U0), argnums=(0, 1), ref="fd"))


def poisson_jacobi(f, iters=30):
    n = len(f)
    u = np.zeros(n + 2)
    for _ in range(iters):
        u[1:-1] = 0.5 * (u[:-2] + u[2:] + f / (n + 1) ** 2)
    return np.sum(u)


add(G("r13_poisson_jacobi_slices", poisson_jacobi, (U0,), ref="ag", tol=1e-9) if False else
    G("r13_poisson_jacobi_slices", poisson_jacobi, (U0,), ref="fd"))


def rigid_energy(q, p, m=np.array([1.0, 2.0])):
    return np.sum(p * p / (2 * m)) + 0.5 * (q[0] - q[1]) ** 2 + 0.1 * q[0] ** 4


def hamiltonian_flow(q, p, dt=0.05, n=20):
    for _ in range(n):
        p = p - 0.5 * dt * revsrc.grad(rigid_energy, argnums=0)(q, p)
        q = q + dt * revsrc.grad(rigid_energy, argnums=1)(q, p)
        p = p - 0.5 * dt * revsrc.grad(rigid_energy, argnums=0)(q, p)
    return q[0] + 0.3 * p[1]


Q2, P2 = np.array([0.5, -0.2]), np.array([0.1, 0.3])
def hamiltonian_flow_ref(q, p, dt=0.05, n=20, m=np.array([1.0, 2.0])):
    def dVdq(q):
        return np.array([(q[0] - q[1]) + 0.4 * q[0] ** 3, -(q[0] - q[1])])
    for _ in range(n):
        p = p - 0.5 * dt * dVdq(q)
        q = q + dt * p / m
        p = p - 0.5 * dt * dVdq(q)
    return q[0] + 0.3 * p[1]


add(G("r13_hamiltonian_grad_in_loop", hamiltonian_flow, (Q2, P2), argnums=(0, 1),
      ref=lambda: fd_checked(hamiltonian_flow_ref, (Q2, P2), argnums=(0, 1))))
