"""Bad input gets a TypeError or ValueError that names the argument."""

import numpy as np
import pytest
from closed_form import fourbar as fourbar_exact
from closed_form import wrap

import mechsolve as ms
from mechsolve import joints


@pytest.fixture
def mech():
    m = ms.Mechanism()
    m.add_body("a", position=(0, 0))
    m.add_body("b", position=(1, 0))
    return m


def test_wrong_point_shape(mech):
    a, b = mech.bodies
    with pytest.raises(ValueError, match=r"point1 must have shape \(2,\), got an array of shape "
                                         r"\(3,\)"):
        joints.Revolute(a, b, (0, 0, 0), (0, 0))
    with pytest.raises(TypeError, match="point2 must be a sequence of 2 numbers"):
        joints.Revolute(a, b, (0, 0), None)
    # a string names a point of the body (tests/test_global_points.py)
    with pytest.raises(ValueError, match="point2: body 'b' has no point named 'origin'"):
        joints.Revolute(a, b, (0, 0), "origin")
    with pytest.raises(ValueError, match=r"position must have shape \(2,\)"):
        mech.add_body("c", position=(1, 2, 3))


def test_unknown_coordinate_name(mech):
    with pytest.raises(ValueError, match=r"coordinate must be one of \('x', 'y', 'angle'\), "
                                         "got 'theta'"):
        joints.Driver(mech.bodies[0], "theta", 0.0)
    with pytest.raises(TypeError, match="coordinate must be one of"):
        joints.Driver(mech.bodies[0], 2, 0.0)


def test_joint_between_a_body_and_itself(mech):
    a = mech.bodies[0]
    with pytest.raises(ValueError, match=r"Revolute: a joint between a body and itself \('a'\)"):
        joints.Revolute(a, a)
    with pytest.raises(ValueError, match="at least one moving body, got only ground"):
        joints.Revolute(mech.ground, mech.ground)


def test_body_of_another_mechanism(mech):
    other = ms.Mechanism()
    c = other.add_body("c")
    with pytest.raises(ValueError, match="belong to different mechanisms"):
        joints.Revolute(mech.bodies[0], c)
    joint = joints.Revolute(other.ground, c)
    with pytest.raises(ValueError, match="body 'c' belongs to another mechanism"):
        mech.add(joint)


def test_driver_on_a_body_not_in_the_mechanism(mech):
    other = ms.Mechanism()
    c = other.add_body("c")
    with pytest.raises(ValueError, match="body 'c' belongs to another mechanism"):
        mech.add(joints.Driver(c, "x", 0.0))
    motor = other.add(joints.Driver(c, "x", 0.0))
    mech.add(joints.Revolute(mech.ground, mech.bodies[0]))
    with pytest.raises(ValueError, match="is not a driver of this mechanism"):
        mech.sweep(motor, [0.0, 1.0])


@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_non_finite_numbers(mech, bad):
    a, b = mech.bodies
    with pytest.raises(ValueError, match="point1 must contain only finite numbers"):
        joints.Revolute(a, b, (bad, 0), (0, 0))
    with pytest.raises(ValueError, match="length must be finite"):
        joints.Distance(a, b, length=bad)
    with pytest.raises(ValueError, match="angle must be finite"):
        mech.add_body("c", angle=bad)
    motor = joints.Driver(a, "x", 0.0)
    with pytest.raises(ValueError, match="value of Driver on a must be finite"):
        motor.value = bad
    with pytest.raises(ValueError, match="values must contain only finite numbers"):
        mech.add(motor)
        mech.add(joints.Revolute(mech.ground, a))
        mech.sweep(motor, [0.0, bad])


def test_other_bad_arguments(mech):
    a, b = mech.bodies
    with pytest.raises(TypeError, match="body 1 must be a mechsolve Body"):
        joints.Revolute("a", b)
    with pytest.raises(ValueError, match="axis must be a non-zero direction"):
        joints.Prismatic(a, b, axis=(0, 0))
    with pytest.raises(ValueError, match="length must be positive"):
        joints.Distance(a, b, length=-1.0)
    with pytest.raises(ValueError, match="radius2 must be positive"):
        joints.Gear(a, b, 1.0, 0.0)
    with pytest.raises(TypeError, match="add\\(\\) takes a mechsolve joint"):
        mech.add("revolute")
    with pytest.raises(ValueError, match="a body named 'a' already exists"):
        mech.add_body("a")
    with pytest.raises(ValueError, match="dim must be 2 \\(planar\\) or 3"):
        ms.Mechanism(dim=4)
    with pytest.raises(ValueError, match="Driver: body must be a moving body, got ground"):
        joints.Driver(mech.ground, "x")
    with pytest.raises(TypeError, match="AngleDriver: joint must be a Revolute"):
        joints.AngleDriver(joints.Distance(a, b), 0.0)
    with pytest.raises(ValueError, match="DistanceDriver value must be a positive length"):
        joints.DistanceDriver(a, b, value=1.0).value = 0.0
    with pytest.raises(ValueError, match="values must be a non-empty 1-D sequence"):
        mech.add(joints.Revolute(mech.ground, a))
        mech.sweep(mech.add(joints.Driver(a, "angle")), [])


