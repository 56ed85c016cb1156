"""The layers of docs/architecture.md hold in the code: every module has a layer, no import runs
up the layers, no modules import each other in a circle (imports inside functions counted,
and a package's ``__init__`` counted as run by an import of its submodule), and an import
inside a function says in a comment that it spares a heavy import at start-up.

The imports are read from the source (``ast``), nothing is run. :data:`KNOWN` lists what does
not hold yet, each with the reason; a listed exception that the code no longer has fails too,
so the list only shrinks.
"""

from __future__ import annotations

import ast
import pathlib
import re

ROOT = pathlib.Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "mechsolve"
ARCHITECTURE = ROOT / "docs" / "architecture.md"

#: What does not hold yet: (rule, importing module, imported module) -> why. The rules:
#: "up" an import runs up the layers, "comment" an import inside a function without a
#: comment. Each goes when its file is next worked on.
KNOWN = {
    # Motion (analysis) hands sensitivities to design above it; the import also closes the
    # circle analysis.motion -> design (its __init__) -> design.sweep -> analysis.continuation
    # -> analysis.motion. Its owner decides where Motion.sensitivity lives.
    ("up", "mechsolve.analysis.motion", "mechsolve.design.sensitivity"): "analysis/motion.py",
    ("up", "mechsolve.analysis.motion", "mechsolve.design"): "analysis/motion.py",
    ("comment", "mechsolve.analysis.motion", "mechsolve.design.sensitivity"):
        "analysis/motion.py",
    ("comment", "mechsolve.analysis.motion", "mechsolve.analysis.measures"):
        "analysis/motion.py: measures imports nothing of motion, the import can go up",
    # the joints branch (joints declared once) rewrites these files
    ("comment", "mechsolve.joints.base", "mechsolve._limits"): "joints/base.py",
    ("comment", "mechsolve.joints.base", "mechsolve.profiles"): "joints/base.py",
    ("comment", "mechsolve.joints.base", "mechsolve.spatial._quat"): "joints/base.py",
    ("comment", "mechsolve.joints._end_effectors", "mechsolve.spatial"):
        "joints/_end_effectors.py",
    ("comment", "mechsolve.joints._links", "mechsolve.spatial"): "joints/_links.py",
    ("comment", "mechsolve.joints._momentum", "mechsolve.spatial"): "joints/_momentum.py",
    ("comment", "mechsolve.joints._spatial", "mechsolve.spatial"): "joints/_spatial.py",
    ("comment", "mechsolve.joints.base", "mechsolve._validation"): "joints/base.py",
    ("comment", "mechsolve.joints._links", "mechsolve.joints._end_effectors"):
        "joints/_links.py",
    ("comment", "mechsolve.joints._drivers", "mechsolve.joints.base"): "joints/_drivers.py",
    ("comment", "mechsolve.io._joint_codecs", "mechsolve.joints.base"): "io/_joint_codecs.py",
    ("comment", "mechsolve.io._joint_codecs", "mechsolve.symbolic._joint"):
        "io/_joint_codecs.py (SymPy: needs its comment)",
    ("comment", "mechsolve.plot.animation", "PIL"): "plot/animation.py",
    ("comment", "mechsolve.plot.animation", "matplotlib.pyplot"): "plot/animation.py",
    ("comment", "mechsolve.plot.interaction", "mechsolve.joints._drivers"):
        "plot/interaction.py",
    ("comment", "mechsolve.plot.interaction", "mechsolve.joints._links"): "plot/interaction.py",
    ("comment", "mechsolve.plot.spatial", "matplotlib.figure"): "plot/spatial.py",
}


def _modules() -> dict:
    """``{dotted name: (path, is_package)}`` of every module of mechsolve."""
    out = {}
    for path in PACKAGE.rglob("*.py"):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        package = parts[-1] == "__init__"
        if package:
            parts.pop()
        out[".".join(parts)] = (path, package)
    return out


MODULES = _modules()


def _resolve(name: str) -> str | None:
    while name and name not in MODULES:
        name = name.rpartition(".")[0]
    return name or None


class _Import:
    def __init__(self, importer: str, target: str, line: int, in_function: bool,
                 commented: bool) -> None:
        self.importer, self.target, self.line = importer, target, line
        self.in_function, self.commented = in_function, commented

    def __repr__(self) -> str:
        where = "inside a function" if self.in_function else "at the top"
        return f"{self.importer} -> {self.target} ({where}, line {self.line})"


def _is_type_checking(node: ast.If) -> bool:
    t = node.test
    return (isinstance(t, ast.Name) and t.id == "TYPE_CHECKING") or (
        isinstance(t, ast.Attribute) and t.attr == "TYPE_CHECKING")


