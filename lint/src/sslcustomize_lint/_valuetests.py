"""What a resolved value means to a rule: false, ``CERT_NONE``, a weak protocol or cipher."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable

from sslcustomize_lint import _tables as t
from sslcustomize_lint._values import UNKNOWN, Const, DictVal, Param, Ref, SeqVal, Value

__all__ = [
    "WEAK_SETTING_NAMES",
    "_CIPHER_WORDS",
    "_TESTS",
    "_WEAK_PROTOCOL_NAMES",
    "_cipher_text",
    "_env_insecure",
    "_is_cert_none",
    "_is_cert_none_or_none",
    "_is_const",
    "_is_false",
    "_is_falsy",
    "_is_true",
    "_param",
    "_ref_in",
    "_str",
    "_weak_ciphers",
    "_weak_setting",
]


def _param(value: Value) -> Value:
    """Look through a parameter to its default value."""
    if isinstance(value, Param):
        return value.default if value.default is not None else UNKNOWN
    return value


def _is_const(value: Value, expected: object) -> bool:
    value = _param(value)
    return (
        isinstance(value, Const) and type(value.value) is type(expected) and value.value == expected
    )


def _is_cert_none(value: Value) -> bool:
    value = _param(value)
    if isinstance(value, Ref):
        return value.qualname in t.CERT_NONE_NAMES
    if isinstance(value, Const):
        if isinstance(value.value, str):
            return value.value.upper() in {"CERT_NONE", "NONE"}
        return type(value.value) is int and value.value == 0
    return False


def _is_false(value: Value) -> bool:
    return _is_const(value, False)


def _is_true(value: Value) -> bool:
    return _is_const(value, True)


def _is_cert_none_or_none(value: Value) -> bool:
    return _is_cert_none(value) or _is_const(value, None)


def _is_falsy(value: Value) -> bool:
    """``False``, ``0``, ``""`` or an empty literal; not ``None`` (the default in requests)."""
    value = _param(value)
    if isinstance(value, Const):
        return type(value.value) in {bool, int, float, complex, str, bytes} and not value.value
    if isinstance(value, SeqVal):
        return not value.items and value.empty
    if isinstance(value, DictVal):
        return not value.entries and isinstance(value.node, ast.Dict) and not value.node.keys
    return False


def _ref_in(value: Value, names: frozenset[str]) -> bool:
    value = _param(value)
    return isinstance(value, Ref) and value.qualname in names


_CIPHER_WORDS = ("NULL", "EXPORT", "EXP-", "RC4", "DES", "MD5")


_WEAK_PROTOCOL_NAMES = frozenset(
    name.removeprefix("ssl.PROTOCOL_") for name in t.WEAK_PROTOCOLS if name.startswith("ssl.")
)


# The names of version bounds: keywords and attributes, and pyOpenSSL's setters.
_VERSION_BOUND_NAMES = (
    t.MIN_VERSION_KEYWORDS
    | t.MAX_VERSION_KEYWORDS
    | {"set_min_proto_version", "set_max_proto_version"}
)


# The names ``_weak_setting`` tests that say TLS on their own, as a dict's keys: a cheap guard
# before a value is resolved. Not ``version``, ``method`` or ``protocol``: as keywords of a
# TLS call they choose a protocol, as keys of any dict they mean anything.
WEAK_SETTING_NAMES = frozenset(
    {
        *(t.PROTOCOL_KEYWORDS - {"version", "method", "protocol"}),
        *t.STRING_PROTOCOL_SETTINGS,
        *_VERSION_BOUND_NAMES,
        *t.POLICY_KEYWORDS,
        *t.CIPHER_KEYWORDS,
        *t.CIPHER_METHODS,
    }
)


def _weak_setting(name: str, value: Value) -> str | None:
    """Return the SSC7xx code of a weak protocol, version bound, option or cipher setting."""
    if name in t.PROTOCOL_KEYWORDS or name in t.STRING_PROTOCOL_SETTINGS:
        return _weak_protocol(name, value)
    if name in _VERSION_BOUND_NAMES or name in t.POLICY_KEYWORDS:
        return "SSC702" if _weak_bound(name, value) else None
    if name in t.CIPHER_KEYWORDS or name in t.CIPHER_METHODS:
        text = _cipher_text(value)
        return "SSC704" if text is not None and _weak_ciphers(text) else None
    if name == "clear_options":
        return "SSC703" if _ref_in(value, t.NO_OLD_PROTOCOL_OPTIONS) else None
    return None


def _weak_protocol(name: str, value: Value) -> str | None:
    """SSC701 for a weak protocol given to a protocol keyword (urllib3 also takes its name)."""
    if name in t.STRING_PROTOCOL_SETTINGS:  # scrapy's ``DOWNLOADER_CLIENT_TLS_METHOD``
        return "SSC701" if _str(value) in t.STRING_PROTOCOL_SETTINGS[name] else None
    if name == "ssl_version" and (text := _str(value)) is not None:
        # urllib3 reads a string as ``ssl.<name>`` or ``ssl.PROTOCOL_<name>``.
        return "SSC701" if text.removeprefix("PROTOCOL_") in _WEAK_PROTOCOL_NAMES else None
    return "SSC701" if _ref_in(value, t.WEAK_PROTOCOLS) else None


def _weak_bound(name: str, value: Value) -> bool:
    """A version bound, or a cloud endpoint's TLS policy, below TLS 1.2."""
    if name in t.POLICY_KEYWORDS:
        return _ref_in(value, t.WEAK_POLICIES) or _str(value) in t.WEAK_POLICY_NAMES
    return _ref_in(value, t.WEAK_VERSIONS) or _str(value) in t.WEAK_VERSION_NAMES


def _cipher_text(value: Value) -> str | None:
    """Return a cipher string given as ``str`` or ``bytes`` (pyOpenSSL takes both)."""
    value = _param(value)
    if isinstance(value, Const) and isinstance(value.value, bytes):
        return value.value.decode("ascii", "replace")
    return _str(value)


def _weak_ciphers(text: str) -> bool:
    """Tell whether an OpenSSL cipher string enables a broken suite (exclusions do not count)."""
    for word in re.split(r"[:, ]+", text):
        upper = word.upper()
        if not upper or upper[0] in "!-":
            continue
        if "@SECLEVEL=0" in upper.replace(" ", ""):  # alone or after a list: ``DEFAULT@SECLEVEL=0``
            return True
        if upper.lstrip("+") in {"EXP", "ANULL", "ENULL", "NULL", "COMPLEMENTOFALL"}:
            return True
        if any(part in upper for part in _CIPHER_WORDS):
            return True
    return False


_TESTS: dict[str, Callable[[Value], bool]] = {
    "false": _is_false,
    "true": _is_true,
    "cert_none": _is_cert_none,
    "cert_none_or_none": _is_cert_none_or_none,
    "falsy": _is_falsy,
    "falsy_or_none": lambda value: _is_falsy(value) or _is_const(value, None),
    "disable": lambda value: _str(value) == "DISABLE",  # duo_client's ca_certs
    # asyncpg's (libpq's) modes that encrypt without verifying the server
    "no_verify_mode": lambda value: _str(value) in {"require", "prefer", "allow"},
}


def _str(value: Value) -> str | None:
    value = _param(value)
    if isinstance(value, Const) and isinstance(value.value, str):
        return value.value
    return None


def _env_insecure(test: str, value: Value) -> bool:
    text = _str(value)
    if test == "zero":
        return text is not None and text.strip() == "0"
    if test == "empty":
        return text == ""
    if test == "nonempty":
        return text != ""
    return not _is_const(value, None)  # "any": git disables on any value, even "0"
