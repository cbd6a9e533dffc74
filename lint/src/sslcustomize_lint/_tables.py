"""Facts about TLS client APIs: which names are which, and which arguments weaken them.

Qualified names are normalized first (``requests.api.get`` -> ``requests.get``), so each fact
is written once.
"""

from __future__ import annotations

__all__ = [
    "CERT_NONE_NAMES",
    "CLASSES",
    "CONTEXT_FACTORIES",
    "ENV_VARS",
    "HTTP_VERBS",
    "KEYWORD_SINKS",
    "NO_CONTEXT_CLIENTS",
    "PATCH_TARGETS",
    "PROCESS_CALLS",
    "STARTTLS_METHODS",
    "UNVERIFIED_FACTORIES",
    "normalize",
]

_PREFIXES = (
    ("requests.packages.urllib3.", "urllib3."),
    ("requests.api.", "requests."),
    ("requests.sessions.", "requests."),
    ("aiohttp.client.", "aiohttp."),
    ("aiohttp.connector.", "aiohttp."),
    ("httpx._client.", "httpx."),
    ("httpx._api.", "httpx."),
    ("urllib3.poolmanager.", "urllib3."),
    ("urllib3.connectionpool.", "urllib3."),
    ("urllib3.util.ssl_.", "urllib3.util."),
    ("paho.mqtt.client.", "paho.mqtt."),
    ("websocket._core.", "websocket."),
    ("websocket._app.", "websocket."),
    ("pymongo.mongo_client.", "pymongo."),
    ("motor.motor_asyncio.", "motor."),
    ("gitlab.client.", "gitlab."),
    ("elasticsearch.client.", "elasticsearch."),
    ("ssl.VerifyMode.", "ssl."),
    ("ssl.Options.", "ssl."),
    ("ssl._SSLMethod.", "ssl."),
    ("requests.urllib3.", "urllib3."),
    ("twisted.internet._sslverify.", "twisted.internet.ssl."),
    ("influxdb_client.client.influxdb_client_async.", "influxdb_client."),
    ("influxdb_client.client.influxdb_client.", "influxdb_client."),
    ("influxdb.client.", "influxdb."),
    ("clickhouse_driver.client.", "clickhouse_driver."),
    ("asyncpg.connection.", "asyncpg."),
    ("asyncpg.pool.", "asyncpg."),
    ("minio.api.", "minio."),
    ("hvac.v1.", "hvac."),
    # pyOpenSSL is installed as ``OpenSSL``; code (and rule suites) also spell it by its name.
    ("pyOpenSSL.", "OpenSSL."),
)
_RENAMES = {
    "requests.session": "requests.Session",
    "requests.packages.urllib3": "urllib3",
    "requests.urllib3": "urllib3",
    "urllib3.exceptions.InsecureRequestWarning": "urllib3.InsecureRequestWarning",
    "requests.packages.urllib3.exceptions.InsecureRequestWarning": "urllib3.InsecureRequestWarning",
    "urllib3.exceptions.HTTPWarning": "urllib3.HTTPWarning",
    # Not names of the ssl module (``ssl.TLSVersion.TLSv1_1`` is): written for a version
    # bound, their intent is that version (sonar-python's S4423 tests spell them so).
    "ssl.SSLv3": "ssl.TLSVersion.SSLv3",
    "ssl.TLSv1": "ssl.TLSVersion.TLSv1",
    "ssl.TLSv1_1": "ssl.TLSVersion.TLSv1_1",
    "ssl.TLSv1_2": "ssl.TLSVersion.TLSv1_2",
    "ssl.TLSv1_3": "ssl.TLSVersion.TLSv1_3",
}


_ANY_PREFIX = tuple(old for old, _ in _PREFIXES)


