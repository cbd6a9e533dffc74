"""Held-out family 28: client code as public projects write it, written without the linter.

Written without reading the linter's code or its earlier corpus families. Shapes (nothing
copied) from real client code found in public repositories: proxmoxer users and Home Assistant
integrations (``ProxmoxAPI(..., verify_ssl=False)`` beside a silenced ``InsecureRequestWarning``,
``async_get_clientsession(hass, verify_ssl=...)`` from a config entry), ldap3 users (``Tls`` given
a CA file but left at its default ``validate``, ``Tls(validate=CERT_NONE, version=TLSv1)``),
python-ldap settings modules (``OPT_X_TLS_REQUIRE_CERT`` set to ``OPT_X_TLS_NEVER``), MinIO/S3
scripts (``boto3.client("s3", endpoint_url=..., verify=False)``), the Kubernetes Python client,
Elasticsearch/OpenSearch scripts, redis/Celery settings, pymongo URIs, paho-mqtt, pyVmomi,
websocket-client, hvac, InfluxDB, python-gitlab, azure-core's ``connection_verify``, zeep SOAP
transports and CLI wrappers that shell out to curl, git, wget and pip.

Facts checked against the libraries: ldap3's ``Tls.__init__`` defaults ``validate`` to
``ssl.CERT_NONE`` even when ``ca_certs_file`` is given (ldap3/core/tls.py), so ``Tls(ca_certs_file=CA)``
verifies nothing (SSC508); redis-py maps ``ssl_cert_reqs=None`` to ``CERT_NONE``; requests'
``verify=None`` falls back to the session's ``True`` and is not a weakening; an empty
``CURL_CA_BUNDLE`` no longer turns verification off in requests 2.28 and later
(``merge_environment_settings`` ends with ``or verify``, checked in requests 2.34), but it
does in the requests before 2.28 that older distributions still package, and the line has no
other purpose (first labelled a look-alike, then SSC303 after the linter's first run: a
correction of the project's convention, see docs/rules/SSC303.md); proxmoxer hands
``verify_ssl`` to requests' ``verify``. Closest rules where none is named for the library:
azure-core ``connection_verify=False`` is SSC101 (it is requests' ``verify`` underneath),
Home Assistant's ``async_get_clientsession(hass, verify_ssl=False)`` is SSC103 (an aiohttp
session made with ``ssl=False``), python-ldap's ``OPT_X_TLS_NEVER`` was SSC201 (no certificate
check) until SSC508 covered python-ldap, proxmoxer's and InfluxDB's ``verify_ssl=False`` are
SSC511.
A value read from a user's configuration or a command-line flag is the caller's explicit
choice: a look-alike.
"""

import argparse
import os
import ssl
import subprocess

import boto3
import hvac
import ldap
import paho.mqtt.client as mqtt
import redis
import requests
import urllib3
import websocket
from azure.storage.blob import BlobServiceClient
from celery import Celery
from elasticsearch import Elasticsearch
from gitlab import Gitlab
from homeassistant.const import CONF_VERIFY_SSL
from homeassistant.helpers.aiohttp_client import async_get_clientsession
from influxdb_client import InfluxDBClient
from kubernetes import client as k8s
from kubernetes import config as k8s_config
from ldap3 import Connection, Server, Tls
from opensearchpy import OpenSearch
from proxmoxer import ProxmoxAPI
from pymongo import MongoClient
from pyVim.connect import SmartConnect
from zeep import Client as SoapClient
from zeep.transports import Transport

CA_BUNDLE = "/etc/ssl/corp/ca-bundle.pem"
DEFAULT_VERIFY_SSL = True


# -- hypervisors and home automation ----------------------------------------------------------------


def proxmox_nodes(host, user, token, secret):
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # expect: SSC105
    api = ProxmoxAPI(host, user=user, token_name=token, token_value=secret, verify_ssl=False)  # expect: SSC511
    return api.nodes.get()


def proxmox_from_entry(entry):
    return ProxmoxAPI(entry["host"], user=entry["user"], verify_ssl=entry.get(CONF_VERIFY_SSL, DEFAULT_VERIFY_SSL))  # expect: none


