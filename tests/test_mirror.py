"""Mirrored assemblies: poses where a joint's equations hold only as a mirror image.

A revolute's rows ``-y1 . z2, x1 . z2`` vanish with the z axes antiparallel as well as
parallel, and a weld's ``rx, ry, rz`` at a half turn about any frame axis; ``Joint._mirrored``
reports those poses after convergence. Each class with the check is put at its correct pose, at
every mirrored pose (where its residual is zero too, which is the point), at random correct
poses and on a batch axis; every other class is listed as mirror-free, and the reasons given for
a few of them are checked (half turns are not roots, or the solutions form one connected set).
"""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints import _limits_only, _spatial
from mechsolve.joints.base import Joint
from mechsolve.spatial._quat import quat_conjugate, quat_exp, quat_multiply, quat_rotate
from mechsolve.symbolic import catalog

E = np.eye(3)
PI = np.pi
IDENTITY = np.array([1.0, 0.0, 0.0, 0.0])


def rot(axis: int, angle) -> np.ndarray:
    """Quaternion(s) of rotations by ``angle`` about frame axis ``axis`` (0, 1, 2)."""
    return quat_exp(np.multiply.outer(np.asarray(angle, float), E[axis]))


HALF = [rot(i, PI) for i in range(3)]   # half turns about x, y, z


def random_quats(rng, n):
    q = rng.normal(size=(n, 4))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def random_frame(rng):
    return ms.Frame(rng.normal(size=3), ms.Orientation(random_quats(rng, 1)[0]))


def symbolic_revolute(a, b, f1, f2):
    """The catalog's SymSpatialRevolute with the frames' points and quaternions."""
    values = {}
    for i, f in ((1, f1), (2, f2)):
        values.update(zip((f"p{i}x", f"p{i}y", f"p{i}z"), f.translation))
        values.update(zip((f"f{i}w", f"f{i}x", f"f{i}y", f"f{i}z"), f.quaternion))
    return catalog.revolute(dim=3)(a, b, **values)


def generic(*components):
    return lambda a, b, f1, f2: joints.GenericJoint(a, b, f1, f2, components=components)


# name -> (factory(a, b, frame1, frame2), free rotation axis or None, free translation axes,
#          half turns that mirror it, description pattern)
CASES = {
    "revolute": (joints.Revolute, 2, (), (0, 1), "z axes point opposite"),
    "cylindrical": (joints.Cylindrical, 2, (2,), (0, 1), "z axes point opposite"),
    "planar": (joints.Planar, 2, (0, 1), (0, 1), "plane normals"),
    "parallel axes": (joints.ParallelAxes, 2, (0, 1, 2), (0, 1), "z axes point opposite"),
    "prismatic": (joints.Prismatic, None, (2,), (0, 1, 2), "half turn"),
    "fixed": (joints.Fixed, None, (), (0, 1, 2), "half turn"),
    "generic x,rx,ry": (generic("x", "rx", "ry"), 2, (1, 2), (0, 1), "z axes point opposite"),
    "generic z,rx,rz": (generic("z", "rx", "rz"), 1, (0, 1), (0, 2), "y axes point opposite"),
    "generic ry,rz": (generic("ry", "rz"), 0, (0, 1, 2), (1, 2), "x axes point opposite"),
    "generic rx,ry,rz": (generic("rx", "ry", "rz"), None, (0, 1, 2), (0, 1, 2), "half turn"),
    "generic weld": (generic("x", "y", "z", "rx", "ry", "rz"), None, (), (0, 1, 2),
                     "half turn"),
    "symbolic revolute": (symbolic_revolute, 2, (), (0, 1), "z axes point opposite"),
}


def build(name, rng, *, ground=False, n=1):
    """A 3D mechanism with bodies a, b and ``n`` joints of the case between them."""
    factory = CASES[name][0]
    mech = ms.Mechanism(dim=3)
    a = mech.ground if ground else mech.add_body("a", position=rng.normal(size=3))
    b = mech.add_body("b")
    js = [mech.add(factory(a, b, random_frame(rng), random_frame(rng))) for _ in range(n)]
    return mech, a, b, js


def relative_motion(name, rng, n):
    """``n`` relative rotations and translations of frame 2 in frame 1 the joint allows."""
    _, axis, free, *_ = CASES[name]
    q = np.tile(IDENTITY, (n, 1)) if axis is None else rot(axis, rng.uniform(-PI, PI, n))
    t = np.zeros((n, 3))
    t[:, list(free)] = rng.normal(size=(n, len(free)))
    return q, t


