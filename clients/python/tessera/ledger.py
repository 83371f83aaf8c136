"""The ledger verifier (docs/protocol.md, "The ledger" and "Ledger revisions and ap_spent"):
sequence, hash chain, each entry's hash, every proof's signature against the keys registered
earlier on the same ledger, strong keys, no nonce twice, the signed request matching the entry
it opens, follow-up entries belonging to the request before them, and ap_spent on revision 1."""

import hashlib
import json
import re

from .canonical import canonicalize, CanonicalError
from .keys import agent_id_of, is_strong_public_key
from .signing import signing_string, verify_signature

__all__ = ["LedgerChecker", "verify_ledger", "event_class"]

# The recipe's tables (protocol.md, "The ledger"): event type -> (acts that open it, data fields equal to the signed payload's).
REQUEST_OPENING_EVENTS = {
    "agent_registered": (["register"], ["pubkey", "handle", "declared_runtime", "backup_pubkey"]),
    "key_backup_registered": (["key_backup_register"], ["backup_pubkey"]),
    "key_rotated": (["key_rotate"], ["new_pubkey"]),
    "p0_refusal": (["motion_propose", "enactment_apply", "enactment_resolve"], []),
    "motion_filed": (["motion_propose"], ["title"]),
    "motion_opened": (["motion_open"], ["motion_id"]),
    "motion_cosponsored": (["motion_cosponsor"], ["motion_id"]),
    "vote_cast": (["vote_cast"], ["motion_id", "choice"]),
    "bulletin_posted": (["bulletin_post"], ["title"]),
    "pom_challenge_issued": (["pom_challenge"], ["intent"]),
    "agent_moved": (["world_move"], ["path"]),
    "block_placed": (["world_place_block"], ["x", "y", "z?", "block_id"]),
    "block_broken": (["world_break_block"], ["x", "y", "z?"]),
    "terrain_dug": (["world_dig"], ["x", "y", "z?"]),
    "resource_gathered": (["world_gather"], ["x?", "y?"]),
    "resource_sent": (["world_give"], ["to", "resource", "amount"]),
    "aether_sent": (["aether_send"], []),
    "structure_built": (["aether_build_mast", "aether_build_hub", "aether_link", "world_build_road"],
                        ["relay_id?", "from_relay_id", "to_relay_id"]),
    "grant_issued": (["grant_issue"], ["kind", "note"]),
    "dispatch_published": (["enactment_dispatch"], []),
    "enactment_applied": (["enactment_apply"], ["motion_id"]),
    "motion_resolved_by_founder": (["enactment_resolve"], ["reason"]),
}

ACT_OF_ROUTE = {
    "/api/v1/register": "register",
    "/api/v1/keys/backup": "key_backup_register",
    "/api/v1/keys/rotate": "key_rotate",
    "/api/v1/pom/challenge": "pom_challenge",
    "/api/v1/grants": "grant_issue",
    "/enactment/dispatch": "enactment_dispatch",
    "/enactment/apply": "enactment_apply",
    "/enactment/resolve": "enactment_resolve",
}

DIGEST_PROOF_EVENTS = {"p0_refusal"}

FOLLOW_UP_OPENERS = {
    "ap_spent": ["agent_moved", "block_placed", "block_broken", "terrain_dug", "resource_gathered",
                 "resource_sent", "structure_built"],
    "resource_received": ["resource_sent"],
    "relic_found": ["terrain_dug"],
    "biome_first_discovery": ["agent_moved", "agent_registered"],
    "standing_awarded:relic_found": ["terrain_dug"],
    "standing_awarded:exploration": ["agent_moved", "agent_registered"],
    "standing_awarded:biome_first_discovery": ["agent_moved", "agent_registered"],
}
FOLLOW_UP_EVENTS = {kind.split(":")[0] for kind in FOLLOW_UP_OPENERS}

AP_SPENDING_ACTS = {"world_move", "world_place_block", "world_break_block", "world_dig", "world_gather",
                    "world_give", "world_build_road", "aether_build_mast"}
AP_SPENT_LEDGER_REVISION = 1

