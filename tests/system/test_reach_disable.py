"""``disable --scope system`` after a hooked interpreter was removed (issue 22 #13).

A distribution upgrade that purges an interpreter takes its standard library, hook included.
``disable`` used to stop at it with a traceback, every time, leaving the other interpreters
hooked and the runtime in place. Now it undoes the rest, names what it could not undo, exits
1 without a traceback, and a second run finishes. Everything happens in a private mount
namespace with throw-away overlays (see _namespace.py).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from _namespace import namespace_problem, run_in_overlays
from sslcustomize._reach import _install
from sslcustomize._reach._discovery import Interpreter, discover

pytestmark = pytest.mark.slow

CLI = str(Path(sys.executable).with_name("sslcustomize"))

_SCRIPT = """
{cli} enable --scope system > {out}/enable.out 2>&1 || exit 3
{remove}
{cli} disable --scope system > {out}/first.out 2> {out}/first.err; echo $? > {out}/first.rc
for stdlib in {others}; do head -c 19 "$stdlib/sitecustomize.py" 2>/dev/null; echo; done \
    > {out}/heads
test -e /usr/local/lib/sslcustomize && echo kept > {out}/runtime
{cli} disable --scope system > {out}/second.out 2> {out}/second.err; echo $? > {out}/second.rc
exit 0
"""


@pytest.mark.parametrize("removed", [True, False], ids=["interpreter-removed", "all-present"])
def test_disable_undoes_what_it_can_and_a_second_run_finishes(
    tmp_path: Path, removed: bool
) -> None:
    """A purged interpreter: the rest undone, it is named, exit 1, no traceback; again: exit 0."""
    problem = namespace_problem()
    if problem:
        pytest.skip(problem)
    eligible = [i for i in discover() if i.eligible]
    own = os.path.realpath(os.path.dirname(os.__file__))  # the CLI's own: it must stay
    pyenv = [
        os.path.realpath(i.stdlib)
        for i in eligible
        if "/.pyenv/versions/" in os.path.realpath(i.stdlib) and os.path.realpath(i.stdlib) != own
    ]
    if not pyenv:
        pytest.skip("needs a pyenv Python other than this one's to remove")
    victim = pyenv[0]
    others = sorted({os.path.realpath(i.stdlib) for i in eligible} - {victim})
    out = tmp_path / "out"
    out.mkdir()
    script = _SCRIPT.format(
        cli=CLI,
        out=out,
        remove=f"rm -rf {victim}" if removed else "",
        others=" ".join(others),
    )
    trees = ["/etc", "/usr/local/lib", os.path.dirname(victim), *others]
    result = run_in_overlays(trees, tmp_path / "overlays", [script])
    assert result.returncode == 0, (out / "enable.out").read_text() + result.stderr
    first_rc, first_err = (out / "first.rc").read_text().strip(), (out / "first.err").read_text()
    assert "Traceback" not in first_err
    heads = (out / "heads").read_text().split("\n")[: len(others)]
    assert len(heads) == len(others)
    assert not [head for head in heads if head.startswith("# sslcustomize hook")]  # restored
    assert not (out / "runtime").exists()
    assert (out / "second.rc").read_text().strip() == "0"
    assert "Traceback" not in (out / "second.err").read_text()
    if removed:
        assert first_rc == "1"
        assert f"not restored: {victim}/sitecustomize.py: its directory is gone" in first_err
    else:
        assert first_rc == "0"
        assert first_err == ""
    assert os.path.isdir(victim)  # the real one, outside the namespace


def test_a_hook_that_cannot_be_restored_keeps_the_runtime_for_a_second_run(
    tmp_path: Path,
) -> None:
    """A hook path that fails to restore: reported, runtime and manifest kept; then finished."""
    stdlib = tmp_path / "lib" / "python3.x"
    (stdlib / "__pycache__").mkdir(parents=True)
    interpreter = Interpreter(
        path=sys.executable, implementation="cpython", version=(3, 12, 0), stdlib=str(stdlib)
    )
    root = tmp_path / "root"
    _install.install([interpreter], root=str(root), scope="system")
    hook = stdlib / "sitecustomize.py"
    hook.unlink()
    hook.mkdir()  # something os.unlink() cannot remove stands where the hook was
    first = _install.uninstall(str(root))
    assert first.kept
    assert [p for p in first.problems if p.startswith(f"{hook}:")]
    assert (root / _install.MANIFEST).exists()
    assert [p for p in root.iterdir() if p.is_dir()]  # the runtime the hook would load
    hook.rmdir()
    second = _install.uninstall(str(root))
    assert (second.kept, second.problems) == (False, ())
    assert not root.exists()
    assert not hook.exists()
