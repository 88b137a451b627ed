"""backend="jax": the derivative revsrc writes, printed against jax.numpy and compiled
with jax.jit, gives the NumPy path's gradients (rtol 1e-12) on every row of the rule
table (tests/test_rules.py), except the rows listed in `REFUSED`, which it refuses with
the code given there."""
import numpy as np
import pytest

import revsrc
from revsrc import errors

jax = pytest.importorskip("jax")
jnp = jax.numpy

from test_rules import CASES, _args, _float_args  # noqa: E402

# Rows backend="jax" refuses (E603, naming the user's line): their adjoint's helper,
# run over jax.numpy (revsrc/backends/jax/twins.py), branches on values or writes in place,
# which a jitted program cannot do; the NumPy path (backend=None) runs them.
_E603 = errors.JaxNotLowered
REFUSED = {
    # a branch on the values: any zero in the product (np.cumprod)
    **dict.fromkeys(["f_cumprod", "f_cumprod_zero", "f_cumprod_flat"], _E603),
    # in-place writes into an array (np.put_along_axis, out[idx] = g, np.add.at)
    **dict.fromkeys(["f_partition",
                     "f_partition_axis", "f_einsum_diag", "f_diagonal", "f_diag-(3,3)",
                     "f_diag-(3,4)", "f_diag_k-(3,4)", "f_gradient", "f_gradient_axes",
                     "f_gradient_coords", "f_interp", "f_interp_knots", "f_interp_ends",
                     "f_interp_period", "f_convolve_same", "f_convolve_valid",
                     "f_row_stack", "f_repeat_counts"], _E603),
    # np.pad's adjoints by mode (lane statistics written in place)
    **dict.fromkeys(["f_pad", "f_pad_int", "f_pad_linear_ramp", "f_pad_maximum",
                     "f_pad_minimum", "f_pad_mean", "f_pad_median", "f_pad_values"], _E603),
    # matrix decompositions: checks on the spectrum (repeated eigenvalues, rank)
    **dict.fromkeys(["f_pinv", "f_lstsq", "f_eigh", "f_eigh_upper", "f_eig", "f_eig_vectors",
                     "f_svd", "f_svd_full"], _E603),
    # a boolean mask computed from the values (x[x > 0]): its shape is data-dependent
    **dict.fromkeys(["f_index_mask", "f_index_mask_full"], _E603),
    # np.real_if_close looks at the values to choose its result's dtype
    "f_real_if_close": _E603,
    # float(z), max(x, y) and min(x, y) of traced floats are Python branches on values
    "s_copy_float": _E603,
    # sorted() of an array's items compares traced floats in Python
    "f_sorted": _E603,
    # helpers with no jax.numpy twin yet: the math module's fsum and prod (SciPy's
    # factorizations, expm, the gamma functions and the quantiles have theirs)
    **dict.fromkeys(["s_fsum_prod", "f_fsum_prod_array"], _E603),
}


def _refusal(row, case_id):
    return REFUSED.get(case_id, REFUSED.get(row.fn.__name__))


def _close(got, want, rtol=1e-12):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    scale = float(np.max(np.abs(want))) if want.size else 0.0
    err = float(np.max(np.abs(got - want))) if want.size else 0.0
    assert err <= rtol * scale or err == 0.0, (err, scale)


@pytest.mark.parametrize("row,shapes,k", CASES)
def test_rule_rows_match_numpy(row, shapes, k, request):
    args = _args(row, shapes, 100 + k)
    nums = _float_args(args)
    refusal = _refusal(row, request.node.callspec.id)
    if refusal is not None:
        with pytest.raises(refusal) as info:
            revsrc.grad(row.fn, nums, backend="jax")(*args)
        # it names the user's line
        assert info.value.filename.endswith("test_rules.py") and info.value.line
        return
    want = revsrc.grad(row.fn, nums, backend="python")(*args)
    got = revsrc.grad(row.fn, nums, backend="jax")(*args)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert isinstance(g, jax.Array)
        _close(g, w)


# ----- The API: arguments, outputs, value_and_grad, has_aux -----

def mlp(W, x, b, scale=1.0):
    h = np.tanh(x @ W + b)
    return scale * np.mean(h * h) + 0.1 * np.sum(W * W)


_rng = np.random.default_rng(3)
W0 = _rng.standard_normal((5, 3)) * 0.4
X0 = _rng.standard_normal((6, 5))
B0 = _rng.standard_normal(3) * 0.1


