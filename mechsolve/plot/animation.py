"""Animation of a sweep, saving it (GIF, video, HTML), and the free-motion animation.

:func:`animate` moves a :class:`~mechsolve.plot.Drawing` (a ``Drawing3D`` for a spatial
mechanism) through the poses of a motion as a ``MechanismAnimation``, a matplotlib
``FuncAnimation`` whose ``save`` picks its writer from the file name (one palette for all the
frames of a GIF); :func:`animate_free_motions` animates the free motions of an under-driven
mechanism one after another. matplotlib is imported on first use.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..analysis import wiggle_free_motions
from ._base import (
    _check_mechanism,
    _check_motion,
    _check_shapes,
    _check_trace,
    _driver_name,
    _driver_unit,
)
from .planar import Drawing, _check_planar_options
from .shapes import get_shape

# File suffixes that need ffmpeg, and those Pillow writes.
_FFMPEG_SUFFIXES = (".mp4", ".m4v", ".mov", ".mkv", ".avi", ".webm")
_PILLOW_SUFFIXES = (".gif", ".webp", ".apng")


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

    A motion that carries its own ``labels`` (a :class:`~mechsolve.analysis.FreeMotion`)
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
    from matplotlib import animation  # matplotlib on first use: import mechsolve stays light

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

    # Reached as mechsolve.plot.MechanismAnimation.
    MechanismAnimation.__module__ = __package__
    GifWriter.__module__ = __package__
    _ANIMATION_CLASS = MechanismAnimation
    return MechanismAnimation


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
    >>> model = ms.models.spatial.bricard()                # a spatial one, saved as a GIF
    >>> motion = model.mechanism.sweep(model.driver, model.values)
    >>> anim = ms.plot.animate(model.mechanism, motion, frames=5)
    >>> anim.indices.tolist()
    [0, 15, 30, 45, 60]
    >>> import pathlib, tempfile
    >>> anim.save(pathlib.Path(tempfile.mkdtemp()) / "bricard.gif", dpi=20)
    >>> plt.close(anim.drawing.ax.figure)
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
        blit = bool(blit)
        fig, drawing, value_text = _spatial_figure(
            mech, motion, trace, ax=ax, figsize=figsize, shapes=shapes, names=names,
            axis=True if axis is None else bool(axis), show_value=show_value,
            body_frames=body_frames, joint_axes=joint_axes, view=view)
    else:
        blit = True if blit is None else blit
        fig, drawing, value_text = _planar_figure(
            mech, motion, trace, ax=ax, figsize=figsize, shapes=shapes, names=names,
            axis=bool(axis), show_value=show_value, body_frames=body_frames)
    texts = _value_texts(motion) if show_value else []
    return _make_animation(fig, drawing, motion, idx, value_text, texts, interval=interval,
                           blit=blit, repeat=repeat)


def _planar_figure(mech, motion, trace, *, ax, figsize, shapes, names, axis, show_value,
                   body_frames):
    """The figure, :class:`Drawing` and corner text (or None) of a planar animation; a new
    figure (``ax`` None) is shaped like the drawing."""
    new_figure = ax is None
    if new_figure:
        import matplotlib.pyplot as plt  # matplotlib on first use: import mechsolve stays light

        ax = plt.figure(figsize=figsize or (6.4, 4.8)).add_subplot()
    fig = ax.figure
    drawing = Drawing(mech, ax, states=np.asarray(motion.states, dtype=float), trace=trace,
                      grow_traces=True, shapes=shapes, names=names,
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
    if show_value:
        value_text = ax.text(0.02, 0.97, "", transform=ax.transAxes, **_VALUE_STYLE)
    return fig, drawing, value_text


def _spatial_figure(mech, motion, trace, *, ax, figsize, shapes, names, axis, show_value,
                    body_frames, joint_axes, view):
    """The figure, ``Drawing3D`` and corner text (or None) of a spatial animation; a new
    figure (``ax`` None) is fitted to the drawing as seen."""
    # spatial imports matplotlib as it loads: only when a spatial mechanism is animated
    from .spatial import Drawing3D, _check_3d_axes, fit_figure

    new_figure = ax is None
    if new_figure:
        import matplotlib.pyplot as plt

        ax = plt.figure(figsize=figsize or (6.4, 5.6)).add_subplot(projection="3d")
    _check_3d_axes(ax)
    fig = ax.figure
    drawing = Drawing3D(mech, ax, states=np.asarray(motion.states, dtype=float), trace=trace,
                        grow_traces=True, shapes=shapes, names=names, body_frames=body_frames,
                        joint_axes=joint_axes, view=view,
                        zoom=(0.92 if axis else 1.2) if new_figure else 1.0)
    if not axis:
        ax.set_axis_off()
    if new_figure:
        if figsize is None:
            fit_figure(ax, 6.4, 0.12 if axis else 0.04)
        else:
            fig.subplots_adjust(left=0.0, right=1.0, bottom=0.0, top=1.0)
    value_text = None
    if show_value:
        # In figure coordinates: a fitted figure shows only the middle of its square Axes.
        value_text = fig.text(0.015, 0.975, "", **_VALUE_STYLE)
    return fig, drawing, value_text


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
    points = [pt for j in mech.joints for pt in j.geometry().points]
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
    :func:`mechsolve.analysis.wiggle_free_motions`), not a linear extrapolation. Where a
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
        (:func:`mechsolve.analysis.free_motion_amplitude`).
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
        As :func:`animate`; ``.motion`` is the :class:`~mechsolve.analysis.FreeMotion`
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
    _check_mechanism(mech)
    if "step" in options:
        raise TypeError("animate_free_motions takes frames (per free motion), not step")
    motion = wiggle_free_motions(mech, amplitude=amplitude, frames=frames,
                                 points=_extent_points(mech), tol=tol)
    return animate(mech, motion, trace, frames=None, interval=interval, **options)
