"""Sparse LU backends on the Jacobian of the chain of N four-bar loops.

Run: python benchmarks/bench_backends.py [--sizes 1000 10000] [--repeats 9]

The Jacobian of ``ms.models.fourbar_chain(N)`` at a pose 0.1 rad from the assembled one is
factorized and solved by every backend that imports here:

* SuperLU (SciPy ``splu``) with COLAMD, and with the natural order on the model's own order
  (small panels and relaxed supernodes: the solver's choice before the band LU);
* band LU (LAPACK ``gbtrf``/``gbtrs`` through SciPy) in mechsolve's reverse Cuthill–McKee
  order (:class:`mechsolve.linalg.BandOrdering`), the factorization including the scatter of
  the values into the band storage;
* KLU and UMFPACK from kvxopt (``pip install kvxopt``), symbolic analysis once, numeric
  factorization per Jacobian, the values copied into kvxopt's matrix each time;
* KLU from PyKLU (``pip install pyklu``: analysis and factorization together);
* PARDISO from pypardiso (``pip install pypardiso``, Intel MKL);
* UMFPACK from scikit-umfpack (``pip install scikit-umfpack``) when it imports.

A Newton solve of the chain takes 3 iterations, each one factorization and two solves, so the
table also gives ``3 x factor + 6 x solve``. "error" is the largest residual ``|J x - b|`` of
the solution. Times are medians of ``--repeats``, all backends measured in turn within each
repeat. Writes JSON to ``--out`` (default outside the source tree; see ``_output.py``).
"""

from __future__ import annotations

import argparse
import json
import platform
import time
import warnings

import numpy as np
import scipy
import scipy.linalg as sla
import scipy.sparse.linalg as spla
from _output import add_out_option, prepare

import mechsolve as ms
from mechsolve.linalg import BandOrdering


class Backend:
    """One LU backend: ``analyse(J)`` once per pattern, ``factor(J)``, ``solve(f, b)``."""

    name = "?"

    def analyse(self, J):
        return None

    def factor(self, J):
        raise NotImplementedError

    def solve(self, f, b):
        raise NotImplementedError


class SuperLU(Backend):
    def __init__(self, permc, **options):
        self.permc, self.options = permc, options
        self.name = f"SuperLU {permc}" + (" relax/panel 4" if options else "")

    def factor(self, J):
        return spla.splu(J, permc_spec=self.permc, **self.options)

    def solve(self, f, b):
        return f.solve(b)


class Band(Backend):
    name = "band LU (LAPACK gbtrf, RCM)"

    def analyse(self, J):
        coo = J.tocoo()
        self.order = BandOrdering(coo.row, coo.col, J.shape)
        self.flat = self.order.layout(J.indptr, J.indices)

    def factor(self, J):
        o = self.order
        ab = np.zeros(o.width * J.shape[1])
        ab[self.flat] = J.data
        lu, piv, info = sla.lapack.dgbtrf(ab.reshape(J.shape[1], o.width).T, o.kl, o.ku,
                                          overwrite_ab=1)
        assert info == 0
        return lu, piv

    def solve(self, f, b):
        o = self.order
        x = np.empty_like(b)
        x[o.col_order] = sla.lapack.dgbtrs(f[0], o.kl, o.ku, b[o.row_order], f[1])[0]
        return x


class Kvx(Backend):
    """KLU or UMFPACK of kvxopt: symbolic analysis once, numeric factorization per matrix."""

    def __init__(self, which):
        import kvxopt
        from kvxopt import klu, umfpack
        self.kvx = kvxopt
        self.lib = klu if which == "klu" else umfpack
        self.klu = which == "klu"
        self.name = f"{'KLU' if which == 'klu' else 'UMFPACK'} (kvxopt, symbolic reused)"

    def analyse(self, J):
        cols = np.repeat(np.arange(J.shape[1]), np.diff(J.indptr))
        self.K = self.kvx.spmatrix(self.kvx.matrix(J.data), self.kvx.matrix(J.indices.tolist()),
                                   self.kvx.matrix(cols.tolist()), J.shape)
        self.sym = self.lib.symbolic(self.K)

    def factor(self, J):
        self.K.V = self.kvx.matrix(J.data)      # same pattern (CSC order), new values
        return self.lib.numeric(self.K, self.sym)

    def solve(self, f, b):
        x = self.kvx.matrix(b)
        if self.klu:
            self.lib.solve(self.K, self.sym, f, x)
        else:
            self.lib.solve(self.K, f, x)
        return np.array(x).ravel()


class PyKLU(Backend):
    name = "KLU (PyKLU)"

    def __init__(self):
        import PyKLU
        self.klu = PyKLU

    def factor(self, J):
        return self.klu.Klu(J)

    def solve(self, f, b):
        return f.solve(b)


