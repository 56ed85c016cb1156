"""Input checking shared by the spatial classes.

Every helper names the offending argument and says what was expected, e.g.
``"Expected axis with shape (3,), got array-like object with shape (2,)"``.
"""

from __future__ import annotations

import numbers

import numpy as np

#: Largest accepted deviation of a hand-given quaternion's norm from 1.
UNIT_TOLERANCE = 1e-6


def _shape_text(shape: tuple[int, ...], *, stacked: bool) -> str:
    inner = ", ".join(str(s) for s in shape)
    if stacked:
        return f"(..., {inner})"
    return f"({inner},)" if len(shape) == 1 else f"({inner})"


def as_float_array(value, name: str) -> np.ndarray:
    """Convert ``value`` to a float array, raising TypeError naming ``name``."""
    if isinstance(value, (str, bytes)) or value is None:
        raise TypeError(f"Expected {name} to be array-like of numbers, got {type(value).__name__}")
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"Expected {name} to be array-like of numbers, got {type(value).__name__}"
        ) from exc
    return arr


def check_finite(arr: np.ndarray, name: str) -> np.ndarray:
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} contains non-finite values (nan or inf)")
    return arr


def as_array(value, name: str, shape: tuple[int, ...], *, stacked: bool = True) -> np.ndarray:
    """Return ``value`` as a finite float array whose trailing dimensions are ``shape``.

    With ``stacked=True`` any leading (batch) dimensions are accepted.
    """
    arr = as_float_array(value, name)
    n = len(shape)
    ok = arr.shape[arr.ndim - n :] == shape if arr.ndim >= n else False
    if ok and not stacked:
        ok = arr.ndim == n
    if not ok:
        raise ValueError(
            f"Expected {name} with shape {_shape_text(shape, stacked=stacked)}, "
            f"got array-like object with shape {arr.shape}"
        )
    return check_finite(arr, name)


def as_scalars(value, name: str) -> np.ndarray:
    """Return ``value`` as a finite float array of any shape (scalars or a stack of them)."""
    if isinstance(value, bool):
        raise TypeError(f"Expected {name} to be a real number, got bool")
    arr = as_float_array(value, name)
    return check_finite(arr, name)


