"""Exact sensitivities (mechsolve.design.sensitivity) and the joints' Phi_p kernels.

* every class's ``_phi_p`` against central differences of ``_phi`` on random poses and
  parameters (closed forms and the finite-difference default alike), and every closed form
  against the finite-difference default ``Joint._numeric_phi_p``; no built-in class left on
  that default but those :data:`NUMERIC_PHI_P` names;
* the four-bar against the derivative of its closed form (two-circle intersection, complex
  step: exact) with respect to each link length and the crank angle, to 1e-9;
* re-solved poses by central differences (Richardson) for planar and spatial models, 1e-7;
* along a sweep, the batched derivatives against the pose-wise ones; velocities of a time
  sweep against central differences of re-solved velocities;
* minimum norm on an under-driven four-bar; invariance under the unit of length.
"""

from __future__ import annotations

import zlib

import numpy as np
import pytest
from _joint_cases import CASES

import mechsolve as ms
from mechsolve.joints.base import Joint
from mechsolve.profiles import ConstantSpeed

#: Built-in joint classes whose ``_phi_p`` is still the finite-difference default, and why.
NUMERIC_PHI_P = {
    "SerialChain": "no named parameters (its layout is empty, so mech.parameters() names none "
                   "of its numbers and sensitivities never ask for its Phi_p); its tip "
                   "orientation goes through SciPy's nearest-rotation projection past about "
                   "157 degrees, which has no closed form here",
}


def _rng(*salt) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(repr(salt).encode())])


# -- the kernels -----------------------------------------------------------------------------------
def _stencil(cls, P, X, c, h):
    """Five-point derivative of ``_phi`` in parameter column ``c`` with step ``h``."""
    def at(t):
        Q = P.copy()
        Q[..., c] += t
        return cls._phi(Q, *X)
    return (at(-2 * h) - 8 * at(-h) + 8 * at(h) - at(2 * h)) / (12 * h)


@pytest.mark.parametrize("case", sorted(CASES))
def test_phi_p_matches_central_differences(case):
    from _joint_cases import random_args

    rng = _rng(case)
    joint = CASES[case](rng)
    cls = type(joint)
    N = 6
    P = joint._p[None, None, :] * (1 + 0.05 * rng.normal(size=(N, 1, joint._p.size)))
    X = random_args(joint, rng, (N, 1))
    D = cls._phi_p(P, *X)
    assert D.shape == (N, 1, joint.n_equations, joint._p.size)
    scale = max(1.0, float(np.sqrt(np.mean(joint._p ** 2))))
    usable = 0
    for c in range(joint._p.size):
        h = 1e-3 * scale
        coarse, fine = _stencil(cls, P, X, c, h), _stencil(cls, P, X, c, h / 2)
        ok = np.all(np.abs(coarse - fine) <= 1e-9 * np.maximum(1.0, np.abs(fine)), axis=-1)
        usable += int(ok.sum())
        err = np.abs(D[..., c] - fine)[ok]
        assert np.all(err <= 1e-8 * np.maximum(1.0, np.abs(fine[ok]))), \
            f"{cls.__name__} column {c}: error {err.max():.3g}"
    assert usable >= 0.8 * N * joint._p.size


def _is_numeric(cls) -> bool:
    return cls._phi_p.__func__ is Joint.__dict__["_phi_p"].__func__


@pytest.mark.parametrize("case", sorted(CASES))
def test_closed_form_phi_p_matches_the_numeric_default(case):
    """The closed form against ``Joint._numeric_phi_p`` at six random poses, each with its
    own parameters (5 % off the case's), to 1e-8 relative wherever the numeric derivative has
    converged (its default step and half of it agree to 1e-9: not where a step straddles an
    atan2's jump or a sharp bend, at least 90 % of the entries)."""
    from _joint_cases import random_args

    rng = _rng("numeric default", case)
    joint = CASES[case](rng)
    cls = type(joint)
    if _is_numeric(cls):
        assert cls.__name__ in NUMERIC_PHI_P
        return
    N = 6
    P = joint._p[None, None, :] * (1 + 0.05 * rng.normal(size=(N, 1, joint._p.size)))
    X = random_args(joint, rng, (N, 1))
    D = cls._phi_p(P, *X)
    assert D.shape == (N, 1, joint.n_equations, joint._p.size)
    coarse = cls._numeric_phi_p(P, *X)
    fine = cls._numeric_phi_p(P, *X, step=5e-4)
    scale = np.maximum(1.0, np.abs(fine))
    converged = np.abs(coarse - fine) <= 1e-9 * scale
    assert converged.size == 0 or converged.mean() >= 0.9
    err = (np.abs(D - fine) / scale)[converged]
    assert np.all(err <= 1e-8), f"{cls.__name__}: relative error {err.max():.3g}"
    # one call for every instance and pose: the same numbers one at a time, and with the
    # parameters batched over bodies at one pose (a family of designs)
    np.testing.assert_allclose(cls._phi_p(P[2], *(x[2] for x in X)), D[2], rtol=1e-13,
                               atol=1e-13)
    X0 = [x[0] for x in X]
    np.testing.assert_allclose(cls._phi_p(P, *X0), np.stack([cls._phi_p(p, *X0) for p in P]),
                               rtol=1e-13, atol=1e-13)


