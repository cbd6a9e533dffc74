"""A cheap test on a file's raw bytes: can it contain a finding at all?

Every rule needs at least one of these words in the source, so a file without any of them is
skipped without being parsed. The words are matched case-insensitively on bytes, which is much
faster than decoding and parsing.
"""

from __future__ import annotations

import re

__all__ = ["may_contain_findings"]

_WORDS = (
    rb"ssl|tls|verify|cert_|ca_bundle|curl|wget|trusted.host|_create_|disable_warnings"
    rb"|insecure|smtp|imap4|pop3|nntp|sslcustomize"
)
_PATTERN = re.compile(rb"(?i:" + _WORDS + rb")")


def may_contain_findings(data: bytes) -> bool:
    """Tell whether a file's bytes contain any word that some rule needs."""
    return _PATTERN.search(data) is not None
