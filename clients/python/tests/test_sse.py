"""The SSE decoder (tessera/sse.py) on the WHATWG rules and on hostile input."""

import os
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))

from tessera import SseDecoder, SseError, SseEvent  # noqa: E402


def decode(*chunks, **bounds):
    decoder = SseDecoder(**bounds)
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events, decoder


def split_everywhere(stream):
    """Every way of cutting the stream in two: an event must not depend on where a read ended."""
    return [(stream[:i], stream[i:]) for i in range(len(stream) + 1)]


class Fields(unittest.TestCase):
    def test_an_entry_event_as_the_server_writes_it(self):
        events, decoder = decode(b'retry: 2000\n\nid: 412\nevent: entry\ndata: {"seq":412}\n\n')
        self.assertEqual(events, [SseEvent("entry", '{"seq":412}', "412")])
        self.assertEqual(decoder.retry_ms, 2000)
        self.assertEqual(decoder.last_event_id, "412")

    def test_multi_line_data_is_joined_with_lf(self):
        events, _ = decode(b"data: one\ndata:two\ndata:  three\ndata\n\n")
        self.assertEqual(events, [SseEvent("message", "one\ntwo\n three\n", "")])

    def test_comments_and_heartbeats_dispatch_nothing(self):
        events, decoder = decode(b": keep-alive\n\n:\n\n: x\ndata: a\n\n")
        self.assertEqual(events, [SseEvent("message", "a", "")])
        self.assertEqual(decoder.comments, 3)

    def test_an_event_without_data_is_not_dispatched_but_its_id_counts(self):
        events, decoder = decode(b"id: 7\nevent: entry\n\ndata: b\n\n")
        self.assertEqual(events, [SseEvent("message", "b", "7")])
        self.assertEqual(decoder.last_event_id, "7")

    def test_an_id_with_nul_is_ignored_and_the_id_carries_over(self):
        events, _ = decode(b"id: 1\ndata: a\n\nid: 2\x00\ndata: b\n\n")
        self.assertEqual([e.id for e in events], ["1", "1"])

    def test_retry_takes_ascii_digits_only(self):
        for line, expected in [(b"retry: 1500\n", 1500), (b"retry: 15s\n", None), (b"retry: -1\n", None),
                               ("retry: \u0661\u0662\n".encode(), None), (b"retry:\n", None)]:
            with self.subTest(line=line):
                self.assertEqual(decode(line)[1].retry_ms, expected)

    def test_unknown_fields_are_ignored_and_a_field_without_colon_has_an_empty_value(self):
        events, _ = decode(b"foo: bar\nevent\ndata: x\n\n")
        self.assertEqual(events, [SseEvent("message", "x", "")])

    def test_a_leading_bom_is_dropped_once(self):
        events, _ = decode(b"\xef\xbb\xbfdata: a\n\n\xef\xbb\xbfdata: b\n\n")
        self.assertEqual([e.data for e in events], ["a"])  # the second BOM makes an unknown field name

    def test_invalid_utf8_is_replaced(self):
        events, _ = decode(b"data: \xff\n\n")
        self.assertEqual(events[0].data, "\ufffd")


class LineEnds(unittest.TestCase):
    STREAM = "id: 5\nevent: entry\ndata: a\ndata: b\n\n: hb\n\nid: 6\nevent: entry\ndata: c\n\n"
    EXPECTED = [SseEvent("entry", "a\nb", "5"), SseEvent("entry", "c", "6")]

    def test_crlf_lf_and_cr_give_the_same_events(self):
        for end in ("\n", "\r\n", "\r"):
            with self.subTest(end=end):
                self.assertEqual(decode(self.STREAM.replace("\n", end).encode())[0], self.EXPECTED)

    def test_mixed_line_ends(self):
        events, _ = decode(b"data: a\r\ndata: b\rdata: c\n\r\n")
        self.assertEqual(events, [SseEvent("message", "a\nb\nc", "")])

    def test_a_crlf_split_between_reads_is_one_line_end(self):
        for end in ("\n", "\r\n", "\r"):
            stream = self.STREAM.replace("\n", end).encode()
            for first, second in split_everywhere(stream):
                with self.subTest(end=end, cut=len(first)):
                    self.assertEqual(decode(first, second)[0], self.EXPECTED)

    def test_one_byte_at_a_time(self):
        stream = self.STREAM.replace("\n", "\r\n").encode()
        self.assertEqual(decode(*[stream[i:i + 1] for i in range(len(stream))])[0], self.EXPECTED)


class Hostile(unittest.TestCase):
    def test_a_line_past_the_bound_is_refused_before_it_ends(self):
        decoder = SseDecoder(line_bytes_max=1000)
        decoder.feed(b"data: " + b"x" * 900)
        with self.assertRaisesRegex(SseError, "a line passed 1000 bytes"):
            decoder.feed(b"x" * 200)  # no line end yet: refused as it grows, not once it ends

    def test_a_line_at_the_bound_is_read(self):
        events, _ = decode(b"data:" + b"x" * 995 + b"\n\n", line_bytes_max=1000)
        self.assertEqual(len(events[0].data), 995)

    def test_an_event_whose_data_lines_pass_the_bound_is_refused(self):
        with self.assertRaisesRegex(SseError, "data passed 1000 bytes"):
            decode(b"data: " + b"x" * 600 + b"\n" + b"data: " + b"y" * 600 + b"\n", data_bytes_max=1000)

    def test_data_without_a_trailing_blank_line_is_never_dispatched(self):
        events, decoder = decode(b"id: 1\ndata: a\n\nid: 2\ndata: b\n")
        self.assertEqual([e.data for e in events], ["a"])
        self.assertTrue(decoder.incomplete())  # the stream ending here loses event 2, as it must
        self.assertEqual(decoder.last_event_id, "1")  # so a resume asks again from after 1

    def test_an_event_cut_mid_line_is_held_not_dispatched(self):
        events, decoder = decode(b'id: 3\nevent: entry\ndata: {"seq":')
        self.assertEqual(events, [])
        self.assertTrue(decoder.incomplete())
        self.assertEqual(decoder.last_event_id, "")

    def test_blank_lines_alone_dispatch_nothing(self):
        self.assertEqual(decode(b"\n\n\r\n\r\r")[0], [])


if __name__ == "__main__":
    unittest.main()
