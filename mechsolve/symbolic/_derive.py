"""Checking a joint definition, and deriving its Jacobian and motion terms from Phi alone.

Everything here works on a *canonical* copy of the expressions, in which the user's symbols are
replaced by positional names (``p0, p1, ...`` for parameters, ``x{slot}_{i}`` for body
coordinates, ``v{slot}_{i}`` for body velocities, ``q{i}``/``u{i}`` for the joint's own
coordinates and their rates, ``t`` for time). Two definitions that differ only in symbol names
therefore share generated code, and the generated code never sees a user's name.

With ``c`` a slot's coordinates, ``T = dc/d(increment)`` (identity for planar bodies; for a
spatial body the identity on the position and ``dq/dphi = 1/2 [0; dphi] q`` on the quaternion,
see :func:`mechsolve.symbolic.increment_map`) and ``V`` its velocity (planar ``(xdot, ydot,
thetadot)``, spatial ``(v, omega)`` with ``omega`` global), the derived terms are::

    J_slot = Phi_c T                         Jacobian with respect to the Newton increment
    Phi_p  = dPhi/dp                         parameters (and time, the last column of P)
    Phi_t  = dPhi/dt                         velocity equation  J V = -Phi_t
    gamma  = -(J V)_c cdot - 2 (Phi_t)_c cdot - Phi_tt,   cdot = T V
                                             acceleration equation  J Vdot = gamma

where ``(.)_c cdot`` runs over every slot's coordinates and the joint's own coordinates, ``V``
held fixed. For a spatial body ``cdot`` is the true rate of the coordinates, ``qdot = 1/2 [0;
omega] q``, and ``(J V)_c`` differentiates ``T`` too: the increment is not a coordinate, and
``gamma`` is ``-(d/dt J) V`` with ``J`` differentiated along the motion, which is what the
acceleration equation ``J Vdot + (d/dt J) V + d/dt Phi_t = 0`` asks for.
"""

from __future__ import annotations

import functools
import hashlib
import keyword
import math
import pathlib
from dataclasses import dataclass, field

import numpy as np
import sympy as sp
from sympy.core.function import AppliedUndef
from sympy.printing.numpy import NumPyPrinter

from ._frames import BodySymbols, increment_map, symbol_owners

__all__ = ["JointDefinition", "define", "canonical", "derive", "check_printable",
           "check_derived"]

#: Bumped whenever the derivation or the generated code changes, so old cache entries are unused.
GENERATOR_VERSION = 4

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
    #: ``(equation index, subexpression)`` of the parts of Phi that depend on parameters only
    #: and are real for some real parameter values but not for all (``sqrt(L)``, ``1/L``):
    #: instances check them for their values (:func:`check_parameter_values`).
    param_checks: tuple[tuple[int, sp.Expr], ...] = ()

    @property
    def dim(self) -> int:
        """2 for planar joints, 3 for spatial ones (all bodies share it)."""
        return self.bodies[0].dim

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
    if len({b.dim for b in bodies}) > 1:
        planar = [f"bodies[{i}] {_body_name(b)}" for i, b in enumerate(bodies) if b.dim == 2]
        spatial = [f"bodies[{i}] {_body_name(b)}" for i, b in enumerate(bodies) if b.dim == 3]
        raise ValueError(f"{kind}: the bodies mix planar and spatial symbols: "
                         f"{', '.join(planar)} planar, {', '.join(spatial)} spatial; a joint's "
                         "bodies must all be planar or all spatial (take them from one "
                         "body_symbols(..., dim=...) call)")
    if len({id(b) for b in bodies}) != len(bodies) or \
            len({c for b in bodies for c in b.coordinates}) != sum(len(b.coordinates)
                                                                     for b in bodies):
        raise ValueError(f"{kind}: the bodies must be distinct (each slot has its own symbols)")
    params = _symbol_list(params, "params", kind)
    coordinates = _symbol_list(coordinates, "coordinates", kind)
    if time is not None and not isinstance(time, sp.Symbol):
        raise TypeError(f"{kind}: time must be a SymPy Symbol or None, got "
                        f"{type(time).__name__} {time!r}")
    for what, group in (("parameter", params), ("own coordinate", coordinates),
                        ("time", (time,) if time is not None else ())):
        for s in group:
            if s.is_extended_real is False:
                raise ValueError(f"{kind}: the {what} symbol {s} has non-real assumptions "
                                 f"({sp.srepr(s)}), but it takes real values: expected "
                                 f"a real (or assumption-free) Symbol, e.g. sp.Symbol({s.name!r})")
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
    param_checks: dict = {}
    for i, e in enumerate(exprs):
        for _, node in _check_real(kind, i, e, frozenset(params)):
            param_checks.setdefault(node, i)
        unknown = sorted(e.free_symbols - allowed, key=lambda s: s.name)
        if unknown:
            _check_dimension(kind, i, e, unknown, bodies)
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
    return JointDefinition(name, bodies, params, coordinates, time, exprs, labels, checked,
                           tuple((i, node) for node, i in param_checks.items()))


