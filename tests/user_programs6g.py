"""User programs, corpus 6g: parameters in dicts, tuples, namedtuples and dataclasses;
objects with methods; globals rebound between calls.  References: JAX x64 (dicts,
tuples, namedtuples), central differences over the leaves (dataclasses, objects), or
the derivative written out."""
import collections
import dataclasses
import functools
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, fd_hess, jax, jaxify

CASES = []
RNG = np.random.default_rng(66)


J = jax


add = adder(CASES)


def fdc(name, f, args, argnums=0, tol=1e-6, kw=None):
    kw = kw or {}
    add(name, lambda: revsrc.grad(f, argnums=argnums)(*args, **kw),
        lambda: fd_grad(f, args, kw, argnums), tol)


XB = RNG.normal(size=(6, 3))
YB = RNG.normal(size=6)

# -- containers ---------------------------------------------------------------------------------


def nested_dict_loss(p, X, y):
    h = np.tanh(X @ p["enc"]["W"] + p["enc"]["b"])
    out = h @ p["dec"]["w"] + p["dec"]["c"]
    return np.mean((out - y) ** 2) + p["reg"] * np.sum(p["enc"]["W"] ** 2)


PN = {"dec": {"c": 0.1, "w": RNG.normal(size=4)}, "enc": {"W": RNG.normal(size=(3, 4)), "b": np.zeros(4)},
      "reg": 0.01}
add("tree_nested_dict_grad", lambda: revsrc.grad(nested_dict_loss)(PN, XB, YB),
    lambda: J().grad(jaxify(nested_dict_loss))(PN, XB, YB))
add("tree_nested_dict_grad_structure",
    lambda: [sorted(revsrc.grad(nested_dict_loss)(PN, XB, YB)["enc"]) == ["W", "b"],
             isinstance(revsrc.grad(nested_dict_loss)(PN, XB, YB)["dec"]["c"], float)],
    lambda: [True, True], tol=0.0)


def list_of_layers(layers, x):
    for W, b in layers:
        x = np.tanh(W @ x + b)
    return np.sum(x ** 2)


LAYERS = [(RNG.normal(size=(4, 3)), np.zeros(4)), (RNG.normal(size=(2, 4)), np.ones(2) * 0.1)]
add("tree_list_of_tuples", lambda: revsrc.grad(list_of_layers)(LAYERS, XB[0]),
    lambda: J().grad(jaxify(list_of_layers))(LAYERS, XB[0]))
add("tree_list_of_tuples_hessian_small",
    lambda: revsrc.hessian(list_of_layers)([(np.array([[0.3, -0.2]]), np.array([0.1]))], np.array([1.0, 2.0])),
    lambda: J().hessian(jaxify(list_of_layers))([(np.array([[0.3, -0.2]]), np.array([0.1]))], np.array([1.0, 2.0])))

Params = collections.namedtuple("Params", ["W", "b", "scale"])


def nt_loss(p, X, y):
    return np.mean((p.scale * np.tanh(X @ p.W + p.b) - y) ** 2)


PNT = Params(RNG.normal(size=3), 0.2, 1.5)
add("tree_namedtuple_grad", lambda: revsrc.grad(nt_loss)(PNT, XB, YB),
    lambda: J().grad(jaxify(nt_loss))(PNT, XB, YB))
add("tree_namedtuple_type_kept", lambda: [type(revsrc.grad(nt_loss)(PNT, XB, YB)) is Params],
    lambda: [True], tol=0.0)
add("tree_namedtuple_hessian_documented_E104", lambda: revsrc.hessian(nt_loss)(PNT, XB, YB),
    lambda: J().hessian(jaxify(nt_loss))(PNT, XB, YB))


@dataclasses.dataclass
class Model:
    W: np.ndarray
    b: float
    name: str = dataclasses.field(default="m", metadata={"static": True})


def dc_loss(m, X, y):
    return np.mean((X @ m.W + m.b - y) ** 2)


MD = Model(RNG.normal(size=3), 0.1)
fdc("tree_dataclass_static_field", dc_loss, (MD, XB, YB))
add("tree_dataclass_type_kept", lambda: [isinstance(revsrc.grad(dc_loss)(MD, XB, YB), Model)],
    lambda: [True], tol=0.0)


@dataclasses.dataclass
class ModelNoStatic:
    W: np.ndarray
    b: float
    name: str = "m"


MDN = ModelNoStatic(RNG.normal(size=3), 0.1)
add("tree_dataclass_str_field_E301", lambda: revsrc.grad(dc_loss)(MDN, XB, YB),
    lambda: fd_grad(dc_loss, (MD, XB, YB), {}, 0), tol=1e-6)


