"""Round 17, part l: Python styles and misuse across statistics, control, numerics,
geometry and ML -- generator functions and expressions, int-decided and value-decided
recursion, dict-of-arrays and nested parameters, dataclasses with static fields and
namedtuples, try/except in the user's code, global and attribute rebinding between
calls, arrays the caller mutates between calls, in-place writes to arguments, wrong
argnums, wrong shapes and has_aux misuse."""
import collections
import dataclasses
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

XS = np.array([0.3, -1.2, 0.8, 2.0, -0.1])
YS = np.array([1.0, 0.0, 1.0, 1.0, 0.0])


# -- generators ---------------------------------------------------------------------------

def minibatches(x, y, size):
    for i in range(0, len(x), size):
        yield x[i:i + size], y[i:i + size]


def batched_loss(w, x, y):
    total = 0.0
    for xb, yb in minibatches(x, y, 2):
        total += np.sum((w * xb - yb) ** 2)
    return total


# a generator function called in the loss: yield is refused (refusals.md E101)
add(G("r17l_generator_function_minibatches", batched_loss, (0.7, XS, YS), ref="fd", tol=1e-7))


def genexpr_kept(w, x):
    terms = (math.log1p(math.exp(w * v)) for v in x)
    return sum(terms)


add(G("r17l_genexpr_kept_consumed_once", genexpr_kept, (0.7, XS), ref="ag", tol=1e-12))


def genexpr_twice(w, x):
    g = (w * v * v for v in x)
    a = sum(g)
    b = sum(g)  # empty the second time, as in Python
    return a + 10.0 * b


add(G("r17l_genexpr_read_twice_empty", genexpr_twice, (0.7, XS), ref=lambda: float(np.sum(XS ** 2)), tol=1e-12))


def running_mean_gen(w, x):
    def smoothed():
        m = 0.0
        for v in x:
            m = 0.9 * m + 0.1 * w * v
            yield m
    return sum(smoothed())


add(G("r17l_nested_generator_def", running_mean_gen, (0.7, XS), ref="fd", tol=1e-7))


# -- recursion ------------------------------------------------------------------------------

def legendre(n, x):
    if n == 0:
        return 1.0
    if n == 1:
        return x
    return ((2 * n - 1) * x * legendre(n - 1, x) - (n - 1) * legendre(n - 2, x)) / n


add(G("r17l_legendre_int_recursion_argnums1", legendre, (6, 0.37), argnums=1, ref="ag", tol=1e-12))
add(H("r17l_legendre_int_recursion_hessian", lambda x: legendre(5, x), (0.37,), ref="ag", tol=1e-11))


def halve_until_small(x):
    if abs(x) < 1.0:
        return x * x
    return 2.0 * halve_until_small(x / 2.0)


# recursion whose depth a differentiated value decides: E103 (documented)
add(G("r17l_value_recursion_refused", halve_until_small, (5.0,), ref="fd", tol=1e-7))


def tree_sum(node, w):
    """A nested tuple tree of floats: recursion on structure known while transforming."""
    if isinstance(node, tuple):
        return sum(tree_sum(c, w) for c in node)
    return math.tanh(w * node)


TREE = (0.5, (1.0, -0.3), ((2.0,), 0.1))
add(G("r17l_recursion_over_nested_tuple", tree_sum, (TREE, 0.8), argnums=1, ref="fd", tol=1e-7))


# -- dict-of-arrays, nested params ---------------------------------------------------------------

def mlp(params, x):
    h = x
    for name in sorted(k for k in params if k.startswith("layer")):
        layer = params[name]
        h = np.tanh(h @ layer["W"] + layer["b"])
    return h @ params["head"]


NP = {
    "layer1": {"W": np.array([[0.5, -0.2, 0.1], [0.3, 0.8, -0.5]]), "b": np.array([0.0, 0.1, -0.1])},
    "layer0": {"W": np.array([[1.0, 0.2], [-0.3, 0.4]]), "b": np.array([0.05, -0.05])},
    "head": np.array([1.0, -1.0, 0.5]),
}
XB = np.array([[0.2, -0.4], [1.0, 0.3], [-0.6, 0.9]])


