"""mechsolve against other kinematics solvers on the same problems, interleaved in one process.

Run: python benchmarks/peers.py [--quick] [--repeats N] [--no-peers] [--out PATH]

The peers are optional (``pip install ".[bench]"``); each one that is installed is run, the
others are listed as "not installed", and with none of them the script still times and checks
mechsolve. pyslvs is not in the extra: it builds only with ``cython<3.1`` and without build
isolation (``pip install "cython<3.1" wheel && pip install pyslvs --no-build-isolation``).

Problems (every answer, mechsolve's and each peer's, is checked against a closed form or by
forward kinematics; a row says how many answers met the check):

1. four-bar (ground 4, crank 1, coupler 3, rocker 3.5: ``ms.models.fourbar()``), 360 poses at
   1 degree, each from the last: ``mech.sweep(driver, values)``; pyslvs closed-form dyads
   (``expr_solving``), pylinkage's numba-compiled ``Linkage.step_fast`` (closed-form circle
   intersections), python-solvespace solving pose by pose from the previous one, Exudyn's
   static (kinematic) solver pose by pose. Check: crank pin and coupler-rocker pin within
   1e-9 of the closed-form four-bar.
2. chain of 10^4 four-bar loops (``ms.models.fourbar_chain(10000)``, 20,001 bodies), one solve
   with the driver moved by 0.1 rad from the assembled pose; Exudyn's static solver (sparse).
   Check: every rocker angle within 1e-9 rad of the closed form, loop by loop.
3. UR5 inverse kinematics (``ms.robots.ur5()``), 100 random reachable targets
   (``np.random.default_rng(2024)``, joint vectors uniform in [-pi, pi]): warm starts (the
   true joint vector plus U(-0.2, 0.2) per joint) as a batch and one target at a time (the
   7-number pose and the 4x4 matrix); cold starts (the all-zero joint vector for every target)
   as a batch. Peers: roboticstoolbox-python's ``ik_LM`` (C++) one target at a time, on a
   ``DHRobot`` built from mechsolve's DH table (``rtb.models.DH.UR5`` has d1 = 0.08946, not
   0.089159: its tool is 0.3 mm off), with its own random restarts; pinocchio, a Newton loop
   in Python on a model built from the same table (no restarts). Check: the tool within 1e-9
   of the target (every entry of the 4x4 matrix) by mechsolve's forward kinematics.
4. 1000 four-bar designs (each link of the nominal four-bar scaled by U(0.9, 1.1), all
   Grashof crank-rockers) x 36 crank angles: one ``mech.solve_batch`` of 36,000 items (joint
   points and driver value per item, starts from the nominal design's pose at that angle), and
   ``ms.design.sweep`` of the same family as named parameters (one row per design, each
   followed over the angles on its branch) vs pyslvs' closed form. Check: pins within 1e-9 of
   the closed form.

Each solver runs once untimed first (first-call caches; that answer is the one checked). The
machine is shared and has two cores, so mechsolve and each peer are then run in alternation,
repeat by repeat (the order flips every repeat), and the ratio quoted is the median of the
per-repeat ratios mechsolve / peer (below 1: mechsolve is faster), with their range. Times
are medians. mechsolve is imported from the checkout this script is in.

Writes JSON (machine, versions, every repeat's times, errors and counts) to ``--out``
(default outside the source tree; see ``_output.py``; ``--out benchmarks/results/peers.json``
updates the tracked copy).
"""

from __future__ import annotations

import argparse
import importlib.metadata
import importlib.util
import json
import pathlib
import platform
import subprocess
import sys
import time
import warnings

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
if (HERE.parent / "mechsolve" / "__init__.py").exists():
    sys.path.insert(0, str(HERE.parent))  # time this checkout, not another installed copy

from _output import add_out_option  # noqa: E402

import mechsolve as ms  # noqa: E402
from mechsolve.robots import UR5_DH  # noqa: E402

TOL = 1e-9
PEERS = {"pyslvs": "pyslvs", "pylinkage": "pylinkage", "python-solvespace": "python_solvespace",
         "exudyn": "exudyn", "roboticstoolbox-python": "roboticstoolbox", "pin": "pinocchio"}
LINKS = (4.0, 1.0, 3.0, 3.5)  # ground, crank, coupler, rocker


def installed(dist: str) -> str | None:
    """The version of an installed peer, or None."""
    if importlib.util.find_spec(PEERS[dist]) is None:
        return None
    try:
        return importlib.metadata.version(dist)
    except importlib.metadata.PackageNotFoundError:
        return "unknown"


