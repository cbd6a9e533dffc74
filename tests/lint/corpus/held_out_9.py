"""A ninth held-out family: dlint's and codemodder's test shapes, respelled; scored first.

Facts from duo-labs/dlint's tests (DUO122 ssl module attributes, DUO123 requests verbs with
``verify=False``, DUO131/DUO132 urllib3 warnings and ``cert_reqs`` strings) and from
pixee/codemodder-python's codemod tests (requests-verify for requests and httpx, including
``httpx.stream`` and clients used as context managers; upgrade-sslcontext-tls;
upgrade-sslcontext-minimum-version, through an alias of the context and an aliased module).
Own code, nothing copied.
"""
import ssl
import ssl as tls_module
from ssl import CERT_NONE as NO_CHECK
from ssl import SSLContext, TLSVersion

import httpx
import requests
import urllib3
from httpx import AsyncClient, stream
from requests import options as http_options
from urllib3 import connection_from_url, disable_warnings, proxy_from_url


def verbs_without_verification(endpoint, payload):
    requests.head(endpoint, verify=False)  # expect: SSC101
    requests.options(endpoint, verify=False)  # expect: SSC101
    requests.patch(endpoint, data=payload, verify=False)  # expect: SSC101
    http_options(endpoint, timeout=5, verify=False)  # expect: SSC101


def pool_with_string_reqs(host):
    pool = urllib3.HTTPSConnectionPool(host, 443, cert_reqs="NONE")  # expect: SSC104
    return pool.request("GET", "/")


def connection_from_url_off(url):
    return connection_from_url(url, cert_reqs=NO_CHECK)  # expect: SSC104


def proxy_manager_off(proxy):
    return proxy_from_url(proxy, cert_reqs="CERT_NONE")  # expect: SSC104


def quiet_everything():
    disable_warnings()  # expect: SSC105


def stream_unverified(url):
    with stream("GET", url, verify=False) as response:  # expect: SSC101
        return b"".join(response.iter_bytes())


async def async_client_in_with(url):
    async with AsyncClient(verify=False) as client:  # expect: SSC101
        return await client.get(url)


def client_closed_in_finally(url):
    client = httpx.Client(timeout=3.0, verify=False)  # expect: SSC101
    try:
        return client.get(url)
    finally:
        client.close()


def context_by_keyword_sslv3(sock, host):
    context = ssl.SSLContext(protocol=ssl.PROTOCOL_SSLv3)  # expect: SSC701 SSC204
    return context.wrap_socket(sock, server_hostname=host)


def minimum_below_through_alias():
    context = ssl.create_default_context()
    same = context
    same.minimum_version = ssl.TLSVersion.SSLv3  # expect: SSC702
    return same


def minimum_with_aliased_module():
    context = tls_module.create_default_context()
    context.minimum_version = tls_module.TLSVersion.MINIMUM_SUPPORTED  # expect: SSC702
    return context


def maximum_pinned_low():
    context = SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.maximum_version = TLSVersion.TLSv1  # expect: SSC702
    return context


def unverified_factory(url):
    return urllib3.PoolManager(ssl_context=ssl._create_unverified_context()).request("GET", url)  # expect: SSC203


# --- look-alikes ---------------------------------------------------------------------------

def default_verification(url):
    return requests.post(url, json={})  # expect: none


def ca_bundle_path(url):
    return httpx.get(url, verify="/etc/pki/tls/certs/ca-bundle.crt")  # expect: none


def explicit_true(url):
    return requests.request("GET", url, verify=True)  # expect: none


def httpx_with_context(url):
    context = ssl.create_default_context()
    context.load_verify_locations(cafile="/opt/app/ca.pem")
    return httpx.get(url, verify=context)  # expect: none


def pool_required(host):
    return urllib3.PoolManager(cert_reqs="CERT_REQUIRED").request("GET", host)  # expect: none


def minimum_tls12():
    context = ssl.create_default_context()
    context.minimum_version = TLSVersion.TLSv1_2  # expect: none
    return context


def maximum_tls13():
    context = SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.maximum_version = TLSVersion.TLSv1_3  # expect: none
    return context


def warning_for_another_thing():
    disable_warnings(urllib3.exceptions.SubjectAltNameWarning)  # expect: none
