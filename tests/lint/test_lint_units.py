"""Pieces of the linter: rule table and docs, pre-filter, command lines, parallel runs."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from _lint_source import findings_of
from hypothesis import given, settings
from hypothesis import strategies as st

from sslcustomize_lint import RULES, LintResult, lint_files, lint_source
from sslcustomize_lint._commands import scan_command, tokens_of
from sslcustomize_lint._docs import render_index, render_rule
from sslcustomize_lint._prefilter import (
    _PATTERNS,
    _places,
    hot_lines,
    hot_places,
    may_contain_findings,
    module_names,
    word_places,
)
from sslcustomize_lint._runner import _READ_SIZE, _read
from sslcustomize_lint._scoring import load_labels
from sslcustomize_lint._siblings import _ASSIGNMENT
from sslcustomize_lint._tables import ENV_VARS

DOCS = Path(__file__).parents[2] / "docs"


def test_rule_codes_are_unique_and_grouped() -> None:
    """Codes are unique, SSC plus three digits, and each maps to a family."""
    codes = [rule.code for rule in RULES]
    assert len(set(codes)) == len(codes)
    for rule in RULES:
        assert rule.code.startswith("SSC")
        assert rule.code[3:].isdigit()
        assert len(rule.code) == 6
        assert rule.family


@pytest.mark.parametrize("rule", RULES, ids=lambda r: r.code)
def test_docs_page_matches_rule_table(rule: object) -> None:
    """Each rule has a docs page, generated from the rule table (what, why, fix)."""
    page = DOCS / "rules" / f"{rule.code}.md"  # type: ignore[attr-defined]
    assert page.read_text(encoding="utf-8") == render_rule(rule)  # type: ignore[arg-type]


def test_docs_index_matches_rule_table() -> None:
    """docs/lint.md ends with the rule table rendered from the rules."""
    assert (DOCS / "lint.md").read_text(encoding="utf-8").endswith(render_index())


def test_findings_name_the_scoped_fix() -> None:
    """Every weakening rule's fix names a scoped remedy."""
    for rule in RULES:
        if rule.code in {"SSC001"}:
            continue
        if rule.family == "weak-tls" or rule.name == "weak-version-option":
            # Not an opt-out of verification: the remedy is a modern protocol or cipher list.
            assert any(w in rule.fix for w in ("TLS 1.2", "TLSv1_2", "default")), rule.code
            continue
        assert any(
            word in rule.fix
            for word in ("sslcustomize trust", "CA", "create_legacy_context", "--cacert", "pin")
        ), rule.code


def _every_place(low: bytes) -> list[tuple[int, int]]:
    """Every (pattern index, place) of every pattern, one ``find`` after another."""
    places = []
    for index, pattern in enumerate(_PATTERNS):
        pos = low.find(pattern)
        while pos >= 0:
            places.append((index, pos))
            pos = low.find(pattern, pos + 1)
    return sorted(places)


# Pieces of the patterns, so that patterns overlap, nest and follow one another: "tlssl",
# "trustedisable_warnings", "insecurerequests.request".
_PIECES = sorted({part for pattern in _PATTERNS for part in (pattern[:2], pattern[2:], pattern)})


@given(st.lists(st.sampled_from([*_PIECES, b" ", b"x", b"\n"]), max_size=30))
@settings(max_examples=400, deadline=None)
def test_prefilter_finds_every_place_of_every_word(parts: list[bytes]) -> None:
    """One leftmost-first pass, plus the places it skips inside its matches, finds them all."""
    low = b"".join(parts)
    places = _places(low)
    assert sorted(places) == _every_place(low)
    assert [pos for _, pos in places] == sorted(pos for _, pos in places)  # word_places needs


def test_prefilter_finds_a_word_that_starts_inside_another() -> None:
    """A word hidden in another's match still counts ("tls" then "session.request")."""
    assert may_contain_findings(b"xtlsession.request(u)\n")
    assert hot_lines(b"a\nxtlsession.request(u)\n") == [False, True, False]


def test_prefilter_skips_unrelated_and_keeps_related() -> None:
    """Files without TLS words are skipped; English words that contain 'ssl' do not count."""
    assert not may_contain_findings(b"x = 1\n# endlessly passline\n")
    assert may_contain_findings(b"import ssl\n")
    assert may_contain_findings(b"s.get(u, verify=False)\n")
    assert may_contain_findings(b'run(["curl", "-k"])\n')
    assert not may_contain_findings(b"# verify that it works\n")


@pytest.mark.parametrize(
    "source",
    [
        b"ctx.verify_mode = CERT_NONE\n",
        b"ctx.VERIFY_MODE = x\n",
        b"aiohttp.get(u, verify_ssl=False)\n",
        b"Elasticsearch(h, verify_certs=False)\n",
        b"ctx.set_verify(VERIFY_NONE, cb)\n",
        b"OPTS = {'verify': False}\n",
        b'env["PYTHONHTTPSVERIFY"] = "0"\n',
        b"client(ssl_verify=False)\n",
        b"s.verify = False\n",
        b"def f(verify: bool = False): ...\n",
        b'setattr(s, "verify", False)\n',
        b'kw.setdefault("verify", False)\n',
        b'kw.setdefault ("verify", False)\n',
        b'get_kwargs()["opts"].setdefault("verify", False)\n',
        b'kw.setdefault(  # (\n\n    "verify_certs", False)\n',
        b'opts.__setattr__(\n    "ssl_verify", 0)\n',
        b'kw.setdefault(\n    "verify_certs",\n    False,\n)\n',
        b'setattr(s, "ssl_verify", 0)\n',
        b'run(["git", "config", "http.sslVerify", "false"])\n',
    ],
)
def test_prefilter_keeps_every_verify_name_that_rules_test(source: bytes) -> None:
    """Each name with 'verify' that a rule looks at (see _tables, _analyzer) passes alone."""
    assert may_contain_findings(source)


@pytest.mark.parametrize(
    "source",
    [
        b"from OpenSSL import SSL\n",
        b"s = smtplib.SMTP_SSL(h)\n",
        b"ftplib.FTP_TLS(h)\n",
        b"server.starttls()\n",
        b"conn.stls(context=ctx)\n",
        b"aiohttp.get(u, ssl=False)\n",
        b"OPTS = {'ssl': False}\n",
        b"kw['ssl'] = 0\n",
        b"ctx = SSLContext(PROTOCOL_TLSv1)\n",
        b"run('curl -fsSLk ' + url)\n",
        b'run(["wget", "--no-check-certificate", url])\n',
        b'warnings.filterwarnings("ignore", message="Unverified HTTPS request")\n',
    ],
)
def test_prefilter_keeps_tls_names(source: bytes) -> None:
    """A name that starts with 'ssl' or 'tls', STARTTLS and insecure download flags pass."""
    assert may_contain_findings(source)


@pytest.mark.parametrize(
    "source",
    [
        b"# built against OpenSSL 3\n",
        b"extensions = ('*.ptls', '*.dassl')\n",
        b"LICENSES = ['OpenSSL', 'ssl', 'tls',\n    'zlib']\n",
        b"BUILTINS = ('ver', 'verify', 'vol')\n",
        b"FUNCTIONS = ['ftp_ssl_connect',\n    'ldap_start_tls', 'openssl_x509_verify')\n",
        b'__all__ = ["create_ssl_context", "TLSFeature"]\n',
        b"PAIRS = [\n    ('ss', 'ss'),\n    ('ssl', 'ssl'),\n]\n",
        b"PHP = ['dio_tcsetattr', 'ftp_ssl_connect', 'locale_setdefault']\n",
        b'APDL = ("LSLN", "/VERIFY", "NOVERIFY", "sigVerify")\n',
        b"try:\n    fetch()\nexcept (ssl.SSLError, SSLZeroReturnError, ssl.CertificateError):\n"
        b"    pass\n",
        b"run(['curl', '-fsSL', url])\n",
        b"run(['wget', '-q', url])\n",
        b"socket.gethostname()\n",
    ],
)
def test_prefilter_skips_tls_words_in_data(source: bytes) -> None:
    """Words inside other words, bare words in data tables, safe downloads: no parse."""
    assert not may_contain_findings(source)


@pytest.mark.parametrize("name", sorted(ENV_VARS))
def test_prefilter_keeps_environment_variable_names_anywhere(name: str) -> None:
    """A variable that turns verification off counts even as a list item, not only as a key."""
    assert may_contain_findings(f'pairs = ["{name}", "0"]\n'.encode())


