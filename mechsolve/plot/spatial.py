"""Drawing and animation of spatial mechanisms (``Mechanism(dim=3)``) in mplot3d.

:func:`mechsolve.plot.draw` and :func:`mechsolve.plot.animate` come here for a spatial
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
* end-effector targets as crosses, joined to the end-effector point by a dotted line;
* a :class:`~mechsolve.joints.SerialChain` (a collapsed arm) as the polyline of its joints;
* drivers in orange with their names: an arc arrow about a driven axis, a double arrow along a
  driven slide or coordinate, the rod of a driven distance;
* body frames as x/y/z triads (red, green, blue) with ``frames=True``;
* after a failed solve, the joints whose residual exceeds the tolerance in red, labelled with
  their residuals (the labels follow the view when it is turned).

The axes are scaled equally: the limits cover the drawing (an animation's whole motion, so the
view does not jump) and the box aspect is set to their ranges.

Examples
--------
>>> import mechsolve as ms
>>> from matplotlib.figure import Figure
>>> model = ms.models_spatial.stewart()
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

from .. import plot as _plot
from ..body import Body
from ..joints._drivers import CoordinateDriver
from ..joints._end_effectors import PointDistanceEndEffector, _compose, _LinkEndEffector
from ..joints._links import (
    DHLink,
    LinkJoint,
    PrismaticLink,
    RevoluteLink,
    SerialChain,
    chain_forward,
)
from ..joints._spatial import (
    AngleCoupler,
    Cylindrical,
    SpatialAngleDriver,
    SpatialDistance,
    SpatialDistanceDriver,
    SpatialDriver,
    SpatialFixed,
    SpatialPointOnLine,
    SpatialPrismatic,
    SpatialRevolute,
    SpatialSlideDriver,
    Universal,
    _FrameJoint,
)
from ..joints.base import DriverJoint, Joint
from ..spatial._quat import quat_conjugate, quat_rotate
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
    _check_mechanism,
    _check_trace,
    _failed_joints,
    _is_3d,
    _Moving,
    _nan_join,
    _note_offset,
    _note_text,
    _unique,
)
from .shapes import _shape_of

__all__ = ["Drawing3D", "draw", "animate"]

_EX, _EY, _EZ = np.eye(3)


# -- geometry ----------------------------------------------------------------------------------
def _poses(body: Body, states: np.ndarray) -> np.ndarray:
    """Poses ``(N, 7)`` (position, quaternion) of ``body`` in the states ``(N, n)``."""
    if body.is_ground:
        out = np.zeros((len(states), 7))
        out[:, 3] = 1.0
        return out
    i = 7 * body.index
    return states[:, i:i + 7]


def _transform(X: np.ndarray, pts: np.ndarray) -> np.ndarray:
    """Global coordinates ``(N, k, 3)`` of local points ``(k, 3)`` at poses ``(N, 7)``."""
    return X[:, None, :3] + quat_rotate(X[:, None, 3:], pts[None, :, :])


def _outline(points: np.ndarray) -> tuple[np.ndarray, bool, bool]:
    """Order attachment points into ``(vertices, closed, flat)``.

    Collinear points are sorted along their line (an open polyline); others go round their
    mean plane (a closed ring), ``flat`` when they lie in it (a polygon that can be filled).
    """
    if len(points) <= 2:
        return points, False, False
    c = points.mean(axis=0)
    d = points - c
    _, sv, vt = np.linalg.svd(d, full_matrices=False)
    if sv[1] <= 1e-9 * max(sv[0], 1e-300):
        return points[np.argsort(d @ vt[0])], False, False
    order = np.argsort(np.arctan2(d @ vt[1], d @ vt[0]))
    flat = len(sv) < 3 or sv[2] <= 1e-6 * sv[0]
    return points[order], True, bool(flat)


def _sector(centre: np.ndarray, axes: list, origin: np.ndarray, radius: float):
    """Outline of a link of a spherical linkage: its revolute axes meet at ``centre``.

    The link is the sector (two axes) or spherical polygon (more) on the sphere of ``radius``
    about ``centre``, between the points where the axes, turned towards the body's
    ``origin``, pierce it. Returns ``(vertices, closed, flat)`` like :func:`_outline`.
    """
    w = origin - centre
    r = float(radius)
    dirs: list[np.ndarray] = []
    for u in axes:
        u = u if np.dot(u, w) >= 0.0 else -u
        if not any(np.linalg.norm(np.cross(u, v)) <= 1e-6 for v in dirs):
            dirs.append(u)
    if len(dirs) < 2:
        raise ValueError("a spherical link needs two joint axes that are not parallel")

    def arc(a, b, n=24):
        angle = np.arccos(np.clip(np.dot(a, b), -1.0, 1.0))
        t = np.linspace(0.0, 1.0, n)[:, None]
        return centre + r * (np.sin((1 - t) * angle) * a + np.sin(t * angle) * b) / np.sin(angle)

    if len(dirs) == 2:
        return np.concatenate([centre[None], arc(*dirs)]), True, True
    m = np.mean(dirs, axis=0)
    m = m / np.linalg.norm(m) if np.linalg.norm(m) > 1e-9 else dirs[0]
    e1 = _perp(m)
    e2 = np.cross(m, e1)
    dirs.sort(key=lambda u: np.arctan2(np.dot(u, e2), np.dot(u, e1)))
    ring = np.concatenate([arc(a, b)[:-1] for a, b in zip(dirs, dirs[1:] + dirs[:1])])
    return ring, True, False


def _n_directions(axes) -> int:
    """How many of the unit vectors ``axes`` are not parallel to one another."""
    dirs: list[np.ndarray] = []
    for u in axes:
        if not any(np.linalg.norm(np.cross(u, v)) <= 1e-6 for v in dirs):
            dirs.append(u)
    return len(dirs)


def _perp(u: np.ndarray) -> np.ndarray:
    """A unit vector perpendicular to the unit vector ``u``."""
    a = _EX if abs(u[0]) < 0.9 else _EY
    v = np.cross(u, a)
    return v / np.linalg.norm(v)


def _arrowhead(tip, direction, normal, size) -> np.ndarray:
    """An open arrowhead (a 'V' in the plane of ``direction`` and ``normal``) at ``tip``."""
    back = tip - size * direction
    return np.array([back + 0.6 * size * normal, tip, back - 0.6 * size * normal])


def _arc_arrow(centre, axis, e1, radius, head) -> np.ndarray:
    """An arc arrow about ``axis`` through ``centre`` (the mark of a driven angle)."""
    e2 = np.cross(axis, e1)
    t = np.linspace(np.radians(-60), np.radians(200), 40)
    arc = centre + radius * (np.cos(t)[:, None] * e1 + np.sin(t)[:, None] * e2)
    tangent = -np.sin(t[-1]) * e1 + np.cos(t[-1]) * e2
    return _nan_join([arc, _arrowhead(arc[-1], tangent, np.cross(axis, tangent), head)],
                     dim=3)


def _double_arrow(centre, u, half, head) -> np.ndarray:
    """A double-headed arrow along the unit vector ``u``, centred on ``centre``."""
    n = _perp(u)
    a, b = centre - half * u, centre + half * u
    return _nan_join([np.array([a, b]), _arrowhead(b, u, n, head), _arrowhead(a, -u, n, head)],
                     dim=3)


# -- what a joint attaches to ------------------------------------------------------------------
def _rows(j: Joint) -> tuple:
    return tuple(getattr(type(j), "_rows", ()))


def _joint_frames(j: Joint) -> list:
    """``[(body, origin, quaternion), ...]`` of the joint frames of a frame or link joint."""
    p = j._p
    if isinstance(j, _FrameJoint):
        return [(j.bodies[0], p[0:3].copy(), p[3:7].copy()),
                (j.bodies[1], p[7:10].copy(), p[10:14].copy())]
    if isinstance(j, LinkJoint):
        pa, fa = _compose(p[0:3], p[3:7], p[7:10], p[10:14])  # frame1, then the precursor
        return [(j.bodies[0], pa, fa), (j.bodies[1], p[14:17].copy(), p[17:21].copy())]
    return []


def _slides(j: Joint) -> bool:
    """A prismatic or cylindrical joint: its body-2 point is anywhere on the rail."""
    rows = _rows(j)
    return isinstance(j, _FrameJoint) and "x" in rows and "y" in rows and "rx" in rows


def _attachments(j: Joint) -> list:
    """``[(body, local point), ...]`` where a joint attaches (the vertices of its bodies).

    Joints whose origins meet (revolute, spherical, universal, fixed), rods and link joints
    attach at both frame origins; a point-on-line or point-on-plane at its body-2 point;
    prismatic, cylindrical, planar and axis-only joints nowhere (their rails show them); an
    end effector at its point on the link. Any other joint class can say where it attaches by
    defining ``plot_points(self) -> [(body, (x, y, z)), ...]`` (body coordinates).
    """
    if isinstance(j, DriverJoint) and not isinstance(j, SpatialDistanceDriver):
        return []
    if isinstance(j, LinkJoint):
        return [(b, p) for b, p, _ in _joint_frames(j)]
    if isinstance(j, _FrameJoint):
        rows = _rows(j)
        frames = _joint_frames(j)
        if isinstance(j, SpatialDistance) or {"gx", "gy", "gz"} <= set(rows) or \
                {"x", "y", "z"} <= set(rows):
            return [(b, p) for b, p, _ in frames]
        if any(r in rows for r in ("x", "y", "z")) and not _slides(j) and \
                not {"rx", "ry"} <= set(rows):
            return [(frames[1][0], frames[1][1])]
        return []
    if isinstance(j, _LinkEndEffector):
        return [(j.bodies[1], j._p[7:10].copy())]
    hook = getattr(j, "plot_points", None)
    if callable(hook):
        out = []
        for b, p in hook():
            q = np.asarray(p, dtype=float)
            if q.shape != (3,):
                raise ValueError(f"{type(j).__name__}.plot_points must give (body, (x, y, z)) "
                                 f"pairs, got a point of shape {q.shape}")
            out.append((b, q))
        return out
    return []


def _pivot_axes(j: Joint) -> list:
    """``[(body, origin, axis), ...]`` (body coordinates) of a revolute-type joint's axes.

    Used to draw the links of spherical linkages, whose joint origins all coincide.
    """
    if isinstance(j, (SpatialRevolute, Cylindrical, Universal)):
        return [(b, c, quat_rotate(f, _EZ)) for b, c, f in _joint_frames(j)]
    if isinstance(j, RevoluteLink):
        return [(b, c, quat_rotate(f, j._p[21:24])) for b, c, f in _joint_frames(j)]
    return []


def _target(j: Joint):
    """``(reference body, local point)`` of an end effector's target, or None."""
    if not isinstance(j, _LinkEndEffector):
        return None
    if j._target_kind not in ("frame", "point") and not isinstance(j, PointDistanceEndEffector):
        return None
    p = j._p
    pg, _ = _compose(p[0:3], p[3:7], p[14:17], p[17:21])
    return j.bodies[0], pg


