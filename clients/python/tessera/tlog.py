"""The ledger as a transparency log (docs/transparency.md): RFC 6962 hashing, RFC 9162 proofs,
C2SP signed notes, tlog checkpoints, cosignatures and act receipts."""

import base64
import hashlib
import json
import struct

import nacl.exceptions
import nacl.signing

from .canonical import canonicalize

__all__ = ["leaf_hash", "node_hash", "root_from_leaves", "verify_inclusion", "verify_consistency",
           "NoteVerifier", "parse_vkey", "open_note", "parse_checkpoint", "verify_checkpoint",
           "verify_cosignature", "verify_receipt", "entry_text", "entry_hash", "TlogError"]

SIG_ED25519 = 0x01
SIG_COSIGNATURE_V1 = 0x04


class TlogError(ValueError):
    """A proof, note, checkpoint or receipt that does not hold."""


def _sha256(data):
    return hashlib.sha256(data).digest()


def leaf_hash(entry):
    """SHA-256(0x00 || entry bytes); text is taken as UTF-8."""
    if isinstance(entry, str):
        entry = entry.encode("utf-8")
    return _sha256(b"\x00" + entry)


def node_hash(left, right):
    return _sha256(b"\x01" + left + right)


def root_from_leaves(leaf_hashes):
    """RFC 6962's Merkle tree hash over a list of leaf hashes (the empty tree: SHA-256 of nothing)."""
    n = len(leaf_hashes)
    if n == 0:
        return _sha256(b"")
    if n == 1:
        return leaf_hashes[0]
    k = 1
    while k * 2 < n:
        k *= 2
    return node_hash(root_from_leaves(leaf_hashes[:k]), root_from_leaves(leaf_hashes[k:]))


def _b64(text):
    try:
        return base64.b64decode(text, validate=True)
    except Exception as error:
        raise TlogError(f"not base64: {text!r}") from error


def _hashes(proof):
    out = []
    for item in proof:
        raw = _b64(item) if isinstance(item, str) else bytes(item)
        if len(raw) != 32:
            raise TlogError("a proof hash is 32 bytes")
        out.append(raw)
    return out


def verify_inclusion(leaf, index, size, proof, root):
    """RFC 9162 section 2.1.3.2: True when proof leads from leaf (a leaf hash) at index to root of a tree of size."""
    if isinstance(root, str):
        root = _b64(root)
    if not (0 <= index < size):
        return False
    fn, sn, r = index, size - 1, leaf
    for p in _hashes(proof):
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            r = node_hash(r, p)
        fn >>= 1
        sn >>= 1
    return sn == 0 and r == root


def verify_consistency(old_size, new_size, old_root, new_root, proof):
    """RFC 9162 section 2.1.4.2; equal sizes need an empty proof and equal roots, size 0 an empty proof."""
    if isinstance(old_root, str):
        old_root = _b64(old_root)
    if isinstance(new_root, str):
        new_root = _b64(new_root)
    path = _hashes(proof)
    if old_size < 0 or old_size > new_size:
        return False
    if old_size == new_size:
        return not path and old_root == new_root
    if old_size == 0:
        return not path
    if not path:
        return False
    if old_size & (old_size - 1) == 0:
        path = [old_root] + path
    fn, sn = old_size - 1, new_size - 1
    while fn & 1:
        fn >>= 1
        sn >>= 1
    fr = sr = path[0]
    for c in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            fr = node_hash(c, fr)
            sr = node_hash(c, sr)
            while not fn & 1 and fn != 0:
                fn >>= 1
                sn >>= 1
        else:
            sr = node_hash(sr, c)
        fn >>= 1
        sn >>= 1
    return fr == old_root and sr == new_root and sn == 0


# --- C2SP signed-note -------------------------------------------------------------------------

def key_id(name, key_type, public_key):
    """The first 4 bytes of SHA-256(name || 0x0A || type byte || public key)."""
    return _sha256(name.encode("utf-8") + b"\n" + bytes([key_type]) + public_key)[:4]


class NoteVerifier:
    """A verifier key <name>+<hex key id>+<base64(type || key)>, for Ed25519 (0x01) or cosignature/v1 (0x04)."""

    def __init__(self, vkey):
        parts = vkey.split("+", 2)  # the name and key id hold no '+'; the base64 key may
        if len(parts) != 3:
            raise TlogError("a verifier key is name+keyid+key")
        name, hex_id, key_b64 = parts
        if not name or any(c.isspace() for c in name):
            raise TlogError("a key name has no spaces")
        raw = _b64(key_b64)
        if len(raw) != 33 or raw[0] not in (SIG_ED25519, SIG_COSIGNATURE_V1):
            raise TlogError("an Ed25519 or cosignature/v1 key is 1 + 32 bytes")
        self.name = name
        self.key_type = raw[0]
        self.public_key = raw[1:]
        self.key_id = key_id(name, self.key_type, self.public_key)
        if len(hex_id) != 8 or hex_id != self.key_id.hex():
            raise TlogError("the key id does not match the key")
        self._verify_key = nacl.signing.VerifyKey(self.public_key)

    def _verify(self, message, signature):
        try:
            self._verify_key.verify(message, signature)
            return True
        except nacl.exceptions.BadSignatureError:
            return False

    def verify(self, text, sig):
        """Checks one signature (the bytes after the key id) over a note's text."""
        data = text.encode("utf-8")
        if self.key_type == SIG_ED25519:
            return len(sig) == 64 and self._verify(data, sig)
        if len(sig) != 72:
            return False
        (timestamp,) = struct.unpack(">Q", sig[:8])
        message = b"cosignature/v1\ntime " + str(timestamp).encode() + b"\n" + data
        return self._verify(message, sig[8:])


