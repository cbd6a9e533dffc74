"""Contexts made under the policy: defaults, names, registry, opt-outs, caller settings."""

from __future__ import annotations

import _ssl
import ssl
import sys
import types
from pathlib import Path
from typing import cast

import pytest
import trustme

import sslcustomize
from _fixtures import WritePolicy, memory_handshake
from sslcustomize._connection import _contexts
from sslcustomize._connection._contexts import PolicyContext, context_state, policy_context
from sslcustomize._support import _originals
from sslcustomize._support._originals import ORIGINAL_CREATE_DEFAULT_CONTEXT

ATTRIBUTES = (
    "protocol",
    "verify_mode",
    "check_hostname",
    "options",
    "verify_flags",
    "minimum_version",
    "maximum_version",
    "hostname_checks_common_name",
    "post_handshake_auth",
    "security_level",
)


def test_context_settings_equal_pythons_default() -> None:
    """But for trust anchors, a policy context has ssl.create_default_context()'s settings."""
    ours = policy_context("smtplib")
    python = ORIGINAL_CREATE_DEFAULT_CONTEXT()
    for name in ATTRIBUTES:
        expected = getattr(python, name)
        if name == "minimum_version":
            # The policy's floor (minimum_tls, "1.2" by default) over this Python's own: a
            # CPython built --with-ssl-default-suites=openssl (Debian's) sets no floor.
            expected = max(expected, ssl.TLSVersion.TLSv1_2)
        assert getattr(ours, name) == expected, name
    assert isinstance(ours, ssl.SSLContext)
    assert policy_context("smtplib") is not ours


def test_minimum_tls_13(write_policy: WritePolicy) -> None:
    """minimum_tls = "1.3" raises the floor of every context."""
    sslcustomize.inject(write_policy("minimum_tls = '1.3'\n"))
    assert ssl.create_default_context().minimum_version == ssl.TLSVersion.TLSv1_3


def test_verifies_against_policy_trust(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext
) -> None:
    """A CA named in trust verifies; without it the same server is rejected with reasons."""
    sslcustomize.inject(write_policy(f"trust = ['system', '{ca_file}']\n"))
    assert memory_handshake(ssl.create_default_context(), server_context, "localhost")
    sslcustomize.inject(write_policy("trust = ['system']\n"))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), server_context, "localhost")
    error = caught.value
    assert isinstance(error, ssl.SSLCertVerificationError)
    assert error.reasons == ("unknown_issuer",)
    assert error.host == "localhost"
    assert error.verify_code == 20
    assert error.rule == "default"
    assert "pin its key: sslcustomize trust localhost" in str(error)  # the CA is not sent
    assert len(error.chain) == 1


def test_wrong_host_is_rejected(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext
) -> None:
    """A trusted certificate for another name is rejected as hostname_mismatch."""
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), server_context, "example.org")
    assert caught.value.reasons == ("hostname_mismatch",)
    assert "not example.org" in str(caught.value)


def _module(name: str, source: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)  # noqa: S102 - test module
    return module


def test_context_is_named_after_the_calling_module(write_policy: WritePolicy) -> None:
    """Code in myapp.mail gets the context named myapp.mail, matching [context."myapp"]."""
    sslcustomize.inject(write_policy("[context.myapp]\nminimum_tls = '1.3'\n"))
    module = _module(
        "myapp.mail", "import ssl\ndef make():\n    return ssl.create_default_context()\n"
    )
    context = module.make()
    assert isinstance(context, sslcustomize.PolicyContext)
    assert context_state(context).name == "myapp.mail"
    assert context_state(context).decision.rule == "context myapp"
    assert context.minimum_version == ssl.TLSVersion.TLSv1_3
    here = ssl.create_default_context()
    assert isinstance(here, sslcustomize.PolicyContext)
    assert context_state(here).name == __name__


