"""The spatial models under their first name, kept for compatibility.

The builders live in :mod:`mechsolve.models.spatial`; this module re-exports them, so that
``import mechsolve.models_spatial``, ``from mechsolve.models_spatial import stewart`` and
``ms.models_spatial.stewart`` keep working. Its other names (``rssr_output``,
``STEWART_BASE``, the helpers, ...) are looked up there on access. New code should use
:mod:`mechsolve.models.spatial`.
"""

from __future__ import annotations

from .models import spatial as _spatial
from .models.spatial import (
    SPATIAL_DEMOS,
    bricard,
    rssr,
    slider_crank_3d,
    spatial_chain,
    spherical_fourbar,
    stewart,
    stewart_legs,
    three_rps,
)

__all__ = ["spherical_fourbar", "rssr", "bricard", "stewart", "three_rps", "slider_crank_3d",
           "spatial_chain", "stewart_legs", "SPATIAL_DEMOS"]


def __getattr__(name: str):
    """Any other name of :mod:`mechsolve.models.spatial`, as this module had it before."""
    try:
        return getattr(_spatial, name)
    except AttributeError:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}") from None


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(dir(_spatial)))
