"""RFC 8785 (JCS) canonical JSON, as Tessera signs and hashes it.

Keys are sorted by their UTF-16 code units, numbers are written in their shortest
ECMAScript form (RFC 8785 section 3.2.2.3), strings escape only what JSON requires.
"""

import math
from decimal import Decimal

__all__ = ["canonicalize", "canonical_bytes", "format_number", "CanonicalError"]

_MAX_SAFE = 2**53


class CanonicalError(ValueError):
    """A value that has no canonical form (NaN, infinity, a lone surrogate, a non-JSON type)."""


def format_number(value):
    """A number as ECMAScript's Number::toString writes it (the IEEE 754 double it stands for)."""
    if isinstance(value, bool):
        raise CanonicalError("a bool is not a number")
    if isinstance(value, int):
        if -_MAX_SAFE <= value <= _MAX_SAFE:
            return str(value)
        try:
            value = float(value)  # JSON numbers are doubles: beyond 2^53 they round
        except OverflowError as error:
            raise CanonicalError("an integer beyond the largest double") from error
    if not isinstance(value, float):
        raise CanonicalError(f"not a number: {value!r}")
    if math.isnan(value) or math.isinf(value):
        raise CanonicalError("NaN and infinities have no JSON form")
    if value == 0:
        return "0"  # -0 too
    sign = "-" if value < 0 else ""
    # repr is the shortest text that reads back as the same double, as ECMAScript's digits are.
    _, digit_tuple, exponent = Decimal(repr(abs(value))).normalize().as_tuple()
    digits = "".join(map(str, digit_tuple))
    k = len(digits)
    n = exponent + k  # value = 0.digits * 10^n
    if k <= n <= 21:
        text = digits + "0" * (n - k)
    elif 0 < n <= 21:
        text = digits[:n] + "." + digits[n:]
    elif -6 < n <= 0:
        text = "0." + "0" * (-n) + digits
    else:
        e = n - 1
        mantissa = digits[0] + ("." + digits[1:] if k > 1 else "")
        text = mantissa + "e" + ("+" if e > 0 else "-") + str(abs(e))
    return sign + text


_SHORT = {'"': '\\"', "\\": "\\\\", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _string(text):
    out = ['"']
    for ch in text:
        code = ord(ch)
        if ch in _SHORT:
            out.append(_SHORT[ch])
        elif code < 0x20:
            out.append("\\u%04x" % code)
        elif 0xD800 <= code <= 0xDFFF:
            raise CanonicalError("a lone surrogate has no canonical form")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _utf16_key(text):
    # Big-endian UTF-16 bytes compare exactly as the code units do.
    try:
        return text.encode("utf-16-be")
    except UnicodeEncodeError as error:
        raise CanonicalError("a lone surrogate has no canonical form") from error


def _write(value, out):
    if value is None:
        out.append("null")
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif isinstance(value, str):
        out.append(_string(value))
    elif isinstance(value, (int, float)):
        out.append(format_number(value))
    elif isinstance(value, (list, tuple)):
        out.append("[")
        for i, item in enumerate(value):
            if i:
                out.append(",")
            _write(item, out)
        out.append("]")
    elif isinstance(value, dict):
        for key in value:
            if not isinstance(key, str):
                raise CanonicalError(f"object keys must be strings: {key!r}")
        out.append("{")
        for i, key in enumerate(sorted(value, key=_utf16_key)):
            if i:
                out.append(",")
            out.append(_string(key))
            out.append(":")
            _write(value[key], out)
        out.append("}")
    else:
        raise CanonicalError(f"not a JSON value: {type(value).__name__}")


def canonicalize(value):
    """The JCS text of a JSON value (dict, list, str, int, float, bool, None)."""
    out = []
    _write(value, out)
    return "".join(out)


def canonical_bytes(value):
    return canonicalize(value).encode("utf-8")
