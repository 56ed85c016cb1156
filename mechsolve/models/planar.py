"""Classic planar mechanisms, built with the public API.

Each builder returns a :class:`Model`: the mechanism, its main driver, the driver values of a
typical sweep, and the body whose pose the demo tables report. The CLI's ``mechsolve demo``,
the examples and the benchmarks use them.

Examples
--------
>>> import mechsolve as ms
>>> model = ms.models.fourbar()
>>> model.mechanism.dof().dof
1
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from .. import joints
from .._collector import collector_paused
from .._validation import as_float
from ..body import Body
from ..files import NamedSweep
from ..joints.base import DriverJoint
from ..mechanism import Mechanism

__all__ = ["Model", "fourbar", "five_bar", "slider_crank", "quick_return", "watt_sixbar",
           "gear_train", "andrews_squeezer", "ANDREWS", "jansen_leg", "JANSEN", "JANSEN_BARS",
           "parallelogram", "fourbar_chain", "DEMOS"]


@dataclass
class Model:
    """A ready-to-sweep mechanism."""

    mechanism: Mechanism
    driver: DriverJoint
    values: np.ndarray
    output: Body
    description: str
    trace: list = field(default_factory=list)

    def keep_sweep(self, name: str = "demo") -> Mechanism:
        """The mechanism, with this model's sweep kept in :attr:`Mechanism.sweeps` under
        ``name`` (the driver's values, the output body), as saved in a model file."""
        self.mechanism.sweeps[name] = NamedSweep(self.driver.name, self.values,
                                                 (self.output.name,))
        return self.mechanism


def _place(mech: Mechanism, name: str, a, b) -> Body:
    """A binary link from point ``a`` to ``b``: origin at the midpoint, x axis along it."""
    a = np.asarray(a, float)
    b = np.asarray(b, float)
    d = b - a
    return mech.add_body(name, position=(a + b) / 2, angle=float(np.arctan2(d[1], d[0])))


def fourbar(ground: float = 4.0, crank: float = 1.0, coupler: float = 3.0, rocker: float = 3.5,
            coupler_point=(0.0, 1.0), *, upper: bool = True) -> Model:
    """Four-bar: crank pinned at the origin, rocker at ``(ground, 0)``, driven by the crank angle.

    Every binary link has its origin at its midpoint and its x axis from its first pin to its
    second. ``upper`` picks the assembly branch with the coupler-rocker pin above the line from
    the crank pin to the rocker pivot.
    """
    mech = Mechanism(name="four-bar")
    A = np.array([crank, 0.0])
    O4 = np.array([ground, 0.0])
    e = np.linalg.norm(O4 - A)
    cos_g = (coupler**2 + e**2 - rocker**2) / (2 * coupler * e)
    if abs(cos_g) > 1:
        raise ValueError("the four-bar cannot be assembled at crank angle 0")
    phi = np.arctan2(*(O4 - A)[::-1]) + (1 if upper else -1) * np.arccos(cos_g)
    B = A + coupler * np.array([np.cos(phi), np.sin(phi)])
    g = mech.ground
    c = _place(mech, "crank", (0, 0), A)
    k = _place(mech, "coupler", A, B)
    r = _place(mech, "rocker", B, O4)
    mech.add(joints.Revolute(g, c, (0, 0), (-crank / 2, 0), name="O2"))
    mech.add(joints.Revolute(c, k, (crank / 2, 0), (-coupler / 2, 0), name="A"))
    mech.add(joints.Revolute(k, r, (coupler / 2, 0), (-rocker / 2, 0), name="B"))
    mech.add(joints.Revolute(r, g, (rocker / 2, 0), (ground, 0), name="O4"))
    motor = mech.add(joints.Driver(c, "angle", 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 361), k,
                 f"four-bar (ground {ground:g}, crank {crank:g}, coupler {coupler:g}, "
                 f"rocker {rocker:g}) driven by the crank angle", [(k, tuple(coupler_point))])


def slider_crank(crank: float = 1.0, rod: float = 3.0, offset: float = 0.5) -> Model:
    """Offset slider-crank: crank at the origin, slider on the line ``y = offset``."""
    mech = Mechanism(name="slider-crank")
    A = np.array([crank, 0.0])
    B = np.array([crank + np.sqrt(rod**2 - offset**2), offset])
    g = mech.ground
    c = _place(mech, "crank", (0, 0), A)
    k = _place(mech, "rod", A, B)
    s = mech.add_body("slider", position=B)
    mech.add(joints.Revolute(g, c, (0, 0), (-crank / 2, 0), name="O"))
    mech.add(joints.Revolute(c, k, (crank / 2, 0), (-rod / 2, 0), name="A"))
    mech.add(joints.Revolute(k, s, (rod / 2, 0), (0, 0), name="B"))
    mech.add(joints.Prismatic(g, s, (0, offset), (0, 0), axis=(1, 0), name="rail"))
    motor = mech.add(joints.Driver(c, "angle", 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 361), s,
                 f"offset slider-crank (crank {crank:g}, rod {rod:g}, offset {offset:g})",
                 [(k, (0.0, 0.0))])


def quick_return(crank: float = 2.0, pivot_drop: float = 1.0, lever: float = 2.5,
                 rod: float = 4.0) -> Model:
    """Whitworth quick-return: a crank drives a block in a slotted lever that turns fully.

    The crank turns about the origin, the slotted lever about ``(0, -pivot_drop)`` (closer than
    the crank length, so the lever turns fully, at a varying speed); the lever's far end drives
    a connecting rod to a ram sliding on the line ``y = -pivot_drop``.
    """
    if pivot_drop >= crank:
        raise ValueError("Whitworth needs pivot_drop < crank so that the lever turns fully")
    mech = Mechanism(name="Whitworth quick-return")
    g = mech.ground
    O4 = np.array([0.0, -pivot_drop])
    A = np.array([crank, 0.0])
    u = (A - O4) / np.linalg.norm(A - O4)
    C = O4 - lever * u
    D = C + np.array([-np.sqrt(rod**2 - (C[1] - O4[1]) ** 2), O4[1] - C[1]])
    c = _place(mech, "crank", (0, 0), A)
    block = mech.add_body("block", position=A, angle=float(np.arctan2(u[1], u[0])))
    lev = mech.add_body("lever", position=O4, angle=float(np.arctan2(u[1], u[0])))
    r = _place(mech, "rod", C, D)
    ram = mech.add_body("ram", position=D)
    mech.add(joints.Revolute(g, c, (0, 0), (-crank / 2, 0), name="O2"))
    mech.add(joints.Revolute(c, block, (crank / 2, 0), (0, 0), name="A"))
    mech.add(joints.Prismatic(lev, block, (0, 0), (0, 0), axis=(1, 0), name="slot"))
    mech.add(joints.Revolute(g, lev, tuple(O4), (0, 0), name="O4"))
    mech.add(joints.Revolute(lev, r, (-lever, 0), (-rod / 2, 0), name="C"))
    mech.add(joints.Revolute(r, ram, (rod / 2, 0), (0, 0), name="D"))
    mech.add(joints.Prismatic(g, ram, tuple(O4), (0, 0), axis=(1, 0), name="guide"))
    motor = mech.add(joints.Driver(c, "angle", 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 361), ram,
                 "Whitworth quick-return (crank 2, lever pivot 1 below, lever arm 2.5, rod 4)",
                 [(r, (0.0, 0.0))])


def watt_sixbar() -> Model:
    """Watt six-bar: a crank-rocker four-bar whose ternary rocker drives a second four-bar.

    Ground pivots at ``(0, 0)`` (crank), ``(4, 0)`` (ternary rocker) and ``(7, 1)`` (output).
    """
    mech = Mechanism(name="Watt six-bar")
    g = mech.ground
    base = fourbar()
    # Rebuild the first loop here, then add the second loop on an arm of the rocker.
    q0 = base.mechanism.state
    crank = mech.add_body("crank", position=q0[0:2], angle=q0[2])
    coupler = mech.add_body("coupler", position=q0[3:5], angle=q0[5])
    rocker = mech.add_body("rocker", position=q0[6:8], angle=q0[8])
    mech.add(joints.Revolute(g, crank, (0, 0), (-0.5, 0), name="O2"))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0), (-1.5, 0), name="A"))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0), (-1.75, 0), name="B"))
    mech.add(joints.Revolute(rocker, g, (1.75, 0), (4.0, 0), name="O4"))
    # The rocker is ternary: a third pin C off its axis drives link 5; link 6 pivots at O6.
    C = rocker.to_global((1.75 + 1.5 * np.cos(2.4), 1.5 * np.sin(2.4)))
    O6 = np.array([7.0, 1.0])
    l5, l6 = 3.0, 2.5
    e = np.linalg.norm(O6 - C)
    ang = np.arctan2(*(O6 - C)[::-1]) + np.arccos((l5**2 + e**2 - l6**2) / (2 * l5 * e))
    D = C + l5 * np.array([np.cos(ang), np.sin(ang)])
    link5 = _place(mech, "link5", C, D)
    link6 = _place(mech, "link6", D, O6)
    mech.add(joints.Revolute(rocker, link5, (1.75 + 1.5 * np.cos(2.4), 1.5 * np.sin(2.4)),
                             (-l5 / 2, 0), name="C"))
    mech.add(joints.Revolute(link5, link6, (l5 / 2, 0), (-l6 / 2, 0), name="D"))
    mech.add(joints.Revolute(link6, g, (l6 / 2, 0), tuple(O6), name="O6"))
    motor = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 361), link6,
                 "Watt six-bar (crank-rocker four-bar driving a second four-bar from its "
                 "ternary rocker)", [(link5, (0.0, 0.0))])


