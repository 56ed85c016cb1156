"""UR5 inverse kinematics on the NumPy path and the compiled path (numba), interleaved.

Run: python benchmarks/ik_compiled.py [--rounds 7] [--out PATH] [--no-peer]

Targets are the forward kinematics of random joint vectors (uniform in [-pi, pi], seed 21);
starts are the true vectors plus up to 0.1 rad per joint (``near``) or all zero (``zero``).
Rows: one target (``arm.ik(T, q0)``; the median over 20 targets), and batches of 100 and 1000
(``arm.ik(T, Q0)``, whole-batch time / targets). Each round times ``backend="numpy"`` and
``backend="numba"`` one after the other (alternating which goes first), and the table gives
the medians in microseconds per target and the median of the per-round ratios numba/numpy.
``met`` counts the targets whose tool frame is within 1e-10 of the target by forward
kinematics (position error in units of the arm's length, rotation angle in radians), computed
here from the returned joint values.

Reported separately: the first compiled call in this process (numba's import and loading the
cache, or compiling where there is none) and, from a new process with a warm cache, the time
from the start of the interpreter to its first compiled solve (``import mechsolve`` included).

With roboticstoolbox-python importable (and no ``--no-peer``), its C++ ``ik_LM`` on the same
targets and starts is a peer column (the arm built from ``ms.robots.UR5_DH`` as in
``benchmarks/peers.py``; ``ets.ik_LM(T, q0=..., tol=1e-20, joint_limits=False)``, its default
iteration and restart limits, one target per call; batches of 100 only).

Writes JSON to ``--out`` (default: ``ik_compiled.json`` in a ``mechsolve-bench`` directory
under the system's temporary directory). Kept under two minutes on the 2-core machine.
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import subprocess
import sys
import tempfile
import time

import numpy as np

import mechsolve as ms

FIRST_SOLVE = r"""
import time; t0 = time.perf_counter()
import numpy as np, mechsolve as ms
arm = ms.robots.ur5(); q = np.array([0.1, -1.2, 1.4, -0.3, 1.5, 0.2])
res = arm.ik(arm.forward_matrix(q), q + 0.1, backend="numba")
assert res.success
print(time.perf_counter() - t0)
"""


def met(arm, Q, T, tol=1e-10):
    M = arm.forward_matrix(Q)
    pos = np.linalg.norm(M[..., :3, 3] - T[..., :3, 3], axis=-1) / arm.length_scale
    R = np.swapaxes(T[..., :3, :3], -1, -2) @ M[..., :3, :3]
    axis = np.stack([R[..., 2, 1] - R[..., 1, 2], R[..., 0, 2] - R[..., 2, 0],
                     R[..., 1, 0] - R[..., 0, 1]], axis=-1)
    cos = 0.5 * (np.trace(R, axis1=-2, axis2=-1) - 1.0)
    ang = np.arctan2(0.5 * np.linalg.norm(axis, axis=-1), cos)
    return int(np.count_nonzero((pos <= tol) & (ang <= tol)))


def time_one(arm, T, Q0, backend):
    """Median seconds per target over the targets, one call each; and the answers."""
    out, Q = [], []
    for k in range(len(T)):
        t0 = time.perf_counter()
        r = arm.ik(T[k], Q0[k], backend=backend, raise_on_failure=False)
        out.append(time.perf_counter() - t0)
        Q.append(r.q)
    return float(np.median(out)), np.array(Q)


def time_batch(arm, T, Q0, backend):
    t0 = time.perf_counter()
    r = arm.ik(T, Q0, backend=backend, raise_on_failure=False)
    return (time.perf_counter() - t0) / len(T), r.q


def rtb_peer():
    try:
        import roboticstoolbox as rtb  # optional peer
    except Exception:   # not installed (or broken): no peer column
        return None
    # the same arm as ms.robots.ur5(), as benchmarks/peers.py builds it
    robot = rtb.DHRobot([rtb.RevoluteDH(d=d, a=a, alpha=al) for d, a, al in ms.robots.UR5_DH],
                        name="UR5")
    ets = robot.ets()

    def solve(T, q0):
        sol = ets.ik_LM(np.ascontiguousarray(T), q0=q0, tol=1e-20, joint_limits=False)
        return sol.q, bool(sol.success)
    return solve


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--out", type=pathlib.Path,
                        default=pathlib.Path(tempfile.gettempdir()) / "mechsolve-bench"
                        / "ik_compiled.json")
    parser.add_argument("--no-peer", action="store_true")
    args = parser.parse_args(argv)

    arm = ms.robots.ur5()
    rng = np.random.default_rng(21)
    Qt = rng.uniform(-np.pi, np.pi, size=(1000, 6))
    T = arm.forward_matrix(Qt)
    starts = {"near": Qt + rng.uniform(-0.1, 0.1, Qt.shape), "zero": np.zeros_like(Qt)}

    t0 = time.perf_counter()
    arm.ik(T[0], starts["near"][0], backend="numba")
    first = time.perf_counter() - t0
    # warm both paths
    for b in ("numpy", "numba"):
        arm.ik(T[:100], starts["near"][:100], backend=b, raise_on_failure=False)

    peer = None if args.no_peer else rtb_peer()
    cases = [(f"one target, {s} start", s, 20, "one") for s in ("near", "zero")] + \
            [(f"batch of {n}, {s} starts", s, n, "batch") for n in (100, 1000)
             for s in ("near", "zero")]
    rows = []
    for label, s, n, how in cases:
        Tn, Q0 = T[:n], starts[s][:n]
        rounds = args.rounds if n < 1000 else max(2, args.rounds // 3)
        times = {"numpy": [], "numba": []}
        ratios = []
        answers = {}
        for r in range(rounds):
            order = ("numpy", "numba") if r % 2 == 0 else ("numba", "numpy")
            got = {}
            for b in order:
                f = time_one if how == "one" else time_batch
                got[b], answers[b] = f(arm, Tn, Q0, b)
                times[b].append(got[b])
            ratios.append(got["numba"] / got["numpy"])
        row = {"case": label,
               "numpy_us": 1e6 * float(np.median(times["numpy"])),
               "numba_us": 1e6 * float(np.median(times["numba"])),
               "ratio": float(np.median(ratios)),
               "met_numpy": met(arm, answers["numpy"], Tn),
               "met_numba": met(arm, answers["numba"], Tn), "n": n,
               "max_q_gap": float(np.max(np.abs(answers["numpy"] - answers["numba"])))}
        if peer is not None and n <= 100:
            ts, ok = [], 0
            Qp = []
            for k in range(n):
                t1 = time.perf_counter()
                q, success = peer(Tn[k], Q0[k])
                ts.append(time.perf_counter() - t1)
                Qp.append(q)
                ok += success
            row["rtb_us"] = 1e6 * float(np.median(ts) if how == "one" else np.sum(ts) / n)
            row["met_rtb"] = met(arm, np.array(Qp), Tn)
        rows.append(row)
        print(f"{label:28s} numpy {row['numpy_us']:9.1f} us  numba {row['numba_us']:8.1f} us  "
              f"ratio {row['ratio']:.3f}  met {row['met_numpy']}/{row['met_numba']} of {n}"
              + (f"  rtb ik_LM {row['rtb_us']:.1f} us, met {row['met_rtb']}"
                 if "rtb_us" in row else ""), flush=True)

    # a new process with a warm cache: interpreter start to its first compiled solve
    cold = []
    for _ in range(3):
        out = subprocess.run([sys.executable, "-c", FIRST_SOLVE], capture_output=True,
                             text=True, check=True)
        cold.append(float(out.stdout.strip().splitlines()[-1]))
    print(f"first compiled call in this process: {first:.3f} s; new process, warm cache, "
          f"to its first compiled solve: median {np.median(cold):.3f} s of {cold}")
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(json.dumps({"rows": rows, "first_call_s": first,
                                    "new_process_first_solve_s": cold,
                                    "python": platform.python_version(),
                                    "mechsolve": ms.__version__}, indent=1))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
