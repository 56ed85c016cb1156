"""Symbolic joints: generated kernels against hand-written ones and finite differences, motion
terms, mechanisms and sweeps, the code cache, error messages, and the tutorial; planar, then
spatial (Jacobians with respect to the increment (dr, dphi), gamma with qdot = 1/2 [0; w] q, the
seed's CircleJoint against the hand-written joints.CircleJoint and the seed's formulas)."""

import doctest
import pathlib

import numpy as np
import pytest
import scipy.optimize
import sympy as sp
from _round_off import assert_same_states, assert_same_to_round_off

import mechsolve as ms
from mechsolve import joints
from mechsolve.symbolic import _codegen, _derive, body_symbols, catalog, symbolic_joint

DOCS = pathlib.Path(__file__).resolve().parents[1] / "docs"
H = 1e-6


def _random_state(rng, cls, batch=(3, 4)):
    n = len(cls.definition.bodies)
    X = [rng.normal(size=batch + (3,)) * [2.0, 2.0, np.pi] for _ in range(n)]
    if cls.own_coordinates:
        X.append(rng.normal(size=batch + (len(cls.own_coordinates),)))
    return X


def _random_params(rng, cls, k):
    P = rng.normal(size=(k, len(cls.params) + cls.time_dependent))
    if "R" in cls.params:
        P[:, cls.params.index("R")] = rng.uniform(1.0, 3.0, size=k)
    return P


def _numeric_blocks(cls, P, X):
    """Central differences of ``_phi`` for every slot (and the own-coordinate block)."""
    blocks = []
    for s, Xs in enumerate(X):
        cols = []
        for c in range(Xs.shape[-1]):
            Xp = [x.copy() for x in X]
            Xm = [x.copy() for x in X]
            Xp[s][..., c] += H
            Xm[s][..., c] -= H
            cols.append((cls._phi(P, *Xp) - cls._phi(P, *Xm)) / (2 * H))
        blocks.append(np.stack(cols, axis=-1))
    return blocks


def _time_dependent():
    (b,) = body_symbols(1)
    a, w, t = sp.symbols("a w t")
    return symbolic_joint("Wobble", bodies=[b], params=[a, w], time=t,
                          phi=[b.theta - a * sp.sin(w * t) + b.x * t**2 * sp.cos(b.theta),
                               b.y * sp.exp(t) - b.x])


CLASSES = {
    "revolute": catalog.revolute,
    "point_on_line": catalog.point_on_line,
    "circle": catalog.circle_joint,
    "cam": catalog.cam_follower,
    "time": _time_dependent,
}


# -- agreement with the hand-written joints -----------------------------------------------------
@pytest.mark.parametrize("sym, hand, p", [(catalog.revolute, joints.Revolute, 4),
                                          (catalog.point_on_line, joints.PointOnLine, 6)])
def test_generated_kernels_match_hand_written(sym, hand, p):
    rng = np.random.default_rng(1)
    cls = sym()
    for _ in range(5):
        P = rng.normal(size=(7, p))
        X = [rng.normal(size=(2, 7, 3)) * [2.0, 2.0, np.pi] for _ in range(2)]
        phi, blocks = cls._evaluate(P, *X)
        phi_h, blocks_h = hand._evaluate(P, *X)
        np.testing.assert_allclose(phi, phi_h, rtol=0, atol=1e-12)
        np.testing.assert_allclose(cls._phi(P, *X), phi_h, rtol=0, atol=1e-12)
        assert len(blocks) == len(blocks_h) == 2
        for J, Jh in zip(blocks, blocks_h):
            assert J.shape == Jh.shape == (2, 7, cls.n_equations, 3)
            np.testing.assert_allclose(J, Jh, rtol=0, atol=1e-12)


@pytest.mark.parametrize("which", sorted(CLASSES))
def test_jacobian_blocks_match_finite_differences(which):
    rng = np.random.default_rng(2)
    cls = CLASSES[which]()
    for _ in range(3):
        P = _random_params(rng, cls, 4)
        X = _random_state(rng, cls)
        phi, blocks = cls._evaluate(P, *X)
        assert phi.shape == (3, 4, cls.n_equations)
        # the two kernels group the same sums differently: equal to round-off
        np.testing.assert_allclose(phi, cls._phi(P, *X), rtol=1e-14, atol=1e-14)
        numeric = _numeric_blocks(cls, P, X)
        assert len(blocks) == len(numeric)
        for J, Jn, Xs in zip(blocks, numeric, X):
            assert J.shape == (3, 4, cls.n_equations, Xs.shape[-1])
            np.testing.assert_allclose(J, Jn, rtol=1e-7, atol=1e-7)


def test_batch_axis_and_broadcasting():
    rng = np.random.default_rng(3)
    cls = catalog.point_on_line()
    P = rng.normal(size=(5, 6))
    X1 = rng.normal(size=(8, 5, 3))
    X2 = rng.normal(size=(5, 3))  # broadcast against the batch axis
    phi, (J1, J2) = cls._evaluate(P, X1, X2)
    assert phi.shape == (8, 5, 1) and J1.shape == J2.shape == (8, 5, 1, 3)
    for b in range(8):
        # to round-off: NumPy's SIMD loops for sin and cos may round the lanes of a longer
        # array differently from a shorter one's (issue 26)
        p1, (j1, j2) = cls._evaluate(P, X1[b], X2)
        assert_same_to_round_off(phi[b], p1, max(1.0, np.max(np.abs(p1))))
        assert_same_to_round_off(J2[b], j2, max(1.0, np.max(np.abs(j2))))


def test_cse_and_plain_code_agree():
    rng = np.random.default_rng(4)
    cls = catalog.circle_joint()
    plain = symbolic_joint("CirclePlain", bodies=cls.definition.bodies,
                           params=cls.definition.params, coordinates=cls.definition.coordinates,
                           phi=list(cls.definition.phi), use_cse=False)
    assert "w0 = " in cls.source and "w0 = " not in plain.source
    P = _random_params(rng, cls, 6)
    X = _random_state(rng, cls, batch=(6,))
    V = [rng.normal(size=x.shape) for x in X]
    a, b = cls._evaluate(P, *X), plain._evaluate(P, *X)
    np.testing.assert_allclose(a[0], b[0], rtol=1e-13, atol=1e-13)
    for J, Jp in zip(a[1], b[1]):
        np.testing.assert_allclose(J, Jp, rtol=1e-13, atol=1e-13)
    np.testing.assert_allclose(cls._gamma(P, *X, *V), plain._gamma(P, *X, *V), rtol=1e-12,
                               atol=1e-12)


# -- motion terms --------------------------------------------------------------------------------
@pytest.mark.parametrize("which", sorted(CLASSES))
def test_gamma_matches_finite_differences(which):
    """gamma = -d/dt(J(q(t))) qdot - ... along q(t) = q0 + qdot t, at t = 0."""
    rng = np.random.default_rng(5)
    cls = CLASSES[which]()
    h = 1e-5
    for _ in range(3):
        P = _random_params(rng, cls, 4)
        X = _random_state(rng, cls, batch=(4,))
        V = [rng.normal(size=x.shape) for x in X]
        gamma = cls._gamma(P, *X, *V)
        assert gamma.shape == (4, cls.n_equations)

        def at(tau, X=X, V=V, P=P):
            Pt = P.copy()
            if cls.time_dependent:
                Pt[:, -1] += tau
            return Pt, [x + tau * v for x, v in zip(X, V)]

        # Second derivative of Phi along the motion (holds with explicit time too).
        phis = [cls._phi(*(lambda a: (a[0], *a[1]))(at(tau))) for tau in (-h, 0.0, h)]
        d2 = (phis[0] - 2 * phis[1] + phis[2]) / h**2
        np.testing.assert_allclose(gamma, -d2, rtol=1e-4, atol=1e-4)
        if not cls.time_dependent:
            # The brief's form: -(J(q0 + h qdot) - J(q0 - h qdot)) / (2h) @ qdot.
            Pp, Xp = at(H)
            Pm, Xm = at(-H)
            Jp, Jm = cls._evaluate(Pp, *Xp)[1], cls._evaluate(Pm, *Xm)[1]
            fd = -sum(np.einsum("kmc,kc->km", (a - b) / (2 * H), v)
                      for a, b, v in zip(Jp, Jm, V))
            np.testing.assert_allclose(gamma, fd, rtol=1e-6, atol=1e-6)
            np.testing.assert_array_equal(cls._phi_t(P, *X), 0.0)


