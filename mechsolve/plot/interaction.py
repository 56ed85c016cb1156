"""``interact``: sliders for a mechanism's drivers and end-effector targets.

:func:`interact` draws a mechanism (planar or spatial) with one matplotlib
:class:`~matplotlib.widgets.Slider` under it per driver and per coordinate of an end-effector
target. Moving a slider sets the value, solves the mechanism from its last good pose and moves
the drawing there in place (:meth:`~mechsolve.plot.Drawing.set_state`). A value the mechanism
cannot reach leaves it, and the drawing, at the last good pose; the joints that could not be
satisfied are marked in red and the solver's message is shown in the figure until a later
value solves. The sliders are plain matplotlib widgets: they work in a desktop window and in
Jupyter with the ipympl backend (``%matplotlib widget``); keep the returned object, which holds
them, alive while you use them.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass

import numpy as np

from ..joints._end_effectors import _LinkEndEffector
from ..joints.base import DriverJoint, Joint
from ..solver import SolveError
from ..spatial import Frame
from ._base import HIGHLIGHT_COLOR, _check_mechanism, _failed_joints, _get, _renderer
from .drawing import draw, get_drawing

__all__ = ["interact", "Interactive"]

# The height of one slider row and the gap under the drawing, in inches.
_ROW = 0.32
_MESSAGE_STYLE = {"ha": "left", "va": "top", "fontsize": 8, "color": HIGHLIGHT_COLOR,
                  "zorder": 20, "bbox": {"boxstyle": "round,pad=0.3", "fc": "white",
                                         "ec": HIGHLIGHT_COLOR, "alpha": 0.9}}
_FAILED_STYLE = {"linestyle": "none", "marker": "o", "markersize": 14,
                 "markerfacecolor": "none", "markeredgecolor": HIGHLIGHT_COLOR,
                 "markeredgewidth": 2.5, "zorder": 11}


@dataclass
class _Control:
    """What one slider moves: a driver's value, or one coordinate of an end effector's
    target translation (``axis`` 0, 1, 2)."""

    joint: Joint
    axis: int | None = None
    angle: bool = False

    def get(self) -> float:
        if self.axis is None:
            return self.joint.value
        return float(self.joint.target_frame.translation[self.axis])

    def set(self, value: float) -> None:
        if self.axis is None:
            self.joint.value = value
            return
        frame = self.joint.target_frame
        t = np.array(frame.translation, dtype=float)
        t[self.axis] = value
        if self.joint._target_kind == "point":
            self.joint.target = t
        else:
            self.joint.target = Frame(t, frame.orientation)


def _is_angle(driver: DriverJoint) -> bool:
    """Whether a driver's value is an angle (radians) rather than a length."""
    from ..joints._drivers import AngleDriver, CoordinateDriver, Driver
    from ..joints._links import DHLink, RevoluteLink

    if isinstance(driver, AngleDriver):
        return True
    if isinstance(driver, Driver):
        return driver.coordinate == "angle"
    if isinstance(driver, CoordinateDriver):
        inner = driver.joint
        if isinstance(inner, RevoluteLink):
            return True
        if isinstance(inner, DHLink):
            return inner.param("prismatic") == 0.0
    return False


def _chosen_drivers(mech, drivers) -> list:
    if drivers is None:
        return list(mech.drivers)
    return [mech.as_driver(d) for d in drivers]


def _target_effectors(mech) -> list:
    """End effectors whose target has a translation to slide: frame and point targets."""
    return [j for j in mech.joints if isinstance(j, _LinkEndEffector)
            and j._target_kind in ("frame", "point")]


