"""The decision: policy x host x port x context name -> what is verified and how.

A pure function. It reads no files and no clock (``today`` is an argument), so the same
inputs always give the same answer and every branch is testable without a network.
"""

from __future__ import annotations

import ssl
from collections.abc import Mapping

from sslcustomize._policy._hosts import normalize_host
from sslcustomize._policy._model import (
    MINIMUM_VERSIONS,
    ContextRule,
    HostException,
    Mode,
    Origin,
    Policy,
    TrustSource,
)
from sslcustomize._support._firstcontext import longest_prefix
from sslcustomize._support._frozen import dataclass, replace
from sslcustomize._trust._environment import CALL_TIME_VARIABLES

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt

    from sslcustomize._policy._model import EnvTrust


__all__ = ["Decision", "context_rule", "decide", "longest_prefix"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Decision:
    """What a connection is verified against.

    Attributes:
        mode: ``enforce`` rejects failures; ``report`` records them and lets them through.
        trust: The trust sources for this context.
        extra_ca: Further anchors for this host only (from an exception's ``ca``).
        pins: Accepted SPKI pins (``sha256/...``); empty means no pinning.
        check_hostname: Whether the certificate must name the host.
        minimum_tls: ``"1.2"`` or ``"1.3"``.
        allow_code_opt_out: Whether code that disables verification is obeyed.
        rule: Which rule decided: ``default``, ``context NAME`` or ``exception PATTERN``.
        origin: The file and line of that rule (``None`` for built-in defaults).
        exception: The exception that applied, if any.
        expired: The exception that would have applied had it not expired (only when none
            applies), so that a rejection can name it and its renewal.
        fallback: True when the policy files were broken and strict defaults apply.
        environment: The CA-bundle variables this context's clients read (see
            :mod:`.._trust._environment`); the sources of those ``added`` are in ``trust``.
        call_time: ``(variable, value, source)`` for the sources in ``trust`` that only a
            variable its client reads at each call added (``REQUESTS_CA_BUNDLE``): they
            count only while the variable still holds that value (see :meth:`trust_now`).
    """

    mode: Mode
    trust: tuple[TrustSource, ...]
    extra_ca: tuple[TrustSource, ...] = ()
    pins: tuple[str, ...] = ()
    check_hostname: bool = True
    minimum_tls: str = "1.2"
    allow_code_opt_out: bool = True
    rule: str = "default"
    origin: Origin | None = None
    exception: HostException | None = None
    expired: HostException | None = None
    fallback: bool = False
    environment: tuple[EnvTrust, ...] = ()
    call_time: tuple[tuple[str, str, TrustSource], ...] = ()

    def trust_now(self, environ: Mapping[str, str]) -> tuple[TrustSource, ...]:
        """Return the trust sources as the client reads its variables now.

        requests reads ``REQUESTS_CA_BUNDLE`` at each request: a program (or a test) that
        removes or changes it is no longer given its CAs, as requests alone would not be.
        """
        gone = [source for name, value, source in self.call_time if environ.get(name) != value]
        if not gone:
            return self.trust
        return tuple(source for source in self.trust if source not in gone)

    @property
    def minimum_version(self) -> ssl.TLSVersion:
        """The policy's minimum TLS version, as ``ssl`` names it (a floor code may raise)."""
        return MINIMUM_VERSIONS[self.minimum_tls]

    @property
    def ignored_environment(self) -> tuple[EnvTrust, ...]:
        """The variables this context's clients read that the policy does not use."""
        return tuple(entry for entry in self.environment if entry.state != "added")


def context_rule(policy: Policy, name: str | None) -> ContextRule | None:
    """Return the ``[context."..."]`` rule with the longest dotted prefix of ``name``."""
    return longest_prefix(policy.contexts, name)


def decide(
    policy: Policy,
    *,
    host: str | None = None,
    port: int | None = None,
    context: str | None = None,
    today: dt.date | None = None,
) -> Decision:
    """Decide how to verify a connection.

    Args:
        policy: The effective policy.
        host: The server name the client asked for; ``None`` when not yet known (a context
            being created), which leaves host exceptions out.
        port: The server's port, when known.
        context: The context name (the requesting module, or a name from ``named_contexts``).
        today: The date exceptions' ``expires`` are compared with; required with ``host``.

    Returns:
        The decision, naming the rule that made it.
    """
    decision = _context_decision(policy, context)
    if host is None or not len(policy.index):
        return decision
    if today is None:
        raise TypeError("decide() needs today= together with host=")
    try:
        name = normalize_host(host)
    except ValueError:
        return decision
    found = policy.index.lookup(name, port, lambda item: not item.expired(today))
    if found is None:
        # Only where no exception applies: the one that would have, had it not expired.
        expired = policy.index.lookup(name, port, lambda item: item.expired(today))
        return decision if expired is None else replace(decision, expired=expired)
    return _exception_decision(decision, found)


def _context_decision(policy: Policy, context: str | None) -> Decision:
    """Decide for a context before any host is known: the policy, its named rule, the variables."""
    rule = context_rule(policy, context)
    mode: Mode = policy.mode.value
    trust = policy.trust
    minimum_tls = policy.minimum_tls.value
    allow_opt_out = policy.allow_code_opt_out.value
    rule_name, origin = "default", policy.mode.origin if policy.mode.origin.path else None
    if rule is not None:
        rule_name, origin = f"context {rule.name}", rule.origin
        mode = rule.mode.value if rule.mode else mode
        trust = rule.trust.value if rule.trust else trust
        minimum_tls = rule.minimum_tls.value if rule.minimum_tls else minimum_tls
        allow_opt_out = rule.allow_code_opt_out.value if rule.allow_code_opt_out else allow_opt_out
    environment = tuple(entry for entry in policy.environment if entry.applies_to(context))
    trust, call_time = _with_environment(trust, environment)
    return Decision(
        mode=mode,
        trust=trust,
        call_time=call_time,
        minimum_tls=minimum_tls,
        allow_code_opt_out=allow_opt_out,
        rule=rule_name,
        origin=origin,
        fallback=policy.fallback,
        environment=environment,
    )


def _with_environment(
    trust: tuple[TrustSource, ...], environment: tuple[EnvTrust, ...]
) -> tuple[tuple[TrustSource, ...], tuple[tuple[str, str, TrustSource], ...]]:
    """Return ``trust`` followed by the sources the variables add that it does not name.

    And, apart, the sources that only variables read at each call added (see
    :attr:`Decision.call_time`).
    """
    # Added as `run --ca` adds: after the rule's own sources, never replacing them.
    # A bundle named twice (SSL_CERT_FILE and REQUESTS_CA_BUNDLE often name the same) once.
    seen = {(source.kind, source.path) for source in trust}
    standing = [e for e in environment if e.variable not in CALL_TIME_VARIABLES]
    later = [e for e in environment if e.variable in CALL_TIME_VARIABLES]
    added = []
    call_time = []
    for entry in (*standing, *later):
        for source in entry.sources:
            if (source.kind, source.path) not in seen:
                seen.add((source.kind, source.path))
                added.append(source)
                if entry in later:
                    call_time.append((entry.variable, entry.value, source))
    return (*trust, *added), tuple(call_time)


def _exception_decision(decision: Decision, found: HostException) -> Decision:
    """Return ``decision`` as the host exception ``found`` changes it."""
    return Decision(
        mode=found.mode or decision.mode,
        trust=decision.trust,
        extra_ca=found.ca,
        pins=found.pins,
        check_hostname=found.check_hostname,
        minimum_tls=decision.minimum_tls,
        allow_code_opt_out=decision.allow_code_opt_out,
        rule=f"exception {found.host}",
        origin=found.origin,
        exception=found,
        fallback=decision.fallback,
        environment=decision.environment,
        call_time=decision.call_time,
    )
