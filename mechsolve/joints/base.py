"""The Joint abstraction: constraint functions Phi and their Jacobian, evaluated per class.

George & Guenter's JOINT exports the number of constraints, the bodies, ``phi`` and ``phi_q``.
mechsolve keeps that contract but evaluates a whole *class* of joints at once: a subclass gives
class-level kernels over stacked arrays,

``_phi(P, *X) -> phi``  with ``P`` of shape ``(..., k, p)`` (one parameter row per instance) and
one ``X`` per body slot of shape ``(..., k, 3)`` (planar poses ``x, y, angle``), returning
``(..., k, m)``;

``_evaluate(P, *X) -> (phi, [J_1, ..., J_s])`` also returning the Jacobian block of each slot,
``(..., k, m, 3)``, with respect to that body's pose increment;

``_phi_p(P, *X) -> (..., k, m, p)``: the derivative of Phi with respect to the class's own
parameter vector (the columns of ``P``, quaternions and directions in their raw components),
for sensitivities (:mod:`mechsolve.design.sensitivity`). The default differentiates ``_phi`` by
central differences with Richardson extrapolation (:meth:`Joint._numeric_phi_p`), which a user
class keeps; every built-in class overrides it with the closed form (the spatial ones through
:mod:`mechsolve.joints._phi_p`, symbolic classes generate it) but
:class:`~mechsolve.joints.SerialChain`, whose numbers have no names.

Equations made of dot products can also vanish at a *mirror image* of the assembly a joint
means (a hinge whose two axes point opposite ways satisfies ``-y_1 . z_2 = x_1 . z_2 = 0`` as
well as the right one). Phi cannot tell the two apart, so a class with such roots overrides
the check ``_mirrored(P, *X) -> (..., k)`` (booleans, same arguments as ``_phi``), to be
evaluated after convergence; :attr:`Joint.mirror_description` says what is wrong in words.

The leading ``...`` is an optional batch axis (many poses at once). A subclass that only writes
``_phi`` gets a central finite-difference Jacobian from this base class; built-in joints override
``_evaluate`` with analytic blocks, and the test suite checks each against the numeric one.
"""

from __future__ import annotations

import inspect
from abc import ABCMeta, abstractmethod
from typing import ClassVar

import numpy as np

from .._collector import collector_paused
from .._validation import MAX_ANGLE, as_float, as_name
from .._warnings import check_degrees_value
from ..body import Body
from ._geometry import Geometry

__all__ = ["Joint", "DriverJoint", "ParameterSlices"]

_FD_STEP = 1e-6

#: The joint coordinates of a joint that has none (shared by :meth:`Joint._many`'s joints).
_NO_COORDINATES = np.zeros(0)
_NO_COORDINATES.flags.writeable = False


def _is_spatial(obj) -> bool:
    """Whether a constructor's first argument (a body or a joint) belongs to a 3D mechanism."""
    if isinstance(obj, Body):
        return obj.mechanism.dim == 3
    if isinstance(obj, Joint):
        return obj.dim == 3
    return False


def _advance(X: np.ndarray, V: np.ndarray, h: float, body: bool = True) -> np.ndarray:
    """Poses ``X`` moved for a time ``h`` at constant velocity ``V`` (``exp`` map in space)."""
    if not body or X.shape[-1] == 3:
        return X + h * V
    from ..spatial._quat import quat_exp, quat_multiply

    out = np.empty(np.broadcast_shapes(X.shape, V.shape[:-1] + (7,)))
    out[..., :3] = X[..., :3] + h * V[..., :3]
    out[..., 3:] = quat_multiply(quat_exp(h * V[..., 3:]), X[..., 3:])
    return out


def _perturb(X: np.ndarray, c: int, h: float, body: bool = True) -> np.ndarray:
    """Poses ``X`` (or joint coordinates) moved by ``h`` along increment component ``c``."""
    out = X.copy()
    if not body or X.shape[-1] == 3 or c < 3:
        out[..., c] += h
    else:
        from ..spatial._quat import quat_exp, quat_multiply

        w = np.zeros(3)
        w[c - 3] = h
        out[..., 3:] = quat_multiply(quat_exp(w), X[..., 3:])
    return out


#: The spatial class each planar class with a spatial form builds from the bodies of a spatial
#: mechanism: ``joints.Revolute(...)`` with spatial bodies builds a ``SpatialRevolute``. A spatial
#: class declares it in its class statement (``class SpatialRevolute(_FrameJoint,
#: variant_of=Revolute)``), which also registers it as a virtual subclass of the planar class
#: (``isinstance(hinge, joints.Revolute)`` holds for both forms; nothing is inherited). The
#: first definition wins, so that a module executed again (pytest's doctest import) does not
#: re-point the planar classes.
SPATIAL_VARIANTS: dict[type, type] = {}


def dimension_dispatch(*leading: str, call=None):
    """The ``__new__`` of a planar joint class with a spatial form (see
    :data:`SPATIAL_VARIANTS`): called with the bodies of a spatial mechanism it returns the
    spatial class's joint, built from the same arguments; else a new joint of the class itself
    (which ``__init__`` then builds).

    ``leading`` names the arguments before those the two forms spell differently (the bodies,
    or the driven joint); the first decides. ``inspect.signature`` of the class then shows
    ``(leading..., *args, **kwargs)``, and the class's docstring gives both calls. Where both
    forms take the same arguments, ``call`` (the planar ``__init__``) gives the signature.
    """

    def __new__(cls, *args, **kwargs):  # noqa: N807 (it becomes a class's __new__)
        spatial = SPATIAL_VARIANTS.get(cls)
        first = args[0] if args else kwargs.get(leading[0])
        if spatial is not None and _is_spatial(first):
            return spatial(*args, **kwargs)
        return object.__new__(cls)

    kind = inspect.Parameter
    if call is not None:   # the call both forms take (without the planar annotations)
        params = [p.replace(annotation=p.empty)
                  for p in inspect.signature(call).parameters.values()]
        __new__.__signature__ = inspect.Signature([params[0].replace(name="cls")] + params[1:])
    else:
        __new__.__signature__ = inspect.Signature(
            [kind("cls", kind.POSITIONAL_OR_KEYWORD)]
            + [kind(name, kind.POSITIONAL_OR_KEYWORD) for name in leading]
            + [kind("args", kind.VAR_POSITIONAL), kind("kwargs", kind.VAR_KEYWORD)])
    return __new__


