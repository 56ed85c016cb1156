"""Vectorized NumPy source from the derived expressions, and its on-disk cache.

One ``sympy.cse`` runs over Phi, the Jacobian blocks, Phi_t and gamma together (as PyDy's
``matrix_generator`` does); each generated kernel then keeps only the common subexpressions its
own outputs need. The kernels are plain Python over stacked arrays: arguments ``P (..., k, p)``,
``X_s (..., k, n_s)`` (and ``Q (..., k, n_own)``, ``V_s``, ``U``), every output allocated with
the broadcast shape of the arguments, every operation a NumPy ufunc on whole stacks.

The source is written to ``<cache>/symbolic/<key>.py``, where ``<cache>`` is
``$MECHSOLVE_CACHE_DIR`` if set, else mechsolve's user cache directory as ``platformdirs``
gives it (see :func:`cache_dir`), and ``key`` hashes the canonical
expressions, their structure (planar or spatial slots) and the mechsolve version. A cache hit
reads the file and ``exec``s it: no differentiation, no cse.
"""

from __future__ import annotations

import os
import tempfile
import warnings
from pathlib import Path

import platformdirs
import sympy as sp

from ._derive import GENERATOR_VERSION, Structure, _Printer

__all__ = ["cache_dir", "generate_source", "load", "store", "compile_source",
           "clear_memory_cache", "stats"]

_MEMORY: dict[str, dict] = {}
#: Counters for tests and benchmarks: kernels generated, loaded from disk, found in memory.
stats = {"generated": 0, "disk": 0, "memory": 0}
_warned = False


def cache_dir() -> Path:
    """The mechsolve cache directory (symbolic kernels live in its ``symbolic`` folder).

    ``$MECHSOLVE_CACHE_DIR`` if set, else the platform's user cache directory for mechsolve as
    :func:`platformdirs.user_cache_dir` gives it: ``$XDG_CACHE_HOME/mechsolve`` or
    ``~/.cache/mechsolve`` (Linux and other Unix), ``~/Library/Caches/mechsolve`` (macOS),
    ``%LOCALAPPDATA%\\mechsolve\\Cache`` (Windows).

    Examples
    --------
    >>> from mechsolve.symbolic import cache_dir
    >>> cache_dir().name != ""
    True
    """
    env = os.environ.get("MECHSOLVE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    return Path(platformdirs.user_cache_dir("mechsolve", appauthor=False))


def _path(key: str) -> Path:
    return cache_dir() / "symbolic" / f"{key}.py"


def clear_memory_cache() -> None:
    """Forget the kernels compiled in this process (the disk cache is kept)."""
    _MEMORY.clear()


def compile_source(source: str, filename: str = "<mechsolve-symbolic>") -> dict:
    """Execute generated source and return its namespace (``phi``, ``evaluate``, ...)."""
    namespace: dict = {"__name__": "mechsolve.symbolic._generated"}
    exec(compile(source, filename, "exec"), namespace)
    return namespace


def load(key: str) -> dict | None:
    """Kernels for ``key`` from memory or disk, or ``None`` on a miss."""
    ns = _MEMORY.get(key)
    if ns is not None:
        stats["memory"] += 1
        return ns
    path = _path(key)
    try:
        source = path.read_text()
    except OSError:
        return None
    if f"KEY = {key!r}" not in source:
        return None
    try:
        ns = compile_source(source, str(path))
    except Exception:  # a damaged file: regenerate and overwrite it
        return None
    ns["SOURCE"] = source
    _MEMORY[key] = ns
    stats["disk"] += 1
    return ns


def store(key: str, source: str) -> dict:
    """Compile ``source``, keep it in memory and write it to the disk cache (atomically)."""
    global _warned
    path = _path(key)
    ns = compile_source(source, str(path))
    ns["SOURCE"] = source
    _MEMORY[key] = ns
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".tmp-", suffix=".py")
        with os.fdopen(fd, "w") as f:
            f.write(source)
        os.replace(tmp, path)
    except OSError as exc:
        if not _warned:
            warnings.warn(f"mechsolve could not write its symbolic kernel cache in "
                          f"{path.parent} ({exc}); kernels will be regenerated in each process. "
                          "Set MECHSOLVE_CACHE_DIR to a writable directory.", stacklevel=3)
            _warned = True
    return ns


