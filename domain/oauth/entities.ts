import { entity, inWorkspace, nowDefault, clockDefault, oneOfCheck } from '../kernel/entity';

/**
 * One record the authorization server keeps (an authorization code, a grant, a refresh or access
 * token, an interaction, a session, a registered client), by its model and id. Its grant, interaction
 * uid and expiry are columns, so a grant's records end together and expired ones are swept.
 */
export type OauthRecord = {
  model: string;
  id: string;
  payload: Record<string, unknown>;
  grant_id: string | null;
  uid: string | null;
  expires_at: Date | null;
  consumed_at: Date | null;
};
export const OauthRecordEntity = entity<OauthRecord>({
  name: 'OauthRecord',
  tableName: 'oauth_records',
  columns: {
    model: { type: 'text', primary: true, primaryKeyConstraintName: 'oauth_records_pkey' },
    id: { type: 'text', primary: true, primaryKeyConstraintName: 'oauth_records_pkey' },
    payload: { type: 'jsonb' },
    grant_id: { type: 'text', nullable: true },
    uid: { type: 'text', nullable: true },
    expires_at: { type: 'timestamptz', nullable: true },
    consumed_at: { type: 'timestamptz', nullable: true },
  },
  indices: [
    { name: 'oauth_records_grant', columns: ['grant_id'] },
    { name: 'oauth_records_uid', columns: ['uid'] },
    { name: 'oauth_records_expires', columns: ['expires_at'] },
  ],
});

/** A key the authorization server signs with, sealed with SECRETS_KEY; the newest live one signs. */
export type SigningKey = {
  kid: string;
  sealed: Buffer;
  created_at: Date;
  retired_at: Date | null;
};
export const SigningKeyEntity = entity<SigningKey>({
  name: 'SigningKey',
  tableName: 'oauth_signing_keys',
  columns: {
    kid: { type: 'text', primary: true, primaryKeyConstraintName: 'oauth_signing_keys_pkey' },
    sealed: { type: 'bytea' },
    created_at: clockDefault,
    retired_at: { type: 'timestamptz', nullable: true },
  },
});

/**
 * How the client named itself: by a metadata document at its https `client_id` (its host is where the
 * document was fetched from), or by registering (RFC 7591: what it says of itself is unverified).
 */
export const CLIENT_KINDS = ['document', 'registered'] as const;
export type ClientKind = (typeof CLIENT_KINDS)[number];

/**
 * A member's consent to a client: its credential row in `api_keys` (kind `assistant`: scopes, member,
 * workspace, revocation), the OAuth grant its tokens belong to, and the client as the consent page
 * showed it.
 */
export type AssistantConnection = {
  key_id: string;
  workspace_id: string;
  grant_id: string;
  client_id: string;
  client_name: string;
  client_host: string;
  client_kind: ClientKind;
  created_at: Date;
};
export const AssistantConnectionEntity = entity<AssistantConnection>({
  name: 'AssistantConnection',
  tableName: 'assistant_connections',
  columns: {
    key_id: { type: 'uuid', primary: true, primaryKeyConstraintName: 'assistant_connections_pkey' },
    workspace_id: { type: 'uuid' },
    grant_id: { type: 'text' },
    client_id: { type: 'text' },
    client_name: { type: 'text' },
    client_host: { type: 'text' },
    client_kind: { type: 'text' },
    created_at: nowDefault,
  },
  relations: {
    ...inWorkspace('assistant_connections'),
    key: {
      type: 'many-to-one',
      target: 'ApiKey',
      joinColumn: { name: 'key_id', foreignKeyConstraintName: 'assistant_connections_key_id_fkey' },
      onDelete: 'CASCADE',
      nullable: false,
    },
  },
  uniques: [{ name: 'assistant_connections_grant_id_key', columns: ['grant_id'] }],
  checks: [oneOfCheck('assistant_connections', 'client_kind', CLIENT_KINDS)],
  indices: [{ name: 'assistant_connections_workspace', columns: ['workspace_id', 'created_at'] }],
});
