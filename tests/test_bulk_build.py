"""Building in bulk (``Joint._many``, ``Mechanism.add_bodies``, ``Mechanism.add_joints``, used by
``models.fourbar_chain``): the same model as the one-at-a-time constructors, bit for bit, and
the constructors' own messages for bad input."""

from __future__ import annotations

import gc

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve._collector import collector_paused
from mechsolve._validation import MAX_ANGLE


def _chain_one_at_a_time(n_loops: int) -> ms.Mechanism:
    """``models.fourbar_chain`` as it was built before the bulk path: public calls only."""
    mech = ms.Mechanism(name=f"chain of {n_loops} four-bars")
    g = mech.ground
    lc = float(np.sqrt(1.04))
    rockers = [mech.add_body("A0", position=(0.0, 0.5), angle=np.pi / 2)]
    mech.add(joints.Revolute(g, rockers[0], (0, 0), (-0.5, 0)))
    mech.add(joints.Driver(rockers[0], "angle", np.pi / 2, name="motor"))
    ang = np.arctan2(0.2, 1.0)
    for i in range(1, n_loops + 1):
        cp = mech.add_body(f"C{i}", position=(i - 0.5, 1.1), angle=ang)
        a = mech.add_body(f"A{i}", position=(float(i), 0.5), angle=np.pi / 2)
        mech.add(joints.Revolute(rockers[-1], cp, (0.5, 0), (-lc / 2, 0)))
        mech.add(joints.Revolute(cp, a, (lc / 2, 0), (0.7, 0)))
        mech.add(joints.Revolute(g, a, (float(i), 0), (-0.5, 0)))
        rockers.append(a)
    return mech


def _same_model(m1: ms.Mechanism, m2: ms.Mechanism) -> None:
    assert [b.name for b in m1.bodies] == [b.name for b in m2.bodies]
    assert [b.index for b in m1.bodies] == [b.index for b in m2.bodies]
    assert np.array_equal(m1.state, m2.state)
    assert len(m1.joints) == len(m2.joints)
    for j1, j2 in zip(m1.joints, m2.joints):
        assert type(j1) is type(j2)
        assert j1.name == j2.name and j1.limits == j2.limits
        assert [b.name for b in j1.bodies] == [b.name for b in j2.bodies]
        assert np.array_equal(j1._p, j2._p)
        assert j1.mechanism is m1 and j2.mechanism is m2


@pytest.mark.parametrize("n", [1, 7, 60])
def test_fourbar_chain_is_the_model_the_public_calls_build(n):
    model = ms.models.fourbar_chain(n)
    ref = _chain_one_at_a_time(n)
    _same_model(model.mechanism, ref)
    s1, s2 = model.mechanism.system(), ref.system()
    assert np.array_equal(s1.eq_lengths, s2.eq_lengths)
    assert s1.length_scale == s2.length_scale
    # the same solve, bit for bit, and the pins met by the poses themselves
    model.driver.value = model.values[1]
    ref.joint("motor").value = model.values[1]
    r1, r2 = model.mechanism.solve(), ref.solve()
    assert r1.iterations == r2.iterations
    assert np.array_equal(model.mechanism.state, ref.state)
    for j in model.mechanism.joints:
        if isinstance(j, joints.Revolute):
            (b1, p1), (b2, p2) = j.attachments()
            assert np.linalg.norm(b1.to_global(p1) - b2.to_global(p2)) < 1e-12


def test_many_builds_what_the_constructor_builds():
    rng = np.random.default_rng(7)
    mech = ms.Mechanism()
    bodies = [mech.ground] + [mech.add_body(f"b{i}", rng.normal(size=2), rng.normal())
                              for i in range(6)]
    pairs = [(bodies[i], bodies[k]) for i, k in [(0, 1), (1, 2), (3, 2), (0, 6), (5, 4)]]
    P = rng.normal(size=(len(pairs), 4))
    assert joints.Revolute._many_checks(pairs, P)      # the fast path
    bulk = joints.Revolute._many(pairs, P)
    for j, (b1, b2), row in zip(bulk, pairs, P):
        ref = joints.Revolute(b1, b2, row[:2], row[2:])
        assert type(j) is joints.Revolute and j.bodies == ref.bodies
        assert np.array_equal(j._p, ref._p) and j.name is None and j.limits is None
        assert j.mechanism is None and j.coordinates.shape == (0,)
        assert np.array_equal(j.residual(), ref.residual())
    P3 = rng.normal(size=(len(pairs), 5))
    for j, (b1, b2), row in zip(joints.Fixed._many(pairs, P3), pairs, P3):
        ref = joints.Fixed(b1, b2, row[:2], row[2:4], row[4])
        assert type(j) is joints.Fixed and np.array_equal(j._p, ref._p)
        assert np.array_equal(j.residual(), ref.residual())
    assert joints.Revolute._many([], np.zeros((0, 4))) == []