def mlp_loss(params, x, y):
    return np.mean((mlp(params, x) - y) ** 2)


add(G("r17l_nested_dict_sorted_keys", mlp_loss, (NP, XB, YS[:3]), ref="jax", tol=1e-11))


def l2_items(params):
    return sum(np.sum(v ** 2) for k, v in params.items() if k != "skip")


add(G("r17l_dict_items_filter_genexpr", l2_items, ({"a": np.array([1.0, 2.0]), "skip": np.array([5.0]), "c": 3.0},),
      ref=lambda: {"a": np.array([2.0, 4.0]), "skip": np.array([0.0]), "c": 6.0}, tol=0.0))


# -- dataclasses and namedtuples ------------------------------------------------------------------

@dataclasses.dataclass
class GLMParams:
    beta: np.ndarray
    log_phi: float
    link: str = dataclasses.field(default="log", metadata={"static": True})


def gamma_glm_nll(p, X, y):
    eta = X @ p.beta
    mu = np.exp(eta) if p.link == "log" else 1.0 / eta
    phi = math.exp(p.log_phi)
    k = 1.0 / phi
    return -np.sum(k * np.log(k * y / mu) - k * y / mu - np.log(y) - math.lgamma(k))


XD = np.column_stack([np.ones(5), XS])
YD = np.array([1.2, 0.4, 2.0, 3.5, 0.9])
PDC = GLMParams(np.array([0.2, 0.3]), -0.5)


def _glm_ref():
    def f(v):
        return gamma_glm_nll(GLMParams(v[:2], float(v[2])), XD, YD)
    g = fd_checked(f, (np.array([0.2, 0.3, -0.5]),))[0]
    return GLMParams(g[:2], g[2])


add(pair("r17l_dataclass_static_link_field", lambda: revsrc.grad(gamma_glm_nll)(PDC, XD, YD), _glm_ref, tol=1e-7))
# a second derivative with respect to a dataclass: E104 (documented)
add(pair("r17l_dataclass_hessian_refused", lambda: revsrc.hessian(gamma_glm_nll)(PDC, XD, YD), lambda: None))

State = collections.namedtuple("State", "pos vel")


def spring_energy(s, k=3.0, m=0.5):
    return 0.5 * k * np.sum(s.pos ** 2) + 0.5 * m * np.sum(s.vel ** 2)


def leapfrog(s, dt, steps, k=3.0, m=0.5):
    pos, vel = s
    for _ in range(steps):
        vel = vel - 0.5 * dt * k * pos / m
        pos = pos + dt * vel
        vel = vel - 0.5 * dt * k * pos / m
    return State(pos, vel)


def energy_drift(s0, dt):
    return spring_energy(leapfrog(s0, dt, 20)) - spring_energy(s0)


S0 = State(np.array([1.0, 0.0]), np.array([0.0, 0.5]))
add(G("r17l_namedtuple_state_unpack_return", energy_drift, (S0, 0.1), argnums=(0, 1), ref="fd", tol=1e-7))


# -- try/except in the user's code ---------------------------------------------------------------

def safe_log_lik(theta, data):
    total = 0.0
    for v in data:
        r = v - theta
        try:
            total += math.log(r)
        except ValueError:
            total += -10.0 + r
    return total


# the try body holds no loop: the path taken is differentiated (x > theta: 1/r; else 1)
add(G("r17l_try_except_inside_loop", safe_log_lik, (0.5, [1.0, 0.2, 2.0, -3.0]), ref="fd", tol=1e-7))


def try_with_loop(x):
    try:
        s = 0.0
        for k in range(3):
            s += x ** k
    except OverflowError:
        s = 0.0
    return s


add(G("r17l_try_body_with_loop_refused", try_with_loop, (1.5,), ref="fd", tol=1e-7))


def try_keyerror_default(params, x):
    try:
        scale = params["scale"]
    except KeyError:
        scale = 1.0
    return scale * np.sum(params["w"] * x)


