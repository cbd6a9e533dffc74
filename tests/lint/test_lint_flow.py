"""Value flow across the modules of a package and the classes of a module (issue 36).

Each shape is a small package written to a temporary directory: the weakening, and its safe
twin that must stay silent.
"""

from __future__ import annotations

from pathlib import Path

from _lint_source import package_findings

_BASE = (
    "import requests\n"
    "\n"
    "class Auth:\n"
    "    def __init__(self, timeout=5, verify=False):\n"
    "        self.timeout = timeout\n"
    "        self.verify = verify\n"
    "\n"
    "class TicketAuth(Auth):\n"
    "    def __init__(self, url, **kwargs):\n"
    "        super().__init__({passed}**kwargs)\n"
    "        self.url = url\n"
    "{extra}"
    "\n"
    "    def renew(self):\n"
    "        return requests.post(self.url, verify=self.verify, timeout=self.timeout)\n"
)


def test_base_class_default_reaches_a_subclass_sink(tmp_path: Path) -> None:
    """A base class's ``verify=False`` stored on self reaches a subclass's request."""
    source = _BASE.format(passed="", extra="")
    assert package_findings(tmp_path, {"auth.py": source}) == {("auth.py", 4, "SSC101")}


def test_subclass_that_overrides_the_attribute_is_silent(tmp_path: Path) -> None:
    """A subclass that passes ``verify=True`` to its base, or sets it, is not reported."""
    passed = _BASE.format(passed="verify=True, ", extra="")
    own = _BASE.format(passed="", extra="        self.verify = True\n")
    assert package_findings(tmp_path / "a", {"auth.py": passed}) == set()
    assert package_findings(tmp_path / "b", {"auth.py": own}) == set()


def test_base_class_with_a_verifying_default_is_silent(tmp_path: Path) -> None:
    """The same flow with ``verify=True`` is silent."""
    source = _BASE.format(passed="", extra="").replace("verify=False", "verify=True")
    assert package_findings(tmp_path, {"auth.py": source}) == set()


_OPTIONS = (
    "import ssl\n"
    "\n"
    "DEFAULT_SSL_OPTIONS = {{'cert_reqs': {mode}, 'maxsize': 4}}\n"
    "DEFAULT_TLS_OPTIONS = dict(verify={verify}, timeout=5)\n"
)

_USER = (
    "import requests\n"
    "import urllib3\n"
    "\n"
    "from .options import DEFAULT_SSL_OPTIONS, DEFAULT_TLS_OPTIONS\n"
    "\n"
    "def pool():\n"
    "    return urllib3.PoolManager(**DEFAULT_SSL_OPTIONS)\n"
    "\n"
    "def get(url):\n"
    "    return requests.get(url, **DEFAULT_TLS_OPTIONS)\n"
)


def test_option_dicts_of_a_sibling_module_are_followed(tmp_path: Path) -> None:
    """Option dicts made in one module and spread in another are reported where spread.

    The spreading file must hold a rule word (here the dicts' names) to be analyzed at all.
    """
    files = {
        "pkg/__init__.py": "",
        "pkg/options.py": _OPTIONS.format(mode="ssl.CERT_NONE", verify="False"),
        "pkg/client.py": _USER,
    }
    assert package_findings(tmp_path, files) == {
        ("pkg/client.py", 7, "SSC104"),
        ("pkg/client.py", 10, "SSC101"),
    }


def test_verifying_option_dicts_of_a_sibling_module_are_silent(tmp_path: Path) -> None:
    """The same dicts with ``CERT_REQUIRED`` and ``verify=True`` are silent."""
    files = {
        "pkg/__init__.py": "",
        "pkg/options.py": _OPTIONS.format(mode="ssl.CERT_REQUIRED", verify="True"),
        "pkg/client.py": _USER,
    }
    assert package_findings(tmp_path, files) == set()


_SETTINGS = (
    "class Settings:\n"
    "    def __init__(self, url, verify_ssl={default}, timeout=5):\n"
    "        self.url = url\n"
    "        self.verify_ssl = verify_ssl\n"
    "\n"
    "\n"
    "{dataclass}"
    "class Options:\n"
    "    url: str = ''\n"
    "    verify_tls: bool = {default}\n"
)

