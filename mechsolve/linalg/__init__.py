"""One linear-algebra layer: every factorization of a Jacobian in mechsolve, behind one
protocol, with one table of thresholds.

Backends
--------
* :class:`LinearStrategy` factors the Newton step's Jacobian, scaled by the units of the
  increments and row-normalized: dense LU (one item: LAPACK directly; a batch: ``gesv``),
  sparse LU (band LU in a :class:`BandOrdering`, else SuperLU), the minimum-norm
  least-squares step (truncated SVD, LSMR past :data:`DENSE_LIMIT`). Its factorizations
  answer ``solve``, ``solve_columns``, ``det_sign`` and ``sigma_ratio``; ``lsq`` says which
  items took least squares.
* :func:`lu_solve` / :func:`solve_each`: many small dense systems at once (design sweeps), the
  batch on the last axis, LAPACK for the items its pivots do not suit.
* :class:`SVD`, :func:`independent_rows`, :func:`null_space`, :func:`min_norm_solve`: rank
  analysis (redundant equations, free motions, least squares).
* :class:`TracedStep`, :func:`traced_lu`, :func:`traced_solve`: the same step traced by JAX
  for one item (``jax.numpy`` passed in; the accelerator backend's Newton).
* :func:`lu_factor`, :func:`det_sign`, :func:`sigma_ratio`, :func:`scale_rows`: plain LU of a
  matrix as it is, the sign of ``det J``, ``sigma_min / sigma_max``, the row scaling.

The thresholds (:data:`RANK_RTOL`, :data:`SINGULAR_RTOL`, ...) are in
``mechsolve/linalg/_thresholds.py``, each with what it means.

>>> import numpy as np
>>> from mechsolve.linalg import LinearStrategy
>>> J = np.array([[[2.0, 0.0], [0.0, 4.0]]])
>>> fac = LinearStrategy().factor_one(J, np.ones(2), False)
>>> fac.solve(np.array([2.0, 2.0])).tolist(), fac.det_sign(), fac.sigma_ratio()
([1.0, 0.5], 1, 1.0)
"""

from ._batched import det_signs, lu_solve, row_masks, solve_each
from ._factor import DenseLU, LinearStrategy, factor_one, lu_factor
from ._ordering import BandOrdering
from ._rank import (
    SVD,
    cholesky_solve,
    det_sign,
    independent_rows,
    inverse,
    lu_solve_batch,
    min_norm_lstsq,
    min_norm_solve,
    null_space,
    numerical_rank,
    orthonormal_columns,
    row_norms,
    scale_rows,
    sigma_ratio,
    singular_values,
    truncated_svd,
)
from ._thresholds import (
    BAND_MAX,
    BATCH_PIVOT_MIN,
    CONSISTENT_RTOL,
    DENSE_LIMIT,
    GOALS_CONSISTENT_RTOL,
    HUGE_STEP,
    NEAR_SINGULAR_RTOL,
    NULL_WEIGHT_MIN,
    PIVOT_RATIO_QUICK,
    RANK_RTOL,
    RCOND_MIN,
    REGULAR_RCOND,
    SAME_SIGN_BOUND,
    SINGULAR_RTOL,
    SPARSE_CONSISTENT_RTOL,
    TINY_NORM,
    TRACED_PIVOT_MIN,
)
from ._traced import TracedStep, traced_lu, traced_lu_solve, traced_solve

__all__ = ["LinearStrategy", "BandOrdering", "DenseLU", "factor_one", "lu_factor", "lu_solve",
           "row_masks", "solve_each", "det_signs", "SVD", "cholesky_solve", "det_sign",
           "independent_rows", "inverse", "lu_solve_batch", "min_norm_lstsq", "min_norm_solve",
           "null_space", "numerical_rank", "orthonormal_columns", "row_norms", "scale_rows",
           "sigma_ratio", "singular_values", "truncated_svd", "TracedStep", "traced_lu",
           "traced_lu_solve", "traced_solve",
           "BAND_MAX", "BATCH_PIVOT_MIN", "CONSISTENT_RTOL", "DENSE_LIMIT",
           "GOALS_CONSISTENT_RTOL", "HUGE_STEP", "NEAR_SINGULAR_RTOL", "NULL_WEIGHT_MIN",
           "PIVOT_RATIO_QUICK", "RANK_RTOL", "RCOND_MIN", "REGULAR_RCOND", "SAME_SIGN_BOUND",
           "SINGULAR_RTOL", "SPARSE_CONSISTENT_RTOL", "TINY_NORM", "TRACED_PIVOT_MIN"]
