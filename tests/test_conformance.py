"""Every concrete Joint class against the kernel contract of ``mechsolve/joints/base.py``.

One table of builders (``tests/_joint_cases.py``: planar and spatial joints and drivers,
``GenericJoint`` subsets, the angle couplers, link joints, the serial chain, every end effector
kind, coordinate drivers and the symbolic catalog classes) and, for each case:

1. the Jacobian blocks of ``_evaluate`` against central differences of ``_phi`` with respect
   to each slot's increment (planar ``(dx, dy, dtheta)``, spatial ``(dr, dphi)`` applied as
   ``q <- exp(dphi) q``, joint coordinates added), written here with quaternion helpers of
   their own; ``Joint._numeric_jacobian`` (the base class's reference) is checked against the
   same differences;
2. ``_gamma`` against ``-d2 Phi / dt2`` at ``t = 0`` along a motion at constant velocity
   (spatial: constant global angular velocity through the exponential map), for which the
   acceleration term ``J nudot`` vanishes; the rate ``J nu`` against ``dPhi/dt`` on the way;
3. a leading batch axis with stacked parameters against item-by-item evaluation;
4. ``_phi`` against the first output of ``_evaluate``;
5. a pickle round trip of the mechanism keeps the joint's residual.

The differences are five-point stencils at two step sizes; a sample where the two disagree
(the stencil straddles a jump of a wrapped angle or rotation-vector row, or the derivatives
there are too large for the stencil) is not a check of the kernel and is left out, and each
case must keep most of its samples. A last test walks ``Joint.__subclasses__()`` and fails
for a concrete class without a builder.
"""

import pickle
import zlib

import numpy as np
import pytest
from _joint_cases import (
    CASES,
    CATALOG_CALLS,
    SKIPPED,
    case_class,
    displace,
    family_of,
    package_classes,
    qualified,
    random_args,
    random_rates,
    slot_kinds,
    slot_width,
)
from _round_off import assert_same_residuals, assert_same_to_round_off, magnitude

from mechsolve.joints.base import Joint
from mechsolve.symbolic import catalog
from mechsolve.symbolic._joint import SymbolicJoint

N_SAMPLES = 8          # random poses per case (one kernel call, a leading axis of samples)
MIN_CHECKED = 6        # samples a case must keep after screening
JAC_RTOL = 1e-7        # |J - J_fd| <= JAC_RTOL * max(1, |J_fd|), entry by entry
GAMMA_RTOL = 1e-6      # |gamma + Phi''| <= GAMMA_RTOL * max(1, |Phi''|)
RATE_RTOL = 1e-7
JAC_STEP = 1e-3
TIME_STEP = 2e-3


def _rng(case: str, salt: int) -> np.random.Generator:
    return np.random.default_rng([zlib.crc32(case.encode()), salt])


def _build(case: str, salt: int = 0):
    joint = CASES[case](_rng(case, 1000 + salt))
    return joint, type(joint)


def _stencils(values, h):
    """First and second derivatives at 0, five-point stencils of steps ``h`` and ``h / 2``,
    from values at the offsets :data:`OFFSETS` times ``h`` (leading axis)."""
    at = dict(zip(OFFSETS, values))
    out = []
    for step, (m2, m1, p1, p2) in ((h, (-2.0, -1.0, 1.0, 2.0)), (h / 2, (-1.0, -0.5, 0.5, 1.0))):
        d1 = (at[m2] - 8 * at[m1] + 8 * at[p1] - at[p2]) / (12 * step)
        d2 = (-at[m2] + 16 * at[m1] - 30 * at[0.0] + 16 * at[p1] - at[p2]) / (12 * step * step)
        out.append((d1, d2))
    return out


#: Offsets (in units of the step) at which Phi is evaluated, all in one kernel call.
OFFSETS = (-2.0, -1.0, -0.5, 0.0, 0.5, 1.0, 2.0)


