"""Shapes by which real libraries carry a weakening from an option or a default to a sink.

Issue 36, round 4: each shape is written from its description (never copied from a
project), with its safe twin that must stay silent.
"""

from __future__ import annotations

from pathlib import Path

from _lint_source import findings_of, package_findings

# -- a table from option names to verify modes ---------------------------------------------

_MODE_TABLE = (
    "import ssl\n"
    "\n"
    "def parse_cert_reqs(text):\n"
    "    modes = {{\n"
    '        "required": ssl.CERT_REQUIRED,\n'
    '        "optional": ssl.CERT_OPTIONAL,\n'
    '        "none": {weak},\n'
    "    }}\n"
    "    return modes[text]\n"
)


def test_table_of_verify_modes_notes_its_cert_none_entry() -> None:
    """``{"none": CERT_NONE, "required": CERT_REQUIRED}``: the user's off switch by name."""
    found = findings_of(_MODE_TABLE.format(weak="ssl.CERT_NONE"))
    assert found == {("SSC801", 7)}


def test_table_without_cert_none_is_silent() -> None:
    """A table whose every mode verifies, and a dict of one weak mode (a setting), are silent."""
    assert findings_of(_MODE_TABLE.format(weak="ssl.CERT_REQUIRED")) == set()
    single = 'import ssl\nNAMES = {"none": ssl.CERT_NONE, "other": "text"}\n'
    assert findings_of(single) == set()


# -- a branch on the URL scheme is not the caller's opt-out ---------------------------------

_SCHEME_BRANCH = (
    "import ssl\n"
    "from http import client\n"
    "\n"
    "def opener(timeout=None, verify={default}):\n"
    "    def connect(scheme, host, port):\n"
    "        options = {{}}\n"
    '        if scheme == "https":\n'
    "            if not verify:\n"
    '                options["context"] = ssl._create_unverified_context()\n'
    "            return client.HTTPSConnection(host, port, **options)\n"
    "        return client.HTTPConnection(host, port)\n"
    "    return connect\n"
)


def test_default_inside_a_branch_on_the_scheme_is_reported() -> None:
    """``if scheme == "https":`` picks TLS; ``verify=False`` by default still reaches the sink."""
    assert findings_of(_SCHEME_BRANCH.format(default="False")) == {("SSC203", 9)}


def test_opt_out_inside_a_branch_on_the_scheme_is_not_an_error() -> None:
    """With ``verify=True`` the same branch is the caller's opt-out: no error there."""
    found = findings_of(_SCHEME_BRANCH.format(default="True"))
    assert not {code for code, _ in found} - {"SSC801"}


# -- an optional import under ``if``, with ``None`` in the other branch --------------------

_OPTIONAL_IMPORT = (
    "from urllib.request import urlopen\n"
    "HAVE_SSL = True\n"
    "if HAVE_SSL:\n"
    "    import ssl\n"
    "else:\n"
    "    ssl = None\n"
    "\n"
    "def fetch(url):\n"
    "    ctx = ssl.create_default_context()\n"
    "    ctx.verify_mode = ssl.{mode}\n"
    "    return urlopen(url, context=ctx)\n"
)


def test_module_imported_under_if_keeps_its_names() -> None:
    """``if HAVE_SSL: import ssl`` / ``else: ssl = None``: ``ssl.CERT_NONE`` is still ssl's."""
    assert findings_of(_OPTIONAL_IMPORT.format(mode="CERT_NONE")) == {("SSC201", 10)}


def test_module_imported_under_if_with_verifying_mode_is_silent() -> None:
    """The same optional import with ``CERT_REQUIRED`` stays silent."""
    assert findings_of(_OPTIONAL_IMPORT.format(mode="CERT_REQUIRED")) == set()


# -- a binding that a caller's option chooses ------------------------------------------------

_OPTION_BINDING = (
    "import ssl\n"
    "\n"
    "def client_context(cafile, check_server_cert{default}):\n"
    "    cert_reqs = ssl.CERT_REQUIRED if check_server_cert else ssl.CERT_NONE\n"
    "    ctx = ssl.create_default_context(cafile=cafile)\n"
    "    ctx.verify_mode = cert_reqs\n"
    "    return ctx\n"
    "\n"
    "def other_context(verify{default}):\n"
    "    ctx = ssl.create_default_context()\n"
    "    ctx.verify_mode = ssl.CERT_REQUIRED if verify else ssl.CERT_NONE\n"
    "    return ctx\n"
)


