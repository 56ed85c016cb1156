"""The compiled planar path (numba, :mod:`mechsolve._compiled`): kernels printed from the joint
classes' ``_terms``, the table-driven Phi and Jacobian, and ``mech.solve(backend=...)``.

The generated module must be what the generator prints today; the compiled Phi and Jacobian
must be NumPy's ``System.evaluate`` (to 1e-15 of the terms' size) and the Jacobian the finite
differences of Phi; both solve paths must give the same poses (1e-13 of the model's size), the
same iterations and the same messages; the package must work without numba."""

from __future__ import annotations

import logging
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from _joint_cases import PLANAR, _install, _planar

import mechsolve as ms
from mechsolve import joints
from mechsolve._compiled import _codegen, _runtime
from mechsolve._compiled._system import CompiledSystem, compiled_system
from mechsolve.analysis import pipeline
from mechsolve.analysis.continuation import _driver_params

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def kernels():
    """The compiled modules (skips where numba is missing)."""
    pytest.importorskip("numba", reason="the compiled path needs numba (mechsolve[numba])")
    return _runtime.kernels()


# -- models ---------------------------------------------------------------------------------------
def readme_fourbar(scale: float = 1.0, shift=(0.0, 0.0), pivot: float = 4.0):
    """The README's four-bar, lengths times ``scale``, moved by ``shift`` (the rocker's ground
    pivot at ``(pivot, 0)``)."""
    sx, sy = shift
    mech = ms.Mechanism()
    ground = mech.ground

    def p(x, y):
        return (scale * x, scale * y)

    crank = mech.add_body("crank", position=(scale * 0.5 + sx, sy), angle=0.0)
    coupler = mech.add_body("coupler", position=(scale * 2.0 + sx, scale * 1.0 + sy),
                            angle=0.3)
    rocker = mech.add_body("rocker", position=(scale * 4.0 + sx, scale * 1.5 + sy), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (sx, sy), p(-0.5, 0.0)))
    mech.add(joints.Revolute(crank, coupler, p(0.5, 0.0), p(-1.5, 0.0)))
    mech.add(joints.Revolute(coupler, rocker, p(1.5, 0.0), p(-1.75, 0.0)))
    mech.add(joints.Revolute(rocker, ground, p(1.75, 0.0), (scale * pivot + sx, sy)))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return mech, drive


def _models():
    return {"readme fourbar": lambda: readme_fourbar(),
            "fourbar um far": lambda: readme_fourbar(1e-6, (3e-3, -2e-3)),
            "fourbar km": lambda: readme_fourbar(1e3, (5e4, 1e4)),
            "slider-crank": lambda: _model(ms.models.slider_crank()),
            "gear train": lambda: _model(ms.models.gear_train()),
            "watt sixbar": lambda: _model(ms.models.watt_sixbar()),
            "fourbar chain 5": lambda: _model(ms.models.fourbar_chain(5))}


def _model(model):
    return model.mechanism, model.driver


MODELS = _models()


def compiled_evaluate(kernels, sys, q):
    """Phi ``(m,)`` and the dense Jacobian ``(m, n)`` by the compiled table-driven evaluator."""
    t = CompiledSystem(sys)
    F = np.empty(sys.m)
    J = np.full((sys.m, sys.n), np.nan)
    X = np.empty((sys.nb + 1, 3))
    kernels[0].evaluate(np.ascontiguousarray(q), sys.nb, t.jtype, t.jbody, t.jcol, t.jpar,
                        t.jrow, t.params(), X, F, J, True)
    return F, J


def _planar_case_mechanisms():
    """One small mechanism per planar joint case the compiled path supports."""
    out = {}
    for name, make in PLANAR.items():
        def build(rng, make=make):
            mech, bodies = _planar(rng, 3)
            _install(make(rng, mech, *bodies))
            return mech
        out[name] = build
    return out


CASES = _planar_case_mechanisms()


def _supported(mech) -> bool:
    return all(type(j) in _codegen.SUPPORTED for j in mech.joints)


