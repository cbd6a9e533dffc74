"""`enable --scope system`, then venvs with pip-system-certs but without sslcustomize.

``test_coexist_system.py`` runs this script under ``unshare -m`` with throw-away overlays over
``/etc``, ``/usr/local/lib`` and each interpreter's standard library: what ``enable`` writes
vanishes with the namespace. Argument: one JSON object (see ``main``); output: one JSON
document of observations.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

# Runs in each venv: pip-system-certs injected truststore before the system hook ran.
CLIENT = r"""
import json, ssl, sys, urllib.request
import pip._vendor.requests as requests
import truststore
good, mitm = sys.argv[1], sys.argv[2]

def attempt(call):
    try:
        call()
    except Exception as error:
        seen = error
        while seen is not None and type(seen).__name__ != "CertificateRejected":
            reason = getattr(seen, "reason", None)
            seen = seen.__cause__ or seen.__context__ or (
                reason if isinstance(reason, BaseException) else None)
        if seen is None:
            return "ERROR " + type(error).__name__
        return "REJECTED " + ",".join(seen.reasons)
    return "OK"

out = {"ssl_context": ssl.SSLContext.__module__, "calls": []}
direct = lambda: truststore.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
for url in (good, mitm):
    out["calls"].append(attempt(lambda: urllib.request.urlopen(url, timeout=20).read()))
    out["calls"].append(attempt(lambda: requests.get(url, timeout=20).text))
    out["calls"].append(attempt(
        lambda: urllib.request.urlopen(url, timeout=20, context=direct()).read()))
out["calls"].append(attempt(lambda: requests.get(mitm, timeout=20, verify=False).text))
print(json.dumps(out))
"""


def run(command: list[str]) -> subprocess.CompletedProcess[str]:
    """Run ``command`` without writing bytecode (only sslcustomize may change the trees)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SSLCUSTOMIZE_", "PIP_"))}
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    return subprocess.run(
        command, capture_output=True, text=True, timeout=180, check=False, env=env
    )


def main() -> None:
    """Run the scenario described by ``sys.argv[1]`` (JSON) and print the observations."""
    spec: dict[str, Any] = json.loads(sys.argv[1])
    cli = [sys.executable, "-m", "sslcustomize"]
    # Safety: enable must write only inside the overlays.
    rows = json.loads(run([*cli, "doctor", "--json"]).stdout)["interpreters"]
    overlaid = {os.path.realpath(t) for t in spec["trees"]}
    stray = [
        r["stdlib"]
        for r in rows
        if r["implementation"] == "cpython"
        and tuple(int(v) for v in r["version"].split(".")[:2]) >= (3, 10)
        and os.path.realpath(r["stdlib"]) not in overlaid
    ]
    if stray:
        raise SystemExit(f"not overlaid, refusing to enable: {stray}")
    out: dict[str, Any] = {}
    enable = run([*cli, "enable", "--scope", "system"])
    out["enable"] = [enable.returncode, enable.stdout, enable.stderr]
    Path("/etc/sslcustomize/policy.toml").write_text(
        f'version = 1\nmode = "enforce"\ntrust = ["{spec["ca"]}"]\n'
        "allow_code_opt_out = false\n[report]\nsink = 'none'\n"
    )
    out["clients"] = {}
    for name, python in spec["venvs"].items():
        result = run([python, "-c", CLIENT, spec["good"], spec["mitm"]])
        try:
            seen: dict[str, Any] = json.loads(result.stdout.strip().splitlines()[-1])
        except (ValueError, IndexError):
            seen = {"failed": result.stdout}
        seen["stderr"] = result.stderr
        out["clients"][name] = seen
    pythons = [arg for python in spec["venvs"].values() for arg in ("--python", python)]
    doctor = run([*cli, "doctor", "--json", *pythons])
    out["doctor"] = json.loads(doctor.stdout)["interpreters"]
    print(json.dumps(out))


if __name__ == "__main__":
    main()
