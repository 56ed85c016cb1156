"""The old-against-new tools of ``benchmarks/interleave.py`` that the other benchmark scripts
share: the rounds' order, the medians and ratios, and the tables as each script printed them."""

from __future__ import annotations

import importlib.util
import pathlib
import sys

import numpy as np
import pytest

BENCH = pathlib.Path(__file__).resolve().parent.parent / "benchmarks"


@pytest.fixture(scope="module")
def tools():
    spec = importlib.util.spec_from_file_location("interleave", BENCH / "interleave.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# prints the tree it ran on (its working directory), the argument and the ordinal of the call
SCRIPT = r'''
import json, os, pathlib, sys
tree = pathlib.Path.cwd()
log = tree / "calls.txt"
n = len(log.read_text().splitlines()) if log.exists() else 0
log.write_text((log.read_text() if log.exists() else "") + f"{sys.argv[1:]}\n")
what = sys.argv[1] if len(sys.argv) > 1 else "none"
print("noise")
print(json.dumps({what + " value": float(tree.name == "new") + 1.0 + n,
                  what + " env": os.environ.get("EXTRA", "")}))
'''


def _trees(tmp_path):
    trees = {}
    for label in ("old", "new"):
        trees[label] = tmp_path / label
        trees[label].mkdir()
    return trees


def test_interleaved_alternates_and_skips(tools, tmp_path):
    trees = _trees(tmp_path)
    rounds = tools.interleaved(trees, ["a", "b"], 3, script=SCRIPT, env={"EXTRA": "x"},
                               skip=lambda r, what: r > 0 and what == "b", log=False)
    assert [sorted(row) for row in rounds["old"]] == [
        ["a env", "a value", "b env", "b value"], ["a env", "a value"], ["a env", "a value"]]
    assert rounds["new"][0]["a env"] == "x"
    # each tree ran its measures in turn: a, b in round 1, then a, then a
    for label in ("old", "new"):
        assert (trees[label] / "calls.txt").read_text().split("\n")[:4] == [
            "['a']", "['b']", "['a']", "['a']"]
    assert [row["a value"] for row in rounds["new"]] == [2.0, 4.0, 5.0]


def test_interleaved_by_measure_and_without_arguments(tools, tmp_path):
    trees = _trees(tmp_path)
    rounds = tools.interleaved(trees, [None], 2, script=SCRIPT, alternate=False, log=False)
    assert rounds["old"] == [{"none value": 1.0, "none env": ""},
                             {"none value": 2.0, "none env": ""}]
    rounds = tools.interleaved(trees, ["a", "b"], 1, script=SCRIPT, by_measure=True,
                               log=False)
    assert set(rounds["new"][0]) == {"a value", "a env", "b value", "b env"}


def test_compare_takes_medians_and_median_ratios(tools):
    rounds = {"old": [{"t": 1.0, "u": 4.0}, {"t": 2.0}, {"t": 4.0, "u": 8.0}],
              "new": [{"t": 2.0, "u": 2.0}, {"t": 1.0}, {"t": 4.0, "u": 2.0}]}
    table = tools.compare(rounds)
    assert table["t"]["old"] == 2.0 and table["t"]["new"] == 2.0
    assert table["t"]["ratios"] == [2.0, 0.5, 1.0] and table["t"]["median_ratio"] == 1.0
    assert table["u"]["rounds"] == 2 and table["u"]["median_ratio"] == pytest.approx(0.375)


def _old_formats(table):
    """The tables as the scripts printed them before they shared print_table."""
    out = {"columns": [f"{'measure':<30}{'old (median)':>14}{'new (median)':>14}{'new/old':>10}"],
           "linalg": [f"| {'measure':<38} | {'old (median)':>12} | {'new (median)':>12} | "
                      f"{'new/old (median of rounds)':>26} |",
                      f"|{'-' * 40}|{'-' * 14}|{'-' * 14}|{'-' * 28}|"],
           "newton": [f"| {'measure':<24} | {'old (median)':>12} | {'new (median)':>12} | "
                      f"{'median new/old':>14} |",
                      f"|{'-' * 26}|{'-' * 14}|{'-' * 14}|{'-' * 16}|"],
           "timed": [f"| {'measure':<28} | {'old (median)':>12} | {'new (median)':>12} | "
                     f"{'median new/old':>14} |",
                     f"|{'-' * 30}|{'-' * 14}|{'-' * 14}|{'-' * 16}|"],
           "results": ["| measure (us per call) | old | new | new/old (median of 5 rounds) |",
                       "|---|---:|---:|---:|"]}
    for k, r in table.items():
        old, new, ratio = r["old"], r["new"], r["median_ratio"]
        out["columns"].append(f"{k:<30}{old:>14.4g}{new:>14.4g}{ratio:>10.3g}")
        out["linalg"].append(f"| {k:<38} | {old:>12.4g} | {new:>12.4g} | {ratio:>26.3f} |")
        out["newton"].append(f"| {k:<24} | {old:>12.4g} | {new:>12.4g} | {ratio:>14.3f} |")
        out["timed"].append(f"| {k:<28} | {old:>12.3g} | {new:>12.3g} | {ratio:>14.3f} |")
        out["results"].append(f"| {k} | {old:.1f} | {new:.1f} | {ratio:.3f} |")
    return {name: "\n".join(lines) + "\n" for name, lines in out.items()}


def test_print_table_prints_each_scripts_table(tools, capsys):
    rng = np.random.default_rng(0)
    rounds = {label: [{"four-bar solve us": float(x), "chain 1e4 ms": float(y)}
                      for x, y in rng.uniform(1, 1e4, (3, 2))] for label in ("old", "new")}
    table = tools.compare(rounds)
    want = _old_formats(table)
    calls = {
        "columns": {},
        "linalg": dict(style="bars", width=38, value_width=12, value_format=".4g",
                       ratio_header="new/old (median of rounds)", ratio_width=26,
                       ratio_format=".3f"),
        "newton": dict(style="bars", width=24, value_width=12, value_format=".4g",
                       ratio_header="median new/old", ratio_width=14, ratio_format=".3f"),
        "timed": dict(style="bars", width=28, value_width=12, value_format=".3g",
                      ratio_header="median new/old", ratio_width=14, ratio_format=".3f"),
        "results": dict(style="markdown", name_header="measure (us per call)",
                        value_header=("old", "new"), value_format=".1f", ratio_format=".3f",
                        ratio_header="new/old (median of 5 rounds)"),
    }
    for name, kwargs in calls.items():
        tools.print_table(table, **kwargs)
        assert capsys.readouterr().out == want[name], name


@pytest.mark.parametrize("script", ["linalg_paths.py", "newton_paths.py", "timed_speed.py",
                                    "results_overhead.py", "interleave.py"])
def test_the_scripts_import_the_shared_tools(script):
    # each stays runnable (its --help) with the tools imported from interleave.py
    import subprocess

    out = subprocess.run([sys.executable, str(BENCH / script), "--help"], capture_output=True,
                         text=True, cwd=BENCH)
    assert out.returncode == 0, out.stderr
    assert "usage" in out.stdout