def normalize(qualname: str) -> str:
    """Return the canonical spelling of a dotted name."""
    if qualname.startswith(_ANY_PREFIX):  # one test in C for the common case: no prefix
        for old, new in _PREFIXES:
            if qualname.startswith(old):
                qualname = new + qualname[len(old) :]
                break
    return _RENAMES.get(qualname, qualname)


HTTP_VERBS = frozenset(
    {"get", "post", "put", "patch", "delete", "head", "options", "request", "send", "stream"}
)

# Calling these gives an instance of the class on the right.
CLASSES: dict[str, str] = {
    "requests.Session": "requests.Session",
    "requests.adapters.HTTPAdapter": "requests.adapters.HTTPAdapter",
    # Sessions of libraries built on requests: subclasses that take verify= as it does.
    "requests_futures.sessions.FuturesSession": "requests.Session",
    "requests_toolbelt.sessions.BaseUrlSession": "requests.Session",
    "cloudscraper.create_scraper": "requests.Session",
    "cloudscraper.CloudScraper": "requests.Session",
    "httpx.Client": "httpx.Client",
    "httpx.AsyncClient": "httpx.AsyncClient",
    "aiohttp.ClientSession": "aiohttp.ClientSession",
    "aiohttp.TCPConnector": "aiohttp.TCPConnector",
    "urllib3.PoolManager": "urllib3.PoolManager",
    "smtplib.SMTP": "smtplib.SMTP",
    "smtplib.LMTP": "smtplib.SMTP",
    "smtplib.SMTP_SSL": "smtplib.SMTP",
    "imaplib.IMAP4": "imaplib.IMAP4",
    "imaplib.IMAP4_SSL": "imaplib.IMAP4",
    "poplib.POP3": "poplib.POP3",
    "poplib.POP3_SSL": "poplib.POP3",
    "nntplib.NNTP": "nntplib.NNTP",
    "nntplib.NNTP_SSL": "nntplib.NNTP",
    "ftplib.FTP_TLS": "ftplib.FTP_TLS",
    "paho.mqtt.Client": "paho.mqtt.Client",
    "httplib2.Http": "httplib2.Http",
    "websocket.WebSocketApp": "websocket.WebSocketApp",
    "websocket.WebSocket": "websocket.WebSocket",
    "boto3.Session": "boto3.Session",
    "boto3.session.Session": "boto3.Session",
    "botocore.session.Session": "botocore.session.Session",
    "botocore.session.get_session": "botocore.session.Session",
}

# Factories of ``ssl.SSLContext``: the origin recorded for the context they make.
CONTEXT_FACTORIES: dict[str, str] = {
    "ssl.create_default_context": "default",
    "ssl.SSLContext": "bare",
    "urllib3.util.create_urllib3_context": "default",
    "sslcustomize.create_default_context": "default",
    "sslcustomize.context_for": "default",
    "sslcustomize.create_legacy_context": "other",
    "ssl._create_unverified_context": "unverified",
    "ssl._create_stdlib_context": "unverified",
    "OpenSSL.SSL.Context": "pyopenssl",
}
UNVERIFIED_FACTORIES = frozenset({"ssl._create_unverified_context", "ssl._create_stdlib_context"})

CERT_NONE_NAMES = frozenset({"ssl.CERT_NONE", "OpenSSL.SSL.VERIFY_NONE"})

