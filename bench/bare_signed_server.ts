import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import canonicalizeJson from 'canonicalize';

/**
 * The ceiling of a signed act: a bare node:http server that hands out nonces, and for
 * an act only parses the body, canonicalises it, verifies the signature on a cached
 * KeyObject and hands over a next nonce. No engine, no store. Prints its port.
 */
const agents = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { agent_id: string; jwk: { x: string } }[];
const keys = new Map<string, KeyObject>(
  agents.map((a) => [a.agent_id, createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: a.jwk.x }, format: 'jwk' })]),
);

const server = createServer((req, res) => {
  if (req.method === 'GET' && req.url!.startsWith('/api/v1/nonce')) {
    const agent = new URL(req.url!, 'http://x').searchParams.get('agent');
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify({ agent, nonce: randomBytes(18).toString('base64url'), expires_at: '' }));
    return;
  }
  if (req.method !== 'POST' || req.url !== '/api/v1/act') {
    res.statusCode = 404;
    res.end();
    return;
  }
  let body = '';
  req.setEncoding('utf8');
  req.on('data', (chunk) => (body += chunk));
  req.on('end', () => {
    const agent_id = String(req.headers['x-agent-id']);
    const canonical = canonicalizeJson(JSON.parse(body))!;
    const text = [
      'society-sig-v1',
      req.method,
      req.url,
      agent_id,
      String(req.headers['x-nonce']),
      createHash('sha256').update(canonical).digest('hex'),
    ].join('\n');
    const key = keys.get(agent_id);
    const ok =
      key !== undefined &&
      verify(null, Buffer.from(text), key, Buffer.from(String(req.headers['x-signature']), 'base64url'));
    res.statusCode = ok ? 200 : 401;
    res.setHeader('content-type', 'application/json');
    if (ok) res.setHeader('x-next-nonce', randomBytes(18).toString('base64url'));
    res.end(ok ? '{"ok":true}' : '{"error":"SIG_INVALID"}');
  });
});
server.keepAliveTimeout = 65_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
});
