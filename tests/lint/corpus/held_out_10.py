"""A tenth held-out family: wrappers around requests in real projects' code; scored first.

Shapes seen in public projects (API helpers, test-automation wrappers, monkeypatches applied
at import): a verb looked up with ``getattr`` and called with ``verify=False``, static-method
wrappers, ``functools.partial`` rebinding module functions, a replaced ``Session.request``
whose ``verify`` defaults to off, a session subclass that sets a class constant as the
default, a provider class that takes ``verify`` in its constructor, and helpers that fill in a
CA directory or keep the caller's choice. Own code, nothing copied.
"""
import functools

import requests
import urllib3

CA_DIRECTORY = "/etc/ssl/certs"


def call_by_name(url, data="", verb="get"):
    sender = getattr(requests, verb)
    return sender(url, data=data, verify=False)  # expect: SSC101


def call_by_built_name(url, verb="GET"):
    return getattr(requests, verb.lower())(url, timeout=2, verify=False)  # expect: SSC101


class QuietClient:
    @staticmethod
    def fetch(url, **kwargs):
        return requests.get(url, verify=False, timeout=1, **kwargs)  # expect: SSC101

    @staticmethod
    def remove(url, **kwargs):
        return requests.delete(url, timeout=1, verify=False, **kwargs)  # expect: SSC101


requests.get = functools.partial(requests.get, verify=False)  # expect: SSC101 SSC302
requests.post = functools.partial(requests.post, verify=False)  # expect: SSC101 SSC302

_original_request = requests.Session.request


def _unverified_request(*args, verify=False, **kwargs):  # expect: SSC101
    return _original_request(*args, verify=verify, **kwargs)


requests.Session.request = _unverified_request  # expect: SSC302


class LaxSession(requests.Session):
    DEFAULT_VERIFY = False

    def request(self, *args, **kwargs):
        kwargs.setdefault("verify", self.DEFAULT_VERIFY)  # expect: SSC101
        return super().request(*args, **kwargs)


class Provider:
    def __init__(self, verify=True):
        self.verify = verify

    def get(self, url, **kwargs):
        return requests.get(url, verify=self.verify, **kwargs)


lax_provider = Provider(verify=False)  # expect: SSC101


def quiet_and_unverified(url):
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # expect: SSC105
    session = requests.Session()
    session.verify = False  # expect: SSC102
    return session.get(url)


# --- look-alikes ---------------------------------------------------------------------------

class StrictSession(requests.Session):
    DEFAULT_VERIFY = True  # expect: none

    def request(self, *args, **kwargs):
        kwargs.setdefault("verify", self.DEFAULT_VERIFY)  # expect: none
        return super().request(*args, **kwargs)


class EnvIgnoringSession(requests.Session):
    def merge_environment_settings(self, url, proxies, stream, verify, *args, **kwargs):
        if self.verify is False:  # expect: none
            verify = False  # expect: none
        return super().merge_environment_settings(url, proxies, stream, verify, *args, **kwargs)


def with_ca_directory(url, params=None, **kwargs):
    if "verify" not in kwargs:
        kwargs["verify"] = CA_DIRECTORY  # expect: none
    return requests.get(url, params, **kwargs)


def by_name_verified(url, verb="get"):
    return getattr(requests, verb)(url, timeout=2)  # expect: none


strict_provider = Provider()  # expect: none
checked_get = functools.partial(requests.get, timeout=5)  # expect: none
