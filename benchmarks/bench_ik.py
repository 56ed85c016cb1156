"""UR5 and PUMA 560 inverse kinematics over random reachable targets, one at a time and all at
once.

Run: python benchmarks/bench_ik.py [--quick] [--out PATH]

Targets are the forward kinematics of 100 random joint vectors (uniform in [-pi, pi]).

Part 1 (UR5, every start the true joint vector plus up to 0.2 rad of uniform noise per joint)
compares the ways of solving:

* ``arm.ik`` batch -- :meth:`mechsolve.robots.SerialArm.ik`: Newton on the core
  (:mod:`mechsolve.newton`, all targets through the batch axis, steps limited to 1 rad), then
  Levenberg–Marquardt and seeded restarts for the targets Newton does not reach;
* ``solve_batch`` -- the compact :class:`~mechsolve.joints.SerialChain` mechanism through
  :func:`mechsolve.analysis.solve_batch` (plain Newton steps);
* ``arm.ik`` one at a time, and ``mech.solve()`` one at a time on the compact mechanism;
* the multibody model (6 bodies, 6 link joints, a frame end effector: 42 unknowns) solved with
  ``mech.solve()`` one at a time, on the first 20 targets.

Each row gives the median time per target (batch: median of whole-batch times / 100; one at a
time: median over targets), how many targets were met (tool frame within 1e-9 of the target by
forward kinematics) and how many agree with ``arm.ik``'s joint values.
Targets of the issue: batch <= 20 us per target, one at a time <= 150 us.

Part 2 runs ``arm.ik`` on the UR5 and the PUMA 560 from three kinds of start: the all-zero
vector, unrelated random vectors (uniform in [-pi, pi]) and the near starts above; batch and one
at a time. Each row gives the time per target (batch: median whole-batch time / 100; one at a
time: the median and the mean over targets, since a few hard targets cost many times the
median) and how many targets were met to 1e-10 (position-error length and rotation angle by
forward kinematics).

Writes JSON to ``--out`` (default: ``ik.json`` in a ``mechsolve-bench`` directory under the
system's temporary directory, outside the source tree).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import tempfile
import time

import numpy as np

import mechsolve as ms


def median_time(fn, repeats):
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def met(arm, Q, Q_true):
    return np.max(np.abs(arm.forward_matrix(Q) - arm.forward_matrix(Q_true)), axis=(1, 2)) < 1e-9


PUMA560_DH = [(0.0, 0.0, np.pi / 2), (0.0, 0.4318, 0.0), (0.15005, 0.0203, -np.pi / 2),
              (0.4318, 0.0, np.pi / 2), (0.0, 0.0, -np.pi / 2), (0.0, 0.0, 0.0)]


def goal_met(arm, Q, T, tol=1e-10):
    """Position-error length and rotation angle within ``tol``, by forward kinematics."""
    M = arm.forward_matrix(Q)
    pos = np.linalg.norm(M[..., :3, 3] - T[..., :3, 3], axis=-1)
    R = np.swapaxes(T[..., :3, :3], -1, -2) @ M[..., :3, :3]
    axis = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                     R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    ang = np.arctan2(0.5 * np.linalg.norm(axis, axis=-1),
                     0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0))
    return (pos <= tol) & (ang <= tol)


def starts_study(repeats: int, n: int = 100) -> list[dict]:
    """``arm.ik`` from zero, random and near starts on the UR5 and the PUMA 560."""
    rows = []
    for name, arm in (("UR5", ms.robots.ur5()), ("PUMA 560", ms.robots.dh_arm(PUMA560_DH))):
        rng = np.random.default_rng(2025)
        Q_true = rng.uniform(-np.pi, np.pi, size=(n, 6))
        T = arm.forward_matrix(Q_true)
        starts = {"zero": np.zeros_like(Q_true),
                  "random": rng.uniform(-np.pi, np.pi, size=Q_true.shape),
                  "near (0.2 rad)": Q_true + rng.uniform(-0.2, 0.2, size=Q_true.shape)}
        for kind, S in starts.items():
            res = arm.ik(T, S, raise_on_failure=False)
            t = median_time(lambda a=arm, T=T, S=S: a.ik(T, S, raise_on_failure=False),
                            repeats)
            per = []
            Q1 = np.empty_like(S)
            for i in range(n):
                ts = []
                for _ in range(max(1, repeats // 3)):
                    t0 = time.perf_counter()
                    r = arm.ik(T[i], S[i], raise_on_failure=False)
                    ts.append(time.perf_counter() - t0)
                per.append(np.median(ts))
                Q1[i] = r.q
            rows.append({"arm": name, "start": kind, "batch_us_per_target": t / n * 1e6,
                         "batch_met": int(goal_met(arm, res.q, T).sum()),
                         "batch_claimed": int(res.success.sum()),
                         "one_median_us": float(np.median(per)) * 1e6,
                         "one_mean_us": float(np.mean(per)) * 1e6,
                         "one_met": int(goal_met(arm, Q1, T).sum()),
                         "median_iterations": float(np.median(res.iterations))})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats")
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path(tempfile.gettempdir()) / "mechsolve-bench"
                        / "ik.json", help="where to write the JSON results")
    args = parser.parse_args()
    repeats = 3 if args.quick else 9
    arm = ms.robots.ur5()
    rng = np.random.default_rng(2024)
    n = 100
    Q_true = rng.uniform(-np.pi, np.pi, size=(n, 6))
    starts = Q_true + rng.uniform(-0.2, 0.2, size=Q_true.shape)
    F = arm.forward(Q_true)
    T7 = np.concatenate([F.translation, F.quaternion], axis=1)
    rows = []

    # 1. arm.ik, all targets at once
    ref = arm.ik(T7, starts, raise_on_failure=False)
    t = median_time(lambda: arm.ik(T7, starts, raise_on_failure=False), repeats)
    rows.append({"method": "arm.ik, batch of 100", "us_per_target": t / n * 1e6,
                 "met": int(met(arm, ref.q, Q_true).sum()), "agree": n,
                 "median_iterations": float(np.median(ref.iterations))})

    # 2. compact chain through solve_batch
    mech, chain = arm.chain_mechanism()
    P = chain.params_for(T7)
    out = mech.solve_batch(starts, params={chain: P}, raise_on_failure=False)
    t = median_time(lambda: mech.solve_batch(starts, params={chain: P},
                                             raise_on_failure=False), repeats)
    rows.append({"method": "SerialChain + solve_batch, batch of 100",
                 "us_per_target": t / n * 1e6, "met": int(met(arm, out.states, Q_true).sum()),
                 "agree": int(np.all(np.abs(out.states - ref.q) < 1e-6, axis=1).sum()),
                 "median_iterations": float(np.median(out.iterations))})

    # 3. arm.ik, one at a time
    per = []
    Q1 = np.empty_like(starts)
    for i in range(n):
        ts = []
        for _ in range(repeats):
            t0 = time.perf_counter()
            r = arm.ik(T7[i], starts[i], raise_on_failure=False)
            ts.append(time.perf_counter() - t0)
        per.append(np.median(ts))
        Q1[i] = r.q
    rows.append({"method": "arm.ik, one at a time", "us_per_target": float(np.median(per)) * 1e6,
                 "met": int(met(arm, Q1, Q_true).sum()),
                 "agree": int(np.all(np.abs(Q1 - ref.q) < 1e-6, axis=1).sum()),
                 "median_iterations": None})

    # 4. one at a time through mech.solve() on the compact chain
    per = []
    Q2 = np.empty_like(starts)
    ok = np.zeros(n, dtype=bool)
    for i in range(n):
        ts = []
        for _ in range(max(1, repeats // 3)):
            chain.coordinates = starts[i]
            chain._p[-7:] = T7[i]
            t0 = time.perf_counter()
            try:
                mech.solve()
                ok[i] = True
            except ms.SolveError:
                ok[i] = False
            ts.append(time.perf_counter() - t0)
        per.append(np.median(ts))
        Q2[i] = chain.coordinates
    rows.append({"method": "SerialChain + mech.solve(), one at a time",
                 "us_per_target": float(np.median(per)) * 1e6,
                 "met": int((met(arm, Q2, Q_true) & ok).sum()),
                 "agree": int(np.all(np.abs(Q2 - ref.q) < 1e-6, axis=1).sum()),
                 "median_iterations": None})

    # 5. the full multibody model, one at a time (first 20 targets)
    m = 20
    per = []
    Q3 = np.empty((m, 6))
    ok = np.zeros(m, dtype=bool)
    model = arm.mechanism(starts[0], target=ms.Frame(T7[0, :3], ms.Orientation(T7[0, 3:])))
    model.mechanism.solve()
    for i in range(m):
        state = arm.mechanism(starts[i]).mechanism.state
        model.end_effector.target = ms.Frame(T7[i, :3], ms.Orientation(T7[i, 3:]))
        model.mechanism.state = state
        t0 = time.perf_counter()
        try:
            model.mechanism.solve()
            ok[i] = True
        except ms.SolveError:
            ok[i] = False
        per.append(time.perf_counter() - t0)
        Q3[i] = model.q
    rows.append({"method": f"multibody model (42 unknowns) + mech.solve(), first {m}",
                 "us_per_target": float(np.median(per)) * 1e6,
                 "met": int((met(arm, Q3, Q_true[:m]) & ok).sum()), "of": m,
                 "agree": int(np.all(np.abs(Q3 - ref.q[:m]) < 1e-6, axis=1).sum()),
                 "median_iterations": None})

    print("UR5 inverse kinematics, 100 random reachable targets, starts within 0.2 rad")
    print(f"{'method':<50}{'us/target':>10}{'met':>6}{'agree':>7}")
    for r in rows:
        total = r.get("of", n)
        print(f"{r['method']:<50}{r['us_per_target']:>10.1f}{r['met']:>4}/{total:<3}"
              f"{r['agree']:>4}/{total}")
    verdict = {"batch_target_us": 20.0, "one_at_a_time_target_us": 150.0,
               "batch_met": rows[0]["us_per_target"] <= 20.0,
               "one_at_a_time_met": rows[2]["us_per_target"] <= 150.0}
    print(f"targets: batch <= 20 us/target: {'met' if verdict['batch_met'] else 'NOT met'}; "
          f"one at a time <= 150 us: {'met' if verdict['one_at_a_time_met'] else 'NOT met'}")

    study = starts_study(repeats)
    print(f"\narm.ik from three kinds of start, {n} random reachable targets, met to 1e-10")
    print(f"{'arm':<10}{'start':<16}{'batch us/t':>11}{'met':>8}{'one median':>12}"
          f"{'one mean':>10}{'met':>8}")
    for r in study:
        print(f"{r['arm']:<10}{r['start']:<16}{r['batch_us_per_target']:>11.1f}"
              f"{r['batch_met']:>4}/{n:<3}{r['one_median_us']:>12.1f}{r['one_mean_us']:>10.1f}"
              f"{r['one_met']:>4}/{n:<3}")
    out_path = args.out
    out_path.parent.mkdir(parents=True, exist_ok=True)
    out_path.write_text(json.dumps({"machine": platform.platform(), "numpy": np.__version__,
                                    "targets": n, "rows": rows, "verdict": verdict,
                                    "starts": study}, indent=2))
    print(f"\nwrote {out_path}")


if __name__ == "__main__":
    main()