# Protocol constants that pin SSL 2/3 or TLS 1.0/1.1 (RFC 8996).
WEAK_PROTOCOLS = frozenset(
    {
        "ssl.PROTOCOL_SSLv2",
        "ssl.PROTOCOL_SSLv3",
        "ssl.PROTOCOL_TLSv1",
        "ssl.PROTOCOL_TLSv1_1",
        "OpenSSL.SSL.SSLv2_METHOD",
        "OpenSSL.SSL.SSLv3_METHOD",
        "OpenSSL.SSL.TLSv1_METHOD",
        "OpenSSL.SSL.TLSv1_1_METHOD",
    }
)
# Version bounds below TLS 1.2.
WEAK_VERSIONS = frozenset(
    {
        "ssl.TLSVersion.SSLv3",
        "ssl.TLSVersion.TLSv1",
        "ssl.TLSVersion.TLSv1_1",
        "ssl.TLSVersion.MINIMUM_SUPPORTED",
        "OpenSSL.SSL.SSL3_VERSION",
        "OpenSSL.SSL.TLS1_VERSION",
        "OpenSSL.SSL.TLS1_1_VERSION",
        # Twisted's own enum (``CertificateOptions(insecurelyLowerMinimumTo=...)``)
        "twisted.internet.ssl.TLSVersion.SSLv3",
        "twisted.internet.ssl.TLSVersion.TLSv1_0",
        "twisted.internet.ssl.TLSVersion.TLSv1_1",
    }
)
# ``ssl.TLSVersion(number)``: the member a number names (the wire version, or -2/-1).
TLS_VERSION_NUMBERS = {
    -2: "MINIMUM_SUPPORTED",
    -1: "MAXIMUM_SUPPORTED",
    0x0300: "SSLv3",
    0x0301: "TLSv1",
    0x0302: "TLSv1_1",
    0x0303: "TLSv1_2",
    0x0304: "TLSv1_3",
}
# Options whose removal turns an old protocol back on.
NO_OLD_PROTOCOL_OPTIONS = frozenset(
    {
        "ssl.OP_NO_SSLv2",
        "ssl.OP_NO_SSLv3",
        "ssl.OP_NO_TLSv1",
        "ssl.OP_NO_TLSv1_1",
        "OpenSSL.SSL.OP_NO_SSLv2",
        "OpenSSL.SSL.OP_NO_SSLv3",
        "OpenSSL.SSL.OP_NO_TLSv1",
        "OpenSSL.SSL.OP_NO_TLSv1_1",
    }
)
# Keywords and attributes that choose a protocol, a version bound or the ciphers.
PROTOCOL_KEYWORDS = frozenset(
    {"ssl_version", "protocol", "method", "ssl_protocol", "tls_version", "version"}
)
MIN_VERSION_KEYWORDS = frozenset(
    # and Twisted's ``CertificateOptions(insecurelyLowerMinimumTo=...)``, libpq's
    # ``ssl_min_protocol_version`` (a psycopg keyword or Django's database ``OPTIONS``)
    {
        "minimum_version",
        "ssl_minimum_version",
        "min_version",
        "insecurelyLowerMinimumTo",
        "ssl_min_protocol_version",
    }
)
# Version bounds written as names (libpq's ``"TLSv1"``, ``"TLSv1.1"``).
WEAK_VERSION_NAMES = frozenset({"SSLv3", "TLSv1", "TLSv1.0", "TLSv1.1", "TLSv1_1"})
# Chrome's switch that accepts any certificate (Selenium, Playwright and pyppeteer pass it on).
BROWSER_INSECURE_SWITCHES = frozenset({"--ignore-certificate-errors"})
# M2Crypto's ``SSL.Context(protocol)`` names.
M2CRYPTO_WEAK_PROTOCOLS = frozenset({"sslv2", "sslv3", "tlsv1"})
# Settings that name a protocol as a string, and the weak names (scrapy's settings.py).
STRING_PROTOCOL_SETTINGS: dict[str, frozenset[str]] = {
    "DOWNLOADER_CLIENT_TLS_METHOD": frozenset({"TLSv1.0", "TLSv1.1"}),
}
# Names that are TLS settings wherever they are assigned (a module's or a class's settings).
SETTING_NAMES = frozenset(
    {
        "DOWNLOADER_CLIENT_TLS_METHOD",
        "DOWNLOADER_CLIENT_TLS_CIPHERS",
        # A crawler framework's switch of its downloader's certificate checks.
        "DOWNLOAD_VERIFY_CERTIFICATES",
    }
)
MAX_VERSION_KEYWORDS = frozenset(
    {"maximum_version", "ssl_maximum_version", "max_version", "lowerMaximumSecurityTo"}
)
# A cloud endpoint's TLS policy (AWS CDK: API Gateway's ``security_policy``, OpenSearch and
# Elasticsearch domains' ``tls_security_policy``), by enum member or CloudFormation string.
POLICY_KEYWORDS = frozenset({"security_policy", "tls_security_policy"})
WEAK_POLICIES = frozenset(
    {
        "aws_cdk.aws_apigateway.SecurityPolicy.TLS_1_0",
        "aws_cdk.aws_apigatewayv2.SecurityPolicy.TLS_1_0",
        "aws_cdk.aws_opensearchservice.TLSSecurityPolicy.TLS_1_0",
        "aws_cdk.aws_elasticsearch.TLSSecurityPolicy.TLS_1_0",
    }
)
WEAK_POLICY_NAMES = frozenset({"TLS_1_0", "Policy-Min-TLS-1-0-2019-07"})
CIPHER_KEYWORDS = frozenset(
    {"ciphers", "ssl_ciphers", "cipher_list", "DOWNLOADER_CLIENT_TLS_CIPHERS"}
)
CIPHER_METHODS = frozenset({"set_ciphers", "set_cipher_list"})
# Calls whose positional arguments choose a protocol.
PROTOCOL_CALLS = frozenset(
    {
        "ssl.SSLContext",
        "OpenSSL.SSL.Context",
        "ssl.wrap_socket",
        "urllib3.util.ssl_wrap_socket",
        # (addr, ssl_version, ...) and the private factories' (protocol, ...): by position too
        "ssl.get_server_certificate",
        "ssl._create_unverified_context",
        "ssl._create_stdlib_context",
    }
)
# Calls that give a context to a client (its ``context=``/``ssl=`` argument is a client's).
CLIENT_CALLS = frozenset(
    {
        "urlopen",
        "build_opener",
        "HTTPSHandler",
        "HTTPSConnection",
        "HTTPSConnectionPool",
        "create_connection",
        "open_connection",
        "connect",
        "ClientSession",
        "TCPConnector",
        "Client",
        "AsyncClient",
        "PoolManager",
        "ProxyManager",
        "SMTP_SSL",
        "IMAP4_SSL",
        "POP3_SSL",
        "FTP_TLS",
        "NNTP_SSL",
        "starttls",
        "stls",
        "ws_connect",
        *HTTP_VERBS,
    }
)
__all__ += [
    "CIPHER_KEYWORDS",
    "CIPHER_METHODS",
    "CLIENT_CALLS",
    "MAX_VERSION_KEYWORDS",
    "MIN_VERSION_KEYWORDS",
    "NO_OLD_PROTOCOL_OPTIONS",
    "POLICY_KEYWORDS",
    "PROTOCOL_CALLS",
    "PROTOCOL_KEYWORDS",
    "TLS_VERSION_NUMBERS",
    "WEAK_POLICIES",
    "WEAK_POLICY_NAMES",
    "WEAK_PROTOCOLS",
    "WEAK_VERSIONS",
]

