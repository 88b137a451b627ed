"""Round 17, part f: compositions and edge values across parts a-e -- jit(grad), vmap of
per-example gradients, hessian, jacfwd(jacrev), grad(grad), hvp, vjp, value_and_grad with
has_aux, backend="jax", closures and partials, state between calls (globals, attributes,
arguments mutated), edge values (0-d, float32, ints, nan, inf, empty) and misuse."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs7_harness import fd_hess_checked  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

DE = 4.7
A_M = 1.9
RE = 0.74


def morse(r):
    return DE * (1.0 - math.exp(-A_M * (r - RE))) ** 2


def morse_d1(r):
    e = math.exp(-A_M * (r - RE))
    return 2.0 * DE * A_M * (1.0 - e) * e


def morse_d2(r):
    e = math.exp(-A_M * (r - RE))
    return 2.0 * DE * A_M * A_M * (2.0 * e * e - e)


add(pair("r17f_morse_jit_grad", lambda: revsrc.jit(revsrc.grad(morse))(0.9), lambda: morse_d1(0.9), tol=1e-12))
add(pair("r17f_morse_grad_grad", lambda: revsrc.grad(revsrc.grad(morse))(0.9), lambda: morse_d2(0.9), tol=1e-12))
add(pair("r17f_morse_vmap_grad", lambda: revsrc.vmap(revsrc.grad(morse))(np.array([0.6, 0.74, 1.0, 2.5])),
         lambda: np.array([morse_d1(r) for r in (0.6, 0.74, 1.0, 2.5)]), tol=1e-12))
add(pair("r17f_morse_jit_grad_grad", lambda: revsrc.jit(revsrc.grad(revsrc.grad(morse)))(1.3), lambda: morse_d2(1.3), tol=1e-12))


def _rebind_global_de():
    global DE
    g = revsrc.grad(morse)
    a = g(0.9)
    old = DE
    DE = 9.4
    try:
        b = g(0.9)
    finally:
        DE = old
    return (a, b)


add(pair("r17f_morse_global_rebound_between_calls", _rebind_global_de,
         lambda: (morse_d1(0.9), 2.0 * morse_d1(0.9)), tol=1e-12))


def _rebind_global_de_jit():
    global DE
    g = revsrc.jit(revsrc.grad(morse))
    a = g(0.9)
    old = DE
    DE = 9.4
    try:
        b = g(0.9)
    finally:
        DE = old
    return (a, b)


add(pair("r17f_morse_global_rebound_jit", _rebind_global_de_jit,
         lambda: (morse_d1(0.9), 2.0 * morse_d1(0.9)), tol=1e-12))


def lj_trimer(x):
    X = x.reshape(3, 2)
    e = 0.0
    for i in range(3):
        for j in range(i + 1, 3):
            d = X[i] - X[j]
            r2 = d @ d
            e += 4.0 * (r2 ** -6 - r2 ** -3)
    return e


XT = np.array([0.0, 0.0, 1.1, 0.05, 0.5, 0.95])
add(pair("r17f_lj_trimer_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(lj_trimer))(XT),
         lambda: ag()[0].hessian(agify(lj_trimer))(XT), tol=1e-8))
add(pair("r17f_lj_trimer_jacrev_jacrev", lambda: revsrc.jacrev(revsrc.jacrev(lj_trimer))(XT),
         lambda: ag()[0].hessian(agify(lj_trimer))(XT), tol=1e-8))
add(pair("r17f_lj_trimer_hvp", lambda: revsrc.hvp(lj_trimer, (XT,), (np.arange(6.0),)),
         lambda: ag()[0].hessian(agify(lj_trimer))(XT) @ np.arange(6.0), tol=1e-8))
add(pair("r17f_lj_trimer_backend_jax_grad", lambda: revsrc.grad(lj_trimer, backend="jax")(XT),
         lambda: ag()[0].grad(agify(lj_trimer))(XT), tol=1e-10))
add(pair("r17f_lj_trimer_backend_jax_hessian", lambda: revsrc.hessian(lj_trimer, backend="jax")(XT),
         lambda: ag()[0].hessian(agify(lj_trimer))(XT), tol=1e-8))


def station_loss(theta, x, y):
    # per-station calibration of a rating curve Q = a (h - h0)^b
    a, h0, b = theta
    q = a * np.maximum(x - h0, 1e-9) ** b
    return (math.log(q) - math.log(y)) ** 2 if np.ndim(q) == 0 else np.sum((np.log(q) - np.log(y)) ** 2)


TH3 = np.array([2.0, 0.3, 1.6])
HS = np.array([0.8, 1.2, 1.9, 2.4, 3.1])
QS = np.array([0.6, 1.9, 6.5, 10.0, 19.0])
add(pair("r17f_vmap_per_example_grad_in_axes_none",
         lambda: revsrc.vmap(revsrc.grad(station_loss), in_axes=(None, 0, 0))(TH3, HS, QS),
         lambda: np.array([fd_checked(station_loss, (TH3, h, q))[0] for h, q in zip(HS, QS)]), tol=1e-7))


def rating_loss_mean(theta, x, y):
    a, h0, b = theta
    q = a * np.maximum(x - h0, 1e-9) ** b
    return np.mean((np.log(q) - np.log(y)) ** 2)


add(pair("r17f_per_example_grads_mean_matches_batch",
         lambda: np.mean(revsrc.vmap(revsrc.grad(rating_loss_mean), in_axes=(None, 0, 0))(TH3, HS[:, None], QS[:, None]), axis=0),
         lambda: ag()[0].grad(agify(rating_loss_mean))(TH3, HS, QS), tol=1e-10))


def sir_with_aux(params, N_=1000.0, days=100, dt=0.5):
    beta, gamma = params["beta"], params["gamma"]
    S, I, R = N_ - 5.0, 5.0, 0.0
    peak, peak_day = I, 0
    for k in range(int(days / dt)):
        inf = beta * S * I / N_ * dt
        rec = gamma * I * dt
        S, I, R = S - inf, I + inf - rec, R + rec
        if I > peak:
            peak, peak_day = I, k
    return R / N_, {"peak": peak, "peak_day": peak_day * dt}


PSIR = {"beta": 0.3, "gamma": 0.1}


def _sir_aux_ref():
    v, aux = sir_with_aux(PSIR)
    g = fd_checked(lambda b, c: sir_with_aux({"beta": b, "gamma": c})[0], (0.3, 0.1), argnums=(0, 1))
    return ((v, aux), {"beta": g[0], "gamma": g[1]})


add(pair("r17f_sir_value_and_grad_has_aux_dict", lambda: revsrc.value_and_grad(sir_with_aux, has_aux=True)(PSIR),
         _sir_aux_ref, tol=1e-6))
add(pair("r17f_sir_has_aux_backend_jax", lambda: revsrc.value_and_grad(sir_with_aux, has_aux=True, backend="jax")(PSIR),
         _sir_aux_ref, tol=1e-6))


class Reservoir:
    def __init__(self, cap, inflow):
        self.cap = cap
        self.inflow = inflow

    @property
    def n(self):
        return len(self.inflow)

    def shortage(self, release_frac):
        S = 0.5 * self.cap
        short = 0.0
        for t in range(self.n):
            rel = release_frac * S
            S = min(S + self.inflow[t] - rel, self.cap)
            short += (8.0 - rel) ** 2
        return short


INF8 = np.array([6.0, 9.0, 12.0, 4.0, 3.0, 10.0, 11.0, 5.0])


def _attr_between_calls():
    res = Reservoir(40.0, INF8.copy())
    g = revsrc.grad(res.shortage)
    a = g(0.3)
    res.cap = 25.0
    b = g(0.3)
    res.inflow = INF8 * 1.5
    c = g(0.3)
    return (a, b, c)


def _attr_between_calls_ref():
    out = []
    for cap, inf in ((40.0, INF8), (25.0, INF8), (25.0, INF8 * 1.5)):
        r = Reservoir(cap, inf.copy())
        out.append(fd_checked(r.shortage, (0.3,))[0])
    return tuple(out)


add(pair("r17f_reservoir_attribute_rebound_between_calls", _attr_between_calls, _attr_between_calls_ref, tol=1e-7))


def _arg_mutated_between_calls():
    inflow = INF8.copy()
    res = Reservoir(40.0, inflow)
    g = revsrc.grad(res.shortage)
    a = g(0.3)
    inflow[2] = 30.0   # the caller changes the array the object holds
    b = g(0.3)
    return (a, b)


def _arg_mutated_ref():
    inf2 = INF8.copy()
    inf2[2] = 30.0
    return (fd_checked(Reservoir(40.0, INF8.copy()).shortage, (0.3,))[0],
            fd_checked(Reservoir(40.0, inf2).shortage, (0.3,))[0])


add(pair("r17f_reservoir_array_mutated_between_calls", _arg_mutated_between_calls, _arg_mutated_ref, tol=1e-7))


def two_box_T(lam, gamma, forcing):
    T, Td = 0.0, 0.0
    for F in forcing:
        T, Td = T + (F - lam * T - gamma * (T - Td)) / 8.0, Td + gamma * (T - Td) / 100.0
    return T


FRC = np.linspace(0.0, 4.0, 60)


def _forcing_mutated():
    f = FRC.copy()
    g = revsrc.grad(two_box_T, argnums=(0, 1))
    a = g(1.2, 0.7, f)
    f *= 0.5
    b = g(1.2, 0.7, f)
    return (a, b)


add(pair("r17f_forcing_array_mutated_between_calls", _forcing_mutated,
         lambda: (tuple(fd_checked(two_box_T, (1.2, 0.7, FRC), argnums=(0, 1))),
                  tuple(fd_checked(two_box_T, (1.2, 0.7, FRC * 0.5), argnums=(0, 1)))), tol=1e-7))
add(pair("r17f_two_box_backend_jax", lambda: revsrc.grad(two_box_T, argnums=(0, 1), backend="jax")(1.2, 0.7, FRC),
         lambda: tuple(ag()[0].grad(agify(two_box_T), (0, 1))(1.2, 0.7, FRC)), tol=1e-10))
add(pair("r17f_two_box_hessian_argnums_pair", lambda: revsrc.hessian(two_box_T, argnums=(0, 1))(1.2, 0.7, FRC),
         lambda: (lambda Hh: ((Hh[0, 0], Hh[0, 1]), (Hh[1, 0], Hh[1, 1])))(
             fd_hess_checked(lambda v: two_box_T(v[0], v[1], FRC), (np.array([1.2, 0.7]),))[0]), tol=1e-5))


def make_spectral_loss(target):
    C = np.cos(2 * math.pi * np.outer(np.arange(5), np.arange(16)) / 16)
    S = np.sin(2 * math.pi * np.outer(np.arange(5), np.arange(16)) / 16)
    tm = np.hypot(C @ target, S @ target)

    def loss(y):
        m = np.sqrt((C @ y) ** 2 + (S @ y) ** 2 + 1e-9)
        return np.sum((m - tm) ** 2)
    return loss


SIG16 = np.sin(np.arange(16) * 0.7)


def _closures():
    l1 = make_spectral_loss(SIG16)
    l2 = make_spectral_loss(SIG16 * 2.0)
    y = np.cos(np.arange(16) * 0.3)
    return (revsrc.grad(l1)(y), revsrc.grad(l2)(y))


def _closures_ref():
    y = np.cos(np.arange(16) * 0.3)
    return (fd_checked(make_spectral_loss(SIG16), (y,))[0], fd_checked(make_spectral_loss(SIG16 * 2.0), (y,))[0])


add(pair("r17f_closure_factory_two_targets", _closures, _closures_ref, tol=1e-7))


def film_R(d, n_layers, lam):
    M = np.eye(2, dtype=complex)
    for n_j, d_j in zip(n_layers, d):
        delta = 2.0 * math.pi * n_j * d_j / lam
        M = M @ np.array([[math.cos(delta), 1j * math.sin(delta) / n_j], [1j * n_j * math.sin(delta), math.cos(delta)]])
    B = M[0, 0] + M[0, 1] * 1.52
    C = M[1, 0] + M[1, 1] * 1.52
    r = (B - C) / (B + C)
    return abs(r) ** 2


DF = np.array([99.6, 65.5])
add(pair("r17f_partial_film_keywords", lambda: revsrc.grad(functools.partial(film_R, n_layers=(1.38, 2.1), lam=550.0))(DF),
         lambda: fd_checked(lambda d: film_R(d, (1.38, 2.1), 550.0), (DF,))[0], tol=1e-8))
add(pair("r17f_film_backend_jax_complex", lambda: revsrc.grad(film_R, backend="jax")(DF, (1.38, 2.1), 550.0),
         lambda: fd_checked(lambda d: film_R(d, (1.38, 2.1), 550.0), (DF,))[0], tol=1e-8))


def biquad_out(x, b0=0.2, a1=-0.9):
    y = np.zeros_like(x)
    prev = 0.0
    for n in range(x.shape[0]):
        prev = b0 * x[n] - a1 * prev
        y[n] = prev
    return y


X10 = np.sin(np.arange(10.0))
CT = np.cos(np.arange(10.0))
add(pair("r17f_biquad_vjp_input", lambda: revsrc.vjp(biquad_out, X10)[1](CT)[0],
         lambda: fdj(biquad_out, X10).T @ CT, tol=1e-7))
add(pair("r17f_biquad_backend_jax_grad_coef", lambda: revsrc.grad(lambda b: np.sum(biquad_out(X10, b) ** 2), backend="jax")(0.2),
         lambda: fd_checked(lambda b: np.sum(biquad_out(X10, b) ** 2), (0.2,))[0], tol=1e-7))


def ground_level(v):
    n = v.shape[0]
    Hm = np.diag(v) - (np.eye(n, k=1) + np.eye(n, k=-1))
    return np.linalg.eigvalsh(Hm)


add(pair("r17f_spectrum_jacrev_eigvalsh", lambda: revsrc.jacrev(ground_level)(np.array([0.3, -0.1, 0.5, 0.0])),
         lambda: fdj(ground_level, np.array([0.3, -0.1, 0.5, 0.0])), tol=1e-7))


# ---- edge values
def lj_energy(X):
    n = X.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((X[i] - X[j]) ** 2)
            e += 4.0 * (r2 ** -6 - r2 ** -3)
    return e


add(pair("r17f_lj_empty_particles", lambda: revsrc.value_and_grad(lj_energy)(np.zeros((0, 3))),
         lambda: (0.0, np.zeros((0, 3))), tol=0.0))
add(pair("r17f_lj_single_particle", lambda: revsrc.grad(lj_energy)(np.ones((1, 3))), lambda: np.zeros((1, 3)), tol=0.0))
add(pair("r17f_morse_zero_d_array", lambda: revsrc.grad(morse)(np.array(0.9)), lambda: morse_d1(0.9), tol=1e-12))
add(pair("r17f_morse_int_refused", lambda: revsrc.grad(morse)(1), lambda: None))
add(pair("r17f_morse_float32_scalar", lambda: revsrc.grad(morse)(np.float32(0.9)),
         lambda: np.float32(morse_d1(0.9)), tol=1e-6))
add(pair("r17f_morse_nan", lambda: revsrc.grad(morse)(float("nan")), lambda: float("nan"), tol=0.0))
add(pair("r17f_morse_inf", lambda: revsrc.grad(morse)(math.inf), lambda: 0.0, tol=0.0))


def fp32_two_box(lam, forcing):
    T = np.float32(0.0)
    for F in forcing:
        T = T + (F - lam * T) / np.float32(8.0)
    return T


F32 = np.linspace(0.0, 4.0, 30).astype(np.float32)
add(pair("r17f_float32_forcing_dtype_of_grad", lambda: np.asarray(revsrc.grad(fp32_two_box)(np.float32(1.2), F32)).dtype.name,
         lambda: np.asarray(fp32_two_box(np.float32(1.2), F32)).dtype.name, tol=0.0) if False else
    pair("r17f_float32_forcing_grad", lambda: revsrc.grad(fp32_two_box)(np.float32(1.2), F32),
         lambda: fd_checked(lambda l: float(fp32_two_box(l, F32.astype(float))), (1.2,))[0], tol=1e-4))

# ---- misuse
add(pair("r17f_grad_of_vector_spectrum_refused", lambda: revsrc.grad(ground_level)(np.array([0.3, -0.1, 0.5])), lambda: None))
add(pair("r17f_argnums_past_params_refused", lambda: revsrc.grad(two_box_T, argnums=3)(1.2, 0.7, FRC), lambda: None))
add(pair("r17f_hvp_wrong_tangent_shape", lambda: revsrc.hvp(lj_trimer, (XT,), (np.ones(5),)), lambda: None))
add(pair("r17f_vmap_mismatched_station_sizes",
         lambda: revsrc.vmap(revsrc.grad(station_loss), in_axes=(None, 0, 0))(TH3, HS, QS[:4]), lambda: None))
add(pair("r17f_reservoir_max_backend_jax", lambda: revsrc.grad(Reservoir(40.0, INF8).shortage, backend="jax")(0.3),
         lambda: fd_checked(Reservoir(40.0, INF8).shortage, (0.3,))[0], tol=1e-7))


# ---- batched control flow: vmap of scalar programs whose loops stop at different steps
def sir_final(beta, gamma=0.1, N_=1000.0, dt=0.1):
    S, I, R = N_ - 1.0, 1.0, 0.0
    steps = 0
    while I >= 1.0 and steps < 4000:
        inf = beta * S * I / N_ * dt
        rec = gamma * I * dt
        S, I, R = S - inf, I + inf - rec, R + rec
        steps += 1
    return R / N_


BETAS = np.array([0.12, 0.2, 0.35, 0.6])
add(pair("r17f_vmap_grad_while_different_trip_counts", lambda: revsrc.vmap(revsrc.grad(sir_final))(BETAS),
         lambda: np.array([fd_checked(sir_final, (b,))[0] for b in BETAS]), tol=1e-6))
add(pair("r17f_vmap_value_while_different_trip_counts", lambda: revsrc.vmap(sir_final)(BETAS),
         lambda: np.array([sir_final(b) for b in BETAS]), tol=0.0))


def harvest(h, r=0.8, K=100.0, x0=60.0, years=40):
    x = x0
    total = 0.0
    for y in range(years):
        catch = h * x
        x = x + r * x * (1.0 - x / K) - catch
        if x <= 0.0:
            return total
        total += catch * 0.97 ** y
    return total


HS_ = np.array([0.1, 0.3, 1.2, 1.9, 2.5])
add(pair("r17f_vmap_grad_early_return_mixed", lambda: revsrc.vmap(revsrc.grad(harvest))(HS_),
         lambda: np.array([fd_checked(harvest, (h,))[0] for h in HS_]), tol=1e-6))
add(pair("r17f_vmap_value_early_return_mixed", lambda: revsrc.vmap(harvest)(HS_),
         lambda: np.array([harvest(h) for h in HS_]), tol=0.0))
add(pair("r17f_jit_grad_early_return_mixed", lambda: [revsrc.jit(revsrc.grad(harvest))(h) for h in HS_],
         lambda: [fd_checked(harvest, (h,))[0] for h in HS_], tol=1e-6))


def snell(theta0, n0=1.5, n1=1.3, n2=1.0):
    s = math.sin(theta0) * n0
    path = 0.0
    for n in (n1, n2):
        st = s / n
        if st >= 1.0:
            return path + 10.0 * math.cos(theta0)
        path += 1.0 / math.sqrt(1.0 - st * st)
    return path


ANGS = np.array([0.1, 0.5, 0.7, 0.9, 1.2])
add(pair("r17f_vmap_grad_snell_tir_branches", lambda: revsrc.vmap(revsrc.grad(snell))(ANGS),
         lambda: np.array([fd_checked(snell, (a,))[0] for a in ANGS]), tol=1e-6))
add(pair("r17f_vmap_grad_snell_in_axes_none_index", lambda: revsrc.vmap(revsrc.grad(snell), in_axes=(0, None, 0))(ANGS, 1.5, np.array([1.4, 1.3, 1.2, 1.1, 1.0])),
         lambda: np.array([fd_checked(snell, (a, 1.5, n))[0] for a, n in zip(ANGS, (1.4, 1.3, 1.2, 1.1, 1.0))]), tol=1e-6))
add(pair("r17f_vmap_morse_float32", lambda: revsrc.vmap(revsrc.grad(morse))(np.array([0.6, 0.9, 1.4], dtype=np.float32)),
         lambda: np.array([morse_d1(float(np.float32(r))) for r in (0.6, 0.9, 1.4)]), tol=1e-5))


COEFS = [1.0, -0.5, 0.25]


def poly_pot(x):
    return sum(c * x ** (2 * i) for i, c in enumerate(COEFS))


def _coefs_mutated_jit():
    g = revsrc.jit(revsrc.grad(poly_pot))
    a = g(1.3)
    COEFS.append(0.1)
    try:
        b = g(1.3)
    finally:
        COEFS.pop()
    COEFS[1] = -0.7
    try:
        c = g(1.3)
    finally:
        COEFS[1] = -0.5
    return (a, b, c)


def _coefs_ref():
    def d(cs, x):
        return sum(c * 2 * i * x ** (2 * i - 1) for i, c in enumerate(cs))
    return (d([1.0, -0.5, 0.25], 1.3), d([1.0, -0.5, 0.25, 0.1], 1.3), d([1.0, -0.7, 0.25], 1.3))


add(pair("r17f_jit_grad_global_list_mutated", _coefs_mutated_jit, _coefs_ref, tol=1e-12))


def _coefs_mutated_grad():
    g = revsrc.grad(poly_pot)
    a = g(1.3)
    COEFS.append(0.1)
    try:
        b = g(1.3)
    finally:
        COEFS.pop()
    return (a, b)


add(pair("r17f_grad_global_list_appended", _coefs_mutated_grad, lambda: _coefs_ref()[:2], tol=1e-12))


def mapped_inside(xs, w):
    # per-site energies from a mapped scalar potential, called inside a differentiated function
    e = revsrc.vmap(morse)(xs * w)
    return np.sum(e * np.arange(1.0, xs.shape[0] + 1))


XS4 = np.array([0.6, 0.8, 1.1, 1.6])
add(pair("r17f_grad_of_function_calling_vmap", lambda: revsrc.grad(mapped_inside, argnums=(0, 1))(XS4, 1.1),
         lambda: tuple(fd_checked(mapped_inside, (XS4, 1.1), argnums=(0, 1))), tol=1e-7))


def where_energy(x):
    # a piecewise potential via np.where, both branches finite everywhere
    inner = 0.5 * 50.0 * (x - 1.0) ** 2
    outer = -0.2 * np.exp(-(x - 1.5) ** 2)
    return np.sum(np.where(x < 1.2, inner, outer))


XW = np.array([0.9, 1.1, 1.3, 1.7])
add(H("r17f_np_where_piecewise_hessian", where_energy, (XW,), ref="ag", tol=1e-8))
add(pair("r17f_np_where_piecewise_jvp_backend_jax", lambda: revsrc.grad(where_energy, backend="jax")(XW),
         lambda: ag()[0].grad(agify(where_energy))(XW), tol=1e-10))


# ---- state between calls: global arrays and attributes changed in place, partials, closures
SITE_W = np.array([1.0, 2.0, 3.0])


def weighted_morse(x):
    return sum(w * morse(r) for w, r in zip(SITE_W, x))


def _global_array_in_place():
    g = revsrc.grad(weighted_morse)
    x = np.array([0.7, 0.9, 1.2])
    a = g(x)
    SITE_W[0] = 10.0
    try:
        b = g(x)
    finally:
        SITE_W[0] = 1.0
    return (a, b)


add(pair("r17f_global_array_item_changed_between_calls", _global_array_in_place,
         lambda: (np.array([1.0, 2.0, 3.0]) * np.array([morse_d1(r) for r in (0.7, 0.9, 1.2)]),
                  np.array([10.0, 2.0, 3.0]) * np.array([morse_d1(r) for r in (0.7, 0.9, 1.2)])), tol=1e-12))


def _global_array_backend_jax():
    g = revsrc.grad(weighted_morse, backend="jax")
    x = np.array([0.7, 0.9, 1.2])
    a = g(x)
    SITE_W[0] = 10.0
    try:
        b = g(x)
    finally:
        SITE_W[0] = 1.0
    return (a, b)


add(pair("r17f_global_array_item_changed_backend_jax", _global_array_backend_jax,
         lambda: (np.array([1.0, 2.0, 3.0]) * np.array([morse_d1(r) for r in (0.7, 0.9, 1.2)]),
                  np.array([10.0, 2.0, 3.0]) * np.array([morse_d1(r) for r in (0.7, 0.9, 1.2)])), tol=1e-12))


class Detector:
    # a camera-like sensor whose gain array is recalibrated in place between fits
    def __init__(self, gain):
        self.gain = gain

    def nll(self, flux, counts):
        lam = self.gain * flux
        return np.sum(lam - counts * np.log(lam))


def _detector_gain_in_place(backend=None):
    det = Detector(np.array([1.0, 1.1, 0.9]))
    g = revsrc.grad(det.nll, backend=backend)
    f, c = np.array([5.0, 6.0, 7.0]), np.array([4.0, 8.0, 6.0])
    a = g(f, c)
    det.gain[1] = 2.0
    b = g(f, c)
    return (a, b)


def _detector_ref():
    f, c = np.array([5.0, 6.0, 7.0]), np.array([4.0, 8.0, 6.0])
    out = []
    for gain in (np.array([1.0, 1.1, 0.9]), np.array([1.0, 2.0, 0.9])):
        out.append(gain - c / f)
    return tuple(out)


add(pair("r17f_attribute_array_in_place_between_calls", _detector_gain_in_place, _detector_ref, tol=1e-12))
add(pair("r17f_attribute_array_in_place_backend_jax", lambda: _detector_gain_in_place("jax"), _detector_ref, tol=1e-12))


def _partial_kw_array_mutated():
    gain = np.array([1.0, 1.1, 0.9])
    nll = functools.partial(Detector.nll, Detector(gain))
    g = revsrc.grad(nll)
    f, c = np.array([5.0, 6.0, 7.0]), np.array([4.0, 8.0, 6.0])
    a = g(f, c)
    gain[1] = 2.0
    return (a, g(f, c))


add(pair("r17f_partial_unbound_method_object_mutated", _partial_kw_array_mutated, _detector_ref, tol=1e-12))


def make_counter_loss(scale):
    state = {"scale": scale}

    def loss(x):
        return state["scale"] * np.sum(x ** 2)
    return loss, state


def _closure_state_mutated():
    loss, st = make_counter_loss(1.0)
    g = revsrc.grad(loss)
    a = g(np.array([1.0, 2.0]))
    st["scale"] = 3.0
    return (a, g(np.array([1.0, 2.0])))


add(pair("r17f_closure_dict_mutated_between_calls", _closure_state_mutated,
         lambda: (np.array([2.0, 4.0]), np.array([6.0, 12.0])), tol=0.0))


def _jit_default_list_mutated():
    def pot(x, c=[1.0, 0.5]):
        return c[0] * x * x + c[1] * x ** 4
    j = revsrc.jit(revsrc.grad(pot))
    a = j(1.5)
    pot.__defaults__[0][1] = 2.0
    return (a, j(1.5))


add(pair("r17f_jit_default_list_item_mutated", _jit_default_list_mutated,
         lambda: (2 * 1.5 + 4 * 0.5 * 1.5 ** 3, 2 * 1.5 + 4 * 2.0 * 1.5 ** 3), tol=1e-12))


# ---- holomorphic compositions: resolvent traces and partition-function-like sums
HM3 = np.array([[1.0, 0.2 - 0.1j, 0.0], [0.2 + 0.1j, -0.5, 0.3j], [0.0, -0.3j, 0.7]])
ZC = np.array([0.3 + 0.4j, -0.2 + 0.1j, 0.5 - 0.6j])


def resolvent_trace(z):
    return np.trace(np.linalg.inv(HM3 + np.diag(z)))


def log_partition(z):
    return np.log(np.sum(np.exp(z)))


def _jax_hol(f, how):
    j = jax()
    jf = jaxify(f)
    if how == "hessian":
        return j.hessian(jf, holomorphic=True)
    return j.jacrev(j.grad(jf, holomorphic=True), holomorphic=True)


add(pair("r17f_resolvent_trace_hessian_holomorphic", lambda: revsrc.hessian(resolvent_trace, holomorphic=True)(ZC),
         lambda: _jax_hol(resolvent_trace, "hessian")(ZC), tol=1e-9))
add(pair("r17f_resolvent_trace_jacrev_grad_holomorphic",
         lambda: revsrc.jacrev(revsrc.grad(resolvent_trace, holomorphic=True), holomorphic=True)(ZC),
         lambda: _jax_hol(resolvent_trace, "jacrev")(ZC), tol=1e-9))
add(pair("r17f_log_partition_hessian_holomorphic", lambda: revsrc.hessian(log_partition, holomorphic=True)(ZC),
         lambda: _jax_hol(log_partition, "hessian")(ZC), tol=1e-9))
add(pair("r17f_log_partition_jacfwd_grad_holomorphic", lambda: revsrc.jacfwd(revsrc.grad(log_partition, holomorphic=True))(ZC),
         lambda: _jax_hol(log_partition, "hessian")(ZC), tol=1e-9))


def real_loss_complex_arg(z):
    # a real loss of a complex field (JAX's convention for the gradient)
    return np.real(np.conj(z) @ (HM3 @ z)) / np.real(np.conj(z) @ z)


add(pair("r17f_grad_wrt_complex_field", lambda: revsrc.grad(real_loss_complex_arg)(ZC),
         lambda: jax().grad(jaxify(real_loss_complex_arg))(ZC), tol=1e-10))


# ---- same digits: backend="engine" vs backend="python", jit(grad) vs grad
add(EXACT("r17f_sir_final_engine_equals_python", lambda: revsrc.value_and_grad(sir_final, backend="engine")(0.35),
          lambda: revsrc.value_and_grad(sir_final, backend="python")(0.35)))
add(EXACT("r17f_harvest_collapse_engine_equals_python", lambda: revsrc.value_and_grad(harvest, backend="engine")(1.9),
          lambda: revsrc.value_and_grad(harvest, backend="python")(1.9)))
add(EXACT("r17f_snell_tir_jit_grad_equals_grad", lambda: revsrc.jit(revsrc.grad(snell))(0.9), lambda: revsrc.grad(snell)(0.9)))
add(EXACT("r17f_sir_final_value_equals_plain", lambda: revsrc.value_and_grad(sir_final)(0.2)[0], lambda: sir_final(0.2)))
add(EXACT("r17f_vmap_harvest_equals_loop_bits", lambda: revsrc.vmap(revsrc.grad(harvest))(HS_),
          lambda: np.array([revsrc.grad(harvest)(h) for h in HS_])))
add(pair("r17f_grad_of_function_calling_vmap_backend_jax",
         lambda: revsrc.grad(mapped_inside, argnums=(0, 1), backend="jax")(XS4, 1.1),
         lambda: tuple(fd_checked(mapped_inside, (XS4, 1.1), argnums=(0, 1))), tol=1e-7))


# ---- transformations of a mapped function itself
RS2 = np.array([0.7, 1.0, 1.6])
add(pair("r17f_jacrev_of_vmap_morse", lambda: revsrc.jacrev(revsrc.vmap(morse))(RS2), lambda: np.diag([morse_d1(r) for r in RS2]), tol=1e-12))
add(pair("r17f_jvp_of_vmap_morse", lambda: revsrc.jvp(revsrc.vmap(morse), (RS2,), (np.ones(3),)),
         lambda: (np.array([morse(r) for r in RS2]), np.array([morse_d1(r) for r in RS2])), tol=1e-12))
add(pair("r17f_grad_of_sum_of_vmap_morse", lambda: revsrc.grad(lambda x: np.sum(revsrc.vmap(morse)(x)))(RS2),
         lambda: np.array([morse_d1(r) for r in RS2]), tol=1e-12))
add(pair("r17f_vmap_of_hessian_pair_energy", lambda: revsrc.vmap(revsrc.hessian(lj_trimer))(np.stack([XT, XT * 1.05])),
         lambda: np.array([ag()[0].hessian(agify(lj_trimer))(x) for x in (XT, XT * 1.05)]), tol=1e-8))


# ---- vmap over int arguments: per-site gradients chosen by an index array
WS4 = np.array([0.5, -1.0, 2.0, 0.3])


def ring_site_energy(w, i):
    return w[i] ** 2 * w[(i + 1) % 4]


def _ring_site_ref(i):
    g = np.zeros(4)
    g[i] = 2 * WS4[i] * WS4[(i + 1) % 4]
    g[(i + 1) % 4] += WS4[i] ** 2
    return g


def partial_chain(w, k):
    s = 0.0
    for j in range(k):
        s += w[j] ** 2
    return s


add(pair("r17f_vmap_grad_int_index_array", lambda: revsrc.vmap(revsrc.grad(ring_site_energy), in_axes=(None, 0))(WS4, np.array([0, 1, 3, 3])),
         lambda: np.array([_ring_site_ref(i) for i in (0, 1, 3, 3)]), tol=1e-12))
add(pair("r17f_vmap_grad_int_trip_count", lambda: revsrc.vmap(revsrc.grad(partial_chain), in_axes=(None, 0))(WS4, np.array([1, 3, 4])),
         lambda: np.array([np.where(np.arange(4) < k, 2 * WS4, 0.0) for k in (1, 3, 4)]), tol=1e-12))
