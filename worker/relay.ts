import type { Client } from '@temporalio/client';
import pg from 'pg';
import type { DataSource } from 'typeorm';
import { Data } from '../domain/kernel/data';
import { readRelayNotice, RELAY_CHANNEL } from '../domain/kernel/events';
import { RELAY_SLOTS, type AnyOutbox, type RelaySlots } from '../domain/kernel/outbox';
import { contextFrom, inSpan, SpanKind } from '../domain/kernel/tracing';
import { allOutboxes } from '../domain/registry';
import type { Logger } from '../infra/logger';
import type { AgentScheduler } from '../infra/temporal/agents';
import { outboxStarters, type OutboxStarter } from '../infra/temporal/outbox-starters';
import type { DeliveryStarts } from '../infra/temporal/webhooks';

/** Rows written with a change (an outbox) that each need a workflow started once they commit. */
export type OutboxSource = {
  /** What a NOTIFY names to wake this outbox's pass (`relayNotice`), and its metrics' and logs' label. */
  name: string;
  /**
   * Rows with no workflow yet, in the slots this relay holds, in turn per workspace, leaving out the
   * keys started a moment ago.
   */
  unstarted: (limit: number, startedMeanwhile: string[], slots: RelaySlots) => Promise<unknown[]>;
  key: (row: unknown) => string;
  start: (row: unknown) => Promise<void>;
  /** A cap per group (an endpoint, a workspace) on rows started and not yet under way (`inFlightPerGroup`). */
  fair?: Fairness;
  /** The trace the row was written in (its `traceparent`), which its start continues. */
  traced?: (row: unknown) => string | null | undefined;
};

/** An outbox's fairness (`OutboxDeclaration['fair']`), its still-starting rows read from the database. */
type Fairness = {
  group: (row: unknown) => string;
  workspace: (row: unknown) => string;
  stillStarting: (keys: string[]) => Promise<string[]>;
};

/**
 * The service's outboxes, as the areas declare them (domain/registry.ts collects them), each with its
 * starter from infra/temporal/: webhook deliveries, outbound messages, launched campaigns, sourcing
 * runs, sent quotes' and issued invoices' timers, and agents whose Temporal schedule is behind their
 * status (or that have a run to start).
 */
export function outboxSources(
  db: DataSource,
  client: Client,
  taskQueue: string,
  agents: AgentScheduler,
  deliveries: DeliveryStarts,
): OutboxSource[] {
  // Every workspace's rows.
  return sourcesOf(
    allOutboxes(),
    outboxStarters(client, taskQueue, agents, deliveries),
    new Data(db.manager, undefined),
  );
}

/**
 * Pairs each outbox with its starter by name, in the starters' order, reading and marking rows through
 * `data`; a row's start, then its mark where the outbox marks its rows (`started`). An outbox without a
 * starter, or a starter without an outbox, is a wiring fault: it throws, so the worker does not start.
 */
export function sourcesOf(
  outboxes: readonly AnyOutbox[],
  starters: readonly OutboxStarter[],
  data: Data,
): OutboxSource[] {
  const declared = new Map(outboxes.map((o) => [o.name, o]));
  const startable = new Set(starters.map((s) => s.outbox));
  const unstartable = outboxes.filter((o) => !startable.has(o.name)).map((o) => o.name);
  const undeclared = starters.filter((s) => !declared.has(s.outbox)).map((s) => s.outbox);
  if (unstartable.length > 0 || undeclared.length > 0 || startable.size !== starters.length)
    throw new Error(
      `every outbox needs one starter (infra/temporal/outbox-starters.ts) and every starter its outbox: ` +
        `no starter for [${unstartable.join(', ')}], no outbox for [${undeclared.join(', ')}]` +
        (startable.size !== starters.length ? ', and two starters share an outbox' : ''),
    );
  return starters.map(({ outbox: name, start }) => {
    const { unstarted, key, fair, traced, started } = declared.get(name)!;
    return {
      name,
      unstarted: (limit, startedMeanwhile, slots) => unstarted(data, limit, startedMeanwhile, slots),
      key,
      start: started
        ? async (row) => {
            await start(row);
            await started(data, row);
          }
        : start,
      ...(fair && {
        fair: {
          group: fair.group,
          workspace: fair.workspace,
          stillStarting: (keys: string[]) => fair.stillStarting(data, keys),
        },
      }),
      ...(traced && { traced }),
    };
  });
}