# (keyword, positional index or -1, test, code) per callee. Tests: ``false``, ``true``,
# ``cert_none``, ``falsy`` and the others of ``_valuetests._TESTS``.
_Sink = tuple[str, int, str, str]
_REQUESTS_VERIFY: list[_Sink] = [("verify", -1, "falsy", "SSC101")]
# httpx up to 0.27 verifies only when ``verify`` is true: ``None`` turns it off there too
# (requests reads ``None`` as its default, on).
_HTTPX_VERIFY: list[_Sink] = [("verify", -1, "falsy_or_none", "SSC101")]
_AIOHTTP_SSL: list[_Sink] = [
    ("ssl", -1, "falsy", "SSC103"),
    ("verify_ssl", -1, "falsy", "SSC103"),
]
_URLLIB3: list[_Sink] = [
    ("cert_reqs", -1, "cert_none", "SSC104"),
    ("assert_hostname", -1, "false", "SSC104"),
]

KEYWORD_SINKS: dict[str, list[_Sink]] = {}
for _verb in HTTP_VERBS:
    KEYWORD_SINKS[f"requests.{_verb}"] = _REQUESTS_VERIFY
    KEYWORD_SINKS[f"requests.Session.{_verb}"] = _REQUESTS_VERIFY
    KEYWORD_SINKS[f"httpx.{_verb}"] = _HTTPX_VERIFY
    KEYWORD_SINKS[f"aiohttp.ClientSession.{_verb}"] = _AIOHTTP_SSL
