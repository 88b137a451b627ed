"""Measure revsrc against JAX, PyTorch, HIPS autograd, central differences and C; write BENCHMARKS.md.

    python bench/vs_frameworks.py            # measure everything, print the tables
    python bench/vs_frameworks.py --emit     # ... write BENCHMARKS.md and bench/ratios.svg
    python bench/vs_frameworks.py --only mlp --quick
    python bench/vs_frameworks.py --sections-only   # only bench/sections.py's (~1-2 min)

Per (workload, framework) cell: compile + first call (fresh function objects: a fresh
`revsrc.grad(f)`, a fresh `jax.jit(...)` trace and compile, an eager framework's first
call), then steady-state time as best-of-N and median over ~0.5 s of repeats. Every
gradient is checked before it is timed; a mismatch stops the run. Each framework runs
in a process of its own (its threads, allocator and compiler alone in it), each pass
in fresh ones. After the framework tables come bench/sections.py's: loops over small
arrays, first calls in fresh processes, batching and long loops' memory (issues 24-26),
from the pytest-benchmark files' own workloads and checks.

On machines that pin an OpenBLAS core type, unset it for this command only, so NumPy
runs its own BLAS kernel (BENCHMARKS.md says which ran):

    env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE python bench/vs_frameworks.py --emit
"""

import argparse
import datetime
import functools
import math
import importlib.metadata
import importlib.util
import os
import platform
import statistics
import subprocess
import sys
import time
import tracemalloc
import traceback
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
if importlib.util.find_spec("revsrc") is None:  # a checkout that is not pip-installed
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

import frameworks as fw  # noqa: E402
import sections  # noqa: E402
from report_format import fmt_ms, fmt_ratio  # noqa: E402
import workloads as wl  # noqa: E402

ROW_ORDER = (
    "revsrc", "revsrc_nopool", "revsrc_jax", "revsrc_1core", "revsrc_vm", "c_newton_json", "c_program",
    "c_program_fused", "numpy", "jax.jit", "jax.jit[cond]", "jax.grad", "torch.autograd", "torch.func",
    "autograd",
    "handwritten", "numpy_by_hand", "c_handwritten", "central_diff", "plain",
)

ROW_LABELS = dict(fw.FRAMEWORK_LABELS)
ROW_LABELS.update({
    "jax.jit[cond]": "jax.jit(jax.grad), lax.cond",
    "c_handwritten": "c_handwritten (ctypes call from Python)",
    "plain": "g(0.3) plain python",
    "primal": "forward only (numpy, no gradient)",
    "cd_estimate": "central differences (estimate)",
    "c_json": "c_handwritten",
    "revsrc_vm": "revsrc, VM only",
    "revsrc_1core": "revsrc.vmap, one core",
    "c_program": "C program (gcc -O2 -ffp-contract=off)",
    "c_program_fused": "C program, fused (shared exp, sincos)",
    "c_newton_json": "C program, its own timing",
    "numpy": "NumPy, vectorised",
})

# the revsrc row of each table, where it is not revsrc.grad
WORKLOAD_LABELS = {"call": "dg(0.3) revsrc", "jit": "revsrc.jit(newton_all)",
                   "vmap": "revsrc.vmap(newton), both cores",
                   "vmap_np": "revsrc.vmap(newton), g in NumPy, both cores"}


class Cell:
    def __init__(self, workload, framework):
        self.workload = workload
        self.framework = framework
        self.first_ms = None
        self.best_ms = None
        self.median_ms = None
        self.note = ""
        self.status = "ok"  # ok | skipped | failed
        self.error = ""
        self.label = None
        self.fn = None
        self.samples = []

    def add_samples(self, samples):
        """Pool steady-state samples (seconds) across passes: best-of-all and median-of-all."""
        self.samples += samples
        self.best_ms = min(self.samples) * 1e3
        self.median_ms = statistics.median(self.samples) * 1e3


def time_steady(fn, budget, scale=1.0):
    """Seconds per call, one sample per batch of `number` calls, batches repeated for ~budget seconds."""
    t0 = time.perf_counter()
    fn()
    once = time.perf_counter() - t0
    number = max(1, int(2e-3 / max(once, 1e-9)))
    min_samples = 5 if once < 0.5 else (3 if once < 2.0 else 2)
    samples = []
    start = time.perf_counter()
    while len(samples) < min_samples or (time.perf_counter() - start < budget and len(samples) < 500):
        t0 = time.perf_counter()
        for _ in range(number):
            fn()
        samples.append((time.perf_counter() - t0) / number * scale)
    return samples


def measure(workload, framework, data, budget, revsrc_result, ref):
    cell = Cell(workload, framework)
    ok, reason = fw.available(framework.split("[")[0])
    if not ok:
        cell.status, cell.note = "skipped", reason
        return cell, None
    make = fw.REGISTRY[(workload, framework)]
    try:
        t0 = time.perf_counter()
        fn = make(data)
        first = fn()
        cell.first_ms = (time.perf_counter() - t0) * 1e3
    except fw.Unavailable as exc:
        cell.status, cell.note = "skipped", str(exc)
        return cell, None
    except Exception as exc:  # a framework (revsrc above all) refusing the workload: record, go on
        cell.status = "failed"
        cell.error = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        cell.note = "failed: " + _short_error(exc)
        return cell, None
    # A wrong gradient is never timed: this raises and stops the run.
    fw.check(workload, framework, first, data, ref=ref, revsrc_result=revsrc_result)
    if hasattr(fn, "finish"):
        fn.finish()
    cell.note = fn.note
    cell.fn = fn
    cell.add_samples(time_steady(fn, budget, fn.scale))
    if fn.scale != 1.0:
        cell.first_ms = None
        cell.note += " (compile+first not comparable on a subsample)"
    return cell, first


def warm_up_frameworks():
    """Pay each framework's one-time start-up (imports, thread pools, first kernel) before any
    cell's compile + first call is measured, so that column is per function, not per process."""
    for framework in ("jax.jit", "jax.grad", "torch.autograd", "torch.func", "autograd"):
        try:
            fw.REGISTRY[("call", framework)]((0.1,))()
        except fw.Unavailable:
            pass
    # NumPy's BLAS thread pool, and revsrc's import and first transformation, on functions of
    # our own (not the workloads': revsrc may cache per function).
    a = np.ones((64, 64))
    _warm_numpy(a)
    try:
        grad = fw._revsrc()
        grad(_warm_scalar)(0.5)
        grad(_warm_numpy)(a)
        if fw.available("revsrc_jax")[0]:  # backend="jax": its jnp helpers and first jit
            fw._jax()
            grad(_warm_numpy, backend="jax")(a).block_until_ready()
    except fw.Unavailable:
        pass
    except Exception as exc:  # revsrc cannot do even these: the cells will say why
        print(f"revsrc warm-up failed: {_short_error(exc)}", file=sys.stderr)


