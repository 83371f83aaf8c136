"""Following the ledger as it grows: GET /api/v1/events (protocol.md, "Following the society
without polling"), one entry at a time, reconnecting by itself.

Every entry matching the filters is yielded once, in seq order: after a dropped connection the
stream is asked again with `Last-Event-ID: <the last seq yielded>`, after a `dropped` event from
`resume_from` on (sent as `Last-Event-ID: <resume_from - 1>`, which the server reads the same way).
After a restore rewound the ledger past the last seq yielded, the server says so with a
`rewritten` event; the follower hands it to `on_rewritten` and goes on from its `rewritten_from`.
"""

import http.client
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

from .sse import SseDecoder

__all__ = ["follow_ledger", "EventStreamError", "events_url"]

EVENTS_PATH = "/api/v1/events"
# The server sends a comment every 15 s on an idle stream: three missed means the connection
# is dead even when TCP has not said so (a proxy that hangs, a peer gone without a FIN).
READ_TIMEOUT_S = 45.0
# The server hands its socket 64 KiB at a time; reading as much at once keeps up with it.
READ_BYTES = 64 * 1024
# Waits between reconnects: the server's `retry:` (2 s) when it sent one, doubling after each
# connection that brought nothing, up to this; back to the first wait once an entry arrives.
FIRST_WAIT_S = 0.5
WAIT_MAX_S = 30.0


class EventStreamError(Exception):
    """What a reconnect cannot mend: the stream refused (a 4xx other than 429: a bad filter, a
    bad Last-Event-ID), answered with something that is not an event stream, or sent an entry
    that is not JSON. status is the HTTP status (0 when the answer was a 2xx), body its text."""

    def __init__(self, status, body, message):
        self.status = status
        self.body = body
        super().__init__(message)


class _RetryLater(Exception):
    """A refusal that passes: 429 (too many streams from this address) or a 5xx."""

    def __init__(self, seconds):
        self.seconds = seconds


def _network_errors():
    # http.client.IncompleteRead: a chunked answer cut between or inside its chunks.
    return (urllib.error.URLError, http.client.HTTPException, ConnectionError, socket.timeout, TimeoutError, OSError)


def events_url(base_url, types=None, actor=None, chunk=None, from_seq=None):
    """The stream's URL: `type` (any of), `actor`, `chunk` ((chunk_x, chunk_y)) and `from`."""
    query = {}
    if from_seq is not None:
        query["from"] = int(from_seq)
    if types:
        query["type"] = ",".join(types)
    if actor:
        query["actor"] = actor
    if chunk is not None:
        query["chunk"] = f"{int(chunk[0])},{int(chunk[1])}"
    text = urllib.parse.urlencode(query, safe=",")
    return base_url.rstrip("/") + EVENTS_PATH + (f"?{text}" if text else "")


def _retry_after(headers, fallback):
    try:
        return max(0.0, float(headers.get("Retry-After", "")))
    except ValueError:
        return fallback


def _open(url, after_seq, read_timeout):
    headers = {"Accept": "text/event-stream", "Cache-Control": "no-cache"}
    if after_seq is not None:
        headers["Last-Event-ID"] = str(after_seq)
    try:
        response = urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=read_timeout)
    except urllib.error.HTTPError as refusal:
        with refusal:
            body = refusal.read(64 * 1024).decode("utf-8", "replace")
        if refusal.code == 429 or refusal.code >= 500:
            raise _RetryLater(_retry_after(refusal.headers, None)) from refusal
        raise EventStreamError(refusal.code, body,
                               f"the event stream refused {url}: {refusal.code} {body[:500]}") from refusal
    content_type = response.headers.get("Content-Type", "")
    if not content_type.startswith("text/event-stream"):
        response.close()
        raise EventStreamError(0, "", f"{url} answered {content_type or 'no Content-Type'}, not text/event-stream")
    return response


