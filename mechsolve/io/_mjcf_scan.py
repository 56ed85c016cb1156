"""What an MJCF model reads besides itself, checked before MuJoCo's compiler sees it.

MuJoCo's compiler opens the files a model names (``<include file>``, ``<mesh file>``,
``<texture file>``, ``<hfield file>``, ``<skin file>``, ``<model file>``, ...) relative to the
main file's folder and the ``<compiler meshdir texturedir assetdir>`` folders, and its
messages quote what it found there. :func:`scan` reads the main text and, recursively, every
included file (each read at most up to the byte limit left), and refuses, naming the file,
line, element and attribute:

* a named file outside the model's folder, or outside the places the caller allows, symbolic
  links resolved (:func:`mechsolve.io._files.confine`; the message is the same whether or not
  it exists, and nothing outside is opened);
* includes nested more than :data:`MAX_INCLUDE_DEPTH` deep, more than
  :data:`MAX_INCLUDED_FILES` of them, or more bytes in all than the limit;
* a number that is not finite (``nan``, ``inf``) in an attribute of numbers: MuJoCo compiles
  it with a warning, and the mechanism would carry it;
* a document type declaration (MJCF has none; the XML parsers of MuJoCo and of Python treat
  its entities differently) and XML that is not well-formed.

It imports neither MuJoCo nor the rest of mechsolve.
"""

from __future__ import annotations

import math
import os
import xml.parsers.expat as expat

from ._files import confine, read_bytes

__all__ = ["scan", "MAX_INCLUDE_DEPTH", "MAX_INCLUDED_FILES"]

#: Deepest nesting of ``<include>`` (and ``<model file>``) elements.
MAX_INCLUDE_DEPTH = 16
#: Most files a model includes, all levels together.
MAX_INCLUDED_FILES = 256
#: The ``<compiler>`` attributes naming folders that other file names are taken from.
_DIRS = ("meshdir", "texturedir", "assetdir")
#: Attributes that hold names, never numbers (a body named "nan" is a name).
_NAME_ATTRIBUTES = frozenset((
    "name", "class", "childclass", "model", "prefix", "content_type", "key", "plugin",
    "instance", "joint", "joint1", "joint2", "jointinparent", "body", "body1", "body2", "site",
    "site1", "site2", "geom", "geom1", "geom2", "mesh", "material", "texture", "hfield",
    "tendon", "tendon1", "tendon2", "actuator", "target", "objname", "objtype", "refsite",
    "slidersite", "cranksite", "sidesite", "camera", "light", "flex", "skin", "reftype",
    "refname", "type", "mode", "source", "user"))


class _Scan:
    def __init__(self, base: str, allow: tuple, limit: int, used: int) -> None:
        self.base = base
        self.allow = allow
        self.limit = limit
        self.left = limit - used        # bytes that may still be read
        self.files = 0
        self.dirs = [""]               # the folders file names are taken from
        self.files_named = []           # (where, line, element, attribute, value)

    def text(self, data: bytes, where: str, depth: int) -> None:
        """Scan one MJCF text (the main one or an included one)."""
        found = []
        parser = expat.ParserCreate()

        def start(tag, attrs):
            found.append((tag, attrs, parser.CurrentLineNumber))

        def doctype(*_):
            raise ValueError(f"{where}: line {parser.CurrentLineNumber}: a document type "
                             "declaration (<!DOCTYPE ...>), which MJCF does not use")

        parser.StartElementHandler = start
        parser.StartDoctypeDeclHandler = doctype
        try:
            parser.Parse(data, True)
        except expat.ExpatError as err:
            raise ValueError(f"{where}: not well-formed XML: {err}") from None
        for tag, attrs, line in found:
            at = f"{where}: line {line}: <{tag}>"
            for key, value in attrs.items():
                if key in _DIRS and tag == "compiler":
                    self.folder(value, f"{at} {key}={value!r}")
                elif key.startswith("file"):
                    self.files_named.append((f"{at} {key}={value!r}", value))
                    if tag == "include" and key == "file":
                        self.include(value, f"{at} {key}={value!r}", depth)
                    elif tag == "model" and key == "file":
                        # an MJCF asset: MuJoCo may take it from the asset folders too
                        for d in self.dirs:
                            name = os.path.join(d, value)
                            if os.path.isfile(confine(name, self.base, self.allow) or ""):
                                self.include(name, f"{at} {key}={value!r}", depth)
                elif key not in _NAME_ATTRIBUTES:
                    _finite(value, f"{at} {key}={value!r}")

    def folder(self, value: str, at: str) -> None:
        if confine(value, self.base, self.allow) is None:
            raise ValueError(f"{at}: outside the model's folder; an MJCF model is read only "
                             "with files in its folder and below (allow_paths=[...] allows "
                             "other places)")
        self.dirs.append(value)

    def include(self, value: str, at: str, depth: int) -> None:
        path = confine(value, self.base, self.allow)
        if path is None:
            raise ValueError(f"{at}: outside the model's folder; an MJCF model may include "
                             "only files in its folder and below (allow_paths=[...] allows "
                             "other places)")
        if depth >= MAX_INCLUDE_DEPTH:
            raise ValueError(f"{at}: includes nested more than {MAX_INCLUDE_DEPTH} deep")
        self.files += 1
        if self.files > MAX_INCLUDED_FILES:
            raise ValueError(f"{at}: more than {MAX_INCLUDED_FILES} included files")
        try:
            data = read_bytes(path, self.left)
        except OSError as exc:
            raise ValueError(f"{at}: cannot be read ({exc.strerror or exc})") from None
        if len(data) > self.left:
            raise ValueError(f"{at}: the model and its included files have more than "
                             f"{self.limit} bytes (max_bytes=...)")
        self.left -= len(data)
        self.text(data, f"MJCF file {value!r} (included)", depth + 1)

    def check_files(self) -> None:
        """Every named file, taken from each folder it may be read from, inside."""
        for at, value in self.files_named:
            for d in self.dirs:
                name = value if os.path.isabs(value) else os.path.join(d, value)
                if confine(name, self.base, self.allow) is None:
                    raise ValueError(f"{at}: outside the model's folder; an MJCF model is "
                                     "read only with files in its folder and below "
                                     "(allow_paths=[...] allows other places)")


def _finite(value: str, at: str) -> None:
    """Refuse an attribute of numbers with one that is not finite."""
    parts = value.split()
    if not parts or len(parts) > 64:
        return
    try:
        numbers = [float(p) for p in parts]
    except ValueError:
        return                                      # not numbers: a keyword, a name
    if not all(math.isfinite(x) for x in numbers):
        raise ValueError(f"{at}: a number that is not finite")


def scan(data: bytes, where: str, base, allow: tuple, limit: int) -> None:
    """Check the MJCF text ``data`` (``where`` names it in messages) and what it includes,
    file names taken from the folder ``base``; ValueError naming the file, line, element and
    attribute at fault (see the module's docstring). ``limit`` bounds the bytes of ``data``
    and of every included file together."""
    s = _Scan(os.path.abspath(os.fspath(base)), allow, limit, len(data))
    s.text(data, where, 0)
    s.check_files()