def test_every_built_in_class_has_a_closed_form_phi_p():
    from _joint_cases import SKIPPED, package_classes, qualified

    classes = {cls for cls in package_classes() if qualified(cls) not in SKIPPED}
    classes |= {type(CASES[c](np.random.default_rng(0))) for c in CASES}
    numeric = {cls.__name__ for cls in classes if _is_numeric(cls)}
    assert numeric == set(NUMERIC_PHI_P)
    # a spatial twin redefines Phi: its Phi_p is its own, not inherited from its planar base
    # (but for the limits' classes, which have no equations); where the formula is the same
    # (the driver's n . r - value) the twin names the planar kernel in its own class
    from mechsolve.joints.base import SPATIAL_VARIANTS
    assert len(SPATIAL_VARIANTS) >= 5
    shared = {"SpatialDriver"}
    for planar, twin in SPATIAL_VARIANTS.items():
        if not planar.n_equations:
            continue
        if twin.__name__ in shared:
            assert "_phi_p" in twin.__dict__, twin.__name__
        else:
            assert twin._phi_p.__func__ is not planar._phi_p.__func__, twin.__name__


def test_user_classes_keep_the_numeric_default():
    """A user class that writes Phi (alone, or over a built-in class) differentiates it by
    central differences; a user link joint that gives only T(s) gets the link joints' closed
    form with central differences of T in its own parameters."""
    from _joint_cases import random_args

    from mechsolve.joints import LinkJoint

    class OnCircle(Joint):
        n_equations = 1
        layout = (("radius", 1),)

        def __init__(self, body, radius):
            super().__init__((body,), [radius])

        @classmethod
        def _phi(cls, P, X):
            return (X[..., 0] ** 2 + X[..., 1] ** 2 - P[..., 0] ** 2)[..., None]

    class TiltedRevolute(ms.joints.Revolute):
        @classmethod
        def _phi(cls, P, X1, X2):
            return 2.0 * super()._phi(P, X1, X2)

    assert _is_numeric(OnCircle) and _is_numeric(TiltedRevolute)

    class Helix(LinkJoint):
        """Screw about z with its own pitch: T(s) = Rz(s) then s * pitch along z."""

        _n_link_params = 1
        layout = LinkJoint.layout + (("pitch", 1),)

        def __init__(self, body1, body2, pitch, **kw):
            super().__init__(body1, body2, link_params=[pitch], **kw)

        @classmethod
        def _transform_only(cls, L, s):
            t = np.zeros(np.shape(s) + (3,))
            t[..., 2] = L[..., 0] * s
            q = np.stack(np.broadcast_arrays(np.cos(s / 2), 0.0 * s, 0.0 * s, np.sin(s / 2)),
                         axis=-1)
            return t, q

    assert not _is_numeric(Helix)
    rng = _rng("helix")
    mech = ms.Mechanism(dim=3)
    a, b = mech.add_body("a"), mech.add_body("b", position=(0, 0, 1))
    helix = mech.add(Helix(a, b, 0.3, frame1=ms.Frame((0.1, 0.2, 0.3)), s0=0.4))
    P = helix._p[None, None, :] * (1 + 0.05 * rng.normal(size=(4, 1, helix._p.size)))
    X = random_args(helix, rng, (4, 1))
    np.testing.assert_allclose(Helix._phi_p(P, *X), Helix._numeric_phi_p(P, *X, step=5e-4),
                               rtol=1e-8, atol=1e-8)


