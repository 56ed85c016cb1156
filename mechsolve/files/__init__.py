"""Model files: a mechanism in a TOML file that people write by hand and diff.

:func:`load` (``ms.load(path)``) builds a mechanism from a file, :func:`save`
(``ms.save(mech, path)``) writes one; :func:`loads` and :func:`dumps` do the same with text.
:func:`load` also reads other formats, told apart by the file's suffix: SolveSpace sketches
(``.slvs``, :mod:`mechsolve.files._slvs`; :func:`loads_slvs` reads their text) and SDFormat
models (``.sdf``, :func:`mechsolve.robots.load_sdf_mechanism`, without drivers).

A model file holds a mechanism's bodies (with their placement: the state), its joints and
drivers (each a constructor call written out: ``type``, ``name`` and the constructor's
arguments by name, see :mod:`mechsolve.io._joint_codecs`), the drivers' motion profiles, the
end effectors with their targets, and named sweeps, in units declared once per file::

    mechsolve = 1                    # the format version
    name = "four-bar"
    dimension = 2                    # 2 (planar, the default) or 3 (spatial)

    [units]
    length = "mm"                    # a label: lengths are read and kept as written
    angle = "deg"                    # "rad" (the default) or "deg": every angle in this file

    [[bodies]]
    name = "crank"
    position = [50.0, 0.0]
    angle = 0.0                      # planar; a spatial body has orientation = [w, x, y, z]

    [[joints]]
    type = "Revolute"
    name = "O2"
    bodies = ["ground", "crank"]
    point1 = [0.0, 0.0]              # body-local points, as in joints.Revolute(...)
    point2 = [-50.0, 0.0]

    [[joints]]
    type = "Driver"
    name = "motor"
    body = "crank"
    coordinate = "angle"
    value = 0.0

    [[sweeps]]
    name = "turn"
    driver = "motor"
    values = { start = 0.0, stop = 360.0, num = 361 }     # or an array of values

Why TOML: it is the format of ``pyproject.toml`` that Python users already write; it has
comments, no significant indentation and a reader in the standard library (``tomllib``), and
it parses to plain tables, arrays, strings and numbers, so reading runs no code from the file.
(YAML has more pitfalls, such as ``no`` read as false and arbitrary-object tags.) The
published JSON Schema of the format is :data:`SCHEMA_PATH` (``model.schema.json`` here).

Lengths carry no unit in mechsolve: a file in millimetres gives a mechanism in millimetres,
and ``units.length`` is kept as a label (in :attr:`Mechanism.units`) for saving and for the
command line. Angles are radians in Python; a file with ``angle = "deg"`` has its angles in
degrees: body angles, the angle arguments of joints, the values, profiles and sweeps of angle
drivers. Spatial orientations are unit quaternions ``[w, x, y, z]`` (any non-zero multiple is
normalized) and a joint frame is a table ``{position = [...], orientation = [w, x, y, z]}``
or ``{position = [...], axis = [...]}`` (the frame's z axis, turned from the body's by the
smallest rotation), or a point ``[x, y, z]`` alone.

Saving writes the canonical form: keys in a fixed order, arguments equal to their constructor
default left out, angles in degrees rounded to 15 significant digits (so that ``30`` degrees
comes back as ``30.0``), other numbers exactly (the shortest text that reads back to the same
float). Loading a canonical file and saving it gives the same text; any file loads to a
mechanism whose saved form loads to the same mechanism.

Every fault of a file raises :class:`ModelFileError` (a ValueError) whose message names the
file, the key path (``joints[3].point1``, with the joint's type and name) or the line and
column of a syntax error, what was found and what was expected. A mechanism is only returned
whole: nothing is built from a file with a fault.

Reading is bounded whoever wrote the file: at most ``max_bytes`` bytes are read
(:data:`MAX_CHARACTERS` by default), numbers are finite and within :data:`MAX_MAGNITUDE`,
sweeps hold at most :data:`MAX_SWEEP_VALUES` values together, and expressions are checked
against the bounds of :mod:`mechsolve.io._expressions` before SymPy sees them, with at most
:data:`MAX_FILE_EQUATIONS` equations of joint types and :data:`MAX_FILE_TOKENS` expression
tokens per file. A file the model names (a robot's ``urdf``) is read only from the model
file's folder and below, symbolic links resolved, unless ``allow_paths`` names another place
(:func:`load`). Saving refuses what loading would refuse, so a saved file always loads.
"""

from ._formats import load
from ._reader import (
    MAX_CHARACTERS,
    MAX_FILE_EQUATIONS,
    MAX_FILE_TOKENS,
    SCHEMA_PATH,
    ModelFileError,
    loads,
)
from ._slvs import loads_slvs
from ._writer import (
    FORMAT_VERSION,
    MAX_MAGNITUDE,
    MAX_SWEEP_VALUES,
    NamedSweep,
    RobotEntry,
    dumps,
    save,
)

# documented (and pickled) under its public name, as ms.ModelFileError's home
ModelFileError.__module__ = __name__

__all__ = ["load", "loads", "loads_slvs", "save", "dumps", "ModelFileError", "NamedSweep",
           "RobotEntry",
           "FORMAT_VERSION", "SCHEMA_PATH", "MAX_CHARACTERS", "MAX_MAGNITUDE",
           "MAX_SWEEP_VALUES", "MAX_FILE_EQUATIONS", "MAX_FILE_TOKENS"]
