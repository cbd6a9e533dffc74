"""Beside truststore and pip-system-certs, and whatever the order of imports, the policy governs.

Every test runs a fresh interpreter through the ``.pth`` hook, with a policy that trusts only
the test root and refuses code opt-outs. The legitimate twin (a server of the test root)
must succeed; the MITM (a self-signed server, or verification turned off by code) must be
rejected by sslcustomize, not crash and not pass.

pip-system-certs injects truststore into every interpreter of the environment it is
installed in, so it cannot sit in the test environment itself: its test builds a throw-away
virtual environment from the wheels in ``SSLCUSTOMIZE_TEST_WHEELHOUSE`` (a directory holding
``pip_system_certs-5.3``, ``truststore-0.10.5`` and a pip 24.2+ wheel; ``pip download`` fills
it before the tests — nox's ``tests`` session does — tests themselves never leave loopback);
without one it is skipped, except under ``CI=true``, where it fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import _pki
from _fixtures import WritePolicy
from _index import PROJECT, WHEEL, serve_index, write_wheel
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._reach._discovery import discover

if TYPE_CHECKING:
    from conftest import StartServer

pytestmark = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

ATTEMPT = """
import sys, sslcustomize

def attempt(call):
    try:
        call()
    except Exception as error:
        seen = error
        while seen is not None and not isinstance(seen, sslcustomize.CertificateRejected):
            seen = seen.__cause__ or seen.__context__ or (
                getattr(seen, "reason", None) if isinstance(getattr(seen, "reason", None),
                BaseException) else None)
        if seen is None:
            return "ERROR " + type(error).__name__ + " " + str(error)[:300]
        return "REJECTED " + ",".join(seen.reasons)
    return "OK"
"""


@pytest.fixture
def policy(pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path) -> Path:
    """A policy trusting only the test root and refusing code opt-outs."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    return write_policy(
        f"trust = ['{root}']\nallow_code_opt_out = false\n[report]\nsink = 'none'\n"
    )


@pytest.fixture
def servers(pki: _pki.TestPKI, https_server: StartServer) -> tuple[str, str]:
    """A server of the test root (the legitimate twin) and a self-signed MITM; their URLs."""
    return (
        https_server(pki["good"], "localhost").url(),
        https_server(pki["self_signed"], "localhost").url(),
    )


def run(
    code: str, args: list[str], policy: Path, python: str = sys.executable, *flags: str
) -> list[str]:
    """Run ``code`` under the policy in a fresh interpreter; return its output lines."""
    result = subprocess.run(
        [python, *flags, "-c", ATTEMPT + textwrap.dedent(code), *args],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
    )
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout.splitlines()


# -- truststore ---------------------------------------------------------------------------------

TRUSTSTORE_CALLS = """
import ssl, urllib.request, requests, truststore
good, mitm = sys.argv[1], sys.argv[2]
direct = lambda: truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
for url in (good, mitm):
    print(attempt(lambda: urllib.request.urlopen(url, timeout=20).read()))
    print(attempt(lambda: requests.get(url, timeout=20).text))
    print(attempt(lambda: urllib.request.urlopen(url, timeout=20, context=direct()).read()))
    print(attempt(lambda: urllib.request.urlopen(
        url, timeout=20, context=ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)).read()))
print(attempt(lambda: requests.get(mitm, timeout=20, verify=False).text))
print(isinstance(ssl.create_default_context(), ssl.SSLContext))
"""

TRUSTSTORE_ORDERS = {
    # truststore.inject_into_ssl() before any client library is imported (its README's way)
    "inject first": "import truststore; truststore.inject_into_ssl()\n" + TRUSTSTORE_CALLS,
    # a client and a policy context first, then inject_into_ssl()
    "clients first": (
        "import requests, ssl; ssl.create_default_context(); requests.Session()\n"
        "import truststore; truststore.inject_into_ssl()\n" + TRUSTSTORE_CALLS
    ),
}


