"""Run `enable --scope system`, clients, venvs and `disable` inside a throw-away namespace.

``test_reach_system.py`` starts this script under ``unshare -m`` after mounting overlays over
``/etc``, ``/usr/local/lib`` and each interpreter's standard library: everything it writes
there vanishes with the namespace. It prints one JSON document of observations; the test
asserts on them. Arguments: one JSON object (see ``main``).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

CLIENT = r"""
import http.client, json, smtplib, ssl, sys
host, smtp_port, https_port = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
out = {}
try:
    with smtplib.SMTP_SSL(host, smtp_port, timeout=20) as smtp:
        smtp.noop()
    out["smtp"] = "accepted"
except ssl.SSLCertVerificationError:
    out["smtp"] = "rejected"
except Exception as exc:
    out["smtp"] = "error " + repr(exc)
try:
    connection = http.client.HTTPSConnection(host, https_port, timeout=20)
    connection.request("GET", "/")
    connection.getresponse().read()
    connection.close()
    out["https"] = "accepted"
except ssl.SSLCertVerificationError:
    out["https"] = "rejected"
except Exception as exc:
    out["https"] = "error " + repr(exc)
for name in ("cryptography", "rich"):
    try:
        out[name] = __import__(name).__file__
    except ImportError:
        out[name] = None
