"""Loading the layers: which files, in which order, and fail closed on any error."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from _fixtures import WritePolicy
from sslcustomize._policy._load import load_layers, policy_files
from sslcustomize._policy._model import TrustSource


def _no_check(source: TrustSource) -> None:
    """Accept every trust source (this layer loads; the trust layer checks)."""


def test_policy_files_list_the_layers_then_the_process_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """System first, the user layer under XDG_CONFIG_HOME, then each SSLCUSTOMIZE_POLICY file."""
    one, two = tmp_path / "one.toml", tmp_path / "two.toml"
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", os.pathsep.join([str(one), "", str(two)]))
    files = policy_files()
    assert files[0] == ("system", "/etc/sslcustomize/policy.toml", False)
    user = [path for layer, path, _ in files if layer == "user"]
    assert user == [os.path.join(os.environ["XDG_CONFIG_HOME"], "sslcustomize", "policy.toml")]
    assert files[-2:] == [("process", str(one), True), ("process", str(two), True)]


def test_an_absent_optional_layer_is_skipped_and_a_required_one_is_an_error(
    write_policy: WritePolicy, tmp_path: Path
) -> None:
    """A missing user file means no user layer; a missing process file means fail closed."""
    check = _no_check
    good = str(write_policy("mode = 'report'\n"))
    missing = str(tmp_path / "missing.toml")
    policy = load_layers([("user", missing, False), ("process", good, True)], check_source=check)
    assert not policy.errors
    assert policy.mode.value == "report"
    closed = load_layers([("process", missing, True), ("user", good, False)], check_source=check)
    assert closed.fallback
    assert closed.mode.value == "enforce"


def test_a_dangling_link_is_not_absence(write_policy: WritePolicy, tmp_path: Path) -> None:
    """Attack: a user layer that is a dangling symlink fails closed instead of meaning no policy."""
    link = tmp_path / "policy.toml"
    link.symlink_to(tmp_path / "gone.toml")
    report = str(write_policy("mode = 'report'\n"))
    policy = load_layers(
        [("user", str(link), False), ("process", report, True)], check_source=_no_check
    )
    assert policy.fallback
    assert policy.mode.value == "enforce"
    assert str(link) in str(policy.errors[0])


def test_every_broken_file_is_an_error_of_the_fallback(write_policy: WritePolicy) -> None:
    """Two broken files give two errors, not one."""
    one, two = write_policy("mode = 'loud'\n"), write_policy("colour = 1\n")
    policy = load_layers(
        [("process", str(one), True), ("process", str(two), True)], check_source=_no_check
    )
    assert [error.path for error in policy.errors] == [str(one), str(two)]
