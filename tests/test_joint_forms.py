"""The planar and spatial forms of a joint: ``joints.Revolute`` builds a planar ``Revolute`` from
planar bodies and a ``SpatialRevolute`` from spatial ones (issue 27, item 5).

The spatial classes stand alone under their own names (no planar class in their MRO, no
metaclass swapping the class that is built), ``isinstance`` with the planar name holds for both
forms, the signature of the dispatching class says what it takes, its help gives both calls as
the two classes take them, and no docstring is rewritten when the package is imported.
"""

import ast
import inspect
import pathlib
import pickle
import pydoc

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import joints
from mechsolve.joints.base import SPATIAL_VARIANTS, Joint

FORMS = sorted(SPATIAL_VARIANTS.items(), key=lambda kv: kv[0].__name__)
IDS = [planar.__name__ for planar, _ in FORMS]


def _call(fn, name: str) -> str:
    """``name(...)`` with the parameters of ``fn`` (a class or an ``__init__``), without
    annotations and without ``self``."""
    sig = inspect.signature(fn)
    params = [p.replace(annotation=p.empty) for p in sig.parameters.values()]
    if params and params[0].name == "self":
        params = params[1:]
    return name + str(sig.replace(parameters=params, return_annotation=sig.empty))


def _flat(text: str) -> str:
    return " ".join(text.split())


def test_every_spatial_form_is_exported_under_its_own_name():
    expected = {"Revolute": "SpatialRevolute", "Prismatic": "SpatialPrismatic",
                "Fixed": "SpatialFixed", "Distance": "SpatialDistance",
                "PointOnLine": "SpatialPointOnLine", "DistanceLimit": "SpatialDistanceLimit",
                "Driver": "SpatialDriver", "AngleDriver": "SpatialAngleDriver",
                "SlideDriver": "SpatialSlideDriver", "DistanceDriver": "SpatialDistanceDriver"}
    assert {p.__name__: s.__name__ for p, s in FORMS} == expected
    for planar, spatial in FORMS:
        assert getattr(joints, spatial.__name__) is spatial
        assert spatial.__name__ in joints.__all__ and planar.__name__ in joints.__all__


@pytest.mark.parametrize(("planar", "spatial"), FORMS, ids=IDS)
def test_a_spatial_form_inherits_nothing_from_its_planar_class(planar, spatial):
    """No planar class in the spatial class's MRO (its parameters, kernels and properties are its
    own), yet ``isinstance`` / ``issubclass`` with the planar name hold (an ABC registration)."""
    assert not any(c in planar.__mro__ for c in spatial.__mro__
                   if c not in Joint.__mro__ and c.__name__ not in ("DriverJoint",)
                   and not c.__name__.startswith("_Driven"))
    assert planar not in spatial.__mro__
    assert issubclass(spatial, planar)
    assert type(planar) is type(Joint)       # no metaclass of its own swaps the class built


def test_spatial_forms_lost_the_planar_properties_that_read_the_wrong_numbers():
    """A SpatialFixed inherited ``Fixed.angle`` (reading the frame quaternion's 5th number as
    an angle), a SpatialPrismatic ``offset``, a SpatialSlideDriver ``axis``."""
    assert not hasattr(joints.SpatialFixed, "angle")
    assert not hasattr(joints.SpatialPrismatic, "offset")
    assert not hasattr(joints.SpatialSlideDriver, "axis")


def _bodies(dim):
    mech = ms.Mechanism(dim=dim)
    if dim == 2:
        a = mech.add_body("a", position=(1.0, 0.0))
        b = mech.add_body("b", position=(2.0, 0.5))
    else:
        a = mech.add_body("a", position=(1.0, 0.0, 0.0))
        b = mech.add_body("b", position=(2.0, 0.5, 0.0))
    return mech, a, b


def _build(planar, dim):
    """One joint through the dispatching class, with the bodies of a ``dim`` mechanism."""
    mech, a, b = _bodies(dim)
    name = planar.__name__
    if name in ("Driver",):
        return planar(a, "x", 0.5)
    if name in ("AngleDriver", "SlideDriver"):
        inner = (joints.Revolute if name == "AngleDriver" else joints.Prismatic)(a, b)
        mech.add(inner)
        return planar(inner, 0.25)
    if name in ("Distance", "DistanceDriver"):
        return planar(a, b, None if dim == 3 else (0.0, 0.0), None if dim == 3 else (0.0, 0.0),
                      1.5)
    if name == "DistanceLimit":
        return planar(a, b, limits=(None, 3.0))
    return planar(a, b)


