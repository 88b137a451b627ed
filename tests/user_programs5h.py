"""User programs, corpus 5h: late binding, user classes, ufunc methods, array methods."""
import dataclasses
import math

import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- late binding of closures and generators ---------------------------------------------

def late_binding_defs(x):
    fs = []
    for k in range(3):
        def g(t):
            return t * k          # every g sees the last k (Python's late binding)
        fs.append(g)
    return fs[0](x) + fs[1](x) * x


add("late_binding_nested_defs", late_binding_defs, (1.5,))


def late_binding_lambdas(x):
    fs = [lambda t: t * k for k in range(3)]
    return fs[0](x) * x


add("late_binding_lambda_listcomp", late_binding_lambdas, (1.5,))


def rebound_after_lambda(x):
    k = 1.0
    g = lambda t: t * k  # noqa: E731
    k = 5.0
    return g(x) * x


add("closure_var_rebound_before_call", rebound_after_lambda, (1.5,))


def rebound_after_def(x):
    acc = x

    def h():
        return acc * 2.0
    acc = acc * acc
    return h()


add("nested_def_reads_rebound_var", rebound_after_def, (1.5,))


def default_binds_early(x):
    k = 2.0

    def g(t, k=k):
        return t * k
    k = 100.0
    return g(x) + k * 0.0


add("nested_def_default_binds_early", default_binds_early, (1.5,))


def lazy_genexpr(x):
    k = 1.0
    gen = (v * k for v in (x, 2.0 * x))
    k = 10.0
    return sum(gen)


add("genexpr_reads_var_lazily", lazy_genexpr, (1.5,))


def loop_var_after_loop(x):
    for i in range(4):
        pass
    for v in [x, 2 * x, 3 * x]:
        pass
    return x * i + v


add("loop_variables_after_loop", loop_var_after_loop, (1.5,))


def fib_tuple_swap(a0, b0):
    a, b = a0, b0
    for _ in range(5):
        a, b = b, a + b
    return a * b


add("fibonacci_tuple_swap_arrays", lambda a0, b0: np.sum(fib_tuple_swap(a0, b0)),
    (np.array([0.5, 1.0]), np.array([1.0, -0.5])), argnums=(0, 1))


def list_modified_while_iterating_index(x):
    xs = [x]
    i = 0
    while i < len(xs) and len(xs) < 5:
        xs.append(xs[i] * 0.5 + 1.0)
        i += 1
    return sum(xs)


add("list_grows_in_while", list_modified_while_iterating_index, (1.5,))


# ---- user classes inside the function ----------------------------------------------------

@dataclasses.dataclass
class Particle:
    x: float
    v: float

    def energy(self, k):
        return 0.5 * self.v ** 2 + 0.5 * k * self.x ** 2


def particles_energy(k, x0):
    ps = [Particle(x0, 0.1), Particle(2 * x0, -0.3)]
    return sum(p.energy(k) for p in ps)


add("dataclass_list_built_inside_method", particles_energy, (1.3, 0.4), argnums=(0, 1))


@dataclasses.dataclass
class Box:
    w: float
    h: float
    area: float = 0.0

    def __post_init__(self):
        self.area = self.w * self.h


def post_init_area(w):
    b = Box(w, 2.0)
    return b.area * w


add("dataclass_post_init", post_init_area, (1.5,))


class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)

    def __mul__(self, s):
        return Vec(self.x * s, self.y * s)

    def norm2(self):
        return self.x * self.x + self.y * self.y


def vec_ops(a):
    u = Vec(a, 1.0)
    w = Vec(0.5, a * a)
    return (u + w * 2.0).norm2()


add("operator_overloading_class", vec_ops, (0.7,))


class Scaled:
    def __init__(self, w):
        self._w = w

    @property
    def w(self):
        return self._w * 2.0

    def loss(self, x):
        return np.sum((self.w * x) ** 2)


add("property_in_method", Scaled(np.array([1.0, 0.5])).loss, (np.array([0.3, -0.2]),))


