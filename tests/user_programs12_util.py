"""Helpers for round 12's user programs (tests/user_programs12_*.py)."""
import numpy as np

import revsrc
from user_programs7_harness import _ref, pair


def VG(name, f, args, argnums=0, ref="fd", tol=1e-7, h=1e-5, kw=None, check=1e-4, **opts):
    """value_and_grad: the value must equal the plain call, the gradient the reference."""
    kw = kw or {}

    def got():
        v, g = revsrc.value_and_grad(f, argnums=argnums, **opts)(*args, **kw)
        return (v, g)
    r = _ref(f, args, argnums, ref, h, kw, check)
    return pair(name, got, lambda: (f(*args, **kw), r()), tol=tol)


def fdj(f, x, h=1e-6):
    """Central-difference Jacobian of an array function of one array (columns per input)."""
    x = np.asarray(x, float)
    y0 = np.asarray(f(x), float)
    J = np.zeros(y0.shape + x.shape)
    for i in np.ndindex(x.shape):
        e = np.zeros_like(x)
        e[i] = h
        J[(Ellipsis,) + i] = (np.asarray(f(x + e), float) - np.asarray(f(x - e), float)) / (2 * h)
    return J


def run_limited(src, mem_mb=1024, timeout=60):
    """Runs `src` (which must print one Python literal) in a fresh interpreter whose address
    space is capped at mem_mb (a program that builds an endless list fails there with a
    MemoryError instead of exhausting a shared machine); returns the literal, or raises
    RuntimeError naming the child's exception."""
    import ast
    import os
    import resource
    import subprocess
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    # the folder of the revsrc this process imported (the installed one under CI, whose
    # compiled kernels the source tree lacks), not the checkout's root
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))

    def cap():
        lim = mem_mb * 1024 * 1024
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))

    wrapped = ("import sys\ntry:\n" + "".join("    " + ln + "\n" for ln in src.strip().splitlines())
               + "except BaseException as e:\n    print('EXC', type(e).__name__, str(e)[:200])\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([root, here, os.environ.get("PYTHONPATH", "")]))
    p = subprocess.run([sys.executable, "-c", wrapped], capture_output=True, text=True, timeout=timeout,
                       preexec_fn=cap, env=env, cwd=here)
    out = p.stdout.strip().splitlines()
    if not out:
        raise RuntimeError(f"child failed (rc {p.returncode}): {p.stderr.strip().splitlines()[-1:]}")
    if out[-1].startswith("EXC "):
        raise RuntimeError("in the child: " + out[-1][4:])
    return ast.literal_eval(out[-1])
