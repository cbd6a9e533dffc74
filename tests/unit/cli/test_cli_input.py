"""Bad input on the command line: one clear error, exit 2, never a traceback (issue 33 §5).

Each case was, before, a traceback, a wrong message or exit 0; none of them connects anywhere
(the error comes before any connection).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from _fixtures import WritePolicy
from sslcustomize._cli import main
from sslcustomize._cli._check import context_problem
from sslcustomize._runtime import _state


def _run(argv: list[str]) -> int:
    """Run the command line in process; a usage error's SystemExit gives its status."""
    try:
        return main(argv)
    except SystemExit as exit_:
        return int(exit_.code or 0)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["check", "--timeout", "-1", "localhost"], "'-1' is not a number of seconds above 0"),
        (["check", "--timeout", "0", "localhost"], "'0' is not a number of seconds above 0"),
        (["check", "--timeout", "nan", "localhost"], "'nan' is not a number of seconds"),
        (["scan", "--timeout", "-1", "targets.txt"], "'-1' is not a number of seconds above 0"),
        (["trust", "--timeout", "0", "localhost"], "'0' is not a number of seconds above 0"),
        (["explain", "bad host name!"], "'bad host name!' is not a host name or IP address"),
        (["check", "bad host name!"], "'bad host name!' is not a host name or IP address"),
        (["check", "https://a..example/"], "is not a host name or IP address"),
        (["explain", "*.corp.example"], "is a pattern, not a host"),
        (["check", "--context", "nosuch", "localhost:1"], "--context nosuch: no [context] table"),
        (["check", "--context", "smtpllib", "localhost:1"], "did you mean smtplib?"),
        (["check", "--context", "my app", "localhost:1"], "is not a module name"),
        (["scan", "--context", "nosuch", "-"], "--context nosuch: no [context] table"),
        (["status", "--bogus"], "sslcustomize status: error: unrecognized arguments: --bogus"),
    ],
)
def test_bad_input_is_one_clear_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Each mistake exits 2 with an error that names it, and no traceback."""
    assert _run(argv) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err
    assert "usage: sslcustomize [-h]" not in err  # not the top level's usage


def test_an_unknown_option_names_its_command(capsys: pytest.CaptureFixture[str]) -> None:
    """The twin of `status --bogus`: the usage shown is the command's, with its options."""
    assert _run(["check", "localhost", "--bogus"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: sslcustomize check")
    assert "Try 'sslcustomize check --help'." in err


@pytest.mark.parametrize("name", ["smtplib", "urllib3.util.ssl_", "http.client", "myapp.mail"])
def test_a_context_that_can_change_a_verdict_is_accepted(
    name: str, write_policy: WritePolicy, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The twins: a covered client (or a module below it) and a name the policy has a table for."""
    path = write_policy("version = 1\n[context.myapp]\nmode = 'report'\n")
    monkeypatch.setenv("SSLCUSTOMIZE_POLICY", str(path))
    _state.set_policy(None)
    assert context_problem(_state.current_policy(), name) is None
    assert context_problem(_state.current_policy(), "yourapp.mail") is not None


@pytest.mark.parametrize("timeout", ["0.5", "10", "86400"])
def test_a_timeout_in_range_is_taken(timeout: str, tmp_path: Path) -> None:
    """The twin of the bad timeouts: any number of seconds above 0 passes the parser."""
    empty = tmp_path / "targets.txt"
    empty.write_text("# nothing to check\n")
    assert _run(["scan", "--json", "--timeout", timeout, str(empty)]) == 0
