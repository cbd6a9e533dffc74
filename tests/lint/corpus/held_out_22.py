"""Held-out family 22 (independent): database, cache and queue clients' own TLS options.

Shapes from public code and docs found through the code search: kafka-python producers with
``ssl_check_hostname=False`` (kimbugs/test-kafka, TencentCloud/ckafka-sdk-demo), asyncpg pools
with ``ssl="require"`` or a context made unverified (asyncpg docs, several pool helpers), redis-py
and Celery's ``ssl_cert_reqs`` (redis-py docs, Celery's ``broker_use_ssl``), pymongo URIs and
keywords (pymongo docs), pika's ``ssl_options`` (pika examples, RabbitSSL), clickhouse-driver's
``verify=False`` (clickhouse-driver docs), SQLAlchemy ``connect_args``. Own code, nothing copied.

Codes where no rule names the library: ``ssl_check_hostname=False`` -> SSC202 (the host name
check), asyncpg ``ssl="require"`` and pika's ``cert_reqs`` -> SSC507/SSC104 (the closest:
"certificate not required").
"""

import ssl

import asyncpg
import pika
import pymongo
import redis
from aiokafka import AIOKafkaConsumer
from aiokafka.helpers import create_ssl_context
from celery import Celery
from clickhouse_driver import Client as ClickHouse
from kafka import KafkaConsumer, KafkaProducer
from sqlalchemy.ext.asyncio import create_async_engine

BROKERS = "kafka-1.corp.example:9093"


def kafka_producer(cafile):
    return KafkaProducer(
        bootstrap_servers=BROKERS,
        security_protocol="SSL",
        ssl_check_hostname=False,  # expect: SSC202
        ssl_cafile=cafile,
    )


def kafka_consumer_verifying(cafile):
    return KafkaConsumer(
        "events",
        bootstrap_servers=BROKERS,
        security_protocol="SSL",
        ssl_check_hostname=True,  # expect: none
        ssl_cafile=cafile,
    )


def kafka_with_context():
    context = ssl.create_default_context()
    context.check_hostname = False  # expect: SSC202
    return KafkaProducer(bootstrap_servers=BROKERS, security_protocol="SSL", ssl_context=context)


def aiokafka_consumer(cafile):
    context = create_ssl_context(cafile=cafile)  # expect: none
    return AIOKafkaConsumer("events", bootstrap_servers=BROKERS, ssl_context=context)


async def pg_pool_require(dsn):
    return await asyncpg.create_pool(dsn, ssl="require")  # expect: SSC507


async def pg_pool_verify_full(dsn):
    return await asyncpg.create_pool(dsn, ssl="verify-full")  # expect: none


async def pg_pool_unverified_context(dsn, **connect_kwargs):
    sslctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH)
    sslctx.check_hostname = False  # expect: SSC202
    sslctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    connect_kwargs["ssl"] = sslctx
    return await asyncpg.create_pool(dsn, **connect_kwargs)


async def pg_pool_with_ca(dsn, cafile):
    sslctx = ssl.create_default_context(ssl.Purpose.SERVER_AUTH, cafile=cafile)  # expect: none
    return await asyncpg.create_pool(dsn, ssl=sslctx)


def sqlalchemy_async_engine(url):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.check_hostname = False  # expect: SSC202
    ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return create_async_engine(url, connect_args={"ssl": ctx})


def redis_no_cert_check(host):
    return redis.Redis(host=host, port=6380, ssl=True, ssl_cert_reqs=None)  # expect: SSC507


def redis_from_url(host):
    return redis.from_url(f"rediss://{host}:6380/0?ssl_cert_reqs=none")  # expect: SSC507


def redis_no_hostname(host, cafile):
    return redis.StrictRedis(
        host=host,
        ssl=True,
        ssl_ca_certs=cafile,
        ssl_check_hostname=False,  # expect: SSC202
    )


def redis_verifying(host, cafile):
    return redis.Redis(host=host, ssl=True, ssl_cert_reqs="required", ssl_ca_certs=cafile)  # expect: none


app = Celery("tasks", broker="rediss://cache.corp.example:6380/0")
app.conf.broker_use_ssl = {
    "ssl_cert_reqs": ssl.CERT_NONE,  # expect: SSC507
}
app.conf.redis_backend_use_ssl = {
    "ssl_cert_reqs": ssl.CERT_REQUIRED,  # expect: none
    "ssl_ca_certs": "/etc/corp/ca.pem",
}


def mongo_uri_insecure(host):
    uri = f"mongodb://{host}/?tls=true&tlsAllowInvalidCertificates=true"  # expect: SSC503
    return pymongo.MongoClient(uri)


def mongo_keywords(host):
    return pymongo.MongoClient(host, tls=True, tlsInsecure=True)  # expect: SSC503


def mongo_hostnames_only(host, cafile):
    return pymongo.MongoClient(
        host, tls=True, tlsCAFile=cafile, tlsAllowInvalidHostnames=True  # expect: SSC503
    )


def mongo_verifying(host, cafile):
    return pymongo.MongoClient(host, tls=True, tlsCAFile=cafile, tlsAllowInvalidCertificates=False)  # expect: none


def rabbit_old_style(host):
    ssl_opts = {
        "ca_certs": "cacert.pem",
        "cert_reqs": ssl.CERT_NONE,  # expect: SSC104
    }
    params = pika.ConnectionParameters(host=host, port=5671, ssl=True, ssl_options=ssl_opts)
    return pika.BlockingConnection(params)


def rabbit_context_no_hostname(host):
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations("ca.crt")
    ctx.check_hostname = False  # expect: SSC202
    return pika.ConnectionParameters(host=host, port=5671, ssl_options=pika.SSLOptions(ctx))


def rabbit_verifying(host):
    context = ssl.create_default_context(cafile="ca_certificate.pem")  # expect: none
    context.load_cert_chain("client_certificate.pem", "client_key.pem")  # expect: none
    return pika.ConnectionParameters(port=5671, ssl_options=pika.SSLOptions(context, host))


def clickhouse_unverified(cfg):
    return ClickHouse(
        host=cfg["host"],
        secure=True,
        verify=False,  # expect: SSC101
    )


def clickhouse_tls_params(host):
    tls_params = {
        "secure": True,
        "verify": False,  # expect: SSC101
        "ca_certs": "/path/to/ca.pem",
    }
    return ClickHouse(host, **tls_params)


def clickhouse_verifying(host):
    return ClickHouse(host, secure=True, verify=True, ca_certs="/etc/corp/ch-ca.pem")  # expect: none
