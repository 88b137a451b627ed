"""User programs, corpus 6b: revsrc.vmap of array programs (in_axes / out_axes pytrees,
axis_size, per-example gradients) and vmap nested with grad, jacfwd, jacrev, hessian,
hvp and jit.  References: jax.vmap of the same program run by JAX (x64), or a Python
loop over the examples."""
import collections
import math

import numpy as np

import revsrc
from user_programs6_harness import adder, jax, jaxify

CASES = []
RNG = np.random.default_rng(61)


J = jax


add = adder(CASES)


# -- per-example gradients ------------------------------------------------------------------

def logreg_loss(w, x, y):
    z = x @ w
    return np.log1p(np.exp(-y * z))


Wl = RNG.normal(size=3)
Xl = RNG.normal(size=(6, 3))
Yl = np.sign(RNG.normal(size=6))

add("vmap_grad_logreg_per_example",
    lambda: revsrc.vmap(revsrc.grad(logreg_loss), in_axes=(None, 0, 0))(Wl, Xl, Yl),
    lambda: J().vmap(J().grad(jaxify(logreg_loss)), in_axes=(None, 0, 0))(Wl, Xl, Yl))


def mlp_loss(params, x, y):
    (W1, b1), (W2, b2) = params
    h = np.tanh(x @ W1 + b1)
    out = h @ W2 + b2
    return np.sum((out - y) ** 2)


MLP = ((RNG.normal(size=(3, 4)), np.zeros(4)), (RNG.normal(size=(4, 2)), np.full(2, 0.1)))
Xm = RNG.normal(size=(5, 3))
Ym = RNG.normal(size=(5, 2))

add("vmap_grad_mlp_nested_tuple_params",
    lambda: revsrc.vmap(revsrc.grad(mlp_loss), in_axes=(None, 0, 0))(MLP, Xm, Ym),
    lambda: J().vmap(J().grad(jaxify(mlp_loss)), in_axes=(None, 0, 0))(MLP, Xm, Ym))


def dict_loss(p, x, y):
    pred = np.tanh(x @ p["w"] + p["b"])
    return (pred - y) ** 2 + 0.01 * np.sum(p["w"] ** 2)


PD = {"b": 0.3, "w": RNG.normal(size=3)}
add("vmap_grad_dict_params",
    lambda: revsrc.vmap(revsrc.grad(dict_loss), in_axes=(None, 0, 0))(PD, Xl, Yl),
    lambda: J().vmap(J().grad(jaxify(dict_loss)), in_axes=(None, 0, 0))(PD, Xl, Yl))

add("vmap_value_and_grad_dict_params",
    lambda: revsrc.vmap(revsrc.value_and_grad(dict_loss), in_axes=(None, 0, 0))(PD, Xl, Yl),
    lambda: J().vmap(J().value_and_grad(jaxify(dict_loss)), in_axes=(None, 0, 0))(PD, Xl, Yl))

add("vmap_grad_argnums1",
    lambda: revsrc.vmap(revsrc.grad(logreg_loss, argnums=1), in_axes=(None, 0, 0))(Wl, Xl, Yl),
    lambda: J().vmap(J().grad(jaxify(logreg_loss), argnums=1), in_axes=(None, 0, 0))(Wl, Xl, Yl))

add("vmap_grad_argnums_tuple",
    lambda: revsrc.vmap(revsrc.grad(logreg_loss, argnums=(0, 1)), in_axes=(None, 0, 0))(Wl, Xl, Yl),
    lambda: J().vmap(J().grad(jaxify(logreg_loss), argnums=(0, 1)), in_axes=(None, 0, 0))(Wl, Xl, Yl))

# mapped parameters: one model per example (ensembles)
WS = RNG.normal(size=(6, 3))
add("vmap_grad_ensemble_params_mapped",
    lambda: revsrc.vmap(revsrc.grad(logreg_loss), in_axes=(0, None, None))(WS, Xl[0], 1.0),
    lambda: J().vmap(J().grad(jaxify(logreg_loss)), in_axes=(0, None, None))(WS, Xl[0], 1.0))

