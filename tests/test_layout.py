"""The state layout (``mech.layout``), the documented internal API of ``Mechanism`` that other
modules use instead of its private state, and driver values passed to correctors."""

from __future__ import annotations

import pathlib
import pickle
import re

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import joints
from mechsolve._layout import StateLayout
from mechsolve.spatial._quat import quat_normalize

ROOT = pathlib.Path(__file__).resolve().parents[1] / "mechsolve"


def _spatial_chain(rng, n_bodies=3, scale=1.0, offset=0.0):
    """A spatial model whose joints carry coordinates: link joints between random bodies."""
    mech = ms.Mechanism(dim=3)
    bodies = []
    for i in range(n_bodies):
        quat = quat_normalize(rng.normal(size=4))
        bodies.append(mech.add_body(f"b{i}", position=offset + scale * rng.normal(size=3),
                                    orientation=ms.Orientation(quat)))
    links = [mech.add(joints.RevoluteLink(a, b, axis=rng.normal(size=3), s0=rng.normal(),
                                          name=f"link{i}"))
             for i, (a, b) in enumerate(zip([mech.ground] + bodies[:-1], bodies))]
    links.append(mech.add(joints.PrismaticLink(bodies[0], bodies[-1], axis=rng.normal(size=3),
                                               s0=rng.normal(), name="slide")))
    return mech, bodies, links


def _planar(rng, n_bodies=3, scale=1.0, offset=0.0):
    mech = ms.Mechanism()
    bodies = [mech.add_body(f"b{i}", position=offset + scale * rng.normal(size=2),
                            angle=rng.uniform(-3, 3)) for i in range(n_bodies)]
    return mech, bodies


# -- offsets --------------------------------------------------------------------------------------
def test_planar_layout_offsets_are_the_state_order():
    rng = np.random.default_rng(0)
    mech, bodies = _planar(rng)
    layout = mech.layout
    assert (layout.body_size, layout.body_dof, layout.coords_start, layout.n_state) == \
        (3, 3, 9, 9)
    q = mech.state
    for i, b in enumerate(bodies):
        assert layout.body_slice(b) == slice(3 * i, 3 * i + 3)
        assert layout.body_slice(i) == layout.body_slice(b)
        assert layout.increment_slice(b) == slice(3 * i, 3 * i + 3)
        assert layout.angle_index(b) == 3 * i + 2
        np.testing.assert_array_equal(q[layout.body_slice(b)], b.pose)
        np.testing.assert_array_equal(q[layout.position_slice(b)], b.position)
        assert q[layout.rotation_slice(b)][0] == b.angle
    np.testing.assert_array_equal(layout.positions(q), [b.position for b in bodies])
    np.testing.assert_array_equal(layout.rotations(q), [b.angle for b in bodies])


def test_spatial_layout_with_joint_coordinates_follows_adds_and_removes():
    rng = np.random.default_rng(1)
    mech, bodies, links = _spatial_chain(rng)
    layout = mech.layout
    nb = len(bodies)
    assert (layout.coords_start, layout.increment_coords_start) == (7 * nb, 6 * nb)
    assert layout.n_state == mech.n_coordinates == 7 * nb + len(links)
    assert layout.n_increment == mech.n_dof_coordinates == 6 * nb + len(links)
    q = mech.state
    for i, b in enumerate(bodies):
        assert layout.body_slice(b) == slice(7 * i, 7 * i + 7)
        assert layout.increment_slice(b) == slice(6 * i, 6 * i + 6)
        np.testing.assert_array_equal(q[layout.rotation_slice(b)], b.quaternion)
    np.testing.assert_array_equal(layout.rotations(q), [b.quaternion for b in bodies])
    for k, j in enumerate(links):
        assert layout.coord_slice(j) == slice(7 * nb + k, 7 * nb + k + 1)
        assert layout.coord_increment_slice(j) == slice(6 * nb + k, 6 * nb + k + 1)
        np.testing.assert_array_equal(q[layout.coord_slice(j)], j.coordinates)
    np.testing.assert_array_equal(layout.coordinates(q), np.concatenate(
        [j.coordinates for j in links]))
    # removing a joint moves the coordinates after it; the layout is built again
    values = {j.name: j.coordinates for j in links}
    mech.remove(links[1])
    new = mech.layout
    assert new is not layout and new.n_joint_coordinates == len(links) - 1
    for j in (links[0], *links[2:]):
        np.testing.assert_array_equal(j.coordinates, values[j.name])
        np.testing.assert_array_equal(mech.state[new.coord_slice(j)], values[j.name])
    with pytest.raises(ValueError, match="carries no coordinates of this mechanism"):
        new.coord_slice(links[1])
    # writes go where reads come from
    links[2].coordinates = [0.25]
    assert mech.state[new.coord_slice(links[2])][0] == 0.25
    assert mech.layout is new   # built once per topology change