def _axis_of(j: Joint):
    """``(body, centre, axis, x axis)`` (body-1 coordinates) of a revolute-type joint."""
    frames = _joint_frames(j)
    if isinstance(j, (SpatialRevolute, Cylindrical)):
        b, c, f = frames[0]
        return b, c, quat_rotate(f, _EZ), quat_rotate(f, _EX)
    if isinstance(j, RevoluteLink) or (isinstance(j, DHLink) and j._p[25] == 0.0):
        b, c, f = frames[0]
        u = quat_rotate(f, j._p[21:24] if isinstance(j, RevoluteLink) else _EZ)
        return b, c, u, _perp(u)
    return None


def _rail_of(j: Joint):
    """``(body 1, point, axis)`` (body-1 coordinates) of a joint that slides along a line."""
    if isinstance(j, (SpatialPrismatic, Cylindrical, SpatialPointOnLine)) or \
            (_slides(j) and isinstance(j, _FrameJoint)):
        b, c, f = _joint_frames(j)[0]
        return b, c, quat_rotate(f, _EZ)
    if isinstance(j, PrismaticLink) or (isinstance(j, DHLink) and j._p[25] == 1.0):
        b, c, f = _joint_frames(j)[0]
        return b, c, quat_rotate(f, j._p[21:24] if isinstance(j, PrismaticLink) else _EZ)
    return None


