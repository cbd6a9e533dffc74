"""Value flow: the shapes of issue 36 that real projects' weakenings take, reduced to a few lines.

Each shape was described in issue 36 from a real project's code (read there, not copied
here); each block below is a minimal reproduction written for this corpus, labelled before the
linter was changed. Configurable weakenings (b: the user turns them on through a documented
option) are labelled with the note-level code SSC801; weakenings on by default (a) with their
family's code; look-alikes ``none``. A parameter's default that reaches a context's setting
through ``self`` is labelled where it sets the context (the message names the setting).
Legacy renegotiation is labelled by the bits that allow it: ``0x40000`` and the issue's
``0x4`` (``OP_LEGACY_SERVER_CONNECT``: with servers that lack RFC 5746; docs/lint.md).
"""

import ssl
import subprocess

import requests
from OpenSSL import SSL


# -- (a) a library's insecure default carried through ``self`` to the sink ----------------------


class TlsHelper:
    def __init__(self, host, validate=ssl.CERT_NONE):  # reported where it weakens the context
        self.host = host
        self.validate = validate

    def context(self):
        ctx = ssl.create_default_context()
        ctx.check_hostname = False  # expect: SSC202
        ctx.verify_mode = self.validate  # expect: SSC201
        return ctx


class ClientConfig:
    def __init__(self, url, verify=False):  # expect: SSC102
        self.url = url
        self.verify = verify

    def session(self):
        session = requests.Session()
        session.verify = self.verify
        return session


class SafeConfig:
    def __init__(self, url, verify=True):  # expect: none
        self.url = url
        self.verify = verify

    def session(self):
        session = requests.Session()
        session.verify = self.verify
        return session


# -- (a) an insecure default inside a branch on an unrelated parameter --------------------------


def redis_options(transport, ssl_options=None):
    if transport == "rediss" and not ssl_options:
        ssl_options = {"ssl_cert_reqs": ssl.CERT_NONE}  # expect: SSC507
    return ssl_options


def make_context(protocol):
    if protocol == "http":
        return None
    else:
        return ssl.SSLContext(ssl.PROTOCOL_SSLv23)  # expect: SSC204


# -- (a) pyOpenSSL callbacks, options and cipher strings ---------------------------------------


class Verifier:
    @staticmethod
    def accept(conn, cert, errno, depth, ok):
        if errno:
            return True
        return True


def pyopenssl_context():
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER, Verifier.accept)  # expect: SSC208
    ctx.set_options(SSL.OP_NO_SSLv2 | 0x40000)  # expect: SSC703
    ctx.set_cipher_list("ALL:@SECLEVEL=0".encode("utf-8"))  # expect: SSC704
    conn = SSL.Connection(ctx)
    conn.set_tlsext_host_name(b"example.org")
    return conn


SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION = 0x00040000


def legacy_renegotiation(ctx):
    ctx.options |= SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION  # expect: SSC703


def legacy_server_connect(ctx):
    # A client that connects to servers without RFC 5746, and renegotiates with them insecurely
    # (OpenSSL's words): what OpenSSL 3 refuses by default, taken back.
    ctx.options |= ssl.OP_LEGACY_SERVER_CONNECT  # expect: SSC703


def swallow_hostname_errors(ctx):
    def info(conn, where, ret):
        try:
            ssl.match_hostname(conn.getpeercert(), "example.org")
        except ssl.CertificateError:
            pass

    ctx.set_info_callback(info)  # expect: SSC208


# -- (a) framework settings constants ------------------------------------------------------------

DOWNLOAD_VERIFY_CERTIFICATES = False  # expect: SSC101


# -- (b) configurable weakenings: opt-outs the user turns on -----------------------------------


def opt_out_context(validate_certs):
    ctx = ssl.create_default_context()
    if not validate_certs:
        ctx.check_hostname = False  # expect: SSC801
        ctx.verify_mode = ssl.CERT_NONE  # expect: SSC801
    return ctx


def fetch(url, ignore_certs=False):
    return requests.get(url, verify=not ignore_certs, timeout=10)  # expect: SSC801


def clone(url, insecure=False):
    command = ["git"]
    if insecure:
        command += ["-c", "http.sslVerify=false"]  # expect: SSC801
    subprocess.run([*command, "clone", url], check=True)


# -- look-alikes: the host name checked after the handshake, a path unreachable on Python 3 ----


def checked_after_handshake(sock, host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: none
    conn = ctx.wrap_socket(sock)
    ssl.match_hostname(conn.getpeercert(), host)
    return conn


def legacy_wrap(sock):
    if not hasattr(ssl, "SSLContext"):
        return ssl.wrap_socket(sock, ca_certs="ca.pem")  # expect: none
    return ssl.create_default_context().wrap_socket(sock)


# -- (b) a table of the versions a setting or an option chooses from, holding weak ones ---------

SETTING_VERSIONS = {
    "TLSv1.0": ssl.TLSVersion.TLSv1,  # expect: SSC802
    "TLSv1.2": ssl.TLSVersion.TLSv1_2,
}
OPTION_VERSIONS = {"tls1.2": "PROTOCOL_TLSv1_2", "tls": "PROTOCOL_TLS_CLIENT"}  # expect: none
