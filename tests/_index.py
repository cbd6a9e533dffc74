"""A PEP 503 simple index over HTTPS on loopback, serving one hand-made wheel."""

from __future__ import annotations

import base64
import contextlib
import hashlib
import http.server
import threading
import zipfile
from collections.abc import Iterator
from functools import partial
from pathlib import Path

import _pki
import _servers

__all__ = ["PROJECT", "WHEEL", "serve_index", "write_wheel"]

PROJECT = "sslcustomize-probe"
WHEEL = "sslcustomize_probe-1.0-py3-none-any.whl"


def write_wheel(path: Path) -> None:
    """Write the probe wheel (one module, ``sslcustomize_probe``) at ``path``."""
    files = {
        "sslcustomize_probe/__init__.py": b"VALUE = 'installed over verified TLS'\n",
        "sslcustomize_probe-1.0.dist-info/METADATA": (
            b"Metadata-Version: 2.1\nName: sslcustomize-probe\nVersion: 1.0\n"
        ),
        "sslcustomize_probe-1.0.dist-info/WHEEL": (
            b"Wheel-Version: 1.0\nGenerator: hand\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
        ),
    }
    record = []
    for name, data in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{name},sha256={digest},{len(data)}")
    record.append("sslcustomize_probe-1.0.dist-info/RECORD,,")
    files["sslcustomize_probe-1.0.dist-info/RECORD"] = ("\n".join(record) + "\n").encode()
    with zipfile.ZipFile(path, "w") as archive:
        for name, data in files.items():
            archive.writestr(name, data)


@contextlib.contextmanager
def serve_index(case: _pki.CertCase, directory: Path) -> Iterator[str]:
    """Serve the index from ``directory`` (made here) with ``case``'s certificate; its URL."""
    project = directory / "simple" / PROJECT
    project.mkdir(parents=True)
    write_wheel(project / WHEEL)
    (directory / "simple" / "index.html").write_text(f'<a href="{PROJECT}/">probe</a>\n')
    (project / "index.html").write_text(f'<a href="{WHEEL}">{WHEEL}</a>\n')

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, format: str, *args: object) -> None:
            pass

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), partial(Quiet, directory=directory))
    server.socket = _servers.server_context(case).wrap_socket(server.socket, server_side=True)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"https://localhost:{server.server_address[1]}/simple/"
    finally:
        server.shutdown()
        server.server_close()
        with contextlib.suppress(RuntimeError):
            thread.join(5)
