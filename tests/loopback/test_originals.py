"""sslcustomize._support._originals: the one owner of Python's own ssl objects, stdlib only."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest

from _fixtures import WritePolicy, run_python

SRC = Path(__file__).resolve().parents[2] / "src"


def test_originals_import_only_the_standard_library() -> None:
    """The support module imports nothing of sslcustomize, nothing outside the stdlib."""
    source = SRC / "sslcustomize" / "_support" / "_originals.py"
    tree = ast.parse(source.read_text(encoding="utf-8"))
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            assert node.level == 0, "a relative import"
            imported.add((node.module or "").split(".")[0])
    assert imported
    assert imported <= {*sys.stdlib_module_names, "__future__"}, imported


def test_stand_in_attribute_spelled_only_by_its_owners() -> None:
    """Only _originals reads the stand-ins' attribute (the hook writes it; a probe script too)."""
    spelled = sorted(
        str(path.relative_to(SRC))
        for path in SRC.rglob("*.py")
        if "sslcustomize_original"
        in path.read_text(encoding="utf-8").replace("__sslcustomize_original__", "")
    )
    # _discovery's probe runs in another interpreter, which need not have sslcustomize.
    assert spelled == [
        "_sslcustomize_startup.py",
        "sslcustomize/_reach/_discovery.py",
        "sslcustomize/_support/_originals.py",
    ]


SAVED = """
import json, ssl, sys
stand_in = ssl.create_default_context
loaded = "sslcustomize" in sys.modules
from sslcustomize._support import _originals  # the package loads now, behind the stand-ins
print(json.dumps({
    "loaded": loaded,
    "stand_in": _originals.is_stand_in(stand_in),
    "default": _originals.ORIGINAL_CREATE_DEFAULT_CONTEXT is _originals.unwrap_factory(stand_in),
    "module": _originals.ORIGINAL_CREATE_DEFAULT_CONTEXT.__module__,
    "unverified": _originals.ORIGINAL_CREATE_UNVERIFIED_CONTEXT.__module__,
    "saved_is_stand_in": _originals.is_stand_in(_originals.ORIGINAL_CREATE_DEFAULT_CONTEXT),
    "class": _originals.PYTHON_SSLCONTEXT is ssl.SSLContext,
}))
"""


@pytest.mark.skipif(
    not any(os.path.isfile(os.path.join(p, "sslcustomize.pth")) for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)
def test_originals_are_pythons_behind_the_stand_ins(write_policy: WritePolicy) -> None:
    """Loaded under the .pth hook's stand-ins, _originals saves Python's own factories."""
    path = write_policy("version = 1\n[report]\nsink = 'none'\n")
    out = run_python(SAVED, env={"SSLCUSTOMIZE_POLICY": str(path)}).stdout.splitlines()[-1]
    seen = json.loads(out)
    assert seen["loaded"] is False
    assert seen["stand_in"] is True, "the startup hook's stand-in was not in place"
    assert seen["default"] is True
    assert (seen["module"], seen["unverified"]) == ("ssl", "ssl")
    assert seen["saved_is_stand_in"] is False
    assert seen["class"] is True
