"""Round 19, part b: pharmacometrics and biology -- one- and two-compartment PK models
integrated by RK4 loops with dosing events, Michaelis-Menten elimination, Hill / Emax
PD models, indirect response, population (mixed-effects) likelihoods by Laplace-like
sums over subjects, enzyme kinetics fits, and logistic growth with harvesting."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

DOSE_TIMES = (0.0, 12.0, 24.0)
DOSE = 100.0
T_OBS = np.array([1.0, 4.0, 8.0, 13.0, 20.0, 26.0, 36.0])
C_OBS = np.array([4.1, 3.3, 2.2, 5.0, 2.7, 5.3, 2.3])


# ---------------------------------------------------------------- one compartment, closed form
def one_cpt_conc(theta, t):
    # first-order absorption, superposition over doses (closed form)
    ka, ke, V = np.exp(theta)
    c = 0.0
    for td in DOSE_TIMES:
        dt = t - td
        on = dt > 0
        dtp = np.where(on, dt, 0.0)
        c = c + np.where(on, DOSE * ka / (V * (ka - ke)) * (np.exp(-ke * dtp) - np.exp(-ka * dtp)), 0.0)
    return c


def one_cpt_nll(theta, sigma=0.3):
    pred = one_cpt_conc(theta, T_OBS)
    r = np.log(C_OBS) - np.log(pred)
    return 0.5 * np.sum(r ** 2) / sigma ** 2


TH1 = np.log(np.array([1.2, 0.08, 25.0]))
add(VG("r19b_one_cpt_superposition_vg", one_cpt_nll, (TH1,), ref="jax", tol=1e-8))
add(H("r19b_one_cpt_superposition_hessian", one_cpt_nll, (TH1,), ref="fd", tol=1e-5))


# ---------------------------------------------------------------- two compartment by RK4 with doses
def two_cpt_rhs(y, p):
    gut, c1, c2 = y[0], y[1], y[2]
    ka, cl, q, v1, v2 = p
    dg = -ka * gut
    d1 = ka * gut / v1 - cl / v1 * c1 - q / v1 * (c1 - c2)
    d2 = q / v2 * (c1 - c2)
    return np.array([dg, d1, d2])


def rk4_step(f, y, h, p):
    k1 = f(y, p)
    k2 = f(y + 0.5 * h * k1, p)
    k3 = f(y + 0.5 * h * k2, p)
    k4 = f(y + h * k3, p)
    return y + h / 6.0 * (k1 + 2 * k2 + 2 * k3 + k4)


def two_cpt_sim(logp, h=0.25, t_end=36.0):
    p = np.exp(logp)
    y = np.zeros(3)
    t = 0.0
    conc = []
    obs_i = 0
    nsteps = int(round(t_end / h))
    for k in range(nsteps + 1):
        t = k * h
        if any(abs(t - td) < 1e-9 for td in DOSE_TIMES):
            y[0] += DOSE
        while obs_i < len(T_OBS) and abs(T_OBS[obs_i] - t) < 1e-9:
            conc.append(y[1])
            obs_i += 1
        y = rk4_step(two_cpt_rhs, y, h, p)
    return np.array(conc)


def two_cpt_loss(logp):
    c = two_cpt_sim(logp)
    return np.sum((c - C_OBS) ** 2)


def two_cpt_sim_rebind(logp, h=0.25, t_end=36.0):
    # the same with the dose added by rebinding y rather than y[0] += DOSE
    p = np.exp(logp)
    y = np.zeros(3)
    conc = []
    obs_i = 0
    for k in range(int(round(t_end / h)) + 1):
        t = k * h
        if any(abs(t - td) < 1e-9 for td in DOSE_TIMES):
            y = y + np.array([DOSE, 0.0, 0.0])
        while obs_i < len(T_OBS) and abs(T_OBS[obs_i] - t) < 1e-9:
            conc.append(y[1])
            obs_i += 1
        y = rk4_step(two_cpt_rhs, y, h, p)
    return np.sum((np.array(conc) - C_OBS) ** 2)


LP2 = np.log(np.array([1.0, 2.0, 1.5, 20.0, 40.0]))
add(G("r19b_two_cpt_rk4_dosing_events", two_cpt_loss, (LP2,), ref="fd", tol=1e-6))
add(G("r19b_two_cpt_rk4_dose_by_rebinding", two_cpt_sim_rebind, (LP2,), ref="fd", tol=1e-6))
add(pair("r19b_two_cpt_rk4_jacfwd_conc", lambda: revsrc.jacfwd(two_cpt_sim)(LP2),
         lambda: fdj(two_cpt_sim, LP2), tol=1e-5))


# ---------------------------------------------------------------- Michaelis-Menten elimination
def mm_conc_final(params, c0=50.0, dt=0.05, n=200):
    vmax, km = params[0], params[1]
    c = c0
    for _ in range(n):
        # Heun's method
        f0 = -vmax * c / (km + c)
        cp = c + dt * f0
        f1 = -vmax * cp / (km + cp)
        c = c + 0.5 * dt * (f0 + f1)
    return c


add(G("r19b_mm_elimination_heun", mm_conc_final, (np.array([8.0, 12.0]),), ref="ag", tol=1e-9))
add(H("r19b_mm_elimination_heun_hessian", mm_conc_final, (np.array([8.0, 12.0]),), ref="ag", tol=1e-7))


def mm_time_to_threshold(vmax, km=12.0, c0=50.0, thr=5.0, dt=0.01):
    # integrate until below the threshold; return the interpolated crossing time
    c, t = c0, 0.0
    while c > thr:
        c_prev = c
        c = c - dt * vmax * c / (km + c)
        t += dt
    frac = (c_prev - thr) / (c_prev - c)
    return t - dt + frac * dt


def _mm_t_closed(vmax, km=12.0, c0=50.0, thr=5.0):
    # exact solution time: (km ln(c0/thr) + c0 - thr) / vmax; derivative -(.)/vmax^2
    return -(km * math.log(c0 / thr) + c0 - thr) / vmax ** 2


add(G("r19b_mm_time_to_threshold_while", mm_time_to_threshold, (8.0,), ref="fd", tol=1e-6, h=1e-6))
add(pair("r19b_mm_time_to_threshold_near_closed", lambda: revsrc.grad(mm_time_to_threshold)(8.0),
         lambda: _mm_t_closed(8.0), tol=2e-2))


# ---------------------------------------------------------------- Hill / Emax PD
CONC = np.array([0.0, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0])
EFF = np.array([2.0, 11.0, 25.0, 47.0, 70.0, 84.0, 90.0])


def hill(c, e0, emax, ec50, n):
    cn = c ** n
    return e0 + emax * cn / (ec50 ** n + cn)


def emax_loss(p):
    e0, emax, ec50, n = p
    pred = hill(CONC, e0, emax, ec50, n)
    return np.mean((pred - EFF) ** 2)


PE = np.array([1.5, 92.0, 2.4, 1.3])
add(G("r19b_hill_emax_zero_conc", emax_loss, (PE,), ref="fd", tol=1e-6))
add(H("r19b_hill_emax_hessian", emax_loss, (PE,), ref="fd", tol=1e-4))


def hill_conc_int_exponent(p, n=2):
    # integer Hill coefficient, passed as an int argument
    return emax_loss(np.array([p[0], p[1], p[2], float(n)]))


add(G("r19b_hill_int_exponent_arg", hill_conc_int_exponent, (PE[:3], 3), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- indirect response model
class IndirectResponse:
    """Turnover model dR/dt = kin (1 - Imax C/(IC50 + C)) - kout R driven by a PK curve."""

    def __init__(self, kin, kout):
        self.kin = kin
        self.kout = kout

    @property
    def baseline(self):
        return self.kin / self.kout

    def rate(self, R, C, imax, ic50):
        return self.kin * (1.0 - imax * C / (ic50 + C)) - self.kout * R


def pk_curve(t, ke=0.2):
    return 10.0 * np.exp(-ke * t)


def response_nadir(pd, model=IndirectResponse(5.0, 0.5), dt=0.1, n=150):
    imax, ic50 = pd["imax"], pd["ic50"]
    R = model.baseline
    Rmin = R
    for k in range(n):
        C = pk_curve(k * dt)
        R = R + dt * model.rate(R, C, imax, ic50)
        Rmin = min(Rmin, R)
    return Rmin


def response_nadir_bound(pd):
    # the model built inside the function (its methods are inlined)
    return response_nadir(pd, IndirectResponse(5.0, 0.5))


add(G("r19b_indirect_response_built_inside", response_nadir_bound, ({"imax": 0.8, "ic50": 2.0},), ref="fd", tol=1e-6))
add(G("r19b_indirect_response_nadir_min", response_nadir, ({"imax": 0.8, "ic50": 2.0},), ref="fd", tol=1e-6))


# ---------------------------------------------------------------- population likelihood
rng_ = np.random.default_rng(3)
N_SUBJ = 6
WT = rng_.uniform(50, 90, N_SUBJ)
ETA_TRUE = rng_.normal(0, 0.2, N_SUBJ)
T_POP = np.array([0.5, 1.0, 2.0, 4.0, 8.0])
Y_POP = np.array([[10.0 * 70 / w * math.exp(-0.15 * math.exp(e) * t) for t in T_POP]
                  for w, e in zip(WT, ETA_TRUE)]) * (1 + 0.05 * rng_.normal(size=(N_SUBJ, 5)))


def subject_nll(eta, theta, y, wt):
    cl = math.exp(theta[0] + eta)
    v = math.exp(theta[1]) * wt / 70.0
    pred = 100.0 / v * np.exp(-cl / v * T_POP)
    return 0.5 * np.sum((np.log(y) - np.log(pred)) ** 2) / 0.05 ** 2


def eta_mode(theta, y, wt, omega2):
    # Newton on eta for each subject (scalar), finite-difference curvature-free:
    # use the analytic gradient of the quadratic-in-log objective by a few Newton steps
    eta = 0.0
    for _ in range(20):
        h = 1e-4
        g = (subject_nll(eta + h, theta, y, wt) - subject_nll(eta - h, theta, y, wt)) / (2 * h) + eta / omega2
        c = (subject_nll(eta + h, theta, y, wt) - 2 * subject_nll(eta, theta, y, wt)
             + subject_nll(eta - h, theta, y, wt)) / h ** 2 + 1.0 / omega2
        eta = eta - g / c
    return eta


def pop_nll_fixed_eta(theta, etas, omega2=0.04):
    # joint negative log-density at given random effects (what FOCE differentiates)
    total = 0.0
    for i, (y, wt) in enumerate(zip(Y_POP, WT)):
        total += subject_nll(etas[i], theta, y, wt) + 0.5 * etas[i] ** 2 / omega2
    return total + 0.5 * N_SUBJ * math.log(omega2)


THP = np.array([math.log(0.15 * 70 / 70), math.log(10.0)])
ETAS = np.array([0.1, -0.2, 0.05, 0.3, -0.1, 0.0])
add(G("r19b_pop_joint_nll_wrt_theta", pop_nll_fixed_eta, (THP, ETAS), ref="fd", tol=1e-6))
add(G("r19b_pop_joint_nll_wrt_etas", pop_nll_fixed_eta, (THP, ETAS), argnums=1, ref="fd", tol=1e-6))
add(G("r19b_pop_joint_nll_wrt_omega", pop_nll_fixed_eta, (THP, ETAS, 0.04), argnums=2, ref="fd", tol=1e-6, h=1e-7))
add(pair("r19b_pop_vmap_subject_grads",
         lambda: revsrc.vmap(revsrc.grad(subject_nll), in_axes=(0, None, 0, 0))(ETAS, THP, Y_POP, WT),
         lambda: np.array([fd_checked(subject_nll, (e, THP, y, w))[0] for e, y, w in zip(ETAS, Y_POP, WT)]), tol=1e-6))


def laplace_marginal(theta, omega2=0.04):
    # Laplace approximation with the mode found inside by Newton (finite differences in eta)
    total = 0.0
    for y, wt in zip(Y_POP, WT):
        e = eta_mode(theta, y, wt, omega2)
        total += subject_nll(e, theta, y, wt) + 0.5 * e * e / omega2
    return total


add(G("r19b_laplace_inner_newton_fd_curvature", laplace_marginal, (THP,), ref="fd", tol=1e-5, h=1e-5))


# ---------------------------------------------------------------- enzyme kinetics, competitive inhibition
S_CONC = np.array([0.5, 1.0, 2.0, 4.0, 8.0, 16.0])
I_CONC = np.array([0.0, 1.0, 3.0])
RATES = np.array([[1.6, 2.6, 3.8, 4.9, 5.6, 6.0],
                  [1.0, 1.8, 2.9, 4.0, 5.0, 5.6],
                  [0.6, 1.1, 1.9, 3.0, 4.0, 4.9]])


def inhibition_loss(logp):
    vmax, km, ki = np.exp(logp)
    Kapp = km * (1.0 + I_CONC[:, None] / ki)
    v = vmax * S_CONC[None, :] / (Kapp + S_CONC[None, :])
    return np.sum((v - RATES) ** 2)


LPI = np.log(np.array([6.5, 2.0, 1.5]))
add(G("r19b_competitive_inhibition_broadcast", inhibition_loss, (LPI,), ref="jax", tol=1e-9))
add(pair("r19b_competitive_inhibition_jit_grad", lambda: revsrc.jit(revsrc.grad(inhibition_loss))(LPI),
         lambda: jax().grad(jaxify(inhibition_loss))(LPI), tol=1e-9))


# ---------------------------------------------------------------- logistic growth, harvesting, extinction
def harvested_stock(h_rate, r=0.6, K=100.0, x0=60.0, years=30):
    x = x0
    for year in range(years):
        x = x + r * x * (1 - x / K) - h_rate * x
        if x < 1.0:
            return 0.0      # collapse: early return inside the loop
    return x


add(G("r19b_harvest_early_return_survives", harvested_stock, (0.2,), ref="ag", tol=1e-9))
add(G("r19b_harvest_early_return_collapses", harvested_stock, (0.95,), ref=lambda: 0.0, tol=0.0))


def sir_final_size(beta, gamma=0.2, N=1000.0, i0=1.0, dt=0.1, steps=800):
    s, i, r = N - i0, i0, 0.0
    peak = i
    for _ in range(steps):
        inf = beta * s * i / N
        rec = gamma * i
        s, i, r = s - dt * inf, i + dt * (inf - rec), r + dt * rec
        peak = max(peak, i)
    return r / N, peak


def sir_attack(beta):
    return sir_final_size(beta)[0]


def sir_peak(beta):
    return sir_final_size(beta)[1]


add(G("r19b_sir_attack_rate_tuple_helper", sir_attack, (0.5,), ref="ag", tol=1e-9))
add(G("r19b_sir_peak_max", sir_peak, (0.5,), ref="fd", tol=1e-6))
add(pair("r19b_sir_jacfwd_tuple_output", lambda: revsrc.jacfwd(sir_final_size)(0.5),
         lambda: tuple(fd_checked(f, (0.5,))[0] for f in (sir_attack, sir_peak)), tol=1e-6))


# ---------------------------------------------------------------- dose optimization with functools.partial
def auc_trapezoid(theta, t):
    c = one_cpt_conc(theta, t)
    return np.sum(0.5 * (c[1:] + c[:-1]) * np.diff(t))


T_FINE = np.linspace(0.0, 36.0, 73)
auc_fine = functools.partial(auc_trapezoid, t=T_FINE)
add(G("r19b_auc_partial_trapezoid", auc_fine, (TH1,), ref=lambda: jax().grad(lambda th: jaxify(auc_trapezoid)(th, T_FINE))(TH1), tol=1e-9))
add(pair("r19b_auc_partial_float32", lambda: revsrc.grad(auc_fine)(TH1.astype(np.float32)),
         lambda: jax().grad(lambda th: jaxify(auc_trapezoid)(th, T_FINE))(TH1), tol=1e-3))


# ---------------------------------------------------------------- more: compositions and a Bayesian PK posterior
add(pair("r19b_mm_hvp", lambda: revsrc.hvp(mm_conc_final, (np.array([8.0, 12.0]),), (np.array([1.0, -1.0]),)),
         lambda: ag()[0].hessian(agify(mm_conc_final))(np.array([8.0, 12.0])) @ np.array([1.0, -1.0]), tol=1e-7))
add(pair("r19b_emax_jacfwd_jacrev", lambda: revsrc.jacfwd(revsrc.jacrev(emax_loss))(PE),
         lambda: ag()[0].hessian(agify(emax_loss))(PE), tol=1e-8))
add(pair("r19b_one_cpt_conc_vmap_over_times", lambda: revsrc.vmap(revsrc.grad(one_cpt_conc), in_axes=(None, 0))(TH1, T_OBS),
         lambda: np.array([jax().grad(jaxify(one_cpt_conc))(TH1, t) for t in T_OBS]), tol=1e-10))


def log_posterior(theta, prior_mu=np.log(np.array([1.0, 0.1, 20.0])), prior_sd=np.array([0.5, 0.5, 0.3])):
    # lognormal priors, a Student-t likelihood on log concentrations
    pred = one_cpt_conc(theta, T_OBS)
    r = (np.log(C_OBS) - np.log(pred)) / 0.2
    nu = 4.0
    loglik = np.sum(-0.5 * (nu + 1) * np.log1p(r ** 2 / nu))
    logprior = -0.5 * np.sum(((theta - prior_mu) / prior_sd) ** 2)
    return -(loglik + logprior)


add(VG("r19b_pk_posterior_student_t_vg", log_posterior, (TH1,), ref="jax", tol=1e-9))


def laplace_evidence(theta):
    # the Laplace approximation's log-determinant term at theta, by revsrc.hessian inside
    Hm = revsrc.hessian(log_posterior)(theta)
    sign, logdet = np.linalg.slogdet(Hm)
    return log_posterior(theta) + 0.5 * logdet


add(G("r19b_laplace_evidence_hessian_inside", laplace_evidence, (TH1,), ref="fd", tol=1e-5))


def tumor_growth(params, days=30, dt=0.25):
    # Simeoni tumour growth with a drug effect on a transit chain; the state as a list
    lam0, lam1, k2 = params["lam0"], params["lam1"], params["k2"]
    x = [0.2, 0.0, 0.0]
    for step in range(int(days / dt)):
        t = step * dt
        c = 5.0 * math.exp(-0.3 * t) if t >= 5.0 else 0.0
        w = sum(x)
        growth = lam0 * x[0] / (1 + (lam0 / lam1 * w) ** 20) ** 0.05
        x = [x[0] + dt * (growth - k2 * c * x[0]),
             x[1] + dt * (k2 * c * x[0] - 0.5 * x[1]),
             x[2] + dt * (0.5 * x[1] - 0.5 * x[2])]
    return sum(x)


add(G("r19b_simeoni_tumor_list_state_dict", tumor_growth, ({"lam0": 0.12, "lam1": 0.6, "k2": 0.05},), ref="fd", tol=1e-6))
