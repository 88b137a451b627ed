"""User programs, corpus 5a: classes, closures, in-place NumPy, views, control flow."""
import dataclasses
import functools
import math
from typing import NamedTuple

import numpy as np

import revsrc
from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- classes and dataclasses -------------------------------------------------------

@dataclasses.dataclass
class Linear:
    W: np.ndarray
    b: np.ndarray


def dc_loss(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) ** 2)


add("dataclass_params", dc_loss, (Linear(np.array([[0.3, -0.2], [0.1, 0.5]]), np.array([0.1, -0.1])),
                                  np.array([[1.0, 2.0], [-1.0, 0.5]])))


@dataclasses.dataclass
class Cfg:
    w: float
    n: int = dataclasses.field(default=3, metadata={"static": True})


def dc_static(c, x):
    acc = 0.0
    for i in range(c.n):
        acc = acc + c.w * x ** i
    return acc


add("dataclass_static_field", dc_static, (Cfg(0.7, 4), 1.3))


class Poly:
    def __init__(self, coefs):
        self.coefs = coefs

    def __call__(self, x):
        acc = 0.0
        for c in reversed(self.coefs):
            acc = acc * x + c
        return acc


add("callable_object_horner", Poly([1.0, -2.0, 0.5, 0.25]), (1.7,))


class Scaler:
    def __init__(self, s):
        self.s = s

    def apply(self, x):
        return self.s * x

    def loss(self, x):
        return np.sum(self.apply(x) ** 2) + self.helper(x)

    def helper(self, x):
        return np.sum(np.sin(x))


add("method_calls_methods", Scaler(2.5).loss, (np.array([0.2, -0.4, 1.1]),))


class Counter:
    def __init__(self):
        self.calls = 0

    def f(self, x):
        return x * x * self.calls


_ctr = Counter()


def attr_changed_between_calls():
    g = revsrc.grad(_ctr.f)
    _ctr.calls = 1
    a = g(3.0)
    _ctr.calls = 5
    b = g(3.0)
    return (a, b), (6.0, 30.0)


add("attribute_changed_between_calls", attr_changed_between_calls, t="custom")


class Params(NamedTuple):
    a: float
    b: np.ndarray


def nt_loss(p, x):
    return p.a * np.sum(p.b * x) + p.a ** 2


add("namedtuple_params", nt_loss, (Params(0.5, np.array([1.0, 2.0])), np.array([3.0, -1.0])))


def nt_build(x):
    p = Params(x * 2.0, np.array([x, x * x]))
    return p.a * np.sum(p.b)


add("namedtuple_built_inside", nt_build, (0.7,))


def nt_replace(x):
    p = Params(x, np.array([1.0, 2.0]))
    q = p._replace(a=p.a * 3.0)
    return q.a * q.b[1]


add("namedtuple_replace", nt_replace, (0.7,))


class Layer:
    def __init__(self, W, act):
        self.W, self.act = W, act

    def __call__(self, h):
        return self.act(h @ self.W)


def layers_inside(W1, W2, x):
    net = [Layer(W1, np.tanh), Layer(W2, np.sin)]
    h = x
    for layer in net:
        h = layer(h)
    return np.sum(h)


add("layer_objects_built_inside", layers_inside,
    (np.array([[0.5, -0.3], [0.2, 0.1]]), np.array([[1.0], [-0.5]]), np.array([[1.0, 2.0]])), argnums=(0, 1))


class Model:
    scale = 2.0

    @staticmethod
    def sq(x):
        return x * x

    @classmethod
    def cls_loss(cls, x):
        return cls.scale * cls.sq(x)


add("classmethod_classattr", Model.cls_loss, (1.5,))


@dataclasses.dataclass(frozen=True)
class Frozen:
    k: float
    m: float


def spring_energy(p, x):
    return 0.5 * p.k * x * x + 0.5 * p.m * (x * 0.1) ** 2


add("frozen_dataclass_argnum1", spring_energy, (Frozen(2.0, 3.0), 0.4), argnums=(0, 1))


def dict_params_items(params, x):
    total = 0.0
    for k, v in sorted(params.items()):
        total = total + np.sum(v * x) * (2.0 if k == "a" else 1.0)
    return total


add("dict_sorted_items", dict_params_items, ({"b": np.array([1.0, 2.0]), "a": np.array([0.5, -1.0])}, np.array([1.0, 3.0])))


def nested_pytree(p, x):
    (w1, b1), rest = p["layers"][0], p["layers"][1:]
    h = np.tanh(w1 * x + b1)
    for w, b in rest:
        h = np.tanh(w * h + b)
    return np.sum(h) + p["scale"] ** 2


add("nested_pytree_unpack_rest", nested_pytree,
    ({"layers": [(np.array([0.5, 1.0]), 0.1), (np.array([1.5, -1.0]), -0.2), (np.array([0.3, 0.3]), 0.0)],
      "scale": 1.5}, np.array([0.2, -0.7])))


def pytree_none_leaf(p, x):
    return p[0] * x + (0.0 if p[1] is None else p[1])


