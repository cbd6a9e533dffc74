"""check, trust and scan behind a proxy: CONNECT and SOCKS5, tunnelling and intercepting.

The intercepting proxy plays a corporate TLS-inspection proxy (its own CA, a certificate per
host); its twin tunnels to the real server. Each test asserts the proxy was asked for the
target, so that a direct connection cannot pass for a proxied one.
"""

from __future__ import annotations

import contextlib
import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest
import trustme

import _pki
from _proxy import LoopbackProxy, serve_proxy
from sslcustomize._cli import main
from sslcustomize._diagnosis._probe import Target, parse_proxy, proxy_for
from sslcustomize._runtime import _state

if TYPE_CHECKING:
    from conftest import StartServer


@pytest.fixture
def trust_root(pki: _pki.TestPKI, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A user policy trusting the system store and the test root (the real servers' CA)."""
    root = tmp_path / "root.pem"
    root.write_bytes(pki.root_pem)
    path = Path(os.environ["XDG_CONFIG_HOME"]) / "sslcustomize" / "policy.toml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f"version = 1\ntrust = ['system', '{root}']\n")
    return path


@pytest.fixture
def tunnel() -> Iterator[LoopbackProxy]:
    """A proxy that tunnels to the server asked for."""
    with serve_proxy() as proxy:
        yield proxy


@pytest.fixture
def inspection_ca() -> trustme.CA:
    """The CA of the TLS-inspection proxy."""
    return trustme.CA(organization_name="Corp TLS Inspection")


@pytest.fixture
def interceptor(inspection_ca: trustme.CA) -> Iterator[LoopbackProxy]:
    """A proxy that intercepts TLS with its own CA."""
    with serve_proxy(intercept=inspection_ca) as proxy:
        yield proxy


def _check(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    _state.set_policy(None)
    code = main(["check", "--json", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_check_through_a_tunnelling_proxy(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, tunnel: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """--proxy http://...: the server's own chain comes through and verifies."""
    _, port = https_server(pki["good"], "localhost")
    code, document = _check(capsys, "--proxy", tunnel.url, f"localhost:{port}")
    assert (code, document["verdict"]) == (0, "verified")
    assert document["proxy"] == tunnel.url
    assert document["interception"] is None
    assert tunnel.requests == [f"CONNECT localhost:{port}"]


def test_check_through_a_socks5_proxy(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, tunnel: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """socks5h:// (the proxy resolves) and socks5:// (resolved here) both tunnel."""
    _, port = https_server(pki["good"], "localhost")
    assert _check(capsys, "--proxy", tunnel.socks_url, f"localhost:{port}")[0] == 0
    socks5 = tunnel.socks_url.replace("socks5h", "socks5")
    assert _check(capsys, "--proxy", socks5, f"localhost:{port}")[0] == 0
    # socks5:// asks for each address of the name in turn: ::1 first where /etc/hosts lists
    # it (Debian's), which the proxy cannot reach (the server is on 127.0.0.1 only).
    first, *others, last = tunnel.requests
    assert (first, last) == (f"SOCKS localhost:{port}", f"SOCKS 127.0.0.1:{port}")
    assert set(others) <= {f"SOCKS ::1:{port}"}


def _localhost_v6_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """Resolve ``localhost`` as Debian's /etc/hosts does: ``::1``, then ``127.0.0.1``."""
    real = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "localhost":
            return real(host, port, *args, **kwargs)
        return [*real("::1", port, *args, **kwargs), *real("127.0.0.1", port, *args, **kwargs)]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def test_socks5_tries_every_address_of_the_name(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, tunnel: LoopbackProxy,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """socks5://localhost resolving to ::1 first (Debian): the proxy is asked for 127.0.0.1 next."""
    _, port = https_server(pki["good"], "127.0.0.1")
    _localhost_v6_first(monkeypatch)
    socks5 = tunnel.socks_url.replace("socks5h", "socks5")
    code, document = _check(capsys, "--proxy", socks5, f"localhost:{port}")
    assert (code, document["verdict"]) == (0, "verified")
    assert tunnel.requests == [f"SOCKS ::1:{port}", f"SOCKS 127.0.0.1:{port}"]


def test_socks5_says_why_when_no_address_of_the_name_is_reached(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path,
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
) -> None:  # fmt: skip
    """Twin: a proxy that refuses every address: each is asked for once, then the refusal."""
    _, port = https_server(pki["good"], "127.0.0.1")
    _localhost_v6_first(monkeypatch)
    with serve_proxy(refuse=True) as refusing:
        socks5 = refusing.socks_url.replace("socks5h", "socks5")
        code, document = _check(capsys, "--proxy", socks5, f"localhost:{port}")
    assert code != 0
    assert "could not connect to localhost" in json.dumps(document)
    assert refusing.requests == [f"SOCKS ::1:{port}", f"SOCKS 127.0.0.1:{port}"]


def test_https_proxy_and_no_proxy_are_honoured(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, tunnel: LoopbackProxy,
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """HTTPS_PROXY is used; NO_PROXY naming the host, or --proxy '', goes direct."""
    _, port = https_server(pki["good"], "localhost")
    monkeypatch.setenv("HTTPS_PROXY", tunnel.url)
    assert _check(capsys, f"localhost:{port}")[1]["proxy"] == tunnel.url
    assert _check(capsys, "--proxy", "", f"localhost:{port}")[1]["proxy"] is None
    monkeypatch.setenv("NO_PROXY", "example.org,localhost")
    assert _check(capsys, f"localhost:{port}")[1]["proxy"] is None
    assert tunnel.requests == [f"CONNECT localhost:{port}"]


def test_an_intercepting_proxy_is_named_with_how_to_trust_it(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, interceptor: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The proxy's own chain is shown, rejected, and the advice names its CA and the commands."""
    _, port = https_server(pki["good"], "localhost")
    code, document = _check(capsys, "--proxy", interceptor.url, f"localhost:{port}")
    assert code == 1
    assert document["reasons"][0] == "unknown_issuer"
    assert "Corp TLS Inspection" in document["chain"][0]["issuer"]
    interception = document["interception"]
    assert "Corp TLS Inspection" in interception["issuer"]
    assert interception["trust_host"] == (
        f"sslcustomize trust --ca --proxy {interceptor.url} localhost:{port}"
    )
    assert "trust --ca-file PROXY-CA.pem" in interception["advice"]
    # The problem's own fix is the proxy's CA too: never a pin of the proxy's key.
    (problem,) = [p for p in document["problems"] if p["reason"] == "unknown_issuer"]
    assert problem["fix"] == interception["advice"]
    assert f"sslcustomize trust localhost:{port}" not in problem["fix"]
    _state.set_policy(None)
    assert main(["check", "--proxy", interceptor.url, f"localhost:{port}"]) == 1
    out = capsys.readouterr().out
    assert f"through the proxy {interceptor.url}" in out
    assert "interception: the chain came through the proxy" in out


def test_trusting_the_inspection_ca_for_the_proxied_host(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, interceptor: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The advised `trust --ca --proxy` (pasted, --yes) makes the proxied host verify."""
    _, port = https_server(pki["good"], "localhost")
    command = _check(capsys, "--proxy", interceptor.url, f"localhost:{port}")[1]["interception"]
    argv = command["trust_host"].split()[1:]
    _state.set_policy(None)
    assert main([*argv[:1], "--yes", "--scope", "user", *argv[1:]]) == 0
    capsys.readouterr()
    code, document = _check(capsys, "--proxy", interceptor.url, f"localhost:{port}")
    assert (code, document["rule"]) == (0, f"exception localhost:{port}")
    # The tunnel's twin: the real server, not the proxy's CA, still verifies too.
    assert _check(capsys, "--proxy", "", f"localhost:{port}")[0] == 0


def test_scan_through_a_proxy(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, interceptor: LoopbackProxy,
    tmp_path: Path, capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """scan --proxy checks each target through the proxy."""
    _, port = https_server(pki["good"], "localhost")
    targets = tmp_path / "targets.txt"
    targets.write_text(f"localhost:{port}\n")
    assert main(["scan", "--json", "--proxy", interceptor.url, str(targets)]) == 1
    (row,) = json.loads(capsys.readouterr().out)["results"]
    assert row["reasons"][0] == "unknown_issuer"
    assert interceptor.requests == [f"CONNECT localhost:{port}"]


def test_a_proxy_that_refuses_says_so(
    pki: _pki.TestPKI, https_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """CONNECT answered 403: one line naming the proxy and its answer, exit 2."""
    _, port = https_server(pki["good"], "localhost")
    with serve_proxy(refuse=True) as proxy:
        assert main(["check", "--proxy", proxy.url, f"localhost:{port}"]) == 2
    err = capsys.readouterr().err
    assert f"the proxy {proxy.url} refused CONNECT localhost:{port}" in err
    assert "403" in err


def test_proxy_selection_rules() -> None:
    """parse_proxy and proxy_for: schemes, credentials kept out of the name, NO_PROXY forms."""
    proxy = parse_proxy("http://alice:s%40cret@127.0.0.1:3128")
    assert (str(proxy), proxy.username, proxy.password) == (
        "http://127.0.0.1:3128", "alice", "s@cret",
    )  # fmt: skip
    with pytest.raises(ValueError, match="use http://HOST:PORT"):
        parse_proxy("ftp://127.0.0.1:21")
    target = Target(host="api.corp.example", port=443)
    env = {"HTTPS_PROXY": "http://127.0.0.1:3128"}
    assert str(proxy_for(target, None, env)) == "http://127.0.0.1:3128"
    for no_proxy in ("*", "corp.example", ".corp.example", "api.corp.example:443"):
        assert proxy_for(target, None, {**env, "NO_PROXY": no_proxy}) is None
    assert proxy_for(target, None, {**env, "NO_PROXY": "api.corp.example:8443"}) is not None
    assert proxy_for(target, None, {**env, "NO_PROXY": "xcorp.example"}) is not None
    mail = Target(host="mail.corp.example", port=25, starttls="smtp")
    assert proxy_for(mail, None, env) is None  # not HTTP: only --proxy tunnels it


def test_pinning_through_an_intercepting_proxy_says_what_it_pins(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, interceptor: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """trust --pin --yes through an inspecting proxy: refused; asked for, noted as the proxy's."""
    _, port = https_server(pki["good"], "localhost")
    argv = ["trust", "--yes", "--scope", "user", "--proxy", interceptor.url, f"localhost:{port}"]
    assert main(argv) == 2
    assert "add --pin-through-proxy if the proxy only tunnels" in capsys.readouterr().err
    _state.set_policy(None)
    assert main([*argv, "--pin-through-proxy"]) == 0
    out = capsys.readouterr().out
    assert f"comes from the proxy {interceptor.url}, not the server" in out


@contextlib.contextmanager
def _hostile_proxy(answer: Callable[[socket.socket], None]) -> Iterator[str]:
    """A proxy on loopback that reads one CONNECT and then runs ``answer`` on the socket."""
    listener = socket.create_server(("127.0.0.1", 0))

    def serve() -> None:
        with contextlib.suppress(OSError):
            sock, _ = listener.accept()
            with sock:
                data = sock.recv(3)  # a SOCKS5 greeting is 3 bytes here; CONNECT is longer
                while not data.startswith(b"\x05") and b"\r\n\r\n" not in data:
                    data += sock.recv(4096) or b"\r\n\r\n"
                answer(sock)

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        yield f"http://127.0.0.1:{listener.getsockname()[1]}"
    finally:
        listener.close()
        thread.join()


def _endless_headers(sock: socket.socket) -> None:
    """200, then header lines without end (stopped at 32 MiB, as no client should wait)."""
    sock.sendall(b"HTTP/1.1 200 Connection established\r\n")
    line = b"X-Padding: " + b"a" * 100 + b"\r\n"
    with contextlib.suppress(OSError):
        for _ in range((32 << 20) // len(line)):
            sock.sendall(line)


def _trickle(sock: socket.socket) -> None:
    """200, then one header byte every 0.2 s (each read answered; stopped after 8 s)."""
    sock.sendall(b"HTTP/1.1 200 Connection established\r\n")
    with contextlib.suppress(OSError):
        for _ in range(40):
            sock.sendall(b"X")
            time.sleep(0.2)
        sock.sendall(b": y\r\n\r\n")


def _socks_trickle(sock: socket.socket) -> None:
    """SOCKS5: no authentication, then a reply naming a 255-byte host, a byte every 0.2 s."""
    with contextlib.suppress(OSError):
        sock.sendall(b"\x05\x00")
        sock.recv(512)  # the CONNECT request
        sock.sendall(b"\x05\x00\x00\x03\xff")
        for _ in range(257):
            sock.sendall(b"a")
            time.sleep(0.2)


@pytest.mark.parametrize(
    ("answer", "said"),
    [
        (_endless_headers, "sent more than 65536 bytes of headers"),
        (_trickle, "no answer from the proxy"),
        (_socks_trickle, "no answer from the proxy"),
    ],
)
def test_a_proxy_that_never_ends_its_answer_is_given_up(
    pki: _pki.TestPKI,
    https_server: StartServer,
    capsys: pytest.CaptureFixture[str],
    answer: Callable[[socket.socket], None],
    said: str,
) -> None:
    """Endless or trickled answers (CONNECT, SOCKS5): bounded in bytes and --timeout, exit 2."""
    _, port = https_server(pki["good"], "localhost")
    with _hostile_proxy(answer) as url:
        scheme = "socks5h://" if answer is _socks_trickle else "http://"
        proxy = url.replace("http://", scheme)
        code = main(["check", "--timeout", "1", "--proxy", proxy, f"localhost:{port}"])
    assert code == 2
    assert said in capsys.readouterr().err


def test_a_proxy_answer_with_many_headers_is_read(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """Twin: a 200 with 200 header lines (a chatty proxy's) still tunnels; the chain verifies."""
    _, port = https_server(pki["good"], "localhost")
    with serve_proxy(headers=200) as proxy:
        code, document = _check(capsys, "--proxy", proxy.url, f"localhost:{port}")
    assert (code, document["verdict"]) == (0, "verified")
    assert proxy.requests == [f"CONNECT localhost:{port}"]


@pytest.mark.parametrize(
    ("argv", "environment"),
    [
        (["--proxy", "http://alice:s3cret@127.0.0.1:99999"], {}),
        ([], {"HTTPS_PROXY": "ftp://alice:s3cret@127.0.0.1:21"}),
    ],
)
def test_a_proxy_url_that_cannot_be_used_is_named_without_its_password(
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    argv: list[str],
    environment: dict[str, str],
) -> None:
    """The error names the proxy (user and host) for the reader, never the password."""
    for name, value in environment.items():
        monkeypatch.setenv(name, value)
    assert main(["check", "--json", *argv, "localhost:1"]) == 2
    out, err = capsys.readouterr()
    assert "s3cret" not in out + err
    assert "alice:***@127.0.0.1" in err


def _trust_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict[str, Any]]:
    _state.set_policy(None)
    code = main(["trust", "--yes", "--json", "--scope", "user", *argv])
    return code, json.loads(capsys.readouterr().out)


def test_trust_yes_refuses_to_pin_an_intercepting_proxys_key(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, interceptor: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """--yes --json through an inspecting proxy: refused, nothing written, the JSON names it."""
    _, port = https_server(pki["good"], "localhost")
    before = trust_root.read_text()
    code, document = _trust_json(capsys, "--proxy", interceptor.url, f"localhost:{port}")
    assert code == 2
    assert document["proxy"] == interceptor.url
    assert "Corp TLS Inspection" in document["interception"]["issuer"]
    assert "--pin-through-proxy" in document["error"]["message"]
    assert "trust --ca --proxy" in document["error"]["message"]
    assert trust_root.read_text() == before
    assert interceptor.requests == [f"CONNECT localhost:{port}"]


def test_trust_pins_through_a_proxy_when_asked_and_says_so(
    pki: _pki.TestPKI, https_server: StartServer, trust_root: Path, interceptor: LoopbackProxy,
    capsys: pytest.CaptureFixture[str],
) -> None:  # fmt: skip
    """The twin: --pin-through-proxy pins the key that came, and the JSON says it was a proxy's."""
    _, port = https_server(pki["good"], "localhost")
    argv = ("--pin-through-proxy", "--proxy", interceptor.url, f"localhost:{port}")
    code, document = _trust_json(capsys, *argv)
    assert code == 0
    assert document["proxy"] == interceptor.url
    assert document["interception"]["issuer"]
    assert len(document["pin"]) == 1
    assert f"localhost:{port}" in trust_root.read_text()


def test_trust_without_a_proxy_says_none_in_json(
    pki: _pki.TestPKI, https_server: StartServer, capsys: pytest.CaptureFixture[str]
) -> None:
    """The twin: a direct, self-signed server is pinned with --yes; proxy and interception null."""
    _, port = https_server(pki["self_signed"], "localhost")
    code, document = _trust_json(capsys, "--proxy", "", f"localhost:{port}")
    assert code == 0
    assert (document["proxy"], document["interception"]) == (None, None)
    assert len(document["pin"]) == 1