def body2_pose(P, X1, q_rel, t_rel):
    """Pose of body 2 putting frame 2 at ``(t_rel, q_rel)`` in frame 1 (frame-joint layout)."""
    p1, f1, p2, f2 = P[..., 0:3], P[..., 3:7], P[..., 7:10], P[..., 10:14]
    q1 = quat_multiply(X1[..., 3:], f1)
    o1 = X1[..., :3] + quat_rotate(X1[..., 3:], p1)
    q2 = quat_multiply(q1, q_rel)
    o2 = o1 + quat_rotate(q1, t_rel)
    qb = quat_multiply(q2, quat_conjugate(f2))
    X2 = np.empty(np.broadcast_shapes(o2.shape[:-1], qb.shape[:-1]) + (7,))
    X2[..., :3] = o2 - quat_rotate(qb, p2)
    X2[..., 3:] = qb
    return X2


def place(joint, q_rel, t_rel):
    """Move the joint's second body so that frame 2 sits at ``(t_rel, q_rel)`` in frame 1."""
    a, b = joint.bodies
    X2 = body2_pose(joint._p, a.pose, q_rel, t_rel)
    b.position = X2[:3]
    b.orientation = X2[3:] / np.linalg.norm(X2[3:])


def random_body_poses(rng, shape):
    X = np.empty(shape + (7,))
    X[..., :3] = rng.normal(size=shape + (3,))
    X[..., 3:] = random_quats(rng, int(np.prod(shape))).reshape(shape + (4,))
    return X


# -- the classes with a mirror ----------------------------------------------------------------
@pytest.mark.parametrize("ground", [False, True])
@pytest.mark.parametrize("name", CASES)
def test_correct_pose_is_not_mirrored_and_every_mirror_is(name, ground):
    rng = np.random.default_rng(1)
    _, _, _, (joint,) = build(name, rng, ground=ground)
    _, _, _, halves, pattern = CASES[name]
    q, t = relative_motion(name, rng, 1)
    place(joint, q[0], t[0])
    np.testing.assert_allclose(joint.residual(), 0.0, atol=1e-12)
    assert joint.is_mirrored() is False
    for h in halves:
        place(joint, quat_multiply(q[0], HALF[h]), t[0])
        # the equations hold at the mirror image too: only the hook tells them apart
        np.testing.assert_allclose(joint.residual(), 0.0, atol=1e-12)
        assert joint.is_mirrored() is True, f"half turn about axis {h}"
    assert type(joint).mirror_description != Joint.mirror_description
    assert pattern in joint.mirror_description
    assert "mirrored assembly" in joint.mirror_description


@pytest.mark.parametrize("name", CASES)
def test_random_correct_poses_are_not_mirrored(name):
    rng = np.random.default_rng(2)
    _, _, _, (joint,) = build(name, rng)
    cls = type(joint)
    P = joint._p[None]
    X1 = random_body_poses(rng, (100, 1))
    q, t = relative_motion(name, rng, 100)
    X2 = body2_pose(P, X1, q[:, None], t[:, None])
    np.testing.assert_allclose(cls._phi(P, X1, X2), 0.0, atol=1e-10)
    flags = cls._mirrored(P, X1, X2)
    assert flags.shape == (100, 1) and flags.dtype == bool
    assert not flags.any()
    # and the same poses, each mirrored by a half turn the case lists, are all flagged
    halves = CASES[name][3]
    h = np.array(halves)[rng.integers(len(halves), size=100)]
    Xm = body2_pose(P, X1, quat_multiply(q, np.stack(HALF)[h])[:, None], t[:, None])
    np.testing.assert_allclose(cls._phi(P, X1, Xm), 0.0, atol=1e-10)
    assert cls._mirrored(P, X1, Xm).all()


@pytest.mark.parametrize("name", CASES)
def test_batch_axis_and_stacked_instances(name):
    rng = np.random.default_rng(3)
    _, _, _, js = build(name, rng, n=2)
    cls = type(js[0])
    P = np.stack([j._p for j in js])                       # (k, p), k = 2
    B = 6
    X1 = random_body_poses(rng, (B, 2))
    q, t = relative_motion(name, rng, 2 * B)
    expected = rng.random((B, 2)) < 0.5
    half = HALF[CASES[name][3][0]]
    q = np.where(expected.reshape(-1, 1), quat_multiply(q, half), q)
    X2 = body2_pose(P, X1, q.reshape(B, 2, 4), t.reshape(B, 2, 3))
    np.testing.assert_allclose(cls._phi(P, X1, X2), 0.0, atol=1e-10)
    np.testing.assert_array_equal(cls._mirrored(P, X1, X2), expected)
    # parameters with the batch axis too
    PB = np.broadcast_to(P, (B,) + P.shape)
    np.testing.assert_array_equal(cls._mirrored(PB, X1, X2), expected)


