"""Trust anchors: bundles read as OpenSSL reads them, kept current, cached where none can swap."""

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
from _fixtures import ManualClock, WritePolicy, memory_handshake, use_clock
from sslcustomize import PolicyError
from sslcustomize._decision._decide import decide
from sslcustomize._policy._model import TrustSource
from sslcustomize._support._files import trusted_path
from sslcustomize._trust import _anchors as _trust
from sslcustomize._trust import _bundles
from sslcustomize._trust._checked_policy import load_policy, parse_policy
from sslcustomize._x509._subjecthash import subject_hash


def _server(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(context)
    return context


# The trust cache of the runtime a test stands for; a new one stands for a new process (there
# is no process-wide cache to reset).
_CLOCK = ManualClock()
_runtime_trust = [_trust.TrustCache(clock=_CLOCK)]


@pytest.fixture(autouse=True)
def _fresh_trust() -> None:
    """Each test starts as a new runtime does: with an empty trust cache."""
    _new_runtime()


def _new_runtime() -> _trust.TrustCache:
    _runtime_trust[0] = _trust.TrustCache(clock=_CLOCK)
    return _runtime_trust[0]


def _client(path: Path) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    _runtime_trust[0].anchors_for([TrustSource(kind="file", path=str(path))]).load_into(context)
    return context


def _accepts(path: Path, ca: trustme.CA) -> bool:
    try:
        memory_handshake(_client(path), _server(ca), "localhost")
    except ssl.SSLCertVerificationError:
        return False
    return True


@pytest.fixture
def clock() -> ManualClock:
    """The clock of this module's trust caches, for the refresh interval, moved by hand."""
    _CLOCK.now = 1000.0
    return _CLOCK


# --- Item 1: commented-out CAs -----------------------------------------------------------------

COMMENTS = [
    pytest.param(lambda pem: pem.replace(b"-----BEGIN", b"#-----BEGIN", 1), id="hash"),
    pytest.param(lambda pem: b"# " + pem.replace(b"\n", b"\n# "), id="hash-space"),
    pytest.param(lambda pem: b"DISABLED " + pem, id="disabled"),
    pytest.param(lambda pem: b"   " + pem, id="indented"),
]


@pytest.mark.parametrize("comment", COMMENTS)
def test_commented_out_ca_is_not_trusted(
    tmp_path: Path, comment: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A CA OpenSSL skips in a bundle is not trusted; its uncommented twin in the same file is."""
    disabled, enabled = trustme.CA(), trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(
        comment(disabled.cert_pem.bytes()) + b"\n" + enabled.cert_pem.bytes()  # type: ignore[operator]
    )
    assert not _accepts(bundle, disabled)
    assert _accepts(bundle, enabled)
    # The same through SSL_CERT_FILE, which the policy adds to its trust.
    _new_runtime()
    monkeypatch.setenv("SSL_CERT_FILE", str(bundle))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    sources = decide(load_policy([]), context="x").trust
    assert [s.kind for s in sources] == ["system", "file"]
    _runtime_trust[0].anchors_for(sources).load_into(context)
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(context, _server(disabled), "localhost")
    assert memory_handshake(context, _server(enabled), "localhost")


def test_bundle_is_cached_as_a_hashed_directory(tmp_path: Path) -> None:
    """A bundle of CAs becomes a private hashed directory holding exactly OpenSSL's reading."""
    cas = [trustme.CA() for _ in range(3)]
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(b"".join(ca.cert_pem.bytes() for ca in cas))
    anchors = _bundles.bundle_anchors(str(bundle))
    assert anchors.files == ()
    (directory,) = anchors.directories
    assert len(os.listdir(directory)) == 3
    assert os.stat(directory).st_mode & 0o777 == 0o700


def test_bundle_with_a_non_ca_certificate_is_loaded_as_a_file(tmp_path: Path) -> None:
    """A pinned self-signed leaf (not a CA) cannot live in a hashed directory: the file is used."""
    ca = trustme.CA()
    leaf = ca.issue_cert("localhost")
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(ca.cert_pem.bytes() + leaf.cert_chain_pems[0].bytes())
    anchors = _bundles.bundle_anchors(str(bundle))
    assert anchors.directories == ()
    assert anchors.files == (str(bundle),)
    assert _accepts(bundle, ca)


def test_bundle_certificates_are_openssls() -> None:
    """bundle_certificates() skips a commented block and keeps a real one."""
    hidden, shown = trustme.CA(), trustme.CA()
    text = b"#" + hidden.cert_pem.bytes() + shown.cert_pem.bytes()
    path = Path(os.environ["XDG_CACHE_HOME"]).parent / "b.pem"
    path.write_bytes(text)
    assert _bundles.bundle_certificates(str(path)) == (
        ssl.PEM_cert_to_DER_cert(shown.cert_pem.bytes().decode()),
    )


# --- Item 2: a removed CA stops being trusted --------------------------------------------------


def _same_size_rewrite(path: Path, data: bytes) -> None:
    """Rewrite in place keeping size, mtime and inode (as cp -p or rsync -t --inplace)."""
    before = os.stat(path)
    assert len(data) == before.st_size
    with open(path, "r+b") as file:
        file.write(data)
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (
        before.st_ino,
        before.st_size,
        before.st_mtime_ns,
    )


def _two_ca_bundle(tmp_path: Path) -> tuple[Path, trustme.CA, trustme.CA, bytes]:
    kept, removed = trustme.CA(), trustme.CA()
    bundle = tmp_path / "bundle.pem"
    pem_removed = removed.cert_pem.bytes()
    bundle.write_bytes(kept.cert_pem.bytes() + pem_removed)
    # The same length, the removed CA blanked out: a comment line of the same size.
    without = kept.cert_pem.bytes() + b"#" * (len(pem_removed) - 1) + b"\n"
    return bundle, kept, removed, without


def test_removed_ca_is_not_trusted_after_the_refresh_interval(
    tmp_path: Path, clock: ManualClock
) -> None:
    """A CA removed from a bundle in place stops being trusted by new contexts an interval later."""
    bundle, kept, removed, without = _two_ca_bundle(tmp_path)
    assert _accepts(bundle, removed)
    os.utime(bundle, ns=(0, 0))  # make the old read unambiguous (not racy)
    _new_runtime()
    assert _accepts(bundle, removed)
    _same_size_rewrite(bundle, without)
    clock.now += _trust.REFRESH_INTERVAL + 1
    assert not _accepts(bundle, removed)
    assert _accepts(bundle, kept)


def test_shared_http_client_context_drops_a_removed_ca(
    tmp_path: Path, clock: ManualClock, write_policy: WritePolicy
) -> None:
    """A long-lived process: http.client's shared context drops a removed CA an interval on."""
    import http.client

    bundle, _, removed, without = _two_ca_bundle(tmp_path)
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    server = _server(removed)

    def shared_accepts() -> bool:
        context = http.client.HTTPSConnection("localhost")._context  # type: ignore[attr-defined]
        try:
            memory_handshake(context, server, "localhost")
        except ssl.SSLCertVerificationError:
            return False
        return True

    assert shared_accepts()
    os.utime(bundle, ns=(0, 0))
    _same_size_rewrite(bundle, without)
    assert shared_accepts()  # within the interval: the context built before is kept
    clock.now += _trust.REFRESH_INTERVAL + 1
    assert not shared_accepts()


def test_unchanged_bundle_is_not_read_again_within_the_interval(
    tmp_path: Path, clock: ManualClock, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Between checks no file is touched: a context costs no stat and no read."""
    bundle, kept, _, _ = _two_ca_bundle(tmp_path)
    assert _accepts(bundle, kept)
    calls: list[str] = []
    real = _trust._stat_key

    def counting(path: str) -> tuple[int, ...]:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(_trust, "_stat_key", counting)
    for _ in range(5):
        _client(bundle)
    assert calls == []
    clock.now += _trust.REFRESH_INTERVAL + 1
    _client(bundle)
    # Only the bundle is looked at: one stat, and one more to re-read it while its time
    # stamps are within a second of the last read (the racy-timestamp rule; just written).
    assert calls
    assert set(calls) == {str(bundle)}


def test_disk_cache_is_keyed_by_content_not_size_mtime_inode(tmp_path: Path) -> None:
    """A new process after a cp -p style rewrite builds anchors from the new bytes."""
    bundle, kept, removed, without = _two_ca_bundle(tmp_path)
    first = _bundles.bundle_anchors(str(bundle))
    _same_size_rewrite(bundle, without)
    second = _bundles.bundle_anchors(str(bundle))
    assert second.directories != first.directories
    assert not _accepts(bundle, removed)
    assert _accepts(bundle, kept)


def test_disk_cache_is_reused_for_the_same_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: the same bytes in a new process reuse the cached directory without parsing."""
    bundle, _, _, _ = _two_ca_bundle(tmp_path)
    first = _bundles.bundle_anchors(str(bundle))
    _new_runtime()
    parsed: list[str] = []
    original = _bundles._openssl_read

    def counting(data: bytes, path: str) -> object:
        parsed.append(path)
        return original(data, path)

    monkeypatch.setattr(_bundles, "_openssl_read", counting)
    assert _bundles.bundle_anchors(str(bundle)) == first
    assert parsed == []


# --- Item 3: a cache nobody else can swap ------------------------------------------------------

NOBODY = 65534


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's directory needs root")
@pytest.mark.parametrize(
    ("owner", "mode"),
    [(NOBODY, 0o755), (None, 0o775), (None, 0o777)],
    ids=["other-owner", "group-writable", "world-writable"],
)
def test_cache_under_a_directory_others_control_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, owner: int | None, mode: int
) -> None:
    """A parent another user owns or can write to: the bundle is loaded eagerly, no directory."""
    shared = tmp_path / "shared"
    shared.mkdir()
    os.chmod(shared, mode)
    if owner is not None:
        os.chown(shared, owner, -1)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared / "cache"))
    bundle, kept, _, _ = _two_ca_bundle(tmp_path)
    anchors = _bundles.bundle_anchors(str(bundle))
    assert anchors.directories == ()
    assert anchors.files == (str(bundle),)
    assert _accepts(bundle, kept)


