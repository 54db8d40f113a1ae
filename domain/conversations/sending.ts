/**
 * How an outbound message is sent, as data and pure functions. Imported by the sending workflow, so
 * nothing here may do I/O or read a clock.
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/**
 * Waits after a transient failure (SMTP 4xx, a timeout, HTTP 5xx): 1 min, 5 min, 30 min, 2 h, 6 h;
 * six hand-overs over about 8.6 hours. A message is a conversation: later than that it is better
 * failed visibly than delivered the next day.
 */
export const SEND_LADDER_MS: readonly number[] = [MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 6 * HOUR];
export const SEND_ATTEMPTS = SEND_LADDER_MS.length + 1;

/** The longest one hand-over to a provider may take. */
export const SEND_TIMEOUT_MS = 20_000;

/** What a provider said of one hand-over. */
export type ProviderResult =
  | { kind: 'sent'; providerMessageId: string }
  /**
   * Refused for now (SMTP 4xx, HTTP 5xx, no connection). `maybeSent`: the provider may have taken it
   * before the failure (a timeout mid-hand-over), so sending it again could send it twice: it is failed.
   */
  | { kind: 'transient'; error: string; maybeSent?: boolean }
  /** `block`: the address itself is dead (a hard bounce, an invalid number): it is suppressed. */
  | { kind: 'permanent'; error: string; block?: 'bounce' | 'invalid_number' };

/** What one attempt ended in, for the workflow: `retry` waits for the next rung. */
export type AttemptOutcome = 'sent' | 'retry' | 'failed' | 'suppressed';

/**
 * Words an inbound SMS opts out with, alone on the message, in any case (the carriers' and Twilio's
 * list; CTIA's guidelines).
 */
const SMS_STOP_WORDS = ['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'OPTOUT', 'REVOKE'];

export const isStopWord = (body: string) =>
  SMS_STOP_WORDS.includes(
    body
      .trim()
      .replace(/[.!]+$/, '')
      .toUpperCase(),
  );
