"""SolveSpace sketches (``.slvs``) as mechanisms: ``ms.load("linkage.slvs")``.

The records of the file are read by :func:`mechsolve.io.slvs.read_slvs`; this module gives
them their meaning as a planar linkage. How a sketch maps (see also ``docs/format_slvs.md``):

* **Points** are the sketch's points in its one workplane (``POINT_IN_2D``); coincident
  points (``POINTS_COINCIDENT``) are one *node*. Coordinates are the workplane's ``(u, v)``,
  in millimetres (SolveSpace keeps every length in mm): the mechanism's length unit is
  ``"mm"``.
* **Links.** Every line segment (construction or not) is a rigid bar between its two end
  nodes. Bars become one rigid link where the sketch makes them rigid: two links sharing
  two nodes, three links pairwise sharing three different nodes (a triangle), and two bars
  meeting at a node with a ``PARALLEL`` or ``PERPENDICULAR`` constraint are merged, until
  nothing more merges. Each link is a body named after SolveSpace's name of the request of
  its first line segment (``r004`` for request 4), placed as drawn: its frame at the first
  end of that segment, its x axis along it. Its nodes are its named points
  (``p<handle of the node's first point>``, :attr:`Body.points <mechsolve.Body.points>`).
  A bar that is a link on its own and has a ``PT_PT_DISTANCE`` between its ends takes that
  distance as its length, exactly.
* **The ground** is the link holding the workplane's origin (a point coincident with it),
  every point locked where it was dragged (``WHERE_DRAGGED``) and every bar with a
  ``HORIZONTAL`` or ``VERTICAL`` constraint that touches it (it is then fixed too), merged by
  the same rules.
* **Joints.** A node shared by several links is a revolute between them (``pin_<handle>``,
  after the node's first point). A point on a line (``PT_ON_LINE``) is a pin in a slot
  (:class:`~mechsolve.joints.PointOnLine`) between the line's link and the point's link. A
  ``PT_PT_DISTANCE`` between points of different links is a
  :class:`~mechsolve.joints.Distance` rod.
* **Drivers.** An ``ANGLE`` constraint between two bars of different links that meet at a
  node drives the revolute there (:class:`~mechsolve.joints.AngleDriver`, named after the
  constraint, ``c005``): this is the dimension one steps in SolveSpace to animate a
  linkage. Its value is the constraint's angle, with the sense of rotation of the drawing.
  A sketch without one, left with free motion by Gruebler's count (three coordinates a link,
  less an equation a constraint), gets the angle of the first link pinned to the ground as
  its driver (``crank``), at its drawn value.
* Reference dimensions (``Constraint.reference=1``) and comments constrain nothing and are
  skipped; constraints between points of one rigid link are checked against the drawing
  (the sketch must be solved) and add nothing.

Anything else (circles, arcs, curves, 3D entities, other constraint types) is refused with
a :class:`~mechsolve.files.ModelFileError` naming the entity or constraint by its handle and
type: nothing is guessed.
"""

from __future__ import annotations

import math
import os
import pathlib

import numpy as np

from ..io._files import read_bytes
from ..io.slvs import CONSTRAINT_TYPES, ENTITY_TYPES, HEADER, MAX_CHARACTERS, read_slvs
from ..joints import AngleDriver, Distance, PointOnLine, Revolute
from ..mechanism import Mechanism
from ._reader import ModelFileError

__all__ = ["load_slvs", "loads_slvs", "MAX_BARS", "MAX_LINKS_AT_A_POINT"]

#: Most line segments of a sketch read as a mechanism.
MAX_BARS = 20_000
#: Most line segments meeting at one point (the merging of rigid links takes time quadratic
#: in it).
MAX_LINKS_AT_A_POINT = 64

_WORKPLANE, _LINE, _POINT2, _POINT3, _POINT_COPY = 10000, 11000, 2001, 2000, 2012
_NORMALS = (3000, 3001, 3010, 3011, 3012)
_SKIP = (1000,)                       # COMMENT
_READ = (20, 30, 42, 80, 81, 120, 121, 122, 200)
# the tolerance of the checks of the drawing, relative to the sketch's size
_DRAWN = 1e-9


