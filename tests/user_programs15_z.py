"""Round 15, part z: small classes of the user's own -- a 2-D vector with operator
methods (__add__, __mul__, __rmul__, __neg__, __abs__, __getitem__, __iter__) built inside
the differentiated function, classmethod constructors, a staticmethod called on an
instance, a bound method of a slotted object, and the same programs with backend="jax"."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


class Vec2:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __add__(self, o):
        return Vec2(self.x + o.x, self.y + o.y)

    def __sub__(self, o):
        return Vec2(self.x - o.x, self.y - o.y)

    def __mul__(self, s):
        return Vec2(self.x * s, self.y * s)

    __rmul__ = __mul__

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def __abs__(self):
        return math.sqrt(self.x * self.x + self.y * self.y)

    def dot(self, o):
        return self.x * o.x + self.y * o.y

    @classmethod
    def polar(cls, r, th):
        return cls(r * math.cos(th), r * math.sin(th))

    @staticmethod
    def unit_x():
        return Vec2(1.0, 0.0)


def vec_ops(a):
    p = Vec2(a, 2.0)
    q = Vec2.polar(1.5, a)
    r = 2.0 * (p + q) - (-p) * 0.5
    return abs(r) + r.dot(p.unit_x())


add(G("r15_vec2_operator_methods_built_inside", vec_ops, (0.6,), ref="fd", tol=1e-8))


def vec_loop(a, n=20):
    pos = Vec2(0.0, 0.0)
    vel = Vec2.polar(a, 0.8)
    g = Vec2(0.0, -9.81)
    for _ in range(n):
        vel = vel + g * 0.01
        pos = pos + vel * 0.01
    return pos.x + pos.y


add(G("r15_vec2_rebound_in_loop", vec_loop, (3.0,), ref="fd", tol=1e-8))


class Poly:
    __slots__ = ("c",)

    def __init__(self, c):
        self.c = c

    def __call__(self, x):
        acc = 0.0
        for ck in self.c[::-1]:
            acc = acc * x + ck
        return acc


PSL = Poly((1.0, -2.0, 0.5))
add(G("r15_slotted_object_call_bound", PSL.__call__, (1.5,), ref=lambda: -2.0 + 1.5, tol=1e-14))
add(G("r15_slotted_callable_object", PSL, (1.5,), ref=lambda: -2.0 + 1.5, tol=1e-14))


class Seq:
    def __init__(self, vals):
        self.vals = vals

    def __getitem__(self, i):
        return self.vals[i] * 2.0

    def __len__(self):
        return len(self.vals)


def getitem_class(x):
    s = Seq([x, x * x, 3.0])
    return sum(s[i] for i in range(len(s)))


add(G("r15_getitem_len_class_built_inside", getitem_class, (1.5,), ref=lambda: 2.0 + 4 * 1.5, tol=1e-14))


def jax_closure_partial(w, X):
    scale = 0.5

    def act(z):
        return np.tanh(scale * z)

    h = act(X @ w)
    return np.sum(h ** 2) + math.exp(-0.0)


XJ = np.array([[1.0, 0.5], [-0.3, 2.0], [0.7, -1.0]])
WJ = np.array([0.4, -0.2])
add(pair("r15_jax_closure_nested_def", lambda: revsrc.grad(jax_closure_partial, backend="jax")(WJ, XJ),
         lambda: revsrc.grad(jax_closure_partial)(WJ, XJ), tol=1e-13))


def jax_math_traced(w):
    return math.exp(w[0]) * math.sin(w[1]) + math.sqrt(w[0] * w[0] + 1.0)


add(pair("r15_jax_math_on_traced_scalars", lambda: revsrc.grad(jax_math_traced, backend="jax")(WJ),
         lambda: revsrc.grad(jax_math_traced)(WJ), tol=1e-13))


def jax_linalg(A):
    B = A @ A.T + np.eye(2)
    L = np.linalg.cholesky(B)
    return np.linalg.det(B) + np.sum(np.linalg.inv(B)) + np.sum(L) + np.linalg.slogdet(B)[1] + np.sum(np.linalg.solve(B, np.ones(2)))


add(pair("r15_jax_linalg_family", lambda: revsrc.grad(jax_linalg, backend="jax")(XJ[:2]),
         lambda: revsrc.grad(jax_linalg)(XJ[:2]), tol=1e-12))


def jax_scan_item_assign(p):
    y = np.zeros(40)
    x = 0.1
    for i in range(40):
        x = x + 0.05 * (p - x * x)
        y[i] = x
    return np.sum(y * np.linspace(0.0, 1.0, 40))


add(pair("r15_jax_scan_item_assign", lambda: revsrc.grad(jax_scan_item_assign, backend="jax")(0.8),
         lambda: revsrc.grad(jax_scan_item_assign)(0.8), tol=1e-12))


def jax_labels(logits, labels):
    z = logits - np.max(logits, axis=1, keepdims=True)
    lp = z - np.log(np.sum(np.exp(z), axis=1, keepdims=True))
    return -np.mean(lp[np.arange(labels.shape[0]), labels])


LG = np.array([[0.1, 2.0, -1.0], [1.0, 0.0, 0.5]])
add(pair("r15_jax_int_labels_fancy_index", lambda: revsrc.grad(jax_labels, backend="jax")(LG, np.array([1, 2])),
         lambda: revsrc.grad(jax_labels)(LG, np.array([1, 2])), tol=1e-13))


def jax_early_return(x):
    if np.sum(x) > 0:
        return np.sum(x ** 2)
    return np.sum(np.sin(x))


add(pair("r15_jax_early_return_traced_if", lambda: (revsrc.grad(jax_early_return, backend="jax")(WJ), revsrc.grad(jax_early_return, backend="jax")(-WJ * 3)),
         lambda: (revsrc.grad(jax_early_return)(WJ), revsrc.grad(jax_early_return)(-WJ * 3)), tol=1e-13))


def jax_list_params(params, x):
    h = x
    for W in params:
        h = np.tanh(W @ h)
    return np.sum(h)


PLJ = [np.array([[0.5, -0.2], [0.1, 0.3]]), np.array([[1.0, 0.4], [-0.6, 0.2]])]
add(pair("r15_jax_list_of_weight_matrices", lambda: revsrc.grad(jax_list_params, backend="jax")(PLJ, np.array([1.0, -1.0])),
         lambda: revsrc.grad(jax_list_params)(PLJ, np.array([1.0, -1.0])), tol=1e-13))


class Model:
    def __init__(self, l2):
        self.l2 = l2

    def loss(self, w):
        return np.sum((XJ @ w - 1.0) ** 2) + self.l2 * np.sum(w ** 2)


add(pair("r15_jax_bound_method", lambda: revsrc.grad(Model(0.1).loss, backend="jax")(WJ), lambda: revsrc.grad(Model(0.1).loss)(WJ), tol=1e-13))
add(pair("r15_jax_getitem_class_built_inside", lambda: revsrc.grad(getitem_class, backend="jax")(1.5), lambda: 2.0 + 4 * 1.5, tol=1e-13))


def vec_attrs_only(a):
    # the documented way: objects made once, attributes read, methods returning numbers
    p = Vec2(a, 2.0)
    q = Vec2.polar(1.5, a)
    return abs(p) * q.dot(p) + p.x * q.y


add(G("r15_vec2_numbers_only_methods", vec_attrs_only, (0.6,), ref="fd", tol=1e-8))
