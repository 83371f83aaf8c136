"""Server-Sent Events, parsed as the WHATWG HTML standard says ("Interpreting an event stream"),
with bounds on what a peer can make this process hold.

The decoder is fed bytes as they arrive, in chunks of any size: a line may end in CRLF, LF or
a lone CR, even one split across two chunks. An event is dispatched by a blank line only; what
is left when the stream ends (a cut connection) is discarded, as the standard requires.
"""

import re
from dataclasses import dataclass

__all__ = ["SseDecoder", "SseEvent", "SseError", "LINE_BYTES_MAX", "DATA_BYTES_MAX"]

# The society holds at most 1 MiB unsent per stream (protocol.md, "Bounds"), and a ledger entry
# is far smaller (65,000 bytes stored), so no honest event comes near these; past them the peer
# is broken or hostile, and reading on would let it fill this process's memory.
LINE_BYTES_MAX = 1024 * 1024
DATA_BYTES_MAX = 1024 * 1024

_LINE_END = re.compile(rb"\r\n|\r|\n")
_DIGITS = re.compile(r"[0-9]+")
_BOM = "\ufeff"


class SseError(ValueError):
    """A stream this decoder refuses to read on: a line or an event's data past its bound."""


@dataclass(frozen=True)
class SseEvent:
    """One dispatched event: its type ("message" unless an `event:` field named one), its data
    (the `data:` lines joined by LF), and the last event id in force when it was dispatched."""

    type: str
    data: str
    id: str


class SseDecoder:
    """decoder.feed(chunk) -> the events completed by that chunk."""

    def __init__(self, line_bytes_max=LINE_BYTES_MAX, data_bytes_max=DATA_BYTES_MAX):
        self.line_bytes_max = line_bytes_max
        self.data_bytes_max = data_bytes_max
        self.last_event_id = ""
        self.retry_ms = None  # the reconnection time the server asked for, if it did
        self.comments = 0  # heartbeats, among others
        self._pending = bytearray()
        self._first_line = True
        # A chunk ended in CR: if the next one opens with LF, that LF ends no second line.
        self._lf_may_follow = False
        self._data = []
        self._data_bytes = 0
        self._event_type = ""
        self._id_buffer = ""

    def feed(self, chunk):
        events = []
        position = 0
        if self._lf_may_follow and chunk[:1] == b"\n":
            position = 1
        self._lf_may_follow = False
        while True:
            end = _LINE_END.search(chunk, position)
            if end is None:
                break
            self._pending += chunk[position:end.start()]
            self._check_line_length()
            line, self._pending = bytes(self._pending), bytearray()
            self._lf_may_follow = end.group() == b"\r" and end.end() == len(chunk)
            event = self._line(line)
            if event is not None:
                events.append(event)
            position = end.end()
        self._pending += chunk[position:]
        self._check_line_length()
        return events

    def incomplete(self):
        """Whether bytes of an undispatched event are held: the stream ending now would lose them."""
        return bool(self._pending or self._data or self._event_type)

    def _check_line_length(self):
        if len(self._pending) > self.line_bytes_max:
            raise SseError(f"event stream: a line passed {self.line_bytes_max} bytes without ending")

    def _line(self, raw):
        text = raw.decode("utf-8", "replace")
        if self._first_line:
            self._first_line = False
            if text.startswith(_BOM):
                text = text[1:]
        if text == "":
            return self._dispatch()
        if text.startswith(":"):
            self.comments += 1
            return None
        name, colon, value = text.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        self._field(name, value)
        return None

    def _field(self, name, value):
        if name == "event":
            self._event_type = value
        elif name == "data":
            self._data_bytes += len(value.encode("utf-8")) + 1
            if self._data_bytes > self.data_bytes_max:
                raise SseError(f"event stream: an event's data passed {self.data_bytes_max} bytes")
            self._data.append(value)
        elif name == "id":
            if "\0" not in value:
                self._id_buffer = value
        elif name == "retry":
            if _DIGITS.fullmatch(value):
                self.retry_ms = int(value)
        # Any other field is ignored, as the standard says.

    def _dispatch(self):
        self.last_event_id = self._id_buffer
        data, event_type = self._data, self._event_type
        self._data, self._data_bytes, self._event_type = [], 0, ""
        if not data:
            return None
        return SseEvent(event_type or "message", "\n".join(data), self.last_event_id)