def _entity_text(h: int, e) -> str:
    t = e.type
    return f"entity {h:08x} ({ENTITY_TYPES.get(t, 'unknown type')}, type {t})"


def _constraint_text(h: int, c) -> str:
    t = c.type
    return f"constraint c{h:03x} ({CONSTRAINT_TYPES.get(t, 'unknown type')}, type {t})"


class _Clusters:
    """Rigid links found by merging: a union-find over clusters of nodes (cluster 0 is the
    ground), each root holding the nodes of its members."""

    def __init__(self, node_sets: list) -> None:
        self.parent = list(range(len(node_sets)))
        self._nodes = node_sets

    def find(self, i: int) -> int:
        while self.parent[i] != i:
            self.parent[i] = self.parent[self.parent[i]]
            i = self.parent[i]
        return i

    def nodes(self, i: int) -> set:
        return self._nodes[self.find(i)]

    def union(self, i: int, j: int) -> bool:
        i, j = self.find(i), self.find(j)
        if i == j:
            return False
        keep, gone = min(i, j), max(i, j)       # the ground stays the root of its cluster
        if len(self._nodes[keep]) < len(self._nodes[gone]):
            self._nodes[keep], self._nodes[gone] = self._nodes[gone], self._nodes[keep]
        self._nodes[keep] |= self._nodes[gone]
        self._nodes[gone] = set()
        self.parent[gone] = keep
        return True

    def _at(self) -> dict:
        at = {}
        for i in range(len(self.parent)):
            if self.parent[i] == i:
                for n in self._nodes[i]:
                    at.setdefault(n, []).append(i)
        return at

    def merge_pairs(self) -> bool:
        """Merge links that share two nodes (a pair of pins holds them rigidly together)."""
        seen, changed = {}, False
        for n, links in self._at().items():
            for a in range(len(links)):
                for b in range(a + 1, len(links)):
                    i, j = self.find(links[a]), self.find(links[b])
                    if i == j:
                        continue
                    key = (min(i, j), max(i, j))
                    if seen.setdefault(key, n) != n:
                        changed |= self.union(i, j)
        return changed

    def merge_triangles(self) -> bool:
        """Merge three links that pairwise share three different nodes (a triangle)."""
        adj: dict = {}
        for n, links in self._at().items():
            for a in links:
                for b in links:
                    if a != b:
                        adj.setdefault(a, {})[b] = n
        changed = False
        for i in sorted(adj):
            for j in sorted(adj[i]):
                if j <= i:
                    continue
                common = adj[i].keys() & adj[j].keys()
                for k in common:
                    if k <= j:
                        continue
                    if len({adj[i][j], adj[j][k], adj[i][k]}) == 3:
                        changed |= self.union(i, j)
                        changed |= self.union(j, k)
        return changed


