"""One result idiom: every public result is a ``mechsolve.Result`` with the shared fields
``success``, ``status`` (an int code of ``ms.Status``), ``message``, ``iterations``,
``residual`` (every equation in its unit) and ``residual_abs`` (in the equations' units); the
status code table; the names that changed (``status`` as the rank verdict, ``scaled_residual``,
``BatchResult.residuals``, ``analysis.time_sweep``) and the one ``max_iterations`` default."""

from __future__ import annotations

import inspect
import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import joints
from mechsolve._result import DEFAULT_MAX_ITERATIONS, STATUS_MESSAGES, status_message
from mechsolve.newton import newton as core_newton

Q_UR5 = np.array([0.3, -1.2, 1.4, -0.6, 1.1, 0.4])


def _fourbar(scale=1.0, offset=(0.0, 0.0)):
    """A Grashof crank-rocker (ground 4, crank 1, coupler 3, rocker 3.5) in ``scale`` units,
    placed at ``offset``."""
    ox, oy = offset
    mech = ms.Mechanism()
    crank = mech.add_body("crank", position=(ox + 0.5 * scale, oy), angle=0.0)
    coupler = mech.add_body("coupler", position=(ox + 2.0 * scale, oy + 1.0 * scale), angle=0.3)
    rocker = mech.add_body("rocker", position=(ox + 4.0 * scale, oy + 1.5 * scale), angle=1.5)
    s = scale
    mech.add(joints.Revolute(mech.ground, crank, (ox, oy), (-0.5 * s, 0.0), name="O2"))
    mech.add(joints.Revolute(crank, coupler, (0.5 * s, 0.0), (-1.5 * s, 0.0), name="A"))
    mech.add(joints.Revolute(coupler, rocker, (1.5 * s, 0.0), (-1.75 * s, 0.0), name="B"))
    mech.add(joints.Revolute(rocker, mech.ground, (1.75 * s, 0.0), (ox + 4.0 * s, oy),
                             name="O4"))
    motor = mech.add(joints.Driver(crank, "angle", 0.3, name="motor"))
    return mech, motor


def _from_pose(mech, state, params=None):
    """The largest residual at ``state``, scaled and absolute, from the equations themselves."""
    sys = mech.system()
    phi = np.abs(sys.phi(np.asarray(state, dtype=float), params=params))
    return np.max(phi / sys.eq_scale, axis=-1), np.max(phi, axis=-1)


# -- every public result through its public call ------------------------------------------------
def _solve():
    mech, _ = _fourbar()
    res = mech.solve()
    return res, _from_pose(mech, res.state)


def _newton():
    mech, _ = _fourbar()
    out = core_newton(mech.system().problem(), mech.state[None])
    return out, _from_pose(mech, out.x)


def _ik():
    arm = ms.robots.ur5()
    res = arm.ik(arm.forward(Q_UR5), Q_UR5 + 0.1)
    tool = arm.forward(res.q)
    target = arm.forward(Q_UR5)
    pos = float(np.linalg.norm(tool.translation - target.translation))
    return res, (max(pos / arm.length_scale, res.orientation_error),
                 max(pos, res.orientation_error))


def _ik_many():
    arm = ms.robots.ur5()
    Q = Q_UR5 + np.array([[0.0], [0.05], [-0.05]])
    res = arm.ik(np.stack([arm.forward(q).as_matrix() for q in Q]), Q + 0.1)
    return res, (res.residual, np.maximum(res.position_error, res.orientation_error))


def _batch():
    mech, motor = _fourbar()
    mech.solve()
    res = mech.solve_batch(values={motor: [0.1, 0.2, 0.3]})
    sys = mech.system()
    from mechsolve.analysis.continuation import _driver_params
    return res, _from_pose(mech, res.states, _driver_params(sys, motor, [0.1, 0.2, 0.3]))


