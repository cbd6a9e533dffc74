"""Where sslcustomize's files are: XDG directories, the scopes' policy files."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from sslcustomize._support._paths import (
    default_scope,
    policy_path_for_scope,
    pretty,
    unscoped_policy,
    user_cache_dir,
    user_state_dir,
)


@pytest.fixture
def outside_a_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make this interpreter look like a base interpreter."""
    monkeypatch.setattr(sys, "prefix", sys.base_prefix)


@pytest.fixture
def in_a_venv(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Make this interpreter look like one of a virtual environment at ``tmp_path/venv``."""
    venv = tmp_path / "venv"
    monkeypatch.setattr(sys, "prefix", str(venv))
    return venv


def test_xdg_variables_decide_the_user_directories(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """$XDG_CACHE_HOME and $XDG_STATE_HOME, or ~/.cache and ~/.local/state when blank."""
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "c"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "s"))
    assert user_cache_dir() == str(tmp_path / "c" / "sslcustomize")
    assert user_state_dir() == str(tmp_path / "s" / "sslcustomize")
    monkeypatch.setenv("XDG_CACHE_HOME", "  ")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert user_cache_dir() == str(tmp_path / "home" / ".cache" / "sslcustomize")


@pytest.mark.usefixtures("outside_a_venv")
def test_venv_scope_outside_a_venv_is_refused() -> None:
    """--scope venv without a venv is a ValueError that says what to use; user is the default."""
    with pytest.raises(ValueError, match="not running in a virtual environment"):
        policy_path_for_scope("venv")
    with pytest.raises(ValueError, match="unknown scope"):
        policy_path_for_scope("machine")
    assert policy_path_for_scope("system") == "/etc/sslcustomize/policy.toml"
    assert default_scope() == "user"


def test_the_venv_scope_is_under_its_prefix(in_a_venv: Path) -> None:
    """Inside a venv the venv file is {prefix}/etc/sslcustomize/policy.toml, and the default."""
    assert policy_path_for_scope("venv") == str(in_a_venv / "etc" / "sslcustomize" / "policy.toml")
    assert default_scope() == "venv"


def test_unscoped_commands_follow_the_process_file_then_existing_files(
    in_a_venv: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """SSLCUSTOMIZE_POLICY's last file first; else an existing user file over a missing venv one."""
    assert unscoped_policy() == ("venv", policy_path_for_scope("venv"))
    user = Path(policy_path_for_scope("user"))
    user.parent.mkdir(parents=True)
    user.write_text("version = 1\n", encoding="utf-8")
    assert unscoped_policy() == ("user", str(user))
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", os.pathsep.join(["/a.toml", "/b.toml"]))
    assert unscoped_policy() == ("process", "/b.toml")


def test_pretty_shows_home_as_a_tilde(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """Only a path inside the home directory is shortened (not one that merely starts alike)."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert pretty(str(tmp_path / "home" / "x.toml")) == "~/x.toml"
    assert pretty(str(tmp_path / "homely" / "x.toml")) == str(tmp_path / "homely" / "x.toml")
