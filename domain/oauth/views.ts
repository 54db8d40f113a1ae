import { SCOPES } from '../kernel/permissions';
import { arrayOf, boolean, dateTime, nullable, object, oneOf, string, uuid } from '../kernel/shapes';
import { CLIENT_KINDS } from './entities';
import type { ConnectionRow } from './repository/connections';

/** An assistant connection: a member's consent to a client, with the scopes it carries and its last use. */
export const CONNECTION = object(
  {
    id: uuid,
    workspace_id: uuid,
    client_id: string({
      description: "The client's id: its metadata document's https URL, or the id it registered under.",
    }),
    client_name: string({ description: 'The name the client gave (unverified for a registered client).' }),
    client_host: string({
      description: "Where the client's metadata document lives, or `registered client`.",
    }),
    client_kind: oneOf(CLIENT_KINDS),
    member_user_id: uuid,
    member_email: string(),
    scopes: arrayOf(oneOf(SCOPES)),
    created_at: dateTime,
    expires_at: dateTime,
    revoked_at: nullable(dateTime),
    last_used_at: nullable({ ...dateTime, description: 'When a call last came through it; null: never.' }),
    live: boolean,
  },
  { title: 'AssistantConnection' },
);

export const connectionView = (c: ConnectionRow, now: Date) => ({
  id: c.key_id,
  workspace_id: c.workspace_id,
  client_id: c.client_id,
  client_name: c.client_name,
  client_host: c.client_host,
  client_kind: c.client_kind,
  member_user_id: c.member_user_id,
  member_email: c.member_email,
  scopes: c.scopes,
  created_at: c.created_at.toISOString(),
  expires_at: c.expires_at.toISOString(),
  revoked_at: c.revoked_at ? c.revoked_at.toISOString() : null,
  last_used_at: c.last_used_at ? c.last_used_at.toISOString() : null,
  live: c.revoked_at === null && c.expires_at > now,
});

/** A client registered over RFC 7591: what it said of itself (unverified). */
export const REGISTERED_CLIENT = object(
  {
    client_id: string(),
    client_name: nullable(string()),
    redirect_uris: arrayOf(string()),
    registered_at: nullable(dateTime),
  },
  { title: 'RegisteredClient' },
);

export const registeredClientView = (r: { id: string; payload: Record<string, unknown> }) => {
  const issued = r.payload.client_id_issued_at;
  return {
    client_id: r.id,
    client_name: typeof r.payload.client_name === 'string' ? r.payload.client_name : null,
    redirect_uris: Array.isArray(r.payload.redirect_uris) ? r.payload.redirect_uris.map(String) : [],
    registered_at: typeof issued === 'number' ? new Date(issued * 1000).toISOString() : null,
  };
};

/** The authorization server's signing keys: ids and dates, never the keys. */
export const SIGNING_KEYS = object(
  {
    live: nullable(
      string({ description: 'The id of the key that signs from the next start of each API process.' }),
    ),
    keys: arrayOf(object({ kid: string(), created_at: dateTime, retired_at: nullable(dateTime) })),
  },
  { title: 'SigningKeys' },
);