def _body_name(b: BodySymbols) -> str:
    """``planar body '1' (x1, y1, theta1)``."""
    return (f"{'planar' if b.dim == 2 else 'spatial'} body {b.label!r} "
            f"({', '.join(map(str, b.coordinates))})")


def _check_dimension(kind: str, i: int, e: sp.Expr, unknown, bodies) -> None:
    """Raise ValueError if one of the ``unknown`` symbols of ``phi[i]`` is a coordinate of a
    body of the other dimension (a spatial body's ``z1`` in a planar joint, or the reverse)."""
    dim = bodies[0].dim
    for s in unknown:
        others = sorted(label for d, label in symbol_owners(s) if d != dim)
        if not others or any(d == dim for d, _ in symbol_owners(s)):
            continue
        used = [b for b in bodies if set(b.coordinates) & e.free_symbols] or list(bodies)
        mine, theirs = ("planar", "spatial") if dim == 2 else ("spatial", "planar")
        raise ValueError(
            f"{kind}: phi[{i}] = {_show(e)} uses symbols of a {mine} body ({used[0].label!r}: "
            f"{', '.join(map(str, used[0].coordinates))}) and of a {theirs} body "
            f"({others[0]!r}: {s}); a joint's bodies must all be planar or all spatial: take "
            f"them from one body_symbols(..., dim={dim}) call")


_NOT_FINITE = {sp.zoo: "zoo (complex infinity)", sp.oo: "oo (infinity)",
               sp.S.NegativeInfinity: "-oo (minus infinity)", sp.nan: "nan (not a number)"}


def _not_real_value(value) -> str | None:
    """Why a numeric SymPy value is not a finite real number (``None`` if it is one)."""
    try:
        z = complex(value.evalf())
    except (TypeError, ValueError):
        return f"is {value}, not a number"
    if not (math.isfinite(z.real) and math.isfinite(z.imag)):
        return f"is {value}, not finite"
    if z.imag != 0.0:
        return f"= {z} is not real"
    return None


@functools.lru_cache(maxsize=4096)
def _real_for_real_symbols(node: sp.Expr) -> bool | None:
    """SymPy's verdict on whether ``node`` is real when all its symbols are real (``True``,
    ``False`` or ``None``: depends on their values). Cached: class creation asks again for the
    same parameter expressions, and the assumption system is slow on fresh dummies."""
    return node.xreplace({s: sp.Dummy(s.name, real=True) for s in node.free_symbols}).is_real


def _show(e, limit: int = 240) -> str:
    """``str(e)``, cut to ``limit`` characters (a spatial Phi prints to pages)."""
    text = str(e)
    return text if len(text) <= limit else text[:limit - 5] + " ... "


