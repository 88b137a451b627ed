"""Never a wrong number: each case here once returned a wrong value silently (or
crashed). Each now gives the true derivative, checked against central differences,
or a coded refusal."""
import enum
import inspect
import math

import numpy as np
import pytest

import revsrc
from revsrc import errors
from revsrc.testing import check_grads


def _fd(f, args, i, eps=1e-6):
    """Central differences of ``f`` in argument ``i`` (a float or a float array)."""
    args = list(args)
    x = args[i]
    if not isinstance(x, np.ndarray):
        hi = f(*args[:i], x + eps, *args[i + 1:])
        lo = f(*args[:i], x - eps, *args[i + 1:])
        return (hi - lo) / (2 * eps)
    out = np.zeros(x.shape)
    for j in np.ndindex(x.shape):
        p, m = x.copy(), x.copy()
        p[j] += eps
        m[j] -= eps
        out[j] = (f(*args[:i], p, *args[i + 1:]) - f(*args[:i], m, *args[i + 1:])) / (2 * eps)
    return out


# ----- writes through views and aliases -----

def view_add(w):
    a = np.zeros(2)
    left = a[:1]
    left += w
    return a[0] * 3.0 + np.sum(a)


def rows_loop(h):
    H = np.outer(h, np.ones(2))
    for row in H:
        row *= 2.0
    return H.sum()


def alias_name(w):
    a = np.zeros(3)
    b = a
    b[0] = 3 * w[0]
    return a[0] + a[1]


def chained(w):
    a = b = np.zeros(3)
    b[1] = w[1] * w[0]
    return np.sum(a * a)


def slice_assign(w):
    a = np.ones((2, 3))
    row = a[1]
    row[:] = w
    return np.sum(a ** 2)


def ravel_write(w):
    a = np.ones((2, 2))
    flat = a.ravel()
    flat[3] = w[0] * w[1]
    return np.sum(a * np.arange(1.0, 5.0).reshape(2, 2))


def view_taken_before_write(w):
    a = np.ones(3)
    v = a[1:]
    a[2] = w[0] ** 2
    return np.sum(v * w[1:])


@pytest.mark.parametrize("fn", [view_add, rows_loop, alias_name, chained, slice_assign,
                                ravel_write, view_taken_before_write])
def test_writes_through_views_and_aliases(fn):
    w = np.array([0.7, -1.3, 0.4])[: 1 if fn is view_add else 3]
    if fn is rows_loop:
        w = np.array([1.0, 2.0])
    check_grads(fn, (w,))
    value, _ = revsrc.value_and_grad(fn)(w)
    assert value == pytest.approx(fn(w))


def view_of_argument(x):
    y = x[:]
    y[0] = 0.0
    return np.sum(y)


def test_a_write_through_a_view_of_an_argument_is_refused():
    x = np.array([1.0, 2.0])
    with pytest.raises(errors.MutatesArgument) as info:
        revsrc.grad(view_of_argument)(x)
    assert info.value.code == "E403"
    assert np.array_equal(x, [1.0, 2.0])   # nothing lost: the caller's array is as it was


# ----- repeated indices: NumPy keeps the last write -----

def repeated_add(v):
    out = np.zeros(3)
    out[np.array([0, 0])] += v
    return np.sum(out * np.arange(1.0, 4.0))


def repeated_set(v):
    out = np.zeros(3)
    out[np.array([1, 1, 2])] = v
    return np.sum(out * np.arange(1.0, 4.0))


def repeated_rows(v):
    out = np.zeros((3, 2))
    out[[2, 0, 2]] = v * v
    return np.sum(out * np.arange(6.0).reshape(3, 2))


@pytest.mark.parametrize("fn,shape", [(repeated_add, (2,)), (repeated_set, (3,)),
                                      (repeated_rows, (3, 2))])
def test_repeated_indices_keep_the_last_write(fn, shape):
    v = np.random.default_rng(3).standard_normal(shape)
    g = revsrc.grad(fn)(v)
    assert np.allclose(g, _fd(fn, (v,), 0), atol=1e-7)
    # the earlier writes to a repeated place carry nothing
    if fn is repeated_set:
        assert g[0] == 0.0
    if fn is repeated_add:
        assert g[0] == 0.0 and g[1] == 1.0


def test_repeated_indices_in_forward_mode():
    v = np.array([0.5, -2.0, 1.5])
    t = np.array([1.0, 2.0, 3.0])
    _, tangent = revsrc.jvp(repeated_set, (v,), (t,))
    assert tangent == pytest.approx(np.dot(_fd(repeated_set, (v,), 0), t))


