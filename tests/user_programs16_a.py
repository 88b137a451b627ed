"""Round 16, part a: materials and elasticity -- neo-Hookean and Mooney-Rivlin energies of
3x3 deformation gradients (det, inv, trace), J2 plasticity return mapping with branches,
Voigt notation with index arrays."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append

F0 = np.array([[1.1, 0.05, 0.02], [0.03, 0.95, 0.04], [-0.02, 0.01, 1.05]])


def neo_hookean(F, mu=1.2, lam=3.0):
    J = np.linalg.det(F)
    C = F.T @ F
    I1 = np.trace(C)
    lnJ = math.log(J)
    return 0.5 * mu * (I1 - 3.0) - mu * lnJ + 0.5 * lam * lnJ ** 2


def pk1_closed(F, mu=1.2, lam=3.0):
    J = np.linalg.det(F)
    Finv_T = np.linalg.inv(F).T
    return mu * (F - Finv_T) + lam * math.log(J) * Finv_T


add(VG("r16_neo_hookean_pk1_vg", neo_hookean, (F0,), ref=lambda: pk1_closed(F0), tol=1e-10))
add(H("r16_neo_hookean_tangent_hessian", neo_hookean, (F0,), ref="ag", tol=1e-8))
add(pair("r16_neo_hookean_jacrev_of_grad", lambda: revsrc.jacrev(revsrc.grad(neo_hookean))(F0),
         lambda: ag()[0].hessian(agify(neo_hookean))(F0), tol=1e-8))
add(G("r16_neo_hookean_wrt_mu_lam", neo_hookean, (F0, 1.2, 3.0), argnums=(1, 2), ref="ag", tol=1e-10))


def mooney_rivlin(F, c10=0.5, c01=0.2, kappa=10.0):
    J = np.linalg.det(F)
    C = F.T @ F
    I1 = np.trace(C)
    I2 = 0.5 * (I1 ** 2 - np.trace(C @ C))
    I1b = J ** (-2.0 / 3.0) * I1
    I2b = J ** (-4.0 / 3.0) * I2
    return c10 * (I1b - 3.0) + c01 * (I2b - 3.0) + 0.5 * kappa * (J - 1.0) ** 2


add(VG("r16_mooney_rivlin_vg", mooney_rivlin, (F0,), ref="ag", tol=1e-10))
add(H("r16_mooney_rivlin_hessian", mooney_rivlin, (F0,), ref="ag", tol=1e-8))


def mr_inv_form(F, c10=0.5, kappa=4.0):
    # the same energy written with inv(C) and slogdet
    C = F.T @ F
    Ci = np.linalg.inv(C)
    sign, logdetC = np.linalg.slogdet(C)
    J = math.exp(0.5 * logdetC)
    return c10 * (np.trace(C) * J ** (-2.0 / 3.0) - 3.0) + kappa * (J - 1.0) ** 2 + 0.01 * np.sum(Ci * Ci)


add(VG("r16_mr_slogdet_inv_vg", mr_inv_form, (F0,), ref="ag", tol=1e-10))
add(H("r16_mr_slogdet_inv_hessian", mr_inv_form, (F0,), ref="ag", tol=1e-8))


def uniaxial_stretch(lam_, mu=1.0, kappa=50.0):
    F = np.diag(np.array([lam_, 1.0 / math.sqrt(lam_), 1.0 / math.sqrt(lam_)]))
    return neo_hookean(F, mu, kappa)


add(pair("r16_uniaxial_vmap_grad_stretches",
         lambda: revsrc.vmap(revsrc.grad(uniaxial_stretch))(np.array([0.8, 1.0, 1.2, 1.5])),
         lambda: np.array([ag()[0].grad(agify(uniaxial_stretch))(s) for s in (0.8, 1.0, 1.2, 1.5)]),
         tol=1e-10))


def return_map_1d(eps_hist, E=200.0, H_=10.0, sy=1.0):
    # 1D elastoplastic return mapping with isotropic hardening over a strain history
    ep = 0.0
    alpha = 0.0
    work = 0.0
    for k in range(eps_hist.shape[0]):
        eps = eps_hist[k]
        sig_tr = E * (eps - ep)
        f = abs(sig_tr) - (sy + H_ * alpha)
        if f > 0.0:
            dg = f / (E + H_)
            s = 1.0 if sig_tr > 0 else -1.0
            ep = ep + dg * s
            alpha = alpha + dg
            sig = sig_tr - E * dg * s
        else:
            sig = sig_tr
        work += sig * sig
    return work / eps_hist.shape[0]


EPS = np.array([0.001, 0.004, 0.008, 0.012, 0.006, -0.002, -0.009, -0.004, 0.003])
add(VG("r16_return_map_1d_history_vg", return_map_1d, (EPS,), ref="ag", tol=1e-9))
add(G("r16_return_map_1d_wrt_E_H", return_map_1d, (EPS, 200.0, 10.0, 1.0), argnums=(1, 2, 3), ref="ag", tol=1e-9))


def j2_radial_return(eps, mu=80.0, K=160.0, sy=0.2):
    # 3D small strain J2 radial return from a zero plastic state
    tr = np.trace(eps)
    dev = eps - tr / 3.0 * np.eye(3)
    s_tr = 2.0 * mu * dev
    q = math.sqrt(1.5 * np.sum(s_tr * s_tr))
    if q > sy:
        s = s_tr * (sy / q)
    else:
        s = s_tr
    sig = s + K * tr * np.eye(3)
    return 0.5 * np.sum(sig * eps)


EP = np.array([[0.002, 0.001, 0.0], [0.001, -0.001, 0.0005], [0.0, 0.0005, 0.0004]])
add(VG("r16_j2_radial_return_plastic_vg", j2_radial_return, (EP,), ref="ag", tol=1e-9))
add(VG("r16_j2_radial_return_elastic_vg", j2_radial_return, (EP * 0.01,), ref="ag", tol=1e-9))

VOIGT_I = np.array([0, 1, 2, 1, 0, 0])
VOIGT_J = np.array([0, 1, 2, 2, 2, 1])


def voigt_energy(eps_tensor, Cv):
    ev = eps_tensor[VOIGT_I, VOIGT_J] * np.array([1.0, 1.0, 1.0, 2.0, 2.0, 2.0])
    return 0.5 * ev @ Cv @ ev


def iso_C(E=1.0, nu=0.3):
    lam = E * nu / ((1 + nu) * (1 - 2 * nu))
    mu = E / (2 * (1 + nu))
    C = np.zeros((6, 6))
    C[:3, :3] = lam
    C[np.arange(3), np.arange(3)] += 2 * mu
    C[np.arange(3, 6), np.arange(3, 6)] = mu
    return C


CV = iso_C()
add(VG("r16_voigt_fancy_index_vg", voigt_energy, (EP, CV), ref="ag", tol=1e-10))
add(G("r16_voigt_wrt_stiffness", voigt_energy, (EP, CV), argnums=1, ref="ag", tol=1e-10))


def voigt_from_E_nu(p, eps_tensor):
    return voigt_energy(eps_tensor, iso_C(p[0], p[1]))


add(G("r16_voigt_build_C_inside_E_nu", voigt_from_E_nu, (np.array([2.0, 0.25]), EP), ref="fd", tol=1e-7))


def stress_voigt(ev, Cv):
    return Cv @ ev


EV = np.array([0.01, -0.002, 0.003, 0.001, 0.0, 0.004])
add(pair("r16_voigt_jacfwd_is_C", lambda: revsrc.jacfwd(stress_voigt)(EV, CV), lambda: CV, tol=1e-14))


def ogden_principal(stretches, mus=(0.6, 0.01), alphas=(1.3, 5.0)):
    W = 0.0
    for mu_p, a in zip(mus, alphas):
        W += mu_p / a * (stretches[0] ** a + stretches[1] ** a + stretches[2] ** a - 3.0)
    return W


LS = np.array([1.2, 0.95, 0.9])
add(H("r16_ogden_zip_tuple_defaults_hessian", ogden_principal, (LS,), ref="ag", tol=1e-9))


def cauchy_from_F(F, mu=1.2, lam=3.0):
    P = pk1_closed(F, mu, lam)
    return P @ F.T / np.linalg.det(F)


add(pair("r16_cauchy_jacrev_vs_jacfwd", lambda: revsrc.jacrev(cauchy_from_F)(F0),
         lambda: jax().jacfwd(jaxify(cauchy_from_F))(F0), tol=1e-9))
add(JV("r16_cauchy_jvp_shear", cauchy_from_F, (F0,), (np.array([[0.0, 1.0, 0], [0, 0, 0], [0, 0, 0.]]),), tol=1e-7))


def principal_stretch_energy(F):
    C = F.T @ F
    w = np.linalg.eigvalsh(C)
    return np.sum((np.sqrt(w) - 1.0) ** 2)


add(G("r16_eigvalsh_principal_stretches", principal_stretch_energy, (F0,), ref="fd", tol=1e-7))
add(pair("r16_neo_hookean_jit_grad_backend_jax",
         lambda: revsrc.grad(neo_hookean, backend="jax")(F0), lambda: pk1_closed(F0), tol=1e-10))
