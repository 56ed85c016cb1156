"""Batches of planar mechanisms on the NumPy path and the compiled path (numba), interleaved.

Run: python benchmarks/compiled_batch.py [--rounds 7] [--designs 1000] [--out PATH]

Rows (each round times ``backend="numpy"`` and ``backend="numba"`` one after the other,
alternating which goes first; the table gives the medians and the median of the per-round
ratios numpy/numba, the speed-up):

1. ``ms.design.sweep``: the family of ``benchmarks/bench_design.py`` (random Grashof four-bars
   around ``ms.models.fourbar()``, ``--designs`` of them) over 36 crank angles, one coupler
   point kept (``outputs=``), in design-poses per second; the same with the states kept.
   Check: the largest difference of the points (NumPy's to the compiled path's);
2. ``mech.solve_batch``: ``--designs`` four-bar items, each its own crank angle from the
   assembled pose, in items per second. Check: the largest difference of the states.

numba's threads: ``NUMBA_NUM_THREADS`` (default the CPU count); the table says how many. The
compiled path is compiled (or loaded from numba's cache) before the rounds. Writes JSON to
``--out`` (default ``compiled_batch.json`` under the system's temporary directory).
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np
from _output import add_out_option, prepare
from bench_design import ANGLES, family

import mechsolve as ms


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return time.perf_counter() - t0, out


def _interleaved(run, rounds):
    """``run(backend)`` for both backends, ``rounds`` times, alternating which goes first:
    the times of each and the last results."""
    times = {"numpy": [], "numba": []}
    last = {}
    for r in range(rounds):
        for backend in (("numpy", "numba") if r % 2 == 0 else ("numba", "numpy")):
            t, last[backend] = _timed(lambda b=backend: run(b))
            times[backend].append(t)
    return times, last


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument("--designs", type=int, default=1000)
    add_out_option(parser, "compiled_batch.json")
    args = parser.parse_args()
    import numba

    model = ms.models.fourbar()
    mech = model.mechanism
    designs = family(args.designs)
    D, N = args.designs, len(ANGLES)
    point = [(model.output, (0.0, 1.0))]
    rows = []

    def sweep(backend, outputs):
        return ms.design.sweep(mech, designs, model.driver, ANGLES, outputs=outputs,
                               backend=backend)

    for outputs, what in ((point, "design.sweep, 1 point kept"),
                          (None, "design.sweep, states kept")):
        sweep("numba", outputs)   # compiled (or loaded from the cache) outside the times
        times, last = _interleaved(lambda b, o=outputs: sweep(b, o), args.rounds)
        a, b = last["numpy"], last["numba"]
        got = (a.points, b.points) if outputs else (a.states, b.states)
        check = float(np.nanmax(np.abs(got[0] - got[1])))
        assert np.array_equal(a.success, b.success)
        rows.append({"row": what, "count": D * N, "unit": "design-poses/s",
                     "numpy_s": float(np.median(times["numpy"])),
                     "numba_s": float(np.median(times["numba"])),
                     "speedup": float(np.median(np.array(times["numpy"])
                                                / np.array(times["numba"]))),
                     "handed_over": int(b.handed_over.size), "max_diff": check})

    mech.solve(backend="numpy")
    angles = np.random.default_rng(1).uniform(-np.pi, np.pi, D)

    def batch(backend):
        return mech.solve_batch(values={model.driver: angles}, backend=backend)

    batch("numba")
    times, last = _interleaved(batch, args.rounds)
    rows.append({"row": "solve_batch, crank angles", "count": D, "unit": "items/s",
                 "numpy_s": float(np.median(times["numpy"])),
                 "numba_s": float(np.median(times["numba"])),
                 "speedup": float(np.median(np.array(times["numpy"])
                                            / np.array(times["numba"]))),
                 "handed_over": int(last["numba"].handed_over.size),
                 "max_diff": float(np.max(np.abs(last["numpy"].states
                                                 - last["numba"].states)))})
    threads = numba.get_num_threads()
    print(f"{D} designs x {N} angles; numba {numba.__version__}, {threads} threads; "
          f"{args.rounds} rounds, medians")
    print(f"{'row':<28} {'numpy s':>9} {'numba s':>9} {'numpy /s':>10} {'numba /s':>10} "
          f"{'speed-up':>8} {'handed':>6} {'max diff':>9}")
    for r in rows:
        print(f"{r['row']:<28} {r['numpy_s']:>9.4f} {r['numba_s']:>9.4f} "
              f"{r['count'] / r['numpy_s']:>10.3g} {r['count'] / r['numba_s']:>10.3g} "
              f"{r['speedup']:>7.2f}x {r['handed_over']:>6} {r['max_diff']:>9.2g}")
    out = prepare(args.out)
    out.write_text(json.dumps({"machine": platform.processor() or platform.machine(),
                               "threads": threads, "designs": D, "angles": N,
                               "rows": rows}, indent=1))


if __name__ == "__main__":
    main()
