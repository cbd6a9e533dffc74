"""A caller's context settings reach the private copies (engines) the policy connects with.

Report mode, pins and ``ca`` exceptions connect on an engine rebuilt from what the caller set
(:mod:`sslcustomize._decision._engine`). Everything a caller can set must arrive there:
the negotiated version, cipher, ALPN protocol, group and signature algorithm are compared
with and without
the hook, in fresh interpreters started through the ``.pth`` hook. A setter a newer Python
adds is carried without anyone listing it, and the member table fails here until someone does.
"""

from __future__ import annotations

import contextlib
import json
import ssl
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import trustme

import _pki
from _fixtures import WritePolicy, run_python
from _servers import serve_tls
from sslcustomize._connection._contexts import PolicyContext, context_state, policy_context
from sslcustomize._decision import _recipe
from sslcustomize._decision._engine import (
    EngineSpec,
    UncarriedSettingError,
    build_engine,
    settings_of,
)
from sslcustomize._decision._recipe import unclassified_members
from sslcustomize._support._sslclass import PYTHON_SSLCONTEXT

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

# The client of every run: one connection per scenario, each on a fresh default context that
# trusts the test CA (as code that passes cafile= does), then what the connection negotiated.
CLIENT = """
import json, socket, ssl, sys

config = json.loads(sys.argv[1])
context_class = ssl.SSLContext


def chacha12(c):
    c.maximum_version = ssl.TLSVersion.TLSv1_2
    c.set_ciphers("ECDHE+CHACHA20")


def client_sigalgs(c):
    c.load_cert_chain(config["client"])
    c.set_client_sigalgs("rsa_pss_rsae_sha384")


def all_new(c):
    c.set_groups("secp384r1")
    c.set_ciphersuites("TLS_CHACHA20_POLY1305_SHA256")
    c.set_server_sigalgs("rsa_pss_rsae_sha512")


SETUPS = {
    "default": lambda c: None,
    "tls12_chacha20": chacha12,
    "options_no_tls13": lambda c: setattr(c, "options", c.options | ssl.OP_NO_TLSv1_3),
    "tls13_only": lambda c: setattr(c, "minimum_version", ssl.TLSVersion.TLSv1_3),
    "alpn": lambda c: c.set_alpn_protocols(["h2"]),
    "ecdh_curve": lambda c: c.set_ecdh_curve("secp384r1"),
}
if hasattr(context_class, "set_groups"):  # Python 3.15
    SETUPS["groups"] = lambda c: c.set_groups("secp384r1")
    SETUPS["ciphersuites"] = lambda c: c.set_ciphersuites("TLS_CHACHA20_POLY1305_SHA256")
    SETUPS["server_sigalgs"] = lambda c: c.set_server_sigalgs("rsa_pss_rsae_sha512")
    SETUPS["client_sigalgs"] = client_sigalgs
    SETUPS["all_new"] = all_new


def connect(port, setup):
    context = ssl.create_default_context(cafile=config["ca"])
    setup(context)
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="localhost") as tls:
                found = {
                    "version": tls.version(),
                    "cipher": tls.cipher()[0],
                    "alpn": tls.selected_alpn_protocol(),
                }
                for name in ("group", "server_sigalg", "client_sigalg"):
                    method = getattr(tls, name, None)
                    if method is not None:
                        found[name] = method()
                gate = tls._sslobj
                found["engine"] = getattr(gate, "_raw", gate).context is not context
                tls.sendall(b"GET / HTTP/1.0\\r\\nHost: localhost\\r\\n\\r\\n")
                found["status"] = tls.recv(64).split(b" ")[1].decode()
                return found
    except ssl.SSLError as error:
        return {"error": type(error).__name__}


results = {}
for name, setup in SETUPS.items():
    results[name] = connect(config["port"], setup)
    if name in ("ecdh_curve", "groups"):  # a server with only P-256: no group in common
        results[name + "_p256_server"] = connect(config["p256_port"], setup)
print(json.dumps(results))
"""


@pytest.fixture(scope="module")
def rsa_ca() -> trustme.CA:
    """An RSA CA, for RSA keys: they let the signature algorithm be chosen (PSS hashes)."""
    return trustme.CA(key_type=trustme.KeyType.RSA)


def _server(ca: trustme.CA, *, groups: str | None = None) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost", "127.0.0.1", key_type=trustme.KeyType.RSA).configure_cert(context)
    context.set_alpn_protocols(["x-other", "http/1.1", "h2"])
    context.verify_mode = ssl.CERT_OPTIONAL  # client_sigalgs: a client certificate if any
    ca.configure_trust(context)
    if groups is not None:
        context.set_ecdh_curve(groups)
    return context


