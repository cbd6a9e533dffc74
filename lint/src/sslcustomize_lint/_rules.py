"""The rule table: the one source for finding messages, docs pages and SARIF ``rules``.

Codes are stable. The hundreds digit names the family:

* ``SSC0xx`` suppression comments
* ``SSC1xx`` verify flags of requests, httpx, aiohttp and urllib3
* ``SSC2xx`` ``ssl`` contexts weakened or created without verification
* ``SSC3xx`` monkeypatches and environment variables
* ``SSC4xx`` command-line flags of programs started from Python
* ``SSC5xx`` other clients (websocket-client, httplib2, pymongo, paho-mqtt, elasticsearch, ...)
* ``SSC6xx`` stdlib mail, news and FTP clients used without a context (they do not verify)
* ``SSC7xx`` weak protocol versions and cipher suites (TLS weakened, not switched off)
* ``SSC9xx`` the visible, policy-controlled opt-out ``sslcustomize.create_legacy_context()``
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FAMILIES", "RULES", "RULES_BY_CODE", "Rule"]

FAMILIES = {
    "SSC0": "suppression",
    "SSC1": "http-client-flags",
    "SSC2": "ssl-context",
    "SSC3": "monkeypatch-env",
    "SSC4": "subprocess-flags",
    "SSC5": "other-clients",
    "SSC6": "stdlib-no-context",
    "SSC7": "weak-tls",
    "SSC8": "configurable-weakening",
    "SSC9": "legacy-opt-out",
}

_TRUST = (
    "If one host has a private or self-signed certificate, keep verification on and add a "
    "scoped exception for that host: `sslcustomize trust HOST` (pins its key, with a reason and "
    "an expiry), or give that host its own CA (`[[exception]] host = ... ca = [...]`)."
)
_LEGACY = (
    "If the opt-out must stay in code, write `sslcustomize.create_legacy_context()` instead: it "
    "is visible, reported, and the policy can refuse it."
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Rule:
    """One lint rule: its code, names and the texts shown for it."""

    code: str
    name: str
    message: str
    why: str
    fix: str
    bad: str
    good: str
    level: str = "error"
    #: Whether a finding fails the run (exit status 1). Configurable weakenings are listed
    #: for a review, not failed: offering an opt-out option is not itself a defect.
    fails: bool = True

    @property
    def family(self) -> str:
        """Return the family name of the rule, from its code's hundreds digit."""
        return FAMILIES[self.code[:4]]


