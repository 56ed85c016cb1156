"""Builders of one instance of every concrete Joint class, and their discovery.

``CASES`` maps a case id to a builder ``build(rng) -> joint``: the joint is added to a small
mechanism whose bodies sit at random poses (``joint.mechanism``), with any joint it reads
coordinates from added before it. Several cases may build the same class (a ground-mounted
variant, a prismatic DH link, a few ``GenericJoint`` subsets); every concrete class the package
defines must be built by at least one case (see :func:`package_classes`, :data:`SKIPPED`).

Quaternion helpers here are written out independently of ``mechsolve.spatial._quat`` so that
finite-difference references built on them do not share code with the kernels they check.
"""

from __future__ import annotations

import functools

import numpy as np
from test_end_effectors import build_all

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints.base import Joint
from mechsolve.symbolic import catalog
from mechsolve.symbolic._joint import SymbolicJoint


# -- quaternions (scalar first, Hamilton product), independent of the package ----------------
def quat_mul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    aw, ax, ay, az = np.moveaxis(a, -1, 0)
    bw, bx, by, bz = np.moveaxis(b, -1, 0)
    return np.stack([aw * bw - ax * bx - ay * by - az * bz,
                     aw * bx + ax * bw + ay * bz - az * by,
                     aw * by - ax * bz + ay * bw + az * bx,
                     aw * bz + ax * by - ay * bx + az * bw], axis=-1)


def quat_of_rotvec(w: np.ndarray) -> np.ndarray:
    """Unit quaternion of the rotation by ``|w|`` about ``w / |w|`` (``exp`` of ``w / 2``)."""
    w = np.asarray(w, dtype=float)
    angle = np.linalg.norm(w, axis=-1, keepdims=True)
    half = 0.5 * angle
    # sin(half) / angle, continued to 1/2 at angle = 0
    k = np.where(angle > 1e-12, np.sin(half) / np.where(angle > 1e-12, angle, 1.0), 0.5)
    return np.concatenate([np.cos(half), k * w], axis=-1)


