"""``arm.ik`` on its two paths: the compiled one (numba, :mod:`mechsolve.robots._ik_kernels`)
and the NumPy reference on the Newton core. Both must give the same joint vectors (to 1e-13)
and the same successes on every kind of target and arm; the compiled forward kinematics must
be the NumPy path's; the package must work without numba."""

from __future__ import annotations

import hashlib
import logging
import os
import pathlib
import subprocess
import sys

import numpy as np
import pytest

import mechsolve as ms
from mechsolve.robots import _ik_compiled
from mechsolve.spatial._quat import quat_from_matrix

DATA = pathlib.Path(__file__).parent / "data"
ROOT = pathlib.Path(__file__).resolve().parent.parent


def stanford():
    return ms.robots.dh_arm([(0.412, 0, -np.pi / 2), (0.154, 0, np.pi / 2), (0.0, 0, 0),
                             (0, 0, -np.pi / 2), (0, 0, np.pi / 2), (0.263, 0, 0)],
                            prismatic=[0, 0, 1, 0, 0, 0], name="stanford")


ARMS = {
    "ur5": ms.robots.ur5,
    "ur5-limits": lambda: ms.robots.ur5(limits=[(-2.0, 2.0), (-3.0, 0.5), (-2.8, 2.8),
                                                None, (0.2, 2.9), (-4.0, 9.0)]),
    "stanford-prismatic": stanford,
    "urdf-ur5": lambda: ms.robots.load_urdf(DATA / "ur5.urdf"),
    "three-joints": lambda: ms.robots.dh_arm([(0.3, 0.0, np.pi / 2), (0.0, 0.4, 0.0),
                                              (0.0, 0.35, 0.0)], name="rrr"),
    "seven-joints": lambda: ms.robots.dh_arm([(0.34, 0, -np.pi / 2), (0, 0, np.pi / 2),
                                              (0.4, 0, np.pi / 2), (0, 0, -np.pi / 2),
                                              (0.4, 0, -np.pi / 2), (0, 0, np.pi / 2),
                                              (0.126, 0, 0)], name="iiwa"),
}


def joint_vectors(arm, n, seed):
    """Random joint vectors within the limits (prismatic joints in [0.2, 0.8])."""
    rng = np.random.default_rng(seed)
    Q = rng.uniform(-np.pi, np.pi, size=(n, arm.n_joints))
    for i, j in enumerate(arm.joints):
        if j.kind == "prismatic":
            Q[:, i] = rng.uniform(0.2, 0.8, n)
        elif j.limits is not None:
            lo, hi = (-np.pi if j.limits[0] is None else j.limits[0],
                      np.pi if j.limits[1] is None else j.limits[1])
            Q[:, i] = rng.uniform(lo, hi, n)
    return Q


def assert_same(a, b, what, arm=None):
    """Both paths' results: the same successes, joint vectors to 1e-13 (relative to their
    size, at least 1). Next to a singular pose (with ``arm``) the bound is ``64 eps`` times the
    condition number of the column-scaled Jacobian where that is larger: each path stops at
    round-off of its own residual, and the inverse Jacobian magnifies that round-off in the
    joint values (the NumPy path's batch and one-target drivers differ as much there)."""
    np.testing.assert_array_equal(a.success, b.success, err_msg=what)
    qa, qb = np.atleast_2d(a.q), np.atleast_2d(b.q)
    scale = np.maximum(1.0, np.abs(qb))
    gap = np.max(np.abs(qa - qb) / scale, axis=1)
    bound = np.full(len(qb), 1e-13)
    if arm is not None:
        J = arm.jacobian(qb)
        J[..., :3, :] /= arm.length_scale
        J = J * arm._col_scale
        bound = np.maximum(bound, 64 * np.finfo(float).eps * np.linalg.cond(J))
    worst = int(np.argmax(gap / bound))
    assert gap[worst] <= bound[worst], \
        f"{what}: joint vectors differ by {gap[worst]:.3g} (item {worst}, bound {bound[worst]:.3g})"


# -- without numba -------------------------------------------------------------------------------
def test_backend_is_checked():
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    with pytest.raises(ValueError, match=r"backend must be one of 'auto', 'numpy', 'numba', "
                                         r"got 'fast'"):
        arm.ik(arm.forward(q), q, backend="fast")


def test_environment_variable_sends_auto_to_numpy_and_is_checked(monkeypatch):
    monkeypatch.setenv("MECHSOLVE_BACKEND", "numpy")
    assert not _ik_compiled.use_compiled("auto")
    monkeypatch.setenv("MECHSOLVE_BACKEND", "gpu")
    with pytest.raises(ValueError, match="environment variable MECHSOLVE_BACKEND must be one "
                                         "of 'auto', 'numpy', 'numba', got 'gpu'"):
        _ik_compiled.use_compiled("auto")
    assert not _ik_compiled.use_compiled("numpy")


