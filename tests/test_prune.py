"""grad on arrays does not compute the value it does not return (revsrc.prune)."""
import numpy as np
import pytest

import revsrc
from revsrc import runtime
from revsrc.passes import prune


def softplus_loss(w, X, y):
    z = np.dot(X, w)
    return np.mean(np.logaddexp(0.0, -y * z))


def value_feeds_adjoint(x):
    t = np.exp(x)
    return np.sum(t * t)


def with_aux(x):
    s = np.sum(np.tanh(x))
    return s * 2.0, s


def data(seed=0, n=200, d=4):
    r = np.random.default_rng(seed)
    return r.standard_normal(d), r.standard_normal((n, d)), np.sign(r.standard_normal(n))


def test_grad_skips_logaddexp_and_mean_value_and_grad_keeps_them():
    w, X, y = data()
    g_src = revsrc.source(revsrc.grad(softplus_loss), w, X, y)
    vg_src = revsrc.source(revsrc.value_and_grad(softplus_loss), w, X, y)
    assert "= np.logaddexp(" not in g_src and "result_like(np.logaddexp" in g_src
    assert "return (None, w_bar)" in g_src
    assert "= np.logaddexp(" in vg_src and "result_like" not in vg_src
    g = revsrc.grad(softplus_loss)(w, X, y)
    v, g2 = revsrc.value_and_grad(softplus_loss)(w, X, y)
    assert v == softplus_loss(w, X, y)           # the value: NumPy's, bit for bit
    np.testing.assert_array_equal(g, g2)         # the same adjoint either way
    m = -y * (X @ w)
    np.testing.assert_allclose(g, X.T @ (-y / (1.0 + np.exp(-m))) / len(y), rtol=1e-12)


def test_a_value_the_adjoint_reads_is_kept():
    x = np.linspace(-1.0, 1.0, 7)
    src = revsrc.source(revsrc.grad(value_feeds_adjoint), x)
    assert "np.exp(x)" in src                    # the adjoint reads exp(x)
    np.testing.assert_allclose(revsrc.grad(value_feeds_adjoint)(x), 2 * np.exp(2 * x),
                               rtol=1e-12)


def test_has_aux_keeps_what_aux_returns():
    x = np.linspace(-1.0, 1.0, 5)
    g, aux = revsrc.grad(with_aux, has_aux=True)(x)
    assert aux == np.sum(np.tanh(x))
    np.testing.assert_allclose(g, 2.0 * (1.0 - np.tanh(x) ** 2), rtol=1e-12)


def test_scalar_programs_are_not_pruned():
    import math

    def f(x):
        return math.sin(x) * x

    src = revsrc.source(revsrc.grad(f, backend="python"), 0.5)
    assert "return (_ret," in src


@pytest.mark.parametrize("fn, args, shape, dtype", [
    (np.logaddexp, (0.0, np.ones(3, np.float32)), (3,), np.float32),
    (np.multiply, (np.ones((2, 1)), np.ones(4)), (2, 4), np.float64),
    (np.true_divide, (np.ones(3, np.int64), 2), (3,), np.float64),
    (np.add, (np.ones(3, np.int32), 2), (3,), np.int32),
    (np.mean, (np.ones((3, 4), np.int64),), (), np.float64),
    (np.sum, (np.ones(5, np.float32),), (), np.float32),
])
def test_result_like_has_numpys_shape_and_dtype(fn, args, shape, dtype):
    out = runtime.result_like(fn, *args)
    want = fn(*args)
    assert out.shape == np.shape(want) == shape
    assert out.dtype == np.result_type(want) == dtype
    assert not out.flags.writeable


def test_result_like_refuses_what_numpy_refuses():
    with pytest.raises(ValueError):
        runtime.result_like(np.add, np.ones(3), np.ones(4))


# ----- accumulators added in place -----

def rnn_like(W, xs):
    h = np.zeros((3, 4))
    for t in range(5):
        h = np.tanh(np.dot(h, W) + xs[t])
    return np.sum(h * h)


