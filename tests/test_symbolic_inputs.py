"""Symbolic joints given inputs that are not real (issue 18): a complex, infinite or undefined
Phi, parameter values at which Phi is not real, planar and spatial body symbols mixed, and the
siblings of these defects; then a property test of the generated Jacobian against central
differences for random real Phi."""

import numpy as np
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve.symbolic import _derive, body_symbols, catalog, symbolic_joint


# -- issue 18, as written ----------------------------------------------------------------------
def test_complex_phi_is_rejected_when_the_class_is_built():
    """Was: ``phi=[b1.x + sp.I*px - 1]`` with ``px = 0.5`` solved with residual 0 (the
    imaginary part dropped by a cast to float)."""
    b1, b2 = body_symbols(2)
    px = sp.Symbol("px")
    with pytest.raises(ValueError, match=r"Cx: phi\[0\] = I\*px \+ x1 - 1 is not a real "
                                         r"expression: it contains the imaginary unit I .*"
                                         "expected a real expression"):
        symbolic_joint("Cx", bodies=(b1, b2), params=(px,), phi=[b1.x + sp.I * px - 1])


def test_complex_infinity_is_rejected_when_the_class_is_built():
    """Was: ``KeyError: 'ComplexInfinity'`` from the code printer."""
    b1, b2 = body_symbols(2)
    px = sp.Symbol("px")
    with pytest.raises(ValueError, match=r"Cz: phi\[0\] = zoo\*px \+ x1 - 1 is not a real "
                                         r"expression: it contains zoo \(complex infinity\); "
                                         "expected a real expression"):
        symbolic_joint("Cz", bodies=(b1, b2), params=(px,), phi=[b1.x + sp.zoo * px - 1])


def test_planar_and_spatial_bodies_of_one_label_are_named_as_mixed():
    """Was: "the bodies must be distinct" (a planar and a spatial body '1' share x1 and y1)."""
    (p,) = body_symbols(1)
    (q,) = body_symbols(1, dim=3)
    with pytest.raises(ValueError, match=r"Mixed: the bodies mix planar and spatial symbols: "
                                         r"bodies\[0\] planar body '1' \(x1, y1, theta1\) "
                                         r"planar, bodies\[1\] spatial body '1' \(x1, y1, z1, "
                                         r"qw1, qx1, qy1, qz1\) spatial; a joint's bodies must "
                                         "all be planar or all spatial"):
        symbolic_joint("Mixed", bodies=(p, q), phi=[p.x - q.z])


def test_phi_with_symbols_of_a_body_of_the_other_dimension_is_named():
    b1, b2 = body_symbols(2)
    c1, c2 = body_symbols(2, dim=3)
    with pytest.raises(ValueError, match=r"Mix2: phi\[0\] = x1 - z2 uses symbols of a planar "
                                         r"body \('1': x1, y1, theta1\) and of a spatial body "
                                         r"\('2': z2\); a joint's bodies must all be planar or "
                                         "all spatial"):
        symbolic_joint("Mix2", bodies=(b1, b2), phi=[b1.x - c2.z])
    with pytest.raises(ValueError, match=r"Mix3: phi\[1\] = qw1 - theta2 uses symbols of a "
                                         r"spatial body \('1': x1, y1, z1, qw1, qx1, qy1, qz1\) "
                                         r"and of a planar body \('2': theta2\)"):
        symbolic_joint("Mix3", bodies=(c1, c2), phi=[c1.x, c1.qw - b2.theta])


# -- not real, not finite: at definition -------------------------------------------------------
@pytest.mark.parametrize("make, match", [
    (lambda a, L: a.x - sp.oo, r"phi\[1\] = x1 - oo is not a real expression: it contains -oo"),
    (lambda a, L: a.x + L * sp.oo, r"it contains oo \(infinity\)"),
    (lambda a, L: a.x + sp.nan, r"phi\[1\] = nan is not a real expression: it contains nan"),
    (lambda a, L: a.x + sp.root(-8, 3) * L,
     r"its constant part \(-1\)\*\*\(1/3\) = \(0\.5\+0\.866\d*j\) is not real"),
    (lambda a, L: a.x + sp.asin(2) * L, r"its constant part asin\(2\) = \(1\.57\d*-1\.31\d*j\) "
                                        "is not real"),
    (lambda a, L: sp.exp(sp.I * a.x) + sp.exp(-sp.I * a.x) - L,
     r"it contains the imaginary unit I \(write complex arithmetic out in real and imaginary "
     r"parts, e.g. 2\*cos\(x\) for exp\(I\*x\) \+ exp\(-I\*x\)\)"),
    (lambda a, L: a.x + sp.sqrt(-L**2 - 1),
     r"its part sqrt\(-L\*\*2 - 1\) is not real for any real value of L"),
    (lambda a, L: a.x + sp.sqrt(-a.y**2 - 1) - L,
     r"phi\[1\] = -L \+ x1 \+ sqrt\(-y1\*\*2 - 1\) is not real for any real values of its "
     "symbols"),
])
def test_phi_that_is_not_real_is_rejected(make, match):
    b1, b2 = body_symbols(2)
    L = sp.Symbol("L")
    with pytest.raises(ValueError, match=match):
        symbolic_joint("NotReal", bodies=(b1, b2), params=[L], phi=[b2.y, make(b1, L)])


