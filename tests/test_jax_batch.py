"""mech.solve_batch(..., backend="jax") and arm.ik(..., backend="jax"): the Newton core's rules
traced by JAX, against the NumPy path to 1e-12 and the four-bar's closed form; design sweeps on
a dask cluster whose workers declare GPUs, identical to one process."""

from __future__ import annotations

import numpy as np
import pytest
from closed_form import fourbar_state, planar_state_error
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve as ms
from mechsolve import newton as core

jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra: pip install "
                          "'mechsolve[jax]'")
jnp = jax.numpy

B = 96   # one batch shape for the four-bar batches here: one compile per structure


def fourbar(unit=1.0, origin=(0.0, 0.0)):
    """``ms.models.fourbar()`` with every length times ``unit``, the crank's pivot at
    ``origin`` (the closed form's frame moved there)."""
    model = ms.models.fourbar()
    mech = model.mechanism
    o = np.asarray(origin, dtype=float)
    p = mech.parameters()
    mech.set_parameters({k: v * unit for k, v in p.items() if k.endswith(("point1", "point2"))})
    mech.set_parameters({"O2.point1": o, "O4.point2": o + (4.0 * unit, 0.0)})
    q = mech.state
    q.reshape(3, 3)[:, :2] = q.reshape(3, 3)[:, :2] * unit + o
    mech.state = q
    mech.solve()
    return model


def batch_items(unit=1.0, origin=(0.0, 0.0), seed=0):
    """Crank angles and ground lengths ``d`` of ``B`` items (Grashof crank-rockers), and the
    ``params`` of solve_batch for them."""
    rng = np.random.default_rng(seed)
    t = rng.uniform(0.0, 2.0 * np.pi, B)
    d = rng.uniform(3.8, 4.2, B)
    o = np.asarray(origin, dtype=float)
    return t, d, {"motor.value": t, "O4.point2": unit * np.c_[d, np.zeros(B)] + o}


def exact_states(t, d, unit=1.0):
    """The closed form's states of the items (crank angles ``t``, ground lengths ``d``)."""
    return np.array([fourbar_state(ti, a=unit, b=3.0 * unit, c=3.5 * unit, d=di * unit)
                     for ti, di in zip(t, d)])


def same_states(a, b, ok, size):
    """Largest difference of the states of the items ``ok``, lengths in units of ``size``."""
    scale = np.where(np.tile([True, True, False], a.shape[-1] // 3), size, 1.0)
    return float(np.max(np.abs(a - b)[ok] / scale, initial=0.0))


# -- the rules, traced ---------------------------------------------------------------------------
finite = st.floats(-1e3, 1e3, allow_nan=False)
positive = st.floats(1e-12, 1e3)


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(positive, positive, positive, st.floats(1e-4, 1.0),
                          st.booleans(), st.booleans(), finite, positive), min_size=6,
                max_size=6))   # (one shape: JAX compiles each operation once)
