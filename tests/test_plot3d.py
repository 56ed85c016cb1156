"""Spatial drawing and animation (headless, Agg): the artists sit where the bodies are."""

import gc
import io

import matplotlib.pyplot as plt
import numpy as np
import pytest
from mpl_toolkits.mplot3d import proj3d
from PIL import Image

import mechsolve as ms
from mechsolve import joints
from mechsolve import plot as msplot
from mechsolve.models.spatial import (
    SPATIAL_DEMOS,
    STEWART_BASE,
    STEWART_PLATFORM,
    bricard,
    slider_crank_3d,
    spherical_fourbar,
    stewart,
)

# Animations stepped by hand (anim._func) are never rendered by matplotlib itself.
pytestmark = pytest.mark.filterwarnings("ignore:Animation was deleted without rendering")


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")
    gc.collect()  # collect the animations here, where their warning is filtered


def _ax3d():
    return plt.figure().add_subplot(projection="3d")


def _data(line) -> np.ndarray:
    """The global points a Line3D draws, ``(k, 3)``."""
    return np.column_stack([np.asarray(c, float) for c in line.get_data_3d()])


def _contains(vertices, point, tol=1e-9) -> bool:
    v = np.asarray(vertices, float)
    v = v[np.all(np.isfinite(v), axis=1)]
    return bool(np.any(np.max(np.abs(v - np.asarray(point)), axis=1) <= tol))


def _gif_frames(path):
    with Image.open(path) as im:
        assert im.format == "GIF"
        frames = []
        for i in range(im.n_frames):
            im.seek(i)
            frames.append(np.asarray(im.convert("RGB"), dtype=float))
    return len(frames), frames


def _swept(model, every=1):
    mech = model.mechanism
    return mech, mech.sweep(model.driver, model.values[::every])


def _inside_limits(ax, points) -> bool:
    p = np.asarray(points, float).reshape(-1, 3)
    lims = (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())
    return all(np.all((p[:, k] > lo) & (p[:, k] < hi)) for k, (lo, hi) in enumerate(lims))


# -- draw --------------------------------------------------------------------------------------
def test_bodies_drawn_through_their_joint_origins_in_global_coordinates():
    model = bricard()
    mech = model.mechanism
    model.driver.value = 0.3
    mech.solve()
    ax = msplot.draw(mech, _ax3d())
    drawing = msplot.get_drawing(ax)
    assert isinstance(drawing, msplot.Drawing3D) and drawing.ax is ax
    assert set(drawing.bodies) == set(mech.bodies)
    revolutes = [j for j in mech.joints if isinstance(j, joints.Revolute)]
    assert len(revolutes) == 6
    for j in revolutes:
        for body, p in ((j.bodies[0], j.point1), (j.bodies[1], j.point2)):
            g = body.to_global(p)
            if body.is_ground:  # a dark triangle at the ground pivot
                assert _contains(_data(drawing.ground[-1]), g)
                continue
            assert _contains(_data(drawing.bodies[body]), g), (j.name, body.name)
            assert _contains(drawing.outline(body), g)
            assert _contains(drawing.local[body], p)
        assert _contains(_data(drawing.pins), j.bodies[1].to_global(j.point2), 1e-8)
        # the axis segment: through the joint origin, along the joint frame's z axis
        seg = _data(drawing.joint_axes[j])
        z = j.bodies[0].rotation @ ms.Frame(j._p[0:3], ms.Orientation(j._p[3:7])) \
            .orientation.as_matrix()[:, 2]
        np.testing.assert_allclose(seg.mean(axis=0), j.bodies[0].to_global(j.point1), atol=1e-9)
        d = seg[1] - seg[0]
        np.testing.assert_allclose(np.cross(d, z), 0.0, atol=1e-9)
    # equal scaling: the box has the proportions of the limits, which contain every body
    lims = np.array([ax.get_xlim(), ax.get_ylim(), ax.get_zlim()])
    ranges = lims[:, 1] - lims[:, 0]
    box = np.asarray(ax._box_aspect, float)
    np.testing.assert_allclose(box / box[0], ranges / ranges[0], rtol=1e-9)
    for body in mech.bodies:
        assert _inside_limits(ax, drawing.outline(body))


