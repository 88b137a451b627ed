"""Read the derivative: revsrc writes the adjoint as Python, and shows it.

revsrc.source(df) prints the program revsrc generated for a derivative, with the
forward sweep (your lines, broken into steps), then the reverse sweep, each block
headed by the line of your function it comes from. Here: a scalar function (whose
program also runs on the compiled engine: revsrc.disassemble shows its
instructions), a neural-network layer (plain NumPy calls in the adjoint), and a loop
(the values the reverse sweep needs are pushed on a stack and popped back).

    python examples/readable_derivatives.py
"""
import inspect
import math

import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


def sinc_radius(x, y):
    r = math.sqrt(x * x + y * y)
    return math.sin(r) / r


def layer(W, b, x):
    h = np.tanh(x @ W + b)
    return np.sum(h * h)


def logistic_map(r, x, steps):
    for _ in range(steps):
        x = r * x * (1.0 - x)
    return x


def show(title, text):
    print(f"--- {title}")
    print(text)
    return text


def main():
    d_sinc = revsrc.grad(sinc_radius, argnums=(0, 1))
    sinc_text = show("revsrc.source(revsrc.grad(sinc_radius, argnums=(0, 1)))", revsrc.source(d_sinc))
    show("revsrc.disassemble: the same derivative on the compiled engine", revsrc.disassemble(d_sinc))
    check_gradient(sinc_radius, (1.0, 2.0), "sinc_radius: gradient against central differences",
                   argnums=(0, 1))

    W, b, x = np.full((3, 2), 0.1), np.zeros(2), np.arange(12.0).reshape(4, 3) / 10
    d_layer = revsrc.grad(layer, argnums=(0, 1))
    show("revsrc.source(d_layer, W, b, x): arrays (the source depends on the kinds of the arguments)",
         revsrc.source(d_layer, W, b, x))
    check_gradient(layer, (W, b, x), "layer: gradient against central differences", argnums=(0, 1))

    d_map = revsrc.grad(logistic_map)
    map_text = show("revsrc.source(d_map, 2.5, 0.3, 4): a loop", revsrc.source(d_map, 2.5, 0.3, 4))
    check_gradient(logistic_map, (2.5, 0.3, 4), "logistic_map: gradient against central differences")
    for name, text in (("sinc", sinc_text), ("layer", revsrc.source(d_layer, W, b, x)),
                       ("logistic_map", map_text)):
        compile(text, name, "exec")
    check("adjoint of line" in sinc_text, "each adjoint block names its line")

    with figure("readable_derivatives", width=7.0, height=4.4) as (fig, ax):
        if fig is not None:
            ax.set_axis_off()
            for left, title, text in ((0.0, "your function", inspect.getsource(sinc_radius)),
                                      (0.42, "revsrc.source(revsrc.grad(...))", sinc_text)):
                ax.text(left, 1.0, title, fontsize=10, weight="bold", va="bottom")
                ax.text(left, 0.98, text, family="monospace", fontsize=7.5, va="top")
    done()


if __name__ == "__main__":
    main()