def test_grad_matches_numpy_and_jax_grad():
    got = revsrc.grad(mlp, (0, 2), backend="jax")(W0, X0, B0)
    want = revsrc.grad(mlp, (0, 2))(W0, X0, B0)

    def jmlp(W, x, b):
        h = jnp.tanh(x @ W + b)
        return jnp.mean(h * h) + 0.1 * jnp.sum(W * W)
    with jax.enable_x64(True):
        oracle = jax.grad(jmlp, (0, 2))(W0, X0, B0)
    for g, w, o in zip(got, want, oracle):
        assert isinstance(g, jax.Array) and g.dtype == jnp.float64 and g.shape == w.shape
        _close(g, w)
        _close(g, o, rtol=1e-12)


def test_value_and_grad_keywords_and_float_arguments():
    value, (gW, gs) = revsrc.value_and_grad(mlp, (0, 3), backend="jax")(W0, X0, B0, scale=2.0)
    v2, (wW, ws) = revsrc.value_and_grad(mlp, (0, 3))(W0, X0, B0, scale=2.0)
    _close(value, v2)
    _close(gW, wW)
    _close(gs, ws)
    assert isinstance(gs, jax.Array) and gs.shape == ()


def test_jax_array_inputs_and_float32():
    with jax.enable_x64(True):
        Wj, Xj, Bj = jnp.asarray(W0), jnp.asarray(X0), jnp.asarray(B0)
    _close(revsrc.grad(mlp, backend="jax")(Wj, Xj, Bj), revsrc.grad(mlp)(W0, X0, B0))
    W32 = W0.astype(np.float32)
    g32 = revsrc.grad(mlp, backend="jax")(W32, X0.astype(np.float32), B0.astype(np.float32))
    assert g32.dtype == jnp.float32
    np.testing.assert_allclose(np.asarray(g32), revsrc.grad(mlp)(W0, X0, B0), rtol=1e-4, atol=1e-6)


def test_array_arguments_take_the_short_path_with_the_same_results():
    # all arrays: the call goes straight to the jitted program (api._selector picks the
    # outputs); a float among them takes the general path: the same numbers both ways
    with jax.enable_x64(True):
        Wj, Xj, Bj = jnp.asarray(W0), jnp.asarray(X0), jnp.asarray(B0)
    for argnums in (0, 2, (0, 2), (2, 0)):
        for make in (revsrc.grad, revsrc.value_and_grad):
            fast = make(mlp, argnums, backend="jax")
            general = make(mlp, argnums)
            for args in ((W0, X0, B0), (Wj, X0, Bj), (Wj, Xj, Bj)):
                got, want = fast(*args), general(W0, X0, B0)
                assert jax.tree_util.tree_structure(got) == jax.tree_util.tree_structure(want)
                for g, w in zip(jax.tree_util.tree_leaves(got), jax.tree_util.tree_leaves(want)):
                    _close(g, w)
            # the same derivative with a float keyword: the general path, same numbers
            for g, w in zip(jax.tree_util.tree_leaves(fast(W0, X0, B0, scale=1.0)),
                            jax.tree_util.tree_leaves(general(W0, X0, B0, scale=1.0))):
                _close(g, w)


def with_aux(x):
    y = np.sin(x)
    return np.sum(y * y), y


def test_has_aux():
    (value, aux), g = revsrc.value_and_grad(with_aux, has_aux=True, backend="jax")(X0)
    (v2, aux2), g2 = revsrc.value_and_grad(with_aux, has_aux=True)(X0)
    _close(value, v2)
    _close(aux, aux2)
    _close(g, g2)


def test_source_shows_jnp_code():
    text = revsrc.source(revsrc.grad(mlp, backend="jax"), W0, X0, B0)
    assert text.startswith("def mlp_adjoint(W, x, b, scale):")
    code = "\n".join(line for line in text.splitlines() if not line.strip().startswith("#"))
    assert "jnp.tanh(" in code and "np." not in code.replace("jnp.", "")
    assert "# adjoint of line" in text


# ----- Control flow -----

def static_loop(x, n):
    s = 0.0
    for i in range(n):
        if i % 2 == 0:
            s = s + np.sum(np.sin(x * i))
        else:
            s = s + np.sum(x * x) * 0.5
    return s


def test_loops_and_branches_on_static_values_unroll():
    for n in (3, 4):
        _close(revsrc.grad(static_loop, backend="jax")(X0, n), revsrc.grad(static_loop)(X0, n))


