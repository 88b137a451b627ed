"""Second derivatives through np.linalg.solve, np.linalg.det and np.linalg.slogdet
(issue 24's Kalman filter Hessian; a Gaussian process's log marginal likelihood).

The adjoints of solve (solve_grad_a, solve_grad_b), det (det_grad) and slogdet
(slogdet_grad, real matrices) had no
derivative of their own: a Hessian through a Kalman filter's likelihood was refused
with E104. Each is now differentiated: linear in its cotangent, the rest the
derivative of solve(a^T, .) and of inv(a)^T. Checked against central differences of
the (first-order, separately tested) gradient, along random directions, and against
JAX where it is installed."""
import numpy as np
import pytest

import revsrc

RNG = np.random.default_rng(24)
A0 = np.array([[2.0, 0.3, -0.1], [0.2, 1.5, 0.4], [0.1, -0.3, 1.8]])
B_VEC = np.array([0.5, -1.0, 2.0])
B_MAT = RNG.normal(size=(3, 2))


def _fd_hessian(f, x, h=1e-5):
    g = revsrc.grad(f)
    cols = []
    for e in np.eye(x.size):
        e = e.reshape(x.shape)
        cols.append(((g(x + h * e) - g(x - h * e)) / (2 * h)).ravel())
    return np.array(cols).T


def solve_vec(a):
    return np.sum(np.linalg.solve(a, B_VEC) ** 2)


def solve_mat(a):
    x = np.linalg.solve(a, B_MAT)
    return np.sum(x * x) + np.sum(np.tanh(x))


def solve_rhs(b):
    return np.sum(np.linalg.solve(A0, b) ** 3)


def det_poly(a):
    d = np.linalg.det(a)
    return d * d + np.log(d)


def det_batched(a):
    return np.sum(np.linalg.det(a) ** 2)


XS = np.linspace(0.0, 2.0, 6)
YS = np.sin(3.0 * XS)


def gp_nll(theta):
    """A Gaussian process's negative log marginal likelihood in (log length, log
    noise)."""
    ell = np.exp(theta[0])
    K = np.exp(-0.5 * (XS[:, None] - XS[None, :]) ** 2 / ell ** 2) + np.exp(theta[1]) * np.eye(6)
    sign, logdet = np.linalg.slogdet(K)
    return 0.5 * YS @ np.linalg.solve(K, YS) + 0.5 * logdet


def gp_nll_cholesky(theta):
    """The same likelihood through a Cholesky factor (as GP codes write it)."""
    ell = np.exp(theta[0])
    K = np.exp(-0.5 * (XS[:, None] - XS[None, :]) ** 2 / ell ** 2) + np.exp(theta[1]) * np.eye(6)
    L = np.linalg.cholesky(K)
    alpha = np.linalg.solve(L.T, np.linalg.solve(L, YS))
    return 0.5 * YS @ alpha + np.sum(np.log(np.diag(L)))


def cholesky_upper(a):
    U = np.linalg.cholesky(a @ a.T + np.eye(3), upper=True)
    return np.sum(U ** 3)


def cholesky_batched(a):
    L = np.linalg.cholesky(np.matmul(a, np.swapaxes(a, -1, -2)) + np.eye(3))
    return np.sum(np.sin(L))


def slogdet_batched(a):
    return np.sum(np.linalg.slogdet(a)[1] ** 2)


