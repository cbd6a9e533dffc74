"""Hostile policy input: every input gives a PolicyError (and the fallback), never another error."""

from __future__ import annotations

import contextlib
import os
import sys
import threading
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from _fixtures import WritePolicy, run_python
from sslcustomize import PolicyError
from sslcustomize._policy._hosts import parse_host_pattern
from sslcustomize._policy._read import MAX_POLICY_SIZE, read_text
from sslcustomize._trust._checked_policy import load_policy, parse_policy

FUZZ = settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _load(path: Path | str) -> str:
    """Load one process layer; return the single error's problem text."""
    policy = load_policy([("process", str(path), True)])
    assert policy.fallback
    (error,) = policy.errors
    return error.problem


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    """A FIFO with no writer is refused at once (it would hang a reader)."""
    fifo = tmp_path / "policy.toml"
    os.mkfifo(fifo)
    result: list[str] = []
    reader = threading.Thread(target=lambda: result.append(_load(fifo)), daemon=True)
    reader.start()
    reader.join(timeout=10)
    assert result == ["cannot read the policy file: not a regular file"]


@pytest.mark.parametrize("device", ["/dev/zero", "/dev/null", "/dev/stdin"])
def test_devices_are_refused_unread(device: str) -> None:
    """/dev/zero (endless), /dev/stdin (the program's input) and the like are never read."""
    assert "not a regular file" in _load(device)


def test_stdin_is_not_consumed() -> None:
    """SSLCUSTOMIZE_POLICY=/dev/stdin leaves the application's input to the application."""
    code = """
        import ssl, sys
        ssl.create_default_context()
        print(sys.stdin.read())
    """
    import subprocess

    result = subprocess.run(
        [sys.executable, "-c", code.replace("\n        ", "\n")],
        input="the application's input",
        capture_output=True,
        text=True,
        env={**os.environ, "SSLCUSTOMIZE_POLICY": "/dev/stdin"},
        timeout=60,
        check=False,
    )
    assert result.stdout.strip() == "the application's input"
    assert "not a regular file" in result.stderr


def test_directory_is_refused(tmp_path: Path) -> None:
    """A directory where the policy should be is an error, not an empty policy."""
    assert "not a regular file" in _load(tmp_path)


def test_oversized_file_is_refused(tmp_path: Path) -> None:
    """A file over the size cap is refused."""
    path = tmp_path / "big.toml"
    path.write_bytes(b"#" * (MAX_POLICY_SIZE + 1))
    assert "larger than" in _load(path)


def test_file_at_the_size_cap_is_read(tmp_path: Path) -> None:
    """Twin: a comment-padded file of exactly the cap is a valid policy."""
    path = tmp_path / "big.toml"
    path.write_bytes(b"mode = 'report'\n" + b"#" * (MAX_POLICY_SIZE - 17) + b"\n")
    policy = load_policy([("process", str(path), True)])
    assert not policy.errors
    assert policy.mode.value == "report"


def test_symlink_to_a_regular_file_is_followed(tmp_path: Path, write_policy: WritePolicy) -> None:
    """A policy that is a symlink to a regular file is read (configuration management links)."""
    target = write_policy("mode = 'report'\n")
    link = tmp_path / "link.toml"
    link.symlink_to(target)
    assert read_text(str(link)) == "mode = 'report'\n"


def test_dangling_symlink_layer_is_an_error(tmp_path: Path) -> None:
    """An optional layer that is a dangling symlink is not 'absent': it fails closed."""
    link = tmp_path / "policy.toml"
    link.symlink_to(tmp_path / "gone.toml")
    policy = load_policy([("system", str(link), False)])
    assert policy.fallback
    assert load_policy([("system", str(tmp_path / "none.toml"), False)]).errors == ()


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to drop to another uid")
def test_unsearchable_system_directory_is_an_error() -> None:
    """A system policy in a 0700 directory, read by another user, fails closed."""
    import shutil
    import tempfile

    base = Path(tempfile.mkdtemp(prefix="sslcustomize-etc-"))
    try:
        os.chmod(base, 0o755)  # noqa: S103 - the other uid must reach the test directory
        etc = base / "etc"
        etc.mkdir(mode=0o700)
        (etc / "policy.toml").write_text("lock = ['mode']\n", encoding="utf-8")
        result = run_python(
            f"""
            import os
            from sslcustomize._trust._checked_policy import load_policy
            # the interpreter's files are unreadable as nobody
            import sslcustomize._trust._environment
            os.setgid(65534); os.setuid(65534)
            policy = load_policy([("system", {str(etc / "policy.toml")!r}, False)])
            print(policy.fallback, policy.errors[0].problem)
            """
        )
        assert result.stdout.startswith("True cannot read the policy file: Permission denied")
    finally:
        shutil.rmtree(base)


def test_non_utf8_is_a_policy_error(tmp_path: Path) -> None:
    """Bytes that are not UTF-8 give a PolicyError, not UnicodeDecodeError."""
    path = tmp_path / "p.toml"
    path.write_bytes(b"mode = '\xff'\n")
    assert "not UTF-8" in _load(path)


