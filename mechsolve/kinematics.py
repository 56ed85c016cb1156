"""Velocity and acceleration analysis, time-driven motion, and free motions.

After a position solve at time ``t`` the velocities ``nu`` and accelerations ``nudot`` of all
bodies follow exactly from the same Jacobian::

    Phi_q nu = -Phi_t          Phi_q nudot = gamma - Phi_tt     (gamma = -(dPhi_q/dt) nu)

Here ``nu`` lives in the increment space of the state: per planar body ``(xdot, ydot,
thetadot)``, per spatial body ``(v, omega)`` with the origin's velocity and the angular velocity,
both in global coordinates; ``nudot`` likewise holds ``(a, alpha)``. Only drivers depend on time
(through their :mod:`~mechsolve.profiles`), and joints whose Phi depends explicitly on time
(symbolic joints declared with a time symbol: their ``_phi_t`` and ``_gamma`` kernels carry the
time terms).

Free motions: :func:`free_motions` is the null space of the full Jacobian (what the drivers
leave free, to first order); :func:`free_motion_path` follows one of them with every
constraint satisfied (continuation in the tangent-space chart at the start pose), and
:func:`wiggle_free_motions` moves along each in turn, as :func:`mechsolve.plot.animate_free_motions`
shows.

The code lives in :mod:`mechsolve.analysis` (:mod:`~mechsolve.analysis.rates`,
:mod:`~mechsolve.analysis.timed`, :mod:`~mechsolve.analysis.free_motion`); this module
keeps the names importable from here.
"""

from .analysis.free_motion import (  # noqa: F401
    MAX_WIGGLE_ROTATION,
    WIGGLE_FRACTION,
    FreeMotion,
    _Chart,
    free_motion_amplitude,
    free_motion_path,
    free_motions,
    wiggle_free_motions,
)
from .analysis.rates import (  # noqa: F401
    _cached,
    _check_assembled,
    _solve_linear,
    _store_velocity,
    acceleration,
    point_acceleration,
    point_velocity,
    velocity,
)
from .analysis.timed import _branch_velocity, time_sweep  # noqa: F401

__all__ = ["velocity", "acceleration", "time_sweep", "free_motions", "point_velocity",
           "point_acceleration", "FreeMotion", "free_motion_path", "free_motion_amplitude",
           "wiggle_free_motions"]
