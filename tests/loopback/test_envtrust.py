"""CA-bundle variables under a policy: they add trust, or, under a lock on trust, are ignored.

Each property has its attack and its legitimate twin: a variable naming an attacker's CA under
a system layer that locks ``trust`` is rejected (with one warning and one record), and the
same variable naming a wanted CA without the lock is accepted. Clients run in fresh
interpreters started through the ``.pth`` hook. The system layer of those interpreters is a
file under the test's directory: the script points ``_support._bootstrap.SYSTEM_POLICY`` at
it before its first TLS context (the policy is read then), so the real ``/etc`` is never
touched; one test also runs with a real ``/etc/sslcustomize`` in a private mount namespace.
"""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import trustme

import _pki
import _servers
from _fixtures import WritePolicy
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._cli import main
from sslcustomize._connection._rejection import rejection
from sslcustomize._decision._decide import decide
from sslcustomize._policy._model import Origin
from sslcustomize._trust._checked_policy import load_policy
from sslcustomize._trust._environment import entry_for_path, pip_config_cert, read_environment
from sslcustomize._verdict._verify import Verdict

if TYPE_CHECKING:
    from conftest import StartServer

needs_hook = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook)",
)


def _case(ca: trustme.CA, name: str = "localhost") -> _pki.CertCase:
    """A server certificate for ``name`` issued by ``ca``, as a test-server case."""
    leaf = ca.issue_cert(name)
    return _pki.CertCase(
        name=f"issued-for-{name}",
        chain_pem=b"".join(blob.bytes() for blob in leaf.cert_chain_pems),
        key_pem=leaf.private_key_pem.bytes(),
        ca_pem=ca.cert_pem.bytes(),
        reasons=frozenset(),
        names=(name,),
        leaf_pem=leaf.cert_chain_pems[0].bytes(),
    )


def _pem(ca: trustme.CA, path: Path) -> Path:
    ca.cert_pem.write_to_path(str(path))
    return path


# A client script: point the system layer at argv[1] (or nowhere), then fetch each URL of
# argv[2:] with the client named by SSLCUSTOMIZE_TEST_CLIENT; print one verdict per line.
_CLIENT = """
import os, sys
from sslcustomize._support import _bootstrap
_bootstrap.SYSTEM_POLICY = sys.argv[1]
client = os.environ["SSLCUSTOMIZE_TEST_CLIENT"]
for url in sys.argv[2:]:
    try:
        if client == "requests":
            import requests
            requests.get(url, timeout=10).raise_for_status()
        elif client == "urllib":
            import urllib.request
            urllib.request.urlopen(url, timeout=10).read()
        elif client == "default_certs":
            import ssl, socket, urllib.parse
            parts = urllib.parse.urlsplit(url)
            context = ssl.create_default_context()
            context.load_default_certs()
            with socket.create_connection((parts.hostname, parts.port), timeout=10) as sock:
                with context.wrap_socket(sock, server_hostname=parts.hostname):
                    pass
        print("accepted")
    except Exception as error:  # the verdict, whatever the client wraps it in
        print("rejected " + str(error).replace("\\n", " "))
"""


