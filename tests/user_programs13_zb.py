"""Round 13, part zb: derivatives inside the loss -- a physics-informed residual using
revsrc.grad of the model in x, a Newton solve using revsrc.grad inside a while loop, a
Laplacian by revsrc.hessian inside, jvp inside grad, each against closed forms / autograd."""
import math

import numpy as np

import revsrc
from user_programs7_harness import G, H, JV, pair, jax, jaxify, fd_checked, agify, ag  # noqa: F401
from user_programs13_util import VG, fdj

CASES = []
add = CASES.append


def u(x, th):
    return th[0] * math.sin(th[1] * x) + th[2] * x * x


du_dx = revsrc.grad(u, argnums=0)
XS = [0.1, 0.4, 0.8, 1.3]


def pinn_loss(th):
    loss = 0.0
    for x in XS:
        r = du_dx(x, th) - math.cos(x)
        loss += r * r
    return loss + (u(0.0, th) - 0.0) ** 2


def pinn_ref(th):
    a, b, c = th
    g = np.zeros(3)
    for x in XS:
        r = a * b * math.cos(b * x) + 2 * c * x - math.cos(x)
        g += 2 * r * np.array([b * math.cos(b * x), a * math.cos(b * x) - a * b * x * math.sin(b * x), 2 * x])
    return g


TH = np.array([0.8, 1.2, -0.1])
add(VG("r13_zb_pinn_grad_inside", pinn_loss, (TH,), ref=lambda: pinn_ref(TH), tol=1e-12))
add(H("r13_zb_pinn_hessian", pinn_loss, (TH,), ref="fd", tol=1e-5))


def g_fun(x, a):
    return x ** 3 + a * x - 2.0


dg_dx = revsrc.grad(g_fun)


def newton_inside(a):
    x = 1.0
    while abs(g_fun(x, a)) > 1e-14:
        x = x - g_fun(x, a) / dg_dx(x, a)
    return x * x


def newton_inside_ref(a):
    x = 1.0
    for _ in range(60):
        x = x - g_fun(x, a) / (3 * x * x + a)
    return 2 * x * (-x / (3 * x * x + a))


add(pair("r13_zb_newton_with_revsrc_grad_inside", lambda: revsrc.grad(newton_inside)(0.7), lambda: newton_inside_ref(0.7), tol=1e-9))
add(pair("r13_zb_jit_newton_with_grad_inside", lambda: revsrc.jit(revsrc.grad(newton_inside))(0.7), lambda: newton_inside_ref(0.7), tol=1e-9))


def energy(p):
    return np.sum(p ** 4) + p[0] * p[1]


def laplacian_loss(w):
    p = w * np.array([1.0, 2.0])
    Hm = revsrc.hessian(energy)(p)
    return np.trace(Hm) * w


# trace H = 12 (p0^2 + p1^2) = 12 w^2 (1 + 4) = 60 w^2 ; loss = 60 w^3
add(pair("r13_zb_hessian_inside_grad", lambda: revsrc.grad(laplacian_loss)(0.7), lambda: 180 * 0.49, tol=1e-12))


def jvp_inside(th):
    _, t = revsrc.jvp(lambda x: u(x, th), (0.5,), (1.0,))
    return t ** 2


add(pair("r13_zb_jvp_inside_grad", lambda: revsrc.grad(jvp_inside)(TH),
         lambda: fd_checked(lambda th: (th[0] * th[1] * math.cos(th[1] * 0.5) + 2 * th[2] * 0.5) ** 2, (TH,))[0], tol=1e-7))


def value_and_grad_inside(th):
    v, g = revsrc.value_and_grad(u)(0.5, th)
    return v * g


add(pair("r13_zb_value_and_grad_inside", lambda: revsrc.grad(value_and_grad_inside)(TH),
         lambda: fd_checked(value_and_grad_inside, (TH,))[0], tol=1e-7))
add(pair("r13_zb_vmap_pinn_residuals", lambda: revsrc.vmap(du_dx, in_axes=(0, None))(np.array(XS), TH),
         lambda: np.array([TH[0] * TH[1] * math.cos(TH[1] * x) + 2 * TH[2] * x for x in XS]), tol=1e-14))
XT = (0.1, 0.4, 0.8, 1.3)
XA = np.array(XS)


def pinn_tuple(th):
    loss = 0.0
    for x in XT:
        loss += (du_dx(x, th) - math.cos(x)) ** 2
    return loss + u(0.0, th) ** 2


def pinn_indexed(th):
    loss = 0.0
    for i in range(len(XS)):
        loss += (du_dx(XS[i], th) - math.cos(XS[i])) ** 2
    return loss + u(0.0, th) ** 2


def pinn_array(th):
    loss = 0.0
    for x in XA:
        loss += (du_dx(x, th) - math.cos(x)) ** 2
    return loss + u(0.0, th) ** 2


add(G("r13_zb_pinn_over_global_tuple", pinn_tuple, (TH,), ref=lambda: pinn_ref(TH), tol=1e-12))
# the refusal names an internal temporary (`_t1`): classed "crashed" by the harness
add(G("r13_zb_pinn_indexed_global_list", pinn_indexed, (TH,), ref=lambda: pinn_ref(TH), tol=1e-12))
add(G("r13_zb_pinn_over_global_array", pinn_array, (TH,), ref=lambda: pinn_ref(TH), tol=1e-12))
