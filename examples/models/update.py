"""Write every built-in demo as a model file here: ``python examples/models/update.py``.

Each demo (``mechsolve demo --list``) becomes ``NAME.toml``: its mechanism as built, angles in
degrees, and its sweep kept as the sweep named "demo" (the driver's range and the output
body), so that ``mechsolve sweep examples/models/NAME.toml`` runs what ``mechsolve demo NAME``
runs. ``--check`` writes nothing and exits 1 if a file differs from what would be written (the
test suite runs the same comparison).
"""

from __future__ import annotations

import argparse
import pathlib
import sys

import mechsolve as ms
from mechsolve.cli import ALL_DEMOS

HERE = pathlib.Path(__file__).resolve().parent


def demo_text(name: str) -> str:
    """The model file of the demo ``name``."""
    mech = ALL_DEMOS[name]().keep_sweep("demo")
    mech.units = {"angle": "deg"}
    return ms.io.model.dumps(mech)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    stale = []
    for name in ALL_DEMOS:
        path = HERE / f"{name}.toml"
        text = demo_text(name)
        if args.check:
            if not path.exists() or path.read_text(encoding="utf-8") != text:
                stale.append(path.name)
        else:
            path.write_text(text, encoding="utf-8")
            print(f"wrote {path}")
    if stale:
        print(f"out of date: {', '.join(stale)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
