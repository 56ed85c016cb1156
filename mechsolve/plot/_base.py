"""What the modules of :mod:`mechsolve.plot` share, and the drawing base class.

The colours of bodies, ground, drivers, highlights, frames and traces; the checks of the
arguments of ``draw``, ``animate`` and ``plot_motion``; the registry of the last drawing made on
an Axes; the choice and placing of the red notes on joints that a solve could not satisfy; the
labels of a motion's driver; and :class:`_DrawingBase`, what the planar ``Drawing`` and the
spatial ``Drawing3D`` have in common. Nothing here imports matplotlib or another module of the
package.
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


def _named_points(body: Body) -> list:
    """``[(name, local point), ...]`` of a body's named points (``Body.points``, a mapping
    name -> body coordinates, where bodies have it)."""
    points = getattr(body, "points", None) or {}
    return [(str(name), np.asarray(p, dtype=float).reshape(-1)) for name, p in points.items()]


# Where a label may go, in points from its place, tried in this order: where it is, then
# rings around it (wider than high, as labels are).
_LABEL_OFFSETS = [(0.0, 0.0)] + [
    (r * cx * 1.6, r * cy) for r in (9.0, 18.0, 28.0, 40.0, 54.0)
    for cx, cy in ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (-1, 1), (1, -1), (-1, -1))]


def _box_overlap(a, b) -> float:
    """Area shared by the boxes ``(x0, y0, x1, y1)`` ``a`` and ``b``."""
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _place_boxes(boxes: list, gap: float, step: float) -> list:
    """Greedy, deterministic placing of labels: ``boxes`` are their boxes ``(x0, y0, x1, y1)``
    where they stand (display units); each in turn takes the first offset of
    :data:`_LABEL_OFFSETS` (times ``step`` display units per point) at which it overlaps no
    label placed before it (boxes grown by ``gap``), else the one with the least overlap.
    Returns the offsets in points."""
    placed: list = []
    out = []
    for x0, y0, x1, y1 in boxes:
        best, best_area = None, np.inf
        for dx, dy in _LABEL_OFFSETS:
            box = (x0 + dx * step - gap, y0 + dy * step - gap, x1 + dx * step + gap,
                   y1 + dy * step + gap)
            area = sum(_box_overlap(box, b) for b in placed)
            if area < best_area:
                best, best_area = ((dx, dy), box), area
                if area == 0.0:
                    break
        placed.append(best[1])
        out.append(best[0])
    return out


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


def _renderer(fig):
    """A renderer of ``fig`` to measure texts with (the canvas's, else one for the figure)."""
    get = getattr(fig.canvas, "get_renderer", None)
    return get() if callable(get) else fig._get_renderer()


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


# -- units and the user's Axes -----------------------------------------------------------------
def _length_unit(mech, units) -> str | None:
    """The unit lengths are labelled with: ``units`` if given, else the length unit the
    mechanism declares (``mech.units["length"]``, from a model file or set by hand), else
    None (no unit is shown)."""
    if units is not None:
        if not isinstance(units, str) or not units.strip():
            raise TypeError(f"units must be the name of a length unit such as 'mm', got "
                            f"{units!r}")
        return units.strip()
    declared = getattr(mech, "units", None) or {}
    unit = declared.get("length") if isinstance(declared, dict) else None
    return unit if isinstance(unit, str) and unit.strip() else None


def _with_unit(text: str, unit: str | None) -> str:
    """``"x (mm)"``, or ``"x"`` where no unit is known."""
    return f"{text} ({unit})" if unit else text


def _label_axes(ax, unit: str | None, dim: int) -> None:
    """Axis labels with the length unit: ``x (mm)``... A planar drawing without a known unit
    keeps its axes unlabelled, and labels the user set stay."""
    if dim == 2 and unit is None:
        return
    for name in ("x", "y", "z")[:dim]:
        current = getattr(ax, f"get_{name}label")()
        if current in ("", name) or current.startswith(f"{name} ("):
            getattr(ax, f"set_{name}label")(_with_unit(name, unit))


def _user_limits(ax) -> tuple | None:
    """The limits an Axes holds before a drawing is added to it: the user's, where the user
    set them (``set_xlim``...) or drew something (a curve), so that a drawing only grows them;
    None for an empty Axes with automatic limits."""
    names = ("x", "y", "z") if _is_3d(ax) else ("x", "y")
    auto = all(getattr(ax, f"get_autoscale{n}_on")() for n in names)
    if auto and not ax.has_data():
        return None
    return tuple(tuple(float(v) for v in getattr(ax, f"get_{n}lim")()) for n in names)


def _grown(lo: np.ndarray, hi: np.ndarray, prior: tuple | None) -> tuple:
    """``(lo, hi)`` grown to cover ``prior`` (the limits the Axes had, see
    :func:`_user_limits`)."""
    if prior is None:
        return lo, hi
    low = np.array([min(a, b) for a, b in prior], dtype=float)
    high = np.array([max(a, b) for a, b in prior], dtype=float)
    return np.minimum(lo, low), np.maximum(hi, high)


# -- the drawing base --------------------------------------------------------------------------
class _DrawingBase:
    """What a planar :class:`~mechsolve.plot.Drawing` and a spatial ``Drawing3D`` share.

    The artists, their coordinates in every state (``_moving``), moving them to a frame
    (:meth:`set_frame`), the symbol size, point traces, body-frame triads, body names, pin and
    weld markers, rails, driver labels and the red notes on joints that could not be
    satisfied. A subclass says how its dimension is drawn: ``dim``, the poses of a body and
    their action on points (``_pose_rows``, ``_to_global``), how a line is made
    (``_plot_line``) and an artist moved (``_move``), where a joint is (``_anchor_coords``)
    and how a red note is placed (``_note_place``, ``_note``).
    """

    dim = 2
    #: The width of a rail fixed to ground.
    _ground_rail_width = 1.0

    def __init__(self, mech, ax, states, travel, grow_traces: bool) -> None:
        self.mechanism = mech
        self.ax = ax
        self.states = states = _as_states(mech, states)
        self.frame = 0
        self.bodies: dict = {}
        self.local: dict = {}
        self.rods: dict = {}
        self.rails: dict = {}
        self.ground: list = []
        self.drivers: dict = {}
        self.traces: list = []
        self.highlights: dict = {}
        self.names: dict = {}
        self.point_marks = None
        self.point_names: dict = {}
        self.triads: tuple = ()
        self._moving: list[_Moving] = []
        self._extent: list[np.ndarray] = []
        self._outline_coords: dict = {}
        self._grow = grow_traces
        self._trace_paths: list[np.ndarray] = []
        bodies = (mech.ground, *mech.bodies)
        self._poses = {b: self._pose_rows(b, states) for b in bodies}
        if travel is not None:  # states whose slides the rails and racks must cover
            travel = np.concatenate([states, np.atleast_2d(np.asarray(travel, dtype=float))])
        else:
            travel = states
        self._travel = {b: self._pose_rows(b, travel) for b in bodies}
        self._colors = {b: BODY_COLORS[i % len(BODY_COLORS)] for i, b in enumerate(mech.bodies)}
        self._colors[mech.ground] = GROUND_COLOR

    def _finish(self, result, highlight, tol: float) -> None:
        """Mark the failed (and chosen) joints, show the first state, register the drawing."""
        if result is not None or highlight:
            self._highlight(result, highlight, tol)
        self.set_frame(0)
        self.place_labels()
        _DRAWINGS[self.ax] = self

    # -- public --------------------------------------------------------------------------------
    @property
    def artists(self) -> list:
        """The artists that move from frame to frame."""
        return [m.artist for m in self._moving] + [a for pair in self.traces for a in pair]

    def set_frame(self, i: int) -> list:
        """Move the artists to state ``i`` (traces grow up to it); returns the moved artists."""
        i = int(i)
        self.frame = i
        for m in self._moving:
            self._move(m.artist, m.kind, m.coords[i])
        if self._grow:
            for (line, dot), path in zip(self.traces, self._trace_paths):
                self._move(line, "line", path[:i + 1])
                self._move(dot, "line", path[i:i + 1])
        return self.artists

    def set_state(self, state) -> list:
        """Show ``state``, a pose that need not be one of :attr:`states`; returns the moved
        artists.

        The geometry is made again for the new state (by the same construction, on a scratch
        Axes that is then dropped) and the drawing's own artists are moved to it in place,
        as :meth:`set_frame` moves them: nothing is removed from or added to the Axes, and
        its limits are kept. :attr:`states` becomes ``state`` alone (frame 0). Used by
        :func:`mechsolve.plot.interact` to follow its sliders.
        """
        states = _as_states(self.mechanism, state)
        if len(states) != 1:
            raise ValueError(f"set_state takes one state vector, got {len(states)}")
        options = dict(self._options, highlight=tuple(self.highlights))
        twin = type(self)(self.mechanism, self._scratch_axes(), states=states, **options)
        if [m.kind for m in twin._moving] != [m.kind for m in self._moving]:
            raise RuntimeError("the drawing's artists differ at the new state; draw it again")
        for mine, new in zip(self._moving, twin._moving):
            mine.coords = new.coords
        self.states = states
        self._poses = twin._poses
        self._outline_coords = twin._outline_coords
        self._trace_paths = twin._trace_paths if self._grow else self._trace_paths
        return self.set_frame(0)

    @property
    def labels(self) -> list:
        """The texts :meth:`place_labels` keeps apart: driver names, body names (``names=True``)
        and the names of bodies' named points, in that order."""
        out = [pair[1] for pair in self.drivers.values()]
        out += list(self.names.values()) + list(self.point_names.values())
        return [t for t in out if t.get_visible()]

    def label_boxes(self, renderer=None) -> list:
        """The display boxes ``(x0, y0, x1, y1)`` of :attr:`labels` as they are drawn."""
        ax = self.ax
        renderer = renderer or _renderer(ax.figure)
        out = []
        for text in self.labels:
            at = self._label_anchor(text)
            own = ax.transData.transform(text.get_position())  # where it stands, unmoved
            ext = text.get_window_extent(renderer)
            out.append((ext.x0 - own[0] + at[0], ext.y0 - own[1] + at[1],
                        ext.x1 - own[0] + at[0], ext.y1 - own[1] + at[1]))
        return out

    def place_labels(self) -> None:
        """Move the labels apart: each label (in the order of :attr:`labels`) stays where it
        is, or moves by the first of a set of offsets around its place (rings of 9 to 54
        points) at which its box overlaps no label placed before it (else by the offset of
        least overlap). Deterministic; made by the drawing, and again by calling it after the
        figure is resized."""
        texts = self.labels
        if not texts:
            return
        from matplotlib.transforms import ScaledTranslation  # matplotlib is loaded by now

        ax = self.ax
        fig = ax.figure
        ax.apply_aspect()
        for text in texts:
            text.set_transform(ax.transData)
        renderer = _renderer(fig)
        offsets = _place_boxes(self.label_boxes(renderer), gap=1.5, step=fig.dpi / 72.0)
        for text, (dx, dy) in zip(texts, offsets):
            if dx or dy:
                text.set_transform(ax.transData + ScaledTranslation(dx / 72.0, dy / 72.0,
                                                                    fig.dpi_scale_trans))

    def _label_anchor(self, text) -> np.ndarray:
        """Display point (pixels) where ``text`` stands, before its offset."""
        return self.ax.transData.transform(text.get_position())

    def outline(self, body: Body) -> np.ndarray:
        """Global vertices ``(k, dim)`` of the body's outline in the frame shown."""
        return self._outline_coords[body][self.frame].copy()

    # -- what a subclass says ------------------------------------------------------------------
    @staticmethod
    def _pose_rows(body: Body, states: np.ndarray) -> np.ndarray:
        """Poses of ``body`` in the states ``(N, n)``, one row each."""
        raise NotImplementedError

    @staticmethod
    def _to_global(X: np.ndarray, pts: np.ndarray) -> np.ndarray:
        """Global coordinates ``(N, k, dim)`` of local points ``(k, dim)`` at poses ``X``."""
        raise NotImplementedError

    @staticmethod
    def _scratch_axes():
        """An Axes of this drawing's kind on a figure of its own (see :meth:`set_state`)."""
        raise NotImplementedError

    def _plot_line(self, points: np.ndarray, **style):
        """A line artist through ``points (k, dim)``, added to the Axes."""
        raise NotImplementedError

    def _move(self, artist, kind: str, c: np.ndarray) -> None:
        """Put ``artist`` (a "line", "poly", "text" or "note") at the vertices ``c``."""
        raise NotImplementedError

    def _anchor_coords(self, j: Joint) -> np.ndarray:
        """Global points ``(N, k, dim)`` that locate joint ``j`` (its red line)."""
        raise NotImplementedError

    def _note_place(self, anchor: np.ndarray) -> tuple[np.ndarray, bool]:
        """The display point (pixels) of ``anchor`` and whether its note goes to the right."""
        raise NotImplementedError

    def _note(self, text: str, coords: np.ndarray, offset: tuple, right: bool):
        """The red note ``text`` at ``coords[frame, 0]``, ``offset`` points away."""
        raise NotImplementedError

    # -- artists -------------------------------------------------------------------------------
    def _coords(self, parts, poses=None) -> np.ndarray:
        """Global coordinates ``(N, k, dim)`` of ``[(body, local points (k, dim)), ...]``."""
        poses = self._poses if poses is None else poses
        return np.concatenate([self._to_global(poses[b],
                                               np.asarray(p, float).reshape(-1, self.dim))
                               for b, p in parts], axis=1)

    def _register(self, artist, coords: np.ndarray, kind: str = "line") -> None:
        """Move ``artist`` with the drawing (to ``coords[i]`` in frame ``i``), within limits."""
        self._moving.append(_Moving(artist, coords, kind))
        self._extent.append(coords.reshape(-1, self.dim))

    def _line(self, coords: np.ndarray, **style):
        """A line through ``coords (N, k, dim)``, moved by :meth:`set_frame`."""
        line = self._plot_line(coords[0], **style)
        self._register(line, coords)
        return line

    def _add_line(self, parts, **style):
        """A moving line through body points ``[(body, local points), ...]``, and its coords."""
        coords = self._coords(parts)
        return self._line(coords, **style), coords

    def _text(self, coords: np.ndarray, text: str, **style):
        """A text at ``coords[i, 0]`` in frame ``i``."""
        art = self.ax.text(*coords[0, 0], text, **style)
        self._moving.append(_Moving(art, coords, "text"))
        return art

    # -- steps of the construction shared by both dimensions -----------------------------------
    def _symbol_size(self, probe: list) -> float:
        """Set :attr:`size` (3 % of the extent of the points ``probe``); returns the extent."""
        allp = np.concatenate(probe) if probe else np.zeros((1, self.dim))
        allp = allp[np.all(np.isfinite(allp), axis=1)]
        span = float(np.max(np.ptp(allp, axis=0))) if len(allp) else 1.0
        self.size = 0.03 * (span if span > 0 else 1.0)
        return span

    def _add_rail(self, j: Joint, b1: Body, c: np.ndarray, u: np.ndarray,
                  t: np.ndarray) -> tuple[float, float]:
        """The rail of a sliding joint: along ``u`` through ``c`` (body-1 coordinates), past
        the travel ``t`` of body 2's point along it at both ends."""
        s = self.size
        t = t[np.isfinite(t)]
        lo = (float(t.min()) if t.size else 0.0) - 2.5 * s
        hi = (float(t.max()) if t.size else 0.0) + 2.5 * s
        if b1.is_ground:
            style = {"color": GROUND_COLOR, "linewidth": self._ground_rail_width,
                     "linestyle": "-.", "zorder": 1.5}
        else:
            style = {"color": self._colors[b1], "linewidth": 7.0, "alpha": 0.35,
                     "solid_capstyle": "round", "zorder": 2.5}
        self.rails[j], _ = self._add_line([(b1, np.array([c + lo * u, c + hi * u]))], **style)
        return lo, hi

    def _add_pins(self, pin_parts: list, weld_parts: list) -> None:
        """Circles at the pins (white) and squares at the welds (dark), one line each."""
        nowhere = [(self.mechanism.ground, np.full(self.dim, np.nan))]
        self.pins, _ = self._add_line(pin_parts or nowhere, linestyle="none", marker="o",
                                      markersize=6, markerfacecolor="white",
                                      markeredgecolor="black", markeredgewidth=1.2, zorder=6)
        self.welds, _ = self._add_line(weld_parts or nowhere, linestyle="none", marker="s",
                                       markersize=6, markerfacecolor=GROUND_COLOR,
                                       markeredgecolor="black", zorder=6)

    def _driver_label(self, j, coords: np.ndarray, ha: str):
        """A driver's name in orange at ``coords (N, 1, dim)``."""
        return self._text(coords, j.name or j.label, color=DRIVER_COLOR, fontsize=9,
                          fontweight="bold", ha=ha, va="bottom", zorder=9,
                          bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                "alpha": 0.7})

    def _add_traces(self, trace: list, trace_paths) -> None:
        """The path of every traced point (whole, or growing with the frames) and its dot."""
        if trace_paths is None:
            trace_paths = [self._coords([(b, p)])[:, 0, :] for b, p in trace]
        for k, ((b, p), path) in enumerate(zip(trace, trace_paths)):
            path = np.asarray(path, float)
            color = TRACE_COLORS[k % len(TRACE_COLORS)]
            here = self._coords([(b, p)])
            line = self._plot_line(path, color=color, linewidth=1.5, alpha=0.9, zorder=4)
            dot = self._plot_line(here[0], linestyle="none", marker="o", markersize=5,
                                  color=color, zorder=7)
            self.traces.append((line, dot))
            self._trace_paths.append(path)
            self._extent.append(path)
            if not self._grow:
                self._register(dot, here)

    def _add_triads(self, length: float) -> None:
        """The axes of every body frame (and of ground's), one line per axis."""
        d = self.dim
        lines = []
        for k, color in enumerate(TRIAD_COLORS[:d]):
            tip = np.zeros(d)
            tip[k] = length
            parts = [(b, np.array([np.zeros(d), tip, np.full(d, np.nan)]))
                     for b in (self.mechanism.ground, *self.mechanism.bodies)]
            line, _ = self._add_line(parts, color=color, linewidth=1.5, zorder=5)
            lines.append(line)
        self.triads = tuple(lines)

    def _add_names(self) -> None:
        """Every body's name at the middle of its outline."""
        for b, coords in self._outline_coords.items():
            centre = np.nanmean(coords, axis=1)[:, None, :]
            self.names[b] = self._text(centre, b.name, fontsize=8, ha="center", va="center",
                                       zorder=9, color="black",
                                       bbox={"boxstyle": "round,pad=0.2", "fc": "white",
                                             "ec": "none", "alpha": 0.7})

    def _add_named_points(self, names: bool) -> None:
        """A small diamond at every named point of a body (``Body.points``), with its name
        when ``names``."""
        parts = [(b, p) for b in (self.mechanism.ground, *self.mechanism.bodies)
                 for _, p in _named_points(b)]
        if not parts:
            return
        self.point_marks, _ = self._add_line(parts, linestyle="none", marker="D",
                                             markersize=5, markerfacecolor="white",
                                             markeredgecolor="black", markeredgewidth=1.0,
                                             zorder=6.5)
        if not names:
            return
        for b in (self.mechanism.ground, *self.mechanism.bodies):
            for name, p in _named_points(b):
                self.point_names[(b, name)] = self._text(
                    self._coords([(b, p)]), name, fontsize=7, ha="left", va="bottom",
                    zorder=9, color=self._colors[b],
                    bbox={"boxstyle": "round,pad=0.1", "fc": "white", "ec": "none",
                          "alpha": 0.7})

    def _highlight(self, result, highlight, tol: float) -> None:
        """Joints in red, each with a note beside it (clear of the others), largest first."""
        chosen, residuals = _failed_joints(self.mechanism, result, highlight, tol)
        ax = self.ax
        ax.apply_aspect()
        scale = 72.0 / ax.figure.dpi
        boxes: list = []  # note boxes, in points
        for j in chosen:
            coords = self._anchor_coords(j)
            line = self._line(coords, **_HIGHLIGHT_LINE)
            text = _note_text(j, residuals)
            # Beside the joint, away from the middle of the plot, clear of earlier notes.
            a, right = self._note_place(coords[self.frame, 0])
            offset = _note_offset(a * scale, right, text, boxes)
            self.highlights[j] = (line, self._note(text, coords, offset, right))
            if j in self.drivers:  # the red label names it
                self.drivers[j][1].set_visible(False)
