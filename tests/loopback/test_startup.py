"""The .pth startup hook, in fresh interpreters: idle without a policy, hooks before user code."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import pytest

import _sslcustomize_startup as startup
from _fixtures import WritePolicy, run_python
from sslcustomize._support import _bootstrap

pytestmark = pytest.mark.skipif(
    not any(os.path.isfile(os.path.join(p, "sslcustomize.pth")) for p in sys.path if p),
    reason="needs a wheel install (the .pth hook); run through nox",
)

STATE = """
import sys
print("ssl" in sys.modules, "sslcustomize" in sys.modules, "_sslcustomize_startup" in sys.modules)
import ssl
print(ssl._create_stdlib_context.__module__, ssl.create_default_context.__module__)
"""


def test_idle_without_policy() -> None:
    """No policy: the hook module loads, imports neither ssl nor sslcustomize, patches nothing."""
    out = run_python(STATE).stdout.split()
    assert out == ["False", "False", "True", "ssl", "ssl"]


def test_process_policy_hooks_on_import_of_ssl(write_policy: WritePolicy) -> None:
    """SSLCUSTOMIZE_POLICY: stand-ins on import of ssl; the package loads on their first call."""
    path = write_policy("version = 1\n")
    code = (
        STATE
        + """
print("sslcustomize" in sys.modules)
context = ssl._create_stdlib_context()
print(ssl._create_stdlib_context.__module__, type(context).__name__)
"""
    )
    out = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(path)}).stdout.split()
    assert out[:3] == ["False", "False", "True"]
    assert out[3:5] == ["_sslcustomize_startup", "_sslcustomize_startup"]
    assert out[5] == "False", "import ssl alone must not import sslcustomize"
    assert out[6:] == ["sslcustomize._inject._stdlib", "PolicyContext"]


def test_extract_after_startup_restores_pythons_factories(write_policy: WritePolicy) -> None:
    """extract() after startup activation puts back Python's own factories, stand-ins gone."""
    path = write_policy("version = 1\n")
    code = """
    import ssl
    before = ssl._create_stdlib_context.sslcustomize_original
    import sslcustomize
    sslcustomize.extract()
    print(ssl._create_stdlib_context is before, ssl._create_stdlib_context().verify_mode == 0)
    ssl.create_default_context()
    import json  # an unrelated import after extract() must not re-activate
    print(sslcustomize.is_injected())
    """
    out = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(path)}).stdout.split()
    assert out == ["True", "True", "False"]


def test_no_context_and_no_policy_read_at_startup(write_policy: WritePolicy) -> None:
    """Hooks installed at import of ssl; the policy is read only when a context is made."""
    path = write_policy("version = 1\n")
    code = """
    import ssl
    from sslcustomize._runtime import _state
    print(_state._runtime is None)
    ssl.create_default_context()
    print(_state._runtime is None)
    """
    out = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(path)}).stdout.split()
    assert out == ["True", "False"]


# What the first context must not load: the TOML parser once the policy is cached, typing,
# dataclasses and inspect, the connection path (verdicts, records), which loads with the
# first handshake, and the hooks of client libraries the program never imported.
# bench/first_context.py measures the first context.
_HEAVY = (
    "tomllib", "tomli", "typing", "dataclasses", "inspect", "threading", "hashlib",
    "sslcustomize._connection._connect", "sslcustomize._verdict._verify",
    "sslcustomize._report._recording", "sslcustomize._report._records",
    "sslcustomize._inject._urllib3", "sslcustomize._inject._requests",
    "sslcustomize._inject._httpx", "sslcustomize._inject._aiohttp", "sslcustomize._inject._pip",
)  # fmt: skip


def test_first_context_loads_a_small_runtime(write_policy: WritePolicy) -> None:
    """The second process under a policy reads it from the cache and loads no heavy module."""
    path = write_policy(
        """\
        version = 1
        trust = ["system"]

        [[exception]]
        host = "appliance.example.internal"
        pin = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
        reason = "a pinned appliance"
        expires = 2099-01-01
        """
    )
    code = f"""
    import ssl, sys
    context = ssl.create_default_context()
    print(type(context).__name__, context.verify_mode == ssl.CERT_REQUIRED, context.check_hostname)
    print(sorted(set({_HEAVY!r}) & set(sys.modules)))
    """
    env = {"SSLCUSTOMIZE_POLICY": str(path)}
    first_run = run_python(code, env=env)
    assert first_run.stderr == "", "the policy must be read, not replaced by strict defaults"
    first = first_run.stdout.splitlines()
    warm = run_python(code, env=env).stdout.splitlines()
    assert first[0] == warm[0] == "PolicyContext True True"
    assert "tomllib" in first[1] or "tomli" in first[1], "the first process parses the policy"
    assert warm[1] == "[]"


