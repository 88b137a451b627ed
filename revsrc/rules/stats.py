"""Rules for the normal distribution of ``scipy.stats`` (its logpdf, pdf and cdf, with
``loc`` and ``scale``), registered only when SciPy is installed and a program calls
one of them (see ``revsrc.rules``). With z = (x - loc) / scale, each is elementwise.
"""
import numpy as np
import scipy.stats as st

from . import kind_rules as KR
from ..primitives import NUMPY
from .register import elementwise

xp = np  # rebound per alias when a rule is inlined

_INV_SQRT_2PI = 0.3989422804014327


@elementwise("norm.logpdf", st.norm.logpdf, family=NUMPY, kind=KR.elementwise_keywords_kind,
             jax="jax.scipy.stats.norm.logpdf")
def norm_logpdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -(g * z / scale), g * z / scale, g * (z * z - 1.0) / scale


@elementwise("norm.pdf", st.norm.pdf, family=NUMPY, kind=KR.elementwise_keywords_kind,
             jax="jax.scipy.stats.norm.pdf")
def norm_pdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    return -(g * ans * z / scale), g * ans * z / scale, g * ans * (z * z - 1.0) / scale


@elementwise("norm.cdf", st.norm.cdf, family=NUMPY, kind=KR.elementwise_keywords_kind,
             jax="jax.scipy.stats.norm.cdf")
def norm_cdf(g, ans, x, loc=0.0, scale=1.0):
    z = (x - loc) / scale
    density = xp.exp(-0.5 * z * z) * _INV_SQRT_2PI / scale
    return g * density, -(g * density), -(g * density * z)