add("pytree_none_leaf", pytree_none_leaf, ((2.0, None), 3.0))


# ---- closures, factories, decorators ------------------------------------------------

def make_loss(target):
    def loss(x):
        return np.sum((x - target) ** 2)
    return loss


add("closure_factory", make_loss(np.array([1.0, 2.0])), (np.array([0.5, 0.5]),))


def make_counter_closure():
    coef = [1.0]

    def f(x):
        return coef[0] * x * x
    return f, coef


def closure_list_mutated_between_calls():
    f, coef = make_counter_closure()
    g = revsrc.grad(f)
    a = g(2.0)
    coef[0] = 10.0
    b = g(2.0)
    return (a, b), (4.0, 40.0)


add("closure_list_mutated_between_calls", closure_list_mutated_between_calls, t="custom")


def make_adder_chain(n):
    fs = [lambda x, k=k: x * (k + 1) for k in range(n)]

    def f(x):
        acc = x
        for g in fs:
            acc = g(acc)
        return acc
    return f


add("lambda_default_capture_chain", make_adder_chain(3), (1.5,))


def cached(fn):
    cache = {}

    def wrapper(x):
        return fn(x)
    wrapper.cache = cache
    return wrapper


@cached
def decorated_cached(x):
    return math.exp(x) * x


add("decorator_with_attribute", decorated_cached, (0.3,))


def scale_output(k):
    def deco(fn):
        @functools.wraps(fn)
        def w(*a, **kw):
            return k * fn(*a, **kw)
        return w
    return deco


@scale_output(3.0)
@scale_output(2.0)
def double_decorated(x, y=1.0):
    return x * y + math.sin(x)


add("stacked_param_decorators", double_decorated, (0.4,), kw={"y": 2.0})


def compose(*fns):
    return functools.reduce(lambda f, g: lambda x: g(f(x)), fns)


add("functools_reduce_compose", compose(math.sin, math.exp, math.log1p), (0.5,))


def reduce_product(xs):
    return functools.reduce(lambda a, b: a * b, xs, 1.0)


add("functools_reduce_inside", lambda x: reduce_product([x, x + 1.0, 2.0 * x]), (0.8,))


def partial_kw(x, a, b=1.0):
    return a * x ** 3 + b * x


add("partial_positional_and_kw", functools.partial(partial_kw, a=2.0, b=-1.0), (1.2,))


_p2 = functools.partial(partial_kw, 1.3)


def uses_partial_global(a):
    return _p2(a, b=0.5)


add("global_partial_called_inside", uses_partial_global, (0.7,))


GLOBAL_K = 2.0


def uses_global(x):
    return GLOBAL_K * x * x


def global_rebinding():
    global GLOBAL_K
    g = revsrc.grad(uses_global)
    GLOBAL_K = 2.0
    a = g(3.0)
    GLOBAL_K = 7.0
    b = g(3.0)
    GLOBAL_K = 2.0
    return (a, b), (12.0, 42.0)


add("global_float_rebinding", global_rebinding, t="custom")

ACT = np.tanh


def uses_act(x):
    return np.sum(ACT(x))


def global_fn_rebinding():
    global ACT
    g = revsrc.grad(uses_act)
    x = np.array([0.3, 0.5])
    ACT = np.tanh
    a = g(x)
    ACT = np.sin
    b = g(x)
    ACT = np.tanh
    return (a, b), (1 - np.tanh(x) ** 2, np.cos(x))


add("global_function_rebinding", global_fn_rebinding, t="custom")

GLOBAL_ARR = np.array([1.0, 2.0, 3.0])


def uses_global_arr(x):
    return np.sum(GLOBAL_ARR * x)


def global_array_mutated_inplace():
    g = revsrc.grad(uses_global_arr)
    x = np.array([1.0, 1.0, 1.0])
    a = g(x).copy()
    GLOBAL_ARR[0] = 10.0
    b = g(x).copy()
    GLOBAL_ARR[0] = 1.0
    return (a, b), (np.array([1.0, 2.0, 3.0]), np.array([10.0, 2.0, 3.0]))


add("global_array_mutated_inplace", global_array_mutated_inplace, t="custom")

TABLE = {"a": 1.0}


def uses_table(x):
    return TABLE["a"] * x ** 2


def global_dict_mutated():
    g = revsrc.grad(uses_table)
    a = g(1.0)
    TABLE["a"] = 4.0
    b = g(1.0)
    TABLE["a"] = 1.0
    return (a, b), (2.0, 8.0)


add("global_dict_item_mutated", global_dict_mutated, t="custom")


# ---- in-place NumPy and views -------------------------------------------------------

def inplace_slices(x):
    y = np.zeros(5)
    y[1:4] += x
    y[::2] *= 2.0
    y[-1] -= x[0]
    return np.sum(y * y)


add("inplace_slice_augassign", inplace_slices, (np.array([0.5, -1.0, 2.0]),))


