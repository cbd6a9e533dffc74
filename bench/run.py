"""Measure sslcustomize against its baselines and print the ratios, all in one run.

Usage::

    python bench/run.py [--quick] [--only contexts|https|startup] [--json FILE]

Run it with the interpreter of an environment where sslcustomize is installed from a wheel
(non-editable: the ``.pth`` startup hook must be in site-packages) together with trustme.
Every comparison measures its own baseline in the same run, alternating baseline and
candidate rounds so that drift of the machine (other processes, frequency scaling, a warm
page cache) hits both alike, and reports the median over the rounds. See docs/benchmarks.md.

Comparisons:

* context creation: ``ssl.create_default_context()`` as Python has it, against the same call
  after ``sslcustomize.inject(policy=...)`` under a default policy; once with the environment
  as it is and once without ``SSL_CERT_FILE``/``SSL_CERT_DIR``;
* an HTTPS request (a new TLS connection each) to a loopback server with http.client,
  urllib3, requests and httpx: each library's default path under sslcustomize and under the
  floor hook (bench/floor_hook.py) against a context cached by hand, and http.client's also
  against today's default path, which builds a context per connection; two runs, each
  line with both runs' figures;
* interpreter startup in a throw-away virtual environment, with the startup hook absent,
  installed without a policy, and enabled.

Exit status: 0 whatever the figures (a benchmark reports, it does not gate); 2 on a usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import importlib.metadata
import importlib.util
import json
import operator
import os
import platform
import random
import re
import resource
import shutil
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import venv
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

JSON_VERSION = 1
DEFAULT_POLICY = "version = 1\n"
POLICY_ENV = "SSLCUSTOMIZE_POLICY"
CERT_ENV = ("SSL_CERT_FILE", "SSL_CERT_DIR")
HTTPS_GOAL = 1.03  # issue 35 #4: at the floor, on every Python and every hooked library


# --- Figures -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Settings:
    """How much to measure: ``--quick`` trades precision for time."""

    ctx_rounds: int
    ctx_baseline_calls: int
    ctx_candidate_calls: int
    https_rounds: int
    https_requests: int
    startup_rounds: int


FULL = Settings(
    ctx_rounds=11,
    ctx_baseline_calls=15,
    ctx_candidate_calls=300,
    https_rounds=41,
    https_requests=10,
    startup_rounds=150,
)
QUICK = Settings(
    ctx_rounds=5,
    ctx_baseline_calls=8,
    ctx_candidate_calls=100,
    https_rounds=11,
    https_requests=8,
    startup_rounds=30,
)


@dataclass(frozen=True, slots=True, kw_only=True)
class Result:
    """One comparison: a baseline, a candidate, and how the candidate did against the goal.

    ``kind`` is ``"ratio"`` (candidate / baseline, goal a maximum ratio) or ``"delta"``
    (candidate - baseline in milliseconds, goal a maximum delta). ``value`` is the median of
    the per-round ratios or deltas: each round pairs a baseline figure with the candidate
    figure measured right next to it. ``goal`` is ``None`` for figures shown for information.
    ``cpu_delta_ms`` (start-up only) is the same median delta of the child's CPU time (user +
    system), which other load on the machine disturbs less than wall-clock time.
    """

    name: str
    kind: str
    baseline_ms: float
    candidate_ms: float
    value: float
    goal: float | None
    rounds: int
    baseline_rounds_ms: list[float] = field(default_factory=list)
    candidate_rounds_ms: list[float] = field(default_factory=list)
    cpu_delta_ms: float | None = None
    note: str = ""

    @property
    def verdict(self) -> str:
        """Return PASS, MISS or INFO."""
        if self.goal is None:
            return "INFO"
        return "PASS" if self.value <= self.goal else "MISS"


@dataclass(frozen=True, slots=True, kw_only=True)
class Failure:
    """A benchmark that could not run, and why."""

    name: str
    error: str


def paired(
    name: str,
    *,
    kind: str,
    baseline: Sequence[float],
    candidate: Sequence[float],
    goal: float | None,
    cpu: tuple[Sequence[float], Sequence[float]] | None = None,
    note: str = "",
) -> Result:
    """Summarize paired rounds (seconds) into a :class:`Result`.

    ``cpu`` holds the baseline's and the candidate's CPU times, for a delta of those too.
    """
    if kind == "ratio":
        per_round = [c / b for b, c in zip(baseline, candidate, strict=True)]
    else:
        per_round = [(c - b) * 1e3 for b, c in zip(baseline, candidate, strict=True)]
    return Result(
        name=name,
        kind=kind,
        baseline_ms=statistics.median(baseline) * 1e3,
        candidate_ms=statistics.median(candidate) * 1e3,
        value=statistics.median(per_round),
        goal=goal,
        rounds=len(per_round),
        baseline_rounds_ms=[round(b * 1e3, 6) for b in baseline],
        candidate_rounds_ms=[round(c * 1e3, 6) for c in candidate],
        cpu_delta_ms=(
            None
            if cpu is None
            else statistics.median((c - b) * 1e3 for b, c in zip(*cpu, strict=True))
        ),
        note=note,
    )


def _ms(value: float) -> str:
    return f"{value:.3f} ms" if value < 1 else f"{value:.2f} ms"


def format_line(result: Result | Failure) -> str:
    """Render one comparison as a line of the report."""
    if isinstance(result, Failure):
        return f"{result.name:<50} ERROR: {result.error}"
    if result.kind == "ratio":
        value = f"{result.value:.4f}x"
        goal = "-" if result.goal is None else f"<= {result.goal:g}x"
    else:
        value = f"{result.value:+.2f} ms"
        goal = "-" if result.goal is None else f"<= +{result.goal:g} ms"
    line = (
        f"{result.name:<50} {_ms(result.baseline_ms):>10} {_ms(result.candidate_ms):>10} "
        f"{value:>10}  {goal:<12} {result.verdict}"
    )
    if result.cpu_delta_ms is not None:
        line += f"  (cpu {result.cpu_delta_ms:+.2f} ms)"
    if result.note:
        line += f"  [{result.note}]"
    return line


HEADER = (
    f"{'comparison':<50} {'baseline':>10} {'candidate':>10} {'result':>10}  {'goal':<12} verdict"
)


# --- Workers (run in fresh interpreters) -------------------------------------------------------


def _timed_batch(function: Callable[[], object], calls: int) -> float:
    """Return the median time of one call, in seconds, over a batch of ``calls`` calls.

    The median rather than the mean: on a shared 2-core machine a call now and then loses
    its core to another process, and one such call would move the mean of a whole batch.
    """
    times = []
    clock = time.perf_counter
    for _ in range(calls):
        start = clock()
        function()
        times.append(clock() - start)
    return statistics.median(times)


def worker_contexts(config: dict[str, Any]) -> None:
    """Time Python's create_default_context against sslcustomize's, in one process."""
    import sslcustomize
    from sslcustomize._support import _originals

    original = _originals.ORIGINAL_CREATE_DEFAULT_CONTEXT
    if getattr(original, "__module__", None) != "ssl" or original is not ssl.create_default_context:
        raise RuntimeError("ssl.create_default_context was already replaced (is a policy active?)")
    sslcustomize.inject(policy=config["policy"])
    candidate = ssl.create_default_context
    if candidate is original:
        raise RuntimeError("inject() did not replace ssl.create_default_context")
    # Warm up: the first candidate call reads the policy and fills the CA cache.
    for _ in range(3):
        original()
        candidate()
    baseline_times: list[float] = []
    candidate_times: list[float] = []
    for index in range(config["rounds"]):
        # Alternate which goes first, so neither always runs on a freshly warmed cache.
        order = [("b", original), ("c", candidate)]
        if index % 2:
            order.reverse()
        for which, function in order:
            calls = config["baseline_calls"] if which == "b" else config["candidate_calls"]
            figure = _timed_batch(function, calls)
            (baseline_times if which == "b" else candidate_times).append(figure)
    print(json.dumps({"baseline": baseline_times, "candidate": candidate_times}), flush=True)


def worker_https(config: dict[str, Any]) -> None:
    """Serve timing requests from the parent: one line ``N`` in, seconds per request out.

    ``library`` makes the request (a new connection each time, as its users write it) and
    ``client`` says with which context: ``cached`` (one made by hand, passed explicitly),
    ``default`` (http.client's own path without sslcustomize: a context per connection),
    ``minimal`` (a new one-anchor context per connection: made by hand for http.client,
    by urllib3 itself given ``ca_certs``, by requests given ``verify=CA``), ``floor``
    (bench/floor_hook.py installed, the library's default path) or ``sslcustomize`` (the
    start-up hook active, the library's default path).
    """
    kind, library = config["client"], config["library"]
    if kind == "floor":
        sys.path.insert(0, str(Path(__file__).resolve().parent))
        import floor_hook

        floor_hook.install(config["policy"])
    if kind == "sslcustomize":
        if not hasattr(ssl.create_default_context, "sslcustomize_original"):
            raise RuntimeError("sslcustomize's startup hook did not activate")
    elif "sslcustomize" in sys.modules:
        raise RuntimeError("sslcustomize is active in a baseline client")
    cached = ssl.create_default_context(cafile=config["bundle"]) if kind == "cached" else None
    request = REQUESTERS[library](config, kind, cached)
    request()  # fails here if the client does not trust the server
    if kind == "sslcustomize":
        from sslcustomize import _inject

        if not _inject.is_injected():
            raise RuntimeError("sslcustomize's startup hook did not inject")
    print("ready", flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        print(_timed_batch(request, int(line)), flush=True)


def _check_status(status: int) -> None:
    if status != 200:
        raise RuntimeError(f"HTTP {status}")


def _http_client(
    config: dict[str, Any], kind: str, cached: ssl.SSLContext | None
) -> Callable[[], None]:
    import http.client

    host, port = "127.0.0.1", config["port"]

    def fresh_minimal() -> ssl.SSLContext:
        # The least a verifying client can do per connection: a new context, one anchor.
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        context.load_verify_locations(cafile=config["ca"])
        return context

    def request() -> None:
        context = fresh_minimal() if kind == "minimal" else cached
        if context is None:  # the library's default path: a context from ssl's factory
            connection = http.client.HTTPSConnection(host, port)
        else:
            connection = http.client.HTTPSConnection(host, port, context=context)
        try:
            connection.request("GET", "/")
            response = connection.getresponse()
            response.read()
            _check_status(response.status)
        finally:
            connection.close()

    return request


def _urllib3(
    config: dict[str, Any], kind: str, cached: ssl.SSLContext | None
) -> Callable[[], None]:
    import urllib3

    url = f"https://127.0.0.1:{config['port']}/"

    def request() -> None:
        if kind == "minimal":  # urllib3's own context per connection, loading the one CA
            manager = urllib3.PoolManager(ca_certs=config["ca"])
        elif cached:
            manager = urllib3.PoolManager(ssl_context=cached)
        else:
            manager = urllib3.PoolManager()
        try:
            _check_status(manager.request("GET", url, retries=False).status)
        finally:
            manager.clear()

    return request


def _requests(
    config: dict[str, Any], kind: str, cached: ssl.SSLContext | None
) -> Callable[[], None]:
    import requests

    url = f"https://127.0.0.1:{config['port']}/"

    class CachedAdapter(requests.adapters.HTTPAdapter):
        """What a careful program does today: one context, made once, for every pool."""

        def init_poolmanager(self, *args: Any, **kwargs: Any) -> None:
            kwargs["ssl_context"] = cached
            super().init_poolmanager(*args, **kwargs)

        def cert_verify(self, *args: Any) -> None:
            pass  # the context holds the anchors: no bundle loaded per connection

    # "minimal": requests' own way to a CA, a context per connection loading the one CA.
    verify = config["ca"] if kind == "minimal" else True

    def request() -> None:
        with requests.Session() as session:
            if cached is not None:
                session.mount("https://", CachedAdapter())
            _check_status(session.get(url, timeout=10, verify=verify).status_code)

    return request


def _httpx(config: dict[str, Any], kind: str, cached: ssl.SSLContext | None) -> Callable[[], None]:
    import httpx

    url = f"https://127.0.0.1:{config['port']}/"

    def request() -> None:
        with httpx.Client(verify=cached if cached is not None else True) as client:
            _check_status(client.get(url).status_code)

    return request


REQUESTERS: dict[
    str, Callable[[dict[str, Any], str, ssl.SSLContext | None], Callable[[], None]]
] = {
    "http.client": _http_client,
    "urllib3": _urllib3,
    "requests": _requests,
    "httpx": _httpx,
}


WORKERS: dict[str, Callable[[dict[str, Any]], None]] = {
    "contexts": worker_contexts,
    "https": worker_https,
}


# --- Helpers for the parent --------------------------------------------------------------------


def worker_command(name: str, config: dict[str, Any]) -> list[str]:
    """Return the command that runs a worker of this script in a fresh interpreter."""
    return [sys.executable, str(Path(__file__).resolve()), "--worker", name, json.dumps(config)]


def clean_environment(scratch: Path, *, policy: Path | None = None) -> dict[str, str]:
    """Return this process's environment without the user's sslcustomize configuration.

    The user layer points at an empty directory and the CA cache at a scratch one, so that
    neither the user's policy nor their cache changes what is measured.
    """
    env = {k: v for k, v in os.environ.items() if k != POLICY_ENV}
    config_home = scratch / "config"
    config_home.mkdir(exist_ok=True)
    env["XDG_CONFIG_HOME"] = str(config_home)
    env["XDG_CACHE_HOME"] = str(scratch / "cache")
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if policy is not None:
        env[POLICY_ENV] = str(policy)
    return env


def policy_layers_present() -> list[str]:
    """Return the system and venv policy files that exist (they would taint the baselines)."""
    found = [Path("/etc/sslcustomize/policy.toml")]
    if sys.prefix != sys.base_prefix:
        found.append(Path(sys.prefix, "etc", "sslcustomize", "policy.toml"))
    return [str(path) for path in found if path.exists()]


def write_json(path: Path, document: dict[str, Any]) -> None:
    """Write ``document`` to ``path`` atomically: a temporary file, then ``os.replace``."""
    directory = path.resolve().parent
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", dir=directory)
    try:
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump(document, file, indent=2)
            file.write("\n")
        Path(temporary).replace(path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise


# --- Context creation --------------------------------------------------------------------------


def bench_contexts(settings: Settings, scratch: Path) -> list[Result | Failure]:
    """Compare context creation with and without sslcustomize, with and without SSL_CERT_*."""
    policy = scratch / "default-policy.toml"
    policy.write_text(DEFAULT_POLICY, encoding="utf-8")
    config = {
        "policy": str(policy),
        "rounds": settings.ctx_rounds,
        "baseline_calls": settings.ctx_baseline_calls,
        "candidate_calls": settings.ctx_candidate_calls,
    }
    variants: list[tuple[str, tuple[str, ...]]] = [("env as is", ())]
    if any(name in os.environ for name in CERT_ENV):
        variants.append(("SSL_CERT_FILE/DIR unset", CERT_ENV))
    results: list[Result | Failure] = []
    for label, unset in variants:
        name = f"context creation ({label})"
        env = clean_environment(scratch)
        for variable in unset:
            env.pop(variable, None)
        done = subprocess.run(
            worker_command("contexts", config), check=False, env=env, capture_output=True, text=True
        )
        if done.returncode != 0:
            results.append(Failure(name=name, error=_last_line(done.stderr)))
            continue
        figures = json.loads(done.stdout.strip().splitlines()[-1])
        results.append(
            paired(
                name,
                kind="ratio",
                baseline=figures["baseline"],
                candidate=figures["candidate"],
                goal=0.01,
            )
        )
    return results


def _last_line(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1] if lines else "(no output)"


# --- HTTPS requests ----------------------------------------------------------------------------


def start_server(context: ssl.SSLContext) -> tuple[Any, int]:
    """Start a threaded HTTPS server on 127.0.0.1 that closes every connection after a reply."""
    import http.server

    class Handler(http.server.BaseHTTPRequestHandler):
        # HTTP/1.0: the connection closes after each response, so each request is a new TLS
        # connection with a full handshake (no keep-alive, no session resumption).
        protocol_version = "HTTP/1.0"

        def do_GET(self) -> None:
            body = b"ok\n"
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # quiet: one line per request would drown the report

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def finish_request(self, request: Any, client_address: Any) -> None:
            # The handshake runs here, in the connection's own thread, not in accept().
            try:
                tls = context.wrap_socket(request, server_side=True)
            except (ssl.SSLError, OSError):
                return
            try:
                Handler(tls, client_address, self)
            finally:
                tls.close()

    server = Server(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, name="bench-https", daemon=True).start()
    return server, int(server.server_address[1])


class Client:
    """A worker process that makes HTTPS requests when asked and reports their time."""

    def __init__(self, name: str, config: dict[str, Any], env: dict[str, str]) -> None:
        self.name = name
        self.process = subprocess.Popen(
            worker_command("https", config),
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        first = self._read()
        if first != "ready":
            raise RuntimeError(f"{name} client did not start: {first}")

    def _read(self) -> str:
        assert self.process.stdout is not None
        line = self.process.stdout.readline().strip()
        if not line:
            assert self.process.stderr is not None
            self.process.wait(timeout=30)
            return _last_line(self.process.stderr.read())
        return line

    def run(self, requests: int) -> float:
        """Make ``requests`` requests; return the mean time of one, in seconds."""
        assert self.process.stdin is not None
        self.process.stdin.write(f"{requests}\n")
        self.process.stdin.flush()
        answer = self._read()
        try:
            return float(answer)
        except ValueError:
            raise RuntimeError(f"{self.name} client failed: {answer}") from None

    def close(self) -> None:
        """Stop the worker."""
        if self.process.poll() is None:
            assert self.process.stdin is not None
            with contextlib.suppress(OSError):
                self.process.stdin.write("\n")
                self.process.stdin.close()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        for stream in (self.process.stdout, self.process.stderr):
            if stream is not None:
                stream.close()


def system_bundle() -> str | None:
    """Return the PEM bundle Python's default context loads, as the environment is now."""
    paths = ssl.get_default_verify_paths()
    if paths.cafile and Path(paths.cafile).is_file():
        return paths.cafile
    return None


LIBRARIES = ("http.client", "urllib3", "requests", "httpx")
# (library, client) of every worker: each library against its hand-cached context, the floor
# hook and sslcustomize; http.client also without any (today's default) and at the minimum.
HTTPS_CASES = (
    *((library, client) for library in LIBRARIES for client in ("cached", "floor", "sslcustomize")),
    ("http.client", "default"),
    ("http.client", "minimal"),
    ("urllib3", "minimal"),
    ("requests", "minimal"),
)
HTTPS_RUNS = 2
# requests loads the bundle these name into the connection's context on every connection,
# even a hand-cached one: with them set (as on the development machine) no case is cached.
LIBRARY_CA_ENV = ("REQUESTS_CA_BUNDLE", "CURL_CA_BUNDLE")


def _https_names() -> list[str]:
    names = []
    for library in LIBRARIES:
        names += [
            f"https {library}: sslcustomize vs hand-cached",
            f"https {library}: floor hook vs hand-cached",
        ]
    return [
        *names,
        "https http.client: sslcustomize vs today's default",
        "https http.client: today's default vs hand-cached",
        "https http.client: minimal new ctx/conn vs cached",
        "https urllib3: own ctx/conn (ca_certs) vs cached",
        "https requests: own ctx/conn (verify=CA) vs cached",
        "https urllib3: sslcustomize vs own ctx/conn",
        "https requests: sslcustomize vs own ctx/conn",
    ]


def _https_run(
    settings: Settings, scratch: Path, config: dict[str, Any], policy: Path, seed: int
) -> dict[tuple[str, str], list[float]]:
    """Start a fresh worker per case and time them in rounds; return seconds per request."""
    clients: dict[tuple[str, str], Client] = {}
    try:
        for library, kind in HTTPS_CASES:
            if kind == "default":
                env = clean_environment(scratch)
                env["SSL_CERT_FILE"] = config["bundle"]
            else:
                env = clean_environment(scratch, policy=policy if kind == "sslcustomize" else None)
            for variable in LIBRARY_CA_ENV:
                env.pop(variable, None)
            clients[library, kind] = Client(
                f"{library} {kind}", {**config, "library": library, "client": kind}, env
            )
        for client in clients.values():  # warm up: caches, page cache, the server's threads
            client.run(settings.https_requests)
        times: dict[tuple[str, str], list[float]] = {case: [] for case in clients}
        # Many short rounds, each in a new shuffled order: the speed of a shared VM swings
        # within seconds, and a paired ratio is only as good as its two figures are close.
        order = list(clients)
        shuffle = random.Random(seed)  # ordering, not security
        for _ in range(settings.https_rounds):
            shuffle.shuffle(order)
            for case in order:
                times[case].append(clients[case].run(settings.https_requests))
        return times
    finally:
        for client in clients.values():
            client.close()


def bench_https(settings: Settings, scratch: Path) -> list[Result | Failure]:
    """Compare one HTTPS request (a new TLS connection) per library: cached, floor, sslcustomize.

    The whole comparison runs twice, with fresh workers: each line's figure is the median of
    the per-round ratios of both runs, and its note gives each run's, as the spread.
    """
    names = _https_names()
    try:
        import trustme
    except ImportError:
        return [Failure(name=name, error="needs trustme: pip install trustme") for name in names]
    missing = [name for name in LIBRARIES[1:] if importlib.util.find_spec(name) is None]
    if missing:
        error = f"needs {', '.join(missing)}: pip install {' '.join(missing)}"
        return [Failure(name=name, error=error) for name in names]

    ca = trustme.CA()
    ca_pem = scratch / "test-ca.pem"
    ca.cert_pem.write_to_path(str(ca_pem))
    server_context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert("127.0.0.1", "localhost").configure_cert(server_context)
    # Today's default and the hand-cached context trust the test CA through a bundle that is
    # the system bundle plus one certificate, so they pay what they pay with the system's.
    system = system_bundle()
    bundle = scratch / "system-plus-test-ca.pem"
    with bundle.open("wb") as out:
        if system:
            out.write(Path(system).read_bytes().rstrip(b"\n") + b"\n")
        out.write(ca_pem.read_bytes())
    policy = scratch / "https-policy.toml"
    policy.write_text(f'version = 1\ntrust = ["system", {json.dumps(str(ca_pem))}]\n', "utf-8")

    server, port = start_server(server_context)
    config = {"port": port, "bundle": str(bundle), "ca": str(ca_pem), "policy": str(policy)}
    try:
        runs = [_https_run(settings, scratch, config, policy, seed) for seed in range(HTTPS_RUNS)]
    except Exception as error:  # report, keep benchmarking the rest
        return [Failure(name=name, error=str(error)) for name in names]
    finally:
        server.shutdown()
        server.server_close()
    note = "" if system else "no system PEM bundle found: baseline loads only the test CA"

    def line(
        name: str, baseline: tuple[str, str], candidate: tuple[str, str], goal: float | None
    ) -> Result:
        spread = " / ".join(
            f"{statistics.median(map(operator.truediv, run[candidate], run[baseline])):.3f}x"
            for run in runs
        )
        return paired(
            name,
            kind="ratio",
            baseline=[figure for run in runs for figure in run[baseline]],
            candidate=[figure for run in runs for figure in run[candidate]],
            goal=goal,
            note=f"runs {spread}" + (f"; {note}" if note and "default" in name else ""),
        )

    results = []
    for library in LIBRARIES:
        results += [
            line(f"https {library}: sslcustomize vs hand-cached", (library, "cached"),
                 (library, "sslcustomize"), HTTPS_GOAL),
            line(f"https {library}: floor hook vs hand-cached", (library, "cached"),
                 (library, "floor"), None),
        ]  # fmt: skip
    client = "http.client"
    return [
        *results,
        line(names[-7], (client, "default"), (client, "sslcustomize"), 0.1),
        # For information: what a context per connection costs at the least, whoever builds it.
        line(names[-6], (client, "cached"), (client, "default"), None),
        line(names[-5], (client, "cached"), (client, "minimal"), None),
        # urllib3 and requests make a context per connection themselves when given a CA
        # (no hook): what their own context per connection costs, beside what the hook's does.
        line(names[-4], ("urllib3", "cached"), ("urllib3", "minimal"), None),
        line(names[-3], ("requests", "cached"), ("requests", "minimal"), None),
        line(names[-2], ("urllib3", "minimal"), ("urllib3", "sslcustomize"), None),
        line(names[-1], ("requests", "minimal"), ("requests", "sslcustomize"), None),
    ]


# --- Interpreter startup -----------------------------------------------------------------------


def _requirement_names(requirements: Sequence[str]) -> Iterator[str]:
    """Yield the distribution names of requirements that are not extras-only."""
    for requirement in requirements:
        if re.search(r"""extra\s*==""", requirement):
            continue
        match = re.match(r"[A-Za-z0-9][A-Za-z0-9._-]*", requirement)
        if match:
            yield match.group(0)


def copy_distribution(name: str, site_packages: Path, done: set[str]) -> None:
    """Copy an installed distribution and its requirements into ``site_packages``.

    Files are copied as the installer laid them out (its RECORD), bytecode included, so the
    copy behaves as a wheel install there. Requirements not installed here are skipped.
    """
    key = re.sub(r"[-_.]+", "-", name).lower()
    if key in done:
        return
    done.add(key)
    try:
        distribution = importlib.metadata.distribution(name)
    except importlib.metadata.PackageNotFoundError:
        return
    for file in distribution.files or ():
        source = Path(str(distribution.locate_file(file))).resolve()
        relative = Path(file)
        if relative.is_absolute() or ".." in relative.parts or not source.is_file():
            continue  # scripts in bin/ and the like: not part of site-packages
        target = site_packages / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
    for requirement in _requirement_names(distribution.requires or ()):
        copy_distribution(requirement, site_packages, done)


def make_startup_venv(root: Path) -> tuple[Path, Path]:
    """Create a venv holding sslcustomize as installed here; return (python, hook .pth)."""
    venv.EnvBuilder(with_pip=False, symlinks=True, clear=True).create(root)
    python = root / "bin" / "python"
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    site_packages = root / "lib" / version / "site-packages"
    copy_distribution("sslcustomize", site_packages, set())
    hook = site_packages / "sslcustomize.pth"
    if not hook.is_file() or not (site_packages / "_sslcustomize_startup.py").is_file():
        raise RuntimeError(
            "sslcustomize is not installed from a wheel here (no sslcustomize.pth in its "
            "RECORD): pip install . (not -e)"
        )
    return python, hook


@dataclass(frozen=True, slots=True, kw_only=True)
class Case:
    """One way to start the interpreter."""

    name: str
    hook: bool
    policy: bool
    code: str


FIRST_CONTEXT = "import ssl; ssl.create_default_context()"
CASES = [
    Case(name="bare", hook=False, policy=False, code="pass"),
    Case(name="idle", hook=True, policy=False, code="pass"),
    Case(name="enabled", hook=True, policy=True, code="pass"),
    Case(name="bare+ssl", hook=False, policy=False, code="import ssl"),
    Case(name="enabled+ssl", hook=True, policy=True, code="import ssl"),
    Case(name="bare+ctx", hook=False, policy=False, code=FIRST_CONTEXT),
    Case(name="enabled+ctx", hook=True, policy=True, code=FIRST_CONTEXT),
]
# What each case must show: (sslcustomize imported, startup module imported). With a policy,
# ``import ssl`` only puts the startup hook's stand-ins on ssl's factories; sslcustomize itself
# loads with the first context.
EXPECTED = {
    "bare": "False False",
    "idle": "False True",
    "enabled": "False True",
    "bare+ssl": "False False",
    "enabled+ssl": "False True",
    "bare+ctx": "False False",
    "enabled+ctx": "True True",
}
CHECK = (
    "import sys; {code}; "
    "print(*(m in sys.modules for m in ('sslcustomize', '_sslcustomize_startup')))"
)


def bench_startup(settings: Settings, scratch: Path) -> list[Result | Failure]:
    """Compare interpreter start-up without the package, installed idle, and enabled."""
    names = {
        "idle": "startup: installed, no policy (python -c pass)",
        "enabled": "startup: enabled (python -c pass)",
        "enabled+ssl": "startup: enabled + import ssl",
        "enabled+ctx": "startup: enabled + import ssl + 1st context",
    }
    try:
        python, hook = make_startup_venv(scratch / "venv")
    except Exception as error:  # report, keep benchmarking the rest
        return [Failure(name=name, error=str(error)) for name in names.values()]
    disabled = hook.with_name(hook.name + ".off")
    policy = scratch / "default-policy.toml"
    policy.write_text(DEFAULT_POLICY, encoding="utf-8")
    environments = {
        False: clean_environment(scratch),
        True: clean_environment(scratch, policy=policy),
    }
    for env in environments.values():
        env.pop("PYTHONDONTWRITEBYTECODE")  # as a user runs it: bytecode cached

    def place_hook(present: bool) -> None:
        if present and disabled.exists():
            disabled.rename(hook)
        elif not present and hook.exists():
            hook.rename(disabled)

    def run(case: Case, code: str) -> tuple[float, float, str]:
        """Start the interpreter once; return its wall-clock time, CPU time and output."""
        place_hook(case.hook)
        command = [str(python), "-c", code]
        # This process has no other child now, so the children's usage grows by this one's.
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run(
            command, check=False, env=environments[case.policy], capture_output=True, text=True
        )
        elapsed = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        if done.returncode != 0 or done.stderr:
            raise RuntimeError(f"{case.name}: {_last_line(done.stderr)}")
        return elapsed, cpu, done.stdout.strip()

    def check(case: Case) -> None:
        seen = run(case, CHECK.format(code=case.code))[2]
        if seen != EXPECTED[case.name]:
            raise RuntimeError(f"{case.name}: expected {EXPECTED[case.name]}, saw {seen}")

    times: dict[str, list[float]] = {case.name: [] for case in CASES}
    cpu_times: dict[str, list[float]] = {case.name: [] for case in CASES}
    shuffle = random.Random(1)  # ordering, not security
    try:
        for case in CASES:  # check that each case is what it says; warms the page cache too
            check(case)
            run(case, case.code)
        for _ in range(settings.startup_rounds):
            order = list(CASES)
            shuffle.shuffle(order)  # no case always runs right after another
            for case in order:
                elapsed, cpu, _ = run(case, case.code)
                times[case.name].append(elapsed)
                cpu_times[case.name].append(cpu)
    except Exception as error:  # report, keep benchmarking the rest
        return [Failure(name=name, error=str(error)) for name in names.values()]
    finally:
        place_hook(True)
    comparisons = [  # (case, its baseline, goal in ms)
        ("idle", "bare", 1.0),
        ("enabled", "bare", 20.0),
        ("enabled+ssl", "bare+ssl", 20.0),
        ("enabled+ctx", "bare+ctx", None),
    ]
    return [
        paired(
            names[case],
            kind="delta",
            baseline=times[baseline],
            candidate=times[case],
            goal=goal,
            cpu=(cpu_times[baseline], cpu_times[case]),
        )
        for case, baseline, goal in comparisons
    ]


# --- Main --------------------------------------------------------------------------------------


def describe_machine() -> dict[str, Any]:
    """Return what the figures depend on."""
    try:
        version = importlib.metadata.version("sslcustomize")
    except importlib.metadata.PackageNotFoundError:
        version = None
    return {
        "cpus": os.cpu_count(),
        "platform": platform.platform(),
        "python": platform.python_version(),
        "implementation": platform.python_implementation(),
        "openssl": ssl.OPENSSL_VERSION,
        "sslcustomize": version,
        "ssl_cert_env": {name: os.environ.get(name) for name in CERT_ENV},
    }


def main(argv: Sequence[str] | None = None) -> int:
    """Run the benchmarks and print one line per comparison."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds: under 30 s")
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write figures as JSON")
    parser.add_argument(
        "--only",
        choices=("contexts", "https", "startup"),
        action="append",
        help="run only these comparisons (repeatable)",
    )
    parser.add_argument("--worker", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        WORKERS[args.worker[0]](json.loads(args.worker[1]))
        return 0

    settings = QUICK if args.quick else FULL
    machine = describe_machine()
    print(
        f"sslcustomize {machine['sslcustomize']} | Python {machine['python']} | "
        f"{machine['openssl']} | {machine['cpus']} CPUs | {'quick' if args.quick else 'full'} run"
    )
    for path in policy_layers_present():
        print(f"warning: {path} exists: the baselines without a policy are not policy-free")
    print(HEADER)
    started = time.perf_counter()
    results: list[Result | Failure] = []
    with tempfile.TemporaryDirectory(prefix="sslcustomize-bench-") as directory:
        scratch = Path(directory)
        benches = {"contexts": bench_contexts, "https": bench_https, "startup": bench_startup}
        for label, bench in benches.items():
            if args.only and label not in args.only:
                continue
            for result in bench(settings, scratch):
                print(format_line(result), flush=True)
                results.append(result)
    elapsed = time.perf_counter() - started
    print(
        f"({elapsed:.0f} s. baseline, candidate: medians per operation; result: median of the "
        "per-round ratios or differences; start-up in wall-clock time, cpu = the child's "
        "user+system time)"
    )
    if args.json:
        write_json(
            args.json,
            {
                "version": JSON_VERSION,
                "date": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                "quick": bool(args.quick),
                "machine": machine,
                "settings": asdict(settings),
                "elapsed_s": round(elapsed, 1),
                "results": [
                    {"status": "error", **asdict(r)}
                    if isinstance(r, Failure)
                    else {"status": r.verdict.lower(), **asdict(r)}
                    for r in results
                ],
            },
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
