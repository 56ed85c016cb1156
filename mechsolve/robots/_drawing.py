"""Drawing a serial arm at joint values, and animating it along a joint trajectory.

The arm is drawn in a 3D matplotlib Axes as the polyline from its base through its joint
origins to its tool, joints as circles with a short segment along each axis, the base as a
triangle and the tool frame as a triad (x red, y green, z blue). Limits are a box about the
arm drawn (an animation: a cube about the base as wide as the arm's reach, so that the view
does not jump as it moves), with equal scaling; limits the Axes already had (set by the user,
or around what the user drew) only grow. Private: used by
:meth:`SerialArm.plot <mechsolve.robots.SerialArm.plot>` and :meth:`SerialArm.animate
<mechsolve.robots.SerialArm.animate>`.
"""

from __future__ import annotations

import numpy as np

__all__ = ["plot_arm", "animate_arm"]

_LINK = {"color": "#1f77b4", "linewidth": 3.0, "solid_capstyle": "round", "zorder": 3}
_JOINT = {"linestyle": "none", "marker": "o", "markersize": 7, "markerfacecolor": "white",
          "markeredgecolor": "k", "markeredgewidth": 1.2, "zorder": 5}
_AXIS = {"color": "0.25", "linewidth": 1.5, "zorder": 4}
_BASE = {"linestyle": "none", "marker": "^", "markersize": 11, "color": "#444444", "zorder": 4}
_TRIAD = ("#e41a1c", "#4daf4a", "#377eb8")
_TRACE = {"color": "#d62728", "linewidth": 1.2, "zorder": 2}


def _new_3d_axes():
    import matplotlib.pyplot as plt  # matplotlib on first use: import mechsolve stays light

    return plt.figure(figsize=(6.0, 5.6)).add_subplot(projection="3d")


def _check_3d(ax) -> None:
    if getattr(ax, "name", "") != "3d":
        raise ValueError("ax must be a 3D Axes (fig.add_subplot(projection='3d')): an arm is "
                         "drawn in space")