_READER = (
    "import requests\n"
    "\n"
    "from pkg.settings import Options, Settings\n"
    "\n"
    "def get(url):\n"
    "    settings = Settings(url{given})\n"
    "    return requests.get(settings.url, verify=settings.verify_ssl)\n"
    "\n"
    "def get2(url):\n"
    "    options = Options(url{given})\n"
    "    return requests.get(options.url, verify=options.verify_tls)\n"
)


def test_constructor_defaults_of_a_sibling_class_are_followed(tmp_path: Path) -> None:
    """A sibling class made with its ``verify_ssl=False`` default gives that to the sink."""
    files = {
        "pkg/__init__.py": "",
        "pkg/settings.py": _SETTINGS.format(default="False", dataclass="@dataclass\n"),
        "pkg/client.py": _READER.format(given=""),
    }
    assert package_findings(tmp_path, files) == {
        ("pkg/settings.py", 2, "SSC101"),  # the flag's default itself (a library's default)
        ("pkg/client.py", 7, "SSC101"),
        ("pkg/client.py", 11, "SSC101"),
    }


def test_constructor_defaults_given_or_verifying_are_silent(tmp_path: Path) -> None:
    """The caller's own value, a verifying default, or a plain class's field is silent."""
    given = {
        "pkg/__init__.py": "",
        "pkg/settings.py": _SETTINGS.format(default="False", dataclass="@dataclass\n"),
        "pkg/client.py": _READER.format(given=", True"),
    }
    verifying = {
        "pkg/__init__.py": "",
        "pkg/settings.py": _SETTINGS.format(default="True", dataclass="@dataclass\n"),
        "pkg/client.py": _READER.format(given=""),
    }
    # The module's own default is still reported there (a library's default); not the use.
    assert package_findings(tmp_path / "given", given) == {("pkg/settings.py", 2, "SSC101")}
    assert package_findings(tmp_path / "verifying", verifying) == set()


def test_constructor_defaults_of_a_class_of_the_module_are_followed(tmp_path: Path) -> None:
    """The same construction with the class in the module itself, and its safe twin.

    ``Options`` is no dataclass here: its class attribute is no constructor default.
    """
    weak = _SETTINGS.format(default="False", dataclass="") + _READER.format(given="").replace(
        "from pkg.settings import Options, Settings\n", ""
    )
    assert package_findings(tmp_path / "weak", {"app.py": weak}) == {
        ("app.py", 2, "SSC101"),  # the flag's default itself
        ("app.py", 15, "SSC101"),
    }
    safe = weak.replace("verify_ssl=False", "verify_ssl=True")
    assert package_findings(tmp_path / "safe", {"app.py": safe}) == set()


_OPTION_SOURCES = (
    "import argparse\n"
    "import configparser\n"
    "\n"
    "def parse(argv):\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--ssl-verify', default=None)\n"
    "    parser.add_argument(\n"
    "        '--no-ssl-verify', dest='{dest}', action='store_false'\n"
    "    )\n"
    "    return parser.parse_args(argv)\n"
    "\n"
    "class Config:\n"
    "    def __init__(self, path):\n"
    "        config = configparser.ConfigParser()\n"
    "        config.read(path)\n"
    "        self.ssl_verify = config.getboolean('global', '{key}')\n"
)


def test_config_key_and_flag_of_verification_are_noted(tmp_path: Path) -> None:
    """A config file's ``ssl_verify`` and a ``store_false`` flag into it are SSC801 notes."""
    source = _OPTION_SOURCES.format(dest="ssl_verify", key="ssl_verify")
    assert package_findings(tmp_path, {"cli.py": source}) == {
        ("cli.py", 8, "SSC801"),
        ("cli.py", 16, "SSC801"),
    }


def test_config_key_and_flag_of_other_options_are_silent(tmp_path: Path) -> None:
    """The same reads of an unrelated option (``color``, ``ssl_color``) are silent."""
    source = _OPTION_SOURCES.format(dest="ssl_color", key="ssl_color")
    assert package_findings(tmp_path, {"cli.py": source}) == set()


