import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The sales back half. A lead's buying intent (from its classified inbound messages); opportunities
 * (at most one open per lead, enforced by a partial unique index); quotes, one row per revision, a
 * revision family sharing the number it got when first sent; the signature that accepted one; invoices
 * issued from accepted quotes; and the per-workspace counters that number quotes and invoices without
 * gaps (a counter row is locked by the transaction that takes a number, so a rollback gives it back).
 */
export class Sales1763801500000 implements MigrationInterface {
  name = 'Sales1763801500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE leads
        ADD COLUMN intent text CHECK (intent IN ('EXPLORATORY', 'EVALUATING', 'BOOKING_READY', 'NOT_NOW', 'NOT_INTERESTED')),
        ADD COLUMN intent_score integer CHECK (intent_score >= 0 AND intent_score <= 100);
      ALTER TABLE messages ADD COLUMN classification text;

      CREATE TABLE opportunities (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        stage text NOT NULL CHECK (stage IN ('QUALIFIED', 'BOOKED', 'PROPOSAL', 'WON', 'LOST')),
        motion text NOT NULL CHECK (motion IN ('INBOUND', 'OUTBOUND')),
        origin text NOT NULL CHECK (origin IN ('BOOKING', 'BUYING_INTENT', 'MANUAL')),
        close_reason text,
        payment jsonb,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        closed_at timestamptz
      );
      CREATE UNIQUE INDEX opportunities_open_lead ON opportunities (lead_id) WHERE stage NOT IN ('WON', 'LOST');
      CREATE INDEX opportunities_workspace ON opportunities (workspace_id, created_at DESC);

      CREATE TABLE document_counters (
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        kind text NOT NULL CHECK (kind IN ('quote', 'invoice')),
        last integer NOT NULL,
        CONSTRAINT document_counters_pkey PRIMARY KEY (workspace_id, kind)
      );

      CREATE TABLE quotes (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        opportunity_id uuid NOT NULL REFERENCES opportunities(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        family_id uuid NOT NULL,
        revision integer NOT NULL CHECK (revision >= 1),
        number text,
        status text NOT NULL DEFAULT 'DRAFT'
          CHECK (status IN ('DRAFT', 'SENT', 'ACCEPTED', 'DECLINED', 'EXPIRED', 'SUPERSEDED')),
        currency text NOT NULL,
        lines jsonb NOT NULL,
        total bigint NOT NULL CHECK (total >= 0),
        recurring_interval text CHECK (recurring_interval IN ('month', 'year')),
        valid_until date NOT NULL,
        expires_at timestamptz,
        document_sha256 text,
        token_hash text,
        message_id uuid,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        sent_at timestamptz,
        viewed_at timestamptz,
        decided_at timestamptz,
        timer_started_at timestamptz,
        CONSTRAINT quotes_family_revision UNIQUE (family_id, revision),
        CONSTRAINT quotes_token_hash_key UNIQUE (token_hash)
      );
      CREATE INDEX quotes_opportunity ON quotes (opportunity_id, created_at);
      CREATE INDEX quotes_timer_unstarted ON quotes (sent_at) WHERE status = 'SENT' AND timer_started_at IS NULL;

      CREATE TABLE quote_signatures (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        quote_id uuid NOT NULL REFERENCES quotes(id) ON DELETE CASCADE,
        typed_name text NOT NULL CHECK (length(typed_name) >= 1 AND length(typed_name) <= 200),
        consent_text text NOT NULL,
        consent_version text NOT NULL,
        document_sha256 text NOT NULL,
        client_ip text,
        user_agent text,
        signed_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        CONSTRAINT quote_signatures_quote_id_key UNIQUE (quote_id)
      );

      CREATE TABLE invoices (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        quote_id uuid NOT NULL REFERENCES quotes(id) ON DELETE CASCADE,
        opportunity_id uuid NOT NULL REFERENCES opportunities(id) ON DELETE CASCADE,
        lead_id uuid NOT NULL REFERENCES leads(id) ON DELETE CASCADE,
        number text NOT NULL,
        status text NOT NULL DEFAULT 'ISSUED' CHECK (status IN ('ISSUED', 'PAID')),
        currency text NOT NULL,
        lines jsonb NOT NULL,
        total bigint NOT NULL CHECK (total >= 0),
        amount_paid bigint NOT NULL DEFAULT 0,
        recurring_interval text CHECK (recurring_interval IN ('month', 'year')),
        due_date date NOT NULL,
        due_at timestamptz NOT NULL,
        issued_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        paid_at timestamptz,
        overdue_at timestamptz,
        reminder_message_id uuid,
        timer_started_at timestamptz,
        CONSTRAINT invoices_quote_id_key UNIQUE (quote_id),
        CONSTRAINT invoices_workspace_number UNIQUE (workspace_id, number)
      );
      CREATE INDEX invoices_timer_unstarted ON invoices (issued_at) WHERE status = 'ISSUED' AND timer_started_at IS NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE invoices, quote_signatures, quotes, document_counters, opportunities;
      ALTER TABLE messages DROP COLUMN classification;
      ALTER TABLE leads DROP COLUMN intent, DROP COLUMN intent_score;
    `);
  }
}
