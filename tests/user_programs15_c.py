"""Round 15, part c: optics and electromagnetics -- thin-film transfer matrices (2x2
complex products in a loop), Fresnel coefficients, phase unwrapping, losses built from
abs()**2 of complex values."""
import cmath  # noqa: F401
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def stack_reflectance(d, n_layers, lam=550.0, n_sub=1.52):
    # characteristic-matrix method at normal incidence
    M = np.eye(2, dtype=complex)
    for j in range(d.shape[0]):
        delta = 2 * np.pi * n_layers[j] * d[j] / lam
        Mj = np.array([[np.cos(delta), 1j * np.sin(delta) / n_layers[j]],
                       [1j * n_layers[j] * np.sin(delta), np.cos(delta)]])
        M = M @ Mj
    B = M[0, 0] + M[0, 1] * n_sub
    C = M[1, 0] + M[1, 1] * n_sub
    r = (B - C) / (B + C)
    return np.abs(r) ** 2


D3 = np.array([95.0, 60.0, 110.0])
N3 = np.array([1.38, 2.1, 1.6])
add(VG("r15_thin_film_tmm_vg", stack_reflectance, (D3, N3), ref="ag", tol=1e-9))
add(G("r15_thin_film_tmm_wrt_index", stack_reflectance, (D3, N3), argnums=1, ref="ag", tol=1e-9))
add(H("r15_thin_film_tmm_hessian", stack_reflectance, (D3, N3), ref="fd", tol=1e-5))
add(pair("r15_thin_film_vmap_grad_thickness_batch",
         lambda: revsrc.vmap(revsrc.grad(stack_reflectance), in_axes=(0, None))(np.stack([D3, D3 * 1.1]), N3),
         lambda: np.stack([ag()[0].grad(agify(stack_reflectance))(d, N3) for d in (D3, D3 * 1.1)]), tol=1e-9))


def broadband(d, n_layers):
    tot = 0.0
    for lam in (450.0, 550.0, 650.0):
        tot += stack_reflectance(d, n_layers, lam=lam)
    return tot / 3.0


add(G("r15_thin_film_broadband_tuple_loop", broadband, (D3, N3), ref="ag", tol=1e-9))


def fresnel_rs(theta, n1=1.0, n2=1.5):
    ci = math.cos(theta)
    st = n1 / n2 * math.sin(theta)
    ct = math.sqrt(1.0 - st * st)
    rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)
    rp = (n2 * ci - n1 * ct) / (n2 * ci + n1 * ct)
    return 0.5 * (rs * rs + rp * rp)


add(VG("r15_fresnel_unpolarized", fresnel_rs, (0.6,), ref="ag", tol=1e-12))
add(pair("r15_fresnel_vmap_hessian_angles", lambda: revsrc.vmap(revsrc.hessian(fresnel_rs))(np.array([0.1, 0.6, 1.2])),
         lambda: np.array([ag()[0].hessian(agify(fresnel_rs))(t) for t in (0.1, 0.6, 1.2)]), tol=1e-9))
add(pair("r15_fresnel_brewster_grad_zero_rp", lambda: revsrc.grad(lambda t: fresnel_rs(t) * 2.0)(math.atan(1.5)),
         lambda: ag()[0].grad(lambda t: agify(fresnel_rs)(t) * 2.0)(math.atan(1.5)), tol=1e-12))


def fresnel_tir(theta, n1=1.5, n2=1.0):
    # total internal reflection branch: complex cos of the transmitted angle
    ci = np.cos(theta)
    st = n1 / n2 * np.sin(theta)
    if st < 1.0:
        ct = np.sqrt(1.0 - st * st) + 0j
    else:
        ct = 1j * np.sqrt(st * st - 1.0)
    rs = (n1 * ci - n2 * ct) / (n1 * ci + n2 * ct)
    return np.abs(rs) ** 2 + np.angle(rs)


add(G("r15_fresnel_tir_complex_branch_below", fresnel_tir, (0.5,), ref="fd", tol=1e-7))
add(G("r15_fresnel_tir_complex_branch_above", fresnel_tir, (0.9,), ref="fd", tol=1e-7))


def unwrap_phase_loss(k, x=np.linspace(0.0, 3.0, 12)):
    field = np.exp(1j * k * x ** 2)
    ph = np.angle(field)
    un = np.unwrap(ph)
    return np.sum((un - k * x ** 2) ** 2) + np.sum(un) * 0.01


add(G("r15_np_unwrap_angle", unwrap_phase_loss, (1.7,), ref="fd", tol=1e-7))


