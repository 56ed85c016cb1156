"""The cost of a derivative through the loop solve: value and gradient over the value alone.

Run: python benchmarks/bench_diff.py [--rounds 200] [--out FILE]

For the README four-bar (the coupler point, and the coupler point with its velocity, by the
link lengths and the crank angle: 15 parameter entries) and the Stewart platform (the
platform's pose by the six leg lengths), each measured call solves the pose from the one
before, at parameters that alternate between two nearby designs (so every call runs Newton
from a pose one step away, as an optimizer's calls do). The two calls of a round are
interleaved and the table gives the median time of each and the median of the per-round ratios:

* NumPy: ``f(p)`` against ``f.linearize(p).vjp(ct)`` (a gradient);
* JAX (when installed): ``jax.jit(loss)`` against ``jax.jit(jax.value_and_grad(loss))``, with
  ``loss = sum(g(p)**2)`` and ``g = ms.diff.to_jax(f)``;
* PyTorch (when installed): ``loss(p)`` against ``loss(p).backward()``.

The runtime is about a minute. Writes JSON to ``--out``.
"""

from __future__ import annotations

import argparse
import json
import time

import numpy as np
from _output import add_out_option, prepare

import mechsolve as ms

try:        # optional: the JAX and PyTorch rows where they are installed
    import jax
except ImportError:
    jax = None
try:
    import torch
except ImportError:
    torch = None

FOURBAR_PARAMS = ["O2.point2", "A.point1", "A.point2", "B.point1", "B.point2", "O4.point1",
                  "O4.point2", "motor.value"]


def fourbar(with_velocity: bool):
    mech = ms.models.fourbar().mechanism
    outputs = [ms.diff.point("coupler", (0.0, 1.0))]
    if with_velocity:
        outputs.append(ms.diff.velocity("coupler", (0.0, 1.0), speeds={"motor": 1.0}))
    f = ms.diff.LoopFunction(mech, FOURBAR_PARAMS, outputs)
    p = f.parameters()
    p[-1] = 0.7
    step = np.zeros_like(p)
    step[-1] = 0.02                   # the crank turned by about a degree between calls
    step[12] = 0.01                   # and the ground pivot moved
    return f, p, p + step


def stewart():
    mech = ms.models.spatial.stewart().mechanism
    f = ms.diff.LoopFunction(mech, [f"leg{i}.length" for i in range(1, 7)],
                             [ms.diff.pose("platform")])
    p = f.parameters()
    return f, p, p + 0.01 * np.array([1.0, -0.5, 0.3, 0.8, -0.2, 0.4])


def interleaved(value, both, pa, pb, rounds: int) -> dict:
    """Median times of ``value`` and ``both`` and the median of their per-round ratios; the
    calls alternate between ``pa`` and ``pb`` so each solves from the other's pose."""
    for _ in range(5):          # warm-up (JIT compilation, caches)
        value(pa)
        both(pb)
    tv, tb = [], []
    for _ in range(rounds):
        t0 = time.perf_counter()
        value(pa)
        t1 = time.perf_counter()
        both(pb)
        t2 = time.perf_counter()
        tv.append(t1 - t0)
        tb.append(t2 - t1)
    tv, tb = np.array(tv), np.array(tb)
    return {"value_us": float(np.median(tv) * 1e6), "value_and_grad_us":
            float(np.median(tb) * 1e6), "ratio": float(np.median(tb / tv))}


def measure(name: str, f, pa, pb, rounds: int) -> list:
    """The rows of one case: NumPy, then JAX and PyTorch where installed."""
    ct = np.ones(f.n_out)
    rows = [(name, "NumPy", interleaved(f, lambda p: f.linearize(p).vjp(ct), pa, pb, rounds))]
    if jax is not None:
        jax.config.update("jax_enable_x64", True)
        g = ms.diff.to_jax(f)
        loss = jax.jit(lambda p: (g(p) ** 2).sum())
        vg = jax.jit(jax.value_and_grad(lambda p: (g(p) ** 2).sum()))
        rows.append((name, "JAX", interleaved(lambda p: loss(p).block_until_ready(),
                                              lambda p: vg(p)[1].block_until_ready(), pa, pb,
                                              rounds)))
    if torch is not None:
        gt = ms.diff.to_torch(f)

        def value(p):
            with torch.no_grad():
                return (gt(torch.as_tensor(p)) ** 2).sum()

        def both(p):
            x = torch.tensor(p, requires_grad=True)
            (gt(x) ** 2).sum().backward()
            return x.grad

        rows.append((name, "PyTorch", interleaved(value, both, pa, pb, rounds)))
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=200)
    add_out_option(parser, "diff.json")
    args = parser.parse_args()
    cases = {"four-bar point": lambda: fourbar(False), "four-bar point + velocity":
             lambda: fourbar(True), "Stewart pose": stewart}
    rows = []
    for name, build in cases.items():
        rows += measure(name, *build(), args.rounds)
    print("| mechanism, outputs | framework | value (us) | value + gradient (us) | "
          "median ratio |")
    print("|---|---|---|---|---|")
    for name, fw, r in rows:
        print(f"| {name} | {fw} | {r['value_us']:.0f} | {r['value_and_grad_us']:.0f} | "
              f"{r['ratio']:.2f} |")
    out = prepare(args.out)
    out.write_text(json.dumps([{"case": n, "framework": fw, **r} for n, fw, r in rows],
                              indent=2))
    print(f"written to {out}")


if __name__ == "__main__":
    main()