add(G("r17l_try_keyerror_missing_key", try_keyerror_default, ({"w": np.array([1.0, 2.0])}, np.array([3.0, -1.0])),
      ref=lambda: {"w": np.array([3.0, -1.0])}, tol=0.0))
add(G("r17l_try_keyerror_present_key", try_keyerror_default, ({"w": np.array([1.0, 2.0]), "scale": 2.0}, np.array([3.0, -1.0])),
      ref=lambda: {"scale": 1.0, "w": np.array([6.0, -2.0])}, tol=0.0))


# -- state between calls ------------------------------------------------------------------------------

TEMPERATURE = 1.0
ACT = np.tanh


def tempered(x):
    return np.sum(ACT(x / TEMPERATURE) ** 2)


def _rebind_globals():
    global TEMPERATURE, ACT
    df = revsrc.grad(tempered)
    x = np.array([0.3, -0.7])
    out = [df(x)]
    TEMPERATURE = 2.0
    out.append(df(x))
    ACT = np.sin
    out.append(df(x))
    TEMPERATURE, ACT = 1.0, np.tanh
    return out


def _rebind_ref():
    x = np.array([0.3, -0.7])
    r = []
    for T_, act, dact in ((1.0, np.tanh, lambda u: 1 / np.cosh(u) ** 2), (2.0, np.tanh, lambda u: 1 / np.cosh(u) ** 2),
                          (2.0, np.sin, np.cos)):
        u = x / T_
        r.append(2 * act(u) * dact(u) / T_)
    return r


add(pair("r17l_global_rebinding_between_calls", _rebind_globals, _rebind_ref, tol=1e-12))


def _mutate_arg_between_calls():
    w = np.array([1.0, 2.0, 3.0])
    df = revsrc.grad(lambda v: np.sum(np.sin(v) * v))
    g1 = df(w)
    w[1] = -5.0
    g2 = df(w)
    return g1, g2


add(pair("r17l_caller_mutates_array_between_calls", _mutate_arg_between_calls,
         lambda: (np.sin([1.0, 2.0, 3.0]) + np.array([1.0, 2.0, 3.0]) * np.cos([1.0, 2.0, 3.0]),
                  np.sin([1.0, -5.0, 3.0]) + np.array([1.0, -5.0, 3.0]) * np.cos([1.0, -5.0, 3.0])), tol=1e-14))


class Scaler:
    def __init__(self, s):
        self.s = s

    def loss(self, x):
        return np.sum((self.s * x) ** 2)


def _attr_rebind():
    m = Scaler(2.0)
    df = revsrc.grad(m.loss)
    g1 = df(np.array([1.0, -1.0]))
    m.s = 3.0
    return g1, df(np.array([1.0, -1.0]))


add(pair("r17l_attribute_rebound_bound_method", _attr_rebind, lambda: (np.array([8.0, -8.0]), np.array([18.0, -18.0])), tol=0.0))


def _vjp_after_mutation():
    w = np.array([1.0, 2.0])
    out, back = revsrc.vjp(lambda v: np.sum(v ** 3), w)
    w[0] = 10.0
    return back(1.0)


# the caller changes the primal array in place after vjp: the pullback must be at the OLD
# point ([3, 12]) or refuse; the docs say E204 for an item of a container changed
add(pair("r17l_vjp_pullback_after_caller_mutation", _vjp_after_mutation, lambda: (np.array([3.0, 12.0]),), tol=1e-14))


def inplace_arg_write(x):
    x[0] = 0.0
    return np.sum(x ** 2)


add(G("r17l_inplace_write_to_argument_refused", inplace_arg_write, (np.array([1.0, 2.0]),), ref="fd", tol=1e-7))


def inplace_on_copy(x):
    y = x.copy()
    y[0] += 0.5 * y[1]
    y[1:] *= 2.0
    return np.sum(y ** 2)


add(G("r17l_inplace_on_copy", inplace_on_copy, (np.array([1.0, 2.0, -1.0]),), ref="fd", tol=1e-8))