def spatial_form(cls, first):
    """The spatial class of the planar class ``cls`` when ``first`` (its first argument)
    belongs to a spatial mechanism, else ``None``: ``at`` constructors dispatch with it."""
    spatial = SPATIAL_VARIANTS.get(cls)
    return spatial if spatial is not None and _is_spatial(first) else None


class ParameterSlices:
    """Where each named part of a joint class's parameter vector sits: ``cls.sl.point1``.

    Made from the class's :attr:`Joint.layout` ``((name, size), ...)`` when the class is
    defined, so a kernel reads its parameters by name at the cost of an index:
    ``P[..., cls.sl.point1]`` is the ``(..., k, 2)`` stack of a planar pin's first points. A
    part of several numbers is a ``slice``, a part of one number an ``int`` (``P[..., cls.sl.
    length]`` has shape ``(..., k)``). One part may have a variable size (``None`` in the
    layout: a centre of mass's bodies, a serial chain's joints); the parts after it are counted
    from the end of the vector.

    Examples
    --------
    >>> from mechsolve import joints
    >>> joints.Distance.sl.point2, joints.Distance.sl.length
    (slice(2, 4, None), 4)
    >>> joints.Distance.sl
    ParameterSlices(point1=slice(0, 2, None), point2=slice(2, 4, None), length=4)
    """

    def __init__(self, layout=()) -> None:
        layout = tuple(layout)
        variable = [name for name, size in layout if size is None]
        if len(variable) > 1:
            raise TypeError(f"a parameter layout may have one part of variable size, got "
                            f"{variable}")
        self._layout = layout
        self._slices: dict[str, slice] = {}
        sizes = [size for _, size in layout]
        # the parts after a variable one are counted from the end: they start at -tail
        tail = sum(sizes[sizes.index(None) + 1:]) if variable else 0
        start = 0
        for name, size in layout:
            if size is None:
                self._slices[name] = slice(start, -tail or None)
                start = -tail
            else:
                stop = start + size
                self._slices[name] = slice(start, stop if start >= 0 else stop or None)
                start = stop
        #: The number of parameters, ``None`` for a layout with a part of variable size.
        self._size = None if variable else start
        self._fixed = sum(size for size in sizes if size is not None)
        for name, sl in self._slices.items():
            size = dict(layout)[name]
            setattr(self, name, sl.start if size == 1 else sl)

    def __repr__(self) -> str:
        parts = ", ".join(f"{name}={getattr(self, name)!r}" for name, _ in self._layout)
        return f"ParameterSlices({parts})"

    def __iter__(self):
        return iter(self._slices)

    def __len__(self) -> int:
        if self._size is None:
            raise TypeError("a parameter layout with a part of variable size has no fixed length")
        return self._size

    def slices(self) -> dict:
        """``{name: slice}`` of every part (a one-number part as a slice too)."""
        return dict(self._slices)

    def check(self, n: int) -> bool:
        """Whether ``n`` parameters fit the layout."""
        return n == self._fixed if self._size is not None else n >= self._fixed


def _parameter_property(name: str, sl: slice, size: int | None) -> property:
    """A property reading (a copy of) and setting one part of a joint's parameters (``size``
    numbers, ``None``: as many as the instance has there)."""

    def get(self):
        part = self._p[sl]
        return float(part[0]) if size == 1 else part.copy()

    def put(self, value):
        from .._validation import as_float, as_vector

        n = size if size is not None else len(self._p[sl])
        self._p[sl] = as_float(value, name) if size == 1 else as_vector(value, name, n)

    count = "a variable number of" if size is None else f"{size}"
    prop = property(get, put, doc=f"The parameter ``{name}`` ({count} number"
                                  f"{'s' if size != 1 else ''}), read and set between solves.")
    prop.fget._param_slice = (sl.start, sl.stop)
    return prop


def _richardson_columns(P: np.ndarray, f, step: float = 1e-3) -> list:
    """The derivatives of ``f(P)`` (a tuple of arrays ``(..., k, ...)``) in every column
    ``P[..., c]`` of stacked parameters ``P (..., k, p)``: one tuple per column, by central
    differences with Richardson extrapolation (error of order ``h**4``).

    The step of column ``c`` of an instance is ``step`` times the larger of ``|P_c|`` and the
    root mean square of the instance's parameters (1 when they are all zero): it follows the
    size (and the unit) of the points and lengths. Two pairs of ``f`` calls per column, over all
    instances at once.
    """
    if not P.shape[-1]:
        return []
    size = np.sqrt(np.mean(P * P, axis=-1, keepdims=True))
    steps = step * np.maximum(np.abs(P), np.where(size > 0.0, size, 1.0))

    def central(c, h):
        Pp, Pm = P.copy(), P.copy()
        Pp[..., c] += h
        Pm[..., c] -= h
        h2 = 2.0 * h[..., None]
        return [(a - b) / h2 for a, b in zip(f(Pp), f(Pm))]

    out = []
    for c in range(P.shape[-1]):
        d1, d2 = central(c, steps[..., c]), central(c, steps[..., c] / 2)
        out.append(tuple((4.0 * b - a) / 3.0 for a, b in zip(d1, d2)))
    return out

