"""Where the benchmark scripts write their JSON results.

By default a ``mechsolve-bench`` directory under the system's temporary directory, outside the
source tree, so a run never changes tracked files; ``--out`` writes elsewhere, e.g.
``--out benchmarks/results/planar.json`` to update the tracked results deliberately.
"""

from __future__ import annotations

import argparse
import pathlib
import tempfile

DEFAULT_DIR = pathlib.Path(tempfile.gettempdir()) / "mechsolve-bench"


def add_out_option(parser: argparse.ArgumentParser, filename: str, *flags: str) -> None:
    """Give ``parser`` the ``--out PATH`` option (and any alias in ``flags``), defaulting to
    ``filename`` in :data:`DEFAULT_DIR`."""
    parser.add_argument("--out", *flags, dest="out", type=pathlib.Path,
                        default=DEFAULT_DIR / filename,
                        help=f"where to write the JSON results (default: {DEFAULT_DIR / filename}; "
                             f"the tracked copy is benchmarks/results/{filename})")


def prepare(path: pathlib.Path) -> pathlib.Path:
    """Make ``path``'s directory; return ``path``."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return path
