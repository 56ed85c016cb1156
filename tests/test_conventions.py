"""Conventions said and checked: angles in radians (ms.rad, ms.deg)."""

import numpy as np
import pytest

import mechsolve as ms


# -- ms.rad and ms.deg --------------------------------------------------------------------------
def test_rad_and_deg_convert_like_numpy():
    assert ms.rad(45) == np.radians(45.0) and type(ms.rad(45)) is float
    assert ms.deg(np.pi) == 180.0 and type(ms.deg(np.float32(1.0))) is float
    assert type(ms.rad(np.int64(90))) is float
    a = ms.rad([[0, 90], [180, 360]])
    assert isinstance(a, np.ndarray) and a.shape == (2, 2) and a.dtype == float
    np.testing.assert_array_equal(a, np.radians([[0, 90], [180, 360]]))
    x = np.linspace(-7.0, 7.0, 15)
    np.testing.assert_allclose(ms.rad(ms.deg(x)), x, rtol=1e-15)


@pytest.mark.parametrize("bad", ["45", None, True, 1 + 2j, np.array([1j]), [1, "a"], {}])
def test_rad_and_deg_refuse_what_is_not_a_real_number(bad):
    with pytest.raises(TypeError, match=r"^degrees must be"):
        ms.rad(bad)
    with pytest.raises(TypeError, match=r"^radians must be"):
        ms.deg(bad)


def test_rad_refuses_a_ragged_sequence():
    with pytest.raises(ValueError, match=r"^degrees must be a real number or an array"):
        ms.rad([[1, 2], [3]])
