"""The compiled planar kernels, printed from the joint classes' ``_terms`` (written once).

:func:`kernel_source` runs each supported class's ``_terms(xp, P, *X, jacobian=True)`` on a
tiny expression recorder (:class:`_Rec`): every arithmetic operation and every ``xp.cos`` /
``xp.sin`` the kernel performs becomes one line ``tK = ...`` of scalar Python, in the order the
kernel performs it and with the same operands, so that the compiled function evaluates each
entry with the same floating-point operations as NumPy's vectorized call (a value computed once
in the kernel is computed once here: the recorder is its own common-subexpression
elimination). Parameters are read as ``P[o + k]`` (``k`` the index ``cls.sl`` gives), poses as
``X[b, c]`` (``b`` the body of the slot, ground a row of zeros).

:func:`module_source` prints the module :mod:`mechsolve._compiled._planar_kernels`: one function
per class and the table-driven :func:`evaluate` that calls them by type code. The module is
committed; ``tests/test_compiled_mech.py`` regenerates it and compares (run
``python -m mechsolve._compiled._codegen`` to rewrite it after a kernel changes).

Examples
--------
>>> from mechsolve import joints
>>> print(kernel_source(joints.AngleDriver, "k"))  # doctest: +NORMALIZE_WHITESPACE
def k(P, o, X, b1, b2, F, r, J, c1, c2, jac):
    t0 = X[b2, 2] - X[b1, 2]
    t1 = t0 - P[o + 0]
    F[r + 0] = t1
    if jac:
        if c1 >= 0:
            J[r + 0, c1 + 0] = 0.0
            J[r + 0, c1 + 1] = 0.0
            J[r + 0, c1 + 2] = -1.0
        if c2 >= 0:
            J[r + 0, c2 + 0] = 0.0
            J[r + 0, c2 + 1] = 0.0
            J[r + 0, c2 + 2] = 1.0
"""

from __future__ import annotations

import inspect
from pathlib import Path

from ..joints import (
    AngleDriver,
    Distance,
    Driver,
    Fixed,
    Gear,
    PointOnLine,
    Prismatic,
    RackPinion,
    Revolute,
    SlideDriver,
)
from ..joints._drivers import DistanceDriver as PlanarDistanceDriver

__all__ = ["SUPPORTED", "kernel_source", "module_source", "MODULE_PATH", "equation_count"]

#: Where the generated module lives.
MODULE_PATH = Path(__file__).with_name("_planar_kernels.py")


def _supported():
    """The planar classes with a compiled kernel, in type-code order (the code is the index)."""
    # (the public DistanceDriver dispatches on the dimension; the planar class is this one)
    return (Revolute, Fixed, Prismatic, PointOnLine, Distance, Gear, RackPinion, Driver,
            AngleDriver, SlideDriver, PlanarDistanceDriver)


SUPPORTED = _supported()


class _Tape:
    """The lines recorded so far and a counter of temporaries."""

    def __init__(self) -> None:
        self.lines: list[tuple[str, str, tuple]] = []   # (name, expression, operand names)

    def new(self, expr: str, deps: tuple) -> _Rec:
        name = f"t{len(self.lines)}"
        self.lines.append((name, expr, deps))
        return _Rec(self, name, True)


def _text(v):
    """The source of an operand: a recorded value's name or a Python number's repr."""
    if isinstance(v, _Rec):
        return v.name
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        raise TypeError(f"the recorder takes numbers and recorded values, got {type(v).__name__}")
    return repr(v)


def _deps(*vs) -> tuple:
    return tuple(v.name for v in vs if isinstance(v, _Rec) and v.temp)


class _Rec:
    """A recorded scalar: its source text (a temporary, or a leaf such as ``P[o + 3]``)."""

    __array_ufunc__ = None

    def __init__(self, tape: _Tape, name: str, temp: bool = False) -> None:
        self.tape, self.name, self.temp = tape, name, temp

    def _bin(self, other, op, reverse=False):
        a, b = (other, self) if reverse else (self, other)
        return self.tape.new(f"{_text(a)} {op} {_text(b)}", _deps(a, b))

    def __add__(self, o):
        return self._bin(o, "+")

    def __radd__(self, o):
        return self._bin(o, "+", True)

    def __sub__(self, o):
        return self._bin(o, "-")

    def __rsub__(self, o):
        return self._bin(o, "-", True)

    def __mul__(self, o):
        return self._bin(o, "*")

    def __rmul__(self, o):
        return self._bin(o, "*", True)

    def __truediv__(self, o):
        return self._bin(o, "/")

    def __rtruediv__(self, o):
        return self._bin(o, "/", True)

    def __neg__(self):
        return self.tape.new(f"-{self.name}", _deps(self))


