"""What the commands of :mod:`mechsolve.cli` share: the progress bar and off-screen drawing."""

from __future__ import annotations

import sys

from tqdm import tqdm


def _progress_bar(enabled: bool, total: int, label: str, unit: str = "pose"):
    """A progress callback ``(done, total)`` drawing a tqdm bar on stderr, and a function that
    closes it (both do nothing when not ``enabled``): the one progress display of the
    command line."""
    if not enabled:
        return None, lambda: None
    bar = tqdm(total=total, desc=label, unit=unit, file=sys.stderr, leave=True)

    def update(done: int, total: int) -> None:
        bar.update(done - bar.n)

    return update, bar.close


def _agg() -> None:
    """Render off screen: the command only writes files (unless pyplot is already in use)."""
    import matplotlib  # matplotlib when a picture is asked for, not before

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
