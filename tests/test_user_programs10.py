"""Runs the user programs of tests/user_programs10_*.py against their references.

Corpus 10 (round 10, written by a tester who has read neither revsrc's source nor the
earlier rounds' cases), leaning on domains earlier rounds did not: signal processing
(convolution by loops, IIR filters, spectral sums), image processing (blur, gradients,
total variation), optimisation inner loops (line searches, trust regions, projected
gradient), chemistry (kinetics, Arrhenius, equilibrium), epidemiology and population
dynamics, queueing and inventory models, machine learning beyond MLPs (EM steps, factor
models, matrix factorisation, ranking and contrastive losses, layer norms, a small
transformer block), plus Python styles, NumPy idioms, compositions and edge values.
Each case has an independent reference: JAX x64, autograd, self-checked central
differences or a closed form.

``KNOWN`` records each case that is not "ok" today with its class ("refused-doc",
"refused-undoc", "wrong" or "crashed"). A KNOWN case must keep that outcome; one that
starts passing fails, asking for its entry to be removed.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(__file__))

from user_programs6_harness import corpus_tests  # noqa: E402

MODULES = ["user_programs10_" + s for s in "abcdefghijklmnopqrstuvwxyz"
           if os.path.exists(os.path.join(os.path.dirname(__file__), f"user_programs10_{s}.py"))]

KNOWN = {
    # -- REFUSED, undocumented -----------------------------------------------------------------------
    # E202 "attribute .s is used on or with a differentiated value": a NamedTuple state rebound
    # to one holding differentiated fields: st = S(1.0, 2.0); st = step(st, b); return st.s
    # (containers.md lists namedtuples; S(b, 2.0).s without rebinding works)
    "r10_sir_namedtuple_state": "refused-undoc",
    "r10_sir_jvp_beta_gamma": "refused-undoc",
}

CASES, test_names_unique, test_user_program = corpus_tests(MODULES, KNOWN, __file__)
