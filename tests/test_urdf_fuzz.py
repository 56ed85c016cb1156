"""The URDF loader under mutation (issue 18, item 4): valid URDF texts are mutated (attributes
set to wrong types, huge or non-finite numbers; elements removed, duplicated, renamed; joints
turned into cycles; the text truncated, cut, spliced with XML fragments, nested deeply) and
each result is either loaded, with finite forward kinematics and Jacobian, or rejected with a
ValueError naming the source and the element -- never another exception, never a hang.

The examples are derandomized. ``MECHSOLVE_FUZZ_EXAMPLES`` sets their number per test (the
default, 300, keeps this file near 6 s; e.g. ``MECHSOLVE_FUZZ_EXAMPLES=5000`` for a campaign).
"""

from __future__ import annotations

import copy
import os
import re
import tempfile
import unicodedata
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from _urdf_cases import BASES, MESSAGE, time_limit
from hypothesis import HealthCheck, Phase, assume, find, given, settings
from hypothesis import strategies as st

import mechsolve as ms

EXAMPLES = int(os.environ.get("MECHSOLVE_FUZZ_EXAMPLES", "300"))
FUZZ = settings(derandomize=True, max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
# a loaded or rejected input takes milliseconds; this is the "never hangs" bound
SECONDS_PER_INPUT = 10.0

NUMBERS = st.one_of(
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.sampled_from(["1e308", "-1e308", "1e999", "1e6", "-1000000.0001", "1e-320", "0x10",
                     "1_000", "nan", "-inf", "+0", ".5", "5.", "1e", "--1", "1,2"]),
    st.integers(min_value=-10**30, max_value=10**30).map(str),
)
VALUES = st.one_of(
    st.lists(NUMBERS, min_size=0, max_size=4).map(" ".join),
    NUMBERS,
    st.sampled_from(["revolute", "continuous", "prismatic", "fixed", "floating", "planar",
                     "", " ", "[1, 2, 3]", "True", "None", "0 0 1", "0 0 0", "&amp;",
                     "base_link", "ee_link", "a", "b", "c", "bob"]),
    # any character but surrogates (not UTF-8) and control characters (not XML); a filter,
    # as characters(codec=, exclude_categories=) came in Hypothesis 6.x after the floor
    st.text(st.characters().filter(lambda c: unicodedata.category(c) not in ("Cs", "Cc")),
            max_size=12),
    st.text(max_size=4),            # control characters: not XML
)
ATTRIBUTES = st.sampled_from(["name", "type", "link", "xyz", "rpy", "lower", "upper",
                              "effort"])
TAGS = st.sampled_from(["robot", "link", "joint", "parent", "child", "origin", "axis",
                        "limit", "x"])
FRAGMENTS = st.sampled_from([
    "<", ">", "/>", "</joint>", "</robot>", '"', "'", "=", "&", "&lt;", "&undefined;",
    "<!--", "-->", "<![CDATA[", "]]>", "<!DOCTYPE robot>", '<?xml version="1.0"?>', "\ufeff",
    '<link name="a"/>', '<link name="base_link"/>', '<joint name="swing" type="fixed">',
    '<joint name="loop" type="revolute"><parent link="ee_link"/><child link="base_link"/>'
    '</joint>', '<origin xyz="1e308 0 0"/>', '<limit lower="1" upper="-1"/>',
    '<axis xyz="0 0 0"/>', "\x00", "\n", " ", "é",
])


@st.composite
def mutated(draw) -> tuple[str, str | None]:
    """A URDF text from one of :data:`BASES` by a few tree, then text, mutations, and the
    tip to load it with."""
    text, tip = draw(st.sampled_from(BASES))
    root = ET.fromstring(text)
    for _ in range(draw(st.integers(0, 4))):
        elements = list(root.iter())
        el = draw(st.sampled_from(elements))
        op = draw(st.sampled_from(["number", "number", "limit", "set", "set", "remove",
                                   "duplicate", "retag", "loop"]))
        if op == "limit":   # new bounds of a limit, in either order
            limits = list(root.iter("limit"))
            if limits:
                e = draw(st.sampled_from(limits))
                bound = st.one_of(st.floats(-4.0, 4.0).map(repr), NUMBERS)
                e.set("lower", draw(bound))
                e.set("upper", draw(bound))
        elif op == "number":  # a number attribute of an origin, axis or limit
            numeric = [(e, a) for e in elements for a in ("xyz", "rpy", "lower", "upper")
                       if a in e.attrib]
            if numeric:
                e, a = draw(st.sampled_from(numeric))
                n = 1 if a in ("lower", "upper") else 3
                e.set(a, draw(st.one_of(st.lists(NUMBERS, min_size=n, max_size=n).map(" ".join),
                                        VALUES)))
        elif op == "set":     # mostly an attribute the element has: numbers get numbers
            names = draw(st.sampled_from([sorted(el.attrib) or ["name"], ["name"]]))
            el.set(draw(st.one_of(st.sampled_from(names), ATTRIBUTES)), draw(VALUES))
        elif op == "retag":
            el.tag = draw(TAGS)
        elif op == "loop":  # a joint's parent link becomes its child or one after it
            joints = list(root.iter("joint"))
            k = draw(st.integers(0, len(joints)))
            names = [c.get("link") for j in joints[k:] for c in j.iter("child")
                     if c.get("link")]
            if k < len(joints) and joints[k].find("parent") is not None and names:
                joints[k].find("parent").set("link", draw(st.sampled_from(names)))
        elif el is not root:
            parent = next(p for p in root.iter() if any(c is el for c in p))
            if op == "remove":
                parent.remove(el)
            else:
                parent.insert(draw(st.integers(0, len(parent))), copy.deepcopy(el))
    text = ET.tostring(root, encoding="unicode")
    for _ in range(draw(st.sampled_from([0, 0, 0, 0, 1, 1, 2]))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["truncate", "cut", "insert", "insert", "nest", "replace"]))
        if op == "truncate":
            text = text[:i]
        elif op == "cut":
            text = text[:i] + text[i + draw(st.integers(1, 40)):]
        elif op == "insert":
            text = text[:i] + draw(st.one_of(FRAGMENTS, st.text(max_size=8))) + text[i:]
        elif op == "nest":
            k = draw(st.integers(1, 3000))
            text = text[:i] + "<x>" * k + "</x>" * k + text[i:]
        else:
            text = text[:i] + draw(st.characters()) + text[i + 1:]
    tip = draw(st.one_of(st.just(tip), st.none(), st.sampled_from(
        ["base_link", "forearm_link", "ee_link", "bob", "a", "b", "c", "nowhere"])))
    return text, tip


