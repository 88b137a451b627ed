"""The engine's last steps: the peephole pass over the lowered instruction list,
and assembly into the int32 code array the VM runs (and its listing, back to names).

`lower` (revsrc/backends/engine/lower.py) emits one instruction per IR operation, with
symbolic labels and one register per variable. `peephole` fuses adjacent instructions
through single-use temporaries (copy elimination, multiply-add, compare-and-branch),
pairs sines and cosines, groups saves and threads jumps; `assemble` resolves the labels
and writes the code words. Formats come from the engine's one source,
revsrc/_engine_ops.py, so every rewrite here reads the same operand letters the VM and
the native tier do. Kept apart from lowering because it sees only instructions, never
the IR.
"""
from __future__ import annotations

from ... import _engine_ops as ops

__all__ = ["peephole", "assemble", "listing"]

FORMAT = ops.FORMAT
OPCODE = ops.OPCODE

_FUSE_CMP = {"LT": "JNLT", "LE": "JNLE", "GT": "JNGT", "GE": "JNGE", "EQ": "JNEQ",
             "NE": "JNNE"}


# per operation: the positions (in an instruction, after its name) of the registers
# it reads and of those it writes, from its format once, not letter by letter per
# instruction each time a rewrite asks
_READ_AT = {op: tuple(k + 1 for k, f in enumerate(fmt) if f in "rx")
            for op, fmt in FORMAT.items()}
_WRITE_AT = {op: tuple(k + 1 for k, f in enumerate(fmt) if f in "wx")
             for op, fmt in FORMAT.items()}


def _counts(items):
    reads, writes = {}, {}
    for it in items:
        if it[0] == "L":
            continue
        n = len(it)
        for k in _READ_AT[it[0]]:
            if k < n:
                v = it[k]
                reads[v] = reads.get(v, 0) + 1
        for k in _WRITE_AT[it[0]]:
            if k < n:
                v = it[k]
                writes[v] = writes.get(v, 0) + 1
    return reads, writes


def _fuse(a, b, temp):
    """The one instruction equivalent to ``a; b``, where ``a`` writes the temporary
    ``temp`` that only ``b`` reads; None if there is no such instruction."""
    opa, opb = a[0], b[0]
    if opb == "MOV" and b[2] == temp and FORMAT[opa].startswith("w"):
        return [opa, b[1], *a[2:]]
    if opa == "MOV":
        fmt = FORMAT[opb]
        return [opb, *[a[2] if f == "r" and v == temp else v for f, v in zip(fmt, b[1:])]]
    if opa == "MUL":
        x, y = a[2], a[3]
        if opb == "ADD":
            other = b[3] if b[2] == temp else b[2]
            return ["MULADD", b[1], x, y, other]
        if opb == "SUB" and b[2] == temp and b[3] != temp:
            return ["MULSUB", b[1], x, y, b[3]]
        if opb == "SUB" and b[3] == temp and b[2] != temp:
            return ["SUBMUL", b[1], b[2], x, y]
        if opb == "MUL":
            other = b[3] if b[2] == temp else b[2]
            return ["MUL3", b[1], x, y, other]
    if opa == "NEG" and opb == "ADD":
        # c + (-a) is c - a in IEEE arithmetic, signed zeros included
        other = b[3] if b[2] == temp else b[2]
        return ["SUB", b[1], other, a[2]]
    if opb == "JZ" and b[1] == temp:
        if opa == "POPI":
            return ["POPJZ", b[2]]
        if opa in _FUSE_CMP:
            return [_FUSE_CMP[opa], a[2], a[3], b[2]]
        if opa == "NOT":
            return ["JNZ", a[2], b[2]]
        if opa == "TRUTH":
            return ["JZ", a[2], b[2]]
    return None


