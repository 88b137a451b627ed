"""Round 16, part d: astronomy and geodesy -- Kepler's equation by Newton in a while loop,
orbital elements to position, great-circle distances with arctan2 / arcsin, light curves
with np.where."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, ag, agify, fd_checked, fd_dirs, jax, jaxify  # noqa: F401
from user_programs15_util import VG, SAME, fdj  # noqa: F401

CASES = []
add = CASES.append


def kepler_E(M, e):
    E = M if e < 0.8 else math.pi
    while True:
        dE = (E - e * math.sin(E) - M) / (1 - e * math.cos(E))
        E -= dE
        if abs(dE) < 1e-15:
            break
    return E


def kepler_dE(M, e):
    E = kepler_E(M, e)
    return 1.0 / (1 - e * math.cos(E)), math.sin(E) / (1 - e * math.cos(E))


add(VG("r16_kepler_while_true_break_vg", kepler_E, (1.1, 0.3), argnums=(0, 1), ref=lambda: kepler_dE(1.1, 0.3), tol=1e-12))
add(G("r16_kepler_high_e_branch", kepler_E, (0.4, 0.9), argnums=(0, 1), ref=lambda: kepler_dE(0.4, 0.9), tol=1e-10))
add(H("r16_kepler_hessian_M", lambda M: kepler_E(M, 0.3), (1.1,), ref="fd", tol=1e-5))
add(pair("r16_kepler_vmap_grad_M", lambda: revsrc.vmap(revsrc.grad(kepler_E), in_axes=(0, None))(np.array([0.2, 1.0, 2.5]), 0.5),
         lambda: np.array([kepler_dE(m, 0.5)[0] for m in (0.2, 1.0, 2.5)]), tol=1e-12))
add(pair("r16_kepler_jit_exact", lambda: revsrc.jit(kepler_E)(1.1, 0.3), lambda: kepler_E(1.1, 0.3), tol=0.0))


def orbit_position(el, t):
    a, e, inc, Om, w, M0 = el
    n = math.sqrt(1.0 / a ** 3)
    M = M0 + n * t
    E = kepler_E(M, e)
    nu = 2 * math.atan2(math.sqrt(1 + e) * math.sin(E / 2), math.sqrt(1 - e) * math.cos(E / 2))
    r = a * (1 - e * math.cos(E))
    xo, yo = r * math.cos(nu), r * math.sin(nu)
    cO, sO, ci, si, cw, sw = math.cos(Om), math.sin(Om), math.cos(inc), math.sin(inc), math.cos(w), math.sin(w)
    x = (cO * cw - sO * sw * ci) * xo + (-cO * sw - sO * cw * ci) * yo
    y = (sO * cw + cO * sw * ci) * xo + (-sO * sw + cO * cw * ci) * yo
    z = (sw * si) * xo + (cw * si) * yo
    return np.array([x, y, z])


EL = np.array([1.3, 0.2, 0.3, 0.5, 1.0, 0.1])
add(pair("r16_orbit_elements_jacrev", lambda: revsrc.jacrev(orbit_position)(EL, 2.0),
         lambda: fdj(lambda v: orbit_position(v, 2.0), EL), tol=1e-6))
add(pair("r16_orbit_elements_jacfwd_t", lambda: revsrc.jacfwd(orbit_position, argnums=1)(EL, 2.0),
         lambda: fdj(lambda t: orbit_position(EL, float(t)), 2.0), tol=1e-6))


def great_circle(p, q, R=6371.0):
    lat1, lon1 = p
    lat2, lon2 = q
    dlat, dlon = lat2 - lat1, lon2 - lon1
    a = math.sin(dlat / 2) ** 2 + math.cos(lat1) * math.cos(lat2) * math.sin(dlon / 2) ** 2
    return 2 * R * math.asin(math.sqrt(a))


def vincenty_atan2(p, q, R=6371.0):
    lat1, lon1 = p
    lat2, lon2 = q
    dl = lon2 - lon1
    num = math.hypot(math.cos(lat2) * math.sin(dl),
                     math.cos(lat1) * math.sin(lat2) - math.sin(lat1) * math.cos(lat2) * math.cos(dl))
    den = math.sin(lat1) * math.sin(lat2) + math.cos(lat1) * math.cos(lat2) * math.cos(dl)
    return R * math.atan2(num, den)


P1, P2 = (0.8, -0.1), (0.6, 0.3)
add(VG("r16_haversine_tuple_unpack_vg", great_circle, (P1, P2), argnums=(0, 1), ref="ag", tol=1e-9))
add(G("r16_vincenty_atan2_hypot", vincenty_atan2, (P1, P2), argnums=(0, 1), ref="ag", tol=1e-9))
add(pair("r16_haversine_equals_vincenty_grad",
         lambda: revsrc.grad(great_circle)(P1, P2), lambda: revsrc.grad(vincenty_atan2)(P1, P2), tol=1e-9))


def geodesic_np(P):
    # total path length through points given as an (n, 2) array of lat/lon
    lat, lon = P[:, 0], P[:, 1]
    a = np.sin(np.diff(lat) / 2) ** 2 + np.cos(lat[:-1]) * np.cos(lat[1:]) * np.sin(np.diff(lon) / 2) ** 2
    return np.sum(2 * np.arcsin(np.sqrt(a)))


PTS = np.array([[0.1, 0.2], [0.3, 0.1], [0.5, 0.4], [0.45, 0.8]])
add(VG("r16_geodesic_np_diff_arcsin_vg", geodesic_np, (PTS,), ref="ag", tol=1e-10))
add(H("r16_geodesic_np_hessian", geodesic_np, (PTS,), ref="ag", tol=1e-8))


def transit_curve(params, t):
    # box-shaped transit with limb-darkening-ish smooth edges, via np.where
    t0, dur, depth = params
    x = np.abs(t - t0) / (dur / 2)
    flux = np.where(x < 1.0, 1.0 - depth * (1.0 - 0.3 * x ** 2), 1.0)
    return flux


TT = np.linspace(-1.0, 1.0, 9)
PP = np.array([0.05, 0.8, 0.01])


def transit_chi2(params):
    return np.sum((transit_curve(params, TT) - (1.0 - 0.008 * (np.abs(TT) < 0.4))) ** 2)


add(VG("r16_transit_np_where_vg", transit_chi2, (PP,), ref="ag", tol=1e-10))
add(pair("r16_transit_jacfwd_params", lambda: revsrc.jacfwd(transit_curve)(PP, TT),
         lambda: ag()[0].jacobian(agify(transit_curve))(PP, TT), tol=1e-12))


def radial_velocity(K, e, w, phases):
    out = []
    for M in phases:
        E = kepler_E(M, e)
        nu = 2 * math.atan(math.sqrt((1 + e) / (1 - e)) * math.tan(E / 2))
        out.append(K * (math.cos(nu + w) + e * math.cos(w)))
    return sum(v * v for v in out)


PH = (0.3, 1.2, 2.0, 2.9)
add(VG("r16_radial_velocity_list_then_genexpr_vg", radial_velocity, (30.0, 0.25, 0.7, PH), argnums=(0, 1, 2), ref="fd", tol=1e-6))


def airmass_extinction(z_deg, k=0.2):
    z = np.radians(z_deg)
    X = 1.0 / (np.cos(z) + 0.50572 * (96.07995 - z_deg) ** (-1.6364))
    return k * X


add(pair("r16_airmass_vmap_elementwise", lambda: revsrc.vmap(revsrc.grad(airmass_extinction))(np.array([10.0, 45.0, 80.0])),
         lambda: np.array([ag()[0].grad(agify(airmass_extinction))(z) for z in (10.0, 45.0, 80.0)]), tol=1e-10))
add(pair("r16_kepler_linearize", lambda: revsrc.linearize(kepler_E, 1.1, 0.3)[1](1.0, 0.0),
         lambda: kepler_dE(1.1, 0.3)[0], tol=1e-12))
add(pair("r16_kepler_backend_jax_while_true", lambda: revsrc.grad(kepler_E, backend="jax")(1.1, 0.3),
         lambda: kepler_dE(1.1, 0.3)[0], tol=1e-12))
