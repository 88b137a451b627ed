"""Complex inputs: every rule marked ``complex_ok`` follows the convention of JAX and
autograd (see ``revsrc.rules``): for a real-valued f of z = x + iy, grad f is
df/dx - i df/dy.

Each case is a real-valued function of complex arrays calling the primitives it
covers. Its gradient is checked against central differences (along random complex
directions v, d/dt f(z + t v) = Re sum(grad * v)), and against jax.grad and
autograd.grad running the same code with ``np`` bound to their NumPy (skipped when
they are not installed, or do not differentiate that function).
`test_every_complex_rule_has_a_case` makes a missing case fail.
"""
import types

import numpy as np
import pytest

import revsrc
from revsrc import primitives, rules

from test_rules import _called

_rng = np.random.default_rng(77)
WA = _rng.standard_normal(4096)
WB = _rng.standard_normal(4096)
MASK = np.array([True, False, True, True])


def _csum(y):
    """sum(Re(y) * a + Im(y) * b) for fixed random a, b: a real number that every
    element of y, real or imaginary part, counts in."""
    a = np.reshape(WA[:np.size(y)], np.shape(y))
    b = np.reshape(WB[:np.size(y)], np.shape(y))
    return np.sum(np.real(y) * a) + np.sum(np.imag(y) * b)


# ----- Cases: arithmetic and elementwise functions -----

def k_arith(z, w):
    return _csum(z + w) + _csum(z - w * 2.0) + _csum(-z * w) + _csum(+z / w)


def k_numpy_arith(z, w):
    return _csum(np.add(z, w)) + _csum(np.subtract(z, w)) + _csum(np.multiply(z, w)) \
        + _csum(np.divide(z, w)) + _csum(np.negative(z)) + _csum(np.positive(w))


def k_power(z, w):
    return _csum(z ** w) + _csum(np.power(z, 3)) + _csum(z ** 2.5)


def k_trig(z):
    return _csum(np.sin(z)) + _csum(np.cos(z)) + _csum(np.tan(z))


def k_arctrig(z):
    return _csum(np.arcsin(z)) + _csum(np.arccos(z)) + _csum(np.arctan(z))


def k_hyperbolic(z):
    return _csum(np.sinh(z)) + _csum(np.cosh(z)) + _csum(np.tanh(z))


def k_archyperbolic(z):
    return _csum(np.arcsinh(z)) + _csum(np.arctanh(z * 0.5)) + _csum(np.arccosh(z + 2.0))


def k_exp(z):
    return _csum(np.exp(z)) + _csum(np.exp2(z)) + _csum(np.expm1(z))


def k_log(z):
    return _csum(np.log(z)) + _csum(np.log1p(z)) + _csum(np.log2(z)) + _csum(np.log10(z))


def k_roots(z):
    return _csum(np.sqrt(z)) + _csum(np.square(z)) + _csum(np.reciprocal(z))


def k_sinc(z):
    return _csum(np.sinc(z))


def k_abs(z):
    # |z| times a complex number: only the real part of |z|'s adjoint counts
    return _csum(np.abs(z)) + _csum(abs(z * 2.0)) + _csum(np.absolute(z) ** 3) \
        + _csum(np.abs(z) * (1.0 + 2.0j))


def k_sign(z):
    # NumPy 2's sign of a complex z is z / |z|: smooth away from 0
    return _csum(np.sign(z)) + _csum(np.sign(z) * z)


def k_abs_squared(z):
    # the gradients of |z|^2 and Re(z conj(z)) are one (2 conj(z)), not conjugates
    return np.sum(np.abs(z) ** 2) + 2.0 * np.sum((z * np.conj(z)).real)


def k_parts(z):
    return _csum(np.real(z) * np.imag(z)) + _csum(np.conjugate(z) * z[0]) \
        + _csum(z.real + z.imag * 2.0) + _csum(z.conj())


def k_angle(z):
    return _csum(np.angle(z)) + _csum(np.angle(z, deg=True) * z)


