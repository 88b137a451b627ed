"""The syntax-only passes of revsrc/frontend/desugar/, each shown as source before and
after (``ast.unparse``), and the order `desugar` runs them in."""
import ast
import textwrap

import pytest

import revsrc
from revsrc.frontend import desugar
from revsrc.frontend.desugar import lambdas


def _rewritten(rewrite, source):
    node = ast.parse(textwrap.dedent(source)).body[0]
    return ast.unparse(rewrite(node))


def _same(source):
    return ast.unparse(ast.parse(textwrap.dedent(source)))


LAMBDA_CASES = [
    ("a lambda bound to a name",
     """
     def f(x):
         act = lambda z: z * 2.0
         return act(x)
     """,
     """
     def f(x):
         def act(z):
             return z * 2.0
         return act(x)
     """),
    ("with an annotation",
     """
     def f(x):
         act: object = lambda z, /, k=2: z * k
         return act(x)
     """,
     """
     def f(x):
         def act(z, /, k=2):
             return z * k
         return act(x)
     """),
    ("in an if, bound once",
     """
     def f(x, flag):
         if flag:
             act = lambda z, /, k=2: z * k
         return act(x)
     """,
     """
     def f(x, flag):
         if flag:
             def act(z, /, k=2):
                 return z * k
         return act(x)
     """),
    ("in a nested function",
     """
     def f(x):
         def g(y):
             sq = lambda z: z * z
             return sq(y)
         return g(x)
     """,
     """
     def f(x):
         def g(y):
             def sq(z):
                 return z * z
             return sq(y)
         return g(x)
     """),
]

LEFT_AS_THEY_ARE = [
    ("in a loop (the lowering refuses a second binding)",
     """
     def f(x):
         for i in range(3):
             act = lambda z: z * i
         return x
     """),
    ("assigned twice",
     """
     def f(x):
         act = lambda z: z
         act = lambda z: z * 2.0
         return act(x)
     """),
    ("a parameter's name",
     """
     def f(x, act):
         act = lambda z: z
         return act(x)
     """),
    ("read before it is bound",
     """
     def f(x):
         y = act(x)
         act = lambda z: z
         return y
     """),
    ("bound in one branch and assigned in the other",
     """
     def f(x, flag):
         if flag:
             act = lambda z: z
         else:
             act = None
         return x
     """),
    ("two targets",
     """
     def f(x):
         a = b = lambda z: z
         return a(x)
     """),
]


@pytest.mark.parametrize("what, before, after", LAMBDA_CASES, ids=[c[0] for c in LAMBDA_CASES])
def test_bound_lambdas_become_defs(what, before, after):
    assert _rewritten(lambdas.bound_lambdas_to_defs, before) == _same(after)


@pytest.mark.parametrize("what, source", LEFT_AS_THEY_ARE, ids=[c[0] for c in LEFT_AS_THEY_ARE])
def test_lambdas_the_lowering_must_judge_are_left(what, source):
    assert _rewritten(lambdas.bound_lambdas_to_defs, source) == _same(source)


def test_the_passes_are_idempotent():
    """A parsed function is cached, and desugared each time it is lowered."""
    node = ast.parse(textwrap.dedent(LAMBDA_CASES[0][1])).body[0]
    once = ast.unparse(desugar.desugar(node))
    assert ast.unparse(desugar.desugar(node)) == once == _same(LAMBDA_CASES[0][2])


def test_the_order_of_the_passes():
    assert desugar.PASSES == (lambdas.bound_lambdas_to_defs,)


def test_a_desugared_lambda_keeps_its_line_and_its_derivative():
    def f(x):
        act = lambda z: z * z * 3.0  # noqa: E731
        return act(x) + act(2.0 * x)
    assert revsrc.grad(f)(1.5) == pytest.approx(6.0 * 1.5 + 24.0 * 1.5)


ACT = 5.0   # a global of the same name as a local function


def test_a_desugared_lambda_shadows_a_global_of_its_name():
    def f(x):
        ACT = lambda z: z * 2.0  # noqa: E731, N806
        return ACT(x) * x
    assert revsrc.grad(f)(1.5) == pytest.approx(6.0)
    df = revsrc.grad(f)
    df(1.5)
    assert "_dict['ACT']" not in revsrc.source(df)   # no load of the global
