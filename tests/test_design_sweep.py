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
