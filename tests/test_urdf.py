"""The URDF loader on bad input (issue 18): every fault is a ValueError naming the source and
the element, in bounded time; what is accepted loads into an arm with finite kinematics."""

import re

import numpy as np
import pytest
from _urdf_cases import BRANCH, MESSAGE, PENDULUM, time_limit, two_joints

import mechsolve as ms
from mechsolve.io import urdf as urdf_module

load = ms.robots.load_urdf
J1 = '<parent link="a"/><child link="b"/><axis xyz="0 0 1"/>'
J2 = '<parent link="b"/><child link="c"/><axis xyz="0 0 1"/>'


# -- joint cycles --------------------------------------------------------------------------
CYCLE = two_joints('<parent link="b"/><child link="c"/><axis xyz="0 0 1"/>',
                   '<parent link="c"/><child link="b"/><axis xyz="0 0 1"/>')


@pytest.mark.parametrize("tip", ["b", "c", None])
def test_a_joint_cycle_is_rejected_not_followed_forever(tip):
    """Issue 18: with tip="b" the walk to the root looped forever; with tip=None the cycle
    was ignored (the message then blamed the arm for having no joint)."""
    with time_limit(5.0), pytest.raises(
            ValueError, match=r"^URDF: the <joint> elements 'j1' \('b' -> 'c'\) and 'j2' "
                              r"\('c' -> 'b'\) form a cycle; the links of a robot must form "
                              r"a tree$"):
        load(CYCLE, tip=tip)


def test_a_joint_that_is_its_own_parent_is_a_cycle():
    with pytest.raises(ValueError, match=r"^URDF: the <joint> 'j2' \('c' -> 'c'\) makes a "
                                         r"link its own parent"):
        load(two_joints(J1, '<parent link="c"/><child link="c"/><axis xyz="0 0 1"/>'))


def test_a_long_cycle_is_found_in_linear_time_and_named_briefly():
    n = 5000
    links = "".join(f'<link name="l{i}"/>' for i in range(n + 1))
    ring = "".join(f'<joint name="j{i}" type="revolute"><parent link="l{i}"/>'
                   f'<child link="l{(i + 1) % n}"/><axis xyz="0 0 1"/></joint>'
                   for i in range(n))
    with time_limit(5.0), pytest.raises(
            ValueError, match=r"^URDF: the <joint> elements 'j0' \('l0' -> 'l1'\), .* and "
                              r"4995 more form a cycle"):
        load(f'<robot name="ring">{links}{ring}</robot>', tip="l3")


# -- numbers that overflow downstream --------------------------------------------------------
def test_offsets_of_1e308_are_rejected_at_load():
    """Issue 18: two joints at xyz="1e308 0 0" gave NaN/inf forward kinematics and Jacobians
    and LinAlgErrors from SciPy in ik and mechanism."""
    text = two_joints('<parent link="a"/><child link="b"/><origin xyz="1e308 0 0"/>'
                      '<axis xyz="0 0 1"/>',
                      '<parent link="b"/><child link="c"/><origin xyz="1e308 0 0"/>'
                      '<axis xyz="0 0 1"/>')
    with pytest.raises(ValueError, match=r"^URDF: origin xyz of joint 'j1' is '1e308 0 0', "
                                         r"beyond the bound of 1e\+06 on the magnitude of "
                                         r"URDF numbers \(metres, radians\)$"):
        load(text)


@pytest.mark.parametrize("element, attribute, value", [
    ('<origin rpy="0 -2e6 0"/>', "origin rpy", "0 -2e6 0"),
    ('<origin xyz="0 0 1000000.5"/>', "origin xyz", "0 0 1000000.5"),
    ('<limit lower="-1e300" upper="1"/>', "limit lower", "-1e300"),
    ('<limit lower="-1" upper="1e7"/>', "limit upper", "1e7"),
])
def test_every_number_is_bounded(element, attribute, value):
    with pytest.raises(ValueError, match=rf"^URDF: {attribute} of joint 'j2' is '{value}', "
                                         r"beyond the bound of 1e\+06"):
        load(two_joints(J1, J2 + element))


@pytest.mark.parametrize("value", ["inf 0 0", "0 nan 0", "1e999 0 0"])
def test_numbers_that_are_not_finite(value):
    with pytest.raises(ValueError, match=rf"^URDF: origin xyz of joint 'j1' must be 3 finite "
                                         rf"numbers, got '{value}'$"):
        load(two_joints(J1 + f'<origin xyz="{value}"/>', J2))


