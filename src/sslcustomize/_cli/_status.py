"""``sslcustomize status``: the policy in one line, for a prompt, a login banner or a monitor."""

from __future__ import annotations

import argparse
import datetime as dt
import os
from typing import Any

from sslcustomize._cli import EXIT_OK, EXIT_USAGE
from sslcustomize._cli._output import print_json
from sslcustomize._cli._trusted import SOON_DAYS
from sslcustomize._policy._load import policy_files
from sslcustomize._support._escape import visible
from sslcustomize._trust._checked_policy import load_policy

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``status``."""
    parser = commands.add_parser(
        "status",
        help="one line: mode, layers, exceptions and those expiring, errors",
        description="Print the effective policy in one line: its mode, the layers in effect, "
        f"the number of exceptions and how many expire within {SOON_DAYS} days or have "
        "expired, and the number of errors. Exit 0, or 2 when the policy has errors (the "
        "fail-closed fallback applies; `sslcustomize doctor` lists them).",
    )
    parser.add_argument("--json", action="store_true", help="print a JSON document")
    parser.set_defaults(handler=run)


def gather(today: dt.date | None = None) -> dict[str, Any]:
    """Collect the facts of the status line, as plain data."""
    today = today or dt.date.today()
    policy = load_policy()
    present = [
        {"layer": layer, "path": path}
        for layer, path, required in policy_files()
        if required or os.path.lexists(path)
    ]
    # Counted over every layer's exceptions that the merge kept, expired ones included: an
    # expired exception is still written in a file, waiting for a renewal or a removal.
    exceptions = policy.exceptions
    expired = [e for e in exceptions if e.expired(today)]
    soon = [
        e
        for e in exceptions
        if e.expires is not None
        and not e.expired(today)
        and e.expires <= today + dt.timedelta(days=SOON_DAYS)
    ]
    return {
        "configured": bool(present),
        "mode": policy.mode.value,
        "fallback": policy.fallback,
        # In effect: under the fail-closed fallback, only a valid system layer (or none).
        "layers": [layer.layer for layer in policy.files],
        "files": present,
        "exceptions": len(exceptions),
        "expiring": len(soon),
        "expiring_within_days": SOON_DAYS,
        "expired": len(expired),
        "errors": [str(error) for error in policy.errors],
        "warnings": len(policy.warnings),
    }


def line(facts: dict[str, Any]) -> str:
    """Say the status in one line."""
    if not facts["configured"]:
        return "sslcustomize: idle (no policy file; turn it on with `sslcustomize enable`)"
    mode = facts["mode"] + (" (fallback: policy errors)" if facts["fallback"] else "")
    count = facts["exceptions"]
    exceptions = f"{count} exception{'' if count == 1 else 's'}"
    if count:
        exceptions += (
            f" ({facts['expiring']} expiring within {facts['expiring_within_days']} days, "
            f"{facts['expired']} expired)"
        )
    errors = len(facts["errors"])
    problems = f"{errors} error{'' if errors == 1 else 's'}" if errors else "no errors"
    if errors:
        problems += " (sslcustomize doctor lists them)"
    layers = ", ".join(facts["layers"]) or "none (strict defaults)"
    return f"sslcustomize: {mode}; layers {layers}; {exceptions}; {problems}"


def run(args: argparse.Namespace) -> int:
    """Print the line (or the document); exit 2 when the policy has errors."""
    facts = gather()
    status = EXIT_USAGE if facts["errors"] else EXIT_OK
    if args.json:
        print_json(facts)
    else:
        print(visible(line(facts)))
    return status
