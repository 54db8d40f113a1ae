import type { DataSource } from 'typeorm';
import {
  BUDGETS,
  FIRST_NAMES,
  LAST_NAMES,
  MESSAGE_BODIES,
  POSTCODES,
  POSTED_SOURCE,
  TIMEFRAMES,
} from './seed-data';

/** Seeded xorshift: every run sends the same requests in the same order, so runs compare like for like. */
export function sequence(seed: number) {
  let x = seed >>> 0 || 1;
  return (n: number) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

// Seeded phones are +447700000001 upwards; posted ones start well clear of them.
const POSTED_PHONE_BASE = 800_000_000;

const pick = <T>(items: readonly T[], r: (n: number) => number) => items[r(items.length)]!;

/**
 * Ids for GET /leads/{id}: half of them leads with messages, so the recent_activity query does real
 * work, as it would for most leads a salesperson opens.
 */
export async function sampleLeadIds(db: DataSource, workspaceId: string, count = 2000): Promise<string[]> {
  const half = Math.ceil(count / 2);
  const any = await db.query<{ id: string }[]>(
    `SELECT id FROM leads WHERE workspace_id = $1 AND source IS DISTINCT FROM $2 ORDER BY random() LIMIT $3`,
    [workspaceId, POSTED_SOURCE, half],
  );
  const active = await db.query<{ id: string }[]>(
    `SELECT DISTINCT lead_id AS id FROM messages WHERE workspace_id = $1 ORDER BY id LIMIT $2`,
    [workspaceId, half],
  );
  return [...any, ...active].map((r) => r.id);
}

/** The kinds of search a person makes; fragment i is of kind i % SEARCH_KINDS.length. */
export const SEARCH_KINDS = [
  'first-name prefix',
  'surname',
  'full name',
  'email prefix',
  'whole email',
] as const;

/**
 * What people type into a search box: a first-name prefix, a surname, a full name, an address they
 * half remember, or one they copied whole. All at least 3 characters.
 */
export async function searchFragments(db: DataSource, workspaceId: string, count = 1000): Promise<string[]> {
  const emails = (
    await db.query<{ email: string }[]>(
      `SELECT email FROM leads WHERE workspace_id = $1 AND email IS NOT NULL ORDER BY random() LIMIT 200`,
      [workspaceId],
    )
  ).map((r) => r.email);
  const r = sequence(7);
  const make: Record<(typeof SEARCH_KINDS)[number], () => string> = {
    'first-name prefix': () => pick(FIRST_NAMES, r).slice(0, 3 + r(3)),
    surname: () => pick(LAST_NAMES, r),
    'full name': () => `${pick(FIRST_NAMES, r)} ${pick(LAST_NAMES, r)}`,
    'email prefix': () => {
      const local = pick(emails, r).split('@')[0]!;
      return local.slice(0, Math.max(3, local.indexOf('.') + 3));
    },
    'whole email': () => pick(emails, r),
  };
  return Array.from({ length: count }, (_, i) =>
    make[SEARCH_KINDS[i % SEARCH_KINDS.length]!]().toLowerCase(),
  );
}

/** The representative search for EXPLAIN: a surname prefix, neither rare nor matching everything. */
export const representativeSearch = () => LAST_NAMES[11]!.slice(0, 5).toLowerCase();

/**
 * POST /leads bodies: every one a new person (unique email and phone, so the intake creates rather
 * than merges), a third with a message, like an ad form with an optional comment box.
 */
export function intakeBodies(firstNumber: number) {
  const r = sequence(firstNumber + 11);
  let n = firstNumber;
  return () => {
    n += 1;
    const first = pick(FIRST_NAMES, r);
    const last = pick(LAST_NAMES, r);
    return {
      n,
      body: {
        first_name: first,
        last_name: last,
        email: `${first}.${last}.post${n}@example.com`.toLowerCase(),
        phone: `+447${POSTED_PHONE_BASE + n}`,
        postcode: pick(POSTCODES, r),
        source: POSTED_SOURCE,
        ...(n % 3 === 0 ? { message: pick(MESSAGE_BODIES, r) } : {}),
        answers: { budget: pick(BUDGETS, r), timeframe: pick(TIMEFRAMES, r) },
        consent: { given: true, at: new Date().toISOString() },
      },
    };
  };
}

/**
 * Where this run's POSTs start numbering: after the highest number any earlier run posted (a failed
 * POST leaves a gap, so a count would reuse numbers), so no intake merges into an old lead.
 */
export async function lastPostedNumber(db: DataSource, workspaceId: string): Promise<number> {
  const [row] = await db.query<{ phone: string | null }[]>(
    `SELECT max(phone) AS phone FROM leads WHERE workspace_id = $1 AND source = $2`,
    [workspaceId, POSTED_SOURCE],
  );
  return row?.phone ? Number(row.phone.slice('+447'.length)) - POSTED_PHONE_BASE : 0;
}
