"""Never weaker than Python's default, over the x509-limbo server cases.

SPEC, principle 1: with no exception configured, every verdict equals or is stricter than what
``ssl.create_default_context()`` decides for the same chain and host name. Each case is run as
a real TLS handshake in memory (see ``_limbo``) twice: once by Python's own factory trusting the
case's anchors as ``cadata``, once by the context sslcustomize makes after
``inject(policy=...)`` with a policy whose only trust source is a bundle of the same anchors
(which sslcustomize turns into an OpenSSL hashed directory under the user cache directory).

Both run at the current time, not the case's ``validation_time`` (Python cannot set OpenSSL's
verification time): the two verdicts are compared at the same moment, which is what the
invariant needs.
"""

from __future__ import annotations

import dataclasses
import json
import ssl
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import sslcustomize
from _limbo import (
    Case,
    PeerName,
    Verdict,
    handshake_verdict,
    load_cases,
    skip_reason,
    unverified_error,
)
from sslcustomize._connection._contexts import context_state
from sslcustomize._runtime import _state
from sslcustomize._support._originals import ORIGINAL_CREATE_DEFAULT_CONTEXT
from sslcustomize._trust import _anchors as _trust

RecordProperty = Callable[[str, object], None]
CASES = load_cases()
SERVER_CASES = tuple(case for case in CASES if case.validation_kind == "SERVER")


@pytest.fixture
def workdir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Give each test its own XDG directories and no environment that changes trust."""
    for name in ("XDG_CACHE_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME"):
        monkeypatch.setenv(name, str(tmp_path / name.lower()))
    for name in ("SSL_CERT_FILE", "SSL_CERT_DIR", "SSLCUSTOMIZE_POLICY", "SSLKEYLOGFILE"):
        monkeypatch.delenv(name, raising=False)
    _state.set_policy(None)
    yield tmp_path
    if sslcustomize.is_injected():
        sslcustomize.extract()
    _state.set_policy(None)


def _for_case(context: ssl.SSLContext, case: Case) -> ssl.SSLContext:
    # A limbo case without expected_peer_name asks for chain validation only; both contexts
    # are treated alike, so the comparison stays fair.
    if case.server_hostname is None:
        context.check_hostname = False
    return context


def default_verdict(case: Case) -> Verdict:
    """Return Python's own verdict: its factory, trusting exactly the case's anchors."""
    context = ORIGINAL_CREATE_DEFAULT_CONTEXT(cadata=case.trusted_pem)
    return handshake_verdict(_for_case(context, case), case)


def sslcustomize_verdict(case: Case, directory: Path) -> Verdict:
    """Return sslcustomize's verdict in enforce mode, trusting exactly the case's anchors.

    Raises:
        AssertionError: The context is not sslcustomize's, or its anchors are not the bundle's
            hashed directory (for example, the policy fell back to the system store).
    """
    directory.mkdir(exist_ok=True)
    bundle = directory / "anchors.pem"
    bundle.write_text(case.trusted_pem, encoding="ascii")
    policy = directory / "policy.toml"
    # A JSON string of a plain path is a valid TOML basic string.
    policy.write_text(
        f'version = 1\nmode = "enforce"\ntrust = [{json.dumps(str(bundle))}]\n', encoding="utf-8"
    )
    sslcustomize.inject(policy=policy)
    try:
        context = ssl.create_default_context()
        assert isinstance(context, sslcustomize.PolicyContext)
        decision = context_state(context).decision
        assert decision.mode == "enforce"
        assert not decision.fallback, "the policy file was not accepted"
        assert [str(source) for source in decision.trust] == [str(bundle)]
        anchors = _state.current_runtime().trust.anchors_for(decision.trust)
        probe = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        probe.load_verify_locations(cafile=str(bundle))
        stats = probe.cert_store_stats()
        if stats["x509"] == stats["x509_ca"]:
            assert not anchors.files, "the bundle was loaded directly, not as a hashed directory"
            assert len(anchors.directories) == 1
        else:  # an anchor OpenSSL does not count as a CA: only the file itself holds it
            assert anchors == _trust.Anchors(files=(str(bundle),))
        verdict = handshake_verdict(_for_case(context, case), case)
    finally:
        sslcustomize.extract()
    if verdict.verify_code is not None:
        # A failed verification surfaces as CertificateRejected and keeps OpenSSL's code.
        rejected = verdict.exception
        assert isinstance(rejected, sslcustomize.CertificateRejected)
        original = rejected.__cause__
        assert isinstance(original, ssl.SSLCertVerificationError)
        assert not isinstance(original, sslcustomize.CertificateRejected)
        assert rejected.verify_code == original.verify_code
    return verdict


def report_records(case: Case, directory: Path) -> tuple[Verdict, list[dict[str, object]]]:
    """Run ``case`` in report mode; return the handshake's verdict and the records written."""
    directory.mkdir(exist_ok=True)
    bundle = directory / "anchors.pem"
    bundle.write_text(case.trusted_pem, encoding="ascii")
    sink = directory / "reports.jsonl"
    policy = directory / "report.toml"
    policy.write_text(
        f'version = 1\nmode = "report"\ntrust = [{json.dumps(str(bundle))}]\n'
        f'[report]\nsink = "jsonl"\npath = {json.dumps(str(sink))}\n',
        encoding="utf-8",
    )
    sslcustomize.inject(policy=policy)
    try:
        context = ssl._create_stdlib_context()  # type: ignore[attr-defined]  # what smtplib gets: what report mode is for
        verdict = handshake_verdict(_for_case(context, case), case)
    finally:
        sslcustomize.extract()
    lines = sink.read_text().splitlines() if sink.exists() else []
    return verdict, [json.loads(line) for line in lines]


