"""trust --ca-file: an organisation's CA added to a layer's trust by command, checked first."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
import tomlkit

import _pki
from _fixtures import WritePolicy, run_python
from _namespace import namespace_problem, run_in_overlays
from sslcustomize._cli import main
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer

_FETCH = """
    import urllib.request
    try:
        urllib.request.urlopen("https://localhost:{port}/", timeout=10)
        print("ok")
    except Exception as error:
        print(type(getattr(error, "reason", error)).__name__)
"""


@pytest.fixture
def user_policy() -> Path:
    """The user layer's file with a comment and an exception table already in it."""
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(
        "# corporate settings\nversion = 1\n\n[[exception]]\nhost = 'nas.example'\n"
        "mode = 'report'\nreason = 'lab'\n"
    )
    return path


def _check(port: int, capsys: pytest.CaptureFixture[str]) -> str:
    _state.set_policy(None)
    main(["check", "--json", f"localhost:{port}"])
    verdict: str = json.loads(capsys.readouterr().out)["verdict"]
    return verdict


def test_ca_file_is_trusted_for_every_host(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The corporate root verifies its servers; a foreign root's server is still rejected."""
    root = tmp_path / "corp-root.pem"
    root.write_bytes(pki.root_pem)
    _, good = https_server(pki["good"], "localhost")
    _, foreign = https_server(pki["unknown_issuer"], "localhost")
    assert _check(good, capsys) == "rejected"
    assert main(["trust", "--ca-file", str(root), "--scope", "user"]) == 0
    out = capsys.readouterr().out
    copy = user_policy.parent / "ca" / "corp-root.pem"
    assert f"added {copy}" in out.replace("~", os.path.expanduser("~"))
    assert "CA: CN=sslcustomize test root CA" in out
    text = user_policy.read_text()
    assert text.startswith("# corporate settings\nversion = 1\n")
    assert tomlkit.parse(text).unwrap()["trust"] == ["system", str(copy)]
    assert text.index("trust") < text.index("[[exception]]")  # a top-level key, not the table's
    assert copy.read_bytes() == pki.root_pem
    assert _check(good, capsys) == "verified"
    assert _check(foreign, capsys) == "rejected"
    assert run_python(_FETCH.format(port=good)).stdout.strip() == "ok"
    assert run_python(_FETCH.format(port=foreign)).stdout.strip() == "CertificateRejected"
    # Again: nothing changes.
    assert main(["trust", "--ca-file", str(root), "--scope", "user"]) == 0
    assert "already trusted" in capsys.readouterr().out
    assert user_policy.read_text() == text


def test_a_second_ca_file_of_the_same_name_is_trusted_too(
    pki: _pki.TestPKI, https_server: StartServer, user_policy: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """``a/corp.pem`` then ``b/corp.pem``: the second CA gets a copy of its own and is trusted."""
    first, second = tmp_path / "a" / "corp.pem", tmp_path / "b" / "corp.pem"
    for path, pem in ((first, pki.root_pem), (second, pki.foreign_root_pem)):
        path.parent.mkdir()
        path.write_bytes(pem)
    _, foreign = https_server(pki["unknown_issuer"], "localhost")
    assert main(["trust", "--ca-file", str(first), "--scope", "user"]) == 0
    capsys.readouterr()
    assert _check(foreign, capsys) == "rejected"
    assert main(["trust", "--ca-file", str(second), "--scope", "user"]) == 0
    assert "added" in capsys.readouterr().out
    copies = user_policy.parent / "ca"
    trust = tomlkit.parse(user_policy.read_text()).unwrap()["trust"]
    assert trust == ["system", str(copies / "corp.pem"), str(copies / "corp-2.pem")]
    assert (copies / "corp.pem").read_bytes() == pki.root_pem
    assert (copies / "corp-2.pem").read_bytes() == pki.foreign_root_pem
    assert _check(foreign, capsys) == "verified"
    # Either again: already trusted, nothing written.
    text = user_policy.read_text()
    for path in (first, second):
        assert main(["trust", "--ca-file", str(path), "--scope", "user"]) == 0
        assert "already trusted" in capsys.readouterr().out
    assert user_policy.read_text() == text


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("leaf", "is not a CA (no basicConstraints CA:TRUE)"),
        ("garbage", "no PEM certificate in it"),
        (None, "no such file"),
    ],
)
def test_ca_file_that_is_not_a_ca_is_refused(
    content: str | None, message: str, pki: _pki.TestPKI, user_policy: Path, tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """A server's own certificate, a non-PEM file, a missing file: exit 2, nothing written."""
    before = user_policy.read_text()
    name = tmp_path / "bundle.pem"
    if content == "leaf":
        name.write_bytes(pki["self_signed"].leaf_pem)
    elif content == "garbage":
        name.write_text("not a certificate\n")
    assert main(["trust", "--ca-file", str(name), "--scope", "user"]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert err.count("\n") == 1
    assert user_policy.read_text() == before
    assert not (user_policy.parent / "ca").exists()


def test_ca_file_refused_under_a_lock_on_trust(
    pki: _pki.TestPKI, user_policy: Path, write_policy: WritePolicy, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The system layer locks trust: a user's --ca-file is refused and names who can add it."""
    system = write_policy("lock = ['trust']\n")
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(system))
    root = tmp_path / "corp-root.pem"
    root.write_bytes(pki.root_pem)
    before = user_policy.read_text()
    assert main(["trust", "--json", "--ca-file", str(root), "--scope", "user"]) == 2
    captured = capsys.readouterr()
    assert "locks trust" in json.loads(captured.out)["error"]["message"]
    assert "--scope system" in captured.err
    assert user_policy.read_text() == before


def test_trust_needs_a_target_or_a_ca_file(capsys: pytest.CaptureFixture[str]) -> None:
    """Neither, or both: a usage error that says what to give."""
    assert main(["trust"]) == 2
    assert "give TARGET (host[:port]) or --ca-file FILE" in capsys.readouterr().err
    assert main(["trust", "--ca-file", "x.pem", "localhost:1"]) == 2
    assert "not both" in capsys.readouterr().err


@pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem()))
def test_ca_file_for_the_system_layer(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path
) -> None:
    """As root, --scope system writes /etc/sslcustomize (an overlay); a new Python trusts it."""
    root = tmp_path / "corp-root.pem"
    root.write_bytes(pki.root_pem)
    _, port = https_server(pki["good"], "localhost")
    fetch = shlex.quote(textwrap.dedent(_FETCH.format(port=port)))
    python = shlex.quote(sys.executable)
    script = (
        f"{python} -c {fetch} && "
        f"{python} -m sslcustomize trust --ca-file {shlex.quote(str(root))} --scope system && "
        f"cat /etc/sslcustomize/policy.toml && {python} -c {fetch}"
    )
    result = run_in_overlays(["/etc"], tmp_path / "scratch", [script], timeout=120)
    assert result.returncode == 0, result.stderr
    before, *_, after = result.stdout.split("\n")[:-1]
    assert (before, after) == ("SSLCertVerificationError", "ok")  # no policy yet, then the CA
    assert 'trust = ["system", "/etc/sslcustomize/ca/corp-root.pem"]' in result.stdout
    assert not Path("/etc/sslcustomize/ca/corp-root.pem").exists()  # the overlay is gone


