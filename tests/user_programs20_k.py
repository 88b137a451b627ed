"""Round 20, part k: Python styles not yet common -- nested closures returning closures,
class hierarchies with super() and properties, __getitem__/__len__ on user containers,
generators and itertools chains (chain, accumulate, pairwise, product, starmap, islice),
dict and set comprehensions, string-keyed configuration dicts, early returns and guard
clauses, global counters, functools.reduce and partial, operator helpers, on small real
programs (pharmacokinetics, springs, portfolio risk, logistic losses)."""
import functools
import itertools
import math
import operator

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401

CASES = []
add = CASES.append

_rng = np.random.default_rng(2011)


# -- closures returning closures -----------------------------------------------------------

def make_pk_model(dose):
    # one-compartment oral dosing: returns a function of the rates that returns a function of t
    def with_rates(ka, ke):
        def conc(t):
            return dose * ka / (ka - ke) * (math.exp(-ke * t) - math.exp(-ka * t))
        return conc
    return with_rates


PK = make_pk_model(100.0)
TIMES = (0.5, 1.0, 2.0, 4.0, 8.0)
OBS_C = (30.0, 45.0, 48.0, 35.0, 15.0)


def pk_sse(rates):
    c = PK(rates[0], rates[1])
    return sum((c(t) - o) ** 2 for t, o in zip(TIMES, OBS_C))


add(VG("r20k_pk_closure_of_closure", pk_sse, (np.array([1.2, 0.2]),), ref="ag", tol=1e-9))
add(H("r20k_pk_closure_of_closure_hessian", pk_sse, (np.array([1.2, 0.2]),), ref="ag", tol=1e-7))


def pk_sse_inner(rates, dose=100.0):
    # the closure factory used inside the function being differentiated
    model = make_pk_model(dose)(rates[0], rates[1])
    return sum((model(t) - o) ** 2 for t, o in zip(TIMES, OBS_C))


add(G("r20k_pk_closure_factory_inside", pk_sse_inner, (np.array([1.2, 0.2]),), ref="ag", tol=1e-9))
add(G("r20k_pk_closure_factory_wrt_dose", pk_sse_inner, (np.array([1.2, 0.2]), 90.0), argnums=1, ref="ag", tol=1e-9))


def compose(*fs):
    def composed(x):
        for f in reversed(fs):
            x = f(x)
        return x
    return composed


def scaler(a):
    return lambda x: a * x


def shifter(b):
    return lambda x: x + b


PIPE = compose(math.tanh, scaler(1.7), shifter(-0.3), math.sin)
add(G("r20k_compose_star_closures_module_level", PIPE, (0.8,), ref="fd", tol=1e-9))


def pipeline_loss(x):
    f = compose(np.tanh, scaler(1.7), shifter(-0.3), np.sin)
    return np.sum(f(x) ** 2)


add(G("r20k_compose_star_closures_inside", pipeline_loss, (np.array([0.8, -0.2, 1.5]),), ref="ag", tol=1e-12))


def make_counter_loss():
    calls = {"n": 0}

    def loss(w):
        calls["n"] += 1
        return np.sum(w ** 3)
    return loss, calls


LOSS_C, CALLS = make_counter_loss()
add(G("r20k_closure_counter_dict_mutation", LOSS_C, (np.array([1.0, 2.0]),), ref=lambda: 3 * np.array([1.0, 2.0]) ** 2,
      tol=1e-12))


# -- global counters -----------------------------------------------------------------------
N_EVALS = 0


def counted_rosenbrock(x):
    global N_EVALS
    N_EVALS += 1
    return sum(100.0 * (b - a * a) ** 2 + (1 - a) ** 2 for a, b in zip(x[:-1], x[1:]))


add(G("r20k_global_counter_statement", counted_rosenbrock, (np.array([0.5, 1.2, -0.3]),), ref="ag", tol=1e-12))

SCALE = 2.0


def scaled_energy(x):
    return SCALE * np.sum(x * x)


