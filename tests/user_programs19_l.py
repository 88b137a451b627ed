"""Round 19, part l: higher-order derivatives and compositions on pytrees -- jacrev and
jacfwd of functions returning dicts and tuples, vmap of per-example gradients with in_axes
of None and 0, hessian with tuple argnums and with dict parameters, jvp/vjp/linearize on
tuples and dicts, jit of scalar loops, grad of jit, backend="jax", and edge values (0-d
arrays, empty arrays, float32, ints, nan and inf) on RL, survival, optics and DP programs."""
import functools  # noqa: F401
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(5019)


# -- jacrev/jacfwd of dict outputs ------------------------------------------------------

def thin_lens_image(params):
    f, s_obj = params[0], params[1]
    s_img = 1.0 / (1.0 / f - 1.0 / s_obj)
    return {"image_distance": s_img, "magnification": -s_img / s_obj}


P_LENS = np.array([50.0, 200.0])


def _lens_jac_ref():
    J = fdj(lambda p: np.array([thin_lens_image(p)["image_distance"],
                                thin_lens_image(p)["magnification"]]), P_LENS, h=1e-4)
    return {"image_distance": J[0], "magnification": J[1]}


add(pair("r19l_jacrev_dict_output", lambda: revsrc.jacrev(thin_lens_image)(P_LENS), _lens_jac_ref,
         tol=1e-7))
add(pair("r19l_jacfwd_dict_output", lambda: revsrc.jacfwd(thin_lens_image)(P_LENS), _lens_jac_ref,
         tol=1e-7))
add(pair("r19l_jacrev_dict_output_vs_jax", lambda: revsrc.jacrev(thin_lens_image)(P_LENS),
         lambda: jax().jacrev(jaxify(thin_lens_image))(P_LENS), tol=1e-12))


def policy_stats(theta, s_feat):
    z = s_feat @ theta
    p = np.exp(z - np.max(z))
    p = p / np.sum(p)
    ent = -np.sum(p * np.log(p))
    return p, ent


TH = 0.5 * _rng.normal(size=(3, 3))
SF = np.array([0.3, -1.0, 0.8])
add(pair("r19l_jacfwd_tuple_output_policy", lambda: revsrc.jacfwd(policy_stats)(TH, SF),
         lambda: jax().jacfwd(jaxify(policy_stats))(TH, SF), tol=1e-11))
add(pair("r19l_jacrev_tuple_output_wrt_state", lambda: revsrc.jacrev(policy_stats, argnums=1)(TH, SF),
         lambda: jax().jacrev(jaxify(policy_stats), argnums=1)(TH, SF), tol=1e-11))


# -- hessian with argnums tuples and dict params -------------------------------------------

def cox_like(beta, gamma, X, t_rank):
    eta = X @ beta + gamma * np.arange(len(t_rank))
    w = np.exp(eta)
    rs = np.cumsum(w[::-1])[::-1]
    return -np.sum(eta - np.log(rs))


XC = _rng.normal(size=(6, 2))
add(pair("r19l_hessian_argnums_tuple_blocks",
         lambda: revsrc.hessian(cox_like, argnums=(0, 1))(np.array([0.2, -0.1]), 0.05, XC, np.arange(6)),
         lambda: jax().hessian(jaxify(cox_like), argnums=(0, 1))(np.array([0.2, -0.1]), 0.05, XC,
                                                                 np.arange(6)), tol=1e-10))


def critic_loss(p, S, targets):
    h = np.tanh(S @ p["W"] + p["b"])
    v = h @ p["v"]
    return 0.5 * np.mean((v - targets) ** 2)


P_CR = {"W": 0.4 * _rng.normal(size=(3, 4)), "b": np.zeros(4), "v": 0.3 * np.ones(4)}
S_B = _rng.normal(size=(5, 3))
TG = np.array([1.0, 0.0, 0.5, -0.2, 0.3])
add(pair("r19l_hessian_dict_params_blocks",
         lambda: revsrc.hessian(critic_loss)(P_CR, S_B, TG),
         lambda: jax().hessian(jaxify(critic_loss))(P_CR, S_B, TG), tol=1e-10))
