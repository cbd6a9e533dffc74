"""A Runtime: one policy at work and everything cached under it."""

from __future__ import annotations

import ssl
from pathlib import Path

import pytest

import _pki
from _fixtures import WritePolicy, memory_handshake
from sslcustomize._decision._engine import EngineSpec, settings_of
from sslcustomize._policy._model import Policy
from sslcustomize._runtime._runtime import Runtime, SessionEntry
from sslcustomize._support._originals import ORIGINAL_CREATE_DEFAULT_CONTEXT
from sslcustomize._trust._checked_policy import load_policy


def _policy(write_policy: WritePolicy, text: str) -> Policy:
    """The policy of one process layer written from ``text``."""
    policy = load_policy([("process", str(write_policy(text)), True)], environ={})
    assert not policy.errors, policy.errors
    return policy


@pytest.fixture
def runtime(write_policy: WritePolicy, pki_root: Path) -> Runtime:
    """A runtime whose policy trusts the test PKI's root, with an exception for a pinned NAS."""
    return Runtime(
        _policy(
            write_policy,
            f"""
            trust = ['{pki_root}']
            [[exception]]
            host = "nas.example"
            pin = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
            reason = "appliance"
            """,
        )
    )


def test_base_decisions_are_made_once_per_context_name(runtime: Runtime, pki_root: Path) -> None:
    """A context name's decision is cached; it carries the policy's mode and trust."""
    decision = runtime.base_decision("smtplib")
    assert runtime.base_decision("smtplib") is decision
    assert decision.mode == "enforce"
    assert [source.path for source in decision.trust] == [str(pki_root)]


def test_an_exception_applies_to_its_host_only(runtime: Runtime) -> None:
    """The pinned host gets its exception's pins; another host the policy's default."""
    pinned = runtime.decision("urllib3", "nas.example", 443)
    assert pinned.exception is not None
    assert pinned.pins == ("sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",)
    other = runtime.decision("urllib3", "www.example", 443)
    assert other.exception is None
    assert other.pins == ()
    assert other.rule == "default"


def test_a_plan_is_reused_for_the_same_settings_only(runtime: Runtime) -> None:
    """The same settings get the same plan; a weakened context gets a plan of its own."""
    context = ORIGINAL_CREATE_DEFAULT_CONTEXT()
    decision = runtime.decision("urllib3", "www.example", 443)
    settings = settings_of(context, ())
    plan = runtime.plan(decision, settings, "urllib3", "www.example", 443, ())
    again = runtime.plan(decision, settings_of(context, ()), "urllib3", "www.example", 443, ())
    assert again is plan
    assert plan.weakened == ()
    context.check_hostname = False  # sslcustomize: allow(the weakening under test)
    weakened = runtime.plan(decision, settings_of(context, ()), "urllib3", "www.example", 443, ())
    assert weakened is not plan
    assert weakened.weakened == ("check_hostname",)
    assert weakened.judge
    other_host = runtime.plan(decision, settings, "urllib3", "other.example", 443, ())
    assert other_host.host == "other.example"


def test_verdicts_accept_the_trusted_chain_and_name_every_reason(
    runtime: Runtime, pki: _pki.TestPKI, pki_root: Path
) -> None:
    """Good is accepted; expired and for another host is rejected with both reasons."""
    settings = settings_of(
        ORIGINAL_CREATE_DEFAULT_CONTEXT(), (("load_verify_locations", (str(pki_root), None, None)),)
    )
    decision = runtime.base_decision(None)
    spec = EngineSpec()
    good = runtime.verdict(settings, spec, decision, pki["good"].chain_der, "localhost")
    assert good.accepted
    bad_chain = pki["expired_wrong_host"].chain_der
    bad = runtime.verdict(settings, spec, decision, bad_chain, "localhost")
    assert not bad.accepted
    assert set(bad.reasons) == {"expired", "hostname_mismatch"}
    assert runtime.verdict(settings, spec, decision, bad_chain, "localhost") is bad  # memoised


def test_a_verdict_without_the_anchor_is_a_rejection(runtime: Runtime, pki: _pki.TestPKI) -> None:
    """Twin: the same good chain, judged without the root loaded, is an unknown issuer."""
    settings = settings_of(ORIGINAL_CREATE_DEFAULT_CONTEXT(), ())
    verdict = runtime.verdict(
        settings, EngineSpec(), runtime.base_decision(None), pki["good"].chain_der,
        "localhost",
    )  # fmt: skip
    assert not verdict.accepted
    assert verdict.reasons == ("unknown_issuer",)


def test_a_session_is_offered_back_only_to_its_host_and_engine(runtime: Runtime) -> None:
    """Attack: a session of one host, offered for another or on another engine, is refused."""
    engine, other_engine = (ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT) for _ in range(2))
    session = object()
    runtime.remember_session(SessionEntry(session, "a.example", engine, (b"leaf",)))
    entry = runtime.session_entry(session, "a.example", engine)
    assert entry is not None
    assert entry.chain == (b"leaf",)
    assert runtime.session_entry(session, "b.example", engine) is None
    assert runtime.session_entry(session, "a.example", other_engine) is None
    assert runtime.session_entry(object(), "a.example", engine) is None
    assert runtime.session_entry(None, "a.example", engine) is None


def test_learnt_leaves_are_kept_once_and_bounded(runtime: Runtime) -> None:
    """A pinned leaf is remembered once; only the latest eight are kept."""
    exception = runtime.decision("x", "nas.example", 443).exception
    assert exception is not None
    assert runtime.leaves(exception) == ()
    assert runtime.leaves(None) == ()
    runtime.learn_leaf(exception, b"first")
    runtime.learn_leaf(exception, b"first")
    assert runtime.leaves(exception) == (b"first",)
    for number in range(10):
        runtime.learn_leaf(exception, b"leaf%d" % number)
    assert runtime.leaves(exception) == tuple(b"leaf%d" % n for n in range(2, 10))


def test_a_shared_context_is_built_once_per_generation(runtime: Runtime) -> None:
    """The builder runs once for a key; another key builds its own."""
    built: list[str] = []

    def build(name: str) -> ssl.SSLContext:
        built.append(name)
        return ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)

    first = runtime.shared("k", lambda: build("k"))
    assert runtime.shared("k", lambda: build("k")) is first
    assert runtime.shared("other", lambda: build("other")) is not first
    assert built == ["k", "other"]


def test_two_runtimes_share_nothing(write_policy: WritePolicy, pki_root: Path) -> None:
    """A new policy is a new runtime: its caches start empty, its recorder is its own."""
    policy = _policy(write_policy, f"trust = ['{pki_root}']\nmode = 'report'\n")
    one, two = Runtime(policy), Runtime(policy)
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    assert one.shared("k", lambda: context) is context
    assert two.shared("k", lambda: ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)) is not context
    assert one.base_decision(None) is not two.base_decision(None)
    assert one.base_decision(None).mode == "report"
    assert one.recorder is one.recorder
    assert one.recorder is not two.recorder
    one.close()
    two.close()


def test_the_oracle_verifies_with_the_named_trust(
    runtime: Runtime, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """check's oracle, shared per key, accepts the trusted chain and refuses another CA's."""
    trust = runtime.base_decision(None).trust
    oracle = runtime.oracle(trust, (), True, 0, False)
    assert runtime.oracle(trust, (), True, 0, False) is oracle
    assert oracle.verify_mode == ssl.CERT_REQUIRED
    assert memory_handshake(oracle, pki["good"].server_context(tmp_path), "localhost").version()
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(oracle, pki["unknown_issuer"].server_context(tmp_path), "localhost")
