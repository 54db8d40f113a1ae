import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export type SentSms = { sid: string; to: string; from: string; body: string; at: string };

/**
 * A local SMS provider that speaks Twilio's Messages API (`POST /2010-04-01/Accounts/{sid}/Messages.json`,
 * HTTP Basic, form-encoded) and keeps what it is sent, for `npm run dev` (its page lists the messages,
 * as MailDev does for mail) and for tests (a number can be told to fail). Nothing leaves the machine.
 */
export async function startSmsSink(opts: { accountSid: string; authToken: string; port?: number }) {
  const sent: SentSms[] = [];
  /** Per number: the HTTP status and Twilio error code it answers instead of accepting. */
  const failures = new Map<string, { status: number; code: number; message: string }>();
  const auth = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;
  const path = `/2010-04-01/Accounts/${opts.accountSid}/Messages.json`;

  const server = http.createServer((req, res) => {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(body));
    };
    if (req.method === 'GET' && (req.url === '/' || req.url === '/messages.json')) {
      if (req.url === '/messages.json') return json(200, sent);
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      const rows = sent
        .slice()
        .reverse()
        .map((m) => `<tr><td>${esc(m.at)}</td><td>${esc(m.to)}</td><td>${esc(m.body)}</td></tr>`)
        .join('');
      return res.end(
        `<!doctype html><meta charset="utf-8"><title>SMS sent</title><h1>SMS sent (${sent.length})</h1>` +
          `<table border="1" cellpadding="4"><tr><th>at</th><th>to</th><th>body</th></tr>${rows}</table>`,
      );
    }
    if (req.method !== 'POST' || req.url !== path) return json(404, { code: 20404, message: 'not found' });
    if (req.headers.authorization !== auth) return json(401, { code: 20003, message: 'Authenticate' });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      const to = form.get('To') ?? '';
      const failure = failures.get(to.replace(/^whatsapp:/, ''));
      if (failure)
        return json(failure.status, { code: failure.code, message: failure.message, status: failure.status });
      const sid = `SM${randomBytes(16).toString('hex')}`;
      sent.push({
        sid,
        to,
        from: form.get('From') ?? '',
        body: form.get('Body') ?? '',
        at: new Date().toISOString(),
      });
      json(201, { sid, status: 'queued', to, body: form.get('Body') });
    });
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    authToken: opts.authToken,
    sent,
    /** The number answers this error instead of accepting (a Twilio error code, e.g. 21211 invalid number). */
    failFor: (number: string, status: number, code: number, message = 'refused') =>
      failures.set(number, { status, code, message }),
    clearFailures: () => failures.clear(),
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

const esc = (s: string) => s.replace(/[&<>"]/g, (c) => `&#${c.charCodeAt(0)};`);
