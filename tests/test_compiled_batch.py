"""The compiled batches (numba, :mod:`mechsolve._compiled._batch`): ``mech.solve_batch`` and
``ms.design.sweep`` with ``backend="numba"``.

A batch must give the NumPy path's result: the same successes, statuses and iterations, the
poses to 1e-13 of the model's size (items the compiled Newton does not finish handed to the
NumPy path, and listed); a design sweep the same successes, stops and reasons, the poses to
1e-12 of the model's size, and poses whose residuals (measured here by NumPy) are at
round-off; in micrometres, kilometres and far from the origin."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form import fourbar as fourbar_exact
from closed_form import slider_crank as slider_exact
from test_compiled_mech import readme_fourbar
from test_design_sweep import VALUES, _family, _limit

import mechsolve as ms
from mechsolve import joints
from mechsolve._compiled import _batch, _runtime
from mechsolve.analysis.continuation import _driver_params


@pytest.fixture(scope="module")
def kernels():
    """The compiled batches (skips where numba is missing)."""
    pytest.importorskip("numba", reason="the compiled path needs numba (mechsolve[numba])")
    return _runtime.batch_kernels()


def _size_gap(mech, a, b) -> float:
    """The largest difference of two stacks of planar states, lengths in the model's size,
    relative to the largest coordinate (at least 1): NaN alike."""
    assert np.array_equal(np.isnan(a), np.isnan(b))
    a, b = np.nan_to_num(a), np.nan_to_num(b)
    size = mech.length_scale
    gap = np.abs(a - b)
    gap[..., 0::3] /= size
    gap[..., 1::3] /= size
    big = max(1.0, float(np.max(np.abs(b[..., 0::3]))) / size,
              float(np.max(np.abs(b[..., 1::3]))) / size)
    return float(np.max(gap)) / big


# -- solve_batch ----------------------------------------------------------------------------------
def _models():
    return {"readme fourbar": lambda: readme_fourbar(pivot=6.0),
            "fourbar um far": lambda: readme_fourbar(1e-6, (3e-3, -2e-3), pivot=6.0),
            "fourbar km far": lambda: readme_fourbar(1e3, (5e4, 1e4), pivot=6.0),
            "slider-crank": lambda: _model(ms.models.slider_crank()),
            "watt sixbar": lambda: _model(ms.models.watt_sixbar())}


def _model(model):
    return model.mechanism, model.driver


MODELS = _models()


def _batch_case(name, B=40, seed=5):
    """A mechanism assembled at its nominal pose, per-item driver values over a turn (the
    four-bars with the ground pivot at 6 have no assembly for crank angles near pi: those
    items fail), starts near the pose, one start far off (the origin for every body: Newton
    needs heavy damping, or a nearly singular Jacobian hands it over)."""
    mech, drive = MODELS[name]()
    mech.solve(backend="numpy")
    rng = np.random.default_rng(seed)
    values = drive.value + np.linspace(-np.pi, np.pi, B) * (1.0 if drive.is_angle else 0.1)
    if not drive.is_angle:
        values = drive.value + np.linspace(-0.2, 0.2, B) * mech.length_scale
    Q0 = np.repeat(mech.state[None], B, axis=0)
    Q0[:, 2::3] += 0.05 * rng.uniform(-1, 1, (B, mech.system().nb))
    Q0[3] = 0.0
    return mech, drive, Q0, values


@pytest.mark.parametrize("name", sorted(MODELS))
def test_solve_batch_is_numpys(kernels, name):
    mech, drive, Q0, values = _batch_case(name)
    a = mech.solve_batch(Q0, values={drive: values}, backend="numba", raise_on_failure=False)
    b = mech.solve_batch(Q0, values={drive: values}, backend="numpy", raise_on_failure=False)
    assert a.backend == "numba" and "backend" not in b
    for key in ("success", "status"):
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a.message == b.message
    ok = b.success
    # the iterations of every item solved; a failed item's are those of the NumPy path's own
    # assembly searches on both paths (hundreds of iterations, which on NumPy 1.24 carry the
    # 1-ulp differences of its sin/cos between equal calls in one process into their count)
    np.testing.assert_array_equal(a.iterations[ok], b.iterations[ok])
    assert _size_gap(mech, a.states[ok], b.states[ok]) <= 1e-13
    # every item the compiled Newton converged holds its equations to round-off (measured
    # here by NumPy at its pose), and the others were handed over
    sys = mech.system()
    mine = np.setdiff1d(np.arange(len(values)), a.handed_over)
    phi = sys.phi(a.states[mine], params=_driver_params(sys, drive, values[mine]))
    big = max(1.0, float(np.max(np.abs(a.states[mine][:, 0::3]))) / mech.length_scale)
    assert np.max(np.abs(phi) / sys.eq_scale) <= 1e-10 + 64 * np.finfo(float).eps * big
    assert len(mine) >= len(values) // 2
    if name.startswith(("readme", "fourbar")):   # the unreachable items fail on both paths
        assert 0 < np.count_nonzero(~ok) < len(values) - 5
        assert set(np.flatnonzero(~ok)) <= set(a.handed_over.tolist())


def test_solve_batch_with_design_parameters_and_failures_raises_numpys_error(kernels):
    model = ms.models.fourbar()
    mech = model.mechanism
    rng = np.random.default_rng(2)
    pivots = np.c_[4.0 + 0.1 * rng.uniform(-1, 1, 30), 0.1 * rng.uniform(-1, 1, 30)]
    pivots[7] = (11.0, 0.0)                       # no assembly
    angles = rng.uniform(-np.pi, np.pi, 30)
    args = dict(values={model.driver: angles}, params={"O4.point2": pivots})
    a = mech.solve_batch(backend="numba", raise_on_failure=False, **args)
    b = mech.solve_batch(backend="numpy", raise_on_failure=False, **args)
    for key in ("success", "status", "iterations"):
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert not a.success[7] and a.success.sum() == 29 and 7 in a.handed_over
    assert _size_gap(mech, a.states[b.success], b.states[b.success]) <= 1e-13
    with pytest.raises(ms.SolveError) as ea:
        mech.solve_batch(backend="numba", **args)
    with pytest.raises(ms.SolveError) as eb:
        mech.solve_batch(backend="numpy", **args)
    assert str(ea.value) == str(eb.value)


def test_solve_batch_backends_are_checked_and_unsupported_systems_run_numpy(kernels,
                                                                            monkeypatch):
    model = ms.models.fourbar()
    mech = model.mechanism
    values = {model.driver: [0.1, 0.2]}
    with pytest.raises(ValueError, match='backend must be "numpy", "jax", "numba" or "auto", '
                                         "got 'gpu'"):
        mech.solve_batch(values=values, backend="gpu")
    with pytest.raises(ValueError, match='dtype= is for backend="jax"'):
        mech.solve_batch(values=values, backend="numba", dtype="float32")
    assert mech.solve_batch(values=values, backend="numba").backend == "numba"
    # "auto" once compiled (in this process here): the compiled path
    assert mech.solve_batch(values=values, backend="auto").backend == "numba"
    # numba cached the parallel entry point: "auto" in a new process takes it from there
    monkeypatch.delitem(_runtime._state, "solve_batch")
    monkeypatch.delitem(_runtime._state, "warm solve_batch", raising=False)
    assert _runtime._warm_batch("solve_batch")
    monkeypatch.delitem(_runtime._state, "sweep_designs", raising=False)
    monkeypatch.setitem(_runtime._state, "warm sweep_designs", False)
    assert not _runtime._warm_batch("sweep_designs")
    monkeypatch.setenv("MECHSOLVE_BACKEND", "numpy")
    assert "backend" not in mech.solve_batch(values=values, backend="auto")
    monkeypatch.delenv("MECHSOLVE_BACKEND")
    # a joint limit: the NumPy path (and its answer)
    mech.joint("O2").limits = (-1.0, 1.0)
    out = mech.solve_batch(values=values, backend="numba")
    assert "backend" not in out and out.success.all()


# -- design sweeps -----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def fourbar_family():
    model = ms.models.fourbar()
    designs = _family()
    a = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, chunk=16,
                        backend="numba")
    b = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, chunk=16)
    return model, designs, a, b


def _assert_same_family(mech, a, b):
    assert a.backend == "numba"
    for key in ("success", "status", "failed_at", "reason"):
        np.testing.assert_array_equal(a[key], b[key], err_msg=key)
    assert a.message == b.message
    assert _size_gap(mech, a.states, b.states) <= 1e-12
    np.testing.assert_allclose(a.reached, b.reached, rtol=0, atol=1e-9)   # NaN alike
    done = np.setdiff1d(np.arange(len(a.success)), a.handed_over)
    assert a.success[done].all()
    # the designs handed over are NumPy's own: the same iterations
    np.testing.assert_array_equal(a.iterations[a.handed_over], b.iterations[a.handed_over])
    assert (a.iterations[done] >= 1).all()


def test_design_sweep_of_the_fourbar_family_is_numpys(kernels, fourbar_family):
    model, designs, a, b = fourbar_family
    _assert_same_family(model.mechanism, a, b)
    # the limit positions, the narrow gap and the parallelogram's branch change are NumPy's
    # decisions: those designs were handed over, the others not
    assert a.handed_over.tolist() == [0, 1, 2, 3, 4]
    assert a.reason[4] == "branch change" and (a.reason[:4] == "limit position").all()
    for d in range(4):
        lim = _limit(designs["A.point1"][d, 0] + 0.5, designs["B.point1"][d, 0] + 1.5,
                     designs["O4.point1"][d, 0] + 1.75)
        assert lim - 1e-6 <= a.reached[d] <= lim
    # every pose reached holds its design's equations to round-off (measured here by NumPy)
    for d in range(5, 50, 7):
        model_d = ms.models.fourbar()
        model_d.mechanism.set_parameters({k: v[d] for k, v in designs.items()})
        sys = model_d.mechanism.system()
        phi = sys.phi(a.states[d], params=_driver_params(sys, model_d.driver, VALUES))
        assert np.max(np.abs(phi)) <= 1e-10 * 4.0, d
    np.testing.assert_allclose(a.residual, b.residual, rtol=0, atol=1e-10)   # NaN alike


def test_design_sweep_outputs_and_progress(kernels, fourbar_family):
    model, designs, a, _ = fourbar_family
    seen = []
    other = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, chunk=7,
                            outputs=[(model.output, (0.0, 1.0))], backend="numba",
                            progress=lambda done, total: seen.append((done, total)))
    assert other.states is None and other.points.shape == (50, len(VALUES), 1, 2)
    assert seen[-1] == (50, 50) and len(seen) == 8
    np.testing.assert_array_equal(other.success, a.success)
    th = a.states[..., 5]
    np.testing.assert_allclose(other.points[..., 0, 0], a.states[..., 3] - np.sin(th),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(other.points[..., 0, 1], a.states[..., 4] + np.cos(th),
                               rtol=0, atol=1e-12)
    with pytest.raises(ValueError, match="DesignSweep.residual is worked out from the states"):
        _ = other.residual


def _slider_family(n=24, seed=4):
    """Slider-cranks (crank 1, rod 3, rail offset 0.5 nominal) by crank, rod and offset; the
    first has a crank longer than its rod can follow: limit positions."""
    rng = np.random.default_rng(seed)
    crank = 0.5 + 0.1 * rng.uniform(-1, 1, n)       # A.point1 x: crank length - 0.5
    rod = 1.5 + 0.1 * rng.uniform(-1, 1, n)         # B.point1 x: rod length - 1.5
    offset = 0.5 + 0.1 * rng.uniform(-1, 1, n)      # rail.point1 y
    crank[0] = 2.6
    z = np.zeros(n)
    return {"A.point1": np.c_[crank, z], "B.point1": np.c_[rod, z],
            "rail.point1": np.c_[z, offset]}


def test_design_sweep_of_slider_cranks_is_numpys_and_the_closed_form(kernels):
    model = ms.models.slider_crank()
    mech = model.mechanism
    designs = _slider_family()
    a = ms.design.sweep(mech, designs, model.driver, VALUES, backend="numba")
    b = ms.design.sweep(mech, designs, model.driver, VALUES)
    _assert_same_family(mech, a, b)
    assert a.handed_over.tolist() == [0] and a.reason[0] == "limit position"
    for d in range(1, 24):
        x, rod = slider_exact(VALUES, a=designs["A.point1"][d, 0] + 0.5,
                              b=designs["B.point1"][d, 0] + 1.5, e=designs["rail.point1"][d, 1])
        slider = a.states[d, :, 6]
        np.testing.assert_allclose(slider, x, rtol=0, atol=1e-12 * 3.0)


@pytest.mark.parametrize("scale, shift", [(1e-6, (3e-3, -2e-3)), (1e3, (5e4, 1e4))])
def test_design_sweep_in_micrometres_and_kilometres_far_from_the_origin(kernels, scale, shift):
    # the four-bar family of ground lengths d, placed far off: every coupler pin against the
    # closed form, to 1e-12 of the model's size (at its distance from the origin)
    mech, drive = readme_fourbar(scale, shift)
    mech.solve(backend="numpy")
    sx, sy = shift
    upper = mech.body("coupler").position[1] > sy
    d = np.linspace(3.8, 4.2, 7)
    family = {"joints[3].point2": np.c_[d * scale + sx, np.full(7, sy)]}
    out_at = [(mech.body("coupler"), (1.5 * scale, 0.0))]
    out = ms.design.sweep(mech, family, drive, VALUES, outputs=out_at, chunk=3,
                          backend="numba")
    ref = ms.design.sweep(mech, family, drive, VALUES, outputs=out_at, chunk=3)
    assert out.handed_over.size == 0 and out.success.all()
    big = max(1.0, abs(sx) / scale, abs(sy) / scale)
    for k, dk in enumerate(d):
        _, B, _, _ = fourbar_exact(VALUES, d=dk, upper=upper)
        got = (out.points[k, :, 0] - np.array(shift)) / scale
        np.testing.assert_allclose(got, B, rtol=0, atol=1e-12 * big)
    np.testing.assert_allclose(out.points / scale, ref.points / scale, rtol=0,
                               atol=1e-12 * big)


def test_design_sweep_backends_and_unsupported_systems(kernels, monkeypatch):
    model = ms.models.fourbar()
    mech = model.mechanism
    one = {"O4.point2": [(4.0, 0.0), (4.1, 0.0)]}
    with pytest.raises(ValueError, match='backend must be "numpy", "jax", "numba" or "auto", '
                                         "got 'gpu'"):
        ms.design.sweep(mech, one, model.driver, VALUES, backend="gpu")
    with pytest.raises(ValueError, match=r'dtype= is for backend="jax"'):
        ms.design.sweep(mech, one, model.driver, VALUES, backend="numba", dtype="float32")
    with pytest.raises(ValueError, match="designs disagree on their number"):
        ms.design.sweep(mech, {"O4.point2": np.zeros((2, 2)), "A.point1": np.zeros((3, 2))},
                        model.driver, VALUES, backend="numba")
    assert ms.design.sweep(mech, one, model.driver, VALUES, backend="numba").backend == "numba"
    # "auto" once compiled: the compiled path with 4 of numba's threads or more (their gain),
    # else NumPy
    monkeypatch.setattr(_batch, "_threads", lambda: 4)
    assert ms.design.sweep(mech, one, model.driver, VALUES, backend="auto").backend == "numba"
    monkeypatch.setattr(_batch, "_threads", lambda: 2)
    assert "backend" not in ms.design.sweep(mech, one, model.driver, VALUES, backend="auto")
    monkeypatch.setattr(_batch, "_threads", lambda: 4)
    monkeypatch.setenv("MECHSOLVE_BACKEND", "numpy")
    assert "backend" not in ms.design.sweep(mech, one, model.driver, VALUES, backend="auto")
    monkeypatch.delenv("MECHSOLVE_BACKEND")
    # a joint without a compiled kernel: the NumPy path
    mech.add(joints.DistanceLimit(mech.body("crank"), mech.body("rocker"), (0, 0), (0, 0),
                                  limits=(0.1, 9.0)))
    assert "backend" not in ms.design.sweep(mech, one, model.driver, VALUES[:3],
                                            backend="numba")
