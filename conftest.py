"""Test-session set-up shared by tests/ and the package doctests."""

import os
import tempfile

import matplotlib

matplotlib.use("Agg")

# Generated symbolic kernels go to a private cache during the tests, not the user's.
os.environ.setdefault("MECHSOLVE_CACHE_DIR", tempfile.mkdtemp(prefix="mechsolve-test-cache-"))
