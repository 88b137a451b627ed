"""User programs, corpus 5f: overwritten saved values, aliasing, state changed between calls."""
import math

import numpy as np

import revsrc
from user_programs5_harness import case, fd_grad

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


# ---- in-place writes over values the adjoint needs ------------------------------------

def overwrite_exp_result(x):
    y = np.exp(x)
    z = y * 2.0
    y *= 3.0
    return np.sum(z * y)


add("overwrite_after_exp", overwrite_exp_result, (np.array([0.1, -0.5]),))


def overwrite_tanh_in_loop(x):
    h = np.tanh(x)
    acc = 0.0
    for i in range(3):
        acc = acc + np.sum(h ** 2)
        h[:] = np.tanh(h + x)
    return acc


add("overwrite_tanh_slice_loop", overwrite_tanh_in_loop, (np.array([0.3, 0.8]),))


def self_augment(x):
    y = x * 1.0
    y += y
    y *= y
    return np.sum(y)


add("self_augment", self_augment, (np.array([0.5, -1.5]),))


def overlapping_view_add(x):
    y = x * 1.0
    y[1:] += y[:-1]
    return np.sum(y * np.arange(1.0, 5.0))


add("overlapping_views_iadd", overlapping_view_add, (np.array([1.0, 2.0, 3.0, 4.0]),))


def swap_columns_views(A):
    B = A * 1.0
    B[:, 0], B[:, 1] = B[:, 1], B[:, 0]
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]))


add("swap_columns_view_alias", swap_columns_views, (np.array([[1.0, 2.0], [5.0, 7.0]]),))


def swap_copies(A):
    B = A * 1.0
    B[:, 0], B[:, 1] = B[:, 1].copy(), B[:, 0].copy()
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0]]) ** 2)


add("swap_columns_copies", swap_copies, (np.array([[1.0, 2.0], [5.0, 7.0]]),))


def chained_assign(x):
    a = b = np.zeros(2)
    a[0] = x[0] * 2
    b[1] = x[1] ** 2
    return np.sum(a * b) + np.sum(a) + np.sum(b)


add("chained_assignment_alias", chained_assign, (np.array([1.5, 2.0]),))


def saved_then_view_written(x):
    y = np.sin(x)
    r = y.reshape(2, 2)
    s = np.sum(y ** 3)
    r[0, 0] = 0.0
    return s + np.sum(y * x)


add("saved_then_written_via_reshape", saved_then_view_written, (np.array([0.1, 0.2, 0.3, 0.4]),))


def sort_inplace_method(x):
    y = x * 1.0
    y.sort()
    return np.sum(y * np.arange(3.0))


add("ndarray_sort_method_inplace", sort_inplace_method, (np.array([3.0, 1.0, 2.0]),))


def local_list_alias(x):
    xs = [x]
    ys = xs
    ys.append(x * 2)
    return sum(xs) * len(ys)


add("list_alias_append", local_list_alias, (1.5,))


def list_of_arrays_inplace(x):
    hs = [x * 1.0, x * 2.0]
    h0 = hs[0]
    h0 += 1.0
    return np.sum(hs[0] * hs[1])


add("inplace_on_array_from_list", list_of_arrays_inplace, (np.array([0.5, 1.0]),))


def dict_of_arrays_inplace(x):
    d = {"a": x * 1.0}
    v = d["a"]
    v *= 3.0
    return np.sum(d["a"] ** 2)


add("inplace_on_array_from_dict", dict_of_arrays_inplace, (np.array([0.5, 1.0]),))


def column_vector_broadcast(w, x):
    return np.sum(np.tanh(w * x) ** 2)


add("broadcast_col_times_row", column_vector_broadcast, (np.array([[0.5], [1.0], [-0.3]]), np.array([[1.0, 2.0, 0.1, -1.0]])),
    argnums=(0, 1))


def broadcast_to_sum(x):
    B = np.broadcast_to(x, (3, 2))
    return np.sum(B * np.array([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]))


add("broadcast_to_read", broadcast_to_sum, (np.array([0.5, 1.0]),))


def zero_d_broadcast(s, x):
    return np.sum((s * x) ** 2)


add("zero_d_array_times_matrix", zero_d_broadcast, (np.array(1.5), np.ones((2, 3))))


def one_elem_broadcast(s, x):
    return np.sum((s + x) ** 2)


