"""A thirteenth held-out family: CytoScnPy's network rules, and other tools' suppressions.

Facts from the rule pages of CytoScnPy's network category (CSP-D401 ``verify=False`` in a
multi-line call, CSP-D407 ``HTTPSConnection`` without ``context=``, CSP-D408
``_create_unverified_context``, CSP-D411 ``ssl.wrap_socket``), including their suppression
examples: a comment that silences another tool (``# ignore``, ``# nosec``, ``# noqa: S501``)
does not silence this one, which needs its own ``allow`` with a reason. Own code, nothing
copied.
"""
import http.client
import socket
import ssl
import urllib.request

import requests


def post_multiline(url, token, payload):
    return requests.post(
        url,
        json=payload,
        headers={"Authorization": f"Bearer {token}"},
        verify=False,  # expect: SSC101
    )


def status_with_other_tools_comments(url):
    # ignore: CSP-D401
    first = requests.get(url, verify=False)  # expect: SSC101
    second = requests.get(url, verify=False)  # nosec B501  # expect: SSC101
    third = requests.get(url, verify=False)  # noqa: S501  # expect: SSC101
    return first, second, third


def opener_unverified(url):
    context = ssl._create_unverified_context()  # expect: SSC203
    return urllib.request.urlopen(url, context=context)


def legacy_wrap(host):
    sock = socket.create_connection((host, 443))
    return ssl.wrap_socket(sock)  # expect: SSC205


def legacy_wrap_optional(host):
    sock = socket.create_connection((host, 443))
    return ssl.wrap_socket(sock, cert_reqs=ssl.CERT_NONE)  # expect: SSC205


def https_with_unverified(host):
    conn = http.client.HTTPSConnection(host, context=ssl._create_unverified_context())  # expect: SSC203
    conn.request("GET", "/")
    return conn.getresponse()


# --- look-alikes ---------------------------------------------------------------------------

def https_default(host):
    conn = http.client.HTTPSConnection(host)  # expect: none
    conn.request("GET", "/")
    return conn.getresponse()


def https_explicit_context(host):
    context = ssl.create_default_context()
    conn = http.client.HTTPSConnection(host, context=context)  # expect: none
    conn.request("GET", "/")
    return conn.getresponse()


def own_ca_bundle(url):
    return requests.get(url, verify="/srv/app/internal-ca.pem")  # expect: none


def context_wrap(host):
    context = ssl.create_default_context()
    with socket.create_connection((host, 443)) as sock:
        with context.wrap_socket(sock, server_hostname=host) as tls:  # expect: none
            return tls.version()


def allowed_with_reason(url):
    return requests.get(url, verify=False)  # sslcustomize: allow(loopback fixture)  # expect: none
