/**
 * What the member mail workflow, its starter and its activities agree on (workflow code imports only
 * this): pure data, no I/O, no clock.
 */

/** A mail's workflow is started with its id alone: the address, subject and text stay in the database. */
export type MemberMailInput = { mailId: string };

const SECOND = 1_000;
const MINUTE = 60 * SECOND;

/**
 * Waits after a temporary failure (SMTP 4xx, no connection): 30 s, 1 min, 2 min, 5 min; five hand-overs
 * over eight and a half minutes, inside a sign-in link's fifteen. Later than that the link would be dead
 * on arrival: better failed visibly.
 */
export const MEMBER_MAIL_LADDER_MS: readonly number[] = [30 * SECOND, MINUTE, 2 * MINUTE, 5 * MINUTE];
export const MEMBER_MAIL_ATTEMPTS = MEMBER_MAIL_LADDER_MS.length + 1;

/**
 * What one hand-over to the SMTP provider said (the email provider's own result, as data): sent; refused
 * for now (`maybeSent`: cut off after the server may have taken it); or refused for good. Errors never
 * hold the member's address: the activity takes it out before the result enters the workflow's history.
 */
export type MailResult =
  | { kind: 'sent'; providerMessageId: string }
  | { kind: 'transient'; error: string; maybeSent?: boolean }
  | { kind: 'permanent'; error: string };

/** What a hand-over answered: the provider's result, or the record's when the mail needs no hand-over. */
export type HandOver = MailResult | { done: 'sent' | 'failed'; error?: string };

/** What recording an attempt ended in: `retry` waits for the next rung. */
export type MailOutcome = { outcome: 'sent' | 'retry' | 'failed'; error?: string };
