"""Round 15's findings on objects of the user's classes made in the function:

- a subclass of abc.ABC (metaclass ABCMeta) is built as any other (E202 before); one
  whose abstract methods are not all implemented is refused as Python refuses it;
- a class with __slots__ (E202 before); an attribute its slots do not name is refused
  as Python refuses it;
- an __init__ calling super().__init__(w) or Base.__init__(self, w) (E101 before),
  super() following type(self).__mro__;
- abs(p), round(p), -p, +p, ~p and binary operators call the class's special methods
  (abs: E105 "not a sequence" before; operators: E101)."""
import abc
import collections
import dataclasses
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors


def central(f, x, h=1e-6):
    return (f(x + h) - f(x - h)) / (2 * h)


def check(f, x, exact=None, rtol=1e-7):
    """The value equals the plain call's, the gradient the central difference's (and
    ``exact``, a closed form, where given)."""
    value, grad = revsrc.value_and_grad(f)(x)
    assert value == pytest.approx(f(x), rel=1e-14, abs=1e-14)
    assert grad == pytest.approx(central(f, x), rel=rtol, abs=1e-9)
    if exact is not None:
        assert grad == pytest.approx(exact, rel=1e-12)
    return grad


# ----- abc.ABC -----

class Potential(abc.ABC):
    @abc.abstractmethod
    def energy(self, r): ...


class LJ(Potential):
    def __init__(self, eps):
        self.eps = eps      # __init__ only stores attributes

    def energy(self, r):
        return 4.0 * self.eps * (r ** -12 - r ** -6)


class Unfinished(Potential):
    def __init__(self, eps):
        self.eps = eps      # energy left abstract


class Sized(Potential):
    def __init__(self, eps, sigma):
        self.eps, self.sigma = eps, sigma

    def energy(self, r):
        return 4.0 * self.eps * ((self.sigma / r) ** 12 - (self.sigma / r) ** 6)


class Scaled(Sized):
    def __init__(self, eps, sigma, k):
        super().__init__(eps, sigma)
        self.k = k

    def energy(self, r):
        return self.k * super().energy(r)


def test_abc_subclass_built_inside():
    check(lambda eps: LJ(eps).energy(1.2), 1.5, exact=4 * (1.2 ** -12 - 1.2 ** -6))


def test_abc_subclass_calling_super_init():
    f = lambda s: Scaled(1.5, s, 3.0).energy(1.2)     # noqa: E731
    exact = 3.0 * 4.0 * 1.5 * (12 * 0.9 ** 11 - 6 * 0.9 ** 5) / 1.2
    check(f, 1.08, exact=exact)


def test_abc_with_an_abstract_method_left_is_refused_as_python_does():
    with pytest.raises(TypeError, match="abstract"):
        Unfinished(1.5)
    with pytest.raises(errors.StaticValueError, match="abstract") as info:
        revsrc.grad(lambda eps: Unfinished(eps).eps * 2.0)(1.5)
    assert info.value.code == "E105"


# ----- __slots__ -----

class P:
    __slots__ = ("m", "v")

    def __init__(self, m, v):
        self.m, self.v = m, v

    def ke(self):
        return 0.5 * self.m * self.v * self.v


class Q(P):      # no __slots__ of its own: its instances have a __dict__
    def __init__(self, m, v, h):
        super().__init__(m, v)
        self.h = h


class Narrow:
    __slots__ = ("m",)

    def __init__(self, m, v):
        self.m = m
        self.v = v        # AttributeError in Python: no slot, no __dict__


class Unset:
    __slots__ = ("m", "v")

    def __init__(self, m):
        self.m = m

    def ke(self):
        return self.m * self.v     # AttributeError in Python: v never set


def test_slots_class_built_inside():
    check(lambda v: P(2.0, v).ke(), 1.5, exact=3.0)


def test_slots_objects_in_comprehension():
    ms = (1.0, 2.0, 3.0)
    f = lambda v: sum(P(m, k * v).ke() for k, m in enumerate(ms))   # noqa: E731
    # sum 0.5 m k^2 v^2: d/dv = v sum m k^2 = 1.5 * (2 + 12)
    check(f, 1.5, exact=21.0)


def test_a_list_of_objects_made_by_a_comprehension():
    def f(v):
        ps = [P(1.0 + k, v * (k + 1)) for k in range(3)]
        return sum(p.ke() for p in ps)
    # sum 0.5 (1 + k) (k + 1)^2 v^2: d/dv = v (1 + 8 + 27)
    check(f, 1.5, exact=54.0)
    check(lambda v: sum(p.ke() for p in [Q(2.0, v * m, m) for m in (1.0, 2.0)]), 1.5,
          exact=15.0)


def test_slots_subclass_with_a_dict():
    check(lambda v: Q(2.0, v, 3.0).ke() * Q(2.0, v, 3.0).h, 1.5, exact=9.0)