def _check_real(kind: str, i: int, e: sp.Expr, params: frozenset) -> list:
    """Raise ValueError unless ``phi[i] = e`` is a real expression with finite constants.

    Rejects the imaginary unit, ``zoo``, ``oo`` and ``nan``, and constants that are not real
    (``(-1)**(1/3)``, ``asin(2)``); each distinct subexpression is visited once. Returns the
    largest subexpressions in parameters alone that are real for some real values but not for
    all (``sqrt(L)``, ``1/L``), as ``(i, subexpression)`` pairs, for instances to check.
    """
    def fail(why: str):
        raise ValueError(f"{kind}: phi[{i}] = {_show(e)} is not a real expression: {why}; "
                         "expected a real expression (the kernels compute in real floating "
                         "point)")

    free: dict = {}

    def visit(node) -> frozenset:
        out = free.get(node)
        if out is not None:
            return out
        if node.is_Symbol:
            out = frozenset((node,))
        elif node.is_Atom:
            if node in _NOT_FINITE:
                fail(f"it contains {_NOT_FINITE[node]}")
            if node is sp.I:
                fail("it contains the imaginary unit I (write complex arithmetic out in real "
                     "and imaginary parts, e.g. 2*cos(x) for exp(I*x) + exp(-I*x))")
            if node.is_number and node.is_real is False:
                fail(f"it contains the non-real number {node}")
            out = frozenset()
        else:
            if isinstance(node, sp.Piecewise) and node.args[-1].cond is not sp.true:
                raise ValueError(
                    f"{kind}: phi[{i}] = {_show(e)} has a Piecewise without an otherwise "
                    f"branch ({_show(node)}): it is undefined (nan) where none of its "
                    "conditions holds; expected a last branch (expression, True)")
            out = frozenset().union(*(visit(a) for a in node.args))
        free[node] = out
        return out

    visit(e)
    checks = []
    seen: set = set()

    def maximal(node, in_params: bool) -> None:
        """Check the largest constant and parameter-only subexpressions in ``node``."""
        if node in seen or node.is_Atom:
            return
        seen.add(node)
        fs = free[node]
        if not fs:
            why = _not_real_value(node)
            if why:
                fail(f"its constant part {_show(node)} {why}")
            return
        if fs <= params and not in_params:
            in_params = True
            real = _real_for_real_symbols(node)
            if real is False:
                fail(f"its part {_show(node)} is not real for any real value of "
                     f"{', '.join(sorted(map(str, fs)))}")
            if real is not True:
                checks.append((i, node))
        for a in node.args:
            maximal(a, in_params)

    maximal(e, False)
    return checks


#: Functions that are not real for some real arguments.
_RESTRICTED = (sp.log, sp.asin, sp.acos, sp.asec, sp.acsc, sp.acosh, sp.atanh, sp.acoth,
               sp.asech, sp.acsch, sp.LambertW)


def _domain_restricted(node, memo: dict) -> bool:
    """Whether ``node`` has a power with a non-integer exponent or a function of
    :data:`_RESTRICTED` (``memo`` holds the verdicts, shared between calls)."""
    out = memo.get(node)
    if out is None:
        if node.is_Atom:
            out = False
        elif isinstance(node, _RESTRICTED) or (node.is_Pow and not node.exp.is_Integer):
            out = True
        else:
            out = any(_domain_restricted(a, memo) for a in node.args)
        memo[node] = out
    return out


def check_real_valued(defn: JointDefinition) -> None:
    """Raise ValueError naming the first equation of Phi that is not real for any real values
    of its symbols (``sqrt(-x1**2 - 1)``): SymPy's assumptions, with every symbol real.

    Run before the derivation only (a definition that fails never reaches the cache).
    """
    memo: dict = {}
    for s in {s for e in defn.phi for s in e.free_symbols}:
        memo[s] = sp.Dummy(s.name, real=True)
    restricted: dict = {}
    for i, e in enumerate(defn.phi):
        # Sums, products, integer powers and sin, cos, exp ... of reals are real: ask SymPy
        # (slow on a spatial Phi) only about an equation with a root, a log or the like.
        if _domain_restricted(e, restricted) and _replace(e, memo).is_real is False:
            raise ValueError(f"{defn.name}: phi[{i}] = {_show(e)} is not real for any real "
                             "values of its symbols; expected a real expression (the kernels "
                             "compute in real floating point)")