def test_without_numba_auto_takes_numpy_and_numba_says_what_is_missing(monkeypatch):
    monkeypatch.setitem(_ik_compiled._state, "numba", False)
    assert not _ik_compiled.use_compiled("auto")
    with pytest.raises(ValueError, match=r"backend='numba' needs numba, which cannot be "
                                         r"imported here \(pip install numba"):
        _ik_compiled.use_compiled("numba")
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    res = arm.ik(arm.forward(q), q + 0.1)
    assert res.success and np.allclose(res.q, q, atol=1e-12)


def test_package_imports_and_solves_with_numba_hidden():
    code = ("import sys; sys.modules['numba'] = None\n"
            "import numpy as np, mechsolve as ms\n"
            "from mechsolve.robots import _ik_compiled\n"
            "arm = ms.robots.ur5(); q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])\n"
            "res = arm.ik(arm.forward_matrix(np.stack([q, -q])), np.stack([q, -q]) + 0.1)\n"
            "assert res.success.all() and not _ik_compiled.use_compiled('auto')\n"
            "assert 'mechsolve.robots._ik_kernels' not in sys.modules\n"
            "print('ok')\n")
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    env.pop("MECHSOLVE_BACKEND", None)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, cwd=ROOT, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr


def test_cache_path_is_keyed_by_version_and_source(monkeypatch, tmp_path):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    path = _ik_compiled.cache_path()
    assert path.parent == tmp_path
    assert path.name.startswith(f"numba-{ms.__version__}-") and len(path.name) > 20


# -- the compiled path ---------------------------------------------------------------------------
def test_cold_compile_says_so_once(monkeypatch, caplog):
    pytest.importorskip("numba", reason="the compiled path needs numba")
    monkeypatch.setattr(_ik_compiled, "_cached", lambda fn: False)
    monkeypatch.delitem(_ik_compiled._state, "fk_rows", raising=False)
    arm = ms.robots.ur5()
    q = np.zeros((1, 6))
    with caplog.at_level(logging.WARNING, logger="mechsolve"):
        _ik_compiled.fk_rows(arm, q, np.eye(4)[None])
        _ik_compiled.fk_rows(arm, q, np.eye(4)[None])
    said = [r.getMessage() for r in caplog.records if "compiling" in r.getMessage()]
    assert len(said) == 1 and "numba (fk_rows, once per version; cached in" in said[0]


@pytest.mark.parametrize("name", sorted(ARMS))
def test_compiled_rows_and_jacobian_are_the_numpy_kernels(name):
    pytest.importorskip("numba", reason="the compiled path needs numba")
    arm = ARMS[name]()
    Q = joint_vectors(arm, 40, seed=3)
    # targets: the tool frames of other joint vectors (and near half turns away), far from
    # the origin; folded into the bases as ik does
    T = arm.forward_matrix(joint_vectors(arm, 40, seed=4))
    T[:, :3, 3] += 1e3
    base = arm._fast.start(np.concatenate([T[:, :3, 3], quat_from_matrix(T[:, :3, :3])],
                                          axis=1))
    F, J = _ik_compiled.fk_rows(arm, Q, base)
    for k in range(len(Q)):
        F0, J0 = arm._fast.evaluate_one(Q[k], base[k])
        np.testing.assert_allclose(F[k], F0, rtol=0, atol=1e-14 * max(1.0, np.abs(F0).max()))
        np.testing.assert_allclose(J[k], J0, rtol=0, atol=1e-13 * max(1.0, np.abs(J0).max()))
    # with the identity as base the rows are the tool's position (and rotation vector)
    F, _ = _ik_compiled.fk_rows(arm, Q, np.broadcast_to(np.eye(4), (len(Q), 4, 4)))
    M = arm.forward_matrix(Q)
    np.testing.assert_allclose(F[:, :3], M[:, :3, 3], rtol=0, atol=1e-14 * arm.length_scale)
    angle = np.linalg.norm(F[:, 3:], axis=1)
    cos = 0.5 * (np.trace(M[:, :3, :3], axis1=1, axis2=2) - 1.0)
    np.testing.assert_allclose(np.cos(angle), cos, rtol=0, atol=1e-14)