# --------------------------------------------------------------------------- closed forms


def fourbar_pins(t, ground=4.0, crank=1.0, coupler=3.0, rocker=3.5):
    """Crank pin A and coupler-rocker pin B of the upper-branch four-bar at crank angles ``t``.

    Link lengths broadcast against ``t``; returns two arrays of shape ``(..., 2)``.
    """
    t, ground, crank, coupler, rocker = np.broadcast_arrays(t, ground, crank, coupler, rocker)
    A = np.stack([crank * np.cos(t), crank * np.sin(t)], -1)
    D = np.stack([ground - A[..., 0], -A[..., 1]], -1)
    e = np.hypot(D[..., 0], D[..., 1])
    phi = np.arctan2(D[..., 1], D[..., 0]) + np.arccos((coupler**2 + e**2 - rocker**2)
                                                       / (2 * coupler * e))
    B = A + coupler[..., None] * np.stack([np.cos(phi), np.sin(phi)], -1)
    return A, B


def chain_angles(n_loops: int, theta0: float) -> np.ndarray:
    """Rocker angles of ``ms.models.fourbar_chain(n_loops)`` with its first rocker at ``theta0``.

    Rocker ``i`` pivots at ``(i, 0)``; the coupler of loop ``i`` joins rocker ``i - 1``'s point
    at distance 1 to rocker ``i``'s point at distance 1.2, and is ``sqrt(1.04)`` long: each
    angle follows from the last by a circle-circle intersection (the upper one).
    """
    lc2 = 1.04
    th = np.empty(n_loops + 1)
    th[0] = theta0
    for i in range(1, n_loops + 1):
        P = np.array([i - 1 + np.cos(th[i - 1]), np.sin(th[i - 1])])
        C = np.array([float(i), 0.0])
        d = np.hypot(*(P - C))
        a = (1.44 - lc2 + d * d) / (2 * d)          # from C along C->P
        h = np.sqrt(1.44 - a * a)
        u = (P - C) / d
        Q = C + a * u + h * np.array([u[1], -u[0]])  # right of C->P: the upper one
        th[i] = np.arctan2(Q[1], Q[0] - i)
    return th


# --------------------------------------------------------------------------- timing


