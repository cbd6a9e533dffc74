"""``sslcustomize trust --ca-file FILE``: add an organisation's CA to a layer's ``trust`` list.

The certificates are checked first (PEM, every one a CA, none a server's own certificate that
names hosts unless ``--really-a-ca`` says it is one), copied beside the policy file (in
``ca/``, so that a later change to the original, perhaps in a user's home, changes nothing
that a policy trusts), and the copy is added to the layer's ``trust`` with the file's comments
and layout kept. The effective trust is never narrowed: a layer that names ``trust`` for the
first time keeps ``"system"`` when the policy trusted the system store.
"""

from __future__ import annotations

import argparse
import ipaddress
import itertools
import os
import re
import ssl
import stat
from typing import Any

from sslcustomize._cli import EXIT_OK
from sslcustomize._cli._enable import scope_path
from sslcustomize._cli._escape import shown
from sslcustomize._cli._output import console, print_json
from sslcustomize._runtime._state import current_policy, set_policy
from sslcustomize._support._files import atomic_write, make_directories, read_regular
from sslcustomize._support._paths import pretty, unscoped_policy
from sslcustomize._trust._bundles import MAX_BUNDLE_SIZE
from sslcustomize._trust._checked_policy import parse_policy
from sslcustomize._x509._der import CertificateFacts, DERError, parse_certificate
from sslcustomize.exceptions import PolicyError

__all__ = ["CAFileError", "add_ca_file"]

_PEM = re.compile(
    r"-----BEGIN CERTIFICATE-----\s*(.*?)\s*-----END CERTIFICATE-----", flags=re.DOTALL
)


class CAFileError(Exception):
    """A refusal: the message says what is wrong and what to do (exit 2)."""


def _read_bundle(name: str) -> str:
    """Return the text of ``name``, read as a bounded regular file (issue 32 #12).

    A FIFO, a device (a link to ``/dev/zero``), a socket or a directory is refused before any
    read: root may be asked to run this on a path another user controls.
    """
    try:
        data = read_regular(name, MAX_BUNDLE_SIZE)
    except FileNotFoundError:
        raise CAFileError(f"--ca-file {name}: no such file") from None
    except ValueError as error:
        raise CAFileError(f"--ca-file {name}: {_not_regular(name, str(error))}") from None
    except OSError as error:
        raise CAFileError(f"--ca-file {name}: {error.strerror or error}") from None
    try:
        return data.decode("ascii")
    except UnicodeDecodeError:
        raise CAFileError(
            f"--ca-file {name}: not a PEM file (convert DER with "
            f"openssl x509 -inform der -in {name} -out ca.pem)"
        ) from None


def _not_regular(name: str, problem: str) -> str:
    """Name what ``name`` is when the reader refused it as not regular (only for the message)."""
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return problem
    kinds = (
        (stat.S_ISDIR, "is a directory"),
        (stat.S_ISFIFO, "is a FIFO (named pipe), not a regular file"),
        (stat.S_ISCHR, "is a character device, not a regular file"),
        (stat.S_ISBLK, "is a block device, not a regular file"),
        (stat.S_ISSOCK, "is a socket, not a regular file"),
    )
    return next((text for test, text in kinds if test(mode)), problem)


_COMMON_NAME = "2.5.4.3"
# A name a server would be reached by: a dotted DNS name (a wildcard label allowed) or localhost.
_HOST_NAME = re.compile(
    r"^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z0-9-]{1,63}\.?$|^localhost\.?$",
    flags=re.IGNORECASE,
)


def _hosts_named(facts: CertificateFacts) -> list[str]:
    """Return the hosts a certificate names: SAN DNS and IP entries, and a host-like CN."""
    named = [*facts.dns_names, *facts.ip_addresses]
    for oid, value in facts.subject.attributes:
        if oid == _COMMON_NAME and _looks_like_host(value) and value not in named:
            named.append(value)
    return named


def _looks_like_host(value: str) -> bool:
    """Tell whether a common name reads as a host name or an IP address, not a CA's title."""
    try:
        ipaddress.ip_address(value)
    except ValueError:
        return bool(_HOST_NAME.match(value))
    return True


def _ca_certificates(name: str, *, really_a_ca: bool = False) -> list[tuple[str, bytes]]:
    """Return ``(subject, DER)`` of each certificate of ``name``; refuse what is not all CAs.

    A self-signed certificate made for a server (``openssl req -x509 -subj /CN=localhost
    -addext subjectAltName=DNS:localhost`` sets ``CA:TRUE``) names hosts: trusted as a CA, it
    would let whoever holds its key vouch for every host (issue 32 #6). Unless
    ``really_a_ca``, a certificate that names hosts is refused with the advice to pin it.
    """
    text = _read_bundle(name)
    found = []
    for number, match in enumerate(_PEM.finditer(text), start=1):
        block = f"-----BEGIN CERTIFICATE-----\n{match.group(1)}\n-----END CERTIFICATE-----\n"
        try:
            der = ssl.PEM_cert_to_DER_cert(block)
            facts = parse_certificate(der)
        except (ValueError, DERError):
            raise CAFileError(f"--ca-file {name}: certificate {number} cannot be read") from None
        subject = facts.subject.rfc4514 or "(empty subject)"
        if not facts.ca:
            raise CAFileError(
                f"--ca-file {name}: certificate {number} ({shown(subject)}) is not a CA "
                "(no basicConstraints CA:TRUE): to trust one server's certificate, use "
                "sslcustomize trust HOST[:PORT] (it pins that server's key)"
            )
        hosts = _hosts_named(facts)
        if hosts and not really_a_ca:
            named = ", ".join(shown(host) for host in hosts[:3]) + ", ..." * (len(hosts) > 3)
            raise CAFileError(
                f"--ca-file {name}: certificate {number} ({shown(subject)}) names hosts "
                f"({named}): it looks like a server's own certificate, and trusted as a CA it "
                "would vouch for every host; pin that server's key instead with sslcustomize "
                f"trust {shown(hosts[0])}[:PORT], or add --really-a-ca if it is a CA"
            )
        found.append((subject, der))
    if not found:
        raise CAFileError(f"--ca-file {name}: no PEM certificate in it")
    return found