def test_stewart_platform_is_a_hexagon_on_six_legs_over_a_base_hexagon():
    model = stewart()
    mech = model.mechanism
    platform = model.output
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d()))
    tops = np.array([platform.to_global(p) for p in STEWART_PLATFORM])
    outline = drawing.outline(platform)
    assert outline.shape == (6, 3)
    for t in tops:
        assert _contains(outline, t)
    assert platform in drawing.fills  # a flat polygon: filled
    line = _data(drawing.bodies[platform])
    np.testing.assert_allclose(line[0], line[-1])  # a closed ring
    # the legs: one rod per driver, from the base point to the platform point, in orange
    assert set(drawing.rods) == set(model.legs) == set(drawing.drivers)
    for leg, base, top in zip(model.legs, STEWART_BASE, tops):
        np.testing.assert_allclose(_data(drawing.rods[leg]), [base, top], atol=1e-12)
        assert drawing.rods[leg].get_color() == msplot.DRIVER_COLOR
        assert drawing.drivers[leg][1].get_text() == leg.name
    # ground: a plate through the six base points, marked with triangles
    marks = _data(drawing.ground[-1])
    assert len(marks) == 6 and all(_contains(marks, b) for b in STEWART_BASE)


def test_draw_at_a_given_state_with_the_whole_trace():
    model = spherical_fourbar()
    mech, motion = _swept(model)
    q = mech.state
    coupler, point = model.trace[0]
    ax = msplot.draw(mech, _ax3d(), state=motion.states[50], motion=motion, trace=model.trace)
    np.testing.assert_array_equal(mech.state, q)
    drawing = msplot.get_drawing(ax)
    line, dot = drawing.traces[0]
    np.testing.assert_allclose(_data(line), motion.point(coupler, point))
    np.testing.assert_allclose(_data(dot)[0], motion.point(coupler, point)[50])
    assert _inside_limits(ax, motion.point(coupler, point))


def test_spherical_linkage_links_are_sectors_between_their_axes():
    model = spherical_fourbar()
    mech, motion = _swept(model, every=10)
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d(), state=motion.states[5]))
    radii = []
    for body in mech.bodies:
        v = drawing.outline(body)
        assert _contains(v, np.zeros(3))  # the joints' common origin
        r = np.linalg.norm(v, axis=1)
        radii.append(r[r > 1e-9])
        X = motion.pose(body)[5]
        R = ms.Orientation(X[3:]).as_matrix()
        # each of the body's revolute axes pierces its arc
        for j in mech.joints:
            if isinstance(j, joints.Revolute) and body in j.bodies:
                k = j.bodies.index(body)
                f = j._p[3:7] if k == 0 else j._p[10:14]
                u = R @ ms.Orientation(f).as_matrix()[:, 2]
                cos = np.abs(v[r > 1e-9] @ u) / r[r > 1e-9]
                assert cos.max() > 1 - 1e-9, (body.name, j.name)
    radii = np.concatenate(radii)
    np.testing.assert_allclose(radii, radii[0])  # one sphere for the whole linkage


@pytest.mark.parametrize("name", list(SPATIAL_DEMOS))
def test_every_spatial_model_draws_and_animates(name, tmp_path):
    model = SPATIAL_DEMOS[name]()
    mech, motion = _swept(model, every=5)
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d(), motion=motion, trace=model.trace,
                                             names=True, frames=True))
    assert set(drawing.bodies) == set(mech.bodies) and set(drawing.names) == set(mech.bodies)
    assert set(drawing.drivers) == set(mech.drivers)
    drawing.ax.figure.savefig(io.BytesIO(), format="png", dpi=30)
    anim = msplot.animate(mech, motion, trace=model.trace, frames=3)
    anim.save(tmp_path / f"{name}.gif", dpi=25)
    n, frames = _gif_frames(tmp_path / f"{name}.gif")
    assert n == 3 and all(f.std() > 5 for f in frames)