# -- the generated module -----------------------------------------------------------------------
def test_generated_module_is_what_the_generator_prints():
    text = _codegen.MODULE_PATH.read_text()
    assert text == _codegen.module_source(), (
        "mechsolve/_compiled/_planar_kernels.py is stale: run "
        "python -m mechsolve._compiled._codegen")


def test_every_planar_class_with_a_kernel_written_once_is_compiled():
    from mechsolve._jax.system import _supported as traceable
    planar = {c for c in _codegen.SUPPORTED}
    names = {c.__name__ for c in planar}
    # every planar class JAX traces has a compiled kernel (the spatial ones are not planar)
    missing = {n for n in traceable() if n not in names
               and getattr(joints, n, None) is not None
               and getattr(getattr(joints, n), "dim", 2) == 2}
    assert not missing, missing


def test_recorder_refuses_what_it_cannot_print():
    tape = _codegen._Tape()
    P = _codegen._Array(tape, "P[{}]")
    with pytest.raises(TypeError, match=r"reads single components A\[\.\.\., k\], got"):
        P[..., slice(0, 2)]
    with pytest.raises(TypeError, match="takes numbers and recorded values, got str"):
        P[..., 0] + "x"


# -- Phi and the Jacobian -----------------------------------------------------------------------
def _random_state(sys, rng, scale=1.0, shift=(0.0, 0.0)):
    q = rng.normal(size=sys.n_state).reshape(sys.nb, 3)
    q[:, :2] = scale * q[:, :2] + shift
    q[:, 2] = rng.uniform(-np.pi, np.pi, sys.nb)
    return q.ravel()


def _assert_same_evaluation(kernels, mech, rng, poses=5, scale=1.0, shift=(0.0, 0.0)):
    sys = mech.system()
    for _ in range(poses):
        q = _random_state(sys, rng, scale, shift)
        F, J = compiled_evaluate(kernels, sys, q)
        Fn, vals = sys.evaluate(q)
        Jn = sys.jacobian_dense(vals)
        # the same operations in the same order: only cos and sin may round differently (libm
        # against NumPy's own), by an ulp of the terms (lengths, in the model's size)
        size = max(1.0, np.max(np.abs(q[0::3])), np.max(np.abs(q[1::3]))) * max(
            1.0, sys.length_scale)
        assert np.max(np.abs(F - Fn)) <= 1e-15 * size, np.max(np.abs(F - Fn)) / size
        assert np.max(np.abs(J - Jn)) <= 1e-15 * size, np.max(np.abs(J - Jn)) / size


@pytest.mark.parametrize("name", sorted(n for n in CASES if n != "DistanceLimit"))
def test_phi_and_jacobian_are_numpys_for_every_class(kernels, name):
    mech = CASES[name](np.random.default_rng(1))
    assert _supported(mech)
    _assert_same_evaluation(kernels, mech, np.random.default_rng(2))


@pytest.mark.parametrize("name", sorted(MODELS))
def test_phi_and_jacobian_are_numpys_on_models(kernels, name):
    mech, _ = MODELS[name]()
    scale = mech.length_scale
    _assert_same_evaluation(kernels, mech, np.random.default_rng(3), scale=scale)
    _assert_same_evaluation(kernels, mech, np.random.default_rng(4), scale=scale,
                            shift=(1e3 * scale, -2e3 * scale))


@pytest.mark.parametrize("name", sorted(n for n in CASES if n != "DistanceLimit"))
def test_jacobian_is_the_derivative_of_phi(kernels, name):
    mech = CASES[name](np.random.default_rng(5))
    sys = mech.system()
    rng = np.random.default_rng(6)
    for _ in range(3):
        q = _random_state(sys, rng)
        F, J = compiled_evaluate(kernels, sys, q)
        h = 1e-6
        fd = np.empty_like(J)
        for k in range(sys.n):
            e = np.zeros(sys.n)
            e[k] = h
            fd[:, k] = (compiled_evaluate(kernels, sys, q + e)[0]
                        - compiled_evaluate(kernels, sys, q - e)[0]) / (2 * h)
        np.testing.assert_allclose(J, fd, rtol=1e-7, atol=1e-8)


