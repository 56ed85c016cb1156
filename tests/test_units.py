"""Length-unit invariance: the same mechanism in metres, millimetres or micrometres.

A mechanism whose lengths are all multiplied by ``s`` has the poses of the unit-scale one with
positions multiplied by ``s`` and the same angles, the same singular positions, and fails in the
same way. Every comparison is made on the poses (positions relative to ``s`` times the
mechanism's size, angles in radians), never on the solver's residual.
"""

import re

import numpy as np
import pytest
from closed_form import fourbar_state, planar_state_error
from hypothesis import Phase, assume, given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import joints
from mechsolve.models import spatial as sm

SCALES = [1e-6, 1e-3, 1.0, 1e3, 1e6]
SCALED = [s for s in SCALES if s != 1.0]
TOL = 1e-12
TURN = np.linspace(0.0, 2 * np.pi, 361)


# -- building the same mechanism at scale s ---------------------------------------------------
def scaled_copy(model, s):
    """The planar mechanism of ``model`` with every length times ``s`` (same start pose).

    Handles the joints of the planar demos used here: revolutes, body drivers and revolute
    angle drivers. Returns the mechanism and its copy of ``model.driver``.
    """
    src = model.mechanism
    mech = ms.Mechanism(name=src.name)
    bodies = {"ground": mech.ground}
    for b in src.bodies:
        bodies[b.name] = mech.add_body(b.name, position=s * b.position, angle=b.angle)
    for j in src.joints:
        b = [bodies[x.name] for x in j.bodies]
        if type(j) is joints.Revolute:
            mech.add(joints.Revolute(*b, s * j.point1, s * j.point2, name=j.name))
        elif type(j) is joints.Driver:
            value = j.value if j.coordinate == "angle" else s * j.value
            mech.add(joints.Driver(b[0], j.coordinate, value, name=j.name))
        elif type(j) is joints.AngleDriver:
            mech.add(joints.AngleDriver(mech.joint(j.joint.name), j.value, name=j.name))
        else:
            raise TypeError(f"scaled_copy does not handle {type(j).__name__}")
    return mech, mech.joint(model.driver.name)


def fourbar(s):
    m = ms.models.fourbar(ground=4.0 * s, crank=s, coupler=3.0 * s, rocker=3.5 * s)
    return m.mechanism, m.driver


def slider_crank(s):
    m = ms.models.slider_crank(crank=s, rod=3.0 * s, offset=0.5 * s)
    return m.mechanism, m.driver


def watt_sixbar(s):
    return scaled_copy(ms.models.watt_sixbar(), s)


def rssr(s):
    m = sm.rssr(crank=s, rocker=1.5 * s, coupler=2.5 * s, pivot=(2.0 * s, 0.0, s))
    return m.mechanism, m.driver


# name: (builder, size of the mechanism at unit scale)
MODELS = {"fourbar": (fourbar, 4.0), "slider_crank": (slider_crank, 4.0),
          "watt_sixbar": (watt_sixbar, 7.1), "rssr": (rssr, 2.5)}


def pose_error(mech, states, ref_states, s, size):
    """Largest position error relative to ``s * size`` and largest angle error between
    ``states`` (scale ``s``) and ``s`` times ``ref_states`` (unit scale)."""
    states = np.asarray(states, float)
    ref = np.asarray(ref_states, float)
    if mech.dim == 2:
        ref = ref.reshape(ref.shape[:-1] + (-1, 3)) * [s, s, 1.0]
        return planar_state_error(states, ref.reshape(states.shape), s * size)
    X = states.reshape(states.shape[:-1] + (-1, 7))
    R = ref.reshape(ref.shape[:-1] + (-1, 7))
    pos = float(np.max(np.abs(X[..., :3] - s * R[..., :3]))) / (s * size)
    # rotation angle of conj(q2) q1, from its vector part (accurate near 0; q ~ -q)
    q1, q2 = X[..., 3:], R[..., 3:]
    w = np.sum(q1 * q2, axis=-1)
    v = (q2[..., :1] * q1[..., 1:] - q1[..., :1] * q2[..., 1:]
         - np.cross(q2[..., 1:], q1[..., 1:]))
    ang = float(np.max(2 * np.arctan2(np.linalg.norm(v, axis=-1), np.abs(w))))
    return pos, ang


