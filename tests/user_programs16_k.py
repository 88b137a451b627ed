"""Round 16, part k: the earlier parts' programs under backend="jax", jit, vmap and second
derivatives they were not yet run under: while loops with branches, item writes in state
arrays, dict-style parameters, sorting."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj, x64_off  # noqa: F401
from user_programs16_a import F0, EPS, neo_hookean, return_map_1d
from user_programs16_b import one_cpt_oral, dosing_schedule, seir_vec_clip, TH
from user_programs16_c import demand_newton, second_price_revenue, B, cournot_equilibrium, C3, soft_value_iteration, R
from user_programs16_d import kepler_E, kepler_dE, geodesic_np, PTS
from user_programs16_f import dict_accumulate, dict_get_loop, decay_cfg
from user_programs16_i import thermostat, XT, sort_network, X4, billiard, V2, rk45_adaptive, lattice_walk, P5

CASES = []
add = CASES.append

add(pair("r16k_return_map_backend_jax", lambda: revsrc.grad(return_map_1d, backend="jax")(EPS),
         lambda: ag()[0].grad(agify(return_map_1d))(EPS), tol=1e-9))
add(pair("r16k_return_map_hessian_E", lambda: revsrc.hessian(return_map_1d, argnums=1)(EPS, 200.0),
         lambda: ag()[0].hessian(agify(return_map_1d), 1)(EPS, 200.0), tol=1e-8))
add(pair("r16k_pk_oral_backend_jax_while", lambda: revsrc.grad(one_cpt_oral, argnums=(0, 1), backend="jax")(1.2, 0.3),
         lambda: ag()[0].grad(agify(one_cpt_oral), (0, 1))(1.2, 0.3), tol=1e-9))
add(pair("r16k_pk_oral_vmap_ka", lambda: revsrc.vmap(one_cpt_oral, in_axes=(0, None))(np.array([0.8, 1.2]), 0.3),
         lambda: np.array([one_cpt_oral(0.8, 0.3), one_cpt_oral(1.2, 0.3)]), tol=0.0))
add(pair("r16k_pk_oral_jit_exact", lambda: revsrc.jit(one_cpt_oral)(1.2, 0.3), lambda: one_cpt_oral(1.2, 0.3), tol=0.0))
add(pair("r16k_dosing_vmap_grad", lambda: revsrc.vmap(revsrc.grad(dosing_schedule))(np.array([0.1, 0.25, 0.5])),
         lambda: np.array([ag()[0].grad(agify(dosing_schedule))(k) for k in (0.1, 0.25, 0.5)]), tol=1e-9))
add(pair("r16k_dosing_jit_exact", lambda: revsrc.jit(dosing_schedule)(0.25), lambda: dosing_schedule(0.25), tol=0.0))
add(pair("r16k_seir_clip_backend_jax", lambda: revsrc.grad(seir_vec_clip, backend="jax")(TH),
         lambda: ag()[0].grad(agify(seir_vec_clip))(TH), tol=1e-9))
add(pair("r16k_seir_clip_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(seir_vec_clip))(TH),
         lambda: ag()[0].hessian(agify(seir_vec_clip))(TH), tol=1e-7))
add(pair("r16k_demand_newton_backend_jax", lambda: revsrc.grad(demand_newton, backend="jax")(2.0), lambda: -0.75, tol=1e-12))
add(pair("r16k_demand_newton_vmap", lambda: revsrc.vmap(demand_newton)(np.array([1.0, 2.0, 4.0])),
         lambda: np.array([demand_newton(p) for p in (1.0, 2.0, 4.0)]), tol=0.0))
add(pair("r16k_second_price_backend_jax", lambda: revsrc.grad(second_price_revenue, backend="jax")(B),
         lambda: np.array([0.0, 0.0, 0.0, 1.0]), tol=1e-14))
add(pair("r16k_cournot_backend_jax_jacfwd", lambda: revsrc.jacfwd(cournot_equilibrium, backend="jax")(C3),
         lambda: fdj(cournot_equilibrium, C3), tol=1e-6))
add(pair("r16k_soft_vi_backend_jax_hessian", lambda: revsrc.hessian(soft_value_iteration, backend="jax")(R),
         lambda: ag()[0].hessian(agify(soft_value_iteration))(R), tol=1e-8))
add(pair("r16k_kepler_hessian_e", lambda: revsrc.hessian(kepler_E, argnums=1)(1.1, 0.3),
         lambda: (kepler_dE(1.1, 0.3 + 1e-5)[1] - kepler_dE(1.1, 0.3 - 1e-5)[1]) / 2e-5, tol=1e-6))
add(pair("r16k_kepler_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(kepler_E, argnums=(0, 1)), argnums=(0, 1))(1.1, 0.3),
         lambda: revsrc.hessian(kepler_E, argnums=(0, 1))(1.1, 0.3), tol=1e-10))
add(pair("r16k_geodesic_backend_jax_x64_off", x64_off(lambda: revsrc.grad(geodesic_np, backend="jax")(PTS)),
         lambda: ag()[0].grad(agify(geodesic_np))(PTS), tol=1e-12))
add(pair("r16k_dict_accumulate_jit", lambda: revsrc.jit(dict_accumulate)(1.5), lambda: dict_accumulate(1.5), tol=0.0))
add(pair("r16k_dict_get_loop_backend_jax", lambda: revsrc.grad(dict_get_loop, backend="jax")(1.25), lambda: 20.0, tol=1e-12))
add(pair("r16k_dict_get_loop_vmap", lambda: revsrc.vmap(dict_get_loop)(np.array([1.0, 2.0])), lambda: np.array([8.0, 32.0]), tol=0.0))
add(pair("r16k_decay_cfg_backend_jax", lambda: revsrc.grad(decay_cfg, backend="jax")(1.2),
         lambda: ag()[0].grad(agify(decay_cfg))(1.2), tol=1e-12))
add(pair("r16k_thermostat_backend_jax", lambda: revsrc.grad(thermostat, backend="jax")(XT), lambda: revsrc.grad(thermostat)(XT), tol=1e-10))
add(pair("r16k_thermostat_jacrev_grad", lambda: revsrc.jacrev(revsrc.grad(thermostat))(XT), lambda: revsrc.hessian(thermostat)(XT), tol=1e-9))
add(pair("r16k_sort_network_backend_jax", lambda: revsrc.grad(sort_network, backend="jax")(X4), lambda: np.array([2.0, 1.0, 4.0, 3.0]), tol=1e-14))
add(pair("r16k_billiard_backend_jax", lambda: revsrc.grad(billiard, backend="jax")(V2), lambda: revsrc.grad(billiard)(V2), tol=1e-10))
add(pair("r16k_billiard_vmap_rows", lambda: revsrc.vmap(billiard)(np.stack([V2, V2 * 0.5])),
         lambda: np.array([billiard(V2), billiard(V2 * 0.5)]), tol=0.0))
add(pair("r16k_billiard_vmap_grad_rows", lambda: revsrc.vmap(revsrc.grad(billiard))(np.stack([V2, V2 * 0.5])),
         lambda: np.array([revsrc.grad(billiard)(V2), revsrc.grad(billiard)(V2 * 0.5)]), tol=1e-12))
add(pair("r16k_adaptive_backend_jax", lambda: revsrc.grad(rk45_adaptive, backend="jax")(0.7),
         lambda: ag()[0].grad(agify(rk45_adaptive))(0.7), tol=1e-9))
add(pair("r16k_lattice_argmax_backend_jax", lambda: revsrc.grad(lattice_walk, backend="jax")(P5), lambda: revsrc.grad(lattice_walk)(P5), tol=1e-12))
add(pair("r16k_lattice_hvp", lambda: revsrc.hvp(lattice_walk, (P5,), (np.ones(5),)), lambda: np.zeros(5), tol=1e-12))
add(pair("r16k_neo_hookean_linearize", lambda: revsrc.linearize(neo_hookean, F0)[1](np.eye(3)),
         lambda: float(np.sum(revsrc.grad(neo_hookean)(F0) * np.eye(3))), tol=1e-12))