def test_unsupported_systems_have_no_tables():
    arm = ms.Mechanism(dim=3)
    link = arm.add_body("link", position=(0, 0, 0.5))
    arm.add(joints.Revolute(arm.ground, link, ms.Frame(), ms.Frame((0, 0, -0.5))))
    assert compiled_system(arm.system()) is None
    mech, _ = readme_fourbar()
    mech.add(joints.DistanceLimit(mech.body("crank"), mech.body("rocker"), (0, 0), (0, 0),
                                  limits=(0.1, 9.0)))
    assert compiled_system(mech.system()) is None          # no compiled kernel
    mech, drive = readme_fourbar()
    mech.remove(drive)
    assert compiled_system(mech.system()) is None          # not square


# -- solve ----------------------------------------------------------------------------------------
@pytest.fixture
def spy(monkeypatch):
    """How often the compiled Newton answered (returned a pose) and handed over."""
    calls = {"answered": 0, "handed over": 0}
    real = pipeline._compiled_newton

    def counted(*args):
        out = real(*args)
        calls["answered" if out is not None else "handed over"] += 1
        return out

    monkeypatch.setattr(pipeline, "_compiled_newton", counted)
    return calls


def _pair(name):
    a, da = MODELS[name]()
    b, db = MODELS[name]()
    return a, da, b, db


def _assert_same_solve(a, b, ra, rb):
    size = a.length_scale
    gap = np.abs(a.state - b.state)
    gap[0::3] /= size
    gap[1::3] /= size
    big = max(1.0, float(np.max(np.abs(b.state[0::3]))) / size,
              float(np.max(np.abs(b.state[1::3]))) / size)
    assert np.max(gap) <= 1e-13 * big, np.max(gap)
    assert ra.success and rb.success
    assert ra.iterations == rb.iterations
    assert ra.phases == rb.phases
    assert ra.rank_status == rb.rank_status
    assert abs(ra.residual - rb.residual) <= 1e-12


@pytest.mark.parametrize("name", sorted(MODELS))
def test_solve_gives_numpys_pose_and_iterations(kernels, spy, name):
    a, da, b, db = _pair(name)
    v0 = da.value
    for step in (0.0, 0.3, -0.5, 1.0, 0.05):
        ra = a.solve(backend="numba")
        rb = b.solve(backend="numpy")
        _assert_same_solve(a, b, ra, rb)
        da.value = db.value = v0 + step * (1.0 if da.is_angle else a.length_scale)
    assert spy["answered"] >= 4


@pytest.mark.parametrize("name", ["readme fourbar", "fourbar um far", "fourbar km"])
def test_compiled_result_has_numpys_fields_measured_at_its_pose(kernels, spy, name,
                                                               monkeypatch):
    """The compiled solve's result (built from the kernel's one output array) has the NumPy
    path's fields in the same order; its residuals are those of the pose it returns."""
    # "auto" as a user has it (a run with MECHSOLVE_BACKEND=numpy would take NumPy here)
    monkeypatch.delenv("MECHSOLVE_BACKEND", raising=False)
    a, da, b, db = _pair(name)
    a.solve(backend="numpy")
    b.solve(backend="numpy")
    da.value = db.value = da.value + 0.3
    ra = a.solve()                  # "auto": compiled (the kernels are compiled here)
    rb = b.solve(backend="numpy")
    assert spy == {"answered": 1, "handed over": 0}
    assert list(ra) == list(rb)
    _assert_same_solve(a, b, ra, rb)
    sys_ = a.system()
    phi = sys_.phi(a.state)
    round_off = 8 * np.finfo(float).eps * float(np.max(np.abs(a.state))) + 1e-300
    assert abs(ra.residual_abs - float(np.max(np.abs(phi)))) <= round_off
    np.testing.assert_array_equal(ra.state, a.state)
    for k, j in enumerate(sys_.joints):
        rows = slice(sys_.row_starts[k], sys_.row_starts[k + 1])
        np.testing.assert_allclose(ra.joint_residuals[j], phi[rows], rtol=0, atol=round_off)
    assert ra.history == pytest.approx(rb.history, rel=1e-9, abs=1e-15)
    assert ra.history[-1] == ra.residual
    assert (ra.active_limits, ra.redundant, ra.free_dof, ra.crossed) == ([], [], 0, False)
    # the result's arrays are its own: changing them changes nothing of the mechanism
    q = a.state
    ra.state[:] = 0.0
    np.testing.assert_array_equal(a.state, q)
    assert a.solve().success


