"""The one linear-algebra layer (``mechsolve.linalg``): its protocol on every backend against
closed forms, its table of thresholds, and that no other module factors a matrix itself."""

from __future__ import annotations

import ast
import pathlib
import re

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import mechsolve.linalg as la
from mechsolve.linalg import _thresholds

ROOT = pathlib.Path(__file__).resolve().parent.parent / "mechsolve"


# -- closed forms ---------------------------------------------------------------------------------
def _permuted_diagonal(rng, n):
    """``(J, sign)``: ``diag(d) P`` with ``P`` a permutation matrix, whose determinant is
    ``prod(d) * sign(P)`` in closed form."""
    d = rng.uniform(0.5, 2.0, n) * rng.choice([-1.0, 1.0], n)
    perm = rng.permutation(n)
    P = np.eye(n)[perm]
    # the sign of a permutation: (-1)^(n - number of cycles)
    seen, cycles = np.zeros(n, bool), 0
    for i in range(n):
        if not seen[i]:
            cycles += 1
            j = i
            while not seen[j]:
                seen[j] = True
                j = perm[j]
    return d[:, None] * P, float(np.prod(np.sign(d))) * (-1.0) ** (n - cycles)


def _rank_deficient(rng, m, n, r):
    """``J = A B`` of rank ``r``, with ``B (r, n)`` (its rows span the row space)."""
    A, B = rng.standard_normal((m, r)), rng.standard_normal((r, n))
    return A @ B, B


def _in_row_space(x, B) -> float:
    """Relative size of the part of ``x`` outside the row space of ``B``."""
    y = np.linalg.solve(B @ B.T, B @ x)
    return float(np.linalg.norm(x - B.T @ y) / np.linalg.norm(x))


@pytest.mark.parametrize("seed", range(5))
def test_one_item_factor_solves_signs_and_ratios_in_closed_form(seed):
    rng = np.random.default_rng(seed)
    n = 7
    J, sign = _permuted_diagonal(rng, n)
    c = rng.uniform(0.1, 10.0, n)                 # positive column scales keep the sign
    x = rng.standard_normal(n)
    fac = la.LinearStrategy().factor_one(J[None], c, False)
    assert not fac.lsq
    np.testing.assert_allclose(fac.solve(J @ x), x, rtol=1e-13, atol=0)
    assert fac.det_sign() == sign
    # rows of diag(d) P scaled to norm 1 are a permutation matrix: every singular value 1
    assert fac.sigma_ratio() == pytest.approx(1.0, rel=1e-14)
    assert fac.rcond() == pytest.approx(1.0, rel=1e-14)
    X = rng.standard_normal((n, 3))
    np.testing.assert_allclose(fac.solve_columns(J @ X), X, rtol=1e-13, atol=0)
    lu = la.lu_factor(J)
    np.testing.assert_allclose(lu.solve(J @ x), x, rtol=1e-13, atol=0)
    assert lu.det_sign() == sign
    assert la.det_sign(J) == sign


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e3])
def test_least_squares_is_the_minimum_norm_solution_in_scaled_units(scale):
    # rank 3 of 5: the step is the solution whose scaled form x/c lies in the row space of
    # J diag(c); a length unit scaled by ``scale`` (columns of J divided, c multiplied) scales
    # the step's length components and nothing else
    rng = np.random.default_rng(7)
    J, B = _rank_deficient(rng, 5, 5, 3)
    c = np.array([1.0, 1.0, 2.0, 0.5, 1.0])
    x0 = rng.standard_normal(5)
    rhs = J @ x0
    unit = np.array([scale, scale, 1.0, 1.0, 1.0])   # two "length" columns
    Ju, cu = J / unit, c * unit
    one = la.LinearStrategy().factor_one(Ju[None], cu, False)
    batch = la.LinearStrategy().factor(Ju[None], cu, np.zeros(1, bool))
    for x in (one.solve(rhs), batch.solve(rhs[None])[0]):
        x = x / unit                                   # back in the first unit
        np.testing.assert_allclose(J @ x, rhs, rtol=0, atol=1e-12 * np.abs(rhs).max())
        assert _in_row_space(x / c, B * c) < 1e-12   # the rows of J diag(c) span B diag(c)
    assert one.lsq and batch.lsq.all()     # LU refused the singular matrix


def test_batched_factor_matches_each_item_and_signs():
    rng = np.random.default_rng(3)
    items = [_permuted_diagonal(rng, 6) for _ in range(8)]
    J = np.stack([j for j, _ in items])
    c = rng.uniform(0.5, 2.0, 6)
    X = rng.standard_normal((8, 6))
    fac = la.LinearStrategy().factor(J.copy(), c, np.zeros(8, bool))
    np.testing.assert_allclose(fac.solve(np.einsum("bij,bj->bi", J, X)), X, rtol=1e-13)
    assert fac.det_sign().tolist() == [s for _, s in items]
    np.testing.assert_allclose(fac.sigma_ratio(), 1.0, rtol=1e-14)
    R = rng.standard_normal((8, 6, 2))
    np.testing.assert_allclose(fac.solve_columns(np.einsum("bij,bjr->bir", J, R)), R,
                               rtol=1e-12)