def fancy_repeat_augassign(x):
    y = np.zeros(3)
    idx = np.array([0, 0, 2, 2, 2])
    y[idx] += x          # NumPy buffered: repeated indices do NOT accumulate
    return np.sum(y ** 2)


add("fancy_augassign_repeated_idx", fancy_repeat_augassign, (np.array([1.0, 2.0, 3.0, 4.0, 5.0]),))


def add_at_repeat(x):
    y = np.zeros(3)
    np.add.at(y, [0, 0, 2, 1, 2], x)
    return np.sum(y ** 3)


add("np_add_at_repeat", add_at_repeat, (np.array([1.0, 2.0, 3.0, 4.0, 5.0]),))


def out_kwarg(x):
    y = np.empty_like(x)
    np.multiply(x, x, out=y)
    return np.sum(y)


add("ufunc_out_kwarg", out_kwarg, (np.array([1.0, 2.0]),))


def reshape_view_write(x):
    y = x * 1.0
    m = y.reshape(2, 3)
    m[:, 0] = m[:, 1] * m[:, 2]
    return np.sum(y * np.arange(6.0))


add("reshape_view_write", reshape_view_write, (np.linspace(0.1, 0.6, 6),))


def transpose_view_write(A):
    B = A.copy()
    Bt = B.T
    Bt[0, :] *= 3.0
    return np.sum(B * B)


add("transpose_view_write", transpose_view_write, (np.array([[1.0, 2.0], [3.0, 4.0]]),))


def ravel_write(A):
    B = A * 2.0
    r = B.ravel()
    r[0] = r[-1] ** 2
    return np.sum(B)


add("ravel_write_contiguous", ravel_write, (np.array([[1.0, 2.0], [3.0, 4.0]]),))


def ravel_noncontig_write(A):
    B = (A * 2.0).T
    r = B.ravel()          # a copy here: B is not contiguous
    r[0] = 100.0
    return np.sum(B * B) + np.sum(r)


add("ravel_noncontiguous_write", ravel_noncontig_write, (np.array([[1.0, 2.0], [3.0, 4.0]]),))


def diagonal_read(A):
    return np.sum(np.diagonal(A) ** 2) + np.trace(A @ A)


add("diagonal_trace", diagonal_read, (np.array([[1.0, 2.0], [3.0, 4.0]]),))


def sliding_window(x):
    w = np.lib.stride_tricks.sliding_window_view(x, 3)
    return np.sum(np.prod(w, axis=1))


add("sliding_window_view", sliding_window, (np.array([0.5, 1.0, 1.5, 2.0, 2.5]),))


def as_strided_read(x):
    w = np.lib.stride_tricks.as_strided(x, shape=(3, 2), strides=(8, 8))
    return np.sum(w ** 2)


add("as_strided_overlap", as_strided_read, (np.array([1.0, 2.0, 3.0, 4.0]),))


def fill_diag(A):
    B = A @ A.T
    np.fill_diagonal(B, 1.0)
    return np.sum(B ** 2)


add("fill_diagonal_constant", fill_diag, (np.array([[1.0, 0.5], [0.2, -0.3]]),))


def bool_mask_assign(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[y > 1.0] *= 0.5
    return np.sum(y ** 2)


add("bool_mask_assign", bool_mask_assign, (np.array([-1.0, 0.5, 2.0, 3.0]),))


def int_idx_gather(x):
    idx = np.array([2, 0, 2, 1])
    return np.sum(x[idx] ** 2 * np.array([1.0, 2.0, 3.0, 4.0]))


add("int_gather_repeat", int_idx_gather, (np.array([0.5, 1.5, -2.0]),))


def take_put(x):
    y = np.zeros(4)
    np.put(y, [0, 3], x[:2])
    return np.sum(np.take(y, [3, 3, 0]) * x[2])


add("np_put_take", take_put, (np.array([1.0, 2.0, 3.0]),))


def ellipsis_newaxis(A):
    B = A[..., None] * A[:, None, :]
    return np.sum(B[..., 0] ** 2)


add("ellipsis_newaxis", ellipsis_newaxis, (np.array([[1.0, 2.0], [3.0, -1.0]]),))


def swap_rows(A):
    B = A.copy()
    B[[0, 1]] = B[[1, 0]]
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]))


add("swap_rows_fancy", swap_rows, (np.array([[1.0, 2.0], [5.0, 7.0]]),))


def swap_rows_tuple(A):
    B = A.copy()
    B[0], B[1] = B[1], B[0]       # classic aliasing bug: both rows become the old row 1
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]))


add("swap_rows_tuple_alias", swap_rows_tuple, (np.array([[1.0, 2.0], [5.0, 7.0]]),))


def cumsum_inplace(x):
    y = x.copy()
    np.cumsum(y, out=y)
    return np.sum(y ** 2)


add("cumsum_out_self", cumsum_inplace, (np.array([1.0, 2.0, 3.0]),))


def iadd_alias(x):
    y = x * 1.0
    z = y
    z += 1.0
    return np.sum(y * x)


add("iadd_through_alias", iadd_alias, (np.array([1.0, 2.0]),))