for _verb in HTTP_VERBS - {"send", "stream"}:
    KEYWORD_SINKS[f"grequests.{_verb}"] = _REQUESTS_VERIFY  # requests' verbs, made async
KEYWORD_SINKS["requests.Session.merge_environment_settings"] = [("verify", 3, "false", "SSC101")]
# Positionally too: Session.request(method, url, params, data, headers, cookies, files, auth,
# timeout, allow_redirects, proxies, hooks, stream, verify, ...); send(request, stream,
# timeout, verify, ...). The module-level verbs take ``verify`` by keyword only.
KEYWORD_SINKS["requests.Session.request"] = [("verify", 13, "falsy", "SSC101")]
KEYWORD_SINKS["requests.adapters.HTTPAdapter.send"] = [("verify", 3, "falsy", "SSC101")]
# An adapter subclass that calls its base with verification off: (conn, url, verify, cert).
KEYWORD_SINKS["requests.adapters.HTTPAdapter.cert_verify"] = [("verify", 2, "falsy", "SSC101")]
for _name in ("Client", "AsyncClient", "HTTPTransport", "AsyncHTTPTransport", "create_ssl_context"):
    KEYWORD_SINKS[f"httpx.{_name}"] = _HTTPX_VERIFY
for _name in ("request", "ClientSession.ws_connect", "TCPConnector", "ClientSession"):
    KEYWORD_SINKS[f"aiohttp.{_name}"] = _AIOHTTP_SSL
# Home Assistant's shared sessions: aiohttp's and httpx's, ``verify_ssl`` after ``hass``.
for _name in ("async_get_clientsession", "async_create_clientsession"):
    KEYWORD_SINKS[f"homeassistant.helpers.aiohttp_client.{_name}"] = [
        ("verify_ssl", 1, "falsy", "SSC103")
    ]
# keystoneauth1's Session (OpenStack clients) and graypy's TLS handler (``validate`` third).
KEYWORD_SINKS["keystoneauth1.session.Session"] = _REQUESTS_VERIFY
KEYWORD_SINKS["graypy.GELFTLSHandler"] = [("validate", 2, "falsy", "SSC101")]
for _name in ("get_async_client", "create_async_httpx_client"):
    KEYWORD_SINKS[f"homeassistant.helpers.httpx_client.{_name}"] = [
        ("verify_ssl", 1, "falsy", "SSC101")
    ]
for _name in (
    "PoolManager",
    "ProxyManager",
    "HTTPSConnectionPool",
    "connection_from_url",
    "proxy_from_url",
    "HTTPSConnection",
    "connection.HTTPSConnection",
    "util.create_urllib3_context",
    "util.ssl_wrap_socket",
):
    KEYWORD_SINKS[f"urllib3.{_name}"] = _URLLIB3
KEYWORD_SINKS["ssl.wrap_socket"] = [("cert_reqs", 3, "cert_none", "SSC205")]
# (service_name, region_name, api_version, use_ssl, verify, ...)
for _name in ("boto3.client", "boto3.resource", "boto3.Session.client", "boto3.Session.resource"):
    KEYWORD_SINKS[_name] = [("verify", 4, "falsy", "SSC509")]