def counter_closure():
    count = 0

    def f(x):
        nonlocal count
        count += 1
        return x * x
    return f


add(G("r17l_nonlocal_counter_refused", counter_closure(), (3.0,), ref=lambda: 6.0, tol=0.0))


@functools.lru_cache(maxsize=None)
def basis_coeffs(n):
    return tuple(1.0 / math.factorial(k) for k in range(n))


def exp_series(x, n=12):
    return sum(c * x ** k for k, c in enumerate(basis_coeffs(n)))


add(G("r17l_lru_cache_int_helper", exp_series, (0.8,), ref="ag", tol=1e-12))


# -- misuse: argnums, shapes, outputs -----------------------------------------------------------------

def two_arg(a, b):
    return a * b ** 2


add(G("r17l_argnums_out_of_range", two_arg, (1.0, 2.0), argnums=2, ref=lambda: 0.0, tol=0.0))
add(G("r17l_argnums_negative_index", two_arg, (1.0, 2.0), argnums=-1, ref=lambda: 4.0, tol=0.0))
add(G("r17l_grad_wrt_int_refused", two_arg, (1.0, 2), argnums=1, ref=lambda: 4.0, tol=0.0))
add(G("r17l_vector_output_refused", lambda x: x ** 2, (np.array([1.0, 2.0]),), ref=lambda: None, tol=0.0))
add(pair("r17l_jvp_tangent_wrong_shape", lambda: revsrc.jvp(lambda x: np.sum(x ** 2), (np.ones(3),), (np.ones(2),)),
         lambda: None))
add(pair("r17l_has_aux_not_a_pair", lambda: revsrc.grad(lambda x: x * x, has_aux=True)(3.0), lambda: None))
add(pair("r17l_argnums_tuple_duplicate", lambda: revsrc.grad(two_arg, argnums=(0, 0))(1.0, 2.0), lambda: (4.0, 4.0), tol=0.0))


def shape_bug(W, x):
    return np.sum(W @ x)


# W (2, 3) @ x (2,): NumPy raises ValueError in the plain call too; a refusal or that error
add(pair("r17l_matmul_shape_mismatch_plain_error", lambda: _raises_like_plain(shape_bug, np.ones((2, 3)), np.ones(2)),
         lambda: "same", tol=0.0))


def _raises_like_plain(f, *args):
    try:
        f(*args)
    except Exception as e:
        plain = type(e)
    try:
        revsrc.grad(f)(*args)
    except revsrc.RevsrcError:
        return "same"
    except Exception as e:
        return "same" if isinstance(e, plain) else f"{type(e).__name__}: {e}"
    return "no error"


# -- edge values ----------------------------------------------------------------------------------------

add(G("r17l_empty_array_grad", lambda x: np.sum(x ** 2) + 1.0, (np.zeros(0),), ref=lambda: np.zeros(0), tol=0.0))
add(G("r17l_0d_array_arg", lambda x: np.sin(x) * x, (np.array(0.5),), ref=lambda: np.array(math.sin(0.5) + 0.5 * math.cos(0.5)), tol=1e-15))
add(G("r17l_nan_input_propagates", lambda x: x * x + 1.0, (float("nan"),), ref=lambda: float("nan"), tol=0.0))
add(G("r17l_inf_input_exp_neg", lambda x: math.exp(-x), (float("inf"),), ref=lambda: -0.0, tol=0.0))
add(G("r17l_sorted_list_of_floats", lambda a, b, c: sorted([a * a, b, c])[1] * 2.0, (0.9, 0.5, 3.0), argnums=(0, 1, 2),
      ref=lambda: (3.6, 0.0, 0.0), tol=1e-15))
add(G("r17l_zip_star_unzip_pairs", lambda ps: sum(a * b for a, b in zip(*ps)), ([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]],),
      ref=lambda: [[0.5, -1.0, 2.0], [1.0, 2.0, 3.0]], tol=0.0))


# -- more state between calls ----------------------------------------------------------------------

W_GLOBAL = np.array([1.0, 2.0])


