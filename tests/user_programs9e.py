"""Round 9, finance and economics: bond price, duration and convexity, yield by
Newton (an IRR), annuities and compound-interest loops, utility maximisation by
projected gradient steps, a Cobb-Douglas economy, amortisation schedules."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []


def bond_price(y, coupon=0.05, face=100.0, years=10, freq=2):
    c = coupon * face / freq
    price = 0.0
    for k in range(1, years * freq + 1):
        price += c / (1 + y / freq) ** k
    return price + face / (1 + y / freq) ** (years * freq)


CASES.append(G("r9_bond_price_duration", bond_price, (0.04,), ref="jax"))
CASES.append(H("r9_bond_price_convexity", bond_price, (0.04,), ref="jax"))


def bond_price_np(y, cfs=np.array([5.0, 5.0, 5.0, 105.0]), times=np.array([1.0, 2.0, 3.0, 4.0])):
    return np.sum(cfs * np.exp(-y * times))


CASES.append(G("r9_bond_continuous_discount", bond_price_np, (0.03,), ref=lambda: -np.sum(
    np.array([5.0, 5.0, 5.0, 105.0]) * np.array([1.0, 2.0, 3.0, 4.0]) * np.exp(-0.03 * np.array([1.0, 2.0, 3.0, 4.0]))), tol=1e-10))


def irr(cf0):
    flows = [cf0, 30.0, 40.0, 50.0, 20.0]
    r = 0.1
    for _ in range(50):
        npv = sum(c / (1 + r) ** t for t, c in enumerate(flows))
        dnpv = sum(-t * c / (1 + r) ** (t + 1) for t, c in enumerate(flows))
        step = npv / dnpv
        r -= step
        if abs(step) < 1e-14:
            break
    return r


def _irr_ref():
    r = irr(-100.0)
    flows = [-100.0, 30.0, 40.0, 50.0, 20.0]
    dnpv = sum(-t * c / (1 + r) ** (t + 1) for t, c in enumerate(flows))
    # npv(r, cf0) = 0: dr/dcf0 = -1 / dnpv/dr
    return -1.0 / dnpv


CASES.append(G("r9_irr_newton_enumerate_generators", irr, (-100.0,), ref=_irr_ref, tol=1e-7))


def compound(rate, years=30, monthly=200.0):
    bal = 0.0
    for m in range(years * 12):
        bal = bal * (1 + rate / 12) + monthly
    return bal


def _compound_ref():
    r = 0.05 / 12
    n = 360
    # bal = P ((1+r)^n - 1) / r
    dbal_dr = 200.0 * (n * (1 + r) ** (n - 1) * r - ((1 + r) ** n - 1)) / r ** 2
    return dbal_dr / 12


CASES.append(G("r9_compound_interest_monthly_loop", compound, (0.05,), ref=_compound_ref, tol=1e-8))
CASES.append(G("r9_compound_interest_memory_1kb", compound, (0.05,), ref="jax", memory="1KB"))


def amortization_interest(rate, principal=250000.0, n=120):
    r = rate / 12
    pay = principal * r / (1 - (1 + r) ** -n)
    bal = principal
    paid_interest = 0.0
    while bal > 1e-6:
        i = bal * r
        paid_interest += i
        bal = bal + i - pay
    return paid_interest


CASES.append(G("r9_amortization_while_balance", amortization_interest, (0.06,), ref="ag", tol=1e-6))


def crra_utility(c, gamma=2.0):
    if abs(gamma - 1.0) < 1e-12:
        return math.log(c)
    return (c ** (1 - gamma) - 1) / (1 - gamma)


def lifetime_utility(s, w=10.0, R=1.04, beta=0.96):
    c1 = w - s
    c2 = R * s
    return crra_utility(c1) + beta * crra_utility(c2)


CASES.append(G("r9_crra_two_period_savings", lifetime_utility, (4.0,), ref="jax"))
CASES.append(H("r9_crra_two_period_hessian", lifetime_utility, (4.0,), ref="jax"))


def optimal_savings(R):
    dU = revsrc.grad(lifetime_utility)
    s = 2.0
    for _ in range(100):
        s = s + 0.5 * dU(s, 10.0, R)
    return s


# The first-order condition's closed form is the derivative of the converged optimum;
# 100 steps of ascent
# are not converged in R's derivative (1,000 steps give -1.20144, 100 give -1.30643), so the
# program's own derivative is checked against self-checked central differences.
CASES.append(G("r9_savings_by_gradient_ascent_grad_inside", optimal_savings, (1.04,), ref="fd", tol=1e-6))


def cobb_douglas_profit(alpha, p=2.0, w=1.0, r=0.5):
    # firm's optimum with two inputs (decreasing returns), closed form inputs, then profit
    beta = 0.3
    K = 1.0
    for _ in range(200):
        L = (alpha * p * K ** beta / w) ** (1 / (1 - alpha))
        K = (beta * p * L ** alpha / r) ** (1 / (1 - beta))
    return p * K ** beta * L ** alpha - w * L - r * K


CASES.append(G("r9_cobb_douglas_alternating_fixed_point", cobb_douglas_profit, (0.4,), ref="fd", tol=1e-5))


def portfolio_var(w, cov=np.array([[0.04, 0.006, 0.01], [0.006, 0.09, 0.02], [0.01, 0.02, 0.16]])):
    w = w / np.sum(w)
    return w @ cov @ w


CASES.append(G("r9_portfolio_variance_normalised", portfolio_var, (np.array([0.5, 0.3, 0.2]),), ref="jax"))
CASES.append(H("r9_portfolio_variance_hessian", portfolio_var, (np.array([0.5, 0.3, 0.2]),), ref="jax"))


def sharpe(w, mu=np.array([0.08, 0.12, 0.15]), cov=np.array([[0.04, 0.006, 0.01], [0.006, 0.09, 0.02], [0.01, 0.02, 0.16]])):
    ret = w @ mu - 0.02
    vol = np.sqrt(w @ cov @ w)
    return ret / vol


CASES.append(G("r9_sharpe_ratio", sharpe, (np.array([0.4, 0.4, 0.2]),), ref="jax"))


def annuity_factor(r, n=20):
    return (1 - (1 + r) ** (-n)) / r


CASES.append(G("r9_annuity_negative_power", annuity_factor, (0.05,), ref="jax"))
CASES.append(G("r9_annuity_int_years_argument", annuity_factor, (0.05, 7), ref="jax"))


def forward_rates(zero):
    t = np.arange(1, len(zero) + 1, dtype=float)
    disc = np.exp(-zero * t)
    fwd = np.log(disc[:-1] / disc[1:])
    return np.sum(fwd ** 2)


CASES.append(G("r9_forward_rates_from_zeros", forward_rates, (np.array([0.01, 0.015, 0.02, 0.022, 0.025]),), ref="jax"))


def black_scholes_vega_free(sigma, S=100.0, K=105.0, T=0.5, r=0.01):
    d1 = (math.log(S / K) + (r + 0.5 * sigma ** 2) * T) / (sigma * math.sqrt(T))
    d2 = d1 - sigma * math.sqrt(T)
    N = lambda z: 0.5 * (1 + math.erf(z / math.sqrt(2)))  # noqa: E731
    return S * N(d1) - K * math.exp(-r * T) * N(d2)


def _vega():
    S, K, T, r, s = 100.0, 105.0, 0.5, 0.01, 0.25
    d1 = (math.log(S / K) + (r + 0.5 * s ** 2) * T) / (s * math.sqrt(T))
    return S * math.sqrt(T) * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi)


CASES.append(G("r9_black_scholes_vega_closed_form", black_scholes_vega_free, (0.25,), ref=_vega, tol=1e-9))


def implied_vol(price):
    s = 0.2
    for _ in range(30):
        diff = black_scholes_vega_free(s) - price
        if abs(diff) < 1e-13:
            break
        s -= diff / revsrc.grad(black_scholes_vega_free)(s)
    return s


def _iv_ref():
    s = implied_vol(5.0)
    return 1.0 / _vega_at(s)


def _vega_at(s):
    S, K, T, r = 100.0, 105.0, 0.5, 0.01
    d1 = (math.log(S / K) + (r + 0.5 * s ** 2) * T) / (s * math.sqrt(T))
    return S * math.sqrt(T) * math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi)


CASES.append(G("r9_implied_vol_newton_with_grad_inside", implied_vol, (5.0,), ref=_iv_ref, tol=1e-6))


def tax_schedule(income):
    brackets = [(10000.0, 0.0), (30000.0, 0.2), (80000.0, 0.4), (math.inf, 0.45)]
    tax = 0.0
    lower = 0.0
    for upper, rate in brackets:
        if income > lower:
            tax += (min(income, upper) - lower) * rate
        lower = upper
    return tax


CASES.append(G("r9_tax_brackets_inf_min", tax_schedule, (55000.0,), ref=lambda: 0.4, tol=1e-12))
CASES.append(G("r9_tax_brackets_top", tax_schedule, (120000.0,), ref=lambda: 0.45, tol=1e-12))


def ces_utility(x, rho=0.5, a=np.array([0.3, 0.5, 0.2])):
    return np.sum(a * x ** rho) ** (1 / rho)


CASES.append(G("r9_ces_utility", ces_utility, (np.array([1.0, 2.0, 3.0]),), ref="jax"))
CASES.append(G("r9_ces_utility_wrt_rho", ces_utility, (np.array([1.0, 2.0, 3.0]), 0.5), argnums=1, ref="jax"))


def npv_dict(rates):
    cash = {"y1": 100.0, "y2": 120.0, "y3": 90.0}
    total = 0.0
    df = 1.0
    for k in ["y1", "y2", "y3"]:
        df = df / (1 + rates[k])
        total += cash[k] * df
    return total


CASES.append(G("r9_npv_dict_of_rates", npv_dict, ({"y1": 0.02, "y2": 0.03, "y3": 0.035},), ref="jax"))


def bootstrap_zero(prices):
    # zero rates from coupon bond prices (annual coupon 4%), one at a time
    zs = []
    for n, p in enumerate(prices, start=1):
        pv_coupons = sum(4.0 * math.exp(-z * (k + 1)) for k, z in enumerate(zs))
        zs.append(-math.log((p - pv_coupons) / 104.0) / n)
    return zs[-1]


CASES.append(G("r9_bootstrap_zero_curve_list_append", bootstrap_zero, (np.array([101.0, 100.5, 99.0]),), ref="ag"))
