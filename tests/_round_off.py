"""Comparisons of floating-point results to round-off, never bit for bit (issue 26).

The same code on the same inputs may round differently in the last bits on another platform,
BLAS or NumPy version, and NumPy 1.x even within one process: its SIMD sums and dot products
depend on the memory alignment of their operands. A test that means "the same result" (a
repeated computation, a pickled or reloaded mechanism solving again, a path that an inactive
option must not change) compares within a few units in the last place of the quantity's scale:
far below any real difference, and independent of how the platform rounds. Exact comparisons
stay for copies, stored numbers, integers and flags.
"""

from __future__ import annotations

import numpy as np

EPS = np.finfo(float).eps

#: The default allowance, in units in the last place of the quantity's scale.
ULPS = 8


def assert_same_to_round_off(actual, expected, scale=1.0, *, ulps: int = ULPS,
                             err_msg: str = "") -> None:
    """``|actual - expected| <= ulps * eps * scale`` elementwise; ``scale`` broadcasts (the
    size of each quantity: a length for lengths, 1 for angles and unit quaternions)."""
    actual, expected = np.asarray(actual, dtype=float), np.asarray(expected, dtype=float)
    scale = np.broadcast_to(np.asarray(scale, dtype=float), np.broadcast_shapes(
        actual.shape, expected.shape))
    np.testing.assert_allclose(actual / scale, expected / scale, rtol=0, atol=ulps * EPS,
                               err_msg=err_msg)


def magnitude(mech, states) -> float:
    """The largest coordinate of ``states`` in the model's units (at least 1): a body far
    from the origin rounds its position at its distance, not at the model's size."""
    scale = mech.system().state_scale
    size = np.abs(np.nan_to_num(np.asarray(states, dtype=float), nan=0.0)) / scale
    return max(1.0, float(np.max(size, initial=0.0)))


def state_scale(mech, states) -> np.ndarray:
    """The round-off scale of each coordinate of ``mech``'s states ``(..., n_state)``: the
    model's size for lengths and 1 for angles, times the largest coordinate in those units."""
    return mech.system().state_scale * magnitude(mech, states)


def residual_scale(mech, states) -> np.ndarray:
    """The round-off scale of each of ``mech``'s equations at ``states``: its unit (the
    model's size or 1) times the largest coordinate in the model's units."""
    return mech.system().eq_scale * magnitude(mech, states)


def assert_same_states(mech, actual, expected, *, ulps: int = ULPS, err_msg: str = "") -> None:
    """States (or stacks of them) of ``mech`` the same to round-off (NaN where the other is
    NaN: the poses a sweep did not reach)."""
    assert_same_to_round_off(actual, expected, state_scale(mech, expected), ulps=ulps,
                             err_msg=err_msg)


def assert_same_residuals(mech, actual, expected, *, ulps: int = ULPS,
                          err_msg: str = "") -> None:
    """Residuals of ``mech`` at its current state the same to round-off."""
    if np.size(expected) == 0:      # no joints: no equations (and no system to scale them)
        assert np.size(actual) == 0
        return
    assert_same_to_round_off(actual, expected, residual_scale(mech, mech.state), ulps=ulps,
                             err_msg=err_msg)
