"""What the reverse pass knows about the forward program before it writes any code.

`Plan` indexes every statement of the forward program as a *site* (in program
order, with the loops around it), and decides from what the adjoint sweep reads
which definitions must save the value they replace, which numbers came out of
arrays (saved as they are), and which cheap temporaries the adjoint recomputes
rather than saves. The adjoint sweep (`adjoint.Adjoint`) fills in what it reads and
which control statements have adjoint work; the forward sweep (`forward.sweep`)
then saves exactly that.
"""
from __future__ import annotations

import operator

from ... import primitives, runtime
from ...core import ir, kinds
from ...core.ir import Break, For, If, Op, While
from ..analysis import SCALARS
from .stacks import STACK_OF


class Plan:
    def __init__(self, names, kinds_, ndims, active, params):
        self.names = names
        self.kinds = kinds_
        self.ndims = ndims
        self.active = active
        self.params = set(params)
        self.primal_reads = set()
        self.read_sites = {}       # v -> sites whose adjoints read its primal value
        self.cur_site = None       # the site whose adjoint is being written
        self.loops_of = {}         # site -> the sites of the loops around it
        self._loops = ()
        self.def_count = {}
        self.in_loop_defs = set()  # site ids defined inside a loop
        self.site_of = {}          # id(stmt) -> site
        self.site_var = {}
        self.site_stmt = {}
        self.nsites = 0
        self.forward_vars = set(params)
        self.rev_nonempty = {}     # site -> reverse of a control statement is non-empty
        self.needs_var = {}        # For site -> loop variable needed in reverse
        self.static_trips = {}     # For site -> Const trip count known at transformation
        self.recompute = {}        # temp -> its defining Op, recomputed in the adjoint
        self.companions = {}       # id(sin/cos Op) -> (other fn, argument, companion var)
        self.array_items = set()   # numbers read from arrays (see find_array_items)
        self.pushed = set()        # sites whose definition the forward sweep saves

    def index(self, stmts, depth=0):
        for s in stmts:
            site = self.nsites
            self.nsites += 1
            self.site_of[id(s)] = site
            self.site_stmt[site] = s
            self.loops_of[site] = self._loops
            for v in ir.writes(s):
                self.def_count[v] = self.def_count.get(v, 0) + 1
                self.forward_vars.add(v)
                self.site_var[site] = v
                if depth > 0:
                    self.in_loop_defs.add(site)
            if isinstance(s, If):
                self.index(s.body, depth)
                self.index(s.orelse, depth)
            elif isinstance(s, (For, While)):
                outer, self._loops = self._loops, self._loops + (site,)
                if isinstance(s, While):
                    self.index(s.test_body, depth + 1)
                self.index(s.body, depth + 1)
                self._loops = outer

    def stack(self, v):
        """The stack the values of ``v`` are saved on."""
        if v in self.array_items:
            return "o"
        return STACK_OF.get(self.kinds.get(v), "o")

    def find_array_items(self, body):
        """Numbers read out of arrays, and numbers computed from them: their kind says
        float, but the array's dtype is not known here (``idx[t]`` of an integer array
        is an index), so they are saved as they are, never as doubles."""
        found = set()
        stmts = [s for s in ir.walk(body) if isinstance(s, Op) and s.target is not None
                 and self.kinds.get(s.target) == kinds.FLOAT]
        changed = True
        while changed:
            changed = False
            for s in stmts:
                if s.target in found:
                    continue
                args = [a for a in s.args if isinstance(a, str)]
                if (s.fn in (operator.getitem, runtime.take) and args
                        and args[0] == s.args[0] and self.kinds.get(args[0]) == kinds.ARRAY) \
                        or (any(a in found for a in args)   # ints for int operands:
                            and primitives.fact(s.fn, "int_preserving")):
                    found.add(s.target)
                    changed = True
        self.array_items = found

    def overwrites(self, site, v):
        return v in self.params or self.def_count.get(v, 0) > 1 or site in self.in_loop_defs

    def read(self, v):
        """The adjoint being written reads the primal value of ``v``."""
        self.primal_reads.add(v)
        self.read_sites.setdefault(v, set()).add(self.cur_site)

    def needed(self, v):
        return v in self.primal_reads

    def saves(self, site, v):
        """Whether the definition of ``v`` at ``site`` must save the value it replaces:
        an adjoint that runs after it is undone reads ``v`` (one of a statement before
        it, or of any statement of a loop around it: an earlier iteration's)."""
        if not (v in self.primal_reads and self.overwrites(site, v)):
            return False
        loops = set(self.loops_of.get(site, ()))
        for r in self.read_sites.get(v, ()):
            if r is None or r <= site or loops & set(self.loops_of.get(r, ())):
                return True
        return False

    def find_recomputable(self, stmts, uses):
        """Temporaries made by one cheap operation from inputs that do not change
        before their last use in the same block: recomputing one costs less than
        saving and restoring it (they matter inside loops)."""
        read_by = None
        for i, s in enumerate(stmts):
            if isinstance(s, If):
                self.find_recomputable(s.body, uses)
                self.find_recomputable(s.orelse, uses)
            elif isinstance(s, (For, While)):
                self.find_recomputable(s.body, uses)
            if not (isinstance(s, Op) and s.target is not None
                    and self.names.is_temp(s.target) and self.def_count.get(s.target) == 1
                    and not s.kwargs and s.target not in s.args
                    and self.site_of[id(s)] in self.in_loop_defs
                    and self.kinds.get(s.target) in SCALARS
                    and primitives.fact(s.fn, "cheap")):
                continue
            if read_by is None:
                read_by = _read_by(stmts)
            if self._unchanged_until_used(stmts, i, uses, read_by):
                self.recompute[s.target] = s

    def _unchanged_until_used(self, stmts, i, uses, read_by):
        """Whether every use of ``stmts[i]``'s target is in ``stmts`` after it, and the
        user's variables it reads keep their values until the last one (``read_by``:
        `_read_by` of ``stmts``)."""
        s = stmts[i]
        t = s.target
        later = [(j, k) for j, k in read_by.get(t, ()) if j > i]
        if not later or sum(k for _, k in later) != uses.get(t, 0):
            return False
        users = [j for j, _ in later]
        last = users[-1]
        inputs = {a for a in s.args if isinstance(a, str)}
        # from the user's variables only: a temporary input would need saving itself
        safe = not any(self.names.is_generated(a) for a in inputs)
        for j in range(i + 1, last + 1):
            for w in ir.walk([stmts[j]]):
                written = set(ir.writes(w)) & inputs
                if written and not (j in users and w is stmts[j]
                                    and written <= set(stmts[j].args)):
                    safe = False
        return safe


def _read_by(stmts):
    """name -> [(index, times read)] of the operations in ``stmts`` that read it, in
    order (one pass over the block, where each candidate scanned the rest of it)."""
    found = {}
    for j, s in enumerate(stmts):
        if isinstance(s, Op):
            counts = {}
            for name in ir.reads(s):
                counts[name] = counts.get(name, 0) + 1
            for name, k in counts.items():
                found.setdefault(name, []).append((j, k))
    return found


def breaks(stmts):
    """Whether ``stmts`` can leave their loop through a ``break`` (not an inner loop's)."""
    for s in stmts:
        if isinstance(s, Break):
            return True
        if isinstance(s, If) and (breaks(s.body) or breaks(s.orelse)):
            return True
    return False
