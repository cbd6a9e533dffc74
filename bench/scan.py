"""Benchmark ``sslcustomize scan`` against a bare asyncio loop doing the same handshakes.

    python bench/scan.py [--rounds R] [--good N] [--self-signed N] [--refused N] [--silent N]

Run it with the interpreter of an environment where sslcustomize and trustme are installed.
Loopback targets, all on 127.0.0.1 and served by one server process: ``--good`` TLS servers
each with its own leaf from a throwaway CA, ``--self-signed`` servers with a self-signed
leaf, ``--refused`` ports that refuse connections and ``--silent`` ports that accept and never
answer (default 300/100/50/50). Two target lists: all of them, and the good servers alone.

Each case is a fresh process, its start-up included: ``python -m sslcustomize scan --json
--timeout 0.5 --jobs 16 FILE`` under a policy trusting the system store and the CA, against a
bare asyncio loop (a fresh ``python -c``) making one verifying handshake per target, 16 at
once, 0.5 s each, with the same trust. Cases run in shuffled order in every round; the figure
is the median of the per-round ratios (scan time / bare time), shown with its range. Both
sides must reach the same counts of verified targets, or the run stops.

Goals (issue 35 #3): scan <= 1.2x the bare loop on the good servers alone, and >= 1,000
targets/s where the network allows. A benchmark reports: it exits 0 whatever the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trustme

# The servers: one process, one listener per target (each good one with its own leaf), so
# that no cache keyed by a chain can stand in for the work of a handshake.
SERVER = r"""
import asyncio, json, socket, ssl, sys
spec = json.loads(open(sys.argv[1]).read())
async def handle(reader, writer):
    try:
        await reader.read(1)
    except Exception:
        pass
    writer.close()
async def main():
    ports, silent = [], []
    for chain in spec["chains"]:
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(chain)
        server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context, backlog=512)
        ports.append(server.sockets[0].getsockname()[1])
    for _ in range(spec["silent"]):
        # Listening, never accepting: the kernel completes TCP, nobody answers the ClientHello.
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        sock.listen(512)
        silent.append(sock)
        ports.append(sock.getsockname()[1])
    print(json.dumps(ports), flush=True)
    await asyncio.Event().wait()
asyncio.run(main())
"""

# The floor: what any scanner must do, one verifying handshake per target and nothing else.
BARE = r"""
import asyncio, json, ssl, sys
listing, cafile, timeout, jobs = sys.argv[1], sys.argv[2], float(sys.argv[3]), int(sys.argv[4])
context = ssl.create_default_context()
context.load_verify_locations(cafile)
targets = [line.split() [0].rpartition(":") for line in open(listing) if line.strip()]
async def one(limit, host, port):
    async with limit:
        try:
            _, writer = await asyncio.wait_for(
                asyncio.open_connection(host, int(port), ssl=context), timeout)
        except ssl.SSLCertVerificationError:
            return "rejected"
        except (OSError, asyncio.TimeoutError):
            return "error"
        writer.close()
        return "verified"
async def main():
    limit = asyncio.Semaphore(jobs)
    return await asyncio.gather(*(one(limit, host, port) for host, _, port in targets))
verdicts = asyncio.run(main())
print(json.dumps({v: verdicts.count(v) for v in ("verified", "rejected", "error")}))
"""

JOBS = 16
TIMEOUT = 0.5


def _refusing_ports(count: int) -> tuple[list[socket.socket], list[int]]:
    """Bind ports without listening: a connection to one is refused, and none is reused."""
    held = []
    for _ in range(count):
        sock = socket.socket()
        sock.bind(("127.0.0.1", 0))
        held.append(sock)
    return held, [sock.getsockname()[1] for sock in held]


def _run(command: list[str], env: dict[str, str]) -> tuple[float, float, str]:
    """Run one case in a fresh process; return wall seconds, CPU seconds and its output."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(command, env=env, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode not in (0, 1):
        raise SystemExit(f"{command[1:4]} failed ({done.returncode}): {done.stderr[-2000:]}")
    return elapsed, cpu, done.stdout


