import type { Data } from './data';

/**
 * An outbox: rows an area writes with a change that each need a durable job started once they commit
 * (a delivery's workflow, a timer, an agent's schedule brought in step). The area declares it in its
 * face (`outboxes`) and wakes it at commit with `relayNotice(name, workspace)` (events.ts); the
 * registry collects the declarations; infra/temporal/ starts a row's job for the outbox's name; the
 * relay (worker/relay.ts) reads each outbox and starts its rows, each once.
 */
export type OutboxDeclaration<Row> = {
  /** What a NOTIFY names to wake its pass (`relayNotice`), and its metrics' and logs' label. */
  name: string;
  /**
   * Rows with no job yet, every workspace's (`data` reaches them all), in turn per workspace where the
   * outbox is fair, leaving out the keys started a moment ago.
   */
  unstarted: (data: Data, limit: number, startedMeanwhile: string[], slots: RelaySlots) => Promise<Row[]>;
  /** What the relay remembers a started row by: a row that needs its job again has a new key. */
  key: (row: Row) => string;
  /** A cap per group (an endpoint, a workspace) on rows started and not yet under way. */
  fair?: {
    /**
     * What the cap counts by: a webhook endpoint (within a workspace, a slow receiver's deliveries wait
     * in their workflows and must not hold back its other endpoints), a workspace's messages.
     */
    group: (row: Row) => string;
    /** The row's workspace: while more than one workspace is busy, each group's cap is the shared one. */
    workspace: (row: Row) => string;
    /** Of these keys, those whose row still waits for its job's first record. */
    stillStarting: (data: Data, keys: string[]) => Promise<string[]>;
  };
  /** The trace the row was written in (its `traceparent`), which its start continues. */
  traced?: (row: Row) => string | null | undefined;
  /** Marks the row once its job has started, where the job does not (a timer, a schedule). */
  started?: (data: Data, row: Row) => Promise<void>;
};

/**
 * The rows of every outbox are divided among the workers' relays by workspace into this many slots; a
 * relay starts only the rows of the slots it holds (worker/relay.ts leases them), so a row is offered by
 * one relay, and a workspace's rows (its fairness, its endpoints' caps) are all one relay's.
 */
export const RELAY_SLOTS = 64;

/** The slots a relay holds, or `all` (it is the only relay). */
export type RelaySlots = readonly number[] | 'all';

/**
 * SQL: the slot of the row whose workspace (or, for a row of none, its own id) is `expr`. The one
 * expression both sides use: the reads (`inSlots`) and the wake-ups that name a slot (`relayNotice`,
 * `relayWakeUp` in events.ts), so a notice names the slot whose holder reads the row.
 */
export const slotOf = (expr: string) => `(hashtext((${expr})::text) & ${RELAY_SLOTS - 1})`;

/**
 * SQL: whether the row whose workspace (or, for a row of none, its own id) is `expr` falls in the slots
 * bound as `param` (an int[]; NULL for all of them). The same hash in every outbox, so a workspace's
 * rows of every kind are one relay's.
 */
export const inSlots = (expr: string, param: string) =>
  `(${param}::int[] IS NULL OR ${slotOf(expr)} = ANY(${param}::int[]))`;

/** The value `inSlots` binds: the slots, or NULL for all. */
export const slotsParam = (slots: RelaySlots): number[] | null => (slots === 'all' ? null : [...slots]);

/** Typed identity: infers an outbox's rows from its declaration. */
export const declareOutbox = <Row>(outbox: OutboxDeclaration<Row>): OutboxDeclaration<Row> => outbox;

/** Any outbox, whatever its rows (the registry's element type). */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- rows are contravariant; the relay hands each outbox its own
export type AnyOutbox = OutboxDeclaration<any>;
