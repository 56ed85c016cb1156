"""The version of mechsolve, in one place below every other module.

``mechsolve.__version__`` is this; the symbolic kernels' disk cache is keyed by it (see
:mod:`mechsolve.symbolic`), so a new release never reads kernels an older one wrote.
"""

__version__ = "0.1.0"
