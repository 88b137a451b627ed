"""Round 13, part u: backend="jax" on this round's programs with data-dependent control flow
(branches on floats, while loops, early returns, in-place writes, sorts by swaps): each
against the default backend's gradient, itself checked in the other parts."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj
import user_programs13_b as B
import user_programs13_f as F
import user_programs13_h as Hh
import user_programs13_t as T
import user_programs13_i as I

CASES = []
add = CASES.append


def both(name, f, args, argnums=0, tol=1e-10, **kw):
    add(pair(name, lambda: revsrc.grad(f, argnums=argnums, backend="jax", **kw)(*args),
             lambda: revsrc.grad(f, argnums=argnums)(*args), tol=tol))


both("r13_u_jax_sir_peak_branch", B.sir_euler, (0.4, 0.1), argnums=(0, 1))
both("r13_u_jax_fit_loss_early_return", B.fit_loss, (np.array([12.0, 0.1]),))
both("r13_u_jax_fit_loss_normal", B.fit_loss, (np.array([0.6, 0.1]),))
both("r13_u_jax_final_size_break", B.final_size, (2.0, 1.0), argnums=(0, 1))
both("r13_u_jax_final_size_subcritical", B.final_size, (0.5, 1.0), argnums=(0, 1))
both("r13_u_jax_lv_dict_while", B.lv, (B.LVP,))
both("r13_u_jax_heat_inplace_slices", F.heat_inplace_dirichlet, (1.0, F.U0), argnums=(0, 1))
both("r13_u_jax_heat_view_write", F.heat_view_write, (1.0, F.U0), argnums=(0, 1))
both("r13_u_jax_upwind_branch_neg", F.upwind, (-0.3, F.U0))
both("r13_u_jax_burgers_clip", F.burgers_clip, (0.2, F.U0, 3), argnums=(0, 1))
both("r13_u_jax_newton_sqrt_while", Hh.newton_sqrt, (7.0,))
both("r13_u_jax_backtracking_while", Hh.backtracking, (Hh.X0, Hh.D0), argnums=(0, 1))
both("r13_u_jax_newton_cubic_break", Hh.newton_root_cubic, (1.5,))
both("r13_u_jax_golden_section_while", Hh.golden_section, (1.2,), tol=1e-8)
both("r13_u_jax_bubble_sort", T.bubble, (T.X6,))
both("r13_u_jax_binary_search_interp", T.interp_by_hand, (2.2, T.FP), argnums=(0, 1))
both("r13_u_jax_nested_continue_return", T.first_exceed, (T.X6,))
both("r13_u_jax_list_of_arrays", T.list_of_arrays, (T.X6,))
both("r13_u_jax_argmax_write", T.argmax_write, (T.X6,))
both("r13_u_jax_while_index_exit", T.while_index, (T.X6,))
both("r13_u_jax_dict_accumulator", T.dict_accumulator, (T.X6,))
both("r13_u_jax_masked_update", I.masked_update, (I.V4,))
both("r13_u_jax_fancy_iadd_dupe", I.fancy_iadd_dupe, (I.X6,))
