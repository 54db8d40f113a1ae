import { inSlots } from './outbox';

/**
 * The head of an outbox's fair-order statement: a CTE `heads(workspace_id, oldest)` of the workspaces
 * with rows waiting (`waiting`, written for the alias it is given) in the relay's slots (`$3`, see
 * `inSlots`), in the order of their oldest (`at`), at most $1 of them. The statement then takes each
 * head's rows in turn.
 *
 * SQL: the workspaces come from the outbox's partial index by workspace, one probe each (a recursive
 * skip over it): an aggregate would read every waiting row, 10,000 of them in a burst, on every pass
 * of the relay.
 */
export const workspacesByOldest = (table: string, at: string, waiting: (alias: string) => string) =>
  `WITH RECURSIVE busy AS (
     (SELECT w.workspace_id FROM ${table} w WHERE ${waiting('w')} ORDER BY w.workspace_id LIMIT 1)
     UNION ALL
     SELECT (SELECT w.workspace_id FROM ${table} w
              WHERE ${waiting('w')} AND w.workspace_id > b.workspace_id ORDER BY w.workspace_id LIMIT 1)
       FROM busy b WHERE b.workspace_id IS NOT NULL),
   heads AS (
     SELECT b.workspace_id,
            (SELECT min(w.${at}) FROM ${table} w WHERE w.workspace_id = b.workspace_id AND ${waiting('w')}) AS oldest
       FROM busy b WHERE b.workspace_id IS NOT NULL AND ${inSlots('b.workspace_id', '$3')}
      ORDER BY oldest LIMIT $1)`;
