"""The documentation's examples: policy blocks parse, Python blocks run, commands are covered."""

from __future__ import annotations

from pathlib import Path

import pytest
import trustme

import sslcustomize
from _docs import DOCS, POLICY_BLOCKS, ROOT, blocks
from sslcustomize._cli import COMMANDS, build_parser, main
from sslcustomize._trust._checked_policy import parse_policy


@pytest.mark.parametrize("block", POLICY_BLOCKS)
def test_policy_examples_are_valid(block: str, tmp_path: Path) -> None:
    """Every TOML example in the docs is a valid policy (invented CA paths made real)."""
    ca = tmp_path / "ca.pem"
    ca.write_bytes(trustme.CA().cert_pem.bytes())  # CA files are read when a policy loads
    text = block.replace("/etc/corp/root-ca.pem", str(ca)).replace("/etc/corp/lab-ca.pem", str(ca))
    text = text.replace("/etc/sslcustomize/ca/root-ca.pem", str(ca))
    parse_policy(text, path=str(tmp_path / "policy.toml"), layer="system")


def test_the_corporate_ca_howto_shows_the_policy_its_commands_write(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`enable` then `trust --ca-file` leave exactly the policy the how-to shows (user scope)."""
    config = tmp_path / "config"
    monkeypatch.setenv("XDG_CONFIG_HOME", str(config))
    ca = tmp_path / "root-ca.pem"
    ca.write_bytes(trustme.CA().cert_pem.bytes())
    assert main(["enable", "--scope", "user"]) == 0
    assert main(["trust", "--ca-file", str(ca), "--scope", "user"]) == 0
    capsys.readouterr()
    written = (config / "sslcustomize" / "policy.toml").read_text()
    shown = next(
        b for b in blocks(DOCS / "howto-corporate-ca.md", "toml") if "written by `sslcustomize" in b
    )
    lines = [line.removeprefix("   ") for line in shown.splitlines()[1:]]  # the path comment
    expected = "\n".join(lines).replace("/etc/sslcustomize", str(config / "sslcustomize"))
    assert written.strip() == expected.strip()


PYTHON_BLOCKS = [
    pytest.param(block, id=f"{path.name}-{index}")
    for path in (DOCS / "api.md", ROOT / "README.md")
    for index, block in enumerate(blocks(path, "python"))
]


@pytest.mark.parametrize("block", PYTHON_BLOCKS)
def test_python_examples_run(block: str) -> None:
    """Every Python example in the docs runs as written."""
    try:
        exec(compile(block, "<docs>", "exec"), {"__name__": "docs_example"})  # noqa: S102
    finally:
        sslcustomize.extract()
        sslcustomize.named_contexts.clear()


def test_every_command_is_documented() -> None:
    """docs/cli.md has a section for every command the parser knows."""
    text = (DOCS / "cli.md").read_text(encoding="utf-8")
    assert build_parser()
    for command in COMMANDS:
        assert f"\n## {command}\n" in text, command
