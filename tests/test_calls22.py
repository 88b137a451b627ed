"""Callables the frontend used to refuse (issue 22, task calls22): derivatives made
inside the differentiated function, ``super()`` in a bound method, builtins over zipped
or keyed data, ``functools.partial`` objects made in the function, and jit/vmap of
the callables grad accepts. Each is checked against central differences, a closed
form or JAX; what stays refused is checked for its code and the user's line."""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads


def _jax():
    return pytest.importorskip("jax")


# ----- 1. a derivative made inside the differentiated function -----

def sq(y):
    return y * y


def cube(y):
    return y * y * y


def newton_sqrt(x):
    y = x
    dsq = revsrc.grad(sq)
    for _ in range(30):
        y = y - (sq(y) - x) / dsq(y)
    return y


def inner_called_directly(x):
    return revsrc.grad(cube)(x) * math.sin(x)


def inner_value_and_grad(x, a):
    vg = revsrc.value_and_grad(lambda u, v: u * v * v, argnums=1)
    v, g = vg(a, x)
    return v + g * x


def inner_in_loop(x):
    s = 0.0
    for k in range(3):
        s = s + revsrc.grad(sq)(x * k)
    return s * x


def smooth(x):
    return np.sum(np.sin(x) * np.exp(0.3 * x))


def penalty(x):
    g = revsrc.grad(smooth)(x)
    return np.sum(g ** 2)


def test_grad_of_function_making_a_derivative():
    assert newton_sqrt(7.0) == pytest.approx(math.sqrt(7.0), rel=1e-14)
    assert revsrc.grad(newton_sqrt)(7.0) == pytest.approx(0.5 / math.sqrt(7.0), rel=1e-9)
    check_grads(inner_called_directly, (0.7,))
    check_grads(inner_value_and_grad, (0.7, 1.3), argnums=(0, 1))
    check_grads(inner_in_loop, (0.4,))


def test_jit_of_function_making_a_derivative():
    assert revsrc.jit(newton_sqrt)(7.0) == newton_sqrt(7.0)
    assert revsrc.jit(inner_called_directly)(0.7) == pytest.approx(
        inner_called_directly(0.7), rel=1e-15)


def test_made_inside_behaves_as_made_outside():
    D = revsrc.grad(cube)

    def outside(x):
        return D(x) * math.sin(x)
    for x in (0.3, -1.2):
        assert revsrc.grad(inner_called_directly)(x) == revsrc.grad(outside)(x)


def test_gradient_penalty_against_jax():
    jax = _jax()
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    x = np.array([0.3, -0.7, 1.1, 0.2])
    ref = jax.grad(lambda v: jnp.sum(jax.grad(
        lambda u: jnp.sum(jnp.sin(u) * jnp.exp(0.3 * u)))(v) ** 2))(x)
    np.testing.assert_allclose(revsrc.grad(penalty)(x), ref, rtol=1e-12, atol=1e-14)


HELPER = sq


def uses_global_helper(x):
    return revsrc.grad(HELPER)(x) * x


def test_rebinding_the_function_made_into_a_derivative_is_seen():
    global HELPER
    dg = revsrc.grad(uses_global_helper)
    try:
        assert dg(1.5) == pytest.approx(4 * 1.5)        # d/dx (2x * x)
        HELPER = cube
        assert dg(1.5) == pytest.approx(9 * 1.5 ** 2)   # d/dx (3x^2 * x)
    finally:
        HELPER = sq


def bad_argnums_inside(x):
    return revsrc.grad(sq, argnums=3)(x)


def test_refusal_of_the_inner_derivative_is_coded_and_located():
    # as for a derivative made at module level: E303 names the function it was made of
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(bad_argnums_inside)(1.0)
    assert e.value.code == "E303"
    assert e.value.filename == __file__ and e.value.line is not None
    assert "revsrc/" not in e.value.message


def hessian_inside(x):
    H = revsrc.hessian(lambda v: np.sum(v ** 3))
    return np.trace(H(x))