# -- source generation -------------------------------------------------------------------------
def _factor(expr):
    """Greedy common-factor extraction in sums: ``a*x + a*y + z -> a*(x + y) + z``.

    Each extraction saves one multiplication (one ufunc call on the whole stack) and never adds
    one; the result equals ``expr`` up to rounding.
    """
    if expr.is_Atom or not expr.args:
        return expr
    expr = expr.func(*(_factor(a) for a in expr.args))
    if expr.is_Mul:  # w*(-a - b) -> -w*(a + b): the printer folds the sign into a subtraction
        flips = [a for a in expr.args if a.is_Add and a.could_extract_minus_sign()]
        if flips:
            args = [-a if a in flips else a for a in expr.args]
            return (-1) ** len(flips) * sp.Mul(*args)
        return expr
    if not expr.is_Add:
        return expr
    terms = list(expr.args)
    counts: dict = {}
    for t in terms:
        for f in set(sp.Mul.make_args(t)):
            if not f.is_Number:
                counts[f] = counts.get(f, 0) + 1
    if not counts or max(counts.values()) < 2:
        return expr
    f = max(counts, key=lambda k: (counts[k], str(k)))
    with_f = [t for t in terms if f in sp.Mul.make_args(t)]
    rest = [t for t in terms if f not in sp.Mul.make_args(t)]
    inner = _factor(sp.Add(*(t / f for t in with_f)))
    term = -f * _factor(-inner) if inner.could_extract_minus_sign() else f * inner
    return sp.Add(term, _factor(sp.Add(*rest))) if rest else term


def _needed(outputs, replacements):
    """The cse replacements one kernel needs, with single uses and negations inlined.

    Returns ``(kept replacements, outputs with inlined symbols, free symbols)``. A common
    subexpression used once in this kernel (it was shared with another kernel) or a bare
    negation ``w = -u`` costs a ufunc call and a temporary of its own; inlined, the printer can
    fold it into a subtraction.
    """
    need = set()
    for e in outputs:
        need |= e.free_symbols
    keep = []
    for sym, e in reversed(replacements):
        if sym in need:
            keep.append((sym, e))
            need |= e.free_symbols
    keep.reverse()
    uses: dict = {}
    for e in [*(e for _, e in keep), *outputs]:
        for node in sp.preorder_traversal(e):
            if node.is_Symbol:
                uses[node] = uses.get(node, 0) + 1
    inline: dict = {}
    kept = []
    for sym, e in keep:
        e = e.xreplace(inline)
        negation = e.is_Mul and len(e.args) == 2 and e.args[0] == -1 and e.args[1].is_Symbol
        if uses.get(sym, 0) <= 1 or negation:
            inline[sym] = e
        else:
            kept.append((sym, _factor(e)))
    outputs = [_factor(e.xreplace(inline)) for e in outputs]
    need = set()
    for e in [*(e for _, e in kept), *outputs]:
        need |= e.free_symbols
    return kept, outputs, need