def test_many_is_not_inherited_by_subclasses():
    class Pin(joints.Revolute):
        pass

    mech = ms.Mechanism()
    a = mech.add_body("a")
    assert not Pin._many_checks([(mech.ground, a)], np.zeros((1, 4)))
    (pin,) = Pin._many([(mech.ground, a)], np.zeros((1, 4)))   # by the constructor
    assert type(pin) is Pin


@pytest.mark.parametrize("case, error, message", [
    ("nan", ValueError, r"point1 must contain only finite numbers, got \[nan, 0.0\]"),
    ("itself", ValueError, r"Revolute: a joint between a body and itself \('a'\) constrains"),
    ("ground", ValueError, "Revolute: a joint must constrain at least one moving body"),
    ("foreign", ValueError, r"Revolute: the bodies \['a', 'c'\] belong to different mechanisms"),
    ("not a body", TypeError, "Revolute: body 2 must be a mechsolve Body"),
])
def test_many_raises_the_constructors_message(case, error, message):
    mech, other = ms.Mechanism(), ms.Mechanism()
    a, b = mech.add_body("a"), mech.add_body("b")
    c = other.add_body("c")
    good = [(mech.ground, a), (a, b)]
    P = np.zeros((3, 4))
    bad = {"nan": (mech.ground, b), "itself": (a, a), "ground": (mech.ground, mech.ground),
           "foreign": (a, c), "not a body": (a, "b")}[case]
    if case == "nan":
        P[2, 0] = np.nan
    with pytest.raises(error, match=message):
        joints.Revolute._many(good + [bad], P)


def test_many_checks_the_parameter_rows():
    mech = ms.Mechanism()
    a = mech.add_body("a")
    with pytest.raises(ValueError, match=r"point2 must have shape \(2,\), got an array of "
                                         r"shape \(1,\)"):
        joints.Revolute._many([(mech.ground, a)], [[0.0, 0.0, 1.0]])
    with pytest.raises(TypeError, match="point1 must be a sequence of 2 numbers"):
        joints.Revolute._many([(mech.ground, a)], [["x", "y", 0.0, 0.0]])


def test_many_with_spatial_bodies_builds_the_spatial_form():
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a")
    frames = np.zeros((1, 4))
    with pytest.raises((TypeError, ValueError)) as bulk:
        joints.Revolute._many([(mech.ground, a)], frames)
    with pytest.raises(type(bulk.value)) as one:
        joints.Revolute(mech.ground, a, frames[0, :2], frames[0, 2:])
    assert str(bulk.value) == str(one.value)


def test_add_bodies_is_add_body_in_bulk():
    rng = np.random.default_rng(3)
    poses = rng.normal(size=(5, 3))
    m1, m2 = ms.Mechanism(), ms.Mechanism()
    m1.add_body("first", (1.0, 2.0))
    m2.add_body("first", (1.0, 2.0))
    m1.add(joints.Revolute(m1.ground, m1.body("first")))
    m2.add(joints.Revolute(m2.ground, m2.body("first")))
    names = [f"n{i}" for i in range(5)]
    bulk = m1.add_bodies(names, poses)
    one = [m2.add_body(n, p[:2], p[2]) for n, p in zip(names, poses)]
    assert [b.index for b in bulk] == [b.index for b in one]
    assert np.array_equal(m1.state, m2.state)
    assert m1.body("n3") is bulk[3]
    assert m1.add_bodies([], np.zeros((0, 3))) == []


