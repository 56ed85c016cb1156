"""Velocity and acceleration coefficients from a position sweep (issue 30, item 3).

``motion.velocity(body, point, per="driver")`` is ``dp/dv`` per unit rate of the driver, and
``motion.acceleration(..., per="driver")`` is ``d2p/dv2``, from ``J dq/dv = e_driver`` and
``J d2q/dv2 = gamma(q, dq/dv)`` at every pose: no time needed. Checked against the four-bar's
closed form (derived below from the loop equation, evaluated on the solved poses), against
central differences of solved poses, against time sweeps, and at a singular pose.

The four-bar loop ``a e^{i t} + b e^{i beta} = d + c e^{i psi}`` (crank ``t``, coupler
``beta``, rocker ``psi``, absolute angles of the pin-to-pin lines) differentiated once along
``t`` and multiplied by ``e^{-i beta}`` (imaginary part) or ``e^{-i psi}``::

    psi'  = a sin(t - beta) / (c sin(psi - beta))
    beta' = a sin(t - psi) / (b sin(psi - beta))

and twice (``t'' = 0``), real parts after the same multiplications::

    psi''  = (a cos(t - beta) + b beta'^2 - c psi'^2 cos(psi - beta)) / (c sin(psi - beta))
    beta'' = (c psi'^2 - a cos(t - psi) - b beta'^2 cos(beta - psi)) / (b sin(beta - psi))

A coupler point ``P``: ``P' = a (-sin t, cos t) + beta' perp(P - A)``,
``P'' = -a (cos t, sin t) + beta'' perp(P - A) - beta'^2 (P - A)``.
"""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import joints
from mechsolve.models.spatial import rssr, rssr_output

# in metres at the origin, in micrometres and in kilometres a few hundred sizes away
PLACES = [(1.0, (0.0, 0.0)), (1e-6, (3e-4, -2e-4)), (1e3, (4e5, 9e5))]


def fourbar(scale=1.0, offset=(0.0, 0.0), a=1.0, b=3.0, c=3.5, d=4.0, theta=0.0):
    """Crank ``a`` pinned at ``offset``, rocker ``c`` at ``offset + (d, 0)``, coupler ``b``
    (lengths times ``scale``); the crank's absolute angle driven; assembled at ``theta`` on
    the upper branch."""
    o = np.asarray(offset, float)
    a, b, c, d = (scale * x for x in (a, b, c, d))
    A = a * np.array([np.cos(theta), np.sin(theta)])
    O4 = np.array([d, 0.0])
    e = np.linalg.norm(O4 - A)
    g = np.arctan2(*(O4 - A)[::-1]) + np.arccos((b**2 + e**2 - c**2) / (2 * b * e))
    B = A + b * np.array([np.cos(g), np.sin(g)])
    mech = ms.Mechanism(name="four-bar")

    def link(name, p, q):
        return mech.add_body(name, position=o + (p + q) / 2,
                             angle=float(np.arctan2(*(q - p)[::-1])))

    crank, coupler, rocker = link("crank", np.zeros(2), A), link("coupler", A, B), \
        link("rocker", B, O4)
    mech.add(joints.Revolute(mech.ground, crank, o, (-a / 2, 0), name="O2"))
    mech.add(joints.Revolute(crank, coupler, (a / 2, 0), (-b / 2, 0), name="A"))
    mech.add(joints.Revolute(coupler, rocker, (b / 2, 0), (-c / 2, 0), name="B"))
    mech.add(joints.Revolute(rocker, mech.ground, (c / 2, 0), o + O4, name="O4"))
    motor = mech.add(joints.Driver(crank, "angle", theta, name="motor"))
    mech.solve()
    return mech, motor, (a, b, c, d)


def closed_form(motion, lengths, offset, point):
    """psi', psi'', beta', beta'', P', P'' from the solved poses (see the module docstring)."""
    a, b, c, d = lengths
    mech = motion.mechanism
    crank, coupler = mech.body("crank"), mech.body("coupler")
    o = np.asarray(offset, float)
    A = motion.point(crank, (a / 2, 0)) - o
    B = motion.point(coupler, (b / 2, 0)) - o
    P = motion.point(coupler, point) - o
    t = np.arctan2(A[:, 1], A[:, 0])
    beta = np.arctan2(*(B - A).T[::-1])
    psi = np.arctan2(*(B - (d, 0.0)).T[::-1])
    psi1 = a * np.sin(t - beta) / (c * np.sin(psi - beta))
    beta1 = a * np.sin(t - psi) / (b * np.sin(psi - beta))
    psi2 = (a * np.cos(t - beta) + b * beta1**2 - c * psi1**2 * np.cos(psi - beta)) / \
        (c * np.sin(psi - beta))
    beta2 = (c * psi1**2 - a * np.cos(t - psi) - b * beta1**2 * np.cos(beta - psi)) / \
        (b * np.sin(beta - psi))
    r = P - A
    perp = np.stack([-r[:, 1], r[:, 0]], axis=1)
    P1 = a * np.stack([-np.sin(t), np.cos(t)], axis=1) + beta1[:, None] * perp
    P2 = -a * np.stack([np.cos(t), np.sin(t)], axis=1) + beta2[:, None] * perp \
        - beta1[:, None] ** 2 * r
    return psi1, psi2, beta1, beta2, P1, P2


