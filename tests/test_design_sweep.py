"""Named per-item parameters (solve_batch) and design sweeps (ms.design.sweep)."""

from __future__ import annotations

import numpy as np
import pytest
from _round_off import assert_same_states, assert_same_to_round_off

import mechsolve as ms


def test_solve_batch_takes_named_parameters_like_set_parameters():
    model = ms.models.fourbar()
    mech = model.mechanism
    rng = np.random.default_rng(0)
    B = 6
    pivots = np.c_[4.0 + 0.1 * rng.standard_normal(B), 0.1 * rng.standard_normal(B)]
    angles = np.linspace(0.0, 1.0, B)
    out = mech.solve_batch(params={"O4.point2": pivots, "motor.value": angles})
    assert out.success.all()
    for k in range(B):   # each item is the pose of the mechanism with that item's parameters
        one = ms.models.fourbar().mechanism
        one.set_parameters({"O4.point2": pivots[k], "motor.value": angles[k]})
        one.solve()
        np.testing.assert_allclose(out.states[k], one.state, atol=1e-10)
    # mixed with the {joint: (B, p)} form and values=
    O4 = mech.joint("O4")
    full = np.tile(O4._p, (B, 1))
    full[:, 2:4] = pivots
    again = mech.solve_batch(values={model.driver: angles}, params={O4: full})
    np.testing.assert_allclose(again.states, out.states, atol=1e-12)


@pytest.mark.parametrize("params, match", [
    ({"O4.point2": np.zeros((3, 1))}, r"params\['O4.point2'\] must have shape \(B, 2\)"),
    ({"motor.value": np.zeros((3, 2))}, r"params\['motor.value'\] must have shape \(B,\)"),
    ({"O4.pont2": np.zeros((3, 2))}, r"no parameter or joint named 'O4.pont2'; did you mean "
                                     r"'O4.point2'"),
    ({"O4.point2": [[np.nan, 0.0]]}, r"params\['O4.point2'\] must contain only finite"),
    ({"O4.point2": np.zeros((3, 2)), "motor.value": np.zeros(4)}, "batch sizes disagree"),
])
def test_solve_batch_named_parameter_errors_name_the_parameter(params, match):
    with pytest.raises(ValueError, match=match):
        ms.models.fourbar().mechanism.solve_batch(params=params)


# -- design sweeps ---------------------------------------------------------------------------
VALUES = np.radians(np.arange(5.0, 360.0, 10.0))


def _family(n=50, seed=3):
    """``n`` four-bars (ground 4, crank 1, coupler 3, rocker 3.5 nominal) by their pins: random
    Grashof crank-rockers, three long cranks that stop at a limit position, one whose
    unreachable crank angles (175.87 to 184.13 degrees) lie between two sweep values (a step
    across them would land on the branch coming back), and a parallelogram (a change point)."""
    rng = np.random.default_rng(seed)
    crank = 0.5 + 0.1 * rng.uniform(-1, 1, n)          # A.point1 x: crank length - 0.5
    coupler = 1.5 + 0.1 * rng.uniform(-1, 1, n)        # B.point1 x: coupler length - 1.5
    rocker = 1.75 + 0.1 * rng.uniform(-1, 1, n)        # O4.point1 x: rocker length - 1.75
    pivot = np.c_[4.0 + 0.1 * rng.uniform(-1, 1, n), 0.1 * rng.uniform(-1, 1, n)]
    crank[:3] = [2.1, 2.3, 2.05]                       # long cranks: limit positions
    coupler[:3], rocker[:3], pivot[:3] = 1.5, 1.75, (4.0, 0.0)
    crank[3], coupler[3], rocker[3], pivot[3] = 2.0, 1.5, 1.746, (4.0, 0.0)   # narrow gap
    crank[4], coupler[4], rocker[4], pivot[4] = 0.5, 2.5, -0.75, (4.0, 0.0)   # parallelogram
    z = np.zeros(n)
    return {"A.point1": np.c_[crank, z], "B.point1": np.c_[coupler, z],
            "O4.point1": np.c_[rocker, z], "O4.point2": pivot}


def _one(designs, d):
    model = ms.models.fourbar()
    model.mechanism.set_parameters({k: v[d] for k, v in designs.items()})
    return model.mechanism, model.driver