def test_binding_chosen_by_the_callers_option_is_noted() -> None:
    """``x = CERT_REQUIRED if option else CERT_NONE``: the weak branch is the caller's opt-out."""
    found = findings_of(_OPTION_BINDING.format(default=""))
    assert found == {("SSC801", 4), ("SSC801", 11)}


def test_binding_on_a_server_or_a_default_is_not_noted() -> None:
    """A server's client-certificate option, or a default that decides, is no opt-out note."""
    server = (
        "import ssl\n"
        "\n"
        "def server_context(certfile, require_client_cert):\n"
        "    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
        "    ctx.load_cert_chain(certfile)\n"
        "    ctx.verify_mode = ssl.CERT_REQUIRED if require_client_cert else ssl.CERT_NONE\n"
        "    return ctx\n"
    )
    assert findings_of(server) == set()
    decided = _OPTION_BINDING.format(default="=True")
    assert not {code for code, _ in findings_of(decided)} & {"SSC801"}


# -- an option's default kept on ``self`` in ``__init__`` and read by another method -------

_KEPT_OPTION = (
    "import socket\n"
    "import ssl\n"
    "\n"
    "class Channel:\n"
    "    def __init__(self, **options):\n"
    '        self.host = options.get("host", "localhost")\n'
    '        self.self_signed = options.get("self_signed", {default})\n'
    "{setter}"
    "\n"
    "    def open(self):\n"
    "        ctx = ssl.create_default_context()\n"
    "        ctx.check_hostname = not self.self_signed\n"
    "        ctx.verify_mode = ssl.CERT_NONE if self.self_signed else ssl.CERT_REQUIRED\n"
    "        return ctx.wrap_socket(socket.socket(), server_hostname=self.host)\n"
)
_SETTER = "\n    def trust_self_signed(self, value):\n        self.self_signed = value\n"


def test_option_default_kept_on_self_reaches_another_method() -> None:
    """``self.x = options.get("x", True)`` then ``CERT_NONE if self.x``: weak by default."""
    found = findings_of(_KEPT_OPTION.format(default="True", setter=""))
    assert found == {("SSC202", 11), ("SSC201", 12)}


def test_option_kept_on_self_verifying_or_set_elsewhere_is_silent() -> None:
    """A verifying default, or an attribute another method stores too, is not followed."""
    assert findings_of(_KEPT_OPTION.format(default="False", setter="")) == set()
    assert findings_of(_KEPT_OPTION.format(default="True", setter=_SETTER)) == set()


# -- a default carried up through the callers' own defaults --------------------------------

_CHAIN = (
    "import ssl\n"
    "from http import client\n"
    "\n"
    "def make_handler(timeout=None, verify={default}):\n"
    "    def connect(host, port):\n"
    "        if not verify:\n"
    "            context = ssl._create_unverified_context()\n"
    "        else:\n"
    "            context = ssl.create_default_context()\n"
    "        return client.HTTPSConnection(host, port, context=context)\n"
    "    return connect\n"
    "\n"
    "class Transport:\n"
    "    def __init__(self, handler=None, verify={default}):\n"
    "        self.handler = handler or make_handler(verify=verify)\n"
    "\n"
    "class Service:\n"
    "    def __init__(self, **options):\n"
    '        self.transport = Transport(None, options.get("verify", {default}))\n'
    "\n"
    "def connect_service(**options):\n"
    "    return Service(**options)\n"
)


def test_default_carried_through_callers_is_reported_at_each_default() -> None:
    """The sink's ``verify=False``, a class's ``verify=False`` and an option's lookup default."""
    found = findings_of(_CHAIN.format(default="False"))
    assert found == {("SSC203", 7), ("SSC203", 14), ("SSC203", 19)}


def test_verifying_defaults_and_callers_literals_are_not_followed() -> None:
    """Defaults that verify are silent; a caller's own ``False`` is its opt-out, not followed."""
    assert findings_of(_CHAIN.format(default="True")) == set()
    literal = _CHAIN.format(default="True").replace('options.get("verify", True)', "False")
    assert not {code for code, _ in findings_of(literal)} - {"SSC801"}


# -- a package that constructs its own options class with a weak default -------------------

