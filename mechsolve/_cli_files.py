"""The ``mechsolve`` commands that work on model files: solve, sweep, dof, check, convert.

* ``mechsolve solve FILE`` -- assemble the mechanism and print every body's pose;
* ``mechsolve sweep FILE [--sweep NAME | --driver NAME --values START:STOP:STEP]`` -- follow a
  driver, print a table of poses (``--rows``), write ``--csv``, ``--json``, ``--gif``,
  ``--plot``;
* ``mechsolve dof FILE`` -- the degrees-of-freedom report;
* ``mechsolve check FILE`` -- read and assemble: exit status 0, or 1 with the message;
* ``mechsolve convert IN [OUT]`` -- a URDF arm (or a URDF or SDFormat robot with
  ``--actuated``), an SDFormat model, a SolveSpace sketch, an MJCF model or a model file as a
  model file (``docs/formats.rst`` says what each keeps and loses);
* ``mechsolve export FILE --dxf links.dxf --svg links.svg`` -- the links' outlines and pin
  holes at true scale (:func:`mechsolve.plot.export`), with ``--trace BODY:X,Y`` the path of
  a point over a sweep (chosen as for ``sweep``).

Values on the command line and in the tables are in the file's units (degrees for the angles
of a file with ``units.angle = "deg"``). Faults of the file or the command are reported in one
message on standard error with exit status 1 (2 for wrong arguments), not a traceback.

A sweep keeps every pose in memory (and ``--json`` every state), so ``sweep`` refuses more
than ``--max-poses`` poses (:data:`MAX_POSES` by default) before it starts, naming the count
and the option. Files a model refers to are read from its folder unless ``--allow-path``
names another (see :func:`mechsolve.files.load`).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import sys
import time

import numpy as np

from . import plot
from ._cli_common import _agg, _progress_bar
from .files import ModelFileError, NamedSweep, load, save
from .io._joint_codecs import driver_is_angle
from .joints import CoordinateDriver
from .robots import load_sdf_mechanism, load_urdf, load_urdf_mechanism
from .solver import SolveError

#: Most poses ``mechsolve sweep`` computes unless ``--max-poses`` says more.
MAX_POSES = 100_000


class _UserError(Exception):
    """A fault of the command's input, reported in one line."""


def _fail(msg: str) -> int:
    print(f"mechsolve: {msg}", file=sys.stderr)
    return 1


def _load(path: str, args=None):
    try:
        return load(path, allow_paths=getattr(args, "allow_path", None))
    except ModelFileError as exc:
        raise _UserError(str(exc)) from None


def _deg(mech) -> bool:
    return mech.units.get("angle") == "deg"


def _unit(mech, kind: str) -> str:
    """`` [mm]``, `` [deg]``: a header's unit for ``kind`` ("length" or "angle"), empty for a
    length of a file that declares no length unit."""
    if kind == "angle":
        return " [deg]" if _deg(mech) else " [rad]"
    length = mech.units.get("length")
    return f" [{length}]" if length else ""


def _pose_columns(mech, bodies) -> list[str]:
    return [f"{b.name} {c}" for b in bodies for c in _coordinate_names(mech)]


def _coordinate_names(mech) -> list[str]:
    """``x [mm]``, ``y [mm]``, ``angle [deg]`` (spatial: ``z`` and ``turn``, the rotation
    angle from the identity)."""
    length, angle = _unit(mech, "length"), _unit(mech, "angle")
    if mech.dim == 3:
        return [f"x{length}", f"y{length}", f"z{length}", f"turn{angle}"]
    return [f"x{length}", f"y{length}", f"angle{angle}"]


def _pose_values(mech, poses: np.ndarray) -> np.ndarray:
    """Rows of a body's poses ``(k, 3)`` or ``(k, 7)`` as printed: positions, then the planar
    angle or the spatial rotation angle (``2 acos|w|``), in the file's angle unit."""
    if mech.dim == 3:
        turn = 2.0 * np.arccos(np.clip(np.abs(poses[:, 3]), 0.0, 1.0))
        out = np.column_stack([poses[:, :3], turn])
    else:
        out = np.array(poses, dtype=float)
    if _deg(mech):
        out[:, -1] = np.degrees(out[:, -1])
    return out