# -- the four-bar's closed form --------------------------------------------------------------------
def _fourbar_closed(theta, g, c, k, r, k0):
    """Rocker pin B, coupler point (body point (0, 1) of the coupler built with length k0) and
    the rocker's x axis direction O4 - B, complex-safe (no abs, arctan2, arccos)."""
    A = np.array([c * np.cos(theta), c * np.sin(theta)])
    d = np.array([g, 0.0]) - A
    e = np.sqrt(d @ d)
    a = (k * k - r * r + e * e) / (2 * e)
    h = np.sqrt(k * k - a * a)
    B = A + (a * d + h * np.array([-d[1], d[0]])) / e
    u = (B - A) / k
    point = A + (k0 / 2) * u + np.array([-u[1], u[0]])
    return point, np.array([g, 0.0]) - B


def _closed_derivatives(theta, lengths):
    """d(coupler point)/d(g, c, k, r, theta) (2, 5) and d(rocker angle)/d(...) (5,), by
    complex step (exact to round-off)."""
    base = np.array([*lengths, theta], dtype=complex)
    dp, da = np.empty((2, 5)), np.empty(5)
    for i in range(5):
        z = base.copy()
        z[i] += 1e-30j
        g, c, k, r, t = z
        point, v = _fourbar_closed(t, g, c, k, r, lengths[2])
        dp[:, i] = point.imag / 1e-30
        vr, dv = v.real, v.imag / 1e-30
        da[i] = (vr[0] * dv[1] - vr[1] * dv[0]) / (vr @ vr)
    return dp, da


# ground: x of O4's ground point; crank: its pin A on the crank; coupler: its pin B on the
# coupler; rocker: its pivot O4 on the rocker (each moves one pin along its link's axis)
LENGTH_COLUMNS = ("O4.point2[0]", "A.point1[0]", "B.point1[0]", "O4.point1[0]", "motor.value")


@pytest.mark.parametrize("lengths", [(4.0, 1.0, 3.0, 3.5), (3.0, 1.2, 2.4, 2.0)])
def test_fourbar_matches_the_derivative_of_its_closed_form(lengths):
    model = ms.models.fourbar(*lengths)
    mech = model.mechanism
    thetas = np.linspace(0.0, 2 * np.pi, 25)
    motion = mech.sweep(model.driver, thetas)
    names = ["O4.point2", "A.point1", "B.point1", "O4.point1", "motor.value"]
    sweep = motion.sensitivity(names)
    cols = [sweep.columns.index(c) for c in LENGTH_COLUMNS]
    path = sweep.point(model.output, (0.0, 1.0))[:, :, cols]
    rocker = sweep.body_pose(mech.body("rocker"))[:, 2][:, cols]
    worst = 0.0
    for i, t in enumerate(thetas):
        dp, da = _closed_derivatives(t, lengths)
        worst = max(worst, np.max(np.abs(path[i] - dp)) / np.max(np.abs(dp)),
                    np.max(np.abs(rocker[i] - da)) / np.max(np.abs(da)))
    assert worst < 1e-9
    # and at one pose by the pose-wise call
    motion.apply(7)
    s = mech.sensitivity(names)
    dp, da = _closed_derivatives(thetas[7], lengths)
    cols = [s.columns.index(c) for c in LENGTH_COLUMNS]
    np.testing.assert_allclose(s.point("coupler", (0.0, 1.0))[:, cols], dp, rtol=0,
                               atol=1e-9 * np.max(np.abs(dp)))
    np.testing.assert_allclose(s.body_pose("rocker")[2, cols], da, rtol=0,
                               atol=1e-9 * np.max(np.abs(da)))


# -- central differences of re-solved poses --------------------------------------------------------
def _unit(name):
    part = name.rsplit(".", 1)[1]
    return part.startswith("frame") or part in ("axis", "target_quaternion")


def _perturbed(values, name, i, h):
    v = np.array(values[name], dtype=float, ndmin=1)
    v[i] += h
    if _unit(name):
        v = v / np.linalg.norm(v)
    return v if v.size > 1 else float(v[0])