class _Sketch:
    """One sketch being mapped: its records, nodes, links, and what is built."""

    def __init__(self, data, source: str) -> None:
        self.data = data
        self.source = source

    def fail(self, what: str) -> ModelFileError:
        return ModelFileError(f"SolveSpace sketch {self.source}: {what}")

    def _rec(self, call, *args):
        try:
            return call(*args)
        except ValueError as exc:
            raise self.fail(str(exc)) from None

    # -- the plane -------------------------------------------------------------------------
    def plane(self) -> None:
        ents = self.data.entities
        wps = {}
        for h, e in ents.items():
            t = self._rec(e.integer, "type")
            if t in (_POINT2, _LINE):
                w = self._rec(e.handle, "workplane.v")
                if w == 0:
                    raise self.fail(f"{_entity_text(h, e)}: a 3D entity (free in space, not "
                                    "in a workplane): only planar sketches are read")
                wps.setdefault(w, h)
        if not any(e.type == _LINE for e in ents.values()):
            raise self.fail("no line segment: a linkage is sketched with line segments")
        if len(wps) > 1:
            (w1, h1), (w2, h2) = list(wps.items())[:2]
            raise self.fail(f"{_entity_text(h2, ents[h2])} lies in workplane {w2:08x}, "
                            f"{_entity_text(h1, ents[h1])} in workplane {w1:08x}: a "
                            "mechanism is read from one workplane")
        (self.workplane,) = wps
        wp = ents.get(self.workplane)
        if wp is None or wp.type != _WORKPLANE:
            raise self.fail(f"the workplane {self.workplane:08x} of the sketch is not a "
                            "WORKPLANE entity of the file")
        origin = ents.get(self._rec(wp.handle, "point[0].v"))
        normal = ents.get(self._rec(wp.handle, "normal.v"))
        if origin is None or normal is None:
            raise self.fail(f"{_entity_text(self.workplane, wp)}: its point[0] or normal is "
                            "not in the file")
        self.o = self._vec(origin)
        q = np.array([self._rec(normal.number, f"actNormal.{k}")
                      for k in ("w", "vx", "vy", "vz")])
        n = float(np.linalg.norm(q))
        if not n > 0:
            raise self.fail(f"the normal of the workplane {self.workplane:08x} is zero")
        w, x, y, z = q / n
        # the plane's u and v axes: Quaternion::RotationU / RotationV of SolveSpace
        self.u = np.array([w * w + x * x - y * y - z * z, 2 * (w * z + x * y),
                           2 * (x * z - w * y)])
        self.v = np.array([2 * (x * y - w * z), w * w - x * x + y * y - z * z,
                           2 * (w * x + y * z)])
        # support: workplanes, their normals and origins (the references' and groups')
        self.support = set()
        self.origins = set()
        for h, e in ents.items():
            if e.type == _WORKPLANE:
                self.support.add(h)
                self.origins.add(self._rec(e.handle, "point[0].v"))
                self.support.add(self._rec(e.handle, "normal.v"))
        self.support |= self.origins

    def _vec(self, e) -> np.ndarray:
        return np.array([self._rec(e.number, f"actPoint.{k}") for k in "xyz"])

    def uv(self, h: int) -> np.ndarray:
        d = self._vec(self.data.entities[h]) - self.o
        return np.array([d @ self.u, d @ self.v])

    # -- entities --------------------------------------------------------------------------
    def entities(self) -> None:
        ents = self.data.entities
        self.points = {}          # handle -> (u, v)
        self.bars = {}            # line handle -> (point0, point1)
        for h, e in ents.items():
            t = e.type
            if t == _POINT2:
                self.points[h] = self.uv(h)
            elif t == _LINE:
                ends = tuple(self._rec(e.handle, f"point[{i}].v") for i in (0, 1))
                for p in ends:
                    pe = ents.get(p)
                    if pe is None or pe.type != _POINT2:
                        raise self.fail(f"{_entity_text(h, e)}: its end {p:08x} is not a "
                                        "point of the sketch (POINT_IN_2D) in the file")
                self.bars[h] = ends
            elif t in (_WORKPLANE, *_NORMALS) or (t in (_POINT3, _POINT_COPY)
                                                  and h in self.support):
                continue
            elif t in (_POINT3, 3000, 5000, 5001, 5002, 5003, 5004):
                raise self.fail(f"{_entity_text(h, e)}: a 3D entity; only planar sketches "
                                "(points and line segments in one workplane) are read")
            else:
                raise self.fail(f"{_entity_text(h, e)}: not mapped to a mechanism (a "
                                "sketch is read as points and line segments)")
        if len(self.bars) > MAX_BARS:
            raise self.fail(f"{len(self.bars)} line segments, more than {MAX_BARS}")
        for p in self.origins:
            if p in ents:
                self.points.setdefault(p, self.uv(p))

    # -- nodes -----------------------------------------------------------------------------
    def point(self, c, h: int, field: str) -> int:
        p = self._rec(c.handle, field)
        if p not in self.points:
            e = self.data.entities.get(p)
            what = _entity_text(p, e) if e is not None else f"entity {p:08x}, not in the file"
            raise self.fail(f"{_constraint_text(h, c)}: its {field[:-2]} is {what}, not a "
                            "point of the sketch")
        return p

    def bar(self, c, h: int, field: str) -> int:
        b = self._rec(c.handle, field)
        if b not in self.bars:
            e = self.data.entities.get(b)
            what = _entity_text(b, e) if e is not None else f"entity {b:08x}, not in the file"
            raise self.fail(f"{_constraint_text(h, c)}: its {field[:-2]} is {what}, not a "
                            "line segment")
        return b

    def constraints(self) -> None:
        parent = {p: p for p in self.points}

        def find(p):
            while parent[p] != p:
                parent[p] = parent[parent[p]]
                p = parent[p]
            return p

        self.used = []
        for h, c in self.data.constraints.items():
            t = self._rec(c.integer, "type")
            if t in _SKIP or self._rec(c.flag, "reference"):
                continue
            if t not in _READ:
                raise self.fail(f"{_constraint_text(h, c)}: not mapped to a mechanism (read: "
                                + ", ".join(CONSTRAINT_TYPES[k] for k in _READ) + ")")
            if t == 20:
                a, b = find(self.point(c, h, "ptA.v")), find(self.point(c, h, "ptB.v"))
                parent[max(a, b)] = min(a, b)
            else:
                self.used.append((h, c, t))
        self.node = {p: find(p) for p in self.points}
        self.where = {}           # node -> its position (its first point's)
        self.first = {}           # node -> its first point
        for p in sorted(self.points):
            self.where.setdefault(self.node[p], self.points[p])
            self.first.setdefault(self.node[p], p)
        pts = np.array(list(self.where.values()))
        self.size = max(float(np.ptp(pts, axis=0).max()) if len(pts) > 1 else 0.0,
                        float(np.abs(pts).max()), 1e-300)

    # -- links -----------------------------------------------------------------------------
    def links(self) -> None:
        ends = {b: (self.node[p0], self.node[p1]) for b, (p0, p1) in self.bars.items()}
        for b, (n0, n1) in ends.items():
            if n0 == n1:
                raise self.fail(f"{_entity_text(b, self.data.entities[b])}: both ends are "
                                "one point (coincident)")
        self.ends = ends
        ground = {self.node[p] for p in self.origins if p in self.node}
        fixed_bars, welds = [], []
        for h, c, t in self.used:
            if t == 200:
                ground.add(self.node[self.point(c, h, "ptA.v")])
            elif t in (80, 81):
                if self._rec(c.handle, "entityA.v"):
                    fixed_bars.append((h, c, self.bar(c, h, "entityA.v")))
                else:
                    fixed_bars.append((h, c, None))
            elif t in (121, 122):
                welds.append((h, c, self.bar(c, h, "entityA.v"), self.bar(c, h, "entityB.v")))
        bars = sorted(ends)
        index = {b: i + 1 for i, b in enumerate(bars)}      # cluster 0 is the ground
        at = {}
        for b in bars:
            for n in ends[b]:
                at.setdefault(n, []).append(b)
        crowded = [n for n, bs in at.items() if len(bs) > MAX_LINKS_AT_A_POINT]
        if crowded:
            p = self.first_point(crowded[0])
            raise self.fail(f"{_entity_text(p, self.data.entities[p])}: "
                            f"{len(at[crowded[0]])} line segments meet there, more than "
                            f"{MAX_LINKS_AT_A_POINT}")
        merged = _Clusters([set(ground)] + [set(ends[b]) for b in bars])
        while True:
            changed = False
            # bars fixed in direction that touch the ground join it; welded bars join
            for _h, _c, b in fixed_bars:
                if b is not None and merged.nodes(index[b]) & merged.nodes(0):
                    changed |= merged.union(0, index[b])
            for _h, _c, a, b in welds:
                if set(ends[a]) & set(ends[b]):
                    changed |= merged.union(index[a], index[b])
            # links that share two points, then triangles of links
            changed |= merged.merge_pairs() or merged.merge_triangles()
            if not changed:
                break
        for h, c, b in fixed_bars:
            if b is None or merged.find(index[b]) != merged.find(0):
                raise self.fail(f"{_constraint_text(h, c)}: a horizontal or vertical "
                                "constraint is read on a line segment pinned to the ground "
                                "(which it then fixes); this one is not")
        for h, c, a, b in welds:
            if merged.find(index[a]) != merged.find(index[b]):
                raise self.fail(f"{_constraint_text(h, c)}: a parallel or perpendicular "
                                "constraint is read between line segments that meet at a "
                                "point (it welds them); these do not")
        roots = sorted({merged.find(i) for i in range(len(bars) + 1)}
                       | {merged.find(0)}, key=lambda r: (r != merged.find(0), r))
        number = {r: k for k, r in enumerate(roots)}
        self.clusters = [[merged.nodes(r), []] for r in roots]
        self.of_bar = {}
        for b in bars:
            k = number[merged.find(index[b])]
            self.clusters[k][1].append(b)
            self.of_bar[b] = k
        self.of_node = {}
        for i, cl in enumerate(self.clusters):
            for n in sorted(cl[0]):
                self.of_node.setdefault(n, []).append(i)
        for p, n in self.node.items():
            if n not in self.of_node and p not in self.origins:
                raise self.fail(f"{_entity_text(p, self.data.entities[p])}: on no line "
                                "segment and not fixed: not mapped to a mechanism")

    def first_point(self, n: int) -> int:
        return min(p for p, m in self.node.items() if m == n)

    # -- the mechanism ---------------------------------------------------------------------
    def build(self, name: str) -> Mechanism:
        mech = Mechanism(name=name)
        mech.units = {"length": "mm", "angle": "deg"}
        self.mech = mech
        self.bodies, self.local = [mech.ground], [{}]
        self.angle0 = [0.0]
        lengths = {}
        for h, c, t in self.used:
            if t == 30:
                a, b = self.point(c, h, "ptA.v"), self.point(c, h, "ptB.v")
                lengths[frozenset((self.node[a], self.node[b]))] = (h, c)
        for i, (nodes, bars) in enumerate(self.clusters):
            if i == 0:
                self.local[0] = {n: self.where[n] for n in nodes}
                continue
            first = min(bars)
            n0, n1 = self.ends[first]
            p0 = self.where[n0]
            d = self.where[n1] - p0
            ang = math.atan2(d[1], d[0])
            cs, sn = math.cos(ang), math.sin(ang)
            local = {n: np.array([cs * (self.where[n] - p0)[0] + sn * (self.where[n] - p0)[1],
                                  -sn * (self.where[n] - p0)[0] + cs * (self.where[n] - p0)[1]])
                     for n in nodes}
            local[n0] = np.zeros(2)
            dim = lengths.get(frozenset((n0, n1)))
            if len(nodes) == 2 and dim is not None:
                L = self._rec(dim[1].number, "valA")
                if not L > 0:
                    raise self.fail(f"{_constraint_text(*dim)}: expected a positive "
                                    f"distance, found {L!r}")
                local[n1] = np.array([L, 0.0])
            else:
                local[n1] = np.array([float(np.hypot(*d)), 0.0])
            body = mech.add_body(f"r{first >> 16:03x}", position=tuple(p0), angle=ang)
            for n in sorted(nodes, key=lambda n: self.first[n]):
                body.add_point(f"p{self.first[n]:08x}", local[n])
            self.bodies.append(body)
            self.local.append(local)
            self.angle0.append(ang)
        self.joints()
        return mech

    def _check(self, h, c, drawn: float, wanted: float, what: str, scale: float) -> None:
        if abs(drawn - wanted) > _DRAWN * scale:
            raise self.fail(f"{_constraint_text(h, c)}: {what} {wanted!r}, but the sketch "
                            f"has {drawn!r} between points of one rigid link (solve the "
                            "sketch in SolveSpace first)")

    def _direction(self, b: int) -> np.ndarray:
        n0, n1 = self.ends[b]
        return self.where[n1] - self.where[n0]

    def joints(self) -> None:
        mech, used = self.mech, self.used
        angles = []
        for h, c, t in used:
            if t == 120:
                a, b = self.bar(c, h, "entityA.v"), self.bar(c, h, "entityB.v")
                angles.append((h, c, a, b))
        # revolutes: at each node, a tree over the links meeting there; driven pairs first
        wanted = {}
        for h, c, a, b in angles:
            i, j = self.of_bar[a], self.of_bar[b]
            if i == j:
                continue
            shared = set(self.ends[a]) & set(self.ends[b])
            if not shared:
                raise self.fail(f"{_constraint_text(h, c)}: an angle is read between line "
                                "segments that meet at a point (it drives the pin there); "
                                "these do not")
            wanted.setdefault(min(shared), []).append((i, j))
        self.revolute = {}
        for n in sorted(self.of_node):
            links = self.of_node[n]
            if len(links) < 2:
                continue
            tree = {i: i for i in links}

            def root(i, tree=tree):
                while tree[i] != i:
                    i = tree[i]
                return i

            pairs = wanted.get(n, []) + [(links[0], k) for k in links[1:]]
            pin = f"pin_{self.first[n]:08x}"
            made = 0
            for i, j in pairs:
                if root(i) == root(j):
                    continue
                tree[root(j)] = root(i)
                joint = mech.add(Revolute(self.bodies[i], self.bodies[j], self.local[i][n],
                                          self.local[j][n],
                                          name=pin if not made else f"{pin}_{made + 1}"))
                made += 1
                self.revolute[(n, i, j)] = joint
        for h, c, t in used:
            if t == 30:
                self._distance(h, c)
            elif t == 42:
                self._on_line(h, c)
        drivers = 0
        for h, c, a, b in angles:
            drivers += self._angle(h, c, a, b)
        if not drivers:
            self._default_driver()

    def _distance(self, h, c) -> None:
        na = self.node[self.point(c, h, "ptA.v")]
        nb = self.node[self.point(c, h, "ptB.v")]
        L = self._rec(c.number, "valA")
        ia, ib = self.of_node.get(na, [0]), self.of_node.get(nb, [0])
        common = set(ia) & set(ib)
        if common:
            i = min(common)
            if not (i > 0 and len(self.clusters[i][0]) == 2):   # a bar's own length
                self._check(h, c, float(np.hypot(*(self.local[i][na] - self.local[i][nb]))),
                            L, "the distance is", self.size)
            return
        if not L > 0:
            raise self.fail(f"{_constraint_text(h, c)}: expected a positive distance, found "
                            f"{L!r}")
        i, j = ia[0], ib[0]
        self.mech.add(Distance(self.bodies[i], self.bodies[j], self.local[i][na],
                               self.local[j][nb], length=L, name=f"c{h:03x}"))

    def _on_line(self, h, c) -> None:
        n = self.node[self.point(c, h, "ptA.v")]
        b = self.bar(c, h, "entityA.v")
        i = self.of_bar[b]
        n0, n1 = self.ends[b]
        others = [k for k in self.of_node.get(n, [0]) if k != i]
        if not others:
            p0, p, d = self.where[n0], self.where[n], self._direction(b)
            off = float(d[0] * (p - p0)[1] - d[1] * (p - p0)[0]) / float(np.hypot(*d))
            self._check(h, c, off, 0.0, "the point's distance from the line is", self.size)
            return
        j = others[0]
        axis = self.local[i][n1] - self.local[i][n0]
        self.mech.add(PointOnLine(self.bodies[i], self.bodies[j], self.local[i][n0],
                                  self.local[j][n], axis=axis, name=f"c{h:03x}"))

    def _angle(self, h, c, a, b) -> int:
        da, db = self._direction(a), self._direction(b)
        if self._rec(c.flag, "other"):
            da = -da
        drawn = math.atan2(da[0] * db[1] - da[1] * db[0], da @ db)
        value = math.radians(self._rec(c.number, "valA"))
        exact = math.copysign(value, drawn) if drawn != 0 else value
        i, j = self.of_bar[a], self.of_bar[b]
        if i == j:
            self._check(h, c, abs(drawn), value, "the angle (radians) is", 1.0)
            return 0
        n = min(set(self.ends[a]) & set(self.ends[b]))
        joint = self.revolute.get((n, i, j)) or self.revolute.get((n, j, i))
        if joint is None:
            raise self.fail(f"{_constraint_text(h, c)}: the two links meet at a point "
                            "with others, and no pin joins them directly")
        t1 = self.angle0[self.bodies.index(joint.bodies[0])]
        t2 = self.angle0[self.bodies.index(joint.bodies[1])]
        sense = 1.0 if self.bodies[j] is joint.bodies[1] else -1.0
        self.mech.add(AngleDriver(joint, (t2 - t1) + sense * (exact - drawn),
                                  name=f"c{h:03x}"))
        return 1

    def _default_driver(self) -> None:
        mech = self.mech
        if not mech.bodies:
            return
        for joint in mech.joints:
            if isinstance(joint, Revolute) and mech.ground in joint.bodies:
                # Gruebler's count: the rank analysis of mech.dof() (and its naming of free
                # motions) costs far more on a large sketch
                free = 3 * len(mech.bodies) - sum(j.n_equations for j in mech.joints)
                if free < 1:
                    return
                t1 = self.angle0[self.bodies.index(joint.bodies[0])]
                t2 = self.angle0[self.bodies.index(joint.bodies[1])]
                mech.add(AngleDriver(joint, t2 - t1, name="crank"))
                return


