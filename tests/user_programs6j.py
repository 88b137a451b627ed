"""User programs, corpus 6j: scientists' and students' programs: likelihoods, physics,
statistics, with jit / vmap of scalar code, Jacobians of several outputs, pytrees of
parameters.  References: JAX x64, central differences or closed forms."""
import collections
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, fd_hess, jax, jaxify

CASES = []
RNG = np.random.default_rng(70)


J = jax


add = adder(CASES)


# -- scalar programs under jit and vmap ------------------------------------------------------------

def bisection_root(c):
    lo, hi = 0.0, 2.0
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if mid * mid * mid - c > 0.0:
            hi = mid
        else:
            lo = mid
    return 0.5 * (lo + hi)


CS = np.array([0.5, 1.0, 2.0, 5.0])
add("sci_jit_bisection_exact", lambda: revsrc.jit(bisection_root)(2.0), lambda: bisection_root(2.0), tol=0.0)
add("sci_vmap_bisection_exact", lambda: revsrc.vmap(bisection_root)(CS),
    lambda: np.array([bisection_root(c) for c in CS.tolist()]), tol=0.0)
add("sci_grad_bisection_is_zero", lambda: revsrc.grad(bisection_root)(2.0), lambda: 0.0)


def newton_cuberoot(c):
    x = 1.0
    for _ in range(30):
        x = x - (x * x * x - c) / (3.0 * x * x)
    return x


add("sci_vmap_grad_newton_implicit", lambda: revsrc.vmap(revsrc.grad(newton_cuberoot))(CS),
    lambda: 1.0 / (3.0 * np.cbrt(CS) ** 2), tol=1e-9)


def count_and_sum(n, x):
    total = 0.0
    count = 0
    for i in range(n):
        if i % 3 == 0:
            continue
        total += x ** (i % 4)
        count += 1
    return total / count


add("sci_jit_int_and_float_args", lambda: revsrc.jit(count_and_sum)(17, 1.3), lambda: count_and_sum(17, 1.3), tol=0.0)
add("sci_vmap_int_array_mapped", lambda: revsrc.vmap(count_and_sum, in_axes=(0, None))(np.array([4, 7, 10]), 1.3),
    lambda: np.array([count_and_sum(n, 1.3) for n in [4, 7, 10]]), tol=0.0)


def bool_flag_fn(x, flag):
    return x * x if flag else -x


add("sci_vmap_bool_array_mapped", lambda: revsrc.vmap(bool_flag_fn)(np.array([1.0, 2.0, 3.0]), np.array([True, False, True])),
    lambda: np.array([1.0, -2.0, 9.0]), tol=0.0)
add("sci_vmap_grad_bool_array_mapped",
    lambda: revsrc.vmap(revsrc.grad(bool_flag_fn))(np.array([1.0, 2.0, 3.0]), np.array([True, False, True])),
    lambda: np.array([2.0, -1.0, 6.0]), tol=0.0)


def tuple_return(x):
    return math.sin(x), math.cos(x) * x, x > 0.5


add("sci_vmap_tuple_of_outputs_with_bool", lambda: revsrc.vmap(tuple_return)(CS / 4),
    lambda: (np.sin(CS / 4), np.cos(CS / 4) * CS / 4, CS / 4 > 0.5), tol=0.0)
add("sci_jit_tuple_return", lambda: revsrc.jit(tuple_return)(0.7), lambda: tuple_return(0.7), tol=0.0)


def gauss_legendre_3(a, b):
    nodes = (-math.sqrt(0.6), 0.0, math.sqrt(0.6))
    weights = (5.0 / 9.0, 8.0 / 9.0, 5.0 / 9.0)
    total = 0.0
    for t, w in zip(nodes, weights):
        x = 0.5 * (b - a) * t + 0.5 * (a + b)
        total += w * math.exp(-x * x)
    return 0.5 * (b - a) * total


add("sci_grad_quadrature_two_args", lambda: revsrc.grad(gauss_legendre_3, argnums=(0, 1))(0.1, 1.2),
    lambda: J().grad(jaxify(gauss_legendre_3), argnums=(0, 1))(0.1, 1.2))