def test_the_rules_decide_alike_on_numpy_and_on_jax(rows):
    from mechsolve._jax.newton import traced_ops
    from mechsolve._jax.sweep import _x64

    nd, nb, dd, lam, good, raised, fn, cap = (np.array(c) for c in zip(*rows))
    ops = traced_ops(jnp)
    np_ = core._Items
    with _x64(jax), np.errstate(all="ignore"):   # (as the batch path quiets NumPy)
        J = {k: jnp.asarray(v) for k, v in dict(nd=nd, nb=nb, dd=dd, lam=lam, good=good,
                                                 raised=raised, fn=fn, cap=cap).items()}
        pairs = [
            (core._theta(np_, good, nb, nd), core._theta(ops, J["good"], J["nb"], J["nd"])),
            (core._first_damping(np_, cap, dd, nd, nb, lam, 1e-4),
             core._first_damping(ops, J["cap"], J["dd"], J["nd"], J["nb"], J["lam"], 1e-4)),
            (core._error_gain(np_, nb / nd), core._error_gain(ops, J["nb"] / J["nd"])),
            (core._stop_status(np_, raised, good, fn),
             core._stop_status(ops, J["raised"], J["good"], J["fn"])),
            (core._after_failure(np_, good, raised, True),
             core._after_failure(ops, J["good"], J["raised"], True)),
            (core._lm_gain_ratio(np_, good, nd, nb, fn),
             core._lm_gain_ratio(ops, J["good"], J["nd"], J["nb"], J["fn"])),
            (core._lm_accepted(np_, fn, lam)[0], core._lm_accepted(ops, J["fn"], J["lam"])[0]),
            (core.residual_tolerance(1e-10, np.c_[fn, nd], np.ones(2)),
             core.residual_tolerance(1e-10, jnp.stack([J["fn"], J["nd"]], 1), jnp.ones(2),
                                     xp=jnp)),
        ]
        pairs += list(zip(core._after_trial(np_, True, good, good & raised, lam, nd, dd, cap,
                                            raised, 1e-4),
                          core._after_trial(ops, True, J["good"], J["good"] & J["raised"],
                                            J["lam"], J["nd"], J["dd"], J["cap"], J["raised"],
                                            1e-4)))
        for a, b in pairs:
            a, b = np.asarray(a), np.asarray(b)
            if a.dtype.kind == "f":   # (a power may be rounded otherwise by XLA)
                np.testing.assert_allclose(b, a, rtol=1e-14, atol=0)
            else:
                np.testing.assert_array_equal(b, a)


def test_after_failure_is_one_rule_for_every_driver():
    # (a failed damping: converged where the residual is met, least squares where LU gave the
    # step and the mode allows it, else no progress) on one item's bools and on arrays
    from mechsolve._result import CONVERGED, NO_PROGRESS, RUNNING

    table = {(True, False, True): CONVERGED, (False, False, True): RUNNING,
             (False, True, True): NO_PROGRESS, (False, False, False): NO_PROGRESS}
    for (met, lsq, auto), want in table.items():
        assert core._after_failure(core._Item, met, lsq, auto) == want
    got = core._after_failure(core._Items, np.array([k[0] for k in table]),
                              np.array([k[1] for k in table]),
                              np.array([k[2] for k in table]))
    assert got.tolist() == list(table.values())


def test_the_traced_linear_step_is_lapack_s():
    # the written-out LU of the linear-algebra layer against LAPACK (solution, sign of det),
    # the truncated SVD's minimum-norm step on a singular matrix, and the pivot test
    from mechsolve._jax.sweep import _x64
    from mechsolve.linalg import TracedStep, traced_lu, traced_solve

    rng = np.random.default_rng(8)
    with _x64(jax):
        for n in (1, 3, 6, 9):
            A = rng.standard_normal((n, n)) * rng.uniform(1e-3, 1e3, n)[:, None]
            b = rng.standard_normal(n)
            x = np.asarray(traced_solve(jnp, jnp.asarray(A), jnp.asarray(b)))
            np.testing.assert_allclose(A @ x, b, rtol=0, atol=1e-12 * np.abs(A).max())
            lu, perm, sign = traced_lu(jnp, jnp.asarray(A))
            det = float(sign * jnp.prod(jnp.diagonal(lu)))
            assert det == pytest.approx(np.linalg.det(A), rel=1e-10)
        S = np.array([[1.0, 2.0, 0.0], [2.0, 4.0, 0.0], [0.0, 0.0, 3.0]])   # rank 2
        step = TracedStep(jnp, jnp.asarray(S), jnp.ones(3), jnp.bool_(True))
        assert bool(step.bad)
        rhs = np.array([1.0, 2.0, 3.0])
        np.testing.assert_allclose(np.asarray(step.solve_scaled(jnp.asarray(rhs))),
                                   np.linalg.pinv(S) @ rhs, rtol=0, atol=1e-14)