def _copy_path(policy_path: str, name: str, pem: str) -> str:
    """Return where the copy of ``name`` goes: ``ca/<name>.pem``, or ``-2``, ``-3``... after it.

    A copy of other certificates under the same name (``corp.pem`` from another directory) is
    never taken for this one: each bundle keeps a file of its own.
    """
    base = os.path.splitext(os.path.basename(name))[0] or "ca"
    directory = os.path.join(os.path.dirname(policy_path), "ca")
    paths = (
        os.path.join(directory, f"{base}.pem" if n == 1 else f"{base}-{n}.pem")
        for n in itertools.count(1)
    )
    return next(path for path in paths if _free_for(path, pem))


def _free_for(path: str, pem: str) -> bool:
    """Tell whether ``path`` is free or holds exactly ``pem`` (anything else is not ours)."""
    try:
        with open(path, encoding="ascii") as file:
            return file.read() == pem
    except FileNotFoundError:
        return True
    except (OSError, UnicodeDecodeError):
        return False


def _edit(text: str, copy: str, *, keep_system: bool) -> tuple[str, bool]:
    """Add ``copy`` to the document's ``trust``; return the text and whether it changed."""
    import tomlkit  # noqa: PLC0415 - only when writing

    document = tomlkit.parse(text) if text else tomlkit.document()
    if "version" not in document:
        document.add("version", 1)
    trust: Any = document.get("trust")
    if trust is None:
        sources = ["system", copy] if keep_system else [copy]
        # Before any table: a top-level key written after [[exception]] would belong to it.
        body = document.body
        index = next(
            (i for i, (key, item) in enumerate(body) if key is None and _is_table(item)),
            None,
        )
        if index is None:
            document.add("trust", sources)
        else:
            document.add("trust", sources)  # appended, then moved above the first table
            item = body.pop()
            body.insert(index, item)
        return tomlkit.dumps(document), True
    if copy in [str(entry) for entry in trust]:
        return text, False
    trust.append(copy)
    return tomlkit.dumps(document), True


def _is_table(item: Any) -> bool:
    from tomlkit.items import AoT, Table  # noqa: PLC0415

    return isinstance(item, Table | AoT)


def add_ca_file(args: argparse.Namespace) -> int:
    """Check ``args.ca_file``, copy it beside the policy file and add it to ``trust``.

    Raises:
        CAFileError: The file is not a bundle of CA certificates, a lock forbids the change,
            or the policy file cannot be edited.
    """
    certificates = _ca_certificates(args.ca_file, really_a_ca=getattr(args, "really_a_ca", False))
    policy = current_policy()
    if "trust" in policy.locked and args.scope != "system":
        raise CAFileError(
            f"the system policy ({policy.locked['trust']}) locks trust: ask the administrator "
            "to add this CA to /etc/sslcustomize/policy.toml (sslcustomize trust --ca-file "
            f"{args.ca_file} --scope system)"
        )
    try:
        layer, path = (args.scope, scope_path(args)) if args.scope else unscoped_policy()
    except ValueError as error:
        raise CAFileError(str(error)) from None
    pem = "".join(ssl.DER_cert_to_PEM_cert(der) for _, der in certificates)
    copy = _copy_path(path, args.ca_file, pem)
    keep_system = any(source.kind == "system" for source in policy.trust)
    try:
        text = _read(path, layer)
        new_text, changed = _edit(text, copy, keep_system=keep_system)
        if changed:
            make_directories(os.path.dirname(copy))
            atomic_write(copy, pem)
            parse_policy(new_text, path=path, layer=layer)  # nothing written if invalid
            make_directories(os.path.dirname(path))
            atomic_write(path, new_text)
    except PolicyError as error:
        raise CAFileError(
            f"{error}: fix that line of the policy file, then run this again; nothing was written"
        ) from None
    except PermissionError:
        raise CAFileError(
            f"cannot write {path}: permission denied (root for --scope system)"
        ) from None
    except OSError as error:
        raise CAFileError(f"cannot write {path}: {error.strerror or error}") from None
    set_policy(None)
    subjects = [subject for subject, _ in certificates]
    if args.json:
        print_json({"path": path, "ca_file": copy, "added": changed, "certificates": subjects})
        return EXIT_OK
    out = console()
    done = "added" if changed else "already trusted:"
    out.print(f"{done} {shown(pretty(copy))} to trust in {shown(pretty(path))}")
    for subject in subjects:
        out.print(f"  CA: {shown(subject)}")
    return EXIT_OK


def _read(path: str, layer: str) -> str:
    try:
        with open(path, encoding="utf-8") as file:
            text = file.read()
    except FileNotFoundError:
        return ""
    # Validate the file as it is first: an edit of a broken file would keep it broken.
    parse_policy(text, path=path, layer=layer)
    return text