@pytest.mark.parametrize("band", [False, True])
def test_sparse_factor_solves_like_the_dense_one(band):
    n = 40
    rng = np.random.default_rng(11)
    main, off = rng.uniform(3.0, 4.0, n), rng.uniform(-1.0, 1.0, n - 1)
    J = sp.diags([off, main, off], [-1, 0, 1], format="csc")
    x = rng.standard_normal(n)
    rows, cols = J.nonzero()
    strategy = la.LinearStrategy(band=la.BandOrdering(rows, cols, J.shape) if band else None)
    fac = strategy.factor_one(J, np.ones(n), False)
    np.testing.assert_allclose(fac.solve(J @ x), x, rtol=1e-12)
    X = rng.standard_normal((n, 2))
    np.testing.assert_allclose(fac.solve_columns(J @ X), X, rtol=1e-12)
    assert fac.det_sign() == la.det_sign(J.toarray()) != 0
    dense = J.toarray()
    assert fac.sigma_ratio() == pytest.approx(la.sigma_ratio(la.scale_rows(dense)), rel=1e-12)


@pytest.mark.parametrize("band", [False, True])
def test_sparse_det_sign_is_the_dense_one(band):
    # random sparse matrices, factored with SuperLU's permutations or in a band order with
    # LAPACK's row interchanges: every sign as the dense LU of the same matrix gives it
    rng = np.random.default_rng(21)
    for _ in range(60):
        n = int(rng.integers(2, 25))
        A = sp.random(n, n, density=0.2, random_state=rng, format="csc")
        A = sp.csc_matrix(A + sp.diags(rng.uniform(-3.0, 3.0, n) + 0.1))
        rows, cols = A.nonzero()
        strategy = la.LinearStrategy(band=la.BandOrdering(rows, cols, A.shape) if band else None)
        fac = strategy.factor_one(A, rng.uniform(0.5, 2.0, n), False)
        assert fac.lsq or fac.det_sign() == la.det_sign(A.toarray())


def test_a_sparse_matrix_with_unsorted_indices_is_factored_and_left_as_it_is():
    # every column's rows in reverse order: SuperLU (SciPy 1.14) sorted them in place, in the
    # index array the scaled matrix shared with the caller's
    rng = np.random.default_rng(12)
    dense = np.diag(rng.uniform(3.0, 4.0, 6)) + np.diag(rng.uniform(-1, 1, 5), 1) + np.diag(
        rng.uniform(-1, 1, 5), -1)
    A = sp.csc_matrix(dense)
    indices, data = A.indices.copy(), A.data.copy()
    for j in range(6):
        lo, hi = A.indptr[j], A.indptr[j + 1]
        indices[lo:hi], data[lo:hi] = indices[lo:hi][::-1], data[lo:hi][::-1]
    J = sp.csc_matrix((data, indices, A.indptr.copy()), shape=(6, 6))
    assert not J.has_sorted_indices
    x = rng.standard_normal(6)
    fac = la.LinearStrategy().factor_one(J, np.ones(6), False)
    np.testing.assert_allclose(fac.solve(dense @ x), x, rtol=1e-12)
    assert np.array_equal(J.toarray(), dense) and np.array_equal(J.indices, indices)


def test_sparse_sigma_ratio_past_the_dense_limit_says_so():
    n = la.DENSE_LIMIT + 1
    fac = la.LinearStrategy().factor(sp.identity(n, format="csc"), np.ones(n),
                                     np.zeros(1, bool))
    with pytest.raises(ValueError, match=f"at most {la.DENSE_LIMIT} unknowns; this one has {n}"):
        fac.sigma_ratio()


def test_a_bad_mode_is_named():
    with pytest.raises(ValueError, match="mode must be 'auto', 'lu' or 'lsq', got 'qr'"):
        la.LinearStrategy("qr")


def test_solve_each_leaves_singular_items_nan_with_sign_zero():
    rng = np.random.default_rng(5)
    J = np.stack([_permuted_diagonal(rng, 4)[0] for _ in range(3)])
    J[1] = np.outer([1.0, 2.0, 0.0, 1.0], [1.0, 0.0, 1.0, 1.0])       # rank one
    X = rng.standard_normal((3, 4, 2))
    R = np.einsum("bij,bjr->bir", J, X)
    out, sign = la.solve_each(J, R)
    assert sign[1] == 0.0 and np.isnan(out[1]).all()
    np.testing.assert_allclose(out[[0, 2]], X[[0, 2]], rtol=1e-13)
    assert sign[[0, 2]].tolist() == la.det_sign(J[[0, 2]]).tolist()


