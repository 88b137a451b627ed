"""Keyword arguments: a rule sees its operands whatever way the call spells them.

The sweep takes every row of the rule table (tests/test_rules.py, which has a row
for every registered rule, so a rule added later is swept too), rewrites the row's
calls of primitives to pass their arguments by keyword (``np.dot(a=x, b=y)`` for
``np.dot(x, y)``) as far as the function's signature allows, and checks the gradient
and the forward-mode derivative of the rewritten row against central differences
and against the positional row. Then the spellings the sweep cannot write from a
row: NumPy 2's ``clip(min=, max=)``, ``correction=``, a keyword after a gap, keyword
arguments to Jacobians, Hessians and vmap, and the refusal of a keyword with no
position.
"""
import ast
import functools
import inspect
import linecache
import sys
import os

import numpy as np
import pytest

import revsrc
from revsrc import errors, primitives, rules
from revsrc.testing import check_grads, check_jvp

sys.path.insert(0, os.path.dirname(__file__))

import test_rules as table  # noqa: E402

K = np.array([0.9, 0.2, 0.6, 1.3])
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])


def _fd_grad(f, x, h=1e-6):
    return np.array([(f(x + h * e) - f(x - h * e)) / (2 * h) for e in np.eye(np.size(x))])


# ----- The sweep over the rule table -----

def _keyword_names(fn, nargs):
    """The names to pass ``fn``'s first ``nargs`` positional arguments by, from the
    first one that can be a keyword on (None: none can)."""
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        return None
    names = []
    for i in range(nargs):
        if i >= len(params) or params[i].kind is not params[i].POSITIONAL_OR_KEYWORD:
            names.append(None)
        else:
            names.append(params[i].name)
    start = nargs
    while start > 0 and names[start - 1] is not None:
        start -= 1
    return None if start == nargs else (start, names)


class _ToKeywords(ast.NodeTransformer):
    """Calls of primitives with positional arguments rewritten to keywords."""

    def __init__(self, env):
        self.env = env
        self.changed = False

    def visit_Call(self, node):
        self.generic_visit(node)
        if any(isinstance(a, ast.Starred) for a in node.args) or not node.args:
            return node
        try:
            fn = eval(compile(ast.Expression(node.func), "<fn>", "eval"), self.env)
        except Exception:
            return node
        prim = primitives.lookup(fn) if callable(fn) else None
        if prim is None or prim.nondiff or (prim.vjp is None and prim.jvp is None):
            return node
        found = _keyword_names(fn, len(node.args))
        if found is None:
            return node
        start, names = found
        given = {k.arg for k in node.keywords}
        moved = [ast.keyword(arg=n, value=a) for n, a in zip(names[start:], node.args[start:])]
        if any(k.arg in given for k in moved):
            return node
        node.args = node.args[:start]
        node.keywords = moved + node.keywords
        self.changed = True
        return node


_COUNT = [0]


def keyword_twin(fn):
    """``fn`` with its primitive calls passing arguments by keyword, or None when
    none of them can."""
    tree = ast.parse(inspect.getsource(fn))
    rewriter = _ToKeywords(fn.__globals__)
    tree = rewriter.visit(tree)
    if not rewriter.changed:
        return None
    tree.body[0].name = fn.__name__ + "_kw"
    ast.fix_missing_locations(tree)
    source = ast.unparse(tree) + "\n"
    _COUNT[0] += 1
    filename = f"<keyword twin {_COUNT[0]}: {fn.__name__}>"
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    namespace = dict(fn.__globals__)
    exec(compile(source, filename, "exec"), namespace)
    twin = namespace[fn.__name__ + "_kw"]
    return twin, source


def _rows():
    rules.load_optional()
    out = []
    for row in table.ROWS:
        twin = keyword_twin(row.fn)
        if twin is not None:
            out.append(pytest.param(row, twin, id=row.fn.__name__))
    return out


ROWS = _rows()


def test_the_sweep_covers_most_rules():
    """Most rows call a function whose arguments can be keywords (ufuncs cannot)."""
    assert len(ROWS) > 150, len(ROWS)


@pytest.mark.parametrize("row,twin", ROWS)
def test_grad_by_keyword_matches_finite_differences(row, twin):
    kw_fn, source = twin
    args = table._args(row, row.shapes[0], 100)
    nums = table._float_args(args)
    assert np.allclose(kw_fn(*args), row.fn(*args), equal_nan=True)
    check_grads(kw_fn, args, argnums=nums, rtol=row.rtol, atol=row.atol)
    by_keyword = revsrc.grad(kw_fn, argnums=nums)(*args)
    positional = revsrc.grad(row.fn, argnums=nums)(*args)
    for a, b in zip(by_keyword, positional):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12, err_msg=source)


@pytest.mark.parametrize("row,twin", ROWS)
def test_jvp_by_keyword_matches_finite_differences(row, twin):
    kw_fn, source = twin
    args = table._args(row, row.shapes[0], 100)
    nums = table._float_args(args)
    if row.jvp_refuses is not None:
        with pytest.raises(row.jvp_refuses):
            check_jvp(kw_fn, args, argnums=nums, rtol=row.rtol, atol=row.atol)
        return
    check_jvp(kw_fn, args, argnums=nums, rtol=row.rtol, atol=row.atol)


# ----- Spellings the sweep does not write -----

def clip_min_max(v):
    return np.sum(np.clip(K, min=v, max=1.0) ** 2)


