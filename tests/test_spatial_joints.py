"""Spatial joints: analytic Jacobians against finite differences, placement and dispatch."""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.spatial._quat import quat_exp


def random_frame(rng):
    return ms.Frame(rng.normal(size=3), ms.Orientation(quat_exp(rng.normal(size=3))))


def spatial_instances(rng):
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a", position=rng.normal(size=3))
    b = mech.add_body("b", position=rng.normal(size=3))
    f = lambda: random_frame(rng)  # noqa: E731
    rev = joints.Revolute(a, b, f(), f())
    pri = joints.Prismatic(a, b, f(), f())
    cyl = joints.Cylindrical(a, b, f(), f())
    return [
        joints.Spherical(a, b, f(), f()),
        rev,
        pri,
        cyl,
        joints.Universal(a, b, f(), f()),
        joints.Planar(a, b, f(), f()),
        joints.Fixed(a, b, f(), f()),
        joints.Distance(a, b, rng.normal(size=3), rng.normal(size=3), 1.7),
        joints.PointOnLine(a, b, f(), f()),
        joints.PointOnPlane(a, b, f(), f()),
        joints.ParallelAxes(a, b, f(), f()),
        joints.PerpendicularAxes(a, b, f(), f()),
        joints.GenericJoint(a, b, f(), f(), components=("x", "rz")),
        joints.GenericJoint(a, b, f(), f(), components=("y", "z", "rx", "ry", "rz")),
        joints.Driver(a, "z", 0.3),
        joints.AngleDriver(rev, 0.4),
        joints.AngleDriver(cyl, -2.0),
        joints.SlideDriver(pri, 0.4),
        joints.DistanceDriver(a, b, rng.normal(size=3), rng.normal(size=3), 2.0),
        joints.Revolute(mech.ground, b, f(), f()),
    ]


N_SPATIAL = 20


def random_poses(rng, shape):
    X = np.empty(shape + (7,))
    X[..., :3] = rng.normal(size=shape + (3,))
    X[..., 3:] = quat_exp(rng.normal(size=shape + (3,)) * 2.0)
    return X


def test_same_class_names_dispatch_on_dimension():
    rng = np.random.default_rng(0)
    inst = spatial_instances(rng)
    assert isinstance(inst[1], joints.Revolute) and type(inst[1]).__name__ == "SpatialRevolute"
    assert isinstance(inst[2], joints.Prismatic)
    assert isinstance(inst[7], joints.Distance)
    planar = ms.Mechanism()
    p = planar.add_body("p")
    assert type(joints.Revolute(planar.ground, p)) is joints.Revolute


def test_spatial_system_jacobian_matches_finite_differences():
    rng = np.random.default_rng(5)
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a", position=(0, 0, 1))
    b = mech.add_body("b", position=(1, 0, 1))
    mech.add(joints.Revolute(mech.ground, a, ms.Frame(), ms.Frame((0, 0, -1))))
    mech.add(joints.Spherical(a, b, (0.5, 0, 0), (-0.5, 0, 0)))
    mech.add(joints.PointOnPlane(mech.ground, b, ms.Frame((0, 0, 1)), (0.5, 0, 0)))
    system = mech.system()
    q = system.retract(mech.state, rng.normal(scale=0.3, size=system.n))
    _, vals = system.evaluate(q)
    J = system.jacobian_dense(vals)
    Jn = np.empty_like(J)
    for i in range(system.n):
        e = np.zeros(system.n)
        e[i] = 1e-6
        Jn[:, i] = (system.phi(system.retract(q, e)) - system.phi(system.retract(q, -e))) / 2e-6
    np.testing.assert_allclose(J, Jn, atol=1e-7)


