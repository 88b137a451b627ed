"""Round 20's findings (tests/user_programs20_*.py), as rules:

- jacfwd and hessian of a function at an empty array (no direction to push) give an
  empty Jacobian of the output's shape and the argument's, as jacrev and JAX do (an
  internal ValueError from np.stack before).
"""
import numpy as np
import pytest

import revsrc


def _total(x):
    return np.sum(x ** 2) + 1.0


def _double(x):
    return 2.0 * x


@pytest.mark.parametrize("backend", [None, "jax"])
@pytest.mark.parametrize("make, f, x, shape", [
    (revsrc.hessian, _total, np.zeros(0), (0, 0)),
    (revsrc.jacfwd, _double, np.zeros(0), (0, 0)),
    (revsrc.jacfwd, _total, np.zeros(0), (0,)),
    (revsrc.jacfwd, _double, np.zeros((0, 3)), (0, 3, 0, 3)),
    (revsrc.jacfwd, _double, np.zeros(0, np.float32), (0, 0)),
])
def test_jacobians_at_an_empty_array_are_empty(make, f, x, shape, backend):
    if backend == "jax":
        pytest.importorskip("jax")
    got = make(f, backend=backend)(x)
    assert np.shape(got) == shape
    if backend is None:
        assert np.asarray(got).dtype == x.dtype
    rev = revsrc.jacrev(f)(x) if make is revsrc.jacfwd else revsrc.jacrev(revsrc.grad(f))(x)
    assert np.shape(rev) == shape


def test_jacfwd_away_from_empty_is_unchanged():
    x = np.array([0.5, -1.5, 2.0])
    np.testing.assert_array_equal(revsrc.jacfwd(_double)(x), 2.0 * np.eye(3))
    np.testing.assert_allclose(revsrc.hessian(_total)(x), 2.0 * np.eye(3), rtol=1e-15)