def _warm_scalar(x):
    return math.sin(x) * x + 1.0


def _warm_numpy(a):
    return np.sum(np.tanh(np.dot(a, a)) + a)




def frameworks_of(workload):
    names = [k[1] for k in fw.REGISTRY if k[0] == workload]
    return sorted(names, key=lambda name: ROW_ORDER.index(name) if name in ROW_ORDER else 99)


def run_workload(workload, budget, quick, log, only=None, extras=True, revsrc_result=None):
    """The cells of one workload: every framework's (or those in ``only``), then, with
    ``extras``, the C reference, the plain function and the central-difference estimate."""
    f, build, argnum, kind = wl.WORKLOADS[workload]
    data = build(20_000) if (workload == "newton" and quick) else build()
    ref = fw.oracle(workload, data)
    cells = []
    frameworks = [name for name in frameworks_of(workload) if only is None or name in only]
    for framework in frameworks:
        log(f"  {workload} / {framework} ...")
        cell, result = measure(workload, framework, data, budget, revsrc_result, ref)
        if framework == "revsrc" and result is not None and kind != "newton":
            revsrc_result = result
        log(f"    {cell.status} first={fmt_ms(cell.first_ms)} best={fmt_ms(cell.best_ms)} "
            f"median={fmt_ms(cell.median_ms)} {cell.note}")
        cells.append(cell)

    order_jit_variants(cells)

    if workload == "call":
        # The same 0.3 every call flatters anything that remembers its last input (or the branch
        # predictor): also time both over 1,000 distinct points, and say so beside the rows.
        xs = [float(x) for x in np.linspace(0.1, 0.5, 1000)]
        for c in cells:
            if c.fn is not None and c.framework in ("revsrc", "plain", "handwritten"):
                fn = {"revsrc": None, "plain": wl.g, "handwritten": wl.dg_by_hand}[c.framework]
                if fn is None:
                    fn = fw._revsrc()(wl.g)
                per = min(time_steady(lambda fn=fn: [fn(x) for x in xs], budget)) / len(xs) * 1e9
                c.note = (c.note + "; " if c.note else "") + f"{per:,.0f} ns per call over 1,000 distinct x"

    if not extras:
        return cells

    if workload == "recurrence":
        c = Cell(workload, "c_json")
        ok, reason = fw.available("c_handwritten")
        if ok:
            out = fw.c_reference_run()
            if not np.isclose(out["checksum"], ref, rtol=1e-6):
                raise fw.GradientMismatch(f"C reference checksum {out['checksum']} != central differences {ref}")
            c.first_ms = out["compile_ms"]
            c.best_ms = out["eval_ms"]
            c.note = (f"the reference's own best-of-2000 timing in C (no Python call); compile+first is gcc -O2; "
                      f"its primal alone: {fmt_ms(out['primal_ms'])} ms")
        else:
            c.status, c.note = "skipped", reason
        cells.insert(1, c)

    if workload == "jit":
        try:
            out = fw.newton_c_run()
        except fw.Unavailable as exc:
            out = None
            note = str(exc)
        for label, key in (("c_newton_json", "separate_ms"), ("c_newton_json", "fused_ms")):
            c = Cell(workload, label)
            if out is None:
                c.status, c.note = "skipped", note
            else:
                if not np.isclose(out["mean"], ref, rtol=1e-9):
                    raise fw.GradientMismatch(f"newton_libm.c mean {out['mean']} != {ref}")
                c.first_ms = out["compile_ms"]
                c.best_ms = out[key]
                c.label = ("C program, its own best-of-7 timing" +
                           (", fused" if key == "fused_ms" else ""))
                c.note = "newton_libm.c run as it is (no Python call); compile+first is gcc"
            cells.insert(1 if key == "separate_ms" else 2, c)

    if kind in ("array", "scalar") and workload != "call":
        p = Cell(workload, "primal")
        p.fn = functools.partial(f, *data)
        p.add_samples(time_steady(p.fn, budget))
        p.note = "the plain function itself, for scale"
        cells.append(p)
        if kind == "array":
            nparams = int(np.size(data[argnum]))
            est = Cell(workload, "cd_estimate")
            est.nparams = nparams
            est.best_ms = 2 * nparams * p.best_ms
            est.note = (f"not run: 2 x {nparams:,} params x forward best {fmt_ms(p.best_ms)} ms "
                        f"= {est.best_ms / 1e3:,.2f} s per gradient")
            cells.append(est)
    return cells


def order_jit_variants(cells):
    """Two jax.jit versions of the data-dependent `if`: the faster is "jax.jit(jax.grad)"."""
    jits = [c for c in cells if c.framework in ("jax.jit", "jax.jit[cond]") and c.best_ms is not None]
    if len(jits) == 2:
        jits.sort(key=lambda c: c.best_ms)
        jits[0].label, jits[1].label = "jax.jit(jax.grad)", "jax.jit(jax.grad), slower variant"
        i, j = cells.index(jits[0]), cells.index(jits[1])
        if i > j:
            cells[i], cells[j] = cells[j], cells[i]


# ----- one process per framework -----

# What a child process measures besides frameworks: the C reference, the plain function,
# the central-difference estimate (plain NumPy, no framework imported).
EXTRAS = "extras"


def _cell_to_json(c):
    return {"workload": c.workload, "framework": c.framework, "first_ms": c.first_ms,
            "samples": c.samples, "best_ms": c.best_ms, "note": c.note, "status": c.status,
            "error": c.error, "label": c.label, "nparams": getattr(c, "nparams", None)}


def _cell_from_json(d):
    c = Cell(d["workload"], d["framework"])
    c.first_ms, c.note, c.status, c.error, c.label = (d["first_ms"], d["note"], d["status"],
                                                      d["error"], d["label"])
    if d["samples"]:
        c.add_samples(d["samples"])
    else:
        c.best_ms = d["best_ms"]
    if d["nparams"] is not None:
        c.nparams = d["nparams"]
    return c