def hessian_of_repeated(v):
    out = np.zeros(3)
    out[np.array([1, 1, 2])] = v * v
    return np.sum(out * out)


def test_repeated_indices_second_derivative():
    v = np.array([0.5, -2.0, 1.5])
    h = revsrc.hessian(hessian_of_repeated)(v)
    g = revsrc.grad(hessian_of_repeated)
    cols = [_fd(lambda x: g(x)[k], (v,), 0) for k in range(3)]
    assert np.allclose(h, np.array(cols), atol=1e-6)


# ----- NaN and zero: the derivative follows what the primal selected -----

def max_nan(x):
    return max(x, float("nan")) * 2.0


def min_nan(x):
    return min(x, float("nan")) * 2.0


@pytest.mark.parametrize("backend", [None, "python"])
def test_max_and_min_with_nan_follow_the_operand_returned(backend):
    assert revsrc.grad(max_nan, backend=backend)(1.5) == 2.0
    assert revsrc.grad(min_nan, backend=backend)(1.5) == 2.0


def pow_xy(x, y):
    return x ** y


def np_pow_zero_exponent(x):
    return np.sum(np.power(x, 0.0))


def np_pow_zero_base(y):
    return np.sum(np.power(0.0, y))


@pytest.mark.parametrize("backend", [None, "python"])
def test_power_at_zero_matches_jax(backend):
    # d/dy x**y at x = 0 is 0 (0**y is 0 for every y > 0), as JAX and PyTorch give
    assert revsrc.grad(pow_xy, argnums=(0, 1), backend=backend)(0.0, 2.0) == (0.0, 0.0)
    assert revsrc.grad(pow_xy, argnums=1, backend=backend)(0.0, 0.5) == 0.0


def test_numpy_power_at_zero():
    with np.errstate(divide="ignore", invalid="ignore"):
        g = revsrc.grad(np_pow_zero_exponent)(np.array([0.0, 2.0]))
        assert np.array_equal(g, [0.0, 0.0])
        g = revsrc.grad(np_pow_zero_base)(np.array([1.0, 2.0]))
        assert np.array_equal(g, [0.0, 0.0])


def sqrt_math(x):
    return math.sqrt(x)


def sqrt_pow(x):
    return x ** 0.5


@pytest.mark.parametrize("fn", [sqrt_math, sqrt_pow])
@pytest.mark.parametrize("backend", [None, "python", "engine"])
def test_infinite_derivative_is_inf_not_an_exception(fn, backend):
    # JAX gives inf too; Python's own float operators would raise ZeroDivisionError
    assert revsrc.grad(fn, backend=backend)(0.0) == math.inf
    assert revsrc.grad(fn, backend=backend)(4.0) == pytest.approx(0.25)


def log_pow(x, y):
    return math.log(x) + x ** y


def test_ieee_derivative_code_keeps_the_digits_of_the_python_path():
    rng = np.random.default_rng(5)
    for x, y in rng.uniform(0.1, 3.0, size=(50, 2)):
        a = revsrc.grad(log_pow, argnums=(0, 1), backend="engine")(float(x), float(y))
        b = revsrc.grad(log_pow, argnums=(0, 1), backend="python")(float(x), float(y))
        assert a == b


# ----- NumPy's other spellings -----

def r_index(x):
    return np.sum(np.r_[x, 2.0 * x, 0:2] ** 2)


def c_index(x):
    return np.sum(np.c_[x, x * x] ** 2)


def einsum_sublist(x):
    return np.sum(np.einsum(x, (0, 1), (1, 0)) * np.arange(6.0).reshape(3, 2))


def std_one(x):
    return np.std(x[:1]) + np.std(x[:, None], axis=1).sum()


@pytest.mark.parametrize("fn", [r_index, c_index, einsum_sublist])
def test_index_and_sublist_spellings(fn):
    x = np.random.default_rng(1).standard_normal(6 if fn is not einsum_sublist else (2, 3))
    check_grads(fn, (x,))


def test_std_without_spread_is_zero_not_nan():
    g = revsrc.grad(std_one)(np.array([1.0, 2.0, 4.0]))
    assert np.array_equal(g, np.zeros(3))


def r_with_directive(x):
    return np.sum(np.r_["0", x, x])


def test_np_r_with_a_directive_string_is_refused():
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(r_with_directive)(np.ones(2))
    assert info.value.code == "E202"


# ----- values the generated code must not paste in by repr -----

