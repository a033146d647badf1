"""The code of the recipes in docs/python-*.md, as the tests run it: the Python block
after a `<!-- recipe: NAME -->` line, executed in a namespace of its own."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any, Dict

DOCS = Path(__file__).resolve().parents[2] / "docs"


def source(page: str, name: str) -> str:
    """The code block of the recipe `name` on `page`."""
    text = (DOCS / page).read_text(encoding="utf-8")
    found = re.search(
        rf"<!-- recipe: {re.escape(name)} -->\s*```python\n(.*?)```", text, re.DOTALL
    )
    if found is None:
        raise LookupError(f"{page} has no recipe {name!r}")
    return found.group(1)


def load(page: str, name: str) -> Dict[str, Any]:
    """The recipe's names after running its block (functions look their globals up
    in this dict, so a test may replace one)."""
    namespace: Dict[str, Any] = {"__name__": f"recipe_{name}"}
    exec(compile(source(page, name), f"{page}:{name}", "exec"), namespace)
    return namespace
