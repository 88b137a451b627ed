"""The lanes tier: an engine program run over a block of elements at once.

``revsrc.vmap`` of a scalar function runs the function's engine program on many
independent elements. One element at a time, each libm call waits for the one before
it; with the elements as lanes, each basic block of the program runs as a C loop over
the lanes waiting at it, so the calls of independent lanes overlap in the CPU (as in a
C loop over a batch). This module translates a program into one C function that does
so, compiles it with the native tier's compiler and cache (native.py), and loads it
for ``revsrc._kernels.LaneMapper``.

- A register that some block reads before writing (a parameter, a loop's value, an
  output) is a row of ``width`` lanes; one every block writes before it reads is a C
  local of the loop; the others (constants, globals) are read once for all lanes.
- Each lane has its own block to run next; the run takes the lowest block any lane
  waits at and runs it over those lanes, so lanes that branch apart run their own arms
  and join again after them, and a loop runs until every lane has left it.
- Each instruction is the very C statement of the VM and of the native tier
  (``_engine_ops.py``) on one lane, in the same order for that lane: the digits are
  those of a call, whatever the other lanes do. NumPy's loops are called per lane as
  for a 0-d operand (over a whole block, their SIMD paths could differ in the last
  bit). An error ends its lane only, with the lane's code.
- Each lane has its own stacks (a derivative's saved values).
"""
from __future__ import annotations

import ctypes
import os
import queue
import threading

from ... import _engine_c
from ... import _engine_ops as ops
from ..._kernels import bind_uloops
from . import native, tier
from .tier import mode

__all__ = ["translate", "compiled", "request", "wait", "block_width"]

LANE_BYTES = 64 * 1024          # a block's registers: about L2-resident
MAX_WIDTH, MIN_WIDTH = 256, 8
_TERMINATES = {"HALT", "RAISE"}

# Per-lane forms of the semantics' macros: `l` is the lane, `skip` ends its turn in
# the block (a jump, the end, an error: the rest of the block is not its path).
_MACROS = """\
#undef GOTO
#undef BACK
#undef FAIL
#undef CHECK
#undef DONE
#undef ITER
#undef ERRARG
#define GOTO(t) do { lpc[l] = (t); goto skip; } while (0)
#define BACK(t) do { ++iters; lpc[l] = (t); goto skip; } while (0)
#define FAIL(e) do { lerr[l] = (e); lpc[l] = NB; goto skip; } while (0)
#define CHECK(call) do { int e_ = (call); if (e_) FAIL(e_); } while (0)
#define DONE do { lpc[l] = NB; goto skip; } while (0)
#define ITER (++iters)
#define ERRARG(k) (larg[l] = (k))
#define fdata fst[l]
#define fsize fsz[l]
#define fcap fcp[l]
#define idata ist[l]
#define isize isz[l]
#define icap icp[l]
"""

_SIGNATURE = ("int rv_lanes_run{sfx}(double *R, const double *U, int n, int *lpc, int *idx, "
              "int *lerr, int *larg, double **fst, intptr_t *fsz, intptr_t *fcp, "
              "int64_t **ist, intptr_t *isz, intptr_t *icp, unsigned long long *piters, "
              "unsigned long long tick)")


def block_width(rows):
    """Lanes per block for a program with ``rows`` lane registers: a power of two
    whose registers fit in about LANE_BYTES."""
    w = MAX_WIDTH
    while w > MIN_WIDTH and w * max(rows, 1) * 8 > LANE_BYTES:
        w //= 2
    return w


def _blocks(insts):
    """Leaders of the basic blocks, in code order, and {pc: block index}."""
    leaders = {0} if insts else set()
    for k, (pc, name, operands) in enumerate(insts):
        fmt = ops.FORMAT[name]
        if "j" in fmt or name in _TERMINATES:
            leaders.update(v for f, v in zip(fmt, operands) if f == "j")
            if k + 1 < len(insts):
                leaders.add(insts[k + 1][0])
    pcs = {pc for pc, _, _ in insts}
    order = sorted(leaders & pcs)       # a jump to the end leaves the run
    return order, {pc: i for i, pc in enumerate(order)}