@pytest.mark.parametrize("names, pose, message", [
    (["a", "a"], None, "a body named 'a' already exists"),
    (["a", "ground"], None, "a body named 'ground' already exists"),
    (["a", "old"], None, "a body named 'old' already exists"),
    (["a", ""], None, "name must be a non-empty string, got ''"),
    (["a", "b"], (0.0, np.inf, 0.0), r"position must contain only finite numbers"),
    (["a", "b"], (0.0, 0.0, 2 * MAX_ANGLE), "angle must be within"),
])
def test_add_bodies_raises_add_bodys_message(names, pose, message):
    mech = ms.Mechanism()
    mech.add_body("old")
    poses = np.zeros((2, 3))
    if pose is not None:
        poses[1] = pose
    with pytest.raises((TypeError, ValueError), match=message):
        mech.add_bodies(names, poses)


def test_add_all_falls_back_to_add_and_its_messages():
    mech = ms.Mechanism()
    a = mech.add_body("a")
    pins = joints.Revolute._many([(mech.ground, a)], np.zeros((1, 4)))
    assert mech.add_joints(pins) == pins and list(mech.joints) == pins
    assert pins[0].mechanism is mech
    with pytest.raises(ValueError, match="Revolute was already added to a mechanism"):
        mech.add_joints(pins)
    b = mech.add_body("b")
    twice = joints.Revolute._many([(a, b)], np.zeros((1, 4)))
    with pytest.raises(ValueError, match="Revolute was already added to a mechanism"):
        mech.add_joints(twice + twice)
    named = joints.Revolute(a, b, name="n")
    assert mech.add_joints([named]) == [named] and mech.joint("n") is named
    other = ms.Mechanism()
    c = other.add_body("c")
    with pytest.raises(ValueError, match="body 'c' belongs to another mechanism"):
        mech.add_joints(joints.Revolute._many([(other.ground, c)], np.zeros((1, 4))))
    with pytest.raises(TypeError, match="add\\(\\) takes a mechsolve joint or driver, got str"):
        mech.add_joints(["pin"])


def test_declared_pin_rows_are_what_the_jacobian_says(monkeypatch):
    # Revolute declares its rows lengths; read from the Jacobian they are the same
    model = ms.models.fourbar_chain(4)
    mech = model.mechanism
    declared = mech.system().eq_lengths.copy()
    monkeypatch.setattr(joints.Revolute, "equation_lengths", None)
    mech._system = None
    assert np.array_equal(mech.system().eq_lengths, declared)
    assert declared.sum() == 2 * (3 * 4 + 1)


def test_collector_paused_restores_the_collector():
    assert gc.isenabled()
    with pytest.raises(RuntimeError):
        with collector_paused():
            assert not gc.isenabled()
            raise RuntimeError
    assert gc.isenabled()
    gc.disable()
    try:
        with collector_paused():
            pass
        assert not gc.isenabled()    # left as it was
    finally:
        gc.enable()


@pytest.mark.parametrize("point, error, message", [
    ((np.nan, 0.0), ValueError, r"point1 must contain only finite numbers, got \[nan, 0.0\]"),
    ((np.inf, -np.inf), ValueError, r"point1 must contain only finite numbers, got \[inf, -inf\]"),
    ((1.0,), ValueError, r"point1 must have shape \(2,\), got an array of shape \(1,\)"),
    ((1.0, None), ValueError, r"point1 must contain only finite numbers, got \[1.0, nan\]"),
    ("tip", ValueError, "point1: "),
])
def test_the_constructors_fast_path_keeps_its_messages(point, error, message):
    mech = ms.Mechanism()
    a = mech.add_body("a")
    with pytest.raises(error, match=message):
        joints.Revolute(mech.ground, a, point, (0.0, 0.0))


def test_literal_points_and_limits_on_the_fast_path():
    mech = ms.Mechanism()
    a = mech.add_body("a")
    big = joints.Revolute(mech.ground, a, (1e308, 1e308), (1, 2))   # the sum overflows
    assert big.point1.tolist() == [1e308, 1e308] and big.point2.tolist() == [1.0, 2.0]
    pin = joints.Revolute(mech.ground, a)
    assert pin.limits is None and pin.coordinates.shape == (0,)
    pin.limits = (-1.0, 1.0)
    assert pin.limits == (-1.0, 1.0)
    pin.limits = None
    assert pin.limits is None
    with pytest.raises(TypeError, match="Driver takes no limits"):
        joints.Driver(a, "x", 0.0).limits = (0.0, 1.0)