class Mode(enum.IntEnum):
    SCALE = 3


class Tricky(float):
    def __repr__(self):
        return "__import__('os').system('echo pwned')"


TRICKY = Tricky(2.0)


def scaled(x, mode=Mode.SCALE):
    return x * mode * TRICKY


def test_user_values_are_referred_to_by_name_never_by_repr():
    df = revsrc.grad(scaled, backend="python")
    assert df(1.5) == 6.0
    src = revsrc.source(df, 1.5)
    assert "__import__" not in src and "system" not in src


# ----- has_aux and the output -----

def aux_float(x):
    return x * 2.0


def test_has_aux_without_a_pair_is_a_coded_error():
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.value_and_grad(aux_float, has_aux=True)(1.0)
    assert info.value.code == "E302"


# ----- ndarray subclasses -----

def total(x):
    return np.sum(x * x)


def test_ndarray_subclasses_are_refused():
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(total)(np.matrix([[1.0, 2.0]]))
    assert info.value.code == "E305"
    with pytest.raises(errors.RevsrcError) as info:
        revsrc.grad(total)(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))
    assert info.value.code == "E305"


# ----- stale helpers, stale source, bounded caches -----

def _module(tmp_path, name, text):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(text)
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


@pytest.mark.parametrize("backend", [None, "python"])
def test_a_redefined_helper_makes_the_derivative_anew(tmp_path, backend):
    mod, _ = _module(tmp_path, f"stale_helper_{backend}", (
        "def helper(x):\n    return 2.0 * x\n\n"
        "def f(x):\n    return helper(x) * x\n"))
    df = revsrc.grad(mod.f, backend=backend)
    assert df(3.0) == 12.0
    mod.helper = lambda x: x * x * x          # f is now x**4
    assert df(3.0) == pytest.approx(108.0)
    assert mod.f(3.0) == 81.0


def test_a_rebound_module_function_makes_the_derivative_anew(tmp_path):
    helpers, _ = _module(tmp_path, "stale_attr_helpers", "def h(x):\n    return 2.0 * x\n")
    import sys
    sys.modules["stale_attr_helpers"] = helpers
    try:
        mod, _ = _module(tmp_path, "stale_attr_user", (
            "import stale_attr_helpers\n\n"
            "def f(x):\n    return stale_attr_helpers.h(x)\n"))
        df = revsrc.grad(mod.f)
        assert df(2.0) == 2.0
        helpers.h = lambda x: x * x
        assert df(2.0) == 4.0
        vf = revsrc.jit(mod.f)
        assert vf(3.0) == 9.0
        helpers.h = lambda x: x + 1.0
        assert vf(3.0) == 4.0
    finally:
        del sys.modules["stale_attr_helpers"]


def test_a_source_file_changed_after_definition_is_refused(tmp_path):
    mod, path = _module(tmp_path, "stale_source", "def f(x, y):\n    return x * y\n")
    path.write_text("def f(x, y):\n    return x * x + y * y\n")
    with pytest.raises(errors.StaleSource) as info:
        revsrc.value_and_grad(mod.f, argnums=(0, 1))
    assert info.value.code == "E204"


def test_unchanged_sources_are_not_refused(tmp_path):
    # closures, nested classes, recursion by name, lambdas, module attributes
    mod, _ = _module(tmp_path, "fresh_source", (
        "import math\n\n"
        "def outer(a):\n"
        "    z = 3.0\n"
        "    def inner(b):\n"
        "        return a * b * z + math.cos(b)\n"
        "    return inner\n\n"
        "sq = lambda x: x ** 3\n"))
    assert revsrc.grad(mod.outer(2.0))(1.0) == pytest.approx(6.0 - math.sin(1.0))
    assert revsrc.grad(mod.sq)(2.0) == 12.0


def test_caches_release_their_entries_with_their_functions(tmp_path):
    import gc
    import linecache
    from revsrc.frontend import parse
    text = "\n".join(f"f{i} = lambda x: x * {i}.0 + x * x" for i in range(50)) + "\n"
    mod, _ = _module(tmp_path, "many_lambdas", text)
    before = len(linecache.cache)
    codes = []
    for i in range(50):
        f = getattr(mod, f"f{i}")
        codes.append(f.__code__)
        assert revsrc.grad(f, backend="python")(1.0) == i + 2.0
    assert all(c in parse._cache for c in codes)
    del codes, f
    for i in range(50):
        delattr(mod, f"f{i}")
    gc.collect()
    from revsrc.backends import python as python_backend
    python_backend.forget_gone()     # what the next compile does first
    assert len(linecache.cache) <= before + 1
    assert not any(getattr(c, "co_filename", "").endswith("many_lambdas.py")
                   for c in list(parse._cache.keys()))
    assert len(parse._files) <= parse._FILES_KEPT


