"""Process-wide monkeypatches that turn verification off, and restores that are fine."""
import functools
import ssl
from functools import partialmethod

import requests
import requests.adapters
import urllib3

_original = ssl._create_default_https_context


def patch_https():
    ssl._create_default_https_context = ssl._create_unverified_context  # expect: SSC301


def patch_with_lambda():
    ssl._create_default_https_context = lambda: ssl._create_unverified_context()  # expect: SSC301 SSC203


def patch_with_setattr():
    setattr(ssl, "_create_default_https_context", ssl._create_unverified_context)  # expect: SSC301


def patch_with_pytest(monkeypatch):
    monkeypatch.setattr("ssl._create_default_https_context", ssl._create_unverified_context)  # expect: SSC301
    monkeypatch.setattr(ssl, "_create_default_https_context", ssl._create_stdlib_context)  # expect: SSC301


def patch_session():
    requests.Session.request = functools.partialmethod(requests.Session.request, verify=False)  # expect: SSC302 SSC101


def patch_session_send():
    original = requests.Session.send

    def send(self, *args, **kwargs):
        kwargs["verify"] = False  # expect: SSC101
        return original(self, *args, **kwargs)

    requests.Session.send = send  # expect: SSC302


def patch_match_hostname():
    ssl.match_hostname = lambda cert, hostname: None  # expect: SSC302


def patch_adapter():
    requests.adapters.HTTPAdapter.cert_verify = lambda *a, **k: None  # expect: SSC302


def patch_partialmethod():
    requests.Session.request = partialmethod(requests.Session.request, verify=False)  # expect: SSC302 SSC101


def patch_urllib3():
    urllib3.connection.match_hostname = lambda *args: None  # expect: SSC302


# --- look-alikes ---------------------------------------------------------------------------

def restore():
    ssl._create_default_https_context = _original  # expect: none
    ssl._create_default_https_context = ssl.create_default_context  # expect: none


def restore_saved():
    saved = requests.Session.request
    try:
        pass
    finally:
        requests.Session.request = saved  # expect: none


def inspect():
    if ssl._create_default_https_context is ssl._create_unverified_context:  # expect: none
        raise RuntimeError("verification is off")
    unrelated = object()
    unrelated.request = None  # expect: none


def instrument(tracer):
    original_send = requests.Session.send

    def traced_send(self, request, **kwargs):
        with tracer.start_span("send"):
            return original_send(self, request, **kwargs)

    requests.Session.send = traced_send  # expect: none