def _design_sweep():
    mech, motor = _fourbar()
    mech.solve()
    values = np.linspace(0.3, 1.3, 6)
    res = ms.design.sweep(mech, {"O4.point2": [(4.0, 0.0), (4.1, 0.05)]}, motor, values)
    scaled, absolute = [], []
    for d, pivot in enumerate([(4.0, 0.0), (4.1, 0.05)]):
        one, drive = _fourbar()
        one.set_parameters({"O4.point2": pivot})
        rows = [_from_pose(one, _posed(one, drive, v, res.states[d, k]))
                for k, v in enumerate(values)]
        scaled.append([r[0] for r in rows])
        absolute.append([r[1] for r in rows])
    return res, (np.array(scaled), np.array(absolute))


def _posed(mech, drive, value, state):
    drive.value = value
    return state


def _synthesis():
    truth = ms.models.fourbar()
    inputs = np.radians(np.arange(0.0, 181.0, 30.0))
    outputs = truth.mechanism.sweep(truth.driver, inputs).pose(
        truth.mechanism.body("rocker"))[:, 2] + 0.3
    start = ms.models.fourbar()
    start.mechanism.set_parameters({"O4.point2": (4.1, 0.0), "B.point2": (-1.7, 0.05)})
    start.mechanism.solve()
    res = ms.design.synthesize(start.mechanism, ["O4.point2", "B.point2", "A.point1"],
                               driver="motor", function=(inputs, outputs), body="rocker",
                               starts=2)
    # the miss, from the poses of the mechanism returned at the inputs
    mech = res.mechanism
    got = mech.sweep(mech.joint("motor"), inputs).pose(mech.body("rocker"))[:, 2]
    miss = float(np.max(np.abs(got - res.offset - outputs)))
    return res, (miss, miss)


def _tolerance():
    mech, _ = _fourbar()
    mech.solve()
    res = ms.design.tolerance(mech, {"O4.point2": 1e-3}, outputs=[(mech.body("coupler"),
                                                                     (0.0, 1.0))], samples=50)
    return res, _from_pose(mech, mech.state)


def _dof():
    mech, _ = _fourbar()
    mech.solve()
    return mech.dof(), _from_pose(mech, mech.state)


BUILDERS = {
    "SolveResult": _solve, "NewtonResult": _newton, "IKResult": _ik, "IKResult many": _ik_many,
    "BatchResult": _batch, "DesignSweep": _design_sweep, "SynthesisResult": _synthesis,
    "ToleranceResult": _tolerance, "DofReport": _dof,
}


@pytest.mark.parametrize("kind", list(BUILDERS))
def test_every_public_result_has_the_shared_fields(kind):
    res, (scaled, absolute) = BUILDERS[kind]()
    assert isinstance(res, ms.Result) and isinstance(res, dict)
    for field in ("success", "status", "message", "iterations", "residual", "residual_abs"):
        assert np.array_equal(getattr(res, field), res[field]), field   # attribute and item
    assert isinstance(res.message, str) and res.message
    success, status = np.asarray(res.success), np.asarray(res.status)
    assert success.dtype == bool and status.dtype.kind == "i"
    assert np.asarray(res.iterations).dtype.kind == "i" and np.all(np.asarray(res.iterations)
                                                                    >= 0)
    if success.ndim == 0:
        assert type(res.success) is bool and isinstance(res.status, int)
    assert np.array_equal(success, status == ms.Status.CONVERGED)
    assert set(np.unique(status).tolist()) <= set(STATUS_MESSAGES)
    assert np.all(success)           # every builder asks for something reachable
    # the residuals, checked from the poses themselves (the equations, not the solver's word)
    np.testing.assert_allclose(res.residual, scaled, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res.residual_abs, absolute, rtol=0, atol=1e-12)
    assert np.all(np.asarray(res.residual) <= 1e-9)


