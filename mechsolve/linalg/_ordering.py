"""The band ordering of a sparse pattern, chosen once per pattern (the symbolic analysis of the
band LU)."""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import reverse_cuthill_mckee

__all__ = ["BandOrdering"]


class BandOrdering:
    """Rows and columns of a sparsity pattern reordered to a narrow band, chosen once per pattern.

    The order is the reverse Cuthill–McKee order of the bipartite graph of equations and unknowns
    (an equation is joined to the unknowns it depends on), split into its rows and its columns.
    It depends on the pattern alone, not on the order in which joints and drivers were added:
    a driver added last, whose row touches the first body, lands next to that body's equations.
    ``kl`` and ``ku`` are the lower and upper bandwidths of the matrix in this order.

    The ordering is the symbolic analysis of the band LU, done once per topology and kept by
    the :class:`~mechsolve._system.System` for every solve and sweep step; ``_layouts`` keeps
    the positions of a CSC pattern's entries in the band storage, computed on first use.

    Parameters
    ----------
    rows, cols : ndarray
        Row and column of every entry of the pattern.
    shape : tuple of int
        ``(m, n)``.
    """

    def __init__(self, rows: np.ndarray, cols: np.ndarray, shape: tuple[int, int]) -> None:
        m, n = shape
        self.shape = (int(m), int(n))
        A = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=self.shape)
        graph = sp.bmat([[None, A], [A.T, None]], format="csr")
        order = reverse_cuthill_mckee(graph, symmetric_mode=True).astype(np.intp)
        #: the equations and the unknowns in band order
        self.row_order = order[order < m]
        self.col_order = order[order >= m] - m
        self.row_pos = np.empty(m, dtype=np.intp)
        self.row_pos[self.row_order] = np.arange(m)
        self.col_pos = np.empty(n, dtype=np.intp)
        self.col_pos[self.col_order] = np.arange(n)
        d = self.row_pos[rows] - self.col_pos[cols] if len(rows) else np.zeros(1, np.intp)
        self.kl = max(int(d.max()), 0)
        self.ku = max(int(-d.min()), 0)
        self._layouts = {}

    @property
    def width(self) -> int:
        """Rows of LAPACK's band storage of the LU factors, ``2 kl + ku + 1``."""
        return 2 * self.kl + self.ku + 1

    def layout(self, indptr: np.ndarray, indices: np.ndarray) -> np.ndarray:
        """Positions in the column-major band storage ``(width, n)`` of the entries of a CSC
        pattern ``(indptr, indices)`` of the full matrix (computed once per pattern)."""
        key = (id(indptr), indptr.size, indices.size)
        hit = self._layouts.get(key)
        if hit is not None and hit[0] is indptr and hit[1] is indices:
            return hit[2]
        cols = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
        i, j = self.row_pos[indices], self.col_pos[cols]
        flat = j * self.width + (self.kl + self.ku + i - j)
        self._layouts = {key: (indptr, indices, flat)}
        return flat


