"""Body shapes: the outline a body is drawn as instead of the polygon through its joints.

:func:`set_shape` attaches an outline (body coordinates) to a body, :func:`get_shape` reads it,
:func:`circle` makes the points of a round one; the drawings ask :func:`_shape_of` which outline
a body has in one drawing (its ``shapes=`` argument first, then :func:`set_shape`'s).
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field

import numpy as np

from ..body import Body
from ._base import _as_points, _check_body


@dataclass(frozen=True)
class Shape:
    """The outline of a body in its own coordinates (see :func:`set_shape`)."""

    points: np.ndarray
    closed: bool
    style: dict = field(default_factory=dict)


# Shapes attached to bodies: mechanism -> {body index: Shape}. Keyed by the mechanism (weakly)
# and the body's index, so that a shape neither keeps a mechanism alive nor needs a slot on Body.
_SHAPES: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def set_shape(body: Body, points, *, closed: bool | None = None, **style) -> Shape | None:
    """Draw ``body`` as the outline ``points`` (body coordinates) instead of its joint points.

    Parameters
    ----------
    body : Body
        A moving body.
    points : array_like, shape (k, 2) or (k, 3) for a spatial body, or None
        Outline vertices in the body's local coordinates; ``None`` removes the shape.
    closed : bool, optional
        Draw a filled polygon (default when ``k >= 3``) or an open polyline.
    **style
        matplotlib properties for the outline (``color``, ``linewidth``, ``alpha``, ...).

    Returns
    -------
    Shape or None

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> coupler = model.mechanism.body("coupler")
    >>> shape = ms.plot.set_shape(coupler, [(-1.5, 0), (1.5, 0), (0, 1)])
    >>> shape.closed
    True
    >>> ms.plot.get_shape(coupler) is shape
    True
    """
    body = _check_body(body)
    if body.is_ground:
        raise ValueError("ground is drawn with ground symbols; set_shape takes a moving body")
    shapes = _SHAPES.setdefault(body.mechanism, {})
    if points is None:
        shapes.pop(body.index, None)
        return None
    pts = _as_points(points, dim=body.mechanism.dim)
    if closed is None:
        closed = len(pts) >= 3
    shape = Shape(pts, bool(closed), dict(style))
    shapes[body.index] = shape
    return shape


def get_shape(body: Body) -> Shape | None:
    """The shape set for ``body`` with :func:`set_shape`, or ``None``."""
    body = _check_body(body)
    return _SHAPES.get(body.mechanism, {}).get(body.index)


def circle(radius: float, center=(0.0, 0.0), n: int = 48) -> np.ndarray:
    """Points of a circle (for :func:`set_shape`), shape ``(n, 2)``.

    >>> pts = circle(1.0, n=4).round(12) + 0.0
    >>> pts[:, 0]
    array([ 1.,  0., -1.,  0.])
    """
    t = np.linspace(0.0, 2 * np.pi, int(n), endpoint=False)
    c = np.asarray(center, dtype=float)
    return np.stack([c[0] + radius * np.cos(t), c[1] + radius * np.sin(t)], axis=1)


def _shape_of(body: Body, shapes: dict) -> Shape | None:
    """The outline ``body`` is drawn as: ``shapes[body]`` (points or a Shape), else its
    :func:`set_shape`, else None (the drawing makes one from the joint points)."""
    dim = body.mechanism.dim
    shape = shapes.get(body)
    if shape is None:
        shape = get_shape(body)
    elif not isinstance(shape, Shape):
        pts = _as_points(shape, f"shapes[{body.name!r}]", dim=dim)
        shape = Shape(pts, len(pts) >= 3)
    if shape is not None and shape.points.shape[1] != dim:
        what = "a planar" if dim == 2 else "a spatial"
        raise ValueError(f"the shape of {body.name!r} must have (k, {dim}) points for {what} "
                         f"body, got shape {shape.points.shape}")
    return shape
