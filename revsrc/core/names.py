"""The one naming authority of a transformation.

Every variable of a generated program gets its name here: the user's own names, the
names of inlined functions' variables (prefixed with the function's name), adjoints
(``x_bar``), and temporaries. Temporaries are known as such by the namer, not by their
spelling, so passes ask `is_temp` instead of testing a prefix.

Names are deterministic: they derive from the user's names and a counter, never from
ids or randomness, so the same function always gives the same program.
"""
from __future__ import annotations

import re


def function_name(f):
    """An identifier for programs made from ``f``: its name, with ``<lambda>`` as
    ``lambda`` (so a derivative of a lambda is ``grad_lambda``)."""
    name = (getattr(f, "__name__", None) or "f").replace("<lambda>", "lambda")
    if not (name.isascii() and name.replace("_", "a").isalnum()):   # (most names: no
        name = re.sub(r"\W", "_", name)     # regular expression to compile, a first
    name = name.strip("_") or "f"            # call's tenth of a millisecond)
    return name if not name[0].isdigit() else "f_" + name


class Names:
    def __init__(self):
        self.taken = set()
        self.temps = set()      # value temporaries (_t1, _t2...): free to fold away
        self.control = set()    # trip counts, loop indices, branch flags (_n, _k, _b...)
        self.bars = {}          # variable -> its adjoint's name
        self.dots = {}          # variable -> its tangent's name (forward mode)
        self.bar_names = set()  # the names of adjoints and tangents (`is_bar`)
        self.adjoints = set()   # the names of adjoints alone (`is_adjoint`)
        self.fixed = set()      # names claimed by `internal` (results, region flags)
        self.count = 0

    def fork(self):
        """A namer for transforming again the program this one named (a derivative of
        a derivative): every name taken stays taken and keeps what it is (temporary,
        control, derivative variable), but the adjoints and tangents of the new
        transformation are its own, so `bar` and `dot` start afresh. The namer of
        the program forked from is left as it was (its program stays cached)."""
        other = Names()
        other.taken = set(self.taken)
        other.temps = set(self.temps)
        other.control = set(self.control)
        other.bar_names = set(self.bar_names)
        other.adjoints = set(self.adjoints)
        other.count = self.count
        return other

    def reserve(self, name):
        """Claim ``name`` (a user's variable, or one of an inlined function's)."""
        self.taken.add(name)
        return name

    def _fresh(self, base):
        while True:
            self.count += 1
            name = f"{base}{self.count}"
            if name not in self.taken:
                self.taken.add(name)
                return name

    def version(self, base):
        """A second name for the user's variable ``base``, for an earlier value of it
        still in use after ``base`` is assigned again (``a_v3``)."""
        return self._fresh(f"{base}_v")

    def temp(self):
        """A new value temporary."""
        name = self._fresh("_t")
        self.temps.add(name)
        return name

    def fresh(self, base):
        """A new control variable, spelled ``base`` and a number (``_n3``)."""
        name = self._fresh(base)
        self.control.add(name)
        return name

    def is_temp(self, name):
        return name in self.temps

    def internal(self, name):
        """Claim the fixed name ``name`` for a variable of the transformation's own
        (a function's result ``_ret``, a control flag named after its region)."""
        self.taken.add(name)
        self.fixed.add(name)
        self.control.add(name)
        return name

    flag = internal

    def is_result_slot(self, name):
        """Whether ``name`` is a function's result (or an item of it) named by
        `internal`: each run of its function assigns it once. A namer forked for a
        derivative of a derivative knows none (its program restores them too)."""
        return name in self.fixed

    def is_generated(self, name):
        """Whether ``name`` was made by the transformation (not one of the user's)."""
        return name in self.temps or name in self.control or self.is_bar(name)

    def bar(self, var):
        """The adjoint of ``var`` (the same name every time it is asked for)."""
        name = self.bars.get(var)
        if name is None:
            name = var + "_bar"
            k = 1
            while name in self.taken:
                k += 1
                name = f"{var}_bar{k}"
            self.taken.add(name)
            self.bars[var] = name
            self.bar_names.add(name)
            self.adjoints.add(name)
        return name

    def dot(self, var):
        """The tangent of ``var`` (forward mode), the same name every time."""
        name = self.dots.get(var)
        if name is None:
            name = var + "_dot"
            k = 1
            while name in self.taken:
                k += 1
                name = f"{var}_dot{k}"
            self.taken.add(name)
            self.dots[var] = name
            self.bar_names.add(name)   # derivative variables fold like adjoints
        return name

    def is_bar(self, name):
        """Whether ``name`` is an adjoint or a tangent (this transformation's or one
        before it)."""
        return name in self.bar_names

    def is_adjoint(self, name):
        """Whether ``name`` is an adjoint (made by `bar`; a tangent is not one)."""
        return name in self.adjoints

    def prefix(self, base, names):
        """A prefix ``base_`` (or ``base2_``...) under which none of ``names`` is taken."""
        k = 1
        while True:
            prefix = f"{base}_" if k == 1 else f"{base}{k}_"
            if not any(prefix + n in self.taken for n in names):
                return prefix
            k += 1
