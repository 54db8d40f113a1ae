import type Provider from 'oidc-provider';
import type { DataSource } from 'typeorm';
import type { PresentedCredential } from '../../domain/identity';
import { Data } from '../../domain/kernel/data';
import { connectionOfGrant } from '../../domain/oauth';
import { mcpResource } from './provider';

/** An opaque access token's shape (oidc-provider's: 43 base64url characters); anything else is not looked up. */
const ACCESS_TOKEN = /^[A-Za-z0-9_-]{43}$/;

/** The assistant connection an access token stands for, or why it does not stand for one. */
export type TokenLookup = (token: string) => Promise<PresentedCredential | { refused: string }>;

/**
 * Resolves an access token presented to the assistant endpoint: issued by this authorization server,
 * live, for this resource and no other (a token for another audience is refused: no token passes
 * through), of a grant that is a connection, to the client it was issued to. What the connection may
 * do is then decided as for a key.
 */
export function accessTokens(provider: Provider, db: DataSource, publicUrl: string): TokenLookup {
  const resource = mcpResource(publicUrl);
  return async (token) => {
    if (!ACCESS_TOKEN.test(token)) return { refused: 'malformed token' };
    const at = await provider.AccessToken.find(token);
    if (!at || at.isExpired) return { refused: 'unknown or expired access token' };
    const audience = Array.isArray(at.aud) ? at.aud : [at.aud];
    if (audience.length !== 1 || audience[0] !== resource)
      return { refused: `access token for another resource (${String(at.aud).slice(0, 200)})` };
    if (!at.grantId) return { refused: 'access token of no grant' };
    const connection = await connectionOfGrant(new Data(db.manager, undefined), at.grantId);
    if (!connection) return { refused: 'access token of no connection' };
    if (connection.client_id !== at.clientId) return { refused: 'access token of another client' };
    return {
      fingerprint: connection.fingerprint,
      client: { id: connection.client_id, name: connection.client_name },
    };
  };
}
