"""``enable --scope user`` as an unprivileged user, inside a throw-away namespace.

``test_reach_user.py`` overlays ``/root`` (where pyenv lives) and runs this script as root in
the namespace. It opens ``/root`` for traversal, gives one interpreter's standard library to
user 65534 (as if the user had installed that Python), and runs the user's steps with
``setpriv``. Prints one JSON document of observations.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

from _reach_scenario import client, diff, run, snapshot

UID = 65534


def as_user(command: list[str], home: str) -> list[str]:
    """Return ``command`` run as user 65534 with ``home`` as its home directory."""
    return [
        "setpriv",
        f"--reuid={UID}",
        f"--regid={UID}",
        "--clear-groups",
        "env",
        "-i",
        f"HOME={home}",
        f"PYENV_ROOT={os.environ['PYENV_ROOT']}",
        "PYTHONDONTWRITEBYTECODE=1",
        f"PATH={os.path.dirname(sys.executable)}:/usr/bin:/bin",
        *command,
    ]


def main() -> None:
    """Run the scenario of ``sys.argv[1]`` (JSON)."""
    spec = json.loads(sys.argv[1])
    home = spec["home"]
    os.chmod("/root", 0o711)  # noqa: S103 - in the throw-away overlay, so 65534 reaches pyenv
    owned = spec["owned_stdlib"]
    for path in (owned, os.path.join(owned, "__pycache__")):
        os.chown(path, UID, UID)
    trees = [owned, home]
    cli = [sys.executable, "-m", "sslcustomize"]
    out: dict[str, Any] = {}
    python = spec["owned_python"]
    before = snapshot(trees)
    enable = run(as_user([*cli, "enable", "--scope", "user"], home))
    out["enable"] = [enable.returncode, enable.stdout, enable.stderr]
    out["with_policy"] = client(python, spec, wrap=lambda c: as_user(c, home))
    doctor = run(as_user([*cli, "doctor", "--json"], home))
    out["doctor"] = json.loads(doctor.stdout)["interpreters"] if doctor.stdout else doctor.stderr
    disable = run(as_user([*cli, "disable", "--scope", "user"], home))
    out["disable"] = [disable.returncode, disable.stdout, disable.stderr]
    out["after"] = client(python, spec, wrap=lambda c: as_user(c, home))
    out["undo_diff"] = diff(before, snapshot(trees))
    print(json.dumps(out))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