@pytest.mark.parametrize("name", ["revolute", "fixed", "generic ry,rz"])
def test_threshold_ignores_poses_merely_off(name):
    """A correct pose 50 degrees off is not flagged; a mirror 50 degrees off still is. (Not
    60: a half turn and a 60 degree tilt about a perpendicular axis put the checked axes at
    exactly 120 degrees, a dot product of -0.5, the threshold itself, where round-off decided
    and NumPy 1.24 rounded the other way.)"""
    rng = np.random.default_rng(4)
    _, _, _, (joint,) = build(name, rng)
    q, t = relative_motion(name, rng, 1)
    h = CASES[name][3][0]
    for tilt_axis in range(3):
        tilt = rot(tilt_axis, np.radians(50.0))
        place(joint, quat_multiply(q[0], tilt), t[0])
        assert joint.is_mirrored() is False
        place(joint, quat_multiply(quat_multiply(q[0], HALF[h]), tilt), t[0])
        assert joint.is_mirrored() is True


def test_weld_solved_from_random_starts_is_flagged_exactly_when_turned():
    """The solver may converge to a half turn; the hook flags those results and no others."""
    rng = np.random.default_rng(5)
    flagged = correct = 0
    for q0 in random_quats(rng, 40):
        mech = ms.Mechanism(dim=3)
        b = mech.add_body("b", position=rng.normal(size=3), orientation=ms.Orientation(q0))
        weld = mech.add(joints.Fixed(mech.ground, b, (0, 0, 1), (0, 0, 0)))
        try:
            mech.solve()
        except ms.SolveError:
            continue
        turned = bool(abs(abs(b.quaternion[0]) - 1.0) > 1e-6)   # not the identity rotation
        assert weld.is_mirrored() is turned
        flagged += turned
        correct += not turned
    assert flagged + correct > 20


def test_generic_joint_every_subset():
    """Subsets with two or three rotation components have the hook; the others do not."""
    import itertools

    rng = np.random.default_rng(6)
    mech = ms.Mechanism(dim=3)
    b = mech.add_body("b")
    names = ("x", "y", "z", "rx", "ry", "rz")
    flips = {frozenset(("rx", "ry")): 2, frozenset(("rx", "rz")): 1,
             frozenset(("ry", "rz")): 0}
    for n in range(1, 7):
        for rows in itertools.combinations(names, n):
            joint = joints.GenericJoint(mech.ground, b, random_frame(rng), random_frame(rng),
                                        components=rows)
            cls = type(joint)
            rotations = frozenset(rows) & {"rx", "ry", "rz"}
            has_hook = cls._mirrored.__func__ is not Joint._mirrored.__func__
            assert has_hook is (len(rotations) >= 2), cls.__name__
            if not has_hook:
                assert cls.mirror_description == Joint.mirror_description
                continue
            free = [k for k in range(3) if "xyz"[k] not in rows]
            t = np.zeros(3)
            t[free] = rng.normal(size=len(free))
            if len(rotations) == 3:
                q, halves = IDENTITY, (0, 1, 2)
            else:
                axis = flips[rotations]
                q, halves = rot(axis, rng.uniform(-PI, PI)), [k for k in range(3) if k != axis]
            place(joint, q, t)
            np.testing.assert_allclose(joint.residual(), 0.0, atol=1e-12)
            assert not joint.is_mirrored()
            for h in halves:
                place(joint, quat_multiply(q, HALF[h]), t)
                np.testing.assert_allclose(joint.residual(), 0.0, atol=1e-12)
                assert joint.is_mirrored(), (cls.__name__, h)


# -- every class is classified ------------------------------------------------------------------
def _exported_classes():
    out = set()
    for n in joints.__all__:
        obj = getattr(joints, n)
        # joints only: the velocity-level goal (SpatialMomentumEndEffector) has no Phi
        if isinstance(obj, type) and issubclass(obj, joints.Joint):
            out.add(obj)
            variant = obj.__dict__.get("_spatial_variant")
            if variant is not None:
                out.add(variant)
    return out


