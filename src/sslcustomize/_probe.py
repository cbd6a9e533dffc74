"""Fetch the certificate chain a server sends: connect, speak STARTTLS if asked, handshake.

Used by ``check`` and ``trust``. The handshake here does not verify (the point is to see the
chain whatever it is); verification happens afterwards, offline, under the policy. Nothing is
sent after the handshake.
"""

from __future__ import annotations

import socket
import ssl
from dataclasses import dataclass
from urllib.parse import urlsplit

from ._hosts import parse_address
from ._reasons import STARTTLS_PORTS
from ._replay import der_chain
from ._sslclass import StdlibContext
from .exceptions import SSLCustomizeError

__all__ = ["STARTTLS_PORTS", "ProbeError", "Target", "fetch_chain", "parse_target"]

# Implicit-TLS URL schemes and their default ports.
SCHEMES = {"https": 443, "smtps": 465, "imaps": 993, "pop3s": 995, "ftps": 990, "ldaps": 636}


class ProbeError(SSLCustomizeError):
    """The server could not be checked (DNS, refused, timeout, no TLS); a one-line reason."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Target:
    """Where to connect and how."""

    host: str
    port: int
    starttls: str | None = None

    def __str__(self) -> str:
        """Return ``host:port`` (IPv6 in brackets)."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"


def parse_target(text: str, starttls: str | None = None) -> Target:
    """Parse ``host[:port]``, ``[v6]:port`` or a URL (``https://``, ``smtps://``...).

    Raises:
        ValueError: The target cannot be understood; the message says what is expected.
    """
    default = STARTTLS_PORTS[starttls] if starttls else 443
    if "://" in text:
        parts = urlsplit(text)
        if parts.scheme not in SCHEMES:
            known = ", ".join(f"{s}://" for s in SCHEMES)
            raise ValueError(f"unknown scheme {parts.scheme!r}: use {known} or --starttls")
        if not parts.hostname:
            raise ValueError(f"no host in {text!r}")
        try:
            port = parts.port or SCHEMES[parts.scheme]
        except ValueError:
            raise ValueError(f"bad port in {text!r}") from None
        return Target(host=parts.hostname, port=port, starttls=starttls)
    if text.startswith("["):
        host, _, rest = text[1:].partition("]")
        port_text = rest.removeprefix(":")
    elif text.count(":") == 1:
        host, _, port_text = text.partition(":")
    else:
        host, port_text = text, ""
    if not host:
        raise ValueError(f"no host in {text!r}: write host[:port] or a URL")
    if port_text and not (port_text.isdigit() and 0 < int(port_text) < 65536):
        raise ValueError(f"bad port {port_text!r} in {text!r}")
    return Target(host=host, port=int(port_text) if port_text else default, starttls=starttls)