def generate_source(exprs: dict[str, list], st: Structure, key: str, *, version: str,
                    use_cse: bool = True) -> str:
    """Python source of the kernels ``phi``, ``evaluate``, ``phi_p``, ``phi_t`` and ``gamma``,
    and for a planar joint without own coordinates ``terms`` (see :func:`_terms_source`).

    ``exprs`` is the output of :func:`mechsolve.symbolic._derive.derive` (canonical symbols);
    without its ``Jp`` (``None``: a parameter derivative with no NumPy code) there is no
    ``phi_p`` kernel.
    """
    m = len(exprs["phi"])
    n_slots = len(st.slots)
    blocks = [f"J{s}" for s in range(n_slots)] + (["Jq"] if st.n_own else [])
    widths = [ni for _, ni in st.slots] + ([st.n_own] if st.n_own else [])
    with_p = exprs.get("Jp") is not None
    n_cols = st.n_params + (1 if st.time else 0)

    # One cse over every non-constant output of every kernel.
    flat: list = []
    where: list = []
    for name in ["phi", *blocks, *(["Jp"] if with_p else []), "phi_t", "gamma"]:
        for i, e in enumerate(exprs[name]):
            if e != 0 and not e.is_Number:
                where.append((name, i))
                flat.append(e)
    if use_cse and flat:
        replacements, reduced = sp.cse(flat, symbols=sp.numbered_symbols("w"), order="none")
    else:
        replacements, reduced = [], flat
    final = {name: list(v) for name, v in exprs.items() if v is not None}
    for (name, i), e in zip(where, reduced):
        final[name][i] = e

    printer = _Printer()
    P, C, V, Q, U, t = st.symbols()
    unpack = {s: f"P[..., {i}]" for i, s in enumerate(P)}
    for s, cs in enumerate(C):
        unpack.update({c: f"X{s}[..., {i}]" for i, c in enumerate(cs)})
    for s, vs in enumerate(V):
        unpack.update({v: f"V{s}[..., {i}]" for i, v in enumerate(vs)})
    unpack.update({q: f"Q[..., {i}]" for i, q in enumerate(Q)})
    unpack.update({u: f"U[..., {i}]" for i, u in enumerate(U)})
    unpack[t] = f"P[..., {st.n_params}]"
    order = {s: i for i, s in enumerate(unpack)}

    xs = [f"X{s}" for s in range(n_slots)] + (["Q"] if st.n_own else [])
    vs = [f"V{s}" for s in range(n_slots)] + (["U"] if st.n_own else [])

    def body(outputs: list[tuple[str, str, tuple, list]], arrays: list[str]) -> list[str]:
        """Lines computing ``outputs``: (array name, kind, trailing shape, entries)."""
        entries = [e for _, _, _, es in outputs for e in es]
        keep, entries, need = _needed(entries, replacements)
        pos = 0
        for i, (name, kind, trailing, es) in enumerate(outputs):
            outputs[i] = (name, kind, trailing, entries[pos:pos + len(es)])
            pos += len(es)
        lines = [f"    {s} = {unpack[s]}" for s in sorted(need & set(unpack), key=order.get)]
        lines.append(f"    shape = _broadcast({', '.join(f'{a}.shape[:-1]' for a in arrays)})")
        # Allocate the outputs first, then schedule each assignment right after the last
        # temporary it needs and drop every temporary after its last use: fewer arrays alive at
        # once keeps the allocator from returning memory to the OS and faulting it back in.
        for name, kind, trailing, es in outputs:
            dense = kind == "phi" or all(e != 0 for e in es)
            alloc = "_empty" if dense else "_zeros"
            lines.append(f"    {name} = {alloc}(shape + {trailing!r})")
        position = {sym: i for i, (sym, _) in enumerate(keep)}
        after: dict = {}
        for name, kind, trailing, es in outputs:
            dense = kind == "phi" or all(e != 0 for e in es)
            for idx, e in enumerate(es):
                if e == 0 and not dense:
                    continue
                if len(trailing) == 1:
                    target = f"{name}[..., {idx}]"
                else:
                    target = f"{name}[..., {idx // trailing[1]}, {idx % trailing[1]}]"
                slot = max((position[s] for s in e.free_symbols if s in position), default=-1)
                after.setdefault(slot, []).append((target, e))
        statements = [(f"    {t} = {printer.doprint(e)}", e.free_symbols)
                      for t, e in after.get(-1, [])]
        for i, (sym, e) in enumerate(keep):
            statements.append((f"    {sym} = {printer.doprint(e)}", e.free_symbols))
            statements += [(f"    {t} = {printer.doprint(x)}", x.free_symbols)
                           for t, x in after.get(i, [])]
        last = {}
        for i, (_, used) in enumerate(statements):
            for s in used:
                if s in position:
                    last[s] = i
        drops: dict = {}
        for s, i in last.items():
            drops.setdefault(i, []).append(s)
        for i, (line, _) in enumerate(statements):
            lines.append(line)
            if i in drops and i < len(statements) - 1:
                names = sorted(drops[i], key=position.get)
                lines.append(f"    del {', '.join(map(str, names))}")
        return lines

    def signature(fn: str) -> list[str]:
        if st.n_own:
            return [f"def {fn}(cls, P, {', '.join(xs[:-1])}, Q=None):",
                    "    if Q is None:",
                    f"        cls._missing_own_state({fn!r})"]
        return [f"def {fn}(cls, P, {', '.join(xs)}):"]

    src = [
        "# Generated by mechsolve.symbolic: vectorized kernels of one symbolic joint class.",
        "# Do not edit: the file is rewritten when the expressions or mechsolve change.",
        f"# mechsolve {version}, generator {GENERATOR_VERSION}, cse={use_cse}",
        "import functools  # noqa: F401",
        "",
        "import numpy",
        "",
        f"KEY = {key!r}",
        f"N_EQUATIONS = {m}",
        "_broadcast = numpy.broadcast_shapes",
        "_empty = numpy.empty",
        "_zeros = numpy.zeros",
        "",
        "",
    ]
    # phi
    src += signature("phi")
    src += body([("phi_", "phi", (m,), final["phi"])], ["P", *xs])
    src += ["    return phi_", "", ""]
    # evaluate
    src += signature("evaluate")
    outs = [("phi_", "phi", (m,), final["phi"])]
    outs += [(f"{b}_", "J", (m, w), final[b]) for b, w in zip(blocks, widths)]
    src += body(outs, ["P", *xs])
    src += [f"    return phi_, [{', '.join(f'{b}_' for b in blocks)}]", "", ""]
    # phi_p
    if with_p:
        src += signature("phi_p")
        src += body([("Jp_", "J", (m, n_cols), final["Jp"])], ["P", *xs])
        src += ["    return Jp_", "", ""]
    # terms: the kernel written once (mechsolve.joints._terms), for planar joints without own
    # coordinates: the JAX backend traces it
    if not st.n_own and all(slot == (3, 3) for slot in st.slots):
        src += _terms_source(final, blocks, replacements, unpack, order, xs, printer)
    # phi_t
    src += signature("phi_t")
    src += body([("phi_t_", "rhs", (m,), final["phi_t"])], ["P", *xs])
    src += ["    return phi_t_", "", ""]
    # gamma
    n_args = len(xs) + len(vs)
    src += ["def gamma(cls, P, *XV):",
            f"    if len(XV) != {n_args}:",
            f"        cls._bad_motion_args('_gamma', len(XV), {n_args})",
            f"    {', '.join(xs + vs)}, = XV"]
    src += body([("gamma_", "rhs", (m,), final["gamma"])], ["P", *xs, *vs])
    src += ["    return gamma_", ""]
    return "\n".join(src)


