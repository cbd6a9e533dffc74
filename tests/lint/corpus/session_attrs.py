"""Session objects whose verify attribute is switched off."""
import requests
import requests.sessions
from requests import Session, session


def module_session():
    s = requests.Session()
    s.verify = False  # expect: SSC102
    return s


def factory_session():
    sess = session()
    sess.verify = False  # expect: SSC102
    return sess


def aliased_class():
    http = Session()
    http.verify = False  # expect: SSC102
    return http


def sessions_module():
    client = requests.sessions.Session()
    client.verify = False  # expect: SSC102


def falsy_verify():
    s = requests.Session()
    s.verify = 0  # expect: SSC102
    s.verify = ""  # expect: SSC102
    s.verify = None  # expect: none
    return s


def verify_constant():
    off = False
    s = Session()
    s.verify = off  # expect: SSC102


def with_setattr():
    s = requests.Session()
    setattr(s, "verify", False)  # expect: SSC102
    s.__setattr__("verify", False)  # expect: SSC102
    s.__dict__["verify"] = False  # expect: SSC102
    vars(s)["verify"] = 0  # expect: SSC102
    return s


class Api:
    def __init__(self):
        self.session = requests.Session()
        self.session.verify = False  # expect: SSC102


class Other:
    def __init__(self, session):
        self.http = session

    def insecure(self):
        self.http.verify = False  # expect: SSC102


def in_with():
    with requests.Session() as s:
        s.verify = False  # expect: SSC102


# --- look-alikes ---------------------------------------------------------------------------

class Options:
    verify = False  # expect: none


def safe(args, ca):
    s = requests.Session()
    s.verify = ca  # expect: none
    s.verify = True  # expect: none
    s.verify = "/etc/corp/ca.pem"  # expect: none
    args.verify = False  # expect: none
    signature = object()
    signature.verify = False  # expect: none
    assert s.verify is not False  # expect: none
    setattr(s, "verify", ca)  # expect: none
    setattr(args, "verify", False)  # expect: none
    setattr(s, "timeout", 0)  # expect: none
    s.__dict__["verify"] = ca  # expect: none
    vars(args)["verify"] = False  # expect: none
    s.__dict__["trust_env"] = False  # expect: none