PDS = {"b": np.linspace(-1, 1, 6), "w": RNG.normal(size=(6, 3))}
add("vmap_in_axes_dict_prefix",
    lambda: revsrc.vmap(dict_loss, in_axes=({"b": 0, "w": 0}, None, None))(PDS, Xl[1], 0.5),
    lambda: J().vmap(jaxify(dict_loss), in_axes=({"b": 0, "w": 0}, None, None))(PDS, Xl[1], 0.5))

PD_HALF = {"b": 0.2, "w": RNG.normal(size=(6, 3))}
add("vmap_in_axes_dict_leaf_none",
    lambda: revsrc.vmap(dict_loss, in_axes=({"b": None, "w": 0}, 0, 0))(PD_HALF, Xl, Yl),
    lambda: J().vmap(jaxify(dict_loss), in_axes=({"b": None, "w": 0}, 0, 0))(PD_HALF, Xl, Yl))

add("vmap_grad_in_axes_dict_leaf_none",
    lambda: revsrc.vmap(revsrc.grad(dict_loss), in_axes=({"b": None, "w": 0}, 0, 0))(PD_HALF, Xl, Yl),
    lambda: J().vmap(J().grad(jaxify(dict_loss)), in_axes=({"b": None, "w": 0}, 0, 0))(PD_HALF, Xl, Yl))

# -- in_axes and out_axes other than 0 ----------------------------------------------------------


def col_stats(x):
    return np.array([np.sum(x), np.sum(x * x), np.max(x)])


M54 = RNG.normal(size=(5, 4))
add("vmap_in_axes_1_columns",
    lambda: revsrc.vmap(col_stats, in_axes=1)(M54),
    lambda: J().vmap(jaxify(col_stats), in_axes=1)(M54))
add("vmap_in_axes_minus1",
    lambda: revsrc.vmap(col_stats, in_axes=-1)(M54),
    lambda: J().vmap(jaxify(col_stats), in_axes=-1)(M54))
add("vmap_out_axes_1",
    lambda: revsrc.vmap(col_stats, in_axes=0, out_axes=1)(M54),
    lambda: J().vmap(jaxify(col_stats), in_axes=0, out_axes=1)(M54))
add("vmap_out_axes_minus1_matrix_out",
    lambda: revsrc.vmap(lambda v: np.outer(v, v[:2]), out_axes=-1)(M54),
    lambda: J().vmap(lambda v: J().numpy.outer(v, v[:2]), out_axes=-1)(M54))


def two_outputs(x, s):
    return np.sin(x) * s, np.sum(x) * s


add("vmap_out_axes_tuple",
    lambda: revsrc.vmap(two_outputs, in_axes=(0, None), out_axes=(1, 0))(M54, 2.0),
    lambda: J().vmap(jaxify(two_outputs), in_axes=(0, None), out_axes=(1, 0))(M54, 2.0))


def dict_out(x):
    return {"mean": np.mean(x), "sq": x * x}


add("vmap_out_axes_dict",
    lambda: revsrc.vmap(dict_out, out_axes={"mean": 0, "sq": 1})(M54),
    lambda: J().vmap(jaxify(dict_out), out_axes={"mean": 0, "sq": 1})(M54))


def pair_arg(xy, scale):
    x, y = xy
    return scale * np.dot(x, y)


add("vmap_in_axes_tuple_inner",
    lambda: revsrc.vmap(pair_arg, in_axes=((0, None), None))((M54, M54[0]), 3.0),
    lambda: J().vmap(jaxify(pair_arg), in_axes=((0, None), None))((M54, M54[0]), 3.0))
add("vmap_in_axes_tuple_inner_axis1",
    lambda: revsrc.vmap(pair_arg, in_axes=((1, None), None))((M54, M54[:, 0]), 3.0),
    lambda: J().vmap(jaxify(pair_arg), in_axes=((1, None), None))((M54, M54[:, 0]), 3.0))


def no_mapped_args(x):
    return np.sum(x ** 2)


add("vmap_axis_size_nothing_mapped",
    lambda: revsrc.vmap(no_mapped_args, in_axes=None, axis_size=4)(np.arange(3.0)),
    lambda: J().vmap(jaxify(no_mapped_args), in_axes=None, axis_size=4)(np.arange(3.0)))

add("vmap_batch_size_one",
    lambda: revsrc.vmap(revsrc.grad(logreg_loss), in_axes=(None, 0, 0))(Wl, Xl[:1], Yl[:1]),
    lambda: J().vmap(J().grad(jaxify(logreg_loss)), in_axes=(None, 0, 0))(Wl, Xl[:1], Yl[:1]))