def test_bad_placements_name_the_argument():
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a")
    b = mech.add_body("b")
    with pytest.raises(ValueError, match="axis of frame1 must be a non-zero direction"):
        joints.Revolute(a, b, (0, 0, 0), (0, 0, 0), axis=(0, 0, 0))
    with pytest.raises(ValueError, match="quaternion must have unit norm"):
        ms.Frame((0, 0, 0), (1.0, 1.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="quaternion must have unit norm"):
        mech.add_body("c", orientation=(2.0, 0.0, 0.0, 0.0))
    with pytest.raises(TypeError, match="frame2 must be a mechsolve Frame or a point"):
        joints.Spherical(a, b, (0, 0, 0), np.eye(4).tolist().__iter__())
    with pytest.raises(TypeError, match="frame1 must be a mechsolve Frame or a point"):
        joints.Revolute(a, b, b"origin", (0, 0, 0))
    # a string names a point of the body (tests/test_global_points.py)
    with pytest.raises(ValueError, match="frame1: body 'a' has no point named 'origin'"):
        joints.Revolute(a, b, "origin", (0, 0, 0))
    with pytest.raises(ValueError, match=r"frame1 must have shape \(3,\)"):
        joints.Revolute(a, b, (0, 0), (0, 0, 0))
    with pytest.raises(ValueError, match="components must be 1 to 6 distinct names"):
        joints.GenericJoint(a, b, components=("x", "q"))
    with pytest.raises(TypeError, match="Gear is a planar joint; its bodies belong to a "
                                        "spatial mechanism: .*joints.AngleCoupler"):
        joints.Gear(a, b, 1.0, 2.0)
    with pytest.raises(TypeError, match="joints.AngleCoupler"):
        joints.Gear(mech.ground, b, 1.0, 2.0)
    with pytest.raises(TypeError, match="orientation= is for spatial bodies"):
        ms.Mechanism().add_body("p", orientation=ms.Orientation.identity())
    with pytest.raises(ValueError, match="coordinate of a spatial body must be one of"):
        joints.Driver(a, "angle", 0.0)


def test_axis_shorthand_is_in_each_bodys_own_coordinates():
    mech = ms.Mechanism(dim=3)
    turned = ms.Orientation.from_angle_axis(np.pi / 2, (1, 0, 0))  # body z -> global -y
    a = mech.add_body("a", orientation=turned)
    b = mech.add_body("b", position=(0, 0, 2))
    par = joints.ParallelAxes(a, b, axis=(0, 0, 1))
    gen = joints.GenericJoint(a, b, (0, 0, 0), (0, 0, 0), components=("rx", "ry"),
                              axis=(0, 0, 1))
    # a's axis is global -y, b's is global z: rx = -y_1 . z_2 with y_1 = global z
    np.testing.assert_allclose(par.residual(), [-1.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(gen.residual(), par.residual(), atol=1e-15)
    b.orientation = turned  # now both axes are global -y
    np.testing.assert_allclose(par.residual(), [0.0, 0.0], atol=1e-15)
    np.testing.assert_allclose(gen.residual(), [0.0, 0.0], atol=1e-15)


def _gear_pair(shared):
    mech = ms.Mechanism(dim=3)
    carrier = mech.add_body("carrier") if shared else mech.ground
    a = mech.add_body("a", position=(0, 0, 0))
    b = mech.add_body("b", position=(2, 0, 0))
    if shared:
        mech.add(joints.Fixed(mech.ground, carrier))
    ra = mech.add(joints.Revolute(carrier, a, (0, 0, 0), (0, 0, 0), axis=(0, 0, 1)))
    rb = mech.add(joints.Revolute(carrier, b, (2, 0, 0), (0, 0, 0), axis=(0.3, 0, 1)))
    gear = mech.add(joints.AngleCoupler(ra, rb, -2.0, name="mesh"))
    drive = mech.add(joints.AngleDriver(ra, 0.0))
    return mech, ra, rb, gear, drive


@pytest.mark.parametrize("shared", [False, True])
def test_angle_coupler_follows_many_turns(shared):
    mech, ra, rb, gear, drive = _gear_pair(shared)
    assert (type(gear).__name__ == "_SharedCarrierCoupler") == shared
    assert mech.dof().dof == 1
    values = np.linspace(0, 4 * np.pi, 145)
    motion = mech.sweep(drive, values)
    assert np.all(motion.residuals <= 1e-10)
    s2 = motion.states[:, -1]
    np.testing.assert_allclose(s2, -2.0 * values, atol=1e-9)  # continuous over 4 turns
    for i in (10, 77, 144):
        motion.apply(i)
        assert abs(np.remainder(rb.angle() + 2 * values[i] + np.pi, 2 * np.pi) - np.pi) < 1e-9


@pytest.mark.parametrize("kind", ["Prismatic", "Revolute", "Cylindrical"])
def test_axis_is_the_joint_axis_in_body_coordinates(kind):
    # a spatial Prismatic used to return two components of its frame's quaternion, inherited
    # from the planar class's parameter offsets
    mech = ms.Mechanism(dim=3)
    body = mech.add_body("b", position=(0, 0, 0.3))
    axis = np.array([0.36, -0.48, 0.8])
    joint = getattr(ms.joints, kind)(mech.ground, body, axis=axis)
    np.testing.assert_allclose(joint.axis, axis, atol=1e-15)
    planar = ms.Mechanism()
    b = planar.add_body("b")
    np.testing.assert_allclose(ms.joints.Prismatic(planar.ground, b, axis=(0.6, 0.8)).axis,
                               (0.6, 0.8), atol=1e-15)