def test_a_client_library_loads_its_hooks_when_imported(write_policy: WritePolicy) -> None:
    """Twin: importing urllib3 loads its hook module, which puts the policy's class in urllib3."""
    pytest.importorskip("urllib3")
    path = write_policy("version = 1\n")
    code = """
    import ssl, sys
    ssl.create_default_context()
    print("sslcustomize._inject._urllib3" in sys.modules)
    import urllib3.util.ssl_
    print("sslcustomize._inject._urllib3" in sys.modules)
    context = urllib3.util.ssl_.create_urllib3_context()
    print(type(context).__name__, context.verify_mode == ssl.CERT_REQUIRED)
    """
    out = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(path)}).stdout.splitlines()
    assert out == ["False", "True", "Urllib3Context True"]


def test_user_layer_activates(tmp_path: Path) -> None:
    """A user policy under XDG_CONFIG_HOME turns the hook on."""
    config = tmp_path / "config"
    (config / "sslcustomize").mkdir(parents=True)
    (config / "sslcustomize" / "policy.toml").write_text("version = 1\n")
    code = STATE + "ssl.create_default_context()\nprint(ssl.create_default_context.__module__)\n"
    out = run_python(code, env={"XDG_CONFIG_HOME": str(config)}).stdout.split()
    assert out[3] == "_sslcustomize_startup"
    assert out[5] == "sslcustomize._connection._contexts"


def test_broken_policy_fails_closed_with_one_line(write_policy: WritePolicy) -> None:
    """A broken policy: smtplib still verifies (strict defaults); stderr names file and line."""
    path = write_policy("version = 1\nmode = 'off'\n")
    code = """
    import ssl, smtplib
    for _ in range(3):
        context = ssl._create_stdlib_context()
    print(context.verify_mode == ssl.CERT_REQUIRED, context.check_hostname)
    """
    result = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(path)})
    assert result.stdout.split() == ["True", "True"]
    assert result.stderr.count(f"{path}:2: mode: must be") == 1
    assert "using strict defaults" in result.stderr


def test_missing_process_policy_fails_closed(tmp_path: Path) -> None:
    """SSLCUSTOMIZE_POLICY naming a missing file: verification stays on, the error is said."""
    missing = tmp_path / "missing.toml"
    code = "import ssl; print(ssl._create_stdlib_context().verify_mode == ssl.CERT_REQUIRED)"
    result = run_python(code, env={"SSLCUSTOMIZE_POLICY": str(missing)})
    assert result.stdout.strip() == "True"
    assert str(missing) in result.stderr


def test_startup_never_raises_when_the_package_is_broken(
    tmp_path: Path, write_policy: WritePolicy
) -> None:
    """If sslcustomize itself cannot be imported, Python still starts and says so once."""
    shadow = tmp_path / "shadow" / "sslcustomize"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise RuntimeError('broken install')\n")
    # The startup module imports the package beside it: both go first on the path. Its leaf
    # (loaded by path, without the package's __init__) is intact; the package is not.
    shutil.copy(startup.__file__, shadow.parent)
    (shadow / "_support").mkdir()
    shutil.copy(_bootstrap.__file__, shadow / "_support")
    env = {
        "SSLCUSTOMIZE_POLICY": str(write_policy("version = 1\n")),
        "PYTHONPATH": str(shadow.parent),
    }
    code = (
        "import ssl\nfor _ in range(3): c = ssl.create_default_context()\nprint(c.verify_mode == 2)"
    )
    result = run_python(code, env=env)
    assert result.stdout.strip() == "True"  # Python's own factory, as without sslcustomize
    assert result.stderr.count("sslcustomize: cannot apply the policy") == 1
    assert "broken install" in result.stderr


