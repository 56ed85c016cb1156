"""Mathematical expressions from model files, read without running code from the file.

:func:`parse` turns a text such as ``"(x1 - cx)**2 + (y1 - cy)**2 - r**2"`` into a SymPy
expression. It first splits the text into Python tokens and accepts only numbers, the
operators ``+ - * / ** ( ) ,`` and the comparisons Piecewise conditions use, and names that are
either declared symbols (body coordinates, parameters, own coordinates, time) or the
functions and constants of :data:`FUNCTIONS`. No attribute access (``.``), indexing, strings,
keywords or other names can get through, so the text handed to ``sympy.parse_expr`` can only
build an expression from those symbols and functions.

SymPy evaluates what it can while it parses: ``9**9**9`` would be computed as an exact
integer of 370 million digits, and ``x - 1e999999`` did not finish in 20 seconds either. So
before SymPy sees the text, :func:`check` bounds what it can be asked to do, on the tokens
and the syntax tree of the text alone:

* at most :data:`MAX_LENGTH` characters and :data:`MAX_TOKENS` tokens;
* nesting at most :data:`MAX_DEPTH` deep (parentheses, calls, signs, powers; a chain of
  sums or of products counts once, as SymPy flattens it);
* every number written finite and of magnitude at most :data:`MAX_LITERAL`;
* every part of the expression without symbols (a constant, such as ``2**10`` or
  ``exp(3)``), evaluated in floating point, finite (no overflow), and no division by a
  constant zero;
* the exponent of every power, where it is a constant, of magnitude at most
  :data:`MAX_EXPONENT` (``x**2``, ``r**-1`` and ``t**0.5`` pass; ``2**10**10`` does not).
"""

from __future__ import annotations

import ast
import io
import keyword
import math
import tokenize

__all__ = ["parse", "check", "FUNCTIONS", "MAX_LENGTH", "MAX_TOKENS", "MAX_DEPTH",
           "MAX_LITERAL", "MAX_EXPONENT"]

#: Names of SymPy functions and constants an expression may use.
FUNCTIONS = ("sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
             "asinh", "acosh", "atanh", "exp", "log", "sqrt", "Abs", "sign", "floor",
             "ceiling", "Min", "Max", "Piecewise", "Heaviside", "pi", "E", "Rational",
             "Integer", "Float", "true", "false", "And", "Or", "Not", "Eq", "Ne")
#: Longest expression text read (characters).
MAX_LENGTH = 20000
#: Most tokens (numbers, names, operators, parentheses) in one expression.
MAX_TOKENS = 10000
#: Deepest nesting of an expression (parentheses, calls, signs, powers; a chain of sums or of
#: products counts as one level).
MAX_DEPTH = 20
#: Largest magnitude of a number written in an expression (the bound on model-file numbers).
MAX_LITERAL = 1e15
#: Largest magnitude of a constant exponent.
MAX_EXPONENT = 100
_OPS = {"+", "-", "*", "/", "**", "(", ")", ",", "<", ">", "<=", ">=", "==", "!="}
_ALLOWED = (" (only numbers, + - * / ** ( ) , and comparisons, symbols and functions such "
            "as sin)")
_CONSTANTS = {"pi": math.pi, "E": math.e}


def _rational(a, b=1.0):
    return a / b


def _integer(a):
    return float(math.trunc(a))


def _sign(a):
    return float((a > 0) - (a < 0))


def _heaviside(a, h0=0.5):
    return 1.0 if a > 0 else 0.0 if a < 0 else h0


#: The functions of FUNCTIONS in floating point, for bounding constants (a call whose value
#: is not real here, such as ``log(-1)``, is left to SymPy).
_FLOAT_FUNCTIONS = {
    "sin": math.sin, "cos": math.cos, "tan": math.tan, "asin": math.asin,
    "acos": math.acos, "atan": math.atan, "atan2": math.atan2, "sinh": math.sinh,
    "cosh": math.cosh, "tanh": math.tanh, "asinh": math.asinh, "acosh": math.acosh,
    "atanh": math.atanh, "exp": math.exp, "log": math.log, "sqrt": math.sqrt,
    "Abs": abs, "sign": _sign, "floor": lambda a: float(math.floor(a)),
    "ceiling": lambda a: float(math.ceil(a)), "Min": min, "Max": max,
    "Heaviside": _heaviside, "Rational": _rational, "Integer": _integer, "Float": float,
}