# -- solve_batch ---------------------------------------------------------------------------------
@pytest.mark.parametrize("unit, origin", [(1.0, (0.0, 0.0)), (1e-6, (0.0, 0.0)),
                                          (1e3, (3e3, -2e3)), (1.0, (1e5, 1e5))])
def test_solve_batch_on_jax_is_numpy_s_and_the_closed_form(unit, origin):
    model = fourbar(unit, origin)
    mech = model.mechanism
    t, d, params = batch_items(unit, origin)
    ref = mech.solve_batch(params=params)
    out = mech.solve_batch(params=params, backend="jax")
    assert out.backend == "jax" and out.dtype == "float64" and out.handed_over.size == 0
    assert out.success.all() and np.array_equal(out.success, ref.success)
    assert np.array_equal(out.status, ref.status)
    assert np.array_equal(out.iterations, ref.iterations)   # the same steps, item by item
    size = 4.0 * unit
    assert same_states(out.states, ref.states, ref.success, size) <= 1e-12
    # every pose against the closed form (moved to the origin), from the pose itself
    exact = exact_states(t, d, unit)
    exact.reshape(B, 3, 3)[:, :, :2] += np.asarray(origin)
    pos, ang = planar_state_error(out.states, exact, size)
    far = max(1.0, np.max(np.abs(origin)) / size)   # the coordinates' own round-off
    assert pos <= 1e-12 * far and ang <= 1e-12 * far
    # the mechanism is left as it was
    np.testing.assert_array_equal(mech.state, fourbar(unit, origin).mechanism.state)


def test_solve_batch_on_jax_hands_over_what_it_does_not_decide():
    # far starts: some items need damping below NEAR_LAMBDA_MIN (solve() then assembles them
    # joints first) and an item has no assembly (its ground length beyond a + b + c): the
    # device gives them to the NumPy path, and the answers are the NumPy path's
    model = fourbar()
    mech = model.mechanism
    rng = np.random.default_rng(5)
    t, d, params = batch_items(seed=5)
    params["O4.point2"][7] = (9.0, 0.0)
    starts = mech.state + rng.uniform(-1.5, 1.5, (B, 9))
    ref = mech.solve_batch(starts, params=params, raise_on_failure=False)
    # (in device calls of 40 items, the last padded: 40 + 40 + 16)
    out = mech.solve_batch(starts, params=params, raise_on_failure=False, backend="jax",
                           chunk=40)
    assert np.array_equal(out.success, ref.success) and not out.success[7]
    assert 7 in out.handed_over.tolist() and out.handed_over.size < B // 2
    assert same_states(out.states, ref.states, ref.success, 4.0) <= 1e-12
    with pytest.raises(ms.SolveError, match=r"1 of 96 batch items did not converge \(items "
                                            r"\[7\]\)"):
        mech.solve_batch(params=params, backend="jax")


def test_solve_batch_on_jax_in_float32():
    model = fourbar()
    mech = model.mechanism
    t, d, params = batch_items(seed=2)
    out = mech.solve_batch(params=params, backend="jax", dtype="float32")
    assert out.dtype == "float32" and out.success.all()
    exact = exact_states(t, d)
    pos, ang = planar_state_error(out.states, exact, 4.0)
    assert pos <= 1e-5 and ang <= 1e-5   # single precision: about 1e-6 of the model's size
    assert np.max(out.residual) <= 64 * np.finfo(np.float32).eps + 1e-10


