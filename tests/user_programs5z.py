"""User programs, corpus 5z: keyword arguments to the transformed functions."""
import numpy as np

import revsrc
from user_programs5_harness import case

CASES = []


def kw_scalar(x, y=1.0):
    return x * x * y


def kw_vector(x, scale=1.0):
    return np.sin(x) * scale


_X = np.array([0.3, 0.4])

CASES.append(case("call_grad_with_keyword_nondiff", kw_scalar, (2.0,), kw={"y": 3.0}))
CASES.append(case("call_grad_argnums_default_param", lambda: (revsrc.grad(kw_scalar, argnums=1)(2.0), 4.0),
                  t="custom"))
CASES.append(case("call_grad_differentiated_by_keyword", lambda: (revsrc.grad(kw_scalar)(x=2.0, y=3.0), 12.0),
                  t="custom"))
# JAX accepts keyword arguments for the arguments it does not differentiate:
# jax.hessian(f)(2.0, y=3.0) == 6.0, jax.jacrev(f)(x, scale=2.0) works
CASES.append(case("call_hessian_with_keyword_nondiff", kw_scalar, (2.0,), t="hessian", kw={"y": 3.0},
                  ref=lambda: [6.0]))
CASES.append(case("call_jacrev_with_keyword_nondiff", kw_vector, (_X,), t="jacrev", kw={"scale": 2.0}))
CASES.append(case("call_jacfwd_with_keyword_nondiff", kw_vector, (_X,), t="jacfwd", kw={"scale": 2.0}))
CASES.append(case("call_jit_with_keyword", lambda: (revsrc.jit(kw_scalar)(2.0, y=3.0), 12.0), t="custom",
                  tol=0.0))
CASES.append(case("call_vmap_with_keyword",
                  lambda: (revsrc.vmap(kw_scalar)(np.array([1.0, 2.0]), y=3.0), np.array([3.0, 12.0])),
                  t="custom", tol=0.0))
CASES.append(case("call_value_and_grad_keyword", kw_scalar, (2.0,), t="vag", kw={"y": 3.0}))
