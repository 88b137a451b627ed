"""The scalar engine's instruction set, libm table and error codes: the one source.

Pure data (no imports), read three ways:

- ``revsrc/_engine_c.py`` turns it into C: the build (setup.py) writes
  ``revsrc/_engine_vm.h`` (enums, tables and the VM's dispatch loop, included by
  ``_kernels.pyx``), and the native tier translates each engine program into a C
  function with the same per-instruction code;
- ``revsrc/backends/engine/lower.py`` reads operand formats and flags when it lowers and assembles;
- ``revsrc/_engine.pxi`` reads error messages and exception types.

Each instruction is ``(name, operands, semantics, flags)``. Operand letters: ``w``
register written, ``r`` register read, ``x`` register read and written, ``j`` jump
target, ``k`` small immediate (an assert message, an error code), ``m`` index into
``MATH1``, ``u`` a NumPy ufunc loop slot. The semantics is one C statement block in
which ``$n`` is operand ``n`` (a register lvalue, an immediate or a jump target), over
the macros of ``revsrc/_engine_rt.h`` and the two translations:

    GOTO(t)      jump to target t (forward: the lowering only jumps back via BACK)
    BACK(t)      a loop's back edge: count the iteration, pause for a signal check
                 every so many, jump to t
    ITER         count a loop iteration (entering a loop body)
    FAIL(e)      stop the run with error e;   CHECK(call): FAIL if call returns nonzero
    DONE         stop the run successfully
    FRESERVE(n) / IRESERVE(n)   room for n more saves on the float / int stack
    ERRARG(k)    the error's argument (an assert message index)
    M1FN(m), M1MODE(m)          MATH1's function and checking mode
    UFUNC1(u, x), UFUNC2(u, x, y)   NumPy's own float64 loop, called as for 0-d operands
    XPUSH(k, x) / XPOP(k, x)    push on / pop from the other stack k (``st->aux``)
    locals a, b, v (double scratch), fdata/fsize, idata/isize (the stacks)

Flags: ``quiet`` an instruction that stops a run only on a malformed program or out of
memory (the peephole may move it past others).

Every instruction reproduces CPython's float semantics bit for bit (the comment at the
top of ``_engine_rt.h`` says how); the order of ``INSTRUCTIONS`` is the opcode order.
"""

Q = ("quiet",)