@pytest.mark.parametrize("name", sorted(ARMS))
@pytest.mark.parametrize("start", ["near", "zero"])
def test_both_paths_give_the_same_joint_vectors(name, start):
    pytest.importorskip("numba", reason="the compiled path needs numba")
    arm = ARMS[name]()
    n = 12
    Q = joint_vectors(arm, n, seed=7)
    T = arm.forward_matrix(Q)
    rng = np.random.default_rng(8)
    Q0 = Q + rng.uniform(-0.1, 0.1, Q.shape) if start == "near" else np.zeros_like(Q)
    for k in range(n):   # one target at a time: both paths on one item
        a = arm.ik(T[k], Q0[k], backend="numba", raise_on_failure=False)
        b = arm.ik(T[k], Q0[k], backend="numpy", raise_on_failure=False)
        assert_same(a, b, f"{name}, {start} start, target {k}", arm)
        if start == "near" and arm.n_joints == 6:
            assert a.success
    # a batch (the NumPy path's batch driver, the compiled loop over targets)
    a = arm.ik(T, Q0, backend="numba", raise_on_failure=False)
    b = arm.ik(T, Q0, backend="numpy", raise_on_failure=False)
    if arm.n_joints == 6:
        assert_same(a, b, f"{name}, {start} starts, batch", arm)
    else:
        # a redundant arm's answers are not isolated: the round-off of a batch (NumPy's batch
        # driver, the targets folded into the bases by stacked products) moves them along the
        # self-motion, as it moves the NumPy batch's own answers from its one-at-a-time ones
        np.testing.assert_array_equal(a.success, b.success)
        assert np.abs(arm.forward_matrix(a.q[a.success]) - T[a.success]).max() <= 1e-10


@pytest.mark.parametrize("threads", [1, 64])
def test_both_paths_agree_on_a_large_batch_serial_and_in_parallel(monkeypatch, threads):
    pytest.importorskip("numba", reason="the compiled path needs numba")
    # threads=64: the prange loop whatever this machine's cores (numba runs it on the
    # threads it has)
    monkeypatch.setitem(_ik_compiled._state, "threads", threads)
    arm = ms.robots.ur5()
    Q = joint_vectors(arm, _ik_compiled.PARALLEL_MIN, seed=9)
    T = arm.forward_matrix(Q)
    Q0 = Q + np.random.default_rng(10).uniform(-0.2, 0.2, Q.shape)
    a = arm.ik(T, Q0, backend="numba")
    b = arm.ik(T, Q0, backend="numpy")
    assert_same(a, b, f"ur5, batch of {len(Q)}", arm)
    # every answer checked from the poses themselves
    M = arm.forward_matrix(a.q)
    assert np.abs(M - T).max() <= 1e-12


def test_unreachable_targets_fail_the_same_on_both_paths():
    pytest.importorskip("numba", reason="the compiled path needs numba")
    arm = ms.robots.ur5()
    q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
    far = arm.forward_matrix(q)
    far[:3, 3] *= 5.0
    errors = {}
    for backend in ("numba", "numpy"):
        with pytest.raises(ms.SolveError, match="misses its target") as info:
            arm.ik(far, q, backend=backend)
        errors[backend] = str(info.value)
        res = arm.ik(np.stack([far, arm.forward_matrix(q)]), np.stack([q, q + 0.1]),
                     backend=backend, raise_on_failure=False)
        assert res.success.tolist() == [False, True]
    assert errors["numba"] == errors["numpy"]


def test_targets_at_and_beyond_the_limits_agree():
    pytest.importorskip("numba", reason="the compiled path needs numba")
    arm = ms.robots.ur5(limits=[(-1.0, 1.0), None, (-2.0, 0.0), None, None, None])
    q = np.array([1.0, -1.2, -2.0, -0.3, 1.5, 0.2])   # two joints at their limits
    T = arm.forward_matrix(q)
    a = arm.ik(T, q + 0.05, backend="numba")
    b = arm.ik(T, q + 0.05, backend="numpy")
    assert_same(a, b, "at the limits", arm)
    assert a.success and a.q[0] <= 1.0 and a.q[2] <= 0.0
    # the base locked at 90 degrees: the target of issue 26 is reachable only outside it
    arm.joints[0].limits = (np.pi / 2, np.pi / 2)
    beyond = np.eye(4)
    beyond[:3, :3] = np.diag([1.0, -1.0, -1.0])
    beyond[:3, 3] = (0.4, 0.2, 0.3)
    errors = {}
    for backend in ("numba", "numpy"):
        with pytest.raises(ms.SolveError, match="reachable only outside the joint limits") \
                as info:
            arm.ik(beyond, np.zeros(6), backend=backend)
        errors[backend] = str(info.value)
        out = arm.ik(beyond, np.zeros(6), backend=backend, raise_on_failure=False)
        assert not out.success and out.q[0] == np.pi / 2
    assert errors["numba"] == errors["numpy"]


def test_compiled_path_keeps_the_time_limit():
    pytest.importorskip("numba", reason="the compiled path needs numba")
    arm = ms.robots.ur5()
    Q = joint_vectors(arm, 8, seed=12)
    res = arm.ik(arm.forward_matrix(Q), np.zeros_like(Q), backend="numba", time_limit=60.0)
    assert res.success.all()