def parse_vkey(vkey):
    return NoteVerifier(vkey)


def open_note(note, verifiers):
    """Splits a signed note and checks it: returns (text, {name: signature bytes}) for the
    signatures by the given verifiers, which must each verify; at least one must be there."""
    if isinstance(verifiers, (str, NoteVerifier)):
        verifiers = [verifiers]
    verifiers = [NoteVerifier(v) if isinstance(v, str) else v for v in verifiers]
    if not note.endswith("\n"):
        raise TlogError("a note ends with a newline")
    split = note.rfind("\n\n")
    if split < 0:
        raise TlogError("a note has a blank line before its signatures")
    text, sig_block = note[: split + 1], note[split + 2:]
    verified = {}
    for line in sig_block[:-1].split("\n"):
        if not line.startswith("\u2014 "):
            raise TlogError(f"not a signature line: {line!r}")
        fields = line[2:].split(" ")
        if len(fields) != 2:
            raise TlogError(f"not a signature line: {line!r}")
        name, sig_b64 = fields
        raw = _b64(sig_b64)
        if len(raw) < 5:
            raise TlogError("a signature is a key id and at least one byte")
        for v in verifiers:
            if v.name == name and v.key_id == raw[:4]:
                if not v.verify(text, raw[4:]):
                    raise TlogError(f"the signature of {name} does not verify")
                verified[name] = raw[4:]
    if not verified:
        raise TlogError("no signature by a known key")
    return text, verified


def parse_checkpoint(text):
    """origin, size, root hash (bytes), extension lines, of a tlog-checkpoint's text."""
    lines = text.split("\n")
    if len(lines) < 4 or lines[-1] != "":
        raise TlogError("a checkpoint has origin, size and root lines")
    origin, size_text, root_b64 = lines[0], lines[1], lines[2]
    if not size_text.isdigit() or (size_text != "0" and size_text.startswith("0")):
        raise TlogError("a tree size is a decimal without leading zeros")
    root = _b64(root_b64)
    if len(root) != 32:
        raise TlogError("a root hash is 32 bytes")
    return {"origin": origin, "size": int(size_text), "root_hash": root, "extensions": lines[3:-1]}


def verify_checkpoint(note, log_vkey):
    """The checkpoint of a note signed by the log's key, whose origin is the key's name."""
    verifier = NoteVerifier(log_vkey) if isinstance(log_vkey, str) else log_vkey
    if verifier.key_type != SIG_ED25519:
        raise TlogError("a log key is an Ed25519 note key")
    text, verified = open_note(note, [verifier])
    if verifier.name not in verified:
        raise TlogError("the checkpoint is not signed by the log's key")
    checkpoint = parse_checkpoint(text)
    if checkpoint["origin"] != verifier.name:
        raise TlogError("the checkpoint's origin is not the key's name")
    checkpoint["text"] = text
    return checkpoint


def verify_cosignature(note, log_vkey, witness_vkey):
    """The checkpoint, when it is signed by the log and cosigned by the witness; returns (checkpoint, timestamp)."""
    checkpoint = verify_checkpoint(note, log_vkey)
    witness = NoteVerifier(witness_vkey) if isinstance(witness_vkey, str) else witness_vkey
    _, verified = open_note(note, [log_vkey, witness])
    if witness.name not in verified:
        raise TlogError("no cosignature by the witness")
    (timestamp,) = struct.unpack(">Q", verified[witness.name][:8])
    return checkpoint, timestamp


# --- Entries and receipts ---------------------------------------------------------------------

def entry_hash(entry):
    """The lowercase hex SHA-256 of the JCS text of the entry without hash."""
    rest = {k: v for k, v in entry.items() if k != "hash"}
    return hashlib.sha256(canonicalize(rest).encode("utf-8")).hexdigest()


def entry_text(entry):
    """The entry as the ledger stores and serves it: JCS without hash, then ,"hash":"<hex>" before the brace."""
    rest = canonicalize({k: v for k, v in entry.items() if k != "hash"})
    return rest[:-1] + ',"hash":' + canonicalize(entry["hash"]) + "}"


def verify_receipt(receipt, log_vkey):
    """Checks an act's receipt offline (transparency.md, "Checking one act"); returns the entry
    (parsed) and the checkpoint. Raises TlogError when it does not hold."""
    checkpoint = verify_checkpoint(receipt["checkpoint"], log_vkey)
    index = receipt["leaf_index"]
    if not isinstance(index, int) or isinstance(index, bool) or not (0 <= index < checkpoint["size"]):
        raise TlogError("leaf_index is not below the checkpoint's size")
    text = receipt["entry"]
    if not verify_inclusion(leaf_hash(text), index, checkpoint["size"], receipt["inclusion_proof"],
                            checkpoint["root_hash"]):
        raise TlogError("the inclusion proof does not lead to the checkpoint's root")
    entry = json.loads(text)
    if entry.get("seq") != index + 1:
        raise TlogError("the entry's seq is not leaf_index + 1")
    if entry.get("hash") != entry_hash(entry):
        raise TlogError("the entry's hash is not the SHA-256 of its content")
    return entry, checkpoint
