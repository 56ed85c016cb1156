"""``tolerance_band``: an output path (a coupler curve) with its tolerance band.

Draws a :class:`~mechsolve.design.ToleranceResult` of a planar mechanism: the nominal path of
one output point, the band ``+- k sigma`` across it (``sigma`` the standard deviation normal to
the path, from the first-order covariance or the Monte Carlo one), ``k sigma`` ellipses at some
poses and, optionally, the Monte Carlo samples.
"""

from __future__ import annotations

import numpy as np


def _normals(path: np.ndarray) -> np.ndarray:
    """Unit normals of a polyline ``(N, 2)`` (central differences; a closed path wraps)."""
    closed = len(path) > 2 and np.allclose(path[0], path[-1])
    if closed:
        t = np.roll(path[:-1], -1, axis=0) - np.roll(path[:-1], 1, axis=0)
        t = np.vstack([t, t[:1]])
    else:
        t = np.gradient(path, axis=0) if len(path) > 1 else np.array([[1.0, 0.0]])
    n = np.stack([-t[:, 1], t[:, 0]], axis=1)
    size = np.linalg.norm(n, axis=1, keepdims=True)
    return np.where(size > 0, n / np.where(size > 0, size, 1.0), [[0.0, 1.0]])


def tolerance_band(result, output: int = 0, *, k: float = 3.0, method: str = "first_order",
                   ax=None, ellipses: int = 12, samples: bool = False, color: str = "C0",
                   label: str | None = None):
    """Plot an output point's nominal path with its ``+- k sigma`` tolerance band.

    Parameters
    ----------
    result : ToleranceResult
        From :func:`mechsolve.design.tolerance` on a planar mechanism.
    output : int
        Which of the result's outputs.
    k : float
        Half-width of the band in standard deviations.
    method : {"first_order", "monte_carlo"}
        Whose covariance draws the band and the ellipses.
    ax : matplotlib Axes, optional
        Where to plot (default: a new pyplot figure).
    ellipses : int
        Number of ``k sigma`` ellipses drawn along the path (0 for none; one at a single pose).
    samples : bool
        Also scatter the Monte Carlo samples' positions.
    color, label
        Colour of the path, band and ellipses; legend label of the path.

    Returns
    -------
    matplotlib Axes
        Its first line is the nominal path (``result.nominal[:, output]``); the band is a
        filled polygon, the ellipses are patches.

    Examples
    --------
    >>> import numpy as np
    >>> import mechsolve as ms
    >>> from matplotlib.figure import Figure
    >>> model = ms.models.fourbar()
    >>> motion = model.mechanism.sweep(model.driver, np.linspace(0, 2 * np.pi, 73))
    >>> res = ms.design.tolerance(model.mechanism, {"O4.point2": 0.01, "B.point1": 0.01},
    ...                           outputs=[(model.output, (0.0, 1.0))], motion=motion)
    >>> ax = ms.plot.tolerance_band(res, ax=Figure().add_subplot())
    >>> bool(np.allclose(ax.lines[0].get_xydata(), res.nominal[:, 0]))
    True
    """
    from matplotlib.patches import Ellipse, Polygon  # matplotlib on first use

    nominal = np.asarray(result.nominal)
    if nominal.shape[-1] != 2:
        raise NotImplementedError("tolerance_band draws planar outputs; plot a spatial one's "
                                  "coordinates from result.nominal and result.std")
    if not 0 <= int(output) < nominal.shape[1]:
        raise ValueError(f"output must be in [0, {nominal.shape[1]}), got {output}")
    if method == "first_order":
        cov = result.cov[:, output]
    elif method == "monte_carlo":
        if result.mc_cov is None:
            raise ValueError("method='monte_carlo' needs a result computed with samples=")
        cov = result.mc_cov[:, output]
    else:
        raise ValueError(f"method must be 'first_order' or 'monte_carlo', got {method!r}")
    k = float(k)
    if ax is None:  # a figure of its own, never the last one pyplot made
        import matplotlib.pyplot as plt  # matplotlib on first use

        ax = plt.figure().add_subplot()
    path = nominal[:, output]
    ax.plot(path[:, 0], path[:, 1], color=color,
            label=label if label is not None else "nominal")
    if len(path) > 1:
        n = _normals(path)
        sig = np.sqrt(np.maximum(np.einsum("ni,nij,nj->n", n, cov, n), 0.0))
        upper = path + k * sig[:, None] * n
        lower = path - k * sig[:, None] * n
        ax.add_patch(Polygon(np.vstack([upper, lower[::-1]]), closed=True, facecolor=color,
                             alpha=0.25, edgecolor="none",
                             label=f"±{k:g}σ ({method.replace('_', ' ')})"))
    count = min(int(ellipses), len(path)) if len(path) > 1 else 1
    for i in np.unique(np.linspace(0, len(path) - 1, count).round().astype(int)) if count else []:
        w, v = np.linalg.eigh(cov[i])
        w = np.sqrt(np.maximum(w, 0.0))
        ax.add_patch(Ellipse(path[i], 2 * k * w[1], 2 * k * w[0],
                             angle=float(np.degrees(np.arctan2(v[1, 1], v[0, 1]))),
                             fill=False, edgecolor=color, linewidth=0.8))
    if samples and result.mc_points is not None:
        pts = result.mc_points[:, :, output].reshape(-1, 2)
        ax.plot(pts[:, 0], pts[:, 1], ",", color="0.3", alpha=0.5)
    ax.set_aspect("equal", adjustable="datalim")
    ax.autoscale_view()
    return ax