class _Note3D(Annotation):
    """An annotation whose anchor is a 3D point, projected again at every draw."""

    def __init__(self, text, xyz, **kwargs):
        super().__init__(text, xy=(0.0, 0.0), **kwargs)
        self.xyz = np.asarray(xyz, dtype=float)

    def draw(self, renderer):
        from mpl_toolkits.mplot3d import proj3d

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
class Drawing3D:
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
    """

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
            import matplotlib.pyplot as plt

            ax = plt.figure(figsize=(6.4, 5.6)).add_subplot(projection="3d")
        _check_3d_axes(ax)
        self.mechanism = mech
        self.ax = ax
        self.states = states = _as_states(mech, states)
        self.frame = 0
        self.bodies: dict = {}
        self.fills: dict = {}
        self.local: dict = {}
        self.rods: dict = {}
        self.joint_axes: dict = {}
        self.rails: dict = {}
        self.chains: dict = {}
        self.targets: dict = {}
        self.ground: list = []
        self.drivers: dict = {}
        self.triads: tuple = ()
        self.traces: list = []
        self.highlights: dict = {}
        self.names: dict = {}
        self._moving: list[_Moving] = []
        self._extent: list[np.ndarray] = []
        self._grow = grow_traces
        self._trace_paths: list[np.ndarray] = []
        bodies = (mech.ground, *mech.bodies)
        self._poses = {b: _poses(b, states) for b in bodies}
        self._travel_states = states if travel is None else \
            np.concatenate([states, np.atleast_2d(np.asarray(travel, dtype=float))])
        self._travel = {b: _poses(b, self._travel_states) for b in bodies}
        self._colors = {b: BODY_COLORS[i % len(BODY_COLORS)]
                        for i, b in enumerate(mech.bodies)}
        self._colors[mech.ground] = GROUND_COLOR
        ax.computed_zorder = False  # layers by zorder: fills, bodies, rods, pins, labels
        trace = _check_trace(mech, trace)
        self._build(trace, trace_paths, shapes or {}, bool(names), bool(show_ground),
                    bool(show_drivers), bool(body_frames), bool(joint_axes), view,
                    float(zoom))
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
                m.artist.set_data_3d(c[:, 0], c[:, 1], c[:, 2])
            elif m.kind == "poly":
                m.artist.set_verts([c])
            elif m.kind == "text":
                m.artist.set_position_3d(c[0])
            else:  # a red note
                m.artist.xyz = c[0].copy()
        if self._grow:
            for (line, dot), path in zip(self.traces, self._trace_paths):
                line.set_data_3d(path[:i + 1, 0], path[:i + 1, 1], path[:i + 1, 2])
                dot.set_data_3d(path[i:i + 1, 0], path[i:i + 1, 1], path[i:i + 1, 2])
        return self.artists

    def outline(self, body: Body) -> np.ndarray:
        """Global vertices ``(k, 3)`` of the body's outline in the frame shown."""
        return self._outline_coords[body][self.frame].copy()

    # -- construction ---------------------------------------------------------------------------
    def _coords(self, parts, poses=None) -> np.ndarray:
        """Global coordinates ``(N, k, 3)`` of ``[(body, local points (k, 3)), ...]``."""
        poses = self._poses if poses is None else poses
        return np.concatenate([_transform(poses[b], np.asarray(p, float).reshape(-1, 3))
                               for b, p in parts], axis=1)

    def _line(self, coords, register: bool = True, **style):
        """A Line3D through ``coords (N, k, 3)`` (moved by set_frame when registered)."""
        c = coords[0]
        (line,) = self.ax.plot(c[:, 0], c[:, 1], c[:, 2], **style)
        if register:
            self._moving.append(_Moving(line, coords, "line"))
        self._extent.append(coords.reshape(-1, 3))
        return line

    def _add_line(self, parts, **style):
        coords = self._coords(parts)
        return self._line(coords, **style), coords

    def _text(self, coords, text, **style):
        c = coords[0, 0]
        art = self.ax.text(c[0], c[1], c[2], text, **style)
        self._moving.append(_Moving(art, coords, "text"))
        return art

    def _build(self, trace, trace_paths, shapes, names, show_ground, show_drivers,
               body_frames, joint_axes, view, zoom) -> None:
        from mpl_toolkits.mplot3d.art3d import Poly3DCollection

        mech, ax = self.mechanism, self.ax
        joints = mech.joints
        # Attachment points of every body (from the joints and the traced points), of ground.
        points: dict = {b: [] for b in mech.bodies}
        traced: dict = {b: [] for b in mech.bodies}
        pivots: dict = {b: [] for b in mech.bodies}
        ground_pts: list[np.ndarray] = []
        for j in joints:
            for b, p in _attachments(j):
                if b.is_ground:
                    if not isinstance(j, _LinkEndEffector):
                        ground_pts.append(p)
                else:
                    points[b].append(p)
            for b, p, u in _pivot_axes(j):
                if not b.is_ground:
                    pivots[b].append((p, u))
        for b, p in trace:
            if not b.is_ground:
                traced[b].append(np.asarray(p, float))
        ground_pts_arr = _unique(ground_pts, dim=3)
        chains = {j: self._chain_coords(j) for j in joints if isinstance(j, SerialChain)}

        # Size of the symbols from the extent of everything over all states.
        probe = [self._coords([(b, _unique(points[b] + traced[b], dim=3))]).reshape(-1, 3)
                 for b in mech.bodies if points[b] or traced[b]]
        probe += [self._coords([(b, np.zeros(3))]).reshape(-1, 3) for b in mech.bodies]
        probe += [c.reshape(-1, 3) for c in chains.values()]
        probe += [ground_pts_arr] + [np.asarray(p, float) for p in (trace_paths or [])]
        allp = np.concatenate(probe) if probe else np.zeros((1, 3))
        allp = allp[np.all(np.isfinite(allp), axis=1)]
        span = float(np.max(np.ptp(allp, axis=0))) if len(allp) else 1.0
        self.size = s = 0.03 * (span if span > 0 else 1.0)

        # Ground: a plate through three or more points, a dashed line through two, triangles.
        if show_ground and len(ground_pts_arr):
            g = GROUND_COLOR
            local, closed, flat = _outline(ground_pts_arr)
            if len(local) >= 2:
                ring = np.concatenate([local, local[:1]]) if closed else local
                (line,) = ax.plot(ring[:, 0], ring[:, 1], ring[:, 2], color=g,
                                  linewidth=1.2 if closed else 1.5,
                                  linestyle="-" if closed else (0, (5, 3)), zorder=1.5)
                self.ground.append(line)
                if closed and flat:
                    plate = Poly3DCollection([local], facecolor="#bbbbbb", edgecolor="none",
                                             alpha=0.3, zorder=1)
                    ax.add_collection3d(plate)
                    self.ground.append(plate)
            else:  # one point (a robot's base): a small plate under it
                t = np.linspace(0.0, 2 * np.pi, 33)
                disc = local[0] + 2.5 * s * np.column_stack([np.cos(t), np.sin(t),
                                                             np.zeros_like(t)])
                plate = Poly3DCollection([disc], facecolor="#bbbbbb", edgecolor=g,
                                         linewidth=1.0, alpha=0.5, zorder=1)
                ax.add_collection3d(plate)
                self.ground.append(plate)
                self._extent.append(disc)
            (marks,) = ax.plot(local[:, 0], local[:, 1], local[:, 2], linestyle="none",
                               marker="^", markersize=9, markerfacecolor=g,
                               markeredgecolor="black", markeredgewidth=0.8, zorder=5.5)
            self.ground.append(marks)
            self._extent.append(ground_pts_arr)

        # Links of spherical linkages (their joint origins coincide, the axes differ) are
        # drawn on one sphere per centre, through the body origin farthest from it.
        spherical = {}
        for b in mech.bodies:
            joint_pts = _unique(points[b], dim=3)
            if len(joint_pts) == 1:
                axes = [u for p, u in pivots[b] if np.max(np.abs(p - joint_pts[0])) <= 1e-9]
                if _n_directions(axes) >= 2:
                    centre = self._coords([(b, joint_pts[0])])[0, 0]
                    spherical[b] = (joint_pts[0], axes, centre)
        sphere = {}
        for b, (_, _, g) in spherical.items():
            same = [o for o, (_, _, g2) in spherical.items() if np.linalg.norm(g2 - g) <= s]
            # the distance of each body's origin from the centre (its local joint point)
            sphere[b] = max(max(float(np.linalg.norm(spherical[o][0])) for o in same), 10 * s)

        # Bodies.
        self._outline_coords = {}
        for b in mech.bodies:
            color = self._colors[b]
            shape = _shape_of(b, shapes)
            style = {"color": color, "linewidth": 4.0, "solid_capstyle": "round",
                     "solid_joinstyle": "round", "zorder": 3}
            if shape is not None:
                local, closed = shape.points, shape.closed
                flat = closed and _outline(local)[2]
                style.update({k: v for k, v in shape.style.items()
                              if k not in ("facecolor", "edgecolor", "alpha")})
                fill_style = {"facecolor": shape.style.get("facecolor", style["color"]),
                              "alpha": shape.style.get("alpha", 0.3)}
            else:
                if b in spherical:  # the joints meet at one point, the axes differ
                    centre, axes, _ = spherical[b]
                    local, closed, flat = _sector(centre, axes, np.zeros(3), sphere[b])
                else:
                    local, closed, flat = _outline(_unique(points[b] + traced[b], dim=3))
                if len(local) == 0:
                    local = np.zeros((1, 3))
                if len(local) == 1 and np.max(np.abs(local[0])) > 1e-9 * max(span, 1e-300):
                    local = np.array([local[0], np.zeros(3)])  # to the body's origin
                fill_style = {"facecolor": color, "alpha": 0.3}
            if len(local) == 1:
                style.update(marker="s", markersize=10, markerfacecolor=color,
                             markeredgecolor="black", markeredgewidth=0.8, linestyle="none")
            ring = np.concatenate([local, local[:1]]) if closed else local
            art, _ = self._add_line([(b, ring)], **style)
            coords = self._coords([(b, local)])
            if closed and flat:
                poly = Poly3DCollection([coords[0]], edgecolor="none", zorder=2, **fill_style)
                ax.add_collection3d(poly)
                self._moving.append(_Moving(poly, coords, "poly"))
                self.fills[b] = poly
            self.bodies[b] = art
            self.local[b] = np.asarray(local, float)
            self._outline_coords[b] = coords

        # Collapsed serial chains: the polyline of their joints.
        for k, (j, coords) in enumerate(chains.items()):
            color = BODY_COLORS[(len(mech.bodies) + k) % len(BODY_COLORS)]
            self.chains[j] = self._line(coords, color=color, linewidth=4.0, marker="o",
                                        markersize=6, markerfacecolor="white",
                                        markeredgecolor="black", solid_capstyle="round",
                                        zorder=3)

        # Rails of sliding joints, over the travel of the body-2 points.
        for j in joints:
            rail = _rail_of(j)
            if rail is not None:
                self._rail(j, *rail, s)

        # Rods, pins, welds, joint axes.
        pin_parts, weld_parts = [], []
        for j in joints:
            parts = _attachments(j)
            if isinstance(j, SpatialDistance):
                driven = isinstance(j, SpatialDistanceDriver)
                style = {"color": DRIVER_COLOR if driven else "#555555",
                         "linewidth": 3.0, "zorder": 3.5, "solid_capstyle": "round"}
                self.rods[j], _ = self._add_line(parts, **style)
                pin_parts += parts
            elif isinstance(j, SpatialFixed):
                weld_parts.append(parts[1] if not parts[1][0].is_ground else parts[0])
            elif isinstance(j, _LinkEndEffector):
                pin_parts += parts
            elif parts:
                pin_parts.append(parts[-1] if not parts[-1][0].is_ground else parts[0])
            if joint_axes:
                self._joint_axis(j, s)
        nowhere = [(mech.ground, np.full(3, np.nan))]
        self.pins, _ = self._add_line(pin_parts or nowhere, linestyle="none", marker="o",
                                      markersize=6, markerfacecolor="white",
                                      markeredgecolor="black", markeredgewidth=1.2, zorder=6)
        self.welds, _ = self._add_line(weld_parts or nowhere, linestyle="none", marker="s",
                                       markersize=6, markerfacecolor=GROUND_COLOR,
                                       markeredgecolor="black", zorder=6)

        # End-effector targets.
        for j in joints:
            tgt = _target(j)
            if tgt is not None:
                self.targets[j], _ = self._add_line(
                    [_attachments(j)[0], tgt], color="black", linewidth=1.0,
                    linestyle=":", marker="x", markevery=[1], markersize=9,
                    markeredgewidth=2.0, zorder=6.5)

        # Drivers.
        if show_drivers:
            for j in mech.drivers:
                self._driver(j, s)

        # Traces.
        if trace_paths is None:
            trace_paths = [self._coords([(b, p)])[:, 0, :] for b, p in trace]
        for k, ((b, p), path) in enumerate(zip(trace, trace_paths)):
            path = np.asarray(path, float)
            color = TRACE_COLORS[k % len(TRACE_COLORS)]
            here = self._coords([(b, p)])
            (line,) = ax.plot(path[:, 0], path[:, 1], path[:, 2], color=color,
                              linewidth=1.5, alpha=0.9, zorder=4)
            (dot,) = ax.plot(*here[0, 0][:, None], linestyle="none", marker="o",
                             markersize=5, color=color, zorder=7)
            self.traces.append((line, dot))
            self._trace_paths.append(path)
            self._extent.append(path)
            if not self._grow:
                self._moving.append(_Moving(dot, here, "line"))

        # Body frames: x, y, z axes of every body (and of ground, the global frame).
        if body_frames:
            length = 3.5 * s
            lines = []
            for k, color in enumerate(TRIAD_COLORS):
                tip = np.zeros(3)
                tip[k] = length
                parts = [(b, np.array([np.zeros(3), tip, np.full(3, np.nan)]))
                         for b in (mech.ground, *mech.bodies)]
                line, _ = self._add_line(parts, color=color, linewidth=1.5, zorder=5)
                lines.append(line)
            self.triads = tuple(lines)

        # Body names.
        if names:
            for b, coords in self._outline_coords.items():
                centre = np.nanmean(coords, axis=1)[:, None, :]
                self.names[b] = self._text(
                    centre, b.name, fontsize=8, ha="center", va="center", zorder=9,
                    color="black", bbox={"boxstyle": "round,pad=0.2", "fc": "white",
                                         "ec": "none", "alpha": 0.7})

        self._set_limits(s, view, zoom)

    def _chain_coords(self, j: SerialChain) -> np.ndarray:
        """Global points ``(N, n + 2, 3)`` of a serial chain: base, joints, tool."""
        n = j.n_joints
        start = self.mechanism._coord_start + j._coord_offset
        Q = self.states[:, start:start + n]
        geom, kinds, _ = SerialChain._split(j._p, n)
        C, tip = chain_forward(geom, kinds, Q)
        local = np.concatenate([np.broadcast_to(geom[0, :, 3], (len(Q), 1, 3)),
                                C[:, :, :3, 3], tip[:, None, :3, 3]], axis=1)
        X = self._poses[j.bodies[0]]
        return X[:, None, :3] + quat_rotate(X[:, None, 3:], local)

    def _rail(self, j, b1, c, u, s) -> None:
        b2 = j.bodies[1]
        pts = self.local.get(b2)  # where body 2 is drawn (else its point on the rail)
        if pts is None or not len(pts):
            pts = _joint_frames(j)[1][1][None]
        g = self._coords([(b2, pts)], self._travel)  # (M, k, 3) over the travel
        X1 = self._travel[b1]
        o = X1[:, None, :3] + quat_rotate(X1[:, None, 3:], c[None, None, :])
        ug = quat_rotate(X1[:, None, 3:], u[None, None, :])
        t = np.sum((g - o) * ug, axis=-1)
        t = t[np.isfinite(t)]
        lo = (float(t.min()) if t.size else 0.0) - 2.5 * s
        hi = (float(t.max()) if t.size else 0.0) + 2.5 * s
        line = np.array([c + lo * u, c + hi * u])
        if b1.is_ground:
            style = {"color": GROUND_COLOR, "linewidth": 1.5, "linestyle": "-.",
                     "zorder": 1.5}
        else:
            style = {"color": self._colors[b1], "linewidth": 7.0, "alpha": 0.35,
                     "solid_capstyle": "round", "zorder": 2.5}
        self.rails[j], _ = self._add_line([(b1, line)], **style)

    def _joint_axis(self, j, s) -> None:
        half = 1.6 * s  # a short, thick segment: the joint's housing along its axis
        style = {"color": "#444444", "linewidth": 5.0, "alpha": 0.85, "zorder": 4,
                 "solid_capstyle": "butt"}
        if isinstance(j, Universal):  # the cross: each body's pin
            parts = [(b, np.array([c - half * quat_rotate(f, _EZ), c + half * quat_rotate(f, _EZ),
                                   np.full(3, np.nan)]))
                     for b, c, f in _joint_frames(j)]
            self.joint_axes[j], _ = self._add_line(parts, **style)
            return
        axis = _axis_of(j)
        if axis is None or isinstance(j, Cylindrical):  # a cylindrical's rail is its axis
            return
        b, c, u, _ = axis
        self.joint_axes[j], _ = self._add_line([(b, np.array([c - half * u, c + half * u]))],
                                               **style)

    def _driver(self, j: DriverJoint, s: float) -> None:
        rho = 1.8 * s
        head = 0.6 * s
        label_parts = None
        if isinstance(j, SpatialDistanceDriver):
            art = self.rods[j]
            ends = self._coords(_attachments(j))
            where = ends.mean(axis=1, keepdims=True)
        else:
            inner = getattr(j, "joint", None)
            if isinstance(j, (SpatialAngleDriver, CoordinateDriver)) and \
                    _axis_of(inner) is not None:
                b, c, u, e1 = _axis_of(inner)
                template = _arc_arrow(c, u, e1, rho, head)
                label_parts = [(b, c + 1.2 * rho * e1)]
            elif isinstance(j, (SpatialSlideDriver, CoordinateDriver)) and \
                    _rail_of(inner) is not None:
                b1, c, u = _rail_of(inner)
                b = inner.bodies[1]
                # Along the axis, beside body 2's point (the axis in body-2 coordinates).
                ug = quat_rotate(self._poses[b1][0, 3:], u)
                u2 = quat_rotate(quat_conjugate(self._poses[b][0, 3:]), ug)
                p2 = _joint_frames(inner)[1][1]
                mine = self.local.get(b)
                if mine is not None and len(mine):
                    p2 = mine.mean(axis=0)
                centre = p2 + 1.6 * s * _perp(u2)
                template = _double_arrow(centre, u2, rho, head)
                label_parts = [(b, centre + rho * u2)]
            elif isinstance(j, SpatialDriver):
                b = j.bodies[0]
                u = {"x": _EX, "y": _EY, "z": _EZ}[j.coordinate]
                here = self._coords([(b, np.zeros(3))])[:, 0, :]
                coords = here[:, None, :] + _double_arrow(np.zeros(3), u, rho, head)[None]
                art = self._line(coords, color=DRIVER_COLOR, linewidth=2.0, zorder=7)
                where = (here + 1.2 * rho * u)[:, None, :]
                template = None
            else:  # a driver this module does not draw: mark where it acts
                parts = self._anchor_parts(j)
                b, c = parts[0]
                template = c[None, :]
                label_parts = [(b, c)]
            if template is not None:
                style = {"color": DRIVER_COLOR, "linewidth": 2.0, "zorder": 7}
                if len(template) == 1:
                    style.update(linestyle="none", marker="o", markersize=12,
                                 markerfacecolor="none", markeredgewidth=2.0)
                art, _ = self._add_line([(b, template)], **style)
                where = self._coords(label_parts)
        text = self._text(where, j.name or j.label, color=DRIVER_COLOR, fontsize=9,
                          fontweight="bold", ha="left", va="bottom", zorder=9,
                          bbox={"boxstyle": "round,pad=0.15", "fc": "white", "ec": "none",
                                "alpha": 0.7})
        self.drivers[j] = (art, text)

    def _anchor_parts(self, j: Joint) -> list:
        """Body points that locate a joint on the drawing (for drivers and highlights)."""
        parts = list(_attachments(j))
        tgt = _target(j)
        if tgt is not None:
            parts.append(tgt)
        if parts:
            return parts
        if isinstance(j, SpatialDistanceDriver):
            return [(b, p) for b, p, _ in _joint_frames(j)]
        inner = getattr(j, "joint", None)
        if isinstance(inner, Joint):
            axis = _axis_of(inner) or _rail_of(inner)
            if axis is not None:
                return [(axis[0], axis[1])]
            return self._anchor_parts(inner)
        if isinstance(j, AngleCoupler):
            return [p for r in j.revolutes for p in self._anchor_parts(r)]
        frames = _joint_frames(j)
        if frames:
            return [(b, p) for b, p, _ in frames]
        moving = [b for b in j.bodies if not b.is_ground] or list(j.bodies)
        return [(b, np.zeros(3)) for b in moving] or [(self.mechanism.ground, np.zeros(3))]

    def _anchor_coords(self, j: Joint) -> np.ndarray:
        if isinstance(j, SerialChain):
            return self._chain_coords(j)[:, -1:, :]  # the tool
        return self._coords(self._anchor_parts(j))

    def _set_limits(self, s: float, view, zoom: float) -> None:
        ax = self.ax
        pts = np.concatenate(self._extent) if self._extent else np.zeros((1, 3))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if not len(pts):
            pts = np.zeros((1, 3))
        lo, hi = pts.min(axis=0), pts.max(axis=0)
        span = max(float(np.max(hi - lo)), 1e-9)
        pad = 0.04 * span + s
        # Equal scaling: a thin extent still gets some depth, and the box has the ranges'
        # proportions, so a unit is as long along every axis.
        half = np.maximum(0.5 * (hi - lo) + pad, 0.12 * span)
        mid = 0.5 * (lo + hi)
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

    def _display(self, xyz) -> np.ndarray:
        """Display coordinates (pixels) of a global point in the current view."""
        from mpl_toolkits.mplot3d import proj3d

        ax = self.ax
        x, y, _ = proj3d.proj_transform(*np.asarray(xyz, float), ax.get_proj())
        return ax.transData.transform((float(x), float(y)))

    def _highlight(self, result, highlight, tol: float) -> None:
        chosen, residuals = _failed_joints(self.mechanism, result, highlight, tol)
        ax = self.ax
        ax.apply_aspect()
        scale = 72.0 / ax.figure.dpi
        bbox = ax.get_window_extent()
        xmid = 0.5 * (bbox.x0 + bbox.x1)
        boxes: list = []
        for j in chosen:
            coords = self._anchor_coords(j)
            line = self._line(coords, **_HIGHLIGHT_LINE)
            anchor = coords[self.frame, 0]
            text = _note_text(j, residuals)
            a = self._display(anchor)
            right = bool(a[0] <= xmid)
            dx, dy = _note_offset(a * scale, right, text, boxes)
            note = _Note3D(text, anchor, xytext=(dx, dy), textcoords="offset points",
                           ha="left" if right else "right", **_NOTE_STYLE)
            note.set_transform(IdentityTransform())
            note.set_clip_on(False)
            ax.add_artist(note)
            self._moving.append(_Moving(note, coords[:, :1, :], "note"))
            self.highlights[j] = (line, note)
            if j in self.drivers:  # the red label names it
                self.drivers[j][1].set_visible(False)


