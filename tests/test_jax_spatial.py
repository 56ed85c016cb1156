"""Spatial mechanisms on the JAX backend: the spatial joints' kernels and the quaternion kernels
written once over the array namespace, traced; ``mech.solve_batch(..., backend="jax")`` on the
Bricard linkage (redundant: least squares), the Stewart platform and an RSSR four-bar against
NumPy's batch (the same items, the same iterations) and the closed forms, in micrometres and
kilometres and far from the origin; float32 within its stated accuracy.

JAX compiles once per structure and batch size: every batch of one model here has ``B`` items.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.models import spatial as sm
from mechsolve.spatial import _quat

jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra: pip install "
                          "'mechsolve[jax]'")
jnp = jax.numpy

B = 8   # items per batch (one compile per model)
UNITS = [(1.0, (0.0, 0.0, 0.0)), (1e-6, (3e-3, -1e-3, 2e-3)), (1e3, (4e6, -2e6, 1e6))]


def _x64():
    from mechsolve._jax.sweep import _x64 as scoped

    return scoped(jax)


def scaled(model, unit, origin):
    """``model`` with every length times ``unit`` and ground's points moved by ``origin``
    (the bodies' positions likewise), solved there."""
    mech = model.mechanism
    o = np.asarray(origin, dtype=float)
    new = {}
    for name, value in mech.parameters().items():
        joint, part = name.rsplit(".", 1)
        if part in ("point1", "point2", "length"):
            value = np.asarray(value) * unit
            j = mech.joint(joint)
            if part != "length" and j.bodies[int(part[-1]) - 1].is_ground:
                value = value + o
            new[name] = value
    mech.set_parameters(new)
    q = mech.state
    Q = q.reshape(-1, 7)
    Q[:, :3] = Q[:, :3] * unit + o
    mech.state = q
    mech.solve()
    return model


def wrap(a):
    return np.remainder(np.asarray(a) + np.pi, 2 * np.pi) - np.pi


def same_batch(out, ref, size):
    """The JAX batch is NumPy's: every item decided on the device, the same successes and
    iterations, the states to 1e-12 of the model's size (positions; quaternions as they are,
    their sign fixed by the retraction from the same start)."""
    assert out.backend == "jax" and out.handed_over.size == 0
    assert np.array_equal(out.success, ref.success) and out.success.all()
    assert np.array_equal(out.iterations, ref.iterations)
    d = np.abs(out.states - ref.states).reshape(B, -1, 7)
    assert d[..., :3].max() <= 1e-12 * size and d[..., 3:].max() <= 1e-12


# -- kernels -------------------------------------------------------------------------------------
def test_quaternion_kernels_take_the_namespace_of_their_arguments():
    rng = np.random.default_rng(4)
    q = _quat.quat_normalize(rng.normal(size=(5, 4)))
    v = rng.normal(size=(5, 3))
    w = rng.normal(size=(5, 3)) * [[1.0], [1e-5], [0.0], [3.0], [1e-9]]   # the exp's series
    pairs = [(_quat.quat_multiply, (q, q[::-1])), (_quat.quat_rotate, (q, v)),
             (_quat.quat_rotate_inverse, (q, v)), (_quat.quat_to_matrix, (q,)),
             (_quat.quat_exp, (w,)), (_quat.quat_log, (q,)), (_quat.quat_normalize, (2 * q,)),
             (_quat.quat_conjugate, (q,)), (_quat.cross, (v, w))]
    with _x64():
        for f, args in pairs:
            ref = f(*args)
            got = f(*[jnp.asarray(a) for a in args])
            assert isinstance(ref, np.ndarray) and isinstance(got, jax.Array), f.__name__
            np.testing.assert_allclose(np.asarray(got), ref, rtol=0, atol=4e-16,
                                       err_msg=f.__name__)
        assert _quat.namespace(q, jnp.asarray(v)) is jnp and _quat.namespace(q, [1.0]) is np


def every_traced_joint():
    """A spatial mechanism (not assembled) with one joint of every class the backend traces
    for spatial mechanisms, each between moving bodies and once against ground."""
    mech = ms.Mechanism(dim=3)
    g = mech.ground
    rng = np.random.default_rng(1)
    b = [mech.add_body(f"b{i}", position=rng.normal(size=3),
                       orientation=ms.Orientation.from_angle_axis(1.0 + i, rng.normal(size=3)))
         for i in range(3)]

    def frame():
        return ms.Frame(rng.normal(size=3),
                        ms.Orientation.from_angle_axis(rng.uniform(0, 3), rng.normal(size=3)))

    mech.add(joints.Spherical(g, b[0], frame(), frame()))
    rev = mech.add(joints.Revolute(b[0], b[1], frame(), frame()))
    pri = mech.add(joints.Prismatic(b[1], b[2], frame(), frame()))
    cyl = mech.add(joints.Cylindrical(b[2], b[0], frame(), frame()))
    mech.add(joints.Universal(b[1], b[2], frame(), frame()))
    mech.add(joints.Fixed(g, b[2], frame(), frame()))
    mech.add(joints.Distance(b[0], b[2], rng.normal(size=3), rng.normal(size=3), 1.7))
    mech.add(joints.DistanceDriver(g, b[1], rng.normal(size=3), rng.normal(size=3), 2.1))
    mech.add(joints.Driver(b[1], "y", 0.3))
    mech.add(joints.AngleDriver(rev, 0.4))
    mech.add(joints.AngleDriver(cyl, -2.0))
    mech.add(joints.SlideDriver(pri, 0.2))
    mech.add(joints.SlideDriver(cyl, -0.5))
    for cls in (joints.Planar, joints.PointOnPlane, joints.ParallelAxes,
                joints.PerpendicularAxes):
        mech.add(cls(b[0], b[2], frame(), frame()))
    mech.add(joints.PointOnLine(g, b[1], frame(), frame()))
    mech.add(joints.GenericJoint(b[1], b[0], frame(), frame(), components=("x", "z", "rz")))
    return mech


def test_traced_spatial_system_is_numpy_s():
    """Phi, the dense Jacobian and the retraction of the traced system equal NumPy's
    ``System`` at random poses (large rotations, small ones for the exponential's series)."""
    from mechsolve._jax.system import TracedSystem

    mech = every_traced_joint()
    sys = mech.system()
    assert {g.cls.__name__ for g in sys.groups} >= {
        "Spherical", "SpatialRevolute", "SpatialPrismatic", "Cylindrical", "Universal",
        "SpatialFixed", "SpatialDistance", "SpatialDistanceDriver", "SpatialDriver",
        "SpatialAngleDriver", "SpatialSlideDriver", "Planar", "PointOnPlane", "ParallelAxes",
        "PerpendicularAxes", "SpatialPointOnLine"}
    traced = TracedSystem(sys)
    rng = np.random.default_rng(2)
    q0 = mech.state
    dq = rng.normal(size=(6, sys.n)) * np.array([[2.0], [1e-6], [0.3], [1e-10], [1.0], [0.0]])
    Q = sys.retract(q0[None], dq)
    with _x64():
        Ps = [jnp.asarray(g.P) for g in sys.groups]
        ev = jax.jit(jax.vmap(lambda q: traced.evaluate(jnp, q, Ps)))
        F, J = (np.asarray(a) for a in ev(jnp.asarray(Q)))
        R = np.asarray(jax.jit(jax.vmap(lambda x, d: traced.retract(jnp, x, d)))(
            jnp.asarray(np.repeat(q0[None], 6, 0)), jnp.asarray(dq)))
        # float32 stays float32 (no float64 constant promotes the trace: JAX warns where a
        # float64 value is written into a float32 array)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            F32, J32 = jax.eval_shape(ev, jax.ShapeDtypeStruct(Q.shape, jnp.float32))
        assert F32.dtype == J32.dtype == jnp.float32
    F_ref, V_ref = sys.evaluate(Q)
    np.testing.assert_allclose(F, F_ref, rtol=0, atol=1e-14)
    np.testing.assert_allclose(J, sys.jacobian_dense(V_ref), rtol=0, atol=1e-14)
    np.testing.assert_allclose(R, Q, rtol=0, atol=1e-15)


def test_joints_the_backend_cannot_trace_are_named():
    mech = ms.Mechanism(dim=3)
    ball = mech.add_body("ball", position=(0.0, 0.0, 1.0))
    r1 = mech.add(joints.Revolute(mech.ground, ball, ms.Frame(), ms.Frame((0, 0, -1))))
    other = mech.add_body("other", position=(1.0, 0.0, 1.0))
    r2 = mech.add(joints.Revolute(mech.ground, other, ms.Frame((1, 0, 0)),
                                  ms.Frame((0, 0, -1))))
    mech.add(joints.AngleCoupler(r1, r2, 2.0, name="gears"))
    with pytest.raises(TypeError, match=r"no traceable kernel for joint 'gears' \(class "
                                        r"AngleCoupler\); for spatial mechanisms it supports "
                                        r"Cylindrical, .*Universal \(use backend=\"numpy\"\)"):
        mech.solve_batch(np.repeat(mech.state[None], 2, axis=0), backend="jax")


# -- solve_batch ---------------------------------------------------------------------------------
def test_bricard_redundant_loop_on_jax_is_numpy_s_and_line_symmetric():
    """Bricard's linkage has one redundant equation: the device takes NumPy's least-squares
    step at every iteration; the poses keep the loop's line symmetry (joint i and joint i + 3
    turn alike) and the driven joint's angle."""
    model = sm.bricard()
    mech = model.mechanism
    values = np.linspace(0.05, 0.6, B)
    ref = mech.solve_batch(values={model.driver: values})
    out = mech.solve_batch(values={model.driver: values}, backend="jax")
    same_batch(out, ref, 1.0)
    revolutes = [mech.joint(f"R{i}") for i in range(1, 7)]
    angles = []
    for q in out.states:
        mech.state = q
        angles.append([j.angle() for j in revolutes])
    A = np.array(angles)
    np.testing.assert_allclose(wrap(A[:, 0] - values), 0.0, atol=1e-12)
    np.testing.assert_allclose(wrap(A[:, :3] - A[:, 3:]), 0.0, atol=1e-11)


@pytest.mark.parametrize("unit, origin", UNITS)
def test_stewart_platform_on_jax_meets_its_inverse_kinematics(unit, origin):
    """Leg lengths of known platform poses (:func:`models.spatial.stewart_legs`): the batch
    finds those poses, to 1e-12 of the platform's size, in any unit and far from the
    origin."""
    model = scaled(sm.stewart(), unit, origin)
    mech = model.mechanism
    rng = np.random.default_rng(5)
    targets = [ms.Frame((rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), 2.0 + rng.uniform(
        -0.2, 0.2)), ms.Orientation.from_euler321(*rng.uniform(-0.15, 0.15, 3)))
        for _ in range(B)]
    legs = np.array([sm.stewart_legs(t) for t in targets]) * unit
    params = {f"leg{i + 1}.length": legs[:, i] for i in range(6)}
    ref = mech.solve_batch(params=params)
    out = mech.solve_batch(params=params, backend="jax")
    same_batch(out, ref, unit)
    o = np.asarray(origin)
    for q, t in zip(out.states, targets):
        assert np.max(np.abs(q[:3] - (o + unit * t.translation))) <= 1e-12 * unit
        exact = t.orientation.quaternion
        assert min(np.abs(q[3:7] - exact).max(), np.abs(q[3:7] + exact).max()) <= 1e-12


