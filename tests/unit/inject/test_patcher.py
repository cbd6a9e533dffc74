"""The patcher: every replaced attribute restored exactly, newest first; hooks on import."""

from __future__ import annotations

import sys
import types

from sslcustomize._inject._patcher import Patcher, on_import
from sslcustomize._support._originals import STAND_IN_ORIGINAL


def _module() -> types.ModuleType:
    module = types.ModuleType("target")
    module.factory = "original"  # type: ignore[attr-defined]
    return module


def test_undo_restores_what_was_there_and_removes_what_was_not() -> None:
    """A replaced attribute gets its value back; an added one is deleted."""
    module, patcher = _module(), Patcher()
    assert not patcher
    patcher.replace(module, "factory", "hook")
    patcher.replace(module, "added", "new")
    assert patcher
    assert patcher.replaced()[0] == (module, "factory", "original")
    patcher.undo()
    assert vars(module)["factory"] == "original"
    assert "added" not in vars(module)
    assert not patcher


def test_replacements_of_one_attribute_are_undone_newest_first() -> None:
    """Two replacements of the same name end with the first value."""
    module, patcher = _module(), Patcher()
    patcher.replace(module, "factory", "one")
    patcher.replace(module, "factory", "two")
    patcher.undo()
    assert vars(module)["factory"] == "original"


def test_a_later_change_by_someone_else_is_kept() -> None:
    """Attack on the undo: restoring ours would silently drop another tool's own patch."""
    module, patcher = _module(), Patcher()
    patcher.replace(module, "factory", "hook")
    module.factory = "someone else's"  # type: ignore[attr-defined]
    patcher.undo()
    assert vars(module)["factory"] == "someone else's"


def test_a_stand_in_is_remembered_as_the_original_it_wraps() -> None:
    """The startup hook's stand-in is never put back: the factory behind it is."""

    def stand_in() -> None:
        """Stand for the startup hook's stand-in."""

    setattr(stand_in, STAND_IN_ORIGINAL, "original")
    module, patcher = _module(), Patcher()
    module.factory = stand_in  # type: ignore[attr-defined]
    patcher.replace(module, "factory", "hook")
    patcher.undo()
    assert vars(module)["factory"] == "original"


def test_undo_actions_run_in_reverse_order_with_the_replacements() -> None:
    """on_undo actions interleave with attribute restores, newest first."""
    module, patcher, seen = _module(), Patcher(), []
    patcher.on_undo(lambda: seen.append(("first", vars(module)["factory"])))
    patcher.replace(module, "factory", "hook")
    patcher.on_undo(lambda: seen.append(("last", vars(module)["factory"])))
    patcher.undo()
    assert seen == [("last", "hook"), ("first", "original")]


def test_a_hook_runs_now_for_an_imported_module_and_undo_forgets_a_pending_one() -> None:
    """An imported module is patched at once; a hook for one never imported is dropped."""
    seen: list[str] = []
    patcher = Patcher()
    on_import(patcher, "json", lambda module: seen.append(module.__name__))
    assert seen == ["json"]
    name = "sslcustomize_test_never_imported"
    on_import(patcher, name, lambda module: seen.append(module.__name__))
    patcher.undo()
    sys.modules[name] = types.ModuleType(name)
    try:
        __import__(name)
    finally:
        del sys.modules[name]
    assert seen == ["json"]
