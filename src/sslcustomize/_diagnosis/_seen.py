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
from typing import Any

from sslcustomize._policy._model import Policy
from sslcustomize._report._records import default_path, read_records
from sslcustomize._verdict._reasons import target_text
from sslcustomize._x509._der import DERError, parse_certificate

__all__ = [
    "Sighting",
    "load_sightings",
    "missing_intermediate",
    "relabel_records",
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


def sightings(records: Iterable[Mapping[str, Any]]) -> dict[str, Sighting]:
    """Index the intermediates named by records, oldest first, so the latest sighting wins."""
    seen: dict[str, Sighting] = {}
    for record in records:
        subjects = record.get("intermediates")
        if not isinstance(subjects, list):
            continue
        port = record.get("port")
        for subject in subjects:
            if isinstance(subject, str):
                seen[subject] = Sighting(
                    subject=subject,
                    host=str(record["host"]) if record.get("host") else None,
                    port=port if isinstance(port, int) else None,
                    time=str(record["time"]) if record.get("time") else None,
                )
    return seen


def report_file(policy: Policy) -> str | None:
    """The report database the policy writes to, if its sink keeps a file."""
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
    try:
        return MappingProxyType(sightings(read_records(path)))
    except Exception:  # noqa: BLE001 - a broken database only means no sightings
        return {}


def missing_intermediate(chain: Sequence[bytes], seen: Mapping[str, Sighting]) -> Sighting | None:
    """The seen intermediate that issued the top of ``chain``, if the server left it out.

    A self-issued top certificate (a root, a self-signed leaf) has no issuer to send.
    """
    if not chain or not seen:
        return None
    try:
        top = parse_certificate(chain[-1])
    except DERError:
        return None
    if top.self_issued:
        return None
    return seen.get(top.issuer.rfc4514)


def relabel_records(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Records whose ``unknown_issuer`` is an intermediate seen in other records, relabelled.

    The record's ``top_issuer`` (the issuer of the last certificate its server sent) is looked
    up among the ``intermediates`` of all records; a match becomes ``incomplete_chain`` with
    ``missing_intermediate`` naming it and ``seen`` where it was seen. Other records are
    returned as they are.
    """
    seen = sightings(records)
    if not seen:
        return records
    relabelled = []
    for record in records:
        reasons = record.get("reasons")
        sighting = seen.get(str(record.get("top_issuer")))
        if sighting is None or not isinstance(reasons, list) or "unknown_issuer" not in reasons:
            relabelled.append(record)
            continue
        relabelled.append(
            {
                **record,
                "reasons": [
                    "incomplete_chain" if reason == "unknown_issuer" else reason
                    for reason in reasons
                ],
                "missing_intermediate": sighting.subject,
                "seen": sighting.describe(),
            }
        )
    return relabelled
