"""ms.design.sweep(..., backend="jax"): the same family as the NumPy path, to round-off, and
every pose against the four-bar's and the slider-crank's closed forms."""

from __future__ import annotations

import numpy as np
import pytest

import mechsolve as ms

jax = pytest.importorskip("jax", reason="the JAX backend is an optional extra: pip install "
                          "'mechsolve[jax]'")

VALUES = np.radians(np.arange(5.0, 360.0, 10.0))   # 36 crank angles
CHUNK = 128    # one device batch shape for the families here: one compile per structure


def fourbar_family(n=1000, seed=7, unit=1.0, origin=(0.0, 0.0)):
    """``n`` four-bars around ``ms.models.fourbar()`` (sizes times ``unit``, the crank's
    pivot at ``origin``): Grashof crank-rockers, a fifth of them with long cranks (2.6 to
    3.0: no longer Grashof, they stop at a limit position), a narrow gap and a
    parallelogram (its branches cross at 180 degrees)."""
    rng = np.random.default_rng(seed)
    crank = 0.5 + 0.1 * rng.uniform(-1, 1, n)
    coupler = 1.5 + 0.1 * rng.uniform(-1, 1, n)
    rocker = 1.75 + 0.1 * rng.uniform(-1, 1, n)
    pivot = np.c_[4.0 + 0.1 * rng.uniform(-1, 1, n), 0.1 * rng.uniform(-1, 1, n)]
    long = rng.uniform(size=n) < 0.2
    crank[long] = rng.uniform(2.1, 2.5, int(long.sum()))   # crank lengths 2.6 to 3.0
    crank[3], coupler[3], rocker[3], pivot[3] = 2.0, 1.5, 1.746, (4.0, 0.0)   # narrow gap
    crank[4], coupler[4], rocker[4], pivot[4] = 0.5, 2.5, -0.75, (4.0, 0.0)   # parallelogram
    z = np.zeros(n)
    return {"A.point1": unit * np.c_[crank, z], "B.point1": unit * np.c_[coupler, z],
            "O4.point1": unit * np.c_[rocker, z],
            "O4.point2": unit * pivot + np.asarray(origin)}


def fourbar_model(unit=1.0, origin=(0.0, 0.0)):
    model = ms.models.fourbar(ground=4.0 * unit, crank=unit, coupler=3.0 * unit,
                              rocker=3.5 * unit)
    if origin != (0.0, 0.0):   # the whole linkage moved: both ground pivots and every body
        mech = model.mechanism
        o = np.asarray(origin)
        mech.set_parameters({"O2.point1": o, "O4.point2": o + (4.0 * unit, 0.0)})
        q = mech.state
        q[:9] += np.tile(np.r_[o, 0.0], 3)
        mech.state = q
        mech.solve()
    return model


