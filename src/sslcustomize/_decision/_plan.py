"""The plan of one connection: which context connects, and what is judged before any byte.

A pure function of the decision (policy x host x port x context name), the caller's
settings and what is already known of the host (pinned leaves seen before). Three shapes:

* **native**: OpenSSL verifies during the handshake, on the caller's own context (the common
  case, judged again after the handshake with the settings read when it was planned, since
  the caller's context may change meanwhile by routes nothing can count) or on an engine
  with the plan's anchors (a client certificate to send, an exception's ``ca``, a pinned
  leaf already seen, a refused weakening). A failing chain aborts the handshake before the
  client sends its certificate or any application data.
* **deferred**: the handshake runs on a private engine that does not verify (report mode, a
  pin not yet seen), and the chain is judged before any application data moves in either
  direction; in enforce a client certificate is withheld whenever the verdict could reject.
* **opt-out**: the caller turned verification off and the policy obeys; the connection runs
  on the caller's context and is recorded.
"""

from __future__ import annotations

import functools
import ssl

from sslcustomize._decision._decide import Decision
from sslcustomize._decision._engine import (
    VERSIONED_PROTOCOLS,
    EngineSpec,
    Settings,
    python_defaults,
    weakened_flags,
)
from sslcustomize._support._frozen import dataclass, replace

__all__ = ["Plan", "make_plan", "weakenings"]


@dataclass(frozen=True, slots=True, kw_only=True)
class Plan:
    """How one connection is made and judged.

    Attributes:
        decision: The rule for this host, port and context.
        name: The context name.
        host: The server name asked for.
        port: The server's port, when known.
        engine: The engine to connect with; ``None`` for the caller's own context.
        judge: Whether the chain is judged after the handshake (before any data).
        verify: What enforce mode verifies with (the verdict's verifier).
        opt_out: The caller's weakenings, obeyed: proceed and record.
        weakened: What the caller turned off (``verify_mode``, ``check_hostname``, flags).
        floor: Report mode's floor where the engine cannot hold it (a pinned exception):
            the verifier of what Python or the policy accepts, without pins. A chain it
            refuses and no pin vouches for is rejected after the handshake, as Python would.
    """

    decision: Decision
    name: str
    host: str | None
    port: int | None
    engine: EngineSpec | None
    judge: bool
    verify: EngineSpec
    opt_out: bool = False
    weakened: tuple[str, ...] = ()
    floor: EngineSpec | None = None


def weakenings(settings: Settings, host: str | None, minimum: int = 0) -> tuple[str, ...]:
    """Name what ``settings`` make more permissive than Python's default context.

    The verify flags and the security level are compared with Python's own default (see
    :func:`._engine.weakened_flags`): flags added or default flags removed, a lower level.
    A minimum TLS version below ``minimum`` (the policy's floor) is one too.
    """
    found = []
    if minimum and settings.protocol in VERSIONED_PROTOCOLS:
        current = settings.minimum_version
        if current == ssl.TLSVersion.MINIMUM_SUPPORTED:
            # What a plain context has where Python leaves the floor to OpenSSL (Debian's
            # builds): OpenSSL 3 allows nothing below TLS 1.2 above security level 0, and a
            # lowered security level is a weakening of its own.
            current = ssl.TLSVersion.TLSv1_2
        if current < minimum:
            found.append("minimum_version")
    if settings.verify_mode != ssl.CERT_REQUIRED:
        found.append("verify_mode")
    if not settings.check_hostname or host is None:
        found.append("check_hostname")
    if any(weakened_flags(settings.verify_flags)):
        found.append("verify_flags")
    if settings.security_level < python_defaults()[1]:
        found.append("security_level")
    return tuple(found)


