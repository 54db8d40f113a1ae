import * as yup from 'yup';
import { READ_ONLY, defineOperation } from '../../kernel/operation';
import { arrayOf } from '../../kernel/shapes';
import { registeredClients } from '../repository/records';
import { REGISTERED_CLIENT, registeredClientView } from '../views';

/** The operator's view of every client that registered itself (RFC 7591), newest first (at most 500). */
export const listRegisteredClients = defineOperation({
  name: 'oauth.clients',
  title: 'List registered OAuth clients',
  description:
    'Every OAuth client that registered itself (Dynamic Client Registration), newest first, with what it said of itself: its name and redirect URIs, unverified.',
  returns: 'Registered clients.',
  requirement: { scope: 'business:read', minRole: 'owner' },
  reach: 'none',
  operatorOnly: true,
  ...READ_ONLY,
  input: yup.object({}),
  output: arrayOf(REGISTERED_CLIENT),
  doors: { admin: { command: 'oauth clients' } },
  summary: () => 'List the registered OAuth clients',
  run: async (ctx) => (await registeredClients(ctx.data)).map(registeredClientView),
});
