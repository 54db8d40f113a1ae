/**
 * The oauth area: how hosted assistants connect. The authorization server's records (codes, grants,
 * tokens, registered clients) and its signing keys, kept for the API's OAuth door; and the assistant
 * connections members grant on the console, each a credential beside the workspace's keys.
 * This file is its public face: nothing outside domain/oauth/ imports anything but this file.
 */

import { revokeRegisteredClient } from './operations/revoke-client';
import { listRegisteredClients } from './operations/clients';
import { grantAssistantConnection } from './operations/connect';
import { listAssistantConnections } from './operations/connections';
import { revokeAssistantConnection } from './operations/disconnect';
import { listOauthKeys } from './operations/keys';
import { rotateSigningKey } from './operations/rotate-key';
import { AssistantConnectionEntity, OauthRecordEntity, SigningKeyEntity } from './entities';

/** The operations this area registers. */
export const operations = {
  grantAssistantConnection,
  listAssistantConnections,
  revokeAssistantConnection,
  listRegisteredClients,
  revokeRegisteredClient,
  rotateSigningKey,
  listOauthKeys,
} as const;

/** Its tables. */
export const entities = [OauthRecordEntity, SigningKeyEntity, AssistantConnectionEntity];

/** The authorization server's storage: one model's records (the API's adapter), and its expired records swept. */
export { recordsOf, sweepRecords } from './repository/records';
/** The credential an access token's grant stands for (on every assistant request), and its connection. */
export { connectionByGrant, connectionOfGrant, grantLive } from './repository/connections';
/** The signing keys, live first, as the API's authorization server starts with them. */
export { loadSigningKeys } from './signing-keys';
export type { SigningJwk } from './signing-keys';
/** How long a connection lasts (its grant's lifetime). */
export { CONNECTION_DAYS } from './requirements';
/** How clients naming themselves are recorded. */
export type { ClientKind } from './entities';
