"""User programs, corpus 7m: complex arguments (JAX's convention) and holomorphic
derivatives, FFT filters, registered pytree classes under grad and jvp, has_aux with
jacfwd / jvp / vjp, and the user's own exceptions: raise and assert in the function
must reach the caller as they are, under grad, jit and vmap (the docs: "an element
that raises raises that error").  References: JAX x64, closed forms, the plain call."""
import math

import numpy as np

import revsrc
from user_programs7_harness import jax, jaxify, pair

CASES = []
Z = np.array([0.3 + 0.4j, -1.0 + 0.2j])


def J():
    return jax()


def c_abs_real(z):
    return np.sum(np.abs(z) ** 2 + (z * z).real)


CASES.append(pair("r7_complex_array_arg_real_out", lambda: revsrc.grad(c_abs_real)(Z),
                  lambda: J().grad(jaxify(c_abs_real))(Z), tol=1e-12))


def c_exp_z(z):
    return np.sum(np.exp(z) * z)


CASES.append(pair("r7_jacfwd_complex_sum", lambda: revsrc.jacfwd(c_exp_z)(Z),
                  lambda: J().jacfwd(jaxify(c_exp_z), holomorphic=True)(Z), tol=1e-12))


def c_scalar(z):
    return np.exp(z) * z ** 2


CASES.append(pair("r7_holomorphic_scalar_grad", lambda: revsrc.grad(c_scalar, holomorphic=True)(0.3 + 0.4j),
                  lambda: J().grad(jaxify(c_scalar), holomorphic=True)(0.3 + 0.4j), tol=1e-12))


def c_conj_scalar(z):
    return abs(z) ** 3 + (z.conjugate() * z).real


CASES.append(pair("r7_python_complex_conjugate_method", lambda: revsrc.grad(c_conj_scalar)(0.3 + 0.4j),
                  lambda: J().grad(lambda z: J().numpy.abs(z) ** 3 + (J().numpy.conj(z) * z).real)(0.3 + 0.4j),
                  tol=1e-12))


def c_log_imag(z):
    return np.sum(np.log(z).imag * np.abs(z))


CASES.append(pair("r7_complex_log_imag_branch_cut_side", lambda: revsrc.grad(c_log_imag)(Z),
                  lambda: J().grad(jaxify(c_log_imag))(Z), tol=1e-12))


def c_inv_trace(A):
    return np.real(np.trace(np.linalg.inv(A) @ A.conj().T))


AC = np.array([[2.0 + 1j, 0.5], [0.1j, 1.0 - 0.5j]])
CASES.append(pair("r7_complex_matrix_inv_conj_transpose", lambda: revsrc.grad(c_inv_trace)(AC),
                  lambda: J().grad(jaxify(c_inv_trace))(AC), tol=1e-10))


def fft_filter(x):
    return np.sum(np.abs(np.fft.ifft(np.fft.fft(x) * np.array([1, 0.5, 0.5, 0]))) ** 2)


X4 = np.array([1.0, 2.0, -1.0, 0.3])
CASES.append(pair("r7_fft_ifft_filter", lambda: revsrc.grad(fft_filter)(X4),
                  lambda: J().grad(jaxify(fft_filter))(X4), tol=1e-10))


def rfft_irfft(x):
    return np.sum(np.fft.rfft(x).real ** 2) - np.sum(np.fft.irfft(np.fft.rfft(x) * 1j, n=4) * x)


CASES.append(pair("r7_rfft_irfft_roundtrip", lambda: revsrc.grad(rfft_irfft)(X4),
                  lambda: J().grad(jaxify(rfft_irfft))(X4), tol=1e-10))


class Pt:
    def __init__(self, a, b):
        self.a, self.b = a, b


revsrc.register_pytree(Pt, lambda p: ((p.a, p.b), None), lambda aux, ch: Pt(*ch))


def pt_energy(p):
    return np.sum(p.a ** 2) * p.b


PT = Pt(np.array([1.0, 2.0]), 3.0)
CASES.append(pair("r7_registered_class_grad", lambda: revsrc.tree_leaves(revsrc.grad(pt_energy)(PT)),
                  lambda: [np.array([6.0, 12.0]), 5.0], tol=1e-12))
