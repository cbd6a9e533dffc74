"""doctor: what it says about this Python must be true."""

from __future__ import annotations

import json
import ssl
import sys
from pathlib import Path

import pytest

import sslcustomize
from _fixtures import WritePolicy, installed_with_hook
from sslcustomize._cli import main
from sslcustomize._cli._doctor import gather


def test_clients_without_and_with(monkeypatch: pytest.MonkeyPatch) -> None:
    """smtplib & co. do not verify without sslcustomize and do with it; http.client does both."""
    facts = gather()
    rows = {row["client"]: row for row in facts["clients"]}
    for name in ("smtplib", "imaplib", "poplib", "ftplib"):
        assert rows[name]["verifies_without"] is False, name
        assert rows[name]["verifies_with"] is True, name
    for name in ("http.client", "urllib.request", "asyncio"):
        assert rows[name]["verifies_without"] is True, name
        assert rows[name]["verifies_with"] is True, name
    stdlib_factory = ssl._create_stdlib_context  # type: ignore[attr-defined]
    assert stdlib_factory().verify_mode == ssl.CERT_NONE  # doctor patched nothing


def test_without_column_reads_the_original_factory_while_injected(
    write_policy: WritePolicy,
) -> None:
    """While injected, 'without' still describes Python's own factories, not ours."""
    sslcustomize.inject(write_policy("version = 1\n"))
    rows = {row["client"]: row for row in gather()["clients"]}
    assert rows["smtplib"]["verifies_without"] is False
    assert gather()["startup_hook"]["active"] is True


def test_environment_and_layers_reported(
    monkeypatch: pytest.MonkeyPatch, write_policy: WritePolicy
) -> None:
    """TLS environment variables and the process layer with its error are listed."""
    broken = write_policy("mode = 1\n")
    monkeypatch.setenv("PYTHONHTTPSVERIFY", "0")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(broken))
    facts = gather()
    assert facts["environment"]["PYTHONHTTPSVERIFY"] == "0"
    process = [row for row in facts["layers"] if row["layer"] == "process"]
    assert process[0]["path"] == str(broken)
    assert "mode: must be" in process[0]["error"]
    assert facts["policy"]["fallback"] is True


def test_json_output_is_versioned_and_exit_codes(
    monkeypatch: pytest.MonkeyPatch, write_policy: WritePolicy, capsys: pytest.CaptureFixture[str]
) -> None:
    """--json prints a versioned document; a policy error makes the exit status 2."""
    assert main(["doctor", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["version"] == 1
    assert document["policy"]["configured"] is False
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("mode = 1\n")))
    assert main(["doctor"]) == 2
    text = capsys.readouterr().out
    assert "strict defaults apply" in text
    assert "smtplib" in text


def test_expired_exception_listed(
    monkeypatch: pytest.MonkeyPatch, write_policy: WritePolicy
) -> None:
    """An exception past its date is listed as expired."""
    path = write_policy(
        "[[exception]]\nhost = 'old.example'\nmode = 'report'\nexpires = 2020-01-01\nreason = 'x'\n"
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    expired = gather()["expired_exceptions"]
    assert [e["host"] for e in expired] == ["old.example"]
    assert expired[0]["origin"] == f"{path}:1"


def test_text_output_without_policy(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    """With no policy, doctor says sslcustomize is idle and how to turn it on."""
    assert main(["doctor"]) == 0
    assert "sslcustomize enable" in capsys.readouterr().out


def test_soon_expiring_exception_listed(
    monkeypatch: pytest.MonkeyPatch, write_policy: WritePolicy
) -> None:
    """An exception expiring within 30 days is listed; one further out is not."""
    import datetime as dt

    soon = dt.date.today() + dt.timedelta(days=10)
    later = dt.date.today() + dt.timedelta(days=100)
    path = write_policy(
        f"[[exception]]\nhost = 'a.example'\nmode = 'report'\nexpires = {soon}\nreason = 'x'\n"
        f"[[exception]]\nhost = 'b.example'\nmode = 'report'\nexpires = {later}\nreason = 'y'\n"
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    facts = gather()
    assert [e["host"] for e in facts["expiring_exceptions"]] == ["a.example"]
    assert facts["expired_exceptions"] == []


def test_certifi_comparison_counts_both_ways(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, test_ca: object
) -> None:
    """A system store holding one CA certifi lacks: counted, and certifi's own the reverse."""
    certifi = pytest.importorskip("certifi")
    from sslcustomize._cli import _doctor

    bundle = Path(certifi.where()).read_bytes()
    first = bundle.split(b"-----END CERTIFICATE-----")[0] + b"-----END CERTIFICATE-----\n"
    system = tmp_path / "system.pem"
    system.write_bytes(first + test_ca.cert_pem.bytes())  # type: ignore[attr-defined]
    store = {"file": str(system), "directory": None}
    result = _doctor._certifi_comparison(store)
    assert result["system_only"] == 1
    assert result["certifi_only"] == bundle.count(b"BEGIN CERTIFICATE") - 1


def test_third_party_clients_listed() -> None:
    """Installed clients are listed with their version and the hook that covers them."""
    if not installed_with_hook():
        pytest.skip("needs a wheel install (the .pth hook): nox -s tests, not fast")
    rows = {row["client"]: row for row in gather()["third_party"]}
    assert rows["pip"]["version"]
    for name in ("pip", "requests", "urllib3", "httpx", "aiohttp", "websockets"):
        if name in rows:  # no policy here: idle now, covered once one exists
            assert rows[name]["covered_once_policy"] is True, name
            assert rows[name]["covered"] is False, name
    if "websockets" in rows:
        assert rows["websockets"]["by"] == "_stdlib"


def test_pips_vendored_truststore_shows_truststores_version(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The vendored truststore's row has truststore's own version, pip's apart (not swapped)."""
    from sslcustomize._cli._doctor import _trust_tools

    vendor = tmp_path / "pip" / "_vendor"
    (vendor / "truststore").mkdir(parents=True)
    (tmp_path / "pip" / "__init__.py").write_text("")
    (vendor / "__init__.py").write_text("")
    (vendor / "truststore" / "__init__.py").write_text('__version__ = "0.10.4"\n')
    info = tmp_path / "pip-26.3.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: pip\nVersion: 26.3\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    for name in [m for m in sys.modules if m == "pip" or m.startswith("pip.")]:
        monkeypatch.delitem(sys.modules, name)
    (row,) = [r for r in _trust_tools() if r["tool"] == "pip's vendored truststore"]
    assert (row["version"], row["vendored_by"]) == ("0.10.4", "pip 26.3")
