"""Bounded and confined loading (issue 26): every reader caps what it reads, expressions from
files are bounded before SymPy sees them, ``mechsolve sweep`` caps its poses, files a model
names are read only from its folder unless the caller allows more, and what ``save`` writes
``load`` reads. Each defect is reproduced as the issue wrote it, under a deadline: before the
fixes these ran past 60 s, raised MemoryError or were killed."""

from __future__ import annotations

import contextlib
import json
import math
import os
import pathlib
import signal
import time

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import profiles
from mechsolve.cli import main
from mechsolve.files import ModelFileError, NamedSweep, dumps, load, loads
from mechsolve.io import _expressions

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "models"


class _LateError(Exception):
    pass


@contextlib.contextmanager
def deadline(seconds: float):
    """Fail (rather than hang) when the block runs past ``seconds`` (POSIX main thread)."""
    if not hasattr(signal, "setitimer"):               # pragma: no cover - Windows
        yield
        return

    def late(*_):
        raise _LateError(f"still running after {seconds} s")

    old = signal.signal(signal.SIGALRM, late)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, old)


def joint_type_file(expr: str) -> str:
    return (f'mechsolve = 1\n[[joint_types]]\nname = "T"\nbodies = 1\n'
            f'phi = [{json.dumps(expr)}]\n')


@pytest.fixture(scope="module", autouse=True)
def _warm():
    """Import SymPy and the symbolic package once, so the deadlines time the reading."""
    loads(joint_type_file("x1**2 + y1**2 - 1"))


# -- expressions --------------------------------------------------------------------------------
@pytest.mark.parametrize("expr, message", [
    ("x1 - 9**9**9", "constant exponent 3.8742e+08 is beyond 100"),
    ("x1 - 1e999999", "the number '1e999999' is not finite"),
    ("x1 - 2**10**10", "constant exponent 1e+10 is beyond 100"),
])
def test_the_issues_expressions_are_refused_at_once(tmp_path, expr, message):
    path = tmp_path / "model.toml"
    path.write_text(joint_type_file(expr))
    assert len(path.read_bytes()) < 200
    t0 = time.perf_counter()
    with deadline(5.0), pytest.raises(ModelFileError) as info:
        ms.load(path)
    assert time.perf_counter() - t0 < 1.0
    text = str(info.value)
    assert f"model file {str(path)!r}" in text
    assert "joint_types[0] ('T').phi[0]" in text and message in text


def test_a_profile_expression_is_bounded_and_names_the_driver():
    text = (EXAMPLES / "fourbar.toml").read_text().replace(
        'coordinate = "angle"', 'coordinate = "angle"\nprofile = { type = "Expression", '
        'expression = "t**2**10" }', 1)
    with deadline(5.0), pytest.raises(ModelFileError,
                                      match=r"joints\[\d+\] \(Driver 'motor'\)\.profile\."
                                            r"expression: the constant exponent 1024"):
        loads(text)


@pytest.mark.parametrize("expr, message", [
    ("x1 - 1e16", "magnitude above 1e+15"),
    ("x1 - 0x" + "f" * 40, "is not finite"),
    ("x1 - 1" + "0" * 400, "is not finite"),
    ("x1 - exp(1000)", "overflows (exp of 1000)"),
    ("x1 - floor(exp(exp(100)))", "overflows"),
    ("x1 - ((10**15)**20)**2", "overflows"),
    ("x1 - Integer(9)**Integer(9)**Integer(9)", "constant exponent"),
    ("x1**(1/0.001)", "constant exponent 1000"),
    ("x1 - (-2)**101", "constant exponent 101"),
    ("x1/0", "division by zero"),
    ("x1 - 1/(1 - 1)", "division by zero"),
    ("sin(" * 20 + "x1" + ")" * 20, "nested more than 20 levels"),
    ("(" * 21 + "x1" + ")" * 21, "nested more than 20 parentheses"),
    ("-" * 3000 + "x1", "nested more than 20 levels"),
    ("x1" + "**x1" * 3000, "nested more than 20 levels"),
    ("1+" * 5000 + "x1", "more than 10000 tokens"),
    ("x1 + " * 5000 + "x1", "longer than 20000 characters"),
], ids=lambda v: v if len(v) < 40 else v[:30] + f"...({len(v)})")
def test_expression_bounds(expr, message):
    with deadline(5.0), pytest.raises(ModelFileError) as info:
        loads(joint_type_file(expr))
    assert message in str(info.value)
    assert "joint_types[0] ('T').phi[0]" in str(info.value)


