"""Named per-item parameters (solve_batch) and design sweeps (ms.design.sweep)."""

from __future__ import annotations

import numpy as np
import pytest

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
    assert np.array_equal(again.states, res.states, equal_nan=True)   # deterministic
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
    for key in ("states", "success", "iterations", "failed_at", "reason", "reached"):
        assert np.array_equal(np.asarray(remote[key]), np.asarray(res[key]),
                              equal_nan=key in ("states", "reached")), key


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