add("shape1_broadcast_grad_shape", one_elem_broadcast, (np.array([1.5]), np.ones((2, 3))))


# ---- state changed between calls ---------------------------------------------------------

def _training_loop_captured():
    W = np.array([1.0, -2.0])

    def loss(x):
        return np.sum((W * x - 1.0) ** 2)
    g = revsrc.grad(loss)
    x = np.array([0.5, 0.5])
    got, exp = [], []
    for _ in range(3):
        got.append(g(x).copy())
        exp.append(2 * (W * x - 1.0) * W)
        W -= 0.1 * np.array([1.0, 1.0])      # in place: the closure sees the new W
    return got, exp


add("closure_array_updated_inplace", _training_loop_captured, t="custom")

W_DEFAULT = np.array([1.0, 2.0])


def default_array_arg(x, w=W_DEFAULT):
    return np.sum(w * x * x)


def _default_mutated():
    g = revsrc.grad(default_array_arg)
    x = np.array([1.0, 1.0])
    a = g(x).copy()
    W_DEFAULT[0] = 5.0
    b = g(x).copy()
    W_DEFAULT[0] = 1.0
    return (a, b), (np.array([2.0, 4.0]), np.array([10.0, 4.0]))


add("default_array_mutated_between_calls", _default_mutated, t="custom")


def _closure_cell_rebound():
    k = 1.0

    def f(x):
        return k * x * x
    g = revsrc.grad(f)
    a = g(2.0)
    k = 3.0
    b = g(2.0)
    return (a, b), (4.0, 12.0)


add("closure_cell_rebound_between_calls", _closure_cell_rebound, t="custom")

MODE = 1


def global_int_type_change(x):
    return np.sum(MODE * x * x)


def _global_type_change():
    global MODE
    g = revsrc.grad(global_int_type_change)
    a = g(np.array([1.0, 2.0])).copy()
    MODE = np.array([3.0, 0.5])
    b = g(np.array([1.0, 2.0])).copy()
    MODE = 1
    return (a, b), (np.array([2.0, 4.0]), np.array([6.0, 2.0]))


add("global_int_then_array", _global_type_change, t="custom")


def helper_a(x):
    return x * x


def helper_b(x):
    return x * x * x


HELPER = helper_a


def uses_helper(x):
    return HELPER(x) + 1.0


def _rebinding_helper():
    global HELPER
    g = revsrc.grad(uses_helper)
    a = g(2.0)
    HELPER = helper_b
    b = g(2.0)
    HELPER = helper_a
    c = g(2.0)
    return (a, b, c), (4.0, 12.0, 4.0)


add("global_helper_rebound_and_back", _rebinding_helper, t="custom")


def _shape_change_between_calls():
    def f(x):
        return np.sum(x[1:] * x[:-1])
    g = revsrc.grad(f)
    a = g(np.array([1.0, 2.0, 3.0]))
    b = g(np.array([[1.0, 2.0], [3.0, 4.0]]))
    return (a, b), (np.array([2.0, 4.0, 2.0]), np.array([[3.0, 4.0], [1.0, 2.0]]))


add("rank_change_between_calls", _shape_change_between_calls, t="custom")


def _float_then_array():
    def f(x):
        return np.sum(np.sin(x))
    g = revsrc.grad(f)
    a = g(0.5)
    b = g(np.array([0.5, 1.0]))
    c = g(np.float32(0.5))
    return (a, b, c), (math.cos(0.5), np.cos([0.5, 1.0]), math.cos(0.5))


add("float_then_array_then_f32_scalar", _float_then_array, t="custom", tol=1e-6)


class Net:
    def __init__(self, W):
        self.W = W

    def loss(self, x):
        return np.sum(np.tanh(self.W @ x))


def _attr_array_replaced():
    net = Net(np.eye(2))
    g = revsrc.grad(net.loss)
    x = np.array([0.1, 0.2])
    a = g(x)
    net.W = 2.0 * np.eye(2)
    b = g(x)
    return (a, b), (1 - np.tanh(x) ** 2, 2 * (1 - np.tanh(2 * x) ** 2))


add("attribute_array_replaced_between_calls", _attr_array_replaced, t="custom")


def _grad_wrt_self_method_twice():
    nets = [Net(np.eye(2)), Net(3.0 * np.eye(2))]
    x = np.array([0.1, 0.2])
    got = [revsrc.grad(n.loss)(x) for n in nets]
    return got, [1 - np.tanh(x) ** 2, 3 * (1 - np.tanh(3 * x) ** 2)]