INSTRUCTIONS = (
    ("HALT", "", "DONE;", ()),
    ("MOV", "wr", "$1 = $2;", Q),
    ("ADD", "wrr", "$1 = $2 + $3;", Q),
    ("SUB", "wrr", "$1 = $2 - $3;", Q),
    ("MUL", "wrr", "$1 = $2 * $3;", Q),
    ("DIV", "wrr", "b = $3; if (b == 0.0) FAIL(RV_E_FDIV); $1 = $2 / b;", ()),
    # int-kind operations: exact while |result| < 2**53, else the caller takes the
    # Python path (Python ints do not round)
    ("IADD", "wrr", "v = $2 + $3; if (rv_big(v)) FAIL(RV_E_FALLBACK); $1 = v;", ()),
    ("ISUB", "wrr", "v = $2 - $3; if (rv_big(v)) FAIL(RV_E_FALLBACK); $1 = v;", ()),
    ("IMUL", "wrr", "v = $2 * $3; if (rv_big(v)) FAIL(RV_E_FALLBACK); $1 = v + 0.0;", ()),
    ("IDIV", "wrr", "b = $3; if (b == 0.0) FAIL(RV_E_IDIV); $1 = $2 / b;", ()),
    ("FLOORDIV", "wrr", "CHECK(rv_float_floordiv($2, $3, &v)); $1 = v;", ()),
    ("MOD", "wrr", "CHECK(rv_float_mod($2, $3, &v)); $1 = v;", ()),
    ("IFLOORDIV", "wrr", "CHECK(rv_int_floordiv($2, $3, &v, 0)); $1 = v;", ()),
    ("IMOD", "wrr", "CHECK(rv_int_floordiv($2, $3, &v, 1)); $1 = v;", ()),
    ("POW", "wrr", "CHECK(rv_float_pow($2, $3, &v)); $1 = v;", ()),
    ("IPOW", "wrr", "CHECK(rv_int_pow($2, $3, &v)); $1 = v;", ()),
    ("NEG", "wr", "$1 = -$2;", Q),
    ("INEG", "wr", "$1 = 0.0 - $2;", Q),          # an int is never -0.0
    ("ABS", "wr", "$1 = fabs($2);", Q),
    ("LT", "wrr", "$1 = ($2 < $3) ? 1.0 : 0.0;", Q),
    ("LE", "wrr", "$1 = ($2 <= $3) ? 1.0 : 0.0;", Q),
    ("GT", "wrr", "$1 = ($2 > $3) ? 1.0 : 0.0;", Q),
    ("GE", "wrr", "$1 = ($2 >= $3) ? 1.0 : 0.0;", Q),
    ("EQ", "wrr", "$1 = ($2 == $3) ? 1.0 : 0.0;", Q),
    ("NE", "wrr", "$1 = ($2 != $3) ? 1.0 : 0.0;", Q),
    ("NOT", "wr", "$1 = ($2 == 0.0) ? 1.0 : 0.0;", Q),
    ("TRUTH", "wr", "$1 = ($2 == 0.0) ? 0.0 : 1.0;", Q),
    # min(a, b) / max(a, b) keep the first argument on ties and NaN, as Python does
    ("MIN", "wrr", "a = $2; b = $3; $1 = (b < a) ? b : a;", Q),
    ("MAX", "wrr", "a = $2; b = $3; $1 = (b > a) ? b : a;", Q),
    ("FTOI", "wr", "CHECK(rv_to_int($2, &v)); $1 = v;", ()),
    ("FLOORI", "wr", "CHECK(rv_to_int(floor($2), &v)); $1 = v;", ()),
    ("CEILI", "wr", "CHECK(rv_to_int(ceil($2), &v)); $1 = v;", ()),
    ("ROUNDI", "wr", "CHECK(rv_to_int(rv_py_round($2), &v)); $1 = v;", ()),
    # the math module's checks: NaN from a number is a domain error, inf from a
    # finite number a range error (exp) or a domain error (log)
    ("SIN", "wr", "a = $2; v = sin(a); if (isnan(v) && !isnan(a)) FAIL(RV_E_DOMAIN); $1 = v;",
     ()),
    ("COS", "wr", "a = $2; v = cos(a); if (isnan(v) && !isnan(a)) FAIL(RV_E_DOMAIN); $1 = v;",
     ()),
    ("EXP", "wr", "a = $2; v = exp(a); if (isinf(v) && isfinite(a)) FAIL(RV_E_RANGE); $1 = v;",
     ()),
    ("LOG", "wr", "a = $2; v = log(a); "
     "if ((isnan(v) && !isnan(a)) || (isinf(v) && isfinite(a))) FAIL(RV_E_DOMAIN); $1 = v;", ()),
    ("SQRT", "wr", "a = $2; if (a < 0.0) FAIL(RV_E_DOMAIN); $1 = sqrt(a);", ()),
    ("MATH1", "wrm", "a = $2; v = M1FN($3)(a); if (M1MODE($3)) {"
     " if (isnan(v) && !isnan(a)) FAIL(RV_E_DOMAIN);"
     " if (isinf(v) && isfinite(a)) FAIL(M1MODE($3) == 2 ? RV_E_RANGE : RV_E_DOMAIN); }"
     " $1 = v;", ()),
    ("NPU1", "wru", "$1 = UFUNC1($3, $2);", Q),
    # math.log(x, base): log(x) / log(base), each checked as math.log
    ("LOGB", "wrr", "a = $2; b = $3; v = log(a);"
     " if ((isnan(v) && !isnan(a)) || (isinf(v) && isfinite(a))) FAIL(RV_E_DOMAIN);"
     " a = log(b);"
     " if ((isnan(a) && !isnan(b)) || (isinf(a) && isfinite(b))) FAIL(RV_E_DOMAIN);"
     " if (a == 0.0) FAIL(RV_E_FDIV); $1 = v / a;", ()),
    ("MPOW", "wrr", "CHECK(rv_math_pow($2, $3, &v)); $1 = v;", ()),
    # derivative code on numbers (revsrc/runtime/ieee.py): Python's result where Python has
    # one, C's IEEE inf or nan where Python raises; never fails
    ("DIV_IEEE", "wrr", "$1 = $2 / $3;", Q),
    ("POW_IEEE", "wrr", "if (rv_float_pow($2, $3, &v)) v = pow($2, $3); $1 = v;", Q),
    ("LOG_IEEE", "wr", "$1 = log($2);", Q),
    ("SELECT", "wrrr", "$1 = ($2 != 0.0) ? $3 : $4;", Q),
    ("ATAN2", "wrr", "$1 = rv_math_atan2($2, $3);", Q),
    ("HYPOT", "wrr", "$1 = rv_math_hypot($2, $3);", Q),
    ("COPYSIGN", "wrr", "$1 = copysign($2, $3);", Q),
    ("NPU2", "wrru", "$1 = UFUNC2($4, $2, $3);", Q),
    # fused by the peephole; two roundings each (compiled with -ffp-contract=off)
    ("MULADD", "wrrr", "$1 = $2 * $3 + $4;", Q),
    ("MULSUB", "wrrr", "$1 = $2 * $3 - $4;", Q),
    ("SUBMUL", "wrrr", "$1 = $2 - $3 * $4;", Q),
    ("MUL3", "wrrr", "$1 = $2 * $3 * $4;", Q),
    # control flow
    ("JMP", "j", "GOTO($1);", ()),
    ("LOOP", "j", "BACK($1);", ()),
    ("JZ", "rj", "if ($1 == 0.0) GOTO($2);", ()),
    ("JNZ", "rj", "if ($1 != 0.0) GOTO($2);", ()),
    ("JNLT", "rrj", "if (!($1 < $2)) GOTO($3);", ()),
    ("JNLE", "rrj", "if (!($1 <= $2)) GOTO($3);", ()),
    ("JNGT", "rrj", "if (!($1 > $2)) GOTO($3);", ()),
    ("JNGE", "rrj", "if (!($1 >= $2)) GOTO($3);", ()),
    ("JNEQ", "rrj", "if (!($1 == $2)) GOTO($3);", ()),
    ("JNNE", "rrj", "if (!($1 != $2)) GOTO($3);", ()),
    # for i in range(start, stop, step): PREP enters (or skips) the body, STEP closes it
    ("FORPREP", "xrrrj", "a = $2; b = $4; if (b == 0.0) FAIL(RV_E_STEP0);"
     " if ((b > 0.0) ? (a < $3) : (a > $3)) { $1 = a; ITER; } else GOTO($5);", ()),
    ("FORPREPUP", "xrrrj", "a = $2; if (a < $3) { $1 = a; ITER; } else GOTO($5);", ()),
    ("FORPREPDN", "xrrrj", "a = $2; if (a > $3) { $1 = a; ITER; } else GOTO($5);", ()),
    ("FORSTEP", "xrrj", "b = $3; v = $1 + b;"
     " if ((b > 0.0) ? (v < $2) : (v > $2)) { $1 = v; BACK($4); }", ()),
    ("FORUP", "xrrj", "v = $1 + $3; if (v < $2) { $1 = v; BACK($4); }", ()),
    ("FORDN", "xrrj", "v = $1 + $3; if (v > $2) { $1 = v; BACK($4); }", ()),
    # the typed stacks of the adjoint
    ("PUSHF", "r", "FRESERVE(1); fdata[fsize++] = $1;", Q),
    ("PUSHI", "r", "IRESERVE(1); a = $1; if (!(fabs(a) < 9.2e18)) FAIL(RV_E_FALLBACK);"
     " idata[isize++] = (int64_t)a;", Q),
    ("POPF", "w", "if (fsize == 0) FAIL(RV_E_POP); $1 = fdata[--fsize];", Q),
    ("POPI", "w", "if (isize == 0) FAIL(RV_E_POP); $1 = (double)idata[--isize];", Q),
    ("ASSERT", "rk", "if ($1 == 0.0) { ERRARG($2); FAIL(RV_E_ASSERT); }", ()),
    ("RAISE", "k", "FAIL($1);", ()),
    # a branch decision popped and taken in one dispatch
    ("POPJZ", "j", "if (isize == 0) FAIL(RV_E_POP); if (idata[--isize] == 0) GOTO($1);", Q),
    # glibc computes both with the routines of sin() and cos(): the bits of two calls
    ("SINCOS", "wwr", "a = $3; sincos(a, &v, &b); if (isnan(v) && !isnan(a)) FAIL(RV_E_DOMAIN);"
     " $1 = v; $2 = b;", ()),
    # saves gathered by the lowering: one capacity check for all of them
    ("PUSHF2", "rr", "FRESERVE(2); fdata[fsize] = $1; fdata[fsize + 1] = $2; fsize += 2;", Q),
    ("PUSHF3", "rrr", "FRESERVE(3); fdata[fsize] = $1; fdata[fsize + 1] = $2;"
     " fdata[fsize + 2] = $3; fsize += 3;", Q),
    ("POPF2", "ww", "if (fsize < 2) FAIL(RV_E_POP); $1 = fdata[fsize - 1];"
     " $2 = fdata[fsize - 2]; fsize -= 2;", Q),
    # the other stacks (a derivative of a derivative's): push on, pop from stack $2
    ("PUSHX", "rk", "XPUSH($2, $1);", Q),
    ("POPX", "wk", "XPOP($2, $1);", Q),
    # math.fmod: x for finite x and an infinite y; NaN from numbers a domain error
    ("FMOD", "wrr", "a = $2; b = $3; if (isinf(b) && isfinite(a)) v = a; else {"
     " v = fmod(a, b); if (isnan(v) && !isnan(a) && !isnan(b)) FAIL(RV_E_DOMAIN); }"
     " $1 = v;", ()),
)