def test_at_the_bound_the_kinematics_work():
    """Offsets, travel and angles of 1e6 (the bound): forward kinematics and Jacobian are
    finite, ik and the multibody model solve."""
    big = urdf_module.MAX_MAGNITUDE
    text = two_joints(f'<parent link="a"/><child link="b"/><origin xyz="{big} 0 0" '
                      f'rpy="{big} 0 0"/><axis xyz="0 0 1"/>',
                      f'<parent link="b"/><child link="c"/><origin xyz="{big} {-big} 0"/>'
                      '<axis xyz="0 1 1"/>', links="abcd")
    text = text.replace("</robot>", '<joint name="j3" type="prismatic"><parent link="c"/>'
                        f'<child link="d"/><origin xyz="{big} 0 1e-6"/><axis xyz="1 1 0"/>'
                        f'<limit lower="{-big}" upper="{big}"/></joint></robot>')
    arm = load(text)
    q = np.array([0.3, -0.2, 0.1])
    assert np.all(np.isfinite(arm.forward_matrix(q))) and np.all(np.isfinite(arm.jacobian(q)))
    result = arm.ik(arm.forward(q), q + 0.05)
    assert result.success
    np.testing.assert_allclose(arm.forward_matrix(result.q), arm.forward_matrix(q),
                               rtol=0, atol=1e-9 * arm.length_scale)
    model = arm.mechanism()
    model.q = q + 0.05
    assert model.mechanism.solve().success


def test_a_tiny_or_large_axis_is_normalised():
    arm = load(two_joints('<parent link="a"/><child link="b"/><axis xyz="0 0 1e-300"/>',
                          '<parent link="b"/><child link="c"/><axis xyz="0 5e5 5e5"/>'))
    np.testing.assert_allclose(arm.joints[0].axis, [0, 0, 1], rtol=0, atol=1e-15)
    np.testing.assert_allclose(arm.joints[1].axis, [0, 2**-0.5, 2**-0.5], rtol=0, atol=1e-15)


# -- the source: text, bytes, files ------------------------------------------------------------
@pytest.mark.parametrize("text, message", [
    ("<robot", r"^URDF: not well-formed XML: unclosed token: line 1, column 0$"),
    ('<robot name="r"><link name="a"></robot>',
     r"^URDF: not well-formed XML: mismatched tag: line 1, column 33$"),
    ("<robot/><robot/>", r"^URDF: not well-formed XML: junk after document element"),
    (b'<?xml version="1.0" encoding="utf-32"?><robot/>',
     r"^URDF: not well-formed XML: multi-byte encodings are not supported$"),
])
def test_malformed_xml_is_a_value_error_naming_urdf(text, message):
    """Issue 18: malformed XML raised xml.etree's ParseError, which does not say URDF."""
    with pytest.raises(ValueError, match=message):
        load(text)


@pytest.mark.parametrize("text", ["", "   ", "\n\t"])
def test_empty_text(text):
    """Issue 18: load_urdf("") raised IsADirectoryError (the empty path is '.')."""
    with pytest.raises(ValueError, match=r"^URDF: the source is empty, got '.*' \(expected "
                                         r"<robot> XML text or a file path\)$"):
        load(text)


def test_a_byte_order_mark_is_not_part_of_the_text(tmp_path):
    """Issue 18: a leading BOM made the whole XML a file name."""
    assert load("\ufeff" + PENDULUM).joint_names == ["swing"]
    assert load("\ufeff" + PENDULUM).joint_names == ["swing"]
    assert load(b"\xef\xbb\xbf" + PENDULUM.encode()).joint_names == ["swing"]
    path = tmp_path / "bom.urdf"
    path.write_bytes(b"\xef\xbb\xbf" + PENDULUM.encode())
    assert load(path).joint_names == ["swing"]
    assert load(str(path)).joint_names == ["swing"]


def test_messages_name_the_file(tmp_path):
    path = tmp_path / "bad.urdf"
    path.write_text(two_joints(J1, '<parent link="b"/><child link="z"/>'))
    with pytest.raises(ValueError, match=rf"^URDF file '{re.escape(str(path))}': joint 'j2' "
                                         r"names child link 'z', which is not a <link> of the "
                                         r"robot$"):
        load(path)
    path.write_text("<robot>\n  <link>\n</robot>")
    with pytest.raises(ValueError, match=rf"^URDF file '{re.escape(str(path))}': not "
                                         r"well-formed XML: mismatched tag: line 3, column 2$"):
        load(str(path))
    path.write_text("")
    with pytest.raises(ValueError, match=rf"^URDF file '{re.escape(str(path))}': not "
                                         r"well-formed XML: no element found"):
        load(path)
    with pytest.raises(FileNotFoundError):
        load(tmp_path / "missing.urdf")


def test_wrong_argument_types():
    with pytest.raises(TypeError, match=r"^URDF: source must be a file path \(str or "
                                        r"os.PathLike\) or URDF XML \(str or bytes\), got int$"):
        load(5)
    with pytest.raises(TypeError, match=r"^URDF: tip must be a link name \(str\) or None, got "
                                        r"int 2$"):
        load(PENDULUM, tip=2)


def test_the_size_of_a_source_is_bounded(monkeypatch, tmp_path):
    monkeypatch.setattr(urdf_module, "MAX_CHARACTERS", 100)
    with pytest.raises(ValueError, match=r"^URDF: longer than 100 characters"):
        load(PENDULUM)
    path = tmp_path / "big.urdf"
    path.write_text(PENDULUM)
    with pytest.raises(ValueError, match=r"^URDF file '.*big.urdf': longer than 100 "):
        load(path)