_VERSION_TABLES = (
    "import ssl\n"
    "\n"
    "from OpenSSL import SSL\n"
    "\n"
    "SSL_VERSION_CHOICES = {{\n"
    "    'ssl3': 'PROTOCOL_{first}',\n"
    "    'tls1.2': 'PROTOCOL_TLSv1_2',\n"
    "}}\n"
    "METHODS = {{'TLS': SSL.SSLv23_METHOD, 'TLSv1.1': SSL.{second}_METHOD}}\n"
)


def test_tables_from_option_names_to_weak_versions_are_noted(tmp_path: Path) -> None:
    """A table that lets a user pick SSLv3 or TLS 1.1 by name notes each weak entry."""
    source = _VERSION_TABLES.format(first="SSLv3", second="TLSv1_1")
    assert package_findings(tmp_path, {"versions.py": source}) == {
        ("versions.py", 6, "SSC802"),
        ("versions.py", 9, "SSC802"),
    }


def test_tables_of_strong_versions_only_are_silent(tmp_path: Path) -> None:
    """The same tables whose every entry is TLS 1.2 or negotiated are silent."""
    source = _VERSION_TABLES.format(first="TLS_CLIENT", second="TLSv1_2")
    assert package_findings(tmp_path, {"versions.py": source}) == set()


_MODULE_SETTINGS = (
    "VERIFY = {value}\n"
    "\n"
    "class Settings:\n"
    "    def __init__(self, verify_ssl={value}):\n"
    "        self.verify_ssl = verify_ssl\n"
)

_MODULE_USER = (
    "import requests\n"
    "from . import settings\n"
    "import mypkg.settings as conf\n"
    "from mypkg.settings import VERIFY\n"
    "\n"
    "def get(url):\n"
    "    return requests.get(url, verify=settings.VERIFY)\n"
    "\n"
    "def get2(url):\n"
    "    made = conf.Settings()\n"
    "    return requests.get(url, verify=made.verify_ssl)\n"
    "\n"
    "def get3(url):\n"
    "    return requests.get(url, verify=VERIFY)\n"
    "\n"
    "def get4(url, settings):\n"
    "    return requests.get(url, verify=settings.VERIFY)\n"
)


def test_modules_of_the_package_imported_whole_are_followed(tmp_path: Path) -> None:
    """``from . import settings``, ``import mypkg.settings as conf`` and an absolute import.

    A parameter that shadows the module's name (``get4``) is not the module.
    """
    files = {
        "mypkg/__init__.py": "",
        "mypkg/settings.py": _MODULE_SETTINGS.format(value="False"),
        "mypkg/client.py": _MODULE_USER,
    }
    assert package_findings(tmp_path, files) == {
        ("mypkg/settings.py", 4, "SSC101"),  # the flag's default itself
        ("mypkg/client.py", 7, "SSC101"),
        ("mypkg/client.py", 11, "SSC101"),
        ("mypkg/client.py", 14, "SSC101"),
    }


def test_modules_of_the_package_with_verifying_values_are_silent(tmp_path: Path) -> None:
    """The same imports of a module whose values verify are silent."""
    files = {
        "mypkg/__init__.py": "",
        "mypkg/settings.py": _MODULE_SETTINGS.format(value="True"),
        "mypkg/client.py": _MODULE_USER,
    }
    assert package_findings(tmp_path, files) == set()


_CHOICE = (
    "import ssl\n"
    "\n"
    "from urllib3.util.ssl_ import create_urllib3_context\n"
    "\n"
    "def make_context(verify, host, ciphers=None):\n"
    "    return create_urllib3_context(\n"
    "        ciphers=ciphers,\n"
    "        cert_reqs=ssl.CERT_REQUIRED if {test} else ssl.{other},\n"
    "    )\n"
)


def test_keyword_chosen_by_a_callers_option_is_noted(tmp_path: Path) -> None:
    """``cert_reqs=CERT_REQUIRED if verify else CERT_NONE``: the caller's opt-out, a note."""
    source = _CHOICE.format(test="verify", other="CERT_NONE")
    assert package_findings(tmp_path, {"adapter.py": source}) == {("adapter.py", 8, "SSC801")}


