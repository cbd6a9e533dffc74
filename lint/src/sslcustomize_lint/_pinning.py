"""Pinning and late name checks: where code turns a check off to do it itself.

``check_hostname = False`` and ``CERT_NONE`` in a branch taken when a fingerprint is
configured (urllib3's ``assert_fingerprint`` then compares the peer's certificate), or in a
function that hashes the peer's certificate (``getpeercert(True)``) and compares the digest,
replace the chain by a pin: not a plain opt-out. The same without the comparison stays a
finding. Likewise ``check_hostname = False`` in a class or function that matches the host name
itself after the handshake (``match_hostname(sock.getpeercert(), host)``).
"""

from __future__ import annotations

import ast
from collections.abc import Callable

__all__ = ["PINNABLE", "calls_host_match", "name_checked_lines", "pinned_lines"]

_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef

# Codes of verification turned off that a pin checked in the same place replaces.
PINNABLE = frozenset(
    {"SSC101", "SSC102", "SSC103", "SSC104", "SSC201", "SSC202", "SSC203", "SSC204", "SSC205"}
)
# Words of a configured pin in a branch's test (``if config.ssl_assert_fingerprint:``).
_PIN_WORDS = ("fingerprint", "thumbprint", "pinned", "pinning")
# Calls that compare digests in constant time.
_COMPARISONS = frozenset({"compare_digest"})
# Calls that hash bytes (``hashlib.sha256(der).hexdigest()``, ``cert.digest("sha256")``).
_HASHES = frozenset(
    {"sha1", "sha256", "sha384", "sha512", "md5", "new", "digest", "hexdigest", "fingerprint"}
)


def _called_name(node: ast.Call) -> str:
    func = node.func
    if isinstance(func, ast.Attribute):
        return func.attr
    return func.id if isinstance(func, ast.Name) else ""


def _peer_certificate_bytes(node: ast.Call) -> bool:
    """``sock.getpeercert(True)`` / ``getpeercert(binary_form=True)``, pyOpenSSL's peer cert."""
    name = _called_name(node)
    if name == "getpeercert":
        given = [*node.args, *(k.value for k in node.keywords if k.arg == "binary_form")]
        return any(isinstance(v, ast.Constant) and v.value is True for v in given)
    return name in {"get_peer_certificate", "get_peer_cert_chain"}


def _compares_peer_digest(function: ast.AST) -> bool:
    """Tell whether a function hashes the peer's certificate and compares the result.

    urllib3's ``assert_fingerprint(cert, fingerprint)`` does all three.
    """
    peer = hashed = compared = False
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            name = _called_name(node)
            if name == "assert_fingerprint":
                return True
            peer = peer or _peer_certificate_bytes(node)
            hashed = hashed or name in _HASHES
            compared = compared or name in _COMPARISONS
        elif isinstance(node, ast.Compare) and any(
            isinstance(op, ast.Eq | ast.NotEq | ast.In | ast.NotIn) for op in node.ops
        ):
            compared = True
    return peer and hashed and compared


def _reads_pin(test: ast.expr) -> bool:
    """Tell whether a branch's test reads a name or attribute that names a pin."""
    for node in ast.walk(test):
        word = node.id if isinstance(node, ast.Name) else getattr(node, "attr", None)
        if isinstance(word, str) and any(pin in word.lower() for pin in _PIN_WORDS):
            return True
    return False


def pinned_lines(tree: ast.Module, source: bytes | None) -> set[int]:
    """Return the lines where verification is off because a pin is checked instead.

    The body of a branch whose test reads a pin option, in a file that hands the pin to
    urllib3 (``assert_fingerprint``) or compares the peer's digest itself; and the whole of a
    function that compares the peer's digest.
    """
    if source is None or not (
        b"fingerprint" in source or b"getpeercert" in source or b"get_peer_cert" in source
    ):
        return set()
    checks = b"assert_fingerprint" in source
    pinners = {
        node.name
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _compares_peer_digest(node)
    }
    # A class one of whose methods compares the peer's digest, a function that does or that
    # calls such a function of the file by name: the pin is checked after the handshake.
    lines = _scopes_calling(tree, pinners, _compares_peer_digest)
    if not (checks or pinners):
        return lines
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and node.body and _reads_pin(node.test):
            end = node.body[-1].end_lineno or node.body[-1].lineno
            lines.update(range(node.body[0].lineno, end + 1))
    return lines


# Functions that match a peer certificate against a host name: ssl's (before 3.12, and
# vendored copies of it) and service_identity's.
_HOST_MATCHES = frozenset(
    {
        "match_hostname",
        "verify_hostname",
        "verify_ip_address",
        "verify_service_identity",
        "verify_certificate_hostname",
    }
)
# Errors whose handler, when it neither raises nor re-raises, lets a failed match pass:
# ``except AttributeError: return`` where Python 3.12 removed ``ssl.match_hostname``,
# ``except ValueError`` where the certificate is empty because nothing verified it.
_MATCH_ESCAPES = frozenset({"AttributeError", "ValueError", "Exception", "BaseException"})


