"""The JAX sweep's device function kept lean, and its host side: no gathers or scatters in
the compiled function, the Newton iterations written out giving the answers of the loop,
chunks dispatched ahead giving the answers of one chunk, the design columns placed on the
device as the NumPy path places them."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms

jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra: pip install "
                          "'mechsolve[jax]'")

from mechsolve._jax import sweep as jsweep  # noqa: E402  (after the importorskip)

VALUES = np.radians(np.arange(5.0, 360.0, 10.0))   # 36 crank angles


def family(n, seed, long_fraction=0.2):
    """Four-bars around ``ms.models.fourbar()``; a fraction with long cranks that stop at a
    limit position (handed to the NumPy path)."""
    rng = np.random.default_rng(seed)
    crank = 0.5 + 0.1 * rng.uniform(-1, 1, n)
    long = rng.uniform(size=n) < long_fraction
    crank[long] = rng.uniform(2.1, 2.5, int(long.sum()))
    z = np.zeros(n)
    return {"A.point1": np.c_[crank, z],
            "B.point1": np.c_[1.5 + 0.1 * rng.uniform(-1, 1, n), z],
            "O4.point1": np.c_[1.75 + 0.1 * rng.uniform(-1, 1, n), z],
            "O4.point2": np.c_[4.0 + 0.1 * rng.uniform(-1, 1, n),
                               0.1 * rng.uniform(-1, 1, n)]}


def model():
    return ms.models.fourbar(ground=4.0, crank=1.0, coupler=3.0, rocker=3.5)


def test_compiled_sweep_has_no_gathers_or_scatters():
    m = model()
    jsweep._COMPILED.clear()
    ms.design.sweep(m.mechanism, family(16, seed=1), m.driver, VALUES, backend="jax")
    (fn,) = jsweep._COMPILED.values()
    text = fn._exe.as_text()
    assert "fusion" in text
    for op in (" gather(", " scatter("):
        assert op not in text, op


def test_written_out_iterations_give_the_answers_of_the_loop(monkeypatch):
    m = model()
    designs = family(96, seed=2)
    runs = []
    for head in (0, 3, 8):
        monkeypatch.setattr(jsweep, "UNROLLED", head)
        runs.append(ms.design.sweep(m.mechanism, designs, m.driver, VALUES, backend="jax",
                                    chunk=48))
    ref = runs[0]
    assert 0 < len(ref.handed_over) < 96 and (ref.failed_at >= 0).any()
    assert ref.iterations.max() >= 3   # some steps need the loop after the written-out ones
    for r in runs[1:]:
        np.testing.assert_array_equal(r.states, ref.states)   # NaN where NaN
        np.testing.assert_array_equal(r.iterations, ref.iterations)
        np.testing.assert_array_equal(r.handed_over, ref.handed_over)
        np.testing.assert_array_equal(r.failed_at, ref.failed_at)
        assert r.reason.tolist() == ref.reason.tolist()


def test_chunks_dispatched_ahead_give_the_answers_of_one_chunk():
    m = model()
    designs = family(150, seed=3, long_fraction=0.0)
    done = []
    parts = ms.design.sweep(m.mechanism, designs, m.driver, VALUES, backend="jax", chunk=64,
                            progress=lambda d, t: done.append((d, t)))
    whole = ms.design.sweep(m.mechanism, designs, m.driver, VALUES, backend="jax", chunk=150)
    assert done == [(64, 150), (128, 150), (150, 150)]
    assert len(whole.handed_over) == 0 and whole.success.all()
    assert parts.reason.dtype.kind == "U" and set(parts.reason.tolist()) == {""}
    np.testing.assert_array_equal(parts.iterations, whole.iterations)
    np.testing.assert_array_equal(parts.success, whole.success)
    scale = np.tile([4.0, 4.0, 1.0], 3)   # lengths in units of the model's size (ground 4)
    assert np.max(np.abs(parts.states - whole.states) / scale) <= 1e-12


def test_design_columns_placed_as_the_numpy_path_places_them():
    """Design columns by parameter name and by joint (all four of its parameters), against
    the NumPy path's poses."""
    m = model()
    mech = m.mechanism
    designs = family(40, seed=4, long_fraction=0.0)
    designs[mech.joint("O4")] = np.c_[designs.pop("O4.point1"),   # by joint: (D, 4)
                                      designs.pop("O4.point2")]
    ref = ms.design.sweep(mech, family(40, seed=4, long_fraction=0.0), m.driver, VALUES)
    jx = ms.design.sweep(mech, designs, m.driver, VALUES, backend="jax",
                         outputs=[(mech.body("coupler"), (-1.5, 0.0)),
                                  (mech.body("rocker"), (-1.75, 0.0))])
    assert ref.success.all() and jx.success.all()
    th_k, th_r = ref.states[..., 5], ref.states[..., 8]
    pin_A = ref.states[..., 3:5] - 1.5 * np.stack([np.cos(th_k), np.sin(th_k)], -1)
    pin_B = ref.states[..., 6:8] - 1.75 * np.stack([np.cos(th_r), np.sin(th_r)], -1)
    assert np.max(np.abs(jx.points[..., 0, :] - pin_A)) <= 1e-12 * 4.0
    assert np.max(np.abs(jx.points[..., 1, :] - pin_B)) <= 1e-12 * 4.0
