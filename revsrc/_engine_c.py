"""C from the engine's one source, ``_engine_ops.py``.

``vm_header()`` is what the build includes (setup.py writes it to
``revsrc/_engine_vm.h``): the opcode and error enums, the libm table, and the VM's
dispatch loop, one handler per instruction made from its semantics. The native tier
(``revsrc/backends/engine/native.py``) expands the very same semantics per instruction of one program
(`expand`), so the VM and a compiled program execute the same C statements.

Standard library only: setup.py loads this file before the package is built.
"""
from __future__ import annotations

import os
import re

try:
    from . import _engine_ops as ops
except ImportError:  # loaded by setup.py from its own directory, before the build
    import _engine_ops as ops

_OPERAND = re.compile(r"\$(\d)")


_RUNTIME = []


def runtime_text():
    """``_engine_rt.h``, pasted into each native translation (so the translation is
    self-contained, and its text is its cache key)."""
    if not _RUNTIME:
        path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "_engine_rt.h")
        with open(path, encoding="utf-8") as fh:
            _RUNTIME.append(fh.read())
    return _RUNTIME[0]


def expand(semantics, fmt, operand):
    """``semantics`` with each ``$n`` replaced by ``operand(n, letter)``."""
    def sub(m):
        n = int(m.group(1))
        return operand(n, fmt[n - 1])
    return _OPERAND.sub(sub, semantics)


def prelude():
    """Enums and tables every translation needs before ``_engine_rt.h``."""
    lines = ["/* Generated from revsrc/_engine_ops.py by revsrc/_engine_c.py: do not edit. */",
             "#include <math.h>", "", "enum {"]
    lines += [f"    RV_OP_{name} = {i}," for i, (name, *_) in enumerate(ops.INSTRUCTIONS)]
    lines += [f"    RV_NOPS = {len(ops.INSTRUCTIONS)}", "};", "", "enum {"]
    lines += [f"    RV_E_{name} = {i}," for i, (name, *_) in enumerate(ops.ERRORS)]
    lines += [f"    RV_NERRORS = {len(ops.ERRORS)}", "};", ""]
    lines.append("/* MATH1: one-argument libm functions, and how the math module checks them */")
    lines.append("static double (*const rv_m1_fn[])(double) = {"
                 + ", ".join(name for name, _ in ops.MATH1) + "};")
    lines.append("static const int rv_m1_mode[] = {"
                 + ", ".join(str(mode) for _, mode in ops.MATH1) + "};")
    return "\n".join(lines) + "\n"


def _vm_operand(n, letter):
    return f"r[ip[{n}]]" if letter in "wrx" else f"ip[{n}]"


def vm_header():
    """The C header the build includes: prelude, run-time support, and ``rv_vm_run``."""
    out = [prelude(), '#include "_engine_rt.h"', "", _VM_TOP]
    labels = ", ".join(f"&&op_{name}" for name, *_ in ops.INSTRUCTIONS)
    out.append("#ifdef RV_THREADED")
    out.append(f"    static const void *const labels[RV_NOPS] = {{{labels}}};")
    out.append("#endif")
    out.append(_VM_DISPATCH)
    for name, fmt, semantics, _ in ops.INSTRUCTIONS:
        body = expand(semantics, fmt, _vm_operand)
        out.append(f"    RV_LABEL({name}) {{ {body} }}")
        out.append(f"        ip += {len(fmt) + 1}; DISPATCH();")
    out.append(_VM_BOTTOM)
    return "\n".join(out) + "\n"


_VM_TOP = """\
#if defined(__GNUC__) && !defined(RV_NO_THREADED)
#define RV_THREADED 1   /* computed goto: one indirect jump per handler */
#endif

/* Run the program in st->code from offset st->resume until it halts (0), fails (an
 * RV_E_* code) or pauses at a back edge (RV_E_PAUSE, st->resume set) so that the
 * caller can check for signals. No Python object is touched: callable without the GIL
 * (one thread per state). */
static int rv_vm_run(rv_state *st)
{
    double *const r = st->regs;
    const int *const code = st->code;
    const int *ip = code + st->resume;
    const rv_uloop *const uloops = st->uloops;
    double *fdata = st->fdata;
    intptr_t fsize = st->fsize, fcap = st->fcap;
    int64_t *idata = st->idata;
    intptr_t isize = st->isize, icap = st->icap;
    unsigned long long iters = st->iters;
    const unsigned long long tick_mask = st->tick_mask;
    int err = 0;
    double a, b, v;"""