def load_or_reject(source, tip, where: str):
    """Load ``source``: either an arm with finite kinematics or a ValueError whose message
    starts with ``where`` and names the element. Any other exception fails the test."""
    try:
        with time_limit(SECONDS_PER_INPUT):
            arm = ms.robots.load_urdf(source, tip=tip)
    except ValueError as err:
        message = str(err)
        assert message.startswith(where), message
        assert re.match(MESSAGE, message, flags=re.DOTALL), message
        return None
    rng = np.random.default_rng(0)
    Q = np.vstack([np.zeros(arm.n_joints), rng.uniform(-np.pi, np.pi, (3, arm.n_joints))])
    assert np.all(np.isfinite(arm.forward_matrix(Q)))
    assert np.all(np.isfinite(arm.jacobian(Q)))
    for j in arm.joints:
        assert j.limits is None or j.limits[0] <= j.limits[1]
    assert len(set(arm.joint_names)) == arm.n_joints
    return arm


@FUZZ
@given(mutated())
def test_mutated_urdf_text_is_loaded_or_rejected_naming_urdf(case):
    text, tip = case
    # a str without "<" is a file path by the loader's contract: the file test covers files
    assume("<" in text or not text.strip())
    load_or_reject(text, tip, "URDF: ")


@FUZZ
@given(mutated())
def test_mutated_urdf_file_is_loaded_or_rejected_naming_the_file(case):
    text, tip = case
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "robot.urdf")
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        load_or_reject(path, tip, f"URDF file {path!r}: ")


@settings(derandomize=True, max_examples=max(EXAMPLES // 5, 20), deadline=None)
@given(st.binary(max_size=200), st.sampled_from([b"", b"<robot>", b'<robot name="r">']))
def test_arbitrary_bytes_are_rejected_naming_urdf(data, prefix):
    load_or_reject(prefix + data, None, "URDF: ")


def outcome(case) -> str:
    """``"loaded"`` or the message of the ValueError loading ``case`` raises."""
    text, tip = case
    if "<" not in text and text.strip():
        return "a file path"
    try:
        ms.robots.load_urdf(text, tip=tip)
    except ValueError as err:
        return str(err)
    return "loaded"


@pytest.mark.parametrize("pattern", [
    r"^loaded$", r"not well-formed XML", r"finite number", r"beyond the bound",
    r"lower .* > upper", r"both named", r"form a cycle|own parent",
    r"root link|branches|no moving joint|not a <link>|has no <parent>",
])
def test_the_mutations_reach_every_outcome(pattern):
    """The generator is not degenerate: it makes inputs that load and inputs rejected for
    each kind of fault (the first of at most 1000 examples that does)."""
    find(mutated(), lambda case: re.search(pattern, outcome(case)) is not None,
         settings=settings(derandomize=True, max_examples=1000, database=None,
                           phases=[Phase.generate], deadline=None))
