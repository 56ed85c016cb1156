"""Norms and bounds of short vectors with the least overhead (Python floats below 33 entries):
the Newton core's bookkeeping."""

from __future__ import annotations

import math

import numpy as np


def _nrm(v: np.ndarray) -> float:
    """Euclidean norm: in Python floats for short vectors (cheaper than a NumPy call;
    ``math.hypot`` scales against overflow and is accurate to about one rounding).

    Long vectors are summed by NumPy itself, not by BLAS: OpenBLAS threads a long ``ddot``,
    and on a busy machine its threads wait for the cores that another BLAS's threads (SciPy's
    LAPACK has its own) still spin on, which can cost milliseconds per call.
    """
    if v.size <= 32:
        return math.hypot(*v.tolist())
    return math.sqrt(float(np.add.reduce(v * v)))


def _maxabs(v: np.ndarray) -> float:
    """Largest absolute entry (0 for an empty vector)."""
    if v.size <= 32:
        return max(map(abs, v.tolist()), default=0.0)
    return float(np.max(np.abs(v))) if v.size else 0.0


def _within(v: np.ndarray, bound) -> bool:
    """Whether ``|v_i| <= bound_i`` for every entry; ``bound`` is a list of floats for short
    vectors (see :func:`_bounds`), else an array."""
    if type(bound) is list:
        return all(map(float.__le__, map(abs, v.tolist()), bound))
    return bool(np.all(np.abs(v) <= bound))


def _size(v: np.ndarray, bound) -> tuple[float, float, bool]:
    """``(_nrm(v), _maxabs(v), _within(v, bound))`` from one pass over a short vector."""
    if type(bound) is list:
        a = list(map(abs, v.tolist()))
        return (math.hypot(*a), max(a, default=0.0),
                all(map(float.__le__, a, bound)))
    return _nrm(v), _maxabs(v), _within(v, bound)


def _max_nrm(v: np.ndarray) -> tuple[float, float]:
    """``(_maxabs(v), _nrm(v))``, from one conversion of a short vector."""
    if v.size <= 32:
        a = list(map(abs, v.tolist()))
        return max(a, default=0.0), math.hypot(*a)
    return _maxabs(v), _nrm(v)


def _bounds(bound: np.ndarray):
    """``bound`` in the form :func:`_within` is fastest with: a list for short vectors."""
    return bound.tolist() if bound.size <= 32 else bound