def rough_start(mech, s, rng):
    """Move every body off its pose: 5 % of the scale and up to 0.05 rad (same draw for every
    scale, as ``rng`` is seeded the same)."""
    q = mech.state
    if mech.dim == 2:
        noise = rng.uniform(-0.05, 0.05, q.shape)
        noise.reshape(-1, 3)[:, :2] *= s
        mech.state = q + noise
        return
    for b in mech.bodies:
        b.position = b.position + s * rng.uniform(-0.05, 0.05, 3)
        b.orientation = ms.Orientation.from_euler321(*rng.uniform(-0.05, 0.05, 3)) \
            * b.orientation


def solve_from_rough_starts(build, s, values=(0.0, 0.3, -0.3)):
    """Poses solved at each driver value from a rough start near the assembled pose."""
    rng = np.random.default_rng(5)
    out = []
    for v in values:
        mech, driver = build(s)
        driver.value = v
        rough_start(mech, s, rng)
        mech.solve()
        out.append(mech.state)
    return mech, np.array(out)


# -- poses scale with the lengths ---------------------------------------------------------------
@pytest.mark.parametrize("s", SCALED)
@pytest.mark.parametrize("name", list(MODELS))
def test_solve_from_rough_start_scales(name, s):
    build, size = MODELS[name]
    _, ref = solve_from_rough_starts(build, 1.0)
    mech, states = solve_from_rough_starts(build, s)
    pos, ang = pose_error(mech, states, ref, s, size)
    assert pos <= TOL and ang <= TOL, f"position error / size {pos:.2g}, angle error {ang:.2g}"


@pytest.fixture(scope="module")
def unit_sweeps():
    out = {}
    for name, (build, _) in MODELS.items():
        mech, driver = build(1.0)
        out[name] = mech.sweep(driver, TURN).states
    return out


@pytest.mark.parametrize("s", SCALED)
@pytest.mark.parametrize("name", list(MODELS))
def test_full_turn_sweep_scales(name, s, unit_sweeps):
    build, size = MODELS[name]
    mech, driver = build(s)
    motion = mech.sweep(driver, TURN)
    pos, ang = pose_error(mech, motion.states, unit_sweeps[name], s, size)
    assert pos <= TOL and ang <= TOL, f"position error / size {pos:.2g}, angle error {ang:.2g}"


def test_regression_slider_crank_in_millimetres_sweeps_its_own_values():
    # Crank 100, rod 300, offset 50 (millimetres): the unit-scale slider-crank times 100.
    model = ms.models.slider_crank(crank=100.0, rod=300.0, offset=50.0)
    motion = model.mechanism.sweep(model.driver, model.values)
    unit = ms.models.slider_crank(crank=1.0, rod=3.0, offset=0.5)
    ref = unit.mechanism.sweep(unit.driver, unit.values).states
    pos, ang = pose_error(model.mechanism, motion.states, ref, 100.0, 4.0)
    assert pos <= TOL and ang <= TOL, f"position error / size {pos:.2g}, angle error {ang:.2g}"


# -- singular positions -----------------------------------------------------------------------
def parallelogram_singular(s):
    model = ms.models.parallelogram(2)
    mech, driver = scaled_copy(model, s)
    return mech.sweep(driver, model.values).singular