def test_keyword_chosen_between_verifying_values_or_by_another_test_is_silent(
    tmp_path: Path,
) -> None:
    """Both branches verifying, or a test on an unrelated parameter's flag, stay silent.

    ``host`` is no option of verification: the weak branch is no caller's opt-out, and
    with no default to decide it, the choice is left unknown (flow-insensitive).
    """
    verifying = _CHOICE.format(test="verify", other="CERT_REQUIRED")
    assert package_findings(tmp_path / "a", {"adapter.py": verifying}) == set()
    unrelated = _CHOICE.format(test="host", other="CERT_NONE")
    assert package_findings(tmp_path / "b", {"adapter.py": unrelated}) == set()


_SETTER = (
    "import ssl\n"
    "\n"
    "class Client:\n"
    "    def tls_set(self):\n"
    "        self._ssl_context = ssl.create_default_context()\n"
    "\n"
    "    def tls_insecure_set(self, value):\n"
    "        self._ssl_context.check_hostname = {expression}\n"
)


def test_check_hostname_set_to_a_negated_parameter_is_noted(tmp_path: Path) -> None:
    """``check_hostname = not value``: the caller's true value turns the check off."""
    source = _SETTER.format(expression="not value")
    assert package_findings(tmp_path, {"client.py": source}) == {("client.py", 8, "SSC801")}


def test_check_hostname_set_to_a_parameter_is_silent(tmp_path: Path) -> None:
    """``check_hostname = value`` passes the caller's choice on as it is: silent."""
    source = _SETTER.format(expression="value")
    assert package_findings(tmp_path, {"client.py": source}) == set()


_HELPER = (
    "def single(topic, tls=None, client=None):\n"
    "    if isinstance(tls, dict):\n"
    "        insecure = tls.pop({key!r}, {default})\n"
    "        client.tls_set(**tls)\n"
    "        if insecure:\n"
    "            client.tls_insecure_set(insecure)\n"
)


def test_insecure_key_of_an_options_dict_is_noted(tmp_path: Path) -> None:
    """``tls.pop("insecure", False)``: a key that exists only to turn verification off."""
    source = _HELPER.format(key="insecure", default="False")
    assert package_findings(tmp_path, {"publish.py": source}) == {("publish.py", 3, "SSC801")}


def test_other_keys_of_an_options_dict_are_silent(tmp_path: Path) -> None:
    """Another key (``insecure_mode``, ``ca_certs``) read the same way is silent."""
    for key in ("insecure_mode", "ca_certs"):
        source = _HELPER.format(key=key, default="None")
        assert package_findings(tmp_path / key, {"publish.py": source}) == set()


_TRANSPORT = (
    "class Transport:\n"
    "    def __init__(self, host, verify={default}):\n"
    "        self.host = host\n"
    "        self.verify = verify\n"
)

_API = (
    "import requests\n"
    "\n"
    "from .transport import Transport\n"
    "\n"
    "class Api:\n"
    "    def __init__(self, url):\n"
    "        self.transport = Transport(url)\n"
    "\n"
    "    def get(self, url):\n"
    "        return requests.get(url, verify=self.transport.verify)\n"
)


def test_instance_kept_on_self_gives_its_default_to_every_method(tmp_path: Path) -> None:
    """``self.transport = Transport(url)`` in ``__init__``, ``self.transport.verify`` later."""
    files = {
        "pkg/__init__.py": "",
        "pkg/transport.py": _TRANSPORT.format(default="False"),
        "pkg/api.py": _API,
    }
    assert package_findings(tmp_path, files) == {("pkg/api.py", 10, "SSC101")}


def test_instance_kept_on_self_with_a_verifying_default_is_silent(tmp_path: Path) -> None:
    """The same with ``verify=True``, or the caller's ``verify=True``, is silent."""
    files = {
        "pkg/__init__.py": "",
        "pkg/transport.py": _TRANSPORT.format(default="True"),
        "pkg/api.py": _API,
    }
    assert package_findings(tmp_path / "a", files) == set()
    files["pkg/transport.py"] = _TRANSPORT.format(default="False")
    files["pkg/api.py"] = _API.replace("Transport(url)", "Transport(url, verify=True)")
    assert package_findings(tmp_path / "b", files) == set()


