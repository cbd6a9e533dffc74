"""The first TLS context of a fresh process under a policy, against Python's own first one.

Run it with the Python of an environment where sslcustomize is installed (a wheel, so that
the ``.pth`` hook is in place)::

    python bench/first_context.py [--rounds N]

Each round starts, in turn, fresh processes that time only the call
``ssl.create_default_context()`` (``import ssl`` is done before the clock starts):

* ``python``: the base interpreter of this environment (no sslcustomize): Python's own
  first context, which loads the system CA bundle;
* ``warm``: this environment's interpreter with ``SSLCUSTOMIZE_POLICY`` naming a policy
  (``trust = ["system"]``, one exception), after the policy has been read once before;
* ``cold``: the same, with an empty cache directory each time (the first process after the
  policy file changed).

It prints the median and the minimum of each in milliseconds and the ratios of the medians
against Python's own. Goal (issue 11): warm <= 0.5x.

The call is not all a process pays: the hook's start-up and the imports it makes count too.
So each round also times whole processes from outside (``import ssl`` and the first context),
and subtracts the base interpreter's bare ``import ssl``: what the first context adds to a
process, Python's own against sslcustomize's (warm), start-up hook included. Goal (issue 25):
<= 0.5x as well. It prints the median of the per-round differences and the difference of the
minimums: on a shared machine the minimums are what the processes cost when nothing else ran.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

CHILD = (
    "import ssl, sys, time\n"
    "start = time.perf_counter()\n"
    "ssl.create_default_context()\n"
    "elapsed = time.perf_counter() - start\n"
    "hooked = 'sslcustomize' in sys.modules\n"
    "print(elapsed * 1000, hooked)\n"
)
POLICY = """\
version = 1
trust = ["system"]

[[exception]]
host = "appliance.example.internal"
pin = ["sha256/AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA="]
reason = "benchmark"
expires = 2099-01-01
"""


def _run(python: str, env: dict[str, str], *, hooked: bool) -> float:
    done = subprocess.run(
        [python, "-c", CHILD], env=env, capture_output=True, text=True, check=True
    )
    elapsed, was_hooked = done.stdout.split()
    if (was_hooked == "True") != hooked:
        sys.exit(f"{python}: expected hooked={hooked}, got {was_hooked}: {done.stderr}")
    if done.stderr:
        sys.exit(f"{python}: the child wrote to stderr (a broken benchmark policy?): {done.stderr}")
    return float(elapsed)


def wall(python: str, env: dict[str, str], code: str) -> float:
    """Milliseconds from start to exit of ``python -c code``, timed from outside."""
    start = time.perf_counter()
    subprocess.run([python, "-c", code], env=env, capture_output=True, check=True)
    return (time.perf_counter() - start) * 1000


def _process_costs(
    base: str, hooked: str, clean: dict[str, str], warm_env: dict[str, str], rounds: int
) -> tuple[list[float], list[float], list[float]]:
    """Whole-process milliseconds: bare ``import ssl``, Python's first context, sslcustomize's."""
    first = "import ssl; ssl.create_default_context()"
    floor: list[float] = []
    own: list[float] = []
    ours: list[float] = []
    for _ in range(rounds):
        floor.append(wall(base, clean, "import ssl"))
        own.append(wall(base, clean, first))
        ours.append(wall(hooked, warm_env, first))
    return floor, own, ours


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=20)
    rounds = parser.parse_args().rounds
    base = getattr(sys, "_base_executable", sys.executable)
    if sys.prefix == sys.base_prefix:
        sys.exit("run this with a venv's Python that has sslcustomize installed")
    with tempfile.TemporaryDirectory(prefix="sslcustomize-bench-first-") as scratch:
        policy = os.path.join(scratch, "policy.toml")
        with open(policy, "w", encoding="utf-8") as file:
            file.write(POLICY)
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SSLCUSTOMIZE")}
        clean.pop("PYTHONDONTWRITEBYTECODE", None)
        warm_env = {**clean, "SSLCUSTOMIZE_POLICY": policy, "XDG_CACHE_HOME": scratch + "/c"}
        _run(sys.executable, warm_env, hooked=True)  # reads the policy once: a warm cache
        times: dict[str, list[float]] = {"python": [], "warm": [], "cold": []}
        for index in range(rounds):
            cold_env = {**warm_env, "XDG_CACHE_HOME": f"{scratch}/cold{index}"}
            times["python"].append(_run(base, clean, hooked=False))
            times["warm"].append(_run(sys.executable, warm_env, hooked=True))
            times["cold"].append(_run(sys.executable, cold_env, hooked=True))
        floors, owns, ourses = _process_costs(base, sys.executable, clean, warm_env, rounds)
    baseline = statistics.median(times["python"])
    print(f"Python {sys.version.split()[0]}, {rounds} rounds, first create_default_context()")
    for name, values in times.items():
        median = statistics.median(values)
        print(
            f"  {name:<7} median {median:6.1f} ms  min {min(values):6.1f} ms"
            f"  ratio {median / baseline:5.2f}x"
        )
    verdict = "PASS" if statistics.median(times["warm"]) <= 0.5 * baseline else "MISS"
    print(f"goal: warm <= 0.5x Python's own: {verdict}")
    # Medians of the per-round differences, and the differences of the minimums (on a busy
    # machine the minimums are what the processes cost when nothing else ran meanwhile).
    own = statistics.median(o - f for o, f in zip(owns, floors, strict=True))
    ours = statistics.median(o - f for o, f in zip(ourses, floors, strict=True))
    own_min, ours_min = min(owns) - min(floors), min(ourses) - min(floors)
    print("whole process, what the first context adds above a bare `import ssl`:")
    print(f"  python  median {own:6.1f} ms  min {own_min:6.1f} ms  ratio  1.00x")
    print(
        f"  warm    median {ours:6.1f} ms  min {ours_min:6.1f} ms  ratio {ours / own:5.2f}x"
        f"  (of the minimums {ours_min / own_min:5.2f}x)"
    )
    verdict = "PASS" if ours <= 0.5 * own else "MISS"
    print(f"goal: whole process warm <= 0.5x Python's own: {verdict}")


if __name__ == "__main__":
    main()