def test_solve_batch_backend_arguments_are_checked():
    model = fourbar()
    mech = model.mechanism
    with pytest.raises(ValueError, match='backend must be "numpy", "jax", "numba" or "auto", '
                                         "got 'cuda'"):
        mech.solve_batch(values={model.driver: [0.1, 0.2]}, backend="cuda")
    with pytest.raises(ValueError, match='dtype= is for backend="jax"'):
        mech.solve_batch(values={model.driver: [0.1, 0.2]}, dtype="float32")
    with pytest.raises(ValueError, match='dtype must be "float64" or "float32", got '
                                         "'float16'"):
        mech.solve_batch(values={model.driver: [0.1, 0.2]}, backend="jax", dtype="float16")
    with pytest.raises(ValueError, match="chunk must be at least 1, got 0"):
        mech.solve_batch(values={model.driver: [0.1, 0.2]}, backend="jax", chunk=0)
    spatial = ms.Mechanism(dim=3)
    ball = spatial.add_body("ball", position=(0.0, 0.0, 1.0))
    spatial.add(ms.joints.Spherical(spatial.ground, ball, ms.Frame(), ms.Frame((0, 0, -1))))
    spatial.add(ms.joints.OrientationEndEffector(ball, target=ms.Frame(), name="aim"))
    with pytest.raises(TypeError, match=r"no traceable kernel for joint 'aim' \(class "
                                        r"OrientationEndEffector\); for spatial mechanisms it "
                                        r"supports .*SpatialAngleDriver.*Spherical"):
        spatial.solve_batch(np.repeat(spatial.state[None], 2, axis=0), backend="jax")