def test_named_contexts_registry(write_policy: WritePolicy) -> None:
    """A registered factory serves its name and names below it; others get the policy's."""
    sslcustomize.inject(write_policy("version = 1\n"))
    marker = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    sslcustomize.named_contexts["myapp.billing"] = lambda: marker
    try:
        assert sslcustomize.context_for("myapp.billing.stripe") is marker
        assert sslcustomize.context_for("myapp") is not marker
        assert "myapp.billing" in sslcustomize.named_contexts
        assert list(sslcustomize.named_contexts) == ["myapp.billing"]
        module = _module("myapp.billing", "import ssl\nctx = ssl.create_default_context()\n")
        assert module.ctx is marker
        assert callable(sslcustomize.named_contexts["other"])
        assert isinstance(sslcustomize.named_contexts["other"](), sslcustomize.PolicyContext)
        with pytest.raises(TypeError, match="callable"):
            sslcustomize.named_contexts["x"] = "not callable"  # type: ignore[assignment]
    finally:
        del sslcustomize.named_contexts["myapp.billing"]
    assert len(sslcustomize.named_contexts) == 0
    assert "myapp" in repr(sslcustomize.named_contexts) or repr(sslcustomize.named_contexts)


def test_legacy_context_warns_and_does_not_verify(
    write_policy: WritePolicy, server_context: ssl.SSLContext
) -> None:
    """create_legacy_context() is an explicit, warned opt-out that connects to an unknown CA."""
    sslcustomize.inject(write_policy("version = 1\n"))
    with pytest.warns(sslcustomize.LegacyContextWarning, match="does not verify"):
        context = sslcustomize.create_legacy_context()
    assert context.verify_mode == ssl.CERT_NONE
    assert memory_handshake(context, server_context, "localhost")


def test_legacy_context_refused_when_policy_forbids(
    write_policy: WritePolicy, server_context: ssl.SSLContext
) -> None:
    """allow_code_opt_out = false: the legacy context verifies anyway, and says so."""
    sslcustomize.inject(write_policy("allow_code_opt_out = false\n"))
    with pytest.warns(sslcustomize.LegacyContextWarning, match="refuses code opt-outs"):
        context = sslcustomize.create_legacy_context()
    with pytest.raises(sslcustomize.CertificateRejected):
        memory_handshake(context, server_context, "localhost")


def test_named_legacy_factory_for_one_module(write_policy: WritePolicy) -> None:
    """named_contexts["smtplib"] = create_legacy_context turns verification off for smtplib only."""
    sslcustomize.inject(write_policy("version = 1\n"))
    sslcustomize.named_contexts["smtplib"] = sslcustomize.create_legacy_context
    try:
        smtp = _module(
            "smtplib",
            "import ssl\ndef make():\n    return ssl._create_stdlib_context()\n",
        )
        with pytest.warns(sslcustomize.LegacyContextWarning):
            assert smtp.make().verify_mode == ssl.CERT_NONE
        assert ssl._create_stdlib_context().verify_mode == ssl.CERT_REQUIRED  # type: ignore[attr-defined]
    finally:
        del sslcustomize.named_contexts["smtplib"]


def test_caller_settings_keep_working(
    write_policy: WritePolicy, ca_file: Path, test_ca: trustme.CA, tmp_path: Path
) -> None:
    """ALPN, a client certificate and check_hostname=False set by the caller take effect."""
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    test_ca.issue_cert("localhost").configure_cert(server)
    server.set_alpn_protocols(["h2", "http/1.1"])
    server.verify_mode = ssl.CERT_REQUIRED
    server.load_verify_locations(cafile=str(ca_file))
    client_cert = tmp_path / "client.pem"
    test_ca.issue_cert("client@example").private_key_and_cert_chain_pem.write_to_path(
        str(client_cert)
    )
    client = ssl.create_default_context()
    client.set_alpn_protocols(["h2"])
    client.load_cert_chain(str(client_cert))
    client.check_hostname = False
    connection = memory_handshake(client, server, "not-the-name.example")
    assert connection.selected_alpn_protocol() == "h2"


