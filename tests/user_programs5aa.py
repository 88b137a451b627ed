"""User programs, corpus 5aa: NumPy 2 keyword spellings (clip's min=/max=, a= for the array)."""
import numpy as np

from user_programs5_harness import case

CASES = []
K = np.array([0.9, 0.2, 0.6, 1.3])
KM = np.array([[1.2, 0.3], [-0.4, 0.9]])
X = np.array([0.35, 0.8, 0.55, 0.2])
V = np.array([0.3, -1.2, 0.7, 0.45])


def clip_min_kw_fn(v):
    return np.sum(np.clip(K, min=v, max=2.0))       # NumPy 2.1 spelling of a_min


def clip_min_kw_method(v):
    return np.sum(K.clip(min=v, max=2.0))


def clip_max_kw_method(v):
    return np.sum(K.clip(max=v))


def clip_one_bound_method(v):
    return np.sum(K.clip(v))                        # a_max may be left out in NumPy 2


def clip_kw_on_differentiated(v):
    return np.sum(v.clip(min=0.3, max=0.6))


def sum_a_kw(v):
    return np.sum(a=v ** 2, axis=0)


def mean_a_kw(v):
    return np.mean(a=v ** 2)


def prod_a_kw(v):
    return np.prod(a=v)


def max_a_kw(v):
    return np.max(a=v)


def cumsum_a_kw(v):
    return np.sum(np.cumsum(a=v))


def norm_x_kw(v):
    return np.linalg.norm(x=v, ord=2)


def dot_method_constant_self(v):
    return K.dot(v)


def clip_none_bound(v):
    return np.sum(np.clip(K, v, None))


def matmul_dunder(v):
    return np.sum(KM.__matmul__(v[:2]))


for _name, _fn in [("clip_min_kw_fn", clip_min_kw_fn), ("clip_min_kw_method", clip_min_kw_method),
                   ("clip_max_kw_method", clip_max_kw_method), ("clip_one_bound_method", clip_one_bound_method),
                   ("clip_kw_on_differentiated", clip_kw_on_differentiated), ("sum_a_kw", sum_a_kw),
                   ("mean_a_kw", mean_a_kw), ("prod_a_kw", prod_a_kw), ("max_a_kw", max_a_kw),
                   ("cumsum_a_kw", cumsum_a_kw), ("norm_x_kw", norm_x_kw),
                   ("dot_method_constant_self", dot_method_constant_self), ("clip_none_bound", clip_none_bound),
                   ("matmul_dunder", matmul_dunder)]:
    CASES.append(case("np2kw_grad_" + _name, _fn, (X,), tol=1e-5))
    CASES.append(case("np2kw_jvp_" + _name, _fn, (X,), t="jvp", tangents=V, tol=1e-5))