def test_above_numpys_dense_limit_the_poses_are_numpys(kernels, spy):
    # 159 unknowns: NumPy takes sparse LU and may finish by simplified steps (not counted as
    # iterations), the compiled path by full Newton steps
    a = ms.models.fourbar_chain(26)
    b = ms.models.fourbar_chain(26)
    assert a.mechanism.system().n == 159 and not a.mechanism.system().dense
    a.mechanism.solve(backend="numpy")
    b.mechanism.solve(backend="numpy")
    for move in (0.1, 0.3):
        a.driver.value = b.driver.value = a.driver.value + move
        ra = a.mechanism.solve(backend="numba")
        rb = b.mechanism.solve(backend="numpy")
        np.testing.assert_allclose(a.mechanism.state, b.mechanism.state, rtol=0, atol=1e-13)
        assert ra.success and rb.iterations <= ra.iterations <= rb.iterations + 1
    assert spy == {"answered": 2, "handed over": 0}


def test_first_assembly_from_the_sketch_is_numpys(kernels, spy):
    # Newton from the README's sketch crosses a singular configuration (and NumPy's LU turns
    # to least squares on the way): the pipeline's later stages decide, on the NumPy path
    a, _ = readme_fourbar()
    b, _ = readme_fourbar()
    ra = a.solve(backend="numba")
    rb = b.solve(backend="numpy")
    _assert_same_solve(a, b, ra, rb)
    assert ra.history == rb.history
    assert spy == {"answered": 0, "handed over": 1}
    # the slider-crank's sketch: the compiled Newton's history is NumPy's
    a, _ = MODELS["slider-crank"]()
    b, _ = MODELS["slider-crank"]()
    a.state = b.state = a.state + 0.05
    ra = a.solve(backend="numba")
    rb = b.solve(backend="numpy")
    _assert_same_solve(a, b, ra, rb)
    assert ra.history == pytest.approx(rb.history, rel=1e-9, abs=1e-15)
    assert spy == {"answered": 1, "handed over": 1}


def test_unreachable_driver_hands_over_with_numpys_message(kernels, spy):
    # the ground 6 long: 1 + 6 > 3 + 3.5, the crank cannot turn a full turn
    a, da = readme_fourbar(pivot=6.0)
    b, db = readme_fourbar(pivot=6.0)
    a.solve(backend="numba")
    b.solve(backend="numpy")
    spy["answered"] = spy["handed over"] = 0
    before = a.state
    da.value = db.value = 3.0   # the crank's end 7 from the rocker's pivot: out of reach
    with pytest.raises(ms.SolveError) as ea:
        a.solve(backend="numba")
    with pytest.raises(ms.SolveError) as eb:
        b.solve(backend="numpy")
    assert str(ea.value) == str(eb.value)
    assert spy == {"answered": 0, "handed over": 1}
    np.testing.assert_array_equal(a.state, before)       # left unchanged on failure


def test_branch_condition_is_kept(kernels, spy):
    a, _ = readme_fourbar()
    b, _ = readme_fourbar()

    def below(m):
        return m.body("coupler").to_global((1.5, 0.0))[1] < 0.0

    ra = a.solve(backend="numba", branch=below)
    rb = b.solve(backend="numpy", branch=below)
    assert below(a) and below(b)
    _assert_same_solve(a, b, ra, rb)
    assert spy["handed over"] == 1


