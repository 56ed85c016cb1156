"""The randomized reliability campaign: random assemblable linkages, solved from rough starts,
every answer checked from the poses alone.

Every trial draws a mechanism *from a pose*: random joint points (and axes, for spatial
linkages) and random body poses, the joints' local parameters computed from them, so that the
drawn pose is an assembly by construction. The lengths are multiplied by a random unit scale in
``1e-6 .. 1e6``. The solver starts from that pose perturbed (angles by up to 0.1 rad, positions
by up to 5 % of the mechanism's size, orientations by a rotation of up to 0.1 rad) and its
answer is checked by this module's own geometry, written from the poses (pins coincide, hinge
axes parallel and same-signed, sliders on their lines, welds coincide, rods at their length,
universal joints' pins perpendicular, drivers at their values, all to 1e-12 relative) -- never
from the solver's residual.

Kinds: planar four-bars, slider-cranks, Watt and Stephenson six-bars, five-bars with both
cranks driven; spatial RSSR, spherical four-bars, welds and hinges, Bennett linkages (the
overconstrained 4R loop, mobile through redundancy), RSUR, RSSP and 6-6 Stewart platforms
(the platform's pose from its six leg lengths; the start 6 % of the size and up to 0.1 rad off).

Outcomes of a trial:

* ``ok``: success, every check holds, and the pose is the drawn assembly;
* ``nearer_assembly``: success, every check holds, on another assembly than the drawn one
  that the start was nearer to (the drawn pose is then close to a toggle: fair);
* ``sketched_circuit``: success, every check holds, on another assembly than the drawn one
  whose sign of ``det J`` is the start's while the drawn one's is not: the start sketches the
  other circuit (it lies across a singular configuration from the drawn pose), and the solve
  keeps to the circuit sketched (square systems: ``J`` of this module's rows as the joints
  count them, a hinge's axes by two components, a weld's rotation by three); for redundant
  linkages (spherical four-bars, Bennett) the same with the branch invariant (below)
  evaluated at the start;
* ``other_assembly``: success, every check holds, but on another assembly than the drawn one,
  the start being nearer the drawn one (a branch jump); in batch trials, an item of
  ``solve_batch`` on another assembly than ``solve()`` from the same start;
* ``false_success``: success reported on a pose that fails a check (the goal is none); in
  velocity trials, velocities that differ from finite differences of solved poses;
* ``false_failure``: a SolveError on this assemblable mechanism from this near start (for
  Stewart platforms, from a start from which plain least squares on this module's own
  residuals reaches the drawn pose); in batch trials, an item failed by one of
  ``solve_batch`` and ``solve()`` and converged by the other;
* ``skipped``: the drawn pose is too close to singular to make a fair trial (the conditioning
  of this module's own constraint Jacobian, by finite differences, above 1e6), or there is no
  fair trial to make (a Stewart start from which least squares misses the drawn pose too, a
  five-bar with no path that keeps off its dead centres);
* ``limit``: a sweep that stops where this module's own closed form says a value of its range
  cannot be assembled, or a target that cannot be assembled refused with a SolveError;
* ``branch_jump``: a sweep whose assembly mode (a branch invariant computed from the poses)
  changes between steps;
* ``unlike_origin`` (far trials): the same trial drawn far from the origin ends otherwise than
  at the origin: another outcome, or another assembly (velocity trials: velocities that,
  placed back, differ from the origin's differences). This is the one outcome added to the
  campaign of issue 18.

**Placement.** A far trial draws the same mechanism, start and sweep as the trial of the same
kind and seed at the origin, then places all of it -- ground's joint points, body poses, the
start -- by a random rotation and a translation of ``10**U(0, 6)`` times the size in a random
direction. Its checks hold to round-off of the coordinates (``TOL + 16 eps * distance / size``)
and its answer, placed back, must be the origin trial's (same outcome, same assembly).

**Sweeps** move the driver from the drawn pose -- planar four-bars and slider-cranks by up to
0.3 rad in 30 steps; RSSR, spherical four-bars, Bennett linkages, RSUR and RSSP by up to a
full turn either way in 60 steps, kept 0.05 rad inside the first value the closed form cannot
assemble -- and check every pose the same way (a mirrored hinge fails the same-signed axes
check) and that the assembly mode never flips: a flip is a branch jump. The modes, from
the poses: a four-bar's rocker pin side of the coupler line; the side of the plane through the
rocker axis and the crank pin that an RSSR's or RSUR's rocker pin is on (and, for an RSUR,
the sign of the universal joint's angle rate about the coupler line); a spherical four-bar's
coupler-rocker axis side of the plane of the crank-coupler and rocker-ground axes; an RSSP's
slider side of the crank pin's foot on the slide line; a Bennett linkage's second joint angle
against the closed form ``tan(theta1/2) tan(theta2/2) = sin((b+a)/2) / sin((b-a)/2)`` (its
only non-mirrored assembly). A sweep that stops is a limit only where the closed form says a
value of the range cannot be assembled.

**Branch trials** start a four-bar near its *other* assembly and ask ``solve(branch=...)``
for the drawn one; the answer must be the drawn pose, and a sweep from it must keep its mode.

**Move trials** (several drivers at once) change both drivers of a five-bar along a straight
path that this module's closed form follows in 20 steps with a margin from the dead centres
(the coupler angle's sine above 0.1), and ``solve()`` from the drawn pose must land on the
closed form's pose at the new values; a quarter of them ask for values that cannot be
assembled, which must be refused by a SolveError (``limit``).

**Batch trials** solve 8 rough starts (half of them at a driver value changed by up to
0.05) with ``solve_batch`` and each with ``solve()``: the same success and the same assembly,
item by item, poses checked from the geometry; half the seeds draw a size of ``1e4 .. 1e6``.

**Velocity trials** compare ``velocity()`` and ``point_velocity()`` under a ConstantSpeed
driver profile with central differences of poses solved at driver values ``+-h, +-2h``
(Richardson-extrapolated; ``h = 1e-3 / 4^k``, the two successive steps that agree best give
the estimate and its uncertainty), to 1e-6 relative (plus that uncertainty, itself at most
1e-7, else the trial is skipped); four-bars and RSSRs half of the time 0.1 rad from a dead
centre of their crank, by the closed form. Far trials are also compared, placed back, with the
same trial's differences at the origin (far from the origin the differences themselves may
not settle to 1e-7). A stencil value that the solver refuses while this module's own least
squares assembles it near the pose is a false failure. Poses whose conditioning is above 1e3
are skipped (mechsolve calls a pose singular for velocities below a singular-value ratio of
1e-4 of its own scaling).

Used by ``tests/test_campaign.py`` (a derandomized budget) and ``benchmarks/campaign.py``
(10^4 trials and more, with a table).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, field

import numpy as np

import mechsolve as ms
from mechsolve import joints

TOL = 1e-12
EPS = float(np.finfo(float).eps)
#: how many eps of the distance from the origin (in sizes) the checks of a far trial allow:
#: the solver's own pose precision there (POSE_RTOL = 1e-14, 45 eps, of each coordinate)
FAR_EPS = 64.0
#: velocities against finite differences: relative tolerance
RATE_TOL = 1e-6
KINDS_PLANAR = ("fourbar", "slider_crank", "watt", "stephenson", "five_bar")
KINDS_SPATIAL = ("rssr", "spherical_fourbar", "welds_and_hinges", "bennett", "rsur", "rssp",
                 "stewart")
KINDS = KINDS_PLANAR + KINDS_SPATIAL
SWEEP_KINDS = ("fourbar", "slider_crank", "rssr", "spherical_fourbar", "bennett", "rsur",
               "rssp")
OUTCOMES = ("ok", "nearer_assembly", "sketched_circuit", "other_assembly", "false_success",
            "false_failure", "branch_jump", "unlike_origin", "limit", "skipped")
BAD = ("false_success", "false_failure", "branch_jump", "other_assembly", "unlike_origin")


@dataclass
class Trial:
    kind: str
    seed: int
    scale: float
    outcome: str = ""
    detail: str = ""
    worst: float = 0.0          # the largest check value, relative
    sweep: bool = False
    far: float = 0.0            # distance of the placement from the origin, in sizes
    extra: dict = field(default_factory=dict)

    @property
    def row(self) -> str:
        """The table's row: the kind, `` sweep`` and `` far`` as they apply."""
        return self.kind + (" sweep" if self.sweep else "") + (" far" if self.far else "")

    def replay(self) -> str:
        """The call that replays this trial."""
        kind, _, what = self.kind.partition(" ")
        far = ", far=True" if self.far else ""
        if what == "branch":
            return f"run_branch_trial({self.seed})"
        if what in ("batch", "velocity", "move"):
            args = f"{kind!r}, " if what != "move" else ""
            return f"run_{what}_trial({args}{self.seed}{far})"
        sweep = ", sweep=True" if self.sweep else ""
        return f"run_trial({kind!r}, {self.seed}{sweep}{far})"


# -- geometry of this module's own -------------------------------------------------------------
def _rot2(t: float) -> np.ndarray:
    c, s = np.cos(t), np.sin(t)
    return np.array([[c, -s], [s, c]])


def _quat_matrix(q) -> np.ndarray:
    w, x, y, z = np.asarray(q, float) / np.linalg.norm(q)
    return np.array([[1 - 2 * (y * y + z * z), 2 * (x * y - w * z), 2 * (x * z + w * y)],
                     [2 * (x * y + w * z), 1 - 2 * (x * x + z * z), 2 * (y * z - w * x)],
                     [2 * (x * z - w * y), 2 * (y * z + w * x), 1 - 2 * (x * x + y * y)]])


def _random_rotation(rng) -> np.ndarray:
    q = rng.normal(size=4)
    return _quat_matrix(q / np.linalg.norm(q))


def _cross(a, b) -> np.ndarray:
    return np.array([a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2],
                     a[0] * b[1] - a[1] * b[0]])


def _rotvec(v) -> np.ndarray:
    v = np.asarray(v, float)
    t = np.linalg.norm(v)
    if t == 0.0:
        return np.eye(3)
    k = v / t
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


def _log_rotation(R) -> np.ndarray:
    """The rotation vector of ``R`` (angle below pi)."""
    w = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    s = np.linalg.norm(w)
    t = np.arctan2(s, 0.5 * (np.trace(R) - 1.0))
    return w * (t / s) if s > 0.0 else w


def _matrix_quat(R) -> np.ndarray:
    """Unit quaternion (w, x, y, z), ``w >= 0``, of a rotation matrix (Shepperd's method)."""
    R = np.asarray(R, float)
    t = R[0, 0] + R[1, 1] + R[2, 2]
    k = int(np.argmax((t, R[0, 0], R[1, 1], R[2, 2])))
    if k == 0:
        s = 2.0 * np.sqrt(1.0 + t)
        q = (s / 4, (R[2, 1] - R[1, 2]) / s, (R[0, 2] - R[2, 0]) / s, (R[1, 0] - R[0, 1]) / s)
    elif k == 1:
        s = 2.0 * np.sqrt(1.0 + R[0, 0] - R[1, 1] - R[2, 2])
        q = ((R[2, 1] - R[1, 2]) / s, s / 4, (R[0, 1] + R[1, 0]) / s, (R[0, 2] + R[2, 0]) / s)
    elif k == 2:
        s = 2.0 * np.sqrt(1.0 + R[1, 1] - R[0, 0] - R[2, 2])
        q = ((R[0, 2] - R[2, 0]) / s, (R[0, 1] + R[1, 0]) / s, s / 4, (R[1, 2] + R[2, 1]) / s)
    else:
        s = 2.0 * np.sqrt(1.0 + R[2, 2] - R[0, 0] - R[1, 1])
        q = ((R[1, 0] - R[0, 1]) / s, (R[0, 2] + R[2, 0]) / s, (R[1, 2] + R[2, 1]) / s, s / 4)
    q = np.array(q)
    q /= np.linalg.norm(q)
    return -q if q[0] < 0 else q


