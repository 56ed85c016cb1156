"""The loop readers under mutation (issue 31, item 3): the URDF+ Cassie leg with its
``<loop>`` / ``<coupling>`` elements mutated, and both loop sidecars with their YAML text
mutated, are each loaded (bodies at finite poses) or rejected with a ValueError naming the
source and the element or key -- never another exception, never a hang -- and a sidecar is
only read from the model's folder.

``MECHSOLVE_FUZZ_EXAMPLES`` sets the number of examples per test (default 300; the suite
runs a fifth of it here, these models being larger than the URDF fuzz's).
"""

from __future__ import annotations

import copy
import os
import pathlib
import re
import shutil
import tempfile
import xml.etree.ElementTree as ET

import numpy as np
import pytest
from _urdf_cases import time_limit
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_urdf_fuzz import NUMBERS, VALUES

from mechsolve.robots import load_urdf_mechanism

DATA = pathlib.Path(__file__).parent / "data"
EXAMPLES = max(int(os.environ.get("MECHSOLVE_FUZZ_EXAMPLES", "300")) // 5, 20)
FUZZ = settings(derandomize=True, max_examples=EXAMPLES, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
SECONDS_PER_INPUT = 10.0
COUPLING = ('<coupling name="tie"><predecessor link="foot_crank"/><successor link="foot"/>'
            '<ratio value="0.5"/></coupling>')
BASE = (DATA / "cassie_leg.urdf").read_text().replace("</robot>", COUPLING + "</robot>")
TAGS = st.sampled_from(["loop", "coupling", "predecessor", "successor", "origin", "axis",
                        "ratio", "joint", "loop_joint", "link", "x"])
ATTRIBUTES = st.sampled_from(["name", "type", "link", "xyz", "rpy", "value"])
#: What the URDF reader's and the builder's messages name.
ELEMENT = re.compile(r"^URDF(?: robot '[^']*')?: .*(<\w+>|joint '|link '|line \d+, column "
                     r"\d+|values names|actuated names|coupling ')", re.DOTALL)


@st.composite
def mutated_urdf(draw) -> str:
    root = ET.fromstring(BASE)
    special = [e for e in root.iter() if e.tag in ("loop", "coupling") or
               any(e in list(p) for p in root.iter() if p.tag in ("loop", "coupling"))]
    for _ in range(draw(st.integers(1, 4))):
        el = draw(st.sampled_from(special + [root]))
        op = draw(st.sampled_from(["set", "set", "number", "remove", "duplicate", "retag"]))
        if op == "number":
            numeric = [(e, a) for e in root.iter() for a in ("xyz", "rpy", "value")
                       if a in e.attrib]
            e, a = draw(st.sampled_from(numeric))
            n = 1 if a == "value" else 3
            e.set(a, draw(st.one_of(st.lists(NUMBERS, min_size=n, max_size=n).map(" ".join),
                                    VALUES)))
        elif op == "set":
            el.set(draw(ATTRIBUTES), draw(st.one_of(VALUES, st.sampled_from(
                ["thigh", "tarsus", "foot", "knee", "planar", "revolute", "fixed"]))))
        elif op == "retag":
            el.tag = draw(TAGS) if el is not root else el.tag
        elif el is not root:
            parent = next((p for p in root.iter() if any(c is el for c in p)), None)
            if parent is None:
                continue
            if op == "remove":
                parent.remove(el)
            else:
                parent.insert(draw(st.integers(0, len(parent))), copy.deepcopy(el))
    return ET.tostring(root, encoding="unicode")


def check_loaded(robot) -> None:
    for body in robot.mechanism.bodies:
        assert np.all(np.isfinite(body.position))


@FUZZ
@given(mutated_urdf(), st.sampled_from([(), ("knee",), ("knee", "foot_crank")]))
def test_mutated_urdf_plus_is_loaded_or_rejected_naming_the_element(text, actuated):
    try:
        with time_limit(SECONDS_PER_INPUT):
            robot = load_urdf_mechanism(text, actuated)
    except ValueError as err:
        assert ELEMENT.match(str(err)), str(err)
        return
    check_loaded(robot)


SIDECARS = [(DATA / "cassie_leg_gepetto", "cassie_leg.yaml"),
            (DATA / "cassie_leg_skrobot", "loop_closures.yaml")]
YAML_FRAGMENTS = st.sampled_from([
    "[", "]", "{", "}", ":", "- ", "'", '"', "&a ", "*a", "!!python/object:os.system ''",
    "\n", "  ", "3d", "6d", "heel_pin", "tarsus", "nan", "1e999", "[0, 0, 0]", "~", "\t",
    "closures:", "closed_loop:", "type:", "joint_name: [knee]\njoint_type: [UJOINT_XY]",
    "a: &a [1, 2]\nb: &b [*a, *a, *a, *a]\nc: &c [*b, *b, *b, *b]\nclosed_loop: [*c, *c]\n",
])


@st.composite
def mutated_sidecar(draw):
    folder, name = draw(st.sampled_from(SIDECARS))
    text = (folder / name).read_text()
    for _ in range(draw(st.integers(1, 3))):
        i = draw(st.integers(0, len(text)))
        op = draw(st.sampled_from(["truncate", "cut", "insert", "insert", "replace"]))
        if op == "truncate":
            text = text[:i]
        elif op == "cut":
            text = text[:i] + text[i + draw(st.integers(1, 30)):]
        elif op == "insert":
            text = text[:i] + draw(st.one_of(YAML_FRAGMENTS, NUMBERS, st.text(max_size=6))) \
                + text[i:]
        else:
            text = text[:i] + draw(st.characters()) + text[i + 1:]
    return folder, name, text


@FUZZ
@given(mutated_sidecar())
def test_mutated_sidecars_are_read_or_rejected_naming_the_sidecar(case):
    pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    folder, name, text = case
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(folder / "cassie_leg.urdf", tmp)
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        try:
            with time_limit(SECONDS_PER_INPUT):
                robot = load_urdf_mechanism(os.path.join(tmp, "cassie_leg.urdf"),
                                            sidecar=path)
        except ValueError as err:
            assert str(err).startswith(f"sidecar {path!r}: "), str(err)
            return
        check_loaded(robot)


def test_a_yaml_alias_bomb_is_rejected_at_once(tmp_path):
    pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    lines = ["a0: &a0 [x, y]"] + [f"a{i}: &a{i} [" + ", ".join([f"*a{i - 1}"] * 9) + "]"
                                  for i in range(1, 10)]
    path = tmp_path / "robot.yaml"
    path.write_text("\n".join(lines) + "\nclosed_loop: *a9\n")
    shutil.copy(DATA / "cassie_leg_gepetto" / "cassie_leg.urdf", tmp_path / "robot.urdf")
    with time_limit(SECONDS_PER_INPUT):
        with pytest.raises(ValueError, match="closed_loop must be a list of \\[frame, frame\\] "
                                             "pairs, got a list of 9 items"):
            load_urdf_mechanism(tmp_path / "robot.urdf")


def urdf_outcome(text) -> str:
    try:
        load_urdf_mechanism(text)
    except ValueError as err:
        return str(err)
    return "loaded"


def sidecar_outcome(case) -> str:
    folder, name, text = case
    with tempfile.TemporaryDirectory() as tmp:
        shutil.copy(folder / "cassie_leg.urdf", tmp)
        path = os.path.join(tmp, name)
        with open(path, "w", encoding="utf-8", errors="surrogatepass") as f:
            f.write(text)
        try:
            load_urdf_mechanism(os.path.join(tmp, "cassie_leg.urdf"), sidecar=path)
        except ValueError as err:
            return str(err)
    return "loaded"


@pytest.mark.parametrize("strategy, outcome, pattern", [
    (mutated_urdf, urdf_outcome, r"^loaded$"),
    (mutated_urdf, urdf_outcome, r"<loop> '"),
    (mutated_urdf, urdf_outcome, r"<coupling> '"),
    (mutated_urdf, urdf_outcome, r"finite number"),
    (mutated_sidecar, sidecar_outcome, r"^loaded$"),
    (mutated_sidecar, sidecar_outcome, r"not YAML"),
    (mutated_sidecar, sidecar_outcome, r"names (frame|link) "),
])
def test_the_mutations_reach_every_outcome(strategy, outcome, pattern):
    """The generators are not degenerate: each makes inputs that load and inputs rejected
    for each kind of fault (the first of at most 500 examples that does)."""
    if strategy is mutated_sidecar:
        pytest.importorskip("yaml", reason="sidecars are YAML (mechsolve[yaml])")
    from hypothesis import Phase, find

    find(strategy(), lambda case: re.search(pattern, outcome(case)) is not None,
         settings=settings(derandomize=True, max_examples=500, database=None,
                           phases=[Phase.generate], deadline=None))
