"""Round 20, part l: higher-order derivatives and compositions -- hessian of pytrees (dicts
and tuples of arrays), jacfwd(jacrev), vmap(grad) with in_axes of None and 0, jit of
scalar loops and of derivatives, hvp, value_and_grad with has_aux, linearize, vjp,
backend="jax", and misuse and edge values (0-d arrays, empty arrays, float32, ints,
nan and inf, argnums past the parameters, wrong tangent shapes) on small physics and
ML programs."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2012)


# -- hessian of pytrees ----------------------------------------------------------------------

def two_layer_loss(params, X, y):
    h = np.tanh(X @ params["W"] + params["b"])
    out = h @ params["v"]
    return 0.5 * np.mean((out - y) ** 2) + 1e-3 * sum(np.sum(p * p) for p in params.values())


PTREE = {"W": 0.4 * _rng.normal(size=(2, 3)), "b": 0.1 * _rng.normal(size=3), "v": 0.5 * _rng.normal(size=3)}
XT = _rng.normal(size=(5, 2))
YT = np.cos(XT[:, 0]) - XT[:, 1]
_SL = {"W": (slice(0, 6), (2, 3)), "b": (slice(6, 9), (3,)), "v": (slice(9, 12), (3,))}


def _two_layer_hess_ref():
    def flat_loss(u):
        return agify(two_layer_loss)({k: u[s].reshape(sh) for k, (s, sh) in _SL.items()}, XT, YT)
    u = np.concatenate([PTREE[k].ravel() for k in ("W", "b", "v")])
    Hf = ag()[0].hessian(flat_loss)(u)
    return {a: {b: Hf[sa, sb].reshape(sha + shb) for b, (sb, shb) in _SL.items()} for a, (sa, sha) in _SL.items()}


add(pair("r20l_hessian_dict_of_arrays_vs_autograd", lambda: revsrc.hessian(two_layer_loss)(PTREE, XT, YT),
         _two_layer_hess_ref, tol=1e-9))


def pendulum_energy(state):
    # a tuple of (angles, velocities) of a double pendulum
    th, om = state
    m1, m2, l1, l2, g = 1.0, 0.7, 1.0, 0.8, 9.81
    T = 0.5 * (m1 + m2) * l1 ** 2 * om[0] ** 2 + 0.5 * m2 * l2 ** 2 * om[1] ** 2 \
        + m2 * l1 * l2 * om[0] * om[1] * np.cos(th[0] - th[1])
    V = -(m1 + m2) * g * l1 * np.cos(th[0]) - m2 * g * l2 * np.cos(th[1])
    return T + V


ST = (np.array([0.3, -0.5]), np.array([1.0, 0.4]))
add(pair("r20l_hessian_tuple_state_mass_matrix", lambda: revsrc.hessian(pendulum_energy)(ST)[1][1],
         lambda: np.array([[1.7, 0.7 * 0.8 * math.cos(0.8)], [0.7 * 0.8 * math.cos(0.8), 0.7 * 0.64]]), tol=1e-12))
def _pend_hess_ref():
    Hf = ag()[0].hessian(lambda u: agify(pendulum_energy)((u[:2], u[2:])))(np.concatenate(ST))
    return ((Hf[:2, :2], Hf[:2, 2:]), (Hf[2:, :2], Hf[2:, 2:]))


add(pair("r20l_hessian_tuple_state_vs_autograd", lambda: revsrc.hessian(pendulum_energy)(ST), _pend_hess_ref, tol=1e-11))


def lagrangian_accel(th, om):
    # Euler-Lagrange: M(q) qdd = dL/dq - (d/dq dL/dqd) qd, via hessian blocks of the Lagrangian
    def L(q, qd):
        return pendulum_energy((q, qd)) - 2 * (pendulum_energy((q, np.zeros(2))) - 0.0) * 0.0
    M = revsrc.hessian(L, argnums=1)(th, om)
    return M


add(pair("r20l_hessian_argnums1_inside_closure_def", lambda: lagrangian_accel(ST[0], ST[1]),
         lambda: np.array([[1.7, 0.7 * 0.8 * math.cos(0.8)], [0.7 * 0.8 * math.cos(0.8), 0.7 * 0.64]]), tol=1e-12))


# -- jacfwd(jacrev), jacrev(jacfwd) -----------------------------------------------------------

def gravity_potential(x, masses=(1.0, 2.0, 0.5), centres=((0.0, 0.0, 0.0), (1.0, 0.5, 0.0), (-0.5, 1.0, 0.3))):
    phi = 0.0
    for m, c in zip(masses, centres):
        d = x - np.array(c)
        phi -= m / np.sqrt(d @ d + 0.01)
    return phi


XG = np.array([0.4, -0.3, 0.8])
add(pair("r20l_jacfwd_of_jacrev_tidal_tensor", lambda: revsrc.jacfwd(revsrc.jacrev(gravity_potential))(XG),
         lambda: jax().hessian(jaxify(gravity_potential))(XG), tol=1e-10))
add(pair("r20l_jacrev_of_jacfwd_tidal_tensor", lambda: revsrc.jacrev(revsrc.jacfwd(gravity_potential))(XG),
         lambda: jax().hessian(jaxify(gravity_potential))(XG), tol=1e-10))
add(pair("r20l_laplacian_trace_of_hessian", lambda: np.trace(revsrc.hessian(gravity_potential)(XG)),
         lambda: float(np.trace(jax().hessian(jaxify(gravity_potential))(XG))), tol=1e-10))


def softmax_jac_target(z):
    e = np.exp(z - np.max(z))
    return e / np.sum(e)


Z5 = np.array([0.3, -1.0, 2.0, 0.5, 0.0])
add(pair("r20l_jacfwd_jacrev_vector_output_third_order", lambda: revsrc.jacfwd(revsrc.jacrev(softmax_jac_target))(Z5),
         lambda: ag()[0].jacobian(ag()[0].jacobian(agify(softmax_jac_target)))(Z5), tol=1e-11))


# -- vmap(grad) with in_axes ---------------------------------------------------------------

def per_example_logistic(w, x, y):
    z = x @ w
    return np.logaddexp(0.0, z) - y * z


XE = _rng.normal(size=(6, 3))
YE = (XE[:, 0] > 0).astype(float)
W3 = np.array([0.2, -0.4, 0.1])


def _per_example_ref():
    j = jax()
    return j.vmap(j.grad(jaxify(per_example_logistic)), in_axes=(None, 0, 0))(W3, XE, YE)


add(pair("r20l_vmap_grad_per_example_in_axes_none_0_0",
         lambda: revsrc.vmap(revsrc.grad(per_example_logistic), in_axes=(None, 0, 0))(W3, XE, YE),
         _per_example_ref, tol=1e-12))
add(pair("r20l_vmap_grad_per_example_wrt_x",
         lambda: revsrc.vmap(revsrc.grad(per_example_logistic, argnums=1), in_axes=(None, 0, 0))(W3, XE, YE),
         lambda: jax().vmap(jax().grad(jaxify(per_example_logistic), argnums=1), in_axes=(None, 0, 0))(W3, XE, YE),
         tol=1e-12))


def spring_force(k, x, rest=1.0):
    return 0.5 * k * (x - rest) ** 2 + 0.1 * k * (x - rest) ** 4


add(pair("r20l_vmap_value_and_grad_scalar_in_axes_0_none",
         lambda: revsrc.vmap(revsrc.value_and_grad(spring_force, argnums=1), in_axes=(0, None))(np.array([1.0, 2.0, 3.0]), 1.4),
         lambda: (np.array([spring_force(k, 1.4) for k in (1.0, 2.0, 3.0)]),
                  np.array([k * 0.4 + 0.4 * k * 0.4 ** 3 for k in (1.0, 2.0, 3.0)])), tol=1e-12))
add(pair("r20l_vmap_grad_grad_curvature",
         lambda: revsrc.vmap(revsrc.grad(revsrc.grad(spring_force, argnums=1), argnums=1), in_axes=(None, 0))(2.0, np.array([0.5, 1.0, 1.5])),
         lambda: np.array([2.0 + 1.2 * 2.0 * (x - 1.0) ** 2 for x in (0.5, 1.0, 1.5)]), tol=1e-12))


def pytree_in_axes_loss(p, x):
    return p["a"] * math.sin(x) + p["b"] * x * x


add(pair("r20l_vmap_in_axes_dict_pytree",
         lambda: revsrc.vmap(revsrc.grad(pytree_in_axes_loss, argnums=1), in_axes=({"a": 0, "b": None}, 0))(
             {"a": np.array([1.0, 2.0]), "b": 0.5}, np.array([0.3, 0.7])),
         lambda: np.array([a * math.cos(x) + 2 * 0.5 * x for a, x in ((1.0, 0.3), (2.0, 0.7))]), tol=1e-12))


# -- jit ------------------------------------------------------------------------------------

def logistic_map_lyapunov(r, n=200, x0=0.3):
    x = x0
    acc = 0.0
    for _ in range(n):
        x = r * x * (1.0 - x)
        acc += math.log(abs(r * (1.0 - 2.0 * x)))
    return acc / n


add(pair("r20l_jit_scalar_loop_same_digits", lambda: revsrc.jit(logistic_map_lyapunov)(3.3),
         lambda: logistic_map_lyapunov(3.3), tol=0.0))
add(pair("r20l_jit_of_grad_scalar_loop", lambda: revsrc.jit(revsrc.grad(logistic_map_lyapunov))(3.3),
         lambda: ag()[0].grad(agify(logistic_map_lyapunov))(3.3), tol=1e-10))


def newton_root_with_inner_grad(c):
    f = lambda x: x ** 3 - c * x - 1.0  # noqa: E731
    df = revsrc.grad(f)
    x = 1.5
    for _ in range(30):
        x = x - f(x) / df(x)
    return x


def _root_ref(c):
    x = newton_root_with_inner_grad(c)
    return x / (3 * x * x - c)   # implicit: dx/dc = x / f'(x)


add(pair("r20l_grad_of_newton_with_inner_grad_of_lambda", lambda: revsrc.grad(newton_root_with_inner_grad)(2.0),
         lambda: _root_ref(2.0), tol=1e-10))
add(pair("r20l_jit_newton_with_inner_grad", lambda: revsrc.jit(newton_root_with_inner_grad)(2.0),
         lambda: newton_root_with_inner_grad(2.0), tol=0.0))


def loss_with_aux(w, X, y):
    r = X @ w - y
    mse = np.mean(r * r)
    return mse, {"max_abs": np.max(np.abs(r)), "n": len(y)}


add(pair("r20l_value_and_grad_has_aux_dict", lambda: revsrc.value_and_grad(loss_with_aux, has_aux=True)(W3, XE, YE),
         lambda: jax().value_and_grad(jaxify(loss_with_aux), has_aux=True)(W3, XE, YE), tol=1e-12))
add(pair("r20l_hvp_of_has_aux_free_loss", lambda: revsrc.hvp(lambda w: loss_with_aux(w, XE, YE)[0], (W3,), (np.ones(3),)),
         lambda: 2 * XE.T @ (XE @ np.ones(3)) / 6, tol=1e-12))


def linearize_then_apply():
    y, f_jvp = revsrc.linearize(gravity_potential, XG)
    return y, f_jvp(np.array([1.0, 0.0, 0.0])), f_jvp(np.array([0.0, 2.0, -1.0]))


def _linearize_ref():
    j = jax()
    y, t1 = j.jvp(jaxify(gravity_potential), (XG,), (np.array([1.0, 0.0, 0.0]),))
    _, t2 = j.jvp(jaxify(gravity_potential), (XG,), (np.array([0.0, 2.0, -1.0]),))
    return y, t1, t2


add(pair("r20l_linearize_two_tangents", linearize_then_apply, _linearize_ref, tol=1e-12))


def vjp_dict_output():
    out, pull = revsrc.vjp(lambda p: {"e": pendulum_energy(p), "th_sum": np.sum(p[0])}, ST)
    return out, pull({"e": 1.0, "th_sum": 2.0})


def _vjp_dict_ref():
    j = jax()
    out, pull = j.vjp(lambda p: {"e": jaxify(pendulum_energy)(p), "th_sum": j.numpy.sum(p[0])}, ST)
    return out, pull({"e": 1.0, "th_sum": 2.0})


add(pair("r20l_vjp_dict_output_tuple_input", vjp_dict_output, _vjp_dict_ref, tol=1e-12))


# -- backend="jax" ------------------------------------------------------------------------------
add(pair("r20l_hessian_dict_backend_jax", lambda: revsrc.hessian(two_layer_loss, backend="jax")(PTREE, XT, YT),
         _two_layer_hess_ref, tol=1e-9))
add(pair("r20l_jacrev_backend_jax_softmax", lambda: revsrc.jacrev(softmax_jac_target, backend="jax")(Z5),
         lambda: jax().jacrev(jaxify(softmax_jac_target))(Z5), tol=1e-12))
add(G("r20l_grad_gravity_backend_jax_zip_tuples", gravity_potential, (XG,), ref="jax", tol=1e-12, backend="jax"))


def damped_oscillator_energy(params, steps=50, dt=0.05):
    k, c = params[0], params[1]
    x, v = 1.0, 0.0
    for _ in range(steps):
        a = -k * x - c * v
        v = v + dt * a
        x = x + dt * v
    return 0.5 * v * v + 0.5 * k * x * x


add(G("r20l_scan_loop_backend_jax", damped_oscillator_energy, (np.array([2.0, 0.3]),), ref="ag", tol=1e-11,
      backend="jax"))
add(pair("r20l_hessian_scan_loop_backend_jax", lambda: revsrc.hessian(damped_oscillator_energy, backend="jax")(np.array([2.0, 0.3])),
         lambda: ag()[0].hessian(agify(damped_oscillator_energy))(np.array([2.0, 0.3])), tol=1e-9))


# -- edge values and misuse ------------------------------------------------------------------

def rms(x):
    return np.sqrt(np.mean(x * x))


add(pair("r20l_zero_d_array_argument", lambda: revsrc.grad(lambda x: np.sin(x) * x)(np.array(0.7)),
         lambda: math.cos(0.7) * 0.7 + math.sin(0.7), tol=1e-14))
add(pair("r20l_zero_d_array_gradient_type_shape", lambda: np.shape(revsrc.grad(lambda x: np.sin(x) * x)(np.array(0.7))),
         lambda: (), tol=0.0))
add(pair("r20l_float32_input_dtype_kept", lambda: revsrc.grad(rms)(np.array([1.0, 2.0, 2.0], dtype=np.float32)).dtype == np.float32,
         lambda: True, tol=0.0))
add(pair("r20l_float32_input_values", lambda: revsrc.grad(rms)(np.array([1.0, 2.0, 2.0], dtype=np.float32)),
         lambda: np.array([1.0, 2.0, 2.0]) / (3 * math.sqrt(3.0)), tol=1e-6))


def sum_sq_empty(x):
    return np.sum(x ** 2) + 1.0


add(pair("r20l_empty_array_grad", lambda: revsrc.grad(sum_sq_empty)(np.zeros(0)), lambda: np.zeros(0), tol=0.0))
add(pair("r20l_empty_array_hessian_shape", lambda: np.shape(revsrc.hessian(sum_sq_empty)(np.zeros(0))), lambda: (0, 0), tol=0.0))
add(pair("r20l_empty_array_jacfwd_shape", lambda: np.shape(revsrc.jacfwd(lambda x: 2.0 * x)(np.zeros(0))), lambda: (0, 0), tol=0.0))
add(pair("r20l_empty_array_jacrev_shape", lambda: np.shape(revsrc.jacrev(lambda x: 2.0 * x)(np.zeros(0))), lambda: (0, 0), tol=0.0))
add(pair("r20l_rms_at_zero_nan", lambda: revsrc.grad(rms)(np.zeros(3)),
         lambda: np.asarray(jax().grad(jaxify(rms))(np.zeros(3))), tol=0.0))


def softplus_stable(x):
    return np.where(x > 30.0, x, np.log1p(np.exp(np.minimum(x, 30.0))))


add(pair("r20l_where_inf_and_large_inputs", lambda: revsrc.grad(lambda x: np.sum(softplus_stable(x)))(np.array([-np.inf, -3.0, 0.0, 50.0, np.inf])),
         lambda: jax().grad(lambda x: jax().numpy.sum(jaxify(softplus_stable)(x)))(np.array([-np.inf, -3.0, 0.0, 50.0, np.inf])),
         tol=1e-14))


def nan_propagation(x):
    return x[0] * x[1] + np.sum(np.sin(x))


add(pair("r20l_nan_input_propagates", lambda: revsrc.grad(nan_propagation)(np.array([np.nan, 1.0, 2.0])),
         lambda: jax().grad(jaxify(nan_propagation))(np.array([np.nan, 1.0, 2.0])), tol=0.0))
add(G("r20l_int_argument_refused", lambda n: n * n * 1.0, (3,), ref=lambda: 6.0))
add(G("r20l_int_array_argument_refused", rms, (np.array([1, 2, 3]),), ref=lambda: np.array([1, 2, 3]) / (3 * math.sqrt(14 / 3))))
add(G("r20l_argnums_past_parameters", spring_force, (1.0, 1.3), argnums=3, ref=lambda: 0.0))
add(pair("r20l_hvp_wrong_tangent_shape", lambda: revsrc.hvp(rms, (np.ones(3),), (np.ones(2),)), lambda: np.zeros(3)))
add(pair("r20l_grad_of_vector_output", lambda: revsrc.grad(softmax_jac_target)(Z5), lambda: np.zeros(5)))
add(pair("r20l_vmap_mismatched_sizes", lambda: revsrc.vmap(spring_force)(np.ones(3), np.ones(4)), lambda: np.zeros(3)))
add(pair("r20l_grad_int_argnums_tuple_mixed", lambda: revsrc.grad(spring_force, argnums=(0, 1))(2.0, 1.4),
         lambda: (0.5 * 0.16 + 0.1 * 0.4 ** 4, 2.0 * 0.4 + 0.4 * 2.0 * 0.4 ** 3), tol=1e-13))


def state_generator_arg(theta, rng):
    # a Generator argument: a fresh draw on each call, used as fixed noise
    eps = rng.normal(size=4)
    return np.sum((theta * eps) ** 2)


def _two_calls_generator():
    rng = np.random.default_rng(7)
    g1 = revsrc.grad(state_generator_arg)(np.ones(4), rng)
    g2 = revsrc.grad(state_generator_arg)(np.ones(4), rng)
    return g1, g2


def _two_calls_generator_ref():
    rng = np.random.default_rng(7)
    e1 = rng.normal(size=4)
    e2 = rng.normal(size=4)
    return 2 * e1 ** 2, 2 * e2 ** 2


add(pair("r20l_generator_argument_advances_between_calls", _two_calls_generator, _two_calls_generator_ref, tol=1e-14))


def _mutate_arg_between_calls():
    X = XE.copy()
    g = revsrc.grad(lambda w, X: np.sum((X @ w) ** 2))
    a = g(W3, X)
    X[0, :] = 10.0
    b = g(W3, X)
    return a, b


add(pair("r20l_argument_array_mutated_between_calls", _mutate_arg_between_calls,
         lambda: (2 * XE.T @ (XE @ W3), (lambda X: 2 * X.T @ (X @ W3))(np.vstack([np.full(3, 10.0), XE[1:]]))), tol=1e-12))


class Thermostat:
    def __init__(self, T):
        self.T = T

    def free_energy(self, e):
        return -self.T * math.log(sum(math.exp(-ei / self.T) for ei in e))


TH_OBJ = Thermostat(1.0)


def _attribute_rebound():
    df = revsrc.grad(TH_OBJ.free_energy)
    e = np.array([0.0, 0.5, 1.0])
    a = df(e)
    TH_OBJ.T = 2.0
    try:
        b = df(e)
    finally:
        TH_OBJ.T = 1.0
    return a, b


def _boltz(e, T):
    p = np.exp(-e / T)
    return p / p.sum()


add(pair("r20l_attribute_rebound_between_calls", _attribute_rebound,
         lambda: (_boltz(np.array([0.0, 0.5, 1.0]), 1.0), _boltz(np.array([0.0, 0.5, 1.0]), 2.0)), tol=1e-13))
def _overflow_kind(thunk):
    try:
        thunk()
    except OverflowError:
        return 1.0
    return 0.0


# math.exp(800.0) raises OverflowError in the plain program; the derivative must raise it too
add(pair("r20l_grad_math_exp_overflow_raises_as_python",
         lambda: _overflow_kind(lambda: revsrc.grad(TH_OBJ.free_energy)(np.array([-800.0, -799.0]))),
         lambda: _overflow_kind(lambda: TH_OBJ.free_energy(np.array([-800.0, -799.0]))), tol=0.0))


def cubic_well(x):
    return x ** 4 - 2.0 * x ** 2 + 0.5 * x


add(pair("r20l_hessian_zero_d_array", lambda: revsrc.hessian(cubic_well)(np.array(0.8)), lambda: 12 * 0.64 - 4.0, tol=1e-13))
add(pair("r20l_hessian_float32_vector", lambda: revsrc.hessian(lambda x: np.sum(cubic_well(x)))(np.array([0.8, -0.3], dtype=np.float32)),
         lambda: np.diag([12 * 0.64 - 4.0, 12 * 0.09 - 4.0]), tol=1e-5))
add(pair("r20l_jacfwd_single_element", lambda: revsrc.jacfwd(lambda x: np.cumsum(x) * 2.0)(np.array([0.5])),
         lambda: np.array([[2.0]]), tol=0.0))
add(pair("r20l_jit_int_and_float_args", lambda: revsrc.jit(lambda n, x: sum(x ** k / math.factorial(k) for k in range(n)))(12, 0.7),
         lambda: sum(0.7 ** k / math.factorial(k) for k in range(12)), tol=0.0))
add(pair("r20l_grad_inf_input_where_guard", lambda: revsrc.grad(lambda x: np.sum(np.where(np.isfinite(x), x * x, 0.0)))(np.array([1.0, np.inf, -2.0])),
         lambda: np.array([2.0, 0.0, -4.0]), tol=0.0))
