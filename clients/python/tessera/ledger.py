"""The ledger verifier (docs/protocol.md, "The ledger" and "Ledger revisions and ap_spent"):
sequence, hash chain, each entry's hash, every proof's signature against the keys registered
earlier on the same ledger, strong keys, no nonce twice, the signed request matching the entry
it opens, follow-up entries belonging to the request before them, and ap_spent on revision 1.
Which event types, acts and fields each rule concerns is the event catalogue's to say (event_catalogue.py)."""

import hashlib
import json
import re

from .canonical import canonicalize, CanonicalError
from .keys import agent_id_of, is_strong_public_key
from .signing import signing_string, verify_signature
from .event_catalogue import (AP_SPENDING_ACTS, AP_SPENT_LEDGER_REVISION, FOLLOW_UP_OPENERS, GENERIC_ACT_ROUTE,
                              act_of_signed, event_class, event_declaration, follow_up_key, opening_declaration)

__all__ = ["LedgerChecker", "verify_ledger", "event_class"]

ZERO_HASH = "0" * 64
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
_ABSENT = object()


def _sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_number(value):
    # JSON's numbers as JavaScript compares them: Python's bools are ints, but never numbers here.
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_safe_integer(value):
    # Number.isSafeInteger: JSON's 5.0 is the whole number 5, as JavaScript reads it.
    whole = value.is_integer() if isinstance(value, float) else _is_number(value)
    return whole and abs(value) <= 2**53 - 1


def _same(a, b):
    if a is _ABSENT or b is _ABSENT:
        return a is b
    try:
        return canonicalize(a) == canonicalize(b)
    except CanonicalError:
        return False


def _act_of_proof(proof):
    if not isinstance(proof.get("body"), str):
        return None
    return act_of_signed(proof["path"].split("?")[0], json.loads(proof["body"]))


