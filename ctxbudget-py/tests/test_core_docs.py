"""The examples in the docstrings run, and the stubs name what the module has."""

import ast
import doctest
from pathlib import Path

import pytest

import ctxbudget
import ctxbudget._ctxbudget as native

STUBS = Path(ctxbudget.__file__).with_name("_ctxbudget.pyi")


def test_docstring_examples():
    pytest.importorskip("pyarrow")
    import ctxbudget.arrow

    failed = attempted = 0
    for module in (ctxbudget, native, ctxbudget.arrow):
        result = doctest.testmod(module, extraglobs={"ctxbudget": ctxbudget}, verbose=False)
        failed += result.failed
        attempted += result.attempted
    assert failed == 0
    assert attempted > 25


def test_every_native_name_has_a_stub_and_the_package_exports_it():
    tree = ast.parse(STUBS.read_text(encoding="utf-8"))
    stubbed = {
        node.name
        for node in tree.body
        if isinstance(node, (ast.ClassDef, ast.FunctionDef))
    }
    public = {name for name in dir(native) if not name.startswith("_")}
    assert public - stubbed == set()
    assert stubbed - public == set()
    assert (public - {"RequestBatchFitter", "count_texts"}) <= set(ctxbudget.__all__)
    assert Path(ctxbudget.__file__).with_name("py.typed").exists()