@pytest.mark.parametrize("order", sorted(TRUSTSTORE_ORDERS))
def test_truststore_injected_keeps_the_policy(
    order: str, servers: tuple[str, str], policy: Path
) -> None:
    """After truststore.inject_into_ssl(), in either order: the policy's trust and refusals."""
    lines = run(TRUSTSTORE_ORDERS[order], list(servers), policy)
    # Plain ssl.SSLContext(PROTOCOL_TLS_CLIENT) is truststore's after the injection.
    assert lines[:4] == ["OK"] * 4
    assert lines[4:8] == ["REJECTED self_signed"] * 4
    assert lines[8:] == ["REJECTED self_signed", "True"]


def test_truststore_context_without_injection_keeps_the_policy(
    servers: tuple[str, str], policy: Path
) -> None:
    """truststore.SSLContext used directly (as pip 24.2+ does) trusts the policy's CA only."""
    code = """
    import ssl, urllib.request, truststore
    for url in sys.argv[1:]:
        context = truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        print(attempt(lambda: urllib.request.urlopen(url, timeout=20, context=context).read()))
    print(ssl.SSLContext.__module__)
    """
    assert run(code, list(servers), policy) == ["OK", "REJECTED self_signed", "ssl"]


# -- pip-system-certs ---------------------------------------------------------------------------


def wheelhouse() -> str:
    """Return ``SSLCUSTOMIZE_TEST_WHEELHOUSE``; skip without it, but fail under CI."""
    found = os.environ.get("SSLCUSTOMIZE_TEST_WHEELHOUSE", "")
    if not found or not any(Path(found).glob("pip_system_certs-*.whl")):
        why = "SSLCUSTOMIZE_TEST_WHEELHOUSE holds no pip-system-certs wheel (nox's tests fills it)"
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(why)
        pytest.skip(why)
    return found


def _tools_venv(venv: Path) -> tuple[str, str]:
    """Make a venv with pip-system-certs, truststore and pip 24.2+; its python and purelib."""
    wheels = wheelhouse()
    subprocess.run(
        [sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True, timeout=120
    )
    python = str(venv / "bin" / "python")
    site = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True, text=True, check=True, timeout=60,
    ).stdout.strip()  # fmt: skip
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links", wheels,
         "--target", site, "pip-system-certs", "truststore", "pip>=24.2"],
        check=True, timeout=300,
    )  # fmt: skip
    return python, site


