"""Joint classes defined by SymPy expressions: :func:`symbolic_joint` and :class:`SymbolicJoint`."""

from __future__ import annotations

from typing import ClassVar

import numpy as np

from .. import _version
from .._validation import as_float
from ..body import Body
from ..joints.base import Joint
from . import _codegen, _derive
from ._frames import PlanarBodySymbols, SpatialBodySymbols

__all__ = ["SymbolicJoint", "symbolic_joint"]


def _kernels(defn: _derive.JointDefinition, *, use_cse: bool = True,
             cache: bool = True) -> dict:
    """Compiled kernels for a definition: from memory, from disk, or generated (and stored)."""
    phi_c, st = _derive.canonical(defn)
    version = _version.__version__
    key = _derive.cache_key(phi_c, st, version)
    if not use_cse:
        key += "-nocse"
    if cache:
        ns = _codegen.load(key)
        if ns is not None:
            return ns
    _derive.check_printable(defn)
    _derive.check_real_valued(defn)
    exprs = _derive.derive(phi_c, st)
    _derive.check_derived(defn, exprs)
    if not _derive.printable(exprs["Jp"]):
        exprs["Jp"] = None    # no code for Phi_p: the class keeps the numeric default
    source = _codegen.generate_source(exprs, st, key, version=version, use_cse=use_cse)
    _codegen.stats["generated"] += 1
    if cache:
        return _codegen.store(key, source)
    ns = _codegen.compile_source(source)
    ns["SOURCE"] = source
    return ns


