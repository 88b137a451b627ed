"""Small-array loops run compiled: the run-time side (the plan is made from the IR by
revsrc/backends/smallarr.py, which says what the tier takes).

A `SmallLoop` is one loop's body as a list of symbolic instructions over named
registers. ``run`` looks at the values the loop starts from: when every one is a
Python float or a plain float64 array (exact ndarray, C-contiguous, aligned, native)
and every instruction takes the shapes that follow, it lays the registers out in one
arena of doubles (once per combination of shapes, cached) and runs the whole loop in
C (``_kernels.sa_run``); it returns the values of the variables the loop assigns, and
the generated code binds them. Otherwise it returns None and the generated code runs
the loop in Python, as before. It also returns None when the loop raised a
floating-point exception that ``np.errstate`` does not ignore, or divided a Python
float by zero: Python then runs the loop from the same values, and NumPy warns or
raises exactly as it would have.

Saves: a forward loop's pushes go to a `Tape` (one row of doubles per iteration),
which is pushed on the loop's object stack as one item. The adjoint loop that pops
them (paired when planned: same stacks, reversed) takes the tape whole; if it cannot
run here it first pushes the tape's values back onto the stacks one by one, so that
the Python loop pops exactly what it would have.
"""
from __future__ import annotations

import numpy as np

from .. import _kernels
from .grads import linalg as _linalg

__all__ = ["SmallLoop", "Tape", "BINARY", "UNARY", "OP", "run_loop"]

# sub-opcodes of the C instructions (revsrc/_smallarr.pxi, _loop_kernels.pxi)
BINARY = {"add": 0, "subtract": 1, "multiply": 2, "divide": 3}
UNARY = {"tanh": 0, "exp": 1, "log": 2, "sin": 3, "cos": 4, "sqrt": 5, "negative": 6,
         "absolute": 7}
OP = {"bin": 1, "un": 0, "matmul": 2, "tanh_vjp": 3, "mov": 4, "fbin": 5, "push": 6,
       "pop": 7, "row": 8, "dot": 9, "linalg": 10}
LINALG = {"inv": 0, "det": 1, "solve1": 2, "solve": 3}
_READY = []


def _ready():
    if not _READY:
        _READY.append(bool(_kernels.sa_ready()))
    return _READY[0]


def linalg_ready():
    """Whether the tier can call np.linalg's float64 loops (inv, det, solve)."""
    return _ready() and bool(_kernels.sa_linalg_ready())


def _describe(v):
    """A live-in value's shape as the tier sees it: a tuple for a plain float64 array
    (NumPy's C strides exactly: a length-1 axis's stride, too, chooses np.matmul's
    BLAS call), ("T", r, c) for a matrix with a transposed matrix's strides (``x.T``),
    'f' for a Python float or int constant, 's' for a NumPy float64 scalar, None for
    anything else."""
    t = type(v)
    if t is float:
        return "f"
    if t is np.float64:
        return "s"
    # (NumPy's native float64 is one dtype object; a byte-swapped one is another)
    if t is np.ndarray and v.dtype is _F64 and 0 < v.ndim < 4 and v.size:
        flags = v.flags
        if not flags.aligned:
            return None
        shape = v.shape
        if flags.c_contiguous and (1 not in shape or v.strides == _c_strides(shape)):
            return shape
        if len(shape) == 2 and v.strides == (8, 8 * shape[0]):
            return ("T", shape[0], shape[1])
    return None


def _c_strides(shape):
    out, step = [], 8
    for d in reversed(shape):
        out.append(step)
        step *= d
    return tuple(reversed(out))


def transposed(shape):
    """Whether ``shape`` is a transposed matrix's: ("T", r, c), its data a (c, r)
    C-order array's (NumPy's view x.T of that array, or an F-order result)."""
    return type(shape) is tuple and len(shape) == 3 and shape[0] == "T"


def as_value(data, shape):
    """The array of a register (or tape row) ``data`` holding ``shape``."""
    if transposed(shape):
        return data.reshape(shape[2], shape[1]).T
    return data.reshape(shape)


class Tape:
    """A forward loop's saves: ``data[i * row + offset[j]]`` is push j of iteration i;
    ``entry[j]`` the object pushed by iteration 0 where it was no register's value."""
    __slots__ = ("data", "n", "row", "slots", "entry", "names", "spare")

    def __init__(self, data, n, row, slots, entry, names, spare):
        self.data, self.n, self.row, self.slots = data, n, row, slots
        self.entry, self.names, self.spare = entry, names, spare

    def value(self, i, j):
        stack, off, shape = self.slots[j]
        if i == 0 and j in self.entry:
            return self.entry[j]
        start = i * self.row + off
        if shape == "f":
            return float(self.data[start])
        if shape == "s":
            return self.data[start]         # a NumPy float64 scalar
        size = _size(shape)
        # (a copy: not a view of the tape)
        return as_value(self.data[start:start + size].copy(), shape)

    def expand(self):
        """Put the saves back on their stacks one by one (the tape was on top)."""
        owner = self.names[1]
        owner.pop()
        for i in range(self.n):
            for j, (stack, off, shape) in enumerate(self.slots):
                v = self.value(i, j)
                if isinstance(stack, list):
                    stack.append(v)
                else:
                    stack.push(v)


