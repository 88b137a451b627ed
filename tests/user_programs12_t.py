"""Round 12, part t: API corners as users reach them -- argnums forms, has_aux with jit and
vmap, vmap in_axes/out_axes/axis_size, jacrev/jacfwd of tuple and dict outputs, stop_gradient
straight-through estimators, defvjp rules under second derivatives, nondiff helpers."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked, ag, agify  # noqa: F401
from user_programs12_util import fdj

CASES = []
add = CASES.append


def f3(a, b, c):
    return a * b * b + math.sin(c) * a


add(pair("r12_argnums_negative", lambda: revsrc.grad(f3, argnums=-1)(1.0, 2.0, 0.5), lambda: math.cos(0.5), tol=1e-15))
add(pair("r12_argnums_unordered_tuple", lambda: revsrc.grad(f3, argnums=(2, 0))(1.0, 2.0, 0.5),
         lambda: (math.cos(0.5), 4.0 + math.sin(0.5)), tol=1e-15))
add(pair("r12_argnums_single_tuple", lambda: revsrc.grad(f3, argnums=(1,))(1.0, 2.0, 0.5), lambda: (4.0,), tol=0.0))


def with_aux(x):
    y = x * x
    return y, {"half": 0.5 * y, "n": 3}


add(pair("r12_has_aux_grad", lambda: revsrc.grad(with_aux, has_aux=True)(3.0), lambda: (6.0, {"half": 4.5, "n": 3}), tol=0.0))
add(pair("r12_vmap_has_aux_grad", lambda: revsrc.vmap(revsrc.grad(lambda x: (x ** 3, x), has_aux=True))(np.array([1.0, 2.0])),
         lambda: (np.array([3.0, 12.0]), np.array([1.0, 2.0])), tol=0.0))


def colsum_sq(x, w):
    return np.sum(w * x ** 2)


XM = np.arange(6.0).reshape(3, 2)
add(pair("r12_vmap_in_axes_1", lambda: revsrc.vmap(revsrc.grad(colsum_sq), in_axes=(1, None))(XM, np.array([1.0, 2.0, 3.0])),
         lambda: np.stack([2 * np.array([1.0, 2.0, 3.0]) * XM[:, j] for j in range(2)]), tol=0.0))
add(pair("r12_vmap_out_axes_1", lambda: revsrc.vmap(lambda x: x * 2.0, in_axes=0, out_axes=1)(XM), lambda: (XM * 2.0).T, tol=0.0))
add(pair("r12_vmap_axis_size_no_mapped_input", lambda: revsrc.vmap(lambda w: w * 2.0, in_axes=None, axis_size=3)(1.5),
         lambda: np.array([3.0, 3.0, 3.0]), tol=0.0))
add(pair("r12_vmap_dict_input", lambda: revsrc.vmap(lambda p: p["a"] * p["b"])({"a": np.array([1.0, 2.0]), "b": np.array([3.0, 4.0])}),
         lambda: np.array([3.0, 8.0]), tol=0.0))


def two_outputs(x):
    return np.sin(x), np.sum(x ** 2)


XV = np.array([0.3, -0.4])
add(pair("r12_jacrev_tuple_output", lambda: revsrc.jacrev(two_outputs)(XV), lambda: (np.diag(np.cos(XV)), 2 * XV), tol=1e-15))
add(pair("r12_jacfwd_tuple_output", lambda: revsrc.jacfwd(two_outputs)(XV), lambda: (np.diag(np.cos(XV)), 2 * XV), tol=1e-15))


def dict_output(x):
    return {"p": x[0] * x[1], "q": np.exp(x)}


add(pair("r12_jacrev_dict_output", lambda: revsrc.jacrev(dict_output)(XV),
         lambda: {"p": np.array([XV[1], XV[0]]), "q": np.diag(np.exp(XV))}, tol=1e-15))
add(pair("r12_jacfwd_dict_output", lambda: revsrc.jacfwd(dict_output)(XV),
         lambda: {"p": np.array([XV[1], XV[0]]), "q": np.diag(np.exp(XV))}, tol=1e-15))


def ste_round(x):
    # straight-through estimator: forward rounds, backward is the identity
    return x + revsrc.stop_gradient(np.round(x) - x)


def ste_loss(x):
    return np.sum(ste_round(x) ** 2)


XS = np.array([0.4, 1.6, -2.3])
add(pair("r12_stop_gradient_straight_through", lambda: revsrc.grad(ste_loss)(XS), lambda: 2 * np.round(XS), tol=0.0))
add(pair("r12_stop_gradient_value", lambda: revsrc.value_and_grad(ste_loss)(XS)[0], lambda: float(np.sum(np.round(XS) ** 2)), tol=0.0))
# the gradient 2 (x + sg(round(x) - x)) has derivative 2 I (JAX: the same)
add(pair("r12_stop_gradient_hessian", lambda: revsrc.hessian(ste_loss)(XS), lambda: 2 * np.eye(3), tol=0.0))


def softplus(x):
    return np.log1p(np.exp(x))


@revsrc.defvjp(softplus, broadcast=True)
def _softplus_rule(g, ans, x):
    return g / (1.0 + np.exp(-x))


def sp_loss(x):
    return np.sum(softplus(x) ** 2)


add(pair("r12_defvjp_rule_grad", lambda: revsrc.grad(sp_loss)(XS),
         lambda: 2 * softplus(XS) / (1 + np.exp(-XS)), tol=1e-14))
add(pair("r12_defvjp_rule_hessian_diag", lambda: np.diag(revsrc.hessian(sp_loss)(XS)),
         lambda: (lambda s: 2 * s * s + 2 * softplus(XS) * s * (1 - s))(1 / (1 + np.exp(-XS))), tol=1e-12))
add(pair("r12_defvjp_rule_vmap_grad", lambda: revsrc.vmap(revsrc.grad(lambda x: softplus(x) * x))(XS),
         lambda: softplus(XS) + XS / (1 + np.exp(-XS)), tol=1e-14))
add(pair("r12_defvjp_rule_jvp", lambda: revsrc.jvp(sp_loss, (XS,), (np.ones(3),)),
         lambda: (sp_loss(XS), float(np.sum(2 * softplus(XS) / (1 + np.exp(-XS))))), tol=1e-14))


def table_lookup(i):
    return [0.0, 1.0, 4.0, 9.0][int(i)]


revsrc.nondiff(table_lookup)


def uses_nondiff(x):
    return x * table_lookup(2.7) + x * x


add(pair("r12_nondiff_helper", lambda: revsrc.grad(uses_nondiff)(1.5), lambda: 4.0 + 3.0, tol=0.0))


def hess_two_arrays(a, b):
    return np.sum(a * a * b) + np.sum(np.sin(b))


AA = np.array([1.0, 2.0])
BB = np.array([0.3, -0.2])
add(pair("r12_hessian_argnums_blocks", lambda: revsrc.hessian(hess_two_arrays, argnums=(0, 1))(AA, BB),
         lambda: ((np.diag(2 * BB), np.diag(2 * AA)), (np.diag(2 * AA), np.diag(-np.sin(BB)))), tol=1e-15))


def linearize_then_jit():
    y, lin = revsrc.linearize(lambda x: x ** 3 * 2.0, 1.5)
    return [y, lin(1.0), lin(2.0)]


add(pair("r12_linearize_scalar_reuse", linearize_then_jit, lambda: [6.75, 13.5, 27.0], tol=0.0))


def vjp_tuple_primals():
    out, pull = revsrc.vjp(lambda a, b: (a * b, a + b), 2.0, 3.0)
    return [out, pull((1.0, 0.0)), pull((0.0, 1.0))]


add(pair("r12_vjp_tuple_output_two_primals", vjp_tuple_primals, lambda: [(6.0, 5.0), (3.0, 2.0), (1.0, 1.0)], tol=0.0))


def check_grads_helper():
    import revsrc.testing
    revsrc.testing.check_grads(lambda x: np.sum(np.tanh(x) ** 2), (XS,))
    return True


add(pair("r12_testing_check_grads", check_grads_helper, lambda: True, tol=0.0))


def jvp_int_tangent():
    return revsrc.jvp(lambda x: x * x, (3.0,), (1,))


add(pair("r12_jvp_int_tangent", jvp_int_tangent, lambda: (9.0, 6.0), tol=0.0))


def kwargs_passed_through(x, *, scale=1.0, shift=0.0):
    return scale * (x - shift) ** 2


add(pair("r12_keyword_only_args", lambda: revsrc.grad(kwargs_passed_through)(2.0, scale=3.0, shift=0.5), lambda: 9.0, tol=0.0))
add(pair("r12_jit_keyword_only_args", lambda: revsrc.jit(kwargs_passed_through)(2.0, scale=3.0, shift=0.5), lambda: 6.75, tol=0.0))