def gear_train() -> Model:
    """Gear train: gear (r 1) -> gear (r 2) -> gear (r 0.5) -> ring gear (r 1.5), and a rack.

    All gears turn on ground pins. Gear 3 meshes internally with the ring gear (whose pin is
    1 above gear 3's, the difference of their radii), and gear 1 also drives a vertical rack on
    its left (it moves down as gear 1 turns counter-clockwise).
    """
    mech = Mechanism(name="gear train")
    g = mech.ground
    g1 = mech.add_body("gear1", position=(0, 0))
    g2 = mech.add_body("gear2", position=(3, 0))
    g3 = mech.add_body("gear3", position=(3, 2.5))
    ring = mech.add_body("ring", position=(3, 3.5))
    rack = mech.add_body("rack", position=(-1, 0))
    mech.add(joints.Revolute(g, g1, (0, 0), name="pin1"))
    mech.add(joints.Revolute(g, g2, (3, 0), name="pin2"))
    mech.add(joints.Revolute(g, g3, (3, 2.5), name="pin3"))
    mech.add(joints.Revolute(g, ring, (3, 3.5), name="ring pin"))
    mech.add(joints.Gear(g1, g2, 1.0, 2.0, name="mesh12"))
    mech.add(joints.Gear(g2, g3, 2.0, 0.5, name="mesh23"))
    mech.add(joints.Gear(g3, ring, 0.5, 1.5, internal=True, name="mesh3r"))
    mech.add(joints.Prismatic(g, rack, (-1, 0), (0, 0), axis=(0, 1), name="rack guide"))
    mech.add(joints.RackPinion(g1, rack, 1.0, axis=(0, -1), name="rack mesh"))
    motor = mech.add(joints.Driver(g1, "angle", 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 181), ring,
                 "gear train: gear1 (r 1) -> gear2 (r 2) -> gear3 (r 0.5) -> ring (r 1.5, "
                 "internal); gear1 also drives a rack", [(g2, (1.5, 0.0))])


