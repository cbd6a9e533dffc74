"""A cheap test on a file's raw bytes: can it contain a finding at all?

Every rule needs at least one of these words in the source, so a file without any of them is
skipped without being parsed. The bytes are lowered once and searched for all the words at
once by an Aho-Corasick automaton (``ahocorasick_rs``, with its SIMD pre-filter: about 1.2
GB/s on source code, ten times faster than one ``find`` per word) where the optional
accelerator is installed (``sslcustomize[lint]``), else by one regular expression that finds
the same matches in the same order (``re`` tries alternatives in order at each place, which is
leftmost-first matching); a second, narrower look at
the places of the words that are common in unrelated code (``verify``, ``curl``, ``ssl``
inside "endlessly") confirms them.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Callable
from functools import lru_cache

from sslcustomize_lint._tables import CONTEXT_FACTORIES, ENV_VARS

__all__ = [
    "accelerated_matches",
    "hot_lines",
    "matches",
    "may_contain_findings",
    "python_matches",
]

# ``ssl``/``tls`` at the start of a name ("ssl.", "SMTP_SSL", "tlsInsecure", "sslVerify"), not
# inside a word ("openssl", "endlessly", "*.ptls", "dassl"). A string that is only one of the
# ``_KEY_WORDS`` ("'ssl',", "'verify',": a row of a data table) counts only as a key, and a
# quoted name that holds one ("'ftp_ssl_connect',") not as the item of a list (see ``_in_row``).
_START = b"<start>"
_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789")
_NAME_CHARS = frozenset(b"abcdefghijklmnopqrstuvwxyz0123456789_")
_QUOTES = frozenset(b"'\"")
_BLANKS = frozenset(b" \t\r\n")
# The rest of a name after a word.
_NAME_REST = re.compile(rb"[a-z0-9_]*")
# The rest of a quoted name after a word, closing quote included.
_NAME_TAIL = re.compile(rb"[a-z0-9_]*['\"]")
_ENV_NAMES = frozenset(name.lower().encode() for name in ENV_VARS)

# word -> the narrower forms one of which must also be present at one of the word's places
# (none: the word is enough); ``_START`` among them: or the word at the start of a name.
_WORDS: dict[bytes, tuple[bytes, ...]] = {
    # ssl contexts, ssl=False, SMTP_SSL, ssl_verify, GIT_SSL_NO_VERIFY, sslVerify, and the
    # ``import sslcustomize`` that ``create_legacy_context()`` needs
    b"ssl": (_START, b"disablesslcert", b"connectnossl"),  # and pyVmomi's
    # FTP_TLS, tlsInsecure, tls_insecure_set, NODE_TLS_..., PROTOCOL_TLSv1, STARTTLS, POP3.stls
    b"tls": (_START, b"starttls", b"stls("),
    b"verify": (
        b"verify=",
        b"verify =",
        # The names with ``verify_`` that rules test, not any ``verify_``: test suites define
        # and call dozens of ``verify_*`` helpers (a quarter of the stdlib's parse and analysis).
        b"verify_mode",
        b"verify_ssl",
        b"verify_certs",
        b"verify_certificates",  # a settings constant (``DOWNLOAD_VERIFY_CERTIFICATES``)
        b"verify_none",  # pyOpenSSL's VERIFY_NONE
        b"verify_server_cert",  # Elastic APM's
        b"cert_verify",  # requests' HTTPAdapter.cert_verify, overridden or called
        b"verify:",
        b"sverify",
    ),
    b"cert_req": (),
    b"_hostname": (b"check_hostname", b"assert_hostname", b"match_hostname"),
    b"disable_warnings": (),
    b"insecurerequest": (),
    b"unverified https": (),  # warnings.filterwarnings("ignore", message="Unverified HTTPS ...")
    b"session.": (b"session.request", b"session.send", b"session.merge"),
    b"httpadapter": (),
    b"requests.request": (),
    b"ca_bundle": (),
    b"trusted": (b"trusted-host", b"trusted_host"),
    # curl counts only beside a flag that its rule looks for, and wget's flag only beside wget
    # (see ``_ALSO``): the long flag is searched first, three times faster than "wget".
    b"curl": (b"curl ", b"curl'", b'curl"'),
    b"--no-check-certificate": (),
    b"validate_cert": (),  # tornado's validate_cert=False, ansible's validate_certs=False
    b"set_cipher": (),  # set_ciphers / set_cipher_list on a context of unknown origin
    b"duo_client": (),  # duo_client.Auth(..., ca_certs="DISABLE")
    b"cert_check": (b"cert_check=", b"cert_check ="),  # MinIO's cert_check=False
    b"clientcontextfactory": (),  # Twisted's, which verifies nothing
    b"ignore-certificate-errors": (),  # Chrome's switch, given by Selenium or Playwright
    b"ignore_https_errors": (),  # Playwright's browser contexts
    b"gelftlshandler": (),  # graypy's TLS handler (validate=False)
    # ``config.getboolean("server", "insecure")``: an opt-out switch read from a file, whose
    # key may be the file's only word of verification (see ``_OPTION_KEY``)
    b"getboolean": (),
}
# The narrower forms as (offset of the word in the form, form).
_FORMS = {
    word: tuple((form.find(word), form) for form in forms if form != _START)
    for word, forms in _WORDS.items()
}
# The words that rules test as keys when they are a whole string (``"curl"`` is a command).
_KEY_WORDS = frozenset({b"ssl", b"tls", b"verify"})
# A short flag with ``k`` among others (``-k``, ``-fsSLk``); a literal first, so that the regex
# engine jumps from dash to dash (20 times faster than starting with the class before it).
_SHORT_K = re.compile(rb"-[a-z]*k[a-z]*[\s'\"]")


def _curl_insecure(low: bytes) -> bool:
    if b"--insecure" in low:
        return True
    return any(m.start() and low[m.start() - 1] in b" \t\r\n'\"" for m in _SHORT_K.finditer(low))


def _wget(low: bytes) -> bool:
    return b"wget " in low or b"wget'" in low or b'wget"' in low


# What else the (lowered) file must hold for a word to count (see ``_commands``).
_ALSO = {b"curl": _curl_insecure, b"--no-check-certificate": _wget}
# A ``getboolean(...)`` call's arguments (one level of nested parentheses) up to a quoted key
# that names verification or an opt-out of it (``"insecure"``, ``"no_verify"``,
# ``"ignore_certs"``, ``"validate"``): such a call counts, not one that reads ``"debug"``.
_OPTION_KEY = re.compile(
    rb"getboolean[ \t]*\((?:[^()]|\([^()]*\))*?['\"][\w.-]*"
    rb"(?:insecure|verif|valid|cert|check)[\w.-]*['\"]"
)
# Words that make a line hot (see ``hot_lines``) without making a file a candidate: a call of
# ``create_legacy_context`` imported by name holds no other word.
_HOT_ONLY = (b"legacy_context", b"ciphers")
# The words, then the hot-only ones: a match's index into this tells which it is.
_PATTERNS = (*_WORDS, *_HOT_ONLY)
_WORD_COUNT = len(_WORDS)


# The bytes that lead the pure-Python search, rarest first (in lowered Python source: "q" is
# 0.2% of the bytes, "l" 3%): each pattern is searched from the first of them that it holds.
_LEADS = b"qxvbghu.l"


def _lead_search(lead: int) -> tuple[re.Pattern[bytes], tuple[tuple[int, int, bytes], ...]]:
    """Return the search for one lead byte, and its patterns as (index, offset of lead, pattern).

    The expression matches the lead byte where one of its patterns holds it: what stands after
    it is looked at ahead, what stands before it behind, and only the byte itself is consumed,
    so that every place of the byte is tried (overlapping patterns too). The regular expression
    engine skips to the next place of its first byte about as fast as ``bytes.find`` scans, and
    tests the patterns there without going back to Python: one pass for several patterns.
    """
    members = []
    branches = []
    for index, pattern in enumerate(_PATTERNS):
        if next(byte for byte in _LEADS if byte in pattern) != lead:
            continue
        offset = pattern.index(lead)
        members.append((index, offset, pattern))
        ahead = pattern[offset + 1 :]
        branch = b"(?=%s)" % re.escape(ahead) if ahead else b""
        if offset:
            branch += b"(?<=%s)" % re.escape(pattern[: offset + 1])
        branches.append(branch)
    expression = re.escape(bytes((lead,))) + b"(?:%s)" % b"|".join(branches)
    return re.compile(expression), tuple(members)


# One search per lead byte: nine passes over a file instead of one ``find`` pass per pattern
# (28), which made half the time of a lint without the accelerator. Compiled at the first
# search, not at import: with the accelerator they are never used (and cost 1 ms to make).
_LEAD_SEARCHES: list[tuple[re.Pattern[bytes], tuple[tuple[int, int, bytes], ...]]] = []


def python_matches(low: bytes) -> list[tuple[int, int]]:
    """Return the (pattern index, start) of the leftmost-first matches in ``low``, in pure Python.

    Every place of every pattern is found (see ``_lead_search``), then the automaton's choice is
    replayed: the leftmost place wins, a tie goes to the pattern listed first, and the search
    resumes after the match.
    """
    if not _LEAD_SEARCHES:
        _LEAD_SEARCHES.extend(_lead_search(lead) for lead in _LEADS)
    found: list[tuple[int, int, int]] = []
    startswith = low.startswith
    for search, members in _LEAD_SEARCHES:
        for match in search.finditer(low):
            place = match.start()
            # Which of the patterns led by this byte are here: one or more (few places get here).
            for index, offset, pattern in members:
                if place >= offset and startswith(pattern, place - offset):
                    found.append((place - offset, index, len(pattern)))
    if not found:
        return []
    found.sort()
    result = []
    resume = 0
    for place, index, size in found:
        if place >= resume:
            result.append((index, place))
            resume = place + size
    return result


def _accelerated() -> Callable[[bytes], list[tuple[int, int]]] | None:
    """Return the accelerator's search, shaped as :func:`python_matches`, if it is installed."""
    try:
        # An optional extra, imported where its absence is handled.
        from ahocorasick_rs import MATCHKIND_LEFTMOST_FIRST, BytesAhoCorasick  # noqa: PLC0415
    except ImportError:
        return None
    # Leftmost-first matching, not the standard kind: only it has the automaton's SIMD search,
    # which makes the pass over a file without any word (most files) three times faster.
    search = BytesAhoCorasick(list(_PATTERNS), matchkind=MATCHKIND_LEFTMOST_FIRST)

    def matches(low: bytes) -> list[tuple[int, int]]:
        return [(index, start) for index, start, _ in search.find_matches_as_indexes(low)]

    return matches


