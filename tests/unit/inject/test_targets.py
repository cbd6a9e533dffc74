"""What the target-stating hooks share: a target stated around one call, and only that call."""

from __future__ import annotations

import asyncio
import http.client
import inspect

import pytest

from sslcustomize._connection._target import Target, stated
from sslcustomize._inject._httpclient import target_of
from sslcustomize._inject._targets import stating

NAS = Target(host="nas.example", port=8443)


def test_a_sync_call_sees_its_target_and_the_caller_does_not() -> None:
    """Inside the wrapped call the target is stated; after it, even after a raise, it is gone."""
    seen: list[Target | None] = []

    def connect(fail: bool) -> None:
        seen.append(stated())
        if fail:
            raise OSError("refused")

    wrapped = stating(connect, lambda fail: NAS)
    wrapped(False)
    with pytest.raises(OSError, match="refused"):
        wrapped(True)
    assert seen == [NAS, NAS]
    assert stated() is None


def test_a_coroutine_stays_a_coroutine_and_sees_its_target() -> None:
    """A coroutine function is wrapped as one (awaitable), with the target stated inside."""

    async def connect() -> Target | None:
        await asyncio.sleep(0)
        return stated()

    wrapped = stating(connect, lambda: NAS)
    assert inspect.iscoroutinefunction(wrapped)
    assert asyncio.run(wrapped()) == NAS
    assert stated() is None


def test_none_leaves_an_outer_statement_as_it_is() -> None:
    """``target_of`` returning ``None`` keeps what an outer hook stated (the innermost wins)."""
    inner = stating(stated, lambda: None)
    outer = stating(inner, lambda: NAS)
    assert outer() == NAS
    assert inner() is None


def test_http_client_target_is_the_tunnels_end_not_the_proxy() -> None:
    """Through a CONNECT proxy the target is the tunnel's host and port; the proxy is beside it."""
    direct = http.client.HTTPSConnection("nas.example", 8443)
    assert target_of(direct) == Target(host="nas.example", port=8443)
    tunnelled = http.client.HTTPSConnection("127.0.0.1", 3128)
    tunnelled.set_tunnel("nas.example", 8443)
    assert target_of(tunnelled) == Target(
        host="nas.example", port=8443, proxy=("127.0.0.1", 3128), proxy_kind="http"
    )
