"""The planar kernels' cosines and sines are taken the same way wherever NumPy's arrays lie
(issue 27, ``mechsolve/_trig.py``).

NumPy 1.24's float64 ``cos``/``sin`` choose between a SIMD loop and the C library's (an ulp
apart for some angles) by an overlap test on the operands' addresses that reaches
``stride - 8`` bytes past a strided input: an output that ``malloc`` happened to place straight
after a column of poses took the other loop, and identical computations in one process
differed by an ulp. The choice cannot depend on the heap when the input is contiguous (its
extent is its data) or when the output shares the input's buffer (fixed offsets): every call
the kernels make is checked to be one of the two.
"""

from __future__ import annotations

import numpy as np
import pytest
from _newton_cases import CASES

import mechsolve as ms
from mechsolve import joints
from mechsolve._trig import angle_cos_sin


def _placement_free(x, out) -> bool:
    """Whether NumPy's overlap test between the angles ``x`` and the output ``out`` (None: a
    fresh array) gives the same answer wherever ``malloc`` puts the arrays."""
    x = np.asarray(x)
    if out is not None:
        return np.may_share_memory(x, out)    # one buffer: offsets the code fixed
    return x.ndim == 0 or (x.flags.c_contiguous and x.strides[-1] == x.itemsize)


@pytest.fixture
def trig_calls(monkeypatch):
    """Every ``np.cos``/``np.sin`` call while the test runs: ``(name, input, out)``."""
    calls = []
    for name in ("cos", "sin"):
        ufunc = getattr(np, name)

        def spy(x, *args, _ufunc=ufunc, _name=name, **kwargs):
            calls.append((_name, x, kwargs.get("out", args[0] if args else None)))
            return _ufunc(x, *args, **kwargs)
        monkeypatch.setattr(np, name, spy)
    return calls


def _check(calls):
    assert calls, "no cosine or sine was taken: the test does not reach the kernels"
    bad = [(name, np.shape(x), np.asarray(x).strides) for name, x, out in calls
           if not _placement_free(x, out)]
    assert not bad, (f"{len(bad)} cos/sin calls on strided angles with a fresh output "
                     f"(placement-dependent), the first: {bad[:4]}")


def _models():
    slider = ms.models.slider_crank().mechanism
    four = ms.models.fourbar().mechanism
    four.add(joints.DistanceLimit(four.ground, four.body("coupler"), (0.0, 0.0), (0.0, 1.0),
                                  limits=(None, 9.0)))
    return {"fourbar": four, "slider_crank": slider}


@pytest.mark.parametrize("name", ["fourbar", "slider_crank"])
def test_the_kernels_cos_and_sin_do_not_depend_on_the_heap(name, trig_calls):
    mech = _models()[name]
    mech.solve()
    system = mech.system()
    rng = np.random.default_rng(3)
    q = mech.state
    Q = q + rng.normal(scale=0.1, size=(5, q.size))
    trig_calls.clear()
    for x in (q, Q, Q[:1]):
        system.phi(x)
        system.evaluate(x)
        system.phi_p(x, [(j, c) for j in mech.joints for c in range(len(j._p))][:12])
        mech.layout.point(x, mech.bodies[1], (0.25, -0.5))
    if system.limits is not None:
        system.limits.evaluate(Q)
    _check(trig_calls)


def test_the_held_problem_a_sweep_and_its_rates_take_them_one_way(trig_calls):
    problem, x0, batch, _, _ = CASES["held_readme_stop"]()
    p = batch(3)
    X = np.repeat(np.asarray(x0, dtype=float)[None], 3, axis=0)
    p.evaluate(X, np.arange(3))
    p.residual(X, np.arange(3))
    model = ms.models.fourbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, np.linspace(0.3, 2.0, 6))
    coupler = mech.body("coupler")
    motion.velocity(coupler, (1.5, 0.0), per="driver")   # analysis/motion.py
    motion.acceleration(coupler, (1.5, 0.0), per="driver")
    _check(trig_calls)


@pytest.mark.parametrize("shape", [(3,), (1, 3), (4, 3), (2, 4, 3), (2, 4, 5)])
def test_angle_cos_sin_is_cos_and_sin_of_the_angles(shape):
    X = np.random.default_rng(1).uniform(-4.0, 4.0, size=shape)
    c, s = angle_cos_sin(X)
    t = np.array(X[..., 2])        # the angles, contiguous
    assert np.shape(c) == np.shape(s) == shape[:-1]
    np.testing.assert_array_equal(c, np.cos(t))
    np.testing.assert_array_equal(s, np.sin(t))
    # the poses are not written
    np.testing.assert_array_equal(X, np.random.default_rng(1).uniform(-4.0, 4.0, size=shape))


def test_the_arm_kinematics_take_placement_free_cosines(trig_calls):
    # the IK's forward kinematics on the NumPy path (a batch, one target) and the arm's
    # forward kinematics: the joint angles copied, the cosines and sines fresh
    arm = ms.robots.ur5()
    rng = np.random.default_rng(3)
    Q = rng.uniform(-np.pi, np.pi, (5, 6))
    T = arm.forward_matrix(Q)
    trig_calls.clear()
    arm.ik(T, Q + 0.05, backend="numpy")
    arm.ik(T[0], Q[0] + 0.05, backend="numpy")
    _check(trig_calls)
