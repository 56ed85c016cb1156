"""
Four-bar synthesis by gradients through the loop solve
======================================================

Find the crank, coupler and rocker lengths and the coupler point of a four-bar whose coupler
point passes through 12 target points at 12 crank angles (timed path generation), by
Gauss-Newton steps whose Jacobian comes through the loop solve (:mod:`mechsolve.diff`): with
JAX, ``jax.jacrev`` of a function that calls :func:`mechsolve.diff.to_jax` once per crank
angle (``mode="jvp"``); without JAX, the same derivatives from the NumPy core
(:meth:`~mechsolve.diff.LoopFunction.linearize`) by the chain rule.

Every crank angle has its own copy of the mechanism, so that each solve starts from its own
last pose and the assembly branch is kept as the design moves. The targets come from the
closed form of the four-bar at a reference design, which the synthesis must recover.

For comparison, a derivative-free global search on the same problem and the same time budget:
pylinkage's particle swarm on pylinkage's own four-bar model when pylinkage is installed,
else SciPy's differential evolution on the same loop-solve objective. The time to target is
the time until the RMS error of the coupler point falls below 1e-3 of the ground length (for
JAX, after its one compilation of the function, reported apart). pylinkage's swarm draws
unseeded random numbers: its figures vary from run to run.

Run: python examples/fourbar_gradient_synthesis.py
"""

import time

import matplotlib.pyplot as plt
import numpy as np

import mechsolve as ms

try:
    import jax
    import jax.numpy as jnp
except ImportError:      # the NumPy core alone
    jax = None
try:
    import pylinkage
except ImportError:
    pylinkage = None

GROUND = 4.0
N = 12
ANGLES = 2 * np.pi * np.arange(1, N + 1) / N
#: the design: crank, coupler, rocker, then the coupler point's distance from the crank pin
#: and its angle from the coupler's line (pylinkage's FixedDyad), as in the README four-bar
TRUE = np.array([1.0, 3.0, 3.5, np.hypot(1.5, 1.0), np.arctan2(1.0, 1.5)])
START = np.array([1.2, 2.7, 3.8, 1.5, 0.3])
TARGET_RMS = 1e-3 * GROUND
BUDGET = 5.0             # seconds for the global search


def closed_form(x, t):
    """The coupler point of design ``x`` at crank angles ``t`` (upper branch)."""
    a, b, c, d, alpha = x
    A = np.stack([a * np.cos(t), a * np.sin(t)], axis=-1)
    D = np.array([GROUND, 0.0]) - A
    e = np.linalg.norm(D, axis=-1)
    phi = np.arctan2(D[:, 1], D[:, 0]) + np.arccos((b * b + e * e - c * c) / (2 * b * e))
    return A + d * np.stack([np.cos(phi + alpha), np.sin(phi + alpha)], axis=-1)


TARGET = closed_form(TRUE, ANGLES)

# -- the loop solve: one mechanism per crank angle, pose of the coupler by its pins -----------
PARAMS = ["O2.point2", "A.point1", "A.point2", "B.point1", "B.point2", "O4.point1",
          "motor.value"]
functions = []
for angle in ANGLES:
    mech = ms.models.fourbar(GROUND, *START[:3]).mechanism
    mech.set_parameters({"motor.value": angle})
    mech.solve()
    functions.append(ms.diff.LoopFunction(mech, PARAMS, [ms.diff.pose("coupler")]))


def p_of(x, angle, xp=np):
    """The named parameters of design ``x`` at ``angle`` (pins at -L/2, +L/2 of each link)."""
    a, b, c = x[0], x[1], x[2]
    z = 0 * a
    return xp.stack([-a / 2, z, a / 2, z, -b / 2, z, b / 2, z, -c / 2, z, c / 2, z,
                     z + angle])


def local_point(x, xp=np):
    """The coupler point in the coupler's coordinates (origin at the middle of its pins)."""
    b, d, alpha = x[1], x[3], x[4]
    return xp.stack([-b / 2 + d * xp.cos(alpha), d * xp.sin(alpha)])


def point_of_pose(pose, x, xp=np):
    X, Y, phi = pose[0], pose[1], pose[2]
    u, v = local_point(x, xp)
    return xp.stack([X + xp.cos(phi) * u - xp.sin(phi) * v, Y + xp.sin(phi) * u + xp.cos(phi) * v])