def clock(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def interleave(runners: dict, repeats: int) -> dict:
    """Run each callable once untimed (its answer is the one checked), then once per repeat,
    in alternation (the order flipped every repeat).

    ``runners`` maps a name to a callable returning the answer. Returns ``{name: (times,
    answer)}``.
    """
    names = list(runners)
    answers = {n: runners[n]() for n in names}   # warm-up: first-call caches, imports
    times = {n: [] for n in names}
    for r in range(repeats):
        for name in (names if r % 2 == 0 else names[::-1]):
            times[name].append(clock(runners[name])[0])
    return {n: (np.array(times[n]), answers[n]) for n in names}


# --------------------------------------------------------------------------- problem 1


def fourbar_problem(repeats: int, versions: dict) -> list[dict]:
    values = np.radians(np.arange(360.0))
    A_ref, B_ref = fourbar_pins(values)
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    coupler = mech.body("coupler")
    q0 = mech.state

    def run_ms():
        mech.state = q0
        motion = mech.sweep(drive, values)
        return motion.point(coupler, (-1.5, 0.0)), motion.point(coupler, (1.5, 0.0))

    runners = {"mechsolve": run_ms}
    notes = {"mechsolve": "mech.sweep (continuation)"}
    if versions["pyslvs"]:
        runners["pyslvs"] = pyslvs_fourbar(values)
        notes["pyslvs"] = "expr_solving, closed-form dyads"
    if versions["pylinkage"]:
        runners["pylinkage"] = pylinkage_fourbar(values)
        notes["pylinkage"] = "Linkage.step_fast (numba), closed-form circle intersections"
    if versions["python-solvespace"]:
        runners["python-solvespace"] = solvespace_fourbar(values)
        notes["python-solvespace"] = "solve pose by pose from the previous"
    if versions["exudyn"]:
        runners["exudyn"] = exudyn_fourbar(values)
        notes["exudyn"] = "SolveStatic pose by pose"

    def check(ans):
        A, B = ans
        err = np.maximum(np.max(np.abs(A - A_ref), axis=1), np.max(np.abs(B - B_ref), axis=1))
        return int(np.sum(err <= TOL)), float(np.max(err))

    return rows_for("four-bar, 360 poses at 1 deg", "us/pose", 1e6 / len(values), runners,
                    notes, check, len(values), repeats,
                    ["pyslvs", "pylinkage", "python-solvespace", "exudyn"], versions)


def pylinkage_fourbar(values):
    """pylinkage's four-bar stepped 1 degree at a time by its numba solver (``values`` must
    be ``0, 1, ..., 359`` degrees: its step ``i`` is the crank at ``i + 1`` degrees, the last
    the first pose again)."""
    from pylinkage import Linkage
    from pylinkage.actuators import Crank
    from pylinkage.components import Ground
    from pylinkage.dyads import RRRDyad

    ground, crank, coupler, rocker = LINKS
    O1, O2 = Ground(0.0, 0.0, name="O1"), Ground(ground, 0.0, name="O2")
    A = Crank(anchor=O1, radius=crank, angular_velocity=float(values[1] - values[0]),
              initial_angle=float(values[0]), name="A")
    B = RRRDyad(A, O2, coupler, rocker, x=2.0, y=3.0, name="B")
    linkage = Linkage([O1, O2, A, B], name="fourbar")

    def run():
        tr = np.roll(linkage.step_fast(iterations=len(values)), 1, axis=0)
        return tr[:, 2, :], tr[:, 3, :]

    return run


def pyslvs_mechanism(ground=4.0, crank=1.0, coupler=3.0, rocker=3.5):
    """pyslvs' points and triangle-expression stack of a four-bar, crank angle (0, 1) the input.

    The points are given at crank angle 0 (pyslvs takes the link lengths from them).
    """
    from pyslvs import parse_vpoints, t_config

    bx, by = map(float, fourbar_pins(0.0, ground, crank, coupler, rocker)[1])
    vpoints = parse_vpoints(
        f"M[J[R, P[0.0, 0.0], L[ground, L1]], J[R, P[{crank!r}, 0.0], L[L1, L2]], "
        f"J[R, P[{bx!r}, {by!r}], L[L2, L3]], J[R, P[{ground!r}, 0.0], L[L3, ground]]]")
    return vpoints, t_config(vpoints, [(0, 1)])


def pyslvs_fourbar(values):
    from pyslvs import expr_solving

    vpoints, exprs = pyslvs_mechanism()
    degrees = np.degrees(values).tolist()

    def run():
        out = [expr_solving(exprs, vpoints, {(0, 1): a}) for a in degrees]
        return np.array([p[1] for p in out]), np.array([p[2] for p in out])

    return run


def solvespace_fourbar(values):
    from python_solvespace import ResultFlag, SolverSystem

    s = SolverSystem()
    wp = s.create_2d_base()
    O2 = s.add_point_2d(0.0, 0.0, wp)
    s.dragged(O2, wp)
    O4 = s.add_point_2d(4.0, 0.0, wp)
    s.dragged(O4, wp)
    R = s.add_point_2d(2.0, 0.0, wp)      # sets the crank's direction: A on the line O2-R
    s.dragged(R, wp)
    crank_line = s.add_line_2d(O2, R, wp)
    s.set_group(2)
    A0, B0 = fourbar_pins(0.0)
    A = s.add_point_2d(*A0, wp)
    B = s.add_point_2d(*B0, wp)
    s.distance(O2, A, 1.0, wp)
    s.coincident(A, crank_line, wp)
    s.distance(A, B, 3.0, wp)
    s.distance(B, O4, 3.5, wp)

    def run():
        s.set_params(A.params, tuple(A0))
        s.set_params(B.params, tuple(B0))
        out_a = np.empty((len(values), 2))
        out_b = np.empty((len(values), 2))
        for i, t in enumerate(values):
            s.set_params(R.params, (2.0 * np.cos(t), 2.0 * np.sin(t)))
            if s.solve() != ResultFlag.OKAY:
                out_a[i:] = out_b[i:] = np.nan
                break
            out_a[i] = s.params(A.params)
            out_b[i] = s.params(B.params)
        return out_a, out_b

    return run


def exudyn_settings(sparse: bool):
    import exudyn as exu

    ss = exu.SimulationSettings()
    ss.staticSolver.numberOfLoadSteps = 1
    ss.staticSolver.verboseMode = 0
    ss.staticSolver.newton.relativeTolerance = 1e-10
    ss.staticSolver.newton.absoluteTolerance = 1e-12
    ss.staticSolver.newton.maxIterations = 50
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        ss.linearSolverType = (exu.LinearSolverType.EigenSparse if sparse
                               else exu.LinearSolverType.EXUdense)
        ss.solutionSettings.writeSolutionToFile = False
    return ss


class ExudynPlanar:
    """A planar multibody system of Exudyn: 2D rigid bodies, 2D revolutes, an angle driver."""

    def __init__(self):
        import exudyn as exu
        from exudyn import itemInterface

        self.exu, self.ei = exu, itemInterface
        self.sc = exu.SystemContainer()
        self.mbs = self.sc.AddSystem()
        self.ground = self.mbs.AddObject(itemInterface.ObjectGround())
        self.nodes = []

    def link(self, P, Q):
        """A body from pin P to pin Q (origin at the midpoint, x axis along P->Q)."""
        ei = self.ei
        c = (np.asarray(P) + Q) / 2
        d = np.asarray(Q) - P
        n = self.mbs.AddNode(ei.NodeRigidBody2D(
            referenceCoordinates=[c[0], c[1], float(np.arctan2(d[1], d[0]))]))
        b = self.mbs.AddObject(ei.ObjectRigidBody2D(nodeNumber=n, mass=1.0, inertia=1.0))
        self.nodes.append(n)
        return b

    def pin(self, b1, x1, b2, x2):
        ei = self.ei
        m1 = self.mbs.AddMarker(ei.MarkerBodyPosition(bodyNumber=b1, localPosition=[*x1, 0]))
        m2 = self.mbs.AddMarker(ei.MarkerBodyPosition(bodyNumber=b2, localPosition=[*x2, 0]))
        self.mbs.AddObject(ei.ObjectJointRevolute2D(markerNumbers=[m1, m2]))

    def driver(self, body_node):
        ei = self.ei
        ng = self.mbs.AddNode(ei.NodePointGround())
        mg = self.mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=ng, coordinate=0))
        mc = self.mbs.AddMarker(ei.MarkerNodeCoordinate(nodeNumber=body_node, coordinate=2))
        return self.mbs.AddObject(ei.CoordinateConstraint(markerNumbers=[mg, mc], offset=0.0))

    def coordinates(self):
        """Current (x, y, angle) of every body, ``(n_bodies, 3)``."""
        C = self.exu.ConfigurationType
        sd = self.mbs.systemData
        return (np.asarray(sd.GetODE2Coordinates(configuration=C.Current))
                + np.asarray(sd.GetODE2Coordinates(configuration=C.Reference))).reshape(-1, 3)