def _live_in(insts, order, block_of):
    """Per block, the registers some path from its start reads before writing."""
    nb = len(order)
    cur = -1
    spans = [[] for _ in range(nb)]
    for pc, name, operands in insts:
        if pc in block_of:
            cur = block_of[pc]
        spans[cur].append((name, operands))
    gen, kill, succ = [], [], []
    for b, span in enumerate(spans):
        g, k = set(), set()
        for name, operands in span:
            reads, writes = _engine_c._uses(name, operands)
            g |= reads - k
            k |= writes
        gen.append(g)
        kill.append(k)
        name, operands = span[-1]
        fmt = ops.FORMAT[name]
        nxt = {block_of.get(v, nb) for f, v in zip(fmt, operands) if f == "j"}
        if name not in _engine_c._JUMPS_ALWAYS and name not in _TERMINATES:
            nxt.add(b + 1)
        succ.append([x for x in nxt if x < nb])
    live = [set(g) for g in gen]
    changed = True
    while changed:
        changed = False
        for b in range(nb - 1, -1, -1):
            out = set().union(*[live[x] for x in succ[b]]) if succ[b] else set()
            new = gen[b] | (out - kill[b])
            if new != live[b]:
                live[b] = new
                changed = True
    return live


def layout(code, nregs, params, outs):
    """({register: row} of the registers that differ between lanes and live across
    blocks, set of the block temporaries: registers every block writes before it reads
    them, kept in C locals). Every other register holds the same value in every lane."""
    insts = _engine_c.decode(code)
    order, block_of = _blocks(insts)
    varying = set(params)
    for _, name, operands in insts:
        varying |= _engine_c._uses(name, operands)[1]
    live = set(params) | set(outs)
    for s in _live_in(insts, order, block_of):
        live |= s
    temps = {v for v in varying if v not in live}
    rows = sorted(v for v in varying - temps if 0 <= v < nregs)
    return {r: i for i, r in enumerate(rows)}, temps


def _operand(operands, rows, temps, width, block_of, nb, local_u):
    def sub(n, letter):
        v = operands[n - 1]
        if letter in "wrx":
            if v in temps:
                return f"t{v}"
            row = rows.get(v)
            return f"U[{v}]" if row is None else f"R[{row * width} + l]"
        if letter == "j":
            return str(block_of.get(v, nb))
        if letter == "u":
            return str(local_u[v])
        return str(v)
    return sub


def _statement(name, operands, sub):
    """One instruction on lane ``l``, as the VM runs it."""
    body = _engine_c.expand(ops.INSTRUCTIONS[ops.OPCODE[name]][2], ops.FORMAT[name], sub)
    return f"            {{ {body} }}  /* {name} */"


def translate(code, nregs, params, outs, suffix=""):
    """C for ``rv_lanes_run<suffix>`` over ``code`` and its table of NumPy loops
    ``rv_lanes_uloops<suffix>``. Returns (text, engine slots in table order, rows,
    width)."""
    insts = _engine_c.decode(code)
    order, block_of = _blocks(insts)
    nb = len(order)
    rows, temps = layout(code, nregs, params, outs)
    decl = (" double " + ", ".join(f"t{v}" for v in sorted(temps)) + ";") if temps else ""
    width = block_width(len(rows))
    local_u = {}
    for _, name, operands in insts:
        for f, v in zip(ops.FORMAT[name], operands):
            if f == "u":
                local_u.setdefault(v, len(local_u))
    lines = [f"rv_uloop rv_lanes_uloops{suffix}[{max(1, len(local_u))}];", "",
             _SIGNATURE.format(sfx=suffix), "{",
             f"    const int NB = {nb};",
             f"    const rv_uloop *const uloops = rv_lanes_uloops{suffix};",
             "    unsigned long long iters = *piters;",
             "    int j, m, cur, q, ident = 0;",
             f"    int cnt[{nb + 1}] = {{0}};   /* lanes waiting at each block */",
             "    (void)uloops; (void)U; (void)R; (void)lerr;",
             "    (void)fst; (void)fsz; (void)fcp; (void)ist; (void)isz; (void)icp; (void)larg;",
             "    for (q = 0; q < n; q++) if (lpc[q] < NB) cnt[lpc[q]]++;",
             "    for (;;) {",
             "        for (cur = 0; cur < NB && !cnt[cur]; cur++) {}",
             "        if (cur >= NB) break;",
             "        m = cnt[cur];",
             "        cnt[cur] = 0;",
             "        if (m == n) {   /* every lane: the block runs them in order */",
             "            if (!ident) { for (q = 0; q < n; q++) idx[q] = q; ident = 1; }",
             "        } else {",
             "            ident = m = 0;",
             "            for (q = 0; q < n; q++) if (lpc[q] == cur) idx[m++] = q;",
             "        }",
             "        switch (cur) {"]
    starts = set(order)
    blk = -1
    for k, (pc, name, operands) in enumerate(insts):
        if pc in starts:
            blk = block_of[pc]
            lines.append(f"    case {blk}:  /* pc {pc} */")
            lines.append("        for (j = 0; j < m; j++) { __label__ skip; const int l = idx[j]; double a, b, v;" + decl)
            lines.append(f"            lpc[l] = {blk + 1};")
        sub = _operand(operands, rows, temps, width, block_of, nb, local_u)
        lines.append(_statement(name, operands, sub))
        if k + 1 == len(insts) or insts[k + 1][0] in starts:
            lines.append("            skip: cnt[lpc[l]]++; (void)a; (void)b; (void)v;")
            lines.append("        }")
            lines.append("        break;")
            blk = -1
    lines += ["        default: return RV_E_FALLBACK;",
              "        }",
              "        if (iters >= tick) { *piters = iters; return RV_E_PAUSE; }",
              "    }",
              "    *piters = iters;",
              "    return 0;",
              "}", ""]
    return "\n".join(lines), list(local_u), rows, width


