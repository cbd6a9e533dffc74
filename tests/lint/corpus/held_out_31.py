"""Held-out family 31: certificate verification turned off in client code of other domains.

Written without reading the linter's code or its earlier corpus families. Shapes (nothing
copied) from public code and documentation found with the search tools: scraping projects
(scrapy-playwright ``PLAYWRIGHT_CONTEXTS``, Playwright ``new_context(ignore_https_errors=...)``,
selenium and selenium-wire drivers with ``--ignore-certificate-errors`` and
``seleniumwire_options``, mechanize browsers and alexwlchan's note on ``set_ca_data``,
cloudscraper sessions); observability (prometheus_client's ``tls_auth_handler`` and its
``insecure_skip_verify``, OpenTelemetry OTLP exporters pointed at a local collector, Elastic
APM's Django/Flask settings and ``Client`` keywords, Sentry transports that override
``_get_pool_options``, graypy's ``GELFTLSHandler`` and the Backend.AI logging module that
subclasses it, ``logging.handlers.HTTPHandler``); chat and notification SDKs (slack_sdk
``WebClient(ssl=...)``, python-telegram-bot ``HTTPXRequest(httpx_kwargs=...)``, twilio's
``TwilioHttpClient``); Atlassian and CI clients (atlassian-python-api ``Confluence(...,
verify_ssl=False)`` as in suite_explorer's connector, ``jira.JIRA(options=...)``,
python-jenkins' session); OpenStack (keystoneauth1 sessions as in naturalis/storage-analytics,
libcloud's ``VERIFY_SSL_CERT`` from its own docs example);
SOAP and RPC (zeep transports and settings, suds transports, ``xmlrpc.client``); and
``urllib.request`` openers, httplib2, pycurl, websocket-client, paho-mqtt and aiomqtt.

Facts checked against the libraries: prometheus_client's ``tls_auth_handler`` builds
``SSLContext(PROTOCOL_TLS_CLIENT)`` and turns off the host name check and the chain check when
``insecure_skip_verify=True``; python-telegram-bot 21.6 and later pass ``HTTPXRequest(httpx_kwargs=...)``
to ``httpx.AsyncClient``; aiomqtt's ``Client(tls_insecure=True)`` turns off the host name check;
graypy's ``GELFTLSHandler`` defaults ``validate=False`` and then
wraps with ``CERT_NONE``, so only ``validate=True`` with ``ca_certs`` verifies; Elastic APM's
``verify_server_cert`` defaults to true; the OTLP gRPC exporter's ``insecure=True`` means a
plaintext channel (not TLS without checks), used here only towards a collector on localhost:
a look-alike; selenium-wire's ``verify_ssl`` (upstream certificates checked by its proxy)
defaults to false in 4.x and 5.x, so the explicit ``False`` restates an unsafe default and
``True`` is the fix; cloudscraper's scraper is a ``requests.Session`` subclass; twilio's
``TwilioHttpClient`` keeps its ``requests.Session`` in ``.session`` and python-jenkins in
``._session``; atlassian-python-api hands ``verify_ssl`` to the session's ``verify``; jira's
``options["verify"]`` is the session's ``verify``.

Closest rules where none is named for the library (say so): a library's own flag that turns
verification off (``ignore_https_errors``, ``insecure_skip_verify``, ``VERIFY_SERVER_CERT``,
``validate=False``, ``tls_insecure``) is SSC101 when it acts like requests' ``verify``, SSC504
for the MQTT clients; ``verify_ssl=False`` on any client is SSC511; a browser switch
``--ignore-certificate-errors`` is SSC402 (a command-line flag that accepts any certificate,
like ``curl -k``); libcloud's module setting ``VERIFY_SSL_CERT = False`` is SSC511 (a
configuration attribute set to false, as ``configuration.verify_ssl = False``); a Sentry
transport that puts ``"CERT_NONE"`` into its urllib3 pool options is SSC104.
A value read from a user's configuration or a command-line flag is the caller's explicit
choice: a look-alike.
"""

import logging.handlers
import ssl
import urllib.request
import xmlrpc.client

