"""Text from certificates and servers, ready for a rich console: visible and never markup."""

from __future__ import annotations

from sslcustomize._support._escape import visible

__all__ = ["shown", "visible"]


def shown(text: object) -> str:
    """Return ``text`` for ``console().print``: control characters and rich markup made visible.

    A subject such as ``CN=[bold green]verified[/]`` or one carrying ``ESC [2J`` prints as
    written, never as a style or a cleared screen (see :func:`.._support._escape.visible`).
    """
    from rich.markup import escape  # noqa: PLC0415 - rich only for the CLI

    return escape(visible(str(text)))