def test_stdlib_factory_keeps_client_certificate(
    write_policy: WritePolicy, ca_file: Path, test_ca: trustme.CA, tmp_path: Path
) -> None:
    """ssl._create_stdlib_context(certfile=...) verifies and presents the client certificate."""
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    test_ca.issue_cert("localhost").configure_cert(server)
    server.verify_mode = ssl.CERT_REQUIRED
    server.load_verify_locations(cafile=str(ca_file))
    cert = tmp_path / "client.pem"
    test_ca.issue_cert("client@example").private_key_and_cert_chain_pem.write_to_path(str(cert))
    context = ssl._create_stdlib_context(certfile=str(cert))  # type: ignore[attr-defined]
    assert context.verify_mode == ssl.CERT_REQUIRED
    assert memory_handshake(context, server, "localhost").version()
    without_cert = ssl._create_stdlib_context()  # type: ignore[attr-defined]
    with pytest.raises(ssl.SSLError):
        memory_handshake(without_cert, server, "localhost").read(1)


def test_server_side_contexts_are_untouched(write_policy: WritePolicy) -> None:
    """Purpose.CLIENT_AUTH (a server's context) is built by ssl unchanged."""
    sslcustomize.inject(write_policy("version = 1\n"))
    server = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    assert not isinstance(server, sslcustomize.PolicyContext)
    assert server.verify_mode == ssl.CERT_NONE
    server2 = ssl._create_stdlib_context(purpose=ssl.Purpose.CLIENT_AUTH)  # type: ignore[attr-defined]
    assert not isinstance(server2, sslcustomize.PolicyContext)


def test_explicit_cafile_replaces_trust(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext
) -> None:
    """create_default_context(cafile=...) trusts exactly that file, as ssl documents."""
    sslcustomize.inject(write_policy("version = 1\n"))
    context = ssl.create_default_context(cafile=str(ca_file))
    assert isinstance(context, sslcustomize.PolicyContext)
    assert memory_handshake(context, server_context, "localhost")


def test_broken_trust_source_falls_back_to_system(
    write_policy: WritePolicy, capsys: pytest.CaptureFixture[str], server_context: ssl.SSLContext
) -> None:
    """A CA file that is not PEM: a policy error at load, the fallback, one line on stderr."""
    garbage = write_policy("this is not a certificate\n", name="corp.pem")
    sslcustomize.inject(write_policy(f"trust = ['{garbage}']\n"))
    context = ssl.create_default_context()
    context2 = ssl.create_default_context()
    assert context.verify_mode == context2.verify_mode == ssl.CERT_REQUIRED
    err = capsys.readouterr().err
    assert err.count("holds no certificate") == 1
    with pytest.raises(sslcustomize.CertificateRejected):
        memory_handshake(context, server_context, "localhost")


def test_caller_module_skips_ssl_and_sslcustomize_frames() -> None:
    """The name is the first frame outside ssl and sslcustomize."""
    assert _contexts.caller_module(1) == __name__
    assert sys.modules[__name__]


def test_http_client_shares_one_context_per_policy(write_policy: WritePolicy) -> None:
    """http.client's own calls share a context; other callers and a new policy get new ones."""
    import http.client

    sslcustomize.inject(write_policy("version = 1\n"))
    first = http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined]
    second = http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined]
    assert first is second
    assert isinstance(first, sslcustomize.PolicyContext)
    assert first.verify_mode == ssl.CERT_REQUIRED
    assert ssl._create_default_https_context() is not first
    sslcustomize.inject(write_policy("minimum_tls = '1.3'\n"))
    third = http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined]
    assert third is not first
    assert third.minimum_version == ssl.TLSVersion.TLSv1_3


def test_shared_context_refuses_every_change(write_policy: WritePolicy) -> None:
    """A shared context takes its own values again, and refuses anything else."""
    import http.client

    sslcustomize.inject(write_policy("version = 1\n"))
    shared = http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined]
    shared.set_alpn_protocols(["http/1.1"])
    shared.set_alpn_protocols(("http/1.1",))
    shared.check_hostname = True
    shared.verify_mode = ssl.CERT_REQUIRED
    for change in (
        lambda: setattr(shared, "check_hostname", False),
        lambda: setattr(shared, "verify_flags", shared.verify_flags | 0x200000),
        lambda: setattr(shared, "sslsocket_class", type("Other", (ssl.SSLSocket,), {})),
        lambda: shared.set_alpn_protocols(["h2"]),
        lambda: shared.load_verify_locations(cadata=trustme.CA().cert_pem.bytes().decode()),
    ):
        with pytest.raises(sslcustomize.SharedContextError):
            change()
    assert shared.check_hostname
    assert shared.verify_mode == ssl.CERT_REQUIRED