def manual_unwrap(k, x=np.linspace(0.0, 3.0, 12)):
    ph = np.angle(np.exp(1j * k * x ** 2))
    out = [ph[0]]
    offset = 0.0
    for i in range(1, ph.shape[0]):
        d = ph[i] - ph[i - 1]
        if d > math.pi:
            offset -= 2 * math.pi
        elif d < -math.pi:
            offset += 2 * math.pi
        out.append(ph[i] + offset)
    return sum(v * v for v in out)


add(VG("r15_manual_unwrap_loop_branches", manual_unwrap, (1.7,), ref="fd", tol=1e-7))


def grating_intensity(phases):
    # far field of N slits: |sum exp(i phi_k)|^2 at a few angles
    ang = np.array([0.0, 0.1, 0.2, 0.3])
    k = np.arange(phases.shape[0])
    E = np.exp(1j * (phases[None, :] + 2.0 * np.pi * k[None, :] * np.sin(ang)[:, None]))
    I = np.abs(np.sum(E, axis=1)) ** 2
    return I[1] / np.sum(I)


PH5 = np.array([0.0, 0.3, -0.2, 0.5, 0.1])
add(VG("r15_grating_abs_sq_broadcast", grating_intensity, (PH5,), ref="ag", tol=1e-10))
add(pair("r15_grating_jacrev_intensities",
         lambda: revsrc.jacrev(lambda p: np.abs(np.sum(np.exp(1j * p) * np.array([1.0, 2.0, 1.0, 0.5, 1.0])))**2 * np.ones(2))(PH5),
         lambda: fdj(lambda p: np.abs(np.sum(np.exp(1j * p) * np.array([1.0, 2.0, 1.0, 0.5, 1.0])))**2 * np.ones(2), PH5), tol=1e-6))


def fabry_perot(L, R=0.8, lam=1.0):
    r = math.sqrt(R)
    t = 0.0 + 0.0j
    ph = 1.0 + 0.0j
    step = cmath_like(2 * math.pi * 2 * L / lam)
    for _ in range(40):
        t = t + (1 - R) * ph
        ph = ph * r * r * step
    return abs(t) ** 2


def cmath_like(phi):
    return complex(math.cos(phi), math.sin(phi))


add(G("r15_fabry_perot_complex_builtin", fabry_perot, (0.26,), ref="fd", tol=1e-7))


def fabry_perot_np(L, R=0.8, lam=1.0):
    step = np.exp(2j * np.pi * 2 * L / lam)
    t = 0.0
    ph = 1.0
    for _ in range(40):
        t = t + (1 - R) * ph
        ph = ph * R * step
    return np.abs(t) ** 2


add(VG("r15_fabry_perot_np_exp_complex_loop", fabry_perot_np, (0.26,), ref="fd", tol=1e-7))
add(G("r15_fabry_perot_wrt_R", fabry_perot_np, (0.26, 0.8), argnums=1, ref="fd", tol=1e-7))


def jones_chain(angles):
    # polarizers at given angles: transmitted intensity of horizontally polarized light
    E = np.array([1.0 + 0j, 0.0 + 0j])
    for a in angles:
        c, s = np.cos(a), np.sin(a)
        P = np.array([[c * c, c * s], [c * s, s * s]])
        E = P @ E
    return np.real(np.vdot(E, E))


ANG = np.array([0.3, 0.7, 1.2])
add(VG("r15_jones_polarizer_chain_vdot", jones_chain, (ANG,), ref="fd", tol=1e-8))


def waveplate(theta, delta=np.pi / 2):
    c, s = np.cos(theta), np.sin(theta)
    R = np.array([[c, -s], [s, c]])
    W = np.diag(np.array([1.0, np.exp(1j * delta)]))
    J = R @ W @ R.T
    E = J @ np.array([1.0, 0.0])
    return np.abs(E[1]) ** 2 - np.abs(E[0]) ** 2


add(G("r15_waveplate_diag_complex", waveplate, (0.4,), ref=lambda: 2.0 * math.sin(4 * 0.4), tol=1e-9))
# quarter-wave plate: |E1|^2 - |E0|^2 = -cos(2 theta)^2, d/dtheta = 2 sin(4 theta)
add(G("r15_waveplate_wrt_retardance", waveplate, (0.4, 1.1), argnums=1, ref="fd", tol=1e-7))


def em_skin(freq, sigma=5.8e7, mu=4e-7 * math.pi):
    # complex wavenumber in a conductor; attenuation over a thickness loop
    k = np.sqrt(-1j * 2 * np.pi * freq * mu * sigma)
    amp = 1.0
    for _ in range(5):
        amp = amp * np.abs(np.exp(1j * k * 1e-6))
    return amp