def _verifier(
    decision: Decision, settings: Settings, host: str | None, weakened: tuple[str, ...]
) -> EngineSpec:
    """What enforce mode verifies with: the decision's anchors, the caller's weakenings refused."""
    # check_hostname = false is only valid with a pin of the leaf's own key (judge_chain).
    check_name = host is not None and (decision.check_hostname or not decision.pins)
    added, removed = weakened_flags(settings.verify_flags)
    return EngineSpec(
        check_hostname=check_name,
        extra_anchors=decision.extra_ca,
        drop_flags=added,
        add_flags=removed,
        security_level=python_defaults()[1] if "security_level" in weakened else 0,
        minimum_version=int(decision.minimum_version) if "minimum_version" in weakened else 0,
    )


def _report_floor(
    decision: Decision, settings: Settings, host: str | None, verify: EngineSpec, *, weakened: bool
) -> EngineSpec | None:
    """Return report mode's floor over a context Python itself would verify, else ``None``.

    Report mode (top level, [context.*] or an exception's own) over such a context: what
    Python refuses is refused, before the client certificate or any byte, unless the
    exception's own pin or CA vouches for it; what only the policy adds is judged after the
    handshake and reported.
    """
    if decision.mode == "enforce" or weakened or settings.python_recipe is None:
        return None
    return replace(verify, check_hostname=host is not None, python=True)


def make_plan(
    decision: Decision,
    settings: Settings,
    *,
    name: str,
    host: str | None,
    port: int | None,
    leaves: tuple[bytes, ...] = (),
) -> Plan:
    """Plan a connection.

    Args:
        decision: The decision for this host, port and context.
        settings: The caller's context settings.
        name: The context name.
        host: The server name asked for.
        port: The server's port, when known.
        leaves: Leaves of this exception seen before whose key matched a pin.
    """
    weakened = weakenings(settings, host, int(decision.minimum_version))
    verify = _verifier(decision, settings, host, weakened)
    base = functools.partial(
        Plan, decision=decision, name=name, host=host, port=port, verify=verify, weakened=weakened
    )
    if weakened and decision.allow_code_opt_out:
        return base(engine=None, judge=True, opt_out=True)
    enforce = decision.mode == "enforce"
    pins = decision.pins
    if not pins and enforce:
        native = not weakened and not decision.extra_ca and verify.check_hostname
        if native and not settings.has_client_certificate:
            # The caller's own context verifies in the handshake, and the chain is judged
            # again after it with these settings: another thread (or a C descriptor, or
            # another library's setter) that changes the context meanwhile changes nothing.
            return base(engine=None, judge=True)
        # A client certificate goes out during the handshake: only on a private copy of the
        # settings planned with, which nobody else can change.
        return base(engine=verify, judge=False)
    floor = _report_floor(decision, settings, host, verify, weakened=bool(weakened))
    if floor is not None and not pins:
        return base(engine=floor, judge=True)
    engine = _pinned_engine(verify, floor, leaves, settings, enforce=enforce)
    return base(engine=engine, judge=not (enforce and engine.verify), floor=floor)


def _pinned_engine(
    verify: EngineSpec,
    floor: EngineSpec | None,
    leaves: tuple[bytes, ...],
    settings: Settings,
    *,
    enforce: bool,
) -> EngineSpec:
    """Return the engine of a pinned exception's connection (or report mode's floor's)."""
    client_certificate = settings.has_client_certificate
    if enforce and leaves and client_certificate:
        # The pinned leaf was seen and matched: verify natively against exactly it, so the
        # client certificate is only ever sent to a server that holds the pinned key.
        return replace(verify, leaves=leaves)
    if floor is not None and client_certificate:
        # Report mode never breaks what Python does: the certificate goes where Python itself
        # would send it (OpenSSL verifies the floor in the handshake, before the client's
        # Certificate message), and to the holder of the pinned key once its leaf is seen.
        # What only the pin refuses is judged after the handshake and reported.
        return replace(floor, leaves=leaves) if leaves else floor
    return EngineSpec(
        verify=False,
        withhold_client_certificate=enforce and client_certificate,
        minimum_version=verify.minimum_version,
    )
