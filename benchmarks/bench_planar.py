"""Planar benchmarks: a four-bar over a full turn, and chains of N four-bar loops.

Run: python benchmarks/bench_planar.py [--quick]

Prints a table and writes JSON to ``--out`` (default outside the source tree; see
``_output.py``). All times are medians of repeats.

1. Four-bar (ground 4, crank 1, coupler 3, rocker 3.5), 360 poses at 1-degree steps, residual
   tolerance 1e-10: time per pose of ``mech.sweep`` (batched: coarse continuation pins the
   branch, then all poses are refined together through the batch axis), of the same sweep
   without batching, and of a plain loop that sets the driver and calls ``mech.solve()``.
2. Chain of N four-bar loops (2N+1 bodies, 3N+1 revolutes, one driver), the driver moved by
   0.1 rad from an assembled pose: total solve time, Newton iterations, the time of the
   sparse LU factorizations inside the solve (LAPACK's band LU ``gbtrf`` or SciPy's ``splu``,
   whichever the solver chose), and the best factorization of the same Jacobians timed alone:
   the fastest of the band LU (``gbtrf`` on the band storage, the scatter into it included)
   and SuperLU in the natural order (small panels and relaxed supernodes) or with COLAMD.
   ``total/(it*best)`` is the total over undamped Newton's iterations (plain full steps, counted
   until its pose is as exact as the solver's) times the best factorization of its Jacobians.
   ``plain ms`` times those undamped steps themselves with the solver's kernels and the band
   LU (evaluation, Jacobian, factorization, solve, update: no scaling, no tests, no last
   residual), interleaved with the solves: ``plain/(it*best)`` is what the yardstick's own
   algorithm takes against it, ``total/plain`` the solver against plain Newton.
"""

from __future__ import annotations

import argparse
import json
import platform
import time

import numpy as np
import scipy
import scipy.sparse.linalg as spla
from _output import add_out_option, prepare

import mechsolve as ms
import mechsolve.linalg._factor as linear_module
from mechsolve.solver import strategy_for


