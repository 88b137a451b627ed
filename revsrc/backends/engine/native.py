"""The native tier: engine programs translated to C and compiled.

An engine program that proves hot (or one made by ``revsrc.jit`` / ``revsrc.vmap``) is
translated to one C function (``revsrc/_engine_c.py``: the very per-instruction
statements of the VM, registers in C locals), compiled with the C compiler the install
already needs (``-O2 -ffp-contract=off``, no fast-math: the digits of the VM and of
Python), loaded, and from then on runs in place of the VM. NumPy's float64 loops are
handed to the compiled code as function pointers when it is loaded.

- The compiler runs in a background thread; the VM serves calls meanwhile, and a long
  run that is in progress continues compiled from its next pause.
- The shared library is cached on disk (``$REVSRC_CACHE_DIR``, else
  ``$XDG_CACHE_HOME/revsrc``, else ``~/.cache/revsrc``), keyed by the C source (which
  holds the program and the run-time support), the compiler and the flags: a second
  process loads it without compiling. The cache keeps its most recently used entries.
- Without a C compiler the VM runs alone, after one warning.
- ``REVSRC_NATIVE`` and ``REVSRC_NATIVE_AFTER`` are read by tier.py, which watches
  for hot programs (revsrc/executable.py loads this module for the first one).
"""
from __future__ import annotations

import ctypes
import hashlib
import os
import platform
import queue
import shlex
import shutil
import subprocess
import sysconfig
import tempfile
import threading
import time
import warnings
import weakref

from ... import _engine_c
from ..._kernels import bind_uloops
from . import tier
from .lower import SLOT_NAMES
from .tier import mode
from .tier import eligible as _eligible

__all__ = ["NativeTierWarning", "enabled", "attach", "compile", "compile_many", "source",
           "cache_dir"]

FLAGS = ("-O2", "-fPIC", "-shared", "-ffp-contract=off", "-fno-fast-math")
CACHE_ENTRIES = 400         # libraries kept on disk, most recently used first


class NativeTierWarning(RuntimeWarning):
    """The native tier cannot run here (no C compiler, a failed build); the VM runs."""


def enabled():
    return mode() != "off" and compiler() is not None


# ----- The compiler -----

_compiler = []
_warned = set()


def _warn_once(what, message):
    if what not in _warned:
        _warned.add(what)
        warnings.warn(message, NativeTierWarning, stacklevel=3)


def compiler():
    """(argv, identity) of the C compiler, or None (after one warning) if there is none.
    The compiler is $CC, else the one Python was built with, else cc / gcc / clang."""
    if _compiler:
        return _compiler[0]
    found = None
    for cmd in (os.environ.get("CC"), sysconfig.get_config_var("CC"), "cc", "gcc", "clang"):
        if not cmd:
            continue
        argv = shlex.split(cmd)
        path = shutil.which(argv[0]) if argv else None
        if path:
            st = os.stat(path)
            ident = f"{os.path.realpath(path)}:{st.st_size}:{st.st_mtime_ns}"
            found = ([path] + argv[1:], ident)
            break
    if found is None:
        _warn_once("compiler", "revsrc: no C compiler found ($CC, cc, gcc, clang): engine "
                               "programs run on the VM only (set REVSRC_NATIVE=0 to silence)")
    _compiler.append(found)
    return found


def cache_dir():
    """The directory of compiled programs (created on first use)."""
    path = os.environ.get("REVSRC_CACHE_DIR")
    if not path:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = os.path.join(base, "revsrc")
    path = os.path.join(path, "native")
    try:
        os.makedirs(path, mode=0o700, exist_ok=True)
        if not os.access(path, os.W_OK):
            raise OSError(path)
    except OSError:
        path = _private_dir()
    return path


_private = []


def _private_dir():
    if not _private:
        _private.append(tempfile.mkdtemp(prefix="revsrc-native-"))
    return _private[0]


# ----- Translation -----

def _ufunc_names():
    return {slot: f"np.{name}" for slot, name in SLOT_NAMES.items()}


def source(program, suffix=""):
    """(C function text, engine slots of its NumPy loops) for ``program``."""
    return _engine_c.translate(program.code_list, program.nregs, program._out_registers(),
                               _ufunc_names(), suffix)


def _key(text, cc):
    h = hashlib.sha256()
    for part in (text, "\0".join(cc[0]), cc[1], " ".join(FLAGS), platform.machine()):
        h.update(part.encode())
        h.update(b"\1")
    return h.hexdigest()[:40]


# ----- Building and loading -----

_libraries = {}             # key -> (ctypes library, {suffix: run address})
_lock = threading.Lock()


class BuildError(Exception):
    pass


def _build(text, cc):
    """The path of the shared library for C source ``text``: from the cache, or built."""
    key = _key(text, cc)
    d = cache_dir()
    so = os.path.join(d, key + ".so")
    if os.path.exists(so):
        try:
            os.utime(so)     # recently used
        except OSError:
            pass
        return key, so
    tag = f"{os.getpid()}.{threading.get_ident()}"
    src = os.path.join(d, f"{key}.{tag}.c")
    tmp = os.path.join(d, f"{key}.{tag}.so.tmp")
    with open(src, "w", encoding="utf-8") as fh:
        fh.write(text)
    try:
        # env: a copy made now (another thread may change os.environ meanwhile)
        done = subprocess.run(cc[0] + list(FLAGS) + ["-o", tmp, src, "-lm"],
                              capture_output=True, text=True, env=dict(os.environ))
        if done.returncode != 0:
            raise BuildError(done.stderr.strip()[-2000:] or "the compiler failed")
        os.replace(tmp, so)         # atomic: another process may build the same key
    finally:
        for p in (src, tmp):
            try:
                os.unlink(p)
            except OSError:
                pass
    _prune(d)
    return key, so


