"""Benchmark ``sslcustomize scan`` against a bare asyncio loop of verifying handshakes.

    python bench/scan.py [--targets N] [--rounds R]

A loopback TLS server (its own process, a throwaway trustme CA) answers handshakes. Measured in
this run, in interleaved rounds (median of per-round ratios): the throughput of ``scan --json``
over N targets (all the same server) against an asyncio loop doing N verifying handshakes with
the same concurrency (16, scan's default). Goal: scan >= 0.8x the bare loop.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import io
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trustme

SERVER = r"""
import asyncio, ssl, sys
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1])
async def handle(reader, writer):
    try:
        await reader.read(1)
    except Exception:
        pass
    writer.close()
async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0, ssl=context, backlog=512)
    print(server.sockets[0].getsockname()[1], flush=True)
    await server.serve_forever()
asyncio.run(main())
"""

JOBS = 16


async def _bare_loop(port: int, count: int, context: ssl.SSLContext) -> None:
    limit = asyncio.Semaphore(JOBS)

    async def one() -> None:
        async with limit:
            _, writer = await asyncio.open_connection(
                "localhost", port, ssl=context, server_hostname="localhost"
            )
            writer.close()
            with contextlib.suppress(OSError, ssl.SSLError):
                await writer.wait_closed()

    await asyncio.gather(*(one() for _ in range(count)))


def _scan(listing: Path) -> None:
    from sslcustomize._cli import main
    from sslcustomize._runtime import _state

    _state.set_policy(None)
    with contextlib.redirect_stdout(io.StringIO()):
        code = main(["scan", "--json", "--jobs", str(JOBS), str(listing)])
    if code != 0:
        raise SystemExit(f"scan did not verify every target (exit {code})")


def main(argv: list[str] | None = None) -> int:
    """Run the benchmark and print the figures."""
    parser = argparse.ArgumentParser()
    parser.add_argument("--targets", type=int, default=500)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    ca = trustme.CA()
    leaf = ca.issue_cert("localhost")
    with tempfile.TemporaryDirectory() as work_dir:
        work = Path(work_dir)
        chain = work / "server.pem"
        leaf.private_key_and_cert_chain_pem.write_to_path(str(chain))
        ca_file = work / "ca.pem"
        ca.cert_pem.write_to_path(str(ca_file))
        policy = work / "policy.toml"
        policy.write_text(f"version = 1\ntrust = ['{ca_file}']\n")
        os.environ["SSLCUSTOMIZE_POLICY"] = str(policy)
        server = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(chain)], stdout=subprocess.PIPE, text=True
        )
        try:
            assert server.stdout is not None
            port = int(server.stdout.readline())
            listing = work / "targets.txt"
            listing.write_text(f"localhost:{port}\n" * args.targets)
            context = ssl.create_default_context(cafile=str(ca_file))
            ratios, bare_rates, scan_rates = [], [], []
            for _ in range(args.rounds):
                start = time.perf_counter()
                asyncio.run(_bare_loop(port, args.targets, context))
                bare = args.targets / (time.perf_counter() - start)
                start = time.perf_counter()
                _scan(listing)
                scanned = args.targets / (time.perf_counter() - start)
                bare_rates.append(bare)
                scan_rates.append(scanned)
                ratios.append(scanned / bare)
        finally:
            server.terminate()
            server.wait()
    print(f"bare asyncio loop: {statistics.median(bare_rates):.0f} handshakes/s")
    print(f"sslcustomize scan: {statistics.median(scan_rates):.0f} targets/s")
    ratio = statistics.median(ratios)
    print(f"scan / bare loop: {ratio:.2f}x (goal >= 0.8x)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
