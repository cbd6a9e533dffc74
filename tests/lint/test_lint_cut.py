"""The cut source (``hot_source``): docstring lines that look like code are not cut as code."""

from __future__ import annotations

import ast

from sslcustomize_lint import LintResult, lint_source
from sslcustomize_lint._prefilter import hot_places, hot_source, module_names

# A Twisted-style class: epytext fields (``@param``, ``@since``) in docstrings at the indentation
# of the methods, a cold method, a real decorator on a cold method, and one hot method.
EPYTEXT_MODULE = b'''"""A client, documented in epytext."""
import ssl

from twisted.internet import reactor


class Client:
    """
    Connects to a server.

    @ivar reactor: the reactor.
    @since: 9.0
    """

    def __init__(self, host):
        """
        Remember the host.

        @param host: the host name.
        @type host: L{str}
        """
        self.host = host
        self.port = 443
        self.timeout = 10

    @property
    def address(self):
        """
        @return: the address.
        """
        return (self.host, self.port)

    def connect(self):
        """
        @return: the connection.
        """
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
        return reactor.connectSSL(self.host, self.port, context)
'''
# Padding below the threshold for a cut (``PARTIAL_MIN_BYTES``), in a cold function.
EPYTEXT_MODULE += b"\n\ndef padding():\n" + b"    x = 1\n" * 250


def _cut(source: bytes) -> bytes:
    cut = hot_source(source, hot_places(source, module_names(source)))
    assert cut is not None
    return cut


def test_epytext_fields_are_not_taken_for_decorators() -> None:
    """``@param``/``@since`` lines stay in their docstrings; the cut parses and keeps lines."""
    cut = _cut(EPYTEXT_MODULE)
    assert cut.count(b"\n") == EPYTEXT_MODULE.count(b"\n")
    tree = ast.parse(cut)
    [client] = [node for node in tree.body if isinstance(node, ast.ClassDef)]
    [original] = [node for node in ast.parse(EPYTEXT_MODULE).body if isinstance(node, ast.ClassDef)]
    assert ast.get_docstring(client) == ast.get_docstring(original)
    kept = [node.name for node in client.body if isinstance(node, ast.FunctionDef)]
    assert kept == ["connect"]


def test_a_real_decorator_is_cut_with_its_function() -> None:
    """``@property`` above a cold method goes with it: no decorator is left over a ``pass``."""
    cut = _cut(EPYTEXT_MODULE)
    assert b"@property" not in cut
    assert b"def address" not in cut
    assert b"@param host" not in cut  # inside the cold ``__init__``, cut with it
    assert b"@since: 9.0" in cut  # the class's docstring stays whole


def test_findings_of_the_cut_are_those_of_the_whole_file() -> None:
    """The hot method's two weakenings are found through the cut, as in the whole file."""
    cut_result = LintResult()
    lint_source(EPYTEXT_MODULE, "client.py", cut_result)
    assert cut_result.parsed == 1
    codes = sorted(finding.code for finding in cut_result.findings)
    assert len(codes) >= 2
    whole = LintResult()
    # Below the cut's threshold once the padding is gone: parsed whole.
    lint_source(EPYTEXT_MODULE.partition(b"\n\ndef padding")[0], "client.py", whole)
    assert sorted(finding.code for finding in whole.findings) == codes
