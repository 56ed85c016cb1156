"""Drawing and animation of planar and spatial mechanisms with matplotlib.

``draw(mech)`` draws a mechanism at its current pose: every body as the polyline or polygon
through its joint points (or as a shape you attach with :func:`set_shape`), pins as small
circles, ground pivots hatched, prismatic rails and slots as lines along their axes, slider
blocks, gears as pitch circles, racks with teeth and drivers as arrows carrying their names.
After a failed solve, ``draw(mech, result=err.result)`` marks the joints that could not be
satisfied in red and labels them with their residuals.

``animate(mech, motion, trace=[(body, point)])`` turns a sweep into a matplotlib
``FuncAnimation`` whose traces (coupler curves) grow as the mechanism moves; ``.save("x.gif")``
writes a GIF with Pillow (``.mp4`` needs ffmpeg). ``plot_motion(motion, body, "angle")`` plots a
body coordinate or a point path against the driver value. ``animate_free_motions(mech)`` wiggles
each free motion of a mechanism with fewer drivers than degrees of freedom, one after another.

Spatial mechanisms (``Mechanism(dim=3)``) are drawn by the same ``draw`` and ``animate`` in a
3D Axes (mplot3d, made for you when ``ax`` is not given; see :mod:`mechsolve.plot.spatial`): bodies
through their joint origins in global coordinates, joint origins as small circles, ground
points as dark triangles, rods as lines, revolute axes as short segments, drivers with their
names, equal axis scaling, optional body-frame triads (``frames=True``) and the same failed-solve
highlight. ``plot_motion`` plots spatial point paths.

matplotlib is imported on first use, so ``import mechsolve`` stays light.

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

from pathlib import Path

import numpy as np

from ._base import (
    _DRAWINGS,
    _check_body,
    _check_mechanism,
    _check_motion,
    _check_shapes,
    _check_trace,
    _driver_name,
    _driver_unit,
    _get,
)
from ._base import BODY_COLORS as BODY_COLORS  # the colours are public, not in __all__
from ._base import DRIVER_COLOR as DRIVER_COLOR
from ._base import GROUND_COLOR as GROUND_COLOR
from ._base import HIGHLIGHT_COLOR as HIGHLIGHT_COLOR
from ._base import TRACE_COLORS as TRACE_COLORS
from ._base import TRIAD_COLORS as TRIAD_COLORS
from ._planar_geometry import _two_point
from .planar import Drawing, _check_planar_options
from .shapes import Shape, circle, get_shape, set_shape

__all__ = ["draw", "animate", "animate_free_motions", "plot_motion", "set_shape", "get_shape",
           "circle", "get_drawing", "Drawing", "Shape"]


# File suffixes that need ffmpeg, and those Pillow writes.
_FFMPEG_SUFFIXES = (".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm")
_PILLOW_SUFFIXES = (".gif", ".webp", ".apng")


# -- draw --------------------------------------------------------------------------------------
def draw(mech, ax=None, *, state=None, motion=None, trace=(), shapes=None, result=None,
         highlight=(), tol: float | None = None, names: bool = False, ground: bool = True,
         drivers: bool = True, frames: bool = False, joint_axes: bool = True, view=None):
    """Draw a mechanism at its current pose (or at ``state``).

    A spatial mechanism (``Mechanism(dim=3)``) is drawn in a 3D Axes (mplot3d) with equal
    axis scaling; see :mod:`mechsolve.plot.spatial` for what its symbols are.

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism.
    ax : matplotlib Axes, optional
        Where to draw (default: the current Axes of pyplot for a planar mechanism, a 3D Axes
        on a new pyplot figure for a spatial one). A spatial mechanism needs a 3D Axes
        (``fig.add_subplot(projection="3d")``), a planar one a 2D Axes.
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
    >>> model = ms.models_spatial.rssr()
    >>> ax = ms.plot.draw(model.mechanism, Figure().add_subplot(projection="3d"))
    >>> rocker = ms.plot.get_drawing(ax).outline(model.output)  # pivot and rod end, global
    >>> rocker.shape
    (2, 3)
    """
    dim = _check_mechanism(mech)
    if dim == 2:
        _check_planar_options(ax, view)
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
        from . import spatial

        return spatial.draw(mech, ax, states=states, trace=trace, trace_paths=paths,
                            travel=travel, shapes=shapes, result=result, highlight=highlight,
                            tol=tol, names=names, ground=ground, drivers=drivers,
                            frames=frames, joint_axes=joint_axes, view=view)
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    Drawing(mech, ax, states=states, trace=trace, trace_paths=paths, grow_traces=False,
            shapes=shapes, names=names, show_ground=ground, show_drivers=drivers,
            result=result, highlight=highlight, tol=tol, travel=travel, body_frames=frames)
    return ax


def get_drawing(ax) -> Drawing | None:
    """The last :class:`Drawing` made on ``ax`` by :func:`draw` or :func:`animate`."""
    return _DRAWINGS.get(ax)


# -- animate -----------------------------------------------------------------------------------
def _frame_indices(n: int, frames, step) -> np.ndarray:
    idx = np.arange(n)
    if step is not None:
        if isinstance(step, bool) or not isinstance(step, (int, np.integer)) or step < 1:
            raise ValueError(f"step must be a positive integer, got {step!r}")
        idx = idx[::step]
    if frames is not None:
        if isinstance(frames, bool) or not isinstance(frames, (int, np.integer)) or frames < 1:
            raise ValueError(f"frames must be a positive integer, got {frames!r}")
        if frames < len(idx):
            pick = np.unique(np.linspace(0, len(idx) - 1, frames).round().astype(int))
            idx = idx[pick]
    return idx


_VALUE_STYLE = {"ha": "left", "va": "top", "fontsize": 9, "zorder": 10,
                "bbox": {"boxstyle": "round,pad=0.25", "fc": "white", "ec": "0.7",
                         "alpha": 0.85}}


def _value_texts(motion) -> list[str]:
    """``"motor = 30.0°"`` for every pose of a motion (the corner label of an animation).

    A motion that carries its own ``labels`` (a :class:`~mechsolve.kinematics.FreeMotion`)
    shows those.
    """
    labels = getattr(motion, "labels", None)
    if labels is not None:
        return list(labels)
    angle = _driver_unit(motion.driver) == "angle"
    label = _driver_name(motion.driver)
    return [f"{label} = {np.degrees(v):.1f}\N{DEGREE SIGN}" if angle else f"{label} = {v:.4g}"
            for v in np.asarray(motion.values, dtype=float)]


_ANIMATION_CLASS = None


def _animation_class():
    """``MechanismAnimation``, made on first use (matplotlib is imported lazily)."""
    global _ANIMATION_CLASS
    if _ANIMATION_CLASS is not None:
        return _ANIMATION_CLASS
    from matplotlib import animation

    class GifWriter(animation.PillowWriter):
        """Pillow's GIF writer with one palette for all frames.

        Pillow otherwise quantizes every frame on its own, which takes most of the time of a
        GIF; the frames of a mechanism share their colours, so one palette (from a few frames)
        serves them all.
        """

        def finish(self):
            frames = getattr(self, "_frames", None)  # PillowWriter's list of frames
            if not frames or any(getattr(f, "mode", None) != "RGB" for f in frames):
                return super().finish()
            from PIL import Image

            sample = frames[::max(1, len(frames) // 6)][:8]
            w, h = sample[0].size
            montage = Image.new("RGB", (w, h * len(sample)))
            for k, f in enumerate(sample):
                montage.paste(f, (0, h * k))
            palette = montage.quantize(colors=255, method=Image.Quantize.MEDIANCUT)
            frames = [f.quantize(palette=palette, dither=Image.Dither.NONE) for f in frames]
            frames[0].save(self.outfile, save_all=True, append_images=frames[1:],
                           duration=int(round(1000 / self.fps)), loop=0)

    class MechanismAnimation(animation.FuncAnimation):
        """A ``FuncAnimation`` of a mechanism sweep (made by :func:`mechsolve.plot.animate`).

        ``drawing`` is the :class:`Drawing` it moves, ``indices`` the motion pose of each
        frame. :meth:`save` picks the writer from the file name: Pillow for ``.gif`` (and
        ``.webp``, ``.apng``), ffmpeg for ``.mp4`` and other videos (an error says so when
        ffmpeg is missing), ``html`` for ``.html``.
        """

        def save(self, filename, writer=None, fps=None, dpi=None, *args, **kwargs):
            suffix = Path(str(filename)).suffix.lower()
            wants_ffmpeg = (isinstance(writer, str) and writer.startswith("ffmpeg")) or \
                (writer is None and suffix in _FFMPEG_SUFFIXES)
            if wants_ffmpeg and not animation.writers.is_available("ffmpeg"):
                raise RuntimeError(
                    f"cannot write {filename}: {suffix or 'this format'} video needs ffmpeg, "
                    "which was not found on the PATH. Install ffmpeg, or write a GIF instead "
                    "(a .gif file name), which only needs Pillow.")
            if writer is None:
                if suffix == ".gif":
                    writer = GifWriter(fps=fps or 1000.0 / self._interval)
                    fps = None
                elif suffix in _PILLOW_SUFFIXES:
                    writer = "pillow"
                elif suffix in _FFMPEG_SUFFIXES:
                    writer = "ffmpeg"
                elif suffix in (".html", ".htm"):
                    writer = "html"
                else:
                    raise ValueError(f"cannot tell the animation format of {filename!r}: use "
                                     "a .gif, .webp, .mp4 or .html file name, or pass writer=")
            return super().save(filename, writer, fps, dpi, *args, **kwargs)

        def _post_draw(self, framedata, blit):
            # While saving, the writer renders each frame itself (savefig); the extra canvas
            # draw that FuncAnimation makes after every frame would only double the time.
            if self._fig.canvas.is_saving():
                return
            super()._post_draw(framedata, blit)

    MechanismAnimation.__module__ = __name__
    GifWriter.__module__ = __name__
    _ANIMATION_CLASS = MechanismAnimation
    return MechanismAnimation


def __getattr__(name):
    if name == "MechanismAnimation":
        return _animation_class()
    if name == "Drawing3D":
        from .spatial import Drawing3D

        return Drawing3D
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def animate(mech, motion, trace=(), *, frames: int | None = 120, step: int | None = None,
            interval: float = 40, ax=None, figsize=None, shapes=None, names: bool = False,
            axis: bool | None = None, show_value: bool = True, blit: bool | None = None,
            repeat: bool = True, body_frames: bool = False, joint_axes: bool = True,
            view=None):
    """Animate a sweep: a matplotlib ``FuncAnimation`` with growing point traces.

    A spatial mechanism is animated in a 3D Axes whose limits cover the whole motion (the
    view does not jump from frame to frame).

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism.
    motion : Motion
        Its sweep (``mech.sweep(driver, values)`` or ``mech.sweep_time(times)``).
    trace : sequence of (Body, point)
        Body points whose paths (coupler curves) are drawn as they grow.
    frames : int or None
        At most this many frames (default 120), evenly spread over the poses (the first and
        last kept); ``None`` for a frame at every pose.
    step : int, optional
        Use every ``step``-th pose (applied before ``frames``). Traces keep the full
        resolution of the motion either way.
    interval : float
        Milliseconds per frame (40 = 25 frames per second, also the saved frame rate).
    ax : matplotlib Axes, optional
        Where to draw (default: a new pyplot figure shaped like the mechanism's extent, with a
        3D Axes for a spatial mechanism, which needs one).
    figsize : (float, float), optional
        Size of the new figure in inches (default: 6.4 wide).
    shapes, names, joint_axes, view :
        As for :func:`draw`.
    axis : bool, optional
        Keep the axes' ticks and frame. Off by default for a planar mechanism (they double
        the rendering time); on for a spatial one, whose panes and grid show the depth.
    show_value : bool
        Show the driver value in the top-left corner.
    blit : bool, optional
        Passed to ``FuncAnimation`` (default True for a planar mechanism, False for a spatial
        one, whose view can be turned with the mouse).
    repeat : bool
        Passed to ``FuncAnimation``.
    body_frames : bool
        Draw the body frames as triads (the ``frames=True`` of :func:`draw`; here ``frames``
        counts the animation frames).

    Returns
    -------
    MechanismAnimation
        A ``FuncAnimation``; ``.save("x.gif")`` writes a GIF with Pillow, ``.save("x.mp4")``
        needs ffmpeg; ``.drawing`` holds the artists, ``.indices`` the pose of each frame.
        Pass ``progress_callback=`` to ``save`` to follow a long render.

    Raises
    ------
    ValueError
        If ``ax`` is a 2D Axes for a spatial mechanism (or a 3D Axes for a planar one).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> motion = model.mechanism.sweep(model.driver, model.values)
    >>> anim = ms.plot.animate(model.mechanism, motion, trace=model.trace, frames=10)
    >>> len(anim.indices), int(anim.indices[-1])  # 10 frames spread over the 361 poses
    (10, 360)
    >>> import matplotlib.pyplot as plt; plt.close(anim.drawing.ax.figure)
    """
    dim = _check_mechanism(mech)
    if dim == 2:
        _check_planar_options(ax, view)
    motion = _check_motion(mech, motion)
    trace = _check_trace(mech, trace)
    interval = float(interval)
    if not interval > 0:
        raise ValueError(f"interval must be positive (milliseconds), got {interval}")
    idx = _frame_indices(len(motion), frames, step)
    shapes = _check_shapes(mech, shapes)
    if dim == 3:
        from . import spatial

        return spatial.animate(mech, motion, trace, idx, interval=interval, ax=ax,
                               figsize=figsize, shapes=shapes, names=names,
                               axis=True if axis is None else bool(axis),
                               show_value=show_value, blit=bool(blit), repeat=repeat,
                               body_frames=body_frames, joint_axes=joint_axes, view=view)
    axis = bool(axis)
    blit = True if blit is None else blit
    states = np.asarray(motion.states, dtype=float)
    new_figure = ax is None
    if new_figure:
        import matplotlib.pyplot as plt

        ax = plt.figure(figsize=figsize or (6.4, 4.8)).add_subplot()
    fig = ax.figure
    drawing = Drawing(mech, ax, states=states, trace=trace, grow_traces=True,
                      shapes=shapes, names=names,
                      top_margin=0.08 if show_value else 0.0, body_frames=body_frames)
    if axis:
        ax.grid(True, alpha=0.25)
    else:
        ax.set_axis_off()
    if new_figure and figsize is None:
        x0, x1, y0, y1 = drawing.limits
        aspect = float(np.clip((y1 - y0) / (x1 - x0), 0.3, 1.5))
        fig.set_size_inches(6.4, round(6.4 * aspect + (0.6 if axis else 0.0), 2))
    if new_figure:
        if axis:
            fig.tight_layout()
        else:
            fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=0.99)
    value_text = None
    texts: list[str] = []
    if show_value:
        value_text = ax.text(0.02, 0.97, "", transform=ax.transAxes, **_VALUE_STYLE)
        texts = _value_texts(motion)

    return _make_animation(fig, drawing, motion, idx, value_text, texts, interval=interval,
                           blit=blit, repeat=repeat)


def _make_animation(fig, drawing, motion, idx, value_text, texts, *, interval, blit, repeat):
    """The animation of a drawing (2D or 3D) over the states ``idx``, with the corner value."""

    def update(k):
        artists = drawing.set_frame(idx[k])
        if value_text is not None:
            value_text.set_text(texts[idx[k]])
            artists = artists + [value_text]
        return artists

    def init():
        return update(0)

    cls = _animation_class()
    anim = cls(fig, update, frames=len(idx), init_func=init, interval=interval, blit=blit,
               repeat=repeat, cache_frame_data=False)
    anim.drawing = drawing
    anim.indices = idx
    anim.motion = motion
    return anim


# -- free motions ------------------------------------------------------------------------------
def _extent_points(mech) -> list:
    """``[(body, local point), ...]``: where the joints attach and the shapes' vertices."""
    if mech.dim == 3:
        from .spatial import _attachments

        points = [pt for j in mech.joints for pt in _attachments(j)]
    else:
        points = [pt for j in mech.joints for pt in _two_point(j)]
    for body in mech.bodies:
        shape = get_shape(body)
        if shape is not None:
            points.extend((body, p) for p in shape.points)
    return points