# Instructions that never stop the run with an error (stack pops and pushes count as
# such: they fail only on a malformed program or out of memory).
_QUIET = ops.QUIET
_WINDOW = 4   # how far ahead of a temporary's definition its use is looked for
# Saves and restores are quiet, but never move past one another: a pop moved below a
# push or a pop of the same stack would take another value
_STACK = frozenset({"PUSHF", "PUSHI", "POPF", "POPI", "PUSHF2", "PUSHF3", "POPF2", "POPJZ",
                    "PUSHX", "POPX"})


def peephole(items, special):
    """Fuse each single-use temporary's definition into its use.

    The definition ``a`` (writing temporary ``t``, read exactly once) moves down to its
    use ``b`` when the instructions in between are straight-line code that neither
    touches ``t`` nor writes anything ``a`` reads; if ``a`` can raise, they must not
    (so errors still come in program order).
    """
    reads, writes = _counts(items)
    changed = True
    while changed:
        changed = False
        i = 0
        while i < len(items):
            a = items[i]
            i += 1
            if a[0] == "L" or not FORMAT[a[0]].startswith("w"):
                continue
            t = a[1]
            if t in special or reads.get(t) != 1 or writes.get(t) != 1:
                continue
            a_reads = {a[k] for k in _READ_AT[a[0]] if 2 <= k < len(a)}
            for j in range(i, min(i + _WINDOW, len(items))):
                b = items[j]
                if b[0] == "L":
                    break
                fmt = FORMAT[b[0]]
                if any(f == "r" and v == t for f, v in zip(fmt, b[1:])):
                    fused = _fuse(a, b, t)
                    if fused is not None:
                        items[j] = fused
                        del items[i - 1]
                        reads[t] = writes[t] = 0
                        changed = True
                        i -= 1
                    break
                if "j" in fmt or b[0] in ("RAISE", "ASSERT", "HALT"):
                    break
                if a[0] not in _QUIET and b[0] not in _QUIET:
                    break
                if a[0] in _STACK and b[0] in _STACK:
                    break
                if any(b[k] in a_reads or b[k] == t for k in _WRITE_AT[b[0]] if k < len(b)):
                    break
    return _thread_jumps(_group_saves(_pair_sincos(items)))


_SINCOS_WINDOW = 32


def _pair_sincos(items):
    """SIN and COS of the same register become one SINCOS. The later of the two moves
    up to the earlier through straight-line code that writes neither their argument nor
    the later one's target, and reads no value of that target. Both fail exactly on an
    infinite argument, so the move cannot change which error a run raises."""
    items = list(items)
    for i, a in enumerate(items):
        if a[0] not in ("SIN", "COS") or a[1] == a[2]:
            continue
        want, x = ("COS" if a[0] == "SIN" else "SIN"), a[2]
        for j in range(i + 1, min(i + 1 + _SINCOS_WINDOW, len(items))):
            b = items[j]
            if b[0] == want and b[2] == x and b[1] != x and b[1] != a[1]:
                if all(b[1] not in _writes(c) and b[1] not in _reads(c) for c in items[i + 1:j]):
                    sin, cos = (a, b) if a[0] == "SIN" else (b, a)
                    items[i] = ["SINCOS", sin[1], cos[1], x]
                    del items[j]
                break
            if not _straight(b) or x in _writes(b):
                break
    return items


def _reads(it):
    return {it[k] for k in _READ_AT[it[0]] if k < len(it)}


def _writes(it):
    return {it[k] for k in _WRITE_AT[it[0]] if k < len(it)}


def _straight(it):
    return it[0] != "L" and "j" not in FORMAT[it[0]] and it[0] not in ("RAISE", "ASSERT",
                                                                         "HALT")