@pytest.fixture(scope="module")
def servers(rsa_ca: trustme.CA) -> Iterator[tuple[int, int]]:
    """A server that accepts every group and one that has only P-256."""
    with (
        serve_tls(_server(rsa_ca)) as main,
        serve_tls(_server(rsa_ca, groups="prime256v1")) as p256,
    ):
        yield main.port, p256.port


def _negotiated(
    servers: tuple[int, int], rsa_ca: trustme.CA, tmp_path: Path, policy: Path | None
) -> dict[str, dict[str, Any]]:
    ca = tmp_path / "ca.pem"
    rsa_ca.cert_pem.write_to_path(str(ca))
    client = tmp_path / "client.pem"
    leaf = rsa_ca.issue_cert("client@example", key_type=trustme.KeyType.RSA)
    leaf.private_key_and_cert_chain_pem.write_to_path(str(client))
    config = {"ca": str(ca), "client": str(client), "port": servers[0], "p256_port": servers[1]}
    env = {"SSLCUSTOMIZE_POLICY": str(policy)} if policy is not None else {}
    code = f"import sys; sys.argv[1:] = [{json.dumps(config)!r}]\n" + CLIENT
    result = run_python(code, env=env)
    found: dict[str, dict[str, Any]] = json.loads(result.stdout)
    return found


def _policy(kind: str, rsa_ca: trustme.CA, tmp_path: Path, write_policy: WritePolicy) -> Path:
    ca = tmp_path / "policy-ca.pem"
    rsa_ca.cert_pem.write_to_path(str(ca))
    if kind == "report":
        return write_policy(f"mode = 'report'\ntrust = ['{ca}']\n[report]\nsink = 'none'\n")
    if kind == "ca":
        return write_policy(f"[[exception]]\nhost = 'localhost'\nca = ['{ca}']\nreason = 'test'\n")
    raise AssertionError(kind)


@pytest.fixture(scope="module")
def baseline(
    servers: tuple[int, int], rsa_ca: trustme.CA, tmp_path_factory: pytest.TempPathFactory
) -> dict[str, dict[str, Any]]:
    """What Python alone negotiates for each scenario (no policy: the hook stays idle)."""
    found = _negotiated(servers, rsa_ca, tmp_path_factory.mktemp("baseline"), None)
    # Each scenario changes what is negotiated, or the comparison below would prove nothing.
    default = found["default"]
    assert default["version"] == "TLSv1.3"
    assert "CHACHA20" not in default["cipher"]
    assert default["alpn"] is None
    assert "CHACHA20" in found["tls12_chacha20"]["cipher"]
    assert found["tls12_chacha20"]["version"] == "TLSv1.2"
    assert found["options_no_tls13"]["version"] == "TLSv1.2"
    assert found["alpn"]["alpn"] == "h2"
    assert found["ecdh_curve_p256_server"] == {"error": "SSLError"}
    if "groups" in found:
        assert default["group"] != "secp384r1"
        assert found["groups"]["group"] == "secp384r1"
        assert found["groups_p256_server"] == {"error": "SSLError"}
        assert found["ciphersuites"]["cipher"] == "TLS_CHACHA20_POLY1305_SHA256"
        assert default["server_sigalg"] != "rsa_pss_rsae_sha512"
        assert found["server_sigalgs"]["server_sigalg"] == "rsa_pss_rsae_sha512"
        assert found["client_sigalgs"]["client_sigalg"] == "rsa_pss_rsae_sha384"
        assert found["all_new"]["group"] == "secp384r1"
    return found


@pytest.mark.parametrize("kind", ["report", "ca", "pin"])
def test_negotiated_as_without_the_hook(
    kind: str,
    servers: tuple[int, int],
    rsa_ca: trustme.CA,
    baseline: dict[str, dict[str, Any]],
    tmp_path: Path,
    write_policy: WritePolicy,
) -> None:
    """Report mode, a ca and a pin exception negotiate exactly what Python alone negotiates."""
    if kind == "pin":
        # The pin of the key the server presents (trustme issues a new key per certificate,
        # so the server's own leaf is read from the wire first).
        pem = ssl.get_server_certificate(("127.0.0.1", servers[0]))
        policy = write_policy(
            f"[[exception]]\nhost = 'localhost'\npin = ['{_pki.spki_pin(pem.encode())}']\n"
            "mode = 'report'\nreason = 'test'\n"
        )
    else:
        policy = _policy(kind, rsa_ca, tmp_path, write_policy)
    found = _negotiated(servers, rsa_ca, tmp_path, policy)
    for scenario, alone in baseline.items():
        got, expected = dict(found[scenario]), dict(alone)
        if "error" not in got:
            assert got.pop("engine") is True, (scenario, "connected on the caller's context")
            assert expected.pop("engine") is False
        # A pinned host in report mode gets the client certificate where Python would send it
        # (docs/security.md, mutual TLS with pins): its signature algorithm is Python's too.
        assert got == expected, scenario