def child_main(framework, workloads, budget, quick, grads_path, out_path):
    """Measure one framework's cells (or the extras) in this process; write them as JSON.
    The revsrc child saves its gradients to ``grads_path``; the others check against them."""
    import json

    warnings.filterwarnings("ignore")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    if framework != EXTRAS:
        warm_up(framework)
    revsrc_grads = {}
    if framework not in ("revsrc", EXTRAS) and grads_path and os.path.exists(grads_path):
        with np.load(grads_path) as z:
            revsrc_grads = {k: z[k] for k in z.files}
    out, mine = [], {}
    for workload in workloads:
        if framework == EXTRAS:
            cells = run_workload(workload, budget, quick, log, only=set())
        else:
            if framework not in frameworks_of(workload):
                continue
            rr = revsrc_grads.get(workload)
            cells = run_workload(workload, budget, quick, log, only={framework}, extras=False,
                                 revsrc_result=rr)
            if framework == "revsrc" and cells and cells[0].fn is not None and \
                    wl.WORKLOADS[workload][3] != "newton":
                mine[workload] = fw.to_numpy(cells[0].fn())
        out += [_cell_to_json(c) for c in cells]
    if framework == "revsrc" and grads_path:
        np.savez(grads_path, **mine)
    with open(out_path, "w") as fh:
        json.dump(out, fh)
    return 0


def run_isolated(workloads, budget, quick, passes, log):
    """Every framework in a process of its own (so no framework's threads, allocator or
    JIT share a process with another's), the extras in one more; passes repeat them all,
    minutes apart, and pool the samples."""
    import json
    import tempfile

    names = []
    for workload in workloads:
        names += [n for n in frameworks_of(workload) if n not in names]
    names = sorted(names, key=lambda n: ROW_ORDER.index(n) if n in ROW_ORDER else 99)
    base = [n.split("[")[0] for n in names]
    groups = list(dict.fromkeys(base)) + [EXTRAS]
    results = {w: [] for w in workloads}
    with tempfile.TemporaryDirectory() as tmp:
        grads = os.path.join(tmp, "revsrc_grads.npz")
        for p in range(1, passes + 1):
            for group in groups:
                log(f"pass {p}: {group} (own process) ...")
                out = os.path.join(tmp, "cells.json")
                cmd = [sys.executable, __file__, "--child", group, "--budget", str(budget),
                       "--grads", grads, "--out", out]
                cmd += [a for w in workloads for a in ("--only", w)]
                if quick:
                    cmd.append("--quick")
                proc = subprocess.run(cmd, text=True, stderr=subprocess.PIPE)
                if proc.returncode != 0 or not os.path.exists(out):
                    tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
                    raise SystemExit(f"child for {group} failed: {tail}")
                with open(out) as fh:
                    cells = [_cell_from_json(d) for d in json.load(fh)]
                os.remove(out)
                for c in cells:
                    have = [x for x in results[c.workload] if x.framework == c.framework]
                    if not have:
                        results[c.workload].append(c)
                    elif c.samples:
                        have[0].add_samples(c.samples)
    for workload in workloads:
        cells = results[workload]
        tail = [c for c in cells if c.framework in ("primal", "cd_estimate")]
        head = [c for c in cells if c not in tail]
        head.sort(key=lambda c: (ROW_ORDER.index(c.framework) if c.framework in ROW_ORDER
                                 else (0.5 if c.framework == "c_json" else 99)))
        for c in head:
            c.label = None
        order_jit_variants(head)
        primal = _find(tail, "primal")
        for c in tail:
            if c.framework == "cd_estimate" and primal is not None:
                c.best_ms = c.nparams * 2 * primal.best_ms
                c.note = (f"not run: 2 x {c.nparams:,} params x forward best {fmt_ms(primal.best_ms)} ms "
                          f"= {c.best_ms / 1e3:,.2f} s per gradient")
        results[workload] = head + tail
    return results


def warm_up(framework):
    """One framework's process-wide start-up, paid before its first cell (see
    warm_up_frameworks)."""
    if framework in ("jax.jit", "jax.grad", "torch.autograd", "torch.func", "autograd"):
        try:
            fw.REGISTRY[("call", framework)]((0.1,))()
        except fw.Unavailable:
            pass
    a = np.ones((64, 64))
    _warm_numpy(a)
    if framework.startswith("revsrc"):
        try:
            grad = fw._revsrc()
            grad(_warm_scalar)(0.5)
            grad(_warm_numpy)(a)
            if framework == "revsrc_jax":  # JAX's start-up, and revsrc's jnp helpers
                fw._jax()
                grad(_warm_numpy, backend="jax")(a).block_until_ready()
        except fw.Unavailable:
            pass


# ----- memory -----


def _vm(field):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(field + ":"):
                return int(line.split()[1]) / 1024.0  # MiB
    return None


def _reset_hwm():
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _memory_builders(case_name, n):
    """(warm, measured) zero-arg callables for one memory cell; `warm` pays compilation (and,
    for revsrc, runs the same code at a small n so its stacks are not pre-grown)."""
    if case_name == "recurrence/revsrc":
        d = fw._revsrc()(wl.recurrence_n)
        return (lambda: d(0.3, 10)), (lambda: d(0.3, n))
    if case_name == "recurrence/central_diff":
        def cd(m):
            return (wl.recurrence_n(0.3 + 1e-6, m) - wl.recurrence_n(0.3 - 1e-6, m)) / 2e-6
        return (lambda: cd(10)), (lambda: cd(n))
    if case_name == "recurrence/jax.jit":
        fn = fw._jax_scalar_jit(fw._jax_recurrence_where(n), 0.3, "")  # n is static under jit
        return fn, fn
    if case_name == "recurrence/autograd":
        autograd, anp = fw._autograd()
        gf = autograd.grad(fw._recurrence_python_if(anp, n))
        return (lambda: gf(0.3)), (lambda: gf(0.3))
    workload, framework = case_name.split("/")
    fn = fw.REGISTRY[(workload, framework)](wl.WORKLOADS[workload][1]())
    return fn, fn


