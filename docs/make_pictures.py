"""Make the pictures in docs/ with mechsolve.plot.

Run: python docs/make_pictures.py [--out-dir DIR] [NAME ...]   (writes the PNGs, fourbar.gif
and free_motions.gif; stewart.png, ur5.png, three_rps.png and urdf_arm.png are spatial
mechanisms, drawn in 3D; name some of the functions below to make only those pictures). By
default they go to a ``mechsolve-pictures`` directory under the system's temporary directory,
outside the source tree; ``--out-dir docs`` replaces the tracked pictures deliberately.
"""

import argparse
import pathlib
import sys
import tempfile
import textwrap
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mechsolve as ms  # noqa: E402
from mechsolve import joints  # noqa: E402
from mechsolve import plot as msplot  # noqa: E402

#: This script's folder, docs/ (the URDF arm is read from examples/models next to it).
HERE = pathlib.Path(__file__).resolve().parent
#: Where the pictures go (set from ``--out-dir``).
OUT = pathlib.Path(tempfile.gettempdir()) / "mechsolve-pictures"


def save(fig, name: str, **options) -> None:
    path = OUT / name
    fig.savefig(path, dpi=90, **options)
    plt.close(fig)
    print(f"wrote {path}")


def fourbar() -> None:
    model = ms.models.fourbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    coupler, point = model.trace[0]
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4),
                                      gridspec_kw={"width_ratios": [1.15, 1]})
    msplot.draw(mech, left, state=motion.states[40], motion=motion, trace=model.trace,
                names=True)
    left.set_title("Four-bar and the coupler curve of point (0, 1) on the coupler")
    msplot.plot_motion(motion, coupler, point=point, ax=right)
    right.set_title("plot_motion: the coupler point against the crank angle")
    right.set_ylabel("global coordinate")
    fig.tight_layout()
    save(fig, "fourbar.png")


def slider_crank() -> None:
    model = ms.models.slider_crank()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    fig, ax = plt.subplots(figsize=(8, 3.6))
    msplot.draw(mech, ax, state=motion.states[50], motion=motion,
                trace=[(mech.body("rod"), (0.0, 0.0)), (mech.body("rod"), (0.75, 0.0))],
                names=True)
    ax.set_title("Offset slider-crank: paths of two points of the connecting rod")
    fig.tight_layout()
    save(fig, "slider_crank.png")


def watt_sixbar() -> None:
    model = ms.models.watt_sixbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    fig, ax = plt.subplots(figsize=(8, 4.6))
    msplot.draw(mech, ax, state=motion.states[60], motion=motion,
                trace=[*model.trace, (mech.body("coupler"), (0.0, 1.0))], names=True)
    ax.set_title("Watt six-bar: a crank-rocker whose ternary rocker drives a second four-bar")
    fig.tight_layout()
    save(fig, "watt_sixbar.png")


def failed_solve() -> None:
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.add(joints.Driver(mech.body("coupler"), "y", 50.0, name="impossible"))
    try:
        mech.solve()
    except ms.SolveError as exc:
        err = exc
    else:  # pragma: no cover
        raise SystemExit("expected the solve to fail")
    fig, ax = plt.subplots(figsize=(8, 5))
    msplot.draw(mech, ax, result=err.result)
    first = textwrap.fill(str(err).splitlines()[0], 100)
    ax.set_title("draw(mech, result=err.result) after a failed solve:\n" + first, fontsize=9)
    fig.tight_layout()
    save(fig, "failed_solve.png")


def stewart() -> None:
    model = ms.models.spatial.stewart()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    platform = model.output
    fig = plt.figure(figsize=(11, 5.2))
    for k, i in enumerate((0, len(motion) - 1)):
        ax = fig.add_subplot(1, 2, k + 1, projection="3d")
        msplot.draw(mech, ax, state=motion.states[i], motion=motion,
                    trace=[(platform, (0.0, 0.0, 0.0))], frames=k == 1, view=(22, -60))
        what = "assembled level" if k == 0 else "leg1 lengthened by 0.4: the platform tilts"
        ax.set_title(f"Stewart–Gough platform, {what}", fontsize=10)
    fig.text(0.5, 0.02, "Six legs (orange: driven distances) between a base hexagon and a "
             "platform hexagon; red: the path of the platform centre as leg1 grows.",
             ha="center", fontsize=9)
    fig.subplots_adjust(left=0.0, right=1.0, bottom=0.06, top=0.93, wspace=0.0)
    save(fig, "stewart.png")