KEYWORD_SINKS["botocore.session.Session.create_client"] = [("verify", 4, "falsy", "SSC509")]
# duo_client's clients: (ikey, skey, host, ca_certs, ...); "DISABLE" turns verification off.
for _name in ("Auth", "Admin", "Accounts", "Client", "auth.Auth", "admin.Admin"):
    KEYWORD_SINKS[f"duo_client.{_name}"] = [("ca_certs", 3, "disable", "SSC515")]

# Clients of other services whose own keywords turn verification off. Database drivers,
# Vault, Docker, MinIO: ``verify=False`` (or ``cert_check=False``) as requests takes it.
for _name in (
    "clickhouse_driver.Client",
    "clickhouse_driver.connect",
    "clickhouse_driver.dbapi.connect",
    "clickhouse_connect.get_client",
    "clickhouse_connect.get_async_client",
    "clickhouse_connect.create_client",
    "docker.tls.TLSConfig",
    "docker.TLSConfig",
    "hvac.Client",  # (url, token, cert, verify, ...)
):
    KEYWORD_SINKS[_name] = [("verify", 3 if _name == "hvac.Client" else -1, "falsy", "SSC101")]
KEYWORD_SINKS["minio.Minio"] = [("cert_check", -1, "falsy", "SSC101")]
# InfluxDB 1.x (host, port, username, password, database, ssl, verify_ssl, ...) and 2.x.
for _name in ("influxdb.InfluxDBClient", "influxdb.DataFrameClient"):
    KEYWORD_SINKS[_name] = [("verify_ssl", 6, "falsy", "SSC511")]
for _name in ("influxdb_client.InfluxDBClient", "influxdb_client.InfluxDBClientAsync"):
    KEYWORD_SINKS[_name] = [("verify_ssl", -1, "falsy", "SSC511")]
# asyncpg's ``ssl="require"`` (and "prefer", "allow") encrypts without verifying anything.
for _name in ("asyncpg.connect", "asyncpg.create_pool"):
    KEYWORD_SINKS[_name] = [("ssl", -1, "no_verify_mode", "SSC507")]

