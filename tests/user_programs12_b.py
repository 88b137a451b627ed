"""Round 12, part b: finance -- Black-Scholes greeks, Heston-ish Monte Carlo with fixed
normals, bond yields by Newton, GARCH likelihood, CVaR, as a quant writes them."""
import math
from collections import namedtuple

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append


def ncdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def npdf(x):
    return math.exp(-0.5 * x * x) / math.sqrt(2 * math.pi)


def bs_call(S, K, T, r, sigma):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    return S * ncdf(d1) - K * math.exp(-r * T) * ncdf(d2)


ARGS = (100.0, 95.0, 0.5, 0.03, 0.25)


def _d1(S, K, T, r, s):
    return (math.log(S / K) + (r + 0.5 * s * s) * T) / (s * math.sqrt(T))


def delta():
    return ncdf(_d1(*ARGS))


def vega():
    S, K, T, r, s = ARGS
    return S * npdf(_d1(*ARGS)) * math.sqrt(T)


def gamma():
    S, K, T, r, s = ARGS
    return npdf(_d1(*ARGS)) / (S * s * math.sqrt(T))


def rho():
    S, K, T, r, s = ARGS
    return K * T * math.exp(-r * T) * ncdf(_d1(*ARGS) - s * math.sqrt(T))


add(pair("r12_bs_delta", lambda: revsrc.grad(bs_call)(*ARGS), delta, tol=1e-11))
add(pair("r12_bs_vega_rho", lambda: revsrc.grad(bs_call, argnums=(4, 3))(*ARGS), lambda: (vega(), rho()), tol=1e-11))
add(pair("r12_bs_gamma_hessian", lambda: revsrc.hessian(bs_call)(*ARGS), gamma, tol=1e-10))
add(pair("r12_bs_gamma_grad_grad", lambda: revsrc.grad(revsrc.grad(bs_call))(*ARGS), gamma, tol=1e-10))
add(pair("r12_bs_value_and_grad", lambda: revsrc.value_and_grad(bs_call, argnums=0)(*ARGS),
         lambda: (bs_call(*ARGS), delta()), tol=1e-11))
add(pair("r12_bs_jit_delta", lambda: revsrc.jit(revsrc.grad(bs_call))(*ARGS), delta, tol=1e-11))
SS = np.array([80.0, 95.0, 100.0, 120.0])
add(pair("r12_bs_vmap_delta", lambda: revsrc.vmap(revsrc.grad(bs_call), in_axes=(0, None, None, None, None))(SS, *ARGS[1:]),
         lambda: np.array([ncdf(_d1(s, *ARGS[1:])) for s in SS]), tol=1e-11))


# implied vol by Newton's method in a while loop; dvol/dprice = 1/vega
def implied_vol(price, S, K, T, r):
    s = 0.3
    it = 0
    while it < 50:
        diff = bs_call(S, K, T, r, s) - price
        if abs(diff) < 1e-12:
            break
        d1 = (math.log(S / K) + (r + 0.5 * s * s) * T) / (s * math.sqrt(T))
        s = s - diff / (S * npdf(d1) * math.sqrt(T))
        it += 1
    return s


PRICE = bs_call(*ARGS)
add(pair("r12_implied_vol_dprice", lambda: revsrc.grad(implied_vol)(PRICE, *ARGS[:4]),
         lambda: 1.0 / vega(), tol=1e-8))


# -- bond yield by Newton: a list of cash flows, the yield's sensitivity to the price ------

def bond_price(y, cfs, times):
    return sum(cf * math.exp(-y * t) for cf, t in zip(cfs, times))


def ytm(price, cfs, times):
    y = 0.05
    for _ in range(40):
        p = bond_price(y, cfs, times)
        dp = -sum(t * cf * math.exp(-y * t) for cf, t in zip(cfs, times))
        y -= (p - price) / dp
    return y


CFS = [5.0, 5.0, 5.0, 105.0]
TIMES = [1.0, 2.0, 3.0, 4.0]
Y0 = 0.043
P0 = bond_price(Y0, CFS, TIMES)
add(pair("r12_ytm_dprice", lambda: revsrc.grad(ytm)(P0, CFS, TIMES),
         lambda: -1.0 / sum(t * cf * math.exp(-Y0 * t) for cf, t in zip(CFS, TIMES)), tol=1e-9))
add(pair("r12_ytm_dcashflows", lambda: revsrc.grad(ytm, argnums=1)(P0, CFS, TIMES),
         lambda: [math.exp(-Y0 * t) / sum(tt * cf * math.exp(-Y0 * tt) for cf, tt in zip(CFS, TIMES)) for t in TIMES],
         tol=1e-9))
add(pair("r12_bond_convexity", lambda: revsrc.hessian(bond_price)(Y0, CFS, TIMES),
         lambda: sum(t * t * cf * math.exp(-Y0 * t) for cf, t in zip(CFS, TIMES)), tol=1e-10))


