"""Round 11, part i: batching array programs with vmap (in_axes/out_axes pytrees, negative
axes, axis_size, mapped derivatives), on mass-spring cloth, audio and climate programs."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, agify, ag, fd_checked  # noqa: F401

CASES = []
add = CASES.append
rng = np.random.default_rng(21)


def _jvmap(f, **kw):
    return jax().vmap(jaxify(f), **kw)


# -- mass-spring cloth: a 3x3 grid of particles, structural springs ---------------------

def grid_springs(n):
    springs = []
    for i in range(n):
        for j in range(n):
            k = i * n + j
            if j + 1 < n:
                springs.append((k, k + 1))
            if i + 1 < n:
                springs.append((k, k + n))
    return springs


SPR = np.array(grid_springs(3))
POS0 = np.array([[j * 1.0, i * 1.0, 0.0] for i in range(3) for j in range(3)])


def cloth_energy(pos, stiffness=50.0, rest=1.0, mass=0.1, g=9.81):
    d = pos[SPR[:, 0]] - pos[SPR[:, 1]]
    length = np.sqrt(np.sum(d * d, axis=1))
    elastic = 0.5 * stiffness * np.sum((length - rest) ** 2)
    return elastic + mass * g * np.sum(pos[:, 2])


PERT = POS0 + 0.05 * rng.normal(size=POS0.shape)
add(G("r11_cloth_energy_forces", cloth_energy, (PERT,), ref="ag"))
add(H("r11_cloth_energy_stiffness_matrix", cloth_energy, (PERT,), ref="ag", tol=1e-8))


def cloth_sim(pos, vel, dt=0.01, steps=20):
    force = revsrc.grad(cloth_energy)
    for _ in range(steps):
        f = -force(pos)
        f[0] = 0.0            # pinned corners
        f[2] = 0.0
        vel = 0.98 * vel + dt * f / 0.1
        pos = pos + dt * vel
    return pos


def cloth_sim_plain(pos, vel, dt=0.01, steps=20):
    def force(p):
        return ag()[0].grad(agify(cloth_energy))(p)
    for _ in range(steps):
        f = -force(pos)
        f[0] = 0.0
        f[2] = 0.0
        vel = 0.98 * vel + dt * f / 0.1
        pos = pos + dt * vel
    return pos


add(pair("r11_cloth_sim_calls_grad", lambda: cloth_sim(PERT, np.zeros_like(PERT)),
         lambda: cloth_sim_plain(PERT, np.zeros_like(PERT)), tol=1e-10))


def cloth_pull(F, pos=PERT, steps=8, dt=0.02):
    vel = np.zeros_like(pos)
    for _ in range(steps):
        d = pos[SPR[:, 0]] - pos[SPR[:, 1]]
        L = np.linalg.norm(d, axis=1, keepdims=True)
        fs = 50.0 * (L - 1.0) * d / L
        f = np.zeros_like(pos)
        np.add.at(f, SPR[:, 0], -fs)
        np.add.at(f, SPR[:, 1], fs)
        f[8] = f[8] + F
        vel = vel + dt * f / 0.1
        pos = pos + dt * vel
    return np.sum(pos[8] ** 2)


add(G("r11_cloth_add_at_force", cloth_pull, (np.array([0.5, 0.5, -1.0]),), ref="fd"))


# -- vmap of array programs with in_axes / out_axes -------------------------------------

def stft_frame_energy(frame, window):
    X = frame * window
    return np.array([np.sum(X ** 2), np.max(np.abs(X))])


FR = rng.normal(size=(5, 8))
WIN = np.hanning(8)
add(pair("r11_vmap_frames_in_axes_none", lambda: revsrc.vmap(stft_frame_energy, in_axes=(0, None))(FR, WIN),
         lambda: np.stack([stft_frame_energy(f, WIN) for f in FR]), tol=1e-12))
add(pair("r11_vmap_frames_out_axes_1", lambda: revsrc.vmap(stft_frame_energy, in_axes=(0, None), out_axes=1)(FR, WIN),
         lambda: np.stack([stft_frame_energy(f, WIN) for f in FR]).T, tol=1e-12))
add(pair("r11_vmap_frames_axis_1", lambda: revsrc.vmap(stft_frame_energy, in_axes=(1, None))(FR.T, WIN),
         lambda: np.stack([stft_frame_energy(f, WIN) for f in FR]), tol=1e-12))
add(pair("r11_vmap_frames_axis_neg1", lambda: revsrc.vmap(stft_frame_energy, in_axes=(-1, None))(FR.T, WIN),
         lambda: np.stack([stft_frame_energy(f, WIN) for f in FR]), tol=1e-12))


def loudness(params, frame):
    return np.log(np.sum((params["g"] * frame) ** 2) + params["eps"])


LP = {"g": np.linspace(0.5, 1.5, 8), "eps": 1e-3}
add(pair("r11_vmap_grad_dict_params", lambda: revsrc.vmap(revsrc.grad(loudness), in_axes=(None, 0))(LP, FR),
         lambda: {k: np.stack([ag()[0].grad(agify(loudness))(LP, f)[k] for f in FR]) for k in LP}))
add(pair("r11_vmap_dict_in_axes_prefix",
         lambda: revsrc.vmap(loudness, in_axes=({"g": None, "eps": 0}, 0))({"g": LP["g"], "eps": np.array([1e-3, 1e-2, 0.1, 1.0, 2.0])}, FR),
         lambda: np.array([loudness({"g": LP["g"], "eps": e}, f) for e, f in zip([1e-3, 1e-2, 0.1, 1.0, 2.0], FR)]), tol=1e-12))


def two_outputs(x, y):
    return np.sum(x * y), x - y


add(pair("r11_vmap_tuple_out_axes", lambda: revsrc.vmap(two_outputs, out_axes=(0, 1))(FR, FR[::-1]),
         lambda: (np.sum(FR * FR[::-1], axis=1), (FR - FR[::-1]).T), tol=1e-12))


def bias_only(b):
    return np.tanh(b) * 2.0


add(pair("r11_vmap_axis_size_unmapped", lambda: revsrc.vmap(lambda b: bias_only(b), in_axes=None, axis_size=3)(np.array([0.1, 0.2])),
         lambda: np.tile(np.tanh(np.array([0.1, 0.2])) * 2.0, (3, 1)), tol=1e-12))


def per_sample_branch(x):
    if np.sum(x) > 0:
        return np.sum(np.sin(x))
    return np.sum(x ** 2)


add(pair("r11_vmap_branch_per_example", lambda: revsrc.vmap(per_sample_branch)(FR),
         lambda: np.array([per_sample_branch(f) for f in FR]), tol=1e-12))
add(pair("r11_vmap_grad_branch_per_example", lambda: revsrc.vmap(revsrc.grad(per_sample_branch))(FR),
         lambda: np.stack([np.cos(f) if np.sum(f) > 0 else 2 * f for f in FR]), tol=1e-12))


def hessian_batch(x):
    return np.sum(x ** 3) * np.sum(x)


def sin_times_sum(x):
    return np.sin(x) * np.sum(x)


add(pair("r11_vmap_hessian", lambda: revsrc.vmap(revsrc.hessian(hessian_batch))(FR[:3, :3]),
         lambda: np.stack([ag()[0].hessian(agify(hessian_batch))(r) for r in FR[:3, :3]])))
add(pair("r11_vmap_jacfwd", lambda: revsrc.vmap(revsrc.jacfwd(sin_times_sum))(FR[:3, :3]),
         lambda: np.stack([ag()[0].jacobian(agify(sin_times_sum))(r) for r in FR[:3, :3]])))


def vmap_inside_loss(w, X):
    preds = revsrc.vmap(lambda x: np.tanh(x @ w), in_axes=0)(X)
    return np.sum(preds)


add(pair("r11_vmap_of_closure_over_array", lambda: vmap_inside_loss(np.ones(8) * 0.1, FR),
         lambda: np.sum(np.tanh(FR @ (np.ones(8) * 0.1))), tol=1e-12))


# -- audio: FM synthesis, ADSR, biquad (array forms) -----------------------------------------

def fm_wave(params, t):
    fc, fm, index = params
    return np.sin(2 * np.pi * fc * t + index * np.sin(2 * np.pi * fm * t))


TT = np.linspace(0, 0.01, 64)
TARGET = fm_wave((440.0, 220.0, 1.5), TT)


def spectral_fit(params):
    return np.mean((fm_wave(params, TT) - TARGET) ** 2)


add(G("r11_fm_fit_tuple_params", spectral_fit, ((430.0, 225.0, 1.2),), ref="ag"))


def adsr_np(t, a, d, s, r, dur):
    att = np.clip(t / a, 0.0, 1.0)
    dec = 1.0 - (1.0 - s) * np.clip((t - a) / d, 0.0, 1.0)
    rel = np.clip(1.0 - (t - dur) / r, 0.0, 1.0)
    return np.where(t < a, att, np.where(t < dur, dec, s * rel))


def envelope_loss(a, tt=np.linspace(0.0, 0.5, 40)):
    return np.sum(adsr_np(tt, a, 0.05, 0.6, 0.1, 0.3) ** 2)


add(G("r11_adsr_where_attack", envelope_loss, (0.031,), ref="fd", tol=1e-6))


def karplus(decay, n=60, period=7):
    buf = list(np.sin(np.arange(period)))
    out = []
    for k in range(n):
        v = decay * 0.5 * (buf[k] + buf[k + 1])
        buf.append(v)
        out.append(v)
    return sum(o * o for o in out)


add(G("r11_karplus_strong_list_buffer", karplus, (0.99,), ref="ag"))


def ring_mod(x, f=3.0):
    t = np.arange(x.size) / x.size
    y = x * np.cos(2 * np.pi * f * t)
    return np.sum(np.abs(np.fft.fft(y)) ** 2) / x.size


add(G("r11_fft_parseval", ring_mod, (FR[0],), ref=lambda: 2 * FR[0] * np.cos(2 * np.pi * 3.0 * np.arange(8) / 8) ** 2))


# -- climate: two-box energy balance, ice-albedo feedback ----------------------------------

def two_box(lam, forcing=3.7, C=8.0, C0=100.0, gamma=0.7, years=60):
    T, T0 = 0.0, 0.0
    traj = []
    for _ in range(years):
        dT = (forcing - lam * T - gamma * (T - T0)) / C
        dT0 = gamma * (T - T0) / C0
        T, T0 = T + dT, T0 + dT0
        traj.append(T)
    return traj[-1] + 0.1 * sum(traj) / len(traj)


add(G("r11_two_box_climate_lambda", two_box, (1.2,), ref="ag"))
add(pair("r11_two_box_vmap_grad_lambda", lambda: revsrc.vmap(revsrc.grad(two_box))(np.array([0.8, 1.2, 1.6])),
         lambda: np.array([ag()[0].grad(two_box)(v) for v in (0.8, 1.2, 1.6)]), tol=1e-10))
add(pair("r11_two_box_jit", lambda: revsrc.jit(two_box)(1.2), lambda: two_box(1.2), tol=0.0))


def budyko(S, T0=288.0, steps=200):
    T = T0
    for _ in range(steps):
        alpha = 0.62 if T < 263.0 else (0.25 if T > 283.0 else 0.62 - 0.37 * (T - 263.0) / 20.0)
        T = T + 0.05 * (S / 4 * (1 - alpha) - (203.3 + 2.09 * (T - 273.15)))
    return T


add(G("r11_budyko_piecewise_albedo", budyko, (1361.0,), ref="ag", tol=1e-7))
add(G("r11_budyko_initial_temperature", budyko, (1361.0, 250.0), argnums=1, ref="ag", tol=1e-7))