def _counts(kind: str, output: str) -> dict[str, int]:
    document = json.loads(output)
    if kind == "scan":
        summary = document["summary"]
        return {key: summary[key] for key in ("verified", "rejected", "error")}
    return {key: int(value) for key, value in document.items()}


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0915 - one scenario after another
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--good", type=int, default=300)
    parser.add_argument("--self-signed", type=int, default=100)
    parser.add_argument("--refused", type=int, default=50)
    parser.add_argument("--silent", type=int, default=50)
    args = parser.parse_args(argv)

    ca = trustme.CA()
    work = Path(tempfile.mkdtemp(prefix="sslcustomize-scan-bench-"))
    chains = []
    for index in range(args.good + args.self_signed):
        path = work / f"server-{index}.pem"
        if index < args.good:
            ca.issue_cert("127.0.0.1").private_key_and_cert_chain_pem.write_to_path(str(path))
        else:  # self-signed: a certificate that is its own issuer, which nothing trusts
            own = trustme.CA()
            path.write_bytes(own.private_key_pem.bytes() + own.cert_pem.bytes())
        chains.append(str(path))
    ca_file = work / "ca.pem"
    ca.cert_pem.write_to_path(str(ca_file))
    spec = work / "servers.json"
    spec.write_text(json.dumps({"chains": chains, "silent": args.silent}))
    policy = work / "policy.toml"
    policy.write_text(f"version = 1\ntrust = ['system', '{ca_file}']\n")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SSLCUSTOMIZE_")}
    for name in ("config", "cache", "state"):
        (work / name).mkdir()
        env[f"XDG_{name.upper()}_HOME"] = str(work / name)
    env["SSLCUSTOMIZE_POLICY"] = str(policy)

    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(spec)],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    held, refused = _refusing_ports(args.refused)
    try:
        assert server.stdout is not None
        ports = json.loads(server.stdout.readline())
        good = ports[: args.good]
        mixed = ports[: args.good + args.self_signed] + refused + ports[len(chains) :]
        random.Random(1).shuffle(mixed)  # ordering, not security
        lists = {"good": good, "mixed": mixed}
        files = {}
        for label, chosen in lists.items():
            files[label] = work / f"{label}.txt"
            files[label].write_text("".join(f"127.0.0.1:{port}\n" for port in chosen))
        cases = {
            (kind, label): (
                [sys.executable, "-c", BARE, str(files[label]), str(ca_file), str(TIMEOUT),
                 str(JOBS)]
                if kind == "bare"
                else [
                    sys.executable, "-m", "sslcustomize", "scan", "--json", "--timeout",
                    str(TIMEOUT), "--jobs", str(JOBS), str(files[label]),
                ]
            )
            for kind in ("bare", "scan")
            for label in lists
        }  # fmt: skip
        expected: dict[str, dict[str, int]] = {}
        for (kind, label), command in cases.items():  # warm up; the verdicts must agree
            counts = _counts(kind, _run(command, env)[2])
            verified = expected.setdefault(label, counts)["verified"]
            if counts["verified"] != verified or verified != args.good:
                raise SystemExit(f"{kind} on {label}: {counts}, expected {args.good} verified")
            print(f"{kind:4} {label:5}: {counts}")
        wall: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
        cpu: dict[tuple[str, str], list[float]] = {case: [] for case in cases}
        order = list(cases)
        shuffle = random.Random(2)  # ordering, not security
        for _ in range(args.rounds):
            shuffle.shuffle(order)
            for case in order:
                elapsed, used, _ = _run(cases[case], env)
                wall[case].append(elapsed)
                cpu[case].append(used)
    finally:
        server.terminate()
        server.wait()
        for sock in held:
            sock.close()

    print(f"\n{args.rounds} rounds, medians (range over rounds); start-up counted")
    for label, chosen in lists.items():
        ratios = [s / b for s, b in zip(wall["scan", label], wall["bare", label], strict=True)]
        cpu_ratios = [s / b for s, b in zip(cpu["scan", label], cpu["bare", label], strict=True)]
        bare_s = statistics.median(wall["bare", label])
        scan_s = statistics.median(wall["scan", label])
        print(
            f"{label:5} ({len(chosen)} targets): bare {bare_s:.3f} s ({len(chosen) / bare_s:.0f}/s)"
            f", scan {scan_s:.3f} s ({len(chosen) / scan_s:.0f}/s); scan / bare "
            f"{statistics.median(ratios):.2f}x ({min(ratios):.2f}-{max(ratios):.2f}), "
            f"cpu {statistics.median(cpu_ratios):.2f}x"
        )
    print("goal: scan / bare <= 1.2x on the good servers alone")
    return 0


if __name__ == "__main__":
    sys.exit(main())
