"""What a fresh process's first derivative reads and loads: a function's source found
from its code object (revsrc/core/source.py), without inspect's scan of every module;
the native tier left unloaded until a program gets hot; and what ``import revsrc``
leaves unloaded (logging, NumPy's random module, the JAX back end) and the records that
stand in for dataclasses (revsrc/core/record.py). Gradients are checked
against central differences; nothing here is timed (bench/test_first_call_bench.py
measures)."""
import ast
import dis
import inspect
import linecache
import math
import os
import subprocess
import sys
import textwrap

import pytest

import revsrc
from revsrc import errors
from revsrc.core import source

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _fd(f, x, eps=1e-6):
    return (f(x + eps) - f(x - eps)) / (2 * eps)


def _module(tmp_path, name, text):
    import importlib.util
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(text))
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod, path


LAYOUTS = '''
import functools
import math


def deco(f):
    @functools.wraps(f)
    def inner(*a):
        return f(*a)
    return inner


@deco
@deco
def decorated(x):
    return math.sin(x) * x


def hanging(
    x,
    y=2.0,
):
    return x * y + math.cos(x)


def trailing(x):
    s = (x * x
         + 3.0 * x)
    return s
    # a comment after the last statement


class Model:
    scale = 1.5

    def method(self, x):
        return self.scale * x * x

    def other(self):
        return 0


def outer(c):
    def nested(x):
        t = x * c
        return t * t
    return nested


def one_line(x): return x * x * x


squared = lambda x: x * x + 1.0   # noqa: E731
'''


@pytest.fixture(scope="module")
def layouts(tmp_path_factory):
    mod, _ = _module(tmp_path_factory.mktemp("layouts"), "first_call_layouts", LAYOUTS)
    return mod


@pytest.mark.parametrize("name", ["decorated", "hanging", "trailing", "one_line",
                                  "squared"])
def test_definition_reads_what_inspect_reads(layouts, name):
    fn = inspect.unwrap(getattr(layouts, name))
    lines, first = source.definition(fn.__code__)
    theirs, their_first = inspect.getsourcelines(fn.__code__)
    assert first == their_first
    ours = ast.dump(source.numbered(lines, first))
    assert ours == ast.dump(source.numbered(theirs, their_first))


def test_definition_of_a_method_and_a_nested_function(layouts):
    for fn in (layouts.Model.method, layouts.outer(2.0)):
        lines, first = source.definition(fn.__code__)
        tree = source.numbered(lines, first)
        assert tree.body[0].name == fn.__name__
        assert tree.body[0].lineno == fn.__code__.co_firstlineno
        assert len(tree.body) == 1          # the def alone, not what follows it


@pytest.mark.parametrize("name, x", [("decorated", 0.7), ("hanging", 0.4),
                                     ("trailing", 1.3), ("one_line", 0.9),
                                     ("squared", 2.0)])
def test_gradients_of_every_layout(layouts, name, x):
    fn = getattr(layouts, name)
    assert revsrc.grad(fn)(x) == pytest.approx(_fd(fn, x), rel=1e-6)


def test_gradients_of_a_method_and_a_nested_function(layouts):
    m = layouts.Model()
    assert revsrc.grad(m.method)(0.6) == pytest.approx(_fd(m.method, 0.6), rel=1e-6)
    g = layouts.outer(1.7)
    assert revsrc.grad(g)(0.3) == pytest.approx(_fd(g, 0.3), rel=1e-6)


def test_a_definition_is_read_without_inspect(layouts, monkeypatch):
    """inspect.getsourcelines maps the code to its module by taking the real path of
    every module loaded: the reading must not need it."""
    def refuse(*a, **k):
        raise AssertionError("inspect.getsourcelines was called")
    monkeypatch.setattr(inspect, "getsourcelines", refuse)
    monkeypatch.setattr(inspect, "getmodule", refuse)
    src = "def fresh(x):\n    return x * x * 4.0\n"
    ns = {}
    filename = "<first-call-test-fresh>"
    linecache.cache[filename] = (len(src), None, src.splitlines(True), filename)
    try:
        exec(compile(src, filename, "exec"), ns)
        assert revsrc.grad(ns["fresh"])(1.5) == 12.0
    finally:
        linecache.cache.pop(filename, None)
    assert revsrc.grad(layouts.trailing)(1.0) == 5.0