def _terms_source(final, blocks, replacements, unpack, order, xs, printer) -> list[str]:
    """The lines of ``terms(cls, xp, P, X0, ..., jacobian=True) -> (phi, blocks)``: the
    kernel written once of :mod:`mechsolve.joints._terms` (tuples of component expressions,
    constants as Python floats, nothing written in place), in the array namespace ``xp``
    (the printed ``numpy.f`` calls bind to it), so that JAX can trace a symbolic joint as it
    traces the built-in ones. ``phi[0]`` has the batch's full shape."""
    m = len(final["phi"])
    outs = list(final["phi"]) + [e for b in blocks for e in final[b]]
    keep, outs, need = _needed(outs, replacements)
    lines = [f"def terms(cls, xp, P, {', '.join(xs)}, jacobian=True):",
             "    numpy = xp  # the expressions' namespace: NumPy, or jax.numpy when traced"]
    lines += [f"    {s} = {unpack[s]}" for s in sorted(need & set(unpack), key=order.get)]
    lines.append(f"    shape = _broadcast({', '.join(f'{a}.shape[:-1]' for a in ['P', *xs])})")
    lines += [f"    {sym} = {printer.doprint(e)}" for sym, e in keep]

    def entry(e) -> str:
        return repr(float(e)) if e.is_Number else f"({printer.doprint(e)})"

    phi = [entry(e) for e in outs[:m]]
    phi[0] = f"numpy.broadcast_to({phi[0]}, shape)"
    lines.append(f"    phi = ({', '.join(phi)},)")
    lines += ["    if not jacobian:", "        return phi, None"]
    rows = []
    pos = m
    for _ in blocks:
        block = []
        for _ in range(m):
            block.append("(" + ", ".join(entry(e) for e in outs[pos:pos + 3]) + ",)")
            pos += 3
        rows.append("(" + ", ".join(block) + ",)")
    lines.append(f"    return phi, ({', '.join(rows)},)")
    return lines + ["", ""]