class Interactive:
    """A mechanism drawing with sliders (made by :func:`interact`).

    Attributes
    ----------
    mechanism : Mechanism
    figure : matplotlib Figure
    ax : matplotlib Axes
        The drawing's Axes (a 3D Axes for a spatial mechanism).
    drawing : Drawing or Drawing3D
        The drawing the sliders move (:func:`~mechsolve.plot.get_drawing`).
    sliders : dict
        ``name -> matplotlib.widgets.Slider``: a driver's name (or label), and
        ``"<end effector>.x"`` (``.y``, ``.z``) for a target's coordinates.
    message : str
        The solver's message after a value that could not be solved, as one string (the
        slider and value first; ``""`` while the mechanism follows the sliders).
    message_text : matplotlib Text
        Where :attr:`message` is shown, at the top of the figure (wrapped to its width).
    failed : list of Joint
        The joints marked in red after such a value (empty otherwise).
    failed_marks : Line2D or Line3D
        The red circles at the failed joints.
    last_good : ndarray
        The state of the last pose that solved (the mechanism's state).
    """

    def __init__(self, mech, *, drivers=None, targets: bool = True, ax=None,
                 **draw_kwargs) -> None:
        dim = _check_mechanism(mech)
        for key in ("state", "result"):
            if key in draw_kwargs:
                raise TypeError(f"interact draws the mechanism's own pose; {key}= is not "
                                "taken")
        self.mechanism = mech
        controls = {}
        for d in _chosen_drivers(mech, drivers):
            controls[d.name or d.label] = _Control(d, angle=_is_angle(d))
        if targets and dim == 3:
            for j in _target_effectors(mech):
                for k, c in enumerate("xyz"):
                    controls[f"{j.name or j.label}.{c}"] = _Control(j, axis=k)
        self._controls = controls
        self.failed: list = []
        error = None
        try:
            mech.solve()
        except SolveError as exc:  # shown in the figure; the pose is kept
            error = exc
        self.last_good = mech.state.copy()
        self.figure, self.ax = self._layout(ax, dim, len(controls))
        draw(mech, self.ax, **draw_kwargs)
        self.drawing = get_drawing(self.ax)
        if ax is None and dim == 2:
            self._fit_axes()
        nowhere = np.full((1, dim), np.nan)
        self.failed_marks = self.drawing._plot_line(nowhere, **_FAILED_STYLE)
        self.message = ""
        self.message_text = self.figure.text(0.01, 0.99, "", **_MESSAGE_STYLE)
        self.message_text.set_visible(False)
        self.sliders = self._make_sliders()
        if error is not None:
            self._show_failure(error, None, None)

    # -- public --------------------------------------------------------------------------------
    def set(self, name: str, value: float) -> None:
        """Move slider ``name`` to ``value`` (its callback solves and redraws).

        A value outside the slider's range widens the range to it.
        """
        slider = self._slider(name)
        value = float(value)
        if value < slider.valmin or value > slider.valmax:
            slider.valmin = min(slider.valmin, value)
            slider.valmax = max(slider.valmax, value)
            slider.ax.set_xlim(slider.valmin, slider.valmax)
        slider.set_val(value)

    def values(self) -> dict:
        """``name -> value`` the mechanism has now (the last good ones)."""
        return {name: c.get() for name, c in self._controls.items()}

    # -- construction --------------------------------------------------------------------------
    def _slider(self, name: str):
        try:
            return self.sliders[name]
        except KeyError:
            raise KeyError(f"no slider {name!r}; the sliders are {', '.join(self.sliders)}") \
                from None

    def _layout(self, ax, dim: int, n: int):
        """The figure and the drawing's Axes, with room for ``n`` slider rows below it."""
        if ax is None:
            import matplotlib.pyplot as plt  # matplotlib on first use

            height = (5.6 if dim == 3 else 4.8) + _ROW * n + 0.3
            fig = plt.figure(figsize=(6.4, height))
            bottom = (_ROW * n + 0.3) / height
            rect = [0.04, bottom, 0.92, 0.97 - bottom]
            ax = fig.add_axes(rect, projection="3d") if dim == 3 else fig.add_axes(rect)
            return fig, ax
        fig = ax.figure
        box = ax.get_position()
        cut = min(0.6 * box.height, (_ROW * n + 0.1) / fig.get_figheight())
        ax.set_position([box.x0, box.y0 + cut, box.width, box.height - cut])
        self._slider_box = (box.x0, box.y0, box.width, cut)
        return fig, ax

    def _fit_axes(self) -> None:
        """Move the drawing's own Axes in from the figure's edges by what its tick labels
        need (measured as drawn), so that none is clipped."""
        fig, ax = self.figure, self.ax
        renderer = _renderer(fig)
        ax.apply_aspect()
        tight = ax.get_tightbbox(renderer).transformed(fig.transFigure.inverted())
        box = ax.get_position(original=True)
        shown = ax.get_position()
        pad = 0.01
        left = max(shown.x0 - tight.x0, 0.0) + pad
        right = max(tight.x1 - shown.x1, 0.0) + pad
        bottom = max(shown.y0 - tight.y0, 0.0) + pad
        top = max(tight.y1 - shown.y1, 0.0) + pad
        x0, y0 = box.x0 - 0.03 + left, box.y0 + bottom
        ax.set_position([x0, y0, box.x1 + 0.03 - right - x0, box.y1 - top - y0])

    def _grow_limits(self) -> None:
        """A planar drawing's limits grown (never shrunk) to the pose shown, so that a slider
        cannot move a body out of sight."""
        d = self.drawing
        if d.dim != 2:
            return
        pts = [np.asarray(m.coords[d.frame], dtype=float).reshape(-1, 2) for m in d._moving]
        pts = np.concatenate(pts) if pts else np.zeros((0, 2))
        pts = pts[np.all(np.isfinite(pts), axis=1)]
        if not len(pts):
            return
        (x0, x1), (y0, y1) = self.ax.get_xlim(), self.ax.get_ylim()
        pad = 2.0 * d.size
        lo, hi = pts.min(axis=0) - pad, pts.max(axis=0) + pad
        if lo[0] < x0 or hi[0] > x1 or lo[1] < y0 or hi[1] > y1:
            self.ax.set_xlim(min(x0, lo[0]), max(x1, hi[0]))
            self.ax.set_ylim(min(y0, lo[1]), max(y1, hi[1]))

    def _make_sliders(self) -> dict:
        from matplotlib.widgets import Slider  # matplotlib on first use

        fig = self.figure
        n = len(self._controls)
        if hasattr(self, "_slider_box"):
            x0, y0, w, h = self._slider_box
        else:
            h = (_ROW * n + 0.2) / fig.get_figheight()
            x0, y0, w = 0.0, 0.0, 1.0
        row = h / max(n, 1)
        length = self.mechanism.length_scale
        sliders = {}
        for k, (name, c) in enumerate(self._controls.items()):
            v = c.get()
            half = np.pi if c.angle else length
            lo, hi = v - half, v + half
            if isinstance(c.joint, DriverJoint) and c.axis is None and not c.angle:
                lo = max(lo, 0.0) if _positive_only(c.joint) else lo
            rect = [x0 + 0.22 * w, y0 + h - (k + 1) * row + 0.2 * row, 0.6 * w, 0.6 * row]
            sax = fig.add_axes(rect)
            label = f"{name} (rad)" if c.angle else name
            slider = Slider(sax, label, lo, hi, valinit=v, valfmt="%.4g")
            slider.label.set_fontsize(8)
            slider.valtext.set_fontsize(8)
            slider.on_changed(lambda value, name=name: self._changed(name, value))
            sliders[name] = slider
        return sliders

    # -- the callback --------------------------------------------------------------------------
    def _changed(self, name: str, value: float) -> None:
        mech = self.mechanism
        control = self._controls[name]
        old = control.get()
        try:
            control.set(float(value))
            mech.solve()
        except (SolveError, ValueError) as exc:
            # A failed solve leaves the state as it was, but not the value assigned: put it
            # back, so that the next slider solves from the last good pose and values.
            if control.get() != old:
                control.set(old)
            if not np.array_equal(mech.state, self.last_good):
                mech.state = self.last_good
            self._show_failure(exc, name, value)
        else:
            self.last_good = mech.state.copy()
            self.drawing.set_state(self.last_good)
            self._grow_limits()
            self._clear_failure()
        self.figure.canvas.draw_idle()

    def _show_failure(self, exc, name, value) -> None:
        """Red circles at the joints that failed, and the message, at the last good pose."""
        result = getattr(exc, "result", None)
        failed = []
        if result is not None:
            tol = _get(result, "tol", None) or 1e-10
            failed, _ = _failed_joints(self.mechanism, result, (), tol)
        self.failed = failed
        d = self.drawing
        if failed:
            pts = np.concatenate([d._anchor_coords(j)[d.frame] for j in failed])
        else:
            pts = np.full((1, d.dim), np.nan)
        d._move(self.failed_marks, "line", pts)
        head = "" if name is None else f"{name} = {value:.6g} cannot be solved: "
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        text = head + first
        if failed:
            text += "\nnot satisfied: " + ", ".join(j.name or j.label for j in failed)
        self.message = text
        wrapped = "\n".join(textwrap.fill(line, 95) for line in text.splitlines())
        self.message_text.set_text(wrapped)
        self.message_text.set_visible(True)

    def _clear_failure(self) -> None:
        self.failed = []
        self.drawing._move(self.failed_marks, "line", np.full((1, self.drawing.dim), np.nan))
        self.message = ""
        self.message_text.set_text("")
        self.message_text.set_visible(False)


