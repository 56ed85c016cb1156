"""Checking a joint definition, and deriving its Jacobian and motion terms from Phi alone.

Everything here works on a *canonical* copy of the expressions, in which the user's symbols are
replaced by positional names (``p0, p1, ...`` for parameters, ``x{slot}_{i}`` for body
coordinates, ``v{slot}_{i}`` for body velocities, ``q{i}``/``u{i}`` for the joint's own
coordinates and their rates, ``t`` for time). Two definitions that differ only in symbol names
therefore share generated code, and the generated code never sees a user's name.

With ``c`` a slot's coordinates, ``T = dc/d(increment)`` (identity for planar bodies) and ``V``
its velocity (the increment's rate), the derived terms are::

    J_slot = Phi_c T                         Jacobian with respect to the Newton increment
    Phi_t  = dPhi/dt                         velocity equation  J V = -Phi_t
    gamma  = -(J V)_c cdot - 2 (Phi_t)_c cdot - Phi_tt,   cdot = T V
                                             acceleration equation  J Vdot = gamma

where ``(.)_c cdot`` runs over every slot's coordinates and the joint's own coordinates.
"""

from __future__ import annotations

import functools
import hashlib
import keyword
import pathlib
from dataclasses import dataclass, field

import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.numpy import NumPyPrinter

from ._frames import BodySymbols

__all__ = ["JointDefinition", "define", "canonical", "derive", "check_printable"]

#: Bumped whenever the derivation or the generated code changes, so old cache entries are unused.
GENERATOR_VERSION = 1

# Module names the generated code may use (anything else, e.g. ``math.gamma``, is not vectorized).
_ALLOWED_MODULES = {"numpy", "functools"}

# Names a parameter or own coordinate may not take: they are attributes of every joint instance.
_RESERVED = {"name", "bodies", "mechanism", "label", "dim", "time", "value", "params",
             "own_values", "definition", "source", "residual", "describe"}


@dataclass(frozen=True)
class Structure:
    """What the generated code needs to know besides the expressions."""

    slots: tuple[tuple[int, int], ...]  # (number of coordinates, increment size) per slot
    n_params: int
    n_own: int
    time: bool

    def symbols(self):
        """The canonical symbols: params, coordinates, velocities, own, own rates, time."""
        P = sp.symbols(f"p0:{self.n_params}") if self.n_params else ()
        C = [sp.symbols(f"x{s}_0:{nc}") for s, (nc, _) in enumerate(self.slots)]
        V = [sp.symbols(f"v{s}_0:{ni}") for s, (_, ni) in enumerate(self.slots)]
        Q = sp.symbols(f"q0:{self.n_own}") if self.n_own else ()
        U = sp.symbols(f"u0:{self.n_own}") if self.n_own else ()
        t = sp.Symbol("t")
        return tuple(P), [tuple(c) for c in C], [tuple(v) for v in V], tuple(Q), tuple(U), t


@dataclass(frozen=True)
class JointDefinition:
    """A checked symbolic joint: bodies, parameters, own coordinates, time and Phi."""

    name: str
    bodies: tuple[BodySymbols, ...]
    params: tuple[sp.Symbol, ...]
    coordinates: tuple[sp.Symbol, ...]
    time: sp.Symbol | None
    phi: tuple[sp.Expr, ...]
    labels: tuple[str, ...] | None
    defaults: dict = field(default_factory=dict)

    @property
    def structure(self) -> Structure:
        return Structure(tuple((len(b.coordinates), b.increment_size) for b in self.bodies),
                         len(self.params), len(self.coordinates), self.time is not None)


# -- checks ------------------------------------------------------------------------------------
def _symbol_list(values, what: str, kind: str) -> tuple[sp.Symbol, ...]:
    if values is None:
        return ()
    if isinstance(values, sp.Symbol):
        values = (values,)
    if isinstance(values, (str, bytes)) or not hasattr(values, "__iter__"):
        raise TypeError(f"{kind}: {what} must be a sequence of SymPy Symbols, got "
                        f"{type(values).__name__} {values!r}")
    out = []
    for i, v in enumerate(values):
        if not isinstance(v, sp.Symbol):
            raise TypeError(f"{kind}: {what}[{i}] must be a SymPy Symbol, got "
                            f"{type(v).__name__} {v!r}")
        out.append(v)
    return tuple(out)


