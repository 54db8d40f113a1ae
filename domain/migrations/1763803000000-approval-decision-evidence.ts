import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A decision records who made it and what proves it. A member decides in the workspace console with
 * their passkey: `decided_via = 'passkey'`, the credential's id, the signed assertion as the browser
 * sent it, and the snapshot digest it approved. An operator's break-glass decision at the admin CLI
 * (`approval approve|reject --as`) is `decided_via = 'operator'`, with the operating system user and
 * host that sent it (`operator_asserted`): asserted, not proven. Requests decided before this keep null
 * in all five; nothing is guessed for them.
 */
export class ApprovalDecisionEvidence1763803000000 implements MigrationInterface {
  name = 'ApprovalDecisionEvidence1763803000000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approvals
        ADD COLUMN decided_via text,
        ADD COLUMN decided_credential text,
        ADD COLUMN decided_assertion jsonb,
        ADD COLUMN decided_digest text,
        ADD COLUMN operator_asserted jsonb,
        ADD CONSTRAINT approvals_decided_via_check CHECK (decided_via = ANY (ARRAY['passkey'::text, 'operator'::text])),
        ADD CONSTRAINT approvals_decided_evidence_check CHECK (
          decided_via IS NULL
          OR (decided_via = 'passkey' AND decided_credential IS NOT NULL AND decided_assertion IS NOT NULL
              AND decided_digest IS NOT NULL)
          OR (decided_via = 'operator' AND operator_asserted IS NOT NULL));
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE approvals
        DROP COLUMN operator_asserted,
        DROP COLUMN decided_digest,
        DROP COLUMN decided_assertion,
        DROP COLUMN decided_credential,
        DROP COLUMN decided_via;
    `);
  }
}