add("same_method_two_instances", _grad_wrt_self_method_twice, t="custom")


# ---- random numbers ----------------------------------------------------------------------

def seeded_inside(x):
    np.random.seed(3)
    z = np.random.randn(4)
    return np.sum(np.sin(x * z))


add("np_random_seed_inside", seeded_inside, (0.7,))


def _rng_argument():
    def f(x, rng):
        z = rng.normal(size=3)
        return np.sum(x * z ** 2)
    v, g = revsrc.value_and_grad(f)(1.5, np.random.default_rng(0))
    z = np.random.default_rng(0).normal(size=3)
    return (v, g), (1.5 * np.sum(z ** 2), np.sum(z ** 2))


add("rng_generator_argument_draws_once", _rng_argument, t="custom")


def _rng_in_try():
    def f(x, rng):
        try:
            z = rng.normal()
        except ValueError:
            z = 0.0
        return x * z
    v, g = revsrc.value_and_grad(f)(1.5, np.random.default_rng(1))
    z = np.random.default_rng(1).normal()
    return (v, g), (1.5 * z, z)


add("rng_draw_inside_try", _rng_in_try, t="custom")


def _rng_in_loop_grad_consistent():
    def f(x, rng):
        acc = 0.0
        for i in range(3):
            acc = acc + x * rng.uniform()
        return acc * acc
    v, g = revsrc.value_and_grad(f)(2.0, np.random.default_rng(7))
    u = np.random.default_rng(7).uniform(size=3)
    s = float(np.sum(u))
    return (v, g), (4.0 * s * s, 2 * 2.0 * s * s)


add("rng_in_loop_value_grad_consistent", _rng_in_loop_grad_consistent, t="custom")


# ---- conversions -----------------------------------------------------------------------

def item_conversion(x):
    s = np.sum(x ** 2).item()
    return s * 2.0


add("ndarray_item", item_conversion, (np.array([1.0, 2.0]),))


def tolist_conversion(x):
    xs = x.tolist()
    return sum(v * v for v in xs)


add("ndarray_tolist", tolist_conversion, (np.array([1.0, 2.0]),))


def float_of_element(x):
    return float(x[0]) * math.sin(float(x[1]))


add("float_of_array_element", float_of_element, (np.array([1.5, 0.3]),))


def array_dtype_f32_inside(x):
    y = np.array([x, 2.0 * x], dtype=np.float32)
    return float(np.sum(y * y))


# The exact derivative (float32 rounding makes central differences useless here).
add("np_array_dtype_float32_inside", array_dtype_f32_inside, (0.7,), ref=lambda: [7.0], tol=1e-6)


def astype_int_truncate(x):
    k = x.astype(int)
    return np.sum(k * x)


add("astype_int_zero_grad_path", astype_int_truncate, (np.array([1.7, 2.2]),))


def complex_holo(z):
    return np.sum(np.sin(z) * z)


def _holomorphic():
    z = np.array([0.5 + 0.2j, -1.0 + 1.0j])
    got = revsrc.grad(complex_holo, holomorphic=True)(z)
    return got, np.cos(z) * z + np.sin(z)


add("holomorphic_grad_array", _holomorphic, t="custom")


def complex_conj_energy(z):
    return np.real(np.sum(z * np.conj(z))) + np.sum(np.angle(z))


def _complex_conj_jax():
    import jax
    import jax.numpy as jnp
    jax.config.update("jax_enable_x64", True)
    z = np.array([0.5 + 0.2j, -1.0 + 1.0j])
    exp = jax.grad(lambda z: jnp.real(jnp.sum(z * jnp.conj(z))) + jnp.sum(jnp.angle(z)))(jnp.asarray(z))
    return revsrc.grad(complex_conj_energy)(z), np.asarray(exp)


add("complex_conj_angle_vs_jax", _complex_conj_jax, t="custom", needs=("jax",))


def power_negative_base(x, p):
    return x ** p


add("pow_negative_base_wrt_base", power_negative_base, (-2.0, 3.0))


def _pow_neg_exponent_grad():
    g = revsrc.grad(power_negative_base, argnums=1)
    try:
        got = g(-2.0, 3.0)
    except (ValueError, revsrc.RevsrcError) as e:
        got = type(e).__name__
    # d/dp (-2)^p is complex; JAX returns nan
    return float(isinstance(got, str) or math.isnan(got)), 1.0


