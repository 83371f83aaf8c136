import { REFUSAL_CODES } from './responses.js';
import { type ActDefinition, type RefusalCode } from '../../engine/index.js';

/**
 * Codes only the HTTP layer answers (transport, signatures, payments, pages): no act
 * returns them. test/openapi.test.ts checks that engine/ never names one.
 */
export const ROUTE_ONLY_CODES: readonly RefusalCode[] = [
  'VALIDATION_FAILED',
  'UNSUPPORTED_MEDIA_TYPE',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'SIG_INVALID',
  'NONCE_INVALID',
  'PAYMENTS_OFF',
  'ALREADY_MEMBER',
  'NO_BILLING_ACCOUNT',
  'WEBHOOK_SIGNATURE_INVALID',
  'WEBHOOK_EVENT_INVALID',
  'RECOVERY_FAILED',
  'PAYMENT_PROVIDER_UNAVAILABLE',
];

/** Codes only system acts answer (processor events, grant redemption): never a signed request. The test checks it. */
export const SYSTEM_ACT_CODES: readonly RefusalCode[] = ['ALREADY_FULFILLED', 'PAYMENT_MODE_MISMATCH', 'GRANT_INVALID'];

/** Codes of the gates an act declares (engine/act.ts gates, signer): listed only for acts that have them. */
const GATE_CODES: readonly RefusalCode[] = ['FOUNDER_ONLY', 'MEMBERSHIP_REQUIRED', 'POM_REQUIRED', 'POM_FAILED'];

const not_by_rules = new Set<RefusalCode>([...ROUTE_ONLY_CODES, ...SYSTEM_ACT_CODES, ...GATE_CODES]);

/**
 * The codes an act's own rules may answer. Acts declare no list of their refusals, so
 * every act is documented with every code the engine may answer to a signed act; a
 * new code in engine/refusals.ts joins this list unless it is named above.
 */
export const ACT_RULE_CODES: readonly RefusalCode[] = REFUSAL_CODES.filter((code) => !not_by_rules.has(code));

/** The gate codes of one act. */
export function actGateCodes(act: ActDefinition): RefusalCode[] {
  return [
    ...(act.gates.founder ? (['FOUNDER_ONLY'] as const) : []),
    ...(act.gates.membership ? (['MEMBERSHIP_REQUIRED'] as const) : []),
    ...(act.gates.pom ? (['POM_REQUIRED', 'POM_FAILED'] as const) : []),
  ];
}
