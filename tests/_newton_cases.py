"""Problems of every class of the Newton core, each with a start, for the tests that run them
through the one-item and the batch paths (``tests/test_newton_paths.py``).

``python tests/_newton_cases.py`` writes every case's outcome on both paths -- the iterates,
the pose returned, status, iterations, residual -- to ``tests/data/newton_reference.json``;
run it with another revision's package first on the path (``PYTHONPATH=<checkout>:tests``) to
keep that revision's outcomes as the reference the tests compare against. The stored
reference was written by the core before its rules were written once (f1baa9f).
"""

from __future__ import annotations

import json
import pathlib
import sys

import numpy as np

import mechsolve as ms
from mechsolve import joints
from mechsolve.newton import _FEW, LinearStrategy, levenberg_marquardt, newton

REFERENCE = pathlib.Path(__file__).parent / "data" / "newton_reference.json"
#: Copies of the item that make a batch (more than the core hands to its one-item path).
COPIES = _FEW + 1


class Recorded:
    """A problem that keeps every iterate the core makes (the output of ``retract``)."""

    def __init__(self, problem) -> None:
        self.problem = problem
        self.iterates = []

    def __getattr__(self, name):
        return getattr(self.problem, name)

    def retract(self, X, dX):
        out = self.problem.retract(X, dX)
        self.iterates.append(np.array(out))
        return out


def readme_fourbar(driven=True):
    """The README four-bar at its rough sketch; ``O4`` joins the rocker to the ground."""
    mech = ms.Mechanism()
    ground = mech.ground
    crank = mech.add_body("crank", position=(0.5, 0.0), angle=0.0)
    coupler = mech.add_body("coupler", position=(2.0, 1.0), angle=0.3)
    rocker = mech.add_body("rocker", position=(4.0, 1.5), angle=1.5)
    mech.add(joints.Revolute(ground, crank, (0.0, 0.0), (-0.5, 0.0), name="O2"))
    mech.add(joints.Revolute(crank, coupler, (0.5, 0.0), (-1.5, 0.0), name="A"))
    mech.add(joints.Revolute(coupler, rocker, (1.5, 0.0), (-1.75, 0.0), name="B"))
    o4 = mech.add(joints.Revolute(rocker, ground, (1.75, 0.0), (4.0, 0.0), name="O4"))
    if driven:
        mech.add(joints.Driver(crank, "angle", 0.0, name="motor"))
    return mech, o4


def _same(problem):
    return lambda copies: problem


# -- the cases: (problem, start, problem for a batch of copies, method, options) ----------------
def system_readme_sketch():
    mech, _ = readme_fourbar()
    p = mech.system().problem()
    return p, mech.state, _same(p), "newton", {}


def system_readme_far_start():
    # far from the assembly: damping, a larger factor tried again, least squares
    mech, _ = readme_fourbar()
    mech.solve()
    p = mech.system().problem()
    x0 = mech.state + np.random.default_rng(1).normal(size=(3, len(mech.state)))[2]
    return p, x0, _same(p), "newton", {}


def system_readme_undamped():
    mech, _ = readme_fourbar()
    mech.solve()
    p = mech.system().problem()
    x0 = mech.state + np.random.default_rng(5).normal(scale=0.05, size=len(mech.state))
    return p, x0, _same(p), "newton", {"damped": False}


def system_readme_least_squares():
    mech, _ = readme_fourbar()
    p = mech.system().problem()
    return p, mech.state, _same(p), "newton", {"strategy": LinearStrategy("lsq")}


def system_readme_lm():
    mech, _ = readme_fourbar()
    p = mech.system().problem()
    return p, mech.state, _same(p), "lm", {"max_iterations": 60}


def system_chain10_step():
    model = ms.models.fourbar_chain(10)
    mech = model.mechanism
    mech.solve()
    model.driver.value = model.driver.value + 0.1
    p = mech.system().problem()
    return p, mech.state, _same(p), "newton", {}


def system_rssr_offset():
    model = ms.models.spatial.rssr()
    mech = model.mechanism
    mech.solve()
    p = mech.system().problem()
    x0 = p.retract(mech.state[None],
                   0.2 * np.random.default_rng(7).normal(size=(1, len(p.col_scale))))[0]
    return p, x0, _same(p), "newton", {}


def system_chain20_sparse():
    model = ms.models.fourbar_chain(20)    # 123 unknowns: sparse, finished by simplified steps
    mech = model.mechanism
    mech.solve()
    model.driver.value = model.driver.value + 0.1
    p = mech.system().problem()
    return p, mech.state, None, "newton", {}     # sparse: one item only


