"""Four-bar path-generation cases from the literature, set up in mechsolve in their own
parametrization, with an error computed from their closed form (never from mechsolve's solver).

The parametrization (Cabrera, Simon & Prado 2002, "Optimal synthesis of mechanisms with genetic
algorithms", Mech. Mach. Theory 37, and the studies that reuse their cases) is
``p = (r1, r2, r3, r4, rcx, rcy, theta0, x0, y0)``: ground link ``r1`` from the crank pivot
``(x0, y0)`` at the angle ``theta0``, crank ``r2``, coupler ``r3``, rocker ``r4``, the coupler
point at ``(rcx, rcy)`` in a coupler frame with its origin at the crank pin and its x axis
towards the rocker pin, and crank angles ``theta2`` measured from the ground link. The coupler
angle is the closed form's ``+`` root::

    A = 2 r3 (r2 cos t2 - r1),  B = 2 r3 r2 sin t2,  C = r1^2 + r2^2 + r3^2 - r4^2 - 2 r1 r2 cos t2
    theta3 = 2 atan((-B + sqrt(A^2 + B^2 - C^2)) / (C - A))

and the objective is the sum over the targets of the squared distance of the coupler point
from the target. The constraints are the crank-rocker conditions ``r1 + r2 <= r3 + r4`` and
``r2 <= r3 <= r4 <= r1`` (and, without prescribed timing, crank angles in cyclic order).

Sources (the text of the data, read from public repositories; the published papers' tables of
results could not be read here):

* the formulation, the bounds and the targets: ``jmejia8/eca-four-bar-mechanisms``,
  ``tools.jl`` (``case_info``, ``error_caso1``, ``error_caso2``, ``grashof``) and
  ``jmejia8/Mechanisms.jl``, ``src/fourBarMechanism.jl`` (``fourBarKinetics``) and
  ``src/testPoints.jl`` (``PTS_VERTICAL_LINE``, ``PTS_ELLIPTIC``): the evolutionary-centers
  study of these cases by J.-A. Mejia-de-Dios and E. Mezura-Montes;
* the best linkages recorded for the vertical line: ``bestEver(1)`` in that ``tools.jl``
  (recorded with ``my_error = 1e-20``) and the example vector of ``jmejia8/Mechanisms.jl``'s
  ``README.md``.

Cases:

``line6`` -- six points on a vertical line, (20, 20) to (20, 45), timing free: 15 unknowns
(the nine of ``p`` and six crank angles), bounds ``r_i`` in [0, 60], ``rcx, rcy, x0, y0`` in
[-60, 60], ``theta0`` and the crank angles in [0, 2 pi].

``arc5`` -- five points of an arc, (3, 3) to (1.355, 3.943), with prescribed timing: crank
angles pi/6, pi/4, pi/3, 5 pi/12, pi/2, the crank pivot at the origin and the ground link along
x (``theta0 = x0 = y0 = 0``): 6 unknowns ``r1 .. r4, rcx, rcy``, bounds ``r_i`` in [0, 50],
``rcx, rcy`` in [-50, 50]. (Kunjur & Krishnamurty's 1997 case as Cabrera et al. restated it.)
"""

from __future__ import annotations

import math

import numpy as np

import mechsolve as ms

CASES = {
    "line6": {
        "targets": np.array([[20.0, 20.0], [20.0, 25.0], [20.0, 30.0], [20.0, 35.0],
                             [20.0, 40.0], [20.0, 45.0]]),
        "theta2": None,
        "bounds": {"r": (0.0, 60.0), "rc": (-60.0, 60.0), "theta0": (0.0, 2 * math.pi),
                   "xy0": (-60.0, 60.0), "theta2": (0.0, 2 * math.pi)},
        "source": "jmejia8/eca-four-bar-mechanisms tools.jl case_info(1); "
                  "jmejia8/Mechanisms.jl src/testPoints.jl PTS_VERTICAL_LINE",
    },
    "arc5": {
        "targets": np.array([[3.0, 3.0], [2.759, 3.363], [2.372, 3.663], [1.890, 3.862],
                             [1.355, 3.943]]),
        "theta2": np.array([math.pi / 6, math.pi / 4, math.pi / 3, 5 * math.pi / 12,
                            math.pi / 2]),
        "bounds": {"r": (0.0, 50.0), "rc": (-50.0, 50.0)},
        "source": "jmejia8/eca-four-bar-mechanisms tools.jl case_info(2), error_caso2; "
                  "jmejia8/Mechanisms.jl src/testPoints.jl PTS_ELLIPTIC",
    },
}

