"""One connection's judge (``_Connection``) over a fake ``_ssl._SSLSocket``: verdicts, pins.

Certificates are made at test time (trustme); nothing connects: the chain the fake
connection presents is judged offline by the runtime, as after a real handshake.
"""

from __future__ import annotations

import base64
import datetime as dt
import hashlib
import ssl
from pathlib import Path

import pytest
import trustme
from cryptography import x509
from cryptography.hazmat.primitives import serialization

from sslcustomize._connection._connect import _Connection
from sslcustomize._connection._gate import Gate, GateState
from sslcustomize._decision._decide import decide
from sslcustomize._decision._engine import Settings, settings_of
from sslcustomize._decision._plan import Plan, make_plan
from sslcustomize._policy._load import merge_layers
from sslcustomize._runtime._runtime import Runtime
from sslcustomize._trust._checked_policy import parse_policy
from sslcustomize.exceptions import CertificateRejected, UnverifiedConnectionWarning

HOST = "appliance.test"


class FakeRaw:
    """A finished handshake that presented ``chain`` (DER, leaf first)."""

    def __init__(self, chain: tuple[bytes, ...], context: ssl.SSLContext) -> None:
        self.chain = chain
        self.context = context
        self.session_reused = False
        self.owner: object = None

    def do_handshake(self) -> None:
        """The handshake is over at once."""

    def get_unverified_chain(self) -> list[bytes]:
        return list(self.chain)

    def write(self, data: bytes) -> int:
        return len(data)


def _der_chain(leaf: trustme.LeafCert) -> tuple[bytes, ...]:
    return tuple(
        x509.load_pem_x509_certificate(blob.bytes()).public_bytes(serialization.Encoding.DER)
        for blob in leaf.cert_chain_pems
    )


def _pin(leaf: trustme.LeafCert) -> str:
    spki = (
        x509.load_pem_x509_certificate(leaf.cert_chain_pems[0].bytes())
        .public_key()
        .public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    )
    return "sha256/" + base64.b64encode(hashlib.sha256(spki).digest()).decode()


class World:
    """A trusted CA and an attacker's, a runtime under a policy that trusts the first."""

    def __init__(self, tmp_path: Path) -> None:
        self.ca, self.attacker = trustme.CA(), trustme.CA()
        self.ca_file = tmp_path / "ca.pem"
        self.ca_file.write_bytes(self.ca.cert_pem.bytes())
        self.real = self.ca.issue_cert(HOST)
        self.evil = self.attacker.issue_cert(HOST)

    def connection(self, rules: str = "") -> tuple[_Connection, Runtime, Plan]:
        text = f'version = 1\ntrust = ["{self.ca_file}"]\n[report]\nsink = "none"\n{rules}'
        policy = merge_layers([parse_policy(text, path="/etc/p.toml", layer="user")])
        runtime = Runtime(policy)
        decision = decide(policy, host=HOST, port=443, context="app", today=dt.date.today())
        context = ssl.create_default_context()
        settings: Settings = settings_of(
            context, (("load_verify_locations", (str(self.ca_file),)),)
        )
        plan = make_plan(decision, settings, name="app", host=HOST, port=443)
        return _Connection(runtime, settings, plan, context), runtime, plan

    def gate(self, connection: _Connection, chain: tuple[bytes, ...]) -> Gate:
        raw = FakeRaw(chain, connection.engine)
        return Gate(
            raw, connection.engine, judge=connection.judge, explain=connection.explain,
            remember=connection.remember, admit=connection.admit,
        )  # fmt: skip


@pytest.fixture
def world(tmp_path: Path) -> World:
    """Two CAs, a leaf of each for the same host."""
    return World(tmp_path)


def test_a_chain_of_the_trusted_ca_opens_the_gate(world: World) -> None:
    """Enforce, the policy's CA: the verdict accepts, and the gate keeps the chain judged."""
    connection, _, _ = world.connection()
    chain = _der_chain(world.real)
    gate = world.gate(connection, chain)
    assert gate.write(b"x") == 1
    assert gate.state is GateState.OPEN
    assert gate.chain == chain


def test_a_chain_of_another_ca_is_rejected_before_any_byte(world: World) -> None:
    """The MITM twin: unknown_issuer, the gate REJECTED, the chain in the exception."""
    connection, _, _ = world.connection()
    gate = world.gate(connection, _der_chain(world.evil))
    with pytest.raises(CertificateRejected) as raised:
        gate.write(b"x")
    assert raised.value.reasons[0] == "unknown_issuer"
    assert raised.value.chain == _der_chain(world.evil)
    assert gate.state is GateState.REJECTED


def test_a_pinned_leaf_is_learned_once_accepted(world: World) -> None:
    """A pin of the real leaf's key: accepted, and the leaf is remembered for native checks."""
    rules = f'[[exception]]\nhost = "{HOST}"\npin = ["{_pin(world.real)}"]\nreason = "t"\n'
    connection, runtime, plan = world.connection(rules)
    chain = _der_chain(world.real)
    assert connection.judge(world.gate(connection, chain)) == (None, chain)
    assert runtime.leaves(plan.decision.exception) == (chain[0],)


def test_a_pin_mismatch_learns_nothing(world: World) -> None:
    """The twin: the attacker's leaf under the same pin is rejected, and not learned."""
    rules = f'[[exception]]\nhost = "{HOST}"\npin = ["{_pin(world.real)}"]\nreason = "t"\n'
    connection, runtime, plan = world.connection(rules)
    found, _ = connection.judge(world.gate(connection, _der_chain(world.evil)))
    assert found is not None
    assert "pin_mismatch" in found.reasons
    assert runtime.leaves(plan.decision.exception) == ()


def test_report_mode_lets_a_rejected_chain_through_with_a_warning(world: World) -> None:
    """Report mode over a context Python does not verify: no rejection, one warning."""
    rules = f'[[exception]]\nhost = "{HOST}"\nmode = "report"\nreason = "t"\n'
    connection, _, _ = world.connection(rules)
    with pytest.warns(UnverifiedConnectionWarning, match="unknown_issuer"):
        found, _ = connection.judge(world.gate(connection, _der_chain(world.evil)))
    assert found is None


def test_a_resumed_session_is_judged_by_the_chain_it_was_made_with(world: World) -> None:
    """No chain in a resumed handshake: the session entry's chain is judged instead."""
    connection, _, _ = world.connection()
    first = world.gate(connection, _der_chain(world.real))
    first.do_handshake()
    session = object()
    connection.remember(first, session)
    assert connection.offer(session) is session
    resumed = world.gate(connection, ())
    resumed.raw.session_reused = True
    assert connection.judge(resumed) == (None, _der_chain(world.real))