def dict_none_leaf(p, x):
    out = p["w"] * x
    if p["b"] is not None:
        out = out + p["b"]
    return np.sum(out ** 2)


add("tree_dict_none_leaf", lambda: revsrc.grad(dict_none_leaf)({"b": None, "w": np.array([1.0, 2.0])}, 3.0),
    lambda: {"w": np.array([18.0, 36.0])})


def tuple_argnums_mixed(p, q, r):
    return np.sum(p[0] * q["a"]) + r ** 2 * p[1]


add("tree_argnums_tuple_of_trees",
    lambda: revsrc.grad(tuple_argnums_mixed, argnums=(0, 1, 2))((np.array([1.0, 2.0]), 0.5), {"a": np.array([3.0, 4.0])}, 2.0),
    lambda: J().grad(jaxify(tuple_argnums_mixed), argnums=(0, 1, 2))((np.array([1.0, 2.0]), 0.5), {"a": np.array([3.0, 4.0])}, 2.0))


def items_loop(p):
    total = 0.0
    for k, v in p.items():
        total = total + np.sum(v ** 2) * len(k)
    return total


add("tree_dict_items_loop", lambda: revsrc.grad(items_loop)({"a": np.array([1.0, 2.0]), "bb": 3.0}),
    lambda: {"a": np.array([2.0, 4.0]), "bb": 12.0})


def tree_map_update(params, grads):
    new = revsrc.tree_map(lambda p, g: p - 0.1 * g, params, grads)
    return new


add("tree_map_sgd_step",
    lambda: tree_map_update(PN, revsrc.grad(nested_dict_loss)(PN, XB, YB)),
    lambda: J().tree_util.tree_map(lambda p, g: p - 0.1 * g, PN, J().grad(jaxify(nested_dict_loss))(PN, XB, YB)))


def jvp_dict():
    t = {"b": 1.0, "w": np.array([0.5, -0.5, 1.0])}
    return revsrc.jvp(lambda p: np.sum(np.sin(XB @ p["w"] + p["b"])), ({"b": 0.3, "w": np.ones(3)},), (t,))


def jvp_dict_ref():
    t = {"b": 1.0, "w": np.array([0.5, -0.5, 1.0])}
    jnp = J().numpy
    return J().jvp(lambda p: jnp.sum(jnp.sin(XB @ p["w"] + p["b"])), ({"b": 0.3, "w": np.ones(3)},), (t,))


add("tree_jvp_dict_tangent", jvp_dict, jvp_dict_ref)


def vjp_tuple():
    out, pull = revsrc.vjp(lambda a, b: np.sin(a) * b, np.array([0.1, 0.2]), np.array([1.0, 3.0]))
    return pull(np.array([1.0, -1.0]))


add("tree_vjp_two_args", vjp_tuple,
    lambda: (np.cos([0.1, 0.2]) * np.array([1.0, 3.0]) * np.array([1.0, -1.0]), np.sin([0.1, 0.2]) * np.array([1.0, -1.0])))


class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


revsrc.register_pytree(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))


def registered_loss(p):
    return np.sum(p.a * p.b) + np.sum(p.a ** 2)


add("tree_registered_class_type_kept",
    lambda: [isinstance(revsrc.grad(registered_loss)(Pair(np.array([1.0, 2.0]), np.array([3.0, 4.0]))), Pair)],
    lambda: [True], tol=0.0)


def _flat_pair(p):
    return [p.a, p.b]


add("tree_registered_class_values",
    lambda: _flat_pair(revsrc.grad(registered_loss)(Pair(np.array([1.0, 2.0]), np.array([3.0, 4.0])))),
    lambda: [np.array([5.0, 8.0]), np.array([1.0, 2.0])])

# -- objects with methods -----------------------------------------------------------------------


class Regressor:
    def __init__(self, X, y, l2):
        self.X, self.y, self.l2 = X, y, l2

    def predict(self, w):
        return self.X @ w

    def loss(self, w):
        r = self.predict(w) - self.y
        return np.mean(r * r) + self.l2 * np.dot(w, w)

    def __call__(self, w):
        return self.loss(w) * 2.0

    @staticmethod
    def huber(r, d=1.0):
        a = np.abs(r)
        return np.where(a < d, 0.5 * r * r, d * (a - 0.5 * d))

    def robust(self, w):
        return np.sum(Regressor.huber(self.predict(w) - self.y, d=0.5))

    @classmethod
    def make(cls, n):
        return cls(XB[:n], YB[:n], 0.1)


