"""Round 13, part y: arrays reaching a helper other than as arguments of the call -- a
module-level functools.partial binding an array, a lambda's array default, closures and
callable objects holding arrays, keyword / **kwargs / *args passing."""
import functools

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append
W = np.array([1.0, -1.0, 2.0])
X = np.array([0.5, 1.0, 1.5])
REF = lambda: 2 * W * X  # noqa: E731


def h(x, w):
    return np.sum(w * x ** 2)


P_KW = functools.partial(h, w=W)
P_POS = functools.partial(lambda w, x: np.sum(w * x ** 2), W)


def calls_partial_kw(x):
    return P_KW(x)


def calls_partial_pos(x):
    return P_POS(x)


add(G("r13_y_partial_kw_array_direct", P_KW, (X,), ref=REF, tol=0.0))
add(G("r13_y_partial_kw_array_called_inside", calls_partial_kw, (X,), ref=REF, tol=0.0))
add(G("r13_y_partial_pos_array_called_inside", calls_partial_pos, (X,), ref=REF, tol=0.0))


def local_partial(x):
    p = functools.partial(h, w=W)
    return p(x)


add(G("r13_y_partial_made_inside", local_partial, (X,), ref=REF, tol=0.0))
LAM = lambda x, w=W: np.sum(w * x ** 2)  # noqa: E731


def calls_lambda_default(x):
    return LAM(x)


add(G("r13_y_lambda_array_default_inside", calls_lambda_default, (X,), ref=REF, tol=0.0))


def make(w):
    def inner(x):
        return np.sum(w * x ** 2)
    return inner


CL = make(W.copy())


def calls_closure(x):
    return CL(x)


add(G("r13_y_closure_holding_array", calls_closure, (X,), ref=REF, tol=0.0))


class Quad:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.sum(self.w * x ** 2)


QO = Quad(W.copy())


def calls_object(x):
    return QO(x)


add(G("r13_y_callable_object_array_attr", calls_object, (X,), ref=REF, tol=0.0))


def k(x, *, w):
    return np.sum(w * x ** 2)


add(G("r13_y_keyword_only_passed", lambda x: k(x, w=W), (X,), ref=REF, tol=0.0))
add(G("r13_y_keywords_reordered", lambda x: h(w=W, x=x), (X,), ref=REF, tol=0.0))


def star(*a):
    return np.sum(a[1] * a[0] ** 2)


def kw(x, **o):
    return np.sum(o["w"] * x ** 2)


add(G("r13_y_star_args_array", lambda x: star(x, W), (X,), ref=REF, tol=0.0))
add(G("r13_y_kwargs_array", lambda x: kw(x, w=W), (X,), ref=REF, tol=0.0))
add(pair("r13_y_partial_kw_array_vmap_grad", lambda: revsrc.vmap(revsrc.grad(calls_partial_kw))(np.stack([X, 2 * X])),
         lambda: np.stack([2 * W * X, 4 * W * X]), tol=0.0))
