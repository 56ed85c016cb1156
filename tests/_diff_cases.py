"""Reference mechanisms of the ms.diff tests, shared by the NumPy, JAX and PyTorch tests.

* the README four-bar parametrized by its link lengths and the crank angle, with the closed
  form of its coupler point (written once, with an array namespace ``xp``: NumPy or
  ``jax.numpy``);
* the line-symmetric Bricard linkage and a change of its geometry that keeps it movable;
* the Stewart platform and the inverse of its legs' closed-form Jacobian.
"""

from __future__ import annotations

import numpy as np

import mechsolve as ms

#: The four-bar's point parameters, in the order of the flat ``p``, then the crank angle.
FOURBAR_PARAMS = ["O2.point2", "A.point1", "A.point2", "B.point1", "B.point2", "O4.point1",
                  "O4.point2", "motor.value"]
#: ground, crank, coupler, rocker, crank angle
FOURBAR_LENGTHS = np.array([4.0, 1.0, 3.0, 3.5, 0.7])
COUPLER_POINT = (0.0, 1.0)


def lengths_matrix() -> np.ndarray:
    """``M (15, 5)``: the four-bar's ``p`` from ``(ground, crank, coupler, rocker, angle)``
    (the links' pins at -L/2 and +L/2 of their bodies' x axes)."""
    M = np.zeros((15, 5))
    M[0, 1] = -0.5       # O2.point2 = (-crank/2, 0)
    M[2, 1] = 0.5        # A.point1 = (crank/2, 0)
    M[4, 2] = -0.5       # A.point2 = (-coupler/2, 0)
    M[6, 2] = 0.5        # B.point1 = (coupler/2, 0)
    M[8, 3] = -0.5       # B.point2 = (-rocker/2, 0)
    M[10, 3] = 0.5       # O4.point1 = (rocker/2, 0)
    M[12, 0] = 1.0       # O4.point2 = (ground, 0)
    M[14, 4] = 1.0       # motor.value = crank angle
    return M


def fourbar_outputs(speed: float = 1.0, scale: float = 1.0):
    """The outputs: the coupler point, its velocity at crank speed ``speed``, the coupler's
    pose."""
    point = tuple(scale * np.array(COUPLER_POINT))
    return [ms.diff.point("coupler", point),
            ms.diff.velocity("coupler", point, speeds={"motor": speed}),
            ms.diff.pose("coupler")]


def fourbar_function(scale: float = 1.0, offset=(0.0, 0.0), speed: float = 1.0):
    """``(LoopFunction, M)`` of the README four-bar, lengths multiplied by ``scale`` and the
    whole linkage moved by ``offset``, solved at the lengths :data:`FOURBAR_LENGTHS`."""
    mech = ms.models.fourbar().mechanism
    if scale != 1.0 or any(offset):
        offset = np.asarray(offset, dtype=float)
        values = {name: value * scale for name, value in mech.parameters().items()
                  if name != "motor.value" and name.endswith(("point1", "point2"))}
        values["O2.point1"] = values["O2.point1"] + offset
        values["O4.point2"] = values["O4.point2"] + offset
        q = mech.state
        q[0::3] = q[0::3] * scale + offset[0]
        q[1::3] = q[1::3] * scale + offset[1]
        mech.set_parameters(values)
        mech.state = q
    mech.solve()
    f = ms.diff.LoopFunction(mech, FOURBAR_PARAMS, fourbar_outputs(speed, scale))
    return f, lengths_matrix()


def fourbar_p(f, lengths, scale: float = 1.0, offset=(0.0, 0.0)) -> np.ndarray:
    """``p`` of :func:`fourbar_function`'s function for ``lengths``."""
    L = np.array(lengths, dtype=float)
    L[:4] *= scale
    p = lengths_matrix() @ L
    p[12:14] += offset                  # O4.point2 on the ground
    return p


def fourbar_closed_form(xp, lengths, speed: float = 1.0):
    """The coupler point, its velocity for crank speed ``speed`` and the coupler's pose
    ``(x, y, angle)`` from ``(ground, crank, coupler, rocker, angle)`` (upper branch), with
    the array namespace ``xp``; the velocity is the angle derivative written out."""
    g, a, b, c, t = (lengths[i] for i in range(5))
    ax, ay = a * xp.cos(t), a * xp.sin(t)
    dax, day = -a * xp.sin(t), a * xp.cos(t)
    ex, ey = g - ax, -ay
    d2 = ex * ex + ey * ey
    d = xp.sqrt(d2)
    dd2 = -2 * (ex * dax + ey * day)
    cos_b = (b * b + d2 - c * c) / (2 * b * d)
    beta = xp.arccos(cos_b)
    phi = xp.arctan2(ey, ex) + beta
    # d(phi)/dt: the direction's rate, and beta's from cos_b's
    dphi_dir = (ex * (-day) - ey * (-dax)) / d2
    dd = dd2 / (2 * d)
    dcos = (dd2 * 2 * b * d - (b * b + d2 - c * c) * 2 * b * dd) / (2 * b * d) ** 2
    dbeta = -dcos / xp.sqrt(1 - cos_b * cos_b)
    dphi = dphi_dir + dbeta
    bx, by = ax + b * xp.cos(phi), ay + b * xp.sin(phi)
    mx, my = (ax + bx) / 2, (ay + by) / 2
    px, py = mx - xp.sin(phi), my + xp.cos(phi)
    dmx = dax - b / 2 * xp.sin(phi) * dphi
    dmy = day + b / 2 * xp.cos(phi) * dphi
    vx = (dmx - xp.cos(phi) * dphi) * speed
    vy = (dmy - xp.sin(phi) * dphi) * speed
    return xp.stack([px, py, vx, vy, mx, my, phi])


