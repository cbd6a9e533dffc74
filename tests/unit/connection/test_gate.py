"""The gate in front of a connection, over a fake ``_ssl._SSLSocket`` (no network)."""

from __future__ import annotations

import socket
import ssl
from typing import Any

import pytest

from sslcustomize._connection._gate import Gate, GateState
from sslcustomize.exceptions import CertificateRejected

CHAIN = (b"leaf-der", b"ca-der")


class FakeRaw:
    """What the gate calls of ``_ssl._SSLSocket``, recording each call."""

    def __init__(self, context: ssl.SSLContext, *, want_reads: int = 0) -> None:
        self.context = context
        self.calls: list[str] = []
        self.session: object = None
        self.owner: object = None
        self.want_reads = want_reads
        self.failure: BaseException | None = None

    def do_handshake(self) -> None:
        self.calls.append("do_handshake")
        if self.failure is not None:
            raise self.failure
        if self.want_reads:
            self.want_reads -= 1
            raise ssl.SSLWantReadError

    def read(self, size: int = 1024) -> bytes:
        self.calls.append("read")
        return b"data"[:size]

    def write(self, data: bytes) -> int:
        self.calls.append("write")
        return len(data)

    def shutdown(self) -> None:
        self.calls.append("shutdown")

    def cipher(self) -> tuple[str, str, int]:
        return ("TLS_AES_128_GCM_SHA256", "TLSv1.3", 128)


def _rejection(reason: str = "unknown_issuer") -> CertificateRejected:
    return CertificateRejected(
        f"certificate verify failed: {reason}", host="h.example", port=443, reasons=(reason,),
        rule="default", origin=None, fix="none", chain=CHAIN, verify_code=20,
        verify_message=reason,
    )  # fmt: skip


class Judge:
    """A judge that answers as told and counts its calls."""

    def __init__(self, answer: CertificateRejected | None = None) -> None:
        self.answer = answer
        self.calls = 0

    def __call__(self, gate: Gate) -> tuple[CertificateRejected | None, tuple[bytes, ...]]:
        self.calls += 1
        return self.answer, CHAIN


class Callbacks:
    """explain, remember and admit, recording what they were asked."""

    def __init__(self, *, admit: bool = True) -> None:
        self.explained: list[ssl.SSLCertVerificationError] = []
        self.remembered: list[object] = []
        self.admitting = admit

    def explain(self, gate: Gate, error: ssl.SSLCertVerificationError) -> CertificateRejected:
        self.explained.append(error)
        return _rejection("expired")

    def remember(self, gate: Gate, session: Any) -> None:
        self.remembered.append(session)

    def admit(self, gate: Gate, session: Any) -> bool:
        return self.admitting


def _gate(
    raw: FakeRaw, judge: Judge | None, callbacks: Callbacks | None = None
) -> tuple[Gate, Callbacks]:
    callbacks = callbacks or Callbacks()
    gate = Gate(
        raw, raw.context, judge=judge, explain=callbacks.explain, remember=callbacks.remember,
        admit=callbacks.admit,
    )  # fmt: skip
    return gate, callbacks


@pytest.fixture
def context() -> ssl.SSLContext:
    """A client context to stand for the caller's."""
    return ssl.create_default_context()


def test_a_new_gate_is_new_and_has_no_chain(context: ssl.SSLContext) -> None:
    """Nothing judged yet: state NEW, no chain."""
    gate, _ = _gate(FakeRaw(context), Judge())
    assert gate.state is GateState.NEW
    assert gate.chain == ()


def test_a_first_write_completes_the_handshake_and_is_judged_first(
    context: ssl.SSLContext,
) -> None:
    """write() before do_handshake(): the handshake and the verdict come before the data."""
    raw, judge = FakeRaw(context), Judge()
    gate, _ = _gate(raw, judge)
    assert gate.write(b"hello") == 5
    assert raw.calls == ["do_handshake", "write"]
    assert judge.calls == 1
    assert gate.state is GateState.OPEN
    assert gate.chain == CHAIN


@pytest.mark.parametrize("call", ["read", "write", "shutdown", "do_handshake"])
def test_a_rejected_chain_moves_no_data_and_stays_rejected(
    context: ssl.SSLContext, call: str
) -> None:
    """A refusal: nothing reaches raw's read/write/shutdown, and every call raises it again."""
    raw, judge = FakeRaw(context), Judge(_rejection())
    gate, _ = _gate(raw, judge)
    arguments: tuple[object, ...] = (b"x",) if call == "write" else ()
    with pytest.raises(CertificateRejected) as first:
        getattr(gate, call)(*arguments)
    assert gate.state is GateState.REJECTED
    for again in ("read", "do_handshake", "shutdown"):
        with pytest.raises(CertificateRejected) as later:
            getattr(gate, again)()
        assert later.value is first.value
    assert raw.calls == ["do_handshake"]
    assert judge.calls == 1


