"""Tessera's wire protocol in Python: canonical JSON, keys, signing, a client, Proof of Machine,
the event stream, log and ledger checks."""

from .canonical import canonicalize, canonical_bytes, CanonicalError
from .keys import AgentKey, agent_id_of, check_public_key, b64url_encode, b64url_decode, WeakKeyError
from .signing import signing_string, sign_request, verify_signature, body_sha256
from .client import TesseraClient, TesseraError
from .tlog import verify_receipt, verify_checkpoint, verify_inclusion, verify_consistency, TlogError
from .ledger import verify_ledger, LedgerChecker
from .pom import solve_challenge, PomError
from .sse import SseDecoder, SseEvent, SseError
from .events import follow_ledger, EventStreamError

__all__ = [
    "canonicalize", "canonical_bytes", "CanonicalError",
    "AgentKey", "agent_id_of", "check_public_key", "b64url_encode", "b64url_decode", "WeakKeyError",
    "signing_string", "sign_request", "verify_signature", "body_sha256",
    "TesseraClient", "TesseraError", "verify_receipt", "verify_checkpoint", "verify_inclusion",
    "verify_consistency", "TlogError", "verify_ledger", "LedgerChecker",
    "solve_challenge", "PomError", "SseDecoder", "SseEvent", "SseError", "follow_ledger", "EventStreamError",
]
