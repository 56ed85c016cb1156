"""Rigid frames (Actin's coordinate system transformation) and Tasora's moving frames.

Over 700 lines because two classes share it: :class:`Frame` and :class:`MovingFrame`
(Tasora's ``>>`` / ``<<`` algebra needs both at hand), each method with a doctest.
"""

from __future__ import annotations

import numpy as np

from . import _quat as qk
from ._orientation import Orientation
from ._validation import (
    FrozenSlots,
    as_array,
    as_float_array,
    as_real,
    broadcast_named,
    check_finite,
    fmt_float,
    freeze,
    readonly,
    unit_quaternion,
)

__all__ = ["Frame", "MovingFrame", "FrameMismatchError"]


class FrameMismatchError(ValueError):
    """Raised when named frames are chained in a kinematically meaningless order.

    Tasora (section 5): in ``F_c_in_a = F_c_in_b >> F_b_in_a`` the frame in which the left
    operand is expressed must be the frame the right operand describes.
    """

    __module__ = "mechsolve.spatial"


def _check_name(value, name: str):
    if value is not None and not isinstance(value, str):
        raise TypeError(f"Expected {name} to be a str or None, got {type(value).__name__}")
    return value


def _label(frame) -> str:
    name = "?" if frame._name is None else repr(frame._name)
    parent = "?" if frame._parent is None else repr(frame._parent)
    return f"{name} in {parent}"


def _chain(child, parent, op: str = ">>"):
    """Check ``child >> parent`` (or ``parent * child`` if ``op == "*"``); return the names
    ``(name, parent)`` of the result."""
    if child._parent is not None and parent._name is not None and child._parent != parent._name:
        if op == "*":
            raise FrameMismatchError(
                f"cannot compose frame {_label(parent)} * frame {_label(child)}: "
                f"the right frame is expressed in {child._parent!r} but the left frame is "
                f"{parent._name!r}"
            )
        raise FrameMismatchError(
            f"cannot chain frame {_label(child)} >> frame {_label(parent)}: "
            f"the left frame is expressed in {child._parent!r} but the right frame is "
            f"{parent._name!r}"
        )
    return child._name, parent._parent


def _chain_inverse(left, right):
    """Check ``left << right`` (``left >> right.inverse()``); return the result's names."""
    if left._parent is not None and right._parent is not None and left._parent != right._parent:
        raise FrameMismatchError(
            f"cannot chain frame {_label(left)} << frame {_label(right)}: both frames must be "
            f"expressed in the same frame, got {left._parent!r} and {right._parent!r}"
        )
    return left._name, right._name


def _is_point_like(other) -> bool:
    return isinstance(other, (np.ndarray, list, tuple))


def _as_points(other, name: str = "point") -> np.ndarray:
    arr = as_float_array(other, name)
    if arr.ndim == 0 or arr.shape[-1] != 3:
        raise ValueError(
            f"Expected {name} with shape (..., 3), got array-like object with shape {arr.shape}"
        )
    return check_finite(arr, name)


def _as_orientation_array(value) -> np.ndarray:
    if isinstance(value, Orientation):
        return value.quaternion
    if _is_point_like(value):
        return unit_quaternion(
            value, "orientation", remedy="pass Orientation(q, normalize=True) to rescale"
        )
    raise TypeError(
        f"Expected orientation to be an Orientation or a quaternion (w, x, y, z), "
        f"got {type(value).__name__}"
    )


