"""What a policy says about the connections it lets through: warnings and report records.

One :class:`Recorder` per runtime (per policy): its sink is opened on the first record and
closed when the policy is replaced or the process exits. Writing never raises (see
:mod:`._records`); warnings are said once per host and reason and never raise either.
"""

from __future__ import annotations

import atexit
import hashlib
import os
from functools import lru_cache
from typing import Any

from sslcustomize._decision._decide import Decision
from sslcustomize._policy._model import EnvTrust, Policy
from sslcustomize._report._records import (
    Record,
    Sink,
    machine,
    now,
    open_sink,
    program,
    warn_safely,
)
from sslcustomize._support._clock import SYSTEM_CLOCK, Clock
from sslcustomize._support._locks import fork_safe_lock
from sslcustomize._x509._der import DERError, parse_certificate
from sslcustomize.exceptions import LegacyContextWarning, UnverifiedConnectionWarning

__all__ = [
    "IGNORED_VARIABLE",
    "REACHED_ANCHOR_REASONS",
    "Recorder",
    "chain_fields",
    "is_quiet",
    "sink_name",
]

#: The reason code of the record that says a CA-bundle variable was ignored under a lock.
IGNORED_VARIABLE = "variable_ignored"

#: The reasons a record may carry and still be of a chain that reached a trust anchor: the
#: issuer was found; only the name, the dates or the code's own opt-out were at fault.
REACHED_ANCHOR_REASONS = frozenset(
    {"code_opt_out", "hostname_mismatch", "expired", "not_yet_valid"}
)

#: The warnings a quiet policy leaves out: what they say is in the records.
_RECORDED_WARNINGS = (UnverifiedConnectionWarning, LegacyContextWarning)


@lru_cache(maxsize=64)
def chain_fields(chain: tuple[bytes, ...]) -> dict[str, Any]:
    """What a record says about a chain: read once per chain, not once per connection.

    ``top_issuer`` is the issuer of the last certificate sent (unless it is self-issued), the
    certificate a missing intermediate would have issued; ``intermediates`` are the subjects
    of the CA certificates sent after the leaf, roots left out (recorded only for a chain that
    reached a trust anchor, see :meth:`Recorder.record`).
    """
    fields: dict[str, Any] = {
        "chain_sha256": tuple(hashlib.sha256(der).hexdigest() for der in chain)
    }
    if not chain:
        return fields
    try:
        certs = [parse_certificate(der) for der in chain]
    except DERError:
        return fields
    leaf, top = certs[0], certs[-1]
    fields["leaf_subject"] = leaf.subject.rfc4514
    fields["issuer"] = leaf.issuer.rfc4514
    fields["not_after"] = leaf.not_after.isoformat()
    fields["pin"] = leaf.pin
    fields["top_issuer"] = None if top.self_issued else top.issuer.rfc4514
    fields["intermediates"] = tuple(
        c.subject.rfc4514 for c in certs[1:] if c.ca and not c.self_issued
    )
    return fields


def _has_system_layer(policy: Policy) -> bool:
    """Tell whether the system layer's file (``/etc/sslcustomize/policy.toml``) was read."""
    return any(layer.layer == "system" for layer in policy.files)


def sink_name(policy: Policy) -> str:
    """Return the sink ``policy`` records to: ``[report] sink``, or the default where unset.

    The default is ``journal`` wherever the system layer exists, in either mode: every user's
    processes append to it, none reads or rewrites another's, fleets already collect it, and
    switching the machine from report to enforce leaves the records (code opt-outs) where
    they were. Where journald does not run (containers), the journal sink keeps its records
    in each account's spool under ``/var/tmp/sslcustomize-UID``, which root's ``report``
    reads. Without a system layer it is the per-user ``sqlite`` database.
    """
    setting = policy.report_sink
    if setting.origin.path is not None:
        return setting.value
    return "journal" if _has_system_layer(policy) else setting.value


def is_quiet(policy: Policy) -> bool:
    """Tell whether report mode keeps records only, without warnings on stderr.

    ``[report] quiet``, or where unset: quiet wherever the system layer exists (a fleet's
    migration must not change what its programs print), warnings for a user or venv policy.
    """
    setting = policy.report_quiet.value
    return _has_system_layer(policy) if setting is None else setting


