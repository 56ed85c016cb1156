"""The Newton core written once: every problem class implements the declared protocol, runs
through the one-item and the batch paths to the same iterates, and lands where the core landed
before its rules were shared (the stored reference, ``tests/_newton_cases.py``)."""

import inspect
import json

import numpy as np
import pytest
from _newton_cases import CASES, COPIES, REFERENCE, solve
from hypothesis import given, settings
from hypothesis import strategies as st

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


# -- the rules: one item decides as a batch decides for it ----------------------------------------
_EDGES = [0.0, 5e-324, 1e-300, 1e-16, 0.25, 0.5, 1.0, 4.0, 1e300, np.inf, np.nan]


def _numbers(min_value=0.0, nan=True):
    edges = [v for v in _EDGES if np.isnan(v) and nan or v >= min_value]
    return st.one_of(st.sampled_from(edges),
                     st.floats(min_value=min_value, max_value=1e300, allow_nan=False))


_BOOL = st.booleans()
_POS = _numbers(5e-324, nan=False)
#: Every rule with ``xp``, and what its arguments may be in the drivers (norms and bounds at
#: least 0, damping factors in (0, 1], positive gain ratios where LM updates on them).
RULES = {
    "_stops": (_BOOL, _numbers(), st.integers(0, 60), st.integers(0, 60)),
    "_stop_status": (_BOOL, _BOOL, _numbers()),
    "_step_cap": (_numbers(nan=False), _POS),
    "_first_damping": (_POS, _numbers(nan=False), _POS, _numbers(nan=False),
                       st.floats(1e-4, 1.0), st.floats(1e-4, 1.0)),
    "_theta": (_BOOL, _numbers(), _numbers(nan=False)),
    "_may_grow": (_BOOL, st.floats(1e-4, 1.0), _BOOL),
    "_after_trial": (_BOOL, _BOOL, _BOOL, st.floats(1e-4, 1.0), _numbers(nan=False),
                     _numbers(nan=False), _POS, _BOOL, st.floats(1e-4, 1.0)),
    "_error_gain": (_numbers(),),
    "_keeps_correction": (_numbers(), _numbers(nan=False), _POS),
    "_lm_flat": (st.integers(0, 3), _numbers(), _numbers(nan=False), _numbers(nan=False)),
    "_lm_status": (_BOOL, _BOOL),
    "_lm_first_mu": (_numbers(nan=False),),
    "_lm_gain_ratio": (_BOOL, _numbers(nan=False), _numbers(), _numbers(-1e300)),
    "_lm_accepted": (st.floats(5e-324, 1e300), _POS),
}


#: The arguments that are one number for a whole batch (options of the solve, the unknowns).
SHARED = {"_stops": {3}, "_step_cap": {1}, "_first_damping": {5}, "_may_grow": {0},
          "_after_trial": {0, 8}, "_lm_flat": {0}}


def _same(a, b) -> bool:
    return (a == b) or (isinstance(a, float) and np.isnan(a) and np.isnan(b))


@pytest.mark.parametrize("rule", sorted(RULES))
@given(data=st.data())
@settings(max_examples=60)
def test_a_rule_decides_for_one_item_as_for_that_item_in_a_batch(rule, data):
    # the one-item path evaluates a rule on Python floats (_Item), the batch path on arrays
    # (_Items): the same value for every item, edges (0, the smallest double, infinity, NaN)
    # included, and no Python exception (a division by zero) where NumPy only warns
    fn = getattr(core, rule)
    shared = SHARED.get(rule, set())
    first = tuple(data.draw(s) for s in RULES[rule])
    items = [first] + [tuple(first[i] if i in shared else data.draw(s)
                             for i, s in enumerate(RULES[rule])) for _ in range(3)]
    ones = [fn(core._Item, *args) for args in items]
    with np.errstate(all="ignore"):
        many = fn(core._Items, *(column[0] if i in shared else np.array(column)
                                 for i, column in enumerate(zip(*items))))
    ones = [o if isinstance(o, tuple) else (o,) for o in ones]
    many = many if isinstance(many, tuple) else (many,)
    for k, one in enumerate(ones):
        for a, b in zip(one, many):
            b = np.broadcast_to(b, (len(items),))[k].item()
            assert _same(a, b), (rule, items[k], a, b)


# -- the linear step is the strategy's, on both paths ---------------------------------------------
def test_the_one_item_path_factorizes_through_its_strategy():
    # newton.py bypassed its own LinearStrategy for one item (`type(fac) is _OneFactor`): the
    # one-item path asks the strategy for every factorization, dense and sparse
    from mechsolve.newton import LinearStrategy, newton

    asked = []

    class Asked(LinearStrategy):
        def factor_one(self, J, c, lsq):
            fac = super().factor_one(J, c, lsq)
            asked.append(type(fac).__name__)
            return fac

    for name in ("system_readme_sketch", "system_chain20_sparse"):
        problem, x0, _, _, _ = CASES[name]()
        asked.clear()
        out = newton(problem, x0[None], strategy=Asked(), watch_det_sign=True)
        assert out.success[0] and len(asked) >= out.iterations[0] > 0
        assert set(asked) == {"_SparseOne" if problem.sparse else "_OneFactor"}
        assert out.crossed[0] == (False if problem.sparse else out.crossed[0])
    # "lsq": the minimum-norm step from the first iteration on
    problem, x0, _, _, _ = CASES["system_readme_undamped"]()
    out = newton(problem, x0[None], strategy=LinearStrategy("lsq"))
    assert out.least_squares[0]


def test_the_batch_hands_its_waypoint_precision_to_the_one_item_path(monkeypatch):
    # the batch path handed its last few items to the one-item path without pose_atol: they
    # were polished to round-off where the batch asked for a waypoint's precision
    from _newton_cases import readme_fourbar

    from mechsolve.newton import _FEW, newton

    handed = []
    one_item = core._newton_one

    def spy(*args, **kwargs):
        handed.append(kwargs.get("pose_atol"))
        return one_item(*args, **kwargs)

    mech, _ = readme_fourbar()
    mech.solve()
    p = mech.system().problem()
    rng = np.random.default_rng(9)
    X = mech.state + rng.normal(scale=0.02, size=(_FEW + 4, len(mech.state)))
    X[-3:] = mech.state + rng.normal(scale=0.8, size=(3, len(mech.state)))  # the slow ones
    monkeypatch.setattr(core, "_newton_one", spy)
    out = newton(p, X, tol=1e-6, pose_atol=1e-6)     # as a sweep asks for a coarse node
    assert handed and set(handed) == {1e-6}
    assert out.success.all()