def test_hessian_made_inside_refused_as_made_outside():
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(hessian_inside)(np.array([1.0, 2.0]))
    assert e.value.code == "E104"
    assert "H(x)" in e.value.line


# ----- 5. revsrc.jit and revsrc.vmap of the callables grad accepts -----

import functools  # noqa: E402

XS = np.array([0.1, 0.7, 1.9, -0.4])


def damped(x, k, c=0.3):
    y = 1.0
    for _ in range(20):
        y = y + 0.05 * (-k * y - c * x)
    return y * x


class Pendulum:
    g = 9.81

    def __init__(self, L):
        self.L = L

    @classmethod
    def potential(cls, h):
        return cls.g * h

    def period(self, amp):
        return 2.0 * math.pi * math.sqrt(self.L / self.g) * (1.0 + amp * amp / 16.0)

    def __call__(self, amp):
        return self.period(amp) * self.L


class Probe:
    def __init__(self):
        self._dt = 0.5
        self.w = np.ones(2)

    @property
    def dt(self):
        return self._dt

    def by_property(self, k):
        return k * self.dt

    def by_array(self, k):
        return k * self.w[0]


@pytest.mark.parametrize("make", [
    lambda: functools.partial(damped, k=2.0, c=0.5),
    lambda: functools.partial(damped, 0.0 + 1.5),      # a positional value given first
    lambda: Pendulum.potential,
    lambda: Pendulum(1.5).period,
    lambda: Pendulum(0.8),
    lambda: math.sin,
    lambda: np.tanh,
], ids=["partial_kw", "partial_pos", "classmethod", "bound_method", "object_call",
        "math_sin", "np_ufunc"])
def test_jit_and_vmap_of_callables_give_the_plain_digits(make):
    f = make()
    if isinstance(f, functools.partial) and f.args:
        x0, call = 0.7, (lambda v: f(v))
    else:
        x0, call = 0.7, f
    assert revsrc.jit(f)(x0) == call(x0)
    np.testing.assert_array_equal(revsrc.vmap(f)(XS), np.array([call(v) for v in XS]))


def test_jit_of_partial_keywords_still_given_at_the_call():
    p = functools.partial(damped, k=2.0)
    jp = revsrc.jit(p)
    assert jp(0.7) == p(0.7) and jp(0.7, c=0.9) == p(0.7, c=0.9)


def test_jit_reads_changed_attributes_again():
    pend = Pendulum(1.5)
    jf = revsrc.jit(pend.period)
    assert jf(0.3) == pend.period(0.3)
    pend.L = 2.5                       # an instance attribute rebound
    assert jf(0.3) == pend.period(0.3)
    jc = revsrc.jit(Pendulum.potential)
    try:
        Pendulum.g = 1.62              # a class attribute rebound
        assert jc(2.0) == 2.0 * 1.62 and jf(0.3) == pend.period(0.3)
    finally:
        Pendulum.g = 9.81
    assert jc(2.0) == 2.0 * 9.81
    pend.g = 3.0                       # now shadowed by the instance
    assert jf(0.3) == pend.period(0.3)


def test_vmap_of_grad_of_bound_method_against_central_differences():
    pend = Pendulum(1.5)
    got = revsrc.vmap(revsrc.grad(pend.period))(XS)
    h = 1e-6
    ref = np.array([(pend.period(v + h) - pend.period(v - h)) / (2 * h) for v in XS])
    np.testing.assert_allclose(got, ref, rtol=1e-7)
    assert revsrc.grad(pend.period)(0.3) == pytest.approx(
        2.0 * math.pi * math.sqrt(1.5 / 9.81) * 2 * 0.3 / 16.0, rel=1e-14)


@pytest.mark.parametrize("method", ["by_property", "by_array"])
def test_attribute_that_is_not_a_number_is_refused_at_the_users_line(method):
    """revsrc.jit refuses it at the user's line; revsrc.vmap runs such a method
    batched as an array program instead (each value that of its own call)."""
    f = getattr(Probe(), method)
    with pytest.raises(errors.NotCompilable) as e:
        revsrc.jit(f)(0.7)
    assert e.value.code == "E502"
    assert e.value.filename == __file__ and "self." in e.value.line
    np.testing.assert_array_equal(revsrc.vmap(f)(XS), [f(x) for x in XS])