def _positive_only(driver) -> bool:
    """Distance drivers take positive values only."""
    from ..joints._drivers import DistanceDriver

    return isinstance(driver, DistanceDriver)


def interact(mech, *, drivers=None, targets: bool = True, ax=None, **draw_kwargs) -> Interactive:
    """Draw a mechanism with a slider per driver (and per end-effector target coordinate).

    Moving a slider sets the driver's value (or the target's coordinate), solves the mechanism
    from its last good pose and moves the drawing to the new pose in place. A value that
    cannot be solved leaves the mechanism at its last good pose and values (the slider keeps
    the value asked for); the joints that were not satisfied get red circles and the solver's
    message is shown at the top of the figure, both until a later value solves.

    In Jupyter, use the ipympl backend (``%matplotlib widget``) for live sliders; in a script,
    ``plt.show()`` opens the window. Keep the returned object alive: it holds the sliders.

    Parameters
    ----------
    mech : Mechanism
        A planar or spatial mechanism (drawn in a 3D Axes).
    drivers : sequence of driver or str, optional
        The drivers to give sliders (default: all of the mechanism's).
    targets : bool
        Spatial only: sliders for the x, y and z of every end effector's target translation
        (frame and point targets).
    ax : matplotlib Axes, optional
        Where to draw (a 3D Axes for a spatial mechanism); its lower part is given to the
        sliders. Default: a new pyplot figure.
    **draw_kwargs
        Passed to :func:`~mechsolve.plot.draw` (``names``, ``trace``, ``shapes``, ``frames``,
        ``view``, ...).

    Slider ranges: an angle driver a full turn centred on its current value (radians); a
    length driver, and a target coordinate, the model's size (:attr:`Mechanism.length_scale`)
    either side of its current value (a distance stays positive).

    Returns
    -------
    Interactive
        ``.figure``, ``.ax``, ``.drawing``, ``.sliders`` (name -> Slider), ``.set(name,
        value)``, ``.message`` (a string, empty while every value solves) and ``.failed``.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.fourbar()
    >>> ui = ms.plot.interact(model.mechanism)
    >>> list(ui.sliders)
    ['motor']
    >>> ui.set("motor", 0.5)
    >>> round(model.driver.value, 12)
    0.5
    >>> import matplotlib.pyplot as plt; plt.close(ui.figure)
    """
    return Interactive(mech, drivers=drivers, targets=targets, ax=ax, **draw_kwargs)
