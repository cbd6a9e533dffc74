"""Host patterns and the host index."""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sslcustomize._policy._hosts import (
    HostIndex,
    HostPattern,
    normalize_host,
    parse_address,
    parse_host_pattern,
)


@pytest.mark.parametrize(
    ("text", "kind", "value", "port"),
    [
        ("nas.corp.example", "name", "nas.corp.example", None),
        ("NAS.Corp.Example.", "name", "nas.corp.example", None),
        ("nas.corp.example:8443", "name", "nas.corp.example", 8443),
        ("*.corp.example", "wildcard", "corp.example", None),
        ("*.corp.example:443", "wildcard", "corp.example", 443),
        ("10.0.0.5", "address", "10.0.0.5", None),
        ("10.0.0.5:636", "address", "10.0.0.5", 636),
        ("::1", "address", "::1", None),
        ("[::1]:8443", "address", "::1", 8443),
        ("10.0.0.0/8", "network", "10.0.0.0/8", None),
        ("fd00::/8", "network", "fd00::/8", None),
        ("bücher.example", "name", "xn--bcher-kva.example", None),
        ("faß.de", "name", "xn--fa-hia.de", None),
        ("*.Faß.de", "wildcard", "xn--fa-hia.de", None),
        ("[fe80::1%eth1]:443", "address", "fe80::1%eth1", 443),
        ("intranet", "name", "intranet", None),
    ],
)
def test_parse_valid_patterns(text: str, kind: str, value: str, port: int | None) -> None:
    """Each accepted form parses to the expected kind, normalised value and port."""
    pattern = parse_host_pattern(text)
    assert (pattern.kind, pattern.value, pattern.port) == (kind, value, port)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("https://nas.example", "not a URL"),
        ("nas.example:0", "port"),
        ("nas.example:http", "port"),
        ("*.*.example", "whole first label"),
        ("nas*.example", "whole first label"),
        ("10.0.0.1/8", "CIDR"),
        ("bad_label-.example", "DNS label"),
        ("a..b", "label"),
        ("[::1", "closing"),
        ("[::1]8443", "port"),
        ("nas example", "not a URL"),
    ],
)
def test_parse_invalid_patterns(text: str, message: str) -> None:
    """Malformed patterns raise ValueError saying what is wrong."""
    with pytest.raises(ValueError, match=message):
        parse_host_pattern(text)


def test_pattern_str_round_trips() -> None:
    """str() of a pattern is the policy-file form and parses back to the same pattern."""
    for text in ("nas.example:8443", "*.corp.example", "[::1]:443", "10.0.0.0/8", "::1"):
        pattern = parse_host_pattern(text)
        assert parse_host_pattern(str(pattern)) == pattern


def test_normalize_host_rejects_bad_idna() -> None:
    """A name that cannot be IDNA-encoded is an error, not a silent mismatch."""
    with pytest.raises(ValueError, match="international"):
        normalize_host("\u00ad" * 70 + ".example")


def _index(*patterns: str) -> HostIndex[str]:
    return HostIndex((parse_host_pattern(p), p) for p in patterns)


def test_index_exact_beats_wildcard_beats_nothing() -> None:
    """The exact name wins over the wildcard; the wildcard matches one label only."""
    index = _index("*.corp.example", "nas.corp.example")
    assert index.lookup("nas.corp.example", 443) == "nas.corp.example"
    assert index.lookup("git.corp.example", 443) == "*.corp.example"
    assert index.lookup("a.b.corp.example", 443) is None
    assert index.lookup("corp.example", 443) is None
    assert index.lookup("corp.example.evil", 443) is None


def test_index_port_specific_wins_and_other_ports_miss() -> None:
    """A port-specific entry wins on its port and never matches another port."""
    index = _index("nas.example", "nas.example:8443", "only.example:8443")
    assert index.lookup("nas.example", 8443) == "nas.example:8443"
    assert index.lookup("nas.example", 443) == "nas.example"
    assert index.lookup("only.example", 443) is None
    assert index.lookup("only.example", None) is None


def test_index_addresses_and_longest_network() -> None:
    """An exact address wins over networks; the longest network wins over shorter ones."""
    index = _index("10.0.0.0/8", "10.1.0.0/16", "10.1.2.3", "fd00::/8")
    assert index.lookup("10.1.2.3") == "10.1.2.3"
    assert index.lookup("10.1.9.9") == "10.1.0.0/16"
    assert index.lookup("10.200.0.1") == "10.0.0.0/8"
    assert index.lookup("11.0.0.1") is None
    assert index.lookup("fd12::1") == "fd00::/8"
    assert index.lookup("fe80::1") is None


