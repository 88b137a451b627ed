"""The batching rules, record by record (revsrc/rules/batching.py, passes/batching.py,
runtime/batched.py): every callable with a batching form, called as one statement of a
program, batched with its operands batched and unbatched in every combination, against
a Python loop of the unbatched call.

A batched form must give, for each example, what the call gives on that example's
operands, and it must give it with the batch axis in front even where the result does
not read the batched operand (the adjoint of a broadcast for an unbatched adjoint: a
soft-rank loss's Hessian once came out wrong that way, since a value of the example's
shape read as a batch whenever the example's first axis had the batch's size). So the
examples here have first axes of the batch's size, N.

Equal bit for bit, or to 1e-12 where the batched form uses a different kernel (BLAS
for a stack of products, NumPy's loop for a ``math`` function).
"""
import builtins
import itertools
import operator

import numpy as np
import pytest

import revsrc
from revsrc import primitives, runtime
from revsrc.backends import python as emit
from revsrc.core import ir
from revsrc.core.ir import Const, Op
from revsrc.passes import batching
from revsrc.runtime import tensor
from revsrc.runtime.grads import elementwise, linalg, reductions

N = 3                        # the batch; also the first axis of most examples (the trap)
RNG = np.random.default_rng(25)


class Data:
    """An operand of the call that the test batches or not: ``make(rng)`` gives one
    example's value."""

    def __init__(self, make):
        self.make = make


def floats(shape, lo=0.2, hi=0.8):
    if shape == "number":
        return Data(lambda r: float(r.uniform(lo, hi)))
    return Data(lambda r: r.uniform(lo, hi, size=shape))


def ints(shape, lo=1, hi=5):
    if shape == "number":
        return Data(lambda r: int(r.integers(lo, hi)))
    return Data(lambda r: r.integers(lo, hi, size=shape))


def bools(shape):
    if shape == "number":
        return Data(lambda r: bool(r.integers(0, 2)))
    return Data(lambda r: r.integers(0, 2, size=shape).astype(bool))


def _program(fn, args, kwargs):
    """A program of one statement, ``r = fn(*args, **kwargs)``: a parameter for each
    `Data` operand, a constant for the rest; a sequence of operands (``np.stack``'s)
    is a tuple the program builds."""
    params, body = [], []

    def operand(a):
        if isinstance(a, Data):
            params.append(f"p{len(params)}")
            return params[-1]
        if isinstance(a, list) and any(isinstance(v, Data) for v in a):
            items = tuple(operand(v) for v in a)
            name = f"s{len(body)}"
            body.append(Op(name, ir.make_tuple, items))
            return name
        return Const(a)
    ops = tuple(operand(a) for a in args)
    kw = tuple((k, operand(v)) for k, v in kwargs.items())
    body.append(Op("r", fn, ops, kw))
    return ir.Program("one_call", params, body, ["r"], {})


def _data(args, kwargs):
    out = []
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, Data):
            out.append(a)
        elif isinstance(a, list):
            out.extend(v for v in a if isinstance(v, Data))
    return out


def _fill(args, kwargs, values):
    """The call's operands with each `Data` replaced by its value, in order."""
    it = iter(values)

    def one(a):
        if isinstance(a, Data):
            return next(it)
        if isinstance(a, list) and any(isinstance(v, Data) for v in a):
            return [one(v) for v in a]
        return a
    return [one(a) for a in args], {k: one(v) for k, v in kwargs.items()}


def _copy(v):
    return v.copy() if isinstance(v, np.ndarray) else v


def check_call(fn, args, kwargs=None, masks=None, exact=False):
    """``fn(*args, **kwargs)`` batched over N examples, once per combination of its
    `Data` operands batched (True) or the same for all (False), against the loop."""
    kwargs = kwargs or {}
    data = _data(args, kwargs)
    prog = _program(fn, args, kwargs)
    for mask in masks or itertools.product((False, True), repeat=len(data)):
        if not any(mask):
            continue
        lanes = [[d.make(RNG) for _ in range(N)] if z else d.make(RNG)
                 for d, z in zip(data, mask)]
        want = []
        for i in range(N):
            vals = [_copy(v[i]) if z else _copy(v) for v, z in zip(lanes, mask)]
            a, kw = _fill(args, kwargs, vals)
            want.append(fn(*a, **kw))
        bprog, zs = batching.batch_program(prog, tuple(mask))
        run, _ = emit.compile_program(bprog)
        operands = [np.array(v) if z else _copy(v) for v, z in zip(lanes, mask)]
        got = run(*operands, N)[0]
        if isinstance(zs[0], tuple):       # a tuple: each item batched or not
            got = tuple(g if z else np.stack([g] * N) for g, z in zip(got, zs[0]))
        where = f"{getattr(fn, '__name__', fn)} batched as {mask}"
        assert zs == [tuple(mask) if fn is ir.make_tuple else True], where
        _same(got, want, where, exact)