def _group_saves(items):
    """Saves move up and restores move down through straight-line code until they
    meet their neighbours on the float stack, and meet in one instruction: the
    order on the stack is unchanged, so the adjoint pops the same values."""
    items = list(items)
    # each PUSHF climbs past instructions that neither write its register nor use
    # the float stack, then joins the PUSHF above it
    i = 0
    while i < len(items):
        it = items[i]
        if it[0] == "PUSHF":
            j = i
            while j > 0 and _straight(items[j - 1]) \
                    and items[j - 1][0] not in ("PUSHF", "POPF", "PUSHF2", "POPF2",
                                                "PUSHF3") \
                    and it[1] not in _writes(items[j - 1]):
                j -= 1
            if j > 0 and items[j - 1][0] in ("PUSHF", "PUSHF2"):
                del items[i]
                prev = items[j - 1]
                items[j - 1] = ["PUSHF2" if prev[0] == "PUSHF" else "PUSHF3", *prev[1:], it[1]]
                i = j
                continue
        i += 1
    # each POPF sinks past instructions that neither read nor write its register
    # nor use the float stack, then joins the POPF below it
    i = len(items) - 1
    while i >= 0:
        it = items[i]
        if it[0] == "POPF":
            j = i
            while j + 1 < len(items) and _straight(items[j + 1]) \
                    and items[j + 1][0] not in ("PUSHF", "POPF", "PUSHF2", "POPF2",
                                                "PUSHF3") \
                    and it[1] not in _writes(items[j + 1]) \
                    and it[1] not in _reads(items[j + 1]):
                j += 1
            if j + 1 < len(items) and items[j + 1][0] == "POPF" and items[j + 1][1] != it[1]:
                nxt = items[j + 1]
                del items[i]
                items[j] = ["POPF2", it[1], nxt[1]]
        i -= 1
    return items


def _thread_jumps(items):
    """A JMP to a loop's closing instruction (the end of an if-branch inside a loop)
    becomes a copy of it, followed by a JMP to the loop's exit for the rare exit:
    one dispatch less per iteration."""
    at = {}
    for k, it in enumerate(items):
        if it[0] == "L":
            at[it] = k
    out = []
    for it in items:
        if it[0] == "JMP":
            k = at[it[1]]
            while k < len(items) and items[k][0] == "L":
                k += 1
            if k < len(items) and items[k][0] in ("JMP", "LOOP"):
                it = list(items[k])
            elif (k + 1 < len(items) and items[k][0] in ("FORUP", "FORDN", "FORSTEP")
                  and items[k + 1][0] == "L"):
                out.append(list(items[k]))
                it = ["JMP", items[k + 1]]
        out.append(it)
    return out


def assemble(items):
    """The code words of ``items``: opcodes and operands, each label as the offset of
    the instruction after it."""
    where, pc = {}, 0
    for it in items:
        if it[0] == "L":
            where[it] = pc
        else:
            pc += len(it)
    code = []
    for it in items:
        if it[0] == "L":
            continue
        code.append(OPCODE[it[0]])
        for f, v in zip(FORMAT[it[0]], it[1:]):
            code.append(where[v] if f == "j" else v)
    return code


def listing(name, code, names, slot_names):
    """The disassembly of ``code``: one instruction per line, offset, opcode, operands
    by IR variable name (``names``: one per register; ``slot_names``: NumPy loops')."""
    lines = [f"; {name}: {len(names)} registers, {len(code)} code words"]
    pc = 0
    while pc < len(code):
        op, fmt = ops.INSTRUCTIONS[code[pc]][:2]
        words = code[pc + 1:pc + 1 + len(fmt)]
        shown = []
        for f, w in zip(fmt, words):
            if f in "wrx":
                shown.append(names[w])
            elif f == "j":
                shown.append(f"@{w}")
            elif f == "m":
                shown.append(ops.MATH1[w][0])
            elif f == "u":
                shown.append("np." + slot_names.get(w, "?"))
            else:
                shown.append(str(w))
        nw = len(fmt) - len(fmt.lstrip("w"))
        if nw:
            text = f"{', '.join(shown[:nw])} = {op} " + ", ".join(shown[nw:])
        else:
            text = f"{op} " + ", ".join(shown)
        lines.append(f"{pc:5d}  {text.rstrip()}")
        pc += 1 + len(fmt)
    return "\n".join(lines)
