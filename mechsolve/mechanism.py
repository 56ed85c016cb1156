"""Mechanism: bodies, joints, the flat state vector, and the solve / sweep / DOF entry points."""

from __future__ import annotations

from contextlib import contextmanager
from types import MappingProxyType

import numpy as np

from . import analysis, design
from ._collector import collector_paused
from ._compiled._runtime import check_backend
from ._deprecated import moved_function
from ._layout import StateLayout
from ._result import DEFAULT_MAX_ITERATIONS
from ._scale import characteristic_length
from ._system import System
from ._validation import MAX_ANGLE, as_angle, as_count, as_float, as_name, as_vector
from .analysis.pipeline import compiled_pose
from .analysis.rates import _cached
from .body import Body, SpatialBody, _as_quaternion
from .joints.base import DriverJoint, Joint
from .solver import SolveError, SolveResult, time_limited

#: The base class's ``_coord_refs``: a joint's own coordinates only.
_OWN_COORD_REFS = Joint._coord_refs

__all__ = ["Mechanism"]


class Mechanism:
    """Bodies and the joints between them, solved as one system (George & Guenter's MECHANISM).

    Parameters
    ----------
    dim : int
        2 for planar mechanisms (spatial mechanisms, ``dim=3``, come with the spatial joints).
    name : str, optional

    Examples
    --------
    A crank pinned to ground and driven to 30 degrees:

    >>> import numpy as np
    >>> import mechsolve as ms
    >>> mech = ms.Mechanism()
    >>> crank = mech.add_body("crank", position=(0.4, 0.1), angle=0.2)
    >>> _ = mech.add(ms.joints.Revolute(mech.ground, crank, (0, 0), (-0.5, 0)))
    >>> motor = mech.add(ms.joints.Driver(crank, "angle", np.radians(30)))
    >>> mech.solve().success
    True
    >>> crank.to_global((0.5, 0.0)).round(6)
    array([0.866025, 0.5     ])
    """

    def __init__(self, dim: int = 2, *, name: str | None = None,
                 length_scale: float | None = None) -> None:
        if isinstance(dim, bool) or dim not in (2, 3):
            raise ValueError(f"dim must be 2 (planar) or 3 (spatial), got {dim!r}")
        self.dim = dim
        self.name = as_name(name)
        self._length_scale = None
        self.length_scale = length_scale
        self._body_type = Body if dim == 2 else SpatialBody
        self.ground = self._body_type(self, "ground", None)
        self._bodies: list[Body] = []
        self._joints: list[Joint] = []
        # body states, then joint coordinates: a view of the first entries of a buffer that
        # grows in amortized chunks, so building a model of N bodies costs O(N)
        self._buffer = np.zeros(16)
        self._q = self._buffer[:0]
        self._body_names: dict[str, Body] = {}
        self._joint_names: dict[str, Joint] = {}
        self._n_joint_coords = 0
        #: ``{id(joint): offset}`` of the joints' own coordinates among them (see ``layout``)
        self._coord_offsets: dict[int, int] = {}
        self._system: System | None = None
        self._layout: StateLayout | None = None
        self.last_result: SolveResult | None = None
        #: The last two poses of the latest sweep, ``(end, before)``: a sweep started from
        #: ``end`` at a crossing of branches (a change point) carries on along the branch it
        #: arrived on (see :meth:`mechsolve.analysis.continuation._Continuation.start`);
        #: written by the sweeps, ``None`` when there is none.
        self.arrival: tuple[np.ndarray, np.ndarray] | None = None
        self.time = 0.0
        #: Velocities and accelerations computed at a state, time and driver setting (see
        #: :mod:`mechsolve.analysis.rates`): ``{"key": ..., "nu": ..., "nudot": ...}``.
        self.rates_cache: dict = {"key": None, "nu": None, "nudot": None}
        #: The units a model file declared (``{"length": "mm", "angle": "deg"}``): labels for
        #: saving and display; lengths carry no unit and angles are radians in Python.
        self.units: dict = {}
        #: Named sweeps (a model file's ``[[sweeps]]``): ``{name: NamedSweep(driver, values)}``.
        self.sweeps: dict = {}
        #: Arms placed from a model file's ``[[robots]]`` (by DH table or URDF file):
        #: ``{name: RobotEntry}``, so that saving writes the table again, not their links.
        self.robots: dict = {}

    @property
    def length_scale(self) -> float:
        """The model's characteristic length: the unit in which the solver measures lengths.

        Tolerances, rank and singularity decisions, step limits and random kicks take lengths
        divided by it (angles as they are), so a model behaves alike in any length unit. By
        default it is computed from the geometry (the spread of the joint points on every body
        and the lengths joints carry, see :func:`mechsolve._scale.characteristic_length`);
        assign a positive number to fix it, or ``None`` to go back to the default.
        """
        if self._length_scale is not None:
            return self._length_scale
        return characteristic_length(self)

    @length_scale.setter
    def length_scale(self, value) -> None:
        self._length_scale = None if value is None else as_float(value, "length_scale",
                                                                 positive=True)
        self._system = None

    # -- building -------------------------------------------------------------------------------
    @property
    def bodies(self) -> tuple[Body, ...]:
        """The moving bodies, in state order."""
        return tuple(self._bodies)

    @property
    def joints(self) -> tuple[Joint, ...]:
        """Joints and drivers, in equation order."""
        return tuple(self._joints)

    @property
    def drivers(self) -> tuple[DriverJoint, ...]:
        return tuple(j for j in self._joints if isinstance(j, DriverJoint))

    def body(self, name: str) -> Body:
        """The body called ``name``."""
        if name == "ground":
            return self.ground
        try:
            return self._body_names[name]
        except (KeyError, TypeError):
            names = [b.name for b in self._bodies]
            shown = names if len(names) <= 20 else names[:20] + ["..."]
            raise KeyError(f"no body named {name!r}; bodies are {shown}") from None

    def joint(self, name: str) -> Joint:
        """The joint or driver called ``name``."""
        try:
            return self._joint_names[name]
        except (KeyError, TypeError):
            raise KeyError(f"no joint named {name!r}") from None

    @property
    def body_names(self):
        """The moving bodies by name, a read-only mapping ``{name: Body}`` (ground is not in
        it)."""
        return MappingProxyType(self._body_names)

    @property
    def joint_names(self):
        """The named joints and drivers by name, a read-only mapping ``{name: Joint}``."""
        return MappingProxyType(self._joint_names)

    def rename(self, item, name) -> None:
        """Rename a body or joint of this mechanism (what assigning ``item.name`` does):
        names stay unique; a joint may be unnamed (``None``), a body may not, nor ground.

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> link = mech.add_body("link")
        >>> mech.rename(link, "crank")
        >>> mech.body("crank") is link, sorted(mech.body_names)
        (True, ['crank'])
        """
        if isinstance(item, Body):
            self.as_body(item)
            if item.is_ground:
                raise ValueError("the ground body cannot be renamed")
            if not isinstance(name, str) or not name:
                raise TypeError(f"name must be a non-empty string, got {name!r}")
            if name == item.name:
                return
            if name == "ground" or name in self._body_names:
                raise ValueError(f"a body named {name!r} already exists")
            del self._body_names[item.name]
            self._body_names[name] = item
            item._name = name
            return
        if not isinstance(item, Joint):
            raise TypeError(f"item must be a body or joint of this mechanism, got "
                            f"{type(item).__name__}")
        if item.mechanism is not self:
            raise ValueError(f"{item.label} is not part of this mechanism")
        name = as_name(name)
        if name == item.name:
            return
        if name is not None and name in self._joint_names:
            raise ValueError(f"a joint named {name!r} already exists")
        if item.name is not None:
            del self._joint_names[item.name]
        if name is not None:
            self._joint_names[name] = item
        item._name = name

    def _grow_state(self, at: int, values: np.ndarray) -> None:
        """Insert ``values`` into the state at index ``at``, in amortized O(len(values)) when
        ``at`` is at or near the end (only the entries after ``at`` move)."""
        size, k = self._q.size, values.size
        if size + k > self._buffer.size:
            buffer = np.zeros(max(2 * self._buffer.size, size + k))
            buffer[:size] = self._q
            self._buffer = buffer
        buffer = self._buffer
        if at < size:
            buffer[at + k:size + k] = buffer[at:size].copy()
        buffer[at:at + k] = values
        self._q = buffer[:size + k]

    def __getstate__(self) -> dict:
        state = self.__dict__.copy()
        state["_q"] = self._q.copy()
        del state["_buffer"]
        state["_system"] = None     # compiled again on first use (it holds joint classes)
        state["_layout"] = None
        return state

    def __setstate__(self, state: dict) -> None:
        state.setdefault("units", {})
        state.setdefault("sweeps", {})
        state.setdefault("robots", {})
        state["_layout"] = None
        # the offsets are keyed by the joints' ids, which a copy changes
        state["_coord_offsets"] = StateLayout.of_joints(2, 0, state["_joints"])._offsets
        if "_arrival" in state:     # pickled before 0.2
            state["arrival"] = state.pop("_arrival")
        self.__dict__.update(state)
        self._buffer = self._q

    def parameters(self) -> dict:
        """Every design parameter by name, ``{"O4.point2": array([4., 0.]), ...}``: joint
        points and axes, lengths, ratios, offsets, driver values, end-effector targets (see
        :mod:`mechsolve.design.parameters`)."""
        return design.parameters(self)

    def set_parameters(self, values) -> None:
        """Set design parameters by name between solves (see :meth:`parameters` and
        :func:`mechsolve.design.parameters.set_parameters`); all are checked before any is
        written."""
        design.set_parameters(self, values)

    def sensitivity(self, params=None, *, state=None):
        """Exact derivative of the solved pose with respect to named parameters (all of
        :meth:`parameters` by default), by implicit differentiation: a
        :class:`~mechsolve.design.Sensitivity` (see
        :func:`mechsolve.design.sensitivity.sensitivity`)."""
        return design.sensitivity(self, params, state=state)

    #: Deprecated: ``ms.save(mech, path)`` writes the model file (see :mod:`mechsolve.files`).
    save = moved_function("Mechanism.save", "mechsolve.save", "mech.save(path)",
                          "ms.save(mech, path)")

    def add_body(self, name: str, position=None, angle: float = 0.0, *,
                 orientation=None) -> Body:
        """Add a rigid body at an initial (rough) pose and return it.

        Parameters
        ----------
        name : str
            Unique name, used in reports and messages.
        position : array_like, shape (2,) or (3,)
            Initial global position of the body's local origin (default: the origin).
        angle : float
            Planar only: initial angle of the body's x axis (radians).
        orientation : Orientation, optional
            Spatial only: initial orientation (default: identity).
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        if name == "ground" or name in self._body_names:
            raise ValueError(f"a body named {name!r} already exists")
        if self.dim == 2:
            if orientation is not None:
                raise TypeError("orientation= is for spatial bodies; a planar body takes angle=")
            position = (0.0, 0.0) if position is None else position
            pose = np.empty(3)
            pose[:2] = as_vector(position, "position", 2)
            pose[2] = as_angle(angle, "angle")
        else:
            if angle != 0.0:
                raise TypeError("angle= is for planar bodies; a spatial body takes "
                                "orientation=ms.Orientation(...)")
            position = (0.0, 0.0, 0.0) if position is None else position
            quat = np.array([1.0, 0.0, 0.0, 0.0]) if orientation is None else \
                _as_quaternion(orientation)
            pose = np.concatenate([as_vector(position, "position", 3), quat])
        body = self._body_type(self, name, len(self._bodies))
        start = self._coord_start
        self._bodies.append(body)
        self._body_names[name] = body
        self._grow_state(start, pose)
        self._system = None
        self._layout = None
        return body

    def add_bodies(self, names, poses) -> list[Body]:
        """Planar bodies in bulk (the builders' path for thousands of bodies): what
        ``[add_body(n, (x, y), t) for n, (x, y, t) in zip(names, poses)]`` does, its checks
        made over all of them at once; when any fails, ``add_body`` adds them one at a time,
        so the first bad one raises its own message.

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> a, b = mech.add_bodies(["a", "b"], [[0.0, 0.0, 0.0], [1.0, 0.0, 0.5]])
        >>> b.name, b.angle
        ('b', 0.5)
        """
        names = list(names)
        try:
            Q = np.array(poses, dtype=float)
        except (TypeError, ValueError):
            Q = None
        taken = self._body_names
        if (self.dim != 2 or Q is None or Q.shape != (len(names), 3)
                or not np.isfinite(Q).all() or np.any(np.abs(Q[:, 2]) > MAX_ANGLE)
                or not all(n.__class__ is str and n for n in names)
                or len(set(names)) != len(names) or "ground" in names
                or any(n in taken for n in names)):
            return [self.add_body(n, p[:2], p[2]) for n, p in
                    zip(names, poses if Q is None or Q.ndim != 2 else Q)]
        make = self._body_type
        start, first = self._coord_start, len(self._bodies)
        with collector_paused():
            new = [make(self, n, first + i) for i, n in enumerate(names)]
        self._bodies.extend(new)
        taken.update(zip(names, new))
        self._grow_state(start, Q.ravel())
        self._system = None
        self._layout = None
        return new

    def add_joints(self, joints) -> list[Joint]:
        """Unnamed joints made for this mechanism (:meth:`Joint._many`) added in bulk: what
        ``[add(j) for j in joints]`` does; joints that are named, have coordinates or
        read others' are added one at a time by :meth:`add`.

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> a, = mech.add_bodies(["a"], [[1.0, 0.0, 0.0]])
        >>> pins = mech.add_joints([ms.joints.Revolute(mech.ground, a, (1.0, 0.0), (0.0, 0.0))])
        >>> len(mech.joints)
        1
        """
        joints = list(joints)
        kinds = set(map(type, joints))
        fast = all(issubclass(t, Joint) and not t.n_coordinates
                   and t._coord_refs is _OWN_COORD_REFS for t in kinds)
        if fast:
            for j in joints:
                if j._mechanism is not None or j._name is not None:
                    fast = False
                    break
                for b in j._bodies:
                    if b._mechanism is not self:
                        fast = False
                if not fast:
                    break
        if not fast or len(set(map(id, joints))) != len(joints):
            return [self.add(j) for j in joints]   # (one given twice: add says so)
        for j in joints:
            j._mechanism = self
        self._joints.extend(joints)
        self._system = None
        self._layout = None
        return joints

    def add_link(self, name: str, *, angle: float | None = None, orientation=None,
                 **points) -> Body:
        """Add a rigid body made from named global points and return it.

        Each keyword names a point and gives its global coordinates at the placement being
        sketched (``mech.add_link("coupler", A=(1, 0), B=(3, 1), P=(2, 2))``); every point is
        stored as a named point of the body (:attr:`Body.points`), so joints can take the
        names (``joints.Revolute(crank, coupler, "A", "A")``) and a ternary link needs no law
        of cosines. The points' distances are the link's dimensions, so give them exactly.

        Planar: the body's origin is the first point and its x axis runs from the first point
        to the second (``angle=`` overrides it; a single point gives angle 0; a second point
        coincident with the first gives no direction, and a ValueError says so unless
        ``angle=`` is given). Spatial: the origin is the first point and the
        orientation the identity unless ``orientation=`` is given.

        Parameters
        ----------
        name : str
            Unique body name.
        angle : float, optional
            Planar only: the body's angle instead of the direction first -> second point.
        orientation : Orientation, optional
            Spatial only: the body's orientation (default: identity).
        **points : array_like, shape (2,) or (3,)
            At least one named global point, in order (the first is the origin). The names
            ``name``, ``angle`` and ``orientation`` are taken by the parameters above.

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> tri = mech.add_link("coupler", A=(1.0, 0.0), B=(3.0, 0.0), P=(2.0, 1.5))
        >>> tri.position, tri.angle
        (array([1., 0.]), 0.0)
        >>> tri.point("P")
        array([1. , 1.5])
        """
        if not isinstance(name, str) or not name:
            raise TypeError(f"name must be a non-empty string, got {name!r}")
        if not points:
            raise ValueError(f"add_link({name!r}) needs at least one named point, e.g. "
                             "add_link('coupler', A=(0, 0), B=(1, 0))")
        glob = {key: as_vector(value, f"point {key!r}", self.dim)
                for key, value in points.items()}
        first, *rest = glob.values()
        if self.dim == 2:
            if orientation is not None:
                raise TypeError("orientation= is for spatial links; a planar link takes angle=")
            if angle is None:
                angle = 0.0
                if rest:
                    d = rest[0] - first
                    if d[0] == 0.0 and d[1] == 0.0:
                        a, b = list(glob)[:2]
                        raise ValueError(
                            f"add_link({name!r}): its first two points {a} and {b} coincide "
                            f"at {tuple(first.tolist())}, so they give the link no direction "
                            "for its x axis; put a distinct point second, or give angle=")
                    angle = float(np.arctan2(d[1], d[0]))
            body = self.add_body(name, first, angle)
        else:
            if angle is not None:
                raise TypeError("angle= is for planar links; a spatial link takes "
                                "orientation=ms.Orientation(...)")
            body = self.add_body(name, first, orientation=orientation)
        for key, p in glob.items():
            body.add_point(key, at=p)
        return body

    def add(self, joint: Joint) -> Joint:
        """Add a joint or driver and return it (so ``j = mech.add(Revolute(...))`` reads well)."""
        if not isinstance(joint, Joint):
            raise TypeError(f"add() takes a mechsolve joint or driver, got {type(joint).__name__}")
        if joint.mechanism is not None:
            raise ValueError(f"{joint.label} was already added to a mechanism")
        foreign = [b for b in joint.bodies if b._mechanism is not self]
        if foreign:
            b = next((b for b in foreign if not b.is_ground), foreign[0])
            raise ValueError(f"{joint.label}: body {b.name!r} belongs to another mechanism")
        if joint.name is not None and joint.name in self._joint_names:
            raise ValueError(f"a joint named {joint.name!r} already exists")
        # (a joint that reads only its own coordinates, as most do, has nothing to check)
        refs = joint._coord_refs if type(joint)._coord_refs is not _OWN_COORD_REFS else ()
        for owner, _ in refs:
            if owner is not joint and owner.mechanism is not self:
                raise ValueError(f"{joint.label} reads a coordinate of {owner.label}, which is "
                                 "not part of this mechanism")
        joint._mechanism = self
        if joint.n_coordinates:   # appended: the coordinates are in joint order (see layout)
            self._coord_offsets[id(joint)] = self._n_joint_coords
            self._grow_state(self._q.size, joint._coord_init)
            self._n_joint_coords += joint.n_coordinates
        self._joints.append(joint)
        if joint.name is not None:
            self._joint_names[joint.name] = joint
        self._system = None
        self._layout = None
        return joint

    def remove(self, joint: Joint) -> None:
        """Remove a joint or driver."""
        if joint not in self._joints:
            raise ValueError(f"{joint!r} is not part of this mechanism")
        readers = [j for j in self._joints if j is not joint
                   and any(owner is joint for owner, _ in j._coord_refs)]
        if readers:
            raise ValueError(f"{joint.label} cannot be removed while {readers[0].label} uses "
                             "its coordinates")
        drivers = [j for j in self._joints if j is not joint
                   and getattr(j, "joint", None) is joint]
        if drivers:
            raise ValueError(f"{joint.label} cannot be removed while {drivers[0].label} drives "
                             "it; remove the driver first")
        if joint.n_coordinates:
            joint._coord_init = joint.coordinates
            at = self.layout.coord_slice(joint)
            self._q = np.delete(self._q, np.arange(at.start, at.stop))
            self._buffer = self._q
            self._n_joint_coords -= joint.n_coordinates
            self._coord_offsets = None     # a new mapping (see below): layouts keep theirs
        self._joints.remove(joint)
        if self._coord_offsets is None:
            self._coord_offsets = StateLayout.of_joints(self.dim, 0, self._joints)._offsets
        if joint.name is not None:
            del self._joint_names[joint.name]
        joint._p = joint._p.copy()
        joint._mechanism = None
        self._system = None
        self._layout = None

    # -- state ----------------------------------------------------------------------------------
    @property
    def state(self) -> np.ndarray:
        """Copy of the flat state vector ``(x, y, angle)`` per body."""
        return self._q.copy()

    @state.setter
    def state(self, q) -> None:
        self._q[:] = self.checked_states(as_vector(q, "state", self._q.size)[None], "state")[0]

    def checked_states(self, Q: np.ndarray, name: str = "states") -> np.ndarray:
        """States ``(B, n_state)`` (finite, of the right length) checked as poses: planar angles
        within ``MAX_ANGLE``; spatial quaternions of unit norm within 1e-6, then normalized
        (a copy). A ValueError names the item and the body otherwise."""
        nb = len(self._bodies)
        if not nb:
            return Q
        layout = self.layout
        if self.dim == 2:
            angles = layout.rotations(Q)
            bad = np.abs(angles) > MAX_ANGLE
            if bad.any():
                i, k = np.argwhere(bad)[0]
                where = f"item {i}: " if len(Q) > 1 else ""
                raise ValueError(f"{name}: {where}the angle of body {self._bodies[k].name!r} "
                                 f"must be within +-{MAX_ANGLE:g} rad, got {angles[i, k]:g}")
            return Q
        quats = layout.rotations(Q)
        norms = np.sqrt(np.einsum("ijk,ijk->ij", quats, quats))
        bad = np.abs(norms - 1.0) > 1e-6
        if bad.any():
            i, k = np.argwhere(bad)[0]
            where = f"item {i}: " if len(Q) > 1 else ""
            raise ValueError(f"{name}: {where}the quaternion of body {self._bodies[k].name!r} "
                             f"must have norm 1 (within 1e-6), got norm {norms[i, k]:.6g}")
        Q = Q.copy()
        layout.rotations(Q)[:] = quats / norms[:, :, None]
        return Q

    @property
    def state_view(self) -> np.ndarray:
        """The state vector itself, read-only (no copy): for code that reads it often."""
        view = self._q.view()
        view.flags.writeable = False
        return view

    def state_at(self, at) -> np.ndarray:
        """A copy of the state's entries ``at`` (a slice or index from :attr:`layout`)."""
        return self._q[at].copy()

    def put_state(self, q, at=None) -> None:
        """Set the state from an array of its length, without the checks of :attr:`state`
        (for solvers, whose states are valid by construction); with ``at`` (a slice or index
        from :attr:`layout`), only those entries."""
        if at is None:
            self._q[:] = q
        else:
            self._q[at] = q

    @contextmanager
    def trying_state(self, q):
        """Put the state ``q`` for the duration of a ``with`` block; the state it had is
        restored at the end, also when the block raises."""
        saved = self._q.copy()
        self._q[:] = q
        try:
            yield self
        finally:
            self._q[:] = saved

    @property
    def n_joint_coordinates(self) -> int:
        """How many coordinates the joints carry themselves (after the bodies' in the state)."""
        return self._n_joint_coords

    @property
    def n_coordinates(self) -> int:
        """Length of the state vector (3 per planar body, 7 per spatial body, plus joint
        coordinates)."""
        return self._q.size

    @property
    def n_dof_coordinates(self) -> int:
        """Number of independent coordinates (3 per planar body, 6 per spatial body, plus the
        joints' own coordinates)."""
        return len(self._bodies) * (3 if self.dim == 2 else 6) + self._n_joint_coords

    @property
    def _coord_start(self) -> int:
        """Index in the state vector where the joints' own coordinates begin."""
        return len(self._bodies) * (3 if self.dim == 2 else 7)

    @property
    def layout(self) -> StateLayout:
        """Where each body's pose and each joint's own coordinates sit in the state (and in
        increments and velocities): a :class:`~mechsolve._layout.StateLayout`, built once per
        topology change (bodies or joints added or removed)."""
        layout = self._layout
        if layout is None:
            layout = self._layout = StateLayout(self.dim, len(self._bodies),
                                                self._coord_offsets, self._n_joint_coords)
        return layout

    @property
    def fixed_length_scale(self) -> float | None:
        """The length scale assigned to :attr:`length_scale`, or ``None`` where it is computed
        from the geometry (what a model file saves)."""
        return self._length_scale

    def parameters_changed(self) -> None:
        """Joint parameters were written in place (``joint._p``, as
        :func:`mechsolve.design.set_parameters` does): the compiled system's units (the
        model's size, which equations are lengths) follow them."""
        if self._system is not None:
            self._system._scales(self)

    def limits_changed(self) -> None:
        """A joint's limits were assigned: the compiled system looks for them again."""
        if self._system is not None:
            self._system.forget_limits()

    def system(self) -> System:
        """The compiled system (built once per topology)."""
        if self._system is None:
            if not self._joints:
                raise ValueError("the mechanism has no joints to solve")
            with collector_paused():
                self._system = System(self)
        return self._system

    def residuals(self) -> np.ndarray:
        """Phi at the current state, all equations in joint order."""
        return self.system().phi(self._q)

    def jacobian(self, dense: bool = False):
        """Jacobian of Phi at the current state (sparse CSC, or dense array)."""
        sys = self.system()
        _, vals = sys.evaluate(self._q)
        return sys.jacobian_dense(vals) if dense else sys.jacobian_sparse(vals).copy()

    # -- solving --------------------------------------------------------------------------------
    def set_time(self, t: float) -> None:
        """Set the mechanism's time: every driver with a motion profile takes its value at t."""
        self.time = as_float(t, "t")
        for d in self.drivers:
            d._set_time_value(self.time)
        for j in self._joints:
            if getattr(j, "time_dependent", False):
                j.time = self.time

    def solve(self, *, t: float | None = None, tol: float = 1e-10,
              max_iterations: int = DEFAULT_MAX_ITERATIONS,
              branch=None, time_limit: float | None = None,
              backend: str = "auto") -> SolveResult:
        """Assemble the mechanism: Newton–Raphson from the current state.

        Parameters
        ----------
        t : float, optional
            Time; drivers with motion profiles take their values at ``t`` first.
        tol : float
            Largest residual accepted, every equation in its unit: a length equation's
            residual divided by :attr:`length_scale`, an angle's in radians, on top of the
            round-off of the coordinates (a few units in the last place of the largest, which
            matters only far from the origin: see :func:`mechsolve.newton.residual_tolerance`).
            Newton also
            requires its estimate of the pose's error to be at round-off, so a regular pose
            is returned exact to about 1e-14 of the model's size.
        max_iterations : int
            Newton iteration cap (per phase: the first attempt, the joints alone, every
            driver's continuation step, the final polish); the same default
            (50) as every solving entry point.
        branch : callable, optional
            ``branch(mech) -> bool``: a condition the assembly must satisfy (e.g.
            ``lambda m: m.body("coupler").to_global((1.5, 0))[1] > 0``). When the nearest
            assembly fails it, other assemblies are searched by deflated Newton from the same
            start (see :func:`mechsolve.analysis.assemble_branch`). A reference pose is
            chosen simply by setting ``mech.state`` before solving.

        time_limit : float, optional
            Wall-clock seconds the solve may take, its searches included; past it a
            :class:`~mechsolve.SolveError` says so.
        backend : {"auto", "numpy", "numba"}
            ``"numba"``: a planar mechanism whose joints all have compiled kernels (revolute,
            fixed, prismatic, point-on-line, distance, gear, rack-and-pinion and their drivers;
            no limits, at most 200 unknowns) takes its first Newton solve as one compiled call,
            compiling it where needed (a ValueError where numba is missing); any other solve,
            and any the compiled Newton does not finish, runs on the NumPy path, with the same
            answers and messages. ``"auto"`` (default) does so where the compiled code is
            ready (compiled in this process or cached: see :func:`mechsolve.compile`);
            ``"numpy"`` always takes the NumPy path.

        Returns
        -------
        SolveResult
            ``success``, ``status`` (an int code of :class:`mechsolve.Status`),
            ``message``, ``iterations``, ``residual`` (scaled), ``residual_abs``,
            ``rank_status``, ``free_dof``, ...

        Raises
        ------
        SolveError
            When the mechanism cannot be assembled, naming the joints with the largest
            residuals; the mechanism is left as it was (state, time, driver values),
            or a limit a fully driven pose would exceed (see the notes).

        Notes
        -----
        Joint limits (``limits=`` of revolutes, prismatics, link joints) are kept by an active
        set (see :mod:`mechsolve._limits`): ``result.active_limits`` lists the limits the pose
        sits at; a pose the drivers fix beyond a limit raises :class:`~mechsolve.SolveError`
        naming the limit and by how much it would be exceeded.
        """
        tol = as_float(tol, "tol", positive=True)
        max_iterations = as_count(max_iterations, "max_iterations")
        if branch is not None and not callable(branch):
            raise TypeError(f"branch must be a callable taking the mechanism, got "
                            f"{type(branch).__name__}")
        check_backend(backend)
        if backend != "numpy" and t is None and time_limit is None and branch is None:
            # the compiled first Newton changes nothing of the mechanism until it succeeds:
            # no rollback to prepare on that path (the pipeline's decision, see
            # analysis.pipeline.compiled_pose; None sends the solve to the guarded path below)
            done = compiled_pose(self, tol, max_iterations, backend)
            if done is not None:
                self.rates_cache.update(nu=None, nudot=None)
                self._q[:] = done[0]
                result = self.last_result = done[1]
                return result
            backend = "numpy"    # the compiled Newton was tried: the NumPy pipeline decides
        with time_limited(time_limit, "solve"), self.unchanged_on_failure():
            if t is not None:
                self.set_time(t)
            self.rates_cache.update(nu=None, nudot=None)
            try:
                q, result = analysis.solve_pose(self, tol=tol, max_iterations=max_iterations,
                                                branch=branch, backend=backend)
            except SolveError as exc:
                if exc.result is not None:
                    self.last_result = exc.result
                raise
            self._q[:] = q
            self.last_result = result
            return result

    def velocity(self, *, goals=None) -> np.ndarray:
        """Generalized velocities at the current pose and time (:mod:`mechsolve.analysis.rates`).

        Planar bodies give ``(xdot, ydot, thetadot)``, spatial bodies ``(v, omega)`` (global).
        ``goals``: velocity-level goals solved with ``Phi_q nu = -Phi_t``
        (:class:`~mechsolve.joints.SpatialMomentumEndEffector`: a set of bodies' momentum),
        fixing the motions the drivers leave free.
        """
        return analysis.velocity(self, goals=goals)

    def acceleration(self) -> np.ndarray:
        """Generalized accelerations at the current pose, velocity and time."""
        return analysis.acceleration(self)

    def point_velocity(self, body: Body, point) -> np.ndarray:
        """Global velocity of a body point (body coordinates) at the current pose and time."""
        nu = _cached(self, "nu")
        nu = self.velocity() if nu is None else nu
        return analysis.point_velocity(self, self.as_body(body), point, nu)

    def point_acceleration(self, body: Body, point) -> np.ndarray:
        """Global acceleration of a body point at the current pose, velocity and time."""
        nu = _cached(self, "nu")
        nu = self.velocity() if nu is None else nu
        nudot = _cached(self, "nudot")
        nudot = self.acceleration() if nudot is None else nudot
        return analysis.point_acceleration(self, self.as_body(body), point, nu, nudot)

    def free_motions(self) -> np.ndarray:
        """The instantaneous free motions at the current pose: a ``(k, n)`` array whose
        ``labels`` name the bodies that move and how (:func:`mechsolve.analysis.free_motions`).
        """
        return analysis.free_motions(self)

    def free_motion_path(self, index: int, amplitudes, **options):
        """Poses along free motion ``index`` (chart values ``amplitudes``) that satisfy every
        constraint; the state is not changed. See :func:`mechsolve.analysis.free_motion_path`.
        """
        return analysis.free_motion_path(self, index, amplitudes, **options)

    def solve_batch(self, states=None, *, time_limit: float | None = None,
                    backend: str = "numpy", dtype: str | None = None, **options):
        """Solve many variants at once through the batch axis.

        See :func:`mechsolve.analysis.solve_batch` (per-item start states, driver values and
        joint parameters such as end-effector targets). ``time_limit`` (seconds) bounds the
        wall-clock time; past it a :class:`~mechsolve.SolveError` says so.

        ``backend="jax"`` runs the batch Newton on JAX's default device (a GPU where JAX has
        one; planar mechanisms whose joints have kernels written once, ``pip install
        "mechsolve[jax]"``), in ``dtype`` ``"float64"`` (default) or ``"float32"``: the same
        result, plus ``handed_over``, the items it left to the NumPy path (see
        :mod:`mechsolve._jax.batch`).

        ``backend="numba"`` runs the batch Newton compiled, the items over numba's threads (a
        planar mechanism whose joints all have compiled kernels, no limits, at most 200
        unknowns; see :mod:`mechsolve._compiled._batch`): the same result, plus ``backend``
        and ``handed_over``; ``"auto"`` does so where that code is compiled already (in this
        process or numba's cache), else takes the NumPy path, as does any other mechanism.
        """
        if backend not in ("numpy", "jax", "numba", "auto"):
            raise ValueError(f'backend must be "numpy", "jax", "numba" or "auto", got '
                             f'{backend!r}')
        if backend != "jax" and dtype is not None:
            raise ValueError('dtype= is for backend="jax" (the NumPy path runs in float64)')
        with time_limited(time_limit, "solve_batch"), self.unchanged_on_failure():
            if backend == "jax":
                from ._jax.batch import solve_batch  # JAX only when asked for (heavy import)
                return solve_batch(self, states, dtype=dtype, **options)
            if backend != "numpy":   # the compiled batch Newton, where it takes the system
                from ._compiled._batch import batch_runner  # numba's layer only when asked for
                runner = batch_runner(self, backend)
                if runner is not None:
                    return analysis.solve_batch(self, states, newton_step=runner, **options)
            return analysis.solve_batch(self, states, **options)

    def sweep_time(self, times, *, time_limit: float | None = None, **options):
        """Follow the drivers' motion profiles over ``times``: poses, velocities and
        accelerations in time.

        A driver moves in time once it has a motion profile (``drive.value =
        ms.profiles.ConstantSpeed(speed=2.0)``, or ``Cubic``, ``Quintic``, ``Cycloidal``,
        ``Function``, ``Expression``: see :mod:`mechsolve.profiles`); drivers without one
        hold their values. At each time the pose is solved by continuation from the previous
        one (the assembly branch is kept), then the velocities ``J nu = -Phi_t`` and the
        accelerations ``J nudot = gamma - Phi_tt``, exact from the same Jacobian. For the
        velocity per unit driver rate (no time needed), sweep the driver's values with
        :meth:`sweep` and ask ``motion.velocity(body, point, per="driver")``.

        Parameters
        ----------
        times : array_like, shape (N,)
            The times, in sweep order (seconds, or the unit of the profiles' rates).
        time_limit : float, optional
            Wall-clock limit of the sweep, in seconds.
        tol : float
            Residual tolerance of every pose (default 1e-10).
        max_iterations : int
            Newton iterations per pose (default 50; a corrector takes at most 25).
        batch : bool or "auto"
            All poses and their rates at once through the batch axis (small mechanisms;
            "auto" decides), as :meth:`sweep` does; ``False`` goes pose by pose.
        progress : callable, optional
            Called as ``progress(done, total)`` while sweeping.

        Returns
        -------
        Motion
            ``values`` (and ``times``) the times, ``states`` the poses, ``velocities`` and
            ``accelerations`` ``(N, n)``; ``motion.velocity(body, point)``,
            ``motion.acceleration(body, point)``, ``motion.body_velocity(body)`` per body.

        Raises
        ------
        ValueError
            If no driver has a motion profile.
        SweepError
            Where the drivers ask for a motion the mechanism cannot make (a toggle, a dead
            centre, a limit), naming the time; ``.motion`` holds the poses up to it.

        Notes
        -----
        On any failure (including an exception raised by a ``progress`` callback) the
        mechanism is left as it was: state, time, driver values and profiles. See
        :func:`mechsolve.analysis.sweep_time` for how singular positions on the way are
        handled, and the guide page :doc:`/motion` for profiles, velocities and velocity
        coefficients.

        Examples
        --------
        >>> import numpy as np
        >>> import mechsolve as ms
        >>> model = ms.models.fourbar()
        >>> mech = model.mechanism
        >>> model.driver.value = ms.profiles.ConstantSpeed(speed=2 * np.pi)   # a turn a second
        >>> motion = mech.sweep_time(np.linspace(0.0, 1.0, 101))
        >>> float(motion.body_velocity(mech.body("crank"))[0, 2])   # rad/s
        6.283185307179586
        >>> motion.velocity(mech.body("coupler"), (0.0, 1.0)).shape     # a coupler point, /s
        (101, 2)
        """
        with time_limited(time_limit, "sweep_time"), self.unchanged_on_failure():
            return analysis.sweep_time(self, times, **options)

    def as_driver(self, driver) -> DriverJoint:
        """``driver`` (a driver of this mechanism, or its name) as the joint; a TypeError for
        anything else, a ValueError for a driver of another mechanism."""
        if isinstance(driver, str):
            driver = self.joint(driver)
        if not isinstance(driver, DriverJoint):
            raise TypeError(f"driver must be a driver of this mechanism or its name, got "
                            f"{getattr(driver, 'label', type(driver).__name__)}")
        if driver.mechanism is not self:
            raise ValueError(f"{driver.label} is not a driver of this mechanism")
        return driver

    def as_body(self, body) -> Body:
        """``body`` checked as a body of this mechanism: a TypeError for anything but a
        :class:`Body`, a ValueError for a body of another mechanism."""
        if not isinstance(body, Body):
            raise TypeError(f"body must be a Body, got {type(body).__name__}")
        if body.mechanism is not self:
            raise ValueError(f"body {body.name!r} belongs to another mechanism")
        return body

    def dof(self):
        """Degrees-of-freedom report at the current pose (see :class:`~mechsolve.DofReport`)."""
        return analysis.dof_report(self)

    def sweep(self, driver: DriverJoint, values, *, time_limit: float | None = None,
              **options):
        """Follow the mechanism as ``driver`` takes ``values``.

        See :func:`mechsolve.analysis.sweep` for the options. ``time_limit`` (seconds) bounds
        the wall-clock time. On any failure -- a :class:`~mechsolve.SweepError` (whose
        ``.motion`` holds the poses reached), the time limit, an exception raised by a
        ``progress`` callback -- the mechanism is left as it was before the sweep: state, time,
        driver values and profiles.
        """
        with time_limited(time_limit, "sweep"):
            return analysis.sweep(self, driver, values, **options)

    @contextmanager
    def unchanged_on_failure(self):
        """Restore the state, time, driver values and profiles and time-dependent joints'
        times if the block raises (anything: a failure, a time limit, a user callback)."""
        drivers, timed = self.system().stateful_joints if self._joints else ((), ())
        saved = (self._q.copy(), self.time, [(d, d._p.copy(), d.profile) for d in drivers],
                 [(j, j.time) for j in timed])
        try:
            yield
        except BaseException:
            q, t, values, times = saved
            self._q[:] = q
            self.time = t
            for d, p, profile in values:
                d._p[:] = p
                d.profile = profile
            for j, jt in times:
                j.time = jt
            self.rates_cache.update(key=None, nu=None, nudot=None)
            raise

    def __repr__(self) -> str:
        return (f"Mechanism(dim={self.dim}, bodies={len(self._bodies)}, "
                f"joints={len(self._joints)})")
