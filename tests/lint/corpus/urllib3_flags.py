"""urllib3: cert_reqs="CERT_NONE", assert_hostname=False, and silenced warnings."""
import ssl
import warnings

import requests
import urllib3
from requests.packages.urllib3.exceptions import InsecureRequestWarning
from urllib3 import PoolManager
from urllib3.util.ssl_ import create_urllib3_context

NONE = "CERT_NONE"


def pools(host):
    urllib3.PoolManager(cert_reqs="CERT_NONE")  # expect: SSC104
    PoolManager(cert_reqs=ssl.CERT_NONE)  # expect: SSC104
    urllib3.PoolManager(cert_reqs=NONE)  # expect: SSC104
    urllib3.HTTPSConnectionPool(host, 443, cert_reqs="NONE")  # expect: SSC104
    urllib3.ProxyManager("http://proxy:3128", cert_reqs="CERT_NONE")  # expect: SSC104
    urllib3.connection_from_url("https://" + host, cert_reqs=ssl.CERT_NONE)  # expect: SSC104
    urllib3.PoolManager(assert_hostname=False)  # expect: SSC104
    requests.packages.urllib3.PoolManager(cert_reqs="CERT_NONE")  # expect: SSC104
    create_urllib3_context(cert_reqs=ssl.CERT_NONE)  # expect: SSC104


def silence():
    urllib3.disable_warnings()  # expect: SSC105
    urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)  # expect: SSC105
    requests.packages.urllib3.disable_warnings(InsecureRequestWarning)  # expect: SSC105
    warnings.filterwarnings("ignore", category=InsecureRequestWarning)  # expect: SSC105
    warnings.simplefilter("ignore", InsecureRequestWarning)  # expect: SSC105
    warnings.filterwarnings("ignore", message="Unverified HTTPS request")  # expect: SSC105
    warnings.filterwarnings("ignore", "Unverified HTTPS request is being made")  # expect: SSC105


# --- look-alikes ---------------------------------------------------------------------------

def safe(ca):
    urllib3.PoolManager(cert_reqs="CERT_REQUIRED", ca_certs=ca)  # expect: none
    urllib3.PoolManager(cert_reqs=ssl.CERT_REQUIRED)  # expect: none
    urllib3.PoolManager()  # expect: none
    urllib3.disable_warnings(urllib3.exceptions.SNIMissingWarning)  # expect: none
    warnings.filterwarnings("error", category=InsecureRequestWarning)  # expect: none
    warnings.simplefilter("ignore", DeprecationWarning)  # expect: none
    warnings.filterwarnings("error", message="Unverified HTTPS request")  # expect: none
    warnings.filterwarnings("ignore", message="unclosed file")  # expect: none
    if pool.cert_reqs == "CERT_NONE":  # expect: none
        raise RuntimeError("unverified pool")


def falsy_cert_reqs():
    urllib3.PoolManager(cert_reqs=0)  # expect: SSC104
    urllib3.PoolManager(cert_reqs=None)  # expect: none
