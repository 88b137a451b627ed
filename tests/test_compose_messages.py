"""What the refusals of composed transformations say (issue 23): each names what is
not supported, with its code, at the user's line.

- revsrc.jit compiles scalar programs by design: an array descent loop feeding a
  derivative's outputs back in is E502, saying so;
- revsrc.jit of a function mapped by revsrc.vmap is that function (it runs compiled
  already); another transformation of it is E104, as a mapped function called inside
  a transformed function is, wherever the mapped function was made;
- recursion that no int decides is E103, saying which ints do.
"""
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors


def _loss(x, a):
    return np.sum((x - a) ** 2) + np.sum(np.sin(x))


_vg = revsrc.value_and_grad(_loss)


def descend(x, a):
    for _ in range(5):
        v, g = _vg(x, a)
        x = x - 0.1 * g
    return x


X = np.array([0.5, -0.2, 1.0])
A = np.array([1.0, 0.0, -1.0])


def test_jit_of_an_array_descent_loop_says_it_compiles_scalars_by_design():
    with pytest.raises(errors.NotCompilable) as info:
        revsrc.jit(descend)(X, A)
    exc = info.value
    assert exc.code == "E502"
    assert "by design" in str(exc) and "argument 0 (x) is a ndarray" in str(exc)
    assert exc.lineno == descend.__code__.co_firstlineno
    assert "call descend itself" in exc.hint
    assert "revsrc/" not in str(exc).split("\n")[0]
    # the loop itself runs, and its derivative too
    want = X.copy()
    for _ in range(5):
        want = want - 0.1 * (2 * (want - A) + np.cos(want))
    np.testing.assert_allclose(descend(X, A), want, rtol=1e-15)


def test_the_scalar_descent_loop_still_compiles():
    def loss(x, a):
        return (x - a) ** 2 + math.sin(x)
    vg = revsrc.value_and_grad(loss)

    def scalar_descend(x, a):
        for _ in range(5):
            v, g = vg(x, a)
            x = x - 0.1 * g
        return x
    assert revsrc.jit(scalar_descend)(0.5, 1.0) == scalar_descend(0.5, 1.0)


def f(x):
    return math.sin(x) * x


vf = revsrc.vmap(f)


def total_outside(xs):
    return np.sum(vf(xs))


def total_named_inside(xs):
    g = revsrc.vmap(f)
    return np.sum(g(xs))


def total_called_inside(xs):
    return np.sum(revsrc.vmap(f)(xs))


def test_jit_of_a_mapped_function_is_the_function():
    assert revsrc.jit(vf) is vf
    xs = np.array([0.1, 0.2, -1.3])
    np.testing.assert_array_equal(revsrc.jit(vf)(xs), [f(float(x)) for x in xs])
    with pytest.raises(revsrc.errors.NotCompilable, match="memory"):
        revsrc.jit(vf, memory="1MB")


@pytest.mark.parametrize("make", [revsrc.jacfwd, revsrc.jacrev])
def test_a_jacobian_of_a_mapped_function_is_its_elements_derivatives(make):
    """A transformation of a mapped function itself is that of a function calling it
    (E104 before): the Jacobian is diagonal, the elements' derivatives on it."""
    xs = np.array([0.1, 0.2])
    want = np.diag([math.cos(x) * x + math.sin(x) for x in xs])
    np.testing.assert_allclose(make(vf)(xs), want, rtol=1e-14)


def test_grad_and_hessian_of_a_mapped_function_are_refused_as_such():
    with pytest.raises(errors.RevsrcError) as info:        # a vector output
        revsrc.grad(vf)(np.array([0.1, 0.2]))
    assert info.value.code == "E302"
    with pytest.raises(errors.HigherOrderNotSupported) as info:   # second order through it
        revsrc.hessian(vf)(np.array([0.1, 0.2]))
    assert info.value.code == "E104"
    assert "mapped by revsrc.vmap" in str(info.value)


