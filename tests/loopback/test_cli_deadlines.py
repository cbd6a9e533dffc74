"""Every network wait of the command line is bounded as a whole (issue 32 #11).

A server that trickles its STARTTLS dialogue or its handshake one byte at a time used to keep
``check --timeout 2`` (and each target of ``scan``) waiting for hours, since each read got a
fresh timeout. Each trickling server here is bounded itself (it stops after a fixed number of
bytes) and records whether the client hung up before it was done: the attack tests assert that
it was cut off, not how long anything took.
"""

from __future__ import annotations

import contextlib
import json
import socket
import ssl
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

import _pki
import _servers
from sslcustomize._cli import main

if TYPE_CHECKING:
    from conftest import StartServer

# 300 bytes at 0.1 s: half a minute, far past the one-second timeouts below.
_TRICKLE = 300
_INTERVAL = 0.1


@contextlib.contextmanager
def _serving(
    handle: Callable[[socket.socket], None],
) -> Iterator[tuple[int, list[threading.Thread]]]:
    """Run ``handle`` on a thread per connection to a loopback port; stop when the test is done."""
    listener = socket.create_server(("127.0.0.1", 0))
    listener.settimeout(0.1)  # a closed listener does not wake accept(): poll a flag instead
    stop = threading.Event()
    workers: list[threading.Thread] = []

    def serve() -> None:
        while not stop.is_set():
            try:
                sock, _ = listener.accept()
            except TimeoutError:
                continue
            sock.settimeout(None)
            worker = threading.Thread(target=handle, args=(sock,), daemon=True)
            worker.start()
            workers.append(worker)

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1], workers
    finally:
        stop.set()
        thread.join(5)
        listener.close()
        for worker in workers:
            worker.join(_TRICKLE * _INTERVAL + 5)


class _Trickler:
    """Send ``head`` and then one byte per interval, ``_TRICKLE`` bytes; note who hung up."""

    def __init__(self, head: bytes, filler: bytes, *, after_hello: bool = False) -> None:
        self.head = head
        self.filler = filler
        self.after_hello = after_hello
        self.cut_off: list[bool] = []
        self.port = 0
        self.threads: list[threading.Thread] = []

    def __call__(self, sock: socket.socket) -> None:
        """Trickle to one connection."""
        with sock:
            try:
                if self.after_hello:
                    sock.recv(4096)  # the ClientHello
                sock.sendall(self.head)
                for _ in range(_TRICKLE):
                    time.sleep(_INTERVAL)
                    sock.sendall(self.filler)
            except OSError:  # the client hung up: what the attack tests want
                self.cut_off.append(True)
                return
            self.cut_off.append(False)


@contextlib.contextmanager
def _trickling(head: bytes, filler: bytes, *, after_hello: bool = False) -> Iterator[_Trickler]:
    server = _Trickler(head, filler, after_hello=after_hello)
    with _serving(server) as (port, workers):
        server.port, server.threads = port, workers
        yield server


def _hung_up(server: _Trickler, connections: int) -> bool:
    """Tell whether every connection the client opened was cut off by the client."""
    for worker in server.threads:
        worker.join(5)  # the server notices the hang-up at its next byte
    return len(server.cut_off) == connections and all(server.cut_off)


def test_a_trickled_starttls_dialogue_is_given_up_at_the_timeout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An SMTP greeting sent a byte at a time: check gives up when --timeout runs out."""
    with _trickling(b"220-", b"x") as server:
        argv = ["check", "--starttls", "smtp", "--timeout", "1", f"127.0.0.1:{server.port}"]
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert _hung_up(server, 1)
    assert "the SMTP dialogue with 127.0.0.1:" in err
    assert "did not finish within 1 s" in err


def test_a_trickled_handshake_is_given_up_at_the_timeout(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A ServerHello sent a byte at a time: the handshake is bounded as a whole too."""
    # A handshake record whose length (0x4000) the trickle never completes.
    with _trickling(b"\x16\x03\x03\x40\x00", b"\x00", after_hello=True) as server:
        assert main(["check", "--timeout", "1", f"127.0.0.1:{server.port}"]) == 2
        err = capsys.readouterr().err
        assert _hung_up(server, 1)
    assert "the TLS handshake with 127.0.0.1:" in err
    assert "did not finish within 1 s" in err


def test_each_scan_target_is_given_up_at_the_timeout(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """scan: every trickling target is an error after --timeout, and the scan ends."""
    with _trickling(b"220-", b"x") as server:
        targets = tmp_path / "targets.txt"
        targets.write_text(f"127.0.0.1:{server.port} smtp\n127.0.0.1:{server.port} smtp\n")
        assert main(["scan", "--json", "--timeout", "1", str(targets)]) == 1
        rows = json.loads(capsys.readouterr().out)["results"]
        assert _hung_up(server, 2)
    assert [row["verdict"] for row in rows] == ["error", "error"]
    assert all("did not finish within 1 s" in row["error"] for row in rows)


def test_starttls_against_a_port_that_speaks_tls_directly_says_so(
    pki: _pki.TestPKI,
    https_server: StartServer,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """--starttls smtp on an implicit-TLS port: told to drop --starttls, not a timeout."""
    _, port = https_server(pki["good"], "localhost")
    assert main(["check", "--starttls", "smtp", "--timeout", "30", f"localhost:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"localhost:{port} speaks TLS directly, not SMTP with STARTTLS" in err
    assert f"sslcustomize check localhost:{port}" in err


def test_a_slow_smtp_greeting_still_upgrades(
    pki: _pki.TestPKI, capsys: pytest.CaptureFixture[str]
) -> None:
    """The twin: a server that greets after a pause (greet-pause) is not taken for TLS.

    The chain it sends after STARTTLS is fetched (its pin is the served leaf's) and judged: the
    test root is not trusted here, so it is rejected for its issuer, not for the dialogue.
    """
    context = _servers.server_context(pki["good"])
    with _serving(lambda sock: _slow_smtp(sock, context)) as (port, _):
        argv = ["check", "--json", "--starttls", "smtp", "--timeout", "20"]
        code = main([*argv, f"localhost:{port}"])
        document = json.loads(capsys.readouterr().out)
    assert (code, document["verdict"], document["starttls"]) == (1, "rejected", "smtp")
    assert document["chain"][0]["pin"] == pki["good"].pin
    assert document["reasons"] == ["unknown_issuer"]


def _slow_smtp(sock: socket.socket, context: ssl.SSLContext) -> None:
    """Greet after 3 s (past the quiet second), then EHLO, STARTTLS and a TLS handshake."""
    with sock, contextlib.suppress(OSError):
        sock.settimeout(20)
        time.sleep(3)
        sock.sendall(b"220 slow.example ESMTP\r\n")
        sock.settimeout(20)
        reader = sock.makefile("rb")
        for line in reader:
            if line.upper().startswith(b"EHLO"):
                sock.sendall(b"250-slow.example\r\n250 STARTTLS\r\n")
            elif line.upper().startswith(b"STARTTLS"):
                sock.sendall(b"220 go ahead\r\n")
                with context.wrap_socket(sock, server_side=True) as tls:
                    tls.recv(1)
                return
            else:
                sock.sendall(b"500 no\r\n")  # a second connection's ClientHello, say
                return
