"""Named design parameters: every joint's parameters by ``"<joint>.<parameter>"``.

A joint's parameter vector has a named layout (:attr:`mechsolve.joints.Joint.layout`: a
revolute's ``point1`` and ``point2``, a distance's ``length``, a driver's ``value``, an end
effector's ``target_translation``...). This module names each part after its joint:
``"O4.point2"`` for the joint named ``O4``, and ``"joints[3].point2"`` for an unnamed joint
(its place in ``mech.joints``, as in model files). A class may leave out parts that are not
free design parameters (:attr:`~mechsolve.joints.Joint.design_parameters`: a driver's
coordinate selector, the copies of a revolute's frames inside the angle driver that drives it).

Setting parameters writes the joints' parameter vectors in place (the compiled system reads
them there, so nothing is rebuilt) and recomputes the model's characteristic length.
"""

from __future__ import annotations

import numpy as np

from .._names import _DIRECTIONS, _POSITIVE, _QUATERNIONS, _close, parameter_slices
from .._validation import as_vector

__all__ = ["parameter_slices", "parameters", "set_parameters"]


def parameters(mech) -> dict:
    """Every named parameter's current value: ``{name: float or array}`` (copies).

    See :mod:`mechsolve.design.parameters` for the names.

    >>> import mechsolve as ms
    >>> p = ms.models.fourbar().mechanism.parameters()
    >>> p["O4.point2"], p["motor.value"]
    (array([4., 0.]), 0.0)
    """
    out = {}
    for name, (joint, sl) in parameter_slices(mech).items():
        part = joint._p[sl]
        out[name] = float(part[0]) if part.size == 1 else part.copy()
    return out


def set_parameters(mech, values) -> None:
    """Set named parameters between solves: ``{name: value}`` (see :func:`parameters`).

    Every value is checked before any is written (the number of entries, finite numbers, unit
    quaternions and directions, which are normalized, positive lengths and radii), so that a
    bad entry leaves the mechanism as it was. The pose is not solved again.

    Raises ValueError naming the parameter (and the names closest to an unknown one) or
    TypeError for a value that is not numbers.

    >>> import mechsolve as ms
    >>> mech = ms.models.fourbar().mechanism
    >>> mech.set_parameters({"O4.point2": (4.2, 0.0)})
    >>> mech.parameters()["O4.point2"]
    array([4.2, 0. ])
    """
    if not hasattr(values, "items"):
        raise TypeError(f"values must be a mapping {{name: value}}, got "
                        f"{type(values).__name__}")
    table = parameter_slices(mech)
    staged = []
    for name, value in values.items():
        if not isinstance(name, str):
            raise TypeError(f"parameter names are strings such as 'O4.point2', got {name!r}")
        if name not in table:
            raise ValueError(f"no parameter named {name!r}{_close(name, table)} (see "
                             "mech.parameters())")
        joint, sl = table[name]
        size = sl.stop - sl.start
        v = as_vector(np.atleast_1d(np.asarray(value, dtype=object) if isinstance(value, str)
                                    else value), name, size)
        part = name.rsplit(".", 1)[1]
        if part in _QUATERNIONS or part in _DIRECTIONS:
            n = float(np.linalg.norm(v))
            if not n > 0.0:
                raise ValueError(f"{name} must be a non-zero "
                                 f"{'quaternion' if part in _QUATERNIONS else 'direction'}, "
                                 f"got {v.tolist()}")
            if part in _QUATERNIONS and abs(n - 1.0) > 1e-6:
                raise ValueError(f"{name} must be a unit quaternion, got norm {n:.6g}")
            if abs(n - 1.0) > 4 * np.finfo(float).eps:
                v = v / n
        if part in _POSITIVE and not np.all(v > 0.0):
            raise ValueError(f"{name} must be positive, got {v.tolist() if size > 1 else v[0]}")
        staged.append((joint, sl, v))
    for joint, sl, v in staged:
        joint._p[sl] = v      # in place: the compiled system reads these rows
    if staged:
        mech.parameters_changed()
        mech.rates_cache.update(key=None, nu=None, nudot=None)