@pytest.mark.skipif(namespace_problem() is not None, reason=str(namespace_problem()))
def test_ca_file_for_the_system_layer_under_umask_000(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path
) -> None:
    """Root's umask 000: the directories made are 0755; another user cannot swap the CA copy."""
    root = tmp_path / "corp-root.pem"
    root.write_bytes(pki.root_pem)
    theirs = pki["unknown_issuer"].chain_pem.split(b"-----END CERTIFICATE-----\n")[-2]
    _, good = https_server(pki["good"], "localhost")
    _, mitm = https_server(pki["unknown_issuer"], "localhost")  # a server of their CA
    python = shlex.quote(sys.executable)
    swap = (
        "printf '%s-----END CERTIFICATE-----\\n' \"$THEIRS\" > /etc/sslcustomize/ca/.new && "
        "mv /etc/sslcustomize/ca/.new /etc/sslcustomize/ca/corp-root.pem"
    )
    script = (
        f"export THEIRS={shlex.quote(theirs.decode())}; umask 000 && "
        f"{python} -m sslcustomize trust --ca-file {shlex.quote(str(root))} --scope system && "
        "stat -c '%a %n' /etc/sslcustomize /etc/sslcustomize/ca && "
        f"(setpriv --reuid=4242 --regid=4242 --clear-groups sh -c {shlex.quote(swap)} "
        "2>/dev/null || true) && "
        f"{python} -c {shlex.quote(textwrap.dedent(_FETCH.format(port=good)))} && "
        f"{python} -c {shlex.quote(textwrap.dedent(_FETCH.format(port=mitm)))}"
    )
    result = run_in_overlays(["/etc"], tmp_path / "scratch", [script], timeout=120)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.split("\n")
    assert "755 /etc/sslcustomize" in lines
    assert "755 /etc/sslcustomize/ca" in lines
    legitimate, attacked = lines[-3:-1]
    assert legitimate == "ok"  # twin: the corporate CA, as root added it
    assert attacked == "CertificateRejected"  # their CA never replaced the corporate one


