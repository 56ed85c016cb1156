"""Names of design parameters: ``"<joint>.<parameter>"`` -> (joint, slice of its ``_p``).

Kept below :mod:`mechsolve.analysis` so that batches and sweeps take the same names as
:mod:`mechsolve.design.parameters` (which re-exports :func:`parameter_slices`).
"""

from __future__ import annotations

import difflib

__all__ = ["parameter_slices"]

#: Parameter names that are unit quaternions (normalized when set) and unit directions.
_QUATERNIONS = ("frame1", "frame2", "frame", "reference_frame", "precursor_frame",
                "target_quaternion")
_DIRECTIONS = ("axis",)
#: Parameter names that must be positive.
_POSITIVE = ("length", "radius", "radius1")


def _names_of(joint) -> tuple:
    chosen = getattr(joint, "design_parameters", None)
    layout = type(joint).layout
    if chosen is None:
        return tuple(layout)
    return tuple((n, s) for n, s in layout if n in chosen)


def parameter_slices(mech) -> dict:
    """``{name: (joint, slice)}`` of every named parameter, in joint order then layout order.

    >>> import mechsolve as ms
    >>> names = list(parameter_slices(ms.models.fourbar().mechanism))
    >>> names[:3], names[-1]
    (['O2.point1', 'O2.point2', 'A.point1'], 'motor.value')
    """
    out = {}
    for i, joint in enumerate(mech.joints):
        prefix = joint.name if joint.name is not None else f"joints[{i}]"
        slices = type(joint)._slices
        for name, _ in _names_of(joint):
            out[f"{prefix}.{name}"] = (joint, slices[name])
    return out


def _close(name: str, names) -> str:
    near = difflib.get_close_matches(name, list(names), n=3)
    return f"; did you mean {', '.join(map(repr, near))}?" if near else ""