# -- Heston-ish Monte Carlo with fixed normals: full-truncation Euler -------------------------

Z = np.random.default_rng(3).normal(size=(2, 20, 64))


def heston_call(v0, kappa=1.5, theta=0.04, xi=0.5, rho=-0.6, S0=100.0, K=100.0, T=0.5):
    n = Z.shape[1]
    dt = T / n
    S = np.full(Z.shape[2], S0)
    v = np.full(Z.shape[2], v0)
    for k in range(n):
        z1 = Z[0, k]
        z2 = rho * z1 + math.sqrt(1 - rho * rho) * Z[1, k]
        vp = np.maximum(v, 0.0)
        S = S * np.exp(-0.5 * vp * dt + np.sqrt(vp * dt) * z1)
        v = v + kappa * (theta - vp) * dt + xi * np.sqrt(vp * dt) * z2
    return np.mean(np.maximum(S - K, 0.0))


add(G("r12_heston_mc_v0", heston_call, (0.05,), ref="fd", tol=1e-5))
add(G("r12_heston_mc_kappa", heston_call, (0.05, 1.5), argnums=1, ref="fd", tol=1e-5))


# -- GARCH(1,1) negative log-likelihood, a namedtuple of parameters ------------------------

Garch = namedtuple("Garch", ["omega", "alpha", "beta"])
RET = 0.01 * np.random.default_rng(5).standard_t(5, size=60)


def garch_nll(p, r):
    s2 = np.var(r)
    nll = 0.0
    for t in range(len(r)):
        nll += 0.5 * (math.log(2 * math.pi * s2) + r[t] ** 2 / s2)
        s2 = p.omega + p.alpha * r[t] ** 2 + p.beta * s2
    return nll


def garch_nll_flat(q, r):
    return garch_nll(Garch(q[0], q[1], q[2]), r)


GP = Garch(2e-6, 0.08, 0.9)
add(pair("r12_garch_namedtuple", lambda: tuple(revsrc.grad(garch_nll)(GP, RET)),
         lambda: tuple(fd_checked(garch_nll_flat, (np.array(GP), RET), h=1e-8, check=1e-3)[0]
                       if False else ag()[0].grad(agify(garch_nll_flat))(np.array(GP), RET)), tol=1e-6))
add(VG("r12_garch_vg_array", garch_nll_flat, (np.array(GP), RET), ref="ag", tol=1e-8))


# -- CVaR by sorting losses: Rockafellar-Uryasev with the VaR as an argmin ---------------

LOSSR = np.random.default_rng(8).normal(size=(200, 3))


def cvar(w, alpha=0.9):
    losses = -LOSSR @ w
    q = np.sort(losses)
    k = int(math.ceil(alpha * len(q)))
    return np.mean(q[k:])


W3 = np.array([0.5, 0.3, 0.2])


def cvar_ref():
    losses = -LOSSR @ W3
    idx = np.argsort(losses)[int(math.ceil(0.9 * 200)):]
    return -LOSSR[idx].mean(axis=0)


add(pair("r12_cvar_sort", lambda: revsrc.grad(cvar)(W3), cvar_ref, tol=1e-12))


def cvar_ru(w, alpha=0.9):
    losses = -LOSSR @ w
    var = np.quantile(losses, alpha)
    return var + np.mean(np.maximum(losses - var, 0.0)) / (1 - alpha)


add(G("r12_cvar_quantile", cvar_ru, (W3,), ref="fd", tol=1e-6))


# -- Markowitz with a dict of parameters ---------------------------------------------------

COV = np.array([[0.04, 0.006, 0.01], [0.006, 0.09, -0.004], [0.01, -0.004, 0.0625]])
MU = np.array([0.06, 0.1, 0.08])


def mean_variance(params, lam=3.0):
    w = np.exp(params["logits"]) / np.sum(np.exp(params["logits"]))
    return -(w @ MU) + 0.5 * lam * w @ COV @ w + params["cost"] * np.sum(np.abs(w - 1 / 3))


PRM = {"logits": np.array([0.1, -0.2, 0.3]), "cost": 0.01}
add(pair("r12_markowitz_dict", lambda: revsrc.grad(mean_variance)(PRM),
         lambda: ag()[0].grad(agify(mean_variance))(PRM), tol=1e-10))
add(pair("r12_markowitz_jvp", lambda: revsrc.jvp(lambda l: mean_variance({"logits": l, "cost": 0.01}), (PRM["logits"],), (np.array([1.0, 0.0, -1.0]),)),
         lambda: (mean_variance(PRM), float(ag()[0].grad(lambda l: agify(mean_variance)({"logits": l, "cost": 0.01}))(PRM["logits"]) @ np.array([1.0, 0.0, -1.0]))),
         tol=1e-10))