class Recorder:
    """The warnings and records of one policy."""

    def __init__(self, policy: Policy, *, clock: Clock = SYSTEM_CLOCK) -> None:
        """Record under ``policy``'s ``[report]`` settings, at ``clock``'s time; open nothing."""
        self._policy = policy
        self._clock = clock
        self._lock = fork_safe_lock()
        self._sink: Sink | None = None
        self._warned: set[tuple[str | None, str]] = set()
        self._quiet = is_quiet(policy)

    def warn_once(
        self, host: str | None, reason: str, message: str, category: type[Warning]
    ) -> None:
        """Warn about ``host`` and ``reason`` once per policy; never raise.

        A quiet policy (:func:`is_quiet`) says nothing of what it records: the connections
        report mode lets through and those whose code turned verification off.
        """
        if self._quiet and issubclass(category, _RECORDED_WARNINGS):
            return
        key = (host, reason)
        with self._lock:
            if key in self._warned:
                return
            self._warned.add(key)
        warn_safely(message, category, stacklevel=7)

    def _open(self) -> Sink:
        with self._lock:
            if self._sink is None:
                report = self._policy
                self._sink = open_sink(
                    sink_name(report),
                    report.report_path.value,
                    group=report.report_group.value,
                    quiet=self._quiet,
                    clock=self._clock,
                )
                atexit.register(self._sink.close)
            return self._sink

    def record(
        self,
        *,
        decision: Decision,
        name: str,
        host: str | None,
        port: int | None,
        chain: tuple[bytes, ...],
        verdict: str,
        reasons: tuple[str, ...],
        starttls: str | None = None,
    ) -> None:
        """Write a record for one connection.

        The intermediates of its chain are named only when the chain reached a trust anchor of
        the policy (no pin stood in for it, and no reason says the issuer was not found): they
        are then intermediates this machine saw verify (see
        :mod:`sslcustomize._diagnosis._seen`). ``starttls`` and an expired exception that would
        have applied are kept for ``report``'s advice.
        """
        origin = decision.origin
        fields = dict(chain_fields(chain))
        if decision.pins or not REACHED_ANCHOR_REASONS.issuperset(reasons):
            fields.pop("intermediates", None)
        if decision.expired is not None:
            expired = decision.expired
            fields["expired_host"] = str(expired.host)
            fields["expired_origin"] = str(expired.origin)
            fields["expired_layer"] = expired.origin.layer
        self._write(
            context=name,
            host=host,
            port=port,
            mode=decision.mode,
            verdict=verdict,
            reasons=reasons,
            rule=decision.rule,
            origin=str(origin) if origin else None,
            starttls=starttls,
            **fields,
        )

    def record_ignored_variable(self, entry: EnvTrust, *, decision: Decision, name: str) -> None:
        """Write the record that a CA-bundle variable was ignored under a lock on ``trust``.

        ``rule`` names the variable (``environment REQUESTS_CA_BUNDLE``), ``origin`` the lock.
        """
        self._write(
            context=name,
            host=None,
            port=None,
            mode=decision.mode,
            verdict="ignored",
            reasons=(IGNORED_VARIABLE,),
            rule=f"environment {entry.variable}",
            origin=entry.why,
        )

    def record_api_opt_out(self, call: str, *, name: str, refused: bool) -> None:
        """Write the record that code called ``sslcustomize.<call>()`` to leave the policy.

        ``verdict`` is ``refused`` (the hooks stay) or ``opt_out``; ``rule`` names the call.
        """
        policy = self._policy
        origin = policy.allow_code_opt_out.origin if refused else None
        self._write(
            context=name,
            host=None,
            port=None,
            mode=policy.mode.value,
            verdict="refused" if refused else "opt_out",
            reasons=("code_opt_out",),
            rule=f"sslcustomize.{call}()",
            origin=str(origin) if origin else "lock " + ", ".join(sorted(policy.locked)),
        )

    def _write(self, **fields: Any) -> None:
        """Write a record of this process, now, with ``fields``."""
        record = Record(
            time=now(self._clock), pid=os.getpid(), program=program(), machine=machine(), **fields
        )
        self._open().write(record)

    def close(self) -> None:
        """Close the sink (it reopens if this policy records again)."""
        with self._lock:
            sink, self._sink = self._sink, None
        if sink is not None:
            atexit.unregister(sink.close)
            sink.close()
