"""The advice ``report`` prints for a record: words, and commands safe to paste.

A record's host and port come from whoever wrote the record (another user, another machine, a
forged line in a fleet directory). A command is built only from a host that is a host name
(:func:`.._diagnosis._reading.is_host_name`) and a port 1-65535, word by word, and joined with
:func:`shlex.join`: pasted into a shell it is exactly those words, and never runs anything
else. A record whose host is not a host name gets no command at all.
"""

from __future__ import annotations

import shlex
from typing import Any

from sslcustomize._diagnosis._reading import is_host_name
from sslcustomize._policy._model import DEFAULT_EXCEPTION_DAYS
from sslcustomize._support._escape import visible
from sslcustomize._support._frozen import dataclass
from sslcustomize._verdict._reasons import fix_for_record, target_text

__all__ = ["NO_COMMAND", "Fix", "fix_for", "safe_target"]

#: What a record whose host is not a host name gets instead of a fix.
NO_COMMAND = "no command: the host is not a host name (a forged or damaged record?)"
_CHECK, _TRUST = "sslcustomize check HOST", "sslcustomize trust HOST"
#: Layers whose file ``trust --scope`` names (the process layer is the file a variable names).
_SCOPES = ("system", "venv", "user")


@dataclass(frozen=True, slots=True, kw_only=True)
class Fix:
    """The fix of one reason: text in parts, each either words or a command to paste."""

    reason: str
    parts: tuple[tuple[str, bool], ...]

    @property
    def text(self) -> str:
        """The whole fix as one line."""
        return "".join(text for text, _ in self.parts)

    @property
    def commands(self) -> list[str]:
        """The commands of the fix, each shell-quoted."""
        return [text for text, command in self.parts if command]

    def to_json(self) -> dict[str, Any]:
        """``{"reason", "fix", "commands"}``."""
        return {"reason": self.reason, "fix": self.text, "commands": self.commands}


def safe_target(host: object, port: object) -> bool:
    """Tell whether a record's host and port may go into a command."""
    port_ok = port is None or (
        isinstance(port, int) and not isinstance(port, bool) and 1 <= port <= 65535
    )
    return is_host_name(host) and port_ok


def _words(record: dict[str, Any], command: str, *options: str) -> str:
    host, port, starttls = record["host"], record.get("port"), record.get("starttls")
    words = ["sslcustomize", command, *options]
    if starttls:
        words += ["--starttls", starttls]
    words.append(target_text(host, port, starttls))
    return shlex.join(words)


def _parts(text: str, record: dict[str, Any]) -> list[tuple[str, bool]]:
    """Split a fix's words at the commands it names, each rebuilt for the record's target."""
    commands = {_CHECK: _words(record, "check"), _TRUST: _words(record, "trust")}
    parts: list[tuple[str, bool]] = []
    rest = text
    while rest:
        found = [(rest.find(p), p) for p in commands if p in rest]
        if not found:
            parts.append((rest, False))
            break
        index, placeholder = min(found)
        if index:
            parts.append((rest[:index], False))
        parts.append((commands[placeholder], True))
        rest = rest[index + len(placeholder) :]
    return parts


def _names_only(pattern: str, record: dict[str, Any]) -> bool:
    """Tell whether the exception ``pattern`` is the one ``trust`` writes for the record's server.

    ``trust`` names an exception ``host:port`` (``[v6]:port``), and renews only that one; a
    pattern without a port, or a wildcard, names more than this server.
    """
    host, port = str(record["host"]), record.get("port") or 443
    exact = f"[{host}]:{port}" if ":" in host else f"{host}:{port}"
    return pattern.lower().rstrip(".") == exact.lower()


def fix_for(reason: str, record: dict[str, Any], seen: str | None = None) -> Fix:
    """Return the fix of ``reason`` for a record (one of the server's, all alike).

    ``seen`` says where a missing intermediate was seen (``incomplete_chain``). An expired
    exception that would have applied comes first, with the command that renews it in the
    layer it was in (``--scope system`` for the system file).
    """
    if not safe_target(record.get("host"), record.get("port")):
        return Fix(reason=reason, parts=((NO_COMMAND, False),))
    parts = _parts(fix_for_record(reason, None, None), record)
    if seen:
        parts.append((f": {visible(seen)}", False))
    layer = record.get("expired_layer")
    if record.get("expired_host") or layer:
        scope = ("--scope", layer) if layer in _SCOPES else ()
        renew = _words(record, "trust", "--days", str(DEFAULT_EXCEPTION_DAYS), *scope)
        pattern = str(record.get("expired_host") or record["host"])
        origin = visible(str(record.get("expired_origin") or "a policy file"))
        said = f"the exception for {visible(pattern)} ({origin}) expired"
        if _names_only(pattern, record):
            first = f"{said}: if it is still wanted, renew it with "
            then = " (it keeps its reason); otherwise: "
        else:
            # trust writes host:port: the renewal would add an exception beside this one.
            first = (
                f"{said}; it names more than this server, so renew it by changing its "
                "expires there, or trust this server alone with "
            )
            then = "; otherwise: "
        parts = [(first, False), (renew, True), (then, False), *parts]
    return Fix(reason=reason, parts=tuple(parts))
