"""``backend="jax"`` under a memory bound (revsrc/backends/jax/segments.py): an
outermost rolled ``for`` loop whose saves would not fit runs in segments, each
recomputed from its snapshot in the adjoint's loop. The gradient is compared with the
stored JAX gradient with allclose (XLA may fuse the recomputed step otherwise, so
bit-for-bit equality is not promised there, though it usually holds) and with central
differences; the segments are seen to be used."""
import math
import pickle

import numpy as np
import pytest

import revsrc
from revsrc.testing import compare_grads

pytest.importorskip("jax")

from revsrc.backends.jax import segments  # noqa: E402


def rk2(y0, n):
    y = y0
    dt = 0.01
    for i in range(n):
        k1 = np.sin(y) * 0.5 - 0.1 * y
        k2 = np.sin(y + 0.5 * dt * k1) * 0.5 - 0.1 * (y + 0.5 * dt * k1)
        y = y + dt * k2 + 0.0001 * i
    return np.sum(y * y)


def scalar_rec(x, n):
    s = x
    for i in range(n):
        s = np.sin(s) * 1.1 + 0.001 * i
    return s * x


def two_loops(y0, n):
    y = y0
    for i in range(n):
        y = np.cos(y) * 0.9 + 0.01
    z = y * 2.0
    for j in range(2, n, 3):
        z = np.sin(z) * 1.01 + 0.001 * j
    return np.sum(z * y)


@pytest.fixture
def segmented(monkeypatch):
    """The (n, K) of every loop run in segments from now on."""
    seen = []
    real = segments.forward

    def spy(one, init, start, stride, n, k):
        seen.append((n, k))
        return real(one, init, start, stride, n, k)
    monkeypatch.setattr(segments, "forward", spy)
    return seen


@pytest.mark.parametrize("n", [0, 1, 31, 32, 33, 64, 97, 500, 1001])
def test_rolled_loop_in_segments(segmented, n):
    y0 = np.linspace(0.1, 0.6, 6)
    stored = revsrc.value_and_grad(rk2, backend="jax", memory=math.inf)(y0, n)
    for budget in (600, "4KB", 20000):
        got = revsrc.value_and_grad(rk2, backend="jax", memory=budget)(y0, n)
        assert np.allclose(got[0], stored[0], rtol=1e-13, atol=0)
        assert np.allclose(got[1], stored[1], rtol=1e-12, atol=1e-300)
    if n >= 97:
        assert any(m == n and k < n for m, k in segmented)


def test_segments_against_central_differences(segmented):
    ck = revsrc.grad(scalar_rec, backend="jax", memory=500)
    compare_grads(lambda x: scalar_rec(x, 300), lambda x: float(ck(x, 300)), (0.3,))
    assert segmented


def test_two_loops_and_a_step(segmented):
    y0 = np.linspace(-0.5, 0.5, 4)
    for n in (40, 301):
        stored = revsrc.grad(two_loops, backend="jax", memory=math.inf)(y0, n)
        got = revsrc.grad(two_loops, backend="jax", memory=800)(y0, n)
        assert np.allclose(got, stored, rtol=1e-12, atol=1e-300)
    assert len({s for s in segmented}) >= 2


def test_short_loop_keeps_its_rows(segmented):
    y0 = np.linspace(0.1, 0.6, 6)
    revsrc.grad(rk2, backend="jax")(y0, 500)          # the default bound: fits
    revsrc.grad(rk2, backend="jax", memory=math.inf)(y0, 500)
    assert segmented == []


def test_unit_sizes():
    assert segments.unit(1000, 10, 50, 8) is None          # fits in half
    assert segments.unit(1000, 100, 50, 8) == 10           # 10 rows a segment
    # 100 snapshots of 100 bytes would not fit: fewer, longer segments
    assert segments.unit(1000, 1000, 50, 100) == 200
    assert segments.unit(1000, 100, 50, 10 ** 6) is None   # no K fits: rows kept


def test_memory_accepted_and_pickled():
    y0 = np.linspace(0.1, 0.6, 6)
    ck = revsrc.grad(rk2, backend="jax", memory="4KB")
    again = pickle.loads(pickle.dumps(ck))
    assert again._revsrc_transformed.jax_memory == 4000
    assert np.allclose(again(y0, 300), ck(y0, 300), rtol=1e-13)
    plain = pickle.loads(pickle.dumps(revsrc.grad(rk2, memory=math.inf)))
    assert plain._revsrc_transformed.memory is None
    default = pickle.loads(pickle.dumps(revsrc.grad(rk2)))
    assert default._revsrc_transformed.memory == revsrc.grad(rk2)._revsrc_transformed.memory
    assert not default._revsrc_transformed.memory_given
