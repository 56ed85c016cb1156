"""Old against new in one process: ``System.evaluate`` of spatial mechanisms on two trees.

Run: python benchmarks/spatial_evaluate_interleave.py OLD_TREE [NEW_TREE] [--rounds 15]

The two trees' ``mechsolve`` packages are imported side by side (the old one's modules renamed
in ``sys.modules`` once it is loaded), each builds the same models, and their
``System.evaluate`` calls alternate: per round, ``repeats`` calls of old then new (the order
swapped every other round), the median time of each; the table gives the medians over the
rounds and the median of the per-round ratios new/old; then the same for ``System.retract``
(the quaternions' exponential map) with a fixed increment. Models: the Stewart platform and the
Bricard linkage (``models.spatial``), and ``spatial_chain(1000)`` (the spatial chain
benchmark's mechanism) at their assembled poses.
"""

from __future__ import annotations

import argparse
import importlib
import pathlib
import sys
import time

import numpy as np


def _load(tree: pathlib.Path, alias: str):
    """Import ``mechsolve`` from ``tree``, build the cases (:func:`_cases`) and rename its
    modules ``alias...`` (the cases are built while the tree is ``mechsolve``: lazy imports
    inside the package resolve by that name)."""
    sys.path.insert(0, str(tree))
    try:
        pkg = importlib.import_module("mechsolve")
        models = importlib.import_module("mechsolve.models.spatial")
        cases = _cases(models)
    finally:
        sys.path.pop(0)
    mods = {k: v for k, v in sys.modules.items() if k == "mechsolve" or k.startswith("mechsolve.")}
    for k, v in mods.items():
        del sys.modules[k]
        sys.modules[alias + k[len("mechsolve"):]] = v
    assert pathlib.Path(pkg.__file__).resolve().is_relative_to(tree.resolve()), pkg.__file__
    return cases


def _cases(sm):
    """``{name: (system, state, repeats)}`` built with the models module ``sm``."""
    out = {}
    for name, build, repeats in (("Stewart platform", sm.stewart, 300),
                                 ("Bricard", sm.bricard, 300),
                                 ("spatial chain, 1000 loops", lambda: sm.spatial_chain(1000),
                                  20)):
        mech = build().mechanism
        sys_ = mech.system()
        q = mech.state_view.copy()
        sys_.evaluate(q)
        out[name] = (sys_, q, repeats)
    return out


def _time(sys_, q, repeats, what="evaluate"):
    """Median seconds of ``repeats`` calls: ``System.evaluate(q)``, or ``System.retract(q,
    dq)`` with a fixed increment."""
    if what == "retract":
        dq = 1e-3 * np.cos(np.arange(sys_.n))

        def call():
            sys_.retract(q, dq)
    else:
        def call():
            sys_.evaluate(q)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        call()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=pathlib.Path)
    parser.add_argument("new", type=pathlib.Path, nargs="?",
                        default=pathlib.Path(__file__).resolve().parents[1])
    parser.add_argument("--rounds", type=int, default=15)
    args = parser.parse_args()
    old = _load(args.old, "mechsolve_old")
    new = _load(args.new, "mechsolve_new")
    cases = {"old": old, "new": new}
    for name in cases["old"]:   # the same equations on both trees
        a, qa, _ = cases["old"][name]
        b, qb, _ = cases["new"][name]
        Fa, Va = a.evaluate(qa)
        Fb, Vb = b.evaluate(qb)
        assert np.array_equal(Fa, Fb) and np.array_equal(Va, Vb), name
    rows = []
    for what in ("evaluate", "retract"):
        for name in cases["old"]:
            t = {"old": [], "new": []}
            for r in range(args.rounds):
                for side in (("old", "new") if r % 2 == 0 else ("new", "old")):
                    t[side].append(_time(*cases[side][name], what))
            ratio = np.median(np.array(t["new"]) / np.array(t["old"]))
            rows.append((f"{what}: {name}", 1e6 * np.median(t["old"]),
                         1e6 * np.median(t["new"]), ratio))
    print("| System. | old (us) | new (us) | median new/old |")
    print("|---|---|---|---|")
    for name, a, b, r in rows:
        print(f"| {name} | {a:.1f} | {b:.1f} | {r:.3f} |")


if __name__ == "__main__":
    main()
