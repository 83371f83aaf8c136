import { afterEach } from 'vitest';
import { installContractCheck, takeContractFailures } from './contract.js';

/**
 * vitest setupFiles: every answer from a test society (startTestSociety, or a server run
 * as a child process by startChildServer) is checked against the OpenAPI document as the
 * test's fetch receives it (test/helpers/contract.ts): its declared headers, its media
 * type and its JSON body. A mismatch rejects that fetch, and fails the test at its end
 * even if a caller caught it.
 */
installContractCheck();

afterEach(() => {
  const failures = takeContractFailures();
  if (failures.length > 0) throw new Error(`answers that break the contract:\n${failures.join('\n')}`);
});