_VM_DISPATCH = """\
#ifdef RV_THREADED
#define DISPATCH() goto *labels[*ip]
#define RV_LABEL(name) op_##name:
#else
#define DISPATCH() goto dispatch
#define RV_LABEL(name) case RV_OP_##name:
#endif
#define GOTO(t)                                                                    \\
    do {                                                                           \\
        ip = code + (t);                                                           \\
        DISPATCH();                                                                \\
    } while (0)
#define BACK(t)                                                                    \\
    do {                                                                           \\
        ip = code + (t);                                                           \\
        if (!(++iters & tick_mask)) {                                              \\
            st->resume = (int)(ip - code);                                         \\
            FAIL(RV_E_PAUSE);                                                      \\
        }                                                                          \\
        DISPATCH();                                                                \\
    } while (0)
    DISPATCH();
#ifndef RV_THREADED
dispatch:
    switch (*ip) {
#endif"""

_VM_BOTTOM = """\
#ifndef RV_THREADED
    default:
        err = RV_E_FALLBACK;
        goto out;
    }
#endif
out:
    st->fdata = fdata;
    st->fsize = fsize;
    st->fcap = fcap;
    st->idata = idata;
    st->isize = isize;
    st->icap = icap;
    st->iters = iters;
    return err;
#undef DISPATCH
#undef RV_LABEL
#undef GOTO
#undef BACK
}"""


def write_vm_header(path):
    """Write the VM header to ``path`` unless it already holds exactly that (so an
    unchanged table does not force a rebuild). Returns True if written."""
    text = vm_header()
    try:
        with open(path, encoding="utf-8") as fh:
            if fh.read() == text:
                return False
    except OSError:
        pass
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return True


# ----- The native tier: one engine program as one C function -----

_JUMPS_ALWAYS = {"JMP", "LOOP"}          # no fall-through
_ENDS = {"HALT", "RAISE"}                # leave the run


def decode(code):
    """``[(pc, name, operands)]`` of an assembled code list."""
    out = []
    pc = 0
    while pc < len(code):
        name, fmt, *_ = ops.INSTRUCTIONS[code[pc]]
        out.append((pc, name, tuple(code[pc + 1:pc + 1 + len(fmt)])))
        pc += 1 + len(fmt)
    return out


def _uses(name, operands):
    fmt = ops.FORMAT[name]
    reads = {v for f, v in zip(fmt, operands) if f in "rx"}
    writes = {v for f, v in zip(fmt, operands) if f in "wx"}
    return reads, writes


def live_at_entry(code):
    """Registers some path from the start reads before writing: all that a run needs
    from the state (constants, parameters, globals, and anything read unwritten)."""
    insts = decode(code)
    at = {pc: k for k, (pc, _, _) in enumerate(insts)}
    succ = []
    for k, (pc, name, operands) in enumerate(insts):
        fmt = ops.FORMAT[name]
        nxt = [] if name in _JUMPS_ALWAYS or name in _ENDS else [k + 1]
        nxt += [at.get(v, len(insts)) for f, v in zip(fmt, operands) if f == "j"]
        succ.append([s for s in nxt if s < len(insts)])
    uses = [_uses(name, operands) for _, name, operands in insts]
    live = [set() for _ in insts]
    changed = True
    while changed:
        changed = False
        for k in range(len(insts) - 1, -1, -1):
            out = set()
            for s in succ[k]:
                out |= live[s]
            reads, writes = uses[k]
            new = reads | (out - writes)
            if new != live[k]:
                live[k] = new
                changed = True
    return live[0] if insts else set()


def unit(functions):
    """A complete C translation unit holding ``functions`` (from `translate`)."""
    head = ["#define _GNU_SOURCE", prelude(), runtime_text(), "",
            "/* engine programs, translated by revsrc/_engine_c.py */",
            "#define GOTO(t) goto L##t",
            "#define BACK(t) do { if (!(++iters & tick_mask)) { resume_at = (t); goto pause; } "
            "goto L##t; } while (0)", ""]
    return "\n".join(head + list(functions))


def _scan(insts):
    """What translation needs to know of the decoded ``insts`` before writing them:
    (jump targets, targets of backward jumps (a run may pause and resume there), each
    'u' slot's index in first-use order, registers written)."""
    targets, back, local_u, written = set(), set(), {}, set()
    for pc, name, operands in insts:
        fmt = ops.FORMAT[name]
        for f, v in zip(fmt, operands):
            if f == "j":
                targets.add(v)
                if "BACK(" in ops.INSTRUCTIONS[ops.OPCODE[name]][2]:
                    back.add(v)
            elif f == "u":
                local_u.setdefault(v, len(local_u))
        written |= _uses(name, operands)[1]
    return targets, back, local_u, written