def test_a_failed_solve_reports_its_code_and_both_residuals_in_any_unit():
    # a driver the linkage cannot reach: the sweep of the assembly stops at a limit position;
    # the miss is the driver's, measured at the pose returned
    found = {}
    for scale, offset in [(1.0, (0.0, 0.0)), (1e-6, (0.0, 0.0)), (1e3, (5e6, -3e6))]:
        mech, motor = _fourbar(scale, offset)
        mech.remove(motor)
        mech.add(joints.Driver(mech.body("coupler"), "y", offset[1] + 50.0 * scale))
        with pytest.raises(ms.SolveError) as info:
            mech.solve()
        res = info.value.result
        assert res.success is False and res.status == ms.Status.LIMIT_POSITION
        assert res.rank_status == "unknown" and "limit position" in res.message
        scaled, absolute = _from_pose(mech, res.state)
        assert res.residual == scaled and res.residual_abs == absolute
        assert res.residual_abs == pytest.approx(res.residual * mech.length_scale, rel=1e-12)
        found[scale] = res
    # the coupler's y driver misses by 50 - (its reach: crank 1 + half the coupler's 3 along y
    # at most...) the same number of model sizes in every unit
    base = found[1.0].residual
    for scale in (1e-6, 1e3):
        assert found[scale].residual == pytest.approx(base, rel=1e-9)
        assert found[scale].residual_abs == pytest.approx(found[1.0].residual_abs * scale,
                                                          rel=1e-9)


def test_status_codes_of_failures_name_what_stopped():
    mech, motor = _fourbar()
    mech.solve()
    # Newton alone out of iterations: the core's code, its message
    out = core_newton(mech.system().problem(), (mech.state + 0.5)[None], max_iterations=1)
    assert out.status.tolist() == [ms.Status.MAX_ITERATIONS] and not out.success[0]
    assert out.message == "0 of 1 converged; 1 the iteration limit was reached"
    # a batch item whose pivot is out of reach
    res = mech.solve_batch(params={"O4.point2": [[4.0, 0.0], [40.0, 0.0]]},
                           raise_on_failure=False)
    assert res.status.tolist() == [ms.Status.CONVERGED, ms.Status.NOT_SOLVED]
    assert res.success.tolist() == [True, False]
    assert res.message == "1 of 2 converged; 1 no stage of the solve met the equations"
    # an arm's target out of its workspace
    arm = ms.robots.ur5()
    far = arm.ik(ms.Frame((0.0, 0.0, 1.1)), np.zeros(6), raise_on_failure=False)
    assert far.success is False and far.status == ms.Status.NOT_SOLVED
    assert far.residual_abs == max(far.position_error, far.orientation_error) > 0.01
    # reachable without the limits, but not within them: the closest pose within them misses
    limited = ms.robots.ur5(limits=[None, None, (0.0, 0.1), None, None, None])
    q = np.array([0.3, -1.2, -1.4, -0.6, 1.1, 0.4])
    out = limited.ik(limited.forward(q), q, raise_on_failure=False)
    assert out.success is False and out.status == ms.Status.NOT_SOLVED
    assert 0.0 <= out.q[2] <= 0.1
    # a pose the drivers fix beyond a joint limit: the solve's own code
    held, motor = _fourbar()
    held.solve()
    o4 = held.joint("O4")
    angle = float(o4.limit_measure())     # O4's relative angle at the pose the motor fixes
    o4.limits = (angle - 0.2, angle - 0.1)
    with pytest.raises(ms.SolveError, match="within its joint limits") as info:
        held.solve()
    res = info.value.result
    assert res.success is False and res.status == ms.Status.AT_LIMIT
    assert res.residual == _from_pose(held, res.state)[0]


def test_design_sweep_status_per_pose_follows_where_each_design_stopped():
    mech, motor = _fourbar()
    mech.solve()
    values = np.radians(np.arange(5.0, 360.0, 10.0))
    # a long crank (2.6: not Grashof) meets a limit position at 159.6 degrees; the nominal
    # design (crank 1) turns fully
    res = ms.design.sweep(mech, {"A.point1": [(0.5, 0.0), (2.1, 0.0)]}, motor, values)
    assert res.reason.tolist() == ["", "limit position"]
    k = int(res.failed_at[1])
    limit = np.arccos((2.6**2 + 4.0**2 - 6.5**2) / (2 * 2.6 * 4.0))
    assert k == np.searchsorted(values, limit) == 16
    assert (res.status[0] == ms.Status.CONVERGED).all()
    assert (res.status[1, :k] == ms.Status.CONVERGED).all()
    assert (res.status[1, k:] == ms.Status.LIMIT_POSITION).all()
    assert np.array_equal(res.success, res.status == 0)
    assert res.message == "1 of 2 designs complete; 1 the motion stopped at a limit position"
    assert np.isnan(res.residual[1, k:]).all() and np.isfinite(res.residual[1, :k]).all()
    # outputs= keeps no states: the residuals cannot be worked out, and say so
    pts = ms.design.sweep(mech, {"O4.point2": [(4.0, 0.0)]}, motor, values[:3],
                          outputs=[(mech.body("coupler"), (0.0, 1.0))])
    with pytest.raises(ValueError, match="outputs= keeps only the output points"):
        pts.residual  # noqa: B018


