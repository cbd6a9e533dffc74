"""A fourth held-out family: the shapes of sonar-python's rule tests, scored before any change.

Shapes from sonar-python's check tests for S4423 (weak protocol), S4830 (certificate
verification) and S5527 (host name verification); own code, nothing copied.
"""
import socket
import ssl

import requests
import urllib3
from OpenSSL import SSL
from requests.adapters import HTTPAdapter
from urllib3.poolmanager import PoolManager


def pyopenssl_sslv3_keyword():
    return SSL.Context(method=SSL.SSLv3_METHOD)  # expect: SSC701


def pyopenssl_tls11_positional():
    return SSL.Context(SSL.TLSv1_1_METHOD)  # expect: SSC701


def stdlib_tls1_keyword():
    ctx = ssl.SSLContext(protocol=ssl.PROTOCOL_TLSv1)  # expect: SSC701
    ctx.load_cert_chain("server.pem")
    return ctx


class LegacyTlsAdapter(HTTPAdapter):
    def init_poolmanager(self, connections, maxsize, block=False):
        self.poolmanager = PoolManager(
            num_pools=connections,
            maxsize=maxsize,
            block=block,
            ssl_version=ssl.PROTOCOL_TLSv1_1,  # expect: SSC701
        )


def mounted_legacy_adapter(url):
    session = requests.Session()
    session.mount("https://", LegacyTlsAdapter())
    return session.get(url)


def stdlib_max_tls1(host):
    ctx = ssl.create_default_context()
    ctx.maximum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
    return ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)


def stdlib_min_ssl3(host):
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.SSLv3  # expect: SSC702
    return ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)


def verify_callback(connection, x509, errnum, errdepth, ok):
    if not ok:
        print("bad certificate")
    return ok


def pyopenssl_verify_none_with_callback(sock):
    ctx = SSL.Context(SSL.TLSv1_2_METHOD)
    ctx.set_verify(SSL.VERIFY_NONE, verify_callback)  # expect: SSC208
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def pyopenssl_fail_if_no_cert_without_peer(sock):
    ctx = SSL.Context(SSL.TLSv1_2_METHOD)
    ctx.set_verify(SSL.VERIFY_FAIL_IF_NO_PEER_CERT | SSL.VERIFY_NONE | SSL.VERIFY_CLIENT_ONCE)  # expect: SSC208
    conn = SSL.Connection(ctx, sock)
    conn.connect(("example.org", 443))
    return conn


def always_truthy(conn, cert, errnum, depth, ok):
    if ok:
        return True
    else:
        return 1


def pyopenssl_truthy_callback(sock):
    ctx = SSL.Context(SSL.TLSv1_2_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER, always_truthy)  # expect: SSC208
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def hostname_check_off(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    with socket.create_connection((host, 443)) as raw:
        return ctx.wrap_socket(raw, server_hostname=host)


def stdlib_cert_none(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return ctx.wrap_socket(socket.socket(), server_hostname=host)


def request_verb_off(url):
    return requests.request("GET", url, verify=False)  # expect: SSC101


def urllib3_proxy_cert_none(proxy, url):
    manager = urllib3.ProxyManager(proxy, cert_reqs=ssl.CERT_NONE)  # expect: SSC104
    return manager.request("GET", url)


def urllib3_pool_cert_none_string(url):
    pool = urllib3.HTTPSConnectionPool("example.org", 443, cert_reqs="CERT_NONE")  # expect: SSC104
    return pool.request("GET", url)


# --- look-alikes ---------------------------------------------------------------------------

def pyopenssl_tls12_keyword():
    return SSL.Context(method=SSL.TLSv1_2_METHOD)  # expect: none


def pyopenssl_checked_client(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, verify_callback)  # expect: none
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def pyopenssl_negotiating_without_old_versions(sock):
    ctx = SSL.Context(SSL.SSLv23_METHOD)  # expect: SSC210
    ctx.set_options(SSL.OP_NO_SSLv2 | SSL.OP_NO_SSLv3 | SSL.OP_NO_TLSv1 | SSL.OP_NO_TLSv1_1)
    ctx.set_verify(SSL.VERIFY_PEER, verify_callback)
    ctx.load_verify_locations("/etc/ssl/certs/ca-certificates.crt")
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def stdlib_min_tls12(host):
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    ctx.maximum_version = ssl.TLSVersion.MAXIMUM_SUPPORTED  # expect: none
    return ctx.wrap_socket(socket.socket(), server_hostname=host)


def stdlib_tls_client(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)  # expect: none
    ctx.load_default_certs()
    return ctx.wrap_socket(socket.socket(), server_hostname=host)  # expect: none


def stdlib_server_optional_client_cert():
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.verify_mode = ssl.CERT_OPTIONAL  # expect: none
    ctx.load_cert_chain("server.pem", "server.key")
    return ctx


def request_with_bundle(url):
    return requests.request("GET", url, verify="/etc/ssl/corp.pem")  # expect: none


def urllib3_required(url):
    pool = urllib3.PoolManager(cert_reqs="CERT_REQUIRED", ca_certs="/etc/ssl/corp.pem")  # expect: none
    return pool.request("GET", url)


def modern_adapter_pool(connections, maxsize):
    return PoolManager(num_pools=connections, maxsize=maxsize, ssl_version=ssl.PROTOCOL_TLS_CLIENT)  # expect: none