def weighted_sq(x):
    return np.sum(W_GLOBAL * x ** 2)


def _global_array_mutated(backend=None):
    def run():
        df = revsrc.grad(weighted_sq, backend=backend)
        a = df(np.array([1.0, 1.0]))
        W_GLOBAL[0] = 5.0
        try:
            b = df(np.array([1.0, 1.0]))
        finally:
            W_GLOBAL[0] = 1.0
        return a, b
    return run


add(pair("r17l_global_array_mutated_in_place_between_calls", _global_array_mutated(),
         lambda: (np.array([2.0, 4.0]), np.array([10.0, 4.0])), tol=0.0))
add(pair("r17l_global_array_mutated_in_place_backend_jax", _global_array_mutated("jax"),
         lambda: (np.array([2.0, 4.0]), np.array([10.0, 4.0])), tol=0.0))

CFG = {"k": 2.0}
COEFS = [1.0, 2.0]


def cfg_cubic(x):
    return CFG["k"] * x ** 3 + sum(c * x ** (i + 1) for i, c in enumerate(COEFS))


def _cfg_item_changes(wrap):
    def run():
        df = wrap(revsrc.grad(cfg_cubic))
        x = np.array([1.0, 2.0]) if wrap is revsrc.vmap else 1.0
        a = df(x)
        CFG["k"] = 3.0
        COEFS.append(3.0)
        try:
            b = df(x)
        finally:
            CFG["k"] = 2.0
            COEFS.pop()
        return a, b
    return run


def _cfg_ref(x):
    return (6.0 * x ** 2 + 1 + 4 * x, 9.0 * x ** 2 + 1 + 4 * x + 9 * x ** 2)


add(pair("r17l_global_dict_and_list_change_grad", _cfg_item_changes(lambda f: f), lambda: _cfg_ref(1.0), tol=1e-14))
add(pair("r17l_global_dict_and_list_change_jit", _cfg_item_changes(revsrc.jit), lambda: _cfg_ref(1.0), tol=1e-14))
add(pair("r17l_global_dict_and_list_change_vmap", _cfg_item_changes(revsrc.vmap), lambda: _cfg_ref(np.array([1.0, 2.0])), tol=1e-14))

SCALE = 2.0


def scaled_sq(x):
    return SCALE * np.sum(x ** 2)


def _vjp_global_rebound():
    global SCALE
    out, back = revsrc.vjp(scaled_sq, np.array([1.0, 2.0]))
    SCALE = 3.0
    try:
        return back(1.0)
    finally:
        SCALE = 2.0


# the pullback called after a global it reads was rebound: E204 (refusals.md)
add(pair("r17l_vjp_after_global_rebound_refused", _vjp_global_rebound, lambda: (np.array([4.0, 8.0]),)))


def _linearize_after_slice_zero():
    w = np.array([1.0, 2.0])
    y, fl = revsrc.linearize(lambda v: np.sum(v ** 3), w)
    w[:] = 0.0
    return y, fl(np.array([1.0, 1.0]))


add(pair("r17l_linearize_after_caller_zeroes_array", _linearize_after_slice_zero, lambda: (9.0, 15.0), tol=1e-14))


def pk(x, a=1.0):
    return a * x ** 2


def _partial_keywords_mutated():
    p = functools.partial(pk, a=2.0)
    df = revsrc.grad(p)
    r1 = df(3.0)
    p.keywords["a"] = 5.0
    return r1, df(3.0)


add(pair("r17l_partial_keywords_mutated_between_calls", _partial_keywords_mutated, lambda: (12.0, 30.0), tol=0.0))


class Lens:
    def __init__(self, f, d):
        self.f, self.d = f, d

    @property
    def power(self):
        return 1.0 / self.f

    def image(self, u):
        return 1.0 / (self.power - 1.0 / u)


class ThickLens(Lens):
    def image(self, u):
        return super().image(u) + self.d


def optics(f):
    L = ThickLens(f, 0.1)
    return L.image(3.0) ** 2