def _converged(a, b, rtol):
    """Samples ``(N, k)`` where two estimates ``(N, k, ...)`` agree entry by entry."""
    bad = np.abs(a - b) > rtol * np.maximum(1.0, np.abs(b))
    return ~bad.reshape(bad.shape[:2] + (-1,)).any(axis=-1)


def _along(cls, P, X, kinds, slot, D):
    """``_phi`` with slot ``slot`` displaced by each increment of ``D (L, width)`` (or every
    slot by ``D[s] (L, ..., width)`` when ``slot`` is None), one kernel call: ``(L, ...)``."""
    L = len(D) if slot is not None else len(D[0])
    args = []
    for s, (x, kind) in enumerate(zip(X, kinds)):
        if slot is None:
            d = D[s]
        elif s == slot:
            d = D.reshape((L,) + (1,) * (x.ndim - 1) + (-1,))
        else:
            args.append(np.broadcast_to(x, (L,) + x.shape).copy())
            continue
        args.append(displace(np.broadcast_to(x, (L,) + x.shape), kind, d))
    return cls._phi(P, *args)


def _fd_jacobian(cls, P, X, kinds, widths, h):
    """Central differences of ``_phi`` along each increment column of each slot: the blocks at
    steps ``h`` and ``h / 2``."""
    coarse, fine = [], []
    for s, width in enumerate(widths):
        # (offset, column) pairs, flattened: increments t e_c
        D = np.einsum("o,cw->ocw", h * np.array(OFFSETS), np.eye(width)).reshape(-1, width)
        phi = _along(cls, P, X, kinds, s, D)
        phi = phi.reshape((len(OFFSETS), width) + phi.shape[1:])
        (d1, _), (d1_fine, _) = _stencils(np.moveaxis(phi, 1, -1), h)
        coarse.append(d1)
        fine.append(d1_fine)
    return coarse, fine


def _assert_close(got, want, ok, rtol, what):
    err = np.abs(got - want) / np.maximum(1.0, np.abs(want))
    err = err[ok]
    worst = float(err.max(initial=0.0))
    assert worst <= rtol, f"{what}: worst relative error {worst:.3g} (tolerance {rtol:g})"


CASE_IDS = sorted(CASES)


# -- 1 and 4: Jacobian blocks, and _phi == _evaluate[0] ------------------------------------------
@pytest.mark.parametrize("case", CASE_IDS)
def test_jacobian_matches_central_differences(case):
    joint, cls = _build(case)
    rng = _rng(case, 1)
    kinds = slot_kinds(joint)
    widths = [slot_width(joint, k) for k in kinds]
    P = joint._p[None, :]
    X = random_args(joint, rng, (N_SAMPLES, 1))
    m = joint.n_equations

    # analytic blocks: a class inheriting the base class's finite-difference _evaluate would
    # only compare differences with differences here
    assert cls._evaluate.__func__ is not Joint._evaluate.__func__, cls.__name__
    phi, blocks = cls._evaluate(P, *X)
    assert phi.shape == (N_SAMPLES, 1, m)
    assert [b.shape for b in blocks] == [(N_SAMPLES, 1, m, w) for w in widths]

    coarse, fine = _fd_jacobian(cls, P, X, kinds, widths, JAC_STEP)
    ok = np.ones((N_SAMPLES, 1), dtype=bool)
    for a, b in zip(coarse, fine):
        ok &= _converged(a, b, 1e-2 * JAC_RTOL)
    assert ok.sum() >= MIN_CHECKED, f"only {ok.sum()} of {N_SAMPLES} samples usable"

    numeric = cls._numeric_jacobian(P, *X)
    for s, (J, Jn, Jfd) in enumerate(zip(blocks, numeric, fine)):
        _assert_close(J, Jfd, ok, JAC_RTOL, f"{cls.__name__} slot {s} ({kinds[s]})")
        # the base class's reference (central differences through base._perturb)
        _assert_close(Jn, Jfd, ok, JAC_RTOL, f"Joint._numeric_jacobian, slot {s} ({kinds[s]})")


