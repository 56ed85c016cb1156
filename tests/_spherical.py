"""Random spherical four-bars and their closed form, checked from the poses alone.

A spherical four-bar has four hinges whose axes meet at one point ``O``. In Birglen's notation
the link angles (between consecutive axes) are ``eta1`` (ground: input axis ``u_A`` to output
axis ``u_D``), ``eta2`` (input crank: ``u_A`` to ``u_B``), ``eta3`` (coupler: ``u_B`` to
``u_C``) and ``eta4`` (output rocker: ``u_C`` to ``u_D``). In the mechanism's own frame
(``u_A = z``, ``u_D`` in the xz plane at ``eta1`` from z) the crank axis at input angle
``theta`` is ``u_B = (sin eta2 cos theta, sin eta2 sin theta, cos eta2)`` and the rocker axis at
output angle ``phi`` is ``u_C = cos eta4 u_D + sin eta4 (cos phi e1 + sin phi e2)`` with
``e1 = (cos eta1, 0, -sin eta1)``, ``e2 = (0, 1, 0)``. The coupler closes when ``u_B . u_C =
cos eta3`` (the side ``u_B u_C`` of the spherical quadrilateral), that is

    A cos phi + B sin phi = C,   A = sin eta4 (u_B . e1),  B = sin eta4 (u_B . e2),
                                 C = cos eta3 - cos eta4 (u_B . u_D),

so ``phi = atan2(B, A) + s arccos(C / hypot(A, B))`` with ``s = +-1`` the assembly. The two
rocker axes are mirror images of each other in the plane of ``u_B`` and ``u_D`` (both lie at
the same angles from ``u_B`` and from ``u_D``), so the sign of the triple product
``u_B . (u_C x u_D)`` tells the assemblies apart; it is zero only where they meet (a dead
point, ``|C| = hypot(A, B)``), so along a motion it changes only by a jump of assembly.

Every mechanism is drawn with random link angles for which the crank turns fully (with a margin
from the dead points), a random rotation and a random centre far from the origin, random bodies'
placements and random senses of the hinge axes, then built with the public API at a random
input angle on a random assembly. The checks read the bodies' poses only.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import mechsolve as ms
from mechsolve import joints


def _unit(v) -> np.ndarray:
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def _rotation(rng) -> np.ndarray:
    """A random proper rotation matrix (QR of a Gaussian matrix, signs fixed)."""
    Q, R = np.linalg.qr(rng.normal(size=(3, 3)))
    Q = Q * np.sign(np.diag(R))
    if np.linalg.det(Q) < 0:
        Q[:, 0] = -Q[:, 0]
    return Q


def _frame_z(z, rng) -> np.ndarray:
    """A rotation matrix whose third column is ``z`` (the first chosen at random about it)."""
    z = _unit(z)
    x = rng.normal(size=3)
    x = _unit(x - (x @ z) * z)
    return np.column_stack([x, np.cross(z, x), z])


def axes_local(eta, theta):
    """``(u_A, u_B, u_D, e1, e2)`` in the mechanism's own frame at input angle ``theta``
    (scalar or array; ``u_B`` then ``(N, 3)``)."""
    e1_, e2_, _, _ = eta
    theta = np.asarray(theta, float)
    uA = np.array([0.0, 0.0, 1.0])
    uD = np.array([np.sin(e1_), 0.0, np.cos(e1_)])
    uB = np.stack([np.sin(e2_) * np.cos(theta), np.sin(e2_) * np.sin(theta),
                   np.cos(e2_) * np.ones_like(theta)], axis=-1)
    e1 = np.array([np.cos(e1_), 0.0, -np.sin(e1_)])
    e2 = np.array([0.0, 1.0, 0.0])
    return uA, uB, uD, e1, e2


def closure(eta, theta):
    """``(A, B, C)`` of ``A cos phi + B sin phi = C`` at input angle(s) ``theta``."""
    _, _, e3, e4 = eta
    _, uB, uD, e1, e2 = axes_local(eta, theta)
    return (np.sin(e4) * (uB @ e1), np.sin(e4) * (uB @ e2),
            np.cos(e3) - np.cos(e4) * (uB @ uD))


def output_angle(eta, theta, s):
    """The closed-form output angle ``phi`` (see the module's docstring) on assembly ``s``."""
    A, B, C = closure(eta, theta)
    return np.arctan2(B, A) + s * np.arccos(C / np.hypot(A, B))


def rocker_axis(eta, phi) -> np.ndarray:
    """``u_C`` at output angle(s) ``phi`` (mechanism frame)."""
    _, _, _, e4 = eta
    _, _, uD, e1, e2 = axes_local(eta, 0.0)
    phi = np.asarray(phi, float)[..., None]
    return np.cos(e4) * uD + np.sin(e4) * (np.cos(phi) * e1 + np.sin(phi) * e2)


def turn_margin(eta, n: int = 721) -> float:
    """``1 - max |C| / hypot(A, B)`` over a full turn of the crank: positive when it turns
    fully, the distance from the nearest dead point in that measure."""
    A, B, C = closure(eta, np.linspace(0.0, 2 * np.pi, n))
    return float(1.0 - np.max(np.abs(C) / np.hypot(A, B)))


@dataclass
class SphericalFourbar:
    mechanism: ms.Mechanism
    driver: joints.AngleDriver
    eta: tuple
    R: np.ndarray           #: the mechanism frame's axes in global coordinates (columns)
    O: np.ndarray           #: the common point of the axes, global
    L: float                #: the size of the bodies' placements
    theta0: float           #: the input angle at the built pose
    s: int                  #: the assembly built (+-1 in output_angle)
    hinges: tuple           #: (input, B, C, output) revolutes
    axes_on: dict           #: {body name: {axis name: unit axis in body coordinates}}
    input_sense: float      #: +1 if the input hinge's z is +u_A (the driver turns u_B by +theta)

    # -- reading the poses -----------------------------------------------------------------
    def from_states(self, motion):
        """``(theta, u_B, u_C)`` at every pose of ``motion``, in the mechanism frame, from the
        crank's and the rocker's poses."""
        mech = self.mechanism
        crank, rocker = mech.body("crank"), mech.body("rocker")
        qc, qr = motion.pose(crank)[:, 3:], motion.pose(rocker)[:, 3:]
        uB = np.array([_quat_rotate(q, self.axes_on["crank"]["B"]) for q in qc]) @ self.R
        uC = np.array([_quat_rotate(q, self.axes_on["rocker"]["C"]) for q in qr]) @ self.R
        theta = np.arctan2(uB[:, 1], uB[:, 0])
        return theta, uB, uC

    def branch(self, uB, uC) -> np.ndarray:
        """The branch invariant: the sign of ``u_B . (u_C x u_D)`` (mechanism frame)."""
        _, _, uD, _, _ = axes_local(self.eta, 0.0)
        return np.sign(np.einsum("ij,ij->i", uB, np.cross(uC, uD)))


def _quat_rotate(q, v) -> np.ndarray:
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    R = np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                  [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                  [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])
    return R @ v


def random_eta(rng, margin: float = 0.05) -> tuple:
    """Random link angles (radians) with which the crank turns fully, ``turn_margin`` at
    least ``margin``."""
    while True:
        eta = (rng.uniform(0.3, np.pi - 0.3), rng.uniform(0.15, 1.2),
               rng.uniform(0.3, np.pi - 0.3), rng.uniform(0.3, np.pi - 0.3))
        if turn_margin(eta) >= margin:
            return eta


def build(eta, theta0: float, s: int, *, rng, L: float = 1.0, O=None, R=None,
          name: str = "spherical four-bar") -> SphericalFourbar:
    """A spherical four-bar with link angles ``eta`` assembled at input angle ``theta0`` on
    assembly ``s``, placed by the rotation ``R`` (random if None) about the centre ``O``
    (random, about 1000 L from the origin, if None). Bodies sit at random points about ``L``
    from the centre with random orientations; every hinge's axis sense is random."""
    R = _rotation(rng) if R is None else np.asarray(R, float)
    O = (1000.0 * L * _unit(rng.normal(size=3)) + L * rng.normal(size=3)) if O is None \
        else np.asarray(O, float)
    uA, uB, uD, _, _ = axes_local(eta, theta0)
    phi0 = float(output_angle(eta, theta0, s))
    uC = rocker_axis(eta, phi0)
    if not np.all(np.isfinite(uC)):
        raise ValueError(f"link angles {eta} do not assemble at input angle {theta0}")
    U = {k: R @ u for k, u in (("A", uA), ("B", uB), ("C", uC), ("D", uD))}
    mech = ms.Mechanism(dim=3, name=name)
    g = mech.ground
    bodies = {}
    for n, (a, b) in (("crank", ("A", "B")), ("coupler", ("B", "C")), ("rocker", ("C", "D"))):
        pos = O + L * (0.5 * (U[a] + U[b]) + 0.3 * rng.normal(size=3))
        bodies[n] = mech.add_body(n, position=pos,
                                  orientation=ms.Orientation.from_matrix(_rotation(rng)))
    senses = rng.choice([-1.0, 1.0], size=4)
    chain = [(g, bodies["crank"], "A", "input"), (bodies["crank"], bodies["coupler"], "B", "B"),
             (bodies["coupler"], bodies["rocker"], "C", "C"),
             (bodies["rocker"], g, "D", "output")]
    axes_on = {n: {} for n in bodies}
    hinges = []
    for (b1, b2, k, jname), sense in zip(chain, senses):
        frames = []
        for b in (b1, b2):
            Rg = _frame_z(sense * U[k], rng)   # each body's frame turned at random about z
            if b.is_ground:
                frames.append(ms.Frame(O, ms.Orientation.from_matrix(Rg)))
            else:
                Rb = b.rotation
                frames.append(ms.Frame(Rb.T @ (O - b.position),
                                       ms.Orientation.from_matrix(Rb.T @ Rg)))
                axes_on[b.name][k] = Rb.T @ U[k]
        hinges.append(mech.add(joints.Revolute(b1, b2, frames[0], frames[1], name=jname)))
    drive = mech.add(joints.AngleDriver(hinges[0], 0.0, name="motor"))
    drive.value = hinges[0].angle()
    return SphericalFourbar(mech, drive, tuple(eta), R, O, L, float(theta0), int(s),
                            tuple(hinges), axes_on, float(senses[0]))


def draw(seed: int, **options) -> SphericalFourbar:
    """The spherical four-bar of ``seed``: random link angles (full-turn crank), input angle,
    assembly, placement."""
    rng = np.random.default_rng(seed)
    eta = random_eta(rng)
    theta0 = rng.uniform(-np.pi, np.pi)
    s = int(rng.choice([-1, 1]))
    return build(eta, theta0, s, rng=rng, **options)


def hinge_checks(model: SphericalFourbar, motion) -> tuple[np.ndarray, np.ndarray]:
    """For every pose of ``motion``: the smallest ``z1 . z2`` over the four hinges (1 on a
    true assembly, -1 where one is mirrored) and the largest distance between a hinge's two
    frame origins, relative to ``L``; from the poses and the joints' frames."""
    zz = np.full(len(motion), np.inf)
    gap = np.zeros(len(motion))
    for j in model.hinges:
        b1, b2 = j.bodies
        P1, P2 = motion.pose(b1), motion.pose(b2)
        f1, f2 = j._p[3:7], j._p[10:14]
        z1l = _quat_rotate(f1, [0.0, 0.0, 1.0])
        z2l = _quat_rotate(f2, [0.0, 0.0, 1.0])
        o1l, o2l = j._p[0:3], j._p[7:10]
        for i in range(len(motion)):
            z1, z2 = _quat_rotate(P1[i, 3:], z1l), _quat_rotate(P2[i, 3:], z2l)
            p1 = P1[i, :3] + _quat_rotate(P1[i, 3:], o1l)
            p2 = P2[i, :3] + _quat_rotate(P2[i, 3:], o2l)
            zz[i] = min(zz[i], float(z1 @ z2))
            gap[i] = max(gap[i], float(np.linalg.norm(p1 - p2)) / model.L)
    return zz, gap


class Current:
    """The mechanism's current pose as a one-pose motion (for :func:`hinge_checks` and
    :meth:`SphericalFourbar.from_states`)."""

    def __init__(self, model: SphericalFourbar) -> None:
        self.mechanism = model.mechanism

    def __len__(self) -> int:
        return 1

    def pose(self, body) -> np.ndarray:
        return body.pose[None].copy()
