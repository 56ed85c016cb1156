"""The JAX backend: the joints' kernels written once (:mod:`mechsolve.joints._terms`) traced by
``jax.numpy``, batched over designs with ``vmap`` and followed over a driver's values with
``lax.scan``, on a GPU or JAX's CPU.

JAX is imported when a backend call needs it (``pip install "mechsolve[jax]"``); importing
mechsolve does not import it. Reached through the public calls:
``ms.design.sweep(mech, designs, driver, values, backend="jax")``
(:func:`mechsolve._jax.sweep.design_sweep`).
"""

from __future__ import annotations

__all__ = ["import_jax"]


def import_jax():
    """``(jax, jax.numpy)``, or an ImportError that says how to install them."""
    try:
        import jax  # a heavy import, only when a backend call asks for it
        import jax.numpy as jnp  # (the same)
    except ImportError as exc:   # pragma: no cover - depends on the environment
        raise ImportError('backend="jax" needs JAX: pip install "mechsolve[jax]" (or '
                          '"jax[cuda13]" for an NVIDIA GPU)') from exc
    return jax, jnp