REG = Regressor(XB, YB, 0.05)
W3 = np.array([0.2, -0.1, 0.4])
fdc("obj_bound_method_calls_other_method", REG.loss, (W3,))
fdc("obj_callable_object", REG, (W3,))
fdc("obj_staticmethod_with_keyword", REG.robust, (W3,))
fdc("obj_classmethod_made_instance", Regressor.make(4).loss, (W3,))


def _attr_changed():
    r = Regressor(XB, YB, 0.05)
    d = revsrc.grad(r.loss)
    first = d(W3)
    r.l2 = 1.0
    second = d(W3)
    return [first, second]


def _attr_changed_ref():
    r = Regressor(XB, YB, 0.05)
    a = fd_grad(r.loss, (W3,), {}, 0)[0]
    r.l2 = 1.0
    b = fd_grad(r.loss, (W3,), {}, 0)[0]
    return [a, b]


add("obj_attribute_changed_between_calls", _attr_changed, _attr_changed_ref, tol=1e-6)


def unbound_method_call(w):
    return Regressor.loss(REG, w)


fdc("obj_unbound_method_documented_E202", unbound_method_call, (W3,))


def module_object_call(w):
    return np.sum(REG.predict(w) ** 2)


fdc("obj_module_level_object_method_documented_E202", module_object_call, (W3,))


class Dense:
    def __init__(self, W, b, act="tanh"):
        self.W, self.b, self.act = W, b, act

    def __call__(self, x):
        z = self.W @ x + self.b
        return np.tanh(z) if self.act == "tanh" else z


def keras_like(W1, W2, x):
    net = [Dense(W1, np.zeros(4)), Dense(W2, np.zeros(2), act="linear")]
    h = x
    for layer in net:
        h = layer(h)
    return np.sum(h ** 2)


add("obj_layers_built_inside", lambda: revsrc.grad(keras_like, argnums=(0, 1))(LAYERS[0][0], LAYERS[1][0], XB[0]),
    lambda: fd_grad(keras_like, (LAYERS[0][0], LAYERS[1][0], XB[0]), {}, (0, 1)), tol=1e-6)


class Integrator:
    def __init__(self, dt, steps):
        self.dt, self.steps = dt, steps

    def rhs(self, y, k):
        return -k * y + math.sin(y)

    def run(self, k):
        y = 1.0
        for _ in range(self.steps):
            y = y + self.dt * self.rhs(y, k)
        return y


INTEG = Integrator(0.01, 300)
fdc("obj_method_loop_scalar_engine", INTEG.run, (0.7,))
add("obj_method_hessian", lambda: revsrc.hessian(INTEG.run)(0.7),
    lambda: fd_hess(INTEG.run, (0.7,), {}, 0, 1e-4), tol=1e-5)
def _jit_after_grad():
    revsrc.grad(INTEG.run)(0.7)          # the crash needs a derivative of the method first
    return revsrc.jit(INTEG.run)(0.7)


def _vmap_after_grad():
    revsrc.grad(INTEG.run)(0.7)
    return revsrc.vmap(INTEG.run)(np.array([0.1, 0.7, 2.0]))


add("obj_method_jit", _jit_after_grad, lambda: INTEG.run(0.7), tol=0.0)
add("obj_method_vmap", _vmap_after_grad, lambda: np.array([INTEG.run(k) for k in [0.1, 0.7, 2.0]]), tol=0.0)


def partial_loss(w, X, y, l2):
    return np.mean((X @ w - y) ** 2) + l2 * np.sum(w ** 2)


fdc("obj_functools_partial_keywords", functools.partial(partial_loss, X=XB, y=YB, l2=0.3), (W3,))

# -- globals rebound between calls -------------------------------------------------------------

ACT = np.tanh
SCALE = 2.0


def uses_global_act(x):
    return SCALE * np.sum(ACT(x) ** 2)


def _rebind_act():
    global ACT, SCALE
    d = revsrc.grad(uses_global_act)
    x = np.array([0.3, -0.8])
    out = [d(x)]
    ACT = np.sin
    out.append(d(x))
    SCALE = 3.0
    out.append(d(x))
    ACT, SCALE = np.tanh, 2.0
    out.append(d(x))
    return out


def _rebind_act_ref():
    x = np.array([0.3, -0.8])
    t = np.tanh(x)
    a = 2.0 * 2 * t * (1 - t * t)
    b = 2.0 * 2 * np.sin(x) * np.cos(x)
    c = 3.0 * 2 * np.sin(x) * np.cos(x)
    return [a, b, c, a]


add("global_function_and_float_rebound", _rebind_act, _rebind_act_ref)

COEFFS = np.array([1.0, 2.0, 3.0])


