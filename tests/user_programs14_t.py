"""Round 14, part t: earlier parts' array programs again under memory= (checkpointed
loops), backend="jax", jit(grad) and vmap(grad), each against an independent reference."""
import numpy as np

import revsrc
from user_programs7_harness import pair, fd_checked, agify, ag  # noqa: F401
from user_programs14_util import fdj  # noqa: F401

import user_programs14_a as A
import user_programs14_b as B
import user_programs14_c as C
import user_programs14_e as E
import user_programs14_g as Gp
import user_programs14_i as I
import user_programs14_m as M

CASES = []
add = CASES.append

PROGS = [
    ("lqr", A.lqr_cost, (A.K0, A.X0), lambda: fd_checked(A.lqr_cost, (A.K0, A.X0))[0], 1e-7),
    ("pid_clip", A.pid_clip, (A.GAINS * 3,), lambda: ag()[0].grad(agify(A.pid_clip))(A.GAINS * 3), 1e-9),
    ("ekf", A.ekf_nll, (A.PQR, A.ZS), lambda: ag()[0].grad(agify(A.ekf_nll))(A.PQR, A.ZS), 1e-8),
    ("kf_solve", A.kf_solve, (A.X30, A.ZS), lambda: ag()[0].grad(agify(A.kf_solve))(A.X30, A.ZS), 1e-9),
    ("rk4_yield", lambda k: B.rk4(k, B.C0)[3], (B.KR,), lambda: ag()[0].grad(lambda k: agify(B.rk4)(k, B.C0)[3])(B.KR), 1e-9),
    ("euler_inplace", lambda k: B.euler_inplace(k, B.C0)[3], (B.KR,), lambda: fd_checked(lambda k: B.euler_inplace(k, B.C0)[3], (B.KR,))[0], 1e-7),
    ("chain", C.chain_energy, (C.XC,), lambda: ag()[0].grad(agify(C.chain_energy))(C.XC), 1e-10),
    ("binomial_put", E.binomial_american_put, (95.0,), lambda: fd_checked(E.binomial_american_put, (95.0,), h=1e-4)[0], 1e-6),
    ("binomial_inplace", E.binomial_european_inplace, (102.0,), lambda: E._crr_delta(102.0), 1e-10),
    ("pendulum", lambda t: np.sum(Gp.pendulum_chain(t) ** 2), (Gp.TH0,), lambda: fd_checked(lambda t: np.sum(Gp.pendulum_chain(t) ** 2), (Gp.TH0,))[0], 1e-7),
    ("lj_loop", Gp.lj_loop, (Gp.XP,), lambda: ag()[0].grad(agify(Gp.lj_loop))(Gp.XP), 1e-9),
    ("bounce", Gp.bounce, (1.0,), lambda: fd_checked(Gp.bounce, (1.0,), h=1e-7)[0], 1e-6),
    ("strided", I.strided_slice_write, (I.X6,), lambda: fd_checked(I.strided_slice_write, (I.X6,))[0], 1e-8),
    ("mask_assign", I.mask_assign, (I.X6,), lambda: np.where(I.X6 > 0.4, 1 / I.X6, 2.0), 1e-12),
    ("argmax_relax", M.argmax_relax, (M.X5,), lambda: fd_checked(M.argmax_relax, (M.X5,))[0], 1e-7),
    ("ring_buffer", M.ring_buffer, (np.array([0.3, -0.2, 0.5]),), lambda: fd_checked(M.ring_buffer, (np.array([0.3, -0.2, 0.5]),))[0], 1e-7),
]

# backend="jax" compiles with XLA (seconds for long unrolled loops): only the programs it
# compiles quickly, or refuses, are run through it
SLOW_JAX = {"binomial_put", "rk4_yield", "euler_inplace", "ekf", "pendulum"}
for nm, f, args, ref, tol in PROGS:
    add(pair("r14_t_memory3_" + nm, (lambda f=f, args=args: revsrc.grad(f, memory=3)(*args)), ref, tol=tol))
    if nm not in SLOW_JAX:
        add(pair("r14_t_jax_" + nm, (lambda f=f, args=args: revsrc.grad(f, backend="jax")(*args)), ref, tol=tol))
