import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Twilio's webhook signature: base64 HMAC-SHA1, keyed with the account's auth token, of the full URL
 * Twilio requested followed by every POST parameter as name then value, sorted by name.
 * https://www.twilio.com/docs/usage/security#validating-requests
 */
export function twilioSignature(authToken: string, url: string, params: URLSearchParams): string {
  const names = [...new Set(params.keys())].sort();
  const data =
    url +
    names
      .map((n) =>
        params
          .getAll(n)
          .map((v) => n + v)
          .join(''),
      )
      .join('');
  return createHmac('sha1', authToken).update(data, 'utf8').digest('base64');
}

/** Compared in constant time. */
export function twilioSignatureValid(
  authToken: string,
  url: string,
  params: URLSearchParams,
  presented: string,
): boolean {
  const expected = Buffer.from(twilioSignature(authToken, url, params));
  const given = Buffer.from(presented);
  return expected.length === given.length && timingSafeEqual(expected, given);
}