def _frame_z(z, rng) -> np.ndarray:
    """A rotation whose third column is ``z`` (random about it)."""
    z = z / np.linalg.norm(z)
    a = rng.normal(size=3)
    x = a - (a @ z) * z
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


def _wrap(a):
    return np.angle(np.exp(1j * np.asarray(a, float)))


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


# -- planar linkages drawn from a pose ----------------------------------------------------------
class _Planar:
    """A planar linkage drawn from a pose: bodies ``(position, angle)``, joints by global
    geometry, and the independent checks."""

    dim = 2

    def __init__(self, rng, scale: float):
        self.rng = rng
        self.L = scale
        self.poses: list = []          # per moving body: (r (2,), t)
        self.names: list = []
        self.revolutes: list = []      # (i, j, P global); index -1 is ground
        self.prismatics: list = []     # (i, j, P global, u global, relative angle)
        self.drivers: list = []        # (body index, value): each body's angle driven
        self.mode = None               # callable (g, q) -> tuple, the assembly's invariant
        self.unit = 1.0                # the drivers' unit (angles)

    @property
    def driver(self):
        return self.drivers[0]

    @driver.setter
    def driver(self, value):
        self.drivers = [value]

    def body(self, name, near):
        r = np.asarray(near, float) + self.rng.normal(scale=0.3 * self.L, size=2)
        t = float(self.rng.uniform(-np.pi, np.pi))
        self.poses.append((r, t))
        self.names.append(name)
        return len(self.poses) - 1

    def pose_of(self, i, q=None):
        if i < 0:
            return np.zeros(2), 0.0
        if q is None:
            return self.poses[i]
        return q[3 * i:3 * i + 2], q[3 * i + 2]

    def local(self, i, P):
        r, t = self.pose_of(i)
        return _rot2(t).T @ (P - r)

    def point(self, i, P, q=None):
        """Where the point of body ``i`` that the drawn pose puts at ``P`` is at ``q``."""
        r, t = self.pose_of(i, q)
        return r + _rot2(t) @ self.local(i, P)

    @property
    def q_true(self) -> np.ndarray:
        return np.concatenate([np.r_[r, t] for r, t in self.poses])

    def values(self) -> list:
        return [v for _, v in self.drivers]

    def build(self):
        mech = ms.Mechanism()
        bodies = [mech.add_body(n, r, t) for n, (r, t) in zip(self.names, self.poses)]
        at = lambda i: mech.ground if i < 0 else bodies[i]  # noqa: E731
        for k, (i, j, P) in enumerate(self.revolutes):
            mech.add(joints.Revolute(at(i), at(j), self.local(i, P), self.local(j, P),
                                     name=f"R{k}"))
        for k, (i, j, P, u, _) in enumerate(self.prismatics):
            ti, tj = self.pose_of(i)[1], self.pose_of(j)[1]
            mech.add(joints.Prismatic(at(i), at(j), self.local(i, P), self.local(j, P),
                                      axis=_rot2(ti).T @ u, axis2=_rot2(tj).T @ u,
                                      name=f"P{k}"))
        self.driver_joints = [
            mech.add(joints.Driver(bodies[i], "angle", value,
                                   name="drive" if k == 0 else f"drive{k + 1}"))
            for k, (i, value) in enumerate(self.drivers)]
        self.bodies = bodies
        return mech, self.driver_joints[0]

    def _values(self, value):
        if value is None:
            return self.values()
        if np.ndim(value) == 0:
            return [value] + self.values()[1:]
        return list(value)

    def residuals(self, q, value=None) -> np.ndarray:
        """This module's constraint values at ``q``, lengths divided by the size; ``value``
        replaces the first driver's value (a number) or all of them (a sequence)."""
        out = []
        locs = [(self.local(i, P), self.local(j, P)) for i, j, P in self.revolutes]
        for (i, j, _), (p1, p2) in zip(self.revolutes, locs):
            r1, t1 = self.pose_of(i, q)
            r2, t2 = self.pose_of(j, q)
            out.extend((r1 + _rot2(t1) @ p1 - r2 - _rot2(t2) @ p2) / self.L)
        for i, j, P, u, rel in self.prismatics:
            p1, p2 = self.local(i, P), self.local(j, P)
            ul = _rot2(self.pose_of(i)[1]).T @ u
            r1, t1 = self.pose_of(i, q)
            r2, t2 = self.pose_of(j, q)
            d = r2 + _rot2(t2) @ p2 - r1 - _rot2(t1) @ p1
            w = _rot2(t1) @ ul
            out.append((w[0] * d[1] - w[1] * d[0]) / self.L)
            out.append(np.angle(np.exp(1j * (t2 - t1 - rel))))
        for (i, _), v in zip(self.drivers, self._values(value)):
            out.append(np.angle(np.exp(1j * (q[3 * i + 2] - v))) / max(1.0, abs(v)))
        return np.array(out)

    def start(self):
        q = self.q_true.copy()
        n = len(self.poses)
        for i in range(n):
            q[3 * i:3 * i + 2] += self.rng.uniform(-0.05, 0.05, 2) * self.L
            q[3 * i + 2] += self.rng.uniform(-0.1, 0.1)
        return q

    def distance(self, q, ref=None) -> float:
        """How far ``q`` is from the drawn pose, or from ``ref`` (size-relative lengths,
        radians)."""
        d = q - (self.q_true if ref is None else ref)
        d[2::3] = np.angle(np.exp(1j * d[2::3]))
        d[0::3] /= self.L
        d[1::3] /= self.L
        return float(np.max(np.abs(d)))

    def increment(self, q, dx):
        return q + np.where(np.arange(q.size) % 3 == 2, 1.0, self.L) * dx

    # -- placement
    def placed(self, R, c):
        """A copy of this linkage with all of it turned by ``R`` and moved by ``c``."""
        g = copy.copy(self)
        phi = float(np.arctan2(R[1, 0], R[0, 0]))
        g.poses = [(R @ r + c, t + phi) for r, t in self.poses]
        g.revolutes = [(i, j, R @ P + c) for i, j, P in self.revolutes]
        # a prismatic's relative angle turns with the placement where one side is ground
        g.prismatics = [(i, j, R @ P + c, R @ u, rel + phi * ((i < 0) - (j < 0)))
                        for i, j, P, u, rel in self.prismatics]
        g.drivers = [(i, v + phi) for i, v in self.drivers]
        return g

    def place_state(self, q, R, c, back: bool = False):
        """A state placed by ``R``, ``c`` (or placed back, with ``back``)."""
        phi = float(np.arctan2(R[1, 0], R[0, 0]))
        q = np.array(q, float)
        for i in range(len(self.poses)):
            r = q[3 * i:3 * i + 2]
            q[3 * i:3 * i + 2] = R.T @ (r - c) if back else R @ r + c
            q[3 * i + 2] += -phi if back else phi
        return q

    def place_values(self, values, R, back: bool = False):
        phi = float(np.arctan2(R[1, 0], R[0, 0]))
        return np.asarray(values, float) + (-phi if back else phi)

    # -- rates
    def rate(self, qp, qm, h):
        """Central difference ``(qp - qm) / 2h`` in the solver's velocity layout."""
        d = qp - qm
        d[2::3] = _wrap(d[2::3])
        return d / (2 * h)

    def rate_scale(self):
        return np.tile([self.L, self.L, 1.0], len(self.poses))

    def rotate_rates(self, nu, R):
        """Velocities ``(xdot, ydot, thetadot)`` per body seen turned by ``R``."""
        nu = np.array(nu, float).reshape(-1, 3)
        nu[:, :2] = nu[:, :2] @ R.T
        return nu.ravel()


def _fourbar(rng, L):
    g = _Planar(rng, L)
    O2, O4 = np.zeros(2), rng.uniform(2, 4) * L * np.array([np.cos(a := rng.uniform(-.5, .5)),
                                                            np.sin(a)])
    A = O2 + rng.uniform(0.5, 1.5) * L * np.array([np.cos(b := rng.uniform(-np.pi, np.pi)),
                                                   np.sin(b)])
    B = O4 + rng.uniform(1.0, 3.0) * L * np.array([np.cos(c := rng.uniform(-np.pi, np.pi)),
                                                   np.sin(c)])
    crank, coupler, rocker = g.body("crank", (O2 + A) / 2), g.body("coupler", (A + B) / 2), \
        g.body("rocker", (B + O4) / 2)
    g.revolutes += [(-1, crank, O2), (crank, coupler, A), (coupler, rocker, B),
                    (rocker, -1, O4)]
    g.driver = (crank, g.poses[crank][1])
    g.mode = _mode
    return g


def _slider_crank(rng, L):
    g = _Planar(rng, L)
    O = np.zeros(2)
    A = rng.uniform(0.5, 1.5) * L * np.array([np.cos(b := rng.uniform(-np.pi, np.pi)),
                                              np.sin(b)])
    u = np.array([np.cos(a := rng.uniform(-np.pi, np.pi)), np.sin(a)])
    B = A + rng.uniform(1.5, 4.0) * L * np.array([np.cos(c := rng.uniform(-np.pi, np.pi)),
                                                  np.sin(c)])
    crank, rod, slider = g.body("crank", (O + A) / 2), g.body("rod", (A + B) / 2), \
        g.body("slider", B)
    g.revolutes += [(-1, crank, O), (crank, rod, A), (rod, slider, B)]
    g.prismatics.append((-1, slider, B, u, g.poses[slider][1]))
    g.driver = (crank, g.poses[crank][1])
    g.mode = _slider_mode
    return g


def _sixbar(rng, L, watt: bool):
    g = _Planar(rng, L)
    pts = {k: rng.uniform(-2, 2, 2) * L for k in "abcdefg"}
    if watt:
        # ternary links ground and body 0, joined directly
        names = ("t", "l1", "l2", "l3", "l4")
        idx = {n: g.body(n, rng.uniform(-1, 1, 2) * L) for n in names}
        t, l1, l2, l3, l4 = (idx[n] for n in names)
        g.revolutes += [(-1, t, pts["a"]), (-1, l1, pts["b"]), (-1, l3, pts["c"]),
                        (t, l2, pts["d"]), (t, l4, pts["e"]), (l1, l2, pts["f"]),
                        (l3, l4, pts["g"])]
        g.driver = (l1, g.poses[l1][1])
    else:
        # Stephenson: ternary links ground and body 1, not joined directly
        names = ("crank", "t", "rocker", "l4", "l5")
        idx = {n: g.body(n, rng.uniform(-1, 1, 2) * L) for n in names}
        c, t, r, l4, l5 = (idx[n] for n in names)
        g.revolutes += [(-1, c, pts["a"]), (c, t, pts["b"]), (t, r, pts["c"]),
                        (r, -1, pts["d"]), (t, l4, pts["e"]), (l4, l5, pts["f"]),
                        (l5, -1, pts["g"])]
        g.driver = (c, g.poses[c][1])
    return g


