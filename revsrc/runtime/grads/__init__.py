"""The helpers the NumPy rules call from generated adjoint code, by family.

A rule's body is inlined into the adjoint, but a call inside it stays a call: logic
with branches on shapes, axes or argument types lives here, as ordinary functions of
arrays. Each takes the values the rule has at hand (the output adjoint ``g``, the
output ``ans``, the primal's arguments) and returns one contribution. Contributions
keep the dtype of the values they are built from, so a float32 program stays float32.

One module per family, as the rules are grouped (revsrc/rules/): reductions,
elementwise, calculus (differences, integrals, interpolation, polynomials,
convolution), fft, linalg, shape and indexing; common holds what they share. The
forms adjoints take are in revsrc/runtime/values.py. Generated code names a helper by
its module (``_linalg.dot_grad_a``), so each module's last name is unique among the
run-time modules (tests/test_jax_backend.py checks it).
"""
