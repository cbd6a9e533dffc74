"""Turn OpenSSL's verification result into reason codes, a plain message and the safe fix.

Runs only after a handshake failed; certificates are read with the stdlib-only
:mod:`.._x509._der` reader, so a rejection never needs ``cryptography`` (a process without it still
explains its rejections).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from sslcustomize._support._escape import visible
from sslcustomize._support._frozen import dataclass
from sslcustomize._x509._der import CertificateFacts, DERError, parse_certificate

TYPE_CHECKING = False
if TYPE_CHECKING:
    import datetime as dt

__all__ = [
    "REASONS",
    "STARTTLS_PORTS",
    "Diagnosis",
    "diagnose",
    "explain",
    "fix_for_record",
    "proxy_fix",
    "reasons_for_code",
    "renewal",
    "target_text",
    "trust_command",
]

REASONS = (
    "expired",
    "not_yet_valid",
    "hostname_mismatch",
    "self_signed",
    "unknown_issuer",
    "incomplete_chain",
    "weak_key",
    "weak_signature",
    "pin_mismatch",
    "not_for_server_auth",
    "invalid",
    "unjudgeable",
)

# OpenSSL X509_V_ERR_* codes (include/openssl/x509_vfy.h) to reason codes. 2, 20 and 21
# ("unable to get issuer") are refined by looking at the chain: see _issuer_reason().
_CODES = {
    9: "not_yet_valid",
    10: "expired",
    18: "self_signed",
    19: "unknown_issuer",
    26: "not_for_server_auth",
    27: "unknown_issuer",
    28: "unknown_issuer",
    62: "hostname_mismatch",
    63: "hostname_mismatch",  # email mismatch: cannot happen for servers, kept for clarity
    64: "hostname_mismatch",
    66: "weak_key",
    67: "weak_key",
    68: "weak_signature",
}
_ISSUER_UNKNOWN = (2, 20, 21)

# STARTTLS protocols and their default ports (the ports ``check`` and ``trust`` assume).
STARTTLS_PORTS = {"smtp": 25, "imap": 143, "pop3": 110, "ftp": 21}


def target_text(host: str, port: int | None, starttls: str | None = None) -> str:
    """Return ``host[:port]`` as ``check`` and ``trust`` parse it back.

    IPv6 addresses are bracketed (``[::1]:8443``); the port is left out only when it is the
    one the command would assume (443, or the STARTTLS protocol's own).
    """
    shown = f"[{host}]" if ":" in host else host
    default = STARTTLS_PORTS.get(starttls, 443) if starttls else 443
    return shown if port is None or port == default else f"{shown}:{port}"


def trust_command(
    host: str | None,
    port: int | None,
    *,
    starttls: str | None = None,
    ca: bool = False,
    days: int | None = None,
) -> str:
    """Return the ``sslcustomize trust`` command that, pasted, trusts this server.

    Args:
        host: The server name or address asked for (``HOST`` when unknown).
        port: The server's port (``None``: 443).
        starttls: The STARTTLS protocol the client spoke before TLS (``smtp``, ``imap``,
            ``pop3``, ``ftp``), so that the command fetches the certificate the same way.
        ca: Trust the CA the server sends instead of pinning its key.
        days: Give the exception this many days (``--days N``).
    """
    words = ["sslcustomize", "trust"]
    if ca:
        words.append("--ca")
    if days is not None:
        words += ["--days", str(days)]
    if starttls:
        words += ["--starttls", starttls]
    words.append(target_text(host, port, starttls) if host else "HOST")
    return " ".join(words)


def renewal(
    *,
    pattern: str,
    origin: str,
    expired_on: dt.date | None,
    host: str | None,
    port: int | None,
    starttls: str | None = None,
    days: int,
) -> str:
    """Name an expired exception that would have applied, and the command that renews it.

    ``sslcustomize trust --days N HOST`` keeps the reason of the exception it replaces.
    """
    command = trust_command(host, port, starttls=starttls, days=days)
    return (
        f"the exception for {visible(pattern)} ({visible(origin)}) expired on {expired_on}: "
        f"if it is still wanted, renew it with {command} (it keeps its reason)"
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class Diagnosis:
    """Why a chain failed, in words a person can act on."""

    reasons: tuple[str, ...]
    problem: str
    fix: str


def reasons_for_code(code: int) -> str:
    """Return the reason code for an OpenSSL verification code (``invalid`` if unknown)."""
    return _CODES.get(code, "invalid")


def diagnose(
    *,
    verify_code: int,
    verify_message: str,
    chain: Sequence[bytes],
    host: str | None,
    port: int | None,
    starttls: str | None = None,
    now: dt.datetime | None = None,
) -> Diagnosis:
    """Explain a verification failure.

    Args:
        verify_code: OpenSSL's code (``SSLCertVerificationError.verify_code``).
        verify_message: OpenSSL's message.
        chain: The certificates the server sent, DER, leaf first (may be empty).
        host: The name asked for.
        port: The port, for the suggested ``sslcustomize trust`` command.
        starttls: The STARTTLS protocol spoken before TLS, if any, for that command.
        now: The current time (for messages about the clock).

    Returns:
        Reason codes, the problem and the fix, as sentences.
    """
    certs = _parse(chain)
    reason = reasons_for_code(verify_code)
    if verify_code in _ISSUER_UNKNOWN:
        reason = _issuer_reason(certs)
    problem, fix = explain(
        reason,
        chain=chain,
        host=host,
        port=port,
        starttls=starttls,
        message=verify_message,
        now=now,
    )
    return Diagnosis(reasons=(reason,), problem=problem, fix=fix)


def _parse(chain: Sequence[bytes]) -> list[CertificateFacts]:
    try:
        return [parse_certificate(der) for der in chain]
    except DERError:
        return []


def explain(
    reason: str,
    *,
    chain: Sequence[bytes],
    host: str | None,
    port: int | None,
    starttls: str | None = None,
    message: str = "",
    now: dt.datetime | None = None,
) -> tuple[str, str]:
    """Return what a reason code means for this chain, and the safe fix, as sentences.

    Every command in a fix is complete: pasted as printed (plus ``--yes --reason ...``), it
    reaches the same server the same way (port, ``--starttls``, IPv6 brackets).

    Args:
        reason: One of :data:`REASONS`.
        chain: The certificates the server sent, DER, leaf first (may be empty).
        host: The name or address asked for.
        port: The server's port.
        starttls: The STARTTLS protocol spoken before TLS, if any.
        message: OpenSSL's verification message.
        now: The current time (for messages about the clock).
    """
    if reason == "pin_mismatch":
        return (
            "the server's key matches none of the pins of its exception",
            "if the server's key changed on purpose, update the pin: "
            f"{trust_command(host, port, starttls=starttls)}; otherwise someone may be "
            "intercepting the connection",
        )
    certs = _parse(chain)
    commands = _Commands(
        pin=trust_command(host, port, starttls=starttls),
        ca=trust_command(host, port, starttls=starttls, ca=True),
    )
    import datetime as dt  # noqa: PLC0415 - a rejection's, not every connection's

    problem, fix = _explain(
        reason, message, certs, host or "the server", commands,
        now or dt.datetime.now(dt.timezone.utc),
    )  # fmt: skip
    if certs and reason == "self_signed":
        fix += f" (its key's pin is {certs[0].pin})"
    return problem, fix


@dataclass(frozen=True, slots=True, kw_only=True)
class _Commands:
    """The trust commands a fix may name: pin the server's key, or trust the CA it sends."""

    pin: str
    ca: str


def _issuer_reason(certs: Sequence[CertificateFacts]) -> str:
    """Tell a missing intermediate from an issuer nobody trusts.

    The chain the server sent ends in a certificate whose issuer is neither sent nor trusted.
    If that certificate names where its issuer can be downloaded (AIA caIssuers, as public
    CAs' certificates do), a browser would fetch it and succeed: the chain is incomplete.
    A self-issued top certificate (a root, or a self-signed leaf) has no issuer to send, so
    an untrusted one is never an incomplete chain.
    """
    if not certs or certs[-1].self_issued:
        return "unknown_issuer"
    if certs[-1].ca_issuers:
        return "incomplete_chain"
    return "unknown_issuer"


# For each reason: what is wrong, and the safe fix. Fields are filled by _fields().
_EXPLANATIONS = {
    "expired": (
        "its certificate expired on {not_after:%Y-%m-%d}",
        "the server's operator must renew the certificate",
    ),
    "not_yet_valid": (
        "its certificate is not valid before {not_before:%Y-%m-%d %H:%M} UTC",
        "your clock says {now:%Y-%m-%d %H:%M} UTC: if that is wrong, fix the clock; otherwise "
        "the server's certificate was issued with a future start date",
    ),
    "hostname_mismatch": (
        "its certificate is issued for {names}, not {host}",
        "connect with a name the certificate lists, or have it reissued with this name",
    ),
    "self_signed": (
        "it presents a self-signed certificate ({subject})",
        "if you know this server, trust exactly its key: {pin_command}",
    ),
    "incomplete_chain": (
        "the server does not send its intermediate certificate '{top_issuer}'",
        "the server's operator must configure the full chain (leaf and intermediates)",
    ),
    "unknown_issuer": (
        "its certificate is issued by '{top_issuer}', which no trust source of this rule trusts",
        "if that is your organisation's CA, add its certificate to the policy's trust list "
        "(sslcustomize trust --ca-file CA.pem); {for_this_host}",
    ),
    "weak_key": (
        "a certificate in its chain has a key too small for the security level ({message})",
        "the server's operator must reissue it with RSA >= 2048 bits or an EC key",
    ),
    "weak_signature": (
        "a certificate in its chain is signed with a weak algorithm ({message})",
        "the server's operator must reissue it signed with SHA-256 or better",
    ),
    "not_for_server_auth": (
        "its certificate is not issued for TLS server authentication (extended key usage)",
        "the server's operator must use a certificate issued for serverAuth",
    ),
    "invalid": ("its certificate is invalid ({message})", "the server's certificate must be fixed"),
    # OpenSSL gave no verdict on the chain (the offline replay itself failed): the connection
    # is refused, and nothing is known to be wrong with the certificate.
    "unjudgeable": (
        "sslcustomize could not judge its certificate chain offline ({message})",
        "nothing is known to be wrong with the certificate: do not change it for this; the "
        "connection is refused only because no verdict was reached. Please report it with "
        "the output of sslcustomize doctor",
    ),
}


#: The reasons whose fix is to trust or pin what the server presents: through a proxy that
#: inspects TLS, that is the proxy's certificate, never the server's.
_PROXY_SENSITIVE = ("unknown_issuer", "self_signed")


def proxy_fix(reason: str, host: str | None, environ: Mapping[str, str]) -> str | None:
    """Return the fix where a proxy configured for ``host`` may have made the chain, else ``None``.

    Through a TLS-inspecting proxy the chain is the proxy's, forged for this host: pinning its
    key would trust the proxy for the host and leave the server's own key unknown, so the fix
    is the proxy's CA, never a pin. Likely where the environment configures an HTTPS proxy that
    the host is not excluded from (``NO_PROXY``), as the clients that read it do.
    """
    if reason not in _PROXY_SENSITIVE or not host:
        return None
    proxies = {k.lower(): v for k, v in environ.items() if k.lower().endswith("_proxy")}
    proxy = proxies.get("https_proxy") or proxies.get("all_proxy")
    if not proxy:
        return None
    import urllib.request  # noqa: PLC0415 - only for a rejection, only with a proxy

    no_proxy = proxies.get("no_proxy", "")
    bypass = urllib.request.proxy_bypass_environment  # type: ignore[attr-defined]  # untyped
    if no_proxy and bypass(host, {"no": no_proxy}):
        return None
    return (
        f"a proxy is configured ({visible(_without_password(proxy))}): if it inspects TLS, this "
        "certificate is the proxy's, not the server's, and its CA must be trusted "
        "(ask its administrator for the CA's certificate, then: "
        "sslcustomize trust --ca-file PROXY-CA.pem); do not pin this key, it would be the "
        "proxy's"
    )


def _without_password(url: str) -> str:
    """``http://user:secret@proxy:3128`` shown as ``http://user@proxy:3128``."""
    scheme, sep, rest = url.partition("://")
    credentials, at, place = rest.rpartition("@")
    if not at:
        return url
    return f"{scheme}{sep}{credentials.partition(':')[0]}@{place}"


def _explain(  # noqa: PLR0917 - the fields of one sentence
    reason: str,
    message: str,
    certs: Sequence[CertificateFacts],
    host: str,
    commands: _Commands,
    now: dt.datetime,
) -> tuple[str, str]:
    if reason == "unjudgeable":  # says nothing about the chain, readable or not
        problem, fix = _EXPLANATIONS[reason]
        return problem.format(message=message), fix
    if not certs:
        return f"the certificate failed verification ({message})", "check the server's chain"
    leaf = certs[0]
    fields = {
        "not_after": leaf.not_after,
        "not_before": leaf.not_before,
        "now": now,
        # The certificate's words are the server's (a MITM's too): escaped, never obeyed.
        "names": visible(", ".join(leaf.names)) or "no names",
        "host": visible(host),
        "subject": visible(leaf.subject.short()),
        "top_issuer": visible(certs[-1].issuer.short()),
        # `trust --ca` needs the CA among what the server sends; otherwise pin the server.
        "for_this_host": (
            f"for this host only: {commands.ca}"
            if certs[-1].self_issued and len(certs) > 1
            else f"the server does not send that CA; to trust this server only, pin its key: "
            f"{commands.pin}"
        ),
        "pin_command": commands.pin,
        "message": visible(message),
    }
    problem, fix = _EXPLANATIONS.get(reason, _EXPLANATIONS["invalid"])
    return problem.format(**fields), fix.format(**fields)


# Reasons whose safe fix, when the server is yours to vouch for, is to trust it explicitly.
_TRUSTABLE = ("self_signed", "unknown_issuer", "pin_mismatch")


def fix_for_record(reason: str, host: str | None, port: int | None) -> str:
    """Return the fix for a reason when only the host and port are known (report records).

    Records keep fingerprints, not certificates, so the fix starts from ``check`` (which
    fetches the chain and explains it) and, where trusting the server is the fix, names the
    exact ``trust`` command.
    """
    check = "sslcustomize check " + (target_text(host, port) if host else "HOST")
    if reason in _TRUSTABLE:
        return f"{check}; if you know this server: {trust_command(host, port)}"
    _, fix = _EXPLANATIONS.get(reason, _EXPLANATIONS["invalid"])
    if "{" in fix:
        return f"{check}, then follow its fix"
    return f"{fix} (see {check})"