@pytest.mark.parametrize("expr, expected", [
    ("x1**2 - 1", "x1**2 - 1"),
    ("(x1 - 1)**-1 + y1**0.5", None),
    ("x1 - 2**2**2**2", "x1 - 65536"),
    ("x1 - (10**15)**20", None),                        # 1e300: an exact integer, finite
    ("x1*pi - E**2 + exp(3)", None),
    ("Piecewise((x1, x1 > 0), (-x1, True))", None),
    ("x1 - (-8)**(1/3)", None),                         # complex constants are SymPy's
    (" + ".join(["x1"] * 900), "900*x1"),               # a long sum is shallow
    ("sin(" * 18 + "x1" + ")" * 18, None),              # 19 levels deep
], ids=lambda v: str(v)[:40])
def test_expressions_within_the_bounds_parse(expected, expr):
    import sympy as sp

    x1, y1 = sp.symbols("x1 y1")
    got = _expressions.parse(expr, {"x1": x1, "y1": y1})
    if expected is not None:
        assert str(got) == expected


def test_a_file_bounds_its_equations_and_tokens(monkeypatch):
    many = "mechsolve = 1\n" + "".join(
        f'[[joint_types]]\nname = "T{k}"\nbodies = 1\nphi = {json.dumps(["x1"] * 16)}\n'
        for k in range(5))
    with pytest.raises(ModelFileError, match=r"joint_types\[4\] \('T4'\)\.phi: the joint types "
                                             r"up to this one have 80 equations, more than "
                                             r"the 64"):
        loads(many)
    monkeypatch.setattr(ms.files._reader, "MAX_FILE_TOKENS", 10)
    with pytest.raises(ModelFileError, match=r"phi\[0\]: the expressions up to this one have "
                                             r"11 tokens, more than the 10"):
        loads(joint_type_file("x1 + x1 + x1 + x1 + x1 + x1"))


# -- size caps ----------------------------------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_dev_zero_is_refused_quickly():
    t0 = time.perf_counter()
    with deadline(5.0), pytest.raises(ModelFileError,
                                      match=r"model file '/dev/zero': more than 4194304 bytes.*"
                                            r"max_bytes"):
        ms.load("/dev/zero")
    assert time.perf_counter() - t0 < 1.0
    with deadline(5.0), pytest.raises(ValueError, match="URDF file '/dev/zero': longer than"):
        ms.robots.load_urdf("/dev/zero")


def test_max_bytes_bounds_and_raises_the_cap(tmp_path):
    path = tmp_path / "fourbar.toml"
    path.write_text((EXAMPLES / "fourbar.toml").read_text())
    size = path.stat().st_size
    with pytest.raises(ModelFileError, match=f"more than {size - 1} bytes"):
        ms.load(path, max_bytes=size - 1)
    assert ms.load(path, max_bytes=size).joint("motor") is not None
    with pytest.raises(ModelFileError, match="longer than 10 characters"):
        loads(path.read_text(), max_bytes=10)
    with pytest.raises(TypeError, match="max_bytes must be a positive int"):
        ms.load(path, max_bytes=0)
    with pytest.raises(TypeError, match="allow_paths must be a path or a sequence"):
        ms.load(path, allow_paths=3)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
def test_a_named_pipe_without_a_writer_does_not_block(tmp_path):
    fifo = tmp_path / "model.toml"
    os.mkfifo(fifo)
    with deadline(5.0), pytest.raises(ModelFileError, match="mechsolve = 1"):
        ms.load(fifo)                                   # read as empty: no format version


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
@pytest.mark.parametrize("suffix, message", [
    (".slvs", r"SolveSpace sketch '.*endless.slvs': more than 16777216 bytes"),
    (".sdf", r"SDF file '.*endless.sdf': more than 67108864 bytes")])