accelerated_matches = _accelerated()
# The search the linter uses: the accelerator's where it is installed.
matches: Callable[[bytes], list[tuple[int, int]]] = accelerated_matches or python_matches


def _hidden(index: int) -> tuple[tuple[int, int], ...]:
    """Return the (offset, pattern index) of the patterns that may start inside a match.

    A leftmost-first search resumes after each match, so a pattern that starts inside
    another one's match ("tls" then "ssl" in "tlssl") is not reported; these are the places
    to look at for one.
    """
    word = _PATTERNS[index]
    return tuple(
        (offset, other_index)
        for offset in range(len(word))
        for other_index in _STARTING_WITH.get(word[offset], ())
        if (offset or other_index != index)
        and (
            word.startswith(_PATTERNS[other_index], offset)
            or _PATTERNS[other_index].startswith(word[offset:])
        )
    )


# First byte -> the patterns that start with it (``_hidden`` looks at only these).
_STARTING_WITH: dict[int, list[int]] = {}
for _index, _pattern in enumerate(_PATTERNS):
    _STARTING_WITH.setdefault(_pattern[0], []).append(_index)
_HIDDEN = tuple(_hidden(index) for index in range(len(_PATTERNS)))


def _places(low: bytes) -> list[tuple[int, int]]:
    """Return the (pattern index, place) of every pattern in ``low``, overlapping ones too.

    In order of place: a hidden place comes after the match it starts in and before the next
    match, which starts after that match ends.
    """
    places = []
    for index, start in matches(low):
        places.append((index, start))
        for offset, other in _HIDDEN[index]:
            if low.startswith(_PATTERNS[other], start + offset):
                places.append((other, start + offset))
    return places