class SmallLoop:
    """One loop body's plan: ``code`` is a list of (op, sub, out, a, b) over register
    names; ``stacks`` the stack names the body pushes to or pops from (run gets them
    first, in this order), ``liveins`` the names read before the body assigns them,
    ``outputs`` those it assigns (the loop variable first)."""

    def __init__(self, name, code, var, stacks, liveins, outputs, consts, layout,
                 first=None, flags=((), ())):
        self.name, self.code, self.var = name, code, var
        self.stacks, self.liveins, self.outputs = stacks, liveins, outputs
        self.consts = consts            # register name -> float value
        self.layout = layout            # the shape rules (backends/smallarr.py)
        self.first = first              # the first iteration's code (None: ``code``)
        # (flag, value) the first iteration assumes, passed after the live-ins and
        # checked; (flag, value) after the loop, returned after the outputs
        self.flags_in, self.flags_out = list(flags[0]), list(flags[1])
        self.pushes = [c for c in code if c[0] == "push"]
        self.pops = [c for c in code if c[0] == "pop"]
        self._cache = {}
        self._spare = []                # tape buffers the adjoint has finished with
        self.runs = 0                   # runs done here (not in Python): for tests

    def disassemble(self):
        lines = [f"; small-array loop {self.name}: for {self.var} in range(...), "
                 f"{len(self.code)} instructions"]
        if self.first is not None:
            lines.append(f"; the first iteration: {len(self.first)} instructions, then")
        for op, sub, out, *operands in (self.first or []) + self.code:
            args = ", ".join(str(x).lstrip("=") for x in operands if x is not None)
            if op == "push":
                lines.append(f"  push {sub} {args}")
            elif op == "pop":
                lines.append(f"  {out} = pop {sub}")
            else:
                lines.append(f"  {out} = {op}{'.' + sub if sub else ''} {args}")
        return "\n".join(lines)

    def run(self, start, stop, step, *values):
        """The loop's results (one per output), or None: Python runs the loop."""
        tape = None
        ns = len(self.stacks)
        stacks, vals = values[:ns], values[ns:]
        if self.flags_in:
            nf = len(self.flags_in)
            vals, flags = vals[:-nf], vals[-nf:]
            if not all(f is v for f, (_, v) in zip(flags, self.flags_in)):
                vals = None     # not the flags the plan resolved its branches with
        if self.pops:
            tape = self._tape_on(stacks)
            if tape is None:
                return None
        out = None if vals is None else self._run(start, stop, step, stacks, vals, tape)
        if out is None and tape is not None:
            tape.expand()
        return out

    def _tape_on(self, stacks):
        # the first object stack: where the paired forward loop put its tape
        st = next(st for name, st in zip(self.stacks, stacks) if name[0] == "o")
        if st and type(st[-1]) is Tape:
            t = st[-1]
            want = tuple(c[1] for c in reversed(self.pops))
            return t if t.names[0] == want else None
        return None

    def _run(self, start, stop, step, stacks, vals, tape):
        if not (type(start) is int and type(stop) is int and type(step) is int) or \
                step == 0 or not _ready():
            return None
        n = len(range(start, stop, step))
        if n == 0 or (tape is not None and tape.n != n) or \
                (self.first is not None and n < 2):
            return None     # (a first iteration apart: what only later ones assign)
        key = tuple(_describe(v) for v in vals)
        if tape is not None:
            key += tuple(s[2] for s in tape.slots) + tuple(sorted(tape.entry))
        lay = self._cache.get(key)
        if lay is None:
            lay = self.layout(self, key, tape)
            if len(self._cache) > 16:
                self._cache.clear()
            self._cache[key] = lay
        if lay is False:
            return None
        return self._execute(lay, start, step, n, stacks, vals, tape)

    def _execute(self, lay, start, step, n, stacks, vals, tape):
        for i, j in lay.distinct:
            # one buffer read two ways: NumPy's matmul would call syrk (layout)
            if np.may_share_memory(vals[i], vals[j]):
                return None
        arena = lay.arena.copy()
        for (off, size, tr), v in zip(lay.live, vals):
            if size == 1:
                arena[off] = v if type(v) is not np.ndarray else v.flat[0]
            elif size:
                arena[off:off + size] = (v.T if tr else v).reshape(-1)
        row = lay.row if self.pushes else (tape.row if tape is not None else 0)
        row_w = lay.row if self.pushes else lay.brow
        try:
            tape_w = _buffer(self._spare, n * row_w) if row_w else _EMPTY
        except MemoryError:
            return None     # Python's loop keeps its saves as it always did
        tape_r = tape.data if tape is not None else _EMPTY
        views = tuple(vals[v[1]] if v[0] == "live" else _view(arena, *v) for v in lay.views)
        flags = _kernels.sa_run(lay.code, arena, n, tape_w, tape_r, row,
                                lay.loopvar, float(start), float(step), views, row_w,
                                lay.peel)
        if flags < 0:
            return None
        if lay.batches:
            with np.errstate(all="ignore"):
                done = all(_accumulated(arena, tape_w.reshape(n, row_w), b)
                           for b in lay.batches)
            if not done:
                return None     # an inf or NaN: Python's loop says what NumPy says
        if flags:
            modes = np.geterr()
            if any(modes[k] != "ignore" for k in _kernels.sa_flags_names(flags)):
                return None
        results = [start + (n - 1) * step]
        small = arena.size <= _VIEWS_UP_TO
        entries = tape.entry if tape is not None else {}
        for off, shape, from_slot, size in lay.outs:
            if from_slot is not None and from_slot in entries:
                results.append(entries[from_slot])
            elif off is None:
                results.append(None)    # a transposed view: of its source's result, below
            elif shape == "f":
                results.append(float(arena[off]))
            elif shape == "s":
                results.append(arena[off])     # a NumPy float64 scalar
            elif shape[0] == "T":
                results.append(as_value(arena[off:off + size] if small else
                                        arena[off:off + size].copy(), shape))
            elif small:
                results.append(arena[off:off + size].reshape(shape))
            else:   # a view would keep the whole arena alive in a returned gradient
                results.append(arena[off:off + size].reshape(shape).copy())
        for k, (off, src, _, _) in enumerate(lay.outs):
            if off is None:     # np.transpose(x) is a view of x's array, as in Python
                x = results[1 + src[1]] if src[0] == "out" else vals[src[1]]
                results[1 + k] = np.transpose(x)
        if self.pushes:
            owner = next(st for nm, st in zip(self.stacks, stacks) if nm[0] == "o")
            by_name = dict(zip(self.stacks, stacks))
            slots = [(by_name[c[1]], off, shape) for c, (off, shape) in
                     zip(self.pushes, lay.slots)]
            entry = {j: vals[k] for j, k in lay.entry.items()}
            names = (tuple(c[1] for c in self.pushes), owner)
            owner.append(Tape(tape_w, n, lay.row, slots, entry, names, self._spare))
        if tape is not None:
            tape.names[1].pop()
            if len(tape.spare) < 2:
                # nothing else holds the consumed tape's rows: the next forward run
                # writes its own there (fresh pages cost ~50 us per half megabyte)
                tape.spare.append(tape.data)
        results.extend(v for _, v in self.flags_out)
        self.runs += 1
        return tuple(results)


