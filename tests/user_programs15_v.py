"""Round 15, part v: one derivative object called with changing argument kinds -- shapes,
dtypes, ints vs floats, list lengths, dict keys, None vs a value, keyword vs positional,
strings that choose a branch, tuple lengths, 0-d vs 1-d -- each call checked against a
fresh reference (a program cached for one kind must not answer for another)."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append


def flexible(x, mode="sq", scale=None, extra=()):
    if mode == "sq":
        y = np.sum(x * x)
    elif mode == "abs":
        y = np.sum(np.abs(x))
    else:
        y = np.sum(np.sin(x))
    if scale is not None:
        y = y * scale
    for e in extra:
        y = y + e * np.sum(x)
    return y


CALLS = [
    ((np.array([1.0, -2.0]),), {}),
    ((np.array([1.0, -2.0, 3.0]),), {}),
    ((np.array([[1.0, -2.0], [0.5, 0.25]]),), {}),
    ((np.array([1.0, -2.0]),), {"mode": "abs"}),
    ((np.array([1.0, -2.0]),), {"mode": "sin"}),
    ((np.array([1.0, -2.0]), "abs"), {}),
    ((np.array([1.0, -2.0]),), {"scale": 3.0}),
    ((np.array([1.0, -2.0]),), {"scale": 2}),
    ((np.array([1.0, -2.0]),), {"extra": (1.0,)}),
    ((np.array([1.0, -2.0]),), {"extra": (1.0, 2.0, 3.0)}),
    ((np.array([1.0, -2.0]),), {"extra": [0.5]}),
    ((np.array(1.5),), {}),
    ((1.5,), {}),
    ((np.array([1.0, -2.0], dtype=np.float32),), {}),
    ((np.array([1.0, -2.0]),), {}),
]


def _grad_ref(x, mode="sq", scale=None, extra=()):
    x = np.asarray(x, dtype=float)
    g = 2 * x if mode == "sq" else (np.sign(x) if mode == "abs" else np.cos(x))
    if scale is not None:
        g = g * scale
    return g + sum(extra) * np.ones_like(x)


def _one_grad():
    g = revsrc.grad(flexible)
    return [np.asarray(g(*a, **k), dtype=float) for a, k in CALLS]


add(pair("r15_one_grad_many_argument_kinds", _one_grad, lambda: [_grad_ref(*a, **k) for a, k in CALLS], tol=1e-6))


def _one_vg():
    g = revsrc.value_and_grad(flexible)
    return [float(g(*a, **k)[0]) for a, k in CALLS]


add(pair("r15_one_value_and_grad_values_many_kinds", _one_vg, lambda: [float(flexible(*a, **k)) for a, k in CALLS], tol=1e-6))


def dict_loss(p):
    return sum(np.sum(v ** 2) * (i + 1) for i, (k, v) in enumerate(sorted(p.items())))


DICTS = [{"a": np.ones(2)}, {"a": np.ones(2), "b": 2.0}, {"b": 2.0, "a": np.ones(2)}, {"a": np.ones(3), "c": np.array([1.0, 2.0])}, {"z": 1.0}]


def _dict_ref(p):
    return {k: 2 * np.asarray(v) * (i + 1) for i, (k, v) in enumerate(sorted(p.items()))}


add(pair("r15_one_grad_changing_dict_keys", lambda: _dict_seq(),
         lambda: [_dict_ref(d) for d in DICTS], tol=1e-14))


def _dict_seq():
    g = revsrc.grad(dict_loss)
    return [g(d) for d in DICTS]


def list_loss(xs):
    return sum(np.sum(x * x) * (i + 1) for i, x in enumerate(xs))


LISTS = [[1.0, 2.0], [1.0, 2.0, 3.0], [2.0], [np.array([1.0, 2.0]), 3.0], [1.0, 2.0]]


def _list_seq():
    g = revsrc.grad(list_loss)
    return [g(v) for v in LISTS]


add(pair("r15_one_grad_changing_list_lengths", _list_seq,
         lambda: [[2 * np.asarray(x) * (i + 1) for i, x in enumerate(v)] for v in LISTS], tol=1e-14))


def int_branch(x, n):
    if n > 2:
        return x ** n
    return x * n


def _jit_seq():
    j = revsrc.jit(revsrc.grad(int_branch))
    return [j(1.5, n) for n in (1, 3, 2, 5, 3)]


add(pair("r15_jit_grad_changing_int_argument", _jit_seq, lambda: [n * 1.5 ** (n - 1) if n > 2 else float(n) for n in (1, 3, 2, 5, 3)], tol=1e-13))


def _vmap_seq():
    v = revsrc.vmap(revsrc.grad(int_branch), in_axes=(0, None))
    return [v(np.array([1.5, 2.0]), n) for n in (1, 3, 2)]


add(pair("r15_vmap_grad_changing_int_argument", _vmap_seq,
         lambda: [np.array([n * x ** (n - 1) if n > 2 else float(n) for x in (1.5, 2.0)]) for n in (1, 3, 2)], tol=1e-13))


def _hess_seq():
    h = revsrc.hessian(flexible)
    return [h(np.array([1.0, -2.0])), h(np.array([1.0, -2.0, 0.5]), "sin"), h(np.array([1.0, -2.0]), scale=3.0)]


add(pair("r15_one_hessian_changing_shapes_and_modes", _hess_seq,
         lambda: [2 * np.eye(2), np.diag(-np.sin(np.array([1.0, -2.0, 0.5]))), 6 * np.eye(2)], tol=1e-13))


def _jac_seq():
    j = revsrc.jacrev(lambda x, k: np.sin(x) * k)
    return [j(np.array([0.1, 0.2]), 2.0), j(np.array([0.1, 0.2, 0.3]), 1.0), j(np.array([[0.1], [0.2]]), 3.0)]


add(pair("r15_one_jacrev_changing_shapes", _jac_seq,
         lambda: [np.diag(2 * np.cos([0.1, 0.2])), np.diag(np.cos([0.1, 0.2, 0.3])),
                  (3 * np.cos(np.array([0.1, 0.2]))[:, None, None, None] * np.eye(2)[:, None, :, None])], tol=1e-13))


def _jax_seq():
    g = revsrc.grad(flexible, backend="jax")
    return [np.asarray(g(*a, **k), dtype=float) for a, k in CALLS[:6]]


add(pair("r15_jax_one_grad_many_argument_kinds", _jax_seq, lambda: [_grad_ref(*a, **k) for a, k in CALLS[:6]], tol=1e-6))


# -- programs that share code objects: closures, lambdas with defaults, partials, bound
#    methods of instances with different attributes, a global tuple of functions

def _make_closure(k):
    def f(x):
        return k * math.sin(x)
    return f


CLOSURES = [_make_closure(k) for k in (1.0, 2.0, 3.0)]
add(pair("r15_same_code_closures_grad_jit_vmap_hessian",
         lambda: ([revsrc.grad(f)(0.0) for f in CLOSURES], [revsrc.jit(f)(math.pi / 2) for f in CLOSURES],
                  [revsrc.vmap(revsrc.grad(f))(np.array([0.0]))[0] for f in CLOSURES], [revsrc.hessian(f)(math.pi / 2) for f in CLOSURES]),
         lambda: ([1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [1.0, 2.0, 3.0], [-1.0, -2.0, -3.0]), tol=1e-15))
LAMBDAS = [lambda x, k=k: k * x * x for k in (1.0, 2.0, 3.0)]
add(pair("r15_same_code_lambdas_with_defaults", lambda: ([revsrc.grad(f)(1.0) for f in LAMBDAS], [revsrc.jit(f)(1.0) for f in LAMBDAS]),
         lambda: ([2.0, 4.0, 6.0], [1.0, 2.0, 3.0]), tol=0.0))


def _base(x, k, p):
    return k * x ** p


PARTIALS = [functools.partial(_base, k=k, p=p) for k, p in ((1.0, 2), (2.0, 3), (3.0, 2.0))]
add(pair("r15_partials_different_bound_values", lambda: ([revsrc.grad(f)(2.0) for f in PARTIALS], [revsrc.jit(revsrc.grad(f))(2.0) for f in PARTIALS]),
         lambda: ([4.0, 24.0, 12.0], [4.0, 24.0, 12.0]), tol=0.0))


class _Cube:
    def __init__(self, k):
        self.k = k

    def f(self, x):
        return self.k * x ** 3


add(pair("r15_bound_methods_int_then_float_attribute", lambda: (revsrc.grad(_Cube(2).f)(1.5), revsrc.jit(_Cube(2).f)(1.5), revsrc.jit(_Cube(2.5).f)(1.5)),
         lambda: (2 * 3 * 2.25, 2 * 3.375, 2.5 * 3.375), tol=0.0))

FUNCS = (math.sin, math.cos, math.exp)


def _pick(x, i):
    return FUNCS[i](x) * 2.0


_PICK_REF = [2 * math.cos(0.5), -2 * math.sin(0.5), 2 * math.exp(0.5), 2 * math.cos(0.5)]
add(pair("r15_global_tuple_of_functions_int_key", lambda: ([revsrc.grad(_pick)(0.5, i) for i in (0, 1, 2, 0)], [revsrc.jit(revsrc.grad(_pick))(0.5, i) for i in (0, 1, 2, 0)]),
         lambda: (_PICK_REF, _PICK_REF), tol=1e-15))