def _phi_list(phi, kind: str) -> tuple[sp.Expr, ...]:
    if isinstance(phi, sp.MatrixBase):
        if 1 not in phi.shape:
            raise ValueError(f"{kind}: phi must be a flat list or a column (or row) Matrix, got "
                             f"a {phi.rows}x{phi.cols} Matrix")
        items = list(phi)
    elif isinstance(phi, (list, tuple)):
        items = list(phi)
    else:
        raise TypeError(f"{kind}: phi must be a list of SymPy expressions or a column Matrix, "
                        f"got {type(phi).__name__}")
    if not items:
        raise ValueError(f"{kind}: phi must contain at least one constraint equation")
    out = []
    for i, e in enumerate(items):
        if isinstance(e, (sp.MatrixBase, list, tuple)):
            raise ValueError(f"{kind}: phi must be flat, but phi[{i}] is a {type(e).__name__} "
                             f"({e}); concatenate the components into one list")
        try:
            e = sp.sympify(e, strict=True)
        except (sp.SympifyError, TypeError):
            raise TypeError(f"{kind}: phi[{i}] must be a SymPy expression, got "
                            f"{type(e).__name__} {e!r}") from None
        if isinstance(e, sp.Equality):
            raise TypeError(f"{kind}: phi[{i}] is an equation ({e}); write it as "
                            f"lhs - rhs (here {e.lhs - e.rhs})")
        if not isinstance(e, sp.Expr):
            raise TypeError(f"{kind}: phi[{i}] must be a SymPy expression, got "
                            f"{type(e).__name__} {e}")
        out.append(e)
    return tuple(out)


def define(name, bodies, params, phi, coordinates=(), time=None, labels=None,
           defaults=None) -> JointDefinition:
    """Check the pieces of a symbolic joint and bundle them (raises TypeError / ValueError)."""
    if not isinstance(name, str) or not name.isidentifier() or keyword.iskeyword(name):
        raise TypeError(f"the joint class name must be a Python identifier, got {name!r}")
    kind = name
    if isinstance(bodies, BodySymbols):
        bodies = (bodies,)
    if isinstance(bodies, (str, bytes)) or not hasattr(bodies, "__iter__"):
        raise TypeError(f"{kind}: bodies must be a sequence from body_symbols(), got "
                        f"{type(bodies).__name__} {bodies!r}")
    bodies = tuple(bodies)
    if not bodies:
        raise ValueError(f"{kind}: a joint joins at least one body; bodies is empty")
    for i, b in enumerate(bodies):
        if not isinstance(b, BodySymbols):
            raise TypeError(f"{kind}: bodies[{i}] must come from body_symbols(), got "
                            f"{type(b).__name__} {b!r}")
    if len({id(b) for b in bodies}) != len(bodies) or \
            len({c for b in bodies for c in b.coordinates}) != sum(len(b.coordinates)
                                                                     for b in bodies):
        raise ValueError(f"{kind}: the bodies must be distinct (each slot has its own symbols)")
    params = _symbol_list(params, "params", kind)
    coordinates = _symbol_list(coordinates, "coordinates", kind)
    if time is not None and not isinstance(time, sp.Symbol):
        raise TypeError(f"{kind}: time must be a SymPy Symbol or None, got "
                        f"{type(time).__name__} {time!r}")
    body_coords = [c for b in bodies for c in b.coordinates]
    declared = [("parameter", s) for s in params] + [("own coordinate", s) for s in coordinates]
    if time is not None:
        declared.append(("time symbol", time))
    seen: dict = {c: "body coordinate" for c in body_coords}
    for what, s in declared:
        if s in seen:
            raise ValueError(f"{kind}: the symbol {s} is declared twice (as {seen[s]} and as "
                             f"{what})")
        seen[s] = what
    named = [("parameter", s) for s in params] + [("own coordinate", s) for s in coordinates]
    for what, s in named:
        if not s.name.isidentifier() or keyword.iskeyword(s.name) or s.name.startswith("_"):
            raise ValueError(f"{kind}: the {what} symbol {s.name!r} must have a name that is a "
                             "Python identifier not starting with '_' (it becomes a keyword "
                             "argument and an attribute of the joint)")
        if s.name in _RESERVED:
            raise ValueError(f"{kind}: the {what} name {s.name!r} is reserved (it is an "
                             "attribute of every joint); rename the symbol")
    if len({s.name for _, s in named}) != len(named):
        raise ValueError(f"{kind}: parameter and coordinate names must be distinct, got "
                         f"{[s.name for _, s in named]}")
    exprs = _phi_list(phi, kind)
    allowed = set(seen)
    state = set(body_coords) | set(coordinates)
    for i, e in enumerate(exprs):
        unknown = sorted(e.free_symbols - allowed, key=lambda s: s.name)
        if unknown:
            s = unknown[0]
            hint = ""
            twins = [a for a in allowed if a.name == s.name]
            if twins:
                hint = (f" (a declared symbol has the same name but other assumptions: "
                        f"{sp.srepr(twins[0])} vs {sp.srepr(s)})")
            raise ValueError(
                f"{kind}: phi[{i}] uses the symbol {s}, which is neither a coordinate of the "
                f"joined bodies ({', '.join(map(str, body_coords))}) nor a declared parameter "
                f"({', '.join(map(str, params)) or 'none'}), own coordinate or time symbol; "
                f"declare it in params={hint}")
        if not (e.free_symbols & state):
            raise ValueError(f"{kind}: phi[{i}] = {e} depends on no coordinate of the bodies or "
                             "of the joint; a constraint must involve the state")
    if labels is not None:
        if isinstance(labels, str) or len(labels) != len(exprs) or \
                not all(isinstance(s, str) for s in labels):
            raise ValueError(f"{kind}: labels must be {len(exprs)} strings (one per equation), "
                             f"got {labels!r}")
        labels = tuple(labels)
    defaults = dict(defaults or {})
    by_name = {s.name: s for s in params + coordinates}
    checked = {}
    for k, v in defaults.items():
        key = k.name if isinstance(k, sp.Symbol) else k
        if key not in by_name:
            raise ValueError(f"{kind}: a default is given for {k!r}, which is not a parameter or "
                             f"own coordinate ({', '.join(by_name) or 'none'})")
        checked[key] = v
    return JointDefinition(name, bodies, params, coordinates, time, exprs, labels, checked)