def k_where(z, w):
    return _csum(np.where(MASK, z, w))


def k_select(z, w):
    return _csum(np.select([MASK, ~MASK], [z, w * 2.0], default=w))


def k_repairs(z):
    return _csum(np.nan_to_num(z)) + _csum(np.real_if_close(z))


def k_astype(z):
    return _csum(z.astype(np.complex128))


# ----- Cases: reductions and statistics -----

def k_sums(z):
    return _csum(np.sum(z, axis=0)) + _csum(np.mean(z, axis=1)) + _csum(sum(z))


def k_prod(z):
    return _csum(np.prod(z, axis=1)) + _csum(np.cumprod(z, axis=0)) + _csum(np.cumsum(z))


def k_var(z):
    return _csum(np.var(z, axis=0)) + _csum(np.std(z, axis=1, ddof=1))


def k_norm_vector(z):
    return (np.linalg.norm(z) + np.linalg.norm(z, 1) + np.linalg.norm(z, 3)
            + np.linalg.norm(z, np.inf) + np.linalg.norm(z, -np.inf))


def k_norm_matrix(z):
    return (np.linalg.norm(z) + np.linalg.norm(z, "nuc") + np.linalg.norm(z, 2)
            + np.linalg.norm(z, 1) + np.linalg.norm(z, np.inf) + np.linalg.norm(z, -2))


def k_nan_reductions(z):
    return _csum(np.nansum(z, axis=0)) + _csum(np.nanmean(z, axis=1))


def k_average(z, w):
    return _csum(np.average(z, axis=1, weights=w))


def k_cov(z, w):
    return _csum(np.cov(z)) + _csum(np.cov(z, aweights=w))


# ----- Cases: products and matrix functions -----

def k_products(a, b):
    return _csum(np.dot(a, b)) + _csum(a @ b) + _csum(np.matmul(a, b)) \
        + _csum(np.inner(a, b.T)) + _csum(np.outer(a, b)) + _csum(np.tensordot(a, b, 1))


def k_ufunc_outer(a, b):
    return _csum(np.add.outer(a, b)) + _csum(np.subtract.outer(b, a)) \
        + _csum(np.multiply.outer(a, b))


def k_einsum(a, b):
    return _csum(np.einsum("ij,jk->ik", a, b)) + _csum(np.einsum("...j,jk", a, b))


def k_trace(a):
    return _csum(np.trace(a)) + _csum(np.trace(a @ a, offset=1))


def k_inv(a):
    return _csum(np.linalg.inv(a))


def k_solve(a, b):
    return _csum(np.linalg.solve(a, b))


def k_det(a):
    return _csum(np.linalg.det(a))


def k_slogdet(a):
    sign, logdet = np.linalg.slogdet(a)
    return _csum(sign) + 2.0 * logdet


def k_kron(a, b):
    return _csum(np.kron(a, b))


def k_cross(a, b):
    return _csum(np.cross(a, b))


def k_matrix_power(a):
    return _csum(np.linalg.matrix_power(a, 3)) + _csum(np.linalg.matrix_power(a, -2))


def k_pinv(a):
    return _csum(np.linalg.pinv(a))


def k_lstsq(a, b):
    x, res, rank, s = np.linalg.lstsq(a, b)
    return _csum(x) + np.sum(res) + np.sum(s)


def k_eig(a):
    w, v = np.linalg.eig(a)
    return _csum(w) + np.sum(np.abs(v) * WA[:9].reshape(3, 3))


def k_eig_phase(a):
    w, v = np.linalg.eig(a)
    return _csum(v)   # NumPy makes each vector's largest component real


# ----- Cases: moving, joining and indexing -----

def k_shapes(z):
    return (_csum(np.reshape(z, (4, 3))) + _csum(np.ravel(z)) + _csum(z.flatten())
            + _csum(np.transpose(z))
            + _csum(np.swapaxes(z, 0, 1)) + _csum(np.moveaxis(z, 0, 1))
            + _csum(np.expand_dims(z, 0)))


