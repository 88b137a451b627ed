"""User programs, corpus 5x: backend="jax" in forward mode; SciPy solvers called inside a loss."""
import numpy as np

from user_programs5_harness import case
from user_programs5v import X, V, g_select, g_average_w, k_linspace_kw, k_dot_kw

try:
    import scipy.integrate
    import scipy.optimize
except ImportError:  # pragma: no cover
    scipy = None

CASES = []
J = ("jax",)


def _jvp_jax(f):
    def run():
        import revsrc
        from user_programs5_harness import fd_grad
        t = float(revsrc.jvp(f, (X,), (V,), backend="jax")[1])
        return t, float(np.sum(fd_grad(f, (X,), {}, 0)[0] * V))
    return run


CASES.append(case("jax_jvp_select_default", _jvp_jax(g_select), t="custom", tol=1e-5, needs=J))
CASES.append(case("jax_jvp_average_weights", _jvp_jax(g_average_w), t="custom", tol=1e-5, needs=J))
CASES.append(case("jax_jvp_linspace_stop_kw", _jvp_jax(k_linspace_kw), t="custom", tol=1e-5, needs=J))
CASES.append(case("jax_jvp_dot_b_kw", _jvp_jax(k_dot_kw), t="custom", tol=1e-5, needs=J))


def quad_integral(a):
    val, err = scipy.integrate.quad(lambda t: np.exp(-a * t * t), 0.0, 1.0)
    return val


CASES.append(case("scipy_quad_inside_loss", quad_integral, (0.7,), needs=("scipy",)))


def brentq_root(a):
    return scipy.optimize.brentq(lambda t: t ** 3 - a, 0.0, 5.0, xtol=1e-14)


CASES.append(case("scipy_brentq_inside_loss", brentq_root, (2.0,), needs=("scipy",)))


def solve_ivp_decay(k):
    sol = scipy.integrate.solve_ivp(lambda t, y: -k * y, (0.0, 1.0), [1.0], rtol=1e-10, atol=1e-12)
    return sol.y[0, -1]


CASES.append(case("scipy_solve_ivp_inside_loss", solve_ivp_decay, (0.7,), needs=("scipy",)))


def hand_newton_root(a):
    t = 1.0
    for _ in range(30):
        t = t - (t ** 3 - a) / (3 * t * t)
    return t


# the implicit-function derivative d/da a^(1/3) = 1 / (3 a^(2/3)), by unrolling
CASES.append(case("hand_written_newton_root", hand_newton_root, (2.0,), ref=lambda: [1.0 / (3 * 2.0 ** (2 / 3))]))