def _rebind_scale_then_grad():
    global SCALE
    g1 = revsrc.grad(scaled_energy)
    a = g1(np.array([1.0, 2.0]))
    SCALE = 3.0
    try:
        b = g1(np.array([1.0, 2.0]))
    finally:
        SCALE = 2.0
    return a, b


add(pair("r20k_global_rebound_between_calls", _rebind_scale_then_grad,
         lambda: (np.array([4.0, 8.0]), np.array([6.0, 12.0])), tol=0.0))


# -- user containers -----------------------------------------------------------------------
class SpringChain:
    def __init__(self, stiffness, rest):
        self.k = stiffness
        self.rest = rest

    def __len__(self):
        return len(self.k)

    def __getitem__(self, i):
        return self.k[i], self.rest[i]


def chain_energy(x, chain):
    e = 0.0
    for i in range(len(chain)):
        k, L = chain[i]
        e += 0.5 * k * (x[i + 1] - x[i] - L) ** 2
    return e


CHAIN = SpringChain(np.array([1.0, 2.0, 1.5]), np.array([1.0, 0.8, 1.2]))
XC = np.array([0.0, 1.1, 1.7, 3.0])
add(G("r20k_user_container_getitem_len_argument", chain_energy, (XC, CHAIN), ref="ag", tol=1e-12))


def chain_energy_inside(x, k):
    chain = SpringChain(k, np.array([1.0, 0.8, 1.2]))
    return sum(0.5 * chain[i][0] * (x[i + 1] - x[i] - chain[i][1]) ** 2 for i in range(len(chain)))


add(G("r20k_user_container_built_inside_wrt_k", chain_energy_inside, (XC, np.array([1.0, 2.0, 1.5])), argnums=1,
      ref="ag", tol=1e-12))


class Polynomial:
    def __init__(self, coefs):
        self.coefs = coefs

    def __len__(self):
        return len(self.coefs)

    def __getitem__(self, i):
        return self.coefs[i]

    def __call__(self, x):
        acc = 0.0
        for c in reversed(self.coefs):
            acc = acc * x + c
        return acc

    def __add__(self, other):
        n = max(len(self), len(other))
        return Polynomial([(self[i] if i < len(self) else 0.0) + (other[i] if i < len(other) else 0.0)
                           for i in range(n)])


def poly_sum_at(c, x=0.7):
    p = Polynomial([c[0], c[1], c[2]])
    q = Polynomial([1.0, -c[0]])
    return (p + q)(x) ** 2


add(G("r20k_polynomial_add_call_dunder", poly_sum_at, (np.array([0.3, -1.0, 2.0]),), ref="fd", tol=1e-9))


def poly_add_named(c, x=0.7):
    p = Polynomial([c[0], c[1], c[2]])
    q = Polynomial([1.0, -c[0]])
    r = p + q
    return r(x) ** 2


def poly_call_only(c, x=0.7):
    p = Polynomial([c[0], c[1], c[2]])
    return p(x) ** 2 + len(p) * p[1]


add(G("r20k_polynomial_add_named_then_call", poly_add_named, (np.array([0.3, -1.0, 2.0]),), ref="fd", tol=1e-9))
add(G("r20k_polynomial_call_len_getitem", poly_call_only, (np.array([0.3, -1.0, 2.0]),), ref="fd", tol=1e-9))


class Layer:
    def __init__(self, W, b):
        self.W, self.b = W, b

    def act(self, z):
        return z

    def __call__(self, h):
        return self.act(h @ self.W + self.b)


class TanhLayer(Layer):
    def act(self, z):
        return np.tanh(super().act(z))


class ResidualTanh(TanhLayer):
    def __call__(self, h):
        return h + super().__call__(h)


def mlp_loss(params, X, y):
    layers = [ResidualTanh(params["W1"], params["b1"]), TanhLayer(params["W2"], params["b2"]), Layer(params["W3"], 0.0)]
    h = X
    for layer in layers:
        h = layer(h)
    return np.mean((h[:, 0] - y) ** 2)


