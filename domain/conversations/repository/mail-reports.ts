import type { Data } from '../../kernel/data';
import type { MailReport } from '../entities';

/** What a report (a bounce, a complaint) is stored as, proven or not. */
export type MailReportRecord = Omit<MailReport, 'id' | 'workspace_id' | 'received_at'>;

/** The workspace's bounce and complaint reports. */
export const mailReportsIn = (data: Data) => ({
  /**
   * Stores a report, unless one with the same Message-ID is already stored (a replay): answers whether
   * it is new. SQL: INSERT ... ON CONFLICT DO NOTHING on the partial unique index, which waits for a
   * concurrent insert of the same report and then skips, as no read-then-write could.
   */
  file: async (r: MailReportRecord): Promise<boolean> =>
    (
      await data.sql<{ id: string }[]>(
        `INSERT INTO mail_reports (workspace_id, message_id, kind, proven, proof, reason, status, feedback_type,
                                   report_message_id)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
         ON CONFLICT (workspace_id, report_message_id) WHERE report_message_id IS NOT NULL DO NOTHING
         RETURNING id`,
        [
          data.workspaceId,
          r.message_id,
          r.kind,
          r.proven,
          r.proof,
          r.reason,
          r.status,
          r.feedback_type,
          r.report_message_id,
        ],
      )
    ).length > 0,
});