_EMPTY = np.empty(0, np.float64)
_F64 = np.dtype(np.float64)
_VIEWS_UP_TO = 16384    # doubles: an arena this small (128 KB) is handed out as views


def _buffer(spare, size):
    """A float64 buffer of ``size``: one the adjoint gave back, else a new one."""
    while spare:
        try:
            buf = spare.pop()
        except IndexError:      # another thread took it
            break
        if buf.size == size:
            return buf
    return np.empty(size, np.float64)


def _accumulated(arena, rows, batch):
    """A weight's adjoint accumulated over the loop at once: W + L.T @ R over the
    stacked factors (one np.dot), and each product's value from the last iteration,
    computed as the adjoint helper computes it (a later statement may read it).
    False when the sum is not finite."""
    off, shape, start, lsize, rsize, lw, rw, parts = batch
    size = _size(shape)
    left = rows[:, start:start + lsize].reshape(-1, lw)
    right = rows[:, start + lsize:start + lsize + rsize].reshape(-1, rw)
    w = arena[off:off + size].reshape(shape)
    arena[off:off + size] = np.add(w, np.dot(left.T, right).reshape(shape)).reshape(-1)
    last = rows[-1]
    for t, kind, loff, roff, nrows, toff, G, A, B in parts:
        lv = last[start + loff:start + loff + nrows * lw].reshape(nrows, lw)
        rv = last[start + roff:start + roff + nrows * rw].reshape(nrows, rw)
        if kind == "mgrad_a":
            t_val = np.multiply.outer(lv[0], rv[0])
        else:
            g = rv.reshape(G)
            t_val = _kernels.dot_grad_b(g, lv, np.empty(B)) if kind == "dgrad_b" else \
                _linalg.matmul_grad_b(g, lv, np.empty(B))
        arena[toff:toff + t_val.size] = t_val.reshape(-1)
    return bool(np.isfinite(arena[off:off + size]).all())


def _size(shape):
    if shape in ("f", "i", "s"):
        return 1
    n = 1
    for d in (shape[1:] if transposed(shape) else shape):
        n *= d
    return n


def _view(arena, off, shape, transposed):
    v = arena[off:off + _size(shape)].reshape(shape)
    return v.T if transposed else v


def run_loop(plan, start, stop, step, *values):
    """What generated code calls: ``plan.run``."""
    return plan.run(start, stop, step, *values)