# --- The mechanism, on every Python --------------------------------------------------------------


def test_every_sslcontext_member_is_classified() -> None:
    """Each member of this Python's SSLContext is known: carried, read-only, reader or server.

    A member a newer Python adds is carried all the same (recorded or copied generically, see
    the next tests); this test fails on that Python so that a person decides what it is.
    """
    unknown = unclassified_members(PYTHON_SSLCONTEXT)
    assert not unknown, (
        f"ssl.SSLContext on Python {sys.version_info[:2]} has members sslcustomize has not "
        f"classified: {sorted(unknown)}. Add each to REPLACING_STEPS, ADDITIVE_STEPS, "
        "COPIED_PROPERTIES or UNCOPIED_MEMBERS in sslcustomize/_decision/_recipe.py"
    )


def _recipes() -> dict[str, Callable[[ssl.SSLContext], None]]:
    def ciphers(context: ssl.SSLContext) -> None:
        context.set_ciphers("ECDHE+CHACHA20:@SECLEVEL=1")

    def versions(context: ssl.SSLContext) -> None:
        context.minimum_version = ssl.TLSVersion.TLSv1_2
        context.maximum_version = ssl.TLSVersion.TLSv1_2

    def flags(context: ssl.SSLContext) -> None:
        context.options |= ssl.OP_NO_TICKET
        context.verify_flags |= ssl.VERIFY_X509_TRUSTED_FIRST
        context.hostname_checks_common_name = True
        context.post_handshake_auth = True

    recipes: dict[str, Callable[[ssl.SSLContext], None]] = {
        "ciphers": ciphers,
        "versions": versions,
        "flags": flags,
    }
    if hasattr(ssl.SSLContext, "set_ciphersuites"):  # Python 3.15

        def ciphersuites(context: ssl.SSLContext) -> None:
            context.set_ciphersuites("TLS_CHACHA20_POLY1305_SHA256")  # type: ignore[attr-defined]

        recipes["ciphersuites"] = ciphersuites
    return recipes


_READABLE = (
    "options",
    "minimum_version",
    "maximum_version",
    "hostname_checks_common_name",
    "post_handshake_auth",
    "keylog_filename",
    "security_level",
)


@pytest.mark.parametrize("recipe", sorted(_recipes()))
@pytest.mark.parametrize("spec", ["report", "deferred", "extra_ca"])
def test_engine_reads_back_as_the_callers_context(
    recipe: str, spec: str, test_ca: trustme.CA
) -> None:
    """Every readable setting of an engine equals the caller's (ciphers listed one by one)."""
    context = policy_context("tests")
    _recipes()[recipe](context)
    state = context_state(context)
    settings = settings_of(context, state.recipe, state.python_recipe())
    specs = {
        "report": EngineSpec(python=True),
        "deferred": EngineSpec(verify=False),
        "extra_ca": EngineSpec(extra_anchors=(test_ca.cert_pem.bytes(),)),
    }

    def load_extra(engine: ssl.SSLContext, anchors: tuple[Any, ...]) -> None:
        for pem in anchors:
            engine.load_verify_locations(cadata=pem.decode())

    engine = build_engine(settings, specs[spec], load_extra)
    for name in _READABLE:
        theirs, ours = getattr(context, name), getattr(engine, name)
        if name == "options" and spec == "deferred":
            ours &= ~ssl.OP_NO_RENEGOTIATION  # judged after the handshake: one chain only
        assert ours == theirs, name
    assert [c["name"] for c in engine.get_ciphers()] == [c["name"] for c in context.get_ciphers()]


def test_a_setter_nobody_listed_is_recorded_and_replayed() -> None:
    """A call of an unclassified method is kept as called and replayed in call order."""
    recipe: tuple[_recipe.Step, ...] = ()
    for value in ("A", "B", "A"):
        recipe = _recipe.add_step(recipe, _recipe.generic_step("set_future", (value,), {}))
    assert recipe == (("set_future", ("B",)), ("set_future", ("A",)))
    keyword = _recipe.generic_step("set_future", ([1, 2],), {"flag": True})
    assert keyword == ("set_future", ((1, 2), _recipe.Keywords((("flag", True),))))
    unhashable = _recipe.generic_step("set_future", ({"a": 1},), {})
    assert unhashable == (_recipe.UNCARRIED, ("set_future",))