def exudyn_fourbar(values):
    A0, B0 = fourbar_pins(0.0)
    m = ExudynPlanar()
    crank = m.link((0.0, 0.0), A0)
    coupler = m.link(A0, B0)
    rocker = m.link(B0, (4.0, 0.0))
    m.pin(m.ground, (0.0, 0.0), crank, (-0.5, 0.0))
    m.pin(crank, (0.5, 0.0), coupler, (-1.5, 0.0))
    m.pin(coupler, (1.5, 0.0), rocker, (-1.75, 0.0))
    m.pin(rocker, (1.75, 0.0), m.ground, (4.0, 0.0))
    drive = m.driver(m.nodes[0])
    m.mbs.Assemble()
    ss = exudyn_settings(sparse=False)
    q0 = np.asarray(m.mbs.systemData.GetODE2Coordinates()).copy()
    exu, mbs = m.exu, m.mbs

    def run():
        mbs.systemData.SetODE2Coordinates(q0, configuration=exu.ConfigurationType.Initial)
        out = np.empty((len(values), 3))
        for i, t in enumerate(values):
            mbs.SetObjectParameter(drive, "offset", float(t))
            if not exu.SolveStatic(mbs, ss, updateInitialValues=True):
                out[i:] = np.nan
                break
            out[i] = m.coordinates()[1]
        c, phi = out[:, :2], out[:, 2:]
        u = np.concatenate([np.cos(phi), np.sin(phi)], axis=1)
        return c - 1.5 * u, c + 1.5 * u

    return run


# --------------------------------------------------------------------------- problem 2


