"""Fetch the certificate chain a server sends: connect, speak STARTTLS if asked, handshake.

Used by ``check``, ``trust`` and ``scan``. The handshake here does not verify (the point is to
see the chain whatever it is); verification happens afterwards, offline, under the policy.
Nothing is sent after the handshake.

Every network wait is bounded as a whole by one deadline (issue 32 #11): the connection (every
address tried), a proxy's answers, the STARTTLS dialogue and the handshake share the
``timeout`` given, so a server that trickles a byte a second is given up when it runs out,
not after hours.
"""

from __future__ import annotations

import base64
import os
import re
import selectors
import socket
import ssl
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlsplit

from sslcustomize._policy._hosts import parse_address, parse_host_pattern
from sslcustomize._support._sslclass import StdlibContext
from sslcustomize._verdict._reasons import STARTTLS_PORTS
from sslcustomize._x509._replay import der_chain
from sslcustomize.exceptions import SSLCustomizeError

__all__ = [
    "STARTTLS_PORTS",
    "Fetched",
    "ProbeError",
    "Proxy",
    "Target",
    "fetch_chain",
    "fetch_verified",
    "parse_proxy",
    "parse_target",
    "proxy_for",
]

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
        _check_host(parts.hostname, text)
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
    _check_host(host, text)
    return Target(host=host, port=int(port_text) if port_text else default, starttls=starttls)


# Also "*" and "/": a wildcard or a network is refused below as a pattern, with that reason.
_HOST_CHARACTERS = re.compile(r"[A-Za-z0-9._*/-]+")


def _check_host(host: str, text: str) -> None:
    """Refuse a host that is neither a host name nor an IP address (``'bad host name!'``).

    Raises:
        ValueError: It is not; the message says what is wrong.
    """
    if host.isascii() and not _HOST_CHARACTERS.fullmatch(host) and parse_address(host) is None:
        raise ValueError(
            f"{text!r} is not a host name or IP address: a host name has only letters, digits, "
            "'-', '_' and dots"
        )
    try:
        pattern = parse_host_pattern(f"[{host}]" if ":" in host else host)
    except ValueError as error:
        raise ValueError(f"{text!r} is not a host name or IP address: {error}") from None
    if pattern.kind not in {"name", "address"}:
        raise ValueError(f"{text!r} is a pattern, not a host: name one host or address")


@dataclass(frozen=True, slots=True, kw_only=True)
class _Deadline:
    """The moment (``time.monotonic()``) by which the whole fetch must be done."""

    total: float
    end: float

    @classmethod
    def after(cls, seconds: float) -> _Deadline:
        """Return the deadline ``seconds`` from now."""
        return cls(total=seconds, end=time.monotonic() + seconds)

    def remaining(self) -> float:
        """Return the seconds left for the next wait.

        Raises:
            TimeoutError: None are left.
        """
        left = self.end - time.monotonic()
        if left <= 0:
            raise TimeoutError
        return left


class _Lines:
    """Read CRLF lines from a plain socket, for the STARTTLS dialogue, by the deadline."""

    def __init__(self, sock: socket.socket, deadline: _Deadline) -> None:
        self.sock = sock
        self.deadline = deadline
        self.buffer = b""

    def line(self) -> str:
        while b"\n" not in self.buffer:
            # Each read gets what is left of the whole, not a fresh timeout: a server that
            # trickles a byte a second never completes a line in time.
            self.sock.settimeout(self.deadline.remaining())
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


# How long a STARTTLS server may stay silent before a second connection asks whether the port
# speaks TLS at once (servers greet at once; a TLS server waits for the client forever).
_QUIET_BEFORE_ASKING = 2.0