class _ArmArtists:
    """The lines of one arm drawing, moved to any joint values by :meth:`set`."""

    def __init__(self, arm, ax, trace: bool) -> None:
        self.arm = arm
        self.ax = ax
        L = arm.length_scale
        self.axis_length = 0.06 * L
        self.triad_length = 0.1 * L
        nan = [np.nan]
        self.links = ax.plot(nan, nan, nan, **_LINK)[0]
        self.joints = ax.plot(nan, nan, nan, **_JOINT)[0]
        self.axes = ax.plot(nan, nan, nan, **_AXIS)[0]
        base = arm.base.translation
        self.base = ax.plot([base[0]], [base[1]], [base[2]], **_BASE)[0]
        self.triad = [ax.plot(nan, nan, nan, color=c, linewidth=2.0, zorder=6)[0]
                      for c in _TRIAD]
        self.trace = ax.plot(nan, nan, nan, **_TRACE)[0] if trace else None

    @property
    def artists(self) -> list:
        out = [self.links, self.joints, self.axes, *self.triad]
        return out + ([self.trace] if self.trace is not None else [])

    def geometry(self, q) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The polyline (base, joints, tool), the joint axes and the tool frame at ``q``."""
        arm = self.arm
        frames = arm.link_frames(q)                     # (n, 4, 4), z along each axis
        tool = arm.forward_matrix(q)
        origins = frames[:, :3, 3]
        points = np.vstack([arm.base.translation, origins, tool[:3, 3]])
        h = 0.5 * self.axis_length
        axes = np.full((3 * len(frames), 3), np.nan)
        axes[0::3] = origins - h * frames[:, :3, 2]
        axes[1::3] = origins + h * frames[:, :3, 2]
        return points, axes, tool

    def set(self, q, trace_path=None) -> list:
        points, axes, tool = self.geometry(q)
        self.links.set_data_3d(*points.T)
        self.joints.set_data_3d(*points[1:-1].T)
        self.axes.set_data_3d(*axes.T)
        for k, line in enumerate(self.triad):
            end = tool[:3, 3] + self.triad_length * tool[:3, k]
            line.set_data_3d(*np.column_stack([tool[:3, 3], end]))
        if self.trace is not None and trace_path is not None:
            self.trace.set_data_3d(*np.asarray(trace_path).T)
        return self.artists


def _prior_limits(ax) -> np.ndarray | None:
    auto = ax.get_autoscalex_on() and ax.get_autoscaley_on() and ax.get_autoscalez_on()
    if auto and not ax.has_data():
        return None
    return np.array([ax.get_xlim(), ax.get_ylim(), ax.get_zlim()], dtype=float)


def _set_limits(ax, arm, prior, points, *, reach: bool) -> None:
    """Equal scaling about the points drawn, grown to cover ``prior``: a cube about the base
    as wide as the arm's reach (``reach``: an animation, whose view must not jump), else a
    box about the points with a margin of a tenth of the reach."""
    L = arm.length_scale
    if reach:
        centre = np.asarray(arm.base.translation, dtype=float)
        half = np.full(3, 1.05 * max(L, float(np.max(np.abs(points - centre)))))
    else:
        lo, hi = points.min(axis=0), points.max(axis=0)
        centre = 0.5 * (lo + hi)
        half = np.maximum(0.5 * (hi - lo) + 0.1 * L, 0.15 * L)
    lo, hi = centre - half, centre + half
    if prior is not None:
        lo, hi = np.minimum(lo, prior[:, 0]), np.maximum(hi, prior[:, 1])
    ax.set_xlim(lo[0], hi[0])
    ax.set_ylim(lo[1], hi[1])
    ax.set_zlim(lo[2], hi[2])
    ax.set_box_aspect(tuple(hi - lo))
    for name in "xyz":
        if not getattr(ax, f"get_{name}label")():
            getattr(ax, f"set_{name}label")(name)


def plot_arm(arm, q, ax=None, *, title: str | None = None):
    """Draw ``arm`` at joint values ``q`` (see :meth:`SerialArm.plot`); returns the Axes."""
    q = arm._q(q)
    if q.ndim != 1:
        raise ValueError(f"q: one set of joint values, shape ({arm.n_joints},), is drawn; got "
                         f"shape {q.shape} (animate a trajectory with arm.animate)")
    if ax is None:
        ax = _new_3d_axes()
    _check_3d(ax)
    prior = _prior_limits(ax)
    drawing = _ArmArtists(arm, ax, trace=False)
    drawing.set(q)
    points, _, _ = drawing.geometry(q)
    _set_limits(ax, arm, prior, points, reach=False)
    if title is not None:
        ax.set_title(title)
    ax.arm_drawing = drawing
    return ax


def animate_arm(arm, trajectory, ax=None, *, interval: float = 40, trace: bool = True,
                repeat: bool = True):
    """Animate ``arm`` along joint values (see :meth:`SerialArm.animate`)."""
    from matplotlib.animation import FuncAnimation  # matplotlib on first use

    Q = getattr(trajectory, "q", trajectory)
    Q = arm._q(Q, "trajectory")
    if Q.ndim != 2 or len(Q) < 1:
        raise ValueError(f"trajectory: joint values of shape (N, {arm.n_joints}) (or a "
                         f"JointTrajectory), got shape {Q.shape}")
    interval = float(interval)
    if not interval > 0:
        raise ValueError(f"interval must be positive (milliseconds), got {interval}")
    if ax is None:
        ax = _new_3d_axes()
    _check_3d(ax)
    prior = _prior_limits(ax)
    drawing = _ArmArtists(arm, ax, trace=trace)
    tips = arm.forward_matrix(Q)[:, :3, 3]
    frames = [drawing.geometry(q)[0] for q in Q]
    _set_limits(ax, arm, prior, np.concatenate(frames), reach=True)

    def update(k):
        return drawing.set(Q[k], tips[:k + 1])

    update(0)
    anim = FuncAnimation(ax.figure, update, frames=len(Q), interval=interval, blit=False,
                         repeat=repeat, cache_frame_data=False)
    anim.drawing = drawing
    anim.q = Q
    return anim