def _limit(a, b, c, d=4.0):
    """Crank angle of the extended toggle (coupler and rocker in line): e = b + c."""
    return np.arccos((a * a + d * d - (b + c) ** 2) / (2 * a * d))


@pytest.fixture(scope="module")
def family_result():
    model = ms.models.fourbar()
    designs = _family()
    return model, designs, ms.design.sweep(model.mechanism, designs, model.driver, VALUES,
                                           chunk=16)


def test_design_sweep_poses_satisfy_every_joint_and_the_driver(family_result):
    from mechsolve.analysis.continuation import _driver_params

    _, designs, res = family_result
    assert res.states.shape == (50, len(VALUES), 9)
    assert res.success[5:].all() and res.success[:, 0].all()
    for d in range(50):
        mech, driver = _one(designs, d)
        sys = mech.system()
        ok = res.success[d]
        assert np.isnan(res.states[d, ~ok]).all()
        phi = sys.phi(res.states[d, ok], params=_driver_params(sys, driver, VALUES[ok]))
        assert np.max(np.abs(phi)) <= 1e-12 * 4.0, d


def test_design_sweep_reports_limit_positions_where_the_closed_form_puts_them(family_result):
    _, designs, res = family_result
    for d in range(4):
        a = designs["A.point1"][d, 0] + 0.5
        b = designs["B.point1"][d, 0] + 1.5
        c = designs["O4.point1"][d, 0] + 1.75
        lim = _limit(a, b, c)
        assert res.reason[d] == "limit position"
        assert res.failed_at[d] == np.searchsorted(VALUES, lim), d
        assert lim - 1e-6 <= res.reached[d] <= lim, (d, res.reached[d], lim)
        assert res.success[d, :res.failed_at[d]].all() and not res.success[d, res.failed_at[d]:
                                                                           ].any()
    # the parallelogram reaches the crossing of its branches at 180 degrees, where det J
    # changes sign on the branch it follows (mech.sweep goes on through it)
    assert res.reason[4] == "branch change" and res.failed_at[4] == 18
    assert abs(res.reached[4] - np.pi) <= 1e-5
    assert (res.failed_at[5:] == -1).all() and (res.reason[5:] == "").all()
    assert "1 branch change, 4 limit position" in repr(res)


def test_design_sweep_matches_the_single_design_sweep(family_result):
    _, designs, res = family_result
    for d in (0, 3, 4, 10, 33):
        mech, driver = _one(designs, d)
        try:
            motion = mech.sweep(driver, VALUES)
        except ms.SweepError as err:
            motion = err.motion
            assert err.index == res.failed_at[d]
        n = len(motion) if res.failed_at[d] < 0 else res.failed_at[d]
        np.testing.assert_allclose(res.states[d, :n], motion.states[:n], atol=1e-10, rtol=0)


def test_design_sweep_chunks_and_outputs_give_the_same_poses(family_result):
    model, designs, res = family_result
    again = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, chunk=16)
    # deterministic, to round-off (in other chunks the batched LU rounds alike only on
    # some platforms; issue 26)
    assert_same_states(model.mechanism, again.states, res.states)
    other = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, chunk=7,
                            outputs=[(model.output, (0.0, 1.0))])
    assert other.states is None and other.points.shape == (50, len(VALUES), 1, 2)
    assert np.array_equal(other.success, res.success)
    th = res.states[..., 5]
    px = res.states[..., 3] - np.sin(th)
    py = res.states[..., 4] + np.cos(th)
    np.testing.assert_allclose(other.points[..., 0, 0], px, atol=1e-12)
    np.testing.assert_allclose(other.points[..., 0, 1], py, atol=1e-12)
    assert np.array_equal(other.failed_at, res.failed_at)


