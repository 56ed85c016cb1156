"""The Newton core written once: every problem class implements the declared protocol, runs
through the one-item and the batch paths to the same iterates, and lands where the core landed
before its rules were shared (the stored reference, ``tests/_newton_cases.py``)."""

import inspect
import json

import numpy as np
import pytest
from _newton_cases import CASES, COPIES, REFERENCE, solve

import mechsolve.newton as core
from mechsolve.newton import Problem

REF = json.loads(REFERENCE.read_text())["cases"]
BOTH = [name for name, build in CASES.items() if build()[2] is not None]
CLASSES = {"SystemProblem": "system_readme_sketch", "HeldProblem": "held_readme_stop",
           "_IKProblem": "ik_ur5_near", "_Chart": "chart_fourbar"}


def _sizes(x):
    """What round-off of a state is relative to: its entries, at least 1."""
    return np.maximum(1.0, np.abs(np.asarray(x)))


# -- the protocol -----------------------------------------------------------------------------
@pytest.mark.parametrize("cls_name", sorted(CLASSES))
def test_every_problem_class_implements_the_protocol(cls_name):
    problem, x0, batch, _, _ = CASES[CLASSES[cls_name]]()
    assert type(problem).__name__ == cls_name
    assert isinstance(problem, Problem) and isinstance(batch(3), Problem)
    for method in ("evaluate", "residual"):
        assert list(inspect.signature(getattr(problem, method)).parameters) == ["X", "idx"]
    assert list(inspect.signature(problem.retract).parameters) == ["X", "dX"]
    assert len(inspect.signature(problem.matrix).parameters) == 1
    # what the members say of each other: F (b, m) in eq_scale's rows, the matrices (b, m, n)
    # in col_scale's columns, states of state_scale's size, magnitudes (b, n) of at least 1
    p = batch(3)
    X = np.repeat(np.asarray(x0, dtype=float)[None], 3, axis=0)
    idx = np.arange(3)
    F, D = p.evaluate(X, idx)
    m, n = len(p.eq_scale), len(p.col_scale)
    assert F.shape == (3, m) and X.shape[1] == len(p.state_scale)
    np.testing.assert_array_equal(p.residual(X, idx), F)
    assert p.sparse is False and p.matrix(D).shape == (3, m, n)
    assert p.retract(X, np.zeros((3, n))).shape == X.shape
    if p.magnitude is not None:
        size = p.magnitude(X)
        assert size.shape == (3, n) and np.all(size >= 1.0)


def test_a_sparse_problem_is_one_matrix():
    problem, x0, batch, _, _ = CASES["system_chain20_sparse"]()
    assert batch is None and isinstance(problem, Problem) and problem.sparse
    _, D = problem.evaluate(x0[None], np.arange(1))
    J = problem.matrix(D)
    assert J.shape == (len(problem.eq_scale), len(problem.col_scale)) and J.nnz > 0


# -- both paths, one algorithm --------------------------------------------------------------------
@pytest.mark.parametrize("name", BOTH)
def test_both_paths_take_the_same_iterates(name):
    # the item alone (the one-item path) and _FEW + 1 copies of it (the batch path, which the
    # copies leave together): the same steps, to round-off, and the same outcome
    one, it_one = solve(name, "one")
    many, it_many = solve(name, "batch")
    assert many.x.shape[0] == COPIES
    assert np.all(many.status == one.status[0]) and np.all(many.iterations == one.iterations[0])
    assert len(it_one) == len(it_many) > 0
    scale = _sizes(it_one)
    # iterates far from the solution carry the round-off of many damped steps (LM from a far
    # start: 28 of them); the pose returned is exact in both
    assert np.max(np.abs(it_one - it_many) / scale) <= 1e-9
    np.testing.assert_allclose(many.x, np.repeat(one.x, COPIES, axis=0), rtol=0,
                               atol=1e-13 * float(np.max(_sizes(one.x))))
    if one.status[0] == core.CONVERGED:
        assert one.residual[0] <= 1e-10 and np.all(many.residual <= 1e-10)


def test_every_problem_class_is_run_through_both_paths():
    classes = {type(CASES[name]()[0]).__name__ for name in BOTH}
    assert classes == set(CLASSES)
    # and the rules that decide every kind of step are taken on the way (see _newton_cases)
    assert {"system_readme_far_start", "system_unreachable", "ik_ur5_far_lm",
            "system_readme_undamped", "system_readme_least_squares"} <= set(BOTH)


@pytest.mark.parametrize("name", BOTH)
def test_the_rules_decide_alike_on_both_paths(name, monkeypatch):
    # every call of the shared rules that both paths make at every step, in order, with what it
    # decided for the (first) item: the one-item path's list is the batch path's (the trial
    # steps each damping factor gave are the iterates, compared above)
    calls = {}
    rules = ["_stops", "_first_damping", "_after_failure", "_lm_status", "_lm_gain_ratio",
             "_lm_accepted", "_lm_rejected"]

    def spy(rule):
        fn = getattr(core, rule)

        def recorded(*args):
            out = fn(*args)
            first = np.ravel(out[0] if isinstance(out, tuple) else out)
            if first.size:     # (a batch updates its rejected items, none of them here)
                calls[path].append((rule, first[0].item()))
            return out
        return recorded

    for rule in rules:
        monkeypatch.setattr(core, rule, spy(rule))
    for path in ("one", "batch"):
        calls[path] = []
        solve(name, path)
    one = calls["one"]
    # (the batch path decides after a failure item by item: once for each of the copies)
    many = [c for i, c in enumerate(calls["batch"])
            if not (c[0] == "_after_failure" and i and calls["batch"][i - 1] == c)]
    assert [r for r, _ in one] == [r for r, _ in many] and len(one) > 1
    for (rule, a), (_, b) in zip(one, many):
        if isinstance(a, float):    # a damping factor, LM's gain ratio and damping
            assert a == pytest.approx(b, rel=1e-6), rule
        else:                       # a decision
            assert a == b, rule


# -- the same results as before -----------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(CASES))
def test_each_path_lands_where_the_core_landed_before(name):
    for path, ref in REF[name].items():
        out, iterates = solve(name, path)
        assert int(out.status[0]) == ref["status"], path
        assert int(out.iterations[0]) == ref["iterations"], path
        before = np.array(ref["iterates"])
        assert iterates.shape == before.shape, path
        assert np.max(np.abs(iterates - before) / _sizes(before), initial=0.0) <= 1e-9, path
        np.testing.assert_allclose(out.x[0], ref["x"], rtol=0,
                                   atol=1e-13 * float(np.max(_sizes(ref["x"]))))
        assert out.residual[0] == pytest.approx(ref["residual"], rel=1e-6, abs=1e-15)


def test_the_reference_holds_every_case_on_every_path():
    assert set(REF) == set(CASES)
    for name in CASES:
        assert set(REF[name]) == ({"one", "batch"} if name in BOTH else {"one"})