def random_quaternions(rng, shape) -> np.ndarray:
    q = rng.normal(size=tuple(shape) + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def random_frame(rng, scale: float = 1.0):
    return ms.Frame(scale * rng.normal(size=3), ms.Orientation(random_quaternions(rng, ())))


# -- kernel arguments -------------------------------------------------------------------------
def slot_kinds(joint) -> list[str]:
    """``"planar"``, ``"spatial"`` or ``"coords"`` per kernel argument of the joint."""
    kinds = ["planar" if joint.dim == 2 else "spatial"] * len(joint.bodies)
    if type(joint)._coordinate_slot:
        kinds.append("coords")
    return kinds


def slot_width(joint, kind: str) -> int:
    """Number of Jacobian columns of a slot (the increment's size)."""
    return {"planar": 3, "spatial": 6}.get(kind, len(joint._coord_refs))


def random_args(joint, rng, shape) -> list[np.ndarray]:
    """Random kernel arguments ``(*shape, width)`` per slot: planar poses with any angle,
    spatial poses with uniform orientations, joint coordinates (every slot random, ground
    included: the kernels are functions of all their arguments)."""
    out = []
    for kind in slot_kinds(joint):
        if kind == "planar":
            x = rng.normal(size=tuple(shape) + (3,))
            x[..., 2] = rng.uniform(-np.pi, np.pi, size=shape)
        elif kind == "spatial":
            x = np.concatenate([rng.normal(size=tuple(shape) + (3,)),
                                random_quaternions(rng, shape)], axis=-1)
        else:
            x = rng.normal(size=tuple(shape) + (len(joint._coord_refs),))
        out.append(x)
    return out


def random_rates(joint, rng, shape) -> list[np.ndarray]:
    """Random velocities per slot: planar ``(xdot, ydot, thetadot)``, spatial ``(v, omega)``
    with omega global, rates of joint coordinates."""
    return [rng.normal(size=tuple(shape) + (slot_width(joint, k),)) for k in slot_kinds(joint)]


def displace(x: np.ndarray, kind: str, d: np.ndarray) -> np.ndarray:
    """Slot values moved by the increment ``d``: positions and coordinates add, a spatial
    orientation turns as ``q <- exp(dphi) q`` (``dphi`` a global rotation vector)."""
    if kind != "spatial":
        return x + d
    out = np.empty(np.broadcast_shapes(x.shape, d.shape[:-1] + (7,)))
    out[..., :3] = x[..., :3] + d[..., :3]
    out[..., 3:] = quat_mul(quat_of_rotvec(d[..., 3:]), x[..., 3:])
    return out


# -- mechanisms -------------------------------------------------------------------------------
def _planar(rng, n: int = 3):
    mech = ms.Mechanism()
    bodies = [mech.add_body(name, position=rng.normal(size=2), angle=rng.uniform(-np.pi, np.pi))
              for name in "abc"[:n]]
    return mech, bodies


def _spatial(rng, n: int = 3):
    mech = ms.Mechanism(dim=3)
    bodies = [mech.add_body(name, position=rng.normal(size=3),
                            orientation=ms.Orientation(random_quaternions(rng, ())))
              for name in "abc"[:n]]
    return mech, bodies


def _install(joint, *before):
    """Add ``before`` (in order), every joint ``joint`` reads coordinates from, then ``joint``
    itself to the mechanism of its bodies; return ``joint``."""
    mech = None
    for j in (*before, joint):
        if j.bodies:
            mech = j.bodies[0].mechanism
            break
        mech = mech or j._coord_refs[0][0].bodies[0].mechanism

    def add(j):
        if j.mechanism is not None:
            return
        for owner, _ in j._coord_refs:
            if owner is not j:
                add(owner)
        mech.add(j)

    for j in (*before, joint):
        add(j)
    return joint


def _pt2(rng):
    return rng.normal(size=2)


def _unit2(rng):
    a = rng.uniform(-np.pi, np.pi)
    return np.array([np.cos(a), np.sin(a)])


# -- planar joints and drivers -------------------------------------------------------------------
def _planar_case(make, n=3):
    def build(rng):
        mech, bodies = _planar(rng, n)
        return _install(make(rng, mech, *bodies))
    return build


def _planar_angle_driver(rng, mech, a, b, c):
    rev = joints.Revolute(a, b, _pt2(rng), _pt2(rng))
    return _install(joints.AngleDriver(rev, rng.normal()), rev)


def _planar_slide_driver(rng, mech, a, b, c):
    pri = joints.Prismatic(a, b, _pt2(rng), _pt2(rng), axis=_pt2(rng), axis2=_pt2(rng))
    return _install(joints.SlideDriver(pri, rng.normal()), pri)


PLANAR = {
    "Revolute": lambda rng, m, a, b, c: joints.Revolute(a, b, _pt2(rng), _pt2(rng)),
    "Revolute ground": lambda rng, m, a, b, c: joints.Revolute(m.ground, b, _pt2(rng), _pt2(rng)),
    "Prismatic": lambda rng, m, a, b, c: joints.Prismatic(a, b, _pt2(rng), _pt2(rng),
                                                          axis=_pt2(rng), axis2=_pt2(rng)),
    "Fixed": lambda rng, m, a, b, c: joints.Fixed(a, b, _pt2(rng), _pt2(rng), angle=rng.normal()),
    "Distance": lambda rng, m, a, b, c: joints.Distance(a, b, _pt2(rng), _pt2(rng),
                                                        length=rng.uniform(0.5, 2.0)),
    "PointOnLine": lambda rng, m, a, b, c: joints.PointOnLine(a, b, _pt2(rng), _pt2(rng),
                                                              axis=_pt2(rng)),
    "Gear carrier": lambda rng, m, a, b, c: joints.Gear(a, b, 0.7, 1.9, carrier=c,
                                                        phase=rng.normal()),
    "Gear internal": lambda rng, m, a, b, c: joints.Gear(a, b, 0.7, 1.9, internal=True),
    "DistanceLimit": lambda rng, m, a, b, c: joints.DistanceLimit(a, b, _pt2(rng), _pt2(rng),
                                                                  limits=(0.1, 5.0)),
    "RackPinion": lambda rng, m, a, b, c: joints.RackPinion(a, b, 0.8, _pt2(rng), _pt2(rng),
                                                            axis=_pt2(rng), phase=rng.normal()),
    "Driver x": lambda rng, m, a, b, c: joints.Driver(a, "x", rng.normal()),
    "Driver angle": lambda rng, m, a, b, c: joints.Driver(b, "angle", rng.normal()),
    "AngleDriver": _planar_angle_driver,
    "SlideDriver": _planar_slide_driver,
    "DistanceDriver": lambda rng, m, a, b, c: joints.DistanceDriver(a, c, _pt2(rng), _pt2(rng),
                                                                    rng.uniform(0.5, 2.0)),
}


# -- spatial joints and drivers ----------------------------------------------------------------
def _spatial_case(make, n=3):
    def build(rng):
        mech, bodies = _spatial(rng, n)
        return _install(make(rng, mech, *bodies))
    return build


def _frames(rng):
    return random_frame(rng), random_frame(rng)


def _spatial_angle_driver(kind):
    def make(rng, mech, a, b, c):
        hinge = getattr(joints, kind)(a, b, *_frames(rng))
        return _install(joints.AngleDriver(hinge, rng.uniform(-3.0, 3.0)), hinge)
    return make


def _spatial_slide_driver(kind):
    def make(rng, mech, a, b, c):
        slider = getattr(joints, kind)(a, b, *_frames(rng))
        return _install(joints.SlideDriver(slider, rng.normal()), slider)
    return make


def _angle_coupler(shared: bool):
    def make(rng, mech, a, b, c):
        carrier = c if shared else mech.ground
        ra = joints.Revolute(carrier, a, *_frames(rng))
        rb = joints.Revolute(carrier, b, *_frames(rng))
        return _install(joints.AngleCoupler(ra, rb, rng.uniform(-3.0, 3.0), rng.normal()),
                        ra, rb)
    return make


def _frame_joint(kind):
    return lambda rng, m, a, b, c: getattr(joints, kind)(a, b, *_frames(rng))


def _generic(rows):
    return lambda rng, m, a, b, c: joints.GenericJoint(a, b, *_frames(rng), components=rows)


SPATIAL = {
    **{kind: _frame_joint(kind)
       for kind in ("Spherical", "Revolute", "Prismatic", "Cylindrical", "Universal", "Planar",
                    "Fixed", "PointOnLine", "PointOnPlane", "ParallelAxes",
                    "PerpendicularAxes")},
    "Revolute ground": lambda rng, m, a, b, c: joints.Revolute(m.ground, b, *_frames(rng)),
    "Distance": lambda rng, m, a, b, c: joints.Distance(a, b, rng.normal(size=3),
                                                        rng.normal(size=3),
                                                        rng.uniform(0.5, 2.0)),
    "DistanceLimit": lambda rng, m, a, b, c: joints.DistanceLimit(
        a, b, rng.normal(size=3), rng.normal(size=3), limits=(None, 9.0)),
    "GenericJoint x,rz": _generic(("x", "rz")),
    "GenericJoint y,z,rx,ry,rz": _generic(("y", "z", "rx", "ry", "rz")),
    "GenericJoint rx,ry": _generic(("rx", "ry")),
    "GenericJoint all": _generic(("x", "y", "z", "rx", "ry", "rz")),
    "Driver z": lambda rng, m, a, b, c: joints.Driver(a, "z", rng.normal()),
    "AngleDriver revolute": _spatial_angle_driver("Revolute"),
    "AngleDriver cylindrical": _spatial_angle_driver("Cylindrical"),
    "SlideDriver prismatic": _spatial_slide_driver("Prismatic"),
    "SlideDriver cylindrical": _spatial_slide_driver("Cylindrical"),
    "DistanceDriver": lambda rng, m, a, b, c: joints.DistanceDriver(a, b, rng.normal(size=3),
                                                                    rng.normal(size=3),
                                                                    rng.uniform(0.5, 2.0)),
    "AngleCoupler ground": _angle_coupler(False),
    "AngleCoupler shared carrier": _angle_coupler(True),
}


# -- end effectors, link joints, the serial chain (tests/test_end_effectors.py's build_all) -----
def _end_effector(kind):
    def build(rng):
        joint = build_all(rng)[kind]
        mech = next(b.mechanism for j in [joint, *[o for o, _ in joint._coord_refs]]
                    for b in j.bodies)
        for body in mech.bodies:                  # build_all leaves the bodies unturned
            body.orientation = ms.Orientation(random_quaternions(rng, ()))
        return _install(joint)
    return build


END_EFFECTOR_KINDS = tuple(build_all(np.random.default_rng(0)))


# -- coordinate drivers --------------------------------------------------------------------------
def _coordinate_driver_link(rng):
    mech, (a, b, _) = _spatial(rng)
    link = joints.RevoluteLink(a, b, *_frames(rng), axis=rng.normal(size=3),
                               precursor=random_frame(rng), s0=rng.normal())
    return _install(joints.CoordinateDriver(link, rng.normal()), link)


def _coordinate_driver_coupler(rng):
    mech, bodies = _spatial(rng)
    coupler = _angle_coupler(False)(rng, mech, *bodies)
    return _install(joints.CoordinateDriver(coupler, rng.normal(), index=1))


def _coordinate_driver_planar(rng):
    mech, (a, b, _) = _planar(rng)
    track = _symbolic_planar_circle(rng, a, b)
    return _install(joints.CoordinateDriver(track, rng.normal()), track)


def _coordinate_coupling(two):
    def build(rng):
        mech, (a, b, c) = _spatial(rng)
        j1 = joints.RevoluteLink(a, b, *_frames(rng), axis=rng.normal(size=3), s0=rng.normal())
        j2 = joints.PrismaticLink(b, c, *_frames(rng), axis=rng.normal(size=3), s0=rng.normal())
        coupling = joints.CoordinateCoupling(j1, j2 if two else None, rng.normal(size=5),
                                             reference1=rng.normal(), reference2=rng.normal())
        return _install(coupling, j1, j2)
    return build


COORDINATE_DRIVERS = {
    "CoordinateCoupling two joints": _coordinate_coupling(True),
    "CoordinateCoupling one joint": _coordinate_coupling(False),
    "CoordinateDriver RevoluteLink": _coordinate_driver_link,
    "CoordinateDriver AngleCoupler[1]": _coordinate_driver_coupler,
    "CoordinateDriver symbolic planar circle": _coordinate_driver_planar,
}


# -- symbolic catalog ----------------------------------------------------------------------------
#: Every function of ``catalog.__all__`` and the arguments each class is built with.
CATALOG_CALLS = (("circle_joint", {}), ("circle_joint", {"dim": 3}), ("revolute", {}),
                 ("revolute", {"dim": 3}), ("spherical", {}), ("point_on_line", {}),
                 ("cam_follower", {}))


def catalog_classes() -> dict[str, type]:
    """``{"circle_joint(dim=3)": class, ...}`` (each call returns the same class every time)."""
    out = {}
    for fn, kwargs in CATALOG_CALLS:
        label = f"{fn}({', '.join(f'{k}={v}' for k, v in kwargs.items())})"
        out[label] = getattr(catalog, fn)(**kwargs)
    return out


def _frame_values(rng):
    """A point and a unit quaternion (7 numbers), the layout of the spatial frame joints."""
    return [*rng.normal(size=3), *random_quaternions(rng, ())]


def _symbolic_planar_circle(rng, a, b):
    cls = catalog.circle_joint()
    return cls(a, b, R=rng.uniform(1.0, 3.0), fx=rng.normal(), fy=rng.normal(),
               fa=rng.uniform(-np.pi, np.pi), s=rng.normal())


def _symbolic(label):
    def build(rng):
        cls = catalog_classes()[label]
        if cls.dims == (2,):
            mech, (a, b, _) = _planar(rng)
            if label == "circle_joint()":
                return _install(_symbolic_planar_circle(rng, a, b))
            values = {"revolute()": lambda: rng.normal(size=4),
                      "point_on_line()": lambda: [*_pt2(rng), *_pt2(rng), *_unit2(rng)],
                      "cam_follower()": lambda: rng.normal(size=4)}[label]()
            return _install(cls(a, b, *values))
        mech, (a, b, _) = _spatial(rng)
        if label == "spherical()":
            return _install(cls(a, b, *rng.normal(size=6)))
        if label == "revolute(dim=3)":
            return _install(cls(a, b, *_frame_values(rng), *_frame_values(rng)))
        if label == "circle_joint(dim=3)":
            values = [*_frame_values(rng), *_frame_values(rng), *_frame_values(rng),
                      rng.uniform(1.0, 3.0)]
            return _install(cls(a, b, *values, s=rng.normal()))
        raise KeyError(label)
    return build


# -- the table -------------------------------------------------------------------------------------
CASES = {
    **{f"planar {k}": _planar_case(f) for k, f in PLANAR.items()},
    **{f"spatial {k}": _spatial_case(f) for k, f in SPATIAL.items()},
    **{f"ee {k}": _end_effector(k) for k in END_EFFECTOR_KINDS},
    **COORDINATE_DRIVERS,
    **{f"symbolic {label}": _symbolic(label) for label in catalog_classes()},
}


@functools.cache
def case_classes(case: str) -> tuple[type, tuple[type, ...]]:
    """The class a case builds and the classes of every joint of its mechanism (built once,
    with a fixed seed)."""
    joint = CASES[case](np.random.default_rng(0))
    return type(joint), tuple(type(j) for j in joint.mechanism.joints)


def case_class(case: str) -> type:
    """The class a case builds."""
    return case_classes(case)[0]


# -- discovery -----------------------------------------------------------------------------------
def _families():
    """Dispatchers that hand out one generated subclass per subset of rows."""
    return (joints.GenericJoint, joints.GeneralSpatialEndEffector)


#: Classes never built themselves, each with the reason (abstract or private helper classes).
SKIPPED = {
    "mechsolve.joints.base.DriverJoint": "abstract base of the drivers",
    "mechsolve.joints._spatial._FrameJoint": "private base of the spatial frame joints (no rows)",
    "mechsolve.joints._spatial.GenericJoint": "dispatcher: instances are of a generated "
                                              "GenericJoint[rows] subclass",
    "mechsolve.joints._end_effectors.EndEffector": "abstract base of the end effectors",
    "mechsolve.joints._end_effectors._LinkEndEffector": "private base of the link end "
                                                        "effectors (no rows)",
    "mechsolve.joints._end_effectors.GeneralSpatialEndEffector": "dispatcher: instances are of "
                                                                 "a generated [rows] subclass",
    "mechsolve.joints._end_effectors._CoordinateEndEffector": "abstract base of the "
                                                              "coordinate goals",
    "mechsolve.joints._links.LinkJoint": "base of the link joints (no transform T(s) of its "
                                         "own)",
    "mechsolve.symbolic._joint.SymbolicJoint": "abstract base of generated symbolic classes",
}


def qualified(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def family_of(cls: type):
    """The dispatcher a generated subclass comes from, or None."""
    for fam in _families():
        if issubclass(cls, fam) and cls is not fam:
            return fam
    return None


def package_classes() -> set[type]:
    """Every Joint subclass the package defines (or generates), after importing the package,
    its joints and the symbolic catalog and building each catalog class once.

    Classes that other test modules define (they live in test modules, or are symbolic classes
    not from the catalog) are left out.
    """
    import mechsolve.joints  # noqa: F401
    import mechsolve.symbolic.catalog  # noqa: F401

    from_catalog = set(catalog_classes().values())
    found, stack = set(), [Joint]
    while stack:
        for sub in stack.pop().__subclasses__():
            if sub not in found:
                found.add(sub)
                stack.append(sub)
    keep = set()
    for cls in found:
        if family_of(cls) is not None:
            keep.add(cls)
        elif issubclass(cls, SymbolicJoint) and cls is not SymbolicJoint:
            if cls in from_catalog:
                keep.add(cls)
        elif cls.__module__.startswith("mechsolve."):
            keep.add(cls)
    return keep
