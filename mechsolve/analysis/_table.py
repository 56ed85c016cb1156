"""A motion as a table: named columns with units, for ``Motion.to_dataframe`` and ``to_csv``.

Columns are named ``body.coordinate [unit]``: lengths in the unit a model file declared
(``mech.units["length"]``, e.g. ``[units] length = "mm"``; no unit is shown where none was
declared: lengths carry none in Python), angles in radians unless the model declared degrees
(``angle = "deg"``; then the angle columns are converted to degrees), times in seconds. A
planar body gives ``x``, ``y``, ``angle``; a spatial body ``x``, ``y``, ``z`` and its unit
quaternion ``qw``, ``qx``, ``qy``, ``qz`` (exact, no unit); joints with their own coordinates
give ``joint.0`` and so on.
"""

from __future__ import annotations

import csv
import math
import os

import numpy as np

__all__ = ["motion_table", "write_csv"]

_DEG = 180.0 / math.pi


class _Units:
    """The display units of a mechanism: names and factors from the model's values."""

    def __init__(self, mech) -> None:
        self.length = mech.units.get("length") or None
        self.deg = mech.units.get("angle") == "deg"
        self.angle = "deg" if self.deg else "rad"

    def factor(self, kind: str) -> float:
        """Display value per model value of a quantity of ``kind``."""
        return _DEG if kind == "angle" and self.deg else 1.0

    def name(self, kind: str) -> str | None:
        return {"length": self.length, "angle": self.angle, "time": "s", "number": None}[kind]


def _label(text: str, unit: str | None) -> str:
    return f"{text} [{unit}]" if unit else text


def _ratio(num: str | None, den: str | None, power: int = 1) -> str | None:
    """``num/den`` (``num/den^2``), ``1/den`` where the numerator has no unit, ``num`` where
    the denominator has none."""
    if den is None:
        return num
    den = den if power == 1 else f"{den}^{power}"
    return f"{num or '1'}/{den}"


def _body_kinds(dim: int) -> list:
    """``[(coordinate name, kind), ...]`` of a body's pose columns."""
    if dim == 2:
        return [("x", "length"), ("y", "length"), ("angle", "angle")]
    return [("x", "length"), ("y", "length"), ("z", "length"), ("qw", "number"),
            ("qx", "number"), ("qy", "number"), ("qz", "number")]


def _rate_kinds(dim: int) -> list:
    """``[(coordinate name, kind), ...]`` of a body's rate columns (increment space)."""
    if dim == 2:
        return [("x", "length"), ("y", "length"), ("angle", "angle")]
    return [("x", "length"), ("y", "length"), ("z", "length"), ("wx", "angle"),
            ("wy", "angle"), ("wz", "angle")]


def _points(points) -> list:
    """``points`` as ``[(name, body, point), ...]`` from a mapping or pairs."""
    if points is None:
        return []
    items = points.items() if isinstance(points, dict) else points
    out = []
    for entry in items:
        try:
            name, (body, point) = entry
        except (TypeError, ValueError):
            raise ValueError("points must map column names to (body, point) pairs, e.g. "
                             "{'tip': (coupler, (0.0, 1.0))}, got "
                             f"{entry!r}") from None
        if not isinstance(name, str) or not name:
            raise TypeError(f"points: a column name must be a non-empty string, got {name!r}")
        out.append((name, body, point))
    return out


def motion_table(motion, *, bodies=None, points=None, rates: bool = False, per=None):
    """``(columns, data)`` of ``motion``: the names (with units) and an ``(N, c)`` array.

    See :meth:`mechsolve.Motion.to_dataframe` for the arguments.
    """
    mech = motion.mechanism
    u = _Units(mech)
    dim = mech.dim
    driver = motion.driver
    columns: list[str] = []
    blocks: list[np.ndarray] = []

    def add(name: str, unit: str | None, values, factor: float = 1.0) -> None:
        columns.append(_label(name, unit))
        blocks.append(np.asarray(values, dtype=float) * factor)

    # the parameter of the sweep
    if driver is None:
        x_name, x_kind = "t", "time"
    else:
        x_name = driver.name or driver.label
        x_kind = "angle" if driver.is_angle else "length"
    add(x_name, u.name(x_kind), motion.values, u.factor(x_kind))
    # the bodies' poses
    chosen = list(mech.bodies) if bodies is None else [motion._body(b) for b in bodies]
    for body in chosen:
        pose = motion.pose(body)
        for k, (coord, kind) in enumerate(_body_kinds(dim)):
            add(f"{body.name}.{coord}", u.name(kind), pose[:, k], u.factor(kind))
    # the joints' own coordinates (with every body only: the whole state)
    if bodies is None:
        layout = mech.layout
        for j in mech.joints:
            if not j.n_coordinates:
                continue
            start = layout.coord_slice(j).start
            lengths = np.asarray(j.coordinate_lengths, dtype=bool)
            angles = np.asarray(j._coordinate_angles, dtype=bool)
            for k in range(j.n_coordinates):
                kind = "length" if lengths[k] else "angle" if angles[k] else "number"
                col = motion.states[:, start + k]
                add(f"{j.name or j.label}.{k}", u.name(kind), col, u.factor(kind))
    # points' paths
    pts = _points(points)
    axes = ("x", "y", "z")[:dim]
    for name, body, point in pts:
        path = motion.point(body, point)
        for k, ax in enumerate(axes):
            add(f"{name}.{ax}", u.name("length"), path[:, k])
    # rates: in time, or per unit rate of a driver
    if rates:
        by = motion._per(per)
        nu = motion._rates("velocity", per)
        nudot = motion._rates("acceleration", per)
        if by is None:
            den, f_den = "s", 1.0
        else:
            den_kind = "angle" if by.is_angle else "length"
            den, f_den = u.name(den_kind), u.factor(den_kind)
            wrt = by.name or by.label

        def rate_name(target: str, coord: str, order: int) -> str:
            if by is not None:   # d(x)/d(motor), d2(x)/d(motor)2
                return f"{target}.d{'' if order == 1 else '2'}{coord}/d{wrt}" \
                    f"{'' if order == 1 else '2'}"
            if coord in ("x", "y", "z"):
                return f"{target}.{'v' if order == 1 else 'a'}{coord}"
            if coord == "angle":
                return f"{target}.{'omega' if order == 1 else 'alpha'}"
            return f"{target}.{coord if order == 1 else 'alpha' + coord[1]}"   # wx, alphax

        for order, arr in ((1, nu), (2, nudot)):
            for body in chosen:
                block = motion._body_rates(body, arr)
                for k, (coord, kind) in enumerate(_rate_kinds(dim)):
                    add(rate_name(body.name, coord, order), _ratio(u.name(kind), den, order),
                        block[:, k], u.factor(kind) / f_den**order)
            for name, body, point in pts:
                vals = motion._point_rates(body, point, nu, None if order == 1 else nudot)
                for k, ax in enumerate(axes):
                    add(rate_name(name, ax, order), _ratio(u.name("length"), den, order),
                        vals[:, k], 1.0 / f_den**order)
    data = np.column_stack(blocks) if blocks else np.zeros((len(motion), 0))
    return columns, data


def write_csv(path, columns, data) -> None:
    """Write a table: a header row of ``columns``, then ``data`` at full precision
    (``repr`` of every float: read back, the numbers are the same)."""
    with open(os.fspath(path), "w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(columns)
        for row in data:
            out.writerow([repr(float(x)) for x in row])