def test_cache_under_a_sticky_shared_directory_is_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: in a sticky world-writable directory (/tmp style) our own 0700 cache is safe."""
    shared = tmp_path / "tmp"
    shared.mkdir()
    os.chmod(shared, 0o1777)  # noqa: S103 - a /tmp-like sticky directory on purpose
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared / "cache"))
    bundle, _, _, _ = _two_ca_bundle(tmp_path)
    anchors = _bundles.bundle_anchors(str(bundle))
    assert len(anchors.directories) == 1
    assert trusted_path(anchors.directories[0])


@pytest.mark.skipif(os.geteuid() != 0, reason="making another user's directory needs root")
def test_planted_cache_directory_of_another_user_is_never_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A directory at the cache's name that is not ours alone is ignored (no planted CA)."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    bundle, kept, removed, without = _two_ca_bundle(tmp_path)
    bundle.write_bytes(without)
    # Plant, under the name the cache would use for these bytes, a directory trusting `removed`.
    first = _bundles.bundle_anchors(str(bundle))
    (directory,) = first.directories
    shutil.rmtree(directory)
    os.mkdir(directory)
    ca_der = ssl.PEM_cert_to_DER_cert(removed.cert_pem.bytes().decode())
    name = f"{subject_hash(ca_der):08x}.0"
    (Path(directory) / name).write_bytes(removed.cert_pem.bytes())
    os.chown(directory, NOBODY, -1)
    _new_runtime()
    anchors = _bundles.bundle_anchors(str(bundle))
    assert directory not in anchors.directories
    assert not _accepts(bundle, removed)
    assert _accepts(bundle, kept)


@pytest.mark.skipif(os.geteuid() != 0, reason="switching to another uid needs root")
def test_another_user_gets_its_own_safe_cache() -> None:
    """As uid 65534 with a cache under a root-owned 0755 parent, the cache is its own and used."""
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="sslcustomize-uid-"))  # pytest's tmp is root's, 0700
    try:
        os.chmod(base, 0o755)  # noqa: S103 - the other uid must reach the test directory
        home = base / "home"
        home.mkdir()
        os.chown(home, NOBODY, NOBODY)
        bundle, _, _, _ = _two_ca_bundle(base)
        os.chmod(bundle, 0o644)
        code = (
            "import os, tempfile, hashlib, datetime  # as nobody, the stdlib is unreadable\n"
            "from sslcustomize._support import _paths\n"
            "from sslcustomize._trust import _bundles\n"
            "os.setgid(65534); os.setuid(65534)\n"
            f"a = _bundles.bundle_anchors({str(bundle)!r})\n"
            "print(len(a.directories), os.stat(a.directories[0]).st_uid)\n"
        )
        env = dict(os.environ, XDG_CACHE_HOME=str(home / "cache"))
        result = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=False
        )
        assert result.returncode == 0, result.stderr
        assert result.stdout.split() == ["1", str(NOBODY)]
    finally:
        shutil.rmtree(base)


# --- Item 4: trust sources validated at load ---------------------------------------------------


def test_unhashed_directory_is_a_policy_error(write_policy: WritePolicy, tmp_path: Path) -> None:
    """trust naming a directory with no <hash>.<n> entries fails at load, naming line and key."""
    plain = tmp_path / "certs"
    plain.mkdir()
    trustme.CA().cert_pem.write_to_path(str(plain / "corp.pem"))
    path = write_policy(f"version = 1\ntrust = ['system', '{plain}']\n")
    with pytest.raises(PolicyError, match="hashed directory") as caught:
        parse_policy(path.read_text(), path=str(path), layer="user")
    assert (caught.value.line, caught.value.key) == (2, "trust")


def test_hashed_directory_is_accepted(write_policy: WritePolicy, tmp_path: Path) -> None:
    """Twin: a directory holding <hash>.0 entries is a valid trust source."""
    hashed = tmp_path / "certs"
    hashed.mkdir()
    ca = trustme.CA()
    der = ssl.PEM_cert_to_DER_cert(ca.cert_pem.bytes().decode())
    ca.cert_pem.write_to_path(str(hashed / f"{subject_hash(der):08x}.0"))
    path = write_policy(f"trust = ['{hashed}']\n")
    layer = parse_policy(path.read_text(), path=str(path), layer="user")
    assert [s.kind for s in layer.trust] == ["directory"]


@pytest.mark.parametrize(
    "content",
    [b"", b"not a certificate\n", None],
    ids=["empty", "text", "only-commented"],
)
def test_bundle_without_certificate_is_a_policy_error(
    write_policy: WritePolicy, tmp_path: Path, content: bytes | None
) -> None:
    """An exception's ca naming a bundle OpenSSL reads no certificate from fails at load."""
    bundle = tmp_path / "corp.pem"
    bundle.write_bytes(content if content is not None else b"#" + trustme.CA().cert_pem.bytes())
    path = write_policy(
        f"[[exception]]\nhost = 'a.example'\nreason = 'x'\nca = ['{bundle}']\n", name="p.toml"
    )
    policy = load_policy([("user", str(path), True)])
    assert policy.fallback
    (error,) = policy.errors
    assert (error.line, error.key) == (4, "exception[1].ca")
    assert "certificate" in error.problem


