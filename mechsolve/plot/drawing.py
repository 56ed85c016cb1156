"""``draw``: check its arguments and draw a planar or a spatial mechanism; ``get_drawing``.

:func:`draw` makes a :class:`~mechsolve.plot.Drawing` for a planar mechanism and a
``Drawing3D`` (:mod:`mechsolve.plot.spatial`) for a spatial one; :func:`get_drawing` returns the
last drawing made on an Axes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ._base import (
    _DRAWINGS,
    _check_mechanism,
    _check_motion,
    _check_shapes,
    _check_trace,
    _get,
    _label_axes,
    _length_unit,
)
from .planar import Drawing, _check_planar_options

if TYPE_CHECKING:
    from .spatial import Drawing3D


def draw(mech, ax=None, *, state=None, motion=None, trace=(), shapes=None, result=None,
         highlight=(), tol: float | None = None, names: bool = False, ground: bool = True,
         drivers: bool = True, frames: bool = False, joint_axes: bool = True, view=None,
         units: str | None = None):
    """Draw a mechanism at its current pose (or at ``state``).

    A spatial mechanism (``Mechanism(dim=3)``) is drawn in a 3D Axes (mplot3d) with equal
    axis scaling; see :mod:`mechsolve.plot.spatial` for what its symbols are.

    Without ``ax`` the drawing gets a figure of its own. Given an Axes that already holds
    something (a curve drawn first) or limits set by hand, the drawing only grows its limits
    to cover the mechanism: nothing drawn before is cropped.

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism.
    ax : matplotlib Axes, optional
        Where to draw (default: a new pyplot figure, with a 3D Axes for a spatial
        mechanism). A spatial mechanism needs a 3D Axes (``fig.add_subplot(projection="3d")``),
        a planar one a 2D Axes.
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
    units : str, optional
        The length unit of the axis labels (``"x (mm)"``); default the mechanism's declared
        one, ``mech.units["length"]`` (a model file's ``[units]``). A planar drawing without
        a unit has no axis labels.

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
    >>> model = ms.models.spatial.rssr()
    >>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(projection="3d"))
    >>> rocker = ms.plot.get_drawing(ax).outline(model.output)  # pivot and rod end, global
    >>> rocker.shape
    (2, 3)
    """
    dim = _check_mechanism(mech)
    if dim == 2:
        _check_planar_options(ax, view)
    unit = _length_unit(mech, units)
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
        from . import spatial  # it imports matplotlib as it loads: only for a spatial drawing

        if ax is not None:
            spatial._check_3d_axes(ax)
        ax = spatial.Drawing3D(mech, ax, states=states, trace=trace, trace_paths=paths,
                               grow_traces=False, shapes=shapes, names=names,
                               show_ground=ground, show_drivers=drivers, result=result,
                               highlight=highlight, tol=tol, travel=travel,
                               body_frames=frames, joint_axes=joint_axes, view=view).ax
    else:
        ax = Drawing(mech, ax, states=states, trace=trace, trace_paths=paths,
                     grow_traces=False, shapes=shapes, names=names, show_ground=ground,
                     show_drivers=drivers, result=result, highlight=highlight, tol=tol,
                     travel=travel, body_frames=frames).ax
    _label_axes(ax, unit, dim)
    return ax


def get_drawing(ax) -> Drawing | Drawing3D | None:
    """The last :class:`Drawing` made on ``ax`` by :func:`draw` or :func:`animate`."""
    return _DRAWINGS.get(ax)
