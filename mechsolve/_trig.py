"""Cosines and sines of the angles in a stack of planar poses, the same wherever the arrays lie.

NumPy 1.24's ``cos`` and ``sin`` (float64, AVX512) take a SIMD loop unless the input and the
output look as if they overlap; the test (``is_mem_overlap`` in NumPy's ``loops_utils.h``)
takes an operand's extent as ``stride * length`` bytes and counts touching extents as
overlapping. A column of poses, ``X[..., 2]`` with three or more entries per pose, so reaches
16 bytes past its buffer: an output that ``malloc`` placed straight after it (an accident of the
heap) sent the call to the C library's ``cos``, which differs from the SIMD one by an ulp for
some angles. The same angles gave two answers, and a computation repeated in one process
could end an ulp apart (issue 27). Read from an array of their own, the angles' extent is
their buffer and no output can touch it: the SIMD loop always.
"""

from __future__ import annotations

import numpy as np


def angle_cos_sin(X, xp=np):
    """``(cos t, sin t)`` of the angles ``t = X[..., 2]`` of planar poses ``X (..., >= 3)``.

    With NumPy the angles are copied into an array of their own first (see the module's
    note); an array namespace ``xp`` other than NumPy (``jax.numpy`` for a tracer) reads them
    as they are.

    Examples
    --------
    >>> X = np.array([[0.0, 0.0, 0.0], [1.0, 2.0, np.pi / 2]])
    >>> c, s = angle_cos_sin(X)
    >>> bool(np.allclose(c, [1.0, 0.0]) and np.allclose(s, [0.0, 1.0]))
    True
    """
    t = X[..., 2]
    if xp is np:
        t = t.copy()
    return xp.cos(t), xp.sin(t)
