"""Tables out (issue 30, item 5): ``Motion.to_csv`` and ``Motion.to_dataframe`` with columns
named with units, read back to the same numbers; pandas is an optional extra."""

import csv
import math
import pathlib
import sys

import numpy as np
import pytest

import mechsolve as ms

EXAMPLES = pathlib.Path(__file__).resolve().parent.parent / "examples" / "models"


def _read(path):
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    return rows[0], np.array([[float(x) for x in r] for r in rows[1:]])


def fourbar_mm(tmp_path, angle="deg"):
    """The example four-bar's model file, with ``length = "mm"`` declared."""
    text = (EXAMPLES / "fourbar.toml").read_text()
    assert '[units]\nangle = "deg"' in text
    units = '[units]\nlength = "mm"' + (f'\nangle = "{angle}"' if angle else "")
    path = tmp_path / "fourbar_mm.toml"
    path.write_text(text.replace('[units]\nangle = "deg"', units))
    return ms.load(path)


def test_csv_reads_back_to_the_same_numbers_with_units_in_the_header(tmp_path):
    mech = fourbar_mm(tmp_path)
    motor = mech.joint("motor")
    motion = mech.sweep(motor, np.linspace(0.0, 2 * np.pi, 37))
    out = tmp_path / "motion.csv"
    motion.to_csv(out)
    header, data = _read(out)
    assert header == ["motor [deg]",
                      "crank.x [mm]", "crank.y [mm]", "crank.angle [deg]",
                      "coupler.x [mm]", "coupler.y [mm]", "coupler.angle [deg]",
                      "rocker.x [mm]", "rocker.y [mm]", "rocker.angle [deg]"]
    assert data.shape == (37, 10)
    # declared degrees: the angle columns converted, the lengths as they are, bit for bit
    np.testing.assert_array_equal(data[:, 0], motion.values * (180 / math.pi))
    np.testing.assert_array_equal(data[:, 1:3], motion.pose(mech.body("crank"))[:, :2])
    np.testing.assert_array_equal(data[:, 9], motion.pose(mech.body("rocker"))[:, 2]
                                  * (180 / math.pi))
    # the crank pin read back from the table: on its circle of 0.5 mm at the driver's angle
    t = np.radians(data[:, 0])
    pin = data[:, 1:3] + 0.5 * np.column_stack([np.cos(np.radians(data[:, 3])),
                                                np.sin(np.radians(data[:, 3]))])
    np.testing.assert_allclose(pin, np.column_stack([np.cos(t), np.sin(t)]), atol=1e-12)


def test_radians_unless_declared_and_no_unit_where_none_was_declared(tmp_path):
    mech = fourbar_mm(tmp_path, angle=None)
    motion = mech.sweep(mech.joint("motor"), [0.0, 0.1])
    assert motion.table()[0][:4] == ["motor [rad]", "crank.x [mm]", "crank.y [mm]",
                                     "crank.angle [rad]"]
    model = ms.models.fourbar()      # built in Python: lengths carry no unit
    motion = model.mechanism.sweep(model.driver, [0.0, 0.1])
    assert motion.table()[0][:4] == ["motor [rad]", "crank.x", "crank.y", "crank.angle [rad]"]


def test_spatial_bodies_give_positions_and_their_quaternion():
    from mechsolve.models.spatial import rssr

    model = rssr()
    mech = model.mechanism
    mech.units = {"length": "m"}
    motion = mech.sweep(model.driver, np.linspace(0, 1, 4))
    columns, data = motion.table(bodies=[mech.body("rocker")])
    assert columns == ["motor [rad]", "rocker.x [m]", "rocker.y [m]", "rocker.z [m]",
                       "rocker.qw", "rocker.qx", "rocker.qy", "rocker.qz"]
    np.testing.assert_array_equal(data[:, 1:], motion.pose(mech.body("rocker")))