# Keywords whose name alone says what they do: weakening whatever the callee is.
DISTINCTIVE_KEYWORDS: dict[str, tuple[str, str]] = {
    "disable_ssl_certificate_validation": ("true", "SSC502"),
    "tlsAllowInvalidCertificates": ("true", "SSC503"),
    "tlsAllowInvalidHostnames": ("true", "SSC503"),
    "tlsInsecure": ("true", "SSC503"),
    "ssl_match_hostname": ("false", "SSC503"),
    "verify_certs": ("false", "SSC505"),
    "ssl_assert_hostname": ("false", "SSC505"),
    "ssl_verify": ("false", "SSC506"),
    "ssl_cert_reqs": ("cert_none_or_none", "SSC507"),
    "ssl_check_hostname": ("false", "SSC202"),  # kafka-python's and redis-py's
    "disableSslCertValidation": ("true", "SSC512"),
    "validate_cert": ("falsy", "SSC513"),  # tornado's HTTPRequest and fetch
    # ansible's open_url, fetch_url and Request (and an argument spec's ``default=``)
    "validate_certs": ("falsy", "SSC514"),
    "connection_verify": ("falsy", "SSC101"),  # azure-core's clients (every Azure SDK client)
    "ignore_https_errors": ("true", "SSC101"),  # Playwright's browser contexts
    "insecure_skip_verify": ("true", "SSC101"),  # prometheus_client's tls_auth_handler
    "VERIFY_SERVER_CERT": ("false", "SSC101"),  # Elastic APM's settings
    "verify_server_cert": ("false", "SSC101"),  # Elastic APM's Client
    "tls_insecure": ("true", "SSC504"),  # aiomqtt's Client
    "verify_certificates": ("false", "SSC101"),  # a Twisted-style context factory's switch
}
# Celery's TLS options for its broker and result backend: ``ssl.wrap_socket``'s keywords.
SSL_OPTION_DICTS = frozenset(
    {"broker_use_ssl", "redis_backend_use_ssl", "BROKER_USE_SSL", "CELERY_REDIS_BACKEND_USE_SSL"}
)
# python-ldap: ``set_option(OPT_X_TLS_REQUIRE_CERT, level)`` with a level that accepts any
# certificate (``NEVER``) or a bad one (``ALLOW``).
LDAP_REQUIRE_CERT = frozenset({"ldap.OPT_X_TLS_REQUIRE_CERT"})
LDAP_NO_CHECK = frozenset({"ldap.OPT_X_TLS_NEVER", "ldap.OPT_X_TLS_ALLOW"})
# Attributes whose name alone says what they do (not keywords: aiohttp's ``verify_ssl=`` is
# SSC103).
DISTINCTIVE_ATTRIBUTES: dict[str, tuple[str, str]] = {
    "verify_ssl": ("falsy", "SSC511"),
    "VERIFY_SSL_CERT": ("false", "SSC511"),  # libcloud.security's switch
    "DOWNLOAD_VERIFY_CERTIFICATES": ("false", "SSC101"),  # a settings module's constant
}
# Parameters whose default alone says that verification is off by default
# (``def __init__(self, *, verify_certificates=False)``), whatever the function does with
# them: the distinctive keywords, with a missing value (``None``) left alone. Not the
# distinctive attributes: ``verify_ssl`` is reported with the code of the client it reaches.
DISTINCTIVE_DEFAULTS: dict[str, tuple[str, str]] = {
    name: ("cert_none" if test == "cert_none_or_none" else test, code)
    for name, (test, code) in DISTINCTIVE_KEYWORDS.items()
}
# pycurl options that switch verification off when set to 0.
PYCURL_VERIFY_OPTIONS = frozenset(
    {"SSL_VERIFYPEER", "SSL_VERIFYHOST", "PROXY_SSL_VERIFYPEER", "PROXY_SSL_VERIFYHOST"}
)
__all__ += [
    "BROWSER_INSECURE_SWITCHES",
    "DISTINCTIVE_ATTRIBUTES",
    "DISTINCTIVE_DEFAULTS",
    "DISTINCTIVE_KEYWORDS",
    "LDAP_NO_CHECK",
    "LDAP_REQUIRE_CERT",
    "M2CRYPTO_WEAK_PROTOCOLS",
    "MONGO_CLIENTS",
    "MONGO_URI_FLAGS",
    "PYCURL_VERIFY_OPTIONS",
    "SETTING_NAMES",
    "SSL_OPTION_DICTS",
    "STRING_PROTOCOL_SETTINGS",
    "URL_CERT_NONE_FLAGS",
    "WEAK_VERSION_NAMES",
]

MONGO_CLIENTS = frozenset(
    {"pymongo.MongoClient", "motor.AsyncIOMotorClient", "pymongo.AsyncMongoClient"}
)
# In a connection URL (redis, Celery's broker, MongoDB): verification turned off.
URL_CERT_NONE_FLAGS = ("ssl_cert_reqs=none", "ssl_cert_reqs=cert_none")
MONGO_URI_FLAGS = (
    "tlsallowinvalidcertificates=true",
    "tlsallowinvalidhostnames=true",
    "tlsinsecure=true",
    "ssl_cert_reqs=cert_none",
)