def test_design_sweep_leaves_the_mechanism_and_checks_its_arguments():
    model = ms.models.fourbar()
    mech = model.mechanism
    before = mech.state
    ms.design.sweep(mech, {"O4.point2": [(4.0, 0.1)]}, "motor", VALUES[:3])
    assert np.array_equal(mech.state, before) and model.driver.value == 0.0
    # a design with no assembly at the first value drops out at once, the others go on
    res = ms.design.sweep(mech, {"A.point1": [(0.5, 0.0), (11.5, 0.0)]}, model.driver,
                          VALUES[:4])
    assert res.failed_at.tolist() == [-1, 0] and res.reason.tolist() == ["", "cannot assemble"]
    assert res.success[0].all() and not res.success[1].any()
    # a chunk of designs none of which assembles by full Newton steps (it crashed on an empty
    # batch of residuals), and a reason longer than the reasons of the chunks before it (it
    # was cut to their length)
    alone = ms.design.sweep(mech, {"A.point1": [(0.5, 0.0), (11.5, 0.0)]}, model.driver,
                            VALUES[:4], chunk=1)
    assert alone.reason.tolist() == ["", "cannot assemble"]
    np.testing.assert_allclose(alone.states, res.states, rtol=0, atol=1e-12)   # NaN alike
    with pytest.raises(ValueError, match=r"designs\['motor.value'\]: the swept driver's value"):
        ms.design.sweep(mech, {"motor.value": [0.1, 0.2]}, model.driver, VALUES)
    with pytest.raises(ValueError, match="designs disagree on their number"):
        ms.design.sweep(mech, {"O4.point2": np.zeros((2, 2)), "A.point1": np.zeros((3, 2))},
                        model.driver, VALUES)
    with pytest.raises(ValueError, match=r"designs\['O4.point2'\] must have shape \(B, 2\)"):
        ms.design.sweep(mech, {"O4.point2": np.zeros(3)}, model.driver, VALUES)


def test_design_sweep_on_a_dask_local_cluster_is_identical(family_result):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is an optional "
                                      "extra: pip install 'mechsolve[dask]'")
    model, designs, res = family_result
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        remote = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, chunk=16,
                                 client=client)
    for key in ("success", "iterations", "failed_at", "reason"):
        assert np.array_equal(np.asarray(remote[key]), np.asarray(res[key])), key
    # the poses and the driver values reached, to round-off (other processes; issue 26)
    assert_same_states(model.mechanism, remote["states"], res["states"])
    assert_same_to_round_off(remote["reached"], res["reached"],
                             max(1.0, np.max(np.nan_to_num(np.abs(res["reached"])))))


@pytest.mark.parametrize("scale", [1e-6, 1e-3, 1.0, 1e3, 1e6])
def test_design_sweep_is_exact_in_any_length_unit(scale):
    # a family of ground lengths d, the whole model in micrometres ... kilometres: every coupler
    # pin against the four-bar's closed form, to 1e-12 of the model's size
    from closed_form import fourbar as fourbar_exact

    model = ms.models.fourbar()
    mech = model.mechanism
    p = mech.parameters()
    mech.set_parameters({k: v * scale for k, v in p.items() if k.endswith(("point1", "point2"))})
    for b in mech.bodies:
        b.position = b.position * scale
    mech.solve()
    d = np.linspace(3.8, 4.2, 7)
    angles = np.radians(np.arange(0.0, 360.0, 10.0))
    out = ms.design.sweep(mech, {"O4.point2": np.c_[d * scale, np.zeros_like(d)]},
                          model.driver, angles, outputs=[(model.output, (1.5 * scale, 0.0))],
                          chunk=3)
    assert np.all(out.failed_at == -1) and out.success.all()
    for k, dk in enumerate(d):
        _, B, _, _ = fourbar_exact(angles, d=dk)
        np.testing.assert_allclose(out.points[k, :, 0] / scale, B, rtol=0, atol=1e-12)