def _starttls(
    sock: socket.socket, target: Target, proxy: Proxy | None, deadline: _Deadline
) -> None:
    """Speak the protocol's dialogue up to its go-ahead for TLS, all by ``deadline``.

    Raises:
        ProbeError: The server refused, said something unexpected, speaks TLS directly, or did
            not finish the dialogue in time.
    """
    protocol = target.starttls or ""
    try:
        if not _ready(sock, min(_QUIET_BEFORE_ASKING, deadline.remaining())) and (
            _speaks_tls(target, proxy, deadline)
        ):
            scheme = {"smtp": "smtps", "imap": "imaps", "pop3": "pop3s", "ftp": "ftps"}[protocol]
            raise ProbeError(
                f"{target} speaks TLS directly, not {protocol.upper()} with STARTTLS: drop "
                f"--starttls (sslcustomize check {target}, or {scheme}://{target})"
            )
        lines = _Lines(sock, deadline)
        _DIALOGUES[protocol](lines)
    except TimeoutError:
        raise ProbeError(
            f"the {protocol.upper()} dialogue with {target} did not finish within "
            f"{deadline.total:g} s (no STARTTLS go-ahead)"
        ) from None
    if lines.buffer:
        raise ProbeError("the server sent data before the TLS handshake (possible injection)")


def _ready(sock: socket.socket, seconds: float, *, write: bool = False) -> bool:
    """Tell whether ``sock`` can be read (data, or closed) within ``seconds``.

    With ``write``: whether it can be written. A selector, not ``select.select``: ``scan``
    with many jobs may hold descriptors above ``FD_SETSIZE`` (1024), which ``select`` refuses.
    """
    event = selectors.EVENT_WRITE if write else selectors.EVENT_READ
    with selectors.DefaultSelector() as selector:
        selector.register(sock, event)
        return bool(selector.select(seconds))


def _speaks_tls(target: Target, proxy: Proxy | None, deadline: _Deadline) -> bool:
    """Tell whether a second connection to ``target`` gets a TLS answer to a ClientHello.

    Asked only of a silent STARTTLS server. A TLS alert is an answer in TLS too; plain text
    (an SMTP server's error) or silence is not.
    """
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # sslcustomize: allow(probe: only asks whether TLS answers)
    context.verify_mode = ssl.CERT_NONE  # sslcustomize: allow(probe: only asks whether TLS answers)
    try:
        with (
            _open(target, proxy, deadline) as sock,
            context.wrap_socket(sock, do_handshake_on_connect=False) as tls,
        ):
            _handshake(tls, deadline)
    except ssl.SSLError as error:
        return "ALERT" in str(error.reason or "").upper()
    except (OSError, ProbeError):  # no answer, or a proxy's refusal: the dialogue decides
        return False
    return True


def _handshake(tls: ssl.SSLSocket, deadline: _Deadline) -> None:
    """Do the TLS handshake by ``deadline`` as a whole (a trickled ServerHello included).

    Raises:
        TimeoutError: The handshake did not finish in time.
        ssl.SSLError: It failed.
    """
    tls.setblocking(False)
    while True:
        try:
            tls.do_handshake()
        except ssl.SSLWantReadError:  # noqa: PERF203 - a few rounds per handshake
            _ready(tls, deadline.remaining())
        except ssl.SSLWantWriteError:
            _ready(tls, deadline.remaining(), write=True)
        else:
            return


# What a server that speaks first says, for the protocols that upgrade with STARTTLS.
_GREETINGS = (("220", "smtp"), ("* OK", "imap"), ("+OK", "pop3"))


def _plain_text_hint(target: Target, deadline: _Deadline) -> str:
    """Say what a port that did not speak TLS looks like, and how to reach its TLS.

    A second connection listens for a greeting (servers of mail and FTP speak first); nothing
    is sent. Returns ``""`` when the port cannot be read again, or no time is left.
    """
    try:
        with _connect_direct(target, deadline) as sock:
            sock.settimeout(min(deadline.remaining(), 2.0))
            try:
                greeting = sock.recv(512).decode("latin-1")
            except TimeoutError:
                greeting = ""
    except OSError:  # TimeoutError (no time left) included
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


