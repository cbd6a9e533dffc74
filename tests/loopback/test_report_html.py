"""report --html as a person sees it: rendered by headless Chromium, screenshot and DOM checked."""

from __future__ import annotations

import html.parser
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from sslcustomize._cli import main
from sslcustomize._report._records import Record, open_sink

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
#: Where the screenshot is also written, for a person to look at after the run.
STABLE_SCREENSHOT = Path("/tmp/sslcustomize-report.png")  # noqa: S108 - a fixed path to open
HOSTILE = '<script>alert("x")</script>'


def _records(path: Path) -> None:
    sink = open_sink("jsonl", str(path))
    rows = [
        ("nas.example", 8443, ("self_signed",), "rejected", 1, "backup.py", "web1"),
        ("nas.example", 8443, ("self_signed",), "rejected", 2, "backup.py", "web2"),
        ("::1", 2525, ("pin_mismatch",), "rejected", 2, "mailer.py", "web2"),
        ("mail.example", 465, ("expired", "hostname_mismatch"), "rejected", 3, "mailer.py", "db1"),
        (HOSTILE, 443, ("unknown_issuer",), "rejected", 4, f"{HOSTILE}.py", "db2"),
        ("127.0.0.1", 9443, ("code_opt_out", "self_signed"), "opt_out", 4, "poller.py", "db1"),
    ]
    for host, port, reasons, verdict, day, program, machine in rows:
        sink.write(
            Record(
                time=f"2026-12-0{day}T10:00:00+00:00", pid=1, program=program, machine=machine,
                context="http.client", host=host, port=port, mode="report", verdict=verdict,
                reasons=reasons,
            )
        )  # fmt: skip
    sink.close()