def item_assignment(x):
    y = np.zeros(3)
    for i in range(3):
        y[i] = x[i] * x[i + 1]
    y[1] += x[0]
    return np.sum(y * y)


def test_item_assignment_becomes_at_set():
    x = np.array([0.3, -1.2, 0.7, 2.0])
    df = revsrc.grad(item_assignment, backend="jax")
    _close(df(x), revsrc.grad(item_assignment)(x))
    assert "y = y.at[i].set(_t3)" in revsrc.source(df, x)


def branch_on_value(x):
    if x > 1.0:
        return x * x
    return np.sin(x)


def while_on_value(x):
    while x < 10.0:
        x = x * 2.0
    return x


def while_growing(x):
    while np.sum(x) < 10.0:
        x = np.concatenate([x, x])      # a new shape each iteration: no lax carry
    return np.sum(x)


def loop_to_value(x, k):
    for i in range(int(k)):
        x = x * 1.5
    return x


def branches_in_a_loop(x, W):
    h = x
    for t in range(4):
        z = h @ W
        if np.sum(z) > 0:
            h = np.tanh(z)           # saves what only this branch's adjoint reads
        else:
            h = z * 0.5
    return np.sum(h ** 2)


def nested_branches(x, y):
    s = np.sum(x * y)
    if s > 0.0:
        if s > 2.0:
            z = np.log(s) * x
        else:
            z = x * y * 3.0
    elif s < -1.0:
        z = np.exp(x) - y
    else:
        z = np.tanh(x)
    return np.sum(z * z)


def test_branches_on_traced_values_select_both_arms():
    rng = np.random.default_rng(11)
    for v in (2.0, 0.5, -1.0):
        assert float(revsrc.grad(branch_on_value, backend="jax")(v)) == \
            pytest.approx(revsrc.grad(branch_on_value)(v), rel=1e-12)
    for _ in range(6):
        x, W = rng.normal(size=(2, 3)), rng.normal(size=(3, 3))
        for got, want in zip(revsrc.grad(branches_in_a_loop, (0, 1), backend="jax")(x, W),
                             revsrc.grad(branches_in_a_loop, (0, 1))(x, W)):
            _close(got, want)
    x = np.ones(3)
    for y in (np.ones(3), np.full(3, 0.2), -np.ones(3), np.full(3, -0.1)):   # every arm
        for got, want in zip(revsrc.grad(nested_branches, (0, 1), backend="jax")(x, y),
                             revsrc.grad(nested_branches, (0, 1))(x, y)):
            _close(got, want)
        _close(revsrc.hessian(nested_branches, backend="jax")(x, y),
               revsrc.hessian(nested_branches)(x, y))
    text = revsrc.source(revsrc.grad(nested_branches, backend="jax"), x, x)
    assert "_jaxgen.select(" in text and "if _jaxgen.traced(" in text


def shape_by_branch(x):
    if np.sum(x) > 0:
        y = x[:2]
    else:
        y = x
    return np.sum(y * y)


def raises_in_a_branch(x):
    if x < 0.0:
        raise ValueError("negative")
    return x * 2.0


def list_item_by_branch(x):
    xs = [x, x * 2.0]
    if np.sum(x) > 0:
        xs[0] = x * 3.0           # a list changed in place: both arms would change it
    else:
        xs[1] = x * 5.0
    return np.sum(xs[0] * xs[1])


@pytest.mark.parametrize("fn,args,line", [
    (while_growing, (np.ones(2),), "while np.sum(x) < 10.0:"),
    (list_item_by_branch, (np.ones(2),), "if np.sum(x) > 0:"),
    (shape_by_branch, (np.ones(3),), "if np.sum(x) > 0:"),
    (raises_in_a_branch, (1.0,), "if x < 0.0:"),
])
def test_data_dependent_control_flow_is_refused_with_its_line(fn, args, line):
    with pytest.raises(errors.JaxDataDependent) as info:
        revsrc.grad(fn, backend="jax")(*args)
    assert info.value.code == "E602"
    assert info.value.line == line and info.value.filename == __file__
    # the other backends run it
    revsrc.grad(fn)(*args)


def test_a_while_on_a_traced_value_runs_as_lax_while_loop():
    """(tests/test_jax_loops.py has the rest.)"""
    for x in (0.5, 20.0):
        _close(revsrc.grad(while_on_value, backend="jax")(x), revsrc.grad(while_on_value)(x))


