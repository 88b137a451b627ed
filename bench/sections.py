"""BENCHMARKS.md's sections on loops over small arrays and first calls (issue 24), on
batching (issue 25) and on long loops' memory (issue 26), and their lines in "Targets".

bench/vs_frameworks.py calls ``measure`` and ``checkpoint_memory`` and writes what
``tables`` and ``by_hand_summary`` return. The figures come from the pytest-benchmark
modules' own workloads, checks and interleaved timing: bench/sections_child.py runs
each section in a process of its own; the long loops' rows are
test_checkpoint_bench's fresh processes. Every row is checked for the same value as
the others of its workload before it is timed (a mismatch fails its section, which
then shows the error instead of figures).
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import test_checkpoint_bench as ckpt
from report_format import fmt_ms, fmt_ratio

HERE = Path(__file__).resolve().parent
SECTIONS = ("small_arrays", "first_calls", "batching", "lanes")


def _run_child(section, quick, log):
    """One section's figures from bench/sections_child.py, or {"error": why}."""
    env = dict(os.environ)
    if quick:
        env.setdefault("REVSRC_FIRST_CALL_RUNS", "3")
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "section.json")
        log(f"section {section} (own process) ...")
        proc = subprocess.run([sys.executable, str(HERE / "sections_child.py"), section, out],
                              text=True, stderr=subprocess.PIPE, env=env)
        if proc.returncode != 0 or not os.path.exists(out):
            tail = (proc.stderr.strip().splitlines() or ["no output"])[-1]
            return {"error": f"failed: {tail[:200]}"}
        with open(out) as fh:
            return json.load(fh)


def measure(quick, log):
    """{section: figures} for the four sections, each measured in a fresh process."""
    return {s: _run_child(s, quick, log) for s in SECTIONS}


def _ratio_row(goal, a, b, limit, what, how=", interleaved in one process"):
    """A "Targets" row (goal, measured, met) for the ratio a / b against ``limit``."""
    if a is None or b is None:
        return goal, "not measured", "—"
    r = a / b
    return (goal, f"{r:.2f}x ({fmt_ms(a)} ms vs {fmt_ms(b)} ms {what}{how})",
            "yes" if r <= limit else "**no**")


def _abs_row(goal, a, limit, how=""):
    if a is None:
        return goal, "not measured", "—"
    return goal, f"{fmt_ms(a)} ms{how}", "yes" if a <= limit else "**no**"


# ----- small arrays in loops (issue 24) -----

SMALL_TITLES = {
    "rk4": "RK4, 6-float state, 1,000 steps, `rhs(x) = tanh(A @ x) + b * x`, d/dA",
    "rnn": "tanh RNN, 16x32 hidden state, 40 steps (the rnn workload), d/dW",
    "kalman": "2-state Kalman filter, negative log-likelihood of 200 observations "
              "(`inv`, `det`, `solve` on 1x1 and 2x2), d/dQ",
}
SMALL_LABELS = {"revsrc": "revsrc (grad)",
                "revsrc_python": "revsrc, small-array tier off (REVSRC_SMALL_ARRAYS=0)",
                "numpy_by_hand": "hand-written NumPy gradient",
                "jax_jit": "jax.jit(jax.grad)"}
JAX_LOOPS = {"rk4": "lax.fori_loop", "kalman": "lax.fori_loop",
             "rnn": "the Python loop unrolled by jit, as in the rnn table"}
SMALL_TARGETS = {"rk4": 1.0, "rnn": 1.0, "kalman": 1.0}
RK4_FIRST_TARGET_MS = 30.0


