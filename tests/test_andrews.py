"""Andrews' squeezing mechanism against the published data of the IVP test set ('andrews').

Reference: the Test Set for IVP Solvers (Mazzia, Magherini et al., University of Bari), problem
'andrews' (after Hairer & Wanner, Solving ODEs II, Sect. VII.7): its consistent initial
position, given to 30 digits, and its loop-closure equations g(q) = 0, written out below from
the test set's formulas. Every check reads the seven angles off the solved poses (the mapping of
``ms.models.andrews_squeezer``'s docstring) or measures points of the bodies; none uses the
solver's own residual.
"""

import numpy as np
import pytest
from closed_form import wrap

import mechsolve as ms

# The test set's consistent initial position (beta, Theta, gamma, Phi, delta, Omega, epsilon).
PUBLISHED = np.array([float(s) for s in (
    "-0.0617138900142764496358948458001", "0", "0.455279819163070380255912382449",
    "0.222668390165885884674473185609", "0.487364979543842550225598953530",
    "-0.222668390165885884674473185609", "1.23054744454982119249735015568")])
NAMES = ("beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon")

# The test set's geometric constants (metres).
XA, YA, XB, YB = -0.06934, -0.00227, -0.03635, 0.03273
D, E, RR, SS, U, ZF, ZT, SC, SD = 28e-3, 2e-2, 7e-3, 35e-3, 4e-2, 2e-2, 4e-2, 18e-3, 2e-2
# Size of the mechanism: the farthest ground pivot from the crank pivot.
SIZE = float(np.hypot(XA, YA))


def loop_closure(q):
    """The test set's g(q), shape (..., 6), for angles q of shape (..., 7)."""
    be, th, ga, ph, de, om, ep = np.moveaxis(np.asarray(q, float), -1, 0)
    ex = RR * np.cos(be) - D * np.cos(be + th)
    ey = RR * np.sin(be) - D * np.sin(be + th)
    return np.stack([
        ex - SS * np.sin(ga) - XB,
        ey + SS * np.cos(ga) - YB,
        ex - E * np.sin(ph + de) - ZT * np.cos(de) - XA,
        ey + E * np.cos(ph + de) - ZT * np.sin(de) - YA,
        ex - ZF * np.cos(om + ep) - U * np.sin(ep) - XA,
        ey - ZF * np.sin(om + ep) + U * np.cos(ep) - YA,
    ], axis=-1)


def test_published_position_closes_the_loops():
    # The reference itself: g vanishes at the published position (to double round-off).
    assert np.max(np.abs(loop_closure(PUBLISHED))) / SIZE < 1e-15


def angles_from_body_angles(a):
    """The test set's seven angles from the body angles ``a`` (..., 7) of body1 .. body7."""
    a = np.asarray(a, float)
    b1, b2, b3, b4, b5, b6, b7 = np.moveaxis(a, -1, 0)
    return np.stack([b1, b2 - b1, b3, b4 - b5, b5, b6 - b7, b7], axis=-1)


def body_angles(mech):
    return np.array([mech.body(f"body{i}").angle for i in range(1, 8)])


def joint_points(q):
    """Global positions of the pins from the test set's angles (the paths of g(q))."""
    be, th, ga, ph, de, om, ep = q

    def e(t):
        return np.array([np.cos(t), np.sin(t)])

    def n(t):
        return np.array([np.sin(t), -np.cos(t)])

    A, B = np.array([XA, YA]), np.array([XB, YB])
    P = RR * e(be)
    G = A + ZT * e(de)
    F = A + U * n(ep)
    return {"P": P, "E": P - D * e(be + th), "G": G, "F": F,
            "D": B + np.array([SD * np.cos(ga) + SC * np.sin(ga),
                               SD * np.sin(ga) - SC * np.cos(ga)])}


def assembled():
    """The model solved from its rough sketch with the driver at the published beta."""
    model = ms.models.andrews_squeezer()
    mech = model.mechanism
    model.driver.value = PUBLISHED[0]
    start = angles_from_body_angles(body_angles(mech))
    assert np.max(np.abs(start - PUBLISHED)) > np.radians(1)   # really a rough start
    mech.solve()
    return mech


def test_rough_sketch_assembles_to_the_published_angles():
    q = angles_from_body_angles(body_angles(assembled()))
    err = np.abs(wrap(q - PUBLISHED))
    assert err.max() <= 1e-12, ", ".join(f"{k} {v:.2g}" for k, v in zip(NAMES, err))


def test_rough_sketch_assembles_to_the_published_joint_points():
    # Every pin, as placed by each body it joins, against the published position's pins.
    mech = assembled()
    ref = joint_points(PUBLISHED)
    b = {i: mech.body(f"body{i}") for i in range(1, 8)}
    measured = {
        "P": [b[1].to_global((RR, 0)), b[2].to_global((0, 0))],
        "E": [b[2].to_global((-D, 0)), b[3].to_global((0, -SS)), b[4].to_global((0, -E)),
              b[6].to_global((ZF, 0))],
        "G": [b[5].to_global((ZT, 0)), b[4].to_global((0, 0))],
        "F": [b[7].to_global((0, -U)), b[6].to_global((0, 0))],
        "D": [b[3].to_global((SD, -SC))],
        # the ground pins stay where the test set puts them
        "O": [b[1].position - (0.0, 0.0)],
        "B": [b[3].position - (XB, YB)],
        "A": [b[5].position - (XA, YA), b[7].position - (XA, YA)],
    }
    ref.update(O=np.zeros(2), B=np.zeros(2), A=np.zeros(2))
    errors = {k: max(float(np.max(np.abs(p - ref[k]))) for p in pts) / SIZE
              for k, pts in measured.items()}
    assert max(errors.values()) <= 1e-12, ", ".join(f"{k} {v:.2g}" for k, v in errors.items())


@pytest.mark.parametrize("batch", [True, False])
def test_sweep_poses_satisfy_the_test_set_loop_closure(batch):
    model = ms.models.andrews_squeezer()
    mech = model.mechanism
    values = PUBLISHED[0] + np.linspace(0.0, 0.5, 26)
    motion = mech.sweep(model.driver, values, batch=batch)
    a = np.stack([motion.pose(mech.body(f"body{i}"))[:, 2] for i in range(1, 8)], axis=1)
    q = angles_from_body_angles(a)
    assert np.max(np.abs(q[:, 0] - values)) <= 1e-12
    g = np.max(np.abs(loop_closure(q))) / SIZE
    assert g <= 1e-13, f"largest |g| / size {g:.2g}"


def test_full_crank_turn_satisfies_the_test_set_loop_closure():
    # The crank turns fully (in the test set's motion beta grows to 15.8 rad).
    model = ms.models.andrews_squeezer()
    mech = model.mechanism
    motion = mech.sweep(model.driver, model.values)
    a = np.stack([motion.pose(mech.body(f"body{i}"))[:, 2] for i in range(1, 8)], axis=1)
    q = angles_from_body_angles(a)
    assert np.max(np.abs(q[:, 0] - model.values)) <= 1e-12
    g = np.max(np.abs(loop_closure(q))) / SIZE
    assert g <= 1e-13, f"largest |g| / size {g:.2g}"