def test_callable_with_no_source_is_still_refused():
    with pytest.raises(errors.NoSource) as e:
        revsrc.vmap(math.remainder)(XS, XS)
    assert e.value.code == "E201"


# ----- 2. super().method(...) inside a method -----

class Base:
    def __init__(self, scale):
        self.scale = scale

    def act(self, z):
        return np.tanh(z)

    def loss(self, w, x):
        return self.scale * np.sum(self.act(x @ w) ** 2)


class Child(Base):
    def __init__(self, scale, shift):
        super().__init__(scale)
        self.shift = shift

    def act(self, z):
        return np.sin(z + self.shift)

    def loss(self, w, x):
        return super().loss(w, x) + self.shift * np.sum(w)

    def loss2(self, w, x):
        return super(Child, self).loss(w, x) * 2.0


class GrandChild(Child):
    def loss(self, w, x):
        return super().loss(w, x) ** 2


class Small:
    a = 1.0     # (no __init__ of its own: an object of SmallChild is made inside f)

    def f(self, x):
        return self.a * x * x


class SmallChild(Small):
    def __init__(self, a):
        self.a = a

    def f(self, x):
        return super().f(x) + math.sin(x)


def made_inside(x):
    return SmallChild(x * 0.5).f(x)


def bare_super(x):
    return super().f(x)


XC = np.array([[0.5, -1.0], [1.5, 0.2], [-0.3, 0.8]])
WC = np.array([0.4, -0.7])


def test_super_method_in_bound_method_against_jax():
    jax = _jax()
    jax.config.update("jax_enable_x64", True)
    jnp = jax.numpy
    ch = Child(1.5, 0.3)
    ref = jax.grad(lambda w: 1.5 * jnp.sum(jnp.sin(XC @ w + 0.3) ** 2) + 0.3 * jnp.sum(w))(WC)
    np.testing.assert_allclose(revsrc.grad(ch.loss)(WC, XC), ref, rtol=1e-12)
    check_grads(ch.loss2, (WC, XC))
    check_grads(GrandChild(0.7, -0.2).loss, (WC, XC))
    check_grads(made_inside, (0.9,))


def test_redefined_base_method_is_seen():
    ch = Child(1.5, 0.3)
    dg = revsrc.grad(ch.loss)
    before = dg(WC, XC)
    old = Base.loss
    try:
        Base.loss = lambda self, w, x: np.sum(w ** 2)
        np.testing.assert_allclose(dg(WC, XC), 2 * WC + 0.3, rtol=1e-14)
    finally:
        Base.loss = old
    np.testing.assert_array_equal(dg(WC, XC), before)


def test_super_outside_a_method_is_refused_at_the_line():
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(bare_super)(1.0)
    assert e.value.code == "E101" and "super()" in e.value.line


# ----- 3. builtins over keyed or zipped data -----

def sorted_by_abs(xs):
    order = sorted(xs, key=lambda v: abs(v))
    return order[0] * 3.0 + order[-1] ** 2


def min_and_max_by_key(xs):
    near = min(xs, key=lambda v: (v - 0.5) ** 2)
    far = max(xs, key=lambda v: abs(v))
    return near * 2.0 + far ** 3


def min_of_args_by_key(a, b, c):
    return min(a, b, c, key=abs) * 5.0


def max_of_ties(xs):
    return max(xs, key=lambda v: round(v)) * 7.0   # Python keeps the first of equal keys


def ranked(x):
    pairs = sorted(zip(x, range(len(x))))
    return sum(v * (i + 1) for (v, _), i in zip(pairs, range(len(pairs))))


def by_name(x):
    d = dict(zip(["a", "b", "c"], x))
    return d["a"] * d["c"] + d["b"] ** 2


def zipped_arrays(x, y):
    return sum(a * b for a, b in sorted(zip(x, y)))


def zip_kept_in_a_name(x):
    z = zip(x, x)
    s1 = sum(a * b for a, b in z)
    return s1 + sum(a * b for a, b in z)    # Python's zip is empty here