if jax is not None:
    x64_before = jax.config.jax_enable_x64
    jax.config.update("jax_enable_x64", True)           # float64: the solve's precision
    solves = [ms.diff.to_jax(f, mode="jvp") for f in functions]     # forward mode

    def residuals_jax(x):
        pts = [point_of_pose(g(p_of(x, a, jnp)), x, jnp) for g, a in zip(solves, ANGLES)]
        return (jnp.stack(pts) - TARGET).ravel()

    @jax.jit
    def residuals_and_jacobian_jax(x):
        r, tangent = jax.linearize(residuals_jax, x)   # one loop solve per angle, with dy/dp
        return r, jax.vmap(tangent)(jnp.eye(x.size)).T  # forward mode, column by column

    def residuals_and_jacobian(x):
        r, J = residuals_and_jacobian_jax(jnp.asarray(x))
        return np.asarray(r), np.asarray(J)
else:
    def residuals_and_jacobian(x):
        """The same from the NumPy core, by the chain rule."""
        rows, jac = [], []
        M = np.zeros((13, 5))           # d p / d x (p is linear in x)
        M[[0, 2, 4, 6, 8, 10], [0, 0, 1, 1, 2, 2]] = [-0.5, 0.5, -0.5, 0.5, -0.5, 0.5]
        u, v = local_point(x)
        dl = np.array([[0.0, -0.5, 0.0, np.cos(x[4]), -x[3] * np.sin(x[4])],
                       [0.0, 0.0, 0.0, np.sin(x[4]), x[3] * np.cos(x[4])]])
        for f, angle in zip(functions, ANGLES):
            lin = f.linearize(p_of(x, angle))
            pose, dpose = lin.value, lin.jacobian() @ M
            c, s = np.cos(pose[2]), np.sin(pose[2])
            rows.append(point_of_pose(pose, x))
            R, dR = np.array([[c, -s], [s, c]]), np.array([[-s, -c], [c, -s]])
            jac.append(dpose[:2] + np.outer(dR @ [u, v], dpose[2]) + R @ dl)
        return (np.stack(rows) - TARGET).ravel(), np.vstack(jac)


def rms(r):
    return float(np.sqrt(np.mean(r.reshape(-1, 2) ** 2 @ [1.0, 1.0])))


# -- Levenberg-Marquardt on the loop-solve Jacobian ------------------------------------------
t0 = time.perf_counter()
residuals_and_jacobian(START)          # JAX compiles the function here, once
compile_time = time.perf_counter() - t0
t0 = time.perf_counter()
x, mu = START.copy(), 1e-3
r, J = residuals_and_jacobian(x)
history = [(0.0, rms(r))]
reached = None
for _ in range(50):
    step = np.linalg.solve(J.T @ J + mu * np.diag(np.diag(J.T @ J)), -J.T @ r)
    try:
        r_new, J_new = residuals_and_jacobian(x + step)
    except ms.SolveError:              # a trial design that cannot be assembled
        mu *= 10
        continue
    if r_new @ r_new < r @ r:
        x, r, J, mu = x + step, r_new, J_new, mu / 3
        history.append((time.perf_counter() - t0, rms(r)))
        if reached is None and history[-1][1] < TARGET_RMS:
            reached = history[-1][0]
        if rms(r) < 1e-13 * GROUND or np.max(np.abs(step)) < 1e-14:
            break
    else:
        mu *= 10
gradient_time = time.perf_counter() - t0
how = (f"JAX (jax.linearize through ms.diff.to_jax; compiled in {compile_time:.1f} s)"
       if jax is not None else "the NumPy core")
print(f"Gauss-Newton with {how}: RMS error {rms(r):.1e} after {len(history) - 1} steps, "
      f"{gradient_time:.2f} s; below {TARGET_RMS:.0e} after {reached:.2f} s")
print("design found:", np.round(x, 10), " reference:", np.round(TRUE, 10))

# -- a derivative-free global search on the same problem, same budget ---------------------------
lower, upper = np.array([0.5, 2.0, 2.5, 0.5, -1.0]), np.array([1.5, 4.0, 4.5, 3.0, 1.5])


class _OutOfTimeError(Exception):
    pass


search = {"best": np.inf, "reached": None, "evaluations": 0, "trace": []}
t0 = time.perf_counter()


def record(cost):
    elapsed = time.perf_counter() - t0
    search["evaluations"] += 1
    if cost < search["best"]:
        search["best"] = cost
        search["trace"].append((elapsed, cost))
        if search["reached"] is None and cost < TARGET_RMS:
            search["reached"] = elapsed
    if elapsed > BUDGET:
        raise _OutOfTimeError