def test_phi_t_of_a_time_dependent_joint():
    rng = np.random.default_rng(6)
    cls = _time_dependent()
    P = _random_params(rng, cls, 5)
    X = _random_state(rng, cls, batch=(5,))
    Pp, Pm = P.copy(), P.copy()
    Pp[:, -1] += H
    Pm[:, -1] -= H
    fd = (cls._phi(Pp, *X) - cls._phi(Pm, *X)) / (2 * H)
    np.testing.assert_allclose(cls._phi_t(P, *X), fd, rtol=1e-7, atol=1e-7)


def test_phi_p_is_derived_with_the_time_column_and_left_numeric_without_code():
    """Phi_p of a generated class: the parameters' columns and time's (the last column of
    P), against the numeric default; a parameter derivative that has no NumPy code (the
    DiracDelta of a step) leaves the class on the numeric default instead of refusing it."""
    from mechsolve.joints.base import Joint

    numeric = Joint.__dict__["_phi_p"].__func__
    rng = np.random.default_rng(16)
    cls = _time_dependent()
    assert cls._phi_p.__func__ is not numeric and "def phi_p(" in cls.source
    P = _random_params(rng, cls, 5)
    X = _random_state(rng, cls, batch=(2, 5))
    D = cls._phi_p(P, *X)
    assert D.shape == (2, 5, cls.n_equations, len(cls.params) + 1)
    np.testing.assert_allclose(D, cls._numeric_phi_p(P, *X), rtol=1e-9, atol=1e-9)
    np.testing.assert_allclose(D[..., -1], cls._phi_t(P, *X), rtol=1e-12, atol=1e-12)
    (b,) = body_symbols(1)
    L = sp.Symbol("L")
    step = symbolic_joint("StepOffset", bodies=[b], params=[L], phi=[b.x - sp.Heaviside(L)])
    assert step._phi_p.__func__ is numeric and "def phi_p(" not in step.source
    flat = symbolic_joint("NoParameters", bodies=[b], phi=[b.x - 1])
    assert flat._phi_p(np.zeros((3, 0)), rng.normal(size=(3, 3))).shape == (3, 1, 0)


def test_revolute_gamma_closed_form():
    """For a pin, gamma = w1^2 R1 p1 - w2^2 R2 p2 (the centripetal terms)."""
    rng = np.random.default_rng(7)
    cls = catalog.revolute()
    P = rng.normal(size=(3, 4))
    X1, X2, V1, V2 = (rng.normal(size=(3, 3)) for _ in range(4))

    def rot(X, px, py):
        c, s = np.cos(X[:, 2]), np.sin(X[:, 2])
        return np.stack([c * px - s * py, s * px + c * py], axis=-1)

    expected = (V1[:, 2:] ** 2 * rot(X1, P[:, 0], P[:, 1])
                - V2[:, 2:] ** 2 * rot(X2, P[:, 2], P[:, 3]))
    np.testing.assert_allclose(cls._gamma(P, X1, X2, V1, V2), expected, rtol=1e-12, atol=1e-12)


# -- mechanisms ----------------------------------------------------------------------------------
def _fourbar(symbolic: bool):
    """ms.models.fourbar rebuilt joint by joint, with the symbolic Revolute if asked."""
    model = ms.models.fourbar()
    src = model.mechanism
    mech = ms.Mechanism()
    bodies = {src.ground.name: mech.ground}
    for b in src.bodies:
        bodies[b.name] = mech.add_body(b.name, position=b.position, angle=b.angle)
    Rev = catalog.revolute() if symbolic else None
    driver = None
    for j in src.joints:
        bs = [bodies[b.name] for b in j.bodies]
        if isinstance(j, joints.Revolute):
            new = (Rev(*bs, *j._p, name=j.name) if symbolic
                   else joints.Revolute(*bs, j.point1, j.point2, name=j.name))
            mech.add(new)
        else:
            driver = mech.add(joints.Driver(bs[0], j.coordinate, j.value, name=j.name))
    return mech, driver, model.values


def _pin_in_slot(symbolic: bool):
    """Crank and rod; the rod's far end is a pin in a slot along y = 0.5 (PointOnLine)."""
    mech = ms.Mechanism()
    g = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0))
    rod = mech.add_body("rod", position=(1.0 + 1.45, 0.25), angle=0.17)
    if symbolic:
        Rev, Pol = catalog.revolute(), catalog.point_on_line()
        mech.add(Rev(g, crank, p2x=-0.5, name="O"))
        mech.add(Rev(crank, rod, p1x=0.5, p2x=-1.5, name="A"))
        mech.add(Pol(g, rod, p1x=0.0, p1y=0.5, p2x=1.5, ux=1.0, uy=0.0, name="slot"))
    else:
        mech.add(joints.Revolute(g, crank, (0, 0), (-0.5, 0), name="O"))
        mech.add(joints.Revolute(crank, rod, (0.5, 0), (-1.5, 0), name="A"))
        mech.add(joints.PointOnLine(g, rod, (0, 0.5), (1.5, 0), axis=(1, 0), name="slot"))
    drive = mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return mech, drive, np.linspace(0, 2 * np.pi, 181)


@pytest.mark.parametrize("build", [_fourbar, _pin_in_slot])
def test_symbolic_linkage_sweeps_like_the_built_in_one(build):
    results = []
    for symbolic in (False, True):
        mech, driver, values = build(symbolic)
        report = mech.dof()
        assert (report.dof, report.rank) == (1, mech.dof().rank)
        mech.solve()
        motion = mech.sweep(driver, values)
        results.append((report.gruebler, report.rank, motion.states))
    (g0, r0, s0), (g1, r1, s1) = results
    assert (g0, r0) == (g1, r1)
    assert s0.shape == s1.shape
    np.testing.assert_allclose(s1, s0, rtol=0, atol=1e-10)


def test_parameters_are_live_attributes():
    mech, driver, _ = _pin_in_slot(True)
    mech.solve()
    slot = mech.joint("slot")
    assert slot.p1y == 0.5 and slot.params == ("p1x", "p1y", "p2x", "p2y", "ux", "uy")
    slot.p1y = 0.25                      # move the slot: the mechanism sees it
    mech.solve()
    rod = mech.body("rod")
    assert abs(rod.to_global((1.5, 0.0))[1] - 0.25) < 1e-10
    with pytest.raises(TypeError, match="p1y must be a real number"):
        slot.p1y = "high"


