"""A missing intermediate told from an unknown CA by what the report database saw verify.

Issue 12 item 7: a private CA's leaf without AIA whose server does not send the intermediate
is ``incomplete_chain`` when this machine has seen that intermediate verify for another server
(the report database), and the fix names it; a CA nobody trusts stays ``unknown_issuer``.
"""

from __future__ import annotations

import html
import json
import socket
import ssl
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
from cryptography.x509.oid import NameOID

import _pki
import sslcustomize
from _fixtures import WritePolicy
from _reports import read_records
from sslcustomize._cli import main
from sslcustomize._diagnosis._seen import load_sightings, missing_intermediate
from sslcustomize._runtime import _state
from sslcustomize.exceptions import SSLCustomizeWarning

if TYPE_CHECKING:
    from conftest import StartServer


def _no_aia_leaf(pki: _pki.TestPKI) -> _pki.CertCase:
    """A leaf of the test intermediate without AIA, served without the intermediate."""
    key = _pki._ec_key()
    leaf = pki._make_leaf(key.public_key(), issuer=pki.intermediate)
    return pki._case("no_aia_leaf_only", leaf, key, reasons=frozenset({"unknown_issuer"}))


def _connect_unverified_by_python(host: str, port: int) -> None:
    """Connect as smtplib does (a context Python leaves unverified), so report mode applies."""
    context = ssl._create_stdlib_context()  # type: ignore[attr-defined]
    with (
        socket.create_connection((host, port), timeout=10) as sock,
        context.wrap_socket(sock, server_hostname="localhost") as tls,
    ):
        assert tls.version()


@pytest.fixture
def report_policy(
    pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """Report mode trusting the test root, recording into a SQLite database; returns it."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    database = tmp_path / "reports.sqlite3"
    policy = write_policy(
        f"mode = 'report'\ntrust = ['{root}']\n[report]\nsink = 'sqlite'\npath = '{database}'\n"
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    return database


def _record_connections(targets: list[tuple[str, int]]) -> None:
    sslcustomize.inject()
    try:
        for host, port in targets:
            with warnings.catch_warnings(), pytest.warns(sslcustomize.UnverifiedConnectionWarning):  # noqa: PT031
                # On a loaded machine the sink may pass its 50 ms budget: it keeps the record
                # and writes it later (at the latest when set_policy(None) closes it, below).
                warnings.filterwarnings("ignore", "report sink .* failed", SSLCustomizeWarning)
                _connect_unverified_by_python(host, port)
    finally:
        sslcustomize.extract()
        _state.set_policy(None)


def _check(capsys: pytest.CaptureFixture[str], target: str) -> dict[str, Any]:
    _state.set_policy(None)
    main(["check", "--json", target])
    document: dict[str, Any] = json.loads(capsys.readouterr().out)
    return document


def test_records_name_intermediates_only_of_chains_that_reached_an_anchor(
    pki: _pki.TestPKI, https_server: StartServer, report_policy: Path
) -> None:
    """A wrong-name chain through the intermediate names it; an unknown CA's chain does not."""
    wrong_name = https_server(pki["wrong_host"], "127.0.0.1")
    unknown = https_server(pki["unknown_issuer"], "127.0.0.1")
    _record_connections([wrong_name, unknown])
    by_port = {record["port"]: record for record in read_records(str(report_policy))}
    intermediate = pki.intermediate.cert.subject.rfc4514_string()
    assert by_port[wrong_name[1]]["reasons"] == ["hostname_mismatch"]
    assert by_port[wrong_name[1]]["intermediates"] == [intermediate]
    assert "unknown_issuer" in by_port[unknown[1]]["reasons"]
    assert by_port[unknown[1]]["intermediates"] == []  # its chain reached no trust anchor
    assert by_port[unknown[1]].get("top_issuer") is None  # it sends its self-signed root


def test_check_calls_a_seen_intermediate_an_incomplete_chain(
    pki: _pki.TestPKI,
    https_server: StartServer,
    report_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Before the intermediate is seen: unknown_issuer; after: incomplete_chain, named."""
    leaf_only = https_server(_no_aia_leaf(pki), "127.0.0.1")
    target = f"localhost:{leaf_only[1]}"
    before = _check(capsys, target)
    assert before["reasons"] == ["unknown_issuer"]

    wrong_name = https_server(pki["wrong_host"], "127.0.0.1")
    _record_connections([wrong_name])
    after = _check(capsys, target)
    assert after["verdict"] == "rejected"  # diagnostics only: the verdict is unchanged
    assert after["reasons"] == ["incomplete_chain"]
    (problem,) = after["problems"]
    assert "does not send its intermediate certificate" in problem["problem"]
    (common_name,) = pki.intermediate.cert.subject.get_attributes_for_oid(NameOID.COMMON_NAME)
    assert str(common_name.value) in problem["problem"]
    assert f"saw it verify for localhost:{wrong_name[1]}" in problem["problem"]
    assert "full chain" in problem["fix"]


def test_an_unknown_ca_stays_unknown_after_sightings(
    pki: _pki.TestPKI,
    https_server: StartServer,
    report_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """The legitimate twin: a CA nobody trusts is never called a missing intermediate."""
    wrong_name = https_server(pki["wrong_host"], "127.0.0.1")
    _record_connections([wrong_name])
    unknown = https_server(pki["unknown_issuer"], "127.0.0.1")
    assert "unknown_issuer" in _check(capsys, f"localhost:{unknown[1]}")["reasons"]


def test_report_relabels_the_recorded_unknown_issuer(
    pki: _pki.TestPKI,
    https_server: StartServer,
    report_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """report: the leaf-only server's records say incomplete_chain and name the intermediate."""
    wrong_name = https_server(pki["wrong_host"], "127.0.0.1")
    leaf_only = https_server(_no_aia_leaf(pki), "127.0.0.1")
    _record_connections([leaf_only, wrong_name])
    recorded = {r["port"]: r["reasons"] for r in read_records(str(report_policy))}
    assert recorded[leaf_only[1]] == ["unknown_issuer"]  # what the program knew
    intermediate = pki.intermediate.cert.subject.rfc4514_string()
    (leaf_record,) = (r for r in read_records(str(report_policy)) if r["port"] == leaf_only[1])
    assert leaf_record["top_issuer"] == intermediate

    _state.set_policy(None)
    assert main(["report", "--json"]) == 0
    hosts = {group["port"]: group for group in json.loads(capsys.readouterr().out)["hosts"]}
    assert hosts[leaf_only[1]]["reasons"] == ["incomplete_chain"]
    assert hosts[leaf_only[1]]["missing_intermediates"] == [intermediate]
    assert hosts[wrong_name[1]]["reasons"] == ["hostname_mismatch"]
    page = report_policy.parent / "report.html"
    assert main(["report", "--html", str(page)]) == 0
    fixes = html.unescape(page.read_text(encoding="utf-8"))
    assert f"it does not send the intermediate '{intermediate}'" in fixes
    assert f"saw it verify for localhost:{wrong_name[1]}" in fixes


def test_sightings_of_a_broken_or_absent_database_are_none(tmp_path: Path) -> None:
    """A database that is absent or not one gives no sightings, never an error."""
    assert load_sightings(str(tmp_path / "absent.sqlite3")) == {}
    garbage = tmp_path / "garbage.sqlite3"
    garbage.write_bytes(b"SQLite format 3\x00" + b"\xff" * 100)
    assert load_sightings(str(garbage)) == {}
    assert missing_intermediate((), {}) is None
