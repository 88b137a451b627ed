"""Round 12, part y: backend="jax" on programs of the earlier parts (their default-backend
gradients are checked there): the same gradient from the program written against jax.numpy."""
import math

import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked  # noqa: F401
import user_programs12_a as pa
import user_programs12_b as pb
import user_programs12_c as pc
import user_programs12_e as pe
import user_programs12_f as pf
import user_programs12_n as pn

CASES = []
add = CASES.append


def J(name, f, args, argnums=0, tol=1e-10, **kw):
    add(pair(name, lambda: revsrc.grad(f, argnums=argnums, backend="jax", **kw)(*args),
             lambda: revsrc.grad(f, argnums=argnums)(*args), tol=tol))


J("r12_jax_kepler_while", pa.kepler_E, (1.3, 0.4), argnums=(0, 1))
J("r12_jax_two_body_verlet", pa.two_body, (pa.V0,))
J("r12_jax_nbody_pair_loops", pa.nbody_energy_loops, (pa.P5, pa.M5))
J("r12_jax_bs_call", pb.bs_call, pb.ARGS, argnums=(0, 4))
J("r12_jax_implied_vol_while", pb.implied_vol, (pb.PRICE,) + pb.ARGS[:4], tol=1e-8)
J("r12_jax_garch_loop", pb.garch_nll_flat, (np.array(pb.GP), pb.RET))
J("r12_jax_lj_pairs_continue", pc.lj_pairs, (pc.R6,))
J("r12_jax_verlet_inplace", pc.verlet_inplace, (np.array([0.5, 1.2, -0.7]),))
J("r12_jax_kalman_loop", pe.kalman_loglik, (np.array([-1.0, -0.5]), pe.YA))
J("r12_jax_biquad_loop", pf.biquad_lowpass, (120.0, 0.9, pf.NOISE), argnums=(0, 1))
J("r12_jax_compressor_branches", pf.compressor, (0.8, 4.0, pf.NOISE), argnums=(0, 1))
J("r12_jax_rk4_lorenz_memory", pn.rk4_lorenz, (pn.S0,), tol=1e-9, memory="16KB")
J("r12_jax_while_norm_small_array", pn.while_small_array, (pn.VW,))
J("r12_jax_heat_explicit_itemassign", pn.heat_explicit, (pn.U0, 0.2), argnums=1)