if pylinkage is not None:
    from pylinkage.optimization.particle_swarm import particle_swarm_optimization

    name = "pylinkage particle swarm (its own four-bar model)"
    O2, O4 = pylinkage.Ground(0.0, 0.0, name="O2"), pylinkage.Ground(GROUND, 0.0, name="O4")
    crank = pylinkage.Crank(anchor=O2, radius=START[0], angular_velocity=2 * np.pi / N,
                            name="A")
    pin = pylinkage.RRRDyad(crank.output, O4, distance1=START[1], distance2=START[2],
                            x=1.5, y=2.5, name="B")
    tracer = pylinkage.FixedDyad(crank.output, pin, distance=START[3], angle=START[4],
                                 name="P")
    linkage = pylinkage.Linkage([O2, O4, crank, pin, tracer], name="four-bar")

    def score(link, dims, pos):
        link.set_constraints(dims)
        link.set_coords(pos)
        try:
            path = np.array([step[-1] for step in link.step(iterations=N)], dtype=float)
            cost = rms(path - TARGET) if np.all(np.isfinite(path)) else np.inf
        except Exception:              # pylinkage: a design that cannot be built
            cost = np.inf
        record(cost)
        return cost

    # pylinkage's own model reproduces the targets at the reference design
    linkage.set_constraints(TRUE)
    model_error = rms(np.array([s[-1] for s in linkage.step(iterations=N)]) - TARGET)
    assert model_error < 1e-12, model_error
    linkage.set_constraints(START)
    try:
        particle_swarm_optimization(score, linkage, bounds=(lower, upper),
                                    order_relation=min, n_particles=50, iterations=1000,
                                    verbose=False)
    except _OutOfTimeError:
        pass
else:
    from scipy.optimize import differential_evolution

    name = "SciPy differential evolution (the same loop-solve objective)"

    def objective(x):
        try:
            pts = [point_of_pose(f(p_of(x, a)), x) for f, a in zip(functions, ANGLES)]
            cost = rms(np.stack(pts) - TARGET)
        except ms.SolveError:
            cost = np.inf
        record(cost)
        return cost

    try:
        differential_evolution(objective, list(zip(lower, upper)), seed=1, tol=0, maxiter=10**6,
                               polish=False)
    except _OutOfTimeError:
        pass

found = ("not within the budget" if search["reached"] is None
         else f"after {search['reached']:.2f} s")
print(f"{name}: best RMS error {search['best']:.1e} after {search['evaluations']} evaluations "
      f"in {BUDGET:g} s; below {TARGET_RMS:.0e} {found}")

# -- the figure ------------------------------------------------------------------------------
t = np.linspace(0, 2 * np.pi, 361)
fig, (ax, ax2) = plt.subplots(1, 2, figsize=(10, 4.2))
ax.plot(*closed_form(START, t).T, color="0.6", lw=1, label="start")
ax.plot(*closed_form(x, t).T, color="C0", lw=2, label="found")
ax.plot(*TARGET.T, "o", color="C3", ms=5, label="targets")
ax.set_aspect("equal")
ax.set_xlabel("x (model units: the ground link is 4)")
ax.set_ylabel("y (model units)")
ax.legend(loc="lower left", fontsize=8)
ax.set_title("coupler curve")
times, errors = np.array(history).T
ax2.semilogy(times, errors, "o-", color="C0", label="Gauss-Newton through the loop solve")
if search["trace"]:
    st, se = np.array(search["trace"]).T
    ax2.semilogy(st, se, drawstyle="steps-post", color="C1", label=name.split(" (")[0])
ax2.axhline(TARGET_RMS, color="0.5", ls=":", lw=1)
ax2.set_xlabel("time (s)")
ax2.set_ylabel("RMS coupler point error (model units)")
ax2.legend(fontsize=8)
ax2.set_title("time to target")
fig.tight_layout()

# Check: the reference design recovered, and the curve through the targets, to round-off of
# the loop solve (the targets come from the closed form, not from mechsolve).
curve_error = np.max(np.abs(closed_form(x, ANGLES) - TARGET))
design_error = np.max(np.abs(x - TRUE))
print(f"check: design recovered to {design_error:.1e}, coupler points to {curve_error:.1e} of "
      f"the ground length {GROUND:g}")
assert design_error < 1e-8 and curve_error < 1e-10 * GROUND
if jax is not None:    # as it was (this script also runs inside the test suite)
    jax.config.update("jax_enable_x64", x64_before)
