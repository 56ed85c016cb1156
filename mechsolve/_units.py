"""Angle conversions for the Python API, which takes every angle in radians.

``ms.rad(45)`` is what ``drive.value = 45`` meant; ``ms.deg(body.angle)`` is for printing.
Scalars give Python floats, arrays give float arrays of the same shape.
"""

from __future__ import annotations

import numbers

import numpy as np

__all__ = ["rad", "deg"]


def _convert(value, name: str, ufunc):
    """``ufunc(value)`` as a Python float (scalar) or a float array; bad input raises naming
    ``name``."""
    if isinstance(value, (bool, np.bool_, str, bytes)) or value is None:
        raise TypeError(f"{name} must be a real number or an array of real numbers, got "
                        f"{type(value).__name__} {value!r}")
    if isinstance(value, numbers.Number) and not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be real, got {type(value).__name__} {value!r}")
    try:
        arr = np.asarray(value)
    except (TypeError, ValueError) as exc:   # ragged nested sequences
        raise ValueError(f"{name} must be a real number or an array of real numbers, got "
                         f"{value!r}") from exc
    if arr.dtype.kind not in "iuf":
        raise TypeError(f"{name} must be a real number or an array of real numbers, got "
                        f"{type(value).__name__} {value!r} (dtype {arr.dtype})")
    out = ufunc(arr.astype(float))
    if arr.ndim == 0:
        return float(out)
    return out


def rad(degrees):
    """Degrees to radians, the unit of every angle in mechsolve's Python API.

    Parameters
    ----------
    degrees : float or array_like
        Angles in degrees (as :func:`numpy.radians`).

    Returns
    -------
    float or ndarray
        The angles in radians: a Python float for a scalar, a float array of the same shape
        for an array.

    Raises
    ------
    TypeError
        If ``degrees`` is not real (a string, a bool, a complex number, None).
    ValueError
        If ``degrees`` is a ragged sequence.

    See Also
    --------
    deg : the inverse.

    Examples
    --------
    >>> import mechsolve as ms
    >>> ms.rad(45)
    0.7853981633974483
    >>> ms.rad([0, 90, 180])
    array([0.        , 1.57079633, 3.14159265])
    >>> mech = ms.Mechanism()
    >>> crank = mech.add_body("crank")
    >>> drive = mech.add(ms.joints.Driver(crank, "angle", name="motor"))
    >>> drive.value = ms.rad(45)
    >>> round(drive.value, 6)
    0.785398
    """
    return _convert(degrees, "degrees", np.radians)


def deg(radians):
    """Radians to degrees, for printing and plotting what mechsolve returns.

    Parameters
    ----------
    radians : float or array_like
        Angles in radians.

    Returns
    -------
    float or ndarray
        The angles in degrees: a Python float for a scalar, a float array of the same shape
        for an array.

    Raises
    ------
    TypeError
        If ``radians`` is not real (a string, a bool, a complex number, None).
    ValueError
        If ``radians`` is a ragged sequence.

    See Also
    --------
    rad : the inverse.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> ms.deg(np.pi / 4)
    45.0
    >>> ms.deg(np.array([0.0, np.pi]))
    array([  0., 180.])
    """
    return _convert(radians, "radians", np.degrees)
