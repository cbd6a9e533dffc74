"""doctor says who decides now, and who will once a policy exists (issue 33 §4)."""

from __future__ import annotations

from importlib import metadata

import pytest

from _fixtures import WritePolicy
from sslcustomize._cli import _doctor

# What a venv with pip-system-certs 5.3 (and the truststore it brings) reports.
_TOOLS = {"pip-system-certs": "5.3", "truststore": "0.10.4"}
_REAL_VERSION = metadata.version


def _version(name: str) -> str:
    if name in _TOOLS:
        return _TOOLS[name]
    return _REAL_VERSION(name)


@pytest.fixture
def tools_venv(monkeypatch: pytest.MonkeyPatch) -> None:
    """This process as one of a venv with pip-system-certs and truststore, hook loaded."""
    monkeypatch.setattr(metadata, "version", _version)
    monkeypatch.setattr(_doctor, "_hook_in_place", lambda: True)


def _text(capsys: pytest.CaptureFixture[str]) -> str:
    facts = _doctor.gather()
    _doctor._render(facts)
    return capsys.readouterr().out


@pytest.mark.usefixtures("tools_venv")
def test_idle_doctor_says_truststore_decides_now_and_the_policy_later(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """No policy: idle, truststore decides now; the policy decides once one exists."""
    text = _text(capsys)
    assert "sslcustomize is idle" in text
    assert "who decides now: truststore decides (pip-system-certs injects it" in text
    assert "once a policy exists: the policy decides for every covered client" in text
    assert "pip-system-certs 5.3: truststore decides" in text
    assert "once a policy exists, the policy decides" in text
    assert "pip-system-certs 5.3: the policy decides" not in text
    for line in text.splitlines():
        if line.startswith(("urllib3 ", "requests ", "pip ")):
            assert "not covered now" in line, line
            assert "covered once a policy exists" in line, line


@pytest.mark.usefixtures("tools_venv")
def test_with_a_policy_doctor_says_the_policy_decides(
    write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A policy file exists: not idle; the clients are covered and the policy decides."""
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(write_policy("version = 1\n")))
    facts = _doctor.gather()
    assert facts["who_decides"]["idle"] is False
    tools = {row["tool"]: row for row in facts["trust_tools"]}
    assert tools["pip-system-certs"]["decides"].startswith("the policy decides")
    assert all(row["covered"] for row in facts["third_party"])
    text = _text(capsys)
    assert "idle" not in text
    assert "pip-system-certs 5.3: the policy decides" in text


@pytest.mark.usefixtures("tools_venv")
def test_idle_doctor_json_has_who_decides() -> None:
    """JSON: who_decides now and once a policy exists; each tool's decides and the later one."""
    facts = _doctor.gather()
    who = facts["who_decides"]
    assert who["idle"] is True
    assert who["now"].startswith("truststore decides")
    tools = {row["tool"]: row for row in facts["trust_tools"]}
    assert tools["pip-system-certs"]["decides"].startswith("truststore decides")
    assert tools["pip-system-certs"]["decides_once_policy"].startswith("the policy decides")


def test_idle_without_other_tools_each_client_decides(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """No trust tool: now each client as without sslcustomize (smtplib & co. do not verify)."""
    monkeypatch.setattr(_doctor, "_trust_tools", lambda *, configured=True: [])
    who = _doctor.gather()["who_decides"]
    assert "as it would without sslcustomize" in who["now"]
    assert "smtplib, imaplib, poplib, ftplib do not verify" in who["now"]


def _missing() -> str:
    raise metadata.PackageNotFoundError
