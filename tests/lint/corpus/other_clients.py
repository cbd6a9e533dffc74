"""Other clients: httplib2, pymongo, paho-mqtt, elasticsearch, python-gitlab, redis, ldap3,
boto3, pycurl, kubernetes, pyVmomi."""
import ssl

import boto3
import botocore.session
import elasticsearch
import gitlab
import httplib2
import kubernetes
import ldap3
import paho.mqtt.client as mqtt
import pycurl
import pymongo
import pyVim.connect
import redis
from elasticsearch import Elasticsearch
from pymongo import MongoClient
from pyVim.connect import SmartConnect


def http2():
    httplib2.Http(disable_ssl_certificate_validation=True)  # expect: SSC502
    h = httplib2.Http()
    h.disable_ssl_certificate_validation = True  # expect: SSC502


def mongo(uri):
    MongoClient(uri, tls=True, tlsAllowInvalidCertificates=True)  # expect: SSC503
    pymongo.MongoClient(uri, tlsAllowInvalidHostnames=True)  # expect: SSC503
    pymongo.MongoClient(host=uri, tlsInsecure=True)  # expect: SSC503
    MongoClient("mongodb://db.corp.example/?tls=true&tlsAllowInvalidCertificates=true")  # expect: SSC503


def mqtt_client():
    client = mqtt.Client()
    client.tls_set(ca_certs=None, cert_reqs=ssl.CERT_NONE)  # expect: SSC504
    client.tls_insecure_set(True)  # expect: SSC504


def search(url):
    Elasticsearch(url, verify_certs=False)  # expect: SSC505
    elasticsearch.Elasticsearch([url], verify_certs=False, ssl_show_warn=False)  # expect: SSC505
    Elasticsearch(url, ssl_assert_hostname=False)  # expect: SSC505


def lab(url, token):
    gitlab.Gitlab(url, private_token=token, ssl_verify=False)  # expect: SSC506
    gl = gitlab.Gitlab.from_config("corp")
    gl.ssl_verify = False  # expect: SSC506


def cache(host):
    redis.Redis(host=host, ssl=True, ssl_cert_reqs=None)  # expect: SSC507
    redis.StrictRedis(host=host, ssl=True, ssl_cert_reqs="none")  # expect: SSC507


def directory(server):
    tls = ldap3.Tls(validate=ssl.CERT_NONE)  # expect: SSC508
    return ldap3.Server(server, use_ssl=True, tls=tls)


# --- look-alikes ---------------------------------------------------------------------------

def safe(uri, url, token, ca):
    httplib2.Http(ca_certs=ca)  # expect: none
    httplib2.Http(disable_ssl_certificate_validation=False)  # expect: none
    MongoClient(uri, tls=True, tlsCAFile=ca)  # expect: none
    MongoClient(uri, tlsAllowInvalidCertificates=False)  # expect: none
    mqtt.Client().tls_insecure_set(False)  # expect: none
    Elasticsearch(url, verify_certs=True, ca_certs=ca)  # expect: none
    gitlab.Gitlab(url, private_token=token, ssl_verify=ca)  # expect: none
    redis.Redis(ssl=True, ssl_cert_reqs="required")  # expect: none
    ldap3.Tls(validate=ssl.CERT_REQUIRED, ca_certs_file=ca)  # expect: none


def run_server(app, ssl_cert_reqs=ssl.CERT_NONE):
    return ServerConfig(app, ssl_cert_reqs=ssl_cert_reqs)  # expect: none


def aws(url):
    boto3.client("s3", endpoint_url=url, verify=False)  # expect: SSC509
    boto3.Session().client("s3", verify=0)  # expect: SSC509
    botocore.session.get_session().create_client("s3", verify=False)  # expect: SSC509
    boto3.resource("s3", None, None, True, False)  # expect: SSC509
    boto3.client("s3", verify="/etc/corp/ca.pem")  # expect: none
    boto3.client("s3", use_ssl=True)  # expect: none


def curl(url):
    c = pycurl.Curl()
    c.setopt(pycurl.SSL_VERIFYPEER, 0)  # expect: SSC510
    c.setopt(c.SSL_VERIFYHOST, False)  # expect: SSC510
    c.setopt(pycurl.SSL_VERIFYPEER, 1)  # expect: none
    c.setopt(pycurl.SSL_VERIFYHOST, 2)  # expect: none
    c.setopt(pycurl.VERBOSE, 0)  # expect: none


def kube():
    configuration = kubernetes.client.Configuration()
    configuration.verify_ssl = False  # expect: SSC511
    configuration.verify_ssl = True  # expect: none
    configuration.ssl_ca_cert = "/etc/corp/ca.pem"  # expect: none


def vsphere(host, user, pwd):
    SmartConnect(host=host, user=user, pwd=pwd, disableSslCertValidation=True)  # expect: SSC512
    pyVim.connect.SmartConnectNoSSL(host=host, user=user, pwd=pwd)  # expect: SSC512
    SmartConnect(host=host, user=user, pwd=pwd, disableSslCertValidation=False)  # expect: none
