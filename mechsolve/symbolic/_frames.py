"""Symbols for the joined bodies, and small symbolic frame helpers to write Phi with.

A planar body's coordinates are the symbols ``x``, ``y`` and ``theta`` of its pose; its Newton
increment is the same three numbers, so the map from increment to coordinates is the identity.

A spatial body's coordinates are its position ``x, y, z`` and its unit quaternion
``qw, qx, qy, qz`` (Actin's order); its Newton increment is ``(dr, dphi)``, six numbers, with
``dphi`` a *global* rotation vector applied as ``q <- exp(dphi) q`` (see
:meth:`mechsolve._system.System.retract`). To first order ``exp(dphi) q = q + 1/2 [0; dphi] q``,
so the map from increment to coordinates is::

    d(x, y, z) / d(dr)          = I
    d(qw, qx, qy, qz) / d(dphi) = 1/2 [[-qx, -qy, -qz],
                                       [ qw,  qz, -qy],
                                       [-qz,  qw,  qx],
                                       [ qy, -qx,  qw]]

:func:`increment_map` builds it; :mod:`mechsolve.symbolic._derive` multiplies the coordinate
Jacobian by it. The rotation matrix ``R(q)`` is written with the Actin guide's formula (the one
of :func:`mechsolve.spatial._quat.quat_to_matrix`), which is a rotation on the unit sphere; the
derivatives the derivation takes are tangent to the sphere, so no normalisation enters.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["PlanarFrame", "PlanarBodySymbols", "SpatialFrame", "SpatialBodySymbols",
           "BodySymbols", "body_symbols", "increment_map", "quat_multiply", "quat_conjugate",
           "quat_to_matrix", "quat_from_axis_angle"]


def _expr(value, what: str) -> sp.Expr:
    try:
        out = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"{what} must be a number or a SymPy expression, got "
                        f"{type(value).__name__} {value!r}") from None
    if not isinstance(out, sp.Expr):
        raise TypeError(f"{what} must be a SymPy expression, got {type(out).__name__} {out!r}")
    return out


def _vector(values, n: int, what: str) -> tuple[sp.Expr, ...]:
    """``n`` SymPy expressions from a sequence (or a flat Matrix) of numbers or expressions."""
    if isinstance(values, sp.MatrixBase):
        if 1 not in values.shape:
            raise ValueError(f"{what} must be a flat vector of {n}, got a "
                             f"{values.rows}x{values.cols} Matrix")
        values = list(values)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__len__"):
        raise TypeError(f"{what} must be a sequence of {n} numbers or SymPy expressions, got "
                        f"{type(values).__name__} {values!r}")
    if len(values) != n:
        raise ValueError(f"{what} must have {n} components, got {len(values)}")
    return tuple(_expr(v, f"{what}[{i}]") for i, v in enumerate(values))


def increment_map(coordinates) -> sp.Matrix:
    """``d coordinates / d increment`` of one body slot, in terms of its coordinate symbols.

    Parameters
    ----------
    coordinates : sequence of sympy.Symbol
        A planar pose ``(x, y, theta)`` (3 symbols: the 3x3 identity) or a spatial pose
        ``(x, y, z, qw, qx, qy, qz)`` (7 symbols: a 7x6 matrix, the identity on the position
        and ``1/2 [0; dphi] q`` on the quaternion, see the module docstring).

    Returns
    -------
    sympy.Matrix

    Examples
    --------
    >>> import sympy as sp
    >>> from mechsolve.symbolic import increment_map
    >>> T = increment_map(sp.symbols("x y z qw qx qy qz"))
    >>> T.shape, T[3, 3:]
    ((7, 6), Matrix([[-qx/2, -qy/2, -qz/2]]))
    """
    coordinates = tuple(coordinates)
    if len(coordinates) == 3:
        return sp.eye(3)
    if len(coordinates) != 7:
        raise ValueError(f"a body slot has 3 (planar) or 7 (spatial) coordinates, got "
                         f"{len(coordinates)}")
    w, x, y, z = coordinates[3:]
    half = sp.Rational(1, 2)
    T = sp.zeros(7, 6)
    T[0, 0] = T[1, 1] = T[2, 2] = 1
    T[3:, 3:] = half * sp.Matrix([[-x, -y, -z], [w, z, -y], [-z, w, x], [y, -x, w]])
    return T


def quat_multiply(a, b) -> sp.Matrix:
    """Hamilton product ``a b`` of two symbolic quaternions ``(w, x, y, z)``.

    Examples
    --------
    >>> from mechsolve.symbolic import quat_multiply
    >>> quat_multiply((0, 1, 0, 0), (0, 0, 1, 0)).T          # i j = k
    Matrix([[0, 0, 0, 1]])
    """
    aw, ax, ay, az = _vector(a, 4, "a")
    bw, bx, by, bz = _vector(b, 4, "b")
    return sp.Matrix([aw * bw - ax * bx - ay * by - az * bz,
                      aw * bx + ax * bw + ay * bz - az * by,
                      aw * by - ax * bz + ay * bw + az * bx,
                      aw * bz + ax * by - ay * bx + az * bw])


def quat_conjugate(q) -> sp.Matrix:
    """``(w, -x, -y, -z)``: the inverse rotation of a unit quaternion.

    Examples
    --------
    >>> import sympy as sp
    >>> from mechsolve.symbolic import quat_conjugate
    >>> quat_conjugate(sp.symbols("w x y z")).T
    Matrix([[w, -x, -y, -z]])
    """
    w, x, y, z = _vector(q, 4, "q")
    return sp.Matrix([w, -x, -y, -z])


def quat_to_matrix(q) -> sp.Matrix:
    """The rotation matrix of a unit quaternion ``(w, x, y, z)`` (the Actin guide's formula).

    Examples
    --------
    >>> import sympy as sp
    >>> from mechsolve.symbolic import quat_to_matrix
    >>> quat_to_matrix(sp.symbols("w x y z"))[0, :]
    Matrix([[-2*y**2 - 2*z**2 + 1, -2*w*z + 2*x*y, 2*w*y + 2*x*z]])
    """
    w, x, y, z = _vector(q, 4, "q")
    return sp.Matrix([
        [1 - 2 * (y**2 + z**2), 2 * (x * y - w * z), 2 * (x * z + w * y)],
        [2 * (x * y + w * z), 1 - 2 * (x**2 + z**2), 2 * (y * z - w * x)],
        [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x**2 + y**2)]])


def quat_from_axis_angle(axis, angle) -> sp.Matrix:
    """``(cos(angle/2), sin(angle/2) axis)``: the rotation by ``angle`` about a unit ``axis``.

    Examples
    --------
    >>> import sympy as sp
    >>> from mechsolve.symbolic import quat_from_axis_angle
    >>> quat_from_axis_angle((0, 0, 1), sp.Symbol("a")).T
    Matrix([[cos(a/2), 0, 0, sin(a/2)]])
    """
    u = _vector(axis, 3, "axis")
    half = _expr(angle, "angle") / 2
    s = sp.sin(half)
    return sp.Matrix([sp.cos(half), s * u[0], s * u[1], s * u[2]])


class PlanarFrame:
    """A planar frame given by SymPy expressions: origin ``(x, y)`` and angle ``theta``.

    Frames compose: ``body.frame(fx, fy, fa)`` is the frame at local pose ``(fx, fy, fa)`` of
    ``body`` (a precursor frame, for instance), and its :meth:`to_global` maps that frame's local
    points to global coordinates.

    Examples
    --------
    >>> import sympy as sp
    >>> from mechsolve.symbolic import body_symbols
    >>> (b,) = body_symbols(1)
    >>> b.to_global(1, 0).T
    Matrix([[x1 + cos(theta1), y1 + sin(theta1)]])
    """

    def __init__(self, x, y, theta) -> None:
        self.x = _expr(x, "x")
        self.y = _expr(y, "y")
        self.theta = _expr(theta, "theta")

    @property
    def position(self) -> sp.Matrix:
        """The origin ``(x, y)`` as a column Matrix."""
        return sp.Matrix([self.x, self.y])

    @property
    def rotation(self) -> sp.Matrix:
        """The 2x2 rotation matrix ``R(theta)``."""
        c, s = sp.cos(self.theta), sp.sin(self.theta)
        return sp.Matrix([[c, -s], [s, c]])

    def rotate(self, vx, vy) -> sp.Matrix:
        """Global components of the local vector ``(vx, vy)``: ``R v``."""
        # Written out: a Matrix product would import SymPy's polys on a warm-cache run.
        vx, vy = _expr(vx, "vx"), _expr(vy, "vy")
        c, s = sp.cos(self.theta), sp.sin(self.theta)
        return sp.Matrix([c * vx - s * vy, s * vx + c * vy])

    def to_global(self, px, py) -> sp.Matrix:
        """Global position of the local point ``(px, py)``: ``r + R p``."""
        return self.position + self.rotate(px, py)

    def to_local(self, gx, gy) -> sp.Matrix:
        """Local coordinates of the global point ``(gx, gy)``: ``R^T (g - r)``."""
        dx, dy = _expr(gx, "gx") - self.x, _expr(gy, "gy") - self.y
        c, s = sp.cos(self.theta), sp.sin(self.theta)
        return sp.Matrix([c * dx + s * dy, -s * dx + c * dy])

    def frame(self, x, y, theta) -> PlanarFrame:
        """The frame at local pose ``(x, y, theta)`` of this frame (composition)."""
        origin = self.to_global(x, y)
        return PlanarFrame(origin[0], origin[1], self.theta + _expr(theta, "theta"))

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.x}, {self.y}, {self.theta})"


class BodySymbols:
    """Base of the symbolic stand-ins for a joined body (one per joint slot).

    Subclasses give :attr:`coordinates` (the state entries the kernel reads from ``X``),
    :attr:`increment_size` and :meth:`increment_map` (``d coordinates / d increment``).
    """

    dim: int
    increment_size: int
    coordinates: tuple[sp.Symbol, ...]

    def increment_map(self) -> sp.Matrix:
        """``d coordinates / d increment``, shape ``(len(coordinates), increment_size)``."""
        return increment_map(self.coordinates)

    def _symbols(self, label, names) -> tuple:
        """Set ``self.label`` and make the symbols ``{name}{label}`` (``{name}_{label}`` for a
        label that is not a number)."""
        label = str(label)
        if not label:
            raise ValueError("a body label must be a non-empty string")
        sep = "" if label.isdigit() else "_"
        self.label = label
        out = sp.symbols(" ".join(f"{n}{sep}{label}" for n in names))
        for s in out:
            _OWNERS.setdefault(s, set()).add((self.dim, label))
        return out


#: Body coordinate symbols made so far -> ``{(dim, label)}`` of the bodies that made them (a
#: planar and a spatial body of the same label share ``x``, ``y``): lets a definition that uses
#: a coordinate of a body of the other dimension say so.
_OWNERS: dict[sp.Symbol, set[tuple[int, str]]] = {}


def symbol_owners(symbol: sp.Symbol) -> set[tuple[int, str]]:
    """``{(dim, label)}`` of the bodies from :func:`body_symbols` that have ``symbol`` as a
    coordinate (empty for any other symbol)."""
    return _OWNERS.get(symbol, set())


class PlanarBodySymbols(PlanarFrame, BodySymbols):
    """The pose symbols ``x``, ``y``, ``theta`` of one planar body (a joint slot).

    Parameters
    ----------
    label : str
        Suffix of the symbol names: ``x{label}`` for a number, ``x_{label}`` otherwise.
    """

    dim = 2
    increment_size = 3

    def __init__(self, label) -> None:
        xs, ys, ts = self._symbols(label, ("x", "y", "theta"))
        super().__init__(xs, ys, ts)
        self.coordinates = (xs, ys, ts)

    def increment_map(self) -> sp.Matrix:
        """Planar increments are the coordinates themselves: the 3x3 identity."""
        return increment_map(self.coordinates)

    def __repr__(self) -> str:
        return f"PlanarBodySymbols({self.label!r}: {self.x}, {self.y}, {self.theta})"


def _point(args, what: str) -> tuple[sp.Expr, ...]:
    """Three components given as three arguments or as one sequence of three."""
    if len(args) == 1 and (isinstance(args[0], sp.MatrixBase)
                           or (hasattr(args[0], "__len__") and not isinstance(args[0], str))):
        return _vector(args[0], 3, what)
    if len(args) != 3:
        raise TypeError(f"{what} takes three components (or one sequence of three), got "
                        f"{len(args)} arguments")
    return tuple(_expr(a, f"{what}[{i}]") for i, a in enumerate(args))


def _matvec(R: sp.Matrix, v, transpose: bool = False) -> sp.Matrix:
    # Written out: a Matrix product would import SymPy's polys on a warm-cache run.
    if transpose:
        return sp.Matrix([sum((R[k, i] * v[k] for k in range(3)), sp.S.Zero) for i in range(3)])
    return sp.Matrix([sum((R[i, k] * v[k] for k in range(3)), sp.S.Zero) for i in range(3)])


class SpatialFrame:
    """A spatial frame given by SymPy expressions: origin ``(x, y, z)`` and unit quaternion.

    Frames compose: ``body.frame(p, f)`` is the frame at local position ``p`` and local
    orientation ``f`` (a quaternion) of ``body`` (a joint frame, a precursor frame), with origin
    ``r + R p`` and orientation ``q f``. Its :meth:`to_global` maps that frame's local points to
    global coordinates.

    Parameters
    ----------
    position : sequence of 3 expressions
    quaternion : sequence of 4 expressions
        ``(w, x, y, z)``, Actin's order; expected to be of unit norm.

    Examples
    --------
    >>> from mechsolve.symbolic import body_symbols
    >>> (b,) = body_symbols(1, dim=3)
    >>> b.to_global(1, 0, 0)[1]
    2*qw1*qz1 + 2*qx1*qy1 + y1
    >>> b.frame((0, 0, 1), (0, 1, 0, 0)).quaternion.T        # turned half a turn about x
    Matrix([[-qx1, qw1, qz1, -qy1]])
    """

    def __init__(self, position, quaternion) -> None:
        self.x, self.y, self.z = _vector(position, 3, "position")
        self.qw, self.qx, self.qy, self.qz = _vector(quaternion, 4, "quaternion")
        self._rotation = None

    @property
    def position(self) -> sp.Matrix:
        """The origin ``(x, y, z)`` as a column Matrix."""
        return sp.Matrix([self.x, self.y, self.z])

    @property
    def quaternion(self) -> sp.Matrix:
        """The orientation ``(w, x, y, z)`` as a column Matrix."""
        return sp.Matrix([self.qw, self.qx, self.qy, self.qz])

    @property
    def rotation(self) -> sp.Matrix:
        """The 3x3 rotation matrix ``R(q)``, entries polynomials of the quaternion."""
        if self._rotation is None:
            self._rotation = quat_to_matrix(self.quaternion)
        return self._rotation.copy()

    def axis(self, i: int) -> sp.Matrix:
        """Global components of the frame's axis ``i`` (0: x, 1: y, 2: z), a column of ``R``."""
        if i not in (0, 1, 2):
            raise ValueError(f"axis index must be 0, 1 or 2, got {i!r}")
        return self.rotation[:, i]

    def rotate(self, *vector) -> sp.Matrix:
        """Global components of a local vector: ``R v`` (three components or one sequence)."""
        return _matvec(self.rotation, _point(vector, "vector"))

    def to_global(self, *point) -> sp.Matrix:
        """Global position of a local point: ``r + R p``."""
        return self.position + self.rotate(*point)

    def to_local(self, *point) -> sp.Matrix:
        """Local coordinates of a global point: ``R^T (g - r)``."""
        g = _point(point, "point")
        d = [g[0] - self.x, g[1] - self.y, g[2] - self.z]
        return _matvec(self.rotation, d, transpose=True)

    def frame(self, position=(0, 0, 0), quaternion=(1, 0, 0, 0)) -> SpatialFrame:
        """The frame at local ``position`` and local orientation ``quaternion`` of this frame."""
        return SpatialFrame(self.to_global(position),
                            quat_multiply(self.quaternion, _vector(quaternion, 4, "quaternion")))

    def quaternion_to(self, other: SpatialFrame) -> sp.Matrix:
        """``conj(q) q_other``: the orientation of ``other`` in this frame's coordinates.

        Twice its vector part is the usual orientation error (the rotation vector to first
        order), zero when the two frames are parallel.
        """
        if not isinstance(other, SpatialFrame):
            raise TypeError(f"other must be a SpatialFrame, got {type(other).__name__}")
        return quat_multiply(quat_conjugate(self.quaternion), other.quaternion)

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(({self.x}, {self.y}, {self.z}), "
                f"({self.qw}, {self.qx}, {self.qy}, {self.qz}))")


class SpatialBodySymbols(SpatialFrame, BodySymbols):
    """The pose symbols ``x, y, z, qw, qx, qy, qz`` of one spatial body (a joint slot).

    The Jacobian of a symbolic joint is taken with respect to the body's Newton increment
    ``(dr, dphi)`` (global rotation vector), not the raw quaternion: see
    :meth:`increment_map`.

    Parameters
    ----------
    label : str
        Suffix of the symbol names: ``x{label}`` for a number, ``x_{label}`` otherwise.
    """

    dim = 3
    increment_size = 6

    def __init__(self, label) -> None:
        coords = self._symbols(label, ("x", "y", "z", "qw", "qx", "qy", "qz"))
        super().__init__(coords[:3], coords[3:])
        self.coordinates = tuple(coords)

    def __repr__(self) -> str:
        return (f"SpatialBodySymbols({self.label!r}: ({self.x}, {self.y}, {self.z}), "
                f"({self.qw}, {self.qx}, {self.qy}, {self.qz}))")


def body_symbols(bodies=2, *, dim: int = 2) -> tuple[BodySymbols, ...]:
    """Symbolic stand-ins for the bodies a joint joins, one per slot.

    Parameters
    ----------
    bodies : int or str or sequence of str
        A count (labels ``1, 2, ...``: symbols ``x1, y1, theta1, x2, ...``), or labels
        (``"cam follower"`` gives ``x_cam, ..., theta_follower``).
    dim : int
        2 for planar bodies (pose ``x, y, theta``), 3 for spatial ones (position ``x, y, z``
        and unit quaternion ``qw, qx, qy, qz``).

    Returns
    -------
    tuple of PlanarBodySymbols or SpatialBodySymbols
        Each with its coordinate symbols and the helpers of :class:`PlanarFrame` or
        :class:`SpatialFrame` (``to_global``, ``rotate``, ``to_local``, ``frame``, ...).

    Examples
    --------
    >>> from mechsolve.symbolic import body_symbols
    >>> crank, rod = body_symbols("crank rod")
    >>> crank.coordinates
    (x_crank, y_crank, theta_crank)
    >>> (link,) = body_symbols(1, dim=3)
    >>> link.coordinates
    (x1, y1, z1, qw1, qx1, qy1, qz1)
    """
    if isinstance(dim, bool) or dim not in (2, 3):
        raise ValueError(f"dim must be 2 (planar) or 3 (spatial), got {dim!r}")
    if isinstance(bodies, bool):
        raise TypeError(f"bodies must be a count or labels, got {bodies!r}")
    if isinstance(bodies, int):
        if bodies < 1:
            raise ValueError(f"a joint joins at least one body, got {bodies}")
        labels = [str(i + 1) for i in range(bodies)]
    elif isinstance(bodies, str):
        labels = bodies.replace(",", " ").split()
    else:
        labels = [str(b) for b in bodies]
    if not labels:
        raise ValueError("body_symbols needs at least one label")
    if len(set(labels)) != len(labels):
        raise ValueError(f"body labels must be distinct, got {labels}")
    kind = PlanarBodySymbols if dim == 2 else SpatialBodySymbols
    return tuple(kind(lab) for lab in labels)
