"""Helpers for testing programs under sslcustomize.

Use :func:`policy` in a test to run code under a policy given as TOML text, then have
everything restored::

    from sslcustomize.testing import policy

    def test_mail_client_verifies(mail_server):
        with policy('trust = ["tests/ca.pem"]'):
            send_report(mail_server)      # smtplib now verifies against tests/ca.pem
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import textwrap
from collections.abc import Iterator

from sslcustomize._inject import extract, inject, is_injected
from sslcustomize._runtime._state import set_policy

__all__ = ["policy"]


@contextlib.contextmanager
def policy(text: str) -> Iterator[None]:
    """Inject a policy written as TOML text for the duration of a ``with`` block.

    Args:
        text: The policy file's contents (dedented; ``version = 1`` may be omitted).

    Raises:
        RuntimeError: sslcustomize is already injected in this process (by the startup hook
            or by code): the helper would not know what to restore.
    """
    if is_injected():
        raise RuntimeError(
            "sslcustomize is already injected in this process; run the tests without "
            "SSLCUSTOMIZE_POLICY and without a policy file, or use sslcustomize.inject()"
        )
    descriptor, path = tempfile.mkstemp(prefix="sslcustomize-test-", suffix=".toml")
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            file.write(textwrap.dedent(text))
        inject(policy=path)
        yield
    finally:
        extract()
        set_policy(None)
        os.unlink(path)