class Pardiso(Backend):
    name = "PARDISO (pypardiso, MKL)"

    def __init__(self):
        import pypardiso
        self.mod = pypardiso

    def factor(self, J):
        s = self.mod.PyPardisoSolver()
        A = J.tocsr()
        s.factorize(A)
        return s, A

    def solve(self, f, b):
        return f[0].solve(f[1], b)


class SkUmfpack(Backend):
    name = "UMFPACK (scikit-umfpack)"

    def __init__(self):
        import scikits.umfpack as um
        self.um = um

    def factor(self, J):
        return self.um.splu(J)

    def solve(self, f, b):
        return f.solve(b)


def backends() -> tuple[list, dict]:
    """The backends that import here, and why the others are missing."""
    out = [SuperLU("COLAMD"), SuperLU("NATURAL", relax=4, panel_size=4), Band()]
    missing = {}
    for make, label, package in ((lambda: Kvx("klu"), "KLU (kvxopt)", "kvxopt"),
                                 (lambda: Kvx("umfpack"), "UMFPACK (kvxopt)", "kvxopt"),
                                 (PyKLU, "KLU (PyKLU)", "pyklu"),
                                 (Pardiso, "PARDISO (pypardiso)", "pypardiso"),
                                 (SkUmfpack, "UMFPACK (scikit-umfpack)", "scikit-umfpack")):
        try:
            out.append(make())
        except ImportError as exc:
            missing[label] = f"not installed ({exc}); pip install {package}"
    return out, missing


def chain_jacobians(n_loops: int):
    """The chain's Jacobian at a pose 0.1 rad from the assembled one, and a right-hand side."""
    model = ms.models.fourbar_chain(n_loops)
    mech = model.mechanism
    mech.solve()
    model.driver.value = model.values[1]
    system = mech.system()
    F, vals = system.evaluate(mech.state)
    J = system.jacobian_sparse(vals).copy().tocsc()
    J.sort_indices()
    return J, -F


def bench(n_loops: int, repeats: int) -> list:
    J, b = chain_jacobians(n_loops)
    found, missing = backends()
    rows = []
    for be in found:
        t0 = time.perf_counter()
        be.analyse(J)
        analyse = time.perf_counter() - t0
        f = be.factor(J)
        x = be.solve(f, b)
        rows.append({"backend": be.name, "analyse_ms": analyse * 1e3, "factor": [],
                     "solve": [], "error": float(np.max(np.abs(J @ x - b)))})
    for _ in range(repeats):          # every backend in turn within a repeat
        for be, row in zip(found, rows):
            t0 = time.perf_counter()
            f = be.factor(J)
            t1 = time.perf_counter()
            be.solve(f, b)
            t2 = time.perf_counter()
            row["factor"].append(t1 - t0)
            row["solve"].append(t2 - t1)
            del f
    for row in rows:
        row["factor_ms"] = float(np.median(row.pop("factor"))) * 1e3
        row["solve_ms"] = float(np.median(row.pop("solve"))) * 1e3
        row["newton_ms"] = 3 * row["factor_ms"] + 6 * row["solve_ms"]
        row["N"] = n_loops
        row["unknowns"] = J.shape[0]
    for label, why in missing.items():
        rows.append({"backend": label, "N": n_loops, "unknowns": J.shape[0], "missing": why})
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeats", type=int, default=9)
    add_out_option(parser, "backends.json")
    args = parser.parse_args()
    warnings.simplefilter("ignore", DeprecationWarning)
    table = []
    for n in args.sizes:
        rows = bench(n, args.repeats)
        table += rows
        print(f"\nChain of {n} four-bar loops ({rows[0]['unknowns']} unknowns); median of "
              f"{args.repeats}, ms")
        print(f"{'backend':<40}{'analyse':>9}{'factor':>9}{'solve':>8}{'3f+6s':>9}{'error':>10}")
        for r in rows:
            if "missing" in r:
                print(f"{r['backend']:<40}  {r['missing']}")
                continue
            print(f"{r['backend']:<40}{r['analyse_ms']:>9.2f}{r['factor_ms']:>9.2f}"
                  f"{r['solve_ms']:>8.2f}{r['newton_ms']:>9.2f}{r['error']:>10.1e}")
    record = {"machine": platform.platform(), "python": platform.python_version(),
              "numpy": np.__version__, "scipy": scipy.__version__, "repeats": args.repeats,
              "rows": table}
    out = prepare(args.out)
    out.write_text(json.dumps(record, indent=2))
    print(f"\nwrote {out}")


if __name__ == "__main__":
    main()
