"""ms.diff's NumPy core: values and derivatives through the loop solve.

Checked against closed forms (the four-bar's coupler point and velocity, the Stewart
platform's leg Jacobian), ``mech.sensitivity`` and Richardson-extrapolated central
differences (1e-8 relative), in micrometres and kilometres far from the origin; failures
raise named errors and leave the mechanism as it was.
"""

from __future__ import annotations

import numpy as np
import pytest
from _diff_cases import (
    FOURBAR_LENGTHS,
    FOURBAR_PARAMS,
    assert_close_rel,
    bricard_function,
    bricard_symmetric_direction,
    fourbar_closed_form,
    fourbar_function,
    fourbar_outputs,
    fourbar_p,
    lengths_matrix,
    richardson_jacobian,
    stewart_function,
    stewart_leg_jacobian,
)
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve.diff._outputs import _rotation

LENGTHS = [FOURBAR_LENGTHS, np.array([4.2, 1.1, 2.7, 3.1, 2.4]),
           np.array([3.8, 0.9, 3.3, 3.6, -1.9])]


def _closed_form_jacobian(L, h=1e-3):
    return richardson_jacobian(lambda x: fourbar_closed_form(np, x), L, h)


# -- the four-bar ----------------------------------------------------------------------------
@pytest.mark.parametrize("L", LENGTHS)
def test_fourbar_values_are_the_closed_form(L):
    f, _ = fourbar_function()
    y = f(fourbar_p(f, L))
    assert_close_rel(y, fourbar_closed_form(np, L), 1e-12, "values")


@pytest.mark.parametrize("L", LENGTHS)
def test_fourbar_jacobian_against_central_differences_and_closed_form(L):
    f, M = fourbar_function()
    lin = f.linearize(fourbar_p(f, L))
    J = lin.jacobian() @ M                      # by (ground, crank, coupler, rocker, angle)
    fd = richardson_jacobian(lambda x: f(fourbar_p(f, x)), L, 1e-3)
    assert_close_rel(J, fd, 1e-8, "central differences")
    # the closed form's own derivative (differences of an explicit formula: ~1e-11)
    assert_close_rel(J, _closed_form_jacobian(L), 1e-9, "closed form")


def test_fourbar_against_mech_sensitivity():
    f, M = fourbar_function()
    mech = f.mechanism
    lin = f.linearize(fourbar_p(f, LENGTHS[1]))
    s = mech.sensitivity(FOURBAR_PARAMS)
    point, _, pose = f.split(lin.jacobian(), axis=0)
    np.testing.assert_allclose(point, s.point("coupler", (0.0, 1.0)), rtol=0, atol=1e-13)
    np.testing.assert_allclose(pose, s.body_pose("coupler"), rtol=0, atol=1e-13)


def test_velocity_is_the_point_derivative_by_the_driver_times_the_speed():
    f, _ = fourbar_function(speed=2.5)
    lin = f.linearize(fourbar_p(f, LENGTHS[2]))
    _, vel, _ = f.split(lin.value)
    dpoint, _, _ = f.split(lin.jacobian(), axis=0)
    np.testing.assert_allclose(vel, 2.5 * dpoint[:, -1], rtol=1e-13, atol=1e-14)


@pytest.mark.parametrize("scale", [1e-6, 1e3])
def test_fourbar_jacobian_in_micrometres_and_kilometres_far_from_the_origin(scale):
    L = LENGTHS[1]
    f1, M = fourbar_function()
    J1 = f1.linearize(fourbar_p(f1, L)).jacobian() @ M
    offset = np.array([1e3, -2e3]) * scale
    f, _ = fourbar_function(scale=scale, offset=offset)
    lin = f.linearize(fourbar_p(f, L, scale, offset))
    y = lin.value
    y_ref = fourbar_closed_form(np, L)
    np.testing.assert_allclose((y[:2] - offset) / scale, y_ref[:2], rtol=0, atol=1e-12)
    J = lin.jacobian() @ M
    # lengths are in units of `scale`: point, velocity and position rows by the lengths are
    # numbers; by the angle they are lengths; the angle row by the lengths is per length
    J[:6, 4] /= scale
    J[6, :4] *= scale
    assert_close_rel(J, J1, 1e-10, f"scale {scale:g}")