# How many stacks the engine holds beside the float and the int one (RV_NAUX in
# _engine_rt.h, which must agree): a derivative of a derivative saves on more.
AUX_STACKS = 16

# One-argument libm functions reached through MATH1, with the math module's checks.
# Mode 0: no check; 1: NaN from a number, or inf from a finite number, is a domain
# error; 2: as 1, but inf from a finite number is an overflow.
MATH1 = (
    ("sin", 1), ("cos", 1), ("tan", 1), ("asin", 1), ("acos", 1), ("atan", 1),
    ("sinh", 2), ("cosh", 2), ("tanh", 1), ("asinh", 1), ("acosh", 1), ("atanh", 1),
    ("exp", 2), ("expm1", 2), ("log", 1), ("log1p", 1), ("log2", 1), ("log10", 1),
    ("sqrt", 1), ("erf", 0), ("erfc", 0), ("fabs", 0), ("floor", 0), ("ceil", 0),
    ("trunc", 0), ("cbrt", 0),
)


def _said(probe):
    """The message the running Python gives for ``probe``'s error: the engine's errors
    read as the interpreter's own, which words some of them differently across
    versions (3.13: "float modulo by zero", before: "float modulo")."""
    try:
        probe(1.0, 0.0)
    except ArithmeticError as e:
        return str(e)
    raise AssertionError("the probe did not raise")


