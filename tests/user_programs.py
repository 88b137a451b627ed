"""User-style programs for revsrc, written by an adversarial tester from the README only.

Each entry of CASES is a dict:
  fn       the function (or callable) to transform
  args     positional arguments
  t        the transformation: grad (value_and_grad is checked too), grad_jax
           (backend="jax"), aux (has_aux), hessian, gradgrad, jacfwd, jacrev,
           jacfwd_jacrev, jvp, vjp, hvp, vmap_grad, jit, linearize
  argnums  as for revsrc.grad
  kw       keyword arguments passed to the function
  expect   "correct" (default) or "refused:E..." (a documented refusal)
  xfail    reason string for a WRONG or CRASH case found by the tester
  rtol     tolerance against central differences (default 1e-6)
  nofd     skip central differences (edge values); then `want` gives the expected
           derivative by hand

Classification at the time of writing (382 cases, 331 functions): 322 correct, 10 WRONG,
6 CRASH, 35 documented refusals, 9 refusals the README does not document. The WRONG
and CRASH cases and the undocumented refusals are listed in FOUND at the bottom (each a
strict xfail); the documented refusals in REFUSED and in `expect=` of their cases.
`python tests/test_user_programs.py` prints the classification of every case.
"""
import math
import functools
from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

import revsrc

CASES = []


def case(fn, *args, t="grad", argnums=0, kw=None, expect="correct", xfail=None,
         rtol=None, nofd=False, want=None, name=None, **extra):
    CASES.append(dict(fn=fn, args=args, t=t, argnums=argnums, kw=kw or {},
                      expect=expect, xfail=xfail, rtol=rtol, nofd=nofd, want=want,
                      name=name or f"{getattr(fn, '__name__', type(fn).__name__)}-{t}",
                      **extra))


R = np.random.default_rng(1234)


def rv(*shape):
    return R.normal(size=shape)


# --------------------------------------------------------------------------------------
# Global constants and helpers
G = 9.81
DT = 0.01
COEFFS = (1.0, -0.5, 0.25, -0.125)
WEIGHTS = np.array([0.2, 0.3, 0.5])


def sq(x):
    return x * x


def cube(x):
    return sq(x) * x


def poly_eval(x, coeffs):
    acc = 0.0
    for c in reversed(coeffs):
        acc = acc * x + c
    return acc


def sigmoid(z):
    return 1.0 / (1.0 + np.exp(-z))


def softplus_np(z):
    return np.log1p(np.exp(-np.abs(z))) + np.maximum(z, 0.0)


# ================================ scalar scientific ===================================

def euler_decay(k, x0, n=50):
    x = x0
    t = 0.0
    for _ in range(n):
        x = x + DT * (-k * x + math.sin(t))
        t += DT
    return x

case(euler_decay, 0.7, 1.3, argnums=(0, 1))
case(euler_decay, 0.7, 1.3, t="gradgrad")


def rk4_oscillator(omega, x0=1.0, v0=0.0, steps=40, h=0.05):
    def acc(x):
        return -omega * omega * x
    x, v = x0, v0
    for _ in range(steps):
        k1x, k1v = v, acc(x)
        k2x, k2v = v + 0.5 * h * k1v, acc(x + 0.5 * h * k1x)
        k3x, k3v = v + 0.5 * h * k2v, acc(x + 0.5 * h * k2x)
        k4x, k4v = v + h * k3v, acc(x + h * k3x)
        x = x + h / 6.0 * (k1x + 2 * k2x + 2 * k3x + k4x)
        v = v + h / 6.0 * (k1v + 2 * k2v + 2 * k3v + k4v)
    return x * x + v * v

case(rk4_oscillator, 1.7)
case(rk4_oscillator, 1.7, t="hessian", nojax=True)   # XLA takes minutes to compile this
case(rk4_oscillator, 1.7, 0.5, 0.3, argnums=(0, 1, 2), name="rk4_three_args")


def logistic_map(r, x0, n):
    x = x0
    for i in range(n):
        x = r * x * (1.0 - x)
    return x

case(logistic_map, 3.2, 0.3, 12, argnums=(0, 1))
case(logistic_map, 3.2, 0.3, 0, name="logistic_zero_steps")


def newton_sqrt(a):
    x = a if a > 1.0 else 1.0
    while abs(x * x - a) > 1e-13 * a:
        x = 0.5 * (x + a / x)
    return x

case(newton_sqrt, 7.3)
case(newton_sqrt, 0.04, name="newton_sqrt_small")


def fixed_point_cos(a):
    x = 0.0
    diff = 1.0
    while diff > 1e-14:
        xn = a * math.cos(x)
        diff = abs(xn - x)
        x = xn
    return x

case(fixed_point_cos, 0.8, rtol=1e-5)


def exp_taylor(x):
    term = 1.0
    total = 1.0
    k = 1
    while abs(term) > 1e-17 * abs(total):
        term = term * x / k
        total += term
        k += 1
    return total

case(exp_taylor, 1.7)
case(exp_taylor, -2.5, name="exp_taylor_negative")


def huber(r, delta=1.0):
    a = abs(r)
    if a <= delta:
        return 0.5 * r * r
    elif r > 0:
        return delta * (a - 0.5 * delta)
    else:
        return delta * (a - 0.5 * delta) + 0.0 * r

case(huber, 0.4)
case(huber, 2.5, name="huber_pos")
case(huber, -3.0, name="huber_neg")
case(huber, -3.0, 0.5, argnums=1, name="huber_delta")


def clipped_quadratic(x, lo, hi):
    y = min(max(x, lo), hi)
    return y * y + 0.1 * x

case(clipped_quadratic, 0.3, -1.0, 1.0, argnums=(0, 1, 2))
case(clipped_quadratic, 2.3, -1.0, 1.0, argnums=(0, 1, 2), name="clipped_hi")


def stable_softplus(x):
    if x > 30.0:
        return x
    elif x < -30.0:
        return math.exp(x)
    return math.log1p(math.exp(x))

case(stable_softplus, 0.7)
case(stable_softplus, 40.0, name="softplus_big")
case(stable_softplus, -35.0, name="softplus_small", rtol=1e-5)


def scalar_logsumexp(a, b, c):
    m = max(a, b, c)
    return m + math.log(math.exp(a - m) + math.exp(b - m) + math.exp(c - m))

case(scalar_logsumexp, 0.3, 1.2, -0.5, argnums=(0, 1, 2))


def kahan_sum_sq(x, n):
    s = 0.0
    comp = 0.0
    for i in range(n):
        y = (x + i) ** 2 - comp
        t = s + y
        comp = (t - s) - y
        s = t
    return s

case(kahan_sum_sq, 0.37, 10)


def projectile_range(v0, angle, drag=0.02):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    steps = 0
    while y >= 0.0 and steps < 10000:
        speed = math.sqrt(vx * vx + vy * vy)
        vx = vx - DT * drag * speed * vx
        vy = vy - DT * (G + drag * speed * vy)
        x += DT * vx
        y += DT * vy
        steps += 1
    return x

case(projectile_range, 10.0, 0.8, 0.02, argnums=(0, 1, 2), rtol=1e-5, fd_h=1e-6)


def bouncing_ball(h0, e, steps=300):
    y, v = h0, 0.0
    for _ in range(steps):
        v -= G * DT
        y += v * DT
        if y < 0.0:
            y = -y
            v = -e * v
    return y

case(bouncing_ball, 1.05, 0.8, argnums=(0, 1), rtol=1e-5, fd_h=1e-6)


def leapfrog_pendulum(theta0, length=1.0, n=100):
    th, om = theta0, 0.0
    om -= 0.5 * DT * G / length * math.sin(th)
    for _ in range(n):
        th += DT * om
        om -= DT * G / length * math.sin(th)
    return th

case(leapfrog_pendulum, 0.5, 1.2, argnums=(0, 1))
case(leapfrog_pendulum, 0.5, t="gradgrad", name="leapfrog_gradgrad")


def power_by_squaring(x, n):
    result = 1.0
    base = x
    while n > 0:
        if n % 2 == 1:
            result *= base
        base *= base
        n //= 2
    return result

case(power_by_squaring, 1.3, 13)
case(power_by_squaring, -0.7, 6, name="power_sq_neg")
case(power_by_squaring, 1.3, 0, name="power_sq_zero")


def continued_fraction(x, depth=20):
    acc = 0.0
    for k in range(depth, 0, -1):
        acc = k * x / (1.0 + k + acc)
    return acc

case(continued_fraction, 0.9)


def simpson_gauss(a, n=20):
    h = 1.0 / n
    s = math.exp(-a * 0.0) + math.exp(-a * 1.0)
    for i in range(1, n):
        t = i * h
        w = 4.0 if i % 2 else 2.0
        s += w * math.exp(-a * t * t)
    return s * h / 3.0

case(simpson_gauss, 1.4)


def coupon_loop(p):
    # expected value series truncated when terms get small
    total = 0.0
    k = 1
    term = p
    while term > 1e-15:
        term = k * p * (1.0 - p) ** (k - 1)
        total += term
        k += 1
    return total

case(coupon_loop, 0.3, rtol=1e-5)


def break_loop(x):
    acc = 0.0
    for i in range(100):
        acc += math.sin(x * i) / (i + 1)
        if acc > 1.5:
            break
    return acc

case(break_loop, 0.21)


def continue_loop(x, n):
    acc = 0.0
    for i in range(n):
        if i % 3 == 0:
            continue
        acc += x ** i / math.factorial(i)
    return acc

case(continue_loop, 0.8, 9)


def early_return(x):
    for i in range(10):
        x = x * 1.3 - 0.1
        if x > 5.0:
            return x * i
    return -x

case(early_return, 0.7)
case(early_return, 0.1, name="early_return_late")


def chained_compare(x, y):
    if 0.0 < x < y <= 10.0:
        return x * y
    return x + y

case(chained_compare, 1.0, 2.0, argnums=(0, 1))
case(chained_compare, 3.0, 2.0, argnums=(0, 1), name="chained_compare_else")


def swaps_and_unpacking(a, b, c):
    a, b = b, a
    first, *rest = (a, b, c)
    x, (y, z) = first, rest
    return x * y + z ** 2 - a * c

case(swaps_and_unpacking, 1.2, -0.3, 2.0, argnums=(0, 1, 2))


def ternary_and_bool(x, flag):
    y = x * 2 if flag and x > 0 else -x
    z = y if not flag or y < 3 else y * y
    return z + (x > 1) * x

case(ternary_and_bool, 0.8, True)
case(ternary_and_bool, 2.0, True, name="ternary_big")
case(ternary_and_bool, 0.8, False, name="ternary_false")


def int_float_mix(n, x):
    total = 0.0
    for k in range(n):
        total += x ** k / (k + 1)
    return total * n

case(int_float_mix, 5, 0.6, argnums=1)
case(int_float_mix, 5, 0.6, argnums=0, expect="refused:E301", name="int_float_mix_int_arg")


def math_numpy_mix(x):
    return math.exp(x) * np.sin(x) + np.float64(x) ** 2 + math.atan2(x, 2.0) + np.hypot(x, 1.0)

case(math_numpy_mix, 0.4)