def _rel(x, y) -> float:
    return float(np.max(np.abs(np.asarray(x) - y)) / np.max(np.abs(y)))


def _rtol(scale, offset) -> float:
    """1e-10, or the round-off of coordinates ``offset`` away seen in lengths of ``scale``
    (the closed form reads its angles from global points) where that is more."""
    return 1e-10 + 64 * np.finfo(float).eps * float(np.linalg.norm(offset)) / scale


# -- the four-bar's closed form -------------------------------------------------------------
@pytest.mark.parametrize("scale, offset", PLACES)
def test_fourbar_coefficients_match_the_closed_form(scale, offset):
    mech, motor, lengths = fourbar(scale, offset)
    motion = mech.sweep(motor, np.linspace(0.0, 2 * np.pi, 73))
    point = (0.0, 1.0 * scale)
    psi1, psi2, beta1, beta2, P1, P2 = closed_form(motion, lengths, offset, point)
    rocker, coupler = mech.body("rocker"), mech.body("coupler")
    tol = _rtol(scale, offset)
    assert tol <= 2e-10
    assert _rel(motion.body_velocity(rocker, per="driver")[:, 2], psi1) <= tol
    assert _rel(motion.body_acceleration(rocker, per="driver")[:, 2], psi2) <= tol
    assert _rel(motion.body_velocity(coupler, per="driver")[:, 2], beta1) <= tol
    assert _rel(motion.body_acceleration(coupler, per="driver")[:, 2], beta2) <= tol
    assert _rel(motion.velocity(coupler, point, per="driver"), P1) <= tol
    assert _rel(motion.acceleration(coupler, point, per="driver"), P2) <= tol
    # the (N, n) arrays hold the same, and the crank turns at the driver's unit rate
    dq = motion.velocity_coefficients()
    np.testing.assert_array_equal(dq[:, 3 * rocker.index + 2],
                                  motion.body_velocity(rocker, per="driver")[:, 2])
    np.testing.assert_allclose(dq[:, 2], 1.0, rtol=1e-14)
    np.testing.assert_allclose(motion.acceleration_coefficients()[:, 2], 0.0, atol=1e-14)


def test_per_the_driver_object_or_its_name_is_the_same():
    mech, motor, _ = fourbar()
    motion = mech.sweep(motor, np.linspace(0.0, 1.0, 5))
    coupler = mech.body("coupler")
    by_word = motion.velocity(coupler, (0, 1), per="driver")
    np.testing.assert_array_equal(motion.velocity(coupler, (0, 1), per=motor), by_word)
    np.testing.assert_array_equal(motion.velocity(coupler, (0, 1), per="motor"), by_word)


# -- central differences of solved poses ------------------------------------------------------
def _richardson(f, v, h):
    """First and second derivative of ``f`` at ``v`` by central differences with one
    Richardson step (errors of order h^4)."""
    f0 = f(np.array([v]))[0]
    fp = f(np.array([v - h, v - h / 2, v + h / 2, v + h]))
    d1 = lambda s, i, j: (fp[j] - fp[i]) / (2 * s)  # noqa: E731
    first = (4 * d1(h / 2, 1, 2) - d1(h, 0, 3)) / 3
    d2 = lambda s, i, j: (fp[j] - 2 * f0 + fp[i]) / s**2  # noqa: E731
    second = (4 * d2(h / 2, 1, 2) - d2(h, 0, 3)) / 3
    return first, second


@pytest.mark.parametrize("scale, offset", PLACES)
def test_fourbar_coefficients_match_central_differences_of_solved_poses(scale, offset):
    mech, motor, _ = fourbar(scale, offset)
    values = np.linspace(0.3, 6.0, 7)
    motion = mech.sweep(motor, values)
    coupler = mech.body("coupler")
    point = (0.3 * scale, 0.9 * scale)
    vel = motion.velocity(coupler, point, per="driver")
    acc = motion.acceleration(coupler, point, per="driver")
    om = motion.body_velocity(coupler, per="driver")[:, 2]

    def path(vs):
        m = mech.sweep(motor, vs)
        return np.column_stack([m.point(coupler, point), m.pose(coupler)[:, 2]])

    for k, v in enumerate(values):
        # steps of 0.01 rad: truncation (order h^4) and the round-off of coordinates a few
        # hundred sizes out (divided by h, h^2) both well below the tolerances
        first, second = _richardson(path, v, 1e-2)
        assert np.max(np.abs(first[:2] - vel[k])) <= 1e-7 * scale
        assert abs(first[2] - om[k]) <= 1e-7
        assert np.max(np.abs(second[:2] - acc[k])) <= 1e-6 * scale


