"""Drawing and animation of planar and spatial mechanisms with matplotlib.

``draw(mech)`` draws a mechanism at its current pose: every body as the polyline or polygon
through its joint points (or as a shape you attach with :func:`set_shape`), pins as small
circles, ground pivots hatched, prismatic rails and slots as lines along their axes, slider
blocks, gears as pitch circles, racks with teeth and drivers as arrows carrying their names.
After a failed solve, ``draw(mech, result=err.result)`` marks the joints that could not be
satisfied in red and labels them with their residuals.

``animate(mech, motion, trace=[(body, point)])`` turns a sweep into a matplotlib
``FuncAnimation`` whose traces (coupler curves) grow as the mechanism moves; ``.save("x.gif")``
writes a GIF with Pillow (``.mp4`` needs ffmpeg). ``plot_motion(motion, body, "angle")`` plots a
body coordinate or a point path against the driver value. ``animate_free_motions(mech)`` wiggles
each free motion of a mechanism with fewer drivers than degrees of freedom, one after another.

Spatial mechanisms (``Mechanism(dim=3)``) are drawn by the same ``draw`` and ``animate`` in a
3D Axes (mplot3d, made for you when ``ax`` is not given; see :mod:`mechsolve.plot.spatial`): bodies
through their joint origins in global coordinates, joint origins as small circles, ground
points as dark triangles, rods as lines, revolute axes as short segments, drivers with their
names, equal axis scaling, optional body-frame triads (``frames=True``) and the same failed-solve
highlight. ``plot_motion`` plots spatial point paths.

matplotlib is imported on first use, so ``import mechsolve`` stays light.

Examples
--------
>>> import mechsolve as ms
>>> from matplotlib.figure import Figure
>>> model = ms.models.fourbar()
>>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(), trace=model.trace)
>>> drawing = ms.plot.get_drawing(ax)
>>> sorted(body.name for body in drawing.bodies)
['coupler', 'crank', 'rocker']
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..body import Body
from ..joints._drivers import AngleDriver, DistanceDriver, Driver, SlideDriver
from ..joints._planar import Distance, Fixed, Gear, PointOnLine, Prismatic, RackPinion, Revolute
from ..joints.base import DriverJoint, Joint
from ._base import (
    _DRAWINGS,
    _HIGHLIGHT_LINE,
    _NOTE_STYLE,
    BODY_COLORS,
    DRIVER_COLOR,
    GROUND_COLOR,
    TRACE_COLORS,
    TRIAD_COLORS,
    _as_states,
    _check_body,
    _check_mechanism,
    _check_motion,
    _check_shapes,
    _check_trace,
    _driver_name,
    _driver_unit,
    _failed_joints,
    _get,
    _is_3d,
    _Moving,
    _nan_join,
    _note_offset,
    _note_text,
    _unique,
)
from ._base import HIGHLIGHT_COLOR as HIGHLIGHT_COLOR  # public, as the other colours
from .shapes import Shape, _shape_of, circle, get_shape, set_shape

__all__ = ["draw", "animate", "animate_free_motions", "plot_motion", "set_shape", "get_shape",
           "circle", "get_drawing", "Drawing", "Shape"]


# File suffixes that need ffmpeg, and those Pillow writes.
_FFMPEG_SUFFIXES = (".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm")
_PILLOW_SUFFIXES = (".gif", ".webp", ".apng")


# -- geometry over many states -----------------------------------------------------------------
def _check_planar(mech) -> None:
    if _check_mechanism(mech) != 2:
        raise TypeError("Drawing draws planar mechanisms; a spatial one (Mechanism(dim=3)) is "
                        "drawn by mechsolve.plot.Drawing3D, which draw and animate pick for it")


def _check_2d_axes(ax) -> None:
    if ax is not None and _is_3d(ax):
        raise ValueError("ax is a 3D Axes, but a planar mechanism is drawn in a 2D Axes "
                         "(fig.add_subplot() without projection='3d')")


def _poses(body: Body, states: np.ndarray) -> np.ndarray:
    """Poses ``(N, 3)`` of ``body`` in the states ``(N, n)`` (the layout of Motion.pose)."""
    if body.is_ground:
        return np.zeros((len(states), 3))
    i = 3 * body.index
    return states[:, i:i + 3]


def _transform(X: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Global coordinates ``(N, k, 2)`` of local points ``(k, 2)`` at poses ``(N, 3)``."""
    c = np.cos(X[:, 2])[:, None]
    s = np.sin(X[:, 2])[:, None]
    gx = X[:, 0, None] + c * pts[None, :, 0] - s * pts[None, :, 1]
    gy = X[:, 1, None] + s * pts[None, :, 0] + c * pts[None, :, 1]
    return np.stack([gx, gy], axis=-1)


def _two_point(joint: Joint):
    """``[(body, local point), ...]`` of a joint with a point on each of its two bodies.

    Built-in joints are read from their parameters; any other joint class can say where it
    attaches by defining ``plot_points(self) -> [(body, (x, y)), ...]`` (body coordinates).
    """
    if isinstance(joint, (Revolute, Fixed, Distance, Prismatic, PointOnLine, RackPinion)):
        b1, b2 = joint.bodies[:2]
        return [(b1, joint._p[0:2].copy()), (b2, joint._p[2:4].copy())]
    hook = getattr(joint, "plot_points", None)
    if callable(hook):
        return [(b, np.asarray(p, dtype=float).reshape(2)) for b, p in hook()]
    return []


def _outline(points: np.ndarray) -> tuple[np.ndarray, bool]:
    """Order joint points into an outline: sorted polyline if collinear, else a polygon."""
    if len(points) <= 2:
        return points, False
    c = points.mean(axis=0)
    d = points - c
    _, sv, vt = np.linalg.svd(d, full_matrices=False)
    if sv[1] <= 1e-9 * max(sv[0], 1e-300):
        return points[np.argsort(d @ vt[0])], False
    return points[np.argsort(np.arctan2(d[:, 1], d[:, 0]))], True


def _arrowhead(tip, direction, size) -> np.ndarray:
    """An open arrowhead (a 'V') at ``tip`` pointing along ``direction``."""
    d = np.asarray(direction, float)
    d = d / np.linalg.norm(d)
    n = np.array([-d[1], d[0]])
    back = np.asarray(tip) - size * d
    return np.array([back + 0.6 * size * n, tip, back - 0.6 * size * n])


def _arc_arrow(radius: float, head: float) -> np.ndarray:
    """A counter-clockwise arc arrow around the origin (the mark of a driven angle)."""
    t = np.linspace(np.radians(-60), np.radians(200), 40)
    arc = radius * np.stack([np.cos(t), np.sin(t)], axis=1)
    tangent = np.array([-np.sin(t[-1]), np.cos(t[-1])])
    return _nan_join([arc, _arrowhead(arc[-1], tangent, head)])


def _double_arrow(half: float, head: float) -> np.ndarray:
    """A double-headed arrow along x, centred on the origin."""
    a, b = np.array([-half, 0.0]), np.array([half, 0.0])
    return _nan_join([np.array([a, b]), _arrowhead(b, (1, 0), head), _arrowhead(a, (-1, 0), head)])