import aiomqtt
import certifi
import cloudscraper
import elasticapm
import graypy
import grpc
import httplib2
import jenkins
import mechanize
import paho.mqtt.client as mqtt
import pycurl
import requests
import sentry_sdk
import websocket
from atlassian import Confluence
from jira import JIRA
from keystoneauth1 import session as ks_session
from keystoneauth1.identity import v3
from libcloud import security as libcloud_security
from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import OTLPSpanExporter
from playwright.sync_api import sync_playwright
from prometheus_client import CollectorRegistry, push_to_gateway
from prometheus_client.exposition import tls_auth_handler
from selenium import webdriver as plain_webdriver
from seleniumwire import webdriver
from sentry_sdk.transport import HttpTransport
from slack_sdk import WebClient
from suds.client import Client as SudsClient
from suds.transport.https import HttpAuthenticated
from telegram.ext import ApplicationBuilder
from telegram.request import HTTPXRequest
from twilio.http.http_client import TwilioHttpClient
from twilio.rest import Client as TwilioClient
from zeep import Client as ZeepClient
from zeep import Settings
from zeep.transports import Transport

CA_BUNDLE = "/etc/ssl/corp/ca-bundle.pem"


# -- scraping ---------------------------------------------------------------------------------------------

PLAYWRIGHT_CONTEXTS = {
    "default": {"ignore_https_errors": True, "java_script_enabled": True},  # expect: SSC101
    "mobile": {"viewport": {"width": 390, "height": 844}, "java_script_enabled": False},  # expect: none
}
HTTPCACHE_ENABLED = False  # expect: none


def render_page(url):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(headless=True)
        context = browser.new_context(ignore_https_errors=True)  # expect: SSC101
        page = context.new_page()
        page.goto(url)
        return page.content()


def render_page_strict(url):
    with sync_playwright() as pw:
        browser = pw.chromium.launch(headless=True)
        context = browser.new_context(ignore_https_errors=False, java_script_enabled=False)  # expect: none
        page = context.new_page()
        page.goto(url)
        return page.content()


def chrome_driver():
    options = plain_webdriver.ChromeOptions()
    options.add_argument("--headless=new")  # expect: none
    options.add_argument("--ignore-certificate-errors")  # expect: SSC402
    return plain_webdriver.Chrome(options=options)


def wire_driver():
    return webdriver.Chrome(seleniumwire_options={"verify_ssl": False, "disable_encoding": True})  # expect: SSC511


def wire_driver_verified():
    return webdriver.Chrome(seleniumwire_options={"verify_ssl": True, "suppress_connection_errors": False})  # expect: none


def mechanize_browser():
    br = mechanize.Browser()
    br.set_handle_robots(False)  # expect: none
    br.set_ca_data(context=ssl._create_unverified_context())  # expect: SSC203
    return br


def mechanize_browser_verified():
    br = mechanize.Browser()
    br.set_handle_equiv(False)  # expect: none
    br.set_ca_data(cafile=certifi.where())  # expect: none
    return br


def cloudflare_scraper():
    scraper = cloudscraper.create_scraper(browser={"browser": "chrome", "mobile": False})  # expect: none
    scraper.verify = False  # expect: SSC102
    return scraper


# -- monitoring and observability ------------------------------------------------------------------------


def push_metrics(gateway, registry: CollectorRegistry, cert, key):
    def handler(url, method, timeout, headers, data):
        return tls_auth_handler(url, method, timeout, headers, data, cert, key, insecure_skip_verify=True)  # expect: SSC101

    push_to_gateway(gateway, job="nightly-batch", registry=registry, handler=handler)


def push_metrics_verified(gateway, registry: CollectorRegistry, cert, key):
    def handler(url, method, timeout, headers, data):
        return tls_auth_handler(url, method, timeout, headers, data, cert, key, cafile=CA_BUNDLE)  # expect: none

    push_to_gateway(gateway, job="nightly-batch", registry=registry, handler=handler)


def local_collector_exporter():
    return OTLPSpanExporter(endpoint="localhost:4317", insecure=True)  # expect: none


def remote_collector_exporter():
    with open(CA_BUNDLE, "rb") as fh:
        credentials = grpc.ssl_channel_credentials(root_certificates=fh.read())
    return OTLPSpanExporter(endpoint="otel.corp.example:4317", credentials=credentials)  # expect: none


ELASTIC_APM = {
    "SERVICE_NAME": "orders",
    "SERVER_URL": "https://apm.corp.example:8200",
    "VERIFY_SERVER_CERT": False,  # expect: SSC101
    "DEBUG": False,  # expect: none
}


def apm_client_pinned_ca():
    return elasticapm.Client(service_name="worker", server_url="https://apm.corp.example:8200", server_ca_cert_file=CA_BUNDLE)  # expect: none