# -- Bricard (redundant constraints) -----------------------------------------------------------
def test_bricard_by_the_driver_angle():
    f, mech = bricard_function()
    p = f.parameters()
    J = f.linearize(p).jacobian()
    fd = richardson_jacobian(lambda a: f(np.concatenate([p[:-1], a])), p[-1:], 1e-3)[:, 0]
    assert_close_rel(J[:, -1], fd, 1e-8, "Bricard, driver angle")
    with pytest.warns(ms.MechsolveWarning, match="minimum-norm"):
        s = mech.sensitivity(["motor.value"], state=f.linearize(p).state)
    point = f.split(J, axis=0)[1]
    np.testing.assert_allclose(point[:, -1:], s.point("link3", (0.2, -0.1, 0.3)), rtol=0,
                               atol=1e-12)


def test_bricard_along_a_change_that_keeps_it_movable():
    f, _ = bricard_function()
    p = f.parameters()
    v = bricard_symmetric_direction()
    lin = f.linearize(p)
    jvp = lin.jvp(v)

    def along(t):
        return f(p + t * v)

    h = 1e-3
    d1 = (along(h) - along(-h)) / (2 * h)
    d2 = (along(h / 2) - along(-h / 2)) / h
    fd = (4 * d2 - d1) / 3
    assert_close_rel(jvp, fd, 1e-8, "Bricard, symmetric change")
    assert np.max(np.abs(jvp)) > 1e-2        # the change moves link 3
    np.testing.assert_allclose(lin.vjp(np.ones(f.n_out)), np.ones(f.n_out) @ lin.jacobian())


# -- Stewart -----------------------------------------------------------------------------------
def test_stewart_pose_by_the_legs_inverts_the_closed_form_leg_jacobian():
    f, p = stewart_function()
    lin = f.linearize(p)
    pose = f.split(lin.value)[0]
    x, R = pose[:3], pose[3:].reshape(3, 3)
    dpose = f.split(lin.jacobian(), axis=0)[0]                   # (12, 6)
    # rotation vectors from dR = [dphi]x R
    W = np.einsum("ijc,kj->cik", dpose[3:].reshape(3, 3, -1), R)
    dphi = np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]], axis=0)
    np.testing.assert_allclose(W + W.transpose(0, 2, 1), 0.0, atol=1e-12)
    forward = np.vstack([dpose[:3], dphi])               # d(x, phi)/d(legs)
    product = stewart_leg_jacobian(x, R) @ forward
    np.testing.assert_allclose(product, np.eye(6), rtol=0, atol=1e-12)


def test_stewart_against_central_differences_and_sensitivity():
    f, p = stewart_function()
    J = f.linearize(p).jacobian()
    fd = richardson_jacobian(f, p, 1e-3)
    assert_close_rel(J, fd, 1e-8, "Stewart")
    mech = f.mechanism
    f(p)
    s = mech.sensitivity(f.params)
    np.testing.assert_allclose(f.split(J, axis=0)[1], s.point("platform", (0.3, 0.2, 0.1)),
                               rtol=0, atol=1e-12)


def test_spatial_pose_is_position_and_rotation_matrix():
    f, p = stewart_function()
    y = f(p)
    body = f.mechanism.body("platform")
    np.testing.assert_allclose(y[:3], body.position, atol=1e-15)
    np.testing.assert_allclose(y[3:12].reshape(3, 3), body.rotation, atol=1e-15)
    np.testing.assert_allclose(_rotation(np.array([1.0, 0, 0, 0])), np.eye(3))