def test_dev_zero_as_a_sketch_or_sdf_is_refused_quickly(tmp_path, suffix, message):
    endless = tmp_path / f"endless{suffix}"
    endless.symlink_to("/dev/zero")
    with deadline(5.0), pytest.raises(ModelFileError, match=message):
        ms.load(endless)
    with deadline(5.0), pytest.raises(ModelFileError, match="more than 1000 bytes"):
        ms.load(endless, max_bytes=1000)


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes are POSIX")
@pytest.mark.parametrize("suffix, message", [(".slvs", "expected the header"),
                                             (".sdf", "not well-formed XML")])
def test_a_named_pipe_as_a_sketch_or_sdf_does_not_block(tmp_path, suffix, message):
    fifo = tmp_path / f"model{suffix}"
    os.mkfifo(fifo)
    with deadline(5.0), pytest.raises(ModelFileError, match=message):
        ms.load(fifo)                                   # read as empty


def test_sweep_values_of_a_file_are_bounded():
    text = (EXAMPLES / "fourbar.toml").read_text()
    text += ('\n[[sweeps]]\nname = "a"\ndriver = "motor"\nvalues = { start = 0.0, stop = 1.0, '
             'num = 6000000 }\n[[sweeps]]\nname = "b"\ndriver = "motor"\n'
             'values = { start = 0.0, stop = 1.0, num = 6000000 }\n')
    with deadline(10.0), pytest.raises(ModelFileError,
                                       match=r"sweeps\[2\]\.values\.num: the sweeps up to this "
                                             r"one have 12000361 values, more than the "
                                             r"10000000"):
        loads(text)


# -- the command line ---------------------------------------------------------------------------
def test_sweep_of_ten_million_poses_is_refused_at_once(tmp_path, capsys):
    model = tmp_path / "fourbar.toml"
    model.write_text((EXAMPLES / "fourbar.toml").read_text().replace("num = 361",
                                                                      "num = 10000000"))
    assert model.stat().st_size < 2300
    t0 = time.perf_counter()
    with deadline(10.0):
        assert main(["sweep", str(model)]) == 1
    assert time.perf_counter() - t0 < 5.0
    err = capsys.readouterr().err
    assert "sweep 'demo' has 10000000 poses, more than --max-poses 100000" in err
    with deadline(10.0):
        assert main(["sweep", str(model), "--driver", "motor", "--values", "0:1e12:1"]) == 1
    assert "--values 0:1e12:1: 1000000000001 values, more than --max-poses 100000" in \
        capsys.readouterr().err
    assert main(["sweep", str(EXAMPLES / "fourbar.toml"), "--max-poses", "360"]) == 1
    assert "361 poses, more than --max-poses 360" in capsys.readouterr().err
    assert main(["sweep", str(EXAMPLES / "fourbar.toml"), "--max-poses", "361",
                 "--rows", "2"]) == 0
    assert "361 poses" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        main(["sweep", str(EXAMPLES / "fourbar.toml"), "--max-poses", "0"])


# -- files a model names ------------------------------------------------------------------------
ROBOT = ('mechsolve = 1\ndimension = 3\n\n[[robots]]\nname = "arm"\nurdf = {urdf}\n')


@pytest.fixture
def folders(tmp_path):
    """A model folder, a secret next to it, and an arm inside."""
    model_dir = tmp_path / "models"
    (model_dir / "sub").mkdir(parents=True)
    secret = tmp_path / "secret.urdf"
    secret.write_text((EXAMPLES / "arm6r.urdf").read_text())
    (tmp_path / "notxml.urdf").write_text("root:x:0:0:root:/root:/bin/bash\n")
    (model_dir / "sub" / "arm.urdf").write_text((EXAMPLES / "arm6r.urdf").read_text())
    return model_dir, secret


def _refusal(model_dir, name, **kw):
    path = model_dir / "cell.toml"
    path.write_text(ROBOT.format(urdf=json.dumps(name)))
    with pytest.raises(ModelFileError) as info:
        ms.load(path, **kw)
    return str(info.value)


@pytest.mark.parametrize("name", ["../secret.urdf", "../missing.urdf", "../notxml.urdf",
                                  "sub/../../secret.urdf", "/etc/passwd",
                                  "/nonexistent/x.urdf"])