def _narrow(low: bytes, word: bytes, pos: int, known: dict[int, bool]) -> bool:
    """Tell whether ``word`` at ``pos`` of ``low`` is a narrower form of it (``_ALSO`` aside).

    ``known`` keeps, for the file, the answers of ``_sets_by_name`` and ``_imports_by_name``.
    """
    forms = _WORDS[word]
    if not forms:
        return word != b"getboolean" or _OPTION_KEY.match(low, pos) is not None
    before = low[pos - 1] if pos else 0
    end = pos + len(word)
    if word in _KEY_WORDS:
        if before in _QUOTES and low[end : end + 1] == bytes((before,)):
            # A string that is only the word ("'ssl',", "'verify',": a row of a data table)
            # counts as a key (``{"ssl": False}``, ``kw["verify"]``), and before a comma only
            # where it may be a name given to a call (see ``_sets_by_name``).
            after = low[end + 1 : end + 3].lstrip(b" ")[:1]
            # ``for key in ("verify",)``: keys built from a tuple of one count too.
            # ``__import__("ssl")``, ``importlib.import_module("ssl")``: the module by name.
            return (
                after in (b":", b"]")
                or _alone(low, pos - 1, end)
                or (after == b"," and _sets_by_name(low, known))
                or _imports_by_name(low, known)
            )
        if _in_row(low, pos, end) and not _sets_by_name(low, known):
            return False
    if _START in forms and before not in _ALNUM and not _names_an_error(low, end):
        return True
    return any(low.startswith(form, pos - offset) for offset, form in _FORMS[word])


def _alone(low: bytes, opening: int, closing: int) -> bool:
    """Tell whether the string quoted at ``opening``/``closing`` is a tuple's or list's only item.

    ``("verify",)``, ``["ssl"]``: one item is no table of data.
    """
    item = opening - 1
    while item >= 0 and low[item] in _BLANKS:
        item -= 1
    if item < 0 or low[item] not in b"([":
        return False
    rest = low[closing + 1 : closing + 4].lstrip(b" ")
    if rest[:1] == b",":
        rest = rest[1:].lstrip(b" ")
    return rest[:1] in (b")", b"]")


def _names_an_error(low: bytes, end: int) -> bool:
    """Tell whether the name that a word ends at ``end`` starts is an exception's (or leads to one).

    ``SSLError``, ``SSLZeroReturnError``, ``ssl.SSLError``, ``ssl.CertificateError``: no rule
    reads an exception class, and functions that only catch or raise one (a twentieth of the
    code parsed on a site-packages tree) need no analysis.
    """
    rest = _name_end(low, end)
    if rest == end and low.startswith(b".", end):
        rest = _name_end(low, end + 1)
    return low.startswith(b"error", rest - 5)


def _name_end(low: bytes, start: int) -> int:
    match = _NAME_REST.match(low, start)
    return match.end() if match else start


_SETS_BY_NAME = -1  # the key of ``_sets_by_name``'s answer in ``known``
_IMPORTS_BY_NAME = -2  # the key of ``_imports_by_name``'s answer in ``known``


def _once(low: bytes, known: dict[int, bool], key: int, test: Callable[[bytes], bool]) -> bool:
    """Return ``test(low)``, made once per file: ``known`` keeps the file's answers by key."""
    answer = known.get(key)
    if answer is None:
        answer = known[key] = test(low)
    return answer


def _sets_by_name(low: bytes, known: dict[int, bool]) -> bool:
    """Tell whether the file calls something that takes a name as a string before a comma.

    ``kw.setdefault("verify", False)``, ``setattr(s, "verify", False)``,
    ``s.__setattr__("verify", 0)``, ``kw.__setitem__("verify", False)``, also written over
    several lines or with comments between: in such a file, a quoted name followed by a comma
    may be one of these names, not an item of a data table. The names count as whole names
    only: not ``'dio_tcsetattr'`` in a table.
    """
    return _once(low, known, _SETS_BY_NAME, _calls_setters)


