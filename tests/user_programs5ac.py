"""User programs, corpus 5ac: NumPy 2 / Array API spellings (correction=, vecdot, acos, concat, mT, ...)."""
import numpy as np

from user_programs5_harness import case

CASES = []
K = np.array([0.9, 0.2, 0.6, 1.3])
KM = np.array([[1.2, 0.3], [-0.4, 0.9]])
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])


def a_std_correction(v):
    return np.std(v, correction=1)


def a_var_correction(v):
    return np.var(v, correction=1)


def a_vecdot(v):
    return np.sum(np.vecdot(v.reshape(2, 2), KM))


def a_vector_norm(v):
    return np.linalg.vector_norm(v, ord=3)


def a_matrix_norm(v):
    return np.linalg.matrix_norm(v.reshape(2, 2))


def a_linalg_vecdot(v):
    return np.sum(np.linalg.vecdot(v.reshape(2, 2), KM))


def a_permute_dims(v):
    return np.sum(np.permute_dims(v.reshape(2, 2), (1, 0)) * KM)


def a_concat(v):
    return np.sum(np.concat([K, v]) ** 2)


def a_pow(v):
    return np.sum(np.pow(v, 3))


def a_acos(v):
    return np.sum(np.acos(v) + np.asin(v) + np.atan(v))


def a_atan2(v):
    return np.sum(np.atan2(v, K))


def a_acosh(v):
    return np.sum(np.acosh(v + 1.5) + np.asinh(v) + np.atanh(v))


def a_cumulative_sum(v):
    return np.sum(np.cumulative_sum(v) ** 2)


def a_cumulative_prod(v):
    return np.sum(np.cumulative_prod(v))


def a_unstack(v):
    return np.sum(np.unstack(v.reshape(2, 2))[1] ** 2)


def a_matrix_transpose(v):
    return np.sum(np.matrix_transpose(v.reshape(2, 2)) * KM)


def a_linalg_diagonal(v):
    return np.sum(np.linalg.diagonal(v.reshape(2, 2)) ** 2)


def a_linalg_trace(v):
    return np.linalg.trace(v.reshape(2, 2))


def a_linalg_outer(v):
    return np.sum(np.linalg.outer(v, K) ** 2)


def a_linalg_cross(v):
    return np.sum(np.linalg.cross(v[:3], K[:3]) ** 2)


def a_linalg_matmul(v):
    return np.sum(np.linalg.matmul(v.reshape(2, 2), KM))


def a_linalg_tensordot(v):
    return np.linalg.tensordot(v, K, axes=1)


def a_bitwise_count_mask(v):
    return np.sum(v * (np.bitwise_count(np.arange(4)) > 0))


def a_mT(v):
    return np.sum(v.reshape(2, 2).mT * KM)


def a_device(v):
    return np.sum(np.asarray(v, device="cpu") ** 2)


def a_copy_kw(v):
    return np.sum(np.asarray(v, copy=True) ** 2)


def a_astype_fn(v):
    return np.sum(np.astype(v, np.float64) ** 2)


def a_astype_int_fn(v):
    return np.sum(np.astype(v, np.int64) * v)


def a_isdtype(v):
    return np.sum(v ** 2) if np.isdtype(v.dtype, "real floating") else 0.0


def a_sort_stable(v):
    return np.sum(np.sort(v, stable=True) * np.arange(4.0))


def a_argsort_desc(v):
    return np.sum(v[np.argsort(-v)] * np.arange(4.0))


def a_unique_values(v):
    return np.sum(np.unique_values(np.round(v)) ) * np.sum(v)


def a_max_keepdims(v):
    return np.sum(np.max(v.reshape(2, 2), axis=1, keepdims=True) * KM)


def a_clip_only_max(v):
    return np.sum(np.clip(v, max=0.6))


_ALL = [a_std_correction, a_var_correction, a_vecdot, a_vector_norm, a_matrix_norm, a_linalg_vecdot, a_permute_dims, a_concat, a_pow, a_acos, a_atan2, a_acosh, a_cumulative_sum, a_cumulative_prod, a_unstack, a_matrix_transpose, a_linalg_diagonal, a_linalg_trace, a_linalg_outer, a_linalg_cross, a_linalg_matmul, a_linalg_tensordot, a_bitwise_count_mask, a_mT, a_device, a_copy_kw, a_astype_fn, a_astype_int_fn, a_isdtype, a_sort_stable, a_argsort_desc, a_unique_values, a_max_keepdims, a_clip_only_max]
for _fn in _ALL:
    if not hasattr(np, 'vecdot'):
        break
    CASES.append(case("api2_grad_" + _fn.__name__[2:], _fn, (X,), tol=1e-5))
    CASES.append(case("api2_jvp_" + _fn.__name__[2:], _fn, (X,), t="jvp", tangents=V, tol=1e-5))
