"""Rules of the ledger recipe the conformance vectors hold no entry for, on small ledgers signed
here: each read from the event catalogue as the TypeScript verifier reads it."""

import hashlib
import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from tessera.canonical import canonicalize  # noqa: E402
from tessera.keys import AgentKey  # noqa: E402
from tessera.ledger import ZERO_HASH, verify_ledger  # noqa: E402
from tessera.signing import sign_request  # noqa: E402

AT = "2026-11-21T10:00:00.000+00:00"


class LedgerWriter:
    """Appends entries as the engine writes them: chained, hashed, each act signed by its actor."""

    def __init__(self):
        self.entries = []
        self.nonces = 0

    def append(self, event_type, actor, data, proof=None):
        entry = {"seq": len(self.entries) + 1, "prev_hash": self.entries[-1]["hash"] if self.entries else ZERO_HASH,
                 "at": AT, "event_type": event_type, "actor": actor, "data": data}
        if proof:
            entry["proof"] = proof
        entry["hash"] = hashlib.sha256(canonicalize(entry).encode("utf-8")).hexdigest()
        self.entries.append(entry)
        return entry

    def signed(self, key, path, body, agent_id=None):
        """A proof by key, for agent_id where that is not the key's own (a rotated or backup key)."""
        self.nonces += 1
        nonce = f"nonce-{self.nonces}"
        text, signature = sign_request(key, "POST", path, nonce, body, agent_id or key.agent_id)
        return {"method": "POST", "path": path, "nonce": nonce, "body": text, "signature": signature}

    def act(self, key, event_type, act, payload, data, agent_id=None):
        body = {"act": act, "challenge_id": None, "payload": payload, "puzzle_solution": None}
        return self.append(event_type, agent_id or key.agent_id, data,
                           self.signed(key, "/api/v1/act", body, agent_id))


def society_with_a_member():
    """society_founded (revision 1), the Founder at genesis, and a member registered with a proof."""
    writer, founder, member = LedgerWriter(), AgentKey.generate(), AgentKey.generate()
    writer.append("society_founded", "system", {"ledger_revision": 1})
    writer.append("agent_registered", founder.agent_id,
                  {"agent_id": founder.agent_id, "pubkey": founder.public_key, "backup_pubkey": None,
                   "handle": "founder", "declared_runtime": "", "role": "founder"})
    registration = {"pubkey": member.public_key, "handle": "member", "declared_runtime": "test", "backup_pubkey": None}
    writer.append("agent_registered", member.agent_id, {"agent_id": member.agent_id, **registration},
                  writer.signed(member, "/api/v1/register", registration))
    return writer, member


def with_a_road(position):
    """A member builds a road: signed at x and y, recorded at data.position."""
    writer, member = society_with_a_member()
    road = writer.act(member, "structure_built", "world_build_road", {"x": 3, "y": 4},
                      {"kind": "road", "position": position, "ap_spent": 2})
    writer.append("ap_spent", member.agent_id, {"act": "world_build_road", "amount": 2, "for_seq": road["seq"]})
    return writer.entries


class SignedFieldsAtDataPaths(unittest.TestCase):
    def test_a_road_recorded_where_it_was_signed_passes(self):
        self.assertTrue(verify_ledger(with_a_road({"x": 3, "y": 4}))["valid"])

    def test_a_road_moved_fails_naming_the_path_and_the_signed_field(self):
        result = verify_ledger(with_a_road({"x": 3, "y": 5}))
        self.assertEqual((result["fail_seq"], result["reason"]), (4, "data.position.y differs from the signed body's y"))

    def test_a_road_without_its_position_fails(self):
        result = verify_ledger(with_a_road(None))
        self.assertEqual((result["fail_seq"], result["reason"]), (4, "data.position.x differs from the signed body's x"))


class FieldsSignedWhenGiven(unittest.TestCase):
    def gather(self, payload, data):
        writer, member = society_with_a_member()
        gathered = writer.act(member, "resource_gathered", "world_gather", payload, {**data, "ap_spent": 1})
        writer.append("ap_spent", member.agent_id, {"act": "world_gather", "amount": 1, "for_seq": gathered["seq"]})
        return verify_ledger(writer.entries)

    def test_coordinates_left_out_of_the_request_are_not_compared(self):
        self.assertTrue(self.gather({}, {"x": 1, "y": 2, "resource": "wood"})["valid"])

    def test_coordinates_given_must_match(self):
        result = self.gather({"x": 1, "y": 2}, {"x": 1, "y": 9, "resource": "wood"})
        self.assertEqual(result["reason"], "data.y differs from the signed body")


class KeysByWhatTheyBecome(unittest.TestCase):
    def rotated(self, signer_after):
        """A member registers a backup key, rotates to a new primary with it, then posts signed by signer_after."""
        writer, member = society_with_a_member()
        backup, new = AgentKey.generate(), AgentKey.generate()
        writer.append("key_backup_registered", member.agent_id, {"backup_pubkey": backup.public_key},
                      writer.signed(member, "/api/v1/keys/backup", {"backup_pubkey": backup.public_key}))
        rotation = {"new_pubkey": new.public_key}
        writer.append("key_rotated", member.agent_id, rotation,
                      writer.signed(backup, "/api/v1/keys/rotate", rotation, member.agent_id))
        keys = {"new": new, "old": member, "backup": backup}
        writer.act(keys[signer_after], "bulletin_posted", "bulletin_post", {"title": "hi"}, {"title": "hi"},
                   member.agent_id)
        return verify_ledger(writer.entries)

    def test_the_backup_key_rotates_and_the_new_primary_signs_from_then_on(self):
        self.assertTrue(self.rotated("new")["valid"])

    def test_neither_the_old_primary_nor_the_backup_signs_an_act_after_it(self):
        for signer in ("old", "backup"):
            with self.subTest(signer):
                self.assertEqual(self.rotated(signer)["reason"], "proof signature does not verify")


if __name__ == "__main__":
    unittest.main()