RULES: tuple[Rule, ...] = (
    Rule(
        code="SSC001",
        name="allow-without-reason",
        message="`# sslcustomize: allow()` has no reason, so it suppresses nothing",
        why="A suppression must say why the weakening is acceptable, so that the next reader "
        "(and `grep`) can judge it. An empty `allow()` is ignored and reported.",
        fix="Write the reason inside the parentheses: `# sslcustomize: allow(test server on "
        "loopback, ticket OPS-12)`.",
        bad="requests.get(url, verify=False)  # sslcustomize: allow()",
        good="requests.get(url, verify=False)  # sslcustomize: allow(loopback test server)",
        level="warning",
    ),
    Rule(
        code="SSC101",
        name="verify-false",
        message="`verify=False` turns off certificate verification (requests, httpx and clients "
        "that take `verify=` the same way)",
        why="requests and httpx then accept any certificate for any host, so anyone on the "
        "path can read and change the traffic. Usually meant for one host, it applies to all. "
        "Clients that take `verify=` the same way are reported too (hvac, docker-py's "
        "`TLSConfig`, the ClickHouse drivers), and MinIO's `cert_check=False`.",
        fix=f"Remove `verify=False`. {_TRUST} {_LEGACY}",
        bad='requests.get("https://nas.corp.example/", verify=False)',
        good='requests.get("https://nas.corp.example/")  # after `sslcustomize trust '
        "nas.corp.example`",
    ),
    Rule(
        code="SSC102",
        name="session-verify-attribute",
        message="`session.verify = False` turns off certificate verification for every request "
        "of this session",
        why="Setting `verify` on a requests `Session` disables verification for every later "
        "request through it, far from the line that does the request.",
        fix=f"Remove the assignment. {_TRUST} {_LEGACY}",
        bad="s = requests.Session()\ns.verify = False",
        good="s = requests.Session()  # trust the host with `sslcustomize trust HOST`",
    ),
    Rule(
        code="SSC103",
        name="aiohttp-ssl-false",
        message="aiohttp `ssl=False` / `verify_ssl=False` turns off certificate verification",
        why="aiohttp then accepts any certificate for any host.",
        fix=f"Remove `ssl=False`/`verify_ssl=False`, or pass `ssl=` a verifying context. {_TRUST} "
        f"{_LEGACY}",
        bad="await session.get(url, ssl=False)",
        good="await session.get(url)",
    ),
    Rule(
        code="SSC104",
        name="urllib3-cert-none",
        message="urllib3 `cert_reqs=CERT_NONE` / `assert_hostname=False` turns off certificate "
        "or host name verification",
        why="The pool then accepts any certificate (or any host name), for every connection "
        "it makes.",
        fix=f"Remove `cert_reqs`/`assert_hostname`; the default is `CERT_REQUIRED`. {_TRUST} "
        f"{_LEGACY}",
        bad='urllib3.PoolManager(cert_reqs="CERT_NONE")',
        good="urllib3.PoolManager()",
    ),
    Rule(
        code="SSC105",
        name="insecure-warning-silenced",
        message="silencing `InsecureRequestWarning` hides every unverified request",
        why="`urllib3.disable_warnings()` (or a warnings filter on `InsecureRequestWarning` or "
        'on its text, "Unverified HTTPS request") '
        "removes the only signal that some code sends requests without verification.",
        fix="Remove the call and fix the unverified requests it hides. " + _TRUST,
        bad="urllib3.disable_warnings()",
        good="# no call: fix the request that warned instead",
        level="warning",
    ),
    Rule(
        code="SSC201",
        name="verify-mode-cert-none",
        message="`verify_mode = CERT_NONE` on a client context accepts any certificate",
        why="A client context with `CERT_NONE` does not check the server's certificate at all.",
        fix=f"Remove the assignment; `ssl.create_default_context()` verifies. {_TRUST} {_LEGACY}",
        bad="ctx.verify_mode = ssl.CERT_NONE",
        good="ctx = ssl.create_default_context()",
    ),
    Rule(
        code="SSC202",
        name="check-hostname-false",
        message="`check_hostname = False` on a client context accepts a valid certificate for "
        "any host",
        why="Without the host name check, any certificate from a trusted CA, issued to anyone, "
        "is accepted for this host. kafka-python's and redis-py's `ssl_check_hostname=False` "
        "do the same to the context they build.",
        fix=f"Remove the assignment. {_TRUST} {_LEGACY}",
        bad="ctx.check_hostname = False",
        good="ctx = ssl.create_default_context()",
    ),
    Rule(
        code="SSC203",
        name="unverified-context",
        message="`ssl._create_unverified_context()` makes a context that verifies nothing",
        why="The private factories `_create_unverified_context` and `_create_stdlib_context` "
        "return contexts with `CERT_NONE` and no host name check.",
        fix=f"Use `ssl.create_default_context()`. {_TRUST} {_LEGACY}",
        bad="urlopen(url, context=ssl._create_unverified_context())",
        good="urlopen(url, context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC204",
        name="bare-client-context",
        message="`ssl.SSLContext()` without `PROTOCOL_TLS_CLIENT` verifies nothing when used "
        "by a client",
        why="`SSLContext()`, `SSLContext(PROTOCOL_TLS)` and the version-specific protocols start "
        "with `CERT_NONE` and `check_hostname=False`, and no trust anchors.",
        fix=f"Use `ssl.create_default_context()` or `ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)` "
        f"with `load_default_certs()`. {_TRUST}",
        bad="ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)",
        good="ctx = ssl.create_default_context()",
    ),
    Rule(
        code="SSC205",
        name="wrap-socket-unverified",
        message="`ssl.wrap_socket()` without `cert_reqs=CERT_REQUIRED` verifies nothing",
        why="The deprecated module function (removed in Python 3.12) defaults to `CERT_NONE` and "
        "never checks the host name.",
        fix="Use `ssl.create_default_context().wrap_socket(sock, server_hostname=host)`. " + _TRUST,
        bad="ssl.wrap_socket(sock)",
        good="ssl.create_default_context().wrap_socket(sock, server_hostname=host)",
    ),
    Rule(
        code="SSC206",
        name="hostname-check-left-off",
        message="a context made without the host name check verifies the chain but accepts it "
        "for any host",
        why="`SSLContext(PROTOCOL_TLS)` and the version-specific protocols start with "
        "`check_hostname=False`; setting only `verify_mode = CERT_REQUIRED` leaves it off, so "
        "any certificate from a trusted CA, issued to anyone, is accepted for this host.",
        fix="Use `ssl.create_default_context()` or `ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)`, "
        f"which check the name, or set `check_hostname = True`. {_TRUST}",
        bad="ctx = ssl.SSLContext(ssl.PROTOCOL_TLS)\nctx.verify_mode = ssl.CERT_REQUIRED",
        good="ctx = ssl.create_default_context()",
    ),
    Rule(
        code="SSC207",
        name="server-purpose-context-in-client",
        message="a context made for servers (`Purpose.CLIENT_AUTH`) is used by a client",
        why="`create_default_context(Purpose.CLIENT_AUTH)` is meant to verify *client* "
        "certificates on a server: it has `check_hostname=False` and `CERT_NONE`, so a client "
        "using it accepts any server.",
        fix="Use `ssl.create_default_context()` (its purpose is `SERVER_AUTH`). " + _TRUST,
        bad="ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)\nurlopen(url, context=ctx)",
        good="urlopen(url, context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC208",
        name="pyopenssl-verify-none",
        message="pyOpenSSL `set_verify(VERIFY_NONE)`, or a callback that accepts what "
        "verification refused, accepts any certificate",
        why="A pyOpenSSL context with `VERIFY_NONE` completes the handshake with any peer. "
        "`VERIFY_NONE` is 0: OR-ed with other flags but not `VERIFY_PEER` "
        "(`VERIFY_NONE | VERIFY_CLIENT_ONCE`) it still verifies nothing, and `VERIFY_PEER` with "
        "a callback that returns true whatever it is given accepts every certificate too. A "
        "verify or info callback that catches a failed host-name check (`CertificateError`, "
        "`VerificationError`) and goes on keeps a connection to the wrong host.",
        fix="Call `ctx.set_verify(SSL.VERIFY_PEER)` with `ctx.set_default_verify_paths()` (or "
        f"`load_verify_locations(CA)`), and check the host name. {_TRUST}",
        bad="ctx.set_verify(SSL.VERIFY_NONE, None)",
        good="ctx.set_verify(SSL.VERIFY_PEER)",
    ),
    Rule(
        code="SSC209",
        name="pyopenssl-client-unverified",
        message="a pyOpenSSL `SSL.Context` used by a client without `set_verify(VERIFY_PEER)` "
        "verifies nothing",
        why="pyOpenSSL contexts start with `VERIFY_NONE`: a client connection made with one "
        "accepts any certificate unless `set_verify(VERIFY_PEER, ...)` is called. Twisted's "
        "`ClientContextFactory()` and a `CertificateOptions(verify=False)` with no key (a "
        "client's) make such a context.",
        fix="Call `ctx.set_verify(SSL.VERIFY_PEER)` and `ctx.set_default_verify_paths()` (or "
        f"`load_verify_locations(CA)`) before connecting. {_TRUST}",
        bad="ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)\nconn = SSL.Connection(ctx, sock)\n"
        "conn.set_connect_state()",
        good="ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)\nctx.set_verify(SSL.VERIFY_PEER)\n"
        "ctx.set_default_verify_paths()",
    ),
    Rule(
        code="SSC210",
        name="pyopenssl-client-no-hostname-check",
        message="a pyOpenSSL client verifies the chain (`VERIFY_PEER`) but never checks the "
        "host name",
        why="pyOpenSSL does not check the server's name: `set_verify(VERIFY_PEER)` accepts any "
        "certificate a trusted CA issued, for any host, so anyone holding a certificate for a "
        "name of their own can intercept the connection. Reported when nothing in the file "
        "checks a name (`service_identity`'s `verify_hostname`, a `match_hostname`, the peer "
        "certificate's subject or `subjectAltName` read back).",
        fix="After the handshake, call `service_identity.pyopenssl.verify_hostname(conn, "
        "host)`; or use the `ssl` module (`ssl.create_default_context()`), which checks it. "
        f"{_TRUST}",
        bad="ctx = SSL.Context(SSL.TLS_CLIENT_METHOD)\nctx.set_verify(SSL.VERIFY_PEER)\n"
        "ctx.set_default_verify_paths()\nconn = SSL.Connection(ctx, sock)\n"
        "conn.set_connect_state()",
        good="conn.do_handshake()\n"
        'service_identity.pyopenssl.verify_hostname(conn, "api.example.org")',
    ),
    Rule(
        code="SSC301",
        name="patch-default-https-context",
        message="replacing `ssl._create_default_https_context` turns off verification for "
        "urllib and http.client in the whole process",
        why="Every `urlopen()` and `HTTPSConnection` in the process, in any library, stops "
        "verifying; nothing at the call sites shows it.",
        fix=f"Remove the patch. {_TRUST} {_LEGACY}",
        bad="ssl._create_default_https_context = ssl._create_unverified_context",
        good="# no patch; `sslcustomize trust HOST` for the one host that needs it",
    ),
    Rule(
        code="SSC302",
        name="patch-verification-function",
        message="monkeypatching a TLS client or verification function can turn off "
        "verification process-wide",
        why="Replacing `requests.Session.request`, `ssl.match_hostname`, `HTTPAdapter.send` or "
        "similar changes every caller in the process, usually to force `verify=False`.",
        fix=f"Remove the patch. {_TRUST} {_LEGACY}",
        bad="requests.Session.request = functools.partialmethod(requests.Session.request, "
        "verify=False)",
        good="# no patch",
    ),
    Rule(
        code="SSC303",
        name="env-disables-verification",
        message="this environment variable turns off certificate verification",
        why='`PYTHONHTTPSVERIFY=0`, `CURL_CA_BUNDLE=""`, `REQUESTS_CA_BUNDLE=""`, '
        "`GIT_SSL_NO_VERIFY`, `PIP_TRUSTED_HOST` and `NODE_TLS_REJECT_UNAUTHORIZED=0` disable "
        "verification for this process or the programs it starts, for every host. An empty "
        "`CURL_CA_BUNDLE` or `REQUESTS_CA_BUNDLE` does so in requests before 2.28 (still "
        "packaged by older distributions); later versions ignore an empty value, but setting "
        "one has no other purpose.",
        fix=f"Do not set it. {_TRUST}",
        bad='os.environ["GIT_SSL_NO_VERIFY"] = "1"',
        good="# no variable; add a CA for that host instead",
    ),
    Rule(
        code="SSC401",
        name="pip-trusted-host",
        message="`pip --trusted-host` lets pip accept any certificate (and plain HTTP) for that "
        "host",
        why="Packages downloaded from that host can be swapped by anyone on the path.",
        fix="Give pip the CA instead: `pip --cert /path/ca.pem` or `PIP_CERT`, or run pip "
        "under the policy (`sslcustomize run -- pip ...`) with `sslcustomize trust HOST`.",
        bad='subprocess.run(["pip", "install", "--trusted-host", "pypi.corp", "pkg"])',
        good='subprocess.run(["pip", "install", "--cert", "/etc/corp/ca.pem", "pkg"])',
    ),
    Rule(
        code="SSC402",
        name="curl-insecure",
        message="`curl -k`/`--insecure` accepts any certificate",
        why="curl then skips both the chain and the host name check.",
        fix="Pass the host's CA with `--cacert FILE` or pin its key with `--pinnedpubkey`.",
        bad='subprocess.run(["curl", "-k", url])',
        good='subprocess.run(["curl", "--cacert", "/etc/corp/ca.pem", url])',
    ),
    Rule(
        code="SSC403",
        name="wget-no-check-certificate",
        message="`wget --no-check-certificate` accepts any certificate",
        why="wget then skips the certificate check for every host of the download.",
        fix="Pass the host's CA with `--ca-certificate FILE`.",
        bad='subprocess.run(["wget", "--no-check-certificate", url])',
        good='subprocess.run(["wget", "--ca-certificate", "/etc/corp/ca.pem", url])',
    ),
    Rule(
        code="SSC404",
        name="git-ssl-verify-false",
        message="`http.sslVerify=false` makes git accept any certificate",
        why="git then fetches (and pushes) over unverified TLS.",
        fix="Give git the CA for that host: `git -c http.https://HOST/.sslCAInfo=/path/ca.pem`.",
        bad='subprocess.run(["git", "-c", "http.sslVerify=false", "clone", url])',
        good='subprocess.run(["git", "-c", "http.sslCAInfo=/etc/corp/ca.pem", "clone", url])',
    ),
    Rule(
        code="SSC501",
        name="websocket-sslopt-insecure",
        message="websocket-client `sslopt` with `CERT_NONE` or `check_hostname: False` turns off "
        "verification",
        why="The WebSocket connection then accepts any certificate (or any host name).",
        fix=f"Remove those `sslopt` entries, or pass `sslopt={{'context': ...}}` with a "
        f"verifying context. {_TRUST} {_LEGACY}",
        bad='websocket.create_connection(url, sslopt={"cert_reqs": ssl.CERT_NONE})',
        good="websocket.create_connection(url)",
    ),
    Rule(
        code="SSC502",
        name="httplib2-disable-validation",
        message="httplib2 `disable_ssl_certificate_validation=True` accepts any certificate",
        why="Every request of that `Http` object is sent over unverified TLS.",
        fix=f"Remove it, or pass `ca_certs=` with the host's CA. {_TRUST}",
        bad="httplib2.Http(disable_ssl_certificate_validation=True)",
        good='httplib2.Http(ca_certs="/etc/corp/ca.pem")',
    ),
    Rule(
        code="SSC503",
        name="mongo-tls-insecure",
        message="pymongo `tlsAllowInvalidCertificates`/`tlsAllowInvalidHostnames`/`tlsInsecure` "
        "turns off verification",
        why="The database connection, credentials included, then goes over unverified TLS.",
        fix="Remove the option and pass `tlsCAFile=` with the server's CA.",
        bad="MongoClient(uri, tls=True, tlsAllowInvalidCertificates=True)",
        good='MongoClient(uri, tls=True, tlsCAFile="/etc/corp/mongo-ca.pem")',
    ),
    Rule(
        code="SSC504",
        name="mqtt-tls-insecure",
        message="paho-mqtt `tls_insecure_set(True)` / `tls_set(cert_reqs=CERT_NONE)` turns off "
        "verification",
        why="The broker's host name (or whole certificate) is no longer checked.",
        fix="Remove it and pass `ca_certs=` with the broker's CA to `tls_set()`.",
        bad="client.tls_insecure_set(True)",
        good='client.tls_set(ca_certs="/etc/corp/broker-ca.pem")',
    ),
    Rule(
        code="SSC505",
        name="elasticsearch-verify-certs-false",
        message="`verify_certs=False` / `ssl_assert_hostname=False` turns off verification of "
        "the cluster's certificate",
        why="The cluster connection, credentials included, then goes over unverified TLS.",
        fix="Remove it and pass the cluster's CA with `ca_certs=` (or pin it with "
        "`ssl_assert_fingerprint=`).",
        bad="Elasticsearch(url, verify_certs=False)",
        good='Elasticsearch(url, ca_certs="/etc/corp/es-ca.pem")',
    ),
    Rule(
        code="SSC506",
        name="ssl-verify-false",
        message="`ssl_verify=False` turns off certificate verification (python-gitlab and "
        "similar clients)",
        why="The client then accepts any certificate for the server, tokens included.",
        fix=f"Remove it, or pass `ssl_verify=` the path of the server's CA. {_TRUST}",
        bad="gitlab.Gitlab(url, private_token=token, ssl_verify=False)",
        good='gitlab.Gitlab(url, private_token=token, ssl_verify="/etc/corp/ca.pem")',
    ),
    Rule(
        code="SSC507",
        name="ssl-cert-reqs-none",
        message="`ssl_cert_reqs` none (redis, Celery, kombu, old pymongo) or asyncpg "
        '`ssl="require"` turns off certificate verification',
        why="The client then accepts any certificate for the server. Also in a connection URL "
        "(`rediss://...?ssl_cert_reqs=none`) or a dict of options (Celery's `broker_use_ssl`); "
        'asyncpg\'s `"require"`, `"prefer"` and `"allow"` modes ask for no verification.',
        fix="Remove it and pass `ssl_ca_certs=` with the server's CA (asyncpg: "
        '`ssl="verify-full"` or a verifying context).',
        bad='redis.Redis(host, ssl=True, ssl_cert_reqs="none")',
        good='redis.Redis(host, ssl=True, ssl_ca_certs="/etc/corp/ca.pem")',
    ),
    Rule(
        code="SSC508",
        name="ldap3-tls-cert-none",
        message="an LDAP client's TLS accepts any certificate (ldap3 `Tls()` without "
        "`validate=CERT_REQUIRED`, python-ldap `OPT_X_TLS_NEVER`/`OPT_X_TLS_ALLOW`)",
        why="ldap3's `Tls` validates nothing unless `validate=` says so: its default is "
        "`CERT_NONE`, `ca_certs_file` or not. python-ldap's `OPT_X_TLS_REQUIRE_CERT` set to "
        "`OPT_X_TLS_NEVER` accepts any certificate, `OPT_X_TLS_ALLOW` a bad one. The "
        "directory bind, password included, then goes over unverified TLS.",
        fix="Use `Tls(validate=ssl.CERT_REQUIRED, ca_certs_file=...)` with the directory's CA; "
        "with python-ldap, `OPT_X_TLS_DEMAND` and `OPT_X_TLS_CACERTFILE`.",
        bad="ldap3.Tls(validate=ssl.CERT_NONE)",
        good='ldap3.Tls(validate=ssl.CERT_REQUIRED, ca_certs_file="/etc/corp/ca.pem")',
    ),
    Rule(
        code="SSC509",
        name="boto3-verify-false",
        message="boto3/botocore `verify=False` turns off verification of the endpoint's "
        "certificate",
        why="Every API call of that client, credentials and data included, then goes over "
        "unverified TLS.",
        fix="Remove `verify=False`, or pass `verify=` the path of the endpoint's CA bundle.",
        bad='boto3.client("s3", endpoint_url=url, verify=False)',
        good='boto3.client("s3", endpoint_url=url, verify="/etc/corp/ca.pem")',
    ),
    Rule(
        code="SSC510",
        name="pycurl-verify-off",
        message="pycurl `SSL_VERIFYPEER`/`SSL_VERIFYHOST` set to 0 turns off certificate or host "
        "name verification",
        why="The transfer then accepts any certificate (or any host name) for the server.",
        fix="Remove the `setopt` call, or give curl the server's CA with `setopt(pycurl.CAINFO, "
        "path)`.",
        bad="c.setopt(pycurl.SSL_VERIFYPEER, 0)",
        good='c.setopt(pycurl.CAINFO, "/etc/corp/ca.pem")',
    ),
    Rule(
        code="SSC511",
        name="verify-ssl-attribute-false",
        message="`configuration.verify_ssl = False` / `verify_ssl=False` turns off certificate "
        "verification (kubernetes, InfluxDB, OpenAPI-generated and other clients)",
        why="Every API call made with that configuration then accepts any certificate, tokens "
        "included.",
        fix="Remove it, or set `configuration.ssl_ca_cert` to the server's CA.",
        bad="configuration.verify_ssl = False",
        good='configuration.ssl_ca_cert = "/etc/corp/ca.pem"',
    ),
    Rule(
        code="SSC512",
        name="pyvmomi-no-validation",
        message="pyVmomi `disableSslCertValidation=True` / `SmartConnectNoSSL()` accepts any "
        "certificate",
        why="The vCenter or ESXi session, password included, then goes over unverified TLS.",
        fix="Connect with `SmartConnect(...)` and a `sslContext=` that trusts the vCenter's CA "
        "(`ssl.create_default_context(cafile=...)`).",
        bad="SmartConnect(host=host, user=user, pwd=pwd, disableSslCertValidation=True)",
        good="SmartConnect(host=host, user=user, pwd=pwd, sslContext=ssl.create_default_context())",
    ),
    Rule(
        code="SSC513",
        name="tornado-validate-cert-false",
        message="tornado `validate_cert=False` accepts any certificate",
        why="tornado's `HTTPRequest` and `AsyncHTTPClient.fetch` check the server's certificate "
        "unless `validate_cert=False`: then any certificate, for any host, is accepted.",
        fix="Remove `validate_cert=False`; for a private CA give `ca_certs=PATH`. " + _TRUST,
        bad="AsyncHTTPClient().fetch(url, validate_cert=False)",
        good='AsyncHTTPClient().fetch(url, ca_certs="/etc/ssl/corp-ca.pem")',
    ),
    Rule(
        code="SSC514",
        name="ansible-validate-certs-false",
        message="Ansible `validate_certs=False` (or an argument spec defaulting to it) accepts "
        "any certificate",
        why="ansible's `open_url`, `fetch_url` and `Request` check the server's certificate "
        "unless `validate_certs` is false; a module whose argument spec defaults it to false "
        "sends every run's requests, credentials included, over unverified TLS unless the user "
        "turns verification back on.",
        fix="Keep `validate_certs=True` (the default) and give a private CA with `ca_path=PATH`; "
        "let the user opt out per task, with an argument spec defaulting to true.",
        bad="open_url(url, validate_certs=False)",
        good='open_url(url, ca_path="/etc/ssl/corp-ca.pem")',
    ),
    Rule(
        code="SSC515",
        name="duo-ca-certs-disabled",
        message='duo_client `ca_certs="DISABLE"` accepts any certificate',
        why="duo_client's API clients (`Auth`, `Admin`, `Accounts`) check the Duo API's "
        'certificate against their bundled CAs unless `ca_certs` is `"DISABLE"`; the '
        "integration's secret key then signs requests sent to whoever answers.",
        fix="Remove `ca_certs=` (the bundled Duo CAs are the default), or give the path of a "
        f"CA bundle. {_TRUST}",
        bad='duo_client.Auth(ikey=IKEY, skey=SKEY, host=HOST, ca_certs="DISABLE")',
        good="duo_client.Auth(ikey=IKEY, skey=SKEY, host=HOST)",
    ),
    Rule(
        code="SSC601",
        name="smtp-ssl-no-context",
        message="`smtplib.SMTP_SSL()` without `context=` does not verify the server (gh-91826)",
        why="Without a context, smtplib uses `ssl._create_stdlib_context()`, which accepts any "
        "certificate: passwords sent after login are readable by anyone on the path.",
        fix="Pass `context=ssl.create_default_context()` (or `sslcustomize.context_for("
        "'smtplib')`). " + _TRUST,
        bad="smtplib.SMTP_SSL(host)",
        good="smtplib.SMTP_SSL(host, context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC602",
        name="starttls-no-context",
        message="`starttls()`/`stls()` without a context does not verify the server (gh-91826)",
        why="smtplib, imaplib, poplib and nntplib upgrade to TLS with an unverified stdlib "
        "context when none is given.",
        fix="Pass a verifying context: `starttls(context=ssl.create_default_context())` "
        "(imaplib: `ssl_context=`). " + _TRUST,
        bad="server.starttls()",
        good="server.starttls(context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC603",
        name="imap4-ssl-no-context",
        message="`imaplib.IMAP4_SSL()` without `ssl_context=` does not verify the server "
        "(gh-91826)",
        why="Without a context, imaplib uses an unverified stdlib context.",
        fix="Pass `ssl_context=ssl.create_default_context()`. " + _TRUST,
        bad="imaplib.IMAP4_SSL(host)",
        good="imaplib.IMAP4_SSL(host, ssl_context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC604",
        name="pop3-ssl-no-context",
        message="`poplib.POP3_SSL()` without `context=` does not verify the server (gh-91826)",
        why="Without a context, poplib uses an unverified stdlib context.",
        fix="Pass `context=ssl.create_default_context()`. " + _TRUST,
        bad="poplib.POP3_SSL(host)",
        good="poplib.POP3_SSL(host, context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC605",
        name="ftp-tls-no-context",
        message="`ftplib.FTP_TLS()` without `context=` does not verify the server (gh-91826)",
        why="Without a context, ftplib uses an unverified stdlib context.",
        fix="Pass `context=ssl.create_default_context()`. " + _TRUST,
        bad="ftplib.FTP_TLS(host)",
        good="ftplib.FTP_TLS(host, context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC606",
        name="nntp-ssl-no-context",
        message="`nntplib.NNTP_SSL()` without `ssl_context=` does not verify the server (gh-91826)",
        why="Without a context, nntplib uses an unverified stdlib context.",
        fix="Pass `ssl_context=ssl.create_default_context()`. " + _TRUST,
        bad="nntplib.NNTP_SSL(host)",
        good="nntplib.NNTP_SSL(host, ssl_context=ssl.create_default_context())",
    ),
    Rule(
        code="SSC701",
        name="weak-protocol-version",
        message="SSL 2/3 or TLS 1.0/1.1 is asked for: a protocol with known attacks",
        why="`PROTOCOL_SSLv2`, `PROTOCOL_SSLv3`, `PROTOCOL_TLSv1`, `PROTOCOL_TLSv1_1` (and "
        "pyOpenSSL's `SSLv2_METHOD` ... `TLSv1_1_METHOD`) pin the connection to a version "
        "deprecated by RFC 8996, open to downgrade and decryption attacks (POODLE, BEAST).",
        fix="Use `ssl.create_default_context()` (TLS 1.2 or later) or `PROTOCOL_TLS_CLIENT`; "
        "if a peer needs an old version, upgrade the peer.",
        bad="ctx = ssl.SSLContext(ssl.PROTOCOL_TLSv1)",
        good="ctx = ssl.create_default_context()",
    ),
    Rule(
        code="SSC702",
        name="minimum-version-below-tls12",
        message="a version bound below TLS 1.2 (`minimum_version`, `maximum_version`, an "
        "endpoint's TLS policy) lets a connection use a weak protocol",
        why="Allowing SSL 3, TLS 1.0 or TLS 1.1 (a `minimum_version` of one of them or "
        "`MINIMUM_SUPPORTED`) lets an attacker on the path downgrade the connection to a "
        "protocol deprecated by RFC 8996; a `maximum_version` of one of them uses it always. "
        "The same holds for a cloud endpoint's TLS policy written in AWS CDK code "
        "(`security_policy=SecurityPolicy.TLS_1_0`, `tls_security_policy=` `TLS_1_0` or "
        "`Policy-Min-TLS-1-0-2019-07`): every client of that endpoint can be downgraded.",
        fix="Keep the default minimum, or set `ssl.TLSVersion.TLSv1_2` or later (`TLS_1_2` "
        "for an endpoint's policy); upgrade the peer that needs an old version.",
        bad="ctx.minimum_version = ssl.TLSVersion.TLSv1",
        good="ctx.minimum_version = ssl.TLSVersion.TLSv1_2",
    ),
    Rule(
        code="SSC703",
        name="options-allow-old-protocols",
        message="clearing `OP_NO_SSLv3`/`OP_NO_TLSv1`/`OP_NO_TLSv1_1` re-enables a weak protocol "
        "(or an option allows unsafe legacy renegotiation)",
        why="Removing these options from a context's `options` turns back on protocol "
        "versions deprecated by RFC 8996. `SSL_OP_ALLOW_UNSAFE_LEGACY_RENEGOTIATION` "
        "(`0x40000`) lets a connection renegotiate without RFC 5746, the attack of "
        "CVE-2009-3555; `OP_LEGACY_SERVER_CONNECT` (`0x4`) does so with every server that "
        "lacks RFC 5746, which OpenSSL 3 refuses by default.",
        fix="Leave the options set, and do not set the unsafe renegotiation option; set "
        "`minimum_version = ssl.TLSVersion.TLSv1_2` instead.",
        bad="ctx.options &= ~ssl.OP_NO_TLSv1",
        good="ctx.minimum_version = ssl.TLSVersion.TLSv1_2",
    ),
    Rule(
        code="SSC704",
        name="weak-cipher-suites",
        message="the cipher string enables NULL, anonymous, export, RC4, DES or MD5 suites, or "
        "security level 0",
        why="These suites give no encryption (`NULL`, `eNULL`), no authentication (`aNULL`), or "
        "breakable encryption (`EXPORT`, `RC4`, `DES`, `MD5`); `@SECLEVEL=0` allows all of them.",
        fix="Keep the default cipher list, or name strong suites only (`ECDHE+AESGCM`); exclude "
        "weak ones with `!` (`HIGH:!aNULL:!MD5`).",
        bad='ctx.set_ciphers("ALL:@SECLEVEL=0")',
        good='ctx.set_ciphers("ECDHE+AESGCM:!aNULL")',
    ),
    Rule(
        code="SSC801",
        name="configurable-weakening",
        message="verification is turned off here when a caller or user asks for it (an opt-out "
        "option of this code)",
        why="A branch or mapping that turns verification off under a parameter, a command-line "
        "flag or a setting (`if not validate_certs: ctx.verify_mode = CERT_NONE`, "
        "`verify=not ignore_certs`) is where an opt-out enters a product: off by default, but "
        "one option away. The weakening itself is the caller's, reported where it is asked "
        "for; this note lists the place that honours it, for a security review. A project that "
        'offers such options on purpose switches the family off: `ignore = ["SSC8"]`.',
        fix="Keep the option if users need it, documented and warned about at run time; better, "
        "let users trust one host (`sslcustomize trust HOST`, a CA file option) instead of "
        "turning verification off. Or mark it `# sslcustomize: allow(reason)`.",
        bad="if not validate_certs:\n    ctx.verify_mode = ssl.CERT_NONE",
        good="if ca_file:\n    ctx.load_verify_locations(ca_file)",
        level="note",
        fails=False,
    ),
    Rule(
        code="SSC802",
        name="weak-version-option",
        message="a table of the versions users can choose includes SSL 3 or TLS 1.0/1.1 (an "
        "option that weakens TLS)",
        why="A mapping from a setting's or a command-line option's names to protocol versions "
        '(`{"TLSv1.0": ssl.TLSVersion.TLSv1, "TLSv1.2": ...}`, `{"tls1": "PROTOCOL_TLSv1"}`) '
        "is where a user turns a deprecated protocol on (RFC 8996): not the default, but one "
        "option away. Listed for a security review, with the other configurable weakenings.",
        fix="Drop the versions below TLS 1.2 from the table, so that the option can only raise "
        "the minimum; a peer that needs an old version should be upgraded.",
        bad='VERSIONS = {"TLSv1.0": ssl.TLSVersion.TLSv1, "TLSv1.2": ssl.TLSVersion.TLSv1_2}',
        good='VERSIONS = {"TLSv1.2": ssl.TLSVersion.TLSv1_2, "TLSv1.3": ssl.TLSVersion.TLSv1_3}',
        level="note",
        fails=False,
    ),
    Rule(
        code="SSC901",
        name="legacy-context-opt-out",
        message="`sslcustomize.create_legacy_context()`: a visible opt-out of verification, "
        "controlled by the policy",
        why="This is the sanctioned way to keep an opt-out in code: it warns, is reported, and "
        "is refused where the policy sets `allow_code_opt_out = false`. It is listed so that "
        "reviews see every opt-out.",
        fix="Prefer a scoped exception (`sslcustomize trust HOST`, or a per-host CA) and drop "
        "the opt-out; otherwise keep it with `# sslcustomize: allow(reason)`.",
        bad="ctx = sslcustomize.create_legacy_context()",
        good="ctx = sslcustomize.create_legacy_context()  # sslcustomize: allow(vendor "
        "appliance, OPS-123)",
        level="note",
    ),
)

RULES_BY_CODE: dict[str, Rule] = {rule.code: rule for rule in RULES}