def _chromium(*args: str, profile: Path) -> subprocess.CompletedProcess[str]:
    assert CHROMIUM is not None
    return subprocess.run(
        [
            CHROMIUM,
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-background-networking",
            "--disable-component-update",
            "--no-first-run",
            f"--user-data-dir={profile}",
            *args,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


class _Elements(html.parser.HTMLParser):
    """Collect tag names, ids in order, <code class="command"> texts and the summary of a DOM."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []
        self.ids: list[str] = []
        self.fixes: list[str] = []
        self.summary = ""
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self.ids.extend(value for name, value in attrs if name == "id" and value)
        if tag == "code" and ("class", "command") in attrs:
            self._in = "fix"
        elif ("id", "summary") in attrs:
            self._in = "summary"

    def handle_data(self, data: str) -> None:
        if self._in == "fix":
            self.fixes.append(data)
        elif self._in == "summary":
            self.summary += data
        self._in = None


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_html_report_renders_in_chromium(tmp_path: Path) -> None:
    """Chromium renders chart, would-break list and fixes; hostile names stay text."""
    records = tmp_path / "r.jsonl"
    _records(records)
    page = tmp_path / "report.html"
    assert main(["report", "--json", "--path", str(records), "--html", str(page)]) == 0
    url = page.as_uri()
    dumped = _chromium("--dump-dom", url, profile=tmp_path / "profile")
    assert "<html" in dumped.stdout, dumped.stderr
    dom = _Elements()
    dom.feed(dumped.stdout)
    assert "script" not in dom.tags  # the hostile host and program were escaped
    assert dom.summary == (
        "4 machines, 3 programs would fail under enforce (4 servers); "
        "1 program turns verification off"
    )
    assert dom.ids.index("summary") < dom.ids.index("programs") < dom.ids.index("would-break")
    opt_outs = dumped.stdout.split('id="opt-outs"')[1]
    assert "127.0.0.1:9443" in opt_outs
    assert "127.0.0.1:9443" not in dumped.stdout.split('id="would-break"')[1].split("opt-outs")[0]
    assert HOSTILE in html.unescape(dumped.stdout)
    assert dom.tags.count("rect") >= 5  # bars and legend of the inline SVG
    assert "sslcustomize check nas.example:8443" in dom.fixes
    assert "sslcustomize trust nas.example:8443" in dom.fixes
    assert "sslcustomize trust '[::1]:2525'" in dom.fixes  # quoted: [::1] is a shell glob
    shot = tmp_path / "report.png"
    taken = _chromium(
        f"--screenshot={shot}", "--window-size=1000,1100", url, profile=tmp_path / "profile"
    )
    assert shot.exists(), taken.stderr
    data = shot.read_bytes()
    assert data.startswith(b"\x89PNG")
    assert len(data) > 10_000  # a page, not a blank
    if os.access(STABLE_SCREENSHOT.parent, os.W_OK):
        STABLE_SCREENSHOT.write_bytes(data)


def _journal_export(path: Path) -> None:
    """A ``journalctl -o json`` export: two records of one day, written by root (``_UID``)."""
    lines = []
    for hour, host in ((9, "nas.example"), (15, "mail.example")):
        lines.append(
            json.dumps(
                {
                    "__CURSOR": f"c{hour}", "SYSLOG_IDENTIFIER": "sslcustomize", "_UID": "0",
                    "_HOSTNAME": "web1", "SSLCUSTOMIZE_TIME": f"2026-12-05T{hour:02d}:00:00+00:00",
                    "SSLCUSTOMIZE_PID": "1", "SSLCUSTOMIZE_PROGRAM": "backup.py",
                    "SSLCUSTOMIZE_CONTEXT": "http.client", "SSLCUSTOMIZE_HOST": host,
                    "SSLCUSTOMIZE_PORT": "8443", "SSLCUSTOMIZE_MODE": "report",
                    "SSLCUSTOMIZE_VERDICT": "rejected", "SSLCUSTOMIZE_REASONS": "self_signed",
                }
            )
        )  # fmt: skip
    lines.append('{"time": "2026-12-05T10:00:00+00:00", "verdict": "rejected", "port": {}}')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_html_report_is_level_with_the_text_report(tmp_path: Path) -> None:
    """Users, sources, dropped and skipped counts, when and what period; a day is one bar."""
    fleet = tmp_path / "fleet"
    fleet.mkdir()
    _journal_export(fleet / "web1.json")
    page = tmp_path / "report.html"
    assert main(["report", "--path", str(fleet), "--html", str(page)]) == 0
    url = page.as_uri()
    dumped = _chromium("--dump-dom", url, profile=tmp_path / "profile").stdout
    assert "<html" in dumped
    text = html.unescape(dumped)
    would_break = text.split('id="would-break"')[1].split("</table>")[0]
    assert "<th>users</th>" in would_break
    assert "root (0)" in would_break
    assert str(fleet / "web1.json") in would_break
    about = text.split('id="about"')[1].split("</p>")[0]
    assert "Generated 20" in about
    assert "covering 2026-12-05 09:00 to 2026-12-05 15:00 UTC" in about
    assert "0 record(s) dropped" in about
    assert "1 skipped" in about
    assert "port is not an integer 1-65535" in text.split('id="skipped"')[1]
    # One day of records: a week of slots, one narrow bar, not a full-width block.
    chart = dumped.split('id="chart"')[1].split("</svg>")[0]
    widths = [float(w) for w in re.findall(r'class="bar"[^>]*width="([0-9.]+)"', chart)]
    assert len(widths) == 1  # one day, one reason
    assert max(widths) <= 36
    assert "2026-12-05: 2 self_signed" in chart
    shot = tmp_path / "level.png"
    _chromium(f"--screenshot={shot}", "--window-size=1200,1400", url, profile=tmp_path / "p2")
    assert shot.read_bytes().startswith(b"\x89PNG")
    if os.access(STABLE_SCREENSHOT.parent, os.W_OK):
        Path("/tmp/sslcustomize-report-level.png").write_bytes(shot.read_bytes())  # noqa: S108 - for a person to look at


def test_html_report_without_records_says_so(tmp_path: Path) -> None:
    """An empty record file: the page says nothing would break (the twin of the above)."""
    records = tmp_path / "r.jsonl"
    records.write_text("")
    page = tmp_path / "report.html"
    assert main(["report", "--path", str(records), "--html", str(page)]) == 0
    text = page.read_text()
    assert "Nothing: every recorded connection verified." in text
    assert "<svg" not in text


def test_report_says_it_skipped_unreadable_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A torn JSONL line is skipped and the count is said on stderr; none, nothing said."""
    records = tmp_path / "r.jsonl"
    _records(records)
    assert main(["report", "--path", str(records)]) == 0
    assert "skipped" not in capsys.readouterr().err
    with records.open("a") as file:
        file.write('{"torn": \n')
    assert main(["report", "--path", str(records)]) == 0
    said = capsys.readouterr()
    assert "skipped 1 record(s)" in said.err
    assert f"skipped 1 in {records}: line is not JSON (a torn write?)" in said.out


def test_no_color_and_pipes_give_plain_output(tmp_path: Path) -> None:
    """FORCE_COLOR makes escapes (twin); with NO_COLOR there are none; piped, none either."""
    import sys

    env = {**os.environ, "XDG_CONFIG_HOME": str(tmp_path)}
    env.pop("NO_COLOR", None)
    command = [sys.executable, "-m", "sslcustomize", "doctor"]

    def run(**extra: str) -> str:
        done = subprocess.run(
            command, capture_output=True, text=True, env={**env, **extra}, timeout=60,
            check=False,
        )  # fmt: skip
        return done.stdout

    assert "\x1b[" in run(FORCE_COLOR="1")
    assert "\x1b[" not in run(FORCE_COLOR="1", NO_COLOR="1")
    assert "\x1b[" not in run()
