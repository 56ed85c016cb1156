"""Warnings about input that is valid but probably not what was meant.

Errors (:class:`~mechsolve.SolveError` and its kin) live with the solver; these warnings are
raised from the joints (a driver value) and the sweeps, so they sit below both. Every warning
points at the user's line: the first frame outside the mechsolve package.
"""

from __future__ import annotations

import math
import os
import sys
import warnings

__all__ = ["MechsolveWarning", "FreeMotionWarning", "DegreesWarning"]

#: An angle driver's value that is a whole number above this (in radians) looks like degrees.
DEGREES_VALUE = 2 * math.pi
#: A sweep of an angle driver over more than this span (20 turns, in radians) looks like degrees.
DEGREES_SPAN = 40 * math.pi

_PACKAGE = os.path.dirname(os.path.abspath(__file__)) + os.sep


class MechsolveWarning(UserWarning):
    """Base of mechsolve's warnings: the input is valid, but probably not what was meant.

    Filter all of them with ``warnings.simplefilter("ignore", ms.MechsolveWarning)``, or turn
    them into errors with ``"error"``.
    """


class FreeMotionWarning(MechsolveWarning):
    """A sweep runs on a mechanism that its drivers do not fully fix.

    The bodies the drivers leave free follow the minimum-norm motion, which is rarely what was
    meant (a dangling coupler). Add a driver per free degree of freedom (``mech.dof()`` counts
    them), or fix the bodies that should stay put.
    """


class DegreesWarning(MechsolveWarning):
    """An angle looks like degrees where mechsolve takes radians.

    Raised when an angle driver's value (set through ``driver.value`` or the constructor) is a
    whole number larger than ``2 pi`` in magnitude (``45``, ``90``, ``-180``), and when a sweep
    of an angle driver spans more than 20 turns (``40 pi`` rad) or all its values larger than
    ``2 pi`` in magnitude are whole numbers (``np.linspace(0, 90, 91)``). Convert with
    ``ms.rad(...)``.
    """


def _user_stacklevel() -> int:
    """The ``stacklevel`` of :func:`warnings.warn`, called from :func:`_warn`, that names the
    first frame outside the mechsolve package."""
    frame = sys._getframe(2)   # the caller of _warn
    level = 2
    while frame is not None and frame.f_code.co_filename.startswith(_PACKAGE):
        frame = frame.f_back
        level += 1
    return level


def _warn(message: str, category: type[MechsolveWarning]) -> None:
    warnings.warn(message, category, stacklevel=_user_stacklevel())


def looks_like_degrees(value: float) -> bool:
    """Whether an angle ``value`` (radians) looks like degrees: a whole number larger than
    ``2 pi`` in magnitude."""
    return abs(value) > DEGREES_VALUE and float(value).is_integer()


def check_degrees_value(driver, value: float) -> None:
    """Warn with :class:`DegreesWarning` if the value of the angle driver ``driver`` looks like
    degrees (see :func:`looks_like_degrees`)."""
    if looks_like_degrees(value):
        _warn(f"{driver.describe()}: value {value:g} looks like degrees (a whole number above "
              f"2 pi); mechsolve takes angles in radians, {value:g} rad is "
              f"{value / (2 * math.pi):.3g} turns. Write ms.rad({value:g}) for "
              f"{value:g} degrees.", DegreesWarning)


def check_degrees_span(driver, low: float, high: float) -> None:
    """Warn with :class:`DegreesWarning` if the values of a sweep of the angle driver
    ``driver``, from ``low`` to ``high``, span more than 20 turns."""
    span = high - low
    if span > DEGREES_SPAN:
        _warn(f"the sweep of {driver.describe()} spans {span:g} rad ({span / (2 * math.pi):.3g} "
              f"turns), which looks like degrees; mechsolve takes angles in radians: sweep "
              f"ms.rad(values) for values in degrees.", DegreesWarning)


def check_degrees_sweep(driver, values) -> None:
    """Warn (once) with :class:`DegreesWarning` if the values of a sweep of the angle driver
    ``driver`` look like degrees: they span more than 20 turns (:func:`check_degrees_span`),
    or every value larger than ``2 pi`` in magnitude is a whole number (``0, 1, ..., 90``:
    each alone would warn as a driver's value, see :func:`check_degrees_value`)."""
    values = [float(v) for v in values]
    low, high = min(values), max(values)
    if high - low > DEGREES_SPAN:
        check_degrees_span(driver, low, high)
        return
    big = [v for v in values if abs(v) > DEGREES_VALUE]
    if big and all(v.is_integer() for v in big):
        top = max(big, key=abs)
        _warn(f"the sweep of {driver.describe()}: values up to {top:g} look like degrees "
              f"(every value above 2 pi is a whole number, {len(big)} of them); mechsolve "
              f"takes angles in radians, {top:g} rad is {top / (2 * math.pi):.3g} turns. Sweep "
              f"ms.rad(values) for values in degrees.", DegreesWarning)


def check_free_motion(free: int, what: str, describe=None) -> None:
    """Warn with :class:`FreeMotionWarning` if ``free`` degrees of freedom are left free by the
    drivers of a ``what`` (``"sweep"``, ``"time sweep"``).

    ``describe``: a callable giving the free motions in words (a list of strings, see
    :meth:`Mechanism.free_motions`), called only when there is something to warn about; the
    warning names them.
    """
    if free > 0:
        s = "" if free == 1 else "s"
        labels = list(describe()) if describe is not None else []
        if len(labels) == 1:
            named = f" ({labels[0]})"
        elif labels:
            named = " (" + "; ".join(f"{i + 1}: {t}" for i, t in enumerate(labels)) + ")"
        else:
            named = ""
        _warn(f"the {what} runs with {free} degree{s} of freedom that no driver fixes{named}: "
              f"the free bodies follow the minimum-norm motion, not a motion of the mechanism "
              f"you may mean. Add {'a driver' if free == 1 else f'{free} drivers'} (mech.dof() "
              f"lists the free motions) or fix the bodies that should stay put.",
              FreeMotionWarning)
