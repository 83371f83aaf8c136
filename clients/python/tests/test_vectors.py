"""The conformance vectors of docs/vectors/ (made by the TypeScript code), checked with this client."""

import base64
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
VECTORS = os.path.join(HERE, "..", "..", "..", "docs", "vectors")

from tessera.canonical import canonicalize  # noqa: E402
from tessera.keys import AgentKey, agent_id_of, check_public_key, is_strong_public_key, WeakKeyError  # noqa: E402
from tessera.signing import body_sha256, sign_request, signing_string, verify_signature  # noqa: E402
from tessera import tlog  # noqa: E402
from tessera.ledger import verify_ledger  # noqa: E402


def load(name):
    with open(os.path.join(VECTORS, name), encoding="utf-8") as f:
        return json.load(f)


class CanonicalJson(unittest.TestCase):
    def test_every_case(self):
        for case in load("canonical_json.json")["cases"]:
            with self.subTest(case["name"]):
                # Parsed as doubles (RFC 8785 section 3.2.2.3), then also with Python's exact ints.
                for value in (json.loads(case["input"], parse_int=float), json.loads(case["input"])):
                    text = canonicalize(value)
                    self.assertEqual(text, case["canonical"])
                    self.assertEqual(text.encode("utf-8").hex(), case["canonical_utf8_hex"])
                    self.assertEqual(hashlib.sha256(text.encode("utf-8")).hexdigest(), case["sha256"])

    def test_refuses_what_has_no_canonical_form(self):
        for value in (float("nan"), float("inf"), "\ud800", {"\udc00": 1}, {1: 2}, b"bytes", 10**400):
            with self.subTest(repr(value)):
                with self.assertRaises(ValueError):
                    canonicalize(value)


class Signing(unittest.TestCase):
    def setUp(self):
        self.vectors = load("signing.json")
        self.seeds = {a["public_key"]: a["seed_hex"] for a in self.vectors["agent_ids"]}

    def test_agent_ids(self):
        for agent in self.vectors["agent_ids"]:
            with self.subTest(agent["label"]):
                key = AgentKey.from_seed_hex(agent["seed_hex"])
                self.assertEqual(key.public_key, agent["public_key"])
                self.assertEqual(key.public_key_bytes.hex(), agent["public_key_hex"])
                self.assertEqual(hashlib.sha256(key.public_key_bytes).hexdigest(), agent["public_key_sha256"])
                self.assertEqual(key.agent_id, agent["agent_id"])
                self.assertEqual(agent_id_of(agent["public_key"]), agent["agent_id"])

    def test_cases(self):
        for case in self.vectors["cases"]:
            with self.subTest(case["name"]):
                body = case.get("body_json")
                body_text = "" if body is None else canonicalize(body)
                self.assertEqual(body_text, case["body"])
                self.assertEqual(body_sha256(body_text), case["body_sha256"])
                text = signing_string(case["method"], case["path"], case["agent_id"], case["nonce"], case["body_sha256"])
                self.assertEqual(text, case["signing_string"])
                key = AgentKey.from_seed_hex(self.seeds[case["public_key"]])
                sent, signature = sign_request(key, case["method"], case["path"], case["nonce"], body, case["agent_id"])
                self.assertEqual(sent, case["body"])
                self.assertEqual(signature, case["signature"])
                self.assertTrue(verify_signature(case["public_key"], case["signing_string"], case["signature"]))

    def test_rejected_signatures(self):
        for case in self.vectors["rejected_signatures"]:
            with self.subTest(case["name"]):
                self.assertFalse(verify_signature(case["public_key"], case["signing_string"], case["signature"]))


class WeakKeys(unittest.TestCase):
    def test_exactly_the_valid_keys_are_accepted(self):
        keys = load("weak_keys.json")["keys"]
        self.assertTrue(any(k["valid"] for k in keys))
        for k in keys:
            with self.subTest(k["reason"]):
                self.assertEqual(is_strong_public_key(k["public_key"]), k["valid"])
                if k["valid"]:
                    self.assertEqual(check_public_key(k["public_key"]).hex(), k["public_key_hex"])
                else:
                    with self.assertRaises(WeakKeyError):
                        check_public_key(k["public_key"])


class LedgerProofs(unittest.TestCase):
    def test_both_forms(self):
        for p in load("ledger_proofs.json")["proofs"]:
            with self.subTest(p["note"] if "note" in p else p["form"]):
                entry = p["entry"]
                self.assertEqual(json.loads(p["entry_text"]), entry)
                self.assertEqual(tlog.entry_text(entry), p["entry_text"])
                self.assertEqual(canonicalize({k: v for k, v in entry.items() if k != "hash"}), p["entry_hash_input"])
                self.assertEqual(tlog.entry_hash(entry), entry["hash"])
                proof = entry["proof"]
                digest = body_sha256(proof["body"]) if p["form"] == "body" else proof["body_sha256"]
                self.assertEqual(digest, p["body_sha256"])
                text = signing_string(proof["method"], proof["path"], entry["actor"], proof["nonce"], digest)
                self.assertEqual(text, p["signing_string"])
                self.assertTrue(verify_signature(p["signer_public_key"], text, proof["signature"]))