def test_spatial_rssr_rocker_rate_matches_its_closed_form_differentiated():
    # the rocker turns about its fixed axis u2 by phi(theta) (models.spatial.rssr_output:
    # C = p2 + c (cos phi e1 + sin phi e2), e2 = u2 x e1, so omega = phi' u2 and
    # alpha = phi'' u2), differentiated by Richardson-extrapolated central differences
    model = rssr()
    mech = model.mechanism
    values = np.linspace(0.2, 6.0, 9)
    motion = mech.sweep(model.driver, values)
    rocker = mech.body("rocker")
    u2 = np.array([0.0, 1.0, 0.3]) / np.linalg.norm([0.0, 1.0, 0.3])
    w = motion.body_velocity(rocker, per="driver")[:, 3:]
    alpha = motion.body_acceleration(rocker, per="driver")[:, 3:]
    for k, v in enumerate(values):
        d1, d2 = _richardson(rssr_output, v, 1e-3)
        np.testing.assert_allclose(w[k], d1 * u2, rtol=0, atol=1e-9)
        np.testing.assert_allclose(alpha[k], d2 * u2, rtol=0, atol=1e-6)


# -- time sweeps: the same numbers times the driver's rate -------------------------------------
def test_time_sweep_velocity_is_the_coefficient_times_the_driver_rate():
    mech, motor, _ = fourbar()
    motor.value = ms.profiles.ConstantSpeed(speed=2.5)
    times = np.linspace(0.0, 2.0, 21)
    timed = mech.sweep_time(times)
    coupler = mech.body("coupler")
    v = timed.velocity(coupler, (0, 1))
    a = timed.acceleration(coupler, (0, 1))
    vc = timed.velocity(coupler, (0, 1), per="driver")
    ac = timed.acceleration(coupler, (0, 1), per="driver")
    scale = np.max(np.abs(v))
    assert np.max(np.abs(v - 2.5 * vc)) <= 1e-12 * scale
    assert np.max(np.abs(a - 2.5**2 * ac)) <= 1e-12 * np.max(np.abs(a))
    # and a position sweep at the same crank angles gives the same coefficients
    motor.value = 0.0
    swept = mech.sweep(motor, 2.5 * times)
    np.testing.assert_allclose(swept.velocity(coupler, (0, 1), per="driver"), vc,
                               rtol=0, atol=1e-12)


def test_time_sweep_with_an_accelerating_profile_splits_into_rate_and_acceleration():
    mech, motor, _ = fourbar()
    profile = ms.profiles.Quintic(0.0, 1.0, 0.2, 2.0)
    motor.value = profile
    times = np.linspace(0.05, 0.95, 10)
    timed = mech.sweep_time(times)
    rocker = mech.body("rocker")
    _, rate, acc = profile(times)
    qdd = timed.body_acceleration(rocker)[:, 2]
    split = timed.body_acceleration(rocker, per="driver")[:, 2] * rate**2 \
        + timed.body_velocity(rocker, per="driver")[:, 2] * acc
    assert np.max(np.abs(qdd - split)) <= 1e-12 * np.max(np.abs(qdd))
    # the mechanism's time and driver value are as the sweep left them
    assert mech.time == times[-1]


def test_coefficients_per_another_driver_hold_the_swept_one():
    model = ms.models.five_bar()
    mech = model.mechanism
    d = mech.body("d")
    other = mech.add(joints.Driver(d, "angle", float(d.angle), name="right"))
    mech.solve()
    motion = mech.sweep(model.driver, np.linspace(np.pi / 2 - 0.1, np.pi / 2 + 0.1, 5))
    np.testing.assert_allclose(motion.body_velocity(mech.body("a"), per=other)[:, 2], 0.0,
                               atol=1e-14)
    np.testing.assert_allclose(motion.body_velocity(d, per="right")[:, 2], 1.0, rtol=1e-14)
    np.testing.assert_allclose(motion.body_velocity(d, per="driver")[:, 2], 0.0, atol=1e-14)