# --- Proxies: HTTP CONNECT and SOCKS5 tunnels, as the clients behind them connect -----------

_PROXY_SCHEMES = {"http": 8080, "socks5": 1080, "socks5h": 1080}


@dataclass(frozen=True, slots=True, kw_only=True)
class Proxy:
    """A proxy to tunnel through: ``http`` (CONNECT), ``socks5`` or ``socks5h``.

    With ``socks5h`` the proxy resolves the server's name; with ``socks5``, this side does.
    """

    scheme: str
    host: str
    port: int
    username: str | None = None
    password: str | None = field(default=None, repr=False)

    def __str__(self) -> str:
        """Return the proxy's URL without its credentials."""
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{self.scheme}://{host}:{self.port}"


def parse_proxy(text: str) -> Proxy:
    """Parse ``http://[user:pass@]host:port``, ``socks5://...`` or ``socks5h://...``.

    Raises:
        ValueError: Not a proxy URL this can use; the message says what is.
    """
    parts = urlsplit(text if "://" in text else f"http://{text}")
    scheme = parts.scheme.lower()
    # Errors name the URL without its password (they land in terminals and CI logs).
    named = text if parts.password is None else text.replace(f":{parts.password}@", ":***@", 1)
    if scheme not in _PROXY_SCHEMES:
        raise ValueError(
            f"proxy {named!r}: use http://HOST:PORT (CONNECT), socks5://HOST:PORT or "
            "socks5h://HOST:PORT"
        )
    if not parts.hostname:
        raise ValueError(f"proxy {named!r}: no host")
    try:
        port = parts.port or _PROXY_SCHEMES[scheme]
    except ValueError:
        raise ValueError(f"proxy {named!r}: bad port") from None
    return Proxy(
        scheme=scheme,
        host=parts.hostname,
        port=port,
        username=unquote(parts.username) if parts.username else None,
        password=unquote(parts.password) if parts.password else None,
    )


def proxy_for(
    target: Target, explicit: str | None, environ: Mapping[str, str] | None = None
) -> Proxy | None:
    """Return the proxy to reach ``target`` through, as curl and Python's clients pick it.

    ``explicit`` (``--proxy``) wins; ``""`` means none. Otherwise, for a target that speaks
    TLS first, ``https_proxy``/``HTTPS_PROXY`` (else ``all_proxy``/``ALL_PROXY``) unless
    ``no_proxy``/``NO_PROXY`` names the host. STARTTLS protocols are not HTTP: only
    ``--proxy`` tunnels them.

    Raises:
        ValueError: The proxy URL cannot be used.
    """
    if explicit is not None:
        return parse_proxy(explicit) if explicit.strip() else None
    if target.starttls:
        return None
    environ = os.environ if environ is None else environ
    url = next(
        (
            environ[name]
            for name in ("https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY")
            if environ.get(name, "").strip()
        ),
        None,
    )
    if url is None or _bypassed(target, environ):
        return None
    return parse_proxy(url.strip())


def _bypassed(target: Target, environ: Mapping[str, str]) -> bool:
    """Tell whether ``no_proxy`` names the target, as curl and urllib read it.

    Entries: ``*``, a name or a parent domain (``.corp.example`` or ``corp.example``), an
    address, each with an optional ``:port``.
    """
    listed = environ.get("no_proxy") or environ.get("NO_PROXY") or ""
    host = target.host.lower().strip("[]")
    for raw in listed.split(","):
        entry = raw.strip().lower()
        if not entry:
            continue
        if entry == "*":
            return True
        name, port = entry, None
        if entry.startswith("["):
            name, _, rest = entry[1:].partition("]")
            port = rest.removeprefix(":") or None
        elif entry.count(":") == 1:
            name, _, port = entry.partition(":")
        if port is not None and port != str(target.port):
            continue
        name = name.lstrip(".")
        if host == name or host.endswith("." + name):
            return True
    return False


