"""The real-code scoring of ``bench/realcode.py``: label files, matching, extraction, split."""

from __future__ import annotations

import importlib.util
import random
import shutil
import subprocess
import sys
import types
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
LABELS = Path(__file__).parent / "realcode" / "labels"


def _load(path: Path, name: str) -> types.ModuleType:
    """Import a script that is not in a package."""
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


realcode: Any = _load(ROOT / "bench" / "realcode.py", "bench_realcode")

FAKE = """
project = "fake"
repo = "someone/fake"
commit = "0123456789abcdef0123456789abcdef01234567"
split = "held-out"
split_seed = 1
unscored = ["scripts/"]

[[site]]
path = "pkg/client.py"
line = 3
label = "a"
reason = "verify=False by default"
also = [7, "pkg/settings.py:1"]

[[site]]
path = "pkg/client.py"
line = 12
label = "b"
reason = "an --insecure flag"

[[site]]
path = "pkg/pinning.py"
line = 5
label = "c"
reason = "pinned fingerprint instead of a chain"
"""


@pytest.fixture
def fake(tmp_path: Path) -> Any:
    path = tmp_path / "fake.toml"
    path.write_text(FAKE)
    return realcode.load_project(path)


def test_a_finding_on_any_line_of_a_site_finds_it(fake: Any) -> None:
    """A site spanning lines (and another file) is found by a finding on any of them."""
    for hit in [("pkg/client.py", 3, "X"), ("pkg/client.py", 7, "X"), ("pkg/settings.py", 1, "X")]:
        score = realcode.match(fake, [hit])
        assert [s.line for s in score.found] == [3]
        assert [s.line for s in score.missed] == [12]
        assert score.false_alarms == 0


def test_a_finding_one_line_off_finds_nothing_and_is_printed(fake: Any) -> None:
    """A finding on an unlabelled line outside tests is a false alarm candidate, not a find."""
    score = realcode.match(fake, [("pkg/client.py", 4, "X"), ("pkg/client.py", 4, "Y")])
    assert score.found == []
    assert [s.line for s in score.missed] == [3, 12]
    assert score.unlabelled == [("pkg/client.py", 4, "X")]  # one per line
    assert score.false_alarms == 1


def test_a_finding_on_a_look_alike_is_a_false_alarm(fake: Any) -> None:
    """A c site reported counts once, however many findings it has."""
    score = realcode.match(fake, [("pkg/pinning.py", 5, "X"), ("pkg/pinning.py", 5, "Y")])
    assert [s.label for s in score.lookalikes] == ["c"]
    assert score.false_alarms == 1
    assert score.found == []


def test_findings_in_tests_and_declared_paths_are_not_scored(fake: Any) -> None:
    """Label d: the default test paths and the file's own ``unscored`` patterns."""
    hits = [
        ("tests/test_client.py", 3, "X"),
        ("pkg/tests/helpers.py", 1, "X"),
        ("pkg/test_x.py", 1, "X"),
        ("conftest.py", 2, "X"),
        ("scripts/tool.py", 9, "X"),
        ("docs/conf.py", 1, "X"),
    ]
    score = realcode.match(fake, hits)
    assert score.false_alarms == 0
    assert score.found == []
    # the twin: the same file names outside those directories are scored
    score = realcode.match(fake, [("pkg/scripts_tool.py", 9, "X"), ("pkg/contest.py", 2, "X")])
    assert score.false_alarms == 2


def test_totals_give_recall_of_a_of_a_and_b_and_precision(fake: Any) -> None:
    """Recall of (a), of (a)+(b), and precision over sites and unlabelled lines."""
    found_a = realcode.match(fake, [("pkg/client.py", 3, "X"), ("pkg/pinning.py", 5, "X")])
    silent = realcode.match(fake, [])
    result = realcode.totals([found_a, silent])
    assert (result.a, result.b, result.found_a, result.found_b) == (2, 2, 1, 0)
    assert result.recall_a == 0.5
    assert result.recall_b == 0.0
    assert result.recall_ab == 0.25
    assert result.precision == 0.5
    assert realcode.totals([]).precision is None


@pytest.mark.parametrize(
    ("change", "message"),
    [
        (('commit = "0123456789abcdef0123456789abcdef01234567"', 'commit = "main"'), "commit"),
        (('split = "held-out"', 'split = "test"'), "split"),
        (('label = "b"', 'label = "d"'), "label"),
        (('repo = "someone/fake"\n', ""), "missing"),
    ],
)
def test_a_malformed_label_file_is_refused(
    tmp_path: Path, change: tuple[str, str], message: str
) -> None:
    """A branch name instead of a commit, an unknown set or label, a missing key."""
    path = tmp_path / "bad.toml"
    path.write_text(FAKE.replace(*change))
    with pytest.raises(ValueError, match=message):
        realcode.load_project(path)


GIT = shutil.which("git")


