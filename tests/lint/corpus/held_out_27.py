"""Held-out family 27: shapes from other tools' public rule tests, written without the linter.

Written without reading the linter's code or its earlier corpus families. Inspired by (shapes
only, nothing copied): SonarSource's security-expected-issues pyOpenSSL test (``set_verify`` with
``VERIFY_NONE`` OR-ed between other flags, a verify callback), SonarSource's RSPEC text for
``ssl._create_stdlib_context``, CodeQL's older ``py/insecure-default-protocol`` query (an
``SSLContext`` with no protocol), the OWASP-style benchmark files for "improper certificate
validation" in amazon-pratik/Repo_test_owasp2 (module aliases ``import urllib3 as ur3``,
``import ssl as sss``), and precli-style ``get_server_certificate(ssl_version=...)`` examples.

Labels: a finding is expected on the line where the weakening is written (a keyword argument,
an attribute assignment, the ``SSL.Context(...)`` of a pyOpenSSL client that never verifies).
Facts checked against the libraries: urllib3's ``resolve_cert_reqs`` accepts ``"NONE"`` and
``"CERT_NONE"`` (it tries ``ssl.NONE`` then ``ssl.CERT_NONE``); ``VERIFY_NONE`` is 0, so OR-ing it
with ``VERIFY_FAIL_IF_NO_PEER_CERT`` leaves ``VERIFY_PEER`` unset and a client verifies nothing;
``ssl._create_stdlib_context()`` is ``CERT_NONE`` without a host name check, and setting
``check_hostname = True`` on it afterwards also sets ``CERT_REQUIRED`` (Python >= 3.7), so a
context repaired that way verifies (and fails closed without trust anchors).
A verify callback that returns true whatever it is given is labelled SSC208 on its
``set_verify`` line (the closest rule: it accepts any certificate like ``VERIFY_NONE``); that
client also checks no host name (nothing in this file does): first labelled SSC210 on its
``SSL.Context``, corrected after scoring to a look-alike there, since SSC210 is a client that
verifies the chain, and this one verifies nothing (SSC208 says so).
"""

import socket
import ssl
import ssl as sss
import urllib.request
from http import client as httpclient

import aiohttp
import httpx
import requests
import urllib3 as ur3
from OpenSSL import SSL

CA_FILE = "/etc/pki/corp/ca.pem"


# -- urllib3 through a module alias ---------------------------------------------------------------


def through_proxy():
    return ur3.ProxyManager("http://127.0.0.1:3128/", cert_reqs=sss.CERT_NONE)  # expect: SSC104


def pool_by_word(host):
    return ur3.HTTPSConnectionPool(host, 443, cert_reqs="NONE")  # expect: SSC104


def pool_required(host):
    return ur3.HTTPSConnectionPool(host, 443, cert_reqs="CERT_REQUIRED")  # expect: none


def pool_from_url(url):
    return ur3.connection_from_url(url, cert_reqs="CERT_NONE")  # expect: SSC104


def pool_with_bundle():
    return ur3.PoolManager(cert_reqs=sss.CERT_REQUIRED, ca_certs=CA_FILE)  # expect: none


def pool_any_name(host):
    pool = ur3.HTTPSConnectionPool(host, 443, assert_hostname=False)  # expect: SSC104
    return pool


# -- pyOpenSSL flags and callbacks -----------------------------------------------------------------


def _accept_all(conn, cert, errnum, depth, ok):
    return True


def _keep_verdict(conn, cert, errnum, depth, ok):
    return ok


def flags_without_peer(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_FAIL_IF_NO_PEER_CERT | SSL.VERIFY_NONE | SSL.VERIFY_CLIENT_ONCE)  # expect: SSC208
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    return conn


def peer_with_accepting_callback(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER, _accept_all)  # expect: SSC208
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    return conn


def client_never_verifies(host):
    ctx = SSL.Context(SSL.TLSv1_2_METHOD)  # expect: SSC209
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_tlsext_host_name(host.encode())
    conn.set_connect_state()
    conn.do_handshake()
    return conn


def server_keeps_callback(sock):
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, _keep_verdict)  # expect: none
    ctx.use_privatekey_file("server.key")
    ctx.use_certificate_chain_file("server.pem")
    ctx.load_verify_locations(CA_FILE)
    conn = SSL.Connection(ctx, sock)
    conn.set_accept_state()
    return conn