def _run_client(
    client: str, system: Path | None, urls: list[str], env: dict[str, str]
) -> tuple[list[str], str]:
    environment = {**os.environ, **env, "SSLCUSTOMIZE_TEST_CLIENT": client}
    if system is not None and "SSLCUSTOMIZE_POLICY" not in env:
        # The hook starts only where a policy is configured when the interpreter starts.
        empty = system.with_name("empty-process-layer.toml")
        empty.write_text("version = 1\n", encoding="utf-8")
        environment["SSLCUSTOMIZE_POLICY"] = str(empty)
    missing = str(system) if system is not None else "/nonexistent/sslcustomize/policy.toml"
    result = subprocess.run(
        [sys.executable, "-c", _CLIENT, missing, *urls],
        capture_output=True, text=True, env=environment, timeout=120, check=False,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.splitlines(), result.stderr


def _records(path: Path) -> list[dict[str, object]]:
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def cas(tmp_path: Path) -> dict[str, tuple[trustme.CA, Path]]:
    """Three CAs and their PEM files: the corporate one, an extra one and an attacker's."""
    return {
        name: (ca, _pem(ca, tmp_path / f"{name}.pem"))
        for name, ca in (("corp", trustme.CA()), ("extra", trustme.CA()), ("evil", trustme.CA()))
    }


# --- What the policy reads -------------------------------------------------------------------


def test_variables_add_sources_for_their_clients_only(
    write_policy: WritePolicy, cas: dict[str, tuple[trustme.CA, Path]]
) -> None:
    """REQUESTS_CA_BUNDLE joins requests' and pip's trust, after the policy's; not urllib's."""
    _, corp = cas["corp"]
    _, extra = cas["extra"]
    policy = load_policy(
        [("user", str(write_policy(f"trust = ['{corp}']\n")), True)],
        environ={"REQUESTS_CA_BUNDLE": str(extra)},
    )
    (entry,) = policy.environment
    assert entry.state == "added"
    for name in ("requests", "pip", "pip._vendor.requests"):
        assert [s.path for s in decide(policy, context=name).trust] == [str(corp), str(extra)]
    assert [s.path for s in decide(policy, context="urllib.request").trust] == [str(corp)]
    assert [s.path for s in decide(policy, context="requestsfoo").trust] == [str(corp)]


def test_a_trust_lock_ignores_every_variable(
    write_policy: WritePolicy, cas: dict[str, tuple[trustme.CA, Path]]
) -> None:
    """Under lock = ['trust'] no variable adds a source for any client; each names the lock."""
    _, corp = cas["corp"]
    _, evil = cas["evil"]
    system = write_policy(f"trust = ['{corp}']\nlock = ['trust']\n")
    environ = {name: str(evil) for name in ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT")}
    policy = load_policy([("system", str(system), True)], environ=environ)
    assert {e.variable: e.state for e in policy.environment} == dict.fromkeys(environ, "ignored")
    assert all(e.why == f"{system}:2" for e in policy.environment)
    for name in ("requests", "pip", "smtplib", None):
        assert [s.path for s in decide(policy, context=name).trust] == [str(corp)]


def test_unusable_and_empty_variables(tmp_path: Path) -> None:
    """A missing file is unusable (and adds nothing); an empty value counts as unset."""
    entries = read_environment(
        {}, {"REQUESTS_CA_BUNDLE": str(tmp_path / "missing.pem"), "CURL_CA_BUNDLE": ""}
    )
    (entry,) = entries
    assert entry.state == "unusable"
    assert entry.sources == ()
    assert "missing.pem" in (entry.why or "")


def test_pip_config_cert_is_read(tmp_path: Path) -> None:
    """pip's cert= in the file PIP_CONFIG_FILE names is found, with where it is set."""
    config = tmp_path / "pip.conf"
    config.write_text("[global]\ncert = /corp/ca.pem\n", encoding="utf-8")
    environ = {"PIP_CONFIG_FILE": str(config), "XDG_CONFIG_DIRS": str(tmp_path / "none")}
    assert pip_config_cert(environ) == ("/corp/ca.pem", f"{config} [global]")
    assert pip_config_cert({"PIP_CONFIG_FILE": os.devnull}) is None


def test_rejection_names_the_ignored_variable_instead_of_adding_the_ca(
    write_policy: WritePolicy, cas: dict[str, tuple[trustme.CA, Path]], pki: _pki.TestPKI
) -> None:
    """Under the lock, the advice names the ignored variable, not 'add it to the trust list'."""
    _, corp = cas["corp"]
    _, extra = cas["extra"]
    system = write_policy(f"trust = ['{corp}']\nlock = ['trust']\n")
    policy = load_policy(
        [("system", str(system), True)], environ={"REQUESTS_CA_BUNDLE": str(extra)}
    )
    chain = (ssl.PEM_cert_to_DER_cert(pki["good"].leaf_pem.decode()),)
    verdict = Verdict(accepted=False, reasons=("unknown_issuer",), verify_code=20)
    error = rejection(decide(policy, context="requests"), verdict, chain, "localhost", 443)
    assert f"REQUESTS_CA_BUNDLE={extra} is ignored" in str(error)
    assert f"locks trust ({system}:2)" in str(error)
    assert "add its certificate to the policy's trust list" not in str(error)
    plain = rejection(decide(policy, context="smtplib"), verdict, chain, "localhost", 443)
    assert "REQUESTS_CA_BUNDLE" not in str(plain)


# --- requests, through the .pth hook ---------------------------------------------------------


@needs_hook
def test_requests_ca_bundle_adds_trust_without_a_lock(
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
) -> None:
    """Twin: REQUESTS_CA_BUNDLE's CA is trusted by requests beside the policy's; not by urllib."""
    corp_ca, corp = cas["corp"]
    extra_ca, extra = cas["extra"]
    corp_url = https_server(_case(corp_ca), "localhost").url()
    extra_url = https_server(_case(extra_ca), "localhost").url()
    env = {
        "SSLCUSTOMIZE_POLICY": str(write_policy(f"trust = ['{corp}']\n")),
        "REQUESTS_CA_BUNDLE": str(extra),
    }
    verdicts, err = _run_client("requests", None, [extra_url, corp_url], env)
    assert verdicts == ["accepted", "accepted"]
    assert "REQUESTS_CA_BUNDLE" not in err
    verdicts, _ = _run_client("urllib", None, [extra_url, corp_url], env)
    assert verdicts[0].startswith("rejected")
    assert verdicts[1] == "accepted"


@needs_hook
def test_requests_ca_bundle_naming_the_system_bundle_no_longer_fails(
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    tmp_path: Path,
) -> None:
    """A bundle without the corporate CA (the 'system bundle' setting) no longer hides it."""
    corp_ca, corp = cas["corp"]
    public = _pem(trustme.CA(), tmp_path / "public-bundle.pem")
    corp_url = https_server(_case(corp_ca), "localhost").url()
    env = {
        "SSLCUSTOMIZE_POLICY": str(write_policy(f"trust = ['system', '{corp}']\n")),
        "REQUESTS_CA_BUNDLE": str(public),
        "CURL_CA_BUNDLE": str(public),
    }
    verdicts, err = _run_client("requests", None, [corp_url], env)
    assert verdicts == ["accepted"], err


@needs_hook
def test_requests_ca_bundle_of_an_attacker_is_ignored_under_a_lock(
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    tmp_path: Path,
) -> None:
    """MITM: REQUESTS_CA_BUNDLE=evil under a trust lock is rejected, said once, recorded once."""
    corp_ca, corp = cas["corp"]
    evil_ca, evil = cas["evil"]
    sink = tmp_path / "records.jsonl"
    system = write_policy(
        f"trust = ['{corp}']\nlock = ['trust']\n[report]\nsink = 'jsonl'\npath = '{sink}'\n"
    )
    evil_url = https_server(_case(evil_ca), "localhost").url()
    corp_url = https_server(_case(corp_ca), "localhost").url()
    env = {
        "REQUESTS_CA_BUNDLE": str(evil),
        "SSLCUSTOMIZE_POLICY": str(write_policy("version = 1\n")),
    }
    verdicts, err = _run_client("requests", system, [evil_url, evil_url, corp_url], env)
    assert verdicts[0].startswith("rejected")
    assert f"REQUESTS_CA_BUNDLE={evil} is ignored" in verdicts[0]
    assert verdicts[1].startswith("rejected")
    assert verdicts[2] == "accepted"
    lines = [line for line in err.splitlines() if "REQUESTS_CA_BUNDLE" in line]
    assert lines == [
        f"sslcustomize: REQUESTS_CA_BUNDLE={evil} is ignored: the system policy locks trust "
        f"({system}:2), so it adds no CA for requests and pip"
    ]
    (record,) = _records(sink)
    assert record["verdict"] == "ignored"
    assert record["reasons"] == ["variable_ignored"]
    assert record["rule"] == "environment REQUESTS_CA_BUNDLE"
    assert record["origin"] == f"{system}:2"


@needs_hook
@pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem()))
def test_requests_ca_bundle_ignored_under_a_real_etc_lock(
    https_server: StartServer, cas: dict[str, tuple[trustme.CA, Path]], tmp_path: Path
) -> None:
    """The same MITM with /etc/sslcustomize/policy.toml itself, in a private mount namespace."""
    corp_ca, corp = cas["corp"]
    evil_ca, evil = cas["evil"]
    evil_url = https_server(_case(evil_ca), "localhost").url()
    corp_url = https_server(_case(corp_ca), "localhost").url()
    policy = tmp_path / "system.toml"
    policy.write_text(f"trust = ['{corp}']\nlock = ['trust']\n[report]\nsink = 'none'\n")
    script = tmp_path / "client.py"
    script.write_text(_CLIENT, encoding="utf-8")
    os.environ["SSLCUSTOMIZE_TEST_CLIENT"] = "requests"
    try:
        result = run_in_overlays(
            ["/etc"], tmp_path / "scratch",
            [f"mkdir -p /etc/sslcustomize && cp {policy} /etc/sslcustomize/policy.toml && "
             f"REQUESTS_CA_BUNDLE={evil} {sys.executable} {script} "
             f"/etc/sslcustomize/policy.toml {evil_url} {corp_url}"],
            timeout=120,
        )  # fmt: skip
    finally:
        del os.environ["SSLCUSTOMIZE_TEST_CLIENT"]
    assert not os.path.exists("/etc/sslcustomize"), "the real /etc was touched"
    verdicts = result.stdout.splitlines()
    assert verdicts[0].startswith("rejected"), result.stderr
    assert verdicts[1] == "accepted"
    assert result.stderr.count("REQUESTS_CA_BUNDLE") == 1