def test_https_handler_check_hostname_does_not_reach_http_client(
    write_policy: WritePolicy,
) -> None:
    """urllib's HTTPSHandler(check_hostname=False) changes a context of its own only."""
    import http.client
    import urllib.request

    sslcustomize.inject(write_policy("version = 1\n"))
    handler = urllib.request.HTTPSHandler(check_hostname=False)
    shared = http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined]
    own = handler._context  # type: ignore[attr-defined]
    if sys.version_info >= (3, 12):  # 3.12+ builds the handler's context at once
        assert own is not shared
        assert not own.check_hostname
    else:  # 3.10/3.11 pass check_hostname to each HTTPSConnection: its own context then
        assert own is None
        with pytest.warns(DeprecationWarning, match="check_hostname"):
            conn = http.client.HTTPSConnection("localhost", check_hostname=False)
        assert conn._context is not shared  # type: ignore[attr-defined]
        assert not conn._context.check_hostname  # type: ignore[attr-defined]
    assert shared.check_hostname


# ssl._create_stdlib_context's explicit arguments, as Python decides them (gh-114905).
_STDLIB_ARGUMENTS: list[dict[str, object]] = [
    {"check_hostname": True},
    {"cert_reqs": ssl.CERT_NONE, "check_hostname": True},
    {"cert_reqs": None, "check_hostname": True},
    {"cert_reqs": ssl.CERT_OPTIONAL, "check_hostname": True},
    {"cert_reqs": ssl.CERT_REQUIRED, "check_hostname": True},
    {"cert_reqs": None},
    {"cert_reqs": ssl.CERT_REQUIRED},
    {"cert_reqs": ssl.CERT_OPTIONAL},
    {"cert_reqs": ssl.CERT_NONE},
    {"check_hostname": False},
    {"cert_reqs": ssl.CERT_NONE, "check_hostname": False},
]


def _python_stdlib_context(**arguments: object) -> ssl.SSLContext | ValueError:
    original = _originals.ORIGINAL_CREATE_UNVERIFIED_CONTEXT
    try:
        return original(**arguments)  # type: ignore[no-any-return]
    except ValueError as error:
        return error


@pytest.mark.parametrize("arguments", _STDLIB_ARGUMENTS, ids=repr)
def test_stdlib_factory_follows_python_and_never_less(
    arguments: dict[str, object], write_policy: WritePolicy
) -> None:
    """Explicit cert_reqs/check_hostname: Python's ValueError, or at least Python's verification.

    Where Python raises (check_hostname=True with the default CERT_NONE), so does the hook;
    where Python verifies, the context verifies as Python's does and report mode's floor is
    Python's own (its connections refuse what Python refuses); where Python does not, the
    arguments the code passed are applied and the others keep the policy's verification.
    """
    python = _python_stdlib_context(**arguments)
    sslcustomize.inject(write_policy("version = 1\n"))
    create = ssl._create_stdlib_context  # type: ignore[attr-defined]
    if isinstance(python, ValueError):
        with pytest.raises(ValueError, match=str(python)):
            create(**arguments)
        return
    ours: PolicyContext = create(**arguments)
    python_verifies = python.verify_mode != ssl.CERT_NONE
    assert context_state(ours).python_verifies is python_verifies
    if "cert_reqs" in arguments and arguments["cert_reqs"] is not None:
        assert ours.verify_mode == arguments["cert_reqs"]
    else:
        assert ours.verify_mode == ssl.CERT_REQUIRED
    if "check_hostname" in arguments:
        assert ours.check_hostname is arguments["check_hostname"]
    else:
        assert ours.check_hostname is (ours.verify_mode != ssl.CERT_NONE)
    if python_verifies:
        assert ours.verify_mode == python.verify_mode
        assert ours.check_hostname >= python.check_hostname


def test_stdlib_factory_without_arguments_verifies(write_policy: WritePolicy) -> None:
    """smtplib's call (no arguments): Python does not verify (gh-91826), the policy does."""
    sslcustomize.inject(write_policy("version = 1\n"))
    context = ssl._create_stdlib_context()  # type: ignore[attr-defined]
    assert (context.verify_mode, context.check_hostname) == (ssl.CERT_REQUIRED, True)
    assert context_state(context).python_verifies is False


