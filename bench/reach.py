"""Measure what the system hook of ``enable --scope system`` costs an interpreter's start.

Usage (as root: it needs a private mount namespace)::

    python bench/reach.py [--rounds N] [--runs N]

It re-runs itself under ``unshare -m`` with throw-away overlays over ``/etc``,
``/usr/local/lib`` and the standard library of every interpreter ``enable`` would hook, so
nothing of the machine changes. In each round it measures a base interpreter (not a venv, no
sslcustomize of its own) with no hook, then after ``enable --scope system`` with the policy
file moved away (hook, no policy) and with it (hook and policy, ``import ssl`` but no
context yet). Rounds alternate the states; the figures are medians of the rounds' medians.

Goals (issue 11): hook without policy <= +1 ms; with a policy <= +5 ms before the first context.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from sslcustomize._reach._discovery import probe

MARK = "SSLCUSTOMIZE_BENCH_REACH_NAMESPACE"
POLICY = "/etc/sslcustomize/policy.toml"


def _trees() -> list[str]:
    from sslcustomize._reach._discovery import discover

    stdlibs = {os.path.realpath(i.stdlib) for i in discover() if i.eligible and i.stdlib}
    return ["/etc", "/usr/local/lib", *sorted(stdlibs)]


def _reexec(argv: list[str]) -> int:
    unshare = shutil.which("unshare")
    if unshare is None or os.geteuid() != 0:
        print("needs root and unshare (a private mount namespace); nothing measured")
        return 0
    scratch = tempfile.mkdtemp(prefix="sslcustomize-bench-reach-")
    try:
        mounts = []
        for index, tree in enumerate(_trees()):
            upper, work = f"{scratch}/u{index}", f"{scratch}/w{index}"
            os.mkdir(upper)
            os.mkdir(work)
            mounts.append(
                f"mount -t overlay overlay -o lowerdir={tree},upperdir={upper},"
                f"workdir={work} {tree}"
            )
        script = " && ".join([*mounts, 'exec "$@"'])
        env = {**os.environ, MARK: "1"}
        return subprocess.run(
            [
                unshare,
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                script,
                "sh",
                sys.executable,
                *argv,
            ],
            env=env,
            check=False,
        ).returncode
    finally:
        shutil.rmtree(scratch)


def _start(python: str, code: str) -> float:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "SSLCUSTOMIZE"))}
    start = time.perf_counter()
    subprocess.run([python, "-c", code], env=env, check=True)
    return (time.perf_counter() - start) * 1000


def _cli(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "sslcustomize", *args], check=True, capture_output=True)


def _stdlib(python: str) -> str:
    return probe(python).stdlib


def measure(python: str, rounds: int, runs: int) -> dict[str, float]:
    """Return median start times (ms) and median paired deltas against no hook.

    After one ``enable``, each pair of runs starts the interpreter once without the hook (its
    ``sitecustomize.py`` moved aside) and once with it, so that the machine's drift (this
    machine is shared) hits both alike.
    """
    _cli("enable", "--scope", "system")
    hook = os.path.join(_stdlib(python), "sitecustomize.py")
    aside = hook + ".bench"
    cases = {
        "pass, hook, no policy": ("pass", False),
        "pass, hook and policy": ("pass", True),
        "import ssl, hook and policy (no context yet)": ("import ssl", True),
    }
    times: dict[str, list[float]] = {}
    deltas: dict[str, list[float]] = {}
    try:
        for _ in range(rounds):
            for label, (code, policy) in cases.items():
                if not policy:
                    os.rename(POLICY, POLICY + ".bench")
                try:
                    for _ in range(runs):
                        os.rename(hook, aside)
                        without = _start(python, code)
                        os.rename(aside, hook)
                        with_hook = _start(python, code)
                        times.setdefault(label, []).append(with_hook)
                        times.setdefault(f"{code}, no hook", []).append(without)
                        deltas.setdefault(label, []).append(with_hook - without)
                finally:
                    if not policy:
                        os.rename(POLICY + ".bench", POLICY)
    finally:
        if os.path.exists(aside):
            os.rename(aside, hook)
        _cli("disable", "--scope", "system")
    figures = {f"{k} (ms)": statistics.median(v) for k, v in times.items()}
    figures.update({f"{k}: delta (ms)": statistics.median(v) for k, v in deltas.items()})
    return figures


def main(argv: list[str] | None = None) -> int:
    """Measure and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--json", help="also write the figures to this file")
    args = parser.parse_args(argv)
    if os.environ.get(MARK) != "1":
        return _reexec([__file__, *(argv if argv is not None else sys.argv[1:])])
    python = os.path.join(sys.base_prefix, "bin", "python3")
    figures = measure(python, args.rounds, args.runs)
    print(f"interpreter: {python} (base, no sslcustomize of its own)")
    print(f"rounds {args.rounds} x {args.runs} pairs per case; medians")
    for key, value in figures.items():
        print(f"{key:60} {value:7.2f}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as file:
            json.dump({"version": 1, "figures": figures}, file, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
