"""Analytic Jacobians of every planar joint and driver against finite differences."""

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints


def _instances(rng):
    mech = ms.Mechanism()
    a = mech.add_body("a", position=rng.normal(size=2), angle=rng.normal())
    b = mech.add_body("b", position=rng.normal(size=2), angle=rng.normal())
    c = mech.add_body("c", position=rng.normal(size=2), angle=rng.normal())
    g = mech.ground

    def pt():
        return rng.normal(size=2)

    rev = joints.Revolute(a, b, pt(), pt())
    pri = joints.Prismatic(a, b, pt(), pt(), axis=pt(), axis2=pt())
    return [
        rev,
        joints.Revolute(g, b, pt(), pt()),
        pri,
        joints.Fixed(a, b, pt(), pt(), angle=rng.normal()),
        joints.Distance(a, b, pt(), pt(), length=1.3),
        joints.PointOnLine(a, b, pt(), pt(), axis=pt()),
        joints.Gear(a, b, 0.7, 1.9, carrier=c),
        joints.Gear(a, b, 0.7, 1.9, internal=True, carrier=c),
        joints.RackPinion(a, b, 0.8, pt(), pt(), axis=pt()),
        joints.Driver(a, "x", 0.3),
        joints.Driver(b, "angle", 0.3),
        joints.AngleDriver(rev, 0.4),
        joints.SlideDriver(pri, 0.4),
        joints.DistanceDriver(a, c, pt(), pt(), 2.0),
    ]


@pytest.mark.parametrize("index", range(14))
def test_jacobian_matches_finite_differences(index):
    rng = np.random.default_rng(index)
    joint = _instances(rng)[index]
    cls = type(joint)
    P = joint._p[None, :]
    for trial in range(5):
        X = [rng.normal(size=(4, 1, 3)) * [2.0, 2.0, np.pi] for _ in joint.bodies]
        phi, blocks = cls._evaluate(P, *X)
        assert phi.shape == (4, 1, joint.n_equations)
        np.testing.assert_allclose(phi, cls._phi(P, *X), rtol=0, atol=1e-14)
        numeric = cls._numeric_jacobian(P, *X)
        for J, Jn in zip(blocks, numeric):
            assert J.shape == (4, 1, joint.n_equations, 3)
            scale = np.maximum(1.0, np.abs(Jn))
            assert np.all(np.abs(J - Jn) <= 1e-7 * scale), (cls.__name__, trial)


def test_batch_axis_agrees_with_single_evaluation():
    rng = np.random.default_rng(7)
    joint = _instances(rng)[2]
    cls = type(joint)
    P = np.stack([joint._p] * 3)
    X1 = rng.normal(size=(5, 3, 3))
    X2 = rng.normal(size=(5, 3, 3))
    phi, blocks = cls._evaluate(P, X1, X2)
    for b in range(5):
        for k in range(3):
            p1, b1 = cls._evaluate(P[k:k + 1], X1[b, k:k + 1], X2[b, k:k + 1])
            np.testing.assert_array_equal(phi[b, k], p1[0])
            for J, J1 in zip(blocks, b1):
                np.testing.assert_array_equal(J[b, k], J1[0])


def test_system_jacobian_matches_finite_differences():
    rng = np.random.default_rng(3)
    model = ms.models.quick_return()
    mech = model.mechanism
    system = mech.system()
    for _ in range(3):
        q = mech.state + rng.normal(scale=0.3, size=mech.n_coordinates)
        _, vals = system.evaluate(q)
        J = system.jacobian_dense(vals)
        np.testing.assert_array_equal(J, system.jacobian_sparse(vals).toarray())
        Jn = np.empty_like(J)
        for i in range(q.size):
            e = np.zeros(q.size)
            e[i] = 1e-6
            Jn[:, i] = (system.phi(q + e) - system.phi(q - e)) / 2e-6
        np.testing.assert_allclose(J, Jn, atol=1e-7)


def test_numeric_fallback_for_a_joint_written_with_phi_alone():
    class PointOnCircle(joints.Joint):
        """Point of body 2 on a circle of radius P[2] about point P[0:2] of ground."""

        n_equations = 1

        def __init__(self, body, centre, radius):
            super().__init__((body,), [*centre, radius])

        @classmethod
        def _phi(cls, P, X):
            d = X[..., :2] - P[..., :2]
            return (np.sqrt(np.sum(d * d, axis=-1)) - P[..., 2])[..., None]

    mech = ms.Mechanism()
    b = mech.add_body("b", position=(1.0, 0.2))
    mech.add(PointOnCircle(b, (0.0, 0.0), 2.0))
    mech.add(joints.Driver(b, "y", 1.0))
    mech.add(joints.Driver(b, "angle", 0.0))
    result = mech.solve()
    assert result.success
    np.testing.assert_allclose(b.position, [np.sqrt(3.0), 1.0], atol=1e-10)


@pytest.mark.parametrize("index", range(14))
def test_gamma_matches_derivative_of_jacobian(index):
    from mechsolve.joints.base import _advance

    rng = np.random.default_rng(50 + index)
    joint = _instances(rng)[index]
    cls = type(joint)
    P = joint._p[None, :]
    X = [rng.normal(size=(2, 1, 3)) for _ in joint.bodies]
    V = [rng.normal(size=(2, 1, 3)) for _ in joint.bodies]
    h = 1e-5
    Jp = cls._evaluate(P, *(_advance(x, v, h) for x, v in zip(X, V)))[1]
    Jm = cls._evaluate(P, *(_advance(x, v, -h) for x, v in zip(X, V)))[1]
    expected = -sum(np.einsum("...ij,...j->...i", a - b, v) for a, b, v in zip(Jp, Jm, V)) / (2 * h)
    np.testing.assert_allclose(cls._gamma(P, *X, *V), expected, atol=1e-6)
