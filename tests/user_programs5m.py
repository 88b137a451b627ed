"""User programs, corpus 5m: Python lists: copies by slicing, aliases, list methods."""
import copy

import numpy as np

from user_programs5_harness import case

CASES = []


def add(*a, **k):
    CASES.append(case(*a, **k))


def slice_copy_write(x):
    xs = [x, 2 * x]
    ys = xs[:]                 # a copy: writing ys leaves xs alone
    ys[0] = 5 * ys[0]
    return xs[0] + ys[0]


add("list_full_slice_is_a_copy", slice_copy_write, (1.5,))
add("list_full_slice_is_a_copy_value", slice_copy_write, (1.5,), t="vag")


def tail_slice_write(x):
    xs = [x, 2 * x, 3 * x]
    ys = xs[1:]
    ys[0] = 5 * ys[0]
    return xs[1] + ys[0]


add("list_tail_slice_is_a_copy", tail_slice_write, (1.5,))


def list_ctor_copy(x):
    xs = [x, 2 * x]
    ys = list(xs)
    ys[0] = 5 * ys[0]
    return xs[0] + ys[0]


add("list_constructor_copy", list_ctor_copy, (1.5,))


def list_method_copy(x):
    xs = [x, 2 * x]
    ys = xs.copy()
    ys[0] = 5 * ys[0]
    return xs[0] + ys[0]


add("list_copy_method", list_method_copy, (1.5,))


def write_original_after_copy(x):
    xs = [x, 2 * x]
    ys = xs[:]
    xs[0] = 7 * x
    return ys[0] + xs[0]


add("list_write_original_after_slice_copy", write_original_after_copy, (1.5,))


def slice_copy_append(x):
    xs = [x, 2 * x]
    ys = xs[:]
    ys.append(x)
    return len(xs) * x + ys[-1]


add("list_slice_copy_then_append", slice_copy_append, (1.5,))


def slice_copy_iadd(x):
    xs = [x, 2 * x]
    ys = xs[:]
    ys += [x]
    return len(xs) * x + ys[0]


add("list_slice_copy_then_iadd", slice_copy_iadd, (1.5,))


def snapshot_history(x):
    hist = [x]
    snap = hist[:]
    for i in range(3):
        hist[0] = hist[0] * 2
    return snap[0] + hist[0]


add("list_snapshot_then_loop_writes", snapshot_history, (1.5,))


def rows_copied(x):
    rows = [[x, 1.0], [2.0, x]]
    cp = [r[:] for r in rows]      # inner lists copied, as the docs advise
    cp[0][0] = 10 * x
    return rows[0][0] + cp[0][0]


add("nested_list_rows_copied_then_written", rows_copied, (1.5,))


def list_imul_alias(x):
    xs = [x]
    ys = xs
    xs *= 2                        # in place: ys is the same list, now [x, x]
    return sum(ys) * len(ys)


add("list_imul_through_alias", list_imul_alias, (1.5,))


def list_iadd_alias(x):
    xs = [x]
    ys = xs
    xs += [2 * x]                  # in place too
    return sum(ys)


add("list_iadd_through_alias", list_iadd_alias, (1.5,))


def list_add_rebinds(x):
    xs = [x]
    ys = xs
    xs = xs + [2 * x]              # a new list: ys keeps one item
    return sum(ys) * len(xs)


add("list_plus_rebinds_not_alias", list_add_rebinds, (1.5,))


def list_methods(x):
    xs = [x, 2 * x, 3 * x]
    xs.reverse()
    xs.insert(1, x * x)
    last = xs.pop()
    return last * 10 + sum(xs)


add("list_reverse_insert_pop", list_methods, (1.5,))


def list_pop_only(x):
    xs = [x, 2 * x, 3 * x]
    last = xs.pop()
    return last * 10 + sum(xs)


add("list_pop", list_pop_only, (1.5,))


def dict_pop(p):
    q = dict(p)
    a = q.pop("a")
    return a * sum(q.values())


add("dict_pop_copy", dict_pop, ({"a": 1.5, "b": 2.0, "c": 0.5},))


def deepcopy_params(p):
    q = copy.deepcopy(p)
    q["w"] = q["w"] * 2
    return p["w"] * q["w"]


add("copy_deepcopy_params", deepcopy_params, ({"w": 1.5},))


def list_count(x):
    xs = [x, x, 2.0]
    return xs.count(x) * x + max(xs) * 2


add("list_count_of_value", list_count, (1.5,))


def zip_uneven(x):
    return sum(a * b for a, b in zip([x, 2 * x, 3 * x], [1.0, 2.0]))


add("zip_truncates", zip_uneven, (1.5,))


def tuple_iadd(x):
    t = (x,)
    t += (x * 2,)
    return t[0] * t[1]


add("tuple_augmented_concat", tuple_iadd, (1.5,))


def min_of_tuples(x):
    return min((x * x, 1.0), (x, 2.0))[0]


add("min_of_tuples_lexicographic", min_of_tuples, (1.2,))


def buffer_of_arrays(x):
    buf = [np.zeros(2) for _ in range(3)]
    for i in range(3):
        buf[i] = buf[i] + x * (i + 1)
    out = buf[:]
    out[0] = out[0] * 10
    return np.sum(buf[0]) + np.sum(out[0])


add("list_of_arrays_slice_copy_write", buffer_of_arrays, (np.array([0.5, 1.0]),))
