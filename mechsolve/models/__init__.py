"""Ready-made mechanisms to sweep, draw and test with: planar ones and spatial ones.

* :mod:`mechsolve.models.planar` -- the classic planar linkages (four-bar, slider-crank,
  Watt six-bar, Andrews' squeezer, ...), :class:`Model` and the CLI's :data:`DEMOS`;
* :mod:`mechsolve.models.spatial` -- the spatial ones (spherical four-bar, RSSR, Bricard,
  Stewart platform, ...) and :data:`~mechsolve.models.spatial.SPATIAL_DEMOS`.

``mechsolve.models`` itself exports the planar builders, :class:`Model` and :data:`DEMOS`, as
it always has.

Examples
--------
>>> import mechsolve as ms
>>> ms.models.fourbar().mechanism.dof().dof
1
>>> ms.models.spatial.stewart().mechanism.dof().dof
6
"""

from . import planar as planar  # the submodules, as ms.models.planar / .spatial
from . import spatial as spatial
from .planar import (
    ANDREWS,
    DEMOS,
    JANSEN,
    JANSEN_BARS,
    Model,
    andrews_squeezer,
    five_bar,
    fourbar,
    fourbar_chain,
    gear_train,
    jansen_leg,
    parallelogram,
    quick_return,
    slider_crank,
    watt_sixbar,
)

__all__ = ["Model", "fourbar", "five_bar", "slider_crank", "quick_return", "watt_sixbar",
           "gear_train", "andrews_squeezer", "ANDREWS", "jansen_leg", "JANSEN", "JANSEN_BARS",
           "parallelogram", "fourbar_chain", "DEMOS"]
