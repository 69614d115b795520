"""numpy and scipy for the corpus work, imported with numpy's submodules it never uses left lazy.

Importing scipy.sparse copies numpy's whole namespace into scipy's array-API layer, and so
imports each submodule numpy otherwise loads when first asked for: f2py (with the character-set
detector it imports), testing, ma and polynomial. That was a third of scipy.sparse's import,
at the head of the corpus worker's work, which related papers and paper pages wait for.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType

# Submodules numpy loads on first use, which the corpus work and scipy.sparse never use.
LEFT_LAZY = ("numpy.f2py", "numpy.testing", "numpy.ma", "numpy.polynomial")


def import_numeric() -> None:
    """Import numpy, scipy.sparse and sparse_dot_topn, the submodules of LEFT_LAZY executed
    only if something uses them."""
    import numpy

    for name in LEFT_LAZY:
        _left_lazy(numpy, name)
    import scipy.sparse  # noqa: F401
    import sparse_dot_topn  # noqa: F401


def _left_lazy(numpy: ModuleType, name: str) -> None:
    """Put a module for `name` in place whose code runs at its first attribute read (the
    standard library's lazy loader), unless it is loaded already or cannot be found."""
    if name in sys.modules:
        return
    spec = importlib.util.find_spec(name)
    if spec is None or spec.loader is None:
        return
    spec.loader = importlib.util.LazyLoader(spec.loader)
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    setattr(numpy, name.rpartition(".")[2], module)