class Drawing:
    """The artists of one mechanism drawing, kept so that they can be moved or inspected.

    Made by :func:`draw` (``get_drawing(ax)`` returns it) and :func:`animate`
    (``anim.drawing``), whose keywords the constructor mirrors. The geometry is computed for
    every state in ``states`` (rows of state vectors, default the mechanism's current state) at
    once, and :meth:`set_frame` moves the artists to one of them.

    Attributes
    ----------
    mechanism : Mechanism
    ax : matplotlib Axes
    states : ndarray, shape (N, n)
        The states the drawing can show; :attr:`frame` is the one shown.
    bodies : dict
        ``Body -> artist`` (a ``Line2D`` for a polyline, a ``Polygon`` for a closed outline).
    local : dict
        ``Body -> (k, 2)`` outline vertices in body coordinates, in the artist's order.
    pins : Line2D
        Markers at the revolute (and pin-in-slot, rod-end) points.
    welds : Line2D
        Square markers at fixed joints.
    rods : dict
        ``Distance joint -> Line2D`` from one end to the other.
    gears : dict
        ``(Body, radius) -> Polygon``: pitch circle with a spoke, turning with the body.
    racks : dict
        ``RackPinion -> Line2D``: the rack's pitch line with teeth.
    rails : dict
        ``Prismatic or PointOnLine -> Line2D`` along the joint's axis through its body-1 point.
    ground : list
        Static artists of the ground symbols (hatched pivots and guides).
    drivers : dict
        ``driver -> (Line2D, Text)``: its arrow and its name.
    traces : list of (Line2D, Line2D)
        Path and current-point marker of each traced point.
    triads : tuple of Line2D
        With ``frames=True``: the x and y axes of every body frame (one line each).
    highlights : dict
        ``joint -> (Line2D, Annotation)`` for joints drawn in red (see :func:`draw`).
    """

    def __init__(self, mech, ax=None, *, states=None, trace=(), trace_paths=None,
                 grow_traces: bool = False, shapes=None, names: bool = False,
                 show_ground: bool = True, show_drivers: bool = True, result=None,
                 highlight=(), tol: float = 1e-10, top_margin: float = 0.0,
                 travel=None, body_frames: bool = False) -> None:
        _check_planar(mech)
        if ax is None:
            import matplotlib.pyplot as plt

            ax = plt.gca()
        self.mechanism = mech
        self.ax = ax
        self.states = states = _as_states(mech, states)
        self.frame = 0
        self.bodies: dict = {}
        self.local: dict = {}
        self.rods: dict = {}
        self.gears: dict = {}
        self.racks: dict = {}
        self.rails: dict = {}
        self.ground: list = []
        self.drivers: dict = {}
        self.traces: list = []
        self.highlights: dict = {}
        self.names: dict = {}
        self.triads: tuple = ()
        self._moving: list[_Moving] = []
        self._grow = grow_traces
        self._trace_paths: list[np.ndarray] = []
        self._poses = {b: _poses(b, states) for b in (mech.ground, *mech.bodies)}
        if travel is not None:  # states whose slides the rails and racks must cover
            travel = np.concatenate([states, np.atleast_2d(np.asarray(travel, dtype=float))])
        else:
            travel = states
        self._travel = {b: _poses(b, travel) for b in (mech.ground, *mech.bodies)}
        self._colors = {b: BODY_COLORS[i % len(BODY_COLORS)] for i, b in enumerate(mech.bodies)}
        self._colors[mech.ground] = GROUND_COLOR
        trace = _check_trace(mech, trace)
        self._build(trace, trace_paths, shapes or {}, names, show_ground, show_drivers,
                    float(top_margin), bool(body_frames))
        if result is not None or highlight:
            self._highlight(result, highlight, tol)
        self.set_frame(0)
        _DRAWINGS[ax] = self

    # -- public ---------------------------------------------------------------------------------
    @property
    def artists(self) -> list:
        """The artists that move from frame to frame."""
        return [m.artist for m in self._moving] + [a for pair in self.traces for a in pair]

    def set_frame(self, i: int) -> list:
        """Move the artists to state ``i`` (traces grow up to it); returns the moved artists."""
        i = int(i)
        self.frame = i
        for m in self._moving:
            c = m.coords[i]
            if m.kind == "line":
                m.artist.set_data(c[:, 0], c[:, 1])
            elif m.kind == "poly":
                m.artist.set_xy(c)
            else:
                m.artist.set_position(c[0])
        for (line, dot), path in zip(self.traces, self._trace_paths):
            if self._grow:
                line.set_data(path[:i + 1, 0], path[:i + 1, 1])
                dot.set_data(path[i:i + 1, 0], path[i:i + 1, 1])
        return self.artists

    def outline(self, body: Body) -> np.ndarray:
        """Global vertices ``(k, 2)`` of the body's outline in the frame shown."""
        return self._outline_coords[body][self.frame].copy()

    # -- construction ---------------------------------------------------------------------------
    def _coords(self, parts, poses=None) -> np.ndarray:
        poses = self._poses if poses is None else poses
        return np.concatenate([_transform(poses[b], np.asarray(p, float).reshape(-1, 2))
                               for b, p in parts], axis=1)

    def _add_line(self, parts, **style):
        from matplotlib.lines import Line2D

        coords = self._coords(parts)
        line = Line2D([], [], **style)
        self.ax.add_line(line)
        self._register(line, coords, "line")
        return line, coords

    def _add_poly(self, parts, **style):
        from matplotlib.patches import Polygon

        coords = self._coords(parts)
        poly = Polygon(coords[0], closed=True, **style)
        self.ax.add_patch(poly)
        self._register(poly, coords, "poly")
        return poly, coords

    def _register(self, artist, coords, kind) -> None:
        self._moving.append(_Moving(artist, coords, kind))
        self._extent.append(coords.reshape(-1, 2))

    def _build(self, trace, trace_paths, shapes, names, show_ground, show_drivers,
               top_margin, body_frames=False) -> None:
        mech, ax = self.mechanism, self.ax
        self._extent: list[np.ndarray] = []
        joints = mech.joints
        # Attachment points of every body, from the joints (and the traced points).
        points: dict = {b: [] for b in mech.bodies}
        for j in joints:
            for b, p in _two_point(j):
                if not b.is_ground:
                    points[b].append(p)
        for b, p in trace:
            if not b.is_ground:
                points[b].append(np.asarray(p, float))
        # Gears: pitch circles about the gear's pin to its carrier (else its origin).
        gear_specs = []  # (body, centre, radius, internal ring)
        for j in joints:
            if isinstance(j, Gear):
                b1, b2, carrier = j.bodies
                for b, r, ring in ((b1, j._p[0], False), (b2, abs(j._p[1]), j._p[1] < 0)):
                    gear_specs.append((b, _centre_on(b, carrier, joints), float(r), ring))
            elif isinstance(j, RackPinion):
                rack, pinion = j.bodies
                gear_specs.append((pinion, j._p[2:4].copy(), float(j._p[6]), False))
        rack_bodies = {j.bodies[0] for j in joints if isinstance(j, RackPinion)}
        gear_bodies = {b for b, *_ in gear_specs}
        slider_axis = {}  # body2 of a prismatic -> axis direction in body-2 coordinates
        for j in joints:
            if isinstance(j, Prismatic):
                u1 = j._p[4:6]
                a2 = np.arctan2(u1[1], u1[0]) - j._p[6]
                slider_axis.setdefault(j.bodies[1], np.array([np.cos(a2), np.sin(a2)]))
        # Size of the symbols from the extent of the joint points over all states.
        probe = [self._coords([(b, _unique(p))]).reshape(-1, 2) for b, p in points.items() if p]
        probe += [self._coords([(b, circle(r, c, 8))]).reshape(-1, 2)
                  for b, c, r, _ in gear_specs]
        probe += [self._coords([(j.bodies[0], j._p[0:2])]).reshape(-1, 2) for j in joints
                  if isinstance(j, (Revolute, Fixed, Distance)) and j.bodies[0].is_ground]
        probe += [np.asarray(p, float) for p in (trace_paths or [])]
        allp = np.concatenate(probe) if probe else np.zeros((1, 2))
        allp = allp[np.all(np.isfinite(allp), axis=1)]
        span = float(np.max(np.ptp(allp, axis=0))) if len(allp) else 1.0
        self.size = s = 0.03 * (span if span > 0 else 1.0)

        # Bodies.
        self._outline_coords = {}
        for b in mech.bodies:
            color = self._colors[b]
            shape = _shape_of(b, shapes)
            if shape is not None:
                style = {"color": color, "linewidth": 2.5, "zorder": 3}
                if shape.closed:
                    style = {"facecolor": color, "edgecolor": color, "alpha": 0.35,
                             "linewidth": 2.0, "zorder": 3}
                style.update(shape.style)
                local = shape.points
                if shape.closed:
                    if "color" in shape.style:
                        style.pop("facecolor", None)
                        style.pop("edgecolor", None)
                    art, coords = self._add_poly([(b, local)], **style)
                else:
                    art, coords = self._add_line([(b, local)], **style)
            else:
                local, closed = _outline(_unique(points[b]))
                if len(local) == 1 and b in gear_bodies | rack_bodies:
                    continue  # drawn as its gear or rack
                if len(local) == 1 and b in slider_axis:
                    u = slider_axis[b]
                    n = np.array([-u[1], u[0]])
                    c0 = local[0]
                    local = np.array([c0 + sx * 1.3 * s * u + sy * 0.75 * s * n
                                      for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))])
                    closed = True
                elif len(local) <= 1:
                    c0 = local[0] if len(local) else np.zeros(2)
                    local = c0 + circle(0.6 * s, n=16)
                    closed = True
                if closed:
                    art, coords = self._add_poly([(b, local)], facecolor=color, alpha=0.45,
                                                 edgecolor=color, linewidth=2.0, zorder=3,
                                                 joinstyle="round")
                else:
                    art, coords = self._add_line([(b, local)], color=color, linewidth=4.0,
                                                 solid_capstyle="round", zorder=3)
            self.bodies[b] = art
            self.local[b] = np.asarray(local, float)
            self._outline_coords[b] = coords

        # Gears and racks.
        seen = set()
        for b, c, r, ring in gear_specs:
            key = (b, round(r, 12), tuple(np.round(c, 12)))
            if key in seen:
                continue
            seen.add(key)
            t = np.linspace(0, 2 * np.pi, 73)
            rim = c + r * np.stack([np.cos(t), np.sin(t)], axis=1)
            local = np.concatenate([c[None], rim])
            color = self._colors[b]
            art, _ = self._add_poly([(b, local)],
                                    facecolor="none" if ring else (*_rgb(color), 0.2),
                                    edgecolor=color, linewidth=3.0 if ring else 2.0, zorder=2)
            self.gears[(b, r)] = art
        for j in joints:
            if isinstance(j, RackPinion):
                self._rack(j, s)

        # Rails and slots (after the bodies: they use the extent).
        for j in joints:
            if isinstance(j, (Prismatic, PointOnLine)):
                self._rail(j, s, show_ground)

        # Rods, pins and welds.
        pin_parts, weld_parts = [], []
        for j in joints:
            if isinstance(j, Distance):
                (b1, p1), (b2, p2) = _two_point(j)
                style = {"color": DRIVER_COLOR if isinstance(j, DistanceDriver) else
                         GROUND_COLOR, "linewidth": 2.0, "zorder": 3.5}
                if not isinstance(j, DistanceDriver):
                    style["linestyle"] = (0, (4, 2))
                self.rods[j], _ = self._add_line([(b1, p1), (b2, p2)], **style)
                pin_parts += [(b1, p1), (b2, p2)]
            elif isinstance(j, Revolute):
                pin_parts.append(_two_point(j)[1 if j.bodies[0].is_ground else 0])
            elif isinstance(j, PointOnLine):
                pin_parts.append(_two_point(j)[1])
            elif isinstance(j, Fixed):
                weld_parts.append(_two_point(j)[1 if j.bodies[0].is_ground else 0])
        self.pins, _ = self._add_line(pin_parts or [(mech.ground, np.full((1, 2), np.nan))],
                                      linestyle="none", marker="o", markersize=6,
                                      markerfacecolor="white", markeredgecolor="black",
                                      markeredgewidth=1.2, zorder=6)
        self.welds, _ = self._add_line(weld_parts or [(mech.ground, np.full((1, 2), np.nan))],
                                       linestyle="none", marker="s", markersize=6,
                                       markerfacecolor=GROUND_COLOR,
                                       markeredgecolor="black", zorder=6)

        # Ground symbols.
        if show_ground:
            done: list[np.ndarray] = []
            for j in joints:
                for p in _ground_points(j):
                    if any(np.max(np.abs(p - q)) < 1e-9 for q in done):
                        continue
                    done.append(p)
                    self._ground_pivot(p, s)

        # Drivers.
        if show_drivers:
            for j in mech.drivers:
                self._driver(j, s)

        # Traces.
        if trace_paths is None:
            trace_paths = [self._coords([(b, p)])[:, 0, :] for b, p in trace]
        for k, ((b, p), path) in enumerate(zip(trace, trace_paths)):
            from matplotlib.lines import Line2D

            path = np.asarray(path, float)
            color = TRACE_COLORS[k % len(TRACE_COLORS)]
            line = Line2D(path[:, 0], path[:, 1], color=color, linewidth=1.5, zorder=4,
                          alpha=0.9)
            here = self._coords([(b, p)])[:, 0, :]
            dot = Line2D([], [], linestyle="none", marker="o", markersize=5, color=color,
                         zorder=7)
            ax.add_line(line)
            ax.add_line(dot)
            self.traces.append((line, dot))
            self._trace_paths.append(path)
            self._extent.append(path)
            if not self._grow:
                self._register(dot, here[:, None, :], "line")

        # Body frames: x (red) and y (green) axes of every body, ground's at the origin.
        if body_frames:
            axis_len = 2.5 * s
            lines = []
            for k, color in enumerate(TRIAD_COLORS[:2]):
                tip = np.zeros(2)
                tip[k] = axis_len
                parts = [(b, np.array([[0.0, 0.0], tip, [np.nan, np.nan]]))
                         for b in (mech.ground, *mech.bodies)]
                line, _ = self._add_line(parts, color=color, linewidth=1.5, zorder=5)
                lines.append(line)
            self.triads = tuple(lines)

        # Body names.
        if names:
            for b, coords in self._outline_coords.items():
                centre = np.nanmean(coords, axis=1)[:, None, :]
                text = ax.text(0, 0, b.name, fontsize=8, ha="center", va="center", zorder=9,
                               color="black",
                               bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none",
                                     "alpha": 0.7})
                self.names[b] = text
                self._moving.append(_Moving(text, centre, "text"))

        # Limits and aspect.
        pts = np.concatenate(self._extent) if self._extent else np.zeros((1, 2))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = 0.05 * max(float(np.max(hi - lo)), 1e-9) + s
        top = pad + top_margin * max(float(hi[1] - lo[1]), 1e-9)
        self.limits = (lo[0] - pad, hi[0] + pad, lo[1] - pad, hi[1] + top)
        ax.set_xlim(self.limits[0], self.limits[1])
        ax.set_ylim(self.limits[2], self.limits[3])
        ax.set_aspect("equal", adjustable="box")

    def _ground_pivot(self, p, s) -> None:
        from matplotlib.lines import Line2D
        from matplotlib.patches import Polygon

        p = np.asarray(p, float)
        tri = Polygon([p, p + (-0.9 * s, -1.4 * s), p + (0.9 * s, -1.4 * s)], closed=True,
                      facecolor="#dddddd", edgecolor=GROUND_COLOR, linewidth=1.2, zorder=1.5)
        base_y = p[1] - 1.4 * s
        xs = np.linspace(p[0] - 1.3 * s, p[0] + 1.3 * s, 6)
        hatch = [np.array([[p[0] - 1.5 * s, base_y], [p[0] + 1.5 * s, base_y]])]
        hatch += [np.array([[x, base_y], [x - 0.5 * s, base_y - 0.6 * s]]) for x in xs]
        h = _nan_join(hatch)
        line = Line2D(h[:, 0], h[:, 1], color=GROUND_COLOR, linewidth=1.2, zorder=1.5)
        self.ax.add_patch(tri)
        self.ax.add_line(line)
        self.ground += [tri, line]
        self._extent.append(h)

    def _rail(self, j, s, show_ground) -> None:
        b1, b2 = j.bodies[:2]
        p1, p2 = j._p[0:2], j._p[2:4]
        u = j._p[4:6] / np.linalg.norm(j._p[4:6])
        n = np.array([-u[1], u[0]])
        # Travel of body 2's point along the axis, in body-1 coordinates, over all states.
        g2 = self._coords([(b2, p2)], self._travel)[:, 0, :]
        X1 = self._travel[b1]
        c, si = np.cos(X1[:, 2]), np.sin(X1[:, 2])
        d = g2 - X1[:, :2]
        local = np.stack([c * d[:, 0] + si * d[:, 1], -si * d[:, 0] + c * d[:, 1]], axis=1)
        t = (local - p1) @ u
        t = t[np.isfinite(t)]
        lo = (float(t.min()) if t.size else 0.0) - 2.5 * s
        hi = (float(t.max()) if t.size else 0.0) + 2.5 * s
        axis_line = np.array([p1 + lo * u, p1 + hi * u])
        prismatic = isinstance(j, Prismatic)
        if b1.is_ground:
            style = {"color": GROUND_COLOR, "linewidth": 1.0, "linestyle": "-.", "zorder": 1.5}
        else:
            style = {"color": self._colors[b1], "linewidth": 7.0, "alpha": 0.35,
                     "solid_capstyle": "round", "zorder": 2.5}
        self.rails[j], _ = self._add_line([(b1, axis_line)], **style)
        if b1.is_ground and show_ground:
            from matplotlib.lines import Line2D

            # A guide under the block (or under the slot's pin) with hatching below it.
            off = (0.75 if prismatic else 0.5) * s
            base = p1 - off * n
            steps = np.arange(lo, hi + 1e-12, 0.8 * s)
            pieces = [np.array([base + lo * u, base + hi * u])]
            pieces += [np.array([base + k * u, base + k * u - 0.5 * s * (n + u)]) for k in steps]
            h = _nan_join(pieces)
            line = Line2D(h[:, 0], h[:, 1], color=GROUND_COLOR, linewidth=1.2, zorder=1.5)
            self.ax.add_line(line)
            self.ground.append(line)
            self._extent.append(h)

    def _rack(self, j, s) -> None:
        rack, pinion = j.bodies
        rp, pp, u = j._p[0:2], j._p[2:4], j._p[4:6] / np.linalg.norm(j._p[4:6])
        r = float(j._p[6])
        n = np.array([-u[1], u[0]])
        # Span of the pinion centre along the rack, in rack coordinates, over all states.
        gp = self._coords([(pinion, pp)], self._travel)[:, 0, :]
        X = self._travel[rack]
        c, si = np.cos(X[:, 2]), np.sin(X[:, 2])
        d = gp - X[:, :2]
        local = np.stack([c * d[:, 0] + si * d[:, 1], -si * d[:, 0] + c * d[:, 1]], axis=1)
        t = (local - rp) @ u
        side = np.sign(np.nanmean((local - rp) @ n)) or 1.0
        pitch = np.pi * r / 6  # a 12-tooth pinion
        lo = float(np.nanmin(t)) - 1.5 * r
        hi = float(np.nanmax(t)) + 1.5 * r
        ks = np.arange(np.floor(lo / pitch), np.ceil(hi / pitch) + 1)
        hgt = 0.25 * pitch * side
        pts = []
        for k in ks:  # trapezoid teeth on the pitch line, pointing to the pinion
            x0 = k * pitch
            pts += [rp + (x0 - 0.5 * pitch) * u, rp + (x0 - 0.3 * pitch) * u + hgt * n,
                    rp + (x0 - 0.0 * pitch) * u + hgt * n, rp + (x0 + 0.2 * pitch) * u]
        teeth = np.array(pts)
        back = np.array([teeth[-1] - 0.8 * s * side * n, teeth[0] - 0.8 * s * side * n,
                         teeth[0]])
        self.racks[j], _ = self._add_line([(rack, np.concatenate([teeth, back]))],
                                          color=self._colors[rack], linewidth=2.0, zorder=3)

    def _driver(self, j: DriverJoint, s: float) -> None:
        from matplotlib.lines import Line2D

        mech = self.mechanism
        rho = 1.8 * s
        head = 0.6 * s
        if isinstance(j, Driver) and j.coordinate == "angle" or isinstance(j, AngleDriver):
            if isinstance(j, AngleDriver):
                anchor = self._coords([_two_point(j.joint)[0]])[:, 0, :]
            else:
                anchor = self._coords([_pivot_of(j.bodies[0], mech.joints)])[:, 0, :]
            template = _arc_arrow(rho, head)
            angle = np.zeros(len(anchor))
        elif isinstance(j, Driver):
            anchor = self._coords([(j.bodies[0], np.zeros(2))])[:, 0, :]
            template = _double_arrow(rho, head)
            angle = np.full(len(anchor), 0.0 if j.coordinate == "x" else np.pi / 2)
        elif isinstance(j, SlideDriver):
            (b1, p1), (b2, p2) = _two_point(j.joint)
            anchor = self._coords([(b2, p2)])[:, 0, :] + 0.0
            u = j.joint._p[4:6]
            angle = self._poses[b1][:, 2] + np.arctan2(u[1], u[0])
            template = _double_arrow(rho, head) + np.array([0.0, 1.6 * s])
        elif isinstance(j, DistanceDriver):
            (b1, p1), (b2, p2) = _two_point(j)
            ends = self._coords([(b1, p1), (b2, p2)])
            anchor = ends.mean(axis=1)
            d = ends[:, 1] - ends[:, 0]
            angle = np.arctan2(d[:, 1], d[:, 0])
            template = _double_arrow(rho, head) + np.array([0.0, 1.2 * s])
        else:  # a driver kind this module does not know: mark where it acts
            parts = _anchor_parts(j, mech.joints)
            if not parts:
                return
            anchor = self._coords(parts[:1])[:, 0, :]
            template = circle(rho, n=24)
            angle = np.zeros(len(anchor))
        coords = _transform(np.column_stack([anchor, angle]), template)
        line = Line2D([], [], color=DRIVER_COLOR, linewidth=2.0, zorder=7)
        self.ax.add_line(line)
        self._register(line, coords, "line")
        label = j.name or j.label
        text = self.ax.text(0, 0, label, color=DRIVER_COLOR, fontsize=9, fontweight="bold",
                            ha="right", va="bottom", zorder=9,
                            bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                  "alpha": 0.7})
        where = anchor + np.array([-0.8 * rho, 0.8 * rho])  # up and to the left
        self._moving.append(_Moving(text, where[:, None, :], "text"))
        self.drivers[j] = (line, text)

    def _highlight(self, result, highlight, tol: float) -> None:
        from matplotlib.lines import Line2D

        chosen, residuals = _failed_joints(self.mechanism, result, highlight, tol)
        ax = self.ax
        ax.apply_aspect()
        scale = 72.0 / ax.figure.dpi
        xmid = 0.5 * sum(ax.get_xlim())
        boxes: list[tuple[float, float, float, float]] = []  # label boxes, in points
        for j in chosen:
            parts = _anchor_parts(j, self.mechanism.joints)
            if not parts:  # a joint with no place on the drawing: label it at the origin
                parts = [(self.mechanism.ground, np.zeros(2))]
            coords = self._coords(parts)
            line = Line2D([], [], **_HIGHLIGHT_LINE)
            ax.add_line(line)
            self._moving.append(_Moving(line, coords, "line"))
            anchor = coords[self.frame, 0]
            text = _note_text(j, residuals)
            # Beside the joint, away from the middle of the plot, clear of earlier labels.
            right = anchor[0] <= xmid
            dx, dy = _note_offset(ax.transData.transform(anchor) * scale, right, text, boxes)
            note = ax.annotate(text, xy=anchor, xytext=(dx, dy), textcoords="offset points",
                               ha="left" if right else "right", **_NOTE_STYLE)
            self.highlights[j] = (line, note)
            if j in self.drivers:  # the red label names it
                self.drivers[j][1].set_visible(False)