# Stdlib clients that do not verify without a context: (keyword, positional index, code).
NO_CONTEXT_CLIENTS: dict[str, tuple[str, int, str]] = {
    "smtplib.SMTP_SSL": ("context", 99, "SSC601"),
    "imaplib.IMAP4_SSL": ("ssl_context", 4, "SSC603"),
    "poplib.POP3_SSL": ("context", 5, "SSC604"),
    "ftplib.FTP_TLS": ("context", 6, "SSC605"),
    "nntplib.NNTP_SSL": ("ssl_context", 3, "SSC606"),
}
# Methods that upgrade to TLS: (keyword, positional index, the modules they belong to).
STARTTLS_METHODS: dict[str, tuple[str, int, tuple[str, ...]]] = {
    "starttls": ("context", 2, ("smtplib", "nntplib")),
    "stls": ("context", 0, ("poplib",)),
}
STARTTLS_TYPES: dict[str, tuple[str, int]] = {
    "smtplib.SMTP.starttls": ("context", 2),
    "nntplib.NNTP.starttls": ("context", 0),
    "imaplib.IMAP4.starttls": ("ssl_context", 0),
    "poplib.POP3.stls": ("context", 0),
}
__all__ += ["STARTTLS_TYPES"]

PATCH_TARGETS = frozenset(
    {
        "requests.Session.request",
        "requests.Session.send",
        "requests.Session.merge_environment_settings",
        "requests.request",
        "requests.adapters.HTTPAdapter.send",
        "requests.adapters.HTTPAdapter.cert_verify",
        "requests.adapters.HTTPAdapter.init_poolmanager",
        "ssl.match_hostname",
        "ssl.create_default_context",
        "ssl.SSLContext.wrap_socket",
        "ssl.SSLSocket.getpeercert",
        "urllib3.connection.match_hostname",
        "urllib3.connection._match_hostname",
        "urllib3.util.ssl_match_hostname.match_hostname",
        "urllib3.util.create_urllib3_context",
        "httpx.Client.send",
        "http.client.HTTPSConnection.connect",
        # the module's verbs: ``requests.get = functools.partial(requests.get, verify=False)``
        *(f"requests.{verb}" for verb in HTTP_VERBS - {"send", "stream"}),
        *(f"httpx.{verb}" for verb in HTTP_VERBS - {"send"}),
    }
)

# Replacements of these are weakenings whatever the replacement does; replacements of the other
# targets (often instrumentation wrappers) must show a weakening.
ALWAYS_WEAKENING_PATCHES = frozenset(
    {
        "ssl.match_hostname",
        "urllib3.connection.match_hostname",
        "urllib3.connection._match_hostname",
        "urllib3.util.ssl_match_hostname.match_hostname",
        "requests.adapters.HTTPAdapter.cert_verify",
        "ssl.SSLSocket.getpeercert",
    }
)
__all__ += ["ALWAYS_WEAKENING_PATCHES"]

# Environment variables and the test on their value that makes them disable verification.
ENV_VARS: dict[str, str] = {
    "PYTHONHTTPSVERIFY": "zero",
    "CURL_CA_BUNDLE": "empty",
    "REQUESTS_CA_BUNDLE": "empty",
    "GIT_SSL_NO_VERIFY": "any",
    "PIP_TRUSTED_HOST": "nonempty",
    "NODE_TLS_REJECT_UNAUTHORIZED": "zero",
}

PROCESS_CALLS = frozenset(
    {
        "subprocess.run",
        "subprocess.call",
        "subprocess.check_call",
        "subprocess.check_output",
        "subprocess.Popen",
        "subprocess.getoutput",
        "subprocess.getstatusoutput",
        "os.system",
        "os.popen",
        "os.execv",
        "os.execve",
        "os.execvp",
        "os.execvpe",
        "os.execl",
        "os.execle",
        "os.execlp",
        "os.execlpe",
        "os.spawnv",
        "os.spawnve",
        "os.spawnvp",
        "os.spawnvpe",
        "os.spawnl",
        "os.spawnle",
        "os.spawnlp",
        "os.spawnlpe",
        "os.posix_spawn",
        "os.posix_spawnp",
        "asyncio.create_subprocess_exec",
        "asyncio.create_subprocess_shell",
        "pexpect.spawn",
        "pexpect.run",
    }
)
