"""The corpus work's numeric libraries: imported without running numpy's submodules that
scipy.sparse's import would run for nothing, which still work when something uses them."""

from __future__ import annotations

import json
import subprocess
import sys

from confsite.render.numeric import LEFT_LAZY

# In a fresh interpreter, as a test process has long imported whatever it imports.
IMPORTED = """
import json, sys
from confsite.render.numeric import import_numeric
import_numeric()
ran = [name for name in sys.argv[1:] if name in sys.modules]
import numpy
scipy_ready = "scipy.sparse" in sys.modules and "sparse_dot_topn" in sys.modules
numpy.testing.assert_array_equal(numpy.ma.masked_array([1, 2]), [1, 2])
print(json.dumps({"ran": ran, "scipy_ready": scipy_ready}))
"""

# For each of LEFT_LAZY, a module it imports as it is executed: present, its code ran.
RUN_WHEN_EXECUTED = {
    "numpy.f2py": "numpy.f2py.f2py2e",
    "numpy.testing": "numpy.testing._private.utils",
    "numpy.ma": "numpy.ma.core",
    "numpy.polynomial": "numpy.polynomial.polynomial",
}


def test_numpys_unused_submodules_are_not_run_by_importing_the_numeric_libraries():
    assert set(RUN_WHEN_EXECUTED) == set(LEFT_LAZY)
    ran = subprocess.run(
        [sys.executable, "-c", IMPORTED, *RUN_WHEN_EXECUTED.values()],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    found = json.loads(ran.stdout)
    assert found["scipy_ready"]
    assert found["ran"] == []  # and then numpy.testing and numpy.ma worked when used