class SymbolicJoint(Joint):
    """Base of joint classes made by :func:`symbolic_joint`.

    An instance is built from its bodies (one per slot, in the order of the definition) and its
    parameter values, by keyword (or positionally after the bodies, in declaration order)::

        j = SymRevolute(crank, rod, p1x=0.5, p1y=0.0, p2x=-1.5, p2y=0.0, name="A")

    Parameters and own coordinates are attributes (``j.p1x``); setting one changes the joint in
    place, in its mechanism too. The class-level kernels follow the :class:`~mechsolve.joints.Joint`
    contract, ``_phi(P, *X)``, ``_evaluate(P, *X)`` and ``_phi_p(P, *X)`` (the derivative
    with respect to the parameters, ``(..., k, m, p)``, derived symbolically like the
    Jacobian; its last column is time's for a time-dependent Phi), and add the motion terms
    ``_phi_t(P, *X)`` (``(..., k, m)``) and ``_gamma(P, *X, *V)`` (``(..., k, m)``, the poses
    of all slots followed by their velocities). Planar slots take poses ``(x, y, theta)`` and
    velocities ``(xdot, ydot, thetadot)``, and their Jacobian blocks have 3 columns; spatial
    slots take poses ``(x, y, z, qw, qx, qy, qz)`` and velocities ``(v, omega)`` (``omega``
    global), and their Jacobian blocks have 6 columns, with respect to the Newton increment
    ``(dr, dphi)`` (``dphi`` a global rotation vector, ``q <- exp(dphi) q``). A class with own
    coordinates takes their values ``Q (..., k, n_own)`` after the poses (and their rates ``U``
    after the velocities), and ``_evaluate`` returns their Jacobian columns
    ``(..., k, m, n_own)`` as an extra last block.
    """

    #: The checked definition (symbols and Phi as given).
    definition: ClassVar[_derive.JointDefinition]
    #: Parameter names, in the column order of ``P``.
    params: ClassVar[tuple[str, ...]] = ()
    #: Names of the joint's own coordinates (e.g. a track joint's arc length ``s``).
    own_coordinates: ClassVar[tuple[str, ...]] = ()
    #: Whether Phi depends explicitly on time (then ``P`` carries it in its last column).
    time_dependent: ClassVar[bool] = False
    #: The generated NumPy source of the kernels.
    source: ClassVar[str] = ""

    def __init__(self, *args, name: str | None = None, **values) -> None:
        cls = type(self)
        kind = cls.__name__
        n_bodies = len(cls.definition.bodies)
        bodies = args[:n_bodies]
        if len(bodies) < n_bodies or not all(isinstance(b, Body) for b in bodies):
            got = ", ".join(type(a).__name__ for a in args[:n_bodies]) or "nothing"
            raise TypeError(f"{kind} joins {n_bodies} bod{'y' if n_bodies == 1 else 'ies'} "
                            f"(mechsolve Body objects, given first), got {got}")
        positional = args[n_bodies:]
        if len(positional) > len(cls.params):
            raise TypeError(f"{kind} takes {len(cls.params)} parameters "
                            f"({', '.join(cls.params)}) after its bodies, got "
                            f"{len(positional)} positional values")
        for nm, v in zip(cls.params, positional):
            if nm in values:
                raise TypeError(f"{kind} got parameter {nm!r} both by position and by keyword")
            values[nm] = v
        known = set(cls.params) | set(cls.own_coordinates)
        unknown = sorted(set(values) - known)
        if unknown:
            raise TypeError(f"{kind} got unknown keyword argument(s) "
                            f"{', '.join(map(repr, unknown))}; its parameters are "
                            f"{', '.join(cls.params) or 'none'}"
                            + (f" and its own coordinates {', '.join(cls.own_coordinates)}"
                               if cls.own_coordinates else ""))
        defaults = cls.definition.defaults
        missing = [nm for nm in cls.params if nm not in values and nm not in defaults]
        if missing:
            raise TypeError(f"{kind} is missing parameter(s) {', '.join(map(repr, missing))}; "
                            f"give them as keywords, e.g. {missing[0]}=1.0")
        p = [as_float(values.get(nm, defaults.get(nm)), nm) for nm in cls.params]
        if cls.definition.param_checks:
            _derive.check_parameter_values(cls.definition, dict(zip(cls.params, p)))
        if cls.time_dependent:
            p.append(0.0)
        # Own coordinates live in the mechanism's state once the joint is added (the core's
        # joint coordinates); until then these are their initial values.
        self._coord_init = np.array([as_float(values.get(nm, defaults.get(nm, 0.0)), nm)
                                     for nm in cls.own_coordinates])
        super().__init__(bodies, p, name=name)

    # -- pickling -------------------------------------------------------------------------------
    def __reduce_ex__(self, protocol):
        """Pickle by definition: the class is made by :func:`symbolic_joint` at run time and
        cannot be found by name, so it is made again (from the code cache) when unpickled."""
        cls = type(self)
        return (_unpickle_symbolic, (cls.definition, cls.__doc__, cls._use_cse,
                                     self.__dict__.copy()))

    # -- values ---------------------------------------------------------------------------------
    @property
    def own_values(self) -> np.ndarray:
        """Current values of the joint's own coordinates (same as ``coordinates``)."""
        return self.coordinates

    @property
    def time(self) -> float:
        """The time at which a time-dependent Phi is evaluated (stored in ``P``'s last column)."""
        if not self.time_dependent:
            raise AttributeError(f"{type(self).__name__} does not depend on time")
        return float(self._p[-1])

    @time.setter
    def time(self, value) -> None:
        if not self.time_dependent:
            raise AttributeError(f"{type(self).__name__} does not depend on time")
        self._p[-1] = as_float(value, "time")

    # -- errors raised by the generated kernels -------------------------------------------------
    @classmethod
    def _missing_own_state(cls, kernel: str):
        raise TypeError(
            f"{cls.__name__}._{kernel}(P, *X, Q) needs the values of the joint's own "
            f"coordinate(s) {', '.join(cls.own_coordinates)} as a last array Q (..., k, "
            f"{len(cls.own_coordinates)}) after the body poses; a mechanism passes them from its "
            "state (where the joint's own coordinates live once it is added)")

    @classmethod
    def _bad_motion_args(cls, kernel: str, got: int, expected: int):
        n = len(cls.definition.bodies)
        own = " plus the own coordinates Q and their rates U" if cls.own_coordinates else ""
        raise TypeError(f"{cls.__name__}.{kernel}(P, *XV) takes the poses of its {n} slot(s) "
                        f"followed by their velocities{own}: {expected} arrays, got {got}")

    # -- derived classes ------------------------------------------------------------------------
    @classmethod
    def with_coordinate_bodies(cls, name: str | None = None) -> type[SymbolicJoint]:
        """A twin class that carries each own coordinate as the x of an auxiliary body.

        An alternative to the joint's own coordinates (which the core holds in the state): the
        twin has one more body slot per own coordinate (a *coordinate body*, added with
        ``mech.add_body``), reads ``s`` from that body's x, and holds the rest of the body's
        pose at zero (planar: y and angle, two more equations; spatial: y, z and the
        quaternion's vector part, five more). The Gruebler count is unchanged, and
        ``joints.Driver(coordinate_body, "x", value)`` drives ``s``.
        """
        d = cls.definition
        if not d.coordinates:
            raise ValueError(f"{cls.__name__} has no own coordinates")
        taken = {s.name for s in d.params} | {c.name for b in d.bodies for c in b.coordinates}
        aux = []
        for s in d.coordinates:
            label = f"{s.name}_carrier"
            while f"x_{label}" in taken:
                label += "_"
            aux.append(PlanarBodySymbols(label) if d.dim == 2 else SpatialBodySymbols(label))
        sub = {s: b.x for s, b in zip(d.coordinates, aux)}
        phi = [e.xreplace(sub) for e in d.phi]
        labels = list(d.labels) if d.labels else [str(i) for i in range(len(phi))]
        for s, b in zip(d.coordinates, aux):
            if d.dim == 2:
                phi += [b.y, b.theta]
                labels += [f"{s.name} carrier y", f"{s.name} carrier angle"]
            else:
                phi += [b.y, b.z, 2 * b.qx, 2 * b.qy, 2 * b.qz]
                labels += [f"{s.name} carrier {c}" for c in ("y", "z", "rx", "ry", "rz")]
        defaults = {k: v for k, v in d.defaults.items() if k in {p.name for p in d.params}}
        return symbolic_joint(name or f"{cls.__name__}OnCarrier", bodies=(*d.bodies, *aux),
                              params=d.params, phi=phi, time=d.time, labels=labels,
                              defaults=defaults)