def _five_bar(rng, L):
    """A five-bar with both cranks driven: ground pivots O1, O2, cranks to A and B, two
    coupler links meeting at C."""
    g = _Planar(rng, L)
    O1 = np.zeros(2)
    O2 = rng.uniform(1.5, 3.0) * L * np.array([np.cos(a := rng.uniform(-.5, .5)), np.sin(a)])
    A = O1 + rng.uniform(0.5, 1.5) * L * np.array([np.cos(b := rng.uniform(-np.pi, np.pi)),
                                                   np.sin(b)])
    B = O2 + rng.uniform(0.5, 1.5) * L * np.array([np.cos(c := rng.uniform(-np.pi, np.pi)),
                                                   np.sin(c)])
    C = (A + B) / 2 + rng.normal(scale=1.2 * L, size=2)
    a, b, c, d = (g.body(n, m) for n, m in (("a", (O1 + A) / 2), ("b", (A + C) / 2),
                                             ("c", (C + B) / 2), ("d", (B + O2) / 2)))
    g.revolutes += [(-1, a, O1), (a, b, A), (b, c, C), (c, d, B), (d, -1, O2)]
    g.drivers = [(a, g.poses[a][1]), (d, g.poses[d][1])]
    g.mode = _five_bar_mode
    return g


def _mode(g, q) -> tuple:
    """The assembly mode of a four-bar: the side of the coupler line the rocker pivot is on."""
    coupler = 1
    (_, _, A), (_, _, B), (_, _, O4) = g.revolutes[1], g.revolutes[2], g.revolutes[3]
    r1, t1 = g.pose_of(coupler, q)
    a = r1 + _rot2(t1) @ g.local(coupler, A)
    b = r1 + _rot2(t1) @ g.local(coupler, B)
    u, v = b - a, O4 - b
    return (float(np.sign(u[0] * v[1] - u[1] * v[0])),)


def _slider_mode(g, q) -> tuple:
    """A slider-crank's assembly mode: the side of the crank pin's foot on the slide line
    that the slider pin is on."""
    (_, crank, _), (_, rod, A), (_, slider, B) = g.revolutes
    u = g.prismatics[0][3]
    a, b = g.point(crank, A, q), g.point(slider, B, q)
    return (float(np.sign((b - a) @ u)),)


def _five_bar_mode(g, q) -> tuple:
    """A five-bar's assembly mode: the side of the crank pins' line the coupler pin is on."""
    (_, a, _), (_, b, A), (_, c, C), (_, d, B), _ = g.revolutes
    pa, pb, pc = g.point(a, A, q), g.point(d, B, q), g.point(b, C, q)
    u, v = pb - pa, pc - pa
    return (float(np.sign(u[0] * v[1] - u[1] * v[0])),)


# -- spatial linkages drawn from a pose ---------------------------------------------------------
class _Spatial:
    """A spatial linkage drawn from a pose: bodies ``(r, R)``, joints by global geometry."""

    dim = 3

    def __init__(self, rng, scale):
        self.rng = rng
        self.L = scale
        self.poses: list = []
        self.names: list = []
        self.hinges: list = []   # (i, j, P, Rj): joint frame at P with axis Rj[:, 2]
        self.welds: list = []    # (i, j, P, Rj)
        self.sliders: list = []  # (i, j, P, Rj): slide along Rj[:, 2], rotation locked
        self.balls: list = []    # (i, j, P)
        self.universals: list = []   # (i, j, P, Ri, Rj): pins Ri[:, 2], Rj[:, 2] perpendicular
        self.rods: list = []     # (i, j, P1, P2, length)
        self.rod_drivers = False     # the rods are the drivers (legs), their lengths the values
        self.driven = None       # hinge index
        self.value = 0.0
        self.mode = None         # callable (g, q) -> tuple, the assembly's invariant
        self.reach = None        # callable (g, value) -> bool: the value can be assembled
        self.offset = None       # a start this far off (size-relative) in a random direction
        self.unit = 1.0          # the drivers' unit: 1 for angles, the size for legs

    def body(self, name, near, R=None):
        r = np.asarray(near, float) + self.rng.normal(scale=0.3 * self.L, size=3)
        self.poses.append((r, _random_rotation(self.rng) if R is None else R))
        self.names.append(name)
        return len(self.poses) - 1

    def pose_of(self, i, q=None):
        if i < 0:
            return np.zeros(3), np.eye(3)
        if q is None:
            return self.poses[i]
        return q[7 * i:7 * i + 3], _quat_matrix(q[7 * i + 3:7 * i + 7])

    def point(self, i, P, q=None):
        """Where the point of body ``i`` that the drawn pose puts at ``P`` is at ``q``."""
        if i < 0:
            return P
        r, R = self.pose_of(i, q)
        s, S = self.poses[i]
        return r + R @ (S.T @ (P - s))

    def axes(self, i, Rj, q=None):
        """The frame of body ``i`` that the drawn pose puts at orientation ``Rj``, at ``q``."""
        if i < 0:
            return Rj
        return self.pose_of(i, q)[1] @ (self.poses[i][1].T @ Rj)

    def frame(self, i, P, Rj):
        r, R = self.pose_of(i)
        return ms.Frame(R.T @ (P - r), ms.Orientation.from_matrix(R.T @ Rj))

    def local(self, i, P):
        r, R = self.pose_of(i)
        return R.T @ (P - r)

    @property
    def q_true(self) -> np.ndarray:
        return np.concatenate([np.r_[r, _matrix_quat(R)] for r, R in self.poses])

    def values(self) -> list:
        if self.rod_drivers:
            return [rod[4] for rod in self.rods]
        return [self.value]

    def build(self):
        mech = ms.Mechanism(dim=3)
        bodies = [mech.add_body(n, r, orientation=ms.Orientation.from_matrix(R))
                  for n, (r, R) in zip(self.names, self.poses)]
        at = lambda i: mech.ground if i < 0 else bodies[i]  # noqa: E731
        made = []
        for k, (i, j, P, Rj) in enumerate(self.hinges):
            made.append(mech.add(joints.Revolute(at(i), at(j), self.frame(i, P, Rj),
                                                 self.frame(j, P, Rj), name=f"H{k}")))
        for k, (i, j, P, Rj) in enumerate(self.welds):
            mech.add(joints.Fixed(at(i), at(j), self.frame(i, P, Rj), self.frame(j, P, Rj),
                                  name=f"W{k}"))
        for k, (i, j, P, Rj) in enumerate(self.sliders):
            mech.add(joints.Prismatic(at(i), at(j), self.frame(i, P, Rj),
                                      self.frame(j, P, Rj), name=f"P{k}"))
        for k, (i, j, P) in enumerate(self.balls):
            mech.add(joints.Spherical(at(i), at(j), self.local(i, P), self.local(j, P),
                                      name=f"S{k}"))
        for k, (i, j, P, Ri, Rj) in enumerate(self.universals):
            mech.add(joints.Universal(at(i), at(j), self.frame(i, P, Ri), self.frame(j, P, Rj),
                                      name=f"U{k}"))
        rods = []
        for k, (i, j, P1, P2, length) in enumerate(self.rods):
            kind, name = ((joints.DistanceDriver, f"leg{k + 1}") if self.rod_drivers
                          else (joints.Distance, f"D{k}"))
            rods.append(mech.add(kind(at(i), at(j), self.local(i, P1), self.local(j, P2),
                                      length, name=name)))
        if self.rod_drivers:
            self.driver_joints = rods
        else:
            self.driver_joints = [mech.add(joints.AngleDriver(made[self.driven], self.value,
                                                              name="drive"))]
        self.bodies = bodies
        return mech, self.driver_joints[0]

    def _values(self, value):
        if value is None:
            return self.values()
        if np.ndim(value) == 0:
            return [value] + self.values()[1:]
        return list(value)

    def hinge_angle(self, k, q):
        """The rotation of body ``j``'s joint frame about the hinge axis, from body ``i``'s."""
        i, j, _, Rj = self.hinges[k]
        A1, A2 = self.axes(i, Rj, q), self.axes(j, Rj, q)
        x1, x2, z = A1[:, 0], A2[:, 0], A1[:, 2]
        return float(np.arctan2(_cross(x1, x2) @ z, x1 @ x2))

    def residuals(self, q, value=None):
        """This module's constraint values at ``q``, lengths divided by the size; ``value``
        replaces the first driver's value (a number) or all of them (a sequence)."""
        out = []
        L = self.L
        for i, j, P, Rj in self.hinges:
            A1, A2 = self.axes(i, Rj, q), self.axes(j, Rj, q)
            out.extend((self.point(i, P, q) - self.point(j, P, q)) / L)
            out.extend(_cross(A1[:, 2], A2[:, 2]))
            out.append(min(0.0, A1[:, 2] @ A2[:, 2]))     # same-signed
        for i, j, P, Rj in self.welds:
            out.extend((self.point(i, P, q) - self.point(j, P, q)) / L)
            out.extend((self.axes(i, Rj, q) - self.axes(j, Rj, q)).ravel())
        for i, j, P, Rj in self.sliders:
            A1, A2 = self.axes(i, Rj, q), self.axes(j, Rj, q)
            out.extend(_cross(A1[:, 2], self.point(j, P, q) - self.point(i, P, q)) / L)
            out.extend((A1 - A2).ravel())
        return np.array(out + self._point_rows(q, value))

    def _point_rows(self, q, value) -> list:
        """The rows of the balls, universal joints, rods and drivers."""
        out = []
        L = self.L
        for i, j, P in self.balls:
            out.extend((self.point(i, P, q) - self.point(j, P, q)) / L)
        for i, j, P, Ri, Rj in self.universals:
            out.extend((self.point(i, P, q) - self.point(j, P, q)) / L)
            out.append(self.axes(i, Ri, q)[:, 2] @ self.axes(j, Rj, q)[:, 2])
        values = self._values(value)
        for k, (i, j, P1, P2, length) in enumerate(self.rods):
            d = self.point(i, P1, q) - self.point(j, P2, q)
            out.append((np.linalg.norm(d) - (values[k] if self.rod_drivers else length)) / L)
        if not self.rod_drivers:
            out.append(np.angle(np.exp(1j * (self.hinge_angle(self.driven, q) - values[0]))))
        return out

    def square_residuals(self, q, value=None):
        """The constraint values as the joints count their equations (a hinge's axes by two
        components, a weld's rotation by three): the Jacobian is square for a fully driven,
        non-redundant linkage, and the sign of its determinant tells circuits apart."""
        out = []
        L = self.L

        def rotation(A1, A2):
            return [A1[:, 1] @ A2[:, 2], A1[:, 2] @ A2[:, 0], A1[:, 0] @ A2[:, 1]]

        for i, j, P, Rj in self.hinges:
            A1, A2 = self.axes(i, Rj, q), self.axes(j, Rj, q)
            out.extend((self.point(i, P, q) - self.point(j, P, q)) / L)
            out.extend([A1[:, 0] @ A2[:, 2], A1[:, 1] @ A2[:, 2]])
        for i, j, P, Rj in self.welds:
            out.extend((self.point(i, P, q) - self.point(j, P, q)) / L)
            out.extend(rotation(self.axes(i, Rj, q), self.axes(j, Rj, q)))
        for i, j, P, Rj in self.sliders:
            A1, A2 = self.axes(i, Rj, q), self.axes(j, Rj, q)
            d = self.point(j, P, q) - self.point(i, P, q)
            out.extend([A1[:, 0] @ d / L, A1[:, 1] @ d / L])
            out.extend(rotation(A1, A2))
        return np.array(out + self._point_rows(q, value))

    def start(self):
        q = self.q_true.copy()
        if self.offset is not None:
            # the platform's pose off by exactly ``offset`` of the size, a rotation up to 0.1
            for i in range(len(self.poses)):
                q[7 * i:7 * i + 3] += self.offset * self.L * _unit(self.rng)
                v = _unit(self.rng) * self.rng.uniform(0, 0.1)
                q[7 * i + 3:7 * i + 7] = _matrix_quat(_rotvec(v) @ _quat_matrix(
                    q[7 * i + 3:7 * i + 7]))
            return q
        for i in range(len(self.poses)):
            q[7 * i:7 * i + 3] += self.rng.uniform(-0.05, 0.05, 3) * self.L
            v = self.rng.normal(size=3)
            v *= self.rng.uniform(0, 0.1) / np.linalg.norm(v)
            q[7 * i + 3:7 * i + 7] = _matrix_quat(_rotvec(v) @ _quat_matrix(q[7 * i + 3:
                                                                             7 * i + 7]))
        return q

    def distance(self, q, ref=None):
        worst = 0.0
        for i in range(len(self.poses)):
            r, R = self.pose_of(i, q)
            r0, R0 = self.pose_of(i, ref)
            worst = max(worst, np.max(np.abs(r - r0)) / self.L, np.max(np.abs(R - R0)))
        return float(worst)

    def increment(self, q, dx):
        q = q.copy()
        for i in range(len(self.poses)):
            q[7 * i:7 * i + 3] += self.L * dx[6 * i:6 * i + 3]
            R = _rotvec(dx[6 * i + 3:6 * i + 6]) @ _quat_matrix(q[7 * i + 3:7 * i + 7])
            q[7 * i + 3:7 * i + 7] = _matrix_quat(R)
        return q

    # -- placement
    def placed(self, R, c):
        """A copy of this linkage with all of it turned by ``R`` and moved by ``c``."""
        g = copy.copy(self)
        P = lambda p: R @ p + c  # noqa: E731
        g.poses = [(P(r), R @ S) for r, S in self.poses]
        g.hinges = [(i, j, P(p), R @ F) for i, j, p, F in self.hinges]
        g.welds = [(i, j, P(p), R @ F) for i, j, p, F in self.welds]
        g.sliders = [(i, j, P(p), R @ F) for i, j, p, F in self.sliders]
        g.balls = [(i, j, P(p)) for i, j, p in self.balls]
        g.universals = [(i, j, P(p), R @ F1, R @ F2) for i, j, p, F1, F2 in self.universals]
        g.rods = [(i, j, P(p1), P(p2), n) for i, j, p1, p2, n in self.rods]
        return g

    def place_state(self, q, R, c, back: bool = False):
        """A state placed by ``R``, ``c`` (or placed back, with ``back``)."""
        q = np.array(q, float)
        for i in range(len(self.poses)):
            r, S = self.pose_of(i, q)
            q[7 * i:7 * i + 3] = R.T @ (r - c) if back else R @ r + c
            q[7 * i + 3:7 * i + 7] = _matrix_quat(R.T @ S if back else R @ S)
        return q

    def place_values(self, values, R, back: bool = False):
        return np.asarray(values, float)

    # -- rates
    def rate(self, qp, qm, h):
        """Central difference in the solver's velocity layout: ``(v, omega)`` per body."""
        out = []
        for i in range(len(self.poses)):
            (rp, Rp), (rm, Rm) = self.pose_of(i, qp), self.pose_of(i, qm)
            out.extend((rp - rm) / (2 * h))
            out.extend(_log_rotation(Rp @ Rm.T) / (2 * h))
        return np.array(out)

    def rate_scale(self):
        return np.tile([self.L] * 3 + [1.0] * 3, len(self.poses))

    def rotate_rates(self, nu, R):
        """Velocities ``(v, omega)`` per body seen turned by ``R``."""
        nu = np.array(nu, float).reshape(-1, 3)
        return (nu @ R.T).ravel()


