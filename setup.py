"""Build the compiled part of revsrc; everything else is in pyproject.toml.

REVSRC_CYTHON_DEBUG=1 turns bounds, wraparound and initialization checks back on
(and regenerates the C). To go back to a release build after a debug one, rebuild
with `python setup.py build_ext --inplace --force`.
"""
import glob
import os
import sys

import numpy
from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("REVSRC_CYTHON_DEBUG", "") not in ("", "0")
HERE = os.path.dirname(os.path.abspath(__file__))


def write_engine_header():
    """revsrc/_engine_vm.h (the VM: enums, tables, dispatch) from its one source,
    revsrc/_engine_ops.py."""
    sys.path.insert(0, os.path.join(HERE, "revsrc"))
    try:
        import _engine_c
    finally:
        sys.path.pop(0)
    _engine_c.write_vm_header(os.path.join(HERE, "revsrc", "_engine_vm.h"))


write_engine_header()

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
}

# No -ffast-math: results must match Python's float arithmetic and libm bit for bit,
# and fp-contract off keeps a*b+c from becoming one fused multiply-add.
extra_compile_args = ["-O0", "-g"] if DEBUG else ["-O3", "-ffp-contract=off"]

kernels = Extension(
    "revsrc._kernels",
    ["revsrc/_kernels.pyx"],
    # _engine_vm.h is written from _engine_ops.py and _engine_c.py: they stand for it
    # (and, unlike it, belong in the sdist, which ships every `depends` file)
    depends=sorted(glob.glob("revsrc/*.pxi")
                   + ["revsrc/_engine_rt.h", "revsrc/_engine_ops.py", "revsrc/_engine_c.py"]),
    # NumPy's headers: the engine calls NumPy's own float64 ufunc loops
    include_dirs=[numpy.get_include()],
    define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    extra_compile_args=extra_compile_args,
)

setup(ext_modules=cythonize([kernels], compiler_directives=directives, force=DEBUG))