def _param_property(i: int, nm: str):
    def get(self):
        return float(self._p[i])

    def set_(self, value):
        value = as_float(value, nm)
        defn = type(self).definition
        if defn.param_checks:
            values = dict(zip(type(self).params, self._p.tolist()))
            values[nm] = value
            _derive.check_parameter_values(defn, values)
        self._p[i] = value

    return property(get, set_, doc=f"Parameter ``{nm}`` (column {i} of ``P``).")


def _own_property(i: int, nm: str):
    def get(self):
        return float(self.coordinates[i])

    def set_(self, value):
        values = self.coordinates
        values[i] = as_float(value, nm)
        self.coordinates = values

    return property(get, set_, doc=f"Own coordinate ``{nm}`` (a coordinate of the state).")


#: Classes made again when unpickling, by definition: every instance of one class pickled
#: together comes back with one class (and a mechanism's groups stay one per class).
_UNPICKLED: dict = {}


def _unpickle_symbolic(definition, doc, use_cse, state):
    """An instance of the symbolic joint class of ``definition`` with ``state`` (pickling)."""
    key = (definition.name, repr(definition.bodies), tuple(map(str, definition.phi)),
           tuple(map(str, definition.params)), tuple(map(str, definition.coordinates)),
           str(definition.time), definition.labels, tuple(sorted(definition.defaults.items())),
           doc, use_cse)
    cls = _UNPICKLED.get(key)
    if cls is None:
        cls = _UNPICKLED[key] = symbolic_joint(
            definition.name, bodies=list(definition.bodies), phi=list(definition.phi),
            params=list(definition.params), coordinates=list(definition.coordinates),
            time=definition.time, labels=definition.labels, defaults=definition.defaults,
            doc=doc, use_cse=use_cse)
    joint = cls.__new__(cls)
    joint.__dict__.update(state)
    return joint