add("sci_vmap_quadrature_in_axes_none", lambda: revsrc.vmap(revsrc.grad(gauss_legendre_3, argnums=1), in_axes=(None, 0))(0.0, CS),
    lambda: J().vmap(J().grad(jaxify(gauss_legendre_3), argnums=1), in_axes=(None, 0))(0.0, CS))


def hessian_two_scalars(x, y):
    return x * x * y + math.exp(x * y) - math.log(1.0 + y * y)


add("sci_hessian_argnums_two_scalars", lambda: revsrc.hessian(hessian_two_scalars, argnums=(0, 1))(0.3, 0.8),
    lambda: J().hessian(jaxify(hessian_two_scalars), argnums=(0, 1))(0.3, 0.8))
add("sci_jacfwd_scalar_pair", lambda: revsrc.jacfwd(hessian_two_scalars, argnums=(0, 1))(0.3, 0.8),
    lambda: J().jacfwd(jaxify(hessian_two_scalars), argnums=(0, 1))(0.3, 0.8))

# -- statistics ------------------------------------------------------------------------------------


def student_t_nll(params, y):
    mu, log_s, log_nu = params
    s, nu = np.exp(log_s), np.exp(log_nu)
    z = (y - mu) / s
    from_gamma = math.lgamma((nu + 1) / 2) - math.lgamma(nu / 2)
    return -np.sum(from_gamma - 0.5 * np.log(nu * np.pi) - log_s - (nu + 1) / 2 * np.log1p(z * z / nu))


YT = RNG.standard_t(4, size=20)
add("stat_student_t_tuple_params", lambda: revsrc.grad(student_t_nll)((0.1, -0.2, 1.0), YT),
    lambda: fd_grad(student_t_nll, ((0.1, -0.2, 1.0), YT), {}, 0), tol=1e-6)
add("stat_student_t_hessian_tuple", lambda: revsrc.hessian(student_t_nll)((0.1, -0.2, 1.0), YT),
    # the Hessian wrt a tuple is a tuple of tuples of blocks, as JAX gives it
    lambda: _blocks(fd_hess(lambda v, y: student_t_nll(tuple(v), y), (np.array([0.1, -0.2, 1.0]), YT), {}, 0, 1e-4)[0]),
    tol=1e-5)


def _blocks(H):
    return tuple(tuple(H[i, j] for j in range(H.shape[1])) for i in range(H.shape[0]))


def mixture_nll(p, y):
    w = 1.0 / (1.0 + np.exp(-p["logit"]))
    a = w * np.exp(-0.5 * (y - p["mu"][0]) ** 2) / np.sqrt(2 * np.pi)
    b = (1 - w) * np.exp(-0.5 * (y - p["mu"][1]) ** 2) / np.sqrt(2 * np.pi)
    return -np.sum(np.log(a + b))


PM = {"logit": 0.2, "mu": np.array([-1.0, 1.5])}
YM = np.concatenate([RNG.normal(-1, 1, 10), RNG.normal(1.5, 1, 10)])
add("stat_mixture_dict_grad", lambda: revsrc.grad(mixture_nll)(PM, YM), lambda: J().grad(jaxify(mixture_nll))(PM, YM))
add("stat_mixture_dict_hessian", lambda: revsrc.hessian(mixture_nll)(PM, YM),
    lambda: J().hessian(jaxify(mixture_nll))(PM, YM))


def gp_marginal(log_ell, X, y):
    ell = np.exp(log_ell)
    d = X[:, None] - X[None, :]
    K = np.exp(-0.5 * d * d / ell ** 2) + 0.1 * np.eye(X.shape[0])
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(K, y)
    return 0.5 * np.dot(y, alpha) + np.sum(np.log(np.diag(L)))


XG = np.linspace(0, 3, 8)
YGP = np.sin(XG)
add("stat_gp_marginal_cholesky_solve", lambda: revsrc.grad(gp_marginal)(0.1, XG, YGP),
    lambda: J().grad(jaxify(gp_marginal))(0.1, XG, YGP))
add("stat_vmap_gp_over_lengthscales",
    lambda: revsrc.vmap(revsrc.grad(gp_marginal), in_axes=(0, None, None))(np.array([-0.5, 0.0, 0.5]), XG, YGP),
    lambda: J().vmap(J().grad(jaxify(gp_marginal)), in_axes=(0, None, None))(np.array([-0.5, 0.0, 0.5]), XG, YGP))


