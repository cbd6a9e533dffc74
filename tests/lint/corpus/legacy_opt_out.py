"""sslcustomize.create_legacy_context(): a visible, policy-controlled opt-out."""
import urllib.request

import sslcustomize
from sslcustomize import create_legacy_context as legacy


def appliance(url):
    ctx = sslcustomize.create_legacy_context()  # expect: SSC901
    return urllib.request.urlopen(url, context=ctx)


def aliased(url):
    return urllib.request.urlopen(url, context=legacy())  # expect: SSC901


def allowed(url):
    ctx = sslcustomize.create_legacy_context()  # sslcustomize: allow(vendor appliance, OPS-123)  # expect: none
    return ctx


def registry():
    sslcustomize.named_contexts["myapp.billing"] = sslcustomize.create_legacy_context  # expect: none


# --- look-alikes ---------------------------------------------------------------------------

def safe(url):
    ctx = sslcustomize.create_default_context()  # expect: none
    other = sslcustomize.context_for("smtplib")  # expect: none
    return ctx, other
