"""The target a hook states: seen only by its own thread or task, and only under its own name."""

from __future__ import annotations

import asyncio
import socket
import threading
from collections.abc import Iterator

import pytest

from sslcustomize._connection import _target
from sslcustomize._connection._target import Target

NAS = Target(host="nas.example", port=8443, proxy=("127.0.0.1", 3128))


@pytest.fixture
def pair() -> Iterator[tuple[socket.socket, socket.socket]]:
    """Two connected sockets (no server: a socket pair)."""
    left, right = socket.socketpair()
    with left, right:
        yield left, right


def test_a_stated_target_is_the_connections(pair: tuple[socket.socket, socket.socket]) -> None:
    """Stated: a connection named for the target gets it (names compared as DNS does)."""
    token = _target.state(NAS)
    try:
        assert _target.socket_target(pair[0], "nas.example") == NAS
        assert _target.socket_target(pair[0], "NAS.example.") == NAS
        assert _target.transport_target(b"nas.example") == NAS
        assert _target.transport_target(None) == NAS
    finally:
        _target.unstate(token)
    assert _target.stated() is None


def test_a_stated_target_does_not_lend_its_port_to_another_name(
    pair: tuple[socket.socket, socket.socket],
) -> None:
    """The twin: a connection named otherwise inside the statement gets no port at all."""
    token = _target.state(NAS)
    try:
        assert _target.socket_target(pair[0], "other.example") == Target(
            host="other.example", port=None
        )
        assert _target.transport_target("other.example").port is None
    finally:
        _target.unstate(token)


def test_the_innermost_statement_wins() -> None:
    """A proxy's own TLS connection inside a tunnel's statement is told the proxy's target."""
    proxy = Target(host="proxy.example", port=3128)
    outer = _target.state(NAS)
    inner = _target.state(proxy)
    assert _target.stated() == proxy
    _target.unstate(inner)
    assert _target.stated() == NAS
    _target.unstate(outer)


def test_a_statement_is_its_threads_and_its_tasks() -> None:
    """Another thread, or a task started before the statement, does not see it."""
    seen: list[Target | None] = []
    token = _target.state(NAS)
    try:
        thread = threading.Thread(target=lambda: seen.append(_target.stated()))
        thread.start()
        thread.join()
    finally:
        _target.unstate(token)
    assert seen == [None]

    async def main() -> list[Target | None]:
        started = asyncio.Event()
        stated = asyncio.Event()

        async def other() -> Target | None:
            started.set()
            await stated.wait()
            return _target.stated()

        task = asyncio.ensure_future(other())
        await started.wait()
        token = _target.state(NAS)
        try:
            stated.set()
            return [await task, _target.stated()]
        finally:
            _target.unstate(token)

    assert asyncio.run(main()) == [None, NAS]


def test_a_proxied_socket_is_remembered_once(pair: tuple[socket.socket, socket.socket]) -> None:
    """python-socks' socket: its destination is asked once, then forgotten."""
    _target.proxied(pair[0], NAS)
    assert _target.socket_target(pair[0], "nas.example") == NAS
    assert _target.proxied_target(pair[0]) is None
    # Not remembered: the socket's own peer (a socket pair has no port).
    assert _target.socket_target(pair[0], "nas.example") == Target(host="nas.example", port=None)


def test_proxied_sockets_never_asked_are_forgotten_beyond_a_limit() -> None:
    """A program that never wraps its proxied sockets does not grow the registry."""
    pairs = [socket.socketpair() for _ in range(4)]
    try:
        limit = _target._PROXIED_LIMIT
        for left, _ in pairs:
            _target.proxied(left, NAS)
        assert _target.proxied_target(pairs[0][0]) == NAS
        for number in range(limit + 1):
            _target._proxied[(-1 - number, "", "")] = NAS
        _target.proxied(pairs[1][0], NAS)
        assert len(_target._proxied) == limit
        assert _target.proxied_target(pairs[2][0]) is None  # the oldest went first
        assert _target.proxied_target(pairs[1][0]) == NAS
    finally:
        _target._proxied.clear()
        for left, right in pairs:
            left.close()
            right.close()


def test_an_unconnected_socket_is_neither_remembered_nor_found() -> None:
    """A socket with no peer has no key: nothing is remembered, its target has no port."""
    with socket.socket() as sock:
        _target.proxied(sock, NAS)
        assert _target.proxied_target(sock) is None
        assert _target.port_of(sock) is None
    assert _target.address_port(("127.0.0.1", 443)) == 443
    assert _target.address_port("/run/socket") is None