def system_unreachable():
    mech, _ = readme_fourbar()
    mech.joints[3].point2 = (9.0, 0.0)     # O4 out of the coupler's and the rocker's reach
    p = mech.system().problem()
    return p, mech.state, _same(p), "newton", {}


def held_readme_stop():
    from mechsolve._limits import HeldProblem

    mech, o4 = readme_fourbar(driven=False)
    mech.solve()
    o4.limits = (o4.limit_measure() + 0.2, None)
    system = mech.system()
    limits = system.limits
    held = limits.violated(limits.measure(mech.state), 1e-10)
    assert held
    p = HeldProblem(system, limits, held)
    return p, mech.state, _same(p), "newton", {}


def _ur5_targets(seed):
    arm = ms.robots.ur5()
    rng = np.random.default_rng(seed)
    q = rng.uniform(-np.pi, np.pi, size=(1, 6))
    frames = arm.forward(q)
    targets = np.concatenate([frames.translation, frames.quaternion], axis=1)
    return arm, q[0], arm._fast.start(targets), rng


def _ik_problem(arm, base):
    from mechsolve.robots._ik import _IKProblem

    p = _IKProblem(arm._fast, base, arm._col_scale, arm._length)
    return p, lambda copies: _IKProblem(arm._fast, np.repeat(base, copies, axis=0),
                                        arm._col_scale, arm._length)


def ik_ur5_near():
    arm, q, base, rng = _ur5_targets(21)
    p, batch = _ik_problem(arm, base)
    return p, q + rng.uniform(-0.3, 0.3, 6), batch, "newton", {"max_step": 1.0,
                                                              "lambda_min": 0.25}


def ik_ur5_far_lm():
    arm, q, base, rng = _ur5_targets(22)
    p, batch = _ik_problem(arm, base)
    return p, rng.uniform(-np.pi, np.pi, 6), batch, "lm", {"max_iterations": 50}


def ik_ur5_far_newton():
    # damped steps whose trial predicts a four times larger factor: tried again with it
    arm, q, base, _ = _ur5_targets(24)
    p, batch = _ik_problem(arm, base)
    x0 = q + np.random.default_rng(11).uniform(-2.0, 2.0, 6)
    return p, x0, batch, "newton", {"max_step": 1.0}


def chart_fourbar():
    from mechsolve.analysis.free_motion import _Chart

    model = ms.models.fourbar()
    mech = model.mechanism
    mech.solve()
    mech.remove(model.driver)
    basis = mech.free_motions()
    chart = _Chart(mech, basis, 0, 1e-10, 25)
    s = 0.4
    chart.target = s * chart.e
    x0 = chart.sys.retract(chart.q0, s * chart.tangent(chart.q0))
    return chart, x0, _same(chart), "newton", {"lambda_min": 0.25}


CASES = {f.__name__: f for f in (
    system_readme_sketch, system_readme_far_start, system_readme_undamped,
    system_readme_least_squares, system_readme_lm, system_chain10_step, system_rssr_offset,
    system_chain20_sparse, system_unreachable, held_readme_stop, ik_ur5_near, ik_ur5_far_lm,
    ik_ur5_far_newton, chart_fourbar)}


def solve(name: str, path: str):
    """Case ``name`` solved on ``path`` (``"one"`` or ``"batch"``): ``(result, iterates)``,
    the iterates ``(n_iterates, n_state)`` of the first item."""
    problem, x0, batch, method, options = CASES[name]()
    copies = 1 if path == "one" else COPIES
    recorded = Recorded(problem if path == "one" else batch(copies))
    X0 = np.repeat(np.asarray(x0, dtype=float)[None], copies, axis=0)
    run = newton if method == "newton" else levenberg_marquardt
    out = run(recorded, X0, **options)
    return out, np.array([X[0] for X in recorded.iterates])


def outcome(name: str, path: str) -> dict:
    """What the reference keeps of a case on a path."""
    out, iterates = solve(name, path)
    return {"x": out.x[0].tolist(), "status": int(out.status[0]),
            "iterations": int(out.iterations[0]), "residual": float(out.residual[0]),
            "iterates": iterates.tolist()}


def main() -> None:
    """Write the reference; the first argument, if any, says which revision wrote it."""
    reference = {}
    for name, build in CASES.items():
        paths = ["one"] if build()[2] is None else ["one", "batch"]
        reference[name] = {path: outcome(name, path) for path in paths}
        print(name, {p: (r["status"], r["iterations"]) for p, r in reference[name].items()},
              file=sys.stderr)
    written_by = sys.argv[1] if len(sys.argv) > 1 else ms.__version__
    REFERENCE.write_text(json.dumps({"written_by": written_by, "cases": reference},
                                    separators=(",", ":")) + "\n")


if __name__ == "__main__":
    main()
