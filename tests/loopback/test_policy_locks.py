"""The fail-closed fallback keeps a valid system layer; locks hold wherever their key appears."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import sys
from pathlib import Path

import pytest
import trustme

import sslcustomize
from _fixtures import WritePolicy, memory_handshake
from sslcustomize._trust._checked_policy import load_policy

PIN = "sha256/" + "A" * 43 + "="


def _files(write_policy: WritePolicy, *texts: tuple[str, str]) -> list[tuple[str, str, bool]]:
    return [(layer, str(write_policy(text)), True) for layer, text in texts]


def _server(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(context)
    return context


@pytest.fixture
def corp(tmp_path: Path) -> tuple[trustme.CA, Path]:
    """A corporate root and its PEM file."""
    ca = trustme.CA()
    path = tmp_path / "corp-root.pem"
    ca.cert_pem.write_to_path(str(path))
    return ca, path


@pytest.mark.parametrize(
    "broken",
    [
        ("user", "mode = 'reprot'\n"),
        ("process", "lock = ['trust']\n"),
        ("user", "[[exception]]\nhost = 'a.example'\n"),
    ],
)
def test_broken_upper_layer_keeps_the_system_layer_and_its_locks(
    write_policy: WritePolicy, corp: tuple[trustme.CA, Path], broken: tuple[str, str]
) -> None:
    """A broken user or process file: the system layer stands as written, locks included."""
    _, root = corp
    files = _files(
        write_policy,
        ("system", f"trust = ['{root}']\nallow_code_opt_out = false\nlock = ['trust']\n"
                   "[context.smtplib]\nminimum_tls = '1.3'\n"),
        ("user", "mode = 'report'\n"),
        broken,
    )  # fmt: skip
    policy = load_policy(files)
    assert policy.fallback
    assert [s.path for s in policy.trust] == [str(root)]
    assert policy.allow_code_opt_out.value is False
    assert set(policy.locked) == {"trust"}
    assert policy.contexts["smtplib"].minimum_tls is not None
    assert policy.mode.value == "enforce"
    assert "system policy as written" in policy.fallback_summary


def test_missing_process_file_keeps_the_system_layer(
    write_policy: WritePolicy, corp: tuple[trustme.CA, Path], tmp_path: Path
) -> None:
    """SSLCUSTOMIZE_POLICY=/nonexistent drops nothing the administrator wrote."""
    _, root = corp
    system = write_policy(f"trust = ['{root}']\nlock = ['trust']\n")
    policy = load_policy([("system", str(system), False), ("process", str(tmp_path / "no"), True)])
    assert policy.fallback
    assert [s.path for s in policy.trust] == [str(root)]


def test_broken_system_layer_means_strict_defaults(
    write_policy: WritePolicy, corp: tuple[trustme.CA, Path]
) -> None:
    """Only a broken system layer gives the strict defaults (system store, no exceptions)."""
    _, root = corp
    files = _files(
        write_policy,
        ("system", f"trust = ['{root}']\nlock = ['trust']\nmode = 'enforced'\n"),
        ("user", "mode = 'report'\n"),
    )
    policy = load_policy(files)
    assert policy.fallback
    assert [s.kind for s in policy.trust] == ["system"]
    assert policy.locked == {}
    assert "strict defaults" in policy.fallback_summary


def test_fallback_forces_enforce_over_a_system_report_mode(write_policy: WritePolicy) -> None:
    """The system layer says report; with a broken user file the process enforces."""
    files = _files(write_policy, ("system", "mode = 'report'\n"), ("user", "mode = 1\n"))
    assert load_policy(files).mode.value == "enforce"
    assert load_policy(files[:1]).mode.value == "report"


def test_fallback_keeps_stricter_choices_of_valid_layers(write_policy: WritePolicy) -> None:
    """A valid user layer's stricter minimum_tls still holds in the fallback, a looser never."""
    files = _files(
        write_policy,
        ("system", "minimum_tls = '1.2'\nallow_code_opt_out = true\n"),
        ("user", "minimum_tls = '1.3'\nallow_code_opt_out = false\n"),
        ("process", "nonsense = 1\n"),
    )
    policy = load_policy(files)
    assert policy.minimum_tls.value == "1.3"
    assert policy.allow_code_opt_out.value is False