def test_layout_is_built_once_per_topology():
    mech = ms.Mechanism()
    a = mech.add_body("a")
    first = mech.layout
    a.position = (1.0, 2.0)
    assert mech.layout is first
    mech.add_body("b")
    assert mech.layout is not first and mech.layout.n_bodies == 2


def test_layout_errors_name_what_is_wrong():
    rng = np.random.default_rng(2)
    mech, bodies = _planar(rng, 2)
    layout = mech.layout
    with pytest.raises(ValueError, match="ground body has no state"):
        layout.body_slice(mech.ground)
    with pytest.raises(ValueError, match=r"body 5 is not in this layout \(2 bodies\)"):
        layout.body_slice(5)
    with pytest.raises(ValueError, match="local must be a point of 2 coordinates, got shape"):
        layout.point(mech.state, bodies[0], (1.0, 2.0, 3.0))
    with pytest.raises(ValueError, match="a spatial body has no single angle"):
        ms.Mechanism(dim=3).layout.angle_index(0)
    with pytest.raises(ValueError, match="dim must be 2"):
        StateLayout(4, 1)
    with pytest.raises(ValueError, match="carries no coordinates"):
        layout.coord_slice(mech.add(joints.Driver(bodies[0], "x", 0.0)))


# -- points ---------------------------------------------------------------------------------------
@pytest.mark.parametrize("scale, offset", [(1.0, 0.0), (1e-6, 0.0), (1e3, 0.0), (1.0, 1e6)])
def test_point_is_the_bodies_transform_in_any_unit_and_placement(scale, offset):
    """``layout.point`` against the rotation matrices (a different formula), batched over
    poses, in micrometres, kilometres and far from the origin."""
    rng = np.random.default_rng(3)
    for dim in (2, 3):
        if dim == 2:
            mech, bodies = _planar(rng, 3, scale, offset)
        else:
            mech, bodies, _ = _spatial_chain(rng, 3, scale, offset)
        layout = mech.layout
        Q = np.repeat(mech.state[None], 5, axis=0)
        for k in range(5):           # other poses: move and turn every body
            for b in bodies:
                b.position = offset + scale * rng.normal(size=dim)
                if dim == 2:
                    b.angle = rng.uniform(-3, 3)
                else:
                    b.orientation = ms.Orientation(quat_normalize(rng.normal(size=4)))
            Q[k] = mech.state
        for b in bodies:
            local = scale * rng.normal(size=dim)
            got = layout.point(Q, b, local)
            assert got.shape == (5, dim)
            for k in range(5):
                with mech.trying_state(Q[k]):
                    expected = b.position + b.rotation @ local
                np.testing.assert_allclose(got[k], expected, rtol=0,
                                           atol=4e-16 * (abs(offset) + 4 * scale))
        # ground: the point as it is, for every pose
        np.testing.assert_array_equal(layout.point(Q, mech.ground, np.ones(dim)),
                                      np.ones((5, dim)))


def test_motion_point_and_rates_read_the_layout():
    model = ms.models.fourbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, np.linspace(0.0, 1.0, 5))
    coupler = mech.body("coupler")
    np.testing.assert_array_equal(motion.point(coupler, (1.5, 0.0)),
                                  mech.layout.point(motion.states, coupler, (1.5, 0.0)))
    np.testing.assert_array_equal(motion.pose(coupler),
                                  motion.states[:, mech.layout.body_slice(coupler)])


@given(st.lists(st.floats(-3.0, 3.0), min_size=3, max_size=3))
def test_rotations_and_positions_are_views_of_the_same_entries(angles):
    """Writing through ``rotations`` of a contiguous state writes the angles in place."""
    mech = ms.Mechanism()
    bodies = [mech.add_body(f"b{i}") for i in range(3)]
    q = mech.state
    mech.layout.rotations(q)[:] = angles
    mech.put_state(q)
    assert [b.angle for b in bodies] == angles
    assert np.shares_memory(mech.layout.positions(q), q)


