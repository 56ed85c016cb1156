"""Drawings that look right by default (headless, Agg): legs, pedestals, named points, labels."""

import pathlib

import matplotlib.pyplot as plt
import numpy as np
import pytest
from mpl_toolkits.mplot3d import proj3d

import mechsolve as ms
from mechsolve import plot as msplot
from mechsolve.body import Body
from mechsolve.models import fourbar, watt_sixbar
from mechsolve.models.spatial import RPS_BASE_RADIUS, RPS_PLATFORM_RADIUS, stewart, three_rps

ARM6R = pathlib.Path(__file__).resolve().parents[1] / "examples" / "models" / "arm6r.urdf"
UR5_URDF = pathlib.Path(__file__).resolve().parent / "data" / "ur5.urdf"


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _ax3d():
    return plt.figure().add_subplot(projection="3d")


def _data(line) -> np.ndarray:
    return np.column_stack([np.asarray(c, float) for c in line.get_data_3d()])


def _contains(vertices, point, tol=1e-9) -> bool:
    v = np.asarray(vertices, float)
    v = v[np.all(np.isfinite(v), axis=1)]
    return bool(np.any(np.max(np.abs(v - np.asarray(point)), axis=1) <= tol))


@pytest.fixture
def named_points(monkeypatch):
    """Give bodies a ``points`` mapping (name -> body coordinates) for the test's bodies."""
    table: dict = {}
    monkeypatch.setattr(Body, "points", property(lambda self: table.get(self, {})),
                        raising=False)
    return table


# -- 3-RPS: its legs are drawn ------------------------------------------------------------------
def test_three_rps_solves_sweeps_and_is_drawn_with_its_three_legs():
    model = three_rps()
    mech = model.mechanism
    report = mech.dof()
    assert report.dof == 3 and len(mech.drivers) == 3
    motion = mech.sweep(model.driver, model.values)
    assert motion.residuals.max() < 1e-10
    state = motion.states[-1]
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d(), state=state, motion=motion))
    assert len(drawing.legs) == 3
    platform = model.output
    mech.state = state
    for i, (_, line) in enumerate(sorted(drawing.legs.items(), key=lambda kv: kv[0].name)):
        a = np.radians(90.0 + 120.0 * i)
        radial = np.array([np.cos(a), np.sin(a), 0.0])
        ends = _data(line)
        np.testing.assert_allclose(ends[0], RPS_BASE_RADIUS * radial, atol=1e-12)
        np.testing.assert_allclose(ends[1], platform.to_global(RPS_PLATFORM_RADIUS * radial),
                                   atol=1e-12)
        # the leg is as long as its driver says
        assert np.linalg.norm(ends[1] - ends[0]) == pytest.approx(model.legs[i].value
                                                                  if i else model.values[-1])


def test_legs_only_for_sliding_joints():
    assert msplot.get_drawing(msplot.draw(stewart().mechanism, _ax3d())).legs == {}
    model = ms.models.spatial.slider_crank_3d()
    drawing = msplot.get_drawing(msplot.draw(model.mechanism, _ax3d()))
    assert [j.name for j in drawing.legs] == ["guide"]


# -- an arm's pedestal ----------------------------------------------------------------------------
@pytest.mark.parametrize("path, height", [(ARM6R, 0.3), (UR5_URDF, 0.089159)])
def test_urdf_arm_has_a_pedestal_from_the_origin_to_its_first_joint(path, height):
    arm = ms.robots.load_urdf(path)
    q = np.array([0.5, 0.6, -1.2, 0.3, 0.8, 0.2])
    model = arm.mechanism(q, target=arm.forward(q))
    assert model.mechanism.solve().success
    drawing = msplot.get_drawing(msplot.draw(model.mechanism, _ax3d()))
    assert list(drawing.bases) == [model.joints[0]]
    np.testing.assert_allclose(_data(drawing.bases[model.joints[0]]),
                               [[0, 0, 0], [0, 0, height]], atol=1e-12)


def test_dh_arm_starts_at_its_base_and_needs_no_pedestal():
    arm = ms.robots.ur5()
    model = arm.mechanism(np.zeros(6))
    assert msplot.get_drawing(msplot.draw(model.mechanism, _ax3d())).bases == {}