def memory_child(case_name, n):
    """Run in a fresh process: peak RSS growth over one call (VmHWM reset after the warm-up
    call), then the tracemalloc peak of another call. Prints one JSON line."""
    import json

    warnings.filterwarnings("ignore")
    out = {"traced": None, "rss": None, "ms": None, "error": None}
    try:
        warm, fn = _memory_builders(case_name, n)
        warm()
        if _reset_hwm():
            before = _vm("VmRSS")
            t0 = time.perf_counter()
            fn()
            out["ms"] = (time.perf_counter() - t0) * 1e3
            out["rss"] = _vm("VmHWM") - before
        tracemalloc.start()
        base = tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        fn()
        if out["ms"] is None:
            out["ms"] = (time.perf_counter() - t0) * 1e3
        out["traced"] = (tracemalloc.get_traced_memory()[1] - base) / 2**20
        tracemalloc.stop()
    except fw.Unavailable as exc:
        out["error"] = "skipped: " + str(exc)
    except Exception as exc:
        out["error"] = "failed: " + _short_error(exc)
    print(json.dumps(out))


def memory_cells(log):
    import json

    rows = []
    plan = []
    for n in (1000, 1_000_000):
        label = f"recurrence_n, n = {n:,}"
        for framework in ("revsrc", "central_diff", "jax.jit") + (("autograd",) if n == 1000 else ()):
            plan.append((label, framework, f"recurrence/{framework}", n))
    for framework in ("revsrc", "jax.jit", "torch.autograd", "autograd"):
        plan.append(("mlp", framework, f"mlp/{framework}", 0))
    for workload, framework in (("ode", "revsrc"), ("ode", "jax.jit"), ("call", "revsrc"),
                                ("jit", "revsrc"), ("jit", "c_program"), ("vmap", "revsrc"),
                                ("vmap", "c_program"), ("vmap_np", "revsrc"), ("vmap_np", "numpy"),
                                ("vmap_np", "jax.jit")):
        plan.append((workload, framework, f"{workload}/{framework}", 0))
    for label, framework, case_name, n in plan:
        name = ROW_LABELS.get(framework, framework)
        ok, reason = fw.available(framework)
        if not ok:
            rows.append((label, name, None, None, None, "skipped: " + reason))
            continue
        log(f"  memory: {label} / {framework} ...")
        proc = subprocess.run([sys.executable, __file__, "--memory-child", case_name, str(n)],
                              capture_output=True, text=True)
        try:
            res = json.loads(proc.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            res = {"traced": None, "rss": None, "ms": None,
                   "error": "failed: " + (proc.stderr.strip().splitlines() or ["no output"])[-1][:160]}
        note = res["error"] or ""
        if not note and framework.startswith(("jax", "torch")):
            note = "tracemalloc does not see this framework's allocator"
        rows.append((label, name, res["traced"], res["rss"], res["ms"], note))
    return rows


def _short_error(exc):
    """The exception's class and the first line of its message (revsrc's carry the code there)."""
    lines = str(exc).strip().splitlines()
    return f"{type(exc).__name__}: {lines[0] if lines else ''}"[:200]


# ----- the report -----


def environment():
    def ver(pkg):
        try:
            return importlib.metadata.version(pkg)
        except importlib.metadata.PackageNotFoundError:
            return "not installed"

    try:
        rev = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True,
                             text=True).stdout.strip() or "?"
    except OSError:
        rev = "?"
    cpu = platform.processor() or ""
    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"Python {platform.python_version()}, {platform.system()} {platform.machine()}, "
            f"{os.cpu_count()} CPUs ({cpu}), numpy {np.__version__}, jax {ver('jax')}, jaxlib {ver('jaxlib')}, "
            f"torch {ver('torch')}, autograd {ver('autograd')}, revsrc at {rev}, "
            f"load average {os.getloadavg()[0]:.1f} (machine shared with other jobs), "
            f"{datetime.datetime.now(datetime.timezone.utc).strftime('%Y-%m-%d %H:%M UTC')}")


def set_threads(n):
    """Every framework's math library on ``n`` threads: on a shared machine a second BLAS
    thread that is not scheduled stalls each small product by milliseconds."""
    n = str(n)
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ[var] = n
    flags = os.environ.get("XLA_FLAGS", "")
    if n == "1" and "xla_cpu_multi_thread_eigen" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_cpu_multi_thread_eigen=false").strip()


def blas_kernel():
    """Which BLAS NumPy runs and with which kernel (threadpoolctl), and the environment
    variables that pin an OpenBLAS core type."""
    import json

    pinned = [f"{k}={os.environ[k]}" for k in ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE")
              if k in os.environ]
    # asked in a fresh process: what the measuring processes load, with their environment
    probe = ("import json, numpy, threadpoolctl; "
             "print(json.dumps(threadpoolctl.threadpool_info()))")
    proc = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if proc.returncode != 0:
        return "unknown (pip install threadpoolctl)"
    infos = [i for i in json.loads(proc.stdout) if i.get("user_api") == "blas"]
    if not infos:
        return "none found by threadpoolctl"
    parts = [f"{i.get('internal_api')} {i.get('version')}, kernel {i.get('architecture')}, "
             f"{i.get('num_threads')} threads" for i in infos]
    return "; ".join(parts) + (f" (pinned: {', '.join(pinned)})" if pinned else
                               " (OPENBLAS_CORETYPE and OPENBLAS_L2_SIZE unset)")


def cpu_features():
    """The SIMD extensions NumPy found at run time (numpy.show_runtime's list)."""
    try:
        from numpy._core._multiarray_umath import __cpu_features__ as feats
    except ImportError:  # pragma: no cover - older NumPy
        return "unknown"
    found = [k for k, v in feats.items() if v and k.startswith(("AVX", "FMA", "X86_V"))]
    return ", ".join(found) or "none beyond SSE"


def load_average():
    try:
        return "load average %.2f %.2f %.2f" % os.getloadavg()
    except OSError:
        return "load average unknown"


def _find(cells, framework):
    for c in cells:
        if c.framework == framework and c.status == "ok" and c.best_ms is not None:
            return c
    return None


