"""The rule table: one record per primitive (see ``revsrc.primitives``), grouped by
family in the modules of this package.

A reverse rule says how an output adjoint ``g`` flows back to each input of a
primitive, written as an ordinary Python function ``rule(g, ans, *inputs)`` that
returns one expression per input (``None`` for an input with no gradient). The
reverse transformation inlines the rule's body into the generated adjoint, so the
Python backend prints it and the scalar engine lowers the same operations.

Rules for elementwise operations broadcast: the transformation sums each
contribution back to its input's shape once, so no rule handles broadcasting itself.
Inside a rule, ``xp`` is the namespace of the primal's family: ``math`` functions
for ``math.sin``, NumPy's for ``np.sin``.

Complex numbers follow the convention JAX and autograd share. The gradient of a
real-valued f of z = x + iy is

    grad f(z) = df/dx - i df/dy        (2 df/dz in Wirtinger's terms),

so the gradient of |z|**2 is 2 conj(z), and gradient descent steps along
-conj(grad f). Adjoints pair with changes without a conjugate: f changes by
Re(sum(z_bar * dz)). A rule therefore returns, for an output w = h(z),

    z_bar = w_bar * dh/dz + conj(w_bar) * conj(dh/dconj(z)),

which is ``w_bar * h'(z)`` for a holomorphic h (sin, exp, products, matrix products
without conjugation, inv, det, the FFTs): the same expression as for real numbers.
Functions that conjugate or take parts say so: conj(z) gets conj(w_bar), |z| gets
w_bar conj(z) / |z|, Re z gets w_bar, Im z gets -1j w_bar. A real input's adjoint is
the real part of what the rule computes (a real x in x * (1 + 2j) gets a real
gradient), and a real output's adjoint is real.

A record marked ``complex_ok`` has been checked in this convention against jax.grad,
autograd.grad and central differences (tests/test_complex.py, which fails when a
marked rule has no case there). Rules without the mark (maxima, sorting, clipping,
cholesky, eigh, svd, SciPy's functions) are to be refused when a differentiated
input is complex.
"""
from __future__ import annotations

import importlib
import sys

import numpy as np

from . import kind_rules  # noqa: F401
# Importing a family's module registers its records: the families a program on
# numbers calls into register now, the others when first needed (`WAITING` below).
from . import arith, effects, elementwise, language, mathfuncs  # noqa: F401
from . import index
from .. import primitives
from ..core.waiting import name_key
from ..primitives import (  # noqa: F401  (the table's public face)
    USER, Primitive, Rule, complex_capable, defer, define, lookup, records, registered,
    registered_nondiff)
from .register import no_derivative, primitive  # noqa: F401


# The families of array programs (products, reductions, shapes, indexing...) and the
# facts of copies and batching wait until a lookup or a fact first names one of their
# callables (revsrc/core/waiting.py, with what each touches from revsrc/rules/index.py):
# they were a fifth of ``import revsrc``, and a program on numbers needs none.
def _loader(family):
    def load():
        importlib.import_module(f"{__name__}.{family}")
    return load


LOADS = {family: _loader(family) for family in index.FAMILIES}
for _family, (_records, _callables, _facts) in index.FAMILIES.items():
    primitives.WAITING.add(LOADS[_family], _records, _callables, _facts)


def _from(module):
    """Whether a callable comes from ``module`` (a bound method: its function's)."""
    def claims(fn):
        name = getattr(fn, "__module__", None) or ""
        return name.startswith(module) or (
            module == "scipy.special" and isinstance(fn, np.ufunc)
            and "scipy.special" in sys.modules)
    return claims


# SciPy's rules import SciPy: they load only when SciPy is there (the imports
# below are the package's only ones inside a function, for an optional library).
def _load_scipy_special():
    from . import special  # noqa: F401


def _load_scipy_stats():
    from . import stats  # noqa: F401


def _load_scipy_linalg():
    from . import scipy_linalg  # noqa: F401


_OPTIONAL = (("scipy.special", _load_scipy_special), ("scipy.stats", _load_scipy_stats),
             ("scipy.linalg", _load_scipy_linalg))


def _register_fft():
    """The rules of numpy.fft's transforms (revsrc/rules/fft.py, loaded with them)."""
    importlib.import_module(f"{__name__}.fft").register()


# Modules that load late: their rules register when a program first calls one of
# their functions (the program has imported it by then). SciPy is optional and slow
# to import; NumPy loads numpy.fft when np.fft is first read (revsrc/rules/fft.py,
# itself loaded then).
_LATE = _OPTIONAL + (("numpy.fft", _register_fft),)


def _register_optional_rules():
    for module, load in _LATE:
        if module in sys.modules:
            load()
        else:
            defer(_from(module), load)


def load_optional():
    """Register the rules of every optional library that is installed, and those of
    the standard modules registered when first used (revsrc/rules/effects.py), for
    tests and tools that list the rule table."""
    primitives.load_waiting()
    for module, _ in effects.MODULES:
        importlib.import_module(module)
    effects.register_loaded()
    for module, load in _LATE:
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        load()


_register_optional_rules()


def measure_index():
    """The index of revsrc/rules/index.py, measured: each waiting family registered
    with what it does recorded (in a process where none has registered yet)."""
    found = {}
    for family, load in LOADS.items():
        if load not in primitives.WAITING.loads:
            raise RuntimeError(f"the family {family} has registered already")
        primitives._TOUCHED.append([])
        try:
            primitives.WAITING._run([load])
        finally:
            done = primitives._TOUCHED.pop()
        names = sorted({name for what, name, _ in done if what == "record"})
        keys = {name_key(fn) for what, fn, _ in done if what == "callable"}
        keys |= {name_key(a.fn) for name in names for a in primitives._BY_NAME[name].aliases}
        facts = {}
        for what, fn, declared in done:
            for name in declared if what == "facts" else ():
                facts.setdefault(name, set()).add(name_key(fn))
        found[family] = (tuple(names), tuple(sorted(keys, key=repr)),
                         {k: tuple(sorted(v, key=repr)) for k, v in sorted(facts.items())})
    return found


def index_text(found):
    """revsrc/rules/index.py's ``FAMILIES`` for the measured index ``found``."""
    lines = ["FAMILIES = {"]
    for family, (names, keys, facts) in found.items():
        lines += [f"    {family!r}: ("] + _packed(names, 8) + _packed(keys, 8) + ["        {"]
        for fact, fact_keys in facts.items():
            lines += [f"            {fact!r}:"] + _packed(fact_keys, 12)
        lines += ["        }),"]
    return "\n".join(lines + ["}"]) + "\n"


def _packed(items, indent):
    """The tuple ``items`` as lines of at most 96 characters, ending in a comma."""
    lines, line = [], " " * indent + "("
    for item in items:
        text = repr(item) + ", "
        if len(line) + len(text) > 96 and line.strip() != "(":
            lines.append(line.rstrip())
            line = " " * (indent + 1)
        line += text
    return lines + [line.rstrip() + "),"]
