"""ms.diff.to_torch: the loop solve as a torch.autograd.Function (float64, CPU), against
torch.autograd.gradcheck, the four-bar's closed form and the NumPy linearization; failures."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="ms.diff.to_torch needs PyTorch (pip install torch)")
from _diff_cases import (  # noqa: E402
    FOURBAR_LENGTHS,
    assert_close_rel,
    fourbar_closed_form,
    fourbar_function,
    fourbar_p,
    lengths_matrix,
    richardson_jacobian,
    stewart_function,
)

import mechsolve as ms  # noqa: E402

L2 = np.array([4.2, 1.1, 2.7, 3.1, 2.4])


def _by_lengths(g):
    M = torch.as_tensor(lengths_matrix())
    return lambda L: g(M @ L)


@pytest.mark.parametrize("L", [FOURBAR_LENGTHS, L2])
def test_fourbar_gradcheck_and_closed_form(L):
    f, _ = fourbar_function()
    h = _by_lengths(ms.diff.to_torch(f))
    x = torch.tensor(L, dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(h, (x,), eps=1e-6, atol=1e-7, rtol=1e-6)
    y = h(x)
    np.testing.assert_allclose(y.detach().numpy(), fourbar_closed_form(np, L), atol=1e-12)
    J = torch.autograd.functional.jacobian(h, x).numpy()
    exact = richardson_jacobian(lambda v: fourbar_closed_form(np, v), L, 1e-3)
    assert_close_rel(J, exact, 1e-9, "closed form")


def test_batch_and_stewart():
    f, p = stewart_function()
    g = ms.diff.to_torch(f)
    P = torch.tensor(np.stack([p, p + 0.01]), dtype=torch.float64, requires_grad=True)
    start = f.mechanism.state
    assert torch.autograd.gradcheck(g, (P,), eps=1e-6, atol=1e-7, rtol=1e-6)
    np.testing.assert_array_equal(f.mechanism.state, start)
    (g(P)[:, 2] ** 2).sum().backward()
    for row, grad in zip(P.detach().numpy(), P.grad.numpy()):
        lin = f.linearize(row)
        ct = np.zeros(f.n_out)
        ct[2] = 2 * lin.value[2]
        assert_close_rel(grad, lin.vjp(ct), 1e-12, "batch")


def test_failures():
    f, _ = fourbar_function()
    g = ms.diff.to_torch(f)
    with pytest.raises(ms.SolveError, match="could not assemble"):
        g(torch.tensor(fourbar_p(f, [9.0, 1.0, 3.0, 3.5, 0.7]), dtype=torch.float64))
    with pytest.raises(TypeError, match="p must be a float64 tensor"):
        g(torch.zeros(15, dtype=torch.float32))
    with pytest.raises(ValueError, match=r"p must have shape \(15,\) or \(B, 15\)"):
        g(torch.zeros(3, dtype=torch.float64))
    mech = ms.models.fourbar(ground=4.0, crank=1.0, coupler=1.5, rocker=1.5).mechanism
    toggle = ms.diff.to_torch(ms.diff.LoopFunction(mech, ["motor.value"],
                                                   [ms.diff.point("coupler")]))
    x = torch.zeros(1, dtype=torch.float64, requires_grad=True)
    y = toggle(x)                                      # the forward pass is fine
    np.testing.assert_allclose(y.detach().numpy(), [1.75, 0.0], atol=1e-12)
    with pytest.raises(ms.diff.SingularJacobianError, match="singular"):
        y[1].backward()                                # the backward names the singularity
    with pytest.raises(TypeError, match="fn must be a mechsolve.diff.LoopFunction"):
        ms.diff.to_torch(None)
