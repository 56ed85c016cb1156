"""The reliability campaign at scale: random assemblable linkages solved and swept from rough
starts, every answer checked from the poses alone (see ``tests/_campaign.py``).

Run: python benchmarks/campaign.py [--trials 10000] [--seed 0] [--jobs 1]
                                   [--share sweep=0.15 --share far=0.15 ...]

Trial types (shares of ``--trials``; the rest are rough-start solves at the origin): ``far``
(the same trial placed far from the origin, judged also against the origin's), ``sweep``,
``branch`` (four-bar ``branch=`` solves), ``move`` (a five-bar's two drivers changed at once),
``batch`` (``solve_batch`` against ``solve()``, 8 items each) and ``velocity`` (velocities
against finite differences). Kinds: planar four-bars, slider-cranks, Watt and Stephenson
six-bars, five-bars; spatial RSSR, spherical four-bars, welds and hinges, Bennett, RSUR,
RSSP, Stewart platforms.

Prints the outcomes by row (kind, and sweep / batch / velocity / move / branch / far) -- ok,
nearer or other assembly, sketched circuit, false successes, false failures, branch jumps,
answers unlike the origin's, verified limit positions, skipped -- and lists every trial that
is not ok with the call that replays it (``_campaign.run_trial(kind, seed, ...)`` and its
siblings); skipped and limit trials are summarized by reason. Writes JSON to ``--out``
(default outside the source tree; see ``_output.py``).
"""

from __future__ import annotations

import argparse
import collections
import json
import pathlib
import platform
import sys
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE.parent / "tests")]  # this checkout's package

import _campaign as campaign  # noqa: E402
from _output import add_out_option, prepare  # noqa: E402


def _run(entry):
    f, args, kwargs = entry
    return f(*args, **kwargs)


def _share(text: str):
    name, _, value = text.partition("=")
    if name not in campaign.SHARES or not value:
        raise argparse.ArgumentTypeError(
            f"--share takes TYPE=FRACTION with TYPE one of {', '.join(campaign.SHARES)}, "
            f"got {text!r}")
    return name, float(value)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trials", type=int, default=10000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument("--share", type=_share, action="append", default=[],
                        help="TYPE=FRACTION of the trials (defaults: " + ", ".join(
                            f"{k}={v}" for k, v in campaign.SHARES.items()) + ")")
    parser.add_argument("--sweep-share", type=float, default=None,
                        help="the same as --share sweep=FRACTION")
    add_out_option(parser, "campaign.json")
    args = parser.parse_args()
    shares = dict(args.share)
    if args.sweep_share is not None:
        shares["sweep"] = args.sweep_share
    plan = campaign.plan(args.trials, args.seed, shares=shares)
    t0 = time.perf_counter()
    trials = []
    if args.jobs > 1:
        import multiprocessing

        with multiprocessing.get_context("spawn").Pool(args.jobs) as pool:
            for k, trial in enumerate(pool.imap(_run, plan, chunksize=8)):
                trials.append(trial)
                if (k + 1) % 1000 == 0:
                    print(f"  {k + 1} trials, {time.perf_counter() - t0:.0f} s",
                          file=sys.stderr, flush=True)
    else:
        for k, entry in enumerate(plan):
            trials.append(_run(entry))
            if (k + 1) % 1000 == 0:
                print(f"  {k + 1} trials, {time.perf_counter() - t0:.0f} s", file=sys.stderr,
                      flush=True)
    elapsed = time.perf_counter() - t0
    rows = campaign.table(trials)
    cols = campaign.OUTCOMES
    width = max(len(r) for r in rows) + 2
    short = {c: c.replace("_", " ") for c in cols}
    print(f"{'row':<{width}}" + "".join(f"{short[c]:>17}" for c in cols))
    total = dict.fromkeys(cols, 0)
    for kind, row in sorted(rows.items()):
        print(f"{kind:<{width}}" + "".join(f"{row[c]:>17}" for c in cols))
        for c in cols:
            total[c] += row[c]
    print(f"{'all':<{width}}" + "".join(f"{total[c]:>17}" for c in cols))
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
        print(f"  {t.outcome:<16} {t.replay():<52} scale {t.scale:.3g} "
              f"far {t.far:.3g} conditioning {t.extra.get('conditioning', 0):.3g} {t.detail}")
    for outcome in ("skipped", "limit"):
        reasons = collections.Counter(
            (t.row, (t.detail or "conditioning above the threshold").split(":")[0][:70])
            for t in trials if t.outcome == outcome)
        for (row, reason), n in sorted(reasons.items()):
            print(f"  {outcome:<8} {n:>5}  {row:<28} {reason}")
    out = prepare(args.out)
    out.write_text(json.dumps({
        "machine": platform.platform(), "python": platform.python_version(),
        "trials": len(trials), "seconds": elapsed, "seed": args.seed,
        "shares": dict(campaign.SHARES, **shares), "table": rows, "totals": total,
        "not_ok": [dict(kind=t.kind, seed=t.seed, sweep=t.sweep, far=t.far,
                        outcome=t.outcome, replay=t.replay(), detail=t.detail,
                        scale=t.scale, **_plain(t.extra))
                   for t in trials if t.outcome != "ok"]},
        indent=2))
    print(f"wrote {out}")


def _plain(extra: dict) -> dict:
    """JSON-ready values (NumPy scalars and booleans as Python's)."""
    out = {}
    for k, v in extra.items():
        if isinstance(v, (list, tuple)):
            out[k] = [float(x) for x in v]
        elif isinstance(v, str):
            out[k] = v
        elif hasattr(v, "item"):
            out[k] = v.item()
        else:
            out[k] = v
    return out


if __name__ == "__main__":
    main()