# -- design sweeps of spatial mechanisms ------------------------------------------------------
# ms.models.spatial.rssr(): a crank of length a = 1 about z through the origin, its pin
# B = a (cos t, sin t, 0); a rocker of radius r = 1.5 about the unit axis u2 ~ (0, 1, 0.3)
# through p2 = (2, 0, 1), its pin C = p2 + r (cos phi e1 + sin phi e2) with e1 = u2 x z / |.|,
# e2 = u2 x e1; the rod keeps |B - C| = L. With w = B - p2:
#     |w|^2 - 2 r (w.e1 cos phi + w.e2 sin phi) + r^2 = L^2
# so A cos phi + S sin phi = K with A = w.e1, S = w.e2, K = (|w|^2 + r^2 - L^2) / (2 r):
#     phi = atan2(S, A) + s acos(K / hypot(A, S)),  s = +-1 the branch;
# no assembly where |K| > hypot(A, S), a limit position where they are equal.
RSSR_A, RSSR_R, RSSR_P2 = 1.0, 1.5, np.array([2.0, 0.0, 1.0])
RSSR_U2 = np.array([0.0, 1.0, 0.3]) / np.hypot(1.0, 0.3)
RSSR_E1 = np.cross(RSSR_U2, [0.0, 0.0, 1.0]) / np.linalg.norm(np.cross(RSSR_U2, [0.0, 0.0, 1.0]))
RSSR_E2 = np.cross(RSSR_U2, RSSR_E1)
RSSR_ANGLES = np.radians(np.arange(0.0, 360.0, 10.0))
#: rod lengths: two that stop at a limit position (crank angles 135.4 and 153.9 degrees), four
#: that turn the crank round, one with no assembly at crank angle 0
RSSR_RODS = np.array([1.5, 1.6, 1.8, 2.2, 2.5, 2.8, 3.0])


def _rssr_terms(t, L):
    B = RSSR_A * np.stack([np.cos(t), np.sin(t), np.zeros_like(t)], axis=-1)
    w = B - RSSR_P2
    A, S = w @ RSSR_E1, w @ RSSR_E2
    K = (np.sum(w * w, axis=-1) + RSSR_R**2 - L**2) / (2 * RSSR_R)
    return A, S, K


def _rssr_phi(t, L, branch):
    A, S, K = _rssr_terms(np.asarray(t, float), L)
    return np.arctan2(S, A) + branch * np.arccos(K / np.hypot(A, S))


def _rssr_branch():
    """The branch of the nominal model (rod 2.5 at crank angle 0)."""
    phi0 = ms.models.spatial.rssr().phi0
    return next(s for s in (1, -1) if abs(np.angle(np.exp(1j * (_rssr_phi(0.0, 2.5, s)
                                                                   - phi0)))) < 1e-12)


def _rssr_limit(L, branch_start):
    """The first crank angle after ``branch_start`` where ``|K| = hypot(A, S)``."""
    from scipy.optimize import brentq

    def gap(t):
        A, S, K = _rssr_terms(np.array(t), L)
        return float(np.hypot(A, S) - abs(K))

    grid = np.arange(branch_start, 2 * np.pi, 1e-3)
    k = int(np.argmax([gap(t) < 0 for t in grid]))
    return brentq(gap, grid[k - 1], grid[k], xtol=1e-15, rtol=4 * np.finfo(float).eps)


def _quat(angle, axis):
    return np.concatenate([[np.cos(angle / 2)], np.sin(angle / 2) * np.asarray(axis)])


def _rssr_state(t, L, branch):
    """The state (crank: position, quaternion; rocker: the same) at crank angle ``t``: each
    body turned from its build pose (identity orientation at ``t = 0``, rod 2.5) about its
    hinge axis; body origins at the middle of the crank and of the rocker's arm."""
    phi0 = ms.models.spatial.rssr().phi0
    phi = _rssr_phi(t, L, branch)
    z = np.array([0.0, 0.0, 1.0])
    crank = np.concatenate([0.5 * RSSR_A * np.array([np.cos(t), np.sin(t), 0.0]), _quat(t, z)])
    arm = RSSR_R * (np.cos(phi) * RSSR_E1 + np.sin(phi) * RSSR_E2)
    rocker = np.concatenate([RSSR_P2 + 0.5 * arm, _quat(phi - phi0, RSSR_U2)])
    return np.concatenate([crank, rocker])


def _placed_rssr(scale=1.0, origin=(0.0, 0.0, 0.0)):
    """The RSSR model scaled by ``scale`` and moved by ``origin``, solved at crank angle 0."""
    model = ms.models.spatial.rssr()
    mech = model.mechanism
    origin = np.asarray(origin, float)
    p = mech.parameters()
    new = {k: v * scale for k, v in p.items() if k.endswith(("point1", "point2", "length"))}
    new["input.point1"] = new["input.point1"] + origin
    new["output.point1"] = new["output.point1"] + origin
    mech.set_parameters(new)
    for b in mech.bodies:
        b.position = b.position * scale + origin
    mech.solve()
    return model