#: Geometric constants of Andrews' squeezing mechanism (metres), as published with the 'andrews'
#: problem of the IVP test set (see :func:`andrews_squeezer`). Kinematics uses xa .. zt; the
#: centres of mass (da, ea, fa, ra, sa, sb, ta, tb, ua, ub) and the spring's rest length l0 are
#: kept for reference.
ANDREWS = {
    "xa": -0.06934, "ya": -0.00227, "xb": -0.03635, "yb": 0.03273, "xc": 0.014, "yc": 0.072,
    "d": 28e-3, "e": 2e-2, "rr": 7e-3, "ss": 35e-3, "sc": 18e-3, "sd": 2e-2, "u": 4e-2,
    "zf": 2e-2, "zt": 4e-2,
    "da": 115e-4, "ea": 1421e-5, "fa": 1421e-5, "ra": 92e-5, "sa": 1874e-5, "sb": 1043e-5,
    "ta": 2308e-5, "tb": 916e-5, "ua": 1228e-5, "ub": 449e-5, "l0": 7785e-5,
}

# The consistent initial position of the test set: beta, Theta, gamma, Phi, delta, Omega,
# epsilon (radians), rounded to double precision.
_ANDREWS_Q0 = (-0.0617138900142764496358948458001, 0.0, 0.455279819163070380255912382449,
               0.222668390165885884674473185609, 0.487364979543842550225598953530,
               -0.222668390165885884674473185609, 1.23054744454982119249735015568)


