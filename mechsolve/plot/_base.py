"""What every room of :mod:`mechsolve.plot` shares: colours, argument checks, red notes.

The colours of bodies, ground, drivers, highlights, frames and traces; the checks of the
arguments of ``draw``, ``animate`` and ``plot_motion``; the registry of the last drawing made on
an Axes; the choice and placing of the red notes on joints that a solve could not satisfy; and
the labels of a motion's driver. Nothing here imports matplotlib or another room of the package.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np

from ..analysis import Motion
from ..body import Body
from ..joints._drivers import AngleDriver, Driver
from ..joints.base import Joint
from ..mechanism import Mechanism

#: Colours of the moving bodies, in body order (red and orange are kept for highlights and
#: drivers).
BODY_COLORS = ("#1f77b4", "#2ca02c", "#9467bd", "#8c564b", "#17becf", "#bcbd22", "#e377c2",
               "#7f7f7f")
GROUND_COLOR = "#444444"
DRIVER_COLOR = "#ff7f0e"
HIGHLIGHT_COLOR = "#d62728"
#: Colours of a body frame's x, y and z axes (``frames=True``).
TRIAD_COLORS = ("#e41a1c", "#4daf4a", "#377eb8")
TRACE_COLORS = ("#d62728", "#1f77b4", "#2ca02c", "#9467bd")

# The red of a joint that could not be satisfied: its line and its note.
_HIGHLIGHT_LINE = {"color": HIGHLIGHT_COLOR, "linewidth": 2.0, "linestyle": "--", "marker": "o",
                   "markersize": 11, "markerfacecolor": "none", "markeredgewidth": 2.0,
                   "zorder": 8}
_NOTE_STYLE = {"va": "bottom", "color": HIGHLIGHT_COLOR, "fontsize": 8, "zorder": 10,
               "bbox": {"boxstyle": "round,pad=0.2", "fc": "white", "ec": HIGHLIGHT_COLOR,
                        "alpha": 0.9},
               "arrowprops": {"arrowstyle": "-", "color": HIGHLIGHT_COLOR, "linewidth": 0.8,
                              "shrinkA": 0, "shrinkB": 6}}

# The last drawing made on an Axes (see get_drawing).
_DRAWINGS: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


# -- argument checks ---------------------------------------------------------------------------
def _check_body(body) -> Body:
    if not isinstance(body, Body):
        raise TypeError(f"body must be a mechsolve Body, got {type(body).__name__}")
    return body


def _as_points(points, name: str = "points", dim: int = 2) -> np.ndarray:
    try:
        pts = np.array(points, dtype=float)
    except (TypeError, ValueError):
        what = "(x, y)" if dim == 2 else "(x, y, z)"
        raise TypeError(f"{name} must be an array of {what} points, got {points!r}") from None
    if pts.ndim != 2 or pts.shape[1] != dim or len(pts) == 0:
        raise ValueError(f"{name} must have shape (k, {dim}) with k >= 1, got shape "
                         f"{pts.shape}")
    if not np.all(np.isfinite(pts)):
        raise ValueError(f"{name} must be finite")
    return pts


def _check_mechanism(mech) -> int:
    """The dimension of ``mech`` (2 or 3), or TypeError if it is not a Mechanism."""
    if not isinstance(mech, Mechanism):
        raise TypeError(f"mech must be a mechsolve Mechanism, got {type(mech).__name__}")
    return mech.dim


def _as_states(mech, states) -> np.ndarray:
    """States to draw, ``(N, n)``: the current pose when ``states`` is None."""
    if states is None:
        states = mech.state[None, :]
    states = np.atleast_2d(np.asarray(states, dtype=float))
    if states.shape[1] != mech.n_coordinates:
        raise ValueError(f"states must have {mech.n_coordinates} columns (the mechanism's "
                         f"state), got shape {states.shape}")
    return states


def _is_3d(ax) -> bool:
    return getattr(ax, "name", "") == "3d"


def _check_trace(mech, trace) -> list:
    out = []
    if trace is None:
        return out
    for item in trace:
        try:
            body, point = item
        except (TypeError, ValueError):
            raise TypeError(f"trace takes (body, point) pairs, got {item!r}") from None
        body = _check_body(body)
        if body.mechanism is not mech:
            raise ValueError(f"traced body {body.name!r} is not part of this mechanism")
        p = np.asarray(point, dtype=float)
        if p.shape != (mech.dim,) or not np.all(np.isfinite(p)):
            what = "an (x, y) pair" if mech.dim == 2 else "an (x, y, z) point"
            raise ValueError(f"trace point must be {what} of finite numbers, got {point!r}")
        out.append((body, p))
    return out


def _check_motion(mech, motion):
    if not isinstance(motion, Motion):
        raise TypeError(f"motion must be a mechsolve Motion (from Mechanism.sweep), got "
                        f"{type(motion).__name__}")
    if motion.mechanism is not mech:
        raise ValueError("the motion belongs to a different mechanism")
    if len(motion) == 0:
        raise ValueError("the motion has no poses")
    return motion


def _check_shapes(mech, shapes) -> dict:
    if shapes is None:
        return {}
    if not isinstance(shapes, dict):
        raise TypeError(f"shapes must be a dict Body -> points, got {type(shapes).__name__}")
    for b in shapes:
        _check_body(b)
        if b.mechanism is not mech or b.is_ground:
            raise ValueError(f"shapes: {b.name!r} is not a moving body of this mechanism")
    return shapes


def _get(result, key, default):
    return result.get(key, default) if isinstance(result, dict) else getattr(result, key, default)


# -- points ------------------------------------------------------------------------------------
def _unique(points, tol: float = 1e-9, dim: int = 2) -> np.ndarray:
    """The distinct points (within ``tol``), in order, as a ``(k, dim)`` array."""
    out: list[np.ndarray] = []
    for p in points:
        if not any(np.max(np.abs(p - q)) <= tol for q in out):
            out.append(np.asarray(p, float))
    return np.array(out).reshape(-1, dim)


def _nan_join(pieces, dim: int = 2) -> np.ndarray:
    """Concatenate polylines ``(k, dim)`` with NaN rows between them (one line artist)."""
    out = []
    for i, p in enumerate(pieces):
        if i:
            out.append(np.full((1, dim), np.nan))
        out.append(np.asarray(p, float).reshape(-1, dim))
    return np.concatenate(out) if out else np.zeros((0, dim))


@dataclass
class _Moving:
    """An artist and its vertices in every state of a drawing."""

    artist: object
    coords: np.ndarray  # (N, k, dim) global vertices in every state
    kind: str  # "line", "poly", "text" or "note"


# -- red notes on joints that could not be satisfied -------------------------------------------
def _failed_joints(mech, result, highlight, tol: float) -> tuple[list, dict]:
    """Joints to draw in red: those of ``result`` above ``tol``, then ``highlight``.

    Returns the joints (largest residual first) and ``joint -> residual vector`` of the failed
    ones.
    """
    residuals = {}
    if result is not None:
        jr = result["joint_residuals"] if isinstance(result, dict) else result.joint_residuals
        for j, r in jr.items():
            r = np.asarray(r, float)
            if r.size and not np.max(np.abs(r)) <= tol:  # NaN counts as failed
                residuals[j] = r
    chosen = list(residuals)
    for j in highlight:
        if not isinstance(j, Joint):
            raise TypeError(f"highlight takes joints, got {type(j).__name__}")
        if j not in chosen:
            chosen.append(j)
    chosen.sort(key=lambda j: -float(np.max(np.abs(residuals[j]))) if j in residuals else 0.0)
    for j in chosen:
        if j.mechanism is not mech:
            raise ValueError(f"{j.label} is not part of this mechanism")
    return chosen, residuals


def _note_text(j: Joint, residuals: dict) -> str:
    """A highlighted joint's label: its name and, if it failed, its residuals."""
    text = j.name or j.label
    if j in residuals:
        text += ": " + ", ".join(f"{j.equation_label(i)}={v:.3g}"
                                 for i, v in enumerate(residuals[j]))
    return text