def test_startup_never_raises_when_its_leaf_is_missing(
    tmp_path: Path, write_policy: WritePolicy
) -> None:
    """Twin: without the leaf beside it either, Python starts verifying and says so once."""
    shadow = tmp_path / "shadow" / "sslcustomize"
    shadow.mkdir(parents=True)
    (shadow / "__init__.py").write_text("raise RuntimeError('broken install')\n")
    shutil.copy(startup.__file__, shadow.parent)
    env = {
        "SSLCUSTOMIZE_POLICY": str(write_policy("version = 1\n")),
        "PYTHONPATH": str(shadow.parent),
    }
    code = (
        "import ssl, smtplib\nc = ssl.create_default_context()\n"
        "s = ssl._create_stdlib_context()\n"
        "print(c.verify_mode == 2, s.verify_mode == 2, s.check_hostname)"
    )
    result = run_python(code, env=env)
    # smtplib & co. verify too (gh-91826's unverified context would be weaker than strict).
    assert result.stdout.strip() == "True True True"
    assert result.stderr.count("sslcustomize: startup hook failed") == 1
    assert "broken install" in result.stderr


def test_layer_paths_follow_platformdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The stdlib-only user path equals platformdirs' user_config_dir; venv only in a venv."""
    import platformdirs

    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    assert _bootstrap.user_config_dir() == os.path.dirname(
        platformdirs.user_config_dir("sslcustomize", appauthor=False)
    )
    monkeypatch.delenv("XDG_CONFIG_HOME")
    assert _bootstrap.user_config_dir() == os.path.expanduser("~/.config")
    monkeypatch.setattr(sys, "prefix", "/venv")
    monkeypatch.setattr(sys, "base_prefix", "/usr")
    assert ("venv", "/venv/etc/sslcustomize/policy.toml") in _bootstrap.layer_paths()
    monkeypatch.setattr(sys, "base_prefix", "/venv")
    assert [layer for layer, _ in _bootstrap.layer_paths()] == ["system", "user"]


@pytest.mark.parametrize(
    ("function", "variable"),
    [("user_cache_dir", "XDG_CACHE_HOME"), ("user_state_dir", "XDG_STATE_HOME")],
)
def test_cache_and_state_dirs_follow_platformdirs(
    function: str, variable: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """The stdlib-only cache and state directories equal platformdirs', set or not."""
    import platformdirs

    from sslcustomize._support import _paths

    for value in (str(tmp_path), None):
        if value is None:
            monkeypatch.delenv(variable, raising=False)
        else:
            monkeypatch.setenv(variable, value)
        expected = getattr(platformdirs, function)("sslcustomize", appauthor=False)
        assert getattr(_paths, function)() == expected


def test_post_import_hooks_run_after_each_body_and_keep_the_real_loader() -> None:
    """A hook runs after the module's body, again on a re-import; the module keeps its loader."""
    code = """
    import sys, _sslcustomize_startup as s
    seen = []
    hooks = s.PostImportHooks()
    hooks.register("json", lambda m: seen.append(m.__name__))
    import json
    print(seen, type(json.__loader__).__name__, hooks in sys.meta_path)
    hooks.register("json", lambda m: seen.append("again"))
    print(seen)
    del sys.modules["json"]
    import json
    print(seen)
    """
    out = run_python(code).stdout.splitlines()
    assert out == [
        "['json'] SourceFileLoader True",
        "['json', 'again']",
        "['json', 'again', 'json', 'again']",
    ]


def test_post_import_hook_asked_for_mid_import_waits_for_the_body(tmp_path: Path) -> None:
    """A hook asked for while its module's body runs sees the finished module, not half of it."""
    package = tmp_path / "halfpkg"
    package.mkdir()
    (package / "__init__.py").write_text("from . import mod\nimport json\n")
    (package / "mod.py").write_text(
        "import _sslcustomize_startup as s\n"
        "s.hooks.register('halfpkg.mod', lambda m: print('hooked', hasattr(m, 'LATE')))\n"
        "LATE = 1\n"
    )
    code = f"import sys; sys.path.insert(0, {str(tmp_path)!r}); import halfpkg; print('done')"
    assert run_python(code).stdout.splitlines() == ["hooked True", "done"]
