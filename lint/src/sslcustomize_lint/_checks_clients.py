"""Checks of clients' flags (SSC1xx, SSC5xx), stdlib clients without a context (SSC6xx).

And of commands run by a process (SSC4xx).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence

from sslcustomize_lint import _tables as t
from sslcustomize_lint._callbacks import _keyword_value
from sslcustomize_lint._commands import Token, scan_command
from sslcustomize_lint._core import (
    _PROCESS_METHODS,
    _entry_node,
    _is_server_call,
    _KwMap,
    _location,
    _option_name,
    _spec_default,
    _starttls_spec,
    _tokens,
)
from sslcustomize_lint._family import CallSite, Family, register
from sslcustomize_lint._values import (
    Const,
    DictVal,
    SeqVal,
    Value,
)
from sslcustomize_lint._valuetests import (
    _TESTS,
    _env_insecure,
    _is_cert_none,
    _is_const,
    _is_falsy,
    _param,
    _ref_in,
    _str,
    _weak_setting,
)

__all__ = ["ClientChecks"]


_URL_START = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")


def _text_parts(value: Value) -> list[tuple[str, ast.AST | None]]:
    """The text of a string, or of an f-string's literal parts joined, with where it is written.

    ``f"mongodb://{host}/?tlsInsecure=true"``: the literal parts, the placeholders left out
    (they are unknown); the place is the part that holds the most text.
    """
    value = _param(value)
    if isinstance(value, Const) and isinstance(value.value, str):
        return [(value.value, value.node)]
    if isinstance(value, SeqVal):
        parts = [(item.value, item.node) for item in value.items if isinstance(item, Const)]
        texts = [(text, node) for text, node in parts if isinstance(text, str)]
        if texts:
            place = max(texts, key=lambda part: len(part[0]))[1]
            return [("".join(text for text, _ in texts), place)]
    return []


@register
class ClientChecks(Family):
    """Checks of clients' flags, stdlib clients and commands (SSC1xx, SSC4xx-SSC6xx)."""

    def visit_call(self, site: CallSite) -> None:
        """Check a call's verification flags, client options, stdlib clients and commands."""
        self._check_flag_sinks(site)
        self._check_client_options(site)
        self._check_stdlib_clients(site)
        self._check_process(site)

    def check_attribute_value(self, attr: str, value: Value, stmt: ast.AST) -> None:
        """Attributes whose name alone says what a value does (weak TLS, distinctive flags)."""
        weak = _weak_setting(attr, value)
        if weak:
            self.core.report(weak, stmt)
        elif distinctive := (
            t.DISTINCTIVE_KEYWORDS.get(attr) or t.DISTINCTIVE_ATTRIBUTES.get(attr)
        ):
            test, code = distinctive
            if _TESTS[test](value):
                self.core.report(code, stmt)

    def check_default(self, name: str, value: Value, default: ast.expr) -> None:
        """A parameter's default that says verification is off, wherever it goes.

        ``def __init__(self, *, verify_certificates=False)``: what a caller gets without
        asking, reported at the default (the parameter's use may be in another method).
        """
        distinctive = t.DISTINCTIVE_DEFAULTS.get(name)
        if distinctive is not None and _TESTS[distinctive[0]](value):
            self.core.report(distinctive[1], default)

    def _check_flag_sinks(self, site: CallSite) -> None:
        """Verification flags given to a call: known sinks, HTTP verbs, distinctive keywords."""
        qualname, attr, args, kwmap = site.qualname, site.attr, site.args, site.kwmap
        known_sinks = t.KEYWORD_SINKS.get(qualname or "")
        if known_sinks is not None:
            for name, index, test, code in known_sinks:
                found = self.core.argument(args, kwmap, name, index)
                if found:
                    self.core.sink(test, found[0], code, found[1])
        elif attr in t.HTTP_VERBS or attr == "ws_connect":
            for name, code in (("verify", "SSC101"), ("ssl", "SSC103"), ("verify_ssl", "SSC103")):
                if name in kwmap:
                    self.core.sink("falsy", kwmap[name][0], code, kwmap[name][1])
        if kwmap:
            for name in t.SSL_OPTION_DICTS.intersection(kwmap):  # ``Celery(broker_use_ssl=...)``
                self.check_ssl_options(_keyword_value(kwmap[name][1]))
            self._check_option_dicts(kwmap)
        # ``verify_ssl=`` says what it does for any client but aiohttp's (SSC103, above).
        generic = known_sinks is None and attr not in t.HTTP_VERBS and attr != "ws_connect"
        self._check_distinctive_keywords(attr, kwmap, attributes_too=generic)
        if known_sinks is None and qualname != "ssl.wrap_socket" and "cert_reqs" in kwmap:
            value, location = kwmap["cert_reqs"]
            self.core.sink(
                "cert_none", value, "SSC504" if attr == "tls_set" else "SSC104", location
            )

    def check_ssl_options(self, options: ast.AST) -> None:
        """Celery's ``broker_use_ssl = {"cert_reqs": ssl.CERT_NONE, ...}``: SSC507 there."""
        if isinstance(options, ast.Name):
            known = self.core.resolve(options)
            if isinstance(known, DictVal) and isinstance(known.node, ast.Dict):
                options = known.node
        if not isinstance(options, ast.Dict):
            return
        for key, entry in zip(options.keys, options.values, strict=True):
            named = isinstance(key, ast.Constant) and key.value in {"cert_reqs", "ssl_cert_reqs"}
            if named and _TESTS["cert_none_or_none"](self.core.resolve(entry)):
                self.core.report("SSC507", entry)

    def _check_option_dicts(self, kwmap: _KwMap) -> None:
        """Dicts of a client's options given by keyword.

        ``httpx_kwargs={"verify": False}`` (python-telegram-bot), ``options={"verify": False}``
        (jira): keywords handed on to requests or httpx; ``*_options={"verify_ssl": False}``
        (selenium-wire). ``ssl={"cipher": "RC4-MD5"}``: a MySQL
        driver's TLS options (pymysql, mysqlclient).
        """
        for name, (value, _) in kwmap.items():
            if not isinstance(value, DictVal):
                continue
            entries = value.entries
            if name == "options" or name.endswith("kwargs"):
                if "verify" in entries and _is_falsy(entries["verify"]):
                    self.core.report("SSC101", _entry_node(value.node, "verify"))
            elif name.endswith("_options") and "verify_ssl" in entries:
                # selenium-wire's ``seleniumwire_options={"verify_ssl": False}``
                if _is_falsy(entries["verify_ssl"]):
                    self.core.report("SSC511", _entry_node(value.node, "verify_ssl"))
            elif (
                name == "ssl"
                and "cipher" in entries
                and _weak_setting("ciphers", entries["cipher"])
            ):
                self.core.report("SSC704", _entry_node(value.node, "cipher"))

    def _check_distinctive_keywords(
        self, attr: str, kwmap: _KwMap, *, attributes_too: bool = False
    ) -> None:
        """Keywords whose name alone says what they do, and environment variables as keywords.

        With ``attributes_too``, the attribute names that say so as well (``verify_ssl=``).
        """
        for name, (value, location) in kwmap.items():
            distinctive = t.DISTINCTIVE_KEYWORDS.get(name)
            if distinctive is None and attributes_too:
                distinctive = t.DISTINCTIVE_ATTRIBUTES.get(name)
            if distinctive and not _is_server_call(attr):
                # A parameter passed through (``Config(ssl_cert_reqs=ssl_cert_reqs)``): its
                # default is this function's, for a callee of unknown kind; check the callers.
                given = _spec_default(value)
                self.core.sink(distinctive[0], given, distinctive[1], location, defaults=False)
            elif name in t.ENV_VARS and _env_insecure(t.ENV_VARS[name], value):
                self.core.report("SSC303", location)

    def _check_client_options(self, site: CallSite) -> None:
        """Options of particular clients: env dicts, sslopt, ldap3, pycurl, pyVmomi, mqtt, mongo."""
        node, qualname, attr, args, kwmap = (
            site.node,
            site.qualname,
            site.attr,
            site.args,
            site.kwmap,
        )
        if "env" in kwmap and isinstance(kwmap["env"][0], DictVal) and kwmap["env"][0].node:
            self._check_env_entries(kwmap["env"][0])
        if attr == "update" and args and isinstance(self.core.resolve(args[0]), DictVal):
            self._check_env_entries(self.core.resolve(args[0]))  # type: ignore[arg-type]
        if "sslopt" in kwmap:
            self._check_sslopt(kwmap["sslopt"][0])
        if qualname == "ldap3.Tls" or (qualname is None and attr == "Tls"):
            self._check_ldap3_tls(node, qualname, args, kwmap)
        if attr == "add_argument" or "args" in kwmap:
            self._check_browser_switches(attr, args, kwmap)
        if attr == "set_option" and len(args) >= 2:
            option, level = (self.core.resolve(a) for a in args[:2])
            if _ref_in(option, t.LDAP_REQUIRE_CERT) and _ref_in(level, t.LDAP_NO_CHECK):
                self.core.report("SSC508", args[1])  # python-ldap: no (or an optional) check
        self._check_special_clients(node, qualname, attr, args, kwmap)

    def _check_browser_switches(self, attr: str, args: list[ast.expr], kwmap: _KwMap) -> None:
        """Chrome's ``--ignore-certificate-errors`` given to a browser a script drives.

        Selenium's ``options.add_argument(SWITCH)`` (one argument: argparse's takes more), or
        a launcher's ``args=[..., SWITCH]`` (Playwright, pyppeteer).
        """
        one = attr == "add_argument" and len(args) == 1 and not kwmap
        if one and _str(self.core.resolve(args[0])) in t.BROWSER_INSECURE_SWITCHES:
            self.core.report("SSC402", args[0])
        launched = kwmap.get("args")
        if launched is not None and isinstance(launched[0], SeqVal):
            for item in launched[0].items:
                if _str(item) in t.BROWSER_INSECURE_SWITCHES:
                    self.core.report("SSC402", _location(item, launched[1]))

    def _check_ldap3_tls(
        self, node: ast.Call, qualname: str | None, args: list[ast.expr], kwmap: _KwMap
    ) -> None:
        """ldap3's ``Tls``: ``validate=CERT_NONE``, or no ``validate`` (its default is none)."""
        if "validate" in kwmap:
            if _is_cert_none(kwmap["validate"][0]):
                self.core.report("SSC508", kwmap["validate"][1])
        elif qualname == "ldap3.Tls" and len(args) < 3:  # (key file, certificate file, validate)
            self.core.report("SSC508", node)

    def _check_special_clients(
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        args: list[ast.expr],
        kwmap: _KwMap,
    ) -> None:
        """Options given by a call's own shape: pycurl's ``setopt``, pyVmomi, mqtt, mongo URIs."""
        if attr == "setopt" and len(args) >= 2 and _option_name(args[0]) in t.PYCURL_VERIFY_OPTIONS:
            found = self.core.argument(args, kwmap, "value", 1)
            if found and _is_falsy(found[0]):
                self.core.report("SSC510", found[1])
        if attr == "SmartConnectNoSSL" or qualname == "pyVim.connect.SmartConnectNoSSL":
            self.core.report("SSC512", node)
        if attr == "tls_insecure_set":
            found = self.core.argument(args, kwmap, "value", 0)
            if found and _is_const(found[0], True):
                self.core.report("SSC504", found[1])
        if qualname in t.MONGO_CLIENTS:
            given: list[tuple[Value, ast.AST]] = [(self.core.resolve(item), item) for item in args]
            self._check_uris(given, t.MONGO_URI_FLAGS, "SSC503", urls_only=False)
        elif (
            self.core.may_hold_url_flags()
        ):  # ``redis.from_url("rediss://...?ssl_cert_reqs=none")``
            given = [
                (self.core.resolve(item), item)
                for item in args
                if isinstance(item, ast.Constant | ast.JoinedStr | ast.Name | ast.BinOp)
            ]
            given.extend((value, location) for value, location in kwmap.values())
            self._check_uris(given, t.URL_CERT_NONE_FLAGS, "SSC507", urls_only=True)
        self._check_library_options(node, qualname, attr, args, kwmap)

    def _check_library_options(
        self,
        node: ast.Call,
        qualname: str | None,
        attr: str,
        args: list[ast.expr],
        kwmap: _KwMap,
    ) -> None:
        """Twisted's client context factories, pika's old ``ssl_options`` dict."""
        if qualname == "twisted.internet.ssl.ClientContextFactory":
            self.core.report("SSC209", node)  # a pyOpenSSL context with no ``set_verify`` at all
        elif qualname == "twisted.internet.ssl.CertificateOptions" and not (
            args or "privateKey" in kwmap or "certificate" in kwmap
        ):
            # Without a key and certificate it can only be a client's, and it verifies nothing.
            found = kwmap.get("verify")
            if found and _is_falsy(found[0]):
                self.core.report("SSC209", found[1])
        if attr == "ConnectionParameters" and "ssl_options" in kwmap:
            # pika < 1.0: ``ssl_options`` are ``ssl.wrap_socket``'s keywords
            options = _param(kwmap["ssl_options"][0])
            if isinstance(options, DictVal) and "cert_reqs" in options.entries:
                entry = options.entries["cert_reqs"]
                if _is_cert_none(entry):
                    self.core.report("SSC104", _entry_node(options.node, "cert_reqs"))

    def _check_uris(
        self,
        given: Sequence[tuple[Value, ast.AST]],
        flags: tuple[str, ...],
        code: str,
        *,
        urls_only: bool,
    ) -> None:
        """Connection URLs whose query turns verification off, where their text is written.

        With ``urls_only``, only text that starts with a scheme (``rediss://``) is a URL: a
        sentence that quotes one is not.
        """
        for value, fallback in given:
            for text, place in _text_parts(value):
                if urls_only and not _URL_START.match(text):
                    continue
                if any(flag in text.lower() for flag in flags):
                    self.core.report(code, place if place is not None else fallback)

    def _check_env_entries(self, value: DictVal) -> None:
        if isinstance(value.node, ast.Dict):
            self.core.check_env_dict(value.node)

    def _check_sslopt(self, value: Value) -> None:
        value = _param(value)
        if not isinstance(value, DictVal):
            return
        for key, entry in value.entries.items():
            if (key == "cert_reqs" and _is_cert_none(entry)) or (
                key == "check_hostname" and _is_falsy(entry)
            ):
                self.core.report("SSC501", _location(entry, value.node))
            elif key == "ssl_version" and _ref_in(entry, t.WEAK_PROTOCOLS):
                # ``sslopt={"ssl_version": ssl.PROTOCOL_TLSv1}``: the socket's protocol
                self.core.report("SSC701", _location(entry, value.node))

    def _check_stdlib_clients(self, site: CallSite) -> None:
        node, qualname, attr, args, kwmap, has_star = (
            site.node,
            site.qualname,
            site.attr,
            site.args,
            site.kwmap,
            site.has_star,
        )
        spec = t.NO_CONTEXT_CLIENTS.get(qualname or "")
        if spec is None:
            spec = _starttls_spec(qualname, attr, self.core.imported)
        if spec is None or has_star:
            return
        name, index, code = spec
        given = kwmap.get(name)
        if given is None and index < len(args):
            return  # passed positionally
        if given is None or _is_const(given[0], None):
            self.core.report(code, node)

    def _check_process(self, site: CallSite) -> None:
        node, qualname, attr, args, kwmap = (
            site.node,
            site.qualname,
            site.attr,
            site.args,
            site.kwmap,
        )
        if qualname not in t.PROCESS_CALLS and attr not in _PROCESS_METHODS:
            return
        values = [self.core.resolve(a) for a in args]
        if "args" in kwmap:
            values.append(kwmap["args"][0])
        tokens: list[Token] = []
        for value, source in zip(values, [*args, node], strict=False):
            tokens.extend(_tokens(value, source))
        for code, location in scan_command(tokens):
            self.core.report(code, location)
