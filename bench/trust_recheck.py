"""What the once-a-second re-check of the trust sources costs, as a ratio of a TLS handshake.

Usage::

    python bench/trust_recheck.py [--rounds N]

A removed CA must not be trusted by contexts made a second later (issue 22 #14), so every
trust source in use (the system store's directory and bundle, each policy bundle) is
``stat``-ed at most once a second. This compares one such re-check, sources unchanged, with
the baseline of the same run: one in-memory TLS 1.3 handshake with verification (ECDSA
P-256, what a loopback connection costs in CPU without the network). Run it with the
interpreter of an environment where sslcustomize and trustme are installed.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import ssl
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import trustme

from sslcustomize._policy._model import SYSTEM_TRUST, TrustSource
from sslcustomize._trust import _anchors as _trust


def _handshake(client: ssl.SSLContext, server: ssl.SSLContext) -> None:
    c_in, c_out, s_in, s_out = (ssl.MemoryBIO() for _ in range(4))
    tls_client = client.wrap_bio(c_in, c_out, server_hostname="localhost")
    tls_server = server.wrap_bio(s_in, s_out, server_side=True)
    for _ in range(10):
        for side, out, peer in ((tls_client, c_out, s_in), (tls_server, s_out, c_in)):
            with contextlib.suppress(ssl.SSLWantReadError):
                side.do_handshake()
            data = out.read()
            if data:
                peer.write(data)
        if tls_client.version() and tls_server.version() and not c_out.pending:
            return
    raise RuntimeError("handshake did not finish")


def _median(action: Callable[[], object], rounds: int, repeat: int) -> float:
    samples = []
    for _ in range(rounds):
        start = time.perf_counter()
        for _ in range(repeat):
            action()
        samples.append((time.perf_counter() - start) / repeat)
    return statistics.median(samples)


def main() -> None:
    """Print the handshake baseline, the re-check, and their ratio."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    rounds = parser.parse_args().rounds
    ca = trustme.CA()
    server = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(server)
    client = ssl.create_default_context()
    ca.configure_trust(client)
    with tempfile.TemporaryDirectory() as name:
        bundle = Path(name) / "corp.pem"
        bundle.write_bytes(b"".join(trustme.CA().cert_pem.bytes() for _ in range(20)))
        os.utime(bundle, ns=(0, 0))  # not "just written": the unchanged path is measured
        sources = (*SYSTEM_TRUST, TrustSource(kind="file", path=str(bundle)))
        trust = _trust.TrustCache()  # a runtime's, as contexts use it
        trust.anchors_for(sources)
        handshake = _median(lambda: _handshake(client, server), rounds, 20)

        def recheck() -> None:
            trust._checked = float("-inf")
            trust.generation()

        # utime() set the bundle's ctime to now: past the racy-timestamp second, an unchanged
        # source costs its stat calls only (the first check after it reads the bundle once).
        time.sleep(1.1)
        recheck()
        checked = _median(recheck, rounds, 200)
        cached = _median(trust.generation, rounds, 2000)
        paths = len(trust._fingerprint(sources))
    print("trust re-check (sources unchanged) against one TLS handshake")
    print(f"   handshake, in memory (baseline): {handshake * 1e6:.0f} us")
    print(f"   re-check, {paths} stat calls (at most once a second): {checked * 1e6:.1f} us "
          f"({checked / handshake:.4f}x a handshake)")  # fmt: skip
    print(f"   between re-checks (a clock read): {cached * 1e9:.0f} ns "
          f"({cached / handshake:.6f}x)")  # fmt: skip


if __name__ == "__main__":
    main()