def chain_problem(n_loops: int, repeats: int, versions: dict) -> list[dict]:
    model = ms.models.fourbar_chain(n_loops)
    mech = model.mechanism
    mech.solve()
    q0 = mech.state
    model.driver.value = model.values[1]
    ref = chain_angles(n_loops, model.values[1])
    idx = np.array([3 * mech.body(f"A{i}").index + 2 for i in range(n_loops + 1)])

    def run_ms():
        mech.state = q0
        mech.solve()
        return mech.state[idx]

    runners = {"mechsolve": run_ms}
    notes = {"mechsolve": "mech.solve() (sparse Newton)"}
    if versions["exudyn"]:
        runners["exudyn"] = exudyn_chain(n_loops, model.values[1] - model.values[0])
        notes["exudyn"] = "SolveStatic, EigenSparse"

    def check(th):
        err = np.abs(np.angle(np.exp(1j * (th - ref))))
        return int(np.sum(err <= TOL)), float(np.max(err))

    return rows_for(f"chain of {n_loops} four-bar loops, one solve", "ms", 1e3, runners, notes,
                    check, n_loops + 1, repeats, ["exudyn"], versions)


def exudyn_chain(n_loops: int, step: float, sparse: bool = True):
    m = ExudynPlanar()
    lc = float(np.sqrt(1.04))
    prev = m.link((0.0, 0.0), (0.0, 1.0))
    m.pin(m.ground, (0.0, 0.0), prev, (-0.5, 0.0))
    rockers = [prev]
    for i in range(1, n_loops + 1):
        cp = m.link((i - 1.0, 1.0), (float(i), 1.2))
        a = m.link((float(i), 0.0), (float(i), 1.0))
        m.pin(prev, (0.5, 0.0), cp, (-lc / 2, 0.0))
        m.pin(cp, (lc / 2, 0.0), a, (0.7, 0.0))
        m.pin(m.ground, (float(i), 0.0), a, (-0.5, 0.0))
        rockers.append(a)
        prev = a
    drive = m.driver(m.nodes[0])
    m.mbs.SetObjectParameter(drive, "offset", float(step))
    m.mbs.Assemble()
    ss = exudyn_settings(sparse=sparse)
    q0 = np.asarray(m.mbs.systemData.GetODE2Coordinates()).copy()
    exu, mbs = m.exu, m.mbs
    rows = np.array([0] + [2 * i for i in range(1, n_loops + 1)])  # rockers among the bodies

    def run():
        mbs.systemData.SetODE2Coordinates(q0, configuration=exu.ConfigurationType.Initial)
        if not exu.SolveStatic(mbs, ss, updateInitialValues=True):
            return np.full(n_loops + 1, np.nan)
        return m.coordinates()[rows, 2]

    return run


# --------------------------------------------------------------------------- problem 3


def ik_problem(repeats: int, versions: dict) -> list[dict]:
    arm = ms.robots.ur5()
    n = 100
    rng = np.random.default_rng(2024)
    Q = rng.uniform(-np.pi, np.pi, size=(n, 6))
    warm = Q + rng.uniform(-0.2, 0.2, size=Q.shape)
    cold = np.zeros_like(Q)
    F = arm.forward(Q)
    T7 = np.concatenate([F.translation, F.quaternion], axis=1)
    M = arm.forward_matrix(Q)

    def check(q):
        err = np.max(np.abs(arm.forward_matrix(np.asarray(q)) - M), axis=(1, 2))
        err = np.where(np.isfinite(err), err, np.inf)
        return int(np.sum(err <= TOL)), float(np.max(err))

    peers = {}
    if versions["roboticstoolbox-python"]:
        peers["roboticstoolbox-python"] = rtb_ik(M)
    if versions["pin"]:
        peers["pin"] = pinocchio_ik(M)
    cases = [("UR5 IK, 100 warm starts, mechsolve in one batch", "batch of 100",
              lambda: arm.ik(T7, warm, raise_on_failure=False).q, warm),
             ("UR5 IK, 100 cold starts (zeros), mechsolve in one batch", "batch of 100",
              lambda: arm.ik(T7, cold, raise_on_failure=False).q, cold),
             ("UR5 IK, warm, one call per target (7-vector)", "one at a time",
              lambda: np.array([arm.ik(T7[i], warm[i], raise_on_failure=False).q
                                for i in range(n)]), warm),
             ("UR5 IK, warm, one call per target (4x4)", "one at a time",
              lambda: np.array([arm.ik(M[i], warm[i], raise_on_failure=False).q
                                for i in range(n)]), warm)]
    rows = []
    for title, how, run_ms, starts in cases:
        runners = {"mechsolve": run_ms}
        notes = {"mechsolve": f"arm.ik, {how}"}
        for name, make in peers.items():
            runners[name] = lambda make=make, starts=starts: make(starts)
            notes[name] = ("ik_LM (C++), one target at a time, tol 1e-20, restarts allowed"
                           if name == "roboticstoolbox-python"
                           else "Newton loop in Python, one target at a time, no restarts")
        rows += rows_for(title, "us/target", 1e6 / n, runners, notes, check, n, repeats,
                         ["roboticstoolbox-python", "pin"], versions)
    return rows


