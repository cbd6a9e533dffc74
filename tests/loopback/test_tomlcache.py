"""The policy parse cache: used only when it is this user's alone and holds the same text.

Each way an entry could be forged or go stale has its test beside the case where the cache
is used; the end-to-end pair runs a hooked interpreter against loopback servers of a trusted
CA and of an attacker's, with a forged entry that names the attacker's CA.
"""

from __future__ import annotations

import datetime as dt
import marshal
import math
import os
import stat
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import trustme

import _pki
from _fixtures import WritePolicy
from sslcustomize._policy import _tomlcache
from sslcustomize._policy._lines import locate_keys
from sslcustomize._trust._checked_policy import load_policy, parse_policy
from sslcustomize.exceptions import PolicyError

if TYPE_CHECKING:
    from conftest import StartServer

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

# Every kind of value TOML has, dates and times with and without offsets among them.
EVERY_KIND = textwrap.dedent(
    """\
    version = 1
    trust = ["system", "/etc/ca.pem"]
    minimum_tls = "1.2"
    big = 123456789012345678901234567890
    negative_zero = -0.0
    not_a_number = nan
    infinite = -inf
    yes = true
    unicode = "fa\u00df.de \\u00e9"
    local_date = 2027-01-31
    local_time = 07:32:00.999999
    local_datetime = 2027-01-31T07:32:00
    offset_datetime = 2027-01-31T07:32:00.5+05:30
    utc_datetime = 2027-01-31T07:32:00Z

    [[exception]]
    host = "appliance.example.internal:8443"
    expires = 2027-01-31

    [[exception]]
    host = "10.0.0.0/8"
    nested = [[1, 2], ["a"], [{ x = 1 }]]
    """
)