def _git(repo: Path, *args: str) -> str:
    assert GIT is not None
    return subprocess.run(
        [
            GIT,
            "-c",
            "user.name=t",
            "-c",
            "user.email=t@t.invalid",
            "-c",
            "commit.gpgsign=false",
            "-C",
            str(repo),
            *args,
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()


@pytest.mark.skipif(GIT is None, reason="git is not installed")
def test_extract_reads_the_pinned_commit_not_the_tree(tmp_path: Path) -> None:
    """Files come from the commit: a later commit and the work tree do not leak in.

    A missing blob of a file that is not Python does not stop the extraction.
    """
    repo = tmp_path / "someone+fake" / "repo"
    (repo / "pkg").mkdir(parents=True)
    _git(repo, "init", "-q")
    (repo / "pkg" / "client.py").write_text("verify = False\n")
    (repo / "setup.py").write_text("top = 1\n")
    (repo / "README.md").write_text("not Python\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "pinned")
    pinned = _git(repo, "rev-parse", "HEAD")
    (repo / "pkg" / "client.py").write_text("verify = True\n")
    (repo / "pkg" / "later.py").write_text("x = 1\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-q", "-m", "later")
    (repo / "pkg" / "client.py").write_text("dirty = 1\n")
    # a snapshot mirror may lack a large data file's blob: the Python files still come out
    readme = _git(repo, "rev-parse", f"{pinned}:README.md")
    (repo / ".git" / "objects" / readme[:2] / readme[2:]).unlink()

    target = tmp_path / "tree"
    assert realcode.extract(repo, pinned, target) == 2
    assert (target / "pkg" / "client.py").read_text() == "verify = False\n"
    assert (target / "setup.py").read_text() == "top = 1\n"
    assert not (target / "pkg" / "later.py").exists()
    assert not (target / "README.md").exists()

    label = tmp_path / "fake.toml"
    label.write_text(FAKE.replace("0123456789abcdef0123456789abcdef01234567", pinned))
    project = realcode.load_project(label.resolve())
    assert realcode.find_mirror(tmp_path, project) == repo
    unknown = tmp_path / "unknown.toml"
    unknown.write_text(FAKE.replace("0123456789abcdef0123456789abcdef01234567", "f" * 40))
    assert realcode.find_mirror(tmp_path, realcode.load_project(unknown)) is None


def test_every_real_label_file_is_well_formed_and_the_split_is_the_seeded_draw() -> None:
    """Round 1 held out exactly the seeded draw; rounds 2 and 3 are new projects, all held out.

    Rounds before the fresh one have had their misses read ("seen"); only the last is fresh.
    """
    projects = realcode.load_projects(LABELS)
    names = sorted(p.name for p in projects)
    assert names == sorted(path.stem for path in LABELS.glob("*.toml"))
    assert all("split_seed = 36" in path.read_text() for path in LABELS.glob("*.toml"))
    assert realcode.FRESH_ROUND == 3
    first = [p for p in projects if p.heldout_round == 1]
    first_names = sorted(p.name for p in first)
    assert len(first) == 20
    held = sorted(random.Random(36).sample(first_names, round(len(first_names) / 3)))
    assert sorted(p.name for p in first if p.split == "held-out") == held
    assert {p.report_set for p in first if p.split == "held-out"} == {"held-out (seen)"}
    second = [p for p in projects if p.heldout_round == 2]
    fresh = [p for p in projects if p.heldout_round == 3]
    assert len(second) >= 7
    assert len(fresh) >= 7
    assert len(fresh) + len(second) + len(first) == len(projects)
    assert {(p.split, p.report_set) for p in second} == {("held-out", "held-out (seen)")}
    assert {(p.split, p.report_set) for p in fresh} == {("held-out", "held-out (fresh)")}
    earlier = {p.repo for p in first} | {p.repo for p in second}
    assert not {p.repo for p in second} & {p.repo for p in first}  # new repositories
    assert not {p.repo for p in fresh} & earlier
    assert sum(1 for p in second for site in p.sites if site.label in "ab") >= 20
    fresh_labels = [site.label for p in fresh for site in p.sites]
    assert sum(1 for label in fresh_labels if label in "ab") >= 25
    assert {"a", "b"} <= set(fresh_labels)  # both kinds, so both recalls mean something
    for project in projects:
        assert all(site.reason for site in project.sites), project.name


def test_the_held_out_round_sorts_a_project_into_seen_or_fresh(tmp_path: Path) -> None:
    """A held-out file without a round is seen; the fresh round is reported apart."""
    path = tmp_path / "fake.toml"
    path.write_text(FAKE)
    assert realcode.load_project(path).report_set == "held-out (seen)"
    path.write_text(FAKE.replace("split_seed = 1", "split_seed = 1\nheldout_round = 2"))
    assert realcode.load_project(path).report_set == "held-out (seen)"
    fresh = f"split_seed = 1\nheldout_round = {realcode.FRESH_ROUND}"
    path.write_text(FAKE.replace("split_seed = 1", fresh))
    assert realcode.load_project(path).report_set == "held-out (fresh)"
    path.write_text(FAKE.replace('split = "held-out"', 'split = "tuning"'))
    assert realcode.load_project(path).report_set == "tuning"


@pytest.mark.parametrize(
    ("split", "value"),
    [("held-out", "0"), ("held-out", "true"), ("held-out", '"2"'), ("tuning", "2")],
)
def test_a_malformed_held_out_round_is_refused(tmp_path: Path, split: str, value: str) -> None:
    """No round 0, no boolean or string, no round on a tuning project."""
    path = tmp_path / "bad.toml"
    text = FAKE.replace('split = "held-out"', f'split = "{split}"')
    path.write_text(text.replace("split_seed = 1", f"split_seed = 1\nheldout_round = {value}"))
    with pytest.raises(ValueError, match="heldout_round"):
        realcode.load_project(path)
