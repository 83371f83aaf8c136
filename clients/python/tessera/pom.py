"""Proof of Machine (docs/aether.md): the answers to the published challenge kinds.

A challenge is what POST /api/v1/pom/challenge answers: {challenge_id, kind, instruction,
context, deadline_ms, expires_at}. Its answer goes into the act's request as
`puzzle_solution`, beside `challenge_id`.
"""

import hashlib
import re

__all__ = ["solve_challenge", "PomError", "KNOWN_KINDS"]

_HEX64 = re.compile(r"^[0-9a-fA-F]{64}$")


class PomError(ValueError):
    """A challenge this client cannot answer: an unknown kind, or a context not as its kind describes."""


def _sha256_hex(context):
    data = context.get("data")
    if not isinstance(data, str) or not _HEX64.match(data):
        raise PomError(f"sha256_hex: context.data must be 64 hexadecimal characters, got {data!r:.80}")
    return hashlib.sha256(data.encode("utf-8")).hexdigest()


def _is_integer(value):
    # bool is an int in Python, but true is not a number on the wire.
    return isinstance(value, int) and not isinstance(value, bool)


def _modular_sum(context):
    numbers, modulus = context.get("numbers"), context.get("modulus")
    if not isinstance(numbers, list) or not all(_is_integer(n) for n in numbers):
        raise PomError("modular_sum: context.numbers must be a list of integers")
    if not _is_integer(modulus) or modulus <= 0:
        raise PomError(f"modular_sum: context.modulus must be a positive integer, got {modulus!r}")
    # Python's % of a positive modulus is never negative: no sign, as the kind asks.
    return str(sum(numbers) % modulus)


_SOLVERS = {"sha256_hex": _sha256_hex, "modular_sum": _modular_sum}
KNOWN_KINDS = tuple(_SOLVERS)


def solve_challenge(challenge):
    """The puzzle_solution (a string) of a challenge; PomError for a kind or context it cannot answer."""
    if not isinstance(challenge, dict):
        raise PomError(f"a challenge is a JSON object, got {type(challenge).__name__}")
    kind = challenge.get("kind")
    solver = _SOLVERS.get(kind)
    if solver is None:
        raise PomError(f"unknown Proof of Machine kind {kind!r} (this client answers {', '.join(KNOWN_KINDS)})")
    context = challenge.get("context")
    if not isinstance(context, dict):
        raise PomError(f"{kind}: the challenge has no context object")
    return solver(context)
