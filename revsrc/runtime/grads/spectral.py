"""Adjoints of the eigenvalue-only decompositions: np.linalg.eigvalsh.

The eigenvalues are NumPy's own (LAPACK's routine without eigenvectors); the adjoint
asks np.linalg.eigh for the eigenvectors, as a derivative needs them.
"""
from __future__ import annotations

import numpy as np

from ..values import as_adjoint, as_array
from .common import real_only
from .linalg import _tri_read, mT


def eigvalsh_grad(g, ans, a, UPLO="L"):
    """d w_k = v_k^T dA v_k: the adjoint is V diag(g) V^T, onto the triangle eigvalsh
    reads. Repeated eigenvalues are fine for a symmetric function of them (a sum, a
    norm); the gradient of one of a repeated pair is the one eigh's basis gives."""
    real_only(a, "np.linalg.eigvalsh")
    _, v = np.linalg.eigh(a, UPLO)
    gw = np.asarray(as_array(g, v))
    grad = np.matmul(v * gw[..., None, :], mT(v))
    return as_adjoint(_tri_read(grad, UPLO.upper() == "L"), a)
