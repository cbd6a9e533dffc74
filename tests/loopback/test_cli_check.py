"""check, trust and explain against real servers: reason codes, STARTTLS, edits, refusals."""

from __future__ import annotations

import json
import ssl
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

import _pki
from _fixtures import WritePolicy
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    _state.set_policy(None)
    code = main(["check", "--json", *argv])
    out = capsys.readouterr().out
    return code, json.loads(out) if out else {}


@pytest.fixture
def trust_root(
    pki: _pki.TestPKI, write_policy: WritePolicy, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> Path:
    """A process policy trusting only the test root."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    path = write_policy(f"trust = ['{root}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    return path


CASES = [
    "good", "expired", "not_yet_valid", "wrong_host", "self_signed", "unknown_issuer",
    "incomplete_chain", "weak_key", "weak_signature", "not_for_server_auth", "expired_wrong_host",
]  # fmt: skip


@pytest.mark.parametrize("case", CASES)
def test_check_names_exactly_the_expected_reasons(
    case: str,
    pki: _pki.TestPKI,
    https_server: StartServer,
    trust_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """check --json reports exactly the case's reason codes and exits 0 or 1."""
    host, port = https_server(pki[case], "localhost")
    code, document = _check(capsys, f"{host}:{port}")
    expected = pki[case].reasons
    assert set(document["reasons"]) == expected
    assert len(document["reasons"]) == len(expected)
    assert code == (0 if not expected else 1)
    assert document["verdict"] == ("verified" if not expected else "rejected")
    assert document["chain"][0]["pin"] == pki[case].pin
    assert document["rule"] == "default"
    for problem in document["problems"]:
        assert problem["fix"]


def test_check_text_output_for_self_signed(
    pki: _pki.TestPKI, https_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The text output shows the chain, the verdict and the exact trust command with the pin."""
    host, port = https_server(pki["self_signed"], "localhost")
    assert main(["check", f"https://{host}:{port}/path"]) == 1
    out = capsys.readouterr().out
    assert "rejected" in out
    assert f"sslcustomize trust {host}:{port}" in out
    assert pki["self_signed"].pin in out
    assert "\x1b[" not in out  # plain text when not a terminal


def test_check_incomplete_chain_names_the_missing_intermediate(
    pki: _pki.TestPKI,
    https_server: StartServer,
    trust_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An incomplete chain says which intermediate the server does not send."""
    host, port = https_server(pki["incomplete_chain"], "localhost")
    _, document = _check(capsys, f"{host}:{port}")
    (problem,) = document["problems"]
    issuer = pki["incomplete_chain"].leaf.issuer.rfc4514_string()
    assert "does not send its intermediate certificate" in problem["problem"]
    assert issuer.split("=", 1)[1].split(",")[0] in problem["problem"]


def test_check_not_yet_valid_mentions_the_clock(
    pki: _pki.TestPKI,
    https_server: StartServer,
    trust_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A not-yet-valid certificate's fix talks about the clock."""
    host, port = https_server(pki["not_yet_valid"], "localhost")
    _, document = _check(capsys, f"{host}:{port}")
    assert "your clock says" in document["problems"][0]["fix"]


@pytest.mark.parametrize("protocol", ["smtp", "imap", "pop3", "ftp"])
def test_check_starttls(
    protocol: str,
    pki: _pki.TestPKI,
    request: pytest.FixtureRequest,
    trust_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--starttls speaks each protocol before TLS; good verifies, self-signed is rejected."""
    start = request.getfixturevalue("ftps_server" if protocol == "ftp" else f"{protocol}_server")
    options = {} if protocol == "ftp" else {"starttls": True}
    good = start(pki["good"], "localhost", **options)
    bad = start(pki["self_signed"], "localhost", **options)
    code, document = _check(capsys, "--starttls", protocol, f"localhost:{good[1]}")
    assert (code, document["verdict"], document["starttls"]) == (0, "verified", protocol)
    code, document = _check(capsys, "--starttls", protocol, f"localhost:{bad[1]}")
    assert (code, document["reasons"]) == (1, ["self_signed"])


def test_check_implicit_tls_url_schemes(
    pki: _pki.TestPKI,
    smtp_server: StartServer,
    trust_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """smtps:// URLs connect with implicit TLS."""
    _, port = smtp_server(pki["good"], "localhost")
    code, document = _check(capsys, f"smtps://localhost:{port}")
    assert (code, document["port"]) == (0, port)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        ("closed", "refused"),
        ("unknown", "cannot resolve"),
        ("plain", "TLS handshake"),
    ],
)
def test_check_could_not_check(
    make: str, message: str, plain_tcp_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Closed port, unknown host and a plain-TCP server: exit 2 and one line, no traceback."""
    target = {"closed": "127.0.0.1:1", "unknown": "no-such-host.invalid:443"}.get(make)
    if target is None:
        _, port = plain_tcp_server()
        target = f"127.0.0.1:{port}"
    assert main(["check", "--timeout", "5", target]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


@pytest.mark.parametrize("target", ["ftp://x", "host:port", "host:0", ":443"])
def test_check_bad_target_is_usage_error(target: str, capsys: pytest.CaptureFixture[str]) -> None:
    """A target that cannot be parsed exits 2 with what to write instead."""
    assert main(["check", target]) == 2
    assert capsys.readouterr().err.startswith("sslcustomize: ")


def test_check_with_context_uses_its_rule(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """--context checks with the trust of that named context."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"[context.myapp]\ntrust = ['{root}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    _, port = https_server(pki["good"], "localhost")
    assert _check(capsys, f"localhost:{port}")[0] == 1
    code, document = _check(capsys, "--context", "myapp.mail", f"localhost:{port}")
    assert (code, document["rule"]) == (0, "context myapp")


@pytest.fixture
def user_policy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """The user layer's policy file, with comments the trust command must keep."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    path = tmp_path / "config" / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True)
    path.write_text("# my policy\nversion = 1\n\n# keep enforcing\nmode = 'enforce'\n")
    return path


def test_trust_pin_then_check_passes_and_comments_stay(
    pki: _pki.TestPKI,
    https_server: StartServer,
    user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """trust --pin adds an exception (comments kept); check then verifies the pinned host."""
    _, port = https_server(pki["self_signed"], "localhost")
    argv = ["trust", "--yes", "--scope", "user", "--reason", "OPS-1", "--days", "10"]
    assert main([*argv, f"localhost:{port}"]) == 0
    text = user_policy.read_text()
    assert text.startswith("# my policy\nversion = 1\n\n# keep enforcing\n")
    assert pki["self_signed"].pin in text
    assert 'reason = "OPS-1"' in text
    capsys.readouterr()
    code, document = _check(capsys, f"localhost:{port}")
    assert (code, document["rule"]) == (0, f"exception localhost:{port}")
    assert document["expires"] is not None


def test_trust_ca_for_one_host(
    pki: _pki.TestPKI,
    https_server: StartServer,
    user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """trust --ca saves the CA the server sends and trusts it for that host only."""
    _, port = https_server(pki["unknown_issuer"], "localhost")
    assert main(["trust", "--yes", "--ca", "--scope", "user", f"localhost:{port}"]) == 0
    saved = user_policy.parent / "ca" / "localhost.pem"
    assert ssl.PEM_cert_to_DER_cert(saved.read_text())
    capsys.readouterr()
    assert _check(capsys, f"localhost:{port}")[0] == 0
    _, other = https_server(pki["unknown_issuer"], "127.0.0.1")
    assert _check(capsys, f"127.0.0.1:{other}")[0] == 1


def test_trust_refuses_what_already_verifies(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, user_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A certificate that verifies needs no exception: refused unless --force."""
    _, port = https_server(pki["good"], "localhost")
    assert main(["trust", "--yes", "--scope", "user", f"localhost:{port}"]) == 1
    assert "nothing to trust" in capsys.readouterr().err
    assert main(["trust", "--yes", "--force", "--scope", "user", f"localhost:{port}"]) == 0


def test_trust_refused_when_system_locks_exceptions(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path, write_policy: WritePolicy,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The system layer's lock on exceptions refuses trust for lower scopes."""
    system = write_policy("lock = ['exception']\n")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    _, port = https_server(pki["self_signed"], "localhost")
    before = user_policy.read_text()
    assert main(["trust", "--yes", "--scope", "user", f"localhost:{port}"]) == 2
    assert "locks exceptions" in capsys.readouterr().err
    assert user_policy.read_text() == before


def test_trust_without_terminal_needs_yes(
    pki: _pki.TestPKI,
    https_server: StartServer,
    user_policy: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Without a terminal and without --yes nothing is written."""
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    _, port = https_server(pki["self_signed"], "localhost")
    before = user_policy.read_text()
    assert main(["trust", "--scope", "user", f"localhost:{port}"]) == 2
    assert "add --yes" in capsys.readouterr().err
    assert user_policy.read_text() == before


def test_trust_no_check_hostname_only_with_pin(capsys: pytest.CaptureFixture[str]) -> None:
    """--no-check-hostname with --ca is refused."""
    assert main(["trust", "--ca", "--no-check-hostname", "localhost:1"]) == 2
    assert "--pin only" in capsys.readouterr().err


def test_explain_shows_provenance_and_decision(
    write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """explain gives each setting's file:line and the rule a host gets."""
    pin = "sha256/" + "C" * 43 + "="
    policy = write_policy(
        "mode = 'enforce'\n[[exception]]\nhost = 'nas.example'\n"
        f"pin = ['{pin}']\nexpires = 2999-01-01\nreason = 'appliance'\n"
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    _state.set_policy(None)
    assert main(["explain", "--json", "nas.example:443"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["mode"] == {"value": "enforce", "origin": f"{policy}:1"}
    assert document["decision"]["rule"] == "exception nas.example"
    assert document["decision"]["pins"] == [pin]
    assert document["decision"]["expires"] == "2999-01-01"
    assert document["exceptions"][0]["origin"] == f"{policy}:2"
    _state.set_policy(None)
    assert main(["explain", "nas.example"]) == 0
    text = capsys.readouterr().out
    assert "exception nas.example" in text
    assert f"{policy}:1" in text


def test_check_names_every_problem_behind_an_unknown_issuer(
    pki: _pki.TestPKI, https_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """Untrusted, expired and misnamed: all three are named, not just the first."""
    _, port = https_server(pki["expired_wrong_host"], "localhost")
    code, document = _check(capsys, f"localhost:{port}")
    assert code == 1
    assert document["reasons"] == ["unknown_issuer", "expired", "hostname_mismatch"]


def test_check_notes_a_ca_that_certifi_lacks(
    pki: _pki.TestPKI,
    https_server: StartServer,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A CA in the system store but not in certifi: the note explains requests' failure."""
    pytest.importorskip("certifi")
    bundle = tmp_path / "system.pem"
    bundle.write_bytes(pki.root_pem)
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    monkeypatch.setenv("SSL_CERT_DIR", str(tmp_path / "empty"))
    _, port = https_server(pki["good"], "localhost")
    code, document = _check(capsys, f"localhost:{port}")
    assert code == 0
    assert any("not with certifi" in note for note in document["notes"])


def test_trust_edits_the_users_existing_layer_by_default(
    pki: _pki.TestPKI,
    https_server: StartServer,
    user_policy: Path,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
) -> None:
    """Inside a venv with only a user policy, trust without --scope edits the user's file."""
    monkeypatch.setattr("sys.prefix", str(tmp_path / "venv"))
    _, port = https_server(pki["self_signed"], "localhost")
    assert main(["trust", "--yes", f"localhost:{port}"]) == 0
    assert pki["self_signed"].pin in user_policy.read_text()
    assert not (tmp_path / "venv").exists()


def test_unknown_issuer_advice_depends_on_what_the_server_sends(
    pki: _pki.TestPKI, https_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """With the CA sent, advise trust --ca; without it, advise pinning the server's key."""
    _, sent = https_server(pki["unknown_issuer"], "localhost")  # leaf + its own root
    _, unsent = https_server(pki["good"], "localhost")  # leaf + intermediate, root not sent
    _, document = _check(capsys, f"localhost:{sent}")
    assert f"sslcustomize trust --ca localhost:{sent}" in document["problems"][0]["fix"]
    _, document = _check(capsys, f"localhost:{unsent}")
    assert document["reasons"] == ["unknown_issuer"]
    fix = document["problems"][0]["fix"]
    assert f"trust --ca localhost:{unsent}" not in fix  # the CA is not sent: no --ca for this host
    assert f"pin its key: sslcustomize trust localhost:{unsent}" in fix


def test_check_verifies_with_the_flags_of_a_policy_context(
    pki: _pki.TestPKI,
    https_server: StartServer,
    trust_root: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """check judges with a client context's verify flags (3.13's strict ones too)."""
    from sslcustomize._cli import _check as check_command
    from sslcustomize._connection._contexts import policy_context
    from sslcustomize._diagnosis._analysis import analyse

    seen: list[Any] = []

    def spy(plan: Any, chain: tuple[bytes, ...], **options: Any) -> Any:
        seen.append(plan)
        return analyse(plan, chain, **options)

    monkeypatch.setattr(check_command, "analyse", spy)
    _, port = https_server(pki["good"], "localhost")
    assert _check(capsys, f"localhost:{port}")[0] == 0
    reference = policy_context("sslcustomize.check")
    assert seen[0].verify_flags == int(reference.verify_flags)
    assert seen[0].common_name == reference.hostname_checks_common_name