@pytest.mark.parametrize(("planar", "spatial"), FORMS, ids=IDS)
@pytest.mark.parametrize("dim", [2, 3])
def test_the_planar_name_builds_the_form_of_the_bodies_mechanism(planar, spatial, dim):
    joint = _build(planar, dim)
    assert type(joint) is (planar if dim == 2 else spatial)
    assert isinstance(joint, planar) and joint.dim == dim
    # pickling makes the same class again (the dispatching __new__ takes no arguments there)
    twin = pickle.loads(pickle.dumps(joint))
    assert type(twin) is type(joint)
    np.testing.assert_array_equal(twin._p, joint._p)


@pytest.mark.parametrize(("planar", "spatial"), FORMS, ids=IDS)
def test_help_on_a_joint_shows_its_planar_and_spatial_calls(planar, spatial):
    """The signature of the dispatching class is true of both forms: the one call they share,
    or the leading arguments then ``*args, **kwargs``; its help gives each form's call exactly
    as that class takes it (so the text cannot go stale), and the spatial class's help says
    which name builds it."""
    name = planar.__name__
    planar_call, spatial_call = _call(planar.__init__, name), _call(spatial, name)
    text = _flat(inspect.getdoc(planar))
    assert _flat(planar_call) in text, planar_call
    assert _flat(spatial_call) in text, spatial_call
    assert spatial.__name__ in _flat(pydoc.render_doc(planar, renderer=pydoc.plaintext))
    shown = inspect.signature(planar)
    if planar_call[len(name):] == spatial_call[len(name):]:
        assert _call(planar, name) == planar_call
    else:
        params = list(shown.parameters.values())
        assert [p.kind for p in params[-2:]] == [inspect.Parameter.VAR_POSITIONAL,
                                                 inspect.Parameter.VAR_KEYWORD]
        lead = [p.name for p in params[:-2]]
        for form in (inspect.signature(planar.__init__), inspect.signature(spatial)):
            names = [p for p in form.parameters if p != "self"]
            assert names[:len(lead)] == lead
    spatial_text = _flat(pydoc.render_doc(spatial, renderer=pydoc.plaintext))
    assert f"joints.{name}" in spatial_text
    assert _flat(f"{spatial.__name__}{inspect.signature(spatial)}") in spatial_text


def _module_docstrings(cls):
    """``{qualname: docstring}`` of the classes and their methods in ``cls``'s module source."""
    tree = ast.parse(pathlib.Path(inspect.getsourcefile(cls)).read_text())
    out = {}
    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            out[node.name] = ast.get_docstring(node)
            for item in node.body:
                if isinstance(item, ast.FunctionDef):
                    out[f"{node.name}.{item.name}"] = ast.get_docstring(item)
    return out


def test_no_docstring_is_rewritten_when_the_package_is_imported():
    """The docstrings of every joint class and method are the text in its source: no notes
    added at import, no placeholders filled in."""
    import mechsolve.joints  # noqa: F401

    classes = {getattr(joints, n) for n in joints.__all__ if isinstance(getattr(joints, n), type)}
    classes |= {c for c in vars(joints._spatial).values()
                if isinstance(c, type) and c.__module__ == "mechsolve.joints._spatial"}
    for cls in classes:
        if not issubclass(cls, Joint) or not cls.__module__.startswith("mechsolve.joints"):
            continue
        source = _module_docstrings(cls)
        assert inspect.cleandoc(cls.__doc__ or "") == (source.get(cls.__name__) or ""), cls
        for name, member in vars(cls).items():
            fn = getattr(member, "__func__", member)
            key = f"{cls.__name__}.{name}"
            if callable(fn) and key in source and source[key] is not None:
                assert inspect.cleandoc(fn.__doc__) == source[key], key


