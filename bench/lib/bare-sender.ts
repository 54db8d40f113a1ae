import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { signWebhook } from '../../receiver/verify';

export type Envelope = { id: string; type: string; body: string };
export type Sent = { id: string; sentAt: number; status: number };

/**
 * The baseline: what delivering costs with no durability at all. Signs and POSTs the same bytes
 * with the same headers as the delivery activity, over keep-alive connections.
 */
export function bareSender(url: string, secret: string, maxSockets: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets });
  const send = (e: Envelope): Promise<Sent> => {
    const sentAt = performance.now();
    const headers = {
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength(e.body)),
      'service-signature': signWebhook(e.body, secret, Math.floor(Date.now() / 1000)),
      'service-event-id': e.id,
      'service-event-type': e.type,
      'service-delivery-attempt': '1',
      'user-agent': 'lead-service-webhooks/1',
    };
    return new Promise<Sent>((resolve, reject) => {
      const req = http.request(url, { method: 'POST', agent, headers }, (res) => {
        res.on('data', () => undefined);
        res.on('end', () => resolve({ id: e.id, sentAt, status: res.statusCode ?? 0 }));
        res.on('error', reject);
      });
      req.setTimeout(10_000, () => req.destroy(new Error('timed out')));
      req.on('error', reject);
      req.end(e.body);
    });
  };
  return { send, close: () => agent.destroy() };
}
