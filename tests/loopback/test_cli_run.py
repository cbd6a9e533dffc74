"""run reaches the children it cannot hook: curl, node, a Python without sslcustomize.

They get the policy's trust through the CA variables they read: one bundle of the system store
plus the extra CAs, never the extra CAs alone. Each child talks to a loopback server whose CA
is the extra CA; the twin runs without it, or with another CA, and fails.
"""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from sslcustomize._cli import main
from sslcustomize._trust._anchors import find_system_store
from sslcustomize._trust._bundles import bundle_certificates

if TYPE_CHECKING:
    from conftest import StartServer

CURL_CERT_PROBLEM = 60  # curl: "SSL certificate problem"

_NO_HOOK = (
    "import urllib.request, sys\n"
    "try:\n"
    "    urllib.request.urlopen(sys.argv[1], timeout=10)\n"
    "except Exception as error:\n"
    "    print(type(getattr(error, 'reason', error)).__name__)\n"
    "    sys.exit(1)\n"
)


@pytest.fixture
def dev_root(pki: _pki.TestPKI, tmp_path: Path) -> Path:
    """The extra CA of `run --ca`: the test root that issued the server's chain."""
    path = tmp_path / "dev-root.pem"
    path.write_bytes(pki.root_pem)
    return path


@pytest.fixture
def foreign_root(pki: _pki.TestPKI, tmp_path: Path) -> Path:
    """A CA that did not issue the server's chain."""
    path = tmp_path / "foreign-root.pem"
    path.write_bytes(pki["unknown_issuer"].chain_pem.split(b"-----END CERTIFICATE-----\n")[-2]
                     + b"-----END CERTIFICATE-----\n")  # fmt: skip
    return path


