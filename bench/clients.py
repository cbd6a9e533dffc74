"""Benchmark third-party clients under sslcustomize against their defaults, in one run.

    python bench/clients.py [--quick]

Needs requests, httpx and aiohttp, and sslcustomize installed. A loopback HTTPS server with a
throwaway CA (trustme) answers "ok". Measured in this run, in interleaved rounds (medians of
per-round ratios):

* a request with a new ``requests.Session`` each time, and with a new ``httpx.Client`` each
  time: under sslcustomize vs today's default (certifi's bundle loaded per connection for
  requests, per client for httpx; goal <= 0.1x) and vs a hand-tuned context cached by the
  program (goal <= 1.05x);
* ``httpx.Client()`` creation under sslcustomize (goal <= 0.3 ms);
* aiohttp, 50 concurrent new connections: throughput vs default (goal >= 1.0x).

The defaults cannot verify the throwaway CA, so they are given it the way a program would
(``REQUESTS_CA_BUNDLE``-style ``verify=PATH`` for requests, ``SSL_CERT_FILE`` for httpx, which
both load a bundle exactly as the default does) with certifi's bundle appended so that the
bundle is as large as the default one.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from collections.abc import Callable
from pathlib import Path

import aiohttp
import certifi
import httpx
import requests
import trustme

import sslcustomize

# The server runs in its own process, so that its work does not compete with the clients'
# for this interpreter's GIL (which would blur every figure alike).
SERVER = r"""
import http.server, ssl, sys
class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2")
        self.send_header("Connection", "close"); self.end_headers(); self.wfile.write(b"ok")
    def log_message(self, *args): pass
class Server(http.server.ThreadingHTTPServer):
    request_queue_size = 256  # 50 concurrent connections must not overflow the backlog
    daemon_threads = True
server = Server(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1])
server.socket = context.wrap_socket(server.socket, server_side=True, do_handshake_on_connect=False)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def _server(ca: trustme.CA, work: Path) -> tuple[subprocess.Popen[str], str]:
    chain = work / "server.pem"
    ca.issue_cert("localhost").private_key_and_cert_chain_pem.write_to_path(str(chain))
    process = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(chain)], stdout=subprocess.PIPE, text=True
    )
    port = int(process.stdout.readline())  # type: ignore[union-attr]
    return process, f"https://localhost:{port}/"


def _per_call(function: Callable[[], object], number: int) -> float:
    """Seconds per call of ``function``, over ``number`` calls."""
    start = time.perf_counter()
    for _ in range(number):
        function()
    return (time.perf_counter() - start) / number


