"""The hooked first context's shortcuts: checks written without ``re``, modules loaded late.

The policy reader checks DNS labels, pins and context names with string methods (compiling
the patterns cost a hooked process ~0.4 ms of its first context), ``datetime`` does not load
even for a policy that holds a date (the parse cache gives a date back as its day number), and
the key-line locator loads only when the parse cache misses.
Each shortcut accepts exactly what the pattern it replaces accepted, except a label that
ends in a newline, which the pattern let through (``$`` matches before a final newline).
"""

from __future__ import annotations

import json
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
from _fixtures import WritePolicy, first_context_modules, run_python
from _servers import serve_each, server_context
from sslcustomize._policy._hosts import parse_host_pattern
from sslcustomize._policy._read import parse_policy
from sslcustomize.exceptions import PolicyError

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator

    from conftest import StartServer

needs_wheel = pytest.mark.skipif(
    not any(os.path.isfile(os.path.join(p, "sslcustomize.pth")) for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

#: The pattern that DNS labels were matched with, kept to compare the string checks with.
OLD_LABEL = r"[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?"
#: The pattern that pins were matched with.
OLD_PIN = r"sha256/([A-Za-z0-9+/]{43}=)"
GOOD_PIN = "sha256/" + "A" * 43 + "="

LABELS = [
    "a", "z9", "_dmarc", "a-b", "a_b", "x" * 63, "x" * 64, "-a", "a-", "-", "", "a b", "a\t",
    "a--b", "0", "_", "a" + "-" * 61 + "b", "a" + "-" * 62 + "b", "a$", "a/b",
]  # fmt: skip
PINS = [
    GOOD_PIN, "sha256/" + "A" * 42 + "=", "sha256/" + "A" * 44, "sha256/" + "A" * 43 + "==",
    "sha1/" + "A" * 43 + "=", "sha256/" + "A" * 42 + "-=", "sha256/" + "A" * 42 + "==",
    " " + GOOD_PIN + " ", "SHA256/" + "A" * 43 + "=", "sha256/" + "é" * 43 + "=",
    "sha256/" + "/+" * 21 + "A=", "sha256/" + "A" * 42 + "B=",
]  # fmt: skip
CONTEXT_NAMES = [
    "myapp", "myapp.billing", "_x.y_2", "a..b", ".a", "a.", "2a", "a-b", "é", "a.2b", "a b",
]  # fmt: skip


def _no_check(_source: object) -> None:
    """Accept every trust source (these tests check no trust source)."""


def _accepts(text: str, tmp_path: Path) -> bool:
    try:
        parse_policy(text, path=str(tmp_path / "p.toml"), layer="process", check_source=_no_check)
    except PolicyError:
        return False
    return True


@pytest.mark.parametrize("label", LABELS)
def test_a_label_is_checked_as_the_pattern_checked_it(label: str) -> None:
    """A DNS label is accepted exactly when the old pattern matched all of it."""
    expected = re.fullmatch(OLD_LABEL, label) is not None
    try:
        parse_host_pattern(f"{label}.example")
    except ValueError:
        accepted = False
    else:
        accepted = True
    assert accepted == expected


def test_a_label_ending_in_a_newline_is_refused() -> None:
    """A label with a trailing newline is refused (the old ``re.match`` let it through)."""
    assert re.match(f"^{OLD_LABEL}$", "nas\n") is not None  # what the old check did
    with pytest.raises(ValueError, match="DNS label"):
        parse_host_pattern("nas\n.example")
    assert parse_host_pattern("nas.example").value == "nas.example"  # its twin


@pytest.mark.parametrize("pin", PINS)
def test_a_pin_is_checked_as_the_pattern_checked_it(pin: str, tmp_path: Path) -> None:
    """A pin is accepted exactly when the old pattern matched and it decodes to 32 bytes."""
    import base64
    import binascii

    match = re.fullmatch(OLD_PIN, pin.strip())
    try:
        expected = match is not None and len(base64.b64decode(match[1], validate=True)) == 32
    except binascii.Error:
        expected = False
    text = f"[[exception]]\nhost = 'a.example'\nreason = 'r'\npin = [{json.dumps(pin)}]\n"
    assert _accepts(text, tmp_path) == expected


@pytest.mark.parametrize("name", CONTEXT_NAMES)
def test_a_context_name_is_checked_as_the_pattern_checked_it(name: str, tmp_path: Path) -> None:
    """A ``[context."name"]`` is accepted exactly when the old pattern matched it."""
    pattern = r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*"
    expected = re.fullmatch(pattern, name) is not None
    text = f"[context.{json.dumps(name)}]\nmode = 'report'\n"
    assert _accepts(text, tmp_path) == expected


NO_DATE = """\
version = 1
trust = ["system"]

[[exception]]
host = "appliance.example.internal"
pin = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
reason = "a pinned appliance"
"""


def _loaded(policy: Path) -> set[str]:
    return first_context_modules({"SSLCUSTOMIZE_POLICY": str(policy)})[1]


#: A hooked child: its first context, then the runtime a first connection would make (the
#: policy read from the parse cache); prints the modules loaded by then.
_READ = (
    "import json, ssl, sys\nssl.create_default_context()\n"
    "from sslcustomize._runtime._state import current_runtime\ncurrent_runtime()\n"
    "print(json.dumps(sorted(sys.modules)))\n"
)


def _read(policy: Path) -> set[str]:
    result = run_python(_READ, env={"SSLCUSTOMIZE_POLICY": str(policy)})
    assert result.stderr == "", result.stderr
    return set(json.loads(result.stdout))


@needs_wheel
def test_a_policy_without_dates_loads_no_datetime(write_policy: WritePolicy) -> None:
    """A warm read of a policy with no date does not import ``datetime``."""
    policy = write_policy(NO_DATE)
    _read(policy)  # reads the policy once: the cache is warm after it
    loaded = _read(policy)
    assert "sslcustomize._policy._read" in loaded  # the policy was read
    assert "datetime" not in loaded
    assert "sslcustomize._policy._lines" not in loaded  # a warm cache locates no key
    first = _loaded(policy)  # and the first context alone reads none of it
    assert "sslcustomize._policy._read" not in first
    assert "datetime" not in first


@needs_wheel
def test_a_policy_with_a_date_still_reads_it(write_policy: WritePolicy) -> None:
    """Twin: with ``expires``, the date is read from the warm cache, still without datetime."""
    policy = write_policy(NO_DATE + "expires = 2099-01-01\n")
    code = (
        "import ssl\nssl.create_default_context()\n"
        "from sslcustomize._runtime._state import current_policy\n"
        "print(repr(current_policy().exceptions[0].expires))\n"
    )
    env = {"SSLCUSTOMIZE_POLICY": str(policy)}
    first = run_python(code, env=env)
    warm = run_python(code, env=env)
    assert first.stdout.strip() == warm.stdout.strip() == "datetime.date(2099, 1, 1)"
    assert "datetime" not in _read(policy)


#: A hooked child: makes smtplib's context (unverified in plain Python, gh-91826), then
#: blocks the modules named in argv[3:] (``import`` of them raises ImportError, as a broken or
#: half-upgraded install would), connects to argv[1]:argv[2] and says what happened.
_LATE = """
import socket, ssl, sys
context = ssl._create_stdlib_context()
before = set(sys.modules)
for name in sys.argv[3:]:
    sys.modules[name] = None
host, port = sys.argv[1], int(sys.argv[2])
try:
    with socket.create_connection((host, port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname=host) as tls:
            tls.sendall(b"GET / HTTP/1.0\\r\\n\\r\\n")
            assert tls.recv(4096)
    print("OK")
except Exception as error:
    print("REFUSED", type(error).__name__)
print(" ".join(sorted(n for n in set(sys.modules) - before if n.startswith("sslcustomize"))))
"""


def _late(policy: Path, server: tuple[str, int], *blocked: str) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", _LATE, server[0], str(server[1]), *blocked],
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return result.stdout.splitlines()


@needs_wheel
def test_a_failed_late_import_never_lets_a_bad_certificate_through(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Attack: a module the first connection imports late that cannot be imported fails closed.

    The first context defers the connection path (connect, gate, plan, engine, verdict, DER,
    reports, the public errors' classes) to the first handshake. Whichever of those cannot be
    imported then, smtplib's context still refuses a self-signed server that plain Python
    would accept.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    bad = https_server(pki["self_signed"])
    verdict, late = _late(policy, bad)
    assert verdict == "REFUSED CertificateRejected"  # the twin: nothing blocked
    deferred = late.split()
    assert "sslcustomize._connection._connect" in deferred
    assert "sslcustomize.exceptions" in deferred  # the errors' classes load with the first one
    assert "sslcustomize.exceptions" in deferred  # its classes load with the first rejection
    for name in deferred:
        outcome = _late(policy, bad, name)[0]
        assert outcome.startswith("REFUSED"), f"{name} blocked: {outcome}"


@needs_wheel
def test_a_good_server_is_reached_when_every_late_import_works(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Twin: with nothing blocked, the same child reaches a server the policy trusts."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    assert _late(policy, https_server(pki["good"]))[0] == "OK"


# --- The first connection after a first context made on the short path --------------------------


class _Recorder:
    """A loopback TLS server presenting one certificate case; keeps what each client sent."""

    def __init__(self, case: _pki.CertCase) -> None:
        self.context = server_context(case)
        self.received: list[bytes] = []
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        serve_each(self.listener, self._handle)

    def _handle(self, raw: socket.socket) -> None:
        raw.settimeout(10)
        data = b""
        try:
            with self.context.wrap_socket(raw, server_side=True) as tls:
                while chunk := tls.recv(4096):
                    data += chunk
        except (OSError, ssl.SSLError):
            pass  # the client refused the handshake, or went away: what it sent is kept
        finally:
            raw.close()
        self.received.append(data)

    def close(self) -> None:
        self.listener.close()


@pytest.fixture
def recorder() -> Iterator[Callable[[_pki.CertCase], _Recorder]]:
    """Start recording servers (``recorder(case)``); close them after the test."""
    started: list[_Recorder] = []

    def start(case: _pki.CertCase) -> _Recorder:
        started.append(_Recorder(case))
        return started[-1]

    yield start
    for server in started:
        server.close()


#: A hooked child: its first context, then (implicit handshake) ``sendall`` of a secret to
#: 127.0.0.1:argv[1]. It says whether the context was made without the connection path and
#: without the exceptions' module (the short path), and what the connection did.
_FIRST_SEND = """
import socket, ssl, sys
context = ssl.create_default_context()
late = ("sslcustomize._connection._connect", "sslcustomize.exceptions")
short = not any(name in sys.modules for name in late)
raw = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
tls = context.wrap_socket(raw, server_hostname="127.0.0.1", do_handshake_on_connect=False)
try:
    tls.sendall(b"secret\\n")
    print("SENT", short)
except ssl.SSLCertVerificationError as error:
    print("REFUSED", type(error).__name__, short)
finally:
    tls.close()
"""


def _child(code: str, policy: Path, *ports: int) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", code, *map(str, ports)],
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    assert result.stderr == "", result.stderr
    return result.stdout.splitlines()


@needs_wheel
def test_no_byte_reaches_a_mitm_on_the_first_connection_after_a_short_first_context(
    pki: _pki.TestPKI,
    recorder: Callable[[_pki.CertCase], _Recorder],
    write_policy: WritePolicy,
    tmp_path: Path,
) -> None:
    """Attack: the first connection of a process whose first context loaded no connection path.

    The attacker's certificate is valid for the name but comes from a CA the policy does not
    trust. The child's first context is made without the connection path or the exceptions'
    module (loaded by this connection); ``sendall`` before any explicit handshake must be
    refused, and the attacker must receive nothing.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    attacker = recorder(pki["unknown_issuer"])
    assert _child(_FIRST_SEND, policy, attacker.port) == ["REFUSED CertificateRejected True"]
    assert attacker.received in ([], [b""])


@needs_wheel
def test_the_real_server_gets_the_bytes_of_that_first_connection(
    pki: _pki.TestPKI,
    recorder: Callable[[_pki.CertCase], _Recorder],
    write_policy: WritePolicy,
    tmp_path: Path,
) -> None:
    """Twin: the same child reaches a server the policy trusts, which gets what it sent."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    real = recorder(pki["good"])
    assert _child(_FIRST_SEND, policy, real.port) == ["SENT True"]
    for _ in range(100):  # the server thread records the connection once the client closed it
        if real.received:
            break
        threading.Event().wait(0.05)
    assert real.received == [b"secret\n"]


#: A hooked child: its first context on the short path, then four threads released at once,
#: each making the process's first connections: two with that context, two with a context each
#: makes after the release; even threads go to argv[1] (trusted), odd ones to argv[2].
_FIRST_RACE = """
import json, socket, ssl, sys, threading
shared = ssl.create_default_context()
good, bad = int(sys.argv[1]), int(sys.argv[2])
start = threading.Barrier(4)
results = {}
def connect(index):
    start.wait()
    port = good if index % 2 == 0 else bad
    try:
        context = shared if index < 2 else ssl.create_default_context()
        with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                tls.sendall(b"x\\n")
        results[index] = "OK"
    except ssl.SSLCertVerificationError as error:
        results[index] = "REFUSED " + type(error).__name__
    except BaseException as error:
        results[index] = "ERROR " + repr(error)
threads = [threading.Thread(target=connect, args=(index,)) for index in range(4)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join()
print(json.dumps([results.get(index, "NONE") for index in range(4)]))
"""


@needs_wheel
def test_threads_making_the_first_connections_at_once_all_get_verdicts(
    pki: _pki.TestPKI,
    recorder: Callable[[_pki.CertCase], _Recorder],
    write_policy: WritePolicy,
    tmp_path: Path,
) -> None:
    """Threads race the late imports of the first connection: each gets its own verdict.

    Attack and twin at once: the threads sent to the attacker are refused, those sent to the
    real server get through, and none meets a half-loaded module (an ``ImportError`` or
    ``AttributeError`` would be an ``ERROR`` here). Fresh processes, several times over.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    real, attacker = recorder(pki["good"]), recorder(pki["unknown_issuer"])
    refused = "REFUSED CertificateRejected"
    for _ in range(4):
        (line,) = _child(_FIRST_RACE, policy, real.port, attacker.port)
        assert json.loads(line) == ["OK", refused, "OK", refused]
    assert all(data == b"" for data in attacker.received)