def test_ur5_multibody_model_looks_like_an_arm():
    arm = ms.robots.ur5()
    q = np.array([0.4, -1.1, 1.5, -1.9, -1.57, 0.3])
    target = arm.forward(q)
    model = arm.mechanism(q, target=target)
    mech = model.mechanism
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d(), frames=True))
    links = model.links
    # every link reaches from its joint to the next joint (the next link's origin)
    for a, b in zip(links, links[1:]):
        assert _contains(_data(drawing.bodies[a]), a.position)
        assert _contains(_data(drawing.bodies[a]), b.position)
    # the last link reaches its tool point, where the end effector's target is marked
    tool = np.asarray(target.translation, float)
    assert _contains(drawing.outline(links[-1]), tool, 1e-8)
    ee = model.end_effector
    np.testing.assert_allclose(_data(drawing.targets[ee])[-1], tool, atol=1e-12)
    # the base sits on ground, marked there
    assert _contains(_data(drawing.ground[-1]), np.zeros(3))
    # the revolute axes: segments through each joint along the child's z axis
    for j, link in zip(model.joints, links):
        seg = _data(drawing.joint_axes[j])
        np.testing.assert_allclose(seg.mean(axis=0), link.position, atol=1e-9)
        np.testing.assert_allclose(np.cross(seg[1] - seg[0], link.rotation[:, 2]), 0.0,
                                   atol=1e-9)
    # the frame triads: each body's x axis starts at its origin along its x direction
    xs = _data(drawing.triads[0])
    for link in links:
        assert _contains(xs, link.position, 1e-12)
        assert _contains(xs, link.position + 3.5 * drawing.size * link.rotation[:, 0], 1e-9)


def test_collapsed_serial_chain_is_drawn_through_its_joints():
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    mech, chain = arm.chain_mechanism(q)
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d()))
    pts = _data(drawing.chains[chain])
    assert len(pts) == arm.n_joints + 2
    np.testing.assert_allclose(pts[-1], arm.forward(q).translation, atol=1e-12)
    np.testing.assert_allclose(pts[0], 0.0, atol=1e-12)


def test_slider_rail_covers_the_stroke_and_universal_shows_its_cross():
    model = slider_crank_3d()
    mech, motion = _swept(model, every=4)
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d(), motion=motion))
    guide = mech.joint("guide")
    rail = _data(drawing.rails[guide])
    np.testing.assert_allclose(rail[:, 1:], [[0.5, 0.8], [0.5, 0.8]], atol=1e-12)
    x = motion.pose(mech.body("slider"))[:, 0]
    assert rail[:, 0].min() < x.min() and rail[:, 0].max() > x.max()
    slider = mech.body("slider")  # one attachment point: a marker at it
    np.testing.assert_allclose(drawing.outline(slider), [slider.position])
    assert drawing.bodies[slider].get_marker() == "s"
    cross = _data(drawing.joint_axes[mech.joint("hooke")])
    cross = cross[np.all(np.isfinite(cross), axis=1)]
    assert len(cross) == 4  # two pins
    u, w = cross[1] - cross[0], cross[3] - cross[2]
    assert abs(u @ w) < 1e-9  # perpendicular pins
    arc, text = drawing.drivers[model.driver]
    assert text.get_text() == "motor"
    # the motor's arc arrow turns about the input axis (z) around the origin
    assert np.all(np.abs(_data(arc)[:, 2][np.isfinite(_data(arc)[:, 2])]) < 1e-12)


def test_set_shape_takes_points_in_body_coordinates():
    model = stewart()
    platform = model.output
    outline = [(-1.2, -0.8, 0.0), (1.2, -0.8, 0.0), (1.2, 0.8, 0.0), (-1.2, 0.8, 0.0)]
    shape = msplot.set_shape(platform, outline, color="gold")
    try:
        drawing = msplot.get_drawing(msplot.draw(model.mechanism, _ax3d()))
        expected = np.array([platform.to_global(p) for p in outline])
        np.testing.assert_allclose(drawing.outline(platform), expected, atol=1e-12)
        assert shape.closed and platform in drawing.fills
        assert drawing.bodies[platform].get_color() == "gold"
    finally:
        msplot.set_shape(platform, None)
    with pytest.raises(ValueError, match=r"\(k, 3\)"):
        msplot.set_shape(platform, [(0, 0), (1, 0)])