def test_no_source_without_a_file():
    ns = {}
    exec("def nowhere(x):\n    return x * x\n", ns)
    with pytest.raises(errors.NoSource) as info:
        revsrc.grad(ns["nowhere"])(1.0)
    assert info.value.code == "E201"


def test_an_edited_file_is_read_again_and_refused(tmp_path):
    mod, path = _module(tmp_path, "first_call_stale", "def f(x):\n    return x * x\n")
    assert source.file_lines(mod.f.__code__.co_filename)   # linecache holds the old text
    path.write_text("def f(x):\n    return x * x * x\n")
    os.utime(path, (os.path.getmtime(path) + 5, os.path.getmtime(path) + 5))
    with pytest.raises(errors.StaleSource) as info:
        revsrc.grad(mod.f)(2.0)
    assert info.value.code == "E204"


def test_the_same_function_in_another_file_is_read_from_its_own(tmp_path):
    # code objects compare equal across files (the same text at the same line): the parse
    # made for one file must not stand for the other, whose file was edited since
    text = "def f(x):\n    return x * x\n"
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, _ = _module(tmp_path / "a", "first_call_twin_a", text)
    two, path = _module(tmp_path / "b", "first_call_twin_b", text)
    assert one.f.__code__ == two.f.__code__
    assert revsrc.grad(one.f)(1.0) == 2.0
    path.write_text("def f(x):\n    return x + x + 1.0\n")
    os.utime(path, (os.path.getmtime(path) + 5, os.path.getmtime(path) + 5))
    with pytest.raises(errors.StaleSource) as info:
        revsrc.grad(two.f)(1.0)
    assert info.value.code == "E204"
    assert "first_call_twin_b" in str(info.value)


CHILD = textwrap.dedent('''
    import sys
    sys.path.insert(0, sys.argv[1])
    import revsrc
    sys.path.insert(0, sys.argv[2])
    from first_call_child import recurrence
    d = revsrc.grad(recurrence)
    g = d(0.3, 200)
    loaded = "revsrc.backends.engine.native" in sys.modules
    for _ in range(5):      # 201 units of work a call: hot after 500
        d(0.3, 200)
    print(g, loaded, "revsrc.backends.engine.native" in sys.modules)
''')


