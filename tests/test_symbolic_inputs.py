"""Symbolic joints given inputs that are not real (issue 18)."""

import numpy as np
import pytest
import sympy as sp

import mechsolve as ms
from mechsolve.symbolic import body_symbols, symbolic_joint


def _one_body(phi, L):
    (b,) = body_symbols(1)
    return symbolic_joint("Par", bodies=[b], params=[L], phi=[phi(b, L), b.y, b.theta])


def test_a_complex_array_is_not_a_parameter_value():
    """Was: ``np.array(0.5 + 1j)`` accepted as 0.5 (the imaginary part dropped with a
    ComplexWarning)."""
    L = sp.Symbol("L")
    cls = _one_body(lambda b, L: b.x - L, L)
    a = ms.Mechanism().add_body("a")
    with pytest.raises(TypeError, match=r"L must be a real number, got a complex array "
                                        r"array\(0\.5\+1\.j\)"):
        cls(a, L=np.array(0.5 + 1j))
    with pytest.raises(TypeError, match="L must be a real number, got complex"):
        cls(a, L=0.5 + 0j)
