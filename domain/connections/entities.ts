import { clockDefault, entity, inWorkspace, lengthCheck, oneOfCheck, uuidKey } from '../kernel/entity';

const CONNECTION_STATUSES = ['CONNECTED', 'DISCONNECTED'] as const;

export type Connection = {
  id: string;
  workspace_id: string;
  system: string;
  status: (typeof CONNECTION_STATUSES)[number];
  created_at: Date;
  disconnected_at: Date | null;
  /** A CalDAV calendar's collection URL, user name and password (AES-256-GCM under SECRETS_KEY). */
  calendar_url: string | null;
  username: string | null;
  password_ciphertext: Buffer | null;
};
export const ConnectionEntity = entity<Connection>({
  name: 'Connection',
  tableName: 'connections',
  columns: {
    id: uuidKey('connections'),
    workspace_id: { type: 'uuid' },
    system: { type: 'text' },
    status: { type: 'text', default: 'CONNECTED' },
    created_at: clockDefault,
    disconnected_at: { type: 'timestamptz', nullable: true },
    calendar_url: { type: 'text', nullable: true },
    username: { type: 'text', nullable: true },
    password_ciphertext: { type: 'bytea', nullable: true },
  },
  relations: inWorkspace('connections'),
  checks: [
    lengthCheck('connections', 'system', 1, 100),
    oneOfCheck('connections', 'status', CONNECTION_STATUSES),
  ],
  // One live connection per system (on lower(system), an expression TypeORM cannot declare).
  indices: [
    { name: 'connections_live', columns: ['workspace_id', 'system'], unique: true, synchronize: false },
  ],
});