def richardson_jacobian(f, p, h) -> np.ndarray:
    """Central differences of ``f`` at ``p`` with steps ``h`` (a number or one per entry),
    Richardson-extrapolated: error of order ``h^4``."""
    p = np.asarray(p, dtype=float)
    h = np.broadcast_to(np.asarray(h, dtype=float), p.shape)

    def central(step):
        cols = []
        for k in range(len(p)):
            e = np.zeros_like(p)
            e[k] = step[k]
            cols.append((f(p + e) - f(p - e)) / (2 * step[k]))
        return np.stack(cols, axis=-1)

    return (4 * central(h / 2) - central(h)) / 3


def assert_close_rel(a, b, rtol, what="") -> None:
    """``|a - b| <= rtol * max|b|`` entry by entry (relative to the array's size)."""
    a, b = np.asarray(a), np.asarray(b)
    scale = float(np.max(np.abs(b)))
    err = float(np.max(np.abs(a - b)))
    assert err <= rtol * scale, f"{what}: largest difference {err:.3g} of {scale:.3g}"


# -- Bricard -------------------------------------------------------------------------------
def bricard_function(angle: float = 0.3):
    """``(LoopFunction, mechanism)``: the Bricard linkage's link 3 pose and a point's velocity
    of link 3 by the driver angle and the points of revolutes R1 and R4."""
    mech = ms.models.spatial.bricard().mechanism
    mech.set_parameters({"motor.value": angle})
    mech.solve()
    outputs = [ms.diff.pose("link3"), ms.diff.point("link3", (0.2, -0.1, 0.3)),
               ms.diff.velocity("link3", (0.2, -0.1, 0.3), speeds={"motor": 1.0})]
    f = ms.diff.LoopFunction(mech, ["R1.point1", "R1.point2", "R4.point1", "R4.point2",
                                    "motor.value"], outputs)
    return f, mech


def bricard_symmetric_direction(seed: int = 0) -> np.ndarray:
    """A change of ``p`` that keeps the Bricard linkage line-symmetric, so movable: the
    first axis's point moved by ``delta`` on both of its bodies, the fourth (its image under
    the half turn about z) by ``H delta``; the bodies' frames are global at the construction
    pose, so body coordinates move as global ones."""
    delta = np.random.default_rng(seed).normal(size=3)
    H = np.diag([-1.0, -1.0, 1.0])
    return np.concatenate([delta, delta, H @ delta, H @ delta, [0.0]])


# -- Stewart -------------------------------------------------------------------------------
LEGS = [f"leg{i}.length" for i in range(1, 7)]


def stewart_function(seed: int = 1):
    """``(LoopFunction, p)``: the Stewart platform's pose and a platform point's velocity by
    the six leg lengths, at a pose off the symmetric one."""
    model = ms.models.spatial.stewart()
    mech = model.mechanism
    f = ms.diff.LoopFunction(mech, LEGS, [
        ms.diff.pose("platform"), ms.diff.point("platform", (0.3, 0.2, 0.1)),
        ms.diff.velocity("platform", (0.3, 0.2, 0.1), speeds={"leg1": 1.0, "leg4": -0.5})])
    p = f.parameters() + 0.05 * np.random.default_rng(seed).normal(size=6)
    return f, p


def stewart_leg_jacobian(position, R) -> np.ndarray:
    """The closed-form ``d(legs)/d(position, rotation vector)`` ``(6, 6)`` at a platform pose:
    ``l_i = |x + R p_i - b_i|``, so ``dl_i = u_i . dx + (R p_i x u_i) . dphi``."""
    from mechsolve.models.spatial import STEWART_BASE, STEWART_PLATFORM

    arms = STEWART_PLATFORM @ R.T
    legs = position + arms - STEWART_BASE
    u = legs / np.linalg.norm(legs, axis=1)[:, None]
    return np.hstack([u, np.cross(arms, u)])
