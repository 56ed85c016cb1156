"""The ``mechsolve`` command.

``mechsolve demo NAME`` solves a built-in mechanism over its driver range and prints a table of
driver value, output pose, residual and iterations, and the time taken;
``mechsolve demo --list`` lists the demos.
"""

from __future__ import annotations

import argparse
import sys
import time

import numpy as np

from . import __version__
from .models import DEMOS
from .solver import SolveError


def _progress_printer(stream, label: str):
    last = [0.0]

    def progress(done: int, total: int) -> None:
        now = time.perf_counter()
        if done == total or now - last[0] > 0.1:
            last[0] = now
            stream.write(f"\r{label}: {done}/{total} poses")
            if done == total:
                stream.write("\n")
            stream.flush()

    return progress


def _demo(args) -> int:
    if args.list or args.name is None:
        print("built-in demos:")
        for name, build in DEMOS.items():
            doc = (build.__doc__ or "").strip().splitlines()[0].replace("``", "")
            print(f"  {name:<14} {doc}")
        return 0
    if args.name not in DEMOS:
        print(f"mechsolve: unknown demo {args.name!r}; choose from {', '.join(DEMOS)}",
              file=sys.stderr)
        return 2
    model = DEMOS[args.name]()
    mech = model.mechanism
    print(f"{args.name}: {model.description}")
    print(mech.dof())
    show_progress = args.progress or sys.stderr.isatty()
    progress = _progress_printer(sys.stderr, "sweeping") if show_progress else None
    t0 = time.perf_counter()
    try:
        motion = mech.sweep(model.driver, model.values, progress=progress)
    except SolveError as exc:
        print(f"mechsolve: {exc}", file=sys.stderr)
        return 1
    elapsed = time.perf_counter() - t0
    out = model.output
    unit = "deg" if model.driver.__class__.__name__ in ("Driver", "AngleDriver") else ""
    print()
    header = (f"{'driver':>10} {unit:<3} {out.name + ' x':>12} {out.name + ' y':>12} "
              f"{out.name + ' angle':>14} {'residual':>10} {'iters':>5}")
    print(header)
    print("-" * len(header))
    poses = motion.pose(out)
    rows = np.unique(np.linspace(0, len(motion) - 1, args.rows).round().astype(int))
    for i in rows:
        v = np.degrees(motion.values[i]) if unit else motion.values[i]
        x, y, a = poses[i]
        print(f"{v:>10.3f} {'':<3} {x:>12.6f} {y:>12.6f} {np.degrees(a):>14.6f} "
              f"{motion.residuals[i]:>10.1e} {motion.iterations[i]:>5d}")
    print()
    print(f"{len(motion)} poses solved in {elapsed * 1e3:.1f} ms "
          f"({elapsed / len(motion) * 1e6:.0f} us per pose), largest residual "
          f"{motion.residuals.max():.1e}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mechsolve",
        description="Kinematics of mechanisms: solve, sweep and report planar linkages.")
    parser.add_argument("--version", action="version", version=f"mechsolve {__version__}")
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="solve a built-in mechanism over its driver range",
                          description="Solve a built-in mechanism over its driver range and "
                                      "print a table of poses.")
    demo.add_argument("name", nargs="?", help="demo name (see --list)")
    demo.add_argument("--list", action="store_true", help="list the built-in demos")
    demo.add_argument("--rows", type=int, default=13, help="table rows to print (default 13)")
    demo.add_argument("--progress", action="store_true",
                      help="show sweep progress even when stderr is not a terminal")
    demo.set_defaults(func=_demo)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``mechsolve`` command."""
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    if getattr(args, "rows", 2) < 2:
        parser.error("--rows must be at least 2")
    return args.func(args)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
