"""``ms.load(path)``: a model file read by the reader of its format, chosen by its suffix.

* ``.slvs`` -- a SolveSpace sketch (:mod:`mechsolve.files._slvs`);
* ``.sdf`` -- an SDFormat model (:func:`mechsolve.robots.load_sdf_mechanism`; the
  mechanism has no drivers: add them to its joints, named as in the file);
* anything else -- a mechsolve model file (TOML, :mod:`mechsolve.files._reader`).
"""

from __future__ import annotations

import os
import pathlib

from ..io._files import read_bytes
from ..io.sdf import MAX_CHARACTERS as _SDF_BYTES
from ..io.slvs import MAX_CHARACTERS as _SLVS_BYTES
from ..robots.sdf import load_sdf_mechanism
from ._reader import MAX_CHARACTERS, ModelFileError
from ._reader import load as _load_toml
from ._slvs import load_slvs

__all__ = ["load"]


def load(path, *, allow_paths=None, max_bytes: int | None = None):
    """Build a mechanism from a file: a mechsolve model file (TOML), a SolveSpace sketch
    (``.slvs``) or an SDFormat model (``.sdf``), told apart by the file's suffix.

    ``ms.load(path)`` is this function. See :mod:`mechsolve.files` for model files,
    ``docs/format_slvs.md`` and ``docs/format_sdf.md`` for the others.

    Parameters
    ----------
    path : path-like
    allow_paths : path-like or sequence of path-likes, optional
        Folders (or files) outside the file's folder that it may refer to (model files
        only: a sketch refers to no other file).
    max_bytes : int, optional
        Longest file read, in bytes (default: :data:`mechsolve.files.MAX_CHARACTERS` for a
        model file, :data:`mechsolve.io.slvs.MAX_CHARACTERS` for a sketch); reading stops
        after ``max_bytes + 1`` bytes.

    Raises
    ------
    ModelFileError
        (a ValueError) naming the file and what is at fault in it.
    TypeError
        For ``allow_paths`` or ``max_bytes`` of the wrong type.

    Examples
    --------
    >>> import pathlib, tempfile
    >>> import mechsolve as ms
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "fourbar.toml"
    >>> ms.save(ms.models.fourbar().mechanism, path)
    >>> [b.name for b in ms.load(path).bodies]
    ['crank', 'coupler', 'rocker']

    A SolveSpace sketch (``.slvs``) or an SDFormat model (``.sdf``) loads the same way; see
    the pages of the user guide on each.
    """
    suffix = pathlib.Path(os.fspath(path)).suffix.lower()
    if max_bytes is not None and (isinstance(max_bytes, bool) or not isinstance(max_bytes, int)
                                  or max_bytes < 1):
        raise TypeError(f"max_bytes must be a positive int, got {type(max_bytes).__name__} "
                        f"{max_bytes!r}")
    if suffix == ".slvs":
        return load_slvs(path, max_bytes=max_bytes or _SLVS_BYTES)
    if suffix == ".sdf":
        return _load_sdf(path, max_bytes or _SDF_BYTES)
    return _load_toml(path, allow_paths=allow_paths, max_bytes=max_bytes or MAX_CHARACTERS)


def _load_sdf(path, limit: int):
    """The mechanism of an SDF model (no drivers: add them to the joints by name)."""
    source = repr(str(path))
    try:
        data = read_bytes(pathlib.Path(os.fspath(path)), limit)
    except IsADirectoryError:
        raise ModelFileError(f"SDF file {source}: is a directory, not a file") from None
    except OSError as exc:
        raise ModelFileError(f"SDF file {source}: cannot be read ({exc.strerror or exc})") \
            from None
    if len(data) > limit:
        raise ModelFileError(f"SDF file {source}: more than {limit} bytes (load(path, "
                             "max_bytes=...) reads longer files)")
    try:
        return load_sdf_mechanism(data).mechanism
    except ValueError as exc:
        text = str(exc)
        if text.startswith("SDF:"):
            text = f"SDF file {source}:" + text[4:]
        raise ModelFileError(text) from None