def test_certifi_missing_is_a_policy_error(
    write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trust = ['certifi'] without certifi installed fails at load; with it, it loads."""
    path = write_policy("version = 1\n\ntrust = ['certifi']\n")
    assert not load_policy([("user", str(path), True)]).errors
    monkeypatch.setitem(sys.modules, "certifi", None)
    _new_runtime()
    policy = load_policy([("user", str(path), True)])
    (error,) = policy.errors
    assert (error.line, error.key) == (3, "trust")
    assert "certifi is not installed" in error.problem


def test_fifo_as_a_trust_bundle_is_a_policy_error_without_hanging(
    write_policy: WritePolicy, tmp_path: Path
) -> None:
    """trust naming a FIFO: a PolicyError at once (never a read that waits for a writer)."""
    fifo = tmp_path / "corp.pem"
    os.mkfifo(fifo)
    path = write_policy(f"trust = ['{fifo}']\n")
    (error,) = load_policy([("user", str(path), True)]).errors
    assert "not a regular file" in error.problem


def test_injected_contexts_drop_a_removed_ca_after_the_interval(
    tmp_path: Path, clock: ManualClock, write_policy: WritePolicy
) -> None:
    """Under the policy, ssl.create_default_context() made after the re-check rejects the CA."""
    import sslcustomize

    bundle, kept, removed, without = _two_ca_bundle(tmp_path)
    sslcustomize.inject(policy=write_policy(f"trust = ['{bundle}']\n"))
    use_clock(clock)
    assert memory_handshake(ssl.create_default_context(), _server(removed), "localhost")
    _same_size_rewrite(bundle, without)
    clock.now += _trust.REFRESH_INTERVAL + 1
    with pytest.raises(ssl.SSLCertVerificationError):
        memory_handshake(ssl.create_default_context(), _server(removed), "localhost")
    assert memory_handshake(ssl.create_default_context(), _server(kept), "localhost")


# --- The system bundle named as a file (SSL_CERT_FILE often is) ---------------------------------


def _system_in(directory: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, trustme.CA]:
    """Make ``directory`` the system store: a bundle beside the hashed entries indexing it."""
    ca = trustme.CA()
    der = ssl.PEM_cert_to_DER_cert(ca.cert_pem.bytes().decode("ascii"))
    directory.mkdir()
    bundle = directory / "ca-certificates.crt"
    ca.cert_pem.write_to_path(str(bundle))
    (directory / f"{subject_hash(der):08x}.0").write_bytes(ca.cert_pem.bytes())
    store = _trust.SystemStore(file=str(bundle), directory=str(directory), found_by="test")
    monkeypatch.setattr(_trust, "find_system_store", lambda: store)
    return bundle, ca


def test_the_system_bundle_named_as_a_file_is_its_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file source that is the system bundle loads the directory: no bundle read per process."""
    bundle, ca = _system_in(tmp_path / "certs", monkeypatch)
    read: list[str] = []

    def reading(path: str) -> bytes:
        read.append(path)
        return b""

    monkeypatch.setattr(_bundles, "_read_bytes", reading)
    linked = tmp_path / "cert.pem"
    linked.symlink_to(bundle)
    for path in (bundle, linked):
        anchors = _new_runtime().anchors_for([TrustSource(kind="file", path=str(path))])
        assert anchors == _trust.Anchors(directories=(str(tmp_path / "certs"),))
        assert _accepts_anchors(anchors, ca)
    assert read == []


def test_another_bundle_beside_the_system_one_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Twin: a different bundle, even in the same directory, is read for what it holds."""
    _, system_ca = _system_in(tmp_path / "certs", monkeypatch)
    other = tmp_path / "certs" / "extra.pem"
    extra = trustme.CA()
    extra.cert_pem.write_to_path(str(other))
    anchors = _new_runtime().anchors_for([TrustSource(kind="file", path=str(other))])
    assert anchors != _trust.Anchors(directories=(str(tmp_path / "certs"),))
    assert _accepts_anchors(anchors, extra)
    assert not _accepts_anchors(anchors, system_ca)


def _accepts_anchors(anchors: _trust.Anchors, ca: trustme.CA) -> bool:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    anchors.load_into(context)
    server = _server(ca)
    try:
        memory_handshake(context, server, "localhost")
    except ssl.SSLCertVerificationError:
        return False
    return True
