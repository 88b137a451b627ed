"""Round 11, part f: compositions on users' programs -- vmap(grad) per-example gradients,
jit of scalar loops, hessian/jacfwd/jacrev, jvp/vjp/linearize, hvp, backend="jax" -- and
state between calls of one derivative object (globals, attributes, closures, containers
rebound or mutated between calls)."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, agify, ag, fd_checked  # noqa: F401

CASES = []
add = CASES.append


# -- scalar programs with loops/branches: vmap, jit, vmap(grad), hessian ----------------

def fm_synth(t, fc=440.0, fm=110.0, index=2.0):
    return math.sin(2 * math.pi * fc * t + index * math.sin(2 * math.pi * fm * t))


def adsr(t, a=0.01, d=0.05, s=0.6, r=0.1, dur=0.3):
    if t < a:
        return t / a
    elif t < a + d:
        return 1.0 - (1.0 - s) * (t - a) / d
    elif t < dur:
        return s
    elif t < dur + r:
        return s * (1.0 - (t - dur) / r)
    return 0.0


def note(t):
    return adsr(t) * fm_synth(t)


TS = np.array([0.004, 0.02, 0.05, 0.2, 0.33, 0.5])
add(pair("r11_vmap_adsr_fm", lambda: revsrc.vmap(note)(TS), lambda: np.array([note(t) for t in TS]), tol=0.0))
add(pair("r11_vmap_grad_adsr_fm", lambda: revsrc.vmap(revsrc.grad(note))(TS),
         lambda: np.array([fd_checked(note, (float(t),), h=1e-7, check=1e-3)[0] for t in TS]), tol=1e-5))
add(pair("r11_vmap_grad_fm_index", lambda: revsrc.vmap(revsrc.grad(fm_synth, argnums=3),
                                                       in_axes=(0, None, None, None))(TS, 440.0, 110.0, 2.0),
         lambda: jax().vmap(jax().grad(jaxify(fm_synth), argnums=3), in_axes=(0, None, None, None))(TS, 440.0, 110.0, 2.0)))
add(pair("r11_jit_adsr", lambda: [revsrc.jit(note)(float(t)) for t in TS], lambda: [note(float(t)) for t in TS], tol=0.0))


def fm_energy(index, n=200):
    total = 0.0
    for k in range(n):
        v = fm_synth(k / 8000.0, index=index)
        total += v * v
    return total / n


add(pair("r11_jit_loop_over_synth", lambda: revsrc.jit(fm_energy)(2.0, 200), lambda: fm_energy(2.0, 200), tol=0.0))
add(G("r11_grad_loop_over_synth", fm_energy, (2.0,), ref="jax"))
add(H("r11_hessian_loop_over_synth", fm_energy, (2.0,), ref="ag", tol=1e-8))
add(pair("r11_grad_grad_loop_synth", lambda: revsrc.grad(revsrc.grad(fm_energy))(2.0),
         lambda: ag()[0].grad(ag()[0].grad(agify(fm_energy)))(2.0), tol=1e-8))


def newton_root(a):
    x = a
    for _ in range(30):
        fx = x ** 3 - a
        if abs(fx) < 1e-14:
            break
        x = x - fx / (3 * x * x)
    return x


AS = np.array([0.5, 2.0, 8.0, 27.0])
add(pair("r11_vmap_grad_newton_cuberoot", lambda: revsrc.vmap(revsrc.grad(newton_root))(AS),
         lambda: AS ** (-2.0 / 3.0) / 3.0, tol=1e-9))
add(pair("r11_vmap_value_and_grad_newton", lambda: revsrc.vmap(revsrc.value_and_grad(newton_root))(AS),
         lambda: (np.cbrt(AS), AS ** (-2.0 / 3.0) / 3.0), tol=1e-9))


def jit_calls_grad(a):
    d = revsrc.grad(newton_root)
    return d(a) * newton_root(a)


add(pair("r11_jit_of_grad_inside", lambda: revsrc.jit(jit_calls_grad)(8.0), lambda: (1 / 12.0) * 2.0, tol=1e-12))


# -- jacfwd/jacrev/hessian on array programs ---------------------------------------------

def lotka(z, params=(1.1, 0.4, 0.1, 0.4)):
    a, b, c, d = params
    x, y = z[0], z[1]
    return np.array([a * x - b * x * y, c * x * y - d * y])


def rk4_flow(z0, h=0.1, n=10):
    z = z0
    for _ in range(n):
        k1 = lotka(z)
        k2 = lotka(z + 0.5 * h * k1)
        k3 = lotka(z + 0.5 * h * k2)
        k4 = lotka(z + h * k3)
        z = z + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return z


Z0 = np.array([10.0, 5.0])
add(pair("r11_jacfwd_rk4_flow_map", lambda: revsrc.jacfwd(rk4_flow)(Z0), lambda: ag()[0].jacobian(agify(rk4_flow))(Z0)))
add(pair("r11_jacrev_rk4_flow_map", lambda: revsrc.jacrev(rk4_flow)(Z0), lambda: ag()[0].jacobian(agify(rk4_flow))(Z0)))


def ftle(z0):
    J = revsrc.jacfwd(rk4_flow)(z0)
    return np.log(np.trace(J.T @ J))


def ftle_ref(z0):
    anp = ag()[1]
    J = ag()[0].jacobian(agify(rk4_flow))(z0)
    return anp.log(anp.trace(J.T @ J))


add(pair("r11_grad_through_jacfwd_ftle", lambda: revsrc.grad(ftle)(Z0), lambda: ag()[0].grad(ftle_ref)(Z0), tol=1e-7))

# jvp / vjp / linearize of the flow map
VT = np.array([0.3, -1.0])
add(pair("r11_jvp_rk4", lambda: revsrc.jvp(rk4_flow, (Z0,), (VT,)),
         lambda: jax().jvp(jaxify(rk4_flow), (Z0,), (VT,))))


def vjp_twice():
    out, back = revsrc.vjp(rk4_flow, Z0)
    return out, back(np.array([1.0, 0.0])), back(np.array([0.0, 1.0]))


def vjp_twice_ref():
    out, back = jax().vjp(jaxify(rk4_flow), Z0)
    return out, back(np.array([1.0, 0.0])), back(np.array([0.0, 1.0]))


add(pair("r11_vjp_called_twice", vjp_twice, vjp_twice_ref))


def linearize_many():
    out, f_jvp = revsrc.linearize(rk4_flow, Z0)
    return [out] + [f_jvp(v) for v in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), VT)]


def linearize_many_ref():
    out, f_jvp = jax().linearize(jaxify(rk4_flow), Z0)
    return [out] + [f_jvp(v) for v in (np.array([1.0, 0.0]), np.array([0.0, 1.0]), VT)]


add(pair("r11_linearize_many_tangents", linearize_many, linearize_many_ref))


def potential(q):
    r = np.linalg.norm(q[:, None, :] - q[None, :, :] + np.eye(q.shape[0])[:, :, None], axis=-1)
    iu = np.triu_indices(q.shape[0], k=1)
    return np.sum(1.0 / r[iu] ** 12 - 2.0 / r[iu] ** 6)


QL = np.array([[0.0, 0.0], [1.1, 0.1], [0.3, 1.0], [1.2, 1.3]])
add(G("r11_lennard_jones_triu", potential, (QL,), ref="jax"))
add(pair("r11_hvp_lennard_jones", lambda: revsrc.hvp(potential, (QL,), (np.ones_like(QL),)),
         lambda: jax().jvp(jax().grad(jaxify(potential)), (QL,), (np.ones_like(QL),))[1], tol=1e-8))
add(H("r11_hessian_lennard_jones", potential, (QL,), ref="ag", tol=1e-8))


# -- backend="jax" on users' programs -----------------------------------------------------

def logistic_map_loss(r, x0=0.2, n=50):
    x = x0
    acc = 0.0
    for _ in range(n):
        x = r * x * (1 - x)
        acc += x
    return acc / n


add(G("r11_backend_jax_logistic_map", logistic_map_loss, (2.9,), ref="jax", backend="jax"))


def energy_balance(S, albedo0=0.3, years=40):
    T = 270.0
    for _ in range(years):
        albedo = albedo0 + 0.2 * (1 - np.tanh((T - 265.0) / 10.0)) / 2
        T = T + 0.1 * (S * (1 - albedo) / 4 - 5.67e-8 * 0.6 * T ** 4)
    return T


add(G("r11_backend_jax_energy_balance", energy_balance, (1361.0,), ref="jax", backend="jax", tol=1e-8))
add(G("r11_energy_balance_default", energy_balance, (1361.0,), ref="jax", tol=1e-8))
add(G("r11_energy_balance_albedo", energy_balance, (1361.0, 0.3), argnums=1, ref="jax", tol=1e-8))


def branchy_loss(w, x):
    s = 0.0
    for i in range(x.shape[0]):
        z = np.dot(w, x[i])
        if z > 0:
            s = s + z * z
        else:
            s = s - 0.1 * z
    return s


XB = np.array([[1.0, -0.5], [0.2, 0.3], [-1.0, 0.4], [0.5, 0.5]])
add(G("r11_backend_jax_branch_rows", branchy_loss, (np.array([0.3, -0.7]), XB), ref="ag", backend="jax"))
add(G("r11_backend_engine_scalar", newton_root, (8.0,), ref=lambda: 1 / 12.0, backend="engine"))
add(G("r11_backend_python_scalar", newton_root, (8.0,), ref=lambda: 1 / 12.0, backend="python"))


# -- state between calls -----------------------------------------------------------------

GAIN = np.array([1.0, 2.0])


def uses_global_array(x):
    return np.sum(GAIN * x ** 2)


def global_array_mutated():
    d = revsrc.grad(uses_global_array)
    x = np.array([1.0, 1.0])
    a = d(x)
    GAIN[0] = 10.0
    try:
        b = d(x)
    finally:
        GAIN[0] = 1.0
    return a, b


add(pair("r11_global_array_mutated_in_place", global_array_mutated,
         lambda: (np.array([2.0, 4.0]), np.array([20.0, 4.0])), tol=0.0))

COEFS = [1.0, 2.0]


def uses_global_list(x):
    return sum(c * x ** k for k, c in enumerate(COEFS))


def global_list_appended():
    d = revsrc.grad(uses_global_list)
    a = d(2.0)
    COEFS.append(3.0)
    try:
        b = d(2.0)
    finally:
        COEFS.pop()
    return a, b


add(pair("r11_global_list_appended", global_list_appended, lambda: (2.0, 2.0 + 12.0), tol=0.0))

CFG = {"p": 2.0}


def uses_global_dict(x):
    return x ** CFG["p"]


def global_dict_item_changed():
    d = revsrc.grad(uses_global_dict)
    a = d(3.0)
    CFG["p"] = 3.0
    try:
        b = d(3.0)
    finally:
        CFG["p"] = 2.0
    return a, b


add(pair("r11_global_dict_item_changed", global_dict_item_changed, lambda: (6.0, 27.0), tol=0.0))


def closure_over_list():
    weights = [1.0, 0.5]

    def f(x):
        return sum(w * math.sin(k * x) for k, w in enumerate(weights))

    d = revsrc.grad(f)
    a = d(0.3)
    weights.append(2.0)
    b = d(0.3)
    weights[0] = 7.0
    c = d(0.3)
    return a, b, c


def closure_over_list_ref():
    def g(ws):
        return sum(k * w * math.cos(k * 0.3) for k, w in enumerate(ws))
    return g([1.0, 0.5]), g([1.0, 0.5, 2.0]), g([7.0, 0.5, 2.0])


add(pair("r11_closure_list_mutated_between_calls", closure_over_list, closure_over_list_ref, tol=1e-12))


def closure_cell_rebound():
    k = 2.0

    def f(x):
        return k * x * x

    d = revsrc.grad(f)
    a = d(1.0)
    k = 5.0
    b = d(1.0)
    return a, b


add(pair("r11_closure_cell_rebound", closure_cell_rebound, lambda: (4.0, 10.0), tol=0.0))


class Model:
    def __init__(self, w):
        self.w = w
        self.act = np.tanh

    def loss(self, x):
        return np.sum(self.act(self.w * x))


def attribute_rebound():
    m = Model(np.array([1.0, 2.0]))
    d = revsrc.grad(m.loss)
    x = np.array([0.3, 0.1])
    a = d(x)
    m.w = np.array([3.0, -1.0])
    b = d(x)
    m.act = np.sin
    c = d(x)
    m.w[1] = 4.0
    e = d(x)
    return a, b, c, e


def attribute_rebound_ref():
    x = np.array([0.3, 0.1])

    def th(w):
        return w * (1 - np.tanh(w * x) ** 2)
    return (th(np.array([1.0, 2.0])), th(np.array([3.0, -1.0])),
            np.array([3.0, -1.0]) * np.cos(np.array([3.0, -1.0]) * x),
            np.array([3.0, 4.0]) * np.cos(np.array([3.0, 4.0]) * x))


add(pair("r11_attributes_rebound_and_mutated", attribute_rebound, attribute_rebound_ref, tol=1e-12))


def jit_attribute_rebound():
    class Osc:
        def __init__(self, w):
            self.w = w

        def __call__(self, t):
            return math.sin(self.w * t)

    o = Osc(2.0)
    fj = revsrc.jit(o)
    a = fj(0.5)
    o.w = 3.0
    b = fj(0.5)
    return a, b


add(pair("r11_jit_callable_attr_rebound", jit_attribute_rebound, lambda: (math.sin(1.0), math.sin(1.5)), tol=0.0))


def default_mutable(x, hist=[]):
    h = list(hist)
    h.append(x)
    return sum(v * v for v in h)


def default_mutable_calls():
    d = revsrc.grad(default_mutable)
    return d(1.5), d(2.0, [1.0, 3.0])


add(pair("r11_default_list_and_passed", default_mutable_calls, lambda: (3.0, 4.0), tol=0.0))


def partial_rebound():
    base = functools.partial(fm_synth, fc=100.0, fm=25.0)
    d = revsrc.grad(base)
    return d(0.001), revsrc.grad(functools.partial(fm_synth, fc=200.0))(0.001)


def partial_rebound_ref():
    g = jax().grad(jaxify(fm_synth))
    return g(0.001, 100.0, 25.0), g(0.001, 200.0)


add(pair("r11_partials_of_one_function", partial_rebound, partial_rebound_ref, tol=1e-9))


def shapes_change_between_calls():
    d = revsrc.grad(potential)
    return d(QL[:3]), d(QL), d(QL[:2])


def shapes_change_ref():
    g = ag()[0].grad(agify(potential))
    return g(QL[:3]), g(QL), g(QL[:2])


add(pair("r11_shapes_change_between_calls", shapes_change_between_calls, shapes_change_ref))


def kinds_change_between_calls():
    d = revsrc.grad(_kinds)
    return d(2.0, 3), d(2.0, 3.5), d(np.array([1.0, 2.0]), 2.0), d(2.0, np.array([1.0, 2.0]))


def _kinds(x, y):
    return np.sum(x * y + y)


add(pair("r11_kinds_change_between_calls", kinds_change_between_calls,
         lambda: (3.0, 3.5, np.array([2.0, 2.0]), 3.0), tol=0.0))