class Frame(FrozenSlots):
    """Position and orientation of an outboard frame in a reference (inboard) frame.

    Actin's ``EcCoordinateSystemTransformation``: it transforms quantities represented in the
    outboard frame into the inboard frame, ``p_ref = translation + R p_out``. May hold a
    stack of frames (translation ``(..., 3)``, quaternion ``(..., 4)``, broadcast together).

    Parameters
    ----------
    translation : array_like, shape (..., 3), default (0, 0, 0)
        Origin of the outboard frame in reference coordinates.
    orientation : Orientation or array_like (..., 4), default identity
        Orientation of the outboard frame; a raw quaternion must be unit (see
        :class:`Orientation`).
    name, parent : str, optional
        Names of this (outboard) frame and of the frame it is expressed in. When both
        operands of a composition carry names, the chain is checked and a
        :class:`FrameMismatchError` names both frames if it does not match.

    Notes
    -----
    Two equivalent notations are supported:

    * Actin's ``a * b``: ``a`` is frame A in the reference, ``b`` is frame B in A, the result is
      B in the reference; ``a * p`` transforms a point from A to the reference.
    * Tasora's left-to-right ``>>``: ``b >> a == a * b`` and ``p >> a == a * p``, so
      ``p0 = p2 >> F_21 >> F_10``; ``<<`` applies an inverse, ``F_32 = F_30 << F_10 << F_21``.

    Examples
    --------
    >>> import numpy as np
    >>> from mechsolve.spatial import Frame, Orientation
    >>> f10 = Frame((1.0, 0.0, 0.0), Orientation.from_z_rotation(np.pi / 2))
    >>> np.round(f10 * (1.0, 0.0, 0.0), 12) + 0.0
    array([1., 1., 0.])
    >>> np.round(np.array([1.0, 0.0, 0.0]) >> f10, 12) + 0.0
    array([1., 1., 0.])
    >>> (f10 * f10.inverse()).approx_eq(Frame())
    True
    """

    __array_ufunc__ = None
    __slots__ = ("_t", "_q", "_name", "_parent")

    def __init__(self, translation=(0.0, 0.0, 0.0), orientation=None, *, name=None, parent=None):
        t = as_array(translation, "translation", (3,))
        q = qk.IDENTITY if orientation is None else _as_orientation_array(orientation)
        broadcast_named({"translation": t, "orientation": q}, core=1)
        self._set(t, q, _check_name(name, "name"), _check_name(parent, "parent"))

    def _set(self, t, q, name, parent, *, copy=True):
        if t.shape[:-1] != q.shape[:-1]:
            batch = np.broadcast_shapes(t.shape[:-1], q.shape[:-1])
            t = np.broadcast_to(t, batch + (3,))
            q = np.broadcast_to(q, batch + (4,))
        self._t = readonly(t) if copy else freeze(t)
        self._q = readonly(q) if copy else freeze(q)
        self._name = name
        self._parent = parent

    @classmethod
    def _new(cls, t, q, name=None, parent=None):
        """Wrap kernel output arrays without validation or copies (internal fast path)."""
        obj = object.__new__(cls)
        obj._set(np.asarray(t, float), np.asarray(q, float), name, parent, copy=False)
        return obj

    @classmethod
    def identity(cls, *, name=None, parent=None) -> Frame:
        """The identity frame (no translation, no rotation).

        Examples
        --------
        >>> Frame.identity(name="tool", parent="flange")
        Frame((0.0, 0.0, 0.0), Orientation(w=1.0, x=0.0, y=0.0, z=0.0), name='tool',
        parent='flange')
        >>> f = Frame((1.0, 2.0, 3.0), Orientation.from_x_rotation(0.4))
        >>> (f * Frame.identity()).approx_eq(f)
        True
        """
        return cls(name=name, parent=parent)

    @classmethod
    def from_matrix(cls, matrix, *, name=None, parent=None) -> Frame:
        """From homogeneous 4x4 matrices ``[[R, t], [0, 0, 0, 1]]`` (shape ``(..., 4, 4)``).

        Examples
        --------
        >>> T = np.eye(4); T[:3, 3] = (1, 2, 3)
        >>> Frame.from_matrix(T).translation
        array([1., 2., 3.])
        """
        T = as_array(matrix, "matrix", (4, 4))
        if not np.allclose(T[..., 3, :], [0.0, 0.0, 0.0, 1.0], rtol=0.0, atol=1e-12):
            raise ValueError(
                "matrix must be homogeneous with last row (0, 0, 0, 1), "
                f"got {np.asarray(T[..., 3, :]).tolist()}"
            )
        q = Orientation.from_matrix(T[..., :3, :3]).quaternion
        return cls(T[..., :3, 3], q, name=_check_name(name, "name"), parent=parent)

    # ------------------------------------------------------------------ accessors
    @property
    def translation(self) -> np.ndarray:
        """Origin of the frame in its reference, read-only array ``(..., 3)``.

        Examples
        --------
        >>> Frame((1.0, 2.0, 3.0)).translation
        array([1., 2., 3.])
        """
        return self._t

    @property
    def orientation(self) -> Orientation:
        """Orientation of the frame in its reference.

        Examples
        --------
        >>> Frame((0, 0, 0), (0.0, 1.0, 0.0, 0.0)).orientation
        Orientation(w=0.0, x=1.0, y=0.0, z=0.0)
        """
        return Orientation._new(self._q)

    @property
    def quaternion(self) -> np.ndarray:
        """The orientation quaternion ``(w, x, y, z)``, read-only array ``(..., 4)``.

        Examples
        --------
        >>> Frame((0, 0, 0), Orientation.z_quaternion()).quaternion
        array([0., 0., 0., 1.])
        """
        return self._q

    @property
    def name(self):
        """Name of this (outboard) frame, or None.

        Examples
        --------
        >>> Frame(name="hand", parent="arm").name
        'hand'
        """
        return self._name

    @property
    def parent(self):
        """Name of the frame this one is expressed in, or None.

        Examples
        --------
        >>> Frame(name="hand", parent="arm").parent
        'arm'
        """
        return self._parent

    @property
    def shape(self) -> tuple[int, ...]:
        """Batch shape (``()`` for a single frame).

        Examples
        --------
        >>> Frame(np.zeros((5, 3))).shape
        (5,)
        """
        return self._t.shape[:-1]

    def with_names(self, name=None, parent=None):
        """A copy carrying the given frame names (both default to None, i.e. unnamed).

        Examples
        --------
        >>> f = Frame((1.0, 0.0, 0.0)).with_names("hand", "arm")
        >>> f.name, f.parent
        ('hand', 'arm')
        >>> f.inverse().name, f.inverse().parent
        ('arm', 'hand')
        """
        out = object.__new__(type(self))
        for slot in self._all_slots():
            setattr(out, slot, getattr(self, slot))
        out._name = _check_name(name, "name")
        out._parent = _check_name(parent, "parent")
        return out

    @classmethod
    def _all_slots(cls):
        slots = []
        for klass in cls.__mro__:
            slots.extend(getattr(klass, "__slots__", ()))
        return slots

    def as_matrix(self) -> np.ndarray:
        """Homogeneous 4x4 matrices ``(..., 4, 4)``.

        Examples
        --------
        >>> Frame((1, 2, 3)).as_matrix()[:3, 3]
        array([1., 2., 3.])
        """
        T = np.zeros(self.shape + (4, 4))
        T[..., :3, :3] = qk.quat_to_matrix(self._q)
        T[..., :3, 3] = self._t
        T[..., 3, 3] = 1.0
        return T

    def as_frame(self) -> Frame:
        """The plain :class:`Frame` (position and orientation only).

        Examples
        --------
        >>> m = MovingFrame((1.0, 2.0, 3.0), velocity=(0.0, 1.0, 0.0), name="a", parent="b")
        >>> m.as_frame()
        Frame((1.0, 2.0, 3.0), Orientation(w=1.0, x=0.0, y=0.0, z=0.0), name='a', parent='b')
        """
        return Frame._new(self._t, self._q, self._name, self._parent)

    # ------------------------------------------------------------------ algebra
    def inverse(self) -> Frame:
        """The inverse transformation (reference expressed in this frame); names swap.

        ``(t, R)`` becomes ``(-R^T t, R^T)``.

        Examples
        --------
        >>> f = Frame((1.0, 0.0, 0.0), Orientation.from_z_rotation(np.pi / 2))
        >>> np.round(f.inverse().translation, 12) + 0.0
        array([0., 1., 0.])
        >>> (f.inverse() * f).approx_eq(Frame.identity())
        True
        """
        t, q = qk.frame_inverse(self._t, self._q)
        return Frame._new(t, q, self._parent, self._name)

    def transform_point(self, points) -> np.ndarray:
        """Points ``(..., 3)`` from this frame to its reference: ``t + R p``.

        Same as ``self * points`` and ``points >> self``.

        Examples
        --------
        >>> f = Frame((1.0, 0.0, 0.0), Orientation.from_z_rotation(np.pi / 2))
        >>> np.round(f.transform_point([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0]]), 12) + 0.0
        array([[1., 1., 0.],
               [1., 0., 0.]])
        """
        return qk.frame_apply(self._t, self._q, _as_points(points, "points"))

    def transform_direction(self, vectors) -> np.ndarray:
        """Free vectors ``(..., 3)`` from this frame to its reference (rotation only): ``R v``.

        Examples
        --------
        >>> f = Frame((1.0, 0.0, 0.0), Orientation.from_z_rotation(np.pi / 2))
        >>> np.round(f.transform_direction((1.0, 0.0, 0.0)), 12) + 0.0   # no translation
        array([0., 1., 0.])
        """
        return qk.quat_rotate(self._q, _as_points(vectors, "vectors"))

    def inverse_transform_point(self, points) -> np.ndarray:
        """Points from the reference into this frame: ``R^T (p - t)``.

        Inverse of :meth:`transform_point`; same as ``points << self``.

        Examples
        --------
        >>> f = Frame((1.0, 0.0, 0.0), Orientation.from_z_rotation(np.pi / 2))
        >>> np.round(f.inverse_transform_point(f.transform_point((0.3, 0.2, 0.1))), 12)
        array([0.3, 0.2, 0.1])
        """
        p = _as_points(points, "points")
        return qk.quat_rotate_inverse(self._q, p - self._t)

    def __mul__(self, other):
        if type(other) is Frame:
            name, parent = _chain(other, self, "*")
            t, q = qk.frame_compose(self._t, self._q, other._t, other._q)
            return Frame._new(t, q, name, parent)
        if _is_point_like(other):
            return self.transform_point(other)
        return NotImplemented

    def __rshift__(self, other):
        if type(other) is Frame:
            name, parent = _chain(self, other, ">>")
            t, q = qk.frame_compose(other._t, other._q, self._t, self._q)
            return Frame._new(t, q, name, parent)
        return NotImplemented

    def __rrshift__(self, other):
        if _is_point_like(other):
            return self.transform_point(other)
        return NotImplemented

    def __lshift__(self, other):
        if type(other) is Frame:
            name, parent = _chain_inverse(self, other)
            ti, qi = qk.frame_inverse(other._t, other._q)
            t, q = qk.frame_compose(ti, qi, self._t, self._q)
            return Frame._new(t, q, name, parent)
        return NotImplemented

    def __rlshift__(self, other):
        if _is_point_like(other):
            return self.inverse_transform_point(other)
        return NotImplemented

    def __eq__(self, other):
        """Exact equality of every component and of the names."""
        if type(other) is not type(self):
            return NotImplemented
        if (self._name, self._parent) != (other._name, other._parent):
            return False
        return all(
            getattr(self, s).shape == getattr(other, s).shape
            and bool(np.array_equal(getattr(self, s), getattr(other, s)))
            for s in self._all_slots()
            if s not in ("_name", "_parent")
        )

    __hash__ = None

    def approx_eq(self, other: Frame, tol: float = 1e-9):
        """True where translations differ by at most ``tol`` (2-norm) and orientations agree.

        Orientations are compared as in :meth:`Orientation.approx_eq` (``q`` and ``-q``
        match). Returns a bool for single frames, a bool array for stacks. Names are not
        compared.

        Examples
        --------
        >>> q = Orientation.from_y_rotation(0.5)
        >>> Frame((1.0, 0.0, 0.0), q).approx_eq(Frame((1.0, 0.0, 1e-12), -q.quaternion))
        True
        >>> Frame((1.0, 0.0, 0.0), q).approx_eq(Frame((1.0, 0.0, 1e-6), q))
        False
        """
        if not isinstance(other, Frame):
            raise TypeError(f"Expected other to be a Frame, got {type(other).__name__}")
        tol = as_real(tol, "tol")
        res = (np.linalg.norm(self._t - other._t, axis=-1) <= tol) & np.asarray(
            self.orientation.approx_eq(other.orientation, tol)
        )
        return bool(res) if res.ndim == 0 else res

    def _names_repr(self) -> str:
        out = ""
        if self._name is not None:
            out += f", name={self._name!r}"
        if self._parent is not None:
            out += f", parent={self._parent!r}"
        return out

    def __repr__(self) -> str:
        if not self.shape:
            t = ", ".join(fmt_float(v) for v in self._t)
            return f"{type(self).__name__}(({t}), {self.orientation!r}{self._names_repr()})"
        return f"{type(self).__name__}(shape={self.shape}{self._names_repr()})"