def test_locked_mode_holds_in_a_user_exception(write_policy: WritePolicy) -> None:
    """lock = ['mode']: a user [[exception]] mode = 'report' is dropped with file and line."""
    files = _files(
        write_policy,
        ("system", "lock = ['mode']\n"),
        ("user", "[[exception]]\nhost = 'mitm.example'\nreason = 'x'\n\nmode = 'report'\n"
                 "[[exception]]\nhost = 'nas.example'\nreason = 'y'\n"
                 f"pin = ['{PIN}']\nmode = 'report'\n"),
    )  # fmt: skip
    policy = load_policy(files)
    assert not policy.fallback
    assert [str(e.host) for e in policy.exceptions] == ["nas.example"]
    assert policy.exceptions[0].mode is None
    assert policy.exceptions[0].pins == (PIN,)
    assert policy.index.lookup("mitm.example", None) is None
    user = files[1][1]
    assert any(w.startswith(f"{user}:5: 'mode' is locked by") for w in policy.warnings)
    assert any(w.startswith(f"{user}:10: 'mode' is locked by") for w in policy.warnings)


def test_unlocked_exception_mode_applies(write_policy: WritePolicy) -> None:
    """Twin: without the lock the same exception keeps its report mode, with no warning."""
    files = _files(
        write_policy,
        ("system", "mode = 'enforce'\n"),
        ("user", "[[exception]]\nhost = 'mitm.example'\nreason = 'x'\nmode = 'report'\n"),
    )
    policy = load_policy(files)
    assert [e.mode for e in policy.exceptions] == ["report"]
    assert policy.warnings == ()


def test_system_layer_exception_mode_is_not_blocked_by_its_own_lock(
    write_policy: WritePolicy,
) -> None:
    """The system layer may itself write a per-host mode under its own lock."""
    files = _files(
        write_policy,
        ("system", "lock = ['mode']\n[[exception]]\nhost = 'a.example'\nreason = 'x'\n"
                   "mode = 'report'\n"),
    )  # fmt: skip
    policy = load_policy(files)
    assert [e.mode for e in policy.exceptions] == ["report"]


