"""Held-out family 30: weak protocol versions, version bounds and ciphers in real code, unseen.

Written without reading the linter's code or its earlier corpus families. Shapes (nothing
copied) from public code found with the search tools: scrapy's downloader TLS method map and
its ``DOWNLOADER_CLIENT_TLS_METHOD`` / ``DOWNLOADER_CLIENT_TLS_CIPHERS`` settings; requests
``HTTPAdapter`` subclasses that build their pool with ``ssl_version=`` or a context from
``create_urllib3_context`` (TLSv1 adapters in many small projects, pytapo's ``TlsAdapter``,
fybrik's ``SSLContextAdapter``); tornado ``HTTPServer(ssl_options={...})`` servers and
tornado's own HTTPS demo; gevent ``StreamServer`` and socketserver TLS servers taking
``ssl_version=``; sslcaudit's M2Crypto protocol names (``"sslv3"``, ``"tlsv1"``); protocol
tables keyed by a configuration name (pymapfilter, SABnzbd, urllib3's test helpers);
smtplib/imaplib/ftplib/asyncio/http.client clients given a context; pyOpenSSL servers;
Twisted's ``CertificateOptions`` and treq-style ``optionsForClientTLS`` callers (fedora-messaging's
``extraCertificateOptions={"raiseMinimumTo": ...}``); Django
database settings for psycopg; pymysql's ``ssl`` dict.

Facts checked against the libraries (docs or code): tornado turns an ``ssl_options`` dict
into ``SSLContext(ssl_options.get("ssl_version", PROTOCOL_TLS))`` and applies its
``"ciphers"``; scrapy maps ``DOWNLOADER_CLIENT_TLS_METHOD = "TLSv1.0"`` to pyOpenSSL's
``TLSv1_METHOD``; urllib3 2.x still honours ``ssl_version=`` on a pool (deprecated, mapped to
a pinned minimum and maximum) and takes ``ssl_minimum_version`` / ``ssl_maximum_version``;
Twisted's ``optionsForClientTLS(..., extraCertificateOptions=...)`` passes the dict as keywords
to ``CertificateOptions``, whose ``insecurelyLowerMinimumTo`` lowers the floor; libpq (and so
psycopg and Django's ``OPTIONS``) takes ``ssl_min_protocol_version``, default TLSv1.2; pymysql
applies ``ssl["cipher"]`` with ``set_ciphers``; M2Crypto's ``Context("sslv3")`` asks for SSL 3 and
fails on a build without it instead of connecting (labelled SSC701 as the rule defines it: asked for). On Python 3.10+ contexts start at a TLS 1.2
minimum, so clearing ``OP_NO_TLSv1`` alone does nothing there: the one SSC703 site here comes
with the lowered minimum on the line above it (both labelled), as real code writes them.
OpenSSL 3 at its default security level refuses some weak suites that OpenSSL 1.1.1 builds
(still packaged by RHEL 8 and Ubuntu 20.04) accept: the cipher strings are labelled SSC704 as
the rule defines it. A bare ``SSLContext(PROTOCOL_TLSv1_2)`` used by a client is SSC204 (it
verifies nothing), not a weak version. A table that maps configuration names to every
protocol, with a negotiated default, is the user's choice: a look-alike.
"""

import asyncio
import configparser
import ftplib
import http.client
import imaplib
import os
import smtplib
import socket
import ssl

import pymysql
import requests
import tornado.httpserver
import tornado.web
from aiohttp import TCPConnector, web
from gevent.server import StreamServer
from M2Crypto import SSL as M2SSL
from OpenSSL import SSL
from requests.adapters import HTTPAdapter
from twisted.internet import ssl as tssl
from twisted.internet.ssl import TLSVersion, optionsForClientTLS
from urllib3 import PoolManager
from urllib3.util.ssl_ import create_urllib3_context

CERT = "/etc/app/tls/server.crt"
KEY = "/etc/app/tls/server.key"
CA_BUNDLE = "/etc/ssl/corp/ca-bundle.pem"


# -- scrapy settings.py ---------------------------------------------------------------------------

DOWNLOADER_CLIENT_TLS_METHOD = "TLSv1.0"  # expect: SSC701
DOWNLOADER_CLIENT_TLS_CIPHERS = "DEFAULT:!DH"  # expect: none
ROBOTSTXT_OBEY = False  # expect: none


