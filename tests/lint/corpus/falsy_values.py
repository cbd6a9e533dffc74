"""Values that are false when the code runs, written as something other than False."""
import enum
import ssl

import aiohttp
import httpx
import requests
import urllib3

NO = 0
EMPTY = ""
DEBUG = True


class Verify(enum.Enum):
    OFF = False
    ON = True


class Mode(enum.IntEnum):
    NONE = 0
    STRICT = 1


def numbers_and_empties(url):
    requests.get(url, verify=0)  # expect: SSC101
    requests.get(url, verify=0.0)  # expect: SSC101
    requests.get(url, verify="")  # expect: SSC101
    requests.get(url, verify=[])  # expect: SSC101
    requests.get(url, verify={})  # expect: SSC101
    requests.get(url, verify=())  # expect: SSC101
    requests.request("GET", url, verify=0j)  # expect: SSC101
    requests.request("GET", url, verify=b"")  # expect: SSC101
    requests.request("GET", url, verify=set())  # expect: SSC101
    requests.request("GET", url, verify=list())  # expect: SSC101
    httpx.get(url, verify=NO)  # expect: SSC101
    return httpx.Client(verify=EMPTY)  # expect: SSC101


def expressions(url):
    requests.get(url, verify=1 == 2)  # expect: SSC101
    requests.get(url, verify=True and False)  # expect: SSC101
    requests.get(url, verify=False or 0)  # expect: SSC101
    requests.get(url, verify=not 1)  # expect: SSC101
    requests.get(url, verify=True if 0 else False)  # expect: SSC101
    requests.get(url, verify="yes" == "no")  # expect: SSC101
    requests.get(url, verify=1 - 1)  # expect: SSC101
    requests.get(url, verify=False if DEBUG else True)  # expect: SSC101
    return requests.get(url, verify=len(""))  # expect: SSC101


def enums(url, sock):
    requests.get(url, verify=Verify.OFF.value)  # expect: SSC101
    urllib3.PoolManager(cert_reqs=ssl.VerifyMode.CERT_NONE)  # expect: SSC104
    ctx = ssl.create_default_context()
    ctx.check_hostname = Mode.NONE  # expect: SSC202
    ctx.verify_mode = ssl.VerifyMode(0)  # expect: SSC201
    return ctx.wrap_socket(sock, server_hostname="a.example")


async def aiohttp_falsy(url):
    async with aiohttp.ClientSession() as session:
        return await session.get(url, ssl=0)  # expect: SSC103


def session_attributes(url):
    session = requests.Session()
    session.verify = 0  # expect: SSC102
    session.verify = 1 > 2  # expect: SSC102
    return session.get(url)


# --- look-alikes ---------------------------------------------------------------------------

def truthy(url):
    requests.get(url, verify=1)  # expect: none
    requests.get(url, verify="/etc/ssl/corp.pem")  # expect: none
    requests.get(url, verify=1 == 1)  # expect: none
    requests.get(url, verify=True or False)  # expect: none
    requests.get(url, verify=Verify.ON.value)  # expect: none
    requests.get(url, verify=None)  # expect: none
    requests.get(url, verify=True if DEBUG else False)  # expect: none
    requests.request("GET", url, verify=1j)  # expect: none
    requests.request("GET", url, verify={"/etc/ssl/corp.pem"}.pop())  # expect: none
    return requests.get(url, verify=not 0)  # expect: none


def unknown_at_lint_time(url, flag):
    requests.get(url, verify=flag == "strict")  # expect: none
    return requests.get(url, verify=bool(flag))  # expect: none