# ----- a global that changes kind, pickling, saves -----

GLOBAL_SCALE = 2.0


def scaled_by_global(x):
    return x * GLOBAL_SCALE


@pytest.mark.parametrize("backend", [None, "python"])
def test_a_global_that_becomes_an_array_is_a_coded_error(backend):
    global GLOBAL_SCALE
    df = revsrc.grad(scaled_by_global, backend=backend)
    try:
        assert df(1.0) == 2.0
        GLOBAL_SCALE = np.ones(3)
        with pytest.raises(errors.RevsrcError) as info:
            df(1.0)
        assert info.value.code == "E302"
        GLOBAL_SCALE = 3.0
        assert df(1.0) == 3.0
    finally:
        GLOBAL_SCALE = 2.0


def loop_without_gradient(x, n):
    s = 0.0
    for i in range(n):
        s = s + i * 0.5
    return x * s


def test_a_loop_that_touches_no_differentiated_value_saves_nothing():
    df = revsrc.grad(loop_without_gradient, backend="python")
    assert df(1.0, 4) == 3.0
    src = revsrc.source(df, 1.0, 4)
    assert ".push(" not in src and ".append(" not in src
    check_grads(loop_without_gradient, (1.3, 5))


@pytest.mark.parametrize("backend", [None, "python"])
def test_a_derivative_pickles_after_it_was_called(backend):
    import pickle
    df = revsrc.value_and_grad(pow_xy, argnums=(0, 1), backend=backend)
    before = df(1.5, 2.0)
    copy = pickle.loads(pickle.dumps(df))
    assert copy(1.5, 2.0) == before


# ----- refusals raised while the derivative runs name the user's line -----

def nan_to_num_in_place(x):
    y = np.sin(x)
    z = np.nan_to_num(y, copy=False)
    return np.sum(z * z)


def test_a_refusal_at_run_time_names_the_users_line():
    line = nan_to_num_in_place.__code__.co_firstlineno + 2
    for run in (lambda: revsrc.grad(nan_to_num_in_place)(np.arange(3.0)),
                lambda: revsrc.jvp(nan_to_num_in_place, (np.arange(3.0),), (np.ones(3),))):
        with pytest.raises(errors.RevsrcError) as info:
            run()
        assert info.value.code == "E202"
        assert info.value.lineno == line
        assert info.value.filename == __file__
        assert "np.nan_to_num(y, copy=False)" in info.value.line


# ----- found by autograd's converted suite -----

def matmul_vector(x, y):
    return np.sum(np.matmul(x, y) * 2.0)


def column_stack_of_a_vector(x):
    return np.sum(np.column_stack(x) * np.arange(1.0, 4.0))


def real_times_complex(x, z):
    return np.real(x * z) + np.abs(z)


def test_grad_without_the_value_of_a_vector_matrix_product():
    x, y = np.arange(3.0), np.arange(12.0).reshape(3, 4) / 7
    check_grads(matmul_vector, (x, y), argnums=(0, 1))


def test_column_stack_of_the_numbers_of_one_vector():
    check_grads(column_stack_of_a_vector, (np.array([0.5, -1.0, 2.0]),))


def test_a_real_argument_beside_a_complex_one_gets_a_real_gradient():
    gx, gz = revsrc.grad(real_times_complex, argnums=(0, 1))(1.5, 0.3 + 0.4j)
    assert type(gx) is float and gx == pytest.approx(0.3)
    assert type(gz) is complex


# ----- found by the corpus of real programs -----

def _rnn_one_hot(W, idx):
    h = np.zeros(W.shape[1])
    outs = []
    for t in range(len(idx)):
        x = np.zeros(W.shape[0])
        x[idx[t]] = 1.0          # an item of an integer array, saved for the adjoint
        k = idx[t] + 1
        h = np.tanh(x @ W + h * k)
        outs.append(h)
    return np.sum(np.stack(outs) ** 2)


def test_items_of_integer_arrays_are_saved_as_they_are():
    # (they were saved on the float stack, and came back as floats: x[1.0] crashed)
    W = np.random.default_rng(3).normal(size=(4, 3))
    idx = np.array([1, 3, 0, 3])
    check_grads(_rnn_one_hot, (W, idx))


