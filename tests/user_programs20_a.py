"""Round 20, part a: astrophysics and cosmology -- radial-velocity curves from Kepler's
equation solved by Newton in a while loop, orbit fits, N-body energies and forces over
pair loops, distance-redshift integrals by Simpson and trapezoid loops, a cosmology class
hierarchy with properties, lensing, blackbody fits, luminosity functions."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

# ---------------------------------------------------------------- radial velocities
T_OBS = np.array([0.3, 1.7, 3.1, 4.4, 6.0, 7.9, 9.2, 11.5, 13.0, 14.8])
RV_OBS = np.array([12.1, 30.5, 18.2, -10.3, -25.0, -5.1, 20.0, 28.1, 2.0, -22.4])
RV_ERR = np.array([1.0, 1.5, 1.2, 1.0, 2.0, 1.1, 1.3, 1.0, 1.4, 1.6])
TOL_KEPLER = 1e-12


def solve_kepler(M, e):
    # Newton on E - e sin E = M, stopping on the step size
    E = M + e * math.sin(M)
    for _ in range(50):
        dE = (E - e * math.sin(E) - M) / (1.0 - e * math.cos(E))
        E = E - dE
        if abs(dE) < TOL_KEPLER:
            return E
    return E


def true_anomaly(E, e):
    return 2.0 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))


def rv_model(theta, t):
    P, K, e, w, tp, gamma = theta
    out = []
    for ti in t:
        M = 2 * math.pi * (ti - tp) / P
        nu = true_anomaly(solve_kepler(M, e), e)
        out.append(K * (math.cos(nu + w) + e * math.cos(w)) + gamma)
    return np.array(out)


def rv_chi2(theta):
    r = (rv_model(theta, T_OBS) - RV_OBS) / RV_ERR
    return float(np.sum(r * r))


TH_RV = [9.0, 27.0, 0.3, 1.1, 0.8, 2.0]
add(VG("r20a_rv_kepler_newton_chi2_list", rv_chi2, (TH_RV,), ref="fd", tol=1e-6))


def _rv_chi2_nofloat(theta):
    r = (rv_model(theta, T_OBS) - RV_OBS) / RV_ERR
    return np.sum(r * r)


add(pair("r20a_rv_kepler_newton_chi2_vs_jax", lambda: revsrc.grad(rv_chi2)(list(TH_RV)),
         lambda: jax().grad(jaxify(_rv_chi2_nofloat))(list(TH_RV)), tol=1e-8))


def rv_chi2_array(theta):
    return rv_chi2(list(theta))


add(H("r20a_rv_chi2_hessian", rv_chi2_array, (np.array(TH_RV),), ref="fd", tol=2e-4))


def kepler_while(M, e):
    # the same with a while on the residual
    E = M
    f = E - e * math.sin(E) - M
    it = 0
    while abs(f) > 1e-13 and it < 60:
        E = E - f / (1 - e * math.cos(E))
        f = E - e * math.sin(E) - M
        it += 1
    return E


add(pair("r20a_kepler_while_dE_de_closed_form",
         lambda: revsrc.grad(kepler_while, argnums=(0, 1))(1.3, 0.6),
         lambda: (1.0 / (1 - 0.6 * math.cos(kepler_while(1.3, 0.6))),
                  math.sin(kepler_while(1.3, 0.6)) / (1 - 0.6 * math.cos(kepler_while(1.3, 0.6)))),
         tol=1e-10))
add(pair("r20a_kepler_while_second_derivative_e",
         lambda: revsrc.grad(revsrc.grad(kepler_while, argnums=1), argnums=1)(1.3, 0.6),
         lambda: ag()[0].grad(ag()[0].grad(agify(kepler_while), 1), 1)(1.3, 0.6), tol=1e-8))
add(pair("r20a_jit_grad_kepler_while", lambda: revsrc.jit(revsrc.grad(kepler_while))(2.2, 0.4),
         lambda: ag()[0].grad(agify(kepler_while))(2.2, 0.4), tol=1e-10))


# ---------------------------------------------------------------- multi-planet, list of dicts
def multi_rv(planets, t, gamma):
    v = np.full(len(t), gamma)
    for p in planets:
        phase = 2 * np.pi * t / p["P"] + p["phi"]
        v = v + p["K"] * np.sin(phase)
    return v


def multi_rv_loss(planets, gamma):
    r = multi_rv(planets, T_OBS, gamma) - RV_OBS
    return np.sum((r / RV_ERR) ** 2) + sum(0.01 * p["K"] ** 2 for p in planets)


PLANETS = [{"P": 8.7, "K": 25.0, "phi": 0.2}, {"P": 3.1, "K": 4.0, "phi": -1.0}]
add(G("r20a_multi_planet_list_of_dicts", multi_rv_loss, (PLANETS, 1.5), ref="ag", tol=1e-8))
add(G("r20a_multi_planet_wrt_gamma_and_planets", multi_rv_loss, (PLANETS, 1.5), argnums=(0, 1), ref="ag", tol=1e-8))


# ---------------------------------------------------------------- N-body
G_NEWTON = 1.0
SOFT = 0.05


def nbody_energy(x, v, m):
    n = len(m)
    kin = sum(0.5 * m[i] * np.dot(v[i], v[i]) for i in range(n))
    pot = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = x[i] - x[j]
            pot -= G_NEWTON * m[i] * m[j] / np.sqrt(np.dot(d, d) + SOFT ** 2)
    return kin + pot


X_NB = np.array([[0.0, 0.0, 0.0], [1.0, 0.1, 0.0], [-0.5, 0.8, 0.2], [0.2, -0.9, -0.3]])
V_NB = np.array([[0.0, 0.0, 0.0], [0.0, 1.0, 0.1], [-0.7, -0.3, 0.0], [0.8, 0.1, 0.2]])
M_NB = np.array([1.0, 1e-3, 2e-3, 5e-4])
add(G("r20a_nbody_energy_forces_ag", nbody_energy, (X_NB, V_NB, M_NB), ref="ag", tol=1e-10))
add(G("r20a_nbody_energy_wrt_masses", nbody_energy, (X_NB, V_NB, M_NB), argnums=2, ref="jax", tol=1e-10))
add(pair("r20a_nbody_force_constants_hessian", lambda: revsrc.hessian(nbody_energy)(X_NB[:3], V_NB[:3], M_NB[:3]),
         lambda: ag()[0].hessian(agify(nbody_energy))(X_NB[:3], V_NB[:3], M_NB[:3]), tol=1e-8))


def pairwise_potential_vec(x, m):
    d = x[:, None, :] - x[None, :, :]
    r = np.sqrt(np.sum(d ** 2, axis=-1) + SOFT ** 2)
    mm = m[:, None] * m[None, :]
    return -0.5 * G_NEWTON * np.sum(np.triu(mm / r, k=1)) * 2.0


add(pair("r20a_nbody_loop_vs_vectorized_forces",
         lambda: revsrc.grad(lambda x: nbody_energy(x, V_NB, M_NB))(X_NB),
         lambda: jax().grad(jaxify(pairwise_potential_vec))(X_NB, M_NB), tol=1e-10))


def leapfrog_final_radius(v0, dt=0.01, n=300):
    # a test particle around a unit mass; returns the final radius, stopping early on capture
    x = np.array([1.0, 0.0])
    v = np.array(v0, dtype=float)
    a = -x / np.linalg.norm(x) ** 3
    for k in range(n):
        v = v + 0.5 * dt * a
        x = x + dt * v
        r = np.linalg.norm(x)
        if r < 0.05:
            return r
        a = -x / r ** 3
        v = v + 0.5 * dt * a
    return np.linalg.norm(x)


add(G("r20a_leapfrog_orbit_final_radius", leapfrog_final_radius, (np.array([0.1, 1.1]),), ref="ag", tol=1e-8))


def nbody_energy_drift(x0, steps=40, dt=0.02):
    x = x0.copy()
    v = V_NB.copy()
    e0 = nbody_energy(x, v, M_NB)
    for _ in range(steps):
        acc = np.zeros_like(x)
        for i in range(len(M_NB)):
            for j in range(len(M_NB)):
                if i != j:
                    d = x[j] - x[i]
                    acc[i] += G_NEWTON * M_NB[j] * d / (np.dot(d, d) + SOFT ** 2) ** 1.5
        v += dt * acc
        x += dt * v
    return (nbody_energy(x, v, M_NB) - e0) ** 2


add(pair("r20a_nbody_energy_drift_inplace_acc", lambda: revsrc.grad(nbody_energy_drift)(X_NB, 6),
         lambda: fd_checked(nbody_energy_drift, (X_NB, 6), h=1e-4)[0], tol=1e-5))


# ---------------------------------------------------------------- cosmology: quadrature loops
C_KMS = 299792.458
Z_SN = np.array([0.05, 0.12, 0.3, 0.45, 0.7, 1.0, 1.3])
MU_SN = np.array([36.7, 38.7, 40.9, 41.9, 43.1, 44.1, 44.8])


def hubble_E(z, Om, w):
    return math.sqrt(Om * (1 + z) ** 3 + (1 - Om) * (1 + z) ** (3 * (1 + w)))


def comoving_simpson(z, Om, w, n=20):
    h = z / n
    s = 1.0 / hubble_E(0.0, Om, w) + 1.0 / hubble_E(z, Om, w)
    for k in range(1, n):
        s += (4 if k % 2 else 2) / hubble_E(k * h, Om, w)
    return s * h / 3.0


def distance_modulus(z, H0, Om, w):
    dl = (1 + z) * C_KMS / H0 * comoving_simpson(z, Om, w)
    return 5.0 * math.log10(dl) + 25.0


def sn_chi2(params):
    H0, Om, w = params
    return sum((distance_modulus(z, H0, Om, w) - mu) ** 2 for z, mu in zip(Z_SN, MU_SN))


add(VG("r20a_sn_simpson_chi2_tuple", sn_chi2, ((70.0, 0.3, -1.0),), ref="fd", tol=1e-6))
add(pair("r20a_sn_simpson_chi2_vs_ag", lambda: revsrc.grad(sn_chi2)((70.0, 0.3, -0.9)),
         lambda: ag()[0].grad(agify(sn_chi2))((70.0, 0.3, -0.9)), tol=1e-9))


def comoving_vec(z, Om, Ok, n=64):
    zz = np.linspace(0.0, z, n)
    Ez = np.sqrt(Om * (1 + zz) ** 3 + Ok * (1 + zz) ** 2 + (1 - Om - Ok))
    f = 1.0 / Ez
    return np.sum(np.diff(zz) * 0.5 * (f[1:] + f[:-1]))


def transverse_distance(z, Om, Ok):
    dc = comoving_vec(z, Om, Ok)
    if Ok > 0:
        sk = math.sqrt(Ok)
        return math.sinh(sk * dc) / sk
    elif Ok < 0:
        sk = math.sqrt(-Ok)
        return math.sin(sk * dc) / sk
    return dc


for nm, ok in (("open", 0.1), ("closed", -0.1)):
    add(G(f"r20a_curvature_branch_{nm}", transverse_distance, (1.5, 0.3, ok), argnums=(1, 2), ref="fd", tol=1e-6))
add(G("r20a_curvature_branch_flat_wrt_Om", transverse_distance, (1.5, 0.3, 0.0), argnums=1, ref="fd", tol=1e-6))


def age_adaptive(Om, tol=1e-6):
    # trapezoid in a = 1/(1+z) with halving until converged (data-dependent while)
    def integrand(a):
        return 1.0 / (a * math.sqrt(Om / a ** 3 + (1 - Om)))
    n = 4
    old = 0.0
    lo = 1e-4
    while True:
        h = (1.0 - lo) / n
        s = 0.5 * (integrand(lo) + integrand(1.0))
        for k in range(1, n):
            s += integrand(lo + k * h)
        new = s * h
        if abs(new - old) < tol or n > 512:
            return new
        old = new
        n *= 2


add(pair("r20a_age_adaptive_trapezoid_closure", lambda: revsrc.grad(age_adaptive)(0.3),
         lambda: ag()[0].grad(agify(age_adaptive))(0.3), tol=1e-9))


# ---------------------------------------------------------------- a cosmology class hierarchy
class LCDM:
    def __init__(self, H0, Om):
        self.H0 = H0
        self.Om = Om

    @property
    def Ol(self):
        return 1.0 - self.Om

    def E(self, z):
        return np.sqrt(self.Om * (1 + z) ** 3 + self.Ol)

    def dc(self, z, n=40):
        zz = np.linspace(0.0, z, n)
        return C_KMS / self.H0 * np.trapezoid(1.0 / self.E(zz), zz)


class WCDM(LCDM):
    def __init__(self, H0, Om, w):
        super().__init__(H0, Om)
        self.w = w

    def E(self, z):
        return np.sqrt(self.Om * (1 + z) ** 3 + self.Ol * (1 + z) ** (3 * (1 + self.w)))


def bao_loss(H0, Om, w):
    cosmo = WCDM(H0, Om, w) if w != -1.0 else LCDM(H0, Om)
    zs = (0.38, 0.51, 0.61)
    obs = (1512.0, 1975.0, 2307.0)
    return sum((cosmo.dc(z) - o) ** 2 for z, o in zip(zs, obs)) / 100.0


add(G("r20a_class_choice_by_ifexp", bao_loss, (68.0, 0.31, -0.95), argnums=(0, 1, 2), ref="fd", tol=1e-6))


def bao_loss_wcdm(H0, Om, w):
    cosmo = WCDM(H0, Om, w)
    return sum((cosmo.dc(z) - o) ** 2 for z, o in zip((0.38, 0.51, 0.61), (1512.0, 1975.0, 2307.0))) / 100.0


add(G("r20a_class_wcdm_property_super_one_class", bao_loss_wcdm, (68.0, 0.31, -0.95), argnums=(0, 1, 2), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- lensing, blackbody, luminosity function
def sis_magnification_loss(theta_E, beta):
    # point source behind a singular isothermal sphere: two images at beta +- theta_E
    imgs = [beta + theta_E, beta - theta_E]
    mags = [abs(t / (t - theta_E * np.sign(t))) for t in imgs]
    flux = sum(mags)
    return (flux - 4.0) ** 2 + (imgs[0] - imgs[1] - 2.1) ** 2


add(G("r20a_sis_lens_abs_sign", sis_magnification_loss, (1.0, 0.3), argnums=(0, 1), ref="fd", tol=1e-6))

H_PLANCK, K_B, C_LIGHT = 6.62607015e-34, 1.380649e-23, 2.99792458e8
LAM = np.array([0.4, 0.6, 0.9, 1.2, 2.2]) * 1e-6
FLUX = np.array([1.1, 1.6, 1.4, 1.0, 0.35])


def bb_fit(logT, logA):
    T = np.exp(logT)
    x = H_PLANCK * C_LIGHT / (LAM * K_B * T)
    B = 2 * H_PLANCK * C_LIGHT ** 2 / LAM ** 5 / np.expm1(x)
    model = np.exp(logA) * B / 1e13
    return np.sum(np.log(model / FLUX) ** 2)


add(G("r20a_blackbody_expm1_fit", bb_fit, (math.log(5800.0), 0.0), argnums=(0, 1), ref="jax", tol=1e-9))
add(G("r20a_blackbody_float32_temperature", bb_fit, (np.float32(8.6), np.float32(0.1)), argnums=0, ref="fd", tol=1e-3,
      h=1e-3))

LUM = np.array([0.2, 0.5, 0.9, 1.4, 2.5, 4.0, 7.0])


def schechter_nll(params):
    alpha, lstar = params["alpha"], params["lstar"]
    grid = np.linspace(0.1, 20.0, 200)
    phi = (grid / lstar) ** alpha * np.exp(-grid / lstar)
    cdf = np.cumsum(phi) * (grid[1] - grid[0])
    norm = cdf[-1] - cdf[np.searchsorted(grid, 0.15)]
    logp = alpha * np.log(LUM / lstar) - LUM / lstar - np.log(norm)
    return -np.sum(logp)


add(G("r20a_schechter_cumsum_norm_dict", schechter_nll, ({"alpha": -1.1, "lstar": 3.0},), ref="fd", tol=1e-6))


def nfw_rotation_chi2(p, r, vobs):
    rs, rho = np.exp(p[0]), np.exp(p[1])
    x = r / rs
    m = 4 * np.pi * rho * rs ** 3 * (np.log1p(x) - x / (1 + x))
    v = np.sqrt(4.3e-6 * m / r)
    return np.sum((v - vobs) ** 2)


R_ROT = np.array([1.0, 2.0, 4.0, 8.0, 12.0, 20.0])
V_ROT = np.array([60.0, 95.0, 130.0, 150.0, 155.0, 150.0])
add(pair("r20a_nfw_vmap_grad_in_axes_none_0_0",
         lambda: revsrc.vmap(revsrc.grad(nfw_rotation_chi2), in_axes=(None, 0, 0))(
             np.array([1.5, 15.0]), np.stack([R_ROT, R_ROT * 1.1]), np.stack([V_ROT, V_ROT * 0.9])),
         lambda: np.stack([jax().grad(jaxify(nfw_rotation_chi2))(np.array([1.5, 15.0]), R_ROT, V_ROT),
                           jax().grad(jaxify(nfw_rotation_chi2))(np.array([1.5, 15.0]), R_ROT * 1.1, V_ROT * 0.9)]),
         tol=1e-9))


def empty_cluster_energy(x, m):
    # a cluster with no members: potential 0, gradient of shape (0, 3)
    pot = 0.0
    for i in range(len(m)):
        for j in range(i):
            pot -= m[i] * m[j] / np.linalg.norm(x[i] - x[j])
    return pot + 0.0 * np.sum(x)


add(pair("r20a_empty_cluster_energy_grad", lambda: revsrc.grad(empty_cluster_energy)(np.zeros((0, 3)), np.zeros(0)),
         lambda: np.zeros((0, 3)), tol=0.0))


# ---------------------------------------------------------------- more: interp, triu_indices, lstsq
TEMPLATE_LAM = np.linspace(300.0, 900.0, 61)
TEMPLATE_F = 1.0 + 0.5 * np.exp(-0.5 * ((TEMPLATE_LAM - 486.0) / 8.0) ** 2) + 0.8 * np.exp(
    -0.5 * ((TEMPLATE_LAM - 656.0) / 10.0) ** 2)
OBS_LAM = np.linspace(500.0, 850.0, 36)


def redshift_fit(z, amp, obs):
    model = amp * np.interp(OBS_LAM / (1 + z), TEMPLATE_LAM, TEMPLATE_F)
    return np.sum((model - obs) ** 2)


OBS_SPEC = 1.3 * np.interp(OBS_LAM / 1.1, TEMPLATE_LAM, TEMPLATE_F)
add(G("r20a_redshift_interp_sample_points", redshift_fit, (0.0973, 1.25, OBS_SPEC), argnums=(0, 1), ref="fd", tol=1e-6,
      h=1e-7))


def virial_ratio(x, v, m):
    iu, ju = np.triu_indices(len(m), k=1)
    r = np.linalg.norm(x[iu] - x[ju], axis=1)
    W = -np.sum(m[iu] * m[ju] / r)
    K = 0.5 * np.sum(m * np.sum(v ** 2, axis=1))
    return 2 * K / abs(W)


add(G("r20a_virial_ratio_triu_indices", virial_ratio, (X_NB, V_NB, M_NB), argnums=(0, 1), ref="ag", tol=1e-10))


def tully_fisher_slope(logv, mag):
    Am = np.stack([np.ones_like(logv), logv], axis=1)
    coef, *_ = np.linalg.lstsq(Am, mag, rcond=None)
    resid = mag - Am @ coef
    return coef[1] + 0.1 * np.sum(resid ** 2)


LOGV = np.array([2.0, 2.1, 2.25, 2.3, 2.45, 2.5])
MAG = np.array([-19.0, -19.8, -20.9, -21.2, -22.3, -22.5])
add(G("r20a_tully_fisher_lstsq_star_unpack", tully_fisher_slope, (LOGV, MAG), argnums=(0, 1), ref="fd", tol=1e-6))


def thiele_innes_astrometry(p, t):
    # astrometric orbit: Thiele-Innes constants from (a, i, Omega, omega), circular orbit
    a, inc, Om, om, P = p
    A_ = a * (np.cos(om) * np.cos(Om) - np.sin(om) * np.sin(Om) * np.cos(inc))
    B_ = a * (np.cos(om) * np.sin(Om) + np.sin(om) * np.cos(Om) * np.cos(inc))
    F_ = a * (-np.sin(om) * np.cos(Om) - np.cos(om) * np.sin(Om) * np.cos(inc))
    G_ = a * (-np.sin(om) * np.sin(Om) + np.cos(om) * np.cos(Om) * np.cos(inc))
    M = 2 * np.pi * t / P
    XY = np.stack([np.cos(M), np.sin(M)])
    TI = np.array([[B_, G_], [A_, F_]])
    return np.einsum("ij,jt->it", TI, XY)


def astrometry_chi2(p):
    pos = thiele_innes_astrometry(p, T_OBS)
    return np.sum((pos - np.array([np.cos(T_OBS), 0.5 * np.sin(T_OBS)])) ** 2)


add(G("r20a_thiele_innes_einsum", astrometry_chi2, (np.array([1.0, 0.6, 0.3, 1.2, 6.3]),), ref="ag", tol=1e-10))
add(H("r20a_thiele_innes_einsum_hessian", astrometry_chi2, (np.array([1.0, 0.6, 0.3, 1.2, 6.3]),), ref="ag", tol=1e-8))
