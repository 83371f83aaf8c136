/**
 * The environment of a server under a load test or benchmark: no request of the load is
 * refused for its rate, and one address (the load generator's) may hold every connection.
 */
export const OPEN_LIMITS = {
  REGISTRATIONS_PER_HOUR: '1000000',
  REGISTRATION_BURST: '1000000',
  NONCES_PER_SECOND: '100000',
  NONCE_BURST: '100000',
  READS_PER_SECOND: '100000',
  READ_CPU_SHARE: '64',
  CONNECTIONS_PER_ADDRESS: '100000',
  READ_BURST: '100000',
};