def andrews_squeezer(beta: float | None = None) -> Model:
    """Andrews' squeezing mechanism: seven bodies, ten revolutes, driven by the crank angle.

    The planar seven-body mechanism of Giles (1978) and Manning (1981) as given by Hairer &
    Wanner, *Solving Ordinary Differential Equations II* (2nd ed., Sect. VII.7), and by the
    'andrews' problem of the Test Set for IVP Solvers (F. Mazzia, C. Magherini et al.,
    University of Bari; Fortran ``andrews.f``), whose geometric constants (:data:`ANDREWS`, in
    metres) and consistent initial position are used here: the values were read from the
    test set's MATLAB port of ``andrews.f`` and the R package deTestSet (``ex_andrews``), which
    agree digit for digit. Only the kinematics is modelled (the spring between C and D and the
    drive torque do not change the positions).

    Coordinates of the test set: ``beta`` (crank), ``Theta`` (body 2 relative to the crank),
    ``gamma`` (body 3), ``Phi`` (body 4 relative to body 5), ``delta`` (body 5), ``Omega``
    (body 6 relative to body 7), ``epsilon`` (body 7). Its loop-closure equations ``g(q) = 0``
    say that one point E (the pin shared by bodies 2, 3, 4 and 6) is reached along four paths:
    ``E = rr e(beta) - d e(beta + Theta)``
    ``  = (xb, yb) + ss n(gamma)``
    ``  = (xa, ya) + zt e(delta) + e n(Phi + delta)``
    ``  = (xa, ya) + u n(epsilon) + zf e(Omega + epsilon)``
    with ``e(t) = (cos t, sin t)`` and ``n(t) = (sin t, -cos t)``.

    Bodies ``body1`` .. ``body7`` (the test set's numbering). Each body's x axis is at the
    body's absolute angle, and its origin at the pin named first below, so that the angles of
    the test set are read off the poses as

    ========  ==================  ========================  ================================
    body      angle in mechsolve  origin                    points (body coordinates)
    ========  ==================  ========================  ================================
    body1     beta                O = (0, 0) (ground pin)   P = (rr, 0)
    body2     beta + Theta        P (pin to the crank)      E = (-d, 0)
    body3     gamma               B = (xb, yb) (ground)     E = (0, -ss); D = (sd, -sc)
    body4     Phi + delta         G (pin to body 5)         E = (0, -e)
    body5     delta               A = (xa, ya) (ground)     G = (zt, 0)
    body6     Omega + epsilon     F (pin to body 7)         E = (zf, 0)
    body7     epsilon             A (ground)                F = (0, -u)
    ========  ==================  ========================  ================================

    so ``Theta = angle(body2) - angle(body1)``, ``Phi = angle(body4) - angle(body5)`` and
    ``Omega = angle(body6) - angle(body7)``; the other four are body angles. D is the spring's
    attachment on body 3 and C = (xc, yc) its ground end (the point names O, P, E, G, F are
    ours). Revolutes: O, P, B, A5, A7, G, F, and E23, E24, E26 (body 2 pinned to bodies 3, 4
    and 6 at E). The driver ``motor`` fixes the crank angle ``beta``.

    The bodies start a few degrees and millimetres away from the test set's initial position
    (a rough sketch), with the driver at ``beta`` (default: the published initial ``beta``);
    :meth:`~mechsolve.Mechanism.solve` or a sweep assembles them.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.andrews_squeezer()
    >>> report = model.mechanism.dof()
    >>> len(model.mechanism.bodies), report.gruebler, report.dof
    (7, 1, 1)
    """
    c = ANDREWS
    q = np.array(_ANDREWS_Q0)
    angles = {"body1": q[0], "body2": q[0] + q[1], "body3": q[2], "body4": q[3] + q[4],
              "body5": q[4], "body6": q[5] + q[6], "body7": q[6]}
    A = np.array([c["xa"], c["ya"]])
    B = np.array([c["xb"], c["yb"]])

    def e(t):
        return np.array([np.cos(t), np.sin(t)])

    def n(t):
        return np.array([np.sin(t), -np.cos(t)])

    origins = {"body1": np.zeros(2), "body2": c["rr"] * e(angles["body1"]), "body3": B,
               "body4": A + c["zt"] * e(angles["body5"]), "body5": A,
               "body6": A + c["u"] * n(angles["body7"]), "body7": A}
    # A rough sketch: every body 1-3 degrees and 1-2 mm off the consistent position.
    deg = np.pi / 180
    off_angle = {"body1": 2, "body2": -3, "body3": 2, "body4": -2, "body5": 3, "body6": -1,
                 "body7": 2}
    off_pos = {"body1": (1, -1), "body2": (-2, 1), "body3": (1, 2), "body4": (-1, -2),
               "body5": (2, -1), "body6": (-1, 1), "body7": (1, 1)}
    mech = Mechanism(name="Andrews' squeezing mechanism")
    g = mech.ground
    b = {name: mech.add_body(name, position=origins[name] + 1e-3 * np.array(off_pos[name]),
                             angle=float(angles[name] + off_angle[name] * deg))
         for name in angles}
    mech.add(joints.Revolute(g, b["body1"], (0, 0), (0, 0), name="O"))
    mech.add(joints.Revolute(b["body1"], b["body2"], (c["rr"], 0), (0, 0), name="P"))
    mech.add(joints.Revolute(g, b["body3"], tuple(B), (0, 0), name="B"))
    mech.add(joints.Revolute(g, b["body5"], tuple(A), (0, 0), name="A5"))
    mech.add(joints.Revolute(g, b["body7"], tuple(A), (0, 0), name="A7"))
    mech.add(joints.Revolute(b["body5"], b["body4"], (c["zt"], 0), (0, 0), name="G"))
    mech.add(joints.Revolute(b["body7"], b["body6"], (0, -c["u"]), (0, 0), name="F"))
    mech.add(joints.Revolute(b["body2"], b["body3"], (-c["d"], 0), (0, -c["ss"]), name="E23"))
    mech.add(joints.Revolute(b["body2"], b["body4"], (-c["d"], 0), (0, -c["e"]), name="E24"))
    mech.add(joints.Revolute(b["body2"], b["body6"], (-c["d"], 0), (c["zf"], 0), name="E26"))
    beta0 = q[0] if beta is None else beta
    motor = mech.add(joints.Driver(b["body1"], "angle", beta0, name="motor"))
    model = Model(mech, motor, q[0] + np.linspace(0.0, 2 * np.pi, 181), b["body3"],
                  "Andrews' squeezing mechanism (seven bodies, IVP test set 'andrews') driven "
                  "by the crank angle beta", [(b["body3"], (c["sd"], -c["sc"]))])
    model.constants = dict(c)
    return model


