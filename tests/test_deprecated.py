"""Names that moved keep working for one release, each with a DeprecationWarning that names the
new path: the modules ``mechsolve.kinematics``, ``mechsolve.models_spatial``,
``mechsolve.io.model``, ``mechsolve.io.mjcf`` and ``mechsolve.io.urdf_loops`` (no file any
more), the linkage measures under ``mechsolve.design``, and ``Mechanism.save``."""

from __future__ import annotations

import importlib
import pathlib
import subprocess
import sys
import warnings

import pytest

import mechsolve as ms
from mechsolve._deprecated import MOVED_MODULES

PACKAGE = pathlib.Path(ms.__file__).parent

# every public name each old module had, and its new home
OLD_NAMES = {
    "mechsolve.kinematics": ("mechsolve.analysis", [
        "velocity", "acceleration", "time_sweep", "free_motions", "point_velocity",
        "point_acceleration", "FreeMotion", "free_motion_path", "free_motion_amplitude",
        "wiggle_free_motions"]),
    "mechsolve.models_spatial": ("mechsolve.models.spatial", [
        "spherical_fourbar", "rssr", "bricard", "stewart", "three_rps", "slider_crank_3d",
        "spatial_chain", "stewart_legs", "SPATIAL_DEMOS", "rssr_output", "STEWART_BASE",
        "STEWART_PLATFORM", "spherical_fourbar_output"]),
    "mechsolve.io.model": ("mechsolve.files", [
        "load", "loads", "save", "dumps", "ModelFileError", "FORMAT_VERSION", "SCHEMA_PATH",
        "MAX_CHARACTERS", "MAX_MAGNITUDE", "MAX_SWEEP_VALUES", "MAX_FILE_EQUATIONS",
        "MAX_FILE_TOKENS", "NamedSweep", "RobotEntry"]),
    "mechsolve.io.mjcf": ("mechsolve.robots.mjcf", ["MJCFModel", "load_mjcf", "MAX_BYTES",
                                                    "MAX_MAGNITUDE"]),
    "mechsolve.io.urdf_loops": ("mechsolve.robots.urdf_loops", [
        "URDFModel", "load_urdf_mechanism", "urdf_joint_values"]),
}


def test_the_table_lists_every_moved_module():
    assert {old: new for old, (new, _) in OLD_NAMES.items()} == MOVED_MODULES


@pytest.mark.parametrize("old", list(OLD_NAMES))
def test_moved_module_has_no_file_and_its_names_warn(old):
    new, names = OLD_NAMES[old]
    path = PACKAGE.joinpath(*old.split(".")[1:])
    assert not path.with_suffix(".py").exists() and not path.exists()
    module = importlib.import_module(old)
    home = importlib.import_module(new)
    for name in names:
        with pytest.warns(DeprecationWarning) as caught:
            value = getattr(module, name)
        assert value is getattr(home, name)
        (w,) = caught
        assert str(w.message) == (f"{old}.{name} is deprecated: use {new}.{name} ({old} will be "
                                  f"removed in mechsolve 0.3)")
        assert w.filename == __file__      # the warning points at the line that used the name


def test_from_import_of_a_moved_module_warns_at_the_import_line():
    with pytest.warns(DeprecationWarning, match=r"mechsolve\.kinematics\.velocity is "
                                                r"deprecated: use mechsolve\.analysis\.velocity"
                      ) as caught:
        from mechsolve.kinematics import velocity
    assert velocity is ms.analysis.velocity
    assert caught[0].filename == __file__


def test_moved_modules_are_attributes_of_their_old_packages():
    # ms.models_spatial and ms.io.model worked without importing them: they still do
    assert ms.models_spatial.__name__ == "mechsolve.models_spatial"
    assert ms.io.model.__name__ == "mechsolve.io.model"
    with pytest.warns(DeprecationWarning, match="use mechsolve.models.spatial.rssr"):
        assert ms.models_spatial.rssr is ms.models.spatial.rssr
    with pytest.warns(DeprecationWarning, match="use mechsolve.files.load"):
        assert ms.io.model.load is ms.load
    assert "stewart" in dir(ms.models_spatial)


def test_unknown_names_still_raise_attribute_errors():
    with pytest.raises(AttributeError, match=r"'mechsolve.kinematics' has no attribute "
                                             r"'no_such' \(its names are in "
                                             r"mechsolve\.analysis\)"):
        ms.kinematics.no_such  # noqa: B018
    with pytest.raises(AttributeError, match="'mechsolve' has no attribute 'no_such'"):
        ms.no_such  # noqa: B018
    with pytest.raises(AttributeError, match="'mechsolve.io' has no attribute 'no_such'"):
        ms.io.no_such  # noqa: B018
    with pytest.raises(AttributeError, match="'mechsolve.design' has no attribute 'no_such'"):
        ms.design.no_such  # noqa: B018


def test_star_import_of_a_moved_module_gives_the_new_homes_names():
    namespace = {}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        exec("from mechsolve.io.urdf_loops import *", namespace)
    assert namespace["load_urdf_mechanism"] is ms.robots.load_urdf_mechanism
    assert {str(w.message).split(" is ")[0] for w in caught} == {
        f"mechsolve.io.urdf_loops.{n}" for n in ms.robots.urdf_loops.__all__}


@pytest.mark.parametrize("name", ["grashof", "fourbar_loops", "rotation_range", "RotationRange"])
def test_linkage_measures_live_in_analysis(name):
    assert name not in ms.design.__all__ and name in ms.analysis.__all__
    with pytest.warns(DeprecationWarning, match=rf"mechsolve\.design\.{name} is deprecated: use "
                                                rf"mechsolve\.analysis\.{name}") as caught:
        assert getattr(ms.design, name) is getattr(ms.analysis, name)
    assert caught[0].filename == __file__
    assert ms.analysis.grashof(4, 1, 3, 3.5) == "crank-rocker"


def test_mechanism_save_writes_what_ms_save_writes(tmp_path):
    mech = ms.models.fourbar().keep_sweep("turn")
    ms.save(mech, tmp_path / "new.toml")
    with pytest.warns(DeprecationWarning, match=r"mech\.save\(path\) is deprecated: use "
                                                r"ms\.save\(mech, path\) \(Mechanism\.save "
                                                r"will be removed in mechsolve 0\.3\)") as caught:
        mech.save(tmp_path / "old.toml")
    assert caught[0].filename == __file__
    assert (tmp_path / "old.toml").read_text() == (tmp_path / "new.toml").read_text()
    assert ms.save is ms.files.save and ms.load is ms.files.load
    bad = ms.models.fourbar().mechanism
    bad.joint("motor").profile = ms.profiles.Function(lambda t: t, lambda t: 1.0, lambda t: 0.0)
    with pytest.warns(DeprecationWarning), pytest.raises(
            ValueError, match="a Function profile cannot be written to a model file yet"):
        bad.save(tmp_path / "bad.toml")
    assert not (tmp_path / "bad.toml").exists()


def test_import_mechsolve_imports_no_moved_module_and_stays_light():
    code = ("import sys, warnings\n"
            "warnings.simplefilter('error')\n"
            "import mechsolve\n"
            "moved = [m for m in sys.modules if m in (\n"
            f"    {sorted(MOVED_MODULES)!r})]\n"
            "assert not moved, moved\n"
            "assert 'sympy' not in sys.modules and 'matplotlib.pyplot' not in sys.modules\n")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=PACKAGE.parent)
