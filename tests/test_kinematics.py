"""Velocities and accelerations against closed forms; profiles; time sweeps; free motions."""

import numpy as np
import pytest
import sympy as sp
from closed_form import fourbar as fourbar_exact
from closed_form import slider_crank as slider_exact
from closed_form import wrap

import mechsolve as ms
from mechsolve.profiles import ConstantSpeed, Cubic, Cycloidal, Expression, Function, Quintic


def fourbar_rates(th, thd, thdd, a=1.0, b=3.0, c=3.5, d=4.0):
    """Coupler and rocker angular velocities and accelerations, derived by hand.

    Loop: A + b u(phi) - c u(psi) = O4, u(x) = (cos x, sin x), psi the direction from O4 to B.
    Differentiating and taking the 2D cross product with u'(psi) (resp. u'(phi)), using
    u'(x) x u'(y) = sin(y - x) and u(x) x u'(y) = cos(x - y), eliminates one unknown:
        phi' = -a th' sin(psi - th) / (b sin(psi - phi))
        psi' =  a th' sin(phi - th) / (c sin(phi - psi))
        phi'' = -[a th'' sin(psi-th) - a th'^2 cos(th-psi) - b phi'^2 cos(phi-psi) + c psi'^2]
                / (b sin(psi - phi))
        psi'' = [a th'' sin(phi-th) - a th'^2 cos(th-phi) - b phi'^2 + c psi'^2 cos(psi-phi)]
                / (c sin(phi - psi))
    """
    _, _, phi, psi_r = fourbar_exact(th, a, b, c, d)
    psi = psi_r + np.pi
    phid = -a * thd * np.sin(psi - th) / (b * np.sin(psi - phi))
    psid = a * thd * np.sin(phi - th) / (c * np.sin(phi - psi))
    phidd = -(a * thdd * np.sin(psi - th) - a * thd**2 * np.cos(th - psi)
              - b * phid**2 * np.cos(phi - psi) + c * psid**2) / (b * np.sin(psi - phi))
    psidd = (a * thdd * np.sin(phi - th) - a * thd**2 * np.cos(th - phi) - b * phid**2
             + c * psid**2 * np.cos(psi - phi)) / (c * np.sin(phi - psi))
    return phi, phid, phidd, psid, psidd


@pytest.mark.parametrize("profile", [ConstantSpeed(speed=2.0),
                                     Expression(sp.Symbol("t") + sp.sin(sp.Symbol("t")) ** 2,
                                                sp.Symbol("t"))])
def test_fourbar_velocities_and_accelerations_match_closed_form(profile):
    model = ms.models.fourbar()
    mech = model.mechanism
    model.driver.value = profile
    times = np.linspace(0, 2 * np.pi / 2.0, 121) if isinstance(profile, ConstantSpeed) else \
        np.linspace(0, 6.0, 121)
    motion = mech.sweep_time(times)
    th, thd, thdd = profile(times)
    phi, phid, phidd, psid, psidd = fourbar_rates(th, thd, thdd)
    crank, coupler, rocker = mech.bodies
    nu, nud = motion.velocities, motion.accelerations
    np.testing.assert_allclose(nu[:, 2], thd, atol=1e-10)
    np.testing.assert_allclose(nu[:, 5], phid, atol=1e-10)
    np.testing.assert_allclose(nu[:, 8], psid, atol=1e-10)
    np.testing.assert_allclose(nud[:, 5], phidd, atol=1e-10)
    np.testing.assert_allclose(nud[:, 8], psidd, atol=1e-10)
    # the coupler-rocker pin B = A + b u(phi)
    Bd = np.stack([-np.sin(th) * thd - 3 * np.sin(phi) * phid,
                   np.cos(th) * thd + 3 * np.cos(phi) * phid], axis=1)
    np.testing.assert_allclose(motion.velocity(coupler, (1.5, 0)), Bd, atol=1e-10)
    Bdd = np.stack([-np.cos(th) * thd**2 - np.sin(th) * thdd
                    - 3 * (np.cos(phi) * phid**2 + np.sin(phi) * phidd),
                    -np.sin(th) * thd**2 + np.cos(th) * thdd
                    + 3 * (-np.sin(phi) * phid**2 + np.cos(phi) * phidd)], axis=1)
    np.testing.assert_allclose(motion.acceleration(coupler, (1.5, 0)), Bdd, atol=1e-10)
    np.testing.assert_allclose(motion.acceleration(rocker, (-1.75, 0)), Bdd, atol=1e-10)