def test_a_trip_count_from_a_traced_float_is_refused():
    with pytest.raises(errors.JaxNotLowered) as info:
        revsrc.grad(loop_to_value, backend="jax")(0.5, 3.0)
    assert "range(int(k))" in info.value.line


SCALE = 2.0


def reads_a_global(x):
    return SCALE * np.sum(x * x)


def test_globals_are_read_at_each_call():
    global SCALE
    df = revsrc.grad(reads_a_global, backend="jax")
    x = np.array([1.0, 2.0])
    _close(df(x), 4.0 * x)
    SCALE = 3.0
    try:
        _close(df(x), 6.0 * x)
    finally:
        SCALE = 2.0


# ----- Composed derivatives -----

def vector_fn(v, A):
    return np.sin(A @ v) * v[0] + np.cumsum(v) ** 2


A0 = _rng.standard_normal((4, 4))
V0 = _rng.standard_normal(4)


def test_jvp_vjp_jacobians_hessian_hvp():
    t = _rng.standard_normal(4)
    out, tan = revsrc.jvp(vector_fn, (V0, A0), (t, None), backend="jax")
    out2, tan2 = revsrc.jvp(vector_fn, (V0, A0), (t, None))
    assert isinstance(tan, jax.Array)
    _close(out, out2)
    _close(tan, tan2)
    ct = _rng.standard_normal(4)
    _, back = revsrc.vjp(vector_fn, V0, A0, backend="jax")
    _, back2 = revsrc.vjp(vector_fn, V0, A0)
    for g, w in zip(back(ct), back2(ct)):
        _close(g, w)
    for jac in (revsrc.jacfwd, revsrc.jacrev, revsrc.jacobian):
        got = jac(vector_fn, backend="jax")(V0, A0)
        assert isinstance(got, jax.Array)
        _close(got, jac(vector_fn)(V0, A0))
    _close(revsrc.hessian(mlp, backend="jax")(W0, X0, B0), revsrc.hessian(mlp)(W0, X0, B0))
    V = _rng.standard_normal(W0.shape)
    _close(revsrc.hvp(mlp, (W0, X0, B0), (V, None, None), backend="jax"),
           revsrc.hvp(mlp, (W0, X0, B0), (V, None, None)))


# ----- JAX is optional -----

def test_without_jax_the_refusal_names_the_extra(monkeypatch):
    import builtins

    from revsrc.backends.jax import load
    real_import = builtins.__import__

    def no_jax(name, *args, **kwargs):
        if name == "jax" or name.startswith("jax."):
            raise ImportError(f"No module named {name!r}")
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(load, "_jax", None)
    monkeypatch.setattr(builtins, "__import__", no_jax)
    with pytest.raises(errors.JaxUnavailable) as info:
        revsrc.grad(mlp, backend="jax")
    assert info.value.code == "E601" and "revsrc[jax]" in str(info.value)
    with pytest.raises(errors.JaxUnavailable):
        revsrc.jvp(vector_fn, (V0, A0), (V0, None), backend="jax")


# ----- Many devices -----

SHARDED = '''
import numpy as np
import jax
import revsrc
from jax.sharding import Mesh, NamedSharding, PartitionSpec as P


def loss(W, x, y):
    err = np.tanh(x @ W) - y
    return np.mean(err * err) + 0.01 * np.sum(W * W)


assert len(jax.devices()) == 2, jax.devices()
rng = np.random.default_rng(0)
W = rng.standard_normal((16, 4))
x = rng.standard_normal((64, 16))
y = rng.standard_normal((64, 4))
mesh = Mesh(np.array(jax.devices()), ("batch",))   # XLA partitions the program (GSPMD)
with jax.enable_x64(True):
    xs = jax.device_put(x, NamedSharding(mesh, P("batch", None)))
    ys = jax.device_put(y, NamedSharding(mesh, P("batch", None)))
    Ws = jax.device_put(W, NamedSharding(mesh, P()))
assert len(xs.addressable_shards) == 2 and xs.addressable_shards[0].data.shape == (32, 16)
g = revsrc.grad(loss, backend="jax")(Ws, xs, ys)
want = revsrc.grad(loss)(W, x, y)
err = float(np.max(np.abs(np.asarray(g) - want)))
assert err <= 1e-12 * float(np.max(np.abs(want))), err
assert isinstance(g, jax.Array) and len(g.sharding.device_set) == 2, g.sharding
print("ok", err, g.sharding)
'''