class Joint(metaclass=ABCMeta):
    """Abstract base of every constraint (joints, drivers, end effectors).

    Subclasses set :attr:`n_equations`, optionally :attr:`equation_labels`, pass their bodies and
    a flat parameter vector to ``Joint.__init__`` and implement the class-level kernel ``_phi``
    (and, for speed, ``_evaluate``).

    Parameters
    ----------
    bodies : sequence of Body
        The bodies this joint constrains, in slot order.
    params : array_like
        Flat vector of numeric parameters, the same length for every instance of the class.
    name : str, optional
        Name used in reports and error messages.
    """

    n_equations: ClassVar[int]
    equation_labels: ClassVar[tuple[str, ...] | None] = None
    #: Which equations measure a length (True) rather than an angle or a pure number; the
    #: solver measures the residuals of the former in units of the model's size. ``None``: read
    #: from the Jacobian (the equations that depend on a body's position or a length
    #: coordinate), which is right unless an angle is computed from positions.
    equation_lengths: ClassVar[tuple[bool, ...] | None] = None
    #: Whether the joint is a goal (a driver's value, an end effector's target) rather than
    #: part of what holds the mechanism together: a solve that cannot meet every goal reports
    #: the pose nearest them that keeps the other joints.
    is_goal: ClassVar[bool] = False
    #: Mechanism dimensions the class works in; a planar class with a spatial form builds the
    #: spatial class when given spatial bodies (see :data:`SPATIAL_VARIANTS`).
    dims: ClassVar[tuple[int, ...]] = (2,)
    #: The parameter vector's layout, ``((name, size), ...)`` in order: each name reads (and
    #: sets) its part of the parameters through :meth:`param` and a property of that name
    #: (unless the class defines one).
    layout: ClassVar[tuple[tuple[str, int], ...]] = ()
    #: The parts of :attr:`layout` that are free design parameters, by name (``None``: all of
    #: them): see :meth:`mechsolve.Mechanism.parameters`. A class leaves out parts that select
    #: what it does (a driver's coordinate weights) or copy another joint's parameters.
    design_parameters: ClassVar[tuple[str, ...] | None] = None
    #: Where each part of :attr:`layout` sits in the parameter vector, by name: kernels read
    #: ``P[..., cls.sl.point1]`` (see :class:`ParameterSlices`); made from the layout when the
    #: class is defined.
    sl: ClassVar[ParameterSlices] = ParameterSlices()
    _slices: ClassVar[dict] = {}
    #: Coordinates the joint carries in the state (a track's arc length, a link's joint value).
    n_coordinates: ClassVar[int] = 0
    #: Whether the kernels take joint coordinates as a last argument ``S`` of shape
    #: ``(..., k, r)`` and return one more Jacobian block ``(..., k, m, r)`` for them.
    _coordinate_slot: ClassVar[bool] = False

    #: The scalar quantity that ``limits=`` bounds, for classes that take limits (a
    #: revolute's relative ``"angle"``, a prismatic's ``"slide"``, a link joint's
    #: ``"coordinate"``); ``None``: the class takes no limits. The class gives its value and
    #: gradient by :meth:`_limit_measure`.
    limit_quantity: ClassVar[str | None] = None
    #: Whether the limited quantity is an angle measured by ``atan2`` (in ``(-pi, pi]``): it is
    #: then read within the turn centred on the limits (see :mod:`mechsolve._limits`).
    _limit_wraps: ClassVar[bool] = False
    _limits: tuple | None = None
    #: Whether the class's ``_phi`` and ``_evaluate`` take planar poses with the cosine and
    #: sine of the body angle appended, ``(x, y, t, cos t, sin t)``, and read them rather than
    #: compute them (:func:`mechsolve.joints._planar._rotate`): the NumPy
    #: :class:`~mechsolve._system.System` then computes them once per body, not once per joint
    #: side. Read from the class itself (a subclass with kernels of its own says so again).
    #: ``_terms`` takes either form; tracers (JAX) pass three columns.
    _trig_columns: ClassVar[bool] = False
    #: Whether :meth:`_many` may build unnamed joints of this very class (not its subclasses)
    #: from finite parameter rows without calling the constructor: set by classes of two
    #: distinct planar bodies whose constructor takes the layout's parts in order after the
    #: bodies and checks nothing else of them.
    _many_fast: ClassVar[bool] = False

    #: What is wrong with a pose :meth:`_mirrored` flags, as a clause that completes
    #: ``"<joint description>: ..."`` in messages.
    mirror_description: ClassVar[str] = ("it satisfies its equations only as a mirror image "
                                         "of the assembly it means")

    def __init_subclass__(cls, variant_of: type | None = None, **kwargs):
        super().__init_subclass__(**kwargs)
        if cls.__dict__.get("n_coordinates", 0):
            cls._coordinate_slot = True
        if ("_phi" in cls.__dict__ or "_evaluate" in cls.__dict__) \
                and "_phi_p" not in cls.__dict__:
            # a class that redefines Phi does not inherit its base's closed-form Phi_p (a
            # subclass with equations of its own): finite differences until it gives its own
            cls._phi_p = Joint.__dict__["_phi_p"]
        if variant_of is not None and SPATIAL_VARIANTS.setdefault(variant_of, cls) is cls:
            variant_of.register(cls)
        if "layout" in cls.__dict__:
            cls.sl = ParameterSlices(cls.layout)
            cls._slices = cls.sl.slices()
            for name, sl in cls._slices.items():
                inherited = getattr(cls, name, None)
                # a parameter property inherited from a class with another layout (a subclass
                # that lays its parameters out anew) would read the wrong part of them
                stale = isinstance(inherited, property) and getattr(
                    inherited.fget, "_param_slice", (sl.start, sl.stop)) != (sl.start, sl.stop)
                if name not in cls.__dict__ and (inherited is None or stale):
                    setattr(cls, name, _parameter_property(name, sl, dict(cls.layout)[name]))
        if cls.attachment_points is not None:
            cls.attachment_parameters = tuple((slot, cls._slices[name])
                                              for slot, name in cls.attachment_points)

    @classmethod
    def _checks_mirror(cls) -> bool:
        """Whether the class checks for mirrored assemblies (overrides :meth:`_mirrored`);
        the solver skips the others."""
        return cls._mirrored.__func__ is not Joint.__dict__["_mirrored"].__func__


    def __init__(self, bodies, params, *, name: str | None = None) -> None:
        self._name = as_name(name)
        bodies = tuple(bodies)
        kind = type(self).__name__
        for i, body in enumerate(bodies):
            if not isinstance(body, Body):
                raise TypeError(
                    f"{kind}: body {i + 1} must be a mechsolve Body "
                    f"(from Mechanism.add_body or Mechanism.ground), got {type(body).__name__}"
                )
        dim = bodies[0]._mechanism.dim if bodies else 2
        if dim not in self.dims:
            raise TypeError(f"{kind} is a {'planar' if 2 in self.dims else 'spatial'} joint; "
                            f"its bodies belong to a {'spatial' if dim == 3 else 'planar'} "
                            "mechanism")
        first = bodies[0]._mechanism if bodies else None
        moving = []
        for b in bodies:
            if b._mechanism is not first:
                raise ValueError(f"{kind}: the bodies {[b.name for b in bodies]} belong to "
                                 "different mechanisms")
            if b._index is not None:
                if b in moving:
                    raise ValueError(f"{kind}: a joint between a body and itself "
                                     f"({b.name!r}) constrains nothing")
                moving.append(b)
        if not moving and not self._coordinate_slot:
            raise ValueError(f"{kind}: a joint must constrain at least one moving body, "
                             "got only ground")
        self._bodies = bodies
        self._p = np.array(params, dtype=float)
        sl = self.sl
        if sl._layout and not sl.check(len(self._p)):
            raise TypeError(f"{kind}: {len(self._p)} parameters do not fit the class's layout "
                            f"{self.layout}")
        self._mechanism = None
        if not hasattr(self, "_coord_init"):
            n = self.n_coordinates
            self._coord_init = np.zeros(n) if n else _NO_COORDINATES

    @classmethod
    def _many(cls, bodies, params) -> list:
        """Unnamed joints of this class without limits, one per item: what
        ``[cls(*b, *parts of p) for b, p in zip(bodies, params)]`` builds (the parts of each
        parameter row in :attr:`layout` order, as the class's constructor takes them after
        its bodies), for builders that make thousands of joints (``models.fourbar_chain``).

        ``bodies`` holds one tuple of bodies per joint, ``params`` one parameter row each
        (``(k, p)``). What the constructors check one joint at a time is checked here over
        all of them at once (bodies of one planar mechanism, two distinct ones, finite rows of
        the layout's width); when any check fails, the constructor builds every item, so the
        first bad one raises the constructor's own message.

        Examples
        --------
        >>> import mechsolve as ms
        >>> mech = ms.Mechanism()
        >>> a = mech.add_body("a", position=(1.0, 0.0))
        >>> pins = ms.joints.Revolute._many([(mech.ground, a)], [[1.0, 0.0, 0.0, 0.0]])
        >>> pins[0].point1, pins[0].point2
        (array([1., 0.]), array([0., 0.]))
        """
        bodies = [tuple(b) for b in bodies]
        try:
            P = np.array(params, dtype=float)
        except (TypeError, ValueError):
            P = None
        if not cls._many_checks(bodies, P):
            parts = [(sl.start, sl.stop) for sl in cls._slices.values()]
            return [cls(*b, *(row[a:z] if z - a > 1 else float(row[a]) for a, z in parts))
                    for b, row in zip(bodies, np.asarray(params, dtype=object).tolist())] \
                if parts else [cls(*b) for b in bodies]
        empty = _NO_COORDINATES
        new = object.__new__
        out = []
        append = out.append
        with collector_paused():   # many objects, no cycles
            for b, row in zip(bodies, P):
                j = new(cls)
                j.__dict__.update(_name=None, _bodies=b, _p=row, _mechanism=None,
                                  _coord_init=empty)
                append(j)
        return out

    @classmethod
    def _many_checks(cls, bodies, P) -> bool:
        """Whether :meth:`_many` may build these joints without their constructor: the class
        says so (:attr:`_many_fast`: its constructor checks no more than this), the rows
        are finite and of the layout's width, each joint's two bodies are distinct planar
        bodies of one mechanism, not both ground."""
        width = sum(size for _, size in cls.layout)
        if (not cls.__dict__.get("_many_fast", False) or P is None or P.ndim != 2
                or P.shape != (len(bodies), width) or not np.isfinite(P).all()):
            return False
        if not bodies:
            return True
        mech = getattr(bodies[0][0], "_mechanism", None)
        if mech is None or mech.dim != 2:
            return False
        for b in bodies:
            if len(b) != 2:
                return False
            b1, b2 = b
            if (b1.__class__ is not Body or b2.__class__ is not Body or b1._mechanism is not mech
                    or b2._mechanism is not mech or b1 is b2):
                return False   # (ground to ground is b1 is b2 too)
        return True

    # -- limits ---------------------------------------------------------------------------------
    @property
    def limits(self) -> tuple | None:
        """``(lower, upper)`` bounds of the joint's :attr:`limit_quantity` (either side may be
        ``None``: unbounded), or ``None`` for no limits; assignable between solves.

        Solves, sweeps, :meth:`~mechsolve.Mechanism.solve_batch` keep the quantity within
        them (see :mod:`mechsolve._limits`). Angles are in radians, lengths in the model's
        unit.
        """
        return self._limits

    @limits.setter
    def limits(self, value) -> None:
        self._set_limits(value)
        if self._mechanism is not None:
            self._mechanism.limits_changed()

    def _set_limits(self, value) -> None:
        """Check and store ``limits=`` (constructor helper)."""
        if value is None:   # the common case: no import, no checks
            self._limits = None
            return
        from .._limits import as_limits

        if self.limit_quantity is None:
            raise TypeError(f"{type(self).__name__} takes no limits (limits= is for joints "
                            "with a scalar relative angle, slide or coordinate)")
        self._limits = as_limits(value, f"{type(self).__name__}: limits")

    @property
    def limit_wraps(self) -> bool:
        """Whether the limited angle is read within the turn centred on the limits (rather
        than continuously, counting whole turns)."""
        return self._limit_wraps

    @property
    def limit_is_length(self) -> bool:
        """Whether the limited quantity is a length (else an angle or a number)."""
        return self.limit_quantity in ("slide", "distance")

    def limit_measure(self) -> float:
        """The current value of the quantity :attr:`limits` bounds (at the bodies' poses),
        read as the solver reads it."""
        from .._limits import unwrap

        if self.limit_quantity is None:
            raise TypeError(f"{type(self).__name__} has no limited quantity")
        value = float(type(self)._limit_measure(self._p[None, :], *self._kernel_args())[0][0])
        if self.limit_wraps:
            value = float(unwrap(value, *(self._limits or (None, None))))
        return value

    @classmethod
    def _limit_measure(cls, P: np.ndarray, *X: np.ndarray):
        """The limited quantity of every instance ``(..., k)`` and its gradient blocks, one per
        body slot ``(..., k, body increment)`` (and ``(..., k, r)`` for the joint coordinates
        of a class with a coordinate slot), from the same arguments as :meth:`_phi`."""
        raise NotImplementedError(f"{cls.__name__} has no limited quantity")

    # -- description ----------------------------------------------------------------------------
    @property
    def bodies(self) -> tuple[Body, ...]:
        """The constrained bodies, in slot order."""
        return self._bodies

    @property
    def mechanism(self):
        """The mechanism this joint was added to, or ``None``."""
        return self._mechanism

    @property
    def name(self) -> str | None:
        """The joint's name (``None`` if unnamed), unique in its mechanism; assignable."""
        return self._name

    @name.setter
    def name(self, value: str | None) -> None:
        value = as_name(value)
        if self._mechanism is not None:
            self._mechanism.rename(self, value)
        else:
            self._name = value

    @property
    def label(self) -> str:
        """``Kind 'name'`` (or just the kind) for messages."""
        kind = type(self).__name__
        return f"{kind} {self.name!r}" if self.name else kind

    def describe(self) -> str:
        """One line naming the joint and the bodies it joins."""
        if not self._bodies:
            owner, c = self._coord_refs[0]
            return f"{self.label} on coordinate {c} of {owner.label}"
        names = " and ".join(b.name for b in self._bodies)
        if len(self._bodies) > 1:
            return f"{self.label} between {names}"
        return f"{self.label} on {names}"

    def equation_label(self, i: int) -> str:
        """Short name of this joint's equation ``i``."""
        labels = self.equation_labels
        if labels is not None and i < len(labels):
            return labels[i]
        return str(i)

    def __repr__(self) -> str:
        return f"<{self.describe()}>"

    def param(self, name: str):
        """The parameter ``name`` of :attr:`layout`: a float, or a copy of its numbers."""
        try:
            sl = self._slices[name]
        except KeyError:
            raise KeyError(f"{type(self).__name__} has no parameter {name!r}; its parameters "
                           f"are {[n for n, _ in self.layout]}") from None
        part = self._p[sl]
        return float(part[0]) if dict(self.layout)[name] == 1 else part.copy()

    # -- geometry ---------------------------------------------------------------------------------
    #: Where the class's instances attach, as ``((body slot, parameter name), ...)``: the
    #: points :meth:`attachments` returns, read for all instances at once when the
    #: characteristic length of a large model is computed. ``None``: ask each instance.
    attachment_points: ClassVar[tuple[tuple[int, str], ...] | None] = None
    #: :attr:`attachment_points` with the parameters' slices (made when the class is defined).
    attachment_parameters: ClassVar[tuple[tuple[int, slice], ...] | None] = None

    def attachments(self) -> list:
        """Where the joint attaches: ``[(body, local point), ...]``.

        The mechanism's characteristic length (which scales the solver's tolerances) is taken
        from these points. Built-in joints declare them in :attr:`attachment_points`;
        another class can define ``plot_points(self) -> [(body, point), ...]`` (body
        coordinates), which drawings use too.
        """
        if self.attachment_parameters is not None:
            return [(self._bodies[s], self._p[sl].copy()) for s, sl in self.attachment_parameters]
        hook = getattr(self, "plot_points", None)
        if callable(hook):
            return [(b, np.asarray(p, dtype=float)) for b, p in hook()]
        return []

    def geometry(self):
        """What the joint looks like: a :class:`~mechsolve.joints._geometry.Geometry` of points,
        axes, rails, circles... in its bodies' coordinates, which the drawings
        (:mod:`mechsolve.plot`) draw and move with the bodies.

        The default draws the points ``plot_points(self) -> [(body, point), ...]`` gives, if
        the class defines it (body coordinates); the built-in joints say more.
        """
        hook = getattr(self, "plot_points", None)
        if not callable(hook):
            return Geometry()
        dim = self.dim
        points = []
        for b, p in hook():
            q = np.asarray(p, dtype=float)
            if q.shape != (dim,) and dim == 3:
                raise ValueError(f"{type(self).__name__}.plot_points must give (body, (x, y, z)) "
                                 f"pairs, got a point of shape {q.shape}")
            points.append((b, q.reshape(dim)))
        if dim == 2 or not points:
            return Geometry(points=points)
        last = points[-1] if not points[-1][0].is_ground else points[0]
        return Geometry(points=points, pins=[last])

    def anchor(self) -> list:
        """``[(body, point), ...]`` that locate the joint on a drawing (where a red note or a
        driver's mark goes): its geometry's (:meth:`Geometry.where
        <mechsolve.joints._geometry.Geometry.where>`), else the origins of its moving bodies
        (of its bodies if all are ground; none for a joint without bodies)."""
        parts = self.geometry().where()
        if parts:
            return parts
        moving = [b for b in self._bodies if not b.is_ground] or list(self._bodies)
        return [(b, np.zeros(self.dim)) for b in moving]

    def length_hint(self) -> float:
        """A length the joint carries itself (a rod's length, an arm's reach), else 0."""
        return 0.0

    @property
    def coordinate_lengths(self) -> np.ndarray:
        """Which of the joint's own coordinates are lengths (True) rather than angles or
        dimensionless numbers; the solver scales length coordinates by the model's size."""
        return np.zeros(self.n_coordinates, dtype=bool)

    @property
    def _coordinate_angles(self) -> np.ndarray:
        """Which of the joint's own coordinates are angles in radians (a revolute link's joint
        value): a :class:`~mechsolve.joints.CoordinateDriver` of one is an angle driver."""
        return np.zeros(self.n_coordinates, dtype=bool)

    # -- evaluation at the current state --------------------------------------------------------
    def residual(self) -> np.ndarray:
        """This joint's constraint values Phi at the bodies' current poses, shape ``(m,)``."""
        return type(self)._phi(self._p[None, :], *self._kernel_args())[0]

    def is_mirrored(self) -> bool:
        """Whether the bodies' current poses are a mirror image of this joint's assembly.

        At a converged state, ``True`` means the joint's equations hold only because the
        bodies are assembled as a mirror image of what the joint means (two hinge axes
        antiparallel, a weld turned a half turn); :attr:`mirror_description` says which. Only
        the orientation is looked at, not the residual (see :meth:`_mirrored`).
        """
        return bool(type(self)._mirrored(self._p[None, :], *self._kernel_args())[0])

    def _hinge_lines(self) -> list:
        """``[(body, global point, global unit axis), ...]``: lines about which a moving body of
        the joint turns without breaking it (a hinge's axis), which the search for other
        assemblies turns bodies about. Default: none."""
        return []

    def _half_turns(self) -> list:
        """``[(body, global axis), ...]``: half turns of the joint's moving bodies that can
        take a mirrored assembly back to a true one (the solver tries each). Default: about
        each axis of each moving body; joints placed by frames use their frames' axes."""
        return [(b, b.rotation[:, k].copy()) for b in self._bodies if not b.is_ground
                for k in range(b.rotation.shape[1])]

    @property
    def dim(self) -> int:
        """2 for planar joints, 3 for spatial ones (taken from the bodies)."""
        if not self._bodies:
            return self._coord_refs[0][0].dim
        return self._bodies[0].mechanism.dim

    @property
    def _coord_refs(self) -> tuple:
        """``(owner joint, index)`` of every joint coordinate the kernels read."""
        return tuple((self, c) for c in range(self.n_coordinates))

    @property
    def coordinates(self) -> np.ndarray:
        """Current values of the joint's own coordinates (empty for most joints)."""
        if self.n_coordinates == 0:
            return np.zeros(0)
        if self._mechanism is None:
            return self._coord_init.copy()
        mech = self._mechanism
        return mech.state_at(mech.layout.coord_slice(self))

    @coordinates.setter
    def coordinates(self, values) -> None:
        from .._validation import as_vector

        v = as_vector(values, "coordinates", self.n_coordinates)
        if self._mechanism is None:
            self._coord_init = v
        else:
            self._mechanism.put_state(v, at=self._mechanism.layout.coord_slice(self))

    def _kernel_args(self):
        """This instance's kernel arguments at the current state (``k = 1``)."""
        args = [b.pose[None, :] for b in self._bodies]
        if self._coordinate_slot:
            args.append(np.array([[owner.coordinates[c] for owner, c in self._coord_refs]]))
        return args

    # -- kernels --------------------------------------------------------------------------------
    #: The kernel written once, ``_terms(xp, P, *X, jacobian=True) -> (phi, blocks)`` as tuples
    #: of component expressions in the array namespace ``xp`` (see :mod:`mechsolve.joints.
    #: _terms`): what the JAX backend traces. ``None`` for a class that has none yet.
    _terms = None
    #: Whether the ``_phi`` and ``_evaluate`` the class declares with it are written once over
    #: the array namespace of their arguments (NumPy in, NumPy out; JAX arrays or tracers in,
    #: JAX out): what the JAX backend traces for spatial systems. A subclass that overrides
    #: either kernel without declaring it again is not traced (see
    #: :func:`mechsolve._jax.system.traceable`).
    _generic_kernels = False

    @classmethod
    @abstractmethod
    def _phi(cls, P: np.ndarray, *X: np.ndarray) -> np.ndarray:
        """Constraint values for stacked instances: ``(..., k, m)``."""

    @classmethod
    def _mirrored(cls, P: np.ndarray, *X: np.ndarray) -> np.ndarray:
        """Where stacked instances are assembled as a mirror image of what they mean.

        Some joints' equations are dot products that vanish at a mirrored pose as well as at
        the intended one (two z axes antiparallel instead of parallel, a weld turned a half
        turn). Phi cannot express "parallel, not antiparallel", so the solver's result has to
        be checked after convergence: this returns ``True`` for an instance whose poses are
        such a mirror image. It looks at the orientation only, not at the residual, and is
        meant for converged poses; a class whose equations have no mirrored roots keeps this
        default (all ``False``).

        Parameters
        ----------
        P : ndarray, shape (..., k, p)
            Stacked parameters, as for :meth:`_phi`.
        *X : ndarray
            One pose array ``(..., k, 3)`` or ``(..., k, 7)`` per body slot, then the joint
            coordinates ``(..., k, r)`` for a class with a coordinate slot.

        Returns
        -------
        ndarray of bool, shape (..., k)
        """
        shape = np.broadcast_shapes(P.shape[:-1], *(x.shape[:-1] for x in X))
        return np.zeros(shape, dtype=bool)

    @classmethod
    def _evaluate(cls, P: np.ndarray, *X: np.ndarray):
        """Constraint values and per-slot Jacobian blocks (default: finite differences)."""
        return cls._phi(P, *X), cls._numeric_jacobian(P, *X)

    @classmethod
    def _gamma(cls, P: np.ndarray, *XV: np.ndarray) -> np.ndarray:
        """Acceleration right-hand side ``gamma = -(dJ/dt) v`` for stacked instances.

        ``XV`` holds the poses of every slot followed by the velocities of every slot
        (planar ``(xdot, ydot, thetadot)``, spatial ``(v, omega)`` with omega global). The
        default differentiates the (analytic) Jacobian along the motion by central differences
        with Richardson extrapolation (error of order ``h**4``); joints with a cheap closed form
        override it. Time-dependent driver terms are added by the mechanism.
        """
        s = len(XV) // 2
        X, V = XV[:s], XV[s:]
        kinds = [True] * (s - 1) + [not cls._coordinate_slot] if s else []
        speed = max((float(np.max(np.abs(v), initial=0.0)) for v in V), default=0.0)
        if speed == 0.0:
            return np.zeros(cls._phi(P, *X).shape)
        h = 2e-3 / speed

        def directional(step):
            plus = cls._evaluate(P, *(_advance(x, v, step, b) for x, v, b in zip(X, V, kinds)))[1]
            minus = cls._evaluate(P, *(_advance(x, v, -step, b)
                                       for x, v, b in zip(X, V, kinds)))[1]
            total = 0.0
            for Jp, Jm, v in zip(plus, minus, V):
                total = total + np.einsum("...ij,...j->...i", Jp - Jm, v)
            return total / (2 * step)

        d1 = directional(h)
        d2 = directional(h / 2)
        return -(4 * d2 - d1) / 3

    @classmethod
    def _phi_p(cls, P: np.ndarray, *X: np.ndarray) -> np.ndarray:
        """Derivative of Phi with respect to the parameter columns ``P[..., c]`` of stacked
        instances: ``(..., k, m, p)`` (same arguments as :meth:`_phi`).

        The default is :meth:`_numeric_phi_p`; classes override it with the closed form, and
        the test suite checks each against the numeric one. It differentiates ``_phi`` as it
        reads ``P``: a quaternion or a direction in its raw components, off the unit sphere
        too (the sensitivities project those columns on the sphere's tangent).
        """
        return cls._numeric_phi_p(P, *X)

    @classmethod
    def _numeric_phi_p(cls, P: np.ndarray, *X: np.ndarray, step: float = 1e-3) -> np.ndarray:
        """Central differences of :meth:`_phi` in every parameter column, Richardson
        extrapolated (about 1e-11 of the derivative's size), with steps that follow the size
        and unit of the joint's points and lengths (see :func:`_richardson_columns`)."""
        P = np.asarray(P, dtype=float)
        cols = [d for d, in _richardson_columns(P, lambda Q: (cls._phi(Q, *X),), step)]
        if not cols:
            shape = np.broadcast_shapes(P.shape[:-1], *(x.shape[:-1] for x in X))
            return np.zeros(shape + (cls.n_equations, 0))
        return np.stack(cols, axis=-1)

    @classmethod
    def _numeric_jacobian(cls, P: np.ndarray, *X: np.ndarray) -> list[np.ndarray]:
        """Central finite-difference Jacobian blocks, one per slot.

        Planar slots (poses of length 3) give ``(..., k, m, 3)``; spatial slots (position and
        quaternion, length 7) give ``(..., k, m, 6)`` with respect to the increment
        ``(dr, dphi)``, the rotation perturbed through the exponential map.
        """
        blocks = []
        n_bodies = len(X) - (1 if cls._coordinate_slot else 0)
        for s, Xs in enumerate(X):
            cols = []
            is_body = s < n_bodies
            for c in range((3 if Xs.shape[-1] == 3 else 6) if is_body else Xs.shape[-1]):
                Xp = _perturb(Xs, c, _FD_STEP, is_body)
                Xm = _perturb(Xs, c, -_FD_STEP, is_body)
                args_p = list(X)
                args_m = list(X)
                args_p[s] = Xp
                args_m[s] = Xm
                cols.append((cls._phi(P, *args_p) - cls._phi(P, *args_m)) / (2 * _FD_STEP))
            blocks.append(np.stack(cols, axis=-1))
        return blocks