@pytest.mark.parametrize("g", [total_outside, total_named_inside, total_called_inside])
def test_a_mapped_function_called_inside_is_differentiated_wherever_it_was_made(g):
    # (E104 until issue 25's revsrc/mapped_calls.py): the elements' derivatives
    xs = np.array([0.1, 0.2])
    want = np.array([math.cos(x) * x + math.sin(x) for x in xs])
    np.testing.assert_allclose(revsrc.grad(g)(xs), want, rtol=1e-14)
    # a second derivative through the call is refused at its line
    with pytest.raises(errors.HigherOrderNotSupported) as info:
        revsrc.hessian(g)(xs)
    exc = info.value
    assert exc.code == "E104"
    assert exc.lineno == g.__code__.co_firstlineno + (2 if g is total_named_inside else 1)


def halve(x):
    if x < 1.0:
        return x
    return halve(x / 2.0)


def test_the_recursion_refusal_says_which_ints_decide():
    with pytest.raises(errors.RecursionNotSupported) as info:
        revsrc.grad(halve)(5.0)
    text = str(info.value)
    assert info.value.code == "E103"
    assert "int constants decide" not in text
    assert "int arguments of the function transformed" in text


def _leaves_loss(params):
    return sum(np.sum(leaf ** 2) for leaf in revsrc.tree_leaves(params))


def test_revsrc_tree_leaves_inside_a_transformed_function():
    # round 8: the refusal named revsrc.core.pytree.tree_leaves, an internal module; since
    # undoccalls the leaves of an argument taken apart are known when transforming
    params = {"a": np.array([1.0, -2.0]), "b": np.array([0.5, 3.0, 4.0])}
    got = revsrc.grad(_leaves_loss)(params)
    np.testing.assert_allclose(got["a"], 2 * params["a"], rtol=1e-15)
    np.testing.assert_allclose(got["b"], 2 * params["b"], rtol=1e-15)


def _dict_state(x):
    s = {"a": x, "b": 0.0}
    for _ in range(40):
        s = {"a": s["a"] * 0.9, "b": s["b"] + np.sum(s["a"])}
    return s["b"]


def test_jax_refusal_of_a_dict_rebuilt_in_a_scanned_loop_names_no_internals():
    # round 8: E603 said "no jax.numpy lowering for 'make_dict'" and hinted primitives.define
    pytest.importorskip("jax")
    with pytest.raises(revsrc.errors.JaxNotLowered) as err:
        revsrc.grad(_dict_state, backend="jax")(np.ones(3))
    text = str(err.value)
    assert err.value.code == "E603" and "a dict built again on every turn" in text
    assert "make_dict" not in text and "primitives" not in text
    assert 's = {"a": s["a"] * 0.9' in text
    # the default backend computes it: d/dx of sum over 40 turns of sum(x * 0.9**k)
    want = sum(0.9 ** k for k in range(40)) * np.ones(3)
    np.testing.assert_allclose(revsrc.grad(_dict_state)(np.ones(3)), want, rtol=1e-12)


def _dict_of_lists(x):
    s = {"pos": [0.0]}
    for _ in range(3):
        p = [s["pos"][k] + x for k in range(1)]
        s = {"pos": p}
    return s["pos"][0]


def _dict_of_list_copies(x):
    s = {"pos": [0.0]}
    for _ in range(3):
        p = [s["pos"][k] + x for k in range(1)]
        s = {"pos": list(p)}
    return s["pos"][0]


def test_list_made_each_turn_and_placed_in_a_dict_computes():
    # round 8: a false E404 whose message named a temporary ("p is also named _t6");
    # cont22: nothing changes the list after it is placed, so it computes: d/dx of 3x
    assert revsrc.grad(_dict_of_lists)(1.3) == 3.0
    assert revsrc.grad(_dict_of_list_copies)(1.3) == 3.0
