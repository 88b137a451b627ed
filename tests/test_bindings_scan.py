"""The guards' scan reads a function's loads from its bytecode without dis
(revsrc/frontend/bindings.py): it must read what dis.get_instructions shows."""
import dis
import math
import types

import numpy as np

import revsrc
from revsrc.frontend import bindings


def _codes(module):
    found, seen = [], set()

    def add(c):
        if id(c) not in seen:
            seen.add(id(c))
            found.append(c)
            for k in c.co_consts:
                if isinstance(k, types.CodeType):
                    add(k)

    for v in vars(module).values():
        fn = getattr(v, "__code__", None)
        if isinstance(fn, types.CodeType):
            add(fn)
        for m in vars(v).values() if isinstance(v, type) else ():
            if isinstance(getattr(m, "__code__", None), types.CodeType):
                add(m.__code__)
    return found


def _as_dis_reads(code):
    read = bindings._BY_NAME | bindings._BY_SLOT
    return [(i.opname, i.argval if i.opname in read else None)
            for i in dis.get_instructions(code)]


def test_the_scan_reads_what_dis_shows():
    import revsrc.api
    import revsrc.frontend.lower.lowerer as lowerer
    codes = []
    for module in (revsrc.api, lowerer, np.linalg.linalg if hasattr(np.linalg, "linalg")
                   else np.linalg, bindings):
        codes += _codes(module)
    codes = [c for c in codes if c.co_filename.endswith(".py")]   # (not Cython's)
    assert len(codes) > 100
    for code in codes:
        assert bindings._instructions(code) == _as_dis_reads(code), code


def test_closures_methods_and_long_functions_are_read_alike():
    scale = 2.0
    act = np.tanh

    class Model:
        w = 3.0

        def f(self, x):
            return act(self.w * x) * scale + math.sin(x)

    def outer(x):
        y = x

        def inner(z):
            return z * y + scale

        return inner(x)

    many = "\n".join(f"    v{i} = x * {i}.5 + v{i - 1 if i else 0}" for i in range(300))
    ns = {}
    exec(f"def long(x):\n    v0 = x\n{many}\n    return v299\n", ns)
    for code in (Model.f.__code__, outer.__code__, outer.__code__.co_consts[1],
                 ns["long"].__code__):
        if not isinstance(code, types.CodeType):
            continue
        assert bindings._instructions(code) == _as_dis_reads(code)


def test_guards_still_follow_a_rebound_global():
    def f(x):
        return helper(x) * 2.0

    g = revsrc.grad(f)
    assert g(1.0) == 2.0 * 3.0
    globals()["helper"] = lambda x: x * x
    try:
        assert g(2.5) == 2.0 * 2.0 * 2.5     # helper was rebound: made anew
    finally:
        globals()["helper"] = _helper


def _helper(x):
    return 3.0 * x


helper = _helper