def rtb_ik(M):
    import roboticstoolbox as rtb

    robot = rtb.DHRobot([rtb.RevoluteDH(d=d, a=a, alpha=al) for d, a, al in UR5_DH], name="UR5")
    ets = robot.ets()
    targets = [np.ascontiguousarray(m) for m in M]

    def run(starts):
        return np.array([ets.ik_LM(T, q0=q0, tol=1e-20, joint_limits=False).q
                         for T, q0 in zip(targets, starts)])

    return run


def pinocchio_ik(M):
    import pinocchio as pin

    model = pin.Model()
    parent = 0
    placement = pin.SE3.Identity()
    for i, (d, a, alpha) in enumerate(UR5_DH):
        parent = model.addJoint(parent, pin.JointModelRZ(), placement, f"joint{i + 1}")
        ca, sa = np.cos(alpha), np.sin(alpha)
        R = np.array([[1.0, 0.0, 0.0], [0.0, ca, -sa], [0.0, sa, ca]])
        placement = pin.SE3(R, np.array([a, 0.0, d]))
    tool = model.addFrame(pin.Frame("tool", parent, placement, pin.FrameType.OP_FRAME))
    data = model.createData()
    targets = [pin.SE3(m[:3, :3].copy(), m[:3, 3].copy()) for m in M]

    def solve_one(target, q):
        q = np.array(q, dtype=float)
        for _ in range(50):
            pin.framesForwardKinematics(model, data, q)
            err = pin.log6(target.actInv(data.oMf[tool])).vector   # error in the tool frame
            if np.max(np.abs(err)) < 1e-12:
                break
            J = pin.computeFrameJacobian(model, data, q, tool, pin.LOCAL)
            Jlog = pin.Jlog6(target.actInv(data.oMf[tool]))
            A = Jlog @ J
            dq = -A.T @ np.linalg.solve(A @ A.T + 1e-12 * np.eye(6), err)  # damped at singular
            q += dq * min(1.0, 1.0 / max(np.max(np.abs(dq)), 1e-300))
        return q

    def run(starts):
        return np.array([solve_one(T, q0) for T, q0 in zip(targets, starts)])

    return run


# --------------------------------------------------------------------------- problem 4