def _prune(d):
    """Keep the CACHE_ENTRIES most recently used libraries (and no stale temporaries)."""
    try:
        entries = [os.path.join(d, n) for n in os.listdir(d)]
    except OSError:
        return
    now = time.time()
    libs = []
    for p in entries:
        try:
            st = os.stat(p)
        except OSError:
            continue
        if p.endswith(".so"):
            libs.append((st.st_mtime, p))
        elif now - st.st_mtime > 3600:   # a temporary left by a killed build
            try:
                os.unlink(p)
            except OSError:
                pass
    libs.sort(reverse=True)
    for _, p in libs[CACHE_ENTRIES:]:
        try:
            os.unlink(p)
        except OSError:
            pass


def _load(key, path, functions):
    """Load the library (once per process) and bind each function's NumPy loops;
    ``functions`` is [(suffix, slots)]. Returns (library, {suffix: run address})."""
    with _lock:
        hit = _libraries.get(key)
        if hit is None:
            lib = ctypes.CDLL(path, mode=getattr(os, "RTLD_LOCAL", 0) | getattr(os, "RTLD_NOW", 2))
            runs = {}
            for suffix, slots in functions:
                runs[suffix] = ctypes.cast(getattr(lib, "rv_native_run" + suffix),
                                           ctypes.c_void_p).value
                table = ctypes.addressof(ctypes.c_char.in_dll(lib, "rv_native_uloops" + suffix))
                bind_uloops(table, slots)
            hit = _libraries[key] = (lib, runs)
        return hit


_known = {}                 # a function's text -> (library, run address), this process
_by_code = {}               # (code, registers, outputs) -> the same, without translating
_SUFFIX = "@SUFFIX@"


def _compile_programs(programs):
    """Translate, build (or find in the cache), load and install; raises BuildError.
    A program whose translation this process has loaded already reuses it."""
    cc = compiler()
    if cc is None:
        return False
    todo = {}               # text -> [programs]
    slots_of = {}
    translated = {}         # code -> (text, slots), for the programs of this call
    for prog in programs:
        code = (prog.code_list, prog.nregs, tuple(prog._out_registers()))
        hit = _by_code.get(code)
        if hit is not None:
            prog.use_native(hit[1], hit[0])
            continue
        if code not in translated:
            translated[code] = source(prog, _SUFFIX)
        text, slots = translated[code]
        hit = _known.get(text)
        if hit is not None:
            _by_code[code] = hit
            prog.use_native(hit[1], hit[0])
            continue
        todo.setdefault(text, []).append(prog)
        slots_of[text] = slots
    if not todo:
        return True
    texts = list(todo)
    suffixes = [""] if len(texts) == 1 else [f"_{k}" for k in range(len(texts))]
    unit = _engine_c.unit([t.replace(_SUFFIX, sfx) for t, sfx in zip(texts, suffixes)])
    key, path = _build(unit, cc)
    lib, runs = _load(key, path, [(sfx, slots_of[t]) for t, sfx in zip(texts, suffixes)])
    for t, sfx in zip(texts, suffixes):
        _known[t] = (lib, runs[sfx])
        for prog in todo[t]:
            _by_code[(prog.code_list, prog.nregs, tuple(prog._out_registers()))] = _known[t]
            prog.use_native(runs[sfx], lib)
    return True


def compile(program):
    """Compile ``program`` now, in this thread, and run it compiled from now on.
    True when it does; False when the tier is off or there is no compiler."""
    return compile_many([program])


def compile_many(programs):
    """`compile` for several programs at once: one translation unit, one compiler run
    (tests compile whole tables this way)."""
    programs = [p for p in programs if _eligible(p)]
    if not programs or mode() == "off":
        return False
    return _compile_programs(programs)


# ----- Background compilation -----

_jobs = queue.Queue()
_worker = []
_pending = weakref.WeakSet()


def _work():
    while True:
        ref = _jobs.get()
        prog = ref()
        if prog is None:
            continue
        try:
            _compile_programs([prog])
        except Exception as exc:  # the VM keeps running it
            _warn_once(("build", type(exc).__name__),
                       f"revsrc native tier: a program could not be compiled, the VM "
                       f"runs it ({type(exc).__name__}: {str(exc)[:300]})")
        finally:
            _pending.discard(prog)
            del prog


def request(program):
    """Compile ``program`` in the background (in this thread with REVSRC_NATIVE=sync);
    the VM runs it until the compiled code is loaded."""
    m = mode()
    if m == "off" or not _eligible(program) or program.tier == "native":
        return
    if compiler() is None:
        return
    if m == "sync":
        try:
            _compile_programs([program])
        except BuildError as exc:
            _warn_once(("build", "sync"), f"revsrc native tier: compiling failed, the VM "
                                          f"runs the program ({str(exc)[:300]})")
        return
    if program in _pending:
        return
    _pending.add(program)
    if not _worker:
        t = threading.Thread(target=_work, name="revsrc-native", daemon=True)
        _worker.append(t)
        t.start()
    _jobs.put(weakref.ref(program))


def attach(program, eager=False):
    """Let the native tier take ``program`` over: now (``eager``), or once it is hot."""
    if not eager:
        tier.attach(program, request)
    elif mode() != "off" and _eligible(program):
        request(program)


def wait(timeout=None):
    """Block until every background compilation requested so far is done (tests)."""
    deadline = None if timeout is None else time.monotonic() + timeout
    while len(_pending):
        if deadline is not None and time.monotonic() > deadline:
            return False
        time.sleep(0.005)
    return True