def test_index_later_entry_wins_and_usable_skips() -> None:
    """Of equal patterns the later wins; an unusable entry falls back to the next candidate."""
    index: HostIndex[str] = HostIndex()
    index.add(HostPattern(kind="name", value="a.example", port=None), "first")
    index.add(HostPattern(kind="name", value="a.example", port=None), "second")
    index.add(HostPattern(kind="wildcard", value="example", port=None), "wild")
    assert len(index) == 3
    assert index.lookup("a.example") == "second"
    assert index.lookup("a.example", usable=lambda item: item != "second") == "first"
    assert index.lookup("a.example", usable=lambda item: item == "wild") == "wild"


def test_index_lookup_cost_does_not_grow_with_rules() -> None:
    """Lookups probe a bounded number of buckets, whatever the number of rules."""
    index = _index(*(f"host{i}.example" for i in range(5000)), "*.wild.example", "10.0.0.0/8")
    assert list(index._buckets("host17.example")) == [index._names["host17.example"]]
    assert len(list(index._buckets("x.wild.example"))) == 1
    assert len(list(index._buckets("10.9.9.9"))) == 1


_ADDRESS_LIKE = st.text(alphabet="0123456789.:%abcdefx ", max_size=24) | st.builds(
    lambda octets: ".".join(("0" if zero else "") + str(o) for o, zero in octets),
    st.lists(st.tuples(st.integers(0, 300), st.booleans()), min_size=3, max_size=5),
)


@given(_ADDRESS_LIKE)
def test_parse_address_is_ipaddress(text: str) -> None:
    """The fast IPv4 path agrees with ``ipaddress`` on every input: same address or none.

    Which exception a host matches depends on whether it is an address; a parser that took
    a name for an address (or an address written another way) could pick another exception.
    """
    try:
        expected: object = ipaddress.ip_address(text)
    except ValueError:
        expected = None
    if not text or not (text[0].isdigit() or ":" in text):
        expected = None
    assert parse_address(text) == expected
    if isinstance(expected, ipaddress.IPv4Address):  # the index keys IPv4 by the text itself
        assert str(expected) == text


@pytest.mark.parametrize("text", ["01.2.3.4", "1.2.3", "1.2.3.4.", "256.1.1.1", " 1.2.3.4"])
def test_parse_address_refuses_loose_ipv4(text: str) -> None:
    """Leading zeros, missing or extra octets and padding are names, as ipaddress says."""
    assert parse_address(text) is None


def test_ipv6_zone_ids_tell_hosts_apart() -> None:
    """fe80::1%eth1's entry is not fe80::1%eth0's; a network covers every zone."""
    index = _index("fe80::1%eth1", "[fe80::2]:443", "fe80::/10")
    assert index.lookup("fe80::1%eth1", 443) == "fe80::1%eth1"
    assert index.lookup("fe80::1%eth0", 443) == "fe80::/10"  # the network, not eth1's entry
    assert _index("fe80::1%eth1").lookup("fe80::1%eth0", 443) is None
    assert _index("fe80::1%eth1").lookup("fe80::1", 443) is None
    assert _index("fe80::2").lookup("fe80::2%eth0", 443) is None  # a zone is not optional
    assert index.lookup("fe80::2", 443) == "[fe80::2]:443"


def test_international_names_follow_idna_2008() -> None:
    """faß.de is xn--fa-hia.de; fass.de (what IDNA 2003 made of it) is another domain."""
    index = _index("faß.de")
    assert index.lookup("xn--fa-hia.de", 443) == "faß.de"
    # Python's ssl sends and checks IDNA 2003's name for a client given 'faß.de': fass.de,
    # another owner's domain, which the exception must not cover.
    assert index.lookup(normalize_host("faß.de"), 443) is None
    assert _index("fass.de").lookup("xn--fa-hia.de", 443) is None


@pytest.mark.parametrize("text", ["ｆａß.de", "fa\u200dß.de"])
def test_names_idna_2008_would_map_are_refused(text: str) -> None:
    """Full-width letters and invisible joiners: refused with a message, not guessed at."""
    with pytest.raises(ValueError, match="IDNA 2008"):
        parse_host_pattern(text)