def test_sharded_inputs_give_the_same_gradient(tmp_path):
    """Inputs sharded across two (CPU) devices: XLA partitions the jitted adjoint, and
    the gradient is the NumPy path's."""
    import os
    import subprocess
    import sys
    script = tmp_path / "sharded.py"
    script.write_text(SHARDED)
    env = dict(os.environ, XLA_FLAGS="--xla_force_host_platform_device_count=2",
               JAX_PLATFORMS="cpu")
    root = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    env["PYTHONPATH"] = root + os.pathsep + env.get("PYTHONPATH", "")
    done = subprocess.run([sys.executable, str(script)], env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("ok")


def _softplus(x):
    return np.log1p(np.exp(x))


def with_user_rule(x):
    return np.sum(_softplus(x) * x)


def test_a_users_rule_runs_in_jnp():
    from revsrc import primitives
    state = primitives.snapshot()
    try:
        @revsrc.defvjp(_softplus, broadcast=True)
        def _softplus_rule(g, ans, x):
            return g / (1.0 + np.exp(-x))
        x = np.array([-1.0, 0.0, 2.0])
        df = revsrc.grad(with_user_rule, backend="jax")
        _close(df(x), revsrc.grad(with_user_rule)(x))
        assert "jnp.log1p(" in revsrc.source(df, x)   # its body, inlined in jnp
    finally:
        primitives.restore(state)


def batched_matmul(a, b):
    return np.sum(np.sin(a @ b))


@pytest.mark.parametrize("sa,sb", [((2, 3, 4), (4, 5)), ((2, 1, 3, 4), (4, 2)),
                                   ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)),
                                   ((2, 3, 4), (2, 4, 5))])
def test_matmul_adjoints_as_one_dot_over_batches(sa, sb):
    """The jnp twins of matmul's adjoints contract a 2-D operand's batch in one dot."""
    a, b = _rng.standard_normal(sa), _rng.standard_normal(sb)
    for g, w in zip(revsrc.grad(batched_matmul, (0, 1), backend="jax")(a, b),
                    revsrc.grad(batched_matmul, (0, 1))(a, b)):
        _close(g, w)


def test_a_derivative_inside_jax_jit_and_vmap():
    """Called on tracers, the jitted derivative is traced into the caller's program."""
    dmlp = revsrc.grad(mlp, backend="jax")
    want = revsrc.grad(mlp)(W0, X0, B0)
    with jax.enable_x64(True):
        step = jax.jit(lambda W, x, b: W - 0.1 * dmlp(W, x, b))
        _close(step(W0, X0, B0), W0 - 0.1 * want)
        batched = jax.vmap(dmlp, in_axes=(None, 0, None))(W0, np.stack([X0, 2 * X0]), B0)
    _close(batched[0], want)
    _close(batched[1], revsrc.grad(mlp)(W0, 2 * X0, B0))


def _prints_its_sum(x):
    y = np.sum(x ** 2)
    print("sum of squares", y)
    return y


def test_print_shows_each_calls_values(capsys):
    g = revsrc.grad(_prints_its_sum, backend="jax")
    for x in (np.ones(3), np.arange(3.0)):
        np.testing.assert_allclose(g(x), 2 * x)
        jax.effects_barrier()
        assert capsys.readouterr().out == f"sum of squares {np.sum(x ** 2)}\n"


def test_every_run_time_module_has_its_twin_table():
    """A run-time module with no twin table would lose its jnp lowering silently (one
    moved, or one new): each module of revsrc.runtime whose functions generated code
    calls is registered with backends/jax/twins.py, by the module object. Generated
    code names a helper by its module's last name, so those names are unique."""
    import importlib
    import pkgutil

    from revsrc import runtime
    from revsrc.backends.jax import twins
    modules = [runtime] + [importlib.import_module(m.name) for m in
                           pkgutil.walk_packages(runtime.__path__, runtime.__name__ + ".")]
    helpers = [m for m in modules    # those that define functions (not grads/__init__)
               if any(callable(f) and getattr(f, "__module__", None) == m.__name__
                      for f in vars(m).values())]
    assert len(helpers) >= 15
    assert [m.__name__ for m in helpers if not twins.registered(m)] == []
    short = [m.__name__.rsplit(".", 1)[-1] for m in helpers]
    assert sorted(short) == sorted(set(short))