def _same(got, want, where, exact):
    if isinstance(want[0], tuple):
        assert isinstance(got, tuple) and len(got) == len(want[0]), where
        for k in range(len(got)):
            _same(got[k], [w[k] for w in want], where, exact)
        return
    want = np.stack([np.asarray(w) for w in want])
    got = np.asarray(got)
    assert got.shape == want.shape, (where, got.shape, want.shape)
    assert got.dtype == want.dtype, (where, got.dtype, want.dtype)
    if exact or want.dtype.kind not in "fc":
        np.testing.assert_array_equal(got, want, err_msg=where)
    else:
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=where)


# ----- the elementwise family: every record of that form, found from the table -----

def _aliases(form):
    seen, out = set(), []
    for p in primitives.records():
        for a in p.aliases:
            if batching.form_of(a.fn) == form and id(a.fn) not in seen:
                seen.add(id(a.fn))
                out.append(a.fn)
    return out


def _is_math(fn):
    return getattr(fn, "__module__", None) == "math" or primitives.family_of(fn) == "math"


_DOMAINS = [lambda s: floats(s), lambda s: floats(s, 1.2, 2.0), lambda s: ints(s),
            bools]
_SPECIAL = {np.ldexp: (floats, ints)}


def _works(fn, makers, shape):
    try:
        with np.errstate(all="raise"):
            v = fn(*(m(shape).make(RNG) for m in makers))
    except Exception:
        return False
    return isinstance(v, (np.ndarray, float, int, bool, np.generic))


def _signature(fn):
    """(a maker of each operand, whether they may be arrays) that ``fn`` takes
    without a warning and gives an array or number for: the first that works."""
    if fn in _SPECIAL:
        return list(_SPECIAL[fn]), True
    arities = [fn.nin] if isinstance(fn, np.ufunc) else [2, 1, 3, 4]
    for k in arities:
        for dom in _DOMAINS:
            makers = [dom] * k
            if _works(fn, makers, "number"):
                return makers, not _is_math(fn) and _works(fn, makers, (3,))
    raise AssertionError(f"no operands found for {fn}")


def _shape_sets(k):
    yield [()] * k
    yield [(N,)] * k
    yield [(N, 4)] + [(4,)] * (k - 1)
    yield [(4,)] + [(N, 1)] * (k - 1)
    yield [()] + [(N,)] * (k - 1)


ELEMENTWISE = _aliases("elementwise")


def _name(fn):
    return f"{getattr(fn, '__module__', '') or ''}.{getattr(fn, '__name__', fn)}"


@pytest.mark.parametrize("fn", ELEMENTWISE, ids=[_name(f) for f in ELEMENTWISE])
def test_elementwise_records(fn):
    makers, arrays = _signature(fn)
    check_call(fn, [m("number") for m in makers])
    if not arrays:       # math.exp and the like: numbers only
        return
    for shapes in _shape_sets(len(makers)):
        if fn is np.full_like:
            shapes = [shapes[0], ()]       # its fill value is a number
        operands = [m(s) for m, s in zip(makers, shapes)]
        if _works(fn, [lambda _, o=o: o for o in operands], None):   # else per example too
            check_call(fn, operands)


# ----- the other forms: a row per record, over the axes and indices each takes ------

def _reduction_rows():
    for fn in _aliases("reduction"):
        for shape in [(N,), (N, 4), (2, N, 4)]:
            r = len(shape)
            for axis in [None, 0, -1, (0, -1) if r > 1 else (0,)]:
                for kd in (False, True):
                    yield fn, [floats(shape)], {"axis": axis, "keepdims": kd}
            yield fn, [floats(shape), -1], {}        # the axis positional
    yield np.var, [floats((N, 4))], {"axis": 1, "ddof": 1}


def _product_rows():
    pairs = [((N,), (N,)), ((N, 4), (4,)), ((4,), (4, N)), ((N, 4), (4, N)),
             ((2, N, 4), (4,)), ((N, 4), (2, 4, N))]
    for fn in _aliases("matmul") + _aliases("dot"):
        for sa, sb in pairs:
            yield fn, [floats(sa), floats(sb)], {}
    yield np.dot, [floats(()), floats((N, 4))], {}
    for sa, sb, sg in [((N, 4), (4, 2), (N, 2)), ((4,), (4, N), (N,)),
                       ((N, 4), (4,), (N,)), ((4,), (4,), ())]:
        for fn in (linalg.matmul_grad_a, linalg.matmul_grad_b):
            yield fn, [floats(sg), floats(sa), floats(sb)], {}


