"""Round 9, more probabilistic and physical programs: Metropolis steps with uniforms
passed in, Box-Muller, von Mises and Dirichlet log densities, stick-breaking, an ELBO
by reparameterisation, Kepler's equation by Newton, the Colebrook friction factor by
fixed point, ABCD optics matrices, Snell refraction, Euler-angle rotations, the rocket
equation, N-body forces gathered with np.add.at."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(404)
U = _rng.uniform(size=30)
EPS = _rng.normal(size=30)


def metropolis_mean(step):
    x = 0.0
    total = 0.0
    for t in range(30):
        prop = x + step * EPS[t]
        log_acc = -0.5 * prop * prop + 0.5 * x * x
        if math.log(U[t]) < log_acc:
            x = prop
        total += x
    return total / 30


CASES.append(G("r9_metropolis_fixed_uniforms_pathwise", metropolis_mean, (0.8,), ref="ag"))


def box_muller(mu, sigma=1.5):
    u1, u2 = U[:15], U[15:]
    z = np.sqrt(-2 * np.log(u1)) * np.cos(2 * np.pi * u2)
    x = mu + sigma * z
    return np.mean(np.exp(-x * x))


CASES.append(G("r9_box_muller_reparam", box_muller, (0.3,), ref="jax"))


def von_mises_ll(kappa, mu=0.5):
    thetas = 2 * math.pi * U - math.pi
    # log I0(kappa) by its series
    i0 = 0.0
    term = 1.0
    k = 0
    while term > 1e-16 * max(i0, 1.0):
        i0 += term
        k += 1
        term = term * (kappa / 2) ** 2 / (k * k)
    return np.sum(kappa * np.cos(thetas - mu)) - len(thetas) * (math.log(2 * math.pi) + math.log(i0))


CASES.append(G("r9_von_mises_bessel_series_while", von_mises_ll, (1.3,), ref="fd", tol=1e-6))


def dirichlet_logpdf(alpha):
    x = np.array([0.2, 0.5, 0.3])
    lg = 0.0
    for a in alpha:
        lg += math.lgamma(a)
    return math.lgamma(float(np.sum(alpha))) - lg + np.sum((alpha - 1) * np.log(x))


CASES.append(G("r9_dirichlet_lgamma_loop_over_array", dirichlet_logpdf, (np.array([1.5, 2.0, 3.0]),), ref="fd", tol=1e-6))


def stick_breaking(v):
    w = []
    rest = 1.0
    for vk in v:
        w.append(vk * rest)
        rest = rest * (1 - vk)
    w.append(rest)
    w = np.array(w)
    return -np.sum(w * np.log(w))


CASES.append(G("r9_stick_breaking_list_to_array", stick_breaking, (np.array([0.3, 0.5, 0.2]),), ref="ag"))


def elbo(params):
    mu, log_s = params
    z = mu + np.exp(log_s) * EPS
    log_joint = -0.5 * z ** 2 - 0.5 * (1.3 - z) ** 2 / 0.25
    entropy = log_s + 0.5 * np.log(2 * np.pi * np.e)
    return np.mean(log_joint) + entropy


CASES.append(G("r9_elbo_reparameterisation_tuple", elbo, ((0.4, -0.5),), ref="jax"))


def kepler_E(M, e=0.3):
    E = M
    for _ in range(30):
        E = E - (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
    return E


CASES.append(G("r9_kepler_equation_newton", kepler_E, (1.1,), ref=lambda: 1 / (1 - 0.3 * math.cos(kepler_E(1.1))), tol=1e-10))
CASES.append(G("r9_kepler_equation_wrt_eccentricity", kepler_E, (1.1, 0.3), argnums=1,
               ref=lambda: math.sin(kepler_E(1.1)) / (1 - 0.3 * math.cos(kepler_E(1.1))), tol=1e-10))


def colebrook(Re, rel_rough=1e-4):
    f = 0.02
    for _ in range(50):
        rhs = -2.0 * math.log10(rel_rough / 3.7 + 2.51 / (Re * math.sqrt(f)))
        f = 1.0 / rhs ** 2
    return f


CASES.append(G("r9_colebrook_fixed_point_log10", colebrook, (1e5,), ref="fd", h=1.0, tol=1e-5))


def abcd_focus(f1, d=0.1, f2=0.05):
    L1 = np.array([[1.0, 0.0], [-1.0 / f1, 1.0]])
    P = np.array([[1.0, d], [0.0, 1.0]])
    L2 = np.array([[1.0, 0.0], [-1.0 / f2, 1.0]])
    M = L2 @ P @ L1
    return -1.0 / M[1, 0]


CASES.append(G("r9_abcd_two_lens_focal_length", abcd_focus, (0.2,), ref=lambda: 0.05 * (0.05 - 0.1) / (0.2 + 0.05 - 0.1) ** 2, tol=1e-10))


def snell(theta_in, n1=1.0, n2=1.5):
    s = n1 * math.sin(theta_in) / n2
    theta_t = math.asin(s)
    # Fresnel reflectance (s polarisation)
    rs = (n1 * math.cos(theta_in) - n2 * math.cos(theta_t)) / (n1 * math.cos(theta_in) + n2 * math.cos(theta_t))
    return rs * rs


CASES.append(G("r9_snell_fresnel_asin", snell, (0.6,), ref="jax"))


def euler_zyx(angles):
    a, b, c = angles
    Rz = np.array([[math.cos(a), -math.sin(a), 0.0], [math.sin(a), math.cos(a), 0.0], [0.0, 0.0, 1.0]])
    Ry = np.array([[math.cos(b), 0.0, math.sin(b)], [0.0, 1.0, 0.0], [-math.sin(b), 0.0, math.cos(b)]])
    Rx = np.array([[1.0, 0.0, 0.0], [0.0, math.cos(c), -math.sin(c)], [0.0, math.sin(c), math.cos(c)]])
    R = Rz @ Ry @ Rx
    return R[0, 2] + 2 * R[1, 0] - R[2, 1]


CASES.append(G("r9_euler_angles_math_in_array_literal", euler_zyx, (np.array([0.3, -0.2, 0.7]),), ref="jax"))
CASES.append(H("r9_euler_angles_hessian", euler_zyx, (np.array([0.3, -0.2, 0.7]),), ref="jax"))


def rocket_dv(mass_ratio, isp=300.0):
    return isp * 9.81 * math.log(mass_ratio)


def staged(fuel_frac):
    dv = 0.0
    for f in fuel_frac:
        dv += rocket_dv(1.0 / (1.0 - f))
    return dv


CASES.append(G("r9_rocket_stages_helper", staged, (np.array([0.8, 0.7, 0.6]),),
               ref=lambda: 300 * 9.81 / (1 - np.array([0.8, 0.7, 0.6])), tol=1e-10))


def nbody_forces(pos):
    n = pos.shape[0]
    F = np.zeros_like(pos)
    i, j = np.triu_indices(n, 1)
    d = pos[j] - pos[i]
    r3 = np.sum(d * d, axis=1) ** 1.5
    f = d / r3[:, None]
    np.add.at(F, i, f)
    np.add.at(F, j, -f)
    return np.sum(F[:, 0] ** 2) + np.sum(F * pos)


_pos5 = _rng.normal(size=(5, 2)) * 2
CASES.append(G("r9_nbody_forces_add_at_pairs", nbody_forces, (_pos5,), ref="fd"))


def ising_mean_field(beta):
    m = 0.5
    for _ in range(200):
        m = math.tanh(beta * 4 * m + 0.01)
    return m


def _ising_ref():
    m = ising_mean_field(0.3)
    s = 1 - m * m
    # m = tanh(4 beta m + h): dm/dbeta = s * 4 m / (1 - 4 beta s)
    return s * 4 * m / (1 - 4 * 0.3 * s)


CASES.append(G("r9_mean_field_ising_fixed_point", ising_mean_field, (0.3,), ref=_ising_ref, tol=1e-8))


def drag_terminal(cd):
    v = 0.0
    dt = 0.01
    t = 0.0
    while t < 20.0:
        v += (9.81 - cd * v * abs(v)) * dt
        t += dt
    return v


CASES.append(G("r9_terminal_velocity_time_loop", drag_terminal, (0.2,), ref=lambda: -0.5 * math.sqrt(9.81) * 0.2 ** -1.5, tol=1e-6))


def wave_packet_energy(k0):
    x = np.linspace(-10, 10, 200)
    psi_re = np.exp(-x ** 2 / 4) * np.cos(k0 * x)
    psi_im = np.exp(-x ** 2 / 4) * np.sin(k0 * x)
    dx = x[1] - x[0]
    dre = np.gradient(psi_re, dx)
    dim = np.gradient(psi_im, dx)
    num = np.sum(dre ** 2 + dim ** 2)
    den = np.sum(psi_re ** 2 + psi_im ** 2)
    return 0.5 * num / den


CASES.append(G("r9_np_gradient_kinetic_energy", wave_packet_energy, (1.5,), ref="fd"))


def planck_peak_power(T):
    lam = np.linspace(1e-7, 3e-6, 400)
    h, c, kB = 6.626e-34, 3e8, 1.381e-23
    B = 2 * h * c ** 2 / lam ** 5 / np.expm1(h * c / (lam * kB * T))
    return np.sum(B) * (lam[1] - lam[0]) / 1e7


CASES.append(G("r9_planck_expm1_tiny_constants", planck_peak_power, (3000.0,), ref="jax", tol=1e-6))