def _rotation_error(q, q_exact):
    """Angle of the rotation between unit quaternions (either sign)."""
    w = np.abs(np.sum(q * q_exact, axis=-1))
    v = np.linalg.norm(q[..., :1] * q_exact[..., 1:] - q_exact[..., :1] * q[..., 1:]
                       - np.cross(q[..., 1:], q_exact[..., 1:]), axis=-1)
    return 2 * np.arctan2(v, w)


def test_design_sweep_of_the_rssr_as_the_issue_wrote_it():
    # issue 26: ValueError: operands could not be broadcast together with shapes (7,14) (7,12)
    model = ms.models.spatial.rssr()
    rods = np.linspace(2.2, 2.8, 7)
    res = ms.design.sweep(model.mechanism, {"rod.length": rods}, model.driver, RSSR_ANGLES)
    assert res.states.shape == (7, len(RSSR_ANGLES), 14) and res.success.all()


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e3])
def test_rssr_design_sweep_against_its_closed_form(scale):
    # micrometres, metres, kilometres: every pose of every design against the closed form,
    # positions to 1e-12 of the model's size, rotations to 1e-12 rad
    model = _placed_rssr(scale)
    branch = _rssr_branch()
    res = ms.design.sweep(model.mechanism, {"rod.length": RSSR_RODS * scale}, model.driver,
                          RSSR_ANGLES)
    _check_rssr(res, scale, np.zeros(3), branch)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e3])
def test_rssr_design_sweep_far_from_the_origin(scale):
    # the model 1e4 of its size (2.5) from the origin: its coordinates carry round-off of
    # eps times their magnitude E, so the poses are checked to 64 such units (positions, and
    # rotations in radians over the unit crank), as at the origin otherwise
    origin = 2.5e4 * scale * np.array([0.6, -0.8, 0.5]) / np.linalg.norm([0.6, -0.8, 0.5])
    model = _placed_rssr(scale, origin)
    res = ms.design.sweep(model.mechanism, {"rod.length": RSSR_RODS * scale}, model.driver,
                          RSSR_ANGLES)
    tol = 64 * np.finfo(float).eps * np.linalg.norm(origin) / scale
    _check_rssr(res, scale, origin, _rssr_branch(), pos_tol=tol, rot_tol=tol)


def _check_rssr(res, scale, origin, branch, pos_tol=1e-12, rot_tol=1e-12):
    for d, L in enumerate(RSSR_RODS):
        if L == 3.0:   # no assembly at crank angle 0: reported, not a pose
            assert res.failed_at[d] == 0 and res.reason[d] == "cannot assemble"
            assert not res.success[d].any() and np.isnan(res.reached[d])
            continue
        ok = res.success[d]
        if L < 1.7:   # the rocker's end of travel: stopped where the closed form puts it
            lim = _rssr_limit(L, 0.0)
            assert res.reason[d] == "limit position", (L, res.reason[d])
            assert res.failed_at[d] == np.searchsorted(RSSR_ANGLES, lim)
            assert lim - 1e-6 <= res.reached[d] <= lim, (L, res.reached[d], lim)
            assert ok[:res.failed_at[d]].all() and not ok[res.failed_at[d]:].any()
        else:
            assert res.failed_at[d] == -1 and res.reason[d] == "" and ok.all()
        assert np.isnan(res.states[d, ~ok]).all()
        exact = np.array([_rssr_state(t, L, branch) for t in RSSR_ANGLES[ok]])
        got = res.states[d, ok]
        for k in (0, 7):   # each body: its origin, then its orientation
            pos = np.max(np.abs((got[:, k:k + 3] - origin) / scale - exact[:, k:k + 3]))
            rot = np.max(_rotation_error(got[:, k + 3:k + 7], exact[:, k + 3:k + 7]))
            assert pos <= pos_tol and rot <= rot_tol, (L, k, pos, rot)


