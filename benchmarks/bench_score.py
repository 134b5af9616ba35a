"""Scoring speed: random winning hands scored per second, in one process.

    python benchmarks/bench_score.py [--rules rode-draak|riichi|wsom] [--hands 10000] [--seed 7]

The hands are generated first (fixed seed), so only scoring is timed; scoring goes
through rules.registry.score, the entry point the CLI and the web page use.
"""
from __future__ import annotations

import argparse
import random
import sys
import time

from mahjong_lens.rules.generate import random_winning_hand
from mahjong_lens.rules.registry import RULE_SETS, OptionError, rules_module, score


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", choices=list(RULE_SETS), default="rode-draak")
    parser.add_argument("--hands", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--repeat", type=int, default=3, help="timed runs; the best is reported")
    args = parser.parse_args(argv)
    try:
        rules_module(args.rules)
    except (ImportError, OptionError) as error:
        print(f"bench_score: rule set {args.rules} is not available: {error}", file=sys.stderr)
        return 2
    rng = random.Random(args.seed)
    hands = [random_winning_hand(rng) for _ in range(args.hands)]
    best_wall = best_cpu = float("inf")
    for _ in range(args.repeat):
        # Results are counted, not kept: a table scores a hand and moves on.
        valid = 0
        wall, cpu = time.perf_counter(), time.process_time()
        for hand in hands:
            valid += score(hand, args.rules).valid
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    # CPU time is what one core delivers; wall time also counts waiting on a busy machine.
    print(f"{args.rules}: {len(hands)} hands, {len(hands) / best_wall:,.0f} hands/s wall "
          f"({best_wall:.3f} s), {len(hands) / best_cpu:,.0f} hands/s CPU; single process, "
          f"best of {args.repeat}; {valid} valid, {len(hands) - valid} not")
    return 0


if __name__ == "__main__":
    sys.exit(main())
