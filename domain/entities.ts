import {
  AgentActionEntity,
  AgentDraftEntity,
  AgentEntity,
  AgentRunEntity,
  HandoffEntity,
} from './agents/entities';
import {
  DocumentCounterEntity,
  InvoiceEntity,
  OpportunityEntity,
  QuoteEntity,
  QuoteSignatureEntity,
} from './sales/entities';
import { ProspectEntity, ProspectListEntity, SourcingRunEntity } from './prospects/entities';
import { AppointmentEntity } from './appointments/entities';
import { ApprovalEntity } from './approvals/entities';
import { CampaignEntity, RecipientEntity } from './campaigns/entities';
import { ConnectionEntity } from './connections/entities';
import { MessageEntity } from './conversations/entities';
import {
  ApiKeyEntity,
  MembershipEntity,
  RateLimitWindowEntity,
  UserEntity,
  WorkspaceEntity,
} from './identity/entities';
import { AuditEntity, EventEntity, IdempotencyEntity, PublicRateWindowEntity } from './kernel/entities';
import { LeadEntity, LeadNoteEntity, ScoreEntity, SuppressionEntity, TouchEntity } from './leads/entities';
import { AttemptEntity, DeliveryEntity, EndpointEntity, NotificationEntity } from './webhooks/entities';

/** Every table, as the entity its area declares (`domain/<area>/entities.ts`). */
export const ENTITIES = [
  WorkspaceEntity,
  UserEntity,
  MembershipEntity,
  ApiKeyEntity,
  RateLimitWindowEntity,
  PublicRateWindowEntity,
  AuditEntity,
  EventEntity,
  IdempotencyEntity,
  LeadEntity,
  LeadNoteEntity,
  TouchEntity,
  SuppressionEntity,
  ScoreEntity,
  MessageEntity,
  EndpointEntity,
  DeliveryEntity,
  AttemptEntity,
  NotificationEntity,
  ConnectionEntity,
  ApprovalEntity,
  CampaignEntity,
  RecipientEntity,
  AppointmentEntity,
  AgentEntity,
  AgentRunEntity,
  AgentDraftEntity,
  AgentActionEntity,
  HandoffEntity,
  ProspectListEntity,
  SourcingRunEntity,
  ProspectEntity,
  OpportunityEntity,
  DocumentCounterEntity,
  QuoteEntity,
  QuoteSignatureEntity,
  InvoiceEntity,
];