# --- SSL_CERT_FILE, for every client ------------------------------------------------------------


@needs_hook
@pytest.mark.parametrize("client", ["urllib", "requests", "default_certs"])
def test_ssl_cert_file_of_an_attacker_is_ignored_under_a_lock(
    client: str,
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    tmp_path: Path,
) -> None:
    """MITM: SSL_CERT_FILE=evil under a lock of trust = ['system', corp]: evil rejected everywhere.

    ``default_certs`` also calls ``load_default_certs()`` on its context, where OpenSSL itself
    would read SSL_CERT_FILE.
    """
    corp_ca, corp = cas["corp"]
    evil_ca, evil = cas["evil"]
    sink = tmp_path / "records.jsonl"
    system = write_policy(
        f"trust = ['system', '{corp}']\nlock = ['trust']\n"
        f"[report]\nsink = 'jsonl'\npath = '{sink}'\n"
    )
    evil_url = https_server(_case(evil_ca), "localhost").url()
    corp_url = https_server(_case(corp_ca), "localhost").url()
    env = {"SSL_CERT_FILE": str(evil), "SSL_CERT_DIR": str(tmp_path)}
    verdicts, err = _run_client(client, system, [evil_url, corp_url], env)
    assert verdicts[0].startswith("rejected")
    assert verdicts[1] == "accepted"
    assert err.count(f"SSL_CERT_FILE={evil} is ignored") == 1
    assert sorted(str(r["rule"]) for r in _records(sink)) == [
        "environment SSL_CERT_DIR", "environment SSL_CERT_FILE",
    ]  # fmt: skip