PRM = {"W1": 0.5 * _rng.normal(size=(3, 3)), "b1": np.zeros(3), "W2": 0.5 * _rng.normal(size=(3, 4)),
       "b2": 0.1 * np.ones(4), "W3": 0.5 * _rng.normal(size=(4, 1))}
XM = _rng.normal(size=(6, 3))
YM = np.sin(XM[:, 0])


def _mlp_jax():
    return jax().grad(jaxify(mlp_loss))(PRM, XM, YM)


add(G("r20k_class_hierarchy_three_levels_super", mlp_loss, (PRM, XM, YM), ref="fd", tol=1e-8))


# -- itertools and generators --------------------------------------------------------------

def piecewise_path_length(pts):
    return sum(math.hypot(b[0] - a[0], b[1] - a[1]) for a, b in itertools.pairwise(pts))


PTS = np.array([[0.0, 0.0], [1.0, 0.5], [1.5, 2.0], [3.0, 2.2]])
add(G("r20k_itertools_pairwise_path_length", piecewise_path_length, (PTS,), ref="ag", tol=1e-12))


def cumulative_wealth(returns, fee=0.001):
    growth = itertools.accumulate((1.0 + r - fee for r in returns), operator.mul)
    return sum(math.log(g) for g in growth)


add(G("r20k_itertools_accumulate_operator_mul", cumulative_wealth, (np.array([0.02, -0.01, 0.03, 0.005]),),
      ref="fd", tol=1e-9))


def pair_potential(x):
    # Lennard-Jones over all pairs from itertools.combinations
    e = 0.0
    for i, j in itertools.combinations(range(len(x)), 2):
        r = abs(x[i] - x[j])
        e += 4.0 * ((1.0 / r) ** 12 - (1.0 / r) ** 6)
    return e


XLJ = np.array([0.0, 1.12, 2.3, 3.35])
add(G("r20k_itertools_combinations_lennard_jones", pair_potential, (XLJ,), ref="ag", tol=1e-10))


def grid_energy(w):
    # itertools.product over a 3 x 3 stencil
    return sum(w[i] * w[j] * math.cos(i - j) for i, j in itertools.product(range(3), repeat=2))


add(G("r20k_itertools_product_repeat", grid_energy, (np.array([0.5, -1.0, 2.0]),), ref="ag", tol=1e-12))


def chained_penalties(w):
    l1 = (abs(v) for v in w[:2])
    l2 = (v * v for v in w[2:])
    return sum(itertools.chain(l1, l2))


add(G("r20k_itertools_chain_of_generators", chained_penalties, (np.array([0.5, -1.0, 2.0, 0.3]),), ref="ag", tol=1e-12))


def starmap_loss(w, pairs=((1.0, 2.0), (2.0, 3.5), (3.0, 6.2))):
    return sum(itertools.starmap(lambda x, y: (w[0] * x + w[1] - y) ** 2, pairs))


add(G("r20k_itertools_starmap_lambda_closure", starmap_loss, (np.array([1.5, 0.2]),), ref="fd", tol=1e-9))


def moving_window_max(x, k=3):
    # a generator function is refused (yield): written here as a comprehension over islice windows
    windows = [tuple(itertools.islice(x, i, i + k)) for i in range(len(x) - k + 1)]
    return sum(max(w) for w in windows)


add(G("r20k_islice_windows_max", moving_window_max, (np.array([0.3, 1.2, -0.5, 0.9, 2.0, 0.1]),), ref="ag", tol=1e-12))


def running_mean_gen(xs):
    total = 0.0
    for i, v in enumerate(xs, 1):
        total += v
        yield total / i


def smoothed_sum(x):
    return sum(running_mean_gen(x))


add(G("r20k_generator_function_yield", smoothed_sum, (np.array([1.0, 2.0, 4.0]),), ref="ag", tol=1e-12))


# -- dict and set comprehensions, config dicts -----------------------------------------------
CONFIG = {"loss": "huber", "delta": 0.5, "l2": 0.01, "features": ("x", "x2", "sinx")}