def table(workload, cells):
    rev = _find(cells, "revsrc")
    lines = [f"### {workload}: {wl.WORKLOAD_TITLES[workload]}", "",
             "| framework | compile+first (ms) | steady best (ms) | steady median (ms) | ratio to revsrc (best) | notes |",
             "|---|---:|---:|---:|---:|---|"]
    for c in cells:
        label = c.label or ROW_LABELS.get(c.framework, c.framework)
        if c.framework == "revsrc" and workload in WORKLOAD_LABELS:
            label = WORKLOAD_LABELS[workload]
        if wl.WORKLOADS[workload][3] == "second":     # the notes name the call
            label = {"revsrc": "revsrc", "jax.jit": "jax.jit",
                     "torch.func": "torch.func"}.get(c.framework, label)
        ratio = c.best_ms / rev.best_ms if (rev and c.best_ms is not None) else None
        note = c.note if c.status != "skipped" else "skipped: " + c.note
        lines.append(f"| {label} | {fmt_ms(c.first_ms)} | {fmt_ms(c.best_ms)} | {fmt_ms(c.median_ms)} | "
                     f"{fmt_ratio(ratio)} | {note.replace('|', '/')} |")
    return "\n".join(lines)


# Targets that compare revsrc with one other row, measured again in turn (A, B, A, B, ...)
# so that the machine's load weighs on both alike: (workload A, framework A, workload B,
# framework B, calls per sample).
PAIRED = {
    "recurrence": ("recurrence", "revsrc", "recurrence", "c_handwritten", 20),
    "call": ("call", "revsrc", "call", "plain", 2000),
    "ode": ("ode", "revsrc", "ode", "jax.jit", 100),
    "jit": ("jit", "revsrc", "jit", "c_program", 1),
    "vmap": ("vmap", "revsrc", "vmap", "c_program", 1),
    "vmap_np": ("vmap_np", "revsrc", "vmap_np", "numpy", 1),
    # the same XLA runtime on both sides: revsrc's jnp program against JAX's own
    "mlp_jax": ("mlp", "revsrc_jax", "mlp", "jax.jit", 20),
    "conv_jax": ("conv", "revsrc_jax", "conv", "jax.jit", 2),
}


def paired_ratios(results, log, seconds=3.0):
    """{goal: (ratio, a_ms, b_ms)}: best-of-N of each side, the two measured in turn."""
    out = {}
    for goal, (wa, fa, wb, fb, number) in PAIRED.items():
        a, b = _find(results.get(wa, []), fa), _find(results.get(wb, []), fb)
        if a is None or b is None or a.fn is None or b.fn is None:
            continue
        log(f"  paired: {wa}/{fa} against {wb}/{fb} ...")
        best = [math.inf, math.inf]
        start = time.perf_counter()
        rounds = 0
        while rounds < 5 or (time.perf_counter() - start < seconds and rounds < 400):
            for k, fn in enumerate((a.fn, b.fn)):
                t0 = time.perf_counter()
                for _ in range(number):
                    fn()
                best[k] = min(best[k], (time.perf_counter() - t0) / number)
            rounds += 1
        out[goal] = (best[0] / best[1], best[0] * 1e3, best[1] * 1e3)
    return out


def pairs_child(workloads, quick, out_path):
    """The PAIRED targets of ``workloads``, both sides built in this one process and
    timed in turn (the isolated run's cells live in processes of their own, so their
    functions are not at hand in the parent); writes {goal: [ratio, a_ms, b_ms]}."""
    import json

    warnings.filterwarnings("ignore")
    out = {}
    built = {}
    for goal, (wa, fa, wb, fb, _) in PAIRED.items():
        if wa not in workloads or wb not in workloads:
            continue
        for w, f in ((wa, fa), (wb, fb)):
            if (w, f) in built:
                continue
            ok, _ = fw.available(f.split("[")[0])
            if not ok or (w, f) not in fw.REGISTRY:
                built[(w, f)] = None
                continue
            build = wl.WORKLOADS[w][1]
            data = build(20_000) if (w == "newton" and quick) else build()
            try:
                warm_up(f)
                fn = fw.REGISTRY[(w, f)](data)
                # checked as in the tables: a wrong result is never timed
                fw.check(w, f, fn(), data)
                if hasattr(fn, "finish"):
                    fn.finish()
            except fw.GradientMismatch:
                raise
            except Exception as exc:   # that target falls back to best-of-run
                print(f"  pairs: {w}/{f} not measured in turn: {_short_error(exc)}",
                      file=sys.stderr, flush=True)
                fn = None
            built[(w, f)] = fn
    cells = {k: _PairCell(fn) for k, fn in built.items()}
    results = {}
    for (w, f), c in cells.items():
        results.setdefault(w, []).append(c)
        c.workload, c.framework = w, f
    for goal, value in paired_ratios(results, lambda msg: print(msg, file=sys.stderr, flush=True),
                                     seconds=1.0 if quick else 3.0).items():
        out[goal] = list(value)
    with open(out_path, "w") as fh:
        json.dump(out, fh)
    return 0


class _PairCell:
    """What paired_ratios reads of a cell (through _find): its framework and function."""

    def __init__(self, fn):
        self.fn = fn
        self.workload = self.framework = None
        self.status, self.best_ms = ("ok", 0.0) if fn is not None else ("skipped", None)


def run_pairs(workloads, quick, log):
    """pairs_child in a process of its own; {} when it fails (the targets then fall back
    to the best-of-run ratio, and say so)."""
    import json
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "pairs.json")
        cmd = [sys.executable, __file__, "--pairs-child", "--out", out]
        cmd += [a for w in workloads for a in ("--only", w)]
        if quick:
            cmd.append("--quick")
        log("targets measured in turn (own process) ...")
        proc = subprocess.run(cmd, text=True, stderr=subprocess.PIPE)
        if proc.returncode != 0 or not os.path.exists(out):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            log(f"  pairs child failed: {tail}")
            return {}
        with open(out) as fh:
            return {k: tuple(v) for k, v in json.load(fh).items()}


