"""``sslcustomize run``: run one program (and its Python children) under the policy."""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from typing import Any

from sslcustomize._cli import EXIT_USAGE
from sslcustomize._cli._bundle import BUNDLE_VARIABLES, Bundle, write_bundle
from sslcustomize._cli._output import fail, json_text
from sslcustomize._policy._load import policy_files
from sslcustomize._policy._model import Policy
from sslcustomize._support._files import atomic_write, trusted_path
from sslcustomize._support._paths import ENV_POLICY, process_policy_paths
from sslcustomize._trust._checked_policy import load_policy
from sslcustomize.exceptions import TrustError

__all__ = ["register"]


def register(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add ``run``."""
    parser = commands.add_parser(
        "run",
        help="run a program under the policy without enabling anything",
        description="Run COMMAND with the policy applied to it and to the Python programs it "
        "starts (through SSLCUSTOMIZE_POLICY; their Python must have sslcustomize). Programs "
        "it cannot hook (curl, git, node, a Python without sslcustomize) get the policy's "
        "trust: SSL_CERT_FILE, CURL_CA_BUNDLE, GIT_SSL_CAINFO, NODE_EXTRA_CA_CERTS and "
        "REQUESTS_CA_BUNDLE name one bundle of every anchor the policy trusts (the system "
        "store included), never the extra CAs alone.",
    )
    parser.add_argument("--policy", metavar="FILE", help="use FILE as the process layer")
    parser.add_argument("--mode", choices=("enforce", "report"), help="override the mode")
    parser.add_argument(
        "--ca",
        metavar="FILE",
        action="append",
        default=[],
        help="also trust this CA bundle (adds to the policy's trust, never replaces it)",
    )
    parser.add_argument(
        "--quiet", action="store_true", help="do not say which programs get what (on stderr)"
    )
    parser.add_argument(
        "--json",
        metavar="FILE",
        help="when COMMAND ends, write a JSON document to FILE ('-': stderr): the policy it "
        "ran under and its exit status (COMMAND's own output keeps stdout and stderr)",
    )
    parser.add_argument("command", nargs=argparse.REMAINDER, metavar="-- COMMAND [ARGS...]")
    parser.set_defaults(handler=run)


def _overrides(args: argparse.Namespace, files: list[tuple[str, str, bool]]) -> str:
    """Return the process layer for ``run``, written by tomlkit (file names are data, not TOML)."""
    import tomlkit  # noqa: PLC0415 - only for this command

    document = tomlkit.document()
    document.add(tomlkit.comment("written by `sslcustomize run` for one program"))
    document.add("version", 1)
    if args.mode:
        document.add("mode", args.mode)
    if args.ca:
        cas = [os.path.abspath(ca) for ca in args.ca]
        # The first layer that names trust replaces the built-in ["system"]: keep it.
        explicit = any(layer.trust for layer in load_policy(files).files)
        document.add("trust", cas if explicit else ["system", *cas])
    return tomlkit.dumps(document)


def run(args: argparse.Namespace) -> int:
    """Run the command and return its exit status; with ``--json FILE``, describe the run."""
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    facts: dict[str, Any] = {"command": command}
    status = _run(args, command, facts)
    if args.json is not None:
        _write_json(args.json, facts)
    return status


def _write_json(destination: str, facts: dict[str, Any]) -> None:
    """Write the run's document to ``destination`` (atomically), or to stderr for ``-``."""
    text = json_text(facts)
    if destination == "-":
        sys.stderr.write(text)
        return
    try:
        atomic_write(os.path.abspath(destination), text)
    except OSError as error:
        sys.stderr.write(f"sslcustomize: --json {destination}: {error.strerror or error}\n")


def _refuse(facts: dict[str, Any], message: str, code: int = EXIT_USAGE) -> int:
    facts["error"] = {"message": message, "exit": code}
    return fail(message, code)


def _describe(policy: Policy, bundle: Bundle | None) -> dict[str, Any]:
    """What the child ran under: the policy's mode, files, trust and errors, and the bundle."""
    return {
        "mode": policy.mode.value,
        "files": [{"layer": layer.layer, "path": layer.path} for layer in policy.files],
        "trust": [str(source) for source in policy.trust],
        "exceptions": len(policy.exceptions),
        "errors": [str(error) for error in policy.errors],
        "bundle": None
        if bundle is None
        else {"anchors": bundle.count, "variables": list(BUNDLE_VARIABLES)},
    }


def _run(  # noqa: PLR0911 - one refusal per bad input
    args: argparse.Namespace, command: list[str], facts: dict[str, Any]
) -> int:
    if not command:
        return _refuse(
            facts, "nothing to run: write sslcustomize run [OPTIONS] -- COMMAND [ARGS...]"
        )
    if shutil.which(command[0]) is None:
        return _refuse(facts, f"command not found: {command[0]}", EXIT_USAGE)
    for ca in args.ca:
        if not os.path.isfile(ca):
            return _refuse(facts, f"--ca {ca}: no such file")
    if args.policy and not os.path.isfile(args.policy):
        return _refuse(facts, f"--policy {args.policy}: no such file")
    process = [os.path.abspath(args.policy)] if args.policy else process_policy_paths()
    files = [f for f in policy_files() if f[0] != "process"]
    files += [("process", path, True) for path in process]
    with tempfile.TemporaryDirectory(prefix="sslcustomize-run-") as directory:
        # The children read the process layer and the bundle from there while they run: under
        # a directory another user may write (a TMPDIR that is not sticky), they could rename
        # ours away and put their own policy and CAs in its place.
        if not trusted_path(directory):
            return _refuse(
                facts,
                f"the temporary directory {os.path.dirname(directory)} is one another user can "
                "change: set TMPDIR to a directory of your own (or a sticky one, such as /tmp)",
            )
        overrides = os.path.join(directory, "overrides.toml")
        with open(overrides, "w", encoding="utf-8") as file:
            file.write(_overrides(args, files))
        env = dict(os.environ)
        env[ENV_POLICY] = os.pathsep.join([*process, overrides])
        policy = load_policy([*files, ("process", overrides, True)])
        try:
            bundle = write_bundle(policy, os.path.join(directory, "trust.pem"))
        except (TrustError, OSError) as error:
            bundle = None
            sys.stderr.write(
                f"sslcustomize run: programs that sslcustomize cannot hook keep their own "
                f"trust: the policy's could not be written as one bundle ({error})\n"
            )
        if bundle is not None:
            env.update(dict.fromkeys(BUNDLE_VARIABLES, bundle.path))
            if not args.quiet:
                sys.stderr.write(_announcement(bundle, policy))
        facts["policy"] = _describe(policy, bundle)
        try:
            status = subprocess.call(command, env=env)  # noqa: S603 - the user's own command
        except OSError as error:
            return _refuse(facts, f"cannot run {command[0]}: {error.strerror}")
        finally:
            sys.stdout.flush()
        # A child ended by a signal: Python says -N; a shell would say 128 + N.
        facts["exit"] = status
        facts["signal"] = -status if status < 0 else None
        return status


def _announcement(bundle: Bundle, policy: Policy) -> str:
    """Say once which children get the whole policy and which only its trust."""
    locked = (
        " (under the system lock on trust, sslcustomize-hooked programs ignore these variables "
        "and say so)"
        if "trust" in policy.locked
        else ""
    )
    return (
        "sslcustomize run: Python programs with sslcustomize run under the full policy; other "
        f"programs (curl, git, node, Pythons without it) get only its trust, "
        f"{bundle.count} anchors{_made_of(bundle)} through "
        f"{', '.join(BUNDLE_VARIABLES)}{locked}\n"
    )


def _made_of(bundle: Bundle) -> str:
    if bundle.extra == bundle.count:
        return ""
    return f" (the system store and {bundle.extra} more)" if bundle.extra else " (the system store)"