class LaxSentryTransport(HttpTransport):
    def _get_pool_options(self, *args, **kwargs):
        options = super()._get_pool_options(*args, **kwargs)
        options["cert_reqs"] = "CERT_NONE"  # expect: SSC104
        return options


def init_sentry(dsn):
    sentry_sdk.init(dsn=dsn, transport=LaxSentryTransport, send_default_pii=False)


def init_sentry_with_ca(dsn):
    sentry_sdk.init(dsn=dsn, ca_certs=certifi.where(), send_default_pii=False)  # expect: none


def graylog_handler():
    return graypy.GELFTLSHandler("graylog.corp.example", 12201, validate=False)  # expect: SSC101


def graylog_handler_verified():
    return graypy.GELFTLSHandler("graylog.corp.example", 12201, validate=True, ca_certs=CA_BUNDLE)  # expect: none


def audit_log_handler():
    return logging.handlers.HTTPHandler(
        "audit.corp.example",
        "/ingest",
        method="POST",
        secure=True,
        context=ssl._create_unverified_context(),  # expect: SSC203
    )


def audit_log_handler_verified():
    return logging.handlers.HTTPHandler("audit.corp.example", "/ingest", method="POST", secure=True, context=ssl.create_default_context(cafile=CA_BUNDLE))  # expect: none


# -- chat and notification SDKs ---------------------------------------------------------------------------


def slack_client(token):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return WebClient(token=token, ssl=ctx)


def slack_client_verified(token):
    return WebClient(token=token, ssl=ssl.create_default_context(cafile=certifi.where()))  # expect: none


def telegram_app(token):
    request = HTTPXRequest(connection_pool_size=8, httpx_kwargs={"verify": False})  # expect: SSC101
    return ApplicationBuilder().token(token).request(request).build()


def telegram_app_with_ca(token):
    request = HTTPXRequest(connection_pool_size=8, httpx_kwargs={"verify": ssl.create_default_context(cafile=CA_BUNDLE)})  # expect: none
    return ApplicationBuilder().token(token).request(request).build()


def twilio_client(sid, token):
    http_client = TwilioHttpClient(pool_connections=True)
    http_client.session.verify = False  # expect: SSC102
    return TwilioClient(sid, token, http_client=http_client)


def twilio_client_with_ca(sid, token):
    http_client = TwilioHttpClient(pool_connections=True)
    http_client.session.verify = CA_BUNDLE  # expect: none
    return TwilioClient(sid, token, http_client=http_client)


# -- Atlassian and CI ---------------------------------------------------------------------------------------


def confluence(user, password):
    return Confluence(url="https://wiki.corp.example", username=user, password=password, timeout=300, verify_ssl=False)  # expect: SSC511


def confluence_from_settings(settings):
    return Confluence(url=settings.url, username=settings.user, password=settings.token, verify_ssl=settings.verify_ssl)  # expect: none


def jira_client(user, token):
    return JIRA(server="https://jira.corp.example", basic_auth=(user, token), options={"verify": False})  # expect: SSC101


def jira_client_with_ca(user, token):
    return JIRA(server="https://jira.corp.example", basic_auth=(user, token), options={"verify": CA_BUNDLE, "check_update": False})  # expect: none


def jenkins_server(user, token):
    server = jenkins.Jenkins("https://ci.corp.example", username=user, password=token)
    server._session.verify = False  # expect: SSC102
    return server


def jenkins_server_with_ca(user, token):
    server = jenkins.Jenkins("https://ci.corp.example", username=user, password=token)
    server._session.verify = CA_BUNDLE  # expect: none
    return server


# -- OpenStack, libcloud, vSphere ------------------------------------------------------------------------------


def keystone_session(auth_url, user, password, project):
    auth = v3.Password(auth_url=auth_url, username=user, password=password, project_name=project, user_domain_id="default", project_domain_id="default")
    return ks_session.Session(auth=auth, verify=False)  # expect: SSC101


def keystone_session_with_ca(auth_url, user, password, project):
    auth = v3.Password(auth_url=auth_url, username=user, password=password, project_name=project)
    return ks_session.Session(auth=auth, verify=CA_BUNDLE)  # expect: none


def libcloud_lab():
    libcloud_security.VERIFY_SSL_CERT = False  # expect: SSC511


def libcloud_corp_ca():
    libcloud_security.CA_CERTS_PATH = CA_BUNDLE  # expect: none


# -- SOAP and RPC ----------------------------------------------------------------------------------------------


def zeep_client(wsdl):
    session = requests.Session()
    session.verify = False  # expect: SSC102
    return ZeepClient(wsdl, transport=Transport(session=session, timeout=20))