export type RelayOptions = {
  databaseUrl: string;
  sources: OutboxSource[];
  log: Logger;
  batchSize?: number;
  /** Fallback poll when no notification arrives (a lost connection, a NOTIFY from another database). */
  pollMs?: number;
  /** Told of each start tried, for the metrics. */
  onStart?: (outbox: string, ok: boolean) => void;
  /**
   * At most this many rows of one group (`fair.group`) started and not yet under way (their first
   * attempt not recorded), per fair outbox. The rest wait in the database, where the relay takes turns
   * across workspaces, instead of in Temporal's queue and the worker's, which serve what came first:
   * one workspace's burst then holds a few slots ahead of another's next row, not its whole backlog.
   */
  inFlightPerGroup?: number;
  /**
   * A burst's cap (a workspace with more than `inFlightPerGroup` rows waiting) while another workspace
   * has rows waiting, starting or started in the last second: the fewer a burst has under way, the
   * sooner another workspace's row gets the worker (on a saturated worker a row waits for about every
   * row under way ahead of it). A trickle gets TRICKLE_WHEN_SHARED (at least this, at most
   * `inFlightPerGroup`); a workspace alone gets `inFlightPerGroup`.
   */
  inFlightWhenShared?: number;
};

/**
 * Starts a row's workflow inside the trace its change was written in: the relay's span is a child of
 * the stored `traceparent`, and the start (the Temporal client's span, whose context the workflow's
 * headers carry) a child of it. A row written untraced starts with no span of ours.
 */
function startInTrace(s: OutboxSource, row: unknown): Promise<void> {
  const traceparent = s.traced?.(row);
  if (!traceparent) return s.start(row);
  return inSpan(
    `relay ${s.name}`,
    {
      kind: SpanKind.CONSUMER,
      parent: contextFrom({ traceparent }),
      attributes: { 'outbox.name': s.name, 'outbox.row': s.key(row) },
    },
    () => s.start(row),
  );
}

/**
 * What a commit's notice (`relayNotice`, `relayWakeUp`) asks of this relay: to read the outbox it names,
 * when it names no slot or one this relay `holds` now; nothing, when the rows are in another relay's
 * slot (that relay reads them); every outbox, when it names none of this relay's (an empty NOTIFY).
 *
 * A notice ignored here is not lost when its slot is changing hands: slots are taken only by `balance`,
 * at the start of a full pass, which then reads every outbox in them, so the new holder reads the rows
 * committed before it took the slot in that very pass, and is woken for those committed after. The rows
 * of a slot let go and not yet taken wait for the taker's next balance (each second, before its full
 * pass), as they did when every notice woke every relay: within the poll.
 */
export function noticeFor(
  payload: string,
  outboxes: ReadonlySet<string>,
  holds: (slot: number) => boolean,
): { outbox: string } | 'another relay' | 'every outbox' {
  const notice = outboxes.has(payload) ? { outbox: payload } : readRelayNotice(payload);
  if (!outboxes.has(notice.outbox)) return 'every outbox';
  return notice.slot === undefined || holds(notice.slot) ? { outbox: notice.outbox } : 'another relay';
}

/** A row the relay started: when, and (fair outboxes) its group and workspace. */
type Started = { at: number; group: string; workspace: string };

/**
 * Starts one relay has under way at once. A worker killed mid-pass leaves at most this many calls cut
 * off, which the server counts.
 */
export const START_CONCURRENCY = 32;
const IN_FLIGHT_PER_GROUP = 25;
const IN_FLIGHT_WHEN_SHARED = 1;
/**
 * A trickle's cap while another workspace is busy: enough for its next rows not to wait behind its last
 * (5 a second at 50 ms each has one under way), few enough that a burst just beginning, which looks like
 * a trickle until more than IN_FLIGHT_PER_GROUP of its rows wait, has no more than this many ahead of
 * another workspace's row (on a saturated worker each row under way takes its share of the CPU).
 */
const TRICKLE_WHEN_SHARED = 5;
/** A workspace whose row started this recently still counts as busy (a trickle of 5 a second does). */
const BUSY_FOR_MS = 1_000;
/** A pass held back by the cap per group looks again this soon: the rows under way finish in ms. */
const CAPPED_POLL_MS = 50;
/** After this, a delivery whose first attempt has not recorded is offered for a (refused) restart. */
const RECENTLY_STARTED_MS = 5 * 60_000;

/**
 * The outbox relay: starts a workflow for every outbox row that has none yet (a webhook delivery, an
 * outbound message), with a deterministic workflow id. The first attempt's record marks the row
 * started (one write less per row than a separate mark). A crash between commit and start only delays
 * a row (the next pass starts it); a start repeated after a crash is refused by Temporal (same id).
 * Woken by NOTIFY at commit, which names the outbox to read and, most often, the slot of its rows (only
 * the relay holding it wakes: `noticeFor`), with a full poll as a fallback.
 */
