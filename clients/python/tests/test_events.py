"""Following the event stream (tessera/events.py) against a scripted local server: resuming
after a cut connection and after `dropped`, waiting out a 429, refusals raised."""

import json
import os
import sys
import threading
import unittest
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tessera import EventStreamError, SseError, follow_ledger  # noqa: E402
from tessera.events import events_url  # noqa: E402


def entry(seq):
    return f'id: {seq}\nevent: entry\ndata: {json.dumps({"seq": seq, "event_type": "x", "actor": "system"})}\n\n'


class Scripted:
    """Each connection gets the next answer: (status, headers, body bytes); the body is written and
    the connection closed, which ends the stream mid-event when the body does."""

    def __init__(self, answers):
        self.answers = list(answers)
        self.requests = []
        handler = self.handler()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.server.server_port}"

    def handler(self):
        script = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def do_GET(self):
                script.requests.append({"path": self.path, "last_event_id": self.headers.get("Last-Event-ID")})
                status, headers, body = script.answers.pop(0)
                self.send_response(status)
                self.send_header("Content-Type", headers.pop("Content-Type", "text/event-stream"))
                for name, value in headers.items():
                    self.send_header(name, value)
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body)
                self.close_connection = True

        return Handler

    def close(self):
        self.server.shutdown()
        self.server.server_close()


class Follow(unittest.TestCase):
    def follow(self, answers, count, **options):
        script = Scripted(answers)
        self.addCleanup(script.close)
        self.sleeps = []
        stream = follow_ledger(script.url, sleep=self.sleeps.append, **options)
        seqs = [next(stream)["seq"] for _ in range(count)]
        stream.close()
        return seqs, script.requests

    def test_a_cut_mid_event_resumes_after_the_last_seq_yielded(self):
        cut = ("retry: 2000\n\n" + entry(1) + entry(2) + entry(3)[:20]).encode()
        seqs, requests = self.follow([(200, {}, cut), (200, {}, (entry(3) + entry(4)).encode())], 4,
                                     from_seq=1, actor="system")
        self.assertEqual(seqs, [1, 2, 3, 4])
        self.assertEqual(requests[0], {"path": "/api/v1/events?from=1&actor=system", "last_event_id": None})
        self.assertEqual(requests[1], {"path": "/api/v1/events?from=1&actor=system", "last_event_id": "2"})
        self.assertEqual(self.sleeps, [2.0])  # the server's retry: 2000

    def test_a_chunked_answer_cut_inside_a_chunk_resumes_too(self):
        events = (entry(1) + entry(2)).encode()
        chunked = b"%x\r\n" % len(events) + events[:-10]  # the chunk never ends
        seqs, requests = self.follow([(200, {"Transfer-Encoding": "chunked"}, chunked),
                                      (200, {}, entry(2).encode())], 2)
        self.assertEqual(seqs, [1, 2])
        self.assertEqual(requests[1]["last_event_id"], "1")

    def test_dropped_resumes_from_resume_from(self):
        dropped = (entry(5) + 'event: dropped\ndata: {"reason":"slow_reader","resume_from":9}\n\n').encode()
        seqs, requests = self.follow([(200, {}, dropped), (200, {}, entry(9).encode())], 2, after_seq=4)
        self.assertEqual(seqs, [5, 9])
        self.assertEqual([r["last_event_id"] for r in requests], ["4", "8"])

    def test_rewritten_is_handed_over_and_the_rewritten_seqs_are_yielded(self):
        told = []
        rewritten = 'event: rewritten\ndata: {"rewritten_from":5,"last_event_id":7}\n\n'
        # The first connection ends after `rewritten`, before an entry: the resume starts at 5, not after 7.
        seqs, requests = self.follow([(200, {}, rewritten.encode()), (200, {}, (entry(5) + entry(6)).encode())], 2,
                                     after_seq=7, on_rewritten=told.append)
        self.assertEqual(told, [{"rewritten_from": 5, "last_event_id": 7}])
        self.assertEqual(seqs, [5, 6])
        self.assertEqual([r["last_event_id"] for r in requests], ["7", "4"])

    def test_an_entry_sent_again_is_not_yielded_twice(self):
        seqs, _ = self.follow([(200, {}, (entry(1) + entry(2)).encode()),
                               (200, {}, (entry(2) + entry(3)).encode())], 3)
        self.assertEqual(seqs, [1, 2, 3])

    def test_429_waits_its_retry_after(self):
        busy = (429, {"Content-Type": "application/json", "Retry-After": "5"}, b'{"error":"RATE_LIMITED"}')
        seqs, _ = self.follow([busy, (200, {}, entry(1).encode())], 1)
        self.assertEqual((seqs, self.sleeps), ([1], [5.0]))

    def test_waits_double_while_connections_bring_nothing(self):
        empty = (200, {}, b": hb\n\n")
        seqs, _ = self.follow([(503, {}, b""), empty, empty, (200, {}, entry(1).encode())], 1)
        self.assertEqual((seqs, self.sleeps), ([1], [0.5, 1.0, 2.0]))

    def test_a_refusal_is_raised_naming_it(self):
        refusal = (422, {"Content-Type": "application/json"}, b'{"detail":[{"loc":["query","type"]}]}')
        with self.assertRaises(EventStreamError) as caught:
            self.follow([refusal], 1, types=["no_such_type"])
        self.assertEqual(caught.exception.status, 422)
        self.assertIn('"query","type"', str(caught.exception))

    def test_an_answer_that_is_not_an_event_stream_is_raised(self):
        with self.assertRaisesRegex(EventStreamError, "text/html, not text/event-stream"):
            self.follow([(200, {"Content-Type": "text/html"}, b"<html>")], 1)

    def test_an_entry_that_is_not_json_is_raised(self):
        with self.assertRaisesRegex(EventStreamError, "id '7'.* not a ledger entry"):
            self.follow([(200, {}, b"id: 7\nevent: entry\ndata: {oops\n\n")], 1)

    def test_a_line_past_the_bound_is_raised(self):
        with self.assertRaisesRegex(SseError, "a line passed"):
            self.follow([(200, {}, b"data: " + b"x" * (1024 * 1024 + 10))], 1)

    def test_the_url_carries_the_filters(self):
        self.assertEqual(events_url("http://h/", ["vote_cast", "motion_opened"], "system", (3, 4), 7),
                         "http://h/api/v1/events?from=7&type=vote_cast,motion_opened&actor=system&chunk=3,4")


if __name__ == "__main__":
    unittest.main()