class _Printer(NumPyPrinter):
    """NumPy printer with exact float literals and cheap integer powers."""

    def __init__(self) -> None:
        super().__init__({"strict": True, "fully_qualified_modules": True})

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Rational(self, expr):
        return repr(expr.p / expr.q)

    def _print_Add(self, expr, order=None):
        # Positive terms first, so that ``-a*b + c`` prints as ``c - a*b`` (one ufunc fewer).
        prec = sp.printing.precedence.PRECEDENCE["Add"]
        pos, neg = [], []
        for term in expr.as_ordered_terms():
            (neg if term.could_extract_minus_sign() else pos).append(term)
        parts = [self.parenthesize(t, prec) for t in pos]
        text = " + ".join(parts)
        for t in neg:
            body = self.parenthesize(-t, prec)
            text = f"{text} - {body}" if text else f"-{body}"
        return text

    def _print_Pow(self, expr, rational=False):
        b, e = expr.as_base_exp()
        if e.is_Integer and abs(int(e)) <= 4:
            n = int(e)
            base = self.parenthesize(b, sp.printing.precedence.PRECEDENCE["Pow"])
            if n == -1:
                return f"(1.0/{base})"
            if n < 0:
                return f"(1.0/{base}**{-n})"
            return f"{base}**{n}"
        return super()._print_Pow(expr, rational=rational)


def _unprintable(node) -> str | None:
    """Why ``node`` cannot become NumPy code (``None`` if it can)."""
    if isinstance(node, sp.Derivative):
        return "an unevaluated Derivative (call .doit() or differentiate with sp.diff)"
    if isinstance(node, sp.Integral):
        return "an unevaluated Integral (evaluate it, or approximate the curve it defines)"
    if isinstance(node, AppliedUndef):
        return f"an undefined function {node.func} (give it as an explicit expression)"
    if isinstance(node, (sp.Subs, sp.Sum, sp.Product, sp.Limit)):
        return f"an unevaluated {type(node).__name__} (call .doit())"
    if isinstance(node, (sp.Function, sp.Piecewise)):
        printer = _Printer()
        try:
            printer.doprint(node)
        except Exception:
            return f"a function ({node.func}) without a NumPy equivalent"
        bad = set(printer.module_imports) - _ALLOWED_MODULES
        if bad:
            names = ", ".join(f"{m}.{f}" for m in sorted(bad)
                              for f in sorted(printer.module_imports[m]))
            return f"a function ({node.func}) that prints as {names}, which is not vectorized"
    return None


