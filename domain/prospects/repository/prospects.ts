import type { Data } from '../../kernel/data';
import { DomainError } from '../../kernel/errors';
import { relayNotice } from '../../kernel/events';
import { SOURCING_OUTBOX } from '../outboxes';
import {
  PROSPECT_FIELDS,
  ProspectEntity,
  ProspectListEntity,
  SourcingRunEntity,
  type Prospect,
  type ProspectField,
  type ProspectList,
  type ProspectStatus,
  type Reason,
  type SourcingRun,
} from '../entities';

/** A row of a file, ready to store. */
export type Candidate = { [K in ProspectField]: string | null } & { line: number };

/** A workspace's prospect lists, prospects and sourcing runs. */
export const prospectsIn = (data: Data) => {
  const lists = data.scoped(ProspectListEntity);
  const rows = data.scoped(ProspectEntity);
  const runs = data.scoped(SourcingRunEntity);
  return {
    /**
     * The list of this name, made if new. SQL: an upsert, so two imports into a new list at once
     * make one list.
     */
    ensureList: async (name: string): Promise<ProspectList> => {
      await data.sql(
        `INSERT INTO prospect_lists (workspace_id, name) VALUES ($1, $2) ON CONFLICT ON CONSTRAINT prospect_lists_workspace_name DO NOTHING`,
        [data.workspaceId, name],
      );
      return (await lists.findOne({ name }))!;
    },

    listById: (id: string) => lists.findOne({ id }),

    /** A list named by id or by name, or "not found" naming `list`. */
    mustFindList: async (ref: string): Promise<ProspectList> => {
      const found = /^[0-9a-f-]{36}$/i.test(ref)
        ? ((await lists.findOne({ id: ref.toLowerCase() })) ?? (await lists.findOne({ name: ref })))
        : await lists.findOne({ name: ref });
      if (!found)
        throw new DomainError('not_found', `No prospect list "${ref}" in this workspace.`, { field: 'list' });
      return found;
    },

    /**
     * Stores a batch of candidates; one already in the list (same email, or same phone without an
     * email) is left as it is. Answers how many were new.
     * SQL: one INSERT over arrays, whatever the batch size, with ON CONFLICT against the list's keys.
     */
    insert: async (listId: string, batch: Candidate[]): Promise<number> => {
      if (batch.length === 0) return 0;
      const cols = [...PROSPECT_FIELDS];
      const params: unknown[] = [data.workspaceId, listId, batch.map((c) => c.line)];
      for (const f of cols) params.push(batch.map((c) => c[f]));
      const unnest = cols.map((_, i) => `$${i + 4}::text[]`).join(', ');
      const [r] = await data.sql<{ n: number }[]>(
        `WITH added AS (
           INSERT INTO prospects (workspace_id, list_id, line, ${cols.join(', ')})
           SELECT $1, $2, u.* FROM unnest($3::int[], ${unnest}) AS u
           ON CONFLICT DO NOTHING RETURNING 1)
         SELECT count(*)::int AS n FROM added`,
        params,
      );
      return r!.n;
    },

    find: (id: string) => rows.findOne({ id }),
    lock: (id: string) => rows.findOne({ id }, { lock: true }),

    change: async (id: string, values: Partial<Prospect>): Promise<Prospect> =>
      (await rows.update({ id }, values))[0]!,

    /** By list, status and minimum score: the best first, then the oldest line. */
    search: (f: { listId?: string; status?: ProspectStatus; minScore?: number; limit: number }) =>
      data.sql<Prospect[]>(
        // SQL: a score floor and an order the find options cannot say (NULLS LAST).
        `SELECT * FROM prospects
          WHERE workspace_id = $1 AND ($2::uuid IS NULL OR list_id = $2)
            AND ($3::text IS NULL OR status = $3) AND ($4::int IS NULL OR score >= $4)
          ORDER BY score DESC NULLS LAST, line, id LIMIT $5`,
        [data.workspaceId, f.listId ?? null, f.status ?? null, f.minScore ?? null, f.limit],
      ),

    startRun: async (
      values: Pick<SourcingRun, 'list_id' | 'scoring_version' | 'max_candidates' | 'agent_id'>,
    ) => {
      const run = await runs.insert(values);
      // PostgreSQL delivers a NOTIFY at commit, never for a rollback.
      await data.sql(...relayNotice(SOURCING_OUTBOX, run.workspace_id));
      return run;
    },
    run: (id: string) => runs.findOne({ id }),
    lockRun: (id: string) => runs.findOne({ id }, { lock: true }),
    changeRun: async (id: string, values: Partial<SourcingRun>) => (await runs.update({ id }, values))[0]!,

    /**
     * The next unscored candidates of a list, oldest line first, with whether each is already a live
     * lead or a suppressed address in the workspace.
     * SQL: both checks in one statement over the leads' and suppressions' address indexes.
     */
    nextToScore: (listId: string, limit: number) =>
      data.sql<(Prospect & { is_lead: boolean; suppressed: boolean })[]>(
        `SELECT p.*,
                EXISTS (SELECT 1 FROM leads l WHERE l.workspace_id = p.workspace_id AND l.archived_at IS NULL
                          AND (l.email = p.email OR l.phone = p.phone)) AS is_lead,
                EXISTS (SELECT 1 FROM suppressions s WHERE s.workspace_id = p.workspace_id
                          AND s.address IN (p.email, p.phone)) AS suppressed
           FROM prospects p
          WHERE p.workspace_id = $1 AND p.list_id = $2 AND p.status = 'NEW'
          ORDER BY p.line, p.id LIMIT $3 FOR UPDATE OF p SKIP LOCKED`,
        [data.workspaceId, listId, limit],
      ),

    /**
     * Records a batch's scores and drops. SQL: one UPDATE over arrays.
     */
    recordScores: async (
      runId: string,
      version: string,
      results: {
        id: string;
        status: 'SCORED' | 'DROPPED';
        score: number;
        reasons: Reason[];
        dropped: string | null;
      }[],
    ) => {
      if (results.length === 0) return;
      await data.sql(
        `UPDATE prospects p SET status = u.status, score = u.score, reasons = u.reasons, dropped_reason = u.dropped,
                scoring_version = $2, sourcing_run_id = $3, scored_at = clock_timestamp()
           FROM unnest($4::uuid[], $5::text[], $6::int[], $7::jsonb[], $8::text[]) AS u(id, status, score, reasons, dropped)
          WHERE p.id = u.id AND p.workspace_id = $1`,
        [
          data.workspaceId,
          version,
          runId,
          results.map((r) => r.id),
          results.map((r) => r.status),
          results.map((r) => r.score),
          results.map((r) => JSON.stringify(r.reasons)),
          results.map((r) => r.dropped),
        ],
      );
    },
  };
};