class ModernSpiderSettings:
    DOWNLOADER_CLIENT_TLS_METHOD = "TLS"  # expect: none
    DOWNLOADER_CLIENT_TLS_CIPHERS = "RC4-SHA:AES128-SHA"  # expect: SSC704


# -- tornado ------------------------------------------------------------------------------------------


def tornado_legacy_server(app):
    server = tornado.httpserver.HTTPServer(
        app,
        ssl_options={
            "certfile": CERT,
            "keyfile": KEY,
            "ssl_version": ssl.PROTOCOL_TLSv1,  # expect: SSC701
        },
    )
    server.listen(8443)


def tornado_cipher_server(app):
    options = {"certfile": CERT, "keyfile": KEY}
    options["ciphers"] = "ALL:!aNULL:@SECLEVEL=0"  # expect: SSC704
    return tornado.httpserver.HTTPServer(app, ssl_options=options)


def tornado_modern_server(app):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(CERT, KEY)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none
    ctx.set_ciphers("ECDHE+AESGCM:!aNULL:!eNULL:!RC4:!MD5:!DES")  # expect: none
    return tornado.httpserver.HTTPServer(app, ssl_options=ctx)


def tornado_dict_server(app):
    return tornado.httpserver.HTTPServer(app, ssl_options={"certfile": CERT, "keyfile": KEY})  # expect: none


# -- gevent and socket servers --------------------------------------------------------------------------


def gevent_echo_server(handle):
    return StreamServer(("0.0.0.0", 6000), handle, keyfile=KEY, certfile=CERT, ssl_version=ssl.PROTOCOL_TLSv1_1)  # expect: SSC701


def gevent_context_server(handle):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(CERT, KEY)
    return StreamServer(("0.0.0.0", 6001), handle, ssl_context=ctx)  # expect: none


def open_tunnel(host, port, protocol=ssl.PROTOCOL_TLSv1):  # expect: SSC701
    raw = socket.create_connection((host, port))
    ctx = ssl.SSLContext(protocol)
    ctx.load_verify_locations(CA_BUNDLE)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    return ctx.wrap_socket(raw, server_hostname=host)


def open_modern_tunnel(host, port, protocol=ssl.PROTOCOL_TLS_CLIENT):  # expect: none
    raw = socket.create_connection((host, port))
    ctx = ssl.SSLContext(protocol)
    ctx.load_verify_locations(CA_BUNDLE)
    return ctx.wrap_socket(raw, server_hostname=host)


# -- requests adapters and urllib3 ------------------------------------------------------------------------


class Tls1Adapter(HTTPAdapter):
    """Talks to an old appliance that only speaks TLS 1.0."""

    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        self.poolmanager = PoolManager(
            num_pools=connections,
            maxsize=maxsize,
            block=block,
            ssl_version=ssl.PROTOCOL_TLSv1,  # expect: SSC701
        )


class NegotiatingAdapter(HTTPAdapter):
    def init_poolmanager(self, connections, maxsize, block=False, **pool_kwargs):
        self.poolmanager = PoolManager(num_pools=connections, maxsize=maxsize, block=block, ssl_version=ssl.PROTOCOL_TLS)  # expect: none


class FloorAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        kwargs["ssl_minimum_version"] = ssl.TLSVersion.TLSv1  # expect: SSC702
        super().init_poolmanager(*args, **kwargs)


class ModernFloorAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        kwargs["ssl_minimum_version"] = ssl.TLSVersion.TLSv1_2  # expect: none
        super().init_poolmanager(*args, **kwargs)


class CappedContextAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        context = create_urllib3_context(ssl_maximum_version=ssl.TLSVersion.TLSv1_1)  # expect: SSC702
        kwargs["ssl_context"] = context
        return super().init_poolmanager(*args, **kwargs)


class CipherContextAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        context = create_urllib3_context(ciphers="ALL:@SECLEVEL=0")  # expect: SSC704
        context.load_verify_locations(CA_BUNDLE)
        kwargs["ssl_context"] = context
        return super().init_poolmanager(*args, **kwargs)


class StrictContextAdapter(HTTPAdapter):
    def init_poolmanager(self, *args, **kwargs):
        context = create_urllib3_context(ssl_minimum_version=ssl.TLSVersion.TLSv1_3)  # expect: none
        context.load_default_certs()
        kwargs["ssl_context"] = context
        return super().init_poolmanager(*args, **kwargs)


def legacy_session():
    session = requests.Session()
    session.mount("https://printer.internal/", Tls1Adapter())
    return session