def test_failed_solve_marks_unsatisfied_joints_in_red_with_residuals():
    model = stewart()
    mech = model.mechanism
    leg = model.legs[0]
    leg.value = 5.0  # out of reach
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    result = info.value.result
    ax = msplot.draw(mech, _ax3d(), result=result)
    drawing = msplot.get_drawing(ax)
    failed = [j for j, r in result.joint_residuals.items() if np.max(np.abs(r)) > result.tol]
    assert failed == [leg] and set(drawing.highlights) == {leg}
    line, note = drawing.highlights[leg]
    assert line.get_color() == msplot.HIGHLIGHT_COLOR and note.get_color() == \
        msplot.HIGHLIGHT_COLOR
    r = result.joint_residuals[leg][0]
    assert note.get_text() == f"leg1: length={r:.3g}"
    # drawn at the pose the residuals belong to, the note anchored on the leg
    platform = model.output
    X = result.state[7 * platform.index:7 * platform.index + 7]
    top = X[:3] + ms.Orientation(X[3:]).as_matrix() @ STEWART_PLATFORM[0]
    np.testing.assert_allclose(_data(line), [STEWART_BASE[0], top], atol=1e-12)
    np.testing.assert_allclose(note.xyz, STEWART_BASE[0])
    # the note is drawn where its anchor projects (it follows the view)
    ax.figure.canvas.draw()
    x, y, _ = proj3d.proj_transform(*STEWART_BASE[0], ax.M)
    np.testing.assert_allclose(note.xy, (x, y))
    # a tolerance above every residual marks nothing
    none = msplot.get_drawing(msplot.draw(mech, _ax3d(), result=result, tol=1e3))
    assert not none.highlights


def test_spatial_needs_a_3d_axes_and_planar_a_2d_one():
    model = stewart()
    mech, motion = _swept(model, every=20)
    flat = plt.figure().add_subplot()
    with pytest.raises(ValueError, match="3D Axes"):
        msplot.draw(mech, flat)
    with pytest.raises(ValueError, match="projection='3d'"):
        msplot.animate(mech, motion, ax=flat)
    planar = ms.models.fourbar().mechanism
    with pytest.raises(ValueError, match="2D Axes"):
        msplot.draw(planar, _ax3d())
    with pytest.raises(ValueError, match="view"):
        msplot.draw(planar, flat, view=(30, 40))
    with pytest.raises(ValueError, match=r"\(x, y, z\)"):
        msplot.draw(mech, _ax3d(), trace=[(model.output, (0.0, 0.0))])
    with pytest.raises(TypeError, match="view"):
        msplot.draw(mech, _ax3d(), view="top")
    with pytest.raises(TypeError, match="Drawing3D"):
        msplot.Drawing(mech, _ax3d())
    # without an Axes: a new figure with a 3D Axes
    ax = msplot.draw(mech, view=(20, 30))
    assert ax.name == "3d" and (ax.elev, ax.azim) == (20, 30)


class _OnSphere(joints.Joint):
    """A user joint: ``point`` of a body stays ``radius`` from the global ``centre``."""

    n_equations = 1
    dims = (3,)

    def __init__(self, body, centre, point, radius):
        super().__init__((body,), [*centre, *point, radius])

    def plot_points(self):
        return [(self.bodies[0], self._p[3:6])]

    @classmethod
    def _phi(cls, P, X):
        from mechsolve.spatial._quat import quat_rotate

        d = X[..., :3] + quat_rotate(X[..., 3:], P[..., 3:6]) - P[..., 0:3]
        return (np.linalg.norm(d, axis=-1) - P[..., 6])[..., None]


