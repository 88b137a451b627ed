"""User programs, corpus 5q: lazy iterators and live dict views kept for later."""
from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def zip_kept(x):
    xs = [x, 2 * x]
    ys = [1.0, 3.0, 5.0]
    z = zip(xs, ys)
    xs.append(x * x)
    return sum(a * b for a, b in z)


add("lazy_zip_kept", zip_kept, (1.5,))


def items_view_live(x):
    d = {"a": x}
    items = d.items()
    d["b"] = x * x
    return sum(v for k, v in items)


add("lazy_items_view_live", items_view_live, (1.5,))


def values_view_live(x):
    d = {"a": x}
    vals = d.values()
    d["a"] = 3 * x
    return sum(vals)


add("lazy_values_view_live", values_view_live, (1.5,))


def iter_next(x):
    xs = [x, 2 * x, 3 * x]
    it = iter(xs)
    a = next(it)
    b = next(it)
    return a * b


add("lazy_iter_next", iter_next, (1.5,))


def gen_partial(x):
    g = (v * v for v in (x, 2 * x, 3 * x))
    first = next(g)
    return first * 10 + sum(g)


add("lazy_gen_partial", gen_partial, (1.5,))


def reversed_kept(x):
    xs = [x, 2 * x]
    r = reversed(xs)
    xs[0] = 5 * x
    return sum(v * i for i, v in enumerate(r))


add("lazy_reversed_kept", reversed_kept, (1.5,))


def enumerate_kept(x):
    xs = [x, 2 * x]
    e = enumerate(xs)
    xs[1] = 7 * x
    return sum(i * v for i, v in e)


add("lazy_enumerate_kept", enumerate_kept, (1.5,))


def keys_loop_modify(x):
    d = {"a": x, "b": 2 * x}
    for k in list(d):
        d[k] = d[k] * 2
    return d["a"] * d["b"]


add("lazy_keys_loop_modify", keys_loop_modify, (1.5,))


def setdefault_(x):
    d = {}
    d.setdefault("a", x)
    d.setdefault("a", 5 * x)
    return d["a"]


add("lazy_setdefault_", setdefault_, (1.5,))
add("lazy_items_view_live_value", items_view_live, (1.5,), t="vag")
add("lazy_values_view_live_value", values_view_live, (1.5,), t="vag")
