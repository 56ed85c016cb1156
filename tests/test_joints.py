"""Analytic Jacobians of every planar joint and driver against finite differences."""

import numpy as np

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