@pytest.mark.parametrize("s", SCALED)
def test_parallelogram_singular_positions_do_not_depend_on_the_unit(s):
    # The two-crank parallelogram passes its change points (all links flat) at crank angles
    # pi and 2 pi; they are driver values, which no choice of length unit can move.
    ref = parallelogram_singular(1.0)
    np.testing.assert_allclose(ref, [np.pi, 2 * np.pi], atol=1e-3)
    found = parallelogram_singular(s)
    assert len(found) == len(ref) and np.allclose(found, ref, rtol=0, atol=1e-9), \
        f"scale {s:g} reports {len(found)} singular positions ({found[:4]} ...), " \
        f"unit scale {ref}"


# -- failures ------------------------------------------------------------------------------------
_NUMBER = re.compile(r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?")


def masked(exc):
    return type(exc), _NUMBER.sub("#", str(exc))


def failure(make):
    """The exception ``make()`` raises, as (class, message with every number masked)."""
    with pytest.raises(ms.SolveError) as info:
        make()
    return info.value


def unreachable_rocker_angle(s):
    mech, driver = fourbar(s)
    mech.remove(driver)
    mech.add(joints.Driver(mech.body("rocker"), "angle", 0.0, name="rocker drive"))
    mech.solve()


def unreachable_slider_position(s):
    mech, driver = slider_crank(s)
    mech.remove(driver)
    mech.add(joints.SlideDriver(mech.joint("rail"), 10.0 * s, name="slide"))
    mech.solve()


def non_grashof_sweep(s):
    # the crank (3) cannot turn fully: the sweep stops at a dead point
    m = ms.models.fourbar(ground=4.0 * s, crank=3.0 * s, coupler=3.0 * s, rocker=3.5 * s)
    m.mechanism.sweep(m.driver, np.radians(np.arange(0.0, 361.0, 1.0)))


@pytest.mark.parametrize("s", SCALED)
@pytest.mark.parametrize("case", [unreachable_rocker_angle, unreachable_slider_position,
                                  non_grashof_sweep])
def test_failures_read_the_same_in_any_unit(case, s):
    ref = failure(lambda: case(1.0))
    err = failure(lambda: case(s))
    assert masked(err) == masked(ref), f"scale {s:g}:\n{err}\n-- unit scale:\n{ref}"
    if isinstance(ref, ms.SweepError):
        assert err.index == ref.index


# -- property: random well-conditioned four-bars in any unit ----------------------------------
T_PROPERTY = np.linspace(0.0, 2 * np.pi, 73)


def well_conditioned(b, c, d):
    """A crank-rocker (crank 1) whose closed form stays well conditioned all the way round: the
    two arccos arguments (angle at the crank pin, transmission angle) within [-0.9, 0.9]."""
    A = np.stack([np.cos(T_PROPERTY), np.sin(T_PROPERTY)], axis=1)
    e = np.linalg.norm(np.array([d, 0.0]) - A, axis=1)
    cos_a = (b * b + e * e - c * c) / (2 * b * e)
    cos_t = (b * b + c * c - e * e) / (2 * b * c)
    return max(np.max(np.abs(cos_a)), np.max(np.abs(cos_t))) <= 0.9


# No shrinking: a failing sweep is reported as drawn (shrinking re-runs dozens of sweeps).
@settings(max_examples=25, phases=[Phase.explicit, Phase.reuse, Phase.generate])
@given(exponent=st.floats(-6.0, 6.0), b=st.floats(2.0, 6.0), c=st.floats(2.0, 6.0),
       d=st.floats(2.0, 6.0))
def test_random_fourbars_sweep_exactly_in_any_unit(exponent, b, c, d):
    assume(well_conditioned(b, c, d))
    s = 10.0**exponent
    model = ms.models.fourbar(ground=d * s, crank=s, coupler=b * s, rocker=c * s)
    motion = model.mechanism.sweep(model.driver, T_PROPERTY)
    exact = fourbar_state(T_PROPERTY, a=s, b=b * s, c=c * s, d=d * s)
    pos, ang = planar_state_error(motion.states, exact, s * max(b, c, d))
    assert pos <= TOL and ang <= TOL, f"position error / size {pos:.2g}, angle error {ang:.2g}"