def _rssr(rng, L):
    g = _Spatial(rng, L)
    P1 = np.zeros(3)
    P2 = rng.uniform(1.5, 3.0) * L * _unit(rng)
    R1, R2 = _frame_z(_unit(rng), rng), _frame_z(_unit(rng), rng)
    B = P1 + rng.uniform(0.5, 1.2) * L * R1[:, 0]
    C = P2 + rng.uniform(0.8, 2.0) * L * R2[:, 0]
    crank, rocker = g.body("crank", (P1 + B) / 2), g.body("rocker", (P2 + C) / 2)
    g.hinges += [(-1, crank, P1, R1), (-1, rocker, P2, R2)]
    g.rods.append((crank, rocker, B, C, float(np.linalg.norm(B - C))))
    g.driven = 0
    g.mode, g.reach = _rssr_mode, _rssr_reach
    return g


def _rsur(rng, L):
    """RSUR: crank and rocker hinged to ground, a coupler body with a ball at the crank pin
    and a universal joint at the rocker pin (random pins, perpendicular as drawn)."""
    g = _Spatial(rng, L)
    P1 = np.zeros(3)
    P2 = rng.uniform(1.5, 3.0) * L * _unit(rng)
    R1, R2 = _frame_z(_unit(rng), rng), _frame_z(_unit(rng), rng)
    B = P1 + rng.uniform(0.5, 1.2) * L * R1[:, 0]
    C = P2 + rng.uniform(0.8, 2.0) * L * R2[:, 0]
    crank, coupler, rocker = (g.body("crank", (P1 + B) / 2), g.body("coupler", (B + C) / 2),
                              g.body("rocker", (P2 + C) / 2))
    Ra = _frame_z(_unit(rng), rng)
    Rb = _frame_z(Ra[:, 0], rng)       # a pin perpendicular to the coupler's
    g.hinges += [(-1, crank, P1, R1), (-1, rocker, P2, R2)]
    g.balls.append((crank, coupler, B))
    g.universals.append((coupler, rocker, C, Ra, Rb))
    g.driven = 0
    g.mode, g.reach = _rsur_mode, _rsur_reach
    return g


def _rssp(rng, L):
    """RSSP: a crank hinged to ground, a rod (two balls: a distance) to a slider on a line of
    ground."""
    g = _Spatial(rng, L)
    P1 = np.zeros(3)
    R1 = _frame_z(_unit(rng), rng)
    B = P1 + rng.uniform(0.5, 1.2) * L * R1[:, 0]
    P0 = rng.uniform(1.0, 2.5) * L * _unit(rng)
    Rs = _frame_z(_unit(rng), rng)
    C = P0 + rng.uniform(-1.0, 1.0) * L * Rs[:, 2]
    crank, slider = g.body("crank", (P1 + B) / 2), g.body("slider", C)
    g.hinges.append((-1, crank, P1, R1))
    g.sliders.append((-1, slider, C, Rs))
    g.rods.append((crank, slider, B, C, float(np.linalg.norm(B - C))))
    g.driven = 0
    g.mode, g.reach = _rssp_mode, _rssp_reach
    return g


def _spherical_fourbar(rng, L):
    g = _Spatial(rng, L)
    O = rng.normal(size=3) * L
    axes = [_unit(rng) for _ in range(4)]
    bodies = [g.body(n, O + L * axes[k]) for k, n in enumerate(("crank", "coupler", "rocker"))]
    chain = [-1] + bodies + [-1]
    for k in range(4):
        g.hinges.append((chain[k], chain[k + 1], O, _frame_z(axes[k], rng)))
    g.driven = 0
    g.mode, g.reach = _spherical_mode, _spherical_reach
    return g


def _welds_and_hinges(rng, L):
    g = _Spatial(rng, L)
    a, b, c = g.body("a", L * _unit(rng)), g.body("b", 2 * L * _unit(rng)), \
        g.body("c", 3 * L * _unit(rng))
    g.welds.append((-1, a, rng.normal(size=3) * L, _random_rotation(rng)))
    g.hinges.append((a, b, rng.normal(size=3) * L, _frame_z(_unit(rng), rng)))
    g.welds.append((b, c, rng.normal(size=3) * L, _random_rotation(rng)))
    g.driven = 0
    return g


def _dh(theta, a, alpha) -> np.ndarray:
    """Standard Denavit-Hartenberg transform ``Rz(theta) Tx(a) Rx(alpha)`` (no offset)."""
    ct, st, ca, sa = np.cos(theta), np.sin(theta), np.cos(alpha), np.sin(alpha)
    return np.array([[ct, -st * ca, st * sa, a * ct], [st, ct * ca, -ct * sa, a * st],
                     [0.0, sa, ca, 0.0], [0.0, 0.0, 0.0, 1.0]])


def _bennett_theta2(g, theta1) -> float:
    """Bennett's closed form: ``tan(theta1/2) tan(theta2/2) = sin((b+a)/2) / sin((b-a)/2)``
    (standard DH, twists ``a = alpha1``, ``b = alpha2``)."""
    return float(2.0 * np.arctan2(g.bennett_K * np.cos(theta1 / 2), np.sin(theta1 / 2)))


def _bennett_frames(g, th1, th2) -> list:
    """The DH frames of a Bennett linkage at joint angles ``(th1, th2, -th1, -th2)``: the
    base (ground), links 1 to 3, and the base again (closure)."""
    a1, al1, a2, al2 = g.bennett_dh
    frames = [g.bennett_base]
    for t, a, al in ((th1, a1, al1), (th2, a2, al2), (-th1, a1, al1), (-th2, a2, al2)):
        frames.append(frames[-1] @ _dh(t, a, al))
    return frames


def _bennett_pose(g, theta1):
    """A Bennett linkage (drawn at the origin) at first joint angle ``theta1``, by the closed
    form: every link moved as its DH frame moves."""
    now = _bennett_frames(g, theta1, _bennett_theta2(g, theta1))
    drawn = _bennett_frames(g, *g.theta0)
    q = g.q_true.copy()
    for body in range(3):
        T = now[body + 1] @ np.linalg.inv(drawn[body + 1])
        r, S = g.poses[body]
        q[7 * body:7 * body + 3] = T[:3, :3] @ r + T[:3, 3]
        q[7 * body + 3:7 * body + 7] = _matrix_quat(T[:3, :3] @ S)
    return q


def _bennett(rng, L):
    """Bennett's linkage: the 4R loop with opposite links equal (lengths ``a1 = a3``,
    ``a2 = a4``, twists ``alpha1 = alpha3``, ``alpha2 = alpha4``) and ``sin(alpha1) / a1 =
    sin(alpha2) / a2``; joint angles ``theta3 = -theta1``, ``theta4 = -theta2`` (standard
    DH). Drawn from its DH chain at a random first angle, the base frame at random; the
    bodies' origins are drawn near their frames (anywhere will do)."""
    g = _Spatial(rng, L)
    while True:
        a1 = rng.uniform(0.5, 1.5) * L
        al1, al2 = rng.uniform(0.3, np.pi - 0.3, 2)
        a2 = a1 * np.sin(al2) / np.sin(al1)
        if 0.4 * L < a2 < 2.5 * L and abs(np.sin((al2 - al1) / 2)) > 0.1:
            break
    g.bennett_K = np.sin((al2 + al1) / 2) / np.sin((al2 - al1) / 2)
    g.bennett_dh = (a1, al1, a2, al2)
    th1 = rng.uniform(-np.pi, np.pi)
    th2 = _bennett_theta2(g, th1)
    g.theta0 = (th1, th2)
    links = ((th1, a1, al1), (th2, a2, al2), (-th1, a1, al1), (-th2, a2, al2))
    base = np.eye(4)
    base[:3, :3] = _random_rotation(rng)
    base[:3, 3] = rng.normal(size=3) * L
    g.bennett_base = base
    frames = _bennett_frames(g, th1, th2)
    gap = frames[-1] - base
    if np.max(np.abs(gap[:3, :3])) > 1e-9 or np.max(np.abs(gap[:3, 3])) > 1e-9 * L:
        raise AssertionError("the Bennett chain does not close")
    bodies = [g.body(f"link{k}", frames[k][:3, 3] + frames[k][:3, :3] @ [a / 2, 0, 0])
              for k, (_, a, _) in zip((1, 2, 3), links[:3])]
    chain = [-1] + bodies + [-1]
    for k in range(4):
        g.hinges.append((chain[k], chain[k + 1], frames[k][:3, 3].copy(),
                         frames[k][:3, :3].copy()))
    g.driven = 0
    g.mode, g.reach = _bennett_mode, (lambda g, value: True)
    return g