#: Linkages recorded for ``line6``: ``(p, theta2, printed error or None, source)``.
RECORDED = {
    "line6": [
        (np.array([39.35432733966176, 8.738597335076454, 27.91020567579063, 38.41653206619049,
                   36.576759454887835, 18.058222622003274, 3.922197401424182,
                   -9.015069651004032, 59.8594568458345]),
         np.array([1.6275724377055465, 2.42129538238649, 2.93021895068062,
                   3.4158306289051543, 3.9401612344766854, 5.428565504554411]),
         1e-20, "jmejia8/eca-four-bar-mechanisms tools.jl bestEver(1)"),
        (np.array([25.806923155616076, 7.206840543271378, 25.433307805225706,
                   25.581872903631492, 43.76124192997665, 17.31237766430696,
                   4.328061708805246, -18.454401816641795, 56.391854888638704]),
         np.array([1.7725777135059568, 2.406537344482028, 2.905924030160018,
                   3.3833860876551376, 3.8836626455580485, 4.520954645032934]),
         None, "jmejia8/Mechanisms.jl README.md example"),
    ],
}


def coupler_points(p, theta2, root: int = 1):
    """The coupler point at the crank angles ``theta2`` by the closed form (``root=+1`` is the
    published ``+`` root); ``nan`` where the linkage does not assemble."""
    r1, r2, r3, r4, rcx, rcy, t0, x0, y0 = (float(v) for v in p)
    t2 = np.asarray(theta2, dtype=float)
    a = 2 * r3 * (r2 * np.cos(t2) - r1)
    b = 2 * r3 * r2 * np.sin(t2)
    c = r1**2 + r2**2 + r3**2 - r4**2 - 2 * r1 * r2 * np.cos(t2)
    disc = a**2 + b**2 - c**2
    with np.errstate(invalid="ignore", divide="ignore"):
        t3 = 2 * np.arctan((-b + root * np.sqrt(disc)) / (c - a))
    cx = r2 * np.cos(t2) + rcx * np.cos(t3) - rcy * np.sin(t3)
    cy = r2 * np.sin(t2) + rcx * np.sin(t3) + rcy * np.cos(t3)
    return np.stack([cx * math.cos(t0) - cy * math.sin(t0) + x0,
                     cx * math.sin(t0) + cy * math.cos(t0) + y0], axis=-1)


def closed_form_error(p, theta2, targets, root: int = 1) -> float:
    """The published objective: the sum of squared distances (``inf`` if not assembled)."""
    d = coupler_points(p, theta2, root) - np.asarray(targets, dtype=float)
    err = float(np.sum(d**2))
    return err if math.isfinite(err) else math.inf


def constraints_hold(p, theta2=None, tol: float = 1e-9) -> bool:
    """The published constraints: a crank-rocker with ``r2 <= r3 <= r4 <= r1`` and
    ``r1 + r2 <= r3 + r4``; crank angles (if given) in cyclic order, within one turn."""
    r1, r2, r3, r4 = (float(v) for v in p[:4])
    ok = r1 + r2 <= r3 + r4 + tol and r2 <= r3 + tol and r3 <= r4 + tol and r4 <= r1 + tol
    if ok and theta2 is not None:
        steps = np.diff(np.remainder(np.asarray(theta2) - theta2[0], 2 * math.pi))
        ok = bool(np.all(steps > 0))
    return bool(ok)