# -- stdlib clients given a context ------------------------------------------------------------------------


def send_report(host, user, password, message):
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
    with smtplib.SMTP_SSL(host, 465, context=ctx) as smtp:
        smtp.login(user, password)
        smtp.send_message(message)


def send_report_modern(host, user, password, message):
    with smtplib.SMTP_SSL(host, 465, context=ssl.create_default_context()) as smtp:  # expect: none
        smtp.login(user, password)
        smtp.send_message(message)


def old_mailbox(host, user, password):
    ctx = ssl.create_default_context()
    ctx.minimum_version = ssl.TLSVersion.TLSv1  # expect: SSC702
    ctx.options &= ~(ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1)  # expect: SSC703
    box = imaplib.IMAP4_SSL(host, ssl_context=ctx)
    box.login(user, password)
    return box


def mailbox_without_tickets(host, user, password):
    ctx = ssl.create_default_context()
    ctx.options |= ssl.OP_NO_TLSv1 | ssl.OP_NO_TLSv1_1  # expect: none
    ctx.options &= ~ssl.OP_NO_TICKET  # expect: none
    box = imaplib.IMAP4_SSL(host, ssl_context=ctx)
    box.login(user, password)
    return box


def legacy_ftp(host, user, password):
    ctx = ssl.create_default_context()
    ctx.set_ciphers("DEFAULT:@SECLEVEL=0")  # expect: SSC704
    ftp = ftplib.FTP_TLS(host, context=ctx)
    ftp.login(user, password)
    ftp.prot_p()
    return ftp


def capped_ftp(host, user, password):
    ctx = ssl.create_default_context(cafile=CA_BUNDLE)
    ctx.maximum_version = ssl.TLSVersion.MAXIMUM_SUPPORTED  # expect: none
    ftp = ftplib.FTP_TLS(host, context=ctx)
    ftp.login(user, password)
    return ftp


async def read_banner(host):
    ctx = ssl.create_default_context()
    ctx.maximum_version = ssl.TLSVersion.TLSv1_1  # expect: SSC702
    reader, writer = await asyncio.open_connection(host, 993, ssl=ctx)
    banner = await reader.readline()
    writer.close()
    return banner


async def read_banner_modern(host):
    reader, writer = await asyncio.open_connection(host, 993, ssl=ssl.create_default_context())  # expect: none
    banner = await reader.readline()
    writer.close()
    return banner


def status_page(host):
    conn = http.client.HTTPSConnection(host, context=ssl.SSLContext(ssl.PROTOCOL_TLSv1_2))  # expect: SSC204
    conn.request("GET", "/status")
    return conn.getresponse().read()


def status_page_verified(host):
    conn = http.client.HTTPSConnection(host, context=ssl.create_default_context(cafile=CA_BUNDLE))  # expect: none
    conn.request("GET", "/status")
    return conn.getresponse().read()


def check_negotiated(sock):
    if sock.version() in ("TLSv1", "TLSv1.1"):  # expect: none
        raise ssl.SSLError("peer negotiated a deprecated protocol")


def assert_floor(ctx):
    if ctx.minimum_version < ssl.TLSVersion.TLSv1_2:  # expect: none
        ctx.minimum_version = ssl.TLSVersion.TLSv1_2  # expect: none


# -- httpx, aiohttp -----------------------------------------------------------------------------------------


def aiohttp_connector():
    ctx = ssl.create_default_context(cafile=CA_BUNDLE)
    ctx.set_ciphers("HIGH:aNULL")  # expect: SSC704
    return TCPConnector(ssl=ctx)


def aiohttp_modern_server(app):
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(CERT, KEY)
    ctx.minimum_version = ssl.TLSVersion.TLSv1_3  # expect: none
    web.run_app(app, port=8443, ssl_context=ctx)


# -- M2Crypto and pyOpenSSL --------------------------------------------------------------------------------


def m2_client_context():
    ctx = M2SSL.Context("sslv3")  # expect: SSC701
    ctx.load_verify_locations(CA_BUNDLE)
    ctx.set_verify(M2SSL.verify_peer, 9)
    return ctx


def m2_default_context():
    ctx = M2SSL.Context("tls")  # expect: none
    ctx.load_verify_locations(CA_BUNDLE)
    ctx.set_verify(M2SSL.verify_peer, 9)
    return ctx