def main(argv: list[str] | None = None) -> int:  # noqa: PLR0915 - one scenario after another
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    options = parser.parse_args(argv)
    number, rounds = (10, 3) if options.quick else (20, 9)
    for variable in ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE", "SSL_CERT_FILE", "SSL_CERT_DIR"):
        os.environ.pop(variable, None)  # each would replace the anchors under test

    ca = trustme.CA()
    work = Path(tempfile.mkdtemp(prefix="sslcustomize-bench-"))
    server, url = _server(ca, work)
    root = work / "root.pem"
    ca.cert_pem.write_to_path(str(root))
    bundle = work / "bundle.pem"  # the default's size: certifi's bundle plus the test root
    bundle.write_bytes(Path(certifi.where()).read_bytes() + ca.cert_pem.bytes())
    policy = work / "policy.toml"
    policy.write_text(f"trust = ['{root}']\n[report]\nsink = 'none'\n")
    cached = ssl.create_default_context(cafile=str(root))

    def requests_default() -> None:
        with requests.Session() as session:
            session.get(url, verify=str(bundle), timeout=10)

    def requests_cached() -> None:
        with requests.Session() as session:
            adapter = _CachedAdapter(cached)
            session.mount("https://", adapter)
            session.get(url, timeout=10)

    def requests_policy() -> None:
        with requests.Session() as session:
            session.get(url, timeout=10)

    def httpx_default() -> None:
        os.environ["SSL_CERT_FILE"] = str(bundle)
        try:
            with httpx.Client() as client:
                client.get(url)
        finally:
            del os.environ["SSL_CERT_FILE"]

    def httpx_cached() -> None:
        with httpx.Client(verify=cached) as client:
            client.get(url)

    def httpx_policy() -> None:
        with httpx.Client() as client:
            client.get(url)

    async def aiohttp_burst(ssl_option: object) -> None:
        async def one() -> None:
            connector = aiohttp.TCPConnector(force_close=True)
            async with (
                aiohttp.ClientSession(connector=connector) as session,
                session.get(url, ssl=ssl_option) as response,
            ):
                await response.read()

        await asyncio.gather(*(one() for _ in range(50)))

    aiohttp_default_context = ssl.create_default_context(cafile=str(bundle))

    baselines = {
        "requests default": (requests_default, number),
        "requests cached": (requests_cached, number),
        "httpx default": (httpx_default, number),
        "httpx cached": (httpx_cached, number),
        "aiohttp default": (lambda: asyncio.run(aiohttp_burst(aiohttp_default_context)), 1),
    }
    candidates = {
        "requests policy": (requests_policy, number),
        "httpx policy": (httpx_policy, number),
        "httpx.Client() policy": (httpx.Client, number * 5),
        "aiohttp policy": (lambda: asyncio.run(aiohttp_burst(True)), 1),
    }
    # Rounds interleave baselines and candidates (injecting and extracting in between), so
    # that the machine's drift touches both alike; each ratio is the median of per-round ones.
    times: dict[str, list[float]] = {name: [] for name in (*baselines, *candidates)}
    try:
        for _ in range(rounds):
            for name, (function, count) in baselines.items():
                times[name].append(_per_call(function, count))
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                sslcustomize.inject(str(policy))
            try:
                for name, (function, count) in candidates.items():
                    times[name].append(_per_call(function, count))
            finally:
                sslcustomize.extract()
    finally:
        server.terminate()
        server.wait()
    results = {name: statistics.median(values) for name, values in times.items()}

    def paired(numerator: str, denominator: str) -> float:
        return statistics.median(
            a / b for a, b in zip(times[numerator], times[denominator], strict=True)
        )

    for name, seconds in results.items():
        print(f"{name:28} {seconds * 1e3:8.3f} ms")
    ratios = [
        ("requests: policy / default", paired("requests policy", "requests default"), "<= 0.1"),
        ("requests: policy / cached", paired("requests policy", "requests cached"), "<= 1.05"),
        ("httpx: policy / default", paired("httpx policy", "httpx default"), "<= 0.1"),
        ("httpx: policy / cached", paired("httpx policy", "httpx cached"), "<= 1.05"),
        ("aiohttp 50 conns: throughput policy / default",
         paired("aiohttp default", "aiohttp policy"), ">= 1.0"),
    ]  # fmt: skip
    print()
    for name, ratio, goal in ratios:
        print(f"{name:46} {ratio:6.3f}x  (goal {goal})")
    client_ms = results["httpx.Client() policy"] * 1e3
    print(f"{'httpx.Client() creation under the policy':46} {client_ms:6.3f} ms (goal <= 0.3 ms)")
    return 0


class _CachedAdapter(requests.adapters.HTTPAdapter):
    """What a careful program does today: one context, made once, for every pool."""

    def __init__(self, context: ssl.SSLContext) -> None:
        self._context = context
        super().__init__()

    def init_poolmanager(self, *args: object, **kwargs: object) -> None:
        kwargs["ssl_context"] = self._context
        super().init_poolmanager(*args, **kwargs)  # type: ignore[arg-type]

    def cert_verify(self, conn: object, url: str, verify: object, cert: object) -> None:
        pass  # the context already holds the anchors: do not reload a bundle per connection


if __name__ == "__main__":
    sys.exit(main())
