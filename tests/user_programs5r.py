"""User programs, corpus 5r: helpers that change their caller's lists, arrays and dicts."""
import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


X = np.array([0.5, -1.0, 2.0, 1.5])


def add_to(lst, v):
    lst.append(v)


def helper_appends(x):
    hs = [x]
    add_to(hs, 2 * x)
    return sum(hs)


def scale_(a):
    a *= 2.0


def helper_inplace_array(x):
    y = x * 1.0
    scale_(y)
    return np.sum(y * x)


def set_first(a, v):
    a[0] = v
    return a


def helper_setitem_returns(x):
    y = x * 1.0
    z = set_first(y, x[1] ** 2)
    return np.sum(y * x) + np.sum(z)


def tuple_holds_list(x):
    hs = [x]
    t = (hs, 1.0)
    hs.append(x * x)
    return sum(t[0])


def default_list_nested(x):
    hs = [x]
    def g(acc=hs):
        return sum(acc)
    hs.append(2 * x)
    return g()


def helper_dict_update(d, v):
    d["k"] = v


def helper_dict(x):
    d = {"k": x}
    helper_dict_update(d, 3 * x)
    return d["k"] * x


def helper_slice_write(a):
    a[1:] = a[1:] * 3.0


def helper_view(x):
    y = x * 1.0
    helper_slice_write(y[1:])
    return np.sum(y * np.arange(1.0, 5.0))


add("mut_helper_appends", helper_appends, (1.5,))
add("mut_helper_inplace_array", helper_inplace_array, (X,))
add("mut_helper_setitem_returns", helper_setitem_returns, (X,))
add("mut_tuple_holds_list", tuple_holds_list, (1.5,))
add("mut_default_list_nested", default_list_nested, (1.5,))
add("mut_helper_dict", helper_dict, (1.5,))
add("mut_helper_view", helper_view, (X,))
