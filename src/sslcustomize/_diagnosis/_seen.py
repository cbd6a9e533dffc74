"""Intermediates this machine has seen verify: a missing intermediate told from an unknown CA.

A chain that ends in a certificate whose issuer is neither sent nor trusted is either
*incomplete* (the server does not send an intermediate that chains to a trusted root) or issued
by a CA nobody trusts. The certificate's AIA "CA Issuers" URL tells the first (see
:func:`.._verdict._reasons.diagnose`); private CAs rarely set one. The report database tells
it too: a record of a chain that reached a trust anchor names the intermediates it went through
(``intermediates``), so an issuer among them is an intermediate this machine has seen verify
for another server, and the chain that lacks it is incomplete.

Diagnostics only: a sighting changes a reason code and its advice, never a verdict. ``check``
and ``report`` read the sightings; the rejection in the program itself uses AIA alone (it does
not read the report database on the connection path).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from sslcustomize._diagnosis._reading import Reading, read_path
from sslcustomize._verdict._reasons import target_text

if TYPE_CHECKING:
    from sslcustomize._policy._model import Policy

__all__ = [
    "Sighting",
    "SightingIndex",
    "load_sightings",
    "missing_intermediate",
    "report_file",
    "sightings",
]


@dataclass(frozen=True, slots=True, kw_only=True)
class Sighting:
    """Where an intermediate was last seen in a chain that reached a trust anchor."""

    subject: str
    host: str | None
    port: int | None
    time: str | None

    def describe(self) -> str:
        """Say where, for a sentence: ``seen verifying for mail.example:465 on 2026-12-04``."""
        where = target_text(self.host, self.port) if self.host else "another server"
        when = f" on {self.time[:10]}" if self.time else ""
        return f"this machine saw it verify for {where}{when}"


class SightingIndex:
    """The intermediates named by records, taken one record at a time: the latest one wins.

    What it keeps grows with the intermediates named, not with the records read.
    """

    def __init__(self) -> None:
        """Start with none seen."""
        self._seen: dict[str, tuple[Any, Any, Any]] = {}

    def add(self, record: Mapping[str, Any]) -> None:
        """Take the intermediates ``record`` names (records come oldest first)."""
        subjects = record.get("intermediates")
        if not subjects or not isinstance(subjects, list):
            return
        where = (record.get("host"), record.get("port"), record.get("time"))
        for subject in subjects:
            if isinstance(subject, str):
                self._seen[subject] = where

    def saw(self, subjects: list[Any], host: Any, port: Any, time: Any) -> None:
        """Take the intermediates a record of ``host`` and ``port`` at ``time`` names."""
        seen = self._seen
        for subject in subjects:
            if isinstance(subject, str):
                seen[subject] = (host, port, time)

    def __contains__(self, subject: object) -> bool:
        """Tell whether ``subject`` was seen."""
        return subject in self._seen

    def get(self, subject: str) -> Sighting | None:
        """The latest sighting of ``subject``, if any."""
        where = self._seen.get(subject)
        return None if where is None else _sighting(subject, *where)

    def all(self) -> dict[str, Sighting]:
        """Every sighting, by subject."""
        return {subject: _sighting(subject, *where) for subject, where in self._seen.items()}


def _sighting(subject: str, host: Any, port: Any, time: Any) -> Sighting:
    return Sighting(
        subject=subject,
        host=str(host) if host else None,
        port=port if isinstance(port, int) else None,
        time=str(time) if time else None,
    )


def sightings(records: Iterable[Mapping[str, Any]]) -> dict[str, Sighting]:
    """Index the intermediates named by records, oldest first, so the latest sighting wins."""
    index = SightingIndex()
    for record in records:
        index.add(record)
    return index.all()


def report_file(policy: Policy) -> str | None:
    """The report database the policy writes to, if its sink keeps a file."""
    from sslcustomize._report._records import default_path  # noqa: PLC0415 - not for report

    sink = policy.report_sink.value
    if sink not in ("sqlite", "jsonl"):
        return None
    return policy.report_path.value or default_path(sink)


def load_sightings(path: str | None) -> Mapping[str, Sighting]:
    """Read the sightings of a report database; none when it is absent or unreadable.

    Read once while the file is unchanged (``scan`` asks once per target).
    """
    if path is None:
        return {}
    try:
        status = os.stat(path)
    except OSError:
        return {}
    return _read(path, status.st_mtime_ns, status.st_size)


@lru_cache(maxsize=4)
def _read(path: str, _mtime_ns: int, _size: int) -> Mapping[str, Sighting]:
    """The sightings of the records at ``path``, read as hostile input like ``report`` does."""
    index = SightingIndex()
    try:
        read_path(path, Reading(index.add))
    except Exception:  # noqa: BLE001 - a broken database only means no sightings
        return {}
    return MappingProxyType(index.all())


def missing_intermediate(chain: Sequence[bytes], seen: Mapping[str, Sighting]) -> Sighting | None:
    """The seen intermediate that issued the top of ``chain``, if the server left it out.

    A self-issued top certificate (a root, a self-signed leaf) has no issuer to send.
    """
    if not chain or not seen:
        return None
    # Only check and scan parse certificates: report's start-up does without the parser.
    from sslcustomize._x509._der import DERError, parse_certificate  # noqa: PLC0415

    try:
        top = parse_certificate(chain[-1])
    except DERError:
        return None
    if top.self_issued:
        return None
    return seen.get(top.issuer.rfc4514)