def _openssl_self_signed(tmp_path: Path, subject: str, *extensions: str) -> Path:
    """Make a self-signed certificate the way a server's is most often made (it sets CA:TRUE)."""
    out = tmp_path / "server.pem"
    argv = ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256"]
    argv += ["-nodes", "-keyout", str(tmp_path / "server.key"), "-out", str(out), "-days", "30"]
    argv += ["-subj", subject]
    for extension in extensions:
        argv += ["-addext", extension]
    subprocess.run(argv, check=True, capture_output=True, timeout=60)
    return out


SERVER_SHAPES = {
    "SAN DNS": ("/CN=localhost", "subjectAltName=DNS:localhost"),
    "SAN IP": ("/CN=appliance", "subjectAltName=IP:127.0.0.1"),
    "CN host name alone": ("/CN=nas.corp.example",),
    "CN IP alone": ("/CN=10.0.0.7",),
}


@pytest.mark.parametrize("shape", sorted(SERVER_SHAPES))
def test_a_server_certificate_with_ca_true_is_refused_as_a_ca(
    shape: str, user_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """openssl req -x509 for a server sets CA:TRUE: refused as a CA, advised to pin; no write."""
    server = _openssl_self_signed(tmp_path, *SERVER_SHAPES[shape])
    before = user_policy.read_text()
    assert main(["trust", "--ca-file", str(server), "--scope", "user"]) == 2
    err = capsys.readouterr().err
    assert "looks like a server's own certificate" in err
    assert "sslcustomize trust " in err
    assert "--really-a-ca" in err
    assert err.count("\n") == 1
    assert user_policy.read_text() == before
    assert not (user_policy.parent / "ca").exists()


def test_a_ca_that_names_hosts_is_trusted_when_the_user_says_so(
    user_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The twin: --really-a-ca adds the same certificate to trust, as the user asked."""
    server = _openssl_self_signed(tmp_path, *SERVER_SHAPES["SAN DNS"])
    assert main(["trust", "--ca-file", str(server), "--scope", "user", "--really-a-ca"]) == 0
    assert "CA: CN=localhost" in capsys.readouterr().out
    trust = tomlkit.parse(user_policy.read_text())["trust"]
    assert any(str(entry).endswith("server.pem") for entry in trust)


def test_a_ca_whose_name_is_a_title_needs_no_confirmation(
    user_policy: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The twin: a CA titled like one ("Corp Root CA"), made by openssl req -x509, is added."""
    root = _openssl_self_signed(tmp_path, "/O=Corp/CN=Corp Root CA")
    assert main(["trust", "--ca-file", str(root), "--scope", "user"]) == 0
    assert "CA: CN=Corp Root CA,O=Corp" in capsys.readouterr().out


def test_really_a_ca_without_a_ca_file_is_a_usage_error(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--really-a-ca names the CA file's certificate: with a TARGET it is a usage error."""
    assert main(["trust", "localhost:1", "--really-a-ca"]) == 2
    assert "--really-a-ca goes with --ca-file" in capsys.readouterr().err


def _special(kind: str, tmp_path: Path) -> Path:
    """Make the file that ``trust --ca-file`` must refuse without reading it."""
    path = tmp_path / f"ca-{kind.replace(' ', '-').replace('/', '')}"
    if kind == "fifo":
        os.mkfifo(path)
    elif kind == "link to /dev/zero":
        path.symlink_to("/dev/zero")
    else:
        path.mkdir()
    return path


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("fifo", "is a FIFO (named pipe), not a regular file"),
        ("link to /dev/zero", "is a character device, not a regular file"),
        ("directory", "is a directory"),
    ],
)
def test_ca_file_that_is_not_a_regular_file_is_refused_at_once(
    kind: str, message: str, tmp_path: Path, user_policy: Path
) -> None:
    """A FIFO does not hang, /dev/zero is not read, a directory says so: exit 2, one line."""
    path = _special(kind, tmp_path)
    command = "import sys; from sslcustomize._cli import main; sys.exit(main(sys.argv[1:]))"
    result = subprocess.run(
        [sys.executable, "-c", command, "trust", "--ca-file", str(path), "--scope", "user"],
        capture_output=True,
        text=True,
        timeout=30,  # a hang (FIFO) or a read of /dev/zero until memory runs out fails here
        check=False,
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr == f"sslcustomize: --ca-file {path}: {message}\n"
    assert "not a PEM file" not in result.stderr
