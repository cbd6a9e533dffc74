"""Policy files: validation with file/line/key, merging of layers, locks, fail-closed fallback."""

from __future__ import annotations

import datetime as dt
import os
from pathlib import Path

import pytest
import trustme

from _fixtures import WritePolicy
from sslcustomize import PolicyError
from sslcustomize._policy._lines import locate_keys
from sslcustomize._policy._load import merge_layers
from sslcustomize._policy._tomlcache import entry_path
from sslcustomize._trust._checked_policy import load_policy, parse_policy

PIN = "sha256/" + "A" * 43 + "="

FULL = f"""\
version = 1
mode = "report"
trust = ["system"]
minimum_tls = "1.3"
allow_code_opt_out = false

[report]
sink = "jsonl"
path = "reports.jsonl"

[[exception]]
host = "nas.corp.example"
pin = ["{PIN}"]
check_hostname = false
expires = 2027-03-01
reason = "vendor appliance, ticket OPS-123"

[[exception]]
host = "*.lab.example:8443"
mode = "report"
reason = "lab"

[context."smtplib"]
mode = "enforce"
trust = ["system"]
"""


def test_full_example_parses_with_provenance(tmp_path: Path) -> None:
    """Every key of the SPEC example is read, each setting knowing its line."""
    path = str(tmp_path / "p.toml")
    layer = parse_policy(FULL, path=path, layer="user")
    policy = merge_layers([layer])
    assert policy.mode.value == "report"
    assert str(policy.mode.origin) == f"{path}:2"
    assert policy.minimum_tls.value == "1.3"
    assert policy.allow_code_opt_out.value is False
    assert str(policy.allow_code_opt_out.origin) == f"{path}:5"
    assert policy.report_sink.value == "jsonl"
    assert policy.report_path.value == str(tmp_path / "reports.jsonl")
    first, second = policy.exceptions
    assert first.pins == (PIN,)
    assert first.check_hostname is False
    assert first.expires == dt.date(2027, 3, 1)
    assert first.origin.line == 11
    assert second.host.port == 8443
    assert second.mode == "report"
    assert second.origin.line == 18
    rule = policy.contexts["smtplib"]
    assert rule.mode is not None
    assert rule.mode.value == "enforce"
    assert rule.origin.line == 23
    assert rule.mode.origin.line == 24


def test_locate_keys_handles_quoted_tables_and_multiline_strings() -> None:
    """Lines are found for quoted table names, dotted keys and after multi-line strings."""
    text = 'a = """\nmode = "x"\n"""\n[context."a.b"]\nmode = "report"\nreport.sink = "log"\n'
    lines = locate_keys(text)
    assert lines[("a",)] == 1
    assert ("mode",) not in lines
    assert lines[("context", "a.b")] == 4
    assert lines[("context", "a.b", "mode")] == 5
    assert lines[("context", "a.b", "report", "sink")] == 6


BAD = [
    ("mode = 'off'\n", 1, "mode", "must be 'enforce' or 'report'"),
    ("version = 2\n", 1, "version", "reads version 1"),
    ("colour = 'red'\n", 1, "colour", "unknown key 'colour'"),
    ("trust = 'system'\n", 1, "trust", "list of strings"),
    ("trust = ['/nonexistent/ca.pem']\n", 1, "trust", "does not exist"),
    ("minimum_tls = '1.1'\n", 1, "minimum_tls", "'1.2' or '1.3'"),
    ("allow_code_opt_out = 'no'\n", 1, "allow_code_opt_out", "true or false"),
    ("lock = ['mode']\n", 1, "lock", "only the system layer"),
    ("[report]\nsink = 'email'\n", 2, "report.sink", "must be"),
    ("[report]\nformat = 1\n", 2, "report.format", "unknown key"),
    ("[[exception]]\nreason = 'x'\npin = ['" + PIN + "']\n", 1, "exception[1]", "needs host"),
    ("[[exception]]\nhost = 'a.example'\npin = ['" + PIN + "']\n", 1, "exception[1]", "reason"),
    (
        "[[exception]]\nhost = 'a..example'\nreason = 'x'\nmode = 'report'\n",
        2,
        "exception[1].host",
        "bad host pattern",
    ),
    (
        "[[exception]]\nhost = 'a.example'\nreason = 'x'\npin = ['sha1/abc']\n",
        4,
        "exception[1].pin",
        "bad pin",
    ),
    (
        "[[exception]]\nhost = 'a.example'\nreason = 'x'\nmode = 'report'\n"
        "check_hostname = false\n",
        5,
        "exception[1].check_hostname",
        "only together with pin",
    ),
    (
        "[[exception]]\nhost = 'a.example'\nreason = 'x'\nmode = 'report'\nexpires = 'soon'\n",
        5,
        "exception[1].expires",
        "TOML date",
    ),
    (
        "[[exception]]\nhost = 'a.example'\nreason = 'x'\n",
        1,
        "exception[1]",
        "changes nothing",
    ),
    (
        "[[exception]]\nhost = 'a.example'\nreason = 'x'\nmode = 'report'\nca = ['missing.pem']\n",
        5,
        "exception[1].ca",
        "does not exist",
    ),
    ("[context.'smtp lib']\nmode = 'report'\n", 1, 'context."smtp lib"', "dotted module"),
    ("[context.smtplib]\nverify = false\n", 2, "context.smtplib.verify", "unknown key"),
    ("mode = \n", 1, None, "not valid TOML"),
    ("version = 1\nmdoe = 'report'\n", 2, "mdoe", "unknown key 'mdoe'; did you mean 'mode'?"),
    ("version = 1\n[report]\nsnk = 'none'\n", 3, "report.snk", "did you mean 'sink'?"),
    ("version = 1\nmode = ", 2, None, "not valid TOML.*end of document"),
    ("[report]\nquiet = 'yes'\n", 2, "report.quiet", "true or false"),
]


