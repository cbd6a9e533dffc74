"""What a process's first context needs of the policy, kept from the last full read.

A context gets two things from the policy when it is made: the minimum TLS version of its
context name (set on it at once, where the program can read and change it) and the trust
anchors (recorded on it deferred, registered only when its store is read or a connection is
made; see ``_connection._contexts``). Only the first is needed before the first connection.
Reading the policy, checking its trust sources and building the runtime that decides
(~20 modules and ~3 ms) can then wait for the first connection, as long as the minimum version
is known without them.

So each time a process builds its runtime from the policy files, it keeps here, in ``marshal``
form under the user cache directory (``first-context/``), the exact bytes of every policy
file it read (``None`` for one that was absent) and the minimum TLS version of each
``[context."..."]`` rule and of the default, as the real decision gave them. A later
process's first context reads the same files, and uses the entry only when every byte is
the same; anything else is a miss, and the context is made the full way.

An entry is a hint, never a verdict: at the first connection (or the first read of the
context's store) the context is put under the real runtime, gets its anchors from the real
decision, and its minimum version is raised to the decision's if the entry said less
(:func:`.._connection._contexts.context_state`). Entries follow the parse cache's rules (a
private directory and file of this user's, see ``_policy._tomlcache``); an entry that does
not say a policy is sound (errors, warnings to announce) is never written.
"""

from __future__ import annotations

import binascii
import marshal
import os
import sys

from sslcustomize._support import _bootstrap
from sslcustomize._support._files import (
    cache_directory,
    private_directory,
    read_regular,
    write_cache_entry,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping
    from typing import TypeVar

    T = TypeVar("T")

__all__ = [
    "FilesKey",
    "files_key",
    "longest_prefix",
    "made_early",
    "minimum_tls",
    "remember",
    "used",
]

#: Each policy file's layer, path and exact bytes (``None``: absent), in merge order.
FilesKey = tuple[tuple[str, str, "bytes | None"], ...]

_FORMAT = 1
_TAG = f"{sys.implementation.cache_tag}-{marshal.version}"
_MAX_FILE = 1 << 20  # a larger policy file is read the full way
_MAX_ENTRY = 4 << 20
_KEEP = 64  # entries of this interpreter's kind (see write_cache_entry)
_VERSIONS = ("1.2", "1.3")

# Set once a context has been made from an entry: ``_runtime._state`` then keeps the runtime
# such contexts are under when code replaces the policy before their first connection.
_made_early = False
# Whether this process's entry was found: a process that used it need not write it again.
_hit = False
# The versions of the entry found (the default, the rules'): read once per process, as the
# full path reads the policy once per process.
_found: tuple[str, dict[str, str]] | None = None


def longest_prefix(table: Mapping[str, T], name: str | None) -> T | None:
    """Return ``table``'s entry for the longest dotted prefix of ``name`` (``a.b`` for ``a.b.c``).

    The lookup of ``[context."..."]`` rules and of named contexts, here where a first context
    needs it without the decision's module. The cost grows with the number of dots in
    ``name``, not with the size of ``table``.
    """
    if not name or not table:
        return None
    while True:
        found = table.get(name)
        if found is not None:
            return found
        name, dot, _ = name.rpartition(".")
        if not dot:
            return None


def files_key() -> FilesKey | None:
    """Return every policy file's layer, path and bytes now; ``None`` if one cannot be read.

    A file that exists but cannot be read (a dangling link, no permission, too large) is no
    key: the full read then says what is wrong with it.
    """
    files = [*_bootstrap.layer_paths()]
    files += [("process", path) for path in _bootstrap.process_policy_paths()]
    key = []
    for layer, path in files:
        try:
            data: bytes | None = read_regular(path, _MAX_FILE)
        except (FileNotFoundError, NotADirectoryError):
            if os.path.lexists(path):
                return None
            data = None
        except (OSError, ValueError):
            return None
        key.append((layer, path, data))
    return tuple(key)


def _entry(key: FilesKey) -> str | None:
    """Return the entry's path for these files (one per set of paths); ``None``: no safe cache."""
    if not hasattr(os, "geteuid"):  # pragma: no cover - Windows: no ownership checks
        return None
    directory = cache_directory("first-context")
    if not private_directory(directory):
        return None
    paths = "\0".join(f"{layer}\0{path}" for layer, path, _ in key)
    return os.path.join(directory, f"{_TAG}-{binascii.crc32(os.fsencode(paths)):08x}")


def made_early() -> bool:
    """Tell whether a context of this process was made from an entry."""
    return _made_early


def used() -> bool:
    """Tell whether this process found its entry (it then need not write it again)."""
    return _hit


def minimum_tls(name: str | None) -> str | None:
    """Return the minimum TLS version the policy gives context ``name``; ``None``: a miss.

    Called only before the process has a runtime: the version comes from the entry written
    the last time the policy files, byte for byte the same, were read in full.
    """
    global _made_early, _hit, _found  # noqa: PLW0603 - process-wide marks, set once
    _made_early = True  # before the read: a runtime replaced meanwhile is kept for this context
    if _found is None:
        _found = _read_entry()
        if _found is None:
            return None
    default, rules = _found
    found = longest_prefix(rules, name) if name else None
    version = default if found is None else found
    if version not in _VERSIONS:
        return None
    _hit = True
    return str(version)


def _read_entry() -> tuple[str, dict[str, str]] | None:
    """Return the default and the rules' versions of the entry for the files as they are now."""
    key = files_key()
    entry = None if key is None else _entry(key)
    if entry is None:
        return None
    try:
        data = read_regular(entry, _MAX_ENTRY, private=True)
        # S302: a file of this user's alone, checked on the open descriptor.
        form, files, default, rules = marshal.loads(data)  # noqa: S302
    except (OSError, EOFError, ValueError, TypeError):
        return None
    if form != _FORMAT or files != key or not isinstance(rules, dict):
        return None
    return default, rules


def remember(key: FilesKey | None, default: str, rules: dict[str, str]) -> None:
    """Keep the minimum TLS versions of a sound policy read from the files of ``key``.

    Best effort: an entry that cannot be written costs the next process the full path, never
    a policy. Nothing is written by a process that used the entry (it is there already).
    """
    if key is None or _hit:
        return
    entry = _entry(key)
    if entry is None:
        return
    try:
        data = marshal.dumps((_FORMAT, key, default, rules))
    except ValueError:  # pragma: no cover - strings and bytes only
        return
    write_cache_entry(entry, data, keep=_KEEP)
