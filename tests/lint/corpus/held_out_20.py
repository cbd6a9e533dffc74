"""Held-out family 20: repaired contexts, process-wide patches, stdlib clients and test code.

Shapes from sonar-python's S5527 and S4830 check tests (an unverified or stdlib context made
safe again before use, `check_hostname = True` alone included: since Python 3.7 it also turns
`CERT_NONE` into `CERT_REQUIRED`), semgrep-rules' `unverified-ssl-context` (the
`_create_default_https_context` patch), bandit's and CodeQL's examples of stdlib clients without
a context (gh-91826), dlint's DUO127 (duo_client's `ca_certs="DISABLE"`), and real projects'
start-up code (corporate CA bundles patched in through truststore or certifi, `PYTHONHTTPSVERIFY`
in scripts, pytest fixtures against a throw-away local server). Own code, nothing copied; written
without reading the linter.
"""

import ftplib
import functools
import imaplib
import os
import poplib
import smtplib
import ssl
import urllib.request
import xmlrpc.client

import certifi
import duo_client
import requests
import truststore

CORP_CA = "/etc/pki/corp-root.pem"


# Contexts made unverified and repaired before any use: look-alikes.
def fetch_with_repaired(url):
    ctx = ssl._create_unverified_context()  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    ctx.load_default_certs()
    return urllib.request.urlopen(url, context=ctx).read()


def fetch_with_hostname_only(url):
    """Setting check_hostname to True also sets CERT_REQUIRED (Python 3.7+)."""
    ctx = ssl._create_unverified_context()  # expect: none
    ctx.check_hostname = True
    ctx.load_verify_locations(CORP_CA)
    return urllib.request.urlopen(url, context=ctx).read()


def mail_with_stdlib_context(host):
    ctx = ssl._create_stdlib_context(cert_reqs=ssl.CERT_REQUIRED)  # expect: none
    ctx.check_hostname = True
    return smtplib.SMTP_SSL(host, context=ctx)


# Repaired only halfway: the chain is verified, the name is not.
def fetch_chain_only(url):
    ctx = ssl._create_unverified_context()  # expect: SSC206
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_default_certs()
    return urllib.request.urlopen(url, context=ctx).read()


# Not repaired.
legacy_rpc = xmlrpc.client.ServerProxy(
    "https://rpc.example/", context=ssl._create_unverified_context()  # expect: SSC203
)
mailer_ctx = ssl._create_stdlib_context()  # expect: SSC203
mailer = smtplib.SMTP_SSL("mail.example", context=mailer_ctx)


# Process-wide patches of the default HTTPS context.
def _corporate_context():
    ctx = ssl.create_default_context()
    ctx.load_verify_locations(CORP_CA)
    return ctx


ssl._create_default_https_context = _corporate_context  # expect: none
# Called with no argument, truststore.SSLContext() is PROTOCOL_TLS: CERT_NONE, no name check.
ssl._create_default_https_context = truststore.SSLContext  # expect: SSC301
ssl._create_default_https_context = functools.partial(  # expect: none
    ssl.create_default_context, cafile=certifi.where()
)
ssl._create_default_https_context = lambda: ssl._create_unverified_context()  # expect: SSC301 SSC203
setattr(ssl, "_create_default_https_context", ssl._create_unverified_context)  # expect: SSC301
ssl.create_default_context = ssl._create_unverified_context  # expect: SSC302



def with_corporate_ca(action):
    """Run action with the corporate CA trusted, then put back what was there."""
    saved = ssl._create_default_https_context
    ssl._create_default_https_context = _corporate_context  # expect: none
    try:
        return action()
    finally:
        ssl._create_default_https_context = saved  # expect: none


# The environment.
os.environ["PYTHONHTTPSVERIFY"] = "0"  # expect: SSC303
os.environ.setdefault("PYTHONHTTPSVERIFY", "0")  # expect: SSC303
os.environ["PYTHONHTTPSVERIFY"] = "1"  # expect: none
os.environ["REQUESTS_CA_BUNDLE"] = certifi.where()  # expect: none
os.environ["SSL_CERT_FILE"] = CORP_CA  # expect: none

# stdlib clients without a context (gh-91826), and with one.
inbox = imaplib.IMAP4_SSL("imap.example")  # expect: SSC603
inbox_ok = imaplib.IMAP4_SSL("imap.example", ssl_context=ssl.create_default_context())  # expect: none
pop_box = poplib.POP3_SSL("pop.example", context=None)  # expect: SSC604
files_ok = ftplib.FTP_TLS("ftp.example", context=ssl.create_default_context())  # expect: none
relay = smtplib.SMTP("smtp.example", 587)
relay.starttls()  # expect: SSC602
relay_ok = smtplib.SMTP("smtp.example", 587)
relay_ok.starttls(context=ssl.create_default_context())  # expect: none

# duo_client turns verification off with ca_certs="DISABLE". First labelled SSC506, the closest
# code when no rule named it; SSC515 since.
duo_auth = duo_client.Auth(ikey="DIXXXX", skey="secret", host="api.example", ca_certs="DISABLE")  # expect: SSC515
duo_auth_ok = duo_client.Auth(ikey="DIXXXX", skey="secret", host="api.example")  # expect: none


# Test code that turns verification off on purpose, and says why. In a tests/ path these are
# reported as notes (docs/lint.md, "Test files"); the corpus is scored with notes counted.
def test_health_endpoint(local_tls_server):
    """The health endpoint answers over TLS."""
    # throw-away self-signed certificate made for this test run
    resp = requests.get(local_tls_server.url + "/health", verify=False)  # expect: SSC101
    assert resp.status_code == 200


def test_health_endpoint_trusting_test_ca(local_tls_server, test_ca_path):
    """The same, trusting the test CA instead."""
    resp = requests.get(local_tls_server.url + "/health", verify=test_ca_path)  # expect: none
    assert resp.status_code == 200