def build(p, theta2: float = 0.0, root: int = 1):
    """The four-bar ``p`` in mechsolve, in the published parametrization, assembled at the
    crank angle ``theta2`` on the closed form's ``root``.

    Bodies: ``frame`` (welded to ground by ``base``: ``base.point1 = (x0, y0)``,
    ``base.angle = theta0``), ``crank``, ``coupler``, ``rocker``; joints ``O2`` (crank pivot),
    ``A`` (crank pin: ``A.point1 = (r2, 0)``), ``B`` (rocker pin: ``B.point1 = (r3, 0)`` on the
    coupler, ``B.point2 = (r4, 0)`` on the rocker), ``O4`` (rocker pivot:
    ``O4.point2 = (r1, 0)`` on the frame); the driver ``theta2`` is the crank's angle from the
    ground link (an angle driver on ``O2``). The coupler point is ``(rcx, rcy)`` on
    ``coupler``. Returns ``(mechanism, driver)``.
    """
    r1, r2, r3, r4, rcx, rcy, t0, x0, y0 = (float(v) for v in p)
    mech = ms.Mechanism(name="published four-bar")
    rot = np.array([[math.cos(t0), -math.sin(t0)], [math.sin(t0), math.cos(t0)]])
    origin = np.array([x0, y0])

    def to_global(q):
        return origin + rot @ np.asarray(q, dtype=float)

    # the pins at theta2, in the frame of the ground link, by the closed form
    pa = r2 * np.array([math.cos(theta2), math.sin(theta2)])
    # the rocker pin: the coupler point (r3, 0)
    pb = coupler_points((r1, r2, r3, r4, r3, 0.0, 0.0, 0.0, 0.0), [theta2], root)[0]
    t3 = math.atan2(pb[1] - pa[1], pb[0] - pa[0])
    t4 = math.atan2(pb[1], pb[0] - r1)
    frame = mech.add_body("frame", position=origin, angle=t0)
    crank = mech.add_body("crank", position=origin, angle=t0 + theta2)
    coupler = mech.add_body("coupler", position=to_global(pa), angle=t0 + t3)
    rocker = mech.add_body("rocker", position=to_global((r1, 0.0)), angle=t0 + t4)
    mech.add(ms.joints.Fixed(mech.ground, frame, (x0, y0), (0.0, 0.0), t0, name="base"))
    pivot = mech.add(ms.joints.Revolute(frame, crank, (0.0, 0.0), (0.0, 0.0), name="O2"))
    mech.add(ms.joints.Revolute(crank, coupler, (r2, 0.0), (0.0, 0.0), name="A"))
    mech.add(ms.joints.Revolute(coupler, rocker, (r3, 0.0), (r4, 0.0), name="B"))
    mech.add(ms.joints.Revolute(rocker, frame, (0.0, 0.0), (r1, 0.0), name="O4"))
    driver = mech.add(ms.joints.AngleDriver(pivot, theta2, name="theta2"))
    coupler.add_point("P", (rcx, rcy))
    mech.solve()
    return mech, driver


def design_of(mech, point=None) -> np.ndarray:
    """``p = (r1, r2, r3, r4, rcx, rcy, theta0, x0, y0)`` read back from a mechanism built by
    :func:`build`, its traced point ``point`` (default: the coupler's point ``P``). The lengths
    and the coupler point are measured between the pins; the driver is the published crank
    angle while the crank pin and the rocker pivot stay on their bodies' x axes (the unknowns
    of :func:`problem` keep them there)."""
    q = mech.parameters()
    o2 = q["O2.point1"]      # the crank pivot on the frame
    o4 = q["O4.point2"]
    ground = o4 - o2
    r1 = float(np.hypot(*ground))
    r2 = float(np.hypot(*(q["A.point1"] - q["O2.point2"])))
    a, b = q["A.point2"], q["B.point1"]
    r3 = float(np.hypot(*(b - a)))
    r4 = float(np.hypot(*(q["B.point2"] - q["O4.point1"])))
    u = (b - a) / r3
    pt = mech.body("coupler").point("P") if point is None else np.asarray(point, dtype=float)
    v = pt - a
    rcx, rcy = float(u @ v), float(u[0] * v[1] - u[1] * v[0])
    t0 = float(q["base.angle"] + math.atan2(ground[1], ground[0]))
    xy = q["base.point1"] + _rot(q["base.angle"]) @ o2
    return np.array([r1, r2, r3, r4, rcx, rcy, t0, xy[0], xy[1]])


def _rot(t):
    return np.array([[math.cos(t), -math.sin(t)], [math.sin(t), math.cos(t)]])