def fit_figure(ax, width: float = 6.4, margin: float = 0.1, side_margin: float = 0.12) -> None:
    """Size ``ax.figure`` to the drawing's box as seen, ``width`` inches wide.

    An mplot3d Axes is always square; a flat drawing (a slider-crank seen from the side)
    would leave bands of white above and below it. The figure is made as high as the box
    looks (plus ``margin``, a fraction of the width, for the ticks) and the square Axes,
    ``1 - side_margin`` of the width wide, is centred on the box, reaching past the top and
    bottom of the figure where nothing is drawn.
    """
    from mpl_toolkits.mplot3d import proj3d

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


# -- entry points (from mechsolve.plot) --------------------------------------------------------
def draw(mech, ax=None, *, states=None, trace=(), trace_paths=None, travel=None, shapes=None,
         result=None, highlight=(), tol: float = 1e-10, names: bool = False,
         ground: bool = True, drivers: bool = True, frames: bool = False,
         joint_axes: bool = True, view=None):
    """Draw a spatial mechanism; the arguments are checked by :func:`mechsolve.plot.draw`.

    Returns the 3D Axes; ``mechsolve.plot.get_drawing(ax)`` is the :class:`Drawing3D`.

    Examples
    --------
    >>> import mechsolve as ms
    >>> from matplotlib.figure import Figure
    >>> model = ms.models_spatial.spherical_fourbar()
    >>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(projection="3d"), frames=True)
    >>> drawing = ms.plot.get_drawing(ax)
    >>> sorted(body.name for body in drawing.bodies), len(drawing.triads)
    (['coupler', 'crank', 'rocker'], 3)
    """
    if ax is not None:
        _check_3d_axes(ax)
    drawing = Drawing3D(mech, ax, states=states, trace=trace, trace_paths=trace_paths,
                        grow_traces=False, shapes=shapes, names=names, show_ground=ground,
                        show_drivers=drivers, result=result, highlight=highlight, tol=tol,
                        travel=travel, body_frames=frames, joint_axes=joint_axes, view=view)
    return drawing.ax