def _sqrt_of_median(x):
    return np.sqrt(np.median(x) - 2.0)


def test_an_infinite_adjoint_of_a_median_reaches_the_middle_element_only():
    # (0 * inf made every other element's derivative nan; their derivative is 0)
    with np.errstate(divide="ignore"):
        g = revsrc.grad(_sqrt_of_median)(np.array([1.0, 2.0, 5.0]))
    assert g[0] == 0.0 and g[2] == 0.0 and g[1] == np.inf


def _write_through_reshape(imgs, gain):
    x = imgs * 1.0
    flat = x.reshape(x.shape[0], -1)      # a shape computed in the function
    flat[:, :3] *= gain
    return np.sum(np.tanh(x))


def _write_through_transpose(a, gain):
    x = a * 1.0
    t = np.transpose(x, axes=(1, 0))      # the layout given by keyword
    t[0] *= gain
    k = x.ndim - 1
    s = np.swapaxes(x, 0, k)              # by a variable
    s[1] *= gain
    return np.sum(np.sin(x))


@pytest.mark.parametrize("f,shape", [(_write_through_reshape, (2, 3, 3)),
                                     (_write_through_transpose, (3, 4))])
def test_writes_through_views_whose_layout_is_computed(f, shape):
    # (the layout's operands were passed as their names: np.reshape(g, '_t4') crashed)
    a = np.random.default_rng(5).normal(size=shape)
    check_grads(f, (a, 1.8), (0, 1))


# ----- forward mode: a write into an array whose tangent a rule passed through -----

def _scaled_copy_then_write(x):
    y = x * 1.0                  # its tangent is x_dot itself
    v = y[1:]
    v[0] = 2.0 * x[0]            # writes y (and so y_dot) in place
    y[2] = y[2] ** 2
    return np.sum(y * y)


def test_jvp_writes_into_a_tangent_of_its_own():
    x = np.array([0.3, -0.5, 1.1])
    for t in (np.array([1.0, 0.0, 0.0]), np.array([0.2, -1.0, 0.7])):
        before = t.copy()
        _, got = revsrc.jvp(_scaled_copy_then_write, (x,), (t,))
        assert np.array_equal(t, before)          # the caller's tangent is untouched
        want = revsrc.grad(_scaled_copy_then_write)(x) @ t
        assert got == pytest.approx(want, rel=1e-12)
        eps = 1e-6
        fd = (_scaled_copy_then_write(x + eps * t) - _scaled_copy_then_write(x - eps * t)) / (2 * eps)
        assert got == pytest.approx(fd, rel=1e-6)


# ----- found by a tester: views NumPy returns, in-place calls as values, aliases -----

def _diag_then_scale(x):
    a = x * 1.0
    d = np.diag(a)          # a view of a's diagonal
    a *= 3.0
    return np.sum(d * d)


def _rot90_then_write(x):
    a = x * 1.0
    d = np.rot90(a)
    a[0, 0] = 5.0
    return np.sum(d * d)


def _diagonal_then_fill(x):
    a = x * 1.0
    d = a.diagonal()
    np.fill_diagonal(a, 2.0)
    return np.sum(d * x)


def _split_then_write(x):
    a = x * 1.0
    parts = np.split(a, 2)
    a[0, 0] = 5.0
    return np.sum(parts[0] * parts[1])


def _write_through_rot90(x):
    a = x * 1.0
    r = np.rot90(a)
    r[0, 1] = 7.0 * x[1, 1]
    return np.sum(a * a)


def _broadcast_then_scale(x):
    a = x * 1.0
    d = np.broadcast_to(a[0], (3, 2))
    a[0] *= 2.0
    return np.sum(d * d)


def _add_at_as_value(x):
    a = np.zeros(3)
    r = np.add.at(a, [0], x)
    return np.sum(a * a) + (r is None)


def _copyto_as_value(x):
    a = np.zeros(3)
    r = np.copyto(a, x)
    return np.sum(a * a) + (r is None)


def _add_at_through_a_view_in_a_loop(x):
    a = np.zeros(3)
    for i in range(3):
        v = a[i:]
        np.add.at(v, [0], x)
    return np.sum(a * a)


def _whole_view_write_in_a_loop(x):
    a = np.zeros(3)
    for i in range(3):
        v = a[i:]
        v[...] = v + x
    return np.sum(a * a)


def _alias_of_a_rebound_name(x):
    a = np.zeros(2)
    b = a
    a = a + 1.0
    b[0] += x
    return np.sum(a * a) + np.sum(b * b)


