"""The first-context entry: a hint kept per set of policy files, used only for the same bytes."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from sslcustomize._support import _bootstrap, _firstcontext
from sslcustomize._support._files import cache_directory
from sslcustomize._support._firstcontext import files_key, longest_prefix, minimum_tls, remember

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def policy(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """One process policy file, no other layer, a fresh entry and fresh process marks."""
    path = tmp_path / "policy.toml"
    path.write_text('minimum_tls = "1.3"\n', encoding="utf-8")
    monkeypatch.setattr(_bootstrap, "layer_paths", lambda: [("user", str(tmp_path / "none"))])
    monkeypatch.setattr(_bootstrap, "process_policy_paths", lambda: [str(path)])
    monkeypatch.setattr(_firstcontext, "_hit", False)
    monkeypatch.setattr(_firstcontext, "_made_early", False)
    _forget(monkeypatch)
    return path


def _forget(monkeypatch: pytest.MonkeyPatch) -> None:
    """Forget the entry this process read (a new process reads it again)."""
    monkeypatch.setattr(_firstcontext, "_found", None)


def test_longest_prefix_finds_the_longest_dotted_prefix() -> None:
    """``a.b`` serves ``a.b.c``, not ``a.bc``; nothing for no name or an empty table."""
    table = {"a": 1, "a.b": 2}
    assert longest_prefix(table, "a.b.c") == 2
    assert longest_prefix(table, "a.bc") == 1
    assert longest_prefix(table, "b") is None
    assert longest_prefix(table, None) is None
    assert longest_prefix({}, "a") is None


def test_an_entry_gives_the_versions_it_was_written_with(policy: Path) -> None:
    """The default for a name without a rule, a rule's for the names under it."""
    remember(files_key(), "1.3", {"legacy": "1.2"})
    assert minimum_tls(None) == "1.3"
    assert minimum_tls("app.client") == "1.3"
    assert minimum_tls("legacy.sub") == "1.2"
    assert _firstcontext.made_early()
    assert _firstcontext.used()


def test_a_changed_byte_or_a_new_layer_misses(
    policy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Attack: an edited policy (or a layer that appeared) never gets the old entry's version."""
    remember(files_key(), "1.2", {})
    policy.write_text('minimum_tls = "1.2"\n ', encoding="utf-8")
    assert minimum_tls(None) is None
    policy.write_text('minimum_tls = "1.3"\n', encoding="utf-8")
    assert minimum_tls(None) == "1.2"  # the twin: the same bytes again
    _forget(monkeypatch)
    (tmp_path / "none").write_text("", encoding="utf-8")
    assert minimum_tls(None) is None


def test_a_process_reads_its_entry_once(policy: Path) -> None:
    """Later contexts of a process take the versions read for its first one.

    As the runtime reads the policy once per process: an entry removed since changes nothing.
    """
    remember(files_key(), "1.3", {})
    assert minimum_tls(None) == "1.3"
    for entry in os.scandir(_entry_directory()):
        os.unlink(entry.path)
    assert minimum_tls("app") == "1.3"


def test_an_unreadable_layer_gives_no_key(policy: Path, tmp_path: Path) -> None:
    """A dangling link is no absence: no key, so the full read says what is wrong with it."""
    os.symlink(tmp_path / "missing", tmp_path / "none")
    assert files_key() is None
    assert minimum_tls(None) is None


def test_an_entry_another_user_could_write_is_not_read(policy: Path) -> None:
    """Attack: an entry whose mode lets others write it is refused; its private twin is read."""
    remember(files_key(), "1.2", {})
    (entry,) = (p for p in os.scandir(_entry_directory()) if not p.name.endswith(".tmp"))
    os.chmod(entry.path, 0o666)  # noqa: S103 - the attack: an entry others may write
    assert minimum_tls(None) is None
    os.chmod(entry.path, 0o600)
    assert minimum_tls(None) == "1.2"


def test_a_version_the_policy_cannot_have_is_a_miss(policy: Path) -> None:
    """An entry holding anything but "1.2" or "1.3" is not used."""
    remember(files_key(), "1.0", {})
    assert minimum_tls(None) is None


def test_nothing_is_written_without_a_key_or_after_a_hit(
    policy: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A process that used its entry, or could not read a file, writes nothing."""
    remember(None, "1.2", {})
    assert not os.path.isdir(_entry_directory()) or not os.listdir(_entry_directory())
    remember(files_key(), "1.3", {})
    assert minimum_tls(None) == "1.3"
    remember(files_key(), "1.2", {})  # this process used the entry: kept as it is
    _forget(monkeypatch)
    assert minimum_tls(None) == "1.3"


def _entry_directory() -> str:
    return cache_directory("first-context")