def test_circle_joint_rides_its_track_in_a_mechanism():
    """CircleJoint (own coordinate s) carried on an auxiliary body, s driven and swept."""
    Circle = catalog.circle_joint()
    OnCarrier = Circle.with_coordinate_bodies()
    assert OnCarrier is not Circle and OnCarrier.n_equations == Circle.n_equations + 2
    R, fx, fy, fa = 2.0, 0.5, -0.25, 0.3
    mech = ms.Mechanism()
    ring = mech.add_body("ring", position=(1.0, 1.0))
    rider = mech.add_body("rider", position=(3.0, 1.0))
    carrier = mech.add_body("s", position=(0.0, 0.0))
    mech.add(joints.Fixed(mech.ground, ring, (1.0, 1.0), (0, 0), angle=0.2, name="base"))
    mech.add(OnCarrier(ring, rider, carrier, R=R, fx=fx, fy=fy, fa=fa, name="track"))
    drive = mech.add(joints.Driver(carrier, "x", 0.0, name="s"))
    report = mech.dof()
    assert (report.gruebler, report.dof, report.free) == (1, 1, 0)
    mech.solve()
    values = np.linspace(0.0, 2 * np.pi * R * 0.9, 50)
    motion = mech.sweep(drive, values)
    pose = motion.pose(rider)
    a = 0.2 + fa
    centre = np.array([1.0, 1.0]) + [np.cos(0.2) * fx - np.sin(0.2) * fy,
                                      np.sin(0.2) * fx + np.cos(0.2) * fy]
    ang = values / R
    expected = np.stack([centre[0] + R * np.cos(a + ang), centre[1] + R * np.sin(a + ang),
                         a + ang], axis=-1)
    np.testing.assert_allclose(pose, expected, rtol=0, atol=1e-9)
    # The own-coordinate class itself gives the same residual at those poses.
    track = mech.joint("track")
    P = track._p[None, :]
    ring_pose = np.tile(ring.pose, (len(values), 1))
    phi = Circle._phi(P, ring_pose, pose, values[:, None])
    np.testing.assert_allclose(phi, 0.0, atol=1e-9)


def test_own_coordinate_kernels_need_the_coordinate():
    Circle = catalog.circle_joint()
    mech = ms.Mechanism()
    a = mech.add_body("a")
    b = mech.add_body("b", position=(2.0, 0.0))
    j = Circle(a, b, R=2.0, s=0.0)
    assert j.own_coordinates == ("s",) and j.s == 0.0
    np.testing.assert_allclose(j.residual(), 0.0, atol=1e-15)
    j.s = np.pi
    np.testing.assert_allclose(j.residual(), [2.0, -2.0, -np.pi / 2], atol=1e-12)
    P = j._p[None, :]
    with pytest.raises(TypeError, match=r"CircleJoint._evaluate\(P, \*X, Q\) needs the values "
                                        r"of the joint's own coordinate\(s\) s as a last array"):
        Circle._evaluate(P, a.pose[None], b.pose[None])
    with pytest.raises(TypeError, match=r"_gamma\(P, \*XV\) takes the poses of its 2 slot"):
        Circle._gamma(P, a.pose[None], b.pose[None])


def test_cam_follower_lifts_a_sliding_follower():
    """A parabolic cam y = h + a x^2 turning about the origin lifts a follower on x = d."""
    Cam = catalog.cam_follower()
    h, a, d = 1.0, 0.3, 0.4
    mech = ms.Mechanism()
    cam = mech.add_body("cam")
    follower = mech.add_body("follower", position=(d, 1.05), angle=0.0)
    mech.add(joints.Revolute(mech.ground, cam, name="pivot"))
    mech.add(joints.Prismatic(mech.ground, follower, (d, 0.0), (0, 0), axis=(0, 1),
                              name="guide"))
    mech.add(Cam(cam, follower, h=h, a=a, name="contact"))
    motor = mech.add(joints.Driver(cam, "angle", 0.0, name="motor"))
    assert mech.dof().dof == 1
    values = np.linspace(0.0, 0.4, 9)
    motion = mech.sweep(motor, values)
    heights = motion.pose(follower)[:, 1]

    def lift(theta):
        def f(y):  # the tip (d, y) in the cam frame lies on v = h + a u^2
            u = np.cos(theta) * d + np.sin(theta) * y
            v = -np.sin(theta) * d + np.cos(theta) * y
            return v - h - a * u**2
        return scipy.optimize.brentq(f, 0.9, 2.5, xtol=1e-14)

    np.testing.assert_allclose(heights, [lift(t) for t in values], rtol=0, atol=1e-10)


def test_custom_cam_profile():
    x, e = sp.symbols("x e")
    Cam = catalog.cam_follower(e * sp.cos(x), x, (e,), name="CosineCam")
    assert Cam.params == ("fx", "fy", "e")
    assert catalog.cam_follower(e * sp.cos(x), x, (e,), name="CosineCam") is Cam


# -- cache ----------------------------------------------------------------------------------------
def _fresh_definition(tag):
    b1, b2 = body_symbols(2)
    L = sp.Symbol("L")
    phi = [(b2.x - b1.x) ** 2 + (b2.y - b1.y) ** 2 - L**2 + tag * sp.sin(b1.theta)]
    return dict(bodies=(b1, b2), params=[L], phi=phi)


