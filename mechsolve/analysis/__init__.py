"""Analysis of a mechanism on the Newton core: degrees of freedom, assembly, sweeps, batches,
velocities and accelerations, time-driven motion and free motions.

The rooms, lower ones first (a room imports only those before it): :mod:`.motion` (the
``Motion`` result), ``_named_motions`` (free motions named in words), :mod:`.dof`,
:mod:`.batch` (many variants at once), :mod:`.continuation`
(sweeps), :mod:`.assembly` (from a rough sketch, goals, other branches), :mod:`.pipeline` (the
stages of one solve, in order), :mod:`.rates` (velocities,
accelerations), :mod:`.measures` (transmission angle, mechanical advantage, Grashof class,
rotation range; ``Motion`` delegates to it), :mod:`.timed` (time sweeps) and
:mod:`.free_motion`.
"""

from .._deprecated import moved_function as _moved_function
from ._named_motions import FreeMotions, MotionPart, NamedMotion
from .assembly import assemble, assemble_branch, closest_to_goals
from .batch import BatchResult, batch_newton, solve_batch
from .continuation import (
    COARSE_TOL,
    CROSSING_STEP,
    NEAR_SINGULAR_RTOL,
    SINGULAR_RTOL,
    sweep,
)
from .dof import DofReport, dof_report
from .free_motion import (
    FreeMotion,
    free_motion_amplitude,
    free_motion_path,
    free_motions,
    wiggle_free_motions,
)
from .measures import (
    RotationRange,
    fourbar_loops,
    grashof,
    mechanical_advantage,
    rotation_range,
    transmission_angle,
)
from .motion import Motion
from .pipeline import solve_pose
from .rates import acceleration, point_acceleration, point_velocity, velocity
from .timed import sweep_time

#: Deprecated: ``ms.analysis.time_sweep`` is :func:`sweep_time` (one name per concept, as
#: :meth:`Mechanism.sweep_time <mechsolve.Mechanism.sweep_time>`), until 0.3.
time_sweep = _moved_function("mechsolve.analysis.time_sweep", "mechsolve.analysis.sweep_time",
                             "ms.analysis.time_sweep(mech, times)",
                             "ms.analysis.sweep_time(mech, times)")

__all__ = ["DofReport", "Motion", "FreeMotion", "FreeMotions", "NamedMotion", "MotionPart",
           "BatchResult", "dof_report", "sweep",
           "solve_batch", "solve_pose", "batch_newton", "assemble", "assemble_branch",
           "closest_to_goals",
           "velocity", "acceleration", "point_velocity", "point_acceleration", "sweep_time",
           "free_motions", "free_motion_path", "free_motion_amplitude", "wiggle_free_motions",
           "grashof", "fourbar_loops", "transmission_angle", "mechanical_advantage",
           "rotation_range", "RotationRange", "SINGULAR_RTOL", "NEAR_SINGULAR_RTOL", "COARSE_TOL",
           "CROSSING_STEP"]
