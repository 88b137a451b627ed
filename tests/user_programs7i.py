"""User programs, corpus 7i: more of NumPy's semantics at the edges of what is followed --
arrays reached through nested lists, negative indices and appended items changed in
place; int arrays made by literals, positional dtypes, empty_like of labels, eye, int8,
written by fancy and boolean indices; and revsrc.jit on Python's int and float
arithmetic (big ints, floor division and modulo of negatives, banker's rounding,
OverflowError and ValueError raised as Python raises them).  References: the plain
call (exactly, for jit), closed forms and self-checked central differences."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, fd_checked, pair

CASES = []
X2 = np.array([1.0, 2.0])


def VG(name, f, args, tol=1e-7):
    return pair(name, lambda: revsrc.value_and_grad(f)(*args),
                lambda: (f(*args), fd_checked(f, args)[0]), tol=tol)


def nested_list_iadd(x):
    a = np.ones(2)
    grid = [[a, np.zeros(2)], [np.zeros(2), np.zeros(2)]]
    grid[0][0] += x
    return np.sum(a * x)


CASES.append(VG("r7_nested_list_item_iadd_seen_by_name", nested_list_iadd, (X2,)))


def neg_index_imul(x):
    a = x * 1.0
    xs = [np.zeros(2), a]
    xs[-1] *= 2.0
    return np.sum(a * x)


CASES.append(VG("r7_list_negative_index_imul", neg_index_imul, (X2,)))


def append_then_imul(x):
    a = x * 1.0
    xs = []
    xs.append(a)
    xs[-1] *= 2.0
    return np.sum(a * x)


CASES.append(VG("r7_appended_array_imul_through_list", append_then_imul, (X2,)))


def name_alias_iadd(x):
    a = np.zeros(2)
    b = a
    b += x
    return np.sum(a * x)


CASES.append(VG("r7_name_alias_iadd", name_alias_iadd, (X2,)))


def dict_read_then_iadd(x):
    d = {"w": np.zeros(2)}
    w = d["w"]
    w += x
    return np.sum(d["w"] * x)


CASES.append(VG("r7_dict_item_read_then_iadd", dict_read_then_iadd, (X2,)))


def list_item_read_then_iadd(x):
    xs = [np.zeros(2)]
    a = xs[0]
    a += x
    return np.sum(xs[0] * x)


CASES.append(VG("r7_list_item_read_then_iadd", list_item_read_then_iadd, (X2,)))


def list_item_setitem(x):
    a = np.zeros(2)
    xs = [a]
    xs[0][1] = x[0] * 3.0
    return np.sum(a * x)


CASES.append(VG("r7_list_item_setitem_made_here", list_item_setitem, (X2,)))


def dict_single_iadd(x):
    a = x * 1.0
    d = {"p": a}
    d["p"] += 1.0
    return np.sum(a * x)


CASES.append(VG("r7_dict_item_iadd_no_loop", dict_single_iadd, (X2,)))


def tuple_item_iadd(x):
    a = x * 1.0
    t = (a, 1.0)
    t[0][0] += 5.0 * x[1]
    return np.sum(a * x)


CASES.append(VG("r7_tuple_item_element_iadd", tuple_item_iadd, (X2,)))

# -- int destinations -----------------------------------------------------------------------


def int_array_literal(x):
    v = np.array([1, 2, 3])
    v[0] = x                     # int(2.6) = 2
    return np.sum(v * x)


CASES.append(G("r7_int_literal_array_store", int_array_literal, (2.6,), ref=lambda: 7.0, tol=1e-12))


def zeros_positional_int(x):
    v = np.zeros(3, int)
    v[1] = x * 2
    return np.sum(v) + x


CASES.append(G("r7_zeros_positional_int_dtype_store", zeros_positional_int, (2.6,), ref=lambda: 1.0, tol=1e-12))


def int8_store(x):
    v = np.zeros(2, dtype=np.int8)
    v[0] = x
    return float(v[0]) + x


CASES.append(G("r7_int8_store", int8_store, (3.7,), ref=lambda: 1.0, tol=1e-12))


def empty_like_labels(x, labels):
    y = np.empty_like(labels)
    y[:] = x
    return np.sum(y * x)


CASES.append(G("r7_empty_like_int_labels_store", empty_like_labels, (np.array([1.5, 2.5]), np.array([0, 1])),
               ref=lambda: np.array([1.0, 2.0]), tol=1e-12))


def fancy_store_int(x):
    y = np.zeros(4, dtype=int)
    y[[0, 2]] = x * 3.0
    return np.sum(y * 1.0) + np.sum(x)


CASES.append(G("r7_fancy_index_store_into_int", fancy_store_int, (np.array([1.5, 2.5]),),
               ref=lambda: np.ones(2), tol=1e-12))


def mask_store_int(x):
    y = np.zeros(2, dtype=int)
    y[np.array([True, False])] = x[0] * 3.0
    return np.sum(y * 1.0) + np.sum(x)


CASES.append(G("r7_mask_store_into_int", mask_store_int, (np.array([1.5, 2.5]),), ref=lambda: np.ones(2), tol=1e-12))


def eye_int_store(x):
    M = np.eye(2, dtype=int)
    M[0, 1] = x * 2.0
    return np.sum(M * 1.0) + x


CASES.append(G("r7_eye_int_store", eye_int_store, (1.7,), ref=lambda: 1.0, tol=1e-12))


def int_iadd_int_then_mul(x):
    y = np.array([1, 2])
    y += 1
    return np.sum(y * x)


CASES.append(G("r7_int_array_iadd_int_then_times_x", int_iadd_int_then_mul, (np.array([1.5, 2.5]),),
               ref=lambda: np.array([2.0, 3.0]), tol=1e-12))

# -- revsrc.jit on Python's int and float arithmetic ------------------------------------------


def _enc(v):
    """A result as bytes to compare exactly: big ints, exception names and floats'
    reprs (the harness compares arrays, and skips strings)."""
    if isinstance(v, str):
        s = "raised " + v
    elif isinstance(v, (bool, int, np.integer)):
        s = "int " + str(int(v))
    elif isinstance(v, (float, np.floating)):
        s = "float " + repr(float(v))
    else:
        s = repr(v)
    return np.frombuffer(s.encode(), dtype=np.uint8).copy()


def J(name, f, *args):
    def plain():
        try:
            return _enc(f(*args))
        except Exception as err:  # noqa: BLE001 - the exception Python raises is the reference
            return _enc(type(err).__name__)

    def got():
        try:
            return _enc(revsrc.jit(f)(*args))
        except revsrc.RevsrcError:
            raise
        except Exception as err:  # noqa: BLE001
            return _enc(type(err).__name__)
    return pair(name, got, plain, tol=0.0)


def factorial(n):
    r = 1
    for i in range(1, n + 1):
        r *= i
    return r


CASES.append(J("r7_jit_factorial_bigint", factorial, 25))


def floordiv_neg(n):
    return (-n) // 2 + (-n) % 3 + n // -4


CASES.append(J("r7_jit_int_floordiv_mod_negative", floordiv_neg, 7))


def float_mod_neg(x):
    return (-x) % 2.0 + x // -2.0


CASES.append(J("r7_jit_float_mod_floordiv_negative", float_mod_neg, 7.5))


def round_bankers(x):
    return round(x) + round(x + 1.0) + round(-x)


CASES.append(J("r7_jit_round_half_even", round_bankers, 2.5))


def int_of_1e20(x):
    return int(x * 1e20) % 1000000007


CASES.append(J("r7_jit_int_of_huge_float", int_of_1e20, 1.0))


def hash_mod(n):
    h = 0
    for i in range(n):
        h = (h * 31 + i) % (2 ** 61 - 1)
    return h


CASES.append(J("r7_jit_int_hash_mod_mersenne", hash_mod, 1000))


def int_past_int64(n):
    return abs(n) + (n + n)


CASES.append(J("r7_jit_int_past_int64", int_past_int64, -(2 ** 63)))


def math_exp_overflow(x):
    return math.exp(x)


CASES.append(J("r7_jit_math_exp_overflow_error", math_exp_overflow, 1000.0))


def math_domain(x):
    return math.sqrt(x - 2.0)


CASES.append(J("r7_jit_math_domain_error", math_domain, 1.0))


def int_pow_negative(n):
    return 2 ** (-n) + n ** 2


CASES.append(J("r7_jit_int_pow_negative_exponent", int_pow_negative, 3))


def float_of_bigint(n):
    return float(3 ** n) / 7.0


CASES.append(J("r7_jit_float_of_int_power", float_of_bigint, 50))


def nan_compare(x):
    y = x * 0.0 * math.inf
    return (y == y) + (y < 1.0) * 2 + (y != y) * 4


CASES.append(J("r7_jit_nan_comparisons", nan_compare, 1.0))
