import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An approval binds a snapshot of its effect (what the approver is shown, with its digest), and the
 * approved run refuses when the target no longer matches it. A request parked before this has no
 * snapshot, so nobody can tell what was approved: the ones still waiting end FAILED with reason
 * "approval predates snapshots" (the assistant sees it through approval.get or its task), and must be
 * asked again. Their workflows learn it at the next decision (refused: no longer waiting) or at their
 * deadline.
 */
export class ApprovalSnapshots1763801900000 implements MigrationInterface {
  name = 'ApprovalSnapshots1763801900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approvals ADD COLUMN effect jsonb;
      UPDATE approvals
         SET status = 'FAILED', reason = 'approval predates snapshots',
             error = jsonb_build_object('code', 'conflict', 'refused_by', 'gate',
               'message', 'approval predates snapshots: nobody can tell what was approved, so it does not run; ask for approval again.'),
             finished_at = clock_timestamp()
       WHERE status = 'PENDING';
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`ALTER TABLE approvals DROP COLUMN effect`);
  }
}
