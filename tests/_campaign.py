"""The randomized reliability campaign: random assemblable linkages, solved from rough starts,
every answer checked from the poses alone.

Every trial draws a mechanism *from a pose*: random joint points (and axes, for spatial
linkages) and random body poses, the joints' local parameters computed from them, so that the
drawn pose is an assembly by construction. The lengths are multiplied by a random unit scale in
``1e-6 .. 1e6``. The solver starts from that pose perturbed (angles by up to 0.1 rad, positions
by up to 5 % of the mechanism's size, orientations by a rotation of up to 0.1 rad) and its
answer is checked by this module's own geometry, written from the poses (pins coincide, hinge
axes parallel and same-signed, sliders on their lines, welds coincide, rods at their length,
drivers at their values, all to 1e-12 relative) -- never from the solver's residual.

Outcomes of a trial:

* ``ok``: success, every check holds, and the pose is the drawn assembly;
* ``nearer_assembly``: success, every check holds, on another assembly than the drawn one
  that the start was nearer to (the drawn pose is then close to a toggle: fair);
* ``sketched_circuit``: success, every check holds, on another assembly than the drawn one
  whose sign of ``det J`` is the start's while the drawn one's is not: the start sketches the
  other circuit (it lies across a singular configuration from the drawn pose), and the solve
  keeps to the circuit sketched (square systems);
* ``other_assembly``: success, every check holds, but on another assembly than the drawn one,
  the start being nearer the drawn one (a branch jump);
* ``false_success``: success reported on a pose that fails a check (the goal is none);
* ``false_failure``: a SolveError on this assemblable mechanism from this near start;
* ``skipped``: the drawn pose is too close to singular to make a fair trial (the conditioning
  of this module's own constraint Jacobian, by finite differences, above 1e6).

Sweep trials move the driver by up to 0.3 rad from the drawn pose (planar four-bars and
slider-cranks whose drawn pose is well away from a toggle) and check every pose the same way
and that the assembly mode (the side of the coupler line the rocker pin lies on) never flips:
a flip is a branch jump.

Branch trials start a four-bar near its *other* assembly and ask ``solve(branch=...)`` for the
drawn one; the answer must be the drawn pose, and a sweep from it must keep its mode.

Used by ``tests/test_campaign.py`` (a derandomized budget) and ``benchmarks/campaign.py``
(10^4 trials and more, with a table).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

import mechsolve as ms
from mechsolve import joints

TOL = 1e-12
KINDS_PLANAR = ("fourbar", "slider_crank", "watt", "stephenson")
KINDS_SPATIAL = ("rssr", "spherical_fourbar", "welds_and_hinges")
KINDS = KINDS_PLANAR + KINDS_SPATIAL


@dataclass
class Trial:
    kind: str
    seed: int
    scale: float
    outcome: str = ""
    detail: str = ""
    worst: float = 0.0          # the largest check value, relative
    sweep: bool = False
    extra: dict = field(default_factory=dict)


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


def _rotvec(v) -> np.ndarray:
    v = np.asarray(v, float)
    t = np.linalg.norm(v)
    if t == 0.0:
        return np.eye(3)
    k = v / t
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + np.sin(t) * K + (1 - np.cos(t)) * K @ K


def _matrix_quat(R) -> np.ndarray:
    return np.asarray(ms.Orientation.from_matrix(R).quaternion, float)


def _frame_z(z, rng) -> np.ndarray:
    """A rotation whose third column is ``z`` (random about it)."""
    z = z / np.linalg.norm(z)
    a = rng.normal(size=3)
    x = a - (a @ z) * z
    x /= np.linalg.norm(x)
    return np.column_stack([x, np.cross(z, x), z])


# -- planar linkages drawn from a pose ----------------------------------------------------------
class _Planar:
    """A planar linkage drawn from a pose: bodies ``(position, angle)``, joints by global
    geometry, and the independent checks."""

    def __init__(self, rng, scale: float):
        self.rng = rng
        self.L = scale
        self.poses: list = []          # per moving body: (r (2,), t)
        self.names: list = []
        self.revolutes: list = []      # (i, j, P global); index -1 is ground
        self.prismatics: list = []     # (i, j, P global, u global, relative angle)
        self.driver = None             # (body index, value)

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
        i, value = self.driver
        drive = mech.add(joints.Driver(bodies[i], "angle", value, name="drive"))
        self.q_true = np.concatenate([np.r_[r, t] for r, t in self.poses])
        return mech, drive

    def residuals(self, q, value=None) -> np.ndarray:
        """This module's constraint values at ``q``, lengths divided by the size."""
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
        i, v = self.driver
        v = v if value is None else value
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
    g.mode_points = (A, B, O4)
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