class Base:
    def __init__(self, s):
        self.s = s

    def f(self, x):
        return self.s * x * x


class Child(Base):
    def f(self, x):
        return super().f(x) + math.sin(x)


add("super_call_in_method", Child(3.0).f, (0.4,))


class ParamBag:
    def __init__(self, d):
        self.d = d

    def __getitem__(self, k):
        return self.d[k]


def getitem_container(x):
    bag = ParamBag({"a": 2.0})
    return bag["a"] * x * x


add("custom_getitem_built_inside", getitem_container, (1.5,))


def kwonly(x, *, w=2.0):
    return w * x ** 3


add("keyword_only_param", kwonly, (1.5,), kw={"w": 3.0})


def posonly(x, y, /, z=1.0):
    return x * y * z


add("positional_only_params", posonly, (1.5, 2.0), argnums=(0, 1))


# ---- ufunc methods and array methods -----------------------------------------------------

def ufunc_methods(x):
    return (np.sum(np.maximum.accumulate(x)) + np.add.reduce(x ** 2) + np.sum(np.multiply.outer(x, x))
            + np.minimum.reduce(x))


add("ufunc_accumulate_reduce_outer", ufunc_methods, (np.array([0.5, -1.0, 2.0, 1.0]),))


def array_methods(A):
    return (A.clip(0.0, 2.0).sum() + A.max(axis=0).sum() + A.cumsum().dot(np.arange(4.0)) + A.prod()
            + A.var() + A.trace() + A.flatten()[1] + A.swapaxes(0, 1)[0, 1] + A.mean(keepdims=True).squeeze())


add("ndarray_methods", array_methods, (np.array([[0.5, 1.5], [2.5, -0.3]]),))


def sum_where(x):
    return np.sum(x ** 2, where=x > 0) + np.mean(x, where=x < 1.0) + np.max(x, initial=0.0)


add("reductions_where_initial", sum_where, (np.array([0.5, -1.0, 2.0]),))


def batch_matmul_inv(A, B):
    C = A @ B
    return np.sum(np.linalg.inv(C + 3.0 * np.eye(2)))


add("batched_matmul_inv", batch_matmul_inv, (np.arange(8.0).reshape(2, 2, 2) / 10, np.array([[1.0, 0.2], [0.0, 1.0]])),
    argnums=(0, 1))


def einsum_ellipsis(A, B):
    return np.sum(np.einsum("...ij,...jk->...ik", A, B) ** 2)


add("einsum_ellipsis", einsum_ellipsis, (np.arange(8.0).reshape(2, 2, 2) / 10, np.array([[1.0, 0.2], [0.0, 1.0]])),
    argnums=(0, 1))


def stacking(x):
    a = np.concatenate([x, x * 2], axis=None)
    b = np.stack([x, x ** 2], axis=-1)
    c = np.column_stack([x, x])
    e = np.hstack([x, np.ones(1)])
    return np.sum(a) + np.sum(b[:, 1]) + np.sum(c ** 3) + np.sum(e * x[0])


add("concatenate_stack_hstack", stacking, (np.array([0.5, -1.0, 2.0]),))


def split_pieces(x):
    a, b, c = np.array_split(x, 3)
    p, q = np.split(x, [2])
    return np.sum(a) * np.sum(c ** 2) + np.sum(b) + np.sum(p * 2) - np.sum(q)


add("array_split_unequal", split_pieces, (np.array([0.5, -1.0, 2.0, 1.0, 3.0]),))


def products(a, b):
    return np.sum(np.cross(a, b) ** 2) + np.inner(a, b) + np.vdot(a, b) + np.sum(np.tensordot(np.outer(a, b), np.eye(3), axes=1))


add("cross_inner_vdot_tensordot", products, (np.array([0.5, -1.0, 2.0]), np.array([1.0, 3.0, 0.5])), argnums=(0, 1))


def matpow(A):
    return np.sum(np.linalg.matrix_power(A, 3))


add("matrix_power", matpow, (np.array([[0.5, 0.1], [0.2, 0.9]]),))