def five_bar() -> Model:
    """Planar five-bar: two ground pivots 3 apart, links 1, 1.6, 1.6, 1 (two degrees of freedom).

    The driver turns the first link; with it the five-bar keeps one free motion, without it
    two (the free-motion examples).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.five_bar()
    >>> model.mechanism.dof().dof, model.mechanism.dof().free
    (2, 1)
    """
    mech = Mechanism(name="five-bar")
    g = mech.ground
    a = mech.add_body("a", position=(0.0, 0.5), angle=np.pi / 2)
    b = mech.add_body("b", position=(0.8, 1.2), angle=0.3)
    c = mech.add_body("c", position=(2.2, 1.1), angle=-0.3)
    d = mech.add_body("d", position=(3.0, 0.5), angle=np.pi / 2)
    mech.add(joints.Revolute(g, a, (0, 0), (-0.5, 0)))
    mech.add(joints.Revolute(a, b, (0.5, 0), (-0.8, 0)))
    mech.add(joints.Revolute(b, c, (0.8, 0), (-0.8, 0)))
    mech.add(joints.Revolute(c, d, (0.8, 0), (0.5, 0)))
    mech.add(joints.Revolute(d, g, (-0.5, 0), (3, 0)))
    motor = mech.add(joints.Driver(a, "angle", np.pi / 2, name="motor"))
    mech.solve()
    return Model(mech, motor, np.linspace(np.pi / 2 - 0.3, np.pi / 2 + 0.3, 61), b,
                 "five-bar (two degrees of freedom, one driver)", [(b, (0.8, 0.0))])


