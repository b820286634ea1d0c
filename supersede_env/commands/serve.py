"""Serve a reference policy (a baseline, not a model) as an OpenAI-compatible endpoint.

    supersede serve --policy recency                 # http://127.0.0.1:8000/v1, model "baseline:recency"
    supersede serve --policy append --port 8001
    supersede eval --model openai:baseline:recency@http://127.0.0.1:8000/v1 --episodes data/synthetic_eval.jsonl

The same policies run in-process with ``--model baseline:NAME``, no server needed. Stop with Ctrl-C.
"""

from __future__ import annotations

import argparse
import sys

from supersede_env.baselines.policies import POLICIES

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    policies = "\n".join(f"  {p.name:<8} {p.description}" for p in POLICIES.values())
    parser.epilog = (__doc__.split("\n\n", 1)[1] + "\npolicies (deterministic heuristics over the prompt text; "
                     "they never see an episode's gold):\n" + policies)
    parser.add_argument("--policy", required=True, choices=tuple(POLICIES), help="the reference policy to serve")
    parser.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default: {DEFAULT_HOST})")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"port to listen on; 0 picks a free one (default: {DEFAULT_PORT})")


def main(args: argparse.Namespace) -> int:
    import asyncio

    from supersede_env.baselines.policies import get_policy
    from supersede_env.baselines.server import serve
    from supersede_env.core.errors import ConfigError

    if not 0 <= args.port <= 65535:
        raise ConfigError(f"option --port: expected 0-65535, got {args.port}")
    policy = get_policy(args.policy)

    def ready(base_url: str) -> None:
        print(f"supersede serve: {policy.label} at {base_url}", flush=True)
        print(f"  evaluate it with: supersede eval --model openai:{policy.spec}@{base_url} ...", flush=True)

    try:
        asyncio.run(serve(policy, host=args.host, port=args.port, ready=ready))
    except OSError as exc:  # the port is taken, the address is not this machine's
        raise ConfigError(f"cannot listen on {args.host}:{args.port}: {exc.strerror or exc}") from None
    except KeyboardInterrupt:
        print("supersede serve: stopped", file=sys.stderr)
    return 0