# -- spatial linkages drawn from a pose ---------------------------------------------------------
class _Spatial:
    """A spatial linkage drawn from a pose: bodies ``(r, R)``, joints by global geometry."""

    def __init__(self, rng, scale):
        self.rng = rng
        self.L = scale
        self.poses: list = []
        self.names: list = []
        self.hinges: list = []   # (i, j, P, Rj): joint frame at P with axis Rj[:, 2]
        self.welds: list = []    # (i, j, P, Rj)
        self.rods: list = []     # (i, j, P1, P2, length)
        self.driven = None       # hinge index
        self.value = 0.0

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

    def frame(self, i, P, Rj):
        r, R = self.pose_of(i)
        return ms.Frame(R.T @ (P - r), ms.Orientation.from_matrix(R.T @ Rj))

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
        for k, (i, j, P1, P2, length) in enumerate(self.rods):
            r1, R1 = self.pose_of(i)
            r2, R2 = self.pose_of(j)
            mech.add(joints.Distance(at(i), at(j), R1.T @ (P1 - r1), R2.T @ (P2 - r2), length,
                                     name=f"D{k}"))
        drive = mech.add(joints.AngleDriver(made[self.driven], 0.0, name="drive"))
        self.q_true = np.concatenate([np.r_[r, _matrix_quat(R)] for r, R in self.poses])
        return mech, drive

    def _hinge_axes(self, k, q):
        i, j, P, Rj = self.hinges[k]
        r1, R1 = self.pose_of(i, q)
        r2, R2 = self.pose_of(j, q)
        A1 = R1 @ (self.pose_of(i)[1].T @ Rj)
        A2 = R2 @ (self.pose_of(j)[1].T @ Rj)
        o1 = r1 + R1 @ (self.pose_of(i)[1].T @ (P - self.pose_of(i)[0]))
        o2 = r2 + R2 @ (self.pose_of(j)[1].T @ (P - self.pose_of(j)[0]))
        return o1, o2, A1, A2

    def hinge_angle(self, k, q):
        """The rotation of body ``j``'s joint frame about the hinge axis, from body ``i``'s."""
        _, _, A1, A2 = self._hinge_axes(k, q)
        x1, x2, z = A1[:, 0], A2[:, 0], A1[:, 2]
        return float(np.arctan2(np.cross(x1, x2) @ z, x1 @ x2))

    def residuals(self, q, value=None):
        out = []
        for k in range(len(self.hinges)):
            o1, o2, A1, A2 = self._hinge_axes(k, q)
            out.extend((o1 - o2) / self.L)
            out.extend(np.cross(A1[:, 2], A2[:, 2]))
            out.append(min(0.0, A1[:, 2] @ A2[:, 2]))     # same-signed
        for i, j, P, Rj in self.welds:
            r1, R1 = self.pose_of(i, q)
            r2, R2 = self.pose_of(j, q)
            (s1, S1), (s2, S2) = self.pose_of(i), self.pose_of(j)
            out.extend((r1 + R1 @ S1.T @ (P - s1) - r2 - R2 @ S2.T @ (P - s2)) / self.L)
            out.extend((R1 @ S1.T @ Rj - R2 @ S2.T @ Rj).ravel())
        for i, j, P1, P2, length in self.rods:
            r1, R1 = self.pose_of(i, q)
            r2, R2 = self.pose_of(j, q)
            (s1, S1), (s2, S2) = self.pose_of(i), self.pose_of(j)
            d = r1 + R1 @ S1.T @ (P1 - s1) - r2 - R2 @ S2.T @ (P2 - s2)
            out.append((np.linalg.norm(d) - length) / self.L)
        v = self.value if value is None else value
        out.append(np.angle(np.exp(1j * (self.hinge_angle(self.driven, q) - v))))
        return np.array(out)

    def start(self):
        q = self.q_true.copy()
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


