"""Composable derivatives: jvp, vjp, the Jacobians, the Hessian, Hessian-vector products.

These follow JAX's names and conventions. Each is a few lines over two programs that
revsrc writes: the forward-mode program of `revsrc.jvp` (the value and a directional
derivative) and the reverse-mode program of `revsrc.vjp` (the value and the
cotangent pulled back to the inputs). Derivatives are ordinary functions, so these
apply to them too: `hessian` is forward mode over reverse mode.

forward.py has jvp, linearize and vjp; jacobians.py the Jacobians and Hessians built on
them.
"""
from .forward import _forward, jvp, linearize, vjp
from .jacobians import hessian, hvp, jacfwd, jacobian, jacrev

__all__ = ["hessian", "hvp", "jacfwd", "jacobian", "jacrev", "jvp", "linearize", "vjp"]