class _Array:
    """A kernel argument (``P`` or a slot's poses ``X``): ``A[..., k]`` is a leaf."""

    #: poses of three columns (x, y, t): the compiled kernels take the angle's cosine and sine
    #: themselves (the five-column poses of :attr:`Joint._trig_columns` are NumPy's large path)
    shape = (3,)

    def __init__(self, tape: _Tape, fmt: str) -> None:
        self.tape, self.fmt = tape, fmt

    def __getitem__(self, key):
        if not (isinstance(key, tuple) and len(key) == 2 and key[0] is Ellipsis
                and isinstance(key[1], int)):
            raise TypeError(f"the recorder reads single components A[..., k], got {key!r}")
        return _Rec(self.tape, self.fmt.format(key[1]))


class _Namespace:
    """The ``xp`` the recorder gives a kernel: ``cos`` and ``sin`` of recorded values."""

    def __init__(self, tape: _Tape) -> None:
        self.tape = tape

    def cos(self, v):
        return self.tape.new(f"math.cos({_text(v)})", _deps(v))

    def sin(self, v):
        return self.tape.new(f"math.sin({_text(v)})", _deps(v))


def _n_slots(cls) -> int:
    """The pose slots of a class's ``_terms`` (the parameters after ``xp, P``)."""
    names = list(inspect.signature(cls._terms).parameters)
    return len(names) - 3     # xp, P, ... , jacobian


_COUNTS: dict = {}


def equation_count(cls) -> int:
    """The number of equations of the kernel of ``cls`` (recorded once)."""
    m = _COUNTS.get(cls)
    if m is None:
        tape = _Tape()
        X = [_Array(tape, "X[{}]") for _ in range(_n_slots(cls))]
        m = _COUNTS[cls] = len(cls._terms(_Namespace(tape), _Array(tape, "P[{}]"), *X,
                                          jacobian=False)[0])
    return m


def kernel_source(cls, name: str) -> str:
    """The source of the compiled kernel of ``cls``: ``name(P, o, X, b1, .., F, r, J, c1, ..,
    jac)`` writes the class's rows ``F[r:r+m]`` and, with ``jac``, their Jacobian entries
    ``J[r + i, c_s + j]`` for every slot ``s`` whose body moves (``c_s >= 0``: its first column),
    every entry of the block, literal zeros included (as NumPy's dense Jacobian does)."""
    tape = _Tape()
    k = _n_slots(cls)
    X = [_Array(tape, f"X[b{s + 1}, {{}}]") for s in range(k)]
    phi, blocks = cls._terms(_Namespace(tape), _Array(tape, "P[o + {}]"), *X, jacobian=True)
    need = set()

    def mark(v):
        if isinstance(v, _Rec) and v.temp and v.name not in need:
            todo = [v.name]
            index = {n: d for n, _, d in tape.lines}
            while todo:
                t = todo.pop()
                if t not in need:
                    need.add(t)
                    todo.extend(index[t])

    for v in phi:
        mark(v)
    out = [f"def {name}({', '.join(_kernel_args(k))}):"]
    out += [f"    {n} = {e}" for n, e, _ in tape.lines if n in need]
    out += [f"    F[r + {i}] = {_text(v)}" for i, v in enumerate(phi)]
    rest = [(n, e) for n, e, _ in tape.lines if n not in need]
    out.append("    if jac:")
    out += [f"        {n} = {e}" for n, e in rest]
    for s, rows in enumerate(blocks):
        out.append(f"        if c{s + 1} >= 0:")
        for i, row in enumerate(rows):
            for j, e in enumerate(row):
                v = float(e) if not isinstance(e, _Rec) else e
                out.append(f"            J[r + {i}, c{s + 1} + {j}] = {_text(v)}")
    return "\n".join(out)


_HEADER = '''"""Compiled planar joint kernels and the table-driven residual and Jacobian (numba).

GENERATED by ``python -m mechsolve._compiled._codegen`` from the joint classes' ``_terms``
(see :mod:`mechsolve._compiled._codegen`); do not edit by hand: a test regenerates this file
and compares.

:func:`evaluate` walks the joints in order: joint ``i`` has type code ``jtype[i]`` (the index
of its class in :data:`mechsolve._compiled._codegen.SUPPORTED`), bodies ``jbody[i, :]`` (``nb``
for ground), its parameters at ``P[jpar[i]:]`` and its rows from ``jrow[i]``. Poses are read
from ``q`` (``(x, y, theta)`` per body) into ``X (nb + 1, 3)``, ground the last row of zeros.
Imported without numba: :mod:`mechsolve._compiled._runtime` compiles the functions of
:data:`COMPILED` in place.
"""

import math

#: The functions compiled, in dependency order (callees first).
COMPILED = (
{names}
)
#: Each function's one signature (numba's types; the compiled callers pass these and no
#: other): a cold compile compiles each once, for these types, and no more (a literal
#: ``True`` passed as ``jac`` would otherwise compile a second copy).
SIGNATURES = {{
{signatures}
}}
'''

