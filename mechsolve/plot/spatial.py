"""The drawing of a spatial mechanism (``Mechanism(dim=3)``, :class:`Drawing3D`) in mplot3d.

:func:`mechsolve.plot.draw` and :func:`mechsolve.plot.animate` make it for a spatial
mechanism; use them rather than this module. What is drawn, in global coordinates:

* every body as the polyline through its joint attachment points (the origins of the joint
  frames on it, end-effector points, traced points), sorted along a line when they are
  collinear, else as a ring around their mean plane, filled when they lie in a plane (a Stewart
  platform is a hexagon); as a sector between its axes when its joints meet at one point (the
  links of a spherical linkage, on a common sphere); or as the shape set with
  :func:`mechsolve.plot.set_shape` (``(k, 3)`` points in body coordinates). A body with one
  attachment point is a segment from it to the body's origin, or a marker when they coincide;
* joint origins as small white circles (welds as squares), ground attachment points as dark
  triangles and the ground itself as a grey plate (three or more points), a dashed line
  through two points, or a small disc under a single one (a robot's base);
* rods (distance joints) as grey lines between their points, orange when driven;
* revolute, universal and revolute-link axes as short thick segments along the joint axis
  (``joint_axes=True``); prismatic and cylindrical rails and point-on-line slots as lines along
  their axis over the travel of the motion;
* the leg of every sliding joint (prismatic, cylindrical) as a grey segment between its two
  frame origins (a 3-RPS platform's legs), and an arm's pedestal from its mounting body's
  origin to its first joint where they differ (a URDF arm's base);
* bodies' named points (``Body.points``) as small diamonds, named with ``names=True``; all
  labels are placed apart (:meth:`~mechsolve.plot._base._DrawingBase.place_labels`);
* end-effector targets as crosses, joined to the end-effector point by a dotted line;
* a :class:`~mechsolve.joints.SerialChain` (a collapsed arm) as the polyline of its joints;
* drivers in orange with their names: an arc arrow about a driven axis, a double arrow along a
  driven slide or coordinate, the rod of a driven distance;
* body frames as x/y/z triads (red, green, blue) with ``frames=True``;
* after a failed solve, the joints whose residual exceeds the tolerance in red, labelled with
  their residuals (the labels follow the view when it is turned).

The axes are scaled equally: the limits cover the drawing (an animation's whole motion, so the
view does not jump) and the box aspect is set to their ranges. What the planar and spatial
drawings share is :class:`~mechsolve.plot._base._DrawingBase`; where the joints attach and what
draws them is the joints' own (:meth:`~mechsolve.joints.Joint.geometry`). This module imports
matplotlib as it loads: the package loads it on the first spatial drawing.

Examples
--------
>>> import mechsolve as ms
>>> from matplotlib.figure import Figure
>>> model = ms.models.spatial.stewart()
>>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(projection="3d"))
>>> drawing = ms.plot.get_drawing(ax)
>>> drawing.outline(model.output).shape  # the platform: a hexagon
(6, 3)
>>> len(drawing.rods)  # the six legs
6
"""

from __future__ import annotations

import numpy as np
from matplotlib.text import Annotation
from matplotlib.transforms import IdentityTransform
from mpl_toolkits.mplot3d import proj3d
from mpl_toolkits.mplot3d.art3d import Poly3DCollection

from ..joints.base import DriverJoint, Joint
from ..spatial._quat import quat_conjugate, quat_rotate
from ._base import (
    _NOTE_STYLE,
    BODY_COLORS,
    DRIVER_COLOR,
    GROUND_COLOR,
    _check_mechanism,
    _check_trace,
    _DrawingBase,
    _grown,
    _is_3d,
    _Moving,
    _named_points,
    _unique,
    _user_limits,
)
from ._spatial_geometry import (
    _arc_arrow,
    _directions,
    _double_arrow,
    _outline,
    _perp,
    _poses,
    _sector,
    _transform,
)
from .shapes import _shape_of

