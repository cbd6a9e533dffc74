"""The client registry: docs/clients.md, the startup hook, inject() and doctor agree with it."""

from __future__ import annotations

import importlib
import importlib.util
import json
import os
import sys
from pathlib import Path

import pytest

from _fixtures import WritePolicy, run_python
from sslcustomize._inject._patcher import TARGET_HOOKS
from sslcustomize._support._bootstrap import CLIENTS, FACTORIES, watched_modules

DOCS = Path(__file__).resolve().parents[2] / "docs" / "clients.md"


def _table(section: str) -> list[list[str]]:
    """Return the rows of the first table under ``## section`` of docs/clients.md."""
    text = DOCS.read_text(encoding="utf-8")
    body = text.split(f"\n## {section}\n", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in body.splitlines() if line.startswith("|")]
    return [[cell.strip().strip("`") for cell in row.strip("|").split("|")] for row in rows[2:]]


def test_docs_list_exactly_the_registered_clients() -> None:
    """docs/clients.md's two tables name the registry's clients, in order, and their factories."""
    stdlib = [(row[0], row[1]) for row in _table("Standard library")]
    assert stdlib == [(c.name, c.factory) for c in CLIENTS if c.stdlib]
    # "urllib3 2.x", "truststore (and pip's copy)": the first word is the client.
    third_party = [row[0].split()[0] for row in _table("Third-party clients")]
    assert third_party == [c.name for c in CLIENTS if not c.stdlib]


def test_registry_names_hooks_and_factories_that_exist() -> None:
    """Each client's hook module exists (with ``patch`` if it has triggers), its factory too."""
    for client in CLIENTS:
        module = importlib.import_module(f"sslcustomize._inject.{client.hook}")
        if client.triggers:
            assert callable(getattr(module, "patch", None)), client
        assert client.factory is None or client.factory in FACTORIES, client
    assert len({c.name for c in CLIENTS}) == len(CLIENTS)


SEEN = """
import json, ssl, sys
from importlib import metadata
import _sslcustomize_startup as startup

ours = (startup._finish, startup._activate)
def watching(own):
    return sorted(
        name for name, callbacks in startup.hooks._hooks.items()
        if any((cb in ours) is own for cb in callbacks)
    )
seen = {"startup": watching(True), "loaded": "sslcustomize" in sys.modules}
ssl.create_default_context()  # the first context: the package loads and injects
from sslcustomize._cli._doctor import gather
facts = gather()
seen["inject"] = watching(False)
seen["doctor_stdlib"] = [[r["client"], r["factory"]] for r in facts["clients"]]
seen["doctor"] = [[r["client"], r["by"], r["covered"]] for r in facts["third_party"]]
names = sys.argv[1:]
seen["installed"] = []
for name in names:
    try:
        metadata.version(name)
    except metadata.PackageNotFoundError:
        continue
    seen["installed"].append(name)
print(json.dumps(seen))
"""


@pytest.mark.skipif(
    not any(os.path.isfile(os.path.join(p, "sslcustomize.pth")) for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)
def test_startup_inject_and_doctor_see_the_same_clients(write_policy: WritePolicy) -> None:
    """A hooked interpreter: the hook watches, inject() hooks and doctor lists the registry's."""
    path = write_policy("version = 1\n[report]\nsink = 'none'\n")
    third_party = [c for c in CLIENTS if not c.stdlib]
    code = SEEN.replace("sys.argv[1:]", repr([c.name for c in third_party]))
    seen = json.loads(
        run_python(code, env={"SSLCUSTOMIZE_POLICY": str(path)}).stdout.splitlines()[-1]
    )
    assert seen["loaded"] is False, "import ssl alone must not load the package"
    watched = {name for c in CLIENTS for name in (*c.activates, *c.triggers)}
    assert watched == set(watched_modules())
    assert seen["startup"] == sorted({"ssl", *watched})
    triggers = {name for c in CLIENTS for name in c.triggers}
    # gevent.ssl: not a client, a copy of ssl's factories; ssl: a body run again is hooked
    # again (see _inject._stdlib); TARGET_HOOKS: modules told where connections go.
    assert seen["inject"] == sorted({*triggers, *TARGET_HOOKS, "gevent.ssl", "ssl"})
    # doctor leaves out a module this Python does not have (nntplib is gone in 3.13).
    present = [c for c in CLIENTS if c.stdlib and importlib.util.find_spec(c.name.split(".")[0])]
    assert seen["doctor_stdlib"] == [[c.name, f"ssl.{c.factory}"] for c in present]
    hooks = {c.name: c.hook for c in third_party}
    assert seen["doctor"] == [[name, hooks[name], True] for name in seen["installed"]]
    assert "pip" in seen["installed"]
