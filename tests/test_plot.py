"""Drawing and animation (headless, Agg): artists sit on the bodies, GIFs are real images."""

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon
from PIL import Image

import mechsolve as ms
from mechsolve import joints
from mechsolve import plot as msplot
from mechsolve.models import DEMOS, fourbar, gear_train, slider_crank


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _vertices(artist) -> np.ndarray:
    if isinstance(artist, Line2D):
        return np.asarray(artist.get_xydata(), float)
    assert isinstance(artist, Polygon)
    return np.asarray(artist.get_xy(), float)


def _contains(vertices, point, tol=1e-9) -> bool:
    v = vertices[np.all(np.isfinite(vertices), axis=1)]
    return bool(np.any(np.max(np.abs(v - np.asarray(point)), axis=1) <= tol))


def _swept(model, every=1):
    mech = model.mechanism
    return mech, mech.sweep(model.driver, model.values[::every])


def _gif_frames(path):
    with Image.open(path) as im:
        assert im.format == "GIF"
        n = im.n_frames
        frames = []
        for i in range(n):
            im.seek(i)
            frames.append(np.asarray(im.convert("RGB"), dtype=float))
    return n, frames


# -- draw --------------------------------------------------------------------------------------
def test_bodies_drawn_through_their_joint_points():
    model = fourbar()
    mech = model.mechanism
    model.driver.value = np.radians(50)
    mech.solve()
    ax = msplot.draw(mech, plt.figure().add_subplot())
    drawing = msplot.get_drawing(ax)
    assert drawing.ax is ax and set(drawing.bodies) == set(mech.bodies)
    for j in mech.joints:
        if not isinstance(j, joints.Revolute):
            continue
        for body, p in ((j.bodies[0], j.point1), (j.bodies[1], j.point2)):
            if body.is_ground:
                continue
            g = body.to_global(p)
            assert _contains(_vertices(drawing.bodies[body]), g), (j, body)
            assert _contains(drawing.outline(body), g)
            assert _contains(drawing.local[body], p)
        # the pin marker sits on the joint
        assert _contains(_vertices(drawing.pins), j.bodies[1].to_global(j.point2), 1e-8)
    # equal aspect and limits that contain every body
    assert ax.get_aspect() == 1.0
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    for body in mech.bodies:
        v = drawing.outline(body)
        assert np.all((v[:, 0] > x0) & (v[:, 0] < x1) & (v[:, 1] > y0) & (v[:, 1] < y1))


def test_draw_at_a_given_state_leaves_the_mechanism_alone():
    model = fourbar()
    mech, motion = _swept(model)
    q = mech.state
    ax = msplot.draw(mech, plt.figure().add_subplot(), state=motion.states[100],
                     motion=motion, trace=model.trace)
    np.testing.assert_array_equal(mech.state, q)
    drawing = msplot.get_drawing(ax)
    coupler = mech.body("coupler")
    X = motion.pose(coupler)[100]
    c, s = np.cos(X[2]), np.sin(X[2])
    expected = X[:2] + np.array([[c, -s], [s, c]]) @ np.array([1.5, 0.0])
    assert _contains(drawing.outline(coupler), expected)
    # the coupler point becomes a vertex (a coupler triangle), its whole path is drawn
    assert len(drawing.local[coupler]) == 3
    line, dot = drawing.traces[0]
    np.testing.assert_allclose(line.get_xydata(), motion.point(*model.trace[0]))
    np.testing.assert_allclose(dot.get_xydata()[0], motion.point(*model.trace[0])[100])


def test_ground_pivots_rails_sliders_and_drivers():
    model = slider_crank(offset=0.5)
    mech, motion = _swept(model)
    ax = msplot.draw(mech, plt.figure().add_subplot(), motion=motion)
    drawing = msplot.get_drawing(ax)
    rail = mech.joint("rail")
    pts = _vertices(drawing.rails[rail])
    np.testing.assert_allclose(pts[:, 1], 0.5)  # along the axis through the rail point
    x = motion.pose(mech.body("slider"))[:, 0]
    assert pts[:, 0].min() < x.min() and pts[:, 0].max() > x.max()  # covers the stroke
    # the slider is a block around its joint point
    slider = mech.body("slider")
    block = drawing.outline(slider)
    assert len(block) == 4 and np.allclose(block.mean(axis=0), slider.position)
    # one hatched ground pivot (the crank's), a guide under the rail
    assert len(drawing.ground) >= 3
    line, text = drawing.drivers[model.driver]
    assert text.get_text() == "motor"
    # the motor's arc arrow turns about the crank's ground pivot, the origin
    xy = line.get_xydata()
    assert np.linalg.norm(np.nanmean(xy, axis=0)) < 2 * drawing.size