# -- failures --------------------------------------------------------------------------------
def test_cannot_assemble_raises_and_leaves_the_mechanism_as_it_was():
    f, _ = fourbar_function()
    mech = f.mechanism
    before_p, before_q = mech.parameters(), mech.state
    with pytest.raises(ms.SolveError, match="could not assemble"):
        f(fourbar_p(f, [9.0, 1.0, 3.0, 3.5, 0.7]))       # ground longer than the other three
    after = mech.parameters()
    for name, value in before_p.items():
        np.testing.assert_array_equal(after[name], value)
    np.testing.assert_array_equal(mech.state, before_q)


def test_singular_jacobian_raises_a_named_error_on_derivatives():
    # coupler and rocker collinear at crank angle 0: a toggle position
    mech = ms.models.fourbar(ground=4.0, crank=1.0, coupler=1.5, rocker=1.5).mechanism
    f = ms.diff.LoopFunction(mech, ["O4.point2", "motor.value"],
                             [ms.diff.point("coupler", (0.0, 1.0))])
    lin = f.linearize(f.parameters())
    np.testing.assert_allclose(lin.value, [1.75, 1.0], atol=1e-12)
    for call in (lin.jacobian, lambda: lin.vjp([1.0, 0.0]), lambda: lin.jvp([0.0, 0.0, 1.0])):
        with pytest.raises(ms.diff.SingularJacobianError, match=r"singular \(rank 8 of 9\)"):
            call()
    assert issubclass(ms.diff.SingularJacobianError, ms.SolveError)
    g = ms.diff.LoopFunction(mech, ["motor.value"], [
        ms.diff.velocity("coupler", None, speeds={"motor": 1.0})])
    with pytest.raises(ms.diff.SingularJacobianError):     # a velocity needs Phi_q too
        g([0.0])


def test_bad_arguments_name_what_was_expected():
    mech = ms.models.fourbar().mechanism
    point = ms.diff.point("coupler", (0.0, 1.0))
    with pytest.raises(ValueError, match="no parameter named 'O9.point2'"):
        ms.diff.LoopFunction(mech, ["O9.point2"], [point])
    with pytest.raises(TypeError, match="params must name"):
        ms.diff.LoopFunction(mech, None, [point])
    with pytest.raises(TypeError, match="outputs must be made by ms.diff"):
        ms.diff.LoopFunction(mech, ["motor.value"], ["coupler"])
    with pytest.raises(ValueError, match="outputs is empty"):
        ms.diff.LoopFunction(mech, ["motor.value"], [])
    with pytest.raises(KeyError, match="no body named 'coupla'"):
        ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.point("coupla")])
    with pytest.raises(ValueError, match="the ground does not move"):
        ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.pose("ground")])
    with pytest.raises(TypeError, match="speeds must be a non-empty mapping"):
        ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.velocity("coupler", speeds=1.0)])
    with pytest.raises(TypeError, match="'O4' is not a driver"):
        ms.diff.LoopFunction(mech, ["motor.value"],
                             [ms.diff.velocity("coupler", speeds={"O4": 1.0})])
    with pytest.raises(TypeError, match="body must be a Body or a body name"):
        ms.diff.point(3)
    f = ms.diff.LoopFunction(mech, ["O4.point2", "motor.value"], [point])
    with pytest.raises(ValueError, match=r"p must have shape \(3,\) \(O4.point2\[0\]"):
        f([1.0, 2.0])
    with pytest.raises(ValueError, match="p must be finite"):
        f([4.0, np.nan, 0.0])
    lin = f.linearize(f.parameters())
    with pytest.raises(ValueError, match=r"ct must have shape \(2,\)"):
        lin.vjp([1.0])
    with pytest.raises(ValueError, match=r"t must have shape \(3,\)"):
        lin.jvp([1.0])