def designs_problem(n_designs: int, n_angles: int, repeats: int, versions: dict,
                    how: str = "solve_batch") -> list[dict]:
    rng = np.random.default_rng(7)
    L = np.array(LINKS) * rng.uniform(0.9, 1.1, size=(n_designs, 4))
    g, c, k, r = L.T
    t = np.radians(np.arange(n_angles) * 360.0 / n_angles)
    A_ref, B_ref = fourbar_pins(t[None, :], g[:, None], c[:, None], k[:, None], r[:, None])
    model = ms.models.fourbar()
    mech = model.mechanism
    O2, Aj, Bj, O4 = (mech.joint(name) for name in ("O2", "A", "B", "O4"))
    nominal = mech.sweep(model.driver, t).states                      # (n_angles, 9)
    states = np.repeat(nominal[None], n_designs, axis=0).reshape(-1, 9)
    rep = np.repeat  # design i at every angle: items i * n_angles + j
    z = np.zeros(n_designs)
    params = {O2: rep(np.stack([z, z, -c / 2, z], 1), n_angles, axis=0),
              Aj: rep(np.stack([c / 2, z, -k / 2, z], 1), n_angles, axis=0),
              Bj: rep(np.stack([k / 2, z, -r / 2, z], 1), n_angles, axis=0),
              O4: rep(np.stack([r / 2, z, g, z], 1), n_angles, axis=0)}
    values = {model.driver: np.tile(t, n_designs)}
    coupler = mech.body("coupler")
    kk = rep(k, n_angles)

    def run_ms():
        out = mech.solve_batch(states, params=params, values=values, raise_on_failure=False)
        S = out.states[:, 3 * coupler.index: 3 * coupler.index + 3]
        u = np.stack([np.cos(S[:, 2]), np.sin(S[:, 2])], 1) * (kk[:, None] / 2)
        return S[:, :2] - u, S[:, :2] + u

    # the same family as named design parameters, one row per design, followed over the
    # angles by ms.design.sweep (each design's branch kept, the batch axis over designs)
    designs = {"O2.point2": np.stack([-c / 2, z], 1), "A.point1": np.stack([c / 2, z], 1),
               "A.point2": np.stack([-k / 2, z], 1), "B.point1": np.stack([k / 2, z], 1),
               "B.point2": np.stack([-r / 2, z], 1), "O4.point1": np.stack([r / 2, z], 1),
               "O4.point2": np.stack([g, z], 1)}
    half = np.repeat(k[:, None], n_angles, axis=1)[..., None] / 2

    def run_design_sweep():
        out = ms.design.sweep(mech, designs, model.driver, t)
        S = out.states[..., 3 * coupler.index: 3 * coupler.index + 3]    # (D, N, 3)
        u = np.stack([np.cos(S[..., 2]), np.sin(S[..., 2])], -1) * half
        return (S[..., :2] - u).reshape(-1, 2), (S[..., :2] + u).reshape(-1, 2)

    if how == "design.sweep":
        runners = {"mechsolve": run_design_sweep}
        notes = {"mechsolve": f"ms.design.sweep of {n_designs} designs over {n_angles} angles"}
    else:
        runners = {"mechsolve": run_ms}
        notes = {"mechsolve": f"one solve_batch of {n_designs * n_angles} items"}
    if versions["pyslvs"]:
        runners["pyslvs"] = pyslvs_designs(L, t)
        notes["pyslvs"] = "expr_solving per design (all angles), closed form"

    def check(ans):
        A, B = ans
        err = np.maximum(np.max(np.abs(A - A_ref.reshape(-1, 2)), axis=1),
                         np.max(np.abs(B - B_ref.reshape(-1, 2)), axis=1))
        err = np.where(np.isfinite(err), err, np.inf)
        return int(np.sum(err <= TOL)), float(np.max(err))

    return rows_for(f"{n_designs} four-bar designs x {n_angles} angles ({how})", "ms", 1e3,
                    runners,
                    notes, check, n_designs * n_angles, repeats, ["pyslvs"], versions)


def pyslvs_designs(L, t):
    from pyslvs import expr_solving

    mechs = [pyslvs_mechanism(*map(float, row)) for row in L]
    degrees = np.degrees(t).tolist()

    def run():
        out = [expr_solving(exprs, vpoints, {(0, 1): a}) for vpoints, exprs in mechs
               for a in degrees]
        return np.array([p[1] for p in out]), np.array([p[2] for p in out])

    return run


# --------------------------------------------------------------------------- table


def rows_for(problem, unit, scale, runners, notes, check, n_answers, repeats, peer_names,
             versions) -> list[dict]:
    """Time ``runners`` interleaved, check their answers and make one row per peer."""
    res = interleave(runners, repeats)
    t_ms, ans_ms = res["mechsolve"]
    ok_ms, err_ms = check(ans_ms)
    rows = []
    for peer in peer_names:
        row = {"problem": problem, "unit": unit, "answers": n_answers,
               "mechsolve": notes["mechsolve"], "mechsolve_time": float(np.median(t_ms)) * scale,
               "mechsolve_times_s": t_ms.tolist(), "mechsolve_checked": ok_ms,
               "mechsolve_max_error": err_ms, "peer": peer, "peer_version": versions[peer]}
        if peer in res:
            t_p, ans_p = res[peer]
            ok_p, err_p = check(ans_p)
            row.update(peer_how=notes[peer], peer_time=float(np.median(t_p)) * scale,
                       peer_times_s=t_p.tolist(), peer_checked=ok_p, peer_max_error=err_p,
                       ratio=float(np.median(t_ms / t_p)),
                       ratio_range=[float(np.min(t_ms / t_p)), float(np.max(t_ms / t_p))])
        rows.append(row)
    print_rows(rows)
    return rows


def fmt(x):
    return "-" if x is None else (f"{x:.3g}" if x < 100 else f"{x:.0f}")


def ratio(r):
    """The median ratio and the range of the per-repeat ratios."""
    if "ratio" not in r:
        return "-"
    lo, hi = r["ratio_range"]
    return f"{fmt(r['ratio'])} ({fmt(lo)}-{fmt(hi)})"


