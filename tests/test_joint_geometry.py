"""Joints draw themselves: ``Joint.geometry()`` gives the points, axes, rails and circles of a
joint in its bodies' coordinates, and the drawings draw those (issue 27, item 5: the plot
modules' ``isinstance`` ladders over joint classes are gone)."""

import pathlib
import re

import matplotlib.pyplot as plt
import numpy as np
import pytest
from _joint_cases import CASES

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints._geometry import Circle, Geometry


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def _places(g: Geometry) -> list:
    """Every ``(body, vector)`` a geometry holds."""
    out = list(g.points) + list(g.pins) + list(g.welds) + list(g.anchor)
    out += [end for rod in g.rods for end in (rod.end1, rod.end2)]
    out += [(a.body, a.point) for a in g.axes + g.housings + ([g.hinge] if g.hinge else [])]
    out += [(a.body, a.direction) for a in g.axes + g.housings]
    out += [(r.body, r.point) for r in g.rails] + [r.follower for r in g.rails]
    out += [(c.body, c.centre) for c in g.circles]
    out += list(g.target or ()) + [end for leg in g.legs for end in leg]
    return out


@pytest.mark.parametrize("case", sorted(CASES))
def test_every_joint_gives_its_geometry_on_its_own_bodies(case):
    joint = CASES[case](np.random.default_rng(3))
    g = joint.geometry()
    assert isinstance(g, Geometry)
    mech = joint.mechanism
    allowed = {id(b) for b in mech.bodies} | {id(mech.ground)}
    for body, v in _places(g):
        assert id(body) in allowed, (case, body)
        v = np.asarray(v, dtype=float)
        assert v.shape == (mech.dim,) and np.all(np.isfinite(v)), (case, v)
    for p in g.pivots:
        assert np.asarray(p).shape == (mech.dim,)
    for rail in g.rails:
        assert np.linalg.norm(rail.direction) > 0.0
    # a driver says what its arrow shows, or is marked where it acts
    if isinstance(joint, joints.DriverJoint) and g.drive is None:
        assert joint.anchor() or not joint.bodies


def test_planar_pins_pivots_rails_and_circles_read_the_parameters():
    mech = ms.Mechanism()
    crank = mech.add_body("crank", position=(0.5, 0.0))
    block = mech.add_body("block", position=(2.0, 0.0))
    gear = mech.add_body("gear")
    pin = mech.add(joints.Revolute(mech.ground, crank, (0.0, 0.0), (-0.5, 0.0)))
    g = pin.geometry()
    np.testing.assert_array_equal(g.pins[0][1], [-0.5, 0.0])
    assert g.pins[0][0] is crank and g.pivots[0].tolist() == [0.0, 0.0]
    slider = mech.add(joints.Prismatic(mech.ground, block, (1.0, 0.0), (0.0, 0.0),
                                       axis=(1.0, 0.0), axis2=(0.0, 1.0)))
    (rail,) = slider.geometry().rails
    assert rail.body is mech.ground and rail.follower[0] is block
    np.testing.assert_allclose(rail.block, [0.0, 1.0], atol=1e-15)   # body 2's own axis2
    mech.add(joints.Revolute(mech.ground, gear, (3.0, 1.0), (0.25, 0.0)))
    mesh = mech.add(joints.Gear(crank, gear, 1.0, 2.0, internal=True))
    c1, c2 = mesh.geometry().circles
    assert c1 == Circle(crank, c1.centre, 1.0, False) and c2.ring and c2.radius == 2.0
    np.testing.assert_array_equal(c1.centre, [-0.5, 0.0])   # where the crank is pinned
    np.testing.assert_array_equal(c2.centre, [0.25, 0.0])
    motor = mech.add(joints.Driver(crank, "angle", 0.0))
    drive = motor.geometry().drive
    assert drive.kind == "angle" and drive.at[0] is mech.ground   # its pivot on ground


def test_spatial_hinge_rail_and_target_follow_the_frames():
    mech = ms.Mechanism(dim=3)
    door = mech.add_body("door", position=(0.5, 0.0, 1.0))
    sleeve = mech.add_body("sleeve", position=(0.0, 2.0, 0.0))
    tilt = ms.Orientation.from_angle_axis(0.3, (1.0, 0.0, 0.0))
    hinge = mech.add(joints.Revolute(mech.ground, door, ms.Frame((0, 0, 1), tilt),
                                     ms.Frame((-0.5, 0, 0), tilt)))
    g = hinge.geometry()
    np.testing.assert_allclose(g.hinge.direction, tilt.as_matrix()[:, 2], atol=1e-15)
    assert [a.body for a in g.axes] == [mech.ground, door] and g.housings == [g.hinge]
    cyl = mech.add(joints.Cylindrical(mech.ground, sleeve, (0.0, 2.0, 0.0), (0.0, 0.0, 0.0),
                                      axis=(0.0, 0.0, 1.0)))
    (rail,) = cyl.geometry().rails
    np.testing.assert_allclose(rail.direction, [0.0, 0.0, 1.0], atol=1e-15)
    assert joints.SlideDriver(cyl, 0.1).geometry().drive.kind == "slide"
    assert joints.AngleDriver(cyl, 0.1).geometry().drive.kind == "angle"
    goal = joints.PointEndEffector(door, (0.1, 0.0, 0.0), target=(1.0, 2.0, 3.0))
    (end, target) = goal.geometry().target
    assert end[0] is door and target[0] is mech.ground
    np.testing.assert_array_equal(target[1], [1.0, 2.0, 3.0])


class _Sun(joints.Joint):
    """A body turning about a ground point, drawn as a gear: only its geometry says so."""

    n_equations = 2
    layout = (("centre", 2), ("radius", 1))

    def __init__(self, body, centre, radius, *, name=None):
        super().__init__((body,), [*centre, radius], name=name)

    @classmethod
    def _phi(cls, P, X):
        return X[..., :2] - P[..., cls.sl.centre]

    def geometry(self):
        body = self.bodies[0]
        return Geometry(points=[(body, np.zeros(2))],
                        circles=[Circle(body, np.zeros(2), self.param("radius"))])


def test_a_joint_class_of_ones_own_is_drawn_from_its_geometry():
    mech = ms.Mechanism()
    sun = mech.add_body("sun", position=(1.0, 2.0))
    mech.add(_Sun(sun, (1.0, 2.0), 0.75))
    mech.add(joints.Driver(sun, "angle", 0.3))
    drawing = ms.plot.get_drawing(ms.plot.draw(mech))
    (key,) = drawing.gears
    assert key[0] is sun and key[1] == 0.75


def test_the_drawings_ask_the_joints_and_name_no_joint_class():
    """The plot modules that draw joints import no joint class: what a joint looks like comes
    from its geometry."""
    folder = pathlib.Path(ms.plot.__file__).parent
    for name in ("planar.py", "spatial.py", "_planar_geometry.py", "_spatial_geometry.py",
                 "animation.py"):
        text = (folder / name).read_text()
        imported = re.findall(r"from \.\.joints\.(\w+) import", text)
        assert set(imported) <= {"base", "_geometry"}, (name, imported)
