"""A fourteenth held-out family: Ansible modules and their HTTP helpers.

Facts from ansible's ``lib/ansible/module_utils/urls.py`` (``open_url``, ``fetch_url``,
``Request``, ``SSLValidationHandler``: ``validate_certs=False`` sends the request without
checking the certificate), from collection modules that build a requests session or a context
from ``module.params``, and from checkov's CKV_ANSIBLE_2 (``get_url`` with
``validate_certs: false``). A module whose user sets ``validate_certs: no`` has opted out on
purpose (a careful reviewer accepts that branch); a module that never verifies, or verifies
only when asked, does not. Own code, nothing copied.
"""
import ssl

import requests
import urllib3
from ansible.module_utils.basic import AnsibleModule
from ansible.module_utils.urls import Request, open_url


def fetch_index(url):
    response = open_url(url, validate_certs=False)  # expect: SSC514
    return response.read()


class ApiClient:
    def __init__(self, base_url, token):
        self.base_url = base_url
        self.request = Request(  # expect: none
            headers={"Authorization": "Bearer " + token},
            validate_certs=False,  # expect: SSC514
        )

    def get(self, path):
        return self.request.get(self.base_url + path)


def argument_spec():
    return dict(
        url=dict(type="str", required=True),
        validate_certs=dict(type="bool", default=False),  # expect: SSC514
    )


def argument_spec_safe():
    return dict(
        url=dict(type="str", required=True),
        validate_certs=dict(type="bool", default=True),  # expect: none
    )


def session_for(module):
    session = requests.Session()
    session.verify = module.params["validate_certs"]  # expect: none
    return session


def session_never_verifying(module):
    session = requests.Session()
    session.auth = (module.params["user"], module.params["password"])
    session.verify = False  # expect: SSC102
    return session


def appliance_call(module, url):
    urllib3.disable_warnings()  # expect: SSC105
    return requests.get(url, verify=False, auth=module.params["auth"])  # expect: SSC101


def vcenter_context(module):
    if not module.params["validate_certs"]:
        context = ssl._create_unverified_context()  # expect: none
    else:
        context = ssl.create_default_context()  # expect: none
    return context


def vcenter_context_always(module):
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    context.check_hostname = False  # expect: SSC202
    context.verify_mode = ssl.CERT_NONE  # expect: SSC201
    return context


def legacy_appliance(host):
    context = ssl.SSLContext(ssl.PROTOCOL_TLSv1)  # expect: SSC701 SSC204
    return open_url("https://%s/api" % host, context=context)


def run_module():
    module = AnsibleModule(argument_spec=argument_spec_safe())
    data = open_url(module.params["url"], validate_certs=module.params["validate_certs"])  # expect: none
    module.exit_json(changed=False, content=data.read())