def test_gears_drawn_as_pitch_circles_turning_with_the_gear():
    model = gear_train()
    mech, motion = _swept(model, every=10)
    ax = msplot.draw(mech, plt.figure().add_subplot(), state=motion.states[3])
    drawing = msplot.get_drawing(ax)
    for j in mech.joints:
        if not isinstance(j, joints.Gear):
            continue
        for body, r in ((j.bodies[0], j._p[0]), (j.bodies[1], abs(j._p[1]))):
            poly = drawing.gears[(body, float(r))]
            centre = motion.pose(body)[3, :2]
            rim = _vertices(poly)[1:-1]
            np.testing.assert_allclose(np.linalg.norm(rim - centre, axis=1), r, atol=1e-9)
            # the spoke shows the gear's angle
            a = motion.pose(body)[3, 2]
            np.testing.assert_allclose(_vertices(poly)[1], centre + r * np.array(
                [np.cos(a), np.sin(a)]), atol=1e-9)
    assert len(drawing.racks) == 1


def test_set_shape_replaces_the_joint_outline():
    model = fourbar()
    mech = model.mechanism
    coupler = mech.body("coupler")
    outline = [(-1.5, 0.0), (1.5, 0.0), (0.5, 1.2), (-0.5, 1.2)]
    shape = msplot.set_shape(coupler, outline, color="gold")
    try:
        assert msplot.get_shape(coupler) is shape and shape.closed
        drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot()))
        expected = np.array([coupler.to_global(p) for p in outline])
        np.testing.assert_allclose(drawing.outline(coupler)[:4], expected)
        # a per-drawing override, open polyline
        other = msplot.get_drawing(msplot.draw(
            mech, plt.figure().add_subplot(), shapes={coupler: [(-1.5, 0), (0, -0.5), (1.5, 0)]}))
        assert isinstance(other.bodies[coupler], Polygon)  # 3 points: closed by default
    finally:
        msplot.set_shape(coupler, None)
    assert msplot.get_shape(coupler) is None
    with pytest.raises(ValueError, match="shape"):
        msplot.set_shape(coupler, [(0, 0, 0)])
    with pytest.raises(ValueError, match="ground"):
        msplot.set_shape(mech.ground, [(0, 0), (1, 0)])


def test_failed_solve_marks_unsatisfied_joints_in_red_with_residuals():
    model = fourbar()
    mech = model.mechanism
    mech.add(joints.Driver(mech.body("coupler"), "y", 50.0, name="impossible"))
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    result = info.value.result
    ax = msplot.draw(mech, plt.figure().add_subplot(), result=result)
    drawing = msplot.get_drawing(ax)
    failed = [j for j, r in result.joint_residuals.items() if np.max(np.abs(r)) > 1e-10]
    assert failed and set(drawing.highlights) == set(failed)
    impossible = mech.joint("impossible")
    line, note = drawing.highlights[impossible]
    assert line.get_color() == msplot.HIGHLIGHT_COLOR
    r = result.joint_residuals[impossible][0]
    assert note.get_text() == f"impossible: y={r:.3g}"
    assert note.get_color() == msplot.HIGHLIGHT_COLOR
    # the same from mech.last_result; a tolerance above every residual marks nothing
    again = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(),
                                           result=mech.last_result))
    assert set(again.highlights) == set(failed)
    none = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(), result=result,
                                          tol=1e3))
    assert not none.highlights


def test_highlight_joints_by_hand():
    model = fourbar()
    mech = model.mechanism
    pin = mech.joint("B")
    drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(),
                                             highlight=[pin]))
    line, note = drawing.highlights[pin]
    assert note.get_text() == "B"
    assert _contains(_vertices(line), mech.body("rocker").to_global(pin.point2), 1e-8)