# -- the documented internal API --------------------------------------------------------------
def test_put_state_at_a_layout_slice_and_body_setters():
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a")
    b = mech.add_body("b", position=(1.0, 2.0, 3.0))
    mech.put_state([4.0, 5.0, 6.0], at=mech.layout.position_slice(a))
    np.testing.assert_array_equal(a.position, [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(b.position, [1.0, 2.0, 3.0])
    b.orientation = ms.Orientation.from_angle_axis(0.5, (0, 0, 1))
    np.testing.assert_allclose(mech.state[mech.layout.rotation_slice(b)],
                               [np.cos(0.25), 0.0, 0.0, np.sin(0.25)], rtol=0, atol=1e-16)
    with pytest.raises(ValueError, match="ground has a fixed pose"):
        mech.ground.position = (1.0, 0.0, 0.0)


def test_names_renames_and_arguments():
    mech = ms.Mechanism()
    crank = mech.add_body("crank")
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    assert dict(mech.body_names) == {"crank": crank}
    assert dict(mech.joint_names) == {"motor": drive}
    with pytest.raises(TypeError):
        mech.body_names["x"] = crank      # read-only
    crank.name = "link"
    drive.name = "drive"
    assert mech.body("link") is crank and mech.joint("drive") is drive
    assert list(mech.body_names) == ["link"] and list(mech.joint_names) == ["drive"]
    mech.rename(drive, None)
    assert drive.name is None and not mech.joint_names
    other = ms.Mechanism().add_body("other")
    with pytest.raises(ValueError, match="belongs to another mechanism"):
        mech.rename(other, "x")
    with pytest.raises(ValueError, match="ground body cannot be renamed"):
        mech.ground.name = "base"
    with pytest.raises(TypeError, match="item must be a body or joint"):
        mech.rename("link", "x")
    assert mech.as_driver(drive) is drive
    with pytest.raises(TypeError, match="driver must be a driver of this mechanism"):
        mech.as_driver(crank)
    with pytest.raises(TypeError, match="body must be a Body"):
        mech.as_body("link")
    assert mech.fixed_length_scale is None
    mech.length_scale = 2.0
    assert mech.fixed_length_scale == 2.0


def test_pickled_mechanism_builds_its_layout_again():
    rng = np.random.default_rng(4)
    mech, bodies, links = _spatial_chain(rng)
    _ = mech.layout
    copy = pickle.loads(pickle.dumps(mech))
    assert copy.layout is not mech.layout
    for b in copy.bodies:
        np.testing.assert_array_equal(b.pose, mech.body(b.name).pose)
    for j in links:
        np.testing.assert_array_equal(copy.joint(j.name).coordinates, j.coordinates)


# -- driver values passed to the corrector ----------------------------------------------------
def test_problem_at_gives_the_equations_at_the_driver_value_without_setting_it():
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    mech.solve()
    sys = mech.system()
    q = mech.state
    gi, ii, col = sys.driver_slot(drive)
    P = sys.groups[gi].P.copy()[None]
    P[0, ii, col] = 0.7
    base = sys.problem()
    problem = base.at({gi: P})
    F, V = problem.evaluate(q[None], np.array([0]))
    assert drive.value == 0.0 and base.params is None
    drive.value = 0.7
    F_set, V_set = base.evaluate(q[None], np.array([0]))
    np.testing.assert_array_equal(F, F_set)
    np.testing.assert_array_equal(V, V_set)
    np.testing.assert_array_equal(problem.residual(q[None], np.array([0])), F_set)


@pytest.mark.parametrize("batch", [False, True])
def test_a_sweep_never_sets_its_driver_on_the_way(batch, monkeypatch):
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    mech.solve()
    values = np.linspace(0.0, 2 * np.pi, 37)
    seen, writes = [], []
    original = type(drive)._set_raw_value

    def spy(self, value):
        writes.append(value)
        original(self, value)

    monkeypatch.setattr(type(drive), "_set_raw_value", spy)
    motion = mech.sweep(drive, values, batch=batch,
                        progress=lambda done, total: seen.append(drive.value))
    assert writes == [] and set(seen) == {0.0}
    assert drive.value == values[-1]
    # every pose at its value: the crank at the driven angle, the loop closed
    crank = mech.body("crank")
    np.testing.assert_allclose(np.unwrap(motion.pose(crank)[:, 2]), values, rtol=0,
                               atol=1e-13)
    assert np.max(motion.residuals) < 1e-10


# -- the rule: nothing outside mechanism.py touches its private state ----------------------
_PRIVATE = re.compile(r"\b(?:mech\w*|mechanism|_mechanism|work)\._[a-z]\w*")
_OFFSET = re.compile(r"\b[367] ?\* ?\w*\.?_?index\b|\b_coord_start\b|\b_coord_offset\b")


def test_no_module_reaches_into_the_mechanism_or_computes_state_offsets():
    found = []
    for path in sorted(ROOT.rglob("*.py")):
        if path.name in ("mechanism.py", "_layout.py"):
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            code = line.split("#")[0]
            hits = [m for m in _PRIVATE.findall(code) if not m.startswith("mechsolve.")]
            if hits or _OFFSET.search(code):
                found.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not found, "\n".join(found)