def test_every_joint_and_driver_kind_is_drawn():
    mech = ms.Mechanism(dim=3)
    g = mech.ground
    cart = mech.add_body("cart", position=(1.0, 0.0, 0.0))
    arm = mech.add_body("arm", position=(1.0, 0.0, 0.5))
    tip = mech.add_body("tip", position=(1.0, 0.0, 1.2))
    pen = mech.add_body("pen", position=(1.0, 0.3, 1.2))
    wheel = mech.add_body("wheel", position=(-1.0, 0.0, 0.0))
    lift = mech.add_body("lift", position=(-1.0, 1.0, 0.0))
    ball = mech.add_body("ball", position=(0.0, -1.0, 0.0))
    rail = mech.add(joints.Prismatic(g, cart, (0, 0, 0), (0, 0, 0), axis=(1, 0, 0),
                                     name="rail"))
    hinge = mech.add(joints.Revolute(cart, arm, (0, 0, 0), (0, 0, -0.5), axis=(0, 1, 0),
                                     name="hinge"))
    weld = mech.add(joints.Fixed(arm, tip, (0, 0, 0.5), (0, 0, -0.2), name="weld"))
    slot = mech.add(joints.PointOnLine(tip, pen, (0, 0, 0), (0, 0, 0), axis=(0, 1, 0),
                                       name="slot"))
    track = mech.add(joints.CircleJoint(g, wheel, 0.5, (-1.5, 0, 0), name="track"))
    up = mech.add(joints.PrismaticLink(g, lift, (-1.0, 1.0, 0.0), axis=(0, 0, 1), name="up"))
    goal = mech.add(joints.PointEndEffector(pen, (0, 0, 0), target=(1.0, 0.5, 1.2),
                                            name="goal"))
    mech.add(joints.Spherical(g, ball, (0, -1, -0.5), (0, 0, -0.5), name="socket"))
    sphere = mech.add(_OnSphere(ball, (0.0, -1.0, -0.5), (0.0, 0.0, 0.5), 1.0))
    drivers = [mech.add(joints.SlideDriver(rail, 1.0, name="push")),
               mech.add(joints.AngleDriver(hinge, 0.0, name="turn")),
               mech.add(joints.CoordinateDriver(track, 0.3, name="roll")),
               mech.add(joints.CoordinateDriver(up, 0.2, name="raise")),
               mech.add(joints.Driver(wheel, "z", 0.0, name="height"))]
    ax = msplot.draw(mech, _ax3d(), names=True, frames=True, highlight=[goal, weld])
    drawing = msplot.get_drawing(ax)
    assert set(drawing.rails) == {rail, slot, up}
    assert set(drawing.joint_axes) == {hinge}
    assert set(drawing.drivers) == set(drivers)
    assert [t.get_text() for _, t in drawing.drivers.values()] == [d.name for d in drivers]
    assert set(drawing.targets) == {goal}
    np.testing.assert_allclose(_data(drawing.targets[goal]), [pen.position, (1.0, 0.5, 1.2)])
    assert set(drawing.highlights) == {goal, weld}
    assert _contains(_data(drawing.welds), tip.to_global((0, 0, -0.2)))
    # the user joint attaches through plot_points; the ball hangs from its socket
    assert _contains(drawing.outline(ball), ball.to_global((0, 0, 0.5)))
    assert _contains(drawing.outline(ball), ball.to_global((0, 0, -0.5)))
    assert sphere not in drawing.rods
    # the circle track's link: from the wheel's frame to the track's start on ground
    assert _contains(_data(drawing.ground[-1]), (-1.5, 0.0, 0.0))
    ax.figure.savefig(io.BytesIO(), format="png", dpi=30)


def test_failed_serial_chain_is_marked_at_its_tool():
    arm = ms.robots.ur5()
    mech, chain = arm.chain_mechanism(np.zeros(6), target=ms.Frame((3.0, 0.0, 0.0)))
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    result = info.value.result
    ax = msplot.draw(mech, _ax3d(), result=result)
    drawing = msplot.get_drawing(ax)
    line, note = drawing.highlights[chain]
    tool = arm.forward(result.state[-6:]).translation
    np.testing.assert_allclose(_data(line)[0], tool, atol=1e-9)
    assert note.get_text().startswith("ur5: x=")
    ax.figure.savefig(io.BytesIO(), format="png", dpi=30)


