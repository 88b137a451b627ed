"""Round 13, part n: harder probes mixing the round's styles -- views written through in
loops, aliases, defaults of other kinds, closures over loop state, jit/vmap of scalar
programs with branches, float32 and complex in loops."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def col_view_loop(x):
    A = np.zeros((3, 3))
    for j in range(3):
        c = A[:, j]
        c += x * (j + 1)
        c[j] = x[j] ** 2
    return np.sum(A * np.arange(9).reshape(3, 3))


X3 = np.array([0.5, -1.0, 2.0])
add(G("r13_n_column_view_in_loop", col_view_loop, (X3,), ref="fd"))


def alias_chain(x):
    y = x.copy()
    z = y
    z *= 2.0
    w = y[1:]
    w += y[:-1]
    return np.sum(y ** 2) + np.sum(z)


add(G("r13_n_alias_chain", alias_chain, (X3,), ref="fd"))


def rev_view(x):
    y = x.copy()
    r = y[::-1]
    r[0] = r[1] * r[2]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))


add(G("r13_n_reversed_view_write", rev_view, (X3,), ref="fd"))


def diag_view_write(x):
    A = np.ones((3, 3))
    d = A.reshape(-1)[::4]
    d[:] = x
    return np.sum(A @ A)


add(G("r13_n_diag_via_reshape_stride", diag_view_write, (X3,), ref="fd"))


TUP_DEFAULT = (0.5, 2.0)


def tuple_default(x, ab=TUP_DEFAULT):
    return ab[0] * x ** 2 + ab[1] * x


def uses_tuple_default(x):
    return tuple_default(x) * 2.0


add(G("r13_n_helper_tuple_default", uses_tuple_default, (1.5,), ref=lambda: 2 * (1.5 + 2.0), tol=1e-14))


def dict_default(x, cfg={"k": 3.0}):
    return cfg["k"] * x


def uses_dict_default(x):
    return dict_default(x) + x


add(G("r13_n_helper_dict_default", uses_dict_default, (1.5,), ref=lambda: 4.0, tol=1e-14))


def list_default(x, ws=[1.0, 2.0]):
    return sum(w * x ** i for i, w in enumerate(ws))


def uses_list_default(x):
    return list_default(x)


add(G("r13_n_helper_list_default", uses_list_default, (1.5,), ref=lambda: 2.0, tol=1e-14))


def f32_default(x, w=np.float32(2.0)):
    return w * x


def uses_f32_default(x):
    return f32_default(x) * x


add(G("r13_n_helper_numpy_scalar_default", uses_f32_default, (1.5,), ref=lambda: 6.0, tol=1e-14))


def zero_d_default(x, w=np.array(2.0)):
    return w * x


def uses_zero_d_default(x):
    return zero_d_default(x) * x


add(G("r13_n_helper_0d_array_default", uses_zero_d_default, (1.5,), ref=lambda: 6.0, tol=1e-14))


class Cfg:
    def __init__(self, w):
        self.w = w

    def apply(self, x, scale=np.array([1.0, 2.0, 3.0])):
        return np.sum(self.w * x * scale)


CFG = Cfg(0.5)


def bound_method_array_default(x):
    return CFG.apply(x)


add(G("r13_n_method_array_default", bound_method_array_default, (X3,), ref=lambda: 0.5 * np.array([1.0, 2.0, 3.0]), tol=1e-14))


def kwonly_array_default(x, *, w=np.array([1.0, -1.0, 2.0])):
    return np.sum(w * x ** 2)


def uses_kwonly_array_default(x):
    return kwonly_array_default(x)


add(G("r13_n_kwonly_array_default", uses_kwonly_array_default, (X3,), ref=lambda: 2 * np.array([1.0, -1.0, 2.0]) * X3, tol=1e-14))


def branchy_scalar(x, y):
    if x > y:
        z = x * y
    elif x > 0:
        z = math.exp(x) - y
    else:
        z = math.sin(y) * x
    while z > 10:
        z = z / 3.0
    return z


PTS = [(2.0, 1.0), (0.5, 1.0), (-0.5, 1.0), (5.0, 4.0)]
add(pair("r13_n_jit_grad_branchy", lambda: [revsrc.jit(revsrc.grad(branchy_scalar, argnums=(0, 1)))(a, b) for a, b in PTS],
         lambda: [fd_checked(branchy_scalar, (a, b), argnums=(0, 1)) for a, b in PTS], tol=1e-7))
add(pair("r13_n_vmap_branchy", lambda: revsrc.vmap(branchy_scalar)(np.array([p[0] for p in PTS]), np.array([p[1] for p in PTS])),
         lambda: np.array([branchy_scalar(a, b) for a, b in PTS]), tol=0.0))
add(pair("r13_n_vmap_grad_branchy", lambda: revsrc.vmap(revsrc.grad(branchy_scalar, argnums=1))(np.array([p[0] for p in PTS]), np.array([p[1] for p in PTS])),
         lambda: np.array([fd_checked(branchy_scalar, (a, b), argnums=1)[0] for a, b in PTS]), tol=1e-7))


def complex_loop(w):
    z = 1.0 + 0j
    acc = 0.0
    for k in range(6):
        z = z * np.exp(1j * w) * 0.9
        acc += abs(z.real) + z.imag ** 2
    return acc


add(G("r13_n_complex_scalar_loop", complex_loop, (0.4,), ref="fd"))


def f32_loop(x):
    y = x.astype(np.float32)
    for _ in range(5):
        y = np.tanh(y) * np.float32(1.5)
    return np.sum(y)


def f64_loop(x):
    y = x * 1.0
    for _ in range(5):
        y = np.tanh(y) * 1.5
    return np.sum(y)


add(G("r13_n_float32_astype_loop", f32_loop, (X3,), ref=lambda: ag()[0].grad(agify(f64_loop))(X3), tol=1e-5))


def closure_over_loop_state(x):
    total = 0.0
    for k in range(3):
        def term(t, k=k):
            return math.sin(k * t)
        total += term(x) * (k + 1)
    return total


add(G("r13_n_def_in_loop_default_k", closure_over_loop_state, (0.7,), ref=lambda: sum((k + 1) * k * math.cos(k * 0.7) for k in range(3)), tol=1e-14))


def partial_in_loop(x):
    fs = [functools.partial(math.pow, x) for _ in range(2)]
    return fs[0](2.0) + fs[1](3.0)


add(G("r13_n_partial_of_builtin_comprehension", partial_in_loop, (1.3,), ref=lambda: 2 * 1.3 + 3 * 1.3 ** 2, tol=1e-14))


def enumerate_zip_start(xs, ws):
    s = 0.0
    for i, (x, w) in enumerate(zip(xs, ws), 1):
        s += i * w * x ** i
    return s


add(G("r13_n_enumerate_zip_start", enumerate_zip_start, (X3, [0.5, 1.0, 1.5]), argnums=(0, 1), ref="fd"))


def inplace_cumsum_out(x):
    y = np.zeros(4)
    np.cumsum(x, out=y[1:])
    return np.sum(y ** 2)


add(G("r13_n_cumsum_out_view", inplace_cumsum_out, (X3,), ref="fd"))


def swap_rows(A):
    B = A.copy()
    B[[0, 2]] = B[[2, 0]]
    B[1] *= B[0]
    return np.sum(B * np.arange(9).reshape(3, 3))


add(G("r13_n_fancy_swap_rows", swap_rows, (np.arange(1.0, 10.0).reshape(3, 3) / 3,), ref="fd"))


def tuple_swap_in_array(x):
    y = x.copy()
    y[0], y[2] = y[2], y[0] * y[1]
    return np.sum(y * np.array([1.0, 10.0, 100.0]))


add(G("r13_n_tuple_swap_items", tuple_swap_in_array, (X3,), ref="fd"))


def col_view_iadd_loop(x):
    A = np.zeros((3, 3))
    for j in range(3):
        c = A[:, j]
        c += x * (j + 1)
    return np.sum(A * np.arange(9).reshape(3, 3))


# d/dx_i sum_j (j+1) * W[i, j] with W = arange(9).reshape(3, 3)
add(G("r13_n_column_view_iadd_loop_minimal", col_view_iadd_loop, (X3,),
      ref=lambda: np.arange(9).reshape(3, 3) @ np.array([1.0, 2.0, 3.0]), tol=1e-14))


def col_view_item_loop(x):
    A = np.zeros((3, 3))
    for j in range(3):
        c = A[:, j]
        c[j] = x[j] ** 2
    return np.sum(A * np.arange(9).reshape(3, 3))


add(G("r13_n_column_view_item_loop", col_view_item_loop, (X3,), ref=lambda: np.array([0.0, -8.0, 32.0]), tol=1e-14))