def targets(results, paired=None, extra=()):
    """The "Targets" table: the framework tables' goals, then ``extra`` rows (goal,
    measured, met) from bench/sections.py."""
    paired = paired or {}

    def best(workload, framework):
        c = _find(results.get(workload, []), framework)
        return c.best_ms if c else None

    def first(workload, framework):
        c = _find(results.get(workload, []), framework)
        return c.first_ms if c else None

    def fastest_jit(workload):
        vals = [v for v in (best(workload, "jax.jit"), best(workload, "jax.jit[cond]")) if v is not None]
        return min(vals) if vals else None

    rows = []

    def ratio_goal(goal, a, b, limit, what, pair=None):
        if pair in paired:      # measured in turn: the ratio that decides
            r, pa, pb = paired[pair]
            rows.append((goal, f"{r:.2f}x ({fmt_ms(pa)} ms vs {fmt_ms(pb)} ms {what}, measured in turn; "
                               f"best-of-run {a / b:.2f}x)" if a and b else f"{r:.2f}x",
                         "yes" if r <= limit else "**no**"))
        elif a is None or b is None:
            rows.append((goal, "not measured", "—"))
        else:
            r = a / b
            rows.append((goal, f"{r:.2f}x ({fmt_ms(a)} ms vs {fmt_ms(b)} ms {what})", "yes" if r <= limit else "**no**"))

    def abs_goal(goal, a, limit):
        if a is None:
            rows.append((goal, "not measured", "—"))
        else:
            rows.append((goal, f"{fmt_ms(a)} ms", "yes" if a < limit else "**no**"))

    r = best("mlp", "revsrc")
    ratio_goal("MLP: revsrc steady <= 0.8x jax.jit", r, best("mlp", "jax.jit"), 0.8, "jax.jit")
    ratio_goal("MLP: revsrc ahead of eager PyTorch", r, best("mlp", "torch.autograd"), 1.0, "torch.autograd")
    ratio_goal("MLP: revsrc ahead of autograd", r, best("mlp", "autograd"), 1.0, "autograd")
    abs_goal("MLP: revsrc compile+first < 20 ms", first("mlp", "revsrc"), 20.0)
    ratio_goal("conv: revsrc steady <= 1.0x jax.jit", best("conv", "revsrc"), best("conv", "jax.jit"), 1.0, "jax.jit")
    ratio_goal("RNN: revsrc steady <= 1.5x jax.jit", best("rnn", "revsrc"), best("rnn", "jax.jit"), 1.5, "jax.jit")
    ratio_goal("second derivative of the recurrence: revsrc <= 2x jax.jit(jax.hessian)",
               best("hessian_recurrence", "revsrc"), best("hessian_recurrence", "jax.jit"), 2.0,
               "jax.jit(jax.hessian)")
    abs_goal("second derivative of the recurrence: revsrc compile+first < 50 ms",
             first("hessian_recurrence", "revsrc"), 50.0)
    ratio_goal("logistic regression: revsrc steady <= 1.5x jax.jit", best("logreg", "revsrc"),
               best("logreg", "jax.jit"), 1.5, "jax.jit")
    r = best("recurrence", "revsrc")
    ratio_goal("recurrence: revsrc steady <= 1.0x jax.jit (faster variant)", r, fastest_jit("recurrence"), 1.0,
               "jax.jit")
    ratio_goal("recurrence: revsrc within 1.15x of the C reference (its own timing, no Python call)", r,
               best("recurrence", "c_json"), 1.15, "C")
    ratio_goal("recurrence: revsrc within 1.15x of the C reference called from Python", r,
               best("recurrence", "c_handwritten"), 1.15, "C through ctypes", pair="recurrence")
    abs_goal("recurrence: revsrc compile+first < 20 ms", first("recurrence", "revsrc"), 20.0)
    ratio_goal("dg(0.3) revsrc within 1.5x of plain g(0.3)", best("call", "revsrc"), best("call", "plain"), 1.5,
               "g(0.3)", pair="call")
    ratio_goal("ode (RK4): revsrc steady <= 1.0x jax.jit", best("ode", "revsrc"), best("ode", "jax.jit"), 1.0,
               "jax.jit", pair="ode")
    ratio_goal("revsrc.jit(newton_all) <= 1.2x the C program (gcc -O2 -ffp-contract=off)", best("jit", "revsrc"),
               best("jit", "c_program"), 1.2, "C", pair="jit")
    ratio_goal("revsrc.vmap(newton), both cores, <= 0.65x the C program", best("vmap", "revsrc"),
               best("vmap", "c_program"), 0.65, "C", pair="vmap")
    ratio_goal("revsrc.vmap(newton), g in NumPy, faster than NumPy's vectorised Newton", best("vmap_np", "revsrc"),
               best("vmap_np", "numpy"), 1.0, "NumPy", pair="vmap_np")
    ratio_goal("MLP: revsrc backend='jax' steady <= 1.1x jax.jit", best("mlp", "revsrc_jax"),
               best("mlp", "jax.jit"), 1.1, "jax.jit", pair="mlp_jax")
    ratio_goal("conv: revsrc backend='jax' steady <= 1.1x jax.jit", best("conv", "revsrc_jax"),
               best("conv", "jax.jit"), 1.1, "jax.jit", pair="conv_jax")
    rows += _reported_firsts(first)
    rows = (rows if results else []) + list(extra)   # --sections-only: theirs alone
    lines = ["## Targets", "", "Steady-state comparisons use best-of-N.", "",
             "| goal | measured | met |", "|---|---|---|"]
    lines += [f"| {g} | {m} | {ok} |" for g, m, ok in rows]
    return "\n".join(lines)


def _reported_firsts(first):
    """Compile+first of revsrc (NumPy and backend='jax') beside jax.jit's: reported, no goal."""
    rows = []
    for framework, name in (("revsrc_jax", "revsrc backend='jax'"), ("revsrc", "revsrc")):
        for workload in ("mlp", "conv", "rnn", "logreg"):
            a, b = first(workload, framework), first(workload, "jax.jit")
            if a is not None and b is not None:
                rows.append((f"{workload}: compile+first, {name} vs jax.jit (reported)",
                             f"{fmt_ms(a)} ms vs {fmt_ms(b)} ms", "—"))
    return rows