def _operand_text(operands, local_u):
    """The `expand` callback for one instruction: registers as C locals, 'u' slots by
    their index in the program's own table."""
    def sub(n, letter):
        v = operands[n - 1]
        if letter in "wrx":
            return f"r{v}"
        if letter == "u":
            return str(local_u[v])
        return str(v)
    return sub


def _entry(suffix, names, nregs, back):
    """The function's head: the loops table, the state in locals, and the resume
    switch (a paused run comes back at a backward jump's target)."""
    lines = [f"/* NumPy loops: {', '.join(names) if names else 'none'} */",
             f"rv_uloop rv_native_uloops{suffix}[{max(1, len(names))}];",
             "",
             f"int rv_native_run{suffix}(rv_state *st)",
             "{",
             "    double *const R = st->regs;",
             f"    const rv_uloop *const uloops = rv_native_uloops{suffix};",
             "    double *fdata = st->fdata;",
             "    intptr_t fsize = st->fsize, fcap = st->fcap;",
             "    int64_t *idata = st->idata;",
             "    intptr_t isize = st->isize, icap = st->icap;",
             "    unsigned long long iters = st->iters;",
             "    const unsigned long long tick_mask = st->tick_mask;",
             "    int err = 0, resume_at = 0;",
             "    double a, b, v;"]
    lines += [f"    double r{i} = R[{i}];" for i in range(nregs)]
    lines += ["    (void)a; (void)b; (void)v; (void)uloops; (void)resume_at; (void)tick_mask;"]
    if back:
        lines.append("    switch (st->resume) {")
        lines.append("    case 0: break;")
        lines += [f"    case {t}: goto L{t};" for t in sorted(back) if t != 0]  # 0: start
        lines.append("    default: err = RV_E_FALLBACK; goto save;")
        lines.append("    }")
    else:
        lines.append("    if (st->resume) { err = RV_E_FALLBACK; goto save; }")
    return lines


def _exit(back, every, store):
    """The function's tail: a pause stores every register written, a finished run
    those read later (live at entry) and the outputs; both store the stacks."""
    lines = ["    goto out;"]
    if back:
        lines.append("pause:")
        lines += [f"    R[{i}] = r{i};" for i in every]
        lines += ["    st->resume = resume_at;", "    err = RV_E_PAUSE;", "    goto save;"]
    lines.append("out:")
    lines += [f"    R[{i}] = r{i};" for i in store]
    lines += ["save:",
              "    st->fdata = fdata;", "    st->fsize = fsize;", "    st->fcap = fcap;",
              "    st->idata = idata;", "    st->isize = isize;", "    st->icap = icap;",
              "    st->iters = iters;", "    return err;", "}", ""]
    return lines


def translate(code, nregs, out_regs, ufunc_names=None, suffix=""):
    """C for one program: ``int rv_native_run<suffix>(rv_state *st)`` doing what
    ``rv_vm_run`` does on ``code``, with the same per-instruction statements and its
    registers in C locals, and ``rv_native_uloops<suffix>``, a table the loader fills
    with NumPy's loops for the program's 'u' operands (renumbered in first-use order).
    Returns (text, engine slots in table order). ``ufunc_names`` maps an engine slot to
    its ufunc's name, for the comment that keys the table."""
    ufunc_names = ufunc_names or {}
    insts = decode(code)
    targets, back, local_u, written = _scan(insts)
    live = live_at_entry(code)
    store = sorted((live & written) | set(out_regs))
    names = [ufunc_names.get(slot, f"slot{slot}") for slot in local_u]
    lines = _entry(suffix, names, nregs, back)
    for pc, name, operands in insts:
        if pc in targets:
            lines.append(f"L{pc}:")
        semantics = ops.INSTRUCTIONS[ops.OPCODE[name]][2]
        body = expand(semantics, ops.FORMAT[name], _operand_text(operands, local_u))
        lines.append(f"    {{ {body} }}  /* {pc}: {name} */")
    end = insts[-1][0] + 1 + len(insts[-1][2]) if insts else 0
    if end in targets:
        lines.append(f"L{end}:")
    lines += _exit(back, sorted(written), store)
    return "\n".join(lines), list(local_u)
