"""``plot_motion``: a body coordinate or a body point's path against the driver value.

Plots of a sweep (a :class:`~mechsolve.analysis.Motion`) that are not drawings of the
mechanism: a line per coordinate in an ordinary 2D Axes, for planar and spatial motions.
"""

from __future__ import annotations

import numpy as np

from ..analysis import Motion
from ._base import _check_body, _driver_name, _driver_unit, _length_unit, _with_unit


def _new_axes():
    """An Axes on a figure of its own: a plot never draws into the last figure pyplot made
    (an animation's, a drawing's)."""
    import matplotlib.pyplot as plt  # matplotlib on first use: import mechsolve stays light

    return plt.figure().add_subplot()


def _driver_label(motion, degrees: bool, unit: str | None) -> tuple[np.ndarray, str]:
    """The x values (the driver's, in degrees where asked) and the x label with its unit."""
    v = np.asarray(motion.values, dtype=float)
    driver = motion.driver
    kind = _driver_unit(driver)
    if kind == "angle":
        return (np.degrees(v) if degrees else v), \
            f"{_driver_name(driver)} ({'deg' if degrees else 'rad'})"
    if kind == "time":
        return v, "time (s)"
    return v, _with_unit(_driver_name(driver), unit)


def plot_motion(motion, body, coordinate: str | None = None, *, point=None, ax=None,
                degrees: bool = True, label: str | None = None, units: str | None = None,
                **line_kwargs):
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
        Where to plot (default: a new pyplot figure; never the last figure made, such as an
        animation's).
    degrees : bool
        Show angles (the body angle, and an angle driver's values) in degrees.
    label : str, optional
        Legend label (default: ``body.name`` and the coordinate).
    units : str, optional
        The length unit of the axis labels (``"ram x (mm)"``); default the mechanism's
        declared one, ``mech.units["length"]``. Angles are labelled in deg or rad.
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
    >>> ax = ms.plot.plot_motion(motion, model.output, "x", ax=Figure().add_subplot(),
    ...                          units="m")
    >>> bool(np.allclose(ax.lines[0].get_ydata(), motion.point(model.output)[:, 0]))
    True
    >>> ax.get_xlabel(), ax.get_ylabel()
    ('motor (deg)', 'slider x (m)')
    """
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
    unit = _length_unit(motion.mechanism, units)
    if ax is None:
        ax = _new_axes()
    xv, xlabel = _driver_label(motion, degrees, unit)
    ax.set_xlabel(xlabel)
    path = motion.point(body, point) if point is not None or "angle" not in coords else None
    where = f"{body.name}" if point is None else \
        f"{body.name} ({', '.join(f'{q:g}' for q in np.ravel(point))})"
    ylabels = []
    for c in coords:
        if c == "angle":
            y = motion.pose(body)[:, 2]
            y = np.degrees(y) if degrees else y
            ylabels.append(f"angle ({'deg' if degrees else 'rad'})")
        else:
            y = path[:, names.index(c)]
            ylabels.append(_with_unit(c, unit))
        lab = label if label is not None and len(coords) == 1 else \
            (f"{label} {c}" if label is not None else f"{where} {c}")
        ax.plot(xv, y, label=lab, **line_kwargs)
    if len(coords) == 1:  # one quantity: say whose it is
        ylabels = [f"{where} {ylabels[0]}"]
    elif all(c != "angle" for c in coords):  # x, y (mm)
        ylabels = [_with_unit(", ".join(coords), unit)]
    ax.set_ylabel(", ".join(dict.fromkeys(ylabels)))
    ax.grid(True, alpha=0.3)
    if len(ax.lines) > 1:
        ax.legend(fontsize=8)
    return ax


#: What :func:`plot_measure` plots: Motion method, y label, whether it is an angle.
_MEASURES = {"transmission_angle": ("transmission angle", True),
             "mechanical_advantage": ("mechanical advantage", False)}


def plot_measure(motion, measure: str, target, *, ax=None, degrees: bool = True,
                 fold: bool = False, label: str | None = None, units: str | None = None,
                 **line_kwargs):
    """Plot a linkage measure along a sweep against the driver value.

    Parameters
    ----------
    motion : Motion
    measure : {"transmission_angle", "mechanical_advantage"}
        :meth:`Motion.transmission_angle` at the revolute ``target``, or
        :meth:`Motion.mechanical_advantage` with ``target`` the output body or revolute.
    target : Joint, Body or str
    ax : matplotlib Axes, optional
        Where to plot (default: a new pyplot figure).
    degrees : bool
        Angles (the transmission angle, an angle driver's values) in degrees.
    fold : bool
        Transmission angle folded to [0, 90] degrees.
    label : str, optional
    units : str, optional
        The length unit of a length driver's axis label (default ``mech.units["length"]``).
    **line_kwargs
        Passed to ``ax.plot``.

    Returns
    -------
    matplotlib Axes (one line, its y data the measure).

    Examples
    --------
    >>> import mechsolve as ms
    >>> from matplotlib.figure import Figure
    >>> model = ms.models.fourbar()
    >>> motion = model.mechanism.sweep(model.driver, model.values)
    >>> ax = ms.plot.plot_measure(motion, "transmission_angle", "B", ax=Figure().add_subplot())
    >>> bool(np.allclose(ax.lines[0].get_ydata(), np.degrees(motion.transmission_angle("B"))))
    True
    """
    if not isinstance(motion, Motion):
        raise TypeError(f"motion must be a mechsolve Motion, got {type(motion).__name__}")
    if measure not in _MEASURES:
        raise ValueError(f"measure must be one of {tuple(_MEASURES)}, got {measure!r}")
    name, is_angle = _MEASURES[measure]
    if measure == "transmission_angle":
        y = motion.transmission_angle(target, fold=fold)
    else:
        y = motion.mechanical_advantage(target)
    if is_angle and degrees:
        y = np.degrees(y)
    unit = _length_unit(motion.mechanism, units)
    if ax is None:
        ax = _new_axes()
    xv, xlabel = _driver_label(motion, degrees, unit)
    ax.plot(xv, y,
            label=label or f"{name} ({getattr(target, 'label', getattr(target, 'name', target))})",
            **line_kwargs)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(f"{name} ({'deg' if degrees else 'rad'})" if is_angle else name)
    ax.grid(True, alpha=0.3)
    return ax