MIRRORED = {
    _spatial.SpatialRevolute, _spatial.SpatialPrismatic, _spatial.SpatialFixed,
    joints.Cylindrical, joints.Planar, joints.ParallelAxes,
}

MIRROR_FREE = {
    # abstract bases
    joints.Joint, joints.DriverJoint, joints.EndEffector, joints.LinkJoint,
    # GenericJoint itself has no rows; its subsets are checked in test_generic_joint_every_subset
    joints.GenericJoint,
    # planar: a planar pose cannot be turned over, the angle rows are linear in the angles
    joints.Revolute, joints.Prismatic, joints.Fixed, joints.Distance, joints.PointOnLine,
    joints.Gear, joints.RackPinion,
    # no equations (a limit only)
    joints.DistanceLimit, _limits_only.SpatialDistanceLimit,
    # drivers: linear in a coordinate, an angle (atan2 in space) or a slide, or a distance
    joints.Driver, joints.AngleDriver, joints.SlideDriver, joints.DistanceDriver,
    joints.CoordinateDriver, _spatial.SpatialDriver, _spatial.SpatialAngleDriver,
    _spatial.SpatialSlideDriver, _spatial.SpatialDistanceDriver,
    # spatial without rotation rows, or whose solutions form one connected set
    joints.Spherical, _spatial.SpatialDistance, _spatial.SpatialPointOnLine, joints.PointOnPlane,
    joints.Universal, joints.PerpendicularAxes,
    # angle rows wrap(atan2(...) - s), mesh row linear
    joints.AngleCoupler, _spatial._SharedCarrierCoupler,
    # link joints: 2 v vanishes only at the identity rotation
    joints.RevoluteLink, joints.PrismaticLink, joints.DHLink, joints.CircleJoint,
    joints.SerialChain,
    # end effectors: rotation vectors, atan2, 2 tan(phi / 2) rows, positions, a line, coordinates
    joints.PointEndEffector, joints.FrameEndEffector, joints.DirectionalFrameEndEffector,
    joints.OrientationEndEffector, joints.AccelerometerEndEffector, joints.XEndEffector,
    joints.XYEndEffector, joints.LinearConstraintEndEffector, joints.PointDistanceEndEffector,
    joints.AxisRotateEndEffector, joints.LookAtEndEffector, joints.FreeSpinInZEndEffector,
    joints.SlidingEndEffector, joints.SlideXSpinZEndEffector, joints.PointRotateEndEffector,
    joints.PlanarEndEffector, joints.GeneralSpatialEndEffector, joints.RcmEndEffector,
    joints.CenterOfMassEndEffector, joints.ProjectedCenterOfMassEndEffector,
    joints.SewAngleEndEffector, joints.CoordinatedJointEndEffector,
    joints.OneDofGripperEndEffector,
    # a polynomial in joint coordinates
    joints.CoordinateCoupling,
}


def _overrides(cls) -> bool:
    return cls._mirrored.__func__ is not Joint._mirrored.__func__


def test_every_exported_class_has_the_hook_or_is_listed_mirror_free():
    classes = _exported_classes() | {_spatial._SharedCarrierCoupler}
    assert not MIRRORED & MIRROR_FREE
    unclassified = {c.__name__ for c in classes - MIRRORED - MIRROR_FREE}
    assert not unclassified, f"decide whether these have a mirror: {sorted(unclassified)}"
    for cls in classes:
        assert _overrides(cls) is (cls in MIRRORED), cls.__name__
        if cls in MIRRORED:
            assert cls.mirror_description != Joint.mirror_description


def test_symbolic_catalog_classes():
    mirrored = {catalog.revolute(dim=3)}
    free = {catalog.revolute(), catalog.point_on_line(), catalog.spherical(),
            catalog.circle_joint(), catalog.circle_joint(dim=3), catalog.cam_follower()}
    for cls in mirrored | free:
        assert _overrides(cls) is (cls in mirrored), cls.__name__


def test_default_hook_shape_for_every_slot_kind():
    """The default is all False, shaped like one row per instance (batch axis kept)."""
    rng = np.random.default_rng(7)
    P = np.zeros((2, 5))
    X = random_body_poses(rng, (4, 2))
    out = joints.Spherical._mirrored(P, X, X)
    assert out.shape == (4, 2) and out.dtype == bool and not out.any()
    out = joints.Gear._mirrored(np.zeros((4, 2, 3)), *np.zeros((3, 2, 3)))
    assert out.shape == (4, 2) and not out.any()
    out = joints.CoordinateDriver._mirrored(np.zeros((2, 1)), np.zeros((4, 2, 1)))
    assert out.shape == (4, 2) and not out.any()
    out = joints.RevoluteLink._mirrored(np.zeros((2, 24)), X, X, np.zeros((4, 2, 1)))
    assert out.shape == (4, 2) and not out.any()


