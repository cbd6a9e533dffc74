"""No blocking file I/O in an event loop's thread, and aiohttp keeps its own contexts (issue 31 #6).

The trust sources' periodic check (one ``stat`` per file) ran inside the event loop that made
the connection: aiohttp's test suite (blockbuster) failed on it, and aiohttp builds its
contexts at import precisely to keep file I/O out of the loop. The check due in a loop's thread
is now made by a worker thread. Each test counts the ``stat`` calls made in a thread that runs
an event loop; the twin shows that the check still happens and a removed CA stops being
trusted.
"""

from __future__ import annotations

import asyncio
import os
import ssl
import threading
from typing import TYPE_CHECKING, Any

import aiohttp
import aiohttp.connector
import pytest
import trustme

import _pki
import sslcustomize
from _fixtures import ManualClock, WritePolicy, memory_handshake, use_clock
from sslcustomize._connection._contexts import PolicyContext
from sslcustomize._runtime._state import current_runtime
from sslcustomize._trust import _anchors as _trust

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from conftest import StartServer

# Long enough for a worker thread's stat on a loaded machine; the tests wait for an outcome,
# they do not time anything.
WAIT_SECONDS = 30.0


@pytest.fixture
def clock() -> ManualClock:
    """The trust sources' clock, moved by hand (the tests give it to their runtime)."""
    return ManualClock()


