"""Benchmarks of scoped exceptions and report mode, each against a baseline of the same run.

    python bench/exceptions.py [--quick]

1. Exception lookup: ``decide()`` for a host with 10,000 exceptions in the policy (names,
   wildcards, CIDR networks), uncached, against the same call with no exceptions at all.
   Goal: <= 5 us per lookup.
2. Report mode per connection: HTTPS requests (a new TLS connection each) to a server in
   another process, in report mode on a certificate enforce mode would reject (each
   connection replayed and verified offline, and recorded) against enforce mode on a good
   certificate. CPU time of this process and wall time. Goals: <= 1.15x CPU, <= 1.05x wall.
   Also shown: report mode with the verdict cache cleared before every connection.
   Both use the context smtplib & co. get (``ssl._create_stdlib_context()``): report mode's
   floor is Python's own verdict, so a client Python verifies (http.client's default) is
   refused the bad certificate in report mode too, and only a client Python leaves
   unverified shows what report mode costs.
3. A pinned host: HTTPS requests to a self-signed server whose key the policy pins, after
   the first connection, against a hand-cached context that trusts that certificate.
   Goal: <= 1.10x wall.

Needs the test extra (trustme). Prints figures; always exits 0.
"""

from __future__ import annotations

import argparse
import datetime as dt
import http.client
import os
import ssl
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import trustme

import sslcustomize
from sslcustomize._decision._decide import decide, find_exception
from sslcustomize._policy._load import merge_layers
from sslcustomize._runtime import _state
from sslcustomize._trust._checked_policy import parse_policy