add("pow_negative_base_wrt_exponent", _pow_neg_exponent_grad, t="custom")


def np_power_int_array(x):
    return np.sum(np.power(x, np.array([1, 2, 3])) + pow(x[0], 2))


add("np_power_int_exponents", np_power_int_array, (np.array([-1.5, 0.5, 2.0]),))


def _jvp_int_args():
    def f(x, n):
        return x ** n
    out, tan = revsrc.jvp(f, (2.0, 3), (1.0, 0))
    return (out, tan), (8.0, 12.0)


add("jvp_with_int_primal", _jvp_int_args, t="custom")


def hvp_item_assign(x):
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    np.add.at(y, [1, 1], x ** 2)
    return np.sum(y ** 2)


add("hessian_item_assign_add_at", hvp_item_assign, (np.array([0.5, -1.5]),), t="hessian", tol=1e-5)


def jac_inplace(x):
    y = np.empty(3)
    y[0] = x[0]
    y[1:] = x * x[0]
    y[::2] *= 2.0
    return y


add("jacfwd_inplace_strided", jac_inplace, (np.array([0.5, -1.5]),), t="jacfwd")
add("jacrev_inplace_strided", jac_inplace, (np.array([0.5, -1.5]),), t="jacrev")


def jac_view_out(x):
    return (x.reshape(2, 2).T * 2.0).ravel()[::-1]


add("jacrev_returns_view", jac_view_out, (np.array([1.0, 2.0, 3.0, 4.0]),), t="jacrev")
add("jacfwd_returns_view", jac_view_out, (np.array([1.0, 2.0, 3.0, 4.0]),), t="jacfwd")


def hess_while(a):
    x = a
    while x > 0.1:
        x = x * 0.5 + 0.01 * math.sin(a)
    return x * a


add("hessian_while_loop", hess_while, (3.0,), t="hessian", tol=1e-4)


def jvp_solve(A):
    return np.linalg.solve(A, np.array([1.0, 2.0]))


add("jvp_linalg_solve", lambda a: np.sum(jvp_solve(np.array([[2.0, a], [0.3, 1.0]]))), (0.4,), t="jvp", tangents=1.0)


def _fd_check_closure_grad():
    def f(x):
        fs = []
        for k in range(3):
            fs.append(x * (k + 1))
        return sum(fs) * fs[-1]
    return revsrc.grad(f)(0.7), fd_grad(f, (0.7,), {}, 0)[0]


add("list_append_then_index_last", _fd_check_closure_grad, t="custom")


# ---- casts to integer and bool dtypes (the gradient must stop there) ----------------------

def cast_int32_sum(x):
    return np.sum(x.astype(np.int32)) + np.sum(x)


add("astype_int32_alone", cast_int32_sum, (np.array([1.7, 2.2]),), ref=lambda: [np.ones(2)])


def asarray_int64(x):
    return np.sum(np.asarray(x, dtype=np.int64) * 1.0) + np.sum(x)


add("asarray_dtype_int64", asarray_int64, (np.array([1.7, 2.2]),), ref=lambda: [np.ones(2)])


def array_dtype_int(x):
    return np.sum(np.array(x, dtype=int) * x)


add("np_array_dtype_int_times_x", array_dtype_int, (np.array([1.7, 2.2]),), ref=lambda: [np.array([1.0, 2.0])])


def astype_bool_mask(x):
    return np.sum(x.astype(bool) * x)


add("astype_bool_times_x", astype_bool_mask, (np.array([1.7, 0.0, 2.2]),), ref=lambda: [np.array([1.0, 0.0, 1.0])])
add("astype_int_jax_backend", astype_int_truncate, (np.array([1.7, 2.2]),), t="grad_jax",
    ref=lambda: [np.array([1.0, 2.0])], needs=("jax",))
add("astype_int_jacfwd", lambda x: x.astype(int) * x, (np.array([1.7, 2.2]),), t="jacfwd",
    ref=lambda: [np.diag([1.0, 2.0])])


def quantize_bins(x, edges):
    idx = np.searchsorted(edges, x).astype(np.int64)
    return np.sum(edges[idx] * x) + np.sum(idx * x)


add("searchsorted_astype_bins", quantize_bins, (np.array([0.3, 1.4]), np.array([0.0, 0.5, 1.0, 1.5, 2.0])))