def unit(functions):
    """A complete C translation unit holding ``functions`` (from `translate`)."""
    head = ["#define _GNU_SOURCE", _engine_c.prelude(), _engine_c.runtime_text(), "",
            "/* engine programs over lanes, translated by revsrc/backends/engine/lanes.py */",
            _MACROS]
    return "\n".join(head + list(functions))


# ----- Building and loading -----

class Lanes:
    """A program's compiled lanes function: its address, rows and width (and what
    keeps its library loaded)."""

    def __init__(self, address, rows, width, lib):
        self.address = address
        self.rows = rows
        self.width = width
        self.lib = lib


_done = {}                  # (code, nregs, params) -> Lanes, or None when it failed
_pending = {}               # the same key -> threading.Event
_lock = threading.Lock()


def _key(program):
    return (program.code_list, program.nregs, tuple(program._param_registers()))


def _build(program):
    cc = native.compiler()
    if cc is None:
        return None
    text, slots, rows, width = translate(program.code_list, program.nregs,
                                         program._param_registers(),
                                         program._out_registers())
    key, path = native._build(unit([text]), cc)
    lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_LOCAL", 0) | getattr(os, "RTLD_NOW", 2))
    table = ctypes.addressof(ctypes.c_char.in_dll(lib, "rv_lanes_uloops"))
    bind_uloops(table, slots)
    address = ctypes.cast(lib.rv_lanes_run, ctypes.c_void_p).value
    return Lanes(address, rows, width, lib)


def _finish(key, program):
    try:
        got = _build(program)
    except Exception as exc:   # the per-element path keeps serving
        native._warn_once(("lanes", type(exc).__name__),
                          f"revsrc lanes tier: a program could not be compiled, it runs one "
                          f"element at a time ({type(exc).__name__}: {str(exc)[:300]})")
        got = None
    with _lock:
        _done[key] = got
        event = _pending.pop(key, None)
    if event is not None:
        event.set()


_AUX = frozenset(("PUSHX", "POPX"))


def _other_stacks(program):
    """Whether ``program`` saves on stacks beside the float and the int one (a
    derivative of a derivative): each lane has only those two, so it runs one element
    at a time."""
    return any(name in _AUX for _, name, _ in _engine_c.decode(program.code_list))


def compiled(program):
    """The program's Lanes, or None (not compiled yet, or it cannot be)."""
    return _done.get(_key(program))


def request(program):
    """Compile ``program``'s lanes function: in a background thread, or in this one
    with REVSRC_NATIVE=sync. Nothing when the tier is off or the program too big."""
    m = mode()
    if m == "off" or not tier.eligible(program) or native.compiler() is None \
            or _other_stacks(program):
        return
    key = _key(program)
    with _lock:
        if key in _done or key in _pending:
            return
        _pending[key] = threading.Event()
    if m == "sync":
        _finish(key, program)
        return
    _jobs.put((key, program))
    with _lock:
        if not _worker:         # one compiler at a time, as the native tier's
            _worker.append(threading.Thread(target=_work, name="revsrc-lanes", daemon=True))
            _worker[0].start()


_jobs = queue.Queue()
_worker = []


def _work():
    while True:
        key, program = _jobs.get()
        _finish(key, program)
        del program


def wait(program, timeout=None):
    """Block until ``program``'s lanes function is compiled (or failed); its Lanes."""
    with _lock:
        event = _pending.get(_key(program))
    if event is not None:
        event.wait(timeout)
    return compiled(program)
