"""ms.plot.interact (headless, Agg): sliders solve, the drawing follows in place, failures show."""

import matplotlib.pyplot as plt
import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve import plot as msplot
from mechsolve.models import fourbar
from mechsolve.models.spatial import spherical_fourbar


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _xy(line) -> np.ndarray:
    return np.asarray(line.get_xydata(), float)


def _xyz(line) -> np.ndarray:
    return np.column_stack([np.asarray(c, float) for c in line.get_data_3d()])


def _contains(vertices, point, tol=1e-9) -> bool:
    v = np.asarray(vertices, float)
    v = v[np.all(np.isfinite(v), axis=1)]
    return bool(np.any(np.max(np.abs(v - np.asarray(point)), axis=1) <= tol))


def _solved_fourbar(value):
    model = fourbar()
    model.driver.value = value
    model.mechanism.solve()
    return model.mechanism.state


def _rocker_driven():
    """The README four-bar (a crank-rocker) driven by its rocker's angle instead."""
    model = fourbar()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    rocker = mech.body("rocker")
    drive = mech.add(joints.AngleDriver(mech.joint("O4"), -rocker.angle, name="rocker_drive"))
    mech.solve()
    return mech, drive


def test_a_slider_per_driver_and_the_drawing_follows_it():
    model = fourbar()
    mech = model.mechanism
    ui = msplot.interact(mech, names=True)
    assert list(ui.sliders) == ["motor"] and ui.drawing is msplot.get_drawing(ui.ax)
    slider = ui.sliders["motor"]
    assert slider.valmin == pytest.approx(-np.pi) and slider.valmax == pytest.approx(np.pi)
    crank, coupler = mech.body("crank"), mech.body("coupler")
    line = ui.drawing.bodies[crank]
    n_artists = len(ui.ax.get_children())
    for value, move in ((0.9, slider.set_val), (2.2, lambda v: ui.set("motor", v))):
        move(value)
        assert model.driver.value == value
        np.testing.assert_allclose(mech.state, _solved_fourbar(value), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(ui.last_good, mech.state)
        # the crank's line ends at the crank pin, the coupler's passes through it
        pin = crank.to_global((0.5, 0.0))
        assert _contains(_xy(line), pin) and _contains(_xy(ui.drawing.bodies[coupler]), pin)
        assert not ui.message_text.get_visible() and ui.failed == []
    assert len(ui.ax.get_children()) == n_artists  # moved in place: nothing added
    ui.figure.savefig(__import__("io").BytesIO(), format="png", dpi=30)


def test_an_unreachable_value_keeps_the_last_good_pose_and_names_the_driver():
    mech, drive = _rocker_driven()
    ui = msplot.interact(mech)
    rocker = mech.body("rocker")
    start = drive.value
    ui.set("rocker_drive", start - 0.2)  # reachable
    good_state = mech.state.copy()
    good_line = _xy(ui.drawing.bodies[rocker]).copy()
    assert not ui.message_text.get_visible()
    # a failed solve leaves the mechanism's state as it was, not the value assigned
    drive.value = start + 1.5
    with pytest.raises(ms.SolveError, match="rocker_drive"):
        mech.solve()
    np.testing.assert_array_equal(mech.state, good_state)
    assert drive.value == start + 1.5
    drive.value = start - 0.2
    ui.sliders["rocker_drive"].set_val(start + 1.5)  # past the rocker's limit
    assert ui.message_text.get_visible()
    text = ui.message
    assert "rocker_drive" in text and "cannot" in text
    assert ui.failed == [drive]
    # the mechanism is at its last good pose, and interact put the value back
    np.testing.assert_array_equal(mech.state, good_state)
    assert drive.value == pytest.approx(start - 0.2, abs=1e-15)
    np.testing.assert_array_equal(_xy(ui.drawing.bodies[rocker]), good_line)
    # a red circle at the driven joint's pivot (4, 0)
    marks = _xy(ui.failed_marks)
    assert _contains(marks, (4.0, 0.0))
    # a later reachable value clears both
    ui.set("rocker_drive", start + 0.02)
    assert not ui.message_text.get_visible() and ui.message == "" and ui.failed == []
    assert not np.isfinite(_xy(ui.failed_marks)).any()
    assert drive.value == start + 0.02
    direct_mech, direct = _rocker_driven()
    direct.value = start + 0.02
    direct_mech.solve()
    np.testing.assert_allclose(mech.state, direct_mech.state, rtol=0, atol=1e-12)


def test_a_value_the_driver_refuses_is_shown_too():
    model = ms.models.spatial.stewart()
    mech = model.mechanism
    ui = msplot.interact(mech, drivers=["leg1"])
    assert list(ui.sliders) == ["leg1"]
    state = mech.state.copy()
    ui.set("leg1", -1.0)  # a distance must be positive
    assert ui.message_text.get_visible() and "leg1" in ui.message
    np.testing.assert_array_equal(mech.state, state)
    assert model.legs[0].value > 0


def test_spatial_slider_moves_the_spherical_fourbar():
    model = spherical_fourbar()
    mech = model.mechanism
    ui = msplot.interact(mech)
    assert ui.ax.name == "3d"
    name = model.driver.name
    ui.set(name, 0.8)
    direct = spherical_fourbar()
    direct.driver.value = 0.8
    direct.mechanism.solve()
    np.testing.assert_allclose(mech.state, direct.mechanism.state, rtol=0, atol=1e-12)
    out = model.output
    np.testing.assert_allclose(ui.drawing.outline(out),
                               msplot.get_drawing(msplot.draw(
                                   direct.mechanism, plt.figure().add_subplot(projection="3d"))
                               ).outline(direct.output), atol=1e-12)
    assert _contains(_xyz(ui.drawing.bodies[out]), ui.drawing.outline(out)[-1])


def test_target_sliders_move_a_robot_arms_end_effector():
    arm = ms.robots.ur5()
    q = np.array([0.4, -1.1, 1.5, -1.9, -1.57, 0.3])
    model = arm.mechanism(q, target=arm.forward(q))
    ui = msplot.interact(model.mechanism)
    assert list(ui.sliders) == ["tool.x", "tool.y", "tool.z"]
    goal = np.array(model.end_effector.target_frame.translation) + (0.05, -0.03, 0.02)
    for k, c in enumerate("xyz"):
        ui.set(f"tool.{c}", goal[k])
    assert not ui.message_text.get_visible()
    np.testing.assert_allclose(model.tool_frame().translation, goal, atol=1e-9)
    line = ui.drawing.targets[model.end_effector]
    assert _contains(_xyz(line), goal)  # the target's cross moved with it
    ui.set("tool.x", 3.0)  # out of reach
    assert ui.message_text.get_visible() and "tool" in ui.message
    assert ui.failed == [model.end_effector]
    np.testing.assert_allclose(model.tool_frame().translation, goal, atol=1e-9)


def test_interact_on_a_given_axes_and_its_arguments():
    model = fourbar()
    fig = plt.figure()
    ax = fig.add_subplot()
    ui = msplot.interact(model.mechanism, ax=ax)
    assert ui.ax is ax and ui.figure is fig
    assert ui.sliders["motor"].ax.figure is fig
    with pytest.raises(TypeError, match="state="):
        msplot.interact(model.mechanism, state=model.mechanism.state)
    with pytest.raises(KeyError, match="motor"):
        ui.set("nothing", 1.0)
    assert ui.values() == {"motor": model.driver.value}


def test_interact_keeps_its_tick_labels_in_the_figure_and_its_message_is_a_string():
    """As the issue found it: the y tick labels were clipped at the figure's left edge, a
    slider could turn the crank out of sight, and ``ui.message`` was a matplotlib Text."""
    model = fourbar()
    ui = msplot.interact(model.mechanism, names=True)
    fig = ui.figure
    renderer = fig.canvas.get_renderer()
    fig.draw(renderer)
    tight = ui.ax.get_tightbbox(renderer)      # the Axes with its drawn tick labels
    assert tight.x0 >= 0 and tight.y0 >= 0 and tight.x1 <= fig.bbox.x1 and \
        tight.y1 <= fig.bbox.y1
    assert ui.ax.get_yticklabels()[0].get_window_extent(renderer).width > 0
    ui.set("motor", 2.5)                     # the crank swings to the left of its pivot
    (x0, x1), (y0, y1) = ui.ax.get_xlim(), ui.ax.get_ylim()
    crank = ui.drawing.outline(model.mechanism.body("crank"))
    assert np.all((crank[:, 0] > x0) & (crank[:, 0] < x1) & (crank[:, 1] > y0)
                  & (crank[:, 1] < y1))
    assert ui.message == ""
    mech, drive = _rocker_driven()
    ui = msplot.interact(mech)
    ui.set("rocker_drive", drive.value + 1.5)   # past the rocker's limit
    assert isinstance(ui.message, str) and ui.message.startswith("rocker_drive = ")
    assert "cannot be solved" in ui.message and "\n" in ui.message_text.get_text()
