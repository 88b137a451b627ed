"""Round 11, part o: in-place NumPy idioms on rows and columns -- iterating over a matrix's
rows (views) and writing through them, the row-swap gotcha `A[0], A[1] = A[1], A[0]`,
unpacked rows, split pieces, and self-referencing augmented writes, against central
differences."""
import numpy as np

from user_programs7_harness import G

CASES = []
add = CASES.append

X = np.array([1.1, 2.3, 3.7, 0.4])
W = np.arange(4.0) + 1
M = np.arange(6.0).reshape(2, 3) + 1


def s1(x):
    A = np.outer(np.array([1.0, 2.0]), x[:3])
    A[0], A[1] = A[1], A[0]
    return np.sum(A * M)


add(G("r11_row_swap_view_gotcha", s1, (X,), ref="fd"))


def s2(x):
    a = x * 1.0
    a[0], a[1] = a[1], a[0]
    return np.sum(a * W)


add(G("r11_element_swap_tuple", s2, (X,), ref="fd"))


def s3(x):
    A = np.outer(x[:2], x[1:])
    for row in A:
        row *= 2.0
    return np.sum(A * M)


add(G("r11_for_row_in_matrix_scale", s3, (X,), ref="fd"))


def s4(x):
    A = np.outer(x[:2], x[1:]) + 1.0
    for row in A:
        row[:] = row / row.sum()
    return np.sum(A * M)


add(G("r11_normalize_rows_in_place", s4, (X,), ref="fd"))


def s5(x):
    A = np.outer(x[:2], x[1:])
    b = A[0]
    A[0] = 5 * A[1]
    return np.sum(b * M[0])


add(G("r11_row_view_sees_later_write", s5, (X,), ref="fd"))


def s6(x):
    A = np.outer(x[:2], x[1:])
    row = A[1]
    row += 1.0 * x[0]
    return np.sum(A * M)


add(G("r11_row_view_add_writes_matrix", s6, (X,), ref="fd"))


def s7(x):
    a = x * 1.0
    a[[3, 2, 1, 0]] += a
    return np.sum(a * W)


add(G("r11_fancy_index_add_self", s7, (X,), ref="fd"))


def s8(x):
    a = x * 1.0
    a[::-1] *= a
    return np.sum(a * W)


add(G("r11_reverse_view_multiply_self", s8, (X,), ref="fd"))


def s9(x):
    A = np.outer(x[:2], x[1:])
    for i, row in enumerate(A):
        row -= row.mean() * (i + 1)
    return np.sum(A ** 2 * M)


add(G("r11_enumerate_rows_subtract_mean", s9, (X,), ref="fd"))


def s10(x):
    A = np.outer(x[:2], x[1:])
    for col in A.T:
        col /= np.sum(col)
    return np.sum(A * M)


add(G("r11_for_column_in_transpose_divide", s10, (X,), ref="fd"))


def s11(x):
    A = np.outer(x[:2], x[1:])
    rows = list(A)
    rows[0] *= 3.0
    return np.sum(A * M)


add(G("r11_list_of_row_views_scaled", s11, (X,), ref="fd"))


def s12(x):
    A = np.outer(x[:2], x[1:])
    r0, r1 = A
    r0 += r1
    return np.sum(A * M)


add(G("r11_unpacked_rows_add", s12, (X,), ref="fd"))


def s13(x):
    A = np.outer(x[:2], x[1:])
    r0, r1 = A
    A[0] = 0.0
    return np.sum(r0 * r1) + np.sum(A)


add(G("r11_unpacked_rows_then_matrix_write", s13, (X,), ref="fd"))


def s14(x):
    a = x * 1.0
    for v in a:
        v *= 2.0      # numpy scalar: no effect
    return np.sum(a * W)


add(G("r11_for_scalar_in_array_noop", s14, (X,), ref="fd"))


def s15(x):
    A = np.outer(x[:2], x[1:])
    for row in A:
        row = row * 2.0   # rebinding: no effect
    return np.sum(A * M)


add(G("r11_for_row_rebind_noop", s15, (X,), ref="fd"))


def s16(x):
    A = np.outer(x[:2], x[1:])
    B = A[:, :2]
    for row in B:
        row[0] = row[1] * 3.0
    return np.sum(A * M)


add(G("r11_rows_of_column_slice_write", s16, (X,), ref="fd"))


def s17(x):
    a = x * 1.0
    b, c = a[:2], a[2:]
    b += c
    return np.sum(a * W)


add(G("r11_tuple_of_views_add", s17, (X,), ref="fd"))


def s18(x):
    a = x * 1.0
    parts = np.split(a, 2)
    parts[0][:] = parts[1] * 2.0
    return np.sum(a * W)


add(G("r11_split_piece_slice_write", s18, (X,), ref="fd"))
