"""ms.diff.to_jax: the loop solve under jax.grad, jax.jit and jax.vmap (float64), against
the closed form of the four-bar differentiated by JAX itself, ``jax.test_util.check_grads``,
the Stewart platform's closed-form leg Jacobian and the NumPy linearization; float32 and
failures."""

from __future__ import annotations

import numpy as np
import pytest

jax = pytest.importorskip("jax", reason="ms.diff.to_jax needs JAX (pip install jax)")
import jax.numpy as jnp  # noqa: E402
from _diff_cases import (  # noqa: E402
    FOURBAR_LENGTHS,
    assert_close_rel,
    bricard_function,
    bricard_symmetric_direction,
    fourbar_closed_form,
    fourbar_function,
    fourbar_p,
    lengths_matrix,
    stewart_function,
    stewart_leg_jacobian,
)
from jax.test_util import check_grads  # noqa: E402

import mechsolve as ms  # noqa: E402

L2 = np.array([4.2, 1.1, 2.7, 3.1, 2.4])


@pytest.fixture(autouse=True)
def x64():
    """float64 for these tests, the setting put back afterwards."""
    before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)
    yield
    jax.config.update("jax_enable_x64", before)


def _by_lengths(g, f):
    """``g`` as a function of ``(ground, crank, coupler, rocker, angle)``."""
    M = jnp.asarray(lengths_matrix())

    def h(L):
        return g(M @ L)
    return h


@pytest.mark.parametrize("mode", ["vjp", "jvp"])
@pytest.mark.parametrize("L", [FOURBAR_LENGTHS, L2])
def test_fourbar_gradient_is_jax_s_derivative_of_the_closed_form(mode, L):
    f, _ = fourbar_function()
    h = _by_lengths(ms.diff.to_jax(f, mode=mode), f)
    L = jnp.asarray(L)
    np.testing.assert_allclose(h(L), fourbar_closed_form(jnp, L), rtol=0, atol=1e-12)
    J = jax.jacrev(h)(L) if mode == "vjp" else jax.jacfwd(h)(L)
    exact = jax.jacfwd(lambda x: fourbar_closed_form(jnp, x))(L)
    assert_close_rel(J, exact, 1e-10, "closed form")
    grad = jax.grad(lambda x: h(x)[3])(L)           # the coupler point's vertical speed
    assert_close_rel(grad, exact[3], 1e-10, "grad")


def test_check_grads_reverse_and_forward():
    f, _ = fourbar_function()
    L = jnp.asarray(FOURBAR_LENGTHS)
    check_grads(_by_lengths(ms.diff.to_jax(f), f), (L,), order=1, modes=["rev"], eps=1e-4,
                atol=1e-7, rtol=1e-7)
    check_grads(_by_lengths(ms.diff.to_jax(f, mode="jvp"), f), (L,), order=1,
                modes=["fwd", "rev"], eps=1e-4, atol=1e-7, rtol=1e-7)


def test_jit_and_vmap_match_the_numpy_linearization():
    f, _ = fourbar_function()
    g = ms.diff.to_jax(f)
    P = np.stack([fourbar_p(f, L) for L in (FOURBAR_LENGTHS, L2, FOURBAR_LENGTHS + 0.05)])
    start = f.mechanism.state
    loss = jax.jit(lambda p: jnp.sum(g(p)[:4] ** 2))
    grads = jax.vmap(jax.grad(loss))(jnp.asarray(P))
    # a batch starts every item from the pose before it and puts that pose back
    np.testing.assert_array_equal(f.mechanism.state, start)
    for p, gr in zip(P, np.asarray(grads)):
        lin = f.linearize(p)
        y = lin.value
        expected = lin.vjp(np.concatenate([2 * y[:4], np.zeros(3)]))
        assert_close_rel(gr, expected, 1e-12, "vmap(grad(jit))")
    Y = jax.jit(jax.vmap(g))(jnp.asarray(P))
    np.testing.assert_allclose(np.asarray(Y)[1], f(P[1]), rtol=0, atol=1e-13)
    # leading axes of p are a batch too
    np.testing.assert_allclose(np.asarray(g(jnp.asarray(P))), np.asarray(Y), atol=1e-13)