def test_unicode_escape_in_a_table_name_is_read() -> None:
    """[context."\\U00000061pp"] is valid TOML: it names context 'app', with its line."""
    text = 'version = 1\n[context."\\U00000061pp"]\nmode = "report"\n'
    layer = parse_policy(text, path="p.toml", layer="user")
    assert layer.contexts["app"].origin.line == 2
    assert layer.contexts["app"].mode is not None
    assert layer.contexts["app"].mode.origin.line == 3


def test_deep_nesting_is_a_policy_error() -> None:
    """5,000 nested arrays give a PolicyError, not RecursionError."""
    text = "mode = " + "[" * 5000 + "]" * 5000 + "\n"
    with pytest.raises(PolicyError):
        parse_policy(text, path="p.toml", layer="user")


def test_missing_toml_parser_is_a_policy_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Python 3.10 without tomli: a PolicyError (and the fallback), never a crash."""
    from sslcustomize._policy import _read as _policy_read

    def no_parser() -> object:
        raise ModuleNotFoundError("No module named 'tomli'")

    monkeypatch.setattr(_policy_read, "_toml_parser", no_parser)
    with pytest.raises(PolicyError, match="no TOML parser"):
        parse_policy("mode = 'report'\n", path="p.toml", layer="user")


@pytest.mark.skipif(sys.version_info >= (3, 11), reason="tomllib is built in from 3.11")
def test_python_310_without_tomli_falls_back(tmp_path: Path, write_policy: WritePolicy) -> None:
    """On 3.10 with tomli hidden, the first context is verified under strict defaults."""
    policy = write_policy("mode = 'report'\n")
    result = run_python(
        """
        import sys
        sys.modules["tomli"] = None
        import ssl
        context = ssl.create_default_context()
        print(context.verify_mode == ssl.CERT_REQUIRED, context.check_hostname)
        """,
        env={"SSLCUSTOMIZE_POLICY": str(policy)},
    )
    assert result.stdout.split() == ["True", "True"]
    assert "no TOML parser" in result.stderr


# --- Fuzzing: only PolicyError may escape --------------------------------------------------------

_KEYS = st.sampled_from(
    ["version", "mode", "trust", "minimum_tls", "allow_code_opt_out", "lock", "report",
     "exception", "context", "host", "pin", "ca", "sink", "path", "expires", "reason",
     '"\\U00000061pp"', '"a\\u0062"', "'lit'", "smtplib", "a.b"]
)  # fmt: skip
_VALUES = st.one_of(
    st.sampled_from(
        [
            '"enforce"',
            '"report"',
            "true",
            "1",
            "[]",
            '["system"]',
            "{}",
            "2027-03-01",
            '"1.3"',
            '["mode"]',
            '"*.example"',
            '"::1"',
            '"10.0.0.0/8:443"',
            "[[1]]",
            "1979-05-27T07:32:00Z",
        ]
    ),
    st.text(max_size=20).map(lambda t: '"' + t.replace("\\", "\\\\").replace('"', '\\"') + '"'),
)
_LINES = st.one_of(
    st.builds(lambda k, v: f"{k} = {v}", _KEYS, _VALUES),
    st.builds(lambda k: f"[{k}]", _KEYS),
    st.builds(lambda k: f"[[{k}]]", _KEYS),
    st.builds(lambda k, j: f"[{k}.{j}]", _KEYS, _KEYS),
    st.text(max_size=30),
)


def _only_policy_errors(text: str) -> None:
    with contextlib.suppress(PolicyError):
        parse_policy(text, path="fuzz.toml", layer="system")


@FUZZ
@given(st.lists(_LINES, max_size=12).map("\n".join))
def test_fuzz_policy_shaped_text(text: str) -> None:
    """Policy-shaped TOML, valid or not: parse_policy raises nothing but PolicyError."""
    _only_policy_errors(text)


@FUZZ
@given(st.text(max_size=200))
def test_fuzz_any_text(text: str) -> None:
    """Arbitrary text: parse_policy raises nothing but PolicyError."""
    _only_policy_errors(text)


@FUZZ
@given(st.binary(max_size=200))
def test_fuzz_any_file(tmp_path_factory: pytest.TempPathFactory, data: bytes) -> None:
    """Arbitrary bytes in a file: load_policy never raises and always says what went wrong."""
    path = tmp_path_factory.mktemp("fuzz") / "p.toml"
    path.write_bytes(data)
    policy = load_policy([("process", str(path), True)])
    assert policy.fallback or not policy.errors


@FUZZ
@given(
    st.one_of(
        st.text(max_size=60),
        st.text(alphabet="0123456789abcdef:.%/[]*-xn", max_size=40),
    )
)
def test_fuzz_host_patterns(text: str) -> None:
    """parse_host_pattern raises nothing but ValueError (the loader's PolicyError)."""
    with contextlib.suppress(ValueError):
        parse_host_pattern(text)


@FUZZ
@given(st.text(min_size=1, max_size=20))
def test_fuzz_quoted_table_names_are_located(name: str) -> None:
    """Any quoted table name TOML reads is found by the line locator under the same key."""
    import json

    from sslcustomize._policy._lines import locate_keys
    from sslcustomize._policy._read import _toml_parser

    quoted = json.dumps(name, ensure_ascii=False).replace("\x7f", "\\u007f")
    text = f"[context.{quoted}]\nmode = 'report'\n"
    (key,) = _toml_parser().loads(text)["context"]
    lines = locate_keys(text)
    assert lines[("context", key)] == 1
    assert lines[("context", key, "mode")] == 2
