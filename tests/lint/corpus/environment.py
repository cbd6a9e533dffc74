"""Environment variables that turn verification off, for this process or its children."""
import os
import subprocess

env = dict(os.environ)


def set_environ():
    os.environ["PYTHONHTTPSVERIFY"] = "0"  # expect: SSC303
    os.environ["CURL_CA_BUNDLE"] = ""  # expect: SSC303
    os.environ["REQUESTS_CA_BUNDLE"] = ""  # expect: SSC303
    os.environ["GIT_SSL_NO_VERIFY"] = "1"  # expect: SSC303
    os.environ["GIT_SSL_NO_VERIFY"] = "true"  # expect: SSC303
    os.environ.setdefault("PIP_TRUSTED_HOST", "pypi.corp.example")  # expect: SSC303
    os.putenv("PYTHONHTTPSVERIFY", "0")  # expect: SSC303
    os.environ.update({"CURL_CA_BUNDLE": ""})  # expect: SSC303
    os.environ.update(GIT_SSL_NO_VERIFY="1")  # expect: SSC303


def child_env():
    subprocess.run(["git", "pull"], env={**os.environ, "GIT_SSL_NO_VERIFY": "1"})  # expect: SSC303
    child = dict(os.environ, PYTHONHTTPSVERIFY="0")  # expect: SSC303
    env["NODE_TLS_REJECT_UNAUTHORIZED"] = "0"  # expect: SSC303
    return child


def in_tests(monkeypatch):
    monkeypatch.setenv("CURL_CA_BUNDLE", "")  # expect: SSC303
    monkeypatch.setenv("PYTHONHTTPSVERIFY", "0")  # expect: SSC303


# --- look-alikes ---------------------------------------------------------------------------

def safe(monkeypatch):
    os.environ["PYTHONHTTPSVERIFY"] = "1"  # expect: none
    os.environ["REQUESTS_CA_BUNDLE"] = "/etc/ssl/certs/ca-certificates.crt"  # expect: none
    os.environ["CURL_CA_BUNDLE"] = "/etc/corp/ca.pem"  # expect: none
    if os.environ.get("PYTHONHTTPSVERIFY") == "0":  # expect: none
        raise SystemExit("PYTHONHTTPSVERIFY=0 is set")  # expect: none
    os.environ.pop("GIT_SSL_NO_VERIFY", None)  # expect: none
    monkeypatch.delenv("CURL_CA_BUNDLE", raising=False)  # expect: none
    print("set GIT_SSL_NO_VERIFY=1 to break your security")  # expect: none


# A table of variable names (a linter's own rules) is not an environment.
KNOWN_VARIABLES = {"CURL_CA_BUNDLE": "empty", "PIP_TRUSTED_HOST": "nonempty"}  # expect: none
NAMES = ("PYTHONHTTPSVERIFY", "0")  # expect: none