def test_spatial_mechanisms_need_a_mechanism_and_drawing3d():
    # spatial mechanisms are drawn by Drawing3D (tests/test_plot3d.py), not Drawing
    mech = ms.Mechanism(dim=3)
    with pytest.raises(TypeError, match="Drawing3D"):
        msplot.Drawing(mech, plt.figure().add_subplot())
    with pytest.raises(TypeError, match="Mechanism"):
        msplot.draw("not a mechanism")


# -- animate -----------------------------------------------------------------------------------
def test_gif_has_the_frames_and_shows_the_motion(tmp_path):
    model = fourbar()
    mech, motion = _swept(model)
    anim = msplot.animate(mech, motion, trace=model.trace, frames=6)
    assert len(anim.indices) == 6 and anim.indices[0] == 0 and anim.indices[-1] == 360
    path = tmp_path / "fourbar.gif"
    anim.save(path, dpi=40)
    n, frames = _gif_frames(path)
    assert n == 6
    assert all(f.std() > 10 for f in frames)  # not blank
    assert all(np.abs(a - b).mean() > 0.1 for a, b in zip(frames, frames[1:]))  # it moves


def test_animation_frames_move_artists_and_grow_traces():
    model = fourbar()
    mech, motion = _swept(model)
    anim = msplot.animate(mech, motion, trace=model.trace, step=30, frames=8)
    idx = anim.indices
    assert np.all(np.diff(idx) % 30 == 0) and len(idx) == 8
    drawing = anim.drawing
    path = motion.point(*model.trace[0])
    rocker = mech.body("rocker")
    x0, x1 = drawing.ax.get_xlim()
    y0, y1 = drawing.ax.get_ylim()
    every = motion.point(rocker, (-1.75, 0.0))
    assert np.all((every[:, 0] > x0) & (every[:, 0] < x1))  # limits fixed over the motion
    assert np.all((every[:, 1] > y0) & (every[:, 1] < y1))
    for k in (0, 3, 7):
        artists = anim._func(k)
        i = idx[k]
        assert drawing.bodies[rocker] in artists
        line, dot = drawing.traces[0]
        np.testing.assert_allclose(line.get_xydata(), path[:i + 1])
        np.testing.assert_allclose(dot.get_xydata()[0], path[i])
        assert _contains(drawing.outline(rocker), every[i])


def test_mp4_needs_ffmpeg(monkeypatch, tmp_path):
    from matplotlib import animation

    model = fourbar()
    mech, motion = _swept(model, every=30)
    anim = msplot.animate(mech, motion, frames=2)
    monkeypatch.setattr(animation.writers, "is_available", lambda name: False)
    with pytest.raises(RuntimeError, match="ffmpeg"):
        anim.save(tmp_path / "x.mp4")
    with pytest.raises(ValueError, match="format"):
        anim.save(tmp_path / "x.unknown")
    assert not (tmp_path / "x.mp4").exists()


@pytest.mark.parametrize("name", list(DEMOS))
def test_every_demo_draws_and_animates(name, tmp_path):
    model = DEMOS[name]()
    mech, motion = _swept(model, every=6)
    drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(), motion=motion,
                                             trace=model.trace, names=True))
    assert drawing.bodies or drawing.gears
    anim = msplot.animate(mech, motion, trace=model.trace, frames=3)
    anim.save(tmp_path / f"{name}.gif", dpi=25)
    n, frames = _gif_frames(tmp_path / f"{name}.gif")
    assert n == 3 and frames[0].std() > 5


def test_animate_checks_its_arguments():
    model = fourbar()
    mech, motion = _swept(model, every=30)
    other = fourbar().mechanism
    with pytest.raises(ValueError, match="different mechanism"):
        msplot.animate(other, motion)
    with pytest.raises(ValueError, match="frames"):
        msplot.animate(mech, motion, frames=0)
    with pytest.raises(ValueError, match="step"):
        msplot.animate(mech, motion, step=0)
    with pytest.raises(TypeError, match="pairs"):
        msplot.animate(mech, motion, trace=[mech.body("coupler")])
    with pytest.raises(ValueError, match="not part"):
        msplot.animate(mech, motion, trace=[(other.body("coupler"), (0, 0))])


