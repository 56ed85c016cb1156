"""Drawing and animation of planar and spatial mechanisms with matplotlib.

``draw(mech)`` draws a mechanism at its current pose: every body as the polyline or polygon
through its joint points (or as a shape you attach with :func:`set_shape`), pins as small
circles, ground pivots hatched, prismatic rails and slots as lines along their axes, slider
blocks, gears as pitch circles, racks with teeth and drivers as arrows carrying their names.
After a failed solve, ``draw(mech, result=err.result)`` marks the joints that could not be
satisfied in red and labels them with their residuals.

``interact(mech)`` draws a mechanism with a slider per driver (and per end-effector target
coordinate): moving one solves from the last good pose and moves the drawing in place; a value
that cannot be solved keeps the last good pose and shows the failed joints in red with the
solver's message (``%matplotlib widget`` in Jupyter).

``animate(mech, motion, trace=[(body, point)])`` turns a sweep into a matplotlib
``FuncAnimation`` whose traces (coupler curves) grow as the mechanism moves; ``.save("x.gif")``
writes a GIF with Pillow (``.mp4`` needs ffmpeg). ``plot_motion(motion, body, "angle")`` plots a
body coordinate or a point path against the driver value, ``plot_measure(motion,
"transmission_angle", joint)`` a linkage measure. ``animate_free_motions(mech)`` wiggles
each free motion of a mechanism with fewer drivers than degrees of freedom, one after another.

Spatial mechanisms (``Mechanism(dim=3)``) are drawn by the same ``draw`` and ``animate`` in a
3D Axes (mplot3d, made for you when ``ax`` is not given; see :mod:`mechsolve.plot.spatial`):
bodies through their joint origins in global coordinates, joint origins as small circles,
ground points as dark triangles, rods as lines, revolute axes as short segments, drivers with
their names, equal axis scaling, optional body-frame triads (``frames=True``) and the same
failed-solve highlight. ``plot_motion`` plots spatial point paths.

matplotlib is imported on first use, so ``import mechsolve`` stays light.

The package, one job a module (a module imports only those above it in this list):

* ``_base``: colours, argument checks, the drawing base class both drawings stand on (frames,
  artists, traces, triads, names, red notes on failed joints);
* ``shapes``: :func:`set_shape`, :func:`get_shape`, :func:`circle`;
* ``_planar_geometry`` and ``_spatial_geometry``: outlines and arrow templates (numbers only;
  where a joint sits and what draws it is its own
  :meth:`~mechsolve.joints.Joint.geometry`);
* ``planar``: :class:`Drawing`; ``spatial``: ``Drawing3D`` and ``fit_figure`` (it imports
  matplotlib as it loads, so it is loaded on the first spatial drawing);
* ``drawing``: :func:`draw`, :func:`get_drawing`; ``animation``: :func:`animate`,
  ``MechanismAnimation`` and its saving, :func:`animate_free_motions`; ``motion``:
  :func:`plot_motion`; ``interaction``: :func:`interact` and :class:`Interactive`;
  ``tolerance``: :func:`tolerance_band` (an output path with its tolerance band);
  ``export``: :func:`export`, the links' outlines and pin holes as DXF or SVG drawings at
  true scale, for cutting.

Examples
--------
>>> import mechsolve as ms
>>> from matplotlib.figure import Figure
>>> model = ms.models.fourbar()
>>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(), trace=model.trace)
>>> drawing = ms.plot.get_drawing(ax)
>>> sorted(body.name for body in drawing.bodies)
['coupler', 'crank', 'rocker']
"""

from __future__ import annotations

from ._base import BODY_COLORS as BODY_COLORS  # the colours are public, not in __all__
from ._base import DRIVER_COLOR as DRIVER_COLOR
from ._base import GROUND_COLOR as GROUND_COLOR
from ._base import HIGHLIGHT_COLOR as HIGHLIGHT_COLOR
from ._base import TRACE_COLORS as TRACE_COLORS
from ._base import TRIAD_COLORS as TRIAD_COLORS
from .animation import _animation_class, animate, animate_free_motions
from .drawing import draw, get_drawing
from .export import export
from .interaction import Interactive, interact
from .motion import plot_measure, plot_motion
from .planar import Drawing
from .shapes import Shape, circle, get_shape, set_shape
from .tolerance import tolerance_band

__all__ = ["draw", "animate", "animate_free_motions", "plot_motion", "plot_measure", "set_shape",
           "get_shape", "circle", "get_drawing", "Drawing", "Shape", "interact", "Interactive",
           "tolerance_band", "export"]


def __getattr__(name):
    if name == "MechanismAnimation":  # built from matplotlib's FuncAnimation on first use
        return _animation_class()
    if name == "Drawing3D":
        from .spatial import Drawing3D  # spatial imports matplotlib as it loads: on first use

        return Drawing3D
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
