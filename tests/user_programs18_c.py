"""Round 18, part c: heat, wave and advection PDEs on grids -- slicing stencils, np.roll
periodic boundaries, boundary writes, implicit (backward Euler, Crank-Nicolson) steps with
np.linalg.solve, upwind and flux limiters, inverse problems for diffusivity and sources."""
import functools
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify, GD  # noqa: F401
from user_programs15_util import VG, SAME, EXACT, fdj  # noqa: F401
from user_programs7_harness import fd_hess_checked

CASES = []
add = CASES.append

NX = 24
XG = np.linspace(0.0, 1.0, NX)
DX = XG[1] - XG[0]
U0 = np.exp(-80 * (XG - 0.4) ** 2)


def heat_explicit(kappa, u0, steps=60, dt=2e-4):
    u = u0.copy()
    for _ in range(steps):
        lap = np.zeros_like(u)
        lap[1:-1] = (u[2:] - 2 * u[1:-1] + u[:-2]) / DX ** 2
        u = u + dt * kappa * lap
        u[0] = 0.0
        u[-1] = 0.0
    return u


def heat_misfit(kappa, obs):
    return np.sum((heat_explicit(kappa, U0) - obs) ** 2)


OBS = heat_explicit(0.8, U0) + 0.01 * np.sin(np.arange(NX))
add(G("r18c_heat_explicit_kappa_misfit", heat_misfit, (1.0, OBS), ref="fd", tol=1e-7))
add(H("r18c_heat_explicit_kappa_hessian", heat_misfit, (1.0, OBS), ref="fd", tol=1e-5))
add(G("r18c_heat_explicit_wrt_obs", heat_misfit, (1.0, OBS), argnums=1, ref="fd", tol=1e-7))


def heat_field_kappa(kap, u0, steps=40, dt=1e-4):
    # spatially varying diffusivity on faces, flux form
    u = u0.copy()
    for _ in range(steps):
        flux = kap * np.diff(u) / DX
        u[1:-1] += dt * np.diff(flux) / DX
    return u


