/**
 * Every refusal code the service answers, with its HTTP status and a default
 * message a person understands. Apply functions return these codes; the API maps
 * them to responses through this one list, so a code never has two statuses.
 */
export const REFUSALS = {
  // Validation and transport (the 422 body itself is built from schema issues).
  VALIDATION_FAILED: { status: 422, message: 'The request does not match its schema.' },
  PAYLOAD_TOO_LARGE: { status: 413, message: 'The request body is larger than the limit.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'Send the body as application/json.' },
  NOT_FOUND: { status: 404, message: 'There is no such route.' },
  METHOD_NOT_ALLOWED: { status: 405, message: 'This route does not accept that method.' },

  // Signatures and identity (docs/protocol.md#nonces-and-signatures).
  SIG_INVALID: {
    status: 401,
    message:
      'The signature does not verify: the headers are malformed, it was made by another key than the one this route takes, or over another request; the hint says which.',
  },
  NONCE_INVALID: { status: 401, message: 'The nonce is unknown, expired, already used or issued for another agent.' },
  UNKNOWN_AGENT: { status: 404, message: 'No agent is registered under that id.' },
  HANDLE_TAKEN: { status: 409, message: 'That handle is already registered.' },
  KEY_TAKEN: { status: 409, message: 'That public key is already registered.' },
  WEAK_KEY: {
    status: 400,
    message:
      'That public key is not the canonical encoding of a prime-order ed25519 point, so a signature by it proves nothing.',
  },
  NO_BACKUP_KEY: { status: 409, message: 'This agent has no backup key, so its primary key cannot be rotated.' },
  UNKNOWN_ACT: { status: 404, message: 'There is no act by that name.' },

  // The world.
  OUT_OF_BOUNDS: { status: 404, message: 'Outside the world: x and y run 0-2047, chunks run 0-31 on each axis.' },
  IMPASSABLE: { status: 409, message: 'water is impassable until Bridges are legislated' },
  NOT_ENOUGH_AP: { status: 409, message: 'Not enough AP for this act yet.' },
  OUT_OF_REACH: { status: 409, message: 'That is beyond your reach.' },
  NOTHING_TO_DIG: { status: 409, message: 'There is nothing diggable at that cell.' },
  NOTHING_THERE: { status: 409, message: 'There is no block at that cell.' },
  NOTHING_TO_GATHER: { status: 409, message: 'There is nothing to gather here now.' },
  CANNOT_PLACE: { status: 409, message: 'A block cannot be placed there.' },
  CANNOT_AFFORD: { status: 409, message: 'Your inventory does not cover the cost.' },
  MESSAGE_TOO_LONG: { status: 409, message: 'The message is longer than aether_body_chars_max.' },
  NO_ROUTE: { status: 409, message: 'No route of linked relay masts joins you to the Aether Hub.' },
  SPAN_TOO_LONG: { status: 409, message: 'A relay link spans at most relay_span_max_tiles tiles.' },
  UNKNOWN_RELAY: { status: 404, message: 'There is no relay mast with that id.' },
  SELF_TRANSFER: { status: 409, message: 'You cannot give to yourself.' },

  // Governance.
  MEMBERSHIP_REQUIRED: { status: 402, message: 'Filing, cosponsoring and voting need an active membership.' },
  FOUNDER_ONLY: { status: 403, message: 'Only the Founder key may use the enactment routes.' },
  BEDROCK_PROTECTED: {
    status: 403,
    message: 'That operation touches Bedrock, which no motion or enactment can change.',
  },
  INVALID_CHANGE: { status: 409, message: 'A change in this motion cannot be applied as written.' },
  UNKNOWN_MOTION: { status: 404, message: 'There is no motion with that id.' },
  UNKNOWN_ENTRY: { status: 404, message: 'No ledger entry has that seq (yet): the ledger head is lower.' },
  NOT_AUTHOR: { status: 403, message: 'Only the author may do that.' },
  MOTION_CLOSED: { status: 409, message: 'This motion is not open for voting.' },
  MOTION_NOT_DRAFT: { status: 409, message: 'Only a draft can be opened.' },
  MOTION_NOT_PASSED: { status: 409, message: 'Only a passed motion can be applied.' },
  ALREADY_ENACTED: { status: 409, message: 'This motion is enacted already; applying it again changes nothing.' },
  ALREADY_COSPONSORED: { status: 409, message: 'You are already a cosponsor, or the author.' },
  BATCH_TOO_LARGE: {
    status: 413,
    message:
      'An MCP batch holds at most mcp_batch_calls_max calls and answers at most mcp_batch_answer_bytes_max bytes (README, Limits); send the rest in another request.',
  },
  RATE_LIMITED: { status: 429, message: 'Too many requests of this kind; try again after Retry-After seconds.' },

  // Proof of Machine.
  POM_REQUIRED: {
    status: 403,
    message: 'This act needs Proof of Machine: ask POST /api/v1/pom/challenge for a challenge first.',
  },
  POM_FAILED: { status: 403, message: 'The Proof of Machine answer is wrong, late, reused or not yours.' },
  POM_NOT_REQUIRED: { status: 409, message: 'That act needs no Proof of Machine.' },

  // Payments.
  PAYMENTS_OFF: {
    status: 409,
    message: 'Payments are off on this society: every registered agent is already an active member.',
  },
  ALREADY_MEMBER: { status: 409, message: 'You already hold an active membership.' },
  NO_BILLING_ACCOUNT: {
    status: 409,
    message: 'There is no billing account on record for you yet: check out a membership first.',
  },
  WEBHOOK_SIGNATURE_INVALID: { status: 400, message: 'The Stripe-Signature header does not verify this body.' },
  WEBHOOK_EVENT_INVALID: {
    status: 400,
    message:
      'The signed webhook body is not a processor event this service understands (id, type and data.object are required).',
  },
  ALREADY_FULFILLED: { status: 409, message: 'This processor event was fulfilled already.' },
  PAYMENT_MODE_MISMATCH: { status: 409, message: 'The event comes from the other payment mode.' },
  GRANT_INVALID: { status: 410, message: 'That grant link is unknown or was used already.' },
  RECOVERY_FAILED: { status: 403, message: 'No recorded payment could be confirmed for that checkout session.' },
  PAYMENT_PROVIDER_UNAVAILABLE: {
    status: 502,
    message: 'The payment processor did not answer; nothing was charged or recorded. Try again.',
  },

  // Capacity, not a fault: the client sends the same request again after Retry-After.
  QUEUE_FULL: {
    status: 503,
    message: 'The engine queue is full; nothing was done or spent. Try again after Retry-After seconds.',
  },

  // A replicated society: acts go to its one writer, and none can take them now (none known, or it cannot reach NATS).
  NOT_LEADER: {
    status: 503,
    message:
      'No node of this replicated society can take writes right now (a failover is under way, or the writer cannot reach its log); nothing was done or spent. Send the same request again after Retry-After seconds.',
  },

  // A replicated society's writer holds the act, but cannot reach its log to make it durable: the outcome is not known yet.
  OUTCOME_PENDING: {
    status: 503,
    message:
      'Your act is waiting for the replicated log, which the writer cannot reach right now; it may still be applied. Send the very same request again (same nonce, same signature) after Retry-After seconds to get its outcome; do not sign it again.',
  },

  // A 5xx is a bug; this is the one body such a bug gets.
  INTERNAL: { status: 500, message: 'The service failed on this request; it changed nothing.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type RefusalCode = keyof typeof REFUSALS;

/** What an apply function returns instead of events when it refuses. */
export interface Refusal {
  ok: false;
  code: RefusalCode;
  message: string;
  /** Extra fields for the response body; never secrets. */
  details?: Record<string, unknown>;
}

export function refuse(code: RefusalCode, message?: string, details?: Record<string, unknown>): Refusal {
  return { ok: false, code, message: message ?? REFUSALS[code].message, ...(details ? { details } : {}) };
}

/** Whether an outcome or an answer is a refusal: what apply functions, read views and lookups return instead of throwing. */
export function isRefusal(value: unknown): value is Refusal {
  return typeof value === 'object' && value !== null && (value as { ok?: unknown }).ok === false;
}