def _resolved_difference(mech, name, i, h, q0):
    """Richardson-extrapolated central difference of the solved increment, step ``h``."""
    sys = mech.system()
    values = mech.parameters()
    poses = {}
    for t in (-2 * h, -h, h, 2 * h):
        mech.set_parameters({name: _perturbed(values, name, i, t)})
        mech.state = q0
        mech.solve(tol=1e-12)
        poses[t] = mech.state
    mech.set_parameters({name: values[name]})
    mech.state = q0
    d1 = sys.difference(poses[h], poses[-h]) / (2 * h)
    d2 = sys.difference(poses[2 * h], poses[-2 * h]) / (4 * h)
    return (4 * d1 - d2) / 3


def _randomized(model, rng):
    """The model with every point moved a little and the pose solved again."""
    mech = model.mechanism
    L = mech.length_scale
    new = {}
    for name, v in mech.parameters().items():
        if name.endswith(("point1", "point2")):
            new[name] = v + 0.01 * L * rng.normal(size=np.shape(v))
    mech.set_parameters(new)
    mech.solve()
    return mech


MODELS = {
    "fourbar": lambda: ms.models.fourbar(),
    "slider_crank": lambda: ms.models.slider_crank(),
    "watt_sixbar": lambda: ms.models.watt_sixbar(),
    "rssr": lambda: ms.models.spatial.rssr(),
    "stewart": lambda: ms.models.spatial.stewart(),
}


@pytest.mark.parametrize("which", sorted(MODELS))
def test_sensitivity_matches_central_differences_of_resolved_poses(which):
    rng = _rng(which)
    model = MODELS[which]()
    mech = _randomized(model, rng)
    if model.driver is not None and which != "stewart":
        model.driver.value = model.driver.value + 0.4
        mech.solve()
    s = mech.sensitivity()
    assert not s.minimum_norm
    q0 = mech.state
    # a random sample of the columns (all of them for the small models)
    cols = range(len(s.columns))
    if len(s.columns) > 40:
        cols = sorted(rng.choice(len(s.columns), 40, replace=False))
    big = np.max(np.abs(s.dq_dp))
    for j in cols:
        label = s.columns[j]
        name, i = (label.split("[")[0], int(label.split("[")[1][:-1])) if "[" in label \
            else (label, 0)
        fd = _resolved_difference(mech, name, i, 1e-4 * mech.length_scale
                                  if not _unit(name) else 1e-4, q0)
        err = np.max(np.abs(fd - s.dq_dp[:, j]))
        assert err <= 1e-7 * max(np.max(np.abs(s.dq_dp[:, j])), 1e-3 * big), \
            f"{which} {label}: {err:.3g}"


# -- along a sweep ---------------------------------------------------------------------------------
def test_point_sensitivity_along_a_sweep_equals_the_pose_wise_ones():
    model = ms.models.watt_sixbar()
    mech = model.mechanism
    motion = mech.sweep(model.driver, np.linspace(0.0, 2 * np.pi, 13))
    names = ["O4.point2", "C.point1", "O6.point2", "motor.value"]
    batch = motion.point_sensitivity(model.output, (0.3, 0.2), names)
    assert batch.shape == (13, 2, 7)
    for i in range(13):
        motion.apply(i)
        one = mech.sensitivity(names).point(model.output, (0.3, 0.2))
        np.testing.assert_allclose(batch[i], one, rtol=0, atol=1e-12 * np.max(np.abs(one)))


def test_spatial_sweep_sensitivity_equals_the_pose_wise_ones():
    model = ms.models.spatial.rssr()
    mech = model.mechanism
    motion = mech.sweep(model.driver, np.linspace(0.0, 2 * np.pi, 7))
    names = ["rod.length", "output.point1", "output.frame1"]
    batch = motion.point_sensitivity(model.output, (0.2, 0.1, 0.3), names)
    for i in range(7):
        motion.apply(i)
        one = mech.sensitivity(names).point(model.output, (0.2, 0.1, 0.3))
        np.testing.assert_allclose(batch[i], one, rtol=0, atol=1e-12 * np.max(np.abs(one)))


def _velocity_case(which):
    if which == "fourbar":
        model = ms.models.fourbar()
        body, point, names = model.output, (0.0, 1.0), ["O4.point2", "B.point1", "A.point2"]
    else:
        model = ms.models.spatial.rssr()
        body, point, names = model.output, (0.2, 0.1, 0.3), ["rod.length", "output.point1",
                                                              "input.point2", "output.frame1"]
    model.driver.value = ConstantSpeed(speed=1.7)
    mech = model.mechanism
    mech.solve(t=0.0)
    motion = mech.sweep_time(np.linspace(0.0, 3.0, 7))
    return mech, motion, body, point, names


