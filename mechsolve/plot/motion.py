"""``plot_motion``: a body coordinate or a body point's path against the driver value.

Plots of a sweep (a :class:`~mechsolve.analysis.Motion`) that are not drawings of the
mechanism: a line per coordinate in an ordinary 2D Axes, for planar and spatial motions.
"""

from __future__ import annotations

import numpy as np

from ..analysis import Motion
from ._base import _check_body, _driver_name, _driver_unit


def plot_motion(motion, body, coordinate: str | None = None, *, point=None, ax=None,
                degrees: bool = True, label: str | None = None, **line_kwargs):
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
    degrees : bool
        Show angles (the body angle, and an angle driver's values) in degrees.
    label : str, optional
        Legend label (default: ``body.name`` and the coordinate).
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
    >>> ax = ms.plot.plot_motion(motion, model.output, "x", ax=Figure().add_subplot())
    >>> bool(np.allclose(ax.lines[0].get_ydata(), motion.point(model.output)[:, 0]))
    True
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
    if ax is None:
        import matplotlib.pyplot as plt  # matplotlib on first use: import mechsolve stays light

        ax = plt.gca()
    v = np.asarray(motion.values, dtype=float)
    driver = motion.driver
    angle_driver = _driver_unit(driver) == "angle"
    xv = np.degrees(v) if angle_driver and degrees else v
    dname = "time" if driver is None else _driver_name(driver)
    ax.set_xlabel(f"{dname} ({'deg' if degrees else 'rad'})" if angle_driver else dname)
    path = motion.point(body, point) if point is not None or "angle" not in coords else None
    ylabels = []
    for c in coords:
        if c == "angle":
            y = motion.pose(body)[:, 2]
            y = np.degrees(y) if degrees else y
            ylabels.append(f"angle ({'deg' if degrees else 'rad'})")
        else:
            y = path[:, names.index(c)]
            ylabels.append(c)
        where = f"{body.name}" if point is None else \
            f"{body.name} ({', '.join(f'{q:g}' for q in np.ravel(point))})"
        lab = label if label is not None and len(coords) == 1 else \
            (f"{label} {c}" if label is not None else f"{where} {c}")
        ax.plot(xv, y, label=lab, **line_kwargs)
    ax.set_ylabel(", ".join(dict.fromkeys(ylabels)))
    ax.grid(True, alpha=0.3)
    if len(ax.lines) > 1:
        ax.legend(fontsize=8)
    return ax


#: What :func:`plot_measure` plots: Motion method, y label, whether it is an angle.
_MEASURES = {"transmission_angle": ("transmission angle", True),
             "mechanical_advantage": ("mechanical advantage", False)}


def plot_measure(motion, measure: str, target, *, ax=None, degrees: bool = True,
                 fold: bool = False, label: str | None = None, **line_kwargs):
    """Plot a linkage measure along a sweep against the driver value.

    Parameters
    ----------
    motion : Motion
    measure : {"transmission_angle", "mechanical_advantage"}
        :meth:`Motion.transmission_angle` at the revolute ``target``, or
        :meth:`Motion.mechanical_advantage` with ``target`` the output body or revolute.
    target : Joint, Body or str
    ax : matplotlib Axes, optional
    degrees : bool
        Angles (the transmission angle, an angle driver's values) in degrees.
    fold : bool
        Transmission angle folded to [0, 90] degrees.
    label : str, optional
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
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    v = np.asarray(motion.values, dtype=float)
    driver = motion.driver
    angle_driver = _driver_unit(driver) == "angle"
    ax.plot(np.degrees(v) if angle_driver and degrees else v, y,
            label=label or f"{name} ({getattr(target, 'label', getattr(target, 'name', target))})",
            **line_kwargs)
    dname = "time" if driver is None else _driver_name(driver)
    ax.set_xlabel(f"{dname} ({'deg' if degrees else 'rad'})" if angle_driver else dname)
    ax.set_ylabel(f"{name} ({'deg' if degrees else 'rad'})" if is_angle else name)
    ax.grid(True, alpha=0.3)
    return ax
