"""The client's retry rules (protocol.md, "Retrying is safe" and the failover table) against a
scripted local HTTP server: stdlib only, no society needed."""

import hashlib
import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tessera import AgentKey, TesseraClient, TesseraError  # noqa: E402
from tessera.client import fill_defaults  # noqa: E402
from tessera.signing import body_sha256, signing_string, verify_signature  # noqa: E402

RULES = {"acts": [
    {"name": "aether_send", "via": {"act": "POST /api/v1/act", "route": None},
     "payload_schema": {"type": "object", "properties": {
         "body": {"type": "string"},
         "scope": {"type": "string", "enum": ["auto"], "default": "auto"},
         "route": {"type": "string", "enum": ["global", "relay"], "default": "global"}}}},
    {"name": "register", "via": {"act": None, "route": "POST /api/v1/register"},
     "payload_schema": {"type": "object", "properties": {"declared_runtime": {"type": "string", "default": ""}}}},
]}


class Script:
    """What the server answers to each signed POST, in order: 'drop' closes the connection unanswered."""

    def __init__(self, steps):
        self.steps = list(steps)
        self.posts = []
        self.nonce_fetches = 0
        self.counter = 0

    def next_nonce(self):
        self.counter += 1
        return f"nonce-{self.counter:036d}"


def make_server(script):
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, *args):
            pass

        def answer(self, status, body, headers=None):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self):
            if self.path.startswith("/api/v1/nonce"):
                script.nonce_fetches += 1
                return self.answer(200, {"nonce": script.next_nonce(), "agent": "x", "expires_at": "later"})
            if self.path == "/.well-known/agent-rules.json":
                return self.answer(200, RULES)
            return self.answer(404, {"error": "NOT_FOUND", "message": "no"})

        def do_POST(self):
            if self.path.startswith("/replica"):
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                return self.answer(307, {}, {"Location": self.path[len("/replica"):]})
            body = self.rfile.read(int(self.headers.get("Content-Length", "0"))).decode()
            script.posts.append({"path": self.path, "body": body, "nonce": self.headers["X-Nonce"],
                                 "signature": self.headers["X-Signature"], "agent": self.headers["X-Agent-Id"]})
            step = script.steps.pop(0)
            if step == "drop":
                self.close_connection = True
                self.connection.shutdown(2)
                return
            status, answer, headers = step
            headers = dict(headers)
            if status != 503:
                headers.setdefault("X-Next-Nonce", script.next_nonce())
            self.answer(status, answer, headers)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
    return server