def _calls_setters(low: bytes) -> bool:
    return any(_has_name(low, name) for name in (b"setattr", b"setdefault", b"setitem"))


def _imports_by_name(low: bytes, known: dict[int, bool]) -> bool:
    """Tell whether the file calls ``__import__`` or ``import_module``.

    In such a file a string that is only ``"ssl"`` may name the module to import, however
    the call is spread over lines or commented.
    """
    return _once(low, known, _IMPORTS_BY_NAME, _calls_importers)


def _calls_importers(low: bytes) -> bool:
    return b"__import__" in low or _has_name(low, b"import_module")


def _has_name(low: bytes, name: bytes) -> bool:
    """Tell whether ``name`` is in ``low`` as a whole name, or inside ``__name__``."""
    pos = low.find(name)
    while pos >= 0:
        end = pos + len(name)
        before = low[pos - 1] if pos else 0
        after = low[end] if end < len(low) else 0
        if (before not in _NAME_CHARS and after not in _NAME_CHARS) or (
            low.startswith(b"__", pos - 2) and low.startswith(b"__", end)
        ):
            return True
        pos = low.find(name, end)
    return False


def _in_row(low: bytes, pos: int, end: int) -> bool:
    """Tell whether ``low[pos:end]`` is inside a quoted name that is an item of a list or tuple.

    ``'ftp_ssl_connect',``, ``"TLSFeature")`` and ``, "TLSFeature"]`` in data tables
    (pygments' lists of PHP and MySQL functions, ``__all__``). Not a key
    (``"ssl_verify": False``, ``kw["verify_certs"]``), a string with more than a name in it
    (``"http.sslVerify"``, a command line, a URL), one with a prefix or escaped quotes, nor
    the name of an environment variable that rules test (``["GIT_SSL_NO_VERIFY", "1"]``).
    """
    tail = _NAME_TAIL.match(low, end)
    if tail is None:
        return False  # most places: not in a quoted name (``ssl.``, ``ssl_context=``)
    last = tail.end() - 1
    first = pos
    while first and low[first - 1] in _NAME_CHARS:
        first -= 1
    if first < 2 or low[first - 1] != low[last]:
        return False  # not a quoted name: "use ssl_context", "http.sslverify"
    if low[first:last] in _ENV_NAMES:
        return False  # an environment variable's name counts wherever it is
    ahead = low[first - 2]
    if ahead in _QUOTES or ahead in _NAME_CHARS or ahead == ord("\\"):
        return False  # triple quotes, a prefix (b"...", f"..."), an escaped quote
    after = low[last + 1 : last + 3].lstrip(b" ")[:1]
    if after == b"]":  # a list's last item, not a key (``kw["verify_certs"]``)
        item = first - 2
        while item >= 0 and low[item] in _BLANKS:
            item -= 1
        return item >= 0 and low[item] == ord(",")
    return after in (b",", b")") and not _alone(low, first - 1, last)


def _counts(low: bytes, index: int, pos: int, known: dict[int, bool]) -> bool:
    """Tell whether the word ``_PATTERNS[index]`` at ``pos`` counts.

    ``known`` keeps, for the file, the answers of the ``_ALSO`` tests (by pattern index) and of
    ``_sets_by_name`` and ``_imports_by_name`` (see ``_once``).
    """
    word = _PATTERNS[index]
    if not _narrow(low, word, pos, known):
        return False
    test = _ALSO.get(word)
    return test is None or _once(low, known, index, test)


def word_places(data: bytes) -> list[int] | None:
    """Return the places of the words in a file, one per line at most, or ``None``.

    ``None`` when no word that some rule needs counts in the file: it cannot contain a
    finding. The bytes are lowered once and searched for all the words in one pass; where a
    word is common in unrelated code, its places are then checked one by one for a narrower
    form. The places (sorted) also hold the words that only heat a line (``_HOT_ONLY``); they
    are ``hot_places``' start.

    The last file's answer is kept: the analyzer of a file that was parsed whole asks for its
    hot lines (``hot_lines``) right after the runner asked for its places, and a second search
    of a big file cost as much as the first. The list returned is not to be changed.
    """
    if _LAST and data is _LAST[0][0]:
        return _LAST[0][2]
    low = data.lower()
    places = _word_places(low, data)
    _LAST[:] = [(data, low, places)]
    return places


# The bytes of the last file that ``word_places`` searched (held, so that no other object can
# take their identity), their lowered copy, and its answer.
_LAST: list[tuple[bytes, bytes, list[int] | None]] = []


def _lowered(data: bytes) -> bytes:
    """Return ``data.lower()``, made once for the last file that ``word_places`` searched."""
    if _LAST and data is _LAST[0][0]:
        return _LAST[0][1]
    return data.lower()


def _word_places(low: bytes, data: bytes) -> list[int] | None:
    """``word_places`` of the lowered bytes, without the last file's answer."""
    known: dict[int, bool] = {}
    places = []
    candidate = False
    line_end = -1  # the end of the last line with a place: its other words need no look
    find = low.find
    for index, pos in _places(low):  # in order (see ``_places``)
        if pos < line_end:
            continue
        if index >= _WORD_COUNT or _counts(low, index, pos, known):
            candidate = candidate or index < _WORD_COUNT
            places.append(pos)
            line_end = find(b"\n", pos)
            if line_end < 0:
                line_end = len(low)
    # A file may spread an option dict of a sibling module into a call, whose words are in
    # that module (``requests.get(url, **OPTIONS)``, ``from .settings import OPTIONS``): the
    # line is hot (its function is analyzed), and the file a candidate.
    spreads = _spread_places(data)
    if spreads:
        return sorted(places + spreads)
    return places if candidate else None