Point = collections.namedtuple("Point", ["x", "y"])


def nt_energy(p, k):
    return k * (p.x ** 2 + p.y ** 2) + np.sin(p.x * p.y)


PT = Point(np.linspace(0.1, 1.0, 5), np.linspace(-1.0, 0.5, 5))
add("vmap_grad_namedtuple_mapped",
    lambda: revsrc.vmap(revsrc.grad(nt_energy), in_axes=(0, None))(PT, 0.5),
    lambda: J().vmap(J().grad(jaxify(nt_energy)), in_axes=(0, None))(PT, 0.5))

# -- data-dependent control flow, writes and lists per example ----------------------------------


def branchy(x):
    if np.sum(x) > 0:
        return np.sum(np.sin(x))
    return np.sum(x ** 3)


add("vmap_branch_differs_per_example",
    lambda: revsrc.vmap(branchy)(M54),
    lambda: np.array([branchy(r) for r in M54]), tol=1e-13)
add("vmap_grad_branch_differs_per_example",
    lambda: revsrc.vmap(revsrc.grad(branchy))(M54),
    lambda: np.stack([J().grad(jaxify(branchy))(r) for r in M54]))


def item_writes(x):
    y = np.zeros(4)
    y[0] = x[0] * x[1]
    y[1:3] = np.sin(x[1:3])
    y[3] = x[3] ** 2
    return np.sum(y * x)


add("vmap_grad_item_assignment",
    lambda: revsrc.vmap(revsrc.grad(item_writes))(M54),
    lambda: np.stack([J().grad(jaxify(_item_writes_jax))(r) for r in M54]))


def _item_writes_jax(x):
    y = np.stack([x[0] * x[1], np.sin(x[1]), np.sin(x[2]), x[3] ** 2])
    return np.sum(y * x)


def list_build(x):
    parts = []
    for i in range(x.shape[0]):
        parts.append(x[i] * (i + 1.0))
    return np.prod(np.array(parts[:3])) + sum(parts)


add("vmap_grad_list_built",
    lambda: revsrc.vmap(revsrc.grad(list_build))(M54),
    lambda: J().vmap(J().grad(jaxify(list_build)))(M54))


def seq_rnn(W, xs):
    h = np.zeros(2)
    for t in range(xs.shape[0]):
        h = np.tanh(W @ h + xs[t])
    return np.sum(h)


W22 = RNG.normal(size=(2, 2))
SEQS = RNG.normal(size=(4, 7, 2))
add("vmap_grad_rnn_per_sequence",
    lambda: revsrc.vmap(revsrc.grad(seq_rnn), in_axes=(None, 0))(W22, SEQS),
    lambda: J().vmap(J().grad(jaxify(seq_rnn)), in_axes=(None, 0))(W22, SEQS))


def masked_mean(x, mask):
    return np.sum(np.where(mask, x, 0.0)) / max(np.sum(mask), 1)


MASKS = RNG.normal(size=(5, 4)) > 0
add("vmap_bool_mask_mapped",
    lambda: revsrc.vmap(revsrc.grad(masked_mean))(M54, MASKS),
    lambda: np.stack([J().grad(jaxify(masked_mean))(x, m) for x, m in zip(M54, MASKS)]))


def pick(x, i):
    return x[i] ** 2 + np.sum(x)


IDX = np.array([0, 3, 1, 2, 3])
add("vmap_int_index_mapped",
    lambda: revsrc.vmap(revsrc.grad(pick))(M54, IDX),
    lambda: J().vmap(J().grad(jaxify(pick)))(M54, IDX))


def solve_batch(A, b):
    return np.sum(np.linalg.solve(A, b) ** 2)


AS = RNG.normal(size=(4, 3, 3)) + 3 * np.eye(3)
BS = RNG.normal(size=(4, 3))
add("vmap_grad_linalg_solve_per_example",
    lambda: revsrc.vmap(revsrc.grad(solve_batch, argnums=(0, 1)))(AS, BS),
    lambda: J().vmap(J().grad(jaxify(solve_batch), argnums=(0, 1)))(AS, BS))


def sort_cumsum(x):
    return np.sum(np.cumsum(np.sort(x)) * np.arange(1.0, x.shape[0] + 1.0))