def test_stewart_jacrev_inverts_the_closed_form_leg_jacobian():
    f, p = stewart_function()
    g = ms.diff.to_jax(f)
    J = np.asarray(jax.jit(jax.jacrev(g))(jnp.asarray(p)))
    y = f(p)
    x, R = y[:3], y[3:12].reshape(3, 3)
    W = np.einsum("ijc,kj->cik", J[3:12].reshape(3, 3, -1), R)
    forward = np.vstack([J[:3], np.stack([W[:, 2, 1], W[:, 0, 2], W[:, 1, 0]])])
    np.testing.assert_allclose(stewart_leg_jacobian(x, R) @ forward, np.eye(6), atol=1e-12)
    check_grads(g, (jnp.asarray(p),), order=1, modes=["rev"], eps=1e-4, atol=1e-7, rtol=1e-7)


def test_bricard_jvp_along_a_change_that_keeps_it_movable():
    f, _ = bricard_function()
    p = f.parameters()
    v = bricard_symmetric_direction()
    g = ms.diff.to_jax(f, mode="jvp")
    _, tangent = jax.jvp(g, (jnp.asarray(p),), (jnp.asarray(v),))
    h = 1e-3
    half = (f(p + h / 2 * v) - f(p - h / 2 * v)) / h
    fd = (4 * half - (f(p + h * v) - f(p - h * v)) / (2 * h)) / 3
    assert_close_rel(np.asarray(tangent), fd, 1e-8, "Bricard")


def test_float32_rounds_the_values_and_gradients_of_a_float64_solve():
    f, _ = fourbar_function()
    g = ms.diff.to_jax(f)
    p = fourbar_p(f, FOURBAR_LENGTHS)
    jax.config.update("jax_enable_x64", False)
    y32 = g(jnp.asarray(p, dtype=jnp.float32))
    gr32 = jax.grad(lambda x: g(x)[1])(jnp.asarray(p, dtype=jnp.float32))
    assert y32.dtype == jnp.float32 and gr32.dtype == jnp.float32
    jax.config.update("jax_enable_x64", True)
    lin = f.linearize(p)
    assert_close_rel(np.asarray(y32, dtype=float), lin.value, 1e-6, "float32 values")
    ct = np.zeros(7)
    ct[1] = 1.0
    assert_close_rel(np.asarray(gr32, dtype=float), lin.vjp(ct), 1e-5, "float32 gradient")


def test_failures_raise_mechsolve_exceptions():
    f, _ = fourbar_function()
    g = ms.diff.to_jax(f)
    bad = jnp.asarray(fourbar_p(f, [9.0, 1.0, 3.0, 3.5, 0.7]))
    with pytest.raises(ms.SolveError, match="could not assemble"):
        g(bad)
    with pytest.raises(ms.SolveError, match="could not assemble"):
        jax.grad(lambda p: g(p)[0])(bad)
    with pytest.raises(Exception, match="SolveError: could not assemble"):   # JAX's own
        jax.jit(g)(bad)
    mech = ms.models.fourbar(ground=4.0, crank=1.0, coupler=1.5, rocker=1.5).mechanism
    toggle = ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.point("coupler")])
    gt = ms.diff.to_jax(toggle)
    np.testing.assert_allclose(gt(jnp.zeros(1)), [1.75, 0.0], atol=1e-12)   # the value is fine
    with pytest.raises(ms.diff.SingularJacobianError, match="singular"):
        jax.grad(lambda p: gt(p)[1])(jnp.zeros(1))
    with pytest.raises(ValueError, match=r"p must have shape \(\.\.\., 1\)"):
        gt(jnp.zeros(2))
    with pytest.raises(ValueError, match="mode must be 'vjp' or 'jvp'"):
        ms.diff.to_jax(toggle, mode="fwd")
    with pytest.raises(TypeError, match="fn must be a mechsolve.diff.LoopFunction"):
        ms.diff.to_jax(lambda p: p)


def test_callbacks_solve_with_ieee_arithmetic():
    """XLA's callback threads flush denormals to zero; the solves run in a thread that does
    not (where math.ulp(0.0) is the smallest denormal, as everywhere else)."""
    import math

    from mechsolve.diff._frameworks import _solver_thread

    worker = _solver_thread()

    def probe(x):
        here = math.ulp(0.0)
        there = worker.submit(math.ulp, 0.0).result()
        return np.array([here, there])

    here, there = np.asarray(jax.jit(lambda x: jax.pure_callback(
        probe, jax.ShapeDtypeStruct((2,), jnp.float64), x))(jnp.zeros(1)))
    assert there == 5e-324
    assert here in (0.0, 5e-324)          # XLA's own choice, reported by this test