def test_deep_nesting_is_read_in_bounded_time():
    deep = "<x>" * 100_000 + "</x>" * 100_000
    with time_limit(5.0):
        arm = load(PENDULUM.replace("<axis", deep + "<axis"))
    assert arm.joint_names == ["swing"]


# -- names and limits ------------------------------------------------------------------------
def test_duplicate_joint_names_are_rejected():
    """Issue 18: two joints of one name were accepted."""
    with pytest.raises(ValueError, match=r"^URDF: <joint> elements 1 and 2 are both named "
                                         r"'j'$"):
        load(two_joints(J1, J2).replace('"j2"', '"j1"').replace('"j1"', '"j"'))


def test_duplicate_link_names_are_rejected():
    with pytest.raises(ValueError, match=r"^URDF: <link> elements 2 and 3 are both named 'b'$"):
        load(two_joints(J1, J2, links="abb"))


def test_limits_with_lower_above_upper_are_rejected():
    """Issue 18: lower > upper was accepted."""
    with pytest.raises(ValueError, match=r"^URDF: the <limit> of joint 'j2' has lower '1' > "
                                         r"upper '-1' \(expected lower <= upper\)$"):
        load(two_joints(J1, J2 + '<limit lower="1" upper="-1"/>'))
    arm = load(two_joints(J1, J2 + '<limit lower="0.5" upper="0.5"/>'))
    assert arm.joints[1].limits == (0.5, 0.5)


def test_a_link_with_two_parents_names_both_joints():
    with pytest.raises(ValueError, match=r"^URDF: link 'b' is the child of two joints, 'j1' "
                                         r"and 'j2' \(a link has one parent\)$"):
        load(two_joints(J1, J1))


@pytest.mark.parametrize("text, tip, message", [
    ('<robot name="r"/>', None, r"^URDF: the <robot> has no <link> elements$"),
    (two_joints(J1, '<parent link="a"/><child link="b"/>', links="abc").replace(
        'name="j2" type="revolute"><parent link="a"/><child link="b"/>',
        'name="j2" type="revolute"><parent link="a"/><child link="c"/>'), "x",
     r"^URDF: tip: no <link> named 'x'$"),
    (BRANCH, None, r"^URDF: the robot branches \(leaf links 'b', 'c'\); pass tip= to choose "
                   r"the <link> the chain ends at$"),
    (two_joints(J1, J2, links="abcd"), None,
     r"^URDF: expected one root link \(a <link> that is no joint's child\), found 2: 'a', "
     r"'d'$"),
    (two_joints(J1, J2).replace('type="revolute"', 'type="fixed"'), None,
     r"^URDF: no moving joint from the root link 'a' to the tip link 'c' \(a serial arm "
     r"needs a revolute, continuous or prismatic <joint>\)$"),
    (BRANCH, "a", r"^URDF: no moving joint from the root link 'a' to the tip link 'a'"),
])
def test_structure_messages(text, tip, message):
    with pytest.raises(ValueError, match=message):
        load(text, tip=tip)


# -- what expat refuses --------------------------------------------------------------------
def test_entity_expansion_is_bounded_by_expat():
    """A "billion laughs" document: expat stops the expansion (its amplification limit)."""
    entities = '<!ENTITY lol0 "lol">' + "".join(
        f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10}">' for i in range(1, 10))
    text = (f'<?xml version="1.0"?><!DOCTYPE robot [{entities}]>'
            + PENDULUM.replace('name="pendulum"', 'name="&lol9;"'))
    with time_limit(5.0), pytest.raises(
            ValueError, match=r"^URDF: not well-formed XML: limit on input amplification "
                              r"factor \(from DTD and entities\) breached"):
        load(text)


def test_external_entities_are_not_read(tmp_path):
    """An external entity would put the file's joint into the robot: it is never read."""
    part = tmp_path / "joint.xml"
    part.write_text('<joint name="swing" type="revolute"><parent link="base"/>'
                    '<child link="bob"/><axis xyz="0 1 0"/></joint>')
    body = PENDULUM[PENDULUM.index("<link"):PENDULUM.index("<joint")]
    in_content = (f'<?xml version="1.0"?><!DOCTYPE robot [<!ENTITY j SYSTEM '
                  f'"{part.as_uri()}">]><robot name="r">{body}&j;</robot>')
    with pytest.raises(ValueError, match=r"^URDF: not well-formed XML: undefined entity &j;"):
        load(in_content)
    in_attribute = in_content.replace('name="r"', 'name="&j;"').replace("&j;</robot>",
                                                                       "</robot>")
    with pytest.raises(ValueError, match=r"^URDF: not well-formed XML: reference to external "
                                         r"entity in attribute"):
        load(in_attribute)


# -- the message format is the one the fuzz tests expect ------------------------------------
def test_the_regression_messages_follow_the_fuzz_pattern():
    for text in [CYCLE, "<robot", "", '<robot name="r"/>']:
        with pytest.raises(ValueError) as info:
            load(text)
        assert re.match(MESSAGE, str(info.value)), str(info.value)