def test_loop_accumulator_is_added_in_place_and_the_gradient_is_unchanged():
    from revsrc.testing import check_grads
    r = np.random.default_rng(1)
    W, xs = 0.5 * r.standard_normal((4, 4)), r.standard_normal((5, 3, 4))
    src = revsrc.source(revsrc.grad(rnn_like), W, xs)
    assert "W_bar = _kernels.accumulate(W_bar, " in src
    check_grads(rnn_like, (W, xs), argnums=0)
    g1 = revsrc.grad(rnn_like)(W, xs)
    g2 = revsrc.grad(rnn_like)(W, xs)
    np.testing.assert_array_equal(g1, g2)      # nothing left behind between calls
    assert g1 is not g2


def test_an_accumulator_read_elsewhere_is_left_alone():
    from revsrc.core.ir import Const, For, Op, Program
    import operator
    from revsrc.core import ir
    from revsrc.core.names import Names
    names = Names()
    names.reserve("a")
    assert names.bar("a") == "a_bar"      # an adjoint, as the namer knows
    body = [Op("a_bar", ir.copy, (Const(0.0),)),
            For("k", Const(0), Const(3), Const(1),
                [Op("a_bar", operator.add, ("a_bar", "t"))]),
            Op("b", operator.mul, ("a_bar", Const(2.0)))]
    prog = Program("f_adjoint", ["t"], body, [Const(None), "a_bar", "b"], {}, forward_len=0,
                   names=names)
    assert prune.accumulate_in_place(prog) is prog
    prog.body = body[:2]
    out = prune.accumulate_in_place(prog)
    assert out.body[1].body[0].fn is prune.runtime.accumulate


def test_runtime_accumulate_adds_in_place_only_when_it_may():
    from revsrc import runtime
    acc = np.ones((2, 3))
    t = np.full((2, 3), 0.5)
    same = runtime.accumulate(acc, t)
    assert same is acc and (acc == 1.5).all()
    row = runtime.accumulate(acc, np.ones(3))            # t broadcasts: a new array
    assert row is not acc and (row == 2.5).all() and (acc == 1.5).all()
    bigger = runtime.accumulate(np.ones(3), np.ones((2, 3)))
    assert bigger.shape == (2, 3)
    acc32 = np.ones(3, np.float32)
    up = runtime.accumulate(acc32, np.ones(3))            # float64 t: a new float64 array
    assert up is not acc32 and up.dtype == np.float64
    ro = np.ones(3)
    ro.flags.writeable = False
    assert runtime.accumulate(ro, np.ones(3)) is not ro
    first = runtime.accumulate(0.0, t)                    # the 0.0 start: a new array
    assert first is not t and (first == t).all()


# ----- optimize.first_accumulation: x_bar = t; x_bar = x_bar + u is x_bar = t + u -----

def _names_with_bar(var):
    from revsrc.core.names import Names
    names = Names()
    return names, names.bar(var)


def test_first_accumulation_fuses_a_copy_and_its_add():
    import operator
    from revsrc.core import ir
    from revsrc.passes import optimize
    names, d_bar = _names_with_bar("d")
    body = [ir.Op(d_bar, ir.copy, ("t",)), ir.Op("other", operator.neg, ("u",)),
            ir.Op(d_bar, operator.add, (d_bar, "u"))]
    out = optimize.first_accumulation(body, names)
    assert out == [body[1], ir.Op(d_bar, operator.add, ("t", "u"))]


@pytest.mark.parametrize("between", [
    "writes t",        # the copy's value would change
    "reads d_bar",     # the copy is read as it is
    "loop",            # d_bar read inside a loop
])
def test_first_accumulation_leaves_what_it_cannot_fuse(between):
    import operator
    from revsrc.core import ir
    from revsrc.passes import optimize
    names, d_bar = _names_with_bar("d")
    middle = {"writes t": ir.SetItem("t", ir.Const(0), "u"),
              "reads d_bar": ir.Op("y", operator.neg, (d_bar,)),
              "loop": ir.For("k", ir.Const(0), ir.Const(3), ir.Const(1),
                             [ir.Op("y", operator.neg, (d_bar,))])}[between]
    body = [ir.Op(d_bar, ir.copy, ("t",)), middle, ir.Op(d_bar, operator.add, (d_bar, "u"))]
    assert optimize.first_accumulation(body, names) == body