def k_broadcast_to(z):
    return _csum(np.broadcast_to(z, (2, 3, 4)))


def k_flips(z):
    return (_csum(np.flip(z)) + _csum(np.fliplr(z)) + _csum(np.flipud(z))
            + _csum(np.roll(z, 1)) + _csum(np.rot90(z)) + _csum(np.rollaxis(z, 1)))


def k_joins(z, w):
    return (_csum(np.concatenate([z, w])) + _csum(np.stack([z, w])) + _csum(np.hstack([z, w]))
            + _csum(np.vstack([z, w])) + _csum(np.dstack([z, w]))
            + _csum(np.column_stack([z, w])) + _csum(np.append(z, w))
            + _csum(np.r_[z, w]) + _csum(np.c_[z, w]))


def k_splits(z):
    p, q = np.split(z, 2)
    r, s = np.vsplit(z, 2)
    t, u = np.hsplit(z, 2)
    e, f = np.dsplit(z[..., None] * np.ones(2), 2)
    return _csum(p * q) + _csum(r - s) + _csum(t * u) + _csum(e * f)


def k_repeats(z):
    return _csum(np.tile(z, (2, 1))) + _csum(np.repeat(z, 2, axis=1))


def k_pads(z):
    return (_csum(np.pad(z, 1)) + _csum(np.pad(z, 2, mode="reflect"))
            + _csum(np.pad(z, ((1, 2), (3, 1)), mode="edge"))
            + _csum(np.pad(z, 2, mode="mean")))


def k_triangles(z):
    return (_csum(np.diag(z)) + _csum(np.diag(z[0])) + _csum(np.diagonal(z, 1))
            + _csum(np.tril(z)) + _csum(np.triu(z, 1)))


def k_construct(z, w):
    return (_csum(np.array([z[0], w[1], z[2] * w[3]])) + _csum(np.full((2, 2), z[0]))
            + _csum(np.linspace(z[0], w[0], 5)))


def k_full_like(w):
    return _csum(np.full_like(w, w[1]))


def k_index(z):
    return (_csum(z[1:, ::2]) + _csum(z[np.array([0, 2, 0])]) + _csum(np.take(z, [1, 1, 3]))
            + _csum(np.take_along_axis(z, np.array([[1, 0, 2, 2]]), axis=0)))


# ----- Cases: differences, integrals, interpolation, polynomials, transforms -----

def k_diff(z):
    return _csum(np.diff(z)) + _csum(np.gradient(z)) + _csum(np.trapezoid(z))


def k_interp(w):
    return _csum(np.interp(np.array([0.1, 0.5, 1.7, 2.9]), np.array([0.0, 1.0, 2.0, 3.0]), w))


def k_polyval(p, z):
    return _csum(np.polyval(p, z))


def k_convolve(z, w):
    return _csum(np.convolve(z, w)) + _csum(np.convolve(z, w, "same"))


def k_fft(z):
    return (_csum(np.fft.fft(z)) + _csum(np.fft.ifft(z, n=7)) + _csum(np.fft.irfft(z))
            + _csum(np.fft.rfft(np.real(z))))


def k_fft_nd(z):
    return (_csum(np.fft.fft2(z)) + _csum(np.fft.ifft2(z, s=(2, 5))) +
            _csum(np.fft.fftn(z, axes=(1,), norm="ortho")) + _csum(np.fft.ifftn(z * z)))


def k_fft_shift(z):
    return _csum(np.fft.fftshift(z)) + _csum(np.fft.ifftshift(z * z, axes=0))


def k_vdot(z, w):
    return _csum(np.vdot(z, w)) + _csum(np.vdot(w * w, z)) + _csum(np.vdot(z, z))


# ----- The table -----

