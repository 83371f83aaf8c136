import { isJson } from './contract_media.js';
import { checkWatchedAnswer, watch } from './contract_watch.js';

/**
 * Wraps globalThis.fetch (once): an answer from a watched society is checked before the
 * caller gets it, its headers and (read from a clone) its JSON body; a mismatch rejects
 * the fetch and is remembered for the test's end (in case a caller catches it, as a
 * retrying client would).
 */
export function installContractCheck(): void {
  const state = watch();
  if ((globalThis.fetch as { contract_checked?: boolean }).contract_checked) return;
  const original = state.original;
  const checked = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const response = await original(input, init);
    // The answer's own address: a redirect followed (a read replica's 307) ends at the writer.
    const url = new URL(response.url || (input instanceof Request ? input.url : String(input)));
    if (!state.origins.has(url.origin)) return response;
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase();
    const content_type = response.headers.get('content-type');
    const text = isJson(content_type) && method !== 'HEAD' ? await response.clone().text() : '';
    checkWatchedAnswer(url, method, response.status, content_type, text, response.headers);
    return response;
  };
  Object.assign(checked, { contract_checked: true });
  globalThis.fetch = checked as typeof fetch;
}