def small_arrays_table(res):
    lines = ["## Small arrays in loops (issue 24)", "",
             "Loops whose arrays are a few floats, where plain NumPy's time is its per-call "
             "dispatch (bench/test_small_arrays_bench.py):", ""]
    lines += [f"- **{w}**: {title}" for w, title in SMALL_TITLES.items()]
    lines += ["", "Every row is checked against jax.jit's gradient (rtol 1e-9) first, and the "
              "tier-off row bit for bit against revsrc's for rk4 and rnn; the rows of a workload "
              "are timed interleaved in one process (best of 15 rounds). The target is revsrc "
              "<= 1.0x jax.jit(jax.grad).", ""]
    if "error" in res:
        return "\n".join(lines + [f"Not measured: {res['error']}"])
    lines += ["| workload | row | compile+first (ms) | steady best (ms) | ratio to jax.jit | notes |",
              "|---|---|---:|---:|---:|---|"]
    for workload, fig in res.items():
        base = fig["best_ms"]["jax_jit"]
        for row, best in fig["best_ms"].items():
            note = {"jax_jit": JAX_LOOPS[workload],
                    "numpy_by_hand": "bench/by_hand.py: one GEMM over all steps",
                    "revsrc": f"target <= {SMALL_TARGETS[workload]:.1f}x jax.jit"}.get(row, "")
            lines.append(f"| {workload} | {SMALL_LABELS[row]} | "
                         f"{fmt_ms(fig['first_ms'].get(row))} | {fmt_ms(best)} | "
                         f"{fmt_ratio(best / base)} | {note} |")
    return "\n".join(lines)


def small_arrays_targets(res):
    rows = []
    for workload, limit in SMALL_TARGETS.items():
        fig = res.get(workload, {"best_ms": {}})
        rows.append(_ratio_row(f"small arrays, {workload}: revsrc steady <= {limit:.1f}x jax.jit "
                               "(issue 24)", fig["best_ms"].get("revsrc"),
                               fig["best_ms"].get("jax_jit"), limit, "jax.jit"))
    rk4 = res.get("rk4", {"first_ms": {}})["first_ms"].get("revsrc")
    rows.append(_abs_row(f"small arrays, rk4: revsrc compile+first <= {RK4_FIRST_TARGET_MS:.0f} ms",
                         rk4, RK4_FIRST_TARGET_MS))
    return rows


# ----- first calls in fresh processes (issue 24) -----

# (case, what is timed, target in ms or None)
FIRST_CALLS = (
    ("import", "`import revsrc`, after `import numpy`", 15.0),
    ("recurrence", "first `revsrc.grad` of the 1,000-step scalar recurrence, built and called", 6.0),
    ("rk4", "first `revsrc.grad` of a 400-step scalar RK4, built and called", 6.0),
    ("mlp", "first `revsrc.grad` of the MLP loss, built and called", None),
)


def first_calls_table(res):
    lines = ["## First calls in fresh processes (issue 24)", "",
             "What a script that differentiates one function once pays "
             "(bench/test_first_call_bench.py): each figure from its own new interpreter, "
             "after `import numpy` and `import revsrc` (bytecode caches written by an untimed "
             "run first); wall time and the process's CPU time. Targets are decided on the "
             "median wall time.", ""]
    if "error" in res:
        return "\n".join(lines + [f"Not measured: {res['error']}"])
    runs = res.get("runs")
    lines += [f"| first call ({runs} fresh processes each) | wall min (ms) | wall median (ms) | "
              "CPU median (ms) | target |", "|---|---:|---:|---:|---|"]
    for case, what, limit in FIRST_CALLS:
        lines.append(f"| {what} | {fmt_ms(res.get(case + '_ms'))} | "
                     f"{fmt_ms(res.get(case + '_ms_median'))} | "
                     f"{fmt_ms(res.get(case + '_cpu_ms_median'))} | "
                     f"{'<= %g ms' % limit if limit else '—'} |")
    lines.append(f"| revsrc's cumulative import time in `python -X importtime` | "
                 f"{fmt_ms(res.get('importtime_ms'))} | {fmt_ms(res.get('importtime_ms_median'))} "
                 f"| — | — |")
    return "\n".join(lines)


def first_calls_targets(res):
    rows = []
    for case, what, limit in FIRST_CALLS:
        if limit is not None:
            rows.append(_abs_row(f"first calls: {what} <= {limit:g} ms (median of fresh processes)",
                                 res.get(case + "_ms_median"), limit,
                                 f" (min {fmt_ms(res.get(case + '_ms'))} ms)"
                                 if case + "_ms" in res else ""))
    return rows