def swept_points(mech, driver, theta2, point=None) -> np.ndarray:
    """The coupler point at the crank angles ``theta2`` by sweeping the mechanism itself (one
    sweep through them in increasing order, from its current pose, which it leaves at the
    last), in the given order."""
    theta2 = np.asarray(theta2, dtype=float)
    order = np.argsort(theta2)
    pt = mech.body("coupler").point("P") if point is None else point
    drive = mech.joint(driver.name)
    drive.value = float(theta2[order[0]])
    mech.solve()
    path = mech.sweep(drive, theta2[order]).point(mech.body("coupler"), pt)
    out = np.empty_like(path)
    out[order] = path
    return out


def swept_error(mech, driver, theta2, targets, point=None) -> float:
    """The objective from the mechanism's own swept poses."""
    d = swept_points(mech, driver, theta2, point) - np.asarray(targets, dtype=float)
    return float(np.sum(d**2))


def crank_turns(mech, driver) -> bool:
    """Whether the crank turns a full turn on the mechanism's branch (a valid crank)."""
    import copy

    probe = copy.deepcopy(mech)
    d = probe.joint(driver.name)
    try:
        probe.sweep(d, d.value + np.linspace(0.0, 2 * math.pi, 145))
    except ms.SolveError:
        return False
    return True


#: The unknowns of each case in :func:`build`'s mechanism: ``r1 .. r4`` are single
#: components of pin points, ``(rcx, rcy)`` the traced point, ``theta0`` and ``(x0, y0)`` the
#: weld of the frame to ground.
LENGTHS = ["O4.point2[0]", "A.point1[0]", "B.point1[0]", "B.point2[0]"]


def problem(case: str):
    """``(params, bounds, free_timing)`` of :func:`mechsolve.design.synthesize` for ``case``,
    its bounds the published ones."""
    b = CASES[case]["bounds"]
    params = LENGTHS + ["point"]
    bounds = {name: b["r"] for name in LENGTHS}
    bounds["point"] = b["rc"]
    if CASES[case]["theta2"] is not None:
        return params, bounds, False
    params += ["base.angle", "base.point1"]
    bounds.update({"base.angle": b["theta0"], "base.point1": b["xy0"],
                   "theta2.value": b["theta2"]})
    return params, bounds, True


def start_designs(case: str, n: int, seed: int = 0):
    """``n`` start designs ``(p, theta2)`` drawn uniformly within the published bounds among
    those that meet the published constraints (a crank-rocker, ``r2 <= r3 <= r4 <= r1``),
    seeded. Without prescribed timing the crank angles start evenly over half a turn and the
    placement ``(theta0, x0, y0)`` is the rigid motion that best fits the start's coupler points
    to the targets (least squares, closed form; ``x0, y0`` kept within the bounds)."""
    c = CASES[case]
    b = c["bounds"]
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        r2, r3, r4, r1 = np.sort(rng.uniform(*b["r"], 4))
        if r1 + r2 > r3 + r4 or r2 < 1e-3 * b["r"][1]:
            continue
        rc = rng.uniform(*b["rc"], 2)
        if c["theta2"] is not None:
            p = np.array([r1, r2, r3, r4, rc[0], rc[1], 0.0, 0.0, 0.0])
            theta2 = c["theta2"]
        else:
            theta2 = rng.uniform(0.0, math.pi) + np.linspace(0.0, math.pi, len(c["targets"]))
            local = coupler_points([r1, r2, r3, r4, rc[0], rc[1], 0.0, 0.0, 0.0], theta2)
            t0, xy = _fit_placement(local, c["targets"])
            x0, y0 = np.clip(xy, *b["xy0"])
            p = np.array([r1, r2, r3, r4, rc[0], rc[1], t0, x0, y0])
        out.append((p, np.asarray(theta2, dtype=float)))
    return out


def _fit_placement(points, targets):
    """``(theta0, (x0, y0))``: the rotation and translation taking ``points`` nearest to
    ``targets`` in least squares (the 2-D Kabsch solution), ``theta0`` in ``[0, 2 pi)``."""
    pc, tc = points.mean(axis=0), targets.mean(axis=0)
    a, b = points - pc, targets - tc
    t0 = math.atan2(float(np.sum(a[:, 0] * b[:, 1] - a[:, 1] * b[:, 0])), float(np.sum(a * b)))
    return t0 % (2 * math.pi), tc - _rot(t0) @ pc
