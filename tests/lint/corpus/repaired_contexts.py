"""Contexts weakened then repaired before use, and patches that keep verification."""
import http.client
import smtplib
import ssl
import urllib.request

import certifi


def unverified_then_repaired(host):
    ctx = ssl._create_unverified_context()  # expect: none
    ctx.check_hostname = True
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.load_default_certs()
    return http.client.HTTPSConnection(host, context=ctx)


def mode_first_then_hostname(host):
    ctx = ssl._create_unverified_context(cafile="/etc/ssl/corp.pem")  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    return http.client.HTTPSConnection(host, context=ctx)


def stdlib_context_with_hostname(host):
    ctx = ssl._create_stdlib_context(cert_reqs=ssl.CERT_REQUIRED)  # expect: none
    ctx.check_hostname = True
    ctx.load_default_certs()
    return smtplib.SMTP_SSL(host, context=ctx)


def stdlib_context_verify_mode_and_hostname(host):
    ctx = ssl._create_stdlib_context()  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    ctx.load_default_certs()
    return smtplib.SMTP_SSL(host, context=ctx)


def default_turned_off_and_on(host):
    ctx = ssl.create_default_context()
    ctx.check_hostname = False  # expect: none
    ctx.verify_mode = ssl.CERT_NONE  # expect: none
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    return http.client.HTTPSConnection(host, context=ctx)


def install_certifi_default():
    ssl._create_default_https_context = lambda: ssl.create_default_context(cafile=certifi.where())  # expect: none


def install_corp_default():
    def corp_context(*args, **kwargs):
        return ssl.create_default_context(cafile="/etc/ssl/corp.pem")

    ssl._create_default_https_context = corp_context  # expect: none


def install_partial_default():
    import functools

    ssl._create_default_https_context = functools.partial(  # expect: none
        ssl.create_default_context, cafile=certifi.where()
    )


# --- still insecure --------------------------------------------------------------------------

def repaired_only_halfway(host):
    # Not halfway after all: since Python 3.7, check_hostname = True also turns CERT_NONE into
    # CERT_REQUIRED (and with no CA loaded, every certificate is refused): a look-alike.
    ctx = ssl._create_unverified_context()  # expect: none
    ctx.check_hostname = True
    return http.client.HTTPSConnection(host, context=ctx)


def stdlib_context_no_hostname(host):
    ctx = ssl._create_stdlib_context()  # expect: SSC203
    return smtplib.SMTP_SSL(host, context=ctx)


def repaired_after_use(url):
    ctx = ssl._create_unverified_context()  # expect: SSC203
    page = urllib.request.urlopen(url, context=ctx)
    ctx.verify_mode = ssl.CERT_REQUIRED
    ctx.check_hostname = True
    return page


def patch_unverified():
    ssl._create_default_https_context = lambda: ssl._create_unverified_context()  # expect: SSC301 SSC203


def patch_with_certifi_but_off():
    def ctx_factory(*args, **kwargs):
        ctx = ssl.create_default_context(cafile=certifi.where())
        ctx.check_hostname = False  # expect: SSC202
        ctx.verify_mode = ssl.CERT_NONE  # expect: SSC201
        return ctx

    ssl._create_default_https_context = ctx_factory  # expect: SSC301
