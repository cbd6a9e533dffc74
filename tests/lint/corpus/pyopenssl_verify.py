"""pyOpenSSL verification: VERIFY_NONE (also OR-ed), callbacks that accept all, no set_verify."""
import socket

from OpenSSL import SSL
from OpenSSL.SSL import VERIFY_NONE, Connection, Context


def always_ok(conn, cert, errnum, depth, ok):
    return True


def accept_everything(*args):
    return 1


def verify_none_forms(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_NONE, always_ok)  # expect: SSC208
    ctx.set_verify(mode=SSL.VERIFY_NONE)  # expect: SSC208
    ctx.set_verify(SSL.VERIFY_NONE | SSL.VERIFY_CLIENT_ONCE)  # expect: SSC208
    ctx.set_verify(SSL.VERIFY_FAIL_IF_NO_PEER_CERT | SSL.VERIFY_NONE)  # expect: SSC208
    ctx.set_verify(VERIFY_NONE, None)  # expect: SSC208
    conn = SSL.Connection(ctx, sock)
    conn.set_connect_state()
    return conn


def callbacks_that_accept_all(sock):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)
    ctx.set_verify(SSL.VERIFY_PEER, always_ok)  # expect: SSC208
    other = SSL.Context(SSL.TLS_CLIENT_METHOD)
    other.set_verify(SSL.VERIFY_PEER, lambda *args: True)  # expect: SSC208
    third = SSL.Context(SSL.TLS_CLIENT_METHOD)
    third.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, accept_everything)  # expect: SSC208
    for context in (ctx, other, third):
        Connection(context, sock).set_connect_state()


def client_without_set_verify(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: SSC209
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_tlsext_host_name(host.encode())
    conn.set_connect_state()
    conn.do_handshake()
    return conn


def client_connect_call(host):
    ctx = Context(SSL.TLS_METHOD)  # expect: SSC209
    conn = Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


# --- look-alikes ---------------------------------------------------------------------------

def checking_callback(conn, cert, errnum, depth, ok):
    return ok


def strict_callback(conn, cert, errnum, depth, ok):
    if not ok:
        return False
    return cert.get_subject().CN == "a.example"


def verified_client(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER, checking_callback)  # expect: none
    ctx.set_default_verify_paths()
    conn = SSL.Connection(ctx, socket.create_connection((host, 443)))
    conn.set_connect_state()
    return conn


def verified_client_flags(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER | SSL.VERIFY_FAIL_IF_NO_PEER_CERT, strict_callback)  # expect: none
    ctx.load_verify_locations("/etc/ssl/certs/ca-certificates.crt")
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def verified_without_callback(host):
    ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)  # expect: none
    ctx.set_verify(SSL.VERIFY_PEER)  # expect: none
    conn = SSL.Connection(ctx, socket.socket())
    conn.connect((host, 443))
    return conn


def server_side(listener):
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)  # expect: none
    ctx.use_privatekey_file("/etc/app/key.pem")
    ctx.use_certificate_chain_file("/etc/app/chain.pem")
    conn = SSL.Connection(ctx, listener)
    conn.set_accept_state()
    return conn


def server_optional_client_certs(listener):
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)
    ctx.use_certificate_file("/etc/app/cert.pem")
    ctx.set_verify(SSL.VERIFY_NONE)  # expect: none
    conn = SSL.Connection(ctx, listener)
    conn.set_accept_state()
    return conn