def featurize(x, names):
    table = {"x": x, "x2": x * x, "sinx": np.sin(x), "cosx": np.cos(x)}
    return np.stack([table[n] for n in names], axis=1)


def config_loss(w, x, y, cfg=CONFIG):
    F = featurize(x, cfg["features"])
    r = F @ w - y
    if cfg["loss"] == "huber":
        d = cfg["delta"]
        per = np.where(np.abs(r) <= d, 0.5 * r * r, d * (np.abs(r) - 0.5 * d))
    elif cfg["loss"] == "l2":
        per = 0.5 * r * r
    else:
        raise ValueError(cfg["loss"])
    return np.mean(per) + cfg["l2"] * np.sum(w ** 2)


XK = np.linspace(-1.0, 2.0, 10)
YK = 0.5 * XK + np.sin(2 * XK)
add(VG("r20k_string_keyed_config_huber", config_loss, (np.array([0.2, 0.1, 0.4]), XK, YK), ref="ag", tol=1e-12))
add(G("r20k_string_keyed_config_l2", config_loss, (np.array([0.2, 0.1, 0.4]), XK, YK, {**CONFIG, "loss": "l2"}),
      ref="ag", tol=1e-12))


def portfolio_risk(weights, cov=np.array([[0.04, 0.01, 0.0], [0.01, 0.09, 0.02], [0.0, 0.02, 0.16]]),
                   names=("bonds", "stocks", "crypto")):
    w = {n: weights[i] for i, n in enumerate(names)}
    total = sum(w.values())
    w = {n: v / total for n, v in w.items()}
    vec = np.array([w[n] for n in names])
    risk = {n: vec[i] * (cov @ vec)[i] for i, n in enumerate(names)}
    return math.sqrt(sum(risk.values())) + 0.1 * max(risk.values())


add(G("r20k_dict_comprehensions_risk_budget", portfolio_risk, (np.array([0.5, 0.3, 0.2]),), ref="fd", tol=1e-9))


def unique_knots_loss(c, knots=(0.0, 0.5, 0.5, 1.0, 1.0)):
    ks = sorted({k for k in knots})
    return sum(c[i] * (k - 0.3) ** 2 for i, k in enumerate(ks))


add(G("r20k_set_comprehension_of_constants", unique_knots_loss, (np.array([1.0, 2.0, 3.0]),), ref="ag", tol=1e-12))


# -- early returns, guard clauses, try/except ------------------------------------------------

def safe_log_likelihood(theta, data=(0.5, 1.2, 2.3, 0.1)):
    if theta[1] <= 0:
        return -math.inf
    mu, s = theta[0], theta[1]
    ll = 0.0
    for x in data:
        z = (x - mu) / s
        if abs(z) > 8.0:
            return -math.inf
        ll -= 0.5 * z * z + math.log(s)
    return ll


add(G("r20k_guard_clauses_early_return_in_loop", safe_log_likelihood, (np.array([1.0, 0.8]),), ref="ag", tol=1e-12))


def robust_ratio(a, b):
    try:
        r = a / b
    except ZeroDivisionError:
        r = 0.0
    return r * r + a


add(G("r20k_try_zero_division_not_raised", robust_ratio, (1.5, 0.5), argnums=(0, 1), ref="ag", tol=1e-12))
add(G("r20k_try_zero_division_raised", robust_ratio, (1.5, 0.0), argnums=0, ref=lambda: 1.0, tol=1e-12))


def newton_sqrt_with_guard(a, tol=1e-14):
    if a < 0:
        raise ValueError("negative")
    if a == 0:
        return 0.0
    x = a if a > 1 else 1.0
    while True:
        nx = 0.5 * (x + a / x)
        if abs(nx - x) < tol * nx:
            return nx
        x = nx


add(G("r20k_while_true_return_inside", newton_sqrt_with_guard, (2.5,), ref=lambda: 0.5 / math.sqrt(2.5), tol=1e-12))


def reduce_product_likelihood(p, outcomes=(1, 0, 1, 1, 0, 1)):
    probs = [p if o else 1.0 - p for o in outcomes]
    return math.log(functools.reduce(operator.mul, probs, 1.0))


