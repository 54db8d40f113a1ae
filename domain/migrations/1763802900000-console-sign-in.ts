import type { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * Members sign in to the console (issue 55): with a passkey, after proving their address with a
 * one-time link mailed to them.
 *
 * - `passkeys`: a member's WebAuthn credentials (the public key, its signature counter).
 * - `console_sessions`: one row per signed-in browser; the cookie holds a secret whose SHA-256 is the
 *   row's `token_fingerprint`, so a database read cannot be turned into a session.
 * - `sign_in_links`: one-time links, stored by fingerprint too, each bound to the browser that asked.
 * - `sign_in_requests`: the requests for a link in the last 15 minutes, by a fingerprint of the address
 *   asked for (known or not: the answer must not tell them apart) and by client address, which the
 *   rate limits count.
 * - `webauthn_challenges`: each challenge handed to a browser, usable once, for a few minutes; a
 *   decision's is derived from the approval and the digest it decides, and remembers both.
 * - `member_mail`: the outbox of mail to members (sign-in links, invitations, requests waiting for
 *   them); its subject and text are sealed with SECRETS_KEY (they hold bearer links) and wiped once the
 *   mail has left or failed, which a CHECK holds.
 */
export class ConsoleSignIn1763802900000 implements MigrationInterface {
  name = 'ConsoleSignIn1763802900000';

  async up(q: QueryRunner): Promise<void> {
    await q.query(`
      CREATE TABLE passkeys (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        credential_id text NOT NULL CONSTRAINT passkeys_credential_id_key UNIQUE
          CONSTRAINT passkeys_credential_id_check
          CHECK (credential_id ~ '^[A-Za-z0-9_-]+$' AND length(credential_id) BETWEEN 16 AND 1366),
        public_key bytea NOT NULL,
        sign_count bigint NOT NULL DEFAULT 0 CONSTRAINT passkeys_sign_count_check CHECK (sign_count >= 0),
        transports text[] NOT NULL DEFAULT '{}',
        device_type text NOT NULL CONSTRAINT passkeys_device_type_check
          CHECK (device_type = ANY (ARRAY['singleDevice'::text, 'multiDevice'::text])),
        backed_up boolean NOT NULL,
        name text NOT NULL CONSTRAINT passkeys_name_check CHECK (length(name) >= 1 AND length(name) <= 100),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_used_at timestamptz
      );
      CREATE INDEX passkeys_user ON passkeys (user_id, created_at);

      CREATE TABLE console_sessions (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_fingerprint bytea NOT NULL CONSTRAINT console_sessions_token_fingerprint_key UNIQUE
          CONSTRAINT console_sessions_token_fingerprint_check CHECK (length(token_fingerprint) = 32),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        last_seen_at timestamptz NOT NULL,
        expires_at timestamptz NOT NULL,
        ended_at timestamptz,
        ended_reason text CONSTRAINT console_sessions_ended_reason_check
          CHECK (ended_reason = ANY (ARRAY['signed_out'::text, 'revoked'::text, 'removed'::text, 'demoted'::text])),
        ip inet,
        user_agent text CONSTRAINT console_sessions_user_agent_check CHECK (length(user_agent) <= 500),
        passkey_id uuid REFERENCES passkeys(id) ON DELETE SET NULL,
        CONSTRAINT console_sessions_ended_check CHECK ((ended_at IS NULL) = (ended_reason IS NULL))
      );
      -- A member's sessions, newest first (their page), and the live ones a removal or demotion ends.
      CREATE INDEX console_sessions_user ON console_sessions (user_id, created_at DESC);
      CREATE INDEX console_sessions_live ON console_sessions (user_id) WHERE ended_at IS NULL;
      -- A deleted passkey sets its sessions' passkey_id to null: found by this.
      CREATE INDEX console_sessions_passkey ON console_sessions (passkey_id) WHERE passkey_id IS NOT NULL;

      CREATE TABLE sign_in_links (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        token_fingerprint bytea NOT NULL CONSTRAINT sign_in_links_token_fingerprint_key UNIQUE
          CONSTRAINT sign_in_links_token_fingerprint_check CHECK (length(token_fingerprint) = 32),
        browser_fingerprint bytea NOT NULL
          CONSTRAINT sign_in_links_browser_fingerprint_check CHECK (length(browser_fingerprint) = 32),
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        ip inet
      );
      CREATE INDEX sign_in_links_user ON sign_in_links (user_id, created_at);

      CREATE TABLE sign_in_requests (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        address_fingerprint bytea NOT NULL
          CONSTRAINT sign_in_requests_address_fingerprint_check CHECK (length(address_fingerprint) = 32),
        ip inet,
        requested_at timestamptz NOT NULL
      );
      -- The two counts a request is checked against, and the sweep of requests past the window.
      CREATE INDEX sign_in_requests_address ON sign_in_requests (address_fingerprint, requested_at);
      CREATE INDEX sign_in_requests_ip ON sign_in_requests (ip, requested_at) WHERE ip IS NOT NULL;
      CREATE INDEX sign_in_requests_at ON sign_in_requests (requested_at);

      CREATE TABLE webauthn_challenges (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        purpose text NOT NULL CONSTRAINT webauthn_challenges_purpose_check
          CHECK (purpose = ANY (ARRAY['register'::text, 'sign_in'::text, 'decision'::text])),
        challenge text NOT NULL CONSTRAINT webauthn_challenges_challenge_key UNIQUE,
        nonce bytea,
        user_id uuid REFERENCES users(id) ON DELETE CASCADE,
        browser_fingerprint bytea,
        session_id uuid REFERENCES console_sessions(id) ON DELETE CASCADE,
        -- No reference: approvals are a higher area's table, and a challenge lives five minutes.
        approval_id uuid,
        digest text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        -- What each purpose is bound to: a user, a browser, or a user and the approval and digest decided.
        CONSTRAINT webauthn_challenges_parts_check CHECK (
          (purpose <> 'register' OR user_id IS NOT NULL)
          AND (purpose <> 'sign_in' OR browser_fingerprint IS NOT NULL)
          AND (purpose <> 'decision'
            OR (user_id IS NOT NULL AND approval_id IS NOT NULL AND digest IS NOT NULL AND nonce IS NOT NULL))
        )
      );
      CREATE INDEX webauthn_challenges_expires ON webauthn_challenges (expires_at);
      CREATE INDEX webauthn_challenges_user ON webauthn_challenges (user_id) WHERE user_id IS NOT NULL;
      CREATE INDEX webauthn_challenges_session ON webauthn_challenges (session_id) WHERE session_id IS NOT NULL;

      CREATE TABLE member_mail (
        id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
        user_id uuid NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        workspace_id uuid REFERENCES workspaces(id) ON DELETE CASCADE,
        kind text NOT NULL CONSTRAINT member_mail_kind_check
          CHECK (kind = ANY (ARRAY['sign_in_link'::text, 'invitation'::text, 'approval_waiting'::text])),
        status text NOT NULL DEFAULT 'queued' CONSTRAINT member_mail_status_check
          CHECK (status = ANY (ARRAY['queued'::text, 'sending'::text, 'retrying'::text, 'sent'::text, 'failed'::text])),
        sealed bytea,
        attempts integer NOT NULL DEFAULT 0,
        error text,
        provider_message_id text,
        created_at timestamptz NOT NULL DEFAULT clock_timestamp(),
        started_at timestamptz,
        sent_at timestamptz,
        CONSTRAINT member_mail_sealed_check
          CHECK ((sealed IS NULL) = (status = ANY (ARRAY['sent'::text, 'failed'::text])))
      );
      -- The relay's queue: mail whose workflow has not started.
      CREATE INDEX member_mail_unstarted ON member_mail (created_at) WHERE started_at IS NULL;
      CREATE INDEX member_mail_user ON member_mail (user_id);
      CREATE INDEX member_mail_workspace ON member_mail (workspace_id) WHERE workspace_id IS NOT NULL;
    `);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.query(`
      DROP TABLE member_mail;
      DROP TABLE webauthn_challenges;
      DROP TABLE sign_in_requests;
      DROP TABLE sign_in_links;
      DROP TABLE console_sessions;
      DROP TABLE passkeys;
    `);
  }
}