@functools.lru_cache(maxsize=4096)
def _float_evaluator(node: sp.Expr):
    """``(names, f)``: ``f(*values)`` evaluates ``node`` in NumPy floats, as the kernels do
    (``nan`` or ``inf`` where it is not a finite real); ``None`` if it does not print."""
    names = tuple(sorted(s.name for s in node.free_symbols))
    try:
        source = f"lambda {', '.join(names)}: {_Printer().doprint(node)}"
        return names, eval(compile(source, "<mechsolve-parameter-check>", "eval"),
                           {"numpy": np})
    except Exception:  # pragma: no cover - Phi was checked to print; SymPy decides then
        return None


def check_parameter_values(defn: JointDefinition, values: dict) -> None:
    """Raise ValueError if, at the parameter ``values`` (name -> float), a part of Phi that
    depends on parameters only is not a finite real number (``sqrt(L)`` at ``L = -1``).

    Each part is evaluated in NumPy floats first, as the kernels evaluate it (a few
    microseconds); SymPy evaluates it exactly only to explain a failure.
    """
    for i, node in defn.param_checks:
        fast = _float_evaluator(node)
        if fast is not None:
            names, f = fast
            with np.errstate(all="ignore"):
                try:
                    v = f(*(np.float64(values[n]) for n in names))
                except (ArithmeticError, ValueError):
                    v = np.nan
            if np.isfinite(v):
                continue
        sub = {p: sp.Float(values[p.name]) for p in node.free_symbols}
        why = _not_real_value(node.xreplace(sub)) or "overflows in floating point"
        given = ", ".join(f"{p}={values[p.name]!r}" for p in sorted(sub, key=str))
        raise ValueError(f"{defn.name}: with {given}, phi[{i}] = {_show(defn.phi[i])} is not "
                         f"a real expression: its part {_show(node)} {why}; expected parameter "
                         "values for which phi is real and finite")


class _Printer(NumPyPrinter):
    """NumPy printer with exact float literals and cheap integer powers."""

    def __init__(self) -> None:
        super().__init__({"fully_qualified_modules": True})

    def _print_not_supported(self, expr):
        # An expression without NumPy code raises, on every SymPy: the setting strict=True
        # does this from SymPy 1.13 on, and before it the printer put the expression's text
        # into the code under a "Not supported" comment.
        raise NotImplementedError(f"{expr} ({type(expr).__name__}) has no NumPy code")

    def _not_real(self, expr):
        # Phi is checked for these (define), and differentiating a real expression does not
        # bring them in: printing one would compute in complex numbers (or fail with a
        # KeyError), and storing a complex result in the kernels' float arrays drops its
        # imaginary part.
        raise ValueError(f"{expr} is not a finite real number: the generated kernels compute "
                         "in real floating point")

    # (NaN prints: it is the default of a Piecewise, whose otherwise branch define requires.)
    def _print_ImaginaryUnit(self, expr):
        self._not_real(expr)

    def _print_ComplexInfinity(self, expr):
        self._not_real(expr)

    def _print_Infinity(self, expr):
        self._not_real(expr)

    def _print_NegativeInfinity(self, expr):
        self._not_real(expr)

    def _print_Float(self, expr):
        return repr(float(expr))

    def _print_Rational(self, expr):
        return repr(expr.p / expr.q)

    def _print_Add(self, expr, order=None):
        # Positive terms first, so that ``-a*b + c`` prints as ``c - a*b`` (one ufunc fewer).
        # ``expr.args`` is already in SymPy's canonical (run-independent) order; sorting it
        # again with ``as_ordered_terms`` cost a third of the code generation time.
        prec = sp.printing.precedence.PRECEDENCE["Add"]
        pos, neg = [], []
        for term in expr.args:
            coeff = term.as_coeff_Mul()[0] if term.is_Mul else term
            (neg if coeff.is_Number and coeff.is_negative else pos).append(term)
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


_NON_SMOOTH = ("Abs, sign, floor, ceiling, Max, Min and Heaviside have no derivative SymPy can "
               "turn into code (and a step's derivative is a DiracDelta): write the constraint "
               "with smooth functions, e.g. sqrt(u**2 + eps**2) for Abs(u), or as a Piecewise "
               "of smooth branches")


