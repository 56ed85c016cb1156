"""Synthesis against four-bar path-generation cases from the literature (the cases, their
parametrization and sources in ``_published_fourbar.py``; the full comparison, with many start
designs, is ``benchmarks/bench_synthesis.py``).

Every error here is computed independently of the solve that produced the design: by the
published closed form from the dimensions, and from the mechanism's own swept poses.
"""

from __future__ import annotations

import math

import _published_fourbar as pf
import numpy as np
import pytest

import mechsolve as ms


@pytest.mark.parametrize("index", range(len(pf.RECORDED["line6"])))
def test_the_recorded_linkages_of_the_line_case_through_mechsolve(index):
    """Each linkage recorded for the six points on a line, built in mechsolve in the published
    parametrization: its coupler points swept by mechsolve are the closed form's (so the set-up
    is the published definition), and its error is the printed one: ``1e-20`` for
    ``bestEver(1)``, printed as a bare order of magnitude (a literal returned beside the
    vector), which the computed 1.96e-20 matches to that one digit's decade; the other vector
    has no printed error and is exact to round-off."""
    p, theta2, printed, _ = pf.RECORDED["line6"][index]
    targets = pf.CASES["line6"]["targets"]
    mech, drive = pf.build(p, theta2[0])
    swept = pf.swept_points(mech, drive, theta2)
    np.testing.assert_allclose(swept, pf.coupler_points(p, theta2), rtol=0, atol=1e-10)
    err = pf.swept_error(mech, drive, theta2, targets)
    if printed is not None:
        decade = math.floor(math.log10(printed))
        assert math.floor(math.log10(err)) == decade
        assert math.floor(math.log10(pf.closed_form_error(p, theta2, targets))) == decade
    else:
        assert err < 1e-24
    # a valid linkage: a crank-rocker meeting the published constraints, the targets in order
    assert pf.crank_turns(mech, drive) and pf.constraints_hold(p, theta2)
    np.testing.assert_allclose(pf.design_of(mech), p, rtol=0, atol=1e-12)


def _synthesize(case, p, theta2, starts=1):
    params, bounds, free = pf.problem(case)
    mech, _ = pf.build(p, theta2[0])
    return ms.design.synthesize(mech, params, driver="theta2", path=pf.CASES[case]["targets"],
                                body="coupler", point="P", driver_values=theta2,
                                free_timing=free, bounds=bounds, starts=starts)


def _check_result(case, res):
    """The result's error from its swept poses, which the closed form of its dimensions
    repeats (the result is on the published ``+`` branch); its crank turns fully."""
    targets = pf.CASES[case]["targets"]
    mech = res.mechanism
    drive = mech.joint("theta2")
    p = pf.design_of(mech, res.point)
    err = pf.swept_error(mech, drive, res.driver_values, targets, res.point)
    np.testing.assert_allclose(pf.swept_points(mech, drive, res.driver_values, res.point),
                               pf.coupler_points(p, res.driver_values), rtol=0, atol=1e-9)
    assert pf.crank_turns(mech, drive)
    return p, err


def test_six_points_on_a_line_without_timing_as_well_as_the_recorded_linkage():
    """From a start design within the published bounds (the benchmark's 19th start, rounded)
    and two drawn around it, mechsolve passes through the six points to round-off: at most the
    error of the recorded best linkage (1.96e-20 by the closed form), the crank angles within
    [0, 2 pi] and in the targets' order, the design within the published bounds. (Its rocker is
    longer than its ground link: ``r4 <= r1``, a constraint of the source's formulation, is not
    kept -- ``synthesize`` takes box bounds only.) The local minimum a single start reaches
    depends on round-off on the way (once, with NumPy 1.24 in the full suite, 1.2e-5 away):
    three starts make the outcome the platform's no more."""
    p0 = np.array([59.32, 10.98, 29.33, 57.78, 36.11, -2.25, 4.38, -2.51, 51.02])
    theta2 = 2.556 + np.linspace(0.0, math.pi, 6)
    res = _synthesize("line6", p0, theta2, starts=3)
    p, err = _check_result("line6", res)
    recorded = pf.RECORDED["line6"][0]
    assert err <= pf.closed_form_error(recorded[0], recorded[1], pf.CASES["line6"]["targets"])
    t = res.driver_values
    assert np.all((t >= 0.0) & (t <= 2 * math.pi)) and np.all(np.diff(t) > 0)
    b = pf.CASES["line6"]["bounds"]
    assert np.all((p[:4] >= b["r"][0]) & (p[:4] <= b["r"][1]))
    assert np.all(np.abs(p[4:6]) <= b["rc"][1]) and np.all(np.abs(p[7:9]) <= b["xy0"][1])
    assert 0.0 <= p[6] <= 2 * math.pi


def test_five_points_with_prescribed_timing_as_well_as_the_closed_form_least_squares():
    """The prescribed-timing case from the first seeded start design: no published value could
    be read, so the reference is independent of mechsolve -- the same least squares (same
    bounds, same start) on the published closed form. mechsolve reaches it to 1e-9 relative
    (both 7.4158e-7, about what rounding ten coordinates to three decimals leaves,
    10 x 0.001^2 / 12 = 8e-7: the points look like a crank-rocker's coupler points, rounded).
    The crank angles are the prescribed ones."""
    from scipy.optimize import least_squares

    case = pf.CASES["arc5"]
    targets, theta2 = case["targets"], case["theta2"]
    (p0, _), = pf.start_designs("arc5", 1, seed=0)
    res = _synthesize("arc5", p0, theta2)
    p, err = _check_result("arc5", res)
    np.testing.assert_array_equal(res.driver_values, theta2)
    assert np.allclose(p[6:], 0.0)            # theta0, x0, y0 kept

    def residual(x):
        d = (pf.coupler_points(np.r_[x, 0.0, 0.0, 0.0], theta2) - targets).ravel()
        return np.where(np.isfinite(d), d, 100.0)

    lo, hi = [0.0] * 4 + [-50.0] * 2, [50.0] * 4 + [50.0] * 2
    ref = least_squares(residual, p0[:6], bounds=(lo, hi), x_scale="jac", xtol=1e-15,
                        ftol=1e-15, gtol=1e-15, max_nfev=400)
    reference = pf.closed_form_error(np.r_[ref.x, 0.0, 0.0, 0.0], theta2, targets)
    assert err <= reference * (1 + 1e-9)
    assert 7.41e-7 < err < 7.42e-7