add(G("r17l_object_built_inside_property_super", optics, (1.5,), ref="fd", tol=1e-7))
add(H("r17l_object_built_inside_property_super_hessian", optics, (1.5,), ref="fd", tol=1e-5))


@dataclasses.dataclass(frozen=True)
class Seg:
    a: float
    b: float

    def length(self):
        return math.hypot(self.a, self.b)


def polyline(x):
    ss = [Seg(x, 1.0), Seg(2.0, x * x)]
    return sum(s.length() for s in ss)


# a list literal of frozen dataclass objects holding a differentiated value: E202
# (refusals.md E202 names it; "a tuple ... works")
add(G("r17l_dataclass_list_literal", polyline, (0.7,), ref="fd", tol=1e-7))


def polyline_tuple(x):
    ss = (Seg(x, 1.0), Seg(2.0, x * x))
    return sum(s.length() for s in ss)


add(G("r17l_dataclass_tuple_literal", polyline_tuple, (0.7,), ref="fd", tol=1e-7))


def polyline_tuple_for(x):
    t = 0.0
    for s in (Seg(x, 1.0), Seg(2.0, x * x)):
        t += s.length()
    return t


add(G("r17l_dataclass_tuple_literal_for", polyline_tuple_for, (0.7,), ref="fd", tol=1e-7))


def aux_loss(x):
    y = np.sum(np.sin(x) ** 2)
    return y, {"n": np.sqrt(y), "m": x * 2}


add(pair("r17l_vg_has_aux_dict_backend_jax", lambda: revsrc.value_and_grad(aux_loss, has_aux=True, backend="jax")(np.array([0.3, 1.0])),
         lambda: ((np.sum(np.sin([0.3, 1.0]) ** 2), {"m": np.array([0.6, 2.0]), "n": np.sqrt(np.sum(np.sin([0.3, 1.0]) ** 2))}),
                  np.sin(2 * np.array([0.3, 1.0]))), tol=1e-12))


def alias_augassign(x):
    a = x * 1.0
    b = a
    b += 1.0
    b *= x
    return np.sum(a ** 2)


add(G("r17l_alias_name_augassign", alias_augassign, (np.array([0.5, -1.0, 2.0]),), ref="fd", tol=1e-7))


def fmod_phase(x):
    return math.fmod(x, 0.3) * x


# math.fmod has no rule: E202 (refusals.md: a C function with no rule)
add(G("r17l_math_fmod_no_rule", fmod_phase, (1.37,), ref="fd", tol=1e-7))


def tolist_sorted(x):
    s = sorted(x.tolist())
    return s[0] * 3 + s[-1] ** 2


# .tolist() of a differentiated array: E202 (a method with no rule)
add(G("r17l_tolist_no_rule", tolist_sorted, (np.array([0.5, -1.0, 2.0]),), ref="fd", tol=1e-7))


def band_energy(x):
    t = 0.0
    for v in x:
        if -0.7 < v < 1.0:
            t += v ** 3
        elif v >= 1.0 or v == -1.0:
            t += 2 * v
    return t


# v == -1.0 exactly takes the elif: the path taken is differentiated (as autograd)
add(G("r17l_chained_comparisons_equality_branch", band_energy, (np.array([0.5, -1.0, 2.0]),), ref="ag", tol=1e-14))


def max_by_key(v):
    i = max(range(len(v)), key=lambda k: v[k])
    return v[i] ** 2


# a key lambda reading v: E101 (refusals.md)
add(G("r17l_max_key_lambda_refused", max_by_key, (np.array([0.1, 0.9, 0.3]),), ref=lambda: np.array([0.0, 1.8, 0.0]), tol=0.0))


# -- standard-library iteration helpers ------------------------------------------------------------

import itertools  # noqa: E402
import operator  # noqa: E402


def path_length_pairwise(P):
    return sum(np.linalg.norm(b - a) for a, b in itertools.pairwise(P))


