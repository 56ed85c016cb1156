"""The one result idiom of mechsolve: :class:`Result` (SciPy's ``OptimizeResult`` style) and
the status codes every solver shares.

Every public result (a solve, a Newton or Levenberg–Marquardt run, inverse kinematics, a
batch, a design sweep, a synthesis, a tolerance analysis, a degrees-of-freedom report) is a
:class:`Result`: a dict with attribute access, whose shared fields mean the same everywhere.

==================  =========================================================================
field               meaning
==================  =========================================================================
``success``         whether the solver reached its goal (``bool``; an array of ``bool`` with
                    one entry per item for results of many items)
``status``          why it stopped: an ``int`` code of :class:`Status` (an array of
                    them for many items); ``0`` (:data:`CONVERGED`) exactly where ``success``
``message``         the same in words (``str``)
``iterations``      iterations spent (``int``, or an array of them)
``residual``        the largest residual, every equation in its unit: a length divided by the
                    model's characteristic length, an angle in radians (what ``tol`` bounds;
                    dimensionless, the same in micrometres and kilometres)
``residual_abs``    the largest residual in the equations' own units (lengths in the model's
                    length unit, angles in radians)
==================  =========================================================================

The status codes (:class:`Status`; :data:`STATUS_MESSAGES` holds their messages):

====  =====================  ====================================================================
code  name                   meaning
====  =====================  ====================================================================
0     ``CONVERGED``          the equations are met within ``tol``
1     ``MAX_ITERATIONS``     the iteration limit (``max_iterations``) was reached first
2     ``NO_PROGRESS``        no step reduced the error (the damping factor fell below its
                             minimum): the start is outside Newton's domain of convergence
3     ``STATIONARY``         the correction vanished with the residual above ``tol``: a
                             least-squares point, the equations may have no solution
4     ``NOT_FINITE``         a residual or Jacobian entry was not finite
5     ``NOT_SOLVED``         every stage tried (assembly from a sketch, restarts, a solve of
                             its own) failed to meet the equations
6     ``AT_LIMIT``           a joint limit keeps the equations from being met
7     ``LIMIT_POSITION``     a motion stopped at a limit position: the driver cannot go on
8     ``BRANCH_CHANGE``      a motion stopped where going on would change the assembly branch
====  =====================  ====================================================================

>>> import mechsolve as ms
>>> ms.Status.MAX_ITERATIONS.message
'the iteration limit was reached'
>>> [int(code) for code in ms.Status]
[0, 1, 2, 3, 4, 5, 6, 7, 8]
"""

from __future__ import annotations

import sys
import warnings
from enum import IntEnum

import numpy as np

__all__ = ["Result", "Status", "STATUS_MESSAGES", "CONVERGED", "MAX_ITERATIONS", "NO_PROGRESS",
           "STATIONARY", "NOT_FINITE", "NOT_SOLVED", "AT_LIMIT", "LIMIT_POSITION",
           "BRANCH_CHANGE", "DEFAULT_MAX_ITERATIONS", "status_message"]

#: Status of an item still iterating (inside the Newton core only; never in a result).
RUNNING = -1
CONVERGED = 0
MAX_ITERATIONS = 1
NO_PROGRESS = 2
STATIONARY = 3
NOT_FINITE = 4
NOT_SOLVED = 5
AT_LIMIT = 6
LIMIT_POSITION = 7
BRANCH_CHANGE = 8

#: The message of every status code, shared by all solvers.
STATUS_MESSAGES = {
    CONVERGED: "converged",
    MAX_ITERATIONS: "the iteration limit was reached",
    NO_PROGRESS: "no step reduced the error (the damping factor fell below its minimum)",
    STATIONARY: "the correction vanished with the residual above the tolerance: a "
                "least-squares point, the equations may have no solution",
    NOT_FINITE: "a residual or Jacobian entry was not finite",
    NOT_SOLVED: "no stage of the solve met the equations",
    AT_LIMIT: "a joint limit keeps the equations from being met",
    LIMIT_POSITION: "the motion stopped at a limit position",
    BRANCH_CHANGE: "the motion stopped where it would change assembly branch",
}

class Status(IntEnum):
    """The status codes every solver shares (a result's ``status`` is the plain ``int``).

    >>> import mechsolve as ms
    >>> ms.Status(1), ms.Status(1).message
    (<Status.MAX_ITERATIONS: 1>, 'the iteration limit was reached')
    >>> ms.Status.CONVERGED == 0
    True
    """

    CONVERGED = CONVERGED
    MAX_ITERATIONS = MAX_ITERATIONS
    NO_PROGRESS = NO_PROGRESS
    STATIONARY = STATIONARY
    NOT_FINITE = NOT_FINITE
    NOT_SOLVED = NOT_SOLVED
    AT_LIMIT = AT_LIMIT
    LIMIT_POSITION = LIMIT_POSITION
    BRANCH_CHANGE = BRANCH_CHANGE

    @property
    def message(self) -> str:
        """The code's message (:data:`STATUS_MESSAGES`)."""
        return STATUS_MESSAGES[int(self)]


#: The iteration budget of every public entry point (``max_iterations=``): Newton steps one
#: solve may take from its start. A path that starts next to its solution (a sweep's
#: corrector, from a prediction) keeps a smaller budget of its own, within this one.
DEFAULT_MAX_ITERATIONS = 50

#: The fields every result has, in the order its ``repr`` shows them.
SHARED = ("success", "status", "message", "iterations", "residual", "residual_abs")

#: The release that removes the deprecated ways of reading a result.
_REMOVED_IN = "0.3"