def test_layout_labels_and_current_parameters():
    f, _ = fourbar_function()
    assert f.n_in == 15 and f.n_out == 7
    assert f.columns[:2] == ["O2.point2[0]", "O2.point2[1]"] and f.columns[-1] == "motor.value"
    assert f.labels == ["coupler(0.0, 1.0).x", "coupler(0.0, 1.0).y", "v coupler(0.0, 1.0).x",
                        "v coupler(0.0, 1.0).y", "coupler.x", "coupler.y", "coupler.angle"]
    p = fourbar_p(f, LENGTHS[1])
    f(p)
    np.testing.assert_array_equal(f.parameters(), p)
    assert [a.shape for a in f.split(np.zeros((4, 7)))] == [(4, 2), (4, 2), (4, 3)]
    assert [a.shape for a in f.split(np.zeros((7, 15)), axis=0)] == [(2, 15), (2, 15), (3, 15)]
    with pytest.raises(ValueError, match="y must have 7 entries along axis -1"):
        f.split(np.zeros(6))


def test_derivatives_taken_after_other_evaluations_use_their_own_parameters():
    f, _ = fourbar_function()
    p1, p2 = fourbar_p(f, LENGTHS[1]), fourbar_p(f, LENGTHS[2])
    late = f.linearize(p1)
    f(p2)                                                  # another forward pass in between
    J_late = late.jacobian()
    np.testing.assert_array_equal(f.parameters(), p2)     # put back afterwards
    np.testing.assert_allclose(J_late, f.linearize(p1).jacobian(), rtol=0, atol=1e-13)


@settings(max_examples=12)
@given(crank=st.floats(0.6, 1.2), coupler=st.floats(2.6, 3.4), rocker=st.floats(3.0, 3.8),
       angle=st.floats(-np.pi, np.pi))
def test_fourbar_jacobian_matches_the_closed_form_on_random_designs(crank, coupler, rocker,
                                                                    angle):
    L = np.array([4.0, crank, coupler, rocker, angle])
    mech = ms.models.fourbar(4.0, crank, coupler, rocker).mechanism
    f = ms.diff.LoopFunction(mech, FOURBAR_PARAMS, fourbar_outputs())
    lin = f.linearize(fourbar_p(f, L))
    assert_close_rel(lin.value, fourbar_closed_form(np, L), 1e-12, "values")
    assert_close_rel(lin.jacobian() @ lengths_matrix(), _closed_form_jacobian(L), 1e-8,
                     "derivatives")


def test_a_large_sparse_system_against_central_differences():
    model = ms.models.fourbar_chain(60)              # 363 unknowns: the sparse LU
    mech = model.mechanism
    mech.solve()
    assert not mech.system().dense
    body = mech.bodies[3]
    f = ms.diff.LoopFunction(mech, ["joints[4].point1", "joints[5].point2", "motor.value"], [
        ms.diff.point(body, (0.1, 0.2)), ms.diff.pose(body),
        ms.diff.velocity(body, (0.1, 0.2), speeds={"motor": 1.0})])
    p = f.parameters() + 0.01
    J = f.linearize(p).jacobian()
    assert_close_rel(J, richardson_jacobian(f, p, 1e-3), 1e-8, "sparse")
    s = mech.sensitivity(f.params, state=f.linearize(p).state)
    np.testing.assert_allclose(J[:2], s.point(body, (0.1, 0.2)), rtol=0, atol=1e-12)


def test_fourbar_velocity_derivative_is_the_time_sweep_s_velocity_sensitivity():
    f, _ = fourbar_function(speed=2.5)
    lin = f.linearize(fourbar_p(f, LENGTHS[1]))
    velocity = f.split(lin.jacobian(), axis=0)[1]          # (2, 15)
    mech = f.mechanism
    mech.joint("motor").value = ms.profiles.ConstantSpeed(speed=2.5, start=LENGTHS[1][4])
    motion = mech.sweep_time([0.0])
    timed = motion.velocity_sensitivity("coupler", (0.0, 1.0), params=FOURBAR_PARAMS)[0]
    np.testing.assert_allclose(velocity, timed, rtol=0, atol=1e-9 * np.abs(timed).max())
