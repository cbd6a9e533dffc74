"""The policy as the trust layer completes it: every trust source checked, the CA variables read.

The policy layer (``_policy_*``) reads, validates and merges files but cannot tell whether a
CA bundle is one OpenSSL reads: that is a trust question, and the policy layer does not import
the trust layer. These entry points pass :func:`._anchors.check_source` down to it and add what
the environment's CA-bundle variables contribute (:mod:`._environment`). Callers above the trust
layer (the runtime, ``inject()``, the CLI) load and parse policies through them.
"""

from __future__ import annotations

from sslcustomize._policy._load import load_layers
from sslcustomize._policy._read import parse_policy as _parse_policy
from sslcustomize._policy._read import read_layer as _read_layer
from sslcustomize._support._frozen import replace
from sslcustomize._trust._anchors import TrustCache, check_source
from sslcustomize._trust._environment import read_environment

TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Mapping

    from sslcustomize._policy._model import LayerFile, Policy

__all__ = ["load_policy", "load_policy_with", "parse_policy", "read_layer"]


def load_policy(
    files: list[tuple[str, str, bool]] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Policy:
    """Read every layer and return the effective policy; never raises for bad files.

    Args:
        files: ``(layer, path, required)`` triples; defaults to every layer's file
            (:func:`.._policy._load.policy_files`).
        environ: Where to read the CA-bundle variables (``REQUESTS_CA_BUNDLE``...);
            defaults to ``os.environ``.

    Returns:
        The merged policy, or the strict fallback with ``errors`` set.
    """
    return load_policy_with(TrustCache(), files, environ=environ)


def load_policy_with(
    trust: TrustCache,
    files: list[tuple[str, str, bool]] | None = None,
    *,
    environ: Mapping[str, str] | None = None,
) -> Policy:
    """:func:`load_policy`, its trust sources checked through ``trust``.

    The runtime made from the policy is given the same cache: what the check read (the
    system store, bundles) is not read again.
    """
    policy = load_layers(files, check_source=trust.check)
    return replace(policy, environment=read_environment(policy.locked, environ, trust=trust))


def parse_policy(text: str, *, path: str, layer: str) -> LayerFile:
    """Validate one policy file, its trust sources checked now.

    Args:
        text: The file's contents.
        path: Its path, used in messages and to resolve relative CA paths.
        layer: ``system``, ``venv``, ``user`` or ``process``.

    Returns:
        The validated settings of that one file.

    Raises:
        PolicyError: The file is not valid TOML or not a valid policy; the error names the
            file, the line and the key.
    """
    return _parse_policy(text, path=path, layer=layer, check_source=check_source)


def read_layer(layer: str, path: str) -> LayerFile:
    """Read and validate one policy file, its trust sources checked now.

    Raises:
        PolicyError: It cannot be read or is not a valid policy.
    """
    return _read_layer(layer, path, check_source=check_source)