__all__ = ["Drawing3D", "fit_figure"]


class _Note3D(Annotation):
    """An annotation whose anchor is a 3D point, projected again at every draw."""

    def __init__(self, text, xyz, **kwargs):
        super().__init__(text, xy=(0.0, 0.0), **kwargs)
        self.xyz = np.asarray(xyz, dtype=float)

    def draw(self, renderer):
        x, y, _ = proj3d.proj_transform(*self.xyz, self.axes.M)
        self.xy = (float(x), float(y))
        super().draw(renderer)


def _check_3d_axes(ax) -> None:
    if not _is_3d(ax):
        raise ValueError("ax must be a 3D Axes to draw a spatial mechanism (Mechanism(dim=3)): "
                         "make one with fig.add_subplot(projection='3d'), or leave ax out; got "
                         f"a 2D {type(ax).__name__}")


def _check_view(view):
    if view is None:
        return None
    try:
        elev, azim = (float(v) for v in view)
    except (TypeError, ValueError):
        raise TypeError(f"view must be (elevation, azimuth) in degrees, got {view!r}") from None
    if not (np.isfinite(elev) and np.isfinite(azim)):
        raise ValueError(f"view must be finite, got {view!r}")
    return elev, azim


# -- the drawing -------------------------------------------------------------------------------
class Drawing3D(_DrawingBase):
    """The artists of one spatial mechanism drawing (mplot3d), kept to be moved or inspected.

    Made by :func:`mechsolve.plot.draw` (``get_drawing(ax)`` returns it) and
    :func:`mechsolve.plot.animate` (``anim.drawing``) for a ``Mechanism(dim=3)``. The geometry
    is computed for every state in ``states`` at once; :meth:`set_frame` moves the artists to
    one of them. Line artists are ``Line3D``: ``artist.get_data_3d()`` gives the global
    coordinates drawn.

    Attributes
    ----------
    mechanism : Mechanism
    ax : Axes3D
    states : ndarray, shape (N, n)
        The states the drawing can show; :attr:`frame` is the one shown.
    bodies : dict
        ``Body -> Line3D``: the body's polyline (closed rings repeat their first vertex).
    fills : dict
        ``Body -> Poly3DCollection`` of bodies drawn as flat polygons.
    local : dict
        ``Body -> (k, 3)`` vertices in body coordinates, in the artist's order.
    pins, welds : Line3D
        Markers at the joint origins (circles) and fixed joints (squares).
    rods : dict
        ``Distance joint -> Line3D`` from one end to the other.
    joint_axes : dict
        ``joint -> Line3D``: a short segment along a revolute (universal: both pins) axis.
    rails : dict
        ``joint -> Line3D`` along a prismatic, cylindrical or point-on-line axis.
    chains : dict
        ``SerialChain -> Line3D`` through the chain's joints.
    targets : dict
        ``end effector -> Line3D`` from its point to its target (marked with a cross).
    legs : dict
        ``joint -> Line3D`` from one joint frame's origin to the other, for every sliding
        joint (prismatic, cylindrical, prismatic link): the leg of a 3-RPS platform.
    bases : dict
        ``link joint -> Line3D``: the pedestal of an arm, from its mounting body's origin
        (ground's: the global origin) to its first joint, where they differ.
    point_marks : Line3D or None
        Diamonds at the bodies' named points (``Body.points``), if any.
    point_names : dict
        ``(Body, name) -> Text3D`` with ``names=True``.
    ground : list
        Static artists of the ground: its plate, line or disc, then (last) the triangles at
        its attachment points.
    drivers : dict
        ``driver -> (artist, Text3D)``: its arrow (or rod) and its name.
    triads : tuple of Line3D
        With ``frames=True``: the x, y and z axes of every body frame (one line each).
    traces : list of (Line3D, Line3D)
        Path and current-point marker of each traced point.
    highlights : dict
        ``joint -> (Line3D, annotation)`` for joints drawn in red.
    names : dict
        ``Body -> Text3D`` with ``names=True``.
    limits : tuple
        ``(x0, x1, y0, y1, z0, z1)`` of the axes.
    size : float
        The size of the symbols (3 % of the extent).

    Examples
    --------
    >>> import mechsolve as ms
    >>> from matplotlib.figure import Figure
    >>> model = ms.models.spatial.spherical_fourbar()
    >>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(projection="3d"), frames=True)
    >>> drawing = ms.plot.get_drawing(ax)
    >>> sorted(body.name for body in drawing.bodies), len(drawing.triads)
    (['coupler', 'crank', 'rocker'], 3)
    """

    dim = 3
    _ground_rail_width = 1.5
    _pose_rows = staticmethod(_poses)
    _to_global = staticmethod(_transform)

    def __init__(self, mech, ax=None, *, states=None, trace=(), trace_paths=None,
                 grow_traces: bool = False, shapes=None, names: bool = False,
                 show_ground: bool = True, show_drivers: bool = True, result=None,
                 highlight=(), tol: float = 1e-10, travel=None, body_frames: bool = False,
                 joint_axes: bool = True, view=None, zoom: float = 1.0) -> None:
        if _check_mechanism(mech) != 3:
            raise TypeError("Drawing3D draws spatial mechanisms (Mechanism(dim=3)); a planar "
                            "one is drawn by mechsolve.plot.Drawing")
        view = _check_view(view)
        if ax is None:
            import matplotlib.pyplot as plt  # pyplot only when a figure is to be made

            ax = plt.figure(figsize=(6.4, 5.6)).add_subplot(projection="3d")
        _check_3d_axes(ax)
        self._prior_limits = _user_limits(ax)
        super().__init__(mech, ax, states, travel, grow_traces)
        self._options = {"trace": trace, "trace_paths": None if grow_traces else trace_paths,
                         "grow_traces": grow_traces, "shapes": shapes, "names": names,
                         "show_ground": show_ground, "show_drivers": show_drivers,
                         "tol": tol, "travel": travel, "body_frames": body_frames,
                         "joint_axes": joint_axes}
        self.fills: dict = {}
        self.joint_axes: dict = {}
        self.chains: dict = {}
        self.targets: dict = {}
        self.legs: dict = {}
        self.bases: dict = {}
        ax.computed_zorder = False  # layers by zorder: fills, bodies, rods, pins, labels
        trace = _check_trace(mech, trace)
        self._build(trace, trace_paths, shapes or {}, bool(names), bool(show_ground),
                    bool(show_drivers), bool(body_frames), bool(joint_axes), view,
                    float(zoom))
        self._finish(result, highlight, tol)

    def _build(self, trace, trace_paths, shapes, names, show_ground, show_drivers,
               body_frames, joint_axes, view, zoom) -> None:
        """Make the artists (ground, bodies, joints, drivers, traces...), then set the limits."""
        mech = self.mechanism
        self._geometry = {j: j.geometry() for j in mech.joints}
        points, traced, pivots, ground_pts = self._attachment_points(trace)
        chains = {j: self._chain_coords(j) for j, g in self._geometry.items()
                  if g.chain is not None}
        probe = [self._coords([(b, _unique(points[b] + traced[b], dim=3))]).reshape(-1, 3)
                 for b in mech.bodies if points[b] or traced[b]]
        probe += [self._coords([(b, np.zeros(3))]).reshape(-1, 3) for b in mech.bodies]
        probe += [c.reshape(-1, 3) for c in chains.values()]
        probe += [ground_pts] + [np.asarray(p, float) for p in (trace_paths or [])]
        span = self._symbol_size(probe)
        if show_ground and len(ground_pts):
            # an arm on a pedestal stands on ground's origin, where its base plate goes
            on_ground = any(mount.is_ground for _, mount, _ in self._arm_bases())
            self._add_ground(ground_pts, np.zeros(3) if on_ground else None)
        self._add_bodies(points, traced, self._spherical_links(points, pivots), shapes, span)
        self._add_chains(chains)
        for j, g in self._geometry.items():  # rails, over the travel of the body-2 points
            for rail in g.rails:
                self._rail(j, rail)
        self._add_legs()
        self._add_bases()
        self._add_joint_marks(joint_axes)
        self._add_targets()
        if show_drivers:
            for j in mech.drivers:
                self._driver(j)
        self._add_traces(trace, trace_paths)
        self._add_named_points(names)
        if body_frames:  # x, y, z axes of every body (and of ground, the global frame)
            self._add_triads(3.5 * self.size)
        if names:
            self._add_names()
        self._set_limits(view, zoom)

    # -- how a spatial drawing draws -----------------------------------------------------------
    @staticmethod
    def _scratch_axes():
        from matplotlib.figure import Figure

        return Figure().add_subplot(projection="3d")

    def _plot_line(self, points: np.ndarray, **style):
        (line,) = self.ax.plot(points[:, 0], points[:, 1], points[:, 2], **style)
        return line

    def _move(self, artist, kind: str, c: np.ndarray) -> None:
        if kind == "line":
            artist.set_data_3d(c[:, 0], c[:, 1], c[:, 2])
        elif kind == "poly":
            artist.set_verts([c])
        elif kind == "text":
            artist.set_position_3d(c[0])
        else:  # a red note
            artist.xyz = c[0].copy()

    def _anchor_coords(self, j: Joint) -> np.ndarray:
        if self._geometry[j].chain is not None:
            return self._chain_coords(j)[:, -1:, :]  # the tool
        return self._coords(self._anchor(j))

    def _anchor(self, j: Joint) -> list:
        """Where a joint is marked (its anchor, else ground's origin)."""
        return j.anchor() or [(self.mechanism.ground, np.zeros(3))]

    def _note_place(self, anchor: np.ndarray) -> tuple[np.ndarray, bool]:
        a = self._display(anchor)
        bbox = self.ax.get_window_extent()
        return a, bool(a[0] <= 0.5 * (bbox.x0 + bbox.x1))

    def _note(self, text: str, coords: np.ndarray, offset: tuple, right: bool):
        note = _Note3D(text, coords[self.frame, 0], xytext=offset, textcoords="offset points",
                       ha="left" if right else "right", **_NOTE_STYLE)
        note.set_transform(IdentityTransform())
        note.set_clip_on(False)
        self.ax.add_artist(note)
        self._moving.append(_Moving(note, coords[:, :1, :], "note"))
        return note

    def _label_anchor(self, text) -> np.ndarray:
        return self._display(text.get_position_3d())

    def _display(self, xyz) -> np.ndarray:
        """Display coordinates (pixels) of a global point in the current view."""
        ax = self.ax
        x, y, _ = proj3d.proj_transform(*np.asarray(xyz, float), ax.get_proj())
        return ax.transData.transform((float(x), float(y)))

    # -- what is where -------------------------------------------------------------------------
    def _attachment_points(self, trace) -> tuple[dict, dict, dict, np.ndarray]:
        """Where the joints attach: ``Body -> [local point, ...]``, the traced points the
        same way, ``Body -> [(point, revolute axis), ...]``, and ground's points ``(k, 3)``."""
        mech = self.mechanism
        points: dict = {b: [] for b in mech.bodies}
        traced: dict = {b: [] for b in mech.bodies}
        pivots: dict = {b: [] for b in mech.bodies}
        ground_pts: list[np.ndarray] = []
        for g in self._geometry.values():
            for b, p in g.points:
                if b.is_ground:
                    ground_pts.append(p)
                else:
                    points[b].append(p)
            for axis in g.axes:
                if not axis.body.is_ground:
                    pivots[axis.body].append((axis.point, axis.direction))
        for b, p in trace:
            if not b.is_ground:
                traced[b].append(np.asarray(p, float))
        for b in mech.bodies:  # named points of interest are vertices too
            traced[b] += [p for _, p in _named_points(b)]
        return points, traced, pivots, _unique(ground_pts, dim=3)

    def _chain_coords(self, j: Joint) -> np.ndarray:
        """Global points ``(N, k, 3)`` of a serial chain (its geometry's ``chain``: base,
        joints, tool) from its coordinates in the states."""
        body, points = self._geometry[j].chain
        local = points(self.states[:, self.mechanism.layout.coord_slice(j)])
        X = self._poses[body]
        return X[:, None, :3] + quat_rotate(X[:, None, 3:], local)

    def _spherical_links(self, points: dict, pivots: dict) -> dict:
        """``Body -> (joint point, axes, radius)`` of the links of spherical linkages: their
        joint origins coincide and the axes differ; they are drawn on one sphere per centre,
        through the body origin farthest from it."""
        s = self.size
        found = {}
        for b in self.mechanism.bodies:
            joint_pts = _unique(points[b], dim=3)
            if len(joint_pts) == 1:
                axes = [u for p, u in pivots[b] if np.max(np.abs(p - joint_pts[0])) <= 1e-9]
                if len(_directions(axes)) >= 2:
                    centre = self._coords([(b, joint_pts[0])])[0, 0]
                    found[b] = (joint_pts[0], axes, centre)
        links = {}
        for b, (point, axes, g) in found.items():
            same = [o for o, (_, _, g2) in found.items() if np.linalg.norm(g2 - g) <= s]
            # the distance of each body's origin from the centre (its local joint point)
            radius = max(max(float(np.linalg.norm(found[o][0])) for o in same), 10 * s)
            links[b] = (point, axes, radius)
        return links

    # -- ground and bodies ---------------------------------------------------------------------
    def _add_ground(self, ground_pts: np.ndarray, foot=None) -> None:
        """A plate through three or more ground points, a dashed line through two, a disc
        under one (a robot's base; at ``foot``, the foot of its pedestal, if given);
        triangles at them."""
        ax, s, g = self.ax, self.size, GROUND_COLOR
        local, closed, flat = _outline(ground_pts)
        if len(local) >= 2:
            ring = np.concatenate([local, local[:1]]) if closed else local
            self.ground.append(self._plot_line(ring, color=g, linewidth=1.2 if closed else 1.5,
                                               linestyle="-" if closed else (0, (5, 3)),
                                               zorder=1.5))
            if closed and flat:
                plate = Poly3DCollection([local], facecolor="#bbbbbb", edgecolor="none",
                                         alpha=0.3, zorder=1)
                ax.add_collection3d(plate)
                self.ground.append(plate)
        else:  # one point (a robot's base): a small plate under it
            t = np.linspace(0.0, 2 * np.pi, 33)
            centre = local[0] if foot is None else foot
            disc = centre + 2.5 * s * np.column_stack([np.cos(t), np.sin(t), np.zeros_like(t)])
            plate = Poly3DCollection([disc], facecolor="#bbbbbb", edgecolor=g, linewidth=1.0,
                                     alpha=0.5, zorder=1)
            ax.add_collection3d(plate)
            self.ground.append(plate)
            self._extent.append(disc)
        self.ground.append(self._plot_line(local, linestyle="none", marker="^", markersize=9,
                                           markerfacecolor=g, markeredgecolor="black",
                                           markeredgewidth=0.8, zorder=5.5))
        self._extent.append(ground_pts)

    def _add_bodies(self, points: dict, traced: dict, spherical: dict, shapes: dict,
                    span: float) -> None:
        """Every moving body as the line through its outline, filled when it is flat."""
        for b in self.mechanism.bodies:
            color = self._colors[b]
            style = {"color": color, "linewidth": 4.0, "solid_capstyle": "round",
                     "solid_joinstyle": "round", "zorder": 3}
            fill_style = {"facecolor": color, "alpha": 0.3}
            shape = _shape_of(b, shapes)
            if shape is not None:
                local, closed = shape.points, shape.closed
                flat = closed and _outline(local)[2]
                style.update({k: v for k, v in shape.style.items()
                              if k not in ("facecolor", "edgecolor", "alpha")})
                fill_style = {"facecolor": shape.style.get("facecolor", style["color"]),
                              "alpha": shape.style.get("alpha", 0.3)}
            elif b in spherical:  # the joints meet at one point, the axes differ
                centre, axes, radius = spherical[b]
                local, closed, flat = _sector(centre, axes, np.zeros(3), radius)
            else:
                local, closed, flat = self._joint_outline(points[b] + traced[b], span)
            if len(local) == 1:
                style.update(marker="s", markersize=10, markerfacecolor=color,
                             markeredgecolor="black", markeredgewidth=0.8, linestyle="none")
            ring = np.concatenate([local, local[:1]]) if closed else local
            art, _ = self._add_line([(b, ring)], **style)
            coords = self._coords([(b, local)])
            if closed and flat:
                poly = Poly3DCollection([coords[0]], edgecolor="none", zorder=2, **fill_style)
                self.ax.add_collection3d(poly)
                self._moving.append(_Moving(poly, coords, "poly"))
                self.fills[b] = poly
            self.bodies[b] = art
            self.local[b] = np.asarray(local, float)
            self._outline_coords[b] = coords

    @staticmethod
    def _joint_outline(pts: list, span: float) -> tuple[np.ndarray, bool, bool]:
        """The outline through a body's points; one point off the origin is a segment to it,
        none is the origin."""
        local, closed, flat = _outline(_unique(pts, dim=3))
        if len(local) == 0:
            local = np.zeros((1, 3))
        if len(local) == 1 and np.max(np.abs(local[0])) > 1e-9 * max(span, 1e-300):
            local = np.array([local[0], np.zeros(3)])  # to the body's origin
        return local, closed, flat

    def _add_chains(self, chains: dict) -> None:
        """Collapsed serial chains: the polyline of their joints, after the bodies' colours."""
        n = len(self.mechanism.bodies)
        for k, (j, coords) in enumerate(chains.items()):
            color = BODY_COLORS[(n + k) % len(BODY_COLORS)]
            self.chains[j] = self._line(coords, color=color, linewidth=4.0, marker="o",
                                        markersize=6, markerfacecolor="white",
                                        markeredgecolor="black", solid_capstyle="round",
                                        zorder=3)

    # -- joints --------------------------------------------------------------------------------
    def _rail(self, j, rail) -> None:
        """A rail along ``u`` through ``c`` (body 1) over where body 2 is drawn."""
        b1, c, u, (b2, p2), _ = rail
        pts = self.local.get(b2)  # where body 2 is drawn (else its point on the rail)
        if pts is None or not len(pts):
            pts = p2[None]
        g = self._coords([(b2, pts)], self._travel)  # (M, k, 3) over the travel
        X1 = self._travel[b1]
        o = X1[:, None, :3] + quat_rotate(X1[:, None, 3:], c[None, None, :])
        ug = quat_rotate(X1[:, None, 3:], u[None, None, :])
        self._add_rail(j, b1, c, u, np.sum((g - o) * ug, axis=-1))

    def _add_legs(self) -> None:
        """A leg between the two frame origins of every sliding joint, whatever the slide."""
        for j, g in self._geometry.items():
            for leg in g.legs:
                self.legs[j], _ = self._add_line(list(leg), color="#555555", linewidth=3.0,
                                                 solid_capstyle="round", zorder=2.9)

    def _arm_bases(self) -> list:
        """``[(first link joint, mounting body, its point there), ...]`` of every arm whose
        first joint is away from its mounting body's origin."""
        links = [(j, g.mount) for j, g in self._geometry.items() if g.mount is not None]
        moved = {id(outboard) for _, (_, _, outboard) in links}
        out = []
        for j, (mount, first, _) in links:
            if id(mount) in moved:  # not the first joint of its arm
                continue
            if np.linalg.norm(first) > 0.0:
                out.append((j, mount, first))
        return out

    def _add_bases(self) -> None:
        """The pedestal of every arm: from its mounting body's origin to its first joint."""
        for j, mount, first in self._arm_bases():
            self.bases[j], _ = self._add_line([(mount, np.array([np.zeros(3), first]))],
                                              color=GROUND_COLOR, linewidth=6.0,
                                              solid_capstyle="butt", zorder=2.8)

    def _add_joint_marks(self, joint_axes: bool) -> None:
        """Rods, the pin and weld markers, and (``joint_axes``) the revolute axes."""
        pin_parts, weld_parts = [], []
        for j, g in self._geometry.items():
            for rod in g.rods:
                style = {"color": DRIVER_COLOR if rod.driven else "#555555",
                         "linewidth": 3.0, "zorder": 3.5, "solid_capstyle": "round"}
                self.rods[j], _ = self._add_line([rod.end1, rod.end2], **style)
            pin_parts += g.pins
            weld_parts += g.welds
            if joint_axes and g.housings:
                self._joint_axis(j, g.housings)
        self._add_pins(pin_parts, weld_parts)

    def _joint_axis(self, j, housings: list) -> None:
        """Short, thick segments along the joint's axes (its housing; a cross for two)."""
        half = 1.6 * self.size
        style = {"color": "#444444", "linewidth": 5.0, "alpha": 0.85, "zorder": 4,
                 "solid_capstyle": "butt"}
        gap = [np.full(3, np.nan)] if len(housings) > 1 else []
        parts = [(a.body, np.array([a.point - half * a.direction, a.point + half * a.direction,
                                    *gap]))
                 for a in housings]
        self.joint_axes[j], _ = self._add_line(parts, **style)

    def _add_targets(self) -> None:
        """End-effector targets: a cross, joined to the end-effector point by a dotted line."""
        for j, g in self._geometry.items():
            if g.target is not None:
                self.targets[j], _ = self._add_line(
                    list(g.target), color="black", linewidth=1.0,
                    linestyle=":", marker="x", markevery=[1], markersize=9,
                    markeredgewidth=2.0, zorder=6.5)

    def _driver(self, j: DriverJoint) -> None:
        """A driver's orange mark (an arc about a driven axis, a double arrow along a driven
        slide or coordinate, the rod of a driven distance) and its name."""
        s = self.size
        rho = 1.8 * s
        head = 0.6 * s
        label_parts = None
        drive = self._geometry[j].drive
        kind = drive.kind if drive is not None else None
        if kind == "length":   # the driven rod itself
            art = self.rods[j]
            ends = self._coords(list(drive.ends))
            where = ends.mean(axis=1, keepdims=True)
        else:
            if kind == "angle":   # an arc about the hinge
                b, c, u, e1 = drive.axis
                template = _arc_arrow(c, u, e1, rho, head)
                label_parts = [(b, c + 1.2 * rho * e1)]
            elif kind == "slide":   # a double arrow along the rail
                b1, c, u, (b, p2), _ = drive.rail
                # Along the axis, beside body 2's point (the axis in body-2 coordinates).
                ug = quat_rotate(self._poses[b1][0, 3:], u)
                u2 = quat_rotate(quat_conjugate(self._poses[b][0, 3:]), ug)
                mine = self.local.get(b)
                if mine is not None and len(mine):
                    p2 = mine.mean(axis=0)
                centre = p2 + 1.6 * s * _perp(u2)
                template = _double_arrow(centre, u2, rho, head)
                label_parts = [(b, centre + rho * u2)]
            elif kind == "coordinate":   # a double arrow at the body along a global axis
                b, u = drive.at[0], drive.along
                here = self._coords([drive.at])[:, 0, :]
                coords = here[:, None, :] + _double_arrow(np.zeros(3), u, rho, head)[None]
                art = self._line(coords, color=DRIVER_COLOR, linewidth=2.0, zorder=7)
                where = (here + 1.2 * rho * u)[:, None, :]
                template = None
            else:  # a driver without an arrow: mark where it acts
                b, c = self._anchor(j)[0]
                template = c[None, :]
                label_parts = [(b, c)]
            if template is not None:
                style = {"color": DRIVER_COLOR, "linewidth": 2.0, "zorder": 7}
                if len(template) == 1:
                    style.update(linestyle="none", marker="o", markersize=12,
                                 markerfacecolor="none", markeredgewidth=2.0)
                art, _ = self._add_line([(b, template)], **style)
                where = self._coords(label_parts)
        self.drivers[j] = (art, self._driver_label(j, where, "left"))

    def _set_limits(self, view, zoom: float) -> None:
        """Equal scaling around everything drawn; the camera at ``view``."""
        ax = self.ax
        pts = np.concatenate(self._extent) if self._extent else np.zeros((1, 3))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if not len(pts):
            pts = np.zeros((1, 3))
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        span = max(float(np.max(hi - lo)), 1e-9)
        pad = 0.04 * span + self.size
        # Equal scaling: a thin extent still gets some depth, and the box has the ranges'
        # proportions, so a unit is as long along every axis.
        half = np.maximum(0.5 * (hi - lo) + pad, 0.12 * span)
        mid = 0.5 * (lo + hi)
        # limits the Axes had before (the user's, or around what the user drew) only grow
        low, high = _grown(mid - half, mid + half, self._prior_limits)
        mid, half = 0.5 * (low + high), 0.5 * (high - low)
        self.limits = tuple(float(v) for k in range(3) for v in (mid[k] - half[k],
                                                                mid[k] + half[k]))
        ax.set_xlim(*self.limits[0:2])
        ax.set_ylim(*self.limits[2:4])
        ax.set_zlim(*self.limits[4:6])
        ax.set_box_aspect(tuple(2 * half), zoom=zoom)
        if view is not None:
            ax.view_init(elev=view[0], azim=view[1])
        ax.set_xlabel("x")
        ax.set_ylabel("y")
        ax.set_zlabel("z")


