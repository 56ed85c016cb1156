"""Make the pictures in docs/ with mechsolve.plot.

Run: python docs/make_pictures.py   (writes docs/*.png and docs/fourbar.gif)
"""

import pathlib
import sys
import textwrap
import time

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import mechsolve as ms  # noqa: E402
from mechsolve import joints  # noqa: E402
from mechsolve import plot as msplot  # noqa: E402

HERE = pathlib.Path(__file__).resolve().parent


def save(fig, name: str) -> None:
    path = HERE / name
    fig.savefig(path, dpi=90)
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


def fourbar_gif() -> None:
    model = ms.models.fourbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    anim = msplot.animate(mech, motion, trace=model.trace, frames=72, interval=60)
    path = HERE / "fourbar.gif"
    t0 = time.perf_counter()
    anim.save(path, dpi=60)
    plt.close(anim.drawing.ax.figure)
    print(f"wrote {path} ({path.stat().st_size // 1024} kB, {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    np.set_printoptions(precision=4)
    for make in (fourbar, slider_crank, watt_sixbar, failed_solve, fourbar_gif):
        make()
    sys.exit(0)
