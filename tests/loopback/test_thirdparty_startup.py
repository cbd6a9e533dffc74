"""Import order does not matter: a client imported before inject(), after it, or at startup.

Each test runs a fresh interpreter. ``startup``: only SSLCUSTOMIZE_POLICY is set and the .pth
hook activates sslcustomize when ``ssl`` is first imported; the library is imported later.
``before``: the library is imported, then ``inject(policy)``. ``after``: ``inject(policy)``,
then the import. Each connects to a good server (must succeed: only the policy trusts its CA)
and a self-signed one (must be rejected). ``before`` also checks that ``extract()`` puts back
every attribute of the library exactly.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from _fixtures import WritePolicy

if TYPE_CHECKING:
    from conftest import StartServer

pytestmark = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

CLIENTS = {
    "requests": ("import requests", "requests.get(url, timeout=10).text"),
    "urllib3": ("import urllib3", "urllib3.PoolManager(retries=False).request('GET', url).data"),
    "httpx": ("import httpx", "httpx.get(url).text"),
    "aiohttp": (
        "import aiohttp, asyncio",
        "asyncio.run(aiohttp_get(url))",
    ),
}

PROLOGUE = """
import sys, os
import sslcustomize

async def aiohttp_get(url):
    import aiohttp
    async with aiohttp.ClientSession() as s, s.get(url) as r:
        return await r.text()

def snapshot():
    from sslcustomize._inject import replaced_attributes
    return {{(id(t), n): o for t, n, o in replaced_attributes()}}, replaced_attributes()

def attempt(url):
    try:
        {call}
    except Exception as error:
        seen = error
        while seen is not None and not isinstance(seen, sslcustomize.CertificateRejected):
            seen = seen.__cause__ or seen.__context__ or (
                getattr(seen, "reason", None) if isinstance(getattr(seen, "reason", None),
                BaseException) else None)
        if seen is None:
            raise
        return "REJECTED " + ",".join(seen.reasons)
    return "OK"
"""

MODES = {
    "startup": "{imports}\n",
    "before": "{imports}\nsslcustomize.inject(os.environ['POLICY'])\n",
    "after": "sslcustomize.inject(os.environ['POLICY'])\n{imports}\n",
}

EPILOGUE = """
print(attempt(sys.argv[1]))
print(attempt(sys.argv[2]))
if {check_extract}:
    _, replaced = snapshot()
    sslcustomize.extract()
    for target, name, old in replaced:
        assert getattr(target, name, None) is old, (target, name)
    print("RESTORED", len(replaced))
"""


@pytest.fixture
def policy(pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path) -> Path:
    """A policy trusting only the test root."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    return write_policy(f"trust = ['{root}']\n[report]\nsink = 'none'\n")


def run_client(code: str, args: list[str], env: dict[str, str]) -> list[str]:
    """Run ``code`` in a fresh interpreter; return its output lines."""
    result = subprocess.run(
        [sys.executable, "-c", code, *args],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        env={**os.environ, **env},
    )
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines()


@pytest.mark.parametrize("mode", sorted(MODES))
@pytest.mark.parametrize("client", sorted(CLIENTS))
def test_import_order(
    client: str, mode: str, pki: _pki.TestPKI, https_server: StartServer, policy: Path
) -> None:
    """Imported at startup, before or after inject(): the policy applies; extract() restores."""
    imports, call = CLIENTS[client]
    code = (
        PROLOGUE.format(call=f"assert {call}")
        + MODES[mode].format(imports=imports)
        + EPILOGUE.format(check_extract=mode == "before")
    )
    good = https_server(pki["good"], "localhost").url()
    bad = https_server(pki["self_signed"], "localhost").url()
    env = {"SSLCUSTOMIZE_POLICY": str(policy)} if mode == "startup" else {"POLICY": str(policy)}
    lines = run_client(textwrap.dedent(code), [good, bad], env)
    assert lines[:2] == ["OK", "REJECTED self_signed"]
    if mode == "before":
        assert lines[2].startswith("RESTORED")