def test_offset_slider_crank_velocity_and_acceleration():
    model = ms.models.slider_crank(crank=1.0, rod=3.0, offset=0.5)
    mech = model.mechanism
    w = 3.0
    model.driver.value = ConstantSpeed(speed=w)
    times = np.linspace(0, 2 * np.pi / w, 181)
    motion = mech.sweep_time(times)
    th = w * times
    a, b, e = 1.0, 3.0, 0.5
    s = e - a * np.sin(th)
    sd = -a * w * np.cos(th)
    sdd = a * w**2 * np.sin(th)
    D = np.sqrt(b**2 - s**2)
    xd = -a * w * np.sin(th) - s * sd / D
    xdd = -a * w**2 * np.cos(th) - (sd**2 + s * sdd) / D - s**2 * sd**2 / D**3
    slider = mech.body("slider")
    x, _ = slider_exact(th)
    np.testing.assert_allclose(motion.pose(slider)[:, 0], x, atol=1e-10)
    np.testing.assert_allclose(motion.velocity(slider)[:, 0], xd, atol=1e-10)
    np.testing.assert_allclose(motion.acceleration(slider)[:, 0], xdd, atol=1e-10)
    np.testing.assert_allclose(motion.velocity(slider)[:, 1], 0.0, atol=1e-10)


def test_single_pose_api():
    model = ms.models.slider_crank()
    mech = model.mechanism
    model.driver.value = ConstantSpeed(speed=1.0)
    mech.solve(t=0.7)
    nu = mech.velocity()
    nud = mech.acceleration()
    assert nu.shape == nud.shape == (9,)
    v = mech.point_velocity(mech.body("rod"), (1.5, 0))
    np.testing.assert_allclose(v, mech.point_velocity(mech.body("slider"), (0, 0)), atol=1e-12)
    with pytest.raises(TypeError, match="body must be a Body"):
        mech.point_velocity("rod", (0, 0))


def test_spherical_fourbar_rates_against_finite_differences_in_time():
    model = ms.models.spatial.spherical_fourbar()
    mech = model.mechanism
    model.driver.value = Expression(1.5 * sp.Symbol("t") + 0.3 * sp.sin(2 * sp.Symbol("t")),
                                    sp.Symbol("t"))
    h = 1e-4
    times = np.array([0.8 - h, 0.8, 0.8 + h, 2.1 - h, 2.1, 2.1 + h])
    motion = mech.sweep_time(times, tol=1e-13)
    coupler = mech.body("coupler")
    p = np.array([0.3, -0.2, 0.5])
    path = motion.point(coupler, p)
    vel = motion.velocity(coupler, p)
    acc = motion.acceleration(coupler, p)
    for k in (1, 4):
        fd_v = (path[k + 1] - path[k - 1]) / (2 * h)
        fd_a = (path[k + 1] - 2 * path[k] + path[k - 1]) / h**2
        np.testing.assert_allclose(vel[k], fd_v, atol=1e-7)
        np.testing.assert_allclose(acc[k], fd_a, atol=2e-4)
        # angular velocity from the quaternion derivative: omega = 2 qdot q*
        q = motion.pose(coupler)[:, 3:]
        qd = (q[k + 1] - q[k - 1]) / (2 * h)
        w = 2 * ms.spatial._quat.quat_multiply(qd, ms.spatial._quat.quat_conjugate(q[k]))[1:]
        np.testing.assert_allclose(motion.velocities[k, 9:12], w, atol=1e-7)


@pytest.mark.parametrize("profile", [ConstantSpeed(2.0, 1.0), Cubic(0.5, 2.0, 1.0, 3.0),
                                     Quintic(0.5, 2.0, 1.0, 3.0), Cycloidal(0.5, 2.0, 1.0, 3.0),
                                     Function(np.sin, np.cos, lambda t: -np.sin(t)),
                                     Expression(sp.exp(-sp.Symbol("t")), sp.Symbol("t"))])
def test_profile_derivatives_match_finite_differences(profile):
    t = np.linspace(0.1, 2.4, 37)
    t = t[(np.abs(t - 0.5) > 1e-3) & (np.abs(t - 2.0) > 1e-3)]
    h = 1e-5
    v, vd, vdd = profile(t)
    np.testing.assert_allclose(vd, (profile(t + h)[0] - profile(t - h)[0]) / (2 * h), atol=1e-8)
    np.testing.assert_allclose(vdd, (profile(t + h)[1] - profile(t - h)[1]) / (2 * h),
                               atol=1e-7)


def test_blend_profiles_start_and_end_at_rest():
    for cls in (Cubic, Quintic, Cycloidal):
        p = cls(0.0, 1.0, 2.0, 5.0)
        assert p(0.0)[0] == pytest.approx(2.0) and p(1.0)[0] == pytest.approx(5.0)
        assert p(1.0)[1] == pytest.approx(0.0, abs=1e-12)
    with pytest.raises(ValueError, match="t1 must be after t0"):
        Cubic(1.0, 1.0, 0.0, 1.0)
    with pytest.raises(ValueError, match="symbols other than t"):
        Expression(sp.Symbol("t") * sp.Symbol("k"), sp.Symbol("t"))


