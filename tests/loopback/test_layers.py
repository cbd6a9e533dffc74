"""The layers as a hooked process sees them: which modules load, and the one upward edge.

The import contract (``.importlinter``, run by ``nox -s lint``) keeps every layer importing
only those below it. These tests add what a contract cannot see: the startup module, which
lives outside the package, calls into it at one place only; and the modules a hooked
process loads for its first TLS context are exactly the listed ones, so that nothing
CLI-only, lint-only or typing-only slips onto that path unnoticed.
"""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
import _sslcustomize_startup
from _fixtures import WritePolicy, first_context_modules, run_python
from sslcustomize._support import _bootstrap

if TYPE_CHECKING:
    from conftest import StartServer

pytestmark = pytest.mark.skipif(
    not any(os.path.isfile(os.path.join(p, "sslcustomize.pth")) for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

#: The budget of the first context (issue 35 section 1): the package modules a warm first
#: context loads, beyond the startup module and its leaf (`_support._bootstrap`, loaded with it
#: at start-up): the hook (`_inject`, `_stdlib`, `_patcher`), the context class and its recipe
#: (`_contexts`, `_contextstate`, `_recipe`, `_sslclass`, `_originals`) and the first-context
#: entry that gives it its minimum TLS version (`_firstcontext`, `_files`). The policy, the
#: trust layer, the decision and the runtime load with the first connection (or the first read
#: of the context's store): the context is made *pending* and settled then. 16 modules (32
#: before, 36 before that); -X importtime of the package modules, minimum self time of 15 runs,
#: 3.12.1: 6.16 -> 2.65 ms. Measured with bench/first_context_budget.py (medians of per-round
#: ratios to Python's own first context, whose cost is the 1.0x; OpenSSL 3.0.19): see
#: docs/benchmarks.md, goal 0.3x, floor 0.07x. Each module added here costs ~0.1 ms of finding,
#: reading and unmarshalling before its body runs.
FIRST_CONTEXT_MODULES = {
    "sslcustomize",
    "sslcustomize._connection", "sslcustomize._connection._contexts",
    "sslcustomize._connection._contextstate",
    "sslcustomize._decision", "sslcustomize._decision._recipe",
    "sslcustomize._inject", "sslcustomize._inject._patcher", "sslcustomize._inject._stdlib",
    "sslcustomize._support", "sslcustomize._support._files",
    "sslcustomize._support._firstcontext", "sslcustomize._support._locks",
    "sslcustomize._support._notyping", "sslcustomize._support._originals",
    "sslcustomize._support._sslclass",
}  # fmt: skip

#: What the first verified connection adds to a process whose first context loaded the
#: budget above: the policy read from its parse cache and checked, the trust layer, the
#: decision and the runtime (what the first context loaded before, here under a policy that
#: trusts a CA file, so `_trust._bundles` too), the connection path (connect, gate, target,
#: the pin probe, a rejection's text), the plan and the engine, the verdict, the DER reader,
#: and the public errors. 33 modules (15 before), -X importtime 8.8 ms (4.05 before; minimum
#: self time of 12 runs, 3.12.1, at a load of ~8), beside the standard library's
#: `encodings.idna` (which Python's own first connection loads too), `contextvars`, and for a
#: CA file `hashlib` (its hashed directory is named by its SHA-256); not `datetime` any more
#: (the DER reader and the reasons import it only to read or show a certificate's dates).
#: Each of them that cannot be imported then fails closed
#: (tests/loopback/test_first_context_path.py).
FIRST_CONNECTION_MODULES = {
    "sslcustomize._connection._connect", "sslcustomize._connection._gate",
    "sslcustomize._connection._pinprobe", "sslcustomize._connection._rejection",
    "sslcustomize._connection._target",
    "sslcustomize._decision._decide", "sslcustomize._decision._engine",
    "sslcustomize._decision._plan",
    "sslcustomize._policy", "sslcustomize._policy._hosts", "sslcustomize._policy._load",
    "sslcustomize._policy._model", "sslcustomize._policy._read", "sslcustomize._policy._tomlcache",
    "sslcustomize._runtime", "sslcustomize._runtime._runtime", "sslcustomize._runtime._state",
    "sslcustomize._support._clock", "sslcustomize._support._escape",
    "sslcustomize._support._frozen",
    "sslcustomize._trust", "sslcustomize._trust._anchors", "sslcustomize._trust._anchorset",
    "sslcustomize._trust._bundles", "sslcustomize._trust._checked_policy",
    "sslcustomize._trust._environment",
    "sslcustomize._verdict", "sslcustomize._verdict._reasons", "sslcustomize._verdict._verify",
    "sslcustomize._x509", "sslcustomize._x509._der", "sslcustomize._x509._replay",
    "sslcustomize.exceptions",
}  # fmt: skip

#: Standard-library modules the hook may add to what Python's own first context loads: the
#: ``__future__`` of the package's annotations. Not ``datetime``, even for a policy whose
#: exceptions have dates: the parse cache gives them back as day numbers.
FIRST_CONTEXT_STDLIB = {"__future__"}

#: Never on that path: each costs milliseconds, and none is needed to make a context.
NEVER_ON_THE_HOOK_PATH = {
    "re", "datetime", "typing", "dataclasses", "inspect", "tomllib", "tomli", "json", "logging",
    "argparse", "hashlib", "threading", "rich", "importlib.metadata", "sslcustomize._cli",
    "sslcustomize_lint", "sslcustomize._report", "sslcustomize._verdict", "sslcustomize._x509",
    "sslcustomize._reach", "sslcustomize._diagnosis",
}  # fmt: skip

WARM_POLICY = """\
version = 1
trust = ["system"]

[[exception]]
host = "appliance.example.internal"
pin = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
reason = "a pinned appliance"
expires = 2099-01-01
"""


def _first_context_modules(env: dict[str, str]) -> set[str]:
    before, after = first_context_modules(env)
    return after - before


def test_a_hooked_first_context_loads_only_the_listed_modules(write_policy: WritePolicy) -> None:
    """A warm first context under a policy loads the listed layers and nothing heavier."""
    env = {"SSLCUSTOMIZE_POLICY": str(write_policy(WARM_POLICY))}
    first_context_modules(env)  # reads the policy once: the cache is warm after it
    loaded = _first_context_modules(env)
    own = _first_context_modules({})
    package = {name for name in loaded if name.split(".")[0] == "sslcustomize"}
    assert package == FIRST_CONTEXT_MODULES
    assert loaded - own - package <= FIRST_CONTEXT_STDLIB
    assert not loaded & NEVER_ON_THE_HOOK_PATH


def test_an_undated_policy_adds_no_stdlib_module_but_future(write_policy: WritePolicy) -> None:
    """A warm first context under a policy without dates adds only ``__future__`` to Python's."""
    undated = WARM_POLICY.replace("expires = 2099-01-01\n", "")
    env = {"SSLCUSTOMIZE_POLICY": str(write_policy(undated))}
    first_context_modules(env)  # a warm cache
    loaded = _first_context_modules(env)
    own = _first_context_modules({})
    added = {name for name in loaded - own if name.split(".")[0] != "sslcustomize"}
    assert added <= {"__future__"}


def test_without_a_policy_the_first_context_loads_nothing_of_the_package() -> None:
    """Twin: with no policy configured, Python's own first context loads no package module."""
    loaded = _first_context_modules({})
    assert not {name for name in loaded if name.startswith("sslcustomize")}


#: A hooked child: its first context, then what its first connection (argv[1], a server the
#: policy trusts) adds to ``sys.modules``.
FIRST_CONNECTION_SCRIPT = """
import json, socket, ssl, sys
context = ssl.create_default_context()
before = set(sys.modules)
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
    with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
        tls.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
        assert tls.recv(4096)
print(json.dumps(sorted(set(sys.modules) - before)))
"""


def test_a_first_connection_loads_only_the_listed_modules(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """The first verified connection adds the listed connection path and nothing heavier."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    env = {"SSLCUSTOMIZE_POLICY": str(write_policy(f"trust = ['{root}']\n"))}
    server = https_server(pki["good"])
    code = FIRST_CONNECTION_SCRIPT.replace("sys.argv[1]", str(server.port))
    run_python(code, env=env)  # a warm cache
    result = run_python(code, env=env)
    assert result.stderr == "", result.stderr
    loaded = set(json.loads(result.stdout))
    assert {name for name in loaded if name.split(".")[0] == "sslcustomize"} == (
        FIRST_CONNECTION_MODULES
    )
    heavy = NEVER_ON_THE_HOOK_PATH - {"hashlib", "sslcustomize._verdict", "sslcustomize._x509"}
    assert not loaded & heavy


def _imports_of(path: str) -> set[str]:
    """Return every module a source file imports, ``TYPE_CHECKING`` and function bodies included."""
    with open(path, encoding="utf-8") as file:
        tree = ast.parse(file.read())
    imported: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module:
            if node.module.startswith("sslcustomize"):
                imported.update(f"{node.module}.{alias.name}" for alias in node.names)
            else:
                imported.add(node.module)
        elif isinstance(node, ast.Import):
            imported.update(a.name for a in node.names)
    return imported


def test_the_startup_module_calls_into_the_package_at_one_place() -> None:
    """The startup module imports ``sslcustomize._inject`` and its leaf, nothing else of ours."""
    path = _sslcustomize_startup.__file__
    assert path is not None
    ours = {name for name in _imports_of(path) if name.startswith("sslcustomize")}
    assert ours == {"sslcustomize._inject", "sslcustomize._support._bootstrap"}


def test_the_startup_leaf_imports_nothing_of_the_package() -> None:
    """The leaf both share imports only what ``site`` has loaded: no cycle runs through it."""
    assert _bootstrap.__file__ is not None
    runtime = {"os", "sys"}
    typing_only = {"collections.abc", "importlib.machinery", "types"}
    assert _imports_of(_bootstrap.__file__) == runtime | typing_only
    assert sys.modules["_sslcustomize_startup"].__dict__.get("_leaf") is _bootstrap


def test_the_startup_leaf_breaks_if_it_imports_the_package(tmp_path: Path) -> None:
    """Twin: the check above sees an import of the package in a leaf's source."""
    leaf = tmp_path / "leaf.py"
    leaf.write_text("import os\nif False:\n    from sslcustomize._inject import _stdlib\n")
    assert "sslcustomize._inject._stdlib" in _imports_of(str(leaf))