async def router_session(hass):
    return async_get_clientsession(hass, verify_ssl=False)  # expect: SSC103


async def router_session_from_entry(hass, entry):
    return async_get_clientsession(hass, verify_ssl=entry.data[CONF_VERIFY_SSL])  # expect: none


def vcenter(host, user, password):
    return SmartConnect(host=host, user=user, pwd=password, disableSslCertValidation=True)  # expect: SSC512


def vcenter_old_style(host, user, password):
    context = ssl._create_unverified_context()  # expect: SSC203
    return SmartConnect(host=host, user=user, pwd=password, sslContext=context)


def vcenter_with_ca(host, user, password):
    context = ssl.create_default_context(cafile=CA_BUNDLE)  # expect: none
    return SmartConnect(host=host, user=user, pwd=password, sslContext=context)


# -- directories ---------------------------------------------------------------------------------------


def ldaps_with_ca_only(host, user, password):
    tls = Tls(ca_certs_file=CA_BUNDLE)  # expect: SSC508
    server = Server(host, port=636, use_ssl=True, tls=tls)
    return Connection(server, user=user, password=password, auto_bind=True)


def ldaps_legacy(host):
    tls = Tls(validate=ssl.CERT_NONE, version=ssl.PROTOCOL_TLSv1)  # expect: SSC508 SSC701
    return Server(host, use_ssl=True, tls=tls)


def ldaps_verified(host):
    tls = Tls(validate=ssl.CERT_REQUIRED, version=ssl.PROTOCOL_TLS_CLIENT, ca_certs_file=CA_BUNDLE)  # expect: none
    return Server(host, use_ssl=True, tls=tls)


def python_ldap_settings():
    ldap.set_option(ldap.OPT_X_TLS_REQUIRE_CERT, ldap.OPT_X_TLS_NEVER)  # expect: SSC508


def python_ldap_demanding():
    ldap.set_option(ldap.OPT_X_TLS_REQUIRE_CERT, ldap.OPT_X_TLS_DEMAND)  # expect: none
    ldap.set_option(ldap.OPT_X_TLS_CACERTFILE, CA_BUNDLE)


# -- cloud SDKs and clusters ------------------------------------------------------------------------------


def minio_bucket(endpoint, key, secret):
    s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key, aws_secret_access_key=secret, verify=False)  # expect: SSC509
    return s3.list_buckets()


def s3_resource_in_session(profile):
    session = boto3.session.Session(profile_name=profile)
    return session.resource("s3", verify=False)  # expect: SSC509


def s3_private_ca(endpoint):
    return boto3.client("s3", endpoint_url=endpoint, verify=CA_BUNDLE)  # expect: none


def blob_store(url, credential):
    return BlobServiceClient(account_url=url, credential=credential, connection_verify=False)  # expect: SSC101


def kube_api():
    k8s_config.load_kube_config()
    configuration = k8s.Configuration.get_default_copy()
    configuration.verify_ssl = False  # expect: SSC511
    return k8s.CoreV1Api(k8s.ApiClient(configuration))


def kube_api_private_ca(host, token):
    configuration = k8s.Configuration()
    configuration.host = host
    configuration.api_key = {"authorization": "Bearer " + token}
    configuration.ssl_ca_cert = CA_BUNDLE  # expect: none
    return k8s.CoreV1Api(k8s.ApiClient(configuration))


def search_cluster(hosts, user, password):
    return Elasticsearch(hosts, basic_auth=(user, password), verify_certs=False, ssl_show_warn=False)  # expect: SSC505


def opensearch_cluster(host):
    return OpenSearch(
        hosts=[{"host": host, "port": 9200}],
        use_ssl=True,
        verify_certs=True,  # expect: none
        ssl_assert_hostname=False,  # expect: SSC505
    )


def search_cluster_ca(hosts):
    return Elasticsearch(hosts, ca_certs=CA_BUNDLE)  # expect: none


def influx(url, token, org):
    return InfluxDBClient(url=url, token=token, org=org, verify_ssl=False)  # expect: SSC511