# Run-time errors: (name, Python exception, message). The exception names a builtin,
# or: "errno" an OverflowError(ERANGE, message) as float ** raises; "assert" an
# AssertionError with the program's message ERRARG; "fallback" the engine cannot
# reproduce Python here (an int beyond 2**53, a complex power, a global that changed
# type) and the caller runs the Python path; "pause" not an error: the run stopped at
# a back edge so that the caller can check for signals, and resumes; "checkpoint" not
# an error: a loop of a gradient built without its checkpointed form needs it (the
# caller builds that form and calls again, revsrc/passes/reverse/checkpoint).
ERRORS = (
    ("OK", None, ""),
    ("FDIV", "ZeroDivisionError", _said(lambda a, b: a / b)),
    ("IDIV", "ZeroDivisionError", _said(lambda a, b: int(a) / int(b))),
    ("FFLOORDIV", "ZeroDivisionError", _said(lambda a, b: a // b)),
    ("IFLOORDIV", "ZeroDivisionError", _said(lambda a, b: int(a) // int(b))),
    ("FMOD", "ZeroDivisionError", _said(lambda a, b: a % b)),
    ("IMOD", "ZeroDivisionError", _said(lambda a, b: int(a) % int(b))),
    ("POW_ZERO", "ZeroDivisionError", _said(lambda a, b: b ** -a)),
    ("POW_RANGE", "errno", "Numerical result out of range"),
    ("DOMAIN", "ValueError", "math domain error"),
    ("RANGE", "OverflowError", "math range error"),
    ("STEP0", "ValueError", "range() arg 3 must not be zero"),
    ("RANGE_TYPE", "TypeError", "'float' object cannot be interpreted as an integer"),
    ("INT_NAN", "ValueError", "cannot convert float NaN to integer"),
    ("INT_INF", "OverflowError", "cannot convert float infinity to integer"),
    ("FALLBACK", "fallback", "the engine cannot run these inputs exactly"),
    ("POP", "IndexError", "pop from empty stack"),
    ("ASSERT", "assert", ""),
    ("NOMEM", "MemoryError", ""),
    ("GLOBAL", "fallback", "a global read by the program changed type"),
    ("PAUSE", "pause", ""),
    ("CHECKPOINT", "checkpoint", "a loop's saves would exceed the memory bound"),
)

# The errors of Python's float arithmetic where NumPy's float64 gives inf or nan (with
# a RuntimeWarning, or FloatingPointError under np.errstate): a program that computes
# on NumPy scalars (`ScalarProgram.numpy_scalars`) and meets one runs on the Python
# path instead, whose NumPy scalars compute as the plain call does.
NUMPY_DIFFERS = ("FDIV", "FFLOORDIV", "FMOD", "POW_ZERO", "POW_RANGE", "DOMAIN", "RANGE")

OPCODE = {name: i for i, (name, *_) in enumerate(INSTRUCTIONS)}
FORMAT = {name: fmt for name, fmt, *_ in INSTRUCTIONS}
QUIET = frozenset(name for name, _, _, flags in INSTRUCTIONS if "quiet" in flags)
MATH1_INDEX = {name: i for i, (name, _) in enumerate(MATH1)}
ERROR = {name: i for i, (name, *_) in enumerate(ERRORS)}