_OPTIONS_CLASS = (
    "import ssl\n"
    "\n"
    "class Tls:\n"
    "    def __init__(self, ca_file=None, validate={mode}):\n"
    "        self.ca_file = ca_file\n"
    "        self.validate = validate\n"
    "\n"
    "    def wrap(self, sock, host):\n"
    "        ctx = ssl.create_default_context(cafile=self.ca_file)\n"
    "        ctx.verify_mode = self.validate\n"
    "        return ctx.wrap_socket(sock, server_hostname=host)\n"
)
_USER = (
    "from .tls import Tls\n"
    "\n"
    "class Server:\n"
    "    def __init__(self, host, use_ssl=False, tls=None):\n"
    "        self.host = host\n"
    "        self.tls = Tls({given}) if use_ssl and not tls else tls\n"
)


def test_construction_that_keeps_a_weak_default_is_reported(tmp_path: Path) -> None:
    """``Tls()`` of a sibling class whose ``validate=CERT_NONE`` is kept: the library's default."""
    files = {
        "pkg/__init__.py": "",
        "pkg/tls.py": _OPTIONS_CLASS.format(mode="ssl.CERT_NONE"),
        "pkg/server.py": _USER.format(given=""),
    }
    found = package_findings(tmp_path, files)
    assert ("pkg/server.py", 6, "SSC201") in found
    assert {f for f in found if f[0] == "pkg/tls.py"} == {("pkg/tls.py", 10, "SSC201")}


def test_construction_that_gives_the_mode_or_of_a_verifying_class_is_silent(
    tmp_path: Path,
) -> None:
    """A construction that passes ``validate``, or of a class that verifies by default."""
    given = {
        "pkg/__init__.py": "",
        "pkg/tls.py": _OPTIONS_CLASS.format(mode="ssl.CERT_NONE"),
        "pkg/server.py": _USER.format(given="validate=ssl.CERT_REQUIRED"),
    }
    assert {f for f in package_findings(tmp_path / "a", given) if f[0] == "pkg/server.py"} == set()
    verifying = {
        "pkg/__init__.py": "",
        "pkg/tls.py": _OPTIONS_CLASS.format(mode="ssl.CERT_REQUIRED"),
        "pkg/server.py": _USER.format(given=""),
    }
    assert package_findings(tmp_path / "b", verifying) == set()


# -- a verification setting assigned the user's option as it is ----------------------------

_OPTION_ASSIGNED = (
    "import ssl\n"
    "import requests\n"
    "\n"
    "def build_context(config):\n"
    "    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n"
    "    ctx.check_hostname = config[{key!r}]\n"
    "    return ctx\n"
    "\n"
    "def build_session(settings):\n"
    "    session = requests.Session()\n"
    "    session.verify = settings.{attr}\n"
    "    return session\n"
)


def test_option_assigned_to_a_verification_setting_is_noted() -> None:
    """``ctx.check_hostname = config["ssl_check_hostname"]``: off when the user says so."""
    source = _OPTION_ASSIGNED.format(key="ssl_check_hostname", attr="verify_certs")
    assert findings_of(source) == {("SSC801", 6), ("SSC801", 11)}


def test_other_options_and_servers_are_not_noted() -> None:
    """An option not named for verification, or a server's context, is silent."""
    other = _OPTION_ASSIGNED.format(key="server_hostname", attr="ca_bundle")
    assert findings_of(other) == set()
    server = (
        "import ssl\n"
        "\n"
        "def serve(config):\n"
        "    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)\n"
        "    ctx.load_cert_chain(config['certfile'])\n"
        "    ctx.verify_mode = config['verify_client']\n"
        "    return ctx\n"
    )
    assert findings_of(server) == set()


# -- a configured flag proved false by its branch and passed on ------------------------------

_NARROWED = (
    "import requests\n"
    "\n"
    "def open_session(config, ca_certs=None):\n"
    "    session = requests.Session()\n"
    "    try:\n"
    '        ssl_verify = config.get_boolean("http", "sslVerify")\n'
    "    except KeyError:\n"
    "        ssl_verify = True\n"
    "    if ca_certs:\n"
    "        session.verify = ca_certs\n"
    "    elif {test}:\n"
    "        session.verify = ssl_verify\n"
    "    return session\n"
)


def test_flag_proved_false_and_passed_on_is_noted() -> None:
    """``elif ssl_verify is False: session.verify = ssl_verify``: the configured opt-out."""
    assert findings_of(_NARROWED.format(test="ssl_verify is False")) == {("SSC801", 12)}
    assert findings_of(_NARROWED.format(test="not ssl_verify")) == {("SSC801", 12)}