def median_time(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def bench_fourbar(repeats: int) -> dict:
    model = ms.models.fourbar()
    mech, drive = model.mechanism, model.driver
    values = np.radians(np.arange(360.0))
    q0 = mech.state

    def batched():
        mech.state = q0
        return mech.sweep(drive, values, tol=1e-10)

    def sequential():
        mech.state = q0
        return mech.sweep(drive, values, tol=1e-10, batch=False)

    def plain_loop():
        mech.state = q0
        for v in values:
            drive.value = v
            mech.solve(tol=1e-10)

    motion = batched()
    worst = float(motion.residuals.max())
    assert worst <= 1e-10, worst
    out = {"poses": len(values), "max_residual": worst}
    for name, fn in (("sweep (batched)", batched), ("sweep (sequential)", sequential),
                     ("plain solve() loop", plain_loop)):
        fn()
        t = median_time(fn, repeats)
        out[name] = {"total_ms": t * 1e3, "us_per_pose": t / len(values) * 1e6}
    return out


def _timed_solve(mech, q0):
    """One solve from ``q0``: ``(total, time inside the sparse factorizations)`` in seconds.

    ``scipy.sparse.linalg.splu`` and the band LU (``gbtrf``) are wrapped for the duration of
    the solve, so the second number is the time of exactly the factorizations this solve did,
    on its own Jacobians.
    """
    spent = []

    def timed(original):
        def wrapper(*args, **kwargs):
            t0 = time.perf_counter()
            lu = original(*args, **kwargs)
            spent.append(time.perf_counter() - t0)
            return lu
        return wrapper

    mech.state = q0
    splu, gbtrf = spla.splu, linear_module._gbtrf
    spla.splu, linear_module._gbtrf = timed(splu), timed(gbtrf)
    try:
        t0 = time.perf_counter()
        mech.solve(tol=1e-10)
        total = time.perf_counter() - t0
    finally:
        spla.splu, linear_module._gbtrf = splu, gbtrf
    return total, sum(spent)


def _undamped_newton(system, q0, q_star) -> list:
    """The iterates of plain Newton (full steps, SuperLU) from ``q0`` that are not yet within
    1e-13 of the solution ``q_star`` in every coordinate's size (lengths in model sizes)."""
    problem = system.problem()
    size = np.maximum(np.abs(q_star) / problem.state_scale, 1.0) * problem.state_scale
    iterates, q = [], np.array(q0, dtype=float)
    while np.max(np.abs(q - q_star) / size) > 1e-13:
        if len(iterates) == 20:
            raise RuntimeError("undamped Newton did not converge on the chain")
        iterates.append(q)
        F, vals = system.evaluate(q)
        dq = spla.splu(system.jacobian_sparse(vals).tocsc()).solve(-F)
        q = problem.retract(q[None], dq[None])[0]
    return iterates


def bench_chain(n_loops: int, repeats: int, build=None) -> dict:
    """Total solve time against the time of its LU factorizations.

    Two measures of the factorizations: the time spent inside ``splu`` during the timed solves
    themselves ("LU in solve"), and the same Jacobians factorized again on their own
    ("LU alone"), each LU dropped at once as in the solver. The two are interleaved with the
    solves, repeat by repeat, so that both see the same machine load; the ratio is the median
    of the per-repeat ratios of total to LU in solve.
    """
    model = (build or ms.models.fourbar_chain)(n_loops)
    mech, drive = model.mechanism, model.driver
    mech.solve()
    q0 = mech.state
    drive.value = model.values[1]
    mech.state = q0
    result = mech.solve(tol=1e-10)
    system = mech.system()
    linear = strategy_for(system)
    band = linear.band
    # Plain undamped Newton on the same system, the yardstick: its iterates' Jacobians are
    # factorized alone, and its iteration count is the number of full steps it takes until
    # its pose is as exact as the solver's (every coordinate within 1e-13 of its size)
    undamped = _undamped_newton(system, q0, mech.state)
    jacobians = [system.jacobian_sparse(system.evaluate(q)[1]).copy() for q in undamped]

    def band_lu(J):
        ab = np.zeros(band.width * J.shape[1])
        ab[band.layout(J.indptr, J.indices)] = J.data
        return scipy.linalg.lapack.dgbtrf(ab.reshape(J.shape[1], band.width).T, band.kl,
                                          band.ku, overwrite_ab=1)

    def plain_newton():
        # undamped Newton's steps with the solver's own kernels and the band LU (no scaling,
        # no tests): its iterates' evaluations, Jacobians, factorizations and solves
        q = np.array(q0, dtype=float)
        for _ in range(len(undamped)):
            F, vals = system.evaluate(q)
            J = system.jacobian_sparse(vals).tocsc()
            lu, piv, _ = band_lu(J)
            dq = np.empty_like(F)
            dq[band.col_order] = scipy.linalg.lapack.dgbtrs(lu, band.kl, band.ku,
                                                            -F[band.row_order], piv)[0]
            q = system.retract(q, dq)
        return q

    factorizations = {"band": band_lu} if band is not None else {}
    if not system.dense:
        factorizations["splu/NATURAL"] = lambda J: spla.splu(
            J, permc_spec="NATURAL", relax=4, panel_size=4)
        factorizations["splu/COLAMD"] = lambda J: spla.splu(J, permc_spec="COLAMD")
    else:
        factorizations["dense"] = lambda J: scipy.linalg.lu_factor(J.toarray())

    def factor_alone():
        out = {}
        for name, factor in factorizations.items():
            t0 = time.perf_counter()
            for J in jacobians:
                factor(J)
            out[name] = (time.perf_counter() - t0) / max(len(jacobians), 1)
        return out

    _timed_solve(mech, q0)
    factor_alone()
    totals, in_solve, alone, plain = [], [], [], []
    if band is not None:
        plain_newton()
    for _ in range(repeats):
        total, lu = _timed_solve(mech, q0)
        totals.append(total)
        in_solve.append(lu)
        alone.append(factor_alone())
        if band is not None:
            t0 = time.perf_counter()
            plain_newton()
            plain.append(time.perf_counter() - t0)
    each = {name: float(np.median([a[name] for a in alone])) * 1e3 for name in factorizations}
    best = np.array([min(a.values()) for a in alone])
    iterations = max(len(undamped), 1)
    alone = best * len(jacobians)
    totals, in_solve = np.asarray(totals), np.asarray(in_solve)
    row = {"N": n_loops, "bodies": len(mech.bodies), "unknowns": mech.n_dof_coordinates,
           "iterations": int(result.iterations), "undamped_iterations": len(undamped),
           "residual": float(result.residual_abs),
           "total_ms": float(np.median(totals)) * 1e3,
           "factor_alone_ms": float(np.median(alone)) * 1e3,
           "best_factor_ms": float(np.median(best)) * 1e3, "factor_each_ms": each,
           "total_over_iterations_x_best": float(np.median(totals / (iterations * best))),
           "plain_newton_ms": float(np.median(plain)) * 1e3 if plain else None,
           "total_over_plain": float(np.median(totals / np.asarray(plain))) if plain else None,
           "plain_over_iterations_x_best": float(np.median(np.asarray(plain)
                                                           / (iterations * best)))
           if plain else None,
           "linear_solver": "dense" if system.dense else (
               f"band {band.kl}/{band.ku}" if band is not None else f"splu/{linear.permc}")}
    if system.dense:   # LAPACK inside np.linalg.solve: only the standalone measure
        row["factor_in_solve_ms"] = None
        row["ratio"] = float(np.median(totals / alone))
    else:
        row["factor_in_solve_ms"] = float(np.median(in_solve)) * 1e3
        row["ratio"] = float(np.median(totals / in_solve))
    row["ratio_to_alone"] = float(np.median(totals / alone))
    return row


def print_chain_table(title: str, chains: list) -> float | None:
    """Print the chain table; return the growth exponent of the total from N=1000 to 10000."""
    print(title)
    print(f"{'N':>6}{'unknowns':>10}{'iters':>6}{'plain':>6}{'total ms':>10}{'LU in solve':>12}"
          f"{'best LU':>9}{'total/LU':>9}{'total/(it*best)':>16}{'plain ms':>9}"
          f"{'plain/(it*best)':>16}{'total/plain':>12}{'solver':>14}")

    def text(value, width, form=".2f"):
        return f"{'-' if value is None else format(value, form):>{width}}"

    for c in chains:
        print(f"{c['N']:>6}{c['unknowns']:>10}{c['iterations']:>6}{c['undamped_iterations']:>6}"
              f"{c['total_ms']:>10.2f}{text(c['factor_in_solve_ms'], 12)}"
              f"{c['best_factor_ms']:>9.2f}{c['ratio']:>9.2f}"
              f"{c['total_over_iterations_x_best']:>16.2f}{text(c['plain_newton_ms'], 9)}"
              f"{text(c['plain_over_iterations_x_best'], 16)}{text(c['total_over_plain'], 12)}"
              f"{c['linear_solver']:>14}")
    for c in chains:
        if len(c["factor_each_ms"]) > 1:
            each = ", ".join(f"{k} {v:.2f}" for k, v in c["factor_each_ms"].items())
            print(f"  N={c['N']}: one factorization alone, ms: {each}")
    by_n = {c["N"]: c for c in chains}
    if 1000 in by_n and 10000 in by_n:
        growth = float(np.log(by_n[10000]["total_ms"] / by_n[1000]["total_ms"]) / np.log(10))
        print(f"growth exponent of total time from N=1000 to N=10000: {growth:.3f}")
        return growth
    return None


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer repeats, N up to 1000")
    add_out_option(parser, "planar.json")
    args = parser.parse_args()
    repeats = 3 if args.quick else 9
    sizes = [10, 100, 1000] if args.quick else [10, 100, 1000, 10000]

    fb = bench_fourbar(repeats)
    print(f"Four-bar, {fb['poses']} poses at 1 degree, tol 1e-10 "
          f"(largest residual {fb['max_residual']:.1e}); median of {repeats}")
    print(f"{'method':<22}{'total ms':>10}{'us/pose':>10}")
    for name in ("sweep (batched)", "sweep (sequential)", "plain solve() loop"):
        print(f"{name:<22}{fb[name]['total_ms']:>10.2f}{fb[name]['us_per_pose']:>10.1f}")
    print()
    chains = [bench_chain(n, repeats if n < 10000 else max(5, repeats // 2)) for n in sizes]
    growth = print_chain_table("Chain of N four-bar loops, driver moved by 0.1 rad; median times "
                               "(total/LU: median of total / LU in solve)", chains)
    record = {"machine": platform.platform(), "python": platform.python_version(),
              "numpy": np.__version__, "scipy": scipy.__version__, "repeats": repeats,
              "fourbar": fb, "chain": chains, "chain_growth_exponent_1000_10000": growth}
    out = prepare(args.out)
    out.write_text(json.dumps(record, indent=2))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