def _stewart(rng, L):
    """A 6-6 Stewart-Gough platform drawn from a pose: base joints in pairs near a circle of
    radius ``L`` (ground), platform joints near one of ``0.4 .. 0.7 L``, the platform at a
    random height, offset and tilt; the legs are distance drivers (as the model's)."""
    g = _Spatial(rng, L)
    first, spread_b, spread_p = rng.uniform(-np.pi, np.pi), *np.radians(
        [rng.uniform(10, 40), rng.uniform(60, 110)])
    centres = first + np.radians([0.0, 120.0, 240.0])
    ab = np.repeat(centres, 2) + np.tile([-spread_b / 2, spread_b / 2], 3)
    ap = np.repeat(centres, 2) + np.tile([-spread_p / 2, spread_p / 2], 3) + np.pi / 3
    ap = np.roll(ap, 1)                   # each base pair's legs go to two platform pairs
    ab = ab + rng.uniform(-0.05, 0.05, 6)
    ap = ap + rng.uniform(-0.05, 0.05, 6)
    rp = rng.uniform(0.4, 0.7) * L
    base = L * np.column_stack([np.cos(ab), np.sin(ab), np.zeros(6)])
    base[:, 2] += rng.uniform(-0.05, 0.05, 6) * L
    top = rp * np.column_stack([np.cos(ap), np.sin(ap), np.zeros(6)])
    R = _rotvec(_unit(rng) * rng.uniform(0, 0.3)) @ _rotvec([0, 0, rng.uniform(-0.3, 0.3)])
    r = np.array([*rng.uniform(-0.2, 0.2, 2) * L, rng.uniform(0.8, 1.5) * L])
    g.poses.append((r, R))
    g.names.append("platform")
    for k in range(6):
        P2 = r + R @ top[k]
        g.rods.append((-1, 0, base[k], P2, float(np.linalg.norm(P2 - base[k]))))
    g.rod_drivers = True
    g.offset = 0.06
    g.unit = L
    return g


_DRAW = {"fourbar": _fourbar, "slider_crank": _slider_crank,
         "watt": lambda rng, L: _sixbar(rng, L, True),
         "stephenson": lambda rng, L: _sixbar(rng, L, False),
         "five_bar": _five_bar,
         "rssr": _rssr, "spherical_fourbar": _spherical_fourbar,
         "welds_and_hinges": _welds_and_hinges, "bennett": _bennett, "rsur": _rsur,
         "rssp": _rssp, "stewart": _stewart}


# -- spatial modes and closed forms ------------------------------------------------------------
def _rssr_pins(g, q):
    """The crank pin and the rocker pin of an RSSR or RSUR at ``q``."""
    if g.rods:
        i, j, B, C, _ = g.rods[0]
        return g.point(i, B, q), g.point(j, C, q)
    (i, _, B), (_, j, C, _, _) = g.balls[0], g.universals[0]
    return g.point(i, B, q), g.point(j, C, q)


def _side(g, b, c) -> float:
    """The side of the plane through the rocker axis and the crank pin ``b`` that the rocker
    pin ``c`` is on."""
    _, _, P2, R2 = g.hinges[1]
    return float(np.sign(R2[:, 2] @ _cross(b - P2, c - P2)))


def _rssr_mode(g, q) -> tuple:
    return (_side(g, *_rssr_pins(g, q)),)


def _rssr_closed(g, value, side):
    """The crank pin and the rocker angle of an RSSR or RSUR at crank angle ``value`` on the
    side ``side`` (``None`` where it cannot be assembled)."""
    _, _, P1, R1 = g.hinges[0]
    _, _, P2, R2 = g.hinges[1]
    B0, C0 = _rssr_pins(g, None)
    length = float(np.linalg.norm(B0 - C0))
    B = P1 + _rotvec(R1[:, 2] * value) @ (B0 - P1)
    z = R2[:, 2]
    c0 = P2 + ((C0 - P2) @ z) * z
    e1 = C0 - c0
    rho = float(np.linalg.norm(e1))
    e1 /= rho
    e2 = _cross(z, e1)
    a, b = 2 * rho * (c0 - B) @ e1, 2 * rho * (c0 - B) @ e2
    k = length**2 - (c0 - B) @ (c0 - B) - rho**2
    rr = np.hypot(a, b)
    if abs(k) > rr:
        return B, None
    for phi in np.arctan2(b, a) + np.array([1, -1]) * np.arccos(k / rr):
        C = c0 + rho * (np.cos(phi) * e1 + np.sin(phi) * e2)
        if _side(g, B, C) == side:
            return B, float(phi)
    return B, None


def _rssr_reach(g, value) -> bool:
    return _rssr_closed(g, value, _rssr_mode(g, None)[0])[1] is not None


def _rsur_u(g, q) -> tuple:
    """The universal joint's coupler pin ``a``, rocker pin ``b`` and coupler line ``e``."""
    (i, j, C, Ra, Rb) = g.universals[0]
    b, c = _rssr_pins(g, q)
    e = (c - b) / np.linalg.norm(c - b)
    return g.axes(i, Ra, q)[:, 2], g.axes(j, Rb, q)[:, 2], e


def _rsur_mode(g, q) -> tuple:
    """An RSUR's rocker side and the sign of ``d(a . b)/d psi`` for the coupler turned by
    ``psi`` about its line (the two roots of ``a . b = 0`` have opposite signs)."""
    a, b, e = _rsur_u(g, q)
    return _rssr_mode(g, q) + (float(np.sign(_cross(e, a) @ b)),)


def _rsur_reach(g, value) -> bool:
    """The rocker pin within reach and the universal joint's pins able to be perpendicular:
    with ``e`` the coupler line, ``|(a.e)(b.e)| <= |a x e| |b x e|``."""
    B, phi = _rssr_closed(g, value, _rssr_mode(g, None)[0])
    if phi is None:
        return False
    _, _, P2, R2 = g.hinges[1]
    B0, C0 = _rssr_pins(g, None)
    z = R2[:, 2]
    c0 = P2 + ((C0 - P2) @ z) * z
    turn = _rotvec(z * phi)          # the drawn pose has the rocker pin at angle 0
    C = c0 + turn @ (C0 - c0)
    a0, b0, e0 = _rsur_u(g, None)
    e = (C - B) / np.linalg.norm(C - B)
    b = turn @ b0
    ae = a0 @ e0                      # the coupler's pin keeps its angle with the coupler line
    be = b @ e
    return abs(ae * be) <= np.sqrt(max(0.0, 1 - ae * ae)) * np.sqrt(max(0.0, 1 - be * be))


def _rssp_mode(g, q) -> tuple:
    i, j, B, C, _ = g.rods[0]
    _, _, P0, Rs = g.sliders[0]
    u = Rs[:, 2]
    b, c = g.point(i, B, q), g.point(j, C, q)
    foot = P0 + ((b - P0) @ u) * u
    return (float(np.sign((c - foot) @ u)),)


def _rssp_reach(g, value) -> bool:
    _, _, P1, R1 = g.hinges[0]
    _, _, B0, _, length = g.rods[0]
    _, _, P0, Rs = g.sliders[0]
    u = Rs[:, 2]
    B = P1 + _rotvec(R1[:, 2] * value) @ (B0 - P1)
    d = (B - P0) - ((B - P0) @ u) * u
    return bool(np.linalg.norm(d) <= length)


def _spherical_axes(g, q):
    """The crank-coupler, coupler-rocker and rocker-ground axes of a spherical four-bar."""
    (_, c1, _, F1), (_, c2, _, F2), (_, _, _, F3) = g.hinges[1], g.hinges[2], g.hinges[3]
    return g.axes(c1, F1, q)[:, 2], g.axes(c2, F2, q)[:, 2], F3[:, 2]


def _spherical_mode(g, q) -> tuple:
    u2, u3, u4 = _spherical_axes(g, q)
    return (float(np.sign(u3 @ _cross(u2, u4))),)


def _spherical_reach(g, value) -> bool:
    """The crank-coupler axis, turned by ``value``, within the coupler's and the rocker's
    arcs of the rocker-ground axis."""
    u2, u3, u4 = _spherical_axes(g, None)
    u1 = g.hinges[0][3][:, 2]
    ac = np.arccos(np.clip(u2 @ u3, -1, 1))
    ar = np.arccos(np.clip(u3 @ u4, -1, 1))
    u = _rotvec(u1 * value) @ u2
    gamma = np.arccos(np.clip(u @ u4, -1, 1))
    return bool(abs(ac - ar) <= gamma <= min(ac + ar, 2 * np.pi - ac - ar))


def _bennett_mode(g, q) -> tuple:
    """Whether the second joint angle is Bennett's closed form of the first (the linkage's
    only non-mirrored assembly at a given first angle)."""
    th1 = g.theta0[0] + g.hinge_angle(0, q)
    th2 = g.theta0[1] + g.hinge_angle(1, q)
    return (bool(abs(_wrap(th2 - _bennett_theta2(g, th1))) < 1e-6),)


