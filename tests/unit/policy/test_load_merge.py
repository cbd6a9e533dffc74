"""Merging layers: lists accumulate, scalars override, locks hold, a broken file never loosens."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from sslcustomize._policy._load import fallback_policy, merge_layers
from sslcustomize._policy._model import LayerFile, TrustSource
from sslcustomize._policy._read import parse_policy
from sslcustomize.exceptions import PolicyError


def _no_check(source: TrustSource) -> None:
    """Accept every trust source (this layer merges; the trust layer checks)."""


@pytest.fixture(autouse=True)
def _in_a_directory_of_cas(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Run where the CA files the policies name (relative paths) exist."""
    for name in ("a", "b", "evil", "nas", "corp", "mine"):
        (tmp_path / f"{name}.pem").write_text("", encoding="utf-8")
    monkeypatch.chdir(tmp_path)


def _layer(layer: str, text: str) -> LayerFile:
    """One layer read from ``text``; its CA paths are relative to the current directory."""
    path = Path.cwd() / f"{layer}.toml"
    return parse_policy(textwrap.dedent(text), path=str(path), layer=layer, check_source=_no_check)


def test_scalars_override_and_trust_accumulates() -> None:
    """The later mode wins; both layers' CA files are trusted, in order, each with its origin."""
    policy = merge_layers([
        _layer("system", "mode = 'enforce'\ntrust = ['a.pem']\n"),
        _layer("user", "mode = 'report'\ntrust = ['b.pem', 'a.pem']\n"),
    ])  # fmt: skip
    assert policy.mode.value == "report"
    assert policy.mode.origin.path == str(Path.cwd() / "user.toml")
    named = [(Path(str(s.path)).name, Path(str(s.origin.path)).name) for s in policy.trust]
    assert named == [("a.pem", "system.toml"), ("b.pem", "user.toml"), ("a.pem", "user.toml")]
    assert policy.warnings == ()


def test_a_locked_key_keeps_the_system_value_and_warns() -> None:
    """Attack: a user layer cannot turn report mode on under a lock; the warning names both."""
    policy = merge_layers([
        _layer("system", "mode = 'enforce'\nlock = ['mode', 'trust']\n"),
        _layer("user", "mode = 'report'\ntrust = ['evil.pem']\n"),
    ])  # fmt: skip
    assert policy.mode.value == "enforce"
    assert [source.kind for source in policy.trust] == ["system"]
    assert len(policy.warnings) == 2
    assert "user.toml:1: 'mode' is locked by " in policy.warnings[0]
    assert policy.warnings[0].endswith("system.toml:2; the locked value stands")


def test_exceptions_from_every_layer_are_indexed() -> None:
    """Each layer's [[exception]] lands in the policy and in its host index."""
    exception = """\
        [[exception]]
        host = "{host}"
        ca = ["nas.pem"]
        reason = "r"
        """
    policy = merge_layers([
        _layer("system", exception.format(host="a.example")),
        _layer("user", exception.format(host="b.example")),
    ])  # fmt: skip
    assert [str(e.host) for e in policy.exceptions] == ["a.example", "b.example"]
    assert len(policy.index) == 2


def test_the_fallback_keeps_the_system_layer_and_the_stricter_choices() -> None:
    """A broken user file: the system layer as written, enforce, the highest minimum_tls."""
    system = _layer("system", "mode = 'report'\ntrust = ['corp.pem']\nlock = ['trust']\n")
    venv = _layer("venv", "minimum_tls = '1.3'\nallow_code_opt_out = false\n")
    error = PolicyError("bad", path="/user.toml", line=1, key="mode")
    policy = fallback_policy([error], [system, venv])
    assert policy.fallback
    assert policy.mode.value == "enforce"
    assert [Path(str(source.path)).name for source in policy.trust] == ["corp.pem"]
    assert "trust" in policy.locked
    assert policy.minimum_tls.value == "1.3"
    assert policy.allow_code_opt_out.value is False
    assert policy.errors == (error,)


def test_the_fallback_without_a_system_layer_is_the_strict_default() -> None:
    """Twin: no valid system layer, so system trust, enforce and no exceptions."""
    user = _layer("user", "trust = ['mine.pem']\nmode = 'report'\n")
    policy = fallback_policy([PolicyError("bad", path="/p", line=None, key=None)], [user])
    assert [source.kind for source in policy.trust] == ["system"]
    assert policy.mode.value == "enforce"
    assert policy.exceptions == ()
    assert policy.fallback_summary.startswith("strict defaults")
