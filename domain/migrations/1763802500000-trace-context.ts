import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The outbox rows keep the W3C trace context of the change that wrote them (`traceparent`, null when
 * nothing was traced), so the delivery or the sending the relay starts later continues that trace.
 */
export class TraceContext1763802500000 implements MigrationInterface {
  name = 'TraceContext1763802500000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE events ADD COLUMN traceparent text;
      ALTER TABLE messages ADD COLUMN traceparent text;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages DROP COLUMN traceparent;
      ALTER TABLE events DROP COLUMN traceparent;
    `);
  }
}