# -- named points -------------------------------------------------------------------------------
def test_named_points_are_marked_and_named(named_points):
    model = fourbar()
    mech = model.mechanism
    coupler = mech.body("coupler")
    named_points[coupler] = {"P": (0.0, 1.0), "Q": (0.5, 0.5)}
    mech.solve()
    drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(), names=True))
    marks = np.asarray(drawing.point_marks.get_xydata(), float)
    for p in ((0.0, 1.0), (0.5, 0.5)):
        assert _contains(marks, coupler.to_global(p))
        assert _contains(drawing.local[coupler], p)  # a vertex of the coupler's outline
    assert {k: t.get_text() for k, t in drawing.point_names.items()} == {
        (coupler, "P"): "P", (coupler, "Q"): "Q"}
    # without names: the markers only
    plain = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot()))
    assert plain.point_marks is not None and plain.point_names == {}
    # the interactive drawing moves them
    ui = msplot.interact(mech, names=True)
    ui.set("motor", 1.0)
    marks = np.asarray(ui.drawing.point_marks.get_xydata(), float)
    assert _contains(marks, coupler.to_global((0.0, 1.0)))


def test_named_points_of_a_spatial_body(named_points):
    model = stewart()
    mech = model.mechanism
    named_points[model.output] = {"centre": (0.0, 0.0, 0.0)}
    drawing = msplot.get_drawing(msplot.draw(mech, _ax3d(), names=True))
    assert _contains(_data(drawing.point_marks), model.output.position)
    assert drawing.point_names[(model.output, "centre")].get_text() == "centre"


def test_no_point_marks_without_named_points():
    drawing = msplot.get_drawing(msplot.draw(fourbar().mechanism, plt.figure().add_subplot()))
    assert drawing.point_marks is None and drawing.point_names == {}


# -- labels that avoid each other ----------------------------------------------------------------
def _drawn_boxes(drawing) -> list:
    """The labels' boxes as the Agg renderer draws them (3D texts projected as mplot3d does)."""
    ax = drawing.ax
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    out = []
    for text in drawing.labels:
        if ax.name == "3d":
            x, y, _ = proj3d.proj_transform(*text.get_position_3d(), ax.get_proj())
            saved = text._x, text._y
            text._x, text._y = x, y
            try:
                e = text.get_window_extent(renderer)
            finally:
                text._x, text._y = saved
        else:
            e = text.get_window_extent(renderer)
        out.append((e.x0, e.y0, e.x1, e.y1))
    return out


def _overlaps(boxes) -> list:
    def hit(a, b):
        return min(a[2], b[2]) > max(a[0], b[0]) and min(a[3], b[3]) > max(a[1], b[1])
    return [(i, k) for i in range(len(boxes)) for k in range(i) if hit(boxes[i], boxes[k])]


@pytest.mark.parametrize("build", [watt_sixbar, stewart, three_rps])
def test_labels_do_not_overlap(build):
    model = build()
    mech = model.mechanism
    fig = plt.figure(figsize=(8, 5))
    ax = fig.add_subplot(projection="3d") if mech.dim == 3 else fig.add_subplot()
    drawing = msplot.get_drawing(msplot.draw(mech, ax, names=True))
    assert len(drawing.labels) == len(mech.bodies) + len(mech.drivers)
    boxes = _drawn_boxes(drawing)
    assert _overlaps(boxes) == []
    np.testing.assert_allclose(boxes, drawing.label_boxes(), atol=1e-6)


def test_crowded_labels_are_moved_apart_deterministically(named_points):
    model = fourbar()
    mech = model.mechanism
    coupler = mech.body("coupler")
    named_points[coupler] = {f"point {k}": (0.02 * k, 0.0) for k in range(5)}
    placed = []
    for _ in range(2):
        drawing = msplot.get_drawing(msplot.draw(mech, plt.figure().add_subplot(), names=True))
        boxes = _drawn_boxes(drawing)
        assert _overlaps(boxes) == []
        placed.append(boxes)
    np.testing.assert_allclose(placed[0], placed[1])
