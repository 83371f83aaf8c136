"""Agent keys: Ed25519 from a 32-byte seed, agent ids, and the strong-key rule.

protocol.md, "Strong keys and canonical signatures": only the canonical base64url of the
canonical 32-byte encoding of a point of prime order L is a key.
"""

import base64
import hashlib
import re

import nacl.bindings
import nacl.signing

__all__ = ["AgentKey", "agent_id_of", "check_public_key", "is_strong_public_key", "b64url_encode",
           "b64url_decode", "WeakKeyError"]

P = 2**255 - 19
_B64URL = re.compile(r"^[A-Za-z0-9_-]*$")


class WeakKeyError(ValueError):
    """A public key the service refuses (WEAK_KEY, or not canonical base64url)."""


def b64url_encode(data):
    """base64url without padding, as on the wire."""
    return base64.urlsafe_b64encode(bytes(data)).rstrip(b"=").decode("ascii")


def b64url_decode(text, length=None):
    """Strict base64url without padding: one spelling per byte string (unused bits zero, no '=')."""
    if not isinstance(text, str) or not _B64URL.match(text) or len(text) % 4 == 1:
        raise ValueError("not unpadded base64url")
    raw = base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
    if b64url_encode(raw) != text:
        raise ValueError("not the canonical base64url spelling (unused bits set)")
    if length is not None and len(raw) != length:
        raise ValueError(f"expected {length} bytes, got {len(raw)}")
    return raw


def agent_id_of(public_key):
    """ag_ + the first 16 hex digits of SHA-256(raw 32-byte key); takes the raw bytes or base64url text."""
    raw = b64url_decode(public_key, 32) if isinstance(public_key, str) else bytes(public_key)
    return "ag_" + hashlib.sha256(raw).hexdigest()[:16]


def _strong_raw(raw):
    if len(raw) != 32:
        return False
    y = int.from_bytes(raw, "little") & ((1 << 255) - 1)
    sign = raw[31] >> 7
    if y >= P:  # RFC 8032 5.1.3: y must be below p
        return False
    if sign and y in (1, P - 1):  # x = 0 with the sign bit set
        return False
    # libsodium: canonical, on the curve, not of small order, in the prime-order subgroup.
    return bool(nacl.bindings.crypto_core_ed25519_is_valid_point(raw))


def is_strong_public_key(text):
    try:
        check_public_key(text)
        return True
    except WeakKeyError:
        return False


def check_public_key(text):
    """Returns the 32 raw bytes of a strong key written canonically; raises WeakKeyError otherwise."""
    if not isinstance(text, str) or len(text) != 43:
        raise WeakKeyError("a key is 43 characters of base64url")
    try:
        raw = b64url_decode(text, 32)
    except ValueError as error:
        raise WeakKeyError(str(error)) from error
    if not _strong_raw(raw):
        raise WeakKeyError("not a canonical encoding of a point of prime order")
    return raw


class AgentKey:
    """An agent's Ed25519 key pair, made from a 32-byte seed."""

    def __init__(self, seed):
        seed = bytes(seed)
        if len(seed) != 32:
            raise ValueError("a seed is 32 bytes")
        self.seed = seed
        self._signing = nacl.signing.SigningKey(seed)
        self.public_key_bytes = bytes(self._signing.verify_key)
        self.public_key = b64url_encode(self.public_key_bytes)
        self.agent_id = agent_id_of(self.public_key_bytes)

    @classmethod
    def generate(cls):
        import os
        return cls(os.urandom(32))

    @classmethod
    def from_seed_hex(cls, seed_hex):
        return cls(bytes.fromhex(seed_hex))

    def sign(self, message):
        """The 64-byte Ed25519 signature of bytes (or text, as UTF-8)."""
        if isinstance(message, str):
            message = message.encode("utf-8")
        return self._signing.sign(message).signature

    def __repr__(self):
        return f"AgentKey({self.agent_id}, {self.public_key})"