# ----- batching (issue 25) -----

BATCH_NOTES = {
    "per_example_grads": "MLP loss (32 in, 128 hidden, 8 out), per-example gradients over 256",
    "hessian_bias": "full Hessian of an MLP loss wrt its 128-vector bias (64x32 inputs)",
    "hvp_bias": "one Hessian-vector product of that loss",
    "jacfwd64": "jacfwd of an array function with 64 outputs (48 inputs)",
    "jacrev64": "jacrev of the same function",
}
LANE_NOTES = {
    "revsrc.vmap(newton) 1 thread": "Newton, 100,000 starts x 6 steps, math.*, exact libm digits",
    "batched C 1 thread": "lanes in the inner loop (newton_batched.c's loop), gcc -O2 "
                          "-ffp-contract=off, ctypes",
    "revsrc.vmap(newton_np) 2 threads": "g spelled with np.exp, np.cos",
    "numpy eager": "NumPy's vectorised Newton, g' by hand",
    "revsrc.jit(newton_all)": "the whole program compiled, one core",
    "fused one-lane C": "newton_libm.c fused (shared exp, sincos), one lane at a time",
}
FIRST_LIMIT_MS = 100.0


def batching_table(batch, lanes):
    lines = ["## Batching (issue 25)", "",
             "bench/test_batching_bench.py and bench/test_lanes_bench.py: each row's value is "
             "checked first (against the first row of its workload to 1e-9; the revsrc lanes "
             "bit for bit against calling the Python `newton` per start, the other lanes' roots "
             "to 1e-9, revsrc.jit's mean equal to the plain Python program's), "
             "then all rows of a file are timed in interleaved rounds in one process (best of "
             "5 rounds). Compile+first: built and called once (the lanes' native tier compiled "
             "synchronously, REVSRC_NATIVE=sync, with the native cache as it is).", "",
             "| workload | row | compile+first (ms) | steady best (ms) | notes |",
             "|---|---|---:|---:|---|"]
    for res, notes in ((batch, BATCH_NOTES), (lanes, LANE_NOTES)):
        if "error" in res:
            lines.append(f"| — | not measured | — | — | {res['error']} |")
            continue
        for row, best in res["best_ms"].items():
            group = row.split("/")[0] if "/" in row else "newton lanes"
            name = row.split("/", 1)[1] if "/" in row else row
            note = notes.get(group, "") if "/" in row else notes.get(row, "")
            lines.append(f"| {group} | {name} | {fmt_ms(res['first_ms'].get(row))} | "
                         f"{fmt_ms(best)} | {note} |")
    lines += ["", "| ratio | measured | target |", "|---|---:|---:|"]
    for label, a, b, limit, r in _batching_ratios(batch, lanes):
        lines.append(f"| {label} | {fmt_ratio(r)} | <= {limit:g}x |")
    return "\n".join(lines)


def _batching_ratios(batch, lanes):
    """[(label, row, against, limit, ratio or None)] of both files' targets."""
    out = []
    for res in (batch, lanes):
        for label, a, b, limit in res.get("targets", []):
            best = res["best_ms"]
            r = best[a] / best[b] if a in best and b in best else None
            out.append((label, a, b, limit, r))
    return out


def batching_targets(batch, lanes):
    rows = []
    for label, a, b, limit, _ in _batching_ratios(batch, lanes):
        res = batch if a in batch.get("best_ms", {}) else lanes
        rows.append(_ratio_row(f"batching, {label} <= {limit:g}x (issue 25)",
                               res["best_ms"].get(a), res["best_ms"].get(b), limit,
                               b.split("/")[-1]))
    firsts = [(ms, row) for res in (batch, lanes) for row, ms in res.get("first_ms", {}).items()
              if row.split("/")[-1].startswith("revsrc")]
    if firsts:
        ms, row = max(firsts)
        rows.append((f"batching: compile+first of every revsrc row < {FIRST_LIMIT_MS:g} ms",
                     f"slowest {fmt_ms(ms)} ms ({row})", "yes" if ms < FIRST_LIMIT_MS else "**no**"))
    return rows


