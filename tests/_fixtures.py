"""Fixtures for policy files and injection, loaded by conftest.py (``pytest_plugins``)."""

from __future__ import annotations

import json
import os
import ssl
import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import trustme

import _pki
import sslcustomize
from sslcustomize._runtime import _state
from sslcustomize._support._clock import Clock

WritePolicy = Callable[..., Path]

#: ``python -c STDLIB_CLIENT_SCRIPT PORT``: one smtplib-style client (``_create_stdlib_context``)
#: to a loopback server on PORT, whose rejection is the record a report test looks for.
STDLIB_CLIENT_SCRIPT = """
import socket, ssl, sys
with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20) as raw:
    try:
        ssl._create_stdlib_context().wrap_socket(raw, server_hostname="localhost")
    except ssl.SSLError:
        pass
"""


def installed_with_hook() -> bool:
    """Tell whether this interpreter has sslcustomize installed, with its ``.pth`` hook.

    A wheel install puts ``sslcustomize.pth`` in site-packages; ``nox -s fast`` runs the unit
    tests from the source tree (``PYTHONPATH=src``), where a fresh interpreter started
    without that variable imports no sslcustomize and runs no hook. ``src`` holds a
    ``sslcustomize.pth`` too, but Python reads ``.pth`` files only in site directories.
    """
    import site

    directories = [*site.getsitepackages(), site.getusersitepackages()]
    return any(os.path.isfile(os.path.join(d, "sslcustomize.pth")) for d in directories)


@pytest.fixture
def write_policy(tmp_path: Path) -> WritePolicy:
    """Write a policy file (dedented) and return its path."""
    counter = iter(range(1000))

    def write(text: str, name: str | None = None) -> Path:
        path = tmp_path / (name or f"policy{next(counter)}.toml")
        path.write_text(textwrap.dedent(text), encoding="utf-8")
        return path

    return write


@pytest.fixture
def pki_root(pki: _pki.TestPKI, tmp_path: Path) -> Path:
    """The root of the session's test PKI (``conftest``'s ``pki``) as a PEM file."""
    path = tmp_path / "pki-root.pem"
    path.write_bytes(pki["good"].ca_pem)
    return path


@pytest.fixture
def inject_pki_root(write_policy: WritePolicy, pki_root: Path) -> Path:
    """Inject a policy whose only trust is the test PKI's root; return the root's file."""
    sslcustomize.inject(write_policy(f"trust = ['{pki_root}']\n"))
    return pki_root


@pytest.fixture
def inject_policy() -> Iterator[Callable[[Path | str], None]]:
    """Inject with a given policy file; extract afterwards, whatever happens."""

    def inject(path: Path | str) -> None:
        sslcustomize.inject(policy=path)

    yield inject
    sslcustomize.extract()
    _state.set_policy(None)


@pytest.fixture(autouse=True)
def _fresh_state() -> Iterator[None]:
    """Start and end every test with no cached policy, anchors or decisions."""
    _state.set_policy(None)
    yield
    if sslcustomize.is_injected():
        sslcustomize.extract()
    _state.set_policy(None)


def memory_handshake(
    client: ssl.SSLContext, server: ssl.SSLContext, server_hostname: str | None
) -> ssl.SSLObject:
    """Run a TLS handshake between two contexts over memory BIOs; return the client side.

    Raises:
        ssl.SSLError: The handshake failed on either side (the client's error wins).
    """
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    client_side = client.wrap_bio(c_in, c_out, server_hostname=server_hostname)
    server_side = server.wrap_bio(s_in, s_out, server_side=True)
    client_done = server_done = False
    for _ in range(20):
        if not client_done:
            try:
                client_side.do_handshake()
                client_done = True
            except ssl.SSLWantReadError:
                pass
        s_in.write(c_out.read())
        if not server_done:
            try:
                server_side.do_handshake()
                server_done = True
            except ssl.SSLWantReadError:
                pass
            except ssl.SSLError:
                c_in.write(s_out.read())
                client_side.do_handshake()  # raises the client's view if it has one
                raise
        c_in.write(s_out.read())
        if client_done and server_done:
            return client_side
    raise AssertionError("handshake did not finish")


@pytest.fixture(scope="session")
def test_ca() -> trustme.CA:
    """A CA made for this test session."""
    return trustme.CA()


@pytest.fixture(scope="session")
def server_context(test_ca: trustme.CA) -> ssl.SSLContext:
    """A server context with a certificate for localhost, 127.0.0.1 and ::1 from ``test_ca``."""
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    test_ca.issue_cert("localhost", "127.0.0.1", "::1").configure_cert(context)
    return context


@pytest.fixture
def ca_file(test_ca: trustme.CA, tmp_path: Path) -> Path:
    """The session CA's certificate as a PEM file."""
    path = tmp_path / "test-ca.pem"
    test_ca.cert_pem.write_to_path(str(path))
    return path


def run_python(
    code: str,
    *,
    env: dict[str, str] | None = None,
    check: bool = True,
    flags: tuple[str, ...] = (),
) -> subprocess.CompletedProcess[str]:
    """Run ``code`` in a fresh interpreter of this environment (so the .pth hook runs).

    ``flags`` go before ``-c`` (``-S``: the code runs ``site.main()`` itself, hook included).
    """
    environment = dict(os.environ)
    environment.update(env or {})
    result = subprocess.run(
        [sys.executable, *flags, "-c", textwrap.dedent(code)],
        capture_output=True,
        text=True,
        env=environment,
        timeout=60,
        check=False,
    )
    if check and result.returncode != 0:
        raise AssertionError(f"exit {result.returncode}\n{result.stdout}\n{result.stderr}")
    return result


FIRST_CONTEXT_SCRIPT = """
import json, ssl, sys
before = sorted(sys.modules)
ssl.create_default_context()
print(json.dumps([before, sorted(sys.modules)]))
"""


def first_context_modules(env: dict[str, str]) -> tuple[set[str], set[str]]:
    """Return the modules of a fresh hooked interpreter before and after its first context.

    The child must say nothing on stderr: a policy it cannot read would measure the strict
    fallback instead.
    """
    result = run_python(FIRST_CONTEXT_SCRIPT, env=env)
    assert result.stderr == "", result.stderr
    before, after = json.loads(result.stdout)
    return set(before), set(after)


class ManualClock(Clock):
    """A clock whose monotonic time a test moves by hand (``clock.now += 1``).

    Its wall time stays the system's: the trust cache compares it with files' real mtimes.
    """

    __slots__ = ("now",)

    def __init__(self, start: float = 1000.0) -> None:
        """Start at ``start`` seconds."""
        super().__init__(monotonic=lambda: self.now)
        self.now = start


def use_clock(clock: Clock) -> None:
    """Give the policy that inject() pinned a new runtime that reads ``clock``."""
    _state.set_policy(_state.current_policy(), pinned=True, clock=clock)


def wrapped_rejection(error: BaseException) -> sslcustomize.CertificateRejected | None:
    """Find the CertificateRejected a library wrapped in its own exceptions."""
    seen: set[int] = set()
    pending: list[object] = [error]
    while pending:
        item = pending.pop()
        if not isinstance(item, BaseException) or id(item) in seen:
            continue
        seen.add(id(item))
        if isinstance(item, sslcustomize.CertificateRejected):
            return item
        pending.extend([item.__cause__, item.__context__, *item.args])
        pending.append(getattr(item, "reason", None))
        pending.append(getattr(item, "os_error", None))
    return None
