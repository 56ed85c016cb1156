"""The one Newton core: convergence, damping, diagnosis and the cases of the issue that built it.

Every pose is checked from the poses themselves (closed forms, the geometry), never from the
solver's own residual.
"""

import numpy as np
import pytest
from _round_off import EPS, assert_same_to_round_off
from closed_form import fourbar as fourbar_exact

import mechsolve as ms
from mechsolve import joints
from mechsolve.newton import (
    CONVERGED,
    MAX_STEP,
    LinearStrategy,
    NewtonResult,
    Result,
    levenberg_marquardt,
    newton,
)


def readme_fourbar():
    """The README's four-bar, from its rough sketch."""
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0), name="O2"))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0), name="A"))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0), name="B"))
    mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0), name="O4"))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return mech, drive


def coupler_pin(mech):
    return mech.body("coupler").to_global((1.5, 0.0))


# -- the core on a problem of its own ------------------------------------------------------------
class Circles:
    """Two circles' intersection, ``x^2 + y^2 = 4`` and ``(x - 3)^2 + y^2 = 4``, as a problem of
    the core: a batch of states ``(B, 2)``, lengths in units of ``L``."""

    def __init__(self, L=1.0):
        self.L = L
        self.col_scale = np.array([L, L])
        self.state_scale = np.array([L, L])
        self.eq_scale = np.array([L * L, L * L])

    def evaluate(self, X, idx):
        x, y = X[:, 0], X[:, 1]
        F = np.stack([x * x + y * y - 4 * self.L**2, (x - 3 * self.L) ** 2 + y * y
                      - 4 * self.L**2], axis=1)
        J = np.stack([np.stack([2 * x, 2 * y], 1), np.stack([2 * (x - 3 * self.L), 2 * y], 1)],
                     axis=1)
        return F, J

    def residual(self, X, idx):
        return self.evaluate(X, idx)[0]

    @staticmethod
    def matrix(D):
        return D

    @staticmethod
    def retract(X, dX):
        return X + dX


@pytest.mark.parametrize("L", [1e-6, 1.0, 1e6])
def test_core_converges_quadratically_to_round_off(L):
    exact = np.array([1.5, np.sqrt(4 - 2.25)]) * L
    out = newton(Circles(L), np.array([[1.0, 1.0]]) * L, tol=1e-14)
    assert isinstance(out, NewtonResult) and isinstance(out, Result)
    assert out.status[0] == CONVERGED and out.success[0]
    np.testing.assert_allclose(out.x[0], exact, rtol=2e-16 * 4, atol=0)
    h = np.array([float(r[0]) for r in out.history])
    # e_{k+1} <= C e_k^2: the ratios stay bounded while the residual falls
    assert np.all(h[2:] <= 10 * h[1:-1] ** 2), h


def test_core_solves_a_batch_and_stops_each_item_on_its_own():
    starts = np.array([[1.0, 1.0], [1.0, -1.0], [3.0, 5.0], [0.5, 0.2]])
    out = newton(Circles(), starts, tol=1e-12)
    assert out.success.all()
    np.testing.assert_allclose(np.abs(out.x[:, 1]), np.sqrt(1.75), rtol=1e-15)
    np.testing.assert_allclose(out.x[:, 0], 1.5, rtol=1e-15)
    assert len(set(out.iterations.tolist())) > 1    # each item took its own count


def test_core_steps_are_limited_to_half_a_turn():
    # from a start where the first Newton step is huge, no step is longer than MAX_STEP
    seen = []

    class Watched(Circles):
        def retract(self, X, dX):
            seen.append(float(np.max(np.abs(dX / self.col_scale))))
            return X + dX

    newton(Watched(), np.array([[1e-3, 1e-3]]), tol=1e-12)
    assert max(seen) <= MAX_STEP * (1 + 1e-12)


