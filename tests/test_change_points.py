"""Singular positions passed by a sweep are located to round-off, whatever the grid.

Issue 26: the parallelogram (crank = rocker = 1, coupler = ground = 2) swept over
``np.linspace(0.3, 0.3 + 2 pi, 200)`` reported its change point at 3.141641596, 4.9e-5 from pi:
the grid has a value 4.9e-5 from pi, whose pose was found singular and whose value was
recorded, and the batched sweep refined the poses after it, so no step left it to locate the
crossing. Other grids gave pi to 1e-9 or 1e-12, from poses solved too near the crossing to be
well determined.

The change points are derived here: a four-bar with ground = coupler and crank = rocker is a
parallelogram whose links all lie on the ground line when the crank does, at crank angles 0
and pi (mod 2 pi); there the parallelogram and antiparallelogram branches cross.
"""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.profiles import ConstantSpeed

CHANGE_POINTS = np.array([np.pi, 2 * np.pi])   # in 0.3 .. 0.3 + 2 pi
TOL = 1e-13


def _parallelogram(size=1.0):
    return ms.models.fourbar(ground=2.0 * size, crank=size, coupler=2.0 * size, rocker=size)


@pytest.mark.parametrize("batch", [True, False])
@pytest.mark.parametrize("n", [200, 181, 90, 361, 7])
def test_the_parallelograms_change_points_on_any_grid(n, batch):
    model = _parallelogram()
    values = np.linspace(0.3, 0.3 + 2 * np.pi, n)
    motion = model.mechanism.sweep(model.driver, values, batch=batch)
    assert len(motion.singular) == 2
    np.testing.assert_allclose(motion.singular, CHANGE_POINTS, rtol=0, atol=TOL)


@pytest.mark.parametrize("size", [1e-6, 1e3])
def test_change_points_in_micrometres_and_kilometres(size):
    model = _parallelogram(size)
    motion = model.mechanism.sweep(model.driver, np.linspace(0.3, 0.3 + 2 * np.pi, 200))
    np.testing.assert_allclose(motion.singular, CHANGE_POINTS, rtol=0, atol=TOL)


def test_the_change_point_next_to_a_grid_value_is_not_that_value():
    # values[90] is 4.9e-5 from pi: its pose is found singular, but the crossing is pi
    values = np.linspace(0.3, 0.3 + 2 * np.pi, 200)
    assert abs(values[90] - np.pi) < 5e-5
    model = _parallelogram()
    motion = model.mechanism.sweep(model.driver, values)
    assert values[90] not in motion.singular
    assert abs(motion.singular[0] - np.pi) <= TOL


@pytest.mark.parametrize("n", [181, 200, 90])
def test_time_sweeps_locate_the_change_points_too(n):
    # the two-crank parallelogram driven at 1 rad/s from crank angle 0.3: flat at t = pi - 0.3
    # and 2 pi - 0.3
    model = ms.models.parallelogram(2)
    model.driver.value = ConstantSpeed(1.0, start=0.3)
    motion = model.mechanism.sweep_time(np.linspace(0.0, 2 * np.pi, n))
    np.testing.assert_allclose(motion.singular, CHANGE_POINTS - 0.3, rtol=0, atol=2 * TOL)
