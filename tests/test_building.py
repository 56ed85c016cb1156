"""Model building: name indexes, the amortized state buffer, pickling, and the vectorized
characteristic length against a per-joint reference."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve._scale import characteristic_length


def _chain(n: int, rng=None) -> ms.Mechanism:
    """``n`` four-bar loops in a row, sharing rockers: the model of the chain benchmark."""
    m = ms.Mechanism()
    g = m.ground
    prev = m.add_body("crank", (0.5, 0.0), 0.0)
    m.add(joints.Revolute(g, prev, (0.0, 0.0), (-0.5, 0.0), name="r0"))
    for i in range(n):
        x = 2.0 * i
        c = m.add_body(f"coupler{i}", (x + 1.5, 1.0), 0.0)
        r = m.add_body(f"rocker{i}", (x + 2.0, 0.5), np.pi / 2)
        m.add(joints.Revolute(prev, c, (0.5, 0.0), (-1.0, 0.0), name=f"a{i}"))
        m.add(joints.Revolute(c, r, (1.0, 0.0), (0.5, 0.0), name=f"b{i}"))
        m.add(joints.Revolute(g, r, (x + 2.0, 0.0), (-0.5, 0.0), name=f"c{i}"))
        prev = r
    return m


def test_body_lookup_follows_renames():
    m = ms.Mechanism()
    a = m.add_body("a")
    a.name = "link"
    assert m.body("link") is a
    with pytest.raises(KeyError, match="no body named 'a'"):
        m.body("a")
    b = m.add_body("a")            # the old name is free again
    assert m.body("a") is b
    with pytest.raises(ValueError, match="a body named 'link' already exists"):
        b.name = "link"
    assert b.name == "a" and m.body("a") is b
    with pytest.raises(ValueError, match="ground body cannot be renamed"):
        m.ground.name = "base"
    with pytest.raises(ValueError, match="'ground' already exists"):
        b.name = "ground"
    with pytest.raises(TypeError, match="non-empty string"):
        b.name = ""


def test_joint_lookup_follows_renames():
    m = ms.Mechanism()
    a = m.add_body("a", (1.0, 0.0))
    j = m.add(joints.Revolute(m.ground, a, (0, 0), (-1, 0), name="pin"))
    d = m.add(joints.AngleDriver(j, 0.0))
    j.name = "hinge"
    assert m.joint("hinge") is j
    with pytest.raises(KeyError, match="no joint named 'pin'"):
        m.joint("pin")
    d.name = "drive"
    assert m.joint("drive") is d
    with pytest.raises(ValueError, match="a joint named 'hinge' already exists"):
        d.name = "hinge"
    d.name = None
    with pytest.raises(KeyError):
        m.joint("drive")
    loose = joints.Revolute(m.ground, a, (0, 0), (-1, 0), name="x")
    loose.name = "hinge"            # not added yet: no index to clash with
    with pytest.raises(ValueError, match="a joint named 'hinge' already exists"):
        m.add(loose)


def test_body_lookup_error_lists_at_most_twenty_names():
    m = ms.Mechanism()
    for i in range(30):
        m.add_body(f"b{i}")
    with pytest.raises(KeyError) as err:
        m.body("nope")
    text = str(err.value)
    assert "'b19'" in text and "'b20'" not in text and "..." in text


def test_state_after_many_additions_and_removals():
    """Bodies and joints interleaved with removals: the state holds every pose where the body
    accessors say, however often the buffer grew."""
    rng = np.random.default_rng(3)
    m = ms.Mechanism()
    poses = {}
    prev = m.ground
    for i in range(300):
        p, a = rng.normal(size=2), float(rng.normal())
        b = m.add_body(f"b{i}", p, a)
        poses[b.name] = np.r_[p, a]
        if i % 7 == 3:
            m.add(joints.Revolute(prev, b, (0, 0), (0, 0), name=f"r{i}"))
        prev = b
    for name, pose in poses.items():
        b = m.body(name)
        np.testing.assert_array_equal(b.position, pose[:2])
        assert b.angle == pose[2]
    assert m.state.size == 3 * 300
    q = m.state.copy()
    m.remove(m.joint("r3"))
    np.testing.assert_array_equal(m.state, q)
    c = m.add_body("late", (9.0, 8.0), 0.5)
    np.testing.assert_array_equal(c.position, [9.0, 8.0])
    np.testing.assert_array_equal(m.state[:q.size], q)


def test_joint_coordinates_survive_growth_and_removal():
    """Joint coordinates sit after every body's pose; bodies added later and joints removed
    between them move them intact."""
    m = ms.Mechanism(dim=3)
    links, values = [], {}
    prev = m.ground
    for i in range(40):
        b = m.add_body(f"l{i}", (0.0, 0.0, float(i)))
        link = m.add(joints.RevoluteLink(prev, b, s0=0.01 * i, name=f"j{i}"))
        links.append(link)
        values[link.name] = 0.01 * i
        prev = b
    for i in range(100):
        m.add_body(f"x{i}", (float(i), 0.0, 0.0))
    for name, v in values.items():
        assert m.joint(name).coordinates[0] == v
    m.remove(links[-1])
    del values[links[-1].name]
    m.add_body("after", (1.0, 2.0, 3.0))
    for name, v in values.items():
        assert m.joint(name).coordinates[0] == v
    for i in range(100):
        np.testing.assert_array_equal(m.body(f"x{i}").position, [float(i), 0.0, 0.0])


def test_pickle_round_trip_keeps_state_and_growth():
    m = _chain(20)
    m.add(joints.AngleDriver(m.joint("r0"), 0.3, name="drive"))
    m.solve()
    copy = pickle.loads(pickle.dumps(m))
    np.testing.assert_array_equal(copy.state, m.state)
    assert copy.body("rocker7").index == m.body("rocker7").index
    assert copy.joint("drive").value == m.joint("drive").value
    extra = copy.add_body("extra", (3.0, 4.0), 0.25)     # the restored state can grow
    np.testing.assert_array_equal(extra.position, [3.0, 4.0])
    np.testing.assert_array_equal(copy.state[:m.state.size], m.state)
    copy.body("rocker7").name = "r7"
    assert copy.body("r7").index == m.body("rocker7").index


def _reference_length(mech) -> float:
    """The characteristic length from each joint's ``attachments()`` and ``length_hint()``,
    one joint at a time (the definition the vectorized pass must reproduce)."""
    spread: dict = {}
    for j in mech.joints:
        for body, point in j.attachments():
            key = "ground" if body.is_ground else body.name
            spread.setdefault(key, [np.zeros(mech.dim)]).append(np.asarray(point, float))
    size = max([0.0] + [float(j.length_hint()) for j in mech.joints])
    for pts in spread.values():
        pts = np.array(pts)
        size = max(size, float(np.linalg.norm(pts.max(axis=0) - pts.min(axis=0))))
    return size


@pytest.mark.parametrize("name", ["fourbar", "slider_crank", "watt_sixbar"])
def test_characteristic_length_matches_per_joint_reference(name):
    mech = getattr(ms.models, name)().mechanism
    assert characteristic_length(mech) == pytest.approx(_reference_length(mech), rel=1e-15)
    assert characteristic_length(mech, mech.system().groups) == \
        pytest.approx(_reference_length(mech), rel=1e-15)


def test_characteristic_length_of_a_random_chain():
    """Random joint points on a long chain, ground's pivots included: the vectorized pass over
    the compiled groups gives the per-joint reference."""
    rng = np.random.default_rng(11)
    m = _chain(50)
    for j in m.joints:
        j._p[:] = j._p * rng.uniform(0.5, 3.0, size=j._p.size)
    expected = _reference_length(m)
    assert characteristic_length(m) == pytest.approx(expected, rel=1e-15)
    assert characteristic_length(m, m.system().groups) == pytest.approx(expected, rel=1e-15)
    assert m.length_scale == pytest.approx(expected, rel=1e-15)
