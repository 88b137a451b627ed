"""User programs, corpus 6m: more tuple assignments on arrays (views on the right,
permutations, loops under memory=), the Fibonacci-style update, and forward mode /
jit / vmap around them.  References: central differences of the plain program."""
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, jax, jaxify

CASES = []


J = jax


add = adder(CASES)


def fdc(name, f, args, argnums=0, tol=1e-6, memory=None):
    if memory is None:
        got = lambda: revsrc.grad(f, argnums=argnums)(*args)  # noqa: E731
    else:
        got = lambda: revsrc.grad(f, argnums=argnums, memory=memory)(*args)  # noqa: E731
    add(name, got, lambda: fd_grad(f, args, {}, argnums), tol)


X = np.array([0.4, -1.2, 0.9, 2.1, 0.3])
W = np.arange(1.0, 6.0)


def t_rotate_with_views(x):
    y = x.copy()
    y[1:], y[:1] = y[:-1], y[-1:]      # views on the right: NumPy's order of writes decides
    return np.sum(y * W)


def t_swap_then_use_both(x):
    y = x * 1.0
    y[2], y[3] = y[3], y[2]
    return np.sum(y * W)


def t_permute_by_index_loop(x):
    y = x.copy()
    perm = [(0, 4), (1, 3), (2, 0)]
    for i, j in perm:
        y[i], y[j] = y[j], y[i]
    return np.sum(y * W)


def t_fancy_permutation(x):
    y = x.copy()
    y[[0, 1, 2]] = y[[2, 0, 1]]
    return np.sum(y * W)


def t_fibonacci_scalars(x):
    a, b = x[0], x[1]
    for _ in range(6):
        a, b = b, a + b
    return a * b


def t_swap_in_memory_loop(x):
    y = x.copy()
    for k in range(400):
        i = k % 5
        j = (k * 3 + 1) % 5
        y[i], y[j] = y[j] * 0.999, y[i]
    return np.sum(y * W)


def t_sort_network(x):
    y = x.copy()
    for i, j in [(0, 1), (3, 4), (2, 4), (2, 3), (0, 3), (0, 2), (1, 4), (1, 3), (1, 2)]:
        if y[i] > y[j]:
            y[i], y[j] = y[j], y[i]
    return np.sum(y * W)


def t_swap_scalar_rows_2d(x):
    m = np.outer(x, x[:2])
    m[0, 0], m[1, 1] = m[1, 1], m[0, 0]
    return np.sum(m * np.arange(10.0).reshape(5, 2))


def t_list_of_arrays_swap(x):
    parts = [x[:2] * 1.0, x[2:] * 2.0]
    parts[0], parts[1] = parts[1], parts[0]
    return np.sum(parts[0]) + 10.0 * np.sum(parts[1])


for _f in [t_rotate_with_views, t_swap_then_use_both, t_permute_by_index_loop, t_fancy_permutation,
           t_fibonacci_scalars, t_sort_network, t_swap_scalar_rows_2d, t_list_of_arrays_swap]:
    fdc("tup_" + _f.__name__[2:], _f, (X,))
fdc("tup_swap_in_memory_loop", t_swap_in_memory_loop, (X,), memory=64)
fdc("tup_swap_in_loop_stored", t_swap_in_memory_loop, (X,))

add("tup_swap_jvp", lambda: revsrc.jvp(t_swap_then_use_both, (X,), (np.eye(5)[2],))[1],
    lambda: W[3])
add("tup_swap_value", lambda: revsrc.value_and_grad(t_swap_then_use_both)(X)[0], lambda: t_swap_then_use_both(X))


def scalar_fn_list_swap(x):
    y = [x, 2.0 * x, 3.0 * x]
    y[0], y[2] = y[2], y[0]
    return y[0] - y[2]


add("tup_jit_list_swap_exact", lambda: revsrc.jit(scalar_fn_list_swap)(0.7), lambda: scalar_fn_list_swap(0.7), tol=0.0)
add("tup_vmap_grad_list_swap", lambda: revsrc.vmap(revsrc.grad(scalar_fn_list_swap))(np.array([0.1, 2.0])),
    lambda: np.array([2.0, 2.0]))


# -- an item read before the array is written (old = y[i]; y[i] = ...) --------------------------------

def t_temp_swap(x):
    y = x.copy()
    t = y[0]
    y[0] = y[1]
    y[1] = t
    return np.sum(y * W)


def t_save_old_value(x):
    y = x.copy()
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0]


def t_gauss_seidel(b):
    A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    u = np.zeros(3)
    change = 0.0
    for sweep in range(8):
        for i in range(3):
            old = u[i]
            u[i] = (b[i] - np.dot(A[i], u) + A[i, i] * u[i]) / A[i, i]
            change = change + (u[i] - old) ** 2
    return np.sum(u * np.array([1.0, 2.0, 3.0])) + change


def t_old_value_internal_copy(x):
    y = (x * 2.0).copy()
    old = y[1]
    y[1] = y[2] * y[3]
    return old * 10.0 + y[1]


def t_np_array_copy_swap(x):
    y = np.array(x)
    y[0], y[1] = y[1], y[0]
    return np.sum(y * W)


for _f in [t_temp_swap, t_save_old_value, t_old_value_internal_copy, t_np_array_copy_swap]:
    fdc("tup_" + _f.__name__[2:], _f, (X,))
    add("tup_" + _f.__name__[2:] + "_value", (lambda f=_f: revsrc.value_and_grad(f)(X)[0]),
        (lambda f=_f: f(X)), tol=1e-12)
fdc("tup_gauss_seidel_old_value", t_gauss_seidel, (X[:3],))


def t_old_value_runtime_index(x, i):
    y = x.copy()
    old = y[i]
    y[i] = 5.0 * x[i + 1]
    return old + y[i]


add("tup_old_value_runtime_index", lambda: revsrc.grad(t_old_value_runtime_index)(X, 2),
    lambda: fd_grad(t_old_value_runtime_index, (X, 2), {}, 0), tol=1e-6)
add("tup_old_value_jvp", lambda: revsrc.jvp(t_save_old_value, (X,), (np.ones(5),)),
    lambda: [t_save_old_value(X), 1.0 + 5.0], tol=1e-12)
def t_old_value_squared(v):
    return t_save_old_value(v) ** 2


add("tup_old_value_hessian", lambda: revsrc.hessian(t_old_value_squared)(X),
    lambda: J().hessian(lambda v: (v[0] + 5.0 * v[1]) ** 2)(X))


def t_row_copy_2d(m):
    a = m.copy()
    row = a[0].copy()
    a[0] = a[1] * 2.0
    return np.sum(row) + np.sum(a[0])


def t_row_view_2d(m):
    a = m.copy()
    row = a[0]                # a view: it follows the write, in NumPy too
    a[0] = a[1] * 2.0
    return np.sum(row) + np.sum(a[0])


M2 = np.arange(6.0).reshape(2, 3) / 5.0
fdc("tup_row_copy_of_copied_matrix", t_row_copy_2d, (M2,))
fdc("tup_row_view_of_copied_matrix", t_row_view_2d, (M2,))


def t_old_value_memory_loop(x):
    y = x.copy()
    acc = 0.0
    for k in range(300):
        i = k % 5
        old = y[i]
        y[i] = 0.5 * y[i] + 0.5 * np.sin(y[(i + 1) % 5])
        acc = acc + (y[i] - old) ** 2
    return acc + np.sum(y)


fdc("tup_old_value_memory_loop", t_old_value_memory_loop, (X,), memory=64)