@pytest.mark.parametrize("f, args", [
    (sorted_by_abs, ([0.3, -2.0, 0.7, 1.1],)),
    (min_and_max_by_key, ([0.2, -2.0, 0.7, 1.1],)),   # (no tie in the keys)
    (min_of_args_by_key, (0.3, -2.0, 0.25)),
    (max_of_ties, ([0.6, 1.2, 0.9, -0.2],)),
    (ranked, (np.array([0.3, -1.0, 2.0]),)),
    (by_name, (np.array([0.4, -1.3, 2.2]),)),
    (zipped_arrays, (np.array([0.3, -1.0, 2.0]), np.array([1.5, 0.5, -0.7]))),
], ids=lambda v: getattr(v, "__name__", ""))
def test_builtins_over_keyed_and_zipped_data(f, args):
    nums = tuple(range(len(args)))
    g = revsrc.grad(f, argnums=nums if len(args) > 1 else 0)(*args)
    if isinstance(args[0], list):    # a list's gradient: a list, against differences
        xs, h = args[0], 1e-6
        ref = [(f(xs[:i] + [v + h] + xs[i + 1:]) - f(xs[:i] + [v - h] + xs[i + 1:])) / (2 * h)
               for i, v in enumerate(xs)]
        assert isinstance(g, list)
        np.testing.assert_allclose(g, ref, rtol=1e-6, atol=1e-8)
    else:
        check_grads(f, args, argnums=nums if len(args) > 1 else 0)
    assert revsrc.value_and_grad(f, argnums=nums if len(args) > 1 else 0)(*args)[0] == f(*args)


def test_ranked_weights_closed_form():
    np.testing.assert_array_equal(revsrc.grad(ranked)(np.array([0.3, -1.0, 2.0])), [2.0, 1.0, 3.0])
    np.testing.assert_array_equal(revsrc.grad(by_name)(np.array([0.4, -1.3, 2.2])),
                                  [2.2, -2.6, 0.4])
    # round() gives 1 for 0.6, 1.2 and 0.9: max keeps the first of them, as Python does
    assert revsrc.grad(max_of_ties)([0.6, 1.2, 0.9, -0.2]) == [7.0, 0.0, 0.0, 0.0]


def test_zip_kept_in_a_name_stays_refused():
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(zip_kept_in_a_name)(np.array([0.3, -1.0]))
    assert e.value.code == "E202" and "zip(x, x)" in e.value.line


# ----- 4. functools.partial objects made in the function -----

def power(x, k):
    return x ** k


class Potential:
    scale = 2.0

    @classmethod
    def energy(cls, x):
        return cls.scale * np.sum(x ** 4)


def partials_by_comprehension(x):
    fs = [functools.partial(power, k=k) for k in range(1, 4)]
    return sum(f(x) for f in fs)


def partial_called_in_loop(x):
    s = 0.0
    for k in range(1, 4):
        s = s + functools.partial(power, k=k)(x)
    return s


def partial_of_classmethod(x):
    f = functools.partial(Potential.energy)
    return f(x) + 1.0


def partials_appended(x):
    fs = []
    for k in range(1, 4):
        fs.append(functools.partial(power, k=k))
    return sum(f(x) for f in fs)


def test_partials_made_inside():
    for f in (partials_by_comprehension, partial_called_in_loop):
        assert revsrc.grad(f)(1.5) == pytest.approx(1.0 + 2 * 1.5 + 3 * 1.5 ** 2, rel=1e-14)
        check_grads(f, (0.7,))
    np.testing.assert_allclose(revsrc.grad(partial_of_classmethod)(np.array([1.0, -0.5])),
                               8.0 * np.array([1.0, -0.5]) ** 3, rtol=1e-14)


def test_partial_appended_to_a_list_is_refused_with_a_hint():
    with pytest.raises(errors.RevsrcError) as e:
        revsrc.grad(partials_appended)(1.5)
    assert e.value.code == "E101" and "f(x) for f in fs" in e.value.line
    assert "comprehension" in e.value.hint