def test_slot_violation_refused_as_python_does():
    with pytest.raises(AttributeError):
        Narrow(1.0, 2.0)
    with pytest.raises(errors.StaticValueError, match="'v'") as info:
        revsrc.grad(lambda v: Narrow(2.0, v).m * v)(1.5)
    assert info.value.code == "E105"
    with pytest.raises(AttributeError):
        Unset(1.0).ke()
    with pytest.raises(errors.StaticValueError, match="'v'"):
        revsrc.grad(lambda m: Unset(m).ke())(1.5)


# ----- base class __init__ called -----

class Layer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(self.w * x)


class BySuper(Layer):
    def __init__(self, w, s):
        super().__init__(w)
        self.s = s


class ByName(Layer):
    def __init__(self, w, s):
        Layer.__init__(self, w)
        self.s = s


class ByExplicitSuper(Layer):
    def __init__(self, w, s):
        super(ByExplicitSuper, self).__init__(w * s)


@pytest.mark.parametrize("cls", [BySuper, ByName])
def test_init_calling_the_base_init(cls):
    exact = 0.7 / np.cosh(0.63) ** 2
    check(lambda w: cls(w, 2.0)(0.7), 0.9, exact=exact)
    check(lambda w: cls(w, 2.0)(0.7) * cls(w, 2.0).s, 0.9, exact=2 * exact)


def test_init_calling_super_with_its_class_and_self():
    check(lambda w: ByExplicitSuper(w, 2.0)(0.7), 0.9, exact=1.4 / np.cosh(1.26) ** 2)


class A:
    def __init__(self, w):
        self.w = w
        self.tag = 1.0


class B(A):
    def __init__(self, w):
        super().__init__(w)
        self.b = 2.0 * w


class C(A):
    def __init__(self, w):
        super().__init__(3.0 * w)     # reached from B in a D: D's MRO is D, B, C, A
        self.c = w * w


class D(B, C):
    def __init__(self, w):
        super().__init__(w)

    def total(self):
        return self.w + self.b + self.c + self.tag


class Root:
    def __init__(self, a):
        super().__init__()         # object.__init__(): sets nothing
        self.a = a


class BadRoot:
    def __init__(self, a):
        super().__init__(a)        # TypeError in Python: object.__init__ takes no value
        self.a = a


def test_super_follows_the_mro_of_the_object():
    assert [k.__name__ for k in D.__mro__] == ["D", "B", "C", "A", "object"]
    # w = 3 w0, b = 2 w0, c = w0^2: total = 5 w0 + w0^2 + 1
    grad = check(lambda w: D(w).total(), 0.8, exact=5.0 + 1.6)
    assert D(0.8).total() == pytest.approx(5 * 0.8 + 0.64 + 1.0)
    assert grad == pytest.approx(6.6)


def test_super_init_reaching_object():
    check(lambda a: Root(a).a ** 2, 1.5, exact=3.0)
    with pytest.raises(TypeError):
        BadRoot(1.0)
    with pytest.raises(errors.RevsrcError):
        revsrc.grad(lambda a: BadRoot(a).a ** 2)(1.5)


# ----- special methods -----

class Vec2:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def __abs__(self):
        return math.sqrt(self.x * self.x + self.y * self.y)

    def __round__(self, n=None):
        return self.x if n is None else self.x * n

    def __neg__(self):
        return Vec2(-self.x, -self.y)

    def __pos__(self):
        return Vec2(self.x, 2.0 * self.y)

    def __add__(self, other):
        if not isinstance(other, Vec2):
            return NotImplemented
        return Vec2(self.x + other.x, self.y + other.y)

    def __mul__(self, k):
        return Vec2(self.x * k, self.y * k)

    def __rmul__(self, k):
        return Vec2(k * self.x, 3.0 * k * self.y)   # told apart from __mul__

    def __radd__(self, other):
        return Vec2(self.x + other, self.y)


class Vec3(Vec2):
    def __radd__(self, other):        # a subclass's reflected method runs first
        return Vec2(10.0 * self.x, other.y)


class Deferring(Vec2):
    __array_ufunc__ = None


def test_abs_calls_dunder_abs():
    check(lambda a: abs(Vec2(a, 2.0)), 0.6, exact=0.6 / math.sqrt(4.36))


def test_round_neg_pos_call_their_methods():
    check(lambda a: round(Vec2(a, 2.0)), 0.6, exact=1.0)
    check(lambda a: round(Vec2(a, 2.0), 3), 0.6, exact=3.0)
    check(lambda a: (-Vec2(a, 2.0)).x * (-Vec2(a, 2.0)).y, 0.6, exact=2.0)
    check(lambda a: (+Vec2(2.0, a)).y, 0.6, exact=2.0)