def _rgb(color) -> tuple:
    from matplotlib.colors import to_rgb

    return to_rgb(color)


def _centre_on(body: Body, carrier: Body, joints) -> np.ndarray:
    """A gear's centre: its point of a revolute to the carrier, else its origin."""
    for j in joints:
        if isinstance(j, Revolute) and set(map(id, j.bodies)) == {id(body), id(carrier)}:
            return _two_point(j)[0 if j.bodies[0] is body else 1][1]
    for j in joints:
        if isinstance(j, Revolute) and any(b is body for b in j.bodies):
            return _two_point(j)[0 if j.bodies[0] is body else 1][1]
    return np.zeros(2)


def _pivot_of(body: Body, joints):
    """Where a driven angle is marked: the body's pin to ground, else any pin, else origin."""
    fallback = None
    for j in joints:
        if isinstance(j, Revolute) and any(b is body for b in j.bodies):
            first, second = _two_point(j)
            mine, other = (first, second) if first[0] is body else (second, first)
            if other[0].is_ground:
                return other
            fallback = fallback or mine
    return fallback or (body, np.zeros(2))


def _ground_points(j: Joint) -> list:
    """Ground-side point of a joint that pins or welds a body to ground (a hatched pivot)."""
    if isinstance(j, (Revolute, Fixed, Distance)) and not isinstance(j, DriverJoint):
        (b1, p1), (b2, p2) = _two_point(j)
        if b1.is_ground and not b2.is_ground:
            return [p1]
        if b2.is_ground and not b1.is_ground:
            return [p2]
    return []


