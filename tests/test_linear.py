"""Linear strategies of large sparse systems: the band ordering, band LU and its fallbacks.

The ordering is chosen on the pattern alone (issue 13 item 2): the same choice, and the same
poses, whatever the order in which the joints and the driver were added.
"""

import numpy as np
import pytest
import scipy.sparse as sp

import mechsolve as ms
from mechsolve import joints
from mechsolve.linalg import BAND_MAX, BandOrdering, LinearStrategy
from mechsolve.solver import strategy_for


def loop_chain(n_loops, *, driver="second", shuffle=None):
    """:func:`ms.models.fourbar_chain` with the driver added ``"first"``, ``"second"`` (as the
    model does) or ``"last"``, and bodies and joints added in a random order when ``shuffle``
    is a seed."""
    lc = float(np.sqrt(1.04))
    ang = np.arctan2(0.2, 1.0)
    bodies = [("A0", (0.0, 0.5), np.pi / 2)]
    revs = [("ground", "A0", (0.0, 0.0), (-0.5, 0.0))]
    for i in range(1, n_loops + 1):
        bodies += [(f"C{i}", (i - 0.5, 1.1), ang), (f"A{i}", (float(i), 0.5), np.pi / 2)]
        revs += [(f"A{i - 1}", f"C{i}", (0.5, 0.0), (-lc / 2, 0.0)),
                 (f"C{i}", f"A{i}", (lc / 2, 0.0), (0.7, 0.0)),
                 ("ground", f"A{i}", (float(i), 0.0), (-0.5, 0.0))]
    if shuffle is not None:
        rng = np.random.default_rng(shuffle)
        bodies = [bodies[k] for k in rng.permutation(len(bodies))]
        revs = [revs[k] for k in rng.permutation(len(revs))]
    mech = ms.Mechanism()
    named = {"ground": mech.ground}
    for name, position, angle in bodies:
        named[name] = mech.add_body(name, position=position, angle=angle)
    motor = joints.Driver(named["A0"], "angle", np.pi / 2, name="motor")
    if driver == "first":
        mech.add(motor)
    for k, (a, b, pa, pb) in enumerate(revs):
        mech.add(joints.Revolute(named[a], named[b], pa, pb, name=f"R{a}-{b}"))
        if driver == "second" and k == 0:
            mech.add(motor)
    if driver == "last":
        mech.add(motor)
    return mech, motor


def rocker_angles(mech, n_loops):
    return np.array([mech.body(f"A{i}").angle for i in range(n_loops + 1)])


@pytest.mark.parametrize("n_loops", [40, 1000])
def test_the_ordering_does_not_depend_on_the_order_joints_were_added_in(n_loops):
    for driver, shuffle in (("second", None), ("first", None), ("last", None), ("last", 1),
                            ("first", 2)):
        mech, _ = loop_chain(n_loops, driver=driver, shuffle=shuffle)
        system = mech.system()
        band = system.band_ordering
        # a few bodies' worth of band, whatever the chain's length (ties in the ordering may
        # be broken differently, so the exact width may differ by a body)
        assert band.kl + band.ku <= 12
        assert strategy_for(system).band is band      # band LU, whatever the order
        # the order is a permutation of the rows and of the columns
        assert np.array_equal(np.sort(band.row_order), np.arange(system.m))
        assert np.array_equal(np.sort(band.col_order), np.arange(system.n))


def test_the_driver_added_last_gives_the_same_poses_in_the_same_iterations():
    n_loops = 300
    out = []
    for driver, shuffle in (("second", None), ("last", None), ("last", 5)):
        mech, motor = loop_chain(n_loops, driver=driver, shuffle=shuffle)
        mech.solve()
        motor.value = np.pi / 2 + 0.1
        result = mech.solve()
        assert result.success
        out.append((result.iterations, rocker_angles(mech, n_loops)))
    for iterations, angles in out[1:]:
        assert iterations == out[0][0]
        np.testing.assert_allclose(angles, out[0][1], rtol=0, atol=1e-13)
    # the first rocker follows the driver, and every loop closes (checked from the poses)
    assert out[0][1][0] == pytest.approx(np.pi / 2 + 0.1, abs=1e-14)


def test_band_lu_and_superlu_take_the_same_step():
    model = ms.models.fourbar_chain(500)
    mech = model.mechanism
    system = mech.system()
    F, vals = system.evaluate(mech.state + 0.01 * np.cos(np.arange(system.n_state)))
    J = system.jacobian_sparse(vals)
    lsq = np.zeros(1, dtype=bool)
    band = strategy_for(system)
    assert band.band is not None
    x_band = band.factor(J, system.col_scale, lsq).solve(-F[None])[0]
    x_lu = LinearStrategy().factor(J, system.col_scale, lsq).solve(-F[None])[0]
    np.testing.assert_allclose(x_band, x_lu, rtol=0, atol=1e-13 * np.max(np.abs(x_lu)))
    np.testing.assert_allclose(J @ x_band, -F, rtol=0, atol=1e-12)


def test_a_singular_band_matrix_takes_the_least_squares_step():
    n = 200
    # a tridiagonal matrix with one column of zeros: singular, band LU reports it
    A = sp.diags([np.full(n - 1, -1.0), np.full(n, 3.0), np.full(n - 1, -1.0)],
                 [-1, 0, 1], format="csc")
    A = A.tolil()
    A[:, 7] = 0.0
    coo = sp.coo_matrix(sp.diags([np.ones(n - 1), np.ones(n), np.ones(n - 1)], [-1, 0, 1]))
    pattern = sp.csc_matrix((A.toarray()[coo.row, coo.col], (coo.row, coo.col)), shape=(n, n))
    band = BandOrdering(coo.row, coo.col, (n, n))
    assert band.kl == band.ku == 1 or band.kl + band.ku <= 3
    rhs = pattern @ np.linspace(1.0, 2.0, n)
    fac = LinearStrategy(band=band).factor(pattern, np.ones(n), np.zeros(1, dtype=bool))
    x = fac.solve(rhs[None])[0]
    assert fac.lsq[0]
    np.testing.assert_allclose(pattern @ x, rhs, atol=1e-10)
    assert x[7] == pytest.approx(0.0, abs=1e-12)       # the minimum-norm solution


def test_a_wide_pattern_is_left_to_superlu():
    # a grid of four-bar loops: no narrow band in any order
    mech = ms.Mechanism()
    size = 14
    body = {}
    for i in range(size):
        for k in range(size):
            body[i, k] = mech.add_body(f"B{i}_{k}", position=(float(i), float(k)), angle=0.0)
            if i == 0 and k == 0:
                mech.add(joints.Revolute(mech.ground, body[i, k], (0.0, 0.0), (0.0, 0.0)))
            if i:
                mech.add(joints.Revolute(body[i - 1, k], body[i, k], (0.5, 0.0), (-0.5, 0.0)))
            if k:
                mech.add(joints.Revolute(body[i, k - 1], body[i, k], (0.0, 0.5), (0.0, -0.5)))
    system = mech.system()
    assert system.band_ordering.width > BAND_MAX
    strategy = strategy_for(system)
    assert strategy.band is None and strategy.permc == "COLAMD"