def _connect_proxy(proxy: Proxy, deadline: _Deadline) -> socket.socket:
    timeout = deadline.total
    try:
        return _connect_to(proxy.host, proxy.port, deadline)
    except socket.gaierror as error:
        raise ProbeError(f"cannot resolve the proxy {proxy}: {error.strerror}") from None
    except ConnectionRefusedError:
        raise ProbeError(f"connection to the proxy {proxy} refused") from None
    except TimeoutError:
        raise ProbeError(f"no answer from the proxy {proxy} within {timeout:g} s") from None
    except OSError as error:
        raise ProbeError(
            f"cannot connect to the proxy {proxy}: {error.strerror or error}"
        ) from None


#: The most a proxy's answer to CONNECT may hold (status line and headers), as curl bounds it.
_PROXY_ANSWER_LIMIT = 65536


def _proxy_answer(sock: socket.socket, proxy: Proxy, deadline: _Deadline) -> tuple[bytes, bytes]:
    """Read the proxy's answer to CONNECT: its head and what came after it.

    Bounded in bytes and in time as a whole (``deadline``), not per read: a proxy that sends
    header lines without end, or a byte now and then, is given up.

    Raises:
        ProbeError: The proxy closed the connection or sent too much.
        TimeoutError: The answer did not end by ``deadline``.
    """
    data = b""
    while True:
        end = min(
            (i + len(sep) for sep in (b"\r\n\r\n", b"\n\n") if (i := data.find(sep)) >= 0),
            default=None,
        )
        if end is not None:
            return data[:end], data[end:]
        if len(data) > _PROXY_ANSWER_LIMIT:
            raise ProbeError(
                f"the proxy {proxy} sent more than {_PROXY_ANSWER_LIMIT} bytes of headers "
                "after CONNECT"
            )
        sock.settimeout(deadline.remaining())
        chunk = sock.recv(4096)
        if not chunk:
            raise ProbeError(f"the proxy {proxy} closed the connection after CONNECT")
        data += chunk


def _http_connect(sock: socket.socket, proxy: Proxy, target: Target, deadline: _Deadline) -> None:
    """Ask an HTTP proxy for a tunnel (RFC 9110 CONNECT); nothing of TLS is sent before 200."""
    authority = str(target)
    request = f"CONNECT {authority} HTTP/1.1\r\nHost: {authority}\r\n"
    if proxy.username is not None:
        credentials = f"{proxy.username}:{proxy.password or ''}".encode()
        request += f"Proxy-Authorization: Basic {base64.b64encode(credentials).decode()}\r\n"
    sock.sendall((request + "\r\n").encode("latin-1"))
    head, rest = _proxy_answer(sock, proxy, deadline)
    status = head.partition(b"\n")[0].decode("latin-1").rstrip("\r")
    words = status.split(" ", 2)
    if len(words) < 2 or not words[0].startswith("HTTP/") or words[1] != "200":
        raise ProbeError(f"the proxy {proxy} refused CONNECT {authority}: {status[:80]!r}")
    if rest:
        raise ProbeError(f"the proxy {proxy} sent data before the TLS handshake")


def _recv_exactly(sock: socket.socket, count: int, proxy: Proxy, deadline: _Deadline) -> bytes:
    """Read ``count`` bytes, all of them by ``deadline``.

    Raises:
        ProbeError: The proxy closed the connection.
        TimeoutError: The bytes did not all come by ``deadline``.
    """
    data = b""
    while len(data) < count:
        sock.settimeout(deadline.remaining())
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ProbeError(f"the SOCKS proxy {proxy} closed the connection")
        data += chunk
    return data


_SOCKS_ERRORS = {
    1: "general failure", 2: "not allowed by its rules", 3: "network unreachable",
    4: "host unreachable", 5: "connection refused", 6: "TTL expired",
    7: "command not supported", 8: "address type not supported",
}  # fmt: skip