def _targets(node, module: str, package: bool) -> list:
    """The modules an import statement names: mechsolve modules (the deepest that exists) or
    the top-level name of another package's module path (``matplotlib.pyplot``)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    elif node.level:
        base = module.split(".") if package else module.split(".")[:-1]
        base = base[:len(base) - node.level + 1]
        stem = ".".join(base + ([node.module] if node.module else []))
        names = [f"{stem}.{a.name}" for a in node.names]
        names = [n if _resolve(n) == n else stem for n in names]
    else:
        if node.module == "__future__":
            return []
        names = [f"{node.module}.{a.name}" for a in node.names]
        names = [n if _resolve(n) == n else node.module for n in names]
    out = []
    for n in names:
        if n.split(".")[0] == "mechsolve":
            found = _resolve(n)
            if found is not None and found != module:
                out.append(found)
        else:
            out.append(n)
    return list(dict.fromkeys(out))


def _commented(node, lines: list) -> bool:
    """A comment on the statement's lines, or right above the imports it stands among
    (``import sympy`` and a blank line before ``from ..symbolic import ...``)."""
    if any("#" in lines[k] for k in range(node.lineno - 1, node.end_lineno)):
        return True
    k = node.lineno - 2
    while k >= 0 and (not lines[k].strip() or lines[k].strip().startswith(("import ", "from "))):
        k -= 1
    return k >= 0 and lines[k].strip().startswith("#")


def _module_imports(module: str, path: pathlib.Path, package: bool) -> list:
    text = path.read_text()
    lines = text.splitlines()
    found = []
    work = [(ast.parse(text), False)]
    while work:
        node, in_function = work.pop()
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and _is_type_checking(child):
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found += [_Import(module, target, child.lineno, in_function,
                                  _commented(child, lines))
                          for target in _targets(child, module, package)]
            work.append((child, in_function or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))))
    return found


def _imports() -> list:
    return [imp for module, (path, package) in MODULES.items()
            for imp in _module_imports(module, path, package)]


IMPORTS = _imports()


def _layers() -> dict:
    """``{path prefix: layer}`` from the table of docs/architecture.md."""
    out = {}
    for row in re.findall(r"^\| (\d+) \| (.*?) \|", ARCHITECTURE.read_text(), re.M):
        for where in re.findall(r"`([^`]+)`", row[1]):
            out[where] = int(row[0])
    return out


def _layer(module: str, layers: dict) -> int | None:
    path = MODULES[module][0].relative_to(ROOT).as_posix()
    best = None
    for where, layer in layers.items():
        if path == where or (where.endswith("/") and path.startswith(where)):
            if best is None or len(where) > len(best[0]):
                best = (where, layer)
    return None if best is None else best[1]


def _fail_unless_known(rule: str, found: list) -> None:
    new = [imp for imp in found if (rule, imp.importer, imp.target) not in KNOWN]
    assert not new, f"{rule}: " + "; ".join(map(repr, new))
    gone = {k for k in KNOWN if k[0] == rule} - {(rule, imp.importer, imp.target)
                                                 for imp in found}
    assert not gone, f"no longer true, strike from KNOWN: {sorted(gone)}"


def test_every_module_has_one_layer():
    layers = _layers()
    assert len(layers) >= 14
    missing = [m for m in MODULES if _layer(m, layers) is None]
    assert not missing, f"add to the table of docs/architecture.md: {missing}"


def test_no_import_runs_up_the_layers():
    layers = _layers()
    up = [imp for imp in IMPORTS if imp.target in MODULES
          and _layer(imp.target, layers) > _layer(imp.importer, layers)]
    # an import of a submodule runs its package's __init__: that counts as an import of it
    up += [_Import(imp.importer, package, imp.line, imp.in_function, imp.commented)
           for imp in IMPORTS if imp.target in MODULES
           for package in _packages_run(imp)
           if _layer(package, layers) > _layer(imp.importer, layers)]
    _fail_unless_known("up", up)


def _packages_run(imp: _Import) -> list:
    """The packages whose ``__init__`` an import of ``imp.target`` runs that the importer
    does not stand in (those have run before it)."""
    parts = imp.target.split(".")
    out = []
    for k in range(2, len(parts)):
        package = ".".join(parts[:k])
        if MODULES.get(package, (None, False))[1] and not imp.importer.startswith(package + "."):
            out.append(package)
    return out


def test_no_modules_import_each_other_in_a_circle():
    known = {(k[1], k[2]) for k in KNOWN if k[0] == "up"}
    graph = {m: set() for m in MODULES}
    for imp in IMPORTS:
        if imp.target not in MODULES:
            continue
        for target in [imp.target, *_packages_run(imp)]:
            if (imp.importer, target) not in known:
                graph[imp.importer].add(target)
    # Tarjan's strongly connected components, without recursion
    index, low, on, stack, circles, counter = {}, {}, set(), [], [], [0]
    for root in graph:
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter[0]
                    counter[0] += 1
                    stack.append(child)
                    on.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    m = stack.pop()
                    on.discard(m)
                    component.append(m)
                    if m == node:
                        break
                if len(component) > 1:
                    circles.append(sorted(component))
    assert not circles, f"modules that import each other in a circle: {circles}"


def test_imports_inside_functions_say_why():
    silent = [imp for imp in IMPORTS if imp.in_function and not imp.commented]
    _fail_unless_known("comment", silent)


def test_the_checks_see_what_they_check():
    # the reading of imports finds the kinds it judges (so that the tests above can fail)
    pairs = {(imp.importer, imp.target, imp.in_function) for imp in IMPORTS}
    assert ("mechsolve.mechanism", "mechsolve.analysis", False) in pairs
    assert ("mechsolve.files._reader", "mechsolve.symbolic", True) in pairs
    assert ("mechsolve.cli", "matplotlib.pyplot", True) in pairs
    assert ("mechsolve.robots._serial", "mechsolve.mechanism", False) in pairs
    fake = _Import("mechsolve.spatial._quat", "mechsolve.mechanism", 1, True, False)
    layers = _layers()
    assert _layer(fake.target, layers) > _layer(fake.importer, layers)
    assert _packages_run(_Import("mechsolve.mechanism", "mechsolve.files._writer", 1, True,
                                 False)) == ["mechsolve.files"]