def _anchor_parts(j: Joint, joints):
    """Body points that locate a joint on the drawing (its two points, a gear's centres...)."""
    parts = _two_point(j)
    if parts:
        return parts
    if isinstance(j, Gear):
        b1, b2, carrier = j.bodies
        return [(b1, _centre_on(b1, carrier, joints)), (b2, _centre_on(b2, carrier, joints))]
    if isinstance(j, Driver):
        if j.coordinate == "angle":
            return [_pivot_of(j.bodies[0], joints)]
        return [(j.bodies[0], np.zeros(2))]
    if isinstance(j, (AngleDriver, SlideDriver)):
        return _two_point(j.joint)
    moving = [b for b in j.bodies if not b.is_ground] or list(j.bodies)
    if not moving and isinstance(getattr(j, "joint", None), Joint):  # e.g. CoordinateDriver
        return _anchor_parts(j.joint, joints)
    return [(b, np.zeros(2)) for b in moving]


# -- draw --------------------------------------------------------------------------------------
def draw(mech, ax=None, *, state=None, motion=None, trace=(), shapes=None, result=None,
         highlight=(), tol: float | None = None, names: bool = False, ground: bool = True,
         drivers: bool = True, frames: bool = False, joint_axes: bool = True, view=None):
    """Draw a mechanism at its current pose (or at ``state``).

    A spatial mechanism (``Mechanism(dim=3)``) is drawn in a 3D Axes (mplot3d) with equal
    axis scaling; see :mod:`mechsolve.plot.spatial` for what its symbols are.

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism.
    ax : matplotlib Axes, optional
        Where to draw (default: the current Axes of pyplot for a planar mechanism, a 3D Axes
        on a new pyplot figure for a spatial one). A spatial mechanism needs a 3D Axes
        (``fig.add_subplot(projection="3d")``), a planar one a 2D Axes.
    state : array_like, optional
        A state vector to draw instead of the mechanism's current one (the mechanism is not
        changed), e.g. ``motion.states[i]``.
    motion : Motion, optional
        With ``trace``: the whole path of each traced point is drawn (from ``motion.point``).
    trace : sequence of (Body, point)
        Body points (body coordinates) to mark; they also become vertices of their body.
    shapes : dict, optional
        ``Body -> points`` (body coordinates) or :class:`Shape`, overriding :func:`set_shape`
        for this drawing.
    result : SolveResult, optional
        A failed solve's result (``err.result``, ``mech.last_result``): joints whose residual
        exceeds ``tol`` are drawn in red and labelled with their residuals, at the pose the
        residuals were measured at (``result.state``) unless ``state`` is given.
    highlight : sequence of Joint
        Joints to draw in red as well (labelled with their names).
    tol : float, optional
        Residual above which a joint counts as not satisfied (default: the tolerance of the
        solve, ``result.tol``, else 1e-10, the solver's default).
    names : bool
        Label the bodies with their names.
    ground, drivers : bool
        Draw the ground symbols and the driver arrows (default True).
    frames : bool
        Draw every body's frame as a small triad of its axes (x red, y green, z blue).
    joint_axes : bool
        Spatial only: draw revolute axes (a universal joint's two pins) as short segments.
    view : (float, float), optional
        Spatial only: the camera's elevation and azimuth in degrees (``ax.view_init``).

    Returns
    -------
    matplotlib Axes
        The artists are kept in a :class:`Drawing` (:class:`Drawing3D` for a spatial
        mechanism), returned by ``get_drawing(ax)``.

    Raises
    ------
    ValueError
        If ``ax`` is a 2D Axes for a spatial mechanism (or a 3D Axes for a planar one).

    Examples
    --------
    >>> import mechsolve as ms
    >>> from matplotlib.figure import Figure
    >>> model = ms.models_spatial.rssr()
    >>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(projection="3d"))
    >>> rocker = ms.plot.get_drawing(ax).outline(model.output)  # pivot and rod end, global
    >>> rocker.shape
    (2, 3)
    """
    dim = _check_mechanism(mech)
    if dim == 2:
        if view is not None:
            raise ValueError("view (elevation, azimuth) is for spatial mechanisms; a planar "
                             "one is drawn in the plane")
        _check_2d_axes(ax)
    trace = _check_trace(mech, trace)
    paths = None
    if motion is not None:
        motion = _check_motion(mech, motion)
        paths = [motion.point(b, p) for b, p in trace]
    if tol is None:
        tol = _get(result, "tol", None) if result is not None else None
        tol = 1e-10 if tol is None else tol
    tol = float(tol)
    if not tol >= 0:
        raise ValueError(f"tol must be non-negative, got {tol}")
    if state is None and result is not None and not _get(result, "success", True):
        state = _get(result, "state", None)  # draw the pose the residuals belong to
    states = None if state is None else np.asarray(state, dtype=float)[None, :]
    shapes = _check_shapes(mech, shapes)
    travel = None if motion is None else motion.states
    if dim == 3:
        from . import spatial

        return spatial.draw(mech, ax, states=states, trace=trace, trace_paths=paths,
                            travel=travel, shapes=shapes, result=result, highlight=highlight,
                            tol=tol, names=names, ground=ground, drivers=drivers,
                            frames=frames, joint_axes=joint_axes, view=view)
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    Drawing(mech, ax, states=states, trace=trace, trace_paths=paths, grow_traces=False,
            shapes=shapes, names=names, show_ground=ground, show_drivers=drivers,
            result=result, highlight=highlight, tol=tol, travel=travel, body_frames=frames)
    return ax