# -- the status code table ----------------------------------------------------------------------
def test_the_status_table_is_one_table():
    assert [int(c) for c in ms.Status] == list(range(9)) == sorted(STATUS_MESSAGES)
    for code in ms.Status:
        assert code.message == STATUS_MESSAGES[code] == status_message(int(code))
        assert code.message and code.message[0].islower()
    # the Newton core's codes are the table's
    from mechsolve import newton
    assert (newton.CONVERGED, newton.MAX_ITERATIONS, newton.NO_PROGRESS, newton.STATIONARY,
            newton.NOT_FINITE) == (0, 1, 2, 3, 4)
    with pytest.raises(ValueError, match=r"status must be one of the codes \[0, 1, .*8\], got 9"):
        status_message(9)


@given(st.lists(st.integers(0, 8), min_size=1, max_size=40))
def test_the_message_of_many_items_counts_every_item_once(codes):
    text = status_message(np.array(codes))
    counts = [int(part.split(" ", 1)[0]) for part in text.split("; ")]
    assert counts[0] == codes.count(0) and text.startswith(f"{codes.count(0)} of {len(codes)}")
    assert sum(counts[1:]) == len(codes) - codes.count(0)
    for code in set(codes) - {0}:
        assert f"{codes.count(code)} {STATUS_MESSAGES[code]}" in text


@given(st.dictionaries(st.sampled_from(["success", "status", "iterations", "x", "tol"]),
                       st.integers(-5, 5)))
def test_a_result_is_a_dict_with_attribute_access(fields):
    r = ms.Result(**fields)
    assert dict(r) == fields
    for k, v in fields.items():
        assert getattr(r, k) == v
    r.extra = 1.5
    assert r["extra"] == 1.5
    del r.extra
    assert "extra" not in r
    with pytest.raises(AttributeError, match="Result has no field 'nothing'"):
        r.nothing  # noqa: B018
    assert pickle.loads(pickle.dumps(r)) == r


# -- what changed, and its deprecation path -----------------------------------------------------
def test_status_compared_with_a_rank_verdict_warns_and_answers_as_before():
    mech, _ = _fourbar()
    res = mech.solve()
    assert res.status == 0 and res.rank_status == "regular"
    with pytest.warns(DeprecationWarning, match=r"status is the int code of mechsolve\.Status "
                      r"\(0: converged\) and the rank verdict .* is SolveResult\.rank_status; "
                      r"the comparison will raise TypeError in mechsolve 0\.3") as caught:
        assert res.status == "regular"
    assert caught[0].filename == __file__     # at the line that compared
    with pytest.warns(DeprecationWarning):
        assert res.status != "redundant"
    with pytest.warns(DeprecationWarning):
        assert "regular" in res.status
    # a failed solve was "failed"
    mech.add(joints.Driver(mech.body("coupler"), "y", 50.0))     # and the motor: too many
    with pytest.raises(ms.SolveError) as info:
        mech.solve()
    with pytest.warns(DeprecationWarning):
        assert info.value.result.status == "failed"
    # comparisons with ints and dict access stay plain
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert res.status == ms.Status.CONVERGED and res.get("status") == 0
        assert repr(res.status) == "0" and hash(res.status) == hash(0)
        assert pickle.loads(pickle.dumps(res.status)) == 0


