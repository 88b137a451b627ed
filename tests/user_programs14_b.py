"""Round 14, part b: chemistry and kinetics -- mass-action networks integrated by RK4 and
Euler, Arrhenius rates with math.exp, an equilibrium found by Newton in a while loop."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append

# A + B -> C (k1), C -> A + B (k2), C -> D (k3)
STOICH = np.array([[-1.0, 1.0, 0.0], [-1.0, 1.0, 0.0], [1.0, -1.0, -1.0], [0.0, 0.0, 1.0]])


def rates(c, k):
    return np.array([k[0] * c[0] * c[1], k[1] * c[2], k[2] * c[2]])


def rhs(c, k):
    return STOICH @ rates(c, k)


def rk4(k, c0, dt=0.05, n=20):
    c = c0
    for _ in range(n):
        k1 = rhs(c, k)
        k2 = rhs(c + 0.5 * dt * k1, k)
        k3 = rhs(c + 0.5 * dt * k2, k)
        k4 = rhs(c + dt * k3, k)
        c = c + dt / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)
    return c


KR = np.array([2.0, 0.5, 0.3])
C0 = np.array([1.0, 0.8, 0.0, 0.0])
add(pair("r14_rk4_network_jacrev_k", lambda: revsrc.jacrev(rk4)(KR, C0), lambda: fdj(lambda k: rk4(k, C0), KR), tol=1e-7))
add(pair("r14_rk4_network_jacfwd_c0", lambda: revsrc.jacfwd(rk4, argnums=1)(KR, C0), lambda: fdj(lambda c: rk4(KR, c), C0), tol=1e-7))
add(VG("r14_rk4_yield_of_D", lambda k: rk4(k, C0)[3], (KR,), ref="ag", tol=1e-9))
add(H("r14_rk4_yield_hessian", lambda k: rk4(k, C0)[3], (KR,), ref="ag", tol=1e-8))


def euler_inplace(k, c0, dt=0.02, n=30):
    c = c0.copy()
    for _ in range(n):
        r = rates(c, k)
        c[0] -= dt * (r[0] - r[1])
        c[1] -= dt * (r[0] - r[1])
        c[2] += dt * (r[0] - r[1] - r[2])
        c[3] += dt * r[2]
    return c


add(pair("r14_euler_inplace_items_jacrev", lambda: revsrc.jacrev(euler_inplace)(KR, C0),
         lambda: fdj(lambda k: euler_inplace(k, C0), KR), tol=1e-7))
add(G("r14_euler_inplace_mass_conservation", lambda k: np.sum(euler_inplace(k, C0)[[0, 2, 3]]), (KR,),
      ref=lambda: np.zeros(3), tol=1e-10))


R_GAS = 8.314


def arrhenius_fit(logA_Ea, temps, kobs):
    logA, Ea = logA_Ea[0], logA_Ea[1]
    s = 0.0
    for T, ko in zip(temps, kobs):
        k = math.exp(logA - Ea * 1000.0 / (R_GAS * T))
        s += (math.log(k) - math.log(ko)) ** 2
    return s


TEMPS = [300.0, 320.0, 340.0, 360.0]
KOBS = [0.01, 0.035, 0.1, 0.26]
P_AE = np.array([10.0, 35.0])
add(VG("r14_arrhenius_fit_list_args", arrhenius_fit, (P_AE, TEMPS, KOBS), ref="fd", tol=1e-6))
add(H("r14_arrhenius_fit_hessian", arrhenius_fit, (P_AE, TEMPS, KOBS), ref="fd", tol=1e-4))


def arrhenius_vec(Ea, T):
    return np.sum(np.exp(-Ea / (R_GAS * T)) * T)


TV = np.array([300.0, 350.0, 400.0])
add(G("r14_arrhenius_grad_wrt_T", arrhenius_vec, (5000.0, TV), argnums=1,
      ref=lambda: np.exp(-5000.0 / (R_GAS * TV)) * (1 + 5000.0 / (R_GAS * TV)), tol=1e-10))
add(pair("r14_arrhenius_vmap_over_Ea", lambda: revsrc.vmap(arrhenius_vec, in_axes=(0, None))(np.array([1e3, 5e3, 1e4]), TV),
         lambda: np.array([arrhenius_vec(e, TV) for e in (1e3, 5e3, 1e4)]), tol=1e-12))


def equilibrium_x(K, a0=1.0, b0=2.0):
    # A + B <-> C with [C]/([A][B]) = K: solve K (a0 - x)(b0 - x) - x = 0 by Newton
    x = 0.0
    it = 0
    while True:
        f = K * (a0 - x) * (b0 - x) - x
        df = -K * (a0 - x) - K * (b0 - x) - 1.0
        step = f / df
        x = x - step
        it += 1
        if abs(step) < 1e-14 or it >= 50:
            break
    return x


def _eq_closed(K, a0=1.0, b0=2.0):
    # K x^2 - (K (a0 + b0) + 1) x + K a0 b0 = 0, smaller root
    b = K * (a0 + b0) + 1.0
    return (b - math.sqrt(b * b - 4 * K * K * a0 * b0)) / (2 * K)


def _eq_dK(K, h=1e-6):
    return (_eq_closed(K + h) - _eq_closed(K - h)) / (2 * h)


add(pair("r14_equilibrium_newton_while_true", lambda: revsrc.value_and_grad(equilibrium_x)(3.0),
         lambda: (_eq_closed(3.0), _eq_dK(3.0)), tol=1e-8))
add(pair("r14_equilibrium_newton_grad_a0", lambda: revsrc.grad(equilibrium_x, argnums=1)(3.0, 1.0, 2.0),
         lambda: (_eq_closed(3.0, 1.0 + 1e-6) - _eq_closed(3.0, 1.0 - 1e-6)) / 2e-6, tol=1e-7))
add(pair("r14_equilibrium_second_derivative", lambda: revsrc.grad(revsrc.grad(equilibrium_x))(3.0),
         lambda: (_eq_dK(3.0 + 1e-4) - _eq_dK(3.0 - 1e-4)) / 2e-4, tol=1e-5))
add(pair("r14_equilibrium_jit_value", lambda: revsrc.jit(equilibrium_x)(3.0), lambda: equilibrium_x(3.0), tol=0.0))
add(pair("r14_equilibrium_vmap", lambda: revsrc.vmap(equilibrium_x)(np.array([0.5, 3.0, 10.0])),
         lambda: np.array([equilibrium_x(k) for k in (0.5, 3.0, 10.0)]), tol=0.0))
add(pair("r14_equilibrium_vmap_grad", lambda: revsrc.vmap(revsrc.grad(equilibrium_x))(np.array([0.5, 3.0, 10.0])),
         lambda: np.array([_eq_dK(k) for k in (0.5, 3.0, 10.0)]), tol=1e-7))


def michaelis_menten_loss(p, S, v):
    vmax, km = p
    pred = vmax * S / (km + S)
    return np.mean((pred - v) ** 2)


SS = np.array([0.5, 1.0, 2.0, 5.0, 10.0])
VV = np.array([0.9, 1.5, 2.1, 2.6, 2.9])
add(VG("r14_michaelis_menten_tuple_unpack", michaelis_menten_loss, (np.array([3.2, 1.1]), SS, VV), ref="ag", tol=1e-10))
add(G("r14_michaelis_menten_tuple_param", michaelis_menten_loss, ((3.2, 1.1), SS, VV), ref="fd", tol=1e-7))


def stiff_adaptive(k, c0=1.0, t_end=1.0):
    # explicit Euler with a step chosen from the current rate (data-dependent step count)
    c, t = c0, 0.0
    while t < t_end:
        dt = min(0.5 / (k * c + 1.0), t_end - t)
        c = c - dt * k * c * c
        t += dt
    return c


add(G("r14_adaptive_step_while", stiff_adaptive, (4.0,), ref="fd", tol=1e-6, h=1e-7))


def ode_conc_3species(k, y0):
    # A -> B -> C with dict state, Euler
    st = {"A": y0[0], "B": y0[1], "C": y0[2]}
    for _ in range(25):
        ra = k[0] * st["A"]
        rb = k[1] * st["B"]
        st = {"A": st["A"] - 0.04 * ra, "B": st["B"] + 0.04 * (ra - rb), "C": st["C"] + 0.04 * rb}
    return st["B"]


add(VG("r14_dict_state_consecutive", ode_conc_3species, (np.array([1.5, 0.7]), np.array([1.0, 0.0, 0.0])), ref="ag", tol=1e-10))
add(G("r14_dict_state_wrt_y0", ode_conc_3species, (np.array([1.5, 0.7]), np.array([1.0, 0.2, 0.0])), argnums=1, ref="ag", tol=1e-10))
add(pair("r14_rk4_jax_backend", lambda: revsrc.grad(lambda k: rk4(k, C0, 0.2, 4)[3], backend="jax")(KR),
         lambda: ag()[0].grad(lambda k: agify(rk4)(k, C0, 0.2, 4)[3])(KR), tol=1e-9))
