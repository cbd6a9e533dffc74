"""The recorder: what a record says of a connection, where it goes, and warnings said once."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import _pki
from _fixtures import WritePolicy
from sslcustomize._policy._model import LayerFile, Policy
from sslcustomize._report._recording import Recorder, chain_fields, is_quiet, sink_name
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._trust._checked_policy import load_policy
from sslcustomize.exceptions import UnverifiedConnectionWarning


@pytest.fixture
def journal(tmp_path: Path) -> Path:
    """Where the policy's JSONL sink writes."""
    return tmp_path / "records.jsonl"


@pytest.fixture
def policy(write_policy: WritePolicy, journal: Path) -> Policy:
    """A report-mode policy that records to ``journal``."""
    text = f"mode = 'report'\n[report]\nsink = 'jsonl'\npath = '{journal}'\nquiet = false\n"
    loaded = load_policy([("process", str(write_policy(text)), True)], environ={})
    assert not loaded.errors
    return loaded


def _records(journal: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in journal.read_text(encoding="utf-8").splitlines()]


def test_a_record_names_the_connection_and_its_chain(
    policy: Policy, journal: Path, pki: _pki.TestPKI
) -> None:
    """Host, port, verdict, reasons, rule and the chain's facts; intermediates it reached."""
    recorder = Recorder(policy)
    decision = Runtime(policy).base_decision("smtplib")
    chain = pki["expired"].chain_der
    recorder.record(
        decision=decision, name="smtplib", host="mail.example", port=465, chain=chain,
        verdict="reported", reasons=("expired",),
    )  # fmt: skip
    recorder.close()
    (record,) = _records(journal)
    assert record["version"] >= 1
    assert (record["host"], record["port"], record["context"]) == ("mail.example", 465, "smtplib")
    assert (record["verdict"], record["reasons"], record["mode"]) == (
        "reported",
        ["expired"],
        "report",
    )
    assert record["pin"] == pki["expired"].pin
    assert record["intermediates"]


def test_an_unknown_issuer_names_no_intermediates(
    policy: Policy, journal: Path, pki: _pki.TestPKI
) -> None:
    """Attack: a chain that reached no anchor of the policy does not vouch for its CAs."""
    recorder = Recorder(policy)
    recorder.record(
        decision=Runtime(policy).base_decision(None), name="x", host="h.example", port=443,
        chain=pki["expired"].chain_der, verdict="reported", reasons=("unknown_issuer",),
    )  # fmt: skip
    recorder.close()
    (record,) = _records(journal)
    assert record["intermediates"] == []
    assert record["chain_sha256"]


def test_chain_fields_of_garbage_keep_only_the_digests() -> None:
    """A chain that does not parse is recorded by its SHA-256s alone."""
    fields = chain_fields((b"\x30\x00garbage",))
    assert list(fields) == ["chain_sha256"]
    assert chain_fields(()) == {"chain_sha256": ()}


def _warn(recorder: Recorder, *hosts: str) -> None:
    """Warn about each host's expired certificate, in order."""
    for host in hosts:
        recorder.warn_once(host, "expired", f"{host} expired", UnverifiedConnectionWarning)


def test_warnings_are_said_once_per_host_and_reason(policy: Policy) -> None:
    """The same host and reason warn once; another host warns again."""
    recorder = Recorder(policy)
    with pytest.warns(UnverifiedConnectionWarning) as caught:
        _warn(recorder, "a.example", "a.example", "b.example")
    assert [str(w.message) for w in caught] == ["a.example expired", "b.example expired"]


def test_a_quiet_policy_records_without_warning(write_policy: WritePolicy, journal: Path) -> None:
    """Twin: quiet = true says nothing of what it records."""
    text = f"mode = 'report'\n[report]\nsink = 'jsonl'\npath = '{journal}'\nquiet = true\n"
    quiet = load_policy([("process", str(write_policy(text)), True)], environ={})
    assert is_quiet(quiet)
    _warn(Recorder(quiet), "a.example")  # filterwarnings = error: a warning would fail here


def test_defaults_follow_the_system_layer() -> None:
    """Without a system file: sqlite and warnings; with one: the journal, quietly."""
    assert sink_name(Policy()) == "sqlite"
    assert not is_quiet(Policy())
    system = Policy(files=(LayerFile(layer="system", path="/etc/p.toml", scalars={}),))
    assert sink_name(system) == "journal"
    assert is_quiet(system)
