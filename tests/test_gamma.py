"""Analytic acceleration right-hand sides ``gamma`` of every built-in joint and driver.

Two independent checks on random poses, velocities and accelerations (seeded):

* against the base class's numeric ``gamma`` (``Joint._gamma``: Richardson-extrapolated central
  differences of the analytic Jacobian along the motion), to ``TOL_FALLBACK`` relative to
  ``max(1, |gamma|)``;
* against finite differences *in time* of ``Phi`` itself along the motion
  ``q(t) = q0 (+) (nu t + nudot t^2 / 2)`` (positions add, quaternions turn as
  ``exp(omega t + alpha t^2 / 2) q0``, joint coordinates add), for which
  ``Phi'(0) = J nu`` and ``Phi''(0) = J nudot - gamma``; the second derivative is a
  three-level Richardson extrapolation of the central second difference (error of order
  ``h^6``), compared to ``TOL_TIME`` relative to ``max(1, |Phi''|)``.

A last test enumerates the joint classes of the planar, driver and spatial modules and asserts
that each overrides ``_gamma`` and is exercised here, so a new joint without a closed-form
``gamma`` (or without a test) is caught.
"""

import itertools

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints.base import Joint
from mechsolve.spatial._quat import quat_exp, quat_multiply

# The namespaces of the modules defining the joints the package uses. (Taken from the classes,
# not imported by name: pytest may execute a module file a second time to collect its
# doctests, and the copy's classes are not the ones ``mechsolve.joints`` hands out.)
PLANAR = joints.Revolute._evaluate.__func__.__globals__
DRIVERS = joints.Driver._evaluate.__func__.__globals__
SPATIAL = joints.AngleCoupler._evaluate.__func__.__globals__
ANGLE_CLASSES = (joints.AngleCoupler, SPATIAL["SpatialAngleDriver"])

TOL_FALLBACK = 1e-9
#: The numeric fallback's own error on the relative angle atan2(s, c) of the spatial angle
#: drivers reaches ~2e-9 (its fixed step resolves the angle's high derivatives less well);
#: with a finer step it agrees with the closed form to ~1e-10.
TOL_FALLBACK_ANGLE = 1e-8
TOL_TIME = 1e-7
TOL_RATE = 1e-8


# -- instances -------------------------------------------------------------------------------
def planar_instances(rng):
    mech = ms.Mechanism()
    a, b, c = (mech.add_body(n, position=rng.normal(size=2), angle=rng.normal()) for n in "abc")
    g = mech.ground

    def pt():
        return rng.normal(size=2)

    rev = joints.Revolute(a, b, pt(), pt())
    pri = joints.Prismatic(a, b, pt(), pt(), axis=pt(), axis2=pt())
    return [
        rev,
        joints.Revolute(g, b, pt(), pt()),
        pri,
        joints.Prismatic(g, b, pt(), pt(), axis=pt()),
        joints.Fixed(a, b, pt(), pt(), angle=rng.normal()),
        joints.Fixed(g, b, pt(), pt()),
        joints.Distance(a, b, pt(), pt(), length=1.3),
        joints.PointOnLine(a, b, pt(), pt(), axis=pt()),
        joints.Gear(a, b, 0.7, 1.9, carrier=c),
        joints.Gear(a, b, 0.7, 1.9, internal=True),
        joints.RackPinion(a, b, 0.8, pt(), pt(), axis=pt()),
        joints.Driver(a, "x", 0.3),
        joints.Driver(b, "angle", 0.3),
        joints.AngleDriver(rev, 0.4),
        joints.SlideDriver(pri, 0.4),
        joints.DistanceDriver(a, c, pt(), pt(), 2.0),
    ]


def random_frame(rng):
    return ms.Frame(rng.normal(size=3), ms.Orientation(quat_exp(rng.normal(size=3))))