@pytest.mark.parametrize("which", ["fourbar", "rssr"])
def test_velocity_sensitivity_matches_central_differences(which):
    mech, motion, body, point, names = _velocity_case(which)
    sens = motion.sensitivity(names)
    dv = sens.velocity(body, point)
    assert dv.shape == (7, mech.dim, len(sens.columns))
    for i in (1, 4):
        t = motion.values[i]
        values = mech.parameters()
        for j, label in enumerate(sens.columns):
            name, k = label.split("[")[0], int(label.split("[")[1][:-1]) if "[" in label else 0
            h = 1e-4

            def velocity(step, name=name, k=k, t=t, i=i, values=values):
                mech.set_parameters({name: _perturbed(values, name, k, step)})
                mech.state = motion.states[i]
                mech.solve(t=t, tol=1e-12)
                return mech.point_velocity(body, point)

            d1 = (velocity(h) - velocity(-h)) / (2 * h)
            d2 = (velocity(2 * h) - velocity(-2 * h)) / (4 * h)
            fd = (4 * d1 - d2) / 3
            mech.set_parameters({name: values[name]})
            err = np.max(np.abs(fd - dv[i, :, j]))
            assert err <= 1e-7 * max(np.max(np.abs(dv[i])), 1e-12), f"{label}: {err:.3g}"


# -- minimum norm, units, errors -------------------------------------------------------------------
def test_an_under_driven_fourbar_gets_the_minimum_norm_solution_and_says_so():
    model = ms.models.fourbar()
    mech = model.mechanism
    mech.remove(model.driver)
    with pytest.warns(ms.MechsolveWarning, match="minimum-norm"):
        s = mech.sensitivity(["O4.point2", "B.point1"])
    assert s.minimum_norm
    assert "minimum-norm" in repr(s)
    # still a solution of Phi_q dq/dp = -Phi_p, and the smallest (in the scaled unknowns)
    sys = mech.system()
    J = mech.jacobian(dense=True)
    from mechsolve.design.sensitivity import parameter_columns

    cols = parameter_columns(mech, ["O4.point2", "B.point1"])
    R = -cols.phi_p(sys, mech.state)
    np.testing.assert_allclose(J @ s.dq_dp, R, rtol=0, atol=1e-12)
    _, sv, Vt = np.linalg.svd(J * sys.col_scale)
    free = Vt[-1]                                  # the free motion (scaled)
    assert np.max(np.abs(free @ (s.dq_dp / sys.col_scale[:, None]))) < 1e-12


def test_sensitivities_are_invariant_under_the_unit_of_length():
    def build(scale):
        model = ms.models.fourbar(4.0 * scale, 1.0 * scale, 3.0 * scale, 3.5 * scale)
        mech = model.mechanism
        mech.sweep(model.driver, np.linspace(0.0, 0.7, 8))
        return mech.sensitivity()

    ref = build(1.0)
    length_rows = np.array([r.endswith((".x", ".y")) for r in ref.rows])
    length_cols = np.array([not c.startswith("motor") for c in ref.columns])
    for scale in (1e-3, 1e3):
        s = build(scale)
        factor = np.where(length_rows[:, None], 1.0, 1.0 / scale) * \
            np.where(length_cols[None, :], 1.0, scale)
        expected = ref.dq_dp * factor
        err = np.abs(s.dq_dp - expected) / np.max(np.abs(expected), axis=0)
        assert np.max(err) < 1e-12, scale


def test_an_unassembled_pose_and_unknown_names_are_refused():
    model = ms.models.fourbar()
    mech = model.mechanism
    with pytest.raises(ValueError, match="did you mean 'O4.point2'"):
        mech.sensitivity(["O4.piont2"])
    model.driver.value = 0.5          # not solved again
    with pytest.raises(ms.SolveError, match="assembled mechanism"):
        mech.sensitivity()


def test_quaternion_columns_are_tangent_to_the_unit_sphere():
    model = ms.models.spatial.rssr()
    mech = model.mechanism
    s = mech.sensitivity(["output.frame1"])
    q = mech.parameters()["output.frame1"]
    # a change along the quaternion itself only rescales it: nothing moves
    assert np.max(np.abs(s["output.frame1"] @ q)) < 1e-13
    assert np.max(np.abs(s["output.frame1"])) > 0.1
