"""The batched LU of the linear-algebra layer (batch on the last axis), as design sweeps use it,
and the sweep's room on the heap."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

import mechsolve as ms
from mechsolve import _heap
from mechsolve.linalg import BATCH_PIVOT_MIN as THRESHOLD
from mechsolve.linalg import lu_solve, row_masks


def _augmented(J, b):
    """``[J | b]`` of a stack ``(B, n, n)``, ``(B, n, r)`` with the batch last."""
    return np.ascontiguousarray(np.concatenate([J, b], axis=2).transpose(1, 2, 0))


@pytest.mark.parametrize("sparse", [False, True])
def test_lu_solve_matches_lapack_on_random_batches(sparse):
    rng = np.random.default_rng(0)
    for _ in range(60):
        n, r, B = int(rng.integers(1, 12)), int(rng.integers(1, 3)), int(rng.integers(1, 30))
        pattern = rng.random((n, n)) < (rng.uniform(0.2, 0.9) if sparse else 1.0)
        pattern |= np.eye(n, dtype=bool)[rng.permutation(n)]   # structurally regular
        J = rng.standard_normal((B, n, n)) * pattern
        b = rng.standard_normal((B, n, r))
        masks = row_masks(np.c_[pattern, np.ones((n, r), bool)]) if sparse else None
        x, sign, ok = lu_solve(_augmented(J, b), n, masks)
        assert x.shape == (n, r, B) and sign.shape == ok.shape == (B,)
        assert np.array_equal(sign[ok], np.sign(np.linalg.det(J[ok])))
        np.testing.assert_allclose(x.transpose(2, 0, 1)[ok], np.linalg.solve(J[ok], b[ok]),
                                   rtol=1e-9, atol=1e-9)


def test_lu_solve_reports_the_items_its_pivots_do_not_suit():
    rng = np.random.default_rng(1)
    J = rng.standard_normal((5, 3, 3))
    J[:, :, 0] = (1.0, 0.0, 0.0)                    # row 0: every item's first pivot ...
    J[3, :, 0] = (0.01 * THRESHOLD, 1.0, 0.0)       # ... but far too small for item 3
    J[4] = [[1.0, 2.0, 3.0], [0.0, 1.0, 1.0], [0.0, 2.0, 2.0]]   # singular
    b = rng.standard_normal((5, 3, 1))
    x, sign, ok = lu_solve(_augmented(J, b), 3)
    assert ok.tolist() == [True, True, True, False, False]
    np.testing.assert_allclose(x[..., :3].transpose(2, 0, 1), np.linalg.solve(J[:3], b[:3]),
                               rtol=1e-12)
    assert np.array_equal(sign[:3], np.sign(np.linalg.det(J[:3])))


def test_design_sweep_leaves_the_items_the_batched_lu_refuses_to_lapack(monkeypatch):
    module = sys.modules["mechsolve.design.sweep"]
    model = ms.models.fourbar()
    values = np.radians(np.arange(5.0, 360.0, 30.0))
    pivots = np.c_[4.0 + np.linspace(-0.1, 0.1, 9), np.zeros(9)]
    ref = ms.design.sweep(model.mechanism, {"O4.point2": pivots}, model.driver, values)
    real = module.lu_solve

    def refusing(A, n, masks=None):   # every third item left to LAPACK
        x, sign, ok = real(A, n, masks)
        ok[::3] = False
        x[..., ::3] = np.nan
        sign[::3] = np.nan
        return x, sign, ok

    monkeypatch.setattr(module, "lu_solve", refusing)
    res = ms.design.sweep(model.mechanism, {"O4.point2": pivots}, model.driver, values)
    assert res.success.all() and np.array_equal(res.iterations, ref.iterations)
    np.testing.assert_allclose(res.states, ref.states, atol=1e-13, rtol=0)


def test_room_for_raises_fixed_heap_thresholds_only_while_inside():
    with _heap.room_for(1 << 20):   # dynamic thresholds: nothing to put back
        a = np.ones(1 << 17)
    assert a.sum() == 1 << 17 and _heap._raised == 0
    code = ("import numpy as np\n"
            "from mechsolve import _heap\n"
            "with _heap.room_for(1 << 22):\n"
            "    with _heap.room_for(1 << 22):\n"
            "        inner = _heap._raised\n"
            "    x = np.ones(1 << 19).sum()\n"
            "print(inner, _heap._raised, x)\n")
    env = dict(os.environ, MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True,
                         text=True, check=True).stdout.split()
    expected = ["2", "0"] if _heap._glibc() is not None else ["0", "0"]
    assert out[:2] == expected and float(out[2]) == 1 << 19