def test_the_native_tier_loads_when_a_program_gets_hot(tmp_path):
    (tmp_path / "first_call_child.py").write_text(textwrap.dedent('''
        import math


        def recurrence(x, n):
            for i in range(n):
                x = x + 0.003 * math.cos(x)
            return x
    '''))
    env = dict(os.environ, REVSRC_NATIVE_AFTER="500", REVSRC_NATIVE="1")
    # the directory holding the revsrc this test imports (the checkout, or the
    # installed copy: a fresh clone's own revsrc/ has no compiled kernels)
    home = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    r = subprocess.run([sys.executable, "-c", CHILD, home, str(tmp_path)],
                       capture_output=True, text=True, env=env, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    g, first, later = r.stdout.split()
    assert first == "False"     # a first call does not load it
    assert later == "True"      # a program that got hot did
    x, eps = 0.3, 1e-6

    def f(x):
        for _ in range(200):
            x = x + 0.003 * __import__("math").cos(x)
        return x
    assert float(g) == pytest.approx((f(x + eps) - f(x - eps)) / (2 * eps), rel=1e-6)


def test_a_function_imported_from_a_zip(tmp_path, monkeypatch):
    """No file on disk: linecache asks the module's loader, as inspect does."""
    import zipfile
    archive = tmp_path / "zipped.zip"
    with zipfile.ZipFile(archive, "w") as z:
        z.writestr("first_call_zipped.py",
                   "import math\n\n\ndef f(x):\n    return math.sin(x) * x * x\n")
    monkeypatch.syspath_prepend(str(archive))
    import first_call_zipped as mod
    try:
        assert not os.path.exists(mod.f.__code__.co_filename)
        assert revsrc.grad(mod.f)(0.8) == pytest.approx(_fd(mod.f, 0.8), rel=1e-6)
    finally:
        sys.modules.pop("first_call_zipped", None)


LATE_CHILD = textwrap.dedent('''
    import sys
    sys.path.insert(0, sys.argv[1])
    import numpy
    import revsrc
    late = ("logging", "numpy.random", "numpy.fft", "revsrc.backends.jax.compiled",
            "revsrc.rules.fft", "revsrc.passes.containers", "revsrc.frontend.lower.trying",
            "revsrc.frontend.lower.mapping", "copy")
    print(*[m in sys.modules for m in late])
    import logging
    import numpy as np
    sys.path.insert(0, sys.argv[2])
    from first_call_late import f, spectrum
    print(repr(revsrc.grad(f)(0.7)))
    x = np.array([0.3, -1.2, 0.8, 2.0, 0.1])
    from revsrc import primitives
    state = primitives.snapshot()      # (tests' temporary rules: a late load undone)
    revsrc.grad(spectrum)(x)
    primitives.restore(state)
    print(*revsrc.grad(spectrum)(x))
''')


def test_modules_a_program_may_never_use_load_late(tmp_path):
    """``import revsrc`` leaves logging, NumPy's random and fft modules, the copy
    module (whose import looks for Jython's org.python.core along sys.path), the JAX back
    end's printer, np.fft's rules, the containers pass and the lowerings of try
    statements and of map/filter/np.vectorize unloaded; a program that calls logging
    and np.random.seed, imported after revsrc, still runs them as effects with no
    gradient, and np.fft's rules are found."""
    (tmp_path / "first_call_late.py").write_text(textwrap.dedent('''
        import logging
        import math

        import numpy as np


        def f(x):
            np.random.seed(3)
            logging.info("x is %s", x)
            noise = np.random.rand()
            return math.sin(x) * x + noise


        def spectrum(x):
            s = np.fft.rfft(x * x)
            return np.sum(s.real * s.real + s.imag * s.imag)
    '''))
    home = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    r = subprocess.run([sys.executable, "-c", LATE_CHILD, home, str(tmp_path)],
                       capture_output=True, text=True, cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    loaded, grad, spectrum_grad = r.stdout.splitlines()
    assert loaded == " ".join(["False"] * 9)
    assert float(grad) == pytest.approx(_fd(lambda x: math.sin(x) * x, 0.7), rel=1e-6)
    import numpy as np

    def spectrum(x):
        s = np.fft.rfft(x * x)
        return np.sum(s.real * s.real + s.imag * s.imag)
    x = np.array([0.3, -1.2, 0.8, 2.0, 0.1])
    fd = [(spectrum(x + e) - spectrum(x - e)) / 2e-6 for e in np.eye(5) * 1e-6]
    assert [float(v) for v in spectrum_grad.split()] == pytest.approx(fd, rel=1e-6)


LATE_TRANSFORMS_CHILD = textwrap.dedent('''
    import sys
    sys.path.insert(0, sys.argv[1])
    import numpy as np
    import revsrc
    late = ("revsrc.compose", "revsrc.jitted", "revsrc.mapped", "revsrc.passes.jvp",
            "revsrc.passes.cse", "revsrc.passes.views", "revsrc.passes.versions",
            "revsrc.passes.gradient_trees", "revsrc.backends.smallarr_layout", "sysconfig")
    print(*[m in sys.modules for m in late])

    def f(x):
        return np.sum(np.sin(x) * x)


    def square(v):
        return v * v


    def double(v):
        return v * 2.0


    x = np.array([0.3, -1.2, 0.8])
    print(*revsrc.grad(f)(x))
    print(*[m in sys.modules for m in late[:3]])
    from revsrc import jit, vmap
    print(revsrc.jvp(f, (x,), (np.ones(3),))[1], jit(square)(3.0), *vmap(double)(x),
          *np.diag(revsrc.hessian(f)(x)))
    names = {}
    exec("from revsrc import *", names)
    print(sorted(set(revsrc.__all__) - set(names)), sorted(set(revsrc.__all__) - set(dir(revsrc))))
    try:
        revsrc.no_such_name
    except AttributeError as exc:
        print(exc)
''')


def test_transformations_and_passes_a_gradient_never_uses_load_late(tmp_path):
    """``import revsrc`` leaves the other transformations (jvp, Jacobians, jit, vmap) and
    the passes only they or some programs need unloaded; naming one loads it, and it
    computes as before; ``from revsrc import *`` still gives every public name."""
    home = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    script = tmp_path / "first_call_transforms.py"     # (its functions have a file)
    script.write_text(LATE_TRANSFORMS_CHILD)
    r = subprocess.run([sys.executable, str(script), home], capture_output=True, text=True,
                       cwd=str(tmp_path))
    assert r.returncode == 0, r.stderr
    loaded, grad, after, values, missing, error = r.stdout.splitlines()
    assert loaded.split() == ["False"] * 10
    assert after.split() == ["False"] * 3      # a gradient needs none of them
    x = [0.3, -1.2, 0.8]
    assert [float(v) for v in grad.split()] == pytest.approx(
        [math.cos(v) * v + math.sin(v) for v in x], rel=1e-12)
    jvp, square, *rest = [float(v) for v in values.split()]
    assert jvp == pytest.approx(sum(math.cos(v) * v + math.sin(v) for v in x), rel=1e-12)
    assert square == 9.0 and rest[:3] == [2 * v for v in x]
    assert rest[3:] == pytest.approx([2 * math.cos(v) - v * math.sin(v) for v in x],
                                     rel=1e-12)
    assert missing == "[] []"
    assert "no_such_name" in error


GC_CHILD = textwrap.dedent('''
    import gc, sys, weakref
    sys.path.insert(0, sys.argv[1])
    mode = sys.argv[2]


    class Node:
        pass


    cycle = Node()
    cycle.me = cycle
    gone = weakref.ref(cycle)
    del cycle
    if mode == "off":
        gc.disable()
    if mode == "frozen":
        gc.freeze()
    frozen = gc.get_freeze_count()
    import revsrc
    print(gc.isenabled(), gc.get_freeze_count() == 0, frozen > 0)
    gc.collect()
    print(gone() is None)
''')


@pytest.mark.parametrize("mode", ["on", "off", "frozen"])
def test_the_import_leaves_the_collector_as_it_was(mode):
    """``import revsrc`` pauses the cyclic collector while it runs and hands what it
    made to the oldest generation: afterwards the collector is on or off as it was, a
    caller's frozen objects stay frozen, and a cycle made before is still collected."""
    home = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))
    r = subprocess.run([sys.executable, "-c", GC_CHILD, home, mode], capture_output=True,
                       text=True)
    assert r.returncode == 0, r.stderr
    state, collected = r.stdout.splitlines()
    enabled, none_frozen, had_frozen = state.split()
    assert enabled == ("False" if mode == "off" else "True")
    assert none_frozen == ("False" if mode == "frozen" else "True")
    assert had_frozen == ("True" if mode == "frozen" else "False")
    # (a frozen cycle is the caller's to release; any other is collected)
    assert collected == ("False" if mode == "frozen" else "True")


