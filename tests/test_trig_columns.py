"""Cosines and sines once per body (``Joint._trig_columns``): the kernels that read them from
five-column poses give what they compute from three columns, and ``System.phi`` and
``System.evaluate`` give the same values with and without them."""

from __future__ import annotations

import numpy as np
import pytest
from _joint_cases import CASES, random_args

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints.base import Joint

PLANAR_CASES = [k for k in CASES if k.startswith("planar ")]


def _with_trig(X: np.ndarray) -> np.ndarray:
    return np.concatenate([X, np.cos(X[..., 2:3]), np.sin(X[..., 2:3])], axis=-1)


def test_the_classes_that_read_them():
    flagged = {c.__name__ for c in (joints.Revolute, joints.Fixed, joints.Prismatic,
                                    joints.PointOnLine, joints.Distance, joints.RackPinion,
                                    joints.SlideDriver, joints.DistanceDriver)
               if c.__dict__.get("_trig_columns")}
    assert len(flagged) == 8
    assert not Joint._trig_columns

    class Pin(joints.Revolute):   # a subclass may have kernels of its own: not inherited
        pass

    assert not Pin.__dict__.get("_trig_columns", False)


@pytest.mark.parametrize("case", PLANAR_CASES)
def test_kernels_read_the_columns_to_round_off(case):
    rng = np.random.default_rng(11)
    joint = CASES[case](rng)
    cls = type(joint)
    if not cls.__dict__.get("_trig_columns", False):
        pytest.skip(f"{cls.__name__} computes its own (no rotation in its kernels)")
    P = np.broadcast_to(joint._p, (6, joint._p.size)).copy()
    P[..., :] += 0.1 * rng.normal(size=P.shape) * (np.abs(P) > 0)
    X = random_args(joint, rng, (6,))
    X[0][..., 2] += rng.uniform(-1e3, 1e3, size=6)    # far angles: cos and sin all the same
    phi3, blocks3 = cls._evaluate(P, *X)
    phi5, blocks5 = cls._evaluate(P, *[_with_trig(x) for x in X])
    np.testing.assert_allclose(phi5, phi3, rtol=1e-14, atol=1e-14)
    np.testing.assert_allclose(cls._phi(P, *[_with_trig(x) for x in X]), phi3,
                               rtol=1e-14, atol=1e-14)
    for b5, b3 in zip(blocks5, blocks3):
        np.testing.assert_allclose(b5, b3, rtol=1e-14, atol=1e-14)
    # the kernel written once takes either form
    t3, _ = cls._terms(np, P, *X, jacobian=False)
    t5, _ = cls._terms(np, P, *[_with_trig(x) for x in X], jacobian=False)
    for a, b in zip(t5, t3):
        np.testing.assert_allclose(a, b, rtol=1e-14, atol=1e-14)


def _every_planar_joint(rng) -> ms.Mechanism:
    """One mechanism holding a joint of every planar case (not solvable: evaluated only)."""
    mech = ms.Mechanism()
    bodies = [mech.add_body(f"b{i}", rng.normal(size=2), rng.uniform(-np.pi, np.pi))
              for i in range(4)]
    pt = lambda: rng.normal(size=2)  # noqa: E731
    mech.add(joints.Revolute(mech.ground, bodies[0], pt(), pt()))
    mech.add(joints.Revolute(bodies[0], bodies[1], pt(), pt()))
    mech.add(joints.Fixed(bodies[1], bodies[2], pt(), pt(), 0.3))
    pri = mech.add(joints.Prismatic(bodies[2], bodies[3], pt(), pt(), axis=pt()))
    mech.add(joints.PointOnLine(mech.ground, bodies[3], pt(), pt(), axis=pt()))
    mech.add(joints.Distance(bodies[0], bodies[3], pt(), pt(), length=1.3))
    mech.add(joints.RackPinion(bodies[1], bodies[3], 0.8, pt(), pt(), axis=pt()))
    mech.add(joints.SlideDriver(pri, 0.2))
    mech.add(joints.DistanceDriver(mech.ground, bodies[2], pt(), pt(), 1.1))
    mech.add(joints.Gear(bodies[0], bodies[1], 0.7, 1.9, carrier=bodies[2]))
    mech.add(joints.Driver(bodies[0], "angle", 0.1))
    return mech


@pytest.mark.parametrize("far", [0.0, 1e5])
def test_system_values_are_the_same_with_and_without_them(far):
    rng = np.random.default_rng(5)
    mech = _every_planar_joint(rng)
    system = mech.system()
    assert not system._trig       # a small system: three columns pay
    system._trig = True
    q = mech.state + far * np.tile([1.0, -1.0, 0.0], len(mech.bodies))
    Q = q + 0.1 * rng.normal(size=(7, q.size))
    got = [system.evaluate(q), system.evaluate(Q), system.phi(q), system.phi(Q)]
    system._trig = False
    want = [system.evaluate(q), system.evaluate(Q), system.phi(q), system.phi(Q)]
    scale = 1.0 + far
    for g, w in zip(got, want):
        for a, b in zip(g if isinstance(g, tuple) else (g,), w if isinstance(w, tuple) else (w,)):
            np.testing.assert_allclose(a, b, rtol=0, atol=1e-15 * scale * 10)


def test_trig_poses_are_the_poses_with_their_cosines_and_sines():
    model = ms.models.fourbar_chain(3)
    system = model.mechanism.system()
    assert not system._trig
    Q = model.mechanism.state + np.random.default_rng(2).normal(size=(2, 4, system.n_state))
    XT = system._trig_poses(Q)
    assert XT.shape == (2, 4, system.nb + 1, 5)
    np.testing.assert_array_equal(XT[..., :3], system._poses(Q))
    np.testing.assert_array_equal(XT[..., 3], np.cos(XT[..., 2]))
    np.testing.assert_array_equal(XT[..., 4], np.sin(XT[..., 2]))
    np.testing.assert_array_equal(XT[..., -1, :], np.broadcast_to([0, 0, 0, 1, 0], (2, 4, 5)))


def test_systems_with_many_sides_use_them():
    from mechsolve._system import TRIG_SIDES

    loops = TRIG_SIDES // 6 + 1     # 3 revolutes of 2 sides per loop
    assert ms.models.fourbar_chain(loops).mechanism.system()._trig
    assert not ms.models.fourbar_chain(loops - 2).mechanism.system()._trig


def test_spatial_systems_do_not_use_them():
    model = ms.models.spatial.rssr()
    assert not model.mechanism.system()._trig