def test_setdefault_of_verify_is_linted() -> None:
    """``kw.setdefault("verify", False)`` as a file's only rule word: the file is not skipped.

    The pre-filter used to count a bare ``"verify",`` only on a ``setattr`` line, so this file
    was never parsed and its ``verify=False`` never reported.
    """
    source = (
        b"import requests\n\ndef fetch(url):\n    kw = {}\n"
        b'    kw.setdefault("verify", False)\n    return requests.get(url, **kw)\n'
    )
    result = LintResult()
    lint_source(source, "setdefault.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC101", 5)]


def test_prefilter_skips_verify_helpers() -> None:
    """Test suites' own ``verify_*`` helpers are no reason to parse a file."""
    assert not may_contain_findings(b"def verify_structure(x):\n    verify_field_equal(x)\n")
    assert not may_contain_findings(b"self._verify_request(r)\nverify_open(p)\n")


def test_hot_lines() -> None:
    """Lines are hot when they hold a rule word or one of the extra names."""
    assert hot_lines(b"a = 1\nimport ssl\nOPTS\n", (b"opts",)) == [False, True, True, False]


def test_legacy_context_call_is_hot_and_its_import_a_candidate() -> None:
    """``create_legacy_context`` imported by name: the import passes, the call's line is hot."""
    source = (
        b"from sslcustomize import create_legacy_context\n\ndef f():\n    create_legacy_context()\n"
    )
    assert may_contain_findings(source)
    assert hot_lines(source) == [True, False, False, True, False]


def test_skipped_file_is_counted_not_parsed() -> None:
    """A file the pre-filter rejects counts as linted but is not parsed."""
    result = LintResult()
    lint_source(b"def (:\n", "x.py", result)
    assert (result.files, result.parsed, result.errors) == (1, 0, [])


@pytest.mark.parametrize(
    "call",
    [
        "asyncio.open_connection('h', 443, ssl.create_default_context(ssl.Purpose.CLIENT_AUTH))",
        "asyncio.open_connection('h', ssl=ssl.create_default_context(ssl.Purpose.CLIENT_AUTH))",
        "ok = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH) == asyncio.open_connection("
        "'h', 443, ssl.create_default_context(ssl.Purpose.CLIENT_AUTH))",
    ],
)
def test_first_context_made_in_an_argument_is_followed(call: str) -> None:
    """A module's first context, made inside a client call's arguments, is the client's."""
    result = LintResult()
    lint_source(f"import asyncio, ssl\n{call}\n".encode(), "x.py", result)
    assert [f.code for f in result.findings] == ["SSC207"]


@pytest.mark.parametrize(
    ("command", "code"),
    [
        ("curl -fsSLk https://x", "SSC402"),
        ("wget --no-check-certificate x", "SSC403"),
        ("git -c http.sslverify=off pull", "SSC404"),
        ("git config --global http.sslVerify false", "SSC404"),
        ("python -m pip install --trusted-host h pkg", "SSC401"),
        ("echo ok; curl --insecure x", "SSC402"),
    ],
)
def test_command_flags(command: str, code: str) -> None:
    """Disabling flags are found in shell strings."""
    node = ast.Constant(command)
    assert [c for c, _ in scan_command(tokens_of(command, node))] == [code]


@pytest.mark.parametrize(
    "command",
    [
        "curl -fsSL x",
        "tar -xkf a.tar",
        "git -c http.sslVerify=true pull",
        "pip install -k x",
        "echo curl; ls -k",
        "git config http.sslVerify true",
        "curl 'unbalanced",
    ],
)
def test_command_lookalikes(command: str) -> None:
    """Look-alike command lines stay silent."""
    assert list(scan_command(tokens_of(command, ast.Constant(command)))) == []


def _many_modules(directory: Path) -> list[str]:
    """Write 260 modules, enough to fork workers; every third has one finding (87 in all)."""
    for i in range(260):
        body = "import requests\nrequests.get(u, verify=False)\n" if i % 3 == 0 else "x = 1\n"
        (directory / f"m{i:03}.py").write_text(body)
    return sorted(str(p) for p in directory.glob("*.py"))


def test_parallel_matches_serial(tmp_path: Path) -> None:
    """Linting many files in worker processes finds exactly what a single process finds."""
    files = _many_modules(tmp_path)
    serial = lint_files(files, jobs=1)
    parallel = lint_files(files, jobs=2)
    assert parallel.findings == serial.findings
    assert (parallel.files, len(parallel.findings)) == (260, 87)


def test_failed_worker_is_redone_in_the_parent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A worker that dies loses no file: the parent lints them all and finds the same."""
    import os
    import warnings

    from sslcustomize_lint import _runner

    marker = tmp_path / "worker-died"

    def dying_child(queue: int, *_args: object) -> None:
        taken = os.read(queue, 30 * _runner._ITEM.size)  # takes 30 files, lints none
        marker.write_text(str(len(taken) // _runner._ITEM.size))
        os._exit(1)

    (tmp_path / "src").mkdir()
    files = _many_modules(tmp_path / "src")
    serial = lint_files(files, jobs=1)
    monkeypatch.setattr(_runner, "_child", dying_child)
    # Fork whatever threads earlier tests left running (loopback servers): this child only
    # reads the queue and exits, so it cannot inherit a held lock (nor can 3.12's warning say
    # anything that matters here).
    monkeypatch.setattr(_runner, "_can_fork", lambda: True)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "This process .* is multi-threaded", DeprecationWarning)
        parallel = lint_files(files, jobs=2)
    assert marker.read_text() == "30"  # the worker took files, and died
    assert (parallel.files, parallel.findings) == (serial.files, serial.findings)
    assert len(serial.findings) == 87


def test_unreadable_file_is_an_error(tmp_path: Path) -> None:
    """A file that cannot be read is reported as an error, not as clean."""
    result = lint_files([str(tmp_path / "gone.py")], jobs=1)
    assert result.errors
    assert "cannot read" in result.errors[0].message


@pytest.mark.parametrize("size", [0, 1, _READ_SIZE - 1, _READ_SIZE, 3 * _READ_SIZE + 7])
def test_read_returns_whole_files(tmp_path: Path, size: int) -> None:
    """Files are read whole, whether empty, one read long or several."""
    path = tmp_path / "m.py"
    data = bytes(i % 251 for i in range(size))
    path.write_bytes(data)
    assert _read(str(path)) == data


def test_encoding_declaration_is_honoured(tmp_path: Path) -> None:
    """Files in a declared legacy encoding are parsed as Python would."""
    path = tmp_path / "latin.py"
    path.write_bytes(
        b"# -*- coding: latin-1 -*-\nimport requests\n# caf\xe9\nrequests.get(u, verify=False)\n"
    )
    [finding] = lint_files([str(path)], jobs=1).findings
    assert (finding.code, finding.line) == ("SSC101", 4)


BIG_MODULE = b'''import requests

OPTS = {"timeout": 5}


@decorator(
    "spans two lines",
)
def cold(a):
    return a + 1


class Client:
    """A class with one hot method."""

    limit = 3

    @property
    def name(self):
        return "x"

    def fetch(self, url):
        return requests.get(url, verify=False)


def uses_module_dict(url):
    return requests.get(url, **OPTS)
'''


def test_hot_source_blanks_cold_functions_and_keeps_lines() -> None:
    """Cold functions and methods are blanked, line numbers kept, and the rest still parses."""
    from sslcustomize_lint._prefilter import hot_source, module_names

    cut = hot_source(BIG_MODULE, hot_places(BIG_MODULE, module_names(BIG_MODULE)))
    assert cut is not None
    assert cut.count(b"\n") == BIG_MODULE.count(b"\n")
    tree = ast.parse(cut)
    names = {n.name for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    assert names == {"fetch", "uses_module_dict"}  # OPTS heats the function that spreads it
    line = next(i for i, text in enumerate(BIG_MODULE.splitlines()) if b"verify=False" in text)
    assert cut.splitlines()[line] == BIG_MODULE.splitlines()[line]


TABLES_MODULE = b"""import ssl
import subprocess

NAMES = [
    "openssl",
    "ssl",
]
CIPHERS = (
    "ECDHE+AESGCM:"
    "RC4-SHA"
)
FLAGS = [
    "-fsS",
    "-k",
]


class Lexer:
    tokens = {
        "root": [("tls", 1)],
    }

    def get(self, url):
        ctx = ssl.create_default_context()
        ctx.set_ciphers(CIPHERS)
        subprocess.run(["curl", *FLAGS, url])
