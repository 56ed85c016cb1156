"""Degrees of freedom: Gruebler count, rank-based mobility, redundant equations, conflicts."""

from __future__ import annotations

import numpy as np

from .._result import CONVERGED, Result
from ..joints.base import DriverJoint
from ..linalg import independent_rows
from ..solver import DENSE_ANALYSIS_LIMIT, RedundantEquation, status_of
from ._named_motions import FreeMotions, _scaled_jacobian, named_free_motions

__all__ = ["DofReport", "dof_report"]


class DofReport(Result):
    """Degrees-of-freedom report of a mechanism at its current pose (a
    :class:`~mechsolve.Result`: a dict with attribute access).

    Attributes
    ----------
    success : bool
        True: the rank analysis was made (a mechanism too large for it raises ValueError).
    status : int
        ``0`` (:class:`mechsolve.Status`).
    message : str
        The mobility and what the drivers leave free, in words.
    iterations : int
        0: a rank analysis, no iteration.
    residual, residual_abs : float
        Largest residual at the pose analysed, every equation in its unit (lengths in the
        model's size) and in the equations' own units: a rank at a pose that is not assembled
        says little.
    rank_status : str
        The rank verdict with the drivers, as a solve reports it: ``"regular"``,
        ``"redundant"``, ``"underdetermined"`` or ``"redundant, underdetermined"``.
    n : int
        Coordinates (increment components).
    dof : int
        Mobility from the rank of the constraint Jacobian (drivers excluded): ``n - rank``.
    gruebler : int
        Gruebler–Kutzbach count ``3 * bodies - equations`` (``6 * bodies`` in space), drivers
        excluded.
    rank : int
        Rank of the constraint Jacobian at this pose.
    redundant : list of RedundantEquation
        Constraint equations that depend on earlier ones (in joint order) at this pose.
    drivers : int
        Number of driver equations.
    free : int
        Degrees of freedom left free by the drivers (``n - rank`` of all equations).
    driver_conflicts : list of RedundantEquation
        Driver equations that depend on the constraints or on earlier drivers.
    free_motions : FreeMotions
        The ``free`` motions left by the drivers, named: ``free_motions.labels`` says in words
        which bodies move and how (see :meth:`Mechanism.free_motions`).

    Examples
    --------
    >>> import mechsolve as ms
    >>> model = ms.models.five_bar()          # two degrees of freedom, one driver
    >>> print(model.mechanism.dof())
    coordinates          12
    Gruebler count       2
    mobility (rank)      2   (constraint rank 10)
    drivers              1
    free after drivers   1
    free motions (the drivers held):
      1. b turns about (0, 1) at its joint with a; c turns about (3.09, 2);
         d turns about (3, 0) at its joint with ground
    """

    def __init__(self, *, n, gruebler, rank, redundant, drivers, free, driver_conflicts,
                 free_motions=None, residual=0.0, residual_abs=0.0):
        super().__init__()
        self.success = True
        self.status = CONVERGED
        self.message = (f"{n - rank} degree{'s' if n - rank != 1 else ''} of freedom, {free} "
                        "left free by the drivers")
        self.iterations = 0
        self.residual = residual
        self.residual_abs = residual_abs
        self.rank_status = status_of(list(redundant) + list(driver_conflicts), free)
        self.n = n
        self.gruebler = gruebler
        self.rank = rank
        self.dof = n - rank
        self.redundant = redundant
        self.drivers = drivers
        self.free = free
        self.driver_conflicts = driver_conflicts
        self.free_motions = FreeMotions(np.zeros((0, n))) if free_motions is None \
            else free_motions

    def __repr__(self) -> str:
        return (f"DofReport(dof={self.dof}, gruebler={self.gruebler}, "
                f"redundant={len(self.redundant)}, drivers={self.drivers}, free={self.free})")

    def __str__(self) -> str:
        lines = [
            f"coordinates          {self.n}",
            f"Gruebler count       {self.gruebler}",
            f"mobility (rank)      {self.dof}   (constraint rank {self.rank})",
            f"drivers              {self.drivers}",
            f"free after drivers   {self.free}",
        ]
        if len(self.free_motions):
            lines.append("free motions (the drivers held):")
            lines += [f"  {i + 1}. {label}" for i, label in
                      enumerate(self.free_motions.labels)]
        if self.redundant:
            lines.append(f"redundant equations  {len(self.redundant)}:")
            lines += [f"  {r!r}" for r in self.redundant]
        if self.driver_conflicts:
            lines.append("drivers that conflict with the constraints or other drivers:")
            lines += [f"  {r!r}" for r in self.driver_conflicts]
        return "\n".join(lines)


def dof_report(mech) -> DofReport:
    n = mech.n_dof_coordinates
    constraints = [j for j in mech.joints if not isinstance(j, DriverJoint)]
    n_drivers = sum(j.n_equations for j in mech.joints if isinstance(j, DriverJoint))
    gruebler = n - sum(j.n_equations for j in constraints)
    if not mech.joints:
        return DofReport(n=n, gruebler=n, rank=0, redundant=[], drivers=0, free=n,
                         driver_conflicts=[])
    sys = mech.system()
    if n > DENSE_ANALYSIS_LIMIT:
        raise ValueError(f"the rank-based DOF report needs a dense analysis and is limited to "
                         f"{DENSE_ANALYSIS_LIMIT} coordinates; this mechanism has {n}")
    phi, vals = sys.evaluate(mech.state_view)
    J_all = sys.jacobian_dense(vals)
    J = _scaled_jacobian(sys, J_all)   # ranks alike in micrometres and kilometres
    is_driver = np.zeros(sys.m, dtype=bool)
    for i, j in enumerate(sys.joints):
        if isinstance(j, DriverJoint):
            is_driver[sys.row_starts[i]:sys.row_starts[i + 1]] = True
    c_rows = np.flatnonzero(~is_driver)
    d_rows = np.flatnonzero(is_driver)
    rank_c, dep_c = independent_rows(J[c_rows])
    rank_all, dep_all = independent_rows(J[np.concatenate([c_rows, d_rows])])
    order = np.concatenate([c_rows, d_rows])
    redundant = [RedundantEquation(*sys.row_owner(int(c_rows[i]))) for i in dep_c]
    conflicts = [RedundantEquation(*sys.row_owner(int(order[i]))) for i in dep_all
                 if i >= len(c_rows)]
    motions = named_free_motions(mech, J_all) if rank_all < n else None
    return DofReport(n=n, gruebler=gruebler, rank=rank_c, redundant=redundant,
                     drivers=n_drivers, free=n - rank_all, driver_conflicts=conflicts,
                     free_motions=motions,
                     residual=float(np.max(np.abs(phi) / sys.eq_scale, initial=0.0)),
                     residual_abs=float(np.max(np.abs(phi), initial=0.0)))