class CountingParser:
    """tomllib's ``loads``, counting its calls."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, text: str) -> dict[str, Any]:
        self.calls += 1
        tree: dict[str, Any] = tomllib.loads(text)
        return tree


def _same(left: object, right: object) -> bool:
    """Equal, with NaN equal to NaN and -0.0 told from 0.0 (as the parser's own result).

    A date read back from an entry is a ``CachedDate`` (the day without ``datetime``): it is
    the same as the parser's ``date`` of that day and nothing else.
    """
    if isinstance(right, _tomlcache.CachedDate):
        left, right = right, left
    if isinstance(left, _tomlcache.CachedDate):
        return type(right) is dt.date and left == right and left.date() == right
    if isinstance(left, dict) and isinstance(right, dict):
        return left.keys() == right.keys() and all(_same(left[k], right[k]) for k in left)
    if isinstance(left, list) and isinstance(right, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, float) and isinstance(right, float):
        if math.isnan(left):
            return math.isnan(right)
        return left == right and math.copysign(1, left) == math.copysign(1, right)
    return type(left) is type(right) and left == right


def _cached(text: str, path: str, parse: CountingParser) -> dict[str, Any]:
    tree, lines = _tomlcache.cached_parse(text, path, parse, locate_keys)
    assert lines == locate_keys(text)
    return tree


def _entry(path: Path) -> Path:
    entry = _tomlcache.entry_path(str(path))
    assert entry is not None, "the test's cache directory is private: an entry must be possible"
    return Path(entry)


def _forge(entry: Path, text: str, tree: dict[str, Any], mode: int = 0o600) -> None:
    """Write an entry that claims ``text`` parses to ``tree`` (what an attacker would)."""
    lines = [[list(key), line] for key, line in locate_keys(text).items()]
    entry.write_bytes(marshal.dumps((2, text, tree, lines)))
    entry.chmod(mode)


def test_second_parse_comes_from_the_cache_and_equals_the_parser(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    parse = CountingParser()
    first = _cached(EVERY_KIND, str(path), parse)
    second = _cached(EVERY_KIND, str(path), parse)
    assert parse.calls == 1
    assert _same(second, tomllib.loads(EVERY_KIND))
    assert _same(first, second)
    assert stat.S_IMODE(_entry(path).stat().st_mode) == 0o600


def test_an_edited_file_is_parsed_again_at_once(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    parse = CountingParser()
    _cached('mode = "report"\n', str(path), parse)
    edited = _cached('mode = "enforce"\n', str(path), parse)
    assert parse.calls == 2
    assert edited == {"mode": "enforce"}


def test_an_entry_others_can_write_is_never_used(tmp_path: Path) -> None:
    """Attack: a group- or world-writable entry claiming other contents for the same text."""
    path = tmp_path / "policy.toml"
    text = 'trust = ["system"]\n'
    for mode in (0o666, 0o620, 0o640):
        _forge(_entry(path), text, {"trust": ["/var/evil.pem"]}, mode)
        parse = CountingParser()
        assert _cached(text, str(path), parse) == {"trust": ["system"]}
        assert parse.calls == 1


def test_our_own_private_entry_is_used(tmp_path: Path) -> None:
    """Twin: an entry of this user's, 0600, holding the same text, is what is returned."""
    path = tmp_path / "policy.toml"
    text = 'trust = ["system"]\n'
    _forge(_entry(path), text, {"trust": ["system"], "from": ["the cache"]})
    parse = CountingParser()
    assert _cached(text, str(path), parse)["from"] == ["the cache"]
    assert parse.calls == 0


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="needs root (chown)")
def test_an_entry_of_another_user_is_never_used(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    text = 'trust = ["system"]\n'
    entry = _entry(path)
    _forge(entry, text, {"trust": ["/var/evil.pem"]})
    os.chown(entry, 65534, 65534)
    assert _cached(text, str(path), CountingParser()) == {"trust": ["system"]}


def test_a_symlinked_entry_is_never_followed(tmp_path: Path) -> None:
    path = tmp_path / "policy.toml"
    text = 'trust = ["system"]\n'
    elsewhere = tmp_path / "forged"
    _forge(elsewhere, text, {"trust": ["/var/evil.pem"]})
    _entry(path).symlink_to(elsewhere)
    assert _cached(text, str(path), CountingParser()) == {"trust": ["system"]}


def test_a_cache_under_a_directory_others_can_change_is_not_used(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: a parent directory others can write (not sticky) could swap the entry."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared / "cache"))
    assert _tomlcache.entry_path(str(tmp_path / "policy.toml")) is None
    parse = CountingParser()
    for _ in range(2):
        assert _cached("mode = 'report'\n", "p.toml", parse) == {"mode": "report"}
    assert parse.calls == 2


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"not marshal at all",
        marshal.dumps((2, "mode = 'report'\n", {"mode": "report"}, [[["mode"], 1]]))[:-3],
        marshal.dumps((1, "mode = 'report'\n", {"mode": "enforce"})),  # an older format
        marshal.dumps((2, "mode = 'report'\n", {"when": ("weekday", "monday")}, [])),  # bad tag
        marshal.dumps((2, "mode = 'report'\n", {"mode": None}, [])),  # not a parser's value
        marshal.dumps((2, "mode = 'report'\n", ["mode"], [])),  # not a table
        marshal.dumps((2, "mode = 'report'\n", {"mode": "x"}, [[["mode"], "one"]])),  # a line
        marshal.dumps([1, 2]),
    ],
    ids=["empty", "garbage", "truncated", "format", "tag", "none", "list", "line", "shape"],
)
def test_a_broken_entry_is_a_miss_and_is_rewritten(tmp_path: Path, content: bytes) -> None:
    path = tmp_path / "policy.toml"
    entry = _entry(path)
    entry.write_bytes(content)
    entry.chmod(0o600)
    parse = CountingParser()
    assert _cached("mode = 'report'\n", str(path), parse) == {"mode": "report"}
    assert _cached("mode = 'report'\n", str(path), parse) == {"mode": "report"}
    assert parse.calls == 1


def test_an_unwritable_cache_costs_time_never_the_policy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "not-a-directory"
    blocker.write_text("a file where the cache directory would be")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocker))
    parse = CountingParser()
    for _ in range(2):
        assert _cached("mode = 'report'\n", "p.toml", parse) == {"mode": "report"}
    assert parse.calls == 2


