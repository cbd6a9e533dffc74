"""Held-out family 24 (independent): weak TLS versions and ciphers passed through libraries.

Shapes from public code and docs found through the code search: pika's old ``ssl_options`` dicts
with ``ssl_version`` (RabbitSSL, pika examples), docker-py's ``TLSConfig(ssl_version=...)``
(docker-py docs), ldap3 ``Tls(version=...)``, urllib3's ``ssl_version``/``ssl_minimum_version``
(urllib3 docs), Twisted's ``CertificateOptions(method=...)`` and
``insecurelyLowerMinimumTo`` (Twisted docs), pyOpenSSL ``SSL.Context``, ``ssl.TLSVersion``
bounds, ``OP_NO_*`` options and cipher strings (OpenSSL ``ciphers(1)``). Own code, nothing
copied.
"""

import socket
import ssl

import docker
import ldap3
import pika
import urllib3
from OpenSSL import SSL
from twisted.internet import ssl as tssl
from twisted.internet.ssl import TLSVersion as TwistedTLS


def rabbit_tls1(host):
    ssl_options = dict(
        ssl_version=ssl.PROTOCOL_TLSv1,  # expect: SSC701
        ca_certs="./cacert.pem",
        cert_reqs=ssl.CERT_REQUIRED,
    )
    return pika.ConnectionParameters(host=host, port=5671, ssl=True, ssl_options=ssl_options)


def rabbit_tls12(host):
    ssl_options = {"ssl_version": ssl.PROTOCOL_TLSv1_2, "cert_reqs": ssl.CERT_REQUIRED}  # expect: none
    return pika.ConnectionParameters(host=host, ssl=True, ssl_options=ssl_options)


def docker_tls(host):
    tls = docker.tls.TLSConfig(ca_cert="ca.pem", verify=True, ssl_version=ssl.PROTOCOL_TLSv1_1)  # expect: SSC701
    return docker.DockerClient(base_url=f"tcp://{host}:2376", tls=tls)


def ldap_server(host):
    tls = ldap3.Tls(validate=ssl.CERT_REQUIRED, version=ssl.PROTOCOL_SSLv23)  # expect: none
    return ldap3.Server(host, use_ssl=True, tls=tls)


def ldap_server_old(host):
    tls = ldap3.Tls(validate=ssl.CERT_REQUIRED, version=ssl.PROTOCOL_TLSv1)  # expect: SSC701
    return ldap3.Server(host, use_ssl=True, tls=tls)


def pool_version_string(host):
    return urllib3.HTTPSConnectionPool(host, ssl_version="TLSv1")  # expect: SSC701


def pool_min_version(host):
    return urllib3.HTTPSConnectionPool(host, ssl_minimum_version=ssl.TLSVersion.TLSv1)  # expect: SSC702


def pool_modern(host):
    return urllib3.PoolManager(ssl_minimum_version=ssl.TLSVersion.TLSv1_2)  # expect: none


def twisted_server_method(key, cert):
    return tssl.CertificateOptions(key, cert, method=SSL.TLSv1_METHOD)  # expect: SSC701


def twisted_server_lowered(key, cert):
    return tssl.CertificateOptions(
        privateKey=key,
        certificate=cert,
        insecurelyLowerMinimumTo=TwistedTLS.TLSv1_0,  # expect: SSC702
    )


def twisted_server_raised(key, cert):
    return tssl.CertificateOptions(privateKey=key, certificate=cert, raiseMinimumTo=TwistedTLS.TLSv1_2)  # expect: none


def openssl_client(sock):
    ctx = SSL.Context(SSL.TLSv1_1_METHOD)  # expect: SSC701 SSC209
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def openssl_client_modern(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_verify(SSL.VERIFY_PEER, lambda *args: args[-1])  # expect: none
    ctx.set_min_proto_version(SSL.TLS1_2_VERSION)  # expect: none
    return SSL.Connection(ctx, sock)


def openssl_min_proto(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC210
    ctx.set_verify(SSL.VERIFY_PEER)
    ctx.set_min_proto_version(SSL.TLS1_VERSION)  # expect: SSC702
    return SSL.Connection(ctx, sock)


def lowest_supported():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702
    return ctx


def capped_at_tls11():
    ctx = ssl.create_default_context()
    ctx.maximum_version = ssl.TLSVersion.TLSv1_1  # expect: SSC702
    return ctx


def capped_at_max():
    ctx = ssl.create_default_context()
    ctx.maximum_version = ssl.TLSVersion.MAXIMUM_SUPPORTED  # expect: none
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3  # expect: none
    return ctx


def version_by_number():
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion(0x0301)  # expect: SSC702
    return ctx


def reenable_tls1():
    ctx = ssl.create_default_context()
    ctx.options &= ~ssl.OP_NO_TLSv1  # expect: SSC703
    return ctx


def reenable_by_clear(ctx):
    ctx.options = ctx.options & ~(ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1)  # expect: SSC703
    return ctx


def disable_old():
    ctx = ssl.create_default_context()
    ctx.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none
    return ctx


def ciphers_level0():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")  # expect: SSC704
    return ctx


def ciphers_rc4(host):
    return urllib3.PoolManager(ciphers="RC4-SHA:AES128-SHA")  # expect: SSC704


def ciphers_strong():
    ctx = ssl.create_default_context()
    ctx.set_ciphers("ECDHE+AESGCM:!aNULL:!MD5")  # expect: none
    return ctx


def openssl_ciphers():
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER)
    ctx.set_cipher_list(b"ALL:eNULL")  # expect: SSC704
    return ctx


def version_from_getattr(host):
    ctx = ssl.SSLContext(getattr(ssl, "PROTOCOL_TLSv1"))  # expect: SSC701 SSC204
    return ctx.wrap_socket(socket.create_connection((host, 443)), server_hostname=host)


def server_old_clients(certfile):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(certfile)
    ctx.minimum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
    return ctx


def plain_socket(host):
    return socket.create_connection((host, 443))  # expect: none
