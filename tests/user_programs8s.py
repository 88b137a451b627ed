"""Round 8 user programs, batch s: backend="jax" for value_and_grad, hessian and jvp;
memory= on while loops writing items, lists appended in long loops, np.array of
scalars, hessian and vjp of long scalar loops, and on revsrc.jit of a derivative
(README: memory= is taken by grad, value_and_grad, vjp, hessian and jit), checked
against the default backend, the stored gradient or self-checked central
differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked  # noqa: F401

CASES = []
add = CASES.append
XS = np.array([0.3, -0.2, 0.5])


def sin_sq(x):
    return np.sum(np.sin(x) * x ** 2)


add(pair("r8_jax_value_and_grad", lambda: revsrc.value_and_grad(sin_sq, backend="jax")(XS), lambda: revsrc.value_and_grad(sin_sq)(XS), tol=1e-12))
add(pair("r8_jax_hessian", lambda: revsrc.hessian(sin_sq, backend="jax")(XS), lambda: revsrc.hessian(sin_sq)(XS), tol=1e-12))
add(pair("r8_jax_jvp", lambda: revsrc.jvp(sin_sq, (XS,), (np.ones(3),), backend="jax"), lambda: revsrc.jvp(sin_sq, (XS,), (np.ones(3),)), tol=1e-12))


def while_scatter(x):
    y = np.zeros(4)
    t = 0.0
    k = 0
    while t < 2.0:
        y[k % 4] += x * t
        t += 0.1
        k += 1
    return np.sum(y ** 2)


add(pair("r8_memory_while_item_scatter", lambda: revsrc.grad(while_scatter, memory=64)(0.7), lambda: fd_checked(while_scatter, (0.7,)), tol=1e-7))


def sampled_list(x):
    out = []
    for i in range(300):
        x = x * 0.99 + 0.01 * math.cos(x)
        if i % 50 == 0:
            out.append(x)
    return sum(out)


add(pair("r8_memory_list_append_every_50", lambda: revsrc.grad(sampled_list, memory=64)(0.7), lambda: fd_checked(sampled_list, (0.7,)), tol=1e-7))


def array_of_scalars(x, n):
    acc = np.zeros(2)
    for i in range(n):
        acc = acc + np.array([math.sin(x * i), math.cos(x * i)]) / (i + 1)
    return acc @ acc


add(pair("r8_memory_np_array_of_scalars_400", lambda: revsrc.grad(array_of_scalars, memory=64)(0.7, 400),
         lambda: fd_checked(array_of_scalars, (0.7, 400)), tol=1e-6))


def cubic_relax(s):
    for _ in range(2000):
        s = s - 0.001 * (s ** 3 - 1.0)
    return s


add(pair("r8_memory_hessian_2000_steps", lambda: revsrc.hessian(cubic_relax, memory=128)(0.7),
         lambda: fd_checked(revsrc.grad(cubic_relax), (0.7,)), tol=1e-7))
add(pair("r8_memory_vjp_2000_steps", lambda: revsrc.vjp(cubic_relax, 0.7, memory=128)[1](1.0),
         lambda: (fd_checked(cubic_relax, (0.7,)),), tol=1e-7))
add(pair("r8_jit_of_grad_with_memory", lambda: revsrc.jit(revsrc.grad(sampled_list), memory=64)(0.7),
         lambda: fd_checked(sampled_list, (0.7,)), tol=1e-7))
add(pair("r8_jit_of_grad_memory_on_grad", lambda: revsrc.jit(revsrc.grad(sampled_list, memory=64))(0.7),
         lambda: fd_checked(sampled_list, (0.7,)), tol=1e-7))