# -- the module's own Jacobian ----------------------------------------------------------------
def _jacobian(g, q0, value=None, square=False) -> np.ndarray:
    """This module's own residuals' Jacobian at ``q0`` by central differences, in
    size-relative increments (``square``: of the rows as the joints count them)."""
    n = (len(q0) // 7) * 6 if isinstance(g, _Spatial) else len(q0)
    f = g.square_residuals if square and isinstance(g, _Spatial) else g.residuals
    h = 1e-6
    cols = []
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        cols.append((f(g.increment(q0, e), value) - f(g.increment(q0, -e), value)) / (2 * h))
    return np.array(cols).T


def _conditioning(g, value=None, q=None) -> float:
    """Ratio of the extreme singular values of this module's own residuals' Jacobian at the
    drawn pose (or ``q``), without the rows that are redundant by construction (a spherical
    four-bar's, a Bennett linkage's)."""
    J = _jacobian(g, g.q_true if q is None else q, value)
    n = J.shape[1]
    s = np.linalg.svd(J, compute_uv=False)[:n]
    return float(s[0] / s[-1]) if s[-1] > 0 else np.inf


def _det_sign(g, q, value=None) -> int:
    """The sign of the determinant of this module's Jacobian at ``q`` (square systems; 0
    for redundant ones)."""
    J = _jacobian(g, q, value, square=True)
    return int(np.linalg.slogdet(J)[0]) if J.shape[0] == J.shape[1] else 0


def _least_squares(g, start, value=None):
    """Plain least squares on this module's own residuals from ``start`` (SciPy's
    Levenberg-Marquardt); returns the pose and its largest residual."""
    from scipy.optimize import least_squares

    n = (len(start) // 7) * 6 if isinstance(g, _Spatial) else len(start)

    def f(dx):
        return g.residuals(g.increment(start, dx), value)

    method = "lm" if len(f(np.zeros(n))) >= n else "trf"
    sol = least_squares(f, np.zeros(n), method=method, xtol=1e-15, ftol=1e-15, gtol=1e-15,
                        max_nfev=200 * (n + 1))
    q = g.increment(start, sol.x)
    return q, float(np.max(np.abs(g.residuals(q, value))))


# -- trials ------------------------------------------------------------------------------------
def _draw(kind, seed, scales=(-6.0, 6.0)):
    rng = np.random.default_rng(seed)
    scale = float(10.0 ** rng.uniform(*scales))
    g = _DRAW[kind](rng, scale)
    if np.max(np.abs(g.residuals(g.q_true))) > 1e-9:
        raise AssertionError(f"{kind} seed {seed}: the drawn pose is not an assembly")
    return rng, scale, g


def _placement(seed, dim, scale):
    """A random placement far from the origin: a rotation and a translation of
    ``10**U(0, 6)`` sizes in a random direction (a random stream of its own, so that the
    trial at the origin draws the same)."""
    rng = np.random.default_rng([seed, 4242])
    far = float(10.0 ** rng.uniform(0, 6))
    u = rng.normal(size=dim)
    u /= np.linalg.norm(u)
    R = _rot2(rng.uniform(-np.pi, np.pi)) if dim == 2 else _random_rotation(rng)
    return R, far * scale * u, far


def _message(err) -> str:
    return str(err).splitlines()[0][:200]


def _classify(trial, g, q, start, expected, value, tol, nearer=True):
    """Check the answer ``q`` and name the outcome (the answer expected: ``expected``).

    ``nearer=False``: another assembly is never fair for being nearer the start (a move
    trial's start is the old pose, and the distances are the drivers' own changes)."""
    worst = float(np.max(np.abs(g.residuals(q, value))))
    trial.worst = worst
    if not worst <= tol:
        trial.outcome, trial.detail = "false_success", f"check {worst:.3g}"
        return
    if g.distance(q, expected) <= 1e-6:
        trial.outcome = "ok"
        return
    # another assembly: fair if the start was nearer to it than to the drawn one
    sep, off = g.distance(q, expected), g.distance(start, expected)
    near = nearer and g.distance(start, q) < off
    trial.extra.update(separation=sep, start_offset=off)
    signs = [_det_sign(g, p, value) for p in (expected, start, q)]
    if 0 not in signs:
        # the start across a singular configuration from the drawn pose, or Newton's path
        # across one from the start
        trial.extra.update(start_across=signs[0] != signs[1], crossed=signs[1] != signs[2])
    trial.outcome = "nearer_assembly" if near else "other_assembly"
    if 0 not in signs and signs[1] == signs[2] != signs[0]:
        trial.outcome = "sketched_circuit"
    elif g.mode is not None:
        # the start sketches the assembly mode that the branch invariant, evaluated at the
        # start, gives (redundant linkages, whose det J has no sign, and the branches that
        # share a sign of det J, as an RSUR's two universal-joint branches)
        modes = [g.mode(g, p) for p in (expected, start, q)]
        trial.extra["start_mode_across"] = modes[0] != modes[1]
        if modes[1] == modes[2] != modes[0]:
            trial.outcome = "sketched_circuit"
    trial.detail = (f"distance {sep:.3g} from the drawn pose; the start {off:.3g} from it and "
                    f"{g.distance(start, q):.3g} from the one found")
    if trial.outcome == "other_assembly":
        # where plain least squares on this module's own residuals goes from the same start
        qls, res = _least_squares(g, start, value)
        where = ("the drawn pose" if res <= 1e-10 and g.distance(qls, expected) <= 1e-6 else
                 "the one found" if res <= 1e-10 and g.distance(qls, q) <= 1e-6 else
                 "neither")
        trial.extra["least_squares"] = where
        trial.detail += f"; least squares from the start reaches {where}"


def _setup(kind, seed, far, scales=(-6.0, 6.0)):
    """Draw a trial's mechanism, at the origin or placed: ``(trial, rng, g0, g, place)``
    where ``g0`` is the linkage at the origin, ``g`` the one solved and ``place`` the
    placement ``(R, c, distance)`` or ``None``."""
    rng, scale, g0 = _draw(kind, seed, scales)
    trial = Trial(kind, seed, scale)
    place = None
    g = g0
    if far:
        place = _placement(seed, g0.dim, scale)
        g = g0.placed(place[0], place[1])
        trial.far = place[2]
    return trial, rng, g0, g, place


def _tol(trial) -> float:
    return TOL + FAR_EPS * EPS * trial.far


def _solve_case(kind, seed, far):
    """A rough-start solve at the origin or far: ``(trial, answer placed back or None)``."""
    trial, rng, g0, g, place = _setup(kind, seed, far)
    mech, _ = g.build()
    cond = _conditioning(g0)
    trial.extra["conditioning"] = cond
    if not cond < 1e6:
        trial.outcome = "skipped"
        return trial, None
    start0 = g0.start()
    start = start0 if place is None else g.place_state(start0, place[0], place[1])
    mech.state = start
    try:
        mech.solve()
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", _message(err)
        _least_squares_note(trial, g0, start0)
        return trial, None
    q = mech.state
    _classify(trial, g, q, start, g.q_true, None, _tol(trial))
    back = q if place is None else g.place_state(q, place[0], place[1], back=True)
    return trial, back


def _least_squares_note(trial, g0, start0):
    """After a SolveError: does plain least squares on this module's residuals reach the
    drawn pose from the same start? For a Stewart platform (a start 6 % off, outside the
    5 % of the goal) the failure is a false one only if it does."""
    q, res = _least_squares(g0, start0)
    reached = res <= 1e-10 and g0.distance(q) <= 1e-6
    trial.extra["least_squares"] = ("reaches the drawn pose" if reached else
                                    f"ends {g0.distance(q):.3g} from the drawn pose at "
                                    f"residual {res:.3g}")
    trial.detail += f"; least squares from the same start {trial.extra['least_squares']}"
    if g0.offset is not None and not reached:
        trial.outcome = "skipped"


def _against_origin(trial, q, origin, q0, g0):
    """A far trial judged against the same trial at the origin."""
    trial.extra["origin_outcome"] = origin.outcome
    if trial.outcome in BAD:
        trial.detail += f" (at the origin: {origin.outcome})"
        return trial
    if trial.outcome != origin.outcome:
        trial.detail = (f"{trial.outcome} here, {origin.outcome} at the origin "
                        f"{origin.detail}").strip()
        trial.outcome = "unlike_origin"
    elif q is not None and q0 is not None and g0.distance(q, q0) > 1e-6:
        trial.detail = (f"another assembly than at the origin: {g0.distance(q, q0):.3g} "
                        "apart")
        trial.outcome = "unlike_origin"
    return trial


def run_trial(kind: str, seed: int, *, sweep: bool = False, far: bool = False) -> Trial:
    """One trial: draw, solve from a rough start (or sweep), check, classify; ``far``: the
    same trial placed far from the origin, judged also against the trial at the origin."""
    case = _sweep_case if sweep else _solve_case
    origin, q0 = case(kind, seed, False)
    if not far:
        return origin
    trial, q = case(kind, seed, True)
    trial.sweep = sweep
    return _against_origin(trial, q, origin, q0, _draw(kind, seed)[2])


def _reachable(g, kind: str, value: float) -> bool:
    """Whether the drawn linkage assembles with its driver at ``value``, by this module's
    closed forms (four-bar: ``|b - c| <= |A - O4| <= b + c``; slider-crank: the slider line
    within a rod length of the crank pin; spatial kinds: their own)."""
    if isinstance(g, _Spatial):
        return bool(g.reach(g, value))
    crank = g.driver[0]
    O = g.revolutes[0][2]
    A0 = g.revolutes[1][2]
    A = O + _rot2(value - g.poses[crank][1]) @ (A0 - O)
    if kind == "fourbar":
        B, O4 = g.revolutes[2][2], g.revolutes[3][2]
        b, c = np.linalg.norm(B - A0), np.linalg.norm(O4 - B)
        e = np.linalg.norm(A - O4)
        return abs(b - c) <= e <= b + c
    B = g.revolutes[2][2]
    u = g.prismatics[0][3]
    rod = np.linalg.norm(B - A0)
    return abs(u[0] * (A - B)[1] - u[1] * (A - B)[0]) <= rod


def _sweep_case(kind, seed, far):
    trial, rng, g0, g, place = _setup(kind, seed, far)
    trial.sweep = True
    if kind not in SWEEP_KINDS:
        raise ValueError(f"sweep trials are for {', '.join(SWEEP_KINDS)}")
    mech, drive = g.build()
    cond = _conditioning(g0)
    trial.extra["conditioning"] = cond
    if not cond < 1e6:
        trial.outcome = "skipped"
        return trial, None
    return _sweep_trial(trial, g, mech, drive, drive.value, rng, place)


def _sweep_trial(trial, g, mech, drive, value0, rng, place=None):
    """Sweep the driver by up to 0.3 rad from the drawn pose and check every pose; returns
    ``(trial, last pose placed back)``."""
    kind = trial.kind.split()[0]
    if isinstance(g, _Spatial):
        # spatial kinds: up to half a turn either way in 61 steps, kept 0.05 rad inside the
        # first value that cannot be assembled (by the closed form)
        span = rng.uniform(-2 * np.pi, 2 * np.pi)
        grid = np.linspace(0.0, span, 2001)[1:]
        bad = [v for v in grid if not _reachable(g, kind, value0 + v)]
        if bad:
            span = bad[0] - 0.05 * np.sign(span)
            if span * np.sign(bad[0]) < 0.05:
                trial.outcome, trial.detail = "skipped", "a limit within 0.1 rad"
                return trial, None
        values = value0 + np.linspace(0.0, span, 61)
    else:
        span = rng.uniform(-0.3, 0.3)
        values = value0 + np.linspace(0.0, span, 31)
    mech.state = g.q_true
    try:
        motion = mech.sweep(drive, values)
    except ms.SweepError as err:
        # a limit position inside the range is possible for a drawn linkage: it is one only if
        # some value of the range cannot be assembled, by this module's own geometry
        if all(_reachable(g, kind, v) for v in np.linspace(value0, value0 + span, 2001)):
            trial.outcome, trial.detail = "false_failure", _message(err)
        else:
            trial.outcome, trial.detail = "limit", "a value of the range cannot be assembled"
        return trial, None
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", _message(err)
        return trial, None
    worst = 0.0
    mode0 = g.mode(g, g.q_true) if g.mode is not None else None
    before = (g.q_true, value0)
    for q, v in zip(motion.states, values):
        worst = max(worst, float(np.max(np.abs(g.residuals(q, value=v)))))
        if mode0 is not None and g.mode(g, q) != mode0:
            # how near a singular configuration the last pose on the branch was
            cond = _conditioning(g, before[1], before[0])
            trial.outcome = "branch_jump"
            trial.detail = (f"at driver value {v:.6g} (from {before[1]:.6g}, where the "
                            f"conditioning is {cond:.3g})")
            trial.worst = worst
            return trial, None
        before = (q, v)
    trial.worst = worst
    trial.outcome = "ok" if worst <= _tol(trial) else "false_success"
    if trial.outcome == "false_success":
        trial.detail = f"check {worst:.3g}"
    q = np.array(motion.states[-1], float)
    return trial, q if place is None else g.place_state(q, place[0], place[1], back=True)


def _placed(g, body, P1, P2, Q1, Q2):
    """The pose ``(r, t)`` of planar ``body`` that puts its points at global ``P1``, ``P2`` (as
    drawn) on ``Q1``, ``Q2`` (same distance)."""
    p1, p2 = g.local(body, P1), g.local(body, P2)
    t = np.arctan2(*(Q2 - Q1)[::-1]) - np.arctan2(*(p2 - p1)[::-1])
    return Q1 - _rot2(t) @ p1, t


def run_branch_trial(seed: int) -> Trial:
    """A ``branch=`` solve: a four-bar started near its *other* assembly (the coupler-rocker pin
    mirrored about the line from the crank pin to the rocker pivot), asked by ``branch=`` for
    the drawn assembly mode; the answer must be the drawn pose, and a sweep of +-0.3 rad from
    it must keep the mode (a limit only where a value cannot be assembled)."""
    rng = np.random.default_rng(seed)
    scale = float(10.0 ** rng.uniform(-6, 6))
    trial = Trial("fourbar branch", seed, scale)
    g = _fourbar(rng, scale)
    mech, drive = g.build()
    cond = _conditioning(g)
    trial.extra["conditioning"] = cond
    if not cond < 1e6:
        trial.outcome = "skipped"
        return trial
    (_, _, A), (_, _, B), (_, _, O4) = g.revolutes[1], g.revolutes[2], g.revolutes[3]
    u = (O4 - A) / np.linalg.norm(O4 - A)
    Bm = A + 2 * ((B - A) @ u) * u - (B - A)          # B mirrored about the line A-O4
    start = g.q_true.copy()
    for body, P1, P2, Q1, Q2 in ((1, A, B, A, Bm), (2, B, O4, Bm, O4)):
        r, t = _placed(g, body, P1, P2, Q1, Q2)
        start[3 * body:3 * body + 3] = [*(r + rng.uniform(-0.02, 0.02, 2) * scale),
                                        t + rng.uniform(-0.05, 0.05)]
    mode0 = _mode(g, g.q_true)
    if _mode(g, start) == mode0:     # the mirror is the same mode only at a toggle
        trial.outcome = "skipped"
        return trial
    mech.state = start
    try:
        mech.solve(branch=lambda m: _mode(g, m.state) == mode0)
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", _message(err)
        return trial
    q = mech.state
    trial.worst = float(np.max(np.abs(g.residuals(q))))
    if not trial.worst <= TOL:
        trial.outcome, trial.detail = "false_success", f"check {trial.worst:.3g}"
        return trial
    if g.distance(q) > 1e-6:
        trial.outcome = "other_assembly"
        trial.detail = f"distance {g.distance(q):.3g} from the drawn pose"
        return trial
    return _sweep_trial(trial, g, mech, drive, drive.value, rng)[0]


# -- several drivers at once ------------------------------------------------------------------
#: a five-bar path keeps off its dead centres while the sine of its coupler angle stays above
MOVE_MARGIN = 0.1


def _five_bar_closed(g, values, side):
    """A five-bar's pose at crank angles ``values`` on the assembly ``side`` by this module's
    own closed form, with the sine of its coupler angle ``(q, sin)``; ``q`` is ``None`` where
    the cranks' pins are out of the couplers' reach."""
    (_, a, O1), (_, b, A0), (_, c, C0), (_, d, B0), (_, _, O2) = g.revolutes
    (_, ta), (_, td) = g.drivers
    A = O1 + _rot2(values[0] - ta) @ (A0 - O1)
    B = O2 + _rot2(values[1] - td) @ (B0 - O2)
    lb, lc = np.linalg.norm(C0 - A0), np.linalg.norm(B0 - C0)
    e = B - A
    dist = float(np.linalg.norm(e))
    cos_c = (lb * lb + lc * lc - dist * dist) / (2 * lb * lc)
    if abs(cos_c) > 1.0:
        return None, cos_c
    e /= dist
    x = (lb * lb - lc * lc + dist * dist) / (2 * dist)
    y = np.sqrt(max(0.0, lb * lb - x * x))
    n = np.array([-e[1], e[0]])
    C = A + x * e + side * y * n               # side: the sign of cross(B - A, C - A)
    q = g.q_true.copy()
    for body, pivot, t0, v in ((a, O1, ta, values[0]), (d, O2, td, values[1])):
        r, t = g.poses[body]
        q[3 * body:3 * body + 3] = [*(pivot + _rot2(v - t0) @ (r - pivot)), t + v - t0]
    q[3 * b:3 * b + 3] = [*(rb := _placed(g, b, A0, C0, A, C))[0], rb[1]]
    q[3 * c:3 * c + 3] = [*(rc := _placed(g, c, C0, B0, C, B))[0], rc[1]]
    return q, float(np.sqrt(max(0.0, 1.0 - cos_c * cos_c)))


def _move_case(seed, far):
    """Both drivers of a five-bar changed at once: ``(trial, answer placed back)``."""
    trial, rng, g0, g, place = _setup("five_bar", seed, far)
    trial.kind = "five_bar move"
    mech, _ = g.build()
    cond = _conditioning(g0)
    trial.extra["conditioning"] = cond
    if not cond < 1e6:
        trial.outcome = "skipped"
        return trial, None
    side = _five_bar_mode(g0, None)[0]
    v0 = np.array(g0.values())
    unreachable = rng.uniform() < 0.25
    target = expected = None
    for _ in range(50):
        if unreachable:
            delta = rng.uniform(-1.5, 1.5, 2)
            q, cos_c = _five_bar_closed(g0, v0 + delta, side)
            if q is None and abs(cos_c) > 1.02:       # clearly out of reach
                target = v0 + delta
                break
        else:
            delta = rng.uniform(-1.2, 1.2, 2)
            path = [_five_bar_closed(g0, v0 + s * delta, side) for s in np.linspace(0, 1, 21)]
            if all(q is not None and sine > MOVE_MARGIN for q, sine in path):
                target, expected = v0 + delta, path[-1][0]
                break
    if target is None:
        trial.outcome, trial.detail = "skipped", "no path off the dead centres drawn"
        return trial, None
    trial.extra["change"] = [float(x) for x in target - v0]
    if expected is not None and np.max(np.abs(g0.residuals(expected, target))) > 1e-9:
        raise AssertionError(f"five_bar move seed {seed}: the closed form is not an assembly")
    start = g.q_true
    values = target if place is None else g.place_values(target, place[0])
    for drive, v in zip(g.driver_joints, values):
        drive.value = v
    mech.state = start
    try:
        mech.solve()
    except ms.SolveError as err:
        if unreachable:
            trial.outcome, trial.detail = "limit", _message(err)
        else:
            trial.outcome, trial.detail = "false_failure", _message(err)
        return trial, None
    q = mech.state
    if unreachable:
        worst = float(np.max(np.abs(g.residuals(q, values))))
        trial.worst = worst
        trial.outcome = "false_success"
        trial.detail = f"success at values that cannot be assembled (check {worst:.3g})"
        return trial, None
    exp = expected if place is None else g.place_state(expected, place[0], place[1])
    _classify(trial, g, q, start, exp, values, _tol(trial), nearer=False)
    return trial, q if place is None else g.place_state(q, place[0], place[1], back=True)


def run_move_trial(seed: int, *, far: bool = False) -> Trial:
    """Several drivers changed at once (a five-bar's two cranks): see the module's notes."""
    origin, q0 = _move_case(seed, False)
    if not far:
        return origin
    trial, q = _move_case(seed, True)
    return _against_origin(trial, q, origin, q0, _draw("five_bar", seed)[2])


# -- solve_batch against solve ----------------------------------------------------------------
BATCH = 8


def _big(seed) -> bool:
    """Whether a batch trial draws a size of ``1e4 .. 1e6`` (half the seeds, by a draw of
    their own)."""
    return bool(np.random.default_rng([seed, 77]).uniform() < 0.5)


def batch_size(seed) -> float:
    """The size a batch trial of this seed draws."""
    scales = (4.0, 6.0) if _big(seed) else (-6.0, 6.0)
    return float(10.0 ** np.random.default_rng(seed).uniform(*scales))


def run_batch_trial(kind: str, seed: int) -> Trial:
    """``solve_batch`` against ``solve()``: 8 rough starts, the last 4 at a driver value
    changed by up to 0.05 (legs: 2 % of the size); half the seeds a size of ``1e4 .. 1e6``
    (see :func:`_big`)."""
    big = _big(seed)
    scales = (4.0, 6.0) if big else (-6.0, 6.0)
    trial, rng, g0, g, _ = _setup(kind, seed, False, scales)
    trial.kind = f"{kind} batch"
    mech, drive = g.build()
    cond = _conditioning(g)
    trial.extra["conditioning"] = cond
    if not cond < 1e6:
        trial.outcome = "skipped"
        return trial
    v0 = drive.value
    starts = np.array([g.start() for _ in range(BATCH)])
    change = np.where(np.arange(BATCH) < BATCH // 2, 0.0,
                      rng.uniform(-1, 1, BATCH) * (0.02 if g.unit != 1.0 else 0.05))
    values = v0 + change * g.unit
    singles = []
    for start, v in zip(starts, values):
        drive.value = v
        mech.state = start
        try:
            mech.solve()
            singles.append(mech.state)
        except ms.SolveError:
            singles.append(None)
    drive.value = v0
    mech.state = g.q_true
    try:
        batch = mech.solve_batch(starts, values={drive: values}, raise_on_failure=False)
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", "solve_batch raised: " + _message(err)
        return trial
    tol = _tol(trial)
    findings = []
    for k in range(BATCH):
        single, q, ok = singles[k], batch.states[k], bool(batch.success[k])
        worst = float(np.max(np.abs(g.residuals(q, values[k]))))
        if ok:
            trial.worst = max(trial.worst, worst)
        if ok and not worst <= tol:
            findings.append(("false_success", f"item {k}: check {worst:.3g}"))
        elif single is not None and not ok:
            findings.append(("false_failure",
                             f"item {k}: solve_batch failed where solve() converged "
                             f"(its residual {batch.residual[k]:.3g}, this module's check "
                             f"{worst:.3g})"))
        elif single is None and ok:
            findings.append(("false_failure", f"item {k}: solve() failed where solve_batch "
                             f"converged (check {worst:.3g})"))
        elif ok and g.distance(q, single) > 1e-6:
            findings.append(("other_assembly", f"item {k} on another assembly than solve(): "
                             f"{g.distance(q, single):.3g} apart; solve() "
                             f"{g.distance(single):.3g} and the batch {g.distance(q):.3g} from "
                             "the drawn pose"))
    trial.extra["items"] = BATCH
    if not findings:
        trial.outcome = "ok"
        return trial
    for name in ("false_success", "false_failure", "other_assembly"):
        hits = [d for o, d in findings if o == name]
        if hits:
            trial.outcome = name
            trial.detail = f"{len(hits)} of {BATCH}: " + "; ".join(hits)[:300]
            return trial
    return trial


# -- velocities against finite differences ----------------------------------------------------
#: the largest driver step of the finite differences (Richardson: h and 2h), in the driver's
#: unit, and the number of steps tried (each a quarter of the one before)
RATE_STEP = 1e-3
RATE_LEVELS = 6


def _fourbar_closed(g, value):
    """A four-bar's pose at crank angle ``value`` on its drawn mode, or ``None``."""
    (_, crank, O), (_, coupler, A0), (_, rocker, B0), (_, _, O4) = g.revolutes
    t0 = g.poses[crank][1]
    turn = _rot2(value - t0)
    A = O + turn @ (A0 - O)
    lb, lc = np.linalg.norm(B0 - A0), np.linalg.norm(O4 - B0)
    e = O4 - A
    d = float(np.linalg.norm(e))
    x = (lb * lb - lc * lc + d * d) / (2 * d)
    if lb * lb < x * x:
        return None
    e /= d
    y = -_mode(g, None)[0] * np.sqrt(lb * lb - x * x)   # cross(B - A, O4 - B) = -y d
    B = A + x * e + y * np.array([-e[1], e[0]])
    q = g.q_true.copy()
    r, t = g.poses[crank]
    q[3 * crank:3 * crank + 3] = [*(O + turn @ (r - O)), value]
    q[3 * coupler:3 * coupler + 3] = [*(p := _placed(g, coupler, A0, B0, A, B))[0], p[1]]
    q[3 * rocker:3 * rocker + 3] = [*(p := _placed(g, rocker, B0, O4, B, O4))[0], p[1]]
    return q


def _rssr_pose(g, value):
    """An RSSR's pose at crank angle ``value`` on its drawn mode, or ``None``."""
    (_, crank, P1, R1), (_, rocker, P2, R2) = g.hinges
    _, phi = _rssr_closed(g, value, _rssr_mode(g, None)[0])
    if phi is None:
        return None
    q = g.q_true.copy()
    for body, P, z, angle in ((crank, P1, R1[:, 2], value), (rocker, P2, R2[:, 2], phi)):
        turn = _rotvec(z * angle)
        r, S = g.poses[body]
        q[7 * body:7 * body + 3] = P + turn @ (r - P)
        q[7 * body + 3:7 * body + 7] = _matrix_quat(turn @ S)
    return q


def _dead_centre(g, kind, value0):
    """The driver value nearest ``value0`` at which the drawn linkage stops (by this module's
    closed form), or ``None`` where its crank turns fully."""
    steps = np.arange(1, 629) * 0.01
    for sign in (1.0, -1.0):
        for s in steps:
            if not _reachable(g, kind, value0 + sign * s):
                lo, hi = value0 + sign * (s - 0.01), value0 + sign * s
                for _ in range(60):
                    mid = 0.5 * (lo + hi)
                    lo, hi = (mid, hi) if _reachable(g, kind, mid) else (lo, mid)
                yield lo, sign
                break


#: velocity trials are skipped above this conditioning (of this module's own Jacobian):
#: mechsolve's velocity calls a pose singular where the ratio of the extreme singular values
#: of its own scaled Jacobian is below ``SINGULAR_RTOL`` (1e-4), and the two measures differ
#: by a few times
RATE_COND = 1e3


def _velocity_case(kind, seed, far, origin=None):
    """A velocity trial; returns ``(trial, data)``, ``data`` the differences and velocities
    (``None`` where the trial stopped early). ``origin``: the data of the same trial at the
    origin, which a far trial's velocities, placed back, must match too."""
    trial, rng, g0, g, place = _setup(kind, seed, far)
    trial.kind = f"{kind} velocity"
    mech, drive = g.build()
    cond = _conditioning(g0)
    trial.extra["conditioning"] = cond
    if not cond < RATE_COND:
        trial.outcome = "skipped"
        return trial, None
    v0 = g0.values()[0]
    q0 = g0.q_true
    near = kind in ("fourbar", "rssr") and rng.uniform() < 0.5
    if near:
        # 0.1 rad inside the range from the dead centre nearest the drawn pose
        limits = sorted(_dead_centre(g0, kind, v0), key=lambda x: abs(x[0] - v0))
        if limits:
            lim, sign = limits[0]
            v0 = lim - 0.1 * sign
            q0 = (_fourbar_closed if kind == "fourbar" else _rssr_pose)(g0, v0)
            trial.extra["dead_centre"] = float(lim)
            if q0 is None:        # a range shorter than 0.1 rad on that side
                trial.outcome, trial.detail = "skipped", "no pose 0.1 rad from a dead centre"
                return trial, None
            if np.max(np.abs(g0.residuals(q0, v0))) > 1e-9:
                raise AssertionError(f"{kind} seed {seed}: the closed form is not an "
                                     "assembly")
            cond = _conditioning(g0, v0, q0)
            trial.extra["conditioning"] = cond
            if not cond < RATE_COND:
                trial.outcome = "skipped"
                return trial, None
    value = v0 if place is None else g.place_values([v0], place[0])[0]
    q0 = q0 if place is None else g.place_state(q0, place[0], place[1])
    tol = _tol(trial)

    def solved(v):
        drive.value = v
        mech.state = q0
        mech.solve()
        q = mech.state
        worst = float(np.max(np.abs(g.residuals(q, v))))
        if not worst <= tol:
            raise _WrongPoseError(f"the pose at {v:.9g} fails a check ({worst:.3g})")
        return q

    scale = g.rate_scale()
    speed = float(rng.uniform(0.5, 2.0) * rng.choice([-1, 1])) * g.unit
    body = int(rng.integers(len(g.poses)))
    point = rng.uniform(-1, 1, g.dim) * g.L
    try:
        q0 = solved(value)
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", _message(err)
        return trial, None
    except _WrongPoseError as err:
        trial.outcome, trial.detail = "false_success", str(err)
        return trial, None
    # Richardson-extrapolated central differences at steps h = 1e-3 / 4^k; the pair of
    # successive steps that agree best gives the estimate (the smaller step's) and its
    # uncertainty (their difference): truncation falls as h^4, round-off grows as 1/h
    levels = []
    for k in range(RATE_LEVELS):
        h = RATE_STEP * 4.0**-k * g.unit
        states = {}
        try:
            for j in (-2, -1, 1, 2):
                v = value + j * h
                states[j] = solved(v)
        except ms.SolveError as err:
            # a false failure if this module's own least squares assembles the value near
            # q0; else the stencil reaches past a limit: that step is not usable
            qls, res = _least_squares(g, q0, v)
            if res <= 1e-10 and g.distance(qls, q0) <= 0.1:
                trial.outcome, trial.detail = "false_failure", f"at {v:.9g}: " + _message(err)
                return trial, None
            continue
        except _WrongPoseError as err:
            trial.outcome, trial.detail = "false_success", str(err)
            return trial, None
        fd = speed * (4 * g.rate(states[1], states[-1], h)
                      - g.rate(states[2], states[-2], 2 * h)) / 3
        pts = {j: _body_point(g, body, point, q) for j, q in states.items()}
        fdp = speed * (4 * (pts[1] - pts[-1]) / (2 * h) - (pts[2] - pts[-2]) / (4 * h)) / 3
        levels.append((k, h, fd, fdp))
    pairs = [(a, b) for a, b in zip(levels, levels[1:]) if b[0] == a[0] + 1]
    if not pairs:
        trial.outcome, trial.detail = "skipped", "the differences' steps reach past a limit"
        return trial, None
    ref = max(np.max(np.abs(lv[2] / scale)) for lv in levels)

    def spread(a, b):
        return max(float(np.max(np.abs((a[2] - b[2]) / scale))) / ref,
                   float(np.max(np.abs(a[3] - b[3]))) / (g.L * ref))

    a, b = min(pairs, key=lambda p: spread(*p))
    uncertainty = spread(a, b)
    _, h, fd, fdp = b
    trial.extra.update(step=h / g.unit, uncertainty=uncertainty)
    settled = uncertainty <= RATE_TOL / 10
    if not settled and origin is None:
        trial.outcome = "skipped"
        trial.detail = f"the finite differences do not settle (to {uncertainty:.3g})"
        return trial, None
    drive.value = ms.profiles.ConstantSpeed(speed, start=value)
    mech.state = q0
    try:
        nu = np.asarray(mech.velocity(), float)
        vp = np.asarray(mech.point_velocity(g.bodies[body], point), float)
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", _message(err)
        return trial, None
    err = float(np.max(np.abs((nu - fd) / scale)) / ref)
    err_p = float(np.max(np.abs(vp - fdp)) / (g.L * ref))
    trial.worst = max(err, err_p)
    trial.extra.update(rate_error=err, point_rate_error=err_p)
    allowed = RATE_TOL + uncertainty
    data = dict(fd=fd, fdp=fdp, nu=nu, vp=vp, ref=ref, uncertainty=uncertainty)
    # far from the origin the differences may not settle to 1e-7 (the poses' coordinates
    # are at round-off of the distance): then the origin's differences alone judge
    if settled and not trial.worst <= allowed:
        trial.outcome = "false_success"
        trial.detail = (f"velocities {err:.3g} and a point's {err_p:.3g} off the finite "
                        f"differences (relative; allowed {allowed:.3g}, step {h / g.unit:.3g})")
        return trial, data
    trial.outcome = "ok"
    if origin is not None:
        # placed back, the velocities must be the origin's differences
        R = place[0]
        back = g.rotate_rates(nu, R.T)
        err_o = max(float(np.max(np.abs((back - origin["fd"]) / scale))) / origin["ref"],
                    float(np.max(np.abs(R.T @ vp - origin["fdp"]))) / (g.L * origin["ref"]))
        trial.extra["origin_rate_error"] = err_o
        if not err_o <= RATE_TOL + origin["uncertainty"]:
            trial.outcome = "unlike_origin"
            trial.detail = (f"velocities placed back {err_o:.3g} off the differences at the "
                            "origin (relative)")
    return trial, data


class _WrongPoseError(Exception):
    """A solved pose that fails a check."""


def _body_point(g, body, point, q):
    """The global position at ``q`` of the body-coordinate point ``point`` of ``body``."""
    r, R = g.pose_of(body, q)
    return r + (_rot2(R) if g.dim == 2 else R) @ point


def run_velocity_trial(kind: str, seed: int, *, far: bool = False) -> Trial:
    """Velocities against finite differences of solved poses: see the module's notes; far,
    also against the same trial's differences at the origin."""
    origin, data = _velocity_case(kind, seed, False)
    if not far:
        return origin
    if data is None:
        trial, _ = _velocity_case(kind, seed, True)
        if trial.outcome in BAD:
            trial.detail += f" (at the origin: {origin.outcome})"
        elif origin.outcome == "skipped":
            trial.outcome = "skipped"
        return trial
    return _velocity_case(kind, seed, True, data)[0]


# -- the campaign ------------------------------------------------------------------------------
#: seed offsets of the trial types, so that every trial is replayed from its own seed
OFFSETS = {"solve": 0, "sweep": 10**6, "branch": 2 * 10**6, "far": 3 * 10**6,
           "move": 4 * 10**6, "batch": 5 * 10**6, "velocity": 6 * 10**6}
SHARES = {"sweep": 0.15, "branch": 0.03, "far": 0.15, "move": 0.04, "batch": 0.04,
          "velocity": 0.06}


def plan(trials: int, seed: int = 0, kinds=KINDS, shares=None):
    """The campaign's trials as ``(function, args, kwargs)``: kinds in turn within each type;
    every fourth sweep and move trial, and every third round of velocity trials, far from the
    origin."""
    shares = dict(SHARES, **(shares or {}))
    sweepable = [k for k in kinds if k in SWEEP_KINDS]
    counts = {t: int(round(s * trials)) for t, s in shares.items()}
    if not sweepable:
        counts["sweep"] = 0
    if "fourbar" not in kinds:
        counts["branch"] = 0
    if "five_bar" not in kinds:
        counts["move"] = 0
    counts["solve"] = trials - sum(counts.values())
    out = []
    for t in range(counts["solve"]):
        out.append((run_trial, (kinds[t % len(kinds)], seed + t), {}))
    for t in range(counts["far"]):
        out.append((run_trial, (kinds[t % len(kinds)], seed + OFFSETS["far"] + t),
                    {"far": True}))
    for t in range(counts["sweep"]):
        out.append((run_trial, (sweepable[t % len(sweepable)], seed + OFFSETS["sweep"] + t),
                    {"sweep": True, "far": t % 4 == 3}))
    for t in range(counts["branch"]):
        out.append((run_branch_trial, (seed + OFFSETS["branch"] + t,), {}))
    for t in range(counts["move"]):
        out.append((run_move_trial, (seed + OFFSETS["move"] + t,), {"far": t % 4 == 3}))
    for t in range(counts["batch"]):
        out.append((run_batch_trial, (kinds[t % len(kinds)], seed + OFFSETS["batch"] + t), {}))
    for t in range(counts["velocity"]):
        out.append((run_velocity_trial, (kinds[t % len(kinds)],
                                         seed + OFFSETS["velocity"] + t),
                    {"far": (t // len(kinds)) % 3 == 2}))
    return out


def campaign(trials: int, seed: int = 0, kinds=KINDS, shares=None):
    """``trials`` trials of every type (see :func:`plan`); returns the Trials."""
    return [f(*args, **kwargs) for f, args, kwargs in plan(trials, seed, kinds, shares)]


def table(trials) -> dict:
    """Counts of outcomes by row (kind, and sweep, batch, velocity, move, far)."""
    rows = {}
    for t in trials:
        row = rows.setdefault(t.row, dict.fromkeys(OUTCOMES, 0))
        row[t.outcome] += 1
    return rows
