"""Write every built-in demo as a model file here: ``python examples/models/update.py``.

Each demo (``mechsolve demo --list``) becomes ``NAME.toml``: its mechanism as built, angles in
degrees, and its sweep kept as the sweep named "demo" (the driver's range and the output
body), so that ``mechsolve sweep examples/models/NAME.toml`` runs what ``mechsolve demo NAME``
runs. ``--check`` writes nothing and exits 1 if a file differs from what would be written by more
than round-off (the test suite runs the same comparison): the coordinates of a demo are computed
when it is built, and their last bits depend on the platform's NumPy and BLAS (a point on a
link's axis may come out as 0.0 on one machine and -1.3e-15 on another), so files are compared
as documents, numbers to round-off of the model's size, never byte for byte.
"""

from __future__ import annotations

import argparse
import math
import pathlib
import sys

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

import mechsolve as ms
from mechsolve.cli import ALL_DEMOS

HERE = pathlib.Path(__file__).resolve().parent


def demo_text(name: str) -> str:
    """The model file of the demo ``name``."""
    mech = ALL_DEMOS[name]().keep_sweep("demo")
    mech.units = {"angle": "deg"}
    return ms.files.dumps(mech)


def differences(a: str, b: str, rtol: float = 1e-13, atol: float = 1e-12) -> list[str]:
    """Where two model files differ by more than round-off: the paths of their entries.

    ``atol`` is relative to the model's size (the largest absolute number in ``a``); strings,
    keys, booleans and integers must agree exactly.

    Examples
    --------
    >>> differences("x = [50.0, -1.3e-15]", "x = [50.0, 0.0]")
    []
    >>> differences("x = [50.0, 1.0]", "x = [50.0, 0.0]")
    ['x[1]: 1.0 != 0.0']
    """
    da, db = tomllib.loads(a), tomllib.loads(b)
    out: list[str] = []
    size = max(_largest(da), 1e-300)
    _compare(da, db, "", rtol, atol * size, out)
    return out


def _largest(x) -> float:
    if isinstance(x, dict):
        return max((_largest(v) for v in x.values()), default=0.0)
    if isinstance(x, list):
        return max((_largest(v) for v in x), default=0.0)
    if isinstance(x, float) and math.isfinite(x):
        return abs(x)
    return 0.0


def _compare(a, b, where: str, rtol: float, atol: float, out: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        if list(a) != list(b):
            out.append(f"{where or 'top'}: keys {list(a)} != {list(b)}")
            return
        for k in a:
            _compare(a[k], b[k], f"{where}.{k}" if where else k, rtol, atol, out)
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            out.append(f"{where}: {len(a)} entries != {len(b)}")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            _compare(x, y, f"{where}[{i}]", rtol, atol, out)
    elif isinstance(a, float) and isinstance(b, float):
        if not math.isclose(a, b, rel_tol=rtol, abs_tol=atol):
            out.append(f"{where}: {a!r} != {b!r}")
    elif type(a) is not type(b) or a != b:
        out.append(f"{where}: {a!r} != {b!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true")
    args = parser.parse_args()
    stale = []
    for name in ALL_DEMOS:
        path = HERE / f"{name}.toml"
        text = demo_text(name)
        if args.check:
            if not path.exists() or differences(path.read_text(encoding="utf-8"), text):
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