def test_binary_operators_in_pythons_order():
    check(lambda a: (Vec2(a, 1.0) + Vec2(2.0, a)).y, 0.6, exact=1.0)
    check(lambda a: (Vec2(a, 1.0) * 3.0).y * a, 0.6, exact=3.0)
    check(lambda a: (3.0 * Vec2(1.0, a)).y, 0.6, exact=9.0)      # __rmul__
    # 2.0 + p runs __radd__; p + 2.0: __add__ gives NotImplemented, then float's
    # __radd__ does: Python's TypeError
    check(lambda a: (2.0 + Vec2(a, 1.0)).x, 0.6, exact=1.0)
    with pytest.raises(TypeError):
        Vec2(1.0, 1.0) + 2.0
    with pytest.raises(errors.StaticValueError, match="unsupported operand"):
        revsrc.grad(lambda a: (Vec2(a, 1.0) + 2.0).x)(0.6)
    # Vec3 subclasses Vec2 with its own __radd__: Vec2 + Vec3 runs Vec3.__radd__
    assert (Vec2(1.0, 2.0) + Vec3(0.5, 7.0)).x == 5.0
    check(lambda a: (Vec2(1.0, a) + Vec3(a, 7.0)).x * (Vec2(1.0, a) + Vec3(a, 7.0)).y,
          0.6, exact=10.0 * 2 * 0.6)


def test_an_expression_of_operators_assigned():
    def f(a):
        p = Vec2(a, 2.0)
        r = (p + p) * 2.0 + (-p) * 0.5
        q = -r
        return q.x * r.y
    # r = (3.5 a, 7), q.x = -3.5 a: f = -24.5 a
    check(f, 0.6, exact=-24.5)


def test_operators_python_refuses_are_refused():
    with pytest.raises(TypeError):
        abs(Layer(1.0))
    with pytest.raises(errors.StaticValueError, match="__abs__"):
        revsrc.grad(lambda w: abs(Layer(w)))(0.5)
    with pytest.raises(TypeError):
        -Layer(1.0)
    with pytest.raises(errors.StaticValueError, match="unary -"):
        revsrc.grad(lambda w: -Layer(w))(0.5)
    with pytest.raises(TypeError):
        Layer(1.0) - 1.0
    with pytest.raises(errors.StaticValueError, match="unsupported operand"):
        revsrc.grad(lambda w: Layer(w) - 1.0)(0.5)


def test_a_value_of_the_program_on_the_left():
    # x * p: an array's __mul__ would apply to each item; refused unless the class
    # makes NumPy defer (__array_ufunc__ = None), and then p.__rmul__(x) runs
    with pytest.raises(errors.UnsupportedSyntax, match="__array_ufunc__"):
        revsrc.grad(lambda a: (a * Vec2(1.0, 2.0)).y)(0.6)
    check(lambda a: (a * Deferring(1.0, a)).y, 0.6, exact=6 * 0.6)
    xs = np.array([0.6, 0.2])
    g = revsrc.grad(lambda x: (np.sum(x) * Deferring(1.0, 2.0)).y)(xs)
    np.testing.assert_allclose(g, [6.0, 6.0], rtol=1e-14)


@dataclasses.dataclass
class _Pt:
    m: float
    x: float


_NT = collections.namedtuple("_NT", "m x")


def _dataclass_list_loop(x):
    ps = [_Pt(1.0, x), _Pt(2.0, 2.0 * x)]
    tot = 0.0
    for p in ps:
        tot += p.m * p.x ** 2
    return tot + ps[1].x * ps[0].m


def _namedtuple_list(x):
    ps = [_NT(1.0, x), _NT(2.0, np.sin(x))]
    return sum(p.m * p.x for p in ps) * len(ps)


@pytest.mark.parametrize("f", [_dataclass_list_loop, _namedtuple_list])
def test_list_literal_of_records_stays_static(f):
    """A literal list of dataclass objects or namedtuples holding differentiated values
    is read field by field and its loop unrolled (E202 before): value and gradient
    against the plain call and central differences, second order against differences
    of the gradient (forward over reverse)."""
    x, h = 0.6, 1e-6
    v, g = revsrc.value_and_grad(f)(x)
    assert v == f(x)
    np.testing.assert_allclose(g, (f(x + h) - f(x - h)) / (2 * h), rtol=1e-7)
    dg = revsrc.grad(f)
    np.testing.assert_allclose(revsrc.hessian(f)(x), (dg(x + h) - dg(x - h)) / (2 * h),
                               rtol=1e-6)



def _records_in_a_tuple(x):
    ss = (_Pt(1.0, x), _Pt(2.0, x * x))
    return sum(s.m * np.sin(s.x) for s in ss)


def _loop_over_a_literal_of_records(x):
    t = 0.0
    for s in (_Pt(1.0, x), _NT(2.0, x * x)):
        t += s.m * np.sin(s.x)
    return t


@pytest.mark.parametrize("f", [_records_in_a_tuple, _loop_over_a_literal_of_records])
def test_tuple_literal_of_records_stays_static(f):
    """As a list literal: a tuple literal of dataclass objects or namedtuples, named or
    looped over directly (E202 before)."""
    x, h = 0.6, 1e-6
    v, g = revsrc.value_and_grad(f)(x)
    assert v == f(x)
    np.testing.assert_allclose(g, (f(x + h) - f(x - h)) / (2 * h), rtol=1e-7)
