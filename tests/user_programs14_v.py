"""Round 14, part v: user rules and containers -- revsrc.defvjp (a straight-through
estimator, a clipped gradient, a stable softplus), nondiff, stop_gradient, a registered
pytree class with methods; each rule must be used by every transformation that runs it."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def ste_round(x):
    return np.round(x)


@revsrc.defvjp(ste_round, broadcast=True)
def _ste_rule(g, ans, x):
    return g          # straight-through: pretend d round(x)/dx = 1


def quant_loss(w, x):
    q = ste_round(w * 4.0) / 4.0
    return np.sum((q * x - 1.0) ** 2)


W3 = np.array([0.31, -0.62, 0.9])
X3 = np.array([1.0, 2.0, -1.0])


def _ste_grad(w, x):
    q = np.round(w * 4.0) / 4.0
    return 2 * (q * x - 1.0) * x


add(pair("r14_v_ste_grad", lambda: revsrc.grad(quant_loss)(W3, X3), lambda: _ste_grad(W3, X3), tol=1e-14))
add(pair("r14_v_ste_value_and_grad", lambda: revsrc.value_and_grad(quant_loss)(W3, X3), lambda: (quant_loss(W3, X3), _ste_grad(W3, X3)), tol=1e-14))
add(pair("r14_v_ste_jacrev", lambda: revsrc.jacrev(lambda w: ste_round(w * 4.0))(W3), lambda: 4.0 * np.eye(3), tol=1e-14))
add(pair("r14_v_ste_vmap_grad", lambda: revsrc.vmap(revsrc.grad(quant_loss), in_axes=(0, None))(np.stack([W3, W3 * 2]), X3),
         lambda: np.stack([_ste_grad(W3, X3), _ste_grad(W3 * 2, X3)]), tol=1e-14))
add(pair("r14_v_ste_jax_backend", lambda: revsrc.grad(quant_loss, backend="jax")(W3, X3), lambda: _ste_grad(W3, X3), tol=1e-14))


def _ste_jvp():
    return revsrc.jvp(lambda w: ste_round(w * 4.0), (W3,), (np.ones(3),))


# a forward-mode derivative through a VJP rule: the rule's transpose (4 * t), as jacrev
# gives, or a refusal; never the round's own zero derivative
add(pair("r14_v_ste_jvp_uses_rule", lambda: _ste_jvp()[1], lambda: 4.0 * np.ones(3), tol=1e-14))
add(pair("r14_v_ste_jacfwd_uses_rule", lambda: revsrc.jacfwd(lambda w: ste_round(w * 4.0))(W3), lambda: 4.0 * np.eye(3), tol=1e-14))


def clip_grad_id(x):
    return x


@revsrc.defvjp(clip_grad_id)
def _clip_rule(g, ans, x):
    return np.clip(g, -1.0, 1.0)


def clipped_loss(x):
    return np.sum(clip_grad_id(x) ** 3)


XC = np.array([0.2, -1.5, 0.9])
add(pair("r14_v_gradient_clipping_rule", lambda: revsrc.grad(clipped_loss)(XC), lambda: np.clip(3 * XC ** 2, -1, 1), tol=1e-14))
add(pair("r14_v_gradient_clipping_rule_hvp", lambda: revsrc.hessian(clipped_loss)(XC),
         lambda: fdj(lambda x: np.clip(3 * x ** 2, -1, 1), XC), tol=1e-7))


def softplus(x):
    return np.log1p(np.exp(x))


@revsrc.defvjp(softplus, broadcast=True)
def _softplus_rule(g, ans, x):
    return g / (1.0 + np.exp(-x))


def sp_loss(x, b):
    return np.sum(softplus(x + b))


XS = np.array([-2.0, 0.0, 3.0])
add(pair("r14_v_softplus_rule_broadcast_scalar_arg", lambda: revsrc.grad(sp_loss, argnums=(0, 1))(XS, 0.5),
         lambda: (1 / (1 + np.exp(-(XS + 0.5))), np.sum(1 / (1 + np.exp(-(XS + 0.5))))), tol=1e-14))
add(pair("r14_v_softplus_rule_hessian", lambda: revsrc.hessian(sp_loss)(XS, 0.5),
         lambda: np.diag(np.exp(-(XS + 0.5)) / (1 + np.exp(-(XS + 0.5))) ** 2), tol=1e-12))


def count_above(x, t):
    return float(np.sum(x > t))


revsrc.nondiff(count_above)


def nd_loss(x):
    return count_above(x, 0.0) * np.sum(x ** 2)


add(pair("r14_v_nondiff_helper", lambda: revsrc.grad(nd_loss)(XC), lambda: 2.0 * 2 * XC, tol=1e-14))


def sg_loss(x):
    m = revsrc.stop_gradient(np.mean(x))
    return np.sum((x - m) ** 2)


add(pair("r14_v_stop_gradient_mean", lambda: revsrc.grad(sg_loss)(XC), lambda: 2 * (XC - np.mean(XC)), tol=1e-14))
add(pair("r14_v_stop_gradient_hessian", lambda: revsrc.hessian(sg_loss)(XC), lambda: 2 * np.eye(3), tol=1e-14))
add(pair("r14_v_stop_gradient_jvp", lambda: revsrc.jvp(sg_loss, (XC,), (np.ones(3),))[1], lambda: np.sum(2 * (XC - np.mean(XC))), tol=1e-14))


class Layer:
    def __init__(self, W, b, act="tanh"):
        self.W, self.b, self.act = W, b, act

    def __call__(self, x):
        z = self.W @ x + self.b
        return np.tanh(z) if self.act == "tanh" else np.maximum(z, 0.0)


revsrc.register_pytree(Layer, lambda l: ((l.W, l.b), l.act), lambda aux, ch: Layer(ch[0], ch[1], aux))


def two_layers(layers, x):
    h = x
    for l in layers:
        h = l(h)
    return np.sum(h ** 2)


RNG = np.random.default_rng(3)
LAYERS = [Layer(RNG.normal(size=(3, 3)), RNG.normal(size=3)), Layer(RNG.normal(size=(2, 3)), RNG.normal(size=2), "relu")]


def _layers_ref():
    def f(W1, b1, W2, b2):
        h = np.tanh(W1 @ X3 + b1)
        return np.sum(np.maximum(W2 @ h + b2, 0.0) ** 2)
    return fd_checked(f, (LAYERS[0].W, LAYERS[0].b, LAYERS[1].W, LAYERS[1].b), argnums=(0, 1, 2, 3))


def _layers_got():
    g = revsrc.grad(two_layers)(LAYERS, X3)
    return (g[0].W, g[0].b, g[1].W, g[1].b)


add(pair("r14_v_registered_pytree_callable_layers", _layers_got, _layers_ref, tol=1e-7))
add(pair("r14_v_registered_pytree_aux_kept", lambda: [l.act for l in revsrc.grad(two_layers)(LAYERS, X3)], lambda: ["tanh", "relu"], tol=0.0))
add(pair("r14_v_tree_map_sgd_step", lambda: revsrc.tree_leaves(revsrc.tree_map(lambda p, g: p - 0.1 * g, LAYERS, revsrc.grad(two_layers)(LAYERS, X3))),
         lambda: [p - 0.1 * g for p, g in zip([LAYERS[0].W, LAYERS[0].b, LAYERS[1].W, LAYERS[1].b], _layers_ref())], tol=1e-7))