@pytest.mark.parametrize(("text", "line", "key", "message"), BAD)
def test_bad_policy_names_file_line_and_key(
    write_policy: WritePolicy, text: str, line: int, key: str | None, message: str
) -> None:
    """Each kind of mistake raises PolicyError with the file, the line and the key."""
    path = write_policy(text)
    with pytest.raises(PolicyError, match=message) as caught:
        parse_policy(path.read_text(), path=str(path), layer="user")
    error = caught.value
    assert error.path == str(path)
    assert error.line == line
    assert error.key == key
    assert str(error).startswith(f"{path}:{line}")


def test_relative_ca_paths_resolve_against_the_policy_file(write_policy: WritePolicy) -> None:
    """A relative CA path means relative to the policy file, not to the working directory."""
    ca = write_policy(trustme.CA().cert_pem.bytes().decode(), name="corp.pem")
    path = write_policy("trust = ['system', 'corp.pem']\n")
    layer = parse_policy(path.read_text(), path=str(path), layer="user")
    assert [(s.kind, s.path) for s in layer.trust] == [("system", None), ("file", str(ca))]


def _layers(write_policy: WritePolicy, *texts: tuple[str, str]) -> list[tuple[str, str, bool]]:
    return [(layer, str(write_policy(text)), True) for layer, text in texts]


def test_merge_lists_accumulate_and_scalars_override(write_policy: WritePolicy) -> None:
    """Trust and exceptions accumulate across layers; scalars take the later layer's value."""
    ca = write_policy(trustme.CA().cert_pem.bytes().decode(), name="ca.pem")
    files = _layers(
        write_policy,
        ("system", "mode = 'enforce'\ntrust = ['system']\n"),
        ("user", f"mode = 'report'\ntrust = ['{ca}']\n[[exception]]\nhost='a.example'\n"
                 "mode='report'\nreason='x'\n"),
        ("process", "[[exception]]\nhost='b.example'\nmode='report'\nreason='y'\n"),
    )  # fmt: skip
    policy = load_policy(files)
    assert not policy.errors
    assert policy.mode.value == "report"
    assert policy.mode.origin.layer == "user"
    assert [str(s) for s in policy.trust] == ["system", str(ca)]
    assert [str(e.host) for e in policy.exceptions] == ["a.example", "b.example"]


def test_first_explicit_trust_replaces_the_builtin_default(write_policy: WritePolicy) -> None:
    """A layer naming only its own CA trusts only that CA; no layer at all means system."""
    ca = write_policy(trustme.CA().cert_pem.bytes().decode(), name="ca.pem")
    policy = load_policy(_layers(write_policy, ("user", f"trust = ['{ca}']\n")))
    assert [s.kind for s in policy.trust] == ["file"]
    assert [s.kind for s in load_policy([]).trust] == ["system"]


