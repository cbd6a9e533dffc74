"""Every lock of the package is renewed in a forked child: a child forked while another thread
holds one goes on (issue 25, "one lock idiom").

Each test holds a lock in a thread of this process, forks, and has the child do what needs that
lock; the parent waits for the child with a deadline, so a deadlock fails the test instead of
hanging the suite. The twin holds a plain lock the same way and sees the child hang.
"""

from __future__ import annotations

import _thread
import json
import os
import signal
import threading
import time
import warnings
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
import trustme

from sslcustomize._policy._model import TrustSource
from sslcustomize._report._records import Record, open_sink
from sslcustomize._support import _locks, _once
from sslcustomize._trust import _anchors as _trust
from sslcustomize._trust import _environment as _envtrust

pytestmark = pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork()")

_CHILD_DEADLINE = 20.0


@contextmanager
def _held_by_a_thread(lock: _locks.ForkSafeLock | _thread.LockType) -> Iterator[None]:
    """Hold ``lock`` in another thread for the duration of the block."""
    taken, done = threading.Event(), threading.Event()

    def hold() -> None:
        with lock:
            taken.set()
            done.wait(60)

    thread = threading.Thread(target=hold)
    thread.start()
    assert taken.wait(10)
    try:
        yield
    finally:
        done.set()
        thread.join()


def _fork(child: Callable[[], bool], deadline: float = _CHILD_DEADLINE) -> str:
    """Run ``child`` in a forked child; say ``ok``, ``failed`` or ``hung`` (killed at deadline)."""
    with warnings.catch_warnings():
        # 3.12+: "This process is multi-threaded, use of fork() may lead to deadlocks": the
        # very situation under test.
        warnings.simplefilter("ignore", DeprecationWarning)
        pid = os.fork()
    if pid == 0:  # pragma: no cover - the child's coverage is not collected
        try:
            os._exit(0 if child() else 1)
        except BaseException:  # noqa: BLE001 - any failure is the child's exit status
            os._exit(2)
    end = time.monotonic() + deadline
    while time.monotonic() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "ok" if os.waitstatus_to_exitcode(status) == 0 else "failed"
        time.sleep(0.02)
    os.kill(pid, signal.SIGKILL)
    os.waitpid(pid, 0)
    return "hung"


def _bundle(tmp_path: Path) -> tuple[TrustSource, ...]:
    bundle = tmp_path / "bundle.pem"
    bundle.write_bytes(trustme.CA().cert_pem.bytes())
    return (TrustSource(kind="file", path=str(bundle)),)


def test_fork_while_a_thread_resolves_trust(tmp_path: Path) -> None:
    """A runtime's trust cache, locked by another thread at fork(), resolves in the child."""
    cache = _trust.TrustCache()
    sources = _bundle(tmp_path)
    with _held_by_a_thread(cache._lock):
        outcome = _fork(lambda: cache.anchors_for(sources) != _trust.Anchors())
    assert outcome == "ok"


def test_fork_while_a_thread_writes_a_record(tmp_path: Path) -> None:
    """A report sink, locked by another thread at fork(), takes the child's record."""
    path = tmp_path / "records.jsonl"
    sink = open_sink("jsonl", str(path))
    record = Record(
        time="2026-12-06T01:00:00+00:00", pid=1, program="prog", context="smtplib",
        host="nas.example", port=465, mode="report", verdict="rejected", reasons=("self_signed",),
    )  # fmt: skip

    def child() -> bool:
        sink.write(record)
        sink.close()
        return True

    with _held_by_a_thread(sink._lock):
        outcome = _fork(child)
    assert outcome == "ok"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert [json.loads(line)["host"] for line in lines] == ["nas.example"]


def test_fork_while_a_thread_announces_a_variable() -> None:
    """The once-per-process notice of a CA variable, locked at fork(), works in the child."""
    with _held_by_a_thread(_once._lock):
        outcome = _fork(lambda: _envtrust.first_notice("SSLCUSTOMIZE_TEST_VARIABLE"))
    assert outcome == "ok"


def test_a_plain_lock_held_at_fork_hangs_the_child() -> None:
    """The twin: a plain lock held by another thread at fork() stays held in the child."""
    plain = _thread.allocate_lock()
    with _held_by_a_thread(plain):
        outcome = _fork(plain.acquire, deadline=1.0)
    assert outcome == "hung"