def test_a_joint_giving_nan_is_named_not_a_linear_algebra_error():
    from mechsolve.joints.base import Joint

    class Sqrt(Joint):
        n_equations = 1

        def __init__(self, body):
            super().__init__((body,), np.zeros(1))

        @classmethod
        def _phi(cls, P, X):
            with np.errstate(invalid="ignore"):
                return np.sqrt(X[..., 0:1] - 10.0)

    model = ms.models.fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    mech.add(Sqrt(mech.body("crank")))
    q0 = mech.state
    with pytest.raises(ms.SolveError, match=r"not finite at the start pose \(Sqrt on crank\)"):
        mech.solve()
    assert np.array_equal(mech.state, q0)


def test_a_profile_giving_nan_is_named():
    from mechsolve.profiles import ConstantSpeed

    class Broken(ConstantSpeed):
        def value(self, t):
            return np.nan if t > 1.0 else super().value(t)

    model = ms.models.fourbar()
    model.driver.value = Broken(1.0)
    with pytest.raises(ValueError, match="motion profile of Driver 'motor' on crank gives nan"):
        model.mechanism.solve(t=2.0)
    # given at a time where it is already NaN: refused, and the driver keeps its old profile
    model.mechanism.set_time(0.0)
    model.mechanism.time = 2.0
    with pytest.raises(ValueError, match=r"profile of Driver 'motor' on crank gives nan at "
                                         r"t = 2; a driver value must be finite"):
        model.driver.value = Broken(1.0)

    class BrokenRate(ConstantSpeed):
        def __call__(self, t):
            value, _, acc = super().__call__(t)
            return value, np.inf, acc

    model = ms.models.fourbar()
    model.driver.value = BrokenRate(1.0)
    model.mechanism.solve(t=0.0)
    with pytest.raises(ValueError, match=r"gives rate inf and acceleration 0.0 at t = 0; both "
                                         r"must be finite"):
        model.mechanism.velocity()


def test_iteration_caps_and_tolerances_are_checked():
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    with pytest.raises(TypeError, match="max_iterations must be an integer, got str"):
        mech.solve(max_iterations="a")
    with pytest.raises(ValueError, match="max_iterations must be at least 1, got -3"):
        mech.solve(max_iterations=-3)
    with pytest.raises(ValueError, match="max_iterations must be at least 1, got 0"):
        mech.sweep(drive, [0.0, 1.0], max_iterations=0)
    with pytest.raises(ValueError, match="tol must be positive"):
        mech.sweep(drive, [0.0, 1.0], tol=0.0)
    # tol bounds the residual on top of the coordinates' round-off: a tolerance below
    # round-off asks for the pose at round-off, which is reached (it was refused before, and
    # far from the origin every tolerance was below round-off)
    drive.value = 1.0
    result = mech.solve(tol=1e-18)
    assert result.success and result.residual <= 8 * np.finfo(float).eps * 4.0
    _, _, _, psi = fourbar_exact(1.0)
    assert abs(wrap(mech.body("rocker").angle - psi)) <= 1e-15


def test_driver_arguments_are_checked_alike_everywhere():
    # mech.sweep, design.sweep, design.synthesize, analysis.rotation_range and plot.interact
    # take drivers of the mechanism or their names, and say the same for anything else
    model = ms.models.fourbar()
    mech = model.mechanism
    foreign = ms.models.fourbar().driver
    calls = {
        "sweep": lambda d: mech.sweep(d, [0.0, 0.1]),
        "design.sweep": lambda d: ms.design.sweep(mech, {"O4.point2": [[4.0, 0.0]]}, d,
                                                  [0.0, 0.1]),
        "synthesize": lambda d: ms.design.synthesize(mech, ["O4.point2"], driver=d,
                                                     body="coupler", path=[[0.0, 0.0]],
                                                     point=(0, 1)),
        "rotation_range": lambda d: ms.analysis.rotation_range(mech, d),
        "interact": lambda d: ms.plot.interact(mech, drivers=[d]),
    }
    for call in calls.values():
        with pytest.raises(TypeError, match="driver must be a driver of this mechanism or its "
                                            "name, got Revolute 'O4'"):
            call("O4")
        with pytest.raises(TypeError, match="driver must be a driver of this mechanism or its "
                                            "name, got float"):
            call(0.5)
        with pytest.raises(ValueError, match="Driver 'motor' .*is not a driver of this mechanism"):
            call(foreign)
        with pytest.raises(KeyError):
            call("no such driver")
