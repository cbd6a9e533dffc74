"""A cheap test on a file's raw bytes: can it contain a finding at all?

Every rule needs at least one of these words in the source, so a file without any of them is
skipped without being parsed. The bytes are lowered once and searched with ``in``, which runs
at memory speed; a second, narrower look confirms the words that are common in unrelated code
(``verify``, ``curl``). This is several times faster than one case-insensitive regex.
"""

from __future__ import annotations

import re
from bisect import bisect_right

__all__ = ["hot_lines", "may_contain_findings"]

# ``ssl``/``tls`` not inside an English word ("endlessly", "passline", "DocumentLS").
_EDGE = re.compile(rb"(?<![a-z])(?:ssl|tls)|(?:ssl|tls)(?![a-z])")

# word -> the narrower forms one of which must also be present (empty: the word is enough),
# or a pattern that must also match.
_WORDS: dict[bytes, tuple[bytes, ...] | re.Pattern[bytes]] = {
    b"ssl": _EDGE,  # ssl contexts, ssl=False, SMTP_SSL, ssl_verify, GIT_SSL_NO_VERIFY, sslVerify
    b"tls": _EDGE,  # FTP_TLS, starttls, tlsInsecure, tls_insecure_set, NODE_TLS_...
    b"verify": (
        b"verify=",
        b"verify =",
        b"verify_",
        b"verify'",
        b'verify"',
        b"verify:",
        b"sverify",
    ),
    b"cert_req": (),
    b"_hostname": (),  # check_hostname, assert_hostname, match_hostname
    b"disable_warnings": (),
    b"insecurerequest": (),
    b"session.": (b"session.request", b"session.send", b"session.merge"),
    b"httpadapter": (),
    b"requests.request": (),
    b"ca_bundle": (),
    b"trusted": (b"trusted-host", b"trusted_host"),
    b"curl": (b"curl ", b"curl'", b'curl"'),
    b"wget": (),
    b"legacy_context": (),
}


def may_contain_findings(data: bytes) -> bool:
    """Tell whether a file's bytes contain any word that some rule needs."""
    low = data.lower()
    for word, narrower in _WORDS.items():
        if word in low:
            if isinstance(narrower, re.Pattern):
                if narrower.search(low):
                    return True
            elif not narrower or any(form in low for form in narrower):
                return True
    return False


def hot_lines(data: bytes, extra: tuple[bytes, ...] = ()) -> list[bool]:
    """Tell, line by line, whether a line holds a word that some rule needs.

    Args:
        data: The file's raw bytes.
        extra: More words (lowercase) that make a line hot, such as names bound to suspect
            values at module level.

    Returns:
        One flag per line; index 0 stands for line 1.
    """
    low = data.lower()
    starts = [0]
    find = low.find
    pos = find(b"\n")
    while pos >= 0:
        starts.append(pos + 1)
        pos = find(b"\n", pos + 1)
    hot = [False] * len(starts)
    for word in (*_WORDS, *extra):
        pos = find(word)
        while pos >= 0:
            line = bisect_right(starts, pos) - 1
            hot[line] = True
            pos = find(word, starts[line + 1] if line + 1 < len(starts) else len(low))
    return hot
