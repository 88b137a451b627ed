"""Round 14, part x: random draws inside differentiated functions -- a Generator argument
(the value and gradient from one draw, the generator advanced once), the legacy global
np.random state, reparameterised sampling in loops, under memory= (refused: E401) and
in long loops (checkpointing must not replay a different draw)."""
import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import VG, fdj

CASES = []
add = CASES.append


def reparam_loss(mu, rng):
    eps = rng.normal(size=3)
    z = mu + 0.5 * eps
    return np.sum(z ** 2)


MU = np.array([0.2, -0.4, 1.0])


def _vg_rng():
    rng = np.random.default_rng(7)
    v, g = revsrc.value_and_grad(reparam_loss)(MU, rng)
    after = rng.normal()
    return v, g, after


def _vg_rng_ref():
    rng = np.random.default_rng(7)
    eps = rng.normal(size=3)
    after = rng.normal()
    z = MU + 0.5 * eps
    return np.sum(z ** 2), 2 * z, after


add(pair("r14_x_generator_arg_value_grad_one_draw", _vg_rng, _vg_rng_ref, tol=1e-14))


def _vg_rng_twice():
    rng = np.random.default_rng(7)
    g = revsrc.grad(reparam_loss)
    a = g(MU, rng)
    b = g(MU, rng)
    return a, b


def _vg_rng_twice_ref():
    rng = np.random.default_rng(7)
    e1 = rng.normal(size=3)
    e2 = rng.normal(size=3)
    return 2 * (MU + 0.5 * e1), 2 * (MU + 0.5 * e2)


add(pair("r14_x_generator_arg_two_calls_two_draws", _vg_rng_twice, _vg_rng_twice_ref, tol=1e-14))


def legacy_global(mu):
    eps = np.random.normal(size=3)
    return np.sum((mu + eps) ** 2)


def _legacy():
    np.random.seed(3)
    g = revsrc.grad(legacy_global)(MU)
    after = np.random.rand()
    return g, after


def _legacy_ref():
    np.random.seed(3)
    eps = np.random.normal(size=3)
    after = np.random.rand()
    return 2 * (MU + eps), after


add(pair("r14_x_legacy_global_random_state", _legacy, _legacy_ref, tol=1e-14))


def sde_euler(theta, rng, n=60, dt=0.02):
    x = 1.0
    for _ in range(n):
        dw = rng.normal() * np.sqrt(dt)
        x = x - theta[0] * x * dt + theta[1] * dw
    return x * x


TH = np.array([0.7, 0.3])


def _sde_ref():
    rng = np.random.default_rng(11)
    dws = [rng.normal() * np.sqrt(0.02) for _ in range(60)]

    def f(th):
        x = 1.0
        for dw in dws:
            x = x - th[0] * x * 0.02 + th[1] * dw
        return x * x
    return fd_checked(f, (TH,))[0]


add(pair("r14_x_sde_euler_generator_loop", lambda: revsrc.grad(sde_euler)(TH, np.random.default_rng(11)), _sde_ref, tol=1e-7))
add(pair("r14_x_sde_euler_memory_refused_or_right", lambda: revsrc.grad(sde_euler, memory=2)(TH, np.random.default_rng(11)), _sde_ref, tol=1e-7))


def sde_long(theta, rng, n=400, dt=0.005):
    x = 1.0
    acc = 0.0
    for _ in range(n):
        dw = rng.normal() * np.sqrt(dt)
        x = x - theta[0] * x * dt + theta[1] * dw
        acc += x * x * dt
    return acc


def _sde_long_ref():
    rng = np.random.default_rng(5)
    dws = [rng.normal() * np.sqrt(0.005) for _ in range(400)]

    def f(th):
        x, acc = 1.0, 0.0
        for dw in dws:
            x = x - th[0] * x * 0.005 + th[1] * dw
            acc += x * x * 0.005
        return acc
    return fd_checked(f, (TH,))[0]


add(pair("r14_x_sde_long_loop_default_memory", lambda: revsrc.grad(sde_long)(TH, np.random.default_rng(5)), _sde_long_ref, tol=1e-7))
add(pair("r14_x_sde_long_jit_grad_refused_or_right", lambda: revsrc.jit(revsrc.grad(sde_long))(TH, np.random.default_rng(5)), _sde_long_ref, tol=1e-7))