# itertools.pairwise / accumulate, functools.reduce, iter/next: E202 (a standard-library
# function with no rule, refused at the call: refusals.md E202)
add(G("r17l_itertools_pairwise_path", path_length_pairwise, (np.array([[0.0, 0.0], [1.0, 0.5], [1.5, 2.0]]),), ref="fd", tol=1e-7))
add(G("r17l_path_length_zip_slices", lambda P: sum(np.linalg.norm(b - a) for a, b in zip(P[:-1], P[1:])),
      (np.array([[0.0, 0.0], [1.0, 0.5], [1.5, 2.0]]),), ref="fd", tol=1e-7))
add(G("r17l_itertools_accumulate_returns", lambda r: sum(itertools.accumulate(r * r)), (np.array([0.5, -1.2, 0.8]),), ref="fd", tol=1e-7))


def horner_reduce(c, x):
    return functools.reduce(lambda acc, a: acc * x + a, c, 0.0)


add(G("r17l_functools_reduce_horner", horner_reduce, (np.array([1.0, -2.0, 0.5]), 1.3), argnums=(0, 1), ref="fd", tol=1e-7))


def iter_next_header(x):
    it = iter(x)
    scale = next(it)
    return scale * sum(v * v for v in it)


add(G("r17l_iter_next_header", iter_next_header, (np.array([2.0, 0.5, -1.0]),), ref="fd", tol=1e-7))
add(G("r17l_walrus_in_genexpr", lambda x: sum((y := v * v) + y for v in x), (np.array([0.5, -1.0]),), ref="fd", tol=1e-7))


def a_star_unpack(x):
    a, *mid, b = x
    return a * b + sum(m ** 2 for m in mid)


add(G("r17l_star_unpack_array", a_star_unpack, (np.array([0.5, -1.2, 0.8, 2.0]),), ref="fd", tol=1e-7))
add(G("r17l_enumerate_start_reversed", lambda x: sum(k * v ** 3 for k, v in reversed(list(enumerate(x, 3)))),
      (np.array([0.5, -1.2, 0.8]),), ref="fd", tol=1e-7))
add(G("r17l_map_operator_mul", lambda x: sum(map(operator.mul, x, x[::-1])), (np.array([0.5, -1.2, 0.8]),), ref="fd", tol=1e-7))


def energy_terms(v, h):
    ke = 0.5 * v * v
    pe = 9.81 * h
    return sum([ke, pe, -0.1 * v * h])


# revsrc.jit of a scalar function summing a list literal: E502 "a list built in the function
# and read other than by sum" (it is read by sum)
add(EXACT("r17l_jit_sum_of_list_literal", lambda: revsrc.jit(energy_terms)(3.0, 2.0), lambda: energy_terms(3.0, 2.0)))


# -- overlapping in-place updates (NumPy reads the right-hand side whole first) ---------------------

def smooth_overlap(x):
    y = x * 1.0
    y[1:] += y[:-1]
    y += y[::-1]
    y[:-1] *= y[1:]
    return np.sum(y * np.arange(1.0, len(x) + 1))


XO = np.array([0.5, -0.8, 0.3, 1.2])
add(G("r17l_overlapping_inplace_updates", smooth_overlap, (XO,), ref="fd", tol=1e-7))
add(G("r17l_overlapping_inplace_updates_backend_jax", smooth_overlap, (XO,), ref="fd", tol=1e-7, backend="jax"))
add(H("r17l_overlapping_inplace_updates_hessian", smooth_overlap, (XO,), ref="fd", tol=1e-5))
add(JV("r17l_overlapping_inplace_updates_jvp", smooth_overlap, (XO,), (np.array([0.3, -1.0, 0.7, 0.2]),), tol=1e-7))


def alias_chain(x):
    a = b = np.zeros(3)
    a[0] = x[0]
    a[1:] = x[1:] ** 2
    M = np.zeros((2, 3))
    r = M[0]
    M = M * 1.0
    r[0] = x[0]
    d = {"a": np.zeros(3)}
    e = d["a"]
    e[1] = x[1]
    return np.sum(b * x) + np.sum(M) + r[0] * x[0] + np.sum(d["a"] * x)


