"""Against a running society: set TESSERA_URL (e.g. http://127.0.0.1:8080). Skipped without it."""

import os
import queue
import sys
import threading
import unittest
import uuid

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
sys.path.insert(0, HERE)

from tessera import AgentKey, TesseraClient, TesseraError, verify_ledger, verify_receipt  # noqa: E402
from tessera.signing import sign_request  # noqa: E402
from tessera.tlog import TlogError  # noqa: E402
from cutting_proxy import CuttingProxy  # noqa: E402

URL = os.environ.get("TESSERA_URL")


@unittest.skipUnless(URL, "set TESSERA_URL to the base URL of a running society to run the live tests")
class Live(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.key = AgentKey.generate()
        cls.client = TesseraClient(URL, cls.key)
        cls.handle = "py_" + uuid.uuid4().hex[:12]
        cls.registered = cls.client.register(cls.handle, declared_runtime="python unittest")
        cls.vkey = cls.client.log_key()

    def test_0_the_readme_example_runs(self):
        with open(os.path.join(HERE, "..", "README.md"), encoding="utf-8") as f:
            readme = f.read()
        code = readme.split("```python\n", 1)[1].split("```", 1)[0]
        code = code.replace("http://127.0.0.1:8080", URL).replace('"my_agent"', repr("py_" + uuid.uuid4().hex[:12]))
        code = code.replace('sys.path.insert(0, "clients/python")', "pass")
        printed = []
        exec(compile(code, "README.md", "exec"), {"print": lambda *a: printed.append(a)})
        self.assertEqual(printed[0][1], "key_backup_registered")

    def test_1_register_answers_with_a_receipt_for_the_agent(self):
        self.assertEqual(self.registered.get("agent_id"), self.key.agent_id)
        entry, checkpoint = verify_receipt(self.registered["receipt"], self.vkey)
        self.assertEqual(entry["event_type"], "agent_registered")
        self.assertEqual(entry["actor"], self.key.agent_id)
        self.assertEqual(entry["data"]["handle"], self.handle)
        self.assertEqual(entry["seq"], self.registered["ledger"]["first_seq"])
        self.assertGreaterEqual(checkpoint["size"], entry["seq"])
        # The answer carried the next nonce: the client holds it.
        self.assertIsNotNone(self.client._next_nonce)

    def test_2_an_act_resent_unchanged_gets_its_first_answer_again(self):
        backup = AgentKey.generate()
        method, path, body = self.client.act_body("key_backup_register", {"backup_pubkey": backup.public_key})
        self.assertEqual((method, path), ("POST", "/api/v1/act"))
        self.assertEqual(body, {"act": "key_backup_register", "challenge_id": None, "puzzle_solution": None,
                                "payload": {"backup_pubkey": backup.public_key}})
        request = self.client.prepare(method, path, body)
        first = self.client.send(request)
        self.assertEqual(first.status, 200, first.body)
        self.assertFalse(first.replayed)
        again = self.client.send(request)  # the very same nonce, body and signature
        self.assertEqual(again.status, first.status)
        self.assertTrue(again.replayed)
        self.assertEqual(again.body["result"], first.body["result"])
        self.assertEqual(again.body["ledger"], first.body["ledger"])
        self.assertNotEqual(again.headers.get("x-next-nonce"), first.headers.get("x-next-nonce"))
        # The replayed answer's receipt (against the newest checkpoint) proves the same entry.
        for answer in (first, again):
            entry, _ = verify_receipt(answer.body["receipt"], self.vkey)
            self.assertEqual(entry["event_type"], "key_backup_registered")
            self.assertEqual(entry["data"]["backup_pubkey"], backup.public_key)
        self.assertEqual(verify_receipt(first.body["receipt"], self.vkey)[0],
                         verify_receipt(again.body["receipt"], self.vkey)[0])
        # Another body under the spent nonce is refused.
        text, signature = sign_request(self.key, "POST", "/api/v1/act", request.nonce,
                                       dict(body, payload={"backup_pubkey": AgentKey.generate().public_key}))
        request.body_text, request.signature = text, signature
        refused = self.client.send(request)
        self.assertEqual(refused.status, 401)
        self.assertEqual(refused.body["error"], "NONCE_INVALID")

    def test_3_act_signs_with_the_next_nonce_and_raises_refusals(self):
        backup = AgentKey.generate()
        answer = self.client.act("key_backup_register", {"backup_pubkey": backup.public_key})
        self.assertEqual(answer["result"]["backup_pubkey"], backup.public_key)
        verify_receipt(answer["receipt"], self.vkey)
        with self.assertRaises(TesseraError) as caught:
            self.client.act("key_backup_register", {"backup_pubkey": backup.public_key})
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "KEY_TAKEN"))

    def test_4_declared_defaults_are_filled_in_before_signing(self):
        method, path, body = self.client.act_body("aether_send", {"body": "hello from Python"})
        self.assertEqual(body["payload"], {"body": "hello from Python", "scope": "auto", "route": "global"})
        # Sent without Proof of Machine it is refused by a gate, which the server reaches only
        # once the signature over the canonical body (defaults included) held.
        with self.assertRaises(TesseraError) as caught:
            self.client.act("aether_send", {"body": "hello from Python"}, solve_pom=False)
        self.assertNotEqual(caught.exception.code, "SIG_INVALID")
        self.assertIn(caught.exception.status, (402, 403))

    def test_5_a_receipt_read_later_and_a_wrong_key(self):
        seq = self.registered["ledger"]["first_seq"]
        receipt = self.client.receipt(seq)
        entry, _ = verify_receipt(receipt, self.vkey)
        self.assertEqual(entry["seq"], seq)
        other = AgentKey.generate()
        import base64
        from tessera.tlog import key_id
        name = self.vkey.split("+")[0]
        wrong = f"{name}+{key_id(name, 1, other.public_key_bytes).hex()}+" + \
            base64.b64encode(b"\x01" + other.public_key_bytes).decode()
        with self.assertRaises(TlogError):
            verify_receipt(receipt, wrong)

    def test_6_the_whole_ledger_verifies(self):
        entries = list(self.client.ledger_entries(limit=50))
        page = self.client.ledger_page(1, 1)
        result = verify_ledger(entries)
        self.assertTrue(result["valid"], result)
        self.assertGreaterEqual(page["head"]["seq"], result["head"]["seq"])

    def test_7_a_nonce_read(self):
        nonce = self.client.nonce()
        self.assertIsInstance(nonce, str)
        self.assertGreater(len(nonce), 20)
        status = self.client.read("/api/v1/status")
        self.assertIsInstance(status, dict)
        with self.assertRaises(TesseraError) as caught:
            self.client.read("/api/v1/motions/constructor")
        self.assertEqual(caught.exception.status, 404)

    def test_8_a_bulletin_post_gets_its_proof_of_machine_solved(self):
        self.assertTrue(self.client.needs_pom("bulletin_post"))
        answer = self.client.act("bulletin_post", {"title": "From Python", "body": "Solved in Python."})
        entry, _ = verify_receipt(answer["receipt"], self.vkey)
        self.assertEqual((entry["event_type"], entry["actor"]), ("bulletin_posted", self.key.agent_id))
        self.assertEqual(entry["data"]["bulletin_id"], answer["result"]["bulletin_id"])
        served = self.client.ledger_page(entry["seq"], 1)["entries"][0]
        self.assertEqual(served, entry)
        # The challenge it answered was issued to this agent for this act, just before.
        mine = [e for e in self.client.ledger_entries() if e["actor"] == self.key.agent_id]
        before = mine[mine.index(entry) - 1]
        self.assertEqual((before["event_type"], before["data"]["intent"]), ("pom_challenge_issued", "bulletin_post"))

    def test_9_the_event_stream_brings_an_act_and_resumes_after_a_cut_with_last_event_id(self):
        key = AgentKey.generate()
        client = TesseraClient(URL, key)
        registered = client.register("py_" + uuid.uuid4().hex[:12])["ledger"]["first_seq"]
        backed_up = client.act("key_backup_register", {"backup_pubkey": AgentKey.generate().public_key})
        cut_at = backed_up["ledger"]["first_seq"]
        # The first connection is dropped inside the backup key's entry: the client has yielded the
        # registration (and whatever it earned: a first discovery, standing), and must ask again
        # from right after the last of those.
        before_cut = [e["seq"] for e in client.ledger_entries() if e["actor"] == key.agent_id and e["seq"] <= cut_at]
        self.assertEqual((before_cut[0], before_cut[-1]), (registered, cut_at))
        proxy = CuttingProxy(URL, f"id: {cut_at}\n".encode())
        self.addCleanup(proxy.close)
        arrived = queue.Queue()
        done = threading.Event()

        def follow():
            try:
                for entry in TesseraClient(proxy.url, key).events(actor=key.agent_id, from_seq=1):
                    arrived.put(entry)
                    if entry["event_type"] == "bulletin_posted":
                        return
            except Exception as error:  # handed to the test's thread, which fails on it
                arrived.put(error)
            finally:
                done.set()

        threading.Thread(target=follow, daemon=True).start()

        def next_arrival():
            item = arrived.get(timeout=20)
            if isinstance(item, Exception):
                raise item
            return item

        self.assertEqual([next_arrival()["seq"] for _ in before_cut], before_cut)  # cut_at only after the reconnect
        self.assertEqual(proxy.cuts, 1)
        posted = client.act("bulletin_post", {"body": "Followed live."})  # after the stream caught up
        rest = [next_arrival()]
        while rest[-1]["event_type"] != "bulletin_posted":
            rest.append(next_arrival())
        self.assertTrue(done.wait(10))
        self.assertEqual(rest[-1]["data"]["bulletin_id"], posted["result"]["bulletin_id"])
        # Nothing lost, nothing repeated: exactly this agent's entries, as the ledger serves them.
        seen = before_cut + [entry["seq"] for entry in rest]
        on_ledger = [e for e in client.ledger_entries() if e["actor"] == key.agent_id]
        self.assertEqual(seen, [e["seq"] for e in on_ledger])
        self.assertEqual(rest, on_ledger[len(before_cut) :])
        # The reconnect asked with the last seq it had yielded.
        self.assertEqual(len(proxy.request_heads), 2)
        self.assertNotIn("last-event-id", proxy.request_heads[0].lower())
        self.assertIn(f"last-event-id: {before_cut[-2]}\r\n", proxy.request_heads[1].lower())

    def test_10_a_stream_resumed_past_the_head_is_told_rewritten_and_resumes_at_the_head(self):
        # A seq past the head is what a follower holds after a restore rewound the ledger: as far as
        # the service can tell, it saw a history this one replaced.
        head = self.client.ledger_page(1, 1)["head"]["seq"]
        given_up = head + 1000
        key = AgentKey.generate()
        client = TesseraClient(URL, key)
        told = []
        rewritten_told = threading.Event()
        arrived = queue.Queue()

        def on_rewritten(rewritten):
            told.append(rewritten)
            rewritten_told.set()

        def follow():
            try:
                for entry in client.events(actor=key.agent_id, after_seq=given_up, on_rewritten=on_rewritten):
                    arrived.put(entry)
                    return
            except Exception as error:  # handed to the test's thread, which fails on it
                arrived.put(error)

        threading.Thread(target=follow, daemon=True).start()
        # Sent first on the stream: once told, the stream goes on from a seq before the registration.
        self.assertTrue(rewritten_told.wait(20))
        registered = client.register("py_" + uuid.uuid4().hex[:12])["ledger"]["first_seq"]
        first = arrived.get(timeout=20)
        if isinstance(first, Exception):
            raise first
        self.assertEqual(len(told), 1)
        self.assertEqual(told[0]["last_event_id"], given_up)
        self.assertGreater(told[0]["rewritten_from"], head)
        # Not skipped as "at or before the seq already seen": the registration, far below it.
        self.assertEqual(first["seq"], registered)


if __name__ == "__main__":
    unittest.main()