def kalman_nll(Q, ys=np.cumsum(np.random.default_rng(5).normal(size=(12, 1)) * 0.3, 0)):
    F = np.array([[1.0, 0.1], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    R = np.array([[0.25]])
    m = np.zeros(2)
    P = np.eye(2)
    nll = 0.0
    for t in range(12):
        m = F @ m
        P = F @ P @ F.T + Q
        S = H @ P @ H.T + R
        K = P @ H.T @ np.linalg.inv(S)
        v = ys[t] - H @ m
        nll = nll + 0.5 * (np.log(np.linalg.det(S)) + v @ np.linalg.solve(S, v))
        m = m + K @ v
        P = P - K @ S @ K.T
    return nll


CASES = [
    (solve_vec, A0),
    (solve_mat, A0),
    (solve_rhs, B_MAT),
    (det_poly, A0),
    (det_batched, np.stack([A0, A0.T + np.eye(3), 2.0 * A0])),
    (kalman_nll, np.diag([0.01, 0.02]) + 0.003),
    (gp_nll, np.array([-0.5, -2.0])),
    (slogdet_batched, np.stack([A0, A0.T + np.eye(3), -2.0 * A0])),
]
# cholesky: its adjoint's forward and reverse rules (cholesky_grad)
CHOLESKY = [
    (gp_nll_cholesky, np.array([-0.5, -2.0])),
    (cholesky_upper, A0),
    (cholesky_batched, np.stack([A0, 0.5 * A0.T])),
]


@pytest.mark.parametrize("f, x", CASES + CHOLESKY, ids=lambda c: getattr(c, "__name__", ""))
def test_hessian_matches_central_differences_of_the_gradient(f, x):
    H = revsrc.hessian(f)(x).reshape(x.size, x.size)
    want = _fd_hessian(f, x)
    scale = np.max(np.abs(want))
    np.testing.assert_allclose(H, want, rtol=1e-6, atol=1e-7 * scale)


@pytest.mark.parametrize("f, x", CASES + CHOLESKY, ids=lambda c: getattr(c, "__name__", ""))
def test_hvp_along_random_directions(f, x):
    g = revsrc.grad(f)
    h = 1e-5
    for seed in range(2):
        v = np.random.default_rng(seed).normal(size=x.shape)
        got = revsrc.hvp(f, (x,), (v,))
        want = (g(x + h * v) - g(x - h * v)) / (2 * h)
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7 * np.max(np.abs(want)))


def test_kalman_hessian_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    ys = np.cumsum(np.random.default_rng(5).normal(size=(12, 1)) * 0.3, 0)

    def nll_j(Q):
        F = jnp.array([[1.0, 0.1], [0.0, 1.0]])
        H = jnp.array([[1.0, 0.0]])
        R = jnp.array([[0.25]])
        m, P, nll = jnp.zeros(2), jnp.eye(2), 0.0
        for t in range(12):
            m = F @ m
            P = F @ P @ F.T + Q
            S = H @ P @ H.T + R
            K = P @ H.T @ jnp.linalg.inv(S)
            v = ys[t] - H @ m
            nll = nll + 0.5 * (jnp.log(jnp.linalg.det(S)) + v @ jnp.linalg.solve(S, v))
            m = m + K @ v
            P = P - K @ S @ K.T
        return nll

    Q = np.diag([0.01, 0.02]) + 0.003
    np.testing.assert_allclose(revsrc.hessian(kalman_nll)(Q),
                               np.asarray(jax.hessian(nll_j)(jnp.asarray(Q))),
                               rtol=1e-10, atol=1e-12)


def test_det_second_derivative_at_a_singular_matrix_is_refused():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.hessian(lambda a: np.linalg.det(a) ** 2)(singular)
    assert info.value.code == "E104"
    assert "singular" in str(info.value)


@pytest.mark.parametrize("f, x", CASES + CHOLESKY, ids=lambda c: getattr(c, "__name__", ""))
def test_reverse_over_reverse_matches_forward_over_reverse(f, x):
    """jacrev(grad(f)) goes through the adjoints' reverse rules; hessian(f) through
    their forward rules (checked against central differences above)."""
    H = revsrc.hessian(f)(x)
    np.testing.assert_allclose(revsrc.jacrev(revsrc.grad(f))(x), H, rtol=1e-10,
                               atol=1e-12 * np.max(np.abs(H)))


@pytest.mark.parametrize("f, x", CASES + CHOLESKY, ids=lambda c: getattr(c, "__name__", ""))
def test_grad_of_a_weighted_gradient_matches_central_differences(f, x):
    g = revsrc.grad(f)
    W = np.random.default_rng(7).normal(size=x.shape)

    def weighted(z):
        return np.sum(g(z) * W)

    got = revsrc.grad(weighted)(x)
    v = np.random.default_rng(8).normal(size=x.shape)
    h = 1e-5
    want = (weighted(x + h * v) - weighted(x - h * v)) / (2 * h)
    np.testing.assert_allclose(np.sum(got * v), want, rtol=1e-6, atol=1e-8 * abs(want))


def test_reverse_over_reverse_refuses_a_singular_det():
    singular = np.array([[1.0, 2.0], [2.0, 4.0]])
    f = lambda a: np.linalg.det(a) ** 2          # noqa: E731
    with pytest.raises(revsrc.RevsrcError) as info:
        revsrc.jacrev(revsrc.grad(f))(singular)
    assert info.value.code == "E104"


def test_gp_cholesky_hessian_matches_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def nll_j(theta):
        ell = jnp.exp(theta[0])
        K = jnp.exp(-0.5 * (XS[:, None] - XS[None, :]) ** 2 / ell ** 2) + \
            jnp.exp(theta[1]) * jnp.eye(6)
        L = jnp.linalg.cholesky(K)
        alpha = jnp.linalg.solve(L.T, jnp.linalg.solve(L, YS))
        return 0.5 * YS @ alpha + jnp.sum(jnp.log(jnp.diag(L)))

    theta = np.array([-0.5, -2.0])
    np.testing.assert_allclose(revsrc.hessian(gp_nll_cholesky)(theta),
                               np.asarray(jax.hessian(nll_j)(jnp.asarray(theta))),
                               rtol=1e-9, atol=1e-11)


def rts_smoother(q, ys=np.array([0.1, 0.5, 0.7, 1.4])):
    """A Kalman filter and a Rauch-Tung-Striebel smoother: the smoother's loop in
    reverse starts its covariance's adjoint as a number (0.0), which the forward
    derivative of a matrix product's adjoint received (matmul's ValueError)."""
    F = np.array([[1.0, 1.0], [0.0, 1.0]])
    H = np.array([[1.0, 0.0]])
    m, P = np.zeros(2), np.eye(2) * 10.0
    ms, Ps, mps, Pps = [], [], [], []
    for y in ys:
        mp = F @ m
        Pp = F @ P @ F.T + q * np.array([[1 / 3, 1 / 2], [1 / 2, 1.0]])
        S = H @ Pp @ H.T + np.array([[0.5]])
        K = np.linalg.solve(S, H @ Pp).T
        m = mp + K @ (np.array([y]) - H @ mp)
        P = Pp - K @ S @ K.T
        ms.append(m)
        Ps.append(P)
        mps.append(mp)
        Pps.append(Pp)
    msm, Psm = ms[-1], Ps[-1]
    total = np.sum(msm ** 2)
    for t in range(len(ys) - 2, -1, -1):
        G = np.linalg.solve(Pps[t + 1].T, (Ps[t] @ F.T).T).T
        msm = ms[t] + G @ (msm - mps[t + 1])
        Psm = Ps[t] + G @ (Psm - Pps[t + 1]) @ G.T
        total = total + np.sum((msm[0] - ys[t]) ** 2) + np.trace(Psm)
    return total


def test_hessian_of_a_smoother_whose_reverse_loop_starts_from_a_number():
    g = revsrc.grad(rts_smoother)
    h = 1e-5
    want = (g(0.3 + h) - g(0.3 - h)) / (2 * h)
    np.testing.assert_allclose(revsrc.hessian(rts_smoother)(0.3), want, rtol=1e-7)