def test_rssr_design_sweep_matches_the_single_design_sweep():
    model = ms.models.spatial.rssr()
    res = ms.design.sweep(model.mechanism, {"rod.length": RSSR_RODS}, model.driver,
                          RSSR_ANGLES, chunk=3)
    sys = model.mechanism.system()
    for d, L in enumerate(RSSR_RODS):
        one = ms.models.spatial.rssr()
        one.mechanism.set_parameters({"rod.length": L})
        try:
            motion = one.mechanism.sweep(one.driver, RSSR_ANGLES)
        except ms.SweepError as err:   # a limit position: the same index
            assert err.index == res.failed_at[d], L
            motion = err.motion
        except ms.SolveError:   # cannot be assembled at crank angle 0
            assert res.reason[d] == "cannot assemble"
            continue
        n = len(motion) if res.failed_at[d] < 0 else res.failed_at[d]
        gap = sys.difference(res.states[d, :n], motion.states[:n]) / sys.col_scale
        assert np.max(np.abs(gap), initial=0.0) <= 1e-12, L


def test_spatial_design_sweep_keeps_points_like_the_states():
    model = ms.models.spatial.rssr()
    rocker = model.mechanism.body("rocker")
    pin = model.mechanism.joint("rod").point2   # the rocker's ball, in its frame
    full = ms.design.sweep(model.mechanism, {"rod.length": RSSR_RODS}, model.driver,
                           RSSR_ANGLES)
    kept = ms.design.sweep(model.mechanism, {"rod.length": RSSR_RODS}, model.driver,
                           RSSR_ANGLES, outputs=[(rocker, pin)])
    assert kept.states is None and kept.points.shape == (7, len(RSSR_ANGLES), 1, 3)
    assert np.array_equal(kept.success, full.success)
    # the ball's path on the rocker's circle, from the closed form
    branch = _rssr_branch()
    for d, L in enumerate(RSSR_RODS):
        ok = full.success[d]
        phi = _rssr_phi(RSSR_ANGLES[ok], L, branch)
        C = RSSR_P2 + RSSR_R * (np.cos(phi)[:, None] * RSSR_E1 + np.sin(phi)[:, None] * RSSR_E2)
        assert np.max(np.abs(kept.points[d, ok, 0] - C), initial=0.0) <= 1e-12, L
        assert np.isnan(kept.points[d, ~ok]).all()
    with pytest.raises(ValueError, match=r"outputs point of rocker must have shape \(3,\)"):
        ms.design.sweep(model.mechanism, {"rod.length": RSSR_RODS}, model.driver,
                        RSSR_ANGLES, outputs=[(rocker, (1.0, 2.0))])


def test_spatial_design_sweep_never_returns_a_mirrored_assembly():
    # a design whose rocker hinge is turned a half turn on ground: the nominal pose holds it
    # with the hinge's axes antiparallel (its equations hold, its meaning does not). The
    # design is assembled as Mechanism.solve assembles it, and swept from there.
    from mechsolve.spatial._quat import quat_multiply

    model = ms.models.spatial.rssr()
    frame = model.mechanism.parameters()["output.frame1"]
    flipped = quat_multiply(frame, [0.0, 1.0, 0.0, 0.0])
    res = ms.design.sweep(model.mechanism, {"output.frame1": np.array([frame, flipped])},
                          model.driver, RSSR_ANGLES)
    assert res.success.all()
    one = ms.models.spatial.rssr()
    one.mechanism.set_parameters({"output.frame1": flipped})
    motion = one.mechanism.sweep(one.driver, RSSR_ANGLES)
    sys = one.mechanism.system()
    assert not sys.mirrored(res.states[1]).any()
    gap = sys.difference(res.states[1], motion.states) / sys.col_scale
    assert np.max(np.abs(gap)) <= 1e-12
    # the rocker's ball on one of the two closed-form assemblies (the hinge axis reversed,
    # the rocker's angle is measured the other way round: e2 -> -e2)
    ball = one.mechanism.joint("rod").point2
    for k, t in enumerate(RSSR_ANGLES):
        q = res.states[1, k]
        got = q[7:10] + ms.Orientation.from_quaternion(q[10:14]).as_matrix() @ ball
        C = [RSSR_P2 + RSSR_R * (np.cos(p) * RSSR_E1 + np.sin(p) * RSSR_E2)
             for p in (_rssr_phi(t, 2.5, 1), _rssr_phi(t, 2.5, -1))]
        assert min(np.max(np.abs(got - c)) for c in C) <= 1e-12, k