def test_invalid_toml_is_never_cached_and_still_names_the_line(write_policy: WritePolicy) -> None:
    path = write_policy('version = 1\nmode = "report\n')
    for _ in range(2):
        with pytest.raises(PolicyError) as error:
            parse_policy(path.read_text(), path=str(path), layer="process")
        assert error.value.line == 2
    assert not _entry(path).exists()


def test_a_policy_read_from_the_cache_is_the_policy_read_by_the_parser(
    write_policy: WritePolicy, ca_file: Path
) -> None:
    path = write_policy(
        f"""\
        version = 1
        mode = "report"
        trust = ["system"]

        [[exception]]
        host = "appliance.example.internal"
        ca = ["{ca_file}"]
        reason = "an appliance"
        expires = 2099-12-31
        """
    )
    text = path.read_text()
    parsed = parse_policy(text, path=str(path), layer="process")
    assert _entry(path).exists()
    cached = parse_policy(text, path=str(path), layer="process")
    assert cached == parsed
    assert cached.exceptions[0].expires == dt.date(2099, 12, 31)
    assert not load_policy([("process", str(path), True)]).errors


# --- Through the hook, in a fresh interpreter --------------------------------------------------

needs_hook = pytest.mark.skipif(
    not any((Path(p) / "sslcustomize.pth").is_file() for p in sys.path if p),
    reason="needs a wheel install (the .pth hook)",
)

_FETCH = """
import sys, urllib.request
for url in sys.argv[1:]:
    try:
        urllib.request.urlopen(url, timeout=10).read()
        print("accepted")
    except Exception as error:
        print("rejected")
print("tomllib" in sys.modules, "tomli" in sys.modules)
"""


def _case(ca: trustme.CA) -> _pki.CertCase:
    leaf = ca.issue_cert("localhost")
    return _pki.CertCase(
        name="localhost",
        chain_pem=b"".join(blob.bytes() for blob in leaf.cert_chain_pems),
        key_pem=leaf.private_key_pem.bytes(),
        ca_pem=ca.cert_pem.bytes(),
        reasons=frozenset(),
        names=("localhost",),
        leaf_pem=leaf.cert_chain_pems[0].bytes(),
    )


def _fetch(urls: list[str], policy: Path) -> list[str]:
    result = subprocess.run(
        [sys.executable, "-c", _FETCH, *urls],
        capture_output=True, text=True, timeout=120, check=False,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": str(policy)},
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    return result.stdout.split("\n")


def _corp_and_evil_servers(tmp_path: Path, https_server: StartServer) -> list[str]:
    """Serve localhost from a corporate CA and from an attacker's; write both CAs' PEMs."""
    urls = []
    for name in ("corp", "evil"):
        ca = trustme.CA()
        ca.cert_pem.write_to_path(str(tmp_path / f"{name}.pem"))
        urls.append(https_server(_case(ca), "localhost").url())
    return urls


@needs_hook
def test_hooked_process_with_a_warm_cache_verifies_as_the_policy_says(
    tmp_path: Path, write_policy: WritePolicy, https_server: StartServer
) -> None:
    """Legitimate twin: the second process reads the cache, not tomllib, and verifies alike."""
    urls = _corp_and_evil_servers(tmp_path, https_server)
    policy = write_policy(f"trust = ['{tmp_path / 'corp.pem'}']\n")
    first = _fetch(urls, policy)
    warm = _fetch(urls, policy)
    assert first[:2] == warm[:2] == ["accepted", "rejected"]
    assert warm[2] == "False False", "a warm cache must spare the TOML parser"


@needs_hook
def test_a_forged_entry_cannot_make_a_hooked_process_trust_an_attacker(
    tmp_path: Path, write_policy: WritePolicy, https_server: StartServer
) -> None:
    """Attack: another user's world-writable entry names the attacker's CA for this policy."""
    urls = _corp_and_evil_servers(tmp_path, https_server)
    policy = write_policy(f"trust = ['{tmp_path / 'corp.pem'}']\n")
    text = policy.read_text()
    _forge(_entry(policy), text, {"trust": [str(tmp_path / "evil.pem")]}, mode=0o666)
    assert _fetch(urls, policy)[:2] == ["accepted", "rejected"]