HOW_TO_READ = """## How to read this

- **compile+first**: building the gradient function from scratch and calling it once, with the
  framework's process-wide start-up already paid (each framework computes one small gradient
  before any cell is measured). revsrc: a fresh `revsrc.grad(f)` plus its first call (parsing,
  transformation, code generation); `jax.jit`: tracing plus XLA compilation plus the first run;
  eager frameworks: their first call. Data is built beforehand and not counted.
- **steady best / median**: per-call time once warm, from batches of calls repeated for about
  0.5 s, in two passes over all cells minutes apart, each framework in a fresh process of its
  own in each pass (best-of-N and median over all batches of both passes,
  `time.perf_counter`); compile+first is from the first pass. The machine is a shared,
  noisy 2-core box: trust the best for "how fast can it go" and the median for "what to expect";
  differences under ~20% are noise.
- **Targets** marked "measured in turn" are decided by a ratio measured after the tables with both
  sides in one process of their own, in turn (revsrc, the other, revsrc, ...; best of each over a
  few seconds), so that the load of the moment weighs on both alike; the ratio of the two rows'
  best-of-run is shown beside it. These are the targets against C, plain Python, NumPy, and
  backend='jax' against jax.jit (one XLA runtime on both sides). The others (revsrc's NumPy
  path against jax.jit) compare the rows' best-of-run, each framework in its own process, so
  that neither's math-library threads run beside the other's.
- **ratio to revsrc (best)**: this row's best time divided by revsrc's; above 1 means slower than
  revsrc, below 1 means faster.
- Everything runs in float64 on the CPU (`jax_enable_x64` on; torch tensors are float64).
  Each framework gets its idiomatic version of the workload (see the notes): `jax.jit` uses
  `lax.fori_loop` where a Python loop would unroll and `jnp.where`/`lax.cond` for the data-dependent
  `if`; Newton in JAX and PyTorch runs all starts at once vectorized while revsrc, autograd and
  central differences call the derivative from the user's Python loop.
- Every gradient is checked against central differences (sampled entries for arrays) and against
  revsrc's before it is timed; a mismatch aborts the run.
- Rows marked "(estimate)" are not run; "failed:" rows show the error the framework raised;
  "skipped:" rows are frameworks not installed on this machine.
- **jit, vmap, vmap_np**: not gradients but whole programs compiled by revsrc: the time of one
  `newton_all(100_000)` (jit) or one map over the 100,000 starts (vmap), against the C program
  `newton_libm.c` (gcc -O2 -ffp-contract=off; called through ctypes, and its own best-of-7
  timing), NumPy's vectorised Newton and `jax.jit(jax.vmap(...))`. revsrc's results are checked
  equal, bit for bit, to the plain Python program's; the others within 1e-9. The revsrc rows run
  on the native tier once it has compiled the program in the background (its compile time, with
  an empty cache, is in the notes); "VM only" rows keep it off (REVSRC_NATIVE=0). The recurrence,
  ode and call tables have such a row too.
- Memory: each cell runs in a fresh process: one warm-up call (compilation; for revsrc and
  central differences at n = 10 so nothing is pre-grown), then the peak-RSS growth over one
  call (Linux VmHWM reset first; it sees C allocations such as revsrc's stacks, and is a lower
  bound where freed memory is reused), then the `tracemalloc` peak of another call, which
  counts Python-heap and NumPy allocations only (not C `malloc` in compiled extensions, nor
  JAX's or PyTorch's own allocators).
"""


CHART = "bench/ratios.svg"
CHART_TARGETS = {"mlp": 0.8, "conv": 1.0, "rnn": 1.5, "logreg": 1.5, "recurrence": 1.0}


