"""A Tessera client over urllib (docs/protocol.md): signed requests with nonces handed over in
X-Next-Nonce, the same request resent after a lost answer or a 503 with Retry-After, refusals
raised as TesseraError."""

import copy
import json
import socket
import time
import urllib.error
import urllib.parse
import urllib.request

from .events import follow_ledger
from .pom import solve_challenge
from .signing import sign_request

__all__ = ["TesseraClient", "TesseraError", "SignedRequest", "Answer", "fill_defaults"]

NONCE_LIFETIME_S = 300.0
RETRY_FOR_S = 30.0
WAITS_S = (0.25, 0.5, 1.0)  # then 2 s each
# The routes of the catalogue's acts, whose answers the server keeps for a resend (protocol.md,
# "Retrying is safe"); the payment, grant and operator routes keep none.
KEPT_ANSWER_ROUTES = {"/api/v1/act", "/api/v1/register", "/api/v1/keys/backup", "/api/v1/keys/rotate",
                      "/api/v1/pom/challenge"}


class TesseraError(Exception):
    """A refusal: the HTTP status, the code (body["error"], "VALIDATION" for a 422 detail, or
    "HTTP_<status>"), and the parsed body."""

    def __init__(self, status, code, body, message=None):
        self.status = status
        self.code = code
        self.body = body
        text = message or (body.get("message") if isinstance(body, dict) else None) or ""
        super().__init__(f"{status} {code}: {text}")


class SignedRequest:
    """One signed request, exactly as sent: resending it resends the same nonce and signature."""

    def __init__(self, method, path, agent_id, nonce, body_text, signature, nonce_fetched_at):
        self.method = method
        self.path = path
        self.agent_id = agent_id
        self.nonce = nonce
        self.body_text = body_text
        self.signature = signature
        self.nonce_fetched_at = nonce_fetched_at

    def headers(self):
        headers = {"X-Agent-Id": self.agent_id, "X-Nonce": self.nonce, "X-Signature": self.signature}
        if self.body_text:
            headers["Content-Type"] = "application/json"
        return headers


class Answer:
    """An HTTP answer: status, headers (lower-cased names), parsed JSON body (or text)."""

    def __init__(self, status, headers, body):
        self.status = status
        self.headers = headers
        self.body = body

    @property
    def replayed(self):
        return self.headers.get("idempotent-replayed") == "true"

    def __repr__(self):
        return f"Answer({self.status}, replayed={self.replayed})"