def fourbar_closed_form(designs, unit, origin, states, ok):
    """Largest distance (over solved poses) of the coupler's and the rocker's pins from the
    closed form, and of the coupler's and rocker's angles: ``A = O2 + a (cos t, sin t)``, ``B``
    where the circles about ``A`` (radius b) and ``O4`` (radius c) meet, on the side of the
    design's first pose."""
    o = np.asarray(origin)
    a = designs["A.point1"][:, 0] + 0.5 * unit
    b = designs["B.point1"][:, 0] + 1.5 * unit
    c = designs["O4.point1"][:, 0] + 1.75 * unit
    O4 = designs["O4.point2"]
    t = VALUES[None, :]
    A = o + np.stack([a[:, None] * np.cos(t), a[:, None] * np.sin(t)], -1)
    w = O4[:, None, :] - A
    d = np.hypot(w[..., 0], w[..., 1])
    u = w / d[..., None]
    el = (b[:, None] ** 2 - c[:, None] ** 2 + d * d) / (2 * d)
    h = np.sqrt(np.maximum(b[:, None] ** 2 - el * el, 0.0))
    perp = np.stack([-u[..., 1], u[..., 0]], -1)
    th_k, th_r = states[..., 5], states[..., 8]
    pin_B = states[..., 6:8] + (-1.75 * unit) * np.stack([np.cos(th_r), np.sin(th_r)], -1)
    first = np.argmax(ok, axis=1)   # the side of each design's first solved pose
    side = np.sign(np.einsum("dk,dk->d", (pin_B - A - el[..., None] * u)[np.arange(len(a)),
                                                                          first],
                             perp[np.arange(len(a)), first]))
    B = A + el[..., None] * u + (side[:, None] * h)[..., None] * perp
    pin_A = states[..., 3:5] + (-1.5 * unit) * np.stack([np.cos(th_k), np.sin(th_k)], -1)
    coupler_B = states[..., 3:5] + designs["B.point1"][:, None, 0:1] * np.stack(
        [np.cos(th_k), np.sin(th_k)], -1)
    err_pins = max(np.max(np.hypot(*(p - q)[ok].T)) for p, q in
                   ((pin_A, A), (pin_B, B), (coupler_B, B)))
    ang_k = np.arctan2((B - A)[..., 1], (B - A)[..., 0])
    ang_r = np.arctan2((O4[:, None] - B)[..., 1], (O4[:, None] - B)[..., 0])
    err_ang = max(np.max(np.abs(np.angle(np.exp(1j * (x - y)))[ok]))
                  for x, y in ((th_k, ang_k), (th_r, ang_r)))
    return err_pins, err_ang, h


def compare_to_numpy(jx, ref, size):
    assert np.array_equal(jx.success, ref.success)
    assert np.array_equal(jx.failed_at, ref.failed_at)
    assert jx.reason.tolist() == ref.reason.tolist()
    np.testing.assert_array_equal(np.isnan(jx.reached), np.isnan(ref.reached))
    np.testing.assert_allclose(jx.reached, ref.reached, rtol=0, atol=1e-12)
    ok = ref.success
    # lengths in units of the model's size, angles as they are
    scale = np.where(np.tile([True, True, False], ref.states.shape[-1] // 3), size, 1.0)
    assert np.max(np.abs(jx.states - ref.states)[ok] / scale) <= 1e-12
    assert np.isnan(jx.states[~ok]).all()


@pytest.fixture(scope="module")
def fourbars():
    model = fourbar_model()
    designs = fourbar_family()
    ref = ms.design.sweep(model.mechanism, designs, model.driver, VALUES)
    jx = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, backend="jax",
                         chunk=CHUNK)
    return model, designs, ref, jx


def test_jax_four_bar_family_matches_numpy_designs_reasons_and_poses(fourbars):
    model, designs, ref, jx = fourbars
    assert jx.states.shape == (1000, 36, 9) and jx.states.dtype == np.float64
    kinds = set(ref.reason.tolist())
    assert {"", "limit position", "branch change"} <= kinds     # some drop out, both ways
    assert 150 <= np.count_nonzero(ref.failed_at >= 0) <= 260
    compare_to_numpy(jx, ref, 4.0)
    # only designs that NumPy's path retries (shorter steps) or drops were handed to it
    handed = np.zeros(1000, dtype=bool)
    handed[jx.handed_over] = True
    assert handed[ref.failed_at >= 0].all()
    assert np.count_nonzero(handed) <= np.count_nonzero(ref.failed_at >= 0) + 20
    assert jx.backend == "jax" and jx.dtype == "float64"


def test_jax_four_bar_poses_against_the_closed_form(fourbars):
    _, designs, ref, jx = fourbars
    ok = jx.success
    err_pins, err_ang, h = fourbar_closed_form(designs, 1.0, (0.0, 0.0), jx.states, ok)
    assert err_pins <= 1e-9 and err_ang <= 1e-9   # every pose, limit positions included
    # away from limit positions (where the closed form's own round-off, eps b^2 / h, grows)
    well = ok & (h > 0.05)
    err_pins, err_ang, _ = fourbar_closed_form(designs, 1.0, (0.0, 0.0), jx.states, well)
    assert np.count_nonzero(well) >= 0.99 * np.count_nonzero(ok)
    assert err_pins <= 1e-12 * 4.0 and err_ang <= 1e-12
    # the crank's angle is the driver's value
    np.testing.assert_allclose(jx.states[..., 2][ok], np.broadcast_to(VALUES, ok.shape)[ok],
                               rtol=0, atol=1e-14)


def test_jax_in_micrometres_far_from_the_origin():
    unit, origin = 1e-6, (3e-3, -2e-3)     # 750 model sizes from the origin
    model = fourbar_model(unit, origin)
    designs = fourbar_family(200, seed=11, unit=unit, origin=origin)
    ref = ms.design.sweep(model.mechanism, designs, model.driver, VALUES)
    jx = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, backend="jax",
                         chunk=CHUNK)
    size = 4.0 * unit
    ok = ref.success
    assert np.array_equal(jx.success, ref.success) and jx.reason.tolist() == ref.reason.tolist()
    lengths = np.tile([True, True, False], 3)
    d = np.abs(jx.states - ref.states)[ok]
    assert np.max(d[:, lengths]) <= 1e-12 * size and np.max(d[:, ~lengths]) <= 1e-12
    # against the closed form: its round-off 750 sizes from the origin is 750 times the one at
    # the origin (positions to eps of their magnitude), away from limit positions
    h_ok = ok & (fourbar_closed_form(designs, unit, origin, jx.states, ok)[2] > 0.05 * unit)
    err_pins, err_ang, _ = fourbar_closed_form(designs, unit, origin, jx.states, h_ok)
    assert err_pins <= 1e-12 * size * 750 and err_ang <= 1e-12 * 750