add(pair("r19l_jacfwd_jacrev_dict_params",
         lambda: revsrc.jacfwd(revsrc.jacrev(critic_loss))(P_CR, S_B, TG)["v"]["W"],
         lambda: jax().hessian(jaxify(critic_loss))(P_CR, S_B, TG)["v"]["W"], tol=1e-10))
add(pair("r19l_hvp_dict_params",
         lambda: revsrc.hvp(critic_loss, (P_CR, S_B, TG),
                            ({k: np.ones_like(v) for k, v in P_CR.items()}, None, None)),
         lambda: jax().jvp(jax().grad(jaxify(critic_loss)), (P_CR, S_B, TG),
                           ({k: np.ones_like(v) for k, v in P_CR.items()}, np.zeros_like(S_B),
                            np.zeros_like(TG)))[1], tol=1e-10))


# -- jvp / vjp / linearize on structures ----------------------------------------------

def rollout(state, u):
    pos, vel = state
    for k in range(5):
        a = np.clip(u[k], -1.0, 1.0) - 0.1 * vel
        vel = vel + 0.1 * a
        pos = pos + 0.1 * vel
    return (pos, vel)


U5 = np.array([0.5, 1.4, -0.3, -2.0, 0.8])


def _rollout_fd(tang):
    def flatf(z):
        p, v = rollout((z[0], z[1]), z[2:])
        return np.array([p, v])
    z0 = np.concatenate([[0.2, -0.1], U5])
    J = fdj(flatf, z0)
    return J @ tang


TANG = np.concatenate([[1.0, 0.5], np.linspace(-1, 1, 5)])
add(pair("r19l_jvp_tuple_state_in_and_out",
         lambda: revsrc.jvp(rollout, ((0.2, -0.1), U5), ((1.0, 0.5), TANG[2:]))[1],
         lambda: tuple(_rollout_fd(TANG)), tol=1e-8))


def _vjp_call():
    out, back = revsrc.vjp(rollout, (0.2, -0.1), U5)
    return back((1.0, -2.0))


def _vjp_ref():
    def scal(z):
        p, v = rollout((z[0], z[1]), z[2:])
        return p - 2.0 * v
    g = fd_checked(scal, (np.concatenate([[0.2, -0.1], U5]),))[0]
    return ((g[0], g[1]), g[2:])


add(pair("r19l_vjp_tuple_cotangent", _vjp_call, _vjp_ref, tol=1e-8))


def _lin_call():
    out, f_jvp = revsrc.linearize(critic_loss, P_CR, S_B, TG)
    t1 = f_jvp({k: np.ones_like(v) for k, v in P_CR.items()}, np.zeros_like(S_B), np.zeros_like(TG))
    t2 = f_jvp({k: 0.5 * np.ones_like(v) for k, v in P_CR.items()}, np.zeros_like(S_B),
               np.zeros_like(TG))
    return (out, t1, t2)


def _lin_ref():
    g = jax().grad(jaxify(critic_loss))(P_CR, S_B, TG)
    s = sum(float(np.sum(g[k])) for k in g)
    return (critic_loss(P_CR, S_B, TG), s, 0.5 * s)


add(pair("r19l_linearize_dict_params_two_tangents", _lin_call, _lin_ref, tol=1e-10))


# -- vmap of per-example gradients -------------------------------------------------------

def huber_td(w, phi, target):
    r = target - phi @ w
    a = abs(r)
    return 0.5 * r * r if a < 1.0 else a - 0.5


PHIS = _rng.normal(size=(6, 3))
TGTS = np.array([0.1, 2.5, -0.4, 1.1, -3.0, 0.0])
W3 = np.array([0.3, 0.1, -0.2])


def _per_ex():
    return np.stack([fd_checked(huber_td, (W3, p, t))[0] for p, t in zip(PHIS, TGTS)])


add(pair("r19l_vmap_grad_in_axes_none_0_0",
         lambda: revsrc.vmap(revsrc.grad(huber_td), in_axes=(None, 0, 0))(W3, PHIS, TGTS),
         _per_ex, tol=1e-8))


def pinball_scalar(q, y, tau):
    r = y - q
    return max(tau * r, (tau - 1.0) * r)