def test_a_setting_that_cannot_be_carried_builds_no_engine() -> None:
    """An unhashable argument of an unlisted setter: no engine is built (the connection fails)."""
    context = policy_context("tests")
    recipe = (*context_state(context).recipe, (_recipe.UNCARRIED, ("set_future",)))
    settings = settings_of(context, recipe)
    with pytest.raises(UncarriedSettingError, match=r"SSLContext\.set_future\(\)"):
        build_engine(settings, EngineSpec(verify=False), lambda _c, _a: None)


FUTURE = """
import socket, ssl, sys

# A setter a newer Python would add: implemented in C, so nothing of Python's sees the call.
def set_future_ciphers(self, spec):
    ssl._ssl._SSLContext.set_ciphers(self, spec)

def set_future_options(self, mapping):
    pass

ssl.SSLContext.set_future_ciphers = set_future_ciphers
ssl.SSLContext.set_future_options = set_future_options
import site; site.main()  # now the .pth files: the hook meets this Python's SSLContext

port, ca = int(sys.argv[1]), sys.argv[2]
context = ssl.create_default_context(cafile=ca)
context.maximum_version = ssl.TLSVersion.TLSv1_2
context.set_future_ciphers("ECDHE+CHACHA20")
if len(sys.argv) > 3:
    context.set_future_options({"unhashable": True})
try:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="localhost") as tls:
            print(tls.cipher()[0])
except ssl.SSLError as error:
    print(type(error).__name__, error)
if "sslcustomize._decision._engine" in sys.modules:
    from sslcustomize._decision._recipe import unclassified_members
    from sslcustomize._support._sslclass import PYTHON_SSLCONTEXT
    print(sorted(unclassified_members(PYTHON_SSLCONTEXT)))
"""


@pytest.mark.parametrize("policy_kind", [None, "report", "ca"])
def test_a_newer_pythons_setter_is_carried_through_the_hook(
    policy_kind: str | None,
    servers: tuple[int, int],
    rsa_ca: trustme.CA,
    tmp_path: Path,
    write_policy: WritePolicy,
) -> None:
    """A setter this code has never heard of reaches the engine; the member table names it."""
    ca = tmp_path / "ca.pem"
    rsa_ca.cert_pem.write_to_path(str(ca))
    env = {}
    if policy_kind is not None:
        env["SSLCUSTOMIZE_POLICY"] = str(_policy(policy_kind, rsa_ca, tmp_path, write_policy))
    code = f"import sys; sys.argv[1:] = [{str(servers[0])!r}, {str(ca)!r}]\n" + FUTURE
    lines = run_python(code, env=env, flags=("-S",)).stdout.splitlines()
    assert "CHACHA20" in lines[0]
    if policy_kind is not None:
        assert lines[1] == "['set_future_ciphers', 'set_future_options']"


@pytest.mark.parametrize("attacker", [False, True])
def test_an_uncarried_setting_connects_on_the_callers_own_context(
    attacker: bool,
    servers: tuple[int, int],
    rsa_ca: trustme.CA,
    tmp_path: Path,
    write_policy: WritePolicy,
) -> None:
    """A setting no copy can carry: the caller's own context connects, verified, and it is said.

    Report mode cannot copy the context, so it relaxes nothing for it: the legitimate server is
    reached with the caller's settings, a MITM with the attacker's CA is refused as Python
    alone refuses it.
    """
    ca = tmp_path / "ca.pem"
    rsa_ca.cert_pem.write_to_path(str(ca))
    policy = _policy("report", rsa_ca, tmp_path, write_policy)
    with contextlib.ExitStack() as stack:
        port = servers[0]
        if attacker:
            mitm = trustme.CA(key_type=trustme.KeyType.RSA)
            port = stack.enter_context(serve_tls(_server(mitm))).port
        argv = [str(port), str(ca), "unhashable"]
        code = f"import sys; sys.argv[1:] = {argv!r}\n" + FUTURE
        hooked = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(policy)}, flags=("-S",))
        alone = run_python(code, flags=("-S",))
    if attacker:
        assert alone.stdout.startswith("SSLCertVerificationError"), alone.stdout
        assert hooked.stdout.startswith("CertificateRejected"), hooked.stdout
    else:
        assert "CHACHA20" in alone.stdout.splitlines()[0]
        assert "CHACHA20" in hooked.stdout.splitlines()[0]
    assert "SSLContext.set_future_options() with arguments that cannot be kept" in hooked.stderr
    assert "report mode and exceptions do not apply to it" in hooked.stderr


def test_policy_contexts_wrap_every_recorded_setter() -> None:
    """Each setter this Python has is wrapped, so that its calls are recorded."""
    for name in _recipe.recorded_methods(PYTHON_SSLCONTEXT):
        assert name in vars(PolicyContext), name