def fit_figure(ax, width: float = 6.4, margin: float = 0.1, side_margin: float = 0.12) -> None:
    """Size ``ax.figure`` to the drawing's box as seen, ``width`` inches wide.

    An mplot3d Axes is always square; a flat drawing (a slider-crank seen from the side)
    would leave bands of white above and below it. The figure is made as high as the box
    looks (plus ``margin``, a fraction of the width, for the ticks) and the square Axes,
    ``1 - side_margin`` of the width wide, is centred on the box, reaching past the top and
    bottom of the figure where nothing is drawn.
    """
    fig = ax.figure
    fig.set_size_inches(width, width)
    ax.set_position([0.0, 0.0, 1.0, 1.0])
    ax.apply_aspect()
    lim = (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())
    corners = np.array([[x, y, z] for x in lim[0] for y in lim[1] for z in lim[2]])
    px, py, _ = proj3d.proj_transform(*corners.T, ax.get_proj())
    pix = ax.transData.transform(np.column_stack([px, py]))
    side_px = fig.bbox.width  # the square Axes, in pixels, for now
    seen = float(np.ptp(pix[:, 1])) / side_px  # the box's height, in squares
    centre = 0.5 * (pix[:, 1].min() + pix[:, 1].max()) / side_px
    side = (1.0 - side_margin) * width  # the square, in inches
    height = float(np.clip(side * seen + margin * width, 0.45 * width, width))
    fig.set_size_inches(width, round(height, 2))
    tall = side / height  # the square's height, in figure heights
    ax.set_position([0.5 * side_margin, 0.5 - centre * tall, 1.0 - side_margin, tall])
