"""The recipe of a policy context: every call that changes it, recorded as a hashable step.

A :class:`~sslcustomize.PolicyContext` records each call of a method that changes a context
without a way to read it back (``load_verify_locations``, ``load_cert_chain``,
``set_ciphers``, ``set_alpn_protocols``...) as it happens. Engines (:mod:`._engine`) replay
the recipe on private copies of the context; recording it is all a context needs while it is
made, so the engine module is loaded only at the first connection that needs one.
"""

from __future__ import annotations

import os

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any
else:
    from sslcustomize._support._notyping import Any


__all__ = [
    "ADDITIVE_STEPS",
    "ANCHOR_STEPS",
    "COPIED_PROPERTIES",
    "REPLACING_STEPS",
    "UNCARRIED",
    "UNCOPIED_MEMBERS",
    "Keywords",
    "Step",
    "add_step",
    "carried_properties",
    "generic_step",
    "normalize",
    "recorded_methods",
    "unclassified_members",
]

# A recorded call: the method's name and its arguments, positionally and hashable.
Step = tuple[str, tuple[Any, ...]]

# Calls whose latest one replaces the earlier (a context has one client certificate, one cipher
# list, one ALPN list, one list of groups), and calls that add to what is there (trust
# anchors, DH parameters). Python 3.13 added the PSK callback, 3.15 the groups, TLS 1.3 cipher
# suites and signature algorithms: names a Python lacks are simply not wrapped there.
REPLACING_STEPS = (
    "load_cert_chain",
    "set_ciphers",
    "set_alpn_protocols",
    "set_npn_protocols",
    "set_ecdh_curve",
    "set_psk_client_callback",
    "set_groups",
    "set_ciphersuites",
    "set_client_sigalgs",
    "set_server_sigalgs",
)
ADDITIVE_STEPS = (
    "load_verify_locations",
    "load_default_certs",
    "set_default_verify_paths",
    "load_dh_params",
)
ANCHOR_STEPS = ("load_verify_locations", "load_default_certs", "set_default_verify_paths")

# Every public member of ssl.SSLContext on Python 3.10-3.15, by what a copy of a context (an
# engine) does with it; REPLACING_STEPS and ADDITIVE_STEPS are recorded and replayed.
# A member a newer Python adds is in none of these: it is carried all the same (see
# recorded_methods and carried_properties), and tests/loopback/test_carried_settings.py fails
# on that Python until a person has classified it here.
COPIED_PROPERTIES = (  # read into Settings by name, set on the engine (see build_engine)
    "check_hostname",
    "hostname_checks_common_name",
    "keylog_filename",
    "maximum_version",
    "minimum_version",
    "options",
    "post_handshake_auth",
    "verify_flags",
    "verify_mode",
)
UNCOPIED_MEMBERS = {
    "protocol": "read-only, given to the engine's constructor",
    "security_level": "read-only, follows from the cipher string (set_ciphers is replayed)",
    "cert_store_stats": "reads",
    "get_ca_certs": "reads",
    "get_ciphers": "reads",
    "get_groups": "reads (3.15)",
    "session_stats": "reads",
    "wrap_bio": "makes a connection",
    "wrap_socket": "makes a connection",
    "sslobject_class": "a class attribute: engines are wrapped at the _ssl level",
    "sslsocket_class": "a class attribute: engines are wrapped at the _ssl level",
    "num_tickets": "server side only (TLS 1.3 tickets a server sends); engines are clients",
    "sni_callback": "server side only; engines are clients",
    "set_servername_callback": "server side only; engines are clients",
    "set_psk_server_callback": "server side only; engines are clients",
}
_CLASSIFIED = frozenset((*REPLACING_STEPS, *ADDITIVE_STEPS, *COPIED_PROPERTIES, *UNCOPIED_MEMBERS))


def unclassified_members(cls: type) -> dict[str, object]:
    """Return the public members of ``cls`` (ssl.SSLContext and its bases) nobody classified."""
    found: dict[str, object] = {}
    for klass in cls.__mro__[:-1]:  # not object
        for name, value in vars(klass).items():
            if not name.startswith("_") and name not in _CLASSIFIED:
                found.setdefault(name, value)
    return found


def recorded_methods(cls: type) -> tuple[str, ...]:
    """Return the methods of ``cls`` whose calls a policy context records.

    The known setters that this Python has, and every public method nobody has classified:
    a setter a newer Python adds is recorded and replayed on engines like the others (in
    call order, see :func:`add_step`) rather than silently lost.
    """
    known = tuple(name for name in (*REPLACING_STEPS, *ADDITIVE_STEPS) if hasattr(cls, name))
    unknown = tuple(
        name
        for name, value in unclassified_members(cls).items()
        if callable(value) and not isinstance(value, type)
    )
    return known + unknown


def carried_properties(cls: type) -> tuple[str, ...]:
    """Return the public data attributes of ``cls`` that nobody classified (a newer Python's).

    Their values are read from the caller's context with its settings and set on every engine
    (see :attr:`Settings.carried`), so that a property a newer Python adds is not lost.
    """
    return tuple(
        name
        for name, value in unclassified_members(cls).items()
        if hasattr(type(value), "__set__")  # property, getset_descriptor
    )


class Keywords(tuple):  # type: ignore[type-arg]  # a tuple of (name, value) pairs
    """Keyword arguments of a recorded call, kept as the last positional value of its step."""

    __slots__ = ()


# A step no engine can carry: its arguments are not values that can be kept (not hashable).
UNCARRIED = "<uncarried>"


def normalize(value: Any) -> Any:
    """Return ``value`` in a hashable form that the ssl methods accept the same way."""
    if type(value) in (list, tuple):  # not a named tuple (ssl.Purpose): kept as it is
        return tuple(normalize(item) for item in value)
    if isinstance(value, bytearray | memoryview):
        return bytes(value)
    if isinstance(value, os.PathLike):
        return os.fspath(value)
    return value


def add_step(recipe: tuple[Step, ...], step: Step) -> tuple[Step, ...]:
    """Return ``recipe`` with ``step`` recorded.

    A replacing call replaces the earlier one of its kind; an additive call is added once. A
    call of a method nobody classified (a newer Python's) is kept in call order, an earlier
    identical call moved to the end: replayed, the calls leave the state the caller's did,
    whether the method sets or adds.
    """
    name = step[0]
    if name in REPLACING_STEPS:
        return (*(s for s in recipe if s[0] != name), step)
    if name in ADDITIVE_STEPS:
        return recipe if step in recipe else (*recipe, step)
    return (*(s for s in recipe if s != step), step)


def generic_step(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Step:
    """Return the step that records ``name(*args, **kwargs)``, or an uncarried mark.

    The arguments are kept as given (keywords as a :class:`Keywords` last value); if they are
    not values that can be kept and compared (not hashable), the step is ``(UNCARRIED,
    (name,))``: the caller's own context has the setting, and no engine can be built with it
    (its connections are then made on that context, verified in the handshake).
    """
    values = normalize(args)
    if kwargs:
        values = (*values, Keywords(sorted((key, normalize(v)) for key, v in kwargs.items())))
    step: Step = (name, values)
    try:
        hash(step)
    except TypeError:
        return (UNCARRIED, (name,))
    return step
