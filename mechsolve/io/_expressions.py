"""Mathematical expressions from model files, read without running code from the file.

:func:`parse` turns a text such as ``"(x1 - cx)**2 + (y1 - cy)**2 - r**2"`` into a SymPy
expression. It first splits the text into Python tokens and accepts only numbers, the
operators ``+ - * / ** ( ) ,`` and the comparisons Piecewise conditions use, and names that are
either declared symbols (body coordinates, parameters, own coordinates, time) or the
functions and constants of :data:`FUNCTIONS`. No attribute access (``.``), indexing, strings,
keywords or other names can get through, so the text handed to ``sympy.parse_expr`` can only
build an expression from those symbols and functions.
"""

from __future__ import annotations

import io
import keyword
import tokenize

__all__ = ["parse", "FUNCTIONS", "MAX_LENGTH"]

#: Names of SymPy functions and constants an expression may use.
FUNCTIONS = ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
             "asinh", "acosh", "atanh", "exp", "log", "sqrt", "Abs", "sign", "floor",
             "ceiling", "Min", "Max", "Piecewise", "Heaviside", "pi", "E", "Rational",
             "Integer", "Float", "true", "false", "And", "Or", "Not", "Eq", "Ne")
#: Longest expression text read (characters).
MAX_LENGTH = 20000
_OPS = {"+", "-", "*", "/", "**", "(", ")", ",", "<", ">", "<=", ">=", "==", "!="}


def parse(text: str, symbols: dict):
    """The SymPy expression of ``text`` over ``symbols`` (``{name: Symbol}``).

    Raises ValueError saying what is not allowed (a name that is neither a symbol nor a
    function of :data:`FUNCTIONS`, an operator, a text that is not an expression).

    >>> import sympy as sp
    >>> x, r = sp.symbols("x r")
    >>> parse("sqrt(x**2) - r", {"x": x, "r": r})
    -r + sqrt(x**2)
    >>> parse("x.__class__", {"x": x})     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: '.' is not allowed in an expression (only numbers, ...)
    """
    import sympy as sp
    from sympy.parsing.sympy_parser import parse_expr, standard_transformations

    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"expected an expression, found {text!r}")
    if len(text) > MAX_LENGTH:
        raise ValueError(f"an expression longer than {MAX_LENGTH} characters")
    allowed = (" (only numbers, + - * / ** ( ) , and comparisons, symbols and functions such "
               "as sin)")
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
        raise ValueError(f"not an expression: {text!r} ({exc})") from None
    depth = 0
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                        tokenize.DEDENT):
            continue
        if tok.type == tokenize.NUMBER:
            if tok.string[-1:] in "jJ":
                raise ValueError(f"imaginary number {tok.string!r} in an expression")
            continue
        if tok.type == tokenize.NAME:
            name = tok.string
            if keyword.iskeyword(name) and name not in ("True", "False"):
                raise ValueError(f"{name!r} is not allowed in an expression{allowed}")
            if name not in symbols and name not in FUNCTIONS and name not in ("True", "False"):
                known = ", ".join(sorted(symbols))
                raise ValueError(f"unknown name {name!r} in an expression (symbols: {known}; "
                                 "functions such as sin, cos, sqrt)")
            continue
        if tok.type == tokenize.OP and tok.string in _OPS:
            depth += tok.string == "("
            depth -= tok.string == ")"
            if depth > 100:
                raise ValueError("an expression nested more than 100 parentheses deep")
            continue
        raise ValueError(f"{tok.string!r} is not allowed in an expression{allowed}")
    namespace = {name: getattr(sp, name) for name in FUNCTIONS}
    namespace.update({"True": sp.true, "False": sp.false, "Symbol": sp.Symbol})
    local = dict(symbols)
    try:
        expr = parse_expr(text, local_dict=local, global_dict={"__builtins__": {}, **namespace},
                          transformations=standard_transformations, evaluate=True)
    except (SyntaxError, TypeError, ValueError, AttributeError, RecursionError,
            ZeroDivisionError, OverflowError) as exc:
        raise ValueError(f"not an expression: {text!r} ({type(exc).__name__}: {exc})") \
            from None
    if not isinstance(expr, sp.Basic):
        raise ValueError(f"not an expression: {text!r}")
    return expr