add("vmap_grad_sort_cumsum",
    lambda: revsrc.vmap(revsrc.grad(sort_cumsum))(M54),
    lambda: J().vmap(J().grad(jaxify(sort_cumsum)))(M54))


def f32_prog(x):
    return np.sum(np.tanh(x) * x)


M54_32 = M54.astype(np.float32)
add("vmap_float32_array_program",
    lambda: revsrc.vmap(f32_prog)(M54_32),
    lambda: np.array([f32_prog(r) for r in M54_32]), tol=1e-6)
add("vmap_grad_float32_dtype_kept",
    lambda: [revsrc.vmap(revsrc.grad(f32_prog))(M54_32).dtype == np.float32],
    lambda: [True])


def kw_prog(x, scale=1.0, power=2):
    return scale * np.sum(np.abs(x) ** power)


add("vmap_keyword_unmapped",
    lambda: revsrc.vmap(kw_prog)(M54, scale=0.5, power=3),
    lambda: np.array([kw_prog(r, scale=0.5, power=3) for r in M54]), tol=1e-13)

# -- vmap nested with jacfwd, jacrev, hessian, hvp, grad(grad), jit, vmap ------------------------


def vec_field(x):
    return np.array([x[0] * x[1], np.sin(x[2]) + x[0] ** 2, np.exp(0.1 * x[3]) * x[1]])


add("vmap_jacfwd_vector_field",
    lambda: revsrc.vmap(revsrc.jacfwd(vec_field))(M54),
    lambda: J().vmap(J().jacfwd(jaxify(vec_field)))(M54))
add("vmap_jacrev_vector_field",
    lambda: revsrc.vmap(revsrc.jacrev(vec_field))(M54),
    lambda: J().vmap(J().jacrev(jaxify(vec_field)))(M54))


def rosen(x):
    return np.sum(100.0 * (x[1:] - x[:-1] ** 2) ** 2 + (1.0 - x[:-1]) ** 2)


add("vmap_hessian_rosenbrock",
    lambda: revsrc.vmap(revsrc.hessian(rosen))(M54),
    lambda: J().vmap(J().hessian(jaxify(rosen)))(M54), tol=1e-9)


def two_arg_energy(x, W):
    return np.sum(np.tanh(W @ x) ** 2)


add("vmap_hessian_in_axes_none",
    lambda: revsrc.vmap(revsrc.hessian(two_arg_energy), in_axes=(0, None))(M54[:, :2], W22),
    lambda: J().vmap(J().hessian(jaxify(two_arg_energy)), in_axes=(0, None))(M54[:, :2], W22))


def hvp_rosen(x, v):
    return revsrc.hvp(rosen, (x,), (v,))


add("vmap_of_hvp_function",
    lambda: revsrc.vmap(hvp_rosen)(M54, M54[::-1]),
    lambda: J().vmap(lambda x, v: J().jvp(J().grad(jaxify(rosen)), (x,), (v,))[1])(M54, M54[::-1]))


def scal(x):
    return math.exp(-x) * math.sin(3.0 * x) + x ** 4


XS = np.linspace(-1.0, 1.5, 9)
add("vmap_grad_grad_scalar",
    lambda: revsrc.vmap(revsrc.grad(revsrc.grad(scal)))(XS),
    lambda: J().vmap(J().grad(J().grad(jaxify(scal))))(XS))
add("vmap_hessian_scalar",
    lambda: revsrc.vmap(revsrc.hessian(scal))(XS),
    lambda: J().vmap(J().hessian(jaxify(scal)))(XS))
add("vmap_jit_scalar_exact",
    lambda: revsrc.vmap(revsrc.jit(scal))(XS),
    lambda: np.array([scal(x) for x in XS.tolist()]), tol=0.0)
add("vmap_jit_grad_scalar",
    lambda: revsrc.vmap(revsrc.jit(revsrc.grad(scal)))(XS),
    lambda: J().vmap(J().grad(jaxify(scal)))(XS), tol=1e-12)


def rbf(x, y):
    return np.exp(-np.sum((x - y) ** 2))