# -- which path "auto" takes -----------------------------------------------------------------------
def _fresh_state(monkeypatch):
    """The module's memory of this process cleared for one test (restored after it)."""
    monkeypatch.setattr(_ik_compiled, "_state", {k: v for k, v in _ik_compiled._state.items()
                                                 if k in ("numba", "kernels", "threads")})


def test_auto_never_compiles_by_itself(monkeypatch, tmp_path):
    """A cold cache: ``auto`` takes the NumPy path (a first call is never a minute of
    compiling); a cache holding the entry point's index, or ``MECHSOLVE_BACKEND=numba``, sends
    it to the compiled path where numba is there."""
    monkeypatch.delenv("MECHSOLVE_BACKEND", raising=False)
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    _fresh_state(monkeypatch)
    assert not _ik_compiled.use_compiled("auto")
    _fresh_state(monkeypatch)
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    other = _ik_compiled.cache_path() / "robots_0123"       # another checkout's cache
    other.mkdir(parents=True)
    (other / f"_ik_kernels.solve_serial-922.{tag}.nbi").write_bytes(b"")
    assert not _ik_compiled.use_compiled("auto")
    _fresh_state(monkeypatch)
    source = os.path.dirname(os.path.abspath(_ik_compiled.__file__))
    folder = _ik_compiled.cache_path() / f"robots_{hashlib.sha1(source.encode()).hexdigest()}"
    folder.mkdir(parents=True)
    (folder / f"_ik_kernels.solve_serial-922.{tag}.nbi").write_bytes(b"")
    assert _ik_compiled.use_compiled("auto") == _ik_compiled.numba_available()
    _fresh_state(monkeypatch)
    (folder / f"_ik_kernels.solve_serial-922.{tag}.nbi").unlink()
    monkeypatch.setenv("MECHSOLVE_BACKEND", "numba")
    if _ik_compiled.numba_available():
        assert _ik_compiled.use_compiled("auto")
    else:
        with pytest.raises(ValueError, match="needs numba"):
            _ik_compiled.use_compiled("auto")


def test_compile_ik_says_what_is_missing_without_numba(monkeypatch):
    monkeypatch.setitem(_ik_compiled._state, "numba", False)
    with pytest.raises(ValueError, match=r'compile_ik needs numba.*mechsolve\[numba\]'):
        ms.robots.compile_ik()


def test_compile_ik_makes_auto_compiled(monkeypatch):
    pytest.importorskip("numba", reason="the compiled path needs numba")
    monkeypatch.delenv("MECHSOLVE_BACKEND", raising=False)
    path = ms.robots.compile_ik()
    assert path == _ik_compiled.cache_path()
    assert _ik_compiled.use_compiled("auto")
    arm = ms.robots.ur5()
    q = np.array([0.2, -1.0, 1.2, -0.4, 0.9, 0.3])
    a = arm.ik(arm.forward(q), q + 0.05)
    b = arm.ik(arm.forward(q), q + 0.05, backend="numpy")
    assert_same(a, b, "auto after compile_ik")


@pytest.mark.parametrize("unit", [1e-3, 1e3])
def test_both_paths_agree_far_from_the_origin_in_any_unit(unit):
    # a UR5 in millimetres or kilometres with its base 2e4 sizes away: the targets folded into
    # the base as the NumPy path folds them (one target: start_one's arithmetic in the kernel;
    # a batch: the NumPy fold passed in), so that the far placement's round-off is the same on
    # both paths; the tool reaches every target within that round-off (forward kinematics)
    pytest.importorskip("numba", reason="the compiled path needs numba")
    params = [(d * unit, a * unit, alpha) for d, a, alpha in ms.robots.UR5_DH]
    arm = ms.robots.dh_arm(params, base=ms.Frame(np.array([1e4, -2e4, 5e3]) * unit))
    Q = joint_vectors(arm, 12, seed=11)
    T = arm.forward_matrix(Q)
    Q0 = Q + np.random.default_rng(12).uniform(-0.1, 0.1, Q.shape)
    a = arm.ik(T, Q0, backend="numba")
    b = arm.ik(T, Q0, backend="numpy")
    assert_same(a, b, f"far ur5, unit {unit}, batch", arm)
    for k in range(3):
        assert_same(arm.ik(T[k], Q0[k], backend="numba"), arm.ik(T[k], Q0[k], backend="numpy"),
                    f"far ur5, unit {unit}, target {k}", arm)
    M = arm.forward_matrix(a.q)
    far = 2.3e4 * np.finfo(float).eps        # the coordinates' round-off, in sizes
    pos = np.linalg.norm(M[:, :3, 3] - T[:, :3, 3], axis=-1) / arm.length_scale
    assert np.all(pos <= 256 * far), pos