def parallelogram(n_cranks: int = 3) -> Model:
    """Parallelogram with parallel cranks of length 1 (three by default; redundant for 3 or
    more).

    ``n_cranks`` cranks; Gruebler counts ``3 - n_cranks`` + 1 degrees of freedom; the linkage
    moves with one.
    """
    mech = Mechanism(name="parallelogram")
    g = mech.ground
    cranks = [mech.add_body(f"crank{i + 1}", position=(2.0 * i, 0.5), angle=np.pi / 2)
              for i in range(n_cranks)]
    span = 2.0 * (n_cranks - 1)
    coupler = mech.add_body("coupler", position=(span / 2, 1.0))
    for i, c in enumerate(cranks):
        mech.add(joints.Revolute(g, c, (2.0 * i, 0), (-0.5, 0), name=f"O{i + 1}"))
        mech.add(joints.Revolute(c, coupler, (0.5, 0), (2.0 * i - span / 2, 0), name=f"A{i + 1}"))
    motor = mech.add(joints.AngleDriver(mech.joint("O1"), np.pi / 2, name="motor"))
    return Model(mech, motor, np.linspace(np.pi / 2, np.pi / 2 + 2 * np.pi, 181), coupler,
                 f"parallelogram with {n_cranks} parallel cranks (redundant constraints)",
                 [(coupler, (0.0, 0.0))])


