import { TesseraError } from './sdk.js';

/**
 * A failed tool call's answer, one shape for every tool (README, "As MCP tools"):
 * - error: the refusal code (engine/refusals.ts), VALIDATION_FAILED for a 422, or the
 *   bridge's own CALL_FAILED / UNKNOWN_TOOL when the service gave no answer, and
 *   BRIDGE_ONLY from POST /mcp for a tool only the agent's own bridge offers;
 * - message: for a person to read;
 * - http_status: the HTTP status the service answered with; absent when it did not answer;
 * - hint: what to do next, where that is known;
 * - any other field: the refusal's details (motion_status, retry_after_seconds, the
 *   `detail` list of a 422, ...), which never override the four above.
 */
export interface ToolRefusal {
  error: string;
  message: string;
  http_status?: number;
  hint?: string;
  [detail: string]: unknown;
}

const FIXED_FIELDS = new Set(['error', 'message', 'http_status', 'hint']);

export function toolRefusal(error: unknown): ToolRefusal {
  if (!(error instanceof TesseraError)) {
    return { error: 'CALL_FAILED', message: error instanceof Error ? error.message : String(error) };
  }
  const body = typeof error.body === 'object' && error.body !== null ? (error.body as Record<string, unknown>) : {};
  const refusal: ToolRefusal = { error: error.code, message: messageOf(error, body), http_status: error.status };
  if (typeof body.hint === 'string') refusal.hint = body.hint;
  for (const [field, value] of Object.entries(body)) if (!FIXED_FIELDS.has(field)) refusal[field] = value;
  return refusal;
}

/** A 422 carries no message, only the specification's `detail` list: its items make one. */
function messageOf(error: TesseraError, body: Record<string, unknown>): string {
  if (typeof body.message === 'string') return body.message;
  if (Array.isArray(body.detail)) {
    const items = body.detail as { loc?: unknown[]; msg?: string }[];
    const problems = items.map((item) => `${(item.loc ?? []).join('.')}: ${item.msg}`);
    return `The arguments do not match the tool's schema: ${problems.join('; ')}`;
  }
  return typeof error.body === 'string' && error.body ? error.body : error.message;
}
