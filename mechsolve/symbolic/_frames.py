"""Symbols for the joined bodies, and small symbolic frame helpers to write Phi with.

A planar body's coordinates are the symbols ``x``, ``y`` and ``theta`` of its pose; its Newton
increment is the same three numbers, so the map from increment to coordinates is the identity.
A spatial body (later) will carry a position and a quaternion, with a 6-vector increment
``(dr, dphi)`` applied through the exponential map; :meth:`BodySymbols.increment_map` is where
that map enters the derivation, so :mod:`mechsolve.symbolic._derive` needs no change for it.
"""

from __future__ import annotations

import sympy as sp

__all__ = ["PlanarFrame", "PlanarBodySymbols", "BodySymbols", "body_symbols"]


def _expr(value, what: str) -> sp.Expr:
    try:
        out = sp.sympify(value, strict=True)
    except (sp.SympifyError, TypeError):
        raise TypeError(f"{what} must be a number or a SymPy expression, got "
                        f"{type(value).__name__} {value!r}") from None
    if not isinstance(out, sp.Expr):
        raise TypeError(f"{what} must be a SymPy expression, got {type(out).__name__} {out!r}")
    return out


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
        raise NotImplementedError


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
        label = str(label)
        if not label:
            raise ValueError("a body label must be a non-empty string")
        sep = "" if label.isdigit() else "_"
        self.label = label
        xs, ys, ts = sp.symbols(f"x{sep}{label} y{sep}{label} theta{sep}{label}")
        super().__init__(xs, ys, ts)
        self.coordinates = (xs, ys, ts)

    def increment_map(self) -> sp.Matrix:
        """Planar increments are the coordinates themselves: the 3x3 identity."""
        return sp.eye(3)

    def __repr__(self) -> str:
        return f"PlanarBodySymbols({self.label!r}: {self.x}, {self.y}, {self.theta})"


def body_symbols(bodies=2, *, dim: int = 2) -> tuple[PlanarBodySymbols, ...]:
    """Symbolic stand-ins for the bodies a joint joins, one per slot.

    Parameters
    ----------
    bodies : int or str or sequence of str
        A count (labels ``1, 2, ...``: symbols ``x1, y1, theta1, x2, ...``), or labels
        (``"cam follower"`` gives ``x_cam, ..., theta_follower``).
    dim : int
        2 for planar bodies. Spatial bodies (3) are not available yet.

    Returns
    -------
    tuple of PlanarBodySymbols
        Each with ``.x``, ``.y``, ``.theta`` and the helpers of :class:`PlanarFrame`.

    Examples
    --------
    >>> from mechsolve.symbolic import body_symbols
    >>> crank, rod = body_symbols("crank rod")
    >>> crank.coordinates
    (x_crank, y_crank, theta_crank)
    """
    if dim == 3:
        raise NotImplementedError(
            "spatial symbolic joints are not available yet: a spatial body will have a position "
            "and a quaternion as coordinates and a 6-vector increment (dr, dphi) applied through "
            "the exponential map")
    if isinstance(dim, bool) or dim != 2:
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
    return tuple(PlanarBodySymbols(lab) for lab in labels)