"""


def test_hot_source_blanks_unused_tables_and_keeps_used_ones() -> None:
    """A table nothing reads goes (``pass`` in a class); one used stays, even without a word."""
    from sslcustomize_lint._prefilter import hot_source, module_names

    cut = hot_source(TABLES_MODULE, hot_places(TABLES_MODULE, module_names(TABLES_MODULE)))
    assert cut is not None
    assert cut.count(b"\n") == TABLES_MODULE.count(b"\n")
    tree = ast.parse(cut)
    assigned = [ast.unparse(t) for n in tree.body if isinstance(n, ast.Assign) for t in n.targets]
    assert assigned == ["CIPHERS", "FLAGS"]
    [lexer] = [n for n in tree.body if isinstance(n, ast.ClassDef)]
    assert [type(n).__name__ for n in lexer.body] == ["Pass", "FunctionDef"]


def test_partial_parse_keeps_tables_that_rules_read(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cipher string and curl flags kept in tables are found through the cut source."""
    from sslcustomize_lint import _runner

    monkeypatch.setattr(_runner, "PARTIAL_MIN_BYTES", 0)
    result = LintResult()
    lint_source(TABLES_MODULE, "tables.py", result)
    assert sorted(f.code for f in result.findings) == ["SSC402", "SSC704"]


def test_module_names_include_imported_tls_names() -> None:
    """Imported TLS names heat their users, as the analyzer's module scope has them."""
    from sslcustomize_lint._prefilter import module_names

    source = (
        b"import os\nfrom sslcustomize import create_legacy_context as legacy\n"
        b"from typing import Any, Optional\ntry:\n    from ssl import (\n"
        b"        CERT_NONE,  # old\n        SSLContext as Ctx,\n    )\nexcept ImportError:\n"
        b"    pass\nimport OpenSSL.SSL as ossl\nimport json as js\n"
    )
    assert module_names(source) == (b"legacy", b"cert_none", b"ctx", b"ossl")


@pytest.mark.parametrize("padding", [0, 400], ids=["parsed whole", "cut"])
@pytest.mark.parametrize("alias", ["u", "mk", "make"])
def test_short_alias_of_a_tls_factory_does_not_hide_its_call(alias: str, padding: int) -> None:
    """``from ssl import _create_unverified_context as u``: ``u()`` is found in any file."""
    source = (
        f"from ssl import _create_unverified_context as {alias}\nimport urllib.request\n\n\n"
        f"def fetch(url):\n    return urllib.request.urlopen(url, context={alias}())\n"
        + "# pad\n"
        * padding
    ).encode()
    result = LintResult()
    lint_source(source, "fetch.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC203", 6)]


def test_hot_lines_match_short_names_whole() -> None:
    """A one- or two-letter name heats the lines that use it, not every word holding it."""
    source = b"from x import y as u\nvalue = run(u())\nobj.u = 1\nuser = 2\n"
    assert hot_lines(source, (b"u", b"value")) == [True, True, False, False, False]


def test_star_import_of_ssl_resolves_its_names() -> None:
    """After ``from ssl import *``, ``CERT_NONE`` and ``create_default_context`` are ssl's."""
    source = (
        b"from ssl import *\n\n\ndef client():\n    ctx = create_default_context()\n"
        b"    ctx.verify_mode = CERT_NONE\n    ctx.minimum_version = TLSVersion.TLSv1_2\n"
        b"    return ctx\n"
    )
    result = LintResult()
    lint_source(source, "star.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC201", 6)]


def test_hot_lines_narrow_words_like_the_prefilter() -> None:
    """Rows of data tables and words inside words do not heat a line; a module name does."""
    source = b"'ssl',\nOpenSSL\nctx = ssl.create_default_context()\nverify = VERIFY\n"
    assert hot_lines(source, (b"verify",)) == [False, False, True, True, False]


def test_partial_parse_finds_what_a_whole_parse_finds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Linting a big file through the cut source gives the same findings as a whole parse."""
    from sslcustomize_lint import _runner

    source = BIG_MODULE * 40  # big enough to be cut
    whole, cut = LintResult(), LintResult()
    monkeypatch.setattr(_runner, "PARTIAL_MIN_BYTES", 10**9)
    lint_source(source, "big.py", whole)
    monkeypatch.setattr(_runner, "PARTIAL_MIN_BYTES", 0)
    lint_source(source, "big.py", cut)
    assert whole.findings
    assert cut.findings == whole.findings


# A function that passes its parameter on to ``verify=``, and callers with no rule word of
# their own: cold functions, which the cut leaves out of the first parse.
FOLLOWED_MODULE = (
    b"import requests\n\n"
    b"def fetch(url, check):\n    return requests.get(url, verify=check)\n\n"
    b"def main():\n    fetch('https://a', False)\n\n"
    b"class Job:\n    def run(self):\n        return self.go(True)\n\n"
    b"    def go(self, check):\n        return fetch('https://b', check)\n\n"
    b"def later():\n    return fetch('https://c', 0)\n"
)


@pytest.mark.parametrize("cold_tail", [b"", b"def py2():\n    print 'old'\n"])
def test_cut_file_checks_callers_in_cold_functions(cold_tail: bytes) -> None:
    """Callers that the cut left out are parsed for ``check_callers``, even beside broken code.

    With a cold function that is not Python 3, the wider cut still parses (the broken function
    stays cut) and the callers are checked.
    """
    source = FOLLOWED_MODULE + b"# pad\n" * 600 + cold_tail
    result = LintResult()
    lint_source(source, "followed.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC101", 7), ("SSC101", 17)]
    assert result.errors == []


def test_partial_parse_falls_back_to_whole_parse() -> None:
    """When the cut source does not parse (a column-0 string), the whole file is parsed."""
    source = (
        b"import requests\n\nclass T:\n    def cold(self):\n        return '''\nx = 1\n"
        b"'''\n\n    def hot(self):\n        requests.get(u, verify=False)\n" + b"# pad\n" * 600
    )
    result = LintResult()
    lint_source(source, "t.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC101", 10)]
    assert result.errors == []


def test_binary_file_is_an_error_without_a_search(tmp_path: Path) -> None:
    """A file with NUL bytes (a compiled extension) is reported as not Python source."""
    path = tmp_path / "_speedups.cpython-312-x86_64-linux-gnu.so"
    path.write_bytes(b"\x7fELF\x00\x00import ssl; verify=False\n")
    result = lint_files([str(path)], jobs=1)
    assert (result.files, result.findings) == (1, [])
    assert [e.message for e in result.errors] == ["cannot parse: not Python source"]


def test_prefilter_checks_each_place_of_a_common_word() -> None:
    """A narrower form counts wherever the word is, not only at its first place."""
    assert may_contain_findings(b"# endlessly\nimport ssl\n")
    assert may_contain_findings(b"verify(x)\nverify(y)\nrequests.get(u, verify=False)\n")
    assert not may_contain_findings(b"verify(x)\nverify(y)\n# classless atlsa endlessly\n")


def test_hot_source_ignores_a_comment_above_the_next_def() -> None:
    """A hot comment between two methods heats neither; a hot last line without newline counts."""
    from sslcustomize_lint._prefilter import hot_source

    source = (
        b"class A:\n    def cold(self):\n        return 1\n\n"
        b"    # when the peer sends TLS\n    def other(self):\n        return 2\n\n\n"
        b"def last():\n    return requests.get(u, verify=False)"
    )
    cut = hot_source(source, hot_places(source))
    assert cut is not None
    assert cut.count(b"\n") == source.count(b"\n")
    assert {n.name for n in ast.walk(ast.parse(cut)) if isinstance(n, ast.FunctionDef)} == {"last"}


# The sibling-constant pattern as it was written first (``^`` with re.MULTILINE): the faster
# one must find exactly the same assignments.
_MULTILINE_ASSIGNMENT = re.compile(
    rb"^([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*"
    rb"(False|True|None|0|''|\"\"|(?:ssl\.)?CERT_NONE|['\"](?:CERT_NONE|none|NONE)['\"])"
    rb"[ \t]*(?:#.*)?$",
    re.MULTILINE,
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                b"X",
                b"_v1",
                b" ",
                b"\t",
                b"\n",
                b"\r\n",
                b"=",
                b":",
                b" int ",
                b"False",
                b"True",
                b"None",
                b"0",
                b"''",
                b'""',
                b"ssl.",
                b"CERT_NONE",
                b"'none'",
                b'"NONE"',
                b"# c",
                b"#",
                b"x = 1",
            ]
        ),
        max_size=40,
    )
)
def test_sibling_constants_pattern_matches_the_multiline_one(parts: list[bytes]) -> None:
    """Reading assignments from the newline before them finds what ``^`` in MULTILINE found."""
    data = b"".join(parts)
    expected = [m.groups() for m in _MULTILINE_ASSIGNMENT.finditer(data)]
    assert [m.groups() for m in _ASSIGNMENT.finditer(b"\n" + data)] == expected


def test_sibling_constants_take_the_last_assignment_of_each_whole_name(tmp_path: Path) -> None:
    """A name is read where it starts a line and is the whole name; the last assignment wins."""
    from sslcustomize_lint._siblings import sibling_constants

    module = tmp_path / "settings.py"
    module.write_bytes(
        b"VERIFY = True\nVERIFY_X = False\nOTHER = 1\n  VERIFY = None\nVERIFY = False\n"
        b"MODE: str = 'CERT_NONE'  # note\n"
    )
    found = sibling_constants(str(module), ("VERIFY", "VERIFY_X", "MODE", "MISSING", "OTHER"))
    assert found == {"VERIFY": "False", "VERIFY_X": "False", "MODE": "'CERT_NONE'"}


def test_discover_walks_like_os_walk(tmp_path: Path) -> None:
    """Files in os.walk's order; links to directories and excluded names are not entered."""
    import os

    from sslcustomize_lint._files import discover

    for name in (
        "b/z.py",
        "b/a.pyi",
        "a/deep/m.py",
        "a/n.py",
        "top.py",
        "notes.txt",
        ".hidden/h.py",
        "node_modules/x.py",
        "a/__pycache__/c.py",
    ):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text("x = 1\n")
    (tmp_path / "link").symlink_to(tmp_path / "a", target_is_directory=True)
    (tmp_path / "dangling.py").symlink_to(tmp_path / "nowhere.py")
    expected = []
    for top, dirs, files in os.walk(tmp_path):
        dirs[:] = sorted(d for d in dirs if d not in {".hidden", "node_modules", "__pycache__"})
        expected += [os.path.join(top, f) for f in sorted(files) if f.endswith((".py", ".pyi"))]
    found, missing = discover([str(tmp_path)])
    assert found == expected
    assert missing == []
    assert str(tmp_path / "dangling.py") in found  # named like a source file: reported if unread
    assert not any("/link/" in path for path in found)