def test_records_behave_as_dataclasses():
    """revsrc/core/record.py gives its classes dataclass's ==, hash, repr and
    frozenness."""
    import dataclasses
    from revsrc.core.ir import Const, Loc, Op, Program
    from revsrc.core.record import FrozenInstanceError
    from revsrc.core.pytree import TreeDef

    @dataclasses.dataclass(frozen=True)
    class Loc2:
        filename: str
        lineno: int
        col: int
        line: str
        func: str = ""

    a, b = Loc("f.py", 3, 1, "y = x"), Loc2("f.py", 3, 1, "y = x")
    assert hash(a) == hash(b) and a == Loc("f.py", 3, 1, "y = x", "")
    assert repr(a) == repr(b).replace("Loc2", "Loc").replace(
        "test_records_behave_as_dataclasses.<locals>.", "")
    assert a != Loc("f.py", 4, 1, "y = x") and a != b
    with pytest.raises(FrozenInstanceError):
        a.lineno = 4
    with pytest.raises(AttributeError):
        Const(1.0).value = 2.0
    op = Op("y", math.sin, ("x",))
    assert op == Op("y", math.sin, ("x",), (), None) and op != Op("z", math.sin, ("x",))
    with pytest.raises(TypeError):
        hash(op)
    p, q = Program("f", [], [], []), Program("f", [], [], [])
    assert p == q and p.kinds is not q.kinds and p.deps is not q.deps
    assert TreeDef("leaf") == TreeDef("leaf", None, None, ())
    assert {TreeDef("tuple", children=(TreeDef("leaf"),))} == {
        TreeDef("tuple", None, None, (TreeDef("leaf"),))}