# -- inverse kinematics --------------------------------------------------------------------------
def ik_case(arm, n=40, seed=11):
    """Targets of random joint vectors: near starts, zero starts, one target out of reach."""
    rng = np.random.default_rng(seed)
    Qt = rng.uniform(-2.0, 2.0, (n, 6))   # (within the limits below)
    T = arm.forward(Qt).as_matrix()
    Q0 = Qt + 0.05 * rng.standard_normal((n, 6))
    Q0[n // 2:] = 0.0
    T[3, :3, 3] = (3.0, 0.0, 0.5)   # beyond the UR5's reach
    return T, Q0


def same_answers(arm, T, Q0, out, ref):
    """The joint vectors of the targets met to 1e-12; a missed target's closest pose (a
    least-squares point, where Levenberg-Marquardt converges linearly: the NumPy path itself
    lands some 1e-8 apart for it alone and in a batch) by its errors. From far starts the
    NumPy path's batch and one-target drivers of Levenberg-Marquardt (LU and Cholesky of the
    damped normal equations) may part on the way and meet a target at different joint vectors
    (both exact): a target whose answer is not the batch's is the NumPy path's for it alone
    (the device runs the one-target driver's algorithm); a few at most."""
    ok = ref.success
    apart = np.flatnonzero(ok & (np.abs(out.q - ref.q).max(axis=1) > 1e-12))
    assert apart.size <= 2
    for k in apart.tolist():
        alone = arm.ik(T[k:k + 1], Q0[k:k + 1], backend="numpy", raise_on_failure=False)
        np.testing.assert_allclose(out.q[k], alone.q[0], rtol=0, atol=1e-12)
    ok[apart] = False
    np.testing.assert_allclose(out.q[ok], ref.q[ok], rtol=0, atol=1e-12)
    miss = ~ref.success
    np.testing.assert_allclose(out.position_error[miss], ref.position_error[miss], rtol=1e-6,
                               atol=1e-12)
    np.testing.assert_allclose(out.orientation_error[miss], ref.orientation_error[miss],
                               rtol=1e-6, atol=1e-12)


@pytest.mark.parametrize("limits", [None, [(-2 * np.pi, 2 * np.pi)] * 3 + [(-2.0, 2.0)] * 3])
def test_ik_on_jax_is_numpy_s(limits):
    arm = ms.robots.ur5(limits=limits)
    T, Q0 = ik_case(arm)
    ref = arm.ik(T, Q0, backend="numpy", raise_on_failure=False)
    out = arm.ik(T, Q0, backend="jax", raise_on_failure=False)
    assert out.backend == "jax"
    assert np.array_equal(out.success, ref.success) and np.array_equal(out.status, ref.status)
    assert not out.success[3] and out.success.sum() == len(T) - 1
    assert out.handed_over.tolist() == [3]   # the one target missed: the NumPy path's answer
    same_answers(arm, T, Q0, out, ref)
    # met by the forward kinematics of the joint values returned
    F = arm.forward(out.q[out.success]).as_matrix()
    np.testing.assert_allclose(F[:, :3, 3], T[out.success][:, :3, 3], rtol=0, atol=1e-10)
    np.testing.assert_allclose(F[:, :3, :3], T[out.success][:, :3, :3], rtol=0, atol=1e-10)


def test_ik_on_jax_from_far_starts_takes_the_restarts():
    # zero starts far from the targets: Levenberg-Marquardt and the restarts decide, the
    # same restart as the NumPy path for every target
    arm = ms.robots.ur5()
    T, Q0 = ik_case(arm, seed=12)
    Q0[:] = 0.0
    ref = arm.ik(T, Q0, backend="numpy", raise_on_failure=False)
    out = arm.ik(T, Q0, backend="jax", raise_on_failure=False)
    assert np.array_equal(out.success, ref.success)
    assert out.handed_over.tolist() == [3]
    same_answers(arm, T, Q0, out, ref)
    assert np.abs(out.iterations - ref.iterations).max() <= 8


# -- dask ----------------------------------------------------------------------------------------
@pytest.mark.parametrize("gpu_workers", [0, 2])
def test_design_sweep_on_jax_over_dask_workers_is_identical(gpu_workers):
    distributed = pytest.importorskip("distributed", reason="dask[distributed] is an optional "
                                      "extra: pip install 'mechsolve[dask]'")
    import copy

    model = ms.models.fourbar()
    rng = np.random.default_rng(3)
    D = 24
    designs = {"O4.point2": np.c_[4 + 0.1 * rng.uniform(-1, 1, D), 0.1 * rng.uniform(-1, 1, D)]}
    designs["O4.point2"][5] = (7.0, 0.0)   # not Grashof: it stops at a limit position
    values = np.radians(np.arange(5.0, 360.0, 10.0))
    one = ms.design.sweep(model.mechanism, designs, model.driver, values, backend="jax",
                          chunk=8)
    assert one.handed_over.tolist() == [5] and not one.success[5].all()
    # two workers without GPUs and ``gpu_workers`` that declare a (fake) GPU each: whole
    # chunks in one part per GPU worker, and on those alone; without any, one part per worker
    # (workers in this process: they share its compiled sweep; in processes of their own, as
    # on a cluster, the results are the same bit for bit too, each compiling it once)
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=False,
                                  dashboard_address=None) as cluster, \
            distributed.Client(cluster) as client:
        plain = set(client.scheduler_info()["workers"])
        for k in range(gpu_workers):
            spec = copy.deepcopy(next(iter(cluster.worker_spec.values())))
            spec["options"].update(resources={"GPU": 1}, dashboard=False)
            cluster.worker_spec[f"gpu{k}"] = spec
        cluster.sync(cluster._correct_state)
        client.wait_for_workers(2 + gpu_workers)
        gpus = set(client.scheduler_info()["workers"]) - plain
        with distributed.get_task_stream(client) as ts:
            two = ms.design.sweep(model.mechanism, designs, model.driver, values,
                                  backend="jax", chunk=8, client=client)
    parts = [t["worker"] for t in ts.data if t["key"].startswith("_part")]
    assert len(parts) == 2 and set(parts) == (gpus if gpu_workers else plain)
    for key in ("success", "iterations", "failed_at", "reason", "reached", "handed_over"):
        assert np.array_equal(np.asarray(two[key]), np.asarray(one[key]), equal_nan=key ==
                              "reached"), key
    assert np.array_equal(two.states, one.states, equal_nan=True)   # bit for bit
