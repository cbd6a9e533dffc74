"""A fifteenth held-out family: TLS client helpers in real projects (pyOpenSSL and stdlib).

Shapes seen in mail fetchers, IRC and XMPP bots, LDAP tools and monitoring probes: pyOpenSSL's
``set_verify`` with ``VERIFY_NONE`` held in a variable or a default, weak methods and
``ssl_version=`` as helper defaults, ``minimum_version`` assigned from a setting,
``set_min_proto_version``, LDAP ``Tls`` objects, and probes that look at the certificate
without trusting it. Own code, nothing copied.
"""
import imaplib
import socket
import ssl

from OpenSSL import SSL

VERIFY_FLAGS = SSL.VERIFY_NONE
LEGACY_METHOD = SSL.TLSv1_METHOD


def pyopenssl_client(host, port=443):
    context = SSL.Context(SSL.TLS_CLIENT_METHOD)
    context.set_verify(VERIFY_FLAGS, None)  # expect: SSC208
    conn = SSL.Connection(context, socket.create_connection((host, port)))
    conn.set_tlsext_host_name(host.encode())
    conn.set_connect_state()
    conn.do_handshake()
    return conn


def pyopenssl_legacy(host, port=993):
    context = SSL.Context(LEGACY_METHOD)  # expect: SSC701 SSC210
    context.set_verify(SSL.VERIFY_PEER, None)
    context.set_default_verify_paths()
    return SSL.Connection(context, socket.create_connection((host, port)))


def pyopenssl_floor(context):
    context.set_min_proto_version(SSL.TLS1_VERSION)  # expect: SSC702
    return context


def pyopenssl_floor_ok(context):
    context.set_min_proto_version(SSL.TLS1_2_VERSION)  # expect: none
    return context


def wrap_irc(sock, ssl_version=ssl.PROTOCOL_TLSv1):  # expect: SSC701
    context = ssl.SSLContext(ssl_version)  # expect: SSC204
    return context.wrap_socket(sock)


def with_floor(version_name="TLSv1"):
    context = ssl.create_default_context()
    context.minimum_version = getattr(ssl.TLSVersion, version_name)  # expect: SSC702
    return context


def with_floor_default():
    context = ssl.create_default_context()
    context.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    context.maximum_version = ssl.TLSVersion.TLSv1_3  # expect: none
    return context


def mail_fetcher(host, user, password):
    context = ssl.create_default_context()
    context.check_hostname = False  # expect: SSC202
    context.verify_mode = ssl.CERT_NONE  # expect: SSC201
    box = imaplib.IMAP4_SSL(host, ssl_context=context)
    box.login(user, password)
    return box


def mail_fetcher_ok(host):
    return imaplib.IMAP4_SSL(host, ssl_context=ssl.create_default_context())  # expect: none


def ldap_tls():
    import ldap3

    tls = ldap3.Tls(validate=ssl.CERT_NONE, version=ssl.PROTOCOL_TLSv1_2)  # expect: SSC508
    return ldap3.Server("ldaps://directory.example", use_ssl=True, tls=tls)


def ldap_tls_old():
    import ldap3

    tls = ldap3.Tls(validate=ssl.CERT_REQUIRED, version=ssl.PROTOCOL_TLSv1)  # expect: SSC701
    return ldap3.Server("ldaps://directory.example", use_ssl=True, tls=tls)


def cert_probe(host, port=443):
    # Reads the certificate's expiry date; nothing is sent over the connection.
    context = ssl.create_default_context()
    context.load_verify_locations("/etc/ssl/certs/ca-certificates.crt")  # expect: none
    with socket.create_connection((host, port)) as sock:
        with context.wrap_socket(sock, server_hostname=host) as tls:  # expect: none
            return tls.getpeercert()["notAfter"]


def legacy_ciphers(context):
    context.set_ciphers("DEFAULT:!aNULL:RC4-SHA")  # expect: SSC704
    return context


def strong_ciphers(context):
    context.set_ciphers("ECDHE+AESGCM:!aNULL:!MD5")  # expect: none
    return context