# -- plot_motion -------------------------------------------------------------------------------
def test_plot_motion_data_equals_motion_point_and_pose():
    model = fourbar()
    mech, motion = _swept(model)
    coupler = mech.body("coupler")
    ax = msplot.plot_motion(motion, coupler, point=(0.0, 1.0), ax=plt.figure().add_subplot())
    path = motion.point(coupler, (0.0, 1.0))
    x_line, y_line = ax.lines
    np.testing.assert_allclose(x_line.get_xdata(), np.degrees(motion.values))
    np.testing.assert_allclose(x_line.get_ydata(), path[:, 0])
    np.testing.assert_allclose(y_line.get_ydata(), path[:, 1])
    assert ax.get_xlabel() == "motor (deg)"
    ax = msplot.plot_motion(motion, mech.body("rocker"), "angle", ax=plt.figure().add_subplot())
    np.testing.assert_allclose(ax.lines[0].get_ydata(),
                               np.degrees(motion.pose(mech.body("rocker"))[:, 2]))
    ax = msplot.plot_motion(motion, coupler, "y", point=(1.0, 0.0), degrees=False,
                            ax=plt.figure().add_subplot())
    np.testing.assert_allclose(ax.lines[0].get_xdata(), motion.values)
    np.testing.assert_allclose(ax.lines[0].get_ydata(), motion.point(coupler, (1, 0))[:, 1])
    with pytest.raises(ValueError, match="coordinate"):
        msplot.plot_motion(motion, coupler, "z")
    with pytest.raises(ValueError, match="angle"):
        msplot.plot_motion(motion, coupler, "angle", point=(0, 1))


class _PinOnCircle(joints.Joint):
    """A user joint: ``point2`` of body 2 on a circle of ``radius`` about ground ``centre``."""

    n_equations = 1

    def __init__(self, body, centre, point, radius):
        super().__init__((body.mechanism.ground, body), [*centre, *point, radius])

    def plot_points(self):
        return [(self.bodies[0], self._p[0:2]), (self.bodies[1], self._p[2:4])]

    @classmethod
    def _phi(cls, P, X1, X2):
        c, s = np.cos(X2[..., 2]), np.sin(X2[..., 2])
        x = X2[..., 0] + c * P[..., 2] - s * P[..., 3] - P[..., 0]
        y = X2[..., 1] + s * P[..., 2] + c * P[..., 3] - P[..., 1]
        return (np.hypot(x, y) - P[..., 4])[..., None]


def test_user_joints_attach_through_plot_points():
    mech = ms.Mechanism()
    link = mech.add_body("link", position=(1.0, 0.0))
    mech.add(joints.Revolute(mech.ground, link, (0, 0), (-1, 0)))
    mech.add(_PinOnCircle(link, (2.0, 1.0), (1.0, 0.0), 1.0))
    mech.solve()  # no driver: the circle fixes the link
    drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot()))
    assert _contains(drawing.outline(link), link.to_global((1.0, 0.0)))
    assert _contains(drawing.outline(link), link.to_global((-1.0, 0.0)))


def test_time_sweeps_animate_and_plot_against_time(tmp_path):
    model = fourbar()
    mech = model.mechanism
    model.driver.value = ms.profiles.ConstantSpeed(speed=2 * np.pi)
    motion = mech.sweep_time(np.linspace(0.0, 0.5, 31))
    anim = msplot.animate(mech, motion, trace=model.trace, frames=3)
    assert anim._func(2)[-1].get_text() == "t = 0.5"
    ax = msplot.plot_motion(motion, mech.body("rocker"), ax=plt.figure().add_subplot())
    assert ax.get_xlabel() == "time (s)"
    np.testing.assert_allclose(ax.lines[0].get_xdata(), motion.values)