CASES.append(pair("r7_registered_class_jvp", lambda: revsrc.jvp(pt_energy, (PT,), (Pt(np.array([1.0, 0.0]), 1.0),)),
                  lambda: (15.0, 11.0), tol=1e-12))


def with_aux(x):
    return np.sin(x) * 2.0, {"n": np.sum(x)}


XA = np.array([0.1, 0.2])
CASES.append(pair("r7_jacfwd_has_aux", lambda: revsrc.jacfwd(with_aux, has_aux=True)(XA),
                  lambda: J().jacfwd(jaxify(with_aux), has_aux=True)(XA), tol=1e-12))
CASES.append(pair("r7_jvp_has_aux", lambda: revsrc.jvp(with_aux, (XA,), (np.ones(2),), has_aux=True),
                  lambda: J().jvp(jaxify(with_aux), (XA,), (np.ones(2),), has_aux=True), tol=1e-12))
CASES.append(pair("r7_vjp_has_aux",
                  lambda: (lambda r: (r[0], r[1](np.ones(2)), r[2]))(revsrc.vjp(with_aux, XA, has_aux=True)),
                  lambda: (lambda r: (r[0], r[1](np.ones(2)), r[2]))(J().vjp(jaxify(with_aux), XA, has_aux=True)),
                  tol=1e-12))

# -- the user's exceptions -----------------------------------------------------------------------


def _raised(thunk):
    """The exception's type and message as bytes (the harness compares arrays)."""
    try:
        thunk()
    except revsrc.RevsrcError:
        raise
    except Exception as err:  # noqa: BLE001 - the user's exception is the result
        s = f"{type(err).__name__}: {err}"
    else:
        s = "no exception"
    return np.frombuffer(s.encode(), dtype=np.uint8).copy()


def checked_log(x):
    if x < 0.0:
        raise ValueError("negative input")
    return x * x


def asserted(x):
    assert x > 0.0, "x must be positive"
    return math.log(x)


def list_index(x):
    xs = [1.0, 2.0]
    return xs[int(x)] * x


def domain(x):
    return math.sqrt(x - 1.0)


CASES.append(pair("r7_user_raise_through_grad", lambda: _raised(lambda: revsrc.grad(checked_log)(-1.0)),
                  lambda: _raised(lambda: checked_log(-1.0)), tol=0.0))
CASES.append(pair("r7_user_assert_through_grad", lambda: _raised(lambda: revsrc.grad(asserted)(-1.0)),
                  lambda: _raised(lambda: asserted(-1.0)), tol=0.0))
CASES.append(pair("r7_index_error_through_grad", lambda: _raised(lambda: revsrc.grad(list_index)(5.0)),
                  lambda: _raised(lambda: list_index(5.0)), tol=0.0))
CASES.append(pair("r7_user_raise_through_jit", lambda: _raised(lambda: revsrc.jit(checked_log)(-1.0)),
                  lambda: _raised(lambda: checked_log(-1.0)), tol=0.0))
CASES.append(pair("r7_user_raise_through_vmap", lambda: _raised(lambda: revsrc.vmap(checked_log)(np.array([1.0, -1.0]))),
                  lambda: _raised(lambda: checked_log(-1.0)), tol=0.0))
CASES.append(pair("r7_user_assert_through_vmap", lambda: _raised(lambda: revsrc.vmap(asserted)(np.array([1.0, -1.0]))),
                  lambda: _raised(lambda: asserted(-1.0)), tol=0.0))
CASES.append(pair("r7_user_raise_vmap_no_element_raises", lambda: revsrc.vmap(checked_log)(np.array([1.0, 3.0])),
                  lambda: np.array([1.0, 9.0]), tol=0.0))
CASES.append(pair("r7_math_domain_error_through_vmap", lambda: _raised(lambda: revsrc.vmap(domain)(np.array([2.0, 0.0]))),
                  lambda: _raised(lambda: domain(0.0)), tol=0.0))
CASES.append(pair("r7_vmap_grad_of_raising_fn_ok_elements", lambda: revsrc.vmap(revsrc.grad(checked_log))(np.array([2.0, 1.0])),
                  lambda: np.array([4.0, 2.0]), tol=0.0))