def test_levenberg_marquardt_stops_at_the_least_squares_point():
    # circles of radius 1 that do not meet: the closest point is halfway, on the x axis
    class Apart(Circles):
        def evaluate(self, X, idx):
            x, y = X[:, 0], X[:, 1]
            F = np.stack([np.hypot(x, y) - 1, np.hypot(x - 3, y) - 1], axis=1)
            r1, r2 = np.hypot(x, y), np.hypot(x - 3, y)
            J = np.stack([np.stack([x / r1, y / r1], 1), np.stack([(x - 3) / r2, y / r2], 1)], 1)
            return F, J

    out = levenberg_marquardt(Apart(), np.array([[0.7, 0.4]]), tol=1e-12)
    assert not out.success[0]
    np.testing.assert_allclose(out.x[0, 1], 0.0, atol=1e-7)
    assert 1.0 <= out.x[0, 0] <= 2.0


def test_levenberg_marquardt_steps_on_an_exactly_singular_damped_matrix():
    # mu below round-off of AtA: Cholesky and LU both fail; the step is the minimum-norm one
    # (no motion along the direction the goals do not see), for one item and in a batch
    from mechsolve.newton import _damped_solve, _damped_steps

    AtA = np.array([[1e20, 0.0], [0.0, 0.0]])
    grad = np.array([2e20, 0.0])
    np.testing.assert_allclose(_damped_solve(AtA, 1e-300, grad), [-2.0, 0.0], rtol=1e-15,
                               atol=4 * EPS)
    batch = _damped_steps(np.stack([AtA, np.eye(2)]), np.array([1e-300, 1.0]),
                          np.stack([grad, [1.0, 1.0]]))
    np.testing.assert_allclose(batch, [[-2.0, 0.0], [-0.5, -0.5]], rtol=1e-15)


def test_a_start_far_off_its_assembly_fails_with_a_solve_error_not_linalg():
    # the README four-bar with the coupler's start at x = 1e6: LM's damped matrix became
    # exactly singular and numpy's bare LinAlgError("Singular matrix") escaped
    mech, _ = readme_fourbar()
    mech.body("coupler").position = (1e6, 1.0)
    start = mech.state.copy()
    try:
        mech.solve()
    except ms.SolveError as err:
        assert "between crank and coupler" in str(err)
        np.testing.assert_array_equal(mech.state, start)   # a failed call leaves the state
    else:   # assembled: then exactly, from the poses
        _, B, _, _ = fourbar_exact(0.0)
        np.testing.assert_allclose(coupler_pin(mech), B, atol=1e-13)


def test_lsq_strategy_gives_the_minimum_norm_step_in_the_scaled_coordinates():
    # one equation x + y/L = 1 in two unknowns (a length and an angle): the step that moves
    # least in the scaled coordinates (x/L, y) is symmetric in them whatever L is
    for L in (1e-3, 1.0, 1e3):
        fac = LinearStrategy("lsq").factor(np.array([[[1.0, L]]]), np.array([L, 1.0]),
                                           np.array([False]))
        dx = fac.solve(np.array([[L]]))[0]
        np.testing.assert_allclose(dx / [L, 1.0], [0.5, 0.5], rtol=1e-14)


# -- damping that does not fight Newton ---------------------------------------------------------
@pytest.mark.parametrize("n_loops", [10, 100, 1000])
def test_the_loop_chain_takes_undamped_newton_steps(n_loops):
    model = ms.models.fourbar_chain(n_loops)
    mech = model.mechanism
    mech.solve()
    model.driver.value = model.driver.value + 0.1
    sys = mech.system()
    undamped = newton(sys.problem(), mech.state[None], tol=1e-10, damped=False)
    result = mech.solve()
    assert result.phases == [("newton", result.iterations)]
    assert result.iterations <= int(undamped.iterations[0]) + 1
    assert result.iterations <= 4        # independent of the length of the chain


