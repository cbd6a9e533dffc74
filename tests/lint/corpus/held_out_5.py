"""A fifth held-out family: the shapes of CodeQL's Python query tests, scored before any change.

Shapes from the tests of CodeQL's py/request-without-cert-validation, py/insecure-protocol
(its "fluent" context tests) and py/insecure-default-protocol; own code, nothing copied.
"""
import socket
import ssl

import httpx
import requests
import urllib3
from OpenSSL import SSL

HOST = "example.org"
NO_CHECK = False


def verb_zero(url, body):
    return requests.patch(url, data=body, verify=0)  # expect: SSC101


def verb_empty_string(url):
    return requests.head(url, verify="")  # expect: SSC101


def local_false_name(url):
    off = False
    return requests.delete(url, verify=off)  # expect: SSC101


def module_false_name(url):
    return requests.options(url, verify=NO_CHECK)  # expect: SSC101


def httpx_empty_tuple(url):
    return httpx.get(url, verify=())  # expect: SSC101


def urllib3_hostname_unchecked(url):
    pool = urllib3.PoolManager(assert_hostname=False)  # expect: SSC104
    return pool.request("GET", url)


def fluent_bare_context():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: SSC204
    with socket.create_connection((HOST, 443)) as sock:
        with context.wrap_socket(sock, server_hostname=HOST) as ssock:
            return ssock.version()


def fluent_reenables_tls11():
    context = ssl.create_default_context()
    context.options &= ~ssl.OP_NO_TLSv1_1  # expect: SSC703
    with socket.create_connection((HOST, 443)) as sock:
        return context.wrap_socket(sock, server_hostname=HOST)


def fluent_minimum_tls11():
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_1  # expect: SSC702
    with socket.create_connection((HOST, 443)) as sock:
        return context.wrap_socket(sock, server_hostname=HOST)


def version_in_local_name():
    version = ssl.PROTOCOL_TLSv1
    return ssl.SSLContext(version)  # expect: SSC701 SSC204


def wrap_socket_old_version(sock):
    return ssl.wrap_socket(sock, ssl_version=ssl.PROTOCOL_SSLv3)  # expect: SSC701 SSC205


def wrap_socket_without_version(sock):
    return ssl.wrap_socket(sock)  # expect: SSC205


def pyopenssl_fluent_tls1(sock):
    context = SSL.Context(SSL.TLSv1_METHOD)  # expect: SSC701 SSC210
    context.set_verify(SSL.VERIFY_PEER, lambda conn, cert, errno, depth, ok: ok)
    context.set_default_verify_paths()
    conn = SSL.Connection(context, sock)
    conn.set_connect_state()
    return conn


def pyopenssl_method_from_name(sock):
    method = SSL.SSLv3_METHOD
    context = SSL.Context(method)  # expect: SSC701 SSC209
    return SSL.Connection(context, sock)


def server_context_with_old_floor():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.minimum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
    context.load_cert_chain("server.pem", "server.key")
    return context


# --- look-alikes ---------------------------------------------------------------------------

def verify_none_is_default(url):
    return requests.get(url, verify=None)  # expect: none


def verify_true(url):
    return requests.get(url, verify=True)  # expect: none


def verify_directory(url):
    return requests.get(url, verify="/etc/ssl/certs/")  # expect: none


def local_true_name(url):
    check = True
    return requests.delete(url, verify=check)  # expect: none


def fluent_client_context():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    context.load_default_certs()
    with socket.create_connection((HOST, 443)) as sock:
        return context.wrap_socket(sock, server_hostname=HOST)  # expect: none


def fluent_removes_old_versions():
    context = ssl.create_default_context()
    context.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none
    with socket.create_connection((HOST, 443)) as sock:
        return context.wrap_socket(sock, server_hostname=HOST)


def fluent_minimum_tls13():
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_3  # expect: none
    return context


def bare_server_context():
    context = ssl.SSLContext(ssl.PROTOCOL_TLS)  # expect: none
    context.load_cert_chain("server.pem", "server.key")
    with socket.create_server(("127.0.0.1", 8443)) as listener:
        conn, _ = listener.accept()
        return context.wrap_socket(conn, server_side=True)


def pyopenssl_negotiating_method(sock):
    context = SSL.Context(SSL.TLS_METHOD)  # expect: SSC210
    context.set_verify(SSL.VERIFY_PEER, lambda conn, cert, errno, depth, ok: ok)
    context.set_default_verify_paths()
    conn = SSL.Connection(context, sock)
    conn.set_connect_state()
    return conn


def urllib3_checks_named_host(url):
    pool = urllib3.PoolManager(assert_hostname="api.example.org")  # expect: none
    return pool.request("GET", url)