def _literal(text: str) -> float:
    """The value of a number token, bounded: ValueError if it is not finite or beyond
    :data:`MAX_LITERAL` (``1e999999`` reads as infinity)."""
    s = text.replace("_", "")
    if s[-1:] in "jJ":
        raise ValueError(f"imaginary number {text!r} in an expression")
    if s[:2].lower() in ("0x", "0o", "0b"):
        value = int(s, 0)
        x = float(value) if value.bit_length() <= 64 else math.inf
    else:
        x = float(s)
    if not math.isfinite(x):
        raise ValueError(f"the number {_short(text)} is not finite (as a float it is {x!r})")
    if abs(x) > MAX_LITERAL:
        raise ValueError(f"the number {_short(text)} has a magnitude above {MAX_LITERAL:g}, "
                         "the bound on numbers in an expression")
    return x


def _short(text: str, most: int = 40) -> str:
    return repr(text) if len(text) <= most else repr(text[:most - 3] + "...")


def _tokens(text: str, symbols) -> int:
    """Check the tokens (the whitelist, their count, parentheses depth, numbers); their
    number."""
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError, IndentationError) as exc:
        raise ValueError(f"not an expression: {_short(text)} ({exc})") from None
    depth = count = 0
    for tok in tokens:
        if tok.type in (tokenize.NEWLINE, tokenize.NL, tokenize.ENDMARKER, tokenize.INDENT,
                        tokenize.DEDENT):
            continue
        count += 1
        if count > MAX_TOKENS:
            raise ValueError(f"an expression of more than {MAX_TOKENS} tokens (numbers, "
                             "names, operators)")
        if tok.type == tokenize.NUMBER:
            _literal(tok.string)
            continue
        if tok.type == tokenize.NAME:
            name = tok.string
            if keyword.iskeyword(name) and name not in ("True", "False"):
                raise ValueError(f"{name!r} is not allowed in an expression{_ALLOWED}")
            if symbols is not None and name not in symbols and name not in FUNCTIONS \
                    and name not in ("True", "False"):
                known = ", ".join(sorted(symbols))
                raise ValueError(f"unknown name {name!r} in an expression (symbols: {known}; "
                                 "functions such as sin, cos, sqrt)")
            continue
        if tok.type == tokenize.OP and tok.string in _OPS:
            depth += tok.string == "("
            depth -= tok.string == ")"
            if depth > MAX_DEPTH:
                raise ValueError(f"an expression nested more than {MAX_DEPTH} parentheses "
                                 "deep")
            continue
        raise ValueError(f"{tok.string!r} is not allowed in an expression{_ALLOWED}")
    return count


def _family(node) -> str | None:
    """The chain a node belongs to for depth: sums and products flatten in SymPy."""
    if isinstance(node, ast.BinOp):
        if isinstance(node.op, ast.Add | ast.Sub):
            return "sum"
        if isinstance(node.op, ast.Mult | ast.Div):
            return "product"
    return None


def _depth(tree) -> int:
    """The nesting depth of the syntax tree, checked (iteratively: any depth is measured)."""
    stack = [(tree.body, 1)]
    deepest = 0
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            raise ValueError(f"an expression nested more than {MAX_DEPTH} levels deep")
        fam = _family(node)
        for child in ast.iter_child_nodes(node):
            if not isinstance(child, ast.expr):       # operators, contexts
                continue
            same = fam is not None and _family(child) == fam
            stack.append((child, d if same else d + 1))
    return deepest


def _constants(tree, symbols) -> None:
    """Evaluate the constant parts of a syntax tree in floating point, bottom-up and without
    recursion (a sum of thousands of terms is a deep tree): a part with symbols has no value,
    a constant a float. ValueError where a constant overflows or divides by zero, or an
    exponent that is a constant is beyond :data:`MAX_EXPONENT`."""
    values: dict = {}
    stack = [(tree.body, False)]
    while stack:
        node, done = stack.pop()
        if not done:
            stack.append((node, True))
            stack.extend((child, False) for child in ast.iter_child_nodes(node))
            continue
        values[id(node)] = _value(node, values, symbols)