#: The numba types of a kernel's arguments, by name (``b*``, ``c*`` and ``o``, ``r`` integers).
_TYPES = {"P": "float64[::1]", "X": "float64[:, ::1]", "F": "float64[::1]",
          "J": "float64[:, ::1]", "jac": "boolean", "q": "float64[::1]",
          "jtype": "int64[::1]", "jbody": "int64[:, ::1]", "jcol": "int64[:, ::1]",
          "jpar": "int64[::1]", "jrow": "int64[::1]"}
_EVALUATE_ARGS = ("q", "nb", "jtype", "jbody", "jcol", "jpar", "jrow", "P", "X", "F", "J", "jac")


def _signature(args) -> str:
    """numba's signature (argument types only) of a function with arguments ``args``."""
    return "(" + ", ".join(_TYPES.get(a, "int64") for a in args) + ")"


def _wrapped(text: str, indent: int, width: int = 99) -> str:
    """The signature ``text`` (``"(a, b, ...)"``) as adjacent string literals, broken between
    arguments, within ``width`` columns."""
    args = _split(text[1:-1])
    lines, line = [], "("
    for i, a in enumerate(args):
        piece = a + (")" if i == len(args) - 1 else ", ")
        if line.strip() and indent + len(repr(line + piece)) > width:
            lines.append(line)
            line = ""
        line += piece
    lines.append(line)
    return "\n".join(" " * indent + repr(t) for t in lines)


def _split(text: str) -> list:
    """``text`` split at the commas outside brackets."""
    out, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += ch == "["
        depth -= ch == "]"
        if ch == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
    out.append(text[start:].strip())
    return out


def _kernel_args(k: int) -> tuple:
    """The arguments of a kernel of ``k`` slots (as :func:`kernel_source` prints them)."""
    return ("P", "o", "X", *(f"b{s + 1}" for s in range(k)), "F", "r", "J",
            *(f"c{s + 1}" for s in range(k)), "jac")


def module_source() -> str:
    """The full source of :mod:`mechsolve._compiled._planar_kernels`."""
    names = [f"_k_{cls.__name__.lower()}" for cls in SUPPORTED]
    sigs = [_signature(_kernel_args(_n_slots(cls))) for cls in SUPPORTED]
    sigs.append(_signature(_EVALUATE_ARGS))
    parts = [_HEADER.format(
        names="\n".join(f"    {n!r}," for n in names + ["evaluate"]),
        signatures="\n".join(f"    {n!r}:\n{_wrapped(s, 8)}," for n, s in
                              zip(names + ["evaluate"], sigs)))]
    for cls, name in zip(SUPPORTED, names):
        parts.append(f"\n# {cls.__module__}.{cls.__qualname__}")
        parts.append(kernel_source(cls, name) + "\n")
    call = []
    for code, (cls, name) in enumerate(zip(SUPPORTED, names)):
        k = _n_slots(cls)
        bodies = ", ".join(f"jbody[i, {s}]" for s in range(k))
        cols = ", ".join(f"jcol[i, {s}]" for s in range(k))
        word = "if" if code == 0 else "elif"
        call.append(f"        {word} t == {code}:\n"
                    f"            {name}(P, jpar[i], X, {bodies}, F, jrow[i], J,\n"
                    f"                   {cols}, jac)")
    parts.append(f'''
def evaluate({', '.join(_EVALUATE_ARGS)}):
    """Phi into ``F (m,)`` and, with ``jac``, the dense Jacobian into ``J (m, n)`` (zeroed
    first) at the state ``q``; ``X (nb + 1, 3)`` is scratch for the poses; ``jcol[i, s]`` is
    the first column of slot ``s``'s body, -1 for ground."""
    for b in range(nb):
        X[b, 0] = q[3 * b]
        X[b, 1] = q[3 * b + 1]
        X[b, 2] = q[3 * b + 2]
    X[nb, 0] = 0.0
    X[nb, 1] = 0.0
    X[nb, 2] = 0.0
    if jac:
        J[:, :] = 0.0
    for i in range(jtype.shape[0]):
        t = jtype[i]
{chr(10).join(call)}
''')
    return "\n".join(parts)


if __name__ == "__main__":   # pragma: no cover - rewrites the committed module
    MODULE_PATH.write_text(module_source())
    print(f"wrote {MODULE_PATH}")