def test_the_printer_refuses_non_real_numbers():
    """The generated kernels store into float arrays, where a complex value would lose its
    imaginary part: nothing complex or infinite may reach the generated code."""
    for value in (sp.I, sp.zoo, sp.oo, -sp.oo):
        with pytest.raises(ValueError, match="is not a finite real number: the generated "
                                             "kernels compute in real floating point"):
            _derive._Printer().doprint(sp.Symbol("x") + value)


def test_non_real_symbols_are_rejected():
    (b,) = body_symbols(1)
    k = sp.Symbol("k", imaginary=True)
    with pytest.raises(ValueError, match=r"Im: the parameter symbol k has non-real assumptions "
                                         r"\(Symbol\('k', imaginary=True\)\), but it takes real "
                                         "values"):
        symbolic_joint("Im", bodies=[b], params=[k], phi=[b.x - k, b.y, b.theta])
    s = sp.Symbol("s", imaginary=True)
    with pytest.raises(ValueError, match="the own coordinate symbol s has non-real"):
        symbolic_joint("Im2", bodies=[b], coordinates=[s], phi=[b.x - s, b.y, b.theta])
    # real or assumption-free symbols are fine
    r = sp.Symbol("r", positive=True)
    ok = symbolic_joint("Re", bodies=[b], params=[r], phi=[b.x - r, b.y, b.theta])
    assert ok.params == ("r",)


# -- parameter values at which Phi is not real: at construction and when set ------------------
def _one_body(phi, L):
    (b,) = body_symbols(1)
    return symbolic_joint("Par", bodies=[b], params=[L], phi=[phi(b, L), b.y, b.theta])


def test_parameter_values_that_make_phi_complex_are_rejected():
    L = sp.Symbol("L")
    cls = _one_body(lambda b, L: b.x - sp.sqrt(L), L)
    mech = ms.Mechanism()
    a = mech.add_body("a")
    with pytest.raises(ValueError, match=r"Par: with L=-1\.0, phi\[0\] = -sqrt\(L\) \+ x1 is "
                                         r"not a real expression: its part -sqrt\(L\) = -1j is "
                                         "not real; expected parameter values for which phi is "
                                         "real and finite"):
        cls(a, L=-1.0)
    j = cls(a, L=4.0)
    with pytest.raises(ValueError, match=r"with L=-0\.5, phi\[0\].*sqrt\(L\) = -0\.707\d*j is "
                                         "not real"):
        j.L = -0.5
    assert j.L == 4.0   # unchanged
    j.L = 0.0
    mech.add(j)
    mech.solve()
    np.testing.assert_allclose(a.position, [0.0, 0.0], atol=1e-12)


def test_parameter_values_that_make_phi_infinite_are_rejected():
    L = sp.Symbol("L")
    cls = _one_body(lambda b, L: b.x - 1 / L + sp.log(L**2), L)
    a = ms.Mechanism().add_body("a")
    with pytest.raises(ValueError, match=r"with L=0\.0, phi\[0\] = .* its part -1/L is zoo, "
                                         "not finite"):
        cls(a, L=0.0)
    with pytest.raises(ValueError, match=r"with L=0\.0, .*log\(L\*\*2\) is zoo, not finite"):
        _one_body(lambda b, L: b.x + sp.log(L**2), L)(a, L=0.0)
    assert cls(a, L=-2.0).L == -2.0   # log(L**2) is real for negative L


def test_a_circle_joint_of_radius_zero_is_rejected():
    """The catalog's track joint divides the arc length by R."""
    Circle = catalog.circle_joint()
    mech = ms.Mechanism()
    ring, rider = mech.add_body("ring"), mech.add_body("rider")
    with pytest.raises(ValueError, match=r"with R=0\.0, phi\[0\] = .* its part 1/R is zoo, "
                                         "not finite"):
        Circle(ring, rider, R=0.0, fx=0.0, fy=0.0, fa=0.0)


def test_a_complex_array_is_not_a_parameter_value():
    """Was: ``np.array(0.5 + 1j)`` accepted as 0.5 (the imaginary part dropped with a
    ComplexWarning)."""
    L = sp.Symbol("L")
    cls = _one_body(lambda b, L: b.x - L, L)
    a = ms.Mechanism().add_body("a")
    with pytest.raises(TypeError, match=r"L must be a real number, got a complex array "
                                        r"array\(0\.5\+1\.j\)"):
        cls(a, L=np.array(0.5 + 1j))
    with pytest.raises(TypeError, match="L must be a real number, got complex"):
        cls(a, L=0.5 + 0j)