add(pair("r19l_vmap_grad_scalar_pinball_over_y",
         lambda: revsrc.vmap(revsrc.grad(pinball_scalar), in_axes=(None, 0, None))(0.3, TGTS, 0.7),
         lambda: np.where(TGTS - 0.3 > 0, -0.7, 0.3), tol=1e-14))


def fresnel_R(theta, n2):
    ci = math.cos(theta)
    st = math.sin(theta) / n2
    ct = math.sqrt(1.0 - st * st)
    rs = (ci - n2 * ct) / (ci + n2 * ct)
    rp = (n2 * ci - ct) / (n2 * ci + ct)
    return 0.5 * (rs * rs + rp * rp)


THETAS = np.linspace(0.0, 1.4, 8)
add(pair("r19l_vmap_value_and_grad_fresnel",
         lambda: revsrc.vmap(revsrc.value_and_grad(fresnel_R))(THETAS, np.full(8, 1.5)),
         lambda: (np.array([fresnel_R(t, 1.5) for t in THETAS]),
                  np.array([fd_checked(fresnel_R, (t, 1.5))[0] for t in THETAS])), tol=1e-8))
add(pair("r19l_vmap_fresnel_engine_exact",
         lambda: revsrc.vmap(fresnel_R, in_axes=(0, None))(THETAS, 1.5),
         lambda: np.array([fresnel_R(t, 1.5) for t in THETAS]), tol=0.0))


# -- jit of scalar loops and grad of jit --------------------------------------------------

def soft_value_chain(r, gamma=0.9, temp=0.3, n=25):
    v = 0.0
    for _ in range(n):
        a = r + gamma * v
        b = 0.5 * r + gamma * v
        m = max(a, b)
        v = m + temp * math.log(math.exp((a - m) / temp) + math.exp((b - m) / temp))
    return v


add(pair("r19l_jit_scalar_soft_bellman_exact", lambda: revsrc.jit(soft_value_chain)(0.7),
         lambda: soft_value_chain(0.7), tol=0.0))
add(G("r19l_grad_of_jit_soft_bellman", revsrc.jit(soft_value_chain), (0.7,),
      ref=lambda: fd_checked(soft_value_chain, (0.7,))[0], tol=1e-8))
add(pair("r19l_jit_of_grad_soft_bellman", lambda: revsrc.jit(revsrc.grad(soft_value_chain))(0.7),
         lambda: fd_checked(soft_value_chain, (0.7,))[0], tol=1e-8))
add(pair("r19l_grad_grad_soft_bellman", lambda: revsrc.grad(revsrc.grad(soft_value_chain))(0.7),
         lambda: (fd_checked(soft_value_chain, (0.7 + 1e-4,))[0]
                  - fd_checked(soft_value_chain, (0.7 - 1e-4,))[0]) / 2e-4, tol=1e-5))


def stopping_time_bisection(c, tol=1e-10):
    lo, hi = 0.0, 2.0
    while hi - lo > tol:
        mid = 0.5 * (lo + hi)
        if mid * mid * mid + mid - c > 0:
            hi = mid
        else:
            lo = mid
    # one Newton step makes the result differentiable in c
    x = 0.5 * (lo + hi)
    return x - (x ** 3 + x - c) / (3 * x * x + 1)


add(pair("r19l_jit_while_bisection_exact", lambda: revsrc.jit(stopping_time_bisection)(1.3),
         lambda: stopping_time_bisection(1.3), tol=0.0))


# -- has_aux with a pytree aux ------------------------------------------------------------

def td_loss_with_metrics(w, phi, phi2, r, gamma=0.9):
    d = r + gamma * phi2 @ w - phi @ w
    loss = 0.5 * np.mean(d * d)
    return loss, {"max_abs_td": np.max(np.abs(d)), "n": len(d)}


PH2 = _rng.normal(size=(6, 3))


def _vg_aux_ref():
    d = TGTS + 0.9 * PH2 @ W3 - PHIS @ W3
    g = (d[:, None] * (0.9 * PH2 - PHIS)).mean(axis=0)
    return ((0.5 * np.mean(d * d), {"max_abs_td": np.max(np.abs(d)), "n": 6}), g)


add(pair("r19l_value_and_grad_has_aux_dict",
         lambda: revsrc.value_and_grad(td_loss_with_metrics, has_aux=True)(W3, PHIS, PH2, TGTS),
         _vg_aux_ref, tol=1e-12))