@pytest.mark.parametrize("f,x", [
    (_diag_then_scale, np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_rot90_then_write, np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_diagonal_then_fill, np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_split_then_write, np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_write_through_rot90, np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_broadcast_then_scale, np.array([[1.0, 2.0], [3.0, 4.0]])),
    (_add_at_as_value, 0.5),
    (_copyto_as_value, 0.5),
    (_add_at_through_a_view_in_a_loop, 0.5),
    (_whole_view_write_in_a_loop, 0.5),
    (_alias_of_a_rebound_name, 0.5),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_views_in_place_calls_and_aliases_give_true_values(f, x):
    value, _ = revsrc.value_and_grad(f)(x)
    assert value == f(x)
    check_grads(f, (x,))


def _write_into_a_diagonal(x):
    a = x * 1.0
    d = np.diagonal(a)
    d[0] = 1.0              # NumPy: read-only
    return np.sum(a)


def _fill_diagonal_from_itself(x):
    a = x * 1.0
    np.fill_diagonal(a, a.diagonal()[::-1])     # NumPy reads values as it writes
    return np.sum(a)


def _put_as_value(x):
    a = np.zeros(3)
    r = np.put(a, [0], x)
    return np.sum(a) + (r is None)


def _out_keyword(x):
    a = np.zeros(3)
    b = np.multiply(x, 2.0, out=a)
    return np.sum(a) + np.sum(b)


@pytest.mark.parametrize("f,cls", [
    (_write_into_a_diagonal, errors.UnfollowableWrite),
    (_fill_diagonal_from_itself, errors.UnfollowableWrite),
    (_put_as_value, errors.SideEffect),
    (_out_keyword, errors.SideEffect),
], ids=lambda v: getattr(v, "__name__", "x"))
def test_writes_revsrc_cannot_follow_are_refused(f, cls):
    x = np.arange(1.0, 10.0).reshape(3, 3) if f in (_write_into_a_diagonal,
                                                      _fill_diagonal_from_itself) else 0.5
    with pytest.raises(cls) as info:
        revsrc.grad(f)(x)
    assert info.value.filename == __file__ and info.value.lineno is not None


class _Scaled:
    def __get__(self, obj, typ=None):
        return 1.0 if obj is None else obj.w * 100.0


class _WithDescriptor:
    w_scaled = _Scaled()

    def __init__(self, w):
        self.w = w


def _reads_a_descriptor(w):
    return _WithDescriptor(w).w_scaled * w


def test_a_descriptor_of_an_object_made_in_the_function_is_refused():
    with pytest.raises(errors.UnsupportedSyntax) as info:
        revsrc.grad(_reads_a_descriptor)(1.5)
    assert "descriptor" in info.value.message


def _unzips_an_array(w, arr):
    xs, ys = zip(*arr)
    return sum((w * x - y) ** 2 for x, y in zip(xs, ys))


def test_zip_of_an_array_argument_gives_an_array_gradient():
    arr = np.array([[1.0, 2.0], [2.0, 3.5], [3.0, 7.0]])
    g = revsrc.grad(_unzips_an_array, argnums=1)(0.7, arr)
    assert isinstance(g, np.ndarray) and g.shape == arr.shape
    check_grads(_unzips_an_array, (0.7, arr), argnums=(0, 1))


def _unpacks_a_row(x):
    a, b = x
    return a * b


def _unzips_built_pairs(x, n):
    pairs = [(x * i, x + i) for i in range(n)]
    xs, ys = zip(*pairs)
    return sum(xs) + sum(ys)


@pytest.mark.parametrize("f, args", [
    (_unpacks_a_row, (np.array([2.0, 3.0, 4.0]),)),     # too many values
    (_unpacks_a_row, (np.array([2.0]),)),               # not enough
    (_unzips_built_pairs, (1.0, 0)),                    # zip(*[]) unpacks nothing
])
def test_unpacking_the_wrong_number_of_items_raises_pythons_error(f, args):
    with pytest.raises(ValueError) as want:
        f(*args)
    with pytest.raises(ValueError) as got:
        revsrc.grad(f)(*args)
    assert str(got.value) == str(want.value)


def _unpacks_an_argument(x, seq):
    a, b = seq
    return x * a + b


@pytest.mark.parametrize("seq", [{0: 5.0, 1: 7.0}, {5.0, 7.0}, iter([5.0, 7.0])],
                         ids=["dict", "set", "iterator"])
def test_unpacking_what_is_not_read_by_position_is_refused(seq):
    # a dict unpacks its keys: reading seq[0], seq[1] would be a wrong number
    with pytest.raises(errors.UnsupportedValue) as info:
        revsrc.value_and_grad(_unpacks_an_argument)(1.5, seq)
    assert info.value.code == "E305" and info.value.line == "a, b = seq"


def test_unpacking_the_right_number_of_items_still_differentiates():
    np.testing.assert_array_equal(revsrc.grad(_unpacks_a_row)(np.array([2.0, 3.0])), [3.0, 2.0])
    assert revsrc.grad(_unzips_built_pairs)(1.0, 3) == 6.0


def _astype_copies(x):
    y = x.astype(np.float64, copy=True)
    y[0] = 0.0
    return np.sum(x * y)


def _astype_may_alias(x):
    a = x * 1.0
    y = a.astype(np.float64, copy=False)     # a itself: a view of it
    a[1] = 5.0
    return np.sum(y * x)


def test_astype_with_copy_in_both_modes():
    x = np.array([1.0, 2.0, 3.0])
    for f in (_astype_copies, _astype_may_alias):
        value, _ = revsrc.value_and_grad(f)(x)
        assert value == f(x)
        check_grads(f, (x,))
        _, t = revsrc.jvp(f, (x,), (np.ones(3),))
        eps = 1e-6
        assert t == pytest.approx((f(x + eps) - f(x - eps)) / (2 * eps), rel=1e-6)


# ----- found by a tester: an alias or a view whose array's name is assigned again in
# a loop or a branch (c = a; a = a + c in a loop: c keeps the first array) -----

def _alias_then_rebind_in_a_loop(x):
    a = x.copy()
    c = a
    for i in range(2):
        c[0] = c[1] * c[2]  # refuse: E404
        a = a + c
    return np.sum(a * x)


def _alias_in_a_loop_rebound_before_the_write(x):
    a = x.copy()
    for i in range(2):
        c = a
        a = a * 2.0
        c[0] = c[1] * x[2]  # refuse: E404
        a = a + c
    return np.sum(a * x)


def _alias_then_rebind_in_a_while_loop(x):
    a = x.copy()
    c = a
    i = 0
    while i < 2:
        c[0] = c[1] * c[2]  # refuse: E404
        a = a + c
        i += 1
    return np.sum(a * x)


def _alias_then_rebind_in_nested_loops(x):
    a = x.copy()
    c = a
    for i in range(2):
        for j in range(2):
            c[0] = c[1] * x[2]  # refuse: E404
        a = a + c
    return np.sum(a * x)


def _alias_then_rebind_in_an_inner_loop(x):
    a = x.copy()
    for i in range(2):
        c = a
        for j in range(2):
            c[0] = c[1] * x[2]  # refuse: E404
            a = a * 2.0
    return np.sum(a * x) + np.sum(c * x)


def _view_then_rebind_in_a_loop(x):
    a = x.copy()
    c = a[1:]
    for i in range(2):
        c[0] = c[1] * c[2]  # refuse: E404
        a = a + x
    return np.sum(a * x)


def _view_then_rebind_in_place_in_a_loop(x):
    a = x.copy()
    c = a[:2]
    for i in range(2):
        c *= x[:2]  # refuse: E404
        a = a + x
    return np.sum(a * x)


def _alias_then_scale_in_a_loop(x):
    a = x.copy()
    c = a
    for i in range(2):
        c[0] = c[1] * c[2]  # refuse: E404
        a = a * 2
    return np.sum(a * x)


def _alias_then_rebind_in_a_branch_of_a_loop(x):
    a = x.copy()
    c = a
    for i in range(3):
        c[0] = c[1] * c[2]  # refuse: E404
        if i == 1:
            a = a * 2.0
    return np.sum(a * x) + np.sum(c)


def _alias_then_rebind_in_a_branch(x):
    a = x.copy()
    c = a
    if x[0] > 0.0:
        a = a * 2.0
    c[0] = c[1] * x[2]  # refuse: E404
    return np.sum(a * x) + np.sum(c * x)


def _alias_then_rebind_in_a_loop_then_write(x):
    a = x.copy()
    c = a
    for i in range(2):
        a = a * x
    c[0] = c[1] * x[2]  # refuse: E404
    return np.sum(a * x) + np.sum(c * x)


def _write_into_an_array_then_rebind_in_a_loop(x):
    a = x.copy()
    c = a
    for i in range(2):
        a[0] = a[1] * x[2]  # refuse: E404
        a = a + c
    return np.sum(a * x) + np.sum(c * x)


def _rebound_to_a_view_of_itself_in_a_loop(x):
    a = x.copy()
    c = a
    for i in range(2):
        c[0] = c[1] * x[2]  # refuse: E404
        a = a[::-1]
    return np.sum(a * x)


def _same(z):
    return z


def _alias_from_a_helper_then_rebind_in_a_loop(x):
    a = x.copy()
    c = _same(a)
    for i in range(2):
        c[0] = c[1] * c[2]  # refuse: E404
        a = a + c
    return np.sum(a * x)


@pytest.mark.parametrize("f", [
    _alias_then_rebind_in_a_loop,
    _alias_in_a_loop_rebound_before_the_write,
    _alias_then_rebind_in_a_while_loop,
    _alias_then_rebind_in_nested_loops,
    _alias_then_rebind_in_an_inner_loop,
    _view_then_rebind_in_a_loop,
    _view_then_rebind_in_place_in_a_loop,
    _alias_then_scale_in_a_loop,
    _alias_then_rebind_in_a_branch_of_a_loop,
    _alias_then_rebind_in_a_branch,
    _alias_then_rebind_in_a_loop_then_write,
    _write_into_an_array_then_rebind_in_a_loop,
    _rebound_to_a_view_of_itself_in_a_loop,
    _alias_from_a_helper_then_rebind_in_a_loop,
], ids=lambda f: f.__name__)
def test_a_write_through_an_alias_of_a_name_assigned_again_is_refused(f):
    x = np.array([1.0, 2.0, 3.0, 4.0])
    for d in (revsrc.grad(f), revsrc.value_and_grad(f), lambda x: revsrc.jvp(f, (x,), (x,))):
        with pytest.raises(errors.UnfollowableWrite) as info:
            d(x)
        assert info.value.code == "E404"
        lines, first = inspect.getsourcelines(f)
        marked = [first + i for i, line in enumerate(lines) if "# refuse: E404" in line]
        assert info.value.filename == __file__ and [info.value.lineno] == marked


def _unrolled_alias_then_rebind(x):
    a = x.copy()
    c = a
    c[0] = c[1] * c[2]
    a = a + c
    c[0] = c[1] * c[2]
    a = a + c
    return np.sum(a * x)


def _alias_in_a_loop_rebound_after_the_write(x):
    a = x.copy()
    for i in range(2):
        c = a
        c[0] = c[1] * x[2]
        a = a + c
    return np.sum(a * x)


def _view_of_an_iterations_own_array(x):
    out = 0.0
    for i in range(3):
        a = x * float(i)
        c = a[1:]
        c[0] = c[1] * x[2]
        out = out + np.sum(a * x)
    return out


def _view_in_a_loop_written_then_rebound(x):
    a = x.copy()
    for i in range(2):
        c = a[:2]
        c += x[2:]
        a = a * 2.0
    return np.sum(a * x)


def _rebound_before_the_alias_is_made(x):
    a = x.copy()
    for i in range(2):
        a = a * x
    c = a
    c[0] = c[1] * x[2]
    return np.sum(a * x) + np.sum(c * x)


def _write_into_the_rebound_array_in_a_loop(x):
    a = x.copy()
    c = a
    for i in range(2):
        a = a + c           # a new array on every iteration: c keeps the first
        a[0] = a[1] * x[2]
    return np.sum(a * x) + np.sum(c * x)


def _alias_parted_before_a_loop_of_writes(x):
    a = x * 1.0
    b = a
    a = b * 2.0             # b keeps the first array, read in the loop
    for i in range(2):
        v = a
        v[0] += x[1] * 0.5
        a = a * 0.9 + b * 0.1
    return np.sum(a * x) + np.sum(b * x)


@pytest.mark.parametrize("f", [
    _write_into_the_rebound_array_in_a_loop,
    _alias_parted_before_a_loop_of_writes,
    _unrolled_alias_then_rebind,
    _alias_in_a_loop_rebound_after_the_write,
    _view_of_an_iterations_own_array,
    _view_in_a_loop_written_then_rebound,
    _rebound_before_the_alias_is_made,
], ids=lambda f: f.__name__)
def test_a_write_through_an_alias_of_a_name_assigned_again_after_it(f):
    x = np.array([1.0, 2.0, 3.0, 4.0])
    value, _ = revsrc.value_and_grad(f)(x)
    assert value == f(x)
    check_grads(f, (x,))
