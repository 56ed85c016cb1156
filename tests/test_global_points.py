"""Building by global points: named body points, Mechanism.add_link, point names in joint
constructors, joints placed at global points (``Joint.at``), and Jansen's leg built from them."""

import copy
import pickle

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints._spatial import (
    SpatialDistance,
    SpatialFixed,
    SpatialPointOnLine,
    SpatialPrismatic,
    SpatialRevolute,
)
from mechsolve.models import JANSEN, JANSEN_BARS

TOL = 1e-12


# -- helpers ----------------------------------------------------------------------------------
def _rot2(t):
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s], [s, c]])


def _planar(rng, n=2, size=5.0):
    """A planar mechanism with ``n`` bodies at random placements (angles over several turns)."""
    mech = ms.Mechanism()
    bodies = [mech.add_body(f"b{i}", position=rng.uniform(-size, size, 2),
                            angle=rng.uniform(-20.0, 20.0)) for i in range(n)]
    return mech, bodies


def _random_orientation(rng):
    q = rng.normal(size=4)
    return ms.Orientation(q / np.linalg.norm(q))


def _spatial(rng, n=2, size=5.0):
    mech = ms.Mechanism(dim=3)
    bodies = [mech.add_body(f"b{i}", position=rng.uniform(-size, size, 3),
                            orientation=_random_orientation(rng)) for i in range(n)]
    return mech, bodies


def _pairs(mech, bodies):
    """(body1, body2) pairs to place joints between: two moving bodies, and ground first."""
    return [(bodies[0], bodies[1]), (mech.ground, bodies[1]), (bodies[0], mech.ground)]


def _random_poses(rng, dim, k=20, size=5.0):
    if dim == 2:
        X = np.empty((k, 3))
        X[:, :2] = rng.uniform(-size, size, (k, 2))
        X[:, 2] = rng.uniform(-20, 20, k)
        return X
    X = np.empty((k, 7))
    X[:, :3] = rng.uniform(-size, size, (k, 3))
    q = rng.normal(size=(k, 4))
    X[:, 3:] = q / np.linalg.norm(q, axis=1, keepdims=True)
    return X


def _poses_of(body, X):
    """The poses ``X`` for a moving body; ground's pose (repeated) for ground."""
    return np.broadcast_to(body.pose, X.shape).copy() if body.is_ground else X


def _same_phi(a, b, rng, size=5.0):
    """Both joints have identical Phi at random poses of their bodies (to 1e-12 of the size)."""
    assert type(a) is type(b)
    dim = a.dim
    X1 = _poses_of(a.bodies[0], _random_poses(rng, dim, size=size))
    X2 = _poses_of(a.bodies[1], _random_poses(rng, dim, size=size))
    pa = type(a)._phi(a._p[None, :], X1, X2)
    pb = type(b)._phi(b._p[None, :], X1, X2)
    assert pa.shape == pb.shape
    assert np.abs(pa - pb).max() <= TOL * size * 10


def _assert_zero(joint, size=5.0):
    assert np.abs(joint.residual()).max() <= TOL * size


# -- named points -----------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [2, 3])
def test_add_point_local_and_at(dim):
    rng = np.random.default_rng(10 + dim)
    mech, (b, _) = (_planar if dim == 2 else _spatial)(rng)
    local = rng.normal(size=dim)
    glob = rng.normal(size=dim) * 3
    out = b.add_point("P", local)
    assert np.array_equal(out, local)
    out2 = b.add_point("Q", at=glob)
    assert np.allclose(b.to_global(out2), glob, rtol=0, atol=TOL * 10)
    assert list(b.points) == ["P", "Q"]
    assert np.array_equal(b.point("P"), local)
    # copies: changing what was returned changes nothing
    b.point("P")[0] += 1.0
    b.points["P"][0] += 1.0
    out[0] += 1.0
    assert np.array_equal(b.point("P"), local)
    with pytest.raises(TypeError):
        b.points["R"] = local     # read-only mapping
    # ground takes named points too (its placement is the identity)
    g = mech.ground.add_point("O", at=glob)
    assert np.array_equal(g, glob)


