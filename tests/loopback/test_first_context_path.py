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
import marshal
import os
import re
import socket
import ssl
import subprocess
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

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
    _late(policy, bad)  # the first process reads the policy: the next ones make it pending
    verdict, late = _late(policy, bad)
    assert verdict == "REFUSED CertificateRejected"  # the twin: nothing blocked
    deferred = late.split()
    assert "sslcustomize._connection._connect" in deferred
    assert "sslcustomize.exceptions" in deferred  # its classes load with the first rejection
    # The context was made without the policy, the trust layer or the runtime: they load here.
    assert {"sslcustomize._runtime._state", "sslcustomize._policy._load"} <= set(deferred)
    assert "sslcustomize._trust._anchors" in deferred
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
    good = https_server(pki["good"])
    assert _late(policy, good)[0] == "OK"  # the full path (the policy read at the context)
    assert _late(policy, good)[0] == "OK"  # a pending context


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
#: 127.0.0.1:argv[1]. It says whether the context was made without the connection path, the
#: exceptions' module, the policy and the runtime (pending), and what the connection did.
_FIRST_SEND = """
import socket, ssl, sys
context = ssl.create_default_context()
late = ("sslcustomize._connection._connect", "sslcustomize.exceptions",
        "sslcustomize._runtime._state", "sslcustomize._policy._load")
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


def _warm(policy: Path) -> None:
    """Read ``policy`` in a first process: the next ones make their first contexts pending."""
    _child("import ssl; ssl.create_default_context()", policy)


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
    _warm(policy)
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
    _warm(policy)
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
pending = "sslcustomize._runtime._state" not in sys.modules
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
print(json.dumps([pending, *(results.get(index, "NONE") for index in range(4))]))
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
    _warm(policy)
    for _ in range(4):  # each settles one pending context in four threads at once
        (line,) = _child(_FIRST_RACE, policy, real.port, attacker.port)
        assert json.loads(line) == [True, "OK", refused, "OK", refused]
    assert all(data == b"" for data in attacker.received)


# --- A pending first context: what code sets on it before its first connection ------------------

#: A hooked child: its first context, then one change made before any connection (argv[2]),
#: then a connection to 127.0.0.1:argv[1]. It prints whether the context was made pending
#: (without the runtime), what the connection did, and what the context says afterwards.
_SETTINGS = """
import json, socket, ssl, sys
port, step = int(sys.argv[1]), sys.argv[2]
context = ssl.create_default_context()
pending = "sslcustomize._runtime._state" not in sys.modules
made = context.minimum_version.name
seen = []
if step == "opt_out":
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
elif step == "cafile":
    context.load_verify_locations(cafile=sys.argv[3])
elif step == "ciphers":
    context.set_ciphers("ECDHE+AESGCM")
elif step == "tls13":
    context.minimum_version = ssl.TLSVersion.TLSv1_3
elif step == "tls12":
    context.minimum_version = ssl.TLSVersion.TLSv1_2
elif step == "store":
    seen = [len(context.get_ca_certs()), context.cert_store_stats()["x509_ca"]]
try:
    with socket.create_connection(("127.0.0.1", port), timeout=10) as raw:
        with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
            tls.sendall(b"x\\n")
            outcome = "OK " + str(tls.version())
except ssl.SSLError as error:
    outcome = "REFUSED " + type(error).__name__
print(json.dumps([pending, made, outcome, context.minimum_version.name, seen]))
"""


def _hooked(code: str, policy: Path, cache: Path, *args: object) -> tuple[list[Any], str]:
    """Run ``code`` hooked under ``policy`` with the cache directory ``cache``."""
    result = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy), "XDG_CACHE_HOME": str(cache)},
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(result.stdout), result.stderr


def _full_and_pending(code: str, policy: Path, tmp_path: Path, *args: object) -> list[Any]:
    """Run ``code`` on the full path and on a pending first context; both must say the same.

    The full path: an empty cache (the policy read when the context is made). Pending: a
    second process with the cache the first one filled. Returns what the pending one said.
    """
    cold = tmp_path / f"cold-{len(list(tmp_path.glob('cold-*')))}"
    full, full_err = _hooked(code, policy, cold, *args)
    pending, pending_err = _hooked(code, policy, cold, *args)
    assert full[0] is False, "an empty cache: the policy is read at the first context"
    assert pending[0] is True, "a warm cache: the first context is made without the runtime"
    assert (pending[1:], pending_err) == (full[1:], full_err)
    return pending


SETTINGS_CASES = [
    # (policy, step, server case, what the connection must do)
    ("strict", "opt_out", "unknown_issuer", "REFUSED CertificateRejected"),  # attack
    ("strict", "opt_out", "good", "OK"),  # its twin
    ("default", "opt_out", "unknown_issuer", None),  # obeyed and recorded, as on the full path
    ("default", "cafile", "unknown_issuer", None),
    ("default", "ciphers", "good", "OK"),
    ("default", "tls13", "good", "OK TLSv1.3"),
    ("default", "store", "good", "OK"),
    ("default", "none", "self_signed", "REFUSED CertificateRejected"),
]


@needs_wheel
@pytest.mark.parametrize(("policy_kind", "step", "case", "expected"), SETTINGS_CASES)
def test_settings_made_before_the_first_connection_are_judged_as_on_the_full_path(
    pki: _pki.TestPKI,
    https_server: StartServer,
    write_policy: WritePolicy,
    tmp_path: Path,
    policy_kind: str,
    step: str,
    case: str,
    expected: str | None,
) -> None:
    """A pending context's settings reach the verdict exactly as on a context made in full.

    Each change code makes between ``create_default_context()`` and the first connection
    (a code opt-out, its own CA file, ciphers, versions, a read of the store) gives the same
    outcome, and the same messages, whether the context was made with the runtime or
    pending; where the policy refuses code opt-outs the attacker is refused on both.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    foreign = tmp_path / "foreign.pem"
    foreign.write_bytes(pki.foreign_root.pem)
    text = f"trust = ['{root}']\n"
    if policy_kind == "strict":
        text += "allow_code_opt_out = false\n"
    policy = write_policy(text)
    server = https_server(pki[case])
    said = _full_and_pending(_SETTINGS, policy, tmp_path, server.port, step, foreign)
    if expected is not None:
        assert said[2].startswith(expected), said