# ms.models.spatial.slider_crank_3d(): a crank of length a about z, its ball at
# B = a (cos t, sin t, 0); a rod of length 3 from the ball to a Hooke joint on a slider that
# slides along the line (x, y0, z0). With |C - B| = 3:
#     x = a cos t + sqrt(9 - (y0 - a sin t)^2 - z0^2).
# The rod's direction d = (C - B) / 3; its Hooke pin p (built as d0 x y, normalized) stays
# normal to the slider's pin y and to d: p = d x y / |d x y|; the rod's rotation takes
# (d0, p0, d0 x p0) of the build pose to (d, p, d x p). The slider keeps its orientation.
SC_ANGLES = np.radians(np.arange(0.0, 360.0, 10.0))


def _slider_crank_3d_state(t, a, y0, z0):
    def unit(v):
        return v / np.linalg.norm(v)

    y = np.array([0.0, 1.0, 0.0])
    B0 = np.array([1.0, 0.0, 0.0])
    C0 = np.array([1.0 + np.sqrt(9.0 - 0.25 - 0.64), 0.5, 0.8])
    d0 = (C0 - B0) / 3.0
    p0 = unit(np.cross(d0, y))
    B = a * np.array([np.cos(t), np.sin(t), 0.0])
    C = np.array([a * np.cos(t) + np.sqrt(9.0 - (y0 - a * np.sin(t)) ** 2 - z0**2), y0, z0])
    d = (C - B) / 3.0
    p = unit(np.cross(d, y))
    R = np.column_stack([d, p, np.cross(d, p)]) @ np.column_stack([d0, p0, np.cross(d0, p0)]).T
    crank = np.concatenate([0.5 * np.array([np.cos(t), np.sin(t), 0.0]),
                            _quat(t, [0.0, 0.0, 1.0])])
    rod = np.concatenate([(B + C) / 2, ms.Orientation.from_matrix(R).quaternion])
    return np.concatenate([crank, rod, C, [1.0, 0.0, 0.0, 0.0]])


def test_3d_slider_crank_design_sweep_against_its_closed_form():
    # crank lengths and guide offsets: the rod turns about an axis that moves
    model = ms.models.spatial.slider_crank_3d()
    a = np.array([0.8, 1.0, 1.2, 1.0, 0.9])
    offsets = np.array([(0.5, 0.8), (0.5, 0.8), (0.3, -0.6), (-0.7, 0.2), (0.0, 1.5)])
    designs = {"ball.point1": np.c_[a - 0.5, np.zeros((5, 2))],
               "guide.point1": np.c_[np.zeros(5), offsets]}
    res = ms.design.sweep(model.mechanism, designs, model.driver, SC_ANGLES)
    assert res.success.all(), res
    sys = model.mechanism.system()
    for d in range(5):
        exact = np.array([_slider_crank_3d_state(t, a[d], *offsets[d]) for t in SC_ANGLES])
        got = res.states[d]
        for k in (0, 7, 14):
            pos = np.max(np.abs(got[:, k:k + 3] - exact[:, k:k + 3]))
            rot = np.max(_rotation_error(got[:, k + 3:k + 7], exact[:, k + 3:k + 7]))
            assert pos <= 1e-12 and rot <= 1e-12, (d, k, pos, rot)
        # and the same poses as the single design's sweep
        one = ms.models.spatial.slider_crank_3d()
        one.mechanism.set_parameters({k: v[d] for k, v in designs.items()})
        motion = one.mechanism.sweep(one.driver, SC_ANGLES, batch=False)
        gap = sys.difference(got, motion.states) / sys.col_scale
        assert np.max(np.abs(gap)) <= 1e-12, d


def test_design_sweep_backend_jax_without_jax_says_how_to_install():
    import importlib.util

    if importlib.util.find_spec("jax") is not None:
        pytest.skip("JAX is installed here (tests/test_jax_backend.py runs the backend)")
    model = ms.models.fourbar()
    with pytest.raises(ImportError, match=r'backend="jax" needs JAX: pip install '
                                          r'"mechsolve\[jax\]"'):
        ms.design.sweep(model.mechanism, {"O4.point2": [(4.0, 0.0)]}, model.driver, VALUES,
                        backend="jax")