out["path"] = sys.path
out["startup"] = getattr(sys.modules.get("_sslcustomize_startup"), "__file__", None)
out["package"] = getattr(sys.modules.get("sslcustomize"), "__file__", None)
out["finders"] = [type(f).__name__ for f in sys.meta_path]
out["chained"] = sorted(getattr(sys, "reach_test_chain", []))
print(json.dumps(out))
"""


def snapshot(roots: list[str]) -> dict[str, Any]:
    """Return ``{path: (kind, mode, digest-or-target)}`` for every entry under ``roots``.

    Files at the top of a root and in its ``__pycache__`` (where sslcustomize writes) are
    compared by content; deeper ones by size and modification time (any write changes it).
    """
    entries: dict[str, Any] = {}
    for root in roots:
        for directory, subdirectories, files in os.walk(root):
            subdirectories.sort()
            shallow = directory in (root, os.path.join(root, "__pycache__"))
            for name in [*subdirectories, *files]:
                path = os.path.join(directory, name)
                info = os.lstat(path)
                if stat.S_ISLNK(info.st_mode):
                    entries[path] = ["link", 0, os.readlink(path)]
                elif stat.S_ISDIR(info.st_mode):
                    entries[path] = ["dir", stat.S_IMODE(info.st_mode), ""]
                elif stat.S_ISREG(info.st_mode) and (shallow or root.startswith("/etc")):
                    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
                    entries[path] = ["file", stat.S_IMODE(info.st_mode), digest]
                else:
                    entries[path] = [
                        "file",
                        stat.S_IMODE(info.st_mode),
                        info.st_size,
                        info.st_mtime_ns,
                    ]
    return entries


def diff(before: dict[str, Any], after: dict[str, Any]) -> list[Any]:
    """Return ``[path, before, after]`` for each path that differs between two snapshots."""
    return [
        [p, before.get(p), after.get(p)]
        for p in sorted(set(before) | set(after))
        if before.get(p) != after.get(p)
    ]


def run(command: list[str], **options: Any) -> subprocess.CompletedProcess[str]:
    """Run ``command`` (no bytecode writes: only sslcustomize may change the trees)."""
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1", **options.pop("env", {})}
    return subprocess.run(
        command, capture_output=True, text=True, timeout=180, check=False, env=env, **options
    )


def client(
    python: str, spec: dict[str, Any], wrap: Callable[[list[str]], list[str]] | None = None
) -> dict[str, Any]:
    """Run the client script in ``python`` (through ``wrap``, e.g. as another user)."""
    command = [python, "-c", CLIENT, spec["host"], str(spec["smtp"]), str(spec["https"])]
    result = run(wrap(command) if wrap else command)
    try:
        observed: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return {"failed": result.stdout + result.stderr}
    observed["stderr"] = result.stderr
    return observed


def main() -> None:
    """Run the scenario described by ``sys.argv[1]`` (JSON) and print the observations."""
    spec = json.loads(sys.argv[1])
    scratch = Path(spec["scratch"])
    cli = [sys.executable, "-m", "sslcustomize"]
    trees = spec["trees"]
    out: dict[str, Any] = {"steps": {}}

    # Markers that show the chained sitecustomize files run: one displaced, one in a venv.
    chain_mark = (
        "import sys\nsys.reach_test_chain = [*getattr(sys, 'reach_test_chain', []), {!r}]\n"
    )
    Path(spec["displace"], "sitecustomize.py").write_text(chain_mark.format("displaced"))
    venvs: dict[str, str] = {}
    base = spec["venv_base"]
    for name, options in (("before", []), ("before-ssp", ["--system-site-packages"])):
        run([base, "-m", "venv", "--without-pip", *options, str(scratch / name)])
        venvs[name] = str(scratch / name / "bin" / "python")
    site_packages = next((scratch / "before").glob("lib/python3.*/site-packages"))
    (site_packages / "sitecustomize.py").write_text(chain_mark.format("venv"))
    # An application with its own cryptography and rich (stand-ins with their own names).
    for name in ("cryptography", "rich"):
        (site_packages / name).mkdir()
        (site_packages / name / "__init__.py").write_text("OWN = True\n")

    # Safety: enable must write only inside the overlays. Refuse to go on if it would hook an
    # interpreter whose standard library is not overlaid.
    doctor = json.loads(run([*cli, "doctor", "--json"]).stdout)["interpreters"]
    stray = [
        row["stdlib"]
        for row in doctor
        if row["implementation"] == "cpython"
        and tuple(int(v) for v in row["version"].split(".")[:2]) >= (3, 10)
        and not any(os.path.realpath(row["stdlib"]) == os.path.realpath(t) for t in trees)
    ]
    if stray:
        raise SystemExit(f"not overlaid, refusing to enable: {stray}")
    interpreters = {**{p: p for p in spec["interpreters"]}, **venvs}
    out["before"] = {name: client(python, spec) for name, python in interpreters.items()}
    before = snapshot(trees)

    enable = run([*cli, "enable", "--scope", "system"])
    out["steps"]["enable"] = [enable.returncode, enable.stdout, enable.stderr]
    enabled = snapshot(trees)
    again = run([*cli, "enable", "--scope", "system"])
    out["steps"]["enable-again"] = [again.returncode, again.stdout, again.stderr]
    out["enable_twice_diff"] = diff(enabled, snapshot(trees))
    out["doctor"] = json.loads(run([*cli, "doctor", "--json"]).stdout)["interpreters"]

    # A venv made after enable, a virtualenv, and the policy's CA added to the system layer.
    run([base, "-m", "venv", "--without-pip", str(scratch / "after")])
    venvs["after"] = str(scratch / "after" / "bin" / "python")
    if spec.get("virtualenv"):
        run(
            [
                spec["virtualenv"],
                "--no-pip",
                "--no-setuptools",
                "--no-wheel",
                "-p",
                base,
                str(scratch / "virtualenv"),
            ]
        )
        venvs["virtualenv"] = str(scratch / "virtualenv" / "bin" / "python")
    if spec.get("uv"):
        made = run(
            [spec["uv"], "venv", "--offline", "--python", base, str(scratch / "uv")],
            env={"UV_PYTHON_DOWNLOADS": "never", "UV_NO_CACHE": "1"},
        )
        out["steps"]["uv"] = [made.returncode, made.stdout, made.stderr]
        venvs["uv"] = str(scratch / "uv" / "bin" / "python")
    interpreters.update(venvs)
    policy = Path("/etc/sslcustomize/policy.toml")
    written = policy.read_bytes()
    policy.write_text(f'version = 1\nmode = "enforce"\ntrust = ["system", "{spec["ca"]}"]\n')
    out["with_policy"] = {name: client(python, spec) for name, python in interpreters.items()}
    out["own_install"] = client(sys.executable, spec)
    if os.path.isfile("/usr/bin/python3"):  # root's pyenv is not reachable by other users
        out["other_user"] = client(
            "/usr/bin/python3",
            spec,
            wrap=lambda command: [
                "setpriv",
                "--reuid=65534",
                "--regid=65534",
                "--clear-groups",
                "env",
                "-i",
                "HOME=/nonexistent",
                *command,
            ],
        )
    policy.write_bytes(written)

    disable = run([*cli, "disable", "--scope", "system"])
    out["steps"]["disable"] = [disable.returncode, disable.stdout, disable.stderr]
    out["undo_diff"] = diff(before, snapshot(trees))
    out["after_disable"] = {
        name: client(python, spec) for name, python in interpreters.items() if name != "after"
    }
    print(json.dumps(out))


if __name__ == "__main__":
    main()