# -- animate -----------------------------------------------------------------------------------
def test_stewart_gif_has_the_frames_and_moves(tmp_path):
    model = stewart()
    mech, motion = _swept(model)
    anim = msplot.animate(mech, motion, frames=5)
    assert anim.indices.tolist() == [0, 10, 20, 30, 40]
    path = tmp_path / "stewart.gif"
    anim.save(path, dpi=40)
    n, frames = _gif_frames(path)
    assert n == 5
    assert all(f.std() > 10 for f in frames)  # not blank
    assert all(np.abs(a - b).mean() > 0.05 for a, b in zip(frames, frames[1:]))  # it moves


def test_animation_frames_move_artists_grow_traces_and_keep_the_view():
    model = spherical_fourbar()
    mech, motion = _swept(model)
    coupler, point = model.trace[0]
    anim = msplot.animate(mech, motion, trace=model.trace, step=10, frames=6)
    idx = anim.indices
    drawing = anim.drawing
    ax = drawing.ax
    path = motion.point(coupler, point)
    rocker = mech.body("rocker")
    output = mech.joint("output")
    pivot = np.zeros(3)  # every joint origin of the spherical four-bar
    limits = (ax.get_xlim(), ax.get_ylim(), ax.get_zlim())
    every = np.concatenate([path, motion.point(rocker, output.point2)])
    assert _inside_limits(ax, every)  # limits cover the whole motion
    for k in (0, 2, 5):
        artists = anim._func(k)
        i = idx[k]
        assert drawing.bodies[rocker] in artists
        line, dot = drawing.traces[0]
        np.testing.assert_allclose(_data(line), path[:i + 1])
        np.testing.assert_allclose(_data(dot)[0], path[i])
        assert _contains(drawing.outline(rocker), pivot)
        X = motion.pose(rocker)[i]
        local = drawing.local[rocker]
        expected = X[:3] + local @ ms.Orientation(X[3:]).as_matrix().T
        np.testing.assert_allclose(drawing.outline(rocker), expected, atol=1e-12)
        np.testing.assert_allclose(_data(drawing.bodies[rocker])[:-1], expected, atol=1e-12)
        assert (ax.get_xlim(), ax.get_ylim(), ax.get_zlim()) == limits  # no jumping
    assert artists[-1].get_text().startswith("motor = ")


def test_a_time_sweep_of_a_spatial_driver_animates():
    mech = ms.Mechanism(dim=3)
    arm = mech.add_body("arm", position=(0.5, 0.0, 0.0))
    hinge = mech.add(joints.Revolute(mech.ground, arm, ms.Frame(), ms.Frame((-0.5, 0, 0)),
                                     name="hinge"))
    drive = mech.add(joints.AngleDriver(hinge, 0.0, name="motor"))
    drive.value = ms.profiles.ConstantSpeed(speed=np.pi)
    motion = mech.sweep_time(np.linspace(0.0, 1.0, 11))
    anim = msplot.animate(mech, motion, frames=3)
    assert anim._func(2)[-1].get_text() == "t = 1"
    # one moving body with one joint: a segment from the pivot to the body's origin
    np.testing.assert_allclose(anim.drawing.outline(arm), [[0, 0, 0], motion.pose(arm)[-1, :3]],
                               atol=1e-12)


# -- command line ------------------------------------------------------------------------------
def test_cli_spatial_demos_write_an_animation_and_a_picture(tmp_path, capsys):
    from mechsolve import cli

    assert cli.main(["demo", "--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in SPATIAL_DEMOS)
    gif, png = tmp_path / "stewart.gif", tmp_path / "stewart.png"
    assert cli.main(["demo", "stewart", "--rows", "3", "--output", str(gif), "--plot", str(png),
                     "--frames", "4", "--dpi", "30"]) == 0
    out = capsys.readouterr().out
    assert "platform z" in out and "platform turn" in out
    assert str(gif.resolve()) in out and str(png.resolve()) in out
    n, frames = _gif_frames(gif)
    assert n == 4 and all(f.std() > 10 for f in frames)
    with Image.open(png) as im:
        assert im.format == "PNG" and np.asarray(im.convert("L")).std() > 10
    assert cli.main(["demo", "bricard", "--rows", "2", "--no-animation"]) == 0
    out = capsys.readouterr().out
    assert "poses solved in" in out and "driver deg" in out