@pytest.mark.parametrize("case", CASE_IDS)
def test_phi_is_the_first_output_of_evaluate(case):
    joint, cls = _build(case)
    X = random_args(joint, _rng(case, 4), (N_SAMPLES, 1))
    P = joint._p[None, :]
    np.testing.assert_allclose(cls._phi(P, *X), cls._evaluate(P, *X)[0], rtol=1e-12,
                               atol=1e-12)


# -- 2: gamma --------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASE_IDS)
def test_gamma_is_minus_the_second_time_derivative(case):
    joint, cls = _build(case)
    rng = _rng(case, 2)
    kinds = slot_kinds(joint)
    P = joint._p[None, :]
    X = random_args(joint, rng, (N_SAMPLES, 1))
    V = random_rates(joint, rng, (N_SAMPLES, 1))

    t = TIME_STEP * np.array(OFFSETS)
    phi = _along(cls, P, X, kinds, None,
                 [np.einsum("o,...w->o...w", t, v) for v in V])
    (d1, d2), (d1_fine, d2_fine) = _stencils(phi, TIME_STEP)
    ok = _converged(d2, d2_fine, 0.5 * GAMMA_RTOL) & _converged(d1, d1_fine, 0.5 * RATE_RTOL)
    assert ok.sum() >= MIN_CHECKED, f"only {ok.sum()} of {N_SAMPLES} samples usable"

    gamma = cls._gamma(P, *X, *V)
    assert gamma.shape == (N_SAMPLES, 1, joint.n_equations)
    _, blocks = cls._evaluate(P, *X)
    rate = sum(np.einsum("...ij,...j->...i", J, v) for J, v in zip(blocks, V))
    _assert_close(rate, d1_fine, ok, RATE_RTOL, f"{cls.__name__} J nu vs dPhi/dt")
    _assert_close(-gamma, d2_fine, ok, GAMMA_RTOL, f"{cls.__name__} -gamma vs d2Phi/dt2")


# -- 3: the batch axis -------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASE_IDS)
def test_batch_axis_equals_item_by_item(case):
    B, k = 3, 2
    instances = [_build(case, salt)[0] for salt in range(k)]
    cls = type(instances[0])
    assert all(type(j) is cls for j in instances)
    # parameters differ along both axes: the two instances' rows in turn
    P = np.stack([[instances[(b + i) % k]._p for i in range(k)] for b in range(B)])
    rng = _rng(case, 3)
    X = random_args(instances[0], rng, (B, k))
    V = random_rates(instances[0], rng, (B, k))
    phi, blocks = cls._evaluate(P, *X)
    phi_only = cls._phi(P, *X)
    gamma = cls._gamma(P, *X, *V)
    # the base class's numeric gamma takes its step from the largest speed of the whole call
    gamma_tol = 1e-8 if cls._gamma.__func__ is Joint._gamma.__func__ else 1e-13
    for b in range(B):
        for i in range(k):
            one = (slice(b, b + 1), slice(i, i + 1))
            Xi = [x[b, i:i + 1] for x in X]
            p1, b1 = cls._evaluate(P[b, i:i + 1], *Xi)
            np.testing.assert_allclose(phi[one][0], p1, rtol=1e-13, atol=1e-13)
            np.testing.assert_allclose(phi_only[one][0], cls._phi(P[b, i:i + 1], *Xi),
                                       rtol=1e-13, atol=1e-13)
            assert len(blocks) == len(b1)
            for J, J1 in zip(blocks, b1):
                np.testing.assert_allclose(J[one][0], J1, rtol=1e-13, atol=1e-13)
            g1 = cls._gamma(P[b, i:i + 1], *Xi, *(v[b, i:i + 1] for v in V))
            np.testing.assert_allclose(gamma[one][0], g1, rtol=gamma_tol, atol=gamma_tol)


