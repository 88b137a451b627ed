"""User programs for the adversarial tester (round 2).

Each case: name, family, fn, args, argnums, doc (refusal codes the README documents
for this program), jfn (the same program in jax.numpy, optional), check (a custom
check: raises AssertionError on a wrong number).
"""
import functools
import itertools
import math
import types

import numpy as np

import revsrc


import corpus_harness as _h
from corpus_harness import Case, classify, close, fd, fd_hess, fd_jac, run_case  # noqa: F401

_CORPUS = _h.Corpus()
CASES = _CORPUS.cases
case, custom, variants = _CORPUS.case, _CORPUS.custom, _CORPUS.variants
_jax, _cargs, _leaves, _get, _set, _isfloat = _h.jax_x64, _h.cargs, _h.leaves, _h.get, _h.put, _h.isfloat


A3 = np.array([0.3, -1.2, 0.7])
A4 = np.array([0.5, -0.4, 1.3, 0.9])
A6 = np.array([0.2, 0.9, -0.5, 1.1, -0.8, 0.4])
M2 = np.array([[0.4, -0.3], [1.1, 0.6]])
M3 = np.array([[0.5, 0.1, -0.2], [0.3, -0.7, 0.9], [1.2, 0.4, 0.6]])

# ------------------------------------------------------------------ views
V = "views"


@case("view_T_write", V, (M2,))
def view_T_write(x):
    y = x * 1.0
    y.T[0] = x[1] * 2.0
    return np.sum(y ** 2 * x)


@case("view_reshape_iadd", V, (M2,))
def view_reshape_iadd(x):
    y = x.copy()
    r = y.reshape(-1)
    r[0] += x[1, 1] * 3.0
    return np.sum(y * y)


@case("view_slice_imul", V, (A4,))
def view_slice_imul(x):
    y = x * 1.0
    s = y[1:3]
    s *= x[0]
    return np.sum(y ** 3)


@case("view_view_method", V, (A3,))
def view_view_method(x):
    y = x * 2.0
    v = y.view()
    v[0] = 5.0
    return np.sum(y * x)


@case("view_einsum_diag_write", V, (A3,), doc=("E403", "E404"))
def view_einsum_diag_write(x):
    M = np.outer(x, x)
    d = np.einsum("ii->i", M)
    d *= 2.0
    return np.sum(M * M)


@case("view_einsum_transpose_write", V, (M2,), doc=("E404",))
def view_einsum_transpose_write(x):
    y = x * 1.0
    e = np.einsum("ij->ji", y)
    e[0, 1] = x[0, 0] ** 2
    return np.sum(y * x)


@case("view_real_write", V, (A3,), doc=("E401",))
def view_real_write(x):
    z = x * (1.0 + 2.0j)
    z.real *= 3.0
    return np.sum(np.abs(z) ** 2)


@case("view_imag_write", V, (A3,))
def view_imag_write(x):
    z = x * (1.0 + 0.5j)
    z.imag[:] = x * x
    return np.sum(np.abs(z) ** 2)


@case("view_real_of_real_write", V, (A3,))
def view_real_of_real_write(x):
    y = x * 1.0
    y.real[0] = 3.0
    return np.sum(y * x)


@case("view_array_copy_false", V, (A3,))
def view_array_copy_false(x):
    w = x * 2.0
    y = np.array(w, copy=False)
    y[0] = 1.0
    return np.sum(w * x)


@case("view_asarray_write", V, (A3,))
def view_asarray_write(x):
    w = x * 1.0
    y = np.asarray(w)
    y[1] = x[0] ** 2
    return np.sum(w * w)


@case("view_split_write", V, (A4,))
def view_split_write(x):
    y = x * 1.0
    a, b = np.split(y, 2)
    a[0] = b[1] * 3.0
    return np.sum(y ** 2)


@case("view_array_split_imul", V, (A6,), doc=("E404",))
def view_array_split_imul(x):
    y = x + 0.0
    pieces = np.array_split(y, 3)
    pieces[1] *= 3.0
    return np.sum(y * x)


@case("view_diagonal_write", V, (M2,), doc=("E404",))
def view_diagonal_write(x):
    y = x * 1.0
    d = np.diagonal(y)
    d[0] = 1.0
    return np.sum(y)


@case("view_iadd_own_T", V, (M3,))
def view_iadd_own_T(x):
    y = x * 1.0
    y += y.T
    return np.sum(y * x)


@case("view_strided_assign", V, (A6,))
def view_strided_assign(x):
    y = x * 1.0
    y[::2] = y[1::2] * x[:3]
    return np.sum(y * y)


@case("view_ravel_write", V, (M2,))
def view_ravel_write(x):
    y = x * 1.0
    f = y.ravel()
    f[2] = x[0, 1] * 4.0
    return np.sum(y ** 2)


@case("view_reshape_of_arg_write", V, (A4,), doc=("E403",))
def view_reshape_of_arg_write(x):
    y = x.reshape(2, 2)
    y[0, 0] = 1.0
    return np.sum(y)


@case("view_of_view_write", V, (A6,))
def view_of_view_write(x):
    y = x * 1.0
    y[1:][::2][0] = 7.0 * x[0]
    return np.sum(y * x)


@case("view_column_imul", V, (M3,))
def view_column_imul(x):
    y = x * 1.0
    col = y[:, 0]
    col *= 2.0
    return np.sum(y * y)


@case("view_squeeze_write", V, (M2,))
def view_squeeze_write(x):
    y = x[None, :, :] * 1.0
    s = np.squeeze(y)
    s[1, 0] = x[0, 0] * x[1, 1]
    return np.sum(y * y)


@case("view_T_reshape_copy_write", V, (M2,))
def view_T_reshape_copy_write(x):
    y = x * 1.0
    f = y.T.reshape(-1)      # a copy: the write does not reach y
    f[0] = 100.0
    return np.sum(y * y) + np.sum(f)


@case("view_atleast_2d_write", V, (A3,))
def view_atleast_2d_write(x):
    y = x * 1.0
    m = np.atleast_2d(y)
    m[0, 2] = x[0] * 5.0
    return np.sum(y * y)


@case("view_swapaxes_write", V, (M2,))
def view_swapaxes_write(x):
    y = x * 1.0
    s = np.swapaxes(y, 0, 1)
    s[0, 1] += x[0, 0]
    return np.sum(y * y)


@case("view_expand_dims_write", V, (A3,))
def view_expand_dims_write(x):
    y = x * 1.0
    e = np.expand_dims(y, 0)
    e[0, 1] = 2.0 * x[2]
    return np.sum(y ** 2)


@case("view_ellipsis_assign", V, (A4,))
def view_ellipsis_assign(x):
    y = x * 1.0
    y[...] = x[::-1] * x
    return np.sum(y * x)


@case("view_moveaxis_write", V, (M2,))
def view_moveaxis_write(x):
    y = x * 1.0
    m = np.moveaxis(y, 0, 1)
    m[1, 0] = x[0, 0] * 9.0
    return np.sum(y * y)


@case("view_diag_copy_write", V, (A3,))
def view_diag_copy_write(x):
    D = np.diag(x)
    D[0, 1] = x[0] * x[1]
    return np.sum(D * D)


@case("view_reshape_T_write", V, (A4,))
def view_reshape_T_write(x):
    y = x * 1.0
    r = y.reshape(2, 2)
    r.T[0, 1] = x[3] ** 2
    return np.sum(y * x)


@case("view_hsplit_write", V, (M3,), doc=("E404",))
def view_hsplit_write(x):
    y = x * 1.0
    a, b, c = np.hsplit(y, 3)
    b *= 2.0
    return np.sum(y * x)


@case("view_reversed_iadd", V, (A4,))
def view_reversed_iadd(x):
    y = x * 1.0
    r = y[::-1]
    r += y
    return np.sum(y * y)


@case("view_split_loop_write", V, (A6,))
def view_split_loop_write(x):
    y = x * 1.0
    for p in np.split(y, 3):
        p[0] = p[1] * 2.0
    return np.sum(y * y)


@case("view_flat_index_write", V, (M2,))
def view_flat_index_write(x):
    y = x * 1.0
    y.flat[3] = x[0, 0] * 2.0
    return np.sum(y * y)


@case("view_basic_index_row_write", V, (M3,))
def view_basic_index_row_write(x):
    y = x * 1.0
    r = y[1]
    r[:] = r * x[0]
    return np.sum(y * x)


# ------------------------------------------------------------------ in place
I = "inplace"


@case("ip_loop_item_iadd", I, (A4,))
def ip_loop_item_iadd(x):
    a = np.zeros(4)
    for i in range(1, 4):
        a[i] += x[i] * x[i - 1]
    return np.sum(a * a)


@case("ip_mask_assign", I, (A6,))
def ip_mask_assign(x):
    y = x * 1.0
    y[y > 0] = y[y > 0] ** 2
    return np.sum(y * x)


@case("ip_mask_zero", I, (A6,))
def ip_mask_zero(x):
    y = np.sin(x)
    y[x < 0.0] = 0.0
    return np.sum(y)


@case("ip_out_column_loop", I, (M3,))
def ip_out_column_loop(x):
    out = np.zeros((3, 3))
    for j in range(3):
        out[:, j] = np.tanh(x[:, j] * (j + 1))
    return np.sum(out * out)


@case("ip_add_at_repeated", I, (A4,))
def ip_add_at_repeated(x):
    out = np.zeros(3)
    np.add.at(out, [0, 0, 2, 1], x)
    return np.sum(out ** 2)


@case("ip_s_iadd_matmul_loop", I, (A3,))
def ip_s_iadd_matmul_loop(x):
    s = 0.0
    for k in range(3):
        s += x @ x * (k + 1)
    return s


@case("ip_int_s_iadd_matmul", I, (A3,))
def ip_int_s_iadd_matmul(x):
    s = 0
    for k in range(2):
        s += x @ x
    return s


@case("ip_acc_array_iadd", I, (A3,))
def ip_acc_array_iadd(x):
    acc = np.zeros(3)
    for i in range(4):
        acc += x * i
    return np.sum(acc ** 2)


@case("ip_fancy_iadd_repeated", I, (A4,))
def ip_fancy_iadd_repeated(x):
    y = x * 1.0
    y[[0, 0]] += x[2:]
    return np.sum(y * y)


@case("ip_fancy_assign_repeated", I, (A4,))
def ip_fancy_assign_repeated(x):
    y = x * 1.0
    y[[0, 0]] = x[2:] * 3.0
    return np.sum(y * y)


@case("ip_diag_items", I, (A3,))
def ip_diag_items(x):
    M = np.ones((3, 3))
    for i in range(3):
        M[i, i] = x[i] * 2.0
    return np.sum(M @ M)


@case("ip_overlap_isub", I, (A4,))
def ip_overlap_isub(x):
    y = x * 1.0
    y[1:] -= y[:-1]
    return np.sum(y * y)


@case("ip_self_imul", I, (A3,))
def ip_self_imul(x):
    y = x + 1.0
    y *= y
    return np.sum(y)


@case("ip_chained_assign", I, (A3,))
def ip_chained_assign(x):
    y = x * 1.0
    y[0] = y[1] = x[2] * 2.0
    return np.sum(y * x)