def spatial_instances(rng):
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a", position=rng.normal(size=3))
    b = mech.add_body("b", position=rng.normal(size=3))
    g = mech.ground

    def f():
        return random_frame(rng)

    rev = joints.Revolute(a, b, f(), f())
    pri = joints.Prismatic(a, b, f(), f())
    cyl = joints.Cylindrical(a, b, f(), f())
    out = [
        joints.Spherical(a, b, f(), f()),
        joints.Spherical(g, b, f(), f()),
        rev,
        joints.Revolute(g, b, f(), f()),
        pri,
        cyl,
        joints.Universal(a, b, f(), f()),
        joints.Planar(a, b, f(), f()),
        joints.Fixed(a, b, f(), f()),
        joints.Distance(a, b, rng.normal(size=3), rng.normal(size=3), 1.7),
        joints.PointOnLine(a, b, f(), f()),
        joints.PointOnPlane(a, b, f(), f()),
        joints.ParallelAxes(a, b, f(), f()),
        joints.PerpendicularAxes(a, b, f(), f()),
        joints.Driver(a, "z", 0.3),
        joints.AngleDriver(rev, 0.4),
        joints.AngleDriver(cyl, -2.0),
        joints.SlideDriver(pri, 0.4),
        joints.SlideDriver(cyl, -0.3),
        joints.DistanceDriver(a, b, rng.normal(size=3), rng.normal(size=3), 2.0),
    ]
    # a GenericJoint for every subset of the six components (covers every component kind)
    names = ("x", "y", "z", "rx", "ry", "rz")
    for n in range(1, 7):
        for rows in itertools.combinations(names, n):
            out.append(joints.GenericJoint(a, b, f(), f(), components=rows))
    return out


def coupler_instances():
    out = []
    for shared in (False, True):
        mech = ms.Mechanism(dim=3)
        carrier = mech.add_body("carrier") if shared else mech.ground
        a = mech.add_body("a")
        b = mech.add_body("b", position=(2, 0, 0))
        ra = joints.Revolute(carrier, a, (0, 0, 0), (0, 0, 0), axis=(0, 0, 1))
        rb = joints.Revolute(carrier, b, (2, 0, 0), (0, 0, 0), axis=(0.3, 0, 1))
        out.append(joints.AngleCoupler(ra, rb, -2.0))
    out.append(joints.CoordinateDriver(out[0], 0.3, index=1))
    return out


INSTANCES = (planar_instances(np.random.default_rng(1)) + spatial_instances(
    np.random.default_rng(2)) + coupler_instances())


def _id(joint):
    return type(joint).__name__


# -- motion helpers --------------------------------------------------------------------------
def _angle_conditioning(joint, X):
    """``s^2 + c^2`` of every relative angle ``atan2(s, c)`` the joint measures (else 1).

    ``s`` and ``c`` are the components of ``x_2`` in the plane normal to ``z_1``; on an
    assembled revolute ``s^2 + c^2 = 1``.
    """
    cls = type(joint)
    if isinstance(joint, joints.AngleCoupler):
        i1, o1, i2, o2 = cls._split(X[:-1])
        pairs = [(joint._p[0:14], i1, o1), (joint._p[14:28], i2, o2)]
    elif isinstance(joint, SPATIAL["SpatialAngleDriver"]):
        pairs = [(joint._p, *X)]
    else:
        return np.ones(X[0].shape[:-1])
    out = []
    for P, X1, X2 in pairs:
        A1 = SPATIAL["_axes"](X1, P[3:7])
        x2 = SPATIAL["_axes"](X2, P[10:14])[..., :, 0]
        out.append(np.sum(A1[..., :, 0] * x2, -1) ** 2 + np.sum(A1[..., :, 1] * x2, -1) ** 2)
    return np.minimum.reduce(out)


