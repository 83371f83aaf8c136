"""society-sig-v1: the signing string and its Ed25519 signature (protocol.md, "Nonces and signatures")."""

import hashlib
import re

import nacl.exceptions
import nacl.signing

from .canonical import canonicalize
from .keys import b64url_decode, b64url_encode, check_public_key, WeakKeyError

__all__ = ["SCHEME", "signing_string", "body_sha256", "canonical_body_text", "sign_request",
           "verify_signature", "signature_bytes"]

SCHEME = "society-sig-v1"
L = 2**252 + 27742317777372353535851937790883648493
_SIG = re.compile(r"^[A-Za-z0-9_-]{85}[AQgw]$")


def canonical_body_text(body):
    """The canonical text of a body: JCS of the value, or the empty string when there is none."""
    return "" if body is None else canonicalize(body)


def body_sha256(body_text):
    return hashlib.sha256(body_text.encode("utf-8")).hexdigest()


def signing_string(method, path, agent_id, nonce, body_digest):
    """Six lines joined by \\n, no trailing newline; the method upper-cased, the path with its query as sent."""
    return "\n".join([SCHEME, method.upper(), path, agent_id, nonce, body_digest])


def sign_request(key, method, path, nonce, body=None, agent_id=None):
    """(canonical body text, base64url signature) for a request signed by key (an AgentKey)."""
    text = canonical_body_text(body)
    message = signing_string(method, path, agent_id or key.agent_id, nonce, body_sha256(text))
    return text, b64url_encode(key.sign(message))


def signature_bytes(signature):
    """The 64 bytes of a canonically spelt signature with S < L, or None."""
    if not isinstance(signature, str) or not _SIG.match(signature):
        return None
    try:
        raw = b64url_decode(signature, 64)
    except ValueError:
        return None
    if int.from_bytes(raw[32:], "little") >= L:
        return None
    return raw


def verify_signature(public_key, message, signature):
    """True when signature (base64url) is a strict Ed25519 signature of message (text or bytes)
    by the strong key public_key (base64url): canonical spelling, S < L, and libsodium's
    cofactorless check, which compares R byte for byte with [S]B - [k]A."""
    try:
        raw_key = check_public_key(public_key)
    except WeakKeyError:
        return False
    raw_sig = signature_bytes(signature)
    if raw_sig is None:
        return False
    if isinstance(message, str):
        message = message.encode("utf-8")
    try:
        nacl.signing.VerifyKey(raw_key).verify(message, raw_sig)
        return True
    except nacl.exceptions.BadSignatureError:
        return False