SYSTEM_EVENTS = {"society_founded", "motion_closed", "payment_recorded", "payments_configured",
                 "grant_redeemed", "backup_taken", "restore_drill"}

KEY_FIELDS = {
    "agent_registered": ["pubkey", "backup_pubkey"],
    "key_backup_registered": ["backup_pubkey"],
    "key_rotated": ["new_pubkey"],
}

ZERO_HASH = "0" * 64
_SHA256_HEX = re.compile(r"^[0-9a-f]{64}$")
_ABSENT = object()


def event_class(event_type):
    if event_type in REQUEST_OPENING_EVENTS:
        return "opens_request"
    if event_type in FOLLOW_UP_EVENTS:
        return "follows_request"
    return "system" if event_type in SYSTEM_EVENTS else None


def _sha256_hex(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def _is_int(value):
    return isinstance(value, int) and not isinstance(value, bool)


def _same(a, b):
    if a is _ABSENT or b is _ABSENT:
        return a is b
    try:
        return canonicalize(a) == canonicalize(b)
    except CanonicalError:
        return False


def _act_of_signed(route, signed):
    return signed.get("act") if route == "/api/v1/act" else ACT_OF_ROUTE.get(route)


def _act_of_proof(proof):
    if not isinstance(proof.get("body"), str):
        return None
    return _act_of_signed(proof["path"].split("?")[0], json.loads(proof["body"]))


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
        if entry.get("seq") != seq or not _is_int(entry.get("seq")):
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
        for field in KEY_FIELDS.get(entry["event_type"], []):
            key = entry["data"].get(field)
            if key is None and field == "backup_pubkey" and entry["event_type"] == "agent_registered":
                continue
            if not isinstance(key, str) or not is_strong_public_key(key):
                return f"data.{field} is not a canonical prime-order ed25519 key"
        return None

    def _check_proof(self, entry):
        proof, data, event_type, actor = entry.get("proof"), entry["data"], entry["event_type"], entry["actor"]
        founder_genesis = event_type == "agent_registered" and entry["seq"] == 2 and data.get("role") == "founder"
        kind = event_class(event_type)
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
        if event_type == "p0_refusal" and data.get("payload_sha256") != digest:
            return "data.payload_sha256 is not the hash of the body the proof signed"
        if proof["nonce"] in self.nonces_seen:
            return "proof reuses a nonce already spent on this ledger"
        self.nonces_seen.add(proof["nonce"])
        if event_type == "agent_registered":
            signer = str(data.get("pubkey"))
            try:
                derived = agent_id_of(signer)
            except ValueError:
                derived = ""
            if derived != actor:
                return "actor is not the id derived from the registered key"
        elif event_type == "key_rotated":
            signer = (self.keys.get(actor) or {}).get("backup")
            if not signer:
                return "key rotation by an agent without a backup key"
        else:
            signer = (self.keys.get(actor) or {}).get("primary")
            if not signer:
                return "proof by an agent not registered earlier on this ledger"
        message = signing_string(proof["method"], proof["path"], actor, proof["nonce"], digest)
        if not verify_signature(signer, message, proof["signature"]):
            return "proof signature does not verify"
        return self._signed_data_mismatch(entry)

    def _stray_follow_up(self, entry):
        opening = self.opening
        if not opening or opening["at"] != entry.get("at"):
            return f"{entry['event_type']} follows no signed request of its own"
        kind = entry["event_type"]
        if kind == "standing_awarded":
            kind = f"standing_awarded:{entry['data'].get('reason')}"
        if opening["event_type"] not in FOLLOW_UP_OPENERS.get(kind, []):
            return f"{kind} cannot come of a {opening['event_type']} request"
        if entry["event_type"] == "ap_spent":
            mismatch = self._ap_spent_mismatch(entry, opening)
            if mismatch:
                return mismatch
        if entry["event_type"] == "resource_received":
            named = opening["data"].get("to") if opening["event_type"] == "resource_sent" else None
        else:
            named = opening["actor"]
        if named != entry["actor"]:
            return f"{entry['event_type']} is for an agent the signed request before it does not name"
        return None

    def _note_request(self, entry):
        if entry["seq"] == 1 and entry["event_type"] == "society_founded":
            revision = entry["data"].get("ledger_revision")
            self.ledger_revision = revision if _is_int(revision) else 0
        if entry.get("proof") is not None:
            self.opening = entry
        elif entry["actor"] == "system":
            self.opening = None
        spent = entry["data"].get("ap_spent")
        records_ap = self.ledger_revision >= AP_SPENT_LEDGER_REVISION
        due = records_ap and entry.get("proof") is not None and isinstance(spent, (int, float)) \
            and not isinstance(spent, bool) and spent > 0
        self.ap_spent_due = entry if due else None

    def _missing_ap_spent(self, entry):
        due = self.ap_spent_due
        if not due or entry["event_type"] == "ap_spent":
            return None
        return (f"the {due['event_type']} at seq {due['seq']} spent {due['data'].get('ap_spent')} AP, "
                "but no ap_spent entry follows it")

    def _ap_spent_mismatch(self, entry, opening):
        if self.ledger_revision < AP_SPENT_LEDGER_REVISION:
            return (f"ap_spent on a ledger of revision {self.ledger_revision}, "
                    "which records AP only in the act's own entry")
        data = entry["data"]
        act, amount, for_seq = data.get("act"), data.get("amount"), data.get("for_seq")
        if entry["seq"] != opening["seq"] + 1 or for_seq != opening["seq"]:
            return f"ap_spent must follow the act it is for at once and name its seq ({opening['seq']})"
        if not isinstance(act, str) or act not in AP_SPENDING_ACTS or act != _act_of_proof(opening["proof"]):
            return f"ap_spent names {act}, not the AP-spending act the signed request before it asked for"
        if not _is_int(amount) or amount <= 0 or amount > 2**53 - 1:
            return "ap_spent amount is not a positive whole number"
        opening_spent = opening["data"].get("ap_spent", _ABSENT)
        if opening_spent is not _ABSENT and opening_spent != amount:
            return f"ap_spent amount {amount} differs from the {opening['event_type']}'s ap_spent ({opening_spent})"
        return None

    @staticmethod
    def _signed_data_mismatch(entry):
        event_type = entry["event_type"]
        acts, fields = REQUEST_OPENING_EVENTS[event_type]
        proof = entry["proof"]
        route = proof["path"].split("?")[0]
        if not isinstance(proof.get("body"), str):
            if event_type not in DIGEST_PROOF_EVENTS:
                return f"{event_type} must carry its signed body, not only its digest"
            if route == "/api/v1/act" or ACT_OF_ROUTE.get(route, "") in acts:
                return None
            return f"{event_type} is not what a request to {route} can open"
        try:
            signed = json.loads(proof["body"])
        except ValueError:
            return "proof body is not JSON"
        if not isinstance(signed, dict):
            return "proof body is not a JSON object"
        act = _act_of_signed(route, signed)
        if not isinstance(act, str) or act not in acts:
            return f"{event_type} is not what the signed request asked for ({act if act is not None else route})"
        payload = signed.get("payload") if route == "/api/v1/act" else signed
        if payload is None:
            payload = {}
        if not isinstance(payload, dict):
            return "the signed payload is not an object"
        for spec in fields:
            field = spec.rstrip("?")
            value = payload.get(field, _ABSENT)
            if spec.endswith("?") and (value is _ABSENT or value is None):
                continue
            if not _same(value, entry["data"].get(field, _ABSENT)):
                return f"data.{field} differs from the signed body"
        return None

    def _learn_keys(self, entry):
        data, actor = entry["data"], entry["actor"]
        if entry["event_type"] == "agent_registered":
            backup = data.get("backup_pubkey")
            self.keys[actor] = {"primary": str(data.get("pubkey")), "backup": backup if isinstance(backup, str) else None}
        elif entry["event_type"] == "key_backup_registered" and actor in self.keys:
            self.keys[actor]["backup"] = str(data.get("backup_pubkey"))
        elif entry["event_type"] == "key_rotated" and actor in self.keys:
            self.keys[actor]["primary"] = str(data.get("new_pubkey"))


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