def animate(mech, motion, trace, idx, *, interval: float = 40, ax=None, figsize=None,
            shapes=None, names: bool = False, axis: bool = True, show_value: bool = True,
            blit: bool = False, repeat: bool = True, body_frames: bool = False,
            joint_axes: bool = True, view=None):
    """Animate a spatial sweep; the arguments are checked by :func:`mechsolve.plot.animate`.

    ``idx`` are the motion poses of the frames. Returns a ``MechanismAnimation`` whose
    ``drawing`` is a :class:`Drawing3D`.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models_spatial.bricard()
    >>> motion = model.mechanism.sweep(model.driver, model.values)
    >>> anim = ms.plot.animate(model.mechanism, motion, frames=5)
    >>> anim.indices.tolist()
    [0, 15, 30, 45, 60]
    >>> import pathlib, tempfile
    >>> anim.save(pathlib.Path(tempfile.mkdtemp()) / "bricard.gif", dpi=20)
    >>> import matplotlib.pyplot as plt; plt.close(anim.drawing.ax.figure)
    """
    new_figure = ax is None
    if new_figure:
        import matplotlib.pyplot as plt

        ax = plt.figure(figsize=figsize or (6.4, 5.6)).add_subplot(projection="3d")
    _check_3d_axes(ax)
    fig = ax.figure
    drawing = Drawing3D(mech, ax, states=np.asarray(motion.states, dtype=float), trace=trace,
                        grow_traces=True, shapes=shapes, names=names, body_frames=body_frames,
                        joint_axes=joint_axes, view=view,
                        zoom=(0.92 if axis else 1.2) if new_figure else 1.0)
    if not axis:
        ax.set_axis_off()
    if new_figure:
        if figsize is None:
            fit_figure(ax, 6.4, 0.12 if axis else 0.04)
        else:
            fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0, top=1.0)
    value_text = None
    texts: list[str] = []
    if show_value:
        # In figure coordinates: a fitted figure shows only the middle of its square Axes.
        value_text = fig.text(0.015, 0.975, "", **_plot._VALUE_STYLE)
        texts = _plot._value_texts(motion)

    return _plot._make_animation(fig, drawing, motion, idx, value_text, texts,
                                 interval=interval, blit=blit, repeat=repeat)