def field_loss(kap):
    u = heat_field_kappa(kap, U0)
    return np.sum(u[NX // 2:] ** 2)


KAP = 0.5 + 0.3 * np.cos(np.linspace(0, 3, NX - 1))
add(GD("r18c_heat_flux_form_field_kappa_iadd_slice", field_loss, (KAP,), tol=1e-6))
add(G("r18c_heat_flux_form_field_kappa_ag", field_loss, (KAP,), ref="fd", tol=1e-6))


def advect_periodic(c, u0, steps=50, dt=0.01):
    # first-order upwind with np.roll (c may be either sign)
    u = u0
    nu = c * dt / DX
    for _ in range(steps):
        if c > 0:
            u = u - nu * (u - np.roll(u, 1))
        else:
            u = u - nu * (np.roll(u, -1) - u)
    return u


def advect_loss(c):
    return np.sum(advect_periodic(c, U0) * XG)


add(G("r18c_upwind_roll_positive_speed", advect_loss, (0.3,), ref="ag", tol=1e-10))
add(G("r18c_upwind_roll_negative_speed", advect_loss, (-0.25,), ref="ag", tol=1e-10))
add(G("r18c_upwind_roll_backend_jax", advect_loss, (0.3,), ref="ag", tol=1e-10, backend="jax"))


def minmod(a, b):
    return np.where(a * b > 0, np.sign(a) * np.minimum(np.abs(a), np.abs(b)), 0.0)


def muscl_step(u, nu):
    du = minmod(u - np.roll(u, 1), np.roll(u, -1) - u)
    flux = u + 0.5 * (1 - nu) * du
    return u - nu * (flux - np.roll(flux, 1))


def muscl_loss(u0, nu=0.4, steps=20):
    u = u0
    for _ in range(steps):
        u = muscl_step(u, nu)
    return np.sum(u ** 2 * np.linspace(0, 1, u.shape[0]))


U0S = np.sin(2 * np.pi * XG) + 0.5 * (XG > 0.5)
add(G("r18c_muscl_minmod_limiter", muscl_loss, (U0S,), ref="ag", tol=1e-10))
add(G("r18c_muscl_minmod_wrt_nu", muscl_loss, (U0S, 0.4), argnums=1, ref="ag", tol=1e-10))


def laplacian_1d(n, dx):
    return (np.diag(np.full(n, -2.0)) + np.diag(np.ones(n - 1), 1) + np.diag(np.ones(n - 1), -1)) / dx ** 2


def backward_euler(kappa, u0, dt=1e-3, steps=10):
    n = u0.shape[0] - 2
    A = np.eye(n) - dt * kappa * laplacian_1d(n, DX)
    u = u0.copy()
    for _ in range(steps):
        u[1:-1] = np.linalg.solve(A, u[1:-1])
    return u


def be_loss(kappa):
    u = backward_euler(kappa, U0)
    return np.max(u) + np.sum(u ** 2)


add(G("r18c_backward_euler_solve_in_loop", be_loss, (0.7,), ref="fd", tol=1e-7))
add(H("r18c_backward_euler_solve_hessian", be_loss, (0.7,), ref="fd", tol=1e-5))


def crank_nicolson(kappa, u0, dt=2e-3, steps=8):
    n = u0.shape[0]
    L = laplacian_1d(n, DX)
    L[0, :] = 0.0
    L[-1, :] = 0.0
    I = np.eye(n)
    A = I - 0.5 * dt * kappa * L
    B = I + 0.5 * dt * kappa * L
    u = u0
    for _ in range(steps):
        u = np.linalg.solve(A, B @ u)
    return u


def cn_loss(params):
    kappa, amp = params
    return np.sum(crank_nicolson(kappa, amp * U0) ** 3)


add(G("r18c_crank_nicolson_row_writes_tuple_params", cn_loss, ((0.5, 1.2),), ref="fd", tol=1e-7))
add(pair("r18c_crank_nicolson_jacfwd_wrt_u0",
         lambda: revsrc.jacfwd(crank_nicolson, argnums=1)(0.5, U0),
         lambda: fdj(lambda u: crank_nicolson(0.5, u), U0), tol=1e-6))


def wave_leapfrog(c, u0, steps=40, dt=0.01):
    r2 = (c * dt / DX) ** 2
    u_prev = u0.copy()
    u = u0.copy()
    for _ in range(steps):
        u_next = np.empty_like(u)
        u_next[1:-1] = 2 * u[1:-1] - u_prev[1:-1] + r2 * (u[2:] - 2 * u[1:-1] + u[:-2])
        u_next[0] = u_next[-1] = 0.0
        u_prev, u = u, u_next
    return u


def wave_energy_at_probe(c):
    return wave_leapfrog(c, U0)[NX // 3] ** 2 + wave_leapfrog(c, U0)[2 * NX // 3] ** 2


add(G("r18c_wave_leapfrog_chained_assign_swap", wave_energy_at_probe, (0.9,), ref="fd", tol=1e-7))
add(JV("r18c_wave_leapfrog_jvp", wave_energy_at_probe, (0.9,), (1.0,), tol=1e-7))


def heat2d(kappa, steps=15, dt=5e-4, n=12):
    h = 1.0 / (n - 1)
    y, x = np.mgrid[0:n, 0:n] * h
    T = np.exp(-30 * ((x - 0.5) ** 2 + (y - 0.5) ** 2))
    for _ in range(steps):
        lap = (np.roll(T, 1, 0) + np.roll(T, -1, 0) + np.roll(T, 1, 1) + np.roll(T, -1, 1) - 4 * T) / h ** 2
        T = T + dt * kappa * lap
        T[0, :] = T[-1, :] = 0.0
        T[:, 0] = 0.0
        T[:, -1] = T[:, -2]  # insulated right edge
    return np.sum(T * np.hanning(n)[None, :])


add(G("r18c_heat2d_roll_axes_edge_copies", heat2d, (0.6,), ref="fd", tol=1e-7))
add(G("r18c_heat2d_backend_jax", heat2d, (0.6,), ref="fd", tol=1e-7, backend="jax"))


def source_inversion(q, kappa=0.3, dt=1e-3, steps=30):
    # source q (NX,) added with np.add.at at a few sensor-driven indices
    u = np.zeros(NX)
    idx = np.array([3, 3, 10, 17])
    for _ in range(steps):
        s = np.zeros(NX)
        np.add.at(s, idx, q[idx])
        u[1:-1] = u[1:-1] + dt * (kappa * (u[2:] - 2 * u[1:-1] + u[:-2]) / DX ** 2 + s[1:-1])
    return np.sum((u - 0.01) ** 2)


QS = np.linspace(0.5, 1.5, NX)
add(G("r18c_source_add_at_repeated_index", source_inversion, (QS,), ref="fd", tol=1e-7))


def burgers_viscous(u0, nu=0.05, dt=2e-3, steps=25):
    u = u0.copy()
    for _ in range(steps):
        ux = (np.roll(u, -1) - np.roll(u, 1)) / (2 * DX)
        uxx = (np.roll(u, -1) - 2 * u + np.roll(u, 1)) / DX ** 2
        u = u + dt * (-u * ux + nu * uxx)
    return u


def burgers_tv(u0):
    return np.sum(np.abs(np.diff(burgers_viscous(u0))))


add(G("r18c_burgers_total_variation_abs_diff", burgers_tv, (np.sin(2 * np.pi * XG) + 0.2,), ref="fd", tol=1e-7))
add(pair("r18c_burgers_vmap_grad_over_nu",
         lambda: revsrc.vmap(revsrc.grad(lambda nu: np.sum(burgers_viscous(U0, nu) ** 2)))(np.array([0.02, 0.05, 0.1])),
         lambda: np.array([ag()[0].grad(lambda nu: ag()[1].sum(agify(burgers_viscous)(U0, nu) ** 2))(v) for v in (0.02, 0.05, 0.1)]), tol=1e-10))


def steady_poisson(f_src, bc_left, bc_right):
    n = f_src.shape[0]
    A = -laplacian_1d(n, DX)
    rhs = f_src.copy()
    rhs[0] += bc_left / DX ** 2
    rhs[-1] += bc_right / DX ** 2
    return np.linalg.solve(A, rhs)


def poisson_loss(f_src, bl, br):
    u = steady_poisson(f_src, bl, br)
    return np.mean(u ** 2) + np.clip(u, 0.1, 0.5).sum()


FS = 10 * np.sin(np.pi * XG)
add(G("r18c_poisson_rhs_boundary_iadd", poisson_loss, (FS, 0.2, -0.1), argnums=(0, 1, 2), ref="fd", tol=1e-7))


def cfl_adaptive_advection(c, T=0.3):
    # time step from CFL, data-dependent while loop, final partial step
    u = U0.copy()
    t = 0.0
    dt_max = 0.5 * DX / abs(c)
    while t < T:
        dt = min(dt_max, T - t)
        u = u - c * dt / DX * (u - np.roll(u, 1))
        t += dt
    return np.sum(u * XG)


add(G("r18c_cfl_while_partial_step", cfl_adaptive_advection, (0.7,), ref="fd", tol=1e-6))


def heat_empty_steps(kappa):
    u = heat_explicit(kappa, U0, steps=0)
    return np.sum(u) + 0.0 * kappa


add(G("r18c_heat_zero_steps_edge", heat_empty_steps, (1.0,), ref=lambda: 0.0, tol=1e-15))


def heat_nan_obs(kappa, obs):
    r = heat_explicit(kappa, U0, steps=5) - obs
    return np.nansum(r ** 2)


OBSN = OBS.copy()
OBSN[4] = np.nan
add(G("r18c_heat_nansum_missing_obs", heat_nan_obs, (1.0, OBSN), ref="fd", tol=1e-7))


def heat2d_mgrid_edge_copy(k, n=6):
    # the minimal form of r18c_heat2d_*: a grid from np.mgrid, then an insulated edge
    # copied from its neighbour column
    y, x = np.mgrid[0:n, 0:n] * 0.2
    T = np.exp(-x - y) * k
    T[:, -1] = T[:, -2]
    return np.sum(T ** 2)


add(G("r18c_mgrid_field_edge_column_copy", heat2d_mgrid_edge_copy, (1.3,), ref="fd", tol=1e-7))


def heat2d_meshgrid_edge_copy(k, n=6):
    y, x = np.meshgrid(np.arange(n) * 0.2, np.arange(n) * 0.2, indexing="ij")
    T = np.exp(-x - y) * k
    T[:, -1] = T[:, -2]
    return np.sum(T ** 2)


add(G("r18c_meshgrid_field_edge_column_copy", heat2d_meshgrid_edge_copy, (1.3,), ref="fd", tol=1e-7))


def ghost_cells_view(kappa, steps=10, dt=1e-4):
    # interior as a view of a padded array; writes through the view update the array
    up = np.zeros(NX + 2)
    up[1:-1] = U0
    interior = up[1:-1]
    for _ in range(steps):
        up[0] = up[1]          # Neumann ghost cells
        up[-1] = up[-2]
        lap = (up[2:] - 2 * interior + up[:-2]) / DX ** 2
        interior += dt * kappa * lap
    return np.sum(up ** 2)


add(G("r18c_ghost_cells_interior_view_iadd", ghost_cells_view, (0.8,), ref="fd", tol=1e-7))


def transpose_write_stencil(kappa, n=8):
    A = np.outer(np.linspace(0.1, 1.0, n), np.linspace(1.0, 2.0, n)) * kappa
    A.T[0] = A[:, 1] * 2.0       # write the first column through the transpose
    flat = A.reshape(-1)
    flat[::n + 1] += 1.0         # diagonal through a reshape view
    return np.sum(np.tanh(A))


add(G("r18c_transpose_and_reshape_view_writes", transpose_write_stencil, (0.7,), ref="fd", tol=1e-7))


def implicit_adi_like(kappa, n=8, dt=1e-3):
    # one ADI-like sweep: solve along rows, then along columns, writing out[:, k]
    h = 1.0 / (n - 1)
    L = laplacian_1d(n, h)
    A = np.eye(n) - 0.5 * dt * kappa * L
    T = np.outer(np.sin(np.linspace(0, 3, n)), np.cos(np.linspace(0, 2, n)))
    half = np.empty_like(T)
    for i in range(n):
        half[i, :] = np.linalg.solve(A, T[i, :])
    out = np.empty_like(T)
    for k in range(n):
        out[:, k] = np.linalg.solve(A, half[:, k])
    return np.sum(out ** 2)


add(G("r18c_adi_row_column_solves_out_col_writes", implicit_adi_like, (0.9,), ref="fd", tol=1e-7))
add(H("r18c_adi_row_column_solves_hessian", implicit_adi_like, (0.9,), ref="fd", tol=1e-5))

# ---- backend="jax"
add(G("r18c_heat_nansum_missing_obs_backend_jax", heat_nan_obs, (1.0, OBSN), ref="fd", tol=1e-7, backend="jax"))
add(G("r18c_heat_flux_form_backend_jax", field_loss, (KAP,), ref="fd", tol=1e-6, backend="jax"))
add(G("r18c_cfl_while_min_backend_jax", cfl_adaptive_advection, (0.7,), ref="fd", tol=1e-6, backend="jax"))
add(G("r18c_backward_euler_backend_jax", be_loss, (0.7,), ref="fd", tol=1e-7, backend="jax"))
add(G("r18c_muscl_minmod_backend_jax", muscl_loss, (U0S,), ref="ag", tol=1e-10, backend="jax"))
add(G("r18c_ghost_cells_view_backend_jax", ghost_cells_view, (0.8,), ref="fd", tol=1e-7, backend="jax"))


def porous_medium(h0, dt=2e-4, steps=30):
    # porous-medium equation h_t = (h^2/2)_xx on a bed with dry cells; the diffusivity
    # sqrt(h) is taken only where the cell is wet, 0 in dry cells
    h = h0.copy()
    for _ in range(steps):
        D = np.where(h > 0, np.sqrt(np.abs(h)), 0.0)
        flux = 0.5 * (D[1:] + D[:-1]) * np.diff(h) / DX
        h[1:-1] += dt * np.diff(flux) / DX
    return np.sum(h ** 2)


H0 = np.maximum(0.5 - 4 * (XG - 0.5) ** 2, 0.0)
add(G("r18c_porous_medium_where_sqrt_abs", porous_medium, (H0 + 0.01,), ref="fd", tol=1e-6))


def wet_dry_mass(h):
    # np.where with a sqrt that is nan in the arm not taken (dry cells hold -0.1)
    return np.sum(np.where(h > 0, np.sqrt(h), 0.0) * XG)


HWD = np.where(XG < 0.5, 0.3 + XG, -0.1)
add(G("r18c_wet_dry_where_sqrt_nan_arm", wet_dry_mass, (HWD,), ref=lambda: np.where(HWD > 0, 0.5 / np.sqrt(np.abs(HWD)), 0.0) * XG, tol=1e-12))
add(G("r18c_wet_dry_where_sqrt_nan_arm_backend_jax", wet_dry_mass, (HWD,), ref=lambda: np.where(HWD > 0, 0.5 / np.sqrt(np.abs(HWD)), 0.0) * XG, tol=1e-12, backend="jax"))


def hottest_sensor(kappa, readings_mask):
    u = heat_explicit(kappa, U0, steps=10)
    return np.nanmax(np.where(readings_mask, u, np.nan))


MASK = (np.arange(NX) % 3) == 0
add(G("r18c_hottest_sensor_nanmax", hottest_sensor, (0.8, MASK), ref="fd", tol=1e-7))