def test_second_creation_loads_the_cached_code_without_sympy(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    before = dict(_codegen.stats)
    cold = symbolic_joint("Rod", **_fresh_definition(3))
    assert _codegen.stats["generated"] == before["generated"] + 1
    files = list((tmp_path / "symbolic").glob("*.py"))
    assert len(files) == 1 and files[0].read_text() == cold.source

    _codegen.clear_memory_cache()

    def no_sympy(*args, **kwargs):
        raise AssertionError("a cache hit must not differentiate or cse")

    monkeypatch.setattr(_derive, "derive", no_sympy)
    monkeypatch.setattr(_codegen.sp, "cse", no_sympy)
    warm = symbolic_joint("Rod", **_fresh_definition(3))
    assert _codegen.stats["disk"] == before["disk"] + 1
    assert warm.source == cold.source and warm is not cold
    # Same structure under other symbol names: the same kernels.
    b1, b2 = body_symbols("a b")
    M = sp.Symbol("M")
    renamed = symbolic_joint("Rod2", bodies=(b1, b2), params=[M],
                             phi=[(b2.x - b1.x) ** 2 + (b2.y - b1.y) ** 2 - M**2
                                  + 3 * sp.sin(b1.theta)])
    assert renamed.source == cold.source


def test_cache_key_depends_on_expressions_and_version(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    a = symbolic_joint("A", **_fresh_definition(5))
    b = symbolic_joint("B", **_fresh_definition(6))
    assert a.source != b.source
    monkeypatch.setattr(ms._version, "__version__", "99.0")
    _codegen.clear_memory_cache()
    before = _codegen.stats["generated"]
    c = symbolic_joint("C", **_fresh_definition(5))
    assert _codegen.stats["generated"] == before + 1 and "mechsolve 99.0" in c.source
    assert len(list((tmp_path / "symbolic").glob("*.py"))) == 3


def test_damaged_cache_file_is_regenerated(tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    first = symbolic_joint("D", **_fresh_definition(7))
    (path,) = (tmp_path / "symbolic").glob("*.py")
    path.write_text(first.source.replace("def evaluate", "def evaluate(:"))
    _codegen.clear_memory_cache()
    again = symbolic_joint("D", **_fresh_definition(7))
    assert again.source == first.source == path.read_text()


def test_cache_directory_follows_the_environment(monkeypatch, tmp_path):
    import platformdirs

    monkeypatch.delenv("MECHSOLVE_CACHE_DIR")
    assert ms.symbolic.cache_dir() == pathlib.Path(
        platformdirs.user_cache_dir("mechsolve", appauthor=False))
    if platformdirs.PlatformDirs.__module__ == "platformdirs.unix":   # XDG: Linux, other Unix
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
        assert ms.symbolic.cache_dir() == tmp_path / "mechsolve"
        monkeypatch.delenv("XDG_CACHE_HOME")
        assert ms.symbolic.cache_dir() == pathlib.Path.home() / ".cache" / "mechsolve"
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path / "x"))
    assert ms.symbolic.cache_dir() == tmp_path / "x"
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", "~/mechsolve-kernels")
    assert ms.symbolic.cache_dir() == pathlib.Path.home() / "mechsolve-kernels"


def test_the_test_session_uses_a_private_cache():
    """conftest.py points the cache at a temporary directory for the session (removed at
    the end), whatever the environment says."""
    here = ms.symbolic.cache_dir()
    assert here.name.startswith("mechsolve-test-cache-") and here.is_dir()
    import platformdirs

    assert here != pathlib.Path(platformdirs.user_cache_dir("mechsolve", appauthor=False))


def test_unwritable_cache_warns_and_still_works(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(blocker))
    monkeypatch.setattr(_codegen, "_warned", False)
    with pytest.warns(UserWarning, match="could not write its symbolic kernel cache"):
        cls = symbolic_joint("E", **_fresh_definition(8))
    assert cls.n_equations == 1


# -- errors --------------------------------------------------------------------------------------
def _bad(phi=None, params=None, **kw):
    b1, b2 = body_symbols(2)
    L = sp.Symbol("L")
    phi = [b2.x - b1.x - L] if phi is None else phi(b1, b2, L)
    return symbolic_joint(kw.pop("name", "Bad"), bodies=kw.pop("bodies", (b1, b2)),
                          params=[L] if params is None else params, phi=phi, **kw)


@pytest.mark.parametrize("kwargs, exc, match", [
    (dict(phi=lambda a, b, L: [a.x - sp.Symbol("z")]), ValueError,
     r"phi\[0\] uses the symbol z, which is neither a coordinate of the joined bodies "
     r"\(x1, y1, theta1, x2, y2, theta2\) nor a declared parameter \(L\)"),
    (dict(phi=lambda a, b, L: [a.x - sp.Symbol("L", positive=True)]), ValueError,
     "same name but other assumptions"),
    (dict(phi=lambda a, b, L: sp.Matrix([[a.x, a.y], [b.x, b.y]])), ValueError,
     "phi must be a flat list or a column .or row. Matrix, got a 2x2 Matrix"),
    (dict(phi=lambda a, b, L: [a.to_global(1, 0), b.x]), ValueError,
     r"phi must be flat, but phi\[0\] is a MutableDenseMatrix"),
    (dict(phi=lambda a, b, L: a.x - b.x), TypeError,
     "phi must be a list of SymPy expressions or a column Matrix, got Add"),
    (dict(phi=lambda a, b, L: []), ValueError, "at least one constraint equation"),
    (dict(phi=lambda a, b, L: [sp.Eq(a.x, L)]), TypeError,
     r"phi\[0\] is an equation \(Eq\(x1, L\)\); write it as lhs - rhs"),
    (dict(phi=lambda a, b, L: [a.x, "b.y"]), TypeError, r"phi\[1\] must be a SymPy expression"),
    (dict(phi=lambda a, b, L: [L**2 - 1]), ValueError,
     r"phi\[0\] = L\*\*2 - 1 depends on no coordinate"),
    (dict(params=["L"]), TypeError, r"params\[0\] must be a SymPy Symbol, got str 'L'"),
    (dict(params=sp.Symbol("L") + 1), TypeError, "params must be a sequence of SymPy Symbols"),
    (dict(phi=lambda a, b, L: [a.x - sp.Symbol("x1")], params=[sp.Symbol("x1")]), ValueError,
     "the symbol x1 is declared twice"),
    (dict(phi=lambda a, b, L: [a.x - sp.Symbol("name")], params=[sp.Symbol("name")]),
     ValueError, "the parameter name 'name' is reserved"),
    (dict(phi=lambda a, b, L: [a.x - sp.Symbol("p x")], params=[sp.Symbol("p x")]),
     ValueError, "'p x' must have a name that is a Python identifier"),
    (dict(name="not a name"), TypeError, "class name must be a Python identifier"),
    (dict(bodies=("b1", "b2")), TypeError, r"bodies\[0\] must come from body_symbols\(\)"),
    (dict(labels=("only one", "two")), ValueError, "labels must be 1 strings"),
    (dict(defaults={"M": 1.0}), ValueError, "a default is given for 'M'"),
])
def test_definition_errors_name_the_culprit(kwargs, exc, match):
    with pytest.raises(exc, match=match):
        _bad(**kwargs)


@pytest.mark.parametrize("make, match", [
    (lambda a, L: sp.Integral(a.x**2, (L, 0, 1)),
     r"cannot be turned into NumPy code: Integral\(x1\*\*2, \(L, 0, 1\)\) is an unevaluated "
     "Integral"),
    (lambda a, L: sp.Derivative(sp.Function("f")(a.x), a.x),
     r"Derivative\(f\(x1\), x1\) is an unevaluated Derivative"),
    (lambda a, L: sp.Function("f")(a.x) - L, r"f\(x1\) is an undefined function f"),
    (lambda a, L: sp.gamma(a.x) - L, r"gamma\(x1\) is a function \(gamma\) that prints as "
     "math.gamma, which is not vectorized"),
    (lambda a, L: sp.besselj(0, a.x) - L, r"besselj\(0, x1\) is a function \(besselj\) without "
     "a NumPy equivalent"),
])
def test_expressions_without_numpy_code_are_named(make, match, tmp_path, monkeypatch):
    monkeypatch.setenv("MECHSOLVE_CACHE_DIR", str(tmp_path))
    with pytest.raises(TypeError, match=match):
        _bad(phi=lambda a, b, L: [a.y, make(a, L)], params=[sp.Symbol("L")])


def test_instantiation_errors():
    Rev = catalog.revolute()
    Rod = symbolic_joint("Rod3", **_fresh_definition(1))
    mech = ms.Mechanism()
    a = mech.add_body("a")
    b = mech.add_body("b")
    with pytest.raises(TypeError, match="Rod3 is missing parameter.s. 'L'; give them as "
                                        "keywords, e.g. L=1.0"):
        Rod(a, b)
    with pytest.raises(TypeError, match=r"unknown keyword argument\(s\) 'l'; its parameters "
                                        "are L"):
        Rod(a, b, l=1.0)
    with pytest.raises(TypeError, match="Rod3 joins 2 bodies .mechsolve Body objects, given "
                                        "first., got Body, float"):
        Rod(a, 1.0, L=1.0)
    with pytest.raises(TypeError, match="takes 4 parameters .p1x, p1y, p2x, p2y. after its "
                                        "bodies, got 5"):
        Rev(a, b, 1, 2, 3, 4, 5)
    with pytest.raises(TypeError, match="'p1x' both by position and by keyword"):
        Rev(a, b, 1.0, p1x=2.0)
    with pytest.raises(ValueError, match="L must be finite"):
        Rod(a, b, L=np.inf)
    rod = Rod(a, b, 2.0, name="rod")
    assert rod.L == 2.0 and rod.label == "Rod3 'rod'"
    with pytest.raises(AttributeError, match="does not depend on time"):
        _ = rod.time


def test_body_symbols_dimension_checks():
    with pytest.raises(ValueError, match=r"dim must be 2 \(planar\) or 3 \(spatial\), got 4"):
        body_symbols(2, dim=4)
    (p,) = body_symbols("p")
    (q,) = body_symbols("q", dim=3)
    with pytest.raises(ValueError, match="the bodies mix planar and spatial symbols"):
        symbolic_joint("Mixed", bodies=(p, q), phi=[p.x - q.x])


def test_time_attribute_feeds_the_time_column():
    cls = _time_dependent()
    mech = ms.Mechanism()
    b = mech.add_body("b", position=(1.0, 1.0))
    j = cls(b, a=0.5, w=2.0)
    assert j.time == 0.0 and cls.time_dependent
    np.testing.assert_allclose(j.residual(), [1.0 * 0 + 0.0, 0.0])
    j.time = 0.25
    expected = [0 - 0.5 * np.sin(0.5) + 0.0625, np.exp(0.25) - 1.0]
    np.testing.assert_allclose(j.residual(), expected, rtol=1e-14)


# -- tutorial -------------------------------------------------------------------------------------
def test_tutorial_runs_as_a_doctest():
    path = DOCS / "tutorial_symbolic_joint.md"
    result = doctest.testfile(str(path), module_relative=False, verbose=False)
    assert result.attempted > 20
    assert result.failed == 0     # without option flags, as `python -m doctest` runs it


def test_circle_joint_own_coordinate_lives_in_the_state():
    """The seed's CircleJoint with its arc length s as a state coordinate of the core."""
    Circle = catalog.circle_joint()
    mech = ms.Mechanism()
    ring = mech.add_body("ring", position=(1.0, 0.5), angle=0.3)
    rider = mech.add_body("rider", position=(3.0, 0.6), angle=0.3)
    mech.add(ms.joints.Fixed(mech.ground, ring, (1.0, 0.5), (0, 0), angle=0.3))
    track = mech.add(Circle(ring, rider, R=2.0, s=0.1))
    drive = mech.add(ms.joints.CoordinateDriver(track, 0.0, name="arc"))
    assert mech.dof().dof == 1 and mech.n_dof_coordinates == 7
    values = np.linspace(0.0, 2 * np.pi * 2.0, 61)
    motion = mech.sweep(drive, values)
    centre = np.array([1.0, 0.5])
    path = motion.point(rider) - centre
    np.testing.assert_allclose(np.linalg.norm(path, axis=1), 2.0, atol=1e-10)
    expected = 0.3 + values / 2.0
    np.testing.assert_allclose(np.arctan2(path[:, 1], path[:, 0]),
                               np.arctan2(np.sin(expected), np.cos(expected)), atol=1e-10)
    assert track.s == pytest.approx(values[-1], abs=1e-10)
    # velocity and acceleration of the rider follow the seed's formulas: speed s', and
    # centripetal s'^2 / R
    drive.value = ms.profiles.ConstantSpeed(speed=3.0)
    mech.solve(t=0.7)
    v = mech.point_velocity(rider, (0, 0))
    a = mech.point_acceleration(rider, (0, 0))
    assert np.linalg.norm(v) == pytest.approx(3.0, abs=1e-10)
    np.testing.assert_allclose(a, -(rider.position - centre) * 9.0 / 4.0, atol=1e-9)


def test_time_dependent_symbolic_joint_takes_the_mechanism_time():
    # A slider whose position is prescribed by Phi = x - A sin(w t): velocity A w cos(w t).
    t = sp.Symbol("t")
    (b,) = body_symbols(1)
    A, w = sp.symbols("A w")
    Prescribed = symbolic_joint("Prescribed", bodies=[b], params=[A, w], time=t,
                                phi=[b.x - A * sp.sin(w * t), b.y, b.theta])
    mech = ms.Mechanism()
    body = mech.add_body("b")
    mech.add(Prescribed(body, A=0.5, w=3.0))
    mech.solve(t=0.4)
    assert body.x == pytest.approx(0.5 * np.sin(1.2), abs=1e-12)
    nu = mech.velocity()
    nud = mech.acceleration()
    assert nu[0] == pytest.approx(1.5 * np.cos(1.2), abs=1e-12)
    assert nud[0] == pytest.approx(-4.5 * np.sin(1.2), abs=1e-9)


# -- spatial symbolic joints -----------------------------------------------------------------------
def _unit_quaternions(rng, shape):
    q = rng.normal(size=tuple(shape) + (4,))
    return q / np.linalg.norm(q, axis=-1, keepdims=True)


def _spatial_poses(rng, shape):
    return np.concatenate([rng.normal(size=tuple(shape) + (3,)) * 1.5,
                           _unit_quaternions(rng, shape)], axis=-1)


def _spatial_params(rng, cls, k):
    """Random parameters, with unit quaternions in the frame groups ``f?w f?x f?y f?z``."""
    names = cls.params
    P = rng.normal(size=(k, len(names) + cls.time_dependent))
    for i, nm in enumerate(names):
        if nm.startswith("f") and nm.endswith("w") and \
                names[i + 1:i + 4] == tuple(nm[:-1] + c for c in "xyz"):
            P[:, i:i + 4] = _unit_quaternions(rng, (k,))
    if "R" in names:
        P[:, names.index("R")] = rng.uniform(1.0, 3.0, size=k)
    return P


def _spatial_state(rng, cls, batch):
    X = [_spatial_poses(rng, batch) for _ in cls.definition.bodies]
    if cls.own_coordinates:
        X.append(rng.normal(size=tuple(batch) + (len(cls.own_coordinates),)))
    return X


def _spatial_time_dependent():
    """A spatial joint with explicit time: a point on a moving circle, an axis that nods."""
    (b,) = body_symbols(1, dim=3)
    a, w, t = sp.symbols("a w t")
    tip = b.to_global(1, 0, 0)
    return symbolic_joint(
        "SpatialWobble", bodies=[b], params=[a, w], time=t,
        phi=[tip[0] - a * sp.cos(w * t), tip[1] * sp.exp(t / 4) - a * sp.sin(w * t),
             b.axis(2)[0] * sp.sin(w * t) + b.z - t**2, b.qx * b.qy + t * b.x])


SPATIAL = {
    "spherical": catalog.spherical,
    "revolute": lambda: catalog.revolute(dim=3),
    "circle": lambda: catalog.circle_joint(dim=3),
    "time": _spatial_time_dependent,
}


def _advance(X, V, tau):
    """Poses moved for a time ``tau`` at constant (v, omega global): r + tau v, exp(tau w) q."""
    from mechsolve.spatial._quat import quat_exp, quat_multiply

    out = X.copy()
    out[..., :3] += tau * V[..., :3]
    out[..., 3:] = quat_multiply(quat_exp(tau * V[..., 3:]), X[..., 3:])
    return out


def _along(cls, P, X, V, tau):
    """Parameters and kernel arguments at time ``tau`` along the motion (own coordinates and
    time advance linearly)."""
    n = len(cls.definition.bodies)
    Xt = [_advance(x, v, tau) for x, v in zip(X[:n], V[:n])]
    Xt += [x + tau * v for x, v in zip(X[n:], V[n:])]
    Pt = P.copy()
    if cls.time_dependent:
        Pt[..., -1] += tau
    return Pt, Xt


def _hand_params(rng, k):
    """Parameter rows of the hand-written spatial frame joints: p1, f1, p2, f2."""
    return np.concatenate([rng.normal(size=(k, 3)), _unit_quaternions(rng, (k,)),
                           rng.normal(size=(k, 3)), _unit_quaternions(rng, (k,))], axis=1)


def _hand_spatial_revolute():
    mech = ms.Mechanism(dim=3)
    a = mech.add_body("a")
    return type(joints.Revolute(mech.ground, a))      # the spatial twin of joints.Revolute


@pytest.mark.parametrize("which", ["spherical", "revolute"])
def test_spatial_kernels_match_hand_written(which):
    """Phi and the Jacobian blocks (6 columns: dr, dphi) agree with the hand-written kernels to
    1e-12 on random poses; gamma agrees with theirs (closed form, or Richardson-extrapolated
    differences of the Jacobian, error ~1e-10) to 1e-9."""
    rng = np.random.default_rng(11)
    if which == "spherical":
        cls, hand, cols = catalog.spherical(), joints.Spherical, [0, 1, 2, 7, 8, 9]
    else:
        cls, hand, cols = catalog.revolute(dim=3), _hand_spatial_revolute(), list(range(14))
    assert cls.dims == (3,) and cls.n_equations == hand._rows.__len__()
    worst = 0.0
    for _ in range(5):
        Ph = _hand_params(rng, 7)
        P = Ph[:, cols]
        X = [_spatial_poses(rng, (2, 7)) for _ in range(2)]
        phi, blocks = cls._evaluate(P, *X)
        phi_h, blocks_h = hand._evaluate(Ph, *X)
        np.testing.assert_allclose(phi, phi_h, rtol=0, atol=1e-12)
        np.testing.assert_allclose(cls._phi(P, *X), phi_h, rtol=0, atol=1e-12)
        for J, Jh in zip(blocks, blocks_h):
            assert J.shape == Jh.shape == (2, 7, cls.n_equations, 6)
            np.testing.assert_allclose(J, Jh, rtol=0, atol=1e-12)
        V = [rng.normal(size=(7, 6)) for _ in range(2)]
        g = cls._gamma(P, X[0][0], X[1][0], *V)
        gh = hand._gamma(Ph, X[0][0], X[1][0], *V)
        np.testing.assert_allclose(g, gh, rtol=0, atol=1e-9 * max(1.0, np.abs(g).max()))
        worst = max(worst, float(np.abs(g - gh).max()))
    assert worst < 1e-9


@pytest.mark.parametrize("which", sorted(SPATIAL))
def test_spatial_jacobian_matches_the_numeric_one(which):
    """Against mechsolve's own central differences, which perturb the rotation through the
    exponential map (``Joint._numeric_jacobian``): the increment is (dr, dphi), not dq."""
    rng = np.random.default_rng(12)
    cls = SPATIAL[which]()
    for _ in range(3):
        P = _spatial_params(rng, cls, 4)
        X = _spatial_state(rng, cls, (3, 4))
        phi, blocks = cls._evaluate(P, *X)
        np.testing.assert_allclose(phi, cls._phi(P, *X), rtol=1e-14, atol=1e-14)
        numeric = joints.Joint._numeric_jacobian.__func__(cls, P, *X)
        assert len(blocks) == len(numeric) == len(X)
        for J, Jn in zip(blocks, numeric):
            assert J.shape == Jn.shape
            np.testing.assert_allclose(J, Jn, rtol=1e-7, atol=1e-7)


@pytest.mark.parametrize("which", sorted(SPATIAL))
def test_spatial_gamma_matches_time_differences(which):
    """gamma = -(d/dt J(q(t))) nu along q(t) = exp(t omega) q, r(t) = r + t v: against central
    differences of J(q(t)) nu, and against -d2/dt2 Phi(q(t), t) (five-point stencil), which
    also holds with explicit time."""
    rng = np.random.default_rng(13)
    cls = SPATIAL[which]()
    for _ in range(3):
        P = _spatial_params(rng, cls, 5)
        X = _spatial_state(rng, cls, (5,))
        V = [rng.normal(size=(5, 6)) for _ in cls.definition.bodies]
        V += [rng.normal(size=x.shape) for x in X[len(V):]]
        gamma = cls._gamma(P, *X, *V)
        assert gamma.shape == (5, cls.n_equations)
        h = 1e-3
        phis = [cls._phi(*(lambda a: (a[0], *a[1]))(_along(cls, P, X, V, k * h)))
                for k in (-2, -1, 0, 1, 2)]
        d2 = (-phis[0] + 16 * phis[1] - 30 * phis[2] + 16 * phis[3] - phis[4]) / (12 * h**2)
        np.testing.assert_allclose(gamma, -d2, rtol=1e-7, atol=1e-7)
        if not cls.time_dependent:
            np.testing.assert_array_equal(cls._phi_t(P, *X), 0.0)

            def jnu(tau, P=P, X=X, V=V):
                Pt, Xt = _along(cls, P, X, V, tau)
                return sum(np.einsum("kmc,kc->km", J, v)
                           for J, v in zip(cls._evaluate(Pt, *Xt)[1], V))

            h = 1e-4
            fd = -(8 * (jnu(h) - jnu(-h)) - (jnu(2 * h) - jnu(-2 * h))) / (12 * h)
            np.testing.assert_allclose(gamma, fd, rtol=1e-8, atol=1e-8)


def test_spatial_phi_t_of_a_time_dependent_joint():
    rng = np.random.default_rng(14)
    cls = _spatial_time_dependent()
    P = _spatial_params(rng, cls, 5)
    X = _spatial_state(rng, cls, (5,))
    Pp, Pm = P.copy(), P.copy()
    Pp[:, -1] += H
    Pm[:, -1] -= H
    fd = (cls._phi(Pp, *X) - cls._phi(Pm, *X)) / (2 * H)
    np.testing.assert_allclose(cls._phi_t(P, *X), fd, rtol=1e-7, atol=1e-7)


def test_planar_and_spatial_definitions_never_share_code():
    """The same canonical expression over a planar and a spatial body: different cache keys
    (the structure names the slot sizes), 3 and 6 Jacobian columns."""
    L = sp.Symbol("L")
    (p,) = body_symbols(1)
    (q,) = body_symbols(1, dim=3)
    flat = symbolic_joint("OnLine2", bodies=[p], params=[L], phi=[p.x - L])
    deep = symbolic_joint("OnLine3", bodies=[q], params=[L], phi=[q.x - L])
    key = [ln for ln in flat.source.splitlines() if ln.startswith("KEY")]
    assert key and key[0] not in deep.source
    assert flat.dims == (2,) and deep.dims == (3,)
    _, (J,) = deep._evaluate(np.array([[1.0]]), np.array([[0.0, 0, 0, 1, 0, 0, 0]]))
    np.testing.assert_array_equal(J, [[[1.0, 0, 0, 0, 0, 0]]])
    mech = ms.Mechanism()
    with pytest.raises(TypeError, match="OnLine3 is a spatial joint"):
        deep(mech.add_body("b"), L=1.0)


def _circle_states(rng, k):
    """Random CircleJoint states in which the hand-written kernel's sgn(w) is +1.

    Its rotation rows are ``2 sgn(w) v`` with ``(w, v) = conj(q_C) q_B``; the symbolic twin
    writes ``2 v``. Body 2's quaternion is negated where ``w < 0`` (the same pose), and states
    with ``|w| < 0.1`` (relative rotations within 11 degrees of a half turn) are left out: there
    the hand-written gamma's differences in time may straddle the jump of sgn(w).
    """
    from mechsolve.spatial._quat import quat_multiply

    n = 4 * k
    P = _spatial_params(rng, catalog.circle_joint(dim=3), n)
    X1, X2 = _spatial_poses(rng, (n,)), _spatial_poses(rng, (n,))
    S = rng.normal(size=(n, 1)) * 3
    ang = S[:, 0] / P[:, 21]
    qT = np.stack([np.cos(ang / 2), 0 * ang, 0 * ang, np.sin(ang / 2)], axis=-1)
    qC = quat_multiply(quat_multiply(quat_multiply(X1[:, 3:], P[:, 3:7]), P[:, 10:14]), qT)
    qB = quat_multiply(X2[:, 3:], P[:, 17:21])
    w = np.sum(qC * qB, axis=-1)
    X2[:, 3:] *= np.where(w < 0, -1.0, 1.0)[:, None]
    keep = np.flatnonzero(np.abs(w) >= 0.1)[:k]
    assert len(keep) == k
    return P[keep], X1[keep], X2[keep], S[keep]


def test_spatial_circle_joint_matches_the_hand_written_kernels():
    """The symbolic twin of joints.CircleJoint (same parameter layout) on random states: Phi
    and the three Jacobian blocks to 1e-12; gamma (the hand-written one is Richardson-
    extrapolated differences, error ~1e-10 relative) to 1e-8."""
    rng = np.random.default_rng(15)
    Circle = catalog.circle_joint(dim=3)
    assert Circle.params == ("p1x", "p1y", "p1z", "f1w", "f1x", "f1y", "f1z",
                             "ppx", "ppy", "ppz", "fpw", "fpx", "fpy", "fpz",
                             "p2x", "p2y", "p2z", "f2w", "f2x", "f2y", "f2z", "R")
    assert Circle.own_coordinates == ("s",) and Circle.n_coordinates == 1
    for _ in range(4):
        P, X1, X2, S = _circle_states(rng, 9)
        phi, blocks = Circle._evaluate(P, X1, X2, S)
        phi_h, blocks_h = joints.CircleJoint._evaluate(P, X1, X2, S)
        np.testing.assert_allclose(phi, phi_h, rtol=0, atol=1e-12)
        for J, Jh in zip(blocks, blocks_h):
            assert J.shape == Jh.shape
            np.testing.assert_allclose(J, Jh, rtol=0, atol=1e-12)
        V1, V2, U = rng.normal(size=(9, 6)), rng.normal(size=(9, 6)), rng.normal(size=(9, 1))
        g = Circle._gamma(P, X1, X2, S, V1, V2, U)
        gh = joints.CircleJoint._gamma(P, X1, X2, S, V1, V2, U)
        np.testing.assert_allclose(g, gh, rtol=0, atol=1e-8 * max(1.0, np.abs(g).max()))


def _swap_in_symbolic(mech, names=None):
    """Replace the mechanism's spatial Revolute and Spherical joints by their symbolic twins
    (same parameters), except those a driver refers to."""
    rev, ball = catalog.revolute(dim=3), catalog.spherical()
    hand_rev = _hand_spatial_revolute()
    driven = {id(getattr(d, "joint", None)) for d in mech.drivers}
    swapped = []
    for j in list(mech.joints):
        if id(j) in driven or (names is not None and j.name not in names):
            continue
        if type(j) is hand_rev:
            new = rev(*j.bodies, *j._p, name=j.name)
        elif type(j) is joints.Spherical:
            new = ball(*j.bodies, *j._p[[0, 1, 2, 7, 8, 9]], name=j.name)
        else:
            continue
        mech.remove(j)
        mech.add(new)
        swapped.append(new)
    return swapped


@pytest.mark.parametrize("model", ["spherical_fourbar", "slider_crank_3d"])
def test_spatial_symbolic_linkage_sweeps_like_the_built_in_one(model):
    ref = getattr(ms.models.spatial, model)()
    sym = getattr(ms.models.spatial, model)()
    swapped = _swap_in_symbolic(sym.mechanism)
    assert swapped and all(isinstance(j, ms.symbolic.SymbolicJoint) for j in swapped)
    r0, r1 = ref.mechanism.dof(), sym.mechanism.dof()
    assert (r0.gruebler, r0.dof, r0.rank) == (r1.gruebler, r1.dof, r1.rank)
    values = np.linspace(0.0, 2 * np.pi, 61)
    m0 = ref.mechanism.sweep(ref.driver, values, tol=1e-12)
    m1 = sym.mechanism.sweep(sym.driver, values, tol=1e-12)
    np.testing.assert_allclose(m1.states, m0.states, rtol=0, atol=1e-10)


def _timed_slider_crank(symbolic: bool):
    model = ms.models.spatial.slider_crank_3d()
    if symbolic:
        assert [j.name for j in _swap_in_symbolic(model.mechanism)] == ["ball"]
    # theta(t) = 0.3 + 1.1 t + 0.8 t^2: both speed and acceleration non-zero
    model.driver.value = ms.profiles.Function(lambda t: 0.3 + 1.1 * t + 0.8 * t * t,
                                              lambda t: 1.1 + 1.6 * t, lambda t: 1.6)
    return model.mechanism


def test_spatial_accelerations_match_time_differences_of_positions():
    """A 3D slider-crank whose ball joint is symbolic, driven by a profile: velocities and
    accelerations (from the generated gamma) against five-point differences of the solved
    positions in time, and against the all-hand-written mechanism."""
    mech = _timed_slider_crank(True)
    rod = mech.body("rod")
    points = [(0.0, 0.0, 0.0), (0.4, -0.2, 0.3)]
    t0, h = 0.6, 1e-3
    track = {}
    for k in (-2, -1, 0, 1, 2):
        mech.solve(t=t0 + k * h, tol=1e-13)
        track[k] = [rod.to_global(p) for p in points]
    mech.solve(t=t0, tol=1e-13)
    for i, p in enumerate(points):
        x = [track[k][i] for k in (-2, -1, 0, 1, 2)]
        vel = (x[0] - 8 * x[1] + 8 * x[3] - x[4]) / (12 * h)
        acc = (-x[0] + 16 * x[1] - 30 * x[2] + 16 * x[3] - x[4]) / (12 * h**2)
        np.testing.assert_allclose(mech.point_velocity(rod, p), vel, rtol=0, atol=1e-9)
        np.testing.assert_allclose(mech.point_acceleration(rod, p), acc, rtol=0, atol=1e-6)
    ref = _timed_slider_crank(False)
    ref.solve(t=t0, tol=1e-13)
    np.testing.assert_allclose(mech.state, ref.state, rtol=0, atol=1e-12)
    np.testing.assert_allclose(mech.velocity(), ref.velocity(), rtol=0, atol=1e-12)
    np.testing.assert_allclose(mech.acceleration(), ref.acceleration(), rtol=0, atol=1e-9)


def _seed_circle_mechanism(symbolic: bool):
    """The mechanism of test_end_effectors' CircleJoint test: a car on a circle of radius 2
    about a precursor frame of ground (turned 90 degrees about x), s(t) = 0.5 + 0.7 t +
    0.6 t^2."""
    mech = ms.Mechanism(dim=3)
    car = mech.add_body("car", position=(0.1, 2.0, 0.1))
    pre = ms.Frame((0.3, -0.2, 0.5), ms.Orientation.from_rotvec([np.pi / 2, 0, 0]))
    hand = joints.CircleJoint(mech.ground, car, 2.0, precursor=pre, s0=0.1)
    if symbolic:
        Circle = catalog.circle_joint(dim=3)
        circle = mech.add(Circle(mech.ground, car, *hand._p, s=0.1, name="track"))
    else:
        circle = mech.add(hand)
    prof = ms.profiles.Function(lambda t: 0.5 + 0.7 * t + 0.6 * t * t, lambda t: 0.7 + 1.2 * t,
                                lambda t: 1.2)
    mech.add(joints.CoordinateDriver(circle, prof, name="arc"))
    return mech, car, circle, pre, hand


def test_spatial_circle_joint_follows_the_seed_in_a_mechanism():
    """The symbolic CircleJoint, s driven in time: the relative transform, velocity and
    acceleration of the car's frame in the circle's frame equal the seed's formulas
    (transformBy, calculateVelocity, calculateAcceleration) and the hand-written joint's."""
    mech, car, circle, pre, hand = _seed_circle_mechanism(True)
    assert mech.dof().dof == 1 and circle.own_coordinates == ("s",)
    ref, ref_car, ref_circle, *_ = _seed_circle_mechanism(False)
    R = 2.0
    R_A = pre.orientation.as_matrix()
    for t in (0.0, 0.8, 1.7):
        mech.solve(t=t, tol=1e-13)
        ref.solve(t=t, tol=1e-13)
        s, sd, sdd = 0.5 + 0.7 * t + 0.6 * t * t, 0.7 + 1.2 * t, 1.2
        assert circle.s == pytest.approx(s, abs=1e-12)
        # relative transform T(s) = A^-1 B: the seed's transformBy, and the hand-written one's
        local = pre.inverse_transform_point(car.position)
        a = s / R
        np.testing.assert_allclose(local, [R * np.cos(a), R * np.sin(a), 0.0], atol=1e-10)
        turn = ms.Orientation.from_rotvec([0.0, 0.0, a]).as_matrix()
        np.testing.assert_allclose(R_A.T @ car.rotation, turn, atol=1e-10)
        T_hand = ref_circle.relative_transform(s)
        np.testing.assert_allclose(local, T_hand.translation, atol=1e-10)
        np.testing.assert_allclose(R_A.T @ car.rotation, T_hand.orientation.as_matrix(),
                                   atol=1e-10)
        np.testing.assert_allclose(mech.state[:7], ref.state[:7], atol=1e-10)
        # velocity and acceleration, in the circle's frame, against the seed's closed forms
        v_seed = hand.calculate_velocity(s, sd)
        a_seed = hand.calculate_acceleration(s, sd, sdd)
        nu = mech.velocity()
        nudot = mech.acceleration()
        np.testing.assert_allclose(R_A.T @ mech.point_velocity(car, (0, 0, 0)), v_seed.linear,
                                   atol=1e-10)
        np.testing.assert_allclose(R_A.T @ nu[3:6], v_seed.angular, atol=1e-10)
        np.testing.assert_allclose(R_A.T @ mech.point_acceleration(car, (0, 0, 0)),
                                   a_seed.linear, atol=1e-10)
        np.testing.assert_allclose(R_A.T @ nudot[3:6], a_seed.angular, atol=1e-10)
        # and the hand-written joint's mechanism (its gamma: Richardson differences)
        np.testing.assert_allclose(nu, ref.velocity(), atol=1e-10)
        np.testing.assert_allclose(nudot, ref.acceleration(), atol=1e-8)


def test_spatial_circle_joint_sweeps_its_arc_length():
    mech, car, circle, pre, _ = _seed_circle_mechanism(True)
    drive = mech.joint("arc")
    drive.value = 0.0
    values = np.linspace(0.0, 2 * np.pi * 2.0, 73)
    motion = mech.sweep(drive, values)
    local = np.array([pre.inverse_transform_point(p) for p in motion.point(car)])
    ang = values / 2.0
    np.testing.assert_allclose(local, np.stack([2 * np.cos(ang), 2 * np.sin(ang), 0 * ang], -1),
                               rtol=0, atol=1e-9)


def test_spatial_circle_joint_on_a_coordinate_body():
    """The carrier twin: s is the x of an auxiliary spatial body whose other five coordinates
    are held (y, z, rotation), driven by an ordinary Driver."""
    Circle = catalog.circle_joint(dim=3)
    OnCarrier = Circle.with_coordinate_bodies()
    assert OnCarrier.n_equations == 6 + 5 and OnCarrier.dims == (3,)
    mech = ms.Mechanism(dim=3)
    car = mech.add_body("car", position=(1.9, 0.3, 0.0))
    carrier = mech.add_body("s", position=(0.1, 0.0, 0.0))
    mech.add(OnCarrier(mech.ground, car, carrier, R=2.0, name="track"))
    drive = mech.add(joints.Driver(carrier, "x", np.pi / 2, name="s"))
    report = mech.dof()
    assert (report.gruebler, report.dof, report.free) == (1, 1, 0)
    mech.solve()
    np.testing.assert_allclose(car.position, [2 * np.cos(np.pi / 4), 2 * np.sin(np.pi / 4), 0],
                               atol=1e-10)
    assert drive.measure() == pytest.approx(np.pi / 2)


@pytest.mark.parametrize("make, match", [
    (lambda a, b, L: sp.Abs(a.x) - L,
     r"Bad: the Jacobian entry d phi\[1\] / d x1, derived from phi\[1\] = -L \+ Abs\(x1\), "
     r"cannot be turned into NumPy code: Derivative\(im\(x1\), x1\) is an unevaluated "
     r"Derivative: SymPy has no closed-form derivative of im\(x1\)\. Abs, sign"),
    (lambda a, b, L: sp.sign(a.x) * b.y,
     r"d phi\[1\] / d x1, derived from phi\[1\] = y2\*sign\(x1\).*Derivative\(sign\(x1\), x1\)"),
    (lambda a, b, L: sp.floor(a.x) + b.y, r"Derivative\(floor\(x1\), x1\)"),
    (lambda a, b, L: sp.Max(a.x, b.x) - L,
     r"gamma\[1\] \(the acceleration term of phi\[1\]\), derived from phi\[1\] = "
     r"-L \+ Max\(x1, x2\), cannot be turned into NumPy code: DiracDelta\(x1 - x2\) is a "
     r"function \(DiracDelta\) without a NumPy equivalent"),
    (lambda a, b, L: sp.Min(a.x, L) - b.y, r"gamma\[1\].*DiracDelta\(L - x1\)"),
    (lambda a, b, L: sp.Heaviside(a.x) * b.x,
     r"the Jacobian entry d phi\[1\] / d x1.*DiracDelta\(x1\) is a function \(DiracDelta\)"),
])
def test_derived_terms_without_numpy_code_are_named(make, match):
    """Phi prints, but its derivative does not: a TypeError naming the derived term, the
    equation it comes from and the culprit (no PrintMethodNotImplementedError from SymPy)."""
    with pytest.raises(TypeError, match=match):
        _bad(phi=lambda a, b, L: [a.y, make(a, b, L)], params=[sp.Symbol("L")])


def test_derived_term_errors_name_the_rotation_increment():
    (b,) = body_symbols(1, dim=3)
    L = sp.Symbol("L")
    with pytest.raises(TypeError, match=r"Bad3: the Jacobian entry d phi\[0\] / d dphi_x "
                                        r"\(rotation increment of body '1'\), derived from "
                                        r"phi\[0\] = -L \+ Abs\(qx1\)"):
        symbolic_joint("Bad3", bodies=[b], params=[L], phi=[sp.Abs(b.qx) - L, b.x, b.y])
    # a smooth rewrite of the same constraint is fine
    ok = symbolic_joint("Good3", bodies=[b], params=[L], phi=[sp.sqrt(b.qx**2) - L, b.x, b.y])
    assert ok.n_equations == 3


def test_body_symbols_need_a_label():
    from mechsolve.symbolic import PlanarBodySymbols, SpatialBodySymbols

    for kind in (PlanarBodySymbols, SpatialBodySymbols):
        with pytest.raises(ValueError, match="a body label must be a non-empty string"):
            kind("")
        assert str(kind(2).x) == "x2" and str(kind("a").x) == "x_a"


def test_a_mechanism_with_symbolic_joints_pickles():
    """Symbolic joint classes are made at run time; instances pickle by their definition and
    come back as one class per definition, solving as before (issue 15)."""
    import pickle

    Circle = catalog.circle_joint()
    mech = ms.Mechanism()
    ring = mech.add_body("ring", position=(1.0, 0.5), angle=0.3)
    rider = mech.add_body("rider", position=(3.0, 0.6), angle=0.3)
    other = mech.add_body("other", position=(3.0, 0.6), angle=0.3)
    mech.add(ms.joints.Fixed(mech.ground, ring, (1.0, 0.5), (0, 0), angle=0.3))
    track = mech.add(Circle(ring, rider, R=2.0, s=0.1, name="track"))
    mech.add(Circle(ring, other, R=1.5, s=0.2, name="inner"))
    mech.add(ms.joints.CoordinateDriver(track, 0.5, name="arc"))
    mech.add(ms.joints.CoordinateDriver(mech.joint("inner"), 0.25, name="arc2"))
    mech.solve()
    copy = pickle.loads(pickle.dumps(mech))
    assert type(copy.joint("track")) is type(copy.joint("inner"))
    assert copy.joint("inner").R == 1.5
    np.testing.assert_array_equal(copy.state, mech.state)
    for m in (mech, copy):
        m.joint("arc").value = 1.0
        m.solve()
    # the same solve, to round-off (NumPy 1.24 rounded one coordinate of the copy's an ulp
    # away: its SIMD sums depend on memory alignment; issue 26)
    assert_same_states(mech, copy.state, mech.state)