if TYPE_CHECKING:
    from ipaddress import IPv4Address, IPv6Address

    _Address = IPv4Address | IPv6Address


class _SocksRefusedError(ProbeError):
    """The SOCKS proxy answered the request with a failure (another address may do)."""


def _socks5_connect(
    sock: socket.socket,
    proxy: Proxy,
    target: Target,
    deadline: _Deadline,
    address: _Address | None = None,
) -> None:
    """Ask a SOCKS5 proxy for a tunnel (RFC 1928; user and password, RFC 1929).

    ``address`` is the one to ask for (``socks5://``, resolved here); without it, the
    target's own literal address or its name. Its answers must all come by ``deadline`` (as
    a whole, not per read).

    Raises:
        _SocksRefusedError: The proxy could not connect there.
    """
    methods = b"\x00\x02" if proxy.username is not None else b"\x00"
    sock.sendall(b"\x05" + bytes([len(methods)]) + methods)
    version, method = _recv_exactly(sock, 2, proxy, deadline)
    if version != 5 or method not in methods:
        raise ProbeError(f"the SOCKS proxy {proxy} accepts none of our methods")
    if method == 2:
        user = (proxy.username or "").encode()[:255]
        password = (proxy.password or "").encode()[:255]
        sock.sendall(b"\x01" + bytes([len(user)]) + user + bytes([len(password)]) + password)
        if _recv_exactly(sock, 2, proxy, deadline)[1] != 0:
            raise ProbeError(f"the SOCKS proxy {proxy} refused the user name and password")
    address = address or parse_address(target.host)
    if address is None:
        name = target.host.encode("idna")
        destination = b"\x03" + bytes([len(name)]) + name
    else:
        destination = (b"\x01" if address.version == 4 else b"\x04") + address.packed
    sock.sendall(b"\x05\x01\x00" + destination + target.port.to_bytes(2, "big"))
    reply = _recv_exactly(sock, 4, proxy, deadline)
    if reply[1] != 0:
        why = _SOCKS_ERRORS.get(reply[1], f"error {reply[1]}")
        raise _SocksRefusedError(f"the SOCKS proxy {proxy} could not connect to {target}: {why}")
    kind = reply[3]
    rest = {1: 4, 4: 16}.get(kind)
    length = rest if rest is not None else _recv_exactly(sock, 1, proxy, deadline)[0]
    _recv_exactly(sock, length + 2, proxy, deadline)


def _socks5_addresses(proxy: Proxy, target: Target) -> list[_Address | None]:
    """The addresses to ask a SOCKS5 proxy for, in turn: each that the name resolves to here.

    Only for ``socks5://`` and a name (as PySocks' socks5:// resolves it); otherwise one try
    with the literal address or the name (``socks5h://``: the proxy resolves it). A client
    tries every address a name has: ``localhost`` is ``::1`` first on Debian, where a server
    may listen on 127.0.0.1 only.

    Raises:
        ProbeError: The name does not resolve.
    """
    if proxy.scheme != "socks5" or parse_address(target.host) is not None:
        return [None]
    try:
        resolved = socket.getaddrinfo(target.host, target.port, type=socket.SOCK_STREAM)
    except socket.gaierror as error:
        raise ProbeError(f"cannot resolve {target.host}: {error.strerror}") from None
    found = [parse_address(str(info[4][0]).partition("%")[0]) for info in resolved]
    return list(dict.fromkeys(a for a in found if a is not None)) or [None]