# ----- the hand-written NumPy gradients (issue 24), in the workloads' own tables -----

BY_HAND_WHY = {    # in the order of the tables
    "mlp": "nothing structural: both run the same NumPy and BLAS calls, with the same bits",
    "conv": "its memory pool hands the large temporaries (3 MB of im2col columns, the "
            "products) back on the next call, where the NumPy version takes fresh memory from "
            "the system at each call and pays its page faults (the \"no memory pool\" row is "
            "the same adjoint without it)",
    "rnn": "at each of the 40 steps, forward and adjoint, its small-array operations run "
           "through revsrc's kernels (NumPy's own loops and BLAS calls without NumPy's per-call "
           "dispatch), whether or not the small-array tier runs the loop",
    "logreg": "its adjoint of logaddexp is one fused pass over the 20,000 entries",
}
ISSUE24_KEEP = 0.8     # MLP, logreg, conv: no slower than before the tier (0.5-0.8x jax.jit)


def _best_of(results, workload, framework):
    for c in results.get(workload, []):
        if c.framework == framework and c.status == "ok" and c.best_ms is not None:
            return c.best_ms
    return None


def by_hand_summary(results):
    """A paragraph on revsrc against the hand-written NumPy gradients, from the tables."""
    ratios = {w: _best_of(results, w, "revsrc") / _best_of(results, w, "numpy_by_hand")
              for w in BY_HAND_WHY if _best_of(results, w, "revsrc")
              and _best_of(results, w, "numpy_by_hand")}
    if not ratios:
        return ""
    lines = ["### Hand-written NumPy gradients", "",
             "The \"hand-written NumPy gradient\" rows (bench/by_hand.py, each checked against "
             "revsrc's gradient to 1e-10 first) are the limit of a NumPy back end. revsrc's steady "
             "best against them: " + ", ".join(f"{w} {r:.2f}x" for w, r in ratios.items()) +
             " (below 1: revsrc is faster)."]
    ahead = [w for w, r in ratios.items() if r < 0.9]
    behind = [w for w, r in ratios.items() if r >= 0.9]
    for w in ahead:
        lines.append(f"- revsrc beats it on {w}: {BY_HAND_WHY[w]}.")
    if behind:
        lines.append(f"- On {', '.join(behind)} the hand-written gradient is as fast or faster: "
                     "it makes the same NumPy and BLAS calls as revsrc's adjoint, or fewer, "
                     "without revsrc's bookkeeping around each call.")
    return "\n".join(lines)


def framework_targets(results):
    """Issue 24's line for the array workloads that the tier must not slow down."""
    return [_ratio_row(f"{w}: revsrc steady <= {ISSUE24_KEEP}x jax.jit, no slower than before "
                       "the small-array tier (issue 24)", _best_of(results, w, "revsrc"),
                       _best_of(results, w, "jax.jit"), ISSUE24_KEEP, "jax.jit", how="")
            for w in ("mlp", "logreg", "conv")]


# ----- long loops' peak memory (issue 26), rows of the "Peak memory" table -----

CHECKPOINT_TIME_LIMIT = 2.5     # checkpointed time over stored, the issue's target
CHECKPOINT_LABELS = {"recurrence": "test_checkpoint_bench's scalar recurrence",
                     "growth": "test_checkpoint_bench's while loop (~n steps)",
                     "rk4": "test_checkpoint_bench's RK4, 6-float NumPy state"}


