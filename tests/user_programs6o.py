"""User programs, corpus 6o: an item read from an array, then the array written
(old = y[0]; y[0] = ...), for the usual ways of making y.  References: the plain
program's value and its central differences."""
import numpy as np

import revsrc
from user_programs6_harness import fd_grad, pair

CASES = []
X = np.array([1.0, 2.0, -0.5])


def o_times_one(x):
    y = x * 1.0
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_zeros_plus(x):
    y = np.zeros(3) + x
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_copy(x):
    y = x.copy()
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_astype(x):
    y = x.astype(float)
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_flatten(x):
    y = x.flatten()
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_np_array_copy_true(x):
    y = np.array(x, copy=True)
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_np_copy_of_product(x):
    y = np.copy(x * 2.0)
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_concatenate(x):
    y = np.concatenate([x])
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_scalar_times_copy(x):
    y = 1.0 * x.copy()
    old = y[0]
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


def o_copy_item_iadd(x):
    y = x.copy()
    old = y[1]
    y[1] += 3.0 * x[0]
    return old * y[1]


def o_copy_slice_write(x):
    y = x.copy()
    first = y[0]
    y[:2] = x[1:] ** 2
    return first + np.sum(y)


def o_copy_old_float(x):
    y = x.copy()
    old = float(y[0])
    y[0] = 5.0 * x[1]
    return old + y[0] * x[2]


for _f in [o_times_one, o_zeros_plus, o_copy, o_astype, o_flatten, o_np_array_copy_true, o_np_copy_of_product,
           o_concatenate, o_scalar_times_copy, o_copy_item_iadd, o_copy_slice_write, o_copy_old_float]:
    CASES.append(pair("item_read_" + _f.__name__[2:],
                      (lambda f=_f: revsrc.value_and_grad(f)(X)),
                      (lambda f=_f: [f(X.copy())] + fd_grad(f, (X,), {}, 0)), tol=1e-6))