def test_context_state_records_each_setter_in_order() -> None:
    """Each recorded setter lands in the recipe, which the connection path reads once."""
    context = policy_context("tests")
    state = context_state(context)
    before = state.recipe
    context.set_alpn_protocols(["h2"])
    context.set_ciphers("ECDHE+AESGCM")
    assert state.recipe[len(before) :] == (
        ("set_alpn_protocols", (("h2",),)),
        ("set_ciphers", ("ECDHE+AESGCM",)),
    )


def test_a_context_made_directly_keeps_the_policy_it_was_made_under(
    write_policy: WritePolicy, server_context: ssl.SSLContext
) -> None:
    """PolicyContext(...) connects under the policy it was made under, not a later one.

    Its code opt-out is obeyed under the policy that allows it, though the policy now in
    effect refuses code opt-outs; the twin, made under the refusing policy, is rejected.
    """

    def opted_out() -> PolicyContext:
        context = PolicyContext(ssl.PROTOCOL_TLS_CLIENT)
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return context

    sslcustomize.inject(write_policy("allow_code_opt_out = true\n"))
    allowed = opted_out()
    sslcustomize.inject(write_policy("allow_code_opt_out = false\n"))
    refused = opted_out()
    assert memory_handshake(allowed, server_context, "localhost")
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(refused, server_context, "localhost")
    assert caught.value.reasons == ("unknown_issuer",)


