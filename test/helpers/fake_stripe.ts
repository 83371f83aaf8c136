import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface FakeStripe {
  url: string;
  /** Every API request the service made: method, path and the form fields it sent. */
  requests: { method: string; path: string; form: URLSearchParams }[];
  /** One more call answers 500, as an outage would (the library retries once). */
  failNext(): void;
  /** Marks a checkout session created earlier as paid. */
  markPaid(session_id: string): void;
  close(): Promise<void>;
}

/**
 * A local stand-in for the processor's HTTP API: only the routes the service calls,
 * with response shapes from the processor's API reference. The only stand-in the
 * tests use; webhooks sent to the service are signed for real.
 */
export async function startFakeStripe(): Promise<FakeStripe> {
  const requests: FakeStripe['requests'] = [];
  let failures = 0;
  let counter = 0;
  const sessions = new Map<string, Record<string, unknown>>();
  const server: Server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => (body += chunk));
    req.on('end', () => {
      const form = new URLSearchParams(body);
      requests.push({ method: req.method!, path: req.url!, form });
      res.setHeader('content-type', 'application/json');
      if (failures > 0) {
        failures--;
        res.statusCode = 500;
        res.end(JSON.stringify({ error: { type: 'api_error', message: 'outage' } }));
        return;
      }
      counter++;
      if (req.method === 'POST' && req.url === '/v1/checkout/sessions') {
        const id = `cs_test_${counter}`;
        const metadata: Record<string, string> = {};
        for (const [key, value] of form) if (key.startsWith('metadata[')) metadata[key.slice(9, -1)] = value;
        const session = {
          id,
          object: 'checkout.session',
          url: `https://checkout.stripe.test/c/pay/${id}`,
          amount_total: Number(form.get('line_items[0][price_data][unit_amount]')),
          currency: 'usd',
          mode: form.get('mode'),
          client_reference_id: form.get('client_reference_id'),
          metadata,
          payment_status: 'unpaid',
          status: 'open',
        };
        sessions.set(id, session);
        res.end(JSON.stringify(session));
        return;
      }
      const retrieve = /^\/v1\/checkout\/sessions\/([A-Za-z0-9_]+)$/.exec(req.url ?? '');
      if (req.method === 'GET' && retrieve && sessions.has(retrieve[1]!)) {
        res.end(JSON.stringify(sessions.get(retrieve[1]!)));
        return;
      }
      if (req.method === 'POST' && req.url === '/v1/billing_portal/sessions') {
        res.end(
          JSON.stringify({
            id: `bps_${counter}`,
            object: 'billing_portal.session',
            customer: form.get('customer'),
            url: `https://billing.stripe.test/p/session/bps_${counter}`,
          }),
        );
        return;
      }
      res.statusCode = 404;
      res.end(
        JSON.stringify({
          error: { type: 'invalid_request_error', message: `Unrecognized request URL (${req.method}: ${req.url})` },
        }),
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    failNext: () => void failures++,
    markPaid: (session_id) => {
      const session = sessions.get(session_id);
      if (session) Object.assign(session, { payment_status: 'paid', status: 'complete' });
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