def vault(url, token):
    return hvac.Client(url=url, token=token, verify=False)  # expect: SSC101


def vault_with_ca(url, token):
    return hvac.Client(url=url, token=token, verify=CA_BUNDLE)  # expect: none


def gitlab_api(url, token):
    return Gitlab(url, private_token=token, ssl_verify=False)  # expect: SSC506


# -- data stores and message brokers ----------------------------------------------------------------------


def cache(host, password):
    return redis.Redis(host=host, port=6380, password=password, ssl=True, ssl_cert_reqs=None)  # expect: SSC507


def cache_required(host):
    return redis.Redis(host=host, port=6380, ssl=True, ssl_cert_reqs="required", ssl_ca_certs=CA_BUNDLE)  # expect: none


app = Celery("tasks", broker="amqps://broker.internal:5671//")
app.conf.broker_use_ssl = {
    "keyfile": "/etc/celery/client.key",
    "certfile": "/etc/celery/client.pem",
    "cert_reqs": ssl.CERT_NONE,  # expect: SSC507
}


def documents(host):
    return MongoClient(f"mongodb://{host}:27017/?tls=true&tlsAllowInvalidCertificates=true")  # expect: SSC503


def documents_verified(host):
    return MongoClient(host, tls=True, tlsCAFile=CA_BUNDLE)  # expect: none


def telemetry(broker):
    mq = mqtt.Client()
    mq.tls_set(ca_certs=CA_BUNDLE)  # expect: none
    mq.tls_insecure_set(True)  # expect: SSC504
    mq.connect(broker, 8883)
    return mq


def stream(url):
    return websocket.create_connection(url, sslopt={"cert_reqs": ssl.CERT_NONE})  # expect: SSC501


def stream_with_ca(url):
    return websocket.create_connection(url, sslopt={"ca_certs": CA_BUNDLE})  # expect: none


# -- SOAP and plain HTTP helpers ------------------------------------------------------------------------------


def soap_service(wsdl):
    session = requests.Session()
    session.verify = False  # expect: SSC102
    return SoapClient(wsdl, transport=Transport(session=session))


def fetch_with_flag(url):
    parser = argparse.ArgumentParser()
    parser.add_argument("--insecure", action="store_true", help="skip TLS verification")
    args = parser.parse_args()
    return requests.get(url, verify=not args.insecure)  # expect: none


def fetch_with_env_bundle(url):
    return requests.get(url, verify=os.environ.get("REQUESTS_CA_BUNDLE", True))  # expect: none


def fetch_unset(url):
    return requests.get(url, verify=None)  # expect: none


# -- CLI wrappers ------------------------------------------------------------------------------------------------


def download(url, dest):
    subprocess.run(["curl", "-fsSLk", "-o", dest, url], check=True)  # expect: SSC402


def download_verified(url, dest):
    subprocess.run(["curl", "-fsSL", "--cacert", CA_BUNDLE, "-o", dest, url], check=True)  # expect: none


def mirror(url, dest):
    subprocess.check_call(["git", "-c", "http.sslVerify=false", "clone", url, dest])  # expect: SSC404


def fetch_archive(url):
    subprocess.check_call(["wget", "-q", "--no-check-certificate", url])  # expect: SSC403


def install_from_mirror(package):
    subprocess.check_call(["pip", "install", "--trusted-host", "pypi.corp.example", package])  # expect: SSC401


def install_with_index(package):
    subprocess.check_call(["pip", "install", "--index-url", "https://pypi.corp.example/simple", package])  # expect: none


def mirror_without_checks(url, dest):
    os.environ["GIT_SSL_NO_VERIFY"] = "1"  # expect: SSC303
    subprocess.check_call(["git", "clone", url, dest])


def model_download_workaround():
    # requests (2.34 read here) falls back to its own verify=True when the variable is empty.
    os.environ["CURL_CA_BUNDLE"] = ""  # expect: SSC303


def model_download_ca():
    os.environ["REQUESTS_CA_BUNDLE"] = CA_BUNDLE  # expect: none