C = "complex"
CASES = [
    (k_arith, (C, C), ((3, 4), (4,))), (k_numpy_arith, (C, C), ((3, 4), (3, 4))),
    (k_power, ("cright", C), ((4,), (4,))), (k_trig, ("csmall",), ((5,),)),
    (k_arctrig, ("csmall",), ((5,),)), (k_hyperbolic, ("csmall",), ((5,),)),
    (k_archyperbolic, ("csmall",), ((5,),)), (k_exp, (C,), ((5,),)),
    (k_log, ("cright",), ((5,),)), (k_roots, ("cright",), ((5,),)), (k_sinc, (C,), ((5,),)),
    (k_abs, (C,), ((5,),)), (k_sign, (C,), ((5,),)), (k_abs_squared, (C,), ((5,),)),
    (k_parts, (C,), ((5,),)),
    (k_angle, (C,), ((5,),)), (k_where, (C, C), ((4,), (4,))),
    (k_select, (C, C), ((4,), (4,))), (k_repairs, (C,), ((5,),)), (k_astype, (C,), ((5,),)),
    (k_sums, (C,), ((3, 4),)), (k_prod, (C,), ((3, 4),)), (k_var, (C,), ((3, 4),)),
    (k_norm_vector, (C,), ((5,),)), (k_norm_matrix, (C,), ((3, 4),)),
    (k_nan_reductions, (C,), ((3, 4),)), (k_average, (C, "real"), ((3, 4), (4,))),
    (k_cov, (C, "positive"), ((3, 5), (5,))),
    (k_products, (C, C), ((3, 4), (4, 3))), (k_einsum, (C, C), ((3, 4), (4, 2))),
    (k_ufunc_outer, (C, C), ((3,), (2, 2))),
    (k_trace, (C,), ((3, 3),)), (k_inv, ("cwell",), ((3, 3),)),
    (k_solve, ("cwell", C), ((3, 3), (3, 2))), (k_det, ("cwell",), ((3, 3),)),
    (k_slogdet, ("cwell",), ((3, 3),)), (k_kron, (C, C), ((2, 3), (2, 2))),
    (k_cross, (C, C), ((4, 3), (3,))), (k_matrix_power, ("cwell",), ((3, 3),)),
    (k_pinv, ("cwell",), ((4, 3),)), (k_lstsq, ("cwell", C), ((5, 3), (5, 2))),
    (k_eig, ("cwell",), ((3, 3),)), (k_eig_phase, ("cwell",), ((3, 3),)),
    (k_shapes, (C,), ((3, 4),)), (k_broadcast_to, (C,), ((3, 4),)),
    (k_flips, (C,), ((3, 4),)), (k_joins, (C, C), ((2, 3), (2, 3))),
    (k_splits, (C,), ((4, 4),)), (k_repeats, (C,), ((2, 3),)), (k_pads, (C,), ((3, 4),)),
    (k_triangles, (C,), ((3, 4),)), (k_construct, (C, C), ((4,), (4,))),
    (k_full_like, (C,), ((4,),)), (k_index, (C,), ((3, 4),)), (k_diff, (C,), ((6,),)),
    (k_interp, (C,), ((4,),)),
    (k_polyval, (C, C), ((4,), (3,))), (k_convolve, (C, C), ((5,), (3,))),
    (k_fft, (C,), ((6,),)), (k_fft_nd, (C,), ((3, 4),)), (k_fft_shift, (C,), ((3, 5),)),
    (k_vdot, (C, C), ((2, 3), (6,))),
]


def _draw(domain, shape, rng):
    if domain == "real":
        return rng.standard_normal(shape)
    if domain == "positive":
        return rng.uniform(0.5, 2.0, shape)
    z = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    if domain == "cright":       # away from the branch cut of log, sqrt and powers
        return np.abs(z.real) + 0.5 + 0.5j * z.imag
    if domain == "csmall":       # away from the branch points of the inverse functions
        return 0.4 * z
    if domain == "cwell":
        return 2.0 * np.eye(*shape[-2:]) + 0.3 * z
    return z


