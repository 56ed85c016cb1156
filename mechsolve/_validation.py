"""Argument checks shared by the public constructors.

Every public entry point converts its inputs through these helpers so that a bad argument is
reported as a ``TypeError`` or ``ValueError`` naming the argument and what was expected, never as
a NumPy error from deep inside a kernel.
"""

from __future__ import annotations

import math
import numbers

import numpy as np


def as_float(value, name: str, *, positive: bool = False, nonnegative: bool = False) -> float:
    """Return ``value`` as a finite Python float or raise naming ``name``."""
    if type(value) is float and math.isfinite(value) and (
            value > 0.0 if positive else (value >= 0.0 or not nonnegative)):
        return value   # the common case, without the conversions below
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (numbers.Real, np.ndarray)):
        raise TypeError(f"{name} must be a real number, got {type(value).__name__} {value!r}")
    if isinstance(value, np.ndarray) and value.dtype.kind == "c":
        # asarray(dtype=float) would drop the imaginary part with only a warning
        raise TypeError(f"{name} must be a real number, got a complex array {value!r}")
    arr = np.asarray(value, dtype=float)
    if arr.shape != ():
        raise ValueError(f"{name} must be a scalar, got an array of shape {arr.shape}")
    val = float(arr)
    if not np.isfinite(val):
        raise ValueError(f"{name} must be finite, got {val}")
    if positive and val <= 0.0:
        raise ValueError(f"{name} must be positive, got {val}")
    if nonnegative and val < 0.0:
        raise ValueError(f"{name} must be non-negative, got {val}")
    return val


#: The largest angle (radians) a body or state may take: beyond it the spacing of floats is over
#: 1e-10 rad, and poses could no longer be exact to round-off of the model's size.
MAX_ANGLE = 1e6


def as_angle(value, name: str) -> float:
    """Return ``value`` as a finite angle within ``MAX_ANGLE`` radians or raise naming
    ``name``."""
    val = as_float(value, name)
    if abs(val) > MAX_ANGLE:
        raise ValueError(f"{name} must be within +-{MAX_ANGLE:g} rad (reduce it by whole turns "
                         f"of 2 pi), got {val:g}")
    return val


#: The types of a literal point's coordinates that :func:`as_vector` takes at once.
_PLAIN = frozenset((float, int))


def as_vector(value, name: str, size: int) -> np.ndarray:
    """Return ``value`` as a finite float array of shape ``(size,)`` or raise naming ``name``."""
    if type(value) is tuple and len(value) == size and set(map(type, value)) <= _PLAIN \
            and math.isfinite(sum(value)):
        # a literal point of Python floats and ints (finite: their sum is, unless it
        # overflows, which the checks below then see): no further checks needed
        return np.array(value, dtype=float)
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(
            f"{name} must be a sequence of {size} numbers, got {type(value).__name__} {value!r}"
        )
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a sequence of {size} numbers, got {value!r}") from None
    if arr.shape != (size,):
        raise ValueError(f"{name} must have shape ({size},), got an array of shape {arr.shape}")
    if not _all_finite(arr):
        raise ValueError(f"{name} must contain only finite numbers, got {arr.tolist()}")
    return arr


def _all_finite(arr: np.ndarray) -> bool:
    """Whether every entry is finite (for the short vectors of joint definitions, a Python
    loop is several times faster than a NumPy reduction)."""
    if arr.size <= 32:
        return all(map(math.isfinite, arr.ravel().tolist()))
    return bool(np.all(np.isfinite(arr)))


def as_direction(value, name: str, size: int) -> np.ndarray:
    """Return ``value`` as a unit vector of length ``size``; a zero vector is an error.

    A vector already of unit length to within four units in the last place is returned as
    given, so that a direction written out and read back is the same.
    """
    arr = as_vector(value, name, size)
    norm = float(np.linalg.norm(arr))
    if norm < 1e-12:
        raise ValueError(f"{name} must be a non-zero direction, got {arr.tolist()}")
    return arr if abs(norm - 1.0) <= 4 * np.finfo(float).eps else arr / norm


def as_name(value, name: str = "name") -> str | None:
    """Return ``value`` unchanged if it is ``None`` or a non-empty string."""
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise TypeError(f"{name} must be a non-empty string or None, got {value!r}")
    return value


def as_values(values, name: str = "values") -> np.ndarray:
    """Return ``values`` as a non-empty finite 1-D float array."""
    try:
        arr = np.asarray(values, dtype=float)
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a 1-D sequence of numbers, got {values!r}") from None
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(f"{name} must be a non-empty 1-D sequence, got shape {arr.shape}")
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must contain only finite numbers")
    return arr


def as_count(value, name: str, *, minimum: int = 1) -> int:
    """Return ``value`` as an int of at least ``minimum`` (an iteration cap, a count)."""
    if type(value) is int and value >= minimum:
        return value   # the common case, without the checks below
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer, got {type(value).__name__} {value!r}")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}, got {value}")
    return int(value)