class Ledger(unittest.TestCase):
    def setUp(self):
        self.vectors = load("ledger.json")

    def test_the_valid_ledger_passes(self):
        verdict = self.vectors["verdict"]
        self.assertEqual(verify_ledger(self.vectors["entries"], verdict["head"]), verdict)

    def test_the_pages_chain(self):
        pages = self.vectors["pages"]
        first, last = (json.loads(p["body"]) if isinstance(p["body"], str) else p["body"] for p in (pages[0], pages[-1]))
        self.assertEqual(first["entries"], self.vectors["entries"][:2])
        self.assertIsNone(last["next_from"])
        self.assertEqual(last["entries"], self.vectors["entries"][-len(last["entries"]):])
        self.assertEqual(last["head"], self.vectors["verdict"]["head"])

    def test_every_tampered_copy_fails_at_its_seq(self):
        # Every tamper kind of docs/vectors/ledger.json is checked: none is skipped.
        for t in self.vectors["tampered"]:
            with self.subTest(t["name"]):
                result = verify_ledger(self.vectors["entries"][: t["keep"]] + t["tail"])
                self.assertFalse(result["valid"], t["name"])
                self.assertEqual((result["fail_seq"], result["reason"]), (t["fail_seq"], t["reason"]))


class EveryEvent(unittest.TestCase):
    def test_the_ledger_with_every_event_type_passes(self):
        vectors = load("every_event.json")
        verdict = vectors["verdict"]
        self.assertEqual(verify_ledger(vectors["entries"], verdict["head"]), verdict)
        catalogue = load("event_catalogue.json")
        self.assertEqual({entry["event_type"] for entry in vectors["entries"]}, set(catalogue["events"]))


class EventCatalogue(unittest.TestCase):
    def test_the_shipped_copy_is_the_generated_one(self):
        # The verifier's tables come from this copy; a new act reaches it only if the copy is refreshed.
        shipped = os.path.join(os.path.dirname(HERE), "tessera", "event_catalogue.json")
        with open(shipped, "rb") as copy, open(os.path.join(VECTORS, "event_catalogue.json"), "rb") as generated:
            self.assertEqual(copy.read(), generated.read(),
                             "copy docs/vectors/event_catalogue.json to clients/python/tessera/event_catalogue.json")

    def test_the_package_reads_its_copy_outside_the_repository(self):
        with tempfile.TemporaryDirectory() as elsewhere:
            shutil.copytree(os.path.join(os.path.dirname(HERE), "tessera"), os.path.join(elsewhere, "tessera"))
            run = subprocess.run([sys.executable, "-c", "import tessera.ledger as l; print(l.event_class('agent_moved'))"],
                                 cwd=elsewhere, env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": ""},
                                 capture_output=True, text=True)
            self.assertEqual((run.returncode, run.stdout.strip()), (0, "opens_request"), run.stderr)


