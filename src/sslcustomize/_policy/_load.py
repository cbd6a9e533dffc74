"""Load the policy: locate every layer, read it, merge them, or fall back closed on any error.

Layers, in order: system, venv, user, process (``SSLCUSTOMIZE_POLICY``). Lists (``trust``,
``exception``) accumulate; scalars override; the system layer's ``lock`` keeps later layers
from changing the keys it names, wherever the key appears (top level, ``[context.*]``,
``[[exception]]``). Any error makes :func:`load_layers` return the fail-closed fallback
together with the error: a valid system layer exactly as written (its locks included) in
enforce mode, or, when the system layer itself is broken, the strict defaults.

Merging (:func:`merge_layers`) and the fallback (:func:`fallback_policy`) live here with the
loading: one module on a hooked process's first context instead of two (issue 35).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

from sslcustomize._policy._hosts import HostIndex
from sslcustomize._policy._model import (
    MINIMUM_VERSIONS,
    SYSTEM_TRUST,
    ContextRule,
    HostException,
    LayerFile,
    Origin,
    Policy,
    Setting,
    TrustSource,
)
from sslcustomize._policy._read import read_layer
from sslcustomize._support import _bootstrap as _startup
from sslcustomize._support._frozen import replace

TYPE_CHECKING = False
if TYPE_CHECKING:
    import ssl
    from collections.abc import Callable
    from typing import Any, TypeAlias

    from sslcustomize._policy._read import SourceCheck
    from sslcustomize.exceptions import PolicyError

    # allowed(key, origin, layer) -> whether ``layer`` may set ``key`` (said when it may not).
    Allowed: TypeAlias = Callable[[str, Origin | None, LayerFile], bool]

__all__ = ["fallback_policy", "load_layers", "merge_layers", "policy_files"]


def policy_files() -> list[tuple[str, str, bool]]:
    """Return ``(layer, path, required)`` for every file that makes up the policy, in order.

    System, venv and user files are read when they exist; files named by
    ``SSLCUSTOMIZE_POLICY`` must exist.
    """
    files = [(layer, path, False) for layer, path in _startup.layer_paths()]
    files += [("process", path, True) for path in _startup.process_policy_paths()]
    return files


def _absent(path: str) -> bool:
    """Tell whether an optional layer's file is absent (not merely unreadable).

    A dangling symlink or a directory this user cannot search is not absence: reading it
    fails, and the failure is an error (fail closed), never "no policy".
    """
    try:
        os.lstat(path)
    except (FileNotFoundError, NotADirectoryError):
        return True
    except OSError:
        return False
    return False


def load_layers(
    files: list[tuple[str, str, bool]] | None = None, *, check_source: SourceCheck
) -> Policy:
    """Read every layer and return the merged policy; never raises for bad files.

    The CA-bundle variables are not read here: the trust layer adds them
    (``_trust._checked_policy.load_policy``), as it checks the trust sources.

    Args:
        files: ``(layer, path, required)`` triples; defaults to :func:`policy_files`.
        check_source: Checks that a trust source works now (see :func:`parse_policy`).

    Returns:
        The merged policy, or the strict fallback with ``errors`` set.
    """
    layers: list[LayerFile] = []
    errors: list[PolicyError] = []
    for layer, path, required in files if files is not None else policy_files():
        if not required and _absent(path):
            continue
        try:
            layers.append(read_layer(layer, path, check_source=check_source))
        except Exception as exc:
            from sslcustomize.exceptions import PolicyError  # noqa: PLC0415 - loaded with an error, not by a first context

            if not isinstance(exc, PolicyError):
                raise
            errors.append(exc)
    if errors:
        return fallback_policy(errors, layers)
    return merge_layers(layers)


# --- Merging ----------------------------------------------------------------------------------

_CONTEXT_LOCKS = ("mode", "trust", "minimum_tls", "allow_code_opt_out")


def merge_layers(layers: list[LayerFile]) -> Policy:
    """Merge validated layers in order, honouring the system layer's locks.

    Args:
        layers: Validated files, system layer first.

    Returns:
        The effective policy; ``warnings`` lists every locked key a later layer tried to set.
    """
    merge = _Merge()
    for layer in layers:
        merge.add(layer)
    return merge.policy(layers)


class _Merge:
    """A merge in progress: what the layers read so far set, and the locks in force."""

    def __init__(self) -> None:
        self.scalars: dict[str, Setting[Any]] = {}
        self.trust: list[TrustSource] | None = None  # None until a layer names trust
        self.exceptions: list[HostException] = []
        self.contexts: dict[str, ContextRule] = {}
        self.locked: dict[str, Origin] = {}
        self.warnings: list[str] = []

    def allowed(self, key: str, origin: Origin | None, layer: LayerFile) -> bool:
        """Tell whether ``layer`` may set ``key``; if not, say so in ``warnings``."""
        if key not in self.locked or layer.layer == "system":
            return True
        where = origin or Origin(layer=layer.layer, path=layer.path)
        self.warnings.append(
            f"{where}: {key!r} is locked by {self.locked[key]}; the locked value stands"
        )
        return False

    def add(self, layer: LayerFile) -> None:
        """Merge one layer over the ones before it, then take on its locks."""
        self._add_scalars(layer)
        self._add_trust(layer)
        self._add_exceptions(layer)
        self._add_contexts(layer)
        self.locked.update(layer.lock)

    def _add_scalars(self, layer: LayerFile) -> None:
        for key, setting in layer.scalars.items():
            lock_key = "report" if key.startswith("report_") else key
            if self.allowed(lock_key, setting.origin, layer):
                self.scalars[key] = setting

    def _add_trust(self, layer: LayerFile) -> None:
        if not layer.trust or not self.allowed("trust", layer.trust_origin, layer):
            return
        if self.trust is None:
            self.trust = []  # the first layer that names trust replaces the built-in default
        trust = self.trust
        trust.extend(s for s in layer.trust if s not in trust)

    def _add_exceptions(self, layer: LayerFile) -> None:
        if not layer.exceptions or not self.allowed("exception", layer.exceptions[0].origin, layer):
            return
        kept = [_locked_exception(e, layer, self.allowed) for e in layer.exceptions]
        self.exceptions.extend(e for e in kept if e is not None)

    def _add_contexts(self, layer: LayerFile) -> None:
        for name, rule in layer.contexts.items():
            if not self.allowed("context", rule.origin, layer):
                continue
            old = self.contexts.get(name)
            self.contexts[name] = _merge_context(old, rule, self.locked, layer, self.allowed)

    def policy(self, layers: list[LayerFile]) -> Policy:
        """Return the effective policy: what the layers set, the defaults for the rest."""
        scalars, defaults = self.scalars, Policy()
        return Policy(
            mode=scalars.get("mode", defaults.mode),
            minimum_tls=scalars.get("minimum_tls", defaults.minimum_tls),
            allow_code_opt_out=scalars.get("allow_code_opt_out", defaults.allow_code_opt_out),
            report_sink=scalars.get("report_sink", defaults.report_sink),
            report_path=scalars.get("report_path", defaults.report_path),
            report_group=scalars.get("report_group", defaults.report_group),
            report_quiet=scalars.get("report_quiet", defaults.report_quiet),
            exception_days=scalars.get("exception_days", defaults.exception_days),
            trust=tuple(self.trust) if self.trust is not None else SYSTEM_TRUST,
            exceptions=tuple(self.exceptions),
            contexts=self.contexts,
            locked=self.locked,
            files=tuple(layers),
            warnings=tuple(self.warnings),
            index=HostIndex((e.host, e) for e in self.exceptions),
        )


def _locked_exception(
    exception: HostException, layer: LayerFile, allowed: Allowed
) -> HostException | None:
    """Apply a lock on ``mode`` to an exception's own ``mode`` (a per-host mode is a mode).

    The locked mode stands: the exception keeps its pins and CAs; one that only changed the
    mode then changes nothing and is dropped.
    """
    if exception.mode is None or allowed("mode", exception.mode_origin, layer):
        return exception
    if not exception.pins and not exception.ca:
        return None
    return replace(exception, mode=None, mode_origin=None)


def _merge_context(
    old: ContextRule | None,
    new: ContextRule,
    locked: Mapping[str, Origin],
    layer: LayerFile,
    allowed: Allowed,
) -> ContextRule:
    values: dict[str, Any] = {}
    for key in _CONTEXT_LOCKS:
        setting = getattr(new, key)
        if setting is not None and (key not in locked or allowed(key, setting.origin, layer)):
            values[key] = setting
        elif old is not None:
            values[key] = getattr(old, key)
    return ContextRule(name=new.name, origin=new.origin, **values)


def _version(setting: Setting[str]) -> ssl.TLSVersion:
    """The TLS version a ``minimum_tls`` setting names (compared as a version, not as text)."""
    return MINIMUM_VERSIONS[setting.value]


def fallback_policy(errors: list[PolicyError], layers: list[LayerFile]) -> Policy:
    """Return the fail-closed fallback after ``errors``.

    A valid system layer stands exactly as written, its locks included, in enforce mode: a
    typo in a user file must not drop the administrator's trust list or locks. Without one (no
    system file, or the system file is the broken one) the strict defaults apply: system
    trust, enforce, no exceptions, no named contexts.

    Stricter settings that other valid layers chose still hold unless the system layer locked
    them: the highest ``minimum_tls`` and ``allow_code_opt_out = false``. A broken file never
    loosens anything.

    Args:
        errors: Why the files could not be used (at least one).
        layers: The files that were read and are valid, in merge order.
    """
    system = [layer for layer in layers if layer.layer == "system"]
    base = merge_layers(system) if system else Policy()
    minimum = max(
        (
            lay.scalars["minimum_tls"]
            for lay in layers
            if "minimum_tls" in lay.scalars and "minimum_tls" not in base.locked
        ),
        key=_version,
        default=base.minimum_tls,
    )
    minimum = max(minimum, base.minimum_tls, key=_version)
    refusals = [
        lay.scalars["allow_code_opt_out"]
        for lay in layers
        if "allow_code_opt_out" in lay.scalars
        and not lay.scalars["allow_code_opt_out"].value
        and "allow_code_opt_out" not in base.locked
    ]
    allow = base.allow_code_opt_out
    if allow.value and refusals:
        allow = refusals[0]
    return replace(
        base,
        mode=Setting(value="enforce"),
        minimum_tls=minimum,
        allow_code_opt_out=allow,
        files=tuple(system),
        errors=tuple(errors),
        warnings=(),
    )
