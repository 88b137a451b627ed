"""C from the engine's one source, ``_engine_ops.py``.

``vm_header()`` is what the build includes (setup.py writes it to
``revsrc/_engine_vm.h``): the opcode and error enums, the libm table, and the VM's
dispatch loop, one handler per instruction made from its semantics. The native tier
(``revsrc/native.py``) expands the very same semantics per instruction of one program
(`expand`), so the VM and a compiled program execute the same C statements.

Standard library only: setup.py loads this file before the package is built.
"""
from __future__ import annotations

import re

try:
    from . import _engine_ops as ops
except ImportError:  # loaded by setup.py from its own directory, before the build
    import _engine_ops as ops

_OPERAND = re.compile(r"\$(\d)")


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