@pytest.mark.parametrize("case", SERVER_CASES, ids=[case.id for case in SERVER_CASES])
def test_report_mode_records_the_enforce_verdict(case: Case, workdir: Path) -> None:
    """Report mode lets the connection proceed and records exactly enforce mode's verdict."""
    reason = skip_reason(case) or unverified_error(case)
    if reason is not None:
        pytest.skip(reason)
    enforce = sslcustomize_verdict(case, workdir / "enforce")
    proceeded, records = report_records(case, workdir / "report")
    assert proceeded.accepted, f"report mode broke the connection: {proceeded.error}"
    failures = [r for r in records if r["verdict"] != "accepted"]
    if enforce.accepted:
        assert failures == []
        return
    assert isinstance(enforce.exception, sslcustomize.CertificateRejected)
    assert len(failures) == 1
    reasons = [r for r in failures[0]["reasons"] if r != "code_opt_out"]  # type: ignore[attr-defined]
    assert tuple(reasons) == enforce.exception.reasons


def _describe(verdict: Verdict) -> str:
    if verdict.accepted:
        return "accepted"
    return f"rejected (verify_code={verdict.verify_code}): {verdict.error}"


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
def test_never_weaker_than_default(
    case: Case, workdir: Path, record_property: RecordProperty
) -> None:
    """A limbo case Python's default rejects is rejected by sslcustomize in enforce mode too."""
    reason = skip_reason(case)
    if reason is not None:
        pytest.skip(reason)
    default = default_verdict(case)
    ours = sslcustomize_verdict(case, workdir / "case")
    record_property("expected", case.expected_result)
    record_property("default", _describe(default))
    record_property("sslcustomize", _describe(ours))
    if not default.accepted and not ours.accepted:
        record_property("verify_codes_agree", default.verify_code == ours.verify_code)
    assert ours.accepted <= default.accepted, (
        f"WEAKER than Python's default on {case.id}: sslcustomize accepted what the default "
        f"{_describe(default)}"
    )


@dataclass(slots=True)
class _Counts:
    runnable: int = 0
    skipped: int = 0
    default_agrees: int = 0
    ours_agrees: int = 0
    stricter: int = 0
    both_reject: int = 0
    codes_agree: int = 0
    rejected_before_verification: int = 0

    def __str__(self) -> str:
        return (
            f"{self.runnable} runnable server cases ({self.skipped} skipped); agree with "
            f"expected_result: Python's default {self.default_agrees}, sslcustomize "
            f"{self.ours_agrees}; sslcustomize stricter {self.stricter}; both reject "
            f"{self.both_reject} (same verify code {self.codes_agree}); rejected before "
            f"verification by any client with Python's defaults "
            f"{self.rejected_before_verification}"
        )


def test_limbo_summary(workdir: Path, record_property: RecordProperty) -> None:
    """Across all runnable server cases sslcustomize never accepts what the default rejects."""
    counts = _Counts()
    weaker = []
    for index, case in enumerate(SERVER_CASES):
        if skip_reason(case) is not None:
            counts.skipped += 1
            continue
        counts.runnable += 1
        default = default_verdict(case)
        ours = sslcustomize_verdict(case, workdir / f"case{index}")
        counts.default_agrees += default.accepted == case.expected_success
        counts.ours_agrees += ours.accepted == case.expected_success
        counts.stricter += default.accepted and not ours.accepted
        counts.rejected_before_verification += unverified_error(case) is not None
        if not default.accepted and not ours.accepted:
            counts.both_reject += 1
            counts.codes_agree += default.verify_code == ours.verify_code
        if ours.accepted and not default.accepted:
            weaker.append(f"{case.id}: default {_describe(default)}")
    record_property("limbo_summary", str(counts))
    print(f"x509-limbo: {counts}")
    assert not weaker, f"sslcustomize WEAKER than Python's default on {weaker}; {counts}"
    # The comparison means something only if the harness sees both verdicts.
    assert 0 < counts.default_agrees <= counts.runnable, counts
    assert counts.runnable + counts.skipped == len(SERVER_CASES)


def _case(case_id: str) -> Case:
    return next(case for case in CASES if case.id == case_id)


def test_harness_sees_acceptance_and_both_kinds_of_rejection(workdir: Path) -> None:
    """The harness accepts a good chain, and rejects it for a wrong host or a wrong CA."""
    good = _case("webpki::san::exact-dns-san")
    assert good.expected_success
    assert skip_reason(good) is None
    assert default_verdict(good).accepted
    assert sslcustomize_verdict(good, workdir / "good").accepted

    name = PeerName(kind="DNS", value="not-" + str(good.server_hostname))
    wrong_host = dataclasses.replace(good, id="wrong-host", expected_peer_name=name)
    verdict = sslcustomize_verdict(wrong_host, workdir / "host")
    assert (default_verdict(wrong_host).accepted, verdict.accepted) == (False, False)
    assert verdict.verify_code == 62  # X509_V_ERR_HOSTNAME_MISMATCH

    other_root = _case("rfc5280::chain-untrusted-root").trusted_certs
    wrong_ca = dataclasses.replace(good, id="wrong-ca", trusted_certs=other_root)
    verdict = sslcustomize_verdict(wrong_ca, workdir / "ca")
    assert (default_verdict(wrong_ca).accepted, verdict.accepted) == (False, False)
    assert verdict.verify_code == 20  # X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY
