"""Round 9, compositions (1): grad of grad, hessian, jacfwd/jacrev, jvp, vjp,
linearize, hvp, value_and_grad with has_aux, argnums tuples, derivatives passed
around and called later, on the programs of the numerical and physics themes."""
import math

import numpy as np

import revsrc
from user_programs6_harness import jax, jaxify
from user_programs7_harness import G, GD, H, JV, pair  # noqa: F401

CASES = []
_rng = np.random.default_rng(2026)


def morse(r, D=1.2, a=1.5, r0=1.0):
    e = math.exp(-a * (r - r0))
    return D * (1 - e) ** 2


CASES.append(pair("r9_grad_of_grad_morse",
                  lambda: revsrc.grad(revsrc.grad(morse))(1.3),
                  lambda: jax().grad(jax().grad(jaxify(morse)))(1.3)))
CASES.append(pair("r9_third_derivative_morse",
                  lambda: revsrc.grad(revsrc.grad(revsrc.grad(morse)))(1.3),
                  lambda: jax().grad(jax().grad(jax().grad(jaxify(morse))))(1.3)))
CASES.append(pair("r9_grad_of_grad_wrt_param",
                  lambda: revsrc.grad(revsrc.grad(morse), argnums=2)(1.3, 1.2, 1.5),
                  lambda: jax().grad(jax().grad(jaxify(morse)), argnums=2)(1.3, 1.2, 1.5)))


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1 - x[:-1]) ** 2)


_x5 = np.array([-1.2, 1.0, 0.5, 0.8, 1.1])
CASES.append(H("r9_hessian_rosenbrock", rosen, (_x5,), ref="jax"))
CASES.append(pair("r9_hvp_rosenbrock",
                  lambda: revsrc.hvp(rosen, (_x5,), (np.ones(5),)),
                  lambda: jax().jvp(jax().grad(jaxify(rosen)), (_x5,), (np.ones(5),))[1]))


def newton_step_rosen(x):
    g = revsrc.grad(rosen)(x)
    Hm = revsrc.hessian(rosen)(x)
    return x - np.linalg.solve(Hm, g)


def _newton_ref():
    gj = jax().grad(jaxify(rosen))(_x5)
    Hj = jax().hessian(jaxify(rosen))(_x5)
    return _x5 - np.linalg.solve(np.asarray(Hj), np.asarray(gj))


CASES.append(pair("r9_newton_step_with_grad_and_hessian", lambda: newton_step_rosen(_x5), _newton_ref))


def field(p):
    x, y = p[0], p[1]
    return np.array([x * y, np.sin(x) + y ** 2, np.exp(x - y)])


_p2 = np.array([0.3, 0.7])
CASES.append(pair("r9_jacfwd_vector_field", lambda: revsrc.jacfwd(field)(_p2),
                  lambda: jax().jacfwd(jaxify(field))(_p2)))
CASES.append(pair("r9_jacrev_vector_field", lambda: revsrc.jacrev(field)(_p2),
                  lambda: jax().jacrev(jaxify(field))(_p2)))
CASES.append(pair("r9_jacfwd_of_jacrev_second_derivs", lambda: revsrc.jacfwd(revsrc.jacrev(field))(_p2),
                  lambda: jax().jacfwd(jax().jacrev(jaxify(field)))(_p2)))


def vjp_case():
    out, back = revsrc.vjp(field, _p2)
    return back(np.array([1.0, -2.0, 0.5]))


def _vjp_ref():
    out, back = jax().vjp(jaxify(field), _p2)
    return back(np.array([1.0, -2.0, 0.5]))


CASES.append(pair("r9_vjp_vector_field", vjp_case, _vjp_ref))


def linearize_case():
    y, f_jvp = revsrc.linearize(field, _p2)
    return (y, f_jvp(np.array([1.0, 0.0])), f_jvp(np.array([0.0, 1.0])))


def _lin_ref():
    J = np.asarray(jax().jacfwd(jaxify(field))(_p2))
    return (field(_p2), J[:, 0], J[:, 1])


CASES.append(pair("r9_linearize_called_twice", linearize_case, _lin_ref))


def loss_aux(w, x):
    pred = np.tanh(x @ w)
    err = pred - np.array([0.5, -0.2, 0.1])
    return np.mean(err ** 2), {"pred": pred, "max_err": np.max(np.abs(err))}


_W = _rng.normal(size=2)
_X = _rng.normal(size=(3, 2))


def _aux_got():
    (v, aux), g = revsrc.value_and_grad(loss_aux, has_aux=True)(_W, _X)
    return (v, g, aux["pred"], aux["max_err"])


def _aux_ref():
    (v, aux), g = jax().value_and_grad(jaxify(loss_aux), has_aux=True)(_W, _X)
    return (v, g, aux["pred"], aux["max_err"])


CASES.append(pair("r9_value_and_grad_has_aux_dict", _aux_got, _aux_ref))
CASES.append(pair("r9_grad_argnums_tuple_order",
                  lambda: revsrc.grad(lambda w, x: loss_aux(w, x)[0], argnums=(1, 0))(_W, _X),
                  lambda: jax().grad(lambda w, x: jaxify(loss_aux)(w, x)[0], argnums=(1, 0))(_W, _X)))

D_MORSE = revsrc.grad(morse)


def force_sum(rs):
    return sum(-D_MORSE(r) for r in rs)


CASES.append(pair("r9_derivative_in_global_called_in_plain_python",
                  lambda: force_sum([1.1, 1.3, 0.9]),
                  lambda: sum(-float(jax().grad(jaxify(morse))(r)) for r in [1.1, 1.3, 0.9])))


def total_force_energy(s):
    # a derivative from a global called inside a function that is differentiated
    return sum(D_MORSE(s * r) ** 2 for r in [1.1, 1.3, 0.9])


CASES.append(G("r9_global_derivative_inside_differentiated", total_force_energy, (1.05,), ref="fd", tol=1e-6))


def apply_twice(df, x):
    return df(df(x))


CASES.append(pair("r9_derivative_passed_as_argument",
                  lambda: apply_twice(revsrc.grad(math.sin), 0.4),
                  lambda: math.cos(math.cos(0.4))))


def deriv_table():
    table = {"sin": revsrc.grad(math.sin), "morse": revsrc.grad(morse), "rosen_hess": revsrc.hessian(rosen)}
    return (table["sin"](0.3), table["morse"](1.2), table["rosen_hess"](_x5)[0, 0])


def _table_ref():
    return (math.cos(0.3), float(jax().grad(jaxify(morse))(1.2)),
            float(jax().hessian(jaxify(rosen))(_x5)[0, 0]))


CASES.append(pair("r9_derivatives_in_a_dict_called_later", deriv_table, _table_ref))


def energy(q, p, k=2.0, m=1.5):
    return 0.5 * p * p / m + 0.5 * k * q * q


def hamilton_flow(q0, p0):
    dHdq = revsrc.grad(energy, argnums=0)
    dHdp = revsrc.grad(energy, argnums=1)
    return dHdq, dHdp


def symplectic_euler(q, p, dt=0.05, n=100):
    dq, dp = hamilton_flow(q, p)
    for _ in range(n):
        p = p - dt * dq(q, p)
        q = q + dt * dp(q, p)
    return q, p


def _symp_ref():
    q, p = 1.0, 0.0
    for _ in range(100):
        p = p - 0.05 * 2.0 * q
        q = q + 0.05 * p / 1.5
    return (q, p)


CASES.append(pair("r9_derivatives_returned_from_helper", lambda: symplectic_euler(1.0, 0.0), _symp_ref, tol=1e-12))


def jvp_orbit(v):
    x, y, vx, vy = 1.0, 0.0, 0.0, v
    dt = 0.01
    for _ in range(200):
        r3 = (x * x + y * y) ** 1.5
        vx -= dt * x / r3
        vy -= dt * y / r3
        x += dt * vx
        y += dt * vy
    return x, y


CASES.append(JV("r9_jvp_tuple_output_orbit", jvp_orbit, (1.0,), (1.0,), ref="jax"))


def jvp_fn_args(a, b):
    return a * np.sin(b) + b ** 2


CASES.append(JV("r9_jvp_two_array_primals", jvp_fn_args, (np.array([1.0, 2.0]), np.array([0.3, -0.4])),
                (np.array([0.5, 0.5]), np.array([1.0, -1.0])), ref="jax"))


def hessian_two_args(x, y):
    return np.sum(x ** 2 * y) + np.prod(np.sin(y))


CASES.append(pair("r9_hessian_argnums_tuple_blocks",
                  lambda: revsrc.hessian(hessian_two_args, argnums=(0, 1))(np.array([1.0, 2.0]), np.array([0.5, 0.7])),
                  lambda: jax().hessian(jaxify(hessian_two_args), argnums=(0, 1))(np.array([1.0, 2.0]), np.array([0.5, 0.7]))))


def grad_of_vg(x):
    v, g = revsrc.value_and_grad(morse)(x)
    return v * g


CASES.append(G("r9_value_and_grad_inside_grad", grad_of_vg, (1.4,), ref="fd", tol=1e-6))


def dict_params_loss(params):
    h = np.tanh(_X @ params["W"] + params["b"])
    return np.sum(h ** 2) + params["scale"] ** 2


_params = {"W": _rng.normal(size=(2, 3)), "b": np.zeros(3), "scale": 0.5}
CASES.append(G("r9_dict_params_with_scalar_leaf", dict_params_loss, (_params,), ref="jax"))
CASES.append(pair("r9_hessian_dict_scalar_block",
                  lambda: revsrc.hessian(dict_params_loss)(_params)["scale"]["scale"],
                  lambda: 2.0))
