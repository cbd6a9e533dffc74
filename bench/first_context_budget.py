"""What sslcustomize adds to a process's first TLS context, as a share of Python's own cost.

Run it with the Python of an environment where sslcustomize is installed (a wheel, so that
the ``.pth`` hook is in place)::

    python bench/first_context_budget.py [--rounds N]

The measure of issue 35 section 1. Each round starts fresh processes, in a shuffled order,
and times each whole from outside:

* ``floor``: the base interpreter (no sslcustomize) running ``import ssl``;
* ``python``: the base interpreter running ``import ssl; ssl.create_default_context()``;
* ``warm``: this environment's interpreter, under a policy trusting the system store (one
  pinned exception), its cache already filled, running the same;
* ``cold``: the same with an empty cache directory (the first process after a change).

Python's own first context costs ``python - floor``; sslcustomize's costs ``warm - floor``
(start-up hook, package imports, policy, context: its first context replaces Python's own, it
does not come on top of it). The figure is the median over rounds of the per-round ratio
``(warm - floor) / (python - floor)``. Goals (issue 35): warm <= 0.3x on OpenSSL 3.0 and
<= 1.0x on OpenSSL 3.5/3.6; cold <= 0.5x / 1.5x. Ratios only, against a baseline of the same
run: none of this is a timed test.
"""

from __future__ import annotations

import argparse
import os
import random
import ssl
import statistics
import subprocess
import sys
import tempfile

from first_context import POLICY, wall  # the same policy and timer as the first-context benchmark

FIRST = "import ssl; ssl.create_default_context()"


def main() -> None:
    """Measure and print."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=30)
    parser.add_argument("--seed", type=int, default=1)
    arguments = parser.parse_args()
    if sys.prefix == sys.base_prefix:
        sys.exit("run this with a venv's Python that has sslcustomize installed")
    base = getattr(sys, "_base_executable", sys.executable)
    shuffle = random.Random(arguments.seed).shuffle
    samples: dict[str, list[float]] = {"floor": [], "python": [], "warm": [], "cold": []}
    with tempfile.TemporaryDirectory(prefix="sslcustomize-bench-budget-") as scratch:
        policy = os.path.join(scratch, "policy.toml")
        with open(policy, "w", encoding="utf-8") as file:
            file.write(POLICY)
        clean = {k: v for k, v in os.environ.items() if not k.startswith("SSLCUSTOMIZE")}
        clean.pop("PYTHONDONTWRITEBYTECODE", None)
        warm = {**clean, "SSLCUSTOMIZE_POLICY": policy, "XDG_CACHE_HOME": f"{scratch}/c"}
        check = f"{FIRST}; import sys; print('sslcustomize' in sys.modules)"
        hooked = subprocess.run(
            [sys.executable, "-c", check], env=warm, capture_output=True, text=True, check=True
        )
        if hooked.stdout.strip() != "True" or hooked.stderr:
            sys.exit(f"the hooked process did not load sslcustomize: {hooked.stderr}")
        for index in range(arguments.rounds):
            cases = [
                ("floor", base, clean, "import ssl"),
                ("python", base, clean, FIRST),
                ("warm", sys.executable, warm, FIRST),
                ("cold", sys.executable, {**warm, "XDG_CACHE_HOME": f"{scratch}/{index}"}, FIRST),
            ]
            shuffle(cases)
            for name, python, env, code in cases:
                samples[name].append(wall(python, env, code))
    rounds = list(zip(*(samples[k] for k in ("floor", "python", "warm", "cold")), strict=True))
    own = statistics.median(p - f for f, p, _, _ in rounds)
    print(
        f"Python {sys.version.split()[0]}, {ssl.OPENSSL_VERSION}, {arguments.rounds} rounds: "
        f"Python's own first context +{own:.1f} ms above a bare `import ssl`"
    )
    for name, column in (("warm", 2), ("cold", 3)):
        cost = statistics.median(r[column] - r[0] for r in rounds)
        ratio = statistics.median((r[column] - r[0]) / (r[1] - r[0]) for r in rounds)
        shown = f"sslcustomize's first context +{cost:.1f} ms: {ratio:.2f}x"
        print(f"  {name:<5} {shown} (median of ratios)")


if __name__ == "__main__":
    main()
