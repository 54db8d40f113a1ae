import type { Data } from '../../kernel/data';
import { HandoffEntity, type Handoff } from '../entities';

const now = () => 'clock_timestamp()';

/** Hand-overs to a person. */
export const handoffsIn = (data: Data) => {
  const rows = data.scoped(HandoffEntity);
  return {
    open: (
      values: Pick<Handoff, 'lead_id' | 'agent_id' | 'message_id' | 'channel' | 'reason' | 'priority'>,
    ) => rows.insert(values),
    /** A person answered the lead: its open hand-overs are done. */
    resolveFor: (leadId: string) =>
      rows.set({ lead_id: leadId, status: 'OPEN' }, { status: 'RESOLVED', resolved_at: now }),
  };
};
