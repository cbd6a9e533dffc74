"""Python's own ssl objects, found behind stand-ins and substitutes."""

from __future__ import annotations

import ssl
from typing import Any

from sslcustomize._support._originals import (
    ORIGINAL_CREATE_DEFAULT_CONTEXT,
    PYTHON_SSLCONTEXT,
    STAND_IN_ORIGINAL,
    is_stand_in,
    python_class,
    unwrap_factory,
)


def _stand_in(original: Any) -> Any:
    """A stand-in as the startup hook makes one: it keeps the factory it stands for."""

    def stand_in(*args: object, **kwargs: object) -> object:
        return original(*args, **kwargs)

    setattr(stand_in, STAND_IN_ORIGINAL, original)
    return stand_in


def test_stand_ins_are_unwrapped_to_the_factory_behind_them() -> None:
    """Stand-ins over stand-ins lead to the original; anything else is returned as it is."""
    wrapped = _stand_in(_stand_in(ORIGINAL_CREATE_DEFAULT_CONTEXT))
    assert is_stand_in(wrapped)
    assert unwrap_factory(wrapped) is ORIGINAL_CREATE_DEFAULT_CONTEXT
    assert not is_stand_in(ORIGINAL_CREATE_DEFAULT_CONTEXT)
    assert unwrap_factory(None) is None


def test_the_saved_factory_is_pythons_own() -> None:
    """The saved create_default_context is ssl's function, from ssl's module."""
    assert ORIGINAL_CREATE_DEFAULT_CONTEXT.__module__ == "ssl"
    assert ORIGINAL_CREATE_DEFAULT_CONTEXT.__name__ == "create_default_context"


def test_pythons_class_is_found_behind_a_substitute() -> None:
    """A subclass (truststore's, gevent's) leads back to ssl.SSLContext's own class."""

    class Substitute(PYTHON_SSLCONTEXT):  # type: ignore[misc,valid-type]  # a runtime class
        pass

    class Further(Substitute):
        pass

    assert python_class(Further) is PYTHON_SSLCONTEXT
    assert PYTHON_SSLCONTEXT.__module__ == "ssl"
    assert issubclass(ssl.SSLContext, PYTHON_SSLCONTEXT)


def test_an_unrelated_class_is_returned_as_it_is() -> None:
    """Twin: a class that does not derive from Python's is not taken for it."""

    class Unrelated:
        pass

    found: object = python_class(Unrelated)
    assert found is Unrelated
