"""Rule families that register when first needed (revsrc/core/waiting.py): the index
that says what each touches is complete, registering them late gives the table that
registering them all at import gave, and asking about one of their callables (a
lookup, a fact, a user's rule, a listing of the table) registers it first.

Each check runs in a fresh interpreter, where no family has registered yet.
"""
import json
import os
import subprocess
import sys
import textwrap

import revsrc

# the revsrc this process imported (the installed one, or a checkout built in place),
# never a source tree's without its compiled kernels
HOME = os.path.dirname(os.path.dirname(os.path.abspath(revsrc.__file__)))


def _run(code, tmp_path):
    """Run ``code`` from a file (the programs it differentiates need their source)."""
    script = tmp_path / "check.py"
    script.write_text(textwrap.dedent(code))
    env = dict(os.environ, PYTHONPATH=HOME)
    r = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                       cwd=str(tmp_path), env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout.strip().splitlines()[-1])


def test_index_lists_everything_each_family_registers(tmp_path):
    """Every record, callable and declared fact a waiting family registers is in
    revsrc/rules/index.py (which may list more: functions of other NumPy versions)."""
    found = _run("""
        import json
        from revsrc import rules
        from revsrc.rules import index
        missing = []
        for family, (names, keys, facts) in rules.measure_index().items():
            r, k, f = index.FAMILIES[family]
            missing += [(family, "record", n) for n in names if n not in r]
            missing += [(family, "callable", x) for x in keys if tuple(x) not in k]
            missing += [(family, fact, x) for fact, xs in facts.items() for x in xs
                        if tuple(x) not in f.get(fact, ())]
        print(json.dumps(missing, default=repr))
    """, tmp_path)
    assert found == [], ("revsrc/rules/index.py is out of date (see its docstring): "
                         f"{found[:10]}")


def test_late_families_touch_nothing_another_family_touches(tmp_path):
    """Registering in any order gives one table: no callable or record is defined by
    two families (or by one at import and one waiting), and no fact of a callable is
    declared twice, or over a fact it had at import."""
    found = _run("""
        import json
        from revsrc import primitives as P, rules
        eager_records = set(P._BY_NAME)
        eager_fns = {P._key(a.fn) for p in P._BY_NAME.values() for a in p.aliases}
        at_import = {P._key(a.fn): {n: v for n, v in vars(a).items() if n in P.FACTS}
                     for a in P._all_aliases()}
        problems, records, fns, facts = [], {}, {}, {}
        for family, load in rules.LOADS.items():
            P._TOUCHED.append([])
            P.WAITING._run([load])
            for what, x, names in P._TOUCHED.pop():
                if what == "record":
                    if x in eager_records or records.get(x, family) != family:
                        problems.append((family, "record", x))
                    records[x] = family
                elif what == "callable":
                    key = P._key(x)
                    if key in eager_fns or fns.get(key, family) != family:
                        problems.append((family, "callable", repr(x)))
                    fns[key] = family
                else:
                    before = at_import.get(P._key(x), {})
                    for n in names:
                        if n in before or facts.get((P._key(x), n), family) != family:
                            problems.append((family, n, repr(x)))
                        facts[P._key(x), n] = family
        print(json.dumps([len(records), len(fns), len(facts), problems]))
    """, tmp_path)
    records, fns, facts, problems = found
    assert records > 50 and fns > 150 and facts > 100
    assert problems == []


def test_a_program_on_numbers_registers_no_waiting_family(tmp_path):
    found = _run("""
        import json, math, revsrc
        from revsrc import primitives, rules
        def f(x, k):
            for i in range(50):
                x = x + 0.01 * (math.sin(x) * k - x * x) if x < 1.0 else x - 0.01 * x
            return x
        g = revsrc.grad(f)(0.3, 0.7)
        print(json.dumps([len(primitives.WAITING.loads) - len(rules.LOADS), g]))
    """, tmp_path)
    waiting, g = found
    assert waiting == 0 and g > 0


def test_asking_about_a_callable_registers_its_family(tmp_path):
    found = _run("""
        import json, sys, operator
        import numpy as np
        import revsrc
        from revsrc import primitives
        out = {}
        out["view"] = primitives.fact(np.sum, "view")          # copies (a fact alone)
        out["loaded"] = sorted(m.rsplit(".", 1)[1] for m in sys.modules
                               if m.startswith("revsrc.rules.") and m.endswith(
                                   ("copies", "linalg", "reductions", "batching")))
        out["det"] = primitives.lookup(np.linalg.det).name    # linalg, by a lookup
        out["batch"] = primitives.fact(operator.neg, "batch")  # batching, on arith's
        out["matmul_pure"] = primitives.fact(operator.matmul, "pure")
        def f(a):
            return np.sum(np.dot(a, a) * 2.0)
        a = np.arange(4.0).reshape(2, 2)
        out["grad"] = revsrc.grad(f)(a).tolist()
        out["expected"] = (2.0 * (np.ones((2, 2)) @ a.T + a.T @ np.ones((2, 2)))).tolist()
        out["records"] = len(primitives.records())
        out["waiting"] = len(primitives.WAITING.loads)
        print(json.dumps(out))
    """, tmp_path)
    assert found["view"] == "never"
    assert found["loaded"] == ["copies"]
    assert found["det"] == "det"
    assert found["batch"] == "elementwise"
    assert found["matmul_pure"] is False
    assert found["grad"] == found["expected"]
    assert found["waiting"] == 0 and found["records"] > 300


def test_a_users_rule_for_a_waiting_familys_function_wins(tmp_path):
    """A rule the user gives for np.linalg.det before any program used it replaces the
    family's, as when the family registered at import."""
    found = _run("""
        import json
        import numpy as np
        import revsrc
        def det_rule(g, ans, a):
            return g * 0.0 + 7.0
        revsrc.defvjp(np.linalg.det, det_rule)
        def f(a):
            return np.linalg.det(a)
        print(json.dumps(revsrc.grad(f)(np.eye(2)).tolist()))
    """, tmp_path)
    assert found == [[7.0, 7.0], [7.0, 7.0]]


def test_listing_the_table_registers_every_family(tmp_path):
    found = _run("""
        import json
        from revsrc import primitives, rules
        n = len(primitives.registered())
        print(json.dumps([n, len(primitives.WAITING.loads), len(primitives.WAITING.callables)]))
    """, tmp_path)
    n, waiting, index = found
    assert n > 250 and waiting == 0 and index == 0