# -- 5: pickling inside a mechanism -------------------------------------------------------------
@pytest.mark.parametrize("case", CASE_IDS)
def test_pickled_mechanism_keeps_the_residual(case):
    joint, cls = _build(case)
    mech = joint.mechanism
    assert mech is not None
    index = mech.joints.index(joint)
    before = joint.residual()
    # random poses: a residual worth comparing (a limit-only joint has none: its measure)
    if joint.n_equations:
        assert np.any(before != 0.0)
    else:
        before = np.array([joint.limit_measure()])
    clone = pickle.loads(pickle.dumps(mech))
    twin = clone.joints[index]
    assert qualified(type(twin)) == qualified(cls)
    assert twin.mechanism is clone and twin is not joint
    # to round-off: the same numbers, in other memory (issue 26)
    assert_same_to_round_off(twin.residual() if joint.n_equations else
                             np.array([twin.limit_measure()]), before,
                             magnitude(mech, mech.state) * max(1.0, mech.length_scale))
    assert_same_residuals(mech, clone.residuals(), mech.residuals())


# -- coverage ----------------------------------------------------------------------------------
def test_every_concrete_joint_class_has_a_builder():
    covered = {qualified(case_class(c)) for c in CASES}
    discovered = package_classes()
    names = {qualified(c) for c in discovered if family_of(c) is None}
    missing = sorted(names - covered - set(SKIPPED))
    assert not missing, f"Joint classes without a case in tests/_joint_cases.py: {missing}"
    # skip entries must name classes that exist and are not built (no stale entries)
    assert set(SKIPPED) <= names, sorted(set(SKIPPED) - names)
    assert not set(SKIPPED) & covered
    # generated subclasses: any subset of rows may exist (other tests make all 63); each
    # dispatcher has a few built here
    families = {family_of(c) for c in discovered} - {None}
    for fam in families:
        built = {c for c in map(case_class, CASES) if family_of(c) is fam}
        assert len(built) >= 1, fam.__name__
    # the symbolic classes are those of the catalog: every function of catalog.__all__ runs
    assert {fn for fn, _ in CATALOG_CALLS} == set(catalog.__all__)
    symbolic = {qualified(c) for c in discovered if issubclass(c, SymbolicJoint)}
    assert symbolic <= covered | set(SKIPPED)


@pytest.mark.parametrize("case", sorted(CASES))
def test_the_parameter_layout_names_every_parameter(case):
    """Every class declares a layout whose parts tile its parameter vector in order (a part
    of variable size, a serial chain's joints or a centre of mass's bodies, takes what the
    fixed parts leave), and each part reads back through ``param()`` and ``cls.sl``."""
    joint = CASES[case](np.random.default_rng(1))
    cls = type(joint)
    assert cls.layout, f"{cls.__name__} declares no parameter layout"
    n = len(joint._p)
    covered = []
    for name, size in cls.layout:
        sl = cls._slices[name]
        indices = list(range(n))[sl]
        if size is not None:
            assert len(indices) == size, (name, sl)
        covered += indices
        part = np.atleast_1d(joint.param(name))
        np.testing.assert_array_equal(part, joint._p[sl])
        # the kernels' accessor: an index for a one-number part, else the same slice
        np.testing.assert_array_equal(np.atleast_1d(joint._p[getattr(cls.sl, name)]), part)
        assert isinstance(getattr(cls.sl, name), int) == (size == 1)
    assert covered == list(range(n)), cls.layout


def test_parameter_slices_of_a_layout_with_a_part_of_variable_size():
    from mechsolve.joints.base import ParameterSlices

    sl = ParameterSlices((("head", 2), ("rest", None), ("target", 3), ("value", 1)))
    v = np.arange(12.0)
    np.testing.assert_array_equal(v[sl.head], [0, 1])
    np.testing.assert_array_equal(v[sl.rest], np.arange(2, 8))
    np.testing.assert_array_equal(v[sl.target], [8, 9, 10])
    assert v[sl.value] == 11 and sl.check(6) and not sl.check(5)
    with pytest.raises(TypeError, match="variable size"):
        len(sl)
    with pytest.raises(TypeError, match="one part of variable size"):
        ParameterSlices((("a", None), ("b", None)))
    fixed = ParameterSlices((("p", 2), ("L", 1)))
    assert len(fixed) == 3 and fixed.check(3) and not fixed.check(4)