def weighted_quantile_loss(x):
    return np.quantile(x, 0.25) + np.median(x) * 2.0


add("stat_quantile_median", lambda: revsrc.grad(weighted_quantile_loss)(np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.6])),
    lambda: J().grad(jaxify(weighted_quantile_loss))(np.array([3.0, 1.0, 4.0, 1.5, 9.0, 2.6])))

# -- physics with containers -----------------------------------------------------------------------

Body = collections.namedtuple("Body", ["pos", "vel", "mass"])


def two_body_energy(b1, b2):
    d = b1.pos - b2.pos
    r = np.sqrt(np.sum(d * d))
    kin = 0.5 * b1.mass * np.sum(b1.vel ** 2) + 0.5 * b2.mass * np.sum(b2.vel ** 2)
    return kin - b1.mass * b2.mass / r


B1 = Body(np.array([1.0, 0.0]), np.array([0.0, 0.5]), 2.0)
B2 = Body(np.array([-1.0, 0.2]), np.array([0.1, -0.5]), 1.0)
add("phys_namedtuple_two_argnums", lambda: revsrc.grad(two_body_energy, argnums=(0, 1))(B1, B2),
    lambda: J().grad(jaxify(two_body_energy), argnums=(0, 1))(B1, B2))
add("phys_namedtuple_jacfwd_documented", lambda: revsrc.jacfwd(two_body_energy)(B1, B2),
    lambda: J().jacfwd(jaxify(two_body_energy))(B1, B2))


def spring_chain_energy(x, k=10.0, rest=1.0):
    d = np.diff(x)
    return 0.5 * k * np.sum((d - rest) ** 2) + 0.1 * np.sum(x ** 4)


XCH = np.array([0.0, 1.1, 1.9, 3.2, 4.0])
add("phys_hessian_spring_chain_kw", lambda: revsrc.hessian(spring_chain_energy)(XCH, k=5.0),
    lambda: J().hessian(jaxify(spring_chain_energy))(XCH, k=5.0))
add("phys_hvp_spring_chain", lambda: revsrc.hvp(spring_chain_energy, (XCH,), (np.ones(5),)),
    lambda: J().jvp(J().grad(jaxify(spring_chain_energy)), (XCH,), (np.ones(5),))[1])


def lennard_jones(pos):
    n = pos.shape[0]
    e = 0.0
    for i in range(n):
        for j in range(i + 1, n):
            r2 = np.sum((pos[i] - pos[j]) ** 2)
            inv6 = 1.0 / r2 ** 3
            e = e + 4.0 * (inv6 * inv6 - inv6)
    return e


POS = np.array([[0.0, 0.0], [1.1, 0.1], [0.4, 1.0], [1.3, 1.2]])
add("phys_lennard_jones_forces", lambda: revsrc.grad(lennard_jones)(POS), lambda: J().grad(jaxify(lennard_jones))(POS))
add("phys_lennard_jones_hessian_4d", lambda: revsrc.hessian(lennard_jones)(POS),
    lambda: J().hessian(jaxify(lennard_jones))(POS), tol=1e-8)


def projectile_range(v0, angle, drag=0.05):
    x, y = 0.0, 0.0
    vx, vy = v0 * math.cos(angle), v0 * math.sin(angle)
    dt = 0.001
    while y >= 0.0:
        speed = math.sqrt(vx * vx + vy * vy)
        vx -= drag * speed * vx * dt
        vy -= (9.81 + drag * speed * vy) * dt
        x += vx * dt
        y += vy * dt
    return x


add("phys_projectile_while_memory", lambda: revsrc.grad(projectile_range, argnums=(0, 1), memory=512)(10.0, 0.7),
    lambda: J().grad(jaxify(projectile_range), argnums=(0, 1))(10.0, 0.7), tol=1e-9)
add("phys_projectile_vmap_angles",
    lambda: revsrc.vmap(revsrc.grad(projectile_range, argnums=1), in_axes=(None, 0))(10.0, np.array([0.3, 0.7, 1.0])),
    lambda: np.array([J().grad(jaxify(projectile_range), argnums=1)(10.0, a) for a in [0.3, 0.7, 1.0]]), tol=1e-9)
