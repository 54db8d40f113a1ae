import { type ProviderResult, SEND_TIMEOUT_MS } from '../../domain/conversations';
import { traceHeaders } from '../../domain/kernel/tracing';
import { providerSpan } from './span';

type Sms = { to: string; body: string; whatsapp: boolean };

export type SmsProvider = { send: (sms: Sms) => Promise<ProviderResult> };

// Twilio's error codes for a number that can never receive: invalid, not a mobile, unreachable
// carrier, or blocked; the number is suppressed. https://www.twilio.com/docs/api/errors
const DEAD_NUMBER_CODES = new Set([21211, 21214, 21612, 21614, 21610]);

/**
 * SMS (and WhatsApp) through an HTTP provider shaped like Twilio's Messages API:
 * `POST {url}/2010-04-01/Accounts/{sid}/Messages.json`, form-encoded, HTTP Basic with the account sid
 * and auth token, answering the message's `sid`.
 */
export function twilioShapedProvider(opts: {
  url: string;
  accountSid: string;
  authToken: string;
  from: string;
}): SmsProvider {
  const endpoint = `${opts.url.replace(/\/$/, '')}/2010-04-01/Accounts/${encodeURIComponent(opts.accountSid)}/Messages.json`;
  const auth = `Basic ${Buffer.from(`${opts.accountSid}:${opts.authToken}`).toString('base64')}`;
  const sendOne = async ({ to, body, whatsapp }: Sms): Promise<ProviderResult> => {
    const form = new URLSearchParams({
      To: whatsapp ? `whatsapp:${to}` : to,
      From: whatsapp ? `whatsapp:${opts.from}` : opts.from,
      Body: body,
    });
    let res: Response;
    try {
      res = await fetch(endpoint, {
        method: 'POST',
        headers: {
          authorization: auth,
          'content-type': 'application/x-www-form-urlencoded',
          ...traceHeaders(),
        },
        body: form,
        redirect: 'manual',
        signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
      });
    } catch (err) {
      // Refused before the request left: safe to send again; a timeout may have been taken.
      const cause = (err as { cause?: { code?: string } }).cause?.code ?? '';
      const before = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET'].includes(cause);
      return {
        kind: 'transient',
        error: `no answer from the SMS provider: ${String(err).slice(0, 200)}`,
        ...(!before && { maybeSent: true }),
      };
    }
    const answer = (await res.json().catch(() => ({}))) as {
      sid?: string;
      code?: number;
      message?: string;
    };
    if (res.ok && answer.sid) return { kind: 'sent', providerMessageId: answer.sid };
    const said = `HTTP ${res.status}${answer.code ? ` (${answer.code})` : ''}: ${(answer.message ?? '').slice(0, 200)}`;
    if (res.status === 429 || res.status >= 500 || res.ok) return { kind: 'transient', error: said };
    const dead = answer.code !== undefined && DEAD_NUMBER_CODES.has(answer.code);
    return { kind: 'permanent', error: said, ...(dead && { block: 'invalid_number' as const }) };
  };
  return {
    send: (sms) => providerSpan('POST', new URL(endpoint).hostname, () => sendOne(sms)),
  };
}
