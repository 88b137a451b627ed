"""Round 18, part e: chemistry and materials -- cubic equations of state (Peng-Robinson)
with a compressibility root found by Newton, reaction equilibria solved inside the loss,
lattice energies with neighbour lists, Birch-Murnaghan fits, mixing rules as dict pytrees."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

R_GAS = 8.314462618


def pr_params(T, Tc, Pc, omega):
    kappa = 0.37464 + 1.54226 * omega - 0.26992 * omega ** 2
    alpha = (1 + kappa * (1 - math.sqrt(T / Tc))) ** 2
    a = 0.45724 * R_GAS ** 2 * Tc ** 2 / Pc * alpha
    b = 0.07780 * R_GAS * Tc / Pc
    return a, b


def pr_Z(T, P, Tc=190.6, Pc=4.599e6, omega=0.012):
    # largest root of the PR cubic by Newton from the ideal-gas guess
    a, b = pr_params(T, Tc, Pc, omega)
    A = a * P / (R_GAS * T) ** 2
    B = b * P / (R_GAS * T)
    Z = 1.0
    for _ in range(100):
        f = Z ** 3 - (1 - B) * Z ** 2 + (A - 3 * B ** 2 - 2 * B) * Z - (A * B - B ** 2 - B ** 3)
        df = 3 * Z ** 2 - 2 * (1 - B) * Z + (A - 3 * B ** 2 - 2 * B)
        step = f / df
        Z = Z - step
        if abs(step) < 1e-14:
            return Z
    return Z


add(G("r18e_peng_robinson_Z_newton_wrt_T", pr_Z, (250.0, 5e6), ref="fd", h=1e-3, tol=1e-7))
add(G("r18e_peng_robinson_Z_newton_wrt_P", pr_Z, (250.0, 5e6), argnums=1, ref="fd", h=10.0, tol=1e-7))
add(G("r18e_peng_robinson_Z_wrt_omega", pr_Z, (250.0, 5e6, 190.6, 4.599e6, 0.012), argnums=4, ref="fd", tol=1e-7))


def pr_Z_closed_dT(T, P, h=1e-3):
    return (pr_Z(T + h, P) - pr_Z(T - h, P)) / (2 * h)


add(pair("r18e_peng_robinson_jit_grad", lambda: revsrc.jit(revsrc.grad(pr_Z))(250.0, 5e6),
         lambda: pr_Z_closed_dT(250.0, 5e6), tol=1e-7))


def fugacity_coeff(T, P):
    a, b = pr_params(T, 190.6, 4.599e6, 0.012)
    A = a * P / (R_GAS * T) ** 2
    B = b * P / (R_GAS * T)
    Z = pr_Z(T, P)
    s2 = math.sqrt(2.0)
    lnphi = Z - 1 - math.log(Z - B) - A / (2 * s2 * B) * math.log((Z + (1 + s2) * B) / (Z + (1 - s2) * B))
    return lnphi


add(G("r18e_pr_ln_fugacity_wrt_T_P", fugacity_coeff, (250.0, 5e6), argnums=(0, 1), ref="fd", h=1e-3, tol=1e-6))


def birch_murnaghan(V, params):
    E0, V0, B0, Bp = params["E0"], params["V0"], params["B0"], params["Bp"]
    eta = (V0 / V) ** (2.0 / 3.0)
    return E0 + 9 * V0 * B0 / 16 * ((eta - 1) ** 3 * Bp + (eta - 1) ** 2 * (6 - 4 * eta))


VOLS = np.linspace(14.0, 20.0, 9)
EDFT = birch_murnaghan(VOLS, {"E0": -5.0, "V0": 16.5, "B0": 0.6, "Bp": 4.2}) + 0.002 * np.cos(VOLS)


def bm_fit_loss(params):
    return np.sum((birch_murnaghan(VOLS, params) - EDFT) ** 2)


BMP = {"E0": -4.9, "V0": 16.0, "B0": 0.5, "Bp": 4.0}
add(G("r18e_birch_murnaghan_dict_params", bm_fit_loss, (BMP,), ref="jax", tol=1e-10))
add(pair("r18e_birch_murnaghan_dict_hessian", lambda: revsrc.hessian(bm_fit_loss)(BMP),
         lambda: jax().hessian(jaxify(bm_fit_loss))(BMP), tol=1e-8))


def equilibrium_extent(lnK, n0, P=1.0):
    # N2 + 3 H2 <-> 2 NH3; solve for extent xi by bisection then Newton polish
    nu = np.array([-1.0, -3.0, 2.0])

    def resid(xi):
        n = n0 + nu * xi
        y = n / np.sum(n)
        return np.sum(nu * np.log(y)) - lnK + np.sum(nu) * math.log(P)

    lo, hi = 1e-9, min(n0[0], n0[1] / 3.0) - 1e-9
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if resid(mid) > 0:
            hi = mid
        else:
            lo = mid
    xi = 0.5 * (lo + hi)
    for _ in range(3):
        h = 1e-7
        xi = xi - resid(xi) * 2 * h / (resid(xi + h) - resid(xi - h))
    return xi


def ammonia_yield(lnK, n0):
    xi = equilibrium_extent(lnK, n0)
    return 2 * xi / (np.sum(n0) - 2 * xi)


N0 = np.array([1.0, 3.0, 0.0])
add(G("r18e_ammonia_equilibrium_bisect_newton_wrt_lnK", ammonia_yield, (2.0, N0 + 1e-3), ref="fd", tol=1e-5))


def equilibrium_newton_only(lnK, n0):
    nu = np.array([-1.0, -3.0, 2.0])
    xi = 0.3
    for _ in range(40):
        n = n0 + nu * xi
        y = n / np.sum(n)
        r = np.sum(nu * np.log(y)) - lnK
        dr = np.sum(nu * nu / n) - np.sum(nu) ** 2 / np.sum(n)
        xi = xi - r / dr
    return xi


def eq_ift(lnK, n0):
    # implicit function theorem: dxi/dlnK = 1 / dr/dxi
    nu = np.array([-1.0, -3.0, 2.0])
    xi = equilibrium_newton_only(lnK, n0)
    n = n0 + nu * xi
    return 1.0 / (np.sum(nu * nu / n) - np.sum(nu) ** 2 / np.sum(n))


NZ = np.array([1.0, 3.0, 0.05])
add(pair("r18e_equilibrium_newton_ift_closed", lambda: revsrc.grad(equilibrium_newton_only)(1.5, NZ),
         lambda: eq_ift(1.5, NZ), tol=1e-9))
add(G("r18e_equilibrium_newton_wrt_n0", equilibrium_newton_only, (1.5, NZ), argnums=1, ref="fd", tol=1e-6))


def neighbour_list(pos, box, rc):
    # plain-Python neighbour list (ints only, no gradient needed)
    n = pos.shape[0]
    pairs = []
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[j] - pos[i]
            d = d - box * np.round(d / box)
            if np.sum(d * d) < rc * rc:
                pairs.append((i, j))
    return pairs


def lj_energy(pos, box, pairs, eps=1.0, sig=1.0, rc=2.5):
    E = 0.0
    for i, j in pairs:
        d = pos[j] - pos[i]
        d = d - box * np.round(d / box)
        r2 = np.sum(d * d)
        s6 = (sig * sig / r2) ** 3
        E += 4 * eps * (s6 * s6 - s6)
    return E


def fcc(a, n=2):
    base = np.array([[0, 0, 0], [0.5, 0.5, 0], [0.5, 0, 0.5], [0, 0.5, 0.5]])
    cells = np.array([[i, j, k] for i in range(n) for j in range(n) for k in range(n)])
    return ((cells[:, None, :] + base[None, :, :]).reshape(-1, 3)) * a


POS = fcc(1.6) + 0.02 * np.random.default_rng(4).standard_normal((32, 3))
BOX = 3.2
PAIRS = neighbour_list(POS, BOX, 2.0)


def lj_forces_ref(pos):
    F = np.zeros_like(pos)
    for i, j in PAIRS:
        d = pos[j] - pos[i]
        d = d - BOX * np.round(d / BOX)
        r2 = np.sum(d * d)
        s6 = (1.0 / r2) ** 3
        dEdr2 = 4 * (-6 * s6 * s6 / r2 + 3 * s6 / r2)
        F[j] += 2 * dEdr2 * d
        F[i] -= 2 * dEdr2 * d
    return F


add(pair("r18e_lj_neighbour_list_pairs_closed", lambda: revsrc.grad(lj_energy)(POS, BOX, PAIRS), lambda: lj_forces_ref(POS), tol=1e-9))


def lj_vectorized(pos, box, ii, jj):
    d = pos[jj] - pos[ii]
    d = d - box * np.round(d / box)
    r2 = np.einsum("ij,ij->i", d, d)
    s6 = (1.0 / r2) ** 3
    return np.sum(4 * (s6 * s6 - s6))


II = np.array([p[0] for p in PAIRS])
JJ = np.array([p[1] for p in PAIRS])
add(pair("r18e_lj_vectorized_fancy_index_einsum", lambda: revsrc.grad(lj_vectorized)(POS, BOX, II, JJ), lambda: lj_forces_ref(POS), tol=1e-9))


def lattice_energy_per_atom(a):
    pos = fcc(a)
    pairs = neighbour_list(pos, 2 * a, 1.3 * a)
    return lj_energy(pos, 2 * a, pairs) / pos.shape[0]


add(G("r18e_fcc_lattice_constant_rebuild_neighbours", lattice_energy_per_atom, (1.55,), ref="fd", tol=1e-6))


def madelung_like(q, pos, alpha=0.8, box=4.0):
    # real-space Ewald sum with erfc screening, charges differentiated
    n = pos.shape[0]
    E = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            d -= box * np.round(d / box)
            r = np.linalg.norm(d)
            E += q[i] * q[j] * math.erfc(alpha * r) / r
    self_e = -alpha / math.sqrt(math.pi) * np.sum(q ** 2)
    return E + self_e


QQ = np.array([1.0, -1.0, 1.0, -1.0, 0.5, -0.5])
PQ = np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [1, 1, 0.2], [0.5, 0.5, 1], [1.5, 0.4, 1.1]])
add(G("r18e_ewald_real_space_erfc_wrt_q", madelung_like, (QQ, PQ * 1.0), ref="fd", tol=1e-7))
add(G("r18e_ewald_real_space_erfc_wrt_pos_isub", madelung_like, (QQ, PQ * 1.0), argnums=1, ref="fd", tol=1e-7))


def mixing_rule_pressure(x, comps, T=300.0, V=1e-3):
    # van der Waals one-fluid mixing; comps: list of dicts with a, b
    a_mix = 0.0
    b_mix = 0.0
    for i, ci in enumerate(comps):
        b_mix += x[i] * ci["b"]
        for j, cj in enumerate(comps):
            a_mix += x[i] * x[j] * math.sqrt(ci["a"] * cj["a"])
    return R_GAS * T / (V - b_mix) - a_mix / V ** 2


COMPS = [{"a": 0.137, "b": 3.87e-5}, {"a": 0.365, "b": 4.28e-5}, {"a": 0.55, "b": 6.4e-5}]
XM = np.array([0.5, 0.3, 0.2])
add(G("r18e_vdw_mixing_enumerate_nested", mixing_rule_pressure, (XM, COMPS), ref="fd", tol=1e-6))
add(G("r18e_vdw_mixing_wrt_comps_list_of_dicts", mixing_rule_pressure, (XM, COMPS), argnums=1, ref="fd", h=1e-8, tol=1e-5))


def arrhenius_fit(theta, T, k_obs):
    lnA, Ea = theta
    k = np.exp(lnA - Ea / (R_GAS * T))
    return np.sum((np.log(k) - np.log(k_obs)) ** 2)


TS = np.array([300.0, 320.0, 340.0, 360.0, 380.0])
KOBS = np.exp(20.0 - 5e4 / (R_GAS * TS)) * (1 + 0.02 * np.sin(TS))
add(H("r18e_arrhenius_hessian_tuple", lambda th: arrhenius_fit((th[0], th[1]), TS, KOBS), (np.array([19.0, 4.8e4]),), ref="fd", tol=1e-5))
add(VG("r18e_arrhenius_vg", arrhenius_fit, (np.array([19.0, 4.8e4]), TS, KOBS), ref="jax", tol=1e-10))


def kinetics_rk4(k, y0, dt=0.05, steps=40):
    # A -> B -> C with k = [k1, k2], explicit RK4
    def rhs(y):
        return np.array([-k[0] * y[0], k[0] * y[0] - k[1] * y[1], k[1] * y[1]])
    y = y0
    for _ in range(steps):
        a = rhs(y)
        b = rhs(y + 0.5 * dt * a)
        c = rhs(y + 0.5 * dt * b)
        d = rhs(y + dt * c)
        y = y + dt / 6 * (a + 2 * b + 2 * c + d)
    return y[1]


add(G("r18e_consecutive_reaction_rk4_closure", kinetics_rk4, (np.array([1.2, 0.6]), np.array([1.0, 0.0, 0.0])), ref="jax", tol=1e-11))
add(G("r18e_consecutive_reaction_backend_jax", kinetics_rk4, (np.array([1.2, 0.6]), np.array([1.0, 0.0, 0.0])), ref="jax", tol=1e-11, backend="jax"))


def safe_log_activity(x, gamma):
    # activity with a guarded log: the user's try/except around math.log
    tot = 0.0
    for xi, gi in zip(x, gamma):
        try:
            tot += xi * math.log(gi * xi)
        except ValueError:
            tot += 0.0
    return tot


XA = np.array([0.2, 0.0, 0.5, 0.3])
GA = np.array([1.1, 0.9, 1.3, 0.8])
add(G("r18e_gibbs_mixing_try_except_zero_fraction", safe_log_activity, (XA, GA), argnums=1, ref=lambda: XA / GA, tol=1e-12))


def lowest_conformer_energy(torsions, k=np.array([1.0, 0.5, 0.2])):
    # energies of a few rigid rotations; the lowest two by sorted() and a min() over a generator
    Es = [float(np.sum(k * (1 + np.cos(np.arange(1, 4) * (torsions + s))))) for s in (0.0, 2.1, 4.2)]
    best = sorted(Es)[:2]
    return best[0] + 0.5 * best[1] + min(e for e in Es)


add(G("r18e_conformers_sorted_min_generator", lowest_conformer_energy, (0.4,), ref="fd", tol=1e-8))


def first_stable_phase(T, phases=((1.0, -0.002), (0.7, -0.001), (0.2, 0.0005))):
    # G = H - T S for each phase; return the first phase's G that is below zero (early return)
    for H_, S in phases:
        G_ = H_ - T * S * 1000.0
        if G_ < 0.0:
            return G_ * G_
    return 0.0 * T


add(G("r18e_first_stable_phase_early_return", first_stable_phase, (600.0,), ref="fd", h=1e-3, tol=1e-7))
add(G("r18e_first_stable_phase_none_stable", first_stable_phase, (100.0,), ref="fd", h=1e-3, tol=1e-7))


def debye_heat_capacity(T, theta_D=300.0, n=200):
    # Debye integral by the trapezoid rule on an np.linspace grid with a 0-d upper bound
    xD = np.asarray(theta_D / T)
    x = np.linspace(1e-6, 1.0, n) * xD
    integrand = x ** 4 * np.exp(x) / np.expm1(x) ** 2
    I = np.sum(0.5 * (integrand[1:] + integrand[:-1]) * np.diff(x))
    return 9 * R_GAS * (T / theta_D) ** 3 * I


add(G("r18e_debye_cv_linspace_0d_bound", debye_heat_capacity, (150.0,), ref="fd", tol=1e-7))
add(G("r18e_debye_cv_wrt_theta", debye_heat_capacity, (150.0, 300.0), argnums=1, ref="fd", tol=1e-7))


def ideal_mixing_0d(x):
    # a 0-d array argument
    return float(R_GAS * 300.0 * (x * np.log(x) + (1 - x) * np.log(1 - x)))


add(pair("r18e_mixing_0d_array_arg", lambda: revsrc.grad(ideal_mixing_0d)(np.array(0.3)),
         lambda: R_GAS * 300.0 * (math.log(0.3) - math.log(0.7)), tol=1e-10))


def clipped_coverage(K, P):
    # Langmuir coverage clipped to a physical range, summed over pressures
    theta = K * P / (1 + K * P)
    return np.sum(np.clip(theta, 0.05, 0.9))


PP = np.array([0.01, 0.1, 1.0, 10.0, 100.0])
add(G("r18e_langmuir_clip_bounds_active_inactive", clipped_coverage, (0.5, PP), ref="fd", tol=1e-8))

# ---- backend="jax"
add(G("r18e_lj_neighbour_pairs_iadd_backend_jax", lj_energy, (POS, BOX, PAIRS), ref=lambda: lj_forces_ref(POS), tol=1e-9, backend="jax"))
add(G("r18e_vdw_mixing_iadd_backend_jax", mixing_rule_pressure, (XM, COMPS), ref="fd", tol=1e-6, backend="jax"))
add(G("r18e_ammonia_bisect_min_backend_jax", ammonia_yield, (2.0, N0 + 1e-3), ref="fd", tol=1e-5, backend="jax"))
add(G("r18e_conformers_sorted_backend_jax", lowest_conformer_energy, (0.4,), ref="fd", tol=1e-8, backend="jax"))
add(G("r18e_first_stable_phase_backend_jax", first_stable_phase, (600.0,), ref="fd", h=1e-3, tol=1e-7, backend="jax"))
add(G("r18e_gibbs_try_except_backend_jax", safe_log_activity, (XA, GA), argnums=1, ref=lambda: XA / GA, tol=1e-12, backend="jax"))
add(G("r18e_ewald_erfc_backend_jax", madelung_like, (QQ, PQ * 1.0), argnums=1, ref="fd", tol=1e-7, backend="jax"))
add(G("r18e_peng_robinson_backend_jax", pr_Z, (250.0, 5e6), ref="fd", h=1e-3, tol=1e-7, backend="jax"))
add(G("r18e_debye_backend_jax", debye_heat_capacity, (150.0,), ref="fd", tol=1e-7, backend="jax"))