def as_real(value, name: str) -> float:
    """Return ``value`` as a finite Python float."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        if not (isinstance(value, np.ndarray) and value.ndim == 0):
            raise TypeError(f"Expected {name} to be a real number, got {type(value).__name__}")
    out = float(value)
    if not np.isfinite(out):
        raise ValueError(f"{name} must be finite, got {out}")
    return out


def is_scalar_number(value) -> bool:
    """True for real scalars usable in ``scale * quantity`` (not bool)."""
    if isinstance(value, bool):
        return False
    if isinstance(value, numbers.Real):
        return True
    return isinstance(value, np.ndarray) and value.ndim == 0 and value.dtype.kind in "iuf"


def unit_vector(value, name: str, *, stacked: bool = True) -> np.ndarray:
    """Return ``value`` (shape (..., 3)) scaled to unit length; a zero vector raises."""
    arr = as_array(value, name, (3,), stacked=stacked)
    norm = np.linalg.norm(arr, axis=-1, keepdims=True)
    if np.any(norm < 1e-300) or np.any(norm == 0.0):
        raise ValueError(f"{name} must be a non-zero vector, got {arr.tolist()}")
    return arr / norm


def index_text(index: tuple[int, ...]) -> str:
    """``"[2]"`` or ``"[1, 0]"``: the position of one item in a stack, for messages."""
    return "[" + ", ".join(str(int(i)) for i in index) + "]"


def unit_quaternion(
    value,
    name: str,
    *,
    normalize: bool = False,
    remedy: str = "pass normalize=True to rescale",
) -> np.ndarray:
    """Return ``value`` (shape (..., 4)) as unit quaternion(s), checking the norm.

    Without ``normalize`` every norm must be within :data:`UNIT_TOLERANCE` of 1; the message
    names the argument, the norm found and, for a stack, the index of the worst quaternion.
    With ``normalize`` any non-zero quaternion is accepted. Either way the result is scaled to
    unit length, except quaternions already unit to within four units in the last place, which
    are returned as given (so that a unit quaternion written out and read back is the same).
    """
    q = as_array(value, name, (4,))
    norm = np.linalg.norm(q, axis=-1, keepdims=True)
    subject = "quaternion" if name == "quaternion" else f"{name} quaternion"
    if normalize:
        zero = norm[..., 0] == 0.0
        if np.any(zero):
            where = "" if zero.ndim == 0 else index_text(np.argwhere(zero)[0])
            raise ValueError(f"{name}{where} must be non-zero to be normalized")
    else:
        deviation = np.abs(norm[..., 0] - 1.0)
        if np.any(deviation > UNIT_TOLERANCE):
            if deviation.ndim == 0:
                found = f"got {np.round(q, 6).tolist()} with norm {float(norm[0]):.6g}"
            else:
                worst = np.unravel_index(np.argmax(deviation), deviation.shape)
                found = f"got norm {float(norm[worst][0]):.6g} at index {index_text(worst)}"
            raise ValueError(f"{subject} must have unit norm ({found}); {remedy}")
    return np.where(np.abs(norm - 1.0) <= _UNIT_ULPS, q, q / norm)


#: Quaternions and directions whose norm is within this of 1 are unit already: rescaling them
#: would only change their last bits.
_UNIT_ULPS = 4 * np.finfo(float).eps


def unit_quaternions_checked(q, name: str) -> np.ndarray:
    """Quaternions ``(..., 4)`` given by hand, checked to have unit norm and normalized.

    Raises a ValueError naming ``name`` and the norm found when a norm differs from 1 by more
    than :data:`UNIT_TOLERANCE` (a scaled quaternion is a different target, not the
    same rotation: the solver would otherwise report success on a goal that was never meant).
    """
    q = np.asarray(q, dtype=float)
    if q.shape == (4,):        # one quaternion: scalar arithmetic is several times faster
        w, x, y, z = q.tolist()
        n = (w * w + x * x + y * y + z * z) ** 0.5
        if abs(n - 1.0) <= UNIT_TOLERANCE:
            return q / n
    norm = np.sqrt(np.einsum("...i,...i->...", q, q))
    bad = ~(np.abs(norm - 1.0) <= UNIT_TOLERANCE)     # NaN counts as bad
    if np.any(bad):
        idx = np.argwhere(bad)[0]
        where = f" (item {tuple(int(i) for i in idx) if len(idx) > 1 else int(idx[0])})" \
            if norm.ndim else ""
        raise ValueError(f"{name}: the quaternion (w, x, y, z) must have norm 1 within "
                         f"{UNIT_TOLERANCE:g}, found norm {float(norm[tuple(idx)]):.6g}"
                         f"{where}; normalize it or build the target from an Orientation")
    return q / norm[..., None]


def broadcast_named(arrays: dict[str, np.ndarray], core: int = 0) -> tuple[int, ...]:
    """Broadcast shape of named arrays whose last ``core`` dimensions are not broadcast.

    Raises a :class:`ValueError` naming every argument and its shape (NumPy's own message
    only says "arg 0" and "arg 1").
    """
    shapes = [np.shape(a)[: np.ndim(a) - core] for a in arrays.values()]
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        names = list(arrays)
        listed = ", ".join(names[:-1]) + " and " + names[-1]
        found = ", ".join(f"{n} {np.shape(a)}" for n, a in arrays.items())
        what = "shapes" if core == 0 else "batch shapes (leading dimensions)"
        raise ValueError(
            f"Expected {listed} with {what} that broadcast together, got {found}"
        ) from None


def readonly(arr: np.ndarray) -> np.ndarray:
    arr = np.array(arr, dtype=float, copy=True)
    arr.flags.writeable = False
    return arr


def freeze(arr: np.ndarray) -> np.ndarray:
    """Read-only view of a freshly computed array (no copy)."""
    if arr.flags.writeable:
        arr = arr.view()
        arr.flags.writeable = False
    return arr


def to_output(arr):
    """0-d arrays become Python floats; other arrays are returned unchanged."""
    arr = np.asarray(arr)
    if arr.ndim == 0:
        return float(arr)
    return arr


def fmt_float(value) -> str:
    """Short text for a float in reprs: 7 significant digits, always with a '.' or exponent."""
    text = f"{float(value) + 0.0:.7g}"
    if not any(c in text for c in ".enai"):
        text += ".0"
    return text


class FrozenSlots:
    """Mixin: restore pickled/copied slot state with read-only arrays."""

    __slots__ = ()

    def __setstate__(self, state):
        slots = state[1] if isinstance(state, tuple) else state
        for key, value in slots.items():
            object.__setattr__(self, key, freeze(value) if isinstance(value, np.ndarray) else value)
