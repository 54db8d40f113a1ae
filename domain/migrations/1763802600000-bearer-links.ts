import type { MigrationInterface, QueryRunner } from 'typeorm';

const QUOTE_LINK = `'(https?://\\S*)?/quotes/[A-Za-z0-9_-]{43}'`;

/**
 * Rewrites stored bodies that hold a quote page's link: a quote's own email names its quote and
 * revision in the link's place (and which page, so one still waiting to leave gets a derived link);
 * any other body says "[link to a quote]". Answers how many of each.
 */
export async function scrubQuoteLinks(q: Pick<QueryRunner, 'query'>) {
  // Counted in a WITH: TypeORM answers an UPDATE's RETURNING as [rows, count].
  const [{ quote_emails, others }] = (await q.query(`
    WITH linked AS (
      SELECT m.id, qu.id AS quote_id, format('[link to quote %s, revision %s]', qu.number, qu.revision) AS label
        FROM quotes qu JOIN messages m ON m.id = qu.message_id
       WHERE m.body ~ ${QUOTE_LINK}
    ), quote_emails AS (
      UPDATE messages m
         SET body = regexp_replace(m.body, ${QUOTE_LINK}, linked.label, 'g'),
             page_link = jsonb_build_object('path', '/quotes', 'subject', linked.quote_id, 'label', linked.label)
        FROM linked WHERE m.id = linked.id
      RETURNING m.id
    ), others AS (
      UPDATE messages SET body = regexp_replace(body, ${QUOTE_LINK}, '[link to a quote]', 'g')
       WHERE body ~ ${QUOTE_LINK} AND id NOT IN (SELECT id FROM linked)
      RETURNING id
    )
    SELECT (SELECT count(*) FROM quote_emails)::int AS quote_emails, (SELECT count(*) FROM others)::int AS others
  `)) as [{ quote_emails: number; others: number }];
  return { quoteEmails: quote_emails, others };
}

/**
 * No bearer link in a stored message, no message id in a Message-ID.
 *
 * - `messages.page_link`: a message that links to a personal page (a quote's) keeps only which page and
 *   the words shown in the link's place; the link is derived from the server's key when the email
 *   leaves. Quote emails sent before this kept the link, token and all, in `messages.body`, where a
 *   key that reads leads could take it: each is rewritten to "[link to quote Q-0012, revision 2]", and
 *   any other stored body holding a quote page's link to "[link to a quote]". The quotes keep their
 *   `token_hash`, so the links in the customers' inboxes keep working; one still waiting to leave gets a
 *   derived link when it does.
 * - `messages.mail_id`: the left part of an outbound email's Message-ID, random for new messages. Rows
 *   already here keep their id there, so a message queued before and sent after keeps the Message-ID it
 *   would have had, and replies and reports about mail already sent still find it by the stored
 *   `provider_message_id`.
 */
export class BearerLinks1763802600000 implements MigrationInterface {
  name = 'BearerLinks1763802600000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages ADD COLUMN page_link jsonb;
      ALTER TABLE messages ADD COLUMN mail_id uuid;
      UPDATE messages SET mail_id = id;
      ALTER TABLE messages ALTER COLUMN mail_id SET DEFAULT gen_random_uuid(), ALTER COLUMN mail_id SET NOT NULL;
    `);
    const { quoteEmails, others } = await scrubQuoteLinks(q);
    // Said once, at the deploy that scrubs: how many stored bodies held a quote page's link.
    if (quoteEmails + others > 0)
      console.log(
        `migration ${this.name}: scrubbed quote page links from ${quoteEmails} quote emails and ${others} other messages`,
      );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE messages DROP COLUMN mail_id;
      ALTER TABLE messages DROP COLUMN page_link;
    `);
  }
}
