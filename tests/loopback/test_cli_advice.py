"""trust keeps what works; one scope rule; every reason; no tracebacks; plain-text ports."""

from __future__ import annotations

import datetime as dt
import json
import os
import ssl
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import AuthorityInformationAccessOID

import _pki
from sslcustomize._cli import main
from sslcustomize._decision._decide import decide
from sslcustomize._diagnosis._analysis import every_reason
from sslcustomize._runtime import _state
from sslcustomize._support._paths import unscoped_policy
from sslcustomize._verdict._reasons import diagnose
from sslcustomize._verdict._verify import Check

if TYPE_CHECKING:
    from conftest import StartServer


@pytest.fixture
def process_policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A process policy (SSLCUSTOMIZE_POLICY) that trust edits by the scope rule."""
    path = tmp_path / "process.toml"
    path.write_text("version = 1\n", encoding="utf-8")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    return path


def _verdict(capsys: pytest.CaptureFixture[str], target: str) -> str:
    _state.set_policy(None)
    capsys.readouterr()
    main(["check", "--json", target])
    verdict: str = json.loads(capsys.readouterr().out)["verdict"]
    return verdict


# --- Item 2: trust never breaks what already works -----------------------------------------------


def test_trusting_a_second_service_keeps_the_first(
    pki: _pki.TestPKI, https_server: StartServer, process_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Two services of one host with different keys: after trusting both, both verify."""
    _, web = https_server(pki["self_signed"], "localhost")
    _, mail = https_server(pki["unknown_issuer"], "localhost")
    assert main(["trust", "--yes", f"localhost:{web}"]) == 0
    assert main(["trust", "--yes", f"localhost:{mail}"]) == 0
    assert _verdict(capsys, f"localhost:{web}") == "verified"
    assert _verdict(capsys, f"localhost:{mail}") == "verified"