def test_limits_and_unsupported_joints_stay_on_numpy(kernels, spy):
    mech, drive = readme_fourbar()
    mech.solve(backend="numpy")
    drive.value = 0.3
    mech.solve(backend="numba")
    assert spy == {"answered": 1, "handed over": 0}
    limited, d2 = readme_fourbar()
    limited.joints[0].limits = (-3.0, 3.0)
    limited.solve(backend="numpy")
    d2.value = 0.3
    assert limited.solve(backend="numba").success
    assert spy == {"answered": 1, "handed over": 0}     # not even tried
    mech.add(joints.DistanceLimit(mech.body("crank"), mech.body("rocker"), (0, 0), (0, 0),
                                  limits=(0.1, 9.0)))
    drive.value = 0.4
    assert mech.solve(backend="numba").success
    assert spy == {"answered": 1, "handed over": 0}

    class OwnRevolute(joints.Revolute):       # a subclass may change the equations
        pass

    own, d3 = readme_fourbar()
    pin = own.joints[1]
    own.remove(pin)
    own.add(OwnRevolute(pin.bodies[0], pin.bodies[1], (0.5, 0.0), (-1.5, 0.0)))
    own.solve(backend="numpy")
    d3.value = 0.3
    assert own.solve(backend="numba").success
    assert spy == {"answered": 1, "handed over": 1}


# -- which path -----------------------------------------------------------------------------------
def test_backend_is_checked():
    mech, _ = readme_fourbar()
    with pytest.raises(ValueError, match=r"backend must be one of 'auto', 'numpy', 'numba', "
                                         r"got 'fast'"):
        mech.solve(backend="fast")


def test_environment_variable_sends_auto_to_numpy_and_is_checked(monkeypatch):
    monkeypatch.setenv("MECHSOLVE_BACKEND", "numpy")
    assert not _runtime.use_compiled("auto")
    monkeypatch.setenv("MECHSOLVE_BACKEND", "gpu")
    with pytest.raises(ValueError, match="environment variable MECHSOLVE_BACKEND must be one "
                                         "of 'auto', 'numpy', 'numba', got 'gpu'"):
        _runtime.use_compiled("auto")


def test_environment_variable_is_read_as_os_environ_has_it(monkeypatch):
    """The quick look at os.environ's dict (a solve asks every time) answers as
    os.environ.get: unset, set, changed, unset again."""
    from mechsolve import _numba_runtime
    monkeypatch.delenv("MECHSOLVE_BACKEND", raising=False)
    assert _numba_runtime._env_backend() is None
    for value in ("numpy", " NumBa ", ""):
        monkeypatch.setenv("MECHSOLVE_BACKEND", value)
        assert _numba_runtime._env_backend() == value == os.environ.get("MECHSOLVE_BACKEND")
    monkeypatch.delenv("MECHSOLVE_BACKEND")
    assert _numba_runtime._env_backend() is None
    assert not _runtime.use_compiled("numpy")


def test_without_numba_auto_takes_numpy_and_numba_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(_runtime._state, "numba", False)
    monkeypatch.delenv("MECHSOLVE_BACKEND", raising=False)
    assert not _runtime.use_compiled("auto")
    mech, _ = readme_fourbar()
    with pytest.raises(ValueError, match=r"backend='numba' needs numba, which cannot be "
                                         r"imported here \(pip install \"mechsolve\[numba\]\""):
        mech.solve(backend="numba")
    assert mech.solve().success
    with pytest.raises(ValueError, match="ms.compile needs numba"):
        ms.compile()


def test_cache_path_is_keyed_by_version_and_source(monkeypatch, tmp_path):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    path = _runtime.cache_path()
    assert path.parent == tmp_path
    assert path.name.startswith(f"numba-{ms.__version__}-") and len(path.name) > 20


@pytest.mark.parametrize("changed", ["_numba_linalg.py", "_compiled/_planar_kernels.py",
                                     "_compiled/_mech_kernels.py", "robots/_ik_kernels.py"])