class DriverJoint(Joint):
    """Base of constraints of the form ``f(q) - value = 0``; ``value`` can be set between solves.

    Subclasses name the value ``"value"`` in their :attr:`~Joint.layout` (a
    :class:`~mechsolve.joints.DistanceDriver` names it ``"length"``, the layout of the
    :class:`~mechsolve.joints.Distance` it is).
    """

    #: The index of the driven value in the parameters (from the layout's ``value`` part, or
    #: ``length``: set when the class is defined).
    _value_index: ClassVar[int] = -1
    is_goal = True

    def __init_subclass__(cls, **kwargs) -> None:
        super().__init_subclass__(**kwargs)
        for name in ("value", "length"):
            index = getattr(cls.sl, name, None)
            if isinstance(index, int):
                cls._value_index = index
                break
    #: A :class:`~mechsolve.profiles.Profile` making the value a function of time, or None.
    profile = None

    def __init__(self, bodies, params, *, name: str | None = None) -> None:
        super().__init__(bodies, params, name=name)
        if self.is_angle:
            self._angle_in_range(self.value, "value")
            if self.profile is None:
                check_degrees_value(self, self.value)

    @property
    def is_angle(self) -> bool:
        """Whether the driven value is an angle (in radians), rather than a length or a
        number. An angle driver warns (:class:`~mechsolve.DegreesWarning`) when its value is
        set to a whole number larger than ``2 pi`` in magnitude, which looks like degrees."""
        return False

    def _take_value(self, value, *, positive: bool = False) -> float:
        """Constructor helper: a number, or a profile (its value at t = 0 to start with)."""
        from ..profiles import Profile

        if isinstance(value, Profile):
            self.profile = value
            value = float(value.value(0.0))
        return as_float(value, "value", positive=positive)

    @property
    def value(self) -> float:
        """The driven value (an angle in radians, or a length).

        Assigning a :class:`~mechsolve.profiles.Profile` makes it a function of time: the value
        is then set from the mechanism's time (:meth:`Mechanism.set_time`). Assigning a number
        removes the profile.
        """
        return float(self._p[self._value_index])

    @value.setter
    def value(self, new) -> None:
        self._assign(new, check_degrees=True)

    def _assign(self, new, *, check_degrees: bool) -> None:
        """Set the value as ``.value = new`` does; ``check_degrees``: warn if an angle value
        looks like degrees (not for values a sweep has already judged)."""
        from ..profiles import Profile

        if isinstance(new, Profile):
            value = self._profile_value(new, self._mechanism.time
                                        if self._mechanism is not None else 0.0)
            self.profile = new
            new = value
        else:
            new = as_float(new, f"value of {self.describe()}")
            if self.is_angle:
                self._angle_in_range(new, "value")
            self.profile = None
            if check_degrees and self.is_angle:
                check_degrees_value(self, new)
        self._p[self._value_index] = self._check_value(new)

    def _angle_in_range(self, value: float, what: str) -> None:
        """An angle value beyond ``MAX_ANGLE`` radians is refused: the spacing of floats there
        is over 1e-10 rad, so no pose could hold it to round-off (1e300 'succeeded' before)."""
        if abs(value) > MAX_ANGLE:
            raise ValueError(f"{what} of {self.describe()} must be within +-{MAX_ANGLE:g} rad "
                             f"(reduce it by whole turns of 2 pi), got {value:g}")

    def _profile_value(self, profile, t: float) -> float:
        """The value ``profile`` gives at time ``t``, which must be finite."""
        value = float(profile.value(t))
        if not np.isfinite(value):
            raise ValueError(f"the motion profile of {self.describe()} gives {value} at "
                             f"t = {t:g}; a driver value must be finite")
        if self.is_angle:
            self._angle_in_range(value, f"the motion profile's value at t = {t:g}")
        return value

    def _set_time_value(self, t: float) -> None:
        if self.profile is not None:
            self._p[self._value_index] = self._check_value(self._profile_value(self.profile, t))

    def _rates(self, t: float) -> tuple[float, float]:
        """``(dv/dt, d2v/dt2)`` of the driven value at time ``t`` (zero without a profile)."""
        if self.profile is None:
            return 0.0, 0.0
        _, rate, acc = self.profile(t)
        rate, acc = float(rate), float(acc)
        if not (np.isfinite(rate) and np.isfinite(acc)):
            raise ValueError(f"the motion profile of {self.describe()} gives rate {rate} and "
                             f"acceleration {acc} at t = {t:g}; both must be finite")
        return rate, acc

    def _check_value(self, value: float) -> float:
        return value

    def _set_raw_value(self, value: float) -> None:
        """Set the value without touching the motion profile (the solver's own bookkeeping)."""
        self._p[self._value_index] = value

    def _turn_index(self):
        """``(state index, sign)`` of the body angle that a change of this driver's value by a
        whole turn turns one for one (planar angle drivers), else ``None``: the value is an
        angle defined up to whole turns there, and a pose solved for ``value + 2 pi k`` is the
        pose for ``value`` with that body's angle relabelled."""
        return None

    def measure(self) -> float:
        """The driven quantity at the current pose (``value + residual``)."""
        return self.value + float(self.residual()[0])
