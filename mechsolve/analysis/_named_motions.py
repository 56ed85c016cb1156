"""Free motions named: a basis of the null space of the Jacobian in which each motion moves as
few bodies as it can, each motion told in words (which bodies move, and how).

The null space of the Jacobian of all equations (drivers included) holds the instantaneous free
motions. Its orthonormal SVD basis mixes them: in an under-driven five-bar both of its vectors
turn all four links. Here the basis is chosen body by body instead: each vector keeps still as
many bodies as it can while staying outside the span of the vectors chosen before, bodies that
can move in fewer ways tried first (a link on a ground pivot before a floating one). Each body
that moves is then described by its instantaneous screw: a planar body turns about a point
(its instantaneous centre) or slides along a direction; a spatial body turns about an axis
(through a point), slides, or screws along an axis; bodies that move as one rigid body are
named together.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..linalg import (
    RANK_RTOL,
    SVD,
    numerical_rank,
    orthonormal_columns,
    scale_rows,
    singular_values,
)
from ..linalg import null_space as _null_rows

__all__ = ["FreeMotions", "NamedMotion", "MotionPart", "named_free_motions",
           "free_motion_labels"]

#: Relative size below which a body's share of a free motion counts as still, and below which
#: a rotation (times the model's size) or a pitch counts as none.
STILL_RTOL = 1e-8
#: Most coordinates for which a warning names the free motions (a dense SVD of the Jacobian,
#: under 0.1 s here); larger mechanisms are described by ``mech.dof()`` when asked.
WARNING_LIMIT = 600
#: A body's own axis: every point where a joint attaches it lies within this fraction of the
#: model's size of the axis.
ON_AXIS_RTOL = 1e-6


@dataclass(frozen=True)
class MotionPart:
    """How one group of bodies moves in a free motion (they move as one rigid body).

    Attributes
    ----------
    bodies : tuple of Body
        The bodies of the group (or ``()`` for a joint's own coordinate).
    kind : str
        ``"turn"`` (about an axis or, planar, a point), ``"spin"`` (a spatial body about an
        axis through all of its joint points: its own axis), ``"slide"`` (a translation),
        ``"screw"`` (a turn and a slide along the same axis) or ``"coordinate"`` (a joint's
        own coordinate changes).
    axis : ndarray or None
        Unit direction: the rotation axis (``turn``, ``spin``, ``screw``; for a planar turn
        ``None``) or the direction of a slide, as a line (its sign carries no meaning: the
        first non-zero component is positive).
    point : ndarray or None
        A point on the axis, the one nearest the body's origin (spatial), or the
        instantaneous centre of a planar turn; ``None`` for a slide.
    pitch : float
        Advance along the axis per radian turned (``screw``; 0 otherwise), a length.
    rate : float
        Angular rate (turns) or speed (slides) of the group in the basis vector, signed; the
        ratios between the parts of one motion are the motion's shape.
    joint : Joint or None
        The joint whose own coordinate changes (``coordinate``).
    text : str
        The part in words.
    """

    bodies: tuple
    kind: str
    axis: np.ndarray | None
    point: np.ndarray | None
    pitch: float
    rate: float
    joint: object
    text: str


@dataclass(frozen=True)
class NamedMotion:
    """One free motion: its basis vector and what moves, in words.

    Attributes
    ----------
    vector : ndarray, shape (n,)
        The increment-space direction (a row of :func:`named_free_motions`).
    parts : tuple of MotionPart
        Each group of bodies that moves, and how.
    label : str
        The motion in words: the parts joined by ``"; "``.
    """

    vector: np.ndarray
    parts: tuple
    label: str

    @property
    def bodies(self) -> tuple:
        """Every body that moves in this free motion, in mechanism order."""
        found = [b for p in self.parts for b in p.bodies]
        return tuple(sorted(set(found), key=lambda b: b.index))


class FreeMotions(np.ndarray):
    """The free motions of a mechanism at a pose: a ``(k, n)`` array with words.

    Each row is an increment-space direction (per planar body ``(dx, dy, dtheta)``, per
    spatial body ``(dr, dphi)``, then the joints' own coordinates) in which the mechanism can
    move to first order while every constraint and driver holds; the rows span the null space
    of the Jacobian, each has unit length, and each keeps as many bodies still as it can (not
    an orthonormal basis where that would mix the motions). It is an ``ndarray`` (slices and
    arithmetic give plain arrays) with the motions named:

    Attributes
    ----------
    motions : tuple of NamedMotion
        Per row: the parts that move and the label.
    labels : list of str
        Per row: the motion in words (``"rod spins about its own axis (0.31, -0.94,
        0.16)"``).

    ``str()`` lists the motions one a line; ``print(mech.free_motions())`` shows them.
    """

    motions: tuple = ()

    def __new__(cls, basis, motions=()):
        obj = np.asarray(basis, dtype=float).view(cls)
        obj.motions = tuple(motions)
        return obj

    def __array_finalize__(self, obj) -> None:
        # a copy keeps the words; a view of another shape (a transpose) does not
        same = obj is not None and getattr(obj, "shape", None) == self.shape
        self.motions = getattr(obj, "motions", ()) if same else ()

    def __array_wrap__(self, arr, context=None, return_scalar=False):
        # arithmetic, reductions and products give plain arrays: the words describe the rows
        # as they are
        arr = np.asarray(arr)
        return arr[()] if return_scalar else arr

    def __getitem__(self, key):
        return np.asarray(self)[key]

    def __reduce__(self):
        return (FreeMotions, (np.asarray(self), self.motions))

    # reshaped views are plain arrays (their rows are no longer the motions)
    @property
    def T(self) -> np.ndarray:  # noqa: N802 (numpy's name)
        return np.asarray(self).T

    def transpose(self, *axes) -> np.ndarray:
        return np.asarray(self).transpose(*axes)

    def reshape(self, *shape, **kwargs) -> np.ndarray:
        return np.asarray(self).reshape(*shape, **kwargs)

    def ravel(self, order="C") -> np.ndarray:
        return np.asarray(self).ravel(order)

    def flatten(self, order="C") -> np.ndarray:
        return np.asarray(self).flatten(order)

    def _named(self) -> bool:
        return self.ndim == 2 and len(self.motions) == len(self)

    @property
    def labels(self) -> list:
        """Each free motion in words, one string per row."""
        return [m.label for m in self.motions]

    def __str__(self) -> str:
        if not self._named():
            return str(np.asarray(self))
        k = len(self)
        if k == 0:
            return "no free motion: the joints and drivers fix every degree of freedom"
        head = f"{k} free motion{'s' if k > 1 else ''}:"
        return "\n".join([head] + [f"  {i + 1}. {label}" for i, label in
                                   enumerate(self.labels)])

    def __repr__(self) -> str:
        body = np.array2string(np.asarray(self), separator=", ", prefix="FreeMotions(")
        if not self.motions or not self._named():
            return f"FreeMotions({body})"
        labels = ",\n".join(f"    {label!r}" for label in self.labels)
        return f"FreeMotions({body},\n  labels=[\n{labels}])"


# -- the basis ---------------------------------------------------------------------------------
def _scaled_jacobian(system, J: np.ndarray) -> np.ndarray:
    """``J`` with lengths in the model's size and every row of unit length: rank decisions
    that mean the same in micrometres and kilometres."""
    return scale_rows(J, system.col_scale)


def null_space(system, J: np.ndarray) -> np.ndarray:
    """Orthonormal basis ``(k, n)`` of the null space of ``J`` in scaled units (lengths in the
    model's size), the rank decided at :data:`~mechsolve.linalg.RANK_RTOL`."""
    if J.shape[0] == 0:
        return np.eye(system.n)
    return _null_rows(_scaled_jacobian(system, J), RANK_RTOL).copy()


def _items(mech, system) -> list:
    """``(body or joint, columns)`` of every body and every joint with own coordinates."""
    layout = mech.layout
    out = [(b, np.arange(layout.n_increment)[layout.increment_slice(b)]) for b in mech.bodies]
    for j in mech.joints:
        if j.n_coordinates:
            out.append((j, np.arange(layout.n_increment)[layout.coord_increment_slice(j)]))
    return out


def _kernel(M: np.ndarray, tol: float) -> np.ndarray:
    """Orthonormal columns spanning the null space of ``M`` (``M`` of entries at most 1)."""
    if M.size == 0:
        return np.eye(M.shape[1])
    return _null_rows(M, atol=tol).T


def _sparse_basis(N: np.ndarray, items) -> np.ndarray:
    """Coefficients ``C`` (``k`` columns) such that the rows of ``C.T @ N`` span the rows of
    ``N`` and each keeps as many items (bodies) still as a greedy choice can.

    For vector ``j``, items are tried in order of how many ways they can move (the rank of
    their columns in ``N``), then in mechanism order; an item is kept still when the motions
    that keep it and every item kept before still are not all in the span of the vectors
    chosen so far. The vector is then the one of those motions farthest from that span.
    """
    k = len(N)
    blocks = [N[:, cols] for _, cols in items]
    ranks = [numerical_rank(A, 1e-7) for A in blocks]
    order = sorted((i for i in range(len(items)) if ranks[i] > 0), key=lambda i: (ranks[i], i))
    chosen = np.zeros((k, 0))

    def outside(W):
        """Orthonormal ``W``'s part outside span(chosen): its largest singular value."""
        R = W - chosen @ (chosen.T @ W)
        return singular_values(R)[0] if R.size else 0.0

    vectors = []
    for _ in range(k):
        W = np.eye(k)
        for i in order:
            Z = _kernel(blocks[i].T @ W, 1e-9)
            if Z.shape[1] == 0:
                continue
            W2 = W @ Z
            if outside(W2) > 1e-6:
                W = W2
        R = W - chosen @ (chosen.T @ W)
        c = W @ SVD(R).Vt[0]
        # less of the motions chosen before that keep the same bodies still (a rod's spin
        # out of the motion that turns the crank), which leaves c in W and its span alone
        inside = [x for x in vectors if np.linalg.norm(x - W @ (W.T @ x)) <= 1e-9]
        if inside:
            Q = orthonormal_columns(np.array(inside).T)
            c = c - Q @ (Q.T @ c)
        vectors.append(c / np.linalg.norm(c))
        q = c - chosen @ (chosen.T @ c)
        chosen = np.column_stack([chosen, q / np.linalg.norm(q)])
    return np.array(vectors).T


# -- the words -----------------------------------------------------------------------------------
def _line_direction(u: np.ndarray) -> np.ndarray:
    """``u`` or ``-u``: the first component that is not zero made positive."""
    u = np.where(np.abs(u) < 1e-12, 0.0, u)
    nz = np.flatnonzero(u)
    return -u if nz.size and u[nz[0]] < 0 else u


def _num(x: float, size: float = 1.0) -> str:
    x = 0.0 if abs(x) < 1e-9 * size else float(x)
    text = f"{x:.3g}"
    return "0" if text in ("-0", "0") else text


def _vec(v, size: float = 1.0) -> str:
    return "(" + ", ".join(_num(x, size) for x in v) + ")"


def _names(bodies) -> str:
    names = [b.name for b in bodies]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _attachments(mech, bodies) -> list:
    """``[(joint, global point), ...]`` where joints attach any of ``bodies``."""
    return [(j, b.to_global(p)) for j in mech.joints for b, p in j.attachments()
            if any(b is x for x in bodies)]


def _on_line(points: np.ndarray, point, u, tol: float) -> np.ndarray:
    """Which ``points`` lie within ``tol`` of the line through ``point`` along ``u`` (or of
    ``point`` itself where ``u`` is None)."""
    off = np.asarray(points, dtype=float).reshape(-1, len(point)) - point
    if u is not None:
        off = off - np.outer(off @ u, u)
    return np.linalg.norm(off, axis=1) <= tol


def _joint_words(joint, bodies) -> str:
    """``"joint 'O2'"`` for a named joint, else ``"its joint with a"`` (the other body)."""
    if joint.name:
        return f"joint {joint.name!r}"
    others = [b.name for b in joint.bodies if not any(b is x for x in bodies)]
    return f"its joint with {' and '.join(others)}" if others else f"its {joint.label}"


def _at_joint(mech, bodies, point, u, L) -> str:
    """``" at its joint with a"`` where a joint attaching ``bodies`` sits at ``point`` (on
    the axis through it along ``u``), else ``""``."""
    found = _attachments(mech, bodies)
    if not found:
        return ""
    hit = _on_line(np.array([p for _, p in found]), point, u, ON_AXIS_RTOL * L)
    for (j, _), h in zip(found, hit):
        if h:
            return " at " + _joint_words(j, bodies)
    return ""


def _describe_group(mech, bodies, v0, w, L) -> MotionPart:
    """The words for ``bodies`` moving with twist ``(v0, w)`` (origin velocity of the global
    origin, angular velocity)."""
    many = len(bodies) > 1
    who = _names(bodies)
    verb = (lambda word: word + " together") if many else (lambda word: word + "s")
    ref = bodies[0].position
    if mech.dim == 2:
        v = v0 + w * np.array([-ref[1], ref[0]])   # velocity of the first body's origin
        speed = float(np.linalg.norm(v))
        if abs(w) * L <= STILL_RTOL * speed:
            u = _line_direction(v / speed)
            return MotionPart(tuple(bodies), "slide", u, None, 0.0, speed, None,
                              f"{who} {verb('slide')} along {_vec(u)}")
        c = ref + np.array([-v[1], v[0]]) / w
        return MotionPart(tuple(bodies), "turn", None, c, 0.0, float(w), None,
                          f"{who} {verb('turn')} about {_vec(c, L)}"
                          + _at_joint(mech, bodies, c, None, L))
    v = v0 + np.cross(w, ref)
    wn = float(np.linalg.norm(w))
    speed = float(np.linalg.norm(v))
    if wn * L <= STILL_RTOL * speed:
        u = _line_direction(v / speed)
        return MotionPart(tuple(bodies), "slide", u, None, 0.0, speed, None,
                          f"{who} {verb('slide')} along {_vec(u)}")
    u = w / wn
    pitch = float(u @ v) / wn
    point = ref + np.cross(w, v) / wn**2
    axis = _line_direction(u)
    if abs(pitch) > STILL_RTOL * L:
        return MotionPart(tuple(bodies), "screw", axis, point, pitch, wn, None,
                          f"{who} {verb('screw')} along the axis {_vec(axis)} through "
                          f"{_vec(point, L)}, advancing {_num(pitch * np.sign(axis @ u), L)} "
                          "per radian")
    found = _attachments(mech, bodies)
    on = _on_line(np.array([p for _, p in found]), point, u, ON_AXIS_RTOL * L) if found \
        else np.zeros(0, dtype=bool)
    if not many and on.size >= 2 and np.all(on):
        return MotionPart(tuple(bodies), "spin", axis, point, 0.0, wn, None,
                          f"{who} spins about its own axis {_vec(axis)}")
    if np.any(on):   # name the axis by a joint on it: its point, and the joint
        j, p = found[int(np.argmax(on))]
        return MotionPart(tuple(bodies), "turn", axis, point, 0.0, wn, None,
                          f"{who} {verb('turn')} about the axis {_vec(axis)} through "
                          f"{_vec(p, L)} at {_joint_words(j, bodies)}")
    return MotionPart(tuple(bodies), "turn", axis, point, 0.0, wn, None,
                      f"{who} {verb('turn')} about the axis {_vec(axis)} through "
                      f"{_vec(point, L)}")


def _describe(mech, system, x: np.ndarray, items) -> NamedMotion:
    """Name the free motion ``x`` (increment units)."""
    L = system.length_scale
    xs = x / system.col_scale
    size = float(np.max(np.abs(xs), initial=0.0)) or 1.0
    groups: list = []   # [bodies, v0, w, key]
    coords = []
    for item, cols in items:
        part = xs[cols]
        if float(np.max(np.abs(part))) <= STILL_RTOL * size:
            continue
        if cols.size and cols[0] >= system.c0_incr:
            coords.append((item, cols))
            continue
        body = item
        blk = x[cols]
        r = body.position
        if mech.dim == 2:
            v, w = blk[:2], float(blk[2])
            v0 = v - w * np.array([-r[1], r[0]])
            key = np.concatenate([v0 / L, [w]])
        else:
            v, w = blk[:3], blk[3:]
            v0 = v - np.cross(w, r)
            key = np.concatenate([v0 / L, w])
        for g in groups:
            if np.max(np.abs(g[3] - key)) <= 1e-7 * size:
                g[0].append(body)
                break
        else:
            groups.append([[body], v0, w, key])
    parts = [_describe_group(mech, g[0], g[1], g[2], L) for g in groups]
    for j, cols in coords:
        part = x[cols]
        k = int(np.argmax(np.abs(part)))
        which = "own coordinate" if len(cols) == 1 else "own coordinates"
        parts.append(MotionPart((), "coordinate", None, None, 0.0, float(part[k]), j,
                                f"{j.label}'s {which} change{'s' if len(cols) == 1 else ''}"))
    label = "; ".join(p.text for p in parts) if parts else "nothing moves"
    return NamedMotion(x.copy(), tuple(parts), label)


def named_free_motions(mech, J: np.ndarray | None = None) -> FreeMotions:
    """The free motions of ``mech`` at its current pose, each named (see :class:`FreeMotions`).

    ``J``: the dense Jacobian of all equations at the current pose, if already at hand.
    """
    system = mech.system()
    if J is None:
        _, vals = system.evaluate(mech.state_view)
        J = system.jacobian_dense(vals)
    N = null_space(system, J)
    k = len(N)
    if k == 0:
        return FreeMotions(np.zeros((0, system.n)))
    items = _items(mech, system)
    C = _sparse_basis(N, items)
    rows = (C.T @ N) * system.col_scale            # back to increment units
    rows /= np.linalg.norm(rows, axis=1)[:, None]
    # a sign that does not depend on the SVD: the largest entry (in the model's units) positive
    scaled = rows / system.col_scale
    big = np.argmax(np.abs(scaled) > (1 - 1e-9) * np.max(np.abs(scaled), axis=1)[:, None],
                    axis=1)
    rows *= np.sign(scaled[np.arange(k), big])[:, None]
    # bodies that stay still (to round-off) stay exactly still
    scaled = rows / system.col_scale
    top = np.max(np.abs(scaled), axis=1)
    for _, cols in items:
        still = np.max(np.abs(scaled[:, cols]), axis=1) <= STILL_RTOL * top
        rows[np.ix_(still, cols)] = 0.0
    motions = [_describe(mech, system, r, items) for r in rows]
    return FreeMotions(rows, motions)


def free_motion_labels(mech) -> list:
    """The free motions of ``mech`` at its current pose in words (``[]`` when none, or when
    the mechanism has more than :data:`WARNING_LIMIT` coordinates)."""
    if mech.system().n > WARNING_LIMIT:
        return []
    return named_free_motions(mech).labels