def test_jax_slider_crank_family_against_numpy_and_the_closed_form():
    model = ms.models.slider_crank()   # crank 1, rod 3, offset 0.5
    rng = np.random.default_rng(5)
    n = 300
    crank = 0.5 + 0.1 * rng.uniform(-1, 1, n)        # A.point1 x: crank length - 0.5
    rod = 1.5 + 0.2 * rng.uniform(-1, 1, n)          # B.point1 x: rod length - 1.5
    offset = 0.5 + 0.3 * rng.uniform(-1, 1, n)
    crank[:10] = 2.7                                 # crank 3.2 > rod: limit positions
    z = np.zeros(n)
    designs = {"A.point1": np.c_[crank, z], "B.point1": np.c_[rod, z],
               "rail.point1": np.c_[z, offset]}
    ref = ms.design.sweep(model.mechanism, designs, model.driver, VALUES)
    jx = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, backend="jax",
                         chunk=CHUNK)
    assert (ref.failed_at[:10] >= 0).all() and (ref.failed_at[10:] == -1).all()
    compare_to_numpy(jx, ref, model.mechanism.system().length_scale)
    # closed form: the slider's x = a cos t + sqrt(L^2 - (a sin t - e)^2) on the side of the
    # start (x > crank pin)
    a, L, e = crank[10:] + 0.5, rod[10:] + 1.5, offset[10:]
    t = VALUES[None, :]
    x = a[:, None] * np.cos(t) + np.sqrt(L[:, None] ** 2 - (a[:, None] * np.sin(t) - e[:, None])
                                         ** 2)
    slider = jx.states[10:, :, 6:9]
    np.testing.assert_allclose(slider[..., 0], x, rtol=0, atol=1e-12 * 3.0)
    np.testing.assert_allclose(slider[..., 1], np.broadcast_to(e[:, None], x.shape), rtol=0,
                               atol=1e-12 * 3.0)