def fourbar_chain(n_loops: int) -> Model:
    """A row of ``n_loops`` four-bar loops sharing their rockers (benchmark mechanism).

    Rockers ``A_0 .. A_N`` pivot on ground at ``x = 0, 1, ..., N``; each carries a pin at
    distance 1.2 (to the coupler on its left) and 1.0 (to the coupler on its right) along its
    axis; couplers of length ``sqrt(1.04)`` join them. All rockers upright is a solution, and
    each loop transmits a perturbation with gain ``1/1.2``, so the chain stays well conditioned
    for any length. ``2N + 1`` bodies, ``3N + 1`` revolutes and one driver on ``A_0``.
    """
    if not isinstance(n_loops, (int, np.integer)) or n_loops < 1:
        raise ValueError(f"n_loops must be a positive integer, got {n_loops!r}")
    mech = Mechanism(name=f"chain of {n_loops} four-bars")
    g = mech.ground
    lc = float(np.sqrt(1.04))
    rockers = [mech.add_body("A0", position=(0.0, 0.5), angle=np.pi / 2)]
    mech.add(joints.Revolute(g, rockers[0], (0, 0), (-0.5, 0)))
    motor = mech.add(joints.Driver(rockers[0], "angle", np.pi / 2, name="motor"))
    # Built in bulk (Mechanism.add_bodies, Revolute._many: the same checks made over all the
    # loops at once): bodies C1, A1, C2, A2, ...; per loop the pins rocker-coupler,
    # coupler-rocker and ground-rocker, in that order.
    with collector_paused():   # many small objects, no reference cycles
        i = np.arange(1.0, n_loops + 1.0)
        poses = np.empty((n_loops, 2, 3))
        poses[:, 0] = np.stack([i - 0.5, np.full(n_loops, 1.1),
                                np.full(n_loops, np.arctan2(0.2, 1.0))], axis=1)
        poses[:, 1] = np.stack([i, np.full(n_loops, 0.5), np.full(n_loops, np.pi / 2)], axis=1)
        names = [f"{c}{k}" for k in range(1, n_loops + 1) for c in "CA"]
        added = mech.add_bodies(names, poses.reshape(-1, 3))
        couplers, rockers = added[0::2], rockers + added[1::2]
        pins = np.zeros((n_loops, 3, 4))
        pins[:, 0] = (0.5, 0.0, -lc / 2, 0.0)
        pins[:, 1] = (lc / 2, 0.0, 0.7, 0.0)
        pins[:, 2, 0] = i
        pins[:, 2, 2] = -0.5
        pairs = [pair for k in range(n_loops) for pair in
                 ((rockers[k], couplers[k]), (couplers[k], rockers[k + 1]), (g, rockers[k + 1]))]
        mech.add_joints(joints.Revolute._many(pairs, pins.reshape(-1, 4)))
    return Model(mech, motor, np.pi / 2 + np.array([0.0, 0.1]), rockers[1],
                 f"chain of {n_loops} four-bar loops")


#: Theo Jansen's "holy numbers": the dimensions of the Strandbeest leg (:func:`jansen_leg`),
#: in his units (often quoted as centimetres). ``a`` and ``l`` place the frame pivot B from the
#: crank axle O (``a`` horizontally, ``l`` vertically), ``m`` is the crank radius, the others
#: are bars (:data:`JANSEN_BARS`).
JANSEN = {"a": 38.0, "b": 41.5, "c": 39.3, "d": 40.1, "e": 55.8, "f": 39.4, "g": 36.7,
          "h": 65.7, "i": 49.0, "j": 50.0, "k": 61.9, "l": 7.8, "m": 15.0}

#: The bars of :func:`jansen_leg`: holy number -> (link, first point, second point). Each link
#: is made by :meth:`~mechsolve.Mechanism.add_link` from its points, so a bar's length is the
#: distance between two named points of one body.
JANSEN_BARS = {
    "m": ("crank", "O", "A"),
    "j": ("rod_j", "A", "C"),
    "k": ("rod_k", "A", "D"),
    "b": ("triangle", "B", "C"),
    "d": ("triangle", "B", "E"),
    "e": ("triangle", "C", "E"),
    "c": ("rocker", "B", "D"),
    "f": ("rod_f", "E", "F"),
    "g": ("foot", "D", "F"),
    "i": ("foot", "D", "P"),
    "h": ("foot", "F", "P"),
}

# A rough sketch of the leg at crank angle 0 (crank pin A = (m, 0)), in the holy numbers'
# units: it only says on which side of each pair of pins a third pin sits.
_JANSEN_SKETCH = {"C": (-25.0, 30.0), "D": (-27.0, -45.0), "E": (-75.0, 8.0),
                  "F": (-59.0, -28.0), "P": (-43.0, -92.0)}


def _compass(p1, r1: float, p2, r2: float, near) -> np.ndarray:
    """The point at distance ``r1`` from ``p1`` and ``r2`` from ``p2`` (ruler and compass: two
    circles meet in two points) nearer ``near``."""
    p1, p2 = np.asarray(p1, float), np.asarray(p2, float)
    d = p2 - p1
    dist = float(np.hypot(d[0], d[1]))
    along = (r1 * r1 - r2 * r2 + dist * dist) / (2 * dist)
    across = r1 * r1 - along * along
    if across < 0:
        raise ValueError(f"circles of radii {r1:g} and {r2:g}, {dist:g} apart, do not meet")
    u = d / dist
    n = np.array([-u[1], u[0]])
    foot = p1 + along * u
    a, b = foot + np.sqrt(across) * n, foot - np.sqrt(across) * n
    near = np.asarray(near, float)
    return a if np.linalg.norm(a - near) <= np.linalg.norm(b - near) else b