@case("ip_fancy_swap", I, (A3,))
def ip_fancy_swap(x):
    y = x * 1.0
    y[[0, 1]] = y[[1, 0]]
    return np.sum(y * np.arange(3.0))


@case("ip_row_swap_view_gotcha", I, (M2,))
def ip_row_swap_view_gotcha(x):
    y = x * 1.0
    y[0], y[1] = y[1], y[0]      # both rows end up equal to the old y[1]
    return np.sum(y * np.array([[1.0, 2.0], [3.0, 4.0]]))


@case("ip_fill_diagonal", I, (M3,))
def ip_fill_diagonal(x):
    y = x * 1.0
    np.fill_diagonal(y, x[0, 1])
    return np.sum(y ** 2)


@case("ip_mask_iadd", I, (A6,))
def ip_mask_iadd(x):
    y = x ** 2
    y[x > 0.3] += x[x > 0.3]
    return np.sum(y)


@case("ip_scatter_conv", I, (A4,))
def ip_scatter_conv(x):
    k = np.array([0.5, 1.0, -0.25])
    out = np.zeros(6)
    for i in range(4):
        out[i:i + 3] += k * x[i]
    return np.sum(out ** 2)


@case("ip_pow_div", I, (A3,))
def ip_pow_div(x):
    y = x + 2.0
    y **= 2
    y /= np.sum(y)
    return np.sum(y * np.arange(1.0, 4.0))


@case("ip_while_accum", I, (1.3,))
def ip_while_accum(x):
    s = 0.0
    t = x
    while t > 0.1:
        s += t * t
        t *= 0.5
    return s


@case("ip_column_recurrence", I, (A3,))
def ip_column_recurrence(x):
    out = np.zeros((3, 4))
    out[:, 0] = x
    for j in range(1, 4):
        out[:, j] = np.tanh(out[:, j - 1] * 1.5)
    return np.sum(out[:, -1])


@case("ip_item_max", I, (A4,))
def ip_item_max(x):
    y = np.array([0.0, 0.0, 1.0, 1.0])
    for i in range(4):
        y[i] = max(y[i], x[i])
    return np.sum(y * y)


@case("ip_add_at_2d", I, (A4,))
def ip_add_at_2d(x):
    out = np.zeros((2, 2))
    np.add.at(out, (np.array([0, 1, 0, 0]), np.array([1, 1, 1, 0])), x)
    return np.sum(out * out)


@case("ip_float_iadd_array", I, (A3,))
def ip_float_iadd_array(x):
    s = 0.0
    for i in range(3):
        s += x[i] * x
    return np.sum(s ** 2)


@case("ip_list_of_arrays_iadd", I, (A3,), doc=("E404",))
def ip_list_of_arrays_iadd(x):
    hs = [x * 1.0, x * 2.0]
    h = hs[0]
    h += x
    return np.sum(hs[0] * hs[1])


@case("ip_matmul_inplace", I, (M2,))
def ip_matmul_inplace(x):
    y = x * 1.0
    y @= x
    return np.sum(y)


@case("ip_2d_mask_assign", I, (M3,))
def ip_2d_mask_assign(x):
    y = x * 1.0
    y[y < 0] = -2.0 * y[y < 0]
    return np.sum(y * y)


@case("ip_negative_index_write", I, (A4,))
def ip_negative_index_write(x):
    y = np.zeros(4)
    y[-1] = x[0]
    y[-2:] += x[1:3]
    return np.sum(y * x)


@case("ip_int_array_index_write_loop", I, (A6,))
def ip_int_array_index_write_loop(x):
    y = np.zeros(6)
    idx = np.array([5, 3, 1])
    for k in range(2):
        y[idx] += x[idx] * (k + 1.0)
    return np.sum(y ** 2)


@case("ip_alias_then_rebind", I, (A3,))
def ip_alias_then_rebind(x):
    y = x * 1.0
    z = y
    y = y * 2.0
    z[0] = 10.0
    return np.sum(y * z)


@case("ip_alias_inplace", I, (A3,))
def ip_alias_inplace(x):
    y = x * 1.0
    z = y
    z *= 3.0
    return np.sum(y * x)


# ------------------------------------------------------------------ big ints
B = "bigint"


@case("bi_mod", B, (0.7, 2 ** 60))
def bi_mod(x, n):
    return x * (n % 7) + x ** 2


@case("bi_float", B, (0.7, 2 ** 60))
def bi_float(x, n):
    return x * float(n) * 1e-18


def bi_add(x, n):
    return (x + n) - n + x * x


@custom("bi_add", B)
def bi_add_check():
    # x + n rounds x away, so central differences see x*x only; the derivative of
    # the program as written (JAX's, autograd's) is 1 + 2x
    close(revsrc.grad(bi_add)(0.7, 2 ** 60 + 1), 1.0 + 1.4)


@case("bi_beyond_int64", B, (0.7, 2 ** 63 + 5))
def bi_beyond_int64(x, n):
    return x * (n % 10)


