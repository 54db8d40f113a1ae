import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * A seller profile per workspace, for its quote pages: the name, postal address, email and phone the
 * customer deals with, and the terms a quote is accepted under (a link or a text, never both). Each is
 * null until an admin sets it; a workspace without a name shows its own name, as before.
 *
 * A quote keeps the seller and terms as they were when it was sent (`quotes.seller`), inside what its
 * document hash covers: a later change of the profile reaches later quotes only. Quotes sent before
 * have none and show the profile as it is.
 */
export class SellerProfile1763802200000 implements MigrationInterface {
  name = 'SellerProfile1763802200000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE workspaces
        ADD COLUMN seller_name text,
        ADD COLUMN seller_address text,
        ADD COLUMN seller_email text,
        ADD COLUMN seller_phone text,
        ADD COLUMN seller_terms_url text,
        ADD COLUMN seller_terms_text text,
        ADD CONSTRAINT workspaces_seller_name_check
          CHECK ((length(seller_name) >= 1) AND (length(seller_name) <= 200)),
        ADD CONSTRAINT workspaces_seller_address_check
          CHECK ((length(seller_address) >= 1) AND (length(seller_address) <= 500)),
        ADD CONSTRAINT workspaces_seller_email_check
          CHECK ((length(seller_email) >= 1) AND (length(seller_email) <= 254)),
        ADD CONSTRAINT workspaces_seller_phone_check
          CHECK ((length(seller_phone) >= 1) AND (length(seller_phone) <= 40)),
        ADD CONSTRAINT workspaces_seller_terms_url_check
          CHECK ((length(seller_terms_url) >= 1) AND (length(seller_terms_url) <= 2000)),
        ADD CONSTRAINT workspaces_seller_terms_text_check
          CHECK ((length(seller_terms_text) >= 1) AND (length(seller_terms_text) <= 5000)),
        ADD CONSTRAINT workspaces_seller_terms_check
          CHECK ((seller_terms_url IS NULL) OR (seller_terms_text IS NULL));
      ALTER TABLE quotes ADD COLUMN seller jsonb;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      ALTER TABLE quotes DROP COLUMN seller;
      ALTER TABLE workspaces
        DROP COLUMN seller_name,
        DROP COLUMN seller_address,
        DROP COLUMN seller_email,
        DROP COLUMN seller_phone,
        DROP COLUMN seller_terms_url,
        DROP COLUMN seller_terms_text;
    `);
  }
}