def status_message(status) -> str:
    """The message of a status code, or a summary of an array of them.

    >>> status_message(0)
    'converged'
    >>> status_message(np.array([0, 0, 1]))
    '2 of 3 converged; 1 the iteration limit was reached'
    """
    codes = np.asarray(status)
    if codes.ndim == 0:
        code = int(codes)
        if code not in STATUS_MESSAGES:
            raise ValueError(f"status must be one of the codes {sorted(STATUS_MESSAGES)}, "
                             f"got {code}")
        return STATUS_MESSAGES[code]
    flat = codes.ravel()
    done = int(np.count_nonzero(flat == CONVERGED))
    parts = [f"{done} of {flat.size} converged"]
    for code in np.unique(flat[flat != CONVERGED]).tolist():
        parts.append(f"{int(np.count_nonzero(flat == code))} {status_message(code)}")
    return "; ".join(parts)


class Result(dict):
    """Base of every result in mechsolve: a dict with attribute access, like SciPy's
    ``OptimizeResult``, with the shared fields of the module's table (``success``,
    ``status``, ``message``, ``iterations``, ``residual``, ``residual_abs``).

    Subclasses list the fields their ``repr`` shows first in ``_show``, and the fields that
    were renamed (read under the old name with a :class:`DeprecationWarning` until 0.3) in
    ``_renamed``.

    Examples
    --------
    >>> r = Result(success=True, status=0, iterations=3, residual=2e-15)
    >>> r.iterations, r["status"]
    (3, 0)
    >>> r
    Result(success=True, status=0, iterations=3, residual=2e-15)
    """

    _show: tuple[str, ...] = ()
    #: ``{old name: new name}`` of renamed fields.
    _renamed: dict[str, str] = {}

    def __missing__(self, key):
        new = self._renamed.get(key)
        if new is None:
            raise KeyError(key)
        warnings.warn(f"{type(self).__name__}.{key} is deprecated: use "
                      f"{type(self).__name__}.{new} ({key} will be removed in mechsolve "
                      f"{_REMOVED_IN})", DeprecationWarning, stacklevel=_outside())
        return self[new]

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r} (its fields: "
                                 f"{', '.join(self.keys())})") from None

    def __setattr__(self, name, value):
        self[name] = value

    def __delattr__(self, name):
        try:
            del self[name]
        except KeyError:
            raise AttributeError(name) from None

    def __dir__(self):
        """The fields (and a subclass's public properties), as SciPy's ``OptimizeResult``
        lists its keys."""
        own = {name for klass in type(self).__mro__[:-2]
               for name, value in vars(klass).items()
               if isinstance(value, property) and not name.startswith("_")}
        return sorted(set(self.keys()) | own)

    def __repr__(self) -> str:
        """The shared fields, then the subclass's ``_show`` (every scalar field without them):
        ``SolveResult(success=True, status=0, message='converged', ...)``."""
        own = self._show or tuple(k for k, v in self.items()
                                  if np.ndim(v) == 0 and not isinstance(v, dict))
        keys = [k for k in dict.fromkeys(SHARED + own) if k in self]
        return f"{type(self).__name__}(" + ", ".join(
            f"{k}={_short(dict.__getitem__(self, k))}" for k in keys) + ")"


def _outside() -> int:
    """The ``stacklevel`` of a warning raised in a method of a result that names the line
    that read the result: past the frames of the results' own accessors (``__missing__``,
    ``__getitem__``, ``__getattr__``, here and in their subclasses' modules)."""
    frame = sys._getframe(2)      # the caller of the method that warns
    level = 2
    while frame is not None and frame.f_code.co_name in _ACCESSORS:
        frame = frame.f_back
        level += 1
    return level


_ACCESSORS = frozenset({"__missing__", "__getitem__", "__getattr__"})


def _short(value) -> str:
    if isinstance(value, np.ndarray) and value.size > 6:
        return f"<array {value.shape}>"
    if isinstance(value, (float, np.floating)):
        return f"{float(value):.3g}"
    if isinstance(value, str) and len(value) > 80:
        return repr(value[:77] + "...")
    return repr(value)


class _LegacyStatus(int):
    """The int status code of a :class:`~mechsolve.SolveResult` that still answers the old
    comparisons with the rank verdict strings (``status == "regular"``, ``"redundant" in
    status``) with a :class:`DeprecationWarning`, until 0.3; ``rank_status`` holds the
    verdict now."""

    def __new__(cls, code: int, legacy: str):
        obj = super().__new__(cls, code)
        obj._legacy = legacy
        return obj

    def _warn(self) -> None:
        warnings.warn(
            "comparing SolveResult.status with a string is deprecated: status is the int code "
            "of mechsolve.Status (0: converged) and the rank verdict ('regular', "
            "'redundant', 'underdetermined', ...) is SolveResult.rank_status; the comparison "
            f"will raise TypeError in mechsolve {_REMOVED_IN}", DeprecationWarning,
            stacklevel=3)

    def __eq__(self, other):
        if isinstance(other, str):
            self._warn()
            return self._legacy == other
        return int(self) == other

    def __ne__(self, other):
        if isinstance(other, str):
            self._warn()
            return self._legacy != other
        return int(self) != other

    __hash__ = int.__hash__

    def __contains__(self, other):
        if isinstance(other, str):
            self._warn()
            return other in self._legacy
        raise TypeError(f"argument of type {type(self).__name__!r} is not iterable")

    def __repr__(self) -> str:
        return repr(int(self))

    __str__ = __repr__

    def __reduce__(self):
        return (int, (int(self),))