@case("bi_negative_huge", B, (0.7, -2 ** 70))
def bi_negative_huge(x, n):
    if n < 0:
        return x * x * (n // 2 ** 68)
    return x


@case("bi_pow_mod", B, (0.7, 2 ** 60))
def bi_pow_mod(x, n):
    return x ** (n % 3 + 2)


@case("bi_compare", B, (0.7, 2 ** 62 + 1))
def bi_compare(x, n):
    if n > 2 ** 62:
        return math.sin(x) * 3.0
    return x


@case("bi_shift", B, (0.7, 2 ** 60))
def bi_shift(x, n):
    return x * ((n >> 58) + (n & 3))


@case("bi_array", B, (A3, 2 ** 60))
def bi_array(x, n):
    return np.sum(x * (n % 5)) + np.sum(x * x)


@case("bi_int_arith_exact", B, (0.5, 2 ** 60 + 3))
def bi_int_arith_exact(x, n):
    m = n * 3 - 2 ** 61 * 1       # exact int
    return x * (m % 11)


# ------------------------------------------------------------------ empty arrays
E = "empty"


@case("em_sum_empty_plus", E, (A3,))
def em_sum_empty_plus(x):
    return np.sum(x[0:0]) + np.sum(x * x)


@case("em_empty_arg", E, (np.zeros(0), 0.5), argnums=(0, 1))
def em_empty_arg(x, a):
    return np.sum(x * a) + a * a


@case("em_loop_empty", E, (np.zeros((0, 3)), A3), argnums=1)
def em_loop_empty(rows, w):
    s = np.sum(w * w)
    for r in rows:
        s = s + r @ w
    return s


@case("em_matmul_empty", E, (np.zeros((0, 3)), A3), argnums=1)
def em_matmul_empty(X, w):
    return np.sum(X @ w) + w[0]


@case("em_concat_empty", E, (A3,))
def em_concat_empty(x):
    y = np.concatenate([x, np.zeros(0)])
    return np.sum(y * y)


@case("em_prod_empty", E, (A3,))
def em_prod_empty(x):
    return np.prod(x[3:]) * np.sum(x)


@case("em_range_zero", E, (0.7, 0))
def em_range_zero(x, n):
    s = x
    for _ in range(n):
        s = s * s
    return s


@case("em_empty_write", E, (A3,))
def em_empty_write(x):
    y = x * 1.0
    y[2:2] = 5.0
    y[[]] = 1.0
    return np.sum(y * y)


# ------------------------------------------------------------------ errstate
ES = "errstate"


@case("es_return_inside", ES, (A3,))
def es_return_inside(x):
    with np.errstate(divide="ignore"):
        return np.sum(x * x / (1.0 + x * x))


@case("es_break_inside", ES, (A4,))
def es_break_inside(x):
    s = 0.0
    for i in range(4):
        with np.errstate(invalid="ignore"):
            if x[i] > 1.0:
                break
            s = s + np.sqrt(x[i] * x[i] + 1.0)
    return s


@case("es_continue_inside", ES, (A4,))
def es_continue_inside(x):
    s = 0.0
    for i in range(4):
        with np.errstate(all="ignore"):
            if x[i] < 0.0:
                continue
            s = s + np.log(x[i])
    return s


@case("es_nested", ES, (A3,))
def es_nested(x):
    with np.errstate(divide="ignore"):
        with np.errstate(invalid="ignore"):
            y = np.where(x > 0, x, 1.0)
            r = np.sum(np.log(y) * x)
    return r


@case("es_early_return_branch", ES, (0.6,))
def es_early_return_branch(x):
    with np.errstate(over="ignore"):
        if x > 0.5:
            return float(np.exp(x) * x)
        y = x * 2.0
    return y * y


@case("es_while_break", ES, (2.0,))
def es_while_break(x):
    t = x
    n = 0
    while True:
        with np.errstate(all="ignore"):
            t = t * 0.5 + np.sin(t) * 0.1
            n += 1
            if n >= 5:
                break
    return t


# ------------------------------------------------------------------ lambdas
L = "lambdas"


@case("lam_default_capture", L, (0.8,))
def lam_default_capture(x):
    fs = [lambda t, k=k: t ** k for k in range(1, 4)]
    return sum(f(x) for f in fs)


@case("lam_late_binding", L, (0.8,), doc=("E101",))
def lam_late_binding(x):
    fs = [lambda t: t ** k for k in range(1, 4)]    # every k is 3
    return sum(f(x) for f in fs)


@case("lam_inline_call_comp", L, (A3,))
def lam_inline_call_comp(x):
    return sum([(lambda v: v * v)(xi) for xi in x])


@case("lam_dict_comp", L, (0.4,))
def lam_dict_comp(x):
    ops = {name: (lambda t, c=c: c * t * t) for name, c in [("a", 1.0), ("b", 2.0)]}
    return ops["a"](x) + ops["b"](math.sin(x))


@case("lam_sorted_key", L, (A4,))
def lam_sorted_key(x):
    ys = sorted([x[0], x[1], x[2]], key=lambda v: -v)
    return ys[0] * 2.0 + ys[2]


@case("lam_map", L, (A3,), doc=("E202",))
def lam_map(x):
    return sum(map(lambda v: math.exp(v) if v > 0 else v, [x[0], x[1], x[2]]))


@case("lam_nested_comp_list", L, (0.3,))
def lam_nested_comp_list(x):
    acts = [lambda t: math.tanh(t), lambda t: math.sin(t), lambda t: t * t]
    return sum(a(b(x)) for a in acts for b in acts)


# ------------------------------------------------------------------ scientific
S = "science"


@case("sci_euler_ode", S, (0.9, 0.3), argnums=(0, 1))
def sci_euler_ode(y0, k):
    y = y0
    dt = 0.05
    for _ in range(40):
        y = y + dt * (-k * y + math.sin(y))
    return y


@case("sci_rk4_vec", S, (np.array([1.0, 0.0]), 0.7), argnums=(0, 1))
def sci_rk4_vec(y0, w):
    def rhs(y):
        return np.array([y[1], -w * w * y[0] - 0.1 * y[1]])
    y = y0
    h = 0.1
    for _ in range(10):
        k1 = rhs(y)
        k2 = rhs(y + h / 2 * k1)
        k3 = rhs(y + h / 2 * k2)
        k4 = rhs(y + h * k3)
        y = y + h / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y[0] ** 2 + y[1]


@case("sci_iir_filter", S, (A6, 0.6), argnums=(0, 1))
def sci_iir_filter(x, a):
    y = np.zeros_like(x)
    y[0] = x[0]
    for n in range(1, len(x)):
        y[n] = a * y[n - 1] + (1 - a) * x[n]
    return np.sum(y ** 2)


@case("sci_horner", S, (0.7, np.array([1.0, -2.0, 0.5, 3.0])), argnums=(0, 1))
def sci_horner(x, c):
    r = 0.0
    for ci in c:
        r = r * x + ci
    return r


@case("sci_logreg", S, (A3, np.array([[1.0, 0.2, -0.3], [0.4, -1.0, 0.8], [0.1, 0.1, 0.9], [-0.6, 0.5, 0.2]]), np.array([1.0, 0.0, 1.0, 0.0])))
def sci_logreg(w, X, y):
    z = X @ w
    p = 1.0 / (1.0 + np.exp(-z))
    return -np.mean(y * np.log(p) + (1 - y) * np.log(1 - p))


@case("sci_softmax_xent", S, (M3, np.array([2, 0, 1])))
def sci_softmax_xent(logits, labels):
    m = np.max(logits, axis=1, keepdims=True)
    z = logits - m
    lse = np.log(np.sum(np.exp(z), axis=1))
    return np.mean(lse - z[np.arange(3), labels])


@case("sci_newton_sqrt", S, (2.0,))
def sci_newton_sqrt(a):
    x = a
    while abs(x * x - a) > 1e-13:
        x = 0.5 * (x + a / x)
    return x


def sci_bisection(c):
    lo, hi = 0.0, 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid ** 3 + c * mid - 1.0 > 0:
            hi = mid
        else:
            lo = mid
    return lo * lo


@custom("sci_bisection", S)
def sci_bisection_check():
    # lo only moves through branches: the derivative of the program is 0 (as JAX's)
    close(revsrc.grad(sci_bisection)(0.5), 0.0)


@case("sci_kalman", S, (np.array([0.9, 1.1, 1.3, 0.8]), 0.3), argnums=(0, 1))
def sci_kalman(zs, q):
    x, P = 0.0, 1.0
    r = 0.5
    for z in zs:
        P = P + q
        K = P / (P + r)
        x = x + K * (z - x)
        P = (1 - K) * P
    return x * x + P


@case("sci_huber", S, (A6,))
def sci_huber(r):
    total = 0.0
    for v in r:
        if abs(v) < 0.6:
            total += 0.5 * v * v
        else:
            total += 0.6 * (abs(v) - 0.3)
    return total


@case("sci_power_iteration", S, (M3,))
def sci_power_iteration(A):
    v = np.ones(3) / np.sqrt(3.0)
    for _ in range(30):
        w = A @ v
        v = w / np.linalg.norm(w)
    return v @ A @ v


@case("sci_gauss_seidel", S, (np.array([1.0, 2.0, 0.5]),))
def sci_gauss_seidel(b):
    A = np.array([[4.0, 1.0, 0.0], [1.0, 5.0, 1.0], [0.0, 1.0, 3.0]])
    x = np.zeros(3)
    for _ in range(15):
        for i in range(3):
            s = b[i] - A[i] @ x + A[i, i] * x[i]
            x[i] = s / A[i, i]
    return np.sum(x * x)


@case("sci_logsumexp", S, (A6,))
def sci_logsumexp(x):
    m = np.max(x)
    return m + np.log(np.sum(np.exp(x - m)))


@case("sci_leaky_relu_mlp", S, (M3, A3), argnums=(0, 1))
def sci_leaky_relu_mlp(W, x):
    h = W @ x
    h = np.where(h > 0, h, 0.1 * h)
    return np.sum(np.tanh(W.T @ h))


@case("sci_trapezoid", S, (A6,))
def sci_trapezoid(y):
    t = np.linspace(0.0, 1.0, 6)
    return np.trapezoid(y * y, t)


@case("sci_convolve_full", S, (A4,))
def sci_convolve_full(x):
    return np.sum(np.convolve(x, np.array([1.0, -1.0, 0.5])) ** 2)


@case("sci_cummax_loop", S, (A6,))
def sci_cummax_loop(x):
    best = x[0]
    tot = 0.0
    for v in x:
        if v > best:
            best = v
        tot = tot + best
    return tot


@case("sci_gd_inner", S, (1.5,))
def sci_gd_inner(a):
    w = 0.0
    for _ in range(20):
        g = 2.0 * (w - a) + 0.1 * w
        w = w - 0.2 * g
    return w * w


@case("sci_polyfit_lstsq", S, (np.array([0.1, 0.5, 0.3, 0.9, 1.4]),))
def sci_polyfit_lstsq(y):
    t = np.linspace(0.0, 1.0, 5)
    V = np.stack([np.ones(5), t, t * t], axis=1)
    c = np.linalg.solve(V.T @ V, V.T @ y)
    return np.sum(c ** 2)


@case("sci_data_dep_loop", S, (A6,))
def sci_data_dep_loop(x):
    s = 0.0
    i = 0
    while i < len(x) and s < 1.5:
        s = s + x[i] * x[i]
        i += 1
    return s * i


@case("sci_cumsum_diff", S, (A6,))
def sci_cumsum_diff(x):
    c = np.cumsum(x * x)
    d = np.diff(c)
    return np.sum(d * np.arange(5.0)) + c[-1]


@case("sci_verlet", S, (1.0, 0.2), argnums=(0, 1))
def sci_verlet(x0, v0):
    x, v = x0, v0
    dt = 0.1
    a = -math.sin(x)
    for _ in range(25):
        x = x + v * dt + 0.5 * a * dt * dt
        a_new = -math.sin(x)
        v = v + 0.5 * (a + a_new) * dt
        a = a_new
    return 0.5 * v * v - math.cos(x)


@case("sci_lstm_like", S, (A3, M3), argnums=(0, 1))
def sci_lstm_like(x, W):
    h = np.zeros(3)
    c = np.zeros(3)
    for t in range(4):
        g = np.tanh(W @ h + x * (t + 1))
        f = 1.0 / (1.0 + np.exp(-(W.T @ h)))
        c = f * c + (1 - f) * g
        h = np.tanh(c)
    return np.sum(h)


@case("sci_norm_clip", S, (A4,))
def sci_norm_clip(g):
    n = np.linalg.norm(g)
    if n > 1.0:
        g = g / n
    return np.sum(g * np.array([1.0, 2.0, 3.0, 4.0]))


@case("sci_clip_loss", S, (A6,))
def sci_clip_loss(x):
    return np.sum(np.clip(x, -0.6, 0.95) ** 2)


# ------------------------------------------------------------------ jax comparisons (generic cases with jfn)
def _jnp():
    import jax.numpy as jnp
    return jnp


def _attach_jax():
    def J(name, f):
        for c in CASES:
            if c.name == name:
                c.jfn = f
                return
        raise KeyError(name)

    def j_view_slice_imul(x):
        jnp = _jnp()
        y = x.at[1:3].multiply(x[0])
        return jnp.sum(y ** 3)

    def j_ip_fancy_iadd_repeated(x):
        jnp = _jnp()
        y = x.at[0].set(x[0] + x[3])
        return jnp.sum(y * y)

    def j_ip_row_swap(x):
        jnp = _jnp()
        y = jnp.stack([x[1], x[1]])
        return jnp.sum(y * jnp.array([[1.0, 2.0], [3.0, 4.0]]))

    def j_lam_late(x):
        return 3 * x ** 3

    def j_logreg(w, X, y):
        jnp = _jnp()
        p = 1.0 / (1.0 + jnp.exp(-(X @ w)))
        return -jnp.mean(y * jnp.log(p) + (1 - y) * jnp.log(1 - p))

    def j_iir(x, a):
        jnp = _jnp()
        y = [x[0]]
        for n in range(1, x.shape[0]):
            y.append(a * y[-1] + (1 - a) * x[n])
        return jnp.sum(jnp.stack(y) ** 2)

    def j_overlap(x):
        jnp = _jnp()
        y = x.at[1:].add(-x[:-1])
        return jnp.sum(y * y)

    def j_add_at(x):
        jnp = _jnp()
        out = jnp.zeros(3).at[jnp.array([0, 0, 2, 1])].add(x)
        return jnp.sum(out ** 2)

    def j_iadd_T(x):
        jnp = _jnp()
        return jnp.sum((x + x.T) * x)

    def j_power(A):
        jnp = _jnp()
        v = jnp.ones(3) / jnp.sqrt(3.0)
        for _ in range(30):
            w = A @ v
            v = w / jnp.linalg.norm(w)
        return v @ A @ v

    def j_real_write(x):
        jnp = _jnp()
        return jnp.sum((3 * x) ** 2 + (2 * x) ** 2)

    J("view_slice_imul", j_view_slice_imul)
    J("ip_fancy_iadd_repeated", j_ip_fancy_iadd_repeated)
    J("ip_row_swap_view_gotcha", j_ip_row_swap)
    J("lam_late_binding", j_lam_late)
    J("sci_logreg", j_logreg)
    J("sci_iir_filter", j_iir)
    J("ip_overlap_isub", j_overlap)
    J("ip_add_at_repeated", j_add_at)
    J("view_iadd_own_T", j_iadd_T)
    J("sci_power_iteration", j_power)
    J("view_real_write", j_real_write)


_attach_jax()


# ------------------------------------------------------------------ custom checks

# -- rebinding
R = "rebinding"
ACT = np.tanh


def rb_uses_act(x):
    return np.sum(ACT(x) * x)


@custom("rb_global_act", R)
def rb_global_act():
    global ACT
    try:
        ACT = np.tanh
        df = revsrc.grad(rb_uses_act)
        close(df(A3), fd(rb_uses_act, A3), what="tanh")
        ACT = np.sin
        got = df(A3)
        close(got, revsrc.grad(rb_uses_act)(A3), what="vs fresh")
        close(got, fd(rb_uses_act, A3), what="sin")
        ACT = np.tanh
        close(df(A3), fd(rb_uses_act, A3), what="tanh again")
    finally:
        ACT = np.tanh


SCALE = 2.0


def rb_uses_scale(x):
    return SCALE * x * x


@custom("rb_global_scalar", R)
def rb_global_scalar():
    global SCALE
    try:
        df = revsrc.grad(rb_uses_scale)
        close(df(1.5), 6.0)
        SCALE = 5.0
        close(df(1.5), 15.0)
        SCALE = 3          # an int now
        close(df(1.5), 9.0)
    finally:
        SCALE = 2.0


WG = np.array([1.0, 2.0])


def rb_uses_array(x):
    return np.sum(WG * x * x)


@custom("rb_global_array_reshape", R)
def rb_global_array_reshape():
    global WG
    try:
        df = revsrc.grad(rb_uses_array)
        close(df(np.array([1.0, 1.0])), [2.0, 4.0])
        WG = np.array([[1.0, 2.0], [3.0, 4.0]])    # broadcasts differently now
        x = np.array([1.0, 1.0])
        close(df(x), fd(rb_uses_array, x))
    finally:
        WG = np.array([1.0, 2.0])


def _h1(t):
    return t * t


def rb_uses_helper(x):
    return HELPER(x) + x


HELPER = _h1


@custom("rb_global_helper_def", R)
def rb_global_helper_def():
    global HELPER
    try:
        df = revsrc.grad(rb_uses_helper)
        close(df(2.0), 5.0)

        def HELPER2(t):
            return t * t * t
        HELPER = HELPER2
        close(df(2.0), 13.0)
        HELPER = math.sin
        close(df(2.0), math.cos(2.0) + 1.0)
    finally:
        HELPER = _h1


def _f_sq(x):
    return x * x


def _f_cube(x):
    return x ** 3


DF = revsrc.grad(_f_sq)


def rb_uses_df(x):
    return DF(x) * x


@custom("rb_module_grad_object", R)
def rb_module_grad_object():
    global DF
    try:
        DF = revsrc.grad(_f_sq)
        d = revsrc.grad(rb_uses_df)
        close(d(1.5), 4 * 1.5)          # 2x^2 -> 4x
        DF = revsrc.grad(_f_cube)
        got = d(1.5)
        close(got, revsrc.grad(rb_uses_df)(1.5), what="vs fresh")
        close(got, 9 * 1.5 ** 2)        # 3x^3 -> 9x^2
    finally:
        DF = revsrc.grad(_f_sq)


class _Model:
    def __init__(self):
        self.act = np.tanh
        self.w = np.array([0.5, -1.0, 2.0])

    def loss(self, x):
        return np.sum(self.act(x * self.w))


@custom("rb_self_act", R)
def rb_self_act():
    m = _Model()
    df = revsrc.grad(m.loss)
    close(df(A3), fd(m.loss, A3))
    m.act = np.sin
    close(df(A3), fd(m.loss, A3), what="after self.act = sin")
    m.w = np.array([1.0, 1.0, 1.0])
    close(df(A3), fd(m.loss, A3), what="after self.w")


def _make_closure():
    state = {"f": math.sin}
    fn = math.sin

    def g(x):
        return fn(x) * x

    def setf(new):
        nonlocal fn
        fn = new
    return g, setf


@custom("rb_closure_cell", R)
def rb_closure_cell():
    g, setf = _make_closure()
    df = revsrc.grad(g)
    close(df(0.7), fd(g, 0.7))
    setf(math.cos)
    close(df(0.7), fd(g, 0.7), what="after closure rebind")
    close(df(0.7), revsrc.grad(g)(0.7), what="vs fresh")


CFG = types.SimpleNamespace(act=np.tanh, k=1.0)


def rb_uses_cfg(x):
    return np.sum(CFG.act(x) * CFG.k)


@custom("rb_namespace_attr", R, doc=("E202",))
def rb_namespace_attr():
    try:
        df = revsrc.grad(rb_uses_cfg)
        close(df(A3), fd(rb_uses_cfg, A3))
        CFG.act = np.cos
        CFG.k = 3.0
        close(df(A3), fd(rb_uses_cfg, A3), what="after CFG.act=cos")
    finally:
        CFG.act, CFG.k = np.tanh, 1.0


FUNCS = {"a": np.tanh}


def rb_uses_dict(x):
    return np.sum(FUNCS["a"](x))


@custom("rb_global_dict_entry", R)
def rb_global_dict_entry():
    try:
        df = revsrc.grad(rb_uses_dict)
        close(df(A3), fd(rb_uses_dict, A3))
        FUNCS["a"] = np.exp
        close(df(A3), fd(rb_uses_dict, A3), what="after FUNCS['a']=exp")
    finally:
        FUNCS["a"] = np.tanh


ACTS = [math.tanh, math.sin]


def rb_uses_list(x):
    return ACTS[0](x) + ACTS[1](x)


@custom("rb_global_list_entry", R, doc=("E101",))
def rb_global_list_entry():
    try:
        df = revsrc.grad(rb_uses_list)
        close(df(0.4), fd(rb_uses_list, 0.4))
        ACTS[0] = math.exp
        close(df(0.4), fd(rb_uses_list, 0.4), what="after ACTS[0]=exp")
    finally:
        ACTS[0] = math.tanh


class _Cls:
    act = staticmethod(np.tanh)

    def loss(self, x):
        return np.sum(self.act(x))


@custom("rb_class_attr", R)
def rb_class_attr():
    m = _Cls()
    try:
        df = revsrc.grad(m.loss)
        close(df(A3), fd(m.loss, A3))
        _Cls.act = staticmethod(np.sin)
        close(df(A3), fd(m.loss, A3), what="after class attr")
    finally:
        _Cls.act = staticmethod(np.tanh)


def rb_default_arg(x, act=ACT):
    return np.sum(act(x))


@custom("rb_default_frozen", R)
def rb_default_frozen():
    global ACT
    try:
        df = revsrc.grad(rb_default_arg)
        close(df(A3), fd(rb_default_arg, A3))
        ACT = np.sin      # the default stays tanh
        close(df(A3), fd(rb_default_arg, A3), what="default")
    finally:
        ACT = np.tanh


POWER = 2


def rb_uses_power_loop(x):
    y = x
    for _ in range(POWER):
        y = y * x
    return y


@custom("rb_global_loop_bound", R)
def rb_global_loop_bound():
    global POWER
    try:
        df = revsrc.grad(rb_uses_power_loop)
        close(df(1.1), 3 * 1.1 ** 2)
        POWER = 4
        close(df(1.1), 5 * 1.1 ** 4)
        jf = revsrc.grad(rb_uses_power_loop, backend="engine")
        close(jf(1.1), 5 * 1.1 ** 4, what="engine")
    finally:
        POWER = 2


def rb_jit_uses_act(x):
    return ACT_S(x) * 2.0


ACT_S = math.tanh


@custom("rb_jit_rebind", R)
def rb_jit_rebind():
    global ACT_S
    try:
        j = revsrc.jit(revsrc.grad(rb_jit_uses_act))
        close(j(0.3), 2 * (1 - math.tanh(0.3) ** 2))
        ACT_S = math.sin
        close(j(0.3), 2 * math.cos(0.3), what="jit after rebind")
    finally:
        ACT_S = math.tanh


@custom("rb_vmap_rebind", R)
def rb_vmap_rebind():
    global ACT_S
    try:
        v = revsrc.vmap(revsrc.grad(rb_jit_uses_act))
        xs = np.array([0.1, 0.5])
        close(v(xs), 2 * (1 - np.tanh(xs) ** 2))
        ACT_S = math.sin
        close(v(xs), 2 * np.cos(xs), what="vmap after rebind")
    finally:
        ACT_S = math.tanh


# -- complex
C = "complex"


@custom("cx_output_refused", C, doc=("E302",))
def cx_output_refused():
    def f(z):
        return z * z
    try:
        r = revsrc.grad(f)(1.0 + 2.0j)
    except revsrc.RevsrcError as e:
        assert str(e).startswith("[E302"), str(e)
        raise
    raise AssertionError(f"complex output not refused: {r!r}")


@custom("cx_real_arg_complex_output", C, doc=("E302",))
def cx_real_arg_complex_output():
    def f(x):
        return x * (1.0 + 1.0j)
    try:
        r = revsrc.grad(f)(0.5)
    except revsrc.RevsrcError as e:
        assert str(e).startswith("[E302"), str(e)
        raise
    raise AssertionError(f"complex output not refused: {r!r}")


@custom("cx_array_sum_complex_output", C, doc=("E302",))
def cx_array_sum_complex_output():
    def f(x):
        return np.sum(np.exp(1j * x))
    try:
        r = revsrc.grad(f)(A3)
    except revsrc.RevsrcError as e:
        assert str(e).startswith("[E302"), str(e)
        raise
    raise AssertionError(f"complex output not refused: {r!r}")


@custom("cx_complex_zero_imag_output", C, doc=("E302", "E202"))
def cx_complex_zero_imag_output():
    def f(x):
        z = complex(x, 0.0)
        return z * z
    r = revsrc.grad(f)(0.5)
    raise AssertionError(f"complex output not refused: {r!r}")


@custom("cx_holomorphic_poly", C)
def cx_holomorphic_poly():
    def f(z):
        return z ** 3 + 2.0 * z
    z = 0.5 - 1.5j
    close(revsrc.grad(f, holomorphic=True)(z), 3 * z ** 2 + 2)


@custom("cx_holomorphic_exp_sin", C)
def cx_holomorphic_exp_sin():
    def f(z):
        return np.exp(z) * np.sin(z)
    z = 0.3 + 0.4j
    close(revsrc.grad(f, holomorphic=True)(z), np.exp(z) * (np.sin(z) + np.cos(z)))


@custom("cx_holomorphic_cmath", C, doc=("E202",))
def cx_holomorphic_cmath():
    import cmath

    def f(z):
        return cmath.exp(z) / (1.0 + z)
    z = 0.3 + 0.4j
    close(revsrc.grad(f, holomorphic=True)(z), cmath.exp(z) / (1 + z) - cmath.exp(z) / (1 + z) ** 2)


@custom("cx_holomorphic_array_sum", C)
def cx_holomorphic_array_sum():
    def f(z):
        return np.sum(z * z)
    z = np.array([1.0 + 1.0j, 2.0 - 0.5j])
    close(revsrc.grad(f, holomorphic=True)(z), 2 * z)


@custom("cx_real_output_complex_arg", C)
def cx_real_output_complex_arg():
    def f(z):
        return np.real(z * z) + np.imag(z) * 3.0
    z = 1.0 + 2.0j
    # d/dre - i d/dim: f = x^2 - y^2 + 3y -> 2x - i(-2y + 3)
    close(revsrc.grad(f)(z), 2.0 - 1j * (-4.0 + 3.0))


@custom("cx_conj_abs2", C)
def cx_conj_abs2():
    def f(z):
        return np.sum((z * np.conj(z)).real)
    z = np.array([1.0 + 2.0j, -0.5 + 0.1j])
    close(revsrc.grad(f)(z), 2 * np.conj(z))


@custom("cx_holomorphic_real_input", C)
def cx_holomorphic_real_input():
    def f(z):
        return z * z
    # JAX requires complex inputs for holomorphic=True; revsrc may refuse or return 2z
    r = revsrc.grad(f, holomorphic=True)(1.5)
    close(r, 3.0)


@custom("cx_value_and_grad_holo", C)
def cx_value_and_grad_holo():
    def f(z):
        return z * z * z
    z = 1.0 + 1.0j
    v, g = revsrc.value_and_grad(f, holomorphic=True)(z)
    close(v, z ** 3)
    close(g, 3 * z ** 2)


# -- compositions
K = "compose"


def _vec_f(x):
    return np.sin(x) * x[0] + x ** 2


def _scal_f(x):
    return np.sum(np.tanh(x) * x[::-1]) + x[0] * x[1] ** 2


def _two(x, y):
    return np.sum(np.sin(x) * y) + np.sum(x * x) * np.sum(y ** 3)


def _hess_fd(f, x, h=1e-5):
    g = revsrc.grad(f)
    return fd(lambda t: g(t), x, h)


@custom("co_jacfwd_of_jacrev", K)
def co_jacfwd_of_jacrev():
    H = revsrc.jacfwd(revsrc.jacrev(_scal_f))(A3)
    close(H, revsrc.hessian(_scal_f)(A3), rtol=1e-9)
    Hn = np.array([fd(lambda t: fd(_scal_f, t)[i], A3, 1e-4) for i in range(3)])
    close(H, Hn, rtol=1e-4, atol=1e-5)


@custom("co_jacrev_of_jacfwd", K)
def co_jacrev_of_jacfwd():
    H = revsrc.jacrev(revsrc.jacfwd(_scal_f))(A3)
    close(H, revsrc.hessian(_scal_f)(A3), rtol=1e-9)


@custom("co_jacrev_of_jacrev_vec", K)
def co_jacrev_of_jacrev_vec():
    T = revsrc.jacrev(revsrc.jacrev(_vec_f))(A3)
    assert T.shape == (3, 3, 3), T.shape
    J = revsrc.jacrev(_vec_f)
    Tn = np.array([[fd(lambda t: J(t)[i, j], A3, 1e-5) for j in range(3)] for i in range(3)])
    close(T, Tn, rtol=1e-5, atol=1e-6)


@custom("co_hessian_tuple_argnums", K)
def co_hessian_tuple_argnums():
    x, y = A3, np.array([0.2, -0.4, 0.9])
    H = revsrc.hessian(_two, argnums=(0, 1))(x, y)
    assert isinstance(H, tuple) and len(H) == 2 and len(H[0]) == 2
    for i in range(2):
        for j in range(2):
            assert H[i][j].shape == (3, 3)
    gy = revsrc.grad(_two, argnums=1)
    Hxy = np.stack([fd(lambda t: gy(t, y)[k], x, 1e-5) for k in range(3)], axis=0)  # d/dx of dy
    close(H[1][0], Hxy, rtol=1e-5, atol=1e-6, what="H[1][0]")
    close(H[0][1], Hxy.T, rtol=1e-5, atol=1e-6, what="H[0][1]")


@custom("co_hessian_tuple_vs_jax", K, needs_jax=True)
def co_hessian_tuple_vs_jax():
    import jax
    import jax.numpy as jnp

    def j_two(x, y):
        return jnp.sum(jnp.sin(x) * y) + jnp.sum(x * x) * jnp.sum(y ** 3)
    x, y = A3, np.array([0.2, -0.4, 0.9])
    H = revsrc.hessian(_two, argnums=(0, 1))(x, y)
    HJ = jax.hessian(j_two, argnums=(0, 1))(x, y)
    for i in range(2):
        for j in range(2):
            close(H[i][j], np.asarray(HJ[i][j]), rtol=1e-10, what=f"H[{i}][{j}]")


@custom("co_hessian_scalar_tuple", K)
def co_hessian_scalar_tuple():
    def f(a, b):
        return a * a * b + math.sin(a * b)
    H = revsrc.hessian(f, argnums=(0, 1))(0.5, 1.5)
    a, b = 0.5, 1.5
    haa = 2 * b - b * b * math.sin(a * b)
    hab = 2 * a + math.cos(a * b) - a * b * math.sin(a * b)
    hbb = -a * a * math.sin(a * b)
    close(np.array(H, dtype=float), [[haa, hab], [hab, hbb]])


@custom("co_vmap_of_grad", K)
def co_vmap_of_grad():
    def f(x):
        return math.sin(x) * x * x
    xs = np.linspace(-1, 1, 7)
    close(revsrc.vmap(revsrc.grad(f))(xs), np.cos(xs) * xs ** 2 + 2 * xs * np.sin(xs))


@custom("co_jit_of_grad", K)
def co_jit_of_grad():
    def f(x, y):
        return math.exp(x * y) + x
    close(revsrc.jit(revsrc.grad(f, argnums=(0, 1)))(0.3, 0.7),
          (0.7 * math.exp(0.21) + 1, 0.3 * math.exp(0.21)))


@custom("co_grad_inside_jit", K)
def co_grad_inside_jit():
    def f(x):
        return x ** 3 - 2 * x
    df = revsrc.grad(f)

    def newton(x):
        for _ in range(8):
            x = x - f(x) / df(x)
        return x
    close(revsrc.jit(newton)(1.2), newton(1.2), rtol=0, atol=0)
    close(revsrc.jit(newton)(1.2), math.sqrt(2.0))


@custom("co_grad_of_jit_fn", K)
def co_grad_of_jit_fn():
    def f(x):
        return x ** 3 - 2 * x
    jf = revsrc.jit(f)

    def g(x):
        return jf(x) * x
    close(revsrc.grad(g)(0.7), 4 * 0.7 ** 3 - 4 * 0.7)


@custom("co_jvp_inside_grad", K)
def co_jvp_inside_grad():
    def f(x):
        return math.sin(x) * x

    def g(x):
        _, t = revsrc.jvp(f, (x,), (1.0,))
        return t * t
    close(revsrc.grad(g)(0.8), fd(g, 0.8), rtol=1e-6)


@custom("co_jvp_inside_grad_array", K)
def co_jvp_inside_grad_array():
    v = np.array([1.0, 0.5, -1.0])

    def g(x):
        _, t = revsrc.jvp(_scal_f, (x,), (v,))
        return t * t
    close(revsrc.grad(g)(A3), fd(g, A3), rtol=1e-5, atol=1e-7)


@custom("co_grad_grad_scalar_loop", K)
def co_grad_grad_scalar_loop():
    def f(x):
        y = x
        for i in range(4):
            if y > 1.0:
                y = y * 0.5
            y = y * x + 0.1
        return y
    g2 = revsrc.grad(revsrc.grad(f))(0.9)
    close(g2, fd(revsrc.grad(f), 0.9), rtol=1e-5)
    close(revsrc.hessian(f)(0.9), g2, rtol=1e-10)


@custom("co_hvp", K)
def co_hvp():
    vv = np.array([0.3, -1.0, 2.0])
    got = revsrc.hvp(_scal_f, (A3,), (vv,))
    close(got, revsrc.hessian(_scal_f)(A3) @ vv, rtol=1e-10)


@custom("co_linearize", K)
def co_linearize():
    out, lin = revsrc.linearize(_vec_f, A3)
    close(out, _vec_f(A3))
    vv = np.array([1.0, 0.0, -2.0])
    close(lin(vv), revsrc.jacfwd(_vec_f)(A3) @ vv, rtol=1e-10)


@custom("co_vjp", K)
def co_vjp():
    out, fn = revsrc.vjp(_vec_f, A3)
    ct = np.array([0.5, 1.0, -1.0])
    r = fn(ct)
    r = r[0] if isinstance(r, tuple) else r
    close(r, ct @ revsrc.jacfwd(_vec_f)(A3), rtol=1e-10)


@custom("co_jacobian_argnums_tuple", K)
def co_jacobian_argnums_tuple():
    def f(x, y):
        return x * y[0] + np.sin(y)
    Jx, Jy = revsrc.jacobian(f, argnums=(0, 1))(A3, np.array([0.1, 0.2, 0.3]))
    close(Jx, 0.1 * np.eye(3))
    Jy_exp = np.diag(np.cos([0.1, 0.2, 0.3]))
    Jy_exp[:, 0] += A3
    close(Jy, Jy_exp)


@custom("co_vmap_of_jacobian", K)
def co_vmap_of_jacobian():
    Xs = np.stack([A3, A3 * 2, A3 - 1])
    got = revsrc.vmap(revsrc.jacobian(_vec_f))(Xs)
    for i in range(3):
        close(got[i], revsrc.jacobian(_vec_f)(Xs[i]))


@custom("co_vmap_of_hessian", K)
def co_vmap_of_hessian():
    Xs = np.stack([A3, A3 * 2])
    got = revsrc.vmap(revsrc.hessian(_scal_f))(Xs)
    for i in range(2):
        close(got[i], revsrc.hessian(_scal_f)(Xs[i]))


@custom("co_grad_penalty", K)
def co_grad_penalty():
    dl = revsrc.grad(_scal_f)

    def pen(x):
        g = dl(x)
        return _scal_f(x) + 0.5 * np.sum(g * g)
    close(revsrc.grad(pen)(A3), fd(pen, A3), rtol=1e-5, atol=1e-7)


@custom("co_hessian_vs_jax_loop", K, needs_jax=True)
def co_hessian_vs_jax_loop():
    import jax
    import jax.numpy as jnp

    def f(x):
        s = x[0]
        for i in range(1, 3):
            s = np.sin(s) * x[i] + s * s
        return s

    def jf(x):
        s = x[0]
        for i in range(1, 3):
            s = jnp.sin(s) * x[i] + s * s
        return s
    close(revsrc.hessian(f)(A3), np.asarray(jax.hessian(jf)(A3)), rtol=1e-10)


@custom("co_jacfwd_jacrev_tuple_vs_jax", K, needs_jax=True)
def co_jacfwd_jacrev_tuple_vs_jax():
    import jax
    import jax.numpy as jnp

    def f(x, y):
        return np.sum(np.tanh(x) * y * y)

    def jf(x, y):
        return jnp.sum(jnp.tanh(x) * y * y)
    x, y = A3, np.array([0.4, 0.5, -0.6])
    got = revsrc.jacfwd(revsrc.jacrev(f, argnums=(0, 1)), argnums=1)(x, y)
    want = jax.jacfwd(jax.jacrev(jf, argnums=(0, 1)), argnums=1)(x, y)
    for i in range(2):
        close(got[i], np.asarray(want[i]), rtol=1e-10, what=str(i))


# -- backend="jax" with hidden state
J = "jaxstate"


@custom("jx_generator_arg", J, doc=("E603",), needs_jax=True)
def jx_generator_arg():
    def f(x, rng):
        return np.sum(x * rng.normal(size=3))
    rng = np.random.default_rng(0)
    revsrc.grad(f, backend="jax")(A3, rng)
    r2 = np.random.default_rng(0)
    raise AssertionError("not refused: would freeze rng")


_COUNTER = itertools.count()


def _uses_counter(x):
    k = next(_COUNTER)
    return x * x * k


@custom("jx_global_counter", J, doc=("E603",), needs_jax=True)
def jx_global_counter():
    df = revsrc.grad(_uses_counter, backend="jax")
    a = float(df(1.0))
    b = float(df(1.0))
    assert a != b, f"counter frozen: {a} == {b}"


GRNG = np.random.default_rng(1)


def _uses_grng(x):
    return np.sum(x * GRNG.normal(size=3))


@custom("jx_global_rng_method", J, doc=("E603",), needs_jax=True)
def jx_global_rng_method():
    df = revsrc.grad(_uses_grng, backend="jax")
    a = np.asarray(df(A3))
    b = np.asarray(df(A3))
    assert not np.allclose(a, b), f"rng frozen: {a} == {b}"


class _Stateful:
    def __init__(self):
        self.calls = 0

    def noise(self):
        self.calls += 1
        return float(self.calls)


@custom("jx_own_object_method", J, doc=("E603",), needs_jax=True)
def jx_own_object_method():
    obj = _Stateful()

    def f(x, o):
        return x * x * o.noise()
    df = revsrc.grad(f, backend="jax")
    a = float(df(1.0, obj))
    b = float(df(1.0, obj))
    assert a != b, f"method frozen: {a} == {b}"


@custom("jx_seeded_local_rng", J, doc=("E603",), needs_jax=True)
def jx_seeded_local_rng():
    def f(x):
        noise = np.random.default_rng(3).normal(size=3)
        return np.sum(x * noise)
    want = np.random.default_rng(3).normal(size=3)
    close(revsrc.grad(f, backend="jax")(A3), want)
    close(revsrc.grad(f, backend="jax")(A3), want)


class _Mod:
    def __init__(self):
        self.scale = 2.0

    def loss(self, x):
        return np.sum(self.scale * x * x)


@custom("jx_self_attr_changed", J, needs_jax=True)
def jx_self_attr_changed():
    m = _Mod()
    df = revsrc.grad(m.loss, backend="jax")
    close(df(A3), 4.0 * A3)
    m.scale = 5.0
    close(df(A3), 10.0 * A3, what="after self.scale=5")


JSCALE = 1.0


def _uses_jscale(x):
    return np.sum(JSCALE * np.sin(x))


@custom("jx_global_scalar_changed", J, needs_jax=True)
def jx_global_scalar_changed():
    global JSCALE
    try:
        df = revsrc.grad(_uses_jscale, backend="jax")
        close(df(A3), np.cos(A3))
        JSCALE = 3.0
        close(df(A3), 3 * np.cos(A3), what="after JSCALE=3")
    finally:
        JSCALE = 1.0


JACT = np.tanh


def _uses_jact(x):
    return np.sum(JACT(x))


@custom("jx_global_fn_rebound", J, needs_jax=True)
def jx_global_fn_rebound():
    global JACT
    try:
        df = revsrc.grad(_uses_jact, backend="jax")
        close(df(A3), 1 - np.tanh(A3) ** 2)
        JACT = np.sin
        close(df(A3), np.cos(A3), what="after JACT=sin")
    finally:
        JACT = np.tanh


@custom("jx_bigint_static", J, needs_jax=True)
def jx_bigint_static():
    def f(x, n):
        return np.sum(x * (n % 7))
    df = revsrc.grad(f, backend="jax")
    close(df(A3, 2 ** 60), np.full(3, float(2 ** 60 % 7)))
    close(df(A3, 2 ** 63 + 5), np.full(3, float((2 ** 63 + 5) % 7)))


@custom("jx_empty_array", J, needs_jax=True)
def jx_empty_array():
    def f(x, w):
        return np.sum(x * w) + np.sum(w * w)
    df = revsrc.grad(f, argnums=1, backend="jax")
    close(df(np.zeros((0, 3)), A3), 2 * A3)


@custom("jx_while_data_dep", J, needs_jax=True)
def jx_while_data_dep():
    def f(a):
        x = a
        while abs(x * x - a) > 1e-12:
            x = 0.5 * (x + a / x)
        return x
    close(revsrc.grad(f, backend="jax")(2.0), 0.5 / math.sqrt(2.0), rtol=1e-8)


@custom("jx_inplace_view", J, needs_jax=True)
def jx_inplace_view():
    def f(x):
        y = x * 1.0
        v = y[1:]
        v *= 3.0
        return np.sum(y * y)
    close(revsrc.grad(f, backend="jax")(np.array([1.0, 2.0, 3.0])), [2.0, 36.0, 54.0])


@custom("jx_add_at", J, needs_jax=True)
def jx_add_at():
    def f(x):
        out = np.zeros(3)
        np.add.at(out, [0, 0, 2, 1], x)
        return np.sum(out ** 2)
    close(revsrc.grad(f, backend="jax")(A4), revsrc.grad(f)(A4))


@custom("jx_branch_nan_arm", J, needs_jax=True)
def jx_branch_nan_arm():
    def f(x):
        if x > 0:
            y = np.sqrt(x)
        else:
            y = -x
        return y * 2.0
    close(revsrc.grad(f, backend="jax")(-1.0), -2.0)
    close(revsrc.grad(f, backend="jax")(4.0), 0.5)


@custom("jx_errstate_return", J, needs_jax=True)
def jx_errstate_return():
    def f(x):
        with np.errstate(divide="ignore"):
            return np.sum(np.log(x * x))
    close(revsrc.grad(f, backend="jax")(A3), 2 / A3)


# ------------------------------------------------------------------ more probes


class _ModArr:
    def __init__(self):
        self.w = np.array([1.0, 2.0, 3.0])
        self.act = np.tanh

    def loss(self, x):
        return np.sum(self.act(x) * self.w)


@custom("jx_self_array_attr_changed", J, needs_jax=True)
def jx_self_array_attr_changed():
    m = _ModArr()
    df = revsrc.grad(m.loss, backend="jax")
    close(df(A3), (1 - np.tanh(A3) ** 2) * m.w)
    m.w = np.array([-1.0, 0.5, 4.0])
    close(df(A3), (1 - np.tanh(A3) ** 2) * m.w, what="after self.w changed")


@custom("jx_self_act_changed", J, needs_jax=True)
def jx_self_act_changed():
    m = _ModArr()
    df = revsrc.grad(m.loss, backend="jax")
    close(df(A3), (1 - np.tanh(A3) ** 2) * m.w)
    m.act = np.sin
    close(df(A3), np.cos(A3) * m.w, what="after self.act = sin")


JCFG = types.SimpleNamespace(k=2.0)


def _uses_jcfg(x):
    return np.sum(JCFG.k * x * x)


@custom("jx_global_obj_attr_changed", J, needs_jax=True)
def jx_global_obj_attr_changed():
    try:
        df = revsrc.grad(_uses_jcfg, backend="jax")
        close(df(A3), 4 * A3)
        JCFG.k = 5.0
        close(df(A3), 10 * A3, what="after JCFG.k = 5")
    finally:
        JCFG.k = 2.0


@custom("np_global_obj_attr_changed", R)
def np_global_obj_attr_changed():
    try:
        df = revsrc.grad(_uses_jcfg)
        close(df(A3), 4 * A3)
        JCFG.k = 5.0
        close(df(A3), 10 * A3, what="after JCFG.k = 5")
    finally:
        JCFG.k = 2.0


def _make_jax_closure():
    k = [2.0]

    def f(x):
        return np.sum(k[0] * x * x)
    return f, k


@custom("jx_closure_list_mutated", J, needs_jax=True)
def jx_closure_list_mutated():
    f, k = _make_jax_closure()
    df = revsrc.grad(f, backend="jax")
    close(df(A3), 4 * A3)
    k[0] = 5.0
    close(df(A3), 10 * A3, what="after k[0] = 5")


@custom("np_closure_list_mutated", R)
def np_closure_list_mutated():
    f, k = _make_jax_closure()
    df = revsrc.grad(f)
    close(df(A3), 4 * A3)
    k[0] = 5.0
    close(df(A3), 10 * A3, what="after k[0] = 5")


@custom("jx_partial_method", J, needs_jax=True)
def jx_partial_method():
    m = _Mod()
    f = functools.partial(_Mod.loss, m)
    df = revsrc.grad(m.loss, backend="jax")
    df(A3)
    m.scale = 7.0
    close(df(A3), 14.0 * A3, what="after scale = 7")


@custom("np_self_attr_changed_engine", R)
def np_self_attr_changed_engine():
    class P:
        def __init__(self):
            self.a = 2.0

        def f(self, x):
            return self.a * x * x
    p = P()
    df = revsrc.grad(p.f)
    close(df(1.5), 6.0)
    p.a = 4.0
    close(df(1.5), 12.0, what="after p.a = 4")
    p.a = 3          # an int
    close(df(1.5), 9.0, what="after p.a = 3")


@custom("cx_sum_complex_output_2", C, doc=("E302",))
def cx_sum_complex_output_2():
    def f(x):
        return np.sum(x * (1.0 + 1.0j))
    r = revsrc.grad(f)(A3)
    raise AssertionError(f"complex output not refused: {r!r}")


@case("view_split_loop_zero", V, (A6,))
def view_split_loop_zero(x):
    y = x * 1.0
    for p in np.split(y, 3):
        p[0] = 0.0
    return np.sum(y * x)


@case("view_split_index_write", V, (A6,))
def view_split_index_write(x):
    y = x * 1.0
    ps = np.split(y, 3)
    ps[1][0] = 0.0
    return np.sum(y * x)


@case("ip_twice_add_at", I, (A4,))
def ip_twice_add_at(x):
    out = np.zeros(2)
    for k in range(2):
        np.add.at(out, [1, 1, 0, 1], x * (k + 1))
    return np.sum(np.sin(out))


@case("ip_where_then_inplace", I, (A6,))
def ip_where_then_inplace(x):
    y = np.where(x > 0, x, 0.0)
    y[1:4] *= x[:3]
    return np.sum(y ** 2)


@case("view_einsum_diag_read_then_write_M", V, (A3,))
def view_einsum_diag_read_then_write_M(x):
    M = np.outer(x, x)
    d = np.einsum("ii->i", M)
    M[0, 0] = 5.0 * x[1]
    return np.sum(d * x)


@case("view_transpose_alias_iadd", V, (M2,))
def view_transpose_alias_iadd(x):
    y = x * 1.0
    t = y.T
    t += 1.0
    y[0, 1] = t[0, 1] * x[1, 1]
    return np.sum(y * x)



# ------------------------------------------------------------------ more view writes


@case("view_base_write_view_read", V, (A6,))
def view_base_write_view_read(x):
    y = x * 1.0
    v = y[::2]
    y[0] = 5.0 * x[1]
    return np.sum(v * x[::2])


@case("view_base_imul_view_read", V, (A6,))
def view_base_imul_view_read(x):
    y = x + 1.0
    v = y[1:]
    y *= x
    return np.sum(v ** 2)


@case("view_chain_reshape_row_iadd", V, (A6,))
def view_chain_reshape_row_iadd(x):
    y = x * 1.0
    a = y.reshape(2, 3)
    b = a[0]
    b += x[3:]
    return np.sum(y * y)


def _first_half(a):
    return a[:2]


@case("view_helper_returns_view", V, (A4,))
def view_helper_returns_view(x):
    y = x * 1.0
    h = _first_half(y)
    h *= 2.0
    return np.sum(y * x)


def _scale_inplace(a, k):
    a *= k
    return None


@case("view_helper_writes_arg_view", V, (A4,))
def view_helper_writes_arg_view(x):
    y = x * 1.0
    _scale_inplace(y[1:], x[0])
    return np.sum(y * y)


@case("view_split_item_slice_assign", V, (A4,))
def view_split_item_slice_assign(x):
    y = x * 1.0
    np.split(y, 2)[0][:] = 0.0
    return np.sum(y * x)


@case("view_einsum_identity_write", V, (A3,), doc=("E404",))
def view_einsum_identity_write(x):
    y = x * 1.0
    e = np.einsum("i->i", y)
    e[0] = 9.0
    return np.sum(y * x)


@case("view_TT_write", V, (M2,))
def view_TT_write(x):
    y = x * 1.0
    t = y.T.T
    t[0, 1] = x[1, 0] * 3.0
    return np.sum(y * y)


@case("view_np_ravel_write", V, (M2,))
def view_np_ravel_write(x):
    y = x * 1.0
    r = np.ravel(y)
    r[1] = x[1, 1] ** 2
    return np.sum(y * x)


@case("view_np_transpose_write", V, (M2,))
def view_np_transpose_write(x):
    y = x * 1.0
    t = np.transpose(y)
    t[0, 1] = 4.0 * x[0, 0]
    return np.sum(y * x)


@case("view_newaxis_write", V, (A3,))
def view_newaxis_write(x):
    y = x * 1.0
    c = y[:, None]
    c[1, 0] = x[2] * 2.0
    return np.sum(y * y)


@case("view_view_after_base_rebound", V, (A4,))
def view_view_after_base_rebound(x):
    y = x * 1.0
    v = y[1:]
    y = y * 2.0
    v[0] = 7.0
    return np.sum(y) + np.sum(v * x[1:])


@case("view_write_in_branch", V, (A4,))
def view_write_in_branch(x):
    y = x * 1.0
    v = y[2:]
    if x[0] > 0:
        v *= 3.0
    else:
        v += 1.0
    return np.sum(y * y)


@case("view_write_in_loop_same_view", V, (A4,))
def view_write_in_loop_same_view(x):
    y = x * 1.0
    v = y[1:3]
    for k in range(3):
        v *= x[0]
    return np.sum(y)


@case("view_inner_loop_view_per_iter", V, (A6,), doc=("E404",))
def view_inner_loop_view_per_iter(x):
    y = x * 1.0
    for k in range(3):
        w = y[k:k + 3]
        w += x[k]
    return np.sum(y * y)


@case("view_real_slice_of_complex", V, (A3,))
def view_real_slice_of_complex(x):
    z = x * (2.0 - 1.0j)
    r = z.real
    r[0] = x[1] * 5.0
    return np.sum(np.abs(z) ** 2)


@case("view_reshape_minus1_of_T", V, (M3,))
def view_reshape_minus1_of_T(x):
    y = x * 1.0
    r = y.T.reshape(3, 3)   # a view (transpose is reshaped to the same shape)
    r[0, 2] = x[2, 2] * 3.0
    return np.sum(y * y)


@case("view_asarray_of_list_then_write", V, (A3,))
def view_asarray_of_list_then_write(x):
    y = np.asarray([x[0], x[1], x[2]])
    y[0] = y[1] * y[2]
    return np.sum(y * y)



# ------------------------------------------------------------------ more errstate


@case("es_return_in_loop", ES, (A3,))
def es_return_in_loop(x):
    for i in range(3):
        with np.errstate(divide="ignore"):
            if x[i] < 0:
                return np.sum(x[:i] ** 2) + x[i]
    return np.sum(x)


@case("es_while_true_return", ES, (0.6,))
def es_while_true_return(x):
    s = 0.0
    while True:
        with np.errstate(all="ignore"):
            s = s + x * x
            if s > 1.0:
                return s
    return -1.0


@case("es_raise_mode_no_error", ES, (A3,))
def es_raise_mode_no_error(x):
    with np.errstate(invalid="raise"):
        y = np.sqrt(x * x)
    return np.sum(y)


@case("es_continue_float_acc", ES, (A3,))
def es_continue_float_acc(x):
    r = 0.0
    for i in range(3):
        with np.errstate(over="ignore"):
            if i == 1:
                continue
            r += math.exp(x[i])
    return r


def _es_where_log(x):
    with np.errstate(divide="ignore"):
        y = np.log(x * 0.0 + 0.0)
        z = np.where(np.isfinite(y), y, 0.0)
    return np.sum(z) + np.sum(x * x)


@custom("es_where_log_branch_not_taken", ES)
def es_where_log_branch_not_taken():
    # the where never chooses the log (-inf everywhere): its adjoint stays 0 (revsrc/runtime/
    # dropped.py) and the gradient is x * x's alone; JAX gives 0 * inf = nan here
    close(revsrc.grad(_es_where_log)(A3), 2.0 * A3, what="the sum of squares' gradient")


@custom("es_hessian_return_in_loop", ES)
def es_hessian_return_in_loop():
    close(revsrc.hessian(es_return_in_loop)(A3), np.diag([2.0, 0.0, 0.0]))


@custom("es_hessian_raise_mode", ES)
def es_hessian_raise_mode():
    def f(x):
        with np.errstate(divide="raise"):
            return 1.0 / x
    close(revsrc.hessian(f)(0.5), 16.0)



# ------------------------------------------------------------------ state read at call time, both backends
WMUT = np.array([1.0, 2.0, 3.0])


def _uses_wmut(x):
    return np.sum(WMUT * x * x)


class _Holder:
    pass


def _uses_holder(x, c):
    return np.sum(c.w * x * x)


def _uses_dict_arg(x, d):
    return np.sum(d["k"] * x)


LMUT = [2.0]


def _uses_lmut(x):
    return np.sum(LMUT[0] * x)


MODX = types.ModuleType("modx")
MODX.K = 2.0


def _uses_modx(x):
    return np.sum(MODX.K * x)


def _state_checks(backend):
    def global_array_inplace():
        try:
            d = revsrc.grad(_uses_wmut, backend=backend)
            d(A3)
            WMUT[0] = 10.0
            close(d(A3), 2 * WMUT * A3, what="after WMUT[0] = 10")
        finally:
            WMUT[0] = 1.0

    def attr_of_nondiff_arg():
        h = _Holder()
        h.w = np.array([1.0, 2.0, 3.0])
        d = revsrc.grad(_uses_holder, backend=backend)
        close(d(A3, h), 2 * h.w * A3)
        h.w = np.array([5.0, 5.0, 5.0])
        close(d(A3, h), 10 * A3, what="after h.w changed")

    def dict_arg_mutated():
        dct = {"k": 2.0}
        d = revsrc.grad(_uses_dict_arg, backend=backend)
        d(A3, dct)
        dct["k"] = 7.0
        close(d(A3, dct), np.full(3, 7.0), what="after d['k'] = 7")

    def global_list_mutated():
        try:
            d = revsrc.grad(_uses_lmut, backend=backend)
            d(A3)
            LMUT[0] = 9.0
            close(d(A3), np.full(3, 9.0), what="after LMUT[0] = 9")
        finally:
            LMUT[0] = 2.0

    def module_attr_changed():
        try:
            d = revsrc.grad(_uses_modx, backend=backend)
            d(A3)
            MODX.K = 4.0
            close(d(A3), np.full(3, 4.0), what="after MODX.K = 4")
        finally:
            MODX.K = 2.0
    return [global_array_inplace, attr_of_nondiff_arg, dict_arg_mutated,
            global_list_mutated, module_attr_changed]


for _be, _fam, _pre in ((None, R, "st_"), ("jax", J, "jx_st_")):
    for _chk in _state_checks(_be):
        CASES.append(Case(_pre + _chk.__name__, _fam, check=_chk, needs_jax=_be == "jax"))



# ------------------------------------------------------------------ forward over reverse through in-place writes
X3 = np.array([0.5, -0.4, 1.3])


def _slice_imul(x):
    y = x * 1.0
    y[1:] *= x[0]
    return np.sum(y)


def _slice_assign_self(x):
    y = x * 1.0
    y[1:3] = y[1:3] * x[0]
    return np.sum(y)


def _H_slice_imul(x):          # the true Hessian of _slice_imul / _slice_assign_self
    return np.array([[0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [1.0, 0.0, 0.0]])


@custom("co_hessian_slice_imul", K)
def co_hessian_slice_imul():
    close(revsrc.hessian(_slice_imul)(X3), _H_slice_imul(X3))


@custom("co_hessian_slice_assign_self", K)
def co_hessian_slice_assign_self():
    close(revsrc.hessian(_slice_assign_self)(X3), _H_slice_imul(X3))


@custom("co_jacfwd_grad_slice_imul", K)
def co_jacfwd_grad_slice_imul():
    close(revsrc.jacfwd(revsrc.grad(_slice_imul))(X3), _H_slice_imul(X3))


@custom("co_jacrev_grad_slice_imul", K)
def co_jacrev_grad_slice_imul():
    close(revsrc.jacrev(revsrc.grad(_slice_imul))(X3), _H_slice_imul(X3))


@custom("co_jvp_of_grad_slice_imul", K)
def co_jvp_of_grad_slice_imul():
    v = np.array([0.0, 1.0, 0.0])
    close(revsrc.jvp(revsrc.grad(_slice_imul), (X3,), (v,))[1], [1.0, 0.0, 0.0])


@custom("co_hvp_slice_imul", K)
def co_hvp_slice_imul():
    v = np.array([0.0, 1.0, 0.0])
    close(revsrc.hvp(_slice_imul, (X3,), (v,)), [1.0, 0.0, 0.0])


@custom("co_grad_grad_component_slice_imul", K)
def co_grad_grad_component_slice_imul():
    dg = revsrc.grad(_slice_imul)

    def g0(x):
        return dg(x)[0]
    close(revsrc.grad(g0)(X3), [0.0, 1.0, 1.0])


def _hess_vs_fd(fn, x):
    H = revsrc.hessian(fn)(x)
    g = revsrc.grad(fn)
    Hn = np.stack([fd(lambda t: g(t)[..., ][np.unravel_index(i, x.shape)], x, 1e-5).ravel()
                   for i in range(x.size)])
    close(np.asarray(H).reshape(x.size, x.size), Hn, rtol=1e-4, atol=1e-5)


@custom("co_hessian_view_slice_imul", K)
def co_hessian_view_slice_imul():
    _hess_vs_fd(view_slice_imul, A4)


@custom("co_hessian_view_row_write", K)
def co_hessian_view_row_write():
    _hess_vs_fd(view_basic_index_row_write, M3)


@custom("co_hessian_where_then_inplace", K)
def co_hessian_where_then_inplace():
    _hess_vs_fd(ip_where_then_inplace, A6)


@custom("co_hessian_item_loop_iadd", K)
def co_hessian_item_loop_iadd():
    _hess_vs_fd(ip_loop_item_iadd, A4)


@custom("co_hessian_fancy_iadd_repeated", K)
def co_hessian_fancy_iadd_repeated():
    _hess_vs_fd(ip_fancy_iadd_repeated, A4)


@custom("co_hessian_overlap_isub", K)
def co_hessian_overlap_isub():
    _hess_vs_fd(ip_overlap_isub, A4)


@custom("co_hessian_strided_assign", K)
def co_hessian_strided_assign():
    _hess_vs_fd(view_strided_assign, A6)


@custom("co_hessian_iir_filter", K)
def co_hessian_iir_filter():
    _hess_vs_fd(functools.partial(sci_iir_filter, a=0.6), A6)


@custom("co_hessian_column_imul", K)
def co_hessian_column_imul():
    _hess_vs_fd(view_column_imul, M3)


@custom("co_hessian_mask_iadd", K)
def co_hessian_mask_iadd():
    _hess_vs_fd(ip_mask_iadd, A6)


@custom("co_hessian_scatter_conv", K)
def co_hessian_scatter_conv():
    _hess_vs_fd(ip_scatter_conv, A4)



# ------------------------------------------------------------------ more rebinding / big-int probes
ACT2 = math.tanh


def _uses_act2(x):
    return ACT2(x) * x


@custom("rb_all_transforms_after_rebind", R)
def rb_all_transforms_after_rebind():
    global ACT2
    try:
        ds = {"hessian": revsrc.hessian(_uses_act2), "jacfwd": revsrc.jacfwd(_uses_act2),
              "vg": revsrc.value_and_grad(_uses_act2),
              "engine": revsrc.grad(_uses_act2, backend="engine"),
              "gradgrad": revsrc.grad(revsrc.grad(_uses_act2))}
        for d in ds.values():
            d(0.4)
        ACT2 = math.sin
        x = 0.4
        d1 = math.cos(x) * x + math.sin(x)
        d2 = -math.sin(x) * x + 2 * math.cos(x)
        close(ds["hessian"](x), d2, what="hessian")
        close(ds["jacfwd"](x), d1, what="jacfwd")
        close(ds["vg"](x), (math.sin(x) * x, d1), what="value_and_grad")
        close(ds["engine"](x), d1, what="engine")
        close(ds["gradgrad"](x), d2, what="grad(grad)")
        close(revsrc.jvp(_uses_act2, (x,), (1.0,)), (math.sin(x) * x, d1), what="jvp")
    finally:
        ACT2 = math.tanh


def _g_mod(x, n):
    return x * x * (n % 7)


@custom("bi_vmap_unmapped_huge", B)
def bi_vmap_unmapped_huge():
    n = 2 ** 70 + 3
    close(revsrc.vmap(revsrc.grad(_g_mod), in_axes=(0, None))(np.array([1.0, 2.0]), n),
          [2.0 * (n % 7), 4.0 * (n % 7)])


@custom("bi_vmap_mapped_int64", B)
def bi_vmap_mapped_int64():
    ns = np.array([2 ** 62 + 1, 2 ** 61 + 5])
    close(revsrc.vmap(revsrc.grad(_g_mod))(np.array([1.0, 2.0]), ns),
          [2.0 * ((2 ** 62 + 1) % 7), 4.0 * ((2 ** 61 + 5) % 7)])


@custom("bi_jit_grad_2_64", B)
def bi_jit_grad_2_64():
    close(revsrc.jit(revsrc.grad(_g_mod))(1.5, 2 ** 64 + 1), 3.0 * ((2 ** 64 + 1) % 7))


@custom("bi_engine_floordiv", B)
def bi_engine_floordiv():
    def g(x, n):
        return x * (n // 3 % 5) + x * x
    close(revsrc.grad(g, backend="engine")(1.5, 2 ** 63 + 7), ((2 ** 63 + 7) // 3 % 5) + 3.0)


@custom("bi_engine_loop_count", B)
def bi_engine_loop_count():
    def g(x, n):
        s = x
        for i in range(n % 4):
            s = s * x
        return s
    close(revsrc.grad(g, backend="engine")(1.5, 2 ** 64 + 2), 3 * 1.5 ** 2)


@custom("bi_engine_sub_to_small", B)
def bi_engine_sub_to_small():
    def g(x, n):
        return x * (n - 2 ** 64)
    close(revsrc.grad(g, backend="engine")(1.5, 2 ** 64 + 2), 2.0)


@custom("bi_square_overflow_int64", B)
def bi_square_overflow_int64():
    def g(x, n):
        return x * (n * n % 1000)
    close(revsrc.grad(g)(1.5, 2 ** 40 + 3), float((2 ** 40 + 3) ** 2 % 1000))


@custom("bi_min_int64_abs", B)
def bi_min_int64_abs():
    def g(x, n):
        return x * (n % 7) * (abs(n) % 3)
    close(revsrc.grad(g)(1.5, -2 ** 63), float((-2 ** 63) % 7 * (2 ** 63 % 3)))


@custom("bi_hessian_bigint", B)
def bi_hessian_bigint():
    def g(x, n):
        return x ** 3 * (n % 5)
    close(revsrc.hessian(g)(1.5, 2 ** 66 + 1), 6 * 1.5 * ((2 ** 66 + 1) % 5))



# ------------------------------------------------------------------ complex outputs that must be refused (E302)
def _must_refuse(transform, f, *args):
    try:
        r = transform(f)(*args)
    except revsrc.RevsrcError as e:
        assert str(e).startswith("[E302"), str(e)
        raise
    raise AssertionError(f"complex output not refused: returned {r!r}")


def _cx_mean(x):
    return np.mean(x * 1j + x)


def _cx_prod(x):
    return np.prod(x + 1j)


def _cx_branch(x):
    if x[0] > 0:
        return np.sum(np.exp(1j * x))
    return 0.0


def _cx_fft(x):
    return np.sum(np.fft.fft(x))


def _cx_vec(x):
    return x * 1j + x


@custom("cx_mean_output", C, doc=("E302",))
def cx_mean_output():
    _must_refuse(revsrc.grad, _cx_mean, A3)


@custom("cx_prod_output", C, doc=("E302",))
def cx_prod_output():
    _must_refuse(revsrc.grad, _cx_prod, A3)


@custom("cx_branch_output", C, doc=("E302",))
def cx_branch_output():
    _must_refuse(revsrc.grad, _cx_branch, A3)


@custom("cx_fft_sum_output", C, doc=("E302",))
def cx_fft_sum_output():
    _must_refuse(revsrc.grad, _cx_fft, A3)


@custom("cx_value_and_grad_mean_output", C, doc=("E302",))
def cx_value_and_grad_mean_output():
    _must_refuse(revsrc.value_and_grad, _cx_mean, A3)


@custom("cx_hessian_complex_output", C, doc=("E302",))
def cx_hessian_complex_output():
    _must_refuse(revsrc.hessian, _cx_mean, A3)


@custom("cx_jacrev_complex_vector", C, doc=("E302",))
def cx_jacrev_complex_vector():
    _must_refuse(revsrc.jacrev, _cx_vec, A3)


@custom("cx_jacfwd_complex_vector", C, doc=("E302",))
def cx_jacfwd_complex_vector():
    # JAX's jacfwd of a real-to-complex function returns the complex Jacobian
    close(revsrc.jacfwd(_cx_vec)(A3), (1.0 + 1.0j) * np.eye(3))


@custom("cx_jax_backend_mean_output", C, doc=("E302",), needs_jax=True)
def cx_jax_backend_mean_output():
    _must_refuse(functools.partial(revsrc.grad, backend="jax"), _cx_mean, A3)



def _view_before_imul(x):
    y = x * 1.0
    v = y[1:]
    y *= x          # v sees the product
    return np.sum(v)


_H_VBI = np.diag([0.0, 2.0, 2.0])


@custom("co_hessian_view_before_imul", K)
def co_hessian_view_before_imul():
    close(revsrc.hessian(_view_before_imul)(X3), _H_VBI)


@custom("co_jacrev_grad_view_before_imul", K)
def co_jacrev_grad_view_before_imul():
    close(revsrc.jacrev(revsrc.grad(_view_before_imul))(X3), _H_VBI)


@custom("co_grad_grad_component_view_before_imul", K)
def co_grad_grad_component_view_before_imul():
    dg = revsrc.grad(_view_before_imul)

    def g1(x):
        return dg(x)[1]
    close(revsrc.grad(g1)(X3), [0.0, 2.0, 0.0])


@custom("co_jvp_view_before_imul", K)
def co_jvp_view_before_imul():
    v = np.array([0.3, 1.0, -2.0])
    out, tan = revsrc.jvp(_view_before_imul, (X3,), (v,))
    close(out, _view_before_imul(X3))
    close(tan, np.sum(2 * X3[1:] * v[1:]))


@custom("co_grad_view_before_imul", K)
def co_grad_view_before_imul():
    close(revsrc.grad(_view_before_imul)(X3), [0.0, 2 * X3[1], 2 * X3[2]])


@custom("co_hessian_view_base_imul_read", K)
def co_hessian_view_base_imul_read():
    _hess_vs_fd(view_base_imul_view_read, A6)



@custom("co_jax_hessian_view_before_imul", K, needs_jax=True)
def co_jax_hessian_view_before_imul():
    close(revsrc.hessian(_view_before_imul, backend="jax")(X3), _H_VBI)


@custom("co_jax_hessian_slice_imul", K, needs_jax=True)
def co_jax_hessian_slice_imul():
    close(revsrc.hessian(_slice_imul, backend="jax")(X3), _H_slice_imul(X3))


def _slice_imul_scalar(x, a):
    y = x * 1.0
    y[1:] *= a
    return np.sum(y * y)


@custom("co_hessian_tuple_slice_imul_scalar", K)
def co_hessian_tuple_slice_imul_scalar():
    a = 0.7
    H = revsrc.hessian(_slice_imul_scalar, argnums=(0, 1))(X3, a)
    hxa = np.array([0.0, 4 * a * X3[1], 4 * a * X3[2]])
    close(H[0][0], np.diag([2.0, 2 * a * a, 2 * a * a]), what="H[0][0]")
    close(H[0][1], hxa, what="H[0][1]")
    close(H[1][0], hxa, what="H[1][0]")
    close(H[1][1], 2 * (X3[1] ** 2 + X3[2] ** 2), what="H[1][1]")


@custom("co_hessian_tuple_slice_imul_vs_jax", K, needs_jax=True)
def co_hessian_tuple_slice_imul_vs_jax():
    jax = _jax()
    jnp = _jnp()

    def jf(x, a):
        return jnp.sum(x.at[1:].multiply(a) ** 2)
    H = revsrc.hessian(_slice_imul_scalar, argnums=(0, 1))(X3, 0.7)
    HJ = jax.hessian(jf, argnums=(0, 1))(X3, 0.7)
    for i in range(2):
        for j in range(2):
            close(H[i][j], np.asarray(HJ[i][j]), rtol=1e-10, what=f"H[{i}][{j}]")



@custom("co_hessian_helper_writes_view", K)
def co_hessian_helper_writes_view():
    _hess_vs_fd(view_helper_writes_arg_view, A4)


@custom("co_hessian_view_imul_in_loop", K)
def co_hessian_view_imul_in_loop():
    _hess_vs_fd(view_write_in_loop_same_view, A4)



# ------------------------------------------------------------------ backend="jax" variants of the programs above
JB = "jax-backend"
_JAX_VARIANTS = {
    "view_slice_imul": (), "view_of_view_write": (), "view_reshape_iadd": (),
    "view_squeeze_write": (), "view_strided_assign": (), "view_iadd_own_T": (),
    "ip_mask_assign": ("E603",), "ip_item_max": ("E603",), "ip_fancy_iadd_repeated": (),
    "ip_fill_diagonal": (), "ip_overlap_isub": (), "ip_out_column_loop": (),
    "ip_s_iadd_matmul_loop": (), "ip_loop_item_iadd": (), "ip_self_imul": (),
    "sci_iir_filter": (), "sci_kalman": (), "sci_rk4_vec": (), "sci_newton_sqrt": (),
    "sci_huber": (), "sci_power_iteration": (), "sci_gauss_seidel": (),
    "sci_data_dep_loop": (), "sci_lstm_like": (), "sci_norm_clip": (), "sci_verlet": (),
    "bi_mod": (), "em_empty_arg": (), "em_loop_empty": (), "lam_default_capture": (),
    "es_nested": (), "em_prod_empty": (), "sci_cummax_loop": (), "sci_logsumexp": (),
}


def _add_jax_variants():
    by = {c.name: c for c in CASES}
    for name, doc in _JAX_VARIANTS.items():
        c = by[name]
        CASES.append(Case(name + "_jax", JB, c.fn, c.args, argnums=c.argnums,
                          doc=doc, opts={"backend": "jax"}, needs_jax=True))


_add_jax_variants()
