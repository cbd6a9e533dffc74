"""Held-out family 26: what the public rule suites' own test files showed the linter missing.

The linter was run, unchanged, on the TLS test files of semgrep-rules, bandit's examples,
sonar-python's S4423/S4830/S5527 resources and CodeQL's InsecureProtocol and
RequestWithoutValidation query tests, kept outside the project and labelled there (see
docs/lint.md, "Measured on the rule suites' own files"). These are own-code shapes of what it
missed or wrongly reported there; nothing is copied.

Labels: an expression statement that makes a context and throws it away is a look-alike (no
connection can use it); its protocol is still checked. A context made inside a call's argument
cannot be given a key and certificate, so whoever receives it is a client. A pyOpenSSL client
that asks for ``VERIFY_PEER`` still checks no host name: SSC210 unless the file checks one. AWS
CDK endpoint
policies are labelled only where the weak policy is written: a construct left at its default is
not (the default is the provider's, and changes).
"""

import socket

try:
    import ssl
except ImportError:  # an interpreter built without OpenSSL
    ssl = None

from aws_cdk import aws_apigateway, aws_apigatewayv2
from aws_cdk import aws_opensearchservice as search
from pyOpenSSL import SSL as OSSL

import requests

LEGACY_POLICY = aws_apigateway.SecurityPolicy.TLS_1_0
MODERN_POLICY = aws_apigateway.SecurityPolicy.TLS_1_2


# -- an optional import keeps its module --------------------------------------------------------


if ssl is not None:
    PINNED = ssl.SSLContext(ssl.PROTOCOL_TLSv1)  # expect: SSC204 SSC701
    DEFAULT = ssl.create_default_context()  # expect: none


def feed_reader(url):
    if ssl is None:
        raise RuntimeError("no TLS")
    context = ssl.create_default_context()  # expect: none
    context.check_hostname = False  # expect: SSC202
    context.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return context


# -- pyOpenSSL spelled by its distribution name -------------------------------------------------


def legacy_handshake(sock):
    context = OSSL.Context(method=OSSL.TLSv1_1_METHOD)  # expect: SSC701 SSC210
    context.set_verify(OSSL.VERIFY_PEER)
    context.set_default_verify_paths()
    conn = OSSL.Connection(context, sock)
    conn.set_connect_state()
    return conn


def connect_with(method=OSSL.SSLv3_METHOD):  # expect: SSC701
    return method


def negotiated(sock):
    context = OSSL.Context(OSSL.SSLv23_METHOD)  # expect: SSC210
    context.set_verify(OSSL.VERIFY_PEER)
    context.set_default_verify_paths()
    return OSSL.Connection(context, sock)  # expect: none


def chain_only(host):
    context = OSSL.Context(OSSL.TLS_CLIENT_METHOD)  # expect: SSC210
    context.set_verify(OSSL.VERIFY_PEER | OSSL.VERIFY_FAIL_IF_NO_PEER_CERT)
    context.set_default_verify_paths()
    conn = OSSL.Connection(context, socket.create_connection((host, 443)))
    conn.set_tlsext_host_name(host.encode())
    conn.set_connect_state()
    return conn


def mutual_server(sock):
    context = OSSL.Context(OSSL.TLS_METHOD)  # expect: none
    context.set_verify(OSSL.VERIFY_PEER | OSSL.VERIFY_FAIL_IF_NO_PEER_CERT)
    context.use_privatekey_file("server.key")
    context.use_certificate_chain_file("server.pem")
    conn = OSSL.Connection(context, sock)
    conn.set_accept_state()
    return conn


# -- version bounds written with the names of ssl's TLSVersion members --------------------------


def lowered_floor():
    context = ssl.create_default_context()  # expect: none
    context.minimum_version = ssl.TLSv1_1  # expect: SSC702
    return context


def capped_ceiling():
    context = ssl.create_default_context()  # expect: none
    context.maximum_version = ssl.TLSv1  # expect: SSC702
    return context


