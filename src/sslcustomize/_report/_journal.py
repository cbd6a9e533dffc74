"""The systemd journal and syslog, spoken over their datagram sockets (standard library only).

A record goes to the journal as one datagram of its native protocol: one structured field per
record field (``SSLCUSTOMIZE_HOST``, ``SSLCUSTOMIZE_REASONS``... a tuple as a field repeated
once per item), a one-line ``MESSAGE`` for people, ``PRIORITY=4`` and
``SYSLOG_IDENTIFIER=sslcustomize``. journald adds the trusted fields itself (``_UID``,
``_PID``, ``_COMM``, ``_HOSTNAME``): a process cannot claim another user's records, and no
user can read or rewrite another's (journald's own access rules).

syslog is spoken the same way, to ``/dev/log``, so that a socket nobody listens on is an error
that the sink sees (Python's :mod:`syslog` module drops such messages without a word).

:mod:`sslcustomize._diagnosis._reading` reads back what ``journalctl -o json`` prints.
"""

from __future__ import annotations

import os
import socket
import struct
from collections.abc import Mapping
from typing import Any

__all__ = [
    "FIELD_PREFIX",
    "IDENTIFIER",
    "INTEGER_FIELDS",
    "JOURNAL_SOCKET",
    "SYSLOG_SOCKET",
    "TUPLE_FIELDS",
    "journal_datagram",
    "journal_running",
    "root_socket",
    "send_datagram",
    "syslog_datagram",
]

#: The native protocol's socket (journald, systemd >= 38).
JOURNAL_SOCKET = "/run/systemd/journal/socket"
#: The syslog socket (rsyslog, syslog-ng, or journald's own).
SYSLOG_SOCKET = "/dev/log"
#: ``SYSLOG_IDENTIFIER`` of every record, what ``journalctl -t`` and log pipelines filter on.
IDENTIFIER = "sslcustomize"
#: The prefix of every field of a record in the journal.
FIELD_PREFIX = "SSLCUSTOMIZE_"
#: Record fields that are tuples: sent as a field repeated once per item.
TUPLE_FIELDS = frozenset({"reasons", "chain_sha256", "intermediates"})
#: Record fields that are integers (read back as such).
INTEGER_FIELDS = frozenset({"pid", "port", "version"})
_SYSLOG_PRIORITY = 8 + 4  # facility user (1 << 3), severity warning (4)
#: The longest a field's value (or an item of a repeated one) is sent, in characters, and the
#: most items of a repeated field. What a record holds comes from a server's certificates: a
#: datagram larger than the socket takes (212,992 bytes by default) would fail at every try
#: and, first in the spool, keep every later record of the user from the sink.
_FIELD_LIMIT = 4096
_ITEM_LIMIT = 1024
_ITEMS = 16
#: The longest syslog line sent, in characters (rsyslog's default maximum is 8 KiB).
_SYSLOG_LIMIT = 8192
_CUT = "..."


def root_socket(path: str) -> bool:
    """Tell whether ``path`` is a socket of root's, in directories only root writes.

    journald's and the syslog daemon's are. A socket another user made at their path (a
    container whose ``/run`` they can write) would receive every user's records.
    """
    import stat  # noqa: PLC0415 - one call per record sent

    real = os.path.realpath(path)
    current = ""
    for part in ["", *[p for p in real.split(os.sep) if p]]:
        current = os.path.join(current, part) if current else os.sep
        try:
            info = os.lstat(current)
        except OSError:
            return False
        if info.st_uid != 0 or stat.S_ISLNK(info.st_mode):
            return False
        # Others may write a sticky directory (a tmpfs /run is 1777), not rename root's entries.
        if info.st_mode & 0o022 and not (stat.S_ISDIR(info.st_mode) and info.st_mode & 0o1000):
            return current == real and stat.S_ISSOCK(info.st_mode)  # sockets are 0666
    return stat.S_ISSOCK(info.st_mode)


def journal_running(path: str = JOURNAL_SOCKET) -> bool:
    """Tell whether journald's socket is there (a ``stat``, no connection), and root's."""
    return root_socket(path)


def _field(name: str, value: str) -> bytes:
    """One field of the native protocol; values with a newline use its binary form."""
    data = value.encode("utf-8", "backslashreplace")
    key = name.encode("ascii")
    if b"\n" not in data:
        return key + b"=" + data + b"\n"
    return key + b"\n" + struct.pack("<Q", len(data)) + data + b"\n"


def _message(fields: Mapping[str, Any]) -> str:
    host, port = fields.get("host"), fields.get("port")
    where = f"{host}:{port}" if port else str(host)
    reasons = ",".join(fields.get("reasons") or ()) or "-"
    return f"{fields.get('verdict')} {where} ({reasons}) in {fields.get('program')}"


def journal_datagram(fields: Mapping[str, Any]) -> bytes:
    """Return the native-protocol datagram of a record's ``fields`` (``None`` values left out).

    The message is plain text: what a record holds came from a server or a certificate, and
    ``journalctl`` shows fields as they are (it escapes control characters itself). A value
    is cut at 4,096 characters, a repeated field's items at 1,024 and 16 items, with ``...``.
    """
    parts = [
        _field("MESSAGE", "sslcustomize: " + _message(fields)),
        _field("PRIORITY", "4"),
        _field("SYSLOG_IDENTIFIER", IDENTIFIER),
    ]
    for name, value in fields.items():
        if value is None:
            continue
        key = FIELD_PREFIX + name.upper()
        if name in TUPLE_FIELDS:
            parts.extend(_field(key, _cut(str(item), _ITEM_LIMIT)) for item in value[:_ITEMS])
        else:
            parts.append(_field(key, _cut(str(value), _FIELD_LIMIT)))
    return b"".join(parts)


def _cut(text: str, limit: int) -> str:
    """``text``, or its first ``limit`` characters followed by ``...``."""
    return text if len(text) <= limit else text[:limit] + _CUT


def syslog_datagram(line: str) -> bytes:
    """Return a syslog datagram (facility user, severity warning) tagged ``sslcustomize[PID]``.

    A line longer than 8 KiB is cut there (with ``...``): syslog is for people, and a datagram
    must fit the socket (see ``_FIELD_LIMIT``).
    """
    text = f"<{_SYSLOG_PRIORITY}>{IDENTIFIER}[{os.getpid()}]: {_cut(line, _SYSLOG_LIMIT)}"
    return text.encode("utf-8", "backslashreplace")


def send_datagram(path: str, data: bytes, timeout: float) -> None:
    """Send one datagram to the Unix socket at ``path``, waiting at most ``timeout`` seconds.

    Raises:
        OSError: Nothing listens there, the socket is missing, or its queue stayed full.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC) as sock:
        sock.settimeout(timeout)
        sock.sendto(data, path)