def test_a_urdf_outside_the_models_folder_is_refused_alike(folders, name):
    model_dir, _ = folders
    msg = _refusal(model_dir, name)
    assert f"robots[0] ('arm').urdf: {name!r} is outside the model file's folder" in msg
    assert "allow_paths" in msg
    # nothing about the file: whether it exists, is XML, or what it holds
    shown = msg.replace(repr(name), "NAME")
    assert shown == _refusal(model_dir, "../never-there.urdf").replace(
        repr("../never-there.urdf"), "NAME")
    for word in ("cannot be read", "XML", "<robot", "No such file", "root:", "exist"):
        assert word not in shown


@pytest.mark.skipif(not hasattr(os, "symlink"), reason="needs symbolic links")
def test_a_link_out_of_the_folder_is_refused(folders):
    model_dir, secret = folders
    try:
        (model_dir / "link.urdf").symlink_to(secret)
        (model_dir / "dir").symlink_to(secret.parent)
    except OSError:                                     # pragma: no cover
        pytest.skip("symbolic links not allowed here")
    assert "'link.urdf' is outside the model file's folder" in _refusal(model_dir, "link.urdf")
    assert "is outside the model file's folder" in _refusal(model_dir, "dir/secret.urdf")


def test_allow_paths_and_the_folder_itself(folders, capsys):
    model_dir, secret = folders
    path = model_dir / "cell.toml"
    path.write_text(ROBOT.format(urdf=json.dumps("sub/arm.urdf")))
    assert ms.load(path).robots["arm"].arm.n_joints == 6
    path.write_text(ROBOT.format(urdf=json.dumps("../secret.urdf")))
    for allow in (secret.parent, [str(secret)], (secret.parent,)):
        assert ms.load(path, allow_paths=allow).robots["arm"].arm.n_joints == 6
    path.write_text(ROBOT.format(urdf=json.dumps(str(secret))))
    assert ms.load(path, allow_paths=[secret.parent]).robots["arm"].arm.n_joints == 6
    # text: relative to base_dir (default the current folder)
    text = ROBOT.format(urdf=json.dumps("../secret.urdf"))
    with pytest.raises(ModelFileError, match="outside the model file's folder"):
        loads(text, base_dir=model_dir)
    assert loads(text, base_dir=model_dir, allow_paths=secret.parent).robots["arm"]
    # the command line: --allow-path
    assert main(["check", str(path)]) == 1
    assert "outside the model file's folder" in capsys.readouterr().err
    assert main(["dof", str(path), "--allow-path", str(secret.parent)]) == 0


# -- what save writes, load reads ---------------------------------------------------------------
def test_a_coordinate_just_past_the_bound_is_not_saved(tmp_path):
    mech = ms.Mechanism()
    mech.add_body("slider", position=(math.nextafter(1e15, math.inf), 0.0))
    with pytest.raises(ValueError, match=r"cannot save the mechanism: bodies\[0\] \('slider'\)"
                                         r"\.position\[0\]: 1000000000000000\.1 is beyond the "
                                         r"bound of 1e\+15"):
        ms.save(mech, tmp_path / "far.toml")
    assert not (tmp_path / "far.toml").exists()
    mech.body("slider").position = (1e15, -1e15)          # at the bound: round trip
    ms.save(mech, tmp_path / "edge.toml")
    np.testing.assert_array_equal(load(tmp_path / "edge.toml").body("slider").position,
                                  [1e15, -1e15])


def test_save_refuses_the_other_things_load_refuses(monkeypatch):
    import sympy as sp

    mech = ms.models.fourbar().mechanism
    t = sp.Symbol("t", real=True)
    mech.joint("motor").profile = profiles.Expression(t**200, t)
    with pytest.raises(ValueError, match=r"joints\[\d+\] \(Driver 'motor'\)\.profile\."
                                         r"expression: the constant exponent 200"):
        dumps(mech)
    mech = ms.models.fourbar().mechanism
    monkeypatch.setattr(ms.files._writer, "MAX_SWEEP_VALUES", 100)
    mech.sweeps["long"] = NamedSweep("motor", np.linspace(0.0, 1.0, 101))
    with pytest.raises(ValueError, match=r"sweeps\[0\] \('long'\)\.values: the sweeps up to "
                                         r"this one have 101 values"):
        dumps(mech)