@needs_wheel
def test_a_policy_minimum_version_is_on_a_pending_context_and_refuses_a_downgrade(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Attack: a server that offers only TLS 1.2 under ``minimum_tls = "1.3"``, pending or not."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\nminimum_tls = \"1.3\"\n")
    old = https_server(pki["good"], maximum_version=ssl.TLSVersion.TLSv1_2)
    said = _full_and_pending(_SETTINGS, policy, tmp_path, old.port, "none")
    assert said[1] == "TLSv1_3"  # on the context from the start, as the entry says
    assert said[2].startswith("REFUSED")
    twin = https_server(pki["good"])
    assert _full_and_pending(_SETTINGS, policy, tmp_path, twin.port, "none")[2] == "OK TLSv1.3"


def _forge_minimum(cache: Path, version: str) -> None:
    """Rewrite the first-context entry in ``cache`` to say ``version`` for every name."""
    (entry,) = (cache / "sslcustomize" / "first-context").iterdir()
    # S302: the test's own entry, in its own temporary directory.
    form, files, _default, rules = marshal.loads(entry.read_bytes())  # noqa: S302
    entry.write_bytes(marshal.dumps((form, files, version, dict.fromkeys(rules, version))))


@needs_wheel
def test_an_entry_that_says_less_than_the_policy_never_lowers_its_minimum(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Attack: an entry saying TLS 1.2 for a policy saying 1.3 (forged, or stale).

    The pending context starts with what the entry says, and gets the policy's minimum
    version when it is settled, before its first handshake: the TLS 1.2 server is refused.
    A version code sets itself before that stays, and is judged as on the full path.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\nminimum_tls = \"1.3\"\n")
    cache = tmp_path / "cache"
    old = https_server(pki["good"], maximum_version=ssl.TLSVersion.TLSv1_2)
    full, _ = _hooked(_SETTINGS, policy, cache, old.port, "tls12")  # fills the cache
    _forge_minimum(cache, "1.2")
    said, _ = _hooked(_SETTINGS, policy, cache, old.port, "none")
    assert said[:2] == [True, "TLSv1_2"]  # the forged entry was used...
    assert said[2].startswith("REFUSED")  # ...and the policy's minimum applied before the handshake
    assert said[3] == "TLSv1_3"
    # Code lowering the version itself: judged against the policy, pending or not.
    lowered, _ = _hooked(_SETTINGS, policy, cache, old.port, "tls12")
    assert lowered[0] is True
    assert lowered[2:] == full[2:]


@needs_wheel
def test_an_edited_policy_is_read_again_and_not_taken_from_the_entry(
    write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Twin of the above: a policy whose text changed misses the entry; the next one hits."""
    code = (
        "import json, ssl, sys\ncontext = ssl.create_default_context()\n"
        "print(json.dumps(['sslcustomize._runtime._state' not in sys.modules,"
        " context.minimum_version.name]))\n"
    )
    policy = write_policy('minimum_tls = "1.2"\n')
    cache = tmp_path / "cache"
    assert _hooked(code, policy, cache)[0] == [False, "TLSv1_2"]
    assert _hooked(code, policy, cache)[0] == [True, "TLSv1_2"]
    policy.write_text('minimum_tls = "1.3"\n', encoding="utf-8")
    assert _hooked(code, policy, cache)[0] == [False, "TLSv1_3"]
    assert _hooked(code, policy, cache)[0] == [True, "TLSv1_3"]


#: A hooked child: a first context, then inject() of the policy file argv[2], then a second
#: context; each connects to 127.0.0.1:argv[1].
_REPLACED = """
import json, socket, ssl, sys
import sslcustomize
early = ssl.create_default_context()
pending = "sslcustomize._runtime._state" not in sys.modules
sslcustomize.inject(sys.argv[2])
late = ssl.create_default_context()
said = [pending]
for context in (early, late):
    try:
        with socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10) as raw:
            with context.wrap_socket(raw, server_hostname="127.0.0.1") as tls:
                said.append("OK")
    except ssl.SSLError as error:
        said.append("REFUSED " + type(error).__name__)
print(json.dumps(said))
"""


@needs_wheel
def test_a_pending_context_keeps_the_policy_it_was_made_under(
    pki: _pki.TestPKI, https_server: StartServer, write_policy: WritePolicy, tmp_path: Path
) -> None:
    """Code replacing the policy before a pending context's first connection does not change it.

    As a context made with the runtime keeps its runtime: the first context connects under the
    files' policy (which trusts the server's CA), one made after ``inject()`` under the new
    one (which does not), on both paths.
    """
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    policy = write_policy(f"trust = ['{root}']\n")
    other = tmp_path / "other.toml"
    other.write_text('trust = ["system"]\n', encoding="utf-8")
    server = https_server(pki["good"])
    said = _full_and_pending(_REPLACED, policy, tmp_path, server.port, other)
    assert said[1:] == ["OK", "REFUSED CertificateRejected"]