# -- edge values ------------------------------------------------------------------------

def discounted_return(r, gamma):
    G_ = 0.0
    for x in reversed(r):
        G_ = x + gamma * G_
    return G_


add(pair("r19l_empty_rewards_grad_gamma",
         lambda: revsrc.grad(discounted_return, argnums=1)(np.zeros(0), 0.9), lambda: 0.0, tol=0.0))
add(pair("r19l_empty_rewards_grad_r",
         lambda: revsrc.grad(discounted_return)(np.zeros(0), 0.9), lambda: np.zeros(0), tol=0.0))
add(pair("r19l_zero_d_array_gamma",
         lambda: revsrc.grad(discounted_return, argnums=1)(np.array([1.0, 2.0, 3.0]), np.array(0.5)),
         lambda: np.array(2.0 + 2 * 3.0 * 0.5), tol=1e-14))
add(pair("r19l_float32_rewards",
         lambda: revsrc.grad(discounted_return)(np.array([1.0, 2.0, 3.0], np.float32), 0.5),
         lambda: np.array([1.0, 0.5, 0.25], np.float32), tol=1e-6))
add(pair("r19l_float32_rewards_dtype",
         lambda: str(revsrc.grad(discounted_return)(np.array([1.0, 2.0, 3.0], np.float32), 0.5).dtype),
         lambda: "float32", tol=0.0))
add(pair("r19l_int_rewards_refused",
         lambda: revsrc.grad(discounted_return)(np.array([1, 2, 3]), 0.5), lambda: None))
add(pair("r19l_int_rewards_wrt_gamma",
         lambda: revsrc.grad(discounted_return, argnums=1)(np.array([1, 2, 3]), 0.5),
         lambda: 2.0 + 2 * 3 * 0.5, tol=1e-14))
add(pair("r19l_nan_reward_propagates",
         lambda: revsrc.grad(discounted_return, argnums=1)(np.array([1.0, np.nan, 3.0]), 0.5),
         lambda: float("nan"), tol=0.0))


def log_survival_weibull(t, k, lam):
    return -(t / lam) ** k


add(pair("r19l_inf_time_weibull_grad_k",
         lambda: revsrc.grad(log_survival_weibull, argnums=1)(0.0, 1.5, 2.0),
         lambda: 0.0, tol=0.0))
add(pair("r19l_hessian_0d_array_argnums",
         lambda: revsrc.hessian(log_survival_weibull, argnums=(1, 2))(3.0, np.array(1.5), np.array(2.0)),
         lambda: jax().hessian(jaxify(log_survival_weibull), argnums=(1, 2))(3.0, np.array(1.5),
                                                                             np.array(2.0)),
         tol=1e-12))
add(pair("r19l_hessian_policy_backend_jax_vs_default",
         lambda: revsrc.grad(critic_loss, backend="jax")(P_CR, S_B, TG),
         lambda: jax().grad(jaxify(critic_loss))(P_CR, S_B, TG), tol=1e-12))
add(G("r19l_soft_bellman_backend_jax", soft_value_chain, (0.7,), ref="fd", tol=1e-8,
      backend="jax"))
add(pair("r19l_hvp_wrong_tangent_shape_refused",
         lambda: revsrc.hvp(critic_loss, (P_CR, S_B, TG),
                            ({"W": np.ones(3), "b": np.ones(4), "v": np.ones(4)}, None, None)),
         lambda: None))
add(pair("r19l_hvp_tangent_dict_missing_keys_refused",
         lambda: revsrc.hvp(critic_loss, (P_CR, S_B, TG), ({"W": np.ones(3)}, None, None)),
         lambda: None))
add(pair("r19l_jvp_tangent_dict_missing_keys_refused",
         lambda: revsrc.jvp(critic_loss, (P_CR, S_B, TG),
                            ({"W": np.ones((3, 4))}, np.zeros_like(S_B), np.zeros_like(TG))),
         lambda: None))
add(pair("r19l_vmap_grad_mismatched_sizes_refused",
         lambda: revsrc.vmap(revsrc.grad(huber_td), in_axes=(None, 0, 0))(W3, PHIS, TGTS[:4]),
         lambda: None))