def test_callers_spread_over_lines_are_found() -> None:
    """A caller whose name and argument sit on different lines is still checked."""
    source = (
        b"import requests\n\ndef fetch(url, check):\n    return requests.get(url, verify=check)\n\n"
        b"class Job:\n    def run(self):\n        return (self\n            .fetch)(\n"
        b"            'https://a',\n            False,\n        )\n\n"
        b"    fetch = staticmethod(fetch)\n"
    )
    result = LintResult()
    lint_source(source + b"# pad\n" * 600, "spread.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC101", 11)]


def test_exception_names_heat_nothing() -> None:
    """Catching or raising an SSL exception is no reason to analyze a function."""
    from sslcustomize_lint._prefilter import is_tls_name

    source = b"import ssl\ndef f():\n    raise ssl.SSLError()\ndef g(BaseSSLError):\n    pass\n"
    assert hot_lines(source, (b"basesslerror",))[:3] == [True, False, False]
    assert not is_tls_name(b"urllib3.util.ssl_.BaseSSLError")
    assert is_tls_name(b"urllib3.util.ssl_.create_urllib3_context")
    assert is_tls_name(b"ssl._create_unverified_context")


@pytest.mark.parametrize(
    ("source", "name"),
    [
        (b"from requests import request as r\nimport ssl\n", b"r"),
        (b"from x.session import send as s\nimport ssl\n", b"s"),
        (b"import ssl\nfrom mylib import (\n    other,\n    ssl_helper as h,\n)\n", b"h"),
        (b"from ssl import (\n    _create_unverified_context as u,\n)\n", b"u"),
    ],
)
def test_imported_names_looked_at_only_where_they_can_be(source: bytes, name: bytes) -> None:
    """Import statements without a word are passed over, but not those with a word in
    parentheses on a later line, nor those whose module and name make a word across the dot."""
    from sslcustomize_lint._prefilter import module_names, word_places

    words = word_places(source)
    assert name in module_names(source, words)
    assert module_names(source, words) == module_names(source)


def test_keep_holds_what_parsed_files_made_up_to_a_budget(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``keep`` gets one analyzer per parsed file, until the parsed bytes pass the budget."""
    from sslcustomize_lint import _runner

    source = "import requests\nrequests.get('https://x', verify=False)\n"
    paths = []
    for i in range(5):
        (tmp_path / f"m{i}.py").write_text(source)
        paths.append(str(tmp_path / f"m{i}.py"))
    (tmp_path / "plain.py").write_text("x = 1\n")  # not parsed: nothing to keep
    paths.append(str(tmp_path / "plain.py"))
    monkeypatch.setattr(_runner, "_HOARD_BYTES", 3 * len(source))
    kept: list[object] = []
    result = lint_files(paths, jobs=1, keep=kept)
    assert len(result.findings) == 5
    assert len(kept) == 3
    assert all(hasattr(thing, "tree") for thing in kept)


@pytest.mark.parametrize("padding", [0, 600], ids=["parsed whole", "cut"])
def test_ssl_imported_by_name_is_linted(padding: int) -> None:
    """``__import__("ssl")`` and ``importlib.import_module("ssl")``, however spread out, as
    a file's only mention of ssl: the file is linted and the module's uses resolved."""
    source = (
        b'm = __import__(\n    "ssl"  # by name\n)\n\n'
        b"def fetch(url):\n    return m._create_unverified_context()\n\n"
        b"def other():\n    import importlib\n"
        b"    n = importlib.import_module(\n        'ssl',\n    )\n"
        b"    return n._create_unverified_context()\n"
        b"\n" + b"# pad\n" * padding
    )
    assert may_contain_findings(source)
    result = LintResult()
    lint_source(source, "dynamic.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC203", 6), ("SSC203", 13)]


_HELD_OUT_4_TO_6 = [
    # a callback that ends in if/else, every branch returning a true constant, accepts all
    (
        "from OpenSSL import SSL\n"
        "def cb(c, x, e, d, ok):\n    if ok:\n        return True\n    else:\n        return 1\n"
        "SSL.Context(SSL.TLS_METHOD).set_verify(SSL.VERIFY_PEER, cb)\n",
        {("SSC208", 7)},
    ),
    # one that can fall through (no else: ``None``) does not
    (
        "from OpenSSL import SSL\n"
        "def cb(c, x, e, d, ok):\n    if ok:\n        return True\n"
        "SSL.Context(SSL.TLS_METHOD).set_verify(SSL.VERIFY_PEER, cb)\n",
        set(),
    ),
    # a session's verify from a parameter whose default is off: at the default
    (
        "import requests\n"
        "def make(verify_ssl=False):\n    s = requests.Session()\n    s.verify = verify_ssl\n",
        {("SSC102", 2)},
    ),
    # the same with a verifying default: its callers are checked instead
    (
        "import requests\n"
        "def make(verify_ssl=True):\n    s = requests.Session()\n    s.verify = verify_ssl\n"
        "make(True)\nmake(False)\n",
        {("SSC102", 6)},
    ),
    # a patched constructor: ``TCPConnector.__init__(self, **kwargs)`` with ``ssl`` off
    (
        "import aiohttp\norig = aiohttp.TCPConnector.__init__\n"
        "def init(self, *a, **kw):\n    kw['ssl'] = False\n    return orig(self, *a, **kw)\n",
        {("SSC103", 4)},
    ),
    # and a subclass calling its base's ``__init__`` with the default left alone is silent
    (
        "import aiohttp\nclass C(aiohttp.TCPConnector):\n"
        "    def __init__(self, *a, **kw):\n        kw.setdefault('limit', 10)\n"
        "        super().__init__(*a, **kw)\n",
        set(),
    ),
    # websocket-client's ``sslopt`` asking for TLS 1.0
    (
        "import ssl, websocket\nwebsocket.create_connection('wss://h',\n"
        "    sslopt={'ssl_version': ssl.PROTOCOL_TLSv1})\n",
        {("SSC701", 3)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_4_TO_6)
def test_shapes_found_by_held_out_families(source: str, expected: set[tuple[str, int]]) -> None:
    """The shapes the fourth to sixth held-out families found missing are reported, once."""
    assert findings_of(source) == expected


def test_weak_protocol_given_by_position_to_get_server_certificate() -> None:
    """``ssl.get_server_certificate(addr, ssl.PROTOCOL_TLSv1_1)`` asks for TLS 1.1 by position."""
    result = LintResult()
    source = "import ssl\nssl.get_server_certificate(('h', 443), ssl.PROTOCOL_TLSv1_1)\n"
    lint_source(source.encode(), "x.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC701", 2)]


def test_weak_protocol_as_a_lambda_default() -> None:
    """A lambda's weak protocol default is reported once, at the default; a modern one is not."""
    result = LintResult()
    source = (
        "import ssl\nf = lambda s, v=ssl.PROTOCOL_TLSv1_1: (s, v)\n"
        "g = lambda s, *, v=ssl.PROTOCOL_TLS_CLIENT: (s, v)\n"
    )
    lint_source(source.encode(), "x.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC701", 2)]