# ``**NAME`` given to a call, after its ``(`` or a comma, and before the next argument or the
# end of the call: a spread of a name (not ``2 ** k``, ``**settings()``, ``**self.options``).
# A constant's name, in capitals (``OPTIONS``, ``DEFAULT_TLS_KWARGS``): ``**kwargs`` is in a
# third of the files, and looking for each such name among the imports cost more than the
# word search of the accelerator.
# (The stars first: the regex engine then jumps from one ``**`` to the next; what stands before
# them is looked at in ``_spread_places``.)
_SPREAD = re.compile(rb"\*\*[ \t]*([A-Z_][A-Z0-9_]*)(?=[ \t\r\n]*[,)])")


def _spread_places(data: bytes) -> list[int]:
    """Return the places of ``**NAME`` where ``NAME`` is imported by name in ``data``.

    ``from .settings import OPTIONS`` then ``requests.get(url, **OPTIONS)``: the dict's words
    are in the other module, which the analyzer reads (a module of the same package). A
    spread of a parameter (``**kwargs``) is not imported.
    """
    imported: frozenset[bytes] | None = None
    places = []
    for match in _SPREAD.finditer(data):
        if imported is None:
            imported = _from_imported(data)
            if not imported:
                return []
        start = match.start()
        if match.group(1) not in imported:
            continue
        before = start - 1
        while before >= 0 and data[before] in _BLANKS:
            before -= 1
        # After a call's ``(`` or a comma, not in a comment (``# type: (**Any) -> None``).
        if (
            before >= 0
            and data[before] in b"(,"
            and data.rfind(b"#", data.rfind(b"\n", 0, start), start) < 0
        ):
            places.append(start)
    return places


def _from_imported(data: bytes) -> frozenset[bytes]:
    """Return the names that ``from MODULE import ...`` statements bind in ``data``."""
    names = set()
    find = data.find
    pos = find(b"import ")
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        line = _IMPORT_LINE.match(data, start)
        if line is not None and line.group(1) is not None:
            for part in _COMMENT.sub(b"", line.group(2)).strip(b"() \t").split(b","):
                words = part.split()
                if words:
                    names.add(words[-1])
        pos = find(b"import ", pos + 7)
    return frozenset(names)


def may_contain_findings(data: bytes) -> bool:
    """Tell whether a file's bytes contain any word that some rule needs (``word_places``)."""
    return _word_places(data.lower(), data) is not None


def hot_places(
    data: bytes, extra: tuple[bytes, ...] = (), words: list[int] | None = None
) -> list[int]:
    """Return, in order, the places of the words that some rule needs (see ``hot_lines``).

    A word counts in the same narrower forms as in ``may_contain_findings``: "OpenSSL" or a
    row ``'ssl',`` of a data table is not a place.

    Args:
        data: The file's raw bytes.
        extra: More words (lowercase), such as names bound to suspect values at module level.
            A name of one or two characters counts only as a whole name (``u`` in ``u()``,
            not in every word): an alias as short as that must not hide its users
            (``from ssl import _create_unverified_context as u``).
        words: ``word_places(data)``, if the caller has it already.

    Returns:
        Byte offsets into ``data``, sorted; a line may hold several.
    """
    hits = list(words if words is not None else word_places(data) or ())
    if not extra:
        return hits
    low = _lowered(data)
    short = [name for name in extra if len(name) <= 2]
    if short:
        extra = tuple(name for name in extra if len(name) > 2)
        pattern = rb"(?<![\w.])(?:%s)(?!\w)" % b"|".join(map(re.escape, short))
        hits += [m.start() for m in re.finditer(pattern, low)]
    hits += places_of(low, extra)
    hits.sort()
    return hits


def places_of(data: bytes, words: tuple[bytes, ...]) -> list[int]:
    """Return places of ``words`` in ``data``: for each word, its first on each line (unsorted)."""
    find = data.find
    places = []
    for word in words:
        pos = find(word)
        while pos >= 0:
            places.append(pos)
            end = find(b"\n", pos)  # one place per line is enough
            pos = find(word, end) if end >= 0 else -1
    return places


def lines_of(data: bytes, places: list[int]) -> list[bool]:
    """Return one flag per line of ``data`` (index 0 for line 1): does it hold a place?"""
    hot = [False] * (data.count(b"\n") + 1)
    # Line numbers by counting newlines between places in order: C speed, no table of lines.
    line = previous = 0
    count = data.count
    for pos in places:
        line += count(b"\n", previous, pos)
        previous = pos
        hot[line] = True
    return hot


def hot_lines(data: bytes, extra: tuple[bytes, ...] = ()) -> list[bool]:
    """Tell, line by line, whether a line holds a word that some rule needs.

    ``lines_of`` the ``hot_places``; index 0 stands for line 1.
    """
    return lines_of(data, hot_places(data, extra))


# Module-level names whose users the analyzer follows (see ``Analyzer._is_hot``): literals
# that rules test, and dict/list/tuple literals (``OPTS = {"verify": False}``).
# (It starts with the newline before the name, which the regex engine finds fast: see
# ``_STATEMENTS``; ``module_names`` puts one before the first line.)
_MODULE_NAME = re.compile(
    rb"\n([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*"
    rb"(?:[\[({]|False\b|True\b|None\b|''|\"\"|'0'|\"0\"|functools\.partial|partial"
    rb"|__import__\(|importlib\.import_module\(|import_module\()"
)
# Smaller files are parsed whole: cutting them saves less than it costs.
PARTIAL_MIN_BYTES = 2_000
__all__ += [
    "PARTIAL_MIN_BYTES",
    "hot_places",
    "hot_source",
    "is_tls_name",
    "lines_of",
    "module_names",
    "places_of",
    "word_places",
]


