import { discardDraft, listDrafts, sendDraft } from './agents/operations/drafts';
import { pauseAgent, runAgentNow, startAgent, stopAgent } from './agents/operations/lifecycle';
import { agentRuns, configureAgent, createAgent, getAgent, listAgents } from './agents/operations/setup';
import {
  approveProspect,
  getProspect,
  importProspects,
  listProspects,
  rejectProspect,
  startProspectSourcing,
} from './prospects/operations/prospects';
import {
  closeOpportunityByHand,
  createOpportunity,
  getOpportunity,
  listOpportunities,
} from './sales/operations/opportunities';
import { createQuote, getQuote, listQuotes, reviseQuote, sendQuoteOp } from './sales/operations/quotes';
import { acceptQuotePage, declineQuotePage, viewQuotePage } from './sales/operations/quote-page';
import { getInvoice, issueInvoice, listInvoices, payInvoice } from './sales/operations/invoices';
import { analyticsSummary } from './analytics/operations/summary';
import { bookAppointment } from './appointments/operations/book';
import { cancelAppointment, confirmAppointment, declineAppointment } from './appointments/operations/decide';
import { markNoShow } from './appointments/operations/no-show';
import { getAppointment, listAppointments } from './appointments/operations/read';
import {
  approveApproval,
  cancelApproval,
  getApproval,
  listApprovals,
  rejectApproval,
  showApproval,
} from './approvals/operations/approvals';
import {
  createCampaign,
  getCampaign,
  listCampaigns,
  previewCampaign,
  updateCampaign,
} from './campaigns/operations/drafts';
import {
  launchCampaign,
  pauseCampaign,
  resumeCampaign,
  sendCampaign,
} from './campaigns/operations/lifecycle';
import { addConnection, disconnectConnection, listConnections } from './connections/operations/connections';
import {
  getConversation,
  listConversations,
  replyToConversation,
} from './conversations/operations/conversations';
import { recordInboundMessage } from './conversations/operations/record-inbound';
import { receiveMessage } from './conversations/operations/receive';
import { recordBounce } from './conversations/operations/bounce';
import { recordComplaint } from './conversations/operations/complaint';
import { mailDns } from './conversations/operations/mail-dns';
import { unsubscribeByLink } from './conversations/operations/unsubscribe';
import { listAudit } from './identity/operations/audit';
import { createApiKey, listApiKeys, revokeApiKey } from './identity/operations/keys';
import { addMember, removeMember, setMemberRole } from './identity/operations/members';
import {
  createWorkspace,
  getWorkspace,
  issueInboundEmailSecret,
  setDeliverability,
  setSellerProfile,
} from './identity/operations/workspaces';
import { withdrawOnLostAuthority } from './approvals/lifecycle';
import { onAuthorityLost, registerOperations } from './kernel/gate';
import type { AnyOperation } from './kernel/operation';
import { addLeadNote } from './leads/operations/add-note';
import { archiveLead } from './leads/operations/archive';
import { createLead } from './leads/operations/create';
import { editLead } from './leads/operations/edit';
import { getLead } from './leads/operations/get';
import { qualifyLead } from './leads/operations/qualify';
import { searchLeads } from './leads/operations/search';
import { setLeadStatus } from './leads/operations/set-status';
import { suppressContact } from './leads/operations/suppress-contact';
import { updateLead } from './leads/operations/update';
import {
  listDeliveries,
  listNotifications,
  recoverEndpoint,
  resendDelivery,
} from './webhooks/operations/deliveries';
import { listEventTypes } from './webhooks/operations/event-types';
import {
  createEndpoint,
  deleteEndpoint,
  disableEndpoint,
  enableEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  setEndpointEvents,
  testEndpoint,
} from './webhooks/operations/endpoints';

/** Every operation, by area; each door looks them up here by name. */
const operations = {
  // identity
  createWorkspace,
  getWorkspace,
  issueInboundEmailSecret,
  setDeliverability,
  setSellerProfile,
  addMember,
  setMemberRole,
  removeMember,
  createApiKey,
  revokeApiKey,
  listApiKeys,
  listAudit,
  // leads
  searchLeads,
  getLead,
  createLead,
  updateLead,
  editLead,
  setLeadStatus,
  addLeadNote,
  archiveLead,
  qualifyLead,
  suppressContact,
  // conversations
  recordInboundMessage,
  listConversations,
  getConversation,
  replyToConversation,
  receiveMessage,
  recordBounce,
  recordComplaint,
  unsubscribeByLink,
  mailDns,
  // campaigns
  createCampaign,
  updateCampaign,
  previewCampaign,
  listCampaigns,
  getCampaign,
  sendCampaign,
  launchCampaign,
  pauseCampaign,
  resumeCampaign,
  // appointments
  listAppointments,
  getAppointment,
  bookAppointment,
  confirmAppointment,
  declineAppointment,
  cancelAppointment,
  markNoShow,
  // prospects
  importProspects,
  startProspectSourcing,
  listProspects,
  getProspect,
  approveProspect,
  rejectProspect,
  // analytics
  analyticsSummary,
  // sales: opportunities, quotes (and the customer's page), invoices
  createOpportunity,
  closeOpportunityByHand,
  getOpportunity,
  listOpportunities,
  createQuote,
  reviseQuote,
  sendQuoteOp,
  getQuote,
  listQuotes,
  viewQuotePage,
  acceptQuotePage,
  declineQuotePage,
  issueInvoice,
  payInvoice,
  getInvoice,
  listInvoices,
  // agents
  createAgent,
  configureAgent,
  listAgents,
  getAgent,
  agentRuns,
  startAgent,
  runAgentNow,
  pauseAgent,
  stopAgent,
  listDrafts,
  sendDraft,
  discardDraft,
  // connections
  addConnection,
  listConnections,
  disconnectConnection,
  // approvals
  getApproval,
  listApprovals,
  showApproval,
  cancelApproval,
  approveApproval,
  rejectApproval,
  // webhooks
  createEndpoint,
  rotateEndpointSecret,
  enableEndpoint,
  disableEndpoint,
  deleteEndpoint,
  setEndpointEvents,
  listEndpoints,
  testEndpoint,
  listDeliveries,
  resendDelivery,
  recoverEndpoint,
  listNotifications,
  listEventTypes,
} as const;

const byName = new Map<string, AnyOperation>(
  Object.values(operations).map((op): [string, AnyOperation] => [op.name, op]),
);
if (byName.size !== Object.keys(operations).length) throw new Error('two operations share a name');

/** The operation registered under `name` (`lead.set_status`), or undefined. */
export const operationNamed = (name: string): AnyOperation | undefined => byName.get(name);

// Identity takes authority away (a key revoked, a member demoted or removed); the approvals area
// withdraws what was parked on it. Wired here, where the areas meet, so neither imports the other.
onAuthorityLost((data, loss, services) =>
  withdrawOnLostAuthority(data, loss, services, (name) => operationNamed(name)?.requirement),
);
registerOperations(operationNamed);

/** Every registered operation, sorted by name (a deterministic order for tool lists and docs). */
export const allOperations = (): AnyOperation[] =>
  [...byName.values()].sort((a, b) => a.name.localeCompare(b.name));