def test_flag_proved_true_is_silent() -> None:
    """``elif ssl_verify is True:`` (or a test on something else) passes on a verifying value."""
    assert findings_of(_NARROWED.format(test="ssl_verify is True")) == set()
    assert findings_of(_NARROWED.format(test="config.strict")) == set()


# -- an off switch looked up with a true default ---------------------------------------------

_OFF_SWITCH = (
    "def load_endpoint(meta):\n"
    "    endpoint = meta['Endpoints']['docker']\n"
    "    endpoint['SkipTLSVerify'] = bool(endpoint.get({key!r}, {default}))\n"
    "    return endpoint\n"
)


def test_off_switch_looked_up_with_a_true_default_is_reported() -> None:
    """``get("SkipTLSVerify", True)``: verification is off when nothing is configured."""
    found = findings_of(_OFF_SWITCH.format(key="SkipTLSVerify", default="True"))
    assert found == {("SSC101", 3)}


def test_off_switch_off_by_default_or_a_verify_switch_is_not_an_error() -> None:
    """A false default is the user's opt-out (a note); ``verify_tls`` true is the safe side."""
    off = findings_of(_OFF_SWITCH.format(key="SkipTLSVerify", default="False"))
    assert off == {("SSC801", 3)}
    assert findings_of(_OFF_SWITCH.format(key="verify_tls", default="True")) == set()


# -- a positional argument chosen by an option ------------------------------------------------

_CURL_OPTION = (
    "import pycurl\n"
    "\n"
    "def configure(curl, request):\n"
    "    curl.setopt(pycurl.FOLLOWLOCATION, 1 if request.follow_redirects else 0)\n"
    "    curl.setopt(pycurl.SSL_VERIFYPEER, 1 if request.{test} else {off})\n"
)


def test_positional_argument_chosen_by_an_option_is_noted() -> None:
    """``setopt(SSL_VERIFYPEER, 1 if request.validate_cert else 0)``: the user's opt-out."""
    source = _CURL_OPTION.format(test="validate_cert", off="0")
    assert findings_of(source) == {("SSC801", 5)}


def test_positional_choice_without_a_weak_branch_or_option_is_silent() -> None:
    """Both branches verifying, or a test that is no option of verification, stay silent."""
    assert findings_of(_CURL_OPTION.format(test="validate_cert", off="1")) == set()
    assert findings_of(_CURL_OPTION.format(test="follow_redirects", off="1")) == set()


# -- a weakening in one branch, the verifying setting in the other ---------------------------

_EXCLUSIVE = (
    "import ssl\n"
    "\n"
    "def make_context(mode_name, root_cert):\n"
    "    mode = parse_mode(mode_name)\n"
    "    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n"
    "    if mode < 3:\n"
    "        ctx.verify_mode = ssl.{first}\n"
    "    else:\n"
    "        ctx.verify_mode = ssl.CERT_REQUIRED\n"
    "    return ctx\n"
    "\n"
    "def load_root(root_cert):\n"
    "    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)\n"
    "    try:\n"
    "        ctx.load_verify_locations(cafile=root_cert)\n"
    "    except FileNotFoundError:\n"
    "        ctx.verify_mode = ssl.{second}\n"
    "    else:\n"
    "        ctx.verify_mode = ssl.CERT_REQUIRED\n"
    "    return ctx\n"
)


def test_repair_in_the_other_branch_does_not_undo_a_weakening() -> None:
    """``if ...: CERT_NONE`` / ``else: CERT_REQUIRED``, and a handler's ``CERT_NONE``."""
    source = _EXCLUSIVE.format(first="CERT_NONE", second="CERT_NONE")
    assert findings_of(source) == {("SSC201", 7), ("SSC201", 17)}


def test_branches_that_all_verify_are_silent() -> None:
    """Both branches of each choice verifying: nothing to report."""
    source = _EXCLUSIVE.format(first="CERT_REQUIRED", second="CERT_REQUIRED")
    assert findings_of(source) == set()


def test_option_kept_on_self_is_followed_in_a_big_file_whose_init_is_cut() -> None:
    """A file big enough to be cut: the cold ``__init__`` is still read, its setters counted."""
    filler = "".join(f"\ndef helper_{i}(value):\n    return value * {i} + 1\n" for i in range(80))
    weak = _KEPT_OPTION.format(default="True", setter="") + filler
    assert len(weak) > 2_000
    assert findings_of(weak) == {("SSC202", 11), ("SSC201", 12)}
    trailing_setter = _KEPT_OPTION.format(default="True", setter=_SETTER) + filler
    assert findings_of(trailing_setter) == set()