def test_retrust_replaces_the_entry(
    pki: _pki.TestPKI, https_server: StartServer, process_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Re-running trust for the same host and port replaces its exception, no duplicate."""
    _, port = https_server(pki["self_signed"], "localhost")
    assert main(["trust", "--yes", "--reason", "first", f"localhost:{port}"]) == 0
    assert main(["trust", "--yes", "--force", "--reason", "again", f"localhost:{port}"]) == 0
    text = process_policy.read_text(encoding="utf-8")
    assert text.count("[[exception]]") == 1
    assert 'reason = "again"' in text
    assert "replaced the exception" in capsys.readouterr().out


def test_trust_warns_when_it_hides_another_exception(
    pki: _pki.TestPKI, https_server: StartServer, process_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A port-less exception for the host is hidden on the new port: trust says so."""
    _, port = https_server(pki["self_signed"], "localhost")
    process_policy.write_text(
        f"version = 1\n[[exception]]\nhost = 'localhost'\npin = ['{pki['good'].pin}']\n"
        "reason = 'the web UI'\n",
        encoding="utf-8",
    )
    assert main(["trust", "--yes", f"localhost:{port}"]) == 0
    err = capsys.readouterr().err
    assert f"exception for localhost:{port}" in err
    assert "hides the one for localhost" in err


def test_no_shadow_warning_for_separate_ports(
    pki: _pki.TestPKI, https_server: StartServer, process_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Exceptions for two ports of one host hide nothing: no warning (the twin above)."""
    _, port = https_server(pki["self_signed"], "localhost")
    process_policy.write_text(
        f"version = 1\n[[exception]]\nhost = 'localhost:1'\npin = ['{pki['good'].pin}']\n"
        "reason = 'port 1'\n",
        encoding="utf-8",
    )
    assert main(["trust", "--yes", f"localhost:{port}"]) == 0
    assert "hides" not in capsys.readouterr().err


# --- Item 3: an expiry in the past ---------------------------------------------------------------


@pytest.mark.parametrize("when", [["--expires", "2000-01-01"], ["--days", "0"]])
def test_trust_refuses_an_exception_dead_on_arrival(
    when: list[str], pki: _pki.TestPKI, https_server: StartServer, process_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """--expires not after today (or --days 0) exits 2 and writes nothing."""
    _, port = https_server(pki["self_signed"], "localhost")
    before = process_policy.read_text(encoding="utf-8")
    assert main(["trust", "--yes", *when, f"localhost:{port}"]) == 2
    err = capsys.readouterr().err
    assert "nothing was written" in err or "at least one day" in err
    assert process_policy.read_text(encoding="utf-8") == before


def test_trust_accepts_tomorrow(
    pki: _pki.TestPKI, https_server: StartServer, process_policy: Path
) -> None:
    """--expires tomorrow is written (the twin of the refusal)."""
    _, port = https_server(pki["self_signed"], "localhost")
    tomorrow = (dt.date.today() + dt.timedelta(days=1)).isoformat()
    assert main(["trust", "--yes", "--expires", tomorrow, f"localhost:{port}"]) == 0
    assert f"expires = {tomorrow}" in process_policy.read_text(encoding="utf-8")


# --- Item 5: one scope rule ----------------------------------------------------------------------


@pytest.fixture
def in_venv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Pretend to run inside a virtual environment at tmp_path/venv; return its policy path."""
    monkeypatch.setattr("sys.prefix", str(tmp_path / "venv"))
    return tmp_path / "venv" / "etc" / "sslcustomize" / "policy.toml"


def _user_policy() -> Path:
    return Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"


def test_scope_rule_order(in_venv: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SSLCUSTOMIZE_POLICY, then the venv's existing file, then the user's, then venv."""
    assert unscoped_policy() == ("venv", str(in_venv))
    user = _user_policy()
    user.parent.mkdir(parents=True)
    user.write_text("version = 1\n")
    assert unscoped_policy() == ("user", str(user))
    in_venv.parent.mkdir(parents=True)
    in_venv.write_text("version = 1\n")
    assert unscoped_policy() == ("venv", str(in_venv))
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(tmp_path / "p.toml"))
    assert unscoped_policy() == ("process", str(tmp_path / "p.toml"))


def test_enable_trust_disable_act_on_one_file(
    in_venv: Path, pki: _pki.TestPKI, https_server: StartServer,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Inside a venv: enable writes the venv's file, trust edits it, disable moves it aside."""
    _, port = https_server(pki["self_signed"], "localhost")
    assert main(["enable"]) == 0
    assert in_venv.exists()
    assert main(["trust", "--yes", f"localhost:{port}"]) == 0
    assert pki["self_signed"].pin in in_venv.read_text(encoding="utf-8")
    assert main(["disable"]) == 0
    assert not in_venv.exists()
    assert Path(str(in_venv) + ".disabled").exists()
    assert not _user_policy().exists()


def test_disable_refuses_the_process_policy(
    process_policy: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """With SSLCUSTOMIZE_POLICY set and no --scope, disable says to unset it (exit 2)."""
    assert main(["disable"]) == 2
    assert "unset the variable" in capsys.readouterr().err
    assert process_policy.exists()


# --- Item 6 and 7: every reason, and honest issuer reasons ---------------------------------------


def test_every_reason_names_all_problems(pki: _pki.TestPKI) -> None:
    """An expired, misnamed certificate from an unknown CA has all three reasons."""
    from sslcustomize._runtime._state import current_policy, current_runtime

    case = pki["expired_wrong_host"]
    decision = decide(current_policy(), host="localhost", port=443)
    runtime = current_runtime()
    plan = Check(runtime=runtime, decision=decision, name="t", host="localhost", port=443)
    chain = _der(case.chain_pem)
    assert set(every_reason(plan, chain)) == {"unknown_issuer", "expired", "hostname_mismatch"}
    good = pki["self_signed"]
    pinned = decide(current_policy(), host="localhost", port=443)
    plan = Check(runtime=runtime, decision=pinned, name="t", host="localhost", port=443)
    assert every_reason(plan, _der(good.chain_pem)) == ("self_signed",)


def _der(pem: bytes) -> tuple[bytes, ...]:
    marker = b"-----END CERTIFICATE-----"
    blocks = [block.strip() + b"\n" + marker for block in pem.split(marker) if block.strip()]
    return tuple(ssl.PEM_cert_to_DER_cert(block.decode()) for block in blocks)


def _certificate(*, issuer_name: str, subject_name: str, aia: bool) -> bytes:
    key = ec.generate_private_key(ec.SECP256R1())
    now = dt.datetime.now(dt.timezone.utc)
    builder = (
        x509.CertificateBuilder()
        .subject_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, subject_name)]))
        .issuer_name(x509.Name([x509.NameAttribute(x509.NameOID.COMMON_NAME, issuer_name)]))
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - dt.timedelta(days=1))
        .not_valid_after(now + dt.timedelta(days=30))
    )
    if aia:
        where = x509.UniformResourceIdentifier("http://ca.invalid/issuer.der")
        access = x509.AccessDescription(AuthorityInformationAccessOID.CA_ISSUERS, where)
        builder = builder.add_extension(x509.AuthorityInformationAccess([access]), critical=False)
    return builder.sign(key, hashes.SHA256()).public_bytes(serialization.Encoding.DER)


