"""Verify flags that travel: positionally, by defaults, dict spreads, attributes, names."""
import functools
import os
import ssl

import requests
import urllib3

SETTINGS = {"verify": False}  # expect: SSC101
OPTIONS = {}
OPTIONS["verify"] = False  # expect: SSC101


class Config:
    verify = True
    verify_tls = False


def positional(url):
    session = requests.Session()
    return session.request("GET", url, None, None, None, None, None, None, None, None, None, None, None, False)  # expect: SSC101


def spread(url):
    return requests.get(url, **SETTINGS)


def spread_filled(url):
    return requests.get(url, **OPTIONS)


def spread_built(url):
    kwargs = dict(timeout=5)
    kwargs.update({"verify": False})  # expect: SSC101
    return requests.post(url, **kwargs)


def through_attribute(url):
    cfg = Config()
    cfg.verify = False  # expect: none
    return requests.get(url, verify=cfg.verify)  # expect: SSC101


def through_class_attribute(url):
    return requests.get(url, verify=Config.verify_tls)  # expect: SSC101


def through_item(url):
    opts = {"timeout": 5}
    opts["verify"] = 0  # expect: none
    return requests.get(url, verify=opts["verify"])  # expect: SSC101


def fetch(url, check=False):  # expect: SSC101
    return requests.get(url, verify=check)


def fetch_positional(url, check):
    return requests.get(url, verify=check)


def caller(url):
    return fetch_positional(url, False)  # expect: SSC101


def partial_get():
    return functools.partial(requests.get, verify=False)  # expect: SSC101


def by_name():
    make = getattr(ssl, "_create_" + "unverified_context")
    return make()  # expect: SSC203


def by_dict():
    return ssl.__dict__["_create_unverified_context"]()  # expect: SSC203


def by_joined_name():
    name = "_".join(["", "create", "unverified", "context"])
    return getattr(ssl, name)()  # expect: SSC203


def configured_or_off(url, settings):
    requests.get(url, verify=os.environ.get("VERIFY_SSL", False))  # expect: SSC101
    requests.get(url, verify=os.getenv("VERIFY_SSL", ""))  # expect: SSC101
    return requests.get(url, verify=settings.get("verify", False))  # expect: SSC101


def pool_kwargs():
    kw = {"cert_reqs": "CERT_NONE"}  # expect: SSC104
    return urllib3.PoolManager(**kw)


# --- look-alikes ---------------------------------------------------------------------------

SAFE = {"verify": True, "timeout": 10}  # expect: none


def safe_spread(url):
    return requests.get(url, **SAFE)


def safe_fetch(url, check=True):  # expect: none
    return requests.get(url, verify=check)


def safe_caller(url):
    return fetch_positional(url, "/etc/ssl/corp.pem")  # expect: none


def other_getattr():
    return getattr(ssl, "create_default_context")()  # expect: none


def configured_or_on(url, settings):
    requests.get(url, verify=os.environ.get("REQUESTS_CA_BUNDLE"))  # expect: none
    requests.get(url, verify=os.environ.get("CA_BUNDLE", True))  # expect: none
    requests.get(url, verify=SAFE.get("verify", False))  # expect: none
    return requests.get(url, verify=settings.get("verify", True))  # expect: none


def unrelated_dict():
    flags = {"verify": False}  # expect: none
    return flags