def _table(header: list[str], rows: np.ndarray, stream=None) -> None:
    stream = stream or sys.stdout
    widths = [max(12, len(h)) for h in header]
    stream.write("  ".join(f"{h:>{w}}" for h, w in zip(header, widths)) + "\n")
    for row in rows:
        stream.write("  ".join(f"{v:>{w}.6g}" if isinstance(v, float | np.floating) else
                               f"{v!s:>{w}}" for v, w in zip(row, widths)) + "\n")


# -- the commands -------------------------------------------------------------------------------
def _solve(args) -> int:
    mech = _load(args.file, args)
    t0 = time.perf_counter()
    try:
        result = mech.solve()
    except SolveError as exc:
        return _fail(f"{args.file}: {exc}")
    elapsed = time.perf_counter() - t0
    print(f"{mech.name or args.file}: {result.message} in {result.iterations} iterations "
          f"({elapsed * 1e3:.1f} ms), residual {result.residual_abs:.1e}")
    header = ["body", *_coordinate_names(mech)]
    rows = [[b.name, *_pose_values(mech, b.pose[None])[0]] for b in mech.bodies]
    _table(header, rows)
    if result.free_dof:
        print(f"note: {result.free_dof} degree(s) of freedom left free: add drivers to fix "
              "them")
    if args.json:
        _write_json(args.json, {"bodies": {b.name: b.pose.tolist() for b in mech.bodies},
                                "iterations": int(result.iterations),
                                "residual": float(result.residual_abs), "units": mech.units})
    return 0


def _values(text: str, deg: bool, most: int) -> np.ndarray:
    """``START:STOP:STEP`` (STOP included when a whole number of steps reaches it) or a comma
    list, in the file's units, as the driver's values (radians for angles); more than
    ``most`` values are refused before they are made."""
    try:
        if ":" in text:
            parts = [float(p) for p in text.split(":")]
            if len(parts) != 3:
                raise ValueError
            start, stop, step = parts
            if step == 0 or not np.all(np.isfinite(parts)) or (stop - start) / step < 0:
                raise ValueError
            count = np.floor((stop - start) / step + 1e-9) + 1
            if count > most:
                raise _UserError(f"--values {text}: {count:.0f} values, more than --max-poses "
                                 f"{most} (give a larger --max-poses to sweep them)")
            vals = start + step * np.arange(int(count))
        else:
            vals = np.array([float(p) for p in text.split(",")])
            if not np.all(np.isfinite(vals)):
                raise ValueError
    except ValueError:
        raise _UserError(f"--values {text!r}: expected START:STOP:STEP with a step towards "
                         "STOP (e.g. 0:360:1) or a comma-separated list of numbers") from None
    return np.radians(vals) if deg else vals


def _sweep_of(mech, args) -> tuple:
    """The driver, its values and the output bodies of the sweep the arguments ask for."""
    named, named_as = None, args.sweep
    if args.sweep is not None:
        named = mech.sweeps.get(args.sweep)
        if named is None:
            known = ", ".join(mech.sweeps) or "none"
            raise _UserError(f"{args.file}: no sweep named {args.sweep!r} (sweeps: {known})")
    elif args.driver is None and args.values is None and mech.sweeps:
        named_as, named = next(iter(mech.sweeps.items()))
    if named is None and (args.driver is None and args.values is None):
        raise _UserError(f"{args.file} names no sweep: give --driver NAME --values "
                         "START:STOP:STEP")
    driver_name = args.driver or (named.driver if named is not None else None)
    if driver_name is None:
        drivers = [j.name for j in mech.joints if hasattr(j, "value") and j.name]
        if len(drivers) != 1:
            raise _UserError(f"{args.file}: say which driver with --driver (drivers: "
                             f"{', '.join(drivers) or 'none'})")
        driver_name = drivers[0]
    try:
        driver = mech.joint(driver_name)
    except (KeyError, ValueError):
        drivers = [j.name for j in mech.joints if hasattr(j, "value") and j.name]
        raise _UserError(f"{args.file}: no driver named {driver_name!r} (drivers: "
                         f"{', '.join(drivers) or 'none'})") from None
    if not hasattr(driver, "value"):
        raise _UserError(f"{args.file}: {driver.describe()} is not a driver")
    if args.values is not None:
        values = _values(args.values, _deg(mech) and driver_is_angle(driver), args.max_poses)
    elif named is not None and named.driver == driver_name:
        values = named.values
    else:
        raise _UserError(f"give --values for driver {driver_name!r}")
    if len(values) > args.max_poses:
        which = "--values" if args.values is not None else f"sweep {named_as!r}"
        raise _UserError(f"{args.file}: {which} has {len(values)} poses, more than --max-poses "
                         f"{args.max_poses} (give a larger --max-poses to sweep them; every "
                         "pose is kept in memory)")
    outputs = named.output if named is not None and named.output else ()
    bodies = [mech.body(n) for n in outputs] or list(mech.bodies)
    return driver, values, bodies


