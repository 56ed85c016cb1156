"""Sphinx extension: the narrative pages show their code as plain Python.

The pages' examples are written as doctests (``>>>`` prompts and the output they print), and
``tests/test_docs.py`` runs them as such. On the site, a reader wants code to read and copy:
this extension rewrites every doctest block of a narrative page (not the API reference, whose
numpydoc Examples keep their prompts, as in NumPy's and SciPy's) into a plain Python block,
prompts dropped and each output line shown as a comment under the line that printed it
(the prompt line ``round(1 / 3, 3)`` with its output ``0.333`` reads ``round(1 / 3, 3)`` then
``# 0.333``).
Blank lines inside an output stay comments (``#``) so that the output reads as one piece.
"""

from __future__ import annotations

PROMPTS = (">>> ", "... ")
#: Pages whose examples keep their prompts: the API reference and the gallery (its scripts
#: are plain Python already).
KEEP = ("generated/", "auto_examples/")


def plain(text: str) -> str:
    """The doctest ``text`` as plain Python: prompts dropped, outputs commented.

    >>> print(plain(">>> x = 1\\n>>> for k in range(2):\\n...     print(k)\\n0\\n1\\n"))
    x = 1
    for k in range(2):
        print(k)
    # 0
    # 1
    """
    out = []
    for line in text.rstrip("\n").split("\n"):
        if line.startswith(PROMPTS) or line in (">>>", "..."):
            out.append(line[4:])
        elif line.strip():
            out.append("# " + line)
        else:
            out.append("#" if out and out[-1].startswith("#") else "")
    while out and out[-1] in ("", "#"):
        out.pop()
    return "\n".join(out)


def is_doctest(text: str) -> bool:
    """Whether a code block's ``text`` is a doctest (its first line a ``>>>`` prompt)."""
    return text.lstrip().startswith(">>>")


def _rewrite(app, doctree) -> None:
    from docutils import nodes

    if app.env.docname.startswith(KEEP):
        return
    for node in list(doctree.findall(lambda n: isinstance(n, (nodes.doctest_block,
                                                              nodes.literal_block)))):
        text = node.astext()
        if not is_doctest(text):
            continue
        block = nodes.literal_block(plain(text), plain(text))
        block["language"] = "python"
        block.source, block.line = node.source, node.line
        node.replace_self(block)


def setup(app):
    app.connect("doctree-read", _rewrite)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