def _parse_entry(event):
    try:
        entry = json.loads(event.data)
        seq = entry["seq"]
    except (ValueError, TypeError, KeyError) as error:
        raise EventStreamError(0, event.data[:500], f"an entry event (id {event.id!r}) is not a ledger entry: {error}")
    if not isinstance(seq, int) or isinstance(seq, bool):
        raise EventStreamError(0, event.data[:500], f"an entry event (id {event.id!r}) has no integer seq")
    return entry


def _rewritten(event):
    try:
        told = json.loads(event.data)
        return {"rewritten_from": int(told["rewritten_from"]), "last_event_id": int(told["last_event_id"])}
    except (ValueError, TypeError, KeyError) as error:
        raise EventStreamError(0, event.data[:500], f"a rewritten event names no rewritten_from: {error}")


def _resume_from(event):
    try:
        return int(json.loads(event.data)["resume_from"])
    except (ValueError, TypeError, KeyError) as error:
        raise EventStreamError(0, event.data[:500], f"a dropped event names no resume_from: {error}")


def follow_ledger(base_url, types=None, actor=None, chunk=None, from_seq=None, after_seq=None,
                  read_timeout=READ_TIMEOUT_S, sleep=time.sleep, on_rewritten=None):
    """Yields each ledger entry (a dict, exactly as GET /api/v1/ledger serves it) matching the
    filters, once, in seq order, for as long as it is iterated; closing the generator (a break)
    closes the connection. Start at `from_seq`, or right after `after_seq` (a seq already seen),
    or, with neither, at whatever commits after the first connection. Raises EventStreamError
    on what reconnecting cannot mend, SseError on a line or an event past its bound.

    When the stream says a restore rewrote the history from `rewritten_from` on (protocol.md,
    "After a restore"), `on_rewritten` is called with the event's data, a dict
    {"rewritten_from": seq, "last_event_id": seq}, before the next entry: drop what you derived
    from the entries yielded at or after rewritten_from. The entries from rewritten_from on are
    then yielded, so seqs go back; without on_rewritten only that tells."""
    url = events_url(base_url, types, actor, chunk, from_seq)
    first_wait = FIRST_WAIT_S
    wait = first_wait
    while True:
        try:
            response = _open(url, after_seq, read_timeout)
        except _RetryLater as busy:
            sleep(busy.seconds if busy.seconds is not None else wait)
            wait = min(WAIT_MAX_S, wait * 2)
            continue
        except _network_errors():
            sleep(wait)
            wait = min(WAIT_MAX_S, wait * 2)
            continue
        decoder = SseDecoder()
        with response:
            try:
                while True:
                    chunk = response.read1(READ_BYTES)
                    if not chunk:
                        break  # the server ended the stream: a restart, a cut-off after `dropped`
                    for event in decoder.feed(chunk):
                        if event.type == "entry":
                            entry = _parse_entry(event)
                            # The server sends each entry once; a seq not past the last one
                            # yielded could only come from a broken peer, and is not repeated.
                            if after_seq is not None and entry["seq"] <= after_seq:
                                continue
                            after_seq = entry["seq"]
                            wait = first_wait
                            yield entry
                        elif event.type == "rewritten":
                            rewritten = _rewritten(event)
                            # The entries from rewritten_from on are this history's, not the ones
                            # yielded under those seqs; the event has no id, so a reconnect before
                            # the next entry must resume there too.
                            after_seq = rewritten["rewritten_from"] - 1
                            if on_rewritten is not None:
                                on_rewritten(rewritten)
                        elif event.type == "dropped":
                            # Everything before resume_from was sent (or filtered out) already.
                            after_seq = max(after_seq or 0, _resume_from(event) - 1)
            except _network_errors():
                pass  # a reset (the server's stall cut-off), a read timeout: resume after the last seq
        if decoder.retry_ms is not None:
            first_wait = decoder.retry_ms / 1000
            wait = max(wait, first_wait)
        sleep(wait)
        wait = min(WAIT_MAX_S, wait * 2)