def _swallows_a_failed_match(handler: ast.ExceptHandler) -> bool:
    """Tell whether an ``except`` clause catches a failed match and carries on."""
    if any(isinstance(node, ast.Raise) for node in ast.walk(handler)):
        return False
    if handler.type is None:
        return True
    caught = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return any(
        (c.attr if isinstance(c, ast.Attribute) else getattr(c, "id", "")) in _MATCH_ESCAPES
        for c in caught
    )


def calls_host_match(function: ast.AST) -> bool:
    """Tell whether a function (or class) matches the host name itself after a handshake.

    A match inside a ``try`` whose handler swallows its failure (``except AttributeError:
    return``) does not count: where it fails, nothing is checked.
    """
    swallowed: set[int] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Try) and any(map(_swallows_a_failed_match, node.handlers)):
            swallowed.update(id(inner) for stmt in node.body for inner in ast.walk(stmt))
    return any(
        isinstance(node, ast.Call)
        and id(node) not in swallowed
        and _called_name(node) in _HOST_MATCHES
        for node in ast.walk(function)
    )


def _calls_any(function: ast.AST, names: frozenset[str] | set[str]) -> bool:
    return any(isinstance(n, ast.Call) and _called_name(n) in names for n in ast.walk(function))


def name_checked_lines(tree: ast.Module, source: bytes | None) -> set[int]:
    """Return the lines where ``check_hostname = False`` moves the name check, not drops it.

    A class with a method that matches the host name (``match_hostname``, service_identity's
    ``verify_hostname``) checks it after the handshake in any of its methods; a module-level
    function does when it matches the name itself or calls, by name, a function of the file
    that does.
    """
    if source is None or not any(name.encode() in source for name in _HOST_MATCHES):
        return set()
    checkers = {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and calls_host_match(node)
    }
    return _scopes_calling(tree, checkers, calls_host_match)


def _scopes_calling(
    tree: ast.Module, names: set[str], checks: Callable[[ast.AST], bool]
) -> set[int]:
    """The lines of the module's functions and methods that reach a check (``_covered``).

    A module-level function and a class's methods are judged among their own kind: what one
    calls by name (``helper()``; ``self.m()``, ``cls.m()``, ``Class.m()``), not the whole
    class, so that a class with a pinned path and a plain opt-out path reports the second.
    """
    lines: set[int] = set()
    groups: list[tuple[dict[str, _FunctionNode], str | None]] = [
        ({n.name: n for n in tree.body if isinstance(n, _FunctionNode)}, None)
    ]
    groups += [
        ({m.name: m for m in node.body if isinstance(m, _FunctionNode)}, node.name)
        for node in tree.body
        if isinstance(node, ast.ClassDef)
    ]
    for members, owner in groups:
        for member in _covered(members, owner, names, checks):
            lines.update(range(member.lineno, (member.end_lineno or member.lineno) + 1))
    return lines


def _member_calls(node: ast.AST, members: dict[str, _FunctionNode], owner: str | None) -> set[str]:
    """The members of a group that a function calls: by name, or through ``self``/``cls``."""
    receivers = {"self", "cls", owner} if owner else set()
    called = set()
    for call in ast.walk(node):
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        if owner is None and isinstance(func, ast.Name) and func.id in members:
            called.add(func.id)
        elif (
            isinstance(func, ast.Attribute)
            and isinstance(func.value, ast.Name)
            and func.value.id in receivers
            and func.attr in members
        ):
            called.add(func.attr)
    return called


def _self_root(node: ast.expr) -> str | None:
    """``X`` of ``self.X``, ``self.X.verify_mode`` (the attribute of ``self`` at the root)."""
    while isinstance(node, ast.Attribute):
        if isinstance(node.value, ast.Name) and node.value.id == "self":
            return node.attr
        node = node.value
    return None


def _self_attributes(function: _FunctionNode) -> set[str]:
    """The attributes of ``self`` a method reads or writes (``X`` of every ``self.X``)."""
    return {
        node.attr
        for node in ast.walk(function)
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Name)
        and node.value.id == "self"
    }


def _kept_by(node: ast.Assign) -> set[str]:
    """Attributes of ``self`` that an assignment keeps a configured object in.

    ``self.ctx = ssl.create_default_context()`` (a call's result kept) or ``self.ctx.
    verify_mode = ...`` (one changed in place); not ``self.pin = pin``.
    """
    kept = set()
    for target in node.targets:
        root = _self_root(target)
        if root is not None and (
            isinstance(node.value, ast.Call)
            or (isinstance(target, ast.Attribute) and _self_root(target.value) is not None)
        ):
            kept.add(root)
    return kept