def _curl(url: str) -> list[str]:
    return ["curl", "--silent", "--show-error", "--max-time", "20", "--output", "/dev/null", url]


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
def test_curl_gets_the_extra_ca(
    pki: _pki.TestPKI, https_server: StartServer, dev_root: Path, foreign_root: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """curl verifies the dev server with --ca dev-root.pem; without it or with another, it fails."""
    address = https_server(pki["good"], "localhost")
    url = address.url()
    assert main(["run", "--ca", str(dev_root), "--", *_curl(url)]) == 0
    err = capfd.readouterr().err
    assert err.count("sslcustomize run:") == 1
    assert "other programs (curl, git, node, Pythons without it) get only its trust" in err
    assert main(["run", "--quiet", "--", *_curl(url)]) == CURL_CERT_PROBLEM
    assert main(["run", "--quiet", "--ca", str(foreign_root), "--", *_curl(url)]) == (
        CURL_CERT_PROBLEM
    )
    assert "sslcustomize run:" not in capfd.readouterr().err


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not installed")
def test_node_gets_the_extra_ca(
    pki: _pki.TestPKI, https_server: StartServer, dev_root: Path
) -> None:
    """node (NODE_EXTRA_CA_CERTS) verifies the dev server with --ca; the twin without fails."""
    url = https_server(pki["good"], "localhost").url()
    script = (
        "require('https').get(process.argv[1], r => process.exit(r.statusCode === 200 ? 0 : 3))"
        ".on('error', e => { console.error(e.code); process.exit(1); })"
    )
    assert main(["run", "--quiet", "--ca", str(dev_root), "--", "node", "-e", script, url]) == 0
    assert main(["run", "--quiet", "--", "node", "-e", script, url]) == 1


def test_a_python_without_the_hook_gets_the_extra_ca(
    pki: _pki.TestPKI, https_server: StartServer, dev_root: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """python -S (no site, so no hook) verifies through SSL_CERT_FILE; the twin fails."""
    url = https_server(pki["good"], "localhost").url()
    child = [sys.executable, "-S", "-c", _NO_HOOK, url]
    assert main(["run", "--quiet", "--ca", str(dev_root), "--", *child]) == 0
    assert main(["run", "--quiet", "--", *child]) == 1
    assert "SSLCertVerificationError" in capfd.readouterr().out


def test_the_bundle_keeps_the_system_store(
    dev_root: Path, pki: _pki.TestPKI, tmp_path: Path
) -> None:
    """Every variable names one bundle: the whole system store plus the extra CA."""
    out = tmp_path / "seen.txt"
    code = (
        "import os, sys\n"
        "names = sys.argv[2:]\n"
        "open(sys.argv[1], 'w').write('\\n'.join(os.environ.get(n, '') for n in names))\n"
    )
    names = ["SSL_CERT_FILE", "CURL_CA_BUNDLE", "GIT_SSL_CAINFO", "NODE_EXTRA_CA_CERTS",
             "REQUESTS_CA_BUNDLE"]  # fmt: skip
    copy = tmp_path / "bundle-copy.pem"
    code += f"import shutil; shutil.copy(os.environ['SSL_CERT_FILE'], {str(copy)!r})\n"
    argv = ["run", "--quiet", "--ca", str(dev_root), "--", sys.executable, "-S", "-c", code]
    assert main([*argv, str(out), *names]) == 0
    values = out.read_text().splitlines()
    assert len(set(values)) == 1
    assert values[0]
    bundle = set(bundle_certificates(str(copy)))
    store = find_system_store()
    assert store.file is not None
    system = set(bundle_certificates(store.file))
    assert system <= bundle
    assert ssl.PEM_cert_to_DER_cert(pki.root_pem.decode()) in bundle
    assert len(bundle) == len(system) + 1


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_git_gets_the_extra_ca(
    pki: _pki.TestPKI, https_server: StartServer, dev_root: Path, tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch, capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """git (GIT_SSL_CAINFO) gets past TLS with --ca; without it, verification fails."""
    monkeypatch.setenv("HOME", str(tmp_path))  # no user's git configuration
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    url = https_server(pki["good"], "localhost").url(path="/repo.git")
    git = ["git", "ls-remote", url]
    status = main(["run", "--quiet", "--ca", str(dev_root), "--", *git])
    verified = capfd.readouterr().err
    assert main(["run", "--quiet", "--", *git]) != 0
    refused = capfd.readouterr().err
    # git with GnuTLS (Debian's) or OpenSSL words it differently; either names the failure.
    failures = ("server certificate verification failed", "SSL certificate problem")
    assert any(failure in refused for failure in failures)
    assert "trust.pem" in refused  # GnuTLS names the CAfile: run's bundle, through GIT_SSL_CAINFO
    assert not any(failure in verified for failure in failures)
    assert (status, verified) == (0, "")  # past TLS, git accepts what the server answers


def test_uv_pip_gets_the_extra_ca(
    pki: _pki.TestPKI, https_server: StartServer, dev_root: Path,
    capfd: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """uv pip (SSL_CERT_FILE) reaches an index whose CA is the extra CA; without it, refused."""
    uv = pytest.importorskip("uv").find_uv_bin()
    index = https_server(pki["good"], "localhost").url(path="/simple")
    install = [
        uv, "pip", "install", "--dry-run", "--no-cache", "--python", sys.executable,
        "--index-url", index, "no-such-package",
    ]  # fmt: skip
    main(["run", "--quiet", "--", *install])
    refused = capfd.readouterr().err
    main(["run", "--quiet", "--ca", str(dev_root), "--", *install])
    verified = capfd.readouterr().err
    assert "invalid peer certificate" in refused
    assert "invalid peer certificate" not in verified
    assert "Content-Type" in verified  # past TLS: uv read the server's (plain text) answer


_SWAP = """
cd "$SHARED" 2>/dev/null && for made in sslcustomize-run-*; do
    mv "$made" "gone-$made" && mkdir "$made" &&
    printf 'version = 1\\ntrust = ["system", "%s"]\\n' "$SHARED/their-ca.pem" \\
        > "$made/overrides.toml"
done
"""


@pytest.mark.skipif(shutil.which("setpriv") is None, reason="needs setpriv (util-linux)")
@pytest.mark.skipif(sys.platform != "linux" or os.geteuid() != 0, reason="needs root")
def test_run_refuses_a_temporary_directory_another_user_can_change(
    pki: _pki.TestPKI, https_server: StartServer, tmp_path: Path
) -> None:
    """TMPDIR writable by another user (not sticky): run refuses; their CA never reaches a child."""
    url = https_server(pki["good"], "localhost").url()  # its root: the other user's CA here
    shared = Path(tempfile.mkdtemp(prefix="sslcustomize-test-shared-"))
    try:
        shared.chmod(0o777)  # writable by everyone, not sticky
        (shared / "their-ca.pem").write_bytes(pki.root_pem)
        (shared / "their-ca.pem").chmod(0o644)
        private = tmp_path / "tmp"
        private.mkdir(mode=0o700)
        # The child: first the other user (uid 4242) swaps run's directory, then a hooked Python.
        swap = 'setpriv --reuid=4242 --regid=4242 --clear-groups sh -c "$SWAP"'
        client = f"{sys.executable} -c \"import urllib.request as u; u.urlopen('{url}')\""
        child = ["sh", "-c", f"{swap}; {client} 2>/dev/null && echo CONNECTED"]

        def run(tmpdir: Path) -> subprocess.CompletedProcess[str]:
            environment = {**os.environ, "TMPDIR": str(tmpdir), "SHARED": str(shared)}
            environment["SWAP"] = _SWAP
            return subprocess.run(
                [sys.executable, "-m", "sslcustomize", "run", "--quiet", "--", *child],
                capture_output=True, text=True, env=environment, timeout=120, check=False,
            )  # fmt: skip

        # Twin: a private TMPDIR; the child runs and the policy rejects the unknown CA.
        legitimate = run(private)
        assert "CONNECTED" not in legitimate.stdout
        assert legitimate.returncode == 1, legitimate.stderr
        hostile = run(shared)
        assert "CONNECTED" not in hostile.stdout
        assert hostile.returncode == 2, hostile.stderr
        assert "another user can change" in hostile.stderr
    finally:
        shutil.rmtree(shared)
