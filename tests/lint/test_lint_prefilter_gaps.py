"""Files the pre-filter used to skip although the analysis finds a weakening in them (issue 35).

Each shape is a small package in a temporary directory, linted with the accelerator's search
and with the pure-Python one: the weakening is found, and its safe twin, or a file of the
same shape that names nothing of verification, stays silent (and is not parsed).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from _lint_source import lint_package

from sslcustomize_lint import _prefilter

_SEARCHES: dict[str, Callable[[bytes], list[tuple[int, int]]] | None] = {
    "python": _prefilter.python_matches,
    "accelerated": _prefilter.accelerated_matches,
}


@pytest.fixture(params=sorted(_SEARCHES))
def search(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run the test with each word search (the accelerator's only where it is installed)."""
    found = _SEARCHES[request.param]
    if found is None:
        pytest.skip("ahocorasick-rs is not installed")
    monkeypatch.setattr(_prefilter, "matches", found)
    return str(request.param)


_SPREADER = (
    "import requests\n"
    "\n"
    "from .settings import OPTIONS\n"
    "\n"
    "\n"
    "def fetch(url):\n"
    "    return requests.get(\n"
    "        url,\n"
    "        **OPTIONS,\n"
    "    )\n"
)


def test_spread_of_a_sibling_option_dict_is_found(search: str, tmp_path: Path) -> None:
    """``requests.get(url, **OPTIONS)`` of a sibling's ``{"verify": False}``: no word here."""
    files = {
        "pkg/__init__.py": "",
        "pkg/settings.py": 'OPTIONS = {"verify": False, "timeout": 5}\n',
        "pkg/client.py": _SPREADER,
    }
    assert lint_package(tmp_path, files)[0] == {("pkg/client.py", 9, "SSC101")}


def test_spread_of_a_verifying_sibling_dict_is_silent(search: str, tmp_path: Path) -> None:
    """The same spread of ``{"verify": True}`` is silent."""
    files = {
        "pkg/__init__.py": "",
        "pkg/settings.py": 'OPTIONS = {"verify": True, "timeout": 5}\n',
        "pkg/client.py": _SPREADER,
    }
    assert lint_package(tmp_path, files)[0] == set()


@pytest.mark.parametrize(
    "source",
    [
        "def wrap(f, **kwargs):\n    return f(**kwargs)\n",  # a parameter, not imported
        "from math import K\n\nx = 2 ** K\n",  # a power, not a spread
        "from x import OPTS\n\n# type: (**OPTS) -> None\n",  # a comment
        "from x import opts\n\nf(**opts)\n",  # not a constant
        "from x import MAKE\n\ny = dict(**MAKE())\n",  # a call's result
    ],
)
def test_other_double_stars_do_not_make_a_file_parsed(search: str, source: str) -> None:
    """Spreads of parameters, powers, type comments and calls leave a file skipped."""
    assert _prefilter.word_places(source.encode()) is None


_CONFIG_READER = (
    "import configparser\n"
    "\n"
    "\n"
    "def load(path):\n"
    "    config = configparser.ConfigParser()\n"
    "    config.read(path)\n"
    "    return config.getboolean(\n"
    '        "server", "{key}"\n'
    "    )\n"
)


def test_getboolean_of_an_opt_out_key_is_found(search: str, tmp_path: Path) -> None:
    """``config.getboolean("server", "insecure")``, the file's only word of verification."""
    files = {"conf.py": _CONFIG_READER.format(key="insecure")}
    assert lint_package(tmp_path, files) == ({("conf.py", 7, "SSC801")}, 1)


def test_getboolean_of_another_key_is_not_parsed(search: str, tmp_path: Path) -> None:
    """``config.getboolean("server", "debug")``: silent, and the file is not parsed."""
    files = {"conf.py": _CONFIG_READER.format(key="debug")}
    assert lint_package(tmp_path, files) == (set(), 0)


_BIG_SPREADER = (
    "import ssl\n"
    "\n"
    "import requests\n"
    "\n"
    "from .settings import OPTIONS\n"
    "\n"
    "\n"
    "def context():\n"
    "    return ssl.create_default_context()\n"
    "\n"
    "\n"
    "def fetch(url):\n"
    "    return requests.get(url, **OPTIONS)\n"
    "{padding}"
)


@pytest.mark.parametrize("padding", ["", "\n\ndef unrelated():\n    return 1\n" * 200])
def test_spread_in_a_file_with_other_words_is_analyzed(
    search: str, padding: str, tmp_path: Path
) -> None:
    """The function that spreads ``OPTIONS`` is hot in a file whose words are elsewhere.

    Small (parsed whole) and big (cut): a function without a word of its own is analyzed.
    """
    files = {
        "pkg/__init__.py": "",
        "pkg/settings.py": 'OPTIONS = {"verify": False}\n',
        "pkg/client.py": _BIG_SPREADER.format(padding=padding),
    }
    assert lint_package(tmp_path, files)[0] == {("pkg/client.py", 13, "SSC101")}