def legacy_method_server(sock):
    ctx = SSL.Context(SSL.TLSv1_METHOD)  # expect: SSC701
    ctx.use_privatekey_file("server.key")
    ctx.use_certificate_file("server.pem")
    conn = SSL.Connection(ctx, sock)
    conn.set_accept_state()
    return conn


# -- ssl contexts: the stdlib helpers and a context with no protocol -------------------------------


def stdlib_context(host):
    ctx = ssl._create_stdlib_context()  # expect: SSC203
    conn = httpclient.HTTPSConnection(host, context=ctx)
    conn.request("GET", "/")
    return conn.getresponse()


def stdlib_context_repaired(host):
    ctx = ssl._create_stdlib_context()  # expect: none
    ctx.check_hostname = True  # also sets CERT_REQUIRED (Python >= 3.7)
    ctx.load_default_certs()
    return httpclient.HTTPSConnection(host, context=ctx)  # expect: none


def unverified_helper_asked_to_verify(host):
    # The private helper's keywords turn verification back on and load this CA.
    ctx = ssl._create_unverified_context(cert_reqs=ssl.CERT_REQUIRED, check_hostname=True, cafile=CA_FILE)  # expect: none
    return httpclient.HTTPSConnection(host, context=ctx)


def no_protocol_at_all(host):
    ctx = ssl.SSLContext()  # expect: SSC204
    with socket.create_connection((host, 443)) as raw:
        with ctx.wrap_socket(raw, server_hostname=host) as tls:
            return tls.version()


def client_protocol(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.load_default_certs()
    with socket.create_connection((host, 443)) as raw:
        with ctx.wrap_socket(raw, server_hostname=host) as tls:
            return tls.version()


def server_purpose_in_client(url):
    ctx = ssl.create_default_context(purpose=ssl.Purpose.CLIENT_AUTH)  # expect: SSC207
    return urllib.request.urlopen(url, context=ctx)


def server_purpose_in_server(sock):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)  # expect: none
    ctx.load_cert_chain("server.pem", "server.key")
    return ctx.wrap_socket(sock, server_side=True)


def mode_cleared_after_default(url):
    ctx = sss.create_default_context()  # expect: none
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = sss.CERT_NONE  # expect: SSC201
    return urllib.request.urlopen(url, context=ctx)


def hostname_left_off(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC206
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_default_certs()
    return httpclient.HTTPSConnection(host, context=ctx)


# -- weak versions, bounds, options and ciphers -----------------------------------------------------


def peer_certificate(host):
    return ssl.get_server_certificate((host, 443), ssl_version=ssl.PROTOCOL_TLSv1)  # expect: SSC701


def peer_certificate_default(host):
    return ssl.get_server_certificate((host, 443))  # expect: none


def tls11_ceiling():
    ctx = ssl.create_default_context()
    ctx.maximum_version = ssl.TLSVersion.TLSv1_1  # expect: SSC702
    return ctx


def lowest_floor():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702
    return ctx


def modern_floor():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    ctx.maximum_version = ssl.TLSVersion.MAXIMUM_SUPPORTED  # expect: none
    return ctx


def options_cleared():
    ctx = ssl.create_default_context()
    ctx.options &= ~ssl.OP_NO_TLSv1_1  # expect: SSC703
    return ctx


def options_added():
    ctx = ssl.create_default_context()
    ctx.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none
    return ctx


def level_zero():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")  # expect: SSC704
    return ctx


def rc4_only(sock):
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)
    ctx.set_cipher_list(b"RC4-SHA:RC4-MD5")  # expect: SSC704
    return SSL.Connection(ctx, sock)


def excluded_weak():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("HIGH:!aNULL:!eNULL:!MD5:!RC4")  # expect: none
    return ctx


# -- HTTP clients as the rule tests spell them -------------------------------------------------------


def request_function(url):
    return requests.request("GET", url, verify=False)  # expect: SSC101


def httpx_client(url):
    with httpx.Client(verify=False) as client:  # expect: SSC101
        return client.get(url)


def httpx_with_context(url):
    ctx = ssl.create_default_context(cafile=CA_FILE)
    with httpx.Client(verify=ctx) as client:  # expect: none
        return client.get(url)


async def aiohttp_connector(url):
    connector = aiohttp.TCPConnector(ssl=False)  # expect: SSC103
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.get(url) as response:
            return await response.text()


async def aiohttp_request_context(url):
    async with aiohttp.ClientSession() as session:
        async with session.get(url, ssl=ssl.create_default_context()) as response:  # expect: none
            return await response.text()


def session_with_bundle(url):
    session = requests.Session()
    session.verify = CA_FILE  # expect: none
    return session.get(url)