def _sweep_table(mech, driver, motion, bodies) -> tuple:
    """``(header, data)`` of a sweep as printed and written: the driver's value in the file's
    units, every output body's pose, residual and iterations."""
    angle = driver_is_angle(driver)
    unit = _unit(mech, "angle" if angle else "length")
    # degrees to 15 digits, as a model file writes them: the values asked for (30, not
    # 29.999999999999996 after the trip through radians)
    shown_values = np.array([float(f"{x:.15g}") for x in np.degrees(motion.values)]) \
        if angle and _deg(mech) else motion.values
    header = [f"{driver.name}{unit}", *_pose_columns(mech, bodies), "residual", "iterations"]
    cols = [np.reshape(shown_values, (-1, 1))] \
        + [_pose_values(mech, motion.pose(b)) for b in bodies] \
        + [motion.residuals[:, None], motion.iterations[:, None].astype(float)]
    return header, np.hstack(cols)


def _sweep(args) -> int:
    mech = _load(args.file, args)
    driver, values, bodies = _sweep_of(mech, args)
    show = args.progress or sys.stderr.isatty()
    update, close = _progress_bar(show and len(values) > 50, len(values), "sweeping")
    t0 = time.perf_counter()
    try:
        motion = mech.sweep(driver, values, progress=update)
    except SolveError as exc:
        close()
        status = _fail(f"{args.file}: {exc}")
        reached = getattr(exc, "motion", None)
        if reached is not None and len(reached) and (args.csv or args.json):
            _write_tables(args, mech, driver, reached, bodies,
                          f"the {len(reached)} poses reached before the sweep stopped")
        elif args.csv or args.json:
            print("mechsolve: no pose was reached: nothing written", file=sys.stderr)
        return status
    close()
    elapsed = time.perf_counter() - t0
    header, data = _sweep_table(mech, driver, motion, bodies)
    rows = np.unique(np.linspace(0, len(motion) - 1, max(2, args.rows)).round().astype(int))
    _table(header, [[*r[:-1], int(r[-1])] for r in data[rows]])
    print(f"{len(motion)} poses in {elapsed * 1e3:.1f} ms, largest residual "
          f"{motion.residuals.max():.1e}")
    status = _write_tables(args, mech, driver, motion, bodies)
    if args.gif or args.plot:
        status |= _pictures(args, mech, motion, driver)
    return status


def _write_tables(args, mech, driver, motion, bodies, partial: str | None = None) -> int:
    """Write ``--csv`` and ``--json`` of ``motion``; ``partial`` says which poses they hold
    when the sweep stopped before its last value."""
    header, data = _sweep_table(mech, driver, motion, bodies)
    what = f" ({partial})" if partial else ""
    status = 0
    if args.csv:
        try:
            np.savetxt(args.csv, data, delimiter=",", header=",".join(header), comments="",
                       fmt="%.17g")
            print(f"wrote {len(motion)} rows{what} to {pathlib.Path(args.csv).resolve()}",
                  file=sys.stderr if partial else sys.stdout)
        except OSError as exc:
            status = _fail(f"--csv {args.csv}: {exc.strerror or exc}")
    if args.json:
        status |= _write_json(args.json, {
            "driver": driver.name, "units": mech.units, "columns": header,
            "rows": data.tolist(), "states": motion.states.tolist(),
            "complete": partial is None}, what, partial is not None)
    return status


def _write_json(path: str, payload: dict, what: str = "", to_stderr: bool = False) -> int:
    try:
        pathlib.Path(path).write_text(json.dumps(payload, indent=1))
    except OSError as exc:
        return _fail(f"--json {path}: {exc.strerror or exc}")
    print(f"wrote {pathlib.Path(path).resolve()}{what}",
          file=sys.stderr if to_stderr else sys.stdout)
    return 0


