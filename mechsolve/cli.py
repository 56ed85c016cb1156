"""The ``mechsolve`` command.

``mechsolve solve|sweep|dof|check FILE`` work on model files and ``mechsolve convert`` writes
one from a URDF arm (see :mod:`mechsolve._cli_files`).

``mechsolve demo NAME`` solves a built-in mechanism over its driver range, prints a table of
driver value, output pose, residual and iterations, and the time taken, and writes an animation
of the motion (``NAME.gif`` in the current directory, or ``--output PATH``; ``--no-animation``
skips it); ``--plot PATH`` also writes a still picture. ``mechsolve demo --list`` lists the
demos: the planar ones of :mod:`mechsolve.models` and the spatial ones of
:mod:`mechsolve.models.spatial` (drawn in 3D).
"""

from __future__ import annotations

import argparse
import pathlib
import sys
import textwrap
import time
import warnings

import numpy as np

from . import plot
from ._cli_common import _agg, _progress_bar
from ._cli_files import add_commands
from ._version import __version__
from ._warnings import MechsolveWarning
from .models import DEMOS
from .models.spatial import SPATIAL_DEMOS
from .plot._base import _driver_unit
from .plot.animation import _FFMPEG_SUFFIXES, _PILLOW_SUFFIXES
from .solver import SolveError

__all__ = ["main", "build_parser"]

#: Every demo: the planar ones, then the spatial ones.
ALL_DEMOS = {**DEMOS, **SPATIAL_DEMOS}

#: Camera (elevation, azimuth) in degrees for the spatial demos' pictures; others take
#: matplotlib's default view.
VIEWS = {"spherical-fourbar": (25.0, -110.0), "slider-crank-3d": (22.0, -70.0),
         "rssr": (22.0, -75.0), "stewart": (22.0, -60.0)}


def _demo(args) -> int:
    if args.list or args.name is None:
        for title, demos in (("planar demos:", DEMOS), ("spatial demos (drawn in 3D):",
                                                        SPATIAL_DEMOS)):
            print(title)
            for name, build in demos.items():
                # the first sentence of the builder's docstring
                doc = " ".join((build.__doc__ or "").strip().split("\n\n")[0].split())
                doc = doc.replace("``", "").split(". ")[0]
                print(f"  {name:<18} {doc}")
        return 0
    if args.name not in ALL_DEMOS:
        print(f"mechsolve: unknown demo {args.name!r}; choose from {', '.join(ALL_DEMOS)}",
              file=sys.stderr)
        return 2
    model = ALL_DEMOS[args.name]()
    mech = model.mechanism
    print(f"{args.name}: {model.description}")
    print(mech.dof())
    show_progress = args.progress or sys.stderr.isatty()
    progress, close = _progress_bar(show_progress, len(model.values), "sweeping")
    t0 = time.perf_counter()
    try:
        motion = mech.sweep(model.driver, model.values, progress=progress)
    except SolveError as exc:
        close()
        print(f"mechsolve: {exc}", file=sys.stderr)
        return 1
    close()
    elapsed = time.perf_counter() - t0
    out = model.output
    unit = "deg" if _driver_unit(model.driver) == "angle" else ""
    spatial = mech.dim == 3
    print()
    # Planar: x, y and angle of the output body; spatial: x, y, z and its rotation angle
    # (from the identity, 2 acos|w| of its quaternion).
    coords = ("x", "y", "z", "turn") if spatial else ("x", "y", "angle")
    header = (f"{'driver':>10} {unit:<3} "
              + " ".join(f"{out.name + ' ' + c:>{14 if c in ('angle', 'turn') else 12}}"
                         for c in coords)
              + f" {'residual':>10} {'iters':>5}")
    print(header)
    print("-" * len(header))
    poses = motion.pose(out)
    if spatial:
        turn = 2.0 * np.arccos(np.clip(np.abs(poses[:, 3]), 0.0, 1.0))
        poses = np.column_stack([poses[:, :3], turn])
    rows = np.unique(np.linspace(0, len(motion) - 1, args.rows).round().astype(int))
    for i in rows:
        v = np.degrees(motion.values[i]) if unit else motion.values[i]
        *xyz, a = poses[i]
        print(f"{v:>10.3f} {'':<3} " + " ".join(f"{c:>12.6f}" for c in xyz)
              + f" {np.degrees(a):>14.6f} {motion.residuals[i]:>10.1e} "
              f"{motion.iterations[i]:>5d}")
    print()
    print(f"{len(motion)} poses solved in {elapsed * 1e3:.1f} ms "
          f"({elapsed / len(motion) * 1e6:.0f} us per pose), largest residual "
          f"{motion.residuals.max():.1e}")
    status = 0
    if args.plot is not None:
        status |= _still(args, model, motion)
    if not args.no_animation:
        status |= _animation(args, model, motion, show_progress)
    return status


