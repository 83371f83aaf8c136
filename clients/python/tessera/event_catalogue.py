"""The ledger recipe's tables, read from the event catalogue the engine generates
(docs/vectors/event_catalogue.json, shipped in this package as event_catalogue.json): how each
event type is classed, which signed acts open it and which data fields must repeat what they
signed, which acts spend AP, which entries may follow which, and which fields bring keys.
Nothing here is kept by hand, so an act added to the engine reaches this verifier by copying
that one generated file."""

import json
from importlib import resources

__all__ = [
    "EVENTS", "GENERIC_ACT_ROUTE", "AP_SPENDING_ACTS", "AP_SPENT_LEDGER_REVISION", "FOLLOW_UP_OPENERS",
    "event_declaration", "event_class", "opening_declaration", "follow_up_key", "act_of_signed",
]


def _load():
    # Read from the package itself, so the client works installed or copied outside the repository.
    text = resources.files(__package__).joinpath("event_catalogue.json").read_text(encoding="utf-8")
    return json.loads(text)


_CATALOGUE = _load()

EVENTS = _CATALOGUE["events"]
GENERIC_ACT_ROUTE = _CATALOGUE["generic_act_route"]
AP_SPENDING_ACTS = frozenset(_CATALOGUE["ap_spending_acts"])
AP_SPENT_LEDGER_REVISION = _CATALOGUE["ap_spent_ledger_revision"]
# Keyed by event type, or "<event type>:<reason>" where the entry's data.reason decides (follow_up_key).
FOLLOW_UP_OPENERS = _CATALOGUE["follow_up_openers"]
_ACT_OF_ROUTE = {route: act for act, route in _CATALOGUE["act_routes"].items()}


def event_declaration(event_type):
    """The catalogue's declaration of an event type, or None for one it does not know."""
    return EVENTS.get(event_type) if isinstance(event_type, str) else None


def event_class(event_type):
    """"opens_request", "follows_request" or "system"; None for a type no entry may have."""
    declaration = event_declaration(event_type)
    return declaration["class"] if declaration else None


def opening_declaration(event_type):
    """The declaration of an event type that a signed request opens, else None."""
    declaration = event_declaration(event_type)
    return declaration if declaration and declaration["class"] == "opens_request" else None


def follow_up_key(event_type, data):
    """The key FOLLOW_UP_OPENERS holds an entry's openers under."""
    declaration = event_declaration(event_type)
    by_reason = declaration is not None and declaration["class"] == "follows_request" \
        and isinstance(declaration.get("follows"), dict)
    return f"{event_type}:{data.get('reason')}" if by_reason else event_type


def act_of_signed(route, signed):
    """The act a signed request asked for: named by its route, or by the `act` of a generic act body."""
    return signed.get("act") if route == GENERIC_ACT_ROUTE else _ACT_OF_ROUTE.get(route)