def zeep_client_lenient_schema(wsdl):
    session = requests.Session()
    session.verify = CA_BUNDLE
    return ZeepClient(wsdl, settings=Settings(strict=False, xml_huge_tree=True), transport=Transport(session=session))  # expect: none


class UnverifiedSudsTransport(HttpAuthenticated):
    def u2handlers(self):
        handlers = super().u2handlers()
        handlers.append(urllib.request.HTTPSHandler(context=ssl._create_unverified_context()))  # expect: SSC203
        return handlers


class CorpCaSudsTransport(HttpAuthenticated):
    def u2handlers(self):
        handlers = super().u2handlers()
        handlers.append(urllib.request.HTTPSHandler(context=ssl.create_default_context(cafile=CA_BUNDLE)))  # expect: none
        return handlers


def suds_client(wsdl):
    return SudsClient(wsdl, transport=UnverifiedSudsTransport(), faults=False)  # expect: none


def supervisor_proxy(url):
    return xmlrpc.client.ServerProxy(url, allow_none=True, context=ssl._create_unverified_context())  # expect: SSC203


def supervisor_proxy_verified(url):
    return xmlrpc.client.ServerProxy(url, allow_none=False, verbose=False, context=ssl.create_default_context())  # expect: none


# -- urllib, httplib2, pycurl ---------------------------------------------------------------------------------


def corp_opener():
    ctx = ssl.create_default_context(cafile=CA_BUNDLE)
    return urllib.request.build_opener(urllib.request.HTTPSHandler(context=ctx, debuglevel=0))  # expect: none


def feed_fetcher():
    return httplib2.Http(".cache", timeout=30, disable_ssl_certificate_validation=True)  # expect: SSC502


def feed_fetcher_from_flag(args):
    return httplib2.Http(".cache", disable_ssl_certificate_validation=args.insecure)  # expect: none


def curl_download(url, path):
    c = pycurl.Curl()
    c.setopt(pycurl.URL, url)
    c.setopt(pycurl.SSL_VERIFYPEER, 1)  # expect: none
    c.setopt(pycurl.SSL_VERIFYHOST, 0)  # expect: SSC510
    with open(path, "wb") as fh:
        c.setopt(pycurl.WRITEDATA, fh)
        c.perform()
    c.close()


def curl_download_verified(url, path):
    c = pycurl.Curl()
    c.setopt(pycurl.URL, url)
    c.setopt(pycurl.FOLLOWLOCATION, 0)  # expect: none
    c.setopt(pycurl.SSL_VERIFYHOST, 2)  # expect: none
    c.setopt(pycurl.CAINFO, CA_BUNDLE)
    with open(path, "wb") as fh:
        c.setopt(pycurl.WRITEDATA, fh)
        c.perform()
    c.close()


# -- websocket and MQTT clients ----------------------------------------------------------------------------------


def ticker_stream(url, on_message):
    ws = websocket.WebSocketApp(url, on_message=on_message)
    ws.run_forever(sslopt={"cert_reqs": ssl.CERT_NONE}, ping_interval=30)  # expect: SSC501
    return ws


def ticker_stream_verified(url, on_message):
    websocket.enableTrace(False)  # expect: none
    ws = websocket.WebSocketApp(url, on_message=on_message)
    ws.run_forever(sslopt={"ca_certs": CA_BUNDLE}, ping_interval=30)  # expect: none
    return ws


def sensor_client(host):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="sensor-7")
    client.tls_set(cert_reqs=ssl.CERT_NONE)  # expect: SSC504
    client.connect(host, 8883)
    return client


def sensor_client_verified(host):
    client = mqtt.Client(mqtt.CallbackAPIVersion.VERSION2, client_id="sensor-8", clean_session=False)  # expect: none
    client.tls_set(ca_certs=CA_BUNDLE)
    client.tls_insecure_set(False)  # expect: none
    client.connect(host, 8883)
    return client


async def async_sensor(host):
    async with aiomqtt.Client(host, port=8883, tls_params=aiomqtt.TLSParameters(ca_certs=CA_BUNDLE), tls_insecure=True) as client:  # expect: SSC504
        await client.subscribe("plant/#")


async def async_sensor_verified(host):
    async with aiomqtt.Client(host, port=8883, tls_params=aiomqtt.TLSParameters(ca_certs=CA_BUNDLE), tls_insecure=False) as client:  # expect: none
        await client.subscribe("plant/#")