def raised_floor():
    context = ssl.create_default_context()  # expect: none
    context.minimum_version = ssl.TLSv1_3  # expect: none
    return context


# -- values false when the code runs -------------------------------------------------------------


def fetch_empty_range(url):
    return requests.get(url, verify=range(0))  # expect: SSC101


def _no_checks():
    return False


def _checks():
    return True


def fetch_through_constant(url):
    return requests.get(url, verify=_no_checks())  # expect: SSC101


def fetch_checked(url):
    return requests.get(url, verify=_checks())  # expect: none


def fetch_full_range(url):
    return requests.get(url, verify=range(1, 3))  # expect: none


# -- contexts made in an argument: a client's; contexts thrown away: nobody's ------------------


def hand_over(register):
    register(ssl.SSLContext(ssl.PROTOCOL_TLS))  # expect: SSC204
    register(ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT))  # expect: none
    register(ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER))  # expect: none
    register(tls=ssl.SSLContext())  # expect: SSC204


def serve_with(start_server):
    return start_server(ssl.SSLContext(ssl.PROTOCOL_TLS))  # expect: none


def pyopenssl_inline(sock):
    return OSSL.Connection(OSSL.Context(OSSL.TLS_CLIENT_METHOD), sock)  # expect: SSC209


def pyopenssl_named(sock):
    context = OSSL.Context(OSSL.TLS_METHOD)  # expect: SSC209
    return OSSL.Connection(context, sock)


def pyopenssl_server(sock):
    context = OSSL.Context(OSSL.TLS_METHOD)  # expect: none
    context.use_privatekey_file("server.key")
    context.use_certificate_chain_file("server.pem")
    return OSSL.Connection(context, sock)


def pyopenssl_server_method(register):
    register(OSSL.Context(OSSL.TLS_SERVER_METHOD))  # expect: none


def probe():
    ssl._create_unverified_context()  # expect: none
    ssl.SSLContext()  # expect: none
    ssl.SSLContext(ssl.PROTOCOL_SSLv3)  # expect: SSC701
    return socket.gethostname()


def probe_kept(register):
    register(ssl._create_unverified_context())  # expect: SSC203


# -- a cloud endpoint's TLS policy in AWS CDK code -----------------------------------------------


def api_domains(scope, certificate):
    aws_apigateway.DomainName(  # expect: none
        scope,
        "legacy",
        domain_name="legacy.example.org",
        certificate=certificate,
        security_policy=aws_apigateway.SecurityPolicy.TLS_1_0,  # expect: SSC702
    )
    aws_apigateway.DomainName(scope, "var", security_policy=LEGACY_POLICY)  # expect: SSC702
    aws_apigateway.DomainName(scope, "modern", security_policy=MODERN_POLICY)  # expect: none
    aws_apigatewayv2.DomainName(
        scope, "v2", security_policy=aws_apigatewayv2.SecurityPolicy.TLS_1_0  # expect: SSC702
    )
    aws_apigateway.CfnDomainName(scope, "cfn", security_policy="TLS_1_0")  # expect: SSC702
    aws_apigateway.CfnDomainName(scope, "cfn12", security_policy="TLS_1_2")  # expect: none
    aws_apigateway.DomainName(scope, "default")  # expect: none


def search_domains(scope):
    search.Domain(scope, "old", tls_security_policy=search.TLSSecurityPolicy.TLS_1_0)  # expect: SSC702
    search.Domain(scope, "new", tls_security_policy=search.TLSSecurityPolicy.TLS_1_2)  # expect: none
    options = {"tls_security_policy": "Policy-Min-TLS-1-0-2019-07"}  # expect: SSC702
    search.CfnDomain(scope, "cfn", domain_endpoint_options=options)
    search.CfnDomain(
        scope,
        "cfn12",
        domain_endpoint_options=search.CfnDomain.DomainEndpointOptionsProperty(
            tls_security_policy="Policy-Min-TLS-1-2-2019-07"  # expect: none
        ),
    )
