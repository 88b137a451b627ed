"""User programs, corpus 6l: more vmap axes (out_axes None, nested trees, negative
axes through derivatives), memory= with writes, steps and breaks (documented to stay
stored), callables and dataclasses under vmap / hessian.  References: JAX x64,
central differences, plain Python."""
import dataclasses

import numpy as np

import revsrc
from user_programs6_harness import adder, fd_grad, fd_hess, jax, jaxify

CASES = []
RNG = np.random.default_rng(71)


J = jax


add = adder(CASES)


M = RNG.normal(size=(4, 3))


def with_constant(x, c):
    return np.sin(x) * 2.0, c * 3.0


add("ax_out_axes_none_unbatched_output",
    lambda: revsrc.vmap(with_constant, in_axes=(0, None), out_axes=(0, None))(M, 1.5),
    lambda: J().vmap(jaxify(with_constant), in_axes=(0, None), out_axes=(0, None))(M, 1.5))


def nested_out(x):
    return {"a": (x * 2.0, np.sum(x)), "b": [x[:2] ** 2]}


add("ax_out_axes_nested_tree",
    lambda: revsrc.vmap(nested_out, out_axes={"a": (1, 0), "b": [-1]})(M),
    lambda: J().vmap(jaxify(nested_out), out_axes={"a": (1, 0), "b": [-1]})(M))


def quad(x, A):
    return x @ A @ x


A3 = np.array([[2.0, 0.3, 0.0], [0.3, 1.0, -0.2], [0.0, -0.2, 3.0]])
add("ax_vmap_grad_in_axes_minus1",
    lambda: revsrc.vmap(revsrc.grad(quad), in_axes=(-1, None))(M.T, A3),
    lambda: J().vmap(J().grad(jaxify(quad)), in_axes=(-1, None))(M.T, A3))
add("ax_vmap_hessian_out_axes_2",
    lambda: revsrc.vmap(revsrc.hessian(lambda x: np.sum(np.sin(x) * x[::-1])), out_axes=2)(M),
    lambda: J().vmap(J().hessian(lambda x: J().numpy.sum(J().numpy.sin(x) * x[::-1])), out_axes=2)(M))
add("ax_vmap_value_and_grad_out_axes_tuple",
    lambda: revsrc.vmap(revsrc.value_and_grad(quad), in_axes=(0, None), out_axes=(0, 1))(M, A3),
    lambda: J().vmap(J().value_and_grad(jaxify(quad)), in_axes=(0, None), out_axes=(0, 1))(M, A3))
add("ax_vmap_axis_size_grad_in_axes_none",
    lambda: revsrc.vmap(revsrc.grad(quad), in_axes=(None, None), axis_size=3)(M[0], A3),
    lambda: J().vmap(J().grad(jaxify(quad)), in_axes=(None, None), axis_size=3)(M[0], A3))
add("ax_vmap_jacrev_in_axes_1",
    lambda: revsrc.vmap(revsrc.jacrev(lambda x: np.cumsum(x) * x), in_axes=1)(M),
    lambda: J().vmap(J().jacrev(lambda x: J().numpy.cumsum(x) * x), in_axes=1)(M))


class Scorer:
    def __init__(self, w):
        self.w = w

    def __call__(self, x):
        return np.tanh(np.dot(self.w, x))


SC = Scorer(np.array([0.5, -1.0, 0.3]))
add("ax_vmap_callable_object", lambda: revsrc.vmap(SC)(M), lambda: np.array([SC(r) for r in M]), tol=1e-13)
add("ax_vmap_grad_callable_object", lambda: revsrc.vmap(revsrc.grad(SC))(M),
    lambda: np.stack([fd_grad(SC, (r,), {}, 0)[0] for r in M]), tol=1e-6)


@dataclasses.dataclass
class Lin:
    w: np.ndarray
    b: float


def lin_loss(p, x, y):
    return (np.dot(p.w, x) + p.b - y) ** 2