def symbolic_joint(name: str, *, bodies, phi, params=(), coordinates=(), time=None,
                   labels=None, defaults=None, doc: str | None = None,
                   use_cse: bool = True, cache: bool = True) -> type[SymbolicJoint]:
    """Define a joint class from its constraint functions Phi, written with SymPy.

    The Jacobian with respect to each body's Newton increment, Phi_t and the acceleration
    right-hand side gamma are derived from Phi; one ``sympy.cse`` over all of them becomes
    vectorized NumPy kernels that evaluate every instance of the class (and a batch of poses)
    at once. The kernels are cached on disk, so a second run skips SymPy's differentiation and
    cse (see :func:`mechsolve.symbolic.cache_dir`).

    Parameters
    ----------
    name : str
        Class name (a Python identifier).
    bodies : sequence of PlanarBodySymbols or SpatialBodySymbols
        From :func:`body_symbols` (``dim=2`` or ``dim=3``, not mixed), one per slot, in the
        order instances take their bodies. The class joins bodies of mechanisms of that
        dimension.
    phi : list of sympy expressions, or a column Matrix
        The constraint functions (zero when the joint is satisfied).
    params : sequence of sympy.Symbol
        Numeric parameters: keyword arguments (and attributes) of the instances, in the column
        order of ``P``.
    coordinates : sequence of sympy.Symbol
        The joint's own coordinates (e.g. a track's arc length): entries of the mechanism's
        state, driven with :class:`mechsolve.joints.CoordinateDriver`. Their Jacobian columns
        are an extra block of ``_evaluate``.
    time : sympy.Symbol, optional
        The time symbol, if Phi depends explicitly on time (the instance's ``time`` attribute
        gives its value).
    labels : sequence of str, optional
        Short names of the equations, used in reports.
    defaults : dict, optional
        Default values of parameters or own coordinates, by symbol or name.
    doc : str, optional
        Class docstring.

    Returns
    -------
    type
        A subclass of :class:`SymbolicJoint` (hence of :class:`mechsolve.joints.Joint`).

    Raises
    ------
    TypeError
        For arguments of the wrong kind, and an expression that cannot be turned into NumPy
        code (an unevaluated Integral or Derivative, a function without a NumPy equivalent);
        the message names the expression. Derived terms are checked too: a Phi with ``Abs``,
        ``sign``, ``floor``, ``Max``, ``Min`` or ``Heaviside`` prints, but its Jacobian or gamma
        may not (an unevaluated Derivative, a DiracDelta); the message then names the derived
        term (e.g. ``d phi[1] / d x1`` or ``gamma[1]``), the equation and the culprit.
    ValueError
        For a symbol of Phi that is neither a body coordinate nor declared (named in the
        message; a coordinate of a body of the other dimension is named as such), bodies that
        mix planar and spatial symbols, badly shaped Phi, clashing names; and for a Phi that is
        not a real expression: one with the imaginary unit ``I``, ``zoo``, ``oo`` or ``nan``, a
        constant that is not real (``asin(2)``, ``(-1)**(1/3)``), a part that is not real for
        any real values of its symbols (``sqrt(-x1**2 - 1)``), a ``Piecewise`` without an
        otherwise branch ``(expression, True)``, or a parameter, own coordinate or time symbol
        with non-real assumptions. Instances check their parameter values in turn (when built
        and when a parameter is set): a part of Phi in parameters alone that is not a finite
        real number at those values (``sqrt(L)`` at ``L = -1``, ``1/R`` at ``R = 0``) raises
        a ValueError naming the equation, the part and the values.

    Examples
    --------
    >>> import sympy as sp
    >>> from mechsolve.symbolic import body_symbols, symbolic_joint
    >>> (b,) = body_symbols(1)
    >>> cx, cy, r = sp.symbols("cx cy r")
    >>> OnCircle = symbolic_joint("OnCircle", bodies=[b], params=[cx, cy, r],
    ...                           phi=[(b.x - cx)**2 + (b.y - cy)**2 - r**2])
    >>> OnCircle.n_equations, OnCircle.params
    (1, ('cx', 'cy', 'r'))

    A spatial one: a body point on a sphere (Jacobian blocks with respect to ``(dr, dphi)``):

    >>> import numpy as np
    >>> (c,) = body_symbols(1, dim=3)
    >>> tip = c.to_global(0, 0, r)
    >>> OnSphere = symbolic_joint("OnSphere", bodies=[c], params=[r],
    ...                           phi=[tip[0]**2 + tip[1]**2 + tip[2]**2 - 4])
    >>> phi, (J,) = OnSphere._evaluate(np.array([[1.0]]), np.array([[1.0, 0, 0, 1, 0, 0, 0]]))
    >>> OnSphere.dims, J + 0.0         # tip at (1, 0, 1): d/dr = 2 tip, d/dphi = 2 (R p x tip)
    ((3,), array([[[2., 0., 2., 0., 2., 0.]]]))
    """
    defn = _derive.define(name, bodies, params, phi, coordinates, time, labels, defaults)
    for s in defn.params + defn.coordinates:
        if hasattr(SymbolicJoint, s.name):
            raise ValueError(f"{name}: the name {s.name!r} is reserved (it is an attribute of "
                             "every symbolic joint); rename the symbol")
    ns = _kernels(defn, use_cse=use_cse, cache=cache)
    namespace = {
        "__doc__": doc or f"Symbolic joint {name}: Phi = {list(defn.phi)}.",
        "__module__": "mechsolve.symbolic",
        "n_equations": len(defn.phi),
        "dims": (defn.dim,),
        "equation_labels": defn.labels,
        "definition": defn,
        "params": tuple(s.name for s in defn.params),
        # a time-dependent Phi carries the time in the last column, not a design parameter
        "layout": tuple((s.name, 1) for s in defn.params)
        + (((defn.time.name, 1),) if defn.time is not None else ()),
        "design_parameters": tuple(s.name for s in defn.params),
        "own_coordinates": tuple(s.name for s in defn.coordinates),
        "n_coordinates": len(defn.coordinates),
        "time_dependent": defn.time is not None,
        "source": ns["SOURCE"],
        "_phi": classmethod(ns["phi"]),
        "_evaluate": classmethod(ns["evaluate"]),
        "_phi_t": classmethod(ns["phi_t"]),
        **({"_phi_p": classmethod(ns["phi_p"])} if "phi_p" in ns else {}),
        "_gamma": classmethod(ns["gamma"]),
        **({"_terms": classmethod(ns["terms"])} if "terms" in ns else {}),
        "_use_cse": use_cse,
    }
    for i, s in enumerate(defn.params):
        namespace[s.name] = _param_property(i, s.name)
    for i, s in enumerate(defn.coordinates):
        namespace[s.name] = _own_property(i, s.name)
    return type(name, (SymbolicJoint,), namespace)