def test_renamed_fields_warn_and_read_the_new_ones():
    mech, motor = _fourbar()
    res = mech.solve()
    with pytest.warns(DeprecationWarning, match=r"SolveResult\.scaled_residual is deprecated: "
                      r"use SolveResult\.residual \(scaled_residual will be removed in "
                      r"mechsolve 0\.3\)") as caught:
        assert res.scaled_residual == res.residual
    assert caught[0].filename == __file__
    out = mech.solve_batch(values={motor: [0.1, 0.2]})
    with pytest.warns(DeprecationWarning, match=r"BatchResult\.residuals is deprecated"):
        np.testing.assert_array_equal(out["residuals"], out.residual)


def test_time_sweep_is_sweep_time_with_a_warning():
    mech, motor = _fourbar()
    mech.solve()
    motor.value = ms.profiles.ConstantSpeed(speed=1.0)
    times = np.linspace(0.0, 0.5, 6)
    state = mech.state
    new = ms.analysis.sweep_time(mech, times)
    mech.state = state
    with pytest.warns(DeprecationWarning, match=r"ms\.analysis\.time_sweep\(mech, times\) is "
                      r"deprecated: use ms\.analysis\.sweep_time\(mech, times\)") as caught:
        old = ms.analysis.time_sweep(mech, times)
    assert caught[0].filename == __file__
    np.testing.assert_array_equal(old.states, new.states)
    assert "time_sweep" not in ms.analysis.__all__ and "sweep_time" in ms.analysis.__all__


ENTRY_POINTS = {
    "Mechanism.solve": ms.Mechanism.solve,
    "analysis.sweep": ms.analysis.sweep,
    "analysis.sweep_time": ms.analysis.sweep_time,
    "analysis.solve_batch": ms.analysis.solve_batch,
    "analysis.free_motion_path": ms.analysis.free_motion_path,
    "analysis.wiggle_free_motions": ms.analysis.wiggle_free_motions,
    "design.sweep": ms.design.sweep,
    "SerialArm.ik": ms.robots.SerialArm.ik,
    "newton.newton": core_newton,
}


@pytest.mark.parametrize("name", list(ENTRY_POINTS))
def test_one_max_iterations_default(name):
    default = inspect.signature(ENTRY_POINTS[name]).parameters["max_iterations"].default
    assert default == DEFAULT_MAX_ITERATIONS == 50


def test_a_sweep_corrector_keeps_its_own_smaller_budget():
    import importlib

    from mechsolve.analysis import continuation
    design_sweep = importlib.import_module("mechsolve.design.sweep")

    assert continuation.CORRECTOR_ITERATIONS == 25 and design_sweep.STEP_ITERATIONS == 8
    values = np.linspace(0.3, 2.0, 12)
    sweeps = []
    for options in ({}, {"max_iterations": 25}):    # the old default: the same poses
        mech, motor = _fourbar()                     # each from the same fresh start
        mech.solve()
        sweeps.append(mech.sweep(motor, values, **options))
    a, b = sweeps
    np.testing.assert_array_equal(a.states, b.states)
    np.testing.assert_array_equal(a.iterations, b.iterations)


# -- repr: a readable summary -------------------------------------------------------------------
def test_reprs_lead_with_the_shared_fields():
    mech, motor = _fourbar()
    res = mech.solve()
    text = repr(res)
    assert text.startswith("SolveResult(success=True, status=0, message='converged', "
                           "iterations=")
    assert "residual=" in text and "residual_abs=" in text and "rank_status='regular'" in text
    out = core_newton(mech.system().problem(), mech.state[None])
    assert repr(out).startswith("NewtonResult(success=array([ True]), status=array([0]), "
                                "message='1 of 1 converged', iterations=")
    batch = mech.solve_batch(values={motor: [0.1, 0.2]})
    assert repr(batch).startswith("BatchResult(2 items, 2 converged, largest residual ")
    assert repr(batch).endswith("; 2 of 2 converged)")
    assert repr(mech.dof()) == "DofReport(dof=1, gruebler=1, redundant=0, drivers=1, free=0)"
    assert repr(ms.Result(success=False, status=1, message="x" * 100)).endswith("...')")