def _still(args, model, motion) -> int:
    _agg()
    import matplotlib.pyplot as plt  # matplotlib when a picture is asked for, not before

    path = pathlib.Path(args.plot)
    spatial = model.mechanism.dim == 3
    if spatial:
        fig = plt.figure(figsize=(8.0, 8.0))
        ax = fig.add_subplot(projection="3d")
    else:
        fig, ax = plt.subplots(figsize=(8.0, 6.0))
    try:
        plot.draw(model.mechanism, ax, state=motion.states[len(motion) // 8], motion=motion,
                  trace=model.trace, view=VIEWS.get(args.name) if spatial else None)
        title = textwrap.fill(model.description, 90)
        if spatial:
            from .plot.spatial import fit_figure  # matplotlib's 3D drawing, when asked for

            fit_figure(ax, 8.0, margin=0.16)  # a figure shaped like the drawing as seen
            fig.text(0.5, 0.985, title, ha="center", va="top", fontsize=10)
        else:
            x0, x1, y0, y1 = plot.get_drawing(ax).limits  # a figure shaped like the drawing
            fig.set_size_inches(8.0, 0.9 + 7.4 * float(np.clip((y1 - y0) / (x1 - x0), 0.3,
                                                                1.2)))
            ax.set_title(title, fontsize=10)
            fig.tight_layout()
        fig.savefig(path, dpi=args.dpi * 1.25)
    except (OSError, ValueError) as exc:
        print(f"mechsolve: {exc}", file=sys.stderr)
        return 1
    finally:
        plt.close(fig)
    print(f"wrote a picture of {args.name} to {path.resolve()}")
    return 0


def _animation(args, model, motion, show_progress: bool) -> int:
    _agg()
    import matplotlib.pyplot as plt  # matplotlib when a picture is asked for, not before

    path = pathlib.Path(args.output if args.output is not None else f"{args.name}.gif")
    t0 = time.perf_counter()
    view = VIEWS.get(args.name) if model.mechanism.dim == 3 else None
    anim = plot.animate(model.mechanism, motion, trace=model.trace, frames=args.frames,
                        view=view)
    n = len(anim.indices)
    progress, close = _progress_bar(show_progress, n, f"rendering {path.name}", "frame")
    try:
        anim.save(path, dpi=args.dpi,
                  progress_callback=(lambda i, total: progress(i + 1, total))
                  if progress else None)
    except (OSError, RuntimeError, ValueError) as exc:
        print(f"mechsolve: {exc}", file=sys.stderr)
        return 1
    finally:
        close()
        plt.close(anim.drawing.ax.figure)
    print(f"wrote an animation of {args.name} ({n} frames) to {path.resolve()} "
          f"in {time.perf_counter() - t0:.1f} s")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="mechsolve",
        description="Kinematics of mechanisms: solve, sweep, report and animate planar and "
                    "spatial linkages.")
    parser.add_argument("--version", action="version", version=f"mechsolve {__version__}")
    sub = parser.add_subparsers(dest="command")
    demo = sub.add_parser("demo", help="solve a built-in mechanism over its driver range",
                          description="Solve a built-in mechanism over its driver range, "
                                      "print a table of poses and write an animation.")
    demo.add_argument("name", nargs="?", help="demo name (see --list)")
    demo.add_argument("--list", action="store_true", help="list the built-in demos")
    demo.add_argument("--rows", type=int, default=13, help="table rows to print (default 13)")
    demo.add_argument("--progress", action="store_true",
                      help="show sweep and rendering progress even when stderr is not a "
                           "terminal")
    demo.add_argument("--output", "-o", metavar="PATH",
                      help="animation file to write (default: NAME.gif in the current "
                           "directory; .mp4 needs ffmpeg)")
    demo.add_argument("--no-animation", action="store_true",
                      help="do not write an animation")
    demo.add_argument("--plot", metavar="PATH",
                      help="also write a still picture (e.g. out.png) with the traced paths")
    demo.add_argument("--frames", type=int, default=120,
                      help="animation frames, spread over the sweep (default 120)")
    demo.add_argument("--dpi", type=float, default=80,
                      help="resolution of the animation, dots per inch (default 80; the "
                           "picture uses 1.25 times this)")
    demo.set_defaults(func=_demo)
    add_commands(sub)
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
    if getattr(args, "frames", 1) < 1:
        parser.error("--frames must be at least 1")
    if not getattr(args, "dpi", 1) > 0:
        parser.error("--dpi must be positive")
    if getattr(args, "no_animation", False) and getattr(args, "output", None) is not None:
        parser.error("--output names the animation file; it cannot go with --no-animation")
    output = getattr(args, "output", None) if args.command == "demo" else None
    if output is not None:
        suffix = pathlib.Path(output).suffix.lower()
        if suffix not in _PILLOW_SUFFIXES + _FFMPEG_SUFFIXES + (".html", ".htm"):
            parser.error(f"--output {output}: an animation needs a .gif, .webp, .mp4 or .html "
                         f"file name; for a still picture use --plot {output}")
    with warnings.catch_warnings():   # the command's own way of showing warnings, then back
        warnings.showwarning = _plain_warning(args)
        return args.func(args)


def _plain_warning(args):
    """``warnings.showwarning`` for the command: one plain line on standard error,
    ``mechsolve: warning: ...``, with no source line, no Python file name and the command's
    words for Python's advice (``mechsolve dof FILE`` for ``mech.dof()``)."""
    target = getattr(args, "file", None)
    dof = f"mechsolve dof {target}" if target else "mechsolve dof"

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        text = " ".join(str(message).split())
        text = text.replace("(mech.dof() lists the free motions)", f"({dof} lists them)")
        kind = "" if issubclass(category, MechsolveWarning) else f" ({category.__name__})"
        stream = sys.stderr if file is None else file
        try:
            stream.write(f"mechsolve: warning{kind}: {text}\n")
        except (OSError, ValueError):   # a closed stream: nowhere to say it
            pass

    return show


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
