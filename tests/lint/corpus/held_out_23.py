"""Held-out family 23 (independent): infrastructure and service clients, sync and async.

Shapes from public code and docs found through the code search: docker-py ``TLSConfig``
(docker-py docs "Using TLS", a devops script), hvac ``Client(verify=False)`` (hvac docs), MinIO
``cert_check=False`` (minio-py API docs, helper functions), InfluxDB clients' ``verify_ssl``
(influxdb and influxdb-client docs), opensearch-py ``verify_certs``/``ssl_assert_hostname``
(many OpenSearch helpers), the kubernetes client's ``Configuration``, Twisted's
``CertificateOptions`` and ``ClientContextFactory``, tornado's ``validate_cert``, pycurl,
httplib2, ldap3 ``Tls``, paho-mqtt, websocket-client, aiohttp connectors, httpx async clients.
Own code, nothing copied.

Codes where no rule names the library: MinIO ``cert_check=False`` -> SSC101 (the closest:
verification off by a keyword), InfluxDB's ``verify_ssl=False`` -> SSC511, Twisted's
``ClientContextFactory()`` and ``CertificateOptions(verify=False)`` with no key (a client's)
-> SSC209 (a pyOpenSSL context with no ``set_verify``). The 1.x InfluxDB line was labelled
SSC103 and the Twisted ``verify=False`` line SSC101 when scored first; both were relabelled
to the codes above once SSC511 covered the keyword (the label's closest code, not its site).
"""

import ssl

import aiohttp
import docker
import httplib2
import httpx
import hvac
import ldap3
import paho.mqtt.client as mqtt
import pycurl
import websocket
from influxdb import InfluxDBClient as InfluxV1
from influxdb_client import InfluxDBClient
from kubernetes import client as k8s
from minio import Minio
from opensearchpy import OpenSearch
from tornado.httpclient import AsyncHTTPClient, HTTPRequest
from twisted.internet import ssl as tssl


def docker_remote(host):
    tls_config = docker.tls.TLSConfig(
        client_cert=("cert.pem", "key.pem"),
        verify=False,  # expect: SSC101
    )
    return docker.DockerClient(base_url=f"tcp://{host}:2376", tls=tls_config)


def docker_remote_verified(host):
    tls_config = docker.tls.TLSConfig(ca_cert="/etc/docker/ca.pem", verify=True)  # expect: none
    return docker.DockerClient(base_url=f"tcp://{host}:2376", tls=tls_config)


def vault(url, token):
    return hvac.Client(url=url, token=token, verify=False)  # expect: SSC101


def vault_with_ca(url, token):
    return hvac.Client(url=url, token=token, verify="/etc/vault/ca.pem")  # expect: none


def object_store(endpoint, key, secret):
    return Minio(endpoint, access_key=key, secret_key=secret, secure=True, cert_check=False)  # expect: SSC101


def object_store_plain_local():
    return Minio("127.0.0.1:9000", access_key="k", secret_key="s", secure=False)  # expect: none


def influx_v2(url, token):
    return InfluxDBClient(url=url, token=token, org="ops", verify_ssl=False)  # expect: SSC511


def influx_v1(host):
    return InfluxV1(host, 8086, "u", "p", "db", ssl=True, verify_ssl=False)  # expect: SSC511


def influx_v2_ca(url, token):
    return InfluxDBClient(url=url, token=token, verify_ssl=True, ssl_ca_cert="/etc/ca.pem")  # expect: none


def search_cluster(host):
    return OpenSearch(
        hosts=[{"host": host, "port": 9200}],
        use_ssl=True,
        verify_certs=False,  # expect: SSC505
        ssl_assert_hostname=False,  # expect: SSC505
        ssl_show_warn=False,
    )


def search_cluster_ca(host):
    return OpenSearch(hosts=[host], use_ssl=True, verify_certs=True, ca_certs="/etc/os/ca.pem")  # expect: none


def kube_api(host, token):
    configuration = k8s.Configuration()
    configuration.host = host
    configuration.api_key = {"authorization": "Bearer " + token}
    configuration.verify_ssl = False  # expect: SSC511
    return k8s.CoreV1Api(k8s.ApiClient(configuration))


def twisted_options_unverified():
    return tssl.CertificateOptions(verify=False)  # expect: SSC209


def twisted_client_factory():
    return tssl.ClientContextFactory()  # expect: SSC209


def twisted_verified(hostname):
    return tssl.optionsForClientTLS(hostname)  # expect: none


async def tornado_fetch(url):
    request = HTTPRequest(url, validate_cert=False)  # expect: SSC513
    return await AsyncHTTPClient().fetch(request)


AsyncHTTPClient.configure(None, defaults=dict(validate_cert=False))  # expect: SSC513


def curl_fetch(url):
    c = pycurl.Curl()
    c.setopt(pycurl.URL, url)
    c.setopt(c.SSL_VERIFYPEER, False)  # expect: SSC510
    c.setopt(pycurl.SSL_VERIFYHOST, 0)  # expect: SSC510
    return c


def curl_fetch_verified(url, ca):
    c = pycurl.Curl()
    c.setopt(pycurl.CAINFO, ca)  # expect: none
    c.setopt(pycurl.SSL_VERIFYHOST, 2)  # expect: none
    return c


def legacy_http():
    return httplib2.Http(timeout=10, disable_ssl_certificate_validation=True)  # expect: SSC502


def legacy_http_ca():
    return httplib2.Http(ca_certs="/etc/corp/ca.pem")  # expect: none


def directory(host):
    tls = ldap3.Tls(validate=ssl.CERT_NONE, version=ssl.PROTOCOL_TLS_CLIENT)  # expect: SSC508
    return ldap3.Server(host, use_ssl=True, tls=tls)


def directory_verified(host):
    tls = ldap3.Tls(validate=ssl.CERT_REQUIRED, ca_certs_file="/etc/ldap/ca.pem")  # expect: none
    return ldap3.Server(host, use_ssl=True, tls=tls)


def telemetry(broker):
    client = mqtt.Client()
    client.tls_set(ca_certs="/etc/mqtt/ca.pem")  # expect: none
    client.tls_insecure_set(True)  # expect: SSC504
    client.connect(broker, 8883)
    return client


def telemetry_unverified(broker):
    client = mqtt.Client()
    client.tls_set(cert_reqs=ssl.CERT_NONE)  # expect: SSC504
    return client


def stream(url):
    ws = websocket.WebSocketApp(url)
    ws.run_forever(sslopt={"cert_reqs": ssl.CERT_NONE, "check_hostname": False})  # expect: SSC501
    return ws


def stream_once(url):
    return websocket.create_connection(url, sslopt={"ca_certs": "/etc/corp/ca.pem"})  # expect: none


async def async_http(url):
    connector = aiohttp.TCPConnector(ssl=False)  # expect: SSC103
    async with aiohttp.ClientSession(connector=connector) as session:
        async with session.get(url) as resp:
            return await resp.text()


async def async_http_ca(url, cafile):
    ctx = ssl.create_default_context(cafile=cafile)
    async with aiohttp.ClientSession() as session:
        async with session.get(url, ssl=ctx) as resp:  # expect: none
            return await resp.text()


async def async_httpx(url):
    async with httpx.AsyncClient(verify=False, timeout=5) as client:  # expect: SSC101
        return (await client.get(url)).json()


async def async_httpx_ca(url):
    async with httpx.AsyncClient(verify=ssl.create_default_context(cafile="/etc/ca.pem")) as client:  # expect: none
        return (await client.get(url)).json()