def test_a_changed_compiled_source_is_a_new_cache_folder(monkeypatch, tmp_path, changed):
    """numba checks a cached kernel against its own file only: a change to a module it calls
    (the shared linear algebra above all) must move each path that compiles it to a new cache
    folder. Each path's cache_path read from a copy of the package's sources, then from the
    copy with ``changed`` edited."""
    from mechsolve.robots import _ik_compiled
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    root = Path(ms.__file__).parent
    copy = tmp_path / "mechsolve"
    paths = {"planar": (_runtime, "_compiled/_runtime.py"),
             "ik": (_ik_compiled, "robots/_ik_compiled.py")}
    for mod, where in paths.values():
        for name in mod._SOURCES:
            (copy / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(root / name, copy / name)
        monkeypatch.setattr(mod, "__file__", str(copy / where))

    def folders():
        out = {}
        for what, (mod, _) in paths.items():
            monkeypatch.setattr(mod, "_state", {})
            out[what] = mod.cache_path()
        return out

    before = folders()
    assert before["planar"] != before["ik"]
    with open(copy / changed, "a") as f:
        f.write("\n# changed\n")
    after = folders()
    callers = {"_numba_linalg.py": {"planar", "ik"}, "robots/_ik_kernels.py": {"ik"}}
    moved = {what for what in paths if after[what] != before[what]}
    assert moved == callers.get(changed, {"planar"})


def test_package_imports_and_solves_with_numba_hidden():
    code = ("import sys; sys.modules['numba'] = None\n"
            "import mechsolve as ms\n"
            "from mechsolve._compiled import _runtime\n"
            "m = ms.models.fourbar().mechanism\n"
            "assert m.solve().success and not _runtime.use_compiled('auto')\n"
            "assert 'mechsolve._compiled._mech_kernels' not in sys.modules\n"
            "print('ok')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MECHSOLVE_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_auto_takes_compiled_only_once_compiled(kernels, tmp_path):
    """A fresh process with an empty cache solves on NumPy under 'auto' and compiles nothing;
    with the cache ms.compile() wrote (copied from this session's), a new process takes the
    compiled path from the cache, compiling nothing."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), MECHSOLVE_CACHE_DIR=str(tmp_path))
    env.pop("MECHSOLVE_BACKEND", None)
    env.pop("NUMBA_CACHE_DIR", None)
    probe = ("import mechsolve as ms\n"
             "from mechsolve._compiled import _runtime\n"
             "m = ms.models.fourbar().mechanism\n"
             "assert m.solve().success\n"
             "print(_runtime.use_compiled('auto'), 'newton' in _runtime._state)\n")
    run = [sys.executable, "-c", probe]
    out = subprocess.run(run, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert out.returncode == 0 and out.stdout.split() == ["False", "False"], out.stderr
    folder = ms.compile()
    shutil.copytree(folder, tmp_path / folder.name)
    out = subprocess.run(run, capture_output=True, text=True, env=env, cwd=ROOT, timeout=600)
    assert out.returncode == 0 and out.stdout.split() == ["True", "True"], out.stderr
    assert "compiling" not in out.stderr


def test_cold_compile_says_so_once(kernels, monkeypatch, caplog):
    monkeypatch.setattr(_runtime, "_cached", lambda fn: False)
    monkeypatch.delitem(_runtime._state, "newton", raising=False)
    with caplog.at_level(logging.WARNING, logger="mechsolve"):
        ms.compile()
        ms.compile()
    said = [r.getMessage() for r in caplog.records if "compiling" in r.getMessage()]
    assert len(said) == 1 and "planar mechanism solver with numba (newton" in said[0]


# -- sweep ----------------------------------------------------------------------------------------
@pytest.fixture
def sweep_spy(monkeypatch):
    """How often the compiled sweep answered and handed over."""
    from mechsolve.analysis import _compiled_sweep, continuation
    calls = {"answered": 0, "handed over": 0}
    real = _compiled_sweep.compiled_sweep

    def counted(*args):
        out = real(*args)
        calls["answered" if out is not None else "handed over"] += 1
        return out

    monkeypatch.setattr(continuation, "compiled_sweep", counted)
    return calls


def _sweep_values(mech, drive, count=361):
    if drive.is_angle:
        return drive.value + np.linspace(0.0, 2 * np.pi, count)
    return drive.value + np.linspace(0.0, 0.3 * mech.length_scale, count)


@pytest.mark.parametrize("name", sorted(n for n in MODELS if n != "fourbar chain 5"))
def test_sweep_gives_numpys_poses(kernels, sweep_spy, name):
    a, da, b, db = _pair(name)
    a.solve(backend="numpy")
    b.solve(backend="numpy")
    values = _sweep_values(a, da)
    ma = a.sweep(da, values, backend="numba")
    mb = b.sweep(db, values, backend="numpy")
    assert sweep_spy == {"answered": 1, "handed over": 0}
    size = a.length_scale
    gap = np.abs(ma.states - mb.states)
    gap[:, 0::3] /= size
    gap[:, 1::3] /= size
    big = max(1.0, float(np.max(np.abs(mb.states[:, 0::3]))) / size,
              float(np.max(np.abs(mb.states[:, 1::3]))) / size)
    assert np.max(gap) <= 1e-13 * big, np.max(gap)
    np.testing.assert_array_equal(ma.values, mb.values)
    assert list(ma.singular) == list(mb.singular) == []
    assert ma.iterations[0] == mb.iterations[0]
    # every pose's residual at round-off (its own equations, measured here by NumPy)
    sys_a = a.system()
    phi = sys_a.phi(ma.states, params=_driver_params(sys_a, da, values)) / sys_a.eq_scale
    assert np.max(np.abs(phi)) <= 1e-10 + 64 * np.finfo(float).eps * big
    np.testing.assert_allclose(ma.residuals, np.max(np.abs(phi * sys_a.eq_scale), axis=1),
                               rtol=0, atol=64 * np.finfo(float).eps * big * size)
    np.testing.assert_array_equal(a.state, ma.states[-1])
    assert da.value == db.value == values[-1]


def test_sweep_through_a_limit_position_hands_over_with_numpys_error(kernels, sweep_spy):
    a, da = readme_fourbar(pivot=6.0)
    b, db = readme_fourbar(pivot=6.0)
    a.solve(backend="numpy")
    b.solve(backend="numpy")
    before = a.state
    values = np.linspace(0.0, np.pi, 91)
    with pytest.raises(ms.SweepError) as ea:
        a.sweep(da, values, backend="numba")
    with pytest.raises(ms.SweepError) as eb:
        b.sweep(db, values, backend="numpy")
    assert str(ea.value) == str(eb.value)
    assert ea.value.index == eb.value.index
    np.testing.assert_array_equal(a.state, before)
    assert da.value == 0.0
    assert sweep_spy == {"answered": 0, "handed over": 1}


def test_sweep_with_progress_or_numpy_runs_the_numpy_engine(kernels, sweep_spy):
    a, da = readme_fourbar()
    a.solve(backend="numpy")
    seen = []
    a.sweep(da, np.linspace(0.0, 1.0, 11), progress=lambda i, n: seen.append(i),
            backend="numba")
    assert seen == list(range(1, 12))
    assert sweep_spy == {"answered": 0, "handed over": 1}
    a.sweep(da, np.linspace(0.0, 1.0, 11), backend="numpy")
    assert sweep_spy == {"answered": 0, "handed over": 1}
    with pytest.raises(ValueError, match="backend must be one of"):
        a.sweep(da, np.linspace(0.0, 1.0, 11), backend="gpu")


def test_time_limits_hold_on_the_compiled_path(kernels):
    model = ms.models.fourbar()
    mech, motor = model.mechanism, model.driver
    mech.solve(backend="numpy")
    before = mech.state
    with pytest.raises(ms.SolveError, match="sweep stopped at its time limit"):
        mech.sweep(motor, np.linspace(0, 6, 360), time_limit=1e-9, backend="numba")
    motor.value = 0.3
    with pytest.raises(ms.SolveError, match="solve stopped at its time limit"):
        mech.solve(time_limit=1e-9, backend="numba")
    np.testing.assert_array_equal(mech.state, before)