# An import line: ``from module import a, b as c`` (one line, or in parentheses) or
# ``import a.b as c``, at any indentation (module-level imports sit in ``try:`` and ``if``).
_IMPORT_LINE = re.compile(
    rb"[ \t]*(?:from[ \t]+([\w.]+)[ \t]+import[ \t]*(\([^)]*\)|[^\n]*)"
    rb"|import[ \t]+([\w.]+)[ \t]+as[ \t]+(\w+))"
)
_COMMENT = re.compile(rb"#[^\n]*")


@lru_cache(maxsize=4096)
def is_tls_name(qualname: bytes) -> bool:
    """Tell whether an imported name (``ssl._create_unverified_context``) may carry a weakening.

    ``may_contain_findings`` for its qualified name, but not an exception class
    (``urllib3.util.ssl_.BaseSSLError``): no rule reads one. The same names recur from file
    to file.
    """
    low = qualname.lower()
    if low.startswith(_OWN_PACKAGE):
        # This package's name starts with "ssl", but of its names only its context factories
        # make a TLS object that rules follow; the rest (and this linter's own modules) would
        # heat every function of a module that imports them.
        return low.rpartition(b".")[2] in _OWN_FACTORIES
    return not low.endswith(b"error") and may_contain_findings(qualname)


_OWN_PACKAGE = b"sslcustomize."
_OWN_FACTORIES = frozenset(
    name.rpartition(".")[2].lower().encode()
    for name in CONTEXT_FACTORIES
    if name.startswith(_OWN_PACKAGE.decode())
)


def _imported_names(data: bytes, words: list[int] | None) -> list[bytes]:
    """Return the names that imports bind to a TLS object (``Analyzer``'s suspect ``Ref``s).

    ``from sslcustomize import create_legacy_context as legacy`` binds ``legacy``: a function
    that calls ``legacy()`` holds no rule word of its own. Only the lines where ``import ``
    occurs are matched, and of those (when ``words``, the file's ``word_places``, are given)
    only the statements that hold a word, or whose module ends in ``session`` or ``requests``
    (``from requests import request`` is ``requests.request``, a word across the dot): a name
    is a TLS name only if its module or itself holds a word, or one spans the dot.
    """
    names = []
    find = data.find
    pos = find(b"import ")
    while pos >= 0:
        start = data.rfind(b"\n", 0, pos) + 1
        end = find(b"\n", pos)
        if words is None or _has_word(data, words, start, pos, end):
            line = _IMPORT_LINE.match(data, start)
            if line is not None and line.group(1) is not None:
                module = line.group(1) + b"."
                for part in _COMMENT.sub(b"", line.group(2)).strip(b"() \t").split(b","):
                    parts = part.split()
                    if parts and parts[0] != b"*" and is_tls_name(module + parts[0]):
                        names.append(parts[-1])
            elif line is not None and is_tls_name(line.group(3)):
                names.append(line.group(4))
        pos = find(b"import ", end) if end >= 0 else -1
    return names


def _has_word(data: bytes, words: list[int], start: int, pos: int, end: int) -> bool:
    """``_imported_names``' test of the import statement on the line ``data[start:end]``."""
    end = end if end >= 0 else len(data)
    paren = data.find(b"(", pos, end)
    if paren >= 0:  # names in parentheses, over several lines (as ``_IMPORT_LINE`` reads them)
        close = data.find(b")", paren)
        end = close if close >= 0 else len(data)
    at = bisect_left(words, start)
    if at < len(words) and words[at] < end:
        return True
    return data[start:pos].rstrip().lower().endswith((b"session", b"requests"))


def module_names(data: bytes, words: list[int] | None = None) -> tuple[bytes, ...]:
    """Return the lowercased module-level names that may carry a weakening into a function.

    As the analyzer's module scope has them: names bound to literals that rules test, to
    dict/list/tuple displays or ``partial``s, and imported TLS names. ``words``: the file's
    ``word_places``, if the caller has them (fewer import statements are then looked at).
    """
    filled = _filled_at_margin(data, words)
    names = [m.group(1) for m in _MODULE_NAME.finditer(data) if _may_carry(data, m, words, filled)]
    first = _MODULE_NAME.match(b"\n" + data[: data.find(b"\n") + 1 or len(data)])
    if first is not None:
        names.insert(0, first.group(1))
    names += _imported_names(data, words)
    return tuple(dict.fromkeys(name.lower() for name in names))


# The start of the next statement at the margin (not a comment nor a closing bracket).
_MARGIN_LINE = re.compile(rb"\n(?=[^\s#)\]}])")


def _may_carry(
    data: bytes, match: re.Match[bytes], words: list[int] | None, filled: frozenset[bytes]
) -> bool:
    """Tell whether a module-level binding (a ``_MODULE_NAME`` match) may carry a weakening.

    A display or a ``partial`` carries one only if its statement holds a rule word
    (``OPTS = {"verify": False}`` over several lines, ``get = partial(requests.get,
    verify=False)``) or a module-level statement with a rule word starts with its name
    (``OPTS = {}`` then ``OPTS["verify"] = False``, in ``filled``): a table of ports,
    extensions or colours does not heat every function that reads it (a seventh of the
    functions parsed on a site-packages tree). Literals and imports by name always count.
    """
    if words is None or not match.group(0).endswith((b"[", b"(", b"{", b"partial")):
        return True
    if match.group(1) in filled:
        return True
    end = _MARGIN_LINE.search(data, match.end())
    stop = end.start() if end is not None else len(data)
    at = bisect_left(words, match.start())
    return at < len(words) and words[at] < stop