def test_every_joint_and_driver_kind_is_drawn():
    mech = ms.Mechanism()
    g = mech.ground
    a = mech.add_body("carriage", position=(1.0, 0.0))
    b = mech.add_body("arm", position=(1.5, 0.5), angle=0.8)
    c = mech.add_body("bracket", position=(2.0, 1.0), angle=0.8)
    d = mech.add_body("follower", position=(2.5, 1.5))
    rail = mech.add(joints.Prismatic(g, a, (0, 0), (0, 0), axis=(1, 0), name="rail"))
    pin = mech.add(joints.Revolute(a, b, (0, 0), (-0.7, 0), name="pin"))
    mech.add(joints.Fixed(b, c, (0.7, 0), (0, 0), name="weld"))
    slot = mech.add(joints.PointOnLine(c, d, (0, 0), (0, 0), axis=(1, 0), name="slot"))
    rod = mech.add(joints.Distance(g, d, (3, 0), (0, 0), length=1.6, name="rod"))
    drivers = [mech.add(joints.SlideDriver(rail, 1.0, name="push")),
               mech.add(joints.AngleDriver(pin, 0.8, name="turn")),
               mech.add(joints.DistanceDriver(g, b, (0, 1), (0, 0), 1.5, name="jack"))]
    drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(), names=True))
    assert set(drawing.rods) == {rod, drivers[2]}
    assert set(drawing.rails) == {rail, slot}
    assert set(drawing.drivers) == set(drivers)
    assert _contains(_vertices(drawing.welds), b.to_global((0.7, 0)), 1e-9)
    assert _contains(_vertices(drawing.pins), d.position, 1e-9)  # the pin in the slot
    np.testing.assert_allclose(_vertices(drawing.rods[rod]), [(3, 0), d.position])
    assert set(drawing.names) == set(mech.bodies)
    # the slot runs along the bracket's x axis through its origin
    v = _vertices(drawing.rails[slot])
    u = c.vector_to_global((1.0, 0.0))
    w = v - c.position
    assert np.allclose(w[:, 0] * u[1] - w[:, 1] * u[0], 0.0, atol=1e-9)


def test_body_frames_drawn_as_triads():
    model = fourbar()
    mech = model.mechanism
    drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(), frames=True))
    xs, ys = (_vertices(line) for line in drawing.triads)
    length = 2.5 * drawing.size
    for body in mech.bodies:
        assert _contains(xs, body.position)
        assert _contains(xs, body.to_global((length, 0.0)))
        assert _contains(ys, body.to_global((0.0, length)))
    assert _contains(xs, (length, 0.0))  # ground's frame: the global axes


# -- plots that cooperate (issue 30, item 4) ---------------------------------------------------
def test_plot_motion_after_animate_makes_its_own_figure():
    """As the issue tried it: plot_motion(motion, ram, "x") after animate(...) drew into the
    animation's Axes."""
    model = ms.models.quick_return()
    mech = model.mechanism
    motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 37))
    anim = msplot.animate(mech, motion, frames=3)
    before = list(anim.drawing.ax.lines)
    ram = mech.body("ram")
    ax = msplot.plot_motion(motion, ram, "x")
    assert ax is not anim.drawing.ax and ax.figure is not anim.drawing.ax.figure
    assert list(anim.drawing.ax.lines) == before
    np.testing.assert_array_equal(ax.lines[0].get_ydata(), motion.pose(ram)[:, 0])
    for plot in (lambda: msplot.plot_measure(motion, "mechanical_advantage", ram),
                 lambda: msplot.draw(mech)):
        assert plot().figure not in (ax.figure, anim.drawing.ax.figure)


def test_draw_only_grows_the_limits_the_user_set_or_drew():
    model = fourbar()
    mech = model.mechanism
    # a curve drawn first, reaching far past the linkage, is not cropped
    fig, ax = plt.subplots()
    ax.plot([-10.0, 12.0], [-6.0, 9.0])
    msplot.draw(mech, ax)
    x0, x1 = ax.get_xlim()
    y0, y1 = ax.get_ylim()
    assert x0 <= -10.0 and x1 >= 12.0 and y0 <= -6.0 and y1 >= 9.0
    # limits set by hand around a part of the linkage grow to the whole of it, no further
    fig, ax = plt.subplots()
    ax.set_xlim(1.0, 2.0)
    ax.set_ylim(0.5, 1.0)
    msplot.draw(mech, ax)
    drawing = msplot.get_drawing(ax)
    own = msplot.draw(mech, plt.figure().add_subplot())
    lo = np.minimum([own.get_xlim()[0], own.get_ylim()[0]], [1.0, 0.5])
    hi = np.maximum([own.get_xlim()[1], own.get_ylim()[1]], [2.0, 1.0])
    np.testing.assert_allclose(drawing.limits, (lo[0], hi[0], lo[1], hi[1]))
    # limits set wider than the linkage are kept as they are
    fig, ax = plt.subplots()
    ax.set_xlim(-50.0, 50.0)
    ax.set_ylim(-40.0, 40.0)
    msplot.draw(mech, ax)
    assert msplot.get_drawing(ax).limits == (-50.0, 50.0, -40.0, 40.0)