def _find_unprintable(exprs, cache: dict):
    """``(node, why, index)`` of the first unprintable subexpression of ``exprs``, or ``None``.

    Walks every distinct subexpression once (``cache`` holds the verdicts, shared between
    calls), outer nodes first; a function that does not print is blamed only if its arguments
    do print.
    """
    def visit(node):
        if node in cache:
            return cache[node]
        cache[node] = None
        if node.is_Atom:
            return None
        if isinstance(node, (sp.Function, sp.Piecewise)) and not isinstance(node, AppliedUndef):
            for arg in node.args:
                found = visit(arg)
                if found:
                    cache[node] = found
                    return found
            # Its arguments print: whether it does depends on the function alone (printing a
            # large argument again for every cos(...) of a derivative would be slow).
            kind = ("function", type(node))
            if kind not in cache:
                cache[kind] = _unprintable(node)
            why = cache[kind]
            found = (node, why) if why else None
        else:
            why = _unprintable(node)
            if why:
                found = (node, why)
            else:
                found = None
                for arg in node.args:
                    found = visit(arg)
                    if found:
                        break
        cache[node] = found
        return found

    for i, e in enumerate(exprs):
        found = visit(e)
        if found:
            return (*found, i)
    return None


def printable(exprs) -> bool:
    """Whether every expression of ``exprs`` can be turned into NumPy code."""
    return _find_unprintable(exprs, {}) is None


def _display_map(defn: JointDefinition) -> dict:
    """Canonical symbols -> the user's symbols (velocities get readable names)."""
    P, C, V, Q, U, t = defn.structure.symbols()
    back = dict(zip(P, defn.params))
    for b, cs, vs in zip(defn.bodies, C, V):
        back.update(zip(cs, b.coordinates))
        if b.dim == 2:
            names = [f"{c.name}dot" for c in b.coordinates]
        else:
            tail = b.coordinates[0].name[1:]
            names = [f"v{a}{tail}" for a in "xyz"] + [f"omega{a}{tail}" for a in "xyz"]
        back.update(zip(vs, sp.symbols(names)))
    back.update(zip(Q, defn.coordinates))
    back.update(zip(U, sp.symbols([f"{c.name}dot" for c in defn.coordinates])))
    if defn.time is not None:
        back[t] = defn.time
    return back


def _term_name(defn: JointDefinition, name: str, i: int) -> str:
    """Readable name of entry ``i`` of the derived term ``name`` (``J0``, ``gamma``, ...)."""
    if name == "phi_t":
        return f"phi_t[{i}] (the explicit time derivative of phi[{i}])"
    if name == "Jp":
        names = [*defn.params, *([defn.time] if defn.time is not None else [])]
        row, col = divmod(i, len(names))
        return f"the parameter derivative d phi[{row}] / d {names[col]}"
    if name == "gamma":
        return f"gamma[{i}] (the acceleration term of phi[{i}])"
    if name == "Jq":
        n = len(defn.coordinates)
        return (f"the Jacobian entry d phi[{i // n}] / d {defn.coordinates[i % n]} "
                "(own coordinate)")
    b = defn.bodies[int(name[1:])]
    w = b.increment_size
    row, col = divmod(i, w)
    if b.dim == 2:
        var = str(b.coordinates[col])
    elif col < 3:
        var = str(b.coordinates[col])
    else:
        var = f"dphi_{'xyz'[col - 3]} (rotation increment of body {b.label!r})"
    return f"the Jacobian entry d phi[{row}] / d {var}"


