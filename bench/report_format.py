"""How BENCHMARKS.md writes times and ratios (bench/vs_frameworks.py and bench/sections.py)."""


def fmt_ms(x):
    if x is None:
        return "—"
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    if x >= 1:
        return f"{x:.2f}"
    if x >= 0.01:
        return f"{x:.3f}"
    return f"{x:.5f}"


def fmt_ratio(x):
    if x is None:
        return "—"
    return f"{x:.2f}x" if x < 10 else f"{x:,.0f}x"