def _index_rows():
    x = floats((N, 4))
    for idx in [(slice(None), None), (None, slice(None)), 0, -1, (Ellipsis, None),
                (slice(1, None), np.array([0, 2])), np.array([True, False, True]),
                (0, np.array([1, 2])), (slice(None, None, -1), -2), (None, 1, None)]:
        yield operator.getitem, [x, idx], {}
    cube = floats((N, 4, 5))
    for idx in [(np.array([0, 2]), slice(None), 0), (np.array([0, 2]), None, 1),
                (slice(None), np.array([1, 3]), np.array([0, 4])), (1, slice(None), [0, 3])]:
        yield operator.getitem, [cube, idx], {}
    yield operator.getitem, [x, ints((2,), 0, N)], {}           # an index per example
    yield operator.getitem, [floats((N,)), ints((), 0, N)], {}


def _shape_rows():
    x, cube = floats((N, 4)), floats((2, N, 4))
    for shape in [(12,), (-1,), (4, N), (2, -1, 2)]:
        yield np.reshape, [x, shape], {}
    yield np.reshape, [x, (4, N)], {"order": "F"}
    for axes in [None, (1, 0), (-1, 0)]:
        yield np.transpose, [x, axes], {}
    for axes in [(2, 0, 1), (-1, -3, -2)]:
        yield np.transpose, [cube, axes], {}
    for fn in _aliases("joined"):
        for axis in [0, 1, -1]:
            yield fn, [[floats((N, 4)), floats((N, 4))]], {"axis": axis}
    for spec, shapes in [("ij,j->i", [(N, 4), (4,)]), ("ij,jk->ik", [(N, 4), (4, N)]),
                         ("i,i->", [(N,), (N,)]), ("ij->ji", [(N, 4)]),
                         ("ij,ik->jk", [(N, 4), (N, 2)])]:
        yield np.einsum, [spec] + [floats(s) for s in shapes], {}


def _sweep_rows():
    """The run-time helpers that the reverse and forward sweeps call."""
    for sg, sx in [((N, 4), (4,)), ((N, 4), (1, 4)), ((N, 4), (N, 1)), ((N, 4), ()),
                   ((N, 4), (N, 4)), ((N,), ())]:
        yield tensor.unbroadcast, [floats(sg), floats(sx)], {}
    for axis, kd, sg in [(None, False, ()), (0, False, (4,)), (-1, True, (N, 1)),
                         ((0, 1), False, ())]:
        yield reductions.broadcast_reduced, [floats(sg), floats((N, 4)), axis, kd], {}
        yield reductions.mean_grad, [floats(sg), floats(sg), floats((N, 4)), axis, kd], {}
    yield runtime.result_like, [np.add, floats((N, 4)), floats((4,))], {}
    yield runtime.result_like, [np.less, floats((N,)), floats(())], {}
    yield runtime.result_like, [np.sum, floats((N, 4))], {}
    yield builtins.float, [floats(())], {}
    for st in [(), (4,), (N, 4)]:
        yield runtime.broadcast_like, [floats(st), floats((N, 4))], {}
    for sg, sx in [((N, 4), (N, 4)), ((), (N, 4)), ((4,), (N, 4)), ((), ())]:
        yield runtime.finalize_grad, [floats(sg), floats(sx)], {}
    yield ir.copy, [floats((N,))], {}
    yield ir.make_tuple, [floats((N,)), floats(())], {}
    for sg, sx in [((N, 4), (N, 4)), ((N, 4), (4,)), ((N,), ())]:
        # Re(g) (abs()'s rule): x gives only the kind
        yield elementwise.real_grad, [floats(sg), floats(sx)], {}
        yield elementwise.real_grad, [_complexes(sg), floats(sx)], {}


def _complexes(shape):
    return Data(lambda r: r.uniform(0.2, 0.8, size=shape) + 1j * r.uniform(size=shape))


ROWS = list(_reduction_rows()) + list(_product_rows()) + list(_index_rows()) + \
    list(_shape_rows()) + list(_sweep_rows())


def _row_id(row):
    fn, args, kw = row
    statics = [a for a in args if not isinstance(a, (Data, list))] + list(kw.values())
    return _name(fn) + repr(statics).replace(" ", "")[:60]


@pytest.mark.parametrize("row", ROWS, ids=[_row_id(r) for r in ROWS])
def test_form_rows(row):
    fn, args, kwargs = row
    check_call(fn, args, kwargs)