def check_derived(defn: JointDefinition, exprs: dict[str, list]) -> None:
    """Raise TypeError naming the first derived term (and subexpression) without NumPy code.

    ``exprs`` is the output of :func:`derive` (canonical symbols); the message shows the
    user's symbols. Phi itself is checked by :func:`check_printable` first, so what is caught
    here comes from differentiating a non-smooth function (``Abs``, ``sign``, ``floor``,
    ``Max``, ``Min``, ``Heaviside``), which SymPy leaves as an unevaluated ``Derivative`` or
    turns into ``DiracDelta``.
    """
    cache: dict = {}
    for name, entries in exprs.items():
        if name in ("phi", "Jp"):    # Phi_p without code leaves the numeric default
            continue
        found = _find_unprintable(entries, cache)
        if found is None:
            continue
        node, why, i = found
        back = _display_map(defn)
        shown = node.xreplace(back)
        if isinstance(node, sp.Derivative):
            why = (f"an unevaluated Derivative: SymPy has no closed-form derivative of "
                   f"{node.expr.xreplace(back)}")
        row = i // (len(entries) // len(defn.phi)) if name.startswith("J") else i
        raise TypeError(
            f"{defn.name}: {_term_name(defn, name, i)}, derived from phi[{row}] = "
            f"{defn.phi[row]}, cannot be turned into NumPy code: {shown} is {why}. "
            f"{_NON_SMOOTH}")


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
    memo = dict(sub)
    return tuple(_replace(e, memo) for e in defn.phi), st


def _replace(node, memo: dict):
    """``node.xreplace(memo)`` with every distinct subexpression rebuilt once (``memo`` maps
    old nodes to new ones and grows): ``xreplace`` walks shared subtrees again at each use."""
    out = memo.get(node)
    if out is None:
        if node.args:
            args = tuple(_replace(a, memo) for a in node.args)
            out = node.func(*args) if args != node.args else node
        else:
            out = node
        memo[node] = out
    return out


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


def _digest(exprs) -> list[str]:
    """Structural SHA-256 digests of expressions, each distinct subexpression hashed once.

    The same information as ``srepr`` (node types, atoms with their assumptions, argument
    order), but linear in the size of the expression DAG: ``srepr`` prints shared
    subexpressions again at every use, which for a spatial joint's Phi (several quaternion
    products) costs most of a warm-cache class creation.
    """
    memo: dict = {}

    def walk(node) -> str:
        out = memo.get(node)
        if out is None:
            if node.args:
                text = type(node).__name__ + "(" + ",".join(walk(a) for a in node.args) + ")"
            else:
                text = sp.srepr(node)
            out = hashlib.sha256(text.encode()).hexdigest()
            memo[node] = out
        return out

    return [walk(e) for e in exprs]


def cache_key(phi_c, st: Structure, version: str) -> str:
    """SHA-256 of the canonical expressions, the structure and the versions.

    The structure names every slot's coordinate and increment counts, so a planar and a
    spatial definition never share a key.
    """
    text = "\n".join([f"mechsolve {version}", f"generator {GENERATOR_VERSION}",
                      f"generator source {_generator_digest()}", repr(st),
                      *_digest(phi_c)])
    return hashlib.sha256(text.encode()).hexdigest()


class _Differentiator:
    """Directional derivatives of expression DAGs, each distinct subexpression handled once.

    ``sympy.diff`` walks a tree afresh for every variable and every node (its ``free_symbols``
    checks alone are quadratic in the depth), which makes the second derivatives of a spatial
    joint's Phi (quaternion products of several frames) take minutes. Here a derivative along a
    *tangent* ``{symbol: rate expression}`` is memoized per node, so shared subexpressions are
    differentiated once and the result shares them too; the one ``cse`` of the code generator
    then finds the sharing again. Functions are differentiated by the chain rule through their
    ``fdiff`` unless they define their own derivative (``Abs``, ``sign``, ...), which is left to
    SymPy, so the result is SymPy's derivative in another arrangement.
    """

    def __init__(self) -> None:
        self._free: dict = {}

    def free(self, node) -> frozenset:
        out = self._free.get(node)
        if out is None:
            if node.is_Symbol:
                out = frozenset((node,))
            elif not node.args:
                out = frozenset()
            else:
                out = frozenset().union(*(self.free(a) for a in node.args))
            self._free[node] = out
        return out

    def along(self, expr, tangent: dict, memo: dict):
        """``d/dtau expr(c + tau * tangent)`` at ``tau = 0`` (tangent values may depend on c)."""
        keys = frozenset(tangent)

        def d(node):
            r = memo.get(node)
            if r is not None:
                return r
            if not (self.free(node) & keys):
                r = sp.S.Zero
            elif node.is_Symbol:
                r = tangent[node]
            elif node.is_Add:
                r = sp.Add(*(d(a) for a in node.args))
            elif node.is_Mul:
                args = node.args
                terms = []
                for k, a in enumerate(args):
                    da = d(a)
                    if da != 0:
                        terms.append(sp.Mul(*args[:k], da, *args[k + 1:]))
                r = sp.Add(*terms)
            elif node.is_Pow:
                b, e = node.args
                db, de = d(b), d(e)
                r = sp.S.Zero
                if db != 0:
                    r += e * b ** (e - 1) * db
                if de != 0:
                    r += node * sp.log(b) * de
            elif (isinstance(node, sp.Function) and not isinstance(node, AppliedUndef)
                  and type(node)._eval_derivative is sp.Function._eval_derivative):
                terms = []
                for k, a in enumerate(node.args):
                    da = d(a)
                    if da != 0:
                        terms.append(node.fdiff(k + 1) * da)
                r = sp.Add(*terms)
            else:  # Piecewise, Abs, sign, Max, ...: SymPy's own rules, variable by variable
                r = sp.Add(*(node.diff(v) * tangent[v]
                             for v in sorted(self.free(node) & keys, key=str)))
            memo[node] = r
            return r

        return d(expr)


