"""Round 8 user programs, batch u: backend="jax" on loops that carry containers or
write single items (a list appended in a 40-step loop, a dict state rebuilt each
step, a while writing an item, items chosen by i % 3, a fancy one-item index,
memory=), against the default backend's gradient or a closed form; a refusal whose
text names revsrc's internals (an op name, primitives.define) is reported as a crash."""
import numpy as np

import revsrc
from user_programs7_harness import pair  # noqa: F401

CASES = []
add = CASES.append
XU = np.array([0.3, -0.2, 0.5])
_INTERNAL_WORDS = ("make_dict", "primitives.define", "its record")


def _plain_refusals(thunk):
    def run():
        try:
            return thunk()
        except revsrc.RevsrcError as e:
            if any(w in str(e) for w in _INTERNAL_WORDS):
                raise RuntimeError("refusal names internals: " + str(e).splitlines()[0] + " / "
                                   + str(e).splitlines()[-1].strip()) from None
            raise
    return run


def same(name, f, args, ref=None, tol=1e-9, **kw):
    add(pair(name, _plain_refusals(lambda: revsrc.grad(f, backend="jax", **kw)(*args)),
             ref or (lambda: revsrc.grad(f)(*args)), tol=tol))


def list_append_40(x):
    out = []
    for i in range(40):
        x = x * 0.95 + 0.01
        out.append(np.sum(x))
    return sum(out)


same("r8_jax_list_append_in_40_step_loop", list_append_40, (XU,))


def dict_state_40(x):
    s = {"a": x, "b": 0.0}
    for _ in range(40):
        s = {"a": s["a"] * 0.9, "b": s["b"] + np.sum(s["a"])}
    return s["b"]


same("r8_jax_dict_state_rebuilt_40_steps", dict_state_40, (XU,))


def while_item_write(x):
    u = x.copy()
    while u[0] < 5.0:
        u[0] = u[0] * 1.5 + 0.1
    return np.sum(u)


same("r8_jax_while_item_write", while_item_write, (np.array([0.3, 1.0, 2.0]),))


def modulo_items_40(x):
    u = x.copy()
    for i in range(40):
        u[i % 3] = u[i % 3] * 0.99
    return np.sum(u)


same("r8_jax_items_by_modulo_40_steps", modulo_items_40, (XU,), ref=lambda: np.full(3, 0.99 ** (40 / 3)) * 0 + np.array([0.99 ** 14, 0.99 ** 13, 0.99 ** 13]))


def fancy_item_40(x):
    u = x.copy()
    for _ in range(40):
        u[np.array([0])] = u[1] * 0.5
    return np.sum(u)


same("r8_jax_fancy_one_item_write_40_steps", fancy_item_40, (XU,), ref=lambda: np.array([0.0, 1.5, 1.0]))


def item_copy_memory(x):
    u = x.copy()
    for _ in range(40):
        u[0] = u[1]
    return np.sum(u)


same("r8_jax_item_write_scanned_with_memory", item_copy_memory, (XU,), ref=lambda: np.array([0.0, 2.0, 1.0]), memory="1KB")


def full_slice_40(x):
    u = np.zeros(3)
    for _ in range(40):
        u[:] = u * 0.5 + x
    return np.sum(u)


same("r8_jax_full_slice_write_40_steps", full_slice_40, (XU,), ref=lambda: np.full(3, 2.0 * (1 - 0.5 ** 40)))


def one_slice_40(x):
    u = x.copy()
    for _ in range(40):
        u[0:1] = u[1:2] * 0.5
    return np.sum(u)


same("r8_jax_one_element_slice_write_40_steps", one_slice_40, (XU,), ref=lambda: np.array([0.0, 1.5, 1.0]))