def test_time_sweep_rates_in_time_and_points(tmp_path):
    mech = fourbar_mm(tmp_path, angle=None)
    motor = mech.joint("motor")
    motor.value = ms.profiles.ConstantSpeed(speed=2.0)
    motion = mech.sweep_time(np.linspace(0.0, 1.0, 11))
    coupler = mech.body("coupler")
    columns, data = motion.table(bodies=[coupler], points={"tip": (coupler, (0.0, 1.0))},
                                 rates=True)
    assert columns == ["t [s]", "coupler.x [mm]", "coupler.y [mm]", "coupler.angle [rad]",
                       "tip.x [mm]", "tip.y [mm]",
                       "coupler.vx [mm/s]", "coupler.vy [mm/s]", "coupler.omega [rad/s]",
                       "tip.vx [mm/s]", "tip.vy [mm/s]",
                       "coupler.ax [mm/s^2]", "coupler.ay [mm/s^2]", "coupler.alpha [rad/s^2]",
                       "tip.ax [mm/s^2]", "tip.ay [mm/s^2]"]
    np.testing.assert_array_equal(data[:, 4:6], motion.point(coupler, (0.0, 1.0)))
    np.testing.assert_array_equal(data[:, 9:11], motion.velocity(coupler, (0.0, 1.0)))
    np.testing.assert_array_equal(data[:, 14:16], motion.acceleration(coupler, (0.0, 1.0)))


def test_coefficient_columns_per_driver_in_declared_degrees(tmp_path):
    mech = fourbar_mm(tmp_path)
    motion = mech.sweep(mech.joint("motor"), np.linspace(0.0, 1.0, 5))
    rocker = mech.body("rocker")
    columns, data = motion.table(bodies=[rocker], rates=True, per="driver")
    assert columns[4:7] == ["rocker.dx/dmotor [mm/deg]", "rocker.dy/dmotor [mm/deg]",
                            "rocker.dangle/dmotor [deg/deg]"]
    assert columns[7:] == ["rocker.d2x/dmotor2 [mm/deg^2]", "rocker.d2y/dmotor2 [mm/deg^2]",
                           "rocker.d2angle/dmotor2 [deg/deg^2]"]
    dq = motion.body_velocity(rocker, per="driver")
    d2q = motion.body_acceleration(rocker, per="driver")
    deg = 180 / math.pi
    np.testing.assert_allclose(data[:, 4:6], dq[:, :2] / deg, rtol=1e-15)
    np.testing.assert_allclose(data[:, 6], dq[:, 2], rtol=1e-15)        # a ratio of angles
    np.testing.assert_allclose(data[:, 7:9], d2q[:, :2] / deg**2, rtol=1e-15)
    np.testing.assert_allclose(data[:, 9], d2q[:, 2] / deg, rtol=1e-15)
    # rates in time on a position sweep: the message of motion.velocity
    with pytest.raises(ValueError, match=r"position sweep.*per=\"driver\""):
        motion.table(rates=True)


def test_joint_coordinates_are_columns():
    from test_joint_coordinates import build

    mech, car, track, drive = build()
    motion = mech.sweep(drive, np.linspace(0.0, 1.0, 3))
    columns, data = motion.table()
    assert columns == ["arc", "car.x", "car.y", "car.angle [rad]", "CircleTrack.0"]
    np.testing.assert_array_equal(data[:, 4], motion.states[:, -1])


def test_points_argument_is_checked():
    model = ms.models.fourbar()
    motion = model.mechanism.sweep(model.driver, [0.0, 0.1])
    with pytest.raises(ValueError, match=r"points must map column names to \(body, point\)"):
        motion.table(points={"tip": model.output})
    with pytest.raises(TypeError, match="points: a column name must be a non-empty string"):
        motion.table(points={3: (model.output, (0, 1))})


def test_to_dataframe_holds_the_table():
    pd = pytest.importorskip("pandas", reason="pandas is the optional extra mechsolve[pandas]")
    model = ms.models.fourbar()
    motion = model.mechanism.sweep(model.driver, np.linspace(0, np.pi, 5))
    frame = motion.to_dataframe()
    columns, data = motion.table()
    assert isinstance(frame, pd.DataFrame) and list(frame.columns) == columns
    np.testing.assert_array_equal(frame.to_numpy(), data)


def test_without_pandas_to_dataframe_says_how_to_get_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)   # import pandas fails
    model = ms.models.fourbar()
    motion = model.mechanism.sweep(model.driver, [0.0, 0.1])
    with pytest.raises(ImportError, match=r'needs pandas: pip install "mechsolve\[pandas\]".*'
                                          r"to_csv"):
        motion.to_dataframe()