def random_state(joint, rng, batch=(3, 1)):
    """Random poses, velocities and accelerations of every slot (ground at rest at the origin).

    For the spatial angle drivers and the angle coupler, poses where frame 2's x axis is within
    about 18 degrees of frame 1's z axis (``s^2 + c^2 < 0.1``, near the singularity of the
    angle measurement) are drawn again: there the angle's high time derivatives grow like
    ``1 / (s^2 + c^2)^k`` and the finite differences, not the closed form, lose accuracy.
    """
    X, V, A = _random_state(joint, rng, batch)
    bad = _angle_conditioning(joint, X) < 0.1
    while np.any(bad):
        new = _random_state(joint, rng, batch)
        for old, fresh in zip((X, V, A), new):
            for x, y in zip(old, fresh):
                x[bad] = y[bad]
        bad = _angle_conditioning(joint, X) < 0.1
    return X, V, A


def _random_state(joint, rng, batch):
    X, V, A = [], [], []
    for body in joint.bodies:
        if joint.dim == 2:
            x = rng.normal(size=batch + (3,)) * [2.0, 2.0, np.pi]
            v = rng.normal(size=batch + (3,))
            acc = rng.normal(size=batch + (3,))
        else:
            x = np.empty(batch + (7,))
            x[..., :3] = rng.normal(size=batch + (3,))
            x[..., 3:] = quat_exp(2.0 * rng.normal(size=batch + (3,)))
            v = rng.normal(size=batch + (6,))
            acc = rng.normal(size=batch + (6,))
        if body.is_ground:
            x[...] = 0.0
            if joint.dim == 3:
                x[..., 3] = 1.0
            v[...] = 0.0
            acc[...] = 0.0
        X.append(x)
        V.append(v)
        A.append(acc)
    if joint._coordinate_slot:
        r = len(joint._coord_refs)
        X.append(rng.normal(size=batch + (r,)))
        V.append(rng.normal(size=batch + (r,)))
        A.append(rng.normal(size=batch + (r,)))
    return X, V, A


def moved(X, V, A, t, n_bodies):
    """Slots at time ``t`` along ``q0 (+) (nu t + nudot t^2 / 2)``."""
    out = []
    for s, (x, v, a) in enumerate(zip(X, V, A)):
        step = v * t + a * (t * t / 2)
        if s >= n_bodies or x.shape[-1] == 3:
            out.append(x + step)
        else:
            y = np.empty_like(x)
            y[..., :3] = x[..., :3] + step[..., :3]
            y[..., 3:] = quat_multiply(quat_exp(step[..., 3:]), x[..., 3:])
            out.append(y)
    return out


def _wrap(a):
    return np.remainder(a + np.pi, 2 * np.pi) - np.pi


def time_derivatives(cls, P, X, V, A, n_bodies, h=0.01):
    """``(Phi'(0), Phi''(0))`` along the motion by Richardson-extrapolated central differences.

    Differences of ``Phi`` are wrapped to ``(-pi, pi]`` (the angle drivers' residuals are
    wrapped; along these short steps no other row changes by anywhere near ``pi``).
    """
    phi0 = cls._phi(P, *X)

    def delta(t):
        return _wrap(cls._phi(P, *moved(X, V, A, t, n_bodies)) - phi0)

    def levels(step):
        plus, minus = delta(step), delta(-step)
        return (plus - minus) / (2 * step), (plus + minus) / step**2

    d1, d2 = zip(*(levels(h / 2**i) for i in range(3)))
    first = [(4 * d1[i + 1] - d1[i]) / 3 for i in range(2)]
    second = [(4 * d2[i + 1] - d2[i]) / 3 for i in range(2)]
    return (16 * first[1] - first[0]) / 15, (16 * second[1] - second[0]) / 15


def jv(blocks, V):
    return sum(np.einsum("...ij,...j->...i", J, v) for J, v in zip(blocks, V))


# -- tests -----------------------------------------------------------------------------------
@pytest.mark.parametrize("index", range(len(INSTANCES)),
                         ids=[f"{i}-{_id(j)}" for i, j in enumerate(INSTANCES)])