def test_free_motions_of_an_undriven_fourbar():
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    basis = mech.free_motions()
    assert basis.shape == (1, 9)
    J = mech.jacobian(dense=True)
    np.testing.assert_allclose(J @ basis[0], 0.0, atol=1e-12)
    model2 = ms.models.fourbar()
    assert model2.mechanism.free_motions().shape == (0, 9)


def test_time_sweep_needs_a_profile():
    model = ms.models.fourbar()
    with pytest.raises(ValueError, match="needs at least one driver with a motion profile"):
        model.mechanism.sweep_time([0.0, 1.0])
    motion = model.mechanism.sweep(model.driver, [0.0, 0.1])
    with pytest.raises(ValueError, match="this motion has no velocity data"):
        motion.velocity(model.mechanism.body("crank"))
    assert np.all(np.abs(wrap(motion.pose(model.mechanism.body("crank"))[:, 2]
                              - [0.0, 0.1])) < 1e-12)


@pytest.mark.parametrize("batch", [True, False])
def test_change_point_is_reported_and_the_branch_kept(batch):
    # A parallelogram four-bar passes its change point (all links flat) at crank angles pi and
    # 2 pi, where it could fold into an anti-parallelogram; the sweep must report the singular
    # positions and stay a parallelogram (coupler level).
    model = ms.models.parallelogram(2)
    mech = model.mechanism
    values = np.linspace(np.pi / 2, np.pi / 2 + 2 * np.pi, 181)
    motion = mech.sweep(model.driver, values, batch=batch)
    assert np.max(np.abs(motion.pose(mech.body("coupler"))[:, 2])) < 1e-4
    assert len(motion.singular) == 2
    np.testing.assert_allclose(motion.singular, [np.pi, 2 * np.pi], atol=1e-4)
    # off the grid points too: the crossing is located between two requested values
    values = np.linspace(0.3, 0.3 + 2 * np.pi, 200)
    motion = mech.sweep(model.driver, values, batch=batch)
    assert np.max(np.abs(motion.pose(mech.body("coupler"))[:, 2])) < 1e-9
    np.testing.assert_allclose(motion.singular, [np.pi, 2 * np.pi], atol=0.02)


def test_toggle_position_stops_a_rocker_driven_fourbar():
    # Driving the rocker of a crank-rocker: at the toggle position (crank and coupler in line)
    # the rocker reaches the end of its swing. The sweep stops there and reports it.
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    rocker = mech.body("rocker")
    drive = mech.add(ms.joints.Driver(rocker, "angle", rocker.angle))
    # toggle: |B| = crank + coupler = 4 and |B - O4| = 3.5
    bx = (16 + 16 - 3.5**2) / 8
    limit = np.arctan2(-np.sqrt(16 - bx**2), 4 - bx)
    values = np.linspace(rocker.angle, -1.3, 60)
    with pytest.raises(ms.SweepError) as info:
        mech.sweep(drive, values)
    err = info.value
    assert values[err.index] < limit < values[err.index - 1]
    assert err.motion.singular[-1] == pytest.approx(limit, abs=1e-6)
    assert "cannot reach value" in str(err)


def test_regular_sweep_reports_no_singular_position():
    model = ms.models.fourbar()
    motion = model.mechanism.sweep(model.driver, np.linspace(0, 2 * np.pi, 361))
    assert motion.singular == []


def test_branch_condition_selects_the_assembly():
    model = ms.models.fourbar(upper=True)
    mech = model.mechanism
    coupler = mech.body("coupler")

    def below(m):
        return m.body("coupler").to_global((1.5, 0))[1] < 0

    result = mech.solve(branch=below)
    assert result.success
    assert coupler.to_global((1.5, 0))[1] < 0
    from closed_form import fourbar as exact
    _, B, _, _ = exact(0.0, upper=False)
    np.testing.assert_allclose(coupler.to_global((1.5, 0)), B[0] if B.ndim > 1 else B, atol=1e-10)
    # back to the upper branch, and the sweep keeps it
    mech.solve(branch=lambda m: m.body("coupler").to_global((1.5, 0))[1] > 0)
    motion = mech.sweep(model.driver, np.linspace(0, 2 * np.pi, 91))
    assert np.all(motion.point(coupler, (1.5, 0))[:, 1] > 0)
    with pytest.raises(ms.SolveError, match="none satisfies the branch condition"):
        mech.solve(branch=lambda m: m.body("coupler").y > 100)
    with pytest.raises(TypeError, match="branch must be a callable"):
        mech.solve(branch=3)