add("vmap_of_vmap_kernel_matrix",
    lambda: revsrc.vmap(revsrc.vmap(rbf, in_axes=(None, 0)), in_axes=(0, None))(M54, M54[:3]),
    lambda: J().vmap(J().vmap(jaxify(rbf), in_axes=(None, 0)), in_axes=(0, None))(M54, M54[:3]))
add("vmap_of_vmap_grad_kernel",
    lambda: revsrc.vmap(revsrc.vmap(revsrc.grad(rbf), in_axes=(None, 0)), in_axes=(0, None))(M54, M54[:3]),
    lambda: J().vmap(J().vmap(J().grad(jaxify(rbf)), in_axes=(None, 0)), in_axes=(0, None))(M54, M54[:3]))


def jvp_inside(x, v):
    return revsrc.jvp(scal, (x,), (v,))[1]


add("vmap_function_calling_jvp",
    lambda: revsrc.vmap(jvp_inside)(XS, XS * 0.5),
    lambda: J().vmap(lambda x, v: J().jvp(jaxify(scal), (x,), (v,))[1])(XS, XS * 0.5))


def summed_vmap(w):
    return np.sum(revsrc.vmap(logreg_loss, in_axes=(None, 0, 0))(w, Xl, Yl))


add("grad_of_vmap_documented_E104",
    lambda: revsrc.grad(summed_vmap)(Wl),
    lambda: J().grad(lambda w: J().numpy.sum(J().vmap(jaxify(logreg_loss), in_axes=(None, 0, 0))(w, Xl, Yl)))(Wl))


def jit_of_vmap(x):
    return revsrc.jit(revsrc.vmap(scal))(x)


add("jit_of_vmap_documented",
    lambda: jit_of_vmap(XS),
    lambda: np.array([scal(x) for x in XS]), tol=0.0)


def aux_loss(w, x):
    r = x @ w
    return r ** 2, {"r": r}


add("vmap_grad_has_aux",
    lambda: revsrc.vmap(revsrc.grad(aux_loss, has_aux=True), in_axes=(None, 0))(Wl, Xl),
    lambda: J().vmap(J().grad(jaxify(aux_loss), has_aux=True), in_axes=(None, 0))(Wl, Xl))


def linreg(w, x, y):
    return 0.5 * (np.dot(w, x) - y) ** 2


add("per_example_grad_norms_clipping",
    lambda: np.minimum(1.0, 1.0 / np.linalg.norm(
        revsrc.vmap(revsrc.grad(linreg), in_axes=(None, 0, 0))(Wl, Xl, Yl), axis=1)),
    lambda: np.minimum(1.0, 1.0 / np.linalg.norm(
        J().vmap(J().grad(jaxify(linreg)), in_axes=(None, 0, 0))(Wl, Xl, Yl), axis=1)))

add("vmap_in_axes_list_of_entries",
    lambda: revsrc.vmap(revsrc.grad(linreg), in_axes=[None, 0, 0])(Wl, Xl, Yl),
    lambda: J().vmap(J().grad(jaxify(linreg)), in_axes=[None, 0, 0])(Wl, Xl, Yl))


def three_d(x):
    return np.sum(x @ x.T)


T3 = RNG.normal(size=(3, 2, 4))
add("vmap_in_axes_2_on_3d",
    lambda: revsrc.vmap(three_d, in_axes=2)(T3),
    lambda: J().vmap(jaxify(three_d), in_axes=2)(T3))
add("vmap_grad_in_axes_1_on_3d",
    lambda: revsrc.vmap(revsrc.grad(three_d), in_axes=1)(T3),
    lambda: J().vmap(J().grad(jaxify(three_d)), in_axes=1)(T3))

MAPPED_LOSS = revsrc.vmap(logreg_loss, in_axes=(None, 0, 0))


def summed_global_vmap(w):
    return np.sum(MAPPED_LOSS(w, Xl, Yl))


add("grad_of_global_vmap_documented_E104",
    lambda: revsrc.grad(summed_global_vmap)(Wl),
    lambda: J().grad(lambda w: J().numpy.sum(J().vmap(jaxify(logreg_loss), in_axes=(None, 0, 0))(w, Xl, Yl)))(Wl))

MAPPED_SCAL = revsrc.vmap(scal)
add("jit_of_global_vmap",
    lambda: revsrc.jit(MAPPED_SCAL)(XS),
    lambda: np.array([scal(x) for x in XS]), tol=0.0)
