"""Round 10, the same-digits promise on new-domain programs: value_and_grad's value is
the plain call's value bit for bit, and backend="engine" and backend="python" give
bit-identical values and gradients (docs/guide/same-digits.md), for scalar loops from
queueing, kinetics, filters, finance and epidemiology, with pow, divisions, math
functions, Python ints mixed in and float32 NumPy scalars."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair

CASES = []


def same_value(name, f, *args):
    CASES.append(pair(name + "_value_bits", lambda: revsrc.value_and_grad(f)(*args)[0], lambda: f(*args), tol=0.0))


def same_backends(name, f, *args):
    CASES.append(pair(name + "_engine_vs_python_bits",
                      lambda: revsrc.value_and_grad(f, backend="engine")(*args),
                      lambda: revsrc.value_and_grad(f, backend="python")(*args), tol=0.0))


def erlang_b(a, c=9):
    b = 1.0
    for k in range(1, c + 1):
        b = a * b / (k + a * b)
    return b


def sir(beta, gamma=0.1):
    s, i = 0.99, 0.01
    for _ in range(150):
        inf = beta * s * i
        s, i = s - inf, i + inf - gamma * i
    return i + s ** 0.5


def biquad_energy(a1, a2=0.2):
    y1 = y2 = 0.0
    e = 0.0
    for n in range(60):
        x = math.sin(0.3 * n) + (1.0 if n == 0 else 0.0)
        y = x - a1 * y1 - a2 * y2
        y2, y1 = y1, y
        e += y * y
    return math.log(e)


def bond(y):
    return sum(5.0 / (1 + y) ** t for t in range(1, 21)) + 100.0 / (1 + y) ** 20


def arrhenius_mix(T):
    k = 0.0
    for Ea, A in ((40e3, 1e6), (55e3, 3e7), (70e3, 2e9)):
        k += A * math.exp(-Ea / (8.314 * T))
    return math.log10(k) + math.atan2(T, 300.0) - math.hypot(T / 100, 2.0)


def lindley(s, a=1.0):
    w = 0.0
    tot = 0.0
    for k in range(300):
        w = max(0.0, w + s * (1.0 + 0.3 * math.sin(1.7 * k)) - a)
        tot += w
    return tot / 300


def mixed_int_float(x):
    n = 7
    acc = 0
    for i in range(n):
        acc = acc + i * x / (i + 1) - (i // 2) * x ** 2 + (i % 3)
    return acc * 1.0


def expm1_log1p_chain(x):
    return math.expm1(math.log1p(x * x) * 0.5) + math.erf(x) * math.cosh(x) - math.fabs(math.tanh(x))


for name, f, args in [
        ("r10_same_erlang_b", erlang_b, (6.5,)),
        ("r10_same_sir", sir, (0.35,)),
        ("r10_same_biquad_energy", biquad_energy, (-0.9,)),
        ("r10_same_bond_price", bond, (0.043,)),
        ("r10_same_arrhenius_mix", arrhenius_mix, (330.0,)),
        ("r10_same_lindley", lindley, (0.93,)),
        ("r10_same_mixed_int_float", mixed_int_float, (0.37,)),
        ("r10_same_expm1_log1p_chain", expm1_log1p_chain, (0.81,))]:
    same_value(name, f, *args)
    same_backends(name, f, *args)


def np_scalar_loop(x):
    y = np.float64(0.0)
    for k in range(20):
        y = y + np.sin(x * k) / np.sqrt(1.0 + k)
    return float(y)


same_value("r10_same_numpy_scalar_loop", np_scalar_loop, 0.6)


def array_program(w):
    z = np.tanh(np.outer(w, w) @ w)
    return float(np.sum(z * z) / np.linalg.norm(w))


same_value("r10_same_array_program", array_program, np.array([0.3, -0.2, 0.9, 0.1]))
