import { createServer } from 'node:http';

/**
 * The ceiling of the stack: a bare node:http server answering given paths with given
 * bytes and headers (and 304 to a matching If-None-Match), nothing else. Reads its
 * fixtures as JSON on stdin, prints its port.
 */
let input = '';
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const fixtures = JSON.parse(input) as Record<string, { type: string; body_base64: string; etag?: string }>;
  const bodies = new Map(
    Object.entries(fixtures).map(([path, f]) => [path, { ...f, body: Buffer.from(f.body_base64, 'base64') }]),
  );
  const server = createServer((req, res) => {
    const fixture = bodies.get(req.url!);
    if (!fixture) {
      res.statusCode = 404;
      res.end();
      return;
    }
    if (fixture.etag) res.setHeader('ETag', fixture.etag);
    if (fixture.etag && req.headers['if-none-match'] === fixture.etag) {
      res.statusCode = 304;
      res.end();
      return;
    }
    res.setHeader('Content-Type', fixture.type);
    res.end(fixture.body);
  });
  server.keepAliveTimeout = 65_000;
  server.listen(0, '127.0.0.1', () => {
    const address = server.address();
    console.log(JSON.stringify({ port: typeof address === 'object' && address ? address.port : 0 }));
  });
});
