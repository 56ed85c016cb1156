"""The drawing of a planar mechanism (:class:`Drawing`) in a 2D matplotlib Axes.

Every body as the polyline or polygon through its joint points (or its shape), pins as small
circles, ground pivots hatched, prismatic rails and slots as lines along their axes, slider
blocks, gears as pitch circles, racks with teeth, drivers as arrows carrying their names; what
the planar and spatial drawings share is :class:`~mechsolve.plot._base._DrawingBase`.
matplotlib is imported on first use (``import mechsolve`` imports this module).
"""

from __future__ import annotations

import numpy as np

from ..body import Body
from ..joints.base import DriverJoint, Joint
from ._base import (
    _NOTE_STYLE,
    DRIVER_COLOR,
    GROUND_COLOR,
    _check_mechanism,
    _check_trace,
    _DrawingBase,
    _grown,
    _is_3d,
    _named_points,
    _nan_join,
    _unique,
    _user_limits,
)
from ._planar_geometry import _arc_arrow, _double_arrow, _outline, _poses, _transform
from .shapes import Shape, _shape_of, circle


def _check_planar(mech) -> None:
    if _check_mechanism(mech) != 2:
        raise TypeError("Drawing draws planar mechanisms; a spatial one (Mechanism(dim=3)) is "
                        "drawn by mechsolve.plot.Drawing3D, which draw and animate pick for it")


def _check_planar_options(ax, view) -> None:
    """``draw`` and ``animate`` of a planar mechanism: a 2D Axes (or none) and no view."""
    if view is not None:
        raise ValueError("view (elevation, azimuth) is for spatial mechanisms; a planar "
                         "one is drawn in the plane")
    if ax is not None and _is_3d(ax):
        raise ValueError("ax is a 3D Axes, but a planar mechanism is drawn in a 2D Axes "
                         "(fig.add_subplot() without projection='3d')")


def _points_only(g) -> bool:
    """Whether a joint's geometry gives where it attaches and nothing else to draw it by (a
    joint class of one's own with ``plot_points``)."""
    marks = (g.pins, g.welds, g.pivots, g.rods, g.axes, g.rails, g.circles, g.racks, g.legs,
             g.housings)
    return bool(g.points) and not any(marks) and g.target is None and g.hinge is None \
        and g.drive is None and g.chain is None


def _rgb(color) -> tuple:
    from matplotlib.colors import to_rgb  # matplotlib on first use: import mechsolve stays light

    return to_rgb(color)