def negative_stride_write(x):
    y = x * 1.0
    r = y[::-1]
    r[:2] += x[:2]
    return np.sum(y * np.arange(1.0, 5.0))


add("negative_stride_view_write", negative_stride_write, (np.array([0.5, -1.0, 2.0, 1.0]),))


def mixed_fancy_slice_assign(A):
    B = np.zeros((3, 3))
    B[[0, 2], 1:] = A
    B[1] = B[0] * B[2]
    return np.sum(B ** 2)


add("fancy_and_slice_assign", mixed_fancy_slice_assign, (np.array([[0.5, -1.0], [2.0, 1.0]]),))


def mask_iadd(x):
    y = x.copy()
    m = x > 0
    y[m] += x[m] ** 2
    return np.sum(y * np.arange(1.0, 5.0))


add("mask_iadd", mask_iadd, (np.array([0.5, -1.0, 2.0, 1.0]),))


def add_at_2d(x):
    G = np.zeros((2, 2))
    np.add.at(G, (np.array([0, 1, 0]), np.array([1, 1, 1])), x)
    return np.sum(G ** 2)


add("add_at_2d_tuple_index", add_at_2d, (np.array([0.5, -1.0, 2.0]),))


def sum_of_list_of_arrays(x):
    parts = [x * k for k in range(1, 4)]
    total = sum(parts)
    return np.sum(total ** 2) + float(min(list(x)))


add("builtin_sum_of_arrays", sum_of_list_of_arrays, (np.array([0.5, -1.0]),))


def sorted_numpy_array(x):
    s = sorted(x)
    return s[0] * 2.0 + s[-1]


add("builtin_sorted_of_array", sorted_numpy_array, (np.array([0.5, -1.0, 2.0]),))


def isfinite_guard(x):
    y = np.log(x)
    y = np.where(np.isfinite(y), y, 0.0)
    return np.sum(y * x) if math.isfinite(float(x[0])) else 0.0


add("isfinite_guards", isfinite_guard, (np.array([0.5, 1.0, 2.0]),))


def block_matrix(x):
    return np.sum(np.block([[x[:1], x[1:2]], [x[2:3], x[:1]]]) ** 2)


add("np_block", block_matrix, (np.array([0.5, -1.0, 2.0]),))


def lambda_default_binds_early(x):
    k = 2.0
    g = lambda t, k=k: t * k  # noqa: E731
    k = 100.0
    return g(x) + k * 0.0


add("lambda_default_binds_early", lambda_default_binds_early, (1.5,))

SCALE = 2.0


def helper_with_global_default(t, k=SCALE):
    return t * k


def uses_global_default(x):
    return helper_with_global_default(x) * x


def _global_default_frozen():
    global SCALE
    from user_programs5_harness import fd_grad
    SCALE = 50.0            # the default was bound when the def ran: 2.0
    try:
        import revsrc
        got = revsrc.grad(uses_global_default)(1.5)
        exp = fd_grad(uses_global_default, (1.5,), {}, 0)[0]
    finally:
        SCALE = 2.0
    return got, exp


add("default_bound_at_def_not_global_now", _global_default_frozen, t="custom")


def genexpr_list_lazy(x):
    xs = [x, 2.0 * x]
    gen = (v * v for v in xs)
    xs = [10.0 * x]           # the generator already holds the first list
    return sum(gen) + xs[0]


add("genexpr_iterable_bound_early", genexpr_list_lazy, (1.5,))


def genexpr_appended_before_use(x):
    xs = [x]
    gen = (v * 3.0 for v in xs)
    xs.append(x * x)          # the same list: the generator sees the new item
    return sum(gen)


add("genexpr_sees_later_append", genexpr_appended_before_use, (1.5,))


def map_lazy_closure(x):
    k = 1.0
    m = list(map(lambda v: v * k, [x, x]))
    k = 3.0
    return sum(m) * k


add("map_read_at_once_then_rebind", map_lazy_closure, (1.5,))
