"""Programs started with flags that turn verification off."""
import asyncio
import os
import shlex
import subprocess
import sys
from subprocess import check_call, run


def pip():
    subprocess.check_call([sys.executable, "-m", "pip", "install",
                           "--trusted-host", "pypi.corp.example", "pkg"])  # expect: SSC401
    run(["pip", "install", "--trusted-host=pypi.corp.example", "pkg"])  # expect: SSC401
    os.system("pip3 install --trusted-host pypi.corp.example -r requirements.txt")  # expect: SSC401


def curl(url):
    subprocess.run(["curl", "-k", url])  # expect: SSC402
    subprocess.run(["curl", "--insecure", "-o", "out", url])  # expect: SSC402
    subprocess.check_output(f"curl -sSLk {url}", shell=True)  # expect: SSC402
    os.popen("/usr/bin/curl -fsk " + url)  # expect: SSC402
    cmd = ["curl", "-k", url]  # expect: SSC402
    subprocess.Popen(cmd)


def wget(url):
    check_call(["wget", "--no-check-certificate", url])  # expect: SSC403
    subprocess.call(shlex.split("wget -q --no-check-certificate " + url))  # expect: SSC403


def git(url):
    subprocess.run(["git", "-c", "http.sslVerify=false", "clone", url])  # expect: SSC404
    subprocess.run(["git", "config", "--global", "http.sslverify", "false"])  # expect: SSC404
    subprocess.run("git config http.sslVerify false && git pull", shell=True)  # expect: SSC404
    subprocess.run(["git", "-c", "http.https://git.corp.example/.sslVerify=false", "fetch"])  # expect: SSC404


async def async_exec(url):
    await asyncio.create_subprocess_exec("curl", "--insecure", url)  # expect: SSC402
    await asyncio.create_subprocess_shell("wget --no-check-certificate " + url)  # expect: SSC403


# --- look-alikes ---------------------------------------------------------------------------

def safe(url):
    subprocess.run(["curl", "--cacert", "/etc/corp/ca.pem", url])  # expect: none
    subprocess.run(["curl", "-fsSL", url])  # expect: none
    subprocess.run(["git", "-c", "http.sslVerify=true", "clone", url])  # expect: none
    subprocess.run(["pip", "install", "--index-url", "https://pypi.corp.example/simple", "x"])  # expect: none
    subprocess.run(["wget", "--ca-certificate=/etc/corp/ca.pem", url])  # expect: none
    subprocess.run(["tar", "-xkf", "archive.tar"])  # expect: none
    print("curl -k is insecure")  # expect: none
    help_text = "use --no-check-certificate only for testing"  # expect: none
