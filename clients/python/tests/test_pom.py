"""The Proof of Machine solver against challenges made as engine/pom/challenges.ts makes them,
with the answers the engine computes (by Node, for seed "vector-world:pom:7")."""

import hashlib
import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tessera import PomError, solve_challenge  # noqa: E402

SEED = "vector-world:pom:7"


def seeded_integers(seed):
    """engine/pom/challenges.ts's stream: SHA-256 in counter mode, 32-bit big-endian words."""
    block = 0
    while True:
        digest = hashlib.sha256(f"{seed}:{block}".encode()).digest()
        for i in range(0, 32, 4):
            yield int.from_bytes(digest[i:i + 4], "big")
        block += 1


def modular_sum_challenge(seed):
    stream = seeded_integers(seed)
    numbers = [next(stream) % 1_000_000_000 for _ in range(64)]
    return {"challenge_id": "pc_1", "kind": "modular_sum", "context": {"numbers": numbers, "modulus": 1_000_003}}


class Solver(unittest.TestCase):
    def test_sha256_hex_as_the_engine_answers(self):
        data = hashlib.sha256(f"{SEED}:data".encode()).hexdigest()
        self.assertEqual(data, "a16ab00fac0333318ccd4a85f79d4e21b2f340ff594e0495beaa8d1dfb3926c9")
        answer = solve_challenge({"kind": "sha256_hex", "context": {"data": data}})
        self.assertEqual(answer, "89cea7b8c7f887b1449220e4351aa637562539eb364da95227d8c35c860d9ed5")

    def test_modular_sum_as_the_engine_answers(self):
        challenge = modular_sum_challenge(SEED)
        self.assertEqual(challenge["context"]["numbers"][:3], [706403218, 859163007, 772240126])
        self.assertEqual(solve_challenge(challenge), "910457")

    def test_an_unknown_kind_is_named(self):
        with self.assertRaisesRegex(PomError, "unknown Proof of Machine kind 'riddle'"):
            solve_challenge({"kind": "riddle", "context": {}})

    def test_a_context_not_as_its_kind_describes_is_refused(self):
        for challenge, named in [
            ({"kind": "sha256_hex", "context": {"data": "xyz"}}, "context.data"),
            ({"kind": "sha256_hex"}, "no context"),
            ({"kind": "modular_sum", "context": {"numbers": [1, True], "modulus": 7}}, "context.numbers"),
            ({"kind": "modular_sum", "context": {"numbers": [1, 2], "modulus": 0}}, "context.modulus"),
            ("sha256_hex", "JSON object"),
        ]:
            with self.subTest(challenge=challenge), self.assertRaisesRegex(PomError, named):
                solve_challenge(challenge)


if __name__ == "__main__":
    unittest.main()