def loads_slvs(text: str, *, source: str = "<string>", name: str | None = None) -> Mechanism:
    """Build a mechanism from the text of a SolveSpace sketch (see
    :mod:`mechsolve.files._slvs` and ``docs/format_slvs.md``).

    Raises
    ------
    ModelFileError
        (a ValueError) naming the sketch and the line, entity (by handle and type) or
        constraint at fault.
    """
    return _mechanism(text, repr(str(source)), name)


def _mechanism(text: str, source: str, name: str | None) -> Mechanism:
    try:
        data = read_slvs(text, source)
    except ValueError as exc:
        raise ModelFileError(str(exc)) from None
    s = _Sketch(data, source)
    s.plane()
    s.entities()
    s.constraints()
    s.links()
    return s.build(name or "sketch")


def load_slvs(path, *, max_bytes: int = MAX_CHARACTERS) -> Mechanism:
    """Build a mechanism from a SolveSpace sketch file (``ms.load("linkage.slvs")``)."""
    p = pathlib.Path(os.fspath(path))
    source = repr(str(path))
    try:
        data = read_bytes(p, max_bytes)
    except IsADirectoryError:
        raise ModelFileError(f"SolveSpace sketch {source}: is a directory, not a file") \
            from None
    except OSError as exc:
        raise ModelFileError(f"SolveSpace sketch {source}: cannot be read "
                             f"({exc.strerror or exc})") from None
    if len(data) > max_bytes:
        raise ModelFileError(f"SolveSpace sketch {source}: more than {max_bytes} bytes "
                             "(load(path, max_bytes=...) reads longer files)")
    # SolveSpace writes its header's first three characters as the bytes B1 B2 B3 (Latin-1,
    # file.cpp's VERSION_STRING) and the rest of the file (names, comments) as UTF-8
    header = HEADER.encode("latin-1")
    head = len(header) if data.startswith(header) else 0
    try:
        text = data[head:].decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ModelFileError(f"SolveSpace sketch {source}: not UTF-8 text (byte "
                             f"{head + exc.start})") from None
    return _mechanism(HEADER + text if head else text, source, p.stem)