def test_insecure_attribute_of_an_options_object_is_noted(tmp_path: Path) -> None:
    """``getattr(opts, "insecure", False)``: the same key read as an attribute."""
    source = (
        "import requests\n"
        "\n"
        "def get(url, opts):\n"
        "    return requests.get(url, verify=not getattr(opts, {key!r}, {default}))\n"
    )
    noted = source.format(key="insecure", default="False")
    assert package_findings(tmp_path / "a", {"get.py": noted}) == {("get.py", 4, "SSC801")}
    other = source.format(key="timeout", default="None")
    assert package_findings(tmp_path / "b", {"get.py": other}) == set()
    # ``insecure`` unless configured: off by default, the default's weakening (not a note)
    weak = source.format(key="insecure", default="True")
    assert package_findings(tmp_path / "c", {"get.py": weak}) == {("get.py", 4, "SSC101")}


_FACTORY = (
    "class ContextFactory:\n"
    "    def __init__(self, method=None, *args, verify_certificates={default}, **kwargs):\n"
    "        self._verify_certificates = verify_certificates\n"
    "\n"
    "    def creator_for(self, hostname):\n"
    "        if not self._verify_certificates:\n"
    "            return _AcceptAnyOptions(hostname)\n"
    "        return _VerifyingOptions(hostname)\n"
)


def test_verification_flag_defaulting_off_is_reported(tmp_path: Path) -> None:
    """A context factory's ``verify_certificates=False`` default is the library's default."""
    source = _FACTORY.format(default="False")
    assert package_findings(tmp_path, {"factory.py": source}) == {("factory.py", 2, "SSC101")}


def test_verification_flag_defaulting_on_or_in_an_opt_out_is_silent(tmp_path: Path) -> None:
    """``True`` or ``None`` defaults, and a function named for the opt-out, are silent."""
    for default in ("True", "None"):
        source = _FACTORY.format(default=default)
        assert package_findings(tmp_path / default, {"factory.py": source}) == set()
    opt_out = "def create_unverified_context(*, check_hostname=False, verify_certs=False):\n"
    opt_out += "    return (check_hostname, verify_certs)\n"
    assert package_findings(tmp_path / "optout", {"factory.py": opt_out}) == set()


def test_sibling_definitions_are_read_statement_by_statement(tmp_path: Path) -> None:
    """A sibling's class (with its decorators) and its last dict are parsed alone."""
    import ast

    from sslcustomize_lint._siblings import may_keep_weak_defaults, sibling_definition

    module = tmp_path / "settings.py"
    module.write_text(
        "import dataclasses\n"
        "OPTIONS = {'verify': True}\n"
        "OPTIONS = {\n"
        "    'verify': False,\n"
        "}\n"
        "@dataclasses.dataclass(frozen=True)\n"
        "class Options:\n"
        "    verifySsl: bool = False\n"
        "class Plain:\n"
        "    def __init__(self, timeout=(5, 10), debug=False):\n"
        "        self.debug = debug\n",
        encoding="utf-8",
    )
    options = sibling_definition(str(module), "OPTIONS")
    assert isinstance(options, ast.Dict)
    assert [ast.literal_eval(v) for v in options.values] == [False]  # the last one
    found = sibling_definition(str(module), "Options")
    assert isinstance(found, ast.ClassDef)
    assert len(found.decorator_list) == 1
    assert sibling_definition(str(module), "MISSING") is None
    assert may_keep_weak_defaults(str(module))  # the dataclass's ``verifySsl`` field

    plain = tmp_path / "plain.py"
    plain.write_text(
        "class Plain:\n"
        "    def __init__(self, timeout=(5, 10), debug=False):\n"
        "        self.debug = debug\n",
        encoding="utf-8",
    )
    assert not may_keep_weak_defaults(str(plain))  # ``debug`` is no flag of verification