def _checkpoint_pair(fn, backend, n, memory, limit_mb, tmp):
    """Memory rows and targets of one long loop, stored and bounded (same bits asserted)."""
    stored = ckpt._run(fn, backend, "none", n, tmp)
    bounded = ckpt._run(fn, backend, memory, n, tmp)
    if bounded["grad"] != stored["grad"]:
        raise AssertionError(f"{fn}, {n} steps: memory={memory!r} changed the gradient's bits")
    label = f"{CHECKPOINT_LABELS[fn]}, n = {n:,} ({backend})"
    note = "fresh process; ru_maxrss growth over the long call (issue 26)"
    rows = [(label, "revsrc, everything stored (memory=inf)", None, stored["growth_mb"],
             stored["seconds"] * 1e3, note),
            (label, f"revsrc, memory={memory!r} (checkpointed)", None, bounded["growth_mb"],
             bounded["seconds"] * 1e3, note + "; the same bits as stored")]
    ratio = bounded["seconds"] / stored["seconds"]
    targets = [(f"long loops, {label}, memory={memory!r}: peak growth <= {limit_mb} MB",
                f"{bounded['growth_mb']:.1f} MB (stored: {stored['growth_mb']:.1f} MB)",
                "yes" if bounded["growth_mb"] <= limit_mb else "**no**"),
               (f"long loops, {label}, memory={memory!r}: time <= {CHECKPOINT_TIME_LIMIT}x stored",
                f"{ratio:.2f}x ({fmt_ms(bounded['seconds'] * 1e3)} ms vs "
                f"{fmt_ms(stored['seconds'] * 1e3)} ms)",
                "yes" if ratio <= CHECKPOINT_TIME_LIMIT else "**no**")]
    return rows, targets


def checkpoint_memory(log):
    """(memory-table rows, target rows) of test_checkpoint_bench's targets: its first three
    bounded loops against the stored ones, and 10^8 steps with the default bound."""
    rows, targets = [], []
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        for fn, backend, n, memory, limit_mb in ckpt.BOUNDED[:3]:
            log(f"  memory: {fn}, {backend}, {n:,} steps, stored and memory={memory!r} ...")
            try:
                r, t = _checkpoint_pair(fn, backend, n, memory, limit_mb, tmp)
            except (subprocess.CalledProcessError, AssertionError) as exc:
                r = [(f"{CHECKPOINT_LABELS[fn]}, n = {n:,}", "revsrc", None, None, None,
                      f"failed: {str(exc)[:160]}")]
                t = [(f"long loops, {fn}, n = {n:,}, memory={memory!r}", "failed", "**no**")]
            rows += r
            targets += t
        log("  memory: recurrence, engine, 10^8 steps, default bound ...")
        try:
            big = ckpt._run("recurrence", "engine", "default", 10 ** 8, tmp)
        except subprocess.CalledProcessError as exc:
            big = {"growth_mb": None, "seconds": None, "error": str(exc)[:160]}
    limit = ckpt.HUNDRED_MILLION_LIMIT_MB
    goal = f"long loops: 10^8-step recurrence with default settings, peak growth < {limit} MB"
    if big["growth_mb"] is None:
        rows.append((f"{CHECKPOINT_LABELS['recurrence']}, n = 100,000,000 (engine)",
                     "revsrc, default settings", None, None, None, "failed: " + big["error"]))
        return rows, targets + [(goal, "failed", "**no**")]
    rows.append((f"{CHECKPOINT_LABELS['recurrence']}, n = 100,000,000 (engine)",
                 "revsrc, default settings", None, big["growth_mb"], big["seconds"] * 1e3, "fresh process; ru_maxrss growth"))
    targets.append((goal, f"{big['growth_mb']:.1f} MB",
                    "yes" if big["growth_mb"] < limit else "**no**"))
    return rows, targets


def tables(sections):
    """The three sections' markdown and their target rows, from ``measure``'s figures."""
    small, first = sections["small_arrays"], sections["first_calls"]
    batch, lanes = sections["batching"], sections["lanes"]
    text = [small_arrays_table(small), "", first_calls_table(first), "",
            batching_table(batch, lanes), ""]
    targets = small_arrays_targets(small) + first_calls_targets(first) + \
        batching_targets(batch, lanes)
    for name, res in (("batching", batch), ("lanes", lanes)):
        if "error" in res:
            targets.append((f"{name} (issue 25)", f"not measured: {res['error']}", "—"))
    return "\n".join(text), targets
