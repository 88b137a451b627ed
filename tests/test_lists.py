"""Lists and dicts built inside differentiated functions: comprehensions, generator
expressions, append/extend/+=/+, item assignment (lists of lists too), dicts of
intermediates, builtins on lists; and the changes revsrc refuses because Python would
make them visible elsewhere (revsrc/containers.py).

Every function is checked against central differences in reverse and forward mode,
and its value against Python's.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads, check_jvp

RNG = np.random.default_rng(12)


def check_both(f, args, argnums=0, jvp=True):
    check_grads(f, args, argnums)
    value, _ = revsrc.value_and_grad(f, argnums)(*args)
    assert value == pytest.approx(f(*args), rel=1e-12, abs=1e-14)
    if jvp:
        check_jvp(f, args, argnums if isinstance(argnums, tuple) else (argnums,))


# ----- comprehensions ---------------------------------------------------------------

def list_comprehension(w, X):
    preds = [np.tanh(X @ (w * k)) for k in range(3)]
    return sum(np.sum(p) for p in preds)


def generator_of_products(ws, xs):
    return sum(w * x for w, x in zip(ws, xs))


def nested_with_condition(ell, xs):
    K = np.array([[math.exp(-(a - b) ** 2 / ell) for b in xs if b < 2.0] for a in xs])
    return np.sum(K) + sum(v for v in xs if v > 0.3 if v < 1.0) * ell


def two_loops_in_one(x):
    return sum(x[i] * x[j] for i in range(3) for j in range(i, 3))


def dict_comprehension(x):
    d = {k: x * i for i, k in enumerate(["a", "b", "c"])}
    return d["a"] + d["b"] * d["c"]


def shadows_an_outer_name(x):
    k = 10.0
    ys = [x * k for k in range(3)]        # its own k
    zs = [x * x for x in ys]              # iterates the outer x's list, its own x
    return sum(zs) + k * x


@pytest.mark.parametrize("f,args", [
    (list_comprehension, (RNG.normal(size=3), RNG.normal(size=(4, 3)))),
    (generator_of_products, (RNG.normal(size=4), RNG.normal(size=4))),
    (nested_with_condition, (1.3, [0.1, 0.5, 1.0, 2.5])),
    (two_loops_in_one, (RNG.normal(size=3),)),
    (dict_comprehension, (1.5,)),
    (shadows_an_outer_name, (0.7,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_comprehensions(f, args):
    check_both(f, args)


def test_a_comprehension_reads_as_a_loop():
    text = revsrc.source(revsrc.grad(generator_of_products), np.ones(3), np.ones(3))
    assert "for " in text and "_containers.append(" in text
    assert "# line" in text and "sum(w * x for w, x in zip(ws, xs))" in text


# ----- building lists ------------------------------------------------------------------

def append_then_array(v0, drag, n=30):
    xs = []
    x, v = 0.0, v0
    for _ in range(n):
        v = v - drag * v * abs(v) * 0.05 - 9.81 * 0.05
        x = x + v * 0.05
        xs.append(x)
    xs = np.array(xs)
    return np.sum(xs ** 2)


def concat_in_loop(W, xs):
    h = np.zeros(W.shape[0])
    hs = []
    for x in xs:
        h = np.tanh(W @ h + x)
        hs = hs + [h]
    return np.sum(np.vstack(hs) ** 2) + np.sum(np.stack(hs[::2]))


def plus_equals(a, b, ts):
    r = []
    for t in ts:
        r += [a * np.exp(-b * t)]
    r = np.array(r)
    return float(r @ r)


def _features(x):
    feats = [1.0]
    feats.extend([x, x ** 2])
    feats.extend((np.sin(x), np.cos(x)))
    return feats


def extend_in_a_helper(x):
    return np.sum(np.array(_features(x)) * np.arange(5.0))


def reversed_and_indexed(x):
    out = []
    g = 1.0
    for v in reversed(list(x)):
        g = g * 0.9 + v
        out.append(g)
    return out[0] * out[-1] + sum(out[1:3]) + len(out) * out[1]


def tuples_too(x):
    t = (x,)
    t = t + (x * x,)
    t += (3.0,)
    return t[0] * t[1] * t[2] + sum(t * 2)


def repeat_and_set(x):
    ys = [0.0] * 3
    for i in range(3):
        ys[i] = x[i] * ys[i - 1] + x[i]
    ys[1:3] = [ys[2], ys[1]]
    return sum(ys) + ys[0] * ys[2]


def two_names_one_list(x):
    xs = [x]
    ys = xs
    ys.append(x * x)                 # xs is the same list: it changes too
    return xs[-1] + len(xs) * ys[0]


def appends_to_a_list_a_helper_got(x):
    acc = [x]
    _push(acc, x * x)
    _push(acc, math.sin(x))
    return acc[0] * acc[1] + acc[2]


def _push(lst, v):
    lst.append(v)


@pytest.mark.parametrize("f,args", [
    (append_then_array, (3.0, 0.1)),
    (concat_in_loop, (RNG.normal(size=(3, 3)) * 0.5, [RNG.normal(size=3) for _ in range(4)])),
    (plus_equals, (1.2, 0.3, [0.1, 0.2, 0.5])),
    (extend_in_a_helper, (0.7,)),
    (reversed_and_indexed, (RNG.normal(size=4),)),
    (tuples_too, (0.6,)),
    (repeat_and_set, (RNG.normal(size=3),)),
    (appends_to_a_list_a_helper_got, (0.4,)),
    (two_names_one_list, (0.4,)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_building_lists(f, args):
    check_both(f, args)


def test_append_reads_as_a_new_list():
    text = revsrc.source(revsrc.grad(append_then_array), 3.0, 0.1)
    assert "xs = _containers.append(xs, x)" in text


# ----- lists of lists and dicts -----------------------------------------------------------

def list_of_lists(log_s1, log_s2, rho_raw):
    s1, s2 = np.exp(log_s1), np.exp(log_s2)
    rho = np.tanh(rho_raw)
    M = [[0.0, 0.0], [0.0, 0.0]]
    M[0][0] = s1 * s1
    M[1][1] = s2 * s2
    M[0][1] = rho * s1 * s2
    M[1][0] = M[0][1]
    return np.log(np.linalg.det(np.array(M)))


def comprehension_of_rows(x):
    M = [[0.0] * 3 for _ in range(3)]
    for i in range(3):
        for j in range(3):
            M[i][j] = x[i] * x[j] + i
    for row in M:
        row.append(1.0)
    return np.sum(np.array(M) ** 2)


def _forward(x, W, cache):
    cache["x"] = x
    cache["h"] = np.tanh(x @ W)
    cache["out"] = np.sum(cache["h"] ** 2)
    return cache["out"]


def dict_of_intermediates(W, x):
    cache = {}
    out = _forward(x, W, cache)
    return out + 1e-1 * np.sum(cache["h"] * cache["x"][0])


@pytest.mark.parametrize("f,args,argnums", [
    (list_of_lists, (0.1, -0.2, 0.3), (0, 1, 2)),
    (comprehension_of_rows, (RNG.normal(size=3),), 0),
    (dict_of_intermediates, (RNG.normal(size=(3, 3)), RNG.normal(size=3)), (0, 1)),
], ids=lambda v: getattr(v, "__name__", ""))
def test_lists_of_lists_and_dicts(f, args, argnums):
    check_both(f, args, argnums)


# ----- builtins on lists ------------------------------------------------------------------

def extremes(w, Ss):
    losses = [np.sum((S @ w - 1.0) ** 2) for S in Ss]
    worst = max(losses)
    best = min([losses[0], losses[1], losses[2]])
    return worst + 0.1 * best + min(w[0], w[1] * 2) + max(w)


def sorted_top(w, X, t, k=2):
    losses = [(x @ w - y) ** 2 for x, y in zip(X, t)]
    hardest = sorted(losses, reverse=True)[:k]
    return sum(hardest) + sorted(tuple(losses))[0]


@pytest.mark.parametrize("f,args", [
    (extremes, (RNG.normal(size=3), [RNG.normal(size=(3, 3)) for _ in range(3)])),
    (sorted_top, (RNG.normal(size=3), RNG.normal(size=(5, 3)), RNG.normal(size=5))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_builtins_on_lists(f, args):
    check_both(f, args)


def test_max_of_a_written_out_list_runs_on_the_engine():
    def f(a, b, c):
        return max([a * a, b * c, math.sin(c)]) + min((a, b))
    check_grads(f, (0.3, 1.2, -0.4), (0, 1, 2))
    assert revsrc.disassemble(revsrc.grad(f, (0, 1, 2)), 0.3, 1.2, -0.4)


# ----- what revsrc refuses, and why ---------------------------------------------------------

def appends_to_argument(x, xs):
    xs.append(x)
    return xs[0] * x


def stored_then_changed(x):
    row = [x]
    rows = [row, row]
    row.append(x)
    return rows[1][1]


def shared_rows(x):
    M = [[0.0] * 2] * 2          # one row, twice
    M[0][0] = x
    return M[1][0]


def rows_from_a_name(x):
    row = [0.0, 0.0]
    M = [row, [1.0, 1.0]]
    M[0][0] = x
    return row[0] + M[0][0]


def list_of_arrays_item_write(x):
    M = [np.zeros(2), np.zeros(2)]
    M[0][0] = x
    return np.sum(M[0])


def rebinds_a_list_to_an_array(x):
    ys = [x]
    for i in range(2):
        ys = ys + [x]
        ys = np.array(ys)
    return np.sum(ys)


@pytest.mark.parametrize("f,args,cls", [
    (appends_to_argument, (1.0, [2.0]), errors.MutatesArgument),
    (stored_then_changed, (1.0,), errors.UnfollowableWrite),
    (shared_rows, (1.0,), errors.UnfollowableWrite),
    (rows_from_a_name, (1.0,), errors.UnfollowableWrite),
    (list_of_arrays_item_write, (1.0,), errors.UnfollowableWrite),
    (rebinds_a_list_to_an_array, (1.0,), errors.UnfollowableWrite),
], ids=lambda v: getattr(v, "__name__", ""))
def test_changes_python_would_show_elsewhere_are_refused(f, args, cls):
    with pytest.raises(cls) as info:
        revsrc.grad(f)(*args)
    assert info.value.hint
    assert info.value.code in ("E403", "E404")


def test_the_changed_lists_python_semantics_hold_where_accepted():
    # the loop variable of a list of lists is the row itself: appending to it changes M
    M = comprehension_of_rows(np.array([1.0, 2.0, 3.0]))
    assert revsrc.value_and_grad(comprehension_of_rows)(np.array([1.0, 2.0, 3.0]))[0] == M


# ----- dicts' methods and dict() ------------------------------------------------------------

def dict_methods(x):
    d = {"b": np.sin(x), "a": x * x}
    total = 0.0
    for i, (k, v) in enumerate(sorted(d.items(), key=lambda kv: kv[0])):
        total = total + np.sum(v) * (i + 1.0)
    for v in d.values():
        total = total + np.sum(np.cos(v))
    for k in sorted(d.keys()):
        total = total + np.sum(d[k]) * len(k)
    return total + np.sum(d.get("a", 0.0)) + d.get("z", 2.0) * np.sum(x)


def dict_builtin(x):
    d = dict([("a", x), ("b", 2.0 * x)])
    e = dict(d)
    return np.sum(e["a"] * d["b"])


@pytest.mark.parametrize("f", [dict_builtin])
def test_dict_builtin(f):
    check_both(f, (RNG.normal(size=3),))


def test_dict_methods():
    x = RNG.normal(size=3)
    check_grads(dict_methods, (x,))
    value, _ = revsrc.value_and_grad(dict_methods)(x)
    assert value == pytest.approx(dict_methods(x), rel=1e-12)


def iterates_a_dict(x):
    d = {"a": x, "b": 2.0 * x, 3: x * x}
    t = 0.0
    for k in d:
        t = t + d[k] * (2.0 if k == "b" else 1.0)
    return t


def test_for_over_a_dict_walks_its_keys():
    check_both(iterates_a_dict, (1.5,))
