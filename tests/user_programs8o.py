"""Round 8 user programs, batch o: state kept in dicts and lists across loop iterations
(the pattern of batch n's C1, varied), registered pytree classes, dataclasses with
static fields, tree_map update steps, decorators, classmethods, checked against
closed forms or self-checked central differences."""
import dataclasses
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, GD, H, JV, pair, fd_checked, jax, jaxify  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(94)


def dict_list_copy_item_write(x):
    s = {"v": [x]}
    for _ in range(2):
        q = list(s["v"])
        q[0] = q[0] * 2
        s = {"v": q}
    return s["v"][0]


add(pair("r8_dict_rebuilt_from_list_copy_item_write", lambda: revsrc.grad(dict_list_copy_item_write)(1.0), lambda: 4.0, tol=1e-12))


def dict_key_reassigned_in_loop(x):
    s = {"v": [x]}
    for _ in range(2):
        q = [s["v"][0] * 2]
        s["v"] = q
    return s["v"][0]


add(pair("r8_local_dict_key_rebound_in_loop", lambda: revsrc.grad(dict_key_reassigned_in_loop)(1.0), lambda: 4.0, tol=1e-12))


def history_dict_append(x):
    hist = {"loss": [], "x": []}
    for i in range(4):
        x = x - 0.1 * 2 * x
        hist["loss"].append(x * x)
        hist["x"].append(x)
    return sum(hist["loss"]) + hist["x"][-1]


add(G("r8_history_dict_of_lists_append", history_dict_append, (1.5,)))


class Affine:
    def __init__(self, W, b):
        self.W, self.b = W, b


revsrc.register_pytree(Affine, lambda a: ((a.W, a.b), None), lambda aux, ch: Affine(*ch))


def affine_loss(layer, x):
    return np.sum(np.tanh(x @ layer.W + layer.b) ** 2)


XA = rng.normal(size=(4, 3))
LA = Affine(rng.normal(size=(3, 2)), np.array([0.1, -0.2]))


def _aff_ref():
    g = jax().grad(jaxify(lambda W, b, x: np.sum(np.tanh(x @ W + b) ** 2)), argnums=(0, 1))(LA.W, LA.b, XA)
    return g


add(pair("r8_registered_pytree_class", lambda: (lambda g: (g.W, g.b))(revsrc.grad(affine_loss)(LA, XA)), _aff_ref, tol=1e-10))


def sgd_tree_map(layer, x, lr):
    for _ in range(3):
        g = AFF_GRAD(layer, x)
        layer = revsrc.tree_map(lambda p, d: p - lr * d, layer, g)
    return affine_loss(layer, x)


AFF_GRAD = revsrc.grad(affine_loss)


def _sgd_tm_ref():
    W, b = LA.W, LA.b
    gf = jax().grad(jaxify(lambda W, b, x: np.sum(np.tanh(x @ W + b) ** 2)), argnums=(0, 1))
    for _ in range(3):
        gW, gb = gf(W, b, XA)
        W, b = W - 0.1 * np.asarray(gW), b - 0.1 * np.asarray(gb)
    return np.sum(np.tanh(XA @ W + b) ** 2)


add(pair("r8_tree_map_sgd_value_only", lambda: sgd_tree_map(LA, XA, 0.1), _sgd_tm_ref, tol=1e-10))


@dataclasses.dataclass
class Net:
    W: np.ndarray
    b: np.ndarray
    act: str = dataclasses.field(default="tanh", metadata={"static": True})
    depth: int = dataclasses.field(default=2, metadata={"static": True})


def net_loss(net, x):
    h = x
    for _ in range(net.depth):
        h = h @ net.W + net.b
        h = np.tanh(h) if net.act == "tanh" else np.maximum(h, 0)
    return np.sum(h ** 2)


NET = Net(rng.normal(size=(3, 3)) * 0.5, np.zeros(3) + 0.1)


def _net_ref(act):
    def f(W, b, x):
        h = x
        for _ in range(2):
            h = h @ W + b
            h = np.tanh(h) if act == "tanh" else np.maximum(h, 0)
        return np.sum(h ** 2)
    return jax().grad(jaxify(f), argnums=(0, 1))(NET.W, NET.b, XA[:, :3])


add(pair("r8_dataclass_static_str_int_fields", lambda: (lambda g: (g.W, g.b))(revsrc.grad(net_loss)(NET, XA[:, :3])), lambda: _net_ref("tanh"), tol=1e-10))
add(pair("r8_dataclass_static_changed_by_replace", lambda: (lambda g: (g.W, g.b))(revsrc.grad(net_loss)(dataclasses.replace(NET, act="relu"), XA[:, :3])),
         lambda: _net_ref("relu"), tol=1e-10))


def timed(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kw):
        out = fn(*args, **kw)
        return out
    return wrapper


@timed
def decorated_loss(x):
    return math.exp(-x * x) * 3


add(pair("r8_decorated_with_wraps_star_args", lambda: revsrc.grad(decorated_loss)(0.4), lambda: -2 * 0.4 * 3 * math.exp(-0.16), tol=1e-12))


class Potential:
    scale = 2.0

    @classmethod
    def energy(cls, x):
        return cls.scale * np.sum(x ** 4)


add(pair("r8_classmethod_class_attribute", lambda: revsrc.grad(Potential.energy)(np.array([1.0, -0.5])),
         lambda: 8.0 * np.array([1.0, -0.5]) ** 3, tol=1e-12))


class Model:
    def __init__(self, X, y):
        self.X, self.y = X, y

    def predict(self, w):
        return self.X @ w

    def __call__(self, w):
        r = self.predict(w) - self.y
        return r @ r


MOD = Model(XA, rng.normal(size=4))
add(pair("r8_callable_object_calls_own_method", lambda: revsrc.grad(MOD)(np.ones(3)),
         lambda: 2 * XA.T @ (XA @ np.ones(3) - MOD.y), tol=1e-12))
add(pair("r8_hessian_callable_object", lambda: revsrc.hessian(MOD)(np.ones(3)), lambda: 2 * XA.T @ XA, tol=1e-12))


def tree_leaves_sum(params):
    return sum(np.sum(leaf ** 2) for leaf in revsrc.tree_leaves(params))


def _no_internal_module(thunk):
    """The harness's check of refusal texts does not know revsrc.core: a refusal naming
    a module under revsrc.core is reported here as a crash (an internal name)."""
    def run(*a):
        try:
            return thunk(*a)
        except revsrc.RevsrcError as e:
            if "revsrc.core" in str(e):
                raise RuntimeError("refusal names an internal module: " + str(e).splitlines()[0]) from None
            raise
    return run


add(pair("r8_tree_leaves_inside_loss", lambda: _no_internal_module(revsrc.grad(tree_leaves_sum))({"a": np.array([1.0, 2.0]), "b": (3.0, np.array([4.0]))}),
         lambda: {"a": np.array([2.0, 4.0]), "b": (6.0, np.array([8.0]))}, tol=1e-12))


def partial_of_method(x):
    f = functools.partial(Potential.energy)
    return f(x) + 1.0


add(pair("r8_partial_of_classmethod_inside", lambda: revsrc.grad(partial_of_method)(np.array([1.0])), lambda: np.array([8.0]), tol=1e-12))