def checked(r, sep=" | "):
    """``met/answers (largest error)`` for mechsolve, and for the peer if it ran."""
    out = f"{r['mechsolve_checked']}/{r['answers']} ({r['mechsolve_max_error']:.0e})"
    if "peer_time" in r:
        out += f"{sep}{r['peer_checked']}/{r['answers']} ({r['peer_max_error']:.0e})"
    return out


def print_rows(rows):
    for r in rows:
        peer = r["peer"] + ("" if r["peer_version"] else " (not installed)")
        print(f"{r['problem']:<52} {fmt(r['mechsolve_time']):>8} {r['unit']:<9} {peer:<38}"
              f" {fmt(r.get('peer_time')):>8} {fmt(r.get('ratio')):>7}  {checked(r)}",
              flush=True)


def markdown(rows) -> str:
    out = ["| problem | mechsolve | peer | peer time | mechsolve / peer (range) | answers checked "
           "(largest error), mechsolve \\| peer |", "|---|---|---|---|---|---|"]
    bar = " \\| "  # a | inside a Markdown table cell
    for r in rows:
        peer = f"{r['peer']} {r['peer_version']}" if r["peer_version"] else \
            f"{r['peer']}: not installed"
        out.append(f"| {r['problem']} | {fmt(r['mechsolve_time'])} {r['unit']} | {peer} | "
                   f"{fmt(r.get('peer_time'))} {r['unit'] if 'peer_time' in r else ''} | "
                   f"{ratio(r)} | {checked(r, bar)} |")
    return "\n".join(out)


def machine(versions: dict) -> dict:
    cpu = "unknown"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        commit = subprocess.run(["git", "describe", "--always", "--dirty"],
                                cwd=pathlib.Path(ms.__file__).parent,
                                capture_output=True, text=True).stdout.strip() or None
    except OSError:
        commit = None
    import scipy

    return {"platform": platform.platform(), "cpu": cpu, "cores": __import__("os").cpu_count(),
            "python": platform.python_version(), "numpy": np.__version__,
            "scipy": scipy.__version__, "mechsolve": ms.__version__ if hasattr(
                ms, "__version__") else importlib.metadata.version("mechsolve"),
            "mechsolve_commit": commit, "mechsolve_path": str(pathlib.Path(ms.__file__).parent),
            "peers": versions}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true",
                        help="3 repeats, a chain of 1000 loops, 100 designs")
    parser.add_argument("--repeats", type=int, default=None, help="repeats (default 7)")
    parser.add_argument("--no-peers", action="store_true",
                        help="mechsolve alone, as if no peer were installed")
    add_out_option(parser, "peers.json")
    args = parser.parse_args()
    repeats = args.repeats or (3 if args.quick else 7)
    versions = {name: None if args.no_peers else installed(name) for name in PEERS}
    info = machine(versions)
    print(f"{info['cpu']}, {info['cores']} cores, Python {info['python']}, {info['platform']}")
    print(f"mechsolve {info['mechsolve']} from {info['mechsolve_path']} "
          f"(commit {info['mechsolve_commit']})")
    print("peers: " + ", ".join(f"{k} {v}" if v else f"{k} not installed"
                                for k, v in versions.items()))
    if not versions["pyslvs"] and not args.no_peers:
        print("pyslvs builds only with cython<3.1: pip install 'cython<3.1' wheel && "
              "pip install pyslvs --no-build-isolation")
    print(f"times: medians of {repeats} interleaved repeats; ratio: median of per-repeat "
          f"mechsolve/peer; answers within {TOL:g} of closed form / by forward kinematics\n")
    print(f"{'problem':<52} {'mechsolve':>8} {'unit':<9} {'peer':<38} {'peer':>8} {'ratio':>7}"
          "  checked ms | peer")
    rows = fourbar_problem(repeats, versions)
    rows += chain_problem(1000 if args.quick else 10000, repeats, versions)
    rows += ik_problem(repeats, versions)
    for how in ("solve_batch", "design.sweep"):
        rows += designs_problem(100 if args.quick else 1000, 36, repeats, versions, how)
    print("\n" + markdown(rows))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"machine": info, "repeats": repeats, "tolerance": TOL,
                                    "command": " ".join(["python", "benchmarks/peers.py"]
                                                        + sys.argv[1:]),
                                    "rows": rows}, indent=2))
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