def test_det_sign_of_a_matrix_that_is_not_finite_is_zero():
    J = np.eye(3)
    J[1, 1] = np.nan
    with np.errstate(invalid="ignore"):
        assert la.det_sign(J) == 0.0
        assert la.det_sign(np.stack([J, np.eye(3)])).tolist() == [0.0, 1.0]


def test_det_signs_by_reference_agree_with_factorizing_each():
    rng = np.random.default_rng(9)
    base, _ = _permuted_diagonal(rng, 5)
    J = base + 1e-3 * rng.standard_normal((20, 5, 5))     # all near the reference
    J[-3:] = -J[-3:, [1, 0, 2, 3, 4]]                     # and some far from it
    K = np.linalg.inv(base)
    signs = la.det_signs(J, K, la.det_sign(base))
    assert signs.tolist() == la.det_sign(J).tolist()


def test_svd_rank_null_spaces_and_simple_singularity():
    s = np.array([2.0, 1.0, 0.5e-4 * 2.0])           # one value below SINGULAR_RTOL
    svd = la.SVD(np.diag(s), full=True)
    assert svd.rank() == 3 and svd.rank(la.SINGULAR_RTOL) == 2
    assert svd.simple_singular()
    assert not la.SVD(np.diag([2.0, 1e-5, 1e-5]), full=True).simple_singular()
    assert svd.null_space(la.SINGULAR_RTOL).tolist() in ([[0.0, 0.0, 1.0]], [[0.0, 0.0, -1.0]])
    assert svd.ratio() == pytest.approx(0.5e-4)
    np.testing.assert_allclose(svd.solve(np.array([2.0, 1.0, 1.0]), la.SINGULAR_RTOL),
                               [1.0, 1.0, 0.0])
    rank, rows = la.independent_rows(np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0],
                                               [1.0, 1.0, 0.0], [0.0, 0.0, 1.0]]))
    assert rank == 3 and rows.tolist() == [2]     # the latest row of the relation


@settings(max_examples=40, deadline=None)
@given(st.integers(min_value=0, max_value=2**32 - 1), st.integers(min_value=1, max_value=8))
def test_det_sign_is_multiplicative_and_kept_by_positive_scalings(seed, n):
    rng = np.random.default_rng(seed)
    A, sa = _permuted_diagonal(rng, n)
    B, sb = _permuted_diagonal(rng, n)
    assert la.det_sign(A @ B) == sa * sb
    r, c = rng.uniform(1e-3, 1e3, n), rng.uniform(1e-3, 1e3, n)
    assert la.det_sign(r[:, None] * A * c) == sa
    assert la.det_sign(la.scale_rows(A, c)) == sa


# -- one table of thresholds -----------------------------------------------------------------------
def test_every_threshold_is_named_and_documented_in_the_one_table():
    source = (ROOT / "linalg" / "_thresholds.py").read_text()
    lines = source.splitlines()
    tree = ast.parse(source)
    assigned = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and isinstance(node.targets[0], ast.Name):
            assigned[node.targets[0].id] = node.lineno
    names = set(assigned) - {"__all__"}
    assert names == set(_thresholds.__all__)
    assert names <= set(la.__all__)
    for name in names:
        assert lines[assigned[name] - 2].lstrip().startswith("#:"), f"{name} has no #: comment"


#: What may still call LAPACK or NumPy's factorizations outside ``mechsolve/linalg``: geometry,
#: not Jacobians (spatial/ and plot/ as a whole; in robots/, the inverse of a homogeneous
#: transform and the determinant of a rotation matrix a user gave).
GEOMETRY = {
    ("robots/_serial.py", "np.linalg.inv("): "the inverse of a homogeneous transform",
    ("robots/_serial.py", "np.linalg.det("): "a target's rotation matrix: det +1",
}
FACTORIZING = re.compile(r"np\.linalg\.(solve|det|slogdet|svd|inv|lstsq|qr|matrix_rank|pinv|"
                         r"cholesky|eig\w*)\(|lapack|\bsplu\(|\blu_factor\(|\bsla\.\w+\(")


def test_no_module_factors_a_matrix_outside_the_layer():
    found = set()
    for path in ROOT.rglob("*.py"):
        rel = path.relative_to(ROOT).as_posix()
        if rel.split("/")[0] in ("linalg", "spatial", "plot"):
            continue
        for line in path.read_text().splitlines():
            for match in FACTORIZING.finditer(line.split("#")[0]):
                if match.group(0) == "lu_factor(":
                    continue   # the layer's own function, asked by name
                found.add((rel, match.group(0)))
    assert found == set(GEOMETRY)