@pytest.fixture
def system_policy(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Where the system layer is read from in this test (never the real /etc)."""
    path = tmp_path / "etc" / "policy.toml"
    path.parent.mkdir()
    monkeypatch.setattr("sslcustomize._support._bootstrap.SYSTEM_POLICY", str(path))
    return path


def _user_policy(text: str) -> Path:
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_typo_in_user_file_does_not_let_ssl_cert_file_replace_locked_trust(
    system_policy: Path,
    corp: tuple[trustme.CA, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Locked trust = [corp root]; a user typo and SSL_CERT_FILE=evil: the evil leaf fails."""
    corp_ca, root = corp
    evil = trustme.CA()
    evil_pem = tmp_path / "evil.pem"
    evil.cert_pem.write_to_path(str(evil_pem))
    monkeypatch.setenv("SSL_CERT_FILE", str(evil_pem))
    system_policy.write_text(f"trust = ['{root}']\nlock = ['trust']\n", encoding="utf-8")
    _user_policy("mode = 'reprot'\n")
    sslcustomize.inject()
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(ssl.create_default_context(), _server(evil), "localhost")
    assert memory_handshake(ssl.create_default_context(), _server(corp_ca), "localhost")


# --- Through the .pth hook, with a real /etc/sslcustomize (in a private mount namespace) ---------

_HANDSHAKE = """
import ssl, sys
chain, key, host = sys.argv[1:4]
server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
server.load_cert_chain(chain, key)
client = getattr(ssl, sys.argv[4] if len(sys.argv) > 4 else "create_default_context")()
c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
c = client.wrap_bio(c_in, c_out, server_hostname=host)
s = server.wrap_bio(s_in, s_out, server_side=True)
for _ in range(10):
    for side, out, into in ((c, c_out, s_in), (s, s_out, c_in)):
        try:
            side.do_handshake()
        except ssl.SSLWantReadError:
            pass
        except ssl.SSLError:
            if side is c:
                print("rejected")
                sys.exit(0)
        into.write(out.read())
print("accepted")
"""


UNSHARE = shutil.which("unshare") or "unshare"


def _namespace_works() -> bool:
    if os.geteuid() != 0 or not shutil.which("unshare"):
        return False
    probe = subprocess.run([UNSHARE, "-m", "true"], capture_output=True, check=False, timeout=30)
    return probe.returncode == 0


needs_namespace = pytest.mark.skipif(
    not _namespace_works(), reason="needs root and unshare -m to overlay /etc privately"
)


def _run_under_system_policy(
    tmp_path: Path, system: str, leaf: trustme.LeafCert, host: str, env: dict[str, str],
    factory: str = "create_default_context",
) -> tuple[str, str]:  # fmt: skip
    """Run the handshake script in a fresh interpreter that sees ``system`` at the real path.

    The client's context comes from ``ssl.<factory>()``.
    """
    work = tmp_path / "ns"
    for name in ("upper", "work"):
        (work / name).mkdir(parents=True)
    (work / "policy.toml").write_text(system, encoding="utf-8")
    chain, key = work / "chain.pem", work / "key.pem"
    chain.write_bytes(b"".join(blob.bytes() for blob in leaf.cert_chain_pems))
    key.write_bytes(leaf.private_key_pem.bytes())
    (work / "handshake.py").write_text(_HANDSHAKE, encoding="utf-8")
    script = (
        "set -e; mount --make-rprivate /; "
        "mount -t overlay overlay "
        f"-o lowerdir=/etc,upperdir={work}/upper,workdir={work}/work /etc; "
        f"mkdir -p /etc/sslcustomize; cp {work}/policy.toml /etc/sslcustomize/policy.toml; "
        f'exec "$0" {work}/handshake.py {chain} {key} {host} {factory}'
    )
    result = subprocess.run(
        [UNSHARE, "-m", "sh", "-c", script, sys.executable],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    assert not os.path.exists("/etc/sslcustomize"), "the real /etc was touched"
    return result.stdout.strip(), result.stderr


@needs_namespace
def test_pth_process_keeps_locked_trust_despite_user_typo_and_ssl_cert_file(
    tmp_path: Path, corp: tuple[trustme.CA, Path]
) -> None:
    """Started by the .pth hook: a user typo plus SSL_CERT_FILE=evil never trusts evil."""
    corp_ca, root = corp
    evil = trustme.CA()
    evil_pem = tmp_path / "evil.pem"
    evil.cert_pem.write_to_path(str(evil_pem))
    _user_policy("mode = 'reprot'\n")
    system = f"trust = ['{root}']\nlock = ['trust']\n"
    env = {"SSL_CERT_FILE": str(evil_pem)}
    evil_leaf = evil.issue_cert("localhost")
    corp_leaf = corp_ca.issue_cert("localhost")
    verdict, err = _run_under_system_policy(tmp_path, system, evil_leaf, "localhost", env)
    assert verdict == "rejected"
    assert "must be 'enforce' or 'report'" in err
    shutil.rmtree(tmp_path / "ns")
    verdict, _ = _run_under_system_policy(tmp_path, system, corp_leaf, "localhost", env)
    assert verdict == "accepted"


@needs_namespace
@pytest.mark.parametrize(
    ("lock", "expected"), [("lock = ['mode']\n", "rejected"), ("", "accepted")]
)
def test_pth_process_locked_mode_holds_in_a_user_exception(
    tmp_path: Path, lock: str, expected: str
) -> None:
    """Started by the .pth hook: a user exception's report mode is refused under a mode lock.

    The client is smtplib's kind of context (Python itself would not verify it): report mode
    lets its connections through. A context Python verifies keeps Python's floor in report
    mode too (test_connection_path.py).
    """
    _user_policy("[[exception]]\nhost = 'mitm.example'\nreason = 'x'\nmode = 'report'\n")
    leaf = trustme.CA().issue_cert("mitm.example")
    verdict, err = _run_under_system_policy(
        tmp_path, lock, leaf, "mitm.example", {}, "_create_stdlib_context"
    )
    assert verdict == expected
    assert "strict defaults" not in err  # the policy loaded: no fallback made it reject
    assert ("'mode' is locked" in err) == bool(lock)