def test_system_lock_keeps_value_and_warns_with_file_and_line(write_policy: WritePolicy) -> None:
    """A locked key keeps the system value; the attempt is reported with its file and line."""
    files = _layers(
        write_policy,
        ("system", "mode = 'enforce'\nallow_code_opt_out = false\nlock = ['mode', 'exception',"
                   " 'allow_code_opt_out', 'context']\n"),
        ("user", "\nmode = 'report'\nallow_code_opt_out = true\n[[exception]]\nhost='a.example'\n"
                 "mode='report'\nreason='x'\n[context.smtplib]\nmode='report'\n"),
    )  # fmt: skip
    policy = load_policy(files)
    assert policy.mode.value == "enforce"
    assert policy.allow_code_opt_out.value is False
    assert policy.exceptions == ()
    assert policy.contexts == {}
    assert set(policy.locked) == {"mode", "exception", "allow_code_opt_out", "context"}
    user = files[1][1]
    assert any(w.startswith(f"{user}:2: 'mode' is locked by") for w in policy.warnings)
    assert any(w.startswith(f"{user}:3: 'allow_code_opt_out'") for w in policy.warnings)
    assert any(w.startswith(f"{user}:4: 'exception'") for w in policy.warnings)
    assert any(w.startswith(f"{user}:8: 'context'") for w in policy.warnings)


def test_lock_on_mode_also_covers_context_modes(write_policy: WritePolicy) -> None:
    """A locked mode cannot be switched to report through a named context either."""
    files = _layers(
        write_policy,
        ("system", "lock = ['mode']\n"),
        ("user", "[context.smtplib]\nmode = 'report'\ntrust = ['system']\n"),
    )
    policy = load_policy(files)
    rule = policy.contexts["smtplib"]
    assert rule.mode is None
    assert rule.trust is not None
    assert any("'mode' is locked" in w for w in policy.warnings)


def test_broken_layer_gives_strict_fallback(write_policy: WritePolicy) -> None:
    """One broken file: enforce, system trust, no exceptions, the error kept for messages."""
    files = _layers(
        write_policy,
        ("system", "minimum_tls = '1.3'\nallow_code_opt_out = false\n"),
        ("user", "mode = 'report'\n[[exception]]\nhost='a.example'\nmode='report'\nreason='x'\n"),
        ("process", "mode = 'off'\n"),
    )
    policy = load_policy(files)
    assert policy.fallback
    assert policy.mode.value == "enforce"
    assert [s.kind for s in policy.trust] == ["system"]
    assert policy.exceptions == ()
    assert len(policy.index) == 0
    assert policy.minimum_tls.value == "1.3"
    assert policy.allow_code_opt_out.value is False
    assert policy.errors[0].path == files[2][1]


def test_missing_process_file_is_an_error_missing_layer_is_not(tmp_path: Path) -> None:
    """A file named by SSLCUSTOMIZE_POLICY must exist; absent layer files are skipped."""
    missing = str(tmp_path / "nope.toml")
    assert not load_policy([("user", missing, False)]).errors
    policy = load_policy([("process", missing, True)])
    assert policy.fallback
    assert "cannot read the policy file" in str(policy.errors[0])


def test_unreadable_file_fails_closed(write_policy: WritePolicy) -> None:
    """A policy file that is not UTF-8 fails closed with a message naming it."""
    path = write_policy("")
    path.write_bytes(b"mode = '\xff'\n")
    policy = load_policy([("user", str(path), False)])
    assert policy.fallback
    assert str(path) in str(policy.errors[0])


def test_tomli_is_looked_for_beside_the_package() -> None:
    """The directory searched for a shipped tomli is the one that holds the package itself."""
    import sslcustomize
    from sslcustomize._policy._read import package_parent

    package = os.path.dirname(os.path.abspath(sslcustomize.__file__))
    assert os.path.join(package_parent(), "sslcustomize") == package


def test_a_dated_policy_reads_the_same_from_the_parse_cache(write_policy: WritePolicy) -> None:
    """A second read (its dates from the cache, as ordinals) gives the same exceptions."""
    path = write_policy(FULL)
    cold = load_policy([("process", str(path), True)])
    warm = load_policy([("process", str(path), True)])
    assert warm.exceptions == cold.exceptions
    assert warm.exceptions[0].expires == dt.date(2027, 3, 1)
    assert warm.exceptions[0].expired(dt.date(2027, 3, 1))
    assert not warm.exceptions[0].expired(dt.date(2027, 2, 28))


def test_a_misplaced_date_reads_the_same_error_from_the_parse_cache(tmp_path: Path) -> None:
    """Attack twin: a date where text belongs is refused warm as cold, with the same words."""
    path = tmp_path / "policy.toml"
    path.write_text("version = 1\n[[exception]]\nhost = 'a.example'\nmode = 'report'\n"
                    "reason = 2027-03-01\n")  # fmt: skip
    messages = []
    for _ in range(2):
        with pytest.raises(PolicyError) as caught:
            parse_policy(path.read_text(), path=str(path), layer="user")
        messages.append(str(caught.value))
        entry = entry_path(str(path))
        assert entry is not None
        assert os.path.isfile(entry)  # the second read is the cache's
    assert messages[0] == messages[1]
    assert "datetime.date(2027, 3, 1)" in messages[0]