def test_a_joint_whose_parameters_do_not_fit_its_layout_is_refused():
    import mechsolve as ms

    class Misfit(Joint):
        n_equations = 1
        layout = (("point", 2), ("radius", 1))

        def __init__(self, body, *, name=None):
            super().__init__((body,), [0.0, 0.0], name=name)

        @classmethod
        def _phi(cls, P, X):
            return X[..., :1]

    mech = ms.Mechanism()
    with pytest.raises(TypeError, match=r"Misfit: 2 parameters do not fit the class's layout"):
        Misfit(mech.add_body("b"))


def test_kernels_read_parameters_by_name():
    """No built-in joint reads its parameters by raw offset (``P[..., 4]``, ``self._p[14:17]``):
    they name the part of the layout (``P[..., cls.sl.length]``)."""
    import pathlib
    import re

    import mechsolve.joints

    folder = pathlib.Path(mechsolve.joints.__file__).parent
    raw = re.compile(r"\b(P|_p|L)\[(\.\.\., *)?(None, *)?-?\d")
    found = [f"{path.name}:{i}: {line.strip()}"
             for path in sorted(folder.glob("*.py"))
             for i, line in enumerate(path.read_text().splitlines(), 1)
             if raw.search(line)]
    assert not found, "\n".join(found)


@pytest.mark.parametrize("case", CASE_IDS)
def test_parameter_properties_read_their_own_part(case):
    """Every parameter read through a property generated from the layout reads this class's
    part of the parameters: a spatial twin does not inherit its planar class's slices (a
    SpatialDistance's ``length`` once read the frame's quaternion)."""
    joint, cls = _build(case)
    for name, sl in type(joint)._slices.items():
        prop = getattr(type(joint), name, None)
        if isinstance(prop, property) and hasattr(prop.fget, "_param_slice"):
            value = np.atleast_1d(getattr(joint, name))
            np.testing.assert_array_equal(value, joint._p[sl])


def test_spatial_distance_length_reads_and_sets_the_length():
    import mechsolve as ms

    rod = ms.models.spatial.rssr().mechanism.joint("rod")
    assert rod.length == rod.param("length") == rod._p[14]
    rod.length = 2.75
    assert rod.param("length") == 2.75


LIMITED_CASES = [c for c in CASE_IDS if CASES[c](_rng(c, 0)).limit_quantity is not None]


@pytest.mark.parametrize("case", LIMITED_CASES)
def test_limit_measure_gradient_matches_central_differences(case):
    """The gradient of every limited quantity (a revolute's angle, a slide, a link joint's
    coordinate, a distance, a ball's cone angle) against central differences of the measure,
    body slot by body slot, at random poses (away from a cone angle of 0, where it has no
    gradient)."""
    joint, cls = _build(case)
    rng = _rng(case, 7)
    P = joint._p[None]
    kinds = slot_kinds(joint)
    h = 1e-6
    for _ in range(3):
        X = random_args(joint, rng, (1,))
        _, blocks = cls._limit_measure(P, *X)
        for s, kind in enumerate(kinds):
            for c in range(slot_width(joint, kind)):
                d = np.zeros(slot_width(joint, kind))
                d[c] = h
                up, down = list(X), list(X)
                up[s] = displace(X[s], kind, d)
                down[s] = displace(X[s], kind, -d)
                num = (cls._limit_measure(P, *up)[0] - cls._limit_measure(P, *down)[0]) / (2 * h)
                assert num[0] == pytest.approx(blocks[s][0][c], abs=1e-7), (case, s, c)