# -- Piecewise ---------------------------------------------------------------------------------
def test_piecewise_without_an_otherwise_branch_is_rejected():
    b1, b2 = body_symbols(2)
    with pytest.raises(ValueError, match=r"phi\[0\] = Piecewise\(\(x1, x1 > 0\)\) has a "
                                         r"Piecewise without an otherwise branch .*undefined "
                                         r"\(nan\) where none of its conditions holds; expected "
                                         r"a last branch \(expression, True\)"):
        symbolic_joint("Pw", bodies=(b1, b2), phi=[sp.Piecewise((b1.x, b1.x > 0))])


def test_piecewise_of_smooth_branches_has_the_right_jacobian_on_both_sides():
    """A C1 joint written as a Piecewise (x |x| - L): the Jacobian is each branch's, and the
    solver finds the root on either side."""
    (b,) = body_symbols(1)
    L = sp.Symbol("L")
    cls = symbolic_joint("Signed", bodies=[b], params=[L], phi=[
        sp.Piecewise((b.x**2, b.x > 0), (-b.x**2, True)) - L, b.y, b.theta])
    X = np.array([[-1.5, 0.0, 0.0], [-0.25, 0.0, 0.0], [0.0, 0.0, 0.0], [2.0, 0.0, 0.0]])
    phi, (J,) = cls._evaluate(np.array([[0.5]]), X)
    np.testing.assert_allclose(phi[:, 0], X[:, 0] * np.abs(X[:, 0]) - 0.5)
    np.testing.assert_allclose(J[:, 0, 0], 2 * np.abs(X[:, 0]))
    for value, root in ((4.0, 2.0), (-4.0, -2.0)):
        mech = ms.Mechanism()
        a = mech.add_body("a", position=(0.5 * np.sign(root), 0.0))
        mech.add(cls(a, L=value))
        mech.solve()
        assert a.position[0] == pytest.approx(root, abs=1e-10)


# -- property: the generated Jacobian is the derivative of the generated Phi --------------------
_B1, _B2 = body_symbols("p q")
_P = sp.Symbol("P")
_LEAVES = [_B1.x, _B1.y, _B1.theta, _B2.x, _B2.y, _B2.theta, _P]
_STATE = set(_B1.coordinates) | set(_B2.coordinates)


def _expressions():
    """Sums, products and smooth functions of body coordinates and the parameter, with small
    rational coefficients."""
    coeff = st.sampled_from([sp.Integer(-2), sp.Integer(-1), sp.Rational(1, 2), sp.Integer(1),
                             sp.Integer(3)])
    unary = [sp.sin, sp.cos, sp.atan, lambda u: u**2, lambda u: u**3,
             lambda u: sp.exp(u / 4), lambda u: sp.sqrt(u**2 + 1)]

    def extend(children):
        return st.one_of(
            st.tuples(st.sampled_from(unary), coeff, children).map(lambda t: t[0](t[1] * t[2])),
            st.tuples(children, coeff, children).map(lambda t: t[0] + t[1] * t[2]),
            st.tuples(children, children).map(lambda t: t[0] * t[1]))

    return st.recursive(st.sampled_from(_LEAVES), extend, max_leaves=8)


_EXAMPLE = iter(range(10**6))


@settings(max_examples=25)
@given(phi=st.lists(_expressions(), min_size=1, max_size=3), seed=st.integers(0, 2**32 - 1))
def test_generated_jacobian_matches_central_differences(phi, seed):
    """Random real polynomial and trigonometric Phi in two planar bodies' coordinates and a
    parameter: the generated Phi equals SymPy's value of the expression, and the generated
    Jacobian blocks equal central differences of the generated Phi at random poses."""
    # a constraint must involve the state: give each equation a coordinate term
    phi = [e + (k + 1) * _LEAVES[k % 6] if not (e.free_symbols & _STATE) else e
           for k, e in enumerate(phi)]
    cls = symbolic_joint(f"Random{next(_EXAMPLE)}", bodies=(_B1, _B2), params=[_P], phi=phi)
    rng = np.random.default_rng(seed)
    k = 4
    P = rng.uniform(-1.5, 1.5, size=(k, 1))
    X = [rng.uniform(-1.5, 1.5, size=(k, 3)) for _ in range(2)]
    values, blocks = cls._evaluate(P, *X)
    sub = {_P: P[0, 0], **dict(zip(_B1.coordinates, X[0][0])),
           **dict(zip(_B2.coordinates, X[1][0]))}
    exact = np.array([float(e.xreplace({s: sp.Float(v, 30) for s, v in sub.items()}))
                      for e in phi])
    np.testing.assert_allclose(values[0], exact, rtol=1e-12, atol=1e-12 * (1 + abs(exact).max()))
    h = 1e-5
    for s in range(2):
        for c in range(3):
            Xp = [x.copy() for x in X]
            Xm = [x.copy() for x in X]
            Xp[s][:, c] += h
            Xm[s][:, c] -= h
            numeric = (cls._phi(P, *Xp) - cls._phi(P, *Xm)) / (2 * h)
            scale = 1.0 + np.abs(cls._phi(P, *Xp)).max() + np.abs(numeric).max()
            np.testing.assert_allclose(blocks[s][..., c], numeric, rtol=1e-6, atol=1e-7 * scale)