def ur5() -> None:
    arm = ms.robots.ur5()
    q = np.array([0.4, -1.1, 1.5, -1.9, -1.57, 0.3])
    fig = plt.figure(figsize=(11, 5.2))
    left = fig.add_subplot(1, 2, 1, projection="3d")
    model = arm.mechanism(q, target=arm.forward(q))
    msplot.draw(model.mechanism, left, frames=True, view=(25, -55))
    left.set_title("UR5 as a multibody model (robots.ur5().mechanism(q)),\nlink frames shown, "
                   "the tool target marked x", fontsize=10)
    # Drive every joint value; sweep the shoulder (joint2) and trace the tool point.
    model = arm.mechanism(q)
    mech = model.mechanism
    drives = [mech.add(joints.CoordinateDriver(j, v, name=f"q{k + 1}"))
              for k, (j, v) in enumerate(zip(model.joints, q))]
    motion = mech.sweep(drives[1], np.linspace(-1.1, -0.2, 46))
    tool = (model.links[-1], model.tool.translation)
    right = fig.add_subplot(1, 2, 2, projection="3d")
    msplot.draw(mech, right, state=motion.states[30], motion=motion, trace=[tool],
                drivers=False, view=(25, -55))
    right.set_title("Sweeping joint2 (the shoulder) with the others held:\nthe path of the tool "
                    "point", fontsize=10)
    fig.subplots_adjust(left=0.0, right=1.0, bottom=0.02, top=0.9, wspace=0.0)
    save(fig, "ur5.png")


def three_rps() -> None:
    model = ms.models.spatial.three_rps()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    fig = plt.figure(figsize=(6.4, 5.2))
    ax = fig.add_subplot(projection="3d")
    msplot.draw(mech, ax, state=motion.states[-1], motion=motion,
                trace=[(model.output, (0.0, 0.0, 0.0))], view=(20, -60))
    ax.set_title("3-RPS platform: leg1 lengthened by 0.4, the platform tilts\n(grey: the legs, "
                 "each a revolute, a prismatic and a spherical joint)", fontsize=10)
    fig.subplots_adjust(left=0.0, right=1.0, bottom=0.02, top=0.9)
    save(fig, "three_rps.png")


def urdf_arm() -> None:
    arm = ms.robots.load_urdf(pathlib.Path(__file__).resolve().parent.parent / "examples"
                              / "models" / "arm6r.urdf")
    q = np.array([0.5, 0.6, -1.2, 0.3, 0.8, 0.2])
    model = arm.mechanism(q, target=arm.forward(q))
    fig = plt.figure(figsize=(6.4, 5.2))
    ax = fig.add_subplot(projection="3d")
    msplot.draw(model.mechanism, ax, view=(25, -55))
    ax.set_title("A 6R arm read from examples/models/arm6r.urdf: its pedestal from the base\n"
                 "to the first joint, the tool target marked x", fontsize=10)
    fig.subplots_adjust(left=0.0, right=1.0, bottom=0.07, top=0.9)
    save(fig, "urdf_arm.png")


def fourbar_gif() -> None:
    model = ms.models.fourbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    anim = msplot.animate(mech, motion, trace=model.trace, frames=72, interval=60)
    path = OUT / "fourbar.gif"
    t0 = time.perf_counter()
    anim.save(path, dpi=60)
    plt.close(anim.drawing.ax.figure)
    print(f"wrote {path} ({path.stat().st_size // 1024} kB, {time.perf_counter() - t0:.1f} s)")


def free_motions_gif() -> None:
    """A five-bar without drivers: its two free motions wiggled one after the other."""
    model = ms.models.five_bar()
    mech = model.mechanism
    mech.remove(model.driver)
    anim = msplot.animate_free_motions(mech, frames=40, interval=60,
                                       trace=model.trace)
    path = OUT / "free_motions.gif"
    anim.save(path, dpi=60)
    plt.close(anim.drawing.ax.figure)
    print(f"wrote {path} ({path.stat().st_size // 1024} kB)")


def main(argv=None) -> None:
    global OUT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out-dir", type=pathlib.Path, default=OUT,
                        help=f"where to write the pictures (default: {OUT}; the tracked ones "
                             "are in docs/)")
    parser.add_argument("only", nargs="*", metavar="NAME",
                        help="make only these pictures (e.g. three_rps urdf_arm)")
    args = parser.parse_args(argv)
    OUT = args.out_dir
    OUT.mkdir(parents=True, exist_ok=True)
    np.set_printoptions(precision=4)
    only = set(args.only)
    for make in (fourbar, slider_crank, watt_sixbar, failed_solve, stewart, ur5, three_rps,
                 urdf_arm, fourbar_gif, free_motions_gif):
        if only and make.__name__ not in only:
            continue
        make()


if __name__ == "__main__":
    main()
    sys.exit(0)
