"""Reading the files of descriptions: bounded in size, and confined to a folder where one
description names another.

* :func:`read_bytes` reads at most a given number of bytes (and one more, to tell a file that
  is too long), without blocking on a named pipe and without first asking the file's size,
  so ``/dev/zero`` or a growing file is refused after ``limit + 1`` bytes;
* :func:`confine` takes a file name written in a description (a model file's ``urdf``, an MJCF
  ``<include file>``) to a path inside the description's folder, or one of the places the
  caller allows, or refuses it. The refusal is the same whether the named file exists or not,
  and nothing outside the allowed places is opened.

This module imports nothing of mechsolve: the URDF reader builds on it.
"""

from __future__ import annotations

import os
import pathlib
import stat

__all__ = ["read_bytes", "confine", "allowed_roots"]

_CHUNK = 1 << 20


def read_bytes(path, limit: int) -> bytes:
    """The first ``limit + 1`` bytes of the file ``path`` at most (a result longer than
    ``limit`` says the file is too long; the rest is never read).

    Raises OSError where the file cannot be opened or read, IsADirectoryError for a folder.
    A named pipe is opened without waiting for a writer.
    """
    nonblock = getattr(os, "O_NONBLOCK", 0)         # POSIX: open a pipe without a writer
    fd = os.open(os.fspath(path), os.O_RDONLY | getattr(os, "O_BINARY", 0) | nonblock)
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(21, "Is a directory", os.fspath(path))
        if nonblock:
            os.set_blocking(fd, True)       # a pipe with a writer: wait for its data
        chunks, n = [], 0
        while n <= limit:
            data = os.read(fd, min(_CHUNK, limit + 1 - n))
            if not data:
                break
            chunks.append(data)
            n += len(data)
        return b"".join(chunks)
    finally:
        os.close(fd)


def allowed_roots(allow_paths) -> tuple:
    """``allow_paths`` (None, one path or a sequence of paths) as a tuple of absolute paths;
    TypeError naming the argument for anything else."""
    if allow_paths is None:
        return ()
    items = [allow_paths] if isinstance(allow_paths, str | os.PathLike) else allow_paths
    try:
        items = list(items)
    except TypeError:
        raise TypeError(f"allow_paths must be a path or a sequence of paths, got "
                        f"{type(allow_paths).__name__}") from None
    out = []
    for p in items:
        if not isinstance(p, str | os.PathLike) or not os.fspath(p):
            raise TypeError(f"allow_paths must hold paths (str or os.PathLike), got "
                            f"{type(p).__name__} {p!r}")
        out.append(os.path.abspath(os.fspath(p)))
    return tuple(out)


def _inside(path: str, root: str) -> bool:
    try:
        return os.path.commonpath([path, root]) == root
    except ValueError:                  # other drives (Windows), relative and absolute
        return False


def confine(name: str, base, allow: tuple = ()) -> pathlib.Path | None:
    """The path of the file ``name`` that a description in the folder ``base`` refers to, if
    it lies inside ``base`` or inside one of ``allow`` (absolute paths, see
    :func:`allowed_roots`); ``None`` if not.

    A relative ``name`` is taken from ``base``; an absolute one is only allowed inside
    ``allow`` (or ``base``). The check is made twice: on the text of the path (``..``
    removed), before anything is looked up, and on the path with its symbolic links
    resolved, so that neither ``../secret`` nor a link to outside gets out. Whether ``None``
    comes back does not depend on whether the file exists.
    """
    if not name or "\0" in name:
        return None
    base = os.path.abspath(os.fspath(base))
    p = name if os.path.isabs(name) else os.path.join(base, name)
    lexical = os.path.normpath(os.path.abspath(p))
    roots = (base, *allow)
    if not any(_inside(lexical, os.path.normpath(r)) for r in roots):
        return None
    real = os.path.realpath(lexical)
    if not any(_inside(real, os.path.realpath(r)) for r in roots):
        return None
    return pathlib.Path(lexical)