def _args(domains, shapes, seed=5):
    rng = np.random.default_rng(seed)
    return tuple(_draw(d, s, rng) for d, s in zip(domains, shapes))


def _ids():
    return [c[0].__name__ for c in CASES]


def _numeric(fn, args, i, v, h=1e-5):
    def at(t):
        moved = list(args)
        moved[i] = args[i] + t * v
        return float(fn(*moved))
    return (4.0 * (at(h / 2) - at(-h / 2)) / h - (at(h) - at(-h)) / (2 * h)) / 3.0


@pytest.mark.parametrize("fn,domains,shapes", CASES, ids=_ids())
def test_matches_finite_differences(fn, domains, shapes):
    args = _args(domains, shapes)
    nums = tuple(range(len(args)))
    grads = revsrc.grad(fn, nums)(*args)
    rng = np.random.default_rng(11)
    for i, (a, g) in enumerate(zip(args, grads)):
        assert g.shape == a.shape and g.dtype == a.dtype, (i, g.dtype, g.shape)
        for _ in range(3):
            v = rng.standard_normal(a.shape)
            if np.iscomplexobj(a):
                v = v + 1j * rng.standard_normal(a.shape)
            want = _numeric(fn, args, i, v)
            got = float(np.real(np.sum(g * v)))
            assert abs(got - want) <= 1e-6 + 1e-5 * abs(want), (i, got, want)


def _rebound(fn, module):
    """``fn`` and the helpers it calls, with ``np`` bound to ``module``."""
    scope = dict(fn.__globals__)
    scope["np"] = module
    for name in ("_csum",):
        helper = scope[name]
        scope[name] = types.FunctionType(helper.__code__, scope, name)
    return types.FunctionType(fn.__code__, scope, fn.__name__, fn.__defaults__)


def _compare(fn, args, oracle):
    ours = revsrc.grad(fn, tuple(range(len(args))))(*args)
    for i, g in enumerate(ours):
        try:
            want = np.asarray(oracle(i))
        except Exception as exc:  # noqa: BLE001 - whatever the oracle lacks
            pytest.skip(f"the oracle does not differentiate this: {type(exc).__name__}: "
                        f"{str(exc)[:120]}")
        np.testing.assert_allclose(g, want, rtol=1e-7, atol=1e-9, err_msg=f"argument {i}")


# Where JAX's own rules fall short (central differences agree with revsrc there).
JAX_DIFFERS = {
    "k_sign": "JAX gives jnp.sign no derivative, of a complex z / |z| too",
}


@pytest.mark.parametrize("fn,domains,shapes", CASES, ids=_ids())
def test_matches_jax(fn, domains, shapes):
    jax = pytest.importorskip("jax")
    if fn.__name__ in JAX_DIFFERS:
        pytest.skip(JAX_DIFFERS[fn.__name__])
    import jax.numpy as jnp
    args = _args(domains, shapes)
    with jax.enable_x64(True):
        theirs = _rebound(fn, jnp)
        _compare(fn, args, lambda i: jax.jit(jax.grad(theirs, i))(*args))


# Where autograd's own rules fall short (each checked: JAX and central differences
# agree with revsrc there).
AUTOGRAD_DIFFERS = {
    "k_slogdet": "autograd gives the sign of a complex determinant no derivative",
    "k_cross": "autograd does not sum a broadcast operand's gradient back to its shape",
    "k_pinv": "autograd's pinv rule transposes where a complex matrix needs the "
              "conjugate transpose",
    "k_eig_phase": "autograd's eigenvector rule ignores NumPy's normalization of the phase",
    "k_full_like": "autograd gives np.full_like's fill value no gradient",
    "k_sign": "autograd gives np.sign no derivative, of a complex z / |z| too",
}