def _label_axes(ax, mech, title: str) -> None:
    """Axis labels with the file's length unit, and a title."""
    length = mech.units.get("length")
    unit = f" [{length}]" if length else ""
    ax.set_xlabel(f"x{unit}")
    ax.set_ylabel(f"y{unit}")
    if mech.dim == 3:
        ax.set_zlabel(f"z{unit}")
    ax.set_title(title, fontsize=10)


def _pictures(args, mech, motion, driver) -> int:
    _agg()
    import matplotlib.pyplot as plt  # matplotlib when a picture is asked for, not before

    status = 0
    if args.plot:
        if mech.dim == 3:
            fig = plt.figure(figsize=(7.0, 7.0))
            ax = fig.add_subplot(projection="3d")
        else:
            fig, ax = plt.subplots(figsize=(8.0, 6.0))
        try:
            shown = len(motion) // 8
            plot.draw(mech, ax, state=motion.states[shown], motion=motion)
            value = float(motion.values[shown])
            if driver_is_angle(driver) and _deg(mech):
                value = float(np.degrees(value))
            unit = _unit(mech, "angle" if driver_is_angle(driver) else "length")
            value_text = f"{value:.4g}{unit.replace('[', '').replace(']', '')}"
            _label_axes(ax, mech, f"{mech.name or pathlib.Path(args.file).stem}: "
                                  f"{len(motion)} poses of {driver.name}, shown at "
                                  f"{driver.name} = {value_text}")
            fig.savefig(args.plot, dpi=100)
            print(f"wrote {pathlib.Path(args.plot).resolve()}")
        except (OSError, ValueError) as exc:
            status = _fail(f"--plot {args.plot}: {exc}")
        finally:
            plt.close(fig)
    if args.gif:
        anim = plot.animate(mech, motion, frames=min(len(motion), 120))
        try:
            anim.save(args.gif, dpi=80)
            print(f"wrote {pathlib.Path(args.gif).resolve()}")
        except (OSError, RuntimeError, ValueError) as exc:
            status = _fail(f"--gif {args.gif}: {exc}")
        finally:
            plt.close(anim.drawing.ax.figure)
    return status


def _dof(args) -> int:
    mech = _load(args.file, args)
    print(mech.dof())
    return 0


def _check(args) -> int:
    mech = _load(args.file, args)
    try:
        result = mech.solve()
    except SolveError as exc:
        return _fail(f"{args.file}: {exc}")
    report = mech.dof()
    print(f"{args.file}: ok: {len(mech.bodies)} bodies, {len(mech.joints)} joints, "
          f"{report.free} free degree(s) of freedom after {report.drivers} driver(s); "
          f"assembled in {result.iterations} iterations, residual {result.residual_abs:.1e}")
    return 0


#: What ``mechsolve convert`` reads, by suffix.
CONVERTS = (".urdf", ".sdf", ".slvs", ".xml", ".toml")


def _convert(args) -> int:
    src = pathlib.Path(args.file)
    suffix = src.suffix.lower()
    if suffix not in CONVERTS:
        raise _UserError(f"{args.file}: convert reads a URDF file (.urdf), an SDFormat model "
                         "(.sdf), a SolveSpace sketch (.slvs), an MJCF model (.xml) or a model "
                         "file (.toml)")
    if args.output and args.out:
        raise _UserError("give the output file once: OUT or -o OUT")
    out = pathlib.Path(args.output or args.out or src.with_suffix(".toml").name)
    if out.suffix.lower() != ".toml":
        raise _UserError(f"{out}: convert writes model files (.toml); for drawings of the "
                         "links use mechsolve export")
    if args.actuated and suffix not in (".sdf", ".urdf"):
        raise _UserError("--actuated names joints of an SDF or URDF model")
    if suffix == ".urdf" and not args.actuated:
        return _convert_arm(args, src, out)
    if suffix in (".urdf", ".sdf"):
        try:
            if suffix == ".sdf":
                robot = load_sdf_mechanism(src, args.actuated or ())
            else:
                robot = load_urdf_mechanism(src, args.actuated)
        except (OSError, ValueError) as exc:
            raise _UserError(f"{args.file}: {getattr(exc, 'strerror', None) or exc}") \
                from None
        mech = robot.mechanism
        if not args.actuated and not robot.loop_joints:
            # a tree: a driver per moving joint, as for a URDF arm
            for j in robot.joints.values():
                if hasattr(j, "value"):
                    mech.add(CoordinateDriver(j, j.value, name=f"{j.name}_drive"))
        mech.units = {"length": "m", "angle": "deg"}
        what = f"{len(mech.bodies)}-link model {robot.name!r}"
    elif suffix == ".xml":
        try:
            from .robots import load_mjcf  # MuJoCo (the mjcf extra), when it is asked for

            mech = load_mjcf(src).mechanism
        except ImportError as exc:
            raise _UserError(f"{args.file}: reading MJCF needs MuJoCo ({exc})") from None
        except (OSError, ValueError) as exc:
            raise _UserError(f"{args.file}: {exc}") from None
        mech.units = {"length": "m", "angle": "deg"}
        what = f"{len(mech.bodies)}-body MJCF model"
    else:
        mech = _load(args.file, args)
        what = f"{len(mech.bodies)}-body mechanism"
    try:
        save(mech, out)
    except OSError as exc:
        return _fail(f"{out}: {exc.strerror or exc}")
    except ValueError as exc:
        return _fail(f"{args.file}: cannot be written as a model file: {exc}")
    print(f"wrote {what} to {out.resolve()}")
    return 0