def chart(results, path):
    """A bar per workload and framework: steady best relative to jax.jit(jax.grad) (the
    faster variant), on a log scale, with revsrc's target marked. Returns False when
    matplotlib is missing (pip install revsrc[compare])."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    shown = ("revsrc", "torch.autograd", "autograd")
    colors = {"revsrc": "#1f77b4", "torch.autograd": "#ff7f0e", "autograd": "#2ca02c"}
    rows = []
    for workload, cells in results.items():
        jits = [c.best_ms for c in cells if c.framework in ("jax.jit", "jax.jit[cond]")
                and c.status == "ok" and c.best_ms is not None]
        if not jits:
            continue
        ratios = {c.framework: c.best_ms / min(jits) for c in cells
                  if c.framework in shown and c.status == "ok" and c.best_ms is not None}
        if "revsrc" in ratios:
            rows.append((workload, ratios))
    if not rows:
        return False
    plt.rcParams["svg.hashsalt"] = "revsrc"  # the same ids on every run
    fig, ax = plt.subplots(figsize=(8, 1.6 + 0.7 * len(rows)))
    height = 0.8 / len(shown)
    for k, name in enumerate(shown):
        ys = [i + (k - 1) * height for i in range(len(rows))]
        vals = [r.get(name) for _, r in rows]
        ax.barh([y for y, v in zip(ys, vals) if v], [v for v in vals if v], height=height,
                color=colors[name], label=ROW_LABELS.get(name, name))
        if name == "revsrc":
            for y, v in zip(ys, vals):
                ax.text(v * 1.05, y, f"{v:.2f}x", va="center", fontsize=8)
    for i, (workload, _) in enumerate(rows):
        target = CHART_TARGETS.get(workload)
        if target:
            ax.plot([target, target], [i - 0.45, i + 0.45], color="black", lw=1.5,
                    ls="--", label="revsrc's target" if i == 0 else None)
    ax.axvline(1.0, color="grey", lw=0.8)
    ax.set_xscale("log")
    ax.set_yticks(range(len(rows)), [w for w, _ in rows])
    ax.invert_yaxis()
    ax.set_xlabel("steady best, relative to jax.jit(jax.grad) (1.0 = as fast; left is faster)")
    ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.18 - 0.5 / len(rows)),
              ncol=4, frameon=False)
    fig.tight_layout()
    fig.savefig(ROOT / path, format=path.rsplit(".", 1)[-1], metadata={"Date": None})
    plt.close(fig)
    return True


def memory_table(rows):
    lines = ["## Peak memory (one warm gradient call, each in a fresh process)", "",
             "| workload | framework | tracemalloc peak (MiB) | peak RSS growth (MiB) | that call (ms) | notes |",
             "|---|---|---:|---:|---:|---|"]
    for label, framework, traced, rss, ms, note in rows:
        t = f"{traced:.2f}" if traced is not None else "—"
        r = f"{rss:.2f}" if rss is not None else "—"
        lines.append(f"| {label} | {framework} | {t} | {r} | {fmt_ms(ms)} | {note} |")
    return "\n".join(lines)


def parse_args(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--emit", action="store_true", help="write BENCHMARKS.md at the repo root")
    ap.add_argument("--only", action="append", choices=list(wl.WORKLOADS), help="only this workload (repeatable)")
    ap.add_argument("--quick", action="store_true", help="0.1 s per cell, Newton on 20,000 starts, no memory section")
    ap.add_argument("--no-memory", action="store_true", help="skip the memory section")
    ap.add_argument("--sections-only", action="store_true",
                    help="only the sections of bench/sections.py (small arrays in loops, first calls, "
                         "batching, long loops' memory), no framework tables: a partial run")
    ap.add_argument("--no-sections", action="store_true",
                    help="skip the sections of bench/sections.py (so does --only)")
    ap.add_argument("--passes", type=int, default=None, help="timing passes over all cells (default 2, --quick 1)")
    ap.add_argument("--threads", type=int, default=None,
                    help="threads for every framework's math library (BLAS, XLA, torch); "
                         "default: each library's own choice")
    ap.add_argument("--same-process", action="store_true",
                    help="run every framework in this one process (default: one process each)")
    ap.add_argument("--memory-child", nargs=2, metavar=("CASE", "N"), help=argparse.SUPPRESS)
    ap.add_argument("--child", help=argparse.SUPPRESS)
    ap.add_argument("--pairs-child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--budget", type=float, help=argparse.SUPPRESS)
    ap.add_argument("--grads", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    return ap.parse_args(argv)


def measure_frameworks(args, workloads, budget, log):
    """(results, failures, paired) of the framework tables."""
    if args.passes is None:
        args.passes = 1 if args.quick else 2
    results, failures = {}, []
    if not workloads:
        return results, failures, {}
    if not args.same_process:
        results = run_isolated(workloads, budget, args.quick, args.passes, log)
        failures = [c for w in workloads for c in results[w] if c.status == "failed"]
        args.passes = 0  # pooled inside run_isolated
    else:
        log("warming up frameworks ...")
        warm_up_frameworks()
        for workload in workloads:
            results[workload] = run_workload(workload, budget, args.quick, log)
            failures += [c for c in results[workload] if c.status == "failed"]
    # The machine is shared: a burst of someone else's work can cover a whole cell. Later
    # passes time every cell again, minutes apart, and pool the samples.
    for p in range(2, args.passes + 1):
        for workload in workloads:
            for cell in results[workload]:
                if cell.fn is not None:
                    log(f"  pass {p}: {workload} / {cell.framework} ...")
                    cell.add_samples(time_steady(cell.fn, budget, getattr(cell.fn, "scale", 1.0)))
        for workload in workloads:
            for cell in results[workload]:
                if cell.framework == "cd_estimate":
                    primal = _find(results[workload], "primal")
                    cell.best_ms = cell.nparams * 2 * primal.best_ms
                    cell.note = (f"not run: 2 x {cell.nparams:,} params x forward best {fmt_ms(primal.best_ms)} ms "
                                 f"= {cell.best_ms / 1e3:,.2f} s per gradient")
    if args.same_process:
        paired = paired_ratios(results, log, seconds=1.0 if args.quick else 3.0)
    else:
        paired = run_pairs(workloads, args.quick, log)
    return results, failures, paired


def header(args, load_before):
    """The report's title, environment and the run's kind."""
    partial = []
    if args.only:
        partial.append("--only " + " ".join(args.only))
    if args.sections_only:
        partial.append("--sections-only")
    if args.quick:
        partial.append("--quick")
    isolation = ("each framework in its own process (`--same-process` to share one)"
                 if not args.same_process else "every framework in one process")
    isolation += (f"; {args.threads} thread(s) for every framework's math library "
                  "(`--threads`: OpenBLAS, XLA's Eigen pool, torch)" if args.threads
                  else "; each math library's own thread count")
    return ["# Benchmarks: revsrc against JAX, PyTorch, autograd, central differences and C", "",
            "Generated by `python bench/vs_frameworks.py --emit`; never edit this file by hand."
            + (f" (partial run: {', '.join(partial)})" if partial else ""), "",
            f"Environment: {environment()}", "",
            f"- BLAS (threadpoolctl): {blas_kernel()}",
            f"- CPU features NumPy dispatches to: {cpu_features()}",
            f"- Processes: {isolation}; machine {load_before} at the start, "
            f"{load_average()} at the end", "",
            "All times in milliseconds per gradient (per program run in the jit and vmap tables).", ""]


def main(argv=None):
    args = parse_args(argv)
    if args.memory_child:
        memory_child(args.memory_child[0], int(args.memory_child[1]))
        return 0
    workloads = [] if args.sections_only else (args.only or list(wl.WORKLOADS))
    budget = args.budget or (0.1 if args.quick else 0.5)
    if args.threads:
        set_threads(args.threads)  # before any framework is imported (children inherit it)
    if args.child:
        return child_main(args.child, workloads, budget, args.quick, args.grads, args.out)
    if args.pairs_child:
        return pairs_child(workloads, args.quick, args.out)
    warnings.filterwarnings("ignore")

    def log(msg):
        print(msg, file=sys.stderr, flush=True)

    load_before = load_average()
    started = time.perf_counter()
    results, failures, paired = measure_frameworks(args, workloads, budget, log)
    memory = not (args.quick or args.no_memory)
    mem = memory_cells(log) if (memory and workloads) else []
    sec_text, extra = "", []
    if not args.no_sections and (args.sections_only or not args.only):
        sec_text, extra = sections.tables(sections.measure(args.quick, log))
        if memory:
            ck_rows, ck_targets = sections.checkpoint_memory(log)
            mem, extra = mem + ck_rows, extra + ck_targets
    extra = sections.framework_targets(results) + extra if workloads else extra
    out = header(args, load_before)
    if args.emit and chart(results, CHART):
        out += [f"![steady best relative to jax.jit(jax.grad), per workload]({CHART})", "",
                f"`{CHART}`: each bar is a framework's steady best divided by jax.jit(jax.grad)'s "
                "(log scale, left is faster); the dashed mark is revsrc's target.", ""]
    for workload in workloads:
        out += [table(workload, results[workload]), ""]
    summary = sections.by_hand_summary(results)
    out += [summary, ""] if summary else []
    out += [sec_text, ""] if sec_text else []
    if mem:
        out += [memory_table(mem), ""]
    out += [targets(results, paired, extra), "", HOW_TO_READ]
    if failures:
        out += ["## Failures", ""]
        for c in failures:
            out += [f"- {c.workload} / {c.framework}:", "", "  ```", *("  " + ln for ln in c.error.splitlines()),
                    "  ```", ""]
    text = "\n".join(out).rstrip() + "\n"
    print(text)
    log(f"measured and written in {time.perf_counter() - started:.0f} s")
    if args.emit:
        (ROOT / "BENCHMARKS.md").write_text(text)
        log(f"wrote {ROOT / 'BENCHMARKS.md'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