@pytest.fixture(scope="module")
def pip_system_certs_venv(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A virtual environment with pip-system-certs, truststore and sslcustomize; its python."""
    python, site = _tools_venv(tmp_path_factory.mktemp("psc") / "venv")
    # This environment's packages (requests, sslcustomize) without its .pth files; then
    # sslcustomize's own .pth line, as an install there would write it.
    ours = sysconfig.get_path("purelib")
    (Path(site) / "00-test-environment.pth").write_text(ours + "\n")
    (Path(site) / "sslcustomize.pth").write_text((Path(ours) / "sslcustomize.pth").read_text())
    return python


def test_pip_system_certs_venv_keeps_the_policy(
    pip_system_certs_venv: str, servers: tuple[str, str], policy: Path
) -> None:
    """pip-system-certs beside sslcustomize: no RecursionError; the policy's trust, refusals."""
    code = """
    import ssl, urllib.request, requests
    print(ssl.SSLContext.__module__)
    for url in sys.argv[1:]:
        print(attempt(lambda: urllib.request.urlopen(url, timeout=20).read()))
        print(attempt(lambda: requests.get(url, timeout=20).text))
    print(attempt(lambda: requests.get(sys.argv[2], timeout=20, verify=False).text))
    """
    lines = run(code, list(servers), policy, pip_system_certs_venv)
    assert lines[0] == "pip._vendor.truststore._api"  # pip-system-certs did inject
    assert lines[1:] == ["OK", "OK", *["REJECTED self_signed"] * 3]


STACKED = """
import ssl, urllib.request, requests, truststore
order = sys.argv[3]
if order == "clients first":
    requests.get(sys.argv[1], timeout=20)
truststore.inject_into_ssl()  # a second substitute over pip-system-certs' (pip's truststore)
print(ssl.SSLContext.__module__)
for url in sys.argv[1:3]:
    print(attempt(lambda: requests.get(url, timeout=20).text))
    print(attempt(lambda: urllib.request.urlopen(url, timeout=20).read()))
print(attempt(lambda: requests.get(sys.argv[2], timeout=20, verify=False).text))
truststore.extract_from_ssl()
print(attempt(lambda: requests.get(sys.argv[1], timeout=20).text))
"""


@pytest.mark.parametrize("order", ["inject first", "clients first"])
def test_two_substitutes_stacked_keep_working_under_the_policy(
    pip_system_certs_venv: str, servers: tuple[str, str], policy: Path, order: str
) -> None:
    """pip-system-certs, then truststore.inject_into_ssl(): no crash, the policy decides.

    requests raised AttributeError ('TruststoreInner' object has no attribute '_ctx') on
    every call, to the good server and to the MITM, where the same program works without
    sslcustomize (issue 32, item 7). Now the good server is reached and the MITM refused,
    and truststore's extraction leaves requests working.
    """
    lines = run(STACKED, [*servers, order], policy, pip_system_certs_venv)
    assert lines[0] == "truststore._api"
    assert lines[1:] == ["OK", "OK", *["REJECTED self_signed"] * 3, "OK"]


def _pip(python: str, args: list[str], policy: Path | None) -> subprocess.CompletedProcess[str]:
    """Run that environment's pip, without the machine's pip configuration."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PIP_", "SSLCUSTOMIZE_"))}
    env["PIP_CONFIG_FILE"] = os.devnull
    if policy is not None:
        env["SSLCUSTOMIZE_POLICY"] = str(policy)
    command = [python, "-m", "pip", *args, "--no-cache-dir", "--disable-pip-version-check"]
    return subprocess.run(
        [*command, "--retries", "0", "--timeout", "20"],
        capture_output=True, text=True, timeout=180, check=False, env=env,
    )  # fmt: skip


def test_pip_installs_in_pip_system_certs_venv(
    pip_system_certs_venv: str, policy: Path, tmp_path: Path
) -> None:
    """pip itself runs in that venv under a policy: a local wheel installs (no RecursionError)."""
    wheels = tmp_path / "wheels"
    wheels.mkdir()
    write_wheel(wheels / WHEEL)
    args = ["install", "--no-index", "--find-links", str(wheels), "--target", str(tmp_path / "t")]
    result = _pip(pip_system_certs_venv, [*args, PROJECT], policy)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "RecursionError" not in result.stderr
    assert (tmp_path / "t" / "sslcustomize_probe" / "__init__.py").is_file()


@pytest.mark.parametrize("case", ["good", "unknown_issuer"])
def test_pip_vendored_truststore_gets_the_policys_trust(
    case: str, pip_system_certs_venv: str, pki: _pki.TestPKI, policy: Path, tmp_path: Path
) -> None:
    """pip (its vendored truststore) trusts an index of the policy's CA; an attacker's, not."""
    args = ["download", "--no-deps", "-d", str(tmp_path / "d")]
    with serve_index(pki[case], tmp_path / "index") as url:
        result = _pip(pip_system_certs_venv, [*args, "--index-url", url, PROJECT], policy)
        # Control: without the policy, truststore alone does not trust the test root.
        alone = _pip(pip_system_certs_venv, [*args, "--index-url", url, PROJECT], None)
    output = result.stdout + result.stderr
    assert "Traceback" not in output, output
    assert "RecursionError" not in output, output
    assert alone.returncode != 0
    if case == "good":
        assert result.returncode == 0, output
        assert (tmp_path / "d" / WHEEL).is_file()
    else:
        assert result.returncode != 0
        assert "unknown_issuer" in output or "CERTIFICATE_VERIFY_FAILED" in output, output
        assert not (tmp_path / "d" / WHEEL).exists()


# -- reached by system scope -------------------------------------------------------------------

# Makes ssl refuse the factories the startup hook sets: a hook that cannot apply.
FREEZE_SSL = (
    "import ssl, types; ssl.__class__ = type('Frozen', (types.ModuleType,), {'__setattr__': "
    "lambda m, n, v: (_ for _ in ()).throw(AttributeError(n)) if n == 'create_default_context' "
    "else types.ModuleType.__setattr__(m, n, v)})\n"
)


@pytest.fixture(scope="module")
def system_scope(tmp_path_factory: pytest.TempPathFactory, pki: _pki.TestPKI) -> dict[str, Any]:
    """``enable --scope system`` in a throw-away namespace; venvs with pip-system-certs only."""
    problem = namespace_problem()
    if problem:
        pytest.skip(problem)
    scratch = tmp_path_factory.mktemp("system")
    venvs = {"psc": _tools_venv(scratch / "psc")[0]}
    python, site = _tools_venv(scratch / "frozen")
    (Path(site) / "zz-freeze-ssl.pth").write_text(FREEZE_SSL)
    venvs["frozen"] = python
    ca = scratch / "policy-ca.pem"
    ca.write_bytes(pki.root_pem)
    stdlibs = sorted({i.stdlib for i in discover() if i.eligible})
    trees = ["/etc", "/usr/local/lib", *stdlibs]
    import _servers

    with (
        _servers.serve_https(pki["good"], "localhost") as good,
        _servers.serve_https(pki["self_signed"], "localhost") as mitm,
    ):
        spec = {"trees": trees, "venvs": venvs, "ca": str(ca), "good": good.url(),
                "mitm": mitm.url()}  # fmt: skip
        result = run_in_overlays(
            trees,
            scratch / "overlays",
            [sys.executable, str(Path(__file__).with_name("_coexist_scenario.py")),
             json.dumps(spec)],
        )  # fmt: skip
    assert result.returncode == 0, result.stdout + result.stderr
    observed: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    observed["venvs"] = venvs
    return observed


@pytest.mark.slow
def test_system_scope_governs_a_pip_system_certs_venv(system_scope: dict[str, Any]) -> None:
    """A venv with pip-system-certs but not sslcustomize, reached by system scope: the policy."""
    assert system_scope["enable"][0] == 0, system_scope["enable"]
    seen = system_scope["clients"]["psc"]
    assert seen.get("ssl_context") == "pip._vendor.truststore._api", seen  # injected first
    assert "Traceback" not in seen["stderr"], seen["stderr"]
    assert seen["calls"] == ["OK"] * 3 + ["REJECTED self_signed"] * 4, seen


@pytest.mark.slow
def test_system_scope_doctor_names_the_tools_and_tells_the_truth(
    system_scope: dict[str, Any],
) -> None:
    """doctor names the tools per venv; covered where the policy governs, not where it cannot."""
    rows = {name: row for row in system_scope["doctor"] for name in _venv_names(row, system_scope)}
    psc, frozen = rows["psc"], rows["frozen"]
    tools = ["truststore", "pip-system-certs", "pip's vendored truststore"]
    assert psc["covered"], psc
    assert psc["by"] == "system hook", psc
    assert [t["tool"] for t in psc["trust_tools"]] == tools
    assert {t["decides"] for t in psc["trust_tools"]} == {"the policy"}
    assert psc["ssl_context_replaced_by"] == "pip._vendor.truststore._api.SSLContext"
    # The startup hook ran there, but ssl's factories could not be replaced.
    assert not frozen["covered"], frozen
    assert "could not hook ssl's factories" in frozen["reason"], frozen
    assert [t["decides"] for t in frozen["trust_tools"]] == tools
    # Not covered, yet not weaker than Python alone: the MITM is still refused.
    calls = system_scope["clients"]["frozen"]["calls"]
    assert [c.split()[0] for c in calls[3:6]] == ["ERROR"] * 3, calls


def _venv_names(row: dict[str, Any], scenario: dict[str, Any]) -> list[str]:
    """The scenario's names for the venv a doctor row describes (none for other interpreters)."""
    paths = {os.path.abspath(p) for p in [*row["names"], row["path"]]}  # venv pythons are links
    return [n for n, python in scenario["venvs"].items() if os.path.abspath(python) in paths]


# -- import orders (issue 21 #4) ----------------------------------------------------------------

LIBRARIES = {
    "requests": ("requests", "requests.get(URL, timeout=20, verify=VERIFY)"),
    "urllib3": (
        "urllib3",
        "urllib3.PoolManager(retries=False, cert_reqs='CERT_REQUIRED' if VERIFY else "
        "'CERT_NONE').request('GET', URL)",
    ),
    "pip._vendor.urllib3": (
        "pip._vendor.urllib3",
        "pip._vendor.urllib3.PoolManager(retries=False, cert_reqs='CERT_REQUIRED' if VERIFY "
        "else 'CERT_NONE').request('GET', URL)",
    ),
    "httpx": ("httpx", "httpx.get(URL, verify=VERIFY)"),
    "aiohttp": ("aiohttp", "asyncio.run(aiohttp_get(URL, VERIFY))"),
    # websockets has no hook of its own: ssl=True is ssl.create_default_context() (the stdlib
    # factory hook); the opt-out is that context with verification turned off by code.
    "websockets": (
        "websockets.sync.client",
        "websockets.sync.client.connect(URL, open_timeout=30, ssl=ws_context(VERIFY)).close()",
    ),
    "websockets.asyncio": (
        "websockets.asyncio.client",
        "asyncio.run(websockets_get(URL, VERIFY))",
    ),
}

ORDERS = {
    "library first": "import {module}\nimport ssl, asyncio\n",
    "ssl first": "import ssl\nimport {module}\nimport asyncio\n",
    "asyncio first": "import ssl, asyncio\nimport {module}\n",
    "re-imported": (
        "import ssl, asyncio, {module}\n"
        "for name in [n for n in sys.modules if n == '{module}' or n.startswith('{module}.')]:\n"
        "    del sys.modules[name]\n"
        "import {module}\n"
    ),
}

AIOHTTP = """
async def aiohttp_get(url, verify):
    import aiohttp
    async with aiohttp.ClientSession() as s, s.get(url, ssl=None if verify else False) as r:
        return await r.text()

def ws_context(verify):
    import ssl
    context = ssl.create_default_context()
    if not verify:
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    return context

async def websockets_get(url, verify):
    import websockets.asyncio.client
    async with websockets.asyncio.client.connect(url, open_timeout=30, ssl=ws_context(verify)):
        pass
"""


def _matrix_code(library: str, order: str) -> str:
    module, call = LIBRARIES[library]
    body = ORDERS[order].format(module=module)
    return (
        AIOHTTP
        + body
        + "import pip._vendor.urllib3\n" * (module == "pip._vendor.urllib3")
        + f"for URL, VERIFY in ((sys.argv[1], True), (sys.argv[2], True), (sys.argv[2], False)):\n"
        f"    print(attempt(lambda: {call}))\n"
    )


def _servers_for(library: str, request: pytest.FixtureRequest) -> list[str]:
    """The legitimate twin's and the MITM's URLs: websocket servers for websockets."""
    if library.startswith("websockets"):
        start = request.getfixturevalue("wss_server")
        return [start("good"), start("self_signed")]
    return list(request.getfixturevalue("servers"))


@pytest.mark.parametrize("order", sorted(ORDERS))
@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_hooks_apply_in_every_import_order(
    library: str, order: str, request: pytest.FixtureRequest, policy: Path
) -> None:
    """Whatever the order of imports, the policy's CA is trusted and an opt-out is refused."""
    lines = run(_matrix_code(library, order), _servers_for(library, request), policy)
    assert lines == ["OK", "REJECTED self_signed", "REJECTED self_signed"]


@pytest.mark.skipif(sys.version_info < (3, 15), reason="lazy imports (PEP 810) need 3.15+")
@pytest.mark.parametrize("library", sorted(LIBRARIES))
def test_hooks_apply_under_lazy_imports(
    library: str, request: pytest.FixtureRequest, policy: Path
) -> None:
    """Under ``-X lazy_imports=all`` the hooks still apply (PEP 810 loads through the finder)."""
    module = LIBRARIES[library][0]
    alone = subprocess.run(  # the library alone, with the hook not even loaded (-S)
        [sys.executable, "-S", "-X", "lazy_imports=all", "-c",
         f"import sys; sys.path[:0] = {sys.path!r}; import {module}; {module}.__name__; "
         "import httpcore; httpcore.__name__" * (module == "httpx")],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip
    if alone.returncode != 0:
        # httpcore 1.x sets __module__ on the names of its __init__, lazy ones included.
        pytest.skip(f"{module} fails under lazy imports without sslcustomize too")
    code = _matrix_code(library, "ssl first")
    lines = run(
        code, _servers_for(library, request), policy, sys.executable, "-X", "lazy_imports=all"
    )
    assert lines == ["OK", "REJECTED self_signed", "REJECTED self_signed"]


# -- a hook that cannot apply fails closed (issue 21 #4) ---------------------------------------

# A urllib3 laid out otherwise: util.ssl_ has no create_urllib3_context, so the hook finds
# nothing to patch. Its contexts are Python's class, made in its own modules; get() wraps
# the socket itself, aget() lets asyncio wrap it (no frame of the library on the stack then).
UNHOOKABLE = {
    "__init__.py": "from .connection import get, aget\n",
    "util/__init__.py": "",
    "util/ssl_.py": "import ssl\n",
    "connection.py": """
import asyncio, socket, ssl, urllib.parse
from .util import ssl_

def context(verify):
    made = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    made.load_default_certs()
    if not verify:
        made.check_hostname = False
        made.verify_mode = ssl.CERT_NONE
    return made

def get(url, verify):
    parts = urllib.parse.urlsplit(url)
    with socket.create_connection((parts.hostname, parts.port), timeout=20) as raw:
        with context(verify).wrap_socket(raw, server_hostname=parts.hostname) as tls:
            tls.sendall(b"GET / HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n")
            return tls.recv(100)

async def _aget(url, verify):
    parts = urllib.parse.urlsplit(url)
    made = context(verify)
    reader, writer = await asyncio.open_connection(parts.hostname, parts.port, ssl=made,
                                                   server_hostname=parts.hostname)
    writer.write(b"GET / HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n")
    data = await reader.read(100)
    writer.close()
    return data

def aget(url, verify):
    return asyncio.run(_aget(url, verify))
""",
}

UNHOOKABLE_CALLS = """
import ssl, urllib3
for name in [n for n in sys.modules if n.startswith('urllib3')]:
    del sys.modules[name]
import urllib3  # imported again: said once all the same
good, mitm = sys.argv[1], sys.argv[2]
for call in (urllib3.get, urllib3.aget):
    for url, verify in ((good, True), (mitm, True), (mitm, False)):
        print(attempt(lambda: call(url, verify)))
"""


@pytest.mark.parametrize("opt_out", [False, True])
def test_unhookable_library_fails_closed(
    opt_out: bool,
    pki: _pki.TestPKI,
    write_policy: WritePolicy,
    servers: tuple[str, str],
    tmp_path: Path,
) -> None:
    """A library whose hook finds nothing verifies as Python does; its opt-out is refused."""
    for name, text in UNHOOKABLE.items():
        path = tmp_path / "lib" / "urllib3" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(
        f"trust = ['{root}']\nallow_code_opt_out = {str(opt_out).lower()}\n"
        "[report]\nsink = 'none'\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", ATTEMPT + UNHOOKABLE_CALLS, *servers],
        capture_output=True, text=True, timeout=120, check=False,
        # The library's own trust is Python's default store: here the test root.
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy), "SSL_CERT_FILE": str(root),
             "PYTHONPATH": str(tmp_path / "lib")},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("sslcustomize: cannot hook urllib3") == 1, result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    refused = "ERROR SSLCertVerificationError"
    for lines in (result.stdout.splitlines()[:3], result.stdout.splitlines()[3:]):
        assert lines[0] == "OK"  # the legitimate twin
        assert lines[1].startswith(refused)  # the MITM, as Python alone
        # The code's opt-out: obeyed only where the policy allows code opt-outs.
        assert lines[2] == "OK" if opt_out else lines[2].startswith(refused)