SERVER = r"""
import http.server, ssl, sys
class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        self.send_response(200); self.send_header("Content-Length", "2"); self.end_headers()
        self.wfile.write(b"ok")
    def log_message(self, *args): pass
server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
context.load_cert_chain(sys.argv[1])
server.socket = context.wrap_socket(server.socket, server_side=True)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def _policy_with(count: int) -> str:
    lines = ["version = 1"]
    for index in range(count):
        kind = index % 3
        host = (
            f"host{index}.corp.example"
            if kind == 0
            else f"*.zone{index}.corp.example"
            if kind == 1
            else f"10.{index // 256 % 256}.{index % 256}.0/24"
        )
        lines.append(f"[[exception]]\nhost = '{host}'\nmode = 'report'\nreason = 'bench'")
    return "\n".join(lines) + "\n"


def bench_lookup(rounds: int) -> None:
    today = dt.date(2026, 12, 3)
    big = merge_layers([parse_policy(_policy_with(10_000), path="big.toml", layer="user")])
    empty = merge_layers([parse_policy("version = 1\n", path="empty.toml", layer="user")])
    hosts = ["host9999.corp.example", "a.zone10.corp.example", "10.1.2.3", "miss.example"]

    def per_call(call: object, policy: object) -> float:
        samples = []
        for _ in range(5):
            start = time.perf_counter()
            for _ in range(rounds):
                for host in hosts:
                    call(policy, host)  # type: ignore[operator]
            samples.append((time.perf_counter() - start) / (rounds * len(hosts)))
        return statistics.median(samples) * 1e6

    def lookup(policy: object, host: str) -> object:
        return find_exception(policy, host, 443, today)  # type: ignore[arg-type]

    def whole(policy: object, host: str) -> object:
        return decide(policy, host=host, port=443, context="bench", today=today)  # type: ignore[arg-type]

    found, base = per_call(lookup, big), per_call(lookup, empty)
    verdict = "PASS" if found <= 5 else "MISS"
    print(
        f"exception lookup, 10,000 exceptions: {found:.2f} us per lookup, uncached "
        f"(no exceptions: {base:.2f} us); goal <= 5 us: {verdict}"
    )
    print(
        f"  whole decision (lookup + rule + result): {per_call(whole, big):.2f} us "
        f"(no exceptions: {per_call(whole, empty):.2f} us)"
    )


def _requests(
    host: str, port: int, count: int, *, clear: bool = False, context: ssl.SSLContext | None = None
) -> tuple[float, float]:
    cpu, wall = time.process_time(), time.perf_counter()
    for _ in range(count):
        if clear:
            _state.current_runtime()._verdict.cache_clear()
        connection = http.client.HTTPSConnection(host, port, timeout=10, context=context)
        connection.request("GET", "/")
        connection.getresponse().read()
        connection.close()
    return time.process_time() - cpu, time.perf_counter() - wall


def bench_report_mode(count: int, rounds: int) -> None:
    directory = Path(tempfile.mkdtemp(prefix="sslcustomize-bench-"))
    os.environ["XDG_CACHE_HOME"] = str(directory / "cache")
    ca = trustme.CA()
    bad_ca = trustme.CA()  # unknown to the policy: report mode's failure, the pin's server
    good, bad = ca.issue_cert("localhost"), bad_ca.issue_cert("localhost")
    servers, ports = [], []
    for leaf, name in ((good, "good.pem"), (bad, "bad.pem")):
        leaf.private_key_and_cert_chain_pem.write_to_path(str(directory / name))
        process = subprocess.Popen(
            [sys.executable, "-c", SERVER, str(directory / name)], stdout=subprocess.PIPE, text=True
        )
        servers.append(process)
        ports.append(int(process.stdout.readline()))  # type: ignore[union-attr]
    ca.cert_pem.write_to_path(str(directory / "ca.pem"))
    enforce = directory / "enforce.toml"
    enforce.write_text(f"trust = ['{directory / 'ca.pem'}']\n")
    report = directory / "report.toml"
    report.write_text(
        f"mode = 'report'\ntrust = ['{directory / 'ca.pem'}']\n"
        f"[report]\nsink = 'jsonl'\npath = '{directory / 'r.jsonl'}'\n"
    )
    warnings.simplefilter("ignore", sslcustomize.UnverifiedConnectionWarning)
    pinned = directory / "pinned.toml"
    pinned.write_text(
        f"[[exception]]\nhost = 'localhost:{ports[1]}'\npin = ['{_pin(bad)}']\nreason = 'bench'\n"
    )
    bad_ca.cert_pem.write_to_path(str(directory / "bad-ca.pem"))
    by_hand = ssl.create_default_context(cafile=str(directory / "bad-ca.pem"))
    results: dict[str, list[tuple[float, float]]] = {
        "enforce": [],
        "report": [],
        "uncached": [],
        "pinned": [],
        "by_hand": [],
    }
    try:
        for _ in range(rounds):  # interleaved rounds cancel drift
            sslcustomize.inject(enforce)
            stdlib = ssl._create_stdlib_context()  # what smtplib gets: a policy context
            _requests("localhost", ports[0], 5, context=stdlib)
            results["enforce"].append(_requests("localhost", ports[0], count, context=stdlib))
            sslcustomize.inject(report)
            stdlib = ssl._create_stdlib_context()  # unverified by Python: report mode applies
            _requests("localhost", ports[1], 5, context=stdlib)
            results["report"].append(_requests("localhost", ports[1], count, context=stdlib))
            results["uncached"].append(
                _requests("localhost", ports[1], count, clear=True, context=stdlib)
            )
            sslcustomize.inject(pinned)
            _requests("localhost", ports[1], 5)
            results["pinned"].append(_requests("localhost", ports[1], count))
            sslcustomize.extract()
            _state.set_policy(None)
            results["by_hand"].append(_requests("localhost", ports[1], count, context=by_hand))
    finally:
        sslcustomize.extract()
        _state.set_policy(None)
        for process in servers:
            process.terminate()
            process.wait()

    def median(name: str, index: int) -> float:
        return statistics.median(r[index] for r in results[name]) / count * 1000

    for label, name in (("report mode", "report"), ("report, verdict cache off", "uncached")):
        cpu = median(name, 0) / median("enforce", 0)
        wall = median(name, 1) / median("enforce", 1)
        verdict = "PASS" if cpu <= 1.15 and wall <= 1.05 else "MISS"
        print(
            f"{label}: {median(name, 0):.2f} ms CPU, {median(name, 1):.2f} ms wall per request "
            f"vs enforce {median('enforce', 0):.2f} / {median('enforce', 1):.2f} ms: "
            f"{cpu:.2f}x CPU, {wall:.2f}x wall; goal <= 1.15x CPU, <= 1.05x wall: {verdict}"
        )
    wall = median("pinned", 1) / median("by_hand", 1)
    print(
        f"pinned host: {median('pinned', 1):.2f} ms wall per request vs a hand-cached context "
        f"{median('by_hand', 1):.2f} ms: {wall:.2f}x; goal <= 1.10x: "
        f"{'PASS' if wall <= 1.10 else 'MISS'}"
    )


def _pin(leaf: trustme.LeafCert) -> str:
    from sslcustomize._x509._der import spki_pin

    return spki_pin(ssl.PEM_cert_to_DER_cert(leaf.cert_chain_pems[0].bytes().decode()))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds (about 5 s)")
    args = parser.parse_args()
    bench_lookup(200 if args.quick else 2000)
    bench_report_mode(40 if args.quick else 200, 3 if args.quick else 5)


if __name__ == "__main__":
    main()