def test_self_issued_top_certificate_is_never_incomplete_chain() -> None:
    """An untrusted self-issued certificate with AIA is unknown_issuer; a leaf with AIA is not."""
    root = _certificate(issuer_name="Private Root", subject_name="Private Root", aia=True)
    leaf = _certificate(issuer_name="Some Intermediate", subject_name="host", aia=True)
    bare = _certificate(issuer_name="Some Intermediate", subject_name="host", aia=False)
    judged = {
        name: diagnose(verify_code=20, verify_message="x", chain=[der], host="h", port=1).reasons
        for name, der in (("root", root), ("leaf", leaf), ("bare", bare))
    }
    assert judged == {
        "root": ("unknown_issuer",),
        "leaf": ("incomplete_chain",),
        "bare": ("unknown_issuer",),
    }


# --- Item 4: a port that does not speak TLS ------------------------------------------------------


def test_check_says_a_port_speaks_plain_smtp(
    pki: _pki.TestPKI, smtp_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """check against SMTP without --starttls suggests --starttls smtp."""
    host, port = smtp_server(pki["self_signed"], "127.0.0.1", starttls=True)
    assert main(["check", f"{host}:{port}"]) == 2
    assert "try --starttls smtp" in capsys.readouterr().err


def test_check_says_a_port_answers_in_plain_text(
    plain_tcp_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """A plain-text reply that is no mail greeting: 'answered in plain text', PROTO hint."""
    host, port = plain_tcp_server(reply=b"HTTP/1.1 400 Bad Request\r\n\r\n")
    assert main(["check", "--timeout", "3", f"{host}:{port}"]) == 2
    err = capsys.readouterr().err
    assert "answered in plain text" in err
    assert "--starttls PROTO" in err


# --- Item 9: no tracebacks -----------------------------------------------------------------------


def test_json_into_a_closed_pipe_has_no_traceback(tmp_path: Path) -> None:
    """`explain --json | head -c 1`: no traceback on stderr, SIGPIPE's status."""
    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    big = tmp_path / "policy.toml"
    big.write_text(
        "version = 1\n"
        + "".join(
            f"[[exception]]\nhost = 'h{i}.example'\npin = ['sha256/{'A' * 43}=']\nreason = 'r'\n"
            for i in range(300)
        )
    )
    env["SSLCUSTOMIZE_POLICY"] = str(big)
    done = subprocess.run(
        [sys.executable, "-c",
         "import os, sys; r, w = os.pipe(); os.close(r); os.dup2(w, 1);"
         "from sslcustomize._cli import main; sys.exit(main(['explain', '--json']))"],
        capture_output=False, stderr=subprocess.PIPE, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert "Traceback" not in done.stderr
    assert done.returncode == 141


def test_trust_with_a_directory_as_policy(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A --scope whose policy path is a directory: one line, exit 2, no traceback."""
    _, port = https_server(pki["self_signed"], "localhost")
    user = _user_policy()
    user.mkdir(parents=True)
    assert main(["trust", "--yes", "--scope", "user", f"localhost:{port}"]) == 2
    err = capsys.readouterr().err
    assert "as a policy file: it is a directory\n" in err
    assert "Traceback" not in err


# --- Item 8 and 2: doctor reads as a health check; explain and doctor name hidden exceptions ----


def _policy_with_hidden_exception(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    pin = "sha256/" + "B" * 43 + "="
    path = tmp_path / "hidden.toml"
    path.write_text(
        f"version = 1\ntrust = ['system', 'system']\n[[exception]]\nhost = 'nas.example'\n"
        f"pin = ['{pin}']\nreason = 'web UI'\n[[exception]]\nhost = 'nas.example:587'\n"
        f"pin = ['{pin}']\nreason = 'mail'\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    _state.set_policy(None)
    return path


def test_doctor_and_explain_name_a_hidden_exception(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A port-specific exception hides the port-less one on its port: both commands say so."""
    path = _policy_with_hidden_exception(tmp_path, monkeypatch)
    main(["doctor"])
    doctor = capsys.readouterr().out
    assert f"hides the one for nas.example ({path}:3) on port 587" in doctor.replace("\n", "")
    main(["explain"])
    assert "hidden exception" in capsys.readouterr().out


def test_explain_names_no_hidden_exception_when_none(
    write_policy: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Two different hosts hide nothing: no warning (the twin above)."""
    path = tmp_path / "ok.toml"
    pin = "sha256/" + "B" * 43 + "="
    path.write_text(
        f"version = 1\n[[exception]]\nhost = 'a.example'\npin = ['{pin}']\nreason = 'a'\n"
        f"[[exception]]\nhost = 'b.example:587'\npin = ['{pin}']\nreason = 'b'\n"
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    _state.set_policy(None)
    main(["explain", "--json"])
    assert json.loads(capsys.readouterr().out)["shadowed_exceptions"] == []


def test_doctor_says_each_trust_source_once_and_hook_state_plainly(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """'trusted: system' once, and no bare 'active in this process: no'."""
    _policy_with_hidden_exception(tmp_path, monkeypatch)
    main(["doctor"])
    out = capsys.readouterr().out
    assert "trusted: system\n" in out
    assert "active in this process: no" not in out


def test_doctor_names_every_error_of_a_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A file with three mistakes: doctor names all three, each with its line and key."""
    path = tmp_path / "three.toml"
    path.write_text(
        "version = 1\nmode = 'audit'\ntrust = [\n  'system',\n  3,\n]\n"
        "[[exception]]\nhost = 'nas.example'\npin = ['sha1/abc']\nreason = 'appliance'\n",
        encoding="utf-8",
    )
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    _state.set_policy(None)
    assert main(["doctor", "--json"]) == 2
    errors = next(r for r in json.loads(capsys.readouterr().out)["layers"] if r["errors"])["errors"]
    assert [error.split(": ")[0:2] for error in errors] == [
        [f"{path}:2", "mode"],
        [f"{path}:3", "trust"],
        [f"{path}:9", "exception[1].pin"],
    ], errors


def test_every_error_of_a_valid_file_is_none(tmp_path: Path) -> None:
    """A valid file has no errors; a file with one has exactly one (no cascades)."""
    from sslcustomize._policy._errors import every_error
    from sslcustomize._trust._anchors import check_source

    path = str(tmp_path / "p")
    valid = "version = 1\nmode = 'report'\n"
    assert every_error(valid, path=path, layer="user", check_source=check_source) == []
    one = every_error(
        "[[exception]]\nhost = 'h'\npin = ['sha1/x']\nreason = 'r'\n",
        path=path,
        layer="user",
        check_source=check_source,
    )
    assert [error.key for error in one] == ["exception[1].pin"]


def test_trust_says_a_port_speaks_plain_smtp(
    pki: _pki.TestPKI, smtp_server: StartServer, process_policy: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """trust against SMTP without --starttls: exit 2, suggests --starttls smtp, writes nothing."""
    host, port = smtp_server(pki["self_signed"], "127.0.0.1", starttls=True)
    before = process_policy.read_text(encoding="utf-8")
    assert main(["trust", "--yes", f"{host}:{port}"]) == 2
    assert "try --starttls smtp" in capsys.readouterr().err
    assert process_policy.read_text(encoding="utf-8") == before


def test_no_certifi_note_for_a_chain_of_the_policys_own_ca(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Verified through the policy's own CA file (not the system store): no certifi note."""
    pytest.importorskip("certifi")
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = tmp_path / "own.toml"
    policy.write_text(f"version = 1\ntrust = ['system', '{root}']\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(policy))
    _state.set_policy(None)
    _, port = https_server(pki["good"], "localhost")
    assert main(["check", "--json", f"localhost:{port}"]) == 0
    assert json.loads(capsys.readouterr().out)["notes"] == []