export function startRelay(opts: RelayOptions) {
  const { log } = opts;
  const batchSize = opts.batchSize ?? 200;
  let running = true;
  const pollMs = opts.pollMs ?? 1000;
  let wake: (() => void) | undefined;
  let listener: pg.Client | undefined;
  const names = new Set(opts.sources.map((s) => s.name));
  // The outboxes a NOTIFY (or a full batch) says have rows waiting, which the next pass reads. Every
  // outbox is read at least every pollMs (some notify nobody: the quote and invoice timers), and after
  // a NOTIFY that names none of them.
  const due = new Set<string>();
  let lastFull = 0;
  // The fair outboxes whose last pass left rows for the cap: read again within CAPPED_POLL_MS.
  const capped = new Set<string>();

  // Rows this relay started, each while its first attempt has not recorded (which marks the row
  // started): not offered again meanwhile, and counted against its group's cap (fair outboxes). A fair
  // outbox's entry leaves once its row is under way, so the list the next pass leaves out stays as short
  // as what is in flight; every entry leaves after RECENTLY_STARTED_MS. Lost in a crash, which costs
  // only a refused duplicate start.
  const startedBy = new Map(opts.sources.map((s) => [s.name, new Map<string, Started>()]));
  // Rows the last pass found due and could not start yet, each since the pass that first found it
  // (NOTIFY wakes a pass at their commit): the relay's lag. At most a batch per outbox.
  const waitingBy = new Map(opts.sources.map((s) => [s.name, new Map<string, number>()]));
  const logOf = new Map(opts.sources.map((s) => [s.name, log.child({ outbox: s.name })]));

  const alone = opts.inFlightPerGroup ?? IN_FLIGHT_PER_GROUP;
  const shared = Math.min(alone, opts.inFlightWhenShared ?? IN_FLIGHT_WHEN_SHARED);
  const trickle = Math.min(alone, Math.max(shared, TRICKLE_WHEN_SHARED));
  // Per fair outbox, when each workspace last had a row started.
  const busyBy = new Map(opts.sources.map((s) => [s.name, new Map<string, number>()]));

  /** Forgets the rows started long ago and, for a fair outbox, those now under way. */
  const prune = async (s: OutboxSource, started: Map<string, Started>): Promise<void> => {
    const now = Date.now();
    for (const [k, { at }] of started) if (now - at > RECENTLY_STARTED_MS) started.delete(k);
    if (!s.fair || started.size === 0) return;
    const still = new Set(await s.fair.stillStarting([...started.keys()]));
    for (const k of started.keys()) if (!still.has(k)) started.delete(k);
  };

  /** The rows that may start now: each group's share under the cap, the rest left for a later pass. */
  const underCap = (s: OutboxSource, due: unknown[], started: Map<string, Started>): unknown[] => {
    const fair = s.fair;
    if (!fair) return due;
    const busy = busyBy.get(s.name)!;
    const now = Date.now();
    for (const [w, at] of busy) if (now - at > BUSY_FOR_MS) busy.delete(w);
    // Busy: a row starting now, or one started within the last second, or one waiting to start.
    const workspaces = new Set([
      ...busy.keys(),
      ...[...started.values()].map((r) => r.workspace),
      ...due.map((d) => fair.workspace(d)),
    ]);
    // A burst: a workspace with more rows waiting than it may have starting alone. While another
    // workspace is busy, a burst's groups get the shared cap and a trickle's a few more, so that its
    // own next row does not wait behind its last.
    const waitingOf = new Map<string, number>();
    for (const d of due) waitingOf.set(fair.workspace(d), (waitingOf.get(fair.workspace(d)) ?? 0) + 1);
    const capOf = (workspace: string) =>
      workspaces.size === 1 ? alone : (waitingOf.get(workspace) ?? 0) > alone ? shared : trickle;
    const inFlight = new Map<string, number>();
    for (const { group } of started.values()) inFlight.set(group, (inFlight.get(group) ?? 0) + 1);
    const allowed = due.filter((d) => {
      const group = fair.group(d);
      const n = inFlight.get(group) ?? 0;
      if (n >= capOf(fair.workspace(d))) return false;
      inFlight.set(group, n + 1);
      busy.set(fair.workspace(d), now);
      return true;
    });
    if (allowed.length < due.length) capped.add(s.name);
    return allowed;
  };

  const passOf = async (s: OutboxSource): Promise<number> => {
    const { name, unstarted, key } = s;
    const started = startedBy.get(name)!;
    const sourceLog = logOf.get(name)!;
    await prune(s, started);
    const found = await unstarted(batchSize, [...started.keys()], leases.slots());
    const before = waitingBy.get(name)!;
    const now = Date.now();
    const waiting = new Map(found.map((d) => [key(d), before.get(key(d)) ?? now]));
    waitingBy.set(name, waiting);
    const due = underCap(s, found, started);
    if (due.length === 0) return 0;
    // A pool rather than chunks: a slow start does not hold up the other slots.
    let next = 0;
    const slot = async () => {
      while (next < due.length) {
        const d = due[next++]!;
        try {
          await startInTrace(s, d);
          started.set(key(d), {
            at: Date.now(),
            group: s.fair?.group(d) ?? '',
            workspace: s.fair?.workspace(d) ?? '',
          });
          waiting.delete(key(d));
          opts.onStart?.(name, true);
        } catch (err) {
          opts.onStart?.(name, false);
          sourceLog.warn('could not start a workflow; will retry', { row: key(d), error: String(err) });
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(START_CONCURRENCY, due.length) }, slot));
    return due.length;
  };

  /** One pass: the outboxes due, or every one when a full pass is. */
  const pass = async (): Promise<void> => {
    const now = Date.now();
    const full = now - lastFull >= pollMs;
    if (full) lastFull = now;
    // Before a full pass (about once a second), never during one nor before a pass a commit woke: a
    // slot let go is not being read by this relay any more, and a commit's rows wait for no balancing.
    // A slot taken here is read in this very pass, rows committed before it was taken included.
    if (full)
      await leases
        .balance(now)
        .catch((err: unknown) =>
          log.warn('relay slot balancing failed; keeping the slots held', { error: String(err) }),
        );
    if (leases.held() === 0) return;
    const reading = opts.sources.filter((s) => full || due.has(s.name) || capped.has(s.name));
    for (const s of reading) {
      due.delete(s.name);
      capped.delete(s.name);
      try {
        // A full batch may have left more behind: read that outbox again at once.
        if ((await passOf(s)) >= batchSize) due.add(s.name);
      } catch (err) {
        logOf.get(s.name)!.error('relay pass failed', { error: String(err) });
      }
    }
  };

  const loop = async () => {
    while (running) {
      await pass();
      if (due.size > 0) continue;
      await new Promise<void>((resolve) => {
        const untilFull = Math.max(0, lastFull + pollMs - Date.now());
        const timer = setTimeout(resolve, capped.size > 0 ? Math.min(CAPPED_POLL_MS, untilFull) : untilFull);
        wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      wake = undefined;
    }
  };

  // LISTEN on a connection of its own; if it drops, poll meanwhile and reconnect with a back-off.
  const reconnect = (): void => {
    setTimeout(() => {
      if (running) listen().catch(reconnect);
    }, 2_000).unref();
  };
  const listen = async (): Promise<void> => {
    const client = new pg.Client({
      connectionString: opts.databaseUrl,
      connectionTimeoutMillis: 5_000,
      keepAlive: true,
    });
    client.on('notification', ({ payload }) => {
      const wanted = noticeFor(payload ?? '', names, leases.holds);
      if (wanted === 'another relay') return;
      if (wanted === 'every outbox') lastFull = 0;
      else due.add(wanted.outbox);
      wake?.();
    });
    client.on('error', (err) => {
      log.warn('relay listener lost its connection (and its slots); waiting until it is back', {
        error: String(err),
      });
      leases.lost();
      void client.end().catch(() => undefined);
      if (listener === client) listener = undefined;
      reconnect();
    });
    await client.connect();
    await client.query(`LISTEN ${RELAY_CHANNEL}`);
    await leases.join(client);
    listener = client;
    lastFull = 0; // anything committed while nobody listened
    wake?.();
  };
  const leases = slotLeases(log);
  const ready = listen();
  const done = ready.then(loop);
  return {
    ready,
    /** Per outbox, seconds the oldest row still waiting for its workflow has waited (0: none waits). */
    lag: (): Map<string, number> => {
      const now = Date.now();
      return new Map(
        [...waitingBy].map(([name, waiting]) => [
          name,
          Math.max(0, now - Math.min(now, ...waiting.values())) / 1000,
        ]),
      );
    },
    /** The slots this relay holds now (their count: RELAY_SLOTS when it is the only relay). */
    slots: () => leases.slots(),
    stop: async () => {
      running = false;
      wake?.();
      await done.catch(() => undefined);
      // Ending the session lets its slots go at once: the other relays take them at their next balance.
      await listener?.end().catch(() => undefined);
    },
  };
}

/** The advisory-lock key spaces (pg's two-int form): the relays present, and the slots they hold. */
const MEMBERS = 0x52454d42;
const SLOTS = 0x52454c53;
/**
 * How often, at most, a relay counts the relays present and takes or lets go of slots to hold its
 * share: before its full passes (every `pollMs`, a second by default).
 */
const BALANCE_MS = 1_000;

/**
 * How the relays running on the database `client` is connected to divide the slots: how many are
 * present, and the slots each session holds. Read from `pg_locks`, as the relays leave them, by whoever
 * checks the division from outside (the tests that run several worker processes).
 */
export async function relaySlotHolders(
  client: pg.ClientBase | pg.Pool,
): Promise<{ relays: number; slots: number[][] }> {
  const { rows } = await client.query<{ pid: number; members: number; slots: number[] }>(
    `SELECT pid, count(*) FILTER (WHERE classid::bigint = $1)::int AS members,
            coalesce(array_agg(objid::int ORDER BY objid) FILTER (WHERE classid::bigint = $2), '{}') AS slots
       FROM pg_locks
      WHERE locktype = 'advisory' AND granted AND objsubid = 2
        AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
      GROUP BY pid`,
    [MEMBERS, SLOTS],
  );
  return {
    relays: rows.reduce((n, r) => n + r.members, 0),
    slots: rows.filter((r) => r.slots.length > 0).map((r) => r.slots),
  };
}

/**
 * The slots of the outbox rows this relay starts (`RELAY_SLOTS`, by workspace), held as session-level
 * advisory locks on its listener's connection: a relay that dies lets them go with its session, at
 * once, and the others take them at their next balance (within a second or two). Each relay holds
 * about its share, RELAY_SLOTS divided by the relays present (each holds a lock in MEMBERS while its
 * session lives); one alone holds every slot. The connection lost, the slots are lost with it: the relay
 * starts nothing until it is back.
 */
function slotLeases(log: Logger) {
  let client: pg.Client | undefined;
  const held = new Set<number>();
  let nextBalance = 0;
  const member = Math.floor(Math.random() * 0x7fffffff);
  // On the full pass's clock: a balance read a millisecond later would put the next one a pass later.
  const balance = async (now = Date.now()) => {
    const c = client;
    if (!c || now < nextBalance) return;
    nextBalance = now + BALANCE_MS;
    const { rows } = await c.query<{ members: number; taken: number[] }>(
      `SELECT count(*) FILTER (WHERE classid::bigint = $1)::int AS members,
              coalesce(array_agg(objid::int) FILTER (WHERE classid::bigint = $2), '{}') AS taken
         FROM pg_locks
        WHERE locktype = 'advisory' AND granted AND objsubid = 2
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`,
      [MEMBERS, SLOTS],
    );
    const share = Math.ceil(RELAY_SLOTS / Math.max(1, rows[0]!.members));
    // More than its share (another relay joined): the highest go, for the newcomer to take.
    for (const slot of [...held].sort((a, b) => b - a).slice(0, Math.max(0, held.size - share))) {
      await c.query('SELECT pg_advisory_unlock($1, $2)', [SLOTS, slot]);
      held.delete(slot);
    }
    if (held.size >= share) return;
    const taken = new Set(rows[0]!.taken);
    const free = Array.from({ length: RELAY_SLOTS }, (_, i) => i).filter(
      (s) => !taken.has(s) && !held.has(s),
    );
    // In a random order, so relays joining together do not all try the same slots first.
    for (const slot of free.sort(() => Math.random() - 0.5)) {
      if (held.size >= share) break;
      const got = await c.query<{ ok: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS ok', [SLOTS, slot]);
      if (got.rows[0]!.ok) held.add(slot);
    }
  };
  return {
    /** Joins on the listener's (new) connection: present from now, holding nothing yet. */
    join: async (c: pg.Client) => {
      held.clear();
      await c.query('SELECT pg_advisory_lock($1, $2)', [MEMBERS, member]);
      client = c;
      nextBalance = 0;
      await balance();
      log.info('relay joined', { slots: held.size });
    },
    /** The connection is gone, and the locks with it. */
    lost: () => {
      client = undefined;
      held.clear();
    },
    balance,
    held: () => held.size,
    holds: (slot: number) => held.has(slot),
    slots: (): RelaySlots => (held.size === RELAY_SLOTS ? 'all' : [...held].sort((a, b) => a - b)),
  };
}