def math_special(x):
    return math.erf(x) + math.erfc(0.5 * x) + math.hypot(x, 3.0) + math.copysign(x, -1.0) \
        + math.fabs(x - 2.0) + math.floor(x) * x + math.pow(x, 2.5)

case(math_special, 1.3)


def fstring_assert(x):
    assert x > 0, f"x must be positive, got {x:.3f}"
    label = f"value={x:.2f}"
    return math.log(x) * len(label)

case(fstring_assert, 2.5)


def helper_chain(x):
    return cube(x) + sq(poly_eval(x, COEFFS))

case(helper_chain, 0.6)
case(helper_chain, 0.6, t="gradgrad", name="helper_chain_gradgrad")


def uses_lambda(x, y):
    f = lambda a, b=2.0: a * a * b
    g = lambda a: math.sin(a) + f(a)
    return g(x) + f(y, b=x)

case(uses_lambda, 0.5, 1.5, argnums=(0, 1))


def make_loss(scale, offset):
    def inner(x):
        return scale * (x - offset) ** 2 + math.cos(x * scale)
    return inner

case(make_loss(1.5, 0.3), 0.9, name="closure_inner")


def nested_def(x):
    def g(y):
        return y * y + x
    def h(y):
        return g(y) * g(x)
    return h(2.0 * x)

case(nested_def, 0.7)


def apply_twice(f, x):
    return f(f(x))


def passes_function(x, act=math.tanh):
    return apply_twice(act, x) + act(2.0 * x)

case(passes_function, 0.3)
case(passes_function, 0.3, kw=dict(act=math.sin), name="passes_function_sin")


def varargs_sum(x, *args):
    total = x
    for a in args:
        total = total * a + x
    return total

case(varargs_sum, 0.5, 1.0, 2.0, 3.0)
case(varargs_sum, 0.5, 1.0, 2.0, 3.0, argnums=(0, 2), name="varargs_argnums")


def kwargs_fn(w, **opts):
    s = w
    for k, v in opts.items():
        s = s + v * w * w
    return s

case(kwargs_fn, 0.4, kw=dict(a=1.0, b=2.0))


def kwonly(x, *, power=3, shift=0.5):
    return (x + shift) ** power

case(kwonly, 0.7, kw=dict(power=4))


def generator_expr(x, y):
    ws = [0.1, 0.2, 0.3]
    xs = [x, y, x * y]
    return sum(w * v for w, v in zip(ws, xs)) + max(v for v in xs) + min(xs)

case(generator_expr, 0.5, 0.9, argnums=(0, 1))


def list_comprehension_poly(x):
    powers = [x ** k for k in range(6) if k != 2]
    sq_terms = [p * p for p in powers]
    return sum(sq_terms) / len(sq_terms)

case(list_comprehension_poly, 0.9)


def dict_cache(x):
    cache = {}
    cache["a"] = x * x
    cache["b"] = math.sin(cache["a"])
    return cache["a"] + cache["b"] * 2.0

case(dict_cache, 1.1)


def enumerate_zip_reversed(x):
    xs = [x, 2 * x, x * x]
    ys = [1.0, x, 3.0]
    total = 0.0
    for i, (a, b) in enumerate(zip(xs, ys)):
        total += i * a * b
    for a in reversed(xs):
        total = total * 0.5 + a
    return total

case(enumerate_zip_reversed, 0.8)


def trajectory_list(v0, steps=10):
    xs = []
    x, v = 0.0, v0
    for _ in range(steps):
        v = v - 0.1 * v * abs(v) - 0.5
        x = x + 0.1 * v
        xs.append(x)
    xs += [x * 2]
    return sum(xs) / len(xs) + sorted(xs)[0]

case(trajectory_list, 3.0)


def zip_star(x):
    pairs = [(x, 1.0), (2.0, x * x), (x, x)]
    a, b = zip(*pairs)
    return sum(a) * sum(b)

case(zip_star, 0.7)


def recurrence_two_term(x, n=20):
    # Chebyshev recurrence T_{k+1} = 2 x T_k - T_{k-1}
    t0, t1 = 1.0, x
    for _ in range(n - 1):
        t0, t1 = t1, 2.0 * x * t1 - t0
    return t1

case(recurrence_two_term, 0.3)
case(recurrence_two_term, 0.3, t="hessian", name="chebyshev_hessian")


def kalman_1d(q, r, zs=(1.0, 1.2, 0.9, 1.4, 1.1)):
    x, p = 0.0, 1.0
    nll = 0.0
    for z in zs:
        p = p + q
        s = p + r
        k = p / s
        nll += 0.5 * (math.log(s) + (z - x) ** 2 / s)
        x = x + k * (z - x)
        p = (1 - k) * p
    return nll

case(kalman_1d, 0.1, 0.3, argnums=(0, 1))


def range_negative_step(x, n):
    acc = 0.0
    for k in range(n, 0, -2):
        acc = acc * x + k
    return acc

case(range_negative_step, 0.6, 9)


def data_dependent_trip(x):
    n = int(x * 3) + 2
    s = 0.0
    for i in range(n):
        s += x / (i + 1)
    return s

case(data_dependent_trip, 1.2)


def stop_grad_use(x):
    c = revsrc.stop_gradient(math.exp(x))
    return c * x + x * x

case(stop_grad_use, 0.5, nofd=True, want=math.exp(0.5) + 1.0)


def float_conversion(x):
    y = float(x) * 2.0
    z = np.float64(y) + abs(-x)
    return z * z

case(float_conversion, 0.6)


def pow_edge(x, y):
    return x ** y

case(pow_edge, 2.0, 3.0, argnums=(0, 1))
case(pow_edge, -2.0, 3.0, argnums=0, name="pow_neg_base")
case(pow_edge, 0.0, 2.0, argnums=(0, 1), nofd=True, want=(0.0, 0.0), name="pow_zero_base")


def sqrt_at_zero(x):
    return math.sqrt(x)

case(sqrt_at_zero, 0.0, nofd=True, want=math.inf)


def exp_neg_inf(x):
    return math.exp(-x)

case(exp_neg_inf, math.inf, nofd=True, want=-0.0)


def global_function_ref(x):
    return sigmoid(x) * G + sq(x)

case(global_function_ref, 0.3)


# ================================ arrays, in place ====================================

def cumsum_loop(x):
    a = np.zeros_like(x)
    a[0] = x[0]
    for i in range(1, len(x)):
        a[i] = a[i - 1] + x[i]
    return np.sum(a * a)

case(cumsum_loop, rv(6))
case(cumsum_loop, np.array([2.0]), name="cumsum_loop_one")


def column_fill(x, w):
    out = np.empty((x.shape[0], w.shape[0]))
    for j in range(w.shape[0]):
        out[:, j] = x * w[j] + j
    return np.sum(np.sin(out))

case(column_fill, rv(4), rv(3), argnums=(0, 1))


def mask_assign(x):
    y = x.copy()
    y[y < 0] = 0.0
    y[x > 1.0] *= 2.0
    return np.sum(y ** 2)

case(mask_assign, np.array([-0.5, 0.3, 1.5, -2.0, 0.8]))


def add_at_hist(x, idx):
    h = np.zeros(4)
    np.add.at(h, idx, x * x)
    return np.sum(h * np.arange(1.0, 5.0)) + np.max(h)

case(add_at_hist, rv(6), np.array([0, 2, 2, 1, 0, 2]))


def thomas_solve(a, b, c, d):
    n = len(d)
    cp = np.zeros(n)
    dp = np.zeros(n)
    cp[0] = c[0] / b[0]
    dp[0] = d[0] / b[0]
    for i in range(1, n):
        m = b[i] - a[i] * cp[i - 1]
        cp[i] = c[i] / m
        dp[i] = (d[i] - a[i] * dp[i - 1]) / m
    x = np.zeros(n)
    x[-1] = dp[-1]
    for i in range(n - 2, -1, -1):
        x[i] = dp[i] - cp[i] * x[i + 1]
    return np.sum(x ** 2)

case(thomas_solve, rv(5) * 0.3, 4.0 + rv(5) * 0.1, rv(5) * 0.3, rv(5), argnums=(0, 1, 2, 3))


