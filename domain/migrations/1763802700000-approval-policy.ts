import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * An approval binds its people, and a workspace can require a second person.
 *
 * - `workspaces.distinct_approver`: with it, the member who owns the key that parked a request may not
 *   approve it (`workspace approvals --distinct true`). False for every workspace, as before: a
 *   workspace with one admin keeps approving its assistant's requests.
 * - `campaigns.left_out`: who an approved launch left out of the audience it fixed, and why
 *   (`{ joined_since, no_longer_qualify }`); null for campaigns launched before, or without an approval.
 *
 * Requests to send or launch a campaign parked before this keep no audience set; approved, they are
 * refused at run time ("approval predates its audience being kept") and must be asked again.
 */
export class ApprovalPolicy1763802700000 implements MigrationInterface {
  name = 'ApprovalPolicy1763802700000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces ADD COLUMN distinct_approver boolean NOT NULL DEFAULT false;
      ALTER TABLE campaigns ADD COLUMN left_out jsonb;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE campaigns DROP COLUMN left_out;
      ALTER TABLE workspaces DROP COLUMN distinct_approver;
    `);
  }
}