# -- messages ------------------------------------------------------------------------------------
def test_a_position_sweep_asked_for_velocity_in_time_says_what_it_is_and_what_to_ask():
    # the issue: "motion.velocity() on a position sweep refuses with a message that reads as
    # if the motion came from a time sweep"
    mech, motor, _ = fourbar()
    motion = mech.sweep(motor, np.linspace(0.0, 1.0, 5))
    coupler = mech.body("coupler")
    for call in (lambda: motion.velocity(coupler), lambda: motion.acceleration(coupler),
                 lambda: motion.body_velocity(coupler), lambda: motion.velocity(coupler,
                                                                                per="time")):
        with pytest.raises(ValueError, match=r"position sweep of Driver 'motor'.*no time.*"
                                             r"per=\"driver\".*sweep_time"):
            call()


def test_bad_per_arguments_are_named():
    mech, motor, _ = fourbar()
    motion = mech.sweep(motor, np.linspace(0.0, 1.0, 3))
    coupler = mech.body("coupler")
    with pytest.raises(TypeError, match="per must be None or 'time'.*got int 3"):
        motion.velocity(coupler, per=3)
    with pytest.raises(ValueError, match="per='nope'.*drivers: Driver 'motor'"):
        motion.velocity(coupler, per="nope")
    with pytest.raises(TypeError, match="per must be .*got Revolute"):
        motion.velocity(coupler, per=mech.joint("A"))


def test_a_time_sweep_with_two_profiled_drivers_asks_which():
    model = ms.models.five_bar()
    mech = model.mechanism
    d = mech.body("d")
    right = mech.add(joints.Driver(d, "angle", float(d.angle), name="right"))
    model.driver.value = ms.profiles.ConstantSpeed(0.1, start=np.pi / 2)
    right.value = ms.profiles.ConstantSpeed(-0.1, start=float(d.angle))
    mech.solve()
    timed = mech.sweep_time(np.linspace(0.0, 0.5, 5))
    with pytest.raises(ValueError, match="exactly one driver with a motion profile.*name the "
                                         "driver"):
        timed.velocity(mech.body("b"), per="driver")
    both = 0.1 * timed.body_velocity(d, per="motor") - 0.1 * timed.body_velocity(d, per=right)
    np.testing.assert_allclose(both, timed.body_velocity(d), atol=1e-13)


# -- a singular pose --------------------------------------------------------------------------
def test_at_a_toggle_the_coefficients_are_not_defined_and_the_pose_is_named():
    # a non-Grashof four-bar: the crank stops where coupler and rocker stretch out in line,
    # |A - O4| = b + c, at cos t = (a^2 + d^2 - (b + c)^2) / (2 a d)
    a, b, c, d = 3.0, 2.0, 2.5, 4.0
    t_lim = float(np.arccos((a**2 + d**2 - (b + c) ** 2) / (2 * a * d)))
    mech, motor, _ = fourbar(a=a, b=b, c=c, d=d, theta=t_lim - 0.3)
    A = a * np.array([np.cos(t_lim), np.sin(t_lim)])
    O4 = np.array([d, 0.0])
    u = (O4 - A) / np.linalg.norm(O4 - A)
    B = A + b * u
    ang = float(np.arctan2(u[1], u[0]))
    q = np.array([A[0] / 2, A[1] / 2, t_lim, *(A + B) / 2, ang, *(B + O4) / 2, ang])
    motion = ms.Motion(mech, motor, np.array([t_lim - 0.3, t_lim]),
                       np.array([mech.state, q]), np.zeros(2, int), np.zeros(2))
    assert float(np.max(np.abs(mech.system().phi(q)[:-1]))) <= 1e-14   # the joints hold
    with pytest.raises(ms.SolveError, match=r"velocity and acceleration coefficients per unit "
                                            r"rate of Driver 'motor' on crank are not defined "
                                            r"at pose 1 \(motor = 1\.37\d*\):.*singular "
                                            r"position.*Sweep values that stop short"):
        motion.velocity(mech.body("rocker"), per="driver")


@settings(max_examples=15, deadline=None)
@given(speed=st.floats(0.1, 50.0), start=st.floats(0.0, 6.28),
       scale=st.sampled_from([1e-6, 1.0, 1e3]))
def test_any_time_velocity_is_the_driver_rate_times_the_coefficient(speed, start, scale):
    mech, motor, _ = fourbar(scale, theta=start)
    motor.value = ms.profiles.ConstantSpeed(speed, start=start)
    timed = mech.sweep_time([0.0, 0.5 / speed])
    coupler = mech.body("coupler")
    point = (0.2 * scale, 0.7 * scale)
    v, vc = timed.velocity(coupler, point), timed.velocity(coupler, point, per="driver")
    a, ac = timed.acceleration(coupler, point), timed.acceleration(coupler, point, per="driver")
    assert np.max(np.abs(v - speed * vc)) <= 1e-12 * np.max(np.abs(v))
    assert np.max(np.abs(a - speed**2 * ac)) <= 1e-12 * np.max(np.abs(a))
