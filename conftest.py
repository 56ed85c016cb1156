"""Test-session set-up shared by tests/ and the package doctests."""

import importlib.util
import os
import shutil
import tempfile

import matplotlib
import pytest
from hypothesis import settings

matplotlib.use("Agg")

# Property tests run the same examples on every machine (like the seeded generators of the
# other tests) and are not timed: CI machines vary in speed.
settings.register_profile("mechsolve", deadline=None, derandomize=True)
settings.load_profile("mechsolve")

_CACHE_VAR = "MECHSOLVE_CACHE_DIR"
_session: dict = {}


def pytest_configure(config):
    """Generated symbolic kernels go to a private cache for the session, never the user's.

    Set unconditionally (a ``MECHSOLVE_CACHE_DIR`` of the environment is put back afterwards),
    so a test run neither reads stale kernels from nor writes into a real cache.
    """
    _session["previous"] = os.environ.get(_CACHE_VAR)
    _session["dir"] = tempfile.mkdtemp(prefix="mechsolve-test-cache-")
    os.environ[_CACHE_VAR] = _session["dir"]


def pytest_unconfigure(config):
    """Remove the session's cache directory and restore the environment."""
    path = _session.pop("dir", None)
    previous = _session.pop("previous", None)
    if previous is None:
        os.environ.pop(_CACHE_VAR, None)
    else:
        os.environ[_CACHE_VAR] = previous
    if path is not None:
        shutil.rmtree(path, ignore_errors=True)


#: Package doctests that need an optional extra: skipped, with the reason, where it is missing.
_DOCTEST_NEEDS = {"mechsolve.diff._frameworks.to_jax": "jax",
                  "mechsolve.diff._frameworks.to_torch": "torch",
                  "mechsolve.io.urdf_sidecars.read_sidecar": "yaml"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        need = _DOCTEST_NEEDS.get(item.name)
        if need is not None and importlib.util.find_spec(need) is None:
            item.add_marker(pytest.mark.skip(reason=f"the example needs {need} (pip install "
                                                    f"mechsolve[{need}])"))