def test_label_followed_by_another_comment_is_read(tmp_path: Path) -> None:
    """``# expect: SSC701  # noqa: E731`` labels its line (a trailing comment hid it once)."""
    (tmp_path / "family.py").write_text(
        "f = lambda v=1: v  # expect: SSC701  # noqa: E731\ng = 1  # expect: none  # note\n",
        encoding="utf-8",
    )
    labels = load_labels(tmp_path)
    assert list(labels.values()) == [{1: frozenset({"SSC701"}), 2: frozenset()}]


def test_module_tables_heat_their_readers_only_when_they_can_carry_a_weakening() -> None:
    """A module table without a rule word heats nothing; one holding or filled with one does."""
    source = b"""import requests

PORTS = {"http": 80, "https": 443}
OPTS = {
    "timeout": 3,
    "verify": False,
}
EXTRA = {}
EXTRA["verify"] = False
getter = partial(requests.get, timeout=3)
"""
    names = module_names(source, word_places(source))
    assert b"opts" in names
    assert b"extra" in names
    assert b"ports" not in names
    assert b"getter" not in names
    assert b"ports" in module_names(source)  # without the file's words: every table counts


_HELD_OUT_9_TO_11 = [
    # a verb looked up at run time, called without verification; and with it
    (
        "import requests\ndef f(url, verb):\n    send = getattr(requests, verb)\n"
        "    send(url, verify=False)\n    getattr(requests, verb)(url)\n",
        {("SSC101", 4)},
    ),
    # a class's ``__init__`` parameter kept as ``self.verify``, constructed with it off
    (
        "import requests\nclass P:\n    def __init__(self, verify=True):\n"
        "        self.verify = verify\n    def get(self, url):\n"
        "        return requests.get(url, verify=self.verify)\n"
        "P()\nP(verify=True)\nP(False)\n",
        {("SSC101", 9)},
    ),
    # and defaulting to off: reported at the default, as a function's parameter is
    (
        "import requests\nclass P:\n    def __init__(self, verify=False):\n"
        "        self.verify = verify\n    def get(self, url):\n"
        "        return requests.get(url, verify=self.verify)\n",
        {("SSC101", 3)},
    ),
    # a weak method as a class attribute named as the keyword; a constant is left to its use
    (
        "from OpenSSL import SSL\nclass F:\n    method = SSL.TLSv1_1_METHOD\n"
        "    def ctx(self):\n        return SSL.Context(self.method)\n"
        "class G:\n    method = SSL.TLS_METHOD\n",
        {("SSC701", 3)},
    ),
    # ``@SECLEVEL=0`` after a cipher list; level 1 is not weak
    (
        "import ssl\nc = ssl.create_default_context()\nc.set_ciphers('DEFAULT@SECLEVEL=0')\n"
        "c.set_ciphers('DEFAULT@SECLEVEL=1')\n",
        {("SSC704", 3)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_9_TO_11)
def test_shapes_found_by_held_out_families_9_to_11(
    source: str, expected: set[tuple[str, int]]
) -> None:
    """The shapes the ninth to eleventh held-out families found missing are reported, once."""
    assert findings_of(source) == expected


_HELD_OUT_14_TO_15 = [
    (  # ansible's open_url and an argument spec defaulting validate_certs to false
        "from ansible.module_utils.urls import open_url\n"
        "open_url('https://h', validate_certs=False)\n"
        "spec = dict(validate_certs=dict(type='bool', default=False))\n"
        "safe = dict(validate_certs=dict(type='bool', default=True))\n",
        {("SSC514", 2), ("SSC514", 3)},
    ),
    (  # a cipher string set on a context of unknown origin
        "def legacy(context):\n    context.set_ciphers('DEFAULT:RC4-SHA')\n",
        {("SSC704", 2)},
    ),
    (  # ldap3's Tls takes its protocol as version=
        "import ssl, ldap3\nldap3.Tls(validate=ssl.CERT_REQUIRED, version=ssl.PROTOCOL_TLSv1)\n"
        "ldap3.Tls(validate=ssl.CERT_REQUIRED, version=ssl.PROTOCOL_TLSv1_2)\n",
        {("SSC701", 2)},
    ),
    (  # a weak protocol default reaching SSLContext: reported at the default and the context
        "import ssl\ndef wrap(sock, version=ssl.PROTOCOL_TLSv1):\n"
        "    return ssl.SSLContext(version).wrap_socket(sock)\n",
        {("SSC701", 2), ("SSC204", 3)},
    ),
    (  # getattr with a parameter's string default
        "import ssl\ndef floor(name='TLSv1'):\n    ctx = ssl.create_default_context()\n"
        "    ctx.minimum_version = getattr(ssl.TLSVersion, name)\n",
        {("SSC702", 4)},
    ),
    (  # a branch on an Ansible module's option is its user's opt-out
        "import ssl\ndef context(module):\n    if not module.params['validate_certs']:\n"
        "        return ssl._create_unverified_context()\n"
        "    return ssl.create_default_context()\n",
        set(),
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_14_TO_15)
def test_shapes_found_by_held_out_families_14_to_15(
    source: str, expected: set[tuple[str, int]]
) -> None:
    """The shapes the fourteenth and fifteenth held-out families found missing are reported."""
    assert findings_of(source) == expected


_HELD_OUT_17_TO_21 = [
    (  # check_hostname = True alone repairs an unverified context (it sets CERT_REQUIRED too)
        "import ssl, urllib.request\nctx = ssl._create_unverified_context()\n"
        "ctx.check_hostname = True\nurllib.request.urlopen('https://h', context=ctx)\n",
        set(),
    ),
    (  # CERT_REQUIRED alone verifies the chain, not the name: SSC206, not SSC203
        "import ssl, urllib.request\nctx = ssl._create_unverified_context()\n"
        "ctx.verify_mode = ssl.CERT_REQUIRED\nurllib.request.urlopen('https://h', context=ctx)\n",
        {("SSC206", 2)},
    ),
    (  # a spread dict's entry that is not a literal is reported where it is written
        "import ssl, urllib3\nOPTIONS = {\n    'timeout': 3,\n"
        "    'ssl_version': ssl.PROTOCOL_TLSv1,\n}\n"
        "urllib3.HTTPSConnectionPool('h', 443, **OPTIONS)\n",
        {("SSC701", 4)},
    ),
    (  # the length of an empty list that the module only measures
        "import requests\nBUNDLES = []\nrequests.get('https://h', verify=len(BUNDLES) > 0)\n"
        "requests.get('https://h', verify=bool(BUNDLES))\n",
        {("SSC101", 3), ("SSC101", 4)},
    ),
    (  # a list filled anywhere in the module, in whatever order, is not known to be empty
        "import requests\nBUNDLES = []\ndef load():\n    BUNDLES.append('/etc/ssl/ca.pem')\n"
        "def fetch():\n    return requests.get('https://h', verify=len(BUNDLES) > 0)\n",
        set(),
    ),
    (  # bool() of an unset environment variable is false; the variable alone is None
        "import os, requests\nrequests.get('https://h', verify=bool(os.environ.get('CA')))\n"
        "requests.get('https://h', verify=os.environ.get('CA'))\n",
        {("SSC101", 2)},
    ),
    (  # entries added by |=, by |, by __setitem__, and a key built from literals
        "import requests\nopts = {}\nopts |= {'verify': False}\nrequests.get('https://h', **opts)\n"
        "more = {'timeout': 3} | {'verify': 0}\nrequests.get('https://h', **more)\n"
        "kw = {}\nkw.__setitem__('verify', False)\nrequests.get('https://h', **kw)\n"
        "requests.get('https://h', **{'ver' + 'ify': False})\n",
        {("SSC101", 3), ("SSC101", 5), ("SSC101", 8), ("SSC101", 10)},
    ),
    (  # an augmented assignment of another kind forgets the value
        "import requests\nflag = 0\nflag += 1\nrequests.get('https://h', verify=flag)\n",
        set(),
    ),
    (  # a namespace's attributes are the keywords it was made with
        "import types, requests\nopts = types.SimpleNamespace(verify=False)\n"
        "requests.get('https://h', verify=opts.verify)\n",
        {("SSC101", 3)},
    ),
    (  # HTTPAdapter().send(request, stream, timeout, verify)
        "import requests\nfrom requests.adapters import HTTPAdapter\nadapter = HTTPAdapter()\n"
        "adapter.send(r, False, None, False)\nadapter.send(r, False, None, True)\n",
        {("SSC101", 4)},
    ),
    (  # duo_client's ca_certs="DISABLE"
        "import duo_client\nduo_client.Auth(ikey='i', skey='s', host='h', ca_certs='DISABLE')\n"
        "duo_client.Admin('i', 's', 'h', 'DISABLE')\n"
        "duo_client.Auth(ikey='i', skey='s', host='h')\n",
        {("SSC515", 2), ("SSC515", 3)},
    ),
    (  # a requests.Session subclass that sets its own verify
        "import requests\nclass Internal(requests.Session):\n    def __init__(self, ca):\n"
        "        super().__init__()\n        self.verify = False\n\n"
        "class Checked(requests.Session):\n    def __init__(self, ca):\n"
        "        super().__init__()\n        self.verify = ca\n",
        {("SSC102", 5)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_17_TO_21)
def test_shapes_found_by_held_out_families_17_to_21(
    source: str, expected: set[tuple[str, int]]
) -> None:
    """The shapes the seventeenth to twenty-first held-out families found wrong are fixed."""
    assert findings_of(source) == expected


_HELD_OUT_22_TO_25 = [
    (  # kafka-python's and redis-py's ssl_check_hostname=False, also as a dict entry
        "from kafka import KafkaProducer\nimport redis\n"
        "KafkaProducer(bootstrap_servers='b:9093', ssl_check_hostname=False)\n"
        "redis.Redis(host='h', ssl=True, ssl_check_hostname=True)\n"
        "OPTS = {'ssl_check_hostname': False}\n",
        {("SSC202", 3), ("SSC202", 5)},
    ),
    (  # asyncpg's modes that encrypt without verifying; verify-full and a context verify
        "import asyncpg, ssl\nasync def f(dsn):\n"
        "    await asyncpg.connect(dsn, ssl='require')\n"
        "    await asyncpg.create_pool(dsn, ssl='prefer')\n"
        "    await asyncpg.create_pool(dsn, ssl='verify-full')\n"
        "    await asyncpg.connect(dsn, ssl=ssl.create_default_context())\n",
        {("SSC507", 3), ("SSC507", 4)},
    ),
    (  # a URL that turns verification off, and an f-string URI reported where it is written
        "import redis, pymongo\nredis.from_url('rediss://h:6380/0?ssl_cert_reqs=none')\n"
        "redis.from_url('rediss://h:6380/0?ssl_cert_reqs=required')\n"
        "def f(host):\n    uri = f'mongodb://{host}/?tls=true&tlsInsecure=true'\n"
        "    return pymongo.MongoClient(uri)\n",
        {("SSC507", 2), ("SSC503", 5)},
    ),
    (  # a dict entry named by a distinctive keyword, whatever the dict is for
        "import ssl\nconf = {}\nconf['broker_use_ssl'] = {'ssl_cert_reqs': ssl.CERT_NONE}\n"
        "conf['backend'] = {'ssl_cert_reqs': ssl.CERT_REQUIRED, 'verify_certs': True}\n",
        {("SSC507", 3)},
    ),
    (  # pika < 1.0: ssl_options are wrap_socket's keywords
        "import pika, ssl\nopts = {\n    'ca_certs': 'ca.pem',\n"
        "    'cert_reqs': ssl.CERT_NONE,\n}\n"
        "pika.ConnectionParameters(host='h', ssl=True, ssl_options=opts)\n"
        "pika.ConnectionParameters(host='h', ssl_options={'cert_reqs': ssl.CERT_REQUIRED})\n",
        {("SSC104", 4)},
    ),
    (  # clients that take verify= as requests does (by keyword, by **, hvac by position)
        "import docker, hvac\nfrom clickhouse_driver import Client\n"
        "docker.tls.TLSConfig(verify=False)\nhvac.Client('https://v', 't', None, False)\n"
        "params = {'secure': True, 'verify': False}\nClient('h', **params)\n"
        "hvac.Client('https://v', 't', verify='/etc/ca.pem')\n",
        {("SSC101", 3), ("SSC101", 4), ("SSC101", 5)},
    ),
    (  # MinIO's cert_check=False, InfluxDB's verify_ssl=False (1.x by position)
        "from minio import Minio\nfrom influxdb import InfluxDBClient as V1\n"
        "from influxdb_client import InfluxDBClient\n"
        "Minio('h:9000', secure=True, cert_check=False)\n"
        "InfluxDBClient(url='https://i', token='t', verify_ssl=False)\n"
        "V1('h', 8086, 'u', 'p', 'db', True, False)\n"
        "InfluxDBClient(url='https://i', token='t', verify_ssl=True)\n",
        {("SSC101", 4), ("SSC511", 5), ("SSC511", 6)},
    ),
    (  # Twisted: ClientContextFactory, CertificateOptions(verify=False) without a key only
        "from twisted.internet import ssl\nssl.ClientContextFactory()\n"
        "ssl.CertificateOptions(verify=False)\n"
        "ssl.CertificateOptions(privateKey=k, certificate=c, verify=False)\n"
        "ssl.optionsForClientTLS('h')\n",
        {("SSC209", 2), ("SSC209", 3)},
    ),
    (  # Twisted's version floor, TLSVersion by number, options cleared with an OR
        "import ssl\nfrom twisted.internet.ssl import CertificateOptions, TLSVersion\n"
        "CertificateOptions(k, c, insecurelyLowerMinimumTo=TLSVersion.TLSv1_0)\n"
        "ctx = ssl.create_default_context()\nctx.minimum_version = ssl.TLSVersion(0x0301)\n"
        "ctx.minimum_version = ssl.TLSVersion(0x0303)\n"
        "ctx.options = ctx.options & ~(ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1)\n"
        "ctx.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1\n",
        {("SSC702", 3), ("SSC702", 5), ("SSC703", 7)},
    ),
    (  # a cipher keyword in a function with no other word of a rule
        "import ssl, urllib3\ndef pool():\n    return urllib3.PoolManager(ciphers='RC4-SHA')\n",
        {("SSC704", 3)},
    ),
    (  # a conditional on parameters takes the branch of their defaults; the other is opt-out
        "import requests\ndef a(url, debug=False):\n"
        "    return requests.get(url, verify=False if not debug else True)\n"
        "def b(url, insecure=False):\n"
        "    return requests.get(url, verify=False if insecure else True)\n"
        "import ssl\ndef c(url, mode=None):\n    if url:\n        mode = ssl.CERT_NONE\n"
        "    return requests.get(url, verify=False if mode == ssl.CERT_NONE else True)\n",
        {("SSC101", 3)},
    ),
    (  # a command-line option read back: what the code does when the user passes nothing
        "import argparse, requests\ndef main():\n    p = argparse.ArgumentParser()\n"
        "    p.add_argument('--verify', action='store_true')\n"
        "    p.add_argument('--insecure', action='store_true')\n"
        "    p.add_argument('-c', '--check-tls', dest='tls', default=0)\n"
        "    p.add_argument('--ca', default='/etc/ca.pem')\n"
        "    a = p.parse_args()\n"
        "    requests.get('https://h', verify=a.verify)\n"
        "    requests.get('https://h', verify=not a.insecure)\n"
        "    requests.get('https://h', verify=a.tls)\n"
        "    requests.get('https://h', verify=a.ca)\n",
        # ``--insecure`` turned around is the user's opt-out: a note (SSC801), not an error.
        {("SSC101", 9), ("SSC801", 10), ("SSC101", 11)},
    ),
    (  # the module's verbs patched process-wide; a patch that keeps verification is silent
        "import functools, requests\n"
        "requests.get = functools.partial(requests.get, verify=False)\n"
        "requests.post = functools.partial(requests.post, timeout=30)\n",
        {("SSC101", 2), ("SSC302", 2)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_22_TO_25)
def test_shapes_found_by_held_out_families_22_to_25(
    source: str, expected: set[tuple[str, int]]
) -> None:
    """The shapes the twenty-second to twenty-fifth held-out families found missing are fixed."""
    assert findings_of(source) == expected


def test_every_url_flag_holds_a_word_that_opens_the_url_search() -> None:
    """A verification-off URL flag holds a word the per-call URL search is gated on."""
    from sslcustomize_lint._core import _URL_FLAG_WORDS
    from sslcustomize_lint._tables import MONGO_URI_FLAGS, URL_CERT_NONE_FLAGS

    for flag in (*URL_CERT_NONE_FLAGS, *MONGO_URI_FLAGS):
        assert any(word.decode() in flag for word in _URL_FLAG_WORDS), flag
    found = LintResult()
    source = (
        b'import redis\nbroker = "rediss://cache/0?ssl_cert_reqs=none"\nredis.from_url(broker)\n'
    )
    lint_source(source, "t.py", found)
    assert [(f.line, f.code) for f in found.findings] == [(2, "SSC507")]  # where it is written


# Shapes the public rule suites' own test files showed missed or wrongly reported (issue 24):
# semgrep-rules, bandit's examples, sonar-python's resources, CodeQL's query tests.
_RULE_SUITE_FILES = [
    (  # pyOpenSSL imported by its distribution's name, in a call, a keyword and a default
        "from pyOpenSSL import SSL\nSSL.Context(SSL.TLSv1_METHOD)\n"
        "helper(method=SSL.SSLv3_METHOD)\ndef f(m=SSL.TLSv1_1_METHOD):\n    pass\n"
        "SSL.Context(SSL.SSLv23_METHOD)\n",
        {("SSC701", 2), ("SSC701", 3), ("SSC701", 4)},
    ),
    (  # an optional import whose fallback is None keeps its module where it is used
        "try:\n    import ssl\nexcept ImportError:\n    ssl = None\n"
        "if ssl is not None:\n    CTX = ssl.SSLContext(ssl.PROTOCOL_SSLv2)\n",
        {("SSC204", 6), ("SSC701", 6)},
    ),
    (  # version bounds spelled without ``TLSVersion``
        "import ssl\ndef f():\n    c = ssl.create_default_context()\n"
        "    c.minimum_version = ssl.TLSv1_1\n    c.maximum_version = ssl.TLSv1\n"
        "    d = ssl.create_default_context()\n    d.minimum_version = ssl.TLSv1_2\n",
        {("SSC702", 4), ("SSC702", 5)},
    ),
    (  # an empty range is false; a range with bounds too large to count is still known
        "import requests\nrequests.get('https://h', verify=range(0))\n"
        "requests.get('https://h', verify=range(5, 5, -1))\n"
        "requests.get('https://h', verify=range(9223372036854775808))\n"
        "requests.get('https://h', verify=range(0, 9, 0))\n",
        {("SSC101", 2), ("SSC101", 3)},
    ),
    (  # a bare context made in a call's argument is a client's; a server call's is not
        "import ssl\ndef f():\n    foo(ssl.SSLContext(ssl.PROTOCOL_TLSv1_2))\n"
        "    foo(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))\n"
        "    start_server(ssl.SSLContext(ssl.PROTOCOL_TLS))\n",
        {("SSC204", 3)},
    ),
    (  # a pyOpenSSL connection of a context with no key: a client's; a server method's: not
        "from OpenSSL import SSL\ndef f(sock):\n    SSL.Connection(SSL.Context(SSL.TLS_METHOD))\n"
        "    c = SSL.Context(SSL.TLS_METHOD)\n    SSL.Connection(c, sock)\n"
        "    s = SSL.Context(SSL.TLS_METHOD)\n    s.use_privatekey_file('k')\n"
        "    SSL.Connection(s, sock)\n    foo(SSL.Context(SSL.TLS_SERVER_METHOD))\n",
        {("SSC209", 3), ("SSC209", 4)},
    ),
    (  # a context made and thrown away is nobody's; its protocol is still checked
        "import ssl\nssl._create_unverified_context()\nssl.SSLContext()\n"
        "ssl.SSLContext(ssl.PROTOCOL_TLSv1)\nuse(ssl._create_unverified_context())\n",
        {("SSC701", 4), ("SSC203", 5)},
    ),
    (  # an AWS CDK endpoint's TLS policy below TLS 1.2, written as a member or a string
        "from aws_cdk import aws_apigateway as gw, aws_opensearchservice as os_\n"
        "gw.DomainName(s, 'a', security_policy=gw.SecurityPolicy.TLS_1_0)\n"
        "gw.CfnDomainName(s, 'b', security_policy='TLS_1_0')\n"
        "os_.Domain(s, 'c', tls_security_policy=os_.TLSSecurityPolicy.TLS_1_0)\n"
        "o = {'tls_security_policy': 'Policy-Min-TLS-1-0-2019-07'}\n"
        "gw.DomainName(s, 'd', security_policy=gw.SecurityPolicy.TLS_1_2)\n"
        "os_.CfnDomain(s, 'e', domain_endpoint_options={'tls_security_policy': "
        "'Policy-Min-TLS-1-2-2019-07'})\n",
        {("SSC702", 2), ("SSC702", 3), ("SSC702", 4), ("SSC702", 5)},
    ),
    (  # a pyOpenSSL client that checks the chain and no name; a pinning callback checks more
        "from OpenSSL import SSL\nimport socket\ndef f(h):\n"
        "    c = SSL.Context(SSL.TLS_CLIENT_METHOD)\n"
        "    c.set_verify(SSL.VERIFY_PEER, lambda conn, cert, e, d, ok: ok)\n"
        "    SSL.Connection(c, socket.create_connection((h, 443))).set_connect_state()\n"
        "def g(h):\n    c = SSL.Context(SSL.TLS_CLIENT_METHOD)\n"
        "    c.set_verify(SSL.VERIFY_PEER, lambda c_, x, e, d, ok: ok and x.digest() == P)\n"
        "    SSL.Connection(c, socket.create_connection((h, 443))).set_connect_state()\n",
        {("SSC210", 4)},
    ),
    (  # the same client in a file that checks the name with service_identity
        "from OpenSSL import SSL\nimport service_identity\ndef f(sock, h):\n"
        "    c = SSL.Context(SSL.TLS_CLIENT_METHOD)\n    c.set_verify(SSL.VERIFY_PEER)\n"
        "    conn = SSL.Connection(c, sock)\n    conn.set_connect_state()\n"
        "    conn.do_handshake()\n    service_identity.pyopenssl.verify_hostname(conn, h)\n",
        set(),
    ),
    (  # a function of the file that takes nothing and returns one constant is that constant
        'import requests\ndef insecure():\n    """Off."""\n    return False\n'
        "OFF = lambda: 0\ndef on():\n    return True\ndef maybe(flag):\n    return False\n"
        "requests.get('https://h', verify=insecure())\nrequests.get('https://h', verify=OFF())\n"
        "requests.get('https://h', verify=on())\nrequests.get('https://h', verify=maybe(1))\n",
        {("SSC101", 10), ("SSC101", 11)},
    ),
    (  # httpx up to 0.27 reads None as no verification; requests reads it as its default
        "import httpx, requests\nhttpx.get('https://h', verify=None)\n"
        "httpx.Client(verify=None)\nrequests.get('https://h', verify=None)\n",
        {("SSC101", 2), ("SSC101", 3)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _RULE_SUITE_FILES)
def test_shapes_from_the_rule_suites_own_files(source: str, expected: set[tuple[str, int]]) -> None:
    """Each shape is reported where it is written, and its look-alikes are not."""
    assert findings_of(source) == expected


# Shapes the independent held-out families 27-29 found missing (issue 24).
_HELD_OUT_27_TO_29 = [
    (  # verify_ssl= to a client of unknown kind; aiohttp's own keeps its code
        "import aiohttp\nfrom proxmoxer import ProxmoxAPI\n"
        "api = ProxmoxAPI('h', user='u', verify_ssl=False)\n"
        "ok = ProxmoxAPI('h', user='u', verify_ssl=True)\n"
        "conn = aiohttp.TCPConnector(verify_ssl=False)\n",
        {("SSC511", 3), ("SSC103", 5)},
    ),
    (  # Home Assistant's shared sessions; azure-core's connection_verify
        "from homeassistant.helpers.aiohttp_client import async_get_clientsession\n"
        "from azure.storage.blob import BlobServiceClient\n"
        "s = async_get_clientsession(hass, verify_ssl=False)\n"
        "b = BlobServiceClient(account_url=u, connection_verify=False)\n"
        "c = BlobServiceClient(account_url=u, connection_verify='/etc/ca.pem')\n",
        {("SSC103", 3), ("SSC101", 4)},
    ),
    (  # ldap3's Tls validates nothing unless told; python-ldap's NEVER and ALLOW levels
        "import ssl, ldap\nfrom ldap3 import Tls\nt = Tls(ca_certs_file='/ca.pem')\n"
        "u = Tls(validate=ssl.CERT_REQUIRED, ca_certs_file='/ca.pem')\n"
        "ldap.set_option(ldap.OPT_X_TLS_REQUIRE_CERT, ldap.OPT_X_TLS_NEVER)\n"
        "ldap.set_option(ldap.OPT_X_TLS_REQUIRE_CERT, ldap.OPT_X_TLS_ALLOW)\n"
        "ldap.set_option(ldap.OPT_X_TLS_REQUIRE_CERT, ldap.OPT_X_TLS_DEMAND)\n",
        {("SSC508", 3), ("SSC508", 5), ("SSC508", 6)},
    ),
    (  # Celery's TLS options: an attribute, a keyword, a settings entry; a verifying twin
        "import ssl\nfrom celery import Celery\napp = Celery('t')\n"
        "app.conf.broker_use_ssl = {\n    'keyfile': '/k',\n    'cert_reqs': ssl.CERT_NONE,\n}\n"
        "b = Celery('t', broker_use_ssl={'cert_reqs': ssl.CERT_NONE})\n"
        "S = {'redis_backend_use_ssl': {'ssl_cert_reqs': 'none'}}\n"
        "c = Celery('t', broker_use_ssl={'cert_reqs': ssl.CERT_REQUIRED})\n",
        {("SSC507", 6), ("SSC507", 8), ("SSC507", 9)},
    ),
    (  # keyword arguments built by a comprehension over literal keys, spread
        "import requests\nopts = {k: False for k in ('verify',)}\nrequests.get('u', **opts)\n"
        "same = {k: k for k in ('verify',)}\nrequests.get('u', **same)\n",
        {("SSC101", 2)},
    ),
    (  # a command line grown with +=
        "import subprocess\ncmd = ['curl', '-fsSL']\ncmd += ['--insecure']\n"
        "subprocess.run(cmd + ['https://h'])\nok = ['curl']\nok += ['--cacert', '/ca.pem']\n"
        "subprocess.run(ok + ['https://h'])\n",
        {("SSC402", 3)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_27_TO_29)
def test_shapes_found_by_held_out_families_27_to_29(
    source: str, expected: set[tuple[str, int]]
) -> None:
    """The shapes the twenty-seventh to twenty-ninth held-out families found missing are fixed."""
    assert findings_of(source) == expected


# Shapes the independent held-out families 30-31 found missing (issue 24).
_HELD_OUT_30_TO_31 = [
    (  # scrapy's settings: a protocol by name, a cipher string on a class
        'DOWNLOADER_CLIENT_TLS_METHOD = "TLSv1.0"\n'
        'class S:\n    DOWNLOADER_CLIENT_TLS_CIPHERS = "RC4-SHA"\n'
        'DOWNLOADER_CLIENT_TLS_METHOD = "TLSv1.2"\n',
        {("SSC701", 1), ("SSC704", 3)},
    ),
    (  # a setting written as a dict entry or an item; libpq's floor by name
        "import ssl\nopts = {'certfile': 'c', 'ssl_version': ssl.PROTOCOL_TLSv1}\n"
        "opts['ciphers'] = 'ALL:@SECLEVEL=0'\nDB = {'ssl_min_protocol_version': 'TLSv1'}\n"
        "ok = {'ssl_min_protocol_version': 'TLSv1.2', 'ssl_version': ssl.PROTOCOL_TLS_CLIENT}\n",
        {("SSC701", 2), ("SSC704", 3), ("SSC702", 4)},
    ),
    (  # M2Crypto's protocol by name; a MySQL driver's ssl dict cipher
        "import pymysql\nfrom M2Crypto import SSL\nSSL.Context('sslv3')\nSSL.Context('tls')\n"
        "pymysql.connect(host='h', ssl={'ca': '/ca', 'cipher': 'RC4-MD5'})\n",
        {("SSC701", 3), ("SSC704", 5)},
    ),
    (  # browsers a script drives: Playwright's flag, Chrome's switch (not argparse's option)
        "import argparse\nctx = browser.new_context(ignore_https_errors=True)\n"
        "options.add_argument('--ignore-certificate-errors')\n"
        "argparse.ArgumentParser().add_argument('--ignore-certificate-errors', action='count')\n"
        "b = launch(args=['--no-sandbox', '--ignore-certificate-errors'])\n",
        {("SSC101", 2), ("SSC402", 3), ("SSC402", 5)},
    ),
    (  # clients' own names for it: prometheus, Elastic APM, aiomqtt, libcloud, keystoneauth
        "from keystoneauth1 import session as ks\nfrom libcloud import security\n"
        "h = tls_auth_handler(u, m, t, hd, d, c, k, insecure_skip_verify=True)\n"
        "APM = {'VERIFY_SERVER_CERT': False}\nc = Client(host, tls_insecure=True)\n"
        "security.VERIFY_SSL_CERT = False\ns = ks.Session(auth=a, verify=False)\n"
        "t = ks.Session(auth=a, verify='/ca.pem')\n",
        {("SSC101", 3), ("SSC101", 4), ("SSC504", 5), ("SSC511", 6), ("SSC101", 7)},
    ),
    (  # option dicts handed on to requests or httpx; selenium-wire's; graypy's validate
        "import graypy\nr = HTTPXRequest(httpx_kwargs={'verify': False})\n"
        "j = JIRA(server=s, options={'verify': False})\n"
        "w = Chrome(seleniumwire_options={'verify_ssl': False})\n"
        "g = graypy.GELFTLSHandler('h', 12201, validate=False)\n"
        "ok = JIRA(server=s, options={'verify': '/ca.pem'})\n",
        {("SSC101", 2), ("SSC101", 3), ("SSC511", 4), ("SSC101", 5)},
    ),
    (  # a transport's pool options without verification; a server's, a caller's opt-out: quiet
        "import ssl\nclass T(HttpTransport):\n    def _get_pool_options(self):\n"
        "        options = {}\n        options['cert_reqs'] = 'CERT_NONE'\n        return options\n"
        "def serve():\n    o = {'certfile': 'c', 'keyfile': 'k'}\n"
        "    o['cert_reqs'] = ssl.CERT_NONE\n    return o\n"
        "def pool(verify):\n    kw = {}\n    reqs = 'CERT_REQUIRED'\n    if verify is False:\n"
        "        reqs = 'CERT_NONE'\n    kw['cert_reqs'] = reqs\n    return kw\n",
        {("SSC104", 5)},
    ),
    (  # configparser's fallback is the value of the default path
        "import configparser, requests\ndef f(conf):\n"
        "    return requests.get('u', verify=conf.getboolean('tls', 'verify', fallback=False))\n",
        {("SSC101", 3)},
    ),
]


@pytest.mark.parametrize(("source", "expected"), _HELD_OUT_30_TO_31)
def test_shapes_found_by_held_out_families_30_to_31(
    source: str, expected: set[tuple[str, int]]
) -> None:
    """The shapes the thirtieth and thirty-first held-out families found missing are fixed."""
    assert findings_of(source) == expected


def test_a_settings_table_with_a_rule_word_is_kept_in_a_cut_file(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A module-level dict nothing reads (Django's settings) is checked when the file is cut."""
    from sslcustomize_lint import _runner

    monkeypatch.setattr(_runner, "PARTIAL_MIN_BYTES", 0)
    source = (
        b"import os\n\ndef cold():\n    return os.getcwd()\n\n"
        b"ELASTIC_APM = {\n    'SERVICE_NAME': 'orders',\n    'VERIFY_SERVER_CERT': False,\n}\n"
        b"NAMES = [\n    'openssl',\n    'ssl',\n]\n"
    )
    result = LintResult()
    lint_source(source, "settings.py", result)
    assert [(f.code, f.line) for f in result.findings] == [("SSC101", 8)]
