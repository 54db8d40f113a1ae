import type { EntitySchema } from 'typeorm';
import { AuditEntity, EventEntity, IdempotencyEntity, PublicRateWindowEntity } from './kernel/entities';
import { AREAS } from './registry';

/** Every table: the kernel's, then each area's (`domain/<area>/entities.ts`, listed by its index). */
export const ENTITIES: EntitySchema[] = [
  AuditEntity,
  EventEntity,
  IdempotencyEntity,
  PublicRateWindowEntity,
  ...AREAS.flatMap((area): EntitySchema[] => ('entities' in area ? area.entities : [])),
];