def _unit(rng):
    v = rng.normal(size=3)
    return v / np.linalg.norm(v)


_DRAW = {"fourbar": _fourbar, "slider_crank": _slider_crank,
         "watt": lambda rng, L: _sixbar(rng, L, True),
         "stephenson": lambda rng, L: _sixbar(rng, L, False),
         "rssr": _rssr, "spherical_fourbar": _spherical_fourbar,
         "welds_and_hinges": _welds_and_hinges}


def _jacobian(g, q0) -> np.ndarray:
    """This module's own residuals' Jacobian at ``q0`` by central differences, in
    size-relative increments."""
    n = (len(q0) // 7) * 6 if isinstance(g, _Spatial) else len(q0)
    h = 1e-6
    cols = []
    for k in range(n):
        e = np.zeros(n)
        e[k] = h
        cols.append((g.residuals(g.increment(q0, e)) - g.residuals(g.increment(q0, -e)))
                    / (2 * h))
    return np.array(cols).T


def _conditioning(g) -> float:
    """Ratio of the extreme singular values of this module's own residuals' Jacobian at the
    drawn pose, without the rows that are redundant by construction (a spherical
    four-bar's)."""
    J = _jacobian(g, g.q_true)
    n = J.shape[1]
    s = np.linalg.svd(J, compute_uv=False)[:n]
    return float(s[0] / s[-1]) if s[-1] > 0 else np.inf


def _det_sign(g, q) -> int:
    """The sign of the determinant of this module's Jacobian at ``q`` (square systems)."""
    J = _jacobian(g, q)
    return int(np.linalg.slogdet(J)[0]) if J.shape[0] == J.shape[1] else 0


def run_trial(kind: str, seed: int, *, sweep: bool = False) -> Trial:
    """One trial: draw, solve from a rough start (or sweep), check, classify."""
    rng = np.random.default_rng(seed)
    scale = float(10.0 ** rng.uniform(-6, 6))
    trial = Trial(kind, seed, scale, sweep=sweep)
    g = _DRAW[kind](rng, scale)
    if isinstance(g, _Spatial):
        g.value = 0.0
    mech, drive = g.build()
    if isinstance(g, _Spatial):
        g.value = g.hinge_angle(g.driven, g.q_true)
        drive.value = g.value
    value0 = drive.value
    if np.max(np.abs(g.residuals(g.q_true))) > 1e-9:
        raise AssertionError(f"{kind} seed {seed}: the drawn pose is not an assembly")
    cond = _conditioning(g)
    trial.extra["conditioning"] = cond
    if not cond < 1e6:
        trial.outcome = "skipped"
        return trial
    if sweep:
        return _sweep_trial(trial, g, mech, drive, value0, rng)
    start = g.start()
    mech.state = start
    try:
        mech.solve()
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", str(err).splitlines()[0][:200]
        return trial
    q = mech.state
    worst = float(np.max(np.abs(g.residuals(q))))
    trial.worst = worst
    if not worst <= TOL:
        trial.outcome, trial.detail = "false_success", f"check {worst:.3g}"
    elif g.distance(q) > 1e-6:
        # another assembly: fair if the start was nearer to it than to the drawn one
        near = g.distance(start, q) < g.distance(start)
        trial.extra.update(separation=g.distance(q), start_offset=g.distance(start))
        signs = [_det_sign(g, p) for p in (g.q_true, start, q)]
        if 0 not in signs:
            # the start across a singular configuration from the drawn pose, or Newton's
            # path across one from the start
            trial.extra.update(start_across=signs[0] != signs[1], crossed=signs[1] != signs[2])
        trial.outcome = "nearer_assembly" if near else "other_assembly"
        if 0 not in signs and signs[1] == signs[2] != signs[0]:
            trial.outcome = "sketched_circuit"
        trial.detail = (f"distance {g.distance(q):.3g} from the drawn pose; the start "
                        f"{g.distance(start):.3g} from it and {g.distance(start, q):.3g} from "
                        "the one found")
    else:
        trial.outcome = "ok"
    return trial


def _mode(g, q) -> float:
    """The assembly mode of a four-bar: the side of the coupler line the rocker pivot is on."""
    coupler = 1
    (_, _, A), (_, _, B), (_, _, O4) = g.revolutes[1], g.revolutes[2], g.revolutes[3]
    r1, t1 = g.pose_of(coupler, q)
    a = r1 + _rot2(t1) @ g.local(coupler, A)
    b = r1 + _rot2(t1) @ g.local(coupler, B)
    u, v = b - a, O4 - b
    return float(np.sign(u[0] * v[1] - u[1] * v[0]))


def _reachable(g, kind: str, value: float) -> bool:
    """Whether the drawn four-bar or slider-crank assembles with the crank at ``value``: the
    crank pin within reach of the coupler (four-bar: ``|b - c| <= |A - O4| <= b + c``;
    slider-crank: the slider line within a rod length of the crank pin)."""
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


def _sweep_trial(trial, g, mech, drive, value0, rng):
    """Sweep the driver by up to 0.3 rad from the drawn pose and check every pose."""
    kind = trial.kind.split()[0]
    if not isinstance(g, _Planar) or kind not in ("fourbar", "slider_crank"):
        raise ValueError("sweep trials are for planar four-bars and slider-cranks")
    span = rng.uniform(-0.3, 0.3)
    values = value0 + np.linspace(0.0, span, 31)
    mech.state = g.q_true
    try:
        motion = mech.sweep(drive, values)
    except ms.SweepError as err:
        # a limit position inside the range is possible for a drawn linkage: it is one only if
        # some value of the range cannot be assembled, by this module's own geometry
        if all(_reachable(g, kind, v) for v in np.linspace(value0, value0 + span, 2001)):
            trial.outcome, trial.detail = "false_failure", str(err).splitlines()[0][:200]
        else:
            trial.outcome, trial.detail = "limit", "a value of the range cannot be assembled"
        return trial
    except ms.SolveError as err:
        trial.outcome, trial.detail = "false_failure", str(err).splitlines()[0][:200]
        return trial
    worst = 0.0
    mode0 = _mode(g, g.q_true) if kind == "fourbar" else None
    for q, v in zip(motion.states, values):
        worst = max(worst, float(np.max(np.abs(g.residuals(q, value=v)))))
        if mode0 is not None and _mode(g, q) != mode0:
            trial.outcome, trial.detail = "branch_jump", f"at driver value {v:.6g}"
            trial.worst = worst
            return trial
    trial.worst = worst
    trial.outcome = "ok" if worst <= TOL else "false_success"
    if trial.outcome == "false_success":
        trial.detail = f"check {worst:.3g}"
    return trial


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
        trial.outcome, trial.detail = "false_failure", str(err).splitlines()[0][:200]
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
    return _sweep_trial(trial, g, mech, drive, drive.value, rng)


def campaign(trials: int, seed: int = 0, kinds=KINDS, sweep_share: float = 0.2,
             branch_share: float = 0.05):
    """``trials`` trials: kinds in turn, a share of them sweeps and a share ``branch=`` solves
    of four-bars; returns the Trials."""
    out = []
    sweepable = [k for k in kinds if k in ("fourbar", "slider_crank")]
    n_sweep = int(round(sweep_share * trials)) if sweepable else 0
    n_branch = int(round(branch_share * trials)) if "fourbar" in kinds else 0
    for t in range(trials - n_sweep - n_branch):
        out.append(run_trial(kinds[t % len(kinds)], seed + t))
    for t in range(n_sweep):
        out.append(run_trial(sweepable[t % len(sweepable)], seed + 10**6 + t, sweep=True))
    for t in range(n_branch):
        out.append(run_branch_trial(seed + 2 * 10**6 + t))
    return out


OUTCOMES = ("ok", "nearer_assembly", "sketched_circuit", "other_assembly", "false_success",
            "false_failure", "branch_jump", "limit", "skipped")


def table(trials) -> dict:
    """Counts of outcomes by kind (and sweep)."""
    rows = {}
    for t in trials:
        key = t.kind + (" sweep" if t.sweep else "")   # "fourbar branch" names itself
        row = rows.setdefault(key, dict.fromkeys(OUTCOMES, 0))
        row[t.outcome] += 1
    return rows