def pyopenssl_legacy_server():
    ctx = SSL.Context(SSL.TLSv1_1_METHOD)  # expect: SSC701
    ctx.use_certificate_file(CERT)
    ctx.use_privatekey_file(KEY)
    return ctx


def pyopenssl_floor_server():
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)  # expect: none
    ctx.use_certificate_file(CERT)
    ctx.use_privatekey_file(KEY)
    ctx.set_min_proto_version(SSL.TLS1_VERSION)  # expect: SSC702
    return ctx


def pyopenssl_modern_server():
    ctx = SSL.Context(SSL.TLS_SERVER_METHOD)  # expect: none
    ctx.use_certificate_file(CERT)
    ctx.use_privatekey_file(KEY)
    ctx.set_min_proto_version(SSL.TLS1_2_VERSION)  # expect: none
    return ctx


def pyopenssl_negotiating_server():
    ctx = SSL.Context(SSL.SSLv23_METHOD)  # expect: none
    ctx.set_options(SSL.OP_NO_SSLv2 | SSL.OP_NO_SSLv3 | SSL.OP_NO_TLSv1 | SSL.OP_NO_TLSv1_1)  # expect: none
    ctx.use_certificate_file(CERT)
    ctx.use_privatekey_file(KEY)
    return ctx


# -- Twisted and treq ---------------------------------------------------------------------------------------


def twisted_server_options(key, cert):
    return tssl.CertificateOptions(privateKey=key, certificate=cert, insecurelyLowerMinimumTo=TLSVersion.TLSv1_0)  # expect: SSC702


def twisted_client_options(hostname):
    return optionsForClientTLS(hostname, extraCertificateOptions={"insecurelyLowerMinimumTo": TLSVersion.TLSv1_1})  # expect: SSC702


def twisted_client_options_raised(hostname):
    return optionsForClientTLS(hostname, extraCertificateOptions={"raiseMinimumTo": TLSVersion.TLSv1_2})  # expect: none


def twisted_server_capped(key, cert):
    return tssl.CertificateOptions(privateKey=key, certificate=cert, lowerMaximumSecurityTo=TLSVersion.TLSv1_3)  # expect: none


# -- Django and database drivers ----------------------------------------------------------------------------

DATABASES = {
    "default": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "orders",
        "HOST": "db.internal",
        "OPTIONS": {
            "sslmode": "verify-full",
            "sslrootcert": CA_BUNDLE,
            "ssl_min_protocol_version": "TLSv1",  # expect: SSC702
        },
    },
    "reporting": {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": "reports",
        "HOST": "replica.internal",
        "OPTIONS": {
            "sslmode": "verify-full",
            "sslrootcert": CA_BUNDLE,
            "ssl_min_protocol_version": "TLSv1.2",  # expect: none
        },
    },
}


def mysql_weak_cipher(host, user, password):
    return pymysql.connect(host=host, user=user, password=password, ssl={"ca": CA_BUNDLE, "cipher": "RC4-MD5"})  # expect: SSC704


def mysql_verified(host, user, password):
    return pymysql.connect(host=host, user=user, password=password, ssl={"ca": CA_BUNDLE, "check_hostname": True})  # expect: none


# -- versions named in configuration ---------------------------------------------------------------------------


def protocol_from_config(path):
    conf = configparser.ConfigParser()
    conf.read(path)
    return getattr(ssl, "PROTOCOL_" + conf.get("tls", "protocol", fallback="TLSv1"))  # expect: SSC701


def protocol_from_config_modern(path):
    conf = configparser.ConfigParser()
    conf.read(path)
    return getattr(ssl, "PROTOCOL_" + conf.get("tls", "protocol", fallback="TLS_CLIENT"))  # expect: none


def floor_from_environment(ctx):
    ctx.minimum_version = ssl.TLSVersion[os.environ.get("APP_MIN_TLS", "TLSv1")]  # expect: SSC702


def floor_from_environment_modern(ctx):
    ctx.minimum_version = ssl.TLSVersion[os.environ.get("APP_MIN_TLS", "TLSv1_2")]  # expect: none


PROTOCOL_CHOICES = {
    "tls": ssl.PROTOCOL_TLS_CLIENT,
    "tls1": ssl.PROTOCOL_TLSv1,  # expect: none
    "tls1.1": ssl.PROTOCOL_TLSv1_1,  # expect: none
}


def protocol_for(name="tls"):
    return PROTOCOL_CHOICES[name]