def _convert_arm(args, src, out) -> int:
    try:
        arm = load_urdf(src, tip=args.tip)
    except ValueError as exc:
        raise _UserError(str(exc)) from None
    model = arm.mechanism()
    mech = model.mechanism
    for j in model.joints:
        mech.add(CoordinateDriver(j, 0.0, name=f"{j.name}_drive"))
    mech.units = {"length": "m", "angle": "deg"}
    first = f"{model.joints[0].name}_drive"
    # a turn, or the first joint's range where its limits cut it (the sweep keeps them)
    lo, hi = model.joints[0].limits or (None, None)
    lo = -np.pi if lo is None else max(lo, -np.pi)
    hi = np.pi if hi is None else min(hi, np.pi)
    mech.sweeps["first-joint"] = NamedSweep(first, np.linspace(lo, hi, 73))
    try:
        save(mech, out)
    except OSError as exc:
        return _fail(f"-o {out}: {exc.strerror or exc}")
    print(f"wrote {arm.n_joints}-joint arm {arm.name!r} to {out.resolve()}")
    return 0


def _export(args) -> int:
    if not (args.dxf or args.svg):
        raise _UserError("export: say what to write with --dxf PATH and/or --svg PATH")
    mech = _load(args.file, args)
    if mech.dim != 2:
        raise _UserError(f"{args.file}: export draws planar mechanisms; this one is spatial")
    try:
        mech.solve()
    except SolveError as exc:
        return _fail(f"{args.file}: {exc}")
    motion, trace = None, []
    if args.trace:
        for text in args.trace:
            body_name, _, xy = text.partition(":")
            try:
                point = tuple(float(v) for v in xy.split(","))
                if len(point) != 2 or not all(np.isfinite(point)):
                    raise ValueError
            except ValueError:
                raise _UserError(f"--trace {text!r}: expected BODY:X,Y (a point in the body's "
                                 "coordinates, e.g. coupler:0,1)") from None
            try:
                trace.append((mech.body(body_name), point))
            except (KeyError, ValueError):
                names = ", ".join(b.name for b in mech.bodies)
                raise _UserError(f"--trace {text!r}: no body named {body_name!r} (bodies: "
                                 f"{names})") from None
        driver, values, _ = _sweep_of(mech, args)
        try:
            motion = mech.sweep(driver, values)
        except SolveError as exc:
            return _fail(f"{args.file}: {exc}")
    status = 0
    for path in (args.dxf, args.svg):
        if not path:
            continue
        try:
            written = plot.export(mech, path, motion=motion, trace=trace, width=args.width,
                                  hole=args.hole, layout=args.layout)
        except (OSError, ImportError, ValueError) as exc:
            status = _fail(f"{path}: {exc}")
            continue
        print(f"wrote {len(mech.bodies)} links to {written.resolve()}")
    return status


