/** Every failure a domain operation can report; each door maps these exhaustively to its wire form. */
export type ErrorCode =
  | 'unauthorized'
  | 'forbidden'
  | 'invalid_request'
  | 'not_found'
  | 'conflict'
  | 'rate_limited'
  | 'needs_confirmation'
  | 'suppressed'
  | 'payload_too_large'
  | 'unavailable'
  | 'server_error';

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    /** Extra members for the error body (`retry_after`, `failed_step`, `applied`, `field`...). */
    readonly details: Record<string, unknown> = {},
    /** The real reason, for the audit log only; never shown to the caller. */
    readonly auditReason?: string,
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const invalid = (field: string, message: string) =>
  new DomainError('invalid_request', message, { field });

export const notFound = (what: string) => new DomainError('not_found', `No such ${what} in this workspace.`);