def _tunnel(target: Target, proxy: Proxy, deadline: _Deadline) -> socket.socket:
    """Return a socket tunnelled to ``target`` through ``proxy``, by ``deadline``.

    Through ``socks5://``, each address of the target's name is asked for in turn, on a new
    connection to the proxy, until the proxy reaches one (all by the one deadline).
    """
    addresses = _socks5_addresses(proxy, target) if proxy.scheme != "http" else [None]
    for index, address in enumerate(addresses):
        sock = _connect_proxy(proxy, deadline)
        try:
            if proxy.scheme == "http":
                _http_connect(sock, proxy, target, deadline)
            else:
                _socks5_connect(sock, proxy, target, deadline, address)
        except TimeoutError:
            sock.close()
            raise ProbeError(
                f"no answer from the proxy {proxy} within {deadline.total:g} s"
            ) from None
        except OSError as error:
            sock.close()
            raise ProbeError(f"the proxy {proxy} failed: {error.strerror or error}") from None
        except _SocksRefusedError:
            sock.close()
            if index + 1 < len(addresses):
                continue  # the next address of the name
            raise
        except ProbeError:
            sock.close()
            raise
        return sock
    raise AssertionError(addresses)  # pragma: no cover - the loop returns or raises


def _connect_to(host: str, port: int, deadline: _Deadline) -> socket.socket:
    """Connect to each address of ``host`` in turn, all of them by ``deadline``.

    ``socket.create_connection`` gives each address the whole timeout; a name with several
    unanswering addresses would multiply it.

    Raises:
        OSError: No address answered (the last address's error); TimeoutError when time ran out.
    """
    last: OSError | None = None
    for family, kind, protocol, _, address in socket.getaddrinfo(host, port, 0, socket.SOCK_STREAM):
        sock = socket.socket(family, kind, protocol)
        try:
            sock.settimeout(deadline.remaining())
            sock.connect(address)
        except OSError as error:
            sock.close()
            last = error
            if isinstance(error, TimeoutError):
                break
            continue
        return sock
    raise last or OSError(f"no address for {host}")


def _connect_direct(target: Target, deadline: _Deadline) -> socket.socket:
    """Connect to ``target`` itself, by ``deadline``."""
    return _connect_to(target.host, target.port, deadline)


def _open(target: Target, proxy: Proxy | None, deadline: _Deadline) -> socket.socket:
    """Connect to ``target``, through ``proxy`` if one is given, by ``deadline``."""
    return (
        _tunnel(target, proxy, deadline) if proxy is not None else _connect_direct(target, deadline)
    )


def _connect_error(
    error: OSError, target: Target, deadline: _Deadline, proxy: Proxy | None
) -> ProbeError:
    """The error to show for a failed connection to ``target``: what failed, in plain words."""
    timeout = deadline.total
    if isinstance(error, socket.gaierror):
        return ProbeError(f"cannot resolve {target.host}: {error.strerror}")
    if isinstance(error, ConnectionRefusedError):
        return ProbeError(f"connection to {target} refused")
    if isinstance(error, TimeoutError):
        return ProbeError(f"no answer from {target} within {timeout:g} s")
    if isinstance(error, ssl.SSLError):
        reason = error.reason or str(error)
        hint = "" if target.starttls or proxy is not None else _plain_text_hint(target, deadline)
        if proxy is not None:
            hint = f" (through the proxy {proxy})"
        return ProbeError(f"TLS handshake with {target} failed: {reason}{hint}")
    return ProbeError(f"cannot connect to {target}: {error.strerror or error}")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fetched:
    """What a verifying handshake with a server gave: its chain, and OpenSSL's verdict on it.

    Attributes:
        chain: The chain the server sent, DER, leaf first.
        version: The TLS version of the handshake.
        verified: Whether the verifier accepted the chain in the handshake itself.
        verify_code: OpenSSL's code when it refused the chain (0 when accepted).
        verify_message: OpenSSL's message when it refused the chain.
    """

    chain: tuple[bytes, ...]
    version: str
    verified: bool
    verify_code: int = 0
    verify_message: str = "ok"