def test_deep_copy_is_copy_deepcopy():
    """source.deep_copy gives an ast tree equal to copy.deepcopy's, no node shared with
    the original; a plain field value and a list of nodes are copied too."""
    import copy
    tree = ast.parse(LAYOUTS)
    got = source.deep_copy(tree)
    assert ast.dump(got, include_attributes=True) == ast.dump(copy.deepcopy(tree),
                                                              include_attributes=True)
    assert not {id(n) for n in ast.walk(got)} & {id(n) for n in ast.walk(tree)}
    calls = [n for n in ast.walk(tree) if isinstance(n, ast.Call) and n.args]
    args = source.deep_copy(calls[0].args)
    assert [ast.dump(a) for a in args] == [ast.dump(a) for a in calls[0].args]
    assert all(a is not b for a, b in zip(args, calls[0].args))
    assert source.deep_copy(3) == 3


def test_ast_nodes_is_ast_walk():
    """The front end's walks (revsrc/core/source.py's ast_nodes) meet the nodes
    ast.walk yields, in its order, on varied syntax."""
    for text in (LAYOUTS, open(__file__).read(), open(source.__file__).read()):
        tree = ast.parse(text)
        assert [id(n) for n in source.ast_nodes(tree)] == [id(n) for n in ast.walk(tree)]


@pytest.mark.parametrize("old, new", [
    ("return x * 2.0", "return x * 3.0"),              # a constant: the same bytecode
    ("return math.sin(x)", "return math.cos(x)"),      # a name
    ("return x + y", "return x - y"),                  # an operation
    ("return x * y", "return y * x"),                  # a local's order
])
def test_the_fast_comparison_still_refuses_an_edit(tmp_path, old, new):
    """The stale-source check's comparison read from the bytecode (revsrc/frontend/
    parse.py, `_words`) refuses what the instruction-wise one refuses."""
    name = f"first_call_edit_{abs(hash((old, new)))}"
    text = "import math\n\n\ndef f(x, y=1.5):\n    {}\n"
    mod, path = _module(tmp_path, name, text.format(old))
    assert source.file_lines(mod.f.__code__.co_filename)
    path.write_text(text.format(new))
    os.utime(path, (os.path.getmtime(path) + 5, os.path.getmtime(path) + 5))
    with pytest.raises(errors.StaleSource):
        revsrc.grad(mod.f)(0.4)


def test_the_fast_comparison_agrees_with_dis(layouts):
    from revsrc.frontend import parse
    for fn in [layouts.decorated, layouts.hanging, layouts.trailing, layouts.one_line,
               layouts.squared, layouts.Model.method, layouts.outer(2.0)]:
        fn = inspect.unwrap(fn)
        fn(0.5) if fn.__code__.co_argcount == 1 else None   # run: CPython rewrites it
        node = parse._find_definition(parse._read(fn, fn.__code__), fn)
        compiled = parse._compile_alone(node, fn.__code__, fn.__code__.co_filename)
        assert parse._same_tables(compiled, fn.__code__)
        assert parse._words(compiled) == parse._words(fn.__code__)
        assert [op for op, _ in parse._instructions(compiled)] == \
            [dis.opname[op].replace("LOAD_METHOD", "LOAD_ATTR")
             for op, _ in parse._words(compiled)]