class LedgerChecker:
    """Feed entries in order to check(); each returns None, or (seq, reason) for the first problem."""

    def __init__(self):
        self.expected_seq = 1
        self.last_hash = ZERO_HASH
        self.keys = {}  # agent id -> {"primary", "backup"}
        self.nonces_seen = set()
        self.opening = None
        self.ledger_revision = 0
        self.ap_spent_due = None

    @property
    def checked(self):
        return self.expected_seq - 1

    def check(self, entry):
        seq = self.expected_seq

        def fail(reason):
            return seq, reason

        if not isinstance(entry, dict):
            return fail("entry is not an object")
        if not _is_number(entry.get("seq")) or entry["seq"] != seq:
            return fail(f"expected seq {seq}, found {entry.get('seq')}")
        if entry.get("prev_hash") != self.last_hash:
            return fail("prev_hash does not match the previous entry's hash")
        try:
            text = canonicalize({k: v for k, v in entry.items() if k != "hash"})
        except CanonicalError:
            return fail("the entry has no canonical form")
        if _sha256_hex(text) != entry.get("hash"):
            return fail("hash does not match the entry's content")
        if not isinstance(entry.get("data"), dict) or not isinstance(entry.get("event_type"), str) \
                or not isinstance(entry.get("actor"), str):
            return fail("entry lacks event_type, actor or data")
        problem = self._weak_key(entry) or self._missing_ap_spent(entry) or self._check_proof(entry)
        if problem:
            return fail(problem)
        self._learn_keys(entry)
        self._note_request(entry)
        self.expected_seq += 1
        self.last_hash = entry["hash"]
        return None

    # -- the rules --

    @staticmethod
    def _weak_key(entry):
        # A key that is not a canonical prime-order point proves nothing, so no ledger may register one.
        declaration = opening_declaration(entry["event_type"]) or {}
        for key_field in declaration.get("key_fields", []):
            key = entry["data"].get(key_field["field"], _ABSENT)
            if key is None and key_field.get("nullable"):
                continue
            if not isinstance(key, str) or not is_strong_public_key(key):
                return f"data.{key_field['field']} is not a canonical prime-order ed25519 key"
        return None

    def _check_proof(self, entry):
        proof, data, event_type, actor = entry.get("proof"), entry["data"], entry["event_type"], entry["actor"]
        opening = opening_declaration(event_type) or {}
        founder_genesis = opening.get("at_genesis_without_proof") is True and entry["seq"] == 2 \
            and data.get("role") == "founder"
        kind = event_class(event_type)
        # An agent's event by "system" would carry no proof, yet its data still names the agent.
        if kind is None or (kind == "system") != (actor == "system"):
            who = "the system" if actor == "system" else "an agent"
            return f"{event_type} is not an entry {who} can be the actor of"
        if proof is None:
            if kind == "opens_request" and not founder_genesis:
                return f"{event_type} carries no proof"
            return self._stray_follow_up(entry) if kind == "follows_request" else None
        if not isinstance(proof, dict) or not all(isinstance(proof.get(k), str)
                                                  for k in ("method", "path", "nonce", "signature")):
            return "proof lacks method, path, nonce or signature"
        has_body, has_digest = isinstance(proof.get("body"), str), isinstance(proof.get("body_sha256"), str)
        if has_body == has_digest or (has_digest and not _SHA256_HEX.match(proof["body_sha256"])):
            return "proof must carry exactly one of body and body_sha256 (64 lowercase hex digits)"
        digest = _sha256_hex(proof["body"]) if has_body else proof["body_sha256"]
        if opening.get("digest_proof") is True and data.get("payload_sha256") != digest:
            return "data.payload_sha256 is not the hash of the body the proof signed"
        if proof["nonce"] in self.nonces_seen:
            return "proof reuses a nonce already spent on this ledger"
        self.nonces_seen.add(proof["nonce"])
        signer, problem = self._signer_key(entry, opening.get("signed_by"))
        if problem:
            return problem
        message = signing_string(proof["method"], proof["path"], actor, proof["nonce"], digest)
        if not verify_signature(signer, message, proof["signature"]):
            return "proof signature does not verify"
        return self._signed_data_mismatch(entry)

    def _signer_key(self, entry, signed_by):
        """(the key that must have signed the entry's proof, None), or (None, the reason there is none)."""
        actor = entry["actor"]
        if signed_by == "data.pubkey":
            signer = str(entry["data"].get("pubkey"))
            try:
                derived = agent_id_of(signer)
            except ValueError:
                derived = ""
            return (signer, None) if derived == actor else (None, "actor is not the id derived from the registered key")
        if signed_by == "backup_key":
            signer = (self.keys.get(actor) or {}).get("backup")
            return (signer, None) if signer else (None, "key rotation by an agent without a backup key")
        signer = (self.keys.get(actor) or {}).get("primary")
        return (signer, None) if signer else (None, "proof by an agent not registered earlier on this ledger")

    def _stray_follow_up(self, entry):
        """A follow-up entry must belong to the request right before it: same time, an act that can
        produce it, and an agent that request names."""
        opening = self.opening
        if not opening or opening["at"] != entry.get("at"):
            return f"{entry['event_type']} follows no signed request of its own"
        kind = follow_up_key(entry["event_type"], entry["data"])
        if opening["event_type"] not in FOLLOW_UP_OPENERS.get(kind, []):
            return f"{kind} cannot come of a {opening['event_type']} request"
        if entry["event_type"] == "ap_spent":
            mismatch = self._ap_spent_mismatch(entry, opening)
            if mismatch:
                return mismatch
        named_field = event_declaration(entry["event_type"]).get("actor_from_opening")
        named = opening["actor"] if named_field is None else opening["data"].get(named_field)
        if named != entry["actor"]:
            return f"{entry['event_type']} is for an agent the signed request before it does not name"
        return None

    def _note_request(self, entry):
        if entry["seq"] == 1 and entry["event_type"] == "society_founded":
            revision = entry["data"].get("ledger_revision")
            self.ledger_revision = revision if _is_number(revision) else 0
        if entry.get("proof") is not None:
            self.opening = entry
        elif entry["actor"] == "system":
            self.opening = None
        spent = entry["data"].get("ap_spent")
        records_ap = self.ledger_revision >= AP_SPENT_LEDGER_REVISION
        due = records_ap and entry.get("proof") is not None and _is_number(spent) and spent > 0
        self.ap_spent_due = entry if due else None

    def _missing_ap_spent(self, entry):
        due = self.ap_spent_due
        if not due or entry["event_type"] == "ap_spent":
            return None
        return (f"the {due['event_type']} at seq {due['seq']} spent {due['data'].get('ap_spent')} AP, "
                "but no ap_spent entry follows it")

    def _ap_spent_mismatch(self, entry, opening):
        """An ap_spent entry must sit right behind the act that spent the AP, name that act as its
        signed request does, and agree with the amount the act's own entry records."""
        if self.ledger_revision < AP_SPENT_LEDGER_REVISION:
            return (f"ap_spent on a ledger of revision {self.ledger_revision}, "
                    "which records AP only in the act's own entry")
        data = entry["data"]
        act, amount, for_seq = data.get("act"), data.get("amount"), data.get("for_seq")
        if entry["seq"] != opening["seq"] + 1 or not _is_number(for_seq) or for_seq != opening["seq"]:
            return f"ap_spent must follow the act it is for at once and name its seq ({opening['seq']})"
        if not isinstance(act, str) or act not in AP_SPENDING_ACTS or act != _act_of_proof(opening["proof"]):
            return f"ap_spent names {act}, not the AP-spending act the signed request before it asked for"
        if not _is_safe_integer(amount) or amount <= 0:
            return "ap_spent amount is not a positive whole number"
        opening_spent = opening["data"].get("ap_spent", _ABSENT)
        if opening_spent is not _ABSENT and not (_is_number(opening_spent) and opening_spent == amount):
            return f"ap_spent amount {amount} differs from the {opening['event_type']}'s ap_spent ({opening_spent})"
        return None

    @staticmethod
    def _signed_data_mismatch(entry):
        """The signed request must be one that opens this event type, and the data must repeat what it
        asked for, so an operator can neither change a member's act nor turn one act's proof into another's."""
        event_type = entry["event_type"]
        declaration = opening_declaration(event_type)
        opened_by = declaration["opened_by"]
        proof = entry["proof"]
        route = proof["path"].split("?")[0]
        if not isinstance(proof.get("body"), str):
            # A digest proves who signed, not what: only an event whose body must stay unpublished may carry one.
            if declaration.get("digest_proof") is not True:
                return f"{event_type} must carry its signed body, not only its digest"
            if route == GENERIC_ACT_ROUTE or act_of_signed(route, {}) in opened_by:
                return None
            return f"{event_type} is not what a request to {route} can open"
        try:
            signed = json.loads(proof["body"])
        except ValueError:
            return "proof body is not JSON"
        if not isinstance(signed, dict):
            return "proof body is not a JSON object"
        act = act_of_signed(route, signed)
        if not isinstance(act, str) or act not in opened_by:
            return f"{event_type} is not what the signed request asked for ({act if act is not None else route})"
        payload = signed.get("payload") if route == GENERIC_ACT_ROUTE else signed
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            return "the signed payload is not an object"
        for field in opened_by[act]["signed_fields"]:
            value = payload.get(field["payload"], _ABSENT)
            if field.get("when_given") and (value is _ABSENT or value is None):
                continue
            if not _same(value, _data_at(entry["data"], field["data"])):
                named = "" if field["payload"] == field["data"] else f"'s {field['payload']}"
                return f"data.{field['data']} differs from the signed body{named}"
        return None

    def _learn_keys(self, entry):
        """The keys an identity event brings become the actor's from the next entry on; a
        registration starts them afresh."""
        declaration = opening_declaration(entry["event_type"])
        if not declaration or not declaration.get("key_fields"):
            return
        actor = entry["actor"]
        if declaration.get("signed_by") == "data.pubkey":
            self.keys[actor] = {"primary": "", "backup": None}
        keys = self.keys.get(actor)
        if keys is None:
            return
        for key_field in declaration["key_fields"]:
            key = entry["data"].get(key_field["field"])
            if key_field["becomes"] == "primary":
                keys["primary"] = str(key)
            else:
                keys["backup"] = key if isinstance(key, str) else None


def _data_at(data, path):
    """The value at a dotted path of an entry's data (`position.x`), _ABSENT where any step is missing."""
    value = data
    for step in path.split("."):
        if not isinstance(value, dict) or step not in value:
            return _ABSENT
        value = value[step]
    return value


def verify_ledger(entries, head=None):
    """Checks a whole ledger; returns {"valid": True, "entries_checked", "head": {"seq", "hash"}} or
    {"valid": False, "fail_seq", "reason", "entries_checked"}. With head ({"seq", "hash"}, as a
    ledger page states it), the ledger must end there."""
    checker = LedgerChecker()
    for entry in entries:
        problem = checker.check(entry)
        if problem:
            return {"valid": False, "fail_seq": problem[0], "reason": problem[1], "entries_checked": checker.checked}
    result_head = {"seq": checker.checked, "hash": checker.last_hash}
    if head is not None and (head.get("seq") != result_head["seq"] or head.get("hash") != result_head["hash"]):
        return {"valid": False, "fail_seq": checker.checked + 1, "reason": "the ledger does not end at the stated head",
                "entries_checked": checker.checked}
    return {"valid": True, "entries_checked": checker.checked, "head": result_head}