@pytest.mark.parametrize("fn,domains,shapes", CASES, ids=_ids())
def test_matches_autograd(fn, domains, shapes):
    autograd = pytest.importorskip("autograd")
    if fn.__name__ in AUTOGRAD_DIFFERS:
        pytest.skip(AUTOGRAD_DIFFERS[fn.__name__])
    import autograd.numpy as anp
    args = _args(domains, shapes)
    theirs = _rebound(fn, anp)
    _compare(fn, args, lambda i: autograd.grad(theirs, i)(*args))


def test_every_complex_rule_has_a_case():
    called = set()
    for fn, _, _ in CASES:
        called |= _called(fn)
    missing = []
    for prim in primitives.records():
        if prim.complex_ok and prim.vjp is not None and \
                not any(primitives._key(a.fn) in called for a in prim.aliases):
            missing.append(prim.name)
    assert not missing, f"complex_ok rules without a case: {sorted(missing)}"


def test_rules_without_the_convention_are_marked():
    """Rules that are not right for complex inputs say so (the transformation refuses
    them when a differentiated input is complex)."""
    rules.load_optional()
    for fn in (np.maximum, np.sort, np.linalg.cholesky, np.linalg.eigh, np.linalg.svd,
               np.clip, np.max, np.median, np.partition, np.maximum.accumulate):
        assert not rules.lookup(fn).complex_ok, fn
    for fn in (np.sin, np.abs, np.real, np.dot, np.fft.fft, np.linalg.eig, np.pad):
        assert rules.lookup(fn).complex_ok, fn


def k_abs_squared_only(z):
    return np.sum(np.abs(z) ** 2)


def k_times_conj(z):
    return np.sum((z * np.conj(z)).real)


def test_abs_squared_and_z_times_conj_agree():
    """The two spellings of |z|^2 have one gradient, 2 conj(z) (they came out as
    conjugates of each other before the convention was fixed)."""
    z = np.array([1.0 + 2.0j, -0.5 + 0.25j, 3.0 - 1.0j])
    np.testing.assert_allclose(revsrc.grad(k_abs_squared_only)(z), 2.0 * np.conj(z))
    np.testing.assert_allclose(revsrc.grad(k_times_conj)(z), 2.0 * np.conj(z))


# ----- complex numbers as differentiated arguments -----

def k_scalar_mix(z, w):
    return np.real(np.exp(z) * w) + np.abs(z) ** 2 + np.imag(np.conj(w) * z)


@pytest.mark.parametrize("z,w", [(1.0 + 2.0j, 0.5 - 1.5j), (-0.3 + 0.2j, 2.0 + 0.0j),
                                 (np.complex128(0.7 - 0.1j), 1j)])
def test_complex_scalar_arguments_follow_the_convention(z, w):
    g = revsrc.grad(k_scalar_mix, argnums=(0, 1))(z, w)
    assert all(type(x) is complex for x in g)
    # against central differences of the real and imaginary parts: d/dre - i d/dim
    eps = 1e-6
    for i, (x, gx) in enumerate(zip((z, w), g)):
        args = [z, w]
        args[i] = x + eps
        up = k_scalar_mix(*args)
        args[i] = x - eps
        re = (up - k_scalar_mix(*args)) / (2 * eps)
        args[i] = x + 1j * eps
        up = k_scalar_mix(*args)
        args[i] = x - 1j * eps
        im = (up - k_scalar_mix(*args)) / (2 * eps)
        assert gx == pytest.approx(re - 1j * im, rel=1e-6, abs=1e-8)


def test_complex_scalar_arguments_match_jax():
    jax = pytest.importorskip("jax")
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy

    def theirs(z, w):
        return jnp.real(jnp.exp(z) * w) + jnp.abs(z) ** 2 + jnp.imag(jnp.conj(w) * z)
    z, w = 0.4 - 0.9j, -1.2 + 0.3j
    ours = revsrc.grad(k_scalar_mix, argnums=(0, 1))(z, w)
    ref = jax.grad(theirs, argnums=(0, 1))(z, w)
    for a, b in zip(ours, ref):
        assert a == pytest.approx(complex(b), rel=1e-12, abs=1e-14)
