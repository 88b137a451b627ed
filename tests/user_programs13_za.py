"""Round 13, part za: where else a constant array reaches a helper -- global tuples and
dicts of arrays, dataclass default_factory fields, class attributes, tuple defaults turned
into arrays, `None` defaults filled in, view defaults, NumPy int defaults."""
import dataclasses

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
W = np.array([1.0, -1.0, 2.0])
X = np.array([0.5, 1.0, 1.5])
REF = lambda: 2 * W * X  # noqa: E731
GT = (W, 2.0)
GD = {"w": W, "s": 2.0}


def from_global_tuple(x):
    return np.sum(GT[0] * x ** 2)


def from_global_dict(x):
    return np.sum(GD["w"] * x ** 2)


@dataclasses.dataclass
class Cfg:
    w: np.ndarray = dataclasses.field(default_factory=lambda: np.array([1.0, -1.0, 2.0]))

    def loss(self, x):
        return np.sum(self.w * x ** 2)


CF = Cfg()


class K:
    w = W

    def loss(self, x):
        return np.sum(self.w * x ** 2)


KK = K()


def tuple_default(x, w=(1.0, -1.0, 2.0)):
    return np.sum(np.array(w) * x ** 2)


def none_default(x, w=None):
    if w is None:
        w = W
    return np.sum(w * x ** 2)


def view_default(x, w=W[::-1]):
    return np.sum(w[::-1] * x ** 2)


def npint_default(x, n=np.int64(2)):
    return np.sum(W * x ** n)


def object_default(x, *, cfg=CF):
    return cfg.loss(x)


add(G("r13_za_global_tuple_of_array", from_global_tuple, (X,), ref=REF, tol=0.0))
add(G("r13_za_global_dict_of_array", from_global_dict, (X,), ref=REF, tol=0.0))
add(G("r13_za_dataclass_default_factory_method", lambda x: CF.loss(x), (X,), ref=REF, tol=0.0))
add(G("r13_za_class_attribute_array", lambda x: KK.loss(x), (X,), ref=REF, tol=0.0))
add(G("r13_za_tuple_default_to_array", lambda x: tuple_default(x), (X,), ref=REF, tol=0.0))
add(G("r13_za_none_default_filled", lambda x: none_default(x), (X,), ref=REF, tol=0.0))
add(G("r13_za_view_default", lambda x: view_default(x), (X,), ref=REF, tol=0.0))
add(G("r13_za_numpy_int_default", lambda x: npint_default(x), (X,), ref=REF, tol=0.0))
add(G("r13_za_object_default_method", lambda x: object_default(x), (X,), ref=REF, tol=0.0))