class TransparencyLog(unittest.TestCase):
    def setUp(self):
        self.vectors = load("transparency.json")
        self.entries = load("ledger.json")["entries"]

    def test_leaves_and_tiles(self):
        hashes = [tlog.leaf_hash(tlog.entry_text(e)) for e in self.entries]
        for leaf, h in zip(self.vectors["leaves"], hashes):
            self.assertIn(leaf["leaf_hash"], (base64.b64encode(h).decode(), h.hex()))
        for tile in self.vectors["tiles"]:
            if "tile_base64" in tile:
                self.assertEqual(base64.b64decode(tile["tile_base64"]), b"".join(hashes))

    def test_checkpoints(self):
        hashes = [tlog.leaf_hash(tlog.entry_text(e)) for e in self.entries]
        for cp in self.vectors["checkpoints"]:
            with self.subTest(size=cp["size"]):
                checkpoint = tlog.verify_checkpoint(cp["note"], self.vectors["log_vkey"])
                self.assertEqual(checkpoint["size"], cp["size"])
                self.assertEqual(base64.b64encode(checkpoint["root_hash"]).decode(), cp["root_hash"])
                self.assertEqual(tlog.root_from_leaves(hashes[: cp["size"]]), checkpoint["root_hash"])
                # The key id is the first 4 bytes of SHA-256(name || 0x0A || 0x01 || key).
                verifier = tlog.NoteVerifier(self.vectors["log_vkey"])
                self.assertEqual(verifier.name, self.vectors["origin"])

    def test_a_checkpoint_altered_or_under_another_key_fails(self):
        note = self.vectors["checkpoints"][-1]["note"]
        lines = note.split("\n")
        lines[1] = str(int(lines[1]) + 1)
        with self.assertRaises(tlog.TlogError):
            tlog.verify_checkpoint("\n".join(lines), self.vectors["log_vkey"])
        with self.assertRaises(tlog.TlogError):
            tlog.verify_checkpoint(note, self.vectors["cosignature"]["witness_vkey"].replace("+BM", "+AM"))

    def test_a_verifier_key_whose_base64_holds_a_plus(self):
        # Standard base64 may hold '+': only the first two split the name, the key id and the key.
        for seed in range(64):
            key = AgentKey(bytes([seed]) * 32)
            name = "example.test/log"
            vkey = f"{name}+{tlog.key_id(name, 1, key.public_key_bytes).hex()}+" + \
                base64.b64encode(b"\x01" + key.public_key_bytes).decode()
            if "+" in vkey.split("+", 2)[2]:
                break
        else:
            self.fail("no seed gave a key with '+' in its base64")
        verifier = tlog.NoteVerifier(vkey)
        self.assertEqual(verifier.public_key, key.public_key_bytes)
        text = f"{name}\n1\n{base64.b64encode(bytes(32)).decode()}\n"
        sig = base64.b64encode(verifier.key_id + key.sign(text)).decode()
        self.assertEqual(tlog.verify_checkpoint(f"{text}\n\u2014 {name} {sig}\n", vkey)["size"], 1)

    def test_log_key_from_its_seed(self):
        key = AgentKey.from_seed_hex(self.vectors["log_key_seed_hex"])
        self.assertEqual(tlog.NoteVerifier(self.vectors["log_vkey"]).public_key, key.public_key_bytes)

    def test_receipts(self):
        for r in self.vectors["receipts"]:
            with self.subTest(seq=r["seq"]):
                entry, _ = tlog.verify_receipt(r["receipt"], self.vectors["log_vkey"])
                self.assertEqual(entry["seq"], r["seq"])
        receipt = dict(self.vectors["receipts"][-1]["receipt"])
        receipt["entry"] = receipt["entry"].replace('"seq":44', '"seq":43')
        with self.assertRaises(tlog.TlogError):
            tlog.verify_receipt(receipt, self.vectors["log_vkey"])
        receipt = dict(self.vectors["receipts"][-1]["receipt"])
        receipt["leaf_index"] -= 1
        with self.assertRaises(tlog.TlogError):
            tlog.verify_receipt(receipt, self.vectors["log_vkey"])

    def test_consistency(self):
        for c in self.vectors["consistency"]:
            with self.subTest(old=c["old_size"], new=c["new_size"]):
                self.assertTrue(tlog.verify_consistency(c["old_size"], c["new_size"], c["old_root"], c["new_root"],
                                                        c["proof"]))
                if c["proof"]:
                    wrong = c["proof"][:-1] + [base64.b64encode(b"\x00" * 32).decode()]
                    self.assertFalse(tlog.verify_consistency(c["old_size"], c["new_size"], c["old_root"],
                                                             c["new_root"], wrong))

    def test_inclusion_of_every_leaf_against_every_checkpoint(self):
        hashes = [tlog.leaf_hash(tlog.entry_text(e)) for e in self.entries]

        def path(index, leaves):  # RFC 6962's PATH(m, D[n])
            if len(leaves) == 1:
                return []
            k = 1
            while k * 2 < len(leaves):
                k *= 2
            if index < k:
                return path(index, leaves[:k]) + [tlog.root_from_leaves(leaves[k:])]
            return path(index - k, leaves[k:]) + [tlog.root_from_leaves(leaves[:k])]

        for size in (1, 2, 7, 13, 44):
            root = tlog.root_from_leaves(hashes[:size])
            for i in range(size):
                proof = path(i, hashes[:size])
                self.assertTrue(tlog.verify_inclusion(hashes[i], i, size, proof, root))
                if size > 1:
                    self.assertFalse(tlog.verify_inclusion(hashes[i], (i + 1) % size, size, proof, root))

    def test_cosignature(self):
        cs = self.vectors["cosignature"]
        checkpoint, timestamp = tlog.verify_cosignature(cs["cosigned_note"], self.vectors["log_vkey"], cs["witness_vkey"])
        self.assertEqual(timestamp, cs["timestamp"])
        self.assertEqual(checkpoint["text"], cs["checkpoint_text"])
        witness = AgentKey.from_seed_hex(cs["witness_key_seed_hex"])
        raw = base64.b64decode(cs["line"].split(" ")[-1])
        self.assertEqual(witness.sign(cs["signed_message"]), raw[12:])
        self.assertTrue(cs["cosigned_note"].endswith(cs["line"]))


if __name__ == "__main__":
    unittest.main()