def rssr_rocker_angles(model, states):
    out = []
    for q in states:
        model.mechanism.state = q
        out.append(model.output_joint.angle())
    return np.array(out) + model.phi0


@pytest.mark.parametrize("unit, origin", UNITS)
def test_rssr_on_jax_meets_the_closed_form(unit, origin):
    model = scaled(sm.rssr(), unit, origin)
    mech = model.mechanism
    theta = np.linspace(0.1, 0.8, B)
    ref = mech.solve_batch(values={model.driver: theta})
    out = mech.solve_batch(values={model.driver: theta}, backend="jax")
    same_batch(out, ref, unit)
    exact = sm.rssr_output(theta)
    assert np.max(np.abs(wrap(rssr_rocker_angles(model, out.states) - exact))) <= 1e-12


def test_stewart_platform_on_jax_in_float32():
    """float32: ``tol`` raised to 64 eps (7.6e-6): the platform's pose within 1e-5 of the
    poses the legs were made from (the NumPy path finishes any item handed over, as judged
    against that tol)."""
    model = sm.stewart()
    mech = model.mechanism
    rng = np.random.default_rng(6)
    targets = [ms.Frame((rng.uniform(-0.2, 0.2), rng.uniform(-0.2, 0.2), 2.0 + rng.uniform(
        -0.2, 0.2)), ms.Orientation.from_euler321(*rng.uniform(-0.15, 0.15, 3)))
        for _ in range(B)]
    legs = np.array([sm.stewart_legs(t) for t in targets])
    out = mech.solve_batch(params={f"leg{i + 1}.length": legs[:, i] for i in range(6)},
                           backend="jax", dtype="float32")
    assert out.dtype == "float32" and out.success.all()
    for q, t in zip(out.states, targets):
        assert np.max(np.abs(q[:3] - t.translation)) <= 1e-5
        exact = t.orientation.quaternion
        assert min(np.abs(q[3:7] - exact).max(), np.abs(q[3:7] + exact).max()) <= 1e-5


def test_under_driven_systems_take_least_squares_on_jax_as_on_numpy():
    """A system with fewer equations than unknowns (a crank without its driver) takes the
    minimum-norm least-squares step on the device, as NumPy's batch: the same poses."""
    mech = ms.Mechanism()
    crank = mech.add_body("crank", position=(1.0, 0.0))
    mech.add(joints.Revolute(mech.ground, crank, (0.0, 0.0), (-1.0, 0.0)))
    rng = np.random.default_rng(3)
    starts = np.repeat(mech.state[None], B, axis=0) + rng.uniform(-0.2, 0.2, (B, 3))
    ref = mech.solve_batch(starts)
    out = mech.solve_batch(starts, backend="jax")
    assert out.backend == "jax" and out.handed_over.size == 0 and out.success.all()
    assert np.array_equal(out.iterations, ref.iterations)
    np.testing.assert_allclose(out.states, ref.states, rtol=0, atol=1e-14)
    # on the pin's circle: the crank's origin one unit from ground's pin, along its x axis
    x, y, t = out.states.T
    np.testing.assert_allclose(np.hypot(x, y), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(wrap(np.arctan2(y, x) - t), 0.0, atol=1e-14)