def test_the_legitimate_twin_reads_after_the_verdict(context: ssl.SSLContext) -> None:
    """The same calls with an accepting judge go through, judged once."""
    raw, judge = FakeRaw(context), Judge()
    gate, _ = _gate(raw, judge)
    gate.do_handshake()
    gate.do_handshake()
    assert gate.read(4) == b"data"
    assert raw.calls == ["do_handshake", "do_handshake", "read"]
    assert judge.calls == 1


def test_an_unfinished_handshake_is_not_judged(context: ssl.SSLContext) -> None:
    """SSLWantReadError: still NEW, no verdict yet; judged when the handshake completes."""
    raw, judge = FakeRaw(context, want_reads=1), Judge()
    gate, _ = _gate(raw, judge)
    with pytest.raises(ssl.SSLWantReadError):
        gate.do_handshake()
    assert (gate.state, judge.calls) == (GateState.NEW, 0)
    gate.do_handshake()
    assert (gate.state, judge.calls) == (GateState.OPEN, 1)


def test_a_failure_of_openssls_own_verification_is_explained(context: ssl.SSLContext) -> None:
    """OpenSSL refused in the handshake: explain() builds the rejection; no judge runs."""
    raw, judge = FakeRaw(context), Judge()
    raw.failure = ssl.SSLCertVerificationError(1, "certificate verify failed")
    gate, callbacks = _gate(raw, judge)
    with pytest.raises(CertificateRejected) as raised:
        gate.do_handshake()
    assert raised.value.reasons == ("expired",)
    assert isinstance(raised.value.__cause__, ssl.SSLCertVerificationError)
    assert len(callbacks.explained) == 1
    assert (gate.state, judge.calls) == (GateState.REJECTED, 0)


def test_without_a_judge_the_handshake_opens_the_gate(context: ssl.SSLContext) -> None:
    """A plan verified natively in the handshake has no judge: OPEN after it."""
    gate, _ = _gate(FakeRaw(context), None)
    gate.do_handshake()
    assert gate.state is GateState.OPEN
    assert gate.chain == ()


def test_a_session_is_remembered_only_once_judged(context: ssl.SSLContext) -> None:
    """Reading the session before the verdict does not make it resumable; after it does."""
    raw = FakeRaw(context)
    raw.session = session = object()
    gate, callbacks = _gate(raw, Judge())
    assert gate.session is session
    assert callbacks.remembered == []
    gate.do_handshake()
    assert gate.session is session
    assert callbacks.remembered == [session]


@pytest.mark.parametrize("admit", [True, False])
def test_an_offered_session_is_used_only_if_admitted(context: ssl.SSLContext, admit: bool) -> None:
    """A session set before the handshake reaches raw only if the plan admits it."""
    raw = FakeRaw(context)
    gate, _ = _gate(raw, Judge(), Callbacks(admit=admit))
    offered = object()
    gate.session = offered
    assert (raw.session is offered) is admit
    assert (gate.resumed_from is offered) is admit


def test_a_connection_on_an_engine_stays_there_when_the_context_is_swapped(
    context: ssl.SSLContext,
) -> None:
    """``tls.context = other``: the caller sees other; an engine's connection keeps its trust."""
    engine, other = ssl.create_default_context(), ssl.create_default_context()
    raw = FakeRaw(engine)
    gate = Gate(
        raw, context, judge=None, explain=Callbacks().explain, remember=Callbacks().remember,
        admit=Callbacks().admit,
    )  # fmt: skip
    gate.context = other
    assert gate.context is other
    assert raw.context is engine


def test_a_connection_on_the_callers_context_moves_with_it(context: ssl.SSLContext) -> None:
    """The twin: a connection on the caller's own context moves, as in Python."""
    other = ssl.create_default_context()
    raw = FakeRaw(context)
    gate, _ = _gate(raw, Judge())
    gate.context = other
    assert raw.context is other


def test_other_attributes_pass_through_to_raw(context: ssl.SSLContext) -> None:
    """cipher(), owner and the rest are raw's; the gate keeps only its own slots."""
    raw = FakeRaw(context)
    gate, _ = _gate(raw, Judge())
    assert gate.cipher()[1] == "TLSv1.3"
    owner = object()
    gate.owner = owner
    assert raw.owner is owner
    assert gate.raw is raw


def test_a_rejection_shuts_the_owner_socket_down() -> None:
    """The peer sees the end of a refused connection, though the caller still holds it open."""
    mine, peer = socket.socketpair()
    with mine, peer:
        raw = FakeRaw(ssl.create_default_context())
        raw.owner = mine
        gate, _ = _gate(raw, Judge(_rejection()))
        with pytest.raises(CertificateRejected):
            gate.do_handshake()
        peer.settimeout(5)
        assert peer.recv(1) == b""