PL = Lin(np.array([0.1, 0.2, -0.3]), 0.5)
YY = RNG.normal(size=4)
add("ax_vmap_grad_dataclass_params",
    lambda: revsrc.vmap(revsrc.grad(lin_loss), in_axes=(None, 0, 0))(PL, M, YY),
    lambda: [np.stack([fd_grad(lin_loss, (PL, x, y), {}, 0)[0] for x, y in zip(M, YY)]),
             np.array([fd_grad(lin_loss, (PL, x, y), {}, 0)[1] for x, y in zip(M, YY)])], tol=1e-6)
add("ax_hessian_dataclass_documented_E104", lambda: revsrc.hessian(lin_loss)(PL, M[0], 1.0),
    lambda: J().hessian(lambda w, b: (J().numpy.dot(w, M[0]) + b - 1.0) ** 2, argnums=(0, 1))(PL.w, PL.b))

# -- memory= with loops documented to stay stored ----------------------------------------------------


def mem_item_writes(v):
    buf = np.zeros((200, 2))
    x = v
    for i in range(200):
        x = x + 0.01 * np.array([x[1], -x[0]])
        buf[i] = x
    return np.sum(buf ** 2)


def mem_step_loop(x):
    s = 0.0
    for i in range(0, 3000, 3):
        s = s + np.sin(x * i * 1e-3) * 1e-3
    return s


def mem_method_call_loop(x):
    s = np.zeros(2)
    for i in range(500):
        s = (s + x * 0.01).clip(-5.0, 5.0)
    return s.sum()


def mem_break_arrays_hessian(v):
    x = v * 1.0
    for i in range(1000):
        x = x - 0.01 * np.sin(x)
        if np.sum(x * x) < 1e-2:
            break
    return np.sum(x ** 3)


V2 = np.array([1.2, -0.7])
for _name, _f, _a in [("item_writes", mem_item_writes, V2), ("step", mem_step_loop, 0.8),
                      ("method_call", mem_method_call_loop, V2), ("break_arrays", mem_break_arrays_hessian, V2)]:
    add("mem2_" + _name, (lambda f=_f, a=_a: revsrc.grad(f, memory=300)(a)),
        (lambda f=_f, a=_a: fd_grad(f, (a,), {}, 0)), tol=1e-6)
    add("mem2_" + _name + "_bits", (lambda f=_f, a=_a: revsrc.grad(f, memory=300)(a)),
        (lambda f=_f, a=_a: revsrc.grad(f)(a)), tol=0.0)

add("mem2_hessian_break_arrays", lambda: revsrc.hessian(mem_break_arrays_hessian, memory=300)(V2),
    lambda: fd_hess(mem_break_arrays_hessian, (V2,), {}, 0, 1e-4), tol=1e-5)


def jit_while(x):
    y = x
    n = 0
    while y > 1e-3:
        y = y * 0.99 - 1e-4
        n += 1
    return y + n


add("mem2_jit_memory_while_exact", lambda: revsrc.jit(jit_while, memory=64)(3.0), lambda: jit_while(3.0), tol=0.0)
add("mem2_grad_memory_while_int_counter", lambda: revsrc.grad(jit_while, memory=64)(3.0),
    lambda: J().grad(jaxify(jit_while))(3.0), tol=1e-9)


def mem_kwargs_only(x, *, steps, rate):
    for _ in range(steps):
        x = x - rate * np.tanh(x)
    return np.sum(x)


add("mem2_keyword_only_arrays", lambda: revsrc.grad(mem_kwargs_only, memory=200)(V2, steps=700, rate=0.01),
    lambda: fd_grad(mem_kwargs_only, (V2,), {"steps": 700, "rate": 0.01}, 0), tol=1e-6)
add("mem2_memory_string_units", lambda: [revsrc.grad(mem_kwargs_only, memory=m)(V2, steps=300, rate=0.02)
                                         for m in ("1kB", "0.001MB", "2KiB", 10 ** 9)],
    lambda: [revsrc.grad(mem_kwargs_only)(V2, steps=300, rate=0.02)] * 4, tol=0.0)