def test_an_unjudgeable_native_failure_keeps_openssls_words(
    write_policy: WritePolicy, server_context: ssl.SSLContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    """OpenSSL refuses the chain and the verdict function fails: OpenSSL's reason is raised."""
    from sslcustomize._runtime._runtime import Runtime

    def broken(*args: object) -> None:
        raise RuntimeError("the verdict function is broken")

    sslcustomize.inject(write_policy("trust = ['system']\n"))
    monkeypatch.setattr(Runtime, "verdict", broken)
    with pytest.raises(sslcustomize.CertificateRejected) as caught:
        memory_handshake(ssl.create_default_context(), server_context, "localhost")
    assert caught.value.reasons == ("unknown_issuer",)
    assert caught.value.verify_code == 20


class _Direct:
    """Hand a context to ``_ssl`` directly, past the policy context's ``_wrap_bio``."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self.context = context

    def wrap_bio(
        self, incoming: ssl.MemoryBIO, outgoing: ssl.MemoryBIO, server_hostname: str | None
    ) -> object:
        return _ssl._SSLContext._wrap_bio(  # type: ignore[attr-defined]
            self.context, incoming, outgoing, False, server_hostname
        )


def _direct_handshake(context: ssl.SSLContext, server: ssl.SSLContext) -> object:
    return memory_handshake(cast("ssl.SSLContext", _Direct(context)), server, "localhost")


def test_policy_anchors_wait_until_the_store_is_used(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext
) -> None:
    """A context connected on the engine never registers the policy's anchors in its store.

    The engine trusts them (they are in the recipe); the context's own store stays without
    them, so a path past the policy (the context handed to ``_ssl`` directly) refuses even
    the legitimate server. Reading the store registers them: the same path then accepts it.
    """
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    context = ssl.create_default_context()
    assert isinstance(context, PolicyContext)
    state = context_state(context)
    assert state.deferred
    assert set(state.deferred) <= state.policy_steps
    assert set(state.deferred) <= set(state.recipe)
    assert memory_handshake(context, server_context, "localhost")  # on the engine
    assert state.deferred  # still not registered: nothing read or used the store
    with pytest.raises(ssl.SSLCertVerificationError, match="unable to get local issuer"):
        _direct_handshake(context, server_context)
    context.cert_store_stats()
    assert not state.deferred
    assert _direct_handshake(context, server_context)


@pytest.mark.parametrize("reader", ["get_ca_certs", "cert_store_stats"])
def test_reading_the_store_registers_the_policys_anchors(
    write_policy: WritePolicy, ca_file: Path, reader: str
) -> None:
    """get_ca_certs() and cert_store_stats() see the store the policy's anchors are in."""
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    context = ssl.create_default_context()
    assert isinstance(context, PolicyContext)
    getattr(context, reader)()
    assert not context_state(context).deferred


def test_an_unregistered_store_never_accepts_a_mitm(
    write_policy: WritePolicy, ca_file: Path
) -> None:
    """The attacker's server is refused on the engine, past the policy, and once registered."""
    attacker = trustme.CA()
    evil = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    attacker.issue_cert("localhost").configure_cert(evil)
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    context = ssl.create_default_context()
    with pytest.raises(sslcustomize.CertificateRejected):
        memory_handshake(context, evil, "localhost")
    with pytest.raises(ssl.SSLCertVerificationError):
        _direct_handshake(context, evil)
    context.get_ca_certs()
    with pytest.raises(ssl.SSLCertVerificationError):
        _direct_handshake(context, evil)
    with pytest.raises(sslcustomize.CertificateRejected):
        memory_handshake(context, evil, "localhost")


def test_a_connection_on_the_context_itself_registers_its_anchors(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext
) -> None:
    """A connection no engine carries (a debugging callback) runs on a complete store."""
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    context = ssl.create_default_context()
    assert isinstance(context, PolicyContext)
    context._msg_callback = lambda *_: None
    client = memory_handshake(context, server_context, "localhost")
    assert client._sslobj._raw.context is context  # type: ignore[attr-defined]
    assert not context_state(context).deferred


def test_a_context_connecting_again_unchanged_reuses_its_plan_and_engine(
    write_policy: WritePolicy, ca_file: Path, server_context: ssl.SSLContext
) -> None:
    """The same settings read again: the last connection's plan and engine, no lookup."""
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    context = ssl.create_default_context()
    assert isinstance(context, PolicyContext)
    first = memory_handshake(context, server_context, "localhost")
    remembered = context_state(context).last
    second = memory_handshake(context, server_context, "localhost")
    assert remembered is not None
    assert context_state(context).last is remembered
    assert second._sslobj._raw.context is first._sslobj._raw.context is remembered[-1]  # type: ignore[attr-defined]


def test_a_fresh_context_reading_the_same_settings_gets_the_runtime_s_engine(
    write_policy: WritePolicy, ca_file: Path, test_ca: trustme.CA
) -> None:
    """A context per connection: the same reading reuses the engine, another reading never does.

    The twin: a fresh context that only accepts TLS 1.3 is not given the engine the 1.2
    server connected on, and its connection fails as its own setting says.
    """
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    test_ca.issue_cert("localhost").configure_cert(server)
    server.maximum_version = ssl.TLSVersion.TLSv1_2
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    first = memory_handshake(ssl.create_default_context(), server, "localhost")
    second = memory_handshake(ssl.create_default_context(), server, "localhost")
    assert second._sslobj._raw.context is first._sslobj._raw.context  # type: ignore[attr-defined]
    stricter = ssl.create_default_context()
    stricter.minimum_version = ssl.TLSVersion.TLSv1_3
    with pytest.raises(ssl.SSLError, match=r"VERSION|PROTOCOL"):
        memory_handshake(stricter, server, "localhost")


def test_a_change_after_a_connection_is_never_met_with_the_last_engine(
    write_policy: WritePolicy, ca_file: Path, test_ca: trustme.CA
) -> None:
    """A stricter setting made since the last connection holds (TLS 1.3 against a 1.2 server)."""
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    test_ca.issue_cert("localhost").configure_cert(server)
    server.maximum_version = ssl.TLSVersion.TLSv1_2
    sslcustomize.inject(write_policy(f"trust = ['{ca_file}']\n"))
    context = ssl.create_default_context()
    assert isinstance(context, PolicyContext)
    assert memory_handshake(context, server, "localhost")
    context.minimum_version = ssl.TLSVersion.TLSv1_3
    with pytest.raises(ssl.SSLError, match=r"VERSION|PROTOCOL"):
        memory_handshake(context, server, "localhost")
    context._msg_callback = lambda *_: None
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    own = memory_handshake(context, server, "localhost")
    assert own._sslobj._raw.context is context  # type: ignore[attr-defined]
