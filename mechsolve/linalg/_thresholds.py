"""The one table of thresholds of mechsolve's linear algebra.

Every rank decision, singularity test and fallback of the package reads its number here. The
ratios are taken on the *scaled* Jacobian (lengths in the model's size, every row of norm 1:
:func:`~mechsolve.linalg.scale_rows`) unless a name says otherwise, so that they mean the same
in micrometres and in kilometres.

>>> from mechsolve.linalg import RANK_RTOL, SINGULAR_RTOL, NEAR_SINGULAR_RTOL
>>> RANK_RTOL < SINGULAR_RTOL < NEAR_SINGULAR_RTOL
True
"""

from __future__ import annotations

__all__ = ["RANK_RTOL", "SINGULAR_RTOL", "REGULAR_RCOND", "NEAR_SINGULAR_RTOL", "RCOND_MIN",
           "PIVOT_RATIO_QUICK", "HUGE_STEP", "DENSE_LIMIT", "BAND_MAX", "BATCH_PIVOT_MIN",
           "CONSISTENT_RTOL", "SPARSE_CONSISTENT_RTOL", "GOALS_CONSISTENT_RTOL",
           "NULL_WEIGHT_MIN", "TINY_NORM", "SAME_SIGN_BOUND", "TRACED_PIVOT_MIN"]

# -- rank ---------------------------------------------------------------------------------------
#: Singular values of the scaled Jacobian below ``RANK_RTOL`` times the largest count as zero:
#: the rank of redundant or under-driven systems, their minimum-norm least-squares steps and
#: null spaces.
RANK_RTOL = 1e-9

# -- singular positions -------------------------------------------------------------------------
#: A square scaled Jacobian whose smallest singular value is below this fraction of its largest
#: marks a singular position (at a pose solved to 1e-10, a singular point shows as about 1e-5):
#: the sweeps' threshold, the velocity solve's SVD cut, the test for a simple crossing (one
#: singular value below it, the next above).
SINGULAR_RTOL = 1e-4
#: The reciprocal condition number (LAPACK's 1-norm estimate) of the scaled Jacobian above
#: which the velocity and acceleration equations are solved by LU, and above which a pose next
#: to a rank-deficient one counts as regular: ten times :data:`SINGULAR_RTOL`.
REGULAR_RCOND = 10 * SINGULAR_RTOL
#: Below this ``sigma_min / sigma_max`` a pose counts as near a singular position, where a
#: sweep insists on a continuous tangent (branches may cross there) and its derivatives are not
#: used for dense output.
NEAR_SINGULAR_RTOL = 0.05

# -- LU of the Newton step ----------------------------------------------------------------------
#: LU is not used on a scaled Jacobian whose reciprocal condition number is below this (the
#: Newton step is then the minimum-norm least-squares step).
RCOND_MIN = 1e-13
#: Rows of the scaled Jacobian have norm 1, so an LU whose smallest ``|U_ii|`` is above this
#: fraction of the largest is regular without a condition estimate (only below it is
#: ``dgecon`` asked).
PIVOT_RATIO_QUICK = 1e-6
#: A scaled LU step larger than this means the matrix is numerically singular (least squares
#: from then on).
HUGE_STEP = 1e8
#: Largest system for which the least-squares step and the rank analysis use a dense SVD (else
#: LSMR, and no rank analysis).
DENSE_LIMIT = 3000
#: Band LU is used while the band storage, ``2 kl + ku + 1`` numbers per unknown, is at most
#: this (a chain of planar loops needs 18, a chain of spatial loops 40).
BAND_MAX = 64
#: The batched small LU (:func:`~mechsolve.linalg.lu_solve`): smallest ratio of a pivot to
#: the largest entry of its column below it; each elimination step grows an entry by at most
#: ``1 + 1 / BATCH_PIVOT_MIN`` (partial pivoting: 2). Items below it are left to LAPACK.
BATCH_PIVOT_MIN = 0.1
#: The traced LU of an accelerator backend (:class:`~mechsolve.linalg.TracedStep`): an item
#: whose smallest ``|U_ii|`` is below this fraction of its largest (rows of norm 1) is near
#: where LAPACK's LU gives way to least squares (:data:`RCOND_MIN`), so the device does not
#: decide it (it is handed to the NumPy path).
TRACED_PIVOT_MIN = 1e-8

# -- consistency of least-squares solutions -----------------------------------------------------
#: A velocity or acceleration right-hand side whose part outside the range of the truncated
#: scaled Jacobian exceeds this fraction of its largest entry has no solution (next to a
#: singular point the dropped left vector is known only to about the distance from it, so the
#: part along it is noise below that; at a toggle it is of the order of the right-hand side).
CONSISTENT_RTOL = 1e-3
#: The same for a large sparse system, solved without an SVD: the largest residual of the
#: solution relative to the largest entry of the right-hand side.
SPARSE_CONSISTENT_RTOL = 1e-8
#: The same for the velocity equations with velocity-level goals, relative to the right-hand
#: side's largest entry or 1, whichever is larger.
GOALS_CONSISTENT_RTOL = 1e-9
#: ``|K J - I|_F`` below which ``det J`` has the sign of ``det K^-1`` (any bound below 1 is
#: exact: every eigenvalue of ``K J`` is then within that distance of 1); the margin covers
#: the round-off of the product (:func:`~mechsolve.linalg.det_signs`).
SAME_SIGN_BOUND = 0.9
#: A row whose weight (norm) in the left null space is above this takes part in a conflict
#: between equations (the joints named in messages).
NULL_WEIGHT_MIN = 1e-6
#: Floor of norms divided by (a zero row's norm when singular values alone are wanted).
TINY_NORM = 1e-300
