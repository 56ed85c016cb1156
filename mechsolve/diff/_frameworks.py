"""A :class:`~mechsolve.diff.LoopFunction` as a JAX function and as a PyTorch function.

Both run the NumPy solve and differentiate it with the function's own linearization (one
factorization of ``Phi_q`` at the solved pose); nothing of the mechanism is traced. JAX and
PyTorch are imported when :func:`to_jax` or :func:`to_torch` is called, never by
``import mechsolve``.
"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from ._core import LoopFunction

__all__ = ["to_jax", "to_torch"]

#: The last exception a JAX callback raised, to be raised again as itself where JAX hands back
#: its own runtime error (checked against that error's message).
_raised = {"error": None}
_lock = threading.Lock()
_worker = None


def _solver_thread() -> ThreadPoolExecutor:
    """One thread, started from the caller's (not from an XLA thread), that runs the NumPy
    solves of JAX callbacks.

    XLA runs callbacks with denormal numbers flushed to zero (FTZ/DAZ set in the thread's
    floating-point control word): there ``math.ulp(0.0)`` is 0.0 and a tiny guard of the
    Newton core divides by zero. A thread started from an ordinary Python thread keeps IEEE
    arithmetic, so the solve gives what it gives outside JAX.
    """
    global _worker
    with _lock:
        if _worker is None:
            _worker = ThreadPoolExecutor(max_workers=1, thread_name_prefix="mechsolve-diff")
            _worker.submit(int).result()       # start the thread now, from this thread
        return _worker


def _check_function(fn) -> LoopFunction:
    if not isinstance(fn, LoopFunction):
        raise TypeError(f"fn must be a mechsolve.diff.LoopFunction, got {type(fn).__name__}")
    return fn


def _batched(fn: LoopFunction, P: np.ndarray, jacobian: bool):
    """Values ``(..., n_out)`` (and Jacobians ``(..., n_out, n_in)``) of ``fn`` at ``P (...,
    n_in)``. One point is solved from the mechanism's pose and the mechanism keeps the new
    one; in a batch every item is solved from the pose the mechanism had before the batch,
    which is put back afterwards (with its parameters), so items do not depend on their order.
    """
    P = np.asarray(P, dtype=float)
    try:
        if P.ndim == 1:
            lin = fn.linearize(P)
            return (lin.value, lin.jacobian()) if jacobian else lin.value
        mech = fn.mechanism
        q0 = mech.state
        p0 = fn.parameters()
        flat = P.reshape(-1, fn.n_in)
        Y = np.empty((len(flat), fn.n_out))
        J = np.empty((len(flat), fn.n_out, fn.n_in)) if jacobian else None
        try:
            for i, p in enumerate(flat):
                mech.put_state(q0)
                lin = fn.linearize(p)
                Y[i] = lin.value
                if jacobian:
                    J[i] = lin.jacobian()
        finally:
            fn._restore(p0, q0)
        Y = Y.reshape(P.shape[:-1] + (fn.n_out,))
        if jacobian:
            return Y, J.reshape(P.shape[:-1] + (fn.n_out, fn.n_in))
        return Y
    except Exception as exc:
        _raised["error"] = exc
        raise


def to_jax(fn: LoopFunction, *, mode: str = "vjp"):
    """``fn`` as a JAX function ``p (..., n_in) -> y (..., n_out)`` that JAX can differentiate.

    The solve runs in NumPy through ``jax.pure_callback`` (in a thread of its own, with IEEE
    arithmetic: XLA's callback threads flush denormal numbers to zero); the derivative is the
    function's
    Jacobian ``dy/dp`` at the solved pose, computed by the same callback when JAX asks for a
    derivative (one factorization of ``Phi_q`` for the value and the derivative), then used
    by JAX: ``ct @ dy/dp`` in the backward pass.

    Parameters
    ----------
    fn : LoopFunction
    mode : {"vjp", "jvp"}
        ``"vjp"``: a ``jax.custom_vjp`` function (``jax.grad``, ``jax.vjp``, ``jax.jacrev``).
        ``"jvp"``: a ``jax.custom_jvp`` function, which forward mode (``jax.jvp``,
        ``jax.jacfwd``) takes as well, and reverse mode by transposing ``dy/dp t``.

    Returns
    -------
    callable
        Works under ``jax.jit``; under ``jax.vmap`` the callback receives the whole batch
        (``vmap_method="broadcast_all"``) and solves every item from the pose the mechanism
        had before the batch. Leading batch axes of ``p`` are a batch too.

    Notes
    -----
    Enable float64 (``jax.config.update("jax_enable_x64", True)``) before using it. In float32
    the solve still runs in float64, but ``p`` arrives rounded to float32 (the geometry moves
    by about 6e-8 of its size) and ``y`` and the gradient are rounded to float32 on the way
    back: about 1e-7 relative, and derivatives are then no better than that.

    A mechanism that cannot be assembled at ``p`` raises :class:`~mechsolve.SolveError` (a
    singular ``Phi_q``, when a derivative is asked for, :class:`SingularJacobianError`). Called
    outside ``jax.jit`` the exception is raised as itself; inside ``jax.jit`` JAX raises its
    runtime error, whose message carries the mechsolve exception and its message.

    Examples
    --------
    >>> import jax, jax.numpy as jnp
    >>> before = jax.config.jax_enable_x64
    >>> jax.config.update("jax_enable_x64", True)
    >>> import mechsolve as ms
    >>> mech = ms.models.fourbar().mechanism
    >>> f = ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.point("coupler", (0.0, 1.0))])
    >>> g = ms.diff.to_jax(f)
    >>> height = lambda p: g(p)[1]                  # the coupler point's height
    >>> slope = jax.grad(height)(jnp.array([0.3]))
    >>> slope.shape, slope.dtype
    ((1,), dtype('float64'))
    >>> jax.config.update("jax_enable_x64", before)
    """
    # JAX is an optional extra, imported only here: spares the import at start-up
    import jax
    import jax.numpy as jnp

    fn = _check_function(fn)
    if mode not in ("vjp", "jvp"):
        raise ValueError(f"mode must be 'vjp' or 'jvp', got {mode!r}")
    n_in, n_out = fn.n_in, fn.n_out

    def shapes(p, jacobian: bool):
        y = jax.ShapeDtypeStruct(p.shape[:-1] + (n_out,), p.dtype)
        if not jacobian:
            return y
        return y, jax.ShapeDtypeStruct(p.shape[:-1] + (n_out, n_in), p.dtype)

    worker = _solver_thread()

    def value_cb(p):
        y = worker.submit(_batched, fn, p, False).result()
        return np.asarray(y, dtype=p.dtype)

    def both_cb(p):
        y, J = worker.submit(_batched, fn, p, True).result()
        return np.asarray(y, dtype=p.dtype), np.asarray(J, dtype=p.dtype)

    def value(p):
        return jax.pure_callback(value_cb, shapes(p, False), p, vmap_method="broadcast_all")

    def both(p):
        return jax.pure_callback(both_cb, shapes(p, True), p, vmap_method="broadcast_all")

    if mode == "vjp":
        @jax.custom_vjp
        def solve(p):
            return value(p)

        def solve_fwd(p):
            y, J = both(p)
            return y, J

        def solve_bwd(J, ct):
            return (jnp.einsum("...i,...ij->...j", ct, J),)

        solve.defvjp(solve_fwd, solve_bwd)
    else:
        @jax.custom_jvp
        def solve(p):
            return value(p)

        @solve.defjvp
        def solve_jvp(primals, tangents):
            (p,), (t,) = primals, tangents
            y, J = both(p)
            return y, jnp.einsum("...ij,...j->...i", J, t)

    def f(p):
        p = jnp.asarray(p)
        if p.ndim < 1 or p.shape[-1] != n_in:
            raise ValueError(f"p must have shape (..., {n_in}) ({', '.join(fn.columns)}), "
                             f"got {p.shape}")
        if not jnp.issubdtype(p.dtype, jnp.floating):
            p = p.astype(jnp.result_type(float))
        _raised["error"] = None
        try:
            return solve(p)
        except Exception as exc:
            own, _raised["error"] = _raised["error"], None
            if own is not None and own is not exc and type(own).__name__ in str(exc):
                raise own from exc
            raise

    f.__doc__ = f"mechsolve loop solve: p ({', '.join(fn.columns)}) -> y ({n_out} outputs)"
    f.loop_function = fn
    return f


def to_torch(fn: LoopFunction):
    """``fn`` as a PyTorch function ``p -> y`` (a ``torch.autograd.Function``).

    ``p`` is a float64 tensor of shape ``(n_in,)`` or ``(B, n_in)`` (items solved as by
    :func:`to_jax`'s batches), on the CPU. The forward pass solves and keeps the linearization
    (the factorization of ``Phi_q`` at the solved pose); the backward pass returns
    ``grad_y @ dy/dp`` from it, and raises :class:`~mechsolve.diff.SingularJacobianError` where
    ``Phi_q`` is singular. Once differentiable (no double backward). A mechanism that cannot be
    assembled at ``p`` raises :class:`~mechsolve.SolveError` in the forward pass.

    Examples
    --------
    >>> import torch
    >>> import mechsolve as ms
    >>> mech = ms.models.fourbar().mechanism
    >>> f = ms.diff.LoopFunction(mech, ["motor.value"], [ms.diff.point("coupler", (0.0, 1.0))])
    >>> g = ms.diff.to_torch(f)
    >>> p = torch.tensor([0.3], dtype=torch.float64, requires_grad=True)
    >>> g(p)[1].backward()
    >>> p.grad.shape
    torch.Size([1])
    """
    # PyTorch is an optional extra, imported only here: spares the import at start-up
    import torch
    from torch.autograd.function import once_differentiable

    fn = _check_function(fn)
    n_in, n_out = fn.n_in, fn.n_out

    class LoopSolve(torch.autograd.Function):
        @staticmethod
        def forward(ctx, p):
            P = p.detach().cpu().numpy().astype(np.float64)
            if P.ndim == 1:
                lins = [fn.linearize(P)]
            else:
                mech = fn.mechanism
                q0, p0 = mech.state, fn.parameters()
                lins = []
                try:
                    for row in P:
                        mech.put_state(q0)
                        lins.append(fn.linearize(row))
                finally:
                    fn._restore(p0, q0)
            ctx.lins = lins
            ctx.batched = P.ndim == 2
            Y = np.stack([lin.value for lin in lins])
            return torch.as_tensor(Y if ctx.batched else Y[0], dtype=p.dtype)

        @staticmethod
        @once_differentiable
        def backward(ctx, grad):
            G = grad.detach().cpu().numpy().astype(np.float64)
            G = G if ctx.batched else G[None]
            out = np.stack([lin.vjp(g) for lin, g in zip(ctx.lins, G)])
            return torch.as_tensor(out if ctx.batched else out[0], dtype=grad.dtype)

    def f(p):
        if not isinstance(p, torch.Tensor):
            p = torch.as_tensor(p, dtype=torch.float64)
        if p.ndim not in (1, 2) or p.shape[-1] != n_in:
            raise ValueError(f"p must have shape ({n_in},) or (B, {n_in}) "
                             f"({', '.join(fn.columns)}), got {tuple(p.shape)}")
        if p.dtype != torch.float64:
            raise TypeError(f"p must be a float64 tensor (torch.float64), got {p.dtype}")
        if p.device.type != "cpu":
            raise ValueError(f"p must be on the CPU, got device {p.device}")
        return LoopSolve.apply(p)

    f.__doc__ = f"mechsolve loop solve: p ({', '.join(fn.columns)}) -> y ({n_out} outputs)"
    f.loop_function = fn
    return f
