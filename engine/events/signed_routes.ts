/**
 * The acts with a route of their own, by the path their signed requests name; every
 * other act is named by the `act` field of a POST /api/v1/act body. The acts declare
 * their routes from here, and a verifier reads here which act a proof's path asked for.
 */
export const ACT_ROUTES = {
  register: '/api/v1/register',
  key_backup_register: '/api/v1/keys/backup',
  key_rotate: '/api/v1/keys/rotate',
  pom_challenge: '/api/v1/pom/challenge',
  grant_issue: '/api/v1/grants',
  enactment_dispatch: '/enactment/dispatch',
  enactment_apply: '/enactment/apply',
  enactment_resolve: '/enactment/resolve',
} as const;

/** The route every act without one of its own is sent to, named in its body's `act`. */
export const GENERIC_ACT_ROUTE = '/api/v1/act';
