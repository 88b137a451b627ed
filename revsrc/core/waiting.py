"""Registrations that wait until a question first names one of their callables.

``import revsrc`` registered every rule family (revsrc/rules/), though a program on
numbers calls none of the functions of most of them (np.linalg's, the shape and
indexing functions, the reductions): their modules and records were a fifth of the
import. Such a family waits instead: the rule table (revsrc/primitives.py) runs its
registration when a lookup first meets a callable it defines, a fact it declares is
first asked of one of its callables, or a record it extends is named; and before
anything that lists the whole table.

What a family touches is known ahead by name (revsrc/rules/index.py, which a test
keeps complete: it may list more, never less than registering the family does): a callable by its `name_key`, its
module and name. Callables may share a key (``np.add.reduce`` and
``np.maximum.reduce``): a family is then registered for a callable it lacks, which
costs time, never a different answer. Registering in any order gives the same table,
since no two families define the same callable or declare the same fact of one
(tests/test_waiting_rules.py checks both); a registration running makes no other wait
(its own declarations of other families' callables are kept as facts alone until
those register, as when every family registered at import).
"""

import threading

__all__ = ["Waiting", "name_key"]


def name_key(fn):
    """(module, name) of a callable, or None where asking raises."""
    try:
        return (getattr(fn, "__module__", None), getattr(fn, "__name__", None))
    except Exception:  # pragma: no cover - an object whose attributes raise
        return None


class Waiting:
    """The registrations still waiting, indexed by what they touch."""

    def __init__(self):
        self.loads = []          # registrations not run yet, in the order given
        self.callables = {}      # name key -> [load] of those defining such a callable
        self.facts = {}          # fact -> {name key -> [load]} of those declaring it
        self.records = {}        # record name -> [load] of those defining or extending it
        self.running = False     # a registration is running (in the thread holding lock)
        # another thread asking meanwhile waits for it to finish, not for a half table
        self.lock = threading.RLock()

    def add(self, load, records, callables, facts):
        self.loads.append(load)
        for name in records:
            self.records.setdefault(name, []).append(load)
        for key in callables:
            self.callables.setdefault(key, []).append(load)
        for fact, keys in facts.items():
            index = self.facts.setdefault(fact, {})
            for key in keys:
                index.setdefault(key, []).append(load)

    def for_callable(self, fn):
        """Run the registrations that define a callable like ``fn``; whether any ran."""
        return self._run(_get(self.callables, name_key(fn)))

    def for_fact(self, fn, fact):
        index = self.facts.get(fact)
        return bool(index) and self._run(_get(index, name_key(fn)))

    def for_record(self, name):
        return self._run(self.records.get(name, ()))

    def everything(self):
        return self._run(list(self.loads))

    def _run(self, loads):
        if not loads:
            return False
        with self.lock:
            if self.running:
                return False
            ran = False
            for load in list(loads):
                if load in self.loads:
                    self.loads.remove(load)
                    self.running = True
                    try:
                        load()
                    finally:
                        self.running = False
                    ran = True
            if not self.loads:
                self.callables.clear()
                self.facts.clear()
                self.records.clear()
            return ran


def _get(index, key):
    try:
        return index.get(key, ())
    except TypeError:   # a module or name that does not hash: no family has it
        return ()