add(G("r15_skin_depth_complex_sqrt", em_skin, (1e6,), ref="fd", h=1e2, tol=1e-6))


# -- complex linear algebra inside real losses (conjugation conventions)

def cplx_solve_loss(p):
    A = np.array([[2.0 + 1j * p[0], 0.5], [0.3j, 1.0 + p[1]]])
    b = np.array([1.0 + 0.5j, -0.2j])
    x = np.linalg.solve(A, b)
    return np.sum(np.abs(x) ** 2)


PC = np.array([0.4, 0.7])
add(G("r15_complex_solve_abs_sq", cplx_solve_loss, (PC,), ref="fd", tol=1e-7))


def cplx_inv_det(p):
    A = np.array([[1.0 + 1j * p[0], p[1]], [1j, 2.0 - 0.5j * p[0]]])
    Ai = np.linalg.inv(A)
    d = np.linalg.det(A)
    return np.real(np.trace(Ai @ Ai.conj().T)) + np.abs(d) ** 2 + np.angle(d)


add(G("r15_complex_inv_det_angle", cplx_inv_det, (PC,), ref="fd", tol=1e-7))


def cplx_fft2(p):
    Z = np.outer(np.exp(1j * p * np.arange(3.0)), np.array([1.0, 0.5j, -0.25]))
    F = np.fft.fft2(Z)
    G_ = np.fft.ifft(np.fft.fftshift(F, axes=0), axis=1)
    return np.sum(np.abs(F) ** 2 * np.arange(9.0).reshape(3, 3)) + np.sum(np.real(G_) * np.imag(G_))


add(G("r15_complex_fft2_ifft_fftshift", cplx_fft2, (0.6,), ref="fd", tol=1e-7))


def cplx_matmul_chain(theta):
    M = np.eye(2, dtype=complex)
    for t in theta:
        U = np.array([[np.cos(t), -1j * np.sin(t)], [-1j * np.sin(t), np.cos(t)]])
        M = M @ U
    psi = M @ np.array([1.0, 0.0])
    return np.abs(psi[1]) ** 2


TH = np.array([0.3, 0.5, -0.2])
add(G("r15_complex_unitary_chain_population", cplx_matmul_chain, (TH,), ref=lambda: np.full(3, math.sin(2 * 0.6)), tol=1e-12))


def holo_jac(z):
    return np.array([z[0] * z[1], np.exp(z[0]) + z[1] ** 2])


ZH = np.array([0.3 + 0.1j, -0.5 + 0.8j])
add(pair("r15_holomorphic_jacfwd", lambda: revsrc.jacfwd(holo_jac)(ZH),
         lambda: np.array([[ZH[1], ZH[0]], [np.exp(ZH[0]), 2 * ZH[1]]]), tol=1e-13))
add(pair("r15_holomorphic_jacrev", lambda: revsrc.jacrev(holo_jac, holomorphic=True)(ZH),
         lambda: np.array([[ZH[1], ZH[0]], [np.exp(ZH[0]), 2 * ZH[1]]]), tol=1e-13))


def real_of_complex_arg(z):
    return np.sum(np.abs(z * z - 1.0) ** 2)


add(pair("r15_grad_complex_array_argument", lambda: revsrc.grad(real_of_complex_arg)(ZH),
         lambda: jax().grad(jaxify(real_of_complex_arg))(ZH), tol=1e-12))


def eigh_complex(p):
    H_ = np.array([[1.0, p[0] - 1j * p[1]], [p[0] + 1j * p[1], -1.0]])
    w = np.linalg.eigvalsh(H_)
    return w[1] - w[0]


add(G("r15_hermitian_eigvalsh_gap", eigh_complex, (PC,), ref=lambda: 2 * PC / math.sqrt(1 + PC @ PC), tol=1e-12))



def holo_sum(z):
    return np.sum(z ** 3)


# refusals.md's E302 row: hessian / jacrev of a complex output are refused "without
# holomorphic=True"
add(pair("r15_holomorphic_hessian", lambda: revsrc.hessian(holo_sum, holomorphic=True)(ZH), lambda: np.diag(6 * ZH), tol=1e-13))
add(pair("r15_holomorphic_value_and_grad", lambda: revsrc.value_and_grad(holo_sum, holomorphic=True)(ZH), lambda: (holo_sum(ZH), 3 * ZH ** 2), tol=1e-13))
