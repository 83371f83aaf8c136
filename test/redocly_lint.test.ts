import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { openApiDocument } from '../api/openapi.js';

interface LintProblem {
  ruleId: string;
  severity: 'error' | 'warn';
  location: { pointer: string }[];
}

/**
 * Redocly's recommended rules, run on the document as the service serves it (the ones a
 * generated client's authors run first). One warning is expected and kept: the observer
 * checkout page answers a redirect to the processor only (303), never a 2xx.
 */
const EXPECTED_WARNINGS = ['operation-2xx-response #/paths/~1treasury~1observer~1checkout/get/responses'];

describe("the OpenAPI document under Redocly's recommended rules", () => {
  it('has no error, and no warning but the redirect-only page', async () => {
    const folder = mkdtempSync(join(tmpdir(), 'tessera-redocly-'));
    try {
      const file = join(folder, 'openapi.json');
      writeFileSync(file, JSON.stringify(openApiDocument('http://society.test')));
      const { stdout } = await promisify(execFile)(
        'node_modules/.bin/redocly',
        ['lint', file, '--extends', 'recommended', '--format', 'json'],
        // No telemetry and no update check: CI reaches the package registry only.
        {
          maxBuffer: 16 << 20,
          env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
        },
      ).catch((failed: { stdout: string }) => failed);
      const { problems } = JSON.parse(stdout.slice(stdout.indexOf('{'))) as { problems: LintProblem[] };
      expect(problems.filter((problem) => problem.severity === 'error').map((problem) => problem.ruleId)).toEqual([]);
      const warnings = problems.map((problem) => `${problem.ruleId} ${problem.location[0]?.pointer}`);
      expect(warnings).toEqual(EXPECTED_WARNINGS);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
