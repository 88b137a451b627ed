"""Round 12, part i: rebinding and state between calls -- globals, functions and derivative
objects rebound between calls of grad/jit/vmap; objects whose attributes change; default
arguments; closures made in loops."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, GD, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs12_util import VG, fdj

CASES = []
add = CASES.append

# -- a global coefficient rebound between calls ----------------------------------------
DRAG = 0.1


def fall(v):
    return v * v * DRAG + math.sin(v)


def rebind_global_grad():
    global DRAG
    df = revsrc.grad(fall)
    out = []
    for c in (0.1, 0.5, 2.0):
        DRAG = c
        out.append(df(1.3))
    DRAG = 0.1
    return out


add(pair("r12_global_float_rebound_grad", rebind_global_grad,
         lambda: [2 * 1.3 * c + math.cos(1.3) for c in (0.1, 0.5, 2.0)], tol=1e-14))


def rebind_global_jit():
    global DRAG
    jf = revsrc.jit(revsrc.grad(fall))
    out = []
    for c in (0.1, 0.5, 2.0):
        DRAG = c
        out.append(jf(1.3))
    DRAG = 0.1
    return out


add(pair("r12_global_float_rebound_jit", rebind_global_jit,
         lambda: [2 * 1.3 * c + math.cos(1.3) for c in (0.1, 0.5, 2.0)], tol=1e-14))


def rebind_global_vmap():
    global DRAG
    vf = revsrc.vmap(revsrc.grad(fall))
    xs = np.array([0.5, 1.3])
    out = []
    for c in (0.1, 3.0):
        DRAG = c
        out.append(vf(xs))
    DRAG = 0.1
    return out


add(pair("r12_global_float_rebound_vmap", rebind_global_vmap,
         lambda: [2 * np.array([0.5, 1.3]) * c + np.cos([0.5, 1.3]) for c in (0.1, 3.0)], tol=1e-14))

# -- a global array mutated in place between calls --------------------------------------
WEIGHTS = np.array([1.0, 2.0, 3.0])


def weighted(x):
    return np.sum(WEIGHTS * x ** 2)


def mutate_global_array():
    df = revsrc.grad(weighted)
    x = np.array([0.5, -0.2, 0.1])
    a = df(x)
    WEIGHTS[1] = 10.0
    b = df(x)
    WEIGHTS[1] = 2.0
    return [a, b]


add(pair("r12_global_array_mutated_inplace", mutate_global_array,
         lambda: [2 * np.array([1.0, 2.0, 3.0]) * np.array([0.5, -0.2, 0.1]),
                  2 * np.array([1.0, 10.0, 3.0]) * np.array([0.5, -0.2, 0.1])], tol=1e-15))

# a global list of floats mutated in place, read by a jitted function
TABLE = [0.5, 1.5, 2.5]


def poly_table(x):
    s = 0.0
    for c in TABLE:
        s = s * x + c
    return s


def mutate_global_list_jit():
    jf = revsrc.jit(revsrc.grad(poly_table))
    a = jf(0.7)
    TABLE[0] = 4.0
    b = jf(0.7)
    TABLE.append(1.0)
    c = jf(0.7)
    del TABLE[3]
    TABLE[0] = 0.5
    return [a, b, c]


add(pair("r12_global_list_mutated_jit", mutate_global_list_jit,
         lambda: [2 * 0.5 * 0.7 + 1.5, 2 * 4.0 * 0.7 + 1.5, 3 * 4.0 * 0.49 + 2 * 1.5 * 0.7 + 2.5], tol=1e-14))


# -- a helper function rebound between calls ---------------------------------------------
def act(x):
    return math.tanh(x)


def layer(x):
    return act(2.0 * x) + x


def rebind_helper():
    global act
    df = revsrc.grad(layer)
    a = df(0.3)
    old = act
    act = lambda x: x * x * x  # noqa: E731
    try:
        b = df(0.3)
    finally:
        act = old
    c = df(0.3)
    return [a, b, c]


add(pair("r12_helper_function_rebound", rebind_helper,
         lambda: [2 * (1 - math.tanh(0.6) ** 2) + 1, 3 * 0.36 * 2 + 1, 2 * (1 - math.tanh(0.6) ** 2) + 1], tol=1e-14))


def rebind_helper_jit():
    global act
    jf = revsrc.jit(revsrc.grad(layer))
    a = jf(0.3)
    old = act

    def cube(x):
        return x * x * x
    act = cube
    try:
        b = jf(0.3)
    finally:
        act = old
    return [a, b]


add(pair("r12_helper_function_rebound_jit", rebind_helper_jit,
         lambda: [2 * (1 - math.tanh(0.6) ** 2) + 1, 3 * 0.36 * 2 + 1], tol=1e-14))


# -- a derivative object stored in a global and rebound -----------------------------------
def inner_a(x):
    return x ** 3


def inner_b(x):
    return math.exp(x)


D_INNER = revsrc.grad(inner_a)


def uses_derivative(x):
    return D_INNER(x) * x


def rebind_derivative_global():
    global D_INNER
    df = revsrc.grad(uses_derivative)
    a = df(0.5)        # d/dx (3x^2 * x) = 9x^2
    D_INNER = revsrc.grad(inner_b)
    try:
        b = df(0.5)    # d/dx (e^x x) = e^x (1 + x)
    finally:
        D_INNER = revsrc.grad(inner_a)
    return [a, b]


add(pair("r12_derivative_object_rebound", rebind_derivative_global,
         lambda: [9 * 0.25, math.exp(0.5) * 1.5], tol=1e-14))


# -- objects whose attributes change between calls ----------------------------------------
class Spring:
    def __init__(self, k, rest):
        self.k = k
        self.rest = rest

    def energy(self, x):
        return 0.5 * self.k * (x - self.rest) ** 2


def attr_change_bound_method():
    s = Spring(2.0, 1.0)
    df = revsrc.grad(s.energy)
    a = df(1.5)
    s.k = 5.0
    s.rest = 0.0
    b = df(1.5)
    return [a, b]


add(pair("r12_bound_method_attr_changed", attr_change_bound_method, lambda: [1.0, 7.5], tol=1e-15))


def attr_change_jit():
    s = Spring(2.0, 1.0)
    jf = revsrc.jit(revsrc.grad(s.energy))
    a = jf(1.5)
    s.k = 5.0
    b = jf(1.5)
    s.rest = 2  # an int now
    c = jf(1.5)
    return [a, b, c]


add(pair("r12_bound_method_attr_changed_jit", attr_change_jit, lambda: [1.0, 2.5, -2.5], tol=1e-15))


def attr_array_change():
    class Net:
        def __init__(self):
            self.W = np.eye(2)

        def __call__(self, x):
            return np.sum(np.tanh(self.W @ x))
    net = Net()
    df = revsrc.grad(net)
    x = np.array([0.3, -0.4])
    a = df(x)
    net.W = np.array([[1.0, 2.0], [0.0, 1.0]])
    b = df(x)
    net.W[0, 1] = -1.0
    c = df(x)
    return [a, b, c]


def _aac_ref():
    x = np.array([0.3, -0.4])
    out = []
    for W in (np.eye(2), np.array([[1.0, 2.0], [0.0, 1.0]]), np.array([[1.0, -1.0], [0.0, 1.0]])):
        out.append(W.T @ (1 - np.tanh(W @ x) ** 2))
    return out


add(pair("r12_callable_object_array_attr_changed", attr_array_change, _aac_ref, tol=1e-15))


# -- default arguments -------------------------------------------------------------------
def with_default(x, scale=np.array([1.0, 2.0])):
    return np.sum(scale * x ** 2)


def mutate_default():
    df = revsrc.grad(with_default)
    x = np.array([1.0, 1.0])
    a = df(x)
    with_default.__defaults__[0][1] = 7.0
    b = df(x)
    with_default.__defaults__[0][1] = 2.0
    return [a, b]


add(pair("r12_mutable_default_changed", mutate_default, lambda: [np.array([2.0, 4.0]), np.array([2.0, 14.0])], tol=0.0))


def replace_defaults():
    def f(x, p=2.0):
        return x ** p
    df = revsrc.grad(f)
    a = df(1.5)
    f.__defaults__ = (3.0,)
    b = df(1.5)
    return [a, b]


add(pair("r12_defaults_tuple_replaced", replace_defaults, lambda: [3.0, 3 * 2.25], tol=1e-15))


# -- closures made in loops ------------------------------------------------------------
def closures_in_loop():
    out = []
    for k in (1.0, 2.0, 3.0):
        def f(x, k=k):
            return math.sin(k * x)
        out.append(revsrc.grad(f)(0.4))
    return out


add(pair("r12_closures_default_capture", closures_in_loop, lambda: [k * math.cos(k * 0.4) for k in (1.0, 2.0, 3.0)], tol=1e-15))


def closures_late_binding():
    fs = []
    for k in (1.0, 2.0, 3.0):
        def f(x):
            return math.sin(k * x)
        fs.append(revsrc.grad(f))
    return [df(0.4) for df in fs]   # all see k = 3.0 (Python's late binding)


add(pair("r12_closures_late_binding", closures_late_binding, lambda: [3 * math.cos(1.2)] * 3, tol=1e-15))


def closure_cell_rebound():
    c = 1.0

    def f(x):
        return c * x * x
    df = revsrc.grad(f)
    a = df(2.0)
    c = 5.0
    b = df(2.0)
    c = np.float64(0.5)
    d = df(2.0)
    return [a, b, d]


add(pair("r12_closure_cell_rebound", closure_cell_rebound, lambda: [4.0, 20.0, 2.0], tol=0.0))


def closure_cell_kind_changes():
    c = 1.0

    def f(x):
        return np.sum(c * x * x)
    df = revsrc.grad(f)
    x = np.array([1.0, 2.0])
    a = df(x)
    c = np.array([3.0, 4.0])
    b = df(x)
    return [a, b]


add(pair("r12_closure_cell_float_to_array", closure_cell_kind_changes, lambda: [np.array([2.0, 4.0]), np.array([6.0, 16.0])], tol=0.0))


# -- module-level counter state: the function reads a global that another call changes ---
CALLS = {"n": 0}


def reads_dict_global(x):
    return x * CALLS["n"]


def dict_global_changed():
    df = revsrc.grad(reads_dict_global)
    out = []
    for n in range(3):
        CALLS["n"] = n
        out.append(df(2.0))
    CALLS["n"] = 0
    return out


add(pair("r12_global_dict_item_changed", dict_global_changed, lambda: [0.0, 1.0, 2.0], tol=0.0))


def dict_global_changed_jit():
    jf = revsrc.jit(revsrc.grad(reads_dict_global))
    out = []
    for n in range(3):
        CALLS["n"] = n
        out.append(jf(2.0))
    CALLS["n"] = 0
    return out


add(pair("r12_global_dict_item_changed_jit", dict_global_changed_jit, lambda: [0.0, 1.0, 2.0], tol=0.0))


# -- vjp / linearize after the function's global changes -----------------------------------
SCALE = 2.0


def scaled(x):
    return SCALE * np.sin(x)


def linearize_then_rebind():
    global SCALE
    x = np.array([0.1, 0.2])
    y, lin = revsrc.linearize(scaled, x)
    t1 = lin(np.ones(2))
    SCALE = 3.0
    try:
        t2 = lin(np.ones(2))     # documented: E204 (the function reads another value now)
    finally:
        SCALE = 2.0
    return [t1, t2]


add(pair("r12_linearize_after_global_rebound", linearize_then_rebind,
         lambda: [2.0 * np.cos([0.1, 0.2]), 2.0 * np.cos([0.1, 0.2])], tol=1e-15))


def vjp_called_twice():
    x = np.array([0.1, 0.2])
    y, pull = revsrc.vjp(scaled, x)
    a = pull(np.ones(2))
    b = pull(np.array([2.0, 0.0]))
    return [y, a, b]


add(pair("r12_vjp_called_twice", vjp_called_twice,
         lambda: [2 * np.sin([0.1, 0.2]), (2 * np.cos([0.1, 0.2]),), (np.array([4 * np.cos(0.1), 0.0]),)], tol=1e-15))


# -- the argument object changed between jit calls (an int attribute used as a loop count) --
class Stepper:
    def __init__(self, n):
        self.n = n

    def run(self, x):
        for _ in range(self.n):
            x = x - 0.1 * math.sin(x)
        return x


def stepper_n_changes():
    s = Stepper(3)
    jf = revsrc.jit(revsrc.grad(s.run))
    a = jf(1.0)
    s.n = 5
    b = jf(1.0)
    return [a, b]


def _stepper_ref():
    out = []
    for n in (3, 5):
        x, d = 1.0, 1.0
        for _ in range(n):
            d *= 1 - 0.1 * math.cos(x)
            x = x - 0.1 * math.sin(x)
        out.append(d)
    return out


add(pair("r12_jit_method_int_attr_loopcount", stepper_n_changes, _stepper_ref, tol=1e-14))


def replace_kwdefaults():
    def f(x, *, p=2.0):
        return x ** p
    df = revsrc.grad(f)
    a = df(1.5)
    f.__kwdefaults__ = {"p": 3.0}
    b = df(1.5)
    return [a, b]


add(pair("r12_kwdefaults_replaced", replace_kwdefaults, lambda: [3.0, 3 * 2.25], tol=1e-15))


def replace_defaults_jit():
    def f(x, p=2.0):
        return x ** p
    jf = revsrc.jit(f)
    a = jf(1.5)
    f.__defaults__ = (4.0,)
    b = jf(1.5)
    return [a, b]


add(pair("r12_defaults_replaced_jit_value", replace_defaults_jit, lambda: [2.25, 1.5 ** 4], tol=1e-15))


def replace_defaults_value_and_grad():
    def f(x, p=2.0):
        return x ** p
    vg = revsrc.value_and_grad(f)
    a = vg(1.5)
    f.__defaults__ = (3.0,)
    b = vg(1.5)
    return [a, b]


add(pair("r12_defaults_replaced_value_and_grad", replace_defaults_value_and_grad,
         lambda: [(2.25, 3.0), (1.5 ** 3, 3 * 2.25)], tol=1e-15))
