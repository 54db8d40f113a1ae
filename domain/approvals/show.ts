import type { Data } from '../kernel/data';
import { changedParts } from '../kernel/effect';
import { DomainError } from '../kernel/errors';
import type { AnyOperation } from '../kernel/operation';
import { keysIn } from '../identity';
import type { Approval } from './entities';
import { requesterRefusal } from './requester';
import { approvalView } from './views';

/** Who asked, and whether they still may: the key (live, revoked, expired) and, if not, why not. */
async function requester(data: Data, row: Approval, op: AnyOperation | undefined) {
  const key = await keysIn(data).standing(row.requested_by_key);
  const keyState = !key ? 'missing' : key.revoked_at ? 'revoked' : key.expired ? 'expired' : 'live';
  const refusal = op
    ? requesterRefusal(key, op.requirement)
    : `the operation ${row.operation} no longer exists`;
  return {
    key_id: row.requested_by_key,
    key_name: key?.name ?? null,
    key_prefix: key?.prefix ?? null,
    key_state: keyState,
    owner_user_id: row.requested_by_user,
    owner_email: key?.owner_email ?? null,
    owner_role: key?.owner_role ?? null,
    /** Why approving it would be refused for who asked; null while they may still ask it. */
    refusal: refusal ?? null,
    still_valid: refusal === undefined,
  };
}

/**
 * What differs now from what was approved, read without a lock (the run checks again under its own):
 * the bound parts by name, ['target'] when the record is gone, null for a request with no snapshot.
 */
async function changedSince(data: Data, row: Approval, op: AnyOperation | undefined) {
  if (!row.effect || !op?.effect) return null;
  try {
    return changedParts(row.effect, await op.effect(row.input, data, { lock: false, count: false }));
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found') return ['target'];
    throw err;
  }
}

/** The request, who asked and whether they still may, and what changed since, for `approval show`. */
export async function showApproval(data: Data, row: Approval, op: AnyOperation | undefined) {
  const scoped = data.in(row.workspace_id);
  return {
    ...approvalView(row),
    requester: await requester(scoped, row, op),
    changed_since_requested: row.status === 'PENDING' ? await changedSince(scoped, row, op) : null,
  };
}
export type ShownApproval = Awaited<ReturnType<typeof showApproval>>;

/**
 * The order a person reads a snapshot in (`jsonb` keeps keys its own way): what it is, who it reaches,
 * when, then what it says; the rest alphabetically after these.
 */
const READING_ORDER = [
  'type',
  'name',
  'system',
  'account',
  'channel',
  'audience',
  'window',
  'daily_cap',
  'steps',
  'review_level',
  'limits',
  'sources',
  'cadence',
  'subject',
  'body',
  'delay_hours',
  'weekdays',
  'start_hour',
  'end_hour',
  'days',
  'time',
  'per_run',
  'per_day',
  'per_lead_per_week',
  'status',
  'before',
  'after',
  'widens',
];
const rank = (key: string) => {
  const i = READING_ORDER.indexOf(key);
  return i < 0 ? READING_ORDER.length : i;
};

/**
 * A value in plain words, one `name: value` line per field under `pad`: lists of records numbered,
 * lists of words joined, text as it is (placeholders such as {first_name} kept, lines indented).
 */
function plain(value: unknown, pad: string): string {
  if (value === null || value === undefined) return ' (none)';
  if (typeof value === 'string')
    return value.includes('\n') ? `\n${pad}${value.replaceAll('\n', `\n${pad}`)}` : ` ${value}`;
  if (typeof value !== 'object') return ` ${JSON.stringify(value)}`;
  if (Array.isArray(value)) {
    if (value.length === 0) return ' (none)';
    if (value.every((v) => v === null || typeof v !== 'object'))
      return ` ${value.map((v) => String(v)).join(', ')}`;
    return value.map((v, i) => `\n${pad}${i + 1}.${plain(v, `${pad}   `)}`).join('');
  }
  const entries = Object.entries(value as Record<string, unknown>).sort(
    ([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1),
  );
  if (entries.length === 0) return ' (none)';
  return entries.map(([k, v]) => `\n${pad}${k.replaceAll('_', ' ')}:${plain(v, `${pad}  `)}`).join('');
}

/** `approval show` for a person: the summary, who asked and whether they still may, and every bound part. */
export function approvalText(a: ShownApproval): string {
  const r = a.requester;
  const key = `key "${r.key_name ?? '?'}" (${r.key_prefix ?? r.key_id}, ${r.key_state})`;
  const owner = `owner ${r.owner_email ?? r.owner_user_id} (${r.owner_role ?? 'no longer a member'})`;
  const lines = [
    `Approval request ${a.id}: ${a.status}${a.status === 'PENDING' ? `, until ${a.expires_at}` : ''}`,
    `  ${a.summary}`,
    `Asked by ${key}, ${owner}: ${r.still_valid ? 'still valid' : `NO LONGER VALID (${r.refusal}): approving it will be refused`}`,
    `Operation: ${a.operation}`,
  ];
  if (a.reason) lines.push(`Reason: ${a.reason}`);
  if (!a.effect) {
    lines.push('What it does: no snapshot (asked before snapshots existed); it cannot run.');
    return `${lines.join('\n')}\n`;
  }
  lines.push(`What it does, as it stood when asked:${plain(a.effect.bound, '  ')}`);
  if (a.effect.counted) lines.push(`Counted when asked:${plain(a.effect.counted, '  ')}`);
  if (a.effect.shown) lines.push(`Also:${plain(a.effect.shown, '  ')}`);
  lines.push(`Digest: sha256:${a.effect.digest}`);
  const changed = a.changed_since_requested;
  if (changed)
    lines.push(
      changed.length === 0
        ? 'Since it was asked: unchanged.'
        : `Since it was asked: CHANGED (${changed.join(', ')}); approving it will be refused.`,
    );
  return `${lines.join('\n')}\n`;
}