def _checks_after(
    caller: _FunctionNode, callee: str, owner: str | None, is_check: Callable[[ast.AST], bool]
) -> bool:
    """Tell whether ``caller`` checks after a call of ``callee`` returns to it.

    A later statement of a block that holds the call (``conn = self._connect(); self._check(
    conn)``); not when the call's result is returned (``return self._plain()``): nothing of
    the caller runs after it.
    """
    only = {callee: caller}

    def calls_it(node: ast.AST) -> bool:
        return bool(_member_calls(node, only, owner))

    if any(
        isinstance(n, ast.Return) and n.value is not None and calls_it(n) for n in ast.walk(caller)
    ):
        return False
    for node in ast.walk(caller):
        for block in (getattr(node, field, None) for field in ("body", "orelse", "finalbody")):
            if not isinstance(block, list):
                continue
            for index, stmt in enumerate(block):
                if (
                    isinstance(stmt, ast.stmt)
                    and calls_it(stmt)
                    and any(is_check(later) for later in block[index + 1 :])
                ):
                    return True
    return False


def _grow(
    covered: set[str], members: dict[str, _FunctionNode], joins: Callable[[str], bool]
) -> None:
    """Add to ``covered`` the members that ``joins`` admits, until none is added."""
    changed = True
    while changed:
        changed = False
        for name in members.keys() - covered:
            if joins(name):
                covered.add(name)
                changed = True


def _facts(
    function: _FunctionNode, members: dict[str, _FunctionNode], owner: str | None, names: set[str]
) -> tuple[set[str], bool, set[str]]:
    """Return what one walk of a member tells.

    The members it calls, whether it calls one of ``names`` (a checker of the file), and the
    attributes of ``self`` it keeps a configured object in (``_kept_by``).
    """
    receivers = {"self", "cls", owner} if owner else set()
    called: set[str] = set()
    checker = False
    kept: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name):
                checker = checker or func.id in names
                if owner is None and func.id in members:
                    called.add(func.id)
            elif isinstance(func, ast.Attribute):
                checker = checker or func.attr in names
                if (
                    isinstance(func.value, ast.Name)
                    and func.value.id in receivers
                    and func.attr in members
                ):
                    called.add(func.attr)
        elif isinstance(node, ast.Assign) and owner is not None:
            kept |= _kept_by(node)
    return called, checker, kept


def _covered(
    members: dict[str, _FunctionNode],
    owner: str | None,
    names: set[str],
    checks: Callable[[ast.AST], bool],
) -> list[_FunctionNode]:
    """The members whose weakenings a check covers.

    A member is covered when it checks or calls a checker of the file (``names``), when a
    member it calls is (at any depth), or when every member that calls it checks after the
    call returns (a helper that only checking paths use; not a dispatcher that calls a
    pinned path and a plain one). A method that keeps a context on ``self`` for others
    (``self.ctx``) is covered when every other method that uses that attribute is.
    """
    facts = {name: _facts(node, members, owner, names) for name, node in members.items()}
    calls = {name: fact[0] for name, fact in facts.items()}
    callers = {
        name: {c for c, called in calls.items() if name in called and c != name} for name in members
    }
    # What reaches a check through calls, and then the helpers whose every caller checks
    # after the call returns (or is such a helper itself): least fixed points.
    reach = {name for name, node in members.items() if facts[name][1] or checks(node)}
    _grow(reach, members, lambda name: bool(calls[name] & reach))

    checked: dict[int, bool] = {}  # statement -> whether it checks (statements repeat)

    def is_check(stmt: ast.AST) -> bool:
        if id(stmt) not in checked:
            checked[id(stmt)] = (
                checks(stmt)
                or _calls_any(stmt, names)
                or bool(_member_calls(stmt, members, owner) & reach)
            )
        return checked[id(stmt)]

    after: dict[tuple[str, str], bool] = {}  # (caller, callee): asked again at each round

    def checks_after(caller: str, callee: str) -> bool:
        if (caller, callee) not in after:
            after[caller, callee] = _checks_after(members[caller], callee, owner, is_check)
        return after[caller, callee]

    late: set[str] = set()
    _grow(
        late,
        members,
        lambda name: (
            bool(callers[name]) and all(c in late or checks_after(c, name) for c in callers[name])
        ),
    )
    covered = reach | late
    if owner is None:
        return [members[name] for name in covered]
    kept = {name: facts[name][2] for name in members if name not in covered}
    if any(kept.values()):
        uses = {name: _self_attributes(node) for name, node in members.items()}
        for name, attributes in kept.items():
            readers = {other for other in members if other != name and uses[other] & attributes}
            if attributes and readers and readers <= covered:
                covered.add(name)
    return [members[name] for name in covered]