def fill_defaults(schema, value):
    """The value with every default its JSON Schema declares written out (recursively into
    objects the schema describes), so that what is signed is what the server canonicalises."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        out = dict(value)
        for name, sub in schema["properties"].items():
            if name not in out:
                if isinstance(sub, dict) and "default" in sub:
                    out[name] = copy.deepcopy(sub["default"])
            else:
                out[name] = fill_defaults(sub, out[name])
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [fill_defaults(schema["items"], item) for item in value]
    for key in ("anyOf", "oneOf"):
        for option in schema.get(key, []) or []:
            if isinstance(option, dict) and option.get("type") == "object" and isinstance(value, dict):
                return fill_defaults(option, value)
    return value


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


def _network_errors():
    return (urllib.error.URLError, ConnectionError, socket.timeout, TimeoutError, OSError)


class TesseraClient:
    """client = TesseraClient("https://society.example", AgentKey.generate())"""

    def __init__(self, base_url, key=None, timeout=10.0, retry_for=RETRY_FOR_S, sleep=time.sleep):
        self.base_url = base_url.rstrip("/")
        self.key = key
        self.timeout = timeout
        self.retry_for = retry_for
        self.sleep = sleep
        self._next_nonce = None  # (nonce, valid until, on the monotonic clock)
        self._rules = None
        self.last_answer = None
        # Redirects are followed by _http itself, with the request unchanged.
        self._opener = urllib.request.build_opener(_NoRedirect)

    # --- HTTP -------------------------------------------------------------------------------

    def _http(self, method, path, body_bytes=None, headers=None):
        """One sending; returns an Answer for any HTTP status, raises on a network failure. A 307 or
        308 (a read replica pointing at the writer) is followed with the very same request, up to
        five times: the signature covers the path, never the host."""
        url = self.base_url + path
        for _ in range(5):
            answer = self._http_once(method, url, body_bytes, headers)
            location = answer.headers.get("location")
            if answer.status not in (307, 308) or not location:
                return answer
            url = urllib.parse.urljoin(url, location)
        return answer

    def _http_once(self, method, url, body_bytes, headers):
        request = urllib.request.Request(url, data=body_bytes, method=method, headers=dict(headers or {}))
        request.add_header("Accept", "application/json")
        try:
            response = self._opener.open(request, timeout=self.timeout)
        except urllib.error.HTTPError as error:
            response = error
        with response:
            raw = response.read()
            status = response.status if hasattr(response, "status") else response.code
            answer_headers = {k.lower(): v for k, v in response.headers.items()}
        content_type = answer_headers.get("content-type", "")
        if "json" in content_type:
            try:
                body = json.loads(raw.decode("utf-8"))
            except ValueError:
                body = raw.decode("utf-8", "replace")
        else:
            body = raw.decode("utf-8", "replace")
        return Answer(status, answer_headers, body)

    @staticmethod
    def _raise_for(answer):
        if 200 <= answer.status < 300:
            return
        body = answer.body
        if isinstance(body, dict) and isinstance(body.get("error"), str):
            code = body["error"]
        elif answer.status == 422 and isinstance(body, dict) and "detail" in body:
            code = "VALIDATION"
        else:
            code = f"HTTP_{answer.status}"
        raise TesseraError(answer.status, code, body)

    def get(self, path, params=None):
        """An unsigned GET: the parsed answer, or TesseraError. Reads are retried on network failures."""
        if params:
            path += ("&" if "?" in path else "?") + urllib.parse.urlencode(params)
        answer = self._with_retries(lambda: self._http("GET", path))
        self.last_answer = answer
        self._raise_for(answer)
        return answer.body

    read = get

    # --- Nonces -----------------------------------------------------------------------------

    def nonce(self):
        """A fresh nonce for this client's agent from GET /api/v1/nonce (ignores the handed-over one)."""
        return self._fetch_nonce(self.key.agent_id)[0]

    def _fetch_nonce(self, agent_id):
        fetched_at = time.monotonic()
        answer = self.get("/api/v1/nonce", {"agent": agent_id})
        return answer["nonce"], fetched_at

    def _take_nonce(self, agent_id):
        held = self._next_nonce
        self._next_nonce = None
        if held and held[0] == agent_id and time.monotonic() < held[2] - 5:
            return held[1], held[2] - NONCE_LIFETIME_S
        return self._fetch_nonce(agent_id)

    def _keep_next_nonce(self, answer, agent_id):
        nonce = answer.headers.get("x-next-nonce")
        if nonce:
            self._next_nonce = (agent_id, nonce, time.monotonic() + NONCE_LIFETIME_S)

    # --- Signed requests --------------------------------------------------------------------

    def prepare(self, method, path, body=None, key=None, agent_id=None):
        """Signs a request with a nonce (the handed-over one when it is fresh) without sending it."""
        key = key or self.key
        agent_id = agent_id or key.agent_id
        nonce, fetched_at = self._take_nonce(agent_id)
        body_text, signature = sign_request(key, method, path, nonce, body, agent_id)
        return SignedRequest(method.upper(), path, agent_id, nonce, body_text, signature, fetched_at)

    def send(self, request):
        """Sends a signed request once as it is (a resend is the very same bytes); returns the Answer
        and keeps the X-Next-Nonce it carries."""
        data = request.body_text.encode("utf-8") if request.body_text else None
        answer = self._http(request.method, request.path, data, request.headers())
        self._keep_next_nonce(answer, request.agent_id)
        self.last_answer = answer
        return answer

    def _with_retries(self, send_once, on_lost=None):
        """Sends until an answer other than 503-with-Retry-After arrives, resending the same request
        after a network failure (0.25, 0.5, 1, then 2 s apart) for retry_for seconds."""
        started = time.monotonic()
        attempt = 0
        while True:
            try:
                answer = send_once()
            except _network_errors():
                if on_lost:
                    on_lost()
                if time.monotonic() - started >= self.retry_for:
                    raise
                self.sleep(WAITS_S[attempt] if attempt < len(WAITS_S) else 2.0)
                attempt += 1
                continue
            retry_after = answer.headers.get("retry-after")
            if answer.status == 503 and retry_after is not None:
                try:
                    wait = float(retry_after)
                except ValueError:
                    wait = 1.0
                if time.monotonic() - started + wait <= self.retry_for:
                    self.sleep(max(wait, 0.0))
                    continue
            return answer

    def signed(self, method, path, body=None, key=None, agent_id=None):
        """Signs, sends and follows the retry rules of protocol.md; returns the parsed answer of a 2xx,
        raises TesseraError on a refusal, or with code OUTCOME_UNKNOWN when an answer was lost and
        whether the request was applied cannot be known (look for it on the ledger then)."""
        resigned = False
        keeps_answers = path.split("?")[0] in KEPT_ANSWER_ROUTES
        while True:
            request = self.prepare(method, path, body, key, agent_id)
            lost = []
            try:
                answer = self._with_retries(lambda: self.send(request), on_lost=lambda: lost.append(1))
            except _network_errors() as error:
                raise TesseraError(0, "OUTCOME_UNKNOWN", {"error": "OUTCOME_UNKNOWN", "message": str(error)},
                                   f"no answer to {method} {path} by {request.agent_id} in {self.retry_for:g} s: "
                                   "look for it on the ledger before signing it again") from error
            code = answer.body.get("error") if isinstance(answer.body, dict) else None
            if answer.status == 401 and code == "NONCE_INVALID" and not resigned:
                nonce_alive = time.monotonic() - request.nonce_fetched_at < NONCE_LIFETIME_S
                if not lost or (nonce_alive and keeps_answers):
                    # Refused before anything was touched, or a resend of an act refused while its
                    # nonce lived (had it been applied, the kept answer would have come back).
                    self._next_nonce = None
                    resigned = True
                    continue
                raise TesseraError(answer.status, "OUTCOME_UNKNOWN", answer.body,
                                   "an answer was lost and the resend was refused NONCE_INVALID "
                                   "(the nonce expired, or the route keeps no answers): look for it on the ledger")
            self._raise_for(answer)
            return answer.body

    # --- Acts ---------------------------------------------------------------------------------

    def rules(self, refresh=False):
        """/.well-known/agent-rules.json, fetched once."""
        if self._rules is None or refresh:
            self._rules = self.get("/.well-known/agent-rules.json")
        return self._rules

    def act_rule(self, name):
        for act in self.rules().get("acts", []):
            if act.get("name") == name:
                return act
        raise TesseraError(0, "UNKNOWN_ACT", {"error": "UNKNOWN_ACT", "message": f"no act {name!r} in agent-rules.json"})

    def act_body(self, name, payload=None, challenge_id=None, puzzle_solution=None):
        """(method, path, body) of an act, its payload's declared defaults filled in."""
        rule = self.act_rule(name)
        filled = fill_defaults(rule.get("payload_schema"), dict(payload or {}))
        via = rule.get("via") or {}
        if via.get("act"):
            return "POST", "/api/v1/act", {"act": name, "challenge_id": challenge_id,
                                           "puzzle_solution": puzzle_solution, "payload": filled}
        method, route = via["route"].split(" ", 1)
        return method, route, filled

    def needs_pom(self, name):
        """Whether the catalogue says the act needs a Proof of Machine answer (gates.proof_of_machine)."""
        return bool((self.act_rule(name).get("gates") or {}).get("proof_of_machine"))

    def pom_answer(self, intent):
        """(challenge_id, puzzle_solution) for the act named `intent`: asks POST /api/v1/pom/challenge
        and solves the challenge (tessera/pom.py); PomError for a kind this client does not know."""
        challenge = self.signed("POST", "/api/v1/pom/challenge", {"intent": intent})
        return challenge["challenge_id"], solve_challenge(challenge)

    def act(self, name, payload=None, challenge_id=None, puzzle_solution=None, solve_pom=True):
        """Performs an act signed by this client's key (POST /api/v1/act, or the act's own route
        when it has no place there); returns the answer (result, ledger, receipt).

        An act the catalogue gates by Proof of Machine gets a challenge asked for and answered
        first, unless an answer is given or solve_pom is False (to send it as it is)."""
        if challenge_id is not None or puzzle_solution is not None or not solve_pom:
            return self.signed(*self.act_body(name, payload, challenge_id, puzzle_solution))
        pom = self.pom_answer(name) if self.needs_pom(name) else (None, None)
        try:
            return self.signed(*self.act_body(name, payload, *pom))
        except TesseraError as refusal:
            # A refused act was not applied, so signing it anew is safe. POM_REQUIRED or
            # POM_NOT_REQUIRED: the catalogue read earlier is out of date. POM_FAILED to an
            # answer of ours: it came too late (resends over a slow network outlived the deadline).
            if refusal.code in ("POM_REQUIRED", "POM_NOT_REQUIRED"):
                self.rules(refresh=True)
            if refusal.code == "POM_REQUIRED" or (refusal.code == "POM_FAILED" and pom[0] is not None):
                pom = self.pom_answer(name)
            elif refusal.code == "POM_NOT_REQUIRED":
                pom = (None, None)
            else:
                raise
            return self.signed(*self.act_body(name, payload, *pom))

    def register(self, handle, declared_runtime="", backup_pubkey=None):
        """POST /api/v1/register, signed by the key it registers."""
        return self.signed("POST", "/api/v1/register", {
            "pubkey": self.key.public_key, "handle": handle,
            "declared_runtime": declared_runtime, "backup_pubkey": backup_pubkey,
        })

    # --- The log ------------------------------------------------------------------------------

    def log_key(self):
        """The log's verifier key (GET /log/key): get it once from a source you trust, and keep it."""
        return self.get("/log/key").strip()

    def receipt(self, seq):
        return self.get(f"/log/receipt/{int(seq)}")

    def ledger_page(self, from_seq=1, limit=500):
        return self.get("/api/v1/ledger", {"from": from_seq, "limit": limit})

    def ledger_entries(self, limit=500):
        """Every committed entry, following next_from."""
        from_seq = 1
        while True:
            page = self.ledger_page(from_seq, limit)
            yield from page["entries"]
            if page.get("next_from") is None:
                return
            from_seq = page["next_from"]

    # --- The event stream -------------------------------------------------------------------

    def events(self, types=None, actor=None, chunk=None, from_seq=None, after_seq=None, **options):
        """The ledger as it grows (GET /api/v1/events): a generator of entries matching the filters
        (`types`, any of; `actor`, an agent id or "system"; `chunk`, (chunk_x, chunk_y)), each once,
        in seq order, reconnecting and resuming by itself (tessera/events.py). Starts at `from_seq`,
        or right after `after_seq`, or, with neither, after the ledger's head as read now: an entry
        committed while the first connection is being made is not missed. `on_rewritten=` is told
        when a restore rewrote history already yielded (follow_ledger says how)."""
        if from_seq is None and after_seq is None:
            head = self.ledger_page(1, 1).get("head") or {}
            after_seq = head.get("seq", 0)
        options.setdefault("sleep", self.sleep)
        return follow_ledger(self.base_url, types, actor, chunk, from_seq, after_seq, **options)


