/** base64url without padding, written without Buffer so the client runs in any JavaScript runtime. */
export function toBase64url(bytes: Uint8Array): string {
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

export function fromBase64url(text: string): Uint8Array {
  if (!/^[A-Za-z0-9_-]*$/.test(text)) throw new Error('not base64url');
  const padded = text.replace(/-/g, '+').replace(/_/g, '/') + '='.repeat((4 - (text.length % 4)) % 4);
  const binary = atob(padded);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * Decodes base64url that is spelled the one canonical way: the unused low bits of
 * the last character zero. Otherwise several strings would stand for one value.
 */
export function fromCanonicalBase64url(text: string): Uint8Array {
  const bytes = fromBase64url(text);
  if (toBase64url(bytes) !== text) throw new Error('not canonical base64url');
  return bytes;
}
