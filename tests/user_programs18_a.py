"""Round 18, part a: finance -- Black-Scholes prices and Greeks, binomial trees with early
exercise, Monte Carlo with a fixed Generator, implied volatility by Newton inside a loss,
yield curves and portfolio risk, written with helpers, classes and pytrees."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

SQRT2 = math.sqrt(2.0)
DAYS_PER_YEAR = 365.0


def ncdf(x):
    return 0.5 * (1.0 + math.erf(x / SQRT2))


def npdf(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2.0 * math.pi)


def d1d2(S, K, T, r, sigma):
    vsqrt = sigma * math.sqrt(T)
    d1 = (math.log(S / K) + (r + 0.5 * sigma * sigma) * T) / vsqrt
    return d1, d1 - vsqrt


def bs_call(S, K, T, r, sigma):
    d1, d2 = d1d2(S, K, T, r, sigma)
    return S * ncdf(d1) - K * math.exp(-r * T) * ncdf(d2)


def bs_put(S, K, T, r, sigma):
    # put-call parity
    return bs_call(S, K, T, r, sigma) - S + K * math.exp(-r * T)


# closed-form Greeks
def delta_closed(S, K, T, r, s):
    return ncdf(d1d2(S, K, T, r, s)[0])


def gamma_closed(S, K, T, r, s):
    return npdf(d1d2(S, K, T, r, s)[0]) / (S * s * math.sqrt(T))


def vega_closed(S, K, T, r, s):
    return S * npdf(d1d2(S, K, T, r, s)[0]) * math.sqrt(T)


ARGS = (100.0, 95.0, 0.75, 0.03, 0.25)
add(pair("r18a_bs_delta_closed", lambda: revsrc.grad(bs_call)(*ARGS), lambda: delta_closed(*ARGS), tol=1e-12))
add(pair("r18a_bs_vega_closed", lambda: revsrc.grad(bs_call, argnums=4)(*ARGS), lambda: vega_closed(*ARGS), tol=1e-11))
add(pair("r18a_bs_gamma_grad_grad", lambda: revsrc.grad(revsrc.grad(bs_call))(*ARGS), lambda: gamma_closed(*ARGS), tol=1e-10))
add(pair("r18a_bs_gamma_hessian_argnums0", lambda: revsrc.hessian(bs_call)(*ARGS), lambda: gamma_closed(*ARGS), tol=1e-10))
add(pair("r18a_bs_put_delta_parity", lambda: revsrc.grad(bs_put)(*ARGS), lambda: delta_closed(*ARGS) - 1.0, tol=1e-12))
add(G("r18a_bs_all_greeks_argnums_tuple", bs_call, ARGS, argnums=(0, 1, 2, 3, 4), ref="fd", tol=1e-8))
add(H("r18a_bs_full_hessian_5x5", lambda p: bs_call(*p), (np.array(ARGS),), ref="fd", tol=1e-5))


def bs_vec(S, K, T, r, sigma):
    # vectorized over strikes, numpy erf via tanh-free approx: use math-free array code
    vs = sigma * np.sqrt(T)
    d1 = (np.log(S / K) + (r + 0.5 * sigma ** 2) * T) / vs
    d2 = d1 - vs
    N = lambda z: 0.5 * (1.0 + np.vectorize(math.erf)(z / SQRT2))  # noqa: E731
    return S * N(d1) - K * np.exp(-r * T) * N(d2)


STRIKES = np.array([80.0, 90.0, 100.0, 110.0, 120.0])


def smile_loss(sig, market):
    prices = bs_vec(100.0, STRIKES, 0.5, 0.01, sig)
    return np.sum((prices - market) ** 2)


MKT = np.array([21.5, 12.9, 6.4, 2.6, 0.9])
SIG0 = np.array([0.28, 0.25, 0.22, 0.21, 0.22])
add(VG("r18a_smile_vectorize_erf_vg", smile_loss, (SIG0, MKT), ref="fd", tol=1e-6))


class Option:
    def __init__(self, K, T, kind="call"):
        self.K, self.T, self.kind = K, T, kind

    @property
    def is_call(self):
        return self.kind == "call"

    def payoff(self, S):
        return np.maximum(S - self.K, 0.0) if self.is_call else np.maximum(self.K - S, 0.0)


class AmericanOption(Option):
    def early(self, S, cont):
        return np.maximum(self.payoff(S), cont)


def crr_price(sigma, r, opt, S0=100.0, steps=60):
    dt = opt.T / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1.0 / u
    p = (math.exp(r * dt) - d) / (u - d)
    disc = math.exp(-r * dt)
    j = np.arange(steps + 1)
    S = S0 * u ** (steps - j) * d ** j
    V = opt.payoff(S)
    for n in reversed(range(steps)):
        S = S[:n + 1] * d / d  # same nodes one step earlier up to scale
        S = S0 * u ** (n - np.arange(n + 1)) * d ** np.arange(n + 1)
        cont = disc * (p * V[:n + 1] + (1.0 - p) * V[1:n + 2])
        V = opt.early(S, cont) if isinstance(opt, AmericanOption) else cont
    return V[0]


AM_PUT = AmericanOption(100.0, 1.0, "put")
EU_CALL = Option(100.0, 1.0, "call")
add(G("r18a_crr_american_put_vega", crr_price, (0.3, 0.05, AM_PUT), ref="fd", tol=1e-6))
add(G("r18a_crr_american_put_rho", crr_price, (0.3, 0.05, AM_PUT), argnums=1, ref="fd", tol=1e-6))
add(G("r18a_crr_european_call_vega_ag", crr_price, (0.3, 0.05, EU_CALL), ref="ag", tol=1e-9))


def crr_inplace(sigma, S0, K=100.0, T=0.5, r=0.02, steps=40):
    # a user who keeps one buffer and overwrites it in place, with an explicit inner loop
    dt = T / steps
    u = np.exp(sigma * np.sqrt(dt))
    p = (np.exp(r * dt) - 1.0 / u) / (u - 1.0 / u)
    V = np.zeros(steps + 1)
    for j in range(steps + 1):
        V[j] = max(K - S0 * u ** (steps - 2 * j), 0.0)
    for n in range(steps - 1, -1, -1):
        for j in range(n + 1):
            cont = np.exp(-r * dt) * (p * V[j] + (1 - p) * V[j + 1])
            V[j] = max(cont, K - S0 * u ** (n - 2 * j))
    return V[0]


add(G("r18a_crr_inplace_buffer_vega_delta", crr_inplace, (0.25, 97.0), argnums=(0, 1), ref="fd", tol=1e-6))
add(G("r18a_crr_inplace_buffer_jvp_fd", crr_inplace, (0.25, 97.0), argnums=1, ref="fd", h=1e-4, tol=1e-6))


def mc_call(S0, sigma, rng, n=4000, K=100.0, T=1.0, r=0.01):
    z = rng.standard_normal(n)
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * z)
    return np.exp(-r * T) * np.mean(np.maximum(ST - K, 0.0))


def mc_call_pathwise(S0, sigma, z, K=100.0, T=1.0, r=0.01):
    ST = S0 * np.exp((r - 0.5 * sigma ** 2) * T + sigma * np.sqrt(T) * z)
    itm = ST > K
    dS = np.exp(-r * T) * np.mean(itm * ST / S0)
    dsig = np.exp(-r * T) * np.mean(itm * ST * (-sigma * T + np.sqrt(T) * z))
    return np.array([dS, dsig])


def _mc_ref():
    z = np.random.default_rng(11).standard_normal(4000)
    return mc_call_pathwise(100.0, 0.2, z)


add(pair("r18a_mc_generator_pathwise_greeks",
         lambda: revsrc.grad(mc_call, argnums=(0, 1))(100.0, 0.2, np.random.default_rng(11)),
         lambda: tuple(_mc_ref()), tol=1e-11))


def mc_asian(theta, z):
    # arithmetic Asian call on a 12-step path, drift and vol as a dict pytree
    mu, sig = theta["mu"], theta["sigma"]
    dt = 1.0 / 12
    logS = np.log(100.0) + np.cumsum((mu - 0.5 * sig ** 2) * dt + sig * np.sqrt(dt) * z, axis=1)
    avg = np.mean(np.exp(logS), axis=1)
    return np.mean(np.maximum(avg - 100.0, 0.0))


ZA = np.random.default_rng(3).standard_normal((500, 12))
add(G("r18a_mc_asian_dict_params", mc_asian, ({"mu": 0.04, "sigma": 0.3}, ZA), ref="ag", tol=1e-10))
add(G("r18a_mc_asian_dict_backend_jax", mc_asian, ({"mu": 0.04, "sigma": 0.3}, ZA), ref="ag", tol=1e-10, backend="jax"))


def implied_vol(price, S, K, T, r, sig0=0.2, tol=1e-12):
    sig = sig0
    for _ in range(50):
        diff = bs_call(S, K, T, r, sig) - price
        if abs(diff) < tol:
            return sig
        sig = sig - diff / vega_closed(S, K, T, r, sig)
    return sig


def iv_loss(price, target=0.3):
    iv = implied_vol(price, 100.0, 105.0, 0.5, 0.02)
    return (iv - target) ** 2


def iv_loss_closed(price, target=0.3):
    iv = implied_vol(price, 100.0, 105.0, 0.5, 0.02)
    return 2.0 * (iv - target) / vega_closed(100.0, 105.0, 0.5, 0.02, iv)


add(pair("r18a_implied_vol_newton_early_return", lambda: revsrc.grad(iv_loss)(6.0),
         lambda: iv_loss_closed(6.0), tol=1e-6))


def implied_vol_while(price, S=100.0, K=100.0, T=1.0, r=0.0):
    sig, it = 0.5, 0
    step = 1.0
    while abs(step) > 1e-13 and it < 100:
        step = (bs_call(S, K, T, r, sig) - price) / vega_closed(S, K, T, r, sig)
        sig = sig - step
        it += 1
    return sig


def iv_while_closed(price):
    s = implied_vol_while(price)
    return 1.0 / vega_closed(100.0, 100.0, 1.0, 0.0, s)


add(pair("r18a_implied_vol_while_dsig_dprice", lambda: revsrc.grad(implied_vol_while)(8.0),
         lambda: iv_while_closed(8.0), tol=1e-6))


def calibrate_loss(params, quotes):
    # quotes: list of (K, T, price) tuples; vol surface a + b*(K/100-1)^2 + c*T
    a, b, c = params
    tot = 0.0
    for K, T, px in quotes:
        s = a + b * (K / 100.0 - 1.0) ** 2 + c * T
        tot = tot + (bs_call(100.0, K, T, 0.01, s) - px) ** 2
    return tot / len(quotes)


QUOTES = [(90.0, 0.5, 13.1), (100.0, 0.5, 6.9), (110.0, 1.0, 5.0), (95.0, 1.0, 11.6)]
add(VG("r18a_calibrate_tuple_params_list_quotes", calibrate_loss, ((0.2, 0.5, 0.02), QUOTES), ref="fd", tol=1e-7))
add(H("r18a_calibrate_hessian_array", lambda p: calibrate_loss(p, QUOTES), (np.array([0.2, 0.5, 0.02]),), ref="fd", tol=1e-5))


def nelson_siegel(beta, tau, lam=1.5):
    x = tau / lam
    f1 = (1 - np.exp(-x)) / x
    return beta[0] + beta[1] * f1 + beta[2] * (f1 - np.exp(-x))


def bond_price(beta, cf_times, cfs):
    y = nelson_siegel(beta, cf_times)
    return np.sum(cfs * np.exp(-y * cf_times))


def duration_convexity(beta):
    t = np.arange(0.5, 5.01, 0.5)
    cf = np.full(t.shape, 2.5)
    cf[-1] += 100.0
    return bond_price(beta, t, cf)


BETA = np.array([0.04, -0.02, 0.01])
add(G("r18a_nelson_siegel_bond_grad", duration_convexity, (BETA,), ref="fd", tol=1e-7))
add(H("r18a_nelson_siegel_bond_hessian", duration_convexity, (BETA,), ref="fd", tol=1e-5))


def cvar_portfolio(w, R, alpha=0.9):
    # sample CVaR: mean of the worst (1-alpha) losses, via np.sort
    losses = -(R @ w)
    srt = np.sort(losses)
    k = int(math.ceil(alpha * len(srt)))
    return np.mean(srt[k:]) + 0.1 * np.sum(w ** 2)


RET = np.random.default_rng(5).normal(0.001, 0.02, (200, 4))
W0 = np.array([0.3, 0.2, 0.4, 0.1])
add(G("r18a_cvar_np_sort_tail", cvar_portfolio, (W0, RET), ref="ag", tol=1e-12))


def mean_var_utility(w, mu, cov, gamma=3.0):
    w = w / np.sum(w)
    return w @ mu - 0.5 * gamma * np.einsum("i,ij,j->", w, cov, w)


MU = np.array([0.05, 0.07, 0.03, 0.06])
COV = np.cov(RET.T) * 252
add(G("r18a_mean_var_einsum_normalized", mean_var_utility, (W0, MU, COV), ref="jax", tol=1e-12))
add(pair("r18a_mean_var_vmap_grad_over_weights",
         lambda: revsrc.vmap(revsrc.grad(mean_var_utility), in_axes=(0, None, None))(np.stack([W0, W0[::-1], W0 ** 2]), MU, COV),
         lambda: np.stack([jax().grad(jaxify(mean_var_utility))(w, MU, COV) for w in (W0, W0[::-1], W0 ** 2)]), tol=1e-12))


def barrier_knockout_mc(S0, sigma, z, B=120.0, K=100.0):
    # smoothed knock-out: survival weight prod of sigmoids along the path
    dt = 1.0 / z.shape[1]
    paths = S0 * np.exp(np.cumsum(-0.5 * sigma ** 2 * dt + sigma * np.sqrt(dt) * z, axis=1))
    surv = np.exp(np.sum(np.log(1.0 / (1.0 + np.exp((paths - B) / 0.5))), axis=1))
    return np.mean(surv * np.maximum(paths[:, -1] - K, 0.0))


ZB = np.random.default_rng(9).standard_normal((300, 20))
add(G("r18a_barrier_smooth_survival_wrt_S0_sigma", barrier_knockout_mc, (100.0, 0.2, ZB), argnums=(0, 1), ref="ag", tol=1e-10))


def bs_call_f32(S, sigma):
    return bs_call(S, 100.0, 1.0, 0.0, sigma)


add(pair("r18a_bs_float32_scalar_args",
         lambda: revsrc.grad(bs_call_f32)(np.float32(100.0), np.float32(0.2)),
         lambda: delta_closed(100.0, 100.0, 1.0, 0.0, 0.2), tol=1e-6))
add(pair("r18a_bs_delta_deep_itm_zero_vol_edge",
         lambda: revsrc.grad(bs_call)(100.0, 50.0, 1.0, 0.0, 1e-4),
         lambda: 1.0, tol=1e-12))


def vg_aux_pnl(hedge, S_path):
    # delta-hedged P&L variance with aux: the mean P&L
    dS = np.diff(S_path, axis=1)
    pnl = np.sum(hedge * dS, axis=1) - np.maximum(S_path[:, -1] - 100.0, 0.0)
    return np.var(pnl), {"mean": np.mean(pnl)}


SP = 100.0 * np.exp(np.cumsum(0.01 * np.random.default_rng(1).standard_normal((100, 6)), axis=1))
HEDGE = np.full(5, 0.5)
add(pair("r18a_hedge_var_has_aux",
         lambda: revsrc.value_and_grad(vg_aux_pnl, has_aux=True)(HEDGE, SP),
         lambda: ((vg_aux_pnl(HEDGE, SP)[0], vg_aux_pnl(HEDGE, SP)[1]),
                  jax().grad(lambda h: jaxify(vg_aux_pnl)(h, SP)[0])(HEDGE)), tol=1e-10))


def crr_built_inside(sigma, K, american=True, S0=100.0, steps=50):
    # the option object made inside the function (followed: its methods are inlined)
    opt = AmericanOption(K, 1.0, "put") if american else Option(K, 1.0, "put")
    return crr_price(sigma, 0.04, opt, S0, steps)


add(G("r18a_crr_option_built_inside_vega", crr_built_inside, (0.3, 100.0), ref="fd", tol=1e-6))
add(G("r18a_crr_option_built_inside_dK", crr_built_inside, (0.3, 95.0), argnums=1, ref="fd", tol=1e-6))
add(G("r18a_crr_option_bound_partial", functools.partial(crr_price, opt=AM_PUT), (0.3, 0.05), ref="fd", tol=1e-6))


def crr_built_inside_plain(sigma, K, S0=100.0, steps=50):
    opt = AmericanOption(K, 1.0, "put")
    return crr_price(sigma, 0.04, opt, S0, steps)


add(G("r18a_crr_option_built_inside_plain_vega", crr_built_inside_plain, (0.3, 100.0), ref="fd", tol=1e-6))


def bs_hess_unpacked(p):
    S, K, T, r, sigma = p[0], p[1], p[2], p[3], p[4]
    return bs_call(S, K, T, r, sigma)


add(H("r18a_bs_full_hessian_5x5_unpacked", bs_hess_unpacked, (np.array(ARGS),), ref="fd", tol=1e-5))

# ---- the same programs with backend="jax"
add(pair("r18a_implied_vol_newton_early_return_backend_jax", lambda: revsrc.grad(iv_loss, backend="jax")(6.0),
         lambda: iv_loss_closed(6.0), tol=1e-6))
add(pair("r18a_implied_vol_while_backend_jax", lambda: revsrc.grad(implied_vol_while, backend="jax")(8.0),
         lambda: iv_while_closed(8.0), tol=1e-6))
add(G("r18a_crr_inplace_max_backend_jax", crr_inplace, (0.25, 97.0), argnums=1, ref="fd", tol=1e-6, backend="jax"))
add(G("r18a_cvar_np_sort_tail_backend_jax", cvar_portfolio, (W0, RET), ref="ag", tol=1e-12, backend="jax"))
add(G("r18a_calibrate_list_quotes_backend_jax", calibrate_loss, ((0.2, 0.5, 0.02), QUOTES), ref="fd", tol=1e-7, backend="jax"))
add(G("r18a_nelson_siegel_bond_backend_jax", duration_convexity, (BETA,), ref="fd", tol=1e-7, backend="jax"))


def crr_vectorized(sigma, S0=100.0, K=100.0, steps=30, r=0.03):
    # the American put written with array slices and np.maximum (no Python max)
    dt = 1.0 / steps
    u = math.exp(sigma * math.sqrt(dt))
    d = 1 / u
    p = (math.exp(r * dt) - d) / (u - d)
    j = np.arange(steps + 1)
    V = np.maximum(K - S0 * u ** (steps - 2 * j), 0.0)
    for n in range(steps - 1, -1, -1):
        jj = np.arange(n + 1)
        V = np.maximum(math.exp(-r * dt) * (p * V[:-1] + (1 - p) * V[1:]), K - S0 * u ** (n - 2 * jj))
    return V[0]


add(G("r18a_crr_vectorized_np_maximum", crr_vectorized, (0.25,), ref="fd", tol=1e-6))
add(G("r18a_crr_vectorized_backend_jax", crr_vectorized, (0.25,), ref="fd", tol=1e-6, backend="jax"))
add(pair("r18a_crr_vectorized_jit_grad", lambda: revsrc.jit(revsrc.grad(crr_vectorized))(0.25),
         lambda: fd_checked(crr_vectorized, (0.25,))[0], tol=1e-6))
add(pair("r18a_crr_vectorized_vmap_grad", lambda: revsrc.vmap(revsrc.grad(crr_vectorized))(np.array([0.2, 0.25, 0.3])),
         lambda: np.array([fd_checked(crr_vectorized, (s,))[0] for s in (0.2, 0.25, 0.3)]), tol=1e-6))
add(H("r18a_crr_vectorized_hessian", crr_vectorized, (0.25,), ref="fd", tol=1e-4))


def payoff_smoothed(S, K=100.0):
    # a digital-like payoff smoothed by a quadratic ramp, with elif branches
    if S > K:
        return S - K
    elif S > 0.9 * K:
        return 0.5 * (S - 0.9 * K) ** 2 / (0.1 * K)
    return 0.0


SPOTS = np.array([85.0, 92.0, 99.0, 101.0, 130.0])
add(pair("r18a_payoff_elif_vmap_grad", lambda: revsrc.vmap(revsrc.grad(payoff_smoothed))(SPOTS),
         lambda: np.array([fd_checked(payoff_smoothed, (s,))[0] for s in SPOTS]), tol=1e-7))