class Retries(unittest.TestCase):
    def client_for(self, steps):
        self.script = Script(steps)
        self.server = make_server(self.script)
        self.addCleanup(self.server.server_close)
        self.addCleanup(self.server.shutdown)
        self.sleeps = []
        self.key = AgentKey(bytes(range(32)))
        return TesseraClient(f"http://127.0.0.1:{self.server.server_port}", self.key, timeout=5,
                             sleep=self.sleeps.append)

    def test_a_lost_answer_resends_the_very_same_request(self):
        ok = (200, {"result": {"ok": True}}, {"Idempotent-Replayed": "true"})
        client = self.client_for(["drop", "drop", ok])
        answer = client.act("aether_send", {"body": "hi"})
        self.assertEqual(answer, {"result": {"ok": True}})
        self.assertTrue(client.last_answer.replayed)
        posts = self.script.posts
        self.assertEqual(len(posts), 3)
        self.assertEqual({(p["nonce"], p["signature"], p["body"]) for p in posts}, {(posts[0]["nonce"],
                         posts[0]["signature"], posts[0]["body"])})
        self.assertEqual(self.sleeps, [0.25, 0.5])
        body = json.loads(posts[0]["body"])
        self.assertEqual(body, {"act": "aether_send", "challenge_id": None, "puzzle_solution": None,
                                "payload": {"body": "hi", "route": "global", "scope": "auto"}})
        text = signing_string("POST", "/api/v1/act", self.key.agent_id, posts[0]["nonce"], body_sha256(posts[0]["body"]))
        self.assertTrue(verify_signature(self.key.public_key, text, posts[0]["signature"]))

    def test_503_with_retry_after_waits_and_resends(self):
        busy = (503, {"error": "QUEUE_FULL", "message": "full"}, {"Retry-After": "2"})
        client = self.client_for([busy, (200, {"done": 1}, {})])
        self.assertEqual(client.signed("POST", "/api/v1/act", {"a": 1}), {"done": 1})
        self.assertEqual(self.sleeps, [2.0])
        self.assertEqual(self.script.posts[0]["signature"], self.script.posts[1]["signature"])

    def test_the_next_nonce_is_used_and_refusals_raise(self):
        refusal = (409, {"error": "HANDLE_TAKEN", "message": "taken"}, {})
        client = self.client_for([(200, {"agent_id": "x"}, {}), refusal])
        client.register("someone")
        with self.assertRaises(TesseraError) as caught:
            client.register("someone")
        self.assertEqual((caught.exception.status, caught.exception.code), (409, "HANDLE_TAKEN"))
        self.assertEqual(caught.exception.body["message"], "taken")
        self.assertEqual(self.script.nonce_fetches, 1)  # the second request signed with X-Next-Nonce
        self.assertNotEqual(self.script.posts[0]["nonce"], self.script.posts[1]["nonce"])

    def test_nonce_invalid_to_a_first_sending_signs_again_once(self):
        invalid = (401, {"error": "NONCE_INVALID", "message": "spent"}, {})
        client = self.client_for([invalid, (200, {"ok": 1}, {})])
        self.assertEqual(client.signed("POST", "/api/v1/act", {"a": 1}), {"ok": 1})
        self.assertEqual(self.script.nonce_fetches, 2)
        self.assertNotEqual(self.script.posts[0]["nonce"], self.script.posts[1]["nonce"])

    def test_nonce_invalid_twice_is_raised(self):
        invalid = (401, {"error": "NONCE_INVALID", "message": "spent"}, {})
        client = self.client_for([invalid, invalid])
        with self.assertRaises(TesseraError) as caught:
            client.signed("POST", "/api/v1/act", {"a": 1})
        self.assertEqual(caught.exception.code, "NONCE_INVALID")

    def test_a_307_is_followed_with_the_same_request(self):
        client = self.client_for([(200, {"ok": 1}, {})])
        request = client.prepare("POST", "/api/v1/act", {"a": 1})
        request.path = "/replica/api/v1/act"
        answer = client.send(request)
        self.assertEqual((answer.status, answer.body), (200, {"ok": 1}))
        self.assertEqual(self.script.posts[0]["path"], "/api/v1/act")
        self.assertEqual(self.script.posts[0]["signature"], request.signature)

    def test_nonce_invalid_to_a_resend_of_an_act_signs_again(self):
        invalid = (401, {"error": "NONCE_INVALID", "message": "spent"}, {})
        client = self.client_for(["drop", invalid, (200, {"ok": 1}, {})])
        self.assertEqual(client.signed("POST", "/api/v1/act", {"a": 1}), {"ok": 1})
        self.assertEqual(self.script.posts[0]["nonce"], self.script.posts[1]["nonce"])
        self.assertNotEqual(self.script.posts[1]["nonce"], self.script.posts[2]["nonce"])

    def test_nonce_invalid_to_a_resend_on_a_route_without_kept_answers_is_outcome_unknown(self):
        invalid = (401, {"error": "NONCE_INVALID", "message": "spent"}, {})
        client = self.client_for(["drop", invalid])
        with self.assertRaises(TesseraError) as caught:
            client.signed("POST", "/api/v1/grants", {"a": 1})
        self.assertEqual(caught.exception.code, "OUTCOME_UNKNOWN")
        self.assertEqual(len(self.script.posts), 2)

    def test_no_answer_for_the_whole_retry_window_is_outcome_unknown(self):
        client = self.client_for(["drop"] * 3)
        client.retry_for = 0  # give up after the first resend's failure
        with self.assertRaises(TesseraError) as caught:
            client.signed("POST", "/api/v1/act", {"a": 1})
        self.assertEqual(caught.exception.code, "OUTCOME_UNKNOWN")

    def test_pom_required_asks_for_a_challenge_solves_it_and_sends_the_act_again(self):
        required = (403, {"error": "POM_REQUIRED", "message": "needs a Proof of Machine answer"}, {})
        data = "ab" * 32
        challenge = (200, {"challenge_id": "pc_9", "kind": "sha256_hex", "context": {"data": data}}, {})
        client = self.client_for([required, challenge, (200, {"result": {"ok": True}}, {})])
        self.assertEqual(client.act("aether_send", {"body": "hi"}), {"result": {"ok": True}})
        posts = self.script.posts
        self.assertEqual([p["path"] for p in posts], ["/api/v1/act", "/api/v1/pom/challenge", "/api/v1/act"])
        self.assertEqual(json.loads(posts[1]["body"]), {"intent": "aether_send"})
        sent = json.loads(posts[2]["body"])
        self.assertEqual((sent["challenge_id"], sent["puzzle_solution"]),
                         ("pc_9", hashlib.sha256(data.encode()).hexdigest()))

    def test_an_answer_given_is_sent_as_it_is_and_its_refusal_raised(self):
        failed = (403, {"error": "POM_FAILED", "message": "wrong"}, {})
        client = self.client_for([failed])
        with self.assertRaises(TesseraError) as caught:
            client.act("aether_send", {"body": "hi"}, challenge_id="pc_1", puzzle_solution="0")
        self.assertEqual(caught.exception.code, "POM_FAILED")
        self.assertEqual(len(self.script.posts), 1)

    def test_a_validation_refusal(self):
        client = self.client_for([(422, {"detail": [{"loc": ["body", "handle"], "msg": "bad"}]}, {})])
        with self.assertRaises(TesseraError) as caught:
            client.register("x")
        self.assertEqual((caught.exception.status, caught.exception.code), (422, "VALIDATION"))


class Defaults(unittest.TestCase):
    def test_fill_defaults_keeps_given_values_and_nested_objects(self):
        schema = {"type": "object", "properties": {
            "a": {"type": "integer", "default": 1},
            "b": {"type": "object", "properties": {"c": {"type": "string", "default": "x"}}, "default": {}},
            "d": {"type": "array", "items": {"type": "object", "properties": {"e": {"default": None}}}}}}
        self.assertEqual(fill_defaults(schema, {}), {"a": 1, "b": {}})
        self.assertEqual(fill_defaults(schema, {"a": 2, "b": {}, "d": [{}]}), {"a": 2, "b": {"c": "x"}, "d": [{"e": None}]})


if __name__ == "__main__":
    unittest.main()
