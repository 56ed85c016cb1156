"""Old against new, interleaved: the same measures on two revisions, alternating, in one run.

Run: python benchmarks/interleave.py [--base REV] [--rounds 5] [--out FILE]

The machine is noisy, so the two revisions are measured in alternation (old, new, old, new,
...), each measure in a fresh process with the revision's package first on ``sys.path``, and
the table gives the medians and the median of the per-round ratios new/old. ``--base``
(default ``HEAD~1``) is checked out into a temporary git worktree, removed at the end. The
measures use only the public API, so they run on any revision:

* four-bar, 360 poses at 1 degree: ``mech.sweep`` batched and sequential, microseconds per pose,
  and the largest error of the coupler pin against the closed form;
* chain of 10^4 four-bar loops (``models.fourbar_chain``), driver moved by 0.1 rad from the
  assembled pose: one ``mech.solve()``, milliseconds and iterations;
* UR5 inverse kinematics, 100 random reachable targets, starts within 0.2 rad: ``arm.ik`` as a
  batch and one target at a time, microseconds per target, and targets met (the tool within
  1e-9 of the target by forward kinematics).

* ``--only build``: ``models.fourbar_chain(N)`` for N = 10^4 and 10^5: build, first compile
  (``mech.system()``) and one solve with the driver moved by 0.1 rad, seconds, and
  ``build+compile / solve`` (issue 28: <= 2);
* ``--only evaluate``: ``System.evaluate`` at the assembled pose and one ``mech.solve()`` after
  a 0.3 rad (four-bar) or 0.1 rad (chains) driver move, on the README four-bar and
  ``models.fourbar_chain(1000)`` and ``(10000)``, microseconds (10th percentile of the calls).

Writes JSON to ``--out`` (default: a file in the system's temporary directory).

The other old-against-new scripts (``linalg_paths.py``, ``newton_paths.py``,
``timed_speed.py``, ``results_overhead.py``) run their own measures through the functions
here: :func:`measure` (one measure in a fresh process on a tree), :func:`interleaved` (the
rounds, old and new alternating), :func:`compare` (medians and median ratios) and
:func:`print_table`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

import numpy as np

MEASURE = r'''
import json, sys, time
import numpy as np
import mechsolve as ms

def median_time(fn, repeats):
    out = []
    for _ in range(repeats):
        t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
    return float(np.median(out))

what = sys.argv[1]
res = {}
if what == "fourbar":
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    values = np.radians(np.arange(360.0))
    q0 = mech.state
    a, b, c, d = 1.0, 3.0, 3.5, 4.0
    t = values
    A = np.stack([a * np.cos(t), a * np.sin(t)], 1)
    D = np.array([d, 0.0]) - A
    e = np.linalg.norm(D, axis=1)
    phi = np.arctan2(D[:, 1], D[:, 0]) + np.arccos((b**2 + e**2 - c**2) / (2 * b * e))
    B = A + b * np.stack([np.cos(phi), np.sin(phi)], 1)
    for name, batch in (("sweep batched", True), ("sweep sequential", False)):
        def run():
            mech.state = q0
            return mech.sweep(drive, values, batch=batch)
        motion = run()
        res[name + " us/pose"] = median_time(run, 9) / len(values) * 1e6
        res[name + " error"] = float(np.max(np.abs(motion.point(mech.body("coupler"),
                                                               (1.5, 0.0)) - B)))
elif what == "chain":
    model = ms.models.fourbar_chain(10000)
    mech = model.mechanism
    mech.solve()
    q0 = mech.state
    model.driver.value = model.values[1]
    times, its = [], []
    for _ in range(5):
        mech.state = q0
        t0 = time.perf_counter(); r = mech.solve(); times.append(time.perf_counter() - t0)
        its.append(r.iterations)
    res["chain 1e4 ms"] = float(np.median(times)) * 1e3
    res["chain 1e4 iterations"] = int(np.median(its))
elif what == "ik":
    arm = ms.robots.ur5()
    rng = np.random.default_rng(2024)
    Q = rng.uniform(-np.pi, np.pi, size=(100, 6))
    S = Q + rng.uniform(-0.2, 0.2, size=Q.shape)
    F = arm.forward(Q)
    T7 = np.concatenate([F.translation, F.quaternion], axis=1)
    M = arm.forward_matrix(Q)
    def met(Qs):
        return int(np.sum(np.max(np.abs(arm.forward_matrix(Qs) - M), axis=(1, 2)) < 1e-9))
    out = arm.ik(T7, S, raise_on_failure=False)
    res["ik batch us/target"] = median_time(
        lambda: arm.ik(T7, S, raise_on_failure=False), 9) / 100 * 1e6
    res["ik batch met"] = met(out.q)
    singles = [arm.ik(T7[i], S[i], raise_on_failure=False).q for i in range(100)]
    res["ik single us/target"] = median_time(
        lambda: [arm.ik(T7[i], S[i], raise_on_failure=False) for i in range(100)], 5) / 100 * 1e6
    res["ik single met"] = met(np.array(singles))
elif what == "build":
    for n in (10000, 100000):
        t0 = time.perf_counter()
        model = ms.models.fourbar_chain(n)
        t1 = time.perf_counter()
        model.mechanism.system()
        t2 = time.perf_counter()
        mech = model.mechanism
        mech.solve()
        model.driver.value = model.values[1]
        t3 = time.perf_counter()
        mech.solve()
        t4 = time.perf_counter()
        res[f"chain {n} build s"] = t1 - t0
        res[f"chain {n} compile s"] = t2 - t1
        res[f"chain {n} solve s"] = t4 - t3
        res[f"chain {n} (b+c)/solve"] = (t2 - t0) / (t4 - t3)
        del model, mech
elif what == "evaluate":
    def p10(fn, n):
        out = []
        for _ in range(n):
            t0 = time.perf_counter(); fn(); out.append(time.perf_counter() - t0)
        return float(np.percentile(out, 10)) * 1e6
    cases = [("four-bar", ms.models.fourbar(), 0.3, 2000, 300)]
    cases += [(f"chain {n}", ms.models.fourbar_chain(n), 0.1, reps, solves)
              for n, reps, solves in ((1000, 200, 30), (10000, 30, 7))]
    for name, model, move, reps, solves in cases:
        mech, drive = model.mechanism, model.driver
        mech.solve()
        q0, v0 = mech.state, drive.value
        system = mech.system()
        res[f"{name} evaluate us"] = p10(lambda: system.evaluate(q0), reps)
        def solve():
            mech.state = q0
            drive.value = v0 + move
            mech.solve()
        res[f"{name} solve us"] = p10(solve, solves)
print(json.dumps(res))
'''


def measure(tree: pathlib.Path, what: str | None = None, script: str = MEASURE,
            env: dict | None = None) -> dict:
    """One measure in a fresh process: ``python -c script [what]`` with ``tree`` first on
    ``sys.path`` (and as its working directory) and ``env`` added to the environment; the
    dict its last line of output prints as JSON."""
    env = dict(os.environ, PYTHONPATH=str(tree), **(env or {}))
    args = [sys.executable, "-c", script] + ([] if what is None else [what])
    out = subprocess.run(args, env=env, cwd=tree, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def interleaved(trees: dict, whats, rounds: int, *, script: str = MEASURE,
                env: dict | None = None, alternate: bool = True, by_measure: bool = False,
                skip=None, log: bool = True) -> dict:
    """Run every measure of ``whats`` (arguments of ``script``; ``[None]``: the script
    takes none) on the trees ``{"old": path, "new": path}``, round after round.

    ``alternate``: which tree goes first alternates between rounds (so that a drift in the
    machine's load favours neither); ``by_measure``: old and new alternate measure by measure
    (else each tree runs all its measures in turn); ``skip(round, what)``: measures left out
    of a round (a slow one measured in the first round only). Returns ``{"old": [row per
    round], "new": [...]}``, each row the measures' keys and values."""
    labels = ("old", "new")
    out = {label: [] for label in labels}
    for r in range(rounds):
        order = labels if not alternate or r % 2 == 0 else labels[::-1]
        rows = {label: {} for label in order}
        todo = [w for w in whats if skip is None or not skip(r, w)]
        if by_measure:
            for what in todo:
                for label in order:
                    rows[label].update(measure(trees[label], what, script, env))
        else:
            for label in order:
                for what in todo:
                    rows[label].update(measure(trees[label], what, script, env))
        for label in labels:
            out[label].append(rows[label])
        if log:
            print(f"round {r + 1}/{rounds} done", file=sys.stderr)
    return out


def compare(rounds: dict) -> dict:
    """Per measure (in the order of the new tree's first round): the medians over rounds of
    old and new, the median of the per-round ratios new/old (rounds where both measured it),
    the ratios and their count."""
    keys = list(rounds["new"][0])
    table = {}
    for k in keys:
        pairs = [(o[k], n[k]) for o, n in zip(rounds["old"], rounds["new"])
                 if k in o and k in n]
        old = np.array([p[0] for p in pairs], dtype=float)
        new = np.array([p[1] for p in pairs], dtype=float)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratios = new / old
        table[k] = {"old": float(np.median(old)), "new": float(np.median(new)),
                    "median_ratio": float(np.median(ratios)), "ratios": ratios.tolist(),
                    "rounds": len(pairs)}
    return table


def print_table(table: dict, *, style: str = "columns", width: int = 30,
                value_format: str = ".4g", ratio_format: str = ".3g",
                ratio_header: str = "new/old", ratio_width: int = 10,
                value_header: tuple = ("old (median)", "new (median)"),
                value_width: int = 14, name_header: str = "measure") -> None:
    """Print :func:`compare`'s table: ``style="columns"`` (plain aligned columns),
    ``"bars"`` (aligned columns between ``|``, a rule of dashes under the header) or
    ``"markdown"`` (unpadded, right-aligned value columns)."""
    old_h, new_h = value_header
    if style == "markdown":
        print(f"| {name_header} | {old_h} | {new_h} | {ratio_header} |")
        print("|---|---:|---:|---:|")
    elif style == "bars":
        print(f"| {name_header:<{width}} | {old_h:>{value_width}} | {new_h:>{value_width}} | "
              f"{ratio_header:>{ratio_width}} |")
        print(f"|{'-' * (width + 2)}|{'-' * (value_width + 2)}|{'-' * (value_width + 2)}|"
              f"{'-' * (ratio_width + 2)}|")
    else:
        print(f"{name_header:<{width}}{old_h:>{value_width}}{new_h:>{value_width}}"
              f"{ratio_header:>{ratio_width}}")
    for k, row in table.items():
        old, new, ratio = row["old"], row["new"], row["median_ratio"]
        if style == "markdown":
            print(f"| {k} | {old:{value_format}} | {new:{value_format}} | "
                  f"{ratio:{ratio_format}} |")
        elif style == "bars":
            print(f"| {k:<{width}} | {old:>{value_width}{value_format}} | "
                  f"{new:>{value_width}{value_format}} | {ratio:>{ratio_width}{ratio_format}} |")
        else:
            print(f"{k:<{width}}{old:>{value_width}{value_format}}"
                  f"{new:>{value_width}{value_format}}{ratio:>{ratio_width}{ratio_format}}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD~1", help="the old revision (default HEAD~1)")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--only", nargs="*", default=["fourbar", "chain", "ik"])
    parser.add_argument("--out", default=str(pathlib.Path(tempfile.gettempdir())
                                             / "mechsolve_interleave.json"))
    args = parser.parse_args()
    here = pathlib.Path(__file__).resolve().parent.parent
    tmp = pathlib.Path(tempfile.mkdtemp(prefix="mechsolve-base-"))
    subprocess.run(["git", "worktree", "add", "--detach", str(tmp / "base"), args.base],
                   cwd=here, check=True, capture_output=True)
    old_tree = tmp / "base"
    try:
        rounds = interleaved({"old": old_tree, "new": here}, args.only, args.rounds,
                             alternate=False)
    finally:
        subprocess.run(["git", "worktree", "remove", "--force", str(old_tree)], cwd=here,
                       check=False, capture_output=True)
    table = compare(rounds)
    print_table(table)
    base = subprocess.run(["git", "rev-parse", args.base], cwd=here, capture_output=True,
                          text=True).stdout.strip()
    pathlib.Path(args.out).write_text(json.dumps({"base": base, "rounds": rounds,
                                                  "table": table}, indent=2))
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
