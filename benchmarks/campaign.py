"""The reliability campaign at scale: random assemblable linkages solved and swept from rough
starts, every answer checked from the poses alone (see ``tests/_campaign.py``).

Run: python benchmarks/campaign.py [--trials 10000] [--seed 0] [--sweep-share 0.2]

Prints the outcomes by kind -- ok, other assembly (success on another assembly than the drawn
one, from a start within 0.1 rad and 5 % of the size), false successes, false failures, branch
jumps in sweeps, verified limit positions, and trials skipped as too close to singular -- and
lists every trial that is not ok with its seed, so that each can be replayed with
``_campaign.run_trial(kind, seed)``. Writes JSON to ``--out`` (default outside the
source tree; see ``_output.py``).
"""

from __future__ import annotations

import argparse
import json
import pathlib
import platform
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "tests"))

import _campaign as campaign  # noqa: E402
from _output import add_out_option, prepare  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--sweep-share", type=float, default=0.2)
    add_out_option(parser, "campaign.json")
    args = parser.parse_args()
    t0 = time.perf_counter()
    trials = campaign.campaign(args.trials, args.seed, sweep_share=args.sweep_share)
    elapsed = time.perf_counter() - t0
    rows = campaign.table(trials)
    cols = campaign.OUTCOMES
    print(f"{'kind':<24}" + "".join(f"{c:>17}" for c in cols))
    total = dict.fromkeys(cols, 0)
    for kind, row in rows.items():
        print(f"{kind:<24}" + "".join(f"{row[c]:>17}" for c in cols))
        for c in cols:
            total[c] += row[c]
    print(f"{'all':<24}" + "".join(f"{total[c]:>17}" for c in cols))
    print(f"{len(trials)} trials in {elapsed:.0f} s")
    other = [t for t in trials if t.outcome == "other_assembly"]
    signed = [t for t in other if "crossed" in t.extra]
    if signed:
        across = sum(t.extra["start_across"] for t in signed)
        crossed = sum(t.extra["crossed"] and not t.extra["start_across"] for t in signed)
        print(f"other assemblies of square systems: {len(signed)}; the start across a singular "
              f"configuration from the drawn pose in {across}, Newton's path across one from "
              f"the start's side in {crossed}, neither in {len(signed) - across - crossed}")
    odd = [t for t in trials if t.outcome not in ("ok", "skipped", "limit")]
    for t in odd:
        print(f"  {t.outcome:<15} {t.kind:<18} seed {t.seed:<8} sweep {t.sweep!s:<5} "
              f"scale {t.scale:.3g} conditioning {t.extra.get('conditioning', 0):.3g} "
              f"{t.detail}")
    out = prepare(args.out)
    out.write_text(json.dumps({
        "machine": platform.platform(), "python": platform.python_version(),
        "trials": len(trials), "seconds": elapsed, "table": rows, "totals": total,
        "not_ok": [dict(kind=t.kind, seed=t.seed, sweep=t.sweep, outcome=t.outcome,
                        detail=t.detail, scale=t.scale, **t.extra) for t in odd]},
        indent=2))
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