def test_gamma_matches_numeric_fallback(index):
    joint = INSTANCES[index]
    cls = type(joint)
    rng = np.random.default_rng(1000 + index)
    P = joint._p[None, :]
    tol = TOL_FALLBACK_ANGLE if isinstance(joint, ANGLE_CLASSES) else TOL_FALLBACK
    for _ in range(3):
        X, V, _ = random_state(joint, rng)
        gamma = cls._gamma(P, *X, *V)
        assert gamma.shape == (3, 1, joint.n_equations)
        numeric = Joint._gamma.__func__(cls, P, *X, *V)
        err = np.abs(gamma - numeric) / np.maximum(1.0, np.abs(numeric))
        assert np.max(err) <= tol, (cls.__name__, np.max(err))


@pytest.mark.parametrize("index", range(len(INSTANCES)),
                         ids=[f"{i}-{_id(j)}" for i, j in enumerate(INSTANCES)])
def test_gamma_matches_finite_differences_in_time(index):
    joint = INSTANCES[index]
    cls = type(joint)
    rng = np.random.default_rng(2000 + index)
    P = joint._p[None, :]
    n_bodies = len(joint.bodies)
    for _ in range(3):
        X, V, A = random_state(joint, rng)
        _, blocks = cls._evaluate(P, *X)
        fd1, fd2 = time_derivatives(cls, P, X, V, A, n_bodies)
        rate = jv(blocks, V)
        assert np.max(np.abs(rate - fd1) / np.maximum(1.0, np.abs(fd1))) <= TOL_RATE
        expected = jv(blocks, A) - cls._gamma(P, *X, *V)
        err = np.abs(expected - fd2) / np.maximum(1.0, np.abs(fd2))
        assert np.max(err) <= TOL_TIME, (cls.__name__, np.max(err))


def test_gamma_broadcasts_over_a_batch_of_instances():
    rng = np.random.default_rng(5)
    for joint in (INSTANCES[2], INSTANCES[-3]):
        cls = type(joint)
        P = np.stack([joint._p] * 4)
        X, V, _ = random_state(joint, rng, batch=(2, 4))
        gamma = cls._gamma(P, *X, *V)
        for k in range(4):
            one = cls._gamma(P[k:k + 1], *(x[:, k:k + 1] for x in X),
                             *(v[:, k:k + 1] for v in V))
            np.testing.assert_allclose(gamma[:, k:k + 1], one, rtol=0, atol=1e-15)


def test_gamma_is_zero_at_rest():
    rng = np.random.default_rng(6)
    for joint in INSTANCES:
        X, V, _ = random_state(joint, rng)
        V = [np.zeros_like(v) for v in V]
        assert np.all(type(joint)._gamma(joint._p[None], *X, *V) == 0.0), _id(joint)


def _joint_classes():
    """Joint classes defined in the planar, driver and spatial modules (and GenericJoint's)."""
    found = set(SPATIAL["_GENERIC_CLASSES"].values())
    for ns in (PLANAR, DRIVERS, SPATIAL):
        found.update(v for v in ns.values() if isinstance(v, type) and issubclass(v, Joint)
                     and v.__module__ == ns["__name__"])
    return found


def test_every_built_in_joint_has_an_analytic_gamma_and_is_tested():
    # dispatchers that are never instantiated themselves
    abstract = {SPATIAL["_FrameJoint"], joints.GenericJoint}
    classes = _joint_classes() - abstract
    assert len(classes) >= 30
    base = Joint._gamma.__func__
    fallback = sorted(c.__name__ for c in classes if c._gamma.__func__ is base)
    assert not fallback, f"joints using the numeric gamma: {fallback}"
    tested = {type(j) for j in INSTANCES}
    untested = sorted(c.__name__ for c in classes if c not in tested)
    assert not untested, f"joint classes without a gamma test here: {untested}"