def test_point_errors_name_the_body_and_the_argument():
    mech = ms.Mechanism()
    b = mech.add_body("crank", position=(1.0, 0.0))
    with pytest.raises(ValueError, match=r"body 'crank' has no point named 'A'; it has no "):
        b.point("A")
    b.add_point("O", (0.0, 0.0))
    b.add_point("B", (1.0, 0.0))
    with pytest.raises(ValueError, match=r"body 'crank' has no point named 'A'; its points "
                                         r"are \['O', 'B'\]"):
        b.point("A")
    with pytest.raises(ValueError, match="exactly one of local .* got both"):
        b.add_point("C", (0.0, 0.0), at=(1.0, 0.0))
    with pytest.raises(ValueError, match="exactly one of local .* got neither"):
        b.add_point("C")
    with pytest.raises(ValueError, match=r"local must have shape \(2,\)"):
        b.add_point("C", (0.0, 0.0, 1.0))
    with pytest.raises(ValueError, match=r"at must have shape \(2,\)"):
        b.add_point("C", at=(0.0, 0.0, 1.0))
    with pytest.raises(TypeError, match="at must be a sequence of 2 numbers"):
        b.add_point("C", at="here")
    with pytest.raises(ValueError, match="at must contain only finite"):
        b.add_point("C", at=(np.nan, 0.0))
    with pytest.raises(TypeError, match="name must be a non-empty string"):
        b.add_point("", (0.0, 0.0))
    with pytest.raises(ValueError, match="already has a point named 'O'"):
        b.add_point("O", (2.0, 0.0))
    s = ms.Mechanism(dim=3).add_body("s")
    with pytest.raises(ValueError, match=r"local must have shape \(3,\)"):
        s.add_point("C", (0.0, 0.0))


@pytest.mark.parametrize("dim", [2, 3])
def test_named_points_survive_pickle_and_copy(dim):
    rng = np.random.default_rng(20 + dim)
    mech, (a, b) = (_planar if dim == 2 else _spatial)(rng)
    a.add_point("A", rng.normal(size=dim))
    b.add_point("B", at=rng.normal(size=dim))
    mech.ground.add_point("O", rng.normal(size=dim))
    for other in (pickle.loads(pickle.dumps(mech)), copy.deepcopy(mech)):
        for body in (other.body("b0"), other.body("b1"), other.ground):
            orig = mech.body(body.name)
            assert list(body.points) == list(orig.points)
            for key in orig.points:
                assert np.array_equal(body.point(key), orig.point(key))
        # the copy's names build joints on the copy
        j = joints.Revolute(other.body("b0"), other.body("b1"), "A", "B")
        assert j.bodies[0].mechanism is other


def test_jansen_model_pickles_with_its_points():
    model = ms.models.jansen_leg()
    mech = pickle.loads(pickle.dumps(model.mechanism))
    foot = mech.body("foot")
    assert list(foot.points) == ["D", "F", "P"]
    assert np.array_equal(foot.point("P"), model.output.point("P"))
    mech.joint("motor").value = 1.0
    assert mech.solve().success


# -- add_link ---------------------------------------------------------------------------------
def test_add_link_planar_reproduces_the_global_points():
    rng = np.random.default_rng(30)
    mech = ms.Mechanism()
    for i in range(20):
        pts = {name: rng.uniform(-50, 50, 2) for name in ("A", "B", "P", "Q")}
        link = mech.add_link(f"l{i}", **pts)
        assert list(link.points) == list(pts)
        assert np.array_equal(link.position, pts["A"])
        assert np.array_equal(link.point("A"), np.zeros(2))
        d = pts["B"] - pts["A"]
        assert link.angle == pytest.approx(np.arctan2(d[1], d[0]), abs=1e-15)
        assert abs(link.point("B")[1]) <= TOL * 50      # on the body's x axis
        for name, p in pts.items():
            assert np.abs(link.to_global(link.point(name)) - p).max() <= TOL * 50
    # angle= overrides the direction
    link = mech.add_link("turned", angle=0.7, A=(1.0, 2.0), B=(3.0, 2.0))
    assert link.angle == 0.7
    assert np.abs(link.to_global(link.point("B")) - (3.0, 2.0)).max() <= TOL
    # a single point: angle 0 (a second point on the first is refused: see
    # test_false_failures.py)
    assert mech.add_link("dot", P=(1.0, 1.0)).angle == 0.0