add(G("r20k_functools_reduce_operator_mul", reduce_product_likelihood, (0.6,), ref=lambda: 4 / 0.6 - 2 / 0.4, tol=1e-12))


def sorted_top_k(x, k=2):
    # the two largest by sorted with a key over indices known when it runs
    order = sorted(range(len(x)), key=lambda i: x[i], reverse=True)
    return sum(x[i] ** 2 for i in order[:k])


add(G("r20k_sorted_key_lambda_top_k", sorted_top_k, (np.array([0.3, 2.0, -1.0, 1.5]),),
      ref=lambda: np.array([0.0, 4.0, 0.0, 3.0]), tol=1e-12))


def dataclass_free_record(theta):
    # namedtuple-like records from operator.itemgetter on string-keyed dicts
    recs = [{"dose": 1.0, "resp": 0.8}, {"dose": 2.0, "resp": 1.5}, {"dose": 4.0, "resp": 2.1}]
    get = operator.itemgetter("dose", "resp")
    err = 0.0
    for r in recs:
        d, y = get(r)
        err += (theta[0] * d / (theta[1] + d) - y) ** 2
    return err


add(G("r20k_itemgetter_two_keys", dataclass_free_record, (np.array([3.0, 2.0]),), ref="ag", tol=1e-12))


def hill_fit_partial(theta, n):
    return sum((theta[0] * d ** n / (theta[1] ** n + d ** n) - y) ** 2 for d, y in ((1.0, 0.8), (2.0, 1.5), (4.0, 2.1)))


HILL2 = functools.partial(hill_fit_partial, n=2)
add(H("r20k_partial_keyword_int_hessian", HILL2, (np.array([3.0, 2.0]),), ref="fd", tol=1e-5))


def accumulate_list_wealth(returns, fee=0.001):
    factors = [1.0 + r - fee for r in returns]
    return sum(math.log(g) for g in itertools.accumulate(factors, operator.mul))


add(G("r20k_itertools_accumulate_of_list", accumulate_list_wealth, (np.array([0.02, -0.01, 0.03, 0.005]),),
      ref="fd", tol=1e-9))


def closest_station_temp(p, stations=((0.0, 0.0, 12.0), (1.0, 0.5, 15.0), (0.2, 1.4, 9.0))):
    # min with a key over constants, then inverse-distance weights in sorted order
    near = min(stations, key=lambda s: (s[0] - 0.6) ** 2 + (s[1] - 0.4) ** 2)
    w = {i: 1.0 / ((s[0] - p[0]) ** 2 + (s[1] - p[1]) ** 2 + 0.1) for i, s in enumerate(stations)}
    tot = sum(w.values())
    return sum(w[i] * s[2] for i, s in sorted(enumerate(stations), key=lambda t: t[0])) / tot + 0.01 * near[2]


add(G("r20k_min_key_over_constants_dict_values", closest_station_temp, (np.array([0.5, 0.5]),), ref="fd", tol=1e-8))


def zip_star_unpack_fit(theta, pairs=((0.0, 1.0), (1.0, 2.7), (2.0, 7.4), (3.0, 20.1))):
    xs, ys = zip(*pairs)
    preds = map(lambda x: theta[0] * math.exp(theta[1] * x), xs)
    return sum((p - y) ** 2 for p, y in zip(preds, ys))


add(G("r20k_zip_star_and_map_lambda_closure", zip_star_unpack_fit, (np.array([1.0, 1.0]),), ref="fd", tol=1e-8))


def enumerate_reversed_discount(rewards, gamma):
    ret = 0.0
    total = 0.0
    for k, r in enumerate(reversed(rewards)):
        ret = r + gamma * ret
        total += ret / (k + 1)
    return total


add(G("r20k_enumerate_reversed_returns", enumerate_reversed_discount, (np.array([1.0, 0.0, 2.0, -1.0]), 0.9), argnums=1,
      ref="ag", tol=1e-12))