def jansen_leg(scale: float = 1.0) -> Model:
    """Theo Jansen's Strandbeest leg, built from its published "holy numbers".

    The dimensions are :data:`JANSEN`. Eight links: the frame, the crank (radius ``m``)
    turning about the axle O at the origin, the rods ``j`` and ``k`` from the crank pin A, the
    triangle B-C-E (sides ``b``, ``d``, ``e``) and the rocker ``c`` both pivoting on the frame
    at B = ``(-a, -l)``, the rod ``f``, and the foot triangle D-F-P (sides ``g``, ``i``,
    ``h``) whose corner P walks (:data:`JANSEN_BARS` lists which bar joins which points).
    Every length is multiplied by ``scale``.

    No trigonometry: the pins are found by ruler and compass at crank angle 0 (each new pin is
    where two circles about known pins meet, the meeting point nearer a rough sketch), each
    link is made from its pins' global positions with
    :meth:`~mechsolve.Mechanism.add_link`, and the ten revolutes join named points. One driver,
    ``motor``, turns the crank; the sweep is a full turn.

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.jansen_leg()
    >>> len(model.mechanism.bodies), model.mechanism.dof().dof
    (7, 1)
    >>> foot = model.mechanism.body("foot")
    >>> round(float(np.linalg.norm(foot.point("P") - foot.point("F"))), 12)
    65.7
    """
    s = as_float(scale, "scale", positive=True)
    n = {key: value * s for key, value in JANSEN.items()}
    sketch = {key: s * np.array(p) for key, p in _JANSEN_SKETCH.items()}
    O = np.zeros(2)
    B = np.array([-n["a"], -n["l"]])
    A = np.array([n["m"], 0.0])
    C = _compass(A, n["j"], B, n["b"], sketch["C"])
    D = _compass(A, n["k"], B, n["c"], sketch["D"])
    E = _compass(B, n["d"], C, n["e"], sketch["E"])
    F = _compass(E, n["f"], D, n["g"], sketch["F"])
    P = _compass(D, n["i"], F, n["h"], sketch["P"])
    mech = Mechanism(name="Jansen leg")
    g = mech.ground
    g.add_point("O", at=O)
    g.add_point("B", at=B)
    crank = mech.add_link("crank", O=O, A=A)
    rod_j = mech.add_link("rod_j", A=A, C=C)
    rod_k = mech.add_link("rod_k", A=A, D=D)
    triangle = mech.add_link("triangle", B=B, C=C, E=E)
    rocker = mech.add_link("rocker", B=B, D=D)
    rod_f = mech.add_link("rod_f", E=E, F=F)
    foot = mech.add_link("foot", D=D, F=F, P=P)
    for name, b1, b2, point in (("O", g, crank, "O"), ("A_j", crank, rod_j, "A"),
                                ("A_k", crank, rod_k, "A"), ("B_triangle", g, triangle, "B"),
                                ("B_rocker", g, rocker, "B"), ("C", rod_j, triangle, "C"),
                                ("D_k", rod_k, rocker, "D"), ("D_foot", rocker, foot, "D"),
                                ("E", triangle, rod_f, "E"), ("F", rod_f, foot, "F")):
        mech.add(joints.Revolute(b1, b2, point, point, name=name))
    motor = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return Model(mech, motor, np.linspace(0, 2 * np.pi, 361), foot,
                 f"Theo Jansen's leg (holy numbers x {s:g}) driven by the crank angle",
                 [(foot, tuple(foot.point("P")))])


DEMOS = {
    "fourbar": fourbar,
    "slider-crank": slider_crank,
    "quick-return": quick_return,
    "watt-sixbar": watt_sixbar,
    "gear-train": gear_train,
    "parallelogram": parallelogram,
    "jansen": jansen_leg,
}