def test_is_mirrored_on_joints_of_every_kind():
    """``is_mirrored`` evaluates at the current state for planar, coordinate and link joints."""
    mech = ms.Mechanism()
    crank = mech.add_body("crank")
    pin = mech.add(joints.Revolute(mech.ground, crank))
    assert pin.is_mirrored() is False
    mech3 = ms.Mechanism(dim=3)
    arm = mech3.add_body("arm")
    link = mech3.add(joints.RevoluteLink(mech3.ground, arm))
    drive = mech3.add(joints.CoordinateDriver(link, 0.5))
    assert link.is_mirrored() is False and drive.is_mirrored() is False


# -- the reasons given for some mirror-free classes ----------------------------------------------
def test_half_turns_are_not_roots_of_link_joints_and_orientation_goals():
    mech = ms.Mechanism(dim=3)
    b = mech.add_body("b")
    goals = [
        joints.RevoluteLink(mech.ground, b),
        joints.FrameEndEffector(b, None, target=ms.Frame()),
        joints.DirectionalFrameEndEffector(b, None, target=ms.Frame()),
        joints.OrientationEndEffector(b, None, target=ms.Frame()),
        joints.AccelerometerEndEffector(b, None, target=ms.Frame()),
        joints.SlidingEndEffector(b, None, target=ms.Frame()),
        joints.GeneralSpatialEndEffector(b, None, ms.Frame(), axes=("rx", "ry", "rz")),
    ]
    for h in HALF:
        b.orientation = h
        for g in goals:
            assert np.linalg.norm(g.residual()) > 1.9, (type(g).__name__, h)


def test_directional_goals_have_no_root_pointing_away():
    mech = ms.Mechanism(dim=3)
    b = mech.add_body("b")
    look = joints.LookAtEndEffector(b, None, target=(0, 0, 1))
    spin = joints.FreeSpinInZEndEffector(b, None, target=ms.Frame())
    slide = joints.SlideXSpinZEndEffector(b, None, target=ms.Frame())
    angle = joints.AxisRotateEndEffector(b, None, 0.0)
    for q in (HALF[0], HALF[1], quat_multiply(rot(0, 1e-4), HALF[0])):
        b.orientation = q / np.linalg.norm(q)
        with np.errstate(invalid="ignore", divide="ignore"):
            for g in (look, spin, slide):
                r = g.residual()
                assert not np.all(np.abs(r) < 1e-6), type(g).__name__   # NaN or large
    b.orientation = HALF[2]
    np.testing.assert_allclose(abs(angle.residual()[0]), PI)


@pytest.mark.parametrize("kind", ["universal", "perpendicular", "generic rx", "rcm"])
def test_connected_solution_sets_join_the_two_signs(kind):
    """Universal and single-rotation rows: z2 = y1 and z2 = -y1 are joined by solutions."""
    mech = ms.Mechanism(dim=3)
    b = mech.add_body("b")
    pin2 = ms.Frame((0, 0, 0), ms.Orientation(rot(0, -PI / 2)))   # z axis along +y of b
    if kind == "universal":
        joint = joints.Universal(mech.ground, b, ms.Frame(), pin2)
    elif kind == "perpendicular":
        joint = joints.PerpendicularAxes(mech.ground, b, ms.Frame(), pin2)
    elif kind == "generic rx":
        joint = joints.GenericJoint(mech.ground, b, ms.Frame(), ms.Frame(), components=("rx",))
    else:
        joint = joints.RcmEndEffector(b, None, target=(0, 0, 1))
    for angle in np.linspace(0.0, PI, 13):
        if kind == "rcm":     # turn e_z over about x while the tool origin stays on the line
            q = rot(0, angle)
            b.orientation = q
            b.position = (0, 0, 1) - 0.5 * quat_rotate(q, E[2])
        elif kind == "generic rx":
            b.orientation = rot(1, angle)      # z2 from +z1 through x1 to -z1
        else:
            b.orientation = rot(2, angle)      # about pin 1: z2 from +y1 to -y1
        np.testing.assert_allclose(joint.residual(), 0.0, atol=1e-12)
        assert joint.is_mirrored() is False
