"""Tolerance analysis (mechsolve.design.tolerance): first order against Monte Carlo, where the
first order holds and where it does not, and the band plot."""

from __future__ import annotations

import numpy as np
import pytest
from _round_off import assert_same_to_round_off

import mechsolve as ms

S = 4000


def _sweep_result(seed=1):
    model = ms.models.fourbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, np.linspace(0.0, 2 * np.pi, 19))
    tolerances = {"O4.point2": 1e-4, "A.point1": 1e-4, "B.point1": 2e-4, "O4.point1": 1e-4}
    outputs = [(model.output, (0.0, 1.0)), (mech.body("rocker"), (0.5, 0.2))]
    return model, ms.design.tolerance(mech, tolerances, outputs=outputs, motion=motion,
                                      samples=S, clearances={"A": 2e-4, "O4": 1e-4}, seed=seed)


def test_first_order_and_monte_carlo_agree_for_small_tolerances_along_a_sweep():
    model, res = _sweep_result()
    assert res.nominal.shape == (19, 2, 2) and res.mc_points.shape == (19, S, 2, 2)
    assert res.failures.sum() == 0
    # the standard error of a standard deviation from S normal samples is std / sqrt(2 (S-1))
    se_std = res.std / np.sqrt(2 * (S - 1))
    assert np.all(np.abs(res.mc_std - res.std) <= 5 * se_std)
    # first order: the mean is the nominal point (to within the error of a mean)
    assert np.all(np.abs(res.mc_mean - res.nominal) <= 5 * res.std / np.sqrt(S))
    # and the nominal points are the sweep's path
    np.testing.assert_allclose(res.nominal[:, 0], res.motion.point(model.output, (0.0, 1.0)),
                               rtol=0, atol=1e-14)
    # the clearances count: without them the first-order spread is smaller
    mech = model.mechanism
    plain = ms.design.tolerance(mech, {"O4.point2": 1e-4, "A.point1": 1e-4, "B.point1": 2e-4,
                                       "O4.point1": 1e-4}, outputs=res.outputs,
                                motion=res.motion)
    assert np.all(plain.std <= res.std + 1e-15) and np.any(plain.std < 0.9 * res.std)


def test_the_same_seed_gives_the_same_samples():
    # the same samples, solved to the same points to round-off of the model's size (NumPy
    # 1.24 rounds the same solve differently at another memory alignment; issue 26)
    model, a = _sweep_result(seed=3)
    _, b = _sweep_result(seed=3)
    np.testing.assert_array_equal(a.failures, b.failures)
    scale = max(model.mechanism.length_scale, np.max(np.abs(a.mc_points)))
    assert_same_to_round_off(b.mc_points, a.mc_points, scale)


def test_near_a_toggle_the_first_order_is_wrong_and_the_monte_carlo_shows_it():
    # coupler + rocker = 3.005, the distance from the crank pin to the rocker pivot is 3: the
    # coupler and rocker are nearly in line, and a few thousandths make the loop fail to close
    model = ms.models.fourbar(4.0, 1.0, 1.5, 1.505)
    mech = model.mechanism
    res = ms.design.tolerance(mech, {"O4.point1": 0.003, "B.point1": 0.003},
                              outputs=[(model.output, (0.0, 1.0))], samples=S, seed=0)
    # first order says every sample assembles; more than 5 % do not
    assert res.failures[0] > 0.05 * S
    good = S - res.failures[0]
    se_std = res.std / np.sqrt(2 * (good - 1))
    gap = np.abs(res.mc_std - res.std)
    assert np.all(gap > 0.1 * res.std) and np.all(gap > 10 * se_std)
    # the mean is biased away from the nominal point by many standard errors
    bias = np.abs(res.mc_mean - res.nominal)
    assert np.max(bias / (res.mc_std / np.sqrt(good))) > 5


def test_a_single_pose_and_the_checks():
    model = ms.models.fourbar()
    mech = model.mechanism
    res = ms.design.tolerance(mech, {"motor.value": 0.01}, outputs=[model.output])
    assert res.cov.shape == (1, 1, 2, 2) and res.mc_std is None
    # the origin of the coupler moves with the crank angle only: the first order is J J^T s^2
    J = mech.sensitivity(["motor.value"]).point(model.output)
    np.testing.assert_allclose(res.cov[0, 0], 1e-4 * J @ J.T, rtol=1e-14, atol=0)
    assert "1 output at 1 pose" in repr(res)
    with pytest.raises(ValueError, match="did you mean"):
        ms.design.tolerance(mech, {"O4.piont2": 0.1}, outputs=[model.output])
    with pytest.raises(TypeError, match="revolute"):
        slider = ms.models.slider_crank().mechanism
        ms.design.tolerance(slider, {"A.point1": 0.1}, outputs=[slider.body("rod")],
                            clearances={"rail": 0.01})
    with pytest.raises(ValueError, match="non-negative"):
        ms.design.tolerance(mech, {"O4.point2": -1.0}, outputs=[model.output])


def test_tolerance_band_draws_the_path_band_and_ellipses():
    from matplotlib.figure import Figure
    from matplotlib.patches import Ellipse, Polygon

    model, res = _sweep_result()
    ax = ms.plot.tolerance_band(res, 0, k=3, method="monte_carlo", ax=Figure().add_subplot(),
                                ellipses=5, samples=True)
    np.testing.assert_allclose(ax.lines[0].get_xydata(), res.nominal[:, 0])
    bands = [p for p in ax.patches if isinstance(p, Polygon)]
    assert len(bands) == 1
    # the band's half-width at a pose is 3 sigma across the path
    xy = bands[0].get_xy()
    half = np.linalg.norm(xy[:19] - res.nominal[:, 0], axis=1)
    w = np.sqrt(np.linalg.eigvalsh(res.mc_cov[:, 0]))      # the ellipses' half-axes
    assert np.all(half <= 3 * w[:, 1] * (1 + 1e-9)) and np.all(half >= 3 * w[:, 0] * (1 - 1e-9))
    assert sum(isinstance(p, Ellipse) for p in ax.patches) == 5
    with pytest.raises(ValueError, match="samples="):
        plain = ms.design.tolerance(model.mechanism, {"O4.point2": 1e-3},
                                    outputs=[model.output], motion=res.motion)
        ms.plot.tolerance_band(plain, method="monte_carlo")