_LEADING_NAME = re.compile(rb"[A-Za-z_]\w*")


def _filled_at_margin(data: bytes, words: list[int] | None) -> frozenset[bytes]:
    """Return the names that start a module-level line holding a rule word (see ``_may_carry``)."""
    names = set()
    rfind = data.rfind
    for place in words or ():
        name = _LEADING_NAME.match(data, rfind(b"\n", 0, place) + 1)
        if name is not None:
            names.add(name.group(0))
    return frozenset(names)


# A statement's first line at an indentation of at most N (not a blank line, a comment or the
# closing bracket of a statement above), by N. The leading newline lets the regex engine jump
# from newline to newline instead of trying every byte; the first line is matched apart.
_STATEMENTS: dict[int, tuple[re.Pattern[bytes], re.Pattern[bytes]]] = {}
_DEFS = (b"def ", b"async def ", b"class ")
# A body's first statement (not a comment): its indentation.
_MEMBER = re.compile(rb"^([ \t]+)[^\s#]", re.MULTILINE)


def _statements(depth: int) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    patterns = _STATEMENTS.get(depth)
    if patterns is None:
        line = rb"[ \t]{0,%d}(?=[^ \t\r\n#)\]}])" % depth
        patterns = _STATEMENTS[depth] = (re.compile(line), re.compile(rb"\n" + line))
    return patterns


# A name bound to a display (``LEXERS = {``, ``names: tuple[str, ...] = (``): a data table.
_TABLE = re.compile(rb"[ \t]*([A-Za-z_]\w*)[ \t]*(?::[^=\n]*)?=[ \t]*[\[({]")
_NAME_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")


# A decorator's line: a dotted name, then its arguments, a subscript or the end of the line.
# Not a docstring's line at the same indentation that starts with "@" (Twisted's epytext
# fields, ``@param reactor: ...``, ``@since: 9.0``): taken for a decorator, it made the cut
# blank the docstring's end, and the cut did not parse (a fifth of the files parsed on a
# site-packages tree with Twisted were then parsed whole). A decorator of another form
# (``@(lambda f: f)``) is not recognised either: then the cut does not parse and the whole
# file is parsed, as before.
_DECORATOR = re.compile(rb"@[ \t]*[A-Za-z_][\w.]*[ \t]*(?:[(\[#\r\n]|$)")
# Statements whose body may hold defs and classes: ``if TYPE_CHECKING:`` with overloads,
# ``try:``/``except ImportError:`` with fallbacks.
_COMPOUNDS = (b"if ", b"elif ", b"else:", b"try:", b"except", b"finally:", b"with ", b"async with ")
# The kinds of block.
DEF, TABLE, COMPOUND = 0, 1, 2


def _blocks(data: bytes, start: int, stop: int, depth: int) -> list[tuple[int, int, int, bytes]]:
    """Return the (first, end, kind, table name) of the blocks at one indentation.

    Blocks: defs and classes (``DEF``), multi-line tables (``TABLE``, with the name they
    bind) and compound statements whose header is one line (``COMPOUND``); the name is empty
    but for a table.

    Only lines at this indentation or less are looked at (a regex finds them), so the bodies
    of the blocks cost nothing; a decorator's block runs to the end of the def below it, the
    others' to the next statement.
    """
    first_line, other_lines = _statements(depth)
    head = first_line.match(data, start, stop)  # ``start`` is a line's start
    starts = [head.end()] if head is not None else []
    starts += [m.end() for m in other_lines.finditer(data, start, stop)]
    blocks: list[tuple[int, int, int, bytes]] = []
    rfind, startswith = data.rfind, data.startswith
    i, n = 0, len(starts)
    while i < n:
        pos = starts[i]
        # A statement at a smaller indentation than ``depth`` (only in a class's range when
        # the cut went wrong) is not a block: the parse of the cut source will say so.
        if depth and pos - rfind(b"\n", 0, pos) - 1 != depth:
            i += 1
            continue
        name = b""
        if startswith(_DEFS, pos) or (startswith(b"@", pos) and _DECORATOR.match(data, pos)):
            kind = DEF
        elif table := _TABLE.match(data, pos):
            kind, name = TABLE, table.group(1)
        elif startswith(_COMPOUNDS, pos) and _one_line_header(data, pos):
            kind = COMPOUND
        else:
            i += 1
            continue
        first = pos - depth
        while startswith(b"@", starts[i]) and _DECORATOR.match(data, starts[i]) and i + 1 < n:
            i += 1  # decorators, then the def or class they decorate
        i += 1
        end = rfind(b"\n", 0, starts[i]) + 1 if i < n else stop
        if kind != TABLE or data.count(b"\n", first, end) > 1:  # one-line tables cost nothing
            blocks.append((first, end, kind, name))
    return blocks


def _one_line_header(data: bytes, pos: int) -> bool:
    """Tell whether the statement at ``pos`` ends its header with a colon on its first line.

    ``if TYPE_CHECKING:``, ``else:  # comment``; not ``if (a and`` nor ``if a: b = 1``.
    """
    newline = data.find(b"\n", pos)
    line = data[pos : newline if newline >= 0 else len(data)]
    if b"#" in line and not any(quote in line for quote in b"'\""):
        line = line[: line.find(b"#")]
    return line.rstrip().endswith(b":")