def get_drawing(ax) -> Drawing | None:
    """The last :class:`Drawing` made on ``ax`` by :func:`draw` or :func:`animate`."""
    return _DRAWINGS.get(ax)


# -- animate -----------------------------------------------------------------------------------
def _frame_indices(n: int, frames, step) -> np.ndarray:
    idx = np.arange(n)
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
            raise ValueError(f"step must be a positive integer, got {step!r}")
        idx = idx[::step]
    if frames is not None:
        if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) or frames < 1:
            raise ValueError(f"frames must be a positive integer, got {frames!r}")
        if frames < len(idx):
            pick = np.unique(np.linspace(0, len(idx) - 1, frames).round().astype(int))
            idx = idx[pick]
    return idx


_VALUE_STYLE = {"ha": "left", "va": "top", "fontsize": 9, "zorder": 10,
                "bbox": {"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.7",
                         "alpha": 0.85}}


def _value_texts(motion) -> list[str]:
    """``"motor = 30.0°"`` for every pose of a motion (the corner label of an animation).

    A motion that carries its own ``labels`` (a :class:`~mechsolve.kinematics.FreeMotion`)
    shows those.
    """
    labels = getattr(motion, "labels", None)
    if labels is not None:
        return list(labels)
    angle = _driver_unit(motion.driver) == "angle"
    label = _driver_name(motion.driver)
    return [f"{label} = {np.degrees(v):.1f}\N{DEGREE SIGN}" if angle else f"{label} = {v:.4g}"
            for v in np.asarray(motion.values, dtype=float)]


