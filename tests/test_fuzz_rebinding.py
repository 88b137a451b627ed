"""Random programs that depend on module state, rebound between calls.

A derivative is built once and called again after globals, attributes of a global
object, closure cells and stored derivatives have been rebound: every call must see
the state of that moment, as the plain call does. Each program lives in its own
module file (revsrc reads source), so the rebinding of one seed cannot leak into
another. Gradients are checked against central differences of the plain function
under the same state, and the engine against the Python path bit for bit.
"""
import importlib.util
import math
import random

import numpy as np
import pytest

import revsrc

_PRELUDE = '''import math
import numpy as np
import revsrc

ACT = math.sin
ACTN = np.tanh
SCALE = 1.5


class Config:
    pass


CFG = Config()
CFG.k = 0.7
CFG.act = math.tanh


def make_square(c):

    def square(u):
        return c * u * u

    def set_c(v):
        nonlocal c
        c = v

    return square, set_c


SQ, SET_SQ = make_square(0.5)


def h1(u):
    return math.sin(u) * u


def h2(u):
    return math.cos(u) + 0.5 * u


HELP = h1
DER = revsrc.grad(h1)
'''

_SCALAR_FNS = ["math.sin", "math.cos", "math.tanh", "math.atan"]
_ARRAY_FNS = ["np.tanh", "np.sin", "np.cos", "np.arctan"]


class _Gen:
    def __init__(self, seed):
        self.r = random.Random(seed)

    def atom(self):
        if self.r.random() < 0.2:
            return repr(round(self.r.uniform(-1.5, 1.5), 2))
        return self.r.choice(["x", "y", "a"])

    def expr(self, depth=0):
        if depth > 2 or self.r.random() < 0.25:
            return self.atom()
        e = self.expr(depth + 1)
        kind = self.r.randrange(10)
        if kind == 0:
            return f"ACT({e})"
        if kind == 1:
            return f"(SCALE * {e})"
        if kind == 2:
            return f"(CFG.k * {e})"
        if kind == 3:
            return f"CFG.act({e})"
        if kind == 4:
            return f"SQ({e})"
        if kind == 5:
            return f"HELP({e})"
        if kind == 6:
            return f"DER({e})"
        if kind == 7:
            return f"({e} + {self.expr(depth + 1)})"
        if kind == 8:
            return f"({e} * {self.expr(depth + 1)})"
        return f"math.tanh({e})"

    def scalar_program(self, name):
        lines = [f"def {name}(x, y):", "    a = 0.5 * x - y"]
        for _ in range(self.r.randint(1, 3)):
            if self.r.random() < 0.3:
                lines += ["    for i in range(3):", f"        a = 0.5 * a + 0.3 * math.tanh({self.expr()})"]
            elif self.r.random() < 0.3:
                lines += [f"    if {self.expr()} > 0.2:", f"        a = a * {self.expr()}",
                          "    else:", f"        a = a - {self.expr()}"]
            else:
                lines.append(f"    a = math.tanh({self.expr()})")
        lines.append(f"    return {self.expr()} + a")
        return "\n".join(lines) + "\n"

    def array_program(self, name):
        k = self.r.randrange(3)
        body = {0: "    z = ACTN(w * x) * CFG.k",
                1: "    z = ACTN(SCALE * x) + w * x",
                2: "    z = ACTN(x) * ACTN(w)"}[k]
        return (f"def {name}(x, w):\n{body}\n"
                "    for i in range(2):\n        z = z * 0.5 + x\n"
                "    return np.sum(z * z)\n")

    def rebind(self, mod):
        """Rebind one to three pieces of the module's state, as a user would."""
        for _ in range(self.r.randint(1, 3)):
            kind = self.r.randrange(8)
            if kind == 0:
                mod.ACT = eval(self.r.choice(_SCALAR_FNS), {"math": math})
            elif kind == 1:
                mod.SCALE = round(self.r.uniform(-2.0, 2.0), 3)
            elif kind == 2:
                mod.CFG.k = round(self.r.uniform(-2.0, 2.0), 3)
            elif kind == 3:
                mod.CFG.act = eval(self.r.choice(_SCALAR_FNS), {"math": math})
            elif kind == 4:
                mod.SET_SQ(round(self.r.uniform(-2.0, 2.0), 3))
            elif kind == 5:
                mod.HELP = self.r.choice([mod.h1, mod.h2])
            elif kind == 6:
                mod.DER = revsrc.grad(self.r.choice([mod.h1, mod.h2]))
            else:
                mod.ACTN = eval(self.r.choice(_ARRAY_FNS), {"np": np})


SEEDS = list(range(40))


def _module(tmp_path, seed, text):
    path = tmp_path / f"rebind_{seed}.py"
    path.write_text(_PRELUDE + "\n\n" + text)
    spec = importlib.util.spec_from_file_location(f"rebind_{seed}", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def _central(f, args, i, h):
    up, down = list(args), list(args)
    up[i] = up[i] + h
    down[i] = down[i] - h
    return (f(*up) - f(*down)) / (2 * h)


def _smooth_fd(f, args, i):
    n1, n2 = _central(f, args, i, 1e-5), _central(f, args, i, 1e-6)
    if abs(n1 - n2) > 1e-6 * (1 + abs(n1)):
        return None  # a branch boundary or max() kink near the input
    return n1


@pytest.mark.parametrize("seed", SEEDS)
def test_scalar_program_sees_each_rebinding(tmp_path, seed):
    gen = _Gen(seed)
    mod = _module(tmp_path, seed, gen.scalar_program("p"))
    f = mod.p
    py = revsrc.value_and_grad(f, argnums=(0, 1), backend="python")
    auto = revsrc.value_and_grad(f, argnums=(0, 1))
    jitted = revsrc.jit(revsrc.grad(f, argnums=(0, 1)))
    rng = random.Random(500 + seed)
    checked = 0
    for round_ in range(4):
        if round_:
            gen.rebind(mod)
        args = (rng.uniform(-1.0, 1.0), rng.uniform(-1.0, 1.0))
        v, g = py(*args)
        assert v == f(*args), (seed, round_)
        assert auto(*args) == (v, g), (seed, round_)  # engine and Python, same bits
        assert jitted(*args) == g, (seed, round_)
        for i in range(2):
            fd = _smooth_fd(f, args, i)
            if fd is None:
                continue
            assert g[i] == pytest.approx(fd, rel=1e-5, abs=1e-7), (seed, round_, i)
            checked += 1
    assert checked > 0


@pytest.mark.parametrize("seed", SEEDS[:20])
def test_array_program_sees_each_rebinding(tmp_path, seed):
    gen = _Gen(10_000 + seed)
    mod = _module(tmp_path, seed, gen.array_program("q"))
    f = mod.q
    rng = np.random.default_rng(seed)
    d = revsrc.grad(f)
    dw = revsrc.value_and_grad(f, argnums=1)
    for round_ in range(4):
        if round_:
            gen.rebind(mod)
        x, w = rng.normal(size=4), rng.normal(size=4)
        gx = d(x, w)
        v, gw = dw(x, w)
        assert v == pytest.approx(f(x, w), rel=1e-14)
        for grad_, i in ((gx, 0), (gw, 1)):
            u = rng.normal(size=4)  # a random direction
            along = lambda t: f(*[(x, w)[j] + t * u if j == i else (x, w)[j] for j in range(2)])
            fd = (along(1e-6) - along(-1e-6)) / 2e-6
            assert float(grad_ @ u) == pytest.approx(fd, rel=1e-5, abs=1e-7), (seed, round_, i)