def dropout_loss(w, x, rng, p=0.5):
    mask = rng.random(x.shape) > p
    h = np.where(mask, w * x / (1 - p), 0.0)
    return np.sum(h ** 2)


def _dropout_ref():
    rng = np.random.default_rng(2)
    mask = rng.random(3) > 0.5
    x = np.array([1.0, 2.0, 3.0])
    return np.where(mask, 2 * MU * (x / 0.5) ** 2, 0.0)


add(pair("r14_x_dropout_mask_from_generator", lambda: revsrc.grad(dropout_loss)(MU, np.array([1.0, 2.0, 3.0]), np.random.default_rng(2)), _dropout_ref, tol=1e-14))
add(pair("r14_x_vmap_grad_unmapped_generator",
         lambda: revsrc.vmap(revsrc.grad(reparam_loss), in_axes=(0, None))(np.stack([MU, MU]), np.random.default_rng(7)),
         lambda: (lambda r: np.stack([2 * (MU + 0.5 * r.normal(size=3)), 2 * (MU + 0.5 * r.normal(size=3))]))(np.random.default_rng(7)), tol=1e-14))



def plain_draw(mu, rng):
    eps = rng.normal(size=3)
    return np.sum((mu + eps) ** 2)


def _loop_plain():
    rng = np.random.default_rng(7)
    return np.array([plain_draw(m, rng) for m in np.stack([MU, MU])]), rng.normal()


def _vmap_plain():
    rng = np.random.default_rng(7)
    return revsrc.vmap(plain_draw, in_axes=(0, None))(np.stack([MU, MU]), rng), rng.normal()


# docs/guide/vmap.md: vmap gives exactly the digits of calling f on each element yourself
add(pair("r14_x_vmap_unmapped_generator_per_element", _vmap_plain, _loop_plain, tol=0.0))


def legacy_draw(mu):
    eps = np.random.normal(size=3)
    return np.sum((mu + eps) ** 2)


def _vmap_legacy():
    np.random.seed(1)
    return revsrc.vmap(legacy_draw)(np.stack([MU, MU]))


def _loop_legacy():
    np.random.seed(1)
    return np.array([legacy_draw(m) for m in np.stack([MU, MU])])


add(pair("r14_x_vmap_legacy_global_random", _vmap_legacy, _loop_legacy, tol=0.0))


def scalar_ar(th, rng):
    x = 1.0
    for _ in range(5):
        x = x * th + rng.normal()
    return x


def _vmap_scalar_ar():
    rng = np.random.default_rng(3)
    return revsrc.vmap(scalar_ar, in_axes=(0, None))(np.array([0.5, 0.5]), rng)


def _loop_scalar_ar():
    rng = np.random.default_rng(3)
    return np.array([scalar_ar(0.5, rng), scalar_ar(0.5, rng)])


add(pair("r14_x_vmap_scalar_loop_unmapped_generator", _vmap_scalar_ar, _loop_scalar_ar, tol=0.0))


def _grad_twice_same_rng():
    rng = np.random.default_rng(3)
    j = revsrc.jit(revsrc.grad(scalar_ar))
    return j(0.5, rng), j(0.5, rng)


def _grad_twice_same_rng_ref():
    rng = np.random.default_rng(3)
    out = []
    for _ in range(2):
        e = rng.normal(size=5)
        # x5 = th^5 + sum_k e_k th^(4-k): derivative 5 th^4 + sum_k (4-k) e_k th^(3-k)
        out.append(5 * 0.5 ** 4 + sum((4 - k) * e[k] * 0.5 ** (3 - k) for k in range(4)))
    return tuple(out)


add(pair("r14_x_jit_grad_generator_two_calls", _grad_twice_same_rng, _grad_twice_same_rng_ref, tol=1e-13))


def times_next(x, c):
    return x * next(c)


def _vmap_count():
    import itertools
    return revsrc.vmap(times_next, in_axes=(0, None))(np.array([1.0, 1.0, 1.0]), itertools.count(1))


add(pair("r14_x_vmap_unmapped_itertools_count", _vmap_count, lambda: np.array([1.0, 2.0, 3.0]), tol=0.0))
