"""Loop sidecars: the YAML files that close the loops of a URDF tree, read into plain data.

Two sidecar formats are read (PyYAML needed: ``pip install 'mechsolve[yaml]'``; only its
``safe_load``, so no YAML tag builds an object):

* **Gepetto's Extended URDF** (``robot.yaml`` next to ``robot.urdf``, as Gepetto's
  example-parallel-robots ``completeRobotLoader`` and toolbox-parallel-robots read it)::

      closed_loop: [['frame_A', 'frame_B'], ...]   # two frames held together, per closure
      type: ['3d', '6d', ...]                      # 3d: their origins; 6d: the whole frames
      name_mot: ['motor_joint', ...]               # the actuated joints
      joint_name: ['j', ...]                       # optional: tree joints retyped ...
      joint_type: ['SPHERICAL' | 'FIXED', ...]     # ... as spherical, or fixed at 0

  A frame is a link (its frame) or a joint (its child link's frame), as Pinocchio names
  frames. ``type`` defaults to ``6d`` (as the loader's), ``UJOINT_*`` retypings are refused.
* **scikit-robot's** ``loop_closures.yaml`` (``RobotAssembly.build`` writes it)::

      closures:
      - {link_a: a, link_b: b, point: [x, y, z], axis: [ax, ay, az]}
      dependent: [...]       # the joints solved
      independent: [...]     # the joints driven

  each closure a hinge on the line through ``point`` along ``axis``, both in the root link's
  frame at the zero pose (every joint value 0).

:func:`read_sidecar` returns a :class:`Sidecar`; what the names mean is checked by the builder
(:func:`mechsolve.robots.load_urdf_mechanism`), against the URDF. Faults are ValueErrors that
start with ``sidecar '<path>':`` and name the key; a file is read up to :data:`MAX_BYTES`.
"""

from __future__ import annotations

import math
import pathlib
from typing import NamedTuple

from ._files import read_bytes

__all__ = ["Sidecar", "read_sidecar", "MAX_BYTES", "MAX_MAGNITUDE"]

#: Longest sidecar read, in bytes (a sidecar is a few lines).
MAX_BYTES = 2**20
#: Bound on the magnitude of a sidecar's numbers (metres), as URDF's.
MAX_MAGNITUDE = 1e6
_RETYPES = ("SPHERICAL", "FIXED")


class Sidecar(NamedTuple):
    """A loop sidecar as plain data.

    Attributes
    ----------
    format : str
        ``"gepetto"`` or ``"skrobot"``.
    closures : list of tuple
        Gepetto: ``(frame A, frame B, "3d" | "6d")``; scikit-robot: ``(link a, link b, point
        (3,), axis (3,))``.
    actuated : list of str
        ``name_mot``, or ``independent``.
    retyped : dict
        Tree joint name -> ``"SPHERICAL"`` or ``"FIXED"`` (Gepetto's ``joint_name`` /
        ``joint_type``).
    """

    format: str
    closures: list
    actuated: list
    retyped: dict


class _SidecarError(ValueError):
    pass


def _yaml():
    try:
        import yaml  # the optional dependency, when a sidecar is read
    except ImportError as err:                    # pragma: no cover - depends on the install
        raise ModuleNotFoundError("reading a loop sidecar (YAML) needs PyYAML: pip install "
                                  "'mechsolve[yaml]' (or pip install pyyaml)") from err
    return yaml