def test_jax_float32_on_request_to_about_a_millionth():
    model = fourbar_model()
    designs = fourbar_family(100, seed=2)
    ref = ms.design.sweep(model.mechanism, designs, model.driver, VALUES)
    jx = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, backend="jax",
                         dtype="float32", chunk=CHUNK)
    assert jx.states.dtype == np.float32 and jx.dtype == "float32"
    assert jx.reason.tolist() == ref.reason.tolist()
    ok = ref.success & jx.success
    assert np.array_equal(jx.success, ref.success)
    assert np.max(np.abs(jx.states - ref.states)[ok]) <= 4e-6 * 4.0


def test_jax_outputs_keep_points():
    model = fourbar_model()
    designs = fourbar_family(128, seed=3)
    full = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, backend="jax",
                           chunk=CHUNK)
    pts = ms.design.sweep(model.mechanism, designs, model.driver, VALUES, backend="jax",
                          chunk=CHUNK, outputs=[(model.output, (0.0, 1.0))])
    assert pts.states is None and pts.points.shape == (128, 36, 1, 2)
    th = full.states[..., 5]
    np.testing.assert_allclose(pts.points[..., 0, 0], full.states[..., 3] - np.sin(th),
                               rtol=0, atol=1e-12)
    np.testing.assert_allclose(pts.points[..., 0, 1], full.states[..., 4] + np.cos(th),
                               rtol=0, atol=1e-12)


def test_jax_backend_messages():
    model = fourbar_model()
    mech = model.mechanism
    one = {"O4.point2": [(4.0, 0.0)]}
    with pytest.raises(ValueError, match=r'backend must be "numpy", "jax", "numba" or "auto", '
                                         r"got 'torch'"):
        ms.design.sweep(mech, one, model.driver, VALUES, backend="torch")
    with pytest.raises(ValueError, match=r'dtype must be "float64" or "float32", got '
                                         r"'float16'"):
        ms.design.sweep(mech, one, model.driver, VALUES, backend="jax", dtype="float16")
    with pytest.raises(ValueError, match=r'dtype= is for backend="jax"'):
        ms.design.sweep(mech, one, model.driver, VALUES, dtype="float32")
    # a joint class of one's own (Phi only, Jacobian by finite differences): no kernel to trace
    from mechsolve.joints.base import Joint

    class Anchor(Joint):   # the body's origin held at a point
        n_equations = 2
        layout = (("at", 2),)

        def __init__(self, body, at=(0.0, 0.0), *, name=None):
            super().__init__((body,), list(at), name=name)

        @classmethod
        def _phi(cls, P, X):
            return X[..., :2] - P[..., cls.sl.at]

    slotted = fourbar_model().mechanism
    rocker = slotted.body("rocker")
    slotted.remove(slotted.joint("O4"))
    slotted.add(Anchor(rocker, rocker.pose[:2], name="slot"))
    slotted.solve()
    with pytest.raises(TypeError, match=r"no traceable kernel for joint 'slot' \(class Anchor\); "
                                        r"for planar mechanisms it supports .*Revolute"):
        ms.design.sweep(slotted, {"A.point1": [(0.5, 0.0)]}, "motor", VALUES[:3],
                        backend="jax")
    rssr = ms.models.spatial.rssr()
    with pytest.raises(TypeError, match=r'backend="jax" design sweeps support planar '
                                        r'mechanisms \(dim=2\) for now; this one is spatial'):
        ms.design.sweep(rssr.mechanism, {"rod.length": [2.0]}, rssr.driver, VALUES[:3],
                        backend="jax")


def test_jax_gear_train_family_matches_numpy():
    """Gears, an internal gear, a rack and pinion, a prismatic guide: every planar joint of
    the gear train traced; the rack's travel is the pinion's radius times the angle."""
    model = ms.models.gear_train()
    rng = np.random.default_rng(9)
    n = 128
    values = np.linspace(0.0, 2.0, 9)
    designs = {"pin2.point1": np.c_[3.0 + 0.01 * rng.uniform(-1, 1, n), np.zeros(n)]}
    ref = ms.design.sweep(model.mechanism, designs, model.driver, values)
    jx = ms.design.sweep(model.mechanism, designs, model.driver, values, backend="jax",
                         chunk=CHUNK)
    assert ref.success.all() and len(jx.handed_over) == 0
    compare_to_numpy(jx, ref, model.mechanism.system().length_scale)