@pytest.fixture
def stats(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """Record each ``os.stat``: (thread name, whether that thread runs an event loop)."""
    calls: list[tuple[str, bool]] = []
    original = os.stat

    def stat(*args: Any, **kwargs: Any) -> os.stat_result:
        in_loop = asyncio._get_running_loop() is not None
        calls.append((threading.current_thread().name, in_loop))
        return original(*args, **kwargs)

    monkeypatch.setattr(os, "stat", stat)
    return calls


def _server(ca: trustme.CA) -> ssl.SSLContext:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("localhost").configure_cert(context)
    return context


def _accepts(context: ssl.SSLContext, ca: trustme.CA) -> bool:
    try:
        memory_handshake(context, _server(ca), "localhost")
    except ssl.SSLCertVerificationError:
        return False
    return True


async def _until(condition: Callable[[], bool]) -> None:
    """Yield to the loop until ``condition()`` holds (a worker thread is doing the work)."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + WAIT_SECONDS
    while not condition():
        assert loop.time() < deadline, "the trust check never finished"
        await asyncio.sleep(0.01)


def test_a_check_due_in_an_event_loop_is_made_off_its_thread(
    tmp_path: Path,
    clock: ManualClock,
    stats: list[tuple[str, bool]],
    write_policy: WritePolicy,
) -> None:
    """No stat in the loop's thread; a worker's check still makes a removed CA untrusted."""
    kept, removed = trustme.CA(), trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(kept.cert_pem.bytes() + removed.cert_pem.bytes())
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    assert _accepts(ssl.create_default_context(), removed)
    runtime = current_runtime()
    before = runtime.generation()
    bundle.write_bytes(kept.cert_pem.bytes())
    clock.now += _trust.REFRESH_INTERVAL
    stats.clear()

    async def main() -> None:
        # The check is due: asking for the generation starts it, and must not stat here.
        runtime.generation()
        await _until(lambda: runtime.generation() != before)
        assert not _accepts(ssl.create_default_context(), removed)
        assert _accepts(ssl.create_default_context(), kept)

    asyncio.run(main())
    assert [name for name, in_loop in stats if in_loop] == []
    assert {name for name, _ in stats} == {"sslcustomize-trust-check"}


def test_outside_an_event_loop_the_check_is_made_in_the_callers_thread(
    tmp_path: Path,
    clock: ManualClock,
    stats: list[tuple[str, bool]],
    write_policy: WritePolicy,
) -> None:
    """The twin: with no loop running, the due check is made at once, in the calling thread."""
    kept, removed = trustme.CA(), trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(kept.cert_pem.bytes() + removed.cert_pem.bytes())
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    assert _accepts(ssl.create_default_context(), removed)
    bundle.write_bytes(kept.cert_pem.bytes())
    clock.now += _trust.REFRESH_INTERVAL
    stats.clear()
    assert not _accepts(ssl.create_default_context(), removed)
    assert stats
    assert {name for name, _ in stats} == {threading.current_thread().name}


def test_aiohttp_requests_make_no_stat_in_the_loop(
    pki: _pki.TestPKI,
    https_server: StartServer,
    clock: ManualClock,
    stats: list[tuple[str, bool]],
    write_policy: WritePolicy,
    tmp_path: Path,
) -> None:
    """aiohttp with a trust check due at each request: no stat in the loop, requests verified."""
    bundle = tmp_path / "root.pem"
    bundle.write_bytes(pki.root_pem)
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    # The clock's runtime is new: its first context reads the bundle here, outside the loop
    # (as inject() hooking aiohttp did for the runtime before it); what follows is re-checks.
    ssl.create_default_context()
    good = https_server(pki["good"], "localhost").url()
    self_signed = https_server(pki["self_signed"], "localhost").url()

    async def main() -> None:
        async with aiohttp.ClientSession() as session:
            for _ in range(3):
                clock.now += _trust.REFRESH_INTERVAL
                async with session.get(good) as response:
                    assert await response.text() == "ok"
            clock.now += _trust.REFRESH_INTERVAL
            with pytest.raises(aiohttp.ClientConnectorCertificateError):
                await session.get(self_signed)

    stats.clear()
    asyncio.run(main())
    assert [name for name, in_loop in stats if in_loop] == []


def test_aiohttp_module_contexts_are_the_policy_contexts_it_returns(
    write_policy: WritePolicy,
) -> None:
    """aiohttp's _SSL_CONTEXT_* are the contexts _get_ssl_context returns, and extract restores.

    aiohttp's own tests check that identity (``_get_ssl_context(req) is _SSL_CONTEXT_VERIFIED``).
    """
    originals = (aiohttp.connector._SSL_CONTEXT_VERIFIED, aiohttp.connector._SSL_CONTEXT_UNVERIFIED)
    assert not isinstance(originals[1], PolicyContext)  # aiohttp's own: ssl.SSLContext(...)
    sslcustomize.inject(write_policy("version = 1\n"))
    connector = aiohttp.connector
    verified, unverified = connector._SSL_CONTEXT_VERIFIED, connector._SSL_CONTEXT_UNVERIFIED
    assert isinstance(verified, PolicyContext)
    assert isinstance(unverified, PolicyContext)
    assert unverified.verify_mode == ssl.CERT_NONE  # the code's opt-out, for the policy to judge

    class Request:
        is_ssl = lambda self: True  # noqa: E731 - the two attributes _get_ssl_context reads
        ssl = True

    class Unverified(Request):
        ssl = False

    async def returned(request: object) -> object:
        tcp = aiohttp.TCPConnector()
        try:
            return tcp._get_ssl_context(request)  # type: ignore[arg-type]
        finally:
            await tcp.close()

    assert asyncio.run(returned(Request())) is connector._SSL_CONTEXT_VERIFIED
    assert asyncio.run(returned(Unverified())) is connector._SSL_CONTEXT_UNVERIFIED
    # A new policy: the module's attributes follow what the connector returns.
    sslcustomize.extract()
    assert originals == (connector._SSL_CONTEXT_VERIFIED, connector._SSL_CONTEXT_UNVERIFIED)
    sslcustomize.inject(write_policy("version = 1\nmode = 'report'\n"))
    context = asyncio.run(returned(Request()))
    assert context is connector._SSL_CONTEXT_VERIFIED
    assert context is not verified
    sslcustomize.extract()
    assert connector._SSL_CONTEXT_VERIFIED is originals[0]
    assert connector._SSL_CONTEXT_UNVERIFIED is originals[1]


def test_at_interpreter_shutdown_the_check_is_made_in_the_loops_thread(
    tmp_path: Path,
    clock: ManualClock,
    monkeypatch: pytest.MonkeyPatch,
    write_policy: WritePolicy,
) -> None:
    """Where no thread can be started any more, the due check is still made, in place."""
    kept, removed = trustme.CA(), trustme.CA()
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(kept.cert_pem.bytes() + removed.cert_pem.bytes())
    sslcustomize.inject(write_policy(f"version = 1\ntrust = ['{bundle}']\n"))
    use_clock(clock)
    assert _accepts(ssl.create_default_context(), removed)
    bundle.write_bytes(kept.cert_pem.bytes())
    clock.now += _trust.REFRESH_INTERVAL

    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't create new thread at interpreter shutdown")

    monkeypatch.setattr(threading.Thread, "start", refuse)

    async def main() -> bool:
        return _accepts(ssl.create_default_context(), removed)

    assert not asyncio.run(main())