def check_printable(defn: JointDefinition) -> None:
    """Raise TypeError naming the first subexpression of Phi that cannot become NumPy code."""
    for i, e in enumerate(defn.phi):
        for node in sp.preorder_traversal(e):
            why = _unprintable(node)
            if why:
                raise TypeError(f"{defn.name}: phi[{i}] cannot be turned into NumPy code: "
                                f"{node} is {why}")


# -- canonical form, cache key, derivation -----------------------------------------------------
def canonical(defn: JointDefinition) -> tuple[tuple[sp.Expr, ...], Structure]:
    """Phi with positional symbol names, and the structure the code generator needs."""
    st = defn.structure
    P, C, _, Q, _, t = st.symbols()
    sub = dict(zip(defn.params, P))
    for b, cs in zip(defn.bodies, C):
        sub.update(zip(b.coordinates, cs))
    sub.update(zip(defn.coordinates, Q))
    if defn.time is not None:
        sub[defn.time] = t
    return tuple(e.xreplace(sub) for e in defn.phi), st


@functools.cache
def _generator_digest() -> str:
    """Hash of the generator's own source, so that any change to it invalidates the cache."""
    here = pathlib.Path(__file__).parent
    h = hashlib.sha256()
    for name in ("_derive.py", "_codegen.py"):
        try:
            h.update((here / name).read_bytes())
        except OSError:  # pragma: no cover - e.g. a zipped install; the version still counts
            h.update(name.encode())
    return h.hexdigest()[:16]


def cache_key(phi_c, st: Structure, version: str) -> str:
    """SHA-256 of the canonical expressions (srepr), the structure and the versions."""
    text = "\n".join([f"mechsolve {version}", f"generator {GENERATOR_VERSION}",
                      f"generator source {_generator_digest()}", repr(st),
                      *(sp.srepr(e) for e in phi_c)])
    return hashlib.sha256(text.encode()).hexdigest()


def derive(phi_c, st: Structure) -> dict[str, list]:
    """Jacobian blocks, Phi_t and gamma of the canonical Phi.

    Returns a dict of flat lists of expressions in row-major order: ``phi`` (m), ``J0``, ``J1``,
    ... (m * increment size per slot), ``Jq`` (m * n_own, if any), ``phi_t`` (m) and
    ``gamma`` (m).
    """
    P, C, V, Q, U, t = st.symbols()
    phi = sp.Matrix(phi_c)
    m = phi.rows
    out: dict[str, list] = {"phi": list(phi)}
    coords: list = []
    rates: list = []
    Jv = sp.zeros(m, 1)
    for s, (cs, vs) in enumerate(zip(C, V)):
        T = sp.eye(len(cs))  # planar increment map; spatial slots will bring their own
        J = phi.jacobian(cs) * T
        out[f"J{s}"] = list(J)
        Jv += J * sp.Matrix(vs)
        coords.extend(cs)
        rates.extend(T * sp.Matrix(vs))
    if Q:
        Jq = phi.jacobian(Q)
        out["Jq"] = list(Jq)
        Jv += Jq * sp.Matrix(U)
        coords.extend(Q)
        rates.extend(U)
    cdot = sp.Matrix(rates)
    if st.time:
        phi_t = phi.diff(t)
        phi_tt = phi_t.diff(t)
        mixed = phi_t.jacobian(coords) * cdot
    else:
        phi_t = sp.zeros(m, 1)
        phi_tt = sp.zeros(m, 1)
        mixed = sp.zeros(m, 1)
    gamma = -(Jv.jacobian(coords) * cdot) - 2 * mixed - phi_tt
    out["phi_t"] = list(phi_t)
    out["gamma"] = list(gamma)
    return out