# -- the kernels written once, traced -------------------------------------------------------
def _planar_cases():
    from _joint_cases import PLANAR

    return [k for k in PLANAR]


@pytest.mark.parametrize("case", _planar_cases())
def test_traced_kernel_agrees_with_numpy(case):
    """Every planar class with a kernel written once gives, traced by jax.numpy, the Phi and
    Jacobian blocks of its NumPy ``_evaluate`` (one source: to round-off)."""
    from _joint_cases import CASES, random_args

    from mechsolve.joints._terms import stack_terms

    joint = CASES[f"planar {case}"](np.random.default_rng(1))
    cls = type(joint)
    if cls._terms is None:
        pytest.skip(f"{cls.__name__} has no kernel written once yet")
    rng = np.random.default_rng(2)
    P = np.repeat(joint._p[None, None], 5, axis=0) * (1 + 0.1 * rng.normal(size=(5, 1, 1)))
    args = random_args(joint, rng, (5, 1))
    phi, blocks = cls._evaluate(P, *args)
    with jax.enable_x64(True):
        import jax.numpy as jnp

        jphi, jblocks = stack_terms(jnp, *cls._terms(jnp, jnp.asarray(P),
                                                     *(jnp.asarray(a) for a in args)))
        jphi_only = stack_terms(jnp, cls._terms(jnp, jnp.asarray(P),
                                                *(jnp.asarray(a) for a in args),
                                                jacobian=False)[0])
    scale = 1.0 + np.max(np.abs(P)) + max(np.max(np.abs(a)) for a in args)
    tol = 16 * np.finfo(float).eps * scale ** 2
    np.testing.assert_allclose(np.asarray(jphi), phi, rtol=0, atol=tol)
    np.testing.assert_allclose(np.asarray(jphi_only), cls._phi(P, *args), rtol=0, atol=tol)
    for jb, b in zip(jblocks, blocks):
        np.testing.assert_allclose(np.asarray(jb), b, rtol=0, atol=tol)


@pytest.mark.parametrize("name", ["slider_crank", "watt_sixbar"])
def test_traced_system_agrees_with_numpy_evaluate(name):
    from mechsolve._jax.system import TracedSystem, solve_with_sign

    mech = getattr(ms.models, name)().mechanism
    sys = mech.system()
    traced = TracedSystem(sys)
    rng = np.random.default_rng(4)
    q = mech.state + 0.1 * rng.normal(size=sys.n_state)
    F, V = sys.evaluate(q)
    J = sys.jacobian_dense(V)
    with jax.enable_x64(True):
        import jax.numpy as jnp

        def run(q, Ps):
            F, J = traced.evaluate(jnp, q, Ps)
            return (F, J) + solve_with_sign(jnp, J, jnp.stack([-F, jnp.ones(sys.n)], axis=1))

        jF, jJ, X, sign = jax.jit(run)(jnp.asarray(q), [jnp.asarray(g.P) for g in sys.groups])
    np.testing.assert_allclose(np.asarray(jF), F, rtol=0, atol=1e-14 * 10)
    np.testing.assert_allclose(np.asarray(jJ), J, rtol=0, atol=1e-14 * 10)
    # the elimination: the solutions of J x = -F and J x = 1, and the sign of det J
    expect = np.linalg.solve(J, np.c_[-F, np.ones(sys.n)])
    np.testing.assert_allclose(np.asarray(X), expect, rtol=1e-10,
                               atol=1e-12 * np.max(np.abs(expect)))
    assert float(sign) == np.sign(np.linalg.det(J))