def _is_hot(data: bytes, first: int, end: int, depth: int, places: list[int]) -> bool:
    """Tell whether a block (``data[first:end]``) holds a place, trailing comments aside.

    A comment at the block's indentation or less after its body (``# ... verify ...`` above
    the next def) is in its byte range but says nothing about it.
    """
    at = bisect_left(places, first)
    if at == len(places) or places[at] >= end:
        return False  # most blocks: no place at all
    stop = end
    while stop > first:
        newline = data.rfind(b"\n", first, stop - 1)
        start = newline + 1 if newline >= 0 else first
        text = data[start:stop]
        body = text.lstrip(b" \t")
        if body.strip() and not (body.startswith(b"#") and len(text) - len(body) <= depth):
            break
        stop = start
    return places[at] < stop


def _holds_word(data: bytes, first: int, end: int, places: list[int]) -> bool:
    """Tell whether a dict table (``data[first:end]``) holds a place after its ``= {``.

    Settings are dicts (``DATABASES = {...}``); a list or tuple is data.
    """
    start = data.find(b"=", first, end)
    if start < 0 or data[start + 1 : start + 32].lstrip()[:1] != b"{":
        return False
    return _is_hot(data, start + 1, end, 0, places)


def _is_used(data: bytes, word: bytes, first: int, end: int) -> bool:
    """Tell whether the name ``word`` that a table (``data[first:end]``) binds is used outside it.

    A use anywhere counts, even in a string or a cold function: only a table nothing in the
    file reads is left out. Its contents need not hold a rule word to matter: a list of
    curl flags or a cipher string is tested where it is used.
    """
    pos = data.find(word)
    while pos >= 0:
        if not first <= pos < end:
            around = data[pos - 1 : pos] + data[pos + len(word) : pos + len(word) + 1]
            if not any(c in _NAME_BYTES for c in around):
                return True
        pos = data.find(word, pos + 1)
    return False


def hot_source(data: bytes, places: list[int]) -> bytes | None:
    """Blank cold functions and methods and unused data tables, keeping every line number.

    A table is unused when nothing in the file reads its name and it holds no rule word.

    Other module-level and class-level statements stay, so names resolve as in the whole
    file; a cold method's or unused table's first line becomes ``pass`` so that its class
    stays valid. Cold functions in the body of a one-line-header compound statement
    (``if TYPE_CHECKING:``, ``try:``, ``else:``) at module or class level are blanked the same
    way. The result is only a faster input for ``ast.parse``: if it does not parse, the whole
    file is parsed.

    Args:
        data: The file's bytes.
        places: ``hot_places(data, ...)``: a function is hot when it holds one.

    Returns:
        The cut source, or ``None`` when nothing would be cut.
    """
    pieces: list[bytes] = []
    kept = 0  # data[:kept] is in pieces
    count = data.count
    for first, end, kind, name in _blocks(data, 0, len(data), 0):
        if kind == TABLE:
            # Kept if read, or if it holds a rule word: a settings table nothing in the file
            # reads (Django's ``DATABASES``, a scrapy or Elastic APM dict) is checked as written.
            if _is_used(data, name, first, end) or _holds_word(data, first, end, places):
                continue
        elif kind == COMPOUND or _is_hot(data, first, end, 0, places):
            cut = _cut_body(data, first, end, 0, places)
            if cut is None:
                continue
            pieces.append(data[kept:first])
            pieces.append(cut)
            kept = end
            continue
        pieces.append(data[kept:first])
        pieces.append(b"\n" * count(b"\n", first, end))
        kept = end
    if not pieces:
        return None
    pieces.append(data[kept:])
    return b"".join(pieces)


def _cut_body(data: bytes, first: int, end: int, depth: int, places: list[int]) -> bytes | None:
    """Return a class or compound statement with its cold members cut; ``None``: nothing cut.

    Its members are at one indentation below ``depth``: a cold def or class, or an unused
    table, becomes ``pass``; a compound statement has its own body cut. A function stays
    whole, whatever it holds.
    """
    header = first
    while data.startswith(b"@", header, end):
        header = data.find(b"\n", header) + 1
        while header < end and data[header] in b" \t\r\n)":  # a decorator's other lines
            header = data.find(b"\n", header) + 1
    if data.startswith((b"def ", b"async def "), header + depth):
        return None
    body = data.find(b"\n", header) + 1
    member = _MEMBER.search(data, body, end)
    if member is None or len(member.group(1)) <= depth:
        return None
    inner_depth = len(member.group(1))
    pieces: list[bytes] = []
    kept = first
    count = data.count
    for inner, inner_end, kind, name in _blocks(data, body, end, inner_depth):
        if kind == COMPOUND:
            cut = _cut_body(data, inner, inner_end, inner_depth, places)
            if cut is None:
                continue
        elif (
            _is_used(data, name, inner, inner_end)
            if kind == TABLE
            else _is_hot(data, inner, inner_end, inner_depth, places)
        ):
            continue
        else:
            cut = b" " * inner_depth + b"pass" + b"\n" * count(b"\n", inner, inner_end)
        pieces.append(data[kept:inner])
        pieces.append(cut)
        kept = inner_end
    if not pieces:
        return None
    pieces.append(data[kept:end])
    return b"".join(pieces)
