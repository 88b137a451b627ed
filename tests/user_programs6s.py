"""User programs, corpus 6s: students' in-place algorithms on copies of the argument
(insertion sort, Gauss-Seidel, cyclic shift, a running maximum) and a value computed
for a test the result does not use.  References: central differences of the plain
program, closed forms, JAX x64."""
import math

import numpy as np

import revsrc
from user_programs6_harness import fd_grad, jax, jaxify, pair

CASES = []
X = np.array([0.9, -0.4, 2.2, 0.1, 1.3])
W = np.arange(1.0, 6.0)


J = jax


def add(name, got, ref, tol=1e-6):
    CASES.append(pair(name, got, ref, tol=tol))


def insertion_sort_weighted(x):
    y = x.copy()
    for i in range(1, y.shape[0]):
        key = y[i]
        j = i - 1
        while j >= 0 and y[j] > key:
            y[j + 1] = y[j]
            j -= 1
        y[j + 1] = key
    return np.sum(y * W)


def gauss_seidel_copy(b):
    A = np.array([[4.0, 1.0, 0.0], [1.0, 3.0, 1.0], [0.0, 1.0, 2.0]])
    u = b.copy()
    for sweep in range(10):
        for i in range(3):
            prev = u[i]
            u[i] = (b[i] - np.dot(A[i], u) + A[i, i] * u[i]) / A[i, i]
            if abs(u[i] - prev) < 1e-14:
                continue
    return np.sum(u * np.array([1.0, 2.0, 3.0]))


def cyclic_shift_loop(x):
    y = x.copy()
    last = y[-1]
    for i in range(y.shape[0] - 1, 0, -1):
        y[i] = y[i - 1]
    y[0] = last
    return np.sum(y * W)


def running_max_inplace(x):
    y = x.copy()
    best = y[0]
    for i in range(1, y.shape[0]):
        if y[i] > best:
            best = y[i]
        y[i] = best
    return np.sum(y * W)


for _f in [insertion_sort_weighted, cyclic_shift_loop, running_max_inplace]:
    add("student_" + _f.__name__, (lambda f=_f: revsrc.grad(f)(X)), (lambda f=_f: fd_grad(f, (X,), {}, 0)))
add("student_gauss_seidel_copy", lambda: revsrc.grad(gauss_seidel_copy)(X[:3]),
    lambda: fd_grad(gauss_seidel_copy, (X[:3],), {}, 0))
add("student_insertion_sort_value", lambda: revsrc.value_and_grad(insertion_sort_weighted)(X)[0],
    lambda: insertion_sort_weighted(X), tol=1e-12)


def adaptive_step(x):
    err = abs(math.log(x))         # -> the step is chosen by the error, which is 0 at x = 1
    h = 0.1 if err < 0.5 else 0.01
    return x * x * h


add("student_unused_error_estimate", lambda: revsrc.grad(adaptive_step)(1.0), lambda: 0.2)


def huber_manual(r):
    a = np.sqrt(r * r)             # |r| written as a square root: slope inf at 0, not used below
    if a <= 1.0:
        return 0.5 * r * r
    return a - 0.5


add("student_huber_sqrt_abs_at_zero", lambda: revsrc.grad(huber_manual)(0.0), lambda: 0.0)
add("student_huber_sqrt_abs_at_two", lambda: revsrc.grad(huber_manual)(2.0), lambda: 1.0)
