import type { Data } from '../kernel/data';
import type { Lead } from './entities';
import type { InboundEffect } from './hooks';
import { leadsIn } from './repository/leads';
import { suppressionsIn } from './repository/suppressions';

/*
 * What the areas above leads read of a lead and change on it, each named for what it does: they never
 * hold leads' repository. A change is made on a lead the caller locked (`lockLead`).
 */

/** A lead of the workspace, or null. */
export const leadNamed = (data: Data, leadId: string): Promise<Lead | null> => leadsIn(data).find(leadId);

/** Refuses a lead that is not in the workspace (another workspace's is "not found"). */
export const mustHaveLead = (data: Data, leadId: string): Promise<void> => leadsIn(data).mustExist(leadId);

/** The live (not archived) lead whose email or phone is this address, if any. */
export const liveLeadWithAddress = (data: Data, address: string): Promise<string | undefined> =>
  leadsIn(data).liveWithAddress(address);

/** Whether someone must look at the lead (a reply came; a person answered it). */
export const flagForAttention = (data: Data, leadId: string, needed: boolean): Promise<void> =>
  leadsIn(data).mark(leadId, { needs_attention: needed });

/** Whether the lead's follow-up goes on (an agent chases it) or stopped (handed to a person). */
export const setFollowUp = (data: Data, leadId: string, state: 'ACTIVE' | 'STOPPED'): Promise<void> =>
  leadsIn(data).mark(leadId, { follow_up: state });

/** Writes what an inbound message did to the lead (`inboundEffect`): attention, and its intent. */
export const applyInboundEffect = (data: Data, leadId: string, effect: InboundEffect): Promise<void> =>
  leadsIn(data).mark(leadId, effect.changes);

/** Why an address may not be written to on a channel (a suppression's reason), or undefined. */
export const suppressionOf = (data: Data, address: string, channel: string): Promise<string | undefined> =>
  suppressionsIn(data).blockedOn(address, channel);