def clip_method_one_bound(v):
    return np.sum(K.clip(v) ** 2)


def clip_method_max(v):
    return np.sum(K.clip(max=v) ** 2)


def std_correction(v):
    return np.std(v, correction=1) + np.var(a=v, correction=1)


def var_ddof_after_gap(v):
    # NumPy's out= sits between dtype= and ddof=: ddof stays a keyword
    return np.var(v, ddof=1) + np.std(v, axis=0, ddof=1)


def average_weights(v):
    return np.average(K, weights=v ** 2)


def dot_swapped(v):
    return np.sum(np.dot(b=v, a=np.outer(K, K)))


def sort_stable(v):
    return np.sum(np.sort(v, stable=True) * np.arange(4.0))


def sum_by_keyword(v):
    return np.sum(a=v ** 2, axis=0) + np.max(a=v) + np.linalg.norm(x=v)


def pad_value(v):
    return np.sum(np.pad(K, 1, constant_values=v[0]) ** 2)


SPELLED = [clip_min_max, clip_method_one_bound, clip_method_max, std_correction,
           var_ddof_after_gap, average_weights, dot_swapped, sort_stable, sum_by_keyword,
           pad_value]


@pytest.mark.parametrize("f", SPELLED, ids=[f.__name__ for f in SPELLED])
def test_spelled_by_keyword(f):
    expected = _fd_grad(f, X)
    np.testing.assert_allclose(revsrc.grad(f)(X), expected, rtol=1e-6, atol=1e-8)
    _, t = revsrc.jvp(f, (X,), (V,))
    np.testing.assert_allclose(t, expected @ V, rtol=1e-6, atol=1e-8)
    try:
        h = revsrc.hessian(f)(X)
    except errors.HigherOrderNotSupported:
        # second derivatives through np.std, np.average's and np.pad's rules are
        # refused by position too (E104, docs/refusals.md)
        assert f in (std_correction, var_ddof_after_gap, average_weights, pad_value)
        return
    np.testing.assert_allclose(h @ V, _fd_grad(
        lambda x: revsrc.grad(f)(x) @ V, X), rtol=1e-5, atol=1e-6)


def min_of_pairs(x):
    return min((x * x, 1.0), (x, 2.0))[0] + max((x, 0.5), (x * x, 0.0))[0]


@pytest.mark.parametrize("x", [0.5, 1.5])
def test_builtin_min_max_of_tuples_forward(x):
    d = (min_of_pairs(x + 1e-6) - min_of_pairs(x - 1e-6)) / 2e-6
    assert revsrc.jvp(min_of_pairs, (x,), (1.0,))[1] == pytest.approx(d, rel=1e-6)
    assert revsrc.grad(min_of_pairs)(x) == pytest.approx(d, rel=1e-6)
    h = (revsrc.grad(min_of_pairs)(x + 1e-6) - revsrc.grad(min_of_pairs)(x - 1e-6)) / 2e-6
    assert float(revsrc.hessian(min_of_pairs)(x)) == pytest.approx(h, abs=1e-5)


# ----- Keyword arguments to the derivatives themselves -----

def scaled(x, scale=1.0):
    return np.sin(x) * scale


def cubed(x, y=2.0):
    return x * x * x * y


def test_jacobians_take_keywords():
    expected = np.diag(np.cos(X) * 3.0)
    np.testing.assert_allclose(revsrc.jacfwd(scaled)(X, scale=3.0), expected)
    np.testing.assert_allclose(revsrc.jacrev(scaled)(X, scale=3.0), expected)
    assert revsrc.hessian(cubed)(2.0, y=3.0) == pytest.approx(36.0)
    h = revsrc.hessian(cubed, argnums=(0,))(2.0, y=3.0)
    assert h[0][0] == pytest.approx(36.0)


def test_vmap_takes_keywords_unmapped():
    xs = np.array([1.0, 2.0])
    np.testing.assert_allclose(revsrc.vmap(cubed)(xs, y=3.0), xs ** 3 * 3.0)


def keyword_only(x, *, y=2.0):
    return x * y


def test_keyword_only_parameter_is_refused_by_jacobians():
    with pytest.raises(errors.StaticValueError) as e:
        revsrc.jacfwd(keyword_only)(X, y=3.0)
    assert e.value.code == "E105"
    with pytest.raises(errors.StaticValueError):
        revsrc.vmap(keyword_only)(X, y=3.0)


def std_with_mean(v, w):
    return np.std(v, mean=w) * w


def test_differentiated_value_by_unnamed_keyword_is_refused():
    """np.std's mean= is keyword-only and the rule does not name it: no derivative could
    reach w, so it is refused rather than taken as constant (both modes)."""
    with pytest.raises(errors.NoRule, match="keyword 'mean'") as e:
        revsrc.grad(std_with_mean, argnums=1)(X, 0.5)
    assert e.value.code == "E202"
    with pytest.raises(errors.NoRule, match="keyword 'mean'"):
        revsrc.jvp(std_with_mean, (X, 0.5), (V, 1.0))


def sum_with_initial(v, w):
    return np.sum(v, initial=w) * w


def test_differentiated_value_by_a_keyword_the_rule_names():
    """np.sum's initial= (keyword-only) is named by its rule: w gets its derivative."""
    check_grads(sum_with_initial, (X, 0.5), argnums=(0, 1))
    check_jvp(sum_with_initial, (X, 0.5))
