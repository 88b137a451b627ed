"""Option greeks: the sensitivities of an option's price, by differentiating the pricer.

First the Black-Scholes formula for a European call, written with math.erf: its
delta, vega and rho come from revsrc.grad, its gamma from revsrc.hessian, and
revsrc.vmap evaluates delta and gamma for a whole range of spot prices in one
compiled call. They are checked against the closed forms.

Then a Monte-Carlo pricer of the same option (400,000 simulated terminal prices from
fixed normal draws, in antithetic pairs), differentiated pathwise. A call's payoff max(S - K, 0) has a kink,
so its pathwise second derivative is zero almost everywhere; the pricer smooths the
kink over a width of 0.5% of the strike (eps * log(1 + exp((S - K) / eps))), and the
Hessian of the smoothed price gives gamma, vanna and volga close to Black-Scholes'.

    python examples/option_greeks.py
"""
import math

import numpy as np

import revsrc
from _gallery import check, done, figure


def norm_cdf(x):
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def black_scholes_call(spot, vol, rate, expiry, strike):
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * expiry) / (vol * math.sqrt(expiry))
    d2 = d1 - vol * math.sqrt(expiry)
    return spot * norm_cdf(d1) - strike * math.exp(-rate * expiry) * norm_cdf(d2)


def monte_carlo_call(spot, vol, rate, expiry, strike, z, smoothing=0.005):
    terminal = spot * np.exp((rate - 0.5 * vol * vol) * expiry + vol * np.sqrt(expiry) * z)
    eps = smoothing * strike
    payoff = eps * np.logaddexp(0.0, (terminal - strike) / eps)
    return np.exp(-rate * expiry) * np.mean(payoff)


def closed_forms(spot, vol, rate, expiry, strike):
    d1 = (math.log(spot / strike) + (rate + 0.5 * vol * vol) * expiry) / (vol * math.sqrt(expiry))
    d2 = d1 - vol * math.sqrt(expiry)
    pdf = math.exp(-0.5 * d1 * d1) / math.sqrt(2 * math.pi)
    return {"delta": norm_cdf(d1), "gamma": pdf / (spot * vol * math.sqrt(expiry)),
            "vega": spot * pdf * math.sqrt(expiry),
            "rho": strike * expiry * math.exp(-rate * expiry) * norm_cdf(d2),
            "vanna": -pdf * d2 / vol, "volga": spot * pdf * math.sqrt(expiry) * d1 * d2 / vol}


def main():
    market = dict(spot=100.0, vol=0.2, rate=0.03, expiry=1.0, strike=120.0)
    args = tuple(market.values())
    exact = closed_forms(*args)

    delta, vega, rho = revsrc.grad(black_scholes_call, argnums=(0, 1, 2))(*args)
    gamma = revsrc.hessian(black_scholes_call)(*args)
    ad = {"delta": delta, "gamma": gamma, "vega": vega, "rho": rho}
    print(f"Black-Scholes price {black_scholes_call(*args):.6f}")
    for name, value in ad.items():
        print(f"  {name:5s} revsrc {value:.10f}   closed form {exact[name]:.10f}")
    check(all(abs(ad[k] - exact[k]) < 1e-9 * max(1.0, abs(exact[k])) for k in ad),
          "Black-Scholes greeks equal the closed forms")

    # delta and gamma over a range of spots, each compiled and mapped over the array
    spots = np.linspace(60.0, 150.0, 200)
    rest = args[1:]
    deltas = revsrc.vmap(revsrc.grad(black_scholes_call), in_axes=(0, None, None, None, None))(spots, *rest)
    gammas = revsrc.vmap(revsrc.hessian(black_scholes_call), in_axes=(0, None, None, None, None))(spots, *rest)
    exact_deltas = np.array([closed_forms(s, *rest)["delta"] for s in spots])
    check(np.max(np.abs(deltas - exact_deltas)) < 1e-12, "vmap of delta over 200 spots")

    z = np.random.default_rng(0).standard_normal(200_000)
    z = np.concatenate([z, -z])                       # antithetic pairs
    price = monte_carlo_call(*args, z)
    grads = revsrc.grad(monte_carlo_call, argnums=(0, 1))(*args, z)
    H = revsrc.hessian(monte_carlo_call, argnums=(0, 1))(*args, z)
    mc = {"delta": grads[0], "vega": grads[1], "gamma": H[0][0], "vanna": H[0][1], "volga": H[1][1]}
    print(f"Monte Carlo price {price:.4f} ({len(z)} paths, smoothed payoff)")
    for name, value in mc.items():
        print(f"  {name:5s} pathwise {value:10.5f}   Black-Scholes {exact[name]:10.5f}")
    check(all(abs(mc[k] - exact[k]) < 0.03 * abs(exact[k]) for k in mc),
          "Monte-Carlo greeks within 3% of Black-Scholes'")

    with figure("option_greeks", ncols=2, width=4.0) as (fig, axes):
        if fig is not None:
            axes[0].plot(spots, deltas, label="delta (revsrc)")
            axes[0].plot(spots[::10], exact_deltas[::10], "k.", label="closed form")
            axes[0].set_xlabel("spot")
            axes[0].legend(fontsize=8)
            axes[1].plot(spots, gammas, "C2", label="gamma (revsrc.hessian)")
            axes[1].axvline(market["strike"], color="0.7", lw=1)
            axes[1].set_xlabel("spot")
            axes[1].legend(fontsize=8)
    done()


if __name__ == "__main__":
    main()