@needs_hook
@pytest.mark.parametrize("client", ["urllib", "requests", "default_certs"])
def test_ssl_cert_file_adds_trust_without_a_lock(
    client: str,
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
) -> None:
    """Twin: SSL_CERT_FILE's CA is trusted by every client, beside the policy's own CA."""
    corp_ca, corp = cas["corp"]
    extra_ca, extra = cas["extra"]
    extra_url = https_server(_case(extra_ca), "localhost").url()
    corp_url = https_server(_case(corp_ca), "localhost").url()
    env = {
        "SSLCUSTOMIZE_POLICY": str(write_policy(f"trust = ['{corp}']\n")),
        "SSL_CERT_FILE": str(extra),
    }
    verdicts, err = _run_client(client, None, [extra_url, corp_url], env)
    assert verdicts == ["accepted", "accepted"], err
    assert "ignored" not in err


# --- check, explain, doctor ----------------------------------------------------------------------


def test_check_says_verified_for_requests_only(
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A chain only REQUESTS_CA_BUNDLE's CA vouches for: verified for requests and pip only."""
    _, corp = cas["corp"]
    extra_ca, extra = cas["extra"]
    _, port = https_server(_case(extra_ca), "localhost")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy(f"trust = ['{corp}']\n")))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(extra))
    assert main(["check", "--json", f"localhost:{port}"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "rejected"
    clients = {row["client"]: row for row in document["clients"]}
    assert clients["requests"]["verdict"] == "verified"
    assert clients["requests"]["variables"] == ["REQUESTS_CA_BUNDLE"]
    assert clients["pip"]["verdict"] == "verified"
    assert main(["check", "--context", "requests", f"localhost:{port}"]) == 0
    assert "verified" in capsys.readouterr().out
    assert main(["check", f"localhost:{port}"]) == 1
    text = capsys.readouterr().out
    assert "rejected for other clients" in text
    assert "verified for requests (REQUESTS_CA_BUNDLE)" in text


def test_check_explain_doctor_tell_the_lock(
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Under the lock, check rejects for requests too and says why; explain and doctor agree."""
    _, corp = cas["corp"]
    extra_ca, extra = cas["extra"]
    _, port = https_server(_case(extra_ca), "localhost")
    system = write_policy(f"trust = ['{corp}']\nlock = ['trust']\n")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(extra))
    assert main(["check", "--json", "--context", "requests", f"localhost:{port}"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert document["verdict"] == "rejected"
    assert any("REQUESTS_CA_BUNDLE is ignored" in note for note in document["notes"])
    assert main(["explain", "--json", "--context", "requests"]) == 0
    explained = json.loads(capsys.readouterr().out)
    (entry,) = explained["environment"]
    assert (entry["variable"], entry["state"], entry["why"]) == (
        "REQUESTS_CA_BUNDLE", "ignored", f"{system}:2",
    )  # fmt: skip
    assert explained["decision"]["trust"] == [str(corp)]
    from sslcustomize._cli._doctor import gather

    (row,) = gather()["environment_trust"]
    assert row["state"] == "ignored"
    assert row["clients"] == ["requests", "pip"]


def test_explain_shows_the_added_source(
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Without a lock, explain lists the variable's bundle in the decision's trust, from $VAR."""
    _, extra = cas["extra"]
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("version = 1\n")))
    monkeypatch.setenv("PIP_CERT", str(extra))
    assert main(["explain", "--json", "--context", "pip"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["decision"]["trust"] == ["system", str(extra)]
    assert document["environment"][0]["meaning"] == (
        "PIP_CERT adds its CAs to the policy's trust for pip"
    )
    assert main(["explain", "--context", "smtplib"]) == 0
    assert str(extra) not in capsys.readouterr().out.split("gets rule")[1]


def test_origin_of_an_added_source_names_the_variable(
    cas: dict[str, tuple[trustme.CA, Path]],
) -> None:
    """The added source remembers where it came from: ``$SSL_CERT_FILE``."""
    _, extra = cas["extra"]
    (entry,) = read_environment({}, {"SSL_CERT_FILE": str(extra)})
    assert entry.sources[0].origin == Origin(layer="environment", path="$SSL_CERT_FILE")


def test_variables_naming_one_path_each_keep_their_own_origin(
    cas: dict[str, tuple[trustme.CA, Path]], tmp_path: Path
) -> None:
    """A path several variables name is checked once; each entry names its own variable."""
    _, extra = cas["extra"]
    missing = tmp_path / "missing.pem"
    names = ("SSL_CERT_FILE", "REQUESTS_CA_BUNDLE", "PIP_CERT")
    added = read_environment({}, dict.fromkeys(names, str(extra)))
    assert [(e.variable, e.state) for e in added] == [(name, "added") for name in names]
    assert [e.sources[0].origin.path for e in added] == [f"${name}" for name in names]
    assert {e.sources[0].path for e in added} == {str(extra)}
    broken = read_environment({}, {"CURL_CA_BUNDLE": str(missing), "PIP_CERT": str(missing)})
    assert [e.state for e in broken] == ["unusable", "unusable"]
    assert all("missing.pem" in (e.why or "") for e in broken)


# --- pip, through the .pth hook ------------------------------------------------------------------


def _pip_env(env: dict[str, str]) -> dict[str, str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith("PIP_")}
    clean["PIP_CONFIG_FILE"] = os.devnull
    return {**clean, **env}


_PIP = """
import runpy, sys
from sslcustomize._support import _bootstrap
_bootstrap.SYSTEM_POLICY = sys.argv.pop(1)
sys.argv[0] = "pip"
runpy.run_module("pip", run_name="__main__")
"""


def _pip_download(index: str, system: Path, target: Path, env: dict[str, str]) -> str:
    command = [sys.executable, "-c", _PIP, str(system), "download", "--index-url", index]
    command += ["--no-cache-dir", "--disable-pip-version-check", "--retries", "0"]
    command += ["--timeout", "10", "--no-deps", "-d", str(target), "sslcustomize-probe"]
    empty = system.with_name("empty-process-layer.toml")
    empty.write_text("version = 1\n", encoding="utf-8")
    env = {**env, "SSLCUSTOMIZE_POLICY": str(empty)}
    result = subprocess.run(
        command, capture_output=True, text=True, timeout=180, check=False, env=_pip_env(env)
    )
    return ("ok " if result.returncode == 0 else "failed ") + result.stdout + result.stderr


@pytest.fixture
def pip_index(tmp_path: Path) -> tuple[trustme.CA, Path, Path]:
    """An index served by a server whose CA is in the returned PEM file only (and its URL)."""
    pytest.importorskip("pip")
    from _index import WHEEL, write_wheel

    ca = trustme.CA()
    root = tmp_path / "index"
    project = root / "simple" / "sslcustomize-probe"
    project.mkdir(parents=True)
    write_wheel(project / WHEEL)
    (project / "index.html").write_text(f'<a href="{WHEEL}">{WHEEL}</a>\n')
    return ca, _pem(ca, tmp_path / "index-ca.pem"), root


@pytest.fixture
def index_url(pip_index: tuple[trustme.CA, Path, Path]) -> Iterator[str]:
    """Serve the index directory over HTTPS on localhost; yield its URL."""
    import contextlib
    import http.server
    import threading
    from functools import partial

    ca, _, root = pip_index

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=root))
    server.socket = _servers.server_context(_case(ca)).wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"https://localhost:{server.server_address[1]}/simple/"
    server.shutdown()
    server.server_close()
    with contextlib.suppress(RuntimeError):
        thread.join(5)


@needs_hook
@pytest.mark.slow
@pytest.mark.parametrize("how", ["PIP_CERT", "pip.conf"])
def test_pip_cert_adds_trust_or_is_ignored_under_a_lock(
    how: str,
    pip_index: tuple[trustme.CA, Path, Path],
    index_url: str,
    write_policy: WritePolicy,
    tmp_path: Path,
) -> None:
    """pip's cert (PIP_CERT, pip.conf) adds its CA; under a trust lock it is ignored (MITM)."""
    _, ca_file, _ = pip_index
    if how == "PIP_CERT":
        env = {"PIP_CERT": str(ca_file)}
    else:
        config = tmp_path / "pip.conf"
        config.write_text(f"[global]\ncert = {ca_file}\n", encoding="utf-8")
        env = {"PIP_CONFIG_FILE": str(config)}
    unlocked = write_policy("trust = ['system']\n")
    outcome = _pip_download(index_url, unlocked, tmp_path / "a", env)
    assert outcome.startswith("ok"), outcome
    sink = tmp_path / "records.jsonl"
    locked = write_policy(
        f"trust = ['system']\nlock = ['trust']\n[report]\nsink = 'jsonl'\npath = '{sink}'\n"
    )
    outcome = _pip_download(index_url, locked, tmp_path / "b", env)
    assert outcome.startswith("failed")
    assert "CERTIFICATE_VERIFY_FAILED" in outcome or "certificate rejected" in outcome
    name = "PIP_CERT" if how == "PIP_CERT" else "pip cert setting"
    assert outcome.count(f"sslcustomize: {name}={ca_file} is ignored") == 1
    assert [r["rule"] for r in _records(sink)] == [f"environment {name}"]


def test_a_verify_path_is_the_variable_only_when_it_is_its_value(
    cas: dict[str, tuple[trustme.CA, Path]],
) -> None:
    """requests' env-derived verify path is the variable; another path is the code's own."""
    _, extra = cas["extra"]
    _, corp = cas["corp"]
    environment = read_environment({}, {"REQUESTS_CA_BUNDLE": str(extra), "PIP_CERT": str(corp)})
    found = entry_for_path(environment, str(extra), "requests")
    assert found is not None
    assert found.variable == "REQUESTS_CA_BUNDLE"
    assert entry_for_path(environment, str(corp), "requests") is None  # PIP_CERT: pip's only
    assert entry_for_path(environment, str(corp), "pip._vendor.requests") is not None
    assert entry_for_path(environment, "/code/own/ca.pem", "requests") is None


def test_code_verify_path_still_replaces_beside_the_variable(
    https_server: StartServer,
    write_policy: WritePolicy,
    cas: dict[str, tuple[trustme.CA, Path]],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """With REQUESTS_CA_BUNDLE set, verify=OTHER_PATH in code still replaces the anchors."""
    import requests

    import sslcustomize

    corp_ca, corp = cas["corp"]
    extra_ca, extra = cas["extra"]
    _, evil = cas["evil"]
    corp_url = https_server(_case(corp_ca), "localhost").url()
    extra_url = https_server(_case(extra_ca), "localhost").url()
    monkeypatch.setenv("REQUESTS_CA_BUNDLE", str(extra))
    sslcustomize.inject(write_policy(f"trust = ['{corp}']\n"))
    assert requests.get(extra_url, timeout=10).ok
    assert requests.get(corp_url, timeout=10).ok
    with pytest.raises(requests.exceptions.SSLError):
        requests.get(corp_url, verify=str(evil), timeout=10)
