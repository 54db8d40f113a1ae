import { clockDefault, entity, inWorkspace, oneOfCheck, references, uuidKey } from '../kernel/entity';

export const DIRECTIONS = ['inbound', 'outbound'] as const;

export type Message = {
  id: string;
  workspace_id: string;
  lead_id: string;
  channel: string;
  direction: (typeof DIRECTIONS)[number];
  status: string;
  body: string;
  at: Date;
};
export const MessageEntity = entity<Message>({
  name: 'Message',
  tableName: 'messages',
  columns: {
    id: uuidKey('messages'),
    workspace_id: { type: 'uuid' },
    lead_id: { type: 'uuid' },
    channel: { type: 'text' },
    direction: { type: 'text' },
    status: { type: 'text' },
    body: { type: 'text' },
    at: clockDefault,
  },
  relations: { ...inWorkspace('messages'), lead: references('messages', 'lead_id', 'Lead') },
  checks: [oneOfCheck('messages', 'direction', DIRECTIONS)],
  // A lead's newest first (DESC; the migration made it).
  indices: [{ name: 'messages_lead_recent', columns: ['lead_id', 'at', 'id'], synchronize: false }],
});