def fetch_chain(
    target: Target, *, timeout: float = 10.0, proxy: Proxy | None = None
) -> tuple[tuple[bytes, ...], str]:
    """Connect to ``target`` and return the chain it sends (DER, leaf first) and TLS version.

    Through ``proxy`` the chain is the one the proxy presents: the server's through a plain
    tunnel, the proxy's own through one that intercepts TLS. ``timeout`` bounds the whole: the
    connection, the proxy, the STARTTLS dialogue and the handshake together.

    Raises:
        ProbeError: The server could not be reached or did not complete a TLS handshake.
    """
    context = StdlibContext(ssl.PROTOCOL_TLS_CLIENT)
    # Fetch whatever chain is sent: it is verified offline afterwards.
    context.check_hostname = False  # sslcustomize: allow(probe: chain verified offline)
    context.verify_mode = ssl.CERT_NONE  # sslcustomize: allow(probe: chain verified offline)
    fetched = _fetch(target, context, timeout=timeout, proxy=proxy)
    return fetched.chain, fetched.version


def fetch_verified(
    target: Target, verifier: ssl.SSLContext, *, timeout: float = 10.0, proxy: Proxy | None = None
) -> Fetched:
    """Connect to ``target`` with ``verifier`` and return the chain and the handshake's verdict.

    One handshake both fetches the chain and judges it (``scan``): when ``verifier`` accepts
    it, no offline replay is needed for the verdict. A refused chain is still returned (OpenSSL
    keeps what the server sent), for the offline analysis to name every problem; where it does
    not, a second, non-verifying handshake fetches it. ``timeout`` bounds each as
    :func:`fetch_chain` does.

    Raises:
        ProbeError: The server could not be reached or did not complete a TLS handshake.
    """
    fetched = _fetch(target, verifier, timeout=timeout, proxy=proxy)
    if fetched.verified or fetched.chain:
        return fetched
    chain, version = fetch_chain(target, timeout=timeout, proxy=proxy)
    return Fetched(
        chain=chain,
        version=version,
        verified=False,
        verify_code=fetched.verify_code,
        verify_message=fetched.verify_message,
    )


def _fetch(
    target: Target, context: ssl.SSLContext, *, timeout: float, proxy: Proxy | None
) -> Fetched:
    """Connect to ``target`` and handshake with ``context``; the chain sent, and the verdict.

    Raises:
        ProbeError: The server could not be reached or did not complete a TLS handshake (a
            refused certificate does not raise: it is the verdict).
    """
    verifying = context.verify_mode != ssl.CERT_NONE
    # SNI carries names only, never addresses (RFC 6066); a verifier needs the address to
    # check it (Python sends no SNI for an address).
    is_address = parse_address(target.host) is not None
    server_hostname = None if is_address and not verifying else target.host
    deadline = _Deadline.after(timeout)
    refused: ssl.SSLCertVerificationError | None = None
    try:
        with _open(target, proxy, deadline) as sock:
            if target.starttls:
                _starttls(sock, target, proxy, deadline)
            with context.wrap_socket(
                sock, server_hostname=server_hostname, do_handshake_on_connect=False
            ) as tls:
                try:
                    _handshake(tls, deadline)
                except TimeoutError:
                    raise ProbeError(
                        f"the TLS handshake with {target} did not finish within "
                        f"{deadline.total:g} s"
                    ) from None
                except ssl.SSLCertVerificationError as error:
                    if not verifying:
                        raise
                    refused = error
                chain = der_chain(getattr(tls, "_sslobj", None))
                version = tls.version() or "?"
    except OSError as error:  # ssl.SSLError, timeouts and resolver errors included
        raise _connect_error(error, target, deadline, proxy) from None
    if refused is not None:
        return Fetched(
            chain=chain,
            version=version,
            verified=False,
            verify_code=refused.verify_code,
            verify_message=refused.verify_message,
        )
    if not chain:
        raise ProbeError(f"{target} completed the handshake without sending a certificate")
    return Fetched(chain=chain, version=version, verified=verifying)