def test_spatial_draw_only_grows_the_limits_too():
    model = ms.models.spatial.rssr()
    ax = plt.figure().add_subplot(projection="3d")
    ax.plot([-20.0, 20.0], [-20.0, 20.0], [-20.0, 20.0])
    msplot.draw(model.mechanism, ax)
    for lim in (ax.get_xlim(), ax.get_ylim(), ax.get_zlim()):
        assert lim[0] <= -20.0 and lim[1] >= 20.0


def test_axis_labels_carry_the_length_unit():
    model = slider_crank()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values[::10])
    slider = model.output
    ax = msplot.plot_motion(motion, slider, "x")
    assert ax.get_ylabel() == "slider x" and ax.get_xlabel() == "motor (deg)"
    mech.units = {"length": "mm", "angle": "deg"}      # as a model file declares them
    ax = msplot.plot_motion(motion, slider, "x")
    assert ax.get_ylabel() == "slider x (mm)"
    ax = msplot.plot_motion(motion, slider, point=(0.0, 0.0), units="in")
    assert ax.get_ylabel() == "x, y (in)"
    ax = msplot.plot_motion(motion, mech.body("crank"))
    assert ax.get_ylabel() == "crank angle (deg)"
    ax = msplot.draw(mech)
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (mm)", "y (mm)")
    ax = msplot.draw(mech, units="m")
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("x (m)", "y (m)")
    mech.units = {}
    assert msplot.draw(mech).get_xlabel() == ""            # no unit known: no label
    # a length driver's axis carries the unit too
    model = ms.models.spatial.stewart()
    motion = model.mechanism.sweep(model.legs[0], np.linspace(2.0, 2.1, 3))
    ax = msplot.plot_motion(motion, model.mechanism.body("platform"), "z", units="m")
    assert ax.get_xlabel() == f"{model.legs[0].name} (m)"
    ax = msplot.draw(model.mechanism, units="m")
    assert ax.get_zlabel() == "z (m)"
    with pytest.raises(TypeError, match="units must be the name of a length unit"):
        msplot.plot_motion(motion, model.mechanism.body("platform"), "z", units=3)


def test_a_joint_of_ones_own_is_drawn_from_its_points(tmp_path, monkeypatch):
    """As the issue found it: a custom (symbolic) joint was not drawn at all. A symbolic pin
    that gives its points (``plot_points``) puts them on its bodies' outlines, and they are
    marked where the joint is."""
    import sympy as sp

    from mechsolve.symbolic import body_symbols, symbolic_joint

    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    b1, b2 = body_symbols(2)
    px, py, qx, qy = sp.symbols("px py qx qy")
    Pin = symbolic_joint("DrawnPin", bodies=(b1, b2), params=(px, py, qx, qy),
                         phi=b1.to_global(px, py) - b2.to_global(qx, qy))
    Pin.plot_points = lambda self: [(self.bodies[0], (self.px, self.py)),
                                    (self.bodies[1], (self.qx, self.qy))]
    mech = ms.Mechanism()
    g = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0))
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    pins = [mech.add(Pin(g, crank, px=0.0, py=0.0, qx=-0.5, qy=0.0, name="O2")),
            mech.add(Pin(crank, coupler, px=0.5, py=0.0, qx=-1.5, qy=0.0, name="A")),
            mech.add(Pin(coupler, rocker, px=1.5, py=0.0, qx=-1.75, qy=0.0, name="B")),
            mech.add(Pin(rocker, g, px=1.75, py=0.0, qx=4.0, qy=0.0, name="O4"))]
    mech.add(joints.Driver(crank, "angle", 0.3, name="motor"))
    mech.solve()
    ax = msplot.draw(mech)
    drawing = msplot.get_drawing(ax)
    assert set(drawing.custom) == set(pins)
    for j in pins:
        marks = _vertices(drawing.custom[j])
        for b, p in j.plot_points():
            at = np.asarray(p, float) if b.is_ground else b.to_global(p)
            assert _contains(marks, at)
            if not b.is_ground:
                assert _contains(_vertices(drawing.bodies[b]), at)
    # the built-in joints keep their own marks
    model = fourbar()
    assert msplot.get_drawing(msplot.draw(model.mechanism)).custom == {}