# ---------------------------------------------------------------------- moving frames
def moving_compose(child, parent):
    """Kernel of ``child >> parent`` for moving frames (Tasora Eqs. 4-12).

    ``child`` (frame a in b) and ``parent`` (frame b in c) are 6-tuples of stacked arrays
    ``(r, q, v, w, acc, alpha)``: position, quaternion, velocity and acceleration of the origin
    in the parent's coordinates, angular velocity and acceleration in the frame's own (local)
    coordinates. Returns the 6-tuple of frame a in c.

    The quaternion products of Eqs. (7)-(12) are evaluated in their equivalent vector form
    (rotation of the relative terms by ``q_bc``), which is cheaper and avoids the scalar parts
    that Eqs. (7) and (10) silently drop.
    """
    r1, q1, v1, w1, a1, al1 = child
    r2, q2, v2, w2, a2, al2 = parent
    w2xr1 = qk.cross(w2, r1)
    vb = w2xr1 + v1
    ab = qk.cross(al2, r1) + qk.cross(w2, w2xr1) + 2.0 * qk.cross(w2, v1) + a1
    r = r2 + qk.quat_rotate(q2, r1)
    q = qk.quat_multiply(q2, q1)
    v = v2 + qk.quat_rotate(q2, vb)
    acc = a2 + qk.quat_rotate(q2, ab)
    w2a = qk.quat_rotate_inverse(q1, w2)
    w = w2a + w1
    alpha = qk.quat_rotate_inverse(q1, al2) + qk.cross(w2a, w1) + al1
    return r, q, v, w, acc, alpha