class _Lines:
    """Read CRLF lines from a plain socket, for the STARTTLS dialogue."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock = sock
        self.buffer = b""

    def line(self) -> str:
        while b"\n" not in self.buffer:
            data = self.sock.recv(4096)
            if not data:
                raise ProbeError("the server closed the connection during the STARTTLS dialogue")
            self.buffer += data
            if len(self.buffer) > 65536:
                raise ProbeError("the server sent an over-long line before TLS")
        line, _, self.buffer = self.buffer.partition(b"\n")
        return line.decode("latin-1").rstrip("\r")

    def send(self, text: str) -> None:
        self.sock.sendall(text.encode("ascii") + b"\r\n")


def _smtp_reply(lines: _Lines) -> str:
    """Read a (possibly multi-line) SMTP or FTP reply; return its last line."""
    line = lines.line()
    while len(line) > 3 and line[3] == "-":
        line = lines.line()
    return line


def _smtp_like(lines: _Lines, command: str | None, request: str, expected: str) -> None:
    """SMTP and FTP: a 220 greeting, optionally EHLO, then the request and its reply code."""
    greeting = _smtp_reply(lines)
    if not greeting.startswith("220"):
        raise ProbeError(f"unexpected greeting: {greeting!r}")
    if command:
        lines.send(command)
        _smtp_reply(lines)
    lines.send(request)
    reply = _smtp_reply(lines)
    if not reply.startswith(expected):
        raise ProbeError(f"the server refused {request}: {reply!r}")


def _imap(lines: _Lines) -> None:
    greeting = lines.line()
    if not greeting.startswith("* OK"):
        raise ProbeError(f"unexpected greeting: {greeting!r}")
    lines.send("a1 STARTTLS")
    reply = lines.line()
    while reply.startswith("*"):
        reply = lines.line()
    if not reply.startswith("a1 OK"):
        raise ProbeError(f"the server refused STARTTLS: {reply!r}")


def _pop3(lines: _Lines) -> None:
    greeting = lines.line()
    if not greeting.startswith("+OK"):
        raise ProbeError(f"unexpected greeting: {greeting!r}")
    lines.send("STLS")
    reply = lines.line()
    if not reply.startswith("+OK"):
        raise ProbeError(f"the server refused STLS: {reply!r}")


_DIALOGUES = {
    "smtp": lambda lines: _smtp_like(lines, "EHLO sslcustomize.check", "STARTTLS", "220"),
    "ftp": lambda lines: _smtp_like(lines, None, "AUTH TLS", "234"),
    "imap": _imap,
    "pop3": _pop3,
}


def _starttls(sock: socket.socket, protocol: str) -> None:
    lines = _Lines(sock)
    _DIALOGUES[protocol](lines)
    if lines.buffer:
        raise ProbeError("the server sent data before the TLS handshake (possible injection)")


# What a server that speaks first says, for the protocols that upgrade with STARTTLS.
_GREETINGS = (("220", "smtp"), ("* OK", "imap"), ("+OK", "pop3"))


def _plain_text_hint(target: Target, timeout: float) -> str:
    """Say what a port that did not speak TLS looks like, and how to reach its TLS.

    A second connection listens for a greeting (servers of mail and FTP speak first); nothing
    is sent. Returns ``""`` when the port cannot be read again.
    """
    try:
        with socket.create_connection((target.host, target.port), timeout=timeout) as sock:
            sock.settimeout(min(timeout, 2.0))
            try:
                greeting = sock.recv(512).decode("latin-1")
            except TimeoutError:
                greeting = ""
    except OSError:
        return ""
    if not greeting:
        return (
            "; this port answered in plain text, not TLS (plain HTTP?): check the port, or "
            "if it is SMTP/IMAP/POP3/FTP, try --starttls PROTO"
        )
    first = greeting.splitlines()[0][:60] if greeting.strip() else ""
    for prefix, guess in _GREETINGS:
        if greeting.startswith(prefix):
            protocol = "ftp" if guess == "smtp" and "ftp" in first.lower() else guess
            return (
                f"; this port answered in plain text ({first!r}), as {protocol.upper()} does: "
                f"try --starttls {protocol}"
            )
    return (
        f"; this port answered in plain text ({first!r}), not TLS: if it is SMTP/IMAP/POP3/FTP, "
        "try --starttls PROTO"
    )


def fetch_chain(target: Target, *, timeout: float = 10.0) -> tuple[tuple[bytes, ...], str]:
    """Connect to ``target`` and return the chain it sends (DER, leaf first) and TLS version.

    Raises:
        ProbeError: The server could not be reached or did not complete a TLS handshake.
    """
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    # Fetch whatever chain is sent: it is verified offline afterwards.
    context.check_hostname = False  # sslcustomize: allow(probe: chain verified offline)
    context.verify_mode = ssl.CERT_NONE  # sslcustomize: allow(probe: chain verified offline)
    # SNI carries names only, never addresses (RFC 6066).
    server_hostname = None if parse_address(target.host) is not None else target.host
    try:
        with socket.create_connection((target.host, target.port), timeout=timeout) as sock:
            if target.starttls:
                _starttls(sock, target.starttls)
            with context.wrap_socket(sock, server_hostname=server_hostname) as tls:
                chain = der_chain(getattr(tls, "_sslobj", None))
                version = tls.version() or "?"
    except socket.gaierror as error:
        raise ProbeError(f"cannot resolve {target.host}: {error.strerror}") from None
    except ConnectionRefusedError:
        raise ProbeError(f"connection to {target} refused") from None
    except TimeoutError:
        raise ProbeError(f"no answer from {target} within {timeout:g} s") from None
    except ssl.SSLError as error:
        reason = error.reason or str(error)
        hint = "" if target.starttls else _plain_text_hint(target, timeout)
        raise ProbeError(f"TLS handshake with {target} failed: {reason}{hint}") from None
    except OSError as error:
        raise ProbeError(f"cannot connect to {target}: {error.strerror or error}") from None
    if not chain:
        raise ProbeError(f"{target} completed the handshake without sending a certificate")
    return chain, version
