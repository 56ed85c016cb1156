"""Symbolic joints get the kernel written once (``_terms``, see ``mechsolve.joints._terms``):
generated with their NumPy kernels, for planar joints without own coordinates, in the array
namespace it is given, so that the JAX backend traces a user's joint as it traces the
built-in ones (issue 28 item 1: "symbolic joints made by users get the same treatment at run
time")."""

from __future__ import annotations

import numpy as np
import pytest
import sympy as sp
from test_symbolic import _time_dependent  # a time-dependent planar joint of one body

import mechsolve as ms
from mechsolve.joints._terms import evaluate_arrays
from mechsolve.symbolic import body_symbols, catalog, symbolic_joint


def _piecewise():
    """A planar joint whose Phi has a Piecewise and a constant row of its Jacobian."""
    b1, b2 = body_symbols(2)
    k = sp.Symbol("k")
    gap = b1.x - b2.x
    return symbolic_joint("TermsPiecewise", bodies=[b1, b2], params=[k],
                          phi=[sp.Piecewise((k * gap, gap > 0), (gap, True)) + b1.y,
                               b2.y - b1.theta])


PLANAR = {"revolute": catalog.revolute, "point_on_line": catalog.point_on_line,
          "wobble": _time_dependent, "piecewise": _piecewise}


@pytest.mark.parametrize("which", sorted(PLANAR))
def test_terms_are_the_numpy_kernels(which):
    cls = PLANAR[which]()
    assert cls._terms is not None
    rng = np.random.default_rng(7)
    n = len(cls.definition.bodies)
    P = rng.normal(size=(5, len(cls.params) + cls.time_dependent))
    X = [rng.normal(size=(5, 3)) * [2.0, 2.0, np.pi] for _ in range(n)]
    phi, blocks = cls._evaluate(P, *X)
    phi_t, blocks_t = evaluate_arrays(cls, *cls._terms(np, P, *X))
    # the same printed expressions: equal to round-off (NumPy's SIMD lanes)
    np.testing.assert_allclose(phi_t, phi, rtol=1e-14, atol=1e-14)
    assert len(blocks_t) == len(blocks) == n
    for J, Jt in zip(blocks, blocks_t):
        np.testing.assert_allclose(Jt, J, rtol=1e-14, atol=1e-14)
    values, none = cls._terms(np, P, *X, jacobian=False)
    assert none is None and values[0].shape == (5,)


def test_joints_with_own_coordinates_or_spatial_have_no_terms():
    # the contract of _terms is planar poses only (and no joint coordinates)
    assert catalog.circle_joint()._terms is None          # an own coordinate
    assert catalog.revolute(dim=3)._terms is None         # spatial


def _fourbar_with_symbolic_pin(unit=1.0, origin=(0.0, 0.0)):
    """The README four-bar (a = 1, b = 3, c = 3.5, d = 4 times ``unit``, crank pivot at
    ``origin``) with its coupler-rocker pin a symbolic revolute."""
    sym = catalog.revolute()
    o = np.asarray(origin, dtype=float)
    mech = ms.Mechanism()
    g = mech.ground
    crank = mech.add_body("crank", position=o + unit * np.array([0.0, 0.5]), angle=np.pi / 2)
    coupler = mech.add_body("coupler", position=o + unit * np.array([1.2, 2.3]), angle=0.4)
    rocker = mech.add_body("rocker", position=o + unit * np.array([3.4, 1.7]), angle=1.2)
    J = ms.joints
    mech.add(J.Revolute(g, crank, o, (-0.5 * unit, 0.0), name="O2"))
    mech.add(J.Revolute(crank, coupler, (0.5 * unit, 0.0), (-1.5 * unit, 0.0), name="A"))
    mech.add(sym(coupler, rocker, p1x=1.5 * unit, p2x=1.75 * unit, name="B"))
    mech.add(J.Revolute(g, rocker, o + (4.0 * unit, 0.0), (-1.75 * unit, 0.0), name="O4"))
    motor = mech.add(J.Driver(crank, "angle", np.pi / 2, name="motor"))
    mech.solve()
    return mech, motor


@pytest.mark.parametrize("unit, origin", [(1.0, (0.0, 0.0)), (1e-6, (0.0, 0.0)),
                                          (1e3, (3e6, -2e6))])
def test_a_symbolic_joint_solves_in_batches_on_jax(unit, origin):
    jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    del jax
    mech, motor = _fourbar_with_symbolic_pin(unit, origin)
    rng = np.random.default_rng(11)
    t = rng.uniform(0.0, 2.0 * np.pi, 24)
    ref = mech.solve_batch(params={"motor.value": t})
    out = mech.solve_batch(params={"motor.value": t}, backend="jax")
    # traced on the device (an item whose start is half a turn away needs damping that the
    # device leaves to the NumPy path: one of the 24 when this was written)
    assert out.backend == "jax" and out.handed_over.size <= 2
    assert out.success.all() and np.array_equal(out.success, ref.success)
    assert np.array_equal(out.iterations, ref.iterations)
    # the rocker pin from the poses themselves, against the two-circle closed form
    a, b, c, d = 1.0 * unit, 3.0 * unit, 3.5 * unit, 4.0 * unit
    o = np.asarray(origin)
    far = max(1.0, np.max(np.abs(o)) / d)
    sizes = np.ones(mech.state.size)       # positions in units of the size, angles in radians
    for body in mech.bodies:
        sizes[mech.layout.position_slice(body)] = d * far
    assert np.max(np.abs(out.states - ref.states) / sizes) <= 1e-12
    for k in range(len(t)):
        A = o + a * np.array([np.cos(t[k]), np.sin(t[k])])
        O4 = o + np.array([d, 0.0])
        e = np.linalg.norm(O4 - A)
        along = (b * b - c * c + e * e) / (2 * e)
        u = (O4 - A) / e
        # the assembly the start holds: the coupler above the line A-O4
        B = A + along * u + np.sqrt(b * b - along * along) * np.array([-u[1], u[0]])
        q = out.states[k]
        coupler = mech.body("coupler")
        s = mech.layout.body_slice(coupler)
        x, y, th = q[s]
        pin = np.array([x, y]) + 1.5 * unit * np.array([np.cos(th), np.sin(th)])
        assert np.max(np.abs(pin - B)) <= 1e-12 * d * far, (k, pin - B)


def test_a_symbolic_joint_in_a_design_sweep_on_jax():
    pytest.importorskip("jax", reason="the JAX backend is an optional extra")
    mech, motor = _fourbar_with_symbolic_pin()
    d = np.linspace(3.9, 4.1, 16)
    values = motor.value + np.linspace(0.0, 1.0, 11)
    params = {"O4.point1": np.c_[d, np.zeros(16)]}
    ref = ms.design.sweep(mech, params, motor, values)
    out = ms.design.sweep(mech, params, motor, values, backend="jax")
    assert ref.success.all() and out.success.all() and out.handed_over.size == 0
    sizes = np.ones(mech.state.size)       # positions in units of the size, angles in radians
    for body in mech.bodies:
        sizes[mech.layout.position_slice(body)] = 4.0
    assert np.max(np.abs(out.states - ref.states) / sizes) <= 1e-12