class Drawing(_DrawingBase):
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
    custom : dict
        ``joint -> Line2D``: diamonds at the points of a joint that gives only where it
        attaches (a joint class of one's own, such as a symbolic joint with ``plot_points``:
        see :meth:`~mechsolve.joints.Joint.geometry`), so that it is seen.
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

    dim = 2
    _pose_rows = staticmethod(_poses)
    _to_global = staticmethod(_transform)

    def __init__(self, mech, ax=None, *, states=None, trace=(), trace_paths=None,
                 grow_traces: bool = False, shapes=None, names: bool = False,
                 show_ground: bool = True, show_drivers: bool = True, result=None,
                 highlight=(), tol: float = 1e-10, top_margin: float = 0.0,
                 travel=None, body_frames: bool = False) -> None:
        _check_planar(mech)
        if ax is None:  # a figure of its own, never the last one pyplot made
            import matplotlib.pyplot as plt  # matplotlib on first use

            ax = plt.figure().add_subplot()
        self._prior_limits = _user_limits(ax)
        super().__init__(mech, ax, states, travel, grow_traces)
        self._options = {"trace": trace, "trace_paths": None if grow_traces else trace_paths,
                         "grow_traces": grow_traces, "shapes": shapes, "names": names,
                         "show_ground": show_ground, "show_drivers": show_drivers,
                         "tol": tol, "top_margin": top_margin, "travel": travel,
                         "body_frames": body_frames}
        self.gears: dict = {}
        self.racks: dict = {}
        self.custom: dict = {}
        trace = _check_trace(mech, trace)
        self._build(trace, trace_paths, shapes or {}, names, show_ground, show_drivers,
                    float(top_margin), bool(body_frames))
        self._finish(result, highlight, tol)

    def _build(self, trace, trace_paths, shapes, names, show_ground, show_drivers,
               top_margin, body_frames) -> None:
        """Make the artists (bodies, gears, rails, joints, ground, drivers, traces...), then
        set the limits."""
        self._geometry = geometry = {j: j.geometry() for j in self.mechanism.joints}
        points = self._joint_points(trace)
        gears = self._gear_specs()
        geared = {b for b, *_ in gears} | {r.body for g in geometry.values() for r in g.racks}
        self._symbol_size(self._probe(points, gears, trace_paths))
        self._add_bodies(points, shapes, geared, self._slider_axes())
        self._add_gears(gears)
        for j, g in geometry.items():
            for rack in g.racks:
                self._rack(j, rack)
        for j, g in geometry.items():
            for rail in g.rails:
                self._rail(j, rail, show_ground)
        self._add_joint_marks()
        if show_ground:
            self._add_ground_pivots()
        if show_drivers:
            for j in self.mechanism.drivers:
                self._driver(j)
        self._add_traces(trace, trace_paths)
        self._add_named_points(names)
        if body_frames:  # x (red) and y (green) axes of every body, ground's at the origin
            self._add_triads(2.5 * self.size)
        if names:
            self._add_names()
        self._set_limits(top_margin)

    # -- how a planar drawing draws ------------------------------------------------------------
    @staticmethod
    def _scratch_axes():
        from matplotlib.figure import Figure  # matplotlib on first use

        return Figure().add_subplot()

    def _plot_line(self, points: np.ndarray, **style):
        from matplotlib.lines import Line2D  # matplotlib on first use

        line = Line2D(points[:, 0], points[:, 1], **style)
        self.ax.add_line(line)
        return line

    def _add_poly(self, parts, **style):
        from matplotlib.patches import Polygon  # matplotlib on first use

        coords = self._coords(parts)
        poly = Polygon(coords[0], closed=True, **style)
        self.ax.add_patch(poly)
        self._register(poly, coords, "poly")
        return poly, coords

    def _move(self, artist, kind: str, c: np.ndarray) -> None:
        if kind == "line":
            artist.set_data(c[:, 0], c[:, 1])
        elif kind == "poly":
            artist.set_xy(c)
        else:
            artist.set_position(c[0])

    def _anchor_coords(self, j: Joint) -> np.ndarray:
        parts = j.anchor()
        if not parts:  # a joint with no place on the drawing: label it at the origin
            parts = [(self.mechanism.ground, np.zeros(2))]
        return self._coords(parts)

    def _note_place(self, anchor: np.ndarray) -> tuple[np.ndarray, bool]:
        ax = self.ax
        return ax.transData.transform(anchor), anchor[0] <= 0.5 * sum(ax.get_xlim())

    def _note(self, text: str, coords: np.ndarray, offset: tuple, right: bool):
        return self.ax.annotate(text, xy=coords[self.frame, 0], xytext=offset,
                                textcoords="offset points", ha="left" if right else "right",
                                **_NOTE_STYLE)

    def _in_body(self, body: Body, other: Body, point: np.ndarray) -> np.ndarray:
        """``other``'s ``point`` in ``body``'s coordinates over the travel, ``(M, 2)``."""
        g = self._coords([(other, point)], self._travel)[:, 0, :]
        X = self._travel[body]
        c, si = np.cos(X[:, 2]), np.sin(X[:, 2])
        d = g - X[:, :2]
        return np.stack([c * d[:, 0] + si * d[:, 1], -si * d[:, 0] + c * d[:, 1]], axis=1)

    # -- what is where -------------------------------------------------------------------------
    def _joint_points(self, trace) -> dict:
        """``Body -> [local point, ...]``: where the joints attach, and the traced points."""
        points: dict = {b: [] for b in self.mechanism.bodies}
        for g in self._geometry.values():
            for b, p in g.points:
                if not b.is_ground:
                    points[b].append(p)
        for b, p in trace:
            if not b.is_ground:
                points[b].append(np.asarray(p, float))
        for b in self.mechanism.bodies:  # named points of interest are vertices too
            points[b] += [p for _, p in _named_points(b)]
        return points

    def _gear_specs(self) -> list:
        """``(body, centre, radius, internal ring)`` of every pitch circle: gears about their
        pin to the carrier (else their origin), and the pinions of racks."""
        return [(c.body, c.centre, c.radius, c.ring) for g in self._geometry.values()
                for c in g.circles]

    def _slider_axes(self) -> dict:
        """``body 2 of a prismatic -> its axis direction in body-2 coordinates``."""
        axes: dict = {}
        for g in self._geometry.values():
            for rail in g.rails:
                if rail.block is not None:
                    axes.setdefault(rail.follower[0], rail.block)
        return axes

    def _probe(self, points: dict, gears: list, trace_paths) -> list:
        """Global points over all states whose extent sets the size of the symbols."""
        probe = [self._coords([(b, _unique(p))]).reshape(-1, 2) for b, p in points.items() if p]
        probe += [self._coords([(b, circle(r, c, 8))]).reshape(-1, 2) for b, c, r, _ in gears]
        ground = self.mechanism.ground   # the pivots, and the ground ends of rods
        probe += [self._coords([(ground, p)]).reshape(-1, 2) for g in self._geometry.values()
                  for p in g.pivots + [end[1] for rod in g.rods for end in rod[:2]
                                       if end[0].is_ground]]
        probe += [np.asarray(p, float) for p in (trace_paths or [])]
        return probe

    # -- bodies --------------------------------------------------------------------------------
    def _add_bodies(self, points: dict, shapes: dict, geared: set, slider_axes: dict) -> None:
        """Every moving body: its shape, else the outline through its joint points; a body
        with one point is a block on its slide or a small disc, unless it is a gear or rack."""
        for b in self.mechanism.bodies:
            shape = _shape_of(b, shapes)
            if shape is not None:
                local = shape.points
                art, coords = self._add_shape(b, shape)
            else:
                local, closed = _outline(_unique(points[b]))
                if len(local) == 1 and b in geared:
                    continue  # drawn as its gear or rack
                local, closed = self._lone_point(local, closed, slider_axes.get(b))
                art, coords = self._add_outline(b, local, closed)
            self.bodies[b] = art
            self.local[b] = np.asarray(local, float)
            self._outline_coords[b] = coords

    def _add_shape(self, b: Body, shape: Shape):
        color = self._colors[b]
        if not shape.closed:
            style = {"color": color, "linewidth": 2.5, "zorder": 3}
            style.update(shape.style)
            return self._add_line([(b, shape.points)], **style)
        style = {"facecolor": color, "edgecolor": color, "alpha": 0.35, "linewidth": 2.0,
                 "zorder": 3}
        style.update(shape.style)
        if "color" in shape.style:
            style.pop("facecolor", None)
            style.pop("edgecolor", None)
        return self._add_poly([(b, shape.points)], **style)

    def _lone_point(self, local: np.ndarray, closed: bool, axis) -> tuple[np.ndarray, bool]:
        """The outline of a body with at most one joint point: a slider block along its
        ``axis`` (body coordinates), else a small disc; other outlines as they are."""
        s = self.size
        if len(local) == 1 and axis is not None:
            n = np.array([-axis[1], axis[0]])
            return np.array([local[0] + sx * 1.3 * s * axis + sy * 0.75 * s * n
                             for sx, sy in ((-1, -1), (1, -1), (1, 1), (-1, 1))]), True
        if len(local) <= 1:
            c0 = local[0] if len(local) else np.zeros(2)
            return c0 + circle(0.6 * s, n=16), True
        return local, closed

    def _add_outline(self, b: Body, local: np.ndarray, closed: bool):
        color = self._colors[b]
        if closed:
            return self._add_poly([(b, local)], facecolor=color, alpha=0.45, edgecolor=color,
                                  linewidth=2.0, zorder=3, joinstyle="round")
        return self._add_line([(b, local)], color=color, linewidth=4.0, solid_capstyle="round",
                              zorder=3)

    def _add_gears(self, gears: list) -> None:
        """A pitch circle with a spoke for every gear (an internal ring unfilled), once."""
        seen = set()
        for b, c, r, ring in gears:
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

    def _rack(self, j: Joint, rack_geometry) -> None:
        """The rack's pitch line with teeth towards the pinion, over the pinion's travel."""
        s = self.size
        rack, rp, u, pinion, pp, r = rack_geometry
        u = u / np.linalg.norm(u)
        n = np.array([-u[1], u[0]])
        local = self._in_body(rack, pinion, pp)  # the pinion's centre, in rack coordinates
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

    # -- joints and ground ---------------------------------------------------------------------
    def _rail(self, j, rail, show_ground: bool) -> None:
        """A prismatic's or slot's axis over body 2's travel; on ground, a hatched guide."""
        s = self.size
        b1, p1, u, (b2, p2), block = rail
        u = u / np.linalg.norm(u)
        n = np.array([-u[1], u[0]])
        lo, hi = self._add_rail(j, b1, p1, u, (self._in_body(b1, b2, p2) - p1) @ u)
        if b1.is_ground and show_ground:
            # A guide under the block (or under the slot's pin) with hatching below it.
            off = (0.75 if block is not None else 0.5) * s   # under a block, a slot's pin
            base = p1 - off * n
            steps = np.arange(lo, hi + 1e-12, 0.8 * s)
            pieces = [np.array([base + lo * u, base + hi * u])]
            pieces += [np.array([base + k * u, base + k * u - 0.5 * s * (n + u)]) for k in steps]
            h = _nan_join(pieces)
            self.ground.append(self._plot_line(h, color=GROUND_COLOR, linewidth=1.2,
                                               zorder=1.5))
            self._extent.append(h)

    def _add_joint_marks(self) -> None:
        """Rods (dashed, or orange when driven) and the pin and weld markers."""
        pin_parts, weld_parts = [], []
        for j, g in self._geometry.items():
            for rod in g.rods:
                style = {"color": DRIVER_COLOR if rod.driven else GROUND_COLOR, "linewidth": 2.0,
                         "zorder": 3.5}
                if not rod.driven:
                    style["linestyle"] = (0, (4, 2))
                self.rods[j], _ = self._add_line([rod.end1, rod.end2], **style)
            pin_parts += g.pins
            weld_parts += g.welds
            if _points_only(g):
                self.custom[j], _ = self._add_line(
                    list(g.points), linestyle="none", marker="D", markersize=6,
                    markerfacecolor="white", markeredgecolor=GROUND_COLOR, markeredgewidth=1.5,
                    zorder=6)
        self._add_pins(pin_parts, weld_parts)

    def _add_ground_pivots(self) -> None:
        """A hatched pivot under every point where a body is pinned or welded to ground."""
        done: list[np.ndarray] = []
        for g in self._geometry.values():
            for p in g.pivots:
                if any(np.max(np.abs(p - q)) < 1e-9 for q in done):
                    continue
                done.append(p)
                self._ground_pivot(p)

    def _ground_pivot(self, p) -> None:
        from matplotlib.patches import Polygon  # matplotlib on first use

        s = self.size
        p = np.asarray(p, float)
        tri = Polygon([p, p + (-0.9 * s, -1.4 * s), p + (0.9 * s, -1.4 * s)], closed=True,
                      facecolor="#dddddd", edgecolor=GROUND_COLOR, linewidth=1.2, zorder=1.5)
        self.ax.add_patch(tri)
        base_y = p[1] - 1.4 * s
        xs = np.linspace(p[0] - 1.3 * s, p[0] + 1.3 * s, 6)
        hatch = [np.array([[p[0] - 1.5 * s, base_y], [p[0] + 1.5 * s, base_y]])]
        hatch += [np.array([[x, base_y], [x - 0.5 * s, base_y - 0.6 * s]]) for x in xs]
        h = _nan_join(hatch)
        line = self._plot_line(h, color=GROUND_COLOR, linewidth=1.2, zorder=1.5)
        self.ground += [tri, line]
        self._extent.append(h)

    def _driver(self, j: DriverJoint) -> None:
        """A driver's orange arrow (an arc about a driven angle, a double arrow along a
        driven length) and its name above and to the left of it."""
        s = self.size
        rho = 1.8 * s
        head = 0.6 * s
        drive = self._geometry[j].drive
        kind = drive.kind if drive is not None else None
        if kind == "angle":   # an arc about the pivot
            anchor = self._coords([drive.at])[:, 0, :]
            template = _arc_arrow(rho, head)
            angle = np.zeros(len(anchor))
        elif kind == "coordinate":   # a double arrow along a global direction
            anchor = self._coords([drive.at])[:, 0, :]
            template = _double_arrow(rho, head)
            angle = np.full(len(anchor), np.arctan2(drive.along[1], drive.along[0]))
        elif kind == "slide":   # beside the slider, along the rail of body 1
            b1, _, u, follower, _ = drive.rail
            anchor = self._coords([follower])[:, 0, :] + 0.0
            angle = self._poses[b1][:, 2] + np.arctan2(u[1], u[0])
            template = _double_arrow(rho, head) + np.array([0.0, 1.6 * s])
        elif kind == "length":   # beside the rod, along it
            ends = self._coords(list(drive.ends))
            anchor = ends.mean(axis=1)
            d = ends[:, 1] - ends[:, 0]
            angle = np.arctan2(d[:, 1], d[:, 0])
            template = _double_arrow(rho, head) + np.array([0.0, 1.2 * s])
        else:  # a driver without an arrow: mark where it acts
            parts = j.anchor()
            if not parts:
                return
            anchor = self._coords(parts[:1])[:, 0, :]
            template = circle(rho, n=24)
            angle = np.zeros(len(anchor))
        coords = _transform(np.column_stack([anchor, angle]), template)
        line = self._line(coords, color=DRIVER_COLOR, linewidth=2.0, zorder=7)
        where = anchor + np.array([-0.8 * rho, 0.8 * rho])  # up and to the left
        self.drivers[j] = (line, self._driver_label(j, where[:, None, :], "right"))

    def _set_limits(self, top_margin: float) -> None:
        """Limits around everything drawn (``top_margin`` of the height more above), equal
        aspect; limits the Axes had before (set by the user, or around what the user drew
        first) are only grown."""
        ax = self.ax
        pts = np.concatenate(self._extent) if self._extent else np.zeros((1, 2))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        pad = 0.05 * max(float(np.max(hi - lo)), 1e-9) + self.size
        top = pad + top_margin * max(float(hi[1] - lo[1]), 1e-9)
        lo, hi = _grown(np.array([lo[0] - pad, lo[1] - pad]),
                        np.array([hi[0] + pad, hi[1] + top]), self._prior_limits)
        self.limits = (float(lo[0]), float(hi[0]), float(lo[1]), float(hi[1]))
        ax.set_xlim(self.limits[0], self.limits[1])
        ax.set_ylim(self.limits[2], self.limits[3])
        ax.set_aspect("equal", adjustable="box")
