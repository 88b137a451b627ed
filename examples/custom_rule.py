"""A derivative rule of your own, for a function whose automatic derivative misleads.

softplus(x) = log(1 + exp(x)) is everywhere in ML, and its derivative is the sigmoid.
Two ways of writing it differentiate badly:

- np.where(x > 30, x, np.log1p(np.exp(x))) has the right value; at x = 800 the
  branch not taken overflows, and its zero weight times an infinite derivative would
  be NaN (JAX, PyTorch and autograd give NaN). revsrc keeps the branch not taken's
  adjoint an exact 0, so its gradient is 1.0 there, but the overflow warns, and the
  value beyond x = 30 is x itself, not softplus;
- max(x, 0) + log1p(exp(-|x|)) is stable, and right at x = 0 only because of two
  conventions at kinks: np.maximum splits a tie between its operands (1/2) and |x|'s
  derivative at 0 is 0, which together give sigmoid(0) = 0.5 (JAX's |x|'(0) = 1 gives 0).

revsrc.defvjp attaches the rule by hand: the derivative is 1 - exp(-softplus(x)),
computed from the output `ans` with expm1, exact from -800 to 800. The rule is
differentiated in turn, so revsrc.hessian works through it. A second rule makes the
Euclidean norm's gradient 0 (a subgradient) at the origin, where the automatic one
is 0/0.

    python examples/custom_rule.py
"""
import numpy as np

import revsrc
from _gallery import check, check_gradient, done, figure


def softplus_where(x):
    return np.where(x > 30.0, x, np.log1p(np.exp(x)))


def softplus_max(x):
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


def softplus(x):
    return np.maximum(x, 0.0) + np.log1p(np.exp(-np.abs(x)))


@revsrc.defvjp(softplus, broadcast=True)
def softplus_vjp(g, ans, x):
    return -g * np.expm1(-ans)          # g * sigmoid(x), from the output


def norm(v):
    return np.sqrt(np.sum(v * v))


@revsrc.defvjp(norm)
def norm_vjp(g, ans, v):
    return g * v / np.maximum(ans, 1e-300)


def total(fn, x):
    return np.sum(fn(x))


def main():
    x = np.array([-800.0, -1.0, 0.0, 1.0, 40.0, 800.0])
    sigmoid = np.array([0.0, 1 / (1 + np.e), 0.5, 1 / (1 + np.exp(-1.0)), 1.0, 1.0])
    with np.errstate(over="ignore", invalid="ignore"):
        rows = {name: revsrc.grad(total, argnums=1)(fn, x)
                for name, fn in (("where", softplus_where), ("max + log1p", softplus_max),
                                 ("defvjp rule", softplus))}
    print("x            ", x)
    for name, g in rows.items():
        print(f"{name:13s}", g)
    print("sigmoid(x)   ", sigmoid)
    check(rows["where"][-1] == 1.0, "np.where: 1.0 at x = 800 (the branch not taken stays 0)")
    check(rows["max + log1p"][2] == 0.5, "max + log1p: 0.5 at x = 0 (the tie split)")
    check(np.allclose(rows["defvjp rule"], sigmoid, rtol=1e-15, atol=0), "the rule: sigmoid(x) everywhere")

    xs = np.linspace(-3.0, 3.0, 7)
    check_gradient(total, (softplus, xs), "the rule against central differences", argnums=1)
    hess = revsrc.hessian(total, argnums=1)(softplus, xs)
    s = 1 / (1 + np.exp(-xs))
    check(np.allclose(hess, np.diag(s * (1 - s)), rtol=1e-12, atol=1e-15),
          "hessian through the rule: diag(sigmoid')")

    def loss(v):
        return norm(v) + np.sum(v)

    print("grad of |v| + sum(v) at 0:", revsrc.grad(loss)(np.zeros(3)))
    check(np.array_equal(revsrc.grad(loss)(np.zeros(3)), np.ones(3)), "norm's rule: 0 at the origin")

    with figure("custom_rule") as (fig, ax):
        if fig is not None:
            grid = np.linspace(-4.0, 4.0, 401)
            ax.plot(grid, revsrc.grad(total, argnums=1)(softplus, grid), label="defvjp rule")
            ax.plot(grid, revsrc.grad(total, argnums=1)(softplus_max, grid), "--",
                    label="max + log1p")
            ax.plot([0.0], [revsrc.grad(total, argnums=1)(softplus_max, np.zeros(1))[0]], "ro")
            ax.plot(grid, softplus(grid) / 4, ":", label="softplus(x) / 4")
            ax.set_title("d softplus / dx")
            ax.legend(fontsize=8)
    done()


if __name__ == "__main__":
    main()