def animate_free_motions(mech, *, amplitude=None, frames: int = 48, trace=(),
                         interval: float = 40, tol: float = 1e-10, **options):
    """Animate the free motions of an under-driven mechanism, one after another.

    For every vector ``b_k`` of the free-motion basis at the current pose
    (``mech.free_motions()``, ``k`` of them) the mechanism is moved along that motion and back,
    ``s = A sin(2 pi i / frames)``: out to ``+A``, back through the start pose to ``-A`` and
    back again, then the next motion from the same start pose; the corner label reads
    ``"free motion 1 of k: s = ..."``. Every frame is a pose that satisfies all constraints
    and drivers (followed by continuation, see
    :func:`mechsolve.kinematics.wiggle_free_motions`), not a linear extrapolation. Where a
    limit stops a motion short of ``A`` the animation waits at the limit pose, labelled
    ``(limit)``, until ``s`` comes back. The mechanism's state is not changed. Planar and
    spatial mechanisms are drawn as by :func:`animate`.

    Parameters
    ----------
    mech : Mechanism
        An assembled planar or spatial mechanism with fewer drivers than degrees of freedom.
    amplitude : float or sequence of float, optional
        ``A`` in increment units (the basis mixes lengths and radians), for all motions or
        one per motion. Default (per motion): the moving joint points travel at most 8 % of
        the diagonal of the mechanism's bounding box, and no body turns by more than 0.2 rad
        (:func:`mechsolve.kinematics.free_motion_amplitude`).
    frames : int
        Frames per free motion (the animation has ``k * frames``).
    trace : sequence of (Body, point)
        Body points whose paths are drawn as they grow.
    interval : float
        Milliseconds per frame.
    tol : float
        Residual tolerance of every pose.
    **options
        Passed to :func:`animate` (``ax``, ``figsize``, ``shapes``, ``names``, ``axis``,
        ``show_value``, ``blit``, ``repeat``, ``body_frames``, ``joint_axes``, ``view``).

    Returns
    -------
    MechanismAnimation
        As :func:`animate`; ``.motion`` is the :class:`~mechsolve.kinematics.FreeMotion`
        shown (its ``motion_index``, ``reached`` and ``limited`` tell which motion each frame
        follows and where limits stopped them).

    Raises
    ------
    ValueError
        If the mechanism is fully driven (0 free motions).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> mech = model.mechanism
    >>> _ = mech.solve()
    >>> mech.remove(model.driver)                     # the crank is free: one free motion
    >>> anim = ms.plot.animate_free_motions(mech, frames=12)
    >>> len(anim.indices), anim.motion.labels[3]
    (12, 'free motion 1 of 1: s = +0.331')
    >>> import matplotlib.pyplot as plt; plt.close(anim.drawing.ax.figure)
    """
    from ..kinematics import wiggle_free_motions

    _check_mechanism(mech)
    if "step" in options:
        raise TypeError("animate_free_motions takes frames (per free motion), not step")
    motion = wiggle_free_motions(mech, amplitude=amplitude, frames=frames,
                                 points=_extent_points(mech), tol=tol)
    return animate(mech, motion, trace, frames=None, interval=interval, **options)


# -- plot_motion -------------------------------------------------------------------------------
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
    from ..analysis import Motion

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
        import matplotlib.pyplot as plt

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