def test_at_dispatches_by_the_bodies_and_checks_the_axis():
    mech, a, b = _bodies(2)
    pin = joints.Revolute.at(a, b, (1.5, 0.0))
    assert type(pin) is joints.Revolute
    with pytest.raises(TypeError, match="axis is for the bodies of a spatial mechanism"):
        joints.Revolute.at(a, b, (1.5, 0.0), (0.0, 0.0, 1.0))
    mech, a, b = _bodies(3)
    hinge = joints.Revolute.at(a, b, (1.5, 0.0, 0.0), (0.0, 0.0, 1.0))
    assert type(hinge) is joints.SpatialRevolute and hinge.residual().max() < 1e-15
    with pytest.raises(TypeError, match="missing 1 required positional argument: 'axis' .the h"):
        joints.Revolute.at(a, b, (1.5, 0.0, 0.0))
    assert type(joints.Fixed.at(a, b)) is joints.SpatialFixed
    assert type(joints.DistanceDriver.at(a, b, (1, 0, 0), (2, 0.5, 0))) is \
        joints.SpatialDistanceDriver
    assert type(joints.PointOnLine.at(a, b, (2, 0.5, 0), (1, 0, 0))) is joints.SpatialPointOnLine
    assert type(joints.Prismatic.at(a, b, (2, 0.5, 0), (1, 0, 0))) is joints.SpatialPrismatic


# -- model files: specs from the constructor and the layout ------------------------------------
def test_a_joint_s_file_spec_follows_from_its_constructor_and_layout():
    """A class whose constructor takes its layout's parts by name gets its file spec with
    nothing listed in ``io/_joint_codecs.py``: bodies, points, a length, an angle, frames."""
    from mechsolve.io._joint_codecs import OVERRIDES, SPECS, spec_of

    class Rod(Joint):
        n_equations = 1
        layout = (("point1", 2), ("point2", 2), ("length", 1), ("angle", 1))

        def __init__(self, body1, body2, point1=(0.0, 0.0), point2=(0.0, 0.0), length=1.0,
                     angle=0.0, *, limits=None, name=None):
            super().__init__((body1, body2), [*point1, *point2, length, angle], name=name)

        @classmethod
        def _phi(cls, P, X1, X2):
            return X1[..., :1] - X2[..., :1] - P[..., cls.sl.length, None]

    spec = [(k, kind, default) for k, kind, _, default in spec_of(Rod)]
    assert spec == [("bodies", "bodies", None), ("point1", "points", (0.0, 0.0)),
                    ("point2", "points", (0.0, 0.0)), ("length", "length", 1.0),
                    ("angle", "angle", 0.0), ("limits", "limits", None)]
    mech, a, b = _bodies(2)
    rod = Rod(a, b, (1.0, 2.0), (3.0, 4.0), 2.5, 0.125)
    reads = {k: read(rod) for k, _, read, _ in spec_of(Rod)}
    assert reads["bodies"] == ["a", "b"] and reads["length"] == 2.5 and reads["angle"] == 0.125
    np.testing.assert_array_equal(reads["point2"], [3.0, 4.0])
    # what io/_joint_codecs.py lists: exceptions only (arguments read otherwise, or classes whose
    # arguments are not their parameters); the frame joints, the revolute, prismatic and
    # distance forms, the drivers and the link joints are not listed
    listed = set(OVERRIDES) | set(SPECS)
    for cls in (joints.Revolute, joints.SpatialRevolute, joints.Fixed, joints.Distance,
                joints.SpatialDistance, joints.PointOnLine, joints.Spherical, joints.Universal,
                joints.AngleDriver, joints.SlideDriver, joints.DistanceDriver,
                joints.RevoluteLink, joints.DHLink, joints.CircleJoint):
        assert cls not in listed, cls


def test_a_constructor_argument_the_layout_does_not_name_is_refused_by_name():
    from mechsolve.io._joint_codecs import spec_of

    class Odd(Joint):
        n_equations = 1
        layout = (("radius", 1),)

        def __init__(self, body, wobble=0.0, *, name=None):
            super().__init__((body,), [wobble], name=name)

        @classmethod
        def _phi(cls, P, X):
            return X[..., :1]

    with pytest.raises(TypeError, match="Odd: the constructor argument 'wobble' is not a part"):
        spec_of(Odd)
