/**
 * Standard base64 with padding (RFC 4648 section 4), the encoding of notes, checkpoints
 * and witness requests, written without Buffer so the verifiers run in any JavaScript
 * runtime. The decoder takes only the one canonical spelling (padding present, unused
 * low bits zero, RFC 4648 section 3.5): a signed text then has one form per value.
 */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary);
}

export function fromBase64(text: string): Uint8Array {
  if (text.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/.test(text)) throw new Error('not base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  if (toBase64(bytes) !== text) throw new Error('not canonical base64');
  return bytes;
}