def _chain_rocker_angles(phi0, n_loops):
    """The rocker angles of :func:`ms.models.fourbar_chain` in closed form, loop by loop:
    rocker ``i - 1`` carries its pin at 1 from its pivot ``(i - 1, 0)``, rocker ``i`` at 1.2
    from ``(i, 0)``, the coupler is sqrt(1.04) long, and each rocker stays near upright. With
    ``a = 1 - cos(phi')`` and ``b = sin(phi')`` of the rocker before, the closure is
    ``2.4 (a cos(phi) - b sin(phi)) = -0.4 - a^2 - b^2``."""
    phis = [phi0]
    for _ in range(n_loops):
        a, b = 1.0 - np.cos(phis[-1]), np.sin(phis[-1])
        beta = np.arctan2(b, a)
        gamma = np.arccos((-0.4 - a * a - b * b) / (2.4 * np.hypot(a, b)))
        phis.append(min((-beta + gamma, -beta - gamma),
                        key=lambda p: abs(np.angle(np.exp(1j * (p - np.pi / 2))))))
    return np.array(phis)


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3])
def test_the_chain_is_finished_by_simplified_steps_and_exact(scale, monkeypatch):
    # the 10^3-loop chain, driver moved by 0.1: two Newton steps (two Jacobians and LUs) and
    # simplified steps with the second LU leave every rocker at its closed-form angle
    from test_units import scaled_copy

    import mechsolve.linalg._factor as linear

    n_loops = 1000
    model = ms.models.fourbar_chain(n_loops)
    mech, drive = scaled_copy(model, scale)
    mech.solve()
    drive.value = drive.value + 0.1
    factorizations = []
    original = linear._SparseFactor.__init__

    def counted(self, *args, **kwargs):
        factorizations.append(1)
        original(self, *args, **kwargs)

    monkeypatch.setattr(linear._SparseFactor, "__init__", counted)
    result = mech.solve()
    assert result.success and result.iterations == len(factorizations) == 2
    exact = _chain_rocker_angles(drive.value, n_loops)
    angles = np.array([mech.body(f"A{i}").angle for i in range(n_loops + 1)])
    # (a rocker 10^3 links down the chain sits where its position is known to 10^3 eps links)
    np.testing.assert_allclose(angles, exact, rtol=0, atol=1e-12)
    # the pins meet: every coupler's ends on its rockers' pins to round-off of the size
    for i in (1, n_loops // 2, n_loops):
        for joint in mech.joints[3 * i - 1: 3 * i + 1]:
            b1, b2 = joint.bodies
            gap = b1.to_global(joint.point1) - b2.to_global(joint.point2)
            assert np.max(np.abs(gap)) <= 1e-13 * n_loops * scale
    # the core returns the Jacobian at the pose it returns (sensitivities are taken from it)
    problem = mech.system().problem()
    drive.value = drive.value - 0.05
    out = newton(problem, mech.state[None])
    assert out.success[0] and out.iterations[0] == 2
    # (to round-off: the same numbers evaluated again, in other memory; issue 26)
    J = problem.evaluate(out.x, np.arange(1))[1][0]
    assert_same_to_round_off(out.jacobian[0], J, np.max(np.abs(J)))


def test_readme_iterations_are_counted_over_every_phase():
    mech, _ = readme_fourbar()
    result = mech.solve()
    assert result.iterations == sum(n for _, n in result.phases) > 0
    # the assembled pose is exact: both closures of the four-bar meet the closed form
    A, B, _, _ = fourbar_exact(0.0, upper=coupler_pin(mech)[1] > 0)
    np.testing.assert_allclose(coupler_pin(mech), B, atol=1e-14)
    # solving again from the exact pose takes no step at all
    again = mech.solve()
    assert again.iterations == 0 and again.phases == [("newton", 0)]


# -- joints mean what they say ------------------------------------------------------------------
def test_a_weld_from_any_orientation_is_never_returned_turned_over():
    rng = np.random.default_rng(7)
    for _ in range(60):
        mech = ms.Mechanism(dim=3)
        body = mech.add_body("b", position=rng.normal(size=3),
                             orientation=ms.Orientation.from_rotvec(2.0 * rng.normal(size=3)))
        mech.add(joints.Fixed(mech.ground, body, name="weld"))
        mech.solve()
        np.testing.assert_allclose(body.rotation, np.eye(3), atol=1e-12)
        np.testing.assert_allclose(body.position, 0.0, atol=1e-12)


def test_a_door_hinge_started_upside_down_is_turned_back():
    mech = ms.Mechanism(dim=3)
    door = mech.add_body("door", position=(0, 0, 1),
                         orientation=ms.Orientation.from_angle_axis(np.pi, (1, 0, 0)))
    mech.add(joints.Revolute(mech.ground, door, (0, 0, 1), (0, 0, 0), axis=(0, 0, 1),
                             name="hinge"))
    result = mech.solve()
    assert ("unmirror", 0) in result.phases
    np.testing.assert_allclose(door.rotation[:, 2], [0, 0, 1], atol=1e-12)   # axis up


def test_the_spherical_fourbar_branch_pick_keeps_its_hinges_upright():
    model = ms.models.spatial.spherical_fourbar()
    mech = model.mechanism
    centres = [-b.position for b in mech.bodies]   # the axes' common point, body coordinates
    model.driver.value = 0.5
    mech.solve()
    a0 = mech.joint("output").angle()
    mech.solve(branch=lambda m: abs(m.joint("output").angle() - a0) > 0.1)
    assert abs(mech.joint("output").angle() - a0) > 0.1
    # every hinge axis upright (z axes of each hinge's two frames the same way) and through
    # the sphere's centre: a true assembly, checked from the poses
    for j in mech.joints:
        if type(j).__name__ == "SpatialRevolute":
            b1, b2 = j.bodies
            z1 = b1.rotation @ ms.Orientation(j._p[3:7]).as_matrix()[:, 2]
            z2 = b2.rotation @ ms.Orientation(j._p[10:14]).as_matrix()[:, 2]
            assert z1 @ z2 == pytest.approx(1.0, abs=1e-12), j.describe()
    for b, c in zip(mech.bodies, centres):
        np.testing.assert_allclose(b.to_global(c), 0.0, atol=1e-12)


def test_an_assembly_found_only_mirrored_names_the_joint():
    # a hinge whose two frames can only meet with their axes opposite: frame 2's axis is
    # turned over on the body, and a second hinge on the same body holds it upright
    mech = ms.Mechanism(dim=3)
    door = mech.add_body("door", position=(0, 0, 1))
    mech.add(joints.Revolute(mech.ground, door, (0, 0, 1), (0, 0, 0), axis=(0, 0, 1),
                             name="upper"))
    flipped = ms.Frame((0, 0, -1), ms.Orientation.from_angle_axis(np.pi, (1, 0, 0)))
    mech.add(joints.Revolute(mech.ground, door, ms.Frame((0, 0, 0)), flipped, name="lower"))
    with pytest.raises(ms.SolveError, match=r"mirror image") as info:
        mech.solve()
    assert "'lower'" in str(info.value) or "'upper'" in str(info.value)
    assert "two z axes point opposite ways" in str(info.value)


# -- diagnosis that names the culprit -----------------------------------------------------------
def test_conflicting_drivers_are_named_as_over_constraining():
    mech, _ = readme_fourbar()
    mech.solve()
    mech.add(joints.Driver(mech.body("rocker"), "angle", 0.2, name="rocker"))
    for start in (mech.state, mech.state + 0.3):    # from any start
        mech.state = start
        with pytest.raises(ms.SolveError, match="over-constrain the mechanism") as info:
            mech.solve()
        text = str(info.value)
        assert "Driver 'motor' on crank" in text and "Driver 'rocker' on rocker" in text
        assert "1 degree of freedom and 2 drivers" in text
        assert "limit position" not in text


def test_agreeing_drivers_are_solved_from_the_rough_sketch():
    mech, _ = readme_fourbar()
    mech.solve()
    rocker = mech.body("rocker")
    angle = rocker.angle
    mech, _ = readme_fourbar()           # the rough sketch again
    second = mech.add(joints.Driver(mech.body("rocker"), "angle", angle, name="rocker"))
    result = mech.solve()
    assert result.rank_status == "redundant"
    assert [r.joint for r in result.redundant] == [second]
    assert mech.body("rocker").angle == pytest.approx(angle, abs=1e-14)


def test_a_driver_value_whole_turns_away_is_reached():
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    rocker = mech.body("rocker")
    drive = mech.add(joints.Driver(rocker, "angle", rocker.angle, name="rocker drive"))
    a = rocker.angle
    for turns in (1, -2, 3):
        drive.value = a - 0.1 + 2 * np.pi * turns
        mech.solve()
        assert rocker.angle == pytest.approx(a - 0.1 + 2 * np.pi * turns, abs=1e-13)
        # a true pose: the rocker's pin 3.5 from its pivot and 3 from the crank pin
        pin = rocker.to_global((-1.75, 0.0))
        crank_pin = mech.body("crank").to_global((0.5, 0.0))
        assert np.hypot(pin[0] - 4.0, pin[1]) == pytest.approx(3.5, rel=1e-14)
        assert np.linalg.norm(pin - crank_pin) == pytest.approx(3.0, rel=1e-14)
        assert np.linalg.norm(crank_pin) == pytest.approx(1.0, rel=1e-14)


def test_a_slider_crank_built_at_its_dead_centre_is_driven_off_it():
    model = ms.models.slider_crank(offset=0.0)
    model.driver.value = 3.5
    model.mechanism.solve()
    slider = model.mechanism.body("slider")
    x_exact = np.cos(3.5) + np.sqrt(9 - np.sin(3.5) ** 2)
    assert slider.position[0] == pytest.approx(x_exact, rel=1e-14)


def test_a_rod_whose_points_coincide_at_the_start_is_assembled():
    mech = ms.Mechanism()
    a = mech.add_body("a")
    mech.add(joints.Revolute(mech.ground, a, (0, 0), (0, 0)))
    b = mech.add_body("b")
    mech.add(joints.Distance(a, b, (0, 0), (0, 0), 1.0, name="rod"))
    mech.add(joints.Driver(a, "angle", 0.0))
    mech.add(joints.Driver(b, "angle", 0.0))
    result = mech.solve()
    assert result.rank_status == "underdetermined"
    assert np.linalg.norm(b.position) == pytest.approx(1.0, rel=1e-14)


def test_inconsistent_joints_name_the_joints_without_which_they_hold():
    model = ms.models.parallelogram(3)
    mech = model.mechanism
    mech.joint("A3")._p[0] += 1e-3        # the third crank 1e-3 too long
    with pytest.raises(ms.SolveError, match="consistent without any one of") as info:
        mech.solve()
    text = str(info.value)
    assert "Revolute 'A3' between crank3 and coupler" in text.split("one of:")[1]
    assert "AngleDriver" not in text.split("one of:")[1]


@pytest.mark.parametrize("scale", [1e9, 1.0])
def test_round_off_is_claimed_only_at_round_off(scale):
    # an unreachable rocker angle in a huge model is a limit, not round-off
    model = ms.models.fourbar(ground=4 * scale, crank=scale, coupler=3 * scale,
                              rocker=3.5 * scale)
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    rocker = mech.body("rocker")
    mech.add(joints.Driver(rocker, "angle", rocker.angle + 0.7))
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    assert "round-off" not in str(info.value)
    assert "limit position" in str(info.value)


def test_a_far_off_unrelated_angle_does_not_make_everything_round_off():
    model = ms.models.fourbar()
    mech = model.mechanism
    # the largest angle a body may take (MAX_ANGLE; 1e300 is refused since issue 18)
    other = mech.add_body("other", position=(10, 10), angle=1e6)
    mech.add(joints.Driver(other, "x", 10.0))
    mech.add(joints.Driver(other, "y", 10.0))
    with pytest.warns(ms.DegreesWarning, match="value 1e\\+06 looks like degrees"):
        mech.add(joints.Driver(other, "angle", 1e6))   # a whole number of radians: warned
    model.driver.value = 0.5
    mech.solve()
    _, B, _, _ = fourbar_exact(0.5)
    np.testing.assert_allclose(coupler_pin(mech), B, atol=1e-14)


# -- singular positions where they are ----------------------------------------------------------
@pytest.mark.parametrize("n", [7, 13, 37, 100, 181])
@pytest.mark.parametrize("batch", [True, False])
def test_parallelogram_change_points_are_located_on_any_grid(n, batch):
    model = ms.models.parallelogram(2)
    values = np.linspace(np.pi / 2, np.pi / 2 + 2 * np.pi, n)
    motion = model.mechanism.sweep(model.driver, values, batch=batch)
    np.testing.assert_allclose(motion.singular, [np.pi, 2 * np.pi], atol=1e-9)


@pytest.mark.parametrize("n", [50, 101, 333])
def test_a_rocker_toggle_is_located_where_it_is(n):
    from test_sweeps import _toggle_fourbar

    mech, rocker, drive, limit = _toggle_fourbar()
    mech.solve()
    a0 = rocker.angle
    with pytest.raises(ms.SweepError) as info:
        mech.sweep(drive, np.linspace(a0, limit - 0.3 if limit < a0 else limit + 0.3, n))
    assert info.value.motion.singular[-1] == pytest.approx(limit, abs=1e-9)


@pytest.mark.parametrize("branch", ["parallelogram", "antiparallelogram"])
def test_a_sweep_starting_on_a_change_point_leaves_it_on_the_sketched_branch(branch):
    model = ms.models.parallelogram(2)
    mech = model.mechanism
    c1, c2, coupler = (mech.body(n) for n in ("crank1", "crank2", "coupler"))
    d = 0.05
    c1.angle = np.pi - d
    c1.position = 0.5 * np.array([np.cos(np.pi - d), np.sin(np.pi - d)])
    a2 = np.pi - d if branch == "parallelogram" else np.pi + d
    c2.angle = a2
    c2.position = (2.0 + 0.5 * np.cos(a2), 0.5 * np.sin(a2))
    coupler.position = (1.0 + np.cos(np.pi - d), np.sin(np.pi - d) if branch ==
                        "parallelogram" else 0.0)
    values = np.linspace(np.pi, np.pi + 1.0, 11)
    motion = mech.sweep(model.driver, values)
    crank2 = motion.pose(c2)[:, 2]
    # at the change point itself (a double root) the pose is as exact as the residual
    # tolerance allows, its square root; every pose after it is exact
    if branch == "parallelogram":     # the cranks turn together, the coupler stays level
        np.testing.assert_allclose(crank2[1:], values[1:], atol=1e-12)
        np.testing.assert_allclose(crank2[0], values[0], atol=1e-4)
        level = np.remainder(motion.pose(coupler)[:, 2] + np.pi / 2, np.pi) - np.pi / 2
        np.testing.assert_allclose(level[1:], 0.0, atol=1e-12)
    else:                             # crossed: the second crank turns back
        assert np.all(np.diff(crank2) < 0)
        pins = motion.point(coupler, (1.0, 0.0)) - motion.point(c2, (0.5, 0.0))
        np.testing.assert_allclose(np.linalg.norm(pins, axis=1), 0.0, atol=1e-12)


def test_inverse_kinematics_is_exact_to_round_off():
    arm = ms.robots.ur5()
    rng = np.random.default_rng(3)
    q = rng.uniform(-np.pi, np.pi, size=(50, 6))
    targets = arm.forward_matrix(q)
    out = arm.ik(targets, q + rng.uniform(-0.2, 0.2, size=q.shape))
    assert out.success.all()
    # the tool frames of the returned joint values, by forward kinematics (reach about 1 m)
    assert np.max(np.abs(arm.forward_matrix(out.q) - targets)) <= 1e-13


def test_an_equation_without_first_order_information_does_not_blow_up_the_step():
    # y^2 = 1 from y = 0: its Jacobian row is zero there; Newton moves x and stops honestly
    class Flat(Circles):
        def evaluate(self, X, idx):
            x, y = X[:, 0], X[:, 1]
            F = np.stack([x - 1.0, y * y - 1.0], axis=1)
            J = np.stack([np.stack([np.ones_like(x), 0 * x], 1),
                          np.stack([0 * x, 2 * y], 1)], axis=1)
            return F, J

    for starts in (np.zeros((1, 2)), np.zeros((3, 2))):
        out = newton(Flat(), starts, tol=1e-12)
        assert np.all(np.isfinite(out.x))
        assert not out.success.any() and np.all(out.status != 4)     # not NOT_FINITE
        np.testing.assert_allclose(out.x[:, 0], 1.0, rtol=1e-15)


def test_every_end_effector_kind_measures_its_equations_in_their_units():
    # positions (x, y, z, distances, rcm offsets, centre of mass) in the model's size, angles
    # (rotation vectors, angle rows, look-at directions, the SEW angle) in radians
    from test_end_effectors import build_all

    kinds = build_all(np.random.default_rng(0))
    mech = next(j.bodies[0].mechanism for j in kinds.values() if j.bodies)
    owners = ("revoluteLink", "prismaticLink", "serialChain")
    for name in list(owners) + [k for k in kinds if k not in owners]:
        mech.add(kinds[name])
    system = mech.system()
    lengths = {"x", "y", "z", "distance", "rcm x", "rcm y"}
    for name, joint in kinds.items():
        i = system.joints.index(joint)
        got = system.eq_lengths[system.row_starts[i]:system.row_starts[i + 1]]
        labels = [joint.equation_label(r) for r in range(joint.n_equations)]
        if name in ("coordinatedJoint", "oneDofGripper"):   # the driven coordinates' units
            continue
        assert got.tolist() == [lab in lengths for lab in labels], (name, labels, got)


@pytest.mark.parametrize("arm_name", ["ur5", "puma"])
def test_the_ik_problem_jacobian_matches_finite_differences(arm_name):
    # the rows arm.ik solves (tool position in goal axes, rotation vector of the orientation
    # error) and their Jacobian, on the batch path and the one-target path
    from mechsolve.robots._ik import _IKProblem

    arm = ms.robots.ur5() if arm_name == "ur5" else ms.robots.dh_arm(
        [(0, 0, np.pi / 2), (0, .4318, 0), (.15005, .0203, -np.pi / 2), (.4318, 0, np.pi / 2),
         (0, 0, -np.pi / 2), (0, 0, 0)])
    rng = np.random.default_rng(5)
    q = rng.uniform(-np.pi, np.pi, size=(4, 6))
    goal = arm.forward(rng.uniform(-np.pi, np.pi, size=(4, 6)))
    base = arm._fast.start(np.concatenate([goal.translation, goal.quaternion], axis=1))
    problem = _IKProblem(arm._fast, base, arm._col_scale, arm._length)
    idx = np.arange(4)
    F, J = problem.evaluate(q, idx)
    h = 1e-6
    for k in range(4):
        F1, J1 = problem.evaluate(q[k:k + 1], idx[k:k + 1])
        np.testing.assert_allclose(F1[0], F[k], atol=1e-14)
        np.testing.assert_allclose(J1[0], J[k], atol=1e-13)
        for i in range(6):
            dq = np.zeros(6)
            dq[i] = h
            fp = problem.residual((q[k] + dq)[None], idx[k:k + 1])[0]
            fm = problem.residual((q[k] - dq)[None], idx[k:k + 1])[0]
            np.testing.assert_allclose(J[k][:, i], (fp - fm) / (2 * h), atol=1e-7)


def test_levenberg_marquardt_one_item_path_takes_the_batch_steps():
    # one item (no hard rows) runs on scalar bookkeeping: from starts near the solution it takes
    # the same steps as the batch path (the item _FEW + 1 times in a batch, which they all
    # leave together) and lands on the same pose;
    # from far starts both stop at the same least-squares points, where round-off in the
    # products may end the stall a few steps apart
    from mechsolve.newton import _FEW, CONVERGED, levenberg_marquardt
    from mechsolve.robots._ik import _IKProblem

    arm = ms.robots.ur5()
    rng = np.random.default_rng(11)
    copies = _FEW + 1
    q = rng.uniform(-np.pi, np.pi, size=(40, 6))
    frames = arm.forward(q)
    targets = np.concatenate([frames.translation, frames.quaternion], axis=1)
    for i in range(40):
        base = arm._fast.start(targets[i:i + 1])
        one = _IKProblem(arm._fast, base, arm._col_scale, arm._length)
        many = _IKProblem(arm._fast, np.repeat(base, copies, axis=0), arm._col_scale,
                          arm._length)
        x0 = q[i] + rng.uniform(-0.3, 0.3, 6) if i < 20 else rng.uniform(-np.pi, np.pi, 6)
        a = levenberg_marquardt(one, x0[None], tol=1e-10, max_iterations=50)
        b = levenberg_marquardt(many, np.repeat(x0[None], copies, axis=0), tol=1e-10,
                                max_iterations=50)
        assert a.success[0] == b.success[0] and np.all(b.success == b.success[0])
        if a.status[0] == CONVERGED:
            assert a.iterations[0] == b.iterations[0]
            np.testing.assert_allclose(a.x[0], b.x[0], rtol=0, atol=1e-12)
        else:
            assert a.residual[0] == pytest.approx(b.residual[0], rel=1e-6)
        assert len(a.history) == a.iterations[0] + 1 or a.status[0] != CONVERGED


def test_levenberg_marquardt_hands_the_last_few_items_of_a_batch_to_the_one_item_path(
        monkeypatch):
    # a batch of 12 targets: the near starts finish first, and the stragglers (far starts) go
    # on one at a time from their state and damping; each lands where it lands alone
    import mechsolve.newton as core
    from mechsolve.newton import _FEW, CONVERGED, levenberg_marquardt
    from mechsolve.robots._ik import _IKProblem

    handed = []
    one_item = core._lm_one

    def spy(*args, **kwargs):
        handed.append(kwargs.get("item", 0))
        return one_item(*args, **kwargs)

    monkeypatch.setattr(core, "_lm_one", spy)

    arm = ms.robots.ur5()
    rng = np.random.default_rng(12)
    q = rng.uniform(-np.pi, np.pi, size=(12, 6))
    frames = arm.forward(q)
    targets = np.concatenate([frames.translation, frames.quaternion], axis=1)
    x0 = q + rng.uniform(-0.05, 0.05, q.shape)
    x0[9:] = rng.uniform(-np.pi, np.pi, (3, 6))
    assert len(x0) > _FEW
    batch = levenberg_marquardt(
        _IKProblem(arm._fast, arm._fast.start(targets), arm._col_scale, arm._length), x0,
        tol=1e-10, max_iterations=60)
    assert 0 < len(handed) <= _FEW and any(k >= 9 for k in handed)
    for i in range(12):
        one = levenberg_marquardt(
            _IKProblem(arm._fast, arm._fast.start(targets[i:i + 1]), arm._col_scale,
                       arm._length), x0[i:i + 1], tol=1e-10, max_iterations=60)
        assert one.status[0] == batch.status[i]
        if one.status[0] == CONVERGED:
            assert one.iterations[0] == batch.iterations[i]
            np.testing.assert_allclose(batch.x[i], one.x[0], rtol=0, atol=1e-12)
        else:
            assert batch.residual[i] == pytest.approx(one.residual[0], rel=1e-6)


def test_batched_least_squares_is_each_items_minimum_norm_solution():
    # items of different rank, solved together by least squares (their truncated SVDs in one
    # call): each item's step is the pseudo-inverse solution of its row-scaled matrix, for one
    # right-hand side and for many, and for a subset of the items
    from mechsolve.linalg import RANK_RTOL
    from mechsolve.linalg._factor import _DenseFactor

    rng = np.random.default_rng(41)
    J = np.empty((5, 4, 4))
    for k, rank in enumerate([4, 3, 2, 1, 3]):
        J[k] = rng.normal(size=(4, rank)) @ rng.normal(size=(rank, 4))
    rhs = rng.normal(size=(5, 4))
    R = rng.normal(size=(5, 4, 3))
    fac = _DenseFactor(J, np.ones(4), np.ones(5, dtype=bool))
    r = np.linalg.norm(J, axis=2)
    Js = J / r[..., None]
    pinv = np.linalg.pinv(Js, rcond=RANK_RTOL)
    np.testing.assert_allclose(fac.solve(rhs), np.einsum("bij,bj->bi", pinv, rhs / r),
                               rtol=1e-10, atol=1e-12)
    sub = np.array([1, 3])
    np.testing.assert_allclose(fac.solve(rhs[sub], sub),
                               np.einsum("bij,bj->bi", pinv[sub], rhs[sub] / r[sub]),
                               rtol=1e-10, atol=1e-12)
    size = np.max(np.abs(R / r[..., None]), axis=1, keepdims=True)
    np.testing.assert_allclose(fac.solve_columns(R), pinv @ (R / r[..., None]),
                               rtol=1e-10, atol=1e-12 * float(np.max(size)))