def derive(phi_c, st: Structure) -> dict[str, list]:
    """Jacobian blocks, Phi_t and gamma of the canonical Phi.

    Returns a dict of flat lists of expressions in row-major order: ``phi`` (m), ``J0``, ``J1``,
    ... (m * increment size per slot), ``Jq`` (m * n_own, if any), ``Jp`` (m * the columns of
    ``P``: the parameters, then time for a time-dependent Phi), ``phi_t`` (m) and ``gamma``
    (m).

    The Jacobian is built from the partial derivatives with respect to each coordinate and the
    increment map ``T``; ``gamma = -d2/dtau2 Phi`` along the flow ``cdot = T V`` (``V`` and the
    own rates ``U`` held fixed, time advancing at rate 1), which is the formula of the module
    docstring: ``d/dtau (Phi_c cdot + Phi_t) = (J V)_c cdot + 2 (Phi_t)_c cdot + Phi_tt``.
    """
    P, C, V, Q, U, t = st.symbols()
    phi = list(phi_c)
    m = len(phi)
    diff = _Differentiator()
    one = sp.S.One

    def partials(symbols):
        out = []
        for c in symbols:
            memo: dict = {}
            out.append([diff.along(e, {c: one}, memo) for e in phi])
        return out  # out[k][i] = d phi_i / d symbols[k]

    out: dict[str, list] = {"phi": phi}
    flow: dict = {}
    for s, (cs, vs) in enumerate(zip(C, V)):
        T = increment_map(cs)  # identity (planar), or the exponential map's (spatial)
        dphi = partials(cs)
        block = []
        for i in range(m):
            for j in range(T.cols):
                block.append(sp.Add(*(dphi[k][i] * T[k, j] for k in range(T.rows)
                                      if T[k, j] != 0)))
        out[f"J{s}"] = block
        for k, c in enumerate(cs):
            flow[c] = sp.Add(*(T[k, j] * vs[j] for j in range(T.cols) if T[k, j] != 0))
    if Q:
        dq = partials(Q)
        out["Jq"] = [dq[k][i] for i in range(m) for k in range(len(Q))]
        flow.update(zip(Q, U))
    columns = [*P, *([t] if st.time else [])]
    dp = partials(columns)
    out["Jp"] = [dp[k][i] for i in range(m) for k in range(len(columns))]
    if st.time:
        memo_t: dict = {}
        out["phi_t"] = [diff.along(e, {t: one}, memo_t) for e in phi]
        flow[t] = one
    else:
        out["phi_t"] = [sp.S.Zero] * m
    memo: dict = {}
    rate = [diff.along(e, flow, memo) for e in phi]
    out["gamma"] = [-diff.along(e, flow, memo) for e in rate]
    return out