def _note_offset(a, right: bool, text: str, boxes: list) -> tuple[float, float]:
    """Offset (points) of a label of ``text`` at anchor ``a`` (points) clear of ``boxes``.

    The label goes to the right of the anchor (or the left), 6 points above it, else below,
    then further up and down, until its box overlaps no earlier one; its box is added.
    """
    w, h = 4.6 * len(text) + 6.0, 13.0
    dx = 10.0 if right else -10.0
    x0 = a[0] + dx if right else a[0] + dx - w
    dy = 6.0
    for k in range(60):
        dy = 6.0 + 15.0 * (k // 2) if k % 2 == 0 else -6.0 - h - 15.0 * (k // 2)
        y0 = a[1] + dy
        if not any(x0 < bx1 and bx0 < x0 + w and y0 < by1 and by0 < y0 + h
                   for bx0, bx1, by0, by1 in boxes):
            break
    boxes.append((x0, x0 + w, a[1] + dy, a[1] + dy + h))
    return dx, dy


# -- a motion's driver -------------------------------------------------------------------------
def _driver_unit(driver) -> str:
    if driver is None:  # a time sweep
        return "time"
    if isinstance(driver, AngleDriver) or (isinstance(driver, Driver)
                                            and driver.coordinate == "angle"):
        return "angle"
    return "length"


def _driver_name(driver) -> str:
    return "t" if driver is None else driver.name or driver.label
