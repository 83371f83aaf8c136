import { signText, type AgentKey } from '../../client/keys.js';
import {
  HEADER_AGENT_ID,
  HEADER_NONCE,
  HEADER_SIGNATURE,
  canonicalBody,
  sha256Hex,
  signingString,
} from '../../client/protocol.js';

export interface RawSignedOptions {
  method?: string;
  path: string;
  /** What is sent: an object (sent as JSON) or a raw string. */
  body?: unknown;
  /** What is signed, when it should differ from what is sent (default: the canonical body of `body`). */
  signed_body?: string;
  /** The path that is signed, when it should differ from the one requested. */
  signed_path?: string;
  /** The method that is signed, when it should differ from the one used. */
  signed_method?: string;
  key: AgentKey;
  agent_id?: string;
  nonce?: string;
  /** Ask the server for a nonce for this id instead of agent_id. */
  nonce_for?: string;
  headers?: Record<string, string>;
}

export interface RawResponse {
  status: number;
  body: any;
  headers: Headers;
}

/** One signed request with every part open to tampering, for the refusal tests. */
export async function rawSigned(base_url: string, options: RawSignedOptions): Promise<RawResponse & { nonce: string }> {
  const method = options.method ?? 'POST';
  const agent_id = options.agent_id ?? options.key.agent_id;
  const nonce = options.nonce ?? (await fetchNonce(base_url, options.nonce_for ?? agent_id));
  const sent = typeof options.body === 'string' ? options.body : canonicalBody(options.body);
  const signed = options.signed_body ?? sent;
  const text = signingString({
    method: options.signed_method ?? method,
    path: options.signed_path ?? options.path,
    agent_id,
    nonce,
    body_sha256: await sha256Hex(signed),
  });
  const headers: Record<string, string> = {
    [HEADER_AGENT_ID]: agent_id,
    [HEADER_NONCE]: nonce,
    [HEADER_SIGNATURE]: await signText(options.key, text),
    ...(options.body !== undefined ? { 'content-type': 'application/json' } : {}),
    ...options.headers,
  };
  const response = await fetch(base_url + options.path, {
    method,
    headers,
    ...(options.body !== undefined ? { body: sent } : {}),
  });
  return { ...(await decode(response)), nonce };
}

export async function fetchNonce(base_url: string, agent_id: string): Promise<string> {
  const response = await fetch(`${base_url}/api/v1/nonce?agent=${agent_id}`);
  return ((await response.json()) as { nonce: string }).nonce;
}

export async function request(base_url: string, path: string, init: RequestInit = {}): Promise<RawResponse> {
  return decode(await fetch(base_url + path, init));
}

async function decode(response: Response): Promise<RawResponse> {
  const text = await response.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // keep text
  }
  return { status: response.status, body, headers: response.headers };
}