def test_what_a_batch_cannot_take_at_once():
    # a list the program builds: per example, by the caller
    with pytest.raises(batching.PerLane):
        check_call(ir.make_list, [floats((N,)), floats(())])
    # float of an array raises for the batch as for one example
    with pytest.raises(TypeError):
        float(np.ones(1))
    with pytest.raises(TypeError):
        check_call(builtins.float, [floats((1,))])


def test_every_record_with_a_batching_form_has_a_row():
    covered = {id(f) for f in ELEMENTWISE} | {id(r[0]) for r in ROWS} | {id(ir.make_list)}
    for p in primitives.records():
        for a in p.aliases:
            if primitives.fact(a.fn, "batch") is not None:
                assert id(a.fn) in covered, _name(a.fn)


# ----- through revsrc.vmap: random axes in and out -----------------------------------

def _f_mix(x, y):
    s = (x[:, None] - x[None, :]) * y[0]
    return np.sum(s, axis=-1, keepdims=True) - np.mean(s) + x[:, None] @ y[None, :1]


def _f_grad_sweep(x, y):
    r = (x[:, None] * y[None, :]).sum(axis=1)
    r = r - r.mean()
    return np.sum(r ** 3) + np.dot(r, y[:N]) * np.max(y)


@pytest.mark.parametrize("f", [_f_mix, _f_grad_sweep, revsrc.grad(_f_grad_sweep),
                               revsrc.grad(_f_grad_sweep, argnums=1)])
def test_random_axes_against_the_loop(f):
    rng = np.random.default_rng(5)
    for trial in range(6):
        ax = [rng.choice([None, 0, 1, -1]) for _ in range(2)]
        if all(a is None for a in ax):
            ax[trial % 2] = -1
        x, y = rng.normal(size=N), rng.normal(size=N + 1)
        xs = np.moveaxis(rng.normal(size=(N, N)), 0, ax[0]) if ax[0] is not None else x
        ys = np.moveaxis(rng.normal(size=(N, N + 1)), 0, ax[1]) \
            if ax[1] is not None else y
        out_axis = int(rng.choice([0, -1]))
        got = revsrc.vmap(f, in_axes=tuple(ax), out_axes=out_axis)(xs, ys)
        lanes = [f(np.take(xs, i, axis=ax[0]) if ax[0] is not None else x,
                   np.take(ys, i, axis=ax[1]) if ax[1] is not None else y)
                 for i in range(N)]
        want = np.stack([np.asarray(v) for v in lanes], axis=out_axis)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12,
                                   err_msg=f"in_axes={ax} out_axes={out_axis}")


# ----- tuples batched as a whole: the stacked results of a per-example call ----------

def _f_divmod(a, b):
    t = np.divmod(a, b)                  # no batching form: per example, a tuple
    return np.concatenate(t, axis=None) * 1.0


def _f_counter_index(x, y, k):
    t = (y, x, y)
    s = 0.0
    for i in range(k):                   # the counter reads items batched and not
        s = s + t[i] * (i + 1.0)
    return s


@pytest.mark.parametrize("n", [2, 3])
def test_a_tuple_of_stacked_results_is_batched_item_by_item(n, monkeypatch):
    from revsrc import vmapped

    def no_fallback(*_):
        raise AssertionError("ran per example: the batched program failed")
    monkeypatch.setattr(vmapped.ArrayMap, "_per_lane", no_fallback)
    rng = np.random.default_rng(n)
    a, b = rng.uniform(1, 5, size=(n, n + 1)), rng.uniform(1, 2, size=(n, n + 1))
    np.testing.assert_array_equal(revsrc.vmap(_f_divmod)(a, b),
                                  np.stack([_f_divmod(x, y) for x, y in zip(a, b)]))
    x, y = rng.normal(size=(n, n)), rng.normal(size=n)
    mapped = revsrc.vmap(_f_counter_index, in_axes=(0, None, None))
    np.testing.assert_array_equal(mapped(x, y, 3),
                                  np.stack([_f_counter_index(v, y, 3) for v in x]))


def test_named_tuples_stack_and_split():
    from revsrc.runtime import batched
    s = RNG.normal(size=(2, 2, 2))
    s = s + np.swapaxes(s, 1, 2)
    out = batched.loop(np.linalg.eigh, 2, (True,), {}, s)
    assert type(out) is type(np.linalg.eigh(s[0]))
    for i in range(2):
        one = batched.lane(out, True, i)
        assert type(one) is type(out)
        for got, want in zip(one, np.linalg.eigh(s[i])):
            np.testing.assert_array_equal(got, want)