def add_commands(sub) -> None:
    """Register the file commands on the ``mechsolve`` parser's subparsers."""
    def command(name, func, help_text):
        p = sub.add_parser(name, help=help_text, description=help_text)
        p.add_argument("file", help="model file (.toml), SolveSpace sketch (.slvs) or "
                       "SDFormat model (.sdf)" if name != "convert" else
                       "the file to convert: .urdf, .sdf, .slvs, .xml (MJCF) or .toml")
        p.add_argument("--allow-path", action="append", metavar="DIR",
                       help="a folder outside the model file's own that files it names "
                            "(a robot's urdf) may be read from; repeatable")
        p.set_defaults(func=_guarded(func))
        return p

    p = command("solve", _solve, "assemble the mechanism of a model file and print every "
                                 "body's pose")
    p.add_argument("--json", metavar="PATH", help="also write the poses as JSON")
    p = command("sweep", _sweep, "follow a driver of a model file over its values and print "
                                 "a table of poses")
    p.add_argument("--sweep", metavar="NAME", help="a sweep named in the file (default: the "
                                                   "first)")
    p.add_argument("--driver", metavar="NAME", help="the driver to move")
    p.add_argument("--values", metavar="START:STOP:STEP",
                   help="driver values in the file's units, e.g. 0:360:1, or a,b,c")
    p.add_argument("--rows", type=int, default=13, help="table rows to print (default 13)")
    p.add_argument("--max-poses", type=_positive, default=MAX_POSES, metavar="N",
                   help=f"refuse sweeps of more than N poses (default {MAX_POSES}; every pose "
                        "is kept in memory)")
    p.add_argument("--csv", metavar="PATH", help="write every pose as CSV")
    p.add_argument("--json", metavar="PATH", help="write every pose and state as JSON")
    p.add_argument("--gif", metavar="PATH", help="write an animation (.gif)")
    p.add_argument("--plot", metavar="PATH", help="write a still picture (.png)")
    p.add_argument("--progress", action="store_true",
                   help="show a progress bar even when stderr is not a terminal")
    command("dof", _dof, "print the degrees-of-freedom report of a model file")
    command("check", _check, "read and assemble a model file: exit status 0 if it assembles, "
                             "1 with the reason if not")
    p = command("convert", _convert, "write a URDF or SDFormat robot, a SolveSpace sketch, an "
                                     "MJCF model or a model file as a model file (TOML)")
    p.add_argument("out", nargs="?", metavar="OUT", help="model file to write (default: the "
                                                         "input's name with .toml)")
    p.add_argument("-o", "--output", metavar="PATH", help="the same as OUT")
    p.add_argument("--tip", metavar="LINK", help="a URDF arm's last link (default: the only "
                                                 "leaf)")
    p.add_argument("--actuated", action="append", metavar="JOINT",
                   help="a joint of an SDF or URDF model that gets a driver (repeatable; "
                        "without it a tree gets a driver per moving joint, a model with loops "
                        "none, and a URDF is read as a serial arm)")
    p = command("export", _export, "write the links of a planar model (outlines and pin "
                                   "holes, at true scale) as DXF and/or SVG drawings")
    p.add_argument("--dxf", metavar="PATH", help="the DXF file to write (needs ezdxf)")
    p.add_argument("--svg", metavar="PATH", help="the SVG file to write")
    p.add_argument("--layout", choices=("assembly", "parts"), default="assembly",
                   help="the links where they are assembled (default), or each laid out on "
                        "its own for cutting")
    p.add_argument("--width", type=float, metavar="W", help="width of the links, in the "
                                                            "model's length unit")
    p.add_argument("--hole", type=float, metavar="D", help="diameter of the pin holes")
    p.add_argument("--trace", action="append", metavar="BODY:X,Y",
                   help="also write the path of this point of BODY over a sweep; repeatable")
    p.add_argument("--sweep", metavar="NAME", help="the sweep of --trace (default: the first)")
    p.add_argument("--driver", metavar="NAME", help="the driver to move for --trace")
    p.add_argument("--values", metavar="START:STOP:STEP", help="its values for --trace")
    p.add_argument("--max-poses", type=_positive, default=MAX_POSES, metavar="N",
                   help=f"refuse sweeps of more than N poses (default {MAX_POSES})")


def _positive(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"expected a positive integer, got {text!r}")
    return n


def _guarded(func):
    def run(args) -> int:
        try:
            return func(args)
        except _UserError as exc:
            return _fail(str(exc))
    return run