def _value(node, values: dict, symbols):
    """The float value of ``node`` from its children's ``values`` (None: not a constant)."""
    if isinstance(node, ast.Constant):
        v = node.value
        return float(v) if isinstance(v, int | float) and not isinstance(v, bool) else None
    if isinstance(node, ast.Name):
        declared = symbols is not None and node.id in symbols
        return None if declared else _CONSTANTS.get(node.id)
    if isinstance(node, ast.UnaryOp):
        v = values.get(id(node.operand))
        if v is None or not isinstance(node.op, ast.USub | ast.UAdd):
            return None
        return -v if isinstance(node.op, ast.USub) else v
    if isinstance(node, ast.BinOp):
        a, b = values.get(id(node.left)), values.get(id(node.right))
        if isinstance(node.op, ast.Pow) and b is not None and abs(b) > MAX_EXPONENT:
            raise ValueError(f"the constant exponent {b:g} is beyond {MAX_EXPONENT:g} in "
                             "magnitude")
        if isinstance(node.op, ast.Div) and b == 0.0:
            raise ValueError("a division by zero in the expression")
        if a is None or b is None:
            return None
        try:
            if isinstance(node.op, ast.Add):
                v = a + b
            elif isinstance(node.op, ast.Sub):
                v = a - b
            elif isinstance(node.op, ast.Mult):
                v = a * b
            elif isinstance(node.op, ast.Div):
                v = a / b
            elif isinstance(node.op, ast.Pow):
                v = math.pow(abs(a), b)      # the magnitude (a negative base may be complex)
            else:
                return None
        except ZeroDivisionError:
            raise ValueError("a division by zero in the expression") from None
        except OverflowError:
            raise ValueError("a constant of the expression overflows (beyond 1.8e308)") \
                from None
        if not math.isfinite(v):
            raise ValueError("a constant of the expression overflows (beyond 1.8e308)")
        if isinstance(node.op, ast.Pow) and a < 0 and b == int(b) and int(b) % 2:
            v = -v                     # else |a|**b: bounds a complex power too
        return v
    if isinstance(node, ast.Call):
        f = _FLOAT_FUNCTIONS.get(node.func.id) if isinstance(node.func, ast.Name) else None
        args = [values.get(id(a)) for a in node.args]
        if f is None or not args or None in args or node.keywords:
            return None
        shown = ", ".join(f"{a:g}" for a in args)
        try:
            v = float(f(*args))
        except OverflowError:
            raise ValueError(f"a constant of the expression overflows ({node.func.id} of "
                             f"{shown})") from None
        except (ValueError, TypeError, ZeroDivisionError):
            return None                 # not real here (log(-1)): SymPy's to say
        if not math.isfinite(v):
            raise ValueError(f"a constant of the expression is not finite ({node.func.id} "
                             f"of {shown})")
        return v
    return None                         # tuples, comparisons: not a number


def check(text: str, symbols=()) -> int:
    """Check an expression's text against the bounds of this module, before SymPy parses it;
    its number of tokens.

    ``symbols`` are the names it may use besides :data:`FUNCTIONS` (None: any name). Raises
    ValueError saying what is not allowed (see the module's docstring); reads the text only.

    >>> check("x**2 - r", {"x", "r"})
    5
    >>> check("x - 9**9**9", {"x"})
    Traceback (most recent call last):
    ...
    ValueError: the constant exponent 3.8742e+08 is beyond 100 in magnitude
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(f"expected an expression, found {text!r}")
    if len(text) > MAX_LENGTH:
        raise ValueError(f"an expression longer than {MAX_LENGTH} characters")
    count = _tokens(text, symbols)
    try:
        tree = ast.parse(text.strip(), mode="eval")
    except SyntaxError as exc:
        raise ValueError(f"not an expression: {_short(text)} ({exc.msg})") from None
    except (RecursionError, MemoryError):
        # CPython's parser refuses nesting beyond its own stack
        raise ValueError(f"an expression nested more than {MAX_DEPTH} levels deep") from None
    _depth(tree)
    _constants(tree, symbols)
    return count


def parse(text: str, symbols: dict):
    """The SymPy expression of ``text`` over ``symbols`` (``{name: Symbol}``).

    Raises ValueError saying what is not allowed (a name that is neither a symbol nor a
    function of :data:`FUNCTIONS`, an operator, a text that is not an expression, a bound of
    :func:`check`).

    >>> import sympy as sp
    >>> x, r = sp.symbols("x r")
    >>> parse("sqrt(x**2) - r", {"x": x, "r": r})
    -r + sqrt(x**2)
    >>> parse("x.__class__", {"x": x})     # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: '.' is not allowed in an expression (only numbers, ...)
    """
    # SymPy when a file has expressions, not with mechsolve
    import sympy as sp
    from sympy.parsing.sympy_parser import parse_expr, standard_transformations

    check(text, symbols)
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
