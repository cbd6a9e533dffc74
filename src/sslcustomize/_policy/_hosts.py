"""Host patterns of policy exceptions, and an index that finds the rule for a host.

A pattern is an exact name, a one-label wildcard (``*.corp.example``), an IPv4 or IPv6
address, or a CIDR network, each with an optional ``:port``. Names are compared after IDNA
normalisation, case-insensitively. Lookup costs a handful of dictionary probes, however many
rules there are.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Iterable, Iterator

from sslcustomize._support._frozen import dataclass

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ipaddress
    from typing import Generic, Literal, TypeVar

    IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address
else:
    from sslcustomize._support._notyping import Generic, Literal, TypeVar


__all__ = ["HostIndex", "HostPattern", "normalize_host", "parse_address", "parse_host_pattern"]

T = TypeVar("T")
PatternKind = Literal["name", "wildcard", "address", "network"]

# What a DNS label may hold (underscores too: SRV and DKIM names have them). Checked without
# re: compiling the pattern cost ~0.3 ms of a hooked process's first context.
_LABEL_CHARACTERS = frozenset("abcdefghijklmnopqrstuvwxyz0123456789_-")


@dataclass(frozen=True, slots=True, kw_only=True)
class HostPattern:
    """A parsed host pattern.

    Attributes:
        kind: ``name``, ``wildcard``, ``address`` or ``network``.
        value: The normalised name, the wildcard's parent domain, or the address/network text.
        port: The port it is limited to, or ``None`` for every port.
    """

    kind: PatternKind
    value: str
    port: int | None

    def __str__(self) -> str:
        """Return the pattern in the form a policy file uses."""
        text = f"*.{self.value}" if self.kind == "wildcard" else self.value
        if self.port is None:
            return text
        return f"[{text}]:{self.port}" if ":" in text else f"{text}:{self.port}"


def normalize_host(host: str) -> str:
    """Return ``host`` lower-cased, without a trailing dot, IDNA-encoded if not ASCII.

    Raises:
        ValueError: The name cannot be IDNA-encoded.
    """
    host = host.strip().rstrip(".").lower()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if host.isascii():
        return host
    try:
        return host.encode("idna").decode("ascii")
    except UnicodeError as exc:
        raise ValueError(f"{host!r} is not a valid international domain name") from exc


def _split_port(text: str) -> tuple[str, int | None]:
    if text.startswith("["):
        host, sep, rest = text[1:].partition("]")
        if not sep:
            raise ValueError("an IPv6 address opened with '[' needs a closing ']'")
        if not rest:
            return host, None
        if not rest.startswith(":"):
            raise ValueError("write '[address]:port'")
        return host, _parse_port(rest[1:])
    if text.count(":") == 1:
        host, _, port = text.partition(":")
        return host, _parse_port(port)
    return text, None


def _parse_port(text: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"port {text!r} is not a number from 1 to 65535")
    return int(text)


def _valid_label(label: str) -> bool:
    """Tell whether ``label`` is 1 to 63 of ``[a-z0-9_-]``, with no hyphen at either end."""
    return (
        0 < len(label) <= 63
        and _LABEL_CHARACTERS.issuperset(label)
        and label[0] != "-"
        and label[-1] != "-"
    )


def _check_name(name: str) -> None:
    labels = name.split(".")
    for label in labels:
        if not _valid_label(label):
            shown = label or "(empty)"
            raise ValueError(f"label {shown!r} is not a valid DNS label")


def parse_host_pattern(text: str) -> HostPattern:
    """Parse a policy ``host`` value.

    Args:
        text: ``name``, ``*.parent``, an IP address, a CIDR network, with ``:port`` optional
            (``[v6]:port`` for IPv6).

    Returns:
        The parsed pattern.

    Raises:
        ValueError: The text is not a pattern; the message says why.
    """
    raw = text.strip()
    if not raw:
        raise ValueError("the host pattern is empty")
    if "://" in raw or " " in raw:
        raise ValueError("write a host name or address, not a URL")
    host, port = _split_port(raw)
    if "/" in host:
        import ipaddress  # noqa: PLC0415 - only for policies with networks

        try:
            network = ipaddress.ip_network(host, strict=True)
        except ValueError as exc:
            raise ValueError(f"{host!r} is not a CIDR network ({exc})") from None
        return HostPattern(kind="network", value=str(network), port=port)
    address = parse_address(host.lower())
    if address is not None:
        return HostPattern(kind="address", value=str(address), port=port)
    if host.startswith("*."):
        parent = _pattern_name(host[2:])
        if "*" in parent:
            raise ValueError("a wildcard may only stand for the whole first label ('*.example')")
        _check_name(parent)
        return HostPattern(kind="wildcard", value=parent, port=port)
    if "*" in host:
        raise ValueError("a wildcard may only stand for the whole first label ('*.example')")
    name = _pattern_name(host)
    _check_name(name)
    return HostPattern(kind="name", value=name, port=port)


def _pattern_name(host: str) -> str:
    """Return a policy's host name as the DNS knows it (IDNA 2008, UTS 46 nontransitional).

    ``faß.de`` is ``xn--fa-hia.de``, a domain of its own, as browsers and the ``idna`` package
    say; IDNA 2003 (Python's ``idna`` codec, which :func:`normalize_host` and the ssl module
    use for the name a client connects to) maps it to ``fass.de``, another owner's domain. A
    label that needs a compatibility mapping (full-width letters) or holds a format character
    (a zero-width joiner) is refused rather than guessed at.

    Raises:
        ValueError: The name has such a label.
    """
    host = host.strip().rstrip(".").lower()
    if host.isascii():
        return host
    import unicodedata  # noqa: PLC0415 - only for international names

    labels = []
    for label in host.split("."):
        if label.isascii():
            labels.append(label)
            continue
        form = unicodedata.normalize("NFC", label)
        if unicodedata.normalize("NFKC", form) != form or any(
            unicodedata.category(c) == "Cf" for c in form
        ):
            raise ValueError(
                f"{label!r} is not in the form its owner registers (IDNA 2008): write it "
                "without full-width or invisible characters, or as its xn-- form"
            )
        labels.append("xn--" + form.encode("punycode").decode("ascii"))
    return ".".join(labels)


def parse_address(host: str) -> IPAddress | None:
    """Return ``host`` as an IP address, or ``None`` for a name.

    An IPv6 zone id is kept (``fe80::1%eth0`` and ``fe80::1%eth1`` are different hosts); an
    IPv4 address has none (``10.0.0.1%x`` is not an address).
    """
    if not host or not (host[0].isdigit() or ":" in host):
        return None
    import ipaddress  # noqa: PLC0415 - only for names that look like addresses

    text = host
    try:
        # OpenSSL-style strict dotted quad, a quarter of ipaddress's parsing time; what it
        # accepts ipaddress accepts as the same address (tested), the rest goes the long way.
        return ipaddress.IPv4Address(socket.inet_pton(socket.AF_INET, text))
    except (OSError, ValueError):
        pass
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


@dataclass(frozen=True, slots=True)
class _Entry(Generic[T]):
    port: int | None
    order: int
    item: T


class HostIndex(Generic[T]):
    """Find the most specific item whose pattern matches a host and port.

    Specificity: exact name or address, then the wildcard of the parent domain, then the
    longest CIDR network. For the same pattern a port-specific entry wins, then the entry
    added last. ``usable`` lets the caller skip entries (for example, expired ones).
    """

    def __init__(self, items: Iterable[tuple[HostPattern, T]] = ()) -> None:
        """Index ``(pattern, item)`` pairs; later pairs win over earlier equal ones."""
        self._names: dict[str, list[_Entry[T]]] = {}
        self._wildcards: dict[str, list[_Entry[T]]] = {}
        self._networks: dict[tuple[int, int], dict[int, list[_Entry[T]]]] = {}
        self._count = 0
        for pattern, item in items:
            self.add(pattern, item)

    def __len__(self) -> int:
        """Return how many items are indexed."""
        return self._count

    def add(self, pattern: HostPattern, item: T) -> None:
        """Index one item under ``pattern``."""
        entry = _Entry(pattern.port, self._count, item)
        self._count += 1
        if pattern.kind in ("name", "address"):
            bucket = self._names.setdefault(pattern.value, [])
        elif pattern.kind == "wildcard":
            bucket = self._wildcards.setdefault(pattern.value, [])
        else:
            import ipaddress  # noqa: PLC0415 - only for policies with networks

            network = ipaddress.ip_network(pattern.value)
            key = (network.version, network.prefixlen)
            prefix = int(network.network_address) >> (network.max_prefixlen - network.prefixlen)
            bucket = self._networks.setdefault(key, {}).setdefault(prefix, [])
            # Longest prefix first when walking the networks.
            self._networks = dict(sorted(self._networks.items(), key=lambda kv: -kv[0][1]))
        bucket.append(entry)
        bucket.sort(key=lambda e: (e.port is None, -e.order))

    def lookup(
        self, host: str, port: int | None = None, usable: Callable[[T], bool] | None = None
    ) -> T | None:
        """Return the item for ``host`` (already normalised) and ``port``, or ``None``."""
        for bucket in self._buckets(host):
            for entry in bucket:
                if entry.port is not None and entry.port != port:
                    continue
                if usable is None or usable(entry.item):
                    return entry.item
        return None

    def _buckets(self, host: str) -> Iterator[list[_Entry[T]]]:
        address = parse_address(host)
        if address is None:
            key = host
        elif address.version == 4:
            key = host  # IPv4 is accepted only in its canonical form
        else:
            key = str(address)
        bucket = self._names.get(key)
        if bucket:
            yield bucket
        if address is None:
            _, dot, parent = host.partition(".")
            bucket = self._wildcards.get(parent) if dot else None
            if bucket:
                yield bucket
            return
        number = int(address)
        for (version, prefixlen), prefixes in self._networks.items():
            if version != address.version:
                continue
            bucket = prefixes.get(number >> (address.max_prefixlen - prefixlen))
            if bucket:
                yield bucket