def moving_inverse(frame):
    """Kernel of the moving-frame inverse (Tasora Eqs. 19-23), vector form.

    For frame a in b ``(r, q, v, w, acc, alpha)`` returns frame b in a.
    """
    r, q, v, w, acc, alpha = frame
    qc = qk.quat_conjugate(q)
    s = qk.quat_rotate(qc, r)
    vb = qk.quat_rotate(qc, v)
    ab = qk.quat_rotate(qc, acc)
    wxs = qk.cross(w, s)
    ri = -s
    vi = wxs - vb
    ai = qk.cross(alpha, s) - qk.cross(w, wxs) + 2.0 * qk.cross(w, vb) - ab
    wi = -qk.quat_rotate(q, w)
    ali = -qk.quat_rotate(q, alpha)
    return ri, qc, vi, wi, ai, ali


_ZERO3 = np.zeros(3)
_ZERO3.flags.writeable = False


class MovingFrame(Frame):
    """A frame with position, rotation, velocity and acceleration (Tasora's moving frame).

    ``F_3in0 = F_3in2 >> F_2in1 >> F_1in0`` composes left to right, carrying velocities and
    accelerations through the chain (Tasora Eqs. 4-12); ``F.inverse()`` is Eqs. 19-23 and
    ``A << B`` is ``A >> B.inverse()``, so ``F_32 = F_30 << F_10 << F_21``. Points go through
    with ``p0 = p2 >> F_21 >> F_10`` (positions only). A plain :class:`Frame` mixes in as a
    frame at rest. Actin's ``a * b`` (``== b >> a``) also works.

    Parameters
    ----------
    translation : array_like (..., 3)
        Position of the origin in the parent frame.
    orientation : Orientation or array_like (..., 4)
        Rotation of the frame in the parent frame.
    velocity, acceleration : array_like (..., 3)
        Velocity and acceleration of the origin, parent coordinates (time derivatives of
        ``translation``).
    angular_velocity, angular_acceleration : array_like (..., 3)
        Angular velocity and acceleration of the frame relative to the parent, in the frame's
        own (local) coordinates as in Tasora's paper, or in parent coordinates if
        ``angular_in="parent"``. (The parent-coordinate angular acceleration is ``R alpha``.)
    angular_in : {"local", "parent"}
    name, parent : str, optional
        Frame names checked at each composition (see :class:`Frame`).

    Examples
    --------
    A wheel spinning at 2 rad/s about its z-axis, mounted 1 m along x of a cart moving at
    3 m/s along y:

    >>> import numpy as np
    >>> from mechsolve.spatial import MovingFrame
    >>> wheel = MovingFrame((1.0, 0, 0), angular_velocity=(0, 0, 2.0), name="wheel",
    ...                     parent="cart")
    >>> cart = MovingFrame((0, 0, 0), velocity=(0, 3.0, 0), name="cart", parent="ground")
    >>> w0 = wheel >> cart
    >>> w0.velocity, w0.angular_velocity_parent
    (array([0., 3., 0.]), array([0., 0., 2.]))
    >>> rim = MovingFrame((0.5, 0, 0), name="rim", parent="wheel") >> w0
    >>> rim.velocity, rim.acceleration
    (array([0., 4., 0.]), array([-2.,  0.,  0.]))
    >>> wheel >> wheel
    Traceback (most recent call last):
    ...
    mechsolve.spatial.FrameMismatchError: cannot chain frame 'wheel' in 'cart' >> frame
    'wheel' in 'cart': the left frame is expressed in 'cart' but the right frame is 'wheel'
    """

    __slots__ = ("_v", "_w", "_a", "_al")

    def __init__(
        self,
        translation=(0.0, 0.0, 0.0),
        orientation=None,
        velocity=(0.0, 0.0, 0.0),
        angular_velocity=(0.0, 0.0, 0.0),
        acceleration=(0.0, 0.0, 0.0),
        angular_acceleration=(0.0, 0.0, 0.0),
        *,
        angular_in: str = "local",
        name=None,
        parent=None,
    ):
        t = as_array(translation, "translation", (3,))
        q = qk.IDENTITY if orientation is None else _as_orientation_array(orientation)
        v = as_array(velocity, "velocity", (3,))
        w = as_array(angular_velocity, "angular_velocity", (3,))
        a = as_array(acceleration, "acceleration", (3,))
        al = as_array(angular_acceleration, "angular_acceleration", (3,))
        broadcast_named(
            {
                "translation": t,
                "orientation": q,
                "velocity": v,
                "angular_velocity": w,
                "acceleration": a,
                "angular_acceleration": al,
            },
            core=1,
        )
        if angular_in == "parent":
            w = qk.quat_rotate_inverse(q, w)
            al = qk.quat_rotate_inverse(q, al)
        elif angular_in != "local":
            raise ValueError(f'angular_in must be "local" or "parent", got {angular_in!r}')
        self._set_moving(
            (t, q, v, w, a, al), _check_name(name, "name"), _check_name(parent, "parent")
        )

    def _set_moving(self, parts, name, parent, *, copy=True):
        parts = [np.asarray(p, dtype=float) for p in parts]
        batch = parts[0].shape[:-1]
        if any(p.shape[:-1] != batch for p in parts[1:]):
            batch = np.broadcast_shapes(*(p.shape[:-1] for p in parts))
            parts = [np.broadcast_to(p, batch + p.shape[-1:]) for p in parts]
        store = readonly if copy else freeze
        t, q, v, w, a, al = parts
        self._set(t, q, name, parent, copy=copy)
        self._v, self._w, self._a, self._al = store(v), store(w), store(a), store(al)

    @classmethod
    def _from_parts(cls, parts, name=None, parent=None):
        obj = object.__new__(cls)
        obj._set_moving(parts, name, parent, copy=False)
        return obj

    @classmethod
    def from_frame(cls, frame: Frame) -> MovingFrame:
        """A moving frame at rest at the pose of ``frame`` (a copy if it already moves).

        Examples
        --------
        >>> rest = MovingFrame.from_frame(Frame((1.0, 2.0, 3.0), name="a", parent="b"))
        >>> rest.velocity, rest.name
        (array([0., 0., 0.]), 'a')
        """
        if isinstance(frame, MovingFrame):
            return cls._from_parts(frame._parts(), frame._name, frame._parent)
        if not isinstance(frame, Frame):
            raise TypeError(f"Expected frame to be a Frame, got {type(frame).__name__}")
        return cls._from_parts(
            (frame._t, frame._q, _ZERO3, _ZERO3, _ZERO3, _ZERO3), frame._name, frame._parent
        )

    def _parts(self):
        return self._t, self._q, self._v, self._w, self._a, self._al

    @staticmethod
    def _coerce(other):
        if isinstance(other, MovingFrame):
            return other
        if isinstance(other, Frame):
            return MovingFrame.from_frame(other)
        return None

    # ------------------------------------------------------------------ accessors
    @property
    def velocity(self) -> np.ndarray:
        """Velocity of the origin in parent coordinates.

        Examples
        --------
        >>> MovingFrame(velocity=(0, 3.0, 0)).velocity
        array([0., 3., 0.])
        """
        return self._v

    @property
    def acceleration(self) -> np.ndarray:
        """Acceleration of the origin in parent coordinates.

        Examples
        --------
        >>> MovingFrame(acceleration=(0, 0, -9.81)).acceleration
        array([ 0.  ,  0.  , -9.81])
        """
        return self._a

    @property
    def angular_velocity(self) -> np.ndarray:
        """Angular velocity relative to the parent, in local (this frame's) coordinates.

        Examples
        --------
        >>> q = Orientation.from_x_rotation(np.pi / 2)
        >>> m = MovingFrame(orientation=q, angular_velocity=(0, 1.0, 0), angular_in="parent")
        >>> np.round(m.angular_velocity, 12) + 0.0   # parent y is local -z
        array([ 0.,  0., -1.])
        """
        return self._w

    @property
    def angular_acceleration(self) -> np.ndarray:
        """Angular acceleration relative to the parent, in local coordinates.

        Examples
        --------
        >>> MovingFrame(angular_acceleration=(0, 0, 2.0)).angular_acceleration
        array([0., 0., 2.])
        """
        return self._al

    @property
    def angular_velocity_parent(self) -> np.ndarray:
        """Angular velocity in parent coordinates, ``R w``.

        Examples
        --------
        >>> m = MovingFrame(orientation=Orientation.from_x_rotation(np.pi / 2),
        ...                 angular_velocity=(0, 0, 1.0))
        >>> np.round(m.angular_velocity_parent, 12) + 0.0   # local z is parent -y
        array([ 0., -1.,  0.])
        """
        return qk.quat_rotate(self._q, self._w)

    @property
    def angular_acceleration_parent(self) -> np.ndarray:
        """Angular acceleration in parent coordinates, ``R alpha`` (= d/dt of ``R w``).

        Examples
        --------
        >>> m = MovingFrame(orientation=Orientation.from_z_rotation(np.pi / 2),
        ...                 angular_acceleration=(1.0, 0, 0))
        >>> np.round(m.angular_acceleration_parent, 12) + 0.0
        array([0., 1., 0.])
        """
        return qk.quat_rotate(self._q, self._al)

    @property
    def quaternion_rate(self) -> np.ndarray:
        """``q' = q (0, w) / 2`` (inverse of Tasora Eq. 9).

        Examples
        --------
        >>> MovingFrame(angular_velocity=(0, 0, 2.0)).quaternion_rate
        array([0., 0., 0., 1.])
        """
        return qk.quat_rate_local(self._q, self._w)

    @property
    def quaternion_acceleration(self) -> np.ndarray:
        """``q''`` from the local angular velocity and acceleration (inverse of Eq. 12).

        Examples
        --------
        >>> MovingFrame(angular_velocity=(0, 0, 2.0)).quaternion_acceleration
        array([-1.,  0.,  0.,  0.])
        """
        return qk.quat_accel_local(self._q, self._w, self._al)

    def point_velocity(self, points) -> np.ndarray:
        """Velocity (parent coordinates) of points fixed in this frame at local ``points``.

        ``v + R (w x p)`` with ``w`` the local angular velocity.

        Examples
        --------
        >>> wheel = MovingFrame(velocity=(1.0, 0, 0), angular_velocity=(0, 0, -2.0))
        >>> wheel.point_velocity([(0, -0.5, 0), (0, 0.5, 0)])   # rolling: contact at rest
        array([[0., 0., 0.],
               [2., 0., 0.]])
        """
        p = _as_points(points, "points")
        return self._v + qk.quat_rotate(self._q, qk.cross(self._w, p))

    def point_acceleration(self, points) -> np.ndarray:
        """Acceleration (parent coordinates) of points fixed in this frame at local ``points``.

        ``a + R (alpha x p + w x (w x p))`` with ``w, alpha`` in local coordinates.

        Examples
        --------
        >>> spin = MovingFrame(angular_velocity=(0, 0, 2.0))
        >>> spin.point_acceleration((1.0, 0, 0))   # centripetal, w^2 r towards the axis
        array([-4.,  0.,  0.])
        """
        p = _as_points(points, "points")
        local = qk.cross(self._al, p) + qk.cross(self._w, qk.cross(self._w, p))
        return self._a + qk.quat_rotate(self._q, local)

    # ------------------------------------------------------------------ algebra
    def inverse(self) -> MovingFrame:
        """The inverse moving frame (Tasora Eqs. 19-23): the parent seen from this frame.

        Names swap; ``a >> a.inverse()`` is the identity at rest.

        Examples
        --------
        >>> cart = MovingFrame((2.0, 0, 0), velocity=(0, 3.0, 0), name="cart", parent="ground")
        >>> ground = cart.inverse()
        >>> ground.translation + 0.0, ground.velocity + 0.0, ground.name
        (array([-2.,  0.,  0.]), array([ 0., -3.,  0.]), 'ground')
        >>> (cart >> ground).approx_eq(MovingFrame())
        True
        """
        return MovingFrame._from_parts(moving_inverse(self._parts()), self._parent, self._name)

    def __rshift__(self, other):
        other_m = self._coerce(other)
        if other_m is None:
            return NotImplemented
        name, parent = _chain(self, other_m, ">>")
        parts = moving_compose(self._parts(), other_m._parts())
        return MovingFrame._from_parts(parts, name, parent)

    def __rrshift__(self, other):
        if _is_point_like(other):
            return self.transform_point(other)
        other_m = self._coerce(other)
        if other_m is None:
            return NotImplemented
        return other_m.__rshift__(self)

    def __lshift__(self, other):
        other_m = self._coerce(other)
        if other_m is None:
            return NotImplemented
        name, parent = _chain_inverse(self, other_m)
        parts = moving_compose(self._parts(), moving_inverse(other_m._parts()))
        return MovingFrame._from_parts(parts, name, parent)

    def __rlshift__(self, other):
        if _is_point_like(other):
            return self.inverse_transform_point(other)
        other_m = self._coerce(other)
        if other_m is None:
            return NotImplemented
        return other_m.__lshift__(self)

    def __mul__(self, other):
        if _is_point_like(other):
            return self.transform_point(other)
        other_m = self._coerce(other)
        if other_m is None:
            return NotImplemented
        name, parent = _chain(other_m, self, "*")
        parts = moving_compose(other_m._parts(), self._parts())
        return MovingFrame._from_parts(parts, name, parent)

    def __rmul__(self, other):
        other_m = self._coerce(other)
        if other_m is None:
            return NotImplemented
        return other_m.__mul__(self)

    def approx_eq(self, other: Frame, tol: float = 1e-9):
        """Pose as in :meth:`Frame.approx_eq`, and every velocity and acceleration within
        ``tol`` (2-norm).

        A plain Frame compares as a frame at rest.

        Examples
        --------
        >>> m = MovingFrame((1.0, 0, 0), velocity=(0, 1e-12, 0))
        >>> m.approx_eq(Frame((1.0, 0, 0))), m.approx_eq(Frame((1.0, 0, 0)), tol=1e-15)
        (True, False)
        """
        other_m = self._coerce(other)
        if other_m is None:
            raise TypeError(f"Expected other to be a Frame, got {type(other).__name__}")
        res = np.asarray(Frame.approx_eq(self, other_m, tol))
        for mine, theirs in zip(self._parts()[2:], other_m._parts()[2:], strict=True):
            res = res & (np.linalg.norm(mine - theirs, axis=-1) <= tol)
        return bool(res) if res.ndim == 0 else res

    def __repr__(self) -> str:
        if not self.shape:

            def vec(a):
                return "(" + ", ".join(fmt_float(x) for x in a) + ")"

            return (
                f"MovingFrame({vec(self._t)}, {self.orientation!r}, velocity={vec(self._v)}, "
                f"angular_velocity={vec(self._w)}, acceleration={vec(self._a)}, "
                f"angular_acceleration={vec(self._al)}{self._names_repr()})"
            )
        return super().__repr__()