def test_add_link_spatial():
    rng = np.random.default_rng(31)
    mech = ms.Mechanism(dim=3)
    pts = {name: rng.uniform(-5, 5, 3) for name in ("A", "B", "C")}
    link = mech.add_link("tri", **pts)
    assert np.array_equal(link.quaternion, (1.0, 0.0, 0.0, 0.0))
    assert np.array_equal(link.position, pts["A"])
    for name, p in pts.items():
        assert np.abs(link.to_global(link.point(name)) - p).max() <= TOL * 5
    o = _random_orientation(rng)
    turned = mech.add_link("turned", orientation=o, **pts)
    assert np.allclose(turned.quaternion, o.quaternion, atol=1e-15)
    for name, p in pts.items():
        assert np.abs(turned.to_global(turned.point(name)) - p).max() <= TOL * 5


def test_add_link_errors():
    mech = ms.Mechanism()
    with pytest.raises(ValueError, match="at least one named point"):
        mech.add_link("empty")
    with pytest.raises(ValueError, match=r"point 'B' must have shape \(2,\)"):
        mech.add_link("bad", A=(0.0, 0.0), B=(1.0, 2.0, 3.0))
    with pytest.raises(TypeError, match="point 'B' must be a sequence of 2 numbers"):
        mech.add_link("bad", A=(0.0, 0.0), B="somewhere")
    with pytest.raises(TypeError, match="orientation= is for spatial"):
        mech.add_link("bad", orientation=ms.Orientation(), A=(0.0, 0.0))
    assert mech.bodies == ()          # nothing half-made
    mech.add_link("link", A=(0.0, 0.0))
    with pytest.raises(ValueError, match="a body named 'link' already exists"):
        mech.add_link("link", A=(0.0, 0.0))
    space = ms.Mechanism(dim=3)
    with pytest.raises(TypeError, match="angle= is for planar"):
        space.add_link("bad", angle=0.3, A=(0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match=r"point 'A' must have shape \(3,\)"):
        space.add_link("bad", A=(0.0, 0.0))


# -- point names in constructors --------------------------------------------------------------
def test_point_names_equal_explicit_coordinates_planar():
    rng = np.random.default_rng(40)
    mech, (a, b) = _planar(rng)
    pa, pb = rng.normal(size=2), rng.normal(size=2)
    a.add_point("pa", pa)
    b.add_point("pb", pb)
    axis = rng.normal(size=2)
    pairs = [
        (joints.Revolute(a, b, "pa", "pb"), joints.Revolute(a, b, pa, pb)),
        (joints.Prismatic(a, b, "pa", "pb", axis), joints.Prismatic(a, b, pa, pb, axis)),
        (joints.Fixed(a, b, "pa", "pb", 0.3), joints.Fixed(a, b, pa, pb, 0.3)),
        (joints.Distance(a, b, "pa", "pb", 2.0), joints.Distance(a, b, pa, pb, 2.0)),
        (joints.PointOnLine(a, b, "pa", "pb", axis), joints.PointOnLine(a, b, pa, pb, axis)),
        (joints.RackPinion(a, b, 0.5, "pa", "pb", axis),
         joints.RackPinion(a, b, 0.5, pa, pb, axis)),
        (joints.DistanceDriver(a, b, "pa", "pb", 2.0), joints.DistanceDriver(a, b, pa, pb, 2.0)),
        (joints.Revolute(a, b, "pa", pb), joints.Revolute(a, b, pa, pb)),   # mixed
    ]
    for named, explicit in pairs:
        assert type(named) is type(explicit)
        assert np.array_equal(named._p, explicit._p)
    slide = joints.SlideDriver(pairs[1][0], 0.2)
    assert np.array_equal(slide._p, joints.SlideDriver(pairs[1][1], 0.2)._p)


def test_point_names_equal_explicit_coordinates_spatial():
    rng = np.random.default_rng(41)
    mech, (a, b) = _spatial(rng)
    pa, pb = rng.normal(size=3), rng.normal(size=3)
    a.add_point("pa", pa)
    b.add_point("pb", pb)
    axis = rng.normal(size=3)
    for cls in (joints.Revolute, joints.Prismatic, joints.Cylindrical, joints.PointOnLine,
                joints.Planar):
        named, explicit = cls(a, b, "pa", "pb", axis=axis), cls(a, b, pa, pb, axis=axis)
        assert type(named) is type(explicit)
        assert np.array_equal(named._p, explicit._p)
    for cls in (joints.Spherical, joints.Fixed, joints.Universal):
        assert np.array_equal(cls(a, b, "pa", "pb")._p, cls(a, b, pa, pb)._p)
    assert np.array_equal(joints.Distance(a, b, "pa", "pb", 2.0)._p,
                          joints.Distance(a, b, pa, pb, 2.0)._p)


def test_unknown_point_name_in_a_constructor():
    mech = ms.Mechanism()
    crank = mech.add_link("crank", O=(0.0, 0.0), A=(1.0, 0.0))
    coupler = mech.add_link("coupler", A=(1.0, 0.0), B=(3.0, 1.0))
    with pytest.raises(ValueError, match=r"^point2: body 'coupler' has no point named 'C'; "
                                         r"its points are \['A', 'B'\]"):
        joints.Revolute(crank, coupler, "A", "C")
    with pytest.raises(ValueError, match="body 'ground' has no point named 'O'"):
        joints.Revolute(mech.ground, crank, "O", "O")
    space = ms.Mechanism(dim=3)
    link = space.add_link("link", A=(0.0, 0.0, 1.0))
    with pytest.raises(ValueError, match=r"^frame2: body 'link' has no point named 'B'; its "
                                         r"points are \['A'\]"):
        joints.Revolute(space.ground, link, (0.0, 0.0, 1.0), "B", axis=(0, 0, 1))


# -- planar Joint.at --------------------------------------------------------------------------
def test_planar_at_joints():
    rng = np.random.default_rng(50)
    for _ in range(10):
        mech, bodies = _planar(rng)
        for b1, b2 in _pairs(mech, bodies):
            p = rng.uniform(-5, 5, 2)
            q = rng.uniform(-5, 5, 2)
            u = rng.normal(size=2)
            t1, t2 = b1.pose[2], b2.pose[2]
            r1, r2 = b1.pose[:2], b2.pose[:2]

            def loc(r, t, x):
                return _rot2(t).T @ (x - r)

            rev = joints.Revolute.at(b1, b2, p, name="pin")
            assert rev.name == "pin" and rev.mechanism is None
            _assert_zero(rev)
            assert np.abs(b1.to_global(rev.point1) - p).max() <= TOL * 5
            assert np.abs(b2.to_global(rev.point2) - p).max() <= TOL * 5
            _same_phi(rev, joints.Revolute(b1, b2, loc(r1, t1, p), loc(r2, t2, p)), rng)

            pri = joints.Prismatic.at(b1, b2, p, u)
            _assert_zero(pri)
            g_axis = b1.vector_to_global(pri.axis)
            assert np.abs(g_axis - u / np.linalg.norm(u)).max() <= TOL     # same sign
            hand = joints.Prismatic(b1, b2, loc(r1, t1, p), loc(r2, t2, p),
                                    _rot2(t1).T @ u, _rot2(t2).T @ u)
            hand.offset = t2 - t1      # the constructor's offset is the same modulo a turn
            _same_phi(pri, hand, rng)
            assert joints.SlideDriver(pri).measure() == pytest.approx(0.0, abs=TOL * 5)

            fix = joints.Fixed.at(b1, b2, p)
            _assert_zero(fix)
            assert fix.angle == t2 - t1
            _same_phi(fix, joints.Fixed(b1, b2, loc(r1, t1, p), loc(r2, t2, p), t2 - t1), rng)
            fix0 = joints.Fixed.at(b1, b2)         # at body 2's origin
            _assert_zero(fix0)
            assert np.array_equal(fix0.point2, (0.0, 0.0))

            pol = joints.PointOnLine.at(b1, b2, p, u)
            _assert_zero(pol)
            assert np.abs(b1.vector_to_global(pol.axis) - u / np.linalg.norm(u)).max() <= TOL
            _same_phi(pol, joints.PointOnLine(b1, b2, loc(r1, t1, p), loc(r2, t2, p),
                                              _rot2(t1).T @ u), rng)

            dis = joints.Distance.at(b1, b2, p, q)
            _assert_zero(dis)
            assert dis.length == pytest.approx(np.linalg.norm(q - p), rel=TOL)
            assert np.abs(b1.to_global(dis.point1) - p).max() <= TOL * 5
            assert np.abs(b2.to_global(dis.point2) - q).max() <= TOL * 5
            _same_phi(dis, joints.Distance(b1, b2, loc(r1, t1, p), loc(r2, t2, q),
                                           np.linalg.norm(q - p)), rng)
            longer = joints.Distance.at(b1, b2, p, q, 2.0 * dis.length)
            assert longer.length == 2.0 * dis.length
            drv = joints.DistanceDriver.at(b1, b2, p, q)
            assert type(drv) is joints.DistanceDriver
            assert drv.value == pytest.approx(dis.length, rel=TOL)


def test_planar_at_errors():
    mech = ms.Mechanism()
    b = mech.add_body("b", position=(1.0, 0.0))
    g = mech.ground
    with pytest.raises(ValueError, match=r"point must have shape \(2,\)"):
        joints.Revolute.at(g, b, (0.0, 0.0, 0.0))
    with pytest.raises(ValueError, match="axis must be a non-zero direction"):
        joints.Prismatic.at(g, b, (0.0, 0.0), (0.0, 0.0))
    with pytest.raises(ValueError, match=r"point1 must have shape \(2,\)"):
        joints.Distance.at(g, b, (0.0,), (1.0, 0.0))
    with pytest.raises(ValueError, match="point1 and point2 coincide"):
        joints.Distance.at(g, b, (1.0, 0.0), (1.0, 0.0))
    with pytest.raises(TypeError, match=r"Revolute.at: body1 must be a mechsolve Body"):
        joints.Revolute.at("ground", b, (0.0, 0.0))
    with pytest.raises(TypeError, match="name must be a non-empty string"):
        joints.Revolute.at(g, b, (0.0, 0.0), name=3)


def test_fourbar_from_at_joints_solves_and_keeps_them():
    """A four-bar built by add_link and Joint.at, perturbed, is solved back onto the joints."""
    mech = ms.Mechanism()
    g = mech.ground
    O2, A, B, O4 = (0.0, 0.0), (1.0, 0.0), (2.0, 2.5), (4.0, 0.0)
    crank = mech.add_link("crank", O=O2, A=A)
    coupler = mech.add_link("coupler", A=A, B=B, P=(1.5, 1.5))
    rocker = mech.add_link("rocker", B=B, O=O4)
    for b1, b2, p in ((g, crank, O2), (crank, coupler, A), (coupler, rocker, B),
                      (rocker, g, O4)):
        mech.add(joints.Revolute.at(b1, b2, p))
    motor = mech.add(joints.Driver(crank, "angle", 0.0))
    assert np.abs(mech.residuals()).max() <= TOL * 4
    built = mech.state
    mech.state = built + np.random.default_rng(51).normal(scale=0.05, size=built.size)
    mech.solve()
    assert np.abs(mech.state - built).max() <= 1e-12 * 4
    motor.value = 0.5
    mech.solve()
    assert np.abs(mech.residuals()).max() <= TOL * 4
    # the pins moved with the links: the coupler's pins keep the sketch's distance
    pin_a = crank.to_global(crank.point("A"))
    pin_b = rocker.to_global(rocker.point("B"))
    assert np.linalg.norm(pin_b - pin_a) == pytest.approx(np.hypot(1.0, 2.5), rel=TOL)
    assert crank.angle == pytest.approx(0.5, abs=TOL)


# -- spatial Joint.at -------------------------------------------------------------------------
def _frame_axes(body, quaternion):
    """Global axes (columns) of a joint frame of ``body`` given its local quaternion."""
    return body.rotation @ ms.Orientation(quaternion, normalize=True).as_matrix()


def _hand_frames(b1, b2, G1, G2=None):
    """The local frames of the global frames G1 (on body 1) and G2 (on body 2), by the Frame
    algebra: F_local = F_body^-1 * G."""
    G2 = G1 if G2 is None else G2
    return b1.frame.inverse() * G1, b2.frame.inverse() * G2


def test_spatial_at_joints():
    rng = np.random.default_rng(60)
    for _ in range(6):
        mech, bodies = _spatial(rng)
        for b1, b2 in _pairs(mech, bodies):
            p = rng.uniform(-5, 5, 3)
            q = rng.uniform(-5, 5, 3)
            u = rng.normal(size=3)
            u_hat = u / np.linalg.norm(u)
            G = ms.Frame(p, ms.Orientation.identity().align_z(u_hat))
            cases = [
                (joints.Revolute.at(b1, b2, p, u), SpatialRevolute, joints.Revolute),
                (joints.Prismatic.at(b1, b2, p, u), SpatialPrismatic, joints.Prismatic),
                (joints.Cylindrical.at(b1, b2, p, u), joints.Cylindrical, joints.Cylindrical),
                (joints.PointOnLine.at(b1, b2, p, u), SpatialPointOnLine, joints.PointOnLine),
            ]
            for joint, kind, public in cases:
                assert type(joint) is kind           # the spatial twin, as the constructor
                _assert_zero(joint)
                for body, sl in ((b1, slice(0, 3)), (b2, slice(7, 10))):
                    assert np.abs(body.to_global(joint._p[sl]) - p).max() <= TOL * 5
                z1 = _frame_axes(b1, joint._p[3:7])[:, 2]
                z2 = _frame_axes(b2, joint._p[10:14])[:, 2]
                assert np.abs(z1 - u_hat).max() <= TOL and np.abs(z2 - u_hat).max() <= TOL
                assert not joint.is_mirrored()
                f1, f2 = _hand_frames(b1, b2, G)
                _same_phi(joint, public(b1, b2, f1, f2), rng)
            assert cases[0][0].angle() == pytest.approx(0.0, abs=TOL)
            assert joints.AngleDriver(cases[0][0]).measure() == pytest.approx(0.0, abs=TOL)
            assert joints.SlideDriver(cases[1][0]).measure() == pytest.approx(0.0, abs=TOL * 5)
            assert joints.SlideDriver(cases[2][0]).measure() == pytest.approx(0.0, abs=TOL * 5)

            ball = joints.Spherical.at(b1, b2, p)
            _assert_zero(ball)
            Gb = ms.Frame(p, b2.orientation)
            _same_phi(ball, joints.Spherical(b1, b2, *_hand_frames(b1, b2, Gb)), rng)

            weld = joints.Fixed.at(b1, b2, p)
            assert type(weld) is SpatialFixed
            _assert_zero(weld)
            assert not weld.is_mirrored()
            _same_phi(weld, joints.Fixed(b1, b2, *_hand_frames(b1, b2, Gb)), rng)
            weld0 = joints.Fixed.at(b1, b2)
            _assert_zero(weld0)
            assert np.abs(weld0.point2).max() <= TOL * 5

            v = rng.normal(size=3)
            v = v - (v @ u_hat) * u_hat
            v_hat = v / np.linalg.norm(v)
            hooke = joints.Universal.at(b1, b2, p, u, v)
            _assert_zero(hooke)
            z1 = _frame_axes(b1, hooke._p[3:7])[:, 2]
            z2 = _frame_axes(b2, hooke._p[10:14])[:, 2]
            assert np.abs(z1 - u_hat).max() <= TOL and np.abs(z2 - v_hat).max() <= TOL
            G1 = ms.Frame(p, ms.Orientation.from_dcm_columns(v_hat, np.cross(u_hat, v_hat),
                                                             u_hat))
            G2 = ms.Frame(p, ms.Orientation.from_dcm_columns(u_hat, np.cross(v_hat, u_hat),
                                                             v_hat))
            _same_phi(hooke, joints.Universal(b1, b2, *_hand_frames(b1, b2, G1, G2)), rng)

            rod = joints.Distance.at(b1, b2, p, q)
            assert type(rod) is SpatialDistance
            _assert_zero(rod)
            assert rod.length_hint() == pytest.approx(np.linalg.norm(q - p), rel=TOL)
            _same_phi(rod, joints.Distance(b1, b2, b1.to_local(p), b2.to_local(q),
                                           np.linalg.norm(q - p)), rng)
            drv = joints.DistanceDriver.at(b1, b2, p, q)
            assert type(drv).__name__ == "SpatialDistanceDriver"


def test_spatial_at_errors():
    mech = ms.Mechanism(dim=3)
    b = mech.add_body("b", position=(0.0, 0.0, 1.0))
    g = mech.ground
    with pytest.raises(ValueError, match="axis1 and axis2 must be perpendicular"):
        joints.Universal.at(g, b, (0, 0, 0), (1, 0, 0), (1, 1, 0))
    with pytest.raises(ValueError, match=r"point must have shape \(3,\)"):
        joints.Revolute.at(g, b, (0.0, 0.0), (0, 0, 1))
    with pytest.raises(ValueError, match="axis must be a non-zero direction"):
        joints.Cylindrical.at(g, b, (0, 0, 0), (0, 0, 0))
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'axis'"):
        joints.Revolute.at(g, b, (0.0, 0.0, 0.0))
    planar = ms.Mechanism().add_body("flat")
    with pytest.raises(TypeError, match="Spherical.at: body2 must be a body of a spatial "
                                        "mechanism"):
        joints.Spherical.at(g, planar, (0, 0, 0))


def test_at_dispatch_by_keyword_body():
    mech = ms.Mechanism(dim=3)
    b = mech.add_body("b", position=(0.0, 0.0, 1.0))
    j = joints.Revolute.at(body1=mech.ground, body2=b, point=(0, 0, 1), axis=(0, 1, 0))
    assert type(j) is SpatialRevolute
    _assert_zero(j)


# -- Jansen's leg -----------------------------------------------------------------------------
def _pins(mech):
    """For every named pin, the bodies that hold it (joined by revolutes at that name)."""
    holders = {}
    for body in (mech.ground, *mech.bodies):
        for name in body.points:
            holders.setdefault(name, []).append(body)
    return holders


@pytest.fixture(scope="module")
def jansen_sweep():
    model = ms.models.jansen_leg()
    motion = model.mechanism.sweep(model.driver, model.values)
    return model, motion


def test_jansen_bars_keep_their_holy_lengths(jansen_sweep):
    model, motion = jansen_sweep
    mech = model.mechanism
    assert mech.dof().dof == 1 and len(mech.bodies) == 7
    assert model.values[-1] == pytest.approx(2 * np.pi)
    holders = _pins(mech)
    worst = joint_gap = 0.0
    for q in motion.states[::4]:
        with mech.trying_state(q):
            for key, (link, p1, p2) in JANSEN_BARS.items():
                body = mech.body(link)
                d = np.linalg.norm(body.to_global(body.point(p2)) -
                                   body.to_global(body.point(p1)))
                worst = max(worst, abs(d / JANSEN[key] - 1.0))
            # every pin is at one place on all the bodies that hold it
            for name, bodies in holders.items():
                where = [b.to_global(b.point(name)) for b in bodies]
                joint_gap = max(joint_gap, max(np.abs(w - where[0]).max() for w in where))
    assert worst <= TOL
    assert joint_gap <= TOL * 100
    ground = mech.ground
    assert np.array_equal(ground.point("B") - ground.point("O"), (-JANSEN["a"], -JANSEN["l"]))


def test_jansen_foot_path_closes(jansen_sweep):
    model, motion = jansen_sweep
    mech = model.mechanism
    first, last = motion.states[0].copy(), motion.states[-1].copy()
    crank = mech.body("crank")
    k = 3 * crank.index + 2
    assert last[k] - first[k] == pytest.approx(2 * np.pi, abs=1e-12)
    last[k] = first[k]
    assert np.abs(last - first).max() <= TOL * 100
    path = motion.point(model.output, model.output.point("P"))
    assert np.abs(path[-1] - path[0]).max() <= TOL * 100
    assert np.ptp(path[:, 0]) > 60 and np.ptp(path[:, 1]) > 20     # a stride and a lift


@pytest.mark.parametrize("scale", [1e-3, 1e3])
def test_jansen_scales_exactly(jansen_sweep, scale):
    model, motion = jansen_sweep
    other = ms.models.jansen_leg(scale)
    assert other.mechanism.length_scale == pytest.approx(scale * model.mechanism.length_scale,
                                                         rel=1e-12)
    scaled = other.mechanism.sweep(other.driver, other.values)
    S, S1 = scaled.states, motion.states
    n = 3 * len(other.mechanism.bodies)
    pos = np.ones(n, dtype=bool)
    pos[2::3] = False
    size = 100.0
    assert np.abs(S[:, pos] / scale - S1[:, pos]).max() <= TOL * size
    assert np.abs(S[:, ~pos] - S1[:, ~pos]).max() <= TOL           # angles, radians
    for key, (link, p1, p2) in JANSEN_BARS.items():
        body = other.mechanism.body(link)
        d = np.linalg.norm(body.point(p2) - body.point(p1))
        assert d == pytest.approx(scale * JANSEN[key], rel=TOL)


def test_jansen_rejects_a_bad_scale():
    with pytest.raises(ValueError, match="scale must be positive"):
        ms.models.jansen_leg(0.0)