def heat_explicit(u0, r=0.2, steps=15):
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] += r * (u[2:] - 2 * u[1:-1] + u[:-2])
    return np.sum(u ** 2) + u[len(u) // 2]

case(heat_explicit, rv(8))
case(heat_explicit, rv(8), 0.2, argnums=1, name="heat_explicit_r")


def iir_filter(x, a, b):
    y = np.zeros_like(x)
    prev = 0.0
    for i in range(x.shape[0]):
        prev = a * prev + b * x[i]
        y[i] = prev
    return np.dot(y, y)

case(iir_filter, rv(7), 0.6, 0.9, argnums=(0, 1, 2))


def fir_convolve(x, h):
    y = np.convolve(x, h)
    return np.sum(y ** 2) + y[2]

case(fir_convolve, rv(6), rv(3), argnums=(0, 1))


def gram_schmidt(A):
    Q = np.zeros_like(A)
    for j in range(A.shape[1]):
        v = A[:, j].copy()
        for i in range(j):
            v = v - np.dot(Q[:, i], A[:, j]) * Q[:, i]
        Q[:, j] = v / np.linalg.norm(v)
    return np.sum(Q * np.arange(A.size).reshape(A.shape))

case(gram_schmidt, rv(4, 3))


def matrix_power_loop(A, k):
    M = np.eye(A.shape[0])
    for _ in range(k):
        M = M @ A
    return np.trace(M)

case(matrix_power_loop, rv(3, 3) * 0.5, 4)


def einsum_diag_view(A):
    d = np.einsum("ii->i", A)
    return np.sum(d * d) + np.einsum("ij,ij->", A, A.T)

case(einsum_diag_view, rv(3, 3))


def transpose_reshape(x):
    M = x.reshape(3, 4)
    T = M.T
    r = T.reshape(-1)
    return np.sum(r[::2] * np.arange(6.0)) + np.sum(T[1] ** 2)

case(transpose_reshape, rv(12))


def reshape_axis_sum(x):
    return np.sum(np.sum(x.reshape(2, 3, 2), axis=1, keepdims=True) ** 2) + np.mean(x.reshape(6, 2), axis=0)[1]

case(reshape_axis_sum, rv(12))


def complex_real_part(x):
    z = np.exp(1j * x) * (1.0 + 0.5j)
    return np.sum(z.real ** 2) + np.sum(np.abs(z) * x)

case(complex_real_part, rv(4))


def view_write_through(x):
    y = x * 2.0
    v = y.view()
    v[0] = x[1] ** 2
    return np.sum(y * y)

case(view_write_through, rv(3))


def slice_view_mul(x):
    y = x + 0.0
    tail = y[2:]
    tail *= x[:3]
    head = y[:2]
    head += 1.0
    return np.sum(y ** 3)

case(slice_view_mul, rv(5))


def data_index_accumulate(x, idx):
    a = np.zeros(3)
    for i in range(len(idx)):
        a[idx[i]] += x[i] * x[i]
    return np.sum(np.sqrt(a + 1.0))

case(data_index_accumulate, rv(5), np.array([2, 0, 2, 1, 2]))


def sorted_weights(x):
    s = np.sort(x)
    return np.sum(s * np.arange(1.0, len(x) + 1))

case(sorted_weights, np.array([0.3, -1.2, 2.0, 0.7]))


def leaky_relu_loss(x):
    return np.sum(np.where(x > 0, x, 0.01 * x) ** 2)

case(leaky_relu_loss, np.array([0.3, -1.2, 2.0, -0.7]))


def softmax_xent(logits, label):
    z = logits - np.max(logits)
    logp = z - np.log(np.sum(np.exp(z)))
    return -logp[label]

case(softmax_xent, rv(5), 2)


def batched_xent(W, X, y):
    logits = X @ W
    logits = logits - np.max(logits, axis=1, keepdims=True)
    logp = logits - np.log(np.sum(np.exp(logits), axis=1, keepdims=True))
    return -np.mean(logp[np.arange(len(y)), y])

case(batched_xent, rv(3, 4), rv(5, 3), np.array([0, 3, 1, 1, 2]))


def cumsum_diff(x):
    c = np.cumsum(x)
    d = np.diff(x ** 2)
    return np.sum(c * c) + np.sum(np.abs(d))

case(cumsum_diff, np.array([0.3, -1.2, 2.0, 0.7, 1.9]))


def cholesky_logdet(A):
    S = A.T @ A + np.eye(A.shape[1])
    L = np.linalg.cholesky(S)
    return 2.0 * np.sum(np.log(np.diag(L)))

case(cholesky_logdet, rv(4, 3))


def solve_quadratic_form(A, b):
    M = A @ A.T + 3.0 * np.eye(3)
    x = np.linalg.solve(M, b)
    return np.dot(b, x)

case(solve_quadratic_form, rv(3, 3), rv(3), argnums=(0, 1))


def det_inv(A):
    return np.linalg.det(A) + np.sum(np.linalg.inv(A))

case(det_inv, np.eye(3) + 0.3 * rv(3, 3))


def slogdet_fn(A):
    sign, logabs = np.linalg.slogdet(A)
    return sign * logabs

case(slogdet_fn, np.eye(3) * 2 + 0.3 * rv(3, 3))


def fill_diag(x):
    M = np.outer(x, x)
    np.fill_diagonal(M, x)
    return np.sum(M ** 2)

case(fill_diag, rv(3))


def kron_outer(x, y):
    return np.sum(np.kron(x, y) ** 2) + np.sum(np.outer(x, y) * 0.5)

case(kron_outer, rv(2), rv(3), argnums=(0, 1))


def polyval_fit(p, t, y):
    return np.sum((np.polyval(p, t) - y) ** 2)

case(polyval_fit, rv(3), np.linspace(0, 1, 6), rv(6))


def interp_fn(yp, x):
    xp = np.array([0.0, 1.0, 2.0, 3.0])
    return np.sum(np.interp(x, xp, yp) ** 2)

case(interp_fn, rv(4), np.array([0.3, 1.7, 2.2]))


def clip_fn(x):
    return np.sum(np.clip(x, -0.5, 0.5) * x)

case(clip_fn, np.array([0.3, -1.2, 2.0, -0.1]))


def polar_fn(x, y):
    return np.sum(np.arctan2(y, x) * np.hypot(x, y))

case(polar_fn, rv(3), rv(3), argnums=(0, 1))


def norms(x):
    return np.linalg.norm(x) + np.linalg.norm(x, 1) + np.linalg.norm(x.reshape(2, 2), "fro")

case(norms, np.array([0.3, -1.2, 2.0, 0.5]))


def layernorm(x, gamma, beta):
    mu = np.mean(x, axis=-1, keepdims=True)
    var = np.var(x, axis=-1, keepdims=True)
    y = (x - mu) / np.sqrt(var + 1e-5) * gamma + beta
    return np.sum(y ** 3)

case(layernorm, rv(2, 4), rv(4), rv(4), argnums=(0, 1, 2))


def attention(Q, K, V):
    s = Q @ K.T / np.sqrt(Q.shape[-1])
    s = s - s.max(axis=-1, keepdims=True)
    w = np.exp(s)
    w = w / w.sum(axis=-1, keepdims=True)
    return np.sum((w @ V) ** 2)

case(attention, rv(3, 2), rv(4, 2), rv(4, 2), argnums=(0, 1, 2))


def rnn_rows(W, U, xs):
    h = np.zeros(W.shape[0])
    loss = 0.0
    for x in xs:
        h = np.tanh(W @ h + U @ x)
        loss = loss + np.sum(h ** 2)
    return loss

case(rnn_rows, rv(3, 3) * 0.5, rv(3, 2), rv(4, 2), argnums=(0, 1))


def conv1d_slices(x, k):
    n = len(x) - len(k) + 1
    out = np.zeros(n)
    for i in range(n):
        out[i] = np.dot(x[i:i + len(k)], k)
    return np.sum(np.tanh(out))

case(conv1d_slices, rv(7), rv(3), argnums=(0, 1))


def lennard_jones(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            d = pos[i] - pos[j]
            r2 = np.dot(d, d)
            inv6 = 1.0 / r2 ** 3
            e += 4.0 * (inv6 * inv6 - inv6)
    return e

LJ_POS = np.array([[0.0, 0.0], [1.1, 0.1], [0.2, 1.2], [1.3, 1.05]])
case(lennard_jones, LJ_POS)


def coulomb_vectorized(pos, q):
    i, j = np.triu_indices(len(q), k=1)
    d = pos[i] - pos[j]
    r = np.sqrt(np.sum(d * d, axis=1))
    return np.sum(q[i] * q[j] / r)

case(coulomb_vectorized, LJ_POS, np.array([1.0, -1.0, 0.5, 0.3]), argnums=(0, 1))


def spring_chain(x, k=2.0, rest=1.0):
    d = np.diff(x)
    return 0.5 * k * np.sum((np.abs(d) - rest) ** 2)

case(spring_chain, np.array([0.0, 1.2, 2.1, 3.5]))


def ema(x, alpha):
    m = x[0]
    out = []
    for v in x[1:]:
        m = alpha * v + (1 - alpha) * m
        out.append(m)
    return np.sum(np.array(out) ** 2)

case(ema, rv(6), 0.3, argnums=(0, 1))


def hmm_forward(log_A, log_pi, log_B, obs):
    alpha = log_pi + log_B[:, obs[0]]
    for t in range(1, len(obs)):
        m = np.max(alpha)
        alpha = m + np.log(np.exp(alpha - m) @ np.exp(log_A)) + log_B[:, obs[t]]
    m = np.max(alpha)
    return m + np.log(np.sum(np.exp(alpha - m)))

case(hmm_forward, np.log(np.array([[0.7, 0.3], [0.4, 0.6]])), np.log(np.array([0.5, 0.5])),
     np.log(np.array([[0.9, 0.1], [0.2, 0.8]])), np.array([0, 1, 1, 0]), argnums=(0, 1, 2))


def gaussian_nll(mu, L_raw, X):
    L = np.tril(L_raw) + 2.0 * np.eye(len(mu))
    S = L @ L.T
    r = X - mu
    Sinv = np.linalg.inv(S)
    quad = np.einsum("ni,ij,nj->n", r, Sinv, r)
    return 0.5 * np.sum(quad) + 0.5 * len(X) * np.linalg.slogdet(S)[1]

case(gaussian_nll, rv(2), rv(2, 2) * 0.3, rv(5, 2), argnums=(0, 1))


def poisson_nll(w, X, y):
    rate = np.exp(X @ w)
    return np.sum(rate - y * np.log(rate))

case(poisson_nll, rv(3) * 0.3, rv(6, 3), np.array([0.0, 1, 2, 0, 3, 1]))


def hinge_focal(w, X, y):
    m = y * (X @ w)
    hinge = np.mean(np.maximum(0.0, 1.0 - m))
    p = sigmoid(m)
    focal = -np.mean((1 - p) ** 2 * np.log(p))
    return hinge + focal

case(hinge_focal, rv(3), rv(6, 3), np.array([1.0, -1, 1, 1, -1, -1]))


def kl_div(logits_p, logits_q):
    p = np.exp(logits_p) / np.sum(np.exp(logits_p))
    q = np.exp(logits_q) / np.sum(np.exp(logits_q))
    return np.sum(p * (np.log(p) - np.log(q)))

case(kl_div, rv(4), rv(4), argnums=(0, 1))


def total_variation(img):
    dx = np.diff(img, axis=0)
    dy = np.diff(img, axis=1)
    return np.sum(np.sqrt(dx[:, :-1] ** 2 + dy[:-1, :] ** 2 + 1e-8))

case(total_variation, rv(4, 5))


def de_casteljau(ctrl, t):
    pts = [ctrl[i] for i in range(ctrl.shape[0])]
    while len(pts) > 1:
        pts = [(1 - t) * a + t * b for a, b in zip(pts[:-1], pts[1:])]
    return np.sum(pts[0] ** 2)

case(de_casteljau, rv(4, 2), 0.3, argnums=(0, 1))


def trapezoid_manual(a, n=30):
    t = np.linspace(0.0, 2.0, n)
    y = np.exp(-a * t) * np.cos(3 * t)
    return np.sum((y[1:] + y[:-1]) * np.diff(t)) / 2

case(trapezoid_manual, 0.7)


def empty_array_sum(x):
    return np.sum(x ** 2) + 1.0

case(empty_array_sum, np.zeros(0), nofd=True, want=np.zeros(0))


def one_element(x):
    return float(np.sum(np.exp(x) * x)) + x[0]

case(one_element, np.array([0.4]))


def float32_fn(x):
    return np.sum(np.tanh(x) * x)

case(float32_fn, rv(4).astype(np.float32), f32=True)


def max_with_nan(x):
    return np.max(x) * 2.0

case(max_with_nan, np.array([1.0, np.nan, 0.5]), nofd=True, want=None, nan_grad=True)


def inf_input_array(x):
    return np.sum(np.exp(-x))

case(inf_input_array, np.array([np.inf, 1.0]), nofd=True, want=np.array([-0.0, -math.exp(-1.0)]))


def negative_values_log(x):
    return np.sum(np.log(np.abs(x)) * np.sign(x))

case(negative_values_log, np.array([-0.5, 2.0, -3.0]))


def while_array_norm(x):
    y = x.copy()
    it = 0
    while np.linalg.norm(y) > 1.0:
        y = y * 0.7 + 0.01 * np.sin(y)
        it += 1
    return np.sum(y ** 2) + it

case(while_array_norm, np.array([3.0, -2.0, 1.0]))


def branch_on_array_value(x):
    s = np.sum(x)
    if s > 0:
        out = np.sum(x ** 2)
    elif s > -1:
        out = np.sum(x)
    else:
        out = -np.prod(x)
    return out

case(branch_on_array_value, np.array([0.5, 0.2, 0.1]))
case(branch_on_array_value, np.array([-0.5, 0.2, -0.1]), name="branch_array_mid")
case(branch_on_array_value, np.array([-0.5, 1.2, -3.1]), name="branch_array_neg")


def loop_over_rows_break(M):
    total = 0.0
    for row in M:
        total += np.sum(row * row)
        if total > 3.0:
            break
    return total

case(loop_over_rows_break, np.array([[0.5, 1.0], [1.0, 0.7], [2.0, 3.0], [1.0, 1.0]]))


def stack_concat_split(x, y):
    s = np.stack([x, y, x * y])
    c = np.concatenate([x, y ** 2])
    a, b = np.split(c, 2)
    return np.sum(s ** 2) + np.sum(a * b)

case(stack_concat_split, rv(3), rv(3), argnums=(0, 1))


def tile_repeat_broadcast(x):
    t = np.tile(x, 2)
    b = np.broadcast_to(x[:, None], (3, 4))
    r = np.repeat(x, 2)
    return np.sum(t * r) + np.sum(b * np.arange(4.0))

case(tile_repeat_broadcast, rv(3))


def fancy_repeated_read(x):
    idx = np.array([0, 0, 2, 1, 2])
    return np.sum(x[idx] ** 2) + np.sum(x[[True, False, True]])

case(fancy_repeated_read, rv(3))


def repeated_write(x):
    y = np.zeros(3)
    y[[0, 0, 1]] = x
    return np.sum(y * np.array([1.0, 2.0, 3.0]))

case(repeated_write, rv(3))


def twod_index_update(x):
    A = np.zeros((3, 3))
    A[np.arange(3), np.arange(3)] = x
    A[0, :] += x ** 2
    A[:, 2] *= 3.0
    return np.sum(A @ A)

case(twod_index_update, rv(3))


def prod_cumprod(x):
    return np.prod(x) + np.sum(np.cumprod(x))

case(prod_cumprod, np.array([0.5, -1.3, 2.0, 0.9]))


def std_var_median(x):
    return np.std(x) + np.var(x, ddof=1) + np.median(x)

case(std_var_median, np.array([0.5, -1.3, 2.0, 0.9, 1.7]))


def logaddexp_fns(x, y):
    return np.sum(np.logaddexp(x, y)) + np.sum(np.expm1(x) * np.log1p(y * y))

case(logaddexp_fns, rv(3), rv(3), argnums=(0, 1))


def minimum_maximum(x, y):
    return np.sum(np.minimum(x, y) * np.maximum(x, 2 * y))

case(minimum_maximum, np.array([0.3, -1.0, 2.0]), np.array([0.5, -2.0, 0.1]), argnums=(0, 1))


def triu_tril_trace(A):
    return np.sum(np.triu(A) ** 2) + np.trace(np.tril(A, -1) @ A)

case(triu_tril_trace, rv(3, 3))


def matmul_chain(A, B, x):
    return x @ A @ B @ x + np.dot(A.ravel(), B.flatten())

case(matmul_chain, rv(3, 3), rv(3, 3), rv(3), argnums=(0, 1, 2))


def swapaxes_moveaxis(x):
    y = np.swapaxes(x, 0, 2)
    z = np.moveaxis(x, 0, -1)
    return np.sum(y[0] * z[..., 1]) + np.sum(np.transpose(x, (1, 0, 2)) ** 2)

case(swapaxes_moveaxis, rv(2, 2, 2))


def squeeze_expand(x):
    y = np.expand_dims(x, 0)
    z = np.squeeze(y)
    w = x[np.newaxis, :, None]
    return np.sum(z * w[0, :, 0]) + np.sum(np.atleast_2d(x))

case(squeeze_expand, rv(4))


def where_nan_safe(x):
    safe = np.where(x > 0, x, 1.0)
    return np.sum(np.where(x > 0, np.log(safe), 0.0))

case(where_nan_safe, np.array([0.5, -1.0, 2.0]))


def errstate_block(x):
    with np.errstate(divide="ignore"):
        y = np.log(x)
    return np.sum(np.where(np.isfinite(y), y, 0.0) * x)

case(errstate_block, np.array([0.5, 1.5, 2.0]))


def array_int_power(x, n):
    return np.sum(x ** n) + np.sum(np.power(x, 2.5) * (x > 0))

case(array_int_power, np.array([0.5, 1.5, 2.0]), 3)


def mean_axis_tuple(x):
    return np.sum(np.mean(x, axis=(0, 2)) ** 2) + np.max(x, axis=1).sum()

case(mean_axis_tuple, rv(2, 3, 2))


def linspace_param(a):
    t = np.linspace(0.0, a, 5)
    return np.sum(np.sin(t))

case(linspace_param, 1.3)


def arange_scale(x):
    return np.sum(x * np.arange(len(x))) + np.sum(np.ones_like(x) * x) + np.sum(np.full(x.shape, 2.0) * x ** 2)

case(arange_scale, rv(4))


# ================================ containers / classes ================================

Params = namedtuple("Params", ["W", "b"])


def nt_loss(p, x):
    return np.sum(np.tanh(x @ p.W + p.b) ** 2)

case(nt_loss, Params(rv(3, 2), rv(2)), rv(4, 3))


@dataclass
class Layer:
    W: np.ndarray
    b: np.ndarray
    act: str = field(default="tanh", metadata={"static": True})


def dc_loss(layer, x):
    h = x @ layer.W + layer.b
    if layer.act == "tanh":
        h = np.tanh(h)
    return np.mean(h ** 2)

case(dc_loss, Layer(rv(3, 2), rv(2)), rv(4, 3))


def nested_tree_loss(params, x):
    h = x
    for W, b in params["layers"]:
        h = np.tanh(h @ W + b)
    return np.sum(h ** 2) * params["scale"]

case(nested_tree_loss, {"layers": [(rv(3, 3), rv(3)), (rv(3, 2), rv(2))], "scale": 0.7}, rv(2, 3))


def dict_items_loss(params):
    total = 0.0
    for k, v in params.items():
        total = total + np.sum(v ** 2) * len(k)
    return total

case(dict_items_loss, {"a": rv(2), "bb": rv(3), "ccc": 0.5})


def tuple_param(ab, x):
    a, b = ab
    return np.sum((a * x + b) ** 2)

case(tuple_param, (0.5, -0.3), rv(4))


def tree_with_none(params):
    total = np.sum(params["w"] ** 2)
    if params["b"] is not None:
        total = total + params["b"]
    return total

case(tree_with_none, {"w": rv(3), "b": None})


def list_of_floats(ws):
    return sum(w * w * (i + 1) for i, w in enumerate(ws))

case(list_of_floats, [0.3, -0.2, 0.5])


class Quadratic:
    def __init__(self, A, b):
        self.A = A
        self.b = b

    def energy(self, x):
        return 0.5 * x @ self.A @ x - self.b @ x + self.reg(x)

    def reg(self, x):
        return 0.01 * np.sum(x ** 4)

    def __call__(self, x):
        return self.energy(x) * 2.0


QUAD = Quadratic(np.array([[2.0, 0.3], [0.3, 1.0]]), np.array([1.0, -1.0]))
case(QUAD.energy, rv(2), name="method_energy")
case(QUAD, rv(2), name="callable_object")


class Stats:
    @staticmethod
    def loss(x):
        return np.sum(x ** 2) / len(x)

    @classmethod
    def closs(cls, x):
        return cls.loss(x) * 3.0


case(Stats.loss, rv(3), name="staticmethod")
case(Stats.closs, rv(3), name="classmethod")


def partial_target(theta, t, y):
    return np.sum((theta[0] * np.exp(-theta[1] * t) - y) ** 2)

case(functools.partial(partial_target, t=np.linspace(0, 1, 5), y=rv(5)), np.array([1.0, 0.5]),
     name="partial_fit")


class Dense:
    def __init__(self, W, b, act=None):
        self.W, self.b, self.act = W, b, act

    def __call__(self, h):
        z = h @ self.W + self.b
        if self.act == "tanh":
            return np.tanh(z)
        return z


def built_net_loss(W1, b1, W2, b2, x):
    net = [Dense(W1, b1, "tanh"), Dense(W2, b2)]
    h = x
    for layer in net:
        h = layer(h)
    return np.mean(h ** 2)

case(built_net_loss, rv(3, 4), rv(4), rv(4, 1), rv(1), rv(5, 3), argnums=(0, 1, 2, 3))


Point = namedtuple("Point", "x y")


def built_namedtuple(a, b):
    p = Point(a * 2.0, b - a)
    q = p._replace(x=p.x + 1.0) if False else Point(p.x + 1.0, p.y)
    return q.x * q.y + p.x ** 2

case(built_namedtuple, 0.4, 1.3, argnums=(0, 1))


@dataclass
class State:
    pos: float
    vel: float


def dc_integrate(s, k):
    pos, vel = s.pos, s.vel
    for _ in range(20):
        vel = vel - k * pos * 0.1
        pos = pos + vel * 0.1
    return pos ** 2 + 0.5 * vel ** 2

case(dc_integrate, State(1.0, 0.2), 2.0, argnums=(0, 1))


def decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1.0
    return wrapper


@decorator
def decorated(x):
    return x * math.exp(x)

case(decorated, 0.4)


def model_with_cfg(w, cfg):
    return cfg["scale"] * np.sum(w ** 2) + (np.sum(w) if cfg["use_sum"] else 0.0)

case(model_with_cfg, rv(3), {"scale": 2.0, "use_sum": True})


def rng_noise(w, seed):
    rng = np.random.default_rng(seed)
    noise = rng.normal(size=w.shape)
    return np.sum((w + noise) ** 2)

case(rng_noise, rv(3), 7)


# ================================ compositions ========================================

def scalar_loop_for_grads(x):
    s = 0.0
    for k in range(1, 6):
        s += math.sin(k * x) / k
        if s > 1.0:
            s = s * 0.5
    return s

case(scalar_loop_for_grads, 0.3, t="gradgrad")
case(scalar_loop_for_grads, 0.3, t="hessian", name="scalar_loop_hessian")


def hess_target(x):
    return np.sum(np.sin(x) * x[0]) + np.prod(x[:2]) + x @ x ** 2

case(hess_target, rv(3), t="hessian")


def vec_fn(x):
    y = np.zeros(3)
    y[0] = x[0] * x[1]
    y[1] = np.sin(x[2]) + x[0]
    y[2] = np.sum(x ** 2)
    return y

case(vec_fn, rv(3), t="jacfwd")
case(vec_fn, rv(3), t="jacrev", name="vec_fn_jacrev")
case(vec_fn, rv(3), t="jvp", name="vec_fn_jvp")
case(vec_fn, rv(3), t="vjp", name="vec_fn_vjp")
case(vec_fn, rv(3), t="jvp", name="vec_fn_jvp_lambda_star", via_lambda=True, expect="refused:E101")


def vec_fn_loop(x):
    out = x.copy()
    for i in range(1, len(x)):
        out[i] = out[i - 1] * np.cos(x[i]) + out[i]
    return out

case(vec_fn_loop, rv(4), t="jacrev")
case(vec_fn_loop, rv(4), t="jacfwd", name="vec_fn_loop_jacfwd")


def scalar_for_nested(x):
    return np.sum(np.exp(x) * np.cos(x[::-1]))

case(scalar_for_nested, rv(3), t="jacfwd_jacrev")
case(scalar_for_nested, rv(3), t="hvp", name="scalar_hvp")


def grad_penalty(W, x):
    def inner(W, x):
        return np.sum(np.tanh(x @ W) ** 2)
    g = revsrc.grad(inner)(W, x)
    return inner(W, x) + 0.1 * np.sum(g * g)

case(grad_penalty, rv(2, 2), rv(3, 2))


def scalar_target(x):
    return math.exp(-x * x) * math.cos(3.0 * x) + x ** 3


d_scalar_target = revsrc.grad(scalar_target)


def newton_with_grad(x):
    for _ in range(4):
        x = x - scalar_target(x) / d_scalar_target(x)
    return x

case(newton_with_grad, 0.4, t="jit")
case(newton_with_grad, 0.4, t="grad", name="newton_with_grad_grad", rtol=1e-5)


def uses_grad_in_loss(x, y):
    return d_scalar_target(x) * y + scalar_target(y)

case(uses_grad_in_loss, 0.4, 0.7, argnums=(0, 1))
case(uses_grad_in_loss, 0.4, 0.7, t="jit", name="uses_grad_jit")


def vmappable(x, a):
    y = x
    for _ in range(5):
        y = y - 0.1 * (y * y - a)
    return y * math.sin(x)

case(vmappable, np.linspace(0.1, 2.0, 7), 2.0, t="vmap_grad")


def vmappable_branch(x):
    if x > 1.0:
        return math.log(x) * x
    return x * x * 0.5 + x - 0.5

case(vmappable_branch, np.linspace(0.1, 2.0, 7), t="vmap_grad")


def aux_loss(w, x):
    pred = x @ w
    loss = np.mean(pred ** 2)
    return loss, {"pred_mean": np.mean(pred), "n": len(x)}

case(aux_loss, rv(3), rv(4, 3), t="aux")


def aux_scalar(x):
    y = math.sin(x)
    return y * y, y

case(aux_scalar, 0.9, t="aux")


def linearize_target(x):
    return np.sin(x) * np.sum(x ** 2)

case(linearize_target, rv(3), t="linearize")


def complex_arg(z):
    return abs(z * z + 1.0) + (z * z.conjugate()).real

case(complex_arg, 0.6 + 0.8j, complex_arg=True)


# ================================ backend="jax" =======================================

def jax_mlp(W1, b1, W2, x, y):
    h = np.tanh(x @ W1 + b1)
    out = h @ W2
    return np.mean((out - y) ** 2)

case(jax_mlp, rv(3, 4), rv(4), rv(4, 1), rv(6, 3), rv(6, 1), t="grad_jax", argnums=(0, 1, 2))


def jax_branchy(x):
    if x > 0.5:
        y = x * x
    elif x > 0.0:
        y = math.sin(x)
    else:
        y = -x
    return y * 3.0

case(jax_branchy, 0.8, t="grad_jax")
case(jax_branchy, 0.2, t="grad_jax", name="jax_branchy_mid")
case(jax_branchy, -0.4, t="grad_jax", name="jax_branchy_neg")


def jax_while_newton(a):
    x = 1.0
    while abs(x * x - a) > 1e-12:
        x = 0.5 * (x + a / x)
    return x

case(jax_while_newton, 3.0, t="grad_jax")


def jax_inplace(x):
    y = np.zeros(4)
    for i in range(4):
        y[i] = x[i] * x[(i + 1) % 4]
    y[1:3] += x[:2]
    return np.sum(y ** 2)

case(jax_inplace, rv(4), t="grad_jax")


def jax_long_scan(x, a):
    for i in range(40):
        x = x + 0.05 * (a - x * x) + 0.001 * i
    return x

case(jax_long_scan, 0.3, 2.0, t="grad_jax", argnums=(0, 1))


def jax_break_newton(a):
    x = a
    for i in range(50):
        dx = (x * x * x - a) / (3 * x * x)
        x = x - dx
        if abs(dx) < 1e-13:
            break
    return x

case(jax_break_newton, 2.0, t="grad_jax")


def jax_loop_branch(x):
    for i in range(6):
        if x > 1.0:
            x = x * 0.5
        else:
            x = x * 1.7 + 0.1
    return x

case(jax_loop_branch, 0.7, t="grad_jax")


def jax_tree(params, x):
    h = np.tanh(x @ params["W"] + params["b"])
    return np.sum(h ** 2)

case(jax_tree, {"W": rv(3, 2), "b": rv(2)}, rv(4, 3), t="grad_jax")


def jax_hessian_target(x):
    return np.sum(np.exp(x) * x[::-1]) + np.dot(x, x) ** 2

case(jax_hessian_target, rv(3), t="hessian_jax")


def jax_mask_loss(x):
    return np.sum(np.where(x > 0, x ** 2, np.exp(x)))

case(jax_mask_loss, np.array([0.5, -0.3, 1.2]), t="grad_jax")


def jax_float32(x):
    return np.sum(np.sin(x) * x)

case(jax_float32, rv(4).astype(np.float32), t="grad_jax", f32=True)


def jax_value_mask(x):
    return np.sum(x[x > 0])

case(jax_value_mask, np.array([0.5, -0.3, 1.2]), t="grad_jax", expect="refused:E603")


def jax_diag_matrix(A):
    return np.sum(np.diag(A) ** 2)

case(jax_diag_matrix, rv(3, 3), t="grad_jax", expect="refused:E603")


# ================================ documented refusals =================================

def uses_try(x):
    try:
        return math.log(x)
    except ValueError:
        return 0.0

case(uses_try, 2.0)
case(uses_try, -2.0, name="uses_try_caught")


def recursive_fact(x, n):
    if n == 0:
        return 1.0
    return x * recursive_fact(x, n - 1)

case(recursive_fact, 1.3, 3)   # unrolled for the n given (made again for another n)


def writes_argument(x):
    x[0] = 1.0
    return np.sum(x)

case(writes_argument, np.array([1.0, 2.0]), expect="refused:E403")


def uses_copyto(x):
    y = np.zeros_like(x)
    np.copyto(y, x)
    return np.sum(y)

case(uses_copyto, rv(3))   # README: np.copyto is refused (E401); it is followed, correctly


def uses_gamma(x):
    return math.gamma(x)

case(uses_gamma, 2.5)


def uses_remainder(x):
    return math.remainder(x, 1.0)

case(uses_remainder, 2.3, expect="refused:E202")


def returns_array(x):
    return x * 2.0

case(returns_array, rv(3), expect="refused:E302")


def uses_global_stmt(x):
    global G
    return x * G

case(uses_global_stmt, 2.0, expect="refused:E402")


def walrus(x):
    if (y := x * 2) > 1:
        return y
    return x

case(walrus, 2.0, expect="refused:E101")


def appends_to_arg(x, xs):
    xs.append(x)
    return sum(xs)

case(appends_to_arg, 1.0, [1.0, 2.0], argnums=1, expect="refused:E401")   # README says E403


def for_else(x):
    for i in range(3):
        x = x * 2.0
    else:
        x = x + 1.0
    return x

case(for_else, 1.0, expect="refused:E102")


# ================================ views and aliases (write-through) ===================

def transpose_write(x):
    y = np.zeros((2, 3))
    yt = y.T
    yt[0] = x[:2]
    yt[2, 1] = x[2] * x[0]
    return np.sum(y ** 2 * np.arange(1.0, 7.0).reshape(2, 3))

case(transpose_write, rv(3))


def reshape_write(x):
    y = np.zeros(6)
    m = y.reshape(2, 3)
    m[1, :] = x
    m[0, 0] += x[1] ** 2
    return np.sum(y * np.arange(1.0, 7.0))

case(reshape_write, rv(3))


def ravel_write(x):
    A = np.ones((2, 2)) * 2.0
    r = A.ravel()
    r[1:3] = x[:2] ** 2
    return np.sum(A @ A) + x[2]

case(ravel_write, rv(3))


def step_slice_write(x):
    y = np.zeros(6)
    ev = y[::2]
    ev += x
    od = y[1::2]
    od[:] = x ** 2
    return np.sum(y * np.arange(6.0) ** 2)

case(step_slice_write, rv(3))


def ellipsis_write(x):
    y = np.zeros(3)
    z = y[...]
    z[1] = x[0] * 3.0
    w = y[:]
    w[2] = x[1]
    return np.sum(y ** 2 + y)

case(ellipsis_write, rv(2))


def asarray_alias(x):
    y = x * 1.0
    z = np.asarray(y)
    z[0] = 10.0 * x[1]
    return np.sum(y ** 2)

case(asarray_alias, rv(3))


def plain_alias(x):
    y = x * 2.0
    z = y
    z[1] = x[0] ** 3
    return np.sum(y * y)

case(plain_alias, rv(3))


def real_view_write(x):
    z = np.zeros(3, dtype=complex)
    z.real[:] = x
    z.imag[:] = x ** 2
    return np.sum(np.abs(z) ** 2)

case(real_view_write, rv(3))


def real_of_real_view(x):
    y = x + 0.0
    r = y.real
    r *= 3.0
    return np.sum(y ** 2)

case(real_of_real_view, rv(3))


def einsum_diag_write(x):
    A = np.zeros((3, 3))
    d = np.einsum("ii->i", A)
    d += x
    return np.sum(A @ A) + np.sum(A)

case(einsum_diag_write, rv(3))


def flat_write(x):
    A = np.zeros((3, 3))
    A.flat[::4] = x
    return np.sum(np.exp(A))

case(flat_write, rv(3))


def helper_returns_arg(a):
    return a


def alias_through_helper(x):
    y = x * 1.5
    z = helper_returns_arg(y)
    z[0] = x[2] ** 2
    return np.sum(y ** 2)

case(alias_through_helper, rv(3))


def squeeze_view_write(x):
    y = np.zeros((1, 3))
    s = y.squeeze()
    s += x * x
    n = y[None]
    n[0, 0, 2] = x[0]
    return np.sum(y * np.array([1.0, 2.0, 3.0]))

case(squeeze_view_write, rv(3))


def swapaxes_write(x):
    y = np.zeros((2, 2))
    s = np.swapaxes(y, 0, 1)
    s[0, 1] = x[0]
    t = np.transpose(y)
    t[1, 1] = x[1] ** 2
    return np.sum(y * np.array([[1.0, 2.0], [3.0, 4.0]]))

case(swapaxes_write, rv(2))


def view_in_loop(x):
    y = np.zeros(4)
    for i in range(4):
        v = y[i:]
        v += x[i]
    return np.sum(y ** 2)

case(view_in_loop, rv(4))


def add_at_view(x):
    y = np.zeros((2, 3))
    row = y[1]
    np.add.at(row, [0, 0, 2], x)
    return np.sum(y ** 2 * np.arange(6.0).reshape(2, 3))

case(add_at_view, rv(3))


def augmented_on_argument(x):
    x += 1.0
    return np.sum(x * x)

case(augmented_on_argument, rv(3), expect="refused:E403")


def augmented_on_float_arg(x, y):
    x += y
    x *= 2.0
    return x * y

case(augmented_on_float_arg, 0.3, 0.7, argnums=(0, 1))


def astype_nocopy(x):
    y = x * 1.0
    z = y.astype(np.float64, copy=False)
    z[0] = 5.0 * x[1]
    return np.sum(y ** 2)

case(astype_nocopy, rv(3))


def list_of_arrays_alias(x):
    y = x * 1.0
    rows = [y, y * 2.0]
    rows[0][0] = x[1] ** 2
    return np.sum(y ** 2) + np.sum(rows[1])

case(list_of_arrays_alias, rv(3))


def diagonal_readonly(A):
    d = np.diagonal(A)
    return np.sum(d ** 3) + np.sum(np.diag(A) * 2.0)

case(diagonal_readonly, rv(3, 3))


def reshape_then_original_write(x):
    y = np.zeros(4)
    m = y.reshape(2, 2)
    y[0] = x[0]
    y[3] = x[1] ** 2
    return np.sum(m @ m)

case(reshape_then_original_write, rv(2))


# ================================ method forms, builtins =============================

def method_forms(x, y):
    return x.sum() + x.dot(y) + (x * y).mean() + x.max() + x.clip(-0.5, 0.5).sum() + x.T.dot(y) \
        + x.prod() + (x ** 2).cumsum()[-1] + x.std()

case(method_forms, np.array([0.3, -1.2, 0.9]), rv(3), argnums=(0, 1))


def modulo_floor(x):
    return (x % 1.0) * x + math.fmod(x, 0.7) + x // 0.5 + round(x, 1) * x

case(modulo_floor, 2.37)


def divmod_fn(x):
    q, r = divmod(x, 0.6)
    return r * r + q * x

case(divmod_fn, 2.05)


def builtin_min_max_key(x, y):
    vals = [x * 2, y, x * y]
    return max(vals) - min(x, y) + abs(min(vals))

case(builtin_min_max_key, 0.3, 0.8, argnums=(0, 1))


def numpy_scalar_math(x):
    return np.sin(x) * np.exp(x) + np.sqrt(x) + np.log(x) + np.arctan(x) + np.cbrt(x)

case(numpy_scalar_math, 0.7)


def float32_scalar(x):
    return np.sum(np.square(x)) * np.float32(2.0)

case(float32_scalar, np.array([0.5, 1.5], dtype=np.float32), f32=True)


def norm_at_zero(x):
    return np.linalg.norm(x)

case(norm_at_zero, np.zeros(3), nofd=True, want=None, nan_grad=True, name="norm_at_zero")


def sqrt_array_zero(x):
    return np.sum(np.sqrt(x))

case(sqrt_array_zero, np.array([0.0, 4.0]), nofd=True, want=np.array([np.inf, 0.25]))


def abs_away_from_zero(x):
    return np.sum(np.abs(x) ** 1.5)

case(abs_away_from_zero, np.array([-0.4, 0.9]))


def log_neg_nan(x):
    with np.errstate(invalid="ignore"):
        return float(np.sum(np.log(x)))

case(log_neg_nan, np.array([-1.0, 2.0]), nofd=True, want=np.array([-1.0, 0.5]))


def empty_loop_arr(x, n):
    s = np.sum(x) * 0.0
    for i in range(n):
        s = s + np.sum(x[i:] ** 2)
    return s

case(empty_loop_arr, rv(3), 0, name="empty_loop_zero_trips")
case(empty_loop_arr, rv(3), 3, name="empty_loop_three_trips")


def bool_int_arithmetic(x, n, flag):
    k = n * 2 + int(flag)
    return x ** k + (x if flag else 0.0) * n

case(bool_int_arithmetic, 0.9, 2, True)


case(np.tanh, 0.3, name="direct_np_tanh")
case(math.sin, 0.3, name="direct_math_sin")
case(lambda x: x ** 3 * math.exp(-x), 0.8, name="direct_lambda")


# ================================ caching: same function, new values =================

def shape_branch(x):
    if x.shape[0] > 3:
        return np.sum(x ** 2)
    return np.sum(x ** 3)

case(shape_branch, t="seq", seq=[(rv(2),), (rv(5),), (rv(3),)])


def len_loop(x):
    s = 0.0
    for i in range(len(x)):
        s = s + x[i] * (i + 1) ** 2
    return s * s

case(len_loop, t="seq", seq=[(rv(2),), (rv(4),)])


def mode_switch(x, mode):
    if mode == "square":
        return x * x
    elif mode == "cube":
        return x ** 3
    return math.sin(x)

case(mode_switch, t="seq", seq=[(0.7, "square"), (0.7, "cube"), (0.7, "other")])


def int_steps(x, n):
    for _ in range(n):
        x = math.sin(x) + 0.5 * x
    return x

case(int_steps, t="seq", seq=[(0.3, 3), (0.3, 7), (0.3, 0)])


SCALE = 2.0


def reads_global(x):
    return SCALE * x * x


def _set_scale(v):
    global SCALE
    SCALE = v

case(reads_global, t="seq", seq=[(0.5,), (lambda: _set_scale(5.0), 0.5), (lambda: _set_scale(2.0), 0.5)])


class Reg:
    def __init__(self, l2):
        self.l2 = l2

    def loss(self, w):
        return self.l2 * np.sum(w ** 2) + np.sum(np.sin(w))


REG = Reg(0.1)


def _set_l2(v):
    REG.l2 = v

case(REG.loss, t="seq", seq=[(rv(3),), (lambda: _set_l2(3.0), rv(3)), (lambda: _set_l2(0.1), rv(3))],
     name="attribute_change")


def dtype_switch(x):
    return np.sum(np.exp(x) * x)

case(dtype_switch, t="seq", seq=[(rv(3),), (rv(3).astype(np.float32),), (rv(2, 2),)], rtol=1e-3)


def float_then_int_arg(x, y):
    return x * y + y ** 2

case(float_then_int_arg, t="seq", seq=[(0.5, 1.5), (0.5, 2), (0.5, True)])


def default_mutated(x, coeffs=[1.0, 2.0]):
    return sum(c * x ** i for i, c in enumerate(coeffs))

case(default_mutated, t="seq", seq=[(0.5,), (lambda: default_mutated.__defaults__[0].append(3.0), 0.5)])


# ================================ more compositions ==================================

def while_for_hessian(x):
    y = x
    k = 0
    while y < 10.0:
        y = y * 1.5 + math.sin(y)
        k += 1
    return y * k

case(while_for_hessian, 0.8, t="hessian")
case(while_for_hessian, 0.8, t="gradgrad", name="while_gradgrad")


def add_at_vector(x):
    out = np.zeros(3)
    np.add.at(out, np.array([0, 1, 1, 2, 0]), np.sin(x))
    return out * x[:3]

case(add_at_vector, rv(5), t="jacrev")
case(add_at_vector, rv(5), t="jacfwd", name="add_at_vector_jacfwd")


def jacfwd_of_jacfwd(x):
    return np.sum(np.exp(x[0]) * x ** 3)

case(jacfwd_of_jacfwd, rv(3), t="jacfwd_jacfwd")
case(jacfwd_of_jacfwd, rv(3), t="jacrev_jacrev", name="jacrev_of_jacrev")
case(jacfwd_of_jacfwd, rv(3), t="jacrev_jacfwd", name="jacrev_of_jacfwd")


def vmap_vag(x):
    return x ** 3 - 2.0 * math.cos(x)

case(vmap_vag, np.linspace(-1.0, 1.0, 5), t="vmap_vag")


def jit_int_arg(x, n):
    s = 0.0
    for i in range(n):
        s += x ** i / (i + 1.0)
    return s


d_jit_int = revsrc.grad(jit_int_arg)


def jit_calls_int(x, n):
    return d_jit_int(x, n) * 2.0 + jit_int_arg(x, n)

case(jit_calls_int, 0.7, 5, t="jit")


def grad_of_grad_argnums(x, y):
    return x * x * y + math.sin(x * y)

case(grad_of_grad_argnums, 0.4, 0.9, t="gradgrad_xy")


def hvp_tree_free(W):
    return np.sum(np.tanh(W @ W) ** 2)

case(hvp_tree_free, rv(2, 2) * 0.5, t="hvp")
case(hvp_tree_free, rv(2, 2) * 0.5, t="hessian", name="hessian_matrix_arg")


def jvp_scalar_loop(x):
    acc = 0.0
    for i in range(5):
        if acc < 1.0:
            acc += x * i
        else:
            acc -= math.sqrt(x)
    return acc

case(jvp_scalar_loop, 0.3, t="jvp")


def vjp_tuple_out(x):
    return np.sum(x ** 2), np.prod(x)

case(vjp_tuple_out, rv(3), t="vjp_tuple")


def jax_pytree_dataclass(s, k):
    pos, vel = s.pos, s.vel
    for _ in range(5):
        vel = vel - k * pos * 0.1
        pos = pos + vel * 0.1
    return pos ** 2 + vel ** 2

case(jax_pytree_dataclass, State(1.0, 0.2), 2.0, argnums=(0, 1), t="grad_jax")


def jax_while_array(x):
    y = x
    while np.sum(y * y) > 1.0:
        y = y * 0.8
    return np.sum(y ** 3)

case(jax_while_array, np.array([2.0, -1.0, 0.5]), t="grad_jax")


def jax_add_at(x):
    h = np.zeros(3)
    np.add.at(h, np.array([0, 2, 2, 1]), x ** 2)
    return np.sum(h * np.array([1.0, 2.0, 3.0]))

case(jax_add_at, rv(4), t="grad_jax")


def jax_view_write(x):
    y = x * 1.0
    v = y[1:]
    v *= 3.0
    return np.sum(y * y)

case(jax_view_write, rv(3), t="grad_jax")


def jax_transpose_write(x):
    y = np.zeros((2, 2))
    t = y.T
    t[0] = x
    return np.sum(y * np.array([[1.0, 2.0], [3.0, 4.0]]))

case(jax_transpose_write, rv(2), t="grad_jax")


def jax_nan_branch(x):
    if x > 0.0:
        y = math.log(x)
    else:
        y = x
    return y

case(jax_nan_branch, -0.5, t="grad_jax")


def jax_int_static(x, n):
    for i in range(n):
        x = x * 0.9 + 0.1
    return x * x

case(jax_int_static, t="seq", seq=[(0.5, 2), (0.5, 5)], backend="jax")


def jax_shape_branch(x):
    if x.shape[0] > 2:
        return np.sum(x ** 2)
    return np.sum(np.sin(x))

case(jax_shape_branch, t="seq", seq=[(rv(2),), (rv(4),)], backend="jax")


def jax_vag_aux(w, x):
    p = x @ w
    return np.mean(p ** 2), np.max(p)

case(jax_vag_aux, rv(3), rv(4, 3), t="aux", backend="jax")


def jax_argnums_tuple(a, b, c):
    return np.sum(a * b) + c * np.sum(b ** 2)

case(jax_argnums_tuple, rv(3), rv(3), 0.5, argnums=(0, 2), t="grad_jax")


def jax_jvp_fn(x):
    return np.sin(x) * x

case(jax_jvp_fn, rv(3), t="jacfwd", backend="jax")
case(jax_jvp_fn, rv(3), t="jacrev", backend="jax", name="jax_jacrev")


# ================================ more views: functions that return views ============

def split_parts_write(x):
    y = x * 1.0
    a, b = np.split(y, 2)
    b *= 3.0
    a[0] = x[1] ** 2
    return np.sum(y ** 2)

case(split_parts_write, rv(4))


def flip_write(x):
    y = np.zeros(3)
    f = np.flip(y)
    f[0] = x[0] * 2.0
    r = y[::-1]
    r[2] += x[1] ** 2
    return np.sum(y * np.array([1.0, 2.0, 3.0]))

case(flip_write, rv(2))


def rot90_write(x):
    A = np.zeros((2, 2))
    R = np.rot90(A)
    R[0, 0] = x[0]
    return np.sum(A * np.array([[1.0, 2.0], [3.0, 4.0]])) + x[1]

case(rot90_write, rv(2))


def np_ravel_reshape_write(x):
    A = np.zeros((2, 2))
    r = np.ravel(A)
    r[3] = x[0] ** 2
    m = np.reshape(A, (4,))
    m[0] = x[1]
    return np.sum(A @ np.array([[1.0, 2.0], [3.0, 4.0]]))

case(np_ravel_reshape_write, rv(2))


def expand_moveaxis_write(x):
    A = np.zeros((2, 3))
    e = np.expand_dims(A, 0)
    e[0, 1, 2] = x[0]
    m = np.moveaxis(A, 0, 1)
    m[0, 1] = x[1] ** 2
    return np.sum(A * np.arange(1.0, 7.0).reshape(2, 3))

case(expand_moveaxis_write, rv(2))


def chained_index_write(x):
    A = np.zeros((3, 3))
    A[1][2] = x[0]
    A[:, 0][1] = x[1] ** 2
    return np.sum(A * np.arange(1.0, 10.0).reshape(3, 3))

case(chained_index_write, rv(2))


def fancy_copy_write(x):
    A = np.ones((3, 2))
    A[[0, 2]][0] = x          # writes into a copy: A does not change
    B = A * x
    B[B > -100.0][0] = 0.0    # also a copy
    return np.sum(B ** 2)

case(fancy_copy_write, rv(2))


def repeated_index_iadd(x):
    a = np.zeros(3)
    a[[0, 0, 1]] += x          # NumPy: buffered, the last of the repeated adds wins
    return np.sum(a * np.array([1.0, 2.0, 3.0]))

case(repeated_index_iadd, rv(3))


def bool_mask_arg_write(x, mask):
    y = np.zeros_like(x)
    y[mask] = x[mask] * 2.0
    y[~mask] = np.sin(x[~mask])
    return np.sum(y ** 2)

case(bool_mask_arg_write, rv(5), np.array([True, False, True, True, False]))


def broadcast_slice_assign(X, v):
    A = np.zeros((3, 4))
    A[:, 1:] = X[:, None] * v
    A[:, 0] = X ** 2
    return np.sum(np.tanh(A))

case(broadcast_slice_assign, rv(3), rv(3), argnums=(0, 1))


def data_dependent_row_update(x, rows):
    A = np.zeros((3, 2))
    for k in range(len(rows)):
        A[rows[k], :] += x[k] * np.array([1.0, -1.0])
    return np.sum(A ** 3)

case(data_dependent_row_update, rv(4), np.array([2, 0, 2, 1]))


def add_at_2d(x):
    A = np.zeros((2, 3))
    np.add.at(A, (np.array([0, 1, 0]), np.array([2, 2, 2])), x)
    np.add.at(A, np.array([-1, -1]), x[:2, None] * np.ones(3))
    return np.sum(A ** 2)

case(add_at_2d, rv(3))


def tuple_unpack_alias(x):
    y = x * 1.0
    a, b = y, y
    a[0] = x[1] * 4.0
    return np.sum(b ** 2)

case(tuple_unpack_alias, rv(3))


def view_then_rebind(x):
    y = x * 1.0
    z = y[1:]
    y = y * 2.0
    z[0] = 7.0 * x[0]
    return np.sum(y ** 2)

case(view_then_rebind, rv(3))


def where_kwarg_sum(x):
    return np.sum(x ** 2, where=x > 0)

case(where_kwarg_sum, np.array([0.5, -1.0, 2.0]))


def zero_d_arg(x):
    return float(x * x) + np.sin(x)

case(zero_d_arg, np.array(0.6))


def numpy_scalar_arg(x):
    return x ** 3

case(numpy_scalar_arg, np.float64(0.6), name="np_float64_arg")
case(numpy_scalar_arg, np.float32(0.6), name="np_float32_arg", f32=True)


def kw_diff_arg(x, y=2.0):
    return x * x * y

case(kw_diff_arg, t="kwcall")


def hess_argnums1(a, x):
    return np.sum(np.sin(x) * a) + np.sum(x ** 3) * a

case(hess_argnums1, 0.7, rv(3), t="hessian_argnums1")


def aux_tuple_argnums(a, b):
    v = np.sum(a * b) + np.sum(b ** 3)
    return v, a * 2.0

case(aux_tuple_argnums, rv(3), rv(3), t="aux_argnums")


def errstate_loop(x):
    s = 0.0
    with np.errstate(over="ignore"):
        for i in range(3):
            s = s + np.sum(np.exp(x * i))
    return s

case(errstate_loop, rv(3))


def errstate_return_inside(x):
    with np.errstate(divide="ignore"):
        return np.sum(x / 2.0)

case(errstate_return_inside, rv(3))


def inf_constant_compare(x):
    best = math.inf
    for v in (x, 2.0 * x, x * x):
        if v < best:
            best = v
    return best

case(inf_constant_compare, 0.7)
case(inf_constant_compare, 1.5, name="inf_constant_compare_big")


def pow_negative_exponent(x):
    return x ** -1 + x ** -2.5 + 1.0 / x ** 3

case(pow_negative_exponent, 1.3)


def mean_empty(x):
    with np.errstate(invalid="ignore"):
        m = np.mean(x)
    return m

case(mean_empty, np.zeros(0), nofd=True, want=np.zeros(0))


def argsort_gather(x):
    order = np.argsort(x)
    return np.sum(x[order] * np.arange(len(x))) + x[np.argmax(x)] ** 2

case(argsort_gather, np.array([0.3, -1.2, 2.0, 0.7]))


# ================================ copies vs views, overlapping writes ==================


def reshape_copy_write(x):
    A = np.zeros((2, 2))
    z = A.T.reshape(-1)        # a copy: A.T is not contiguous
    z[0] = x[0]
    return np.sum(A) + np.sum(z * x)

case(reshape_copy_write, np.array([1.0, 2.0, 3.0, 4.0]))   # NumPy is asked: a copy, followed


def ravel_copy_write(x):
    A = np.zeros((2, 2))
    z = A.T.ravel()            # a copy
    z[1] = x[1] * 3
    return np.sum(A * 5) + np.sum(z)

case(ravel_copy_write, np.array([1.0, 2.0, 3.0, 4.0]))   # NumPy is asked: a copy, followed


def flatten_write(x):
    A = x.reshape(2, 2) * 1.0
    z = A.flatten()
    z[0] = 0.0
    return np.sum(A) + np.sum(z)

case(flatten_write, np.array([1.0, 2.0, 3.0, 4.0]))


def slice_obj(x):
    y = x * 1.0
    s = slice(1, None)
    y[s] *= 2.0
    return np.sum(y ** 2)

case(slice_obj, np.array([1.0, 2.0, 3.0, 4.0]))


def view_method_ndarray(x):
    y = x * 1.0
    v = np.ndarray.view(y)
    v[1] = 0.0
    return np.sum(y)

case(view_method_ndarray, np.array([1.0, 2.0, 3.0, 4.0]))


def reshape_strided_copy(x):
    y = np.zeros(4)
    z = y[::2].reshape(2, 1)   # a view? (strided 1-D -> (2,1) is a view in NumPy)
    z[1, 0] = x[2]
    return np.sum(y) * x[0]

case(reshape_strided_copy, np.array([1.0, 2.0, 3.0, 4.0]))


def diag_fill_then_read(x):
    A = np.diag(x)
    d = np.einsum("ii->i", A)
    return np.sum(d ** 2)

case(diag_fill_then_read, np.array([1.0, 2.0, 3.0, 4.0]))


def sum_of_view_after_write(x):
    y = x * 1.0
    t = y.T
    y[0] = 0.0
    return np.sum(t)

case(sum_of_view_after_write, np.array([1.0, 2.0, 3.0, 4.0]))


def iadd_alias_self(x):
    y = x * 1.0
    y[1:] += y[:-1]        # NumPy: overlapping, handled as if buffered
    return np.sum(y ** 2)

case(iadd_alias_self, np.array([1.0, 2.0, 3.0, 4.0]))


def iadd_alias_self2(x):
    y = x * 1.0
    y[:-1] += y[1:]
    return np.sum(y * np.arange(4.0))

case(iadd_alias_self2, np.array([1.0, 2.0, 3.0, 4.0]))


def setitem_alias_overlap(x):
    y = x * 1.0
    y[1:] = y[:-1]
    return np.sum(y * np.arange(1.0, 5.0))

case(setitem_alias_overlap, np.array([1.0, 2.0, 3.0, 4.0]))


def imag_zero(x):
    return np.sum(x.imag) + np.sum(x.real ** 2) + np.sum(np.real(x) * np.conj(x))

case(imag_zero, np.array([1.0, 2.0, 3.0, 4.0]))



# ================================ builtins, closures, ints ==========================

def int_trunc(x): return int(x) * x + round(x) * x + (x // 1) * x + bool(x) * x
case(int_trunc, 2.3)
def isnan_branch(x):
    y = x * 2
    return 0.0 if math.isnan(y) else y * y
case(isnan_branch, 0.7)
def isclose_branch(x):
    return x if math.isclose(x, 1.0) else x ** 3
case(isclose_branch, 0.7)
def big_int(x, n):
    return x * (n % 7) + x ** 2 * (n // 10**20)
case(big_int, 0.7, 10**21 + 3)
def nested_closure(x):
    a = x * 2
    def g(y):
        def h(z):
            return z * a + y
        return h(y * y)
    return g(x) + g(1.0)
case(nested_closure, 0.4)
def lambda_closure_loop(x):
    fs = [lambda t, k=k: t ** k for k in range(1, 4)]
    return sum(f(x) for f in fs)
case(lambda_closure_loop, 0.6)
def sum_start(x):
    return sum([x, x * x], start=1.0) + sum((x,) * 3)
case(sum_start, 0.6)
def max_key(x):
    return max([x, -2 * x, x * x], key=abs)
case(max_key, 0.6)
def sorted_key(x, y):
    return sorted([x, y, x * y], key=lambda v: -v)[0] * 2
case(sorted_key, 0.6, 0.3, argnums=(0, 1))
def str_format_branch(x):
    s = "{:.1f}".format(x)
    return x * len(s)
case(str_format_branch, 12.34, expect="refused:E202")
def tuple_in_dict(x):
    d = {"a": (x, 2 * x), "b": [x * x]}
    a0, a1 = d["a"]
    return a0 * a1 + d["b"][0] + d.get("c", 1.0) * x
case(tuple_in_dict, 0.5)
def while_true_break(x):
    k = 0
    while True:
        x = x * 0.5 + 0.1
        k += 1
        if x < 0.25 or k > 50:
            break
    return x * k
case(while_true_break, 3.0)
def nested_loop_break(x):
    s = 0.0
    for i in range(4):
        for j in range(4):
            if j > i:
                break
            s += x ** (i + j)
    return s
case(nested_loop_break, 0.9)
def math_prod_fsum(x):
    return math.prod([x, 2.0, x]) + math.fsum([x, x * x])
case(math_prod_fsum, 0.9)
def np_abs_complex(x):
    z = x + 1j * x * x
    return float(np.abs(z)) + np.angle(z)
case(np_abs_complex, 0.9)
def range_float_len(x):
    xs = np.linspace(0, x, 4)
    return sum(v * v for v in xs)
case(range_float_len, 0.9)


# ================================ found by probing: forward-over-reverse, jax, outputs ==

def view_write_sq(x):
    y = x * 2.0
    v = y.view()
    v[0] = 0.0
    return np.sum(y * y)

case(view_write_sq, np.array([0.3, -0.7, 1.1]), t="grad_jax", name="view_write_jax")
case(view_write_sq, np.array([0.3, -0.7, 1.1]), t="hessian", name="view_write_hessian")


def einsum_diag_write_sq(x):
    A = np.zeros((3, 3))
    d = np.einsum("ii->i", A)
    d += x
    return np.sum(A * A)

case(einsum_diag_write_sq, np.array([0.3, -0.7, 1.1]), t="grad_jax", name="einsum_write_jax")


def errstate_jax(x):
    with np.errstate(all="ignore"):
        y = np.log(x * x)
    return np.sum(y)

case(errstate_jax, np.array([0.3, -0.7, 1.1]), t="grad_jax")   # nothing under JAX


def scal_for_jit(x):
    return x ** 3 * math.exp(-x)


def _check_jit_of_grad(c):
    from test_user_programs import close, fd_jac
    got = revsrc.jit(revsrc.grad(scal_for_jit))(0.7)
    close(got, fd_jac(scal_for_jit, 0.7), 1e-6, what="jit(grad(f))")
    return "correct"

case(scal_for_jit, 0.7, t="custom", check=_check_jit_of_grad, name="jit_of_grad")


def dict_output(p):
    return {"a": p["w"] * 2.0, "b": np.sum(p["v"] ** 2)}


def _check_jacrev_dict_out(c):
    from test_user_programs import close
    p = {"w": 0.5, "v": np.array([0.3, -0.7, 1.1])}
    J = revsrc.jacrev(dict_output)(p)
    close(J["b"]["v"], 2 * p["v"], 1e-12, what="jacrev of a dict output")
    close(J["a"]["w"], 2.0, 1e-12, what="jacrev of a dict output")
    return "correct"

case(dict_output, t="custom", check=_check_jacrev_dict_out, name="jacrev_dict_output")


def sin_sq_sum(x):
    return np.sum(np.sin(x) ** 2)


def uses_grad_made_inside(x):
    return np.sum(revsrc.grad(sin_sq_sum)(x) * x)

case(uses_grad_made_inside, np.array([0.3, -0.7, 1.1]))


def aux_dict_jax(w):
    return np.sum(w ** 2), {"m": np.mean(w)}

case(aux_dict_jax, np.array([0.3, -0.7, 1.1]), t="aux", backend="jax")


# ================================ pytrees, linear algebra, exceptions =================

class Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


revsrc.register_pytree(Pair, lambda p: ((p.a, p.b), None), lambda aux, ch: Pair(*ch))


def pair_loss(p):
    return np.sum(p.a ** 2) * p.b + p.b ** 2

case(pair_loss, Pair(np.array([0.3, -0.7, 1.1]), 2.0))


def list_of_arrays_loss(ws):
    return sum(np.sum(w ** 2) * (i + 1) for i, w in enumerate(ws))

case(list_of_arrays_loss, [rv(3), rv(2, 2)])


def f32_tree(p):
    return np.sum(p["a"] ** 2) + p["b"] * np.sum(p["a"])

case(f32_tree, {"a": rv(3).astype(np.float32), "b": 1.5}, f32=True)


def complex_array_loss(z):
    return np.sum((z * z).real * np.abs(z))


def _check_complex_array(c):
    from test_user_programs import close
    import jax
    import jax.numpy as jnp
    z = np.array([1 + 2j, 0.5 - 1j])
    want = np.asarray(jax.grad(lambda z: jnp.sum((z * z).real * jnp.abs(z)))(jnp.asarray(z)))
    close(revsrc.grad(complex_array_loss)(z), want, 1e-12, what="complex array grad vs JAX")
    return "correct"

case(complex_array_loss, t="custom", check=_check_complex_array, name="complex_array_vs_jax")


def scipy_style(theta, *args):
    t, y = args
    return np.sum((theta[0] * t + theta[1] - y) ** 2)

case(scipy_style, np.array([1.0, 0.5]), np.linspace(0, 1, 4), np.linspace(0, 2, 4))


def with_print(x):
    print("forward ran at", round(float(x), 3))
    return x * x * math.sin(x)

case(with_print, 0.5)


@dataclass
class Cfg:
    w: np.ndarray
    n: int = field(default=3, metadata={"static": True})


def cfg_loss(c):
    return np.sum(c.w ** c.n)

case(cfg_loss, t="seq", seq=[(Cfg(np.array([0.3, -0.7, 1.1]), 3),), (Cfg(np.array([0.3, -0.7, 1.1]), 2),)])


def batched_solve(A, b):
    return np.sum(np.linalg.solve(A, b[..., None]) ** 2)

case(batched_solve, np.eye(3)[None] * 2 + 0.1 * rv(2, 3, 3), rv(2, 3), argnums=(0, 1))


def eigh_loss(S):
    w, V = np.linalg.eigh(S @ S.T)
    return np.sum(w ** 2) + np.abs(V[0, 0])

case(eigh_loss, np.array([[1.0, 0.2, 0.1], [0.3, 2.0, 0.4], [0.0, 0.5, 3.0]]), rtol=1e-5)


def svd_loss(S):
    s = np.linalg.svd(S, compute_uv=False)
    return np.sum(s ** 3)

case(svd_loss, np.array([[1.0, 0.2, 0.1], [0.3, 2.0, 0.4], [0.0, 0.5, 3.0]]))


def expm_series(A):
    M = np.eye(A.shape[0])
    term = np.eye(A.shape[0])
    for k in range(1, 12):
        term = term @ A / k
        M = M + term
    return np.trace(M)

case(expm_series, 0.3 * rv(3, 3))


def pinv_loss(S):
    return np.sum(np.linalg.pinv(S))

case(pinv_loss, np.array([[1.0, 0.2, 0.1], [0.3, 2.0, 0.4], [0.0, 0.5, 3.0]]))


def qr_loss(S):
    Q, R = np.linalg.qr(S)
    return np.sum(np.abs(np.diag(R)))

case(qr_loss, np.array([[1.0, 0.2, 0.1], [0.3, 2.0, 0.4], [0.0, 0.5, 3.0]]), expect="refused:E202")


def norm_orders(S):
    return np.linalg.norm(S, 2) + np.linalg.norm(S, np.inf) + np.linalg.norm(S[0], 3)

case(norm_orders, np.array([[1.0, 0.2, 0.1], [0.3, 2.0, 0.4], [0.0, 0.5, 3.0]]))


def raises_when_big(x):
    assert x < 5.0, f"x too big: {x}"
    if x > 1.0:
        raise ValueError(f"too big: {x}")
    return math.log(x) / (x - 0.5)


def _check_exceptions(c):
    from test_user_programs import Wrong
    for arg, exc in [(7.0, AssertionError), (2.0, ValueError), (-1.0, ValueError), (0.5, ZeroDivisionError)]:
        try:
            revsrc.grad(raises_when_big)(arg)
        except exc:
            continue
        except Exception as e:
            raise Wrong(f"at {arg}: {type(e).__name__} instead of {exc.__name__}") from e
        raise Wrong(f"at {arg}: no {exc.__name__}")
    return "correct"

case(raises_when_big, t="custom", check=_check_exceptions, name="python_exceptions_parity")


# ================================ more writes through .view() and einsum views ========

def view_dtype(x):
    y = x * 1.0
    v = y.view(np.float64)
    v[0] = 0.0
    return np.sum(y)
def einsum_transpose_write(x):
    A = np.zeros((2, 2))
    T = np.einsum("ij->ji", A)
    T[0, 1] = x[0]
    return np.sum(A * np.array([[1.0, 2.0], [3.0, 4.0]])) + x[1]
def einsum_identity_write(x):
    y = x * 1.0
    z = np.einsum("i->i", y)
    z[1] = 0.0
    return np.sum(y)
def view_then_read(x):
    y = x * 1.0
    v = y.view()
    y[2] = 0.0
    return np.sum(v * x)
def view_iadd(x):
    y = x ** 2
    v = y.view()
    v += 1.0
    v *= x
    return np.sum(y)

for _f in (view_dtype, einsum_transpose_write, einsum_identity_write):
    case(_f, np.array([1.0, 2.0, 3.0, 4.0]))
case(view_then_read, np.array([1.0, 2.0, 3.0, 4.0]))   # x.view() is an alias: followed
case(view_iadd, np.array([1.0, 2.0, 3.0, 4.0]))   # x.view() is an alias: followed


# ================================ what the tester found ===============================
# Documented refusals (the README lists the construct as refused, or the code's family):
REFUSED = {
    "hess_target-hessian": "E104",          # second derivative through np.prod (listed under E104)
    "view_in_loop-grad": "E404",            # a view assigned in a loop
    "list_of_arrays_alias-grad": "E404",    # a change to an array stored in a list
    "divmod_fn-grad": "E202",               # divmod has no rule
    "split_parts_write-grad": "E404",       # writes through the views np.split returns
}

# WRONG numbers, crashes, and refusals the README does not document (each a strict xfail):
FOUND = {
    # ---- WRONG
    "norm_at_zero": "WRONG (edge value): grad of np.linalg.norm at the zero vector is 0, "
        "JAX gives NaN (README: edge derivatives are IEEE numbers as JAX's are; "
        "np.sqrt(np.sum(x*x)) gives NaN in revsrc too)",
    "view_method_ndarray-grad": "WRONG: a write through np.ndarray.view(y) is not followed "
        "(as for y.view()): d/dx1 is 1, should be 0",
    "einsum_write_jax": "WRONG: backend='jax': the write through np.einsum('ii->i', A) is "
        "lost, gradient 0",
    "view_dtype-grad": "WRONG: a write through y.view(np.float64) is not followed: "
        "grad [1,1,1,1], should be [0,1,1,1]",
    # ---- CRASH
    # ---- refusals the README does not document
    "grad_penalty-grad": "undocumented refusal: a function calling revsrc.grad on its own "
        "nested def is refused with E204 'the file was changed', which is false",
    "built_namedtuple-grad": "undocumented refusal: a namedtuple built in a conditional "
        "expression (`q = A if False else Point(...)`) is refused with E202",
}

for _c in CASES:
    if _c["name"] in REFUSED:
        _c["expect"] = "refused:" + REFUSED[_c["name"]]
    if _c["name"] in FOUND:
        _c["xfail"] = FOUND[_c["name"]]
assert set(REFUSED) | set(FOUND) <= {c["name"] for c in CASES}
