r"""Make text from a certificate or a server safe to show: control characters made visible.

A certificate's subject, issuer and names, and what a server says, are chosen by whoever runs
the server, a man in the middle included. Printed as they are, terminal escape sequences in
them redraw the screen (a ``trust`` prompt can be made to show another server's pin) and
bidirectional controls reorder the line. :func:`visible` turns every character that is not
printable into its Python escape (``\x1b``, ``\u202e``), so what is shown is what was sent.
Standard library only: rejection messages on the runtime path use it.
"""

from __future__ import annotations

__all__ = ["visible"]


def _escape(char: str) -> str:
    code = ord(char)
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"


def visible(text: str) -> str:
    """Return ``text`` with every non-printable character written as its escape.

    Printable means :meth:`str.isprintable` (letters, marks, digits, punctuation, symbols and
    the ASCII space): control characters (C0, DEL, C1 such as CSI), format characters
    (bidirectional overrides, zero-width joiners), line and paragraph separators and unassigned
    code points are escaped. The result is printable, and applying this again changes nothing.
    """
    if text.isprintable():
        return text
    return "".join(char if char.isprintable() else _escape(char) for char in text)
