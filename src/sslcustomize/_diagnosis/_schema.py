"""A JSON Schema for ``policy.toml``, for editors that validate and complete TOML files.

The values it lists (modes, TLS versions, sinks, lockable keys, the pin syntax) are the
loader's; tests/unit/diagnosis/test_schema.py checks each against
:func:`.._policy._read.parse_policy`, so the two cannot drift apart unnoticed. The loader
checks more than a schema can say (host patterns, that CA files exist, that only the system
layer locks): a file the schema accepts may still be refused by the loader, never the
reverse for what the schema covers.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LOCKABLE", "MODES", "SCHEMA_ID", "SINKS", "TLS_VERSIONS", "policy_schema"]

# The loader's values (sslcustomize._policy._model); tests/unit/diagnosis/test_schema.py holds
# them equal.
MODES = ("enforce", "report")
TLS_VERSIONS = ("1.2", "1.3")
SINKS = ("sqlite", "jsonl", "journal", "syslog", "log", "none")
LOCKABLE = ("mode", "trust", "minimum_tls", "allow_code_opt_out", "exception", "context", "report")

SCHEMA_ID = "https://sslcustomize.invalid/schema/policy-1.json"

_PIN_PATTERN = r"^\s*sha256/[A-Za-z0-9+/]{43}=\s*$"


def _strings(description: str, **item: Any) -> dict[str, Any]:
    return {"type": "array", "items": {"type": "string", **item}, "description": description}


def policy_schema() -> dict[str, Any]:
    """Return the JSON Schema (draft 2020-12) of a version 1 policy file."""
    mode = {"enum": list(MODES), "description": "enforce rejects failures; report records them"}
    trust = _strings(
        '"system", "certifi", or a path to a PEM bundle or hashed directory', minLength=1
    )
    minimum_tls = {"enum": list(TLS_VERSIONS), "description": "the lowest TLS version allowed"}
    opt_out = {"type": "boolean", "description": "obey code that turns verification off"}
    exception = {
        "type": "object",
        "additionalProperties": False,
        "required": ["host", "reason"],
        "properties": {
            "host": {
                "type": "string",
                "minLength": 1,
                "description": 'a name, "*.parent", an IP address or CIDR network, with '
                '":port" optional ("[v6]:port")',
            },
            "pin": _strings("sha256/BASE64 of the server key's SPKI", pattern=_PIN_PATTERN),
            "ca": _strings("extra trust anchors for this host only (PEM files)", minLength=1),
            "check_hostname": {"type": "boolean", "description": "false only with pin"},
            "mode": mode,
            "expires": {
                "type": "string",
                "format": "date",
                "description": "a TOML date (2027-03-01); on and after it, no longer applied",
            },
            "reason": {"type": "string", "description": "why it exists: a ticket, an owner"},
        },
        "anyOf": [
            {"required": ["pin"], "properties": {"pin": {"minItems": 1}}},
            {"required": ["ca"], "properties": {"ca": {"minItems": 1}}},
            {"required": ["mode"]},
        ],
        "if": {"required": ["check_hostname"], "properties": {"check_hostname": {"const": False}}},
        "then": {"required": ["pin"], "properties": {"pin": {"minItems": 1}}},
    }
    context = {
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "mode": mode,
            "trust": trust,
            "minimum_tls": minimum_tls,
            "allow_code_opt_out": opt_out,
        },
    }
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "sslcustomize policy",
        "description": "A layer of the sslcustomize TLS verification policy (docs/policy.md).",
        "type": "object",
        "additionalProperties": False,
        "properties": {
            "version": {"const": 1, "description": "the schema version"},
            "mode": mode,
            "trust": trust,
            "minimum_tls": minimum_tls,
            "allow_code_opt_out": opt_out,
            "exception_days": {
                "type": "integer",
                "minimum": 0,
                "maximum": 36500,
                "description": "days an exception added by `sslcustomize trust` lives unless "
                "told (--days, --expires); 0 for no expiry",
            },
            "lock": {
                "type": "array",
                "items": {"enum": list(LOCKABLE)},
                "description": "system layer only: keys later layers may not change",
            },
            "report": {
                "type": "object",
                "additionalProperties": False,
                "properties": {
                    "sink": {"enum": list(SINKS)},
                    "path": {"type": "string", "minLength": 1},
                    "group": {"type": "string", "minLength": 1},
                    "quiet": {
                        "type": "boolean",
                        "description": "records only, no warnings on programs' stderr "
                        "(default: true where the system layer exists)",
                    },
                },
            },
            "exception": {"type": "array", "items": exception},
            "context": {"type": "object", "additionalProperties": context},
        },
    }