_ANIMATION_CLASS = None


def _animation_class():
    """``MechanismAnimation``, made on first use (matplotlib is imported lazily)."""
    global _ANIMATION_CLASS
    if _ANIMATION_CLASS is not None:
        return _ANIMATION_CLASS
    from matplotlib import animation

    class GifWriter(animation.PillowWriter):
        """Pillow's GIF writer with one palette for all frames.

        Pillow otherwise quantizes every frame on its own, which takes most of the time of a
        GIF; the frames of a mechanism share their colours, so one palette (from a few frames)
        serves them all.
        """

        def finish(self):
            frames = getattr(self, "_frames", None)  # PillowWriter's list of frames
            if not frames or any(getattr(f, "mode", None) != "RGB" for f in frames):
                return super().finish()
            from PIL import Image

            sample = frames[::max(1, len(frames) // 6)][:8]
            w, h = sample[0].size
            montage = Image.new("RGB", (w, h * len(sample)))
            for k, f in enumerate(sample):
                montage.paste(f, (0, h * k))
            palette = montage.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
            frames = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
            frames[0].save(self.outfile, save_all=True, append_images=frames[1:],
                           duration=int(round(1000 / self.fps)), loop=0)

    class MechanismAnimation(animation.FuncAnimation):
        """A ``FuncAnimation`` of a mechanism sweep (made by :func:`mechsolve.plot.animate`).

        ``drawing`` is the :class:`Drawing` it moves, ``indices`` the motion pose of each
        frame. :meth:`save` picks the writer from the file name: Pillow for ``.gif`` (and
        ``.webp``, ``.apng``), ffmpeg for ``.mp4`` and other videos (an error says so when
        ffmpeg is missing), ``html`` for ``.html``.
        """

        def save(self, filename, writer=None, fps=None, dpi=None, *args, **kwargs):
            suffix = Path(str(filename)).suffix.lower()
            wants_ffmpeg = (isinstance(writer, str) and writer.startswith("ffmpeg")) or \
                (writer is None and suffix in _FFMPEG_SUFFIXES)
            if wants_ffmpeg and not animation.writers.is_available("ffmpeg"):
                raise RuntimeError(
                    f"cannot write {filename}: {suffix or 'this format'} video needs ffmpeg, "
                    "which was not found on the PATH. Install ffmpeg, or write a GIF instead "
                    "(a .gif file name), which only needs Pillow.")
            if writer is None:
                if suffix == ".gif":
                    writer = GifWriter(fps=fps or 1000.0 / self._interval)
                    fps = None
                elif suffix in _PILLOW_SUFFIXES:
                    writer = "pillow"
                elif suffix in _FFMPEG_SUFFIXES:
                    writer = "ffmpeg"
                elif suffix in (".html", ".htm"):
                    writer = "html"
                else:
                    raise ValueError(f"cannot tell the animation format of {filename!r}: use "
                                     "a .gif, .webp, .mp4 or .html file name, or pass writer=")
            return super().save(filename, writer, fps, dpi, *args, **kwargs)

        def _post_draw(self, framedata, blit):
            # While saving, the writer renders each frame itself (savefig); the extra canvas
            # draw that FuncAnimation makes after every frame would only double the time.
            if self._fig.canvas.is_saving():
                return
            super()._post_draw(framedata, blit)

    MechanismAnimation.__module__ = __name__
    GifWriter.__module__ = __name__
    _ANIMATION_CLASS = MechanismAnimation
    return MechanismAnimation


def __getattr__(name):
    if name == "MechanismAnimation":
        return _animation_class()
    if name == "Drawing3D":
        from .spatial import Drawing3D

        return Drawing3D
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def animate(mech, motion, trace=(), *, frames: int | None = 120, step: int | None = None,
            interval: float = 40, ax=None, figsize=None, shapes=None, names: bool = False,
            axis: bool | None = None, show_value: bool = True, blit: bool | None = None,
            repeat: bool = True, body_frames: bool = False, joint_axes: bool = True,
            view=None):
    """Animate a sweep: a matplotlib ``FuncAnimation`` with growing point traces.

    A spatial mechanism is animated in a 3D Axes whose limits cover the whole motion (the
    view does not jump from frame to frame).

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism.
    motion : Motion
        Its sweep (``mech.sweep(driver, values)`` or ``mech.sweep_time(times)``).
    trace : sequence of (Body, point)
        Body points whose paths (coupler curves) are drawn as they grow.
    frames : int or None
        At most this many frames (default 120), evenly spread over the poses (the first and
        last kept); ``None`` for a frame at every pose.
    step : int, optional
        Use every ``step``-th pose (applied before ``frames``). Traces keep the full
        resolution of the motion either way.
    interval : float
        Milliseconds per frame (40 = 25 frames per second, also the saved frame rate).
    ax : matplotlib Axes, optional
        Where to draw (default: a new pyplot figure shaped like the mechanism's extent, with a
        3D Axes for a spatial mechanism, which needs one).
    figsize : (float, float), optional
        Size of the new figure in inches (default: 6.4 wide).
    shapes, names, joint_axes, view :
        As for :func:`draw`.
    axis : bool, optional
        Keep the axes' ticks and frame. Off by default for a planar mechanism (they double
        the rendering time); on for a spatial one, whose panes and grid show the depth.
    show_value : bool
        Show the driver value in the top-left corner.
    blit : bool, optional
        Passed to ``FuncAnimation`` (default True for a planar mechanism, False for a spatial
        one, whose view can be turned with the mouse).
    repeat : bool
        Passed to ``FuncAnimation``.
    body_frames : bool
        Draw the body frames as triads (the ``frames=True`` of :func:`draw`; here ``frames``
        counts the animation frames).

    Returns
    -------
    MechanismAnimation
        A ``FuncAnimation``; ``.save("x.gif")`` writes a GIF with Pillow, ``.save("x.mp4")``
        needs ffmpeg; ``.drawing`` holds the artists, ``.indices`` the pose of each frame.
        Pass ``progress_callback=`` to ``save`` to follow a long render.

    Raises
    ------
    ValueError
        If ``ax`` is a 2D Axes for a spatial mechanism (or a 3D Axes for a planar one).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> motion = model.mechanism.sweep(model.driver, model.values)
    >>> anim = ms.plot.animate(model.mechanism, motion, trace=model.trace, frames=10)
    >>> len(anim.indices), int(anim.indices[-1])  # 10 frames spread over the 361 poses
    (10, 360)
    >>> import matplotlib.pyplot as plt; plt.close(anim.drawing.ax.figure)
    """
    dim = _check_mechanism(mech)
    if dim == 2:
        if view is not None:
            raise ValueError("view (elevation, azimuth) is for spatial mechanisms; a planar "
                             "one is drawn in the plane")
        _check_2d_axes(ax)
    motion = _check_motion(mech, motion)
    trace = _check_trace(mech, trace)
    interval = float(interval)
    if not interval > 0:
        raise ValueError(f"interval must be positive (milliseconds), got {interval}")
    idx = _frame_indices(len(motion), frames, step)
    shapes = _check_shapes(mech, shapes)
    if dim == 3:
        from . import spatial

        return spatial.animate(mech, motion, trace, idx, interval=interval, ax=ax,
                               figsize=figsize, shapes=shapes, names=names,
                               axis=True if axis is None else bool(axis),
                               show_value=show_value, blit=bool(blit), repeat=repeat,
                               body_frames=body_frames, joint_axes=joint_axes, view=view)
    axis = bool(axis)
    blit = True if blit is None else blit
    states = np.asarray(motion.states, dtype=float)
    new_figure = ax is None
    if new_figure:
        import matplotlib.pyplot as plt

        ax = plt.figure(figsize=figsize or (6.4, 4.8)).add_subplot()
    fig = ax.figure
    drawing = Drawing(mech, ax, states=states, trace=trace, grow_traces=True,
                      shapes=shapes, names=names,
                      top_margin=0.08 if show_value else 0.0, body_frames=body_frames)
    if axis:
        ax.grid(True, alpha=0.25)
    else:
        ax.set_axis_off()
    if new_figure and figsize is None:
        x0, x1, y0, y1 = drawing.limits
        aspect = float(np.clip((y1 - y0) / (x1 - x0), 0.3, 1.5))
        fig.set_size_inches(6.4, round(6.4 * aspect + (0.6 if axis else 0.0), 2))
    if new_figure:
        if axis:
            fig.tight_layout()
        else:
            fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.99)
    value_text = None
    texts: list[str] = []
    if show_value:
        value_text = ax.text(0.02, 0.97, "", transform=ax.transAxes, **_VALUE_STYLE)
        texts = _value_texts(motion)

    return _make_animation(fig, drawing, motion, idx, value_text, texts, interval=interval,
                           blit=blit, repeat=repeat)


def _make_animation(fig, drawing, motion, idx, value_text, texts, *, interval, blit, repeat):
    """The animation of a drawing (2D or 3D) over the states ``idx``, with the corner value."""

    def update(k):
        artists = drawing.set_frame(idx[k])
        if value_text is not None:
            value_text.set_text(texts[idx[k]])
            artists = artists + [value_text]
        return artists

    def init():
        return update(0)

    cls = _animation_class()
    anim = cls(fig, update, frames=len(idx), init_func=init, interval=interval, blit=blit,
               repeat=repeat, cache_frame_data=False)
    anim.drawing = drawing
    anim.indices = idx
    anim.motion = motion
    return anim


# -- free motions ------------------------------------------------------------------------------
def _extent_points(mech) -> list:
    """``[(body, local point), ...]``: where the joints attach and the shapes' vertices."""
    if mech.dim == 3:
        from .spatial import _attachments

        points = [pt for j in mech.joints for pt in _attachments(j)]
    else:
        points = [pt for j in mech.joints for pt in _two_point(j)]
    for body in mech.bodies:
        shape = get_shape(body)
        if shape is not None:
            points.extend((body, p) for p in shape.points)
    return points


def animate_free_motions(mech, *, amplitude=None, frames: int = 48, trace=(),
                         interval: float = 40, tol: float = 1e-10, **options):
    """Animate the free motions of an under-driven mechanism, one after another.

    For every vector ``b_k`` of the free-motion basis at the current pose
    (``mech.free_motions()``, ``k`` of them) the mechanism is moved along that motion and back,
    ``s = A sin(2 pi i / frames)``: out to ``+A``, back through the start pose to ``-A`` and
    back again, then the next motion from the same start pose; the corner label reads
    ``"free motion 1 of k: s = ..."``. Every frame is a pose that satisfies all constraints
    and drivers (followed by continuation, see
    :func:`mechsolve.kinematics.wiggle_free_motions`), not a linear extrapolation. Where a
    limit stops a motion short of ``A`` the animation waits at the limit pose, labelled
    ``(limit)``, until ``s`` comes back. The mechanism's state is not changed. Planar and
    spatial mechanisms are drawn as by :func:`animate`.

    Parameters
    ----------
    mech : Mechanism
        An assembled planar or spatial mechanism with fewer drivers than degrees of freedom.
    amplitude : float or sequence of float, optional
        ``A`` in increment units (the basis mixes lengths and radians), for all motions or
        one per motion. Default (per motion): the moving joint points travel at most 8 % of
        the diagonal of the mechanism's bounding box, and no body turns by more than 0.2 rad
        (:func:`mechsolve.kinematics.free_motion_amplitude`).
    frames : int
        Frames per free motion (the animation has ``k * frames``).
    trace : sequence of (Body, point)
        Body points whose paths are drawn as they grow.
    interval : float
        Milliseconds per frame.
    tol : float
        Residual tolerance of every pose.
    **options
        Passed to :func:`animate` (``ax``, ``figsize``, ``shapes``, ``names``, ``axis``,
        ``show_value``, ``blit``, ``repeat``, ``body_frames``, ``joint_axes``, ``view``).

    Returns
    -------
    MechanismAnimation
        As :func:`animate`; ``.motion`` is the :class:`~mechsolve.kinematics.FreeMotion`
        shown (its ``motion_index``, ``reached`` and ``limited`` tell which motion each frame
        follows and where limits stopped them).

    Raises
    ------
    ValueError
        If the mechanism is fully driven (0 free motions).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)                     # the crank is free: one free motion
    >>> anim = ms.plot.animate_free_motions(mech, frames=12)
    >>> len(anim.indices), anim.motion.labels[3]
    (12, 'free motion 1 of 1: s = +0.331')
    >>> import matplotlib.pyplot as plt; plt.close(anim.drawing.ax.figure)
    """
    from ..kinematics import wiggle_free_motions

    _check_mechanism(mech)
    if "step" in options:
        raise TypeError("animate_free_motions takes frames (per free motion), not step")
    motion = wiggle_free_motions(mech, amplitude=amplitude, frames=frames,
                                 points=_extent_points(mech), tol=tol)
    return animate(mech, motion, trace, frames=None, interval=interval, **options)


# -- plot_motion -------------------------------------------------------------------------------
def plot_motion(motion, body, coordinate: str | None = None, *, point=None, ax=None,
                degrees: bool = True, label: str | None = None, **line_kwargs):
    """Plot a body coordinate, or a body point's path, against the driver value.

    Parameters
    ----------
    motion : Motion
        A sweep (``mech.sweep(driver, values)``).
    body : Body
        The body.
    coordinate : {"x", "y", "angle"} or {"x", "y", "z"}, optional
        What to plot: a coordinate of ``point`` (or of the body's origin), or the body's angle
        (planar). Default: ``"angle"`` without a point; with a point, every coordinate of it.
    point : array_like, optional
        A point in body coordinates; its global coordinates come from ``motion.point``.
    ax : matplotlib Axes, optional
    degrees : bool
        Show angles (the body angle, and an angle driver's values) in degrees.
    label : str, optional
        Legend label (default: ``body.name`` and the coordinate).
    **line_kwargs
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib Axes
        One line per plotted coordinate; its y data equal ``motion.point(body, point)[:, c]``
        (or the body's angle).

    Examples
    --------
    >>> import mechsolve as ms
    >>> from matplotlib.figure import Figure
    >>> model = ms.models.slider_crank()
    >>> motion = model.mechanism.sweep(model.driver, model.values)
    >>> ax = ms.plot.plot_motion(motion, model.output, "x", ax=Figure().add_subplot())
    >>> bool(np.allclose(ax.lines[0].get_ydata(), motion.point(model.output)[:, 0]))
    True
    """
    from ..analysis import Motion

    if not isinstance(motion, Motion):
        raise TypeError(f"motion must be a mechsolve Motion, got {type(motion).__name__}")
    body = _check_body(body)
    dim = motion.mechanism.dim
    names = ("x", "y") if dim == 2 else ("x", "y", "z")
    if coordinate is None:
        coords = list(names) if point is not None else ["angle"]
    elif isinstance(coordinate, str):
        coords = [coordinate]
    else:
        coords = list(coordinate)
    for c in coords:
        if c == "angle" and dim == 3:
            raise NotImplementedError("a spatial body has no single angle; plot its points' "
                                      "x, y, z, or its orientation yourself from motion.pose")
        if c not in (*names, "angle"):
            raise ValueError(f"coordinate must be one of {(*names, 'angle')}, got {c!r}")
        if c == "angle" and point is not None:
            raise ValueError("coordinate='angle' is the body's angle; leave point= out")
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    v = np.asarray(motion.values, dtype=float)
    driver = motion.driver
    angle_driver = _driver_unit(driver) == "angle"
    xv = np.degrees(v) if angle_driver and degrees else v
    dname = "time" if driver is None else _driver_name(driver)
    ax.set_xlabel(f"{dname} ({'deg' if degrees else 'rad'})" if angle_driver else dname)
    path = motion.point(body, point) if point is not None or "angle" not in coords else None
    ylabels = []
    for c in coords:
        if c == "angle":
            y = motion.pose(body)[:, 2]
            y = np.degrees(y) if degrees else y
            ylabels.append(f"angle ({'deg' if degrees else 'rad'})")
        else:
            y = path[:, names.index(c)]
            ylabels.append(c)
        where = f"{body.name}" if point is None else \
            f"{body.name} ({', '.join(f'{q:g}' for q in np.ravel(point))})"
        lab = label if label is not None and len(coords) == 1 else \
            (f"{label} {c}" if label is not None else f"{where} {c}")
        ax.plot(xv, y, label=lab, **line_kwargs)
    ax.set_ylabel(", ".join(dict.fromkeys(ylabels)))
    ax.grid(True, alpha=0.3)
    if len(ax.lines) > 1:
        ax.legend(fontsize=8)
    return ax
