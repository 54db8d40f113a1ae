import type { Data } from '../kernel/data';
import { changedParts, memberChanges, type Sample } from '../kernel/effect';
import { DomainError } from '../kernel/errors';
import type { AnyOperation } from '../kernel/operation';
import { keyStanding } from '../identity';
import { policyOf, standingOf } from './decider';
import type { Approval } from './entities';
import { requesterRefusal } from './requester';
import { deciderRefusal } from './rules';
import { approvalView } from './views';

/** Who asked, and whether they still may: the key (live, revoked, expired) and, if not, why not. */
async function requester(data: Data, row: Approval, op: AnyOperation | undefined) {
  const key = await keyStanding(data, row.requested_by_key);
  const keyState = !key ? 'missing' : key.revoked_at ? 'revoked' : key.expired ? 'expired' : 'live';
  const refusal = op
    ? requesterRefusal(key, op.requirement)
    : `the operation ${row.operation} no longer exists`;
  return {
    key_id: row.requested_by_key,
    /** `assistant`: an assistant connection (the name and prefix are its client's name and host). */
    key_kind: key?.kind ?? null,
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
 * the bound parts by name (['target'] when the record is gone), and for each member set who left, who
 * joined and how many approved still qualify; null for a request with no snapshot.
 */
async function changedSince(data: Data, row: Approval, op: AnyOperation | undefined) {
  if (!row.effect || !op?.effect) return null;
  try {
    const now = await op.effect(row.input, data, { lock: false, count: true });
    return { parts: changedParts(row.effect, now), members: memberChanges(row.effect, now) };
  } catch (err) {
    if (err instanceof DomainError && err.code === 'not_found') return { parts: ['target'], members: {} };
    throw err;
  }
}

/** Whether the person named (`--as`) may approve it, by the rule the decision itself applies. */
async function decider(data: Data, row: Approval, email: string | undefined) {
  if (email === undefined)
    return { second_person_required: (await policyOf(data, row.workspace_id)).distinct, decider: null };
  const { decider: member, policy } = await standingOf(data, row, { email });
  const refusal = deciderRefusal(member, row, 'approve', policy);
  return {
    second_person_required: policy.distinct,
    decider: { email, may_decide: refusal === undefined, refusal: refusal?.reason ?? null },
  };
}

/**
 * The request, who asked and whether they still may, whom it reaches (each member set's count and its
 * first names and addresses, as counted when asked), what changed since, and whether the person named
 * may approve it, for `approval show`.
 */
export async function showApproval(data: Data, row: Approval, op: AnyOperation | undefined, as?: string) {
  const scoped = data.in(row.workspace_id);
  const changed = row.status === 'PENDING' ? await changedSince(scoped, row, op) : null;
  return {
    ...approvalView(row),
    // The evidence of a member's decision, whole: the signed assertion as their browser sent it.
    decided_assertion: row.decided_assertion,
    requester: await requester(scoped, row, op),
    members: row.effect?.members
      ? Object.fromEntries(
          Object.entries(row.effect.members).map(([n, m]) => [n, { count: m.ids.length, sample: m.sample }]),
        )
      : null,
    changed_since_requested: changed?.parts ?? null,
    members_since_requested: changed?.members ?? null,
    ...(await decider(scoped, row, as)),
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

/** A snapshot's fields in the order a person reads them (`approval show` and the console's page alike). */
export const inReadingOrder = (value: Record<string, unknown>): [string, unknown][] =>
  Object.entries(value).sort(([a], [b]) => rank(a) - rank(b) || (a < b ? -1 : 1));

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
  const entries = inReadingOrder(value as Record<string, unknown>);
  if (entries.length === 0) return ' (none)';
  return entries.map(([k, v]) => `\n${pad}${k.replaceAll('_', ' ')}:${plain(v, `${pad}  `)}`).join('');
}

const people = (n: number) => `${n.toLocaleString('en-US')} ${n === 1 ? 'person' : 'people'}`;

/** "Ana Lima <ana@example.com>": one of a set's first few, as the approver reads it. */
const sampled = (x: Sample) => (x.name ? `${x.name} <${x.address}>` : x.address);

/** `approval show` for a person: the summary, who asked and whether they still may, and every bound part. */
export function approvalText(a: ShownApproval): string {
  const r = a.requester;
  const key =
    r.key_kind === 'assistant'
      ? `assistant "${r.key_name ?? '?'}" (${r.key_prefix ?? r.key_id}, connection ${r.key_state})`
      : `key "${r.key_name ?? '?'}" (${r.key_prefix ?? r.key_id}, ${r.key_state})`;
  const owner = `${r.key_kind === 'assistant' ? 'acting as' : 'owner'} ${r.owner_email ?? r.owner_user_id} (${r.owner_role ?? 'no longer a member'})`;
  const lines = [
    `Approval request ${a.id}: ${a.status}${a.status === 'PENDING' ? `, until ${a.expires_at}` : ''}`,
    `  ${a.summary}`,
    `Asked by ${key}, ${owner}: ${r.still_valid ? 'still valid' : `NO LONGER VALID (${r.refusal}): approving it will be refused`}`,
    `Operation: ${a.operation}`,
  ];
  lines.push(...decided(a));
  if (a.reason) lines.push(`Reason: ${a.reason}`);
  if (!a.effect) {
    lines.push('What it does: no snapshot (asked before snapshots existed); it cannot run.');
    return `${lines.join('\n')}\n`;
  }
  lines.push(`What it does, as it stood when asked:${plain(a.effect.bound, '  ')}`);
  if (a.effect.counted) lines.push(`Counted when asked:${plain(a.effect.counted, '  ')}`);
  for (const [name, m] of Object.entries(a.members ?? {})) {
    const rest = m.count - m.sample.length;
    lines.push(
      `Whom it reaches (${name}), as counted when asked: ${people(m.count)}; only they can be reached by it.`,
      ...m.sample.map((x) => `  ${sampled(x)}`),
      ...(rest > 0 ? [`  ... and ${people(rest)} more`] : []),
    );
  }
  if (a.effect.shown) lines.push(`Also:${plain(a.effect.shown, '  ')}`);
  lines.push(`Digest: sha256:${a.effect.digest}`);
  const changed = a.changed_since_requested;
  if (changed)
    lines.push(
      changed.length > 0
        ? `Since it was asked: CHANGED (${changed.join(', ')}); approving it will be refused.`
        : `Since it was asked: ${membersSince(a.members_since_requested) ?? 'unchanged.'}`,
    );
  if (a.decider)
    lines.push(`${a.decider.email} may decide: ${a.decider.may_decide ? 'yes' : `no: ${a.decider.refusal}`}`);
  else if (a.second_person_required)
    lines.push(
      'Approvers: the workspace requires a second person; the owner of the key that asked may not approve it.',
    );
  return `${lines.join('\n')}\n`;
}

/**
 * Who decided and how, for a decided request: a member with their passkey (the credential, the digest
 * they approved and the signed assertion), or operator-asserted (the operating system user and host
 * that sent it from the admin CLI: nobody proved the member decided).
 */
function decided(a: ShownApproval): string[] {
  if (!a.decided_by) return [];
  const when = a.decided_at ? ` at ${a.decided_at}` : '';
  const verb = a.status === 'REJECTED' ? 'Rejected' : 'Approved';
  if (a.decided_via === 'passkey')
    return [
      `${verb} by member ${a.decided_by}${when}, with their passkey (credential ${a.decided_credential})`,
      `  ${verb} snapshot: sha256:${a.decided_digest}`,
      `  Signed assertion: ${JSON.stringify(a.decided_assertion)}`,
    ];
  if (a.decided_via === 'operator')
    return [
      `${verb} as member ${a.decided_by}${when}: OPERATOR-ASSERTED by ${a.operator_asserted?.os_user} on ${a.operator_asserted?.host} at the admin CLI, not proven by the member`,
    ];
  return [
    `${verb} by member ${a.decided_by}${when} (how was not recorded: decided before decisions kept their evidence)`,
  ];
}

/**
 * A member set that changed since it was counted: "audience changed: 3 left, 3 joined", and what an
 * approval would then do (reach those who still qualify, leave out who joined); undefined when none did.
 */
function membersSince(m: ShownApproval['members_since_requested']): string | undefined {
  const said = Object.entries(m ?? {})
    .filter(([, c]) => c.left > 0 || c.joined > 0)
    .map(
      ([name, c]) =>
        `${name} changed: ${c.left} left, ${c.joined} joined; approving it reaches only the ${people(c.still)} counted who still qualify${c.joined > 0 ? `, and leaves out the ${c.joined} who joined` : ''}.`,
    );
  return said.length > 0 ? said.join(' ') : undefined;
}