add(G("r17l_alias_chain_views_and_dicts", alias_chain, (np.array([1.0, 2.0, 3.0]),), ref=lambda: np.array([4.0, 16.0, 27.0]), tol=1e-14))


# -- jit and vmap with ints, bools, float32 ------------------------------------------------------------

def damped_or_square(x):
    return math.exp(-x * x) * math.cos(3.0 * x) if x > 0 else x * x


X32 = np.array([0.1, 0.5, -0.3], np.float32)
# vmap.md says float32 arrays are refused (E502); refusals.md says they map by calling the
# function on each element: the digits of the per-element calls either way
add(EXACT("r17l_vmap_float32_elementwise_digits", lambda: revsrc.vmap(damped_or_square)(X32),
          lambda: np.array([damped_or_square(v) for v in X32], dtype=float)))
add(EXACT("r17l_vmap_grad_float32_elementwise_digits", lambda: revsrc.vmap(revsrc.grad(damped_or_square))(X32),
          lambda: np.array([revsrc.grad(damped_or_square)(v) for v in X32], dtype=np.float32)))


def taylor_term(n, x):
    return x ** n / math.factorial(n)


add(EXACT("r17l_vmap_grad_int_in_axes", lambda: revsrc.vmap(revsrc.grad(taylor_term, argnums=1), in_axes=(0, None))(np.array([1, 2, 3]), 0.5),
          lambda: np.array([1.0, 0.5, 0.125])))


def flag_branch(flag, x):
    return x * x if flag else -x


add(EXACT("r17l_vmap_grad_bool_in_axes", lambda: revsrc.vmap(revsrc.grad(flag_branch, argnums=1), in_axes=(0, None))(np.array([True, False, True]), 0.5),
          lambda: np.array([1.0, -1.0, 1.0])))
add(EXACT("r17l_jit_value_and_grad", lambda: revsrc.jit(revsrc.value_and_grad(damped_or_square))(0.3),
          lambda: revsrc.value_and_grad(damped_or_square)(0.3)))
add(EXACT("r17l_jit_int_recursion_legendre", lambda: revsrc.jit(legendre)(7, 0.3), lambda: legendre(7, 0.3)))
add(pair("r17l_vmap_grad_int_recursion_legendre", lambda: revsrc.vmap(revsrc.grad(legendre, argnums=1), in_axes=(None, 0))(5, np.array([0.1, 0.3])),
         lambda: np.array([ag()[0].grad(agify(legendre), 1)(5, v) for v in (0.1, 0.3)]), tol=1e-13))


# -- one derivative called with changing argument kinds and defaults ---------------------------------

def cubic_energy(x, a=2.0):
    return a * np.sum(np.asarray(x) ** 3)


def _kinds_sequence():
    df = revsrc.grad(cubic_energy)
    out = [df(2.0), df(np.array(2.0)), df(np.array([1.0, 2.0])), df(np.array([[1.0], [2.0]])), df([1.0, 2.0]),
           df((1.0, 2.0)), df(2.0, a=3.0), df(2.0, 3.0)]
    cubic_energy.__defaults__ = (5.0,)
    try:
        out.append(df(2.0))
    finally:
        cubic_energy.__defaults__ = (2.0,)
    out.append(df(2.0))
    return out


add(pair("r17l_argument_kinds_and_defaults_between_calls", _kinds_sequence,
         lambda: [24.0, np.array(24.0), np.array([6.0, 24.0]), np.array([[6.0], [24.0]]), [6.0, 24.0], (6.0, 24.0), 36.0, 36.0, 60.0, 24.0],
         tol=1e-14))


def geometric_partial(x, n=3):
    s = 0.0
    for k in range(n):
        s = s + x ** k
    return s


add(pair("r17l_int_trip_count_changes_between_calls",
         lambda: [revsrc.grad(geometric_partial)(2.0, m) for m in (3, 5, 0, 3)] + [revsrc.hessian(geometric_partial)(2.0, 4)],
         lambda: [5.0, 49.0, 0.0, 5.0, 14.0], tol=1e-14))