def _shown(value) -> str:
    """A short account of a YAML value: a scalar's text (cut), else its type and length;
    never the whole of a nested value (an alias "bomb" expands to billions of items)."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return repr(value)[:60]
    try:
        return f"a {type(value).__name__} of {len(value)} items"
    except TypeError:
        return f"a {type(value).__name__}"


def _names(value, key: str) -> list:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise _SidecarError(f"{key} must be a list of names, got {_shown(value)}")
    return list(value)


def _vector(value, key: str) -> tuple:
    if not isinstance(value, list) or len(value) != 3 or not all(
            isinstance(v, (int, float)) and not isinstance(v, bool) for v in value):
        raise _SidecarError(f"{key} must be a list of 3 numbers, got {_shown(value)}")
    if not all(math.isfinite(v) and abs(v) <= MAX_MAGNITUDE for v in value):
        raise _SidecarError(f"{key} is {_shown(value)}: every number must be finite and at "
                            f"most {MAX_MAGNITUDE:g} in magnitude")
    return tuple(float(v) for v in value)


def read_sidecar(path) -> Sidecar:
    """The loop sidecar at ``path`` (Gepetto's Extended URDF YAML, or scikit-robot's
    ``loop_closures.yaml``, told apart by their keys).

    Raises
    ------
    ValueError
        ``sidecar '<path>': ...`` naming the key at fault: YAML that does not parse, a
        document that is no mapping or has neither ``closed_loop`` nor ``closures``, a
        value of the wrong shape, a number that is not finite or beyond
        :data:`MAX_MAGNITUDE`, a constraint type other than 3d / 6d, a retyping other than
        SPHERICAL / FIXED, a file longer than :data:`MAX_BYTES`.
    OSError
        Where the file cannot be read.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> from mechsolve.io.urdf_sidecars import read_sidecar
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "robot.yaml"
    >>> _ = path.write_text("closed_loop: [['a_end', 'b_end']]\\ntype: ['3d']\\n"
    ...                     "name_mot: ['motor']\\n")
    >>> read_sidecar(path)
    Sidecar(format='gepetto', closures=[('a_end', 'b_end', '3d')], actuated=['motor'], retyped={})
    """
    path = pathlib.Path(path)
    where = f"sidecar {str(path)!r}"
    data = read_bytes(path, MAX_BYTES)
    if len(data) > MAX_BYTES:
        raise ValueError(f"{where}: longer than {MAX_BYTES} bytes (a loop sidecar is a few "
                         "lines)")
    yaml = _yaml()
    try:
        doc = yaml.safe_load(data)
    except yaml.YAMLError as err:
        raise ValueError(f"{where}: not YAML: {str(err)[:200]}") from None
    except (RecursionError, ValueError, TypeError) as err:
        raise ValueError(f"{where}: not YAML: {type(err).__name__}") from None
    try:
        return _read(doc)
    except _SidecarError as err:
        raise ValueError(f"{where}: {err}") from None


def _read(doc) -> Sidecar:
    if not isinstance(doc, dict):
        raise _SidecarError(f"expected a mapping with closed_loop (Gepetto) or closures "
                            f"(scikit-robot), got {type(doc).__name__}")
    if "closed_loop" in doc:
        pairs = doc["closed_loop"]
        if not isinstance(pairs, list) or not all(
                isinstance(p, list) and len(p) == 2 and all(isinstance(n, str) and n
                                                           for n in p) for p in pairs):
            raise _SidecarError(f"closed_loop must be a list of [frame, frame] pairs, got "
                                f"{_shown(pairs)}")
        types = doc.get("type", ["6d"] * len(pairs))
        if not isinstance(types, list) or len(types) != len(pairs):
            raise _SidecarError(f"type must be a list of one constraint type per closed_loop "
                                f"pair ({len(pairs)}), got {_shown(types)}")
        kinds = []
        for t in types:
            if not isinstance(t, str) or t.lower() not in ("3d", "6d"):
                raise _SidecarError(f"type {_shown(t)} is no constraint type; expected 3d "
                                    "(origins held together) or 6d (frames held together)")
            kinds.append(t.lower())
        actuated = _names(doc.get("name_mot", []), "name_mot")
        names = _names(doc.get("joint_name", []), "joint_name")
        retypes = doc.get("joint_type", [])
        if not isinstance(retypes, list) or len(retypes) != len(names):
            raise _SidecarError(f"joint_type must list one type per joint_name "
                                f"({len(names)}), got {_shown(retypes)}")
        for n, t in zip(names, retypes):
            if t not in _RETYPES:
                raise _SidecarError(f"joint_type {_shown(t)} of joint {n!r}: only "
                                    f"{' and '.join(_RETYPES)} are read (a universal joint "
                                    "UJOINT_* is not)")
        return Sidecar("gepetto", [(a, b, k) for (a, b), k in zip(pairs, kinds)], actuated,
                       dict(zip(names, retypes)))
    if "closures" in doc:
        items = doc["closures"]
        if not isinstance(items, list) or not items:
            raise _SidecarError(f"closures must be a non-empty list, got {_shown(items)}")
        closures = []
        for i, c in enumerate(items, 1):
            if not isinstance(c, dict):
                raise _SidecarError(f"closure {i} must be a mapping with link_a, link_b, point "
                                    f"and axis, got {_shown(c)}")
            for key in ("link_a", "link_b"):
                if not isinstance(c.get(key), str) or not c.get(key):
                    raise _SidecarError(f"closure {i}: {key} must be a link name, got "
                                        f"{_shown(c.get(key))}")
            point = _vector(c.get("point"), f"closure {i}: point")
            axis = _vector(c.get("axis"), f"closure {i}: axis")
            if max(abs(v) for v in axis) == 0.0:
                raise _SidecarError(f"closure {i}: axis is zero")
            closures.append((c["link_a"], c["link_b"], point, axis))
        _names(doc.get("dependent", []), "dependent")
        return Sidecar("skrobot", closures, _names(doc.get("independent", []), "independent"),
                       {})
    keys = ", ".join(_shown(k) for k in list(doc)[:8])
    raise _SidecarError(f"expected the key closed_loop (Gepetto's Extended URDF) or closures "
                        f"(scikit-robot's loop_closures.yaml), got keys {keys}")