def uses_global_array(x):
    return np.sum(COEFFS * x ** 2)


def _rebind_array():
    global COEFFS
    d = revsrc.grad(uses_global_array)
    x = np.array([1.0, 1.0, 1.0])
    out = [d(x)]
    COEFFS = np.array([-1.0, 0.0, 5.0])
    out.append(d(x))
    COEFFS = np.array([1.0, 2.0, 3.0, 4.0])
    out.append(revsrc.grad(uses_global_array)(np.ones(4)))
    COEFFS = np.array([1.0, 2.0, 3.0])
    return out


add("global_array_rebound_and_reshaped", _rebind_array,
    lambda: [np.array([2.0, 4.0, 6.0]), np.array([-2.0, 0.0, 10.0]), np.array([2.0, 4.0, 6.0, 8.0])])

CONFIG = {"power": 2, "mode": "sq"}


def uses_global_dict(x):
    if CONFIG["mode"] == "sq":
        return x ** CONFIG["power"]
    return math.exp(x)


def _rebind_dict():
    d = revsrc.grad(uses_global_dict)
    out = [d(1.5)]
    CONFIG["power"] = 3
    out.append(d(1.5))
    CONFIG["mode"] = "exp"
    out.append(d(1.5))
    CONFIG.update(power=2, mode="sq")
    return out


add("global_dict_mutated_between_calls", _rebind_dict, lambda: [3.0, 3 * 1.5 ** 2, math.exp(1.5)])


def helper_v1(x):
    return x * x


HELPER = helper_v1


def calls_global_helper(x):
    return HELPER(x) + 1.0


def _rebind_helper():
    global HELPER
    d = revsrc.grad(calls_global_helper)
    h = revsrc.hessian(calls_global_helper)
    out = [d(2.0), h(2.0)]
    HELPER = lambda x: x ** 3  # noqa: E731
    out += [d(2.0), h(2.0)]
    HELPER = helper_v1
    return out


add("global_helper_rebound_grad_and_hessian", _rebind_helper, lambda: [4.0, 2.0, 12.0, 12.0])


def _rebind_helper_jit():
    global HELPER
    j = revsrc.jit(calls_global_helper)
    out = [j(2.0)]
    HELPER = lambda x: x ** 3  # noqa: E731
    out.append(j(2.0))
    HELPER = helper_v1
    return out


add("global_helper_rebound_jit", _rebind_helper_jit, lambda: [5.0, 9.0], tol=0.0)


def _rebind_helper_vmap():
    global HELPER
    v = revsrc.vmap(revsrc.grad(calls_global_helper))
    xs = np.array([1.0, 2.0])
    out = [v(xs)]
    HELPER = lambda x: x ** 3  # noqa: E731
    out.append(v(xs))
    HELPER = helper_v1
    return out


add("global_helper_rebound_vmap_grad", _rebind_helper_vmap,
    lambda: [np.array([2.0, 4.0]), np.array([3.0, 12.0])], tol=0.0)

N_STEPS = 3


def uses_global_int(x):
    for _ in range(N_STEPS):
        x = math.sin(x) + x
    return x


def _rebind_int():
    global N_STEPS
    d = revsrc.grad(uses_global_int)
    out = [d(0.5)]
    N_STEPS = 5
    out.append(d(0.5))
    N_STEPS = 3
    return out


def _rebind_int_ref():
    global N_STEPS
    out = [fd_grad(uses_global_int, (0.5,), {}, 0)[0]]
    N_STEPS = 5
    out.append(fd_grad(uses_global_int, (0.5,), {}, 0)[0])
    N_STEPS = 3
    return out


add("global_int_loop_count_rebound", _rebind_int, _rebind_int_ref, tol=1e-6)


class Cfg:
    scale = 1.0


CFG = Cfg()


def uses_cfg_attr(x):
    return CFG.scale * np.sum(x ** 2)


def _cfg_attr():
    d = revsrc.grad(uses_cfg_attr)
    out = [d(np.array([1.0, 2.0]))]
    CFG.scale = 5.0
    out.append(d(np.array([1.0, 2.0])))
    CFG.scale = 1.0
    return out


add("global_object_attribute_changed", _cfg_attr, lambda: [np.array([2.0, 4.0]), np.array([10.0, 20.0])])


class Stepper:
    def __init__(self, dt):
        self.dt = dt

    def step(self, k):
        return k * self.dt + math.sin(k)


STEPPER = Stepper(0.5)
add("obj_method_jit_never_differentiated", lambda: revsrc.jit(STEPPER.step)(0.7),
    lambda: STEPPER.step(0.7), tol=0.0)
